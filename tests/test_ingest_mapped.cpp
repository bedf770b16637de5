// Tests for servestat/ingest/mapping_spec.hpp and mapped.hpp: the --map / --ok-if grammar, every unit and clock
// conversion against hand-computed values, the three input kinds, and bad input. Fixtures in
// tests/data/mapped/: output-004.json is shaped exactly as llm-load-test's utils.write_output
// writes it (results/config/summary; the summary computed from the results as the tool does),
// results.csv is the example of the --map documentation, the others are small hand-made logs.
#include "servestat/ingest/mapped.hpp"
#include "servestat/ingest/mapping_spec.hpp"

#include <cstddef>     // std::size_t
#include <filesystem>  // std::filesystem::path
#include <string>      // std::string
#include <string_view> // std::string_view
#include <vector>      // std::vector

#include "servestat/stats/run_stats.hpp" // analyze, find_percentile
#include "temp_file.hpp"

#include <catch2/catch.hpp> // TEST_CASE, REQUIRE, CHECK, CHECK_THROWS_WITH

namespace test_ingest_mapped { // the unity build compiles several test files as one: each keeps its names

namespace {

using servestat::input_error;
using servestat::mapped_target;
using servestat::parse_mapping;
using servestat::read_options;
using servestat::request_record;
using servestat::request_status;
using servestat::time_unit;
using servestat::usage_error;
using servestat::test::temp_file;

std::filesystem::path fixture(std::string_view name) {
    return std::filesystem::path(SERVESTAT_TEST_DATA_DIR) / "mapped" / name;
}

servestat::run read(const std::filesystem::path& file, std::string_view map, std::string_view ok_if = {},
                    read_options options = {}) {
    auto runs = servestat::read_mapped(file, parse_mapping(map, ok_if), options);
    REQUIRE(runs.size() == 1);
    return std::move(runs.front());
}

request_record row(const std::filesystem::path& file, std::string_view map, std::size_t i,
                   std::string_view ok_if = {}) {
    const servestat::run r = read(file, map, ok_if);
    REQUIRE(i < r.requests.size());
    return r.requests.row(i);
}

input_error read_error(const std::filesystem::path& file, std::string_view map, std::string_view ok_if = {},
                       read_options options = {}) {
    const auto spec = parse_mapping(map, ok_if);
    try {
        servestat::read_mapped(file, spec, options);
    } catch (const input_error& e) {
        return e;
    }
    FAIL("no input_error was thrown");
    throw; // unreachable: FAIL throws
}

std::string usage_message(std::string_view map, std::string_view ok_if = {}) {
    try {
        parse_mapping(map, ok_if);
    } catch (const usage_error& e) {
        return e.what();
    }
    FAIL("no usage_error was thrown");
    throw; // unreachable
}

Approx near(double x) { return Approx(x).margin(1e-12); }

// The documented example: llm-load-test's output file.
constexpr std::string_view llm_load_test_map =
    "records=results,t_sent=start_time:epoch_s,t_first=first_token_time:epoch_s,t_end=end_time:epoch_s,"
    "prompt_tokens=input_tokens,output_tokens=output_tokens,http_status=error_code,error=error_text";
constexpr std::string_view results_csv_map =
    "ttft=TTFT:ms,e2e=response_time:s,t_sent=start:epoch_s,prompt_tokens=input_tokens,"
    "output_tokens=usage.completion_tokens";
constexpr std::string_view requests_jsonl_map =
    "t_sent=timing.sent_ns:epoch_ns,t_first=timing.first_ns:epoch_ns,t_end=timing.end_ns:epoch_ns,"
    "prompt_tokens=usage.prompt_tokens,output_tokens=usage.completion_tokens,status=outcome.status,"
    "http_status=outcome.http,error=outcome.message";
constexpr std::string_view durations_map =
    "e2e=latency_ms:ms,ttft=ttft_us:us,itl=gaps_ms:ms,prompt_tokens=tokens.in,output_tokens=tokens.out,error=error";

} // namespace

// ---- the --map grammar ------------------------------------------------------------------------

TEST_CASE("a --map entry gives target, source path and unit") {
    const auto spec = parse_mapping("ttft=TTFT:ms,output_tokens=usage.completion_tokens,e2e=latency");
    REQUIRE(spec.fields.size() == 3);
    CHECK(spec.fields[0].target == mapped_target::ttft);
    CHECK(spec.fields[0].source == "TTFT");
    CHECK(spec.fields[0].unit == time_unit::ms);
    CHECK(spec.fields[1].path == std::vector<std::string>{"usage", "completion_tokens"});
    CHECK(spec.fields[1].column == "usage.completion_tokens");
    CHECK(spec.fields[2].unit == time_unit::s); // the default
    CHECK_FALSE(spec.fields[2].epoch);
}

TEST_CASE("epoch units mark a wall clock") {
    const auto spec = parse_mapping("t_sent=start:epoch_us,e2e=x");
    CHECK(spec.fields[0].unit == time_unit::us);
    CHECK(spec.fields[0].epoch);
}

TEST_CASE("a quoted key keeps its dots, commas and colons") {
    const auto spec = parse_mapping(R"(e2e="time.e2e,ms:x":ms,ttft=a."b.c":us)");
    REQUIRE(spec.fields.size() == 2);
    CHECK(spec.fields[0].path == std::vector<std::string>{"time.e2e,ms:x"});
    CHECK(spec.fields[0].column == "time.e2e,ms:x");
    CHECK(spec.fields[0].unit == time_unit::ms);
    CHECK(spec.fields[1].path == std::vector<std::string>{"a", "b.c"});
    CHECK(spec.fields[1].unit == time_unit::us);
}

TEST_CASE("backslash escapes a dot, comma or colon in a key") {
    const auto spec = parse_mapping(R"(e2e=a\.b.c\,d\:e:ns)");
    REQUIRE(spec.fields.size() == 1);
    CHECK(spec.fields[0].path == std::vector<std::string>{"a.b", "c,d:e"});
    CHECK(spec.fields[0].unit == time_unit::ns);
}

TEST_CASE("records= names the array of requests and is not a field") {
    const auto spec = parse_mapping("records=data.items,e2e=x");
    CHECK(spec.records == std::vector<std::string>{"data", "items"});
    CHECK(spec.records_source == "data.items");
    CHECK(spec.fields.size() == 1);
}

TEST_CASE("spaces around entries, names and units are ignored") {
    const auto spec = parse_mapping(" e2e = lat : ms , ttft=t ");
    CHECK(spec.fields[0].source == "lat");
    CHECK(spec.fields[0].unit == time_unit::ms);
    CHECK(spec.fields[1].source == "t");
}

TEST_CASE("an unknown target is a usage error that lists the targets") {
    const std::string m = usage_message("ttfb=x,e2e=y");
    CHECK_THAT(m, Catch::StartsWith("--map: unknown target 'ttfb' in 'ttfb=x'"));
    CHECK_THAT(m, Catch::Contains("t_sched, t_sent, t_first, t_end, ttft, e2e"));
    CHECK_THAT(m, Catch::Contains("records=<path>"));
}

TEST_CASE("an unknown unit is a usage error") {
    CHECK(usage_message("e2e=x:sec") == "--map: unknown unit 'sec' for e2e (durations: s, ms, us, ns)");
    CHECK_THAT(usage_message("t_sent=x:epoch_min,e2e=y"), Catch::StartsWith("--map: unknown unit 'epoch_min' for t_sent"));
}

TEST_CASE("an epoch unit on a duration is a usage error") {
    CHECK_THAT(usage_message("e2e=x:epoch_ms"),
               Catch::StartsWith("--map: e2e is a duration, so epoch_ms") && Catch::EndsWith("use ms"));
    CHECK_THROWS_AS(parse_mapping("e2e=x,itl=g:epoch_s"), usage_error);
}

TEST_CASE("a unit on a count, status or text target is a usage error") {
    CHECK(usage_message("e2e=x,prompt_tokens=n:ms") ==
          "--map: prompt_tokens takes no unit, got ':ms' in 'prompt_tokens=n:ms'");
    CHECK_THROWS_AS(parse_mapping("e2e=x,status=s:s"), usage_error);
    CHECK_THROWS_AS(parse_mapping("e2e=x,error=s:ms"), usage_error);
}

TEST_CASE("a missing unit after ':' is a usage error") {
    CHECK(usage_message("e2e=x:") == "--map: missing unit after ':' in 'e2e=x:'");
}

TEST_CASE("the same target twice is a usage error") {
    CHECK(usage_message("e2e=a:ms,e2e=b") == "--map: e2e is mapped twice: e2e=a:ms and e2e=b");
}

TEST_CASE("both t_end and e2e is a usage error") {
    CHECK(usage_message("t_sent=s,t_end=a,e2e=b") ==
          "--map: mixed: t_end=a and e2e=b both give the end of a request; map one of them");
}

TEST_CASE("both t_first and ttft is a usage error") {
    CHECK_THAT(usage_message("t_sent=s,t_first=a,ttft=b,e2e=c"),
               Catch::Contains("mixed: t_first=a and ttft=b") && Catch::Contains("map one of them"));
}

TEST_CASE("decode beside e2e is a usage error") {
    CHECK(usage_message("ttft=a,e2e=b,decode=c") ==
          "--map: mixed: e2e=b and decode=c both give the end of a request; map one of them");
    CHECK_THAT(usage_message("t_sent=s,ttft=a,t_end=x,e2e=b,decode=c"),
               Catch::Contains("t_end=x, e2e=b and decode=c all give"));
}

TEST_CASE("t_sched, t_sent and client_queue together over-determine the start") {
    CHECK_THAT(usage_message("t_sched=a,t_sent=b,client_queue=c,e2e=d"), Catch::Contains("map two of them"));
}

TEST_CASE("a wall clock beside a relative clock is a mixed-units usage error") {
    CHECK(usage_message("t_sent=a:epoch_s,t_end=b:s") ==
          "--map: mixed units: t_sent=a:epoch_s is a wall clock (epoch_*) but t_end=b:s is a relative clock; "
          "all timestamps must be on one clock");
}

TEST_CASE("nothing to compute e2e from is a usage error") {
    CHECK(usage_message("ttft=a:ms,t_sent=b") ==
          "--map: nothing to compute e2e from: map t_end, e2e, or decode (with ttft or t_first)");
}

TEST_CASE("decode without a first-token time is a usage error") {
    CHECK(usage_message("decode=d") == "--map: decode=d needs the first-token time: map ttft or t_first too");
}

TEST_CASE("timestamps without a send time are a usage error") {
    CHECK_THAT(usage_message("t_end=b:epoch_s,ttft=a"),
               Catch::StartsWith("--map: t_end=b:epoch_s is a timestamp, but nothing gives the send time"));
}

TEST_CASE("malformed --map text is a usage error") {
    CHECK_THAT(usage_message(""), Catch::StartsWith("--map: empty"));
    CHECK_THAT(usage_message("e2e=x,,ttft=y"), Catch::StartsWith("--map: an empty entry"));
    CHECK_THAT(usage_message("e2e=x,"), Catch::StartsWith("--map: an empty entry"));
    CHECK(usage_message("e2e") == "--map: expected target=source[:unit], got 'e2e'");
    CHECK(usage_message("e2e=") == "--map: empty source in 'e2e='");
    CHECK_THAT(usage_message("e2e=a..b"), Catch::StartsWith("--map: empty key in source 'a..b'"));
    CHECK_THAT(usage_message("e2e=a."), Catch::StartsWith("--map: empty key"));
    CHECK(usage_message(R"(e2e="a.b)") == R"(--map: unterminated quote in 'e2e="a.b')");
    CHECK_THAT(usage_message(R"(e2e=a\)"), Catch::StartsWith("--map: a backslash ends the source"));
}

TEST_CASE("a bad records= entry is a usage error") {
    CHECK(usage_message("records=a,records=b,e2e=x") == "--map: records= is given twice");
    CHECK_THAT(usage_message("records=,e2e=x"), Catch::StartsWith("--map: records= needs the path"));
    CHECK(usage_message("records=a:ms,e2e=x") == "--map: records takes no unit, got 'records=a:ms'");
}

// ---- the --ok-if grammar ----------------------------------------------------------------------

TEST_CASE("under --ok-if, rules are joined by &&") {
    const auto spec = parse_mapping("e2e=x", R"(error_code== && status!=failed && msg=="a && b")");
    REQUIRE(spec.ok_if.size() == 3);
    CHECK(spec.ok_if[0].source == "error_code");
    CHECK(spec.ok_if[0].op == servestat::ok_operator::equal);
    CHECK(spec.ok_if[0].value.empty());
    CHECK(spec.ok_if[1].op == servestat::ok_operator::not_equal);
    CHECK(spec.ok_if[1].value == "failed");
    CHECK(spec.ok_if[2].value == "a && b");
}

TEST_CASE("an --ok-if field is a key path like a --map source") {
    const auto spec = parse_mapping("e2e=x", "response.error.code==0");
    CHECK(spec.ok_if[0].path == std::vector<std::string>{"response", "error", "code"});
}

TEST_CASE("malformed --ok-if rules are usage errors") {
    CHECK(usage_message("e2e=x", "error_code=0") ==
          "--ok-if: expected field==value or field!=value, got 'error_code=0'");
    CHECK(usage_message("e2e=x", "==0") == "--ok-if: no field before the operator in '==0'");
    CHECK_THAT(usage_message("e2e=x", "a==1 &&"), Catch::StartsWith("--ok-if: empty rule"));
}

// ---- CSV ----------------------------------------------------------------------------------------

TEST_CASE("the documented CSV example reads with its epoch start column as the run clock") {
    const servestat::run run = read(fixture("results.csv"), results_csv_map, "error_code==");
    REQUIRE(run.requests.size() == 5);
    CHECK(run.meta.label == "results");
    CHECK(run.meta.source.path == fixture("results.csv").string());
    CHECK(run.meta.source.format == "mapped");
    CHECK(run.meta.shared_clock);
    CHECK(run.meta.started_at == "2024-06-10T15:00:00.25Z"); // python: datetime.fromtimestamp(1718031600.25, utc)
}

TEST_CASE("a CSV row's times are start minus the earliest start, plus ttft and e2e") {
    // start 1718031600.5 - earliest 1718031600.25 = 0.25; TTFT 120.5 ms; response_time 1.25 s
    const request_record r = row(fixture("results.csv"), results_csv_map, 0, "error_code==");
    CHECK(r.t_sent == 0.25);
    CHECK(*r.t_first == near(0.3705));
    CHECK(r.t_end == 1.5);
    CHECK(r.prompt_tokens == 37);
    CHECK(r.output_tokens == 16);
    CHECK(r.status == request_status::ok);
}

TEST_CASE("the row with the earliest start is at 0 wherever it sits in the file") {
    const request_record r = row(fixture("results.csv"), results_csv_map, 3, "error_code==");
    CHECK(r.t_sent == 0.0);
    CHECK(*r.t_first == near(0.21025));
    CHECK(r.t_end == 2.5);
}

TEST_CASE("a CSV column whose name holds a dot is matched whole") {
    CHECK(row(fixture("results.csv"), results_csv_map, 1, "error_code==").output_tokens == 64);
}

TEST_CASE("the notes say how success was decided") {
    const servestat::run run = read(fixture("results.csv"), results_csv_map, "error_code==");
    CHECK(run.meta.notes[1] == "a request succeeded when --ok-if error_code== holds; a failure counts as an error "
                               "(map error= to tell timeouts and transport failures apart)");
    CHECK(read(fixture("results.csv"), results_csv_map).meta.notes[1] ==
          "no status, error, http_status or --ok-if given: every request counts as successful");
}

TEST_CASE("a row failing --ok-if is an error and keeps what it has") {
    const request_record r = row(fixture("results.csv"), results_csv_map, 2, "error_code==");
    CHECK(r.status == request_status::error);
    CHECK_FALSE(r.http_status.has_value());
    CHECK(r.t_sent == 0.75);
    CHECK(*r.t_end == near(0.7623));
    CHECK_FALSE(r.t_first.has_value());
    CHECK_FALSE(r.output_tokens.has_value());
}

TEST_CASE("a mapped error text classifies a failure: HTTP status from the text, timeouts") {
    const std::string map = std::string(results_csv_map) + ",error=error_message";
    const servestat::run run = read(fixture("results.csv"), map, "error_code==");
    const request_record http = run.requests.row(2);
    CHECK(http.status == request_status::error);
    CHECK(http.http_status == 400);
    CHECK(http.error == "HTTP 400: max_tokens is too large: 128, context is 4096");
    CHECK(run.requests.row(4).status == request_status::timeout);
}

TEST_CASE("without --ok-if a non-empty mapped error marks a failure") {
    const std::string map = std::string(results_csv_map) + ",error=error_message";
    const servestat::run run = read(fixture("results.csv"), map);
    CHECK(run.requests.status()[0] == request_status::ok);
    CHECK(run.requests.status()[2] == request_status::error);
    CHECK(run.requests.status()[4] == request_status::timeout);
}

TEST_CASE("without status, error or --ok-if every request is ok") {
    const servestat::run run = read(fixture("results.csv"), results_csv_map);
    for (const auto s : run.requests.status()) CHECK(s == request_status::ok);
}

TEST_CASE("an http_status outside 100..599 names file, line and field") {
    const std::string map = std::string(results_csv_map) + ",http_status=error_code";
    const input_error e = read_error(fixture("results.csv"), map, "error_code==");
    CHECK(e.file() == fixture("results.csv").string());
    CHECK(e.line() == 6);
    CHECK(e.field() == "error_code (http_status)");
    CHECK(e.reason() == "not an HTTP status code: '-1'");
}

TEST_CASE("a mapped column the CSV lacks is an error at the header") {
    const input_error e = read_error(fixture("results.csv"), "e2e=response_time,ttft=TTFB:ms");
    CHECK(e.line() == 1);
    CHECK(e.field() == "TTFB (ttft)");
    CHECK(e.reason() == "no such column (the header has: request_id, start, TTFT, response_time, input_tokens, "
                        "usage.completion_tokens, error_code, error_message)");
}

TEST_CASE("an --ok-if column the CSV lacks is an error at the header") {
    const input_error e = read_error(fixture("results.csv"), "e2e=response_time", "eror_code==");
    CHECK(e.line() == 1);
    CHECK(e.field() == "eror_code (--ok-if)");
}

TEST_CASE("a non-numeric CSV cell names the CSV line and the source with its target") {
    const temp_file f("start,lat\n0,1.5\n\n1,abc\n", "bad.csv");
    const input_error e = read_error(f.path(), "t_sent=start,e2e=lat:ms");
    CHECK(e.file() == f.str());
    CHECK(e.line() == 4);
    CHECK(e.field() == "lat (e2e)");
    CHECK(e.reason() == "not a number: 'abc'");
}

TEST_CASE("a CSV cell may hold the itl gaps as a JSON array") {
    const temp_file f("lat,gaps\n0.5,\"[10, 20.5]\"\n0.25,\n", "gaps.csv");
    const servestat::run run = read(f.path(), "e2e=lat,itl=gaps:ms");
    const auto gaps = run.requests.itl(0);
    REQUIRE(gaps.size() == 2);
    CHECK(gaps[0] == 0.01);
    CHECK(gaps[1] == 0.0205);
    CHECK(run.requests.itl(1).empty());
}

TEST_CASE("an itl that is a single number is an error") {
    const temp_file f("lat,gaps\n0.5,0.01\n", "gaps.csv");
    const input_error e = read_error(f.path(), "e2e=lat,itl=gaps");
    CHECK(e.field() == "gaps (itl)");
    CHECK(e.reason() == "expected an array of gaps, got number '0.01'");
}

TEST_CASE("a CSV with only a header is an error; with skip_bad a bad row is counted") {
    const temp_file header_only("lat\n", "h.csv");
    CHECK(read_error(header_only.path(), "e2e=lat").reason() == "no requests after the header");
    const temp_file f("lat\n1\n-2\n3\n", "s.csv");
    const servestat::run run = read(f.path(), "e2e=lat", {}, {.skip_bad = true});
    CHECK(run.requests.size() == 2);
    REQUIRE(run.skipped.count == 1);
    CHECK(run.skipped.examples.front() == f.str() + ":3: field 'lat (e2e)': must be a finite number >= 0, got '-2'");
}

TEST_CASE("records= on a CSV file is an error") {
    const input_error e = read_error(fixture("results.csv"), "records=results,e2e=response_time");
    CHECK(e.reason() == "records=results is for JSON documents, but this file is CSV");
}

// ---- units and clocks -----------------------------------------------------------------------------

TEST_CASE("duration units s, ms, us and ns convert to seconds") {
    const temp_file f("v\n1500\n", "u.csv");
    CHECK(row(f.path(), "e2e=v:s", 0).t_end == 1500.0);
    CHECK(row(f.path(), "e2e=v:ms", 0).t_end == 1.5);
    CHECK(row(f.path(), "e2e=v:us", 0).t_end == 0.0015);
    CHECK(row(f.path(), "e2e=v:ns", 0).t_end == 1.5e-6);
}

TEST_CASE("epoch timestamp units s, ms, us and ns give the same run clock") {
    // Two requests 0.25 s apart, each lasting 1.5 s, written in each unit.
    struct written { std::string_view unit, text; };
    for (const written w : {written{"epoch_s", "s,e\n1718031600.5,1718031602\n1718031600.75,1718031602.25\n"},
                            written{"epoch_ms", "s,e\n1718031600500,1718031602000\n1718031600750,1718031602250\n"},
                            written{"epoch_us", "s,e\n1718031600500000,1718031602000000\n1718031600750000,1718031602250000\n"},
                            written{"epoch_ns", "s,e\n1718031600500000000,1718031602000000000\n"
                                                "1718031600750000000,1718031602250000000\n"}}) {
        INFO(w.unit);
        const temp_file f(w.text, "e.csv");
        const std::string unit(w.unit);
        const servestat::run run = read(f.path(), "t_sent=s:" + unit + ",t_end=e:" + unit);
        CHECK(run.requests.row(0).t_sent == 0.0);
        CHECK(run.requests.row(0).t_end == 1.5);
        CHECK(run.requests.row(1).t_sent == 0.25);
        CHECK(run.requests.row(1).t_end == 1.75);
        CHECK(run.meta.started_at == "2024-06-10T15:00:00.5Z");
    }
}

TEST_CASE("relative timestamp units are shifted to start at 0 and give no start date") {
    const temp_file f("s,e\n100250,101000\n100000,100500\n", "r.csv");
    const servestat::run run = read(f.path(), "t_sent=s:ms,t_end=e:ms");
    CHECK(run.requests.row(0).t_sent == 0.25);
    CHECK(run.requests.row(0).t_end == 1.0);
    CHECK(run.requests.row(1).t_sent == 0.0);
    CHECK(run.requests.row(1).t_end == 0.5);
    CHECK(run.meta.shared_clock);
    CHECK(run.meta.started_at.empty());
    CHECK(run.meta.notes[2] == "timestamps are on the file's own clock; 0 is the earliest t_sent");
}

TEST_CASE("relative us and ns timestamps convert too") {
    const temp_file f("s,e\n5000000,6500000\n", "r.csv");
    CHECK(row(f.path(), "t_sent=s:us,t_end=e:us", 0).t_end == 1.5);
    CHECK(row(f.path(), "t_sent=s:ns,t_end=e:ns", 0).t_end == 0.0015);
    CHECK(row(f.path(), "t_sent=s,t_end=e", 0).t_end == 1500000.0);
}

TEST_CASE("epoch timestamps in different units share one clock") {
    const temp_file f("s,f,e\n1718031600.5,1718031600620,1718031601000000\n", "m.csv");
    const request_record r = row(f.path(), "t_sent=s:epoch_s,t_first=f:epoch_ms,t_end=e:epoch_us", 0);
    CHECK(r.t_sent == 0.0);
    CHECK(*r.t_first == near(0.12));
    CHECK(*r.t_end == near(0.5));
}

TEST_CASE("19-digit epoch nanoseconds keep a 1 ns difference") {
    // first_ns - sent_ns = 1 in row a; a double holds only ~16 digits (1718031600000000000 and
    // ...001 are the same double), so the reader must subtract the integers as written.
    const request_record r = row(fixture("requests.jsonl"), requests_jsonl_map, 0);
    CHECK(r.t_sent == 0.0);
    CHECK(*r.t_first - *r.t_sent == 1e-9);
}

TEST_CASE("epoch nanoseconds as CSV text keep their digits too") {
    const temp_file f("s,f,e\n1718031600000000007,1718031600000000009,1718031600000000012\n", "ns.csv");
    const request_record r = row(f.path(), "t_sent=s:epoch_ns,t_first=f:epoch_ns,t_end=e:epoch_ns", 0);
    CHECK(*r.t_first == 2e-9);
    CHECK(*r.t_end == 5e-9);
}

TEST_CASE("an epoch value in the wrong unit is an error naming the date it would be") {
    const temp_file f("s,lat\n1700000000,1\n", "w.csv");
    const input_error e = read_error(f.path(), "t_sent=s:epoch_ms,e2e=lat");
    CHECK(e.line() == 2);
    CHECK(e.field() == "s (t_sent)");
    CHECK(e.reason() == "'1700000000' read as epoch_ms is 1970-01-20T16:13:20Z, not a plausible wall-clock time "
                        "(1990 to 2200): is the unit right?");
}

TEST_CASE("client_queue places t_sched before t_sent") {
    const temp_file f("sent,q,lat\n10.0,0.25,1\n10.5,0,1\n", "q.csv");
    const request_record r = row(f.path(), "t_sent=sent,client_queue=q,e2e=lat", 0);
    CHECK(r.t_sched == -0.25);
    CHECK(r.t_sent == 0.0);
}

TEST_CASE("t_sched and client_queue give t_sent, and 0 is the earliest t_sent") {
    const temp_file f("sched,q,lat\n10.0,0.5,1\n10.25,0,1\n", "q.csv");
    const servestat::run run = read(f.path(), "t_sched=sched,client_queue=q,e2e=lat");
    // t_sent = 10.5 and 10.25: the earliest, 10.25, is 0.
    CHECK(run.requests.row(1).t_sent == 0.0);
    CHECK(run.requests.row(0).t_sched == -0.25);
    CHECK(run.requests.row(0).t_sent == 0.25);
    CHECK(run.requests.row(0).t_end == 1.25);
}

TEST_CASE("decode places the end after the first token") {
    const temp_file f("ttft,decode\n0.25,1.5\n", "d.csv");
    const request_record r = row(f.path(), "ttft=ttft,decode=decode", 0);
    CHECK(r.t_first == 0.25);
    CHECK(r.t_end == 1.75);
}

TEST_CASE("server timings and max_tokens are read with their units") {
    const temp_file f("lat,q,p,d,max\n1,5,120,800,256\n", "s.csv");
    const request_record r =
        row(f.path(), "e2e=lat,server_queue=q:ms,server_prefill=p:ms,server_decode=d:ms,max_tokens=max", 0);
    CHECK(r.server_queue == 0.005);
    CHECK(r.server_prefill == 0.12);
    CHECK(r.server_decode == 0.8);
    CHECK(r.max_tokens == 256);
}

// ---- JSON Lines ---------------------------------------------------------------------------------

TEST_CASE("a JSONL log reads nested keys, status and HTTP status") {
    const servestat::run run = read(fixture("requests.jsonl"), requests_jsonl_map);
    REQUIRE(run.requests.size() == 3);
    CHECK(run.meta.started_at == "2024-06-10T15:00:00Z");
    const request_record b = run.requests.row(1);
    CHECK(b.t_sent == 0.5);
    CHECK(*b.t_first == near(0.62));
    CHECK(*b.t_end == near(1.000000123));
    CHECK(b.prompt_tokens == 300);
    CHECK(b.output_tokens == 40);
    CHECK(b.http_status == 200);
    const request_record c = run.requests.row(2);
    CHECK(c.status == request_status::error);
    CHECK(c.http_status == 400);
    CHECK(c.error == "This model's maximum context length is 4096 tokens");
    CHECK_FALSE(c.t_first.has_value());
    CHECK(*c.t_end - *c.t_sent == near(0.0005));
}

TEST_CASE("a JSONL error names the physical line, blank lines counted") {
    const temp_file f("{\"lat\": 1}\n\n{\"lat\": -1}\n");
    const input_error e = read_error(f.path(), "e2e=lat:ms");
    CHECK(e.line() == 3);
    CHECK(e.field() == "lat (e2e)");
    CHECK(e.reason() == "must be a finite number >= 0, got '-1'");
}

TEST_CASE("a malformed JSONL line is an error, or skipped with skip_bad") {
    const temp_file f("{\"lat\": 1}\n{\"lat\": \n{\"lat\": 2}\n");
    const input_error e = read_error(f.path(), "e2e=lat");
    CHECK(e.line() == 2);
    CHECK_THAT(e.reason(), Catch::StartsWith("malformed JSON at column"));
    const servestat::run run = read(f.path(), "e2e=lat", {}, {.skip_bad = true});
    CHECK(run.requests.size() == 2);
    CHECK(run.skipped.count == 1);
}

TEST_CASE("a pretty-printed JSON object is not JSON Lines: the error says to use records=") {
    const temp_file f("{\n  \"results\": [\n    {\"lat\": 1}\n  ]\n}\n");
    const input_error e = read_error(f.path(), "e2e=lat");
    CHECK(e.reason() == "the file is one JSON object, not one request per line: name the array of requests with "
                        "records=<path> in --map (arrays of objects in it: results)");
}

TEST_CASE("a one-line document without records= gets a hint on its missing field") {
    const temp_file f("{\"results\": [{\"lat\": 1}]}\n");
    const input_error e = read_error(f.path(), "e2e=lat");
    CHECK(e.line() == 1);
    CHECK(e.reason() == "missing (this line holds an array of objects, results: if the requests are in it, add "
                        "records=<its path> to --map)");
}

TEST_CASE("an unknown status is an error") {
    const temp_file f("{\"lat\": 1, \"s\": \"done\"}\n");
    const input_error e = read_error(f.path(), "e2e=lat,status=s");
    CHECK(e.field() == "s (status)");
    CHECK_THAT(e.reason(), Catch::StartsWith("unknown status 'done' (expected ok, error, timeout, transport or cancelled"));
}

TEST_CASE("status names are the canonical ones, in any case") {
    const temp_file f("{\"lat\": 1, \"s\": \"OK\"}\n{\"s\": \"timeout\", \"e\": \"HTTP 504: gateway\"}\n"
                      "{\"s\": \"cancelled\"}\n{\"s\": \"transport\"}\n{\"s\": \"error\", \"e\": \"HTTP 429: slow down\"}\n");
    const servestat::run run = read(f.path(), "e2e=lat,status=s,error=e");
    CHECK(run.requests.status()[0] == request_status::ok);
    CHECK(run.requests.status()[1] == request_status::timeout);
    CHECK(run.requests.status()[2] == request_status::cancelled);
    CHECK(run.requests.status()[3] == request_status::transport);
    CHECK(run.requests.status()[4] == request_status::error);
    CHECK(run.requests.row(4).http_status == 429);
}

TEST_CASE("a JSON number may be a numeric string; a fractional count is an error") {
    const temp_file f("{\"lat\": \"1.5\", \"n\": \"12\"}\n{\"lat\": 1, \"n\": 3.5}\n");
    const input_error e = read_error(f.path(), "e2e=lat,output_tokens=n");
    CHECK(e.line() == 2);
    CHECK(e.field() == "n (output_tokens)");
    CHECK(e.reason() == "not a whole number: '3.5'");
    const temp_file g("{\"lat\": \"1.5\", \"n\": \"12\"}\n");
    CHECK(row(g.path(), "e2e=lat,output_tokens=n", 0).output_tokens == 12);
}

TEST_CASE("a value of the wrong JSON type is an error") {
    const temp_file f("{\"lat\": true}\n");
    CHECK(read_error(f.path(), "e2e=lat").reason() == "expected a number, got boolean 'true'");
}

TEST_CASE("an ok request without the end is an error; a failed one is not") {
    const temp_file f("{\"lat\": null, \"err\": \"boom\"}\n{\"lat\": null, \"err\": null}\n");
    const input_error e = read_error(f.path(), "e2e=lat,error=err");
    CHECK(e.line() == 2);
    CHECK(e.field() == "lat (e2e)");
    CHECK(e.reason() == "missing");
}

TEST_CASE("an ok request without t_sent on a shared clock is an error") {
    const temp_file f("{\"s\": null, \"lat\": 1}\n");
    const input_error e = read_error(f.path(), "t_sent=s,e2e=lat");
    CHECK(e.field() == "s (t_sent)");
    CHECK(e.reason() == "missing");
}

TEST_CASE("an end before the send is an error") {
    const temp_file f("{\"s\": 10, \"e\": 9.5}\n");
    const input_error e = read_error(f.path(), "t_sent=s,t_end=e");
    CHECK(e.field() == "e (t_end)");
    CHECK(e.reason() == "before t_sent: e2e would be -0.5 s");
}

TEST_CASE("a first token before the send is an error") {
    const temp_file f("{\"s\": 10, \"f\": 9.75, \"e\": 11}\n");
    const input_error e = read_error(f.path(), "t_sent=s,t_first=f,t_end=e");
    CHECK(e.field() == "f (t_first)");
    CHECK(e.reason() == "before t_sent: ttft would be -0.25 s");
}

TEST_CASE("ttft longer than e2e is an error") {
    const temp_file f("{\"ttft\": 2500, \"lat\": 1.25}\n");
    const input_error e = read_error(f.path(), "ttft=ttft:ms,e2e=lat");
    CHECK(e.field() == "ttft (ttft)");
    CHECK(e.reason() == "the first token comes after the end: ttft 2.5 s > e2e 1.25 s");
}

TEST_CASE("a scheduled time after the send is an error") {
    const temp_file f("{\"q\": 10.5, \"s\": 10, \"lat\": 1}\n");
    const input_error e = read_error(f.path(), "t_sched=q,t_sent=s,e2e=lat");
    CHECK(e.field() == "q (t_sched)");
    CHECK(e.reason() == "after t_sent: client_queue would be -0.5 s");
}

TEST_CASE("an empty JSONL file is an error") {
    const temp_file f("  \n\n");
    CHECK(read_error(f.path(), "e2e=lat").reason() == "empty file");
}

TEST_CASE("a mapped key that no request has is noted") {
    const temp_file f("{\"lat\": 1}\n");
    const servestat::run run = read(f.path(), "e2e=lat,ttft=TTFT:ms");
    CHECK(run.meta.notes.back() == "ttft=TTFT:ms: no request has TTFT, so ttft is unavailable");
}

// ---- JSON documents -------------------------------------------------------------------------------

TEST_CASE("a top-level array of objects without a clock: every request starts at 0") {
    const servestat::run run = read(fixture("durations.json"), durations_map, "ok==true");
    REQUIRE(run.requests.size() == 3);
    CHECK_FALSE(run.meta.shared_clock);
    CHECK(run.meta.started_at.empty());
    const request_record r = run.requests.row(0);
    CHECK(r.t_sent == 0.0);
    CHECK(r.t_first == 0.15);
    CHECK(r.t_end == 0.8125);
    CHECK(r.prompt_tokens == 100);
    CHECK(r.output_tokens == 4);
    CHECK(r.itl == std::vector<double>{0.01, 0.0125, 0.0005});
    CHECK(run.requests.row(1).t_first == 0.0905);
    CHECK(run.meta.notes[2] == "no timestamps mapped: every request starts at 0, so duration, rps and token rates "
                               "cannot be derived");
}

TEST_CASE("an error that is a JSON object keeps its JSON text") {
    const request_record r = row(fixture("durations.json"), durations_map, 2, "ok==true");
    CHECK(r.status == request_status::error);
    CHECK(r.error == R"({"message":"prompt too long","type":"BadRequestError"})");
    CHECK_FALSE(r.t_end.has_value());
    CHECK(r.t_sent == 0.0);
}

TEST_CASE("a JSON document's error names its first line and the request's path") {
    const temp_file f("\n\n[\n {\"start\": 1, \"lat\": 1},\n {\"start\": 2, \"lat\": 1},\n {\"start\": \"x\", \"lat\": 1}\n]\n",
                      "doc.json");
    const input_error e = read_error(f.path(), "t_sent=start,e2e=lat");
    CHECK(e.file() == f.str());
    CHECK(e.line() == 3);
    CHECK(e.field() == "[2].start (t_sent)");
    CHECK(e.reason() == "not a number: 'x'");
}

TEST_CASE("records= finds the array inside a document and names it in errors") {
    const temp_file f(R"({"meta": {}, "data": {"items": [{"lat": 1}, {"lat": -3}]}})", "doc.json");
    const input_error e = read_error(f.path(), "records=data.items,e2e=lat");
    CHECK(e.line() == 1);
    CHECK(e.field() == "data.items[1].lat (e2e)");
}

TEST_CASE("a records= path that is not there lists what is") {
    const input_error e = read_error(fixture("output-004.json"), "records=reslts,e2e=response_time:ms");
    CHECK(e.field() == "reslts");
    CHECK(e.reason() == "no such key for records= (the document has: config, results, summary)");
}

TEST_CASE("records= that names a non-array is an error") {
    const input_error e = read_error(fixture("output-004.json"), "records=summary,e2e=response_time:ms");
    CHECK(e.reason() == "records=summary should be an array of requests, got object");
}

TEST_CASE("an element of the array that is not an object is an error") {
    const temp_file f("[{\"lat\": 1}, 5]", "doc.json");
    const input_error e = read_error(f.path(), "e2e=lat");
    CHECK(e.field() == "[1]");
    CHECK(e.reason() == "expected a request object, got number");
}

TEST_CASE("several documents in one file are one run each") {
    const temp_file f("[{\"lat\": 1}]\n[{\"lat\": 2}, {\"lat\": 3}]\n", "two.json");
    const auto runs = servestat::read_mapped(f.path(), parse_mapping("e2e=lat"), {});
    REQUIRE(runs.size() == 2);
    CHECK(runs[0].meta.label == "two-1");
    CHECK(runs[1].meta.label == "two-2");
    CHECK(runs[1].requests.size() == 2);
}

TEST_CASE("an empty array of requests is an error") {
    const temp_file f("[]", "doc.json");
    CHECK(read_error(f.path(), "e2e=lat").reason() == "no requests (the array is empty)");
}

TEST_CASE("with skip_bad a bad request in a document is counted") {
    const temp_file f("[{\"lat\": 1}, {\"lat\": \"x\"}, {\"lat\": 2}]", "doc.json");
    const servestat::run run = read(f.path(), "e2e=lat", {}, {.skip_bad = true});
    CHECK(run.requests.size() == 2);
    REQUIRE(run.skipped.count == 1);
    CHECK(run.skipped.examples.front() == f.str() + ":1: field '[1].lat (e2e)': not a number: 'x'");
}

TEST_CASE("a numeric key indexes an array") {
    const temp_file f(R"([{"choices": [{"n": 7}], "lat": 1}])", "doc.json");
    CHECK(row(f.path(), "e2e=lat,output_tokens=choices.0.n", 0).output_tokens == 7);
}

// ---- --ok-if --------------------------------------------------------------------------------------

TEST_CASE("under --ok-if, compares numbers as numbers: 0, 0.0 and \"0\" all equal 0") {
    const temp_file f("{\"c\": 0, \"lat\": 1}\n{\"c\": 0.0, \"lat\": 1}\n{\"c\": \"0\", \"lat\": 1}\n"
                      "{\"c\": 1, \"lat\": 1}\n{\"c\": \"zero\", \"lat\": 1}\n");
    const servestat::run run = read(f.path(), "e2e=lat", "c==0");
    CHECK(run.requests.status()[0] == request_status::ok);
    CHECK(run.requests.status()[1] == request_status::ok);
    CHECK(run.requests.status()[2] == request_status::ok);
    CHECK(run.requests.status()[3] == request_status::error);
    CHECK(run.requests.status()[4] == request_status::error);
}

TEST_CASE("under --ok-if, field== matches empty, null and absent") {
    const temp_file f("{\"e\": \"\", \"lat\": 1}\n{\"e\": null, \"lat\": 1}\n{\"lat\": 1}\n{\"e\": \"boom\", \"lat\": 1}\n");
    const servestat::run run = read(f.path(), "e2e=lat", "e==");
    CHECK(run.requests.status()[0] == request_status::ok);
    CHECK(run.requests.status()[1] == request_status::ok);
    CHECK(run.requests.status()[2] == request_status::ok);
    CHECK(run.requests.status()[3] == request_status::error);
}

TEST_CASE("under --ok-if, != and && combine") {
    const temp_file f("{\"s\": \"done\", \"code\": 200, \"lat\": 1}\n{\"s\": \"failed\", \"code\": 200, \"lat\": 1}\n"
                      "{\"s\": \"done\", \"code\": 503}\n");
    const servestat::run run = read(f.path(), "e2e=lat,http_status=code", "s!=failed && code==200");
    CHECK(run.requests.status()[0] == request_status::ok);
    CHECK(run.requests.status()[1] == request_status::error);
    CHECK(run.requests.status()[2] == request_status::error);
    CHECK(run.requests.row(2).http_status == 503);
}

TEST_CASE("under --ok-if, compares text exactly and booleans as true/false") {
    const temp_file f("{\"ok\": true, \"lat\": 1}\n{\"ok\": false, \"lat\": 1}\n{\"ok\": \"True\", \"lat\": 1}\n");
    const servestat::run run = read(f.path(), "e2e=lat", "ok==true");
    CHECK(run.requests.status()[0] == request_status::ok);
    CHECK(run.requests.status()[1] == request_status::error);
    CHECK(run.requests.status()[2] == request_status::error);
}

TEST_CASE("a failure by --ok-if is classified from its error text") {
    const temp_file f("{\"e\": \"ConnectionError: Connection refused\"}\n{\"e\": \"ReadTimeout\"}\n");
    const servestat::run run = read(f.path(), "e2e=lat,error=e", "e==");
    CHECK(run.requests.status()[0] == request_status::transport);
    CHECK(run.requests.status()[1] == request_status::timeout);
}

TEST_CASE("without --ok-if, status and error, a non-2xx http_status is a failure") {
    const temp_file f("{\"code\": 200, \"lat\": 1}\n{\"code\": 503}\n");
    const servestat::run run = read(f.path(), "e2e=lat,http_status=code");
    CHECK(run.requests.status()[0] == request_status::ok);
    CHECK(run.requests.status()[1] == request_status::error);
    CHECK(run.requests.row(1).http_status == 503);
}

// ---- llm-load-test, end to end ----------------------------------------------------------------------

TEST_CASE("llm-load-test's output file reads through records=results") {
    const servestat::run run = read(fixture("output-004.json"), llm_load_test_map, "error_text==");
    REQUIRE(run.requests.size() == 12);
    CHECK(run.meta.label == "output-004");
    // python: datetime.fromtimestamp(min(start_time) = 1718031600.2506478, utc), to the microsecond
    CHECK(run.meta.started_at == "2024-06-10T15:00:00.250648Z");
    // The first row is not the earliest. python: 1718031600.253199 - 1718031600.2506478 as doubles
    // (the file's stamps are time.time() doubles, so their difference is exact in double arithmetic).
    const request_record r = run.requests.row(0);
    CHECK(r.t_sent == 0.0025513172149658203);
    CHECK(*r.t_first - *r.t_sent == Approx(0.359022855758667).margin(1e-9)); // the file's ttft / 1000
    CHECK(*r.t_end - *r.t_sent == Approx(1.939924716949463).margin(1e-9));   // the file's response_time / 1000
    CHECK(r.prompt_tokens == 385);
    CHECK(r.output_tokens == 128);
    CHECK(r.status == request_status::ok);
}

TEST_CASE("llm-load-test's failures: an HTTP 500 and a refused connection") {
    const servestat::run run = read(fixture("output-004.json"), llm_load_test_map, "error_text==");
    const request_record http = run.requests.row(3);
    CHECK(http.status == request_status::error);
    CHECK(http.http_status == 500);
    CHECK(*http.t_end - *http.t_sent == Approx(0.0413).margin(1e-9));
    CHECK(run.requests.row(11).status == request_status::transport);
    CHECK(run.requests.row(11).error.starts_with("ConnectionError(MaxRetryError("));
}

TEST_CASE("the run's notes list the mapping, the success rule and the clock") {
    const servestat::run run = read(fixture("output-004.json"), llm_load_test_map, "error_text==");
    REQUIRE(run.meta.notes.size() == 3);
    CHECK(run.meta.notes[0] ==
          "fields mapped by --map: records=results, t_sent=start_time:epoch_s, t_first=first_token_time:epoch_s, "
          "t_end=end_time:epoch_s, prompt_tokens=input_tokens, output_tokens=output_tokens, "
          "http_status=error_code, error=error_text");
    CHECK(run.meta.notes[1] == "a request succeeded when --ok-if error_text== holds; a failure is a timeout or "
                               "transport failure when its error text says so, else an error");
    CHECK(run.meta.notes[2] == "timestamps are wall-clock (epoch) times; 0 is the earliest t_sent, "
                               "2024-06-10T15:00:00.250648Z");
}

TEST_CASE("analyze() on llm-load-test's file gives numpy's e2e and ttft percentiles") {
    const servestat::run run = read(fixture("output-004.json"), llm_load_test_map, "error_text==");
    const servestat::run_stats stats = servestat::analyze(run);
    CHECK(stats.requests == 12);
    CHECK(stats.ok == 10);
    CHECK(stats.failed == 2); // the tool's own summary.total_failures
    // /usr/bin/python3: ok = [r for r in results if r['error_text'] is None]
    //   np.percentile([r['end_time'] - r['start_time'] for r in ok], 50) = 1.85289466381073
    //   np.percentile(same, 90) = 2.425180268287658
    //   np.percentile([r['first_token_time'] - r['start_time'] for r in ok], 50) = 0.2789112329483032
    // (the file's summary.response_time.median is 1852.89466381073 ms)
    using servestat::metric;
    CHECK(*find_percentile(stats, "all", metric::e2e, 50.0) == Approx(1.85289466381073).epsilon(1e-12));
    CHECK(*find_percentile(stats, "all", metric::e2e, 90.0) == Approx(2.425180268287658).epsilon(1e-12));
    CHECK(*find_percentile(stats, "all", metric::ttft, 50.0) == Approx(0.2789112329483032).epsilon(1e-12));
}

TEST_CASE("mapping llm-load-test's response_time and ttft in ms gives the same e2e median") {
    const servestat::run run =
        read(fixture("output-004.json"),
             "records=results,t_sent=start_time:epoch_s,ttft=ttft:ms,e2e=response_time:ms,error=error_text");
    const servestat::run_stats stats = servestat::analyze(run);
    CHECK(stats.ok == 10);
    CHECK(*find_percentile(stats, "all", servestat::metric::e2e, 50.0) == Approx(1.85289466381073).epsilon(1e-12));
}

TEST_CASE("with error and http_status mapped, a non-2xx status fails a request whose error text is empty") {
    const servestat::test::temp_file file("start,e2e,code,err\n1718031600.0,1.0,200,\n1718031600.5,0.5,500,\n",
                                          "results.csv");
    const servestat::run run = read(file.path(), "t_sent=start:epoch_s,e2e=e2e,http_status=code,error=err");
    CHECK(run.requests.row(0).status == request_status::ok);
    CHECK(run.requests.row(1).status == request_status::error);
    CHECK(run.requests.row(1).http_status == 500);
    CHECK(run.meta.notes[1] == "a request failed when err is not empty or code is not a 2xx HTTP status; its text "
                               "tells a timeout or transport failure from an error");
}

} // namespace test_ingest_mapped
