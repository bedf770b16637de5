// Tests for servestat/ingest/mapping_spec.hpp, mapped.hpp, mapped_sources.hpp, near_names.hpp and
// map_suggestion.hpp: the --map / --ok-if grammar, every unit and clock conversion against
// hand-computed values, tpot / itl / server_queue against numpy, the three input kinds, names the
// file does not hold, the --map line suggested when detection fails, and bad input. Fixtures in
// tests/data/mapped/ (see its README.md): output-004.json is shaped as llm-load-test's current code
// writes it (results/config/summary; the summary computed from the results as the tool does),
// results.csv is the example of the --map documentation, the others are small hand-made logs.
#include "servestat/ingest/mapped.hpp"
#include "servestat/ingest/mapping_spec.hpp"
#include "servestat/ingest/detect.hpp" // detect_file_format, read_head, sniff_bytes
#include "servestat/ingest/map_suggestion.hpp"
#include "servestat/ingest/near_names.hpp"

#include <cstddef>     // std::size_t
#include <filesystem>  // std::filesystem::path
#include <optional>    // std::optional
#include <utility>     // std::pair
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

// The usage error read_mapped throws for a name the file does not hold.
std::string mapped_usage_error(const std::filesystem::path& file, std::string_view map, std::string_view ok_if = {}) {
    const auto spec = parse_mapping(map, ok_if);
    try {
        servestat::read_mapped(file, spec, {});
    } catch (const usage_error& e) {
        return e.what();
    }
    FAIL("no usage_error was thrown");
    throw; // unreachable
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
          "--map: nothing to compute e2e from: map t_end or e2e, or decode or tpot with ttft or t_first");
}

TEST_CASE("tpot is one of the ways to the end, and needs the first-token time and output_tokens") {
    CHECK(usage_message("ttft=a,tpot=b,e2e=c,output_tokens=n") ==
          "--map: mixed: e2e=c and tpot=b both give the end of a request; map one of them");
    CHECK(usage_message("tpot=b,output_tokens=n") ==
          "--map: tpot=b gives the end as t_first + tpot * (output_tokens - 1): map ttft or t_first, and "
          "output_tokens too");
    CHECK(usage_message("ttft=a,tpot=b") ==
          "--map: tpot=b gives the end as t_first + tpot * (output_tokens - 1): map ttft or t_first, and "
          "output_tokens too");
    CHECK(usage_message("ttft=a,tpot=b:epoch_ms,output_tokens=n") ==
          "--map: tpot is a duration, so epoch_ms (a wall-clock unit for timestamps: t_sched, t_sent, t_first, "
          "t_end) does not apply; use ms");
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

TEST_CASE("a mapped column the CSV lacks is a usage error naming the near misses") {
    // TTFB is one letter from TTFT; nothing is near `queue`, so the header is listed.
    const std::string file = fixture("results.csv").string();
    CHECK(mapped_usage_error(fixture("results.csv"), "e2e=response_time,ttft=TTFB:ms,server_queue=queue") ==
          file + ": 2 names in --map/--ok-if are not in the file:\n"
                 "  ttft=TTFB:ms: the header has no column 'TTFB'; did you mean 'TTFT'?\n"
                 "  server_queue=queue: the header has no column 'queue' (its columns: request_id, start, TTFT, "
                 "response_time, input_tokens, usage.completion_tokens, error_code, error_message)\n"
                 "  Column names are matched exactly, letter case too: correct them in --map (or --ok-if).");
}

TEST_CASE("a CSV column named in another letter case is a usage error, not a silent match") {
    const std::string file = fixture("results.csv").string();
    CHECK(mapped_usage_error(fixture("results.csv"), "e2e=Response_Time,ttft=ttft:ms") ==
          file + ": 2 names in --map/--ok-if are not in the file:\n"
                 "  e2e=Response_Time: the header has no column 'Response_Time'; did you mean 'response_time' (the "
                 "same name in another letter case)?\n"
                 "  ttft=ttft:ms: the header has no column 'ttft'; did you mean 'TTFT' (the same name in another "
                 "letter case)?\n"
                 "  Column names are matched exactly, letter case too: correct them in --map (or --ok-if).");
}

TEST_CASE("an --ok-if column the CSV lacks is a usage error too") {
    CHECK_THAT(mapped_usage_error(fixture("results.csv"), "e2e=response_time", "eror_code=="),
               Catch::Contains("--ok-if eror_code==: the header has no column 'eror_code'; did you mean "
                               "'error_code'?"));
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

TEST_CASE("a mapped tpot becomes the end, so servestat's tpot, e2e and decode follow from it") {
    // t_end = t_first + tpot * (out - 1): 0.1 + 0.02 * 10, 0.25 + 0.0125 * 4, 0.08 + 0.03 * 2.
    const temp_file f("ttft_ms,tpot_ms,out,queue_ms,gaps\n100,20,11,5,\"[20, 20, 20]\"\n250,12.5,5,40,\n"
                      "80,30,3,0,\"[30, 30]\"\n",
                      "tpot.csv");
    const servestat::run run =
        read(f.path(), "ttft=ttft_ms:ms,tpot=tpot_ms:ms,output_tokens=out,server_queue=queue_ms:ms,itl=gaps:ms");
    CHECK(*run.requests.row(0).t_end == near(0.3));
    CHECK(*run.requests.row(2).t_end == near(0.14));
    CHECK(run.meta.notes.back() == "tpot=tpot_ms:ms: each end is t_first + tpot * (output_tokens - 1), so "
                                   "servestat's tpot is the file's and e2e and decode follow from it");
    // numpy: np.percentile(x, [50, 90]) for tpot [0.02, 0.0125, 0.03], e2e [0.3, 0.3, 0.14],
    // server_queue [0.005, 0.04, 0.0] and the pooled gaps [0.02, 0.02, 0.02, 0.03, 0.03].
    const servestat::run_stats stats = servestat::analyze(run);
    using servestat::metric;
    const auto pct = [&](metric m, double p) { return *find_percentile(stats, "all", m, p); };
    CHECK(pct(metric::tpot, 50) == near(0.02));
    CHECK(pct(metric::tpot, 90) == near(0.028));
    CHECK(pct(metric::e2e, 50) == near(0.3));
    CHECK(pct(metric::e2e, 90) == near(0.30000000000000004));
    CHECK(pct(metric::server_queue, 50) == near(0.005));
    CHECK(pct(metric::server_queue, 90) == near(0.033));
    CHECK(pct(metric::itl, 50) == near(0.02));
    CHECK(pct(metric::itl, 90) == near(0.03));
}

TEST_CASE("a successful request with one output token has no tpot, so nothing gives its end") {
    const temp_file f("ttft,tpot,out\n0.1,0.02,1\n", "one.csv");
    const input_error e = read_error(f.path(), "ttft=ttft,tpot=tpot,output_tokens=out");
    CHECK(e.field() == "tpot (tpot)");
    CHECK(e.reason() == "gives no end when output_tokens is 1 (t_end = t_first + tpot * (output_tokens - 1) needs "
                        "output_tokens > 1)");
    const temp_file g("ttft,tpot,out\n,0.02,5\n", "nofirst.csv");
    CHECK(read_error(g.path(), "ttft=ttft,tpot=tpot,output_tokens=out").reason() ==
          "missing (tpot needs the first-token time)");
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

TEST_CASE("a JSONL key no request has, in another letter case, is a usage error naming it") {
    // Before, TTFT read as absent on every request: exit 0 with only a note.
    const temp_file f("{\"lat\": 1, \"ttft\": 0.5}\n{\"lat\": 2, \"ttft\": 0.25}\n");
    CHECK(mapped_usage_error(f.path(), "e2e=lat,ttft=TTFT:ms") ==
          f.str() + ": ttft=TTFT:ms: no request has the key 'TTFT'; did you mean 'ttft' (the same name in another "
                    "letter case)?\n  Names are matched exactly, letter case too: correct them in --map (or "
                    "--ok-if), or leave out an entry the file never holds.");
}

TEST_CASE("a misspelt required key is the usage error, not 'missing' on the first request") {
    // Every request lacks `latency`, so the first would fail as missing; the name is the real fault.
    const temp_file f("{\"latency_ms\": 1}\n{\"latency_ms\": 2}\n{\"latency_ms\": \"x\"}\n");
    CHECK_THAT(mapped_usage_error(f.path(), "e2e=latency"),
               Catch::Contains("e2e=latency: no request has the key 'latency'; did you mean 'latency_ms'?"));
}

TEST_CASE("a key some requests have is not a usage error; one in a later line is found") {
    const temp_file f("{\"lat\": 1}\n{\"lat\": 2, \"err\": \"boom\"}\n");
    const servestat::run run = read(f.path(), "e2e=lat,error=err");
    CHECK(run.requests.status()[0] == request_status::ok);
    CHECK(run.requests.status()[1] == request_status::error);
}

TEST_CASE("a key holding null, or behind a null, is there") {
    // inference-perf writes "error": null on success and {"error_msg": ...} on failure.
    const temp_file f("[{\"lat\": 1, \"error\": null}, {\"lat\": 2, \"error\": null}]", "doc.json");
    const servestat::run run = read(f.path(), "e2e=lat,error=error.error_msg");
    CHECK(run.requests.status()[1] == request_status::ok);
}

TEST_CASE("a nested key is checked level by level, with the near misses of its level") {
    CHECK_THAT(mapped_usage_error(fixture("requests.jsonl"), std::string(requests_jsonl_map) +
                                                                 ",max_tokens=usage.Max_Tokens"),
               Catch::Contains("max_tokens=usage.Max_Tokens: no request has the key 'usage.Max_Tokens' ('usage' "
                               "holds: completion_tokens, prompt_tokens)"));
    CHECK_THAT(mapped_usage_error(fixture("requests.jsonl"), "t_sent=timing.sent_ns:epoch_ns,e2e=timng.end_ns:ns"),
               Catch::Contains("e2e=timng.end_ns:ns: no request has the key 'timng.end_ns'; did you mean "
                               "'timing.end_ns'?"));
}

TEST_CASE("a key missing from a JSON document's requests names records= and the keys there are") {
    CHECK_THAT(mapped_usage_error(fixture("output-004.json"), "records=results,e2e=latency:ms"),
               Catch::StartsWith(fixture("output-004.json").string() +
                                 ": e2e=latency:ms: no request (in records=results) has the key 'latency' (the "
                                 "requests' keys: ack_time, end_time, error_code, error_text, first_token_time, "
                                 "input_id, input_tokens, itl, output_text, output_tokens, "
                                 "output_tokens_before_timeout, response_time, start_time, stop_reason, tpot, "
                                 "tt_ack, ttft, user_id)"));
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
    // The failed requests have no latency (null), as a tool writes them.
    const temp_file f("{\"e\": \"ConnectionError: Connection refused\", \"lat\": null}\n"
                      "{\"e\": \"ReadTimeout\", \"lat\": null}\n");
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
// output-004.json: 17 requests of 4 users over 5 s (tests/tools/make_llm_load_test_fixture.py). Its rule for a latency is
// llm-load-test's own: calculate_results() fills response_time only when error_code and error_text
// are both null, so the documented --ok-if asks for both.

constexpr std::string_view llm_load_test_ok_if = "error_text== && error_code==";

TEST_CASE("llm-load-test's output file reads through records=results") {
    const servestat::run run = read(fixture("output-004.json"), llm_load_test_map, llm_load_test_ok_if);
    REQUIRE(run.requests.size() == 17);
    CHECK(run.meta.label == "output-004");
    // python: datetime.fromtimestamp(min(start_time) = 1718031600.2525687, utc), to the microsecond
    CHECK(run.meta.started_at == "2024-06-10T15:00:00.252569Z");
    // The first row is not the earliest. python: results[0].start_time - min(start_time) as doubles
    // (the file's stamps are time.time() doubles, so their difference is exact in double arithmetic).
    const request_record r = run.requests.row(0);
    CHECK(r.t_sent == 0.0012035369873046875);
    CHECK(*r.t_first - *r.t_sent == Approx(0.3923978805541992).margin(1e-9)); // the file's ttft / 1000
    CHECK(*r.t_end - *r.t_sent == Approx(2.1264123916625977).margin(1e-9));   // the file's response_time / 1000
    CHECK(r.prompt_tokens == 282);
    CHECK(r.output_tokens == 128);
    CHECK(r.status == request_status::ok);
}

TEST_CASE("llm-load-test's failures: HTTP 500, an error inside the stream, a refused connection, an empty stream") {
    const servestat::run run = read(fixture("output-004.json"), llm_load_test_map, llm_load_test_ok_if);
    const request_record http = run.requests.row(9);
    CHECK(http.status == request_status::error);
    CHECK(http.http_status == 500);
    CHECK(*http.t_end - *http.t_sent == Approx(0.041300058364868164).margin(1e-9));
    // The stream said HTTP 200, then carried an error object: llm-load-test keeps the object.
    const request_record in_stream = run.requests.row(6);
    CHECK(in_stream.status == request_status::error);
    CHECK(in_stream.http_status == 200);
    CHECK(in_stream.error == R"({"code":500,"message":"The engine loop has stopped.","param":null,"type":"InternalServerError"})");
    CHECK(run.requests.row(15).status == request_status::transport);
    CHECK(run.requests.row(15).error.starts_with("ConnectionError(MaxRetryError("));
    // No data lines: error_code 200 and no error_text; the tool computes no latency for it either.
    const request_record empty = run.requests.row(1);
    CHECK(empty.status == request_status::error);
    CHECK(empty.output_tokens == 0);
}

TEST_CASE("the run's notes list the mapping, the success rule and the clock") {
    const servestat::run run = read(fixture("output-004.json"), llm_load_test_map, llm_load_test_ok_if);
    REQUIRE(run.meta.notes.size() == 3);
    CHECK(run.meta.notes[0] ==
          "fields mapped by --map: records=results, t_sent=start_time:epoch_s, t_first=first_token_time:epoch_s, "
          "t_end=end_time:epoch_s, prompt_tokens=input_tokens, output_tokens=output_tokens, "
          "http_status=error_code, error=error_text");
    CHECK(run.meta.notes[1] == "a request succeeded when --ok-if error_text== && error_code== holds; a failure is "
                               "a timeout or transport failure when its error text says so, else an error");
    CHECK(run.meta.notes[2] == "timestamps are wall-clock (epoch) times; 0 is the earliest t_sent, "
                               "2024-06-10T15:00:00.252569Z");
}

TEST_CASE("analyze() on llm-load-test's file gives numpy's e2e, ttft and tpot percentiles") {
    const servestat::run run = read(fixture("output-004.json"), llm_load_test_map, llm_load_test_ok_if);
    const servestat::run_stats stats = servestat::analyze(run);
    CHECK(stats.requests == 17);
    CHECK(stats.ok == 13);
    CHECK(stats.failed == 4); // the tool's summary.total_failures (3) and the empty stream
    // /usr/bin/python3: ok = [r for r in results if r['error_text'] is None and r['error_code'] is None]
    //   np.percentile([r['end_time'] - r['start_time'] for r in ok], 50) = 1.8940770626068115
    //   np.percentile(same, 90) = 2.1047333240509034
    //   np.percentile([r['first_token_time'] - r['start_time'] for r in ok], 50) = 0.23993587493896484
    //   np.percentile([(r['end_time'] - r['first_token_time']) / (r['output_tokens'] - 1)
    //                  for r in ok if r['output_tokens'] > 1], 50) = 0.013521304280739131
    // (the file's summary.response_time.median is 1894.0770626068115 ms, over the same rows)
    using servestat::metric;
    CHECK(*find_percentile(stats, "all", metric::e2e, 50.0) == Approx(1.8940770626068115).epsilon(1e-12));
    CHECK(*find_percentile(stats, "all", metric::e2e, 90.0) == Approx(2.1047333240509034).epsilon(1e-12));
    CHECK(*find_percentile(stats, "all", metric::ttft, 50.0) == Approx(0.23993587493896484).epsilon(1e-12));
    CHECK(*find_percentile(stats, "all", metric::tpot, 50.0) == Approx(0.013521304280739131).epsilon(1e-9));
}

TEST_CASE("mapping llm-load-test's response_time and ttft in ms gives the same e2e median") {
    const servestat::run run =
        read(fixture("output-004.json"),
             "records=results,t_sent=start_time:epoch_s,ttft=ttft:ms,e2e=response_time:ms,error=error_text,"
             "http_status=error_code",
             llm_load_test_ok_if);
    const servestat::run_stats stats = servestat::analyze(run);
    CHECK(stats.ok == 13);
    CHECK(*find_percentile(stats, "all", servestat::metric::e2e, 50.0) == Approx(1.8940770626068115).epsilon(1e-12));
}

TEST_CASE("llm-load-test's itl is servestat's tpot: mapped as tpot, it gives the same tpot and e2e") {
    // itl = (end - first token) / (out - 1) in ms; the one-token request has none and no end from it,
    // so --skip-bad counts it. numpy over ok rows with out > 1: tpot p50 0.013521304280739131.
    const servestat::run run = read(fixture("output-004.json"),
                                    "records=results,t_sent=start_time:epoch_s,ttft=ttft:ms,tpot=itl:ms,"
                                    "output_tokens=output_tokens,error=error_text,http_status=error_code",
                                    llm_load_test_ok_if, {.skip_bad = true});
    CHECK(run.skipped.count == 1);
    CHECK_THAT(run.skipped.examples.front(),
               Catch::Contains("results[11].itl (tpot)': gives no end when output_tokens is 1"));
    const servestat::run_stats stats = servestat::analyze(run);
    CHECK(*find_percentile(stats, "all", servestat::metric::tpot, 50.0) == Approx(0.013521304280739131).epsilon(1e-9));
    // np.percentile of end_time - start_time over the same twelve rows, 50: 1.917940378189087
    CHECK(*find_percentile(stats, "all", servestat::metric::e2e, 50.0) == Approx(1.917940378189087).epsilon(1e-9));
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

// ---- near names -------------------------------------------------------------------------------------

TEST_CASE("near names: the same name in another case or spelling, else a few edits, then containment") {
    // With a sure match (case, or `_`/`-`), only those are named.
    const auto sure = servestat::near_names("latency", {"latency_ms", "Latency", "la-tency", "latencies", "ttft"});
    REQUIRE(sure.size() == 2);
    CHECK(sure[0].name == "Latency");
    CHECK(sure[0].case_only);
    CHECK(sure[1].name == "la-tency");
    CHECK_FALSE(sure[1].case_only);
    const auto close = servestat::near_names("latency", {"latency_ms", "latncy", "ttft"});
    REQUIRE(close.size() == 2);
    CHECK(close[0].name == "latncy");     // one edit
    CHECK(close[1].name == "latency_ms"); // contains it
    CHECK(servestat::near_names("ttft", {"TTFB", "tpot"}).front().name == "TTFB"); // one edit in a short name
    CHECK(servestat::near_names("tpot", {"ttft"}).empty()); // two edits are too many for four letters
}

// ---- when no format recognises the file -------------------------------------------------------------

namespace {

std::optional<std::string> suggestion_for(const std::filesystem::path& file) {
    return servestat::detail::describe_unrecognised_table(file, servestat::detail::read_head(file),
                                                          servestat::detail::sniff_bytes);
}

// The --map and --ok-if values of the suggested line.
std::pair<std::string, std::string> suggested_line(const std::string& message) {
    const auto value_after = [&](std::string_view option) -> std::string {
        const auto at = message.find(std::string(option) + " '");
        if (at == std::string::npos) return {};
        const auto begin = at + option.size() + 2;
        return message.substr(begin, message.find('\'', begin) - begin);
    };
    return {value_after("--map"), value_after("--ok-if")};
}

} // namespace

TEST_CASE("an llm-load-test file gets its record keys and the documented --map line") {
    const auto message = suggestion_for(fixture("output-004.json"));
    REQUIRE(message);
    CHECK_THAT(*message, Catch::StartsWith(
                             "a JSON object holding an array of 17 objects at 'results'; keys of its first: ack_time, "
                             "end_time, error_code, error_text, first_token_time, input_id, input_tokens, itl, "
                             "output_text, output_tokens, output_tokens_before_timeout, response_time, start_time, "
                             "stop_reason, tpot, tt_ack, ttft, user_id.\n"));
    CHECK(suggested_line(*message).first == llm_load_test_map);
    CHECK_THAT(*message, Catch::Contains("Units guessed: start_time, first_token_time, end_time in Unix seconds "
                                         "(values near 1.718e+09)."));
}

TEST_CASE("a CSV gets its columns, units from the values named as guesses, and a line that reads it") {
    const auto message = suggestion_for(fixture("results.csv"));
    REQUIRE(message);
    CHECK_THAT(*message, Catch::StartsWith("a CSV table; columns: request_id, start, TTFT, response_time, "
                                           "input_tokens, usage.completion_tokens, error_code, error_message.\n"));
    // error_code holds -1, no HTTP status, so it is not offered as http_status.
    const auto [map, ok_if] = suggested_line(*message);
    CHECK(map == "t_sent=start:epoch_s,ttft=TTFT:ms,e2e=response_time:s,prompt_tokens=input_tokens,"
                 "output_tokens=usage.completion_tokens,error=error_message");
    CHECK(ok_if.empty());
    CHECK_THAT(*message, Catch::Contains("Units guessed: start in Unix seconds (values near 1.718e+09); TTFT in ms "
                                         "(values around 120.5); response_time in s (values around 1.25)."));
    // The line reads the file: the documented example's numbers (r0 at 0.25 s, first token 0.3705 s).
    const servestat::run run = read(fixture("results.csv"), map, ok_if);
    CHECK(run.requests.row(0).t_sent == 0.25);
    CHECK(*run.requests.row(0).t_first == near(0.3705));
}

TEST_CASE("JSON Lines and a top-level array get units from their names and an --ok-if from a boolean") {
    const auto lines = suggestion_for(fixture("requests.jsonl"));
    REQUIRE(lines);
    CHECK_THAT(*lines, Catch::StartsWith("JSON Lines, one object per line; keys of the first line: id, outcome, "
                                         "timing, usage.\n"));
    CHECK(suggested_line(*lines).first ==
          "t_sent=timing.sent_ns:epoch_ns,t_first=timing.first_ns:epoch_ns,t_end=timing.end_ns:epoch_ns,"
          "prompt_tokens=usage.prompt_tokens,output_tokens=usage.completion_tokens,http_status=outcome.http,"
          "status=outcome.status");
    const auto array = suggestion_for(fixture("durations.json"));
    REQUIRE(array);
    const auto [map, ok_if] = suggested_line(*array);
    CHECK(map == "ttft=ttft_us:us,e2e=latency_ms:ms,itl=gaps_ms:ms,prompt_tokens=tokens.in,output_tokens=tokens.out,"
                 "error=error.message");
    CHECK(ok_if == "ok==true");
    CHECK_THAT(*array, Catch::Contains("Units guessed: ttft_us in us (from the name); latency_ms in ms (from the "
                                       "name); gaps_ms in ms (from the name)."));
}

TEST_CASE("detection failing on a CSV names the file, the columns, the --map line and the known formats") {
    try {
        servestat::detect_file_format(fixture("results.csv"));
        FAIL("results.csv was detected");
    } catch (const input_error& e) {
        CHECK(e.file() == fixture("results.csv").string());
        CHECK_THAT(e.reason(), Catch::StartsWith("not a recognised request log: a CSV table; columns: request_id,"));
        CHECK_THAT(e.reason(), Catch::Contains("\n    --map 't_sent=start:epoch_s,ttft=TTFT:ms,"));
        CHECK_THAT(e.reason(), Catch::EndsWith("; force one with --input-format)"));
    }
}

TEST_CASE("detection failing on binary data keeps the short message") {
    const temp_file f(std::string("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16), "image.png");
    try {
        servestat::detect_file_format(f.path());
        FAIL("binary data was detected");
    } catch (const input_error& e) {
        CHECK_THAT(e.reason(), Catch::StartsWith("binary data, not a request log (known formats: "));
        CHECK(e.reason().find('\n') == std::string::npos);
    }
}

TEST_CASE("a unit in the name wins over values that would look like a date") {
    // 1.5e9 ns is 1.5 s; read as seconds it would be a date in 2017.
    const temp_file f("{\"sent_at\": 1718031600.5, \"ttft_ns\": 200000000, \"latency_ns\": 1500000000}\n"
                      "{\"sent_at\": 1718031601.5, \"ttft_ns\": 250000000, \"latency_ns\": 1600000000}\n",
                      "ns.jsonl");
    const auto message = suggestion_for(f.path());
    REQUIRE(message);
    CHECK(suggested_line(*message).first == "t_sent=sent_at:epoch_s,ttft=ttft_ns:ns,e2e=latency_ns:ns");
}

TEST_CASE("a table with nothing like a latency gets its names and says what is missing") {
    const temp_file f("id,model,prompt\n1,m,hello\n2,m,bye\n", "prompts.csv");
    const auto message = suggestion_for(f.path());
    REQUIRE(message);
    CHECK_THAT(*message, Catch::Contains("no name looks like a latency or an end time: add e2e=<name>:<unit> or "
                                         "t_end=<name>:<unit>"));
}

TEST_CASE("text, a settings object and a list of numbers get no suggestion") {
    const temp_file text("hello world\nnot a table\n", "notes.txt");
    CHECK_FALSE(suggestion_for(text.path()));
    const temp_file settings("{\"model\": \"m\", \"config\": {\"a\": 1}}\n", "settings.json");
    CHECK_FALSE(suggestion_for(settings.path()));
    const temp_file numbers("[1, 2, 3]", "numbers.json");
    CHECK_FALSE(suggestion_for(numbers.path()));
}

TEST_CASE("a long key list is cut after twenty names") {
    std::string header, row;
    for (int i = 0; i < 30; ++i) {
        header += (i ? ",c" : "c") + std::to_string(i);
        row += i ? ",1" : "1";
    }
    const temp_file f(header + "\n" + row + "\n" + row + "\n", "wide.csv");
    const auto message = suggestion_for(f.path());
    REQUIRE(message);
    CHECK_THAT(*message, Catch::Contains("c18, c19, ... (30 in all)."));
}

} // namespace test_ingest_mapped
