// Tests for servestat/core/run_names.hpp's name_runs_apart: runs read from several inputs named by
// what sets them apart, never by a folder every run shares or a long file name.
#include "servestat/core/run_names.hpp"

#include <string> // std::string
#include <vector> // std::vector

#include <catch2/catch.hpp> // TEST_CASE, CHECK, REQUIRE

namespace test_run_names { // the unity build compiles several test files as one: each keeps its names

namespace {

using servestat::run_metadata;

run_metadata meta(std::string label, std::string path, nlohmann::json params, std::string model = "m") {
    run_metadata m;
    m.label = std::move(label);
    m.source.path = std::move(path);
    m.params = std::move(params);
    m.model = std::move(model);
    return m;
}

std::vector<std::string> named(std::vector<run_metadata>& runs) {
    std::vector<run_metadata*> pointers;
    for (auto& r : runs) pointers.push_back(&r);
    servestat::name_runs_apart(pointers);
    std::vector<std::string> out;
    for (const auto& r : runs) out.push_back(r.label);
    return out;
}

} // namespace

TEST_CASE("runs all named after a tool's folder are named by the concurrency that sets them apart") {
    std::vector<run_metadata> runs;
    for (int c : {16, 2, 64})
        runs.push_back(meta("aiperf_artifacts",
                            "sweep/agentic_tp4_conc" + std::to_string(c) + "_b200/aiperf_artifacts/profile_export.jsonl",
                            {{"concurrency", c}, {"tensor_parallel_size", 4}, {"expert_parallel_size", 1}}));
    CHECK(named(runs) == std::vector<std::string>{"c=16", "c=2", "c=64"});
}

TEST_CASE("a setting that differs comes before the load level, and models by their short name") {
    std::vector<run_metadata> runs{
        meta("dsr1_fp8_tp8_conc16_isl1024_osl1024_b200_sglang", "r/a/dsr1_fp8_tp8_conc16_isl1024_osl1024_b200_sglang.json",
             {{"concurrency", 16}, {"tensor_parallel_size", 8}}, "deepseek-ai/DeepSeek-R1"),
        meta("dsr1_fp8_tp4_conc16_isl1024_osl1024_b200_sglang", "r/a/dsr1_fp8_tp4_conc16_isl1024_osl1024_b200_sglang.json",
             {{"concurrency", 16}, {"tensor_parallel_size", 4}}, "deepseek-ai/DeepSeek-R1"),
        meta("llama70b_fp8_tp8_conc64_isl1024_osl1024_b200_sglang", "r/b/llama70b_fp8_tp8_conc64_isl1024_osl1024_b200_sglang.json",
             {{"concurrency", 64}, {"tensor_parallel_size", 8}}, "meta-llama/Llama-3.3-70B-Instruct"),
    };
    CHECK(named(runs) == std::vector<std::string>{"DeepSeek-R1 · tp8 · c=16", "DeepSeek-R1 · tp4 · c=16",
                                                  "Llama-3.3-70B-Instruct · tp8 · c=64"});
}

TEST_CASE("what every run shares names none of them") {
    std::vector<run_metadata> runs{meta("aiperf_artifacts", "x/tp8_c16_a/aiperf_artifacts/p.jsonl", {{"concurrency", 16}, {"tensor_parallel_size", 8}}),
                                   meta("aiperf_artifacts", "x/tp4_c16_b/aiperf_artifacts/p.jsonl", {{"concurrency", 16}, {"tensor_parallel_size", 4}})};
    CHECK(named(runs) == std::vector<std::string>{"tp8", "tp4"});
}

TEST_CASE("labels people gave stay when they tell the runs apart") {
    std::vector<run_metadata> runs{meta("bad-c32", "logs/one.jsonl", {{"concurrency", 32}}),
                                   meta("fair-c32", "logs/two.jsonl", {{"concurrency", 32}})};
    CHECK(named(runs) == std::vector<std::string>{"bad-c32", "fair-c32"});
}

TEST_CASE("a given label that repeats keeps its place in front of what tells the runs apart") {
    std::vector<run_metadata> runs{meta("tuned", "a/x.jsonl", {{"concurrency", 8}}),
                                   meta("tuned", "a/y.jsonl", {{"concurrency", 16}})};
    CHECK(named(runs) == std::vector<std::string>{"tuned · c=8", "tuned · c=16"});
}

TEST_CASE("without parameters that differ, the part of the path that differs names the run") {
    std::vector<run_metadata> runs{meta("results", "exp/baseline/results/out.json", {}),
                                   meta("results", "exp/chunked-prefill/results/out.json", {})};
    CHECK(named(runs) == std::vector<std::string>{"baseline", "chunked-prefill"});
}

TEST_CASE("one run under a tool's folder is named by the nearest folder that is not the tool's") {
    std::vector<run_metadata> runs{meta("aiperf_artifacts", "runs/llama-c8/aiperf_artifacts/profile_export.jsonl", {})};
    CHECK(named(runs) == std::vector<std::string>{"llama-c8"});
}

TEST_CASE("runs nothing tells apart are numbered") {
    std::vector<run_metadata> runs{meta("results", "a/results/x.json", {}), meta("results", "a/results/x.json", {})};
    CHECK(named(runs) == std::vector<std::string>{"x #1", "x #2"});
}

} // namespace test_run_names
