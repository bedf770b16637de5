// Tests for servestat/sweep/: grouping runs into sweeps, reading their values, and the analysis of
// the notebook's Experiment 3 sweep (tests/data/sweep/bad_unfair_exp3.csv, numbers from the seed).
#include "servestat/sweep/sweep.hpp"
#include "servestat/sweep/sweep_analysis.hpp"

#include <string>  // std::string
#include <vector>  // std::vector

#include "servestat/ingest/detect.hpp"    // read_logs
#include "servestat/ingest/sweep_csv.hpp" // sweep_csv_format

#include <catch2/catch.hpp> // TEST_CASE, CHECK, REQUIRE, Approx

namespace test_sweep { // the unity build compiles several test files as one: each keeps its names

namespace {

using servestat::run_stats;

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

} // namespace test_sweep
