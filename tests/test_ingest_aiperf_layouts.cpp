// Tests for AIPerf's layouts that no real file in reach shows (aiperf.hpp, aiperf_summary.hpp,
// aiperf_phases.hpp, aiperf_multi_run.hpp, aiperf_report_v2.hpp): profile_export_aiperf.json of
// schema 1.2-1.5, named phase folders, the files across runs and the v2 report. Each fixture is
// written here in the layout AIPerf's documentation gives (docs/reference/json-export-schema.md,
// docs/tutorials/multi-phase-workflows.md, docs/tutorials/multi-run-confidence.md,
// docs/api/sweep-aggregates.md); the expected values are the fixtures' own numbers.
#include "servestat/ingest/aiperf.hpp"
#include "servestat/ingest/aiperf_multi_run.hpp"
#include "servestat/ingest/aiperf_report_v2.hpp"
#include "servestat/ingest/aiperf_summary.hpp"
#include "servestat/ingest/detect.hpp"

#include <filesystem>  // std::filesystem
#include <fstream>     // std::ofstream
#include <string>      // std::string
#include <string_view> // std::string_view
#include <vector>      // std::vector

#include "format_reading.hpp"
#include "temp_file.hpp"

#include <catch2/catch.hpp> // TEST_CASE, REQUIRE, CHECK

namespace test_ingest_aiperf_layouts { // the unity build compiles several test files as one

namespace {

namespace fs = std::filesystem;
using servestat::test::has_note;
using servestat::test::read_error;
using servestat::test::read_one;
using servestat::test::reported;
using servestat::test::temp_file;

// A schema 1.5 aggregate: the json-export-schema.md example (request_latency of 20 requests), with
// run_info, warmup_metrics, a full_* block, NVIDIA telemetry and an invalid submission.
constexpr std::string_view schema_1_5 = R"({
  "schema_version": "1.5",
  "aiperf_version": "0.14.0",
  "benchmark_id": "abc123def456",
  "request_latency": {"unit": "ms", "avg": 2620.71, "min": 2145.06, "max": 3411.10, "p50": 2568.73,
                      "p99": 3371.24, "std": 297.93, "count": 20, "sum": 52414.29},
  "request_throughput": {"unit": "requests/sec", "avg": 1.45},
  "request_count": {"unit": "requests", "avg": 20.0},
  "benchmark_duration": {"unit": "sec", "avg": 13.79},
  "full_decode_duration": {"unit": "ms", "avg": 2400.5, "p50": 2390.0, "count": 20, "sum": 48010.0},
  "osl_mismatch_diff_pct": {"unit": "%", "avg": -1.5, "min": -3.0, "max": 0.0, "count": 20},
  "warmup_metrics": {"request_latency": {"unit": "ms", "avg": 9000.0, "p50": 9000.0, "count": 5}},
  "telemetry_data": {"summary": {"start_time": "2026-01-01T00:00:00", "end_time": "2026-01-01T00:00:14"},
    "endpoints": {"localhost:9400": {"gpus": {"gpu_0": {"gpu_index": 0, "gpu_name": "NVIDIA H100",
      "gpu_uuid": "GPU-1", "platform": "nvidia", "hostname": null,
      "metrics": {"nvidia_power_usage": {"unit": "W", "avg": 310.0}}}}}}},
  "input_config": {"endpoint": {"model_names": ["meta-llama/Llama-3.1-8B-Instruct"], "type": "chat",
                                "streaming": true},
                   "loadgen": {"request_count": 500}},
  "run_info": {"benchmark_id": "abc123def456", "sweep_id": "8c4f9a2e-1234-4567-89ab-0123456789ab",
               "random_seed": 44, "trial": 0, "run_label": "run_0001", "variation_label": "concurrency_40",
               "variation_index": 2, "variation_values": {"phases.profiling.concurrency": 40},
               "cli_command": "aiperf profile --model meta-llama/Llama-3.1-8B-Instruct --request-count 500"},
  "error_summary": [],
  "runtime_submission_invalid_reasons": ["context_overflow_rate"],
  "was_cancelled": false
})";

void write(const fs::path& file, std::string_view text) {
    fs::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << text;
}

// One profiling record (AIPerf ≥ 0.8 metadata), its phase and times in ns from an epoch base.
std::string record(std::string_view phase, long long start_ms, long long latency_ms, long long ttft_ms) {
    const long long base = 1780000000000000000LL;
    return "{\"metadata\":{\"x_request_id\":\"r\",\"request_start_ns\":" + std::to_string(base + start_ms * 1000000) +
           ",\"request_end_ns\":" + std::to_string(base + (start_ms + latency_ms) * 1000000) +
           ",\"benchmark_phase\":\"" + std::string(phase) + "\",\"was_cancelled\":false},\"metrics\":{" +
           "\"request_latency\":{\"value\":" + std::to_string(latency_ms) + ".0,\"unit\":\"ms\"}," +
           "\"time_to_first_token\":{\"value\":" + std::to_string(ttft_ms) + ".0,\"unit\":\"ms\"}," +
           "\"input_sequence_length\":{\"value\":100,\"unit\":\"tokens\"}," +
           "\"output_sequence_length\":{\"value\":10,\"unit\":\"tokens\"}}}\n";
}

} // namespace

TEST_CASE("a schema 1.5 AIPerf aggregate reads its metrics, run_info and sections") {
    temp_file file(schema_1_5, "profile_export_aiperf.json");
    CHECK(servestat::detect_format(servestat::test::file_head(file.path()))->name == "aiperf-summary");
    const servestat::run run = read_one(servestat::aiperf_summary_format, file.path());
    CHECK(run.meta.kind == servestat::run_kind::summary);
    CHECK(run.meta.tool == "aiperf 0.14.0");
    CHECK(run.meta.model == "meta-llama/Llama-3.1-8B-Instruct");
    CHECK(reported(run, "e2e.p50") == 2568.73 / 1e3);
    CHECK(reported(run, "e2e.n") == 20);
    CHECK(reported(run, "e2e.sum") == 52414.29 / 1e3);
    CHECK(reported(run, "rps") == 1.45);
    CHECK(reported(run, "ok") == 20);
    CHECK(reported(run, "duration") == 13.79);
    CHECK(reported(run, "aiperf.full_decode_duration.p50") == 2390.0);
    CHECK(reported(run, "aiperf.osl_mismatch_diff_pct.min") == -3.0); // signed, kept as written
    // Warm-up is never measured data: its 9000 ms latency is nowhere among the values.
    for (const auto& v : run.meta.reported) CHECK(v.value != 9.0);
    CHECK(has_note(run, "warmup_metrics (1 metrics of AIPerf's warm-up requests) left out"));
    CHECK(has_note(run, "telemetry_data (GPU telemetry) of 1 GPU (1 × NVIDIA H100) from 1 endpoint is not read"));
    CHECK(has_note(run, "AIPerf marks this run's submission invalid: context_overflow_rate."));
    // run_info: the seed, the trial, the sweep's coordinates by their last path component.
    CHECK(run.meta.params["random_seed"] == 44);
    CHECK(run.meta.params["trial"] == 0);
    CHECK(run.meta.params["concurrency"] == 40);
    CHECK(run.meta.params["request_count"] == 500); // as configured
    CHECK(has_note(run, "sweep_id 8c4f9a2e-1234-4567-89ab-0123456789ab, run_label run_0001"));
    CHECK(has_note(run, "AIPerf command: aiperf profile --model meta-llama/Llama-3.1-8B-Instruct --request-count 500"));
}

TEST_CASE("input_config's concurrency wins over run_info's coordinates") {
    std::string text(schema_1_5);
    text.replace(text.find("\"request_count\": 500"), 20, "\"concurrency\": 8");
    temp_file file(text, "profile_export_aiperf.json");
    CHECK(read_one(servestat::aiperf_summary_format, file.path()).meta.params["concurrency"] == 8);
}

TEST_CASE("a flat summary without AIPerf's marks (GenAI-Perf's layout) is not claimed as AIPerf") {
    const std::string genai = R"({"request_latency": {"unit": "ms", "avg": 10.0, "p50": 9.0},
        "request_throughput": {"unit": "requests/sec", "avg": 2.0}, "input_config": {"model": ["m"]}})";
    CHECK(servestat::aiperf_summary_format.sniff(genai) == 0);
    // AIPerf 0.2, before schema_version, is told by its input_config.
    const std::string early = R"({"request_latency": {"unit": "ms", "avg": 10.0, "p50": 9.0},
        "input_config": {"endpoint": {"model_names": ["m"]}}})";
    CHECK(servestat::aiperf_summary_format.sniff(early) == 90);
}

TEST_CASE("a schema 1.x aggregate with no metric block names what is missing") {
    temp_file file(R"({"schema_version": "1.2", "aiperf_version": "0.9.0", "input_config": {}})",
                   "profile_export_aiperf.json");
    CHECK(std::string(read_error(servestat::aiperf_summary_format, file.path()).what()).find("no metric blocks") !=
          std::string::npos);
}

TEST_CASE("records joined with their aggregate: warm-up left out, and AIPerf's own duration said") {
    temp_file records(record("warmup", 0, 500, 100) + record("profiling", 1000, 2000, 300) +
                          record("profiling", 1500, 2500, 400),
                      "profile_export.jsonl");
    // benchmark_duration 10 s where the records span 1.0 → 4.0 s (AIPerf's profiling window).
    write(records.dir() / "profile_export_aiperf.json",
          R"({"schema_version": "1.4", "aiperf_version": "0.13.0",
              "request_count": {"unit": "requests", "avg": 2.0},
              "benchmark_duration": {"unit": "sec", "avg": 10.0},
              "request_throughput": {"unit": "requests/sec", "avg": 0.2},
              "input_config": {"endpoint": {"model_names": ["m"]},
                               "loadgen": {"concurrency": 2, "request_rate": 4.5},
                               "input": {"prompt": {"input_tokens": {"mean": 100}, "output_tokens": {"mean": 10}}}}})");
    const servestat::run run = read_one(servestat::aiperf_format, records.path());
    REQUIRE(run.requests.size() == 2);
    CHECK(has_note(run, "1 warmup records were left out"));
    CHECK(run.requests.row(0).t_sent == 0.0);
    CHECK(run.requests.row(1).t_end == 3.0);
    CHECK(run.meta.params["concurrency"] == 2);
    CHECK(run.meta.params["request_rate"] == 4.5);
    CHECK(run.meta.params["isl"] == 100);
    CHECK(run.meta.params["osl"] == 10);
    CHECK(reported(run, "rps") == 0.2);
    CHECK(has_note(run, "AIPerf's rates (rps, output_tps) divide by its benchmark_duration, 10 s; servestat's divide "
                        "by the span of the records, 3 s"));
    REQUIRE(run.meta.source.merged.size() == 1);
    CHECK(run.meta.source.merged[0] == (records.dir() / "profile_export_aiperf.json").string());
}

TEST_CASE("records with only the aggregate CSV beside them take its values and list it") {
    temp_file records(record("profiling", 0, 1000, 100), "profile_export.jsonl");
    write(records.dir() / "profile_export_aiperf.csv",
          "Metric,avg,min,max,sum,p1,p5,p10,p25,p50,p75,p90,p95,p99,std\n"
          "Request Latency (ms),1000.00,1000.00,1000.00,1000.00,1000.00,1000.00,1000.00,1000.00,1000.00,"
          "1000.00,1000.00,1000.00,1000.00,0.00\n\nMetric,Value\nRequest Count,1.00\n\n\n"
          "Endpoint,GPU_Index,GPU_Name,GPU_UUID,Metric,avg,min,max,sum,p1,p5,p10,p25,p50,p75,p90,p95,p99,std\n"
          "localhost:9400,0,H100,GPU-1,GPU Power Usage (W),300.00,,,,,,,,,,,,,\n");
    const servestat::run run = read_one(servestat::aiperf_format, records.path());
    CHECK(reported(run, "e2e.p50") == 1.0);
    CHECK(reported(run, "ok") == 1);
    CHECK(has_note(run, "The GPU telemetry table (1 rows) is not read."));
    REQUIRE(run.meta.source.merged.size() == 1);
    CHECK(run.meta.source.merged[0] == (records.dir() / "profile_export_aiperf.csv").string());
}

namespace {

// An artifact directory with named phases: the root exports, phase_manifest.json and one aggregate
// per phase (multi-phase-workflows.md's layout).
struct phased_run {
    temp_file records{record("profiling", 0, 1000, 100), "profile_export.jsonl"};
    fs::path root = records.dir();
    explicit phased_run(const std::vector<std::pair<std::string, std::string>>& phases) {
        write(root / "profile_export_aiperf.json", schema_1_5);
        std::string manifest = R"({"phases": [)";
        for (std::size_t i = 0; i < phases.size(); ++i) {
            const auto& [name, kind] = phases[i];
            write(root / "phases" / name / "profile_export_aiperf.json", schema_1_5);
            write(root / "phases" / name / "profile_export_aiperf.csv", "Metric,Value\nRequest Count,20.00\n");
            manifest += std::string(i ? "," : "") + R"({"phase_index": )" + std::to_string(i) +
                        R"(, "phase_name": ")" + name + R"(", "phase_kind": ")" + kind +
                        R"(", "metrics_json": "phases/)" + name + R"(/profile_export_aiperf.json", "metrics_csv": "phases/)" +
                        name + R"(/profile_export_aiperf.csv"})";
        }
        write(root / "phase_manifest.json", manifest + "]}");
    }
    fs::path phase_file(const std::string& name) const { return root / "phases" / name / "profile_export_aiperf.json"; }
};

bool lists(const servestat::run& r, const fs::path& file) {
    for (const auto& m : r.meta.source.merged)
        if (fs::path(m).lexically_normal() == file.lexically_normal()) return true;
    return false;
}

} // namespace

TEST_CASE("with one profiling phase, its folder is the root export's copy: one run, warm-up never counted") {
    const phased_run dir({{"warmup", "warmup"}, {"profiling", "profiling"}});
    const servestat::run run = read_one(servestat::aiperf_format, dir.records.path());
    for (const char* phase : {"warmup", "profiling"}) {
        CHECK(lists(run, dir.phase_file(phase)));
        CHECK(lists(run, dir.root / "phases" / phase / "profile_export_aiperf.csv"));
    }
    CHECK(has_note(run, "phases/profiling/ is its copy, not a second run"));
    CHECK(has_note(run, "warm-up (warmup) is never counted"));
    // The root aggregate read alone claims the same copies, and its CSV.
    const servestat::run summary = read_one(servestat::aiperf_summary_format, dir.root / "profile_export_aiperf.json");
    CHECK(lists(summary, dir.phase_file("profiling")));
    CHECK(lists(summary, dir.phase_file("warmup")));
}

TEST_CASE("a phase's own aggregate names its phase; a warm-up phase's lists itself") {
    const phased_run dir({{"warmup", "warmup"}, {"profiling", "profiling"}});
    const servestat::run profiling = read_one(servestat::aiperf_summary_format, dir.phase_file("profiling"));
    CHECK(profiling.meta.params["phase"] == "profiling");
    CHECK_FALSE(lists(profiling, dir.phase_file("profiling")));
    const servestat::run warmup = read_one(servestat::aiperf_summary_format, dir.phase_file("warmup"));
    CHECK(warmup.meta.params["phase"] == "warmup");
    CHECK(lists(warmup, dir.phase_file("warmup"))); // a folder read leaves it out
    CHECK(has_note(warmup, "never measured data"));
    const servestat::run warmup_csv =
        read_one(servestat::aiperf_summary_csv_format, dir.root / "phases" / "warmup" / "profile_export_aiperf.csv");
    CHECK(lists(warmup_csv, dir.root / "phases" / "warmup" / "profile_export_aiperf.csv"));
}

TEST_CASE("with several profiling phases, each phase's aggregate is a run of its own") {
    const phased_run dir({{"warmup", "warmup"}, {"baseline_traffic", "profiling"}, {"cancellation_stress", "profiling"}});
    const servestat::run run = read_one(servestat::aiperf_format, dir.records.path());
    CHECK(lists(run, dir.phase_file("warmup")));
    CHECK_FALSE(lists(run, dir.phase_file("baseline_traffic")));
    CHECK_FALSE(lists(run, dir.phase_file("cancellation_stress")));
    CHECK(has_note(run, "each profiling phase's own aggregate is a run of its own"));
    const servestat::run stress = read_one(servestat::aiperf_summary_format, dir.phase_file("cancellation_stress"));
    CHECK(stress.meta.params["phase"] == "cancellation_stress");
    CHECK(has_note(stress, "profiling phase cancellation_stress alone"));
}

TEST_CASE("AIPerf's confidence aggregate across runs is one summary run of AIPerf's values") {
    temp_file file(R"({
  "schema_version": "1.0", "aiperf_version": "0.6.0",
  "metadata": {"aggregation_type": "confidence", "num_profile_runs": 5, "num_successful_runs": 4,
               "failed_runs": [{"label": "run_0003", "error": "Connection timeout"}],
               "confidence_level": 0.95, "run_labels": ["run_0001", "run_0002", "run_0004", "run_0005"]},
  "metrics": {
    "request_throughput_avg": {"mean": 255.4, "std": 12.3, "min": 240.1, "max": 270.2, "cv": 0.048, "se": 5.5,
                               "ci_low": 243.2, "ci_high": 267.6, "t_critical": 2.776, "unit": "requests/sec"},
    "time_to_first_token_p99": {"mean": 152.7, "std": 12.4, "min": 138.2, "max": 168.9, "cv": 0.081, "se": 5.55,
                                "ci_low": 140.3, "ci_high": 165.1, "t_critical": 2.776, "unit": "ms"}}})",
                   "profile_export_aiperf_aggregate.json");
    CHECK(servestat::detect_format(servestat::test::file_head(file.path()))->name == "aiperf-multi-run");
    const servestat::run run = read_one(servestat::aiperf_multi_run_format, file.path());
    CHECK(run.meta.kind == servestat::run_kind::summary);
    CHECK(run.meta.tool == "aiperf 0.6.0");
    CHECK(run.meta.params["num_profile_runs"] == 5);
    CHECK(run.meta.params["confidence_level"] == 0.95);
    CHECK(reported(run, "aiperf.request_throughput_avg.mean") == 255.4);
    CHECK(reported(run, "aiperf.time_to_first_token_p99.ci_high") == 165.1);
    CHECK(servestat::find_reported(run.meta, "aiperf.time_to_first_token_p99.ci_high")->unit == "ms");
    CHECK(servestat::find_reported(run.meta, "aiperf.time_to_first_token_p99.cv")->unit.empty());
    CHECK(run.meta.reported.front().name == "aiperf.request_throughput_avg.mean"); // the file's order
    CHECK(run.meta.source.merged.empty());
    CHECK(has_note(run, "across 5 runs (4 successful)"));
    CHECK(has_note(run, "failed run run_0003: Connection timeout"));
}

TEST_CASE("AIPerf's collated aggregate is one summary run of the pooled values") {
    temp_file file(R"({"schema_version": "1.0.0", "aiperf_version": "0.5.0",
  "metadata": {"aggregation_type": "detailed", "num_profile_runs": 3, "num_successful_runs": 3, "failed_runs": []},
  "combined": {"time_to_first_token": {"mean": 150.0, "std": 10.0, "p50": 148.0, "p99": 180.0, "count": 300,
                                       "unit": "ms"}},
  "per_run": [{"label": "run_0001"}]})",
                   "profile_export_aiperf_collated.json");
    const servestat::run run = read_one(servestat::aiperf_multi_run_format, file.path());
    CHECK(reported(run, "aiperf.time_to_first_token.p99") == 180.0);
    CHECK(reported(run, "aiperf.time_to_first_token.n") == 300);
    CHECK(has_note(run, "pooled into one population"));
}

TEST_CASE("AIPerf's sweep aggregate is one run per combination, left out of folder reads") {
    temp_file file(R"({
  "aggregation_type": "sweep", "num_profile_runs": 2, "num_successful_runs": 2, "failed_runs": [],
  "metadata": {"sweep_parameters": [{"name": "concurrency", "values": [10, 20]}], "num_combinations": 2},
  "per_combination_metrics": [
    {"parameters": {"concurrency": 10}, "metrics": {"request_throughput_avg": {"mean": 100.5, "unit": "requests/sec"},
                                                    "ttft_p99_ms": {"mean": 120.5, "unit": "ms"}}},
    {"parameters": {"concurrency": 20}, "metrics": {"request_throughput_avg": {"mean": 180.3, "unit": "requests/sec"},
                                                    "ttft_p99_ms": {"mean": 135.2, "unit": "ms"}}}],
  "best_configurations": {"best_throughput": {"parameters": {"concurrency": 20}, "metric": 180.3,
                                              "unit": "requests/sec"}},
  "pareto_optimal": [{"concurrency": 10}, {"concurrency": 20}]})",
                   "profile_export_aiperf_sweep.json");
    const auto runs = servestat::aiperf_multi_run_format.read(file.path(), {});
    REQUIRE(runs.size() == 2);
    CHECK(runs[0].meta.params["concurrency"] == 10);
    CHECK(runs[1].meta.params["concurrency"] == 20);
    CHECK(reported(runs[1], "aiperf.request_throughput_avg.mean") == 180.3);
    CHECK(reported(runs[0], "aiperf.ttft_p99_ms.mean") == 120.5);
    CHECK(has_note(runs[1], "names this combination best_throughput"));
    CHECK_FALSE(has_note(runs[0], "best_throughput"));
    CHECK(has_note(runs[0], "Pareto optimal"));
    for (const auto& r : runs) {
        CHECK(r.meta.kind == servestat::run_kind::summary);
        REQUIRE(r.meta.source.merged.size() == 1);
        CHECK(r.meta.source.merged[0] == file.path().string());
    }
}

TEST_CASE("a newer sweep aggregate, combinations keyed by variation_values, reads the same way") {
    temp_file file(R"({"metadata": {"sweep_mode": "INDEPENDENT"}, "per_combination_metrics": [
  {"variation_idx": 0, "variation_values": {"phases.default.concurrency": 4},
   "metrics": {"request_throughput": {"avg": 42.0, "p50": 40.0, "p99": 45.0, "unit": "requests/sec"}}}]})",
                   "profile_export_aiperf_sweep.json");
    const servestat::run run = read_one(servestat::aiperf_multi_run_format, file.path());
    CHECK(run.meta.params["concurrency"] == 4);
    CHECK(reported(run, "aiperf.request_throughput.mean") == 42.0);
    CHECK(reported(run, "aiperf.request_throughput.p99") == 45.0);
}

TEST_CASE("an aggregate of an unknown aggregation type names it") {
    temp_file file(R"({"metadata": {"aggregation_type": "confidence2"}, "metrics": {}})", "x_aggregate.json");
    const auto e = read_error(servestat::aiperf_multi_run_format, file.path());
    CHECK(e.field() == "metadata.aggregation_type");
}

TEST_CASE("AIPerf's v2 native report is recognised and refused with what it is") {
    temp_file file(R"({"schema_version": "2.0", "aiperf_version": "0.15.0", "run": {}, "summary": {},
  "metrics": {"request_latency": {"type": "distribution", "unit": "ms", "series": [{"labels": null,
    "stats": {"count": 10, "avg": 42.1, "percentiles": {"p50": 38.0}}}]}}})",
                   "aiperf_report.json");
    CHECK(servestat::detect_format(servestat::test::file_head(file.path()))->name == "aiperf-report-v2");
    const std::string what = read_error(servestat::aiperf_report_v2_format, file.path()).what();
    CHECK(what.find("AIPerf's v2 native report (aiperf_report.json, schema 2.0)") != std::string::npos);
    CHECK(what.find("read profile_export.jsonl") != std::string::npos);
}

} // namespace test_ingest_aiperf_layouts
