// Tests for the driver's reading of the OpenAI Responses API (load/response.hpp, load/stream_reader.hpp):
// stream events and whole bodies in the shapes OpenAI documents (platform.openai.com, "Streaming
// responses": response.created ... response.output_text.delta ... response.completed, no [DONE])
// and vLLM serves; and the cached prompt tokens both APIs report.
#include "servestat/load/response.hpp"
#include "servestat/load/stream_reader.hpp"

#include <optional>    // std::optional
#include <string>      // std::string
#include <string_view> // std::string_view

#include <catch2/catch.hpp> // TEST_CASE, SECTION, REQUIRE, CHECK

namespace test_load_responses { // the unity build compiles several test files as one: each keeps its names

namespace {

using servestat::load::api_protocol;
using servestat::load::response_error;
using servestat::load::response_reader;
using servestat::load::stream_reader;

std::string event(std::string_view type, std::string_view data) {
    return std::string("event: ").append(type).append("\ndata: ").append(data).append("\n\n");
}

const std::string created = event(
    "response.created",
    R"({"type":"response.created","sequence_number":0,"response":{"id":"resp_1","object":"response","status":"in_progress","output":[],"usage":null}})");
const std::string item_added = event(
    "response.output_item.added",
    R"({"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"id":"msg_1","type":"message","role":"assistant","content":[]}})");
std::string delta(int n, std::string_view text) {
    return event("response.output_text.delta",
                 std::string(R"({"type":"response.output_text.delta","sequence_number":)") + std::to_string(n) +
                     R"(,"item_id":"msg_1","output_index":0,"content_index":0,"delta":")" + std::string(text) + "\"}");
}
const std::string text_done = event(
    "response.output_text.done",
    R"({"type":"response.output_text.done","sequence_number":5,"item_id":"msg_1","output_index":0,"content_index":0,"text":"Hi there"})");
const std::string completed = event(
    "response.completed",
    R"({"type":"response.completed","sequence_number":6,"response":{"id":"resp_1","object":"response","status":"completed",)"
    R"("output":[{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"output_text","text":"Hi there"}]}],)"
    R"("usage":{"input_tokens":40,"input_tokens_details":{"cached_tokens":32},"output_tokens":3,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":43},)"
    R"("metrics":{"time_to_first_token_ms":2.0,"generation_time_ms":3.0,"queue_time_ms":1.0,"mean_itl_ms":1.5,"tokens_per_second":600.0}}})");

struct outcome {
    std::optional<std::string> error;
    std::string thrown;
    int chunks = 0;
    std::int32_t output_tokens = 0;
    std::optional<std::int32_t> prompt_tokens, cached_tokens;
    std::string text, response_id;
    int with_timings = 0; // events that carried server timings
    std::optional<servestat::load::server_timings> timings;
};

outcome read(const std::string& stream) {
    response_reader reader;
    reader.keep_text(true);
    stream_reader s(reader, api_protocol::responses);
    outcome out;
    try {
        s.feed(stream, [&](const servestat::load::response_info& info) {
            out.text += info.text;
            if (info.prompt_tokens) out.prompt_tokens = info.prompt_tokens;
            if (info.cached_tokens) out.cached_tokens = info.cached_tokens;
            if (info.response_id) out.response_id = *info.response_id;
            if (info.timings) {
                ++out.with_timings;
                out.timings = info.timings;
            }
        });
        out.error = s.finish();
    } catch (const response_error& e) {
        out.thrown = e.what();
    }
    out.chunks = s.content_chunks();
    out.output_tokens = s.output_tokens();
    return out;
}

} // namespace

TEST_CASE("a Responses stream: text deltas are the content, response.completed ends it with usage and id", "[responses]") {
    const auto o = read(created + item_added + delta(2, "Hi") + delta(3, " there") + delta(4, "") + text_done + completed);
    CHECK(o.thrown.empty());
    CHECK_FALSE(o.error);
    CHECK(o.chunks == 2); // the empty delta is not a token
    CHECK(o.output_tokens == 3); // the server's output_tokens, not the deltas counted
    CHECK(o.prompt_tokens == 40);
    CHECK(o.cached_tokens == 32);
    CHECK(o.text == "Hi there"); // from the deltas; output_text.done repeats it and is not added
    CHECK(o.response_id == "resp_1");
    // vLLM's metrics inside response.completed's response, the one event that has them.
    CHECK(o.with_timings == 1);
    REQUIRE(o.timings);
    CHECK(o.timings->queue.value_or(-1) == Approx(0.001));
    CHECK(o.timings->prefill.value_or(-1) == Approx(0.002));
    CHECK(o.timings->decode.value_or(-1) == Approx(0.003));
    CHECK(o.timings->itl.value_or(-1) == Approx(0.0015));
}

TEST_CASE("Responses events: metrics at the event's top level are not vLLM's place and are not read", "[responses]") {
    const auto o = read(created + delta(2, "Hi") +
                        event("response.completed",
                              R"({"type":"response.completed","response":{"id":"resp_1","status":"completed",)"
                              R"("usage":{"input_tokens":4,"output_tokens":1}},"metrics":{"queue_time_ms":1.0}})"));
    CHECK(o.thrown.empty());
    CHECK(o.with_timings == 0);
}

TEST_CASE("a Responses stream without response.completed is malformed; [DONE] does not end it", "[responses]") {
    CHECK(read(created + delta(1, "Hi")).thrown == "the event stream ended without response.completed");
    CHECK(read(created + delta(1, "Hi") + "data: [DONE]\n\n").thrown ==
          "the event stream ended without response.completed");
    SECTION("response.incomplete (max_output_tokens reached) ends it as well") {
        const auto o = read(created + delta(1, "Hi") +
                            event("response.incomplete",
                                  R"({"type":"response.incomplete","response":{"id":"resp_2","status":"incomplete",)"
                                  R"("incomplete_details":{"reason":"max_output_tokens"},"usage":{"input_tokens":5,"output_tokens":1}}})"));
        CHECK(o.thrown.empty());
        CHECK_FALSE(o.error);
        CHECK(o.output_tokens == 1);
        CHECK(o.response_id == "resp_2");
    }
    SECTION("nothing after the end counts") {
        const auto o = read(created + delta(1, "Hi") + completed + delta(9, "late"));
        CHECK(o.chunks == 1);
        CHECK(o.text == "Hi");
    }
}

TEST_CASE("Responses failures: response.failed and error events carry their message", "[responses]") {
    const auto failed = read(created + event("response.failed",
                                             R"({"type":"response.failed","response":{"id":"resp_3","status":"failed",)"
                                             R"("error":{"code":"server_error","message":"engine died"}}})"));
    CHECK(failed.thrown.empty());
    CHECK(failed.error == "engine died");
    const auto error = read(created + event("error", R"({"type":"error","code":"rate_limit","message":"slow down"})"));
    CHECK(error.error == "slow down");
    CHECK(read(created + event("response.completed", R"({"type":"response.completed"})")).thrown ==
          "response.completed without its response object");
}

TEST_CASE("a whole Responses body: its output text, usage and timings", "[responses]") {
    response_reader reader;
    reader.keep_text(true);
    const auto info = reader.read(
        R"({"id":"resp_9","object":"response","status":"completed","output":[{"type":"reasoning","content":[]},)"
        R"({"type":"message","role":"assistant","content":[{"type":"output_text","text":"four"},{"type":"output_text","text":" words"}]}],)"
        R"("usage":{"input_tokens":12,"input_tokens_details":{"cached_tokens":0},"output_tokens":2,"total_tokens":14},)"
        R"("metrics":{"time_to_first_token_ms":500,"generation_time_ms":250,"queue_time_ms":0,"mean_itl_ms":250,)"
        R"("tokens_per_second":2.6666666666666665}})");
    CHECK(info.has_content);
    CHECK(info.text == "four words");
    CHECK(info.prompt_tokens == 12);
    CHECK(info.completion_tokens == 2);
    CHECK(info.cached_tokens == 0);
    CHECK(info.response_id == "resp_9");
    REQUIRE(info.timings);
    CHECK(info.timings->queue == 0.0);
    CHECK(info.timings->prefill == 0.5);
    CHECK(info.timings->decode == 0.25);
    CHECK_FALSE(info.error);
    CHECK(reader.read(R"({"id":"resp_f","object":"response","status":"failed","error":{"message":"bad"}})").error == "bad");
}

TEST_CASE("chat usage: prompt_tokens_details.cached_tokens is the prefix cache's share; text kept only when asked",
          "[responses]") {
    response_reader reader;
    const std::string usage =
        R"({"choices":[],"usage":{"prompt_tokens":300,"completion_tokens":8,"prompt_tokens_details":{"cached_tokens":288}}})";
    CHECK(reader.read(usage).cached_tokens == 288);
    CHECK_FALSE(reader.read(R"({"choices":[],"usage":{"prompt_tokens":3,"prompt_tokens_details":null}})").cached_tokens);
    const std::string content = R"({"choices":[{"index":0,"delta":{"content":" be"}}]})";
    CHECK(reader.read(content).text.empty());
    reader.keep_text(true);
    CHECK(reader.read(content).text == " be");
    CHECK(reader.read(R"({"choices":[{"index":0,"message":{"role":"assistant","content":"whole"}}]})").text == "whole");
    CHECK(reader.read(R"({"choices":[{"index":0,"delta":{"reasoning_content":"hmm"}}]})").text.empty());
}

} // namespace test_load_responses
