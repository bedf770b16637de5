// Control characters from input are shown, never obeyed: on the terminal, in messages, in SVG,
// HTML and Markdown (reliability findings H9, H10, M9).
#include <cstdio>  // std::tmpfile, std::rewind, std::fread
#include <string>  // std::string

#include <catch2/catch.hpp> // TEST_CASE, CHECK

#include "servestat/core/text.hpp"             // detail::escape_markup
#include "servestat/core/visible_controls.hpp" // visible_controls, write_terminal
#include "servestat/report/render.hpp"         // detail::render_bridge::escape_markdown

namespace test_visible_controls { // the unity build compiles several test files as one

using namespace servestat;
using namespace std::string_literals;

TEST_CASE("C0 controls but newline and tab, DEL and C1 controls become \\x escapes") {
    CHECK(visible_controls("run real\x1b[2K\rFAKE") == "run real\\x1b[2K\\x0dFAKE");
    CHECK(visible_controls("x\x1b]0;PWNED\x07y") == "x\\x1b]0;PWNED\\x07y");
    CHECK(visible_controls("la\0bel"s) == "la\\x00bel");
    CHECK(visible_controls("a\x7f" "b") == "a\\x7fb");
    CHECK(visible_controls("c1 \xc2\x9b" "2J") == "c1 \\u009b2J"); // U+009B, the one-byte CSI
}

TEST_CASE("bidi controls become \\u escapes; other text, newlines and tabs are left alone") {
    CHECK(visible_controls("file\xe2\x80\xaegpj.jsonl") == "file\\u202egpj.jsonl"); // U+202E, right-to-left override
    CHECK(visible_controls("\xe2\x81\xa6x\xe2\x81\xa9") == "\\u2066x\\u2069");
    CHECK(visible_controls("\xd8\x9c") == "\\u061c");
    const std::string plain = "e2e p99 ≤ 2 s\tTTFT — ok\n€ \xe2\x80\x94 \xe2\x81\xb0 \xc2\xa0";
    CHECK(visible_controls(plain) == plain);
}

TEST_CASE("text written to a terminal goes out whole: a NUL does not end it") {
    std::FILE* f = std::tmpfile();
    REQUIRE(f != nullptr);
    write_terminal(f, "run la\0bel\nrequests 2\n"s);
    std::rewind(f);
    char buffer[64] = {};
    const std::size_t n = std::fread(buffer, 1, sizeof buffer, f);
    std::fclose(f);
    CHECK(std::string(buffer, n) == "run la\\x00bel\nrequests 2\n");
}

TEST_CASE("markup and Markdown show controls as escapes, so an SVG stays valid XML") {
    CHECK(detail::escape_markup("a\0<b>\x1b"s) == "a\\x00&lt;b&gt;\\x1b");
    CHECK(detail::render_bridge::escape_markdown("a\x01|b\r\nc") == "a\\x01\\|b c");
}

} // namespace test_visible_controls
