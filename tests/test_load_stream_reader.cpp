// Tests for servestat/load/stream_reader.hpp: what the load driver makes of a streamed response,
// from hand-written OpenAI-style event streams, fed whole and cut at every byte.
#include "servestat/load/stream_reader.hpp"

#include <cstddef>     // std::size_t
#include <optional>    // std::optional
#include <string>      // std::string
#include <string_view> // std::string_view

#include <catch2/catch.hpp> // TEST_CASE, CHECK, REQUIRE, CHECK_THROWS_WITH

namespace test_load_stream_reader { // the unity build compiles several test files as one: each keeps its names

namespace {

using servestat::load::response_reader;
using servestat::load::stream_reader;

constexpr std::string_view chunk = R"(data: {"choices":[{"index":0,"delta":{"content":"hi"}}]})"
                                   "\n\n";
constexpr std::string_view usage = R"(data: {"choices":[],"usage":{"prompt_tokens":7,"completion_tokens":5}})"
                                   "\n\n";
constexpr std::string_view done = "data: [DONE]\n\n";
constexpr std::string_view error = R"(data: {"error":{"message":"overloaded","code":503}})"
                                   "\n\n";

struct outcome {
    std::optional<std::string> error;
    std::string thrown;
    int chunks = 0, readings = 0;
    std::int32_t output_tokens = 0;
};

// The stream cut at `cut` (npos: whole).
outcome read(const std::string& stream, std::size_t cut = std::string::npos) {
    response_reader reader;
    stream_reader s(reader);
    outcome out;
    const auto on_reading = [&](const servestat::load::response_info&) { ++out.readings; };
    try {
        if (cut == std::string::npos) s.feed(stream, on_reading);
        else {
            s.feed(std::string_view(stream).substr(0, cut), on_reading);
            s.feed(std::string_view(stream).substr(cut), on_reading);
        }
        out.error = s.finish();
    } catch (const servestat::load::response_error& e) {
        out.thrown = e.what();
    }
    out.chunks = s.content_chunks();
    out.output_tokens = s.output_tokens();
    return out;
}

} // namespace

TEST_CASE("a stream of content, usage and [DONE] is ok, counted by the server's completion tokens", "[stream_reader]") {
    const std::string stream = std::string(chunk) + std::string(chunk) + std::string(usage) + std::string(done);
    for (std::size_t cut = 0; cut <= stream.size(); ++cut) {
        const outcome o = read(stream, cut);
        INFO("cut at " << cut);
        CHECK_FALSE(o.error);
        CHECK(o.thrown.empty());
        CHECK(o.chunks == 2);
        CHECK(o.readings == 3);
        CHECK(o.output_tokens == 5);
    }
}

TEST_CASE("without a usage chunk the content chunks are the output tokens; nothing after [DONE] counts", "[stream_reader]") {
    const outcome o = read(std::string(chunk) + std::string(done) + std::string(chunk));
    CHECK(o.chunks == 1);
    CHECK(o.output_tokens == 1);
}

TEST_CASE("an error event fails the request with its text; a stream cut short is malformed", "[stream_reader]") {
    CHECK(read(std::string(chunk) + std::string(error) + std::string(done)).error == "overloaded");
    CHECK(read(std::string(chunk)).thrown == "the event stream ended without data: [DONE]");
    CHECK(read(std::string(chunk) + "data: {").thrown == "the event stream ended inside an event");
    CHECK(read("data: [1,2]\n\n").thrown == "the response is not a JSON object");
}

} // namespace test_load_stream_reader
