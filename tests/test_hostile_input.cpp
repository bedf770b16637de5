// Hostile input, mechanism by mechanism (issues 17 and 22): each case is a reproducer that broke
// servestat, kept here at the shared place that now handles it — the reader entry, the opener, the
// text sanitiser, the plot scale, the directory walker, the SSE line limit, the template walk.
// tests/cli/test_hostile_input.py runs the same cases through the tool.
#include <cmath>       // std::isfinite
#include <filesystem>  // std::filesystem
#include <fstream>     // std::ofstream
#include <limits>      // std::numeric_limits
#include <string>      // std::string
#include <string_view> // std::string_view
#include <vector>      // std::vector

#include <catch2/catch.hpp> // TEST_CASE, CHECK, REQUIRE, CHECK_THROWS_WITH

#include "servestat/core/iso_time.hpp"          // detail::parse_utc_time, detail::iso_utc
#include "servestat/core/request_table.hpp"     // request_table
#include "servestat/core/utf8.hpp"              // to_valid_utf8, shortened_text
#include "servestat/ingest/csv.hpp"             // detail::csv_reader
#include "servestat/ingest/detect.hpp"          // read_runs, detail::files_in
#include "servestat/ingest/json_document.hpp"   // detail::parse_json_documents
#include "servestat/load/sse.hpp"               // load::sse_parser
#include "servestat/plot/scale.hpp"             // plot::linear_ticks, plot::log_ticks, plot::scale
#include "servestat/report/render.hpp"          // render
#include "servestat/stats/run_stats.hpp"        // analyze

namespace test_hostile_input { // the unity build compiles several test files as one: each keeps its names

namespace {

using namespace servestat;
namespace fs = std::filesystem;
using Catch::Matchers::Contains;

fs::path scratch(const std::string& name) {
    const fs::path dir = fs::temp_directory_path() / "servestat_hostile_input";
    fs::create_directories(dir);
    return dir / name;
}

fs::path write_file(const std::string& name, std::string_view bytes) {
    const fs::path p = scratch(name);
    std::ofstream(p, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return p;
}

constexpr std::string_view header = R"({"servestat":"log","version":1,"run":{"label":"x","started_at":"2026-01-01T00:00:00Z"}})";

std::string canonical(std::initializer_list<std::string_view> lines) {
    std::string out = std::string(header) + "\n";
    for (auto line : lines) out.append(line).append("\n");
    return out;
}

} // namespace

// ---- times: finite and within ±1e12 s, so every duration, mean and variance is finite ----------

TEST_CASE("two finite times an infinite span apart are refused naming the line and the field", "[hostile]") {
    const auto log = write_file("overflow.jsonl", canonical({R"({"t_sent":-1.7e308,"t_first":0,"t_end":1.7e308,"status":"ok"})"}));
    CHECK_THROWS_WITH(read_runs(log), Contains("overflow.jsonl:2: field 't_sent'") && Contains("not a time servestat can use"));
}

TEST_CASE("the request table refuses an unusable time from any reader, and the reader entry names the file", "[hostile]") {
    request_table t;
    request_record r;
    r.t_sent = 0;
    r.t_end = 2e12;
    CHECK_THROWS_WITH(t.push_back(r), Contains("field 't_end'") && Contains("request 1"));
    r.t_end = 1;
    r.itl = {0.5, std::numeric_limits<double>::infinity()};
    CHECK_THROWS_WITH(t.push_back(r), Contains("field 'itl'"));
    r.itl = {0.5};
    t.push_back(r);
    CHECK(t.size() == 1);
}

TEST_CASE("token sums are taken in double: two counts of 2e9 do not wrap to a negative rate", "[hostile]") {
    const auto log = write_file("tokens.jsonl", canonical({R"({"t_sent":0,"t_first":0.1,"t_end":1,"prompt_tokens":2000000000,"output_tokens":2000000000,"status":"ok"})"}));
    const run_stats s = analyze(read_runs(log).front());
    REQUIRE(s.total_tps);
    CHECK(*s.total_tps == 4e9); // (2e9 + 2e9) tokens over the run's 1 s, by hand
}

// ---- dates: any year 0000–9999, in order ----------------------------------------------------------

TEST_CASE("dates outside 1678–2261 parse and order as dates, not as wrapped nanoseconds", "[hostile]") {
    const auto y2300 = detail::parse_utc_time("2300-01-01T00:00:00Z");
    const auto y2026 = detail::parse_utc_time("2026-01-01T00:00:00Z");
    const auto y0001 = detail::parse_utc_time("0001-01-01T00:00:00Z");
    REQUIRE((y2300 && y2026 && y0001));
    CHECK(*y0001 < *y2026);
    CHECK(*y2026 < *y2300);
    CHECK(y2026->seconds == 1767225600); // date -u -d 2026-01-01 +%s
    CHECK(detail::iso_utc(*y2300) == "2300-01-01T00:00:00Z");
    CHECK(detail::iso_utc(*y0001) == "0001-01-01T00:00:00Z");
    CHECK(detail::iso_utc(*detail::parse_utc_time("9999-12-31T23:59:59+00:00")) == "9999-12-31T23:59:59Z");
    CHECK(detail::iso_utc(*detail::parse_utc_time("1969-12-31T23:59:59Z")) == "1969-12-31T23:59:59Z");
    CHECK_FALSE(detail::parse_iso_utc("2300-01-01T00:00:00Z").has_value()); // int64 ns cannot hold it
}

// ---- text: valid UTF-8 everywhere, long texts shortened ------------------------------------------

TEST_CASE("bytes that start no UTF-8 sequence become U+FFFD; valid text is left alone", "[hostile]") {
    CHECK(to_valid_utf8("bad\xff.jsonl") == "bad\xEF\xBF\xBD.jsonl");
    CHECK(to_valid_utf8("\xC3\xA9t\xC3\xA9") == "\xC3\xA9t\xC3\xA9");        // été
    CHECK(to_valid_utf8("\xC3") == "\xEF\xBF\xBD");                         // cut short
    CHECK(to_valid_utf8("\xC0\xAF") == "\xEF\xBF\xBD\xEF\xBF\xBD");         // overlong '/'
    CHECK(to_valid_utf8("\xED\xA0\x80") == "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"); // a surrogate
    CHECK(is_valid_utf8("\xF0\x9F\x98\x80"));                                // 😀
    CHECK_FALSE(is_valid_utf8("\xF4\x90\x80\x80"));                          // above U+10FFFF
}

TEST_CASE("a long text is cut between characters and says how long it was", "[hostile]") {
    CHECK(shortened_text("short", 300) == "short");
    CHECK(shortened_text(std::string(5000016, 'x'), 3) == "xxx\xE2\x80\xA6 (5,000,016 characters)");
    CHECK(shortened_text("\xC3\xA9\xC3\xA9\xC3\xA9", 2) == "\xC3\xA9\xC3\xA9\xE2\x80\xA6 (3 characters)");
}

TEST_CASE("a file name and error texts that are not UTF-8 reach the run as U+FFFD, with a note", "[hostile]") {
    const auto log = write_file("bad\xff.jsonl", R"({"servestat":"log","version":1,"run":{}})"
                                                 "\n"
                                                 R"({"t_sent":0,"t_end":1,"status":"ok"})"
                                                 "\n");
    const auto runs = read_runs(log);
    CHECK(runs.front().meta.label == "bad\xEF\xBF\xBD");
    CHECK(is_valid_utf8(runs.front().meta.source.path));
    CHECK_THAT(runs.front().meta.notes.back(), Contains("not valid UTF-8"));
    fs::remove(log);

    const auto csv = write_file("cell.csv", "ttft,e2e,error\n0.1,0.5,boom \xff\n");
    const auto mapped = read_runs(csv, {.mapping = parse_mapping("ttft=ttft:s,e2e=e2e:s,error=error")});
    CHECK(mapped.front().requests.error(0) == "boom \xEF\xBF\xBD");
}

TEST_CASE("an error message quoting input bytes is valid UTF-8 and bounded", "[hostile]") {
    const input_error e("f.csv", 3, "status", "unknown status '\xff" + std::string(100000, 'y') + "'");
    CHECK(is_valid_utf8(e.what()));
    CHECK(std::string_view(e.what()).size() < 4100);
    CHECK_THAT(e.what(), Contains("characters)"));
}

// ---- reading: BOM, NUL, huge or non-JSON documents, many documents --------------------------------

TEST_CASE("a byte-order mark before a log is skipped by detection and by the reader", "[hostile]") {
    const auto log = write_file("bom.jsonl", "\xEF\xBB\xBF" + canonical({R"({"t_sent":0,"t_end":1,"status":"ok"})"}));
    const auto runs = read_runs(log);
    CHECK(runs.front().meta.source.format == "servestat");
    CHECK(runs.front().requests.size() == 1);
}

TEST_CASE("a whole-document read refuses NUL bytes and a first byte that cannot start JSON", "[hostile]") {
    CHECK_THROWS_WITH(detail::read_json_file(write_file("zeros.json", std::string(1000, '\0'))),
                      Contains("binary data (a NUL byte at offset 0)"));
    CHECK_THROWS_WITH(detail::read_json_file(write_file("x.json", "\n\n  x{}")),
                      Contains("x.json:3: not a JSON document: it starts with 'x'"));
    CHECK(detail::read_json_file(write_file("ok.json", "\xEF\xBB\xBF {\"a\": 1}")) == " {\"a\": 1}");
}

TEST_CASE("a file over 1 GiB is refused for whole-document formats before it is read", "[hostile]") {
    const auto big = scratch("sparse.json");
    { std::ofstream(big, std::ios::binary).put('{'); }
    fs::resize_file(big, std::uintmax_t{3} << 30); // sparse: no disk, no memory
    CHECK_THROWS_WITH(detail::read_json_file(big), Contains("file of 3072 MiB"));
    fs::remove(big);
}

TEST_CASE("documents are checked as they are parsed, so the first bad one ends the read", "[hostile]") {
    std::string many;
    for (int i = 0; i < 1000; ++i) many += "{\"n\":" + std::to_string(i) + "}\n";
    int seen = 0;
    CHECK_THROWS_WITH(detail::parse_json_documents("many.json", many,
                                                   [&](const detail::json_document& d) {
                                                       ++seen;
                                                       if (d.value["n"] == 2) d.place.fail("n", "bad");
                                                   }),
                      Contains("many.json:3: field 'n'"));
    CHECK(seen == 3);
    // Line numbers are counted on from one document to the next.
    const auto docs = detail::parse_json_documents("many.json", many);
    CHECK(docs.size() == 1000);
    CHECK(docs.back().place.line == 1000);
}

// ---- directories: loops and permissions -----------------------------------------------------------

TEST_CASE("a symbolic link loop in a directory is a warning naming it; the rest is read", "[hostile]") {
    const fs::path dir = scratch("loops");
    fs::remove_all(dir);
    fs::create_directories(dir);
    write_file("loops/good.jsonl", canonical({R"({"t_sent":0,"t_end":1,"status":"ok"})"}));
    fs::create_symlink("b", dir / "a");
    fs::create_symlink("a", dir / "b");
    std::vector<std::string> warnings;
    const auto files = detail::files_in(dir, [&](const std::string& w) { warnings.push_back(w); });
    REQUIRE(files.size() == 1);
    CHECK(files.front().filename() == "good.jsonl");
    REQUIRE(warnings.size() == 2);
    CHECK_THAT(warnings.front(), Contains("passed over") && Contains("too many levels of symbolic links"));
    std::vector<run> runs;
    const std::vector<std::string> inputs{dir.string()};
    for_each_run(inputs, {}, [&](run&& r) { runs.push_back(std::move(r)); });
    CHECK(runs.size() == 1);
}

// ---- the plot scale never ticks an infinite or empty range ----------------------------------------

TEST_CASE("axis ticks over infinite, NaN or overflowing ranges are few and finite", "[hostile]") {
    constexpr double inf = std::numeric_limits<double>::infinity();
    for (const auto& [lo, hi] : {std::pair{-inf, inf}, {-1.7e308, 1.7e308}, {std::nan(""), 1.0}, {0.0, 0.0}, {5.0, 5.0}}) {
        const auto ticks = plot::linear_ticks(lo, hi);
        CHECK(ticks.size() >= 2);
        CHECK(ticks.size() <= 12);
        for (double t : ticks) CHECK(std::isfinite(t));
        const plot::scale s(lo, hi, 0, 100, false);
        CHECK(std::isfinite(s(0.5)));
    }
    const auto log_ticks = plot::log_ticks(0, inf);
    CHECK(log_ticks.size() <= 700);
    for (double t : log_ticks) CHECK(std::isfinite(t));
}

// ---- the driver's SSE line limit does not depend on where the stream is cut -----------------------

TEST_CASE("a line over the SSE limit is refused wherever the stream is split, one at the limit never", "[hostile]") {
    constexpr std::size_t limit = 16;
    const std::string at_limit = "data: " + std::string(limit - 6, 'a');   // 16 bytes
    const std::string over_limit = "event: " + std::string(limit - 6, 'b'); // 17 bytes, not data
    for (const auto& [stream, refused] : {std::pair{at_limit + "\n\n", false}, {over_limit + "\r\n\n", true},
                                          {at_limit + "\r\n" + over_limit + "\n\n", true}}) {
        for (std::size_t cut = 0; cut <= stream.size(); ++cut) {
            load::sse_parser parser(limit);
            bool threw = false;
            try {
                parser.feed(std::string_view(stream).substr(0, cut), [](const load::sse_event&) {});
                parser.feed(std::string_view(stream).substr(cut), [](const load::sse_event&) {});
            } catch (const load::sse_error&) {
                threw = true;
            }
            INFO("stream " << stream << " cut at " << cut);
            CHECK(threw == refused);
        }
    }
}

// ---- user templates: bounded depth and bounded work -----------------------------------------------

TEST_CASE("a template nesting sections 100,000 deep, or multiplying them, is refused before rendering", "[hostile]") {
    const nlohmann::json view = {{"runs", nlohmann::json::array({{{"x", 1}}, {{"x", 2}}})}};
    std::string deep;
    for (int i = 0; i < 100000; ++i) deep += "{{#runs}}";
    for (int i = 0; i < 100000; ++i) deep += "{{/runs}}";
    CHECK_THROWS_WITH(render(deep, view, markup::markdown, "deep.md.mustache"), Contains("nested more than 64 deep"));
    std::string wide; // 2^40 renders of the innermost section
    for (int i = 0; i < 40; ++i) wide += "{{#runs}}";
    wide += "{{x}}";
    for (int i = 0; i < 40; ++i) wide += "{{/runs}}";
    CHECK_THROWS_WITH(render(wide, view, markup::markdown, "wide.md.mustache"), Contains("more than 10000000 times"));
}

// ---- reproducers the fuzzers found (fuzz/README.md) ---------------------------------------------

TEST_CASE("a vLLM percentile key of 400 digits is no percentile, not an escaped std::out_of_range", "[hostile][fuzz]") {
    const std::string key = "p" + std::string(400, '9') + "_ttft_ms";
    CHECK_FALSE(detail::vllm_percentile_of(key, "ttft").has_value());
    CHECK(detail::vllm_percentile_of("p99.9_ttft_ms", "ttft") == 99.9);
    const auto file = write_file("long_key.json", R"({"backend":"vllm","completed":1,")" + key + R"(":1})");
    try {
        read_runs(file, {.input_format = "vllm-bench-json"});
    } catch (const input_error& e) { // refusing it is fine; any other exception fails the test
        CHECK(e.file() == file.string());
    }
}

TEST_CASE("a CSV header naming one column twice is described, not read past its fields", "[hostile][fuzz]") {
    // fuzz_detect: "0" three times in the header made the sampler index its fields by column
    // position, past the end of the vector (a heap overflow under ASan).
    const auto csv = write_file("repeated.csv", "tiemstamp,prompt_throughput,0,2,0,1,25.0,0.0\n"
                                                "1001.0,0.0,250.0,3,0,4,50.0,0.0\n"
                                                "1001.5,0.0,120.0,1,0\n"
                                                "1000.0,0.0,0.0,0,0,0,0.0,0.0\n");
    CHECK_THROWS_WITH(read_runs(csv), Contains("repeated.csv: not a recognised request log"));
}

TEST_CASE("a canonical header whose servestat tag is a number is refused, not a JSON type error", "[hostile][fuzz]") {
    const auto log = write_file("tag.jsonl", R"({"servestat":0.2,"version":1})"
                                             "\n"
                                             R"({"t_sent":0,"t_end":1,"status":"ok"})"
                                             "\n");
    CHECK_THROWS_WITH(read_runs(log, {.input_format = "servestat"}),
                      Contains("tag.jsonl:1: field 'servestat': first line is not a servestat log header"));
}

TEST_CASE("requests of zero duration at one instant are one in flight, not 2^64 - 1", "[hostile][fuzz]") {
    // fuzz_vllm_bench_csv: an end equal to its own start was taken off before the start was counted.
    const auto log = write_file("instant.jsonl", canonical({R"({"t_sent":3,"t_end":3,"status":"ok"})",
                                                            R"({"t_sent":3,"t_end":3,"status":"ok"})",
                                                            R"({"t_sent":1,"t_end":5,"status":"ok"})"}));
    const run_stats s = analyze(read_runs(log).front());
    REQUIRE(s.peak_concurrency);
    CHECK(*s.peak_concurrency == 3); // at t = 3: [1, 5) and both instants sent then
}

TEST_CASE("a sweep parameter too large for an integer stays a number, not undefined behaviour", "[hostile][fuzz]") {
    // fuzz_sweep_csv: 7.8e21 was cast to long long (UBSan: outside the range of representable values).
    CHECK(detail::param_number(7.77778e21) == 7.77778e21);
    CHECK(detail::param_number(7.77778e21).is_number_float());
    CHECK(detail::param_number(64.0).is_number_integer());
    CHECK(detail::param_number(-3.0) == -3);
}

TEST_CASE("an infinite sweep parameter is \"inf\", a load level, not a number JSON writes as null", "[hostile][fuzz]") {
    // fuzz_sweep_csv: max_num_seqs = inf became a double infinity in the run's parameters.
    CHECK(detail::param_number(std::numeric_limits<double>::infinity()) == "inf");
    CHECK(detail::param_number(-std::numeric_limits<double>::infinity()) == "-inf");
    const auto table = write_file("inf_seqs.csv", "label,workload,concurrency,max_num_seqs,ok,fail,rps,p99_s\n"
                                                  "A,mix,1,16,10,0,1.0,0.5\nA,mix,64,inf,10,0,9.5,2.5\n");
    const auto runs = read_runs(table);
    REQUIRE(runs.size() == 2);
    CHECK(runs[1].meta.params.at("max_num_seqs") == "inf");
    CHECK(runs[1].meta.params.dump().find("null") == std::string::npos);
}

TEST_CASE("a CSV file read from disk skips one BOM, as the same text read in memory does", "[hostile][fuzz]") {
    // fuzz_csv: the file reader skipped a BOM after the opener had skipped one; text in memory, one.
    const std::string bytes = "\xEF\xBB\xBF\xEF\xBB\xBFk\n1\n";
    const auto path = write_file("two_boms.csv", bytes);
    detail::csv_reader from_file(path, 512, 3);
    detail::csv_reader in_memory(std::string_view(bytes), path.string(), 512);
    from_file.read_header();
    in_memory.read_header();
    CHECK(from_file.header() == std::vector<std::string>{"\xEF\xBB\xBFk"});
    CHECK(in_memory.header() == from_file.header());
}

} // namespace test_hostile_input
