// Rendering templates with a view model: values, sections, strict names with positions, escaping.
#include <catch2/catch.hpp> // Catch2 v2

#include <string> // std::string

#include "servestat/report/render.hpp"

namespace test_render { // the unity build compiles several test files as one: each keeps its names

using namespace servestat;

namespace {

std::string md(const char* text, const json& view) { return render(text, view, markup::markdown, "test.md"); }
std::string html(const char* text, const json& view) { return render(text, view, markup::html, "test.html"); }

// The message of the usage_error that rendering throws, or "" when it renders.
std::string error_of(const char* text, const json& view) {
    try {
        md(text, view);
    } catch (const usage_error& e) {
        return e.what();
    }
    return "";
}

} // namespace

TEST_CASE("a variable renders its string value", "[render]") {
    CHECK(md("Hello {{name}}!", {{"name", "world"}}) == "Hello world!");
}

TEST_CASE("a section over a list renders once per item with first, last and 1-based index", "[render]") {
    const json view = {{"runs", json::array({{{"label", "a"}}, {{"label", "b"}}, {{"label", "c"}}})}};
    CHECK(md("{{#runs}}{{index}}:{{label}}{{^last}}, {{/last}}{{/runs}}", view) == "1:a, 2:b, 3:c");
    CHECK(md("{{#runs}}{{#first}}[{{/first}}{{label}}{{#last}}]{{/last}}{{/runs}}", view) == "[abc]");
}

TEST_CASE("first, last and index already in a list item are kept", "[render]") {
    const json view = {{"items", json::array({{{"first", "one"}, {"index", "x"}}, {{"first", "two"}, {"index", "y"}}})}};
    CHECK(md("{{#items}}{{first}}{{index}}{{#last}}.{{/last}}{{/items}}", view) == "onextwoy.");
}

TEST_CASE("a section over a list of strings renders each with {{.}}", "[render]") {
    CHECK(md("{{#xs}}<{{{.}}}>{{/xs}}", {{"xs", {"a", "b"}}}) == "<a><b>");
}

TEST_CASE("an inverted section renders for false, null and an empty list, and not otherwise", "[render]") {
    const char* text = "{{^x}}none{{/x}}";
    CHECK(md(text, {{"x", false}}) == "none");
    CHECK(md(text, {{"x", nullptr}}) == "none");
    CHECK(md(text, {{"x", json::array()}}) == "none");
    CHECK(md(text, {{"x", true}}).empty());
    CHECK(md(text, {{"x", json::array({1})}}).empty());
    CHECK(md(text, {{"x", "text"}}).empty());
}

TEST_CASE("a section over true renders once, over false or null not at all", "[render]") {
    const char* text = "{{#has_errors}}errors{{/has_errors}}";
    CHECK(md(text, {{"has_errors", true}}) == "errors");
    CHECK(md(text, {{"has_errors", false}}).empty());
    CHECK(md(text, {{"has_errors", nullptr}}).empty());
}

TEST_CASE("a variable holding null renders as nothing", "[render]") {
    CHECK(md("[{{p99}}]", {{"p99", nullptr}}) == "[]");
}

TEST_CASE("a section over an object makes its members visible", "[render]") {
    CHECK(md("{{#run}}{{label}}{{/run}}", {{"run", {{"label", "bad-c32"}}}}) == "bad-c32");
}

TEST_CASE("a dotted name reaches into nested objects", "[render]") {
    const json view = {{"run", {{"stats", {{"e2e", {{"p50", "0.78 s"}}}}}}}};
    CHECK(md("{{run.stats.e2e.p50}}", view) == "0.78 s");
}

TEST_CASE("names not found in a section's item are looked up in enclosing contexts", "[render]") {
    const json view = {{"unit", "s"},
                       {"run", {{"label", "r1"}, {"rows", json::array({{{"value", "1.5"}}, {{"value", "2"}}})}}}};
    CHECK(md("{{#run}}{{#rows}}{{label}}={{value}} {{unit}};{{/rows}}{{/run}}", view) == "r1=1.5 s;r1=2 s;");
}

TEST_CASE("a dotted name is resolved through the context stack too", "[render]") {
    const json view = {{"options", {{"method", "linear"}}}, {"runs", json::array({{{"label", "a"}}})}};
    CHECK(md("{{#runs}}{{label}} {{options.method}}{{/runs}}", view) == "a linear");
}

TEST_CASE("only the part of the view a template names is converted, and it renders the same", "[render]") {
    // Binary data cannot be shown: converting it throws, so rendering proves what was converted.
    const json binary = json::binary({1, 2, 3});
    const json view = {{"title", "T"},
                       {"stats", {{"options", {{"short_max", "64"}, {"raw", binary}}}, {"runs", json::array({binary})}}},
                       {"runs", json::array({{{"label", "a"}, {"stats", {{"x", "inner"}}}}})},
                       {"unused", binary}};
    CHECK(md("{{title}} {{stats.options.short_max}}", view) == "T 64");
    // A name inside a section may resolve in the item or outward at the top: both are kept whole.
    CHECK(md("{{#runs}}{{label}} {{stats.x}} {{title}}{{/runs}}", view) == "a inner T");
    // A name used whole anywhere takes its whole value, wherever it is found.
    CHECK(error_of("{{#stats}}{{/stats}}", view).find("binary data") != std::string::npos);
    CHECK(error_of("{{#runs}}{{unused}}{{/runs}}", view).find("binary data") != std::string::npos);
}

TEST_CASE("a missing variable is an error naming template, line, column and name", "[render]") {
    const auto message = error_of("a\n  {{missing}}", json::object());
    CHECK(message == "template test.md, line 2, column 3: the view model has no 'missing'");
}

TEST_CASE("a missing triple-mustache, ampersand or dotted name is an error at its tag", "[render]") {
    CHECK(error_of("x{{{svg}}}", json::object()) == "template test.md, line 1, column 2: the view model has no 'svg'");
    CHECK(error_of("\n\n{{& svg }}", json::object()) == "template test.md, line 3, column 1: the view model has no 'svg'");
    CHECK(error_of("{{a.b}}", {{"a", {{"c", "1"}}}}) == "template test.md, line 1, column 1: the view model has no 'a.b'");
}

TEST_CASE("a missing section or inverted section name is an error", "[render]") {
    CHECK(error_of("{{#has_sweep}}x{{/has_sweep}}", json::object()) ==
          "template test.md, line 1, column 1: the view model has no 'has_sweep'");
    CHECK(error_of("ab{{^has_sweep}}x{{/has_sweep}}", json::object()) ==
          "template test.md, line 1, column 3: the view model has no 'has_sweep'");
}

TEST_CASE("a missing name inside a list item is reported at its tag", "[render]") {
    const json view = {{"runs", json::array({{{"label", "a"}}, {{"name", "b"}}})}};
    CHECK(error_of("{{#runs}}\n| {{label}} |\n{{/runs}}", view) ==
          "template test.md, line 2, column 3: the view model has no 'label'");
}

TEST_CASE("line and column count characters, not bytes", "[render]") {
    CHECK(error_of("µs → {{x}}", json::object()) == "template test.md, line 1, column 6: the view model has no 'x'");
}

TEST_CASE("an unclosed section is an error at its opening tag", "[render]") {
    CHECK(error_of("ok\n {{#runs}}\n{{label}}", {{"runs", json::array()}}) ==
          "template test.md, line 2, column 2: section 'runs' is never closed");
}

TEST_CASE("a closing tag that does not match the open section is an error", "[render]") {
    const json view = {{"a", true}, {"b", true}};
    CHECK(error_of("{{#a}}{{#b}}\n{{/a}}{{/b}}", view) ==
          "template test.md, line 2, column 1: {{/a}} does not close the open section 'b' (opened at line 1, column 7)");
}

TEST_CASE("a closing tag with no open section is an error", "[render]") {
    CHECK(error_of("x {{/a}}", {{"a", true}}) == "template test.md, line 1, column 3: {{/a}} closes a section that is not open");
}

TEST_CASE("a tag without its closing delimiter is an error", "[render]") {
    CHECK(error_of("x\n{{name", {{"name", "n"}}) == "template test.md, line 2, column 1: tag is never closed with '}}'");
}

TEST_CASE("names inside a section that does not render need not exist", "[render]") {
    CHECK(md("{{#runs}}{{anything}}{{/runs}}{{#no}}{{nothing}}{{/no}}", {{"runs", json::array()}, {"no", false}}).empty());
}

TEST_CASE("comments render as nothing and need no value", "[render]") {
    CHECK(md("a{{! a note about x }}b", json::object()) == "ab");
}

TEST_CASE("changed delimiters are followed, with strict names still checked", "[render]") {
    CHECK(md("{{=<% %>=}}<% name %> {{x}}", {{"name", "n"}}) == "n {{x}}");
    CHECK(error_of("{{=<% %>=}}\n<% nope %>", json::object()) == "template test.md, line 2, column 1: the view model has no 'nope'");
}

TEST_CASE("partials are refused because a view model cannot supply them", "[render]") {
    CHECK(error_of("{{> header}}", {{"header", "h"}}) == "template test.md, line 1, column 1: partials ({{>header}}) are not supported");
}

TEST_CASE("HTML output escapes script tags and quotes in values", "[render]") {
    const json view = {{"label", "<script>alert(1)</script>"}, {"title", "a \"quoted\" & 'single'"}};
    CHECK(html("{{label}}", view) == "&lt;script&gt;alert(1)&lt;/script&gt;");
    CHECK(html("<p title=\"{{title}}\">", view) == "<p title=\"a &quot;quoted&quot; &amp; &#39;single&#39;\">");
}

TEST_CASE("Markdown output backslash-escapes characters that would break tables or add markup", "[render]") {
    CHECK(md("| {{label}} |", {{"label", "a|b*c_d<e>"}}) == "| a\\|b\\*c\\_d\\<e\\> |");
    CHECK(md("{{v}}", {{"v", "[link](x) `code` back\\slash"}}) == "\\[link\\](x) \\`code\\` back\\\\slash");
}

TEST_CASE("Markdown output replaces newlines in values with spaces", "[render]") {
    CHECK(md("| {{error}} |", {{"error", "line one\nline two\r\nthree\rfour"}}) == "| line one line two three four |");
}

TEST_CASE("triple mustache and ampersand tags are not escaped in either markup", "[render]") {
    const json view = {{"svg", "<svg width=\"1\"><text>a|b_c</text></svg>"}};
    CHECK(html("{{{svg}}}", view) == "<svg width=\"1\"><text>a|b_c</text></svg>");
    CHECK(html("{{&svg}}", view) == "<svg width=\"1\"><text>a|b_c</text></svg>");
    CHECK(md("{{{svg}}}", view) == "<svg width=\"1\"><text>a|b_c</text></svg>");
}

TEST_CASE("template text outside tags is never escaped", "[render]") {
    CHECK(md("| *a* | <b> |", json::object()) == "| *a* | <b> |");
}

TEST_CASE("numbers render with fixed formatting: integers whole, others shortest round trip", "[render]") {
    const json view = {{"n", 200}, {"neg", -3}, {"big", 18446744073709551615ULL}, {"x", 0.1},
                       {"y", 2.0},  {"z", 1e-7}, {"w", 123456.789}};
    CHECK(md("{{n}} {{neg}} {{big}}", view) == "200 -3 18446744073709551615");
    CHECK(md("{{x}} {{y}} {{z}} {{w}}", view) == "0.1 2 1e-07 123456.789");
}

TEST_CASE("rendering the same view twice gives the same text", "[render]") {
    const json view = {{"b", 1.5}, {"a", json::array({{{"k", "v"}}, {{"k", "w"}}})}};
    const char* text = "{{b}}{{#a}}{{k}}{{index}}{{/a}}";
    CHECK(md(text, view) == md(text, view));
    CHECK(md(text, view) == "1.5v1w2");
}

TEST_CASE("a view model that is not an object is refused", "[render]") {
    CHECK_THROWS_AS(md("x", json::array()), usage_error);
}

} // namespace test_render
