// Python's json writes NaN, Infinity and -Infinity as bare words. Every JSON reader reads such a
// file: NaN as missing with a note, Infinity as unbounded (a rate) or, where a finite number is
// needed, refused for that field only. The JSON Lines hot path (simdjson) is not among them.
#include "servestat/ingest/json_document.hpp"

#include <cmath>      // std::isinf
#include <filesystem> // std::filesystem::path
#include <string>     // std::string
#include <vector>     // std::vector

#include "servestat/ingest/aiperf_summary.hpp"  // aiperf_summary_format
#include "servestat/ingest/burstgpt_detail.hpp" // burstgpt_detail_format
#include "servestat/ingest/genai_perf.hpp"      // genai_perf_format
#include "servestat/ingest/guidellm.hpp"        // guidellm_format

#include "format_reading.hpp" // test::has_note, test::read_error
#include "temp_file.hpp"
#include <catch2/catch.hpp>  // TEST_CASE, REQUIRE, CHECK
#include <nlohmann/json.hpp> // nlohmann::json

namespace test_nonfinite_json { // the unity build compiles several test files as one: each keeps its names

using namespace servestat;
using servestat::test::has_note;

namespace {

const std::filesystem::path data = SERVESTAT_TEST_DATA_DIR;
const std::filesystem::path shared = SERVESTAT_SHARED_DATA_DIR;

// The file with Python's words added as members of its top-level object (which every reader
// here ignores as unknown keys), so only the words themselves are tested.
std::string with_probes(const std::filesystem::path& file) {
    std::string text = detail::read_json_file(file);
    const auto brace = text.find('{');
    text.insert(brace + 1, R"("servestat_probe": NaN, "rate_probe": Infinity, "floor_probe": -Infinity, )");
    return text;
}

void check_probes_noted(const run& r) {
    CHECK(has_note(r, "NaN in field servestat_probe read as missing"));
    CHECK(has_note(r, "Infinity in field rate_probe read as unbounded"));
    CHECK(has_note(r, "-Infinity in field floor_probe"));
}

} // namespace

TEST_CASE("parse_json_documents reads NaN as null and ±Infinity as ±inf, outside strings only") {
    const std::string text = R"({"a": NaN, "b": [1, Infinity, -Infinity], "c": "NaN Infinity", "d": null, "e": NaN})";
    const auto docs = detail::parse_json_documents("x.json", text);
    const nlohmann::json& v = docs.front().value;
    CHECK(v["a"].is_null());
    CHECK(v["d"].is_null());
    CHECK(v["e"].is_null());
    CHECK(std::isinf(v["b"][1].get<double>()));
    CHECK(v["b"][1].get<double>() > 0);
    CHECK(v["b"][2].get<double>() < 0);
    CHECK(v["c"] == "NaN Infinity");
    const auto& notes = docs.front().place.nonfinite_notes();
    REQUIRE(notes.size() == 4);
    CHECK(notes[0] == "NaN in field a read as missing");
    CHECK(notes[1].starts_with("Infinity in field b[1] read as unbounded"));
    CHECK(notes[3] == "NaN in field e read as missing");
    // a required number that was NaN says so
    try {
        detail::json_number(v["a"], docs.front().place, "a");
        FAIL("NaN read as a number");
    } catch (const input_error& e) {
        CHECK(e.reason() == "expected a number, got null (the file has NaN here, Python's not-a-number)");
    }
    // Infinity where a finite number is needed: refused for that field, by name
    try {
        detail::json_number(v["b"][1], docs.front().place, "b[1]");
        FAIL("Infinity read as a finite number");
    } catch (const input_error& e) {
        CHECK(e.reason() == "Infinity where a finite number is required");
    }
    CHECK_FALSE(detail::json_optional_number(&v["b"][1], docs.front().place, "b[1]"));
    CHECK(detail::param_number(v["b"][1].get<double>()) == "inf");
}

TEST_CASE("many non-finite fields: the first few named, the rest counted") {
    const auto docs = detail::parse_json_documents("x.json", "[NaN, NaN, NaN, NaN, NaN, NaN, NaN]");
    const auto& notes = docs.front().place.nonfinite_notes();
    REQUIRE(notes.size() == 6);
    CHECK(notes[5] == "2 more fields hold NaN or Infinity (Python's json writes them): read the same way");
}

TEST_CASE("a syntax error after Python's words keeps its true line and column") {
    // NaN is as long as 1.0: the same error at the same column either way (NaN is parsed as null,
    // one byte longer, and the column mapped back).
    auto error_of = [](const char* text) -> std::string {
        try {
            detail::parse_json_documents("x.json", text);
        } catch (const input_error& e) {
            return e.what();
        }
        return "accepted";
    };
    const std::string with_nan = error_of("{\"a\": NaN, \"b\": NaN, \"c\": tru}");
    CHECK(with_nan == error_of("{\"a\": 1.0, \"b\": 2.0, \"c\": tru}"));
    CHECK(with_nan.find("x.json:1: malformed JSON at column 30") == 0);
    // a word that only starts like one is not read as it
    CHECK_THROWS_AS(detail::parse_json_documents("x.json", "{\"a\": NaNa}"), input_error);
    CHECK_THROWS_AS(detail::parse_json_documents("x.json", "{\"a\": Infinityx}"), input_error);
}

TEST_CASE("GuideLLM: NaN and Infinity no longer refuse the file") {
    const test::temp_file f(with_probes(data / "guidellm" / "benchmarks_v0.2.json"), "benchmarks.json");
    const auto runs = guidellm_format.read(f.path(), {});
    REQUIRE_FALSE(runs.empty());
    check_probes_noted(runs.front());
}

TEST_CASE("GenAI-Perf: NaN and Infinity no longer refuse the file") {
    const test::temp_file f(with_probes(data / "genai_perf" / "chat_streaming.json"), "profile_export.json");
    const auto runs = genai_perf_format.read(f.path(), {});
    REQUIRE_FALSE(runs.empty());
    check_probes_noted(runs.front());
}

TEST_CASE("AIPerf's summary: NaN and Infinity no longer refuse the file") {
    const test::temp_file f(with_probes(shared / "aiperf-example" / "run1" / "profile_export_aiperf.json"),
                            "profile_export_aiperf.json");
    const auto runs = aiperf_summary_format.read(f.path(), {});
    REQUIRE_FALSE(runs.empty());
    check_probes_noted(runs.front());
}

TEST_CASE("BurstGPT's detail log: a NaN in an informative field is missing with a note") {
    std::string text = detail::read_json_file(data / "burstgpt" / "detail_log_scale250_prompt4.json");
    text.replace(text.find("\"GPU_utilization\": 80"), 21, "\"GPU_utilization\": NaN");
    const test::temp_file f(text, "detail_log_scale250_prompt4.json");
    const auto runs = burstgpt_detail_format.read(f.path(), {});
    REQUIRE(runs.size() == 1);
    CHECK(has_note(runs.front(), "NaN in field 10.GPU_utilization read as missing"));
}

} // namespace test_nonfinite_json
