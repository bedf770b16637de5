// What the driver reads from an OpenAI-compatible response: stream chunks and whole bodies.
#pragma once

#include <cstdint>     // std::int32_t, std::int64_t
#include <limits>      // std::numeric_limits
#include <optional>    // std::optional
#include <stdexcept>   // std::runtime_error
#include <string>      // std::string
#include <string_view> // std::string_view

#include <fmt/format.h> // fmt::format
#include <simdjson.h>   // simdjson::dom::parser

namespace servestat::load {

// The per-request timings a server reports (servestat simulate: "servestat_timings" in the body or
// the last chunk, or the x-servestat-timings header).
struct server_timings {
    double queue = 0;
    double prefill = 0;
    double decode = 0;
};

// Which API a request speaks, and so how its stream ends: chat and completions chunks end with
// `data: [DONE]`, the Responses API with a response.completed (or .incomplete) event.
enum class api_protocol { chat_completions, responses };

// One stream chunk or one whole response body, reduced to what the log needs.
struct response_info {
    bool has_content = false; // text, content or reasoning_content not empty: a role-only chunk is not
    std::optional<std::int32_t> prompt_tokens;
    std::optional<std::int32_t> completion_tokens;
    std::optional<std::int32_t> cached_tokens; // usage.prompt_tokens_details (Responses: input_tokens_details)
    std::optional<server_timings> timings;
    std::optional<std::string> error; // {"error": ...} instead of a completion (vLLM streams these)
    bool ends_response = false;       // a Responses API terminal event: response.completed or .incomplete
    std::optional<std::string> response_id; // the Responses API's "resp_..." id
    std::string text; // the reply's text in this chunk or body, when the reader keeps text
};

class response_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

namespace detail {

inline bool non_empty_string(simdjson::dom::element parent, std::string_view key) {
    std::string_view s;
    return !parent[key].get_string().get(s) && !s.empty();
}

inline bool choice_has_content(simdjson::dom::element choice) {
    if (non_empty_string(choice, "text")) return true;
    for (const char* holder : {"delta", "message"}) {
        simdjson::dom::element m;
        if (choice[holder].get(m)) continue;
        if (non_empty_string(m, "content") || non_empty_string(m, "reasoning_content")) return true;
        simdjson::dom::array calls;
        if (!m["tool_calls"].get_array().get(calls) && calls.size() > 0) return true;
    }
    return false;
}

inline std::optional<std::int32_t> token_count(simdjson::dom::element usage, std::string_view key) {
    std::int64_t n;
    if (usage[key].get_int64().get(n) || n < 0 || n > std::numeric_limits<std::int32_t>::max()) return std::nullopt;
    return static_cast<std::int32_t>(n);
}

inline std::optional<std::int32_t> cached_count(simdjson::dom::element usage, std::string_view details_key) {
    simdjson::dom::element details;
    if (usage[details_key].get(details) || !details.is_object()) return std::nullopt;
    return token_count(details, "cached_tokens");
}

// The text a chat or completions choice carries (the reply's words, not reasoning or tool calls).
inline void append_choice_text(simdjson::dom::element choice, std::string& out) {
    std::string_view s;
    if (!choice["text"].get_string().get(s)) out.append(s);
    for (const char* holder : {"delta", "message"}) {
        simdjson::dom::element m;
        if (!choice[holder].get(m) && !m["content"].get_string().get(s)) out.append(s);
    }
}

inline std::optional<server_timings> read_timings(simdjson::dom::element root) {
    simdjson::dom::element t;
    if (root["servestat_timings"].get(t)) return std::nullopt;
    server_timings out;
    if (t["queue"].get_double().get(out.queue) || t["prefill"].get_double().get(out.prefill) ||
        t["decode"].get_double().get(out.decode))
        return std::nullopt;
    return out;
}

inline std::string error_text(simdjson::dom::element e) {
    std::string_view message;
    if (!e["message"].get_string().get(message)) return std::string(message);
    if (!e.get_string().get(message)) return std::string(message);
    return simdjson::minify(e);
}

} // namespace detail

// Reads chunks and bodies with one reusable simdjson parser (a stream is thousands of small JSON
// documents; a DOM parser that keeps its buffers is what makes 20 000 chunks a second cheap).
class response_reader {
public:
    // Whether read() fills response_info::text (a multi-turn session resends the reply).
    void keep_text(bool on) noexcept { keep_text_ = on; }

    // Throws response_error when the text is not a JSON object.
    response_info read(std::string_view json) {
        simdjson::dom::element root;
        if (auto e = parser_.parse(json.data(), json.size()).get(root))
            throw response_error(std::string("malformed JSON in the response: ") + simdjson::error_message(e));
        if (!root.is_object()) throw response_error("the response is not a JSON object");
        response_info out;
        simdjson::dom::element error;
        if (!root["error"].get(error) && !error.is_null()) {
            out.error = detail::error_text(error);
            return out;
        }
        std::string_view object;
        if (!root["object"].get_string().get(object) && object == "error") { // older vLLM: the error at the top
            out.error = detail::error_text(root);
            return out;
        }
        std::string_view type;
        if (!root["type"].get_string().get(type)) {
            if (type.starts_with("response.")) read_response_event(root, type, out);
            else if (type == "error") out.error = detail::error_text(root);
            return out;
        }
        if (object == "response") {
            read_response_object(root, out);
            return out;
        }
        simdjson::dom::array choices;
        if (!root["choices"].get_array().get(choices))
            for (auto choice : choices) {
                if (detail::choice_has_content(choice)) out.has_content = true;
                if (keep_text_) detail::append_choice_text(choice, out.text);
            }
        simdjson::dom::element usage;
        if (!root["usage"].get(usage) && usage.is_object()) {
            out.prompt_tokens = detail::token_count(usage, "prompt_tokens");
            out.completion_tokens = detail::token_count(usage, "completion_tokens");
            out.cached_tokens = detail::cached_count(usage, "prompt_tokens_details");
        }
        out.timings = detail::read_timings(root);
        return out;
    }

private:
    // The Responses API's stream events (`type` "response.*"). Text, reasoning and tool-call
    // argument deltas are content, as delta.content, reasoning_content and tool_calls are in chat.
    void read_response_event(simdjson::dom::element root, std::string_view type, response_info& out) {
        if (type == "response.output_text.delta" || type == "response.reasoning_text.delta" ||
            type == "response.function_call_arguments.delta") {
            std::string_view delta;
            if (!root["delta"].get_string().get(delta) && !delta.empty()) {
                out.has_content = true;
                if (keep_text_ && type == "response.output_text.delta") out.text.assign(delta);
            }
        } else if (type == "response.completed" || type == "response.incomplete" || type == "response.failed") {
            simdjson::dom::element response;
            if (root["response"].get(response) || !response.is_object())
                throw response_error(fmt::format("{} without its response object", type));
            if (type == "response.failed") {
                simdjson::dom::element e;
                out.error = !response["error"].get(e) && !e.is_null() ? detail::error_text(e) : "response.failed";
                return;
            }
            out.ends_response = true;
            read_response_usage(response, out);
        }
        out.timings = detail::read_timings(root);
    }

    // A whole Responses API body (object "response"), or a terminal event's response.
    void read_response_object(simdjson::dom::element response, response_info& out) {
        std::string_view status;
        if (!response["status"].get_string().get(status) && status == "failed") {
            simdjson::dom::element e;
            out.error = !response["error"].get(e) && !e.is_null() ? detail::error_text(e) : "response failed";
            return;
        }
        read_response_usage(response, out);
        simdjson::dom::array output;
        if (!response["output"].get_array().get(output))
            for (auto item : output) {
                simdjson::dom::array content;
                if (item["content"].get_array().get(content)) continue;
                for (auto part : content) {
                    std::string_view text;
                    if (part["text"].get_string().get(text) || text.empty()) continue;
                    out.has_content = true;
                    if (keep_text_) out.text.append(text);
                }
            }
        out.timings = detail::read_timings(response);
    }

    static void read_response_usage(simdjson::dom::element response, response_info& out) {
        std::string_view id;
        if (!response["id"].get_string().get(id)) out.response_id = std::string(id);
        simdjson::dom::element usage;
        if (response["usage"].get(usage) || !usage.is_object()) return;
        out.prompt_tokens = detail::token_count(usage, "input_tokens");
        out.completion_tokens = detail::token_count(usage, "output_tokens");
        out.cached_tokens = detail::cached_count(usage, "input_tokens_details");
    }

    simdjson::dom::parser parser_;
    bool keep_text_ = false;
};

// "queue=0.0123;prefill=0.2;decode=0.3" (servestat simulate's x-servestat-timings header): each key
// once, numbers whole, or nothing.
inline std::optional<server_timings> parse_timings_header(std::string_view value) {
    server_timings out;
    unsigned found = 0;
    while (!value.empty()) {
        const auto end = value.find(';');
        const auto item = value.substr(0, end);
        value = end == std::string_view::npos ? std::string_view{} : value.substr(end + 1);
        const auto eq = item.find('=');
        if (eq == std::string_view::npos) return std::nullopt;
        const std::string number(item.substr(eq + 1));
        double x = 0;
        try {
            std::size_t used = 0;
            x = std::stod(number, &used);
            if (used != number.size()) return std::nullopt;
        } catch (const std::exception&) {
            return std::nullopt;
        }
        const auto key = item.substr(0, eq);
        const unsigned bit = key == "queue" ? 1u : key == "prefill" ? 2u : key == "decode" ? 4u : 0u;
        if (bit == 0) continue;
        if (found & bit) return std::nullopt;
        found |= bit;
        (bit == 1 ? out.queue : bit == 2 ? out.prefill : out.decode) = x;
    }
    if (found != 7) return std::nullopt;
    return out;
}

} // namespace servestat::load
