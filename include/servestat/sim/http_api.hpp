// The simulator's OpenAI-compatible API without the transport: request validation and response bodies.
#pragma once

#include <algorithm>   // std::min
#include <cmath>       // std::round
#include <cstdint>     // std::int32_t, std::int64_t, std::uint64_t, INT32_MAX
#include <optional>    // std::optional
#include <stdexcept>   // std::runtime_error
#include <string>      // std::string
#include <string_view> // std::string_view
#include <utility>     // std::move, std::pair
#include <vector>      // std::vector

#include <fmt/format.h>      // fmt::format
#include <nlohmann/json.hpp> // nlohmann::json, nlohmann::ordered_json

#include "servestat/core/random.hpp"      // detail::mix64
#include "servestat/core/token_count.hpp" // count_tokens, count_chat_tokens
#include "servestat/sim/metrics.hpp"      // request_timings
#include "servestat/sim/tokens.hpp"       // token_ids, chat_token_ids, append_token_ids, append_reply_ids

// Shapes follow vLLM 0.10's OpenAI server (vllm/entrypoints/openai/protocol.py), since the clients
// and load drivers this simulator stands in front of were written against it. Errors use the shape
// the seed notebook's vLLM returned:
//   {"error": {"message": "...", "type": "BadRequestError", "param": null, "code": 400}}
// Everything here is free of I/O so the unit tests can check it byte for byte.

namespace servestat::sim {

// A request the API refuses: an HTTP status, vLLM's error type name and the message.
class api_error : public std::runtime_error {
public:
    api_error(int status, std::string type, const std::string& message)
        : std::runtime_error(message), status_(status), type_(std::move(type)) {}
    int status() const noexcept { return status_; }
    const std::string& type() const noexcept { return type_; }

private:
    int status_;
    std::string type_;
};

namespace detail {

// Client text may be anything; a dump must never throw on invalid UTF-8.
inline std::string dump_json(const nlohmann::ordered_json& j) {
    return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

inline api_error bad_request(const std::string& message) { return api_error(400, "BadRequestError", message); }

inline const nlohmann::json* member(const nlohmann::json& object, const char* key) {
    const auto it = object.find(key);
    return it == object.end() || it->is_null() ? nullptr : &*it;
}

inline nlohmann::json parse_object(std::string_view body) {
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(body.begin(), body.end());
    } catch (const nlohmann::json::exception& e) {
        // parse_error, and out_of_range for a number beyond a double (1e400), even in a field the
        // simulator ignores: either is the client's malformed body, not a reason to drop the connection.
        throw bad_request(std::string("JSON decode error: ").append(e.what()));
    }
    if (!j.is_object()) throw bad_request("The request body must be a JSON object");
    return j;
}

// vLLM answers 404 when the request names a model it does not serve; a missing model is fine.
inline void check_model(const nlohmann::json& request, std::string_view served) {
    const auto* model = member(request, "model");
    if (!model) return;
    if (!model->is_string()) throw bad_request("'model' must be a string");
    const auto& name = model->get_ref<const std::string&>();
    if (name != served)
        throw api_error(404, "NotFoundError", std::string("The model `").append(name).append("` does not exist."));
}

inline bool optional_bool(const nlohmann::json& object, const char* key) {
    const auto* v = member(object, key);
    if (!v) return false;
    if (!v->is_boolean()) throw bad_request(std::string("'").append(key).append("' must be a boolean"));
    return v->get<bool>();
}

inline std::optional<std::int32_t> optional_count(const nlohmann::json& object, const char* key) {
    const auto* v = member(object, key);
    if (!v) return std::nullopt;
    if (!v->is_number_integer()) throw bad_request(std::string("'").append(key).append("' must be an integer"));
    const auto n = v->get<std::int64_t>();
    if (n < 1) throw bad_request(fmt::format("{} must be at least 1, got {}.", key, n));
    return static_cast<std::int32_t>(std::min<std::int64_t>(n, INT32_MAX));
}

// A message's content: a string, null (an assistant turn with tool calls), or a list of parts of
// which the text parts count (joined by newlines, as vLLM renders them).
inline std::string message_content(const nlohmann::json& message) {
    const auto* content = member(message, "content");
    if (!content) return {};
    if (content->is_string()) return content->get<std::string>();
    if (!content->is_array()) throw bad_request("A message's 'content' must be a string or a list of parts");
    std::string text;
    for (const auto& part : *content) {
        if (!part.is_object()) throw bad_request("A content part must be an object");
        const auto* t = member(part, "text");
        if (!t) continue;
        if (!t->is_string()) throw bad_request("A content part's 'text' must be a string");
        if (!text.empty()) text.push_back('\n');
        text.append(t->get_ref<const std::string&>());
    }
    return text;
}

using chat_messages = std::vector<std::pair<std::string, std::string>>; // (role, content)

// A list of {role, content} messages, as chat's `messages` and the Responses API's `input` hold them.
inline chat_messages read_messages(const nlohmann::json& list) {
    chat_messages turns;
    turns.reserve(list.size());
    for (const auto& m : list) {
        if (!m.is_object()) throw bad_request("Each message must be an object");
        const auto* role = member(m, "role");
        if (!role || !role->is_string()) throw bad_request("Each message needs a string 'role'");
        turns.emplace_back(role->get<std::string>(), message_content(m));
    }
    return turns;
}

inline chat_messages chat_request_messages(const nlohmann::json& request) {
    const auto* messages = member(request, "messages");
    if (!messages) throw bad_request("Field required: 'messages'");
    if (!messages->is_array() || messages->empty())
        throw bad_request("'messages' must be a non-empty list of messages");
    return read_messages(*messages);
}

inline std::int32_t chat_prompt_tokens(const nlohmann::json& request) {
    return count_chat_tokens(chat_request_messages(request));
}

// The prompt a completion request holds: `prompt` itself, or the one prompt of a one-element list
// (vLLM takes a string, a list of ids, or a list of either; the simulator serves one prompt a
// request). One level only: deeper nesting is refused as it stands, never unwrapped level by level.
inline const nlohmann::json& single_prompt(const nlohmann::json& prompt) {
    if (!prompt.is_array() || prompt.size() != 1) return prompt;
    const auto& only = prompt[0];
    return only.is_string() || only.is_array() ? only : prompt;
}

inline bool is_token_id_list(const nlohmann::json& prompt) {
    return prompt.is_array() && !prompt.empty() && prompt[0].is_number_integer();
}

// A completion prompt: a string, a list of token ids, or a list holding one of either. The
// simulator serves one prompt per request (vLLM fans a list of prompts out into several choices).
// The text or the ids go to `text` / `ids` when given (the prefix cache needs them).
inline std::int32_t completion_prompt_tokens(const nlohmann::json& request, std::string* text = nullptr,
                                             std::vector<std::uint64_t>* ids = nullptr) {
    const auto* sent = member(request, "prompt");
    if (!sent) throw bad_request("Field required: 'prompt'");
    const auto& prompt = single_prompt(*sent);
    if (prompt.is_string()) {
        const auto& s = prompt.get_ref<const std::string&>();
        if (text) *text = s;
        return count_tokens(s);
    }
    if (is_token_id_list(prompt)) {
        for (const auto& id : prompt) {
            if (!id.is_number_integer()) throw bad_request("A token-id prompt must hold only integers");
            if (ids) ids->push_back(id.get<std::uint64_t>());
        }
        return static_cast<std::int32_t>(prompt.size());
    }
    if (prompt.is_array() && prompt.size() > 1) throw bad_request("The simulator serves one prompt per request");
    throw bad_request("'prompt' must be a string, a list of token ids, or a list holding one of them");
}

} // namespace detail

// /v1/chat/completions, /v1/completions, /v1/responses (responses.hpp).
enum class api_kind { chat, completion, responses };

// What the engine and the response need from a /v1/chat/completions or /v1/completions body (and,
// filled by responses.hpp, a /v1/responses body).
struct generation_request {
    api_kind kind = api_kind::chat;
    std::int32_t prompt_tokens = 0;
    std::optional<std::int32_t> max_tokens; // as sent; nullopt: up to the context length
    bool stream = false;
    bool include_usage = false; // stream_options.include_usage
    // The prompt itself, which the prefix cache hashes: chat and responses render `messages`; a
    // completion has `prompt_text` or, for a token-id prompt, `prompt_ids`.
    detail::chat_messages messages;
    std::string prompt_text;
    std::vector<std::uint64_t> prompt_ids;
};

// Validates a request body; throws api_error with the status and message vLLM would answer.
// max_completion_tokens wins over max_tokens (vLLM: `max_completion_tokens or max_tokens`); a
// completion without max_tokens gets vLLM's CompletionRequest default of 16, a null one none.
inline generation_request parse_generation_request(api_kind kind, std::string_view body, std::string_view model) {
    const auto j = detail::parse_object(body);
    detail::check_model(j, model);
    generation_request r;
    r.kind = kind;
    if (kind == api_kind::chat) {
        r.messages = detail::chat_request_messages(j);
        r.prompt_tokens = count_chat_tokens(r.messages);
    } else {
        r.prompt_tokens = detail::completion_prompt_tokens(j, &r.prompt_text, &r.prompt_ids);
    }
    if (r.prompt_tokens < 1) throw detail::bad_request("The decoder prompt cannot be empty");
    r.max_tokens = detail::optional_count(j, "max_completion_tokens");
    if (!r.max_tokens) r.max_tokens = detail::optional_count(j, "max_tokens");
    if (!r.max_tokens && kind == api_kind::completion && !j.contains("max_tokens")) r.max_tokens = 16;
    if (const auto* n = detail::member(j, "n"); n && !(n->is_number_integer() && n->get<std::int64_t>() == 1))
        throw detail::bad_request("The simulator supports only n = 1");
    r.stream = detail::optional_bool(j, "stream");
    if (const auto* options = detail::member(j, "stream_options")) {
        if (!options->is_object()) throw detail::bad_request("'stream_options' must be an object");
        r.include_usage = detail::optional_bool(*options, "include_usage");
    }
    return r;
}

// max_tokens the engine runs with: as sent, else what is left of the context (vLLM's default),
// which is 0 or less for a prompt that fills the context (the engine then refuses it).
inline std::int32_t effective_max_tokens(const generation_request& r, std::int32_t max_model_len) {
    return r.max_tokens ? *r.max_tokens : max_model_len - r.prompt_tokens;
}

// The tokens of a request's prompt as the prefix cache sees them (tokens.hpp): prompt_tokens of them.
inline std::vector<std::uint64_t> prompt_token_ids(const generation_request& r) {
    if (r.kind != api_kind::completion) return chat_token_ids(r.messages);
    if (!r.prompt_ids.empty()) return r.prompt_ids;
    return token_ids(r.prompt_text);
}

// Appends what a reply adds to the prompt's tokens for the request's next turn: a chat reply as an
// assistant message (content, <|im_end|>, newline), a completion as plain text after the prompt.
inline void append_reply_token_ids(api_kind kind, std::vector<std::uint64_t>& ids, std::string_view reply) {
    if (kind == api_kind::completion) append_token_ids(ids, reply);
    else append_reply_ids(ids, reply);
}

// /tokenize: {"prompt": "..."} or {"messages": [...]} (with the generation prompt, vLLM's default).
inline std::int32_t parse_tokenize_request(std::string_view body, std::string_view model) {
    const auto j = detail::parse_object(body);
    detail::check_model(j, model);
    if (j.contains("messages")) return detail::chat_prompt_tokens(j);
    if (j.contains("prompt")) return detail::completion_prompt_tokens(j);
    throw detail::bad_request("Field required: 'prompt' or 'messages'");
}

inline std::string error_body(int status, std::string_view type, std::string_view message) {
    nlohmann::ordered_json j;
    j["error"] = {{"message", message}, {"type", type}, {"param", nullptr}, {"code", status}};
    return detail::dump_json(j);
}

inline std::string error_body(const api_error& e) { return error_body(e.status(), e.type(), e.what()); }

inline std::string models_body(std::string_view model, std::int32_t max_model_len, std::int64_t created) {
    nlohmann::ordered_json card = {{"id", model},          {"object", "model"},   {"created", created},
                                   {"owned_by", "servestat"}, {"root", model},      {"parent", nullptr},
                                   {"max_model_len", max_model_len}, {"permission", nlohmann::json::array()}};
    nlohmann::ordered_json j = {{"object", "list"}, {"data", nlohmann::ordered_json::array({card})}};
    return detail::dump_json(j);
}

// The simulator has no vocabulary: ids are stable stand-ins, `count` of them (vocabulary size of
// Qwen2.5's tokenizer), so that clients reading len(tokens) agree with count.
inline std::string tokenize_body(std::int32_t count, std::int32_t max_model_len, std::uint64_t seed) {
    auto ids = nlohmann::ordered_json::array();
    for (std::int32_t i = 0; i < count; ++i)
        ids.push_back(servestat::detail::mix64(seed ^ static_cast<std::uint64_t>(i)) % 151643);
    nlohmann::ordered_json j = {{"count", count}, {"max_model_len", max_model_len}, {"tokens", ids},
                                {"token_strs", nullptr}};
    return detail::dump_json(j);
}

// What vLLM's per-request metrics (--enable-per-request-metrics) are computed from: the finished
// request's scheduler timings and how many tokens it generated.
struct request_metrics {
    request_timings timings; // seconds as the client sees them
    std::int32_t output_tokens = 0;
};

namespace detail {

// A float as Python's json module writes it, which is how vLLM's numbers look: shortest round trip,
// ".0" on whole numbers ("7.6", "0.0", "1e-05").
inline std::string json_float(double x) {
    std::string s = fmt::format("{}", x);
    if (s.find_first_of(".e") == std::string::npos) s.append(".0");
    return s;
}

// Milliseconds to the microsecond: the resolution servestat load logs (6 decimals of a second).
inline std::string json_ms(double seconds) { return json_float(std::round(seconds * 1e6) / 1000); }

// vLLM's `metrics` object, its five members in the order of vLLM's documentation
// (docs/features/per_request_metrics.md): time_to_first_token_ms counts from scheduling (queueing is
// queue_time_ms), generation_time_ms is first -> last token, mean_itl_ms is null for one token (no
// gap to average), tokens_per_second is output tokens over scheduling -> last token. No
// speculative_decoding member: the simulator has no speculative decoding, and vLLM leaves it out too
// unless --per-request-spec-decode-metrics asks for it.
inline std::string metrics_json(const request_metrics& m) {
    const auto& t = m.timings;
    const double generating = t.prefill + t.decode;
    const std::string itl = m.output_tokens > 1 ? json_ms(t.decode / (m.output_tokens - 1)) : "null";
    const std::string rate = generating > 0 ? json_float(std::round(m.output_tokens / generating * 1000) / 1000) : "null";
    return fmt::format(R"({{"time_to_first_token_ms":{},"generation_time_ms":{},"queue_time_ms":{},)"
                       R"("mean_itl_ms":{},"tokens_per_second":{}}})",
                       json_ms(t.prefill), json_ms(t.decode), json_ms(t.queue), itl, rate);
}

inline std::string json_string(std::string_view text) { return dump_json(std::string(text)); }

} // namespace detail

// The bodies and stream events of one generation request. Per-token chunks are a fixed prefix and
// suffix around the token's JSON string, so a 500-stream load does not build a JSON tree per token.
class response_builder {
public:
    response_builder(api_kind kind, const std::string& id, std::int64_t created, std::string_view model)
        : kind_(kind),
          chunk_head_(head(id, kind == api_kind::chat ? "chat.completion.chunk" : "text_completion", created, model)),
          body_head_(head(id, kind == api_kind::chat ? "chat.completion" : "text_completion", created, model)) {}

    api_kind kind() const { return kind_; }

    // Chat streams open with the assistant's role and empty content (vLLM sends it with the first
    // token).
    std::string role_chunk() const {
        std::string out = chunk_head_;
        return out.append(R"(,"choices":[{"index":0,"delta":{"role":"assistant","content":""},)"
                          R"("logprobs":null,"finish_reason":null}]})");
    }

    // One output token. The last one carries finish_reason.
    std::string token_chunk(std::string_view text, bool last) const {
        std::string out = chunk_head_;
        out.append(R"(,"choices":[{"index":0,)");
        out.append(kind_ == api_kind::chat ? R"("delta":{"content":)" : R"("text":)");
        out.append(json_string(text));
        if (kind_ == api_kind::chat) out.push_back('}');
        out.append(R"(,"logprobs":null,"finish_reason":)").append(last ? R"("length")" : "null");
        return out.append(R"(,"stop_reason":null}]})");
    }

    // The usage chunk after the last token (stream_options.include_usage or the server's
    // --enable-force-include-usage): no choices, the usage. `cached_tokens` (given when prefix caching
    // is on) adds vLLM's usage.prompt_tokens_details; `metrics` (given with --enable-per-request-metrics)
    // vLLM's metrics, which a stream carries here only.
    std::string usage_chunk(std::int32_t prompt_tokens, std::int32_t completion_tokens,
                            std::optional<std::int32_t> cached_tokens = std::nullopt,
                            const std::optional<request_metrics>& metrics = std::nullopt) const {
        std::string out = chunk_head_;
        out.append(R"(,"choices":[],"usage":)").append(usage_json(prompt_tokens, completion_tokens, cached_tokens));
        return append_metrics(out, metrics).append("}");
    }

    // A non-streamed response; `metrics` as for usage_chunk, after the usage.
    std::string full_body(std::string_view text, std::int32_t prompt_tokens, std::int32_t completion_tokens,
                          std::optional<std::int32_t> cached_tokens = std::nullopt,
                          const std::optional<request_metrics>& metrics = std::nullopt) const {
        std::string out = body_head_;
        out.append(R"(,"choices":[{"index":0,)");
        if (kind_ == api_kind::chat)
            out.append(R"("message":{"role":"assistant","content":)").append(json_string(text)).append("}");
        else
            out.append(R"("text":)").append(json_string(text));
        out.append(R"(,"logprobs":null,"finish_reason":"length","stop_reason":null}],"usage":)");
        out.append(usage_json(prompt_tokens, completion_tokens, cached_tokens));
        return append_metrics(out, metrics).append("}");
    }

private:
    // {"id":..,"object":..,"created":..,"model":.. without the closing brace: callers add members.
    static std::string head(const std::string& id, const char* object, std::int64_t created, std::string_view model) {
        nlohmann::ordered_json j = {
            {"id", id}, {"object", object}, {"created", created}, {"model", std::string(model)}};
        std::string out = detail::dump_json(j);
        out.pop_back();
        return out;
    }
    static std::string json_string(std::string_view text) { return detail::json_string(text); }
    static std::string& append_metrics(std::string& out, const std::optional<request_metrics>& metrics) {
        if (metrics) out.append(R"(,"metrics":)").append(detail::metrics_json(*metrics));
        return out;
    }
    // vLLM's UsageInfo; prompt_tokens_details only when the prefix cache reports cached tokens.
    static std::string usage_json(std::int32_t prompt_tokens, std::int32_t completion_tokens,
                                  std::optional<std::int32_t> cached_tokens) {
        std::string out = fmt::format(R"({{"prompt_tokens":{},"total_tokens":{},"completion_tokens":{})",
                                      prompt_tokens, prompt_tokens + completion_tokens, completion_tokens);
        if (cached_tokens) out.append(fmt::format(R"(,"prompt_tokens_details":{{"cached_tokens":{}}})", *cached_tokens));
        return out.append("}");
    }

    api_kind kind_;
    std::string chunk_head_; // of stream chunks
    std::string body_head_;  // of the non-streamed response
};

} // namespace servestat::sim
