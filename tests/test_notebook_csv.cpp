// Tests for servestat/ingest/notebook_csv.hpp against hand-written tables in tests/data/notebook/,
// shaped like the notebook's pandas output (mix_90_10.csv reproduces its first experiment).
#include "servestat/ingest/notebook_csv.hpp"

#include <cstddef>     // std::size_t
#include <string>      // std::string
#include <string_view> // std::string_view

#include "format_fixtures.hpp"

#include <catch2/catch.hpp> // TEST_CASE, REQUIRE, CHECK, CHECK_THROWS_AS

namespace test_notebook_csv { // the unity build compiles several test files as one: each keeps its names

namespace {

using servestat::input_error;
using servestat::notebook_csv_format;
using servestat::read_options;
using servestat::request_record;
using servestat::request_status;

// The two context-overflow errors of the notebook's mix_90_10 run, as its "Top error reasons" shows.
const std::string overflow_4030 =
    R"(HTTP 400: {"error": {"message": "max_tokens' or 'max_completion_tokens' is too large: 128. )"
    R"(This model's maximum context length is 4096 tokens and your request has 4030 input tokens )"
    R"((128 > 4096 - 4030). None", "type": "BadRequestError", "param": null, "code": 400}})";
const std::string overflow_4040 =
    R"(HTTP 400: {"error": {"message": "max_tokens' or 'max_completion_tokens' is too large: 128. )"
    R"(This model's maximum context length is 4096 tokens and your request has 4040 input tokens )"
    R"((128 > 4096 - 4040). None", "type": "BadRequestError", "param": null, "code": 400}})";

const servestat::test::format_fixtures fixtures{notebook_csv_format, "notebook"};

} // namespace

TEST_CASE("the notebook format is named notebook-csv") {
    CHECK(notebook_csv_format.name == "notebook-csv");
}

TEST_CASE("every row of a notebook table becomes one request") {
    CHECK(fixtures.read("mix_90_10.csv").requests.size() == 6);
}

TEST_CASE("the mix_90_10 table has four ok requests and two failures") {
    const servestat::run run = fixtures.read("mix_90_10.csv");
    const auto status = run.requests.status();
    REQUIRE(status.size() == 6);
    CHECK(status[0] == request_status::ok);
    CHECK(status[1] == request_status::ok);
    CHECK(status[2] == request_status::ok);
    CHECK(status[3] == request_status::error);
    CHECK(status[4] == request_status::ok);
    CHECK(status[5] == request_status::error);
}

TEST_CASE("a notebook run is labelled by its file stem and has no shared clock") {
    const servestat::run run = fixtures.read("mix_90_10.csv");
    CHECK(run.meta.label == "mix_90_10");
    CHECK(run.meta.source.path == fixtures.path("mix_90_10.csv").string());
    CHECK(run.meta.source.format == "notebook-csv");
    CHECK_FALSE(run.meta.shared_clock);
}

TEST_CASE("a notebook row starts at 0 and ends at its latency_s") {
    const request_record r = fixtures.row("mix_90_10.csv", 0);
    CHECK(r.t_sent == 0.0);
    CHECK(r.t_end == 3.553791);
    CHECK_FALSE(r.t_first.has_value());
}

TEST_CASE("latency_s keeps every digit pandas wrote") {
    CHECK(fixtures.row("mix_90_10.csv", 4).t_end == 0.8831302409998898);
}

TEST_CASE("token columns that pandas wrote as floats read as counts") {
    const request_record r = fixtures.row("mix_90_10.csv", 2);
    CHECK(r.prompt_tokens == 3990);
    CHECK(r.output_tokens == 57);
}

TEST_CASE("an ok notebook row keeps its status_code") {
    CHECK(fixtures.row("mix_90_10.csv", 1).http_status == 200);
}

TEST_CASE("a context-overflow row keeps HTTP 400 and the exact error text") {
    const request_record first = fixtures.row("mix_90_10.csv", 3);
    CHECK(first.http_status == 400);
    CHECK(first.error == overflow_4030);
    const request_record second = fixtures.row("mix_90_10.csv", 5);
    CHECK(second.http_status == 400);
    CHECK(second.error == overflow_4040);
}

TEST_CASE("a failed notebook row without latency has a start but no end") {
    const request_record r = fixtures.row("mix_90_10.csv", 3);
    CHECK(r.t_sent == 0.0);
    CHECK_FALSE(r.t_end.has_value());
    CHECK_FALSE(r.prompt_tokens.has_value());
    CHECK_FALSE(r.output_tokens.has_value());
}

TEST_CASE("an ok notebook row has no error text") {
    CHECK(fixtures.row("mix_90_10.csv", 0).error.empty());
}

TEST_CASE("max_tokens_used becomes the request's max_tokens") {
    CHECK(fixtures.row("budget_mix_70_30.csv", 1).max_tokens == 110);
}

TEST_CASE("a table without max_tokens_used leaves max_tokens absent") {
    CHECK_FALSE(fixtures.row("mix_90_10.csv", 0).max_tokens.has_value());
}

TEST_CASE("trimmed and prompt_tokens_est_original describe a trimmed prompt") {
    const request_record trimmed = fixtures.row("budget_mix_70_30.csv", 1);
    CHECK(trimmed.trimmed == true);
    CHECK(trimmed.prompt_tokens_original == 5210);
    CHECK(trimmed.prompt_tokens == 3968); // the server's count, not prompt_tokens_est
    const request_record untouched = fixtures.row("budget_mix_70_30.csv", 0);
    CHECK(untouched.trimmed == false);
    CHECK(untouched.prompt_tokens_original == 46);
}

TEST_CASE("a notebook table written with CRLF line ends reads the same") {
    const servestat::run run = fixtures.read("windows_line_ends.csv");
    REQUIRE(run.requests.size() == 2);
    CHECK(run.requests.row(1).t_end == 3.615653);
    CHECK(run.requests.row(1).error.empty());
}

TEST_CASE("a read timeout without an HTTP status is a timeout") {
    const request_record r = fixtures.row("errors_by_kind.csv", 1);
    CHECK(r.status == request_status::timeout);
    CHECK_FALSE(r.http_status.has_value());
}

TEST_CASE("a refused connection is a transport failure") {
    CHECK(fixtures.row("errors_by_kind.csv", 2).status == request_status::transport);
}

TEST_CASE("a reset connection is a transport failure") {
    CHECK(fixtures.row("errors_by_kind.csv", 3).status == request_status::transport);
}

TEST_CASE("a client-side failure without an HTTP status is an error") {
    const request_record r = fixtures.row("errors_by_kind.csv", 4);
    CHECK(r.status == request_status::error);
    CHECK_FALSE(r.http_status.has_value());
    CHECK(r.error == "No room for output tokens. prompt_tokens=4090, max_len=4096, safety_margin=16");
}

TEST_CASE("an unquoted HTTP error text gives its status") {
    const request_record r = fixtures.row("errors_by_kind.csv", 5);
    CHECK(r.status == request_status::error);
    CHECK(r.http_status == 429);
}

TEST_CASE("a status_code cell on a failed row is its HTTP status") {
    const request_record r = fixtures.row("errors_by_kind.csv", 6);
    CHECK(r.status == request_status::error);
    CHECK(r.http_status == 500);
    CHECK(r.error == "Internal Server Error");
}

TEST_CASE("a failed row with a latency ends at it") {
    const request_record r = fixtures.row("errors_by_kind.csv", 7);
    CHECK(r.status == request_status::error);
    CHECK(r.http_status == 504);
    CHECK(r.t_end == 12.0);
}

TEST_CASE("a negative latency names file, line and latency_s") {
    const input_error e = fixtures.error("bad_negative_latency.csv");
    CHECK(e.file() == fixtures.path("bad_negative_latency.csv").string());
    CHECK(e.line() == 3);
    CHECK(e.field() == "latency_s");
    CHECK(e.reason() == "must be a finite number >= 0, got '-0.25'");
}

TEST_CASE("an infinite latency is an error") {
    const input_error e = fixtures.error("bad_infinite_latency.csv");
    CHECK(e.file() == fixtures.path("bad_infinite_latency.csv").string());
    CHECK(e.line() == 2);
    CHECK(e.field() == "latency_s");
    CHECK(e.reason() == "must be a finite number >= 0, got 'inf'");
}

TEST_CASE("a NaN latency on an ok row is an error") {
    const input_error e = fixtures.error("bad_nan_latency.csv");
    CHECK(e.file() == fixtures.path("bad_nan_latency.csv").string());
    CHECK(e.line() == 4);
    CHECK(e.field() == "latency_s");
    CHECK(e.reason() == "must be a finite number >= 0, got 'NaN'");
}

TEST_CASE("an ok row without latency is an error") {
    const input_error e = fixtures.error("bad_missing_latency.csv");
    CHECK(e.file() == fixtures.path("bad_missing_latency.csv").string());
    CHECK(e.line() == 3);
    CHECK(e.field() == "latency_s");
    CHECK(e.reason() == "missing");
}

TEST_CASE("a fractional token count is an error") {
    const input_error e = fixtures.error("bad_fractional_count.csv");
    CHECK(e.file() == fixtures.path("bad_fractional_count.csv").string());
    CHECK(e.line() == 2);
    CHECK(e.field() == "completion_tokens");
    CHECK(e.reason() == "not a whole number: '39.5'");
}

TEST_CASE("a negative token count is an error") {
    const input_error e = fixtures.error("bad_negative_count.csv");
    CHECK(e.file() == fixtures.path("bad_negative_count.csv").string());
    CHECK(e.line() == 4);
    CHECK(e.field() == "prompt_tokens");
    CHECK(e.reason() == "must not be negative, got '-1'");
}

TEST_CASE("an ok flag other than True or False is an error") {
    const input_error e = fixtures.error("bad_ok_flag.csv");
    CHECK(e.file() == fixtures.path("bad_ok_flag.csv").string());
    CHECK(e.line() == 3);
    CHECK(e.field() == "ok");
    CHECK(e.reason() == "expected True or False, got 'yes'");
}

TEST_CASE("a notebook row with a missing cell names file, line and the missing column") {
    const input_error e = fixtures.error("bad_missing_cell.csv");
    CHECK(e.file() == fixtures.path("bad_missing_cell.csv").string());
    CHECK(e.line() == 3);
    CHECK(e.field() == "error");
    CHECK(e.reason() == "expected 8 columns, found 7");
}

TEST_CASE("a table without an ok column is rejected at its header") {
    const input_error e = fixtures.error("bad_no_ok_column.csv");
    CHECK(e.file() == fixtures.path("bad_no_ok_column.csv").string());
    CHECK(e.line() == 1);
    CHECK(e.field() == "ok");
    CHECK(e.reason() == "missing required column");
}

TEST_CASE("an empty notebook file is an error") {
    const input_error e = fixtures.error("empty.csv");
    CHECK(e.file() == fixtures.path("empty.csv").string());
    CHECK(e.line() == 0);
    CHECK(e.field() == "");
    CHECK(e.reason() == "empty file");
}

TEST_CASE("a notebook file with only a header is an error") {
    const input_error e = fixtures.error("header_only.csv");
    CHECK(e.file() == fixtures.path("header_only.csv").string());
    CHECK(e.line() == 1);
    CHECK(e.field() == "");
    CHECK(e.reason() == "no requests after the header");
}

TEST_CASE("with skip_bad a bad notebook row is counted instead of thrown") {
    const servestat::run run = fixtures.read("bad_negative_latency.csv", {.skip_bad = true});
    CHECK(run.requests.size() == 2);
    REQUIRE(run.skipped.count == 1);
    CHECK(run.skipped.examples.front() == fixtures.path("bad_negative_latency.csv").string() +
                                              ":3: field 'latency_s': must be a finite number >= 0, got '-0.25'");
}

TEST_CASE("with skip_bad a row with the wrong column count is skipped") {
    const servestat::run run = fixtures.read("bad_missing_cell.csv", {.skip_bad = true});
    CHECK(run.requests.size() == 2);
    CHECK(run.requests.row(1).t_end == 4.137271);
    CHECK(run.skipped.count == 1);
}

TEST_CASE("an unterminated quote is fatal even with skip_bad") {
    const input_error e = fixtures.error("bad_unterminated_quote.csv", {.skip_bad = true});
    CHECK(e.file() == fixtures.path("bad_unterminated_quote.csv").string());
    CHECK(e.line() == 3);
    CHECK(e.field() == "error");
    CHECK_THAT(e.reason(), Catch::Contains("unterminated quoted field"));
}

TEST_CASE("a notebook table sniffs as notebook-csv") {
    CHECK(notebook_csv_format.sniff(fixtures.text("mix_90_10.csv")) > 0);
    CHECK(notebook_csv_format.sniff(fixtures.text("budget_mix_70_30.csv")) > 0);
}

TEST_CASE("a CSV without latency_s and ok does not sniff as notebook-csv") {
    CHECK(notebook_csv_format.sniff("id,ttft_ms,latency_ms,error\n0,120.5,1450.25,\n") == 0);
    CHECK(notebook_csv_format.sniff(",latency_s,prompt_tokens,status_code\n0,1.5,39,200\n") == 0);
}

TEST_CASE("a JSON Lines log does not sniff as notebook-csv") {
    CHECK(notebook_csv_format.sniff(R"({"servestat":"log","version":1})"
                                    "\n") == 0);
}

} // namespace test_notebook_csv
