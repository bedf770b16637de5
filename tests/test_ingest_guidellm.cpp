// Tests for servestat/ingest/guidellm.hpp against the five real GuideLLM 0.5.0.dev0 benchmarks.json
// files in the shared data (guidellm-danielkorat, see its SOURCE.md) and small hand-written documents.
// Expected values come from those files (GuideLLM's own per-request fields and metrics), from
// SOURCE.md's table, or from Python's datetime for the start times.
#include "servestat/ingest/guidellm.hpp"

#include <algorithm>   // std::sort
#include <array>       // std::array
#include <cmath>       // std::abs, std::round
#include <cstddef>     // std::size_t
#include <filesystem>  // std::filesystem
#include <optional>    // std::optional
#include <string>      // std::string
#include <string_view> // std::string_view
#include <tuple>       // std::tuple
#include <utility>     // std::pair
#include <vector>      // std::vector

#include "servestat/ingest/detect.hpp"        // builtin_formats
#include "servestat/ingest/json_document.hpp" // read_json_documents
#include "servestat/ingest/vllm_bench_json.hpp" // vllm_bench_json_format (sniffers must not overlap)
#include "servestat/stats/quantile.hpp"       // percentile_sorted, quantile_method
#include "servestat/stats/run_stats.hpp"      // analyze, find_summary
#include "servestat/stats/summary.hpp"        // summarize

#include "temp_file.hpp"

#include "format_reading.hpp" // test::reported, test::has_note
#include <catch2/catch.hpp>  // TEST_CASE, REQUIRE, CHECK, Approx
#include <nlohmann/json.hpp> // nlohmann::json

namespace test_ingest_guidellm { // the unity build compiles several test files as one: each keeps its names

namespace {

using servestat::test::has_note;
using servestat::test::reported;

namespace fs = std::filesystem;
using servestat::guidellm_format;
using servestat::input_error;
using servestat::metric;
using servestat::quantile_method;
using servestat::read_options;
using servestat::request_record;
using servestat::request_status;
using servestat::run;

const fs::path shared = fs::path(SERVESTAT_SHARED_DATA_DIR) / "guidellm-danielkorat";

// SOURCE.md's table: the file, its strategy and its listed successful / errored / incomplete requests.
struct source_file {
    std::string_view path;
    std::string_view strategy;
    std::size_t successful, errored, incomplete;
    std::string_view started_at; // scheduler_metrics.start_time, datetime.fromtimestamp(t, timezone.utc)
    std::string_view model;
};

constexpr std::array<source_file, 5> files{{
    {"guidellm_results/20260302_1917/Qwen_Qwen3-30B-A3B_tp4_quant-fp8_benchmarks.json", "synchronous", 23, 0, 1,
     "2026-03-02T17:42:38Z", "Qwen/Qwen3-30B-A3B"},
    {"guidellm_results/20260302_1917/Qwen_Qwen3-4B-Thinking-2507_tp2_quant-fp8_benchmarks.json", "synchronous", 30,
     0, 0, "2026-03-02T17:59:52Z", "Qwen/Qwen3-4B-Thinking-2507"},
    {"guidellm_results/20260302_1917/Qwen_Qwen3-4B-Thinking-2507_tp4_quant-fp8_benchmarks.json", "synchronous", 30,
     0, 0, "2026-03-02T18:12:09Z", "Qwen/Qwen3-4B-Thinking-2507"},
    {"guidellm_results/20260302_1917/openai_gpt-oss-20b_tp4_quant-none_benchmarks.json", "synchronous", 30, 0, 0,
     "2026-03-02T17:19:52Z", "openai/gpt-oss-20b"},
    {"guidellm_sanity_results/20260302_1856/Qwen_Qwen3-4B-Thinking-2507_tp4_quant-fp8_benchmarks.json",
     "concurrent", 4, 0, 0, "2026-03-02T16:58:16Z", "Qwen/Qwen3-4B-Thinking-2507"},
}};

const source_file& qwen30b = files[0];
const source_file& sanity = files[4];

fs::path path_of(const source_file& f) { return shared / f.path; }

run read_one(const fs::path& file, read_options options = {}) {
    auto runs = guidellm_format.read(file, options);
    REQUIRE(runs.size() == 1);
    return std::move(runs.front());
}

run read_one(const source_file& f) { return read_one(path_of(f)); }

nlohmann::json benchmark_of(const source_file& f) {
    return servestat::detail::read_json_documents(path_of(f)).front().value["benchmarks"][0];
}

std::string read_text(const fs::path& file) { return servestat::detail::read_whole_file(file); }

// What detection sees of a file: its first 64 KiB.
std::string head_of(const fs::path& file) { return read_text(file).substr(0, 64 * 1024); }

input_error error_of(std::string_view text, read_options options = {}) {
    const servestat::test::temp_file file(text, "benchmarks.json");
    try {
        guidellm_format.read(file.path(), options);
    } catch (const input_error& e) {
        return e;
    }
    FAIL("no input_error was thrown");
    throw; // unreachable: FAIL throws
}

// A small GuideLLM document in the 0.5 layout, with a constant-rate strategy, for the cases the real
// files do not have. `requests` is the body of "requests".
std::string document(std::string_view requests) {
    return std::string(R"({"metadata": {"version": 1, "guidellm_version": "0.5.0"},
 "args": {"model": "m-from-args", "data": ["prompt_tokens=256,output_tokens=128"]},
 "benchmarks": [{"type_": "generative_benchmark",
   "config": {"strategy": {"type_": "constant", "rate": 2.0, "max_concurrency": null, "worker_count": 8},
              "constraints": {"max_requests": {"type_": "max_number", "max_num": 3}}},
   "scheduler_metrics": {"start_time": 1000.0, "measure_start_time": 1000.0, "measure_end_time": 1100.0},
   "requests": )")
        .append(requests)
        .append("}]}");
}

// request_start 1001.0, first token 1001.25, last token 1003.0, request_end 1003.5, planned 1000.5.
std::string ok_record(std::string_view start = "1001.0", std::string_view first = "1001.25",
                      std::string_view last = "1003.0") {
    return std::string(R"({"request_args": "{\"body\": {\"max_tokens\": 128}}", "info": {"status": "completed",
      "timings": {"targeted_start": 1000.5, "request_start": )")
        .append(start)
        .append(R"(, "first_token_iteration": )")
        .append(first)
        .append(R"(, "last_token_iteration": )")
        .append(last)
        .append(R"(, "request_end": 1003.5}, "error": null},
      "request_start_time": )")
        .append(start)
        .append(R"(, "request_end_time": 1003.5, "prompt_tokens": 256, "output_tokens": 128})");
}

const std::string errored_record = R"({"info": {"status": "errored", "timings": {"targeted_start": 1001.0,
    "request_start": 1001.5, "first_token_iteration": null, "last_token_iteration": null, "request_end": 1001.75},
    "error": "Client error '429 Too Many Requests' for url 'http://localhost:8000/v1/completions'"},
  "request_start_time": 1001.5, "request_end_time": 1001.75, "prompt_tokens": 256, "output_tokens": null})";

// GuideLLM's percentile (schemas/statistics.py Percentiles.from_pdf): values sorted, probabilities
// 1/n each, cdf = np.cumsum (a sequential float sum), value at np.searchsorted(cdf, p, "left").
// Mathematically that is x_(ceil(n p)), numpy's inverted_cdf. Where n p is a whole number k the
// float sum of k copies of 1/n may land just below p and GuideLLM takes x_(k+1) instead: there the
// tolerance is one order statistic, and which one is decided by that same float sum.
void check_guidellm_percentile(std::vector<double> values, double p, double reported_value, double scale,
                               double relative) {
    std::sort(values.begin(), values.end());
    const auto n = values.size();
    const double rank = static_cast<double>(n) * p;
    const double k = std::round(rank);
    auto order_statistic = [&](double j) { // x_(j), 1-based, through servestat's inverted_cdf
        return servestat::percentile_sorted(values, 100.0 * (j - 0.5) / static_cast<double>(n),
                                            quantile_method::inverted_cdf);
    };
    double expected = 0;
    if (std::abs(rank - k) > 1e-9) {
        expected = servestat::percentile_sorted(values, 100.0 * p, quantile_method::inverted_cdf);
    } else {
        double cdf = 0;
        for (double j = 0; j < k; ++j) cdf += 1.0 / static_cast<double>(n);
        expected = cdf < p && k < static_cast<double>(n) ? order_statistic(k + 1) : order_statistic(k);
    }
    CHECK(reported_value == Approx(expected * scale).epsilon(relative).margin(0));
}

constexpr std::array<std::pair<std::string_view, double>, 11> guidellm_ps{{
    {"p0.1", 0.001}, {"p1", 0.01}, {"p5", 0.05}, {"p10", 0.1}, {"p25", 0.25}, {"p50", 0.5},
    {"p75", 0.75}, {"p90", 0.9}, {"p95", 0.95}, {"p99", 0.99}, {"p99.9", 0.999},
}};

// GuideLLM's window (accumulator get_within_range): request_end_time >= measure_start_time and
// request_start_time <= measure_end_time.
std::vector<bool> in_window(const nlohmann::json& benchmark) {
    const double from = benchmark["scheduler_metrics"]["measure_start_time"].get<double>();
    const double to = benchmark["scheduler_metrics"]["measure_end_time"].get<double>();
    std::vector<bool> inside;
    for (const auto& r : benchmark["requests"]["successful"])
        inside.push_back(r["request_end_time"].get<double>() >= from && r["request_start_time"].get<double>() <= to);
    return inside;
}

} // namespace

TEST_CASE("the GuideLLM format is named guidellm") {
    CHECK(guidellm_format.name == "guidellm");
}

TEST_CASE("the GuideLLM sniffer is sure of every real benchmarks.json") {
    for (const auto& f : files) CHECK(guidellm_format.sniff(head_of(path_of(f))) == 100);
}

TEST_CASE("the GuideLLM sniffer recognises no other file of the shared data") {
    for (const auto& entry : fs::recursive_directory_iterator(SERVESTAT_SHARED_DATA_DIR)) {
        if (!entry.is_regular_file()) continue;
        const std::string head = head_of(entry.path());
        const std::string path = entry.path().string();
        const bool guidellm = (path.find("guidellm-danielkorat") != std::string::npos &&
                               entry.path().extension() == ".json") ||
                              (path.find("guidellm-yaml-jhurlocker") != std::string::npos &&
                               entry.path().extension() == ".yaml");
        INFO(entry.path().string());
        CHECK((guidellm_format.sniff(head) > 0) == guidellm);
    }
}

TEST_CASE("the GuideLLM sniffer leaves vLLM bench JSON to its reader, and the other way round") {
    for (const auto& entry : fs::directory_iterator(fs::path(SERVESTAT_TEST_DATA_DIR) / "vllm_bench_json")) {
        if (entry.path().extension() != ".json") continue;
        INFO(entry.path().string());
        CHECK(guidellm_format.sniff(head_of(entry.path())) == 0);
    }
    for (const auto& f : files) CHECK(servestat::vllm_bench_json_format.sniff(head_of(path_of(f))) == 0);
}

TEST_CASE("no other built-in format claims a GuideLLM file") {
    for (const auto& f : files) {
        const std::string head = head_of(path_of(f));
        for (const auto* format : servestat::builtin_formats) {
            if (format->name == guidellm_format.name) continue;
            INFO(std::string(f.path) + " / " + std::string(format->name));
            CHECK(format->sniff(head) == 0);
        }
    }
}

TEST_CASE("every GuideLLM file gives one run with SOURCE.md's request counts") {
    for (const auto& f : files) {
        INFO(f.path);
        const run r = read_one(f);
        std::size_t ok = 0, error = 0, cancelled = 0;
        for (auto s : r.requests.status()) {
            ok += s == request_status::ok;
            error += s == request_status::error;
            cancelled += s == request_status::cancelled;
        }
        CHECK(r.requests.size() == f.successful + f.errored + f.incomplete);
        CHECK(ok == f.successful);
        CHECK(error == f.errored);
        CHECK(cancelled == f.incomplete);
    }
}

TEST_CASE("a GuideLLM run is labelled by its file stem and strategy") {
    CHECK(read_one(qwen30b).meta.label == "Qwen_Qwen3-30B-A3B_tp4_quant-fp8_benchmarks synchronous");
    CHECK(read_one(sanity).meta.label == "Qwen_Qwen3-4B-Thinking-2507_tp4_quant-fp8_benchmarks concurrent@4");
}

TEST_CASE("a GuideLLM run names its model, tool, start time, workload and source") {
    for (const auto& f : files) {
        INFO(f.path);
        const run r = read_one(f);
        CHECK(r.meta.model == f.model);
        CHECK(r.meta.tool == "guidellm 0.5.0.dev0");
        CHECK(r.meta.started_at == f.started_at);
        CHECK(r.meta.workload == "/root/aime_2024_v2.jsonl");
        CHECK(r.meta.source.format == "guidellm");
        CHECK(r.meta.source.path == path_of(f).string());
        CHECK(r.meta.shared_clock);
        CHECK(r.meta.kind == servestat::run_kind::requests);
    }
}

TEST_CASE("a synchronous GuideLLM run has its strategy and constraints as parameters") {
    CHECK(read_one(qwen30b).meta.params == nlohmann::json{{"strategy", "synchronous"},
                                                          {"profile", "synchronous"},
                                                          {"max_concurrency", 1},
                                                          {"worker_count", 1},
                                                          {"max_requests", 30},
                                                          {"max_seconds", 900},
                                                          {"max_errors", 5}});
}

TEST_CASE("a concurrent GuideLLM run has its streams as a parameter") {
    CHECK(read_one(sanity).meta.params == nlohmann::json{{"strategy", "concurrent"},
                                                         {"profile", "concurrent"},
                                                         {"streams", 4},
                                                         {"max_concurrency", 4},
                                                         {"worker_count", 4},
                                                         {"max_requests", 4}});
}

TEST_CASE("the run's clock starts at its first request start") {
    const run r = read_one(qwen30b);
    CHECK(r.requests.row(0).t_sent == 0.0);
    // The sanity run's third record started first (concurrent streams start in any order).
    const run s = read_one(sanity);
    CHECK(s.requests.row(2).t_sent == 0.0);
    for (std::size_t i = 0; i < s.requests.size(); ++i) CHECK(*s.requests.row(i).t_sent >= 0.0);
}

TEST_CASE("GuideLLM's TTFT becomes t_first - t_sent in seconds") {
    // requests.successful[0].time_to_first_token_ms of the Qwen3-30B file: 1243.5975074768066
    const request_record r = read_one(qwen30b).requests.row(0);
    CHECK(*r.t_first - *r.t_sent == Approx(1.2435975074768066).epsilon(1e-12));
}

TEST_CASE("t_end is the last token: e2e plus GuideLLM's tail to request_end is its request_latency") {
    for (const auto& f : files) {
        INFO(f.path);
        const run r = read_one(f);
        const nlohmann::json successful = benchmark_of(f)["requests"]["successful"];
        for (std::size_t i = 0; i < successful.size(); ++i) {
            const auto& timings = successful[i]["info"]["timings"];
            const request_record row = r.requests.row(i);
            const double tail = timings["request_end"].get<double>() - timings["last_token_iteration"].get<double>();
            CHECK(tail > 0);
            CHECK(*row.t_end - *row.t_sent + tail == Approx(successful[i]["request_latency"].get<double>()).margin(1e-9));
        }
    }
}

TEST_CASE("servestat's tpot of each request is GuideLLM's per-request inter_token_latency_ms") {
    for (const auto& f : files) {
        INFO(f.path);
        const run r = read_one(f);
        const nlohmann::json successful = benchmark_of(f)["requests"]["successful"];
        for (std::size_t i = 0; i < successful.size(); ++i) {
            const auto tpot = servestat::metric_value(r.requests, metric::tpot, i);
            REQUIRE(tpot);
            CHECK(*tpot * 1e3 == Approx(successful[i]["inter_token_latency_ms"].get<double>()).epsilon(1e-12));
        }
    }
}

TEST_CASE("GuideLLM's token counts and the request's max_tokens are read") {
    // successful[0] of the Qwen3-30B file: prompt_tokens 133, output_tokens 1024, body max_tokens 1024
    const request_record r = read_one(qwen30b).requests.row(0);
    CHECK(r.prompt_tokens == 133);
    CHECK(r.output_tokens == 1024);
    CHECK(r.max_tokens == 1024);
}

TEST_CASE("GuideLLM keeps no chunk gaps, so a run has no itl") {
    const run r = read_one(qwen30b);
    CHECK_FALSE(r.requests.has_itl());
    CHECK(has_note(r, "itl) are unavailable"));
}

TEST_CASE("the cancelled incomplete request has status cancelled and no latencies") {
    const run r = read_one(qwen30b);
    const request_record row = r.requests.row(23);
    CHECK(row.status == request_status::cancelled);
    CHECK(row.error == "Request was cancelled");
    CHECK_FALSE(row.t_first);
    CHECK_FALSE(row.t_end);
    CHECK_FALSE(row.prompt_tokens);
    CHECK_FALSE(row.output_tokens);
    for (metric m : {metric::e2e, metric::ttft, metric::tpot})
        CHECK_FALSE(servestat::metric_value(r.requests, m, 23).has_value());
    const auto stats = servestat::analyze(r);
    CHECK(stats.ok == 23);
    CHECK(stats.failed == 1);
    CHECK(servestat::find_summary(stats, "all", metric::e2e)->n == 23);
}

TEST_CASE("a closed-loop strategy has no t_sched: GuideLLM's targeted_start is not an arrival") {
    const run r = read_one(qwen30b);
    for (std::size_t i = 0; i < r.requests.size(); ++i) CHECK_FALSE(r.requests.row(i).t_sched);
    CHECK(has_note(r, "closed-loop strategy (synchronous)"));
}

TEST_CASE("the measurement window is named in a note and every request is kept") {
    const run r = read_one(qwen30b);
    CHECK(r.requests.size() == 24);
    // metrics.request_totals.successful = 19; window 90 s to 810 s after the first request start
    CHECK(reported(r, "guidellm.request_totals.successful") == 19.0);
    CHECK(has_note(r, "cover the 19 of 23 successful requests that overlap its measurement window, 90.0 s to "
                      "810.0 s"));
    // Without warmup and cooldown the window holds every request and no note is needed.
    CHECK_FALSE(has_note(read_one(sanity), "measurement window"));
}

TEST_CASE("GuideLLM's window rule picks exactly the requests its metrics counted") {
    for (const auto& f : files) {
        INFO(f.path);
        const nlohmann::json benchmark = benchmark_of(f);
        const auto inside = in_window(benchmark);
        CHECK(static_cast<double>(std::count(inside.begin(), inside.end(), true)) ==
              benchmark["metrics"]["request_totals"]["successful"].get<double>());
    }
}

TEST_CASE("the scheduler's counts are compared with the listed records") {
    // requests_made: successful 23, errored 0, incomplete 2; requests.incomplete lists 1
    CHECK(has_note(read_one(qwen30b), "counted 23 successful, 0 errored and 2 incomplete requests; the file lists 23 "
                                      "successful, 0 errored and 1 incomplete"));
}

TEST_CASE("GuideLLM's own metrics are reported under servestat's names where definitions agree") {
    const run r = read_one(qwen30b);
    // metrics.time_to_first_token_ms.successful.percentiles.p50 = 58.10093879699707 (ms)
    CHECK(reported(r, "ttft.p50") == Approx(0.05810093879699707).epsilon(1e-15));
    // metrics.request_latency.successful.percentiles.p99 = 40.430073499679565 (s), ends at request_end
    CHECK(reported(r, "guidellm.request_latency.p99") == 40.430073499679565);
    CHECK_FALSE(reported(r, "e2e.p99"));
    // metrics.inter_token_latency_ms.successful.mean = 38.65124784686373 (ms, token-weighted)
    CHECK(reported(r, "guidellm.inter_token_latency_ms.mean") == 38.65124784686373);
    CHECK_FALSE(reported(r, "tpot.mean"));
    CHECK(reported(r, "guidellm.request_totals.total") == 19.0);
    CHECK(reported(r, "guidellm.duration") == 720.0);
    CHECK(reported(r, "prompt_tokens.p99.9"));
    CHECK(reported(r, "guidellm.requests_per_second.mean"));
    for (const auto& v : r.meta.reported) {
        INFO(v.name);
        CHECK(!v.unit.empty());
    }
}

// Issue item 10: GuideLLM's successful request_latency and TTFT summaries, recomputed from the
// per-request records of its measurement window with servestat's statistics.
TEST_CASE("cross-check: GuideLLM's request_latency and TTFT statistics recomputed from its requests") {
    for (const auto& f : files) {
        INFO(f.path);
        const nlohmann::json benchmark = benchmark_of(f);
        const auto& metrics = benchmark["metrics"];
        const auto inside = in_window(benchmark);
        const run all = read_one(f);

        // The window's requests as their own run, so servestat's pipeline sees what GuideLLM saw.
        run window;
        window.meta = all.meta;
        std::vector<double> latencies;
        for (std::size_t i = 0; i < inside.size(); ++i) {
            if (!inside[i]) continue;
            window.requests.push_back(all.requests.row(i));
            latencies.push_back(benchmark["requests"]["successful"][i]["request_latency"].get<double>());
        }
        REQUIRE(window.requests.size() == metrics["request_latency"]["successful"]["count"].get<std::size_t>());

        servestat::stats_options options;
        options.summary.method = quantile_method::inverted_cdf;
        options.summary.ddof = 0; // GuideLLM's variance divides by n
        options.summary.percentiles = {0.1, 1, 5, 10, 25, 50, 75, 90, 95, 99, 99.9};
        const auto stats = servestat::analyze(window, options);
        const auto* ttft = servestat::find_summary(stats, "all", metric::ttft);
        REQUIRE(ttft);
        const auto latency = servestat::summarize(latencies, options.summary);

        // Seconds from epoch differences are exact; GuideLLM's ms (x1000) and the reader's /1000
        // round twice: 1e-12 relative. request_latency values are GuideLLM's own doubles: exact.
        // Means and std: GuideLLM sums value x probability, servestat accumulates differences from
        // the first value: agreement to 1e-12 (mean) and 1e-9 (std, a difference of squares).
        const auto& t = metrics["time_to_first_token_ms"]["successful"];
        CHECK(*ttft->mean * 1e3 == Approx(t["mean"].get<double>()).epsilon(1e-12));
        CHECK(*ttft->std * 1e3 == Approx(t["std_dev"].get<double>()).epsilon(1e-9));
        CHECK(*ttft->min * 1e3 == Approx(t["min"].get<double>()).epsilon(1e-12));
        CHECK(*ttft->max * 1e3 == Approx(t["max"].get<double>()).epsilon(1e-12));
        const auto& l = metrics["request_latency"]["successful"];
        CHECK(*latency.mean == Approx(l["mean"].get<double>()).epsilon(1e-12));
        CHECK(*latency.std == Approx(l["std_dev"].get<double>()).epsilon(1e-9));
        CHECK(*latency.min == l["min"].get<double>());
        CHECK(*latency.max == l["max"].get<double>());

        std::vector<double> ttfts;
        for (std::size_t i = 0; i < window.requests.size(); ++i)
            ttfts.push_back(*servestat::metric_value(window.requests, metric::ttft, i));
        const std::array<std::string_view, 11> keys{"p001", "p01", "p05", "p10", "p25", "p50",
                                                    "p75",  "p90", "p95", "p99", "p999"};
        for (std::size_t k = 0; k < keys.size(); ++k) {
            INFO(keys[k]);
            const double p = guidellm_ps[k].second;
            check_guidellm_percentile(ttfts, p, t["percentiles"][std::string(keys[k])].get<double>(), 1e3, 1e-12);
            check_guidellm_percentile(latencies, p, l["percentiles"][std::string(keys[k])].get<double>(), 1.0, 0);
        }
        // The median GuideLLM prints is its p50 lookup.
        check_guidellm_percentile(latencies, 0.5, l["median"].get<double>(), 1.0, 0);
        // Away from exact ranks servestat's own inverted_cdf summary is GuideLLM's percentile.
        const double n = static_cast<double>(ttfts.size());
        for (std::size_t k = 0; k < keys.size(); ++k) {
            const double rank = n * guidellm_ps[k].second;
            if (std::abs(rank - std::round(rank)) < 1e-9) continue;
            INFO(keys[k]);
            CHECK(*servestat::find_percentile(*ttft, 100 * guidellm_ps[k].second) * 1e3 ==
                  Approx(t["percentiles"][std::string(keys[k])].get<double>()).epsilon(1e-12));
        }
    }
}

TEST_CASE("cross-check: GuideLLM's inter-token latency mean is servestat's tpot weighted by output_tokens - 1") {
    for (const auto& f : files) {
        INFO(f.path);
        const nlohmann::json benchmark = benchmark_of(f);
        const auto inside = in_window(benchmark);
        const run r = read_one(f);
        double weighted = 0, weights = 0;
        for (std::size_t i = 0; i < inside.size(); ++i) {
            if (!inside[i]) continue;
            const double w = *r.requests.row(i).output_tokens - 1;
            weighted += *servestat::metric_value(r.requests, metric::tpot, i) * w;
            weights += w;
        }
        CHECK(weighted / weights * 1e3 ==
              Approx(benchmark["metrics"]["inter_token_latency_ms"]["successful"]["mean"].get<double>()).epsilon(1e-9));
    }
}

TEST_CASE("a constant-rate strategy's targeted_start is the request's t_sched") {
    const servestat::test::temp_file file(document(R"({"successful": [)" + ok_record() + R"(],
        "errored": [)" + errored_record + R"(], "incomplete": []})"),
                                          "synthetic_benchmarks.json");
    const run r = read_one(file.path());
    CHECK(r.meta.label == "synthetic_benchmarks constant@2.00");
    CHECK(r.meta.params == nlohmann::json{{"strategy", "constant"}, {"rate", 2}, {"worker_count", 8},
                                          {"max_requests", 3}});
    CHECK(r.meta.model == "m-from-args");
    CHECK(r.meta.workload == "prompt_tokens=256,output_tokens=128");
    CHECK(r.meta.started_at == "1970-01-01T00:16:40Z");
    const request_record row = r.requests.row(0);
    CHECK(row.t_sched == -0.5);
    CHECK(row.t_sent == 0.0);
    CHECK(row.t_first == 0.25);
    CHECK(row.t_end == 2.0);
    CHECK(row.max_tokens == 128);
    CHECK_FALSE(has_note(r, "closed-loop"));
}

TEST_CASE("an errored GuideLLM request keeps its error text and the HTTP status in it") {
    const servestat::test::temp_file file(document(R"({"successful": [)" + ok_record() + R"(],
        "errored": [)" + errored_record + R"(], "incomplete": []})"));
    const request_record row = read_one(file.path()).requests.row(1);
    CHECK(row.status == request_status::error);
    CHECK(row.http_status == 429);
    CHECK(row.error.starts_with("Client error '429 Too Many Requests'"));
    CHECK(row.t_sent == 0.5);
    CHECK_FALSE(row.t_first);
    CHECK(row.t_end == 0.75);
    CHECK_FALSE(row.output_tokens);
}

TEST_CASE("a lone surrogate escape in a GuideLLM text is read as U+FFFD, not a refusal of the file") {
    // Python's json.dumps writes one for generated text cut inside a character (finding L14): in an
    // unused field (output) and in an error text alike.
    const std::string with_output = "{\"output\": \"cut at \\ud83d\", " + ok_record().substr(1);
    const std::string errored = R"({"info": {"status": "errored", "timings": {"targeted_start": 1001.0,
    "request_start": 1001.5, "first_token_iteration": null, "last_token_iteration": null, "request_end": 1001.75},
    "error": "bad byte \udc80"}, "request_start_time": 1001.5, "request_end_time": 1001.75, "prompt_tokens": 256,
    "output_tokens": null})";
    const servestat::test::temp_file file(document(R"({"successful": [)" + with_output + R"(],
        "errored": [)" + errored + R"(], "incomplete": []})"));
    const run r = read_one(file.path());
    REQUIRE(r.requests.size() == 2);
    CHECK(r.requests.row(1).error == "bad byte \xEF\xBF\xBD");
    CHECK(has_note(r, "2 lone UTF-16 surrogate escapes (such as \\ud800 without its pair) were read as"));
}

TEST_CASE("a truncated GuideLLM file is an input error") {
    const std::string text = read_text(path_of(sanity));
    const input_error e = error_of(text.substr(0, text.size() / 2));
    CHECK(std::string(e.what()).find("truncated") != std::string::npos);
}

TEST_CASE("a GuideLLM document without benchmarks is an input error naming the field") {
    const input_error e = error_of(R"({"metadata": {"version": 1, "guidellm_version": "0.5.0"}, "args": {}})");
    CHECK(e.field() == "benchmarks");
    CHECK(e.line() == 1);
    CHECK(error_of(R"({"benchmarks": {}})").field() == "benchmarks");
    CHECK(error_of(R"({"benchmarks": []})").reason() == "no benchmarks in the file");
    CHECK(error_of(R"([{"benchmarks": []}])").reason() == "expected an object, got array");
}

TEST_CASE("a wrong type in a GuideLLM record is an input error naming its JSON path") {
    const input_error e = error_of(document(R"({"successful": [)" + ok_record("\"soon\"") + "]}"));
    CHECK(e.field() == "benchmarks[0].requests.successful[0].request_start_time");
    CHECK(e.reason() == "expected a number, got string");
    CHECK(error_of(document(R"({"successful": {}})")).field() == "benchmarks[0].requests.successful");
    CHECK(error_of(document(R"({"successful": [)" + ok_record() + R"(], "errored": [{"info": {"error": 5}}]})"))
              .field() == "benchmarks[0].requests.errored[0].info.error");
}

TEST_CASE("a successful GuideLLM record without a start or an end is an input error") {
    CHECK(error_of(document(R"({"successful": [{"info": {"timings": {}}}]})")).field() ==
          "benchmarks[0].requests.successful[0].request_start_time");
    CHECK(error_of(document(R"({"successful": [{"request_start_time": 1.0, "info": {"timings": {}}}]})")).field() ==
          "benchmarks[0].requests.successful[0].info.timings.last_token_iteration");
}

TEST_CASE("a first token after the last token is an input error, or skipped under skip_bad") {
    const std::string text = document(R"({"successful": [)" + ok_record() + "," +
                                      ok_record("1001.0", "1004.0", "1003.0") + "]}");
    const input_error e = error_of(text);
    CHECK(e.field() == "benchmarks[0].requests.successful[1].info.timings.last_token_iteration");
    const servestat::test::temp_file file(text);
    const run r = read_one(file.path(), {.skip_bad = true});
    CHECK(r.requests.size() == 1);
    CHECK(r.skipped.count == 1);
}

TEST_CASE("a GuideLLM document needs its requests") {
    const std::string text = document("null");
    CHECK(error_of(text).field() == "benchmarks[0].requests");
}

TEST_CASE("without a last token, a first token after request_end is an input error") {
    std::string record = ok_record("1001.0", "1004.0");
    record.replace(record.find(R"(, "last_token_iteration": 1003.0)"), std::string_view(R"(, "last_token_iteration": 1003.0)").size(), "");
    const input_error e = error_of(document(R"({"successful": [)" + record + "]}"));
    CHECK(e.field() == "benchmarks[0].requests.successful[0].info.timings.request_end");
    CHECK_THAT(e.what(), Catch::Contains("before first_token_iteration"));
}

TEST_CASE("an end time that only informs may be out of order: noted and kept; one that is t_end refuses") {
    // request_end_time (the listing's end) before the start places the request against GuideLLM's
    // window only; with a last token, request_end only informs the latency note.
    std::string record = ok_record();
    record.replace(record.find(R"("request_end_time": 1003.5)"), std::string_view(R"("request_end_time": 1003.5)").size(),
                   R"("request_end_time": 1000.9)");
    const servestat::test::temp_file file(document(R"({"successful": [)" + ok_record() + "," + record + "]}"));
    const run r = read_one(file.path());
    CHECK(r.requests.size() == 2);
    CHECK(*r.requests.row(1).t_end - *r.requests.row(1).t_sent == Approx(2.0)); // the last token, as before
    CHECK(has_note(r, "1 request(s) have an end time out of order (first: "
                      "benchmarks[0].requests.successful[1].request_end_time: request_end_time is before "
                      "request_start_time)"));
    // Without a last token request_end is t_end, which feeds e2e: refused, naming the field.
    std::string no_last = ok_record();
    no_last.replace(no_last.find(R"(, "last_token_iteration": 1003.0)"), std::string_view(R"(, "last_token_iteration": 1003.0)").size(), "");
    no_last.replace(no_last.find(R"("request_end": 1003.5)"), std::string_view(R"("request_end": 1003.5)").size(),
                    R"("request_end": 1000.9)");
    const input_error e = error_of(document(R"({"errored": [], "successful": [)" + no_last + "]}"));
    CHECK(e.field() == "benchmarks[0].requests.successful[0].info.timings.request_end");
}

TEST_CASE("a request whose end falls back to request_end says so in a note") {
    std::string record = ok_record();
    record.replace(record.find(R"(, "last_token_iteration": 1003.0)"), std::string_view(R"(, "last_token_iteration": 1003.0)").size(), "");
    const servestat::test::temp_file file(document(R"({"successful": [)" + record + "]}"));
    const run r = read_one(file.path());
    REQUIRE(r.requests.size() == 1);
    CHECK(*r.requests.row(0).t_end - *r.requests.row(0).t_sent == Approx(2.5)); // request_end 1003.5 - start 1001.0
    bool noted = false;
    for (const auto& note : r.meta.notes) noted = noted || note.find("lack last_token_iteration") != std::string::npos;
    CHECK(noted);
}

// ---------------------------------------------------------------------------------------------
// GuideLLM 0.2's layout (tests/data/guidellm/benchmarks_v0.2.json, made by
// tests/tools/make_guidellm_v02_fixture.py from GuideLLM 0.2's source: its own metrics computed as
// GuideLLM 0.2 computes them, independently of servestat)

const fs::path v02_file = fs::path(SERVESTAT_TEST_DATA_DIR) / "guidellm" / "benchmarks_v0.2.json";

nlohmann::json v02_benchmark(std::size_t i) {
    return servestat::detail::read_json_documents(v02_file).front().value["benchmarks"][i];
}

std::vector<run> read_v02() { return guidellm_format.read(v02_file, {}); }

// The successful requests of a 0.2 benchmark, in the order the run lists them.
const nlohmann::json& v02_successful(const nlohmann::json& benchmark) { return benchmark["requests"]["successful"]; }

TEST_CASE("a GuideLLM 0.2 file is detected as GuideLLM and read as its 0.2 layout") {
    CHECK(servestat::detect_file_format(v02_file).name == "guidellm");
    const auto runs = read_v02();
    REQUIRE(runs.size() == 2);
    for (const auto& r : runs) {
        CHECK(r.meta.tool == "guidellm 0.2");
        CHECK(has_note(r, "GuideLLM 0.2's layout"));
        CHECK(r.meta.model == "meta-llama/Llama-3.1-8B-Instruct"); // worker.backend_model
        CHECK(r.meta.workload == "prompt_tokens=256,output_tokens=128");
        CHECK(r.meta.params.at("profile") == "sweep");
        CHECK(r.meta.params.at("max_requests") == 9);
        CHECK(r.meta.params.at("max_seconds") == 30);
        CHECK(r.requests.size() == 9);
    }
    CHECK(runs[0].meta.label == "benchmarks_v0.2 synchronous");
    CHECK(runs[1].meta.label == "benchmarks_v0.2 constant@2.00");
    CHECK(runs[1].meta.params.at("rate") == 2);
}

TEST_CASE("GuideLLM 0.2's request times: t_sent start_time, t_first first_token_time, t_end last_token_time") {
    const auto runs = read_v02();
    for (std::size_t b = 0; b < runs.size(); ++b) {
        const nlohmann::json benchmark = v02_benchmark(b);
        const auto& ok = v02_successful(benchmark);
        double origin = ok[0]["start_time"].get<double>();
        for (const char* group : {"successful", "errored", "incomplete"})
            for (const auto& rec : benchmark["requests"][group]) origin = std::min(origin, rec["start_time"].get<double>());
        for (std::size_t i = 0; i < ok.size(); ++i) {
            INFO("benchmark " << b << " request " << i);
            const request_record row = runs[b].requests.row(i);
            CHECK(row.status == request_status::ok);
            CHECK(*row.t_sent == ok[i]["start_time"].get<double>() - origin);
            CHECK(*row.t_sent == ok[i]["scheduler_info"]["request_start"].get<double>() - origin);
            // GuideLLM's own per-request numbers, computed from the same times
            CHECK((*row.t_first - *row.t_sent) * 1000 ==
                  Approx(ok[i]["time_to_first_token_ms"].get<double>()).epsilon(1e-9));
            CHECK((*row.t_end - *row.t_first) * 1000 / (ok[i]["output_tokens"].get<double>() - 1) ==
                  Approx(ok[i]["inter_token_latency_ms"].get<double>()).epsilon(1e-9));
            // request_latency runs on to end_time ([DONE]), after the last token
            CHECK(*row.t_end - *row.t_sent < ok[i]["request_latency"].get<double>());
            CHECK(row.prompt_tokens == ok[i]["prompt_tokens"].get<int>());
            CHECK(row.output_tokens == ok[i]["output_tokens"].get<int>());
        }
    }
}

TEST_CASE("GuideLLM 0.2's constant strategy gives t_sched from scheduler_info.targeted_start_time") {
    const auto runs = read_v02();
    const nlohmann::json benchmark = v02_benchmark(1);
    const auto& ok = v02_successful(benchmark);
    const request_record first = runs[1].requests.row(0), second = runs[1].requests.row(1);
    CHECK(*second.t_sched - *first.t_sched ==
          Approx(ok[1]["scheduler_info"]["targeted_start_time"].get<double>() -
                 ok[0]["scheduler_info"]["targeted_start_time"].get<double>()).epsilon(1e-12));
    CHECK(*first.t_sent > *first.t_sched);
    CHECK_FALSE(runs[0].requests.row(0).t_sched); // synchronous: targeted start is not an arrival
}

TEST_CASE("GuideLLM 0.2's errored and incomplete records keep their errors and statuses") {
    const run r = read_v02()[0];
    std::size_t ok = 0, failed = 0, cancelled = 0;
    bool saw_429 = false, saw_timeout = false;
    for (std::size_t i = 0; i < r.requests.size(); ++i) {
        const request_record row = r.requests.row(i);
        ok += row.status == request_status::ok;
        cancelled += row.status == request_status::cancelled;
        failed += row.status == request_status::error || row.status == request_status::timeout;
        saw_429 = saw_429 || row.http_status == 429;
        saw_timeout = saw_timeout || row.status == request_status::timeout;
        if (row.status != request_status::ok) CHECK_FALSE(row.error.empty());
    }
    CHECK(ok == 6);
    CHECK(failed == 2);
    CHECK(cancelled == 1);
    CHECK(saw_429);
    CHECK(saw_timeout);
}

TEST_CASE("GuideLLM 0.2's median is reported as its p50, its other statistics under servestat's names") {
    const auto runs = read_v02();
    for (std::size_t b = 0; b < runs.size(); ++b) {
        const nlohmann::json m = v02_benchmark(b)["metrics"];
        const run& r = runs[b];
        REQUIRE_FALSE(m["time_to_first_token_ms"]["successful"]["percentiles"].contains("p50"));
        CHECK(reported(r, "ttft.p50") == m["time_to_first_token_ms"]["successful"]["median"].get<double>() * 1e-3);
        CHECK(reported(r, "ttft.mean") == m["time_to_first_token_ms"]["successful"]["mean"].get<double>() * 1e-3);
        CHECK(reported(r, "ttft.p99") ==
              m["time_to_first_token_ms"]["successful"]["percentiles"]["p99"].get<double>() * 1e-3);
        CHECK(reported(r, "guidellm.request_latency.p50") == m["request_latency"]["successful"]["median"].get<double>());
        CHECK(reported(r, "output_tokens.p50") == m["output_token_count"]["successful"]["median"].get<double>());
        CHECK(reported(r, "guidellm.inter_token_latency_ms.p50") ==
              m["inter_token_latency_ms"]["successful"]["median"].get<double>());
        CHECK(reported(r, "guidellm.requests_per_second.p50") ==
              m["requests_per_second"]["successful"]["median"].get<double>());
        CHECK(reported(r, "guidellm.request_totals.successful") == 6);
        CHECK(reported(r, "guidellm.request_totals.total") == 9);
        CHECK(reported(r, "guidellm.duration") == v02_benchmark(b)["duration"].get<double>());
        CHECK_FALSE(reported(r, "ttft.p0.1") == std::nullopt);
    }
}

TEST_CASE("cross-check: GuideLLM 0.2's TTFT statistics recomputed from the requests servestat read") {
    // GuideLLM 0.2 computed its metrics over exactly the listed requests (nothing sampled here): its
    // nearest-rank percentiles are servestat's inverted_cdf order statistics, its std divides by n.
    servestat::stats_options options;
    options.summary.method = quantile_method::inverted_cdf;
    options.summary.ddof = 0;
    const auto runs = read_v02();
    for (std::size_t b = 0; b < runs.size(); ++b) {
        INFO("benchmark " << b);
        const auto stats = servestat::analyze(runs[b], options);
        const auto* ttft = servestat::find_summary(stats, "all", metric::ttft);
        REQUIRE(ttft);
        const nlohmann::json t = v02_benchmark(b)["metrics"]["time_to_first_token_ms"]["successful"];
        CHECK(ttft->n == t["count"].get<std::size_t>());
        CHECK(*ttft->mean * 1e3 == Approx(t["mean"].get<double>()).epsilon(1e-12));
        CHECK(*ttft->std * 1e3 == Approx(t["std_dev"].get<double>()).epsilon(1e-9));
        std::vector<double> values; // servestat's TTFTs, ms
        for (std::size_t i = 0; i < runs[b].requests.size(); ++i) {
            const request_record row = runs[b].requests.row(i);
            if (row.status == request_status::ok) values.push_back((*row.t_first - *row.t_sent) * 1e3);
        }
        check_guidellm_percentile(values, 0.5, t["median"].get<double>(), 1.0, 1e-12);
        for (const auto& [name, key, p] : {std::tuple{"p1", "p01", 0.01}, {"p25", "p25", 0.25}, {"p75", "p75", 0.75},
                                          {"p90", "p90", 0.9}, {"p99", "p99", 0.99}}) {
            INFO(name);
            check_guidellm_percentile(values, p, t["percentiles"][key].get<double>(), 1.0, 1e-12);
        }
    }
}

TEST_CASE("a GuideLLM 0.2 successful record without start_time names start_time, not request_start_time") {
    const std::string text = R"({"benchmarks": [{"type_": "generative_benchmark", "args": {"strategy": {"type_": "synchronous"}},
      "run_stats": {"start_time": 1000.0}, "worker": {"backend_model": "m"},
      "requests": {"successful": [{"type_": "generative_text_response", "prompt_tokens": 5, "output_tokens": 3,
        "end_time": 1002.0, "first_token_time": 1000.5, "last_token_time": 1001.5}], "errored": [], "incomplete": []}}]})";
    const input_error e = error_of(text);
    CHECK(e.field() == "benchmarks[0].requests.successful[0].start_time");
    CHECK(e.reason() == "missing required field");
}

TEST_CASE("a GuideLLM 0.2 time of -1 is GuideLLM's unset value, not a time") {
    const std::string text = R"({"benchmarks": [{"type_": "generative_benchmark", "args": {"strategy": {"type_": "synchronous"}},
      "run_stats": {"start_time": 1000.0},
      "requests": {"successful": [{"type_": "generative_text_response", "prompt_tokens": 5, "output_tokens": 0,
        "start_time": 1000.25, "end_time": 1002.0, "first_token_time": -1.0, "last_token_time": -1.0}],
        "errored": [{"type_": "generative_text_error", "error": "boom", "prompt_tokens": 5, "output_tokens": 0,
        "start_time": 1000.5, "end_time": -1, "first_token_time": null, "last_token_time": null}], "incomplete": []}}]})";
    const servestat::test::temp_file file(text, "benchmarks.json");
    const run r = read_one(file.path());
    CHECK_FALSE(r.requests.row(0).t_first);
    CHECK(*r.requests.row(0).t_end == 1.75); // end_time, with a note that it is not the last token
    CHECK(has_note(r, "no last_token_time"));
    CHECK_FALSE(r.requests.row(1).t_end);
}

TEST_CASE("a GuideLLM file in neither known layout names what it found and the supported versions") {
    const input_error e = error_of(R"({"benchmarks": [{"type_": "generative_benchmark", "mode": "sweep",
      "benchmarks": [{"results": []}]}]})");
    CHECK(e.field() == "benchmarks[0]");
    CHECK_THAT(e.reason(), Catch::Contains("benchmarks[0]: benchmarks, mode, type_") && Catch::Contains("0.2") &&
                               Catch::Contains("metadata.version 1 or 2"));
    CHECK_THAT(error_of(R"({"metadata": {"version": 3}, "benchmarks": [{"setup": {}}]})").reason(),
               Catch::Contains("metadata.version 3"));
}

const fs::path jhurlocker =
    fs::path(SERVESTAT_SHARED_DATA_DIR) / "guidellm-yaml-jhurlocker/llama-3-2-3b_20250721_003902/benchmark-results.yaml";

TEST_CASE("GuideLLM's YAML report (GuideLLM 0.2.x, a real file) is read with its timed-out request") {
    const auto& format = servestat::detect_file_format(jhurlocker);
    REQUIRE(format.name == "guidellm");
    const run r = read_one(jhurlocker);
    CHECK(r.meta.tool == "guidellm 0.2");
    CHECK(r.meta.params["strategy"] == "synchronous");
    REQUIRE(r.requests.size() == 15);
    const auto stats = servestat::analyze(r);
    CHECK(stats.ok == 14);
    CHECK(stats.failed == 1); // the incomplete request: cut off by the 60 s limit, counted as cancelled
    CHECK(r.requests.row(14).status == request_status::cancelled);
    // SOURCE.md's reference numbers (numpy's default percentiles over the 14 successful requests).
    const auto* ttft = servestat::find_summary(stats, "all", metric::ttft);
    REQUIRE(ttft);
    CHECK(ttft->n == 14);
    CHECK(*servestat::find_percentile(*ttft, 50) * 1e3 == Approx(407.759428).margin(1e-6));
    CHECK(*servestat::find_percentile(*ttft, 99) * 1e3 == Approx(455.464799).margin(1e-6));
    CHECK(*ttft->mean * 1e3 == Approx(409.563541).margin(1e-6));
    const auto* e2e = servestat::find_summary(stats, "all", metric::e2e);
    CHECK(*servestat::find_percentile(*e2e, 50) == Approx(3.907936).margin(1e-6)); // to last_token_time
    CHECK(*servestat::find_percentile(*e2e, 99) == Approx(3.941830).margin(1e-6));
    // GuideLLM's own nearest-rank numbers stay beside servestat's, as reported values.
    CHECK(*reported(r, "ttft.p50") * 1e3 == Approx(410.487890).margin(1e-6));
    CHECK(*reported(r, "ttft.p99") * 1e3 == Approx(460.039854).margin(1e-6));
}

TEST_CASE("a GuideLLM report gives the same runs from YAML as from JSON") {
    // benchmarks_v0.2.yaml is benchmarks_v0.2.json through PyYAML's yaml.dump, as GuideLLM saves a
    // .yaml report (tests/tools/make_yaml_fixtures.py). The real files' twins (the current layout
    // from guidellm-danielkorat, 0.2.x from guidellm-yaml-jhurlocker) are made and compared through
    // `servestat stats --json` by tests/cli/test_yaml_twins.py.
    const fs::path data = fs::path(SERVESTAT_TEST_DATA_DIR) / "guidellm";
    {
        const fs::path json_file = data / "benchmarks_v0.2.json";
        const fs::path yaml_file = data / "benchmarks_v0.2.yaml";
        const auto from_json = guidellm_format.read(json_file, {});
        const auto from_yaml = guidellm_format.read(yaml_file, {});
        REQUIRE(from_json.size() == from_yaml.size());
        for (std::size_t b = 0; b < from_json.size(); ++b) {
            const auto& j = from_json[b];
            const auto& y = from_yaml[b];
            CHECK(j.meta.params == y.meta.params);
            CHECK(j.meta.model == y.meta.model);
            CHECK(j.meta.started_at == y.meta.started_at);
            CHECK(j.meta.notes == y.meta.notes);
            REQUIRE(j.meta.reported.size() == y.meta.reported.size());
            for (std::size_t i = 0; i < j.meta.reported.size(); ++i) {
                CHECK(j.meta.reported[i].name == y.meta.reported[i].name);
                CHECK(j.meta.reported[i].value == y.meta.reported[i].value); // exactly: same doubles
            }
            REQUIRE(j.requests.size() == y.requests.size());
            for (std::size_t i = 0; i < j.requests.size(); ++i) {
                const auto a = j.requests.row(i), c = y.requests.row(i);
                CHECK(a.t_sched == c.t_sched);
                CHECK(a.t_sent == c.t_sent);
                CHECK(a.t_first == c.t_first);
                CHECK(a.t_end == c.t_end);
                CHECK(a.output_tokens == c.output_tokens);
                CHECK(a.status == c.status);
                CHECK(a.error == c.error);
            }
        }
    }
}

TEST_CASE("a non-finite time in a GuideLLM YAML report is read and noted as in its JSON twin") {
    // GuideLLM writes -1 for a time it never took; -.inf (or .inf, .nan) is no time either: dropped,
    // as the JSON twin's -Infinity (Infinity, NaN) is, and said in the same note.
    const auto report = [](std::string_view first_token_time, bool yaml) {
        const std::string first(first_token_time);
        if (yaml)
            return "benchmarks:\n- args:\n    strategy:\n      type_: synchronous\n  run_stats: {}\n  requests:\n"
                   "    successful:\n    - start_time: 10.0\n      first_token_time: " + first +
                   "\n      last_token_time: 11.0\n      end_time: 11.0\n      type_: generative_text_response\n"
                   "    - start_time: 12.0\n      first_token_time: 12.5\n      last_token_time: 13.0\n"
                   "      end_time: 13.0\n";
        return R"({"benchmarks": [{"args": {"strategy": {"type_": "synchronous"}}, "run_stats": {}, "requests": )"
               R"({"successful": [{"start_time": 10.0, "first_token_time": )" + first +
               R"(, "last_token_time": 11.0, "end_time": 11.0, "type_": "generative_text_response"}, )"
               R"({"start_time": 12.0, "first_token_time": 12.5, "last_token_time": 13.0, "end_time": 13.0}]}}]})";
    };
    const std::string field = "field benchmarks[0].requests.successful[0].first_token_time";
    for (const auto& [yaml_word, json_word, note] :
         {std::tuple{"-.inf", "-Infinity", "-Infinity in " + field + " read as unbounded where the value may be (a rate), else as missing"},
          std::tuple{".inf", "Infinity", "Infinity in " + field + " read as unbounded where the value may be (a rate), else as missing"},
          std::tuple{".nan", "NaN", "NaN in " + field + " read as missing"}}) {
        INFO(yaml_word);
        const servestat::test::temp_file yaml_file(report(yaml_word, true), "benchmarks.yaml");
        const servestat::test::temp_file json_file(report(json_word, false), "benchmarks.json");
        const auto from_yaml = guidellm_format.read(yaml_file.path(), {});
        const auto from_json = guidellm_format.read(json_file.path(), {});
        REQUIRE(from_yaml.size() == 1);
        REQUIRE(from_json.size() == 1);
        CHECK(has_note(from_yaml[0], note));
        CHECK(from_yaml[0].meta.notes == from_json[0].meta.notes);
        REQUIRE(from_yaml[0].requests.size() == 2);
        CHECK_FALSE(from_yaml[0].requests.row(0).t_first); // no time to first token
        CHECK(from_yaml[0].requests.row(1).t_first);
        CHECK_FALSE(from_json[0].requests.row(0).t_first);
    }
}

TEST_CASE("a bad field of a GuideLLM YAML report is named with its own line") {
    const std::string yaml = "benchmarks:\n- args:\n    strategy:\n      type_: synchronous\n  run_stats: {}\n"
                             "  requests:\n    successful:\n    - start_time: 10.0\n      first_token_time: 9.5\n"
                             "      last_token_time: 11.0\n      end_time: 11.0\n      type_: generative_text_response\n"
                             "    - start_time: 12.0\n      first_token_time: 12.5\n      last_token_time: 13.0\n"
                             "      end_time: 13.0\n";
    CHECK(guidellm_format.sniff(yaml) == 90);
    const servestat::test::temp_file file(yaml, "benchmarks.yaml");
    try {
        guidellm_format.read(file.path(), {});
        FAIL("a negative TTFT was read");
    } catch (const input_error& e) {
        CHECK(e.field() == "benchmarks[0].requests.successful[0].first_token_time");
        CHECK(e.line() == 9);
    }
    read_options skip;
    skip.skip_bad = true;
    const auto runs = guidellm_format.read(file.path(), skip);
    REQUIRE(runs.size() == 1);
    CHECK(runs[0].requests.size() == 1);
    REQUIRE(runs[0].skipped.count == 1);
    CHECK_THAT(runs[0].skipped.examples[0], Catch::Contains("benchmarks.yaml:9:"));
    CHECK(guidellm_format.sniff("benchmarks: 3\nother: yes\n") == 0); // YAML, but not GuideLLM's
    // Malformed YAML names its line.
    const servestat::test::temp_file broken("benchmarks:\n- args: [1, 2\n  run_stats: {}\n  inter_token_latency_ms: 1\n",
                                            "benchmarks.yaml");
    try {
        guidellm_format.read(broken.path(), {});
        FAIL("malformed YAML was read");
    } catch (const input_error& e) {
        CHECK(e.line() >= 2);
        CHECK_THAT(e.reason(), Catch::StartsWith("malformed YAML at column"));
    }
}

} // namespace test_ingest_guidellm
