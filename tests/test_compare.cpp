// Before/after comparison: the bootstrap, the verdict rule and the pairing of runs, and simulations
// showing that the verdicts mean what they say (false alarms, power, interval coverage).
#include <catch2/catch.hpp> // Catch2 v2

#include <algorithm> // std::sort, std::count_if
#include <cmath>     // std::exp, std::isnan
#include <limits>    // std::numeric_limits
#include <random>    // std::mt19937_64, std::lognormal_distribution
#include <string>    // std::string
#include <vector>    // std::vector

#include "servestat/compare/gate.hpp"
#include "servestat/ingest/detect.hpp"
#include "servestat/report/compare_json.hpp"

namespace test_compare { // the unity build compiles several test files as one: each keeps its names

using namespace servestat;

namespace {

request_record ok_request(double t_sent, double e2e, int prompt = 20) {
    request_record r;
    r.t_sched = t_sent;
    r.t_sent = t_sent;
    r.t_first = t_sent + e2e / 4;
    r.t_end = t_sent + e2e;
    r.prompt_tokens = prompt;
    r.output_tokens = 16;
    r.status = request_status::ok;
    r.http_status = 200;
    return r;
}

request_record failed_request(double t_sent) {
    request_record r;
    r.t_sent = t_sent;
    r.t_end = t_sent + 0.01;
    r.status = request_status::error;
    r.http_status = 500;
    r.error = "Internal Server Error";
    return r;
}

run run_of(const std::vector<double>& latencies, std::string label = "run", nlohmann::json params = nlohmann::json::object()) {
    run r;
    r.meta.label = std::move(label);
    r.meta.params = std::move(params);
    for (std::size_t i = 0; i < latencies.size(); ++i) r.requests.push_back(ok_request(0.01 * static_cast<double>(i), latencies[i]));
    return r;
}

// Lognormal latencies around `median` seconds, as serving latencies are skewed to the right.
std::vector<double> lognormal_sample(std::mt19937_64& rng, std::size_t n, double median = 2.0, double sigma = 0.5) {
    std::lognormal_distribution<double> d(std::log(median), sigma);
    std::vector<double> out(n);
    for (auto& x : out) x = d(rng);
    return out;
}

std::vector<double> scaled(std::vector<double> xs, double factor) {
    for (auto& x : xs) x *= factor;
    return xs;
}

const change& change_named(const run_comparison& rc, std::string_view name) {
    const change* c = find_change(rc, name);
    REQUIRE(c != nullptr);
    return *c;
}

compare_options fast_options(std::size_t resamples = 500) {
    compare_options o;
    o.metrics = {metric::e2e};
    o.bootstrap.resamples = resamples;
    return o;
}

} // namespace

TEST_CASE("a resample read from draw counts equals the explicit resample, column by column") {
    const double none = std::numeric_limits<double>::quiet_NaN();
    const std::vector<double> e2e{9.0, 0.5, 1.0, 1.0, 20.0, 3.0, 4.0, 7.5, 2.5, 11.0, 21.0};
    const std::vector<double> ttft{none, 0.1, 0.3, none, 2.0, 0.4, 0.2, 0.9, none, 1.5, 0.7}; // some unmeasured
    const std::vector<double> ps{0, 10, 50, 90, 99, 100};
    for (auto method : {quantile_method::linear, quantile_method::inverted_cdf, quantile_method::hazen,
                        quantile_method::nearest}) {
        request_resampler resampler({e2e, ttft}, ps, method);
        auto rng = bootstrap_rng(7, "check");
        auto replay = bootstrap_rng(7, "check");
        std::vector<double> out(resampler.statistics());
        request_resampler::draw_state state;
        for (int k = 0; k < 50; ++k) {
            resampler.draw(rng, state);
            std::vector<std::size_t> picked;
            for (std::size_t i = 0; i < e2e.size(); ++i) picked.push_back(detail::draw_below(replay, e2e.size()));
            for (std::size_t c = 0; c < 2; ++c) {
                const auto& column = c == 0 ? e2e : ttft;
                std::vector<double> explicit_resample;
                for (auto i : picked)
                    if (!std::isnan(column[i])) explicit_resample.push_back(column[i]);
                std::sort(explicit_resample.begin(), explicit_resample.end());
                REQUIRE(resampler.read(c, out, state) == !explicit_resample.empty());
                if (explicit_resample.empty()) continue;
                double sum = 0;
                for (double x : explicit_resample) sum += x;
                for (std::size_t j = 0; j < ps.size(); ++j) CHECK(out[j] == percentile_sorted(explicit_resample, ps[j], method));
                CHECK(out.back() == Approx(sum / static_cast<double>(explicit_resample.size())).epsilon(1e-14));
            }
        }
    }
}

TEST_CASE("draws below n are uniform and below n") {
    auto rng = bootstrap_rng(1, "uniform");
    std::vector<int> counts(7, 0);
    for (int k = 0; k < 70000; ++k) ++counts.at(detail::draw_below(rng, 7));
    for (int c : counts) CHECK(c == Approx(10000).margin(400)); // ±4 standard deviations
}

TEST_CASE("percentile interval is the central share of the draws, numpy-linear") {
    std::vector<double> draws;
    for (int i = 1; i <= 101; ++i) draws.push_back(102 - i); // 101 .. 1, unsorted on purpose
    const interval ci = percentile_interval(draws, 0.95);
    // np.percentile(np.arange(1, 102), [2.5, 97.5]) -> [3.5, 98.5]
    CHECK(ci.low == Approx(3.5).epsilon(1e-12));
    CHECK(ci.high == Approx(98.5).epsilon(1e-12));
}

TEST_CASE("fewest requests for a percentile follow the order-statistic rule") {
    CHECK(fewest_requests_for(99) == 299u);
    CHECK(fewest_requests_for(99.9) == 2995u);
    CHECK(fewest_requests_for(50) == 5u);
    CHECK(fewest_requests_for(90) == 29u);
    CHECK(fewest_requests_for(1) == 299u); // the lower tail mirrors the upper
    CHECK_FALSE(fewest_requests_for(100).has_value());
    CHECK_FALSE(fewest_requests_for(0).has_value());
}

TEST_CASE("the verdict needs a significant shift and an interval beyond the noise band") {
    const verdict_options o; // noise 2%, alpha 0.05
    CHECK(decide({0.01, interval{0.05, 0.20}, interval{0.1, 0.4}, true}, o) == verdict::regressed);
    CHECK(decide({0.01, interval{-0.20, -0.05}, interval{-0.4, -0.1}, true}, o) == verdict::improved);
    CHECK(decide({0.01, interval{0.05, 0.20}, interval{0.1, 0.4}, false}, o) == verdict::improved);
    CHECK(decide({0.01, interval{0.01, 0.20}, interval{0.02, 0.4}, true}, o) == verdict::within_noise);
    CHECK(decide({0.20, interval{0.05, 0.20}, interval{0.1, 0.4}, true}, o) == verdict::no_change);
    CHECK(decide({0.01, interval{-0.01, 0.01}, interval{-0.02, 0.02}, true}, o) == verdict::within_noise);
    // A zero baseline has no relative change: the absolute interval decides, with no band.
    CHECK(decide({0.01, std::nullopt, interval{0.001, 0.002}, true}, o) == verdict::regressed);
    CHECK(decide({0.01, std::nullopt, interval{-0.001, 0.002}, true}, o) == verdict::within_noise);
}

TEST_CASE("a percentile's verdict rests on its interval alone") {
    const verdict_options o; // noise 2%, alpha 0.05
    const auto percentile = [](double p, interval relative, interval delta) {
        return change_evidence{p, relative, delta, true, true};
    };
    // A tail that moved while the distribution as a whole did not (p = 0.31): its interval decides.
    CHECK(decide(percentile(0.31, interval{0.466, 0.720}, interval{0.4, 0.7}), o) == verdict::regressed);
    CHECK(decide(percentile(0.31, interval{-0.30, -0.10}, interval{-0.3, -0.1}), o) == verdict::improved);
    // An interval holding no change is no change, however small p is; one clear of 0 but inside the
    // band is within noise.
    CHECK(decide(percentile(0.001, interval{-0.01, 0.30}, interval{-0.01, 0.3}), o) == verdict::no_change);
    CHECK(decide(percentile(0.50, interval{0.005, 0.015}, interval{0.005, 0.015}), o) == verdict::within_noise);
}

TEST_CASE("identical runs show no change anywhere") {
    std::mt19937_64 rng(11);
    const auto xs = lognormal_sample(rng, 400);
    const run a = run_of(xs), b = run_of(xs);
    const auto rc = compare_runs(a, b, fast_options());
    for (const auto& c : rc.changes) {
        INFO(c.name);
        CHECK((c.result == verdict::no_change || c.result == verdict::single || c.result == verdict::too_few));
        if (c.relative) CHECK(*c.relative == 0);
        if (c.p_value) CHECK(*c.p_value == 1);
    }
    CHECK(change_named(rc, "e2e.p50").result == verdict::no_change);
}

TEST_CASE("two samples of one distribution are almost never called improved or regressed") {
    std::mt19937_64 rng(2026);
    int flagged = 0, significant = 0;
    const int trials = 200;
    for (int t = 0; t < trials; ++t) {
        const auto rc = compare_runs(run_of(lognormal_sample(rng, 500)), run_of(lognormal_sample(rng, 500)),
                                     fast_options(300));
        for (const char* name : {"e2e.p50", "e2e.p90", "e2e.mean"}) {
            const auto v = change_named(rc, name).result;
            flagged += v == verdict::improved || v == verdict::regressed;
        }
        significant += *change_named(rc, "e2e.p50").p_value < 0.05;
    }
    // "No significant change" in at least 95% of trials for each statistic, all three together here.
    CHECK(flagged <= 3 * trials * 5 / 100);
    // The Mann–Whitney test is calibrated: p < 0.05 in about 5% of trials under no change
    // (binomial(200, 0.05): 10 expected, 2..20 is beyond ±3.3 standard deviations).
    CHECK(significant >= 2);
    CHECK(significant <= 20);
}

TEST_CASE("a 10% slowdown at n = 2000 is called regressed") {
    std::mt19937_64 rng(7);
    int regressed_p50 = 0, regressed_mean = 0;
    const int trials = 200;
    for (int t = 0; t < trials; ++t) {
        const auto before = lognormal_sample(rng, 2000);
        const auto after = scaled(lognormal_sample(rng, 2000), 1.10);
        const auto rc = compare_runs(run_of(before), run_of(after), fast_options(200));
        regressed_p50 += change_named(rc, "e2e.p50").result == verdict::regressed;
        regressed_mean += change_named(rc, "e2e.mean").result == verdict::regressed;
    }
    CHECK(regressed_p50 >= trials * 95 / 100);
    CHECK(regressed_mean >= trials * 95 / 100);
}

TEST_CASE("a 10% speed-up is called improved, and a throughput rise too") {
    std::mt19937_64 rng(8);
    const auto rc = compare_runs(run_of(lognormal_sample(rng, 2000)), run_of(scaled(lognormal_sample(rng, 2000), 0.9)),
                                 fast_options());
    CHECK(change_named(rc, "e2e.p50").result == verdict::improved);
    CHECK(change_named(rc, "e2e.p50").relative.value() < 0);
}

TEST_CASE("intervals of the relative change cover the true change 95% of the time") {
    // After = before's distribution scaled by 1.1, so every quantile and the mean change by exactly +10%.
    std::mt19937_64 rng(95);
    const int trials = 500;
    int covered_p50 = 0, covered_mean = 0;
    for (int t = 0; t < trials; ++t) {
        const auto rc = compare_runs(run_of(lognormal_sample(rng, 400)), run_of(scaled(lognormal_sample(rng, 400), 1.1)),
                                     fast_options(400));
        auto covers = [&](const char* name) {
            const auto& ci = change_named(rc, name).relative_ci;
            REQUIRE(ci.has_value());
            return ci->low <= 0.1 && 0.1 <= ci->high;
        };
        covered_p50 += covers("e2e.p50");
        covered_mean += covers("e2e.mean");
    }
    CHECK(covered_p50 >= trials * 92 / 100);
    CHECK(covered_p50 <= trials * 98 / 100);
    CHECK(covered_mean >= trials * 92 / 100);
    CHECK(covered_mean <= trials * 98 / 100);
}

TEST_CASE("the same seed gives the same intervals; another seed other ones") {
    std::mt19937_64 rng(3);
    run a = run_of(lognormal_sample(rng, 300)), b = run_of(lognormal_sample(rng, 300));
    // Failures on both sides: success rates whose resampled ratios take many values.
    for (int i = 0; i < 12; ++i) a.requests.push_back(failed_request(5 + i));
    for (int i = 0; i < 20; ++i) b.requests.push_back(failed_request(5 + i));
    auto o = fast_options();
    const auto first = compare_runs(a, b, o), again = compare_runs(a, b, o);
    o.bootstrap.seed += 1;
    const auto other = compare_runs(a, b, o);
    // Only shares are bootstrapped; a percentile's interval comes from order statistics and a
    // mean's from Welch's t and Fieller, no draws.
    const auto& x = change_named(first, "success_rate");
    CHECK(x.relative_ci->low == change_named(again, "success_rate").relative_ci->low);
    CHECK(x.relative_ci->high == change_named(again, "success_rate").relative_ci->high);
    CHECK(x.relative_ci->low != change_named(other, "success_rate").relative_ci->low);
    CHECK(change_named(first, "e2e.p90").relative_ci->low == change_named(other, "e2e.p90").relative_ci->low);
    CHECK(change_named(first, "e2e.mean").relative_ci->low == change_named(other, "e2e.mean").relative_ci->low);
    CHECK(comparison_document(compare(std::span(&a, 1), std::span(&b, 1), {.compare = fast_options()}), {.compare = fast_options()}) ==
          comparison_document(compare(std::span(&a, 1), std::span(&b, 1), {.compare = fast_options()}), {.compare = fast_options()}));
}

TEST_CASE("an upper percentile gets no verdict where no order-statistic interval of its change holds 95%") {
    std::mt19937_64 rng(5);
    auto o = fast_options();
    o.percentiles = {50, 99, 99.9};
    // p99 of 237 a side: even the widest positions the rule reaches cover less than 95%; 238 suffice.
    const auto small = compare_runs(run_of(lognormal_sample(rng, 237)), run_of(scaled(lognormal_sample(rng, 237), 3)), o);
    CHECK(change_named(small, "e2e.p99").result == verdict::too_few);
    CHECK_FALSE(change_named(small, "e2e.p99").relative_ci.has_value());
    CHECK(change_named(small, "e2e.p50").result == verdict::regressed);
    const auto enough = compare_runs(run_of(lognormal_sample(rng, 238)), run_of(scaled(lognormal_sample(rng, 238), 3)), o);
    CHECK(change_named(enough, "e2e.p99").result == verdict::regressed);
    CHECK(change_named(enough, "e2e.p99.9").result == verdict::too_few);
}

TEST_CASE("a percentile's change interval is read from both sides' order statistics") {
    // 20 values a side, medians: positions X(7)..X(14) on each side (test_compare_calibration.cpp),
    // so after − before lies in [a(7) − b(14), a(14) − b(7)] and after / before − 1 in
    // [a(7) / b(14) − 1, a(14) / b(7) − 1].
    std::vector<double> before, after;
    for (int i = 1; i <= 20; ++i) {
        before.push_back(i);
        after.push_back(10.0 * i);
    }
    const auto rc = compare_runs(run_of(before), run_of(after), fast_options());
    const auto& p50 = change_named(rc, "e2e.p50");
    REQUIRE(p50.delta_ci.has_value());
    CHECK(p50.delta_ci->low == 70.0 - 14.0);
    CHECK(p50.delta_ci->high == 140.0 - 7.0);
    CHECK(p50.relative_ci->low == Approx(70.0 / 14.0 - 1));
    CHECK(p50.relative_ci->high == Approx(140.0 / 7.0 - 1));
}

TEST_CASE("run level: success rate is bootstrapped over requests, throughput is one measurement") {
    std::mt19937_64 rng(9);
    run before = run_of(lognormal_sample(rng, 500)), after = run_of(lognormal_sample(rng, 500));
    for (int i = 0; i < 100; ++i) after.requests.push_back(failed_request(10.0 + i));
    const auto rc = compare_runs(before, after, fast_options());
    const auto& success = change_named(rc, "success_rate");
    CHECK(success.before == 1.0);
    CHECK(success.after.value() == Approx(500.0 / 600.0));
    CHECK(success.result == verdict::regressed);
    CHECK_FALSE(success.lower_is_better);
    const auto& rps = change_named(rc, "rps");
    CHECK(rps.result == verdict::single);
    CHECK_FALSE(rps.relative_ci.has_value());
    CHECK(rps.before == rc.before.rps);
}

TEST_CASE("goodput share is compared when SLOs are given") {
    std::mt19937_64 rng(10);
    auto o = fast_options();
    o.stats.slos = parse_slos("e2e=2");
    const auto rc = compare_runs(run_of(lognormal_sample(rng, 600, 1.5)), run_of(lognormal_sample(rng, 600, 3.0)), o);
    CHECK(change_named(rc, "goodput_share").result == verdict::regressed);
    CHECK(change_named(rc, "goodput_rps").result == verdict::single);
}

TEST_CASE("subsets are compared separately and named by subset") {
    run before, after;
    for (int i = 0; i < 400; ++i) {
        before.requests.push_back(ok_request(i, 1.0 + 0.001 * i, i % 2 ? 30 : 3000));
        after.requests.push_back(ok_request(i, (i % 2 ? 2.0 : 1.0) + 0.001 * i, i % 2 ? 30 : 3000));
    }
    const auto rc = compare_runs(before, after, fast_options());
    CHECK(change_named(rc, "short.e2e.p50").result == verdict::regressed);
    CHECK(change_named(rc, "long.e2e.p50").result == verdict::no_change);
    CHECK(change_named(rc, "short.e2e.p50").subset == "short");
    CHECK(find_change(rc, "medium.e2e.p50") == nullptr); // no medium prompts on either side
}

TEST_CASE("latency from the intended start is compared when the client held requests back") {
    std::mt19937_64 rng(17);
    const run closed = run_of(lognormal_sample(rng, 300));
    auto o = compare_options{};
    o.bootstrap.resamples = 200;
    CHECK(find_change(compare_runs(closed, closed, o), "e2e_sched.p50") == nullptr); // a closed loop: e2e again
    run open = run_of(lognormal_sample(rng, 300));
    open.requests = request_table{};
    for (int i = 0; i < 300; ++i) {
        auto r = ok_request(0.1 * i + 0.002 * (i % 7), 1.0 + 0.01 * (i % 10));
        r.t_sched = 0.1 * i; // arrivals every 100 ms, sends up to 12 ms late
        open.requests.push_back(r);
    }
    const auto rc = compare_runs(closed, open, o);
    CHECK(find_change(rc, "e2e_sched.p50") != nullptr);
    CHECK(find_change(rc, "client_queue.p90") != nullptr);
    o.add_client_queueing = false;
    CHECK(find_change(compare_runs(closed, open, o), "e2e_sched.p50") == nullptr);
}

TEST_CASE("sweeps pair by load level and report how the knee moved") {
    std::mt19937_64 rng(12);
    std::vector<run> before, after;
    for (int c : {1, 2, 4, 8, 16, 32}) {
        before.push_back(run_of(lognormal_sample(rng, 100, 0.5 + 0.1 * c), "bad-c" + std::to_string(c), {{"concurrency", c}}));
        after.push_back(run_of(lognormal_sample(rng, 100, 0.5 + 0.05 * c), "fair-c" + std::to_string(c), {{"concurrency", c}}));
    }
    after.pop_back(); // c=32 only before
    after.push_back(run_of(lognormal_sample(rng, 100), "fair-c64", {{"concurrency", 64}}));
    const auto c = compare(before, after, {.compare = fast_options()});
    CHECK(c.pairing == "load");
    REQUIRE(c.pairs.size() == 5);
    CHECK(c.pairs[0].load == 1);
    CHECK(c.pairs[4].load == 16);
    CHECK(c.pairs[4].comparison.before.meta.label == "bad-c16");
    CHECK(c.pairs[4].comparison.after.meta.label == "fair-c16");
    CHECK(before[c.pairs[4].before_run].meta.label == "bad-c16");
    REQUIRE(c.sweep.has_value());
    CHECK(c.sweep->param == "concurrency");
    CHECK(c.sweep->only_before == std::vector<double>{32});
    CHECK(c.sweep->only_after == std::vector<double>{64});
    CHECK(c.sweep->knees.size() == c.sweep->before.knees.size());
}

TEST_CASE("the SLO capacity of compared sweeps is known even when p95 was not asked for") {
    std::mt19937_64 rng(18);
    std::vector<run> before, after;
    for (int c : {1, 2, 4, 8}) {
        before.push_back(run_of(lognormal_sample(rng, 100, 0.5 * c, 0.1), "b" + std::to_string(c), {{"concurrency", c}}));
        after.push_back(run_of(lognormal_sample(rng, 100, 0.25 * c, 0.1), "a" + std::to_string(c), {{"concurrency", c}}));
    }
    comparison_options o{.compare = fast_options()};
    o.compare.stats.slos = parse_slos("e2e=1.5");
    o.compare.stats.summary.percentiles = {50, 99};
    const auto c = compare(before, after, o);
    REQUIRE(c.sweep.has_value());
    REQUIRE(c.sweep->capacity.size() == 1);
    // p95 of lognormal(median m, sigma 0.1) is about 1.18 m: before meets 1.5 s up to c=2 (1.18 s) and
    // misses at c=4 (2.4 s); after up to c=4 (1.18 s), missing at c=8.
    CHECK(c.sweep->capacity[0].before.known);
    CHECK(c.sweep->capacity[0].before.max_load.value() > 2);
    CHECK(c.sweep->capacity[0].before.max_load.value() < 4);
    CHECK(c.sweep->capacity[0].after.max_load.value() > 4);
    CHECK(c.sweep->capacity[0].after.max_load.value() < 8);
}

TEST_CASE("runs with the same labels pair by label; unpairable sides are a usage error") {
    std::mt19937_64 rng(13);
    std::vector<run> before{run_of(lognormal_sample(rng, 50), "a"), run_of(lognormal_sample(rng, 50), "b")};
    std::vector<run> after{run_of(lognormal_sample(rng, 50), "b"), run_of(lognormal_sample(rng, 50), "a"),
                           run_of(lognormal_sample(rng, 50), "c")};
    const auto c = compare(before, after, {.compare = fast_options()});
    CHECK(c.pairing == "label");
    REQUIRE(c.pairs.size() == 2);
    CHECK(c.pairs[0].comparison.after.meta.label == "a");
    CHECK(c.pairs[0].after_run == 1);
    CHECK(c.unpaired == std::vector<std::string>{"c"});
    std::vector<run> strangers{run_of(lognormal_sample(rng, 50), "x"), run_of(lognormal_sample(rng, 50), "y")};
    CHECK_THROWS_AS(compare(before, strangers, {.compare = fast_options()}), usage_error);
}

TEST_CASE("a side without per-request data cannot be compared") {
    run summary_only;
    summary_only.meta.kind = run_kind::summary;
    std::mt19937_64 rng(14);
    const run measured = run_of(lognormal_sample(rng, 50));
    CHECK_THROWS_WITH(compare(std::span(&summary_only, 1), std::span(&measured, 1)),
                      Catch::Contains("BEFORE holds no per-request log"));
}

TEST_CASE("bad comparison options are usage errors") {
    std::mt19937_64 rng(15);
    const run r = run_of(lognormal_sample(rng, 50));
    compare_options o;
    o.verdicts.noise = -0.1;
    CHECK_THROWS_AS(compare_runs(r, r, o), usage_error);
    o = {};
    o.metrics = {metric::itl};
    CHECK_THROWS_WITH(compare_runs(r, r, o), Catch::Contains("itl cannot be compared"));
    o = {};
    o.bootstrap.resamples = 10;
    CHECK_THROWS_AS(compare_runs(r, r, o), usage_error);
    o.bootstrap.resamples = 99999999999; // a usage error, not an allocation that fails
    CHECK_THROWS_WITH(compare_runs(r, r, o), Catch::Contains("at most 1000000"));
}

TEST_CASE("the gate fails on the named statistics that regressed") {
    std::mt19937_64 rng(16);
    const run before = run_of(lognormal_sample(rng, 2000));
    const run after = run_of(scaled(lognormal_sample(rng, 2000), 1.2));
    const auto c = compare(std::span(&before, 1), std::span(&after, 1), {.compare = fast_options()});
    const auto any = gate_failures(c, parse_gate("regressed"));
    CHECK_FALSE(any.empty());
    const auto named = gate_failures(c, parse_gate("regressed:e2e.p50,ttft.p90"));
    REQUIRE(named.size() == 1);
    CHECK(named[0].failed->name == "e2e.p50");
    CHECK(gate_failures(c, parse_gate("regressed:success_rate")).empty());
    CHECK_THROWS_WITH(validate(parse_gate("regressed:e2e.p42"), c), Catch::Contains("'e2e.p42' was not compared"));
    CHECK_THROWS_WITH(validate(parse_gate("regressed:rps"), c), Catch::Contains("one measurement per run"));
    CHECK_THROWS_AS(parse_gate("improved"), usage_error);
    CHECK_THROWS_AS(parse_gate("regressed:"), usage_error);
    CHECK_THROWS_AS(parse_gate("regressed:e2e.p50,,ttft.p50"), usage_error);
    CHECK_THROWS_AS(parse_gate("regressedx"), usage_error);
    CHECK_THROWS_WITH(parse_gate("regressed:e2e.p99,"), Catch::Contains("empty statistic name"));
}

TEST_CASE("a gate on a named statistic fails where the data could not test it") {
    std::mt19937_64 rng(17);
    SECTION("too few requests for the percentile: 50 a side, where p99 needs 238 at 95%") {
        const run before = run_of(lognormal_sample(rng, 50));
        const run after = run_of(scaled(lognormal_sample(rng, 50), 10.0));
        const auto c = compare(std::span(&before, 1), std::span(&after, 1), {.compare = fast_options()});
        const auto failures = gate_failures(c, parse_gate("regressed:e2e.p99"));
        REQUIRE(failures.size() == 1);
        CHECK(failures[0].untested);
        CHECK(failures[0].reason == "could not be tested: too few requests: p99 needs 238 a side, had 50 and 50");
        // Not named, an untestable statistic does not fail a gate on everything that regressed.
        for (const auto& f : gate_failures(c, parse_gate("regressed"))) CHECK_FALSE(f.untested);
    }
    SECTION("every request of the candidate failed") {
        const run before = run_of(lognormal_sample(rng, 300));
        run after;
        for (int i = 0; i < 300; ++i) after.requests.push_back(failed_request(0.01 * i));
        const auto c = compare(std::span(&before, 1), std::span(&after, 1), {.compare = fast_options()});
        const auto failures = gate_failures(c, parse_gate("regressed:e2e.p99"));
        REQUIRE(failures.size() == 1);
        CHECK(failures[0].reason == "could not be tested: no value after (no request completed)");
    }
}

TEST_CASE("the notebook's experiment 5: BAD vs FAIR_768 at c=32") {
    // examples/notebook-exp5 reconstructs the two runs from the notebook's published statistics.
    const std::vector<std::string> bad{SERVESTAT_TEST_DATA_DIR "/../../examples/notebook-exp5/bad_unfair-c32.jsonl"};
    const std::vector<std::string> fair{SERVESTAT_TEST_DATA_DIR "/../../examples/notebook-exp5/fair_768-c32.jsonl"};
    const auto before = read_logs(bad), after = read_logs(fair);
    const auto c = compare(before, after);
    REQUIRE(c.pairs.size() == 1);
    const auto& rc = c.pairs[0].comparison;
    // The notebook: p50 5.534205468999517 -> 6.04282219300012, p90 10.461404818999926 -> 9.18175588419981.
    const auto& p50 = change_named(rc, "e2e.p50");
    CHECK(p50.before.value() == Approx(5.534205468999517).epsilon(1e-9));
    CHECK(p50.after.value() == Approx(6.04282219300012).epsilon(1e-9));
    const auto& p90 = change_named(rc, "e2e.p90");
    CHECK(p90.before.value() == Approx(10.461404818999926).epsilon(1e-9));
    CHECK(p90.after.value() == Approx(9.18175588419981).epsilon(1e-9));
    CHECK(change_named(rc, "short.e2e.p50").before.value() == Approx(4.6954104774999905).epsilon(1e-9));
    CHECK(change_named(rc, "long.e2e.p90").after.value() == Approx(9.995110139300506).epsilon(1e-9));
    // 200 requests per side: p99 has no distribution-free bound (needs 299).
    CHECK(change_named(rc, "e2e.p99").result == verdict::too_few);
    CHECK(change_named(rc, "e2e.p50").p_value.value() > 0.05);
}

TEST_CASE("a sweep level run twice is compared with both runs' requests pooled as replicates") {
    std::mt19937_64 rng(7);
    std::vector<run> before, after;
    for (int c : {1, 2, 4}) before.push_back(run_of(lognormal_sample(rng, 200), "b", {{"concurrency", c}}));
    for (int c : {1, 2, 4}) after.push_back(run_of(lognormal_sample(rng, 200), "a", {{"concurrency", c}}));
    // Named alike, at the same settings: a replicate (a name of its own would make it a configuration).
    after.push_back(run_of(lognormal_sample(rng, 300), "a", {{"concurrency", 4}}));
    comparison_options o;
    o.compare = fast_options(200);
    const comparison cmp = compare(before, after, o);
    REQUIRE(cmp.pairs.size() == 3);
    CHECK(cmp.unpaired.empty()); // the second c=4 run is a replicate, not left over
    CHECK(cmp.pairs[2].comparison.after.requests == 500); // 200 + 300
    CHECK(cmp.pairs[2].comparison.before.requests == 200);
    CHECK(cmp.pairs[1].comparison.after.requests == 200);
    REQUIRE(cmp.sweep.has_value());
    CHECK(cmp.sweep->after.rows[2].replicates == 2);
}

} // namespace test_compare

