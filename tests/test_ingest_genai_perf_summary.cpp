// GenAI-Perf's aggregate export, <stem>_genai_perf.json and .csv: one summary run of GenAI-Perf's
// own statistics, and, beside the per-request profile export, that run's reported values.
// Real files: tests/data/genai_perf_summary (README.md): Egham-7/adaptive's nested generation with
// its per-request export, the flat generation from perf_analyzer issue #298 and a CSV of NVIDIA's
// cloudai guide (both transcribed as published).
#include "servestat/ingest/genai_perf_summary.hpp"

#include <filesystem> // std::filesystem::path
#include <fstream>    // std::ofstream
#include <string>     // std::string
#include <vector>     // std::vector

#include "servestat/ingest/aiperf_summary.hpp" // aiperf_summary_format (must not claim these files)
#include "servestat/ingest/detect.hpp"         // detect_format, read_logs
#include "servestat/ingest/genai_perf.hpp"     // genai_perf_format
#include "servestat/stats/run_stats.hpp"       // analyze, find_summary, find_percentile

#include "format_reading.hpp" // test::reported, test::has_note, test::read_one, test::read_error, test::file_head
#include "temp_file.hpp"      // test::temp_file
#include <catch2/catch.hpp>   // TEST_CASE, REQUIRE, CHECK, Approx
#include <nlohmann/json.hpp>  // nlohmann::json

namespace test_ingest_genai_perf_summary { // the unity build compiles several test files as one

using namespace servestat;
using servestat::test::file_head;
using servestat::test::has_note;
using servestat::test::read_error;
using servestat::test::read_one;
using servestat::test::reported;
using servestat::test::temp_file;
using json = nlohmann::json;

namespace {

const std::filesystem::path data = std::filesystem::path(SERVESTAT_TEST_DATA_DIR) / "genai_perf_summary";
const std::filesystem::path medium = data / "medium_c1";
const std::filesystem::path quick = data / "quick_c10";
const std::filesystem::path flat = data / "issue298" / "test_c100_streaming_genai_perf.json";
const std::filesystem::path cloudai_csv = data / "cloudai_doc" / "profile_genai_perf.csv";

// GenAI-Perf's value in ms against the reader's in s.
void check_ms(const run& r, const std::string& name, double ms) {
    INFO(name);
    const auto v = reported(r, name);
    REQUIRE(v);
    CHECK(*v * 1e3 == Approx(ms).epsilon(1e-12));
}

} // namespace

TEST_CASE("GenAI-Perf's aggregates are detected as theirs, and AIPerf's reader no longer claims them") {
    for (const auto& file : {quick / "simple_quick_response_c10_genai_perf.json",
                             medium / "simple_medium_response_c1_genai_perf.json", flat}) {
        INFO(file);
        const std::string head = file_head(file);
        REQUIRE(detect_format(head));
        CHECK(detect_format(head)->name == "genai-perf-summary");
        CHECK(aiperf_summary_format.sniff(head) == 0); // was "unknown unit 'count'"
        CHECK(genai_perf_format.sniff(head) == 0);
    }
    for (const auto& file : {quick / "simple_quick_response_c10_genai_perf.csv",
                             medium / "simple_medium_response_c1_genai_perf.csv", cloudai_csv}) {
        INFO(file);
        const std::string head = file_head(file);
        REQUIRE(detect_format(head));
        CHECK(detect_format(head)->name == "genai-perf-summary-csv");
        CHECK(aiperf_summary_csv_format.sniff(head) == 0);
    }
    // and the per-request export beside them stays genai-perf's
    CHECK(detect_format(file_head(medium / "simple_medium_response_c1.json"))->name == "genai-perf");
}

TEST_CASE("GenAI-Perf's sniffers leave AIPerf's and the per-request exports alone") {
    const std::filesystem::path aiperf = std::filesystem::path(SERVESTAT_SHARED_DATA_DIR) / "aiperf-example" / "run1";
    if (std::filesystem::exists(aiperf)) {
        CHECK(genai_perf_summary_format.sniff(file_head(aiperf / "profile_export_aiperf.json")) == 0);
        CHECK(genai_perf_summary_csv_format.sniff(file_head(aiperf / "profile_export_aiperf.csv")) == 0);
    }
    for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(SERVESTAT_TEST_DATA_DIR) / "genai_perf")) {
        INFO(entry.path());
        CHECK(genai_perf_summary_format.sniff(file_head(entry.path())) == 0);
    }
    // AIPerf 0.2's summary without schema_version: input_config.endpoint.model_names, no perf_analyzer
    const std::string aiperf_02 = R"({"request_latency": {"unit": "ms", "avg": 5.0},
        "input_config": {"endpoint": {"model_names": ["m"]}, "loadgen": {"concurrency": 2}}})";
    CHECK(genai_perf_summary_format.sniff(aiperf_02) == 0);
    CHECK(aiperf_summary_format.sniff(aiperf_02) == 90);
}

TEST_CASE("the nested generation (count units, input_config sections) reads as a summary run") {
    const run r = read_one(genai_perf_summary_format, quick / "simple_quick_response_c10_genai_perf.json");
    CHECK(r.meta.kind == run_kind::summary);
    CHECK(r.requests.size() == 0);
    CHECK(r.meta.tool == "genai-perf");
    CHECK(r.meta.label == "simple_quick_response_c10");
    CHECK(r.meta.model == "auto");
    CHECK(r.meta.workload == "synthetic");
    CHECK(r.meta.params == json{{"concurrency", 10},       {"endpoint", "v1/chat/completions"}, {"endpoint_type", "chat"},
                                {"isl", 550},              {"isl_stddev", 0},      {"max_tokens", 50},
                                {"measurement_interval_ms", 8000}, {"num_dataset_entries", 100}, {"random_seed", 0},
                                {"service_kind", "openai"}, {"streaming", false},  {"temperature", 0.7}});
    // as the file gives them: request_count {"unit": "count", "avg": 15.0}, request_latency in ms
    CHECK(reported(r, "ok") == 15);
    CHECK(reported(r, "rps") == 0.4001412790337953);
    CHECK(reported(r, "output_tps") == 216.55646021309002);
    check_ms(r, "e2e.mean", 20050.898785066664);
    check_ms(r, "e2e.p50", 19258.055481);
    check_ms(r, "e2e.p99", 27602.5928168);
    check_ms(r, "e2e.std", 6692.55626132979);
    check_ms(r, "e2e.p1", 7964.598278479999);
    CHECK(reported(r, "output_tokens.p50") == 344.0);
    CHECK(reported(r, "prompt_tokens.mean") == 550.0);
    // not streamed: GenAI-Perf's TTFT is the whole latency, never servestat's ttft
    CHECK_FALSE(reported(r, "ttft.p50"));
    CHECK(reported(r, "genai_perf.time_to_first_token.p50") == 19258.055481);
    CHECK(has_note(r, "not streamed"));
    CHECK(has_note(r, "own tokenizer (gpt2)"));
    CHECK(has_note(r, "ddof 0"));
    // the CSV beside it is the same run
    REQUIRE(r.meta.source.merged.size() == 1);
    CHECK(std::filesystem::path(r.meta.source.merged[0]).filename() == "simple_quick_response_c10_genai_perf.csv");
}

TEST_CASE("the CSV holds the JSON's numbers rounded to 2 decimals, thousands grouped") {
    const run j = read_one(genai_perf_summary_format, medium / "simple_medium_response_c1_genai_perf.json");
    const run c = read_one(genai_perf_summary_csv_format, medium / "simple_medium_response_c1_genai_perf.csv");
    CHECK(c.meta.kind == run_kind::summary);
    CHECK(c.meta.label == "simple_medium_response_c1");
    CHECK(c.meta.params.empty());
    CHECK(has_note(c, "no input_config"));
    check_ms(c, "e2e.mean", 15635.03); // "15,635.03"
    check_ms(c, "e2e.min", 7749.35);
    for (const char* name : {"e2e.mean", "e2e.min", "e2e.max", "e2e.p1", "e2e.p25", "e2e.p50", "e2e.p99"}) {
        INFO(name);
        REQUIRE(reported(j, name));
        CHECK(*reported(c, name) == Approx(*reported(j, name)).margin(0.005e-3 + 1e-12));
    }
    CHECK(reported(c, "output_tokens.max") == 1058.0); // "1,058.00"
    CHECK(reported(c, "ok") == 6);                     // Request Count (count),6.00
    CHECK(*reported(c, "rps") == Approx(*reported(j, "rps")).margin(0.005));
    CHECK(*reported(c, "output_tps") == Approx(*reported(j, "output_tps")).margin(0.005));
    CHECK_FALSE(reported(c, "ttft.mean")); // unstreamed: GenAI-Perf leaves TTFT out of the CSV
}

TEST_CASE("the flat generation (the Namespace echo) gives its settings as parameters") {
    const run r = read_one(genai_perf_summary_format, flat);
    CHECK(r.meta.model == "ensemble");
    CHECK(r.meta.label == "test_c100_streaming");
    CHECK(r.meta.params == json{{"backend", "tensorrtllm"}, {"concurrency", 100},       {"endpoint_type", "kserve"},
                                {"isl", 200},              {"isl_stddev", 20},        {"measurement_interval_ms", 10000},
                                {"num_dataset_entries", 100}, {"osl", 500},           {"osl_stddev", 0},
                                {"random_seed", 0},        {"service_kind", "triton"}, {"streaming", true}});
    // streamed: time_to_first_token is servestat's ttft, inter_token_latency its tpot
    check_ms(r, "ttft.p99", 425.02943662);
    check_ms(r, "ttft.min", 21.083577);
    check_ms(r, "tpot.mean", 2.1767344516666665);
    check_ms(r, "e2e.p25", 5675.43159275);
    CHECK(reported(r, "rps") == 17.222547659562533);
    CHECK(reported(r, "output_tps") == 44190.56002502682);
    CHECK(reported(r, "genai_perf.output_token_throughput_per_request.mean") == 445.00388376637636);
    CHECK(find_reported(r.meta, "genai_perf.output_token_throughput_per_request.mean")->unit == "tokens/sec");
    CHECK_FALSE(reported(r, "ok")); // this generation writes no request_count
    CHECK_FALSE(has_note(r, "not streamed"));
    // in the file's order: request_throughput first, then request_latency's statistics
    REQUIRE(r.meta.reported.size() > 2);
    CHECK(r.meta.reported[0].name == "rps");
    CHECK(r.meta.reported[1].name == "e2e.mean");
}

TEST_CASE("an older CSV: per sec throughputs, thousands in quoted cells") {
    const run r = read_one(genai_perf_summary_csv_format, cloudai_csv);
    check_ms(r, "ttft.mean", 1146.31);
    check_ms(r, "ttft.max", 3485.23);
    check_ms(r, "tpot.p50", 30.13);
    CHECK(reported(r, "prompt_tokens.mean") == 3000.05);
    CHECK(reported(r, "genai_perf.time_to_second_token.p99") == 96.12);
    CHECK(reported(r, "output_tps") == 261.25); // Output Token Throughput (per sec)
    CHECK(reported(r, "rps") == 1.5);
    CHECK(reported(r, "ok") == 40);
}

TEST_CASE("beside its per-request export the aggregate is that run's reported values: one run, not two") {
    const run r = read_one(genai_perf_format, medium / "simple_medium_response_c1.json");
    CHECK(r.meta.kind == run_kind::requests);
    CHECK(r.requests.size() == 6);
    CHECK(r.meta.model == "auto");
    CHECK(r.meta.params["concurrency"] == 1);
    CHECK(r.meta.params["isl"] == 550);
    CHECK(r.meta.params["max_tokens"] == 150);
    CHECK(r.meta.source.merged.size() == 2); // the JSON and the CSV
    CHECK(has_note(r, "come from simple_medium_response_c1_genai_perf.json"));
    check_ms(r, "e2e.p50", 18994.885885);
    // servestat's own statistics of the six requests equal GenAI-Perf's (numpy linear, ddof 0)
    stats_options o;
    o.summary.percentiles = {1, 25, 50, 75, 99};
    o.summary.ddof = 0;
    const auto stats = analyze(r, o);
    CHECK(stats.ok == 6);
    CHECK(reported(r, "ok") == 6);
    const auto* e2e = find_summary(stats, "all", metric::e2e);
    REQUIRE(e2e);
    CHECK(*e2e->mean == Approx(*reported(r, "e2e.mean")).epsilon(1e-12));
    CHECK(*e2e->std == Approx(*reported(r, "e2e.std")).epsilon(1e-12));
    CHECK(*e2e->min == Approx(*reported(r, "e2e.min")).epsilon(1e-12));
    for (const double p : {1.0, 25.0, 50.0, 75.0, 99.0}) {
        INFO(p);
        CHECK(*find_percentile(stats, "all", metric::e2e, p) ==
              Approx(*reported(r, "e2e.p" + detail::shortest_number(p))).epsilon(1e-12));
    }
    REQUIRE(stats.rps);
    CHECK(*stats.rps == Approx(*reported(r, "rps")).epsilon(1e-12));
    // token counts differ: the server's usage against GenAI-Perf's gpt2 recount
    CHECK(stats.output_tokens.mean != Approx(*reported(r, "output_tokens.mean")));
    CHECK(has_note(r, "own tokenizer"));

    const auto runs = read_logs(std::vector<std::string>{medium.string()});
    REQUIRE(runs.size() == 1);
    CHECK(runs[0].meta.kind == run_kind::requests);
}

TEST_CASE("a summary alone in a folder with its CSV is one run") {
    const auto runs = read_logs(std::vector<std::string>{quick.string()});
    REQUIRE(runs.size() == 1);
    CHECK(runs[0].meta.source.format == "genai-perf-summary");
}

TEST_CASE("bad GenAI-Perf aggregates name the file, line and field") {
    {
        temp_file f(R"({"request_latency": {"unit": "minutes", "avg": 1.0, "p50": 1.0}})", "x_genai_perf.json");
        const auto e = read_error(genai_perf_summary_format, f.path());
        CHECK(std::string(e.what()).find("request_latency.unit") != std::string::npos);
        CHECK(std::string(e.what()).find("unknown unit 'minutes'") != std::string::npos);
    }
    {
        temp_file f("{\n\"request_latency\": {\"unit\": \"ms\", \"avg\": 1.0,\n \"p50\": \"fast\"}}", "x_genai_perf.json");
        const auto e = read_error(genai_perf_summary_format, f.path());
        CHECK(std::string(e.what()).find("request_latency.p50") != std::string::npos);
    }
    {
        temp_file f(R"({"time_to_first_token": {"unit": "ms", "avg": -3.0, "p50": 1.0}, "input_config": {"streaming": true}})",
                    "x_genai_perf.json");
        CHECK(std::string(read_error(genai_perf_summary_format, f.path()).what()).find("negative mean") != std::string::npos);
    }
    {
        temp_file f("Metric,avg,min,max,p99,p95,p90,p75,p50,p25\nRequest Latency (ms),\"1,14.31\",1,1,1,1,1,1,1,1\n",
                    "x_genai_perf.csv");
        const auto e = read_error(genai_perf_summary_csv_format, f.path());
        CHECK(e.line() == 2);
        CHECK(e.field() == "avg");
        CHECK(std::string(e.what()).find("not a number") != std::string::npos);
    }
    {
        temp_file f("Metric,avg,min,max,p99,p95,p90,p75,p50,p25\nRequest Latency (ms),1,1,1\n", "x_genai_perf.csv");
        CHECK(read_error(genai_perf_summary_csv_format, f.path()).line() == 2);
    }
    {
        temp_file f("Metric,avg,min,max,p99,sometimes\n", "x_genai_perf.csv");
        CHECK(read_error(genai_perf_summary_csv_format, f.path()).field() == "sometimes");
    }
}

TEST_CASE("a broken aggregate beside the records leaves the requests and says why") {
    temp_file f(std::string("{\"experiments\":[{\"experiment\":{\"mode\":\"concurrency\",\"value\":2},\"requests\":[") +
                    "{\"timestamp\":1000000000,\"request_inputs\":{\"payload\":\"{}\"},\"response_timestamps\":[1500000000]," +
                    "\"response_outputs\":[{\"response\":\"{\\\"choices\\\":[{\\\"message\\\":{\\\"content\\\":\\\"hi\\\"}}]}\"}]}]}]}",
                "profile_export.json");
    {
        std::ofstream(f.dir() / "profile_export_genai_perf.json") << R"({"request_latency": {"unit": "furlongs", "avg": 1, "p50": 1}})";
    }
    const run r = read_one(genai_perf_format, f.path());
    CHECK(r.requests.size() == 1);
    CHECK(r.meta.reported.empty());
    CHECK(has_note(r, "Could not read profile_export_genai_perf.json"));
    CHECK(r.meta.source.merged.size() == 1); // still the same run's file: never listed as a run
}

} // namespace test_ingest_genai_perf_summary
