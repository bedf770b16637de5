// Tests for servestat/ingest/llmd_benchmark_report.hpp: llm-d-benchmark's Benchmark Report v0.2 and
// v0.2.1, one summary run per report. The fixtures (tests/data/llmd_report/, made by
// tests/tools/make_inference_perf_fixtures.py as llm-d-benchmark's native_to_br0_2.py converts
// inference-perf and vLLM results) give the expected numbers; ms values are divided by 1000 here.
#include "servestat/ingest/llmd_benchmark_report.hpp"

#include <optional>    // std::optional
#include <string>      // std::string
#include <string_view> // std::string_view
#include <vector>      // std::vector

#include "servestat/ingest/detect.hpp" // detect_file_format, detect_format, read_logs
#include "servestat/sweep/sweep.hpp"   // find_sweeps, sweep_value

#include "format_reading.hpp" // read_one, read_error
#include "temp_file.hpp"

#include <catch2/catch.hpp> // TEST_CASE, CHECK, REQUIRE

namespace test_ingest_llmd_report { // the unity build compiles several test files as one: each keeps its names

namespace {

using servestat::test::has_note;
using servestat::test::reported;

using servestat::input_error;
using servestat::run;
using servestat::test::temp_file;

std::string data(std::string_view name) { return std::string(SERVESTAT_TEST_DATA_DIR) + "/llmd_report/" + std::string(name); }

run read_detected(const std::filesystem::path& path) {
    const auto& format = servestat::detect_file_format(path);
    REQUIRE(format.name == "llmd-benchmark-report");
    return servestat::test::read_one(format, path);
}

// A small report of `tool` with one latency statistic, for the mapping and bad-input cases.
std::string report_json(std::string_view version, std::string_view tool, std::string_view latency) {
    return "{\"version\": \"" + std::string(version) + "\", \"run\": {\"uid\": \"u1\"},\n"
           " \"scenario\": {\"load\": {\"standardized\": {\"tool\": \"" + std::string(tool) +
           "\", \"rate_qps\": 2.0, \"source\": \"random\", \"input_seq_len\": {\"distribution\": \"fixed\", \"value\": 100}}}},\n"
           " \"results\": {\"request_performance\": {\"aggregate\": {\"requests\": {\"total\": 10, \"failures\": 1},\n"
           " \"latency\": " + std::string(latency) + "}}}}\n";
}

input_error error_of(const std::string& text, std::string_view name = "report.json") {
    const temp_file file(text, name);
    const auto& format = servestat::detect_file_format(file.path());
    REQUIRE(format.name == "llmd-benchmark-report");
    return servestat::test::read_error(format, file.path());
}

} // namespace

TEST_CASE("a Benchmark Report converted from inference-perf is a summary run at its stage's rate", "[llmd-report]") {
    const run r = read_detected(data("br_inference_perf_stage_3.json"));
    CHECK(r.meta.kind == servestat::run_kind::summary);
    CHECK(r.meta.params == nlohmann::json{{"request_rate", 6.0}});
    CHECK(r.meta.model == "Qwen/Qwen3-0.6B");
    CHECK(r.meta.tool == "inference-perf 0.3.0");
    CHECK(r.meta.started_at == "2025-11-05T18:03:00Z");
    CHECK(has_note(r, "llm-d Benchmark Report v0.2 converted from inference-perf results (load stage 3)"));
    CHECK(reported(r, "requests") == 90);
    CHECK(reported(r, "ok") == 90);
    CHECK(reported(r, "failed") == 0);
    CHECK(reported(r, "ttft.p99") == 0.36517268074616593);
    CHECK(reported(r, "ttft.p0.1") == 0.06434414384225556);  // p0p1
    CHECK(reported(r, "ttft.p99.9") == 0.36562470915983275); // p99p9
    CHECK(reported(r, "tpot.p50") == 0.026010431113387626);
    CHECK(reported(r, "rps") == 5.4957189581338275);
    CHECK(reported(r, "output_tps") == 222.2713000845237);
    CHECK(reported(r, "total_tps") == 1293.5701156567445);
    CHECK(reported(r, "prompt_tokens.mean") == 194.93333333333334);
    CHECK(reported(r, "output_tokens.p50") == 40.0);
    // inference-perf's definitions of these differ from servestat's: kept under its name.
    CHECK(reported(r, "inference_perf.inter_token_latency.mean") == 0.025967691070554216);
    CHECK(reported(r, "inference_perf.request_latency.p90") == 1.653031207837853);
    CHECK(reported(r, "inference_perf.normalized_time_per_output_token.max") == 0.04086403509864161);
    CHECK_FALSE(reported(r, "e2e.p90").has_value());
    CHECK_FALSE(reported(r, "itl.mean").has_value());
}

TEST_CASE("a v0.2.1 report from vLLM's benchmark has its milliseconds converted to seconds", "[llmd-report]") {
    const run r = read_detected(data("br_vllm_benchmark_c16.json"));
    CHECK(r.meta.params == nlohmann::json{{"concurrency", 16}});
    CHECK(r.meta.model == "meta-llama/Llama-3.1-8B-Instruct");
    CHECK(r.meta.tool == "vllm-benchmark 0.11.0");
    CHECK(has_note(r, "Benchmark Report v0.2.1"));
    CHECK(reported(r, "requests") == 400);
    CHECK(reported(r, "ok") == 398);
    CHECK(reported(r, "failed") == 2);
    CHECK(reported(r, "ttft.mean") == 142.61 / 1000);
    CHECK(reported(r, "ttft.std") == 38.25 / 1000);
    CHECK(reported(r, "ttft.p99") == 288.9 / 1000);
    CHECK(reported(r, "tpot.p90") == 13.02 / 1000); // ms/token
    CHECK(reported(r, "itl.p99") == 25.31 / 1000);  // vLLM's ITL pools chunk gaps, as servestat's
    CHECK(reported(r, "e2e.p99") == 3902.75 / 1000); // vLLM's E2EL ends at the last token
    CHECK(reported(r, "rps") == 5.0247);
    CHECK(reported(r, "output_tps") == 1285.33);
    CHECK(reported(r, "output_tokens.mean") == 255.42);
}

TEST_CASE("a Benchmark Report's names follow what its tool measured, not the schema's field", "[llmd-report]") {
    const std::string latency = R"({"time_to_first_token": {"units": "ms", "mean": 250.0},
 "time_per_output_token": {"units": "ms/token", "mean": 30.0, "p50": 28.0},
 "request_latency": {"units": "s", "mean": 4.5}})";
    SECTION("GuideLLM's time_per_output_token includes the TTFT and its request_latency ends after [DONE]") {
        const temp_file file(report_json("0.2", "guidellm", latency), "guidellm.json");
        const run r = read_detected(file.path());
        CHECK(reported(r, "ttft.mean") == 0.25);
        CHECK(reported(r, "guidellm.time_per_output_token.p50") == 28.0 / 1000);
        CHECK(reported(r, "guidellm.request_latency.mean") == 4.5);
        CHECK_FALSE(reported(r, "tpot.mean").has_value());
        CHECK_FALSE(reported(r, "e2e.mean").has_value());
    }
    SECTION("a tool servestat does not know keeps every latency under llmd.*") {
        const temp_file file(report_json("0.2", "aiperf", latency), "aiperf.json");
        const run r = read_detected(file.path());
        CHECK(reported(r, "llmd.time_to_first_token.mean") == 0.25);
        CHECK(reported(r, "llmd.time_per_output_token.mean") == 30.0 / 1000);
        CHECK_FALSE(reported(r, "ttft.mean").has_value());
        CHECK(has_note(r, "servestat does not know"));
    }
}

TEST_CASE("a directory of Benchmark Reports is a sweep over their rate, apart from the vLLM report", "[llmd-report]") {
    const auto runs = servestat::read_logs(std::vector<std::string>{data("")});
    REQUIRE(runs.size() == 5);
    std::vector<servestat::run_stats> stats;
    for (const auto& r : runs) stats.push_back(servestat::analyze(r));
    const auto sweeps = servestat::find_sweeps(stats, {.by = "request_rate"});
    REQUIRE(sweeps.size() == 1);
    REQUIRE(sweeps[0].points.size() == 4);
    const double expected_ttft_p99[] = {0.1212517415473826, 0.1127054737181868, 0.18723772198794436,
                                        0.36517268074616593};
    for (std::size_t i = 0; i < 4; ++i) {
        CHECK(sweeps[0].points[i].load == std::vector<double>{1, 2, 4, 6}[i]);
        CHECK(servestat::sweep_value(stats[sweeps[0].points[i].run], "ttft.p99") == expected_ttft_p99[i]);
    }
}

TEST_CASE("an unsupported Benchmark Report version names the version found and those read", "[llmd-report]") {
    // Version 0.1: scenario and metrics at the top level (br_v0_1_example.yaml's layout).
    const input_error e = error_of(R"({"version": "0.1", "scenario": {"platform": {}, "load": {}},
 "metrics": {"time": {"duration": 10.0}, "requests": {"total": 5}}})");
    CHECK(e.field() == "version");
    CHECK(std::string(e.what()).find("version 0.1 found; servestat reads versions 0.2 and 0.2.1") != std::string::npos);
}

std::string yaml_data(std::string_view name) {
    return std::string(SERVESTAT_TEST_DATA_DIR) + "/llmd_report_yaml/" + std::string(name);
}

std::string partial_data(std::string_view name) {
    return std::string(SERVESTAT_TEST_DATA_DIR) + "/inference_perf/" + std::string(name);
}

// Two readings of one report agree on everything a run shows but where it was read from.
void check_same_run(const run& a, const run& b) {
    CHECK(a.meta.params == b.meta.params);
    CHECK(a.meta.model == b.meta.model);
    CHECK(a.meta.tool == b.meta.tool);
    CHECK(a.meta.started_at == b.meta.started_at);
    CHECK(a.meta.notes == b.meta.notes);
    REQUIRE(a.meta.reported.size() == b.meta.reported.size());
    for (std::size_t i = 0; i < a.meta.reported.size(); ++i) {
        INFO(a.meta.reported[i].name);
        CHECK(a.meta.reported[i].name == b.meta.reported[i].name);
        CHECK(a.meta.reported[i].value == b.meta.reported[i].value); // exactly: the same doubles
        CHECK(a.meta.reported[i].unit == b.meta.reported[i].unit);
    }
}

TEST_CASE("llm-d-benchmark's example reports in YAML give the same runs as their JSON twins", "[llmd-report]") {
    // Copied from llm-d/llm-d-benchmark (README.md there); the JSON twins are PyYAML's reading.
    for (const std::string_view name : {"br_v0_2_example", "br_v0_2_1_example"}) {
        INFO(name);
        const run from_yaml = read_detected(yaml_data(std::string(name) + ".yaml"));
        const run from_json = read_detected(yaml_data(std::string(name) + ".json"));
        check_same_run(from_yaml, from_json);
    }
    // The v0.2 example is written by hand: comments, a quoted version, an unquoted timestamp (a
    // string: YAML 1.2 has no timestamp type) and `concurrency: .inf`.
    const run r = read_detected(yaml_data("br_v0_2_example.yaml"));
    CHECK(r.meta.params == nlohmann::json{{"concurrency", "inf"}, {"request_rate", 10.0}});
    CHECK(r.meta.started_at == "2025-11-05T18:00:42Z");
    CHECK(r.meta.tool == "inference-perf 0.3.0");
    CHECK(r.meta.model == "Qwen/Qwen3-0.6B");
    CHECK(has_note(r, "Concurrency is unbounded"));
    CHECK(reported(r, "requests") == 500);
    CHECK(reported(r, "ok") == 500);
    CHECK(reported(r, "prompt_tokens.p0.1") == 2223.998);
    CHECK(reported(r, "ttft.p99.9") == 0.057014757215045425);
    const run r21 = read_detected(yaml_data("br_v0_2_1_example.yaml"));
    CHECK(has_note(r21, "Benchmark Report v0.2.1"));
    CHECK(reported(r21, "ttft.p50") == 0.03622930939309299);
}

TEST_CASE("a report saved as YAML gives the numbers of the same report saved as JSON", "[llmd-report]") {
    // br_inference_perf_stage_3.yaml is br_inference_perf_stage_3.json through yaml.dump.
    check_same_run(read_detected(yaml_data("br_inference_perf_stage_3.yaml")),
                   read_detected(data("br_inference_perf_stage_3.json")));
}

TEST_CASE("a YAML report whose results fill what detection sees is still recognised", "[llmd-report]") {
    // yaml.dump sorts the keys: scenario and version come after long observability time series.
    std::string yaml = "results:\n  request_performance:\n    aggregate:\n      requests:\n        total: 10\n"
                       "  observability:\n    components:\n";
    while (yaml.size() < 70 * 1024) yaml += "    - component_label: vllm-svc-0\n      raw_data_path: /metrics/raw/vllm-svc-0\n";
    yaml += "run:\n  uid: 38b1f169\nscenario:\n  load: {}\nversion: '0.2'\n";
    const temp_file file(yaml, "benchmark_report.yaml");
    const run r = read_detected(file.path());
    CHECK(reported(r, "requests") == 10);
    CHECK(has_note(r, "Benchmark Report v0.2"));
}

TEST_CASE("inference-perf's partial reports are its stages' runs, one experiment by run.eid", "[llmd-report]") {
    for (int stage = 0; stage < 4; ++stage) {
        const std::string name = "inference-perf.partial.stage_" + std::to_string(stage);
        INFO(name);
        const run r = read_detected(partial_data("partial/" + name + ".yaml"));
        CHECK(r.meta.tool == "inference-perf");
        CHECK(r.meta.params == nlohmann::json{{"stage", stage}});
        CHECK(has_note(r, "run.eid inference-perf-experiment-5b2e9d17"));
        CHECK(r.meta.started_at == "2026-05-20T14:3" + std::to_string(stage) + ":12.123000+00:00");
        CHECK(has_note(r, "(load stage " + std::to_string(stage) + ")"));
        CHECK(has_note(r, "inference-perf's partial report"));
        // The stage's numbers as the full report converted from the same stage has them.
        const std::string full_name = "br_inference_perf_stage_" + std::to_string(stage) + ".json";
        const run full = read_detected((data)(full_name)); // parenthesised: no std::data by ADL
        for (const char* stat : {"requests", "ok", "failed", "ttft.p99", "ttft.p0.1", "tpot.p50", "rps", "output_tps",
                                 "prompt_tokens.mean", "inference_perf.request_latency.p90"})
            CHECK(reported(r, stat) == reported(full, stat));
        // And its JSON twin gives the same run.
        check_same_run(r, read_detected(partial_data("partial_json/" + name + ".json")));
    }
    const run r3 = read_detected(partial_data("partial/inference-perf.partial.stage_3.yaml"));
    CHECK(reported(r3, "ttft.p99") == 0.36517268074616593); // stage_3_lifecycle_metrics.json's p99 TTFT
}

TEST_CASE("an inference-perf partial names its stage by run.uid when renamed; its config is no report",
          "[llmd-report]") {
    const std::string partial = "results:\n  request_performance:\n    aggregate:\n      requests:\n        total: 10\n"
                                "        failures: 1\nrun:\n  eid: inference-perf-experiment-1\n"
                                "  uid: inference-perf-stage-2-1a2b3c4d\nversion: 0.2.1\n";
    CHECK(servestat::detail::sniff_llmd_report(partial) == 60);
    const temp_file file(partial, "stage_two.yaml");
    const run r = read_detected(file.path());
    CHECK(r.meta.params["stage"] == 2);
    CHECK(reported(r, "failed") == 1);
    const std::string config = "load:\n  type: constant\n  stages:\n  - rate: 1.0\n    duration: 30\nserver:\n"
                               "  type: vllm\n  model_name: Qwen/Qwen3-0.6B\n";
    CHECK(servestat::detail::sniff_llmd_report(config) == 0);
}

TEST_CASE("a bad field of a YAML report is named with its own line", "[llmd-report]") {
    const std::string yaml = "results:\n  request_performance:\n    aggregate:\n      latency:\n"
                             "        time_to_first_token:\n          mean: fast\n          units: s\n"
                             "      requests:\n        total: 10\nrun:\n  uid: u1\nscenario:\n  load:\n"
                             "    standardized:\n      tool: vllm-benchmark\nversion: '0.2'\n";
    const input_error e = error_of(yaml, "report.yaml");
    CHECK(e.field() == "results.request_performance.aggregate.latency.time_to_first_token.mean");
    CHECK(e.line() == 6);
    const input_error version = error_of("version: 0.1\nrun: {}\nscenario: {}\nresults: {}\n", "report.yaml");
    CHECK(version.field() == "version");
    CHECK(version.line() == 1);
    CHECK(version.reason().find("version 0.1 found") != std::string::npos);
}

TEST_CASE("a non-finite statistic in a Benchmark Report: Infinity is refused as such, NaN left out and noted",
          "[llmd-report]") {
    const std::string field = "results.request_performance.aggregate.latency.time_to_first_token.mean";
    // The same report as JSON (json.dump's words) and YAML (yaml.dump's).
    const auto json_report = [](std::string_view mean) {
        return report_json("0.2", "guidellm",
                           R"({"time_to_first_token": {"units": "ms", "mean": )" + std::string(mean) + R"(, "p50": 240.0}})");
    };
    const auto yaml_report = [](std::string_view mean) {
        return "results:\n  request_performance:\n    aggregate:\n      latency:\n        time_to_first_token:\n"
               "          mean: " + std::string(mean) + "\n          p50: 240.0\n          units: ms\n      requests:\n"
               "        total: 10\nrun:\n  uid: u1\nscenario:\n  load:\n    standardized:\n      tool: guidellm\n"
               "version: '0.2'\n";
    };
    for (const auto& [text, name] : {std::pair{json_report("Infinity"), "report.json"},
                                     std::pair{yaml_report(".inf"), "report.yaml"}}) {
        INFO(name);
        const input_error e = error_of(text, name);
        CHECK(e.field() == field);
        CHECK(e.reason() == "Infinity where a finite number is required");
    }
    for (const auto& [text, name] : {std::pair{json_report("NaN"), "report.json"},
                                     std::pair{yaml_report(".nan"), "report.yaml"}}) {
        INFO(name);
        const temp_file file(text, name);
        const run r = read_detected(file.path());
        CHECK_FALSE(reported(r, "ttft.mean").has_value());
        CHECK(reported(r, "ttft.p50") == 0.24);
        CHECK(has_note(r, "NaN in field " + field + " read as missing"));
    }
}

TEST_CASE("a wrong type or unit in a Benchmark Report names the file and the field", "[llmd-report]") {
    {
        const input_error e = error_of(report_json("0.2", "vllm-benchmark", R"({"time_to_first_token": {"units": "ms", "mean": "fast"}})"));
        CHECK(e.field() == "results.request_performance.aggregate.latency.time_to_first_token.mean");
        CHECK(std::string(e.what()).find("expected a number, got string") != std::string::npos);
        CHECK_FALSE(e.file().empty());
    }
    {
        const input_error e = error_of(report_json("0.2", "vllm-benchmark", R"({"request_latency": {"units": "tokens/s", "mean": 1.0}})"));
        CHECK(e.field() == "results.request_performance.aggregate.latency.request_latency.units");
    }
    {
        const input_error e = error_of(report_json("0.2", "vllm-benchmark", R"({"time_to_first_token": {"mean": 1.0}})"));
        CHECK(e.field() == "results.request_performance.aggregate.latency.time_to_first_token.units");
    }
    {
        const input_error e = error_of(R"({"version": "0.2", "run": {"uid": "u"}, "scenario": {"load": {"standardized":
 {"tool": "vllm-benchmark", "concurrency": 2.5}}}, "results": {}})");
        CHECK(e.field() == "scenario.load.standardized.concurrency");
    }
}

TEST_CASE("the schema's infinite concurrency is kept as the parameter inf", "[llmd-report]") {
    // BenchmarkReport.export_json writes float("inf") as Python's bare Infinity.
    const temp_file file(R"({"version": "0.2", "run": {"uid": "u"}, "scenario": {"load": {"standardized":
 {"tool": "inference-perf", "rate_qps": 10.0, "concurrency": Infinity}}}, "results": {"request_performance":
 {"aggregate": {"requests": {"total": 3, "failures": 0}}}}})",
                         "inf.json");
    const run r = read_detected(file.path());
    CHECK(r.meta.params == nlohmann::json{{"concurrency", "inf"}, {"request_rate", 10.0}});
    CHECK(has_note(r, "unbounded"));
}

} // namespace test_ingest_llmd_report
