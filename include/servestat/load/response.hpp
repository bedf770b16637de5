// What the driver reads from an OpenAI-compatible response: stream chunks and whole bodies.
#pragma once

#include <cmath>       // std::isfinite
#include <cstddef>     // std::size_t
#include <cstdint>     // std::int32_t, std::int64_t
#include <limits>      // std::numeric_limits
#include <optional>    // std::optional
#include <stdexcept>   // std::runtime_error
#include <string>      // std::string
#include <string_view> // std::string_view

#include <fmt/format.h> // fmt::format
#include <simdjson.h>   // simdjson::dom::parser

namespace servestat::load {

// The per-request timings a server reports about itself, in seconds, each member only when the
// server gave it (servers report different subsets, and a missing value is not 0):
// - vLLM with --enable-per-request-metrics: `metrics` {queue_time_ms, time_to_first_token_ms
//   (scheduled -> first token), generation_time_ms, mean_itl_ms, speculative_decoding{...}}, at the
//   top level of a body, of the final usage chunk of a stream, or of a Responses API response object;
// - NVIDIA Dynamo, asked with "nvext":{"extra_fields":["timing"]}: `nvext.timing` {ttft_ms (arrival
//   -> first token, queueing included), total_time_ms};
// - Groq: `usage` (in a stream `x_groq.usage`) {queue_time, prompt_time, completion_time} in seconds;
// - SambaNova: `usage` {time_to_first_token (s, from arrival), total_latency (s), acceptance_rate}.
struct server_timings {
    std::optional<double> queue;            // waiting in the scheduler's queue
    std::optional<double> prefill;          // scheduled -> first token
    std::optional<double> decode;           // first -> last token
    std::optional<double> ttft;             // arrival -> first token, where a server gives only that sum
    std::optional<double> itl;              // mean inter-token latency
    std::optional<double> spec_acceptance;  // speculative decoding: mean acceptance length (tokens a step)
    std::optional<double> draft_acceptance; // speculative decoding: share of draft tokens accepted

    bool empty() const {
        return !queue && !prefill && !decode && !ttft && !itl && !spec_acceptance && !draft_acceptance;
    }

    // Takes the members this one lacks from `other`: the first source that gives a value wins.
    void fill_from(const server_timings& other) {
        auto fill = [](std::optional<double>& mine, const std::optional<double>& theirs) {
            if (!mine) mine = theirs;
        };
        fill(queue, other.queue);
        fill(prefill, other.prefill);
        fill(decode, other.decode);
        fill(ttft, other.ttft);
        fill(itl, other.itl);
        fill(spec_acceptance, other.spec_acceptance);
        fill(draft_acceptance, other.draft_acceptance);
    }
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

// A number the server reported under `key`. Absent, null, not a number, negative or not finite is
// no number: a server's bad value must neither fail the request nor be logged as if measured.
inline std::optional<double> reported_number(simdjson::dom::element parent, std::string_view key) {
    double x = 0;
    if (parent[key].get_double().get(x) || !std::isfinite(x) || x < 0) return std::nullopt;
    return x;
}

// The same for a duration reported in milliseconds, in seconds.
inline std::optional<double> reported_ms(simdjson::dom::element parent, std::string_view key) {
    const auto ms = reported_number(parent, key);
    return ms ? std::optional<double>(*ms / 1000) : std::nullopt;
}

inline std::optional<simdjson::dom::element> object_member(simdjson::dom::element parent, std::string_view key) {
    simdjson::dom::element e;
    if (parent[key].get(e) || !e.is_object()) return std::nullopt;
    return e;
}

// Decode from servers that give only arrival -> first token and arrival -> end: the difference, when
// both are known and it is not negative.
inline std::optional<double> after_first_token(const std::optional<double>& ttft, const std::optional<double>& total) {
    if (!ttft || !total || *total < *ttft) return std::nullopt;
    return *total - *ttft;
}

// vLLM's `metrics` object (docs/features/per_request_metrics.md). tokens_per_second is not kept: it
// is output tokens over prefill + decode, which the log has already.
inline server_timings vllm_metrics(simdjson::dom::element metrics) {
    server_timings t;
    t.queue = reported_ms(metrics, "queue_time_ms");
    t.prefill = reported_ms(metrics, "time_to_first_token_ms");
    t.decode = reported_ms(metrics, "generation_time_ms");
    t.itl = reported_ms(metrics, "mean_itl_ms");
    if (const auto spec = object_member(metrics, "speculative_decoding")) {
        t.spec_acceptance = reported_number(*spec, "mean_acceptance_length");
        t.draft_acceptance = reported_number(*spec, "draft_acceptance_rate");
    }
    return t;
}

// NVIDIA Dynamo's `nvext.timing`: its TTFT counts from the request's arrival, queueing included.
inline server_timings dynamo_timing(simdjson::dom::element timing) {
    server_timings t;
    t.ttft = reported_ms(timing, "ttft_ms");
    t.decode = after_first_token(t.ttft, reported_ms(timing, "total_time_ms"));
    return t;
}

// Groq's (queue_time, prompt_time, completion_time) and SambaNova's (time_to_first_token,
// total_latency, acceptance_rate) timings inside `usage`, in seconds; a usage holds one or the other.
inline server_timings usage_timings(simdjson::dom::element usage) {
    server_timings t;
    t.queue = reported_number(usage, "queue_time");
    t.prefill = reported_number(usage, "prompt_time");
    t.decode = reported_number(usage, "completion_time");
    t.ttft = reported_number(usage, "time_to_first_token");
    if (!t.decode) t.decode = after_first_token(t.ttft, reported_number(usage, "total_latency"));
    t.draft_acceptance = reported_number(usage, "acceptance_rate");
    return t;
}

// The server timings an object carries, wherever a known server puts them; nothing when it has none.
// `object` is a chat or completions body or chunk, or a Responses API response object.
inline std::optional<server_timings> read_server_timings(simdjson::dom::element object) {
    server_timings t;
    if (const auto metrics = object_member(object, "metrics")) t.fill_from(vllm_metrics(*metrics));
    if (const auto nvext = object_member(object, "nvext"))
        if (const auto timing = object_member(*nvext, "timing")) t.fill_from(dynamo_timing(*timing));
    if (const auto usage = object_member(object, "usage")) t.fill_from(usage_timings(*usage));
    if (const auto groq = object_member(object, "x_groq")) // Groq's stream: usage on the last chunk
        if (const auto usage = object_member(*groq, "usage")) t.fill_from(usage_timings(*usage));
    if (t.empty()) return std::nullopt;
    return t;
}

// Python's json module writes a non-finite float as NaN, Infinity or -Infinity, which are not JSON
// and which simdjson refuses. A server's bad number must not fail its request: after a failed parse
// the words outside strings become null (read as missing) and the text is parsed again. nullopt when
// there is no such word.
inline std::optional<std::string> python_words_as_null(std::string_view json) {
    if (json.find("NaN") == std::string_view::npos && json.find("Infinity") == std::string_view::npos)
        return std::nullopt;
    std::string out;
    out.reserve(json.size());
    bool in_string = false, escaped = false, replaced = false;
    for (std::size_t i = 0; i < json.size(); ++i) {
        const char c = json[i];
        if (in_string) {
            if (escaped) escaped = false;
            else if (c == '\\') escaped = true;
            else if (c == '"') in_string = false;
            out += c;
            continue;
        }
        const auto rest = json.substr(i);
        const std::size_t word = rest.starts_with("-Infinity") ? 9 : rest.starts_with("Infinity") ? 8
                                 : rest.starts_with("NaN")     ? 3 : 0;
        if (word > 0) {
            out.append("null");
            i += word - 1;
            replaced = true;
            continue;
        }
        if (c == '"') in_string = true;
        out += c;
    }
    if (!replaced) return std::nullopt;
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
        if (auto e = parser_.parse(json.data(), json.size()).get(root)) {
            const auto repaired = detail::python_words_as_null(json);
            if (!repaired || parser_.parse(repaired->data(), repaired->size()).get(root))
                throw response_error(std::string("malformed JSON in the response: ") + simdjson::error_message(e));
        }
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
        out.timings = detail::read_server_timings(root);
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
            out.timings = detail::read_server_timings(response); // vLLM: response.metrics
        }
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
        out.timings = detail::read_server_timings(response);
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

} // namespace servestat::load
