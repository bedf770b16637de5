// Parts of one measurement — runs of one configuration at one level that ran at the same time, as
// parallel clients write them — are read as one run; runs measured one after another stay
// replicates. No public result set with such parts was found (llm-d-benchmark's `-j` pods write one
// report each and nobody published them, llm-d-benchmark#1136), so the fixtures are generated on
// that layout: `<harness>_<expid>_<stack>_<i>/` per pod.
#include "servestat/experiment/parts.hpp"

#include <filesystem> // std::filesystem
#include <fstream>    // std::ofstream
#include <string>     // std::string
#include <vector>     // std::vector

#include <fmt/format.h> // fmt::format

#include "servestat/app/stats.hpp" // stats_args, stats_of_inputs, stats_json_text

#include <catch2/catch.hpp>  // TEST_CASE, REQUIRE, CHECK
#include <nlohmann/json.hpp> // nlohmann::json

#include "temp_file.hpp" // temp_file

namespace test_parts {

using namespace servestat;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

void write_text(const fs::path& file, const std::string& text) {
    fs::create_directories(file.parent_path());
    std::ofstream(file) << text;
}

// A Benchmark Report v0.2.1 of one vllm-benchmark pod at concurrency 16.
std::string pod_report(const std::string& start, const std::string& end, int total, int failures, double rps,
                       double ttft_mean, double ttft_p99) {
    const json r = {
        {"version", "0.2.1"},
        {"run", {{"uid", "u"}, {"eid", "e"}, {"time", {{"start", start}, {"end", end}}}}},
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
             {{"requests", {{"total", total}, {"failures", failures}}},
              {"latency", {{"time_to_first_token", {{"units", "ms"}, {"mean", ttft_mean}, {"p99", ttft_p99}}}}},
              {"throughput", {{"request_rate", {{"units", "queries/s"}, {"mean", rps}}}}}}}}}}}};
    return r.dump(2);
}

// A servestat log of `n` requests from `t0`, one every `gap` seconds, each taking `e2e` seconds.
std::string request_log(const std::string& started_at, int n, double gap, double e2e) {
    std::string out = fmt::format(R"({{"servestat":"log","version":1,"run":{{"label":"x","started_at":"{}","params":{{"concurrency":4}}}}}})"
                                  "\n",
                                  started_at);
    for (int i = 0; i < n; ++i)
        out += fmt::format(R"({{"id":"{}","t_sent":{},"t_first":{},"t_end":{},"prompt_tokens":100,"output_tokens":20,"status":"ok"}})"
                           "\n",
                           i, i * gap, i * gap + 0.1, i * gap + e2e);
    return out;
}

std::vector<run_stats> stats_of(const fs::path& dir) {
    app::stats_args a;
    a.logs = {dir.string()};
    return app::stats_of_inputs(a, app::to_stats_options(a));
}

std::optional<double> reported(const run_stats& r, std::string_view name) {
    const auto* v = find_reported(r.meta, name);
    return v ? std::optional<double>(v->value) : std::nullopt;
}

} // namespace

TEST_CASE("pods that ran at the same time are one run: counts and rates summed, means weighted, no percentiles") {
    test::temp_file base("", "unused");
    const fs::path dir = base.dir() / "j3";
    write_text(dir / "vllm-benchmark_exp1_stack_1/br.json", pod_report("2025-11-06T09:00:00Z", "2025-11-06T09:02:00Z", 200, 0, 1.6, 140, 280));
    write_text(dir / "vllm-benchmark_exp1_stack_2/br.json", pod_report("2025-11-06T09:00:01Z", "2025-11-06T09:02:02Z", 200, 1, 1.5, 150, 300));
    write_text(dir / "vllm-benchmark_exp1_stack_3/br.json", pod_report("2025-11-06T09:00:02Z", "2025-11-06T09:02:01Z", 200, 0, 1.7, 130, 260));
    const auto runs = stats_of(dir);
    REQUIRE(runs.size() == 1);
    const auto& r = runs[0];
    CHECK(r.meta.source.parts.size() == 3);
    CHECK(reported(r, "requests") == 600);
    CHECK(reported(r, "ok") == 599);
    CHECK(reported(r, "failed") == 1);
    CHECK(*reported(r, "rps") == Approx(4.8).epsilon(1e-12));
    // Over the 599 successful requests: (140·200 + 150·199 + 130·200) / 599 ms.
    CHECK(*reported(r, "ttft.mean") == Approx((0.140 * 200 + 0.150 * 199 + 0.130 * 200) / 599).epsilon(1e-12));
    CHECK_FALSE(reported(r, "ttft.p99"));
    CHECK(reported(r, "duration") == 122); // 09:00:00 to 09:02:02, the pods' windows together

    app::stats_args a;
    const auto doc = json::parse(app::stats_json_text(a, runs, app::to_stats_options(a)));
    REQUIRE(doc["design"]["combined"].size() == 1);
    CHECK(doc["design"]["combined"][0]["parts"].size() == 3);
    const std::string text = design_text(read_design(runs));
    CHECK(text.find("parts combined:") != std::string::npos);
}

TEST_CASE("parallel request logs are pooled into one run, each clock moved to the first's; runs one after another stay replicates") {
    test::temp_file base("", "unused");
    SECTION("two clients, the second started 5 s after the first: 40 requests on one clock") {
        const fs::path dir = base.dir() / "parallel";
        write_text(dir / "client_0/run.jsonl", request_log("2026-01-11T22:00:00Z", 20, 1.0, 0.5));
        write_text(dir / "client_1/run.jsonl", request_log("2026-01-11T22:00:05Z", 20, 1.0, 1.5));
        const auto runs = stats_of(dir);
        REQUIRE(runs.size() == 1);
        CHECK(runs[0].requests == 40);
        CHECK(runs[0].ok == 40);
        // First send 0, last end 5 + 19 + 1.5 = 25.5 s on the first client's clock.
        REQUIRE(runs[0].duration);
        CHECK(*runs[0].duration == Approx(25.5).epsilon(1e-12));
        // Half the requests take 0.5 s, half 1.5 s: the pooled median is their midpoint, 1.0 s.
        CHECK(*find_percentile(runs[0], "all", metric::e2e, 50) == Approx(1.0).epsilon(1e-12));
    }
    SECTION("the same two logs an hour apart are two replicates") {
        const fs::path dir = base.dir() / "sequential";
        write_text(dir / "client_0/run.jsonl", request_log("2026-01-11T22:00:00Z", 20, 1.0, 0.5));
        write_text(dir / "client_1/run.jsonl", request_log("2026-01-11T23:00:00Z", 20, 1.0, 1.5));
        const auto runs = stats_of(dir);
        REQUIRE(runs.size() == 2);
        for (const auto& r : runs) CHECK(r.meta.source.parts.empty());
    }
}

} // namespace test_parts
