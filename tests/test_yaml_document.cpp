// Tests for servestat/ingest/yaml_document.hpp: a YAML document becomes the nlohmann::json value
// its JSON form gives (YAML 1.2 core schema scalars, exact numbers, resolved aliases), and bad or
// hostile YAML becomes an input_error naming the file, the line and the field.
#include "servestat/ingest/yaml_document.hpp"

#include <cmath>       // std::isinf
#include <string>      // std::string
#include <string_view> // std::string_view
#include <vector>      // std::vector

#include <nlohmann/json.hpp> // nlohmann::json

#include <catch2/catch.hpp> // TEST_CASE, CHECK, REQUIRE

namespace test_yaml_document { // the unity build compiles several test files as one: each keeps its names
using servestat::input_error;
using namespace servestat::detail;

nlohmann::json yaml(std::string_view text) { return parse_yaml_document("report.yaml", text).value; }

// The error a text raises, for its line, field and reason.
input_error yaml_error(std::string_view text) {
    try {
        (void)parse_yaml_documents("report.yaml", text);
    } catch (const input_error& e) {
        return e;
    }
    FAIL("no error for: " << text);
    return input_error("", 0, "", "");
}

TEST_CASE("YAML scalars take the YAML 1.2 core schema's types", "[yaml]") {
    const auto v = yaml("a: 1\nb: -7\nc: 2.5\nd: true\ne: False\nf: ~\ng: null\nh:\ni: '12'\nj: \"true\"\n"
                        "k: text\nl: 0x1F\nm: 0o17\nn: +3\no: 1e3\np: .5\nq: 1.\nr: yes\ns: 2001-12-14\n");
    CHECK(v["a"].is_number_unsigned());
    CHECK(v["a"] == 1);
    CHECK(v["b"].is_number_integer());
    CHECK(v["b"] == -7);
    CHECK(v["c"].is_number_float());
    CHECK(v["c"] == 2.5);
    CHECK(v["d"] == true);
    CHECK(v["e"] == false);
    CHECK(v["f"].is_null());
    CHECK(v["g"].is_null());
    CHECK(v["h"].is_null());
    CHECK(v["i"] == "12"); // quoted: a string, whatever it spells
    CHECK(v["j"] == "true");
    CHECK(v["k"] == "text");
    CHECK(v["l"] == 31);
    CHECK(v["m"] == 15);
    CHECK(v["n"] == 3);
    CHECK(v["o"].is_number_float());
    CHECK(v["o"] == 1000.0);
    CHECK(v["p"] == 0.5);
    CHECK(v["q"] == 1.0);
    CHECK(v["r"] == "yes");        // YAML 1.1's boolean words are strings in 1.2
    CHECK(v["s"] == "2001-12-14"); // no timestamp type in the core schema
}

TEST_CASE("YAML numbers are the same doubles and integer types as the same JSON numbers", "[yaml]") {
    // Digits past a double's precision, a subnormal, 20-digit integers and numbers whose nearest
    // double a naive digit-by-digit parse gets wrong.
    for (const std::string text :
         {"0.30000044444444444444444444", "1753051227.9282181", "27.609338631501068", "4.9e-324", "1e-400",
          "2.2250738585072011e-308", "123456789012345678901", "18446744073709551615", "18446744073709551616",
          "-9223372036854775808", "-9223372036854775809", "0.1", "1E+2", "9007199254740993", "-0.0", "5e-324"}) {
        const nlohmann::json from_json = nlohmann::json::parse("{\"x\": " + text + "}")["x"];
        const nlohmann::json from_yaml = yaml("x: " + text + "\n")["x"];
        INFO(text);
        CHECK(from_yaml.type() == from_json.type());
        CHECK(from_yaml.dump() == from_json.dump());
        if (from_json.is_number_float()) CHECK(from_yaml.get<double>() == from_json.get<double>());
    }
}

TEST_CASE("YAML's .inf and .nan are what the JSON form's Infinity and NaN are, and noted", "[yaml]") {
    // As parse_json_documents reads Python's words: ±infinity kept, NaN null, each noted.
    const auto doc = parse_yaml_document("report.yaml", "a: .inf\nb: -.Inf\nc: .NaN\nd: '.inf'\n");
    const auto& kept = doc.value;
    CHECK(std::isinf(kept["a"].get<double>()));
    CHECK(kept["a"].get<double>() > 0);
    CHECK(kept["b"].get<double>() < 0);
    CHECK(kept["c"].is_null());
    CHECK(kept["d"] == ".inf");
    CHECK(doc.place.nonfinite_notes() ==
          std::vector<std::string>{
              "Infinity in field a read as unbounded where the value may be (a rate), else as missing",
              "-Infinity in field b read as unbounded where the value may be (a rate), else as missing",
              "NaN in field c read as missing"});
    CHECK(parse_yaml_document("report.yaml", "a: 1.5\n").place.nonfinite_notes().empty());
}

TEST_CASE("YAML tags, block scalars, anchors, aliases and merge keys", "[yaml]") {
    const auto v = yaml("a: !!str 12\nb: !!float 3\nc: |\n  two\n  lines\nbase: &base {x: 1, y: 2}\n"
                        "copy: *base\nmerged:\n  <<: *base\n  y: 5\nlist: &l [1, 2]\nagain: *l\n");
    CHECK(v["a"] == "12");
    CHECK(v["b"].is_number_float());
    CHECK(v["b"] == 3.0);
    CHECK(v["c"] == "two\nlines\n");
    CHECK(v["copy"] == v["base"]);
    CHECK(v["merged"] == nlohmann::json::parse(R"({"x": 1, "y": 5})"));
    CHECK(v["again"] == nlohmann::json::array({1, 2}));
    CHECK(yaml_error("a: !!int abc\n").line() == 1);
}

TEST_CASE("A YAML stream's documents, and a report file's single one", "[yaml]") {
    const auto documents = parse_yaml_documents("s.yaml", "---\na: 1\n---\nb: 2\n---\n");
    REQUIRE(documents.size() == 2);
    CHECK(documents[0].place.line == 2);
    CHECK(documents[1].place.line == 4);
    CHECK(documents[1].value["b"] == 2);
    const auto e = yaml_error("");
    CHECK(std::string(e.what()).find("empty file") != std::string::npos);
    try {
        (void)parse_yaml_document("s.yaml", "a: 1\n---\nb: 2\n");
        FAIL("a second document was accepted");
    } catch (const input_error& two) {
        CHECK(two.line() == 3);
        CHECK(two.reason().find("more than one YAML document") != std::string::npos);
    }
}

TEST_CASE("Malformed YAML names its line and column", "[yaml]") {
    const auto e = yaml_error("a: 1\nb: [1, 2\nc: 3\n");
    CHECK(e.file() == "report.yaml");
    CHECK(e.line() >= 2);
    CHECK(e.reason().starts_with("malformed YAML at column "));
    const auto tab = yaml_error("a:\n\tb: 1\n");
    CHECK(tab.line() == 2);
    const auto key = yaml_error("? [1, 2]\n: x\n");
    CHECK(key.reason().find("not a scalar") != std::string::npos);
    const auto range = yaml_error("a:\n  b: 1e999\n");
    CHECK(range.line() == 2);
    CHECK(range.field() == "a.b");
}

TEST_CASE("Hostile YAML: deep nesting and alias bombs are refused, not followed", "[yaml][hostile]") {
    // Flow and block nesting past max_json_depth, and far past yaml-cpp's own limit (2000).
    const auto flow = yaml_error(std::string(300, '[') + std::string(300, ']'));
    CHECK(flow.reason().find("nested deeper than 256 levels") != std::string::npos);
    // Past yaml-cpp's own limit (500 levels of its recursion), which it calls only "bad file".
    const auto very_deep = yaml_error(std::string(100000, '[') + std::string(100000, ']'));
    CHECK(very_deep.reason() == "nested deeper than 256 levels");
    CHECK(very_deep.line() == 1);
    std::string block;
    for (int i = 0; i < 400; ++i) block += std::string(static_cast<std::size_t>(i), ' ') + "k:\n";
    CHECK(yaml_error(block).reason().find("nested deeper") != std::string::npos);
    for (int i = 400; i < 3000; ++i) block += std::string(static_cast<std::size_t>(i), ' ') + "k:\n";
    CHECK(yaml_error(block).reason() == "nested deeper than 256 levels");
    // A billion laughs: nine levels of ten aliases each.
    std::string bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
    for (char c = 'b'; c <= 'j'; ++c) {
        const char prev = static_cast<char>(c - 1);
        bomb += std::string(1, c) + ": &" + c + " [";
        for (int i = 0; i < 10; ++i) bomb += std::string(i ? ", *" : "*") + prev;
        bomb += "]\n";
    }
    CHECK(yaml_error(bomb).reason().starts_with("aliases expand the document to more than "));
    // An alias inside its own anchor's node (a cycle) ends at the depth limit.
    CHECK(!yaml_error("a: &a [*a]\n").reason().empty());
    // A mapping that merges itself: found by fuzz_yaml_document, which overflowed the stack.
    CHECK(yaml_error("base: &b \n  <<: *b\n;  y: 3\n").reason().find("nested deeper") != std::string::npos);
    CHECK(yaml_error("a: &b {<<: *b, k: 1}\n").reason().find("nested deeper") != std::string::npos);
}

TEST_CASE("A token that can start no YAML value ends the read with an error, not an endless stream", "[yaml][fuzz]") {
    // Found by fuzz_yaml_document: yaml-cpp 0.7 yields an empty document for a stray ',' or ']'
    // without moving past it, so YAML::LoadAll ran forever.
    for (const std::string_view text : {",  2]\n;:complex kex ey\n", "a: 1\n]\n", "]"}) {
        INFO(text);
        const auto e = yaml_error(text);
        CHECK(e.reason().starts_with("malformed YAML"));
    }
}

// A string of `n` x's, quoted, and a list of `aliases` aliases to it: "big: &big \"xx…\"\nrefs: [*big, …]\n".
std::string aliased_scalar(std::size_t n, std::size_t aliases) {
    std::string text = "big: &big \"" + std::string(n, 'x') + "\"\nrefs: [";
    for (std::size_t i = 0; i < aliases; ++i) text += i ? ", *big" : "*big";
    return text + "]\n";
}

TEST_CASE("Hostile YAML: a large value aliased many times is refused by the bytes it expands to", "[yaml][hostile]") {
    // A 1 MiB scalar aliased 200 times: 1,049,796 bytes of YAML (11 + 1,048,576 + 9 + 200 aliases of 6
    // bytes), so the budget is 64 × 1,049,796 + 64 MiB = 134,295,808 bytes. The map, the key "big", the
    // scalar, the key "refs" and the list spend 16 + 35 + (16 + 32 + 1,048,576) + 36 + 16 = 1,048,727;
    // each alias 1,048,624 more. The 128th alias (refs[127]) passes the budget: 1,048,727 + 128 ×
    // 1,048,624 = 135,272,599.
    const std::string text = aliased_scalar(std::size_t{1} << 20, 200);
    REQUIRE(text.size() == 1049796);
    const auto e = yaml_error(text);
    CHECK(e.field() == "refs[127]");
    CHECK(e.line() == 1); // yaml-cpp's alias is its anchor's node: the line of the value copied
    CHECK(e.reason().starts_with("aliases expand the document to more than 134295808 bytes"));
    // A few aliases of a large value are fine.
    CHECK(yaml(aliased_scalar(std::size_t{1} << 20, 3))["refs"].size() == 3);
}

TEST_CASE("Hostile YAML: a stream's documents share one budget, and a report's second document is not converted",
          "[yaml][hostile]") {
    // Two documents, each a 1 MiB scalar aliased 100 times: each alone spends about 101 MiB of the
    // stream's 64 × 2.1 MB + 64 MiB (about 192 MiB), so only the second passes it.
    const std::string one = aliased_scalar(std::size_t{1} << 20, 100);
    const auto e = yaml_error(one + "---\n" + one);
    CHECK(e.line() == 4); // the second document's anchored scalar
    CHECK(e.field().starts_with("refs["));
    CHECK(e.reason().starts_with("aliases expand the document to more than "));
    // A report file holds one document: a second is refused where it starts, before its own
    // errors (here a value that is not an integer) could be reached.
    try {
        (void)parse_yaml_document("s.yaml", "a: 1\n---\nb: !!int abc\n");
        FAIL("a second document was accepted");
    } catch (const input_error& two) {
        CHECK(two.line() == 3);
        CHECK(two.reason() == "more than one YAML document in the file (a second starts here)");
    }
}

TEST_CASE("Hostile YAML: a file over the YAML cap is refused before parsing, with the JSON way out", "[yaml][hostile]") {
    const std::string text(max_yaml_bytes + 1, '#'); // 128 MiB and a byte: 129 MiB rounded up
    const auto e = yaml_error(text);
    CHECK(e.line() == 0);
    CHECK(e.reason() == "YAML file of 129 MiB: YAML is read at most 128 MiB (converting it takes 15 to 75 times "
                        "its size in memory); write the report as JSON instead (GuideLLM: --outputs json), which is "
                        "read up to 1 GiB");
}

TEST_CASE("Many empty YAML documents are refused once, in their own words", "[yaml]") {
    std::string stream;
    for (int i = 0; i < 5000; ++i) stream += "---\n";
    const auto e = yaml_error(stream);
    CHECK(e.line() == 1001); // the 1001st document starts on line 1001
    CHECK(e.reason() == "more than 1000 YAML documents (a report file holds one)");
    CHECK(std::string(e.what()) == "report.yaml:1001: more than 1000 YAML documents (a report file holds one)");
    // A parser stuck on a stray token is told apart: its next document starts where the last did.
    CHECK(yaml_error(",  2]\n").reason() == "malformed YAML at column 1: a token that can start no YAML value "
                                            "(a stray ']' or ',')");
}

TEST_CASE("YAML whose lines end in CR alone reads as with LF", "[yaml]") {
    const auto v = yaml("a: 1\rb: two\rc: |\r  x\r  y\rd: [1,\r  2]\r");
    CHECK(v == nlohmann::json::parse(R"({"a": 1, "b": "two", "c": "x\ny\n", "d": [1, 2]})"));
    CHECK(yaml("a: 1\r\nb: 2\r\n") == nlohmann::json::parse(R"({"a": 1, "b": 2})")); // CRLF as before
    const auto range = yaml_error("a: 1\rb:\r  c: 1e999\r");
    CHECK(range.line() == 3);
    CHECK(range.field() == "b.c");
}

TEST_CASE("An error a reader raises on a YAML document moves to the line of the field it names", "[yaml]") {
    const auto doc = parse_yaml_document("r.yaml", "version: 1\nbenchmarks:\n- id: 1\n  timings:\n    start: 5\n"
                                                   "    p99.9: 2\n- id: 2\n");
    const auto moved = [&](const std::string& field) {
        return at_yaml_field_line(input_error("r.yaml", doc.place.line, field, "bad"), doc).line();
    };
    CHECK(moved("benchmarks[0].timings.start") == 5);
    CHECK(moved("benchmarks[0].timings.p99.9") == 6);
    CHECK(moved("benchmarks[1].id") == 7);
    CHECK(moved("benchmarks[1].missing") == 7); // the deepest node the path reaches
    CHECK(moved("version") == 1);
    // Errors already placed elsewhere, or naming no field, keep their line.
    CHECK(at_yaml_field_line(input_error("r.yaml", 4, "version", "bad"), doc).line() == 4);
    CHECK(at_yaml_field_line(input_error("r.yaml", 1, "", "bad"), doc).line() == 1);
}

TEST_CASE("Block YAML heads and their top-level keys", "[yaml]") {
    CHECK(looks_like_block_yaml("version: '0.2.1'\n"));
    CHECK_FALSE(looks_like_block_yaml("  {\"a\": 1}"));
    CHECK(yaml_has_top_key("results:\n  x: 1\nrun:\n", "run"));
    CHECK_FALSE(yaml_has_top_key("results:\n  run: 1\n", "run"));
}

} // namespace test_yaml_document
