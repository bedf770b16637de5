// Compare's intervals hold their stated coverage at every n: pairs of logs drawn from one
// distribution (the true change is 0), at 200 and at 500 requests a side, and how often each kind
// of interval compare shows (p50, p90, p99, mean; all requests and each prompt-length subset;
// relative and absolute change) holds 0, each within 95 ± 2%. And the exact coverage of the
// order-statistic intervals of a percentile's change against references computed with Python's
// math.comb.
//
// SERVESTAT_CALIBRATION_PAIRS=4000 ./tests (with this file) prints the table docs/compare.md
// records; the suite runs fewer pairs and allows for their sampling error.
#include <catch2/catch.hpp> // Catch2 v2

#include <cmath>   // std::log, std::sqrt
#include <cstdio>  // std::printf
#include <cstdlib> // std::getenv, std::atoi
#include <map>     // std::map
#include <random>  // std::mt19937_64, std::lognormal_distribution, ...
#include <string>  // std::string
#include <vector>  // std::vector

#include "servestat/compare/compare.hpp"
#include "servestat/stats/percentile_change_interval.hpp"

namespace test_compare_calibration { // the unity build compiles several test files as one: each keeps its names

using namespace servestat;

namespace {

// A serving log as load tests see it: prompt lengths in three groups (short ≤ 64 tokens, medium,
// long ≥ 2048, the default subsets), latency growing with the prompt, lognormal spread, and one
// request in twenty queued behind others for an exponential extra wait: a skewed, two-part tail.
run realistic_log(std::mt19937_64& rng, std::size_t n) {
    std::uniform_real_distribution<double> unit(0, 1);
    std::lognormal_distribution<double> spread(0, 0.5);
    std::exponential_distribution<double> queued(1 / 2.0); // mean 2 s
    run r;
    r.meta.label = "sim";
    for (std::size_t i = 0; i < n; ++i) {
        const double u = unit(rng);
        const int prompt = u < 0.3 ? 10 + static_cast<int>(50 * unit(rng))
                           : u < 0.75 ? 100 + static_cast<int>(1900 * unit(rng))
                                      : 2048 + static_cast<int>(6000 * unit(rng));
        double e2e = (0.8 + prompt / 2000.0) * spread(rng);
        if (unit(rng) < 0.05) e2e += queued(rng);
        request_record q;
        const double sent = 0.05 * static_cast<double>(i);
        q.t_sched = sent;
        q.t_sent = sent;
        q.t_first = sent + e2e / 5;
        q.t_end = sent + e2e;
        q.prompt_tokens = prompt;
        q.output_tokens = 64;
        q.status = request_status::ok;
        q.http_status = 200;
        r.requests.push_back(q);
    }
    return r;
}

struct tally {
    int intervals = 0, held = 0;
    double coverage() const { return intervals ? static_cast<double>(held) / intervals : 0; }
};

// Per kind ("short.e2e.p90 relative"): how many pairs gave an interval and how many of them held 0.
std::map<std::string, tally> calibrate(std::size_t n, int pairs, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    compare_options o;
    o.metrics = {metric::e2e};
    o.bootstrap.resamples = 400; // drawn for the run-level shares only, which this does not calibrate
    std::map<std::string, tally> out;
    for (int t = 0; t < pairs; ++t) {
        const run before = realistic_log(rng, n), after = realistic_log(rng, n);
        o.bootstrap.seed = seed + static_cast<std::uint64_t>(t);
        for (const auto& c : compare_runs(before, after, o).changes) {
            if (c.statistic.empty()) continue; // run level: rates and shares
            for (const auto& [kind, ci] : {std::pair{" relative", c.relative_ci}, std::pair{" absolute", c.delta_ci}}) {
                auto& k = out[c.name + kind];
                if (!ci) continue;
                ++k.intervals;
                k.held += ci->low <= 0 && 0 <= ci->high;
            }
        }
    }
    return out;
}

} // namespace

TEST_CASE("the coverage of a percentile change's order-statistic interval is exact") {
    // References: 1 − P(a_l > b_u) − P(b_l > a_u), each P(X(i) > Y(j)) = Σ_{k<i} C(k+j−1, k)
    // C(m−k+n−j, m−k) / C(m+n, m) with Python's math.comb (1-based i, j).
    auto at = percentile_change_interval(20, 20, 50);
    REQUIRE(at.has_value());
    // Medians of 20 a side: X(7)..X(14) on each, 0.9743552230566788; X(8)..X(14) covers 0.9438.
    CHECK(at->before.lower == 6);
    CHECK(at->before.upper == 13);
    CHECK(at->after.lower == 6);
    CHECK(at->coverage == Approx(0.9743552230566788).epsilon(1e-10));
    at = percentile_change_interval(500, 500, 99);
    REQUIRE(at.has_value());
    // p99 of 500 a side: X(493)..X(499), 0.9617791197081742 (X(492)..X(499) would cover 0.979).
    CHECK(at->before.lower == 492);
    CHECK(at->before.upper == 498);
    CHECK(at->coverage == Approx(0.9617791197081742).epsilon(1e-10));
    at = percentile_change_interval(80, 120, 90);
    REQUIRE(at.has_value());
    // Unequal sides: before X(68)..X(76) of 80, after X(104)..X(113) of 120: 0.9543409797159124.
    CHECK(at->before.lower == 67);
    CHECK(at->before.upper == 75);
    CHECK(at->after.lower == 103);
    CHECK(at->after.upper == 112);
    CHECK(at->coverage == Approx(0.9543409797159124).epsilon(1e-10));
    // Too few: a p99 of 200 a side (even X(196)..X(200), the widest the rule reaches, covers 0.939).
    CHECK_FALSE(percentile_change_interval(200, 200, 99).has_value());
    CHECK_FALSE(percentile_change_interval(1000, 1000, 100).has_value());
    CHECK(fewest_values_for_change(99) == 238u);
    CHECK(fewest_values_for_change(90) == 20u);
    CHECK(fewest_values_for_change(50) == 4u);
    // Large logs cost a window of ranks, not all of them: coverage stays exact to the confidence.
    at = percentile_change_interval(1000000, 1000000, 99.9);
    REQUIRE(at.has_value());
    CHECK(at->coverage >= 0.95);
    CHECK(at->coverage < 0.952);
}

TEST_CASE("every interval compare shows holds the true change 95 ± 2% of the time, at 200 and 500 requests") {
    const char* env = std::getenv("SERVESTAT_CALIBRATION_PAIRS");
    const int pairs = env ? std::atoi(env) : 300;
    for (std::size_t n : {std::size_t{200}, std::size_t{500}}) {
        const auto kinds = calibrate(n, pairs, 20261127 + n);
        if (env) {
            std::printf("n = %zu a side, %d pairs\n", n, pairs);
            for (const auto& [name, k] : kinds) std::printf("  %-28s %5d intervals  %.1f%%\n", name.c_str(), k.intervals, 100 * k.coverage());
        }
        for (const auto& [name, k] : kinds) {
            INFO(name << " at n = " << n << ": " << k.held << " of " << k.intervals);
            if (k.intervals < pairs / 2) continue; // too_few in most pairs: no interval to calibrate
            // 95 ± 2%; the suite's few hundred pairs measure a coverage to about ±1.3% (one standard
            // error), so it allows 2.5 of them beyond the band; a run with SERVESTAT_CALIBRATION_PAIRS
            // (4,000 pairs: ±0.34%) holds the band itself.
            // Every kind alike, means too (Welch's t and Fieller's ratio; the percentile bootstrap
            // they replace held the short-prompt mean 92.2% at 200 requests).
            const double se = std::sqrt(0.95 * 0.05 / k.intervals), slack = env ? 0 : 2.5 * se;
            CHECK(k.coverage() >= 0.93 - slack);
            CHECK(k.coverage() <= 0.97 + slack);
        }
        if (n == 500) CHECK(kinds.at("e2e.p99 relative").intervals == pairs); // all requests' p99 has an interval at 500
        if (n == 200) CHECK(kinds.at("e2e.p99 relative").intervals == 0);     // and none at 200 (too_few)
    }
}

} // namespace test_compare_calibration
