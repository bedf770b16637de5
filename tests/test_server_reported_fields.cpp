// The server's own figures beside server_queue/prefill/decode: server_ttft and server_itl (times,
// metrics like server_prefill) and server_spec_acceptance and server_draft_acceptance (speculative
// decoding's acceptance length and rate: plain means per run). Through both canonical line parsers,
// the request table, the log writer, --map, statistics, the JSON export and summary files; null is
// absent; each out-of-range value is refused naming its field. Expected values are worked out by
// hand from the inputs (binary-exact numbers where a check is exact).
#include "servestat/compare/compare.hpp"
#include "servestat/ingest/canonical_jsonl.hpp"
#include "servestat/ingest/mapped.hpp"
#include "servestat/ingest/mapping_spec.hpp"
#include "servestat/load/log_writer.hpp"
#include "servestat/report/stats_json.hpp"
#include "servestat/report/summary_file.hpp"
#include "servestat/stats/run_accumulator.hpp"
#include "servestat/stats/run_stats.hpp"

#include <algorithm>   // std::count
#include <cmath>       // std::isnan
#include <limits>      // std::numeric_limits
#include <optional>    // std::optional
#include <filesystem>  // std::filesystem::path
#include <string>      // std::string
#include <string_view> // std::string_view
#include <vector>      // std::vector

#include "temp_file.hpp"

#include <catch2/catch.hpp> // TEST_CASE, REQUIRE, CHECK, INFO

namespace test_server_reported_fields { // the unity build compiles several test files as one: each keeps its names

using namespace servestat;
using servestat::detail::canonical_fast_line;
using servestat::detail::canonical_field;
using servestat::detail::canonical_line_parser;
using servestat::detail::field_error;
using servestat::detail::identify_canonical_field;
using servestat::test::temp_file;

namespace {

const std::string header = R"({"servestat":"log","version":1,"run":{"label":"spec-decode"}})" "\n";

// 0.125, 2.75 and 0.6875 are exact in binary; 0.0215 is the double nearest it on every path.
const std::string four_fields = R"("server_ttft":0.125,"server_itl":0.0215,"server_spec_acceptance":2.75,)"
                                R"("server_draft_acceptance":0.6875)";

std::string request_line(std::string_view fields) {
    return R"({"t_sent":1,"t_first":1.5,"t_end":2,"status":"ok",)" + std::string(fields) + "}";
}

struct both_paths {
    std::optional<field_error> fast, slow; // parse (the fast path first), parse_slowly (simdjson alone)
    request_record fast_record, slow_record;
};

// One line through the reader's entry (which takes the fast path when it can) and through simdjson
// alone, with the padding a reader gives a line.
both_paths parse_both(const std::string& line) {
    std::string padded = line;
    padded.resize(line.size() + 64, ' ');
    const std::string_view text(padded.data(), line.size());
    canonical_line_parser parser;
    both_paths out;
    out.fast = parser.parse(text, 64, out.fast_record);
    out.slow = parser.parse_slowly(text, 64, out.slow_record);
    return out;
}

void check_four_fields(const request_record& r) {
    REQUIRE(r.server_ttft.has_value());
    REQUIRE(r.server_itl.has_value());
    REQUIRE(r.server_spec_acceptance.has_value());
    REQUIRE(r.server_draft_acceptance.has_value());
    CHECK(*r.server_ttft == 0.125);
    CHECK(*r.server_itl == 0.0215);
    CHECK(*r.server_spec_acceptance == 2.75);
    CHECK(*r.server_draft_acceptance == 0.6875);
}

run read_log(const std::string& content) {
    temp_file f(content);
    auto runs = canonical_log_format.read(f.path(), {});
    REQUIRE(runs.size() == 1);
    return std::move(runs.front());
}

request_record timed(double sent, double end, request_status status = request_status::ok) {
    request_record r;
    r.t_sent = sent;
    r.t_first = sent + 0.5;
    r.t_end = end;
    r.status = status;
    return r;
}

request_record with_figures(request_record r, std::optional<double> ttft, std::optional<double> itl,
                            std::optional<double> length, std::optional<double> rate) {
    r.server_ttft = ttft;
    r.server_itl = itl;
    r.server_spec_acceptance = length;
    r.server_draft_acceptance = rate;
    return r;
}

// Two ok requests with every field, a failed one whose figures must not count, an ok one with none:
// server_ttft 0.25 and 0.75 (mean 0.5), server_itl 0.02 and 0.04 (mean 0.03), acceptance length
// 2 and 3 (mean 2.5), rate 0.5 and 0.75 (mean 0.625).
request_table four_requests() {
    request_table t;
    t.push_back(with_figures(timed(0, 1), 0.25, 0.02, 2.0, 0.5));
    t.push_back(with_figures(timed(1, 2), 0.75, 0.04, 3.0, 0.75));
    t.push_back(with_figures(timed(2, 2.75, request_status::error), 9.0, std::nullopt, 4.0, 1.0));
    t.push_back(timed(3, 4));
    return t;
}

run run_of(request_table t) {
    run r;
    r.meta.label = "spec";
    r.requests = std::move(t);
    return r;
}

} // namespace

TEST_CASE("both canonical line parsers read the four fields alike", "[server_fields]") {
    const auto parsed = parse_both(request_line(four_fields));
    REQUIRE_FALSE(parsed.fast);
    REQUIRE_FALSE(parsed.slow);
    check_four_fields(parsed.fast_record);
    check_four_fields(parsed.slow_record);
    CHECK(identical(parsed.fast_record, parsed.slow_record));
    // The fast path takes such a line itself, not by falling back.
    const std::string line = request_line(four_fields);
    request_record fast;
    CHECK(canonical_fast_line().parse(line, fast));
    check_four_fields(fast);
}

TEST_CASE("the fast path's key dispatch tells the new keys from their neighbours of the same length", "[server_fields]") {
    CHECK(identify_canonical_field("server_ttft") == canonical_field::server_ttft);
    CHECK(identify_canonical_field("http_status") == canonical_field::http_status); // 11 letters too
    CHECK(identify_canonical_field("server_itl") == canonical_field::server_itl);
    CHECK(identify_canonical_field("max_tokens") == canonical_field::max_tokens); // 10 letters too
    CHECK(identify_canonical_field("server_spec_acceptance") == canonical_field::server_spec_acceptance);
    CHECK(identify_canonical_field("prompt_tokens_original") == canonical_field::prompt_tokens_original); // 22
    CHECK(identify_canonical_field("server_draft_acceptance") == canonical_field::server_draft_acceptance);
    for (const char* near : {"server_ttfx", "server_itx", "server_spec_acceptancx", "server_draft_acceptancx",
                             "xerver_ttft", "server_spec_acceptances"})
        CHECK(identify_canonical_field(near) == canonical_field::unknown);
}

TEST_CASE("a canonical log keeps the four fields per request; absent and null are missing, never 0", "[server_fields]") {
    const run r = read_log(header + request_line(four_fields) + "\n" +
                           R"({"t_sent":2,"t_end":3,"status":"ok"})" "\n" +
                           request_line(R"("server_ttft":null,"server_itl":null,"server_spec_acceptance":null,)"
                                        R"("server_draft_acceptance":null)") + "\n");
    REQUIRE(r.requests.size() == 3);
    check_four_fields(r.requests.row(0));
    for (std::size_t i : {1, 2}) {
        const auto q = r.requests.row(i);
        INFO("request " << i);
        CHECK_FALSE(q.server_ttft.has_value());
        CHECK_FALSE(q.server_itl.has_value());
        CHECK_FALSE(q.server_spec_acceptance.has_value());
        CHECK_FALSE(q.server_draft_acceptance.has_value());
    }
    // The columns hold NaN (absent) for the rows without a value.
    REQUIRE(r.requests.server_ttft().size() == 3);
    CHECK(std::isnan(r.requests.server_ttft()[1]));
    CHECK(std::isnan(r.requests.server_draft_acceptance()[2]));
    // Only null: each parser leaves the field absent.
    const auto nulls = parse_both(request_line(R"("server_ttft":null,"server_spec_acceptance":null)"));
    REQUIRE_FALSE(nulls.fast);
    REQUIRE_FALSE(nulls.slow);
    CHECK_FALSE(nulls.fast_record.server_ttft.has_value());
    CHECK_FALSE(nulls.slow_record.server_spec_acceptance.has_value());
    // A log that never has them holds no column for them.
    const run none = read_log(header + R"({"t_sent":2,"t_end":3,"status":"ok"})" "\n");
    CHECK(none.requests.server_ttft().empty());
    CHECK(none.requests.server_spec_acceptance().empty());
}

TEST_CASE("each value out of its range is refused by both parsers, naming the field", "[server_fields]") {
    struct bad {
        const char* field;
        const char* value;
        const char* words;
    };
    const bad cases[] = {
        {"server_ttft", "-0.25", "must not be negative"},
        {"server_itl", "-0.001", "must not be negative"},
        {"server_ttft", "NaN", "expected a number"},       // JSON has no NaN
        {"server_itl", "Infinity", "expected a number"},
        {"server_ttft", "1e400", "malformed JSON"},        // overflows to infinity
        {"server_itl", "1e13", "not a time servestat can use"},
        {"server_spec_acceptance", "0.5", "not a mean acceptance length"},
        {"server_spec_acceptance", "0", "not a mean acceptance length"},
        {"server_spec_acceptance", "NaN", "expected a number"},
        {"server_spec_acceptance", "1e7", "not a mean acceptance length"},
        {"server_draft_acceptance", "1.5", "not an acceptance rate"},
        {"server_draft_acceptance", "-0.1", "not an acceptance rate"},
        {"server_draft_acceptance", "NaN", "expected a number"},
        {"server_draft_acceptance", "\"0.5\"", "expected a number"},
    };
    for (const auto& c : cases) {
        const std::string line = request_line(std::string("\"") + c.field + "\":" + c.value);
        INFO(line);
        const auto parsed = parse_both(line);
        REQUIRE(parsed.fast);
        REQUIRE(parsed.slow);
        CHECK(parsed.fast->field == c.field);
        CHECK(parsed.slow->field == c.field);
        CHECK_THAT(parsed.fast->message, Catch::Contains(c.words));
        CHECK(parsed.fast->message == parsed.slow->message);
        // A file: the error names the file, the line (2: after the header) and the field.
        temp_file f(header + line + "\n");
        try {
            (void)canonical_log_format.read(f.path(), {});
            FAIL("no error");
        } catch (const input_error& e) {
            CHECK(e.file() == f.str());
            CHECK(e.line() == 2);
            CHECK(e.field() == c.field);
        }
    }
    // The edges are values: rate 0 and 1, length 1, times 0.
    const auto edges = parse_both(request_line(R"("server_ttft":0,"server_itl":0,"server_spec_acceptance":1,)"
                                               R"("server_draft_acceptance":0)"));
    CHECK_FALSE(edges.fast);
    CHECK_FALSE(parse_both(request_line(R"("server_draft_acceptance":1)")).fast);
}

TEST_CASE("the request table refuses what a reader would, as a backstop", "[server_fields]") {
    request_table t;
    request_record r = timed(0, 1);
    r.server_spec_acceptance = 0.5;
    CHECK_THROWS_AS(t.push_back(r), input_error);
    r.server_spec_acceptance.reset();
    r.server_draft_acceptance = std::numeric_limits<double>::quiet_NaN(); // would read back as absent
    try {
        t.push_back(r);
        FAIL("no error");
    } catch (const input_error& e) {
        CHECK(e.field() == "server_draft_acceptance");
    }
    CHECK(t.empty());
}

TEST_CASE("the request table keeps the four columns through push_back, append and row", "[server_fields]") {
    request_table t;
    t.push_back(timed(0, 1)); // before any value: the columns spring up backfilled
    const std::size_t bare = t.memory_bytes();
    const request_record full = with_figures(timed(1, 2), 0.125, 0.0215, 2.75, 0.6875);
    t.push_back(full);
    CHECK(t.memory_bytes() >= bare + 4 * 2 * sizeof(double)); // four columns of two rows at least
    REQUIRE(t.server_itl().size() == 2);
    CHECK(std::isnan(t.server_itl()[0]));
    check_four_fields(t.row(1));
    CHECK_FALSE(t.row(0).server_spec_acceptance.has_value());

    request_table more; // a piece without the columns, appended after: backfilled as absent
    more.push_back(timed(2, 3));
    t.append(std::move(more));
    REQUIRE(t.size() == 3);
    REQUIRE(t.server_draft_acceptance().size() == 3);
    CHECK_FALSE(t.row(2).server_draft_acceptance.has_value());
    check_four_fields(t.row(1));

    request_table first; // and a piece with them appended to one without
    first.push_back(timed(0, 1));
    request_table second;
    second.push_back(full);
    first.append(std::move(second));
    CHECK_FALSE(first.row(0).server_ttft.has_value());
    check_four_fields(first.row(1));
}

TEST_CASE("the log writer writes the four fields and a log read back keeps them", "[server_fields]") {
    load::request_result r;
    r.id = "3";
    r.t_sched = 0;
    r.t_sent = 0.5;
    r.t_first = 0.75;
    r.t_end = 1.25;
    r.prompt_tokens = 10;
    r.output_tokens = 5;
    r.max_tokens = 16;
    r.http_status = 200;
    r.server_ttft = 0.125;
    r.server_itl = 0.0215;
    r.server_spec_acceptance = 2.75;
    r.server_draft_acceptance = 0.6875;
    const std::string line = load::log_line(r);
    // Six decimals, as the log's times.
    CHECK(line == R"({"id":"3","t_sched":0.000000,"t_sent":0.500000,"t_first":0.750000,"t_end":1.250000,)"
                  R"("prompt_tokens":10,"output_tokens":5,"max_tokens":16,"status":"ok","http_status":200,)"
                  R"("server_ttft":0.125000,"server_itl":0.021500,"server_spec_acceptance":2.750000,)"
                  R"("server_draft_acceptance":0.687500})" "\n");
    // Without them, none of the keys is written (absent, not 0).
    load::request_result plain = r;
    plain.server_ttft = plain.server_itl = plain.server_spec_acceptance = plain.server_draft_acceptance = std::nullopt;
    CHECK(load::log_line(plain).find("server_") == std::string::npos);
    // More digits than six are rounded to six: 2.3456789 → 2.345679.
    load::request_result rounded = plain;
    rounded.server_spec_acceptance = 2.3456789;
    const run back = read_log(load::header_line({{"label", "written"}}) + line + load::log_line(plain) + load::log_line(rounded));
    REQUIRE(back.requests.size() == 3);
    check_four_fields(back.requests.row(0));
    CHECK_FALSE(back.requests.row(1).server_ttft.has_value());
    CHECK_FALSE(back.requests.row(1).server_draft_acceptance.has_value());
    CHECK(*back.requests.row(2).server_spec_acceptance == 2.345679);
}

TEST_CASE("--map reads the two times with a unit and the two acceptance figures without one", "[server_fields]") {
    const std::string map = "t_sent=sent,e2e=e2e,server_ttft=ttft_ms:ms,server_itl=itl_us:us,"
                            "server_spec_acceptance=mal,server_draft_acceptance=rate";
    temp_file csv("sent,e2e,ttft_ms,itl_us,mal,rate\n"
                  "0,1.5,125,21500,2.75,0.6875\n"
                  "1,1.5,,,,\n",
                  "requests.csv");
    const auto runs = read_mapped(csv.path(), parse_mapping(map), read_options{});
    REQUIRE(runs.size() == 1);
    const auto first = runs[0].requests.row(0);
    CHECK(*first.server_ttft == Approx(0.125));  // 125 ms
    CHECK(*first.server_itl == Approx(0.0215));  // 21,500 µs
    CHECK(*first.server_spec_acceptance == 2.75); // as is
    CHECK(*first.server_draft_acceptance == 0.6875);
    const auto second = runs[0].requests.row(1); // empty cells are absent
    CHECK_FALSE(second.server_ttft.has_value());
    CHECK_FALSE(second.server_spec_acceptance.has_value());
    CHECK_FALSE(second.server_draft_acceptance.has_value());

    // A unit on a figure that is no time is refused; a time unit on the times is theirs.
    CHECK_THROWS_WITH(parse_mapping("t_sent=sent,e2e=e2e,server_spec_acceptance=mal:ms"),
                      Catch::Contains("server_spec_acceptance takes no unit"));
    CHECK_THROWS_WITH(parse_mapping("t_sent=sent,e2e=e2e,server_ttft=ttft:epoch_ms"), Catch::Contains("is a duration"));

    // Values out of range name the source and the target.
    const auto refused = [&](const std::string& row, const std::string& field, const std::string& words) {
        temp_file bad("sent,e2e,ttft_ms,itl_us,mal,rate\n" + row + "\n", "requests.csv");
        INFO(row);
        try {
            (void)read_mapped(bad.path(), parse_mapping(map), read_options{});
            FAIL("no error");
        } catch (const input_error& e) {
            CHECK(e.field() == field);
            CHECK(e.line() == 2);
            CHECK_THAT(e.what(), Catch::Contains(words));
        }
    };
    refused("0,1.5,-5,,,", "ttft_ms (server_ttft)", "must be a finite number >= 0");
    refused("0,1.5,,,0.5,", "mal (server_spec_acceptance)", "must be a number from 1 to");
    refused("0,1.5,,,,71.5", "rate (server_draft_acceptance)", "must be a number from 0 to 1, got '71.5'");
    refused("0,1.5,,,,inf", "rate (server_draft_acceptance)", "must be a number from 0 to 1");
}

TEST_CASE("server_ttft and server_itl are metrics; the acceptance figures are plain means per run", "[server_fields]") {
    CHECK(parse_metric("server_ttft") == metric::server_ttft);
    CHECK(parse_metric("server_itl") == metric::server_itl);
    CHECK_THROWS_AS(parse_metric("server_spec_acceptance"), usage_error); // not a latency
    const request_table t = four_requests();
    CHECK(*metric_value(t, metric::server_ttft, 1) == 0.75);
    CHECK_FALSE(metric_value(t, metric::server_itl, 3).has_value());

    const run_stats s = analyze(run_of(four_requests()));
    const summary* ttft = find_summary(s, "all", metric::server_ttft);
    REQUIRE(ttft != nullptr);
    CHECK(ttft->n == 2); // the failed request's 9 s is left out, as every latency's
    CHECK(*ttft->mean == 0.5);
    CHECK(*ttft->max == 0.75);
    const summary* itl = find_summary(s, "all", metric::server_itl);
    REQUIRE(itl != nullptr);
    CHECK(itl->n == 2);
    CHECK(*itl->mean == Approx(0.03));
    REQUIRE(s.server_spec_acceptance.has_value());
    REQUIRE(s.server_draft_acceptance.has_value());
    CHECK(*s.server_spec_acceptance == 2.5);
    CHECK(*s.server_draft_acceptance == 0.625);

    const auto j = to_json(s);
    CHECK(j["server_spec_acceptance"] == 2.5);
    CHECK(j["server_draft_acceptance"] == 0.625);
    CHECK(j["subsets"]["all"]["metrics"]["server_ttft"]["n"] == 2);

    // A run without them: no values, null means.
    request_table plain;
    plain.push_back(timed(0, 1));
    const run_stats none = analyze(run_of(std::move(plain)));
    CHECK(find_summary(none, "all", metric::server_ttft)->n == 0);
    CHECK_FALSE(none.server_spec_acceptance.has_value());
    CHECK(to_json(none)["server_draft_acceptance"].is_null());
}

TEST_CASE("compare's default metrics include the two server times", "[server_fields]") {
    // compare_runs leaves out a metric neither run has values of, so logs without them compare as before.
    const compare_options defaults;
    for (metric m : {metric::server_ttft, metric::server_itl})
        CHECK(std::count(defaults.metrics.begin(), defaults.metrics.end(), m) == 1);
}

TEST_CASE("a run accumulated piece by piece, and its summary file, give the same means", "[server_fields]") {
    const request_table whole = four_requests();
    request_table head, tail;
    for (std::size_t i = 0; i < whole.size(); ++i) (i < 2 ? head : tail).push_back(whole.row(i));
    run_accumulator pieces{stats_options{}};
    pieces.add(head);
    run_accumulator later{stats_options{}};
    later.add(tail);
    pieces.merge(later);
    const run_stats merged = pieces.result({}, {});
    CHECK(*merged.server_spec_acceptance == 2.5);
    CHECK(*merged.server_draft_acceptance == 0.625);
    CHECK(merged.subsets[0].metrics.size() == all_metrics.size());
    CHECK(find_summary(merged, "all", metric::server_ttft)->n == 2);

    run_summary written{{}, {}, pieces};
    written.meta.label = "spec";
    const run_summary back = parse_summary_text(summary_file_text(written), "spec.ssum.json");
    const run_stats read = back.stats.result(back.meta, back.skipped);
    CHECK(*read.server_spec_acceptance == 2.5);
    CHECK(*read.server_draft_acceptance == 0.625);
    CHECK(*find_summary(read, "all", metric::server_ttft)->mean == 0.5);
}

TEST_CASE("a summary file written before the new fields reads as one without their values", "[server_fields]") {
    const auto old = read_summary_file(std::filesystem::path(SERVESTAT_TEST_DATA_DIR) / "summary_file" / "twelve-requests.ssum.json");
    const run_stats s = old.stats.result(old.meta, old.skipped);
    CHECK(s.requests == 12);
    CHECK(find_summary(s, "all", metric::server_ttft)->n == 0);
    CHECK(find_summary(s, "all", metric::server_itl)->n == 0);
    CHECK_FALSE(s.server_spec_acceptance.has_value());
    CHECK_FALSE(s.server_draft_acceptance.has_value());
    // Every other metric must still be there: a file lacking server_prefill is refused.
    std::string text = summary_file_text(old);
    const auto at = text.find("\"server_prefill\":");
    REQUIRE(at != std::string::npos);
    text.replace(at, std::string("\"server_prefill\"").size(), "\"server_prefilx\"");
    CHECK_THROWS_WITH(parse_summary_text(text, "cut.ssum.json"), Catch::Contains("server_prefill"));
}

} // namespace test_server_reported_fields
