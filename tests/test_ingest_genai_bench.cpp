// genai-bench experiment folders: one run per scenario × concurrency file, its records read without
// a clock, aggregated_metrics reported, experiment_metadata.json giving parameters (never a run).
// Real data: shared/data/genai-bench-glm46 (SOURCE.md's numpy reference numbers); edge cases are
// that file edited (errors, milliseconds, NaN), since no other real output was found.
#include "servestat/ingest/genai_bench.hpp"

#include <filesystem> // std::filesystem
#include <fstream>    // std::ofstream
#include <string>     // std::string

#include "servestat/ingest/detect.hpp"        // detect_format, detect_file_format, read_runs, read_directory
#include "servestat/ingest/json_document.hpp" // read_json_documents
#include "servestat/stats/run_stats.hpp"      // analyze, find_percentile, find_summary

#include "format_reading.hpp" // test::reported, test::has_note, test::read_one, test::read_error, test::file_head
#include "temp_file.hpp"
#include <catch2/catch.hpp>  // TEST_CASE, REQUIRE, CHECK, Approx
#include <nlohmann/json.hpp> // nlohmann::json

namespace test_ingest_genai_bench { // the unity build compiles several test files as one: each keeps its names

using namespace servestat;
using servestat::test::has_note;
using servestat::test::read_one;
using servestat::test::reported;
using json = nlohmann::json;

namespace {

const std::filesystem::path folder = std::filesystem::path(SERVESTAT_SHARED_DATA_DIR) / "genai-bench-glm46";
const std::filesystem::path run_file = folder / "D100_100_text-to-text_zai-org_GLM-4.6_num_concurrency_1_time_300s.json";

json run_object() { return detail::read_json_documents(run_file).front().value; }

// The run file, edited, in a folder of its own (with the real experiment_metadata.json beside it).
struct edited_folder {
    test::temp_file file;
    explicit edited_folder(const std::string& text) : file(text, run_file.filename().string()) {
        std::filesystem::copy_file(folder / "experiment_metadata.json", file.dir() / "experiment_metadata.json");
    }
};

stats_options numpy_options(int ddof = 1) {
    stats_options o;
    o.summary.percentiles = {25, 50, 75, 90, 95, 99};
    o.summary.ddof = ddof;
    return o;
}

} // namespace

TEST_CASE("a genai-bench run file is detected as genai-bench; its experiment_metadata.json is no run") {
    REQUIRE(detect_format(test::file_head(run_file)));
    CHECK(detect_format(test::file_head(run_file))->name == "genai-bench");
    CHECK_FALSE(detect_format(test::file_head(folder / "experiment_metadata.json")));
    try {
        detect_file_format(folder / "experiment_metadata.json");
        FAIL("experiment_metadata.json was accepted");
    } catch (const input_error& e) {
        CHECK(std::string(e.what()).find("holds the experiment's settings, not a run") != std::string::npos);
    }
}

TEST_CASE("genai-bench GLM-4.6 run: 50 records without a clock, parameters from the file and the metadata") {
    const run r = read_one(genai_bench_format, run_file);
    CHECK(r.meta.kind == run_kind::requests);
    CHECK_FALSE(r.meta.shared_clock);
    CHECK(r.requests.size() == 50);
    CHECK(r.meta.model == "zai-org/GLM-4.6");
    CHECK(r.meta.tool == "genai-bench 0.0.2");
    CHECK(r.meta.workload == "D(100,100)");
    CHECK(r.meta.params == json{{"concurrency", 1}, {"scenario", "D(100,100)"}, {"api_backend", "baseten"},
                                {"task", "text-to-text"}});
    REQUIRE(r.meta.source.merged.size() == 1);
    CHECK(std::filesystem::path(r.meta.source.merged[0]).filename() == "experiment_metadata.json");
    const request_record first = r.requests.row(0);
    CHECK(first.t_sent == 0.0);
    CHECK(first.t_first == 0.280286832999991);
    CHECK(first.t_end == 1.2499941659989418);
    CHECK(first.prompt_tokens == 106);
    CHECK(first.output_tokens == 100);
    CHECK(has_note(r, "ddof 0"));
}

TEST_CASE("servestat's statistics of the records equal SOURCE.md's numpy numbers and genai-bench's own") {
    const run r = read_one(genai_bench_format, run_file);
    const auto stats = analyze(r, numpy_options());
    CHECK(stats.ok == 50);
    CHECK(stats.failed == 0);
    // SOURCE.md (numpy linear over the 50 records)
    CHECK(*find_percentile(stats, "all", metric::ttft, 50) == Approx(0.2390346880).margin(5e-11));
    CHECK(*find_percentile(stats, "all", metric::ttft, 99) == Approx(0.6073810327).margin(5e-11));
    CHECK(*find_summary(stats, "all", metric::ttft)->mean == Approx(0.2807920742).margin(5e-11));
    CHECK(*find_percentile(stats, "all", metric::e2e, 50) == Approx(1.1554012915).margin(5e-11));
    CHECK(*find_percentile(stats, "all", metric::e2e, 99) == Approx(1.9014207869).margin(5e-11));
    // the rates use genai-bench's run_duration: 5000 tokens / 58.0819885 s, 50 / 58.0819885 s
    REQUIRE(stats.output_tps);
    CHECK(*stats.output_tps == Approx(86.0852069).margin(5e-8));
    CHECK(*stats.rps == Approx(0.8608521).margin(5e-8));
    CHECK(*stats.output_tps == Approx(*reported(r, "output_tps")).epsilon(1e-12));
    // every percentile genai-bench wrote, for each latency it summarises
    const json agg = run_object()["aggregated_metrics"]["stats"];
    for (const auto& [field, m] : {std::pair{"ttft", metric::ttft}, std::pair{"e2e_latency", metric::e2e},
                                   std::pair{"output_latency", metric::decode}, std::pair{"tpot", metric::tpot}}) {
        for (const char* p : {"p25", "p50", "p75", "p90", "p95", "p99"}) {
            INFO(field << " " << p);
            const double mine = *find_percentile(stats, "all", m, std::stod(p + 1));
            CHECK(mine == Approx(agg[field][p].get<double>()).epsilon(1e-12));
            CHECK(*reported(r, std::string(m == metric::e2e ? "e2e" : m == metric::decode ? "decode" : field) + "." + p) ==
                  agg[field][p].get<double>());
        }
    }
    // stddev is numpy's ddof 0: servestat's with --ddof 0 gives it, its default (ddof 1) does not
    const auto population = analyze(r, numpy_options(0));
    CHECK(*find_summary(population, "all", metric::ttft)->std == Approx(agg["ttft"]["stddev"].get<double>()).epsilon(1e-12));
    CHECK(reported(r, "genai_bench.ttft.stddev") == agg["ttft"]["stddev"].get<double>());
    CHECK_FALSE(reported(r, "ttft.stddev"));
    CHECK(reported(r, "prompt_tokens.mean") == agg["num_input_tokens"]["mean"].get<double>());
    CHECK(reported(r, "genai_bench.output_inference_speed.p50") == agg["output_inference_speed"]["p50"].get<double>());
    CHECK(reported(r, "duration") == 58.08198849999826);
    CHECK(reported(r, "requests") == 50);
}

TEST_CASE("a folder read gives the run once and does not list experiment_metadata.json as unrecognised") {
    std::vector<run> runs;
    load_options o;
    std::vector<passed_over_file> passed;
    o.listed = [&](const directory_listing& l) { passed = l.passed_over; };
    detail::read_directory(folder, o, [&](run&& r) { runs.push_back(std::move(r)); });
    REQUIRE(runs.size() == 1);
    CHECK(runs[0].meta.source.format == "genai-bench");
    for (const auto& p : passed) CHECK(std::filesystem::path(p.path).filename() != "experiment_metadata.json");
}

TEST_CASE("a failed request (error_code) is a failure with its message; statistics inputs stay out") {
    json o = run_object();
    auto& rec = o["individual_request_metrics"][3];
    for (const char* key : {"ttft", "tpot", "e2e_latency", "output_latency", "num_output_tokens"}) rec[key] = nullptr;
    rec["error_code"] = 500;
    rec["error_message"] = "Internal Server Error";
    const edited_folder f(o.dump(4));
    const run r = read_one(genai_bench_format, f.file.path());
    const request_record row = r.requests.row(3);
    CHECK(row.status == request_status::error);
    CHECK(row.http_status == 500);
    CHECK(row.error == "Internal Server Error");
    CHECK_FALSE(row.t_first);
    const auto stats = analyze(r);
    CHECK(stats.ok == 49);
    CHECK(stats.failed == 1);
}

TEST_CASE("--metrics-time-unit ms: times read as seconds") {
    json o = run_object();
    o["_time_unit"] = "ms";
    for (auto& rec : o["individual_request_metrics"])
        for (const char* key : {"ttft", "tpot", "e2e_latency", "output_latency"}) rec[key] = rec[key].get<double>() * 1000;
    for (auto& [stat, value] : o["aggregated_metrics"]["stats"]["ttft"].items()) value = value.get<double>() * 1000;
    const edited_folder f(o.dump(4));
    const run r = read_one(genai_bench_format, f.file.path());
    CHECK(*r.requests.row(0).t_first == Approx(0.280286832999991).epsilon(1e-15));
    CHECK(*reported(r, "ttft.p50") == Approx(0.23903468800017436).epsilon(1e-15));
    CHECK(has_note(r, "milliseconds"));
}

TEST_CASE("a NaN in a record refuses that record only (named); NaN in an aggregate is missing with a note") {
    std::string text = detail::read_json_file(run_file);
    // the second record's ttft (the first "ttft" key is the aggregates'), and their stddev of e2e_latency
    std::size_t at = 0;
    for (int k = 0; k < 3; ++k) at = text.find("\"ttft\": ", at + 1);
    at += 8;
    text.replace(at, text.find(',', at) - at, "NaN");
    const auto sd = text.find("\"stddev\": ", text.find("\"e2e_latency\": {")) + 10;
    text.replace(sd, text.find(',', sd) - sd, "NaN");
    const edited_folder f(text);
    const input_error e = test::read_error(genai_bench_format, f.file.path());
    CHECK(e.field() == "individual_request_metrics[1].ttft");
    CHECK(e.reason().find("NaN") != std::string::npos);
    const run r = read_one(genai_bench_format, f.file.path(), {.skip_bad = true});
    CHECK(r.requests.size() == 49);
    CHECK(r.skipped.count == 1);
    CHECK_FALSE(reported(r, "genai_bench.e2e.stddev"));
    CHECK(has_note(r, "NaN in field aggregated_metrics.stats.e2e_latency.stddev read as missing"));
}

} // namespace test_ingest_genai_bench
