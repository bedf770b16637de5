// Text that is not plain UTF-8 JSON (reliability findings M7, M8, L10, L11, L12): files in UTF-16 or
// UTF-32 are refused naming their encoding; lone surrogate escapes and bytes that are not UTF-8 in a
// canonical log are read as U+FFFD with a note; Python's NaN and Infinity in a log header's params and
// exponents with leading zeros are read.
#include <filesystem>  // std::filesystem
#include <fstream>     // std::ofstream
#include <string>      // std::string
#include <string_view> // std::string_view
#include <vector>      // std::vector

#include <catch2/catch.hpp> // TEST_CASE, CHECK, REQUIRE, CHECK_THROWS_WITH

#include <nlohmann/json.hpp> // nlohmann::json

#include "servestat/ingest/canonical_jsonl.hpp" // detail::canonical_line_parser
#include "servestat/ingest/detect.hpp"          // read_runs, read_logs
#include "servestat/ingest/input_file.hpp"      // detail::utf16_or_utf32
#include "servestat/ingest/json_document.hpp"   // detail::parse_json_text, detail::lone_surrogate_escapes
#include "servestat/ingest/json_number.hpp"     // detail::json_number
#include "temp_file.hpp"

namespace test_text_encodings { // the unity build compiles several test files as one: each keeps its names

namespace {

using namespace servestat;
using servestat::test::temp_file;
using Catch::Matchers::Contains;

constexpr std::string_view replacement = "\xEF\xBF\xBD"; // U+FFFD in UTF-8

const std::string header = R"({"servestat":"log","version":1,"run":{"label":"x"}})";

std::string canonical(std::initializer_list<std::string_view> lines) {
    std::string out = header + "\n";
    for (auto line : lines) out.append(line).append("\n");
    return out;
}

// ASCII text as UTF-16 or UTF-32 writes it: each character in 2 or 4 bytes, the NULs before it (big
// endian) or after it (little endian).
std::string widened(std::string_view ascii, std::size_t width, bool big_endian) {
    std::string out;
    for (const char c : ascii) {
        if (big_endian) out.append(width - 1, '\0').push_back(c);
        else out.append(1, c).append(width - 1, '\0');
    }
    return out;
}

bool has_note(const run& r, std::string_view words) {
    for (const auto& note : r.meta.notes)
        if (note.find(words) != std::string::npos) return true;
    return false;
}

} // namespace

// ---- M7: UTF-16 and UTF-32 -------------------------------------------------------------------------

TEST_CASE("UTF-16 and UTF-32 are told by their byte-order mark, or by the NULs around ASCII characters", "[encoding]") {
    using detail::utf16_or_utf32;
    using namespace std::string_view_literals;
    CHECK(utf16_or_utf32("\xFF\xFE{\0"sv)->name == "UTF-16LE");
    CHECK(utf16_or_utf32("\xFF\xFE{\0"sv)->bom == "FF FE");
    CHECK(utf16_or_utf32("\xFE\xFF\0{"sv)->name == "UTF-16BE");
    CHECK(utf16_or_utf32("\xFF\xFE\0\0"sv)->name == "UTF-32LE"); // not UTF-16LE starting with U+0000
    CHECK(utf16_or_utf32("\0\0\xFE\xFF"sv)->name == "UTF-32BE");
    CHECK(utf16_or_utf32("{\0\"\0"sv)->name == "UTF-16LE");
    CHECK(utf16_or_utf32("{\0\"\0"sv)->bom.empty());
    CHECK(utf16_or_utf32("\0{\0\""sv)->name == "UTF-16BE");
    CHECK(utf16_or_utf32("{\0\0\0\"\0\0\0"sv)->name == "UTF-32LE");
    CHECK(utf16_or_utf32("\0\0\0{\0\0\0\""sv)->name == "UTF-32BE");
    CHECK_FALSE(utf16_or_utf32("{\0\0\0\0\0\0\0"sv)); // a brace, then zeros: binary data
    CHECK_FALSE(utf16_or_utf32("{\"a\""sv));        // UTF-8
    CHECK_FALSE(utf16_or_utf32("\xEF\xBB\xBF{"sv)); // UTF-8 with its BOM
    CHECK_FALSE(utf16_or_utf32("\0\0\0\0"sv));      // zeros: binary data, no text
    CHECK_FALSE(utf16_or_utf32("{\0"sv));           // too short to tell
    CHECK_FALSE(utf16_or_utf32("{\0\0\0"sv));
}

TEST_CASE("a canonical log saved by PowerShell 5 (UTF-16LE with a BOM) is refused naming its encoding", "[encoding]") {
    const std::string text = canonical({R"({"t_sent":0,"t_end":1,"status":"ok"})"});
    const temp_file log("\xFF\xFE" + widened(text, 2, false), "run.jsonl");
    const std::string says = "run.jsonl: UTF-16LE text (a byte-order mark FF FE): servestat reads UTF-8; save it as "
                             "UTF-8, e.g. `iconv -f UTF-16 -t UTF-8`";
    CHECK_THROWS_WITH(read_runs(log.path()), Contains(says)); // was "binary data, not a request log"
    // A forced format opens the file itself, and every reader opens it the same way.
    CHECK_THROWS_WITH(read_runs(log.path(), {.input_format = "servestat"}), Contains(says));
    CHECK_THROWS_WITH(read_runs(log.path(), {.input_format = "guidellm"}), Contains(says));
}

TEST_CASE("UTF-16BE without a BOM and UTF-32 are refused with the name iconv knows them by", "[encoding]") {
    const std::string text = canonical({R"({"t_sent":0,"t_end":1,"status":"ok"})"});
    const temp_file utf16be(widened(text, 2, true), "be.jsonl");
    CHECK_THROWS_WITH(read_runs(utf16be.path()),
                      Contains("UTF-16BE text (no byte-order mark: NUL bytes between its characters)") &&
                          Contains("iconv -f UTF-16BE -t UTF-8"));
    const temp_file utf32("\xFF\xFE" + std::string(2, '\0') + widened(text, 4, false), "wide.json");
    CHECK_THROWS_WITH(read_runs(utf32.path()), Contains("UTF-32LE text (a byte-order mark FF FE 00 00)") &&
                                                   Contains("iconv -f UTF-32 -t UTF-8"));
}

TEST_CASE("a folder passes a UTF-16 file over saying what it is, and reads the rest", "[encoding]") {
    const std::string text = canonical({R"({"t_sent":0,"t_end":1,"status":"ok"})"});
    const temp_file good(text, "good.jsonl");
    std::ofstream(good.dir() / "wide.jsonl", std::ios::binary) << "\xFF\xFE" + widened(text, 2, false);
    std::vector<passed_over_file> passed_over;
    load_options o;
    o.listed = [&](const directory_listing& listing) { passed_over = listing.passed_over; };
    const std::vector<std::string> inputs{good.dir().string()};
    CHECK(read_logs(inputs, o).size() == 1);
    REQUIRE(passed_over.size() == 1);
    CHECK_THAT(passed_over.front().path, Contains("wide.jsonl"));
    CHECK_THAT(passed_over.front().reason, Contains("UTF-16LE text (a byte-order mark FF FE)"));
}

// ---- M8, L12: lone surrogate escapes and bytes that are not UTF-8 in a canonical log ---------------

TEST_CASE("lone surrogate escapes are found; pairs and escaped backslashes are not", "[encoding]") {
    using detail::lone_surrogate_escapes;
    CHECK(lone_surrogate_escapes(R"("bad \ud800 here")") == std::vector<std::size_t>{5});
    CHECK(lone_surrogate_escapes(R"("\udfff")") == std::vector<std::size_t>{1});         // a low one alone
    CHECK(lone_surrogate_escapes(R"("\uD83D\uDE00")").empty());                          // 😀, a pair
    CHECK(lone_surrogate_escapes(R"("\ude00\ud83d")") == std::vector<std::size_t>{1, 7}); // the wrong order
    CHECK(lone_surrogate_escapes(R"("\\ud800")").empty());                               // a backslash, then text
    CHECK(lone_surrogate_escapes(R"("\\\ud800")") == std::vector<std::size_t>{3});
    CHECK(lone_surrogate_escapes(R"("\ud80)").empty()); // cut short: no escape, the parser says it is malformed
}

TEST_CASE("a lone surrogate escape in a canonical error text is read as U+FFFD, with a note", "[encoding]") {
    // What Python's json.dumps writes for a string holding broken characters (finding M8).
    const temp_file log(canonical({R"({"t_sent":0,"t_end":1,"status":"error","error":"bad \ud800 here \udfff and \ud83d"})",
                                   R"({"t_sent":0,"t_end":1,"status":"error","error":"fine \ud83d\ude00"})"}));
    const auto runs = read_runs(log.path()); // was "field 'error': expected a string"
    REQUIRE(runs.size() == 1);
    const auto& requests = runs.front().requests;
    REQUIRE(requests.size() == 2);
    CHECK(requests.error(0) == "bad " + std::string(replacement) + " here " + std::string(replacement) + " and " +
                                   std::string(replacement));
    CHECK(requests.error(1) == "fine \xF0\x9F\x98\x80");
    CHECK(has_note(runs.front(), "3 lone UTF-16 surrogate escapes (such as \\ud800 without its pair) were read as"));
    // Streamed request by request (a log larger than memory, standard input), the same.
    std::vector<std::string> streamed;
    const run streamed_run = detail::stream_canonical_log(log.path(), {}, [&](const request_record& r) { streamed.push_back(r.error); });
    CHECK(streamed == std::vector<std::string>{std::string(requests.error(0)), std::string(requests.error(1))});
    CHECK(has_note(streamed_run, "3 lone UTF-16 surrogate escapes"));
}

TEST_CASE("a bad escape in an error text is named as malformed JSON, not as a value of the wrong type", "[encoding]") {
    detail::canonical_line_parser parser;
    request_record record;
    const std::string line = R"({"t_sent":0,"t_end":1,"status":"error","error":"bad \x escape"})";
    const std::string padded = line + std::string(detail::line_source::padding, ' '); // simdjson reads past the end
    const auto problem = parser.parse_slowly({padded.data(), line.size()}, detail::line_source::padding, record);
    REQUIRE(problem);
    CHECK(problem->field == "error");
    CHECK_THAT(problem->message, Contains("malformed JSON"));
}

TEST_CASE("bytes that are not UTF-8 in a canonical request line are read as U+FFFD, with a note", "[encoding]") {
    // Finding L12's bytes: 0xFF and 0xFE start nothing, ED A0 80 encodes a surrogate, C0 AF is an
    // overlong '/'. Each bad byte is one U+FFFD, as to_valid_utf8 makes it everywhere.
    const temp_file log(canonical({"{\"t_sent\":0,\"t_end\":1,\"status\":\"error\",\"error\":\"\xff\xfe \xed\xa0\x80 \xc0\xaf\"}",
                                   R"({"t_sent":0,"t_end":2,"status":"ok"})"}));
    const auto runs = read_runs(log.path()); // was "malformed JSON (The input is not valid UTF-8)"
    REQUIRE(runs.size() == 1);
    const auto& requests = runs.front().requests;
    REQUIRE(requests.size() == 2);
    std::string expected;
    for (int k = 0; k < 2; ++k) expected += replacement;
    expected += ' ';
    for (int k = 0; k < 3; ++k) expected += replacement;
    expected += ' ';
    for (int k = 0; k < 2; ++k) expected += replacement;
    CHECK(requests.error(0) == expected);
    std::size_t utf8_notes = 0;
    for (const auto& note : runs.front().meta.notes) utf8_notes += note.find("not valid UTF-8") != std::string::npos;
    CHECK(utf8_notes == 1); // said once, though the reader and the reader entry both looked
}

TEST_CASE("a line that is bad for another reason is still refused after its text is made valid", "[encoding]") {
    const temp_file log(canonical({"{\"t_sent\":0,\"t_end\":-1,\"status\":\"error\",\"error\":\"\xff\"}"}));
    CHECK_THROWS_WITH(read_runs(log.path()), Contains(":2: field 't_end'") && Contains("negative duration"));
}

TEST_CASE("a header with bytes that are not UTF-8 or a lone surrogate escape is read, with notes", "[encoding]") {
    const temp_file log("{\"servestat\":\"log\",\"version\":1,\"run\":{\"label\":\"caf\xe9\",\"model\":\"m\\udc80\"}}\n"
                        "{\"t_sent\":0,\"t_end\":1,\"status\":\"ok\"}\n");
    const auto runs = read_runs(log.path());
    REQUIRE(runs.size() == 1);
    CHECK(runs.front().meta.label == "caf" + std::string(replacement));
    CHECK(runs.front().meta.model == "m" + std::string(replacement));
    CHECK(has_note(runs.front(), "not valid UTF-8"));
    CHECK(has_note(runs.front(), "a lone UTF-16 surrogate escape (such as \\ud800 without its pair) was read as"));
}

TEST_CASE("a lone surrogate escape in a JSON document is read as U+FFFD, its columns unchanged", "[encoding]") {
    std::size_t lone = 0;
    const auto value = detail::parse_json_text(R"({"output": "\ud800", "n": 1})", {"f.json", 1}, false, nullptr, &lone);
    CHECK(value["output"] == std::string(replacement));
    CHECK(lone == 1);
    // A syntax error after the escape is placed where it is in the file: the escape kept its six bytes.
    CHECK_THROWS_WITH(detail::parse_json_text(R"({"output": "\ud800", "n": x})", {"f.json", 1}),
                      Contains("f.json:1: malformed JSON at column 27"));
}

// ---- L10: Python's NaN and Infinity in a canonical header's params ---------------------------------

TEST_CASE("an infinite request rate in a log header is \"inf\", and NaN is missing with a note", "[encoding]") {
    const temp_file log(R"({"servestat":"log","version":1,"run":{"label":"x","params":{"request_rate":Infinity,)"
                        R"("burstiness":NaN,"concurrency":4,"range":[-Infinity,1]}}})"
                        "\n"
                        R"({"t_sent":0,"t_end":1,"status":"ok"})"
                        "\n");
    const auto runs = read_runs(log.path());
    REQUIRE(runs.size() == 1);
    const auto& params = runs.front().meta.params;
    CHECK(params["request_rate"] == "inf"); // was null, with no note
    CHECK(params["range"] == nlohmann::json::array({"-inf", 1}));
    CHECK(params["burstiness"].is_null());
    CHECK(params["concurrency"] == 4);
    CHECK(has_note(runs.front(), "NaN in field run.params.burstiness read as missing"));
    CHECK(has_note(runs.front(), "Infinity in field run.params.request_rate read as unbounded"));
}

// ---- L11: exponents with leading zeros --------------------------------------------------------------

TEST_CASE("an exponent with leading zeros is valid JSON and is read", "[encoding]") {
    double x = 0;
    CHECK(detail::json_number("5e-0000000000000000001", x) == 22);
    CHECK(x == 0.5);
    CHECK(detail::json_number("25E+00000000000000000002", x) == 24);
    CHECK(x == 2500.0);
    CHECK(detail::json_number("1e0000000000000000400", x) == 0); // still out of a double's range
    // The driver's compact lines (the fast path) and lines with spaces (simdjson's path) alike.
    const temp_file log(canonical({R"({"t_sent":0,"t_end":5e-0000000000000000001,"status":"ok"})",
                                   R"({"t_sent": 0, "t_end": 15e-0000000000000000001, "status": "ok"})"}));
    const auto runs = read_runs(log.path()); // was "Problem while parsing a number"
    REQUIRE(runs.size() == 1);
    REQUIRE(runs.front().requests.size() == 2);
    CHECK(runs.front().requests.row(0).t_end == 0.5);
    CHECK(runs.front().requests.row(1).t_end == 1.5);
}

} // namespace test_text_encodings
