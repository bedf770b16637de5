// GuideLLM 0.8's server_metrics and PR #1163's mean_ci / percentile_cis (ingest/guidellm_server_metrics.hpp,
// ingest/guidellm_intervals.hpp). No public result file carries either yet, so each case takes a real
// GuideLLM 0.5 file of the shared data (guidellm-danielkorat's sanity run, 4 requests) and adds the
// blocks in the layouts GuideLLM's server_metrics guide and the PR describe. Expected values are the
// added numbers themselves, summed or converted by hand (ms → s).
#include "servestat/ingest/guidellm.hpp"

#include <algorithm>  // std::min
#include <cmath>      // std::isnan
#include <filesystem> // std::filesystem
#include <limits>     // std::numeric_limits
#include <string>     // std::string

#include "servestat/ingest/input_file.hpp" // read_whole_file

#include "format_reading.hpp" // test::reported, test::has_note
#include "temp_file.hpp"      // test::temp_file

#include <catch2/catch.hpp>  // TEST_CASE, REQUIRE, CHECK, Approx
#include <nlohmann/json.hpp> // nlohmann::json

namespace test_ingest_guidellm_server_metrics {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using servestat::guidellm_format;
using servestat::input_error;
using servestat::run;
using servestat::test::has_note;
using servestat::test::reported;

const fs::path sanity = fs::path(SERVESTAT_SHARED_DATA_DIR) / "guidellm-danielkorat" / "guidellm_sanity_results" /
                        "20260302_1856" / "Qwen_Qwen3-4B-Thinking-2507_tp4_quant-fp8_benchmarks.json";

json sanity_document() { return json::parse(servestat::detail::read_whole_file(sanity)); }

// The run's clock starts at its earliest request_start_time (guidellm.hpp's header).
double first_request_start(const json& document) {
    double first = std::numeric_limits<double>::infinity();
    for (const auto& r : document["benchmarks"][0]["requests"]["successful"])
        first = std::min(first, r["request_start_time"].get<double>());
    return first;
}

run read_document(const json& document) {
    const servestat::test::temp_file file(document.dump(), "benchmarks.json");
    auto runs = guidellm_format.read(file.path(), {});
    REQUIRE(runs.size() == 1);
    return std::move(runs.front());
}

// One endpoint: a gauge of two engines sampled together twice, then the first engine alone; a gauge
// of one label set; a counter of two engines; a histogram of one label set.
json server_metrics(double t0) {
    return json::array({{
        {"source", "http://localhost:8000/metrics"},
        {"scrapes", 3},
        {"scrape_errors", 1},
        {"gauges",
         {{"vllm:num_requests_running",
           json::array({{{"labels", {{"engine", "0"}}}, {"summary", {{"mean", 2.0}}},
                         {"samples", json::array({{t0 + 0.5, 1}, {t0 + 1.0, 2}, {t0 + 1.5, 3}})}},
                        {{"labels", {{"engine", "1"}}}, {"samples", json::array({{t0 + 0.5, 4}, {t0 + 1.0, 5}})}}})},
          {"vllm:kv_cache_usage_perc",
           json::array({{{"labels", json::object()}, {"samples", json::array({{t0 + 1.0, 0.25}})}}})}}},
        {"counters",
         {{"vllm:prompt_tokens_total", json::array({{{"labels", {{"engine", "0"}}}, {"increase", 100}, {"rate", 5}},
                                                    {{"labels", {{"engine", "1"}}}, {"increase", 50}, {"rate", 2.5}}})}}},
        {"histograms",
         {{"vllm:time_to_first_token_seconds",
           json::array({{{"labels", json::object()}, {"count", 4}, {"sum", 2.0}, {"mean", 0.5},
                         {"quantiles", {{"0.5", 0.4}, {"0.99", 0.9}}}}})}}},
    }});
}

} // namespace

TEST_CASE("GuideLLM's gauges become the run's server timeline on the run's clock, summed over label sets") {
    auto document = sanity_document();
    const double t0 = first_request_start(document);
    document["benchmarks"][0]["server_metrics"] = server_metrics(t0);
    const run r = read_document(document);
    REQUIRE(r.meta.server_timeline);
    const auto& s = *r.meta.server_timeline;
    REQUIRE(s.t.size() == 3);
    CHECK(s.t[0] == Approx(0.5).margin(1e-6));
    CHECK(s.t[2] == Approx(1.5).margin(1e-6));
    const auto* running = s.find("vllm:num_requests_running");
    REQUIRE(running);
    CHECK((*running)[0] == 5.0);  // 1 + 4
    CHECK((*running)[1] == 7.0);  // 2 + 5
    CHECK((*running)[2] == 8.0);  // 3 + engine 1's last sample, 5, held
    CHECK(s.label_sets.at("vllm:num_requests_running")[2] == 2.0);
    const auto* kv = s.find("vllm:kv_cache_usage_perc");
    REQUIRE(kv);
    CHECK(std::isnan((*kv)[0])); // not yet sampled
    CHECK((*kv)[1] == 0.25);
    CHECK((*kv)[2] == 0.25);
    CHECK(s.types.at("vllm:kv_cache_usage_perc") == "gauge");
    CHECK(has_note(r, "http://localhost:8000/metrics scraped 3 times (1 failed); 2 gauges as the server timeline"));
}

TEST_CASE("GuideLLM's counters and histograms are reported values, summed over their label sets") {
    auto document = sanity_document();
    document["benchmarks"][0]["server_metrics"] = server_metrics(first_request_start(document));
    const run r = read_document(document);
    CHECK(reported(r, "server.vllm:prompt_tokens_total.increase") == 150.0);
    CHECK(reported(r, "server.vllm:prompt_tokens_total.rate") == 7.5);
    CHECK(reported(r, "server.vllm:time_to_first_token_seconds.count") == 4.0);
    CHECK(reported(r, "server.vllm:time_to_first_token_seconds.mean") == 0.5);
    CHECK(reported(r, "server.vllm:time_to_first_token_seconds.q0.99") == 0.9);
    for (const auto& v : r.meta.reported) {
        INFO(v.name);
        CHECK(!v.unit.empty());
    }
}

TEST_CASE("quantiles of several label sets cannot be combined and are not reported") {
    auto document = sanity_document();
    auto metrics = server_metrics(first_request_start(document));
    auto& sets = metrics[0]["histograms"]["vllm:time_to_first_token_seconds"];
    sets.push_back({{"labels", {{"engine", "1"}}}, {"count", 6}, {"sum", 6.0}, {"quantiles", {{"0.5", 1.0}}}});
    document["benchmarks"][0]["server_metrics"] = metrics;
    const run r = read_document(document);
    CHECK(reported(r, "server.vllm:time_to_first_token_seconds.count") == 10.0);
    CHECK(reported(r, "server.vllm:time_to_first_token_seconds.mean") == 0.8); // (2 + 6) / 10
    CHECK_FALSE(reported(r, "server.vllm:time_to_first_token_seconds.q0.5"));
}

TEST_CASE("sample times below 1e9 count from the benchmark's start, and the note says so") {
    auto document = sanity_document();
    auto& benchmark = document["benchmarks"][0];
    const double start = benchmark["scheduler_metrics"]["start_time"].get<double>();
    const double origin = first_request_start(document);
    json metrics = json::array({{{"source", "decode"},
                                 {"gauges", {{"vllm:num_requests_waiting",
                                              json::array({{{"samples", json::array({{2.0, 1}})}}})}}}}});
    benchmark["server_metrics"] = metrics;
    const run r = read_document(document);
    REQUIRE(r.meta.server_timeline);
    CHECK(r.meta.server_timeline->t[0] == Approx(start + 2.0 - origin).margin(1e-6));
    CHECK(has_note(r, "read as seconds since the benchmark's start"));
}

TEST_CASE("a GuideLLM file without server_metrics has no server timeline and no note of one") {
    const run r = read_document(sanity_document());
    CHECK_FALSE(r.meta.server_timeline);
    CHECK_FALSE(has_note(r, "server_metrics"));
    CHECK_FALSE(has_note(r, "confidence intervals"));
}

TEST_CASE("a malformed server_metrics sample is an input error naming its JSON path") {
    auto document = sanity_document();
    document["benchmarks"][0]["server_metrics"] =
        json::array({{{"gauges", {{"g", json::array({{{"samples", json::array({json::array({1.0})})}}})}}}}});
    const servestat::test::temp_file file(document.dump(), "benchmarks.json");
    try {
        guidellm_format.read(file.path(), {});
        FAIL("a sample without its value was read");
    } catch (const input_error& e) {
        CHECK(e.field() == "benchmarks[0].server_metrics[0].gauges.g[0].samples[0]");
    }
}

TEST_CASE("GuideLLM's own confidence intervals are reported beside their estimates, in the estimate's unit") {
    auto document = sanity_document();
    auto& ttft = document["benchmarks"][0]["metrics"]["time_to_first_token_ms"]["successful"];
    ttft["mean_ci"] = {{"lower", 50.0}, {"upper", 70.0}, {"confidence", 0.95}};
    ttft["percentile_cis"] = {{"p50", {{"lower", 40.0}, {"upper", 60.0}}}, {"p999", json::array({80.0, 400.0})}};
    auto& latency = document["benchmarks"][0]["metrics"]["request_latency"]["successful"];
    latency["percentile_cis"] = json::array({{{"percentile", 0.99}, {"low", 20.0}, {"high", 30.0}}});
    const run r = read_document(document);
    CHECK(reported(r, "ttft.mean.ci_low") == Approx(0.050).epsilon(1e-15)); // ms → s
    CHECK(reported(r, "ttft.mean.ci_high") == Approx(0.070).epsilon(1e-15));
    CHECK(reported(r, "ttft.p50.ci_low") == Approx(0.040).epsilon(1e-15));
    CHECK(reported(r, "ttft.p99.9.ci_high") == Approx(0.400).epsilon(1e-15));
    CHECK(reported(r, "guidellm.request_latency.p99.ci_low") == 20.0);
    CHECK(reported(r, "guidellm.request_latency.p99.ci_high") == 30.0);
    CHECK(has_note(r, "GuideLLM's own 95% confidence intervals (4 of them)"));
}

TEST_CASE("an interval in a shape servestat does not know is named in a note, not dropped silently") {
    auto document = sanity_document();
    auto& ttft = document["benchmarks"][0]["metrics"]["time_to_first_token_ms"]["successful"];
    ttft["percentile_cis"] = {{"p90", "wide"}};
    const run r = read_document(document);
    CHECK(has_note(r, "1 interval(s) in a shape servestat does not know were not read "
                      "(first: benchmarks[0].metrics.time_to_first_token_ms.successful.percentile_cis.p90)"));
}

} // namespace test_ingest_guidellm_server_metrics
