// MLPerf Inference LoadGen logs of LLM runs: mlperf_log_summary.txt (one summary run, its detail log
// beside it merged) and mlperf_log_detail.txt (:::MLLOG lines; a run when alone). Real files from
// mlcommons/inference_results_v4.1 and v5.1 (tests/data/mlperf_loadgen/README.md); every expected
// number below is read by hand off the summary file LoadGen printed, or off the detail line named.
#include "servestat/ingest/mlperf_loadgen.hpp"

#include <filesystem> // std::filesystem::path
#include <fstream>    // std::ifstream, std::ofstream
#include <iterator>   // std::istreambuf_iterator
#include <sstream>    // std::istringstream
#include <string>     // std::string
#include <vector>     // std::vector

#include "servestat/ingest/detect.hpp" // builtin_formats, detect_format, detect_file_format, read_logs, load_options

#include "format_reading.hpp" // test::reported, test::has_note, test::read_one, test::read_error, test::file_head
#include "temp_file.hpp"      // test::temp_file
#include <catch2/catch.hpp>   // TEST_CASE, REQUIRE, CHECK, Approx
#include <nlohmann/json.hpp>  // nlohmann::json

namespace test_ingest_mlperf_loadgen { // the unity build compiles several test files as one: each keeps its names

using namespace servestat;
using servestat::test::file_head;
using servestat::test::has_note;
using servestat::test::read_error;
using servestat::test::read_one;
using servestat::test::reported;
using servestat::test::temp_file;
using json = nlohmann::json;

namespace {

const std::filesystem::path data = std::filesystem::path(SERVESTAT_TEST_DATA_DIR) / "mlperf_loadgen";
const std::filesystem::path mixtral = data / "H200-SXM-141GBx8_TRT" / "mixtral-8x7b" / "Server";
const std::filesystem::path invalid = data / "SR680a_V3_B200SXMx8_TRT" / "llama2-70b-99.9" / "Server";
const std::filesystem::path amd = data / "8xMI300X_2xEPYC_9575F" / "llama2-70b-99";
const std::filesystem::path single = data / "1-node-1x-BMG-Pro-B60-Dual" / "llama3.1-8b-edge" / "SingleStream";
const std::filesystem::path gptj = data / "ESC4000A_E12_4XH100_TRT" / "gptj-99.9" / "Server";
constexpr const char* summary = "mlperf_log_summary.txt";
constexpr const char* detail_log = "mlperf_log_detail.txt";

std::string file_text(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The first `n` lines of a text, each with its newline.
std::string first_lines(const std::string& text, std::size_t n) {
    std::size_t at = 0;
    for (std::size_t k = 0; k < n && at != std::string::npos; ++k) at = text.find('\n', at + (k > 0));
    return text.substr(0, at == std::string::npos ? text.size() : at + 1);
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    return text.replace(at, from.size(), to);
}

// LoadGen's ns figure against the reader's seconds.
void check_ns(const run& r, const std::string& name, double ns) {
    INFO(name);
    const auto v = reported(r, name);
    REQUIRE(v);
    CHECK(*v == Approx(ns * 1e-9).epsilon(1e-12));
}

void check_value(const run& r, const std::string& name, double x) {
    INFO(name);
    const auto v = reported(r, name);
    REQUIRE(v);
    CHECK(*v == Approx(x).epsilon(1e-12));
}

} // namespace

TEST_CASE("LoadGen summaries and detail logs are detected as mlperf-loadgen, and no other format claims them") {
    for (const auto& file : {mixtral / summary, mixtral / detail_log, invalid / summary, invalid / detail_log,
                             amd / "Interactive" / summary, amd / "Offline" / summary, single / summary,
                             single / detail_log, gptj / summary}) {
        INFO(file);
        const std::string head = file_head(file);
        REQUIRE(detect_format(head));
        CHECK(detect_format(head)->name == "mlperf-loadgen");
        for (const auto* f : builtin_formats)
            if (f != &mlperf_loadgen_format) {
                INFO(f->name);
                CHECK(f->sniff(head) == 0);
            }
        // Named alone the file is read, never met with a --map suggestion (the detail log used to be
        // taken for a CSV table).
        CHECK(detect_file_format(file).name == "mlperf-loadgen");
    }
}

TEST_CASE("no other test or shared file is taken for a LoadGen log") {
    std::size_t mine = 0;
    for (const auto& root : {std::filesystem::path(SERVESTAT_TEST_DATA_DIR), std::filesystem::path(SERVESTAT_SHARED_DATA_DIR)}) {
        if (!std::filesystem::exists(root)) continue;
        for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
            if (!e.is_regular_file()) continue;
            const bool here = e.path().string().starts_with(data.string()) && e.path().extension() == ".txt";
            INFO(e.path());
            CHECK((mlperf_loadgen_format.sniff(file_head(e.path())) > 0) == here);
            mine += here;
        }
    }
    CHECK(mine == 9);
}

TEST_CASE("a README quoting a summary, and LoadGen's accuracy-mode summary, are not claimed") {
    CHECK(mlperf_loadgen_format.sniff("# Results\n\n```\n================================================\n"
                                      "MLPerf Results Summary\n================================================\n") == 0);
    CHECK(mlperf_loadgen_format.sniff("\nNo warnings encountered during test.\n\nNo errors encountered during test.\n") == 0);
    CHECK(mlperf_loadgen_format.sniff("key,value\n:::MLLOG,1\n") == 0);
}

TEST_CASE("a Server summary (mixtral-8x7b, LoadGen 4.1) with its detail log beside it is one run") {
    const run r = read_one(mlperf_loadgen_format, mixtral / summary);
    CHECK(r.meta.kind == run_kind::summary);
    CHECK(r.requests.size() == 0);
    CHECK_FALSE(r.meta.shared_clock);
    CHECK(r.meta.source.format == "mlperf-loadgen");
    CHECK(r.meta.label == "H200-SXM-141GBx8_TRT/mixtral-8x7b/Server");
    CHECK(r.meta.model == "mixtral-8x7b");
    CHECK(r.meta.tool == "mlperf-loadgen");
    REQUIRE(r.meta.source.merged.size() == 1);
    CHECK(std::filesystem::path(r.meta.source.merged[0]).filename() == detail_log);
    CHECK(r.meta.started_at == "2024-07-23T20:53:54Z"); // detail line 8, test_datetime
    // "Test Parameters Used": target_qps 392, ttft 2000000000 ns, tpot 200000000 ns, min_duration 2400000 ms,
    // min_query_count 100, samples_per_query 1, performance_sample_count 15000; detail line 1: the version.
    CHECK(r.meta.params == json{{"scenario", "Server"},
                                {"sut_name", "mixtral-8x7b-Server-SUT"},
                                {"result_valid", true},
                                {"loadgen_version", "4.1 @ c83565d85d"},
                                {"system", "H200-SXM-141GBx8_TRT"},
                                {"benchmark", "mixtral-8x7b"},
                                {"request_rate", 392},
                                {"samples_per_query", 1},
                                {"ttft_constraint_s", 2},
                                {"tpot_constraint_s", 0.2},
                                {"min_duration_s", 2400},
                                {"min_query_count", 100},
                                {"performance_sample_count", 15000}});
    CHECK(has_note(r, "e2e_sched"));
    CHECK(has_note(r, "floor(n * p)"));
    CHECK(has_note(r, "(samples - 1)"));
    CHECK_FALSE(has_note(r, "INVALID"));
    CHECK_FALSE(has_note(r, "not read"));
    CHECK_FALSE(has_note(r, "the summary gives")); // the detail log's settings agree with the summary's
    CHECK(has_note(r, "from mlperf_log_detail.txt beside it"));
    // The summary's results block.
    check_value(r, "mlperf.completed_samples_per_sec", 391.79);
    check_value(r, "mlperf.completed_tokens_per_sec", 57177.20);
    check_value(r, "mlperf.scheduled_samples_per_sec", 392.18);
    CHECK_FALSE(reported(r, "rps")); // (samples - 1) / last completion: not servestat's rps
    check_ns(r, "e2e_sched.min", 76708992);
    check_ns(r, "e2e_sched.max", 154402904996);
    check_ns(r, "e2e_sched.mean", 20222944271);
    check_ns(r, "e2e_sched.p50", 15817023370);
    check_ns(r, "e2e_sched.p90", 39222679952);
    check_ns(r, "e2e_sched.p95", 50680500880);
    check_ns(r, "e2e_sched.p97", 59424343749);
    check_ns(r, "e2e_sched.p99", 82255042753);
    check_ns(r, "e2e_sched.p99.9", 138841293663);
    check_ns(r, "mlperf.ttft.min", 19527194);
    check_ns(r, "mlperf.ttft.max", 2425980676);
    check_ns(r, "mlperf.ttft.mean", 227612110);
    check_ns(r, "mlperf.ttft.p50", 215435032);
    check_ns(r, "mlperf.ttft.p90", 329042058);
    check_ns(r, "mlperf.ttft.p95", 497708192);
    check_ns(r, "mlperf.ttft.p97", 515137346);
    check_ns(r, "mlperf.ttft.p99", 539748890);
    check_ns(r, "mlperf.ttft.p99.9", 783409645);
    check_ns(r, "tpot.min", 10001242);
    check_ns(r, "tpot.max", 521330951);
    check_ns(r, "tpot.mean", 138388730);
    check_ns(r, "tpot.p50", 139232802);
    check_ns(r, "tpot.p90", 153033479);
    check_ns(r, "tpot.p95", 157436397);
    check_ns(r, "tpot.p97", 160495835);
    check_ns(r, "tpot.p99", 167039660);
    check_ns(r, "tpot.p99.9", 184377336);
    CHECK_FALSE(reported(r, "ttft.p99")); // LoadGen's TTFT starts at the scheduled time: not servestat's ttft
    // What only the detail log holds: result_query_count 945000 (line 86), the token throughput with
    // LoadGen's overhead 57233.6 (line 108).
    check_value(r, "mlperf.query_count", 945000);
    check_value(r, "mlperf.tps_with_loadgen_overhead", 57233.6);
    // Completed tokens per second heads the summary and its stats: kept once.
    std::size_t tokens = 0;
    for (const auto& v : r.meta.reported) tokens += v.name == "mlperf.completed_tokens_per_sec";
    CHECK(tokens == 1);
}

TEST_CASE("the detail log alone is a run of its own results, with the digits the summary rounds") {
    const run r = read_one(mlperf_loadgen_format, mixtral / detail_log);
    CHECK(r.meta.kind == run_kind::summary);
    CHECK(r.meta.source.merged.empty());
    CHECK(r.meta.label == "H200-SXM-141GBx8_TRT/mixtral-8x7b/Server");
    CHECK(has_note(r, "detail log alone"));
    CHECK(r.meta.params["scenario"] == "Server");
    CHECK(r.meta.params["request_rate"] == 392);               // effective_target_qps
    CHECK(r.meta.params["ttft_constraint_s"] == 2);            // requested_server_ttft_latency
    CHECK(r.meta.params["result_valid"] == true);              // result_validity
    check_value(r, "mlperf.scheduled_samples_per_sec", 392.176); // the summary prints 392.18
    check_value(r, "mlperf.completed_samples_per_sec", 391.79);
    check_value(r, "mlperf.completed_tokens_per_sec", 57177.2);
    check_ns(r, "e2e_sched.p99", 82255042753);
    check_ns(r, "mlperf.ttft.p99", 539748890);
    check_ns(r, "tpot.p99", 167039660);
    check_ns(r, "tpot.mean", 138388730); // result_time_to_output_token_mean: ns without _ns in its key
    // result_token_throughput (7.21647e-09, tokens per ns) is tokens over the sum of all latencies in a
    // Server run, a rate no run achieved: not read.
    CHECK_FALSE(reported(r, "mlperf.tps_without_loadgen_overhead"));
    CHECK_FALSE(reported(r, "mlperf.overlatency_query_count")); // target latency 0: every query counts as over
}

TEST_CASE("a folder with a summary and its detail log reads as one run, the detail not listed again") {
    std::vector<directory_listing> listings;
    load_options o;
    o.listed = [&](const directory_listing& l) { listings.push_back(l); };
    const auto runs = read_logs(std::vector<std::string>{mixtral.string()}, o);
    REQUIRE(runs.size() == 1);
    CHECK(std::filesystem::path(runs[0].meta.source.path).filename() == summary);
    CHECK(reported(runs[0], "mlperf.query_count") == 945000);
    REQUIRE(listings.size() == 1);
    CHECK(listings[0].logs == 1);
    CHECK(listings[0].passed_over.empty());

    // The whole tree: one run per summary, each named by system, benchmark and scenario.
    const auto all = read_logs(std::vector<std::string>{data.string()});
    std::vector<std::string> labels;
    for (const auto& r : all) labels.push_back(r.meta.label);
    std::sort(labels.begin(), labels.end());
    CHECK(labels == std::vector<std::string>{"1-node-1x-BMG-Pro-B60-Dual/llama3.1-8b-edge/SingleStream",
                                             "8xMI300X_2xEPYC_9575F/llama2-70b-99/Interactive",
                                             "8xMI300X_2xEPYC_9575F/llama2-70b-99/Offline",
                                             "ESC4000A_E12_4XH100_TRT/gptj-99.9/Server",
                                             "H200-SXM-141GBx8_TRT/mixtral-8x7b/Server",
                                             "SR680a_V3_B200SXMx8_TRT/llama2-70b-99.9/Server"});
    for (const auto& r : all) {
        INFO(r.meta.label);
        CHECK(r.meta.kind == run_kind::summary);
        CHECK(std::filesystem::path(r.meta.source.path).filename() == summary);
    }
}

TEST_CASE("an INVALID Server run (a ranging run, LoadGen 5.1) keeps LoadGen's verdict and reasons") {
    const run r = read_one(mlperf_loadgen_format, invalid / summary);
    CHECK(r.meta.params["result_valid"] == false);
    CHECK(r.meta.params["request_rate"] == 364);
    CHECK(r.meta.params["loadgen_version"] == "5.1.0 @ 50de99161e"); // the detail log beside it
    CHECK(r.meta.model == "llama2-70b");
    CHECK(r.meta.params["benchmark"] == "llama2-70b-99.9");
    CHECK(r.meta.source.merged.size() == 1);
    CHECK(has_note(r, "LoadGen judged this run INVALID: performance constraints not satisfied, early stopping not "
                      "satisfied"));
    CHECK(has_note(r, "TTFT constrain not met: Reduce target QPS to improve latency."));
    CHECK(has_note(r, "ttft early stopping: Run unsuccessful. Processed 884736 queries. Would need to run at least "
                      "350367 more queries, with the run being successful if every additional query were under latency."));
    CHECK(has_note(r, "sample_concatenate_permutation was set to true."));
    check_value(r, "mlperf.completed_samples_per_sec", 361.63);
    check_value(r, "mlperf.completed_tokens_per_sec", 99204.76);
    check_value(r, "mlperf.scheduled_samples_per_sec", 363.79);
    check_value(r, "mlperf.early_stopping.ttft.processed_queries", 884736);
    check_value(r, "mlperf.early_stopping.ttft.more_queries_needed", 350367);
    CHECK_FALSE(reported(r, "mlperf.early_stopping.tpot.processed_queries")); // " * Run successful." only
    CHECK_FALSE(has_note(r, "tpot early stopping"));
    check_ns(r, "mlperf.ttft.p99", 3849383881);
    check_ns(r, "mlperf.ttft.max", 21575000344);
    check_ns(r, "tpot.p99", 131195386);
    check_ns(r, "e2e_sched.p99.9", 128157465740);

    const run d = read_one(mlperf_loadgen_format, invalid / detail_log);
    CHECK(d.meta.params["result_valid"] == false);
    CHECK(has_note(d, "TTFT constrain not met: Reduce target QPS to improve latency."));
    check_value(d, "mlperf.early_stopping.ttft.more_queries_needed", 350367);
}

TEST_CASE("an Interactive run is LoadGen's Server with tighter limits: the folder names the scenario") {
    const run r = read_one(mlperf_loadgen_format, amd / "Interactive" / summary);
    CHECK(r.meta.params["scenario"] == "Interactive");
    CHECK(r.meta.params["loadgen_scenario"] == "Server");
    CHECK(r.meta.params["request_rate"] == 29.5);
    CHECK(r.meta.params["ttft_constraint_s"] == 0.45);
    CHECK(r.meta.params["tpot_constraint_s"] == 0.04);
    CHECK(r.meta.params["min_duration_s"] == 600);
    CHECK(r.meta.source.merged.empty()); // no detail log beside it
    CHECK_FALSE(r.meta.params.contains("loadgen_version"));
    check_value(r, "mlperf.completed_samples_per_sec", 29.41);
    check_value(r, "mlperf.completed_tokens_per_sec", 8840.42);
    check_value(r, "mlperf.scheduled_samples_per_sec", 29.62);
    check_ns(r, "mlperf.ttft.p99", 435976100);
    check_ns(r, "tpot.p99", 39507635);
    check_ns(r, "tpot.p99.9", 52485852);
    check_ns(r, "e2e_sched.mean", 9716742157);
}

TEST_CASE("an Offline run has no arrival rate: its expected_qps only sizes the one query") {
    const run r = read_one(mlperf_loadgen_format, amd / "Offline" / summary);
    const auto& p = r.meta.params;
    CHECK(p["scenario"] == "Offline");
    CHECK_FALSE(p.contains("request_rate"));
    CHECK(p["expected_qps"] == 93);
    CHECK(p["samples_per_query"] == 245520);
    CHECK(p["max_async_queries"] == 1);
    CHECK(p["min_query_count"] == 1);
    CHECK_FALSE(p.contains("ttft_constraint_s")); // printed, but LoadGen checks no constraint offline
    CHECK(has_note(r, "every sample at once"));
    CHECK(has_note(r, "LoadGen logged 2 warning(s)"));
    check_value(r, "rps", 92.1544);
    check_value(r, "output_tps", 27803.9);
    check_ns(r, "e2e_sched.min", 2641134983966);
    check_ns(r, "e2e_sched.max", 2666829394561);
    check_ns(r, "e2e_sched.p50", 2653473271079);
    CHECK_FALSE(reported(r, "mlperf.ttft.p99")); // Offline prints no token latencies
}

TEST_CASE("a SingleStream run (llama3.1-8b-edge) gives concurrency 1 and its early-stopping estimates") {
    const run r = read_one(mlperf_loadgen_format, single / summary);
    const auto& p = r.meta.params;
    CHECK(p["scenario"] == "SingleStream");
    CHECK(p["concurrency"] == 1);
    CHECK(p["expected_qps"] == 0.285714);
    CHECK(p["min_query_count"] == 5000);
    CHECK_FALSE(p.contains("ttft_constraint_s"));
    CHECK(r.meta.source.merged.size() == 1);
    check_ns(r, "e2e_sched.p90", 3545895439); // the headline, and the same among the percentiles
    check_ns(r, "mlperf.ttft.p90", 245686253);
    check_value(r, "mlperf.qps_with_loadgen_overhead", 0.29);
    check_value(r, "mlperf.qps_without_loadgen_overhead", 0.29);
    check_value(r, "mlperf.tps_with_loadgen_overhead", 37.73);
    check_value(r, "mlperf.tps_without_loadgen_overhead", 37.73);
    check_value(r, "mlperf.early_stopping.ttft.min_queries", 64);
    check_value(r, "mlperf.early_stopping.ttft.processed_queries", 5000);
    check_value(r, "mlperf.early_stopping.ttft.discarded_queries", 449);
    check_ns(r, "mlperf.early_stopping.ttft.p90", 272739682);
    check_ns(r, "mlperf.early_stopping.ttft.p99", 333755801);
    check_ns(r, "mlperf.early_stopping.tpot.p90", 26493158);
    check_ns(r, "mlperf.early_stopping.tpot.p99", 27141604);
    check_ns(r, "tpot.min", 24473849);
    // Only in the detail log: result_query_count 5000, result_completed_tokens_per_second 37.7249.
    check_value(r, "mlperf.query_count", 5000);
    check_value(r, "mlperf.completed_tokens_per_sec", 37.7249);
    // Alone, the detail log's result_token_throughput 3.77261e-08 is tokens per ns: the summary's 37.73 tok/s.
    const run d = read_one(mlperf_loadgen_format, single / detail_log);
    check_value(d, "mlperf.tps_without_loadgen_overhead", 37.7261);
    CHECK(has_note(d, "tokens per nanosecond"));
    check_ns(d, "mlperf.early_stopping.ttft.p99", 333755801); // early_stopping_ttft_result, its lines joined
    std::size_t p90 = 0;
    for (const auto& v : r.meta.reported) p90 += v.name == "e2e_sched.p90";
    CHECK(p90 == 1);
}

TEST_CASE("a run without token latencies (gptj, LoadGen 4.1) reports inferred tokens and its latency limit") {
    const run r = read_one(mlperf_loadgen_format, gptj / summary);
    CHECK(r.meta.params["request_rate"] == 88);
    CHECK(r.meta.params["target_latency_s"] == 20);
    CHECK(r.meta.model == "gptj");
    check_value(r, "mlperf.completed_samples_per_sec", 87.97);
    check_value(r, "mlperf.inferred_completed_tokens_per_sec", 6070.26);
    check_value(r, "mlperf.scheduled_samples_per_sec", 88.21);
    check_ns(r, "e2e_sched.p99", 5254371612);
    CHECK_FALSE(reported(r, "mlperf.completed_tokens_per_sec"));
    CHECK(has_note(r, "(inferred)"));
}

TEST_CASE("bad summaries fail with the file, line and field") {
    const std::string text = file_text(mixtral / summary);
    SECTION("truncated in its statistics") {
        const temp_file f(first_lines(text, 30), summary);
        const auto e = read_error(mlperf_loadgen_format, f.path());
        CHECK(e.file() == f.str());
        CHECK(e.field() == "Test Parameters Used");
        CHECK(std::string(e.what()).find("truncated") != std::string::npos);
    }
    SECTION("cut before its closing lines") {
        const temp_file f(first_lines(text, 60), summary);
        CHECK(read_error(mlperf_loadgen_format, f.path()).field() == "No errors encountered during test.");
    }
    SECTION("a word where a number must be") {
        const temp_file f(replaced(text, "Completed samples per second    : 391.79", "Completed samples per second    : n/a"),
                          summary);
        const auto e = read_error(mlperf_loadgen_format, f.path());
        CHECK(e.line() == 7);
        CHECK(e.field() == "Completed samples per second");
        CHECK(e.reason() == "expected a number, got \"n/a\"");
    }
    SECTION("a latency that is no whole number of ns") {
        const temp_file f(replaced(text, "Max First Token latency (ns)                : 2425980676",
                                   "Max First Token latency (ns)                : 24259.80676"),
                          summary);
        const auto e = read_error(mlperf_loadgen_format, f.path());
        CHECK(e.field() == "Max First Token latency (ns)");
        CHECK(e.line() == 35);
    }
    SECTION("a result that is neither VALID nor INVALID") {
        const temp_file f(replaced(text, "Result is : VALID", "Result is : MAYBE"), summary);
        const auto e = read_error(mlperf_loadgen_format, f.path());
        CHECK(e.field() == "Result is");
        CHECK(e.line() == 9);
    }
    SECTION("a bad figure in an early-stopping block") {
        const std::string bad = replaced(file_text(invalid / summary), "Processed 884736 queries.", "Processed many queries.");
        const temp_file f(bad, summary);
        CHECK(read_error(mlperf_loadgen_format, f.path()).field() == "TTFT Early Stopping Result");
    }
    SECTION("a setting that is not a number") {
        const temp_file f(replaced(text, "target_qps : 392", "target_qps : fast"), summary);
        const auto e = read_error(mlperf_loadgen_format, f.path());
        CHECK(e.field() == "target_qps");
        CHECK(e.line() == 58);
    }
}

TEST_CASE("bad detail logs fail with the file, line and key") {
    const std::string text = file_text(mixtral / detail_log);
    SECTION("cut in the middle of a line") {
        const temp_file f(text.substr(0, text.find("\"result_query_count\"") + 30), detail_log);
        const auto e = read_error(mlperf_loadgen_format, f.path());
        CHECK(e.line() == 86);
        CHECK(std::string(e.what()).find("truncated") != std::string::npos);
    }
    SECTION("cut before its results") {
        const temp_file f(first_lines(text, 70), detail_log);
        const auto e = read_error(mlperf_loadgen_format, f.path());
        CHECK(e.field() == "result_validity");
        CHECK(e.line() == 70);
    }
    SECTION("a string where a number must be") {
        const temp_file f(replaced(text, "\"key\": \"result_completed_samples_per_sec\", \"value\": 391.79",
                                   "\"key\": \"result_completed_samples_per_sec\", \"value\": \"fast\""),
                          detail_log);
        const auto e = read_error(mlperf_loadgen_format, f.path());
        CHECK(e.line() == 89);
        CHECK(e.field() == "result_completed_samples_per_sec");
    }
    SECTION("a line that is no :::MLLOG record") {
        const temp_file f(first_lines(text, 10) + "Traceback (most recent call last):\n" + text.substr(first_lines(text, 10).size()),
                          detail_log);
        CHECK(read_error(mlperf_loadgen_format, f.path()).line() == 11);
    }
    SECTION("an accuracy-mode log holds no run") {
        const std::string accuracy =
            replaced(first_lines(text, 70), "\"key\": \"effective_test_mode\", \"value\": \"PerformanceOnly\"",
                     "\"key\": \"effective_test_mode\", \"value\": \"AccuracyOnly\"");
        const temp_file f(accuracy, detail_log);
        CHECK_THROWS_AS(mlperf_loadgen_format.read(f.path(), {}), not_a_run_error);
    }
}

TEST_CASE("a broken or foreign detail log beside a summary leaves the summary's run whole") {
    const std::string text = file_text(mixtral / summary);
    SECTION("broken") {
        const temp_file f(text, summary);
        std::ofstream(f.dir() / detail_log, std::ios::binary) << first_lines(file_text(mixtral / detail_log), 70);
        const run r = read_one(mlperf_loadgen_format, f.path());
        CHECK(r.meta.source.merged.empty());
        CHECK(has_note(r, "could not be read"));
        check_value(r, "mlperf.completed_samples_per_sec", 391.79);
        CHECK(r.meta.label == "mixtral-8x7b-Server-SUT/Server"); // no result tree on the path
    }
    SECTION("another run's") {
        const temp_file f(text, summary);
        std::ofstream(f.dir() / detail_log, std::ios::binary) << file_text(single / detail_log);
        const run r = read_one(mlperf_loadgen_format, f.path());
        CHECK(r.meta.source.merged.empty());
        CHECK(has_note(r, "another run"));
        CHECK_FALSE(r.meta.params.contains("loadgen_version"));
    }
}

} // namespace test_ingest_mlperf_loadgen
