// Tests for servestat/ingest/vllm_bench_csv.hpp against hand-written files in tests/data/vllm_bench/.
#include "servestat/ingest/vllm_bench_csv.hpp"

#include <cstddef>     // std::size_t
#include <string>      // std::string
#include <string_view> // std::string_view

#include "format_fixtures.hpp"

#include <catch2/catch.hpp>  // TEST_CASE, REQUIRE, CHECK, Approx
#include <nlohmann/json.hpp> // nlohmann::json

namespace test_vllm_bench_csv { // the unity build compiles several test files as one: each keeps its names

namespace {

using servestat::input_error;
using servestat::read_options;
using servestat::request_record;
using servestat::request_status;
using servestat::vllm_bench_csv_format;

constexpr std::string_view smoke = "smoke_test-cc8-pref256-max128-20260111-220100.csv";
constexpr std::string_view short_chat = "short-chat-cc16-pref512-max64-1768163326.csv";

const servestat::test::format_fixtures fixtures{vllm_bench_csv_format, "vllm_bench"};

} // namespace

TEST_CASE("the vllm-bench format is named vllm-bench-csv") {
    CHECK(vllm_bench_csv_format.name == "vllm-bench-csv");
}

TEST_CASE("every row of a vllm-bench CSV becomes one request") {
    CHECK(fixtures.read(smoke).requests.size() == 5);
}

TEST_CASE("a vllm-bench run is labelled by its file stem") {
    const servestat::run run = fixtures.read(smoke);
    CHECK(run.meta.label == "smoke_test-cc8-pref256-max128-20260111-220100");
    CHECK(run.meta.source.path == fixtures.path(smoke).string());
    CHECK(run.meta.source.format == "vllm-bench-csv");
    CHECK(run.meta.tool == "vllm-bench");
}

TEST_CASE("the file name gives concurrency, prefill and max new tokens") {
    const servestat::run run = fixtures.read(smoke);
    CHECK(run.meta.params == nlohmann::json{{"concurrency", 8}, {"prefill_tokens", 256}, {"max_tokens", 128}});
}

TEST_CASE("the file name's scenario is the workload") {
    CHECK(fixtures.read(smoke).meta.workload == "smoke_test");
}

TEST_CASE("a scenario name may contain dashes") {
    const servestat::run run = fixtures.read(short_chat);
    CHECK(run.meta.workload == "short-chat");
    CHECK(run.meta.params == nlohmann::json{{"concurrency", 16}, {"prefill_tokens", 512}, {"max_tokens", 64}});
}

TEST_CASE("a file name without the pattern leaves params and workload empty") {
    const servestat::run run = fixtures.read("adhoc_run.csv");
    CHECK(run.meta.label == "adhoc_run");
    CHECK(run.meta.workload.empty());
    CHECK(run.meta.params == nlohmann::json::object());
}

TEST_CASE("without start times requests start at 0 and the run has no shared clock") {
    const servestat::run run = fixtures.read(smoke);
    CHECK_FALSE(run.meta.shared_clock);
    CHECK(run.requests.row(3).t_sent == 0.0);
}

TEST_CASE("ttft_ms and latency_ms become seconds after the start") {
    const request_record r = fixtures.row(smoke, 0);
    CHECK(r.t_sent == 0.0);
    CHECK(r.t_first == 0.1205);
    CHECK(r.t_end == 1.45025);
}

TEST_CASE("a row with an empty error succeeded") {
    const request_record r = fixtures.row(smoke, 1);
    CHECK(r.status == request_status::ok);
    CHECK(r.error.empty());
}

TEST_CASE("a timed-out row is a timeout with its latency and no first token") {
    const request_record r = fixtures.row(smoke, 2);
    CHECK(r.status == request_status::timeout);
    CHECK(r.error == "ReadTimeout: timed out");
    CHECK_FALSE(r.t_first.has_value());
    CHECK(r.t_end == 30.0);
}

TEST_CASE("an HTTP error row keeps its status and text") {
    const request_record r = fixtures.row(smoke, 4);
    CHECK(r.status == request_status::error);
    CHECK(r.http_status == 400);
    CHECK(r.error == R"(HTTP 400: {"error": "prompt is too long"})");
    CHECK(r.t_end == 0.003);
}

TEST_CASE("a file without token columns leaves token counts absent") {
    const request_record r = fixtures.row(smoke, 3);
    CHECK_FALSE(r.prompt_tokens.has_value());
    CHECK_FALSE(r.output_tokens.has_value());
}

TEST_CASE("start_ms places requests on a shared clock from the earliest start") {
    const servestat::run run = fixtures.read(short_chat);
    CHECK(run.meta.shared_clock);
    // Starts ...250.0, ...000.0, ...500.5 ms: the second row is the earliest.
    CHECK(run.requests.row(0).t_sent == 0.25);
    CHECK(run.requests.row(1).t_sent == 0.0);
    CHECK(run.requests.row(2).t_sent == Approx(0.5005).epsilon(1e-12));
}

TEST_CASE("first token and end times move with the start") {
    const request_record r = fixtures.row(short_chat, 2);
    CHECK(r.t_first == Approx(0.5005 + 0.150).epsilon(1e-12));
    CHECK(r.t_end == Approx(0.5005 + 1.200).epsilon(1e-12));
}

TEST_CASE("input_tokens and output_tokens are the token counts") {
    const request_record r = fixtures.row(short_chat, 2);
    CHECK(r.prompt_tokens == 512);
    CHECK(r.output_tokens == 60);
}

TEST_CASE("start_time is in seconds") {
    const servestat::run run = fixtures.read("adhoc_run.csv");
    CHECK(run.meta.shared_clock);
    // Starts 105.5, 104.0, 106.25 s: the second row is the earliest.
    const request_record first = run.requests.row(0);
    CHECK(first.t_sent == 1.5);
    CHECK(first.t_first == Approx(1.58).epsilon(1e-12));
    CHECK(first.t_end == Approx(2.14).epsilon(1e-12));
    CHECK(run.requests.row(1).t_sent == 0.0);
}

TEST_CASE("a status_code column gives the HTTP status") {
    const servestat::run run = fixtures.read("adhoc_run.csv");
    CHECK(run.requests.row(0).http_status == 200);
    const request_record failed = run.requests.row(2);
    CHECK(failed.status == request_status::error);
    CHECK(failed.http_status == 400);
    CHECK(failed.error == "context length exceeded");
    CHECK(failed.t_end == Approx(2.25 + 0.0025).epsilon(1e-12));
}

TEST_CASE("prompt_tokens and completion_tokens are the token counts") {
    const request_record r = fixtures.row("adhoc_run.csv", 2);
    CHECK(r.prompt_tokens == 4100);
    CHECK(r.output_tokens == 0);
}

TEST_CASE("a ttft after the end names ttft_ms") {
    const input_error e = fixtures.error("bad_ttft_after_end.csv");
    CHECK(e.file() == fixtures.path("bad_ttft_after_end.csv").string());
    CHECK(e.line() == 3);
    CHECK(e.field() == "ttft_ms");
    CHECK(e.reason() == "greater than latency_ms (1600.0 > 1502.75)");
}

TEST_CASE("a negative latency_ms is an error") {
    const input_error e = fixtures.error("bad_negative_latency.csv");
    CHECK(e.file() == fixtures.path("bad_negative_latency.csv").string());
    CHECK(e.line() == 2);
    CHECK(e.field() == "latency_ms");
    CHECK(e.reason() == "must be a finite number >= 0, got '-1450.25'");
}

TEST_CASE("a successful row without latency_ms is an error") {
    const input_error e = fixtures.error("bad_missing_latency.csv");
    CHECK(e.file() == fixtures.path("bad_missing_latency.csv").string());
    CHECK(e.line() == 4);
    CHECK(e.field() == "latency_ms");
    CHECK(e.reason() == "missing");
}

TEST_CASE("a file without a latency_ms column is rejected at its header") {
    const input_error e = fixtures.error("bad_no_latency_column.csv");
    CHECK(e.file() == fixtures.path("bad_no_latency_column.csv").string());
    CHECK(e.line() == 1);
    CHECK(e.field() == "latency_ms");
    CHECK(e.reason() == "missing required column");
}

TEST_CASE("a row without a start time in a file that has them is an error") {
    const input_error e = fixtures.error("bad_missing_start.csv");
    CHECK(e.file() == fixtures.path("bad_missing_start.csv").string());
    CHECK(e.line() == 3);
    CHECK(e.field() == "start_ms");
    CHECK(e.reason() == "missing");
}

TEST_CASE("a fractional input_tokens is an error") {
    const input_error e = fixtures.error("bad_fractional_tokens.csv");
    CHECK(e.file() == fixtures.path("bad_fractional_tokens.csv").string());
    CHECK(e.line() == 3);
    CHECK(e.field() == "input_tokens");
    CHECK(e.reason() == "not a whole number: '256.5'");
}

TEST_CASE("an empty vllm-bench file is an error") {
    const input_error e = fixtures.error("empty.csv");
    CHECK(e.file() == fixtures.path("empty.csv").string());
    CHECK(e.line() == 0);
    CHECK(e.field() == "");
    CHECK(e.reason() == "empty file");
}

TEST_CASE("a vllm-bench file with only a header is an error") {
    const input_error e = fixtures.error("header_only.csv");
    CHECK(e.file() == fixtures.path("header_only.csv").string());
    CHECK(e.line() == 1);
    CHECK(e.field() == "");
    CHECK(e.reason() == "no requests after the header");
}

TEST_CASE("with skip_bad a bad vllm-bench row is counted instead of thrown") {
    const servestat::run run = fixtures.read("bad_ttft_after_end.csv", {.skip_bad = true});
    CHECK(run.requests.size() == 1);
    REQUIRE(run.skipped.count == 1);
    CHECK(run.skipped.examples.front() == fixtures.path("bad_ttft_after_end.csv").string() +
                                              ":3: field 'ttft_ms': greater than latency_ms (1600.0 > 1502.75)");
}

TEST_CASE("with skip_bad the shared clock starts at the earliest kept row") {
    const servestat::run run = fixtures.read("bad_missing_start.csv", {.skip_bad = true});
    REQUIRE(run.requests.size() == 1);
    CHECK(run.requests.row(0).t_sent == 0.0);
    CHECK(run.requests.row(0).t_end == 0.91);
}

TEST_CASE("a vllm-bench CSV sniffs as vllm-bench-csv") {
    CHECK(vllm_bench_csv_format.sniff(fixtures.text(smoke)) > 0);
}

TEST_CASE("a notebook table does not sniff as vllm-bench-csv") {
    CHECK(vllm_bench_csv_format.sniff(",latency_s,prompt_tokens,completion_tokens,total_tokens,"
                                      "status_code,ok,error\n0,3.553791,39.0,128.0,167.0,200.0,True,\n") == 0);
}

} // namespace test_vllm_bench_csv
