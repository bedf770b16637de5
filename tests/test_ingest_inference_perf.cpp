// Tests for servestat/ingest/inference_perf.hpp: inference-perf's lifecycle reports, one summary run
// per load stage. The fixtures (tests/data/inference_perf/, made by
// tests/tools/make_inference_perf_fixtures.py as inference-perf's reportgen/base.py computes them)
// give the expected numbers: each value checked here is the one the fixture file holds.
#include "servestat/ingest/inference_perf.hpp"
#include "servestat/ingest/inference_perf_requests.hpp" // inference_perf_requests_format, sniff_inference_perf_requests

#include <filesystem>  // std::filesystem::copy_file
#include <optional>    // std::optional
#include <string>      // std::string
#include <string_view> // std::string_view
#include <vector>      // std::vector

#include "servestat/ingest/detect.hpp"     // detect_file_format, detect_format, read_logs
#include "servestat/ingest/input_file.hpp" // read_whole_file
#include "servestat/sweep/sweep.hpp"   // find_sweeps, sweep_value

#include "format_reading.hpp" // read_one, read_error
#include "temp_file.hpp"

#include <catch2/catch.hpp> // TEST_CASE, CHECK, REQUIRE, Approx

namespace test_ingest_inference_perf { // the unity build compiles several test files as one: each keeps its names

namespace {

using servestat::test::has_note;
using servestat::test::reported;

using servestat::input_error;
using servestat::run;
using servestat::test::temp_file;

std::string data(std::string_view name) { return std::string(SERVESTAT_TEST_DATA_DIR) + "/inference_perf/" + std::string(name); }

// A stage report read through detection, as the CLI reads it.
run read_detected(const std::string& path) {
    const auto& format = servestat::detect_file_format(path);
    REQUIRE(format.name == "inference-perf");
    return servestat::test::read_one(format, path);
}

// A minimal stage report with one field replaced, for the bad-input cases.
std::string stage_json(std::string_view load, std::string_view successes, std::string_view failures = R"({"count": 0})") {
    return "{\"load_summary\": " + std::string(load) + ",\n \"successes\": " + std::string(successes) +
           ",\n \"failures\": " + std::string(failures) + "}\n";
}

constexpr std::string_view good_load = R"({"count": 2, "requested_rate": 1.0, "achieved_rate": 1.0})";
constexpr std::string_view good_successes =
    R"({"count": 2, "latency": {"time_to_first_token": {"mean": 0.1, "min": 0.1, "max": 0.1, "median": 0.1}}})";

} // namespace

TEST_CASE("every inference-perf lifecycle report is detected as inference-perf", "[inference-perf]") {
    for (const char* name : {"sweep/stage_0_lifecycle_metrics.json", "sweep/stage_4_lifecycle_metrics.json",
                             "sweep/summary_lifecycle_metrics.json", "old/stage_2_lifecycle_metrics.json"})
        CHECK(servestat::detect_file_format(data(name)).name == "inference-perf");
}

TEST_CASE("an inference-perf stage report is a summary run at the stage's requested rate", "[inference-perf]") {
    const run r = read_detected(data("sweep/stage_4_lifecycle_metrics.json"));
    CHECK(r.meta.kind == servestat::run_kind::summary);
    CHECK(r.requests.empty());
    CHECK(r.meta.params == nlohmann::json{{"request_rate", 8.0}});
    CHECK(r.meta.label == "sweep/stage_4");
    CHECK(r.meta.tool == "inference-perf");
    CHECK(r.meta.source.format == "inference-perf");
    CHECK(has_note(r, "load stage 4"));
    // The counts: load_summary.count, successes.count, failures.count.
    CHECK(reported(r, "requests") == 120);
    CHECK(reported(r, "ok") == 117);
    CHECK(reported(r, "failed") == 3);
    CHECK(reported(r, "duration") == 18.187403395248566); // benchmark_time_seconds
}

TEST_CASE("inference-perf's TTFT, TPOT and rates take servestat's names, in seconds as written", "[inference-perf]") {
    const run r = read_detected(data("sweep/stage_4_lifecycle_metrics.json"));
    CHECK(reported(r, "ttft.p99") == 1.9356351036746224);
    CHECK(reported(r, "ttft.p50") == 0.8437245941997844); // inference-perf's "median"
    CHECK(reported(r, "ttft.p0.1") == 0.38056077368231944);
    CHECK(reported(r, "ttft.mean") == 0.9311893094781009);
    CHECK(reported(r, "tpot.p99.9") == 0.041175939929173);
    CHECK(reported(r, "tpot.max") == 0.04133682342162295);
    CHECK(reported(r, "rps") == 6.433023860380536);
    CHECK(reported(r, "output_tps") == 249.23843725730742);
    CHECK(reported(r, "total_tps") == 1527.1008948564872);
    CHECK(reported(r, "prompt_tokens.mean") == 198.64102564102564);
    CHECK(reported(r, "output_tokens.p50") == 37.0); // the server's counts (successes.output_tokens)
    CHECK(reported(r, "inference_perf.output_len.p50") == 37.0);
}

TEST_CASE("inference-perf's statistics with other definitions keep its names, with a note why", "[inference-perf]") {
    const run r = read_detected(data("sweep/stage_4_lifecycle_metrics.json"));
    CHECK(reported(r, "inference_perf.request_latency.p99") == 3.2883369377202603);
    CHECK(reported(r, "inference_perf.inter_token_latency.mean") == 0.03167220832965277);
    CHECK(reported(r, "inference_perf.normalized_time_per_output_token.p50") == 0.054360291161517624);
    CHECK(reported(r, "inference_perf.schedule_delay.p99") == 0.01851237757712398);
    CHECK(reported(r, "inference_perf.achieved_rate") == 8.067461920173997);
    CHECK(reported(r, "inference_perf.send_duration") == 14.874566646533594);
    CHECK(reported(r, "inference_perf.input_tokens_per_sec") == 1277.8624575991798);
    CHECK(reported(r, "inference_perf.failures.request_latency.max") == 2.977093373522166);
    // request_latency ends after [DONE], its ITL pools per-token gaps: neither is relabelled.
    CHECK_FALSE(reported(r, "e2e.p99").has_value());
    CHECK_FALSE(reported(r, "itl.mean").has_value());
    CHECK(has_note(r, "not servestat's e2e"));
    CHECK(has_note(r, "failures by label: 2 × 503 - Service Unavailable, 1 × Timeout"));
}

TEST_CASE("the first inference-perf layout (schedule_accuracy, p10/p50/p90, prompt_len) is read", "[inference-perf]") {
    const run r = read_detected(data("old/stage_2_lifecycle_metrics.json"));
    CHECK(r.meta.params == nlohmann::json{{"request_rate", 4.0}});
    CHECK(reported(r, "ok") == 60);
    CHECK(reported(r, "inference_perf.schedule_delay.p90") == 0.0013506228327742065);
    CHECK(reported(r, "ttft.p50") == 0.07686696771418156);
    CHECK(reported(r, "prompt_tokens.p10") == 125.2);
    CHECK(reported(r, "output_tokens.max") == 59.0); // output_len: no server counts in this layout
    // No benchmark_time_seconds: its length follows from requests_per_sec = successes / that time.
    CHECK(reported(r, "duration") == Approx(60 / 3.727922762562324).epsilon(1e-15));
}

TEST_CASE("a directory of stage reports is one sweep over the stage rate; the whole-run report is folded in",
          "[inference-perf]") {
    const auto runs = servestat::read_logs(std::vector<std::string>{data("sweep")});
    REQUIRE(runs.size() == 5); // five stages; summary_lifecycle_metrics.json is not a sixth run
    for (std::size_t i = 0; i < runs.size(); ++i) {
        CHECK(runs[i].meta.label == "sweep/stage_" + std::to_string(i));
        CHECK(has_note(runs[i], "summary_lifecycle_metrics.json beside it covers every stage together"));
    }
    std::vector<servestat::run_stats> stats;
    for (const auto& r : runs) stats.push_back(servestat::analyze(r));
    const auto sweeps = servestat::find_sweeps(stats);
    REQUIRE(sweeps.size() == 1);
    CHECK(sweeps[0].param == "request_rate");
    REQUIRE(sweeps[0].points.size() == 5);
    const double expected_ttft_p99[] = {0.1212517415473826, 0.1127054737181868, 0.18723772198794436,
                                        0.36517268074616593, 1.9356351036746224};
    for (std::size_t i = 0; i < 5; ++i) {
        CHECK(sweeps[0].points[i].load == std::vector<double>{1, 2, 4, 6, 8}[i]);
        CHECK(servestat::sweep_value(stats[sweeps[0].points[i].run], "ttft.p99") == expected_ttft_p99[i]);
    }
}

TEST_CASE("the whole-run report read alone is the run of the whole test, with no stage rate", "[inference-perf]") {
    const run r = read_detected(data("sweep/summary_lifecycle_metrics.json"));
    CHECK(r.meta.params.empty());
    CHECK(r.meta.label == "sweep/summary");
    CHECK(has_note(r, "the whole run, every stage together"));
    CHECK(reported(r, "requests") == 315);
    CHECK(reported(r, "ok") == 312);
    CHECK(reported(r, "ttft.p99") == 1.7242138234403992);
    CHECK_FALSE(reported(r, "inference_perf.achieved_rate").has_value());
}

TEST_CASE("inference-perf's file names give stage, adapter and the run's prefix", "[inference-perf]") {
    using servestat::detail::parse_inference_perf_file_name;
    const auto stage = parse_inference_perf_file_name("stage_12_lifecycle_metrics");
    CHECK(stage.recognised);
    CHECK(stage.stage == 12);
    CHECK(stage.adapter.empty());
    const auto adapter_stage = parse_inference_perf_file_name("run1_adapter_sql-lora_stage_0_lifecycle_metrics");
    CHECK(adapter_stage.stage == 0);
    CHECK(adapter_stage.adapter == "sql-lora");
    CHECK(adapter_stage.prefix == "run1_");
    const auto summary = parse_inference_perf_file_name("summary_lifecycle_metrics");
    CHECK((summary.recognised && !summary.stage && summary.prefix.empty()));
    CHECK_FALSE(parse_inference_perf_file_name("per_request_lifecycle_metrics").recognised);
    CHECK_FALSE(parse_inference_perf_file_name("stage_0_prometheus_metrics").recognised);
}

TEST_CASE("a concurrent stage is at its concurrency; an adapter's report names the adapter", "[inference-perf]") {
    // load_summary of a `concurrent` load type's stage: its rate is set at run time.
    const temp_file file(stage_json(R"({"count": 2, "requested_rate": 3.2, "achieved_rate": 3.1, "concurrency": 8})",
                                    good_successes),
                         "adapter_sql-lora_stage_1_lifecycle_metrics.json");
    const run r = read_detected(file.path().string());
    CHECK(r.meta.params == nlohmann::json{{"concurrency", 8}, {"lora_adapter", "sql-lora"}});
    CHECK(reported(r, "inference_perf.requested_rate") == 3.2);
    CHECK(has_note(r, "load stage 1 (LoRA adapter sql-lora's requests)"));
    CHECK(reported(r, "requests") == 2);
    CHECK(reported(r, "failed") == 0);
}

TEST_CASE("inference-perf's Prometheus reports are not taken for lifecycle reports", "[inference-perf]") {
    // summarize_prometheus_metrics: empty load_summary and failures, server figures under successes.
    const std::string prometheus = R"({"benchmark_time_seconds": 0.0, "load_summary": {}, "successes": {"count": 40,
 "rate": 1.3, "prompt_len": {"mean": 200.0, "rate": 260.0}, "request_latency": {"mean": 1.2, "p50": 1.1}},
 "failures": {}})";
    CHECK(servestat::detail::sniff_inference_perf(prometheus) == 0);
}

TEST_CASE("a wrong type in an inference-perf report names the file and the field", "[inference-perf]") {
    const auto& format = servestat::inference_perf_format;
    {
        const temp_file file(stage_json(R"({"count": 2, "requested_rate": "fast"})", good_successes),
                             "stage_0_lifecycle_metrics.json");
        const input_error e = servestat::test::read_error(format, file.path());
        CHECK(e.file() == file.path().string());
        CHECK(e.field() == "load_summary.requested_rate");
        CHECK(std::string(e.what()).find("expected a number, got string") != std::string::npos);
    }
    {
        const temp_file file(stage_json(good_load, R"({"count": 2, "latency": {"time_to_first_token": {"p99": "0.5"}}})"),
                             "stage_0_lifecycle_metrics.json");
        CHECK(servestat::test::read_error(format, file.path()).field() == "successes.latency.time_to_first_token.p99");
    }
    {
        const temp_file file(stage_json(good_load, R"({"count": 2.5})"), "stage_0_lifecycle_metrics.json");
        CHECK(servestat::test::read_error(format, file.path()).field() == "successes.count");
    }
    {
        const temp_file file(stage_json(good_load, good_successes, R"({"count": 0, "request_latency": {"max": -1}})"),
                             "stage_0_lifecycle_metrics.json");
        CHECK(servestat::test::read_error(format, file.path()).field() == "failures.request_latency.max");
    }
    {
        const temp_file file(R"({"load_summary": {"count": 1}, "successes": {"count": 1, "latency": {}}})",
                             "stage_0_lifecycle_metrics.json");
        const input_error e = servestat::test::read_error(format, file.path());
        CHECK(e.field() == "failures");
        CHECK(std::string(e.what()).find("missing required field") != std::string::npos);
    }
}

TEST_CASE("inference-perf's own demo reports are read: a schedule delay below 0 is noted and kept",
          "[inference-perf]") {
    // kubernetes-sigs/inference-perf demos/kubecon-na-2025/vllm/results (README.md): sends up to
    // 1.9 ms before their scheduled time, which the report keeps as negative schedule delays.
    const auto runs = servestat::read_logs(std::vector<std::string>{data("kubecon_vllm")});
    REQUIRE(runs.size() == 7); // seven stages; the summary is folded in
    const run& r = runs[0];
    CHECK(r.meta.params == nlohmann::json{{"request_rate", 1.0}});
    CHECK(reported(r, "inference_perf.schedule_delay.min") == -0.0006079088198021054);
    CHECK(reported(r, "inference_perf.schedule_delay.p50") == 0.0005210512899793684);
    CHECK(has_note(r, "load_summary.schedule_delay.min is -0.0006079088198021054 s (5 of its statistics below 0): "
                      "requests sent up to that long before their scheduled time"));
    CHECK(has_note(r, "it only informs, so it is kept as reported"));
    // The file's own numbers, as written.
    CHECK(reported(r, "requests") == 60);
    CHECK(reported(r, "ok") == 60);
    CHECK(reported(r, "ttft.p99") == 0.039696927970508104);
    CHECK(reported(r, "tpot.mean") == 0.0034734172405264745);
    CHECK(reported(r, "rps") == 1.0171575756131475);
    CHECK(reported(r, "prompt_tokens.p50") == 205.0);
    std::vector<servestat::run_stats> stats;
    for (const auto& run : runs) stats.push_back(servestat::analyze(run));
    const auto sweeps = servestat::find_sweeps(stats);
    REQUIRE(sweeps.size() == 1);
    CHECK(sweeps[0].param == "request_rate");
    CHECK(sweeps[0].points.size() == 7);
    const run whole = read_detected(data("kubecon_vllm/summary_lifecycle_metrics.json"));
    CHECK(reported(whole, "inference_perf.schedule_delay.min") == -0.0019004582427442074);
}

TEST_CASE("only statistics a run can not have refuse an inference-perf report", "[inference-perf]") {
    const auto& format = servestat::inference_perf_format;
    {   // A negative schedule delay is a send ahead of schedule: kept, with a note.
        const temp_file file(stage_json(R"({"count": 2, "requested_rate": 1.0, "schedule_delay": {"min": -0.002, "mean": 0.001}})",
                                        good_successes),
                             "stage_0_lifecycle_metrics.json");
        const run r = servestat::test::read_one(format, file.path());
        CHECK(reported(r, "inference_perf.schedule_delay.min") == -0.002);
        CHECK(has_note(r, "load_summary.schedule_delay.min is -0.002 s (1 of its statistics below 0)"));
    }
    {   // A negative TTFT feeds ttft: refused, naming the file and the field.
        const temp_file file(stage_json(good_load, R"({"count": 2, "latency": {"time_to_first_token": {"min": -0.1}}})"),
                             "stage_0_lifecycle_metrics.json");
        const input_error e = servestat::test::read_error(format, file.path());
        CHECK(e.file() == file.path().string());
        CHECK(e.field() == "successes.latency.time_to_first_token.min");
    }
}

TEST_CASE("a stage's partial Benchmark Report beside its lifecycle report is not a second run", "[inference-perf]") {
    const temp_file stage(servestat::detail::read_whole_file(data("sweep/stage_0_lifecycle_metrics.json")),
                          "stage_0_lifecycle_metrics.json");
    std::filesystem::copy_file(data("partial/inference-perf.partial.stage_0.yaml"),
                               stage.dir() / "inference-perf.partial.stage_0.yaml");
    const auto runs = servestat::read_logs(std::vector<std::string>{stage.dir().string()});
    REQUIRE(runs.size() == 1);
    CHECK(runs[0].meta.source.format == "inference-perf");
    CHECK(has_note(runs[0], "inference-perf.partial.stage_0.yaml beside it"));
}

} // namespace test_ingest_inference_perf

// ---- per_request_lifecycle_metrics.json (inference_perf_requests.hpp) ----

namespace test_ingest_inference_perf {

namespace {

std::string per_request(std::string_view name = "per_request_lifecycle_metrics.json") {
    return std::string(SERVESTAT_TEST_DATA_DIR) + "/inference_perf/per_request/" + std::string(name);
}

} // namespace

TEST_CASE("inference-perf's per-request file is detected as inference-perf-requests", "[inference-perf]") {
    CHECK(servestat::detect_file_format(per_request()).name == "inference-perf-requests");
    const std::string head = servestat::test::file_head(per_request());
    for (const auto* f : servestat::builtin_formats)
        if (f->name != "inference-perf-requests") CHECK(f->sniff(head) == 0);
    CHECK(servestat::detail::sniff_inference_perf_requests(servestat::test::file_head(data("sweep/stage_0_lifecycle_metrics.json"))) == 0);
}

TEST_CASE("the per-request file is one requests run: times from its token times, since the first start", "[inference-perf]") {
    const auto r = servestat::test::read_one(servestat::inference_perf_requests_format, per_request());
    CHECK(r.meta.kind == servestat::run_kind::requests);
    REQUIRE(r.requests.size() == 15);
    const auto first = r.requests.row(0), second = r.requests.row(1);
    CHECK(*first.t_sent == 0.0);
    CHECK(*first.t_first == Approx(0.037822418125244894).margin(1e-9));
    CHECK(*first.t_end == Approx(0.49042047731506955).margin(1e-9)); // the last token, not end_time
    CHECK(first.prompt_tokens == 233);
    CHECK(first.output_tokens == 41);
    CHECK(first.max_tokens == 64);
    REQUIRE(first.itl.size() == 37); // 41 tokens in 38 chunks: gaps between distinct times
    CHECK(first.itl[0] == Approx(0.0021605969124038893).margin(1e-9));
    CHECK(*second.t_sent == Approx(0.500055910770925).margin(1e-9));
    REQUIRE(second.itl.size() == 25);
    CHECK(second.itl[1] == Approx(0.019674909811101315).margin(1e-9));
}

TEST_CASE("a failed per-request record keeps its error and HTTP status", "[inference-perf]") {
    const auto r = servestat::test::read_one(servestat::inference_perf_requests_format, per_request());
    const auto failed = r.requests.row(2);
    CHECK(failed.status == servestat::request_status::error);
    CHECK(failed.error == "HTTP Error 503: Service Unavailable");
    CHECK(failed.http_status == 503);
    CHECK(!failed.t_first);
    CHECK(*failed.t_end == Approx(2.284099966324959).margin(1e-9));
}

TEST_CASE("the lifecycle reports beside the per-request file are its reported values, stages prefixed", "[inference-perf]") {
    const auto r = servestat::test::read_one(servestat::inference_perf_requests_format, per_request());
    CHECK(r.meta.source.merged.size() == 3);
    CHECK(reported(r, "ok") == 14);
    CHECK(reported(r, "failed") == 1);
    CHECK(*reported(r, "ttft.p50") == Approx(0.10668824366780427));
    CHECK(*reported(r, "rps") == Approx(1.9781586393627602));
    CHECK(*reported(r, "stage_0.ttft.mean") == Approx(0.08851116268618853));
    CHECK(reported(r, "stage_1.ok") == 9);
    CHECK(has_note(r, "The requests of 2 load stages together"));
}

TEST_CASE("a folder with the per-request file and its stage reports shows the requests once", "[inference-perf]") {
    const std::vector<std::string> inputs{data("per_request")};
    const auto runs = servestat::read_logs(inputs);
    REQUIRE(runs.size() == 1);
    CHECK(runs[0].meta.source.format == "inference-perf-requests");
    CHECK(runs[0].requests.size() == 15);
}

TEST_CASE("bad per-request records name the file, record and field", "[inference-perf]") {
    SECTION("an end before the start") {
        const temp_file f(R"([{"start_time": 5.0, "end_time": 4.0, "request": "{}", "info": null, "error": null}])",
                          "per_request_lifecycle_metrics.json");
        const auto e = servestat::test::read_error(servestat::inference_perf_requests_format, f.path());
        CHECK(e.field() == "[0].end_time");
        CHECK(e.file() == f.path().string());
    }
    SECTION("token times that go back") {
        const temp_file f(R"([{"start_time": 1.0, "end_time": 4.0, "request": "{}", "info": {"input_tokens": 3,
            "output_tokens": 2, "output_token_times": [2.0, 1.5]}, "error": null}])",
                          "per_request_lifecycle_metrics.json");
        CHECK(servestat::test::read_error(servestat::inference_perf_requests_format, f.path()).field() ==
              "[0].info.output_token_times[1]");
    }
    SECTION("the oldest layout reads, and skip_bad skips a bad record") {
        const temp_file f(R"([{"start_time": 1.0, "end_time": 2.0, "request": "{}", "response": "", "info": {"input_tokens": 3,
            "output_tokens": 2, "output_token_times": [1.25, 1.5]}, "error": null}, {"start_time": "x"}])",
                          "per_request_lifecycle_metrics.json");
        servestat::read_options o;
        o.skip_bad = true;
        const auto r = servestat::test::read_one(servestat::inference_perf_requests_format, f.path(), o);
        REQUIRE(r.requests.size() == 1);
        CHECK(r.skipped.count == 1);
        CHECK(*r.requests.row(0).t_first == 0.25);
        CHECK(*r.requests.row(0).t_end == 0.5);
    }
}

} // namespace test_ingest_inference_perf
