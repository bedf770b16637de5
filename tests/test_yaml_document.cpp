// Tests for servestat/ingest/yaml_document.hpp: a YAML document becomes the nlohmann::json value
// its JSON form gives (YAML 1.2 core schema scalars, exact numbers, resolved aliases), and bad or
// hostile YAML becomes an input_error naming the file, the line and the field.
#include "servestat/ingest/yaml_document.hpp"

#include <cmath>       // std::isinf, std::isnan
#include <string>      // std::string
#include <string_view> // std::string_view

#include <nlohmann/json.hpp> // nlohmann::json

#include <catch2/catch.hpp> // TEST_CASE, CHECK, REQUIRE

namespace test_yaml_document { // the unity build compiles several test files as one: each keeps its names
using servestat::input_error;
using namespace servestat::detail;

nlohmann::json yaml(std::string_view text, const yaml_non_finite& non_finite = {}) {
    return parse_yaml_document("report.yaml", text, non_finite).value;
}

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

TEST_CASE("YAML's .inf and .nan are doubles, or what the reader's JSON form makes of Infinity and NaN", "[yaml]") {
    const auto kept = yaml("a: .inf\nb: -.Inf\nc: .NaN\nd: '.inf'\n");
    CHECK(std::isinf(kept["a"].get<double>()));
    CHECK(kept["a"].get<double>() > 0);
    CHECK(kept["b"].get<double>() < 0);
    CHECK(std::isnan(kept["c"].get<double>()));
    CHECK(kept["d"] == ".inf");
    const auto strings = yaml("a: .inf\nb: -.inf\nc: .nan\n", yaml_non_finite_as_inf_strings());
    CHECK(strings == nlohmann::json::parse(R"({"a": "inf", "b": "-inf", "c": null})"));
    const auto nulls = yaml("a: .inf\nc: .nan\n", yaml_non_finite_as_null());
    CHECK(nulls == nlohmann::json::parse(R"({"a": null, "c": null})"));
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
    const auto very_deep = yaml_error(std::string(100000, '[') + std::string(100000, ']'));
    CHECK(!very_deep.reason().empty());
    std::string block;
    for (int i = 0; i < 400; ++i) block += std::string(static_cast<std::size_t>(i), ' ') + "k:\n";
    CHECK(yaml_error(block).reason().find("nested deeper") != std::string::npos);
    // A billion laughs: nine levels of ten aliases each.
    std::string bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
    for (char c = 'b'; c <= 'j'; ++c) {
        const char prev = static_cast<char>(c - 1);
        bomb += std::string(1, c) + ": &" + c + " [";
        for (int i = 0; i < 10; ++i) bomb += std::string(i ? ", *" : "*") + prev;
        bomb += "]\n";
    }
    CHECK(yaml_error(bomb).reason().find("aliases expand the document") != std::string::npos);
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
