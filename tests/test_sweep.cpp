// Tests for servestat/sweep/: grouping runs into sweeps, reading their values, and the analysis of
// the notebook's Experiment 3 sweep (tests/data/sweep/bad_unfair_exp3.csv, numbers from the seed).
#include "servestat/sweep/sweep.hpp"
#include "servestat/sweep/sweep_analysis.hpp"

#include <cmath>      // std::isinf
#include <filesystem> // std::filesystem::path
#include <algorithm> // std::find
#include <string>    // std::string
#include <tuple>     // std::tuple
#include <utility>   // std::pair
#include <vector>    // std::vector

#include "servestat/ingest/detect.hpp"    // read_logs
#include "servestat/ingest/sweep_csv.hpp" // sweep_csv_format
#include "servestat/sweep/grid.hpp"       // find_grids

#include <catch2/catch.hpp> // TEST_CASE, CHECK, REQUIRE, Approx

namespace test_sweep { // the unity build compiles several test files as one: each keeps its names

namespace {

using servestat::run_stats;

std::vector<run_stats> stats_of(const std::string& path) {
    std::vector<run_stats> out;
    for (const auto& r : servestat::read_logs(std::vector<std::string>{path})) out.push_back(servestat::analyze(r));
    return out;
}

std::string data(const char* name) { return std::string(SERVESTAT_TEST_DATA_DIR) + "/" + name; }

std::vector<run_stats> exp3_stats() {
    std::vector<run_stats> out;
    for (const auto& r : servestat::sweep_csv_format.read(std::string(SERVESTAT_TEST_DATA_DIR) + "/sweep/bad_unfair_exp3.csv", {}))
        out.push_back(servestat::analyze(r));
    return out;
}

run_stats stats_with(nlohmann::json params, std::string workload = "mix_50_50") {
    run_stats r;
    r.meta.params = std::move(params);
    r.meta.workload = std::move(workload);
    r.meta.source.format = "servestat";
    return r;
}

} // namespace

TEST_CASE("runs that differ only in concurrency form one sweep ordered by it") {
    const auto runs = exp3_stats();
    const auto sweeps = servestat::find_sweeps(runs);
    REQUIRE(sweeps.size() == 1);
    CHECK(sweeps[0].param == "concurrency");
    CHECK(sweeps[0].group.empty());
    REQUIRE(sweeps[0].points.size() == 8);
    CHECK(sweeps[0].points.front().load == 1);
    CHECK(sweeps[0].points.back().load == 64);
}

TEST_CASE("a second varying parameter splits the runs into one sweep per value") {
    std::vector<run_stats> runs;
    for (int seqs : {16, 32})
        for (int c : {1, 4, 16}) runs.push_back(stats_with({{"concurrency", c}, {"max_num_seqs", seqs}}));
    const auto sweeps = servestat::find_sweeps(runs);
    REQUIRE(sweeps.size() == 2);
    CHECK(sweeps[0].param == "concurrency");
    CHECK(sweeps[0].group == "max_num_seqs=16");
    CHECK(sweeps[1].group == "max_num_seqs=32");
    const auto by_seqs = servestat::find_sweeps(runs, {.by = "max_num_seqs", .min_points = 2});
    REQUIRE(by_seqs.size() == 3);
    CHECK(by_seqs[0].group == "concurrency=1");
    CHECK(by_seqs[0].points.size() == 2);
}

TEST_CASE("runs of another workload never join a sweep, and short curves are left out") {
    std::vector<run_stats> runs{stats_with({{"concurrency", 1}}), stats_with({{"concurrency", 2}}),
                                stats_with({{"concurrency", 4}}), stats_with({{"concurrency", 8}}, "short_only")};
    const auto sweeps = servestat::find_sweeps(runs);
    REQUIRE(sweeps.size() == 1);
    CHECK(sweeps[0].points.size() == 3);
    CHECK(servestat::find_sweeps(std::vector<run_stats>{stats_with({{"concurrency", 1}})}).empty());
}

TEST_CASE("a sweep reads a summary run's values as its tool reported them") {
    const auto runs = exp3_stats();
    CHECK(servestat::sweep_value(runs[7], "rps") == 5.817353);
    CHECK(servestat::sweep_value(runs[7], "e2e.p99") == 21.667766);
    CHECK(servestat::sweep_value(runs[7], "short.e2e.p99") == 15.790760);
    CHECK(servestat::sweep_value(runs[7], "success_rate") == 1.0);
    CHECK_FALSE(servestat::sweep_value(runs[0], "long.e2e.p99").has_value());
}

TEST_CASE("Experiment 3: throughput saturates at concurrency 16 and the p99 knee is reported") {
    const auto runs = exp3_stats();
    const auto a = servestat::analyze_sweep(servestat::find_sweeps(runs).front(), runs);
    REQUIRE(a.rows.size() == 8);
    REQUIRE(a.knees.size() == 4);
    // Kneedle on rps vs concurrency, concave increasing: the difference curve peaks at c=16
    // (0.7353) and the next point (0.4835) is below the threshold 0.7353 - 1/7.
    CHECK(a.knees[0].curve == "throughput");
    CHECK(a.knees[0].x == 16);
    CHECK(a.knees[0].y == 5.902047);
    // p99 vs concurrency, convex increasing: kneed mirrors the curve; its local maximum at index 3
    // of the flipped difference curve maps back to x[-(3+1)] = 16 (docs/knee.md derives it).
    CHECK(a.knees[1].curve == "p99");
    CHECK(a.knees[1].x == 16);
    CHECK(a.findings.front() ==
          "Throughput saturates at ~5.9 req/s from c=16; from c=16 to c=64 p99 grows 3.5× while throughput "
          "changes -1%.");
}

// Experiment 3 keeps its saturation knee at c=16, with no caveat: the rps curve bends (curve_shape
// tests: .7455 of its range off the chord). Its p99 rises steadily (.1345 and .1292 off the chord,
// linear and log–log, both under .2), so Kneedle's c=16 there keeps a caveat. The threshold knee
// of p99 with d = 0.5: 1.302439 × 1.5 = 1.9537 s; c=2 (1.7887 s) stays under it, c=4 (2.6923 s)
// is the first above.
TEST_CASE("Experiment 3: the saturation knee at c=16 stands, p99 gets a caveat and a threshold knee", "[sweep]") {
    const auto runs = exp3_stats();
    const auto a = servestat::analyze_sweep(servestat::find_sweeps(runs).front(), runs);
    REQUIRE(a.knees.size() == 4);
    CHECK(a.knees[0].x == 16);
    CHECK(a.knees[0].form.kind == servestat::curve_kind::smooth_saturation);
    CHECK(a.knees[0].caveat.empty());
    CHECK_FALSE(a.knees[0].threshold); // throughput has no threshold knee
    CHECK(a.knees[1].x == 16);
    CHECK(a.knees[1].form.kind == servestat::curve_kind::monotone);
    CHECK(a.knees[1].caveat.find("without a clear bend") != std::string::npos);
    REQUIRE(a.knees[1].threshold);
    CHECK(a.knees[1].threshold->baseline_x == 1);
    CHECK(*a.knees[1].threshold->limit == Approx(1.302439 * 1.5));
    CHECK(a.knees[1].threshold->x == 4);
    CHECK(a.knees[1].threshold->y == 2.692315);
}

// tests/data/sweep/step_ttft.csv (synthetic, its README): request_rate 8..64 by 8.
// TTFT p99 0.21 0.22 0.21 0.225 0.22 | 3.30 3.40 3.35: ln steps .047 -.047 .069 -.023 2.708 .030
// -.015, all flat (< ln 1.1) but 40 → 48, a 15× jump. e2e p99 1.10 1.12 1.11 1.15 1.16 | 4.40 4.50
// 4.45 likewise (4.40/1.16 = 3.79×). kneed's find_shape calls TTFT convex increasing (the middle
// points lie below the fitted line: the residuals of indices 1..5 sum to -1.38), and Kneedle on a
// convex increasing step lands on the mirrored first index, x = 64, the last level: withheld.
// Throughput 7.9 … 39.2 41.0 41.3 41.1 bends (at 40 it lies (39.2 − 26.87)/33.4 = .37 of its range
// above the chord) with no jump (its largest step, ln 2, is under twice the next, ln 1.5): Kneedle's
// knee at 40 stands. Threshold knees (d = 0.5): TTFT 0.21 × 1.5 = .315 and p99 1.10 × 1.5 = 1.65
// are first exceeded at 48; with d = 0.02, TTFT .2142 at 16 (0.22) and p99 1.122 at 32 (1.15).
TEST_CASE("a step-shaped sweep gets the jump finding and no unqualified knee", "[sweep]") {
    std::vector<run_stats> runs;
    for (const auto& r : servestat::sweep_csv_format.read(std::string(SERVESTAT_TEST_DATA_DIR) + "/sweep/step_ttft.csv", {}))
        runs.push_back(servestat::analyze(r));
    const auto sweeps = servestat::find_sweeps(runs);
    REQUIRE(sweeps.size() == 1);
    REQUIRE(sweeps[0].param == "request_rate");
    const auto a = servestat::analyze_sweep(sweeps[0], runs);
    REQUIRE(a.knees.size() == 4);
    const auto& ttft = a.knees[2];
    REQUIRE(ttft.form.kind == servestat::curve_kind::jump);
    CHECK(ttft.form.jump->x_from == 40);
    CHECK(ttft.form.jump->x_to == 48);
    CHECK(ttft.form.jump->factor == Approx(3.30 / 0.22));
    CHECK(ttft.shape == "convex increasing");
    CHECK_FALSE(ttft.x);
    CHECK(ttft.withheld_x == 64);
    CHECK(a.knees[1].form.kind == servestat::curve_kind::jump);
    CHECK(a.knees[1].withheld_x == 64);
    for (const auto& k : a.knees)
        if (k.form.kind != servestat::curve_kind::smooth_saturation) CHECK((!k.x || !k.caveat.empty()));
    CHECK(a.knees[0].x == 40);
    CHECK(a.knees[0].caveat.empty());
    const std::string jump =
        "TTFT p99 rises 15× in one step, request_rate 40 → 48 (0.22 s → 3.3 s), flat on either side: a step, not a "
        "gradual saturation; Kneedle's answer, request_rate=64, is the last level and is not reported as a knee.";
    CHECK(std::find(a.findings.begin(), a.findings.end(), jump) != a.findings.end());
    CHECK(a.findings.front().starts_with("e2e p99 rises 3.8× in one step, request_rate 40 → 48 (1.16 s → 4.4 s)"));
    REQUIRE(ttft.threshold);
    CHECK(ttft.threshold->x == 48);
    CHECK(*ttft.threshold->limit == Approx(0.21 * 1.5));
    CHECK(a.knees[1].threshold->x == 48);
    const auto tight = servestat::analyze_sweep(sweeps[0], runs, {}, 95, 0.02);
    CHECK(tight.knees[2].threshold->x == 16);
    CHECK(tight.knees[1].threshold->x == 32);
    CHECK(tight.knees[1].threshold->degradation == 0.02);
    CHECK_THROWS_AS(servestat::analyze_sweep(sweeps[0], runs, {}, 95, -0.5), servestat::usage_error);
}

TEST_CASE("BurstGPT's replay: the TTFT knee over scale") {
    // TTFT p99 by scale (numpy linear over each detail log): 0.38, 1.80, 13.45, 36.78, 45.11, 53.33,
    // 60.36, 57.33, 67.76, 75.98, 85.39, 87.06 s at scales 100..1000, 1500, 2000. kneed's find_shape:
    // slope > 0 and the middle 60% lies above the line (q = 6.28) → concave increasing. Difference
    // curve: 0, -.036, .046, .262, .306, .348, .376, .289, .356, .399, .244, 0; its local maxima are at
    // indices 0, 6 and 9, minima at 1, 7 and 11; threshold step 1/11. The maximum at 6 arms 0.285 but
    // index 7 (0.289) stays above it and is a minimum (disarms); the maximum at 9 arms 0.308 and
    // index 10 (0.244) falls below it: the knee is scale 1000.
    std::vector<run_stats> runs;
    for (const auto& r : servestat::read_logs(std::vector<std::string>{std::string(SERVESTAT_SHARED_DATA_DIR) +
                                                                        "/burstgpt-replay-vllm-liao4s/detail_log"}))
        runs.push_back(servestat::analyze(r));
    const auto sweeps = servestat::find_sweeps(runs);
    REQUIRE(sweeps.size() == 1);
    CHECK(sweeps[0].param == "scale");
    const auto a = servestat::analyze_sweep(sweeps[0], runs);
    REQUIRE(a.knees[2].curve == "ttft");
    CHECK(a.knees[2].shape == "concave increasing");
    CHECK(a.knees[2].x == 1000);
}

TEST_CASE("the largest load meeting an SLO is interpolated between the measured loads around it") {
    const auto runs = exp3_stats();
    const std::vector<servestat::slo> slos{{servestat::metric::e2e, 5.0}, {servestat::metric::e2e, 0.5},
                                           {servestat::metric::e2e, 60.0}};
    const auto a = servestat::analyze_sweep(servestat::find_sweeps(runs).front(), runs, slos, 99);
    REQUIRE(a.capacity.size() == 3);
    // p99 3.694609 s at c=8 and 6.204649 s at c=16: 8 + (5 - 3.694609) / (6.204649 - 3.694609) × 8.
    CHECK(*a.capacity[0].max_load == Approx(8 + (5 - 3.694609) / (6.204649 - 3.694609) * 8).epsilon(1e-12));
    CHECK(a.capacity[0].interpolated);
    CHECK_FALSE(a.capacity[1].max_load.has_value()); // even c=1 has p99 1.30 s
    CHECK(a.capacity[2].max_load == 64);
    CHECK_FALSE(a.capacity[2].limited);
}

TEST_CASE("Little's law compares the requests in flight with the concurrency") {
    const auto runs = exp3_stats();
    const auto a = servestat::analyze_sweep(servestat::find_sweeps(runs).front(), runs);
    REQUIRE(a.little.size() == 8);
    // c=64: 5.817353 req/s × 10.589799 s mean latency = 61.6 in flight.
    CHECK(a.little.back().in_flight == Approx(5.817353 * 10.589799));
    CHECK(a.little.back().ratio == Approx(5.817353 * 10.589799 / 64));
    for (const auto& f : a.findings) CHECK(f.find("Little") == std::string::npos); // the client kept up
}

// Four closed-loop levels from their tools' summaries: in flight = rps × mean e2e.
// c=8: 4 × 1.9 = 7.6 (95 %); c=16: 6 × 2 = 12 (75 %); c=32: 6.2 × 2.5 = 15.5 (48.4 %);
// c=64: 6.3 × 3 = 18.9 (29.5 %). Three levels are under 80 %: the finding names them all.
TEST_CASE("Little's law: every level is kept and the finding names each one under 80 %", "[sweep]") {
    std::vector<run_stats> runs;
    for (const auto& [c, rps, mean] : {std::tuple{8, 4.0, 1.9}, {16, 6.0, 2.0}, {32, 6.2, 2.5}, {64, 6.3, 3.0}}) {
        run_stats r = stats_with({{"concurrency", c}});
        r.meta.kind = servestat::run_kind::summary;
        r.meta.reported = {{"rps", rps, "req/s"}, {"e2e.mean", mean, "s"}, {"e2e.p99", 2 * mean, "s"}};
        runs.push_back(std::move(r));
    }
    const auto a = servestat::analyze_sweep(servestat::find_sweeps(runs).front(), runs);
    REQUIRE(a.little.size() == 4);
    CHECK(a.little[0].rps == 4.0);
    CHECK(a.little[0].mean_e2e == 1.9);
    CHECK(a.little[0].in_flight == Approx(7.6));
    CHECK(a.little[2].ratio == Approx(15.5 / 32));
    const std::string expected =
        "At c=16, 32, 64 only 30–75% of the concurrency was in flight on average (Little's law: rps × mean latency; "
        "the Little's law table lists every level): the client, not the server, may be the bottleneck.";
    CHECK(std::find(a.findings.begin(), a.findings.end(), expected) != a.findings.end());
}

TEST_CASE("LLMPerf console sweeps: one curve per prompt length, saturating at c=4 for 3500-token prompts") {
    std::vector<run_stats> runs;
    for (const auto& r : servestat::read_logs(std::vector<std::string>{
             std::string(SERVESTAT_SHARED_DATA_DIR) + "/llmperf-sglang-sweep-hongxuanzhang/result_outputs/GPU1"}))
        runs.push_back(servestat::analyze(r));
    const auto sweeps = servestat::find_sweeps(runs);
    REQUIRE(sweeps.size() == 3); // mean_input_tokens 550, 1000, 3500 (files in natural order)
    CHECK(sweeps[2].group == "mean_input_tokens=3500");
    const auto a = servestat::analyze_sweep(sweeps[2], runs);
    // rps = Completed Requests Per Minute / 60: 0.3275, 0.5590, 0.8386, 0.8401, 0.8454, 0.8488 at
    // c = 1, 2, 4, 8, 16, 20. Normalised x 0, .0526, .1579, .3684, .7895, 1 and y 0, .4441, .9805,
    // .9833, .9936, 1 give the difference curve 0, .3914, .8226, .6149, .2041, 0: its maximum at c=4
    // arms 0.8226 - 1/5 = 0.6226 and c=8 (0.6149) falls below it.
    CHECK(a.knees[0].x == 4);
    CHECK(a.findings.front().starts_with("Throughput saturates at ~0.839 req/s from c=4"));
}

TEST_CASE("a sweep reads a percentile with a decimal point from a run's own requests") {
    servestat::run r;
    r.meta.params = {{"concurrency", 1}};
    servestat::request_record q;
    for (int i = 1; i <= 1000; ++i) {
        q.t_sent = 0.0;
        q.t_end = i / 1000.0;
        r.requests.push_back(q);
    }
    servestat::stats_options o;
    o.summary.percentiles = {50, 99.9};
    const run_stats s = servestat::analyze(r, o);
    // numpy.percentile(np.arange(1, 1001) / 1000, 99.9) = 0.999001 (rank 998.001 between 0.999 and 1.0)
    CHECK(*servestat::sweep_value(s, "e2e.p99.9") == Approx(0.999001).epsilon(1e-12));
    CHECK(*servestat::sweep_value(s, "e2e.p50") == Approx(0.5005).epsilon(1e-12));
}

TEST_CASE("a label column naming configurations makes one sweep each; a level measured again is a replicate") {
    const auto runs = stats_of(data("sweep/configs_replicates.csv"));
    REQUIRE(runs.size() == 17); // every row of the file is a run
    const auto found = servestat::search_sweeps(runs);
    REQUIRE(found.sweeps.size() == 3);
    CHECK(found.sweeps[0].group == "tp1");
    CHECK(found.sweeps[1].group == "tp2");
    CHECK(found.sweeps[2].group == "tp2-chunked");
    // tp4 ran two levels: on no curve, and said so.
    REQUIRE(found.left_out.size() == 2);
    CHECK(found.left_out[0].run == 15);
    CHECK(found.left_out[1].run == 16);
    CHECK(found.left_out[0].reason == "tp4 has 2 levels of concurrency; a sweep needs 3");
    // 4 + 5 + 6 rows on the curves, 2 left out: 17, none dropped.
    std::size_t on_curves = 0;
    for (const auto& s : found.sweeps)
        for (const auto& p : s.points) on_curves += p.replicates.size();
    CHECK(on_curves + found.left_out.size() == runs.size());

    const auto tp2 = servestat::analyze_sweep(found.sweeps[1], runs);
    REQUIRE(tp2.rows.size() == 4);
    const auto rps = servestat::detail::column_index("rps"), p99 = servestat::detail::column_index("e2e.p99");
    CHECK(tp2.rows[2].replicates == 2);
    CHECK(*tp2.rows[2].values[rps] == Approx(3.20)); // (3.00 + 3.40) / 2
    CHECK(*tp2.rows[2].values[p99] == Approx(1.20)); // (1.10 + 1.30) / 2
    CHECK(*tp2.rows[2].low[rps] == 3.00);
    CHECK(*tp2.rows[2].high[rps] == 3.40);
    const auto chunked = servestat::analyze_sweep(found.sweeps[2], runs);
    CHECK(chunked.rows[3].replicates == 3);
    CHECK(*chunked.rows[3].values[rps] == 5.30); // median of 5.00, 5.60, 5.30
    CHECK(*chunked.rows[3].values[p99] == 1.70); // median of 1.70, 1.62, 1.81
    CHECK(chunked.rows[0].replicates == 1);
}

TEST_CASE("a sweep table marks a percentile resting on few samples by the level's count of requests") {
    const auto runs = stats_of(data("sweep/configs_replicates.csv"));
    const auto a = servestat::analyze_sweep(servestat::find_sweeps(runs)[0], runs);
    const auto at = [&](const char* column) { return a.rows[0].few_samples[servestat::detail::column_index(column)]; };
    CHECK(at("e2e.p99"));        // 40 successful requests: p99 needs 10 / (1 - 0.99) = 1,000
    CHECK_FALSE(at("e2e.p50"));  // p50 needs 20
    CHECK_FALSE(at("rps"));      // not a percentile
}

TEST_CASE("a row repeated exactly cannot be told apart from its original: an error naming both lines") {
    const auto runs = stats_of(data("sweep/bad_repeated_row.csv"));
    try {
        servestat::find_sweeps(runs);
        FAIL("no error");
    } catch (const servestat::input_error& e) {
        CHECK(e.line() == 5);
        CHECK(std::string(e.what()).find("line 5 repeats line 3 exactly") != std::string::npos);
        CHECK(std::string(e.what()).find("bad_repeated_row.csv") != std::string::npos);
    }
}

TEST_CASE("appended vLLM results: one sweep per deployment over request_rate, inf the last level") {
    const auto runs = stats_of(data("vllm_bench_json/appended_deployments_inf.json"));
    REQUIRE(runs.size() == 9);
    // Named by what sets them apart; num_prompts follows the rate and adds nothing.
    CHECK(runs[0].meta.label == "no-features · rate 10");
    CHECK(runs[2].meta.label == "no-features · rate ∞");
    CHECK(runs[4].meta.label == "base · rate 30");
    const auto found = servestat::search_sweeps(runs);
    CHECK(found.left_out.empty());
    REQUIRE(found.sweeps.size() == 3);
    for (const auto& s : found.sweeps) {
        CHECK(s.param == "request_rate");
        CHECK(s.covarying == std::vector<std::string>{"num_prompts"});
        REQUIRE(s.points.size() == 3);
        CHECK(s.points[0].load == 10);
        CHECK(s.points[1].load == 30);
        CHECK(std::isinf(s.points[2].load));
    }
    CHECK(found.sweeps[0].group == "deployment=no-features");
    CHECK(found.sweeps[2].group == "deployment=kvcache");
    CHECK(servestat::find_grids(runs).empty()); // num_prompts is no grid dimension
    // TTFT p99 at inf as vLLM reported it (p99_ttft_ms 9951.3, 3158.6, 1249.8).
    const auto ttft_p99 = servestat::detail::column_index("ttft.p99");
    CHECK(*servestat::analyze_sweep(found.sweeps[0], runs).rows[2].values[ttft_p99] == Approx(9.9513));
    CHECK(*servestat::analyze_sweep(found.sweeps[2], runs).rows[2].values[ttft_p99] == Approx(1.2498));
    CHECK(servestat::detail::format_load("request_rate", found.sweeps[0].points[2].load) == "request_rate=∞ (max)");
}

TEST_CASE("an SLO missed only at the unbounded rate holds up to the last measured rate") {
    const auto runs = stats_of(data("vllm_bench_json/appended_deployments_inf.json"));
    const auto sweeps = servestat::find_sweeps(runs);
    const std::vector<servestat::slo> slos{{servestat::metric::ttft, 1.0}};
    const auto a = servestat::analyze_sweep(sweeps[1], runs, slos, 99);
    REQUIRE(a.capacity.size() == 1);
    CHECK(a.capacity[0].max_load == 30); // 0.476 s at 30, 3.16 s at inf: nothing to interpolate
    CHECK_FALSE(a.capacity[0].interpolated);
}

TEST_CASE("folders that each hold a sweep of one configuration are curves of their own, not replicates") {
    std::vector<run_stats> runs;
    for (const char* folder : {"out/GPU1", "out/GPU2_TP2"})
        for (int c : {1, 2, 4}) {
            auto r = stats_with({{"concurrency", c}});
            r.meta.source.path = std::string(folder) + "/requests_" + std::to_string(c) + ".txt";
            runs.push_back(r);
        }
    const auto sweeps = servestat::find_sweeps(runs);
    REQUIRE(sweeps.size() == 2);
    CHECK(sweeps[0].group == "GPU1/");
    CHECK(sweeps[1].group == "GPU2_TP2/");
    CHECK(sweeps[0].points[0].replicates.size() == 1);
    // Repeats in one folder stay replicates of one curve.
    for (auto& r : runs) r.meta.source.path = "out/" + std::filesystem::path(r.meta.source.path).filename().string();
    const auto one = servestat::find_sweeps(runs);
    REQUIRE(one.size() == 1);
    CHECK(one[0].points[0].replicates.size() == 2);
}

TEST_CASE("the swept parameter is the load parameter most runs have, not the first that varies") {
    std::vector<run_stats> runs{stats_with({{"request_rate", 1}}), stats_with({{"request_rate", 2}}),
                                stats_with({{"request_rate", 4}}), stats_with({{"concurrency", 8}})};
    const auto found = servestat::search_sweeps(runs);
    REQUIRE(found.sweeps.size() == 1);
    CHECK(found.sweeps[0].param == "request_rate");
    REQUIRE(found.left_out.size() == 1);
    CHECK(found.left_out[0].run == 3);
    CHECK(found.left_out[0].reason == "no request_rate parameter");
}

TEST_CASE("sweeps that read alike are told apart, never named the same or left unnamed") {
    std::vector<servestat::sweep> sweeps(3, servestat::sweep{"concurrency", "", {}, {}});
    std::vector<run_stats> runs(3);
    for (std::size_t i = 0; i < 3; ++i) sweeps[i].points.push_back({1, i, {i}});
    runs[0].meta.source.path = "x/a.json";
    runs[1].meta.source.path = "x/b.json";
    runs[2].meta.source.path = "x/c.json";
    servestat::detail::name_sweeps_apart(sweeps, runs);
    CHECK(sweeps[0].group == "from a.json");
    CHECK(sweeps[2].group == "from c.json");
    runs[2].meta.source.path = "x/a.json"; // two from one file: numbered
    sweeps.assign(3, servestat::sweep{"concurrency", "", {}, {}});
    for (std::size_t i = 0; i < 3; ++i) sweeps[i].points.push_back({1, i, {i}});
    servestat::detail::name_sweeps_apart(sweeps, runs);
    CHECK(sweeps[0].group == "#1");
    CHECK(sweeps[1].group == "#2");
    CHECK(sweeps[2].group == "#3");
}

TEST_CASE("a count that follows the load is no axis, even with one run per level") {
    // vLLM's benchmark_serving appended at max_concurrency 1 … 64 with num_prompts = 10 × C.
    std::vector<run_stats> runs;
    for (int c : {1, 2, 4, 8, 16, 32, 64}) runs.push_back(stats_with({{"max_concurrency", c}, {"num_prompts", 10 * c}}));
    const auto found = servestat::search_sweeps(runs);
    REQUIRE(found.sweeps.size() == 1);
    CHECK(found.sweeps[0].param == "max_concurrency");
    CHECK(found.sweeps[0].points.size() == 7);
    CHECK(found.sweeps[0].covarying == std::vector<std::string>{"num_prompts"});
    CHECK(found.left_out.empty());
    CHECK(servestat::find_grids(runs).empty());
}

TEST_CASE("a run length held over several levels still follows the load; a setting held over several sets curves apart") {
    std::vector<run_stats> lengths, settings;
    for (int c : {1, 2, 4, 8, 16, 32}) {
        lengths.push_back(stats_with({{"concurrency", c}, {"num_prompts", c < 8 ? 100 : 500}}));
        settings.push_back(stats_with({{"concurrency", c}, {"tensor_parallel_size", c < 8 ? 4 : 8}}));
    }
    const auto one = servestat::find_sweeps(lengths);
    REQUIRE(one.size() == 1);
    CHECK(one[0].points.size() == 6);
    const auto two = servestat::find_sweeps(settings);
    REQUIRE(two.size() == 2);
    CHECK(two[0].group == "tensor_parallel_size=4");
    CHECK(two[1].group == "tensor_parallel_size=8");
}

TEST_CASE("a grid needs two rows measured at two of the same columns") {
    std::vector<run_stats> full, diagonal_and_one;
    for (int seqs : {16, 32})
        for (int c : {1, 2, 4}) full.push_back(stats_with({{"concurrency", c}, {"max_num_seqs", seqs}}));
    REQUIRE(servestat::find_grids(full).size() == 1);
    // Rows 16 and 32 share only the column c=2: nothing compares one axis at two values of the other twice.
    for (const auto& [c, seqs] : std::vector<std::pair<int, int>>{{1, 16}, {2, 16}, {2, 32}, {4, 32}, {8, 64}})
        diagonal_and_one.push_back(stats_with({{"concurrency", c}, {"max_num_seqs", seqs}}));
    CHECK(servestat::find_grids(diagonal_and_one).empty());
}

} // namespace test_sweep
