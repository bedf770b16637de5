// Tests for servestat/ingest/aiperf.hpp and aiperf_summary.hpp (AIPerf's profile_export.jsonl and
// its aggregate JSON and CSV) and servestat/ingest/genai_perf.hpp (GenAI-Perf's profile_export.json).
//
// AIPerf: the real run in SERVESTAT_SHARED_DATA_DIR/aiperf-example/run1 (see its SOURCE.md). Its
// own aggregates (profile_export_aiperf.json, computed by AIPerf with np.percentile and np.std)
// are the expected values: servestat's statistics over the per-request records must reproduce
// them. GenAI-Perf: no real file could be found, so tests/data/genai_perf/ holds hand-made files
// in perf_analyzer's documented layout (see the README there); their expected values are the
// fixtures' own timestamps, subtracted by hand.
#include "servestat/ingest/aiperf.hpp"
#include "servestat/ingest/aiperf_multi_run.hpp"
#include "servestat/ingest/aiperf_report_v2.hpp"
#include "servestat/ingest/aiperf_summary.hpp"
#include "servestat/ingest/genai_perf.hpp"

#include <algorithm>   // std::max, std::any_of
#include <cmath>       // std::abs
#include <cstddef>     // std::size_t
#include <filesystem>  // std::filesystem
#include <fstream>     // std::ifstream
#include <iterator>    // std::istreambuf_iterator
#include <optional>    // std::optional
#include <string>      // std::string
#include <string_view> // std::string_view
#include <vector>      // std::vector

#include <nlohmann/json.hpp> // nlohmann::json

#include "servestat/stats/run_stats.hpp" // analyze, find_summary

#include "format_fixtures.hpp"
#include "format_reading.hpp"
#include "temp_file.hpp"

#include <catch2/catch.hpp> // TEST_CASE, REQUIRE, CHECK

namespace test_ingest_aiperf { // the unity build compiles several test files as one: each keeps its names

namespace {

using servestat::test::has_note;

using servestat::test::file_head;
using servestat::test::read_error;
using servestat::test::read_one;

namespace fs = std::filesystem;
using servestat::aiperf_format;
using servestat::aiperf_summary_csv_format;
using servestat::aiperf_summary_format;
using servestat::genai_perf_format;
using servestat::input_error;
using servestat::metric;
using servestat::read_options;
using servestat::request_record;
using servestat::request_status;
using servestat::test::temp_file;

const fs::path aiperf_dir = fs::path(SERVESTAT_SHARED_DATA_DIR) / "aiperf-example" / "run1";
const fs::path aiperf_records = aiperf_dir / "profile_export.jsonl";
const fs::path aiperf_json = aiperf_dir / "profile_export_aiperf.json";
const fs::path aiperf_csv = aiperf_dir / "profile_export_aiperf.csv";

// The earliest request start of the run (metadata.timestamp_ns of line 20), read off the file.
constexpr long long aiperf_t0 = 1759522419154568925LL;

const servestat::test::format_fixtures genai{genai_perf_format, "genai_perf"};

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<std::string> lines_of(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

servestat::run aiperf_run() { return read_one(aiperf_format, aiperf_records); }

const servestat::reported_value* reported(const servestat::run& r, std::string_view name) {
    return servestat::find_reported(r.meta, name);
}

bool agrees(double a, double b, double rel = 1e-9) {
    return std::abs(a - b) <= rel * std::max(std::abs(a), std::abs(b)) || std::abs(a - b) < 1e-300;
}

// AIPerf's own statistics settings: np.percentile (linear) at these points, np.std (ddof 0).
servestat::stats_options aiperf_statistics() {
    servestat::stats_options o;
    o.summary.ddof = 0;
    o.summary.percentiles = {1, 5, 25, 50, 75, 90, 95, 99};
    return o;
}

// The servestat value AIPerf's statistic `key` ("avg", "p50", "std", "count", ...) corresponds to.
std::optional<double> statistic(const servestat::summary& s, std::string_view key) {
    if (key == "avg") return s.mean;
    if (key == "min") return s.min;
    if (key == "max") return s.max;
    if (key == "std") return s.std;
    if (key == "count") return static_cast<double>(s.n);
    return servestat::find_percentile(s, std::stod(std::string(key.substr(1))));
}

constexpr std::string_view aiperf_stat_keys[] = {"avg", "min", "max", "p1", "p5", "p25", "p50",
                                                 "p75", "p90", "p95", "p99", "std", "count"};

// The servestat summary that a servestat-named reported value ("ttft.p50", "prompt_tokens.n")
// belongs to; nullptr for run-level names.
const servestat::summary* summary_for(const servestat::run_stats& s, std::string_view name) {
    const std::string metric_name(name.substr(0, name.find('.')));
    if (metric_name == "prompt_tokens") return &s.prompt_tokens;
    if (metric_name == "output_tokens") return &s.output_tokens;
    for (metric m : {metric::e2e, metric::ttft, metric::itl, metric::tpot})
        if (servestat::to_string(m) == metric_name) return servestat::find_summary(s, "all", m);
    return nullptr;
}

// servestat's value for a reported name: a run-level figure or a metric's statistic.
std::optional<double> servestat_value(const servestat::run_stats& s, std::string_view name) {
    if (name == "ok") return static_cast<double>(s.ok);
    if (name == "failed") return static_cast<double>(s.failed);
    if (name == "duration") return s.duration;
    if (name == "rps") return s.rps;
    if (name == "output_tps") return s.output_tps;
    const servestat::summary* summary = summary_for(s, name);
    REQUIRE(summary != nullptr);
    const std::string stat(name.substr(name.find('.') + 1));
    if (stat == "mean") return summary->mean;
    if (stat == "std") return summary->std;
    if (stat == "min") return summary->min;
    if (stat == "max") return summary->max;
    if (stat == "n") return static_cast<double>(summary->n);
    return servestat::find_percentile(*summary, std::stod(stat.substr(1)));
}

bool is_servestat_name(std::string_view name) { return !name.starts_with("aiperf."); }

} // namespace

// ---------------------------------------------------------------- AIPerf per-request records

TEST_CASE("the AIPerf formats are named aiperf, aiperf-summary and aiperf-summary-csv") {
    CHECK(aiperf_format.name == "aiperf");
    CHECK(aiperf_summary_format.name == "aiperf-summary");
    CHECK(aiperf_summary_csv_format.name == "aiperf-summary-csv");
    CHECK(genai_perf_format.name == "genai-perf");
}

TEST_CASE("every AIPerf record becomes one request: 89 completed and 11 cancelled") {
    const servestat::run run = aiperf_run();
    REQUIRE(run.requests.size() == 100);
    std::size_t ok = 0, cancelled = 0;
    for (auto s : run.requests.status()) {
        ok += s == request_status::ok;
        cancelled += s == request_status::cancelled;
    }
    CHECK(ok == 89);
    CHECK(cancelled == 11);
    CHECK(run.skipped.count == 0);
}

TEST_CASE("a cancelled AIPerf record keeps its error and has no latency") {
    const request_record r = aiperf_run().requests.row(0);
    CHECK(r.status == request_status::cancelled);
    CHECK(r.error == "RequestCancellationError: Request was cancelled after 0.000 seconds");
    CHECK_FALSE(r.http_status.has_value());
    CHECK_FALSE(r.t_first.has_value());
    CHECK_FALSE(r.t_end.has_value());
    // It was sent: 1759522419154829652 - t0 ns.
    CHECK(r.t_sent == 260727 / 1e9);
}

TEST_CASE("AIPerf times are epoch nanoseconds minus the run's earliest start, as integers") {
    // Line 12, the first completed record: timestamp_ns 1759522419159192408, ttft 1680.543782 ms,
    // max_response_timestamp 1759522427096160677.
    const request_record r = aiperf_run().requests.row(11);
    REQUIRE(r.status == request_status::ok);
    CHECK(r.t_sent == (1759522419159192408LL - aiperf_t0) / 1e9);
    CHECK(r.t_first == (1759522419159192408LL + 1680543782LL - aiperf_t0) / 1e9);
    CHECK(r.t_end == (1759522427096160677LL - aiperf_t0) / 1e9);
    CHECK(agrees(*r.t_end - *r.t_sent, 7.936968269, 1e-12)); // its request_latency
}

TEST_CASE("an AIPerf run starts at its earliest record") {
    const servestat::run run = aiperf_run();
    CHECK(run.meta.started_at == "2025-10-03T20:13:39.154Z"); // 1759522419154568925 ns, UTC
    const auto sent = run.requests.t_sent();
    CHECK(*std::min_element(sent.begin(), sent.end()) == 0.0);
    CHECK(run.requests.row(19).t_sent == 0.0); // line 20 holds the earliest timestamp_ns
}

TEST_CASE("AIPerf token counts are input_sequence_length and output_sequence_length") {
    const request_record r = aiperf_run().requests.row(11);
    CHECK(r.prompt_tokens == 550);
    CHECK(r.output_tokens == 193); // 61 answer + 132 reasoning tokens: all generated tokens
}

TEST_CASE("AIPerf's inter_chunk_latency becomes the request's itl in seconds") {
    const request_record r = aiperf_run().requests.row(11);
    REQUIRE(r.itl.size() == 192);
    CHECK(r.itl[0] == 134.440792 / 1e3);
    CHECK(r.itl[1] == 141.307763 / 1e3);
}

TEST_CASE("an AIPerf run is labelled by its artifact directory and described by the aggregate file beside it") {
    const servestat::run run = aiperf_run();
    CHECK(run.meta.label == "run1");
    CHECK(run.meta.tool == "aiperf");
    CHECK(run.meta.source.format == "aiperf");
    CHECK(run.meta.source.path == aiperf_records.string());
    CHECK(run.meta.kind == servestat::run_kind::requests);
    CHECK(run.meta.model == "openai/gpt-oss-20b");
    CHECK(run.meta.params["concurrency"] == 100);
    CHECK(run.meta.params["request_count"] == 100);
    CHECK(run.meta.params["streaming"] == true);
    CHECK(run.meta.params["endpoint_type"] == "chat");
    CHECK(run.meta.params["osl"] == 250);
    CHECK(run.meta.params["request_cancellation_rate"] == 10.0);
}

TEST_CASE("AIPerf notes say that output tokens include reasoning and that cancellations were deliberate") {
    const servestat::run run = aiperf_run();
    CHECK(has_note(run, "19792 of the 21624 output tokens")); // total_reasoning_tokens, total_osl
    CHECK(has_note(run, "11 requests were cancelled by AIPerf"));
    CHECK(has_note(run, "ddof 0"));
}

TEST_CASE("without the aggregate file beside it an AIPerf run has no parameters and no reported values") {
    temp_file copy(slurp(aiperf_records), "profile_export.jsonl");
    const servestat::run run = read_one(aiperf_format, copy.path());
    CHECK(run.requests.size() == 100);
    CHECK(run.meta.reported.empty());
    CHECK(run.meta.params.empty());
    CHECK(run.meta.model.empty());
}

// ------------------------------------------------ cross-check with AIPerf's own aggregates

TEST_CASE("servestat reproduces every AIPerf statistic of ttft, e2e, itl and tpot from the records") {
    // profile_export_aiperf.json: np.percentile (linear) and np.std (ddof 0) over the completed
    // requests, in ms. Matching them to 1e-9 relative shows both the reader's times and
    // AIPerf's metric definitions line up with servestat's.
    const auto aggregates = nlohmann::json::parse(slurp(aiperf_json));
    const auto stats = servestat::analyze(aiperf_run(), aiperf_statistics());
    const std::pair<std::string_view, metric> pairs[] = {{"ttft", metric::ttft},
                                                         {"request_latency", metric::e2e},
                                                         {"inter_chunk_latency", metric::itl},
                                                         {"inter_token_latency", metric::tpot}};
    for (const auto& [tag, m] : pairs) {
        const auto& record = aggregates["records"][std::string(tag)];
        REQUIRE(record["unit"] == "ms");
        const servestat::summary* s = servestat::find_summary(stats, "all", m);
        REQUIRE(s != nullptr);
        for (const auto key : aiperf_stat_keys) {
            INFO(tag << "." << key);
            const double expected = record[std::string(key)].get<double>() / (key == "count" ? 1.0 : 1e3);
            const auto actual = statistic(*s, key);
            REQUIRE(actual.has_value());
            CHECK(agrees(*actual, expected));
        }
    }
}

TEST_CASE("servestat reproduces AIPerf's input and output sequence length statistics") {
    const auto aggregates = nlohmann::json::parse(slurp(aiperf_json));
    const auto stats = servestat::analyze(aiperf_run(), aiperf_statistics());
    const std::pair<std::string_view, const servestat::summary*> pairs[] = {
        {"input_sequence_length", &stats.prompt_tokens}, {"output_sequence_length", &stats.output_tokens}};
    for (const auto& [tag, s] : pairs) {
        const auto& record = aggregates["records"][std::string(tag)];
        for (const auto key : aiperf_stat_keys) {
            INFO(tag << "." << key);
            const auto actual = statistic(*s, key);
            REQUIRE(actual.has_value());
            CHECK(agrees(*actual, record[std::string(key)].get<double>()));
        }
    }
}

TEST_CASE("AIPerf's std is the population std: ddof 1 would not match") {
    const auto aggregates = nlohmann::json::parse(slurp(aiperf_json));
    auto options = aiperf_statistics();
    options.summary.ddof = 1;
    const auto stats = servestat::analyze(aiperf_run(), options);
    const double aiperf_std = aggregates["records"]["ttft"]["std"].get<double>() / 1e3;
    const double sample_std = *servestat::find_summary(stats, "all", metric::ttft)->std;
    // n = 89: the sample std is sqrt(89/88) = 1.0057 times the population std.
    CHECK(agrees(sample_std, aiperf_std * std::sqrt(89.0 / 88.0)));
    CHECK_FALSE(agrees(sample_std, aiperf_std, 1e-3));
}

TEST_CASE("AIPerf's duration, request and output token throughput are servestat's duration, rps and output_tps") {
    // AIPerf: benchmark_duration = max_response_timestamp - min_request_timestamp over completed
    // requests; request_throughput = completed / duration; output_token_throughput = total_osl /
    // duration. servestat: first t_sent to last t_end of requests that have both (the cancelled
    // ones have no end), ok / duration, output tokens of ok requests / duration.
    const auto aggregates = nlohmann::json::parse(slurp(aiperf_json));
    const auto stats = servestat::analyze(aiperf_run(), aiperf_statistics());
    REQUIRE(stats.duration.has_value());
    CHECK(stats.duration_from == servestat::duration_source::requests);
    CHECK(agrees(*stats.duration, aggregates["records"]["benchmark_duration"]["avg"].get<double>()));
    CHECK(agrees(*stats.rps, aggregates["records"]["request_throughput"]["avg"].get<double>()));
    CHECK(agrees(*stats.output_tps, aggregates["records"]["output_token_throughput"]["avg"].get<double>()));
    CHECK(stats.ok == aggregates["records"]["request_count"]["avg"].get<double>());
    CHECK(stats.failed == aggregates["records"]["error_request_count"]["avg"].get<double>());
}

TEST_CASE("AIPerf's reported values keep its numbers under servestat's names, in the file's order") {
    const servestat::run run = aiperf_run();
    REQUIRE_FALSE(run.meta.reported.empty());
    CHECK(run.meta.reported.front().name == "failed"); // error_request_count comes first in the file
    const auto* tpot = reported(run, "tpot.p50");
    REQUIRE(tpot != nullptr);
    CHECK(tpot->value == 27.615130366666666 / 1e3);
    CHECK(tpot->unit == "s");
    const auto* ttst = reported(run, "aiperf.ttst.p50"); // no servestat counterpart: AIPerf's ms
    REQUIRE(ttst != nullptr);
    CHECK(ttst->value == 136.642199);
    CHECK(ttst->unit == "ms");
    CHECK(reported(run, "ok")->value == 89);
    CHECK(reported(run, "failed")->value == 11);
    CHECK(reported(run, "duration")->value == 9.317788951);
    CHECK(reported(run, "rps")->unit == "req/s");
    CHECK(reported(run, "output_tps")->unit == "tok/s");
    CHECK(reported(run, "itl.n")->value == 21537);
    CHECK(reported(run, "prompt_tokens.mean")->unit == "tokens");
    CHECK(reported(run, "aiperf.total_reasoning_tokens")->value == 19792);
    CHECK(reported(run, "aiperf.inter_token_latency.p50") == nullptr); // renamed to tpot
}

TEST_CASE("every servestat-named value AIPerf reported agrees with servestat's own statistics") {
    const servestat::run run = aiperf_run();
    const auto stats = servestat::analyze(run, aiperf_statistics());
    std::size_t compared = 0;
    for (const auto& v : run.meta.reported) {
        if (!is_servestat_name(v.name)) continue;
        INFO(v.name);
        const auto mine = servestat_value(stats, v.name);
        REQUIRE(mine.has_value());
        CHECK(agrees(*mine, v.value));
        ++compared;
    }
    CHECK(compared == 6 * 13 + 5); // six metrics × 13 statistics, then ok, failed, duration, rps, output_tps
}

TEST_CASE("AIPerf's CSV agrees with servestat within its 2-decimal rounding") {
    // Values are rounded to 0.01 in the CSV's unit: 0.005 absolute, i.e. 5e-6 s for ms metrics.
    const servestat::run csv = read_one(aiperf_summary_csv_format, aiperf_csv);
    const auto stats = servestat::analyze(aiperf_run(), aiperf_statistics());
    std::size_t compared = 0;
    for (const auto& v : csv.meta.reported) {
        if (!is_servestat_name(v.name)) continue;
        INFO(v.name);
        const auto mine = servestat_value(stats, v.name);
        REQUIRE(mine.has_value());
        const bool from_ms = v.unit == "s" && v.name != "duration";
        CHECK(std::abs(*mine - v.value) <= (from_ms ? 0.005 / 1e3 : 0.005) * (1 + 1e-9));
        ++compared;
    }
    CHECK(compared == 6 * 12 + 5); // the CSV has no count column
}

// ---------------------------------------------------------------- AIPerf aggregates alone

TEST_CASE("AIPerf's aggregate JSON is a summary run with AIPerf's numbers and no requests") {
    const servestat::run run = read_one(aiperf_summary_format, aiperf_json);
    CHECK(run.meta.kind == servestat::run_kind::summary);
    CHECK(run.requests.empty());
    CHECK(run.meta.label == "run1");
    CHECK(run.meta.source.format == "aiperf-summary");
    CHECK(run.meta.model == "openai/gpt-oss-20b");
    CHECK(run.meta.params["concurrency"] == 100);
    CHECK(run.meta.started_at == "2025-10-03T20:13:39.154Z"); // min_request_timestamp
    CHECK(reported(run, "e2e.p99")->value == 9297.609933759999 / 1e3);
    CHECK(reported(run, "ttft.std")->value == 1049.8164554204095 / 1e3);
    CHECK(has_note(run, "no per-request records"));
}

TEST_CASE("AIPerf's aggregate CSV is a summary run with the same names") {
    const servestat::run run = read_one(aiperf_summary_csv_format, aiperf_csv);
    CHECK(run.meta.kind == servestat::run_kind::summary);
    CHECK(run.requests.empty());
    CHECK(run.meta.source.format == "aiperf-summary-csv");
    CHECK(run.meta.started_at == "2025-10-03T20:13:39.154Z");
    CHECK(reported(run, "ttft.p50")->value == 2369.32 / 1e3);
    CHECK(reported(run, "aiperf.ttst.p50")->value == 136.64);
    CHECK(reported(run, "failed")->value == 11);
    CHECK(reported(run, "duration")->value == 9.32);
    CHECK(reported(run, "aiperf.output_token_throughput_per_user.mean")->unit == "tokens/sec/user");
    CHECK(has_note(run, "2 decimals"));
}

// ---------------------------------------------------------------- AIPerf: documented layout

TEST_CASE("AIPerf records in the documented layout read with request_start_ns and time_to_first_token") {
    // From AIPerf's docs/tutorials/working-with-profile-exports.md (the doc's duplicate
    // time_to_first_token key dropped): request_end_ns lies 8.3 ms after start + request_latency
    // (it includes the end of the stream), so the end comes from request_latency.
    temp_file file(
        R"({"metadata":{"session_num":45,"x_request_id":"7609a2e7","turn_index":0,"request_start_ns":1759813207532900363,"request_ack_ns":1759813207650730976,"request_end_ns":1759813207838764604,"worker_id":"worker_359d423a","record_processor_id":"record_processor_1fa47cd7","benchmark_phase":"profiling","was_cancelled":false,"cancellation_time_ns":null},"metrics":{"input_sequence_length":{"value":550,"unit":"tokens"},"time_to_first_token":{"value":255.88656799999998,"unit":"ms"},"request_latency":{"value":297.52522799999997,"unit":"ms"},"output_token_count":{"value":9,"unit":"tokens"},"inter_chunk_latency":{"value":[4.898437,5.316006,4.801489,5.674918,4.811467,5.097998,5.504797,5.533548],"unit":"ms"},"output_sequence_length":{"value":9,"unit":"tokens"},"inter_token_latency":{"value":5.2048325,"unit":"ms"}},"error":null})"
        "\n"
        R"({"metadata":{"session_num":80,"x_request_id":"c35e4b1b","turn_index":0,"request_start_ns":1759813207532800363,"request_ack_ns":null,"request_end_ns":1759813207533425291,"worker_id":"worker_6006099d","record_processor_id":"record_processor_fdeeec8f","benchmark_phase":"profiling","was_cancelled":true,"cancellation_time_ns":1759813207533425291},"metrics":{"error_isl":{"value":550,"unit":"tokens"}},"error":{"code":499,"type":"RequestCancellationError","message":"Request was cancelled after 0.000 seconds"}})"
        "\n"
        R"({"metadata":{"session_num":1,"x_request_id":"w","request_start_ns":1759813207000000000,"benchmark_phase":"warmup"},"metrics":{"request_latency":{"value":1.0,"unit":"ms"}},"error":null})"
        "\n",
        "profile_export.jsonl");
    const servestat::run run = read_one(aiperf_format, file.path());
    REQUIRE(run.requests.size() == 2); // the warmup record is left out
    const request_record ok = run.requests.row(0);
    CHECK(ok.t_sent == 100000 / 1e9); // 100 µs after the cancelled request's start
    CHECK(ok.t_first == (100000 + 255886568) / 1e9);
    CHECK(ok.t_end == (100000 + 297525228) / 1e9);
    CHECK(ok.itl.size() == 8);
    const request_record cancelled = run.requests.row(1);
    CHECK(cancelled.status == request_status::cancelled);
    CHECK(cancelled.t_sent == 0.0);
    CHECK(cancelled.prompt_tokens == 550); // error_isl
    CHECK(has_note(run, "1 warmup records were left out"));
}

TEST_CASE("a failed AIPerf record with an HTTP code is an error with that status") {
    temp_file file(
        R"({"metadata":{"x_request_id":"a","timestamp_ns":1759522419154829652},"metrics":{"error_request_count":{"value":1,"unit":"requests"}},"error":{"code":503,"type":"HTTPError","message":"Service Unavailable"}})"
        "\n");
    const request_record r = read_one(aiperf_format, file.path()).requests.row(0);
    CHECK(r.status == request_status::error);
    CHECK(r.http_status == 503);
    CHECK(r.error == "HTTPError: Service Unavailable");
    CHECK_FALSE(r.t_end.has_value());
}

// ---------------------------------------------------------------- AIPerf: bad input

namespace {

// Line 12 of the real file (a completed request) with one substring replaced.
std::string completed_line_with(std::string_view from, std::string_view to) {
    std::string line = lines_of(aiperf_records).at(11);
    const auto at = line.find(from);
    REQUIRE(at != std::string::npos);
    line.replace(at, from.size(), to);
    return line + "\n";
}

std::string completed_line() { return lines_of(aiperf_records).at(11) + "\n"; }

} // namespace

TEST_CASE("a truncated AIPerf line names its line") {
    const std::string line = lines_of(aiperf_records).at(11);
    temp_file file(completed_line() + line.substr(0, line.size() / 2) + "\n");
    const input_error e = read_error(aiperf_format, file.path());
    CHECK(e.line() == 2);
    CHECK(std::string(e.what()).find("truncated") != std::string::npos);
}

TEST_CASE("an AIPerf timestamp written as a string names its field") {
    temp_file file(completed_line_with(R"("timestamp_ns":1759522419159192408)", R"("timestamp_ns":"1759522419159192408")"));
    const input_error e = read_error(aiperf_format, file.path());
    CHECK(e.line() == 1);
    CHECK(e.field() == "metadata.timestamp_ns");
}

TEST_CASE("an AIPerf metric in an unknown unit names its field") {
    temp_file file(completed_line_with(R"("ttft":{"value":1680.543782,"unit":"ms"})", R"("ttft":{"value":1680.543782,"unit":"min"})"));
    const input_error e = read_error(aiperf_format, file.path());
    CHECK(e.field() == "metrics.ttft.unit");
    CHECK(std::string(e.what()).find("unknown unit 'min'") != std::string::npos);
}

TEST_CASE("an AIPerf token count in an unknown unit names its field") {
    temp_file file(completed_line_with(R"("input_sequence_length":{"value":550,"unit":"tokens"})",
                                       R"("input_sequence_length":{"value":550,"unit":"characters"})"));
    CHECK(read_error(aiperf_format, file.path()).field() == "metrics.input_sequence_length.unit");
}

TEST_CASE("an AIPerf chunk gap that is not a number names its index") {
    temp_file file(completed_line_with("[134.440792,141.307763", R"([134.440792,"141.307763")"));
    CHECK(read_error(aiperf_format, file.path()).field() == "metrics.inter_chunk_latency.value[1]");
}

TEST_CASE("an AIPerf ttft longer than the request's latency is an error") {
    temp_file file(completed_line_with(R"("ttft":{"value":1680.543782,)", R"("ttft":{"value":9680.543782,)"));
    CHECK(read_error(aiperf_format, file.path()).field() == "metrics.ttft");
}

TEST_CASE("a negative AIPerf latency is an error") {
    temp_file file(completed_line_with(R"("ttft":{"value":1680.543782,)", R"("ttft":{"value":-1680.543782,)"));
    CHECK(read_error(aiperf_format, file.path()).field() == "metrics.ttft.value");
}

TEST_CASE("a completed AIPerf record without a start names the field it needs") {
    std::string line = completed_line_with(R"("timestamp_ns":1759522419159192408,)", "");
    const auto at = line.find(R"("min_request_timestamp":{"value":1759522419159192408,"unit":"ns"},)");
    REQUIRE(at != std::string::npos);
    line.erase(at, std::string_view(R"("min_request_timestamp":{"value":1759522419159192408,"unit":"ns"},)").size());
    temp_file file(line);
    CHECK(read_error(aiperf_format, file.path()).field() == "metadata.timestamp_ns");
}

TEST_CASE("with skip_bad a bad AIPerf line is counted and the others are read") {
    temp_file file(completed_line() + "{\"metadata\":\n" + completed_line());
    const servestat::run run = read_one(aiperf_format, file.path(), {.skip_bad = true});
    CHECK(run.requests.size() == 2);
    CHECK(run.skipped.count == 1);
}

TEST_CASE("an empty AIPerf file is an error") {
    temp_file file("\n\n");
    CHECK_THROWS_AS(aiperf_format.read(file.path(), {}), input_error);
}

TEST_CASE("an aggregate metric in an unknown unit names its field") {
    std::string text = slurp(aiperf_json);
    const auto at = text.find(R"("header": "Time to First Token")");
    REQUIRE(at != std::string::npos);
    const auto unit = text.rfind(R"("unit": "ms")", at);
    text.replace(unit, std::string_view(R"("unit": "ms")").size(), R"("unit": "min")");
    temp_file file(text, "profile_export_aiperf.json");
    const input_error e = read_error(aiperf_summary_format, file.path());
    CHECK(e.field() == "records.ttft.unit");
}

TEST_CASE("a CSV aggregate in an unknown unit names its line") {
    std::string text = slurp(aiperf_csv);
    const auto at = text.find("Time to First Token (ms)");
    REQUIRE(at != std::string::npos);
    text.replace(at, std::string_view("Time to First Token (ms)").size(), "Time to First Token (min)");
    temp_file file(text, "profile_export_aiperf.csv");
    const input_error e = read_error(aiperf_summary_csv_format, file.path());
    CHECK(e.line() == 10);
    CHECK(std::string(e.what()).find("unknown unit 'min'") != std::string::npos);
}

TEST_CASE("a CSV aggregate that is not a number names its column") {
    std::string text = slurp(aiperf_csv);
    const auto at = text.find("2343.22");
    REQUIRE(at != std::string::npos);
    text.replace(at, 7, "n/a");
    temp_file file(text, "profile_export_aiperf.csv");
    CHECK(read_error(aiperf_summary_csv_format, file.path()).field() == "avg");
}

TEST_CASE("a broken aggregate file beside the records becomes a note, not a failure") {
    temp_file records(slurp(aiperf_records), "profile_export.jsonl");
    { std::ofstream(records.dir() / "profile_export_aiperf.json") << "{\"records\": ["; }
    const servestat::run run = read_one(aiperf_format, records.path());
    CHECK(run.requests.size() == 100);
    CHECK(run.meta.reported.empty());
    CHECK(has_note(run, "Could not read profile_export_aiperf.json"));
}

// ---------------------------------------------------------------- GenAI-Perf

TEST_CASE("each GenAI-Perf experiment becomes one run with its load as a parameter") {
    const auto runs = genai_perf_format.read(genai.path("chat_streaming.json"), {});
    REQUIRE(runs.size() == 2);
    CHECK(runs[0].meta.params["concurrency"] == 1);
    CHECK(runs[1].meta.params["concurrency"] == 4);
    CHECK(runs[0].meta.label == "chat_streaming-concurrency1");
    CHECK(runs[1].meta.label == "chat_streaming-concurrency4");
    CHECK(runs[0].requests.size() == 2);
    CHECK(runs[1].requests.size() == 6);
    for (const auto& r : runs) {
        CHECK(r.meta.source.format == "genai-perf");
        CHECK(r.meta.model == "Qwen/Qwen2.5-3B-Instruct"); // from the request payload
        CHECK(r.meta.tool == "genai-perf (perf_analyzer 2.59.0)");
        CHECK(r.meta.params["endpoint"] == "v1/chat/completions");
        CHECK(r.meta.params["streaming"] == true);
    }
}

TEST_CASE("each GenAI-Perf experiment has its own clock from its first request") {
    const auto runs = genai_perf_format.read(genai.path("chat_streaming.json"), {});
    CHECK(runs[0].meta.started_at == "2023-11-14T22:13:20Z"); // 1700000000000000000 ns
    CHECK(runs[1].meta.started_at == "2023-11-14T22:13:21Z");
    CHECK(runs[1].requests.row(0).t_sent == 0.0);
}

TEST_CASE("a role-only first chunk, the usage chunk and [DONE] do not count as content") {
    // Request A: sent at 0; role-only chunk at 100 ms; "Hello" 250, " world" 300, "!" 360;
    // usage at 361 and [DONE] at 362.
    const request_record r = genai_perf_format.read(genai.path("chat_streaming.json"), {})[0].requests.row(0);
    REQUIRE(r.status == request_status::ok);
    CHECK(r.t_sent == 0.0);
    CHECK(r.t_first == 0.25);
    CHECK(r.t_end == 0.36);
    REQUIRE(r.itl.size() == 2);
    CHECK(r.itl[0] == 0.05);
    CHECK(r.itl[1] == 0.06);
}

TEST_CASE("GenAI-Perf token counts come from the usage chunk, max_tokens from the payload") {
    const request_record r = genai_perf_format.read(genai.path("chat_streaming.json"), {})[0].requests.row(0);
    CHECK(r.prompt_tokens == 12);
    CHECK(r.output_tokens == 3);
    CHECK(r.max_tokens == 16);
}

namespace {

servestat::run genai_concurrency4() {
    auto runs = genai_perf_format.read(genai.path("chat_streaming.json"), {});
    REQUIRE(runs.size() == 2);
    return std::move(runs[1]);
}

} // namespace

TEST_CASE("two events in one GenAI-Perf response are both read") {
    // Request B: sent at 400 ms; one response at 500 ms holds the role chunk and "Hi"; " there" at 540.
    const request_record r = genai_perf_format.read(genai.path("chat_streaming.json"), {})[0].requests.row(1);
    CHECK(r.t_sent == 0.4);
    CHECK(r.t_first == 0.5);
    CHECK(r.t_end == 0.54);
    REQUIRE(r.itl.size() == 1);
    CHECK(r.itl[0] == 40000000 / 1e9);
    CHECK(r.output_tokens == 2);
}

TEST_CASE("an event split across two GenAI-Perf responses is joined at the first one's time") {
    // Request D: sent at 10 ms; "x" at 300 ms; the "y" event cut in two at 350 and 360 ms.
    const request_record r = genai_concurrency4().requests.row(1);
    REQUIRE(r.status == request_status::ok);
    CHECK(r.t_sent == 0.01);
    CHECK(r.t_first == 0.3);
    CHECK(r.t_end == 0.35);
    REQUIRE(r.itl.size() == 1);
    CHECK(r.itl[0] == 50000000 / 1e9);
}

TEST_CASE("an HTTP error answered as a JSON body fails the request with its status") {
    const request_record r = genai_concurrency4().requests.row(2);
    CHECK(r.status == request_status::error);
    CHECK(r.http_status == 400);
    CHECK(r.error.starts_with("This model's maximum context length is 4096 tokens."));
    CHECK(r.t_sent == 0.02);
    CHECK_FALSE(r.t_end.has_value());
    CHECK_FALSE(r.t_first.has_value());
}

TEST_CASE("a GenAI-Perf request without any response is an error") {
    const request_record r = genai_concurrency4().requests.row(3);
    CHECK(r.status == request_status::error);
    CHECK(r.error == "no response received");
    CHECK_FALSE(r.t_end.has_value());
}

TEST_CASE("an error event in the middle of a stream fails the request") {
    const request_record r = genai_concurrency4().requests.row(4);
    CHECK(r.status == request_status::error);
    CHECK(r.http_status == 503);
    CHECK(r.error == "Service Unavailable: server overloaded");
    CHECK_FALSE(r.t_end.has_value());
}

TEST_CASE("without a usage chunk GenAI-Perf token counts are absent, never estimated") {
    const servestat::run run = genai_concurrency4();
    const request_record r = run.requests.row(5);
    CHECK(r.status == request_status::ok);
    CHECK_FALSE(r.output_tokens.has_value());
    CHECK_FALSE(r.prompt_tokens.has_value());
    CHECK(r.t_first == 0.4); // its first chunk carries role and content at once
    CHECK(has_note(run, "1 of 3 successful requests have no usage.completion_tokens"));
    CHECK(has_note(run, "1 requests got no response and 0 no content"));
}

TEST_CASE("a GenAI-Perf experiment's statistics follow from its timestamps") {
    // Completed: C (0 → 310 ms, first at 200, 3 tokens), D (10 → 350 ms), H (50 → 450 ms).
    const auto stats = servestat::analyze(genai_concurrency4());
    CHECK(stats.ok == 3);
    CHECK(stats.failed == 3);
    REQUIRE(stats.duration.has_value());
    CHECK(agrees(*stats.duration, 0.45));
    CHECK(agrees(*stats.rps, 3 / 0.45));
    CHECK(agrees(*servestat::find_summary(stats, "all", metric::tpot)->max, (0.31 - 0.2) / 2));
}

TEST_CASE("an unstreamed GenAI-Perf answer has an end but no first token") {
    const servestat::run run = genai.read("non_streaming.json");
    CHECK(run.meta.label == "non_streaming"); // one experiment: no load suffix
    CHECK(run.meta.params["request_rate"] == 2.5);
    CHECK(run.meta.params["streaming"] == false);
    const request_record first = run.requests.row(0);
    CHECK(first.status == request_status::ok);
    CHECK(first.t_end == 0.8);
    CHECK_FALSE(first.t_first.has_value());
    CHECK(first.itl.empty());
    CHECK(first.output_tokens == 8);
    CHECK(first.prompt_tokens == 15);
    const request_record second = run.requests.row(1);
    CHECK(second.t_sent == 0.4);
    CHECK(second.t_end == 1.5);
    CHECK(has_note(run, "2 requests were not streamed"));
}

TEST_CASE("a GenAI-Perf response earlier than its request names the timestamp") {
    const input_error e = genai.error("bad_response_before_request.json");
    CHECK(e.field() == "experiments[0].requests[0].response_timestamps[0]");
    CHECK(std::string(e.what()).find("earlier than the request's timestamp") != std::string::npos);
}

TEST_CASE("with skip_bad a bad GenAI-Perf request is counted") {
    const auto runs = genai_perf_format.read(genai.path("bad_response_before_request.json"), {.skip_bad = true});
    REQUIRE(runs.size() == 1);
    CHECK(runs[0].requests.empty());
    CHECK(runs[0].skipped.count == 1);
}

TEST_CASE("a GenAI-Perf file without experiments is an error") {
    CHECK(genai.error("bad_empty_experiments.json").field() == "experiments");
}

TEST_CASE("a GenAI-Perf timestamp written as a string names its field") {
    CHECK(genai.error("bad_timestamp_string.json").field() == "experiments[0].requests[0].timestamp");
}

TEST_CASE("GenAI-Perf responses and their timestamps must pair up") {
    CHECK(genai.error("bad_unequal_responses.json").field() == "experiments[0].requests[0].response_outputs");
}

TEST_CASE("a truncated GenAI-Perf file names the line and says so") {
    const std::string text = genai.text("chat_streaming.json");
    temp_file file(text.substr(0, text.size() / 2), "profile_export.json");
    const input_error e = read_error(genai_perf_format, file.path());
    CHECK(e.line() > 1);
    CHECK(std::string(e.what()).find("truncated") != std::string::npos);
}

TEST_CASE("malformed JSON inside a GenAI-Perf event names the response") {
    std::string text = genai.text("non_streaming.json");
    const auto at = text.find(R"({\"id\":\"n1\")");
    REQUIRE(at != std::string::npos);
    text.replace(at, 1, "data: {{");
    temp_file file(text);
    CHECK(read_error(genai_perf_format, file.path()).field() == "experiments[0].requests[0].response_outputs[0].response");
}

// ---------------------------------------------------------------- sniffing

namespace {

// Every regular file under `dir`, recursively.
std::vector<fs::path> files_under(const fs::path& dir) {
    std::vector<fs::path> files;
    for (const auto& entry : fs::recursive_directory_iterator(dir))
        if (entry.is_regular_file()) files.push_back(entry.path());
    return files;
}

} // namespace

TEST_CASE("each AIPerf file is recognised by its own sniffer with certainty") {
    CHECK(aiperf_format.sniff(file_head(aiperf_records)) == 100);
    CHECK(aiperf_summary_format.sniff(file_head(aiperf_json)) == 100);
    CHECK(aiperf_summary_csv_format.sniff(file_head(aiperf_csv)) == 100);
    CHECK(genai_perf_format.sniff(genai.text("chat_streaming.json")) == 100);
    CHECK(genai_perf_format.sniff(genai.text("non_streaming.json")) == 100);
}

TEST_CASE("a GuideLLM result, which also starts with {\"metadata\": and holds metrics, is not AIPerf") {
    const fs::path guidellm = fs::path(SERVESTAT_SHARED_DATA_DIR) / "guidellm-danielkorat" / "guidellm_sanity_results" /
                              "20260302_1856" / "Qwen_Qwen3-4B-Thinking-2507_tp4_quant-fp8_benchmarks.json";
    REQUIRE(fs::exists(guidellm));
    CHECK(aiperf_format.sniff(file_head(guidellm)) == 0);
}

// A file of an AIPerf set in the shared data (aiperf-example, AIPerf 0.1.x, and
// aiperf-inferencex-sweep-b200, AIPerf 0.8.0), by its name: the AIPerf format that must claim it.
const servestat::log_format* shared_aiperf_format(const fs::path& file) {
    const std::string set = fs::relative(file, SERVESTAT_SHARED_DATA_DIR).begin()->string();
    if (set != "aiperf-example" && set != "aiperf-inferencex-sweep-b200") return nullptr;
    if (file.filename() == "profile_export.jsonl") return &aiperf_format;
    if (file.filename() == "profile_export_aiperf.json") return &aiperf_summary_format;
    if (file.filename() == "profile_export_aiperf.csv") return &aiperf_summary_csv_format;
    return nullptr;
}

TEST_CASE("the AIPerf and GenAI-Perf sniffers claim the AIPerf sets' files and no other file of the shared data") {
    const servestat::log_format* formats[] = {&aiperf_format, &aiperf_summary_format, &aiperf_summary_csv_format,
                                              &servestat::aiperf_multi_run_format, &servestat::aiperf_report_v2_format,
                                              &genai_perf_format};
    std::size_t files = 0, claimed = 0;
    for (const auto& file : files_under(SERVESTAT_SHARED_DATA_DIR)) {
        const std::string head = file_head(file);
        ++files;
        claimed += shared_aiperf_format(file) != nullptr;
        for (const auto* f : formats) {
            const bool own = f == shared_aiperf_format(file);
            INFO(file.string() << " / " << f->name);
            CHECK((f->sniff(head) > 0) == own);
        }
    }
    CHECK(files > 100);
    CHECK(claimed == 33); // 3 files of aiperf-example, 3 × 10 levels of the sweep
}

TEST_CASE("the AIPerf sniffers claim none of the test fixtures, and GenAI-Perf only its own") {
    const servestat::log_format* formats[] = {&aiperf_format, &aiperf_summary_format, &aiperf_summary_csv_format,
                                              &servestat::aiperf_multi_run_format, &servestat::aiperf_report_v2_format,
                                              &genai_perf_format};
    for (const auto& file : files_under(SERVESTAT_TEST_DATA_DIR)) {
        const std::string head = file_head(file);
        const bool genai_file = (file.parent_path().filename() == "genai_perf" && file.extension() == ".json" &&
                                 file.filename() != "bad_empty_experiments.json") ||
                                file.filename() == "simple_medium_response_c1.json"; // genai_perf_summary's real export
        for (const auto* f : formats) {
            INFO(file.string() << " / " << f->name);
            CHECK((f->sniff(head) > 0) == (f == &genai_perf_format && genai_file));
        }
    }
}

TEST_CASE("a plain-text GenAI-Perf response fails its request instead of the whole read") {
    std::string text = genai.text("non_streaming.json");
    const std::string body_start = R"("response":"{\"id\":\"n1\")";
    const auto at = text.find(body_start);
    REQUIRE(at != std::string::npos);
    const auto end = text.find("}\"}", at);
    REQUIRE(end != std::string::npos);
    text.replace(at, end + 2 - at, R"("response":"Internal Server Error")");
    temp_file file(text, "profile_export.json");
    const auto runs = genai_perf_format.read(file.path(), {});
    REQUIRE(runs.size() == 1);
    const request_record r = runs[0].requests.row(0);
    CHECK(r.status == request_status::error);
    CHECK(r.error == "Internal Server Error");
    CHECK_FALSE(r.t_end.has_value());
}

} // namespace test_ingest_aiperf
