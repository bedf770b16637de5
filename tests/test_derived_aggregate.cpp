// A file derived from the runs beside it (the sums and means of per-client parts) is no run: a
// folder read passes it over and says from what. No public result set was found that keeps such a
// file (about 50 searches of llm-d-benchmark, its forks and other harnesses), so the fixtures are
// generated, on the layout llm-d-benchmark's `-j/--parallelism` gives: N identical harness pods,
// one Benchmark Report each (`<harness>_<expid>_<stack>_<i>/`, llm-d-benchmark#1136), here with a
// report an author made from them beside the pods' folders.
#include "servestat/ingest/derived_aggregate.hpp"

#include <filesystem> // std::filesystem
#include <fstream>    // std::ofstream
#include <string>     // std::string
#include <vector>     // std::vector

#include "servestat/ingest/detect.hpp" // detail::read_directory, load_options, passed_over_file

#include <catch2/catch.hpp>  // TEST_CASE, REQUIRE, CHECK
#include <nlohmann/json.hpp> // nlohmann::json

#include "temp_file.hpp" // temp_file
#include "folder_reading.hpp" // test::read_folder

namespace test_derived_aggregate {

using namespace servestat;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

struct pod {
    std::string start, end;
    int total, failures;
    double rps, output_tps, ttft_mean, ttft_p99, e2e_mean, e2e_p99; // ms for the latencies
};

// An llm-d Benchmark Report v0.2.1 of a vllm-benchmark pod at concurrency 16.
json report_of(const pod& p) {
    const auto stat = [](double mean, double p99) { return json{{"units", "ms"}, {"mean", mean}, {"p50", mean}, {"p99", p99}}; };
    return {{"version", "0.2.1"},
            {"run", {{"uid", "u"}, {"eid", "e"}, {"time", {{"start", p.start}, {"end", p.end}}}}},
            {"scenario",
             {{"stack", json::array({{{"metadata", {{"schema_version", "0.0.1"}, {"label", "vllm-svc-0"}}},
                                      {"standardized",
                                       {{"kind", "inference_engine"}, {"tool", "vllm"}, {"role", "replica"}, {"replicas", 1},
                                        {"model", {{"name", "meta-llama/Llama-3.1-8B-Instruct"}}}}},
                                      {"native", json::object()}}})},
              {"load",
               {{"metadata", {{"schema_version", "0.0.1"}}},
                {"standardized", {{"tool", "vllm-benchmark"}, {"parallelism", 1}, {"stage", 0}, {"concurrency", 16}}},
                {"native", json::object()}}}}},
            {"results",
             {{"request_performance",
               {{"aggregate",
                 {{"requests", {{"total", p.total}, {"failures", p.failures}}},
                  {"latency", {{"time_to_first_token", stat(p.ttft_mean, p.ttft_p99)}, {"request_latency", stat(p.e2e_mean, p.e2e_p99)}}},
                  {"throughput",
                   {{"output_token_rate", {{"units", "tokens/s"}, {"mean", p.output_tps}}},
                    {"request_rate", {{"units", "queries/s"}, {"mean", p.rps}}}}}}}}}}}};
}

void write(const fs::path& file, const json& j) {
    fs::create_directories(file.parent_path());
    std::ofstream(file) << j.dump(2);
}

using test::read_folder;

const std::vector<pod> pods = {
    {"2025-11-06T09:00:00Z", "2025-11-06T09:02:00Z", 200, 0, 1.61, 410.2, 140.0, 280.0, 3100.0, 3900.0},
    {"2025-11-06T09:00:01Z", "2025-11-06T09:02:02Z", 200, 1, 1.58, 402.9, 150.0, 300.0, 3150.0, 4000.0},
    {"2025-11-06T09:00:02Z", "2025-11-06T09:02:01Z", 200, 0, 1.63, 415.5, 130.0, 260.0, 3050.0, 3800.0},
};

} // namespace

TEST_CASE("a report whose counts are the pods' sum and whose rates and latencies follow from theirs is passed over as derived") {
    test::temp_file base("", "unused");
    const fs::path dir = base.dir() / "parallel-j3";
    for (std::size_t i = 0; i < pods.size(); ++i)
        write(dir / ("vllm-benchmark_exp1_stack_" + std::to_string(i + 1)) / "benchmark_report.json", report_of(pods[i]));
    // The author's combined report: counts and rates summed (600 requests, 1 failure, 4.82 req/s,
    // 1228.6 tok/s), latencies the mean of the pods' (TTFT mean (140+150+130)/3 = 140, p99 280;
    // e2e p99 (3900+4000+3800)/3 = 3900), its window the pods' together.
    pod combined{"2025-11-06T09:00:00Z", "2025-11-06T09:02:02Z", 600, 1, 4.82, 1228.6, 140.0, 280.0, 3100.0, 3900.0};
    write(dir / "combined_report.json", report_of(combined));

    const auto read = read_folder(dir);
    REQUIRE(read.runs.size() == 3);
    for (const auto& r : read.runs) CHECK(fs::path(r.meta.source.path).filename() == "benchmark_report.json");
    REQUIRE(read.passed.size() == 1);
    CHECK(fs::path(read.passed[0].path).filename() == "combined_report.json");
    CHECK(read.passed[0].reason ==
          "derived from the 3 runs beside it (vllm-benchmark_exp1_stack_1/benchmark_report.json, "
          "vllm-benchmark_exp1_stack_2/benchmark_report.json and 1 more): its 600 requests are theirs summed, "
          "its output_tps is their sum and rps is their sum; no measurement of its own");
}

TEST_CASE("counts that happen to add up are no evidence without a value that follows from the others'") {
    const auto tally = [](std::string path, double requests, double rps, double e2e_p99) {
        return run_tally{std::move(path), 0, requests, requests, {{"rps", rps}, {"e2e.p99", e2e_p99}}};
    };
    SECTION("a sweep of run lengths: 100 and 200 prompts beside 300, each at its own rate") {
        const std::vector<run_tally> runs = {tally("/s/n100.json", 100, 2.0, 1.2), tally("/s/n200.json", 200, 4.0, 1.9),
                                             tally("/s/n300.json", 300, 7.0, 2.4)};
        CHECK_FALSE(derived_from_siblings(runs[2], runs));
    }
    SECTION("a run as long as two replicates together at the same load has their rate and tail, and is a run") {
        const std::vector<run_tally> runs = {tally("/s/rep1.json", 100, 5.0, 1.50), tally("/s/rep2.json", 100, 5.01, 1.51),
                                             tally("/s/long.json", 200, 5.005, 1.505)};
        CHECK_FALSE(derived_from_siblings(runs[2], runs));
    }
    SECTION("a mean of tails that differ, none of which it equals, is evidence") {
        const std::vector<run_tally> runs = {tally("/s/a.json", 100, 5.0, 1.0), tally("/s/b.json", 100, 5.0, 2.0),
                                             tally("/s/all.json", 200, 5.0, 1.5)};
        const auto why = derived_from_siblings(runs[2], runs);
        REQUIRE(why);
        CHECK(why->find("its e2e.p99 is their mean") != std::string::npos);
    }
    SECTION("one sibling is no set of parts") {
        const std::vector<run_tally> runs = {tally("/s/a.json", 100, 5.0, 1.0), tally("/s/copy.json", 100, 5.0, 1.0)};
        CHECK_FALSE(derived_from_siblings(runs[1], runs));
    }
}

} // namespace test_derived_aggregate
