// Tests for the server timings the load driver reads (servestat/load/response.hpp, server_timings):
// each server's own shape, as its documentation gives it, with the expected seconds worked out by
// hand from the numbers in the JSON:
// - vLLM --enable-per-request-metrics (docs/features/per_request_metrics.md): `metrics` in ms, at
//   the top level of a body, of the final usage chunk, of a Responses API response object;
// - NVIDIA Dynamo: `nvext.timing` {request_received_ms, ttft_ms, total_time_ms};
// - Groq: `usage` (`x_groq.usage` in a stream) {queue_time, prompt_time, completion_time} in seconds;
// - SambaNova: `usage` {time_to_first_token, total_latency, acceptance_rate}.
// null is missing, never 0; a negative number is dropped without failing the request.
#include "servestat/load/response.hpp"
#include "servestat/load/stream_reader.hpp"

#include <optional> // std::optional
#include <string>   // std::string

#include <catch2/catch.hpp> // TEST_CASE, SECTION, REQUIRE, CHECK

namespace test_load_server_timings { // the unity build compiles several test files as one: each keeps its names

namespace {

using servestat::load::api_protocol;
using servestat::load::response_info;
using servestat::load::response_reader;
using servestat::load::server_timings;
using servestat::load::stream_reader;

// The timings of one document; a test that expects none uses CHECK_FALSE(read(...).timings).
server_timings timings_of(const std::string& json) {
    response_reader reader;
    const auto info = reader.read(json);
    REQUIRE(info.timings);
    return *info.timings;
}

// A present value, or -1 so that a missing one fails the comparison that follows.
double value(const std::optional<double>& x) { return x.value_or(-1); }

const std::string chat_head =
    R"({"id":"chatcmpl-abc123","object":"chat.completion","model":"meta-llama/Llama-3.1-8B-Instruct",)"
    R"("choices":[{"index":0,"message":{"role":"assistant","content":"Hi"},"finish_reason":"stop"}],)";

} // namespace

TEST_CASE("vLLM's metrics: milliseconds to seconds, TTFT from scheduling is the prefill", "[server_timings]") {
    // vLLM's documented example response.
    const auto t = timings_of(chat_head + R"("usage":{"prompt_tokens":42,"completion_tokens":128,"total_tokens":170},)"
                                          R"("metrics":{"time_to_first_token_ms":85.2,"generation_time_ms":1240.5,)"
                                          R"("queue_time_ms":12.3,"mean_itl_ms":9.1,"tokens_per_second":103.2}})");
    CHECK(value(t.queue) == Approx(0.0123));   // 12.3 ms
    CHECK(value(t.prefill) == Approx(0.0852)); // 85.2 ms, scheduled -> first token
    CHECK(value(t.decode) == Approx(1.2405));  // 1240.5 ms, first -> last token
    CHECK(value(t.itl) == Approx(0.0091));     // 9.1 ms
    CHECK_FALSE(t.ttft); // vLLM splits queue and prefill; no arrival -> first token number
    CHECK_FALSE(t.spec_acceptance);
    CHECK_FALSE(t.draft_acceptance);
}

TEST_CASE("vLLM's metrics: null members stay missing, a null object is no timings", "[server_timings]") {
    // A one-token reply: no inter-token latency; a server that could not time the decode.
    const auto t = timings_of(chat_head + R"("metrics":{"time_to_first_token_ms":40,"generation_time_ms":null,)"
                                          R"("queue_time_ms":0,"mean_itl_ms":null,"tokens_per_second":null}})");
    CHECK(t.queue == 0.0); // a real 0 is kept: it is not null
    CHECK(value(t.prefill) == Approx(0.04));
    CHECK_FALSE(t.decode);
    CHECK_FALSE(t.itl);
    response_reader reader;
    CHECK_FALSE(reader.read(chat_head + R"("metrics":null})").timings); // n > 1
    CHECK_FALSE(reader.read(chat_head + R"("metrics":{"time_to_first_token_ms":null,"generation_time_ms":null,)"
                                        R"("queue_time_ms":null,"mean_itl_ms":null,"tokens_per_second":null}})")
                    .timings);
}

TEST_CASE("vLLM's speculative decoding summary: mean acceptance length and draft acceptance rate", "[server_timings]") {
    // 16 speculative steps proposing 4 draft tokens each (64), 28 of them accepted: each step yields
    // its accepted drafts plus one token of its own, 1 + 28/16 = 2.75 tokens; 28/64 = 0.4375 accepted.
    const auto t = timings_of(
        chat_head + R"("metrics":{"time_to_first_token_ms":20.0,"generation_time_ms":160.0,"queue_time_ms":1.5,)"
                    R"("mean_itl_ms":3.6,"tokens_per_second":244.4,"speculative_decoding":{)"
                    R"("mean_acceptance_length":2.75,"draft_acceptance_rate":0.4375,"acceptance_histogram":[4,5,3,2,2],)"
                    R"("acceptance_histogram_by_draft_length":{"4":[4,5,3,2,2]},"num_spec_steps":16,)"
                    R"("num_accepted_draft_tokens":28,"num_draft_tokens":64,"num_spec_tokens":4}}})");
    CHECK(t.spec_acceptance == 2.75);
    CHECK(t.draft_acceptance == 0.4375);
    CHECK(value(t.decode) == Approx(0.16));
    // Not enabled: null, and nothing is made of it.
    const auto off = timings_of(chat_head + R"("metrics":{"time_to_first_token_ms":20.0,"speculative_decoding":null}})");
    CHECK_FALSE(off.spec_acceptance);
    CHECK_FALSE(off.draft_acceptance);
}

TEST_CASE("vLLM's stream: the metrics come in the final usage chunk, the content chunks carry none", "[server_timings]") {
    const std::string stream =
        R"(data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":""}}]})"
        "\n\n"
        R"(data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hi"}}]})"
        "\n\n"
        R"(data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"!"},"finish_reason":"stop"}]})"
        "\n\n"
        R"(data: {"id":"c1","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":9,"completion_tokens":2,)"
        R"("total_tokens":11},"metrics":{"time_to_first_token_ms":30.0,"generation_time_ms":10.0,"queue_time_ms":5.0,)"
        R"("mean_itl_ms":10.0,"tokens_per_second":50.0}})"
        "\n\ndata: [DONE]\n\n";
    response_reader reader;
    stream_reader s(reader, api_protocol::chat_completions);
    int carrying = 0;
    std::optional<server_timings> last;
    s.feed(stream, [&](const response_info& info) {
        if (!info.timings) return;
        ++carrying;
        last = info.timings;
        CHECK(info.prompt_tokens == 9); // the usage chunk
    });
    CHECK_FALSE(s.finish());
    CHECK(carrying == 1);
    REQUIRE(last);
    CHECK(value(last->queue) == Approx(0.005));
    CHECK(value(last->prefill) == Approx(0.03));
    CHECK(value(last->decode) == Approx(0.01));
}

TEST_CASE("Dynamo's nvext.timing: TTFT from arrival, decode = total - TTFT", "[server_timings]") {
    // Received at epoch ms 1767225600123, first token 145.5 ms later, done 1145.5 ms after arrival:
    // decode 1145.5 - 145.5 = 1000 ms.
    const auto t = timings_of(chat_head + R"("usage":{"prompt_tokens":9,"completion_tokens":50,"total_tokens":59},)"
                                          R"("nvext":{"timing":{"request_received_ms":1767225600123,"ttft_ms":145.5,)"
                                          R"("total_time_ms":1145.5}}})");
    CHECK(value(t.ttft) == Approx(0.1455));
    CHECK(value(t.decode) == Approx(1.0));
    CHECK_FALSE(t.queue); // Dynamo's TTFT includes the queue: neither is split out
    CHECK_FALSE(t.prefill);

    SECTION("either duration may be absent: no decode without both") {
        const auto ttft_only = timings_of(chat_head + R"("nvext":{"timing":{"request_received_ms":1,"ttft_ms":20}}})");
        CHECK(value(ttft_only.ttft) == Approx(0.02));
        CHECK_FALSE(ttft_only.decode);
        response_reader reader;
        CHECK_FALSE(reader.read(chat_head + R"("nvext":{"timing":{"request_received_ms":1,"total_time_ms":20}}})").timings);
        CHECK_FALSE(reader.read(chat_head + R"("nvext":{"worker_id":"w1"}})").timings);
    }
    SECTION("a total shorter than the TTFT gives no decode, and the TTFT stays") {
        const auto t2 = timings_of(chat_head + R"("nvext":{"timing":{"ttft_ms":300,"total_time_ms":200}}})");
        CHECK(value(t2.ttft) == Approx(0.3));
        CHECK_FALSE(t2.decode);
    }
}

TEST_CASE("Groq's usage: queue, prompt and completion time in seconds", "[server_timings]") {
    const std::string usage = R"({"queue_time":0.0123,"prompt_tokens":20,"prompt_time":0.0035,"completion_tokens":100,)"
                              R"("completion_time":0.25,"total_tokens":120,"total_time":0.2535})";
    SECTION("a whole body") {
        const auto t = timings_of(chat_head + R"("usage":)" + usage + "}");
        CHECK(t.queue == 0.0123);
        CHECK(t.prefill == 0.0035);
        CHECK(t.decode == 0.25);
        CHECK_FALSE(t.ttft);
    }
    SECTION("a stream's last chunk: x_groq.usage") {
        const auto t = timings_of(R"({"id":"chatcmpl-1","object":"chat.completion.chunk","choices":[{"index":0,)"
                                  R"("delta":{},"finish_reason":"stop"}],"x_groq":{"id":"req_1","usage":)" +
                                  usage + "}}");
        CHECK(t.queue == 0.0123);
        CHECK(t.decode == 0.25);
    }
}

TEST_CASE("SambaNova's usage: TTFT from arrival, decode = total latency - TTFT, the acceptance rate", "[server_timings]") {
    // First token 0.12 s after arrival, done at 0.62 s: decode 0.5 s.
    const auto t = timings_of(chat_head + R"("usage":{"acceptance_rate":0.7,"completion_tokens":50,)"
                                          R"("completion_tokens_after_first_per_sec":98.0,"prompt_tokens":30,)"
                                          R"("time_to_first_token":0.12,"total_latency":0.62,"total_tokens":80}})");
    CHECK(t.ttft == 0.12);
    CHECK(value(t.decode) == Approx(0.5));
    CHECK(t.draft_acceptance == 0.7);
    CHECK_FALSE(t.queue);
    CHECK_FALSE(t.prefill);
    CHECK_FALSE(t.spec_acceptance);
}

TEST_CASE("a negative number is dropped, the rest kept, the request read", "[server_timings]") {
    response_reader reader;
    const auto vllm = reader.read(chat_head + R"("usage":{"prompt_tokens":4,"completion_tokens":2},)"
                                              R"("metrics":{"time_to_first_token_ms":-3.0,"generation_time_ms":10.0,)"
                                              R"("queue_time_ms":-0.001,"mean_itl_ms":10.0,"tokens_per_second":-1}})");
    CHECK(vllm.has_content);
    CHECK(vllm.completion_tokens == 2);
    REQUIRE(vllm.timings);
    CHECK_FALSE(vllm.timings->queue);
    CHECK_FALSE(vllm.timings->prefill);
    CHECK(value(vllm.timings->decode) == Approx(0.01));
    const auto groq = timings_of(chat_head + R"("usage":{"queue_time":-0.5,"prompt_time":0.002,"completion_time":0.1}})");
    CHECK_FALSE(groq.queue);
    CHECK(groq.prefill == 0.002);
    // Dynamo's TTFT dropped: no decode either (nothing to subtract), so no timings at all.
    CHECK_FALSE(reader.read(chat_head + R"("nvext":{"timing":{"ttft_ms":-5,"total_time_ms":100}}})").timings);
    CHECK_FALSE(reader.read(chat_head + R"("metrics":{"queue_time_ms":-1}})").timings);
    // Strings and other types are no numbers either.
    CHECK_FALSE(reader.read(chat_head + R"("metrics":{"queue_time_ms":"12.3","generation_time_ms":[1]}})").timings);
    CHECK_FALSE(reader.read(chat_head + R"("metrics":[12.3],"nvext":{"timing":7}})").timings);
}

TEST_CASE("Python's NaN and Infinity are dropped as missing; the request is read, not failed", "[server_timings]") {
    response_reader reader;
    const auto info = reader.read(chat_head + R"("usage":{"prompt_tokens":4,"completion_tokens":2},)"
                                              R"("metrics":{"time_to_first_token_ms":NaN,"generation_time_ms":Infinity,)"
                                              R"("queue_time_ms":-Infinity,"mean_itl_ms":5.0,"tokens_per_second":NaN}})");
    CHECK(info.has_content);
    CHECK(info.completion_tokens == 2);
    REQUIRE(info.timings);
    CHECK_FALSE(info.timings->prefill);
    CHECK_FALSE(info.timings->decode);
    CHECK_FALSE(info.timings->queue);
    CHECK(value(info.timings->itl) == Approx(0.005));
    // The words inside a string are text, not numbers: the reply keeps them.
    reader.keep_text(true);
    const auto text = reader.read(R"({"choices":[{"index":0,"delta":{"content":"NaN \"Infinity\""}}],)"
                                  R"("metrics":{"queue_time_ms":NaN}})");
    CHECK(text.text == R"(NaN "Infinity")");
    CHECK_FALSE(text.timings);
    // Anything else malformed still is.
    CHECK_THROWS_AS(reader.read(R"({"metrics":{"queue_time_ms":NaN})"), servestat::load::response_error);
}

TEST_CASE("the first server shape that gives a value wins; shapes fill each other's gaps", "[server_timings]") {
    // A gateway in front of vLLM that adds Dynamo's timing: vLLM's split of the TTFT and Dynamo's
    // arrival -> first token side by side; vLLM's decode kept over total - TTFT.
    const auto t = timings_of(chat_head + R"("metrics":{"time_to_first_token_ms":80,"generation_time_ms":900,)"
                                          R"("queue_time_ms":20},"nvext":{"timing":{"ttft_ms":110,"total_time_ms":1000}}})");
    CHECK(value(t.queue) == Approx(0.02));
    CHECK(value(t.prefill) == Approx(0.08));
    CHECK(value(t.ttft) == Approx(0.11));
    CHECK(value(t.decode) == Approx(0.9));
}

} // namespace test_load_server_timings
