// The simulator's OpenAI Responses API (POST /v1/responses) without the transport: request, store, bodies.
#pragma once

#include <cstddef>       // std::size_t
#include <cstdint>       // std::int32_t, std::int64_t
#include <deque>         // std::deque
#include <optional>      // std::optional
#include <string>        // std::string
#include <string_view>   // std::string_view
#include <unordered_map> // std::unordered_map
#include <utility>       // std::move
#include <vector>        // std::vector

#include <fmt/format.h>      // fmt::format
#include <nlohmann/json.hpp> // nlohmann::json, nlohmann::ordered_json

#include "servestat/core/token_count.hpp" // count_chat_tokens
#include "servestat/sim/http_api.hpp"     // api_error, generation_request, request_metrics, detail::read_messages, dump_json

// As vLLM's OpenAI server serves it (vllm/entrypoints/openai/serving_responses.py, without Harmony):
// the request's input becomes chat messages -- `instructions` as a system message first, then the
// stored conversation of `previous_response_id`, then `input` (a string is one user message) -- and
// is rendered and counted as a chat prompt, so usage equals the chat endpoint's for the same
// messages. max_output_tokens is capped at what the context leaves (vLLM's to_sampling_params), not
// refused. A stream is a sequence of named server-sent events ("event: TYPE\ndata: JSON\n\n"):
// response.created, response.in_progress, then with the first token response.output_item.added and
// response.content_part.added, one response.output_text.delta per token, and response.output_text.done,
// response.content_part.done, response.output_item.done, response.completed; no "data: [DONE]".
// Shapes and field order follow OpenAI's API reference, which vLLM's pydantic models mirror.

namespace servestat::sim {

// What a /v1/responses body asks for, before the stored conversation is resolved.
struct responses_request {
    detail::chat_messages input;             // the request's own messages
    std::optional<std::string> instructions; // a system message ahead of everything
    std::optional<std::int32_t> max_output_tokens;
    bool stream = false;
    bool store = true;                       // OpenAI's default; vLLM's with VLLM_ENABLE_RESPONSES_API_STORE=1
    std::optional<std::string> previous_response_id;
    double temperature = 1.0, top_p = 1.0;   // echoed in the response object
};

namespace detail {

inline std::optional<std::string> optional_string(const nlohmann::json& object, const char* key) {
    const auto* v = member(object, key);
    if (!v) return std::nullopt;
    if (!v->is_string()) throw bad_request(std::string("'").append(key).append("' must be a string"));
    return v->get<std::string>();
}

inline double optional_number(const nlohmann::json& object, const char* key, double fallback) {
    const auto* v = member(object, key);
    if (!v) return fallback;
    if (!v->is_number()) throw bad_request(std::string("'").append(key).append("' must be a number"));
    return v->get<double>();
}

} // namespace detail

// Validates a /v1/responses body; throws api_error as the other endpoints do.
inline responses_request parse_responses_request(std::string_view body, std::string_view model) {
    const auto j = detail::parse_object(body);
    detail::check_model(j, model);
    responses_request r;
    const auto* input = detail::member(j, "input");
    if (!input) throw detail::bad_request("Field required: 'input'");
    if (input->is_string()) {
        r.input.emplace_back("user", input->get<std::string>());
    } else if (input->is_array() && !input->empty()) {
        for (const auto& item : *input) {
            const auto* type = item.is_object() ? detail::member(item, "type") : nullptr;
            if (type && !(type->is_string() && type->get_ref<const std::string&>() == "message"))
                throw detail::bad_request("The simulator serves only message items in 'input'");
        }
        r.input = detail::read_messages(*input);
    } else {
        throw detail::bad_request("'input' must be a string or a non-empty list of messages");
    }
    r.instructions = detail::optional_string(j, "instructions");
    r.max_output_tokens = detail::optional_count(j, "max_output_tokens");
    r.stream = detail::optional_bool(j, "stream");
    r.store = detail::member(j, "store") ? detail::optional_bool(j, "store") : true;
    r.previous_response_id = detail::optional_string(j, "previous_response_id");
    r.temperature = detail::optional_number(j, "temperature", 1.0);
    r.top_p = detail::optional_number(j, "top_p", 1.0);
    if (const auto* tools = detail::member(j, "tools"); tools && !(tools->is_array() && tools->empty()))
        throw detail::bad_request("Tool use is not supported in Responses API without Harmony"); // vLLM's words
    if (detail::optional_bool(j, "background"))
        throw detail::bad_request("The simulator does not support background responses");
    return r;
}

// vLLM's answer to a previous_response_id it does not have (serving_responses.py, _make_not_found_error).
inline api_error response_not_found(std::string_view id) {
    return api_error(404, "invalid_request_error", fmt::format("Response with id '{}' not found.", id));
}

// The conversations of stored responses (store: true), by response id: the messages the response was
// generated from, its reply appended as an assistant message. Bounded: past `capacity` responses the
// oldest is forgotten (vLLM keeps every one, and warns that this leaks memory).
class response_store {
public:
    static constexpr std::size_t default_capacity = 10000;
    explicit response_store(std::size_t capacity = default_capacity) : capacity_(capacity) {}

    const detail::chat_messages* find(const std::string& id) const {
        const auto it = conversations_.find(id);
        return it == conversations_.end() ? nullptr : &it->second;
    }

    void put(const std::string& id, detail::chat_messages conversation) {
        if (capacity_ == 0) return;
        if (conversations_.insert_or_assign(id, std::move(conversation)).second) order_.push_back(id);
        while (conversations_.size() > capacity_) {
            conversations_.erase(order_.front());
            order_.pop_front();
        }
    }

    std::size_t size() const { return conversations_.size(); }

private:
    std::size_t capacity_;
    std::unordered_map<std::string, detail::chat_messages> conversations_;
    std::deque<std::string> order_; // ids, oldest first
};

// The prompt's messages (instructions, the stored conversation, the input) as a generation request
// the engine can run: counted as a chat prompt. Throws response_not_found for an unknown
// previous_response_id.
inline generation_request responses_generation(const responses_request& r, const response_store& store) {
    generation_request g;
    g.kind = api_kind::responses;
    if (r.instructions) g.messages.emplace_back("system", *r.instructions);
    if (r.previous_response_id) {
        const auto* previous = store.find(*r.previous_response_id);
        if (!previous) throw response_not_found(*r.previous_response_id);
        g.messages.insert(g.messages.end(), previous->begin(), previous->end());
    }
    g.messages.insert(g.messages.end(), r.input.begin(), r.input.end());
    g.prompt_tokens = count_chat_tokens(g.messages);
    g.max_tokens = r.max_output_tokens;
    g.stream = r.stream;
    return g;
}

// max_output_tokens the engine runs with: as sent but at most what the context leaves (vLLM caps it
// rather than refusing); a prompt that fills the context gets 0 or less and the engine refuses it.
inline std::int32_t responses_max_tokens(const generation_request& g, std::int32_t max_model_len) {
    const std::int32_t room = max_model_len - g.prompt_tokens;
    return g.max_tokens && *g.max_tokens < room ? *g.max_tokens : room;
}

// usage of a response: input_tokens_details.cached_tokens is the prefix cache's hit (0 when off).
struct responses_usage {
    std::int32_t input_tokens = 0, cached_tokens = 0, output_tokens = 0;
};

// The response object and the stream's events of one request. Sequence numbers follow from the
// event's place: created 0, in_progress 1, output_item.added 2, content_part.added 3, the delta of
// token i 4 + i, then for N tokens output_text.done 4 + N ... response.completed 7 + N.
class responses_builder {
public:
    // `id` is "resp_...", `item_id` "msg_..."; `max_output_tokens` the effective one.
    responses_builder(std::string id, std::string item_id, std::int64_t created_at, std::string_view model,
                      const responses_request& request, std::int32_t max_output_tokens)
        : id_(std::move(id)), item_id_(std::move(item_id)), created_at_(created_at), model_(model),
          instructions_(request.instructions), previous_response_id_(request.previous_response_id),
          store_(request.store), temperature_(request.temperature), top_p_(request.top_p),
          max_output_tokens_(max_output_tokens),
          delta_head_(std::string(R"({"type":"response.output_text.delta","sequence_number":)")),
          delta_middle_(fmt::format(R"(,"item_id":{},"output_index":0,"content_index":0,"delta":)",
                                    detail::json_string(item_id_))) {}

    const std::string& id() const { return id_; }
    const std::string& item_id() const { return item_id_; }

    // The response object: in progress (no text, no usage) or completed; `metrics` (given with
    // --enable-per-request-metrics) adds vLLM's metrics at its top level, after everything else.
    std::string response_json(const std::string* text, const responses_usage* usage,
                              const std::optional<request_metrics>& metrics = std::nullopt) const {
        nlohmann::ordered_json j;
        j["id"] = id_;
        j["object"] = "response";
        j["created_at"] = created_at_;
        j["status"] = text ? "completed" : "in_progress";
        j["error"] = nullptr;
        j["incomplete_details"] = nullptr;
        j["instructions"] = instructions_ ? nlohmann::ordered_json(*instructions_) : nlohmann::ordered_json();
        j["max_output_tokens"] = max_output_tokens_;
        j["model"] = model_;
        j["output"] = nlohmann::ordered_json::array();
        if (text) j["output"].push_back(message_item(*text, true));
        j["parallel_tool_calls"] = true;
        j["previous_response_id"] =
            previous_response_id_ ? nlohmann::ordered_json(*previous_response_id_) : nlohmann::ordered_json();
        j["reasoning"] = nullptr;
        j["service_tier"] = "auto";
        j["store"] = store_;
        j["temperature"] = temperature_;
        j["text"] = {{"format", {{"type", "text"}}}};
        j["tool_choice"] = "auto";
        j["tools"] = nlohmann::ordered_json::array();
        j["top_p"] = top_p_;
        j["truncation"] = "disabled";
        if (usage) {
            nlohmann::ordered_json u;
            u["input_tokens"] = usage->input_tokens;
            u["input_tokens_details"] = {{"cached_tokens", usage->cached_tokens}};
            u["output_tokens"] = usage->output_tokens;
            u["output_tokens_details"] = {{"reasoning_tokens", 0}};
            u["total_tokens"] = usage->input_tokens + usage->output_tokens;
            j["usage"] = std::move(u);
        } else {
            j["usage"] = nullptr;
        }
        j["user"] = nullptr;
        j["metadata"] = nlohmann::ordered_json::object();
        std::string out = detail::dump_json(j);
        if (metrics) {
            out.pop_back();
            out.append(R"(,"metrics":)").append(detail::metrics_json(*metrics)).append("}");
        }
        return out;
    }

    // A non-streamed response: the completed object.
    std::string full_body(const std::string& text, const responses_usage& usage,
                          const std::optional<request_metrics>& metrics = std::nullopt) const {
        return response_json(&text, &usage, metrics);
    }

    // response.created and response.in_progress, sent as soon as the request is accepted.
    void append_opening(std::string& out) const {
        const std::string response = response_json(nullptr, nullptr);
        append_event(out, "response.created", lifecycle("response.created", 0, response));
        append_event(out, "response.in_progress", lifecycle("response.in_progress", 1, response));
    }

    // response.output_item.added and response.content_part.added, sent with the first token.
    void append_item_opening(std::string& out) const {
        nlohmann::ordered_json added;
        added["type"] = "response.output_item.added";
        added["sequence_number"] = 2;
        added["output_index"] = 0;
        added["item"] = message_item(std::nullopt, false);
        append_event(out, "response.output_item.added", detail::dump_json(added));
        append_event(out, "response.content_part.added", part_event("response.content_part.added", 3, ""));
    }

    // The delta of output token `index`.
    void append_delta(std::string& out, std::int32_t index, std::string_view token) const {
        out.append("event: response.output_text.delta\ndata: ").append(delta_head_);
        out.append(std::to_string(4 + index)).append(delta_middle_).append(detail::json_string(token));
        out.append(R"(,"logprobs":[]})").append("\n\n");
    }

    // The done events and response.completed after the last of `tokens` tokens; `metrics` goes in
    // the completed response, the one event of the stream that carries it (as vLLM sends it).
    void append_closing(std::string& out, const std::string& text, std::int32_t tokens, const responses_usage& usage,
                        const std::optional<request_metrics>& metrics = std::nullopt) const {
        const std::int32_t n = 4 + tokens;
        nlohmann::ordered_json text_done;
        text_done["type"] = "response.output_text.done";
        text_done["sequence_number"] = n;
        text_done["item_id"] = item_id_;
        text_done["output_index"] = 0;
        text_done["content_index"] = 0;
        text_done["text"] = text;
        text_done["logprobs"] = nlohmann::ordered_json::array();
        append_event(out, "response.output_text.done", detail::dump_json(text_done));
        append_event(out, "response.content_part.done", part_event("response.content_part.done", n + 1, text));
        nlohmann::ordered_json item_done;
        item_done["type"] = "response.output_item.done";
        item_done["sequence_number"] = n + 2;
        item_done["output_index"] = 0;
        item_done["item"] = message_item(text, true);
        append_event(out, "response.output_item.done", detail::dump_json(item_done));
        append_event(out, "response.completed",
                     lifecycle("response.completed", n + 3, response_json(&text, &usage, metrics)));
    }

private:
    static void append_event(std::string& out, std::string_view type, std::string_view data) {
        out.append("event: ").append(type).append("\ndata: ").append(data).append("\n\n");
    }

    static std::string lifecycle(std::string_view type, std::int32_t sequence, const std::string& response) {
        std::string out = fmt::format(R"({{"type":"{}","sequence_number":{},"response":)", type, sequence);
        return out.append(response).append("}");
    }

    static nlohmann::ordered_json text_part(const std::string& text) {
        nlohmann::ordered_json part;
        part["type"] = "output_text";
        part["text"] = text;
        part["annotations"] = nlohmann::ordered_json::array();
        return part;
    }

    std::string part_event(std::string_view type, std::int32_t sequence, const std::string& text) const {
        nlohmann::ordered_json j;
        j["type"] = type;
        j["sequence_number"] = sequence;
        j["item_id"] = item_id_;
        j["output_index"] = 0;
        j["content_index"] = 0;
        j["part"] = text_part(text);
        return detail::dump_json(j);
    }

    nlohmann::ordered_json message_item(std::optional<std::string> text, bool completed) const {
        nlohmann::ordered_json item;
        item["type"] = "message";
        item["id"] = item_id_;
        item["status"] = completed ? "completed" : "in_progress";
        item["role"] = "assistant";
        item["content"] = nlohmann::ordered_json::array();
        if (text) item["content"].push_back(text_part(*text));
        return item;
    }

    std::string id_, item_id_;
    std::int64_t created_at_;
    std::string model_;
    std::optional<std::string> instructions_, previous_response_id_;
    bool store_;
    double temperature_, top_p_;
    std::int32_t max_output_tokens_;
    std::string delta_head_, delta_middle_; // a delta event around its sequence number and token
};

} // namespace servestat::sim
