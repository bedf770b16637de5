// Small samples stated (issue 23): a percentile with fewer than 10 values beyond it is marked in
// the JSON, in tables and in sentences; a fitted slope is a finding only when the fit explains the
// latency; a run that completed fewer than 2 × its concurrency is said not to be in steady state.
// Expected values: the rule by hand (10 / (1 − q)), fits by scipy.stats.linregress (scipy 1.10.1)
// and numpy, and the LLMPerf fixture's numbers by numpy (tests/data/llmperf_small/README.md).
#include <catch2/catch.hpp> // Catch2 v2

#include <filesystem> // std::filesystem::path
#include <string>     // std::string
#include <vector>     // std::vector

#include "servestat/compare/compare.hpp"      // change, few_sample_sides
#include "servestat/ingest/detect.hpp"        // read_runs
#include "servestat/report/few_samples.hpp"   // few_samples_note, marked_seconds
#include "servestat/report/findings.hpp"      // per_token_cost, short_for_concurrency
#include "servestat/report/view_model.hpp"    // analyse, build_view_model
#include "servestat/stats/linear_fit.hpp"     // least_squares, slope_p_value
#include "servestat/stats/sample_size.hpp"    // samples_for_percentile, rests_on_few_samples

namespace test_small_samples { // the unity build compiles several test files as one: each keeps its names

using namespace servestat;
using namespace servestat::report;

namespace {

const std::filesystem::path fixtures = std::filesystem::path(SERVESTAT_TEST_DATA_DIR) / "llmperf_small";

std::vector<double> one_to(int n) {
    std::vector<double> v;
    for (int i = 1; i <= n; ++i) v.push_back(i);
    return v;
}

run_stats closed_loop_run(const std::string& label, int requests, double concurrency) {
    run r;
    r.meta.label = label;
    r.meta.params["concurrency"] = concurrency;
    for (int i = 0; i < requests; ++i) {
        request_record q;
        q.t_sched = q.t_sent = i;
        q.t_end = i + 1;
        q.status = request_status::ok;
        r.requests.push_back(q);
    }
    return analyze(r);
}

bool has_rule(const std::vector<finding>& findings, const std::string& rule) {
    for (const auto& f : findings)
        if (f.rule == rule) return true;
    return false;
}

} // namespace

TEST_CASE("a percentile needs 10 / (1 - q) values: p50 20, p90 100, p95 200, p99 1000", "[small_samples]") {
    CHECK(samples_for_percentile(50) == 20);
    CHECK(samples_for_percentile(90) == 100);
    CHECK(samples_for_percentile(95) == 200);
    CHECK(samples_for_percentile(99) == 1000);
    CHECK(samples_for_percentile(99.9) == 10000); // 100 − 99.9 is a hair off 0.1 in binary: not 10001
    CHECK(samples_for_percentile(1) == 1000);     // a low percentile rests on the smallest values alike
    CHECK(samples_for_percentile(25) == 40);
    CHECK(samples_for_percentile(0) == 0);        // the min and max estimate nothing: never marked
    CHECK(samples_for_percentile(100) == 0);
}

TEST_CASE("fewer values than a percentile needs rest on few samples; none at all is no number to mark", "[small_samples]") {
    CHECK(rests_on_few_samples(99, 999));
    CHECK_FALSE(rests_on_few_samples(99, 1000));
    CHECK(rests_on_few_samples(50, 19));
    CHECK_FALSE(rests_on_few_samples(50, 20));
    CHECK_FALSE(rests_on_few_samples(99, 0));
    CHECK_FALSE(rests_on_few_samples(100, 3));
}

TEST_CASE("a summary names its percentiles that rest on few samples", "[small_samples]") {
    const auto ten = one_to(10), many = one_to(150);
    CHECK(few_sample_percentiles(summarize(ten)) == std::vector<std::string>{"p50", "p90", "p95", "p99"});
    CHECK(few_sample_percentiles(summarize(many)) == std::vector<std::string>{"p95", "p99"}); // 150 ≥ 100 for p90
    CHECK(few_sample_percentiles(summarize(std::vector<double>{})).empty());
}

TEST_CASE("the dagger follows the value it marks, and the note lists what each percentile needs", "[small_samples]") {
    const summary s = summarize(one_to(10)); // numpy linear p99 of 1..10: 1 + 0.99 × 9 = 9.91
    CHECK(marked_seconds(&s, 99) == "9.91 s†");
    const summary big = summarize(one_to(2000));
    CHECK(marked_seconds(&big, 99) == "1980 s"); // 1 + 0.99 × 1999 = 1980.01: enough values, no dagger
    // 10 / (1 − q) requests put 10 beyond the percentile: 20 for p50, 100 for p90, 1,000 for p99.
    CHECK(few_samples_note({99, 50, 90, 50}) ==
          "† rests on few samples: fewer than 10 requests lie beyond that percentile, so the few most extreme set it "
          "and another run may well give another value (10 lie above a p50 only from 20 requests on, above a p90 "
          "from 100, above a p99 from 1,000).");
}

TEST_CASE("the slope's t-test p-value matches scipy's linregress", "[small_samples]") {
    // scipy.stats.linregress(x, y).pvalue on these twelve points: 0.00010876054241768276, r² 0.7907.
    const std::vector<double> x = one_to(12), y{2.1, 1.9, 3.5, 2.8, 4.9, 3.1, 5.2, 4.4, 6.8, 4.9, 6.1, 7.7};
    const auto fit = least_squares(x, y);
    REQUIRE(fit.has_value());
    CHECK(fit->r_squared == Approx(0.7907279297883325));
    CHECK(*slope_p_value(*fit) == Approx(0.00010876054241768276).epsilon(1e-9));
    // By hand with 2 degrees of freedom, where P(|T| > t) = 1 − t / sqrt(t² + 2): x = 1..4, y = 1, 3, 2, 5
    // gives sxx 5, sxy 5.5, syy 8.75, r² = 30.25 / 43.75, t = sqrt(2 r² / (1 − r²)), p = 0.16848.
    const auto small = least_squares(one_to(4), std::vector<double>{1, 3, 2, 5});
    CHECK(*slope_p_value(*small) == Approx(0.16847815937970012).epsilon(1e-9));
    CHECK(*slope_p_value(linear_fit{2, 1, 1.0, 4}) == 0); // an exact line
    CHECK_FALSE(slope_p_value(linear_fit{2, 1, 0.5, 2}).has_value()); // no residual to test with
}

TEST_CASE("a per-token slope is a finding only when r² ≥ 0.5 and the slope is significant", "[small_samples]") {
    CHECK_FALSE(per_token_cost(linear_fit{0.000718, 1.0, 0.004, 10}).has_value()); // issue 23's r² = 0.00
    CHECK_FALSE(per_token_cost(linear_fit{0.030, 0.5, 0.49, 2000}).has_value());   // significant, explains too little
    // r² 0.69 over 4 requests: the slope's p = 0.168, noise by its own test.
    const auto small = least_squares(one_to(4), std::vector<double>{1, 3, 2, 5});
    CHECK_FALSE(per_token_cost(small).has_value());
    const auto twelve = per_token_cost(least_squares(one_to(12), std::vector<double>{2.1, 1.9, 3.5, 2.8, 4.9, 3.1, 5.2,
                                                                                     4.4, 6.8, 4.9, 6.1, 7.7}));
    REQUIRE(twelve.has_value());
    CHECK(twelve->text == "Each output token adds 454 ms of latency (least squares over 12 requests, r² = 0.79, "
                          "slope p < 0.001): output length explains part of the latency; queueing adds the rest.");
    // scipy: slope 0.28545, r² 0.61286, p 0.0074148.
    const auto ten = per_token_cost(
        least_squares(one_to(10), std::vector<double>{1.2, 0.8, 2.5, 1.1, 2.9, 1.6, 2.2, 3.9, 2.9, 3.8}));
    REQUIRE(ten.has_value());
    CHECK_THAT(ten->text, Catch::Contains("(least squares over 10 requests, r² = 0.61, slope p = 0.0074)"));
}

TEST_CASE("a run that completed fewer than 2 × its concurrency is not in steady state", "[small_samples]") {
    const auto f = short_for_concurrency(closed_loop_run("c40", 9, 40));
    REQUIRE(f.has_value());
    CHECK(f->text == "c40 completed 9 requests at concurrency 40, fewer than 2 × 40 = 80: the run did not reach steady "
                     "state, so its latencies describe the ramp-up and drain, not a sustained load of 40.");
    CHECK_FALSE(short_for_concurrency(closed_loop_run("c5", 10, 5)).has_value()); // exactly 2 × 5
    run_stats no_concurrency = closed_loop_run("open", 3, 1);
    no_concurrency.meta.params = nlohmann::json::object({{"request_rate", 10}});
    CHECK_FALSE(short_for_concurrency(no_concurrency).has_value());
    run_stats capped = closed_loop_run("vllm", 30, 1);
    capped.meta.params = nlohmann::json::object({{"max_concurrency", 16}});
    CHECK(short_for_concurrency(capped).has_value()); // vLLM's --max-concurrency caps in-flight requests alike
}

TEST_CASE("a 10-request LLMPerf run marks every percentile and states no fit its r² calls noise", "[small_samples]") {
    const auto runs = read_runs(fixtures / "small_550_150_individual_responses.json");
    REQUIRE(runs.size() == 1);
    stats_options o;
    o.summary.percentiles = {50, 90, 95, 99};
    const auto a = analyse(runs.front(), o);
    // numpy.polyfit / scipy.stats.linregress of end_to_end_latency_s on number_output_tokens:
    // slope +0.0101 s per token, r² 0.0826, p 0.42 — the slope the old rule stated as a finding.
    REQUIRE(a.e2e_per_output_token.has_value());
    CHECK(a.e2e_per_output_token->r_squared == Approx(0.08262044257401656));
    CHECK(a.e2e_per_output_token->slope == Approx(0.010106479573163499));
    CHECK_FALSE(has_rule(derive_findings(a.stats, a.e2e_per_output_token), "per_token_cost"));
    CHECK_FALSE(has_rule(derive_findings(a.stats, a.e2e_per_output_token), "short_for_concurrency")); // 10 = 2 × 5

    const json view = build_view_model({a}, o, {});
    CHECK(view["kpi"][0]["e2e_p99"] == "3.21 s"); // numpy.percentile(e2e, 99) = 3.2087 s
    CHECK(view["kpi"][0]["e2e_p99_mark"] == "†");
    // 10 < 20 values, but the median of 10 has an interval (X(2)–X(9)): shown beside it, no dagger.
    CHECK(view["kpi"][0]["e2e_p50_mark"] == "");
    CHECK(view["kpi"][0]["e2e_p50_ci"].is_string());
    // The note under the KPI table says what the dagger marks, with the counts, so the few-samples
    // footnote is not repeated: p99 of 10 values at place 0.99 × 9 = 8.91 has 1 value above it.
    CHECK(view["digest_few_samples"] == false);
    CHECK_THAT(view["kpi_interval_note"].get<std::string>(), Catch::Contains("p99 of 10 requests: 1 value above it"));
    CHECK(view["runs"][0]["has_few_samples"] == true);
    CHECK(view["runs"][0]["headline"]["e2e_p99_mark"] == "†");
    const std::string headline = view["summary"][0]["text"];
    CHECK_THAT(headline, Catch::Contains("e2e p50 2.05 s†, p99 3.21 s†")); // numpy: 2.0544, 3.2087
    const json e2e = view["stats"]["runs"][0]["subsets"]["all"]["metrics"]["e2e"];
    CHECK(e2e["n"] == 10);
    CHECK(e2e["few_samples"] == json::array({"p50", "p90", "p95", "p99"}));
    for (const auto& s : view["summary"]) CHECK_THAT(s["text"].get<std::string>(), !Catch::Contains("least squares"));
}

TEST_CASE("a run at concurrency 40 that completed 9 requests leads the summary with it", "[small_samples]") {
    const auto runs = read_runs(fixtures / "c40_550_150_individual_responses.json");
    REQUIRE(runs.size() == 1);
    stats_options o;
    const auto a = analyse(runs.front(), o);
    CHECK(a.stats.meta.params["concurrency"] == 40); // from the summary's num_concurrent_requests
    const json view = build_view_model({a}, o, {});
    CHECK(view["summary"][0]["text"] ==
          "c40_550_150 completed 9 requests at concurrency 40, fewer than 2 × 40 = 80: the run did not reach steady "
          "state, so its latencies describe the ramp-up and drain, not a sustained load of 40.");
}

TEST_CASE("several short runs are named in one sentence", "[small_samples]") {
    const std::vector<run_stats> runs{closed_loop_run("a", 9, 40), closed_loop_run("b", 100, 8), closed_loop_run("c", 3, 2)};
    const auto sentences = report_summary(runs, {}, {}, {}, 95);
    bool found = false;
    for (const auto& s : sentences)
        found = found || s.text == "Not in steady state, having completed fewer than 2 × their concurrency in requests: "
                                   "a (9 at concurrency 40) and c (3 at concurrency 2); their latencies describe "
                                   "ramp-up and drain.";
    CHECK(found);
}

TEST_CASE("a compared percentile names the sides resting on few samples", "[small_samples]") {
    change c;
    c.statistic = "p90";
    c.before = 1.0;
    c.after = 2.0;
    c.n_before = 99;
    c.n_after = 100;
    CHECK(few_sample_sides(c) == std::vector<std::string>{"before"});
    c.statistic = "mean";
    CHECK(few_sample_sides(c).empty());
    c.statistic = "p99.9";
    c.n_before = c.n_after = 10000;
    CHECK(few_sample_sides(c).empty());
}

} // namespace test_small_samples
