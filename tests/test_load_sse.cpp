// Tests for servestat/load/sse.hpp: the incremental SSE parser against hand-written streams whose
// expected events were worked out from the WHATWG "event stream interpretation" rules, fed whole,
// byte by byte and cut at every position.
#include "servestat/load/sse.hpp"

#include <cstddef>     // std::size_t
#include <string>      // std::string
#include <string_view> // std::string_view
#include <utility>     // std::move
#include <vector>      // std::vector

#include <catch2/catch.hpp> // TEST_CASE, SECTION, REQUIRE, CHECK, CHECK_THROWS_AS

#include "servestat/core/random.hpp" // detail::xoshiro256, detail::draw_below

namespace test_load_sse { // the unity build compiles several test files as one: each keeps its names

namespace {

using servestat::load::sse_end;
using servestat::load::sse_error;
using servestat::load::sse_event;
using servestat::load::sse_parser;
using namespace std::string_literals;

struct parsed {
    std::vector<sse_event> events;
    sse_end end = sse_end::clean;
};

// Feeds the pieces in order, then ends the stream.
parsed parse_pieces(const std::vector<std::string_view>& pieces, sse_parser& parser) {
    parsed out;
    for (const auto piece : pieces) parser.feed(piece, [&](const sse_event& e) { out.events.push_back(e); });
    out.end = parser.finish();
    return out;
}

parsed parse_whole(std::string_view stream) {
    sse_parser parser;
    return parse_pieces({stream}, parser);
}

parsed parse_bytewise(std::string_view stream) {
    std::vector<std::string_view> pieces;
    for (std::size_t i = 0; i < stream.size(); ++i) pieces.push_back(stream.substr(i, 1));
    sse_parser parser;
    return parse_pieces(pieces, parser);
}

// Cut at `at` with an empty feed in between, which must change nothing either.
parsed parse_split(std::string_view stream, std::size_t at) {
    sse_parser parser;
    return parse_pieces({stream.substr(0, at), std::string_view(), stream.substr(at)}, parser);
}

// Random cuts from a fixed seed: pieces of 1 to 7 bytes.
parsed parse_random_pieces(std::string_view stream, std::uint64_t seed) {
    servestat::detail::xoshiro256 rng(seed);
    std::vector<std::string_view> pieces;
    for (std::size_t at = 0; at < stream.size();) {
        const std::size_t n = 1 + servestat::detail::draw_below(rng, 7);
        pieces.push_back(stream.substr(at, n));
        at += n;
    }
    sse_parser parser;
    return parse_pieces(pieces, parser);
}

sse_event message(std::string data, std::string id = "") { return {"message", std::move(data), std::move(id)}; }

void check_same(const parsed& a, const parsed& b) {
    CHECK(a.end == b.end);
    REQUIRE(a.events.size() == b.events.size());
    for (std::size_t i = 0; i < a.events.size(); ++i) {
        INFO("event " << i);
        CHECK(a.events[i].type == b.events[i].type);
        CHECK(a.events[i].data == b.events[i].data);
        CHECK(a.events[i].id == b.events[i].id);
    }
}

// An OpenAI chat stream as vLLM sends it: a role-only chunk, content chunks, a usage chunk, [DONE].
const std::string openai_stream =
    "data: {\"id\":\"chatcmpl-1\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n"
    "data: {\"id\":\"chatcmpl-1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hello\"}}]}\n\n"
    "data: {\"id\":\"chatcmpl-1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\" w\xC3\xB6rld \xE2\x82\xAC\"}}]}\n\n"
    "data: {\"id\":\"chatcmpl-1\",\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":2}}\n\n"
    "data: [DONE]\n\n";

// Streams and the events the spec gives for them, worked out by hand.
struct case_ {
    const char* name;
    std::string stream;
    std::vector<sse_event> events;
    sse_end end;
};

const std::vector<case_> corpus = {
    {"LF", "data: a\n\ndata: b\n\n", {message("a"), message("b")}, sse_end::clean},
    {"CRLF", "data: a\r\n\r\ndata: b\r\n\r\n", {message("a"), message("b")}, sse_end::clean},
    {"CR", "data: a\r\rdata: b\r\r", {message("a"), message("b")}, sse_end::clean},
    // Any mix: CR then LF is one line end only when adjacent; "\n\r" is two.
    {"mixed line ends", "data: a\r\ndata: b\n\rdata: c\r\r\n", {message("a\nb"), message("c")}, sse_end::clean},
    {"multi-line data", "data: one\ndata: two\ndata:three\n\n", {message("one\ntwo\nthree")}, sse_end::clean},
    // Only one space after the colon is removed; other whitespace stays.
    {"spaces after colon", "data:  two spaces\ndata:\ttab\ndata:no space\n\n",
     {message(" two spaces\n\ttab\nno space")}, sse_end::clean},
    {"comments", ": keep-alive\ndata: a\n:another\n\n: trailing\n", {message("a")}, sse_end::clean},
    {"event type", "event: delta\ndata: x\n\ndata: y\n\n", {{"delta", "x", ""}, message("y")}, sse_end::clean},
    // The id persists into later events; a later id replaces it; an empty id clears it.
    {"id persists", "id: 7\ndata: a\n\ndata: b\n\nid: 8\ndata: c\n\nid\ndata: d\n\n",
     {message("a", "7"), message("b", "7"), message("c", "8"), message("d", "")}, sse_end::clean},
    {"id with NUL ignored", "id: 1\ndata: a\n\nid: 2\0x\ndata: b\n\n"s,
     {message("a", "1"), message("b", "1")}, sse_end::clean},
    // An event with no data lines is not dispatched, and its type does not leak into the next.
    {"empty data buffer", "event: ping\n\n\n\ndata: z\n\n", {message("z")}, sse_end::clean},
    // "data" with no colon appends an empty line: the buffer is "\n", not empty, so it dispatches "".
    {"no-colon data field", "data\n\ndata:\n\n", {message(""), message("")}, sse_end::clean},
    {"two empty data lines", "data\ndata\n\n", {message("\n")}, sse_end::clean},
    {"unknown fields", "foo: bar\nDATA: upper\ndata : spaced\nretry: 10\ndata: ok\n\n", {message("ok")},
     sse_end::clean},
    {"colon in value", "data: {\"a\":\"b:c\"}\n\n", {message("{\"a\":\"b:c\"}")}, sse_end::clean},
    {"BOM", "\xEF\xBB\xBF" "data: a\n\n", {message("a")}, sse_end::clean},
    // Only the first BOM is dropped: a second one is part of the field name, which is then unknown.
    {"second BOM kept", "\xEF\xBB\xBF\xEF\xBB\xBF" "data: a\n\ndata: b\n\n", {message("b")}, sse_end::clean},
    // Two bytes of a BOM and then something else: they were content, here the start of a field name.
    {"partial BOM", "\xEF\xBB" "data: a\n\ndata: b\n\n", {message("b")}, sse_end::clean},
    // The spec discards an event the stream ends without dispatching, with or without its line end.
    {"unterminated line", "data: a\n\ndata: b", {message("a")}, sse_end::truncated},
    {"unterminated event", "data: a\n\ndata: b\n", {message("a")}, sse_end::truncated},
    {"unterminated comment", "data: a\n\n: ping", {message("a")}, sse_end::truncated},
    {"ends in CR", "data: a\r\r", {message("a")}, sse_end::clean},
    {"type only at the end", "data: a\n\nevent: x\n", {message("a")}, sse_end::clean},
    {"empty stream", "", {}, sse_end::clean},
    {"only a BOM", "\xEF\xBB\xBF", {}, sse_end::clean},
    {"cut-off BOM", "\xEF\xBB", {}, sse_end::truncated},
    {"OpenAI chat stream", openai_stream,
     {message("{\"id\":\"chatcmpl-1\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}"),
      message("{\"id\":\"chatcmpl-1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hello\"}}]}"),
      message("{\"id\":\"chatcmpl-1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\" w\xC3\xB6rld \xE2\x82\xAC\"}}]}"),
      message("{\"id\":\"chatcmpl-1\",\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":2}}"),
      message("[DONE]")},
     sse_end::clean},
};

} // namespace

TEST_CASE("sse: each stream of the corpus gives the events the spec gives") {
    for (const auto& c : corpus) {
        INFO(c.name);
        const parsed expected{c.events, c.end};
        check_same(parse_whole(c.stream), expected);
    }
}

TEST_CASE("sse: byte-by-byte, random pieces and every two-piece cut equal whole feeding") {
    for (const auto& c : corpus) {
        INFO(c.name);
        const parsed whole = parse_whole(c.stream);
        check_same(parse_bytewise(c.stream), whole);
        for (std::uint64_t seed = 1; seed <= 5; ++seed) check_same(parse_random_pieces(c.stream, seed), whole);
        for (std::size_t at = 0; at <= c.stream.size(); ++at) {
            INFO("cut at " << at);
            check_same(parse_split(c.stream, at), whole);
        }
    }
}

TEST_CASE("sse: a CR at the end of one feed and an LF at the start of the next are one line end") {
    sse_parser parser;
    std::vector<std::string> data;
    auto keep = [&](const sse_event& e) { data.push_back(e.data); };
    parser.feed("data: a\r", keep);
    // Were this LF a line end of its own, it would make a blank line and dispatch "a" alone.
    parser.feed("\ndata: b\r", keep);
    CHECK(data.empty());
    parser.feed("\n\r", keep); // the LF completes "data: b"'s CR LF; the CR alone is the blank line
    CHECK(data == std::vector<std::string>{"a\nb"});
    CHECK(parser.finish() == sse_end::clean);
}

TEST_CASE("sse: a pending CR does not swallow a later LF after an empty feed") {
    sse_parser parser;
    std::vector<std::string> data;
    auto keep = [&](const sse_event& e) { data.push_back(e.data); };
    parser.feed("data: a\r", keep);
    parser.feed("", keep);
    parser.feed("\n", keep); // still the CR's LF: no blank line yet
    CHECK(data.empty());
    parser.feed("\n", keep);
    CHECK(data == std::vector<std::string>{"a"});
}

TEST_CASE("sse: a UTF-8 character split across feeds arrives whole") {
    sse_parser parser;
    std::string data;
    auto keep = [&](const sse_event& e) { data = e.data; };
    parser.feed("data: \xE2", keep);
    parser.feed("\x82", keep);
    parser.feed("\xAC!\n\n", keep);
    CHECK(data == "\xE2\x82\xAC!");
}

TEST_CASE("sse: has_partial_event tells a cut-off event from a boundary") {
    sse_parser parser;
    auto ignore = [](const sse_event&) {};
    CHECK_FALSE(parser.has_partial_event());
    parser.feed("data: {\"a\"", ignore);
    CHECK(parser.has_partial_event()); // half a line
    parser.feed(":1}\n", ignore);
    CHECK(parser.has_partial_event()); // a whole data line, no blank line yet
    parser.feed("\n", ignore);
    CHECK_FALSE(parser.has_partial_event());
    parser.feed(": comment\n", ignore);
    CHECK_FALSE(parser.has_partial_event());
    parser.feed("data: x", ignore);
    CHECK(parser.finish() == sse_end::truncated);
    // finish() readies the parser for a new stream, BOM check included.
    std::vector<std::string> data;
    parser.feed("\xEF\xBB\xBF" "data: y\n\n", [&](const sse_event& e) { data.push_back(e.data); });
    CHECK(data == std::vector<std::string>{"y"});
    CHECK(parser.finish() == sse_end::clean);
}

TEST_CASE("sse: the last event id and retry are kept for the caller") {
    sse_parser parser;
    auto ignore = [](const sse_event&) {};
    CHECK_FALSE(parser.retry_ms().has_value());
    parser.feed("retry: 1500\nid: 42\ndata: a\n\n", ignore);
    CHECK(parser.retry_ms() == 1500u);
    CHECK(parser.last_event_id() == "42");
    // Only ASCII digits set retry: these are all ignored.
    parser.feed("retry: 1.5\nretry: -3\nretry: +7\nretry:\nretry: 12a\n", ignore);
    CHECK(parser.retry_ms() == 1500u);
    parser.feed("retry:250\n", ignore);
    CHECK(parser.retry_ms() == 250u);
}

TEST_CASE("sse: the [DONE] marker is the data of the last OpenAI event") {
    const parsed p = parse_whole(openai_stream);
    REQUIRE_FALSE(p.events.empty());
    CHECK(p.events.back().data == servestat::load::openai_done);
}

TEST_CASE("sse: a line or an event over the size limit throws instead of growing") {
    SECTION("one long line with no end, fed in pieces") {
        sse_parser parser(64);
        auto ignore = [](const sse_event&) {};
        parser.feed("data: " + std::string(40, 'x'), ignore);
        CHECK_THROWS_AS(parser.feed(std::string(40, 'x'), ignore), sse_error);
    }
    SECTION("many data lines without a blank line") {
        sse_parser parser(64);
        auto ignore = [](const sse_event&) {};
        const std::string line = "data: " + std::string(20, 'x') + "\n";
        parser.feed(line, ignore); // 21 bytes of data
        parser.feed(line, ignore); // 42
        parser.feed(line, ignore); // 63: still within 64
        CHECK_THROWS_AS(parser.feed(line, ignore), sse_error);
    }
    SECTION("one whole line inside a single feed") {
        sse_parser parser(64);
        auto ignore = [](const sse_event&) {};
        CHECK_THROWS_AS(parser.feed("data: " + std::string(100, 'x') + "\n\n", ignore), sse_error);
    }
    SECTION("the message names the limit") {
        sse_parser parser(64);
        try {
            parser.feed(std::string(100, 'x'), [](const sse_event&) {});
            FAIL("no exception");
        } catch (const sse_error& e) {
            CHECK(std::string(e.what()).find("64 bytes") != std::string::npos);
        }
    }
    SECTION("events up to the limit pass, and reset() recovers after a throw") {
        sse_parser parser(64);
        std::vector<std::string> data;
        auto keep = [&](const sse_event& e) { data.push_back(e.data); };
        // A line of 64 bytes ("data: " + 58) is exactly at the limit; so is an event of two lines
        // of 31 data bytes (31 + LF + 31 + LF = 64).
        parser.feed("data: " + std::string(58, 'y') + "\n\n", keep);
        parser.feed("data: " + std::string(31, 'y') + "\ndata: " + std::string(31, 'y') + "\n\n", keep);
        REQUIRE(data.size() == 2);
        CHECK(data[0].size() == 58);
        CHECK(data[1].size() == 63);
        CHECK_THROWS_AS(parser.feed("data: " + std::string(59, 'y') + "\n", keep), sse_error); // 65 bytes whole
        parser.reset();
        CHECK_THROWS_AS(parser.feed(std::string(65, 'z'), keep), sse_error);
        parser.reset();
        parser.feed("data: ok\n\n", keep);
        CHECK(data.back() == "ok");
    }
    SECTION("long comments spread over many feeds are no event and pass when each line fits") {
        sse_parser parser(64);
        std::vector<std::string> data;
        for (int i = 0; i < 100; ++i) parser.feed(": " + std::string(50, 'c') + "\n", [&](const sse_event& e) {
            data.push_back(e.data);
        });
        CHECK(data.empty());
        CHECK(parser.finish() == sse_end::clean);
    }
}

TEST_CASE("sse: the callback sees the parser's own buffers, cleared after each event") {
    sse_parser parser;
    std::vector<const std::string*> addresses;
    std::vector<std::string> data;
    parser.feed("event: a\ndata: 1\n\ndata: 2\n\n", [&](const sse_event& e) {
        addresses.push_back(&e.data);
        data.push_back(e.data);
    });
    REQUIRE(data == std::vector<std::string>{"1", "2"});
    CHECK(addresses[0] == addresses[1]); // one event object reused, no copy per event
}

} // namespace test_load_sse
