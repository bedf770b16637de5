// Tests for servestat/ingest/vllm_bench_json.hpp against the synthetic fixtures in
// tests/data/vllm_bench_json/ (made by tests/tools/make_vllm_bench_json_fixtures.py from vLLM's
// documented fields; no real result file was available, see the README there). Expected values are
// read from the fixture files themselves: their per-request arrays and the summary keys the script
// computed with numpy exactly as vLLM's calculate_metrics does.
#include "servestat/ingest/vllm_bench_json.hpp"

#include <algorithm>   // std::min
#include <array>       // std::array
#include <cstddef>     // std::size_t
#include <filesystem>  // std::filesystem
#include <fstream>     // std::ifstream
#include <optional>    // std::optional
#include <string>      // std::string
#include <string_view> // std::string_view
#include <vector>      // std::vector

#include "servestat/ingest/detect.hpp"        // builtin_formats
#include "servestat/ingest/guidellm.hpp"      // guidellm_format (sniffers must not overlap)
#include "servestat/ingest/json_document.hpp" // read_json_documents, read_whole_file
#include "servestat/stats/run_stats.hpp"      // analyze, find_summary
#include "servestat/sweep/sweep.hpp"          // find_sweeps

#include "format_fixtures.hpp"
#include "temp_file.hpp"

#include "format_reading.hpp" // test::reported, test::has_note
#include <catch2/catch.hpp>  // TEST_CASE, REQUIRE, CHECK, Approx
#include <nlohmann/json.hpp> // nlohmann::json

namespace test_ingest_vllm_bench_json { // the unity build compiles several test files as one: each keeps its names

namespace {

using servestat::test::has_note;
using servestat::test::reported;

namespace fs = std::filesystem;
using nlohmann::json;
using servestat::input_error;
using servestat::metric;
using servestat::read_options;
using servestat::request_record;
using servestat::request_status;
using servestat::run;
using servestat::vllm_bench_json_format;

const servestat::test::format_fixtures fixtures{vllm_bench_json_format, "vllm_bench_json"};

constexpr std::string_view single = "single_detailed.json";
constexpr std::string_view appended = "append_three.json";
constexpr std::string_view no_detail = "summary_no_detail.json";
constexpr std::string_view legacy = "legacy_goodput.json";
constexpr std::array<std::string_view, 4> all_fixtures{single, appended, no_detail, legacy};

// The fixture's JSON objects, as Python wrote them.
std::vector<json> objects(std::string_view name) {
    std::vector<json> out;
    for (auto& d : servestat::detail::read_json_documents(fixtures.path(name))) out.push_back(std::move(d.value));
    return out;
}

json object(std::string_view name) { return objects(name).front(); }

std::string head_of(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    std::string head(64 * 1024, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(in.gcount()));
    return head;
}

std::size_t reported_count(const run& r, std::string_view name) {
    std::size_t n = 0;
    for (const auto& v : r.meta.reported) n += v.name == name;
    return n;
}

std::vector<run> read_text(const std::string& text, read_options options = {}) {
    const servestat::test::temp_file file(text, "result.json");
    return vllm_bench_json_format.read(file.path(), options);
}

input_error error_of(const std::string& text, read_options options = {}) {
    try {
        read_text(text, options);
    } catch (const input_error& e) {
        return e;
    }
    FAIL("no input_error was thrown");
    throw; // unreachable: FAIL throws
}

// The single-run fixture with one change, written back as Python would (one line).
template <class Edit>
std::string edited(Edit edit, std::string_view name = single) {
    json o = object(name);
    edit(o);
    return o.dump();
}

// Summary options as vLLM computes: numpy linear percentiles, np.std (ddof 0).
servestat::stats_options vllm_options(std::vector<double> percentiles) {
    servestat::stats_options o;
    o.summary.method = servestat::quantile_method::linear;
    o.summary.ddof = 0;
    o.summary.percentiles = std::move(percentiles);
    return o;
}

// vLLM's `<stat>_<key>_ms` against servestat's summary of `m`, 1e-9 relative (vLLM multiplies
// seconds by 1000, the reader divides by 1000; the times go through t_sent + x - t_sent).
void check_summary(const servestat::run_stats& stats, metric m, const json& o, std::string_view key,
                   const std::vector<std::string>& percentiles) {
    INFO(key);
    const auto* s = servestat::find_summary(stats, "all", m);
    REQUIRE(s);
    const std::string middle = std::string("_").append(key).append("_ms");
    CHECK(*s->mean * 1e3 == Approx(o.at("mean" + middle).get<double>()).epsilon(1e-9));
    CHECK(*s->std * 1e3 == Approx(o.at("std" + middle).get<double>()).epsilon(1e-9));
    const auto median = servestat::find_percentile(*s, 50);
    REQUIRE(median);
    CHECK(*median * 1e3 == Approx(o.at("median" + middle).get<double>()).epsilon(1e-9));
    for (const auto& p : percentiles) {
        INFO(p);
        const auto value = servestat::find_percentile(*s, std::stod(p));
        REQUIRE(value);
        CHECK(*value * 1e3 == Approx(o.at("p" + p + middle).get<double>()).epsilon(1e-9));
    }
}

} // namespace

TEST_CASE("the vLLM bench JSON format is named vllm-bench-json") {
    CHECK(vllm_bench_json_format.name == "vllm-bench-json");
}

TEST_CASE("the vLLM bench JSON sniffer is sure of every fixture") {
    for (auto name : all_fixtures) {
        INFO(name);
        CHECK(vllm_bench_json_format.sniff(head_of(fixtures.path(name))) == 100);
    }
}

TEST_CASE("the vLLM bench JSON sniffer recognises no file of the shared data") {
    for (const auto& entry : fs::recursive_directory_iterator(SERVESTAT_SHARED_DATA_DIR)) {
        if (!entry.is_regular_file()) continue;
        INFO(entry.path().string());
        CHECK(vllm_bench_json_format.sniff(head_of(entry.path())) == 0);
    }
}

TEST_CASE("no other built-in format claims a vLLM bench JSON fixture") {
    for (auto name : all_fixtures) {
        const std::string head = head_of(fixtures.path(name));
        CHECK(servestat::guidellm_format.sniff(head) == 0);
        for (const auto* f : servestat::builtin_formats) {
            if (f->name == vllm_bench_json_format.name) continue;
            INFO(std::string(name) + " / " + std::string(f->name));
            CHECK(f->sniff(head) == 0);
        }
    }
}

TEST_CASE("a single vLLM result is one run with its settings") {
    const run r = fixtures.read(single);
    CHECK(r.meta.label == "bench-c4");
    CHECK(r.meta.model == "Qwen/Qwen2.5-7B-Instruct");
    CHECK(r.meta.tool == "vllm-bench-serve");
    CHECK(r.meta.source.format == "vllm-bench-json");
    CHECK(r.meta.source.path == fixtures.path(single).string());
    CHECK(r.meta.started_at == "2025-03-01T10:15:00"); // date "20250301-101500", local time
    CHECK(r.meta.kind == servestat::run_kind::requests);
    CHECK(r.meta.shared_clock);
    // --metadata tp=2 gpu=H100: numbers become numbers
    CHECK(r.meta.params == json{{"endpoint_type", "openai-chat"}, {"backend", "openai-chat"},
                                {"tokenizer_id", "Qwen/Qwen2.5-7B-Instruct"}, {"num_prompts", 16},
                                {"tp", 2}, {"gpu", "H100"}, {"request_rate", 8}, {"burstiness", 1},
                                {"max_concurrency", 4}});
}

TEST_CASE("every element of the parallel arrays is one request") {
    const run r = fixtures.read(single);
    CHECK(r.requests.size() == 16);
    std::size_t ok = 0;
    for (auto s : r.requests.status()) ok += s == request_status::ok;
    CHECK(ok == 13); // the file's "completed"
}

TEST_CASE("start_times become t_sent after the earliest start; ttft and latency add to it") {
    const run r = fixtures.read(single);
    const json o = object(single);
    const double first = o["start_times"][0].get<double>();
    for (std::size_t i = 0; i < r.requests.size(); ++i) {
        INFO(i);
        const request_record row = r.requests.row(i);
        CHECK(*row.t_sent == Approx(o["start_times"][i].get<double>() - first).margin(1e-12));
        CHECK(*row.t_sched == Approx(*row.t_sent - o["queue_times"][i].get<double>()).margin(1e-12));
        CHECK(row.prompt_tokens == o["input_lens"][i].get<int>());
        CHECK(row.output_tokens == o["output_lens"][i].get<int>());
        if (row.status != request_status::ok) continue;
        CHECK(*row.t_first - *row.t_sent == Approx(o["ttfts"][i].get<double>()).margin(1e-12));
        CHECK(*row.t_end - *row.t_sent == Approx(o["latencies"][i].get<double>()).margin(1e-12));
        CHECK(row.itl == o["itls"][i].get<std::vector<double>>());
    }
    CHECK(r.requests.row(0).t_sent == 0.0);
}

TEST_CASE("a failed vLLM request keeps its error text; an empty one is said to be missing") {
    const run r = fixtures.read(single);
    const request_record bad_request = r.requests.row(5);
    CHECK(bad_request.status == request_status::error);
    CHECK(bad_request.error == "Bad Request");
    CHECK(bad_request.http_status == 400); // aiohttp's reason phrase
    const request_record silent = r.requests.row(9);
    CHECK(silent.status == request_status::error);
    CHECK(silent.error == "request failed (no error text)");
    CHECK_FALSE(silent.http_status);
    const request_record disconnected = r.requests.row(12);
    CHECK(disconnected.status == request_status::transport);
    CHECK(disconnected.error.find("ServerDisconnectedError") != std::string::npos);
    CHECK(has_note(r, "1 failed request(s) have no error text"));
}

TEST_CASE("failed requests with latency 0 never enter the statistics") {
    const run r = fixtures.read(single);
    for (std::size_t i : {5u, 9u, 12u}) {
        const request_record row = r.requests.row(i);
        CHECK_FALSE(row.t_first);
        CHECK_FALSE(row.t_end);
        CHECK(row.itl.empty());
    }
    const auto stats = servestat::analyze(r);
    CHECK(stats.ok == 13);
    CHECK(stats.failed == 3);
    CHECK(servestat::find_summary(stats, "all", metric::e2e)->n == 13);
    CHECK(*servestat::find_summary(stats, "all", metric::e2e)->min > 0);
    CHECK(servestat::find_summary(stats, "all", metric::ttft)->n == 13);
}

TEST_CASE("vLLM's aggregates are reported under servestat's names in seconds") {
    const run r = fixtures.read(single);
    const json o = object(single);
    CHECK(reported(r, "duration") == o["duration"].get<double>());
    CHECK(reported(r, "ok") == 13.0);
    CHECK(reported(r, "failed") == 3.0);
    CHECK(reported(r, "rps") == o["request_throughput"].get<double>());
    CHECK(reported(r, "output_tps") == o["output_throughput"].get<double>());
    CHECK(reported(r, "total_tps") == o["total_token_throughput"].get<double>());
    CHECK(reported(r, "vllm.max_concurrent_requests") == o["max_concurrent_requests"].get<double>());
    CHECK_FALSE(reported(r, "vllm.request_goodput")); // null: no --goodput
    CHECK(reported(r, "ttft.mean") == Approx(o["mean_ttft_ms"].get<double>() / 1e3).epsilon(1e-15));
    CHECK(reported(r, "e2e.p99.9") == Approx(o["p99.9_e2el_ms"].get<double>() / 1e3).epsilon(1e-15));
    CHECK(reported(r, "client_queue.p90") == Approx(o["p90_client_queue_time_ms"].get<double>() / 1e3).epsilon(1e-15));
    CHECK(reported(r, "e2e_sched.std") ==
          Approx(o["std_e2el_including_client_queue_ms"].get<double>() / 1e3).epsilon(1e-15));
    // median and p50 are the same number: reported once
    CHECK(reported_count(r, "tpot.p50") == 1);
    CHECK(reported(r, "itl.p50") == Approx(o["p50_itl_ms"].get<double>() / 1e3).epsilon(1e-15));
    // the summary keys are not run parameters
    CHECK_FALSE(r.meta.params.contains("mean_ttft_ms"));
    CHECK_FALSE(r.meta.params.contains("duration"));
}

TEST_CASE("cross-check: vLLM's summary keys recomputed from its per-request arrays") {
    const run r = fixtures.read(single);
    const json o = object(single);
    const auto stats = servestat::analyze(r, vllm_options({50, 90, 99, 99.9}));
    const std::vector<std::string> ps{"50", "90", "99", "99.9"};
    check_summary(stats, metric::ttft, o, "ttft", ps);
    check_summary(stats, metric::tpot, o, "tpot", ps);
    check_summary(stats, metric::itl, o, "itl", ps);
    check_summary(stats, metric::e2e, o, "e2el", ps);
    check_summary(stats, metric::client_queue, o, "client_queue_time", ps);
    check_summary(stats, metric::e2e_sched, o, "e2el_including_client_queue", ps);
    // Throughputs divide by vLLM's own duration (perf_counter from before the first send).
    CHECK(static_cast<double>(stats.ok) / o["duration"].get<double>() ==
          Approx(o["request_throughput"].get<double>()).epsilon(1e-12));
}

TEST_CASE("an --append-result file holds one run per line") {
    const auto runs = vllm_bench_json_format.read(fixtures.path(appended), {});
    REQUIRE(runs.size() == 3);
    const auto o = objects(appended);
    for (std::size_t k = 0; k < 3; ++k) {
        INFO(k);
        // The user's --label kept, each run told apart by the rate that differs.
        CHECK(runs[k].meta.label == std::vector<std::string>{"sweep · rate 2", "sweep · rate 8", "sweep · rate ∞"}[k]);
        CHECK(runs[k].requests.size() == 10);
        CHECK(runs[k].meta.started_at == "2025-03-02T09:" + std::to_string(k) + "0:00");
        const auto stats = servestat::analyze(runs[k], vllm_options({50, 99}));
        check_summary(stats, metric::ttft, o[k], "ttft", {"99"});
        check_summary(stats, metric::itl, o[k], "itl", {"99"});
        check_summary(stats, metric::tpot, o[k], "tpot", {"99"});
    }
    CHECK(runs[0].meta.params["request_rate"] == 2);
    CHECK(runs[1].meta.params["request_rate"] == 8);
}

TEST_CASE("request_rate \"inf\" is kept as the string inf, with a note") {
    const auto runs = vllm_bench_json_format.read(fixtures.path(appended), {});
    CHECK(runs[2].meta.params["request_rate"] == "inf");
    CHECK(has_note(runs[2], "request_rate \"inf\""));
    CHECK_FALSE(has_note(runs[0], "request_rate \"inf\""));
}

TEST_CASE("an error in an appended run names the line its object starts on") {
    std::string text = fixtures.text(appended);
    const auto third = text.rfind("\"latencies\": [") + 14;
    text.insert(third, "\"slow\", ");
    const input_error e = error_of(text);
    CHECK(e.line() == 3);
}

TEST_CASE("the legacy benchmark_serving.py key request_goodput: is request_goodput") {
    const run r = fixtures.read(legacy);
    const json o = object(legacy);
    CHECK(reported(r, "vllm.request_goodput") == o["request_goodput:"].get<double>());
    CHECK(has_note(r, "legacy benchmarks/benchmark_serving.py"));
    CHECK_FALSE(r.meta.params.contains("request_goodput:"));
    CHECK(r.meta.label == "legacy_goodput"); // no label key: the file stem
}

TEST_CASE("a legacy result has requests without a clock or latencies") {
    const run r = fixtures.read(legacy);
    const json o = object(legacy);
    CHECK_FALSE(r.meta.shared_clock);
    REQUIRE(r.requests.size() == 8);
    const request_record row = r.requests.row(0);
    CHECK(row.t_sent == 0.0);
    CHECK(*row.t_first == o["ttfts"][0].get<double>());
    CHECK_FALSE(row.t_end);
    CHECK(r.requests.row(3).status == request_status::error);
    CHECK(r.requests.row(3).http_status == 400);
    CHECK(has_note(r, "no latencies"));
    const auto stats = servestat::analyze(r, vllm_options({50, 99}));
    check_summary(stats, metric::ttft, o, "ttft", {"99"});
    check_summary(stats, metric::itl, o, "itl", {"99"});
    CHECK(servestat::find_summary(stats, "all", metric::e2e)->n == 0);
    CHECK(reported(r, "tpot.p99") == Approx(o["p99_tpot_ms"].get<double>() / 1e3).epsilon(1e-15));
}

TEST_CASE("without --save-detailed the latencies and queue times are requests without a clock") {
    const run r = fixtures.read(no_detail);
    const json o = object(no_detail);
    CHECK(r.meta.kind == servestat::run_kind::requests);
    CHECK_FALSE(r.meta.shared_clock);
    CHECK(r.meta.label == "summary_no_detail"); // label null: the file stem
    REQUIRE(r.requests.size() == 12);
    for (std::size_t i = 0; i < r.requests.size(); ++i) {
        INFO(i);
        const request_record row = r.requests.row(i);
        CHECK(row.t_sent == 0.0);
        CHECK(row.t_sched == -o["queue_times"][i].get<double>());
        CHECK_FALSE(row.t_first);
        CHECK_FALSE(row.prompt_tokens);
        if (o["latencies"][i].get<double>() == 0) {
            CHECK(row.status == request_status::error);
            CHECK(row.error == "request failed (no error text)");
        } else {
            CHECK(row.t_end == o["latencies"][i].get<double>());
        }
    }
    CHECK(has_note(r, "no start_times"));
    CHECK(has_note(r, "no errors (saved without --save-detailed)"));
    const auto stats = servestat::analyze(r, vllm_options({50, 90, 99}));
    check_summary(stats, metric::e2e, o, "e2el", {"50", "90", "99"});
    check_summary(stats, metric::client_queue, o, "client_queue_time", {"50", "90", "99"});
    check_summary(stats, metric::e2e_sched, o, "e2el_including_client_queue", {"50", "90", "99"});
    // No clock: the run's duration is vLLM's.
    CHECK(stats.duration_from == servestat::duration_source::reported);
    CHECK(*stats.duration == o["duration"].get<double>());
    CHECK(*stats.rps == Approx(o["request_throughput"].get<double>()).epsilon(1e-12));
    // ttft and tpot statistics survive only as vLLM reported them.
    CHECK(reported(r, "ttft.p99") == Approx(o["p99_ttft_ms"].get<double>() / 1e3).epsilon(1e-15));
}

TEST_CASE("a result with no per-request arrays at all is a summary run") {
    const auto runs = read_text(edited([](json& o) {
        o.erase("latencies");
        o.erase("queue_times");
    }, no_detail));
    REQUIRE(runs.size() == 1);
    CHECK(runs[0].meta.kind == servestat::run_kind::summary);
    CHECK(runs[0].requests.empty());
    CHECK(reported(runs[0], "e2e.p99"));
    CHECK(has_note(runs[0], "only vLLM's own aggregates"));
}

// InferenceX's token-position sweep rewrote vLLM's results with statistics in seconds and no unit
// in their keys (median_ttft, p99_e2el): had they been settings, every run would be a configuration.
TEST_CASE("statistics written without a unit (median_ttft, p99_e2el) are no settings") {
    const auto runs = read_text(edited([](json& o) {
        o["median_ttft"] = 3.14;
        o["p99_e2el"] = 30.1;
        o["std_tpot"] = 0.01;
        o["median_prompt"] = "kept"; // not a vLLM metric: a setting as before
    }, no_detail));
    REQUIRE(runs.size() == 1);
    for (const char* key : {"median_ttft", "p99_e2el", "std_tpot"}) CHECK_FALSE(runs[0].meta.params.contains(key));
    CHECK(runs[0].meta.params.contains("median_prompt"));
}

TEST_CASE("with no completed request vLLM's placeholder statistics are not reported") {
    const auto runs = read_text(edited([](json& o) { o["completed"] = 0; }));
    CHECK_FALSE(reported(runs[0], "ttft.mean"));
    CHECK(reported(runs[0], "ok") == 0.0);
    CHECK(has_note(runs[0], "placeholder"));
}

TEST_CASE("parallel arrays of unequal length are an input error naming the array") {
    const input_error e = error_of(edited([](json& o) { o["ttfts"].erase(o["ttfts"].size() - 1); }));
    CHECK(e.field() == "ttfts");
    CHECK(e.reason().find("has 15 elements but latencies has 16") != std::string::npos);
    CHECK(e.line() == 1);
    // skip_bad does not help: the requests cannot be paired up
    CHECK(error_of(edited([](json& o) { o["errors"].push_back(""); }), {.skip_bad = true}).field() == "errors");
}

TEST_CASE("a wrong type in a vLLM result is an input error naming its JSON path") {
    CHECK(error_of(edited([](json& o) { o["latencies"][2] = "fast"; })).field() == "latencies[2]");
    CHECK(error_of(edited([](json& o) { o["itls"][0][1] = -0.1; })).field() == "itls[0][1]");
    CHECK(error_of(edited([](json& o) { o["errors"][1] = 5; })).field() == "errors[1]");
    CHECK(error_of(edited([](json& o) { o["input_lens"][0] = 12.5; })).field() == "input_lens[0]");
    CHECK(error_of(edited([](json& o) { o["ttfts"] = {{"a", 1}}; })).field() == "ttfts");
    CHECK(error_of(edited([](json& o) { o["request_rate"] = "fast"; })).field() == "request_rate");
    CHECK(error_of(edited([](json& o) { o["date"] = "yesterday"; })).field() == "date");
    CHECK(error_of(edited([](json& o) { o["mean_ttft_ms"] = "12"; })).field() == "mean_ttft_ms");
    CHECK(error_of("[1, 2]").reason() == "expected an object, got array");
    CHECK(error_of(R"({"model_id": "m"})").field() == "completed");
}

TEST_CASE("a TTFT above the latency is an input error, or skipped under skip_bad") {
    const std::string text = edited([](json& o) { o["ttfts"][0] = o["latencies"][0].get<double>() + 1; });
    CHECK(error_of(text).field() == "ttfts[0]");
    const auto runs = read_text(text, {.skip_bad = true});
    CHECK(runs[0].requests.size() == 15);
    CHECK(runs[0].skipped.count == 1);
}

TEST_CASE("Python's NaN and Infinity words are read: inf where vLLM means it, an error in a number") {
    std::string text = fixtures.text(single);
    text.replace(text.find("\"burstiness\": 1.0"), 17, "\"burstiness\": Infinity");
    CHECK(read_text(text)[0].meta.params["burstiness"] == "inf");
    std::string nan = fixtures.text(single);
    const auto at = nan.find("\"latencies\": [") + 14;
    nan.replace(at, nan.find(',', at) - at, "NaN");
    const input_error e = error_of(nan);
    CHECK(e.field() == "latencies[0]");
    CHECK(e.reason() == "expected a number, got null (the file has NaN here, Python's not-a-number)");
    // One record refused, the rest of the file read, and the NaN named in the run's notes.
    const auto skipped = read_text(nan, {.skip_bad = true});
    CHECK(skipped[0].skipped.count == 1);
    CHECK(std::find(skipped[0].meta.notes.begin(), skipped[0].meta.notes.end(),
                    "NaN in field latencies[0] read as missing") != skipped[0].meta.notes.end());
}

TEST_CASE("a truncated vLLM result is an input error") {
    const std::string text = fixtures.text(single);
    const input_error e = error_of(text.substr(0, text.size() / 2));
    CHECK(std::string(e.what()).find("truncated") != std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// The Rust vllm-bench (vllm-project/vllm-bench): the same schema with sorted keys and a few keys of
// its own (fixtures rust_*.json, made by tests/tools/make_vllm_bench_rust_fixtures.py from its
// src/output/json.rs and src/metrics/calculator.rs; summary keys computed with numpy)

constexpr std::string_view rust_detailed = "rust_detailed.json";
constexpr std::string_view rust_sweep = "rust_append_sweep.json";

TEST_CASE("a Rust vllm-bench result is detected even when its sorted arrays push model_id past the head") {
    const std::string head = head_of(fixtures.path(rust_detailed));
    REQUIRE(head.find("\"model_id\"") == std::string::npos); // generated_texts and itls sort before it
    CHECK(vllm_bench_json_format.sniff(head) == 90);
    CHECK(servestat::detect_file_format(fixtures.path(rust_detailed)).name == "vllm-bench-json");
    CHECK(vllm_bench_json_format.sniff(head_of(fixtures.path(rust_sweep))) == 100);
    for (auto name : {rust_detailed, rust_sweep}) {
        const std::string h = head_of(fixtures.path(name));
        for (const auto* f : servestat::builtin_formats) {
            if (f->name == vllm_bench_json_format.name) continue;
            INFO(std::string(name) + " / " + std::string(f->name));
            CHECK(f->sniff(h) == 0);
        }
    }
}

TEST_CASE("a Rust vllm-bench result is one run named as the Rust tool's, with its UTC date") {
    const run r = fixtures.read(rust_detailed);
    const json o = object(rust_detailed);
    CHECK(r.meta.tool == "vllm-bench (Rust)");
    CHECK(r.meta.model == "Qwen/Qwen3-8B");
    CHECK(r.meta.started_at == "2025-06-01T12:00:00Z");
    CHECK_FALSE(has_note(r, "local time"));
    CHECK(r.meta.kind == servestat::run_kind::requests);
    CHECK(r.meta.shared_clock);
    CHECK(r.meta.params == json{{"backend", "openai-chat"}, {"endpoint_type", "openai-chat"}, {"num_prompts", 40},
                                {"request_rate", "inf"}, {"burstiness", 1}, {"max_concurrency", 4}});
    CHECK(r.requests.size() == o["num_prompts"].get<std::size_t>());
    CHECK(has_note(r, "since the benchmark's start"));
}

TEST_CASE("a Rust vllm-bench request: start_times from the benchmark's start, HTTP errors with their status") {
    const run r = fixtures.read(rust_detailed);
    const json o = object(rust_detailed);
    double first = o["start_times"][0].get<double>();
    for (const auto& t : o["start_times"]) first = std::min(first, t.get<double>());
    std::size_t failed = 0;
    for (std::size_t i = 0; i < r.requests.size(); ++i) {
        INFO(i);
        const request_record row = r.requests.row(i);
        CHECK(*row.t_sent == Approx(o["start_times"][i].get<double>() - first).margin(1e-12));
        CHECK_FALSE(row.t_sched); // no queue_times
        CHECK(row.prompt_tokens == o["input_lens"][i].get<int>());
        if (row.status != request_status::ok) {
            ++failed;
            CHECK(row.http_status == 429); // "HTTP 429 Too Many Requests: {...}"
            CHECK(row.error == o["errors"][i].get<std::string>());
            continue;
        }
        CHECK(*row.t_first - *row.t_sent == Approx(o["ttfts"][i].get<double>()).margin(1e-12));
        CHECK(*row.t_end - *row.t_sent == Approx(o["latencies"][i].get<double>()).margin(1e-12));
        CHECK(row.output_tokens == o["output_lens"][i].get<int>());
    }
    CHECK(failed == o["failed"].get<std::size_t>());
    CHECK(has_note(r, "2 failed request(s) listed in failed_requests"));
}

TEST_CASE("cross-check: the Rust vllm-bench's summary keys recomputed from its per-request arrays") {
    const run r = fixtures.read(rust_detailed);
    const json o = object(rust_detailed);
    const auto stats = servestat::analyze(r, vllm_options({50, 90, 99}));
    const std::vector<std::string> ps{"50", "90", "99"};
    check_summary(stats, metric::ttft, o, "ttft", ps);
    check_summary(stats, metric::tpot, o, "tpot", ps);
    check_summary(stats, metric::itl, o, "itl", ps);
    check_summary(stats, metric::e2e, o, "e2el", ps);
    CHECK(reported(r, "vllm.input_throughput") == o["input_throughput"].get<double>());
    CHECK(reported(r, "rps") == o["request_throughput"].get<double>());
    CHECK_FALSE(r.meta.params.contains("input_throughput"));
    CHECK_FALSE(r.meta.params.contains("rtfx"));
}

TEST_CASE("the Rust vllm-bench's steady_state block is reported as such, never as the run's metrics") {
    const run r = fixtures.read(rust_detailed);
    const json s = object(rust_detailed)["steady_state"];
    CHECK(reported(r, "vllm.steady_state.request_throughput") == s["request_throughput"].get<double>());
    CHECK(reported(r, "vllm.steady_state.mean_ttft_ms") == s["mean_ttft_ms"].get<double>());
    CHECK(reported(r, "vllm.steady_state.p99_tpot_ms") == s["p99_tpot_ms"].get<double>());
    CHECK(reported(r, "vllm.steady_state.p99_ttft_ms") == s["percentiles_ttft_ms"][2][1].get<double>());
    CHECK(reported(r, "vllm.steady_state.window.duration_s") == s["window"]["duration_s"].get<double>());
    CHECK(has_note(r, "plateau window"));
}

TEST_CASE("Rust vllm-bench runs appended without --save-detailed are summary runs forming a sweep") {
    const auto runs = vllm_bench_json_format.read(fixtures.path(rust_sweep), {});
    REQUIRE(runs.size() == 3);
    const auto o = objects(rust_sweep);
    std::vector<servestat::run_stats> stats;
    for (std::size_t k = 0; k < runs.size(); ++k) {
        INFO(k);
        CHECK(runs[k].meta.kind == servestat::run_kind::summary);
        CHECK(runs[k].meta.params.at("max_concurrency") == o[k]["max_concurrency"]);
        CHECK(reported(runs[k], "ttft.p99") == Approx(o[k]["p99_ttft_ms"].get<double>() / 1e3).epsilon(1e-15));
        CHECK(has_note(runs[k], "only with --save-detailed"));
        stats.push_back(servestat::analyze(runs[k]));
    }
    CHECK(runs[0].meta.label != runs[1].meta.label);
    const auto sweeps = servestat::find_sweeps(stats);
    REQUIRE(sweeps.size() == 1);
    CHECK(sweeps[0].param == "max_concurrency");
    CHECK(sweeps[0].points.size() == 3);
}

TEST_CASE("a date in neither vLLM's nor the Rust tool's form is an input error naming both forms") {
    const input_error e = error_of(edited([](json& o) { o["date"] = "2025-06-01 12:00"; }));
    CHECK(e.field() == "date");
    CHECK_THAT(e.reason(), Catch::Contains("YYYYmmdd-HHMMSS") && Catch::Contains("YYYY-mm-ddTHH:MM:SSZ"));
}

} // namespace test_ingest_vllm_bench_json
