// Run validity (issue 37, items 5 and 6): what a report's summary says about a sweep of aggregates,
// and which runs' numbers are not the server's (a straggler setting the duration, an early end, a
// tiny run, levels run out of order, errors above 1%), with those that would distort the knees and
// the SLO capacity kept out of them. Every run is a tool's summary built here; each expected value
// is derived by hand in the comment above its test from the rules in docs/sweeps.md#run-validity.
#include <catch2/catch.hpp> // Catch2 v2

#include <algorithm> // std::find
#include <string>    // std::string
#include <tuple>     // std::tuple
#include <vector>    // std::vector

#include "servestat/report/report_digest.hpp" // report_summary, summary_view
#include "servestat/stats/run_validity.hpp"
#include "servestat/sweep/sweep_analysis.hpp"

namespace test_run_validity { // the unity build compiles several test files as one: each keeps its names

using namespace servestat;

namespace {

// A run known by its tool's summary only, at one concurrency (or another parameter).
run_stats reported_run(const std::string& label, nlohmann::json params, std::vector<reported_value> values) {
    run_stats r;
    r.meta.label = label;
    r.meta.params = std::move(params);
    r.meta.workload = "chat";
    r.meta.source.format = "vllm-bench-json";
    r.meta.kind = run_kind::summary;
    r.meta.reported = std::move(values);
    return r;
}

bool has(const std::vector<std::string>& list, const std::string& text) {
    return std::find(list.begin(), list.end(), text) != list.end();
}

std::vector<std::string> summary_texts(std::span<const run_stats> runs, std::span<const sweep_analysis> sweeps) {
    const auto json = report::summary_view(report::report_summary(runs, {}, sweeps, {}, 95));
    std::vector<std::string> out;
    for (const auto& s : json) out.push_back(s["text"].get<std::string>());
    return out;
}

} // namespace

// ---- one run at a time -------------------------------------------------------------------------

// AIPerf's C=40 of the InferenceX sweep: configured for 1800 s, its requests spanned 401.753 s, less
// than 0.8 × 1800 = 1440 s. C=1 spanned 1724.682 s (95.8 %): not early.
TEST_CASE("a run that ended well before its configured duration is told, one near it is not", "[validity]") {
    const auto early = check_run_validity(reported_run("c40", {{"concurrency", 40}, {"benchmark_duration", 1800}},
                                                       {{"requests", 96, "requests"}, {"duration", 401.753, "s"}}));
    REQUIRE(early.ended_early_time);
    CHECK(early.ended_early_time->param == "benchmark_duration");
    CHECK(early.ended_early_time->configured == 1800);
    CHECK(early.ended_early_time->measured == 401.753);
    CHECK_FALSE(early.ended_early_count);
    const auto full = check_run_validity(reported_run("c1", {{"concurrency", 1}, {"benchmark_duration", 1800}},
                                                      {{"requests", 166, "requests"}, {"duration", 1724.682, "s"}}));
    CHECK_FALSE(full.ended_early());
}

// num_prompts 300 and 250 requests: 250 < 0.9 × 300 = 270, early. 280 of 300 is not.
TEST_CASE("a run that sent fewer requests than configured is told", "[validity]") {
    const auto v = check_run_validity(reported_run("r", {{"num_prompts", 300}}, {{"requests", 250, "requests"}, {"duration", 60, "s"}}));
    REQUIRE(v.ended_early_count);
    CHECK(v.ended_early_count->param == "num_prompts");
    CHECK(v.ended_early_count->measured == 250);
    CHECK_FALSE(check_run_validity(reported_run("r", {{"num_prompts", 300}}, {{"requests", 280, "requests"}, {"duration", 60, "s"}}))
                    .ended_early());
}

// SGLang's C=32 line: 100 requests in 1.961009 s — at most 100 requests, and under 10 s. AIPerf's
// C=1 level, 66 requests over 1724.682 s, is tiny by its count. 101 requests over 12 s are
// neither; 500 requests in 9 s are under 10 s.
TEST_CASE("a run of only a few requests or seconds is tiny", "[validity]") {
    const auto sglang = check_run_validity(reported_run("c32", {{"max_concurrency", 32}},
                                                        {{"ok", 100, "requests"}, {"failed", 0, "requests"}, {"duration", 1.961009, "s"}}));
    REQUIRE(sglang.tiny);
    CHECK(sglang.tiny->requests == 100);
    CHECK(sglang.tiny->seconds == 1.961009);
    CHECK(check_run_validity(reported_run("c1", {{"concurrency", 1}}, {{"requests", 66, "requests"}, {"duration", 1724.682, "s"}}))
              .tiny);
    CHECK_FALSE(check_run_validity(reported_run("r", {}, {{"requests", 101, "requests"}, {"duration", 12, "s"}})).tiny);
    CHECK(check_run_validity(reported_run("r", {}, {{"requests", 500, "requests"}, {"duration", 9, "s"}})).tiny);
}

// Fewer than 2 × c successful requests: a closed loop that never held its load. 79 ok at c=40 is
// below 80; 96 is not; without a concurrency nothing is said.
TEST_CASE("a closed loop with fewer than 2 x c completed requests never held its load", "[validity]") {
    CHECK(below_steady_state(reported_run("c40", {{"concurrency", 40}}, {{"ok", 79, "requests"}})));
    CHECK_FALSE(below_steady_state(reported_run("c40", {{"concurrency", 40}}, {{"ok", 96, "requests"}})));
    CHECK_FALSE(below_steady_state(reported_run("r", {{"request_rate", 4}}, {{"ok", 3, "requests"}})));
}

// 3 of 200 failed = 1.5 % > 1 %; 2 of 200 = 1 % exactly is not above it.
TEST_CASE("an error rate above 1% is told", "[validity]") {
    const auto v = check_run_validity(reported_run("r", {}, {{"requests", 200, "requests"}, {"failed", 3, "requests"}, {"duration", 60, "s"}}));
    REQUIRE(v.errors);
    CHECK(v.errors->share() == Approx(0.015));
    CHECK_FALSE(check_run_validity(reported_run("r", {}, {{"requests", 200, "requests"}, {"failed", 2, "requests"}, {"duration", 60, "s"}}))
                    .errors);
}

// A measured run of 200 requests over 100 s: 4 cancelled by the driver and 1 context overflow.
// Cancellations are the test's doing: 1 of 200 = 0.5 % failed, under 1 %.
TEST_CASE("deliberate cancellations are not errors", "[validity]") {
    run_stats r;
    r.meta.label = "m";
    r.requests = 200;
    r.ok = 195;
    r.failed = 5;
    r.duration = 100;
    r.errors = {{error_kind::context_overflow, 1, "too long"}, {error_kind::cancelled, 4, ""}};
    const auto e = run_errors(r);
    REQUIRE(e);
    CHECK(e->failed == 1);
    CHECK(e->context_overflows == 1);
    CHECK_FALSE(check_run_validity(r).errors);
}

// ---- in a sweep ---------------------------------------------------------------------------------

namespace {

// vLLM appended results: concurrency 10, 50, 90, 100, 1000 prompts each. At c=100 throughput
// collapses to 1.0 req/s (14 at c=90) while the median e2e holds (2.1 s against 2.0 s): one request
// of 30 min set the run's duration.
std::vector<run_stats> straggler_sweep() {
    std::vector<run_stats> runs;
    for (const auto& [c, rps, p50, p95, p99] : {std::tuple{10, 5.0, 1.9, 2.2, 2.5}, {50, 12.0, 1.95, 2.6, 3.0},
                                                {90, 14.0, 2.0, 3.5, 4.0}, {100, 1.0, 2.1, 1500.0, 1800.0}})
        runs.push_back(reported_run("vllm c" + std::to_string(c), {{"max_concurrency", c}},
                                    {{"requests", 1000, "requests"}, {"ok", 1000, "requests"}, {"duration", 1000 / rps, "s"},
                                     {"rps", rps, "req/s"}, {"e2e.p50", p50, "s"}, {"e2e.p95", p95, "s"}, {"e2e.p99", p99, "s"}}));
    return runs;
}

} // namespace

// c=100: 1.0 < 0.5 × 14 (c=90, the highest lower throughput) and 2.1 ≤ 2 × 2.0: a straggler. Kept
// out of the SLO capacity: with e2e ≤ 10 s every remaining level (p95 2.2, 2.6, 3.5 s) meets it,
// so the answer is c=90, not limited by the sweep (with c=100, p95 1500 s, it would have been
// interpolated between 90 and 100). Its finding comes first.
TEST_CASE("a straggler level is told and kept out of the knees and the SLO capacity", "[validity]") {
    const auto runs = straggler_sweep();
    const std::vector<slo> slos{{metric::e2e, 10}};
    const auto a = analyze_sweep(find_sweeps(runs).front(), runs, slos);
    REQUIRE(a.validity.stragglers.size() == 1);
    const auto& s = a.validity.stragglers.front();
    CHECK(s.load == 100);
    CHECK(s.reference_load == 90);
    CHECK(s.p99 == 1800);
    CHECK(a.rows.back().excluded);
    CHECK_FALSE(a.rows[2].excluded);
    REQUIRE(a.capacity.size() == 1);
    CHECK(a.capacity[0].max_load == 90);
    CHECK_FALSE(a.capacity[0].limited);
    CHECK_FALSE(a.capacity[0].interpolated);
    for (const auto& k : a.knees) CHECK(k.form.points <= 3); // the knees saw c=10, 50, 90
    REQUIRE_FALSE(a.findings.empty());
    CHECK(a.findings.front() ==
          "max_concurrency=100 (vllm c100): 1 req/s against 14 req/s at max_concurrency=90, while its median e2e held "
          "(2.1 s against 2 s) and its p99 e2e is 1800 s: a few slow requests set the run's duration, so its throughput "
          "is not the server's; it is kept out of the knees and the SLO capacity.");
}

// Throughput that falls with its median latency rising with it is overload, not a straggler:
// 14 → 6 req/s with the median 2.0 → 9.0 s (more than 2×).
TEST_CASE("a collapse with the median rising is not a straggler", "[validity]") {
    auto runs = straggler_sweep();
    runs[3].meta.reported[3].value = 6.0; // rps
    runs[3].meta.reported[4].value = 9.0; // e2e.p50
    const auto a = analyze_sweep(find_sweeps(runs).front(), runs);
    CHECK(a.validity.stragglers.empty());
    CHECK_FALSE(a.rows.back().excluded);
}

// Started at 00:00, 02:00, 01:00 and 03:00 for c=1, 2, 4, 8: c=4 started before c=2. Start order
// 1, 4, 2, 8.
TEST_CASE("levels run out of order are told by their start times", "[validity]") {
    std::vector<run_stats> runs;
    for (const auto& [c, at] : {std::tuple{1, "2026-01-01T00:00:00Z"}, {2, "2026-01-01T02:00:00Z"},
                                {4, "2026-01-01T01:00:00Z"}, {8, "2026-01-01T03:00:00Z"}}) {
        runs.push_back(reported_run("run-c" + std::to_string(c), {{"concurrency", c}},
                                    {{"requests", 1000, "requests"}, {"duration", 100, "s"}, {"rps", 10.0 * c, "req/s"}}));
        runs.back().meta.started_at = at;
    }
    const auto a = analyze_sweep(find_sweeps(runs).front(), runs);
    CHECK(a.validity.start_order == std::vector<double>{1, 4, 2, 8});
    CHECK(has(a.findings, "The levels were not run in order of concurrency: c=4 started before lower levels (start order "
                          "c=1, 4, 2, 8), a sign of an interrupted or re-run sweep; levels run apart in time may have met "
                          "the server in different states."));
    // One level re-run at the end is named, not the levels that ran before it: c=2 ran last here.
    for (auto& r : runs) r.meta.started_at.clear();
    const std::pair<int, const char*> late_run[] = {{1, "00"}, {2, "05"}, {4, "01"}, {8, "02"}};
    for (std::size_t k = 0; k < runs.size(); ++k) runs[k].meta.started_at = std::string("2026-01-01T") + late_run[k].second + ":00:00Z";
    const auto late = analyze_sweep(find_sweeps(runs).front(), runs);
    CHECK(late.validity.start_order == std::vector<double>{1, 4, 8, 2});
    CHECK(has(late.findings, "The levels were not run in order of concurrency: c=2 started after higher levels (start order "
                             "c=1, 4, 8, 2), a sign of an interrupted or re-run sweep; levels run apart in time may have met "
                             "the server in different states."));
    const char* first_times[] = {"2026-01-01T00:00:00Z", "2026-01-01T02:00:00Z", "2026-01-01T01:00:00Z", "2026-01-01T03:00:00Z"};
    for (std::size_t k = 0; k < runs.size(); ++k) runs[k].meta.started_at = first_times[k];
    // In order, or with a start time missing, nothing is said.
    runs[2].meta.started_at = "2026-01-01T02:30:00Z";
    CHECK(analyze_sweep(find_sweeps(runs).front(), runs).validity.start_order.empty());
    runs[2].meta.started_at.clear();
    CHECK(analyze_sweep(find_sweeps(runs).front(), runs).validity.start_order.empty());
}

// LMBench's layout: each rate run with the same 252 prompts, one cut short at 55 (below 0.9 × 252 =
// 226.8) with no num_prompts to say it. 4 of 5 runs share 252: the sweep's run length. A sweep whose
// runs' lengths all differ has none, and says nothing.
TEST_CASE("a run that sent fewer requests than the run length the rest of its sweep shares ended early", "[validity]") {
    std::vector<run_stats> runs;
    for (const auto& [rate, n] : {std::pair{0.5, 55.0}, {1.0, 252.0}, {2.0, 252.0}, {4.0, 252.0}, {8.0, 252.0}})
        runs.push_back(reported_run(fmt::format("sharegpt_{:g}", rate), {{"request_rate", rate}},
                                    {{"requests", n, "requests"}, {"ok", n, "requests"}, {"rps", rate, "req/s"}}));
    const auto a = analyze_sweep(find_sweeps(runs).front(), runs);
    REQUIRE(a.validity.short_of_siblings.size() == 1);
    CHECK(a.validity.short_of_siblings[0].load == 0.5);
    CHECK(a.validity.siblings == 252);
    CHECK(has(summary_texts(runs, std::vector<sweep_analysis>{a}),
              "Fewer requests than the other levels' 252: request_rate=0.5 (sharegpt_0.5) with 55; it ended early, so its "
              "numbers cover only the part that ran."));
    for (auto [k, n] : {std::pair{1, 240.0}, {2, 230.0}}) runs[k].meta.reported[0].value = runs[k].meta.reported[1].value = n;
    CHECK(analyze_sweep(find_sweeps(runs).front(), runs).validity.short_of_siblings.empty());
}

// c=8 of c=1, 2, 4, 8 completed 12 requests (fewer than 2 × 8): it never held its load; three
// sound levels remain, so it is kept out. When every level is like it, none is.
TEST_CASE("a level that never held its load is kept out of the knees while three sound levels remain", "[validity]") {
    std::vector<run_stats> runs;
    for (int c : {1, 2, 4, 8})
        runs.push_back(reported_run("t-c" + std::to_string(c), {{"concurrency", c}},
                                    {{"ok", c == 8 ? 12.0 : 1000.0, "requests"}, {"duration", 100, "s"},
                                     {"rps", 2.0 * c, "req/s"}}));
    const auto a = analyze_sweep(find_sweeps(runs).front(), runs);
    CHECK(a.rows[3].excluded);
    CHECK_FALSE(a.rows[2].excluded);
    CHECK(has(a.findings, "c=8 completed fewer than 2 × its concurrency in requests and never held its load, so it is "
                          "kept out of the knees and the SLO capacity."));
    for (auto& r : runs) r.meta.reported[0].value = 1;
    const auto all = analyze_sweep(find_sweeps(runs).front(), runs);
    for (const auto& row : all.rows) CHECK_FALSE(row.excluded);
}

// ---- the summary --------------------------------------------------------------------------------

// Item 5: vLLM summaries at request_rate 1, 2, 4, 8 (1000 requests each, every one ok), no
// throughput knee worth the name: rps 1, 2, 3.9, 7.6 rises by ln 2, ln 1.95, ln 1.949 per step
// (no jump, no bend: monotone). Growth: the first level within 10 % of the 7.6 peak (6.84) is the
// last, so still rising, 7.6 / 3.9 − 1 = +95 % over rate 4. e2e p99 2.0, 2.1, 2.3, 3.0: normalised
// (0, .1, .3, 1) at x (0, 1/7, 3/7, 1); reflected and reversed (0, .7, .9, 1) minus x gives d = (0,
// .557, .471, 0): the maximum at reversed index 1, whose threshold .557 − 1/3 = .224 the next d
// stays above and the last falls below: the knee is x[−2] = rate 4 (2.30 s). Its curve bends on
// log–log axes (ln p99 at ln 4 lies .131 below the chord, .32 of the .406 range): a smooth
// saturation, no caveat. At the top level e2e p99 3.00 s, TTFT p99 500 ms (1000 ok: p99 has 10
// values beyond it, no dagger).
TEST_CASE("a sweep of summaries without a throughput knee is still named, peaked, bounded and tailed", "[validity]") {
    std::vector<run_stats> runs;
    for (const auto& [rate, rps, p99] : {std::tuple{1, 1.0, 2.0}, {2, 2.0, 2.1}, {4, 3.9, 2.3}, {8, 7.6, 3.0}})
        runs.push_back(reported_run("r" + std::to_string(rate), {{"request_rate", rate}},
                                    {{"requests", 1000, "requests"}, {"ok", 1000, "requests"}, {"duration", 1000 / rps, "s"},
                                     {"rps", rps, "req/s"}, {"e2e.p99", p99, "s"}, {"ttft.p99", 0.5, "s"}}));
    const std::vector<sweep_analysis> sweeps{analyze_sweep(find_sweeps(runs).front(), runs)};
    const auto texts = summary_texts(runs, sweeps);
    REQUIRE_FALSE(texts.empty());
    CHECK(texts.front() ==
          "Sweep over request_rate 1, 2, 4 and 8: throughput peaks at 7.60 req/s at request_rate=8, still rising at the "
          "top level (+95% over request_rate=4), so growth does not stop within the range; e2e p99 bends upward from "
          "request_rate=4 (2.30 s); at request_rate=8 e2e p99 is 3.00 s and TTFT p99 500 ms.");
}

// Growth that stops: rps 2, 4, 7.5, 8, 7.9 at c=1…16 has no clean knee here once throughput's own
// knee is left aside; the first level within 10 % of 8 (7.2) is c=4 and every later one stays.
TEST_CASE("where growth stops without a knee: the first level within 10% of the peak", "[validity]") {
    std::vector<run_stats> runs;
    for (const auto& [c, rps] : {std::tuple{1, 2.0}, {2, 4.0}, {4, 7.5}, {8, 8.0}, {16, 7.9}})
        runs.push_back(reported_run("g" + std::to_string(c), {{"concurrency", c}},
                                    {{"requests", 1000, "requests"}, {"duration", 1000 / rps, "s"}, {"rps", rps, "req/s"}}));
    auto a = analyze_sweep(find_sweeps(runs).front(), runs);
    for (auto& k : a.knees) k.caveat = "set aside for this test";
    std::vector<const sweep_row*> rows;
    for (const auto& row : a.rows) rows.push_back(&row);
    CHECK(report::detail::growth_clause(a, rows, a.rows[3]) ==
          ", growth stopping at c=4 (every level from there within 10% of the peak)");
    // A fall at the top: 8 → 4 at c=16, 50 % below the peak.
    a.rows[4].values[servestat::detail::column_index("rps")] = 4.0;
    CHECK(report::detail::growth_clause(a, rows, a.rows[3]) ==
          ", growth stopping at c=4, then falling to 4.00 req/s at c=16 (50% below the peak)");
}

// The caveats in the summary, beside its five sentences: concurrency 8, 16, 32, 40, 48 (AIPerf-like
// summaries). c=32 and c=40 were configured for 1800 s and ran 934 s and 402 s (below 1440 s);
// c=40 sent 96 requests (at most 100): tiny, but kept in (no ok count says it never held its
// load); c=48 failed 30 of 1000 requests (3.0 %).
TEST_CASE("the summary names each run whose numbers are not the server's", "[validity]") {
    std::vector<run_stats> runs;
    for (const auto& [c, requests, failed, seconds] : {std::tuple{8, 1000.0, 0.0, 1800.0}, {16, 1000.0, 0.0, 1800.0},
                                                      {32, 1000.0, 0.0, 934.0}, {40, 96.0, 0.0, 402.0},
                                                      {48, 1000.0, 30.0, 1800.0}})
        runs.push_back(reported_run("run " + std::string(1, static_cast<char>('a' + c / 8)),
                                    {{"concurrency", c}, {"benchmark_duration", 1800}},
                                    {{"requests", requests, "requests"}, {"failed", failed, "requests"}, {"duration", seconds, "s"},
                                     {"rps", requests / seconds, "req/s"}}));
    const std::vector<sweep_analysis> sweeps{analyze_sweep(find_sweeps(runs).front(), runs)};
    CHECK_FALSE(sweeps[0].rows[3].excluded);
    const auto texts = summary_texts(runs, sweeps);
    CHECK(has(texts, "Ended well before their configured length: c=32 (run e) after 934 s and c=40 (run f) after 402 s of "
                     "the configured 1800 s (benchmark_duration); their numbers cover only the part that ran."));
    // 96 requests are few; 402 s is no brief run, so its rate is not blamed on ramp-up and drain.
    CHECK(has(texts, "Short runs: c=40 (run f, 96 requests in 402 s); tails from so few requests may not repeat."));
    CHECK(has(texts, "More than 1% of requests failed in one run: c=48 (run g) (30 of 1000: 3.0%); its latencies and "
                     "throughput count the successful requests only."));
}

// Several sweeps with the same levels: a run named by its level alone would not say whose it is.
TEST_CASE("a short run of one of several sweeps is named with its sweep", "[validity]") {
    std::vector<run_stats> runs;
    for (const std::string deployment : {"llm-d-70b-2replicas-H100", "vllm-standalone-llama-3-70b-2replicas-H100"})
        for (const int rate : {4, 8, 16}) {
            const double requests = deployment.starts_with("llm") && rate == 16 ? 68 : 252;
            runs.push_back(reported_run(deployment + " (a long folder name) at rate " + std::to_string(rate),
                                        {{"request_rate", rate}, {"deployment", deployment}},
                                        {{"requests", requests, "requests"}, {"duration", requests / rate, "s"},
                                         {"rps", static_cast<double>(rate), "req/s"}}));
        }
    std::vector<sweep_analysis> sweeps;
    for (const auto& s : find_sweeps(runs)) sweeps.push_back(analyze_sweep(s, runs));
    REQUIRE(sweeps.size() == 2);
    const auto texts = summary_texts(runs, sweeps);
    const auto short_runs = std::find_if(texts.begin(), texts.end(), [](const std::string& t) { return t.starts_with("Short runs: "); });
    REQUIRE(short_runs != texts.end());
    CHECK(short_runs->starts_with("Short runs: request_rate=16 on "));
    CHECK(short_runs->find("llm-d") != std::string::npos);
}

// servestat's own driver says in run.end how the run ended. A run stopped at the requested precision
// after 812 of -n 3000 requests and 20 of --duration 100 s is not early: ending there was its purpose.
// A run the failure guard stopped is told once, with the guard's sentence, not again as early.
TEST_CASE("the driver's own end: precise is no early end, a stop on a failing server is told with its reason", "[validity]") {
    auto precise = reported_run("until", {{"concurrency", 8}, {"num_prompts", 3000}, {"duration", 100}},
                                {{"requests", 812, "requests"}, {"duration", 20, "s"}});
    precise.meta.run_end = {{"reason", "precise"}, {"detail", "e2e p50 within ±4.8% (target ±5%) after 812 requests"}};
    CHECK_FALSE(check_run_validity(precise).ended_early());

    auto gone = reported_run("gone-c16", {{"concurrency", 16}, {"num_prompts", 2000}},
                             {{"requests", 150, "requests"}, {"failed", 30, "requests"}, {"duration", 20, "s"}});
    gone.meta.run_end = {{"reason", "server_gone"}, {"detail", "10 connection failures in a row"}};
    const auto v = check_run_validity(gone);
    REQUIRE(v.stopped_by_driver);
    CHECK(v.stopped_by_driver->reason == "server_gone");
    CHECK(v.stopped_by_driver->detail == "10 connection failures in a row");
    CHECK_FALSE(v.ended_early_count); // 150 < 0.9 × 2000, but the stop says why
    CHECK(v.ended_early());

    const std::vector<run_stats> runs{gone};
    CHECK(has(summary_texts(runs, {}), "The load driver stopped sending early in gone-c16 (10 connection failures in a "
                                       "row); its numbers cover only the part that ran."));
    // Without run.end (another tool, or a log written before it existed) nothing changes.
    gone.meta.run_end = nullptr;
    CHECK(check_run_validity(gone).ended_early_count);
    CHECK_FALSE(check_run_validity(gone).stopped_by_driver);
}

// A dead server at c=32: vLLM wrote completed 0, failed 1000 and zero rates. Nothing completed, so
// the run is no measurement: no rate on the curve, no point for the knees, peak or capacity, no
// "short" or "errors" finding (those judge a measurement), and one sentence that says so.
TEST_CASE("a run in which nothing completed is no measurement and no point of its sweep", "[validity]") {
    std::vector<run_stats> runs;
    for (const auto& [c, ok, rps] : {std::tuple{8, 1000.0, 8.0}, {16, 1000.0, 15.0}, {24, 1000.0, 20.0}, {32, 0.0, 0.0}})
        runs.push_back(reported_run("c" + std::to_string(c), {{"max_concurrency", c}},
                                    {{"ok", ok, "requests"}, {"failed", 1000 - ok, "requests"}, {"duration", 100, "s"},
                                     {"rps", rps, "req/s"}, {"output_tps", 10 * rps, "tok/s"}}));
    const auto v = check_run_validity(runs[3]);
    CHECK(v.nothing_completed);
    CHECK_FALSE(v.errors);
    CHECK_FALSE(v.tiny);
    CHECK_FALSE(sweep_value(runs[3], "rps"));
    CHECK(sweep_value(runs[3], "success_rate") == 0.0); // a share of nothing is still a share
    const std::vector<sweep_analysis> sweeps{analyze_sweep(find_sweeps(runs).front(), runs)};
    REQUIRE(sweeps[0].rows.size() == 4);
    CHECK(sweeps[0].rows[3].excluded);
    CHECK(sweeps[0].rows[3].excluded_because == "nothing completed");
    CHECK_FALSE(sweeps[0].rows[2].excluded);
    const auto texts = summary_texts(runs, sweeps);
    REQUIRE_FALSE(texts.empty());
    CHECK(texts[0].starts_with("Sweep over max_concurrency 8, 16, 24 and 32 (nothing completed at 32): throughput peaks "
                               "at 20.00 req/s at max_concurrency=24"));
    CHECK(has(texts, "Nothing completed in one run: c32 (1000 of 1000 requests failed); it is no "
                     "measurement, so it has no rates or latencies and no point on any curve."));
    for (const auto& t : texts) CHECK(t.find("More than 1% of requests failed") == std::string::npos);
}

} // namespace test_run_validity
