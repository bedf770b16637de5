// Tests for the simulator's API bodies without the transport (servestat/sim/http_api.hpp and
// responses.hpp): byte-for-byte response bodies and stream events written out by hand from vLLM's and
// OpenAI's shapes (docs/simulator.md), request validation, the Responses store and prompt counting.
#include "servestat/sim/http_api.hpp"
#include "servestat/sim/responses.hpp"

#include <cstdint>  // std::int32_t, std::uint64_t
#include <optional> // std::optional
#include <utility>  // std::pair
#include <string>   // std::string, std::to_string
#include <vector>   // std::vector

#include <catch2/catch.hpp> // TEST_CASE, SECTION, REQUIRE, CHECK

namespace test_sim_http_api { // the unity build compiles several test files as one: each keeps its names

namespace {

namespace sim = servestat::sim;

// docs/simulator.md's example request: no queue, 7.6 ms prefill, 13.2 ms decode of 2 output tokens.
const sim::request_metrics metrics{{0.0, 0.0076, 0.0132}, 2};
// 13.2 ms over the 1 gap between 2 tokens; 2 tokens / 20.8 ms = 96.1538... tokens/s.
const std::string metrics_json = R"({"time_to_first_token_ms":7.6,"generation_time_ms":13.2,"queue_time_ms":0.0,)"
                                 R"("mean_itl_ms":13.2,"tokens_per_second":96.154})";

// The status, type and message of the api_error `f` throws.
template <class F>
std::string error_of(F&& f) {
    try {
        f();
    } catch (const sim::api_error& e) {
        return std::to_string(e.status()) + " " + e.type() + ": " + e.what();
    }
    return "no error";
}

} // namespace

TEST_CASE("chat bodies: usage gains prompt_tokens_details only when cached tokens are given", "[sim][http_api]") {
    const sim::response_builder chat(sim::api_kind::chat, "chatcmpl-1", 1767225600, "m");
    const std::string head = R"({"id":"chatcmpl-1","object":"chat.completion","created":1767225600,"model":"m",)";
    const std::string choices = R"("choices":[{"index":0,"message":{"role":"assistant","content":" the data"},)"
                                R"("logprobs":null,"finish_reason":"length","stop_reason":null}],)";
    CHECK(chat.full_body(" the data", 36, 2) ==
          head + choices + R"("usage":{"prompt_tokens":36,"total_tokens":38,"completion_tokens":2}})");
    CHECK(chat.full_body(" the data", 36, 2, 32) ==
          head + choices +
              R"("usage":{"prompt_tokens":36,"total_tokens":38,"completion_tokens":2,"prompt_tokens_details":{"cached_tokens":32}}})");
    CHECK(chat.usage_chunk(36, 2) ==
          R"({"id":"chatcmpl-1","object":"chat.completion.chunk","created":1767225600,"model":"m","choices":[],)"
          R"("usage":{"prompt_tokens":36,"total_tokens":38,"completion_tokens":2}})");
    CHECK(chat.usage_chunk(36, 2, 0) ==
          R"({"id":"chatcmpl-1","object":"chat.completion.chunk","created":1767225600,"model":"m","choices":[],)"
          R"("usage":{"prompt_tokens":36,"total_tokens":38,"completion_tokens":2,"prompt_tokens_details":{"cached_tokens":0}}})");
    const sim::response_builder completion(sim::api_kind::completion, "cmpl-1", 1767225600, "m");
    CHECK(completion.full_body(" the", 1, 1, 0) ==
          R"({"id":"cmpl-1","object":"text_completion","created":1767225600,"model":"m","choices":[{"index":0,)"
          R"("text":" the","logprobs":null,"finish_reason":"length","stop_reason":null}],)"
          R"("usage":{"prompt_tokens":1,"total_tokens":2,"completion_tokens":1,"prompt_tokens_details":{"cached_tokens":0}}})");
}

TEST_CASE("vLLM's metrics object: five members, milliseconds, nulls where there is nothing to report", "[sim][http_api]") {
    CHECK(sim::detail::metrics_json(metrics) == metrics_json);
    // vLLM's documented example, as the scheduler would time it: 12.3 ms queued, 85.2 ms from
    // scheduling to the first token, 1240.5 ms for the other 128 of 129 tokens. mean ITL
    // 1240.5 / 128 = 9.69140625 ms, to the microsecond 9.691; 129 tokens / 1.3257 s = 97.3070830...
    CHECK(sim::detail::metrics_json({{0.0123, 0.0852, 1.2405}, 129}) ==
          R"({"time_to_first_token_ms":85.2,"generation_time_ms":1240.5,"queue_time_ms":12.3,)"
          R"("mean_itl_ms":9.691,"tokens_per_second":97.307})");
    // One output token: no gap between tokens, so no mean ITL (null, not 0); 1 token / 2 ms = 500.
    CHECK(sim::detail::metrics_json({{0.001, 0.002, 0.0}, 1}) ==
          R"({"time_to_first_token_ms":2.0,"generation_time_ms":0.0,"queue_time_ms":1.0,)"
          R"("mean_itl_ms":null,"tokens_per_second":500.0})");
    // A request that took no time (an engine without costs) has no rate.
    CHECK(sim::detail::metrics_json({{0.0, 0.0, 0.0}, 1}) ==
          R"({"time_to_first_token_ms":0.0,"generation_time_ms":0.0,"queue_time_ms":0.0,)"
          R"("mean_itl_ms":null,"tokens_per_second":null})");
    // Microseconds of a run at a large --time-scale stay visible: 0.156 ms, not rounded to 0.
    CHECK(sim::detail::metrics_json({{0.0, 0.000156, 0.000528}, 7}) ==
          R"({"time_to_first_token_ms":0.156,"generation_time_ms":0.528,"queue_time_ms":0.0,)"
          R"("mean_itl_ms":0.088,"tokens_per_second":10233.918})");
}

TEST_CASE("metrics sit after usage in whole bodies and the usage chunk, and nowhere else", "[sim][http_api]") {
    const sim::response_builder chat(sim::api_kind::chat, "chatcmpl-1", 1767225600, "m");
    CHECK(chat.full_body(" the data", 36, 2, std::nullopt, metrics) ==
          R"({"id":"chatcmpl-1","object":"chat.completion","created":1767225600,"model":"m",)"
          R"("choices":[{"index":0,"message":{"role":"assistant","content":" the data"},)"
          R"("logprobs":null,"finish_reason":"length","stop_reason":null}],)"
          R"("usage":{"prompt_tokens":36,"total_tokens":38,"completion_tokens":2},"metrics":)" + metrics_json + "}");
    CHECK(chat.usage_chunk(36, 2, 0, metrics) ==
          R"({"id":"chatcmpl-1","object":"chat.completion.chunk","created":1767225600,"model":"m","choices":[],)"
          R"("usage":{"prompt_tokens":36,"total_tokens":38,"completion_tokens":2,"prompt_tokens_details":{"cached_tokens":0}},)"
          R"("metrics":)" + metrics_json + "}");
    // The last token's chunk has finish_reason and nothing of the server's timings.
    CHECK(chat.token_chunk(" data", true) ==
          R"({"id":"chatcmpl-1","object":"chat.completion.chunk","created":1767225600,"model":"m",)"
          R"("choices":[{"index":0,"delta":{"content":" data"},"logprobs":null,"finish_reason":"length","stop_reason":null}]})");
    const sim::response_builder completion(sim::api_kind::completion, "cmpl-1", 1767225600, "m");
    CHECK(completion.full_body(" the", 1, 1, std::nullopt, sim::request_metrics{{0.001, 0.002, 0.0}, 1}) ==
          R"({"id":"cmpl-1","object":"text_completion","created":1767225600,"model":"m","choices":[{"index":0,)"
          R"("text":" the","logprobs":null,"finish_reason":"length","stop_reason":null}],)"
          R"("usage":{"prompt_tokens":1,"total_tokens":2,"completion_tokens":1},)"
          R"("metrics":{"time_to_first_token_ms":2.0,"generation_time_ms":0.0,"queue_time_ms":1.0,)"
          R"("mean_itl_ms":null,"tokens_per_second":500.0}})");
}

TEST_CASE("generation requests keep the prompt the prefix cache hashes", "[sim][http_api]") {
    const auto chat = sim::parse_generation_request(
        sim::api_kind::chat, R"({"messages":[{"role":"user","content":"hello there"}],"max_tokens":3})", "m");
    REQUIRE(chat.messages.size() == 1);
    CHECK(chat.messages[0].second == "hello there");
    CHECK(chat.prompt_tokens == 38); // 3 + (5 + 4) + the default system message (5 + 21)
    CHECK(sim::prompt_token_ids(chat).size() == 38u);
    const auto text = sim::parse_generation_request(sim::api_kind::completion, R"({"prompt":"word word"})", "m");
    CHECK(text.prompt_text == "word word");
    CHECK(sim::prompt_token_ids(text) == sim::token_ids("word word"));
    const auto ids = sim::parse_generation_request(sim::api_kind::completion, R"({"prompt":[[7,8,9]]})", "m");
    CHECK(ids.prompt_tokens == 3);
    CHECK(sim::prompt_token_ids(ids) == std::vector<std::uint64_t>{7, 8, 9});
    // A completion's reply continues its text; a chat reply closes an assistant message.
    auto next = sim::prompt_token_ids(ids);
    sim::append_reply_token_ids(sim::api_kind::completion, next, " the");
    CHECK(next.size() == 4u);
    auto chat_next = sim::prompt_token_ids(chat);
    sim::append_reply_token_ids(sim::api_kind::chat, chat_next, " the");
    CHECK(chat_next.size() == 38u + 1 + 2);
}

TEST_CASE("completion prompts: a list holding one prompt is one level, and deeper nests are refused", "[sim][http_api]") {
    const auto listed = sim::parse_generation_request(sim::api_kind::completion, R"({"prompt":["word word"]})", "m");
    CHECK(listed.prompt_text == "word word");
    CHECK(listed.prompt_tokens == sim::parse_tokenize_request(R"({"prompt":"word word"})", "m"));
    const std::string refused =
        "400 BadRequestError: 'prompt' must be a string, a list of token ids, or a list holding one of them";
    auto completion = [](std::string body) {
        return [body] { sim::parse_generation_request(sim::api_kind::completion, body, "m"); };
    };
    CHECK(error_of(completion(R"({"prompt":[[[7,8,9]]]})")) == refused);
    CHECK(error_of(completion(R"({"prompt":[["word"]]})")) == refused); // a list of ids holds no text
    CHECK(error_of([] { sim::parse_tokenize_request(R"({"prompt":[[["word"]]]})", "m"); }) == refused);
    // A nest as deep as a 1 MiB body allows was unwrapped one copied level at a time (quadratic
    // in its depth); it is refused as it stands.
    const std::size_t depth = 400000;
    CHECK(error_of(completion("{\"prompt\":" + std::string(depth, '[') + "1" + std::string(depth, ']') + "}")) ==
          refused);
}

TEST_CASE("a body holding a number beyond a double is a 400, in any field", "[sim][http_api]") {
    // nlohmann reads 1e400 as out_of_range, not parse_error: the body is as malformed to the client.
    const std::string overflow = "400 BadRequestError: JSON decode error: [json.exception.out_of_range.406] number "
                                 "overflow parsing '1e400'";
    CHECK(error_of([] {
              sim::parse_generation_request(sim::api_kind::chat,
                                            R"({"messages":[{"role":"user","content":"hi"}],"x":1e400})", "m");
          }) == overflow);
    CHECK(error_of([] { sim::parse_generation_request(sim::api_kind::completion, R"({"prompt":[1e400]})", "m"); }) ==
          overflow);
    CHECK(error_of([] { sim::parse_responses_request(R"({"input":"x","max_output_tokens":1e400})", "m"); }) ==
          overflow);
}

TEST_CASE("responses: a whole response, byte for byte", "[sim][responses]") {
    const sim::responses_request request; // defaults: store, temperature 1, top_p 1, no instructions
    const sim::responses_builder b("resp_1", "msg_1", 1767225600, "m", request, 5);
    CHECK(b.full_body(" the data", {36, 0, 2}) ==
          R"({"id":"resp_1","object":"response","created_at":1767225600,"status":"completed","error":null,)"
          R"("incomplete_details":null,"instructions":null,"max_output_tokens":5,"model":"m",)"
          R"("output":[{"type":"message","id":"msg_1","status":"completed","role":"assistant",)"
          R"("content":[{"type":"output_text","text":" the data","annotations":[]}]}],)"
          R"("parallel_tool_calls":true,"previous_response_id":null,"reasoning":null,"service_tier":"auto",)"
          R"("store":true,"temperature":1.0,"text":{"format":{"type":"text"}},"tool_choice":"auto","tools":[],)"
          R"("top_p":1.0,"truncation":"disabled","usage":{"input_tokens":36,"input_tokens_details":{"cached_tokens":0},)"
          R"("output_tokens":2,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":38},"user":null,)"
          R"("metadata":{}})");
    CHECK(b.full_body(" the data", {36, 0, 2}, metrics) ==
          b.full_body(" the data", {36, 0, 2}).substr(0, b.full_body(" the data", {36, 0, 2}).size() - 1) +
              R"(,"metrics":)" + metrics_json + "}");

    SECTION("instructions, previous_response_id, store and sampling settings are echoed") {
        sim::responses_request r;
        r.instructions = "Be brief.";
        r.previous_response_id = "resp_0";
        r.store = false;
        r.temperature = 0.5;
        r.top_p = 0.25;
        const sim::responses_builder echo("resp_2", "msg_2", 1, "m", r, 3);
        CHECK(echo.response_json(nullptr, nullptr) ==
              R"({"id":"resp_2","object":"response","created_at":1,"status":"in_progress","error":null,)"
              R"("incomplete_details":null,"instructions":"Be brief.","max_output_tokens":3,"model":"m","output":[],)"
              R"("parallel_tool_calls":true,"previous_response_id":"resp_0","reasoning":null,"service_tier":"auto",)"
              R"("store":false,"temperature":0.5,"text":{"format":{"type":"text"}},"tool_choice":"auto","tools":[],)"
              R"("top_p":0.25,"truncation":"disabled","usage":null,"user":null,"metadata":{}})");
    }
}

TEST_CASE("responses: the stream's events, byte for byte", "[sim][responses]") {
    const sim::responses_request request;
    const sim::responses_builder b("resp_1", "msg_1", 1767225600, "m", request, 2);
    const std::string common = R"("error":null,"incomplete_details":null,"instructions":null,"max_output_tokens":2,"model":"m",)";
    const std::string settings =
        R"("parallel_tool_calls":true,"previous_response_id":null,"reasoning":null,"service_tier":"auto",)"
        R"("store":true,"temperature":1.0,"text":{"format":{"type":"text"}},"tool_choice":"auto","tools":[],)"
        R"("top_p":1.0,"truncation":"disabled",)";
    const std::string in_progress = R"({"id":"resp_1","object":"response","created_at":1767225600,"status":"in_progress",)" +
                                    common + R"("output":[],)" + settings + R"("usage":null,"user":null,"metadata":{}})";
    const std::string message =
        R"({"type":"message","id":"msg_1","status":"completed","role":"assistant",)"
        R"("content":[{"type":"output_text","text":" the data","annotations":[]}]})";
    const std::string completed =
        R"({"id":"resp_1","object":"response","created_at":1767225600,"status":"completed",)" + common +
        R"("output":[)" + message + "]," + settings +
        R"("usage":{"input_tokens":36,"input_tokens_details":{"cached_tokens":16},"output_tokens":2,)"
        R"("output_tokens_details":{"reasoning_tokens":0},"total_tokens":38},"user":null,"metadata":{},)"
        R"("metrics":)" + metrics_json + "}";

    std::string events;
    b.append_opening(events);
    b.append_item_opening(events);
    b.append_delta(events, 0, " the");
    b.append_delta(events, 1, " data");
    b.append_closing(events, " the data", 2, {36, 16, 2}, metrics);
    const std::string expected =
        "event: response.created\ndata: " R"({"type":"response.created","sequence_number":0,"response":)" + in_progress +
        "}\n\n"
        "event: response.in_progress\ndata: " R"({"type":"response.in_progress","sequence_number":1,"response":)" +
        in_progress + "}\n\n" +
        "event: response.output_item.added\ndata: "
        R"({"type":"response.output_item.added","sequence_number":2,"output_index":0,)"
        R"("item":{"type":"message","id":"msg_1","status":"in_progress","role":"assistant","content":[]}})"
        "\n\n"
        "event: response.content_part.added\ndata: "
        R"({"type":"response.content_part.added","sequence_number":3,"item_id":"msg_1","output_index":0,)"
        R"("content_index":0,"part":{"type":"output_text","text":"","annotations":[]}})"
        "\n\n"
        "event: response.output_text.delta\ndata: "
        R"({"type":"response.output_text.delta","sequence_number":4,"item_id":"msg_1","output_index":0,)"
        R"("content_index":0,"delta":" the","logprobs":[]})"
        "\n\n"
        "event: response.output_text.delta\ndata: "
        R"({"type":"response.output_text.delta","sequence_number":5,"item_id":"msg_1","output_index":0,)"
        R"("content_index":0,"delta":" data","logprobs":[]})"
        "\n\n"
        "event: response.output_text.done\ndata: "
        R"({"type":"response.output_text.done","sequence_number":6,"item_id":"msg_1","output_index":0,)"
        R"("content_index":0,"text":" the data","logprobs":[]})"
        "\n\n"
        "event: response.content_part.done\ndata: "
        R"({"type":"response.content_part.done","sequence_number":7,"item_id":"msg_1","output_index":0,)"
        R"("content_index":0,"part":{"type":"output_text","text":" the data","annotations":[]}})"
        "\n\n"
        "event: response.output_item.done\ndata: "
        R"({"type":"response.output_item.done","sequence_number":8,"output_index":0,"item":)" +
        message + "}\n\n" +
        "event: response.completed\ndata: " R"({"type":"response.completed","sequence_number":9,"response":)" +
        completed + "}\n\n";
    CHECK(events == expected);
    // Only response.completed's response carries the metrics: created and in_progress have none.
    CHECK(events.find(R"("metrics")") == events.rfind(R"("metrics")"));
    CHECK(events.find("[DONE]") == std::string::npos);
}

TEST_CASE("responses: requests are validated as vLLM does", "[sim][responses]") {
    const auto plain = sim::parse_responses_request(R"({"model":"m","input":"hello there"})", "m");
    REQUIRE(plain.input.size() == 1);
    CHECK(plain.input[0] == std::pair<std::string, std::string>("user", "hello there"));
    CHECK(plain.store); // OpenAI's default
    CHECK_FALSE(plain.stream);
    CHECK_FALSE(plain.max_output_tokens);
    CHECK_FALSE(plain.instructions);

    const auto parts = sim::parse_responses_request(
        R"({"input":[{"role":"user","content":[{"type":"input_text","text":"hello"},{"type":"input_text","text":"there"}]},)"
        R"({"type":"message","role":"assistant","content":"hi"}],"instructions":"Be brief.","max_output_tokens":5,)"
        R"("stream":true,"store":false,"temperature":0.5,"previous_response_id":"resp_0","tools":[]})",
        "m");
    REQUIRE(parts.input.size() == 2);
    CHECK(parts.input[0].second == "hello\nthere"); // text parts joined by newlines, as for chat
    CHECK(parts.input[1].first == "assistant");
    CHECK(parts.instructions == std::optional<std::string>("Be brief."));
    CHECK(parts.max_output_tokens == std::optional<std::int32_t>(5));
    CHECK(parts.stream);
    CHECK_FALSE(parts.store);
    CHECK(parts.temperature == 0.5);
    CHECK(parts.previous_response_id == std::optional<std::string>("resp_0"));

    auto parse = [](const char* body) { return [body] { sim::parse_responses_request(body, "m"); }; };
    CHECK(error_of(parse("{}")) == "400 BadRequestError: Field required: 'input'");
    CHECK(error_of(parse(R"({"input":[]})")) ==
          "400 BadRequestError: 'input' must be a string or a non-empty list of messages");
    CHECK(error_of(parse(R"({"input":"x","model":"gpt-4"})")) == "404 NotFoundError: The model `gpt-4` does not exist.");
    CHECK(error_of(parse(R"({"input":"x","tools":[{"type":"function","name":"f"}]})")) ==
          "400 BadRequestError: Tool use is not supported in Responses API without Harmony");
    CHECK(error_of(parse(R"({"input":[{"type":"function_call_output","call_id":"c","output":"1"}]})")) ==
          "400 BadRequestError: The simulator serves only message items in 'input'");
    CHECK(error_of(parse(R"({"input":"x","max_output_tokens":0})")) ==
          "400 BadRequestError: max_output_tokens must be at least 1, got 0.");
    CHECK(error_of(parse(R"({"input":"x","previous_response_id":7})")) ==
          "400 BadRequestError: 'previous_response_id' must be a string");
    CHECK(error_of(parse("[1]")) == "400 BadRequestError: The request body must be a JSON object");
}

TEST_CASE("responses: instructions, the stored conversation and the input make the prompt", "[sim][responses]") {
    sim::response_store store;
    store.put("resp_a", {{"user", "hello there"}, {"assistant", " the data"}});
    sim::responses_request r;
    r.input = {{"user", "and then"}};
    r.instructions = "Be brief.";
    r.previous_response_id = "resp_a";
    const auto g = sim::responses_generation(r, store);
    CHECK(g.kind == sim::api_kind::responses);
    REQUIRE(g.messages.size() == 4);
    CHECK(g.messages[0] == std::pair<std::string, std::string>("system", "Be brief."));
    CHECK(g.messages[3].second == "and then");
    // 3 (assistant prompt) + system (5 + 4: Be, brief 2, .) + user (5 + 4) + assistant (5 + 2) + user
    // (5 + 2); no default system message, since there is one.
    CHECK(g.prompt_tokens == 35);
    CHECK(sim::prompt_token_ids(g).size() == 35u);

    r.previous_response_id = "resp_x";
    CHECK(error_of([&] { sim::responses_generation(r, store); }) ==
          "404 invalid_request_error: Response with id 'resp_x' not found.");
    CHECK(sim::error_body(sim::response_not_found("resp_x")) ==
          R"({"error":{"message":"Response with id 'resp_x' not found.","type":"invalid_request_error","param":null,"code":404}})");
}

TEST_CASE("responses: max_output_tokens is capped at what the context leaves", "[sim][responses]") {
    sim::generation_request g;
    g.prompt_tokens = 4000;
    g.max_tokens = 500;
    CHECK(sim::responses_max_tokens(g, 4096) == 96);
    g.max_tokens = 50;
    CHECK(sim::responses_max_tokens(g, 4096) == 50);
    g.max_tokens.reset();
    CHECK(sim::responses_max_tokens(g, 4096) == 96);
    g.prompt_tokens = 4096; // the prompt alone fills the context: the engine refuses 0
    CHECK(sim::responses_max_tokens(g, 4096) == 0);
}

TEST_CASE("responses: the store forgets the oldest response beyond its capacity", "[sim][responses]") {
    sim::response_store store(2);
    store.put("a", {{"user", "1"}});
    store.put("b", {{"user", "2"}});
    store.put("c", {{"user", "3"}});
    CHECK(store.size() == 2);
    CHECK(store.find("a") == nullptr);
    REQUIRE(store.find("b") != nullptr);
    CHECK(store.find("c")->at(0).second == "3");
    CHECK(sim::response_store::default_capacity == 10000);
}

} // namespace test_sim_http_api
