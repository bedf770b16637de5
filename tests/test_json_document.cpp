// Tests for servestat/ingest/json_document.hpp: whole-document JSON with located errors.
#include "servestat/ingest/json_document.hpp"

#include <string> // std::string

#include "temp_file.hpp"

#include <catch2/catch.hpp> // TEST_CASE, CHECK, REQUIRE

namespace test_json_document { // the unity build compiles several test files as one: each keeps its names

using servestat::input_error;
using servestat::detail::json_place;
using servestat::detail::read_json_documents;
using servestat::test::temp_file;

namespace {

input_error error_reading(const std::string& text) {
    const temp_file file(text, "result.json");
    try {
        read_json_documents(file.path());
    } catch (const input_error& e) {
        return e;
    }
    FAIL("no input_error was thrown");
    throw;
}

} // namespace

TEST_CASE("objects one per line are separate documents, each with its starting line") {
    const temp_file file("{\"a\": 1}\n\n{\"b\": [1, 2,\n 3]}\n", "result.json");
    const auto documents = read_json_documents(file.path());
    REQUIRE(documents.size() == 2);
    CHECK(documents[0].place.line == 1);
    CHECK(documents[1].place.line == 3);
    CHECK(documents[1].value["b"].size() == 3);
}

TEST_CASE("brackets inside strings do not end a document") {
    const temp_file file(R"({"text": "a } ] \" {"} [1])", "result.json");
    const auto documents = read_json_documents(file.path());
    REQUIRE(documents.size() == 2);
    CHECK(documents[0].value["text"] == "a } ] \" {");
}

TEST_CASE("a truncated document names its line and says it may be truncated") {
    const auto e = error_reading("{\"a\": 1}\n{\"b\": [1, 2");
    CHECK(e.line() == 2);
    CHECK_THAT(e.what(), Catch::Contains("truncated"));
}

TEST_CASE("a syntax error names line and column") {
    const auto e = error_reading("{\"a\": 1,\n \"b\": x}");
    CHECK(e.line() == 2);
    CHECK_THAT(e.what(), Catch::Contains("column 7"));
}

TEST_CASE("text between documents is an error, as is an empty file") {
    CHECK(error_reading("{\"a\": 1} trailing").line() == 1);
    CHECK_THAT(error_reading("  \n").what(), Catch::Contains("empty file"));
}

TEST_CASE("typed field access names the JSON path") {
    const json_place place{"run.json", 4};
    const nlohmann::json v = nlohmann::json::parse(R"({"ttfts": [0.1, "x"], "n": "550", "neg": -1})");
    CHECK(servestat::detail::json_number(v["ttfts"][0], place, "ttfts[0]") == 0.1);
    try {
        servestat::detail::json_number(v["ttfts"][1], place, "ttfts[1]");
        FAIL("no error");
    } catch (const input_error& e) {
        CHECK(e.field() == "ttfts[1]");
        CHECK(e.line() == 4);
        CHECK_THAT(e.what(), Catch::Contains("expected a number, got string"));
    }
    CHECK(servestat::detail::json_count(v["n"], place, "n", true) == 550);
    CHECK_THROWS_AS(servestat::detail::json_count(v["n"], place, "n"), input_error);
    CHECK_THROWS_AS(servestat::detail::json_duration(v["neg"], place, "neg"), input_error);
    CHECK_THROWS_WITH(servestat::detail::json_require(v, "missing", place, "runs[0]"),
                      Catch::Contains("'runs[0].missing'"));
}

TEST_CASE("nesting deeper than any tool writes is refused before parsing") {
    const std::string deep = "{\"a\": " + std::string(100000, '[') + std::string(100000, ']') + "}";
    const auto e = error_reading(deep);
    CHECK(e.line() == 1);
    CHECK_THAT(e.what(), Catch::Contains("nested deeper than 256 levels"));
    const std::string fine = "{\"a\": " + std::string(200, '[') + std::string(200, ']') + "}";
    const temp_file file(fine, "result.json");
    CHECK(read_json_documents(file.path()).size() == 1);
}

TEST_CASE("a number beyond a double is an input error with the file and line") {
    const auto e = error_reading("{\"a\": 1}\n{\"ttft_s\": 1e400}");
    CHECK(e.line() == 2);
    CHECK_THAT(e.what(), Catch::Contains("result.json:2") && Catch::Contains("1e400"));
    // Its column too: the first 1e400 outside a string ("x 1e400" is text).
    const auto placed = error_reading("{\"note\": \"x 1e400\", \"a\": 2,\n \"ttft_s\": [1, 1e400]}");
    CHECK(placed.line() == 2);
    CHECK(placed.reason() == "malformed JSON at column 16: number 1e400 is out of the range of a double");
}

} // namespace test_json_document
