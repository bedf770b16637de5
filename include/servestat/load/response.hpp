// What the driver reads from an OpenAI-compatible response: stream chunks and whole bodies.
#pragma once

#include <cstdint>     // std::int32_t, std::int64_t
#include <limits>      // std::numeric_limits
#include <optional>    // std::optional
#include <stdexcept>   // std::runtime_error
#include <string>      // std::string
#include <string_view> // std::string_view

#include <simdjson.h> // simdjson::dom::parser

namespace servestat::load {

// The per-request timings a server reports (servestat simulate: "servestat_timings" in the body or
// the last chunk, or the x-servestat-timings header).
struct server_timings {
    double queue = 0;
    double prefill = 0;
    double decode = 0;
};

// One stream chunk or one whole response body, reduced to what the log needs.
struct response_info {
    bool has_content = false; // text, content or reasoning_content not empty: a role-only chunk is not
    std::optional<std::int32_t> prompt_tokens;
    std::optional<std::int32_t> completion_tokens;
    std::optional<server_timings> timings;
    std::optional<std::string> error; // {"error": ...} instead of a completion (vLLM streams these)
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
        simdjson::dom::array choices;
        if (!root["choices"].get_array().get(choices))
            for (auto choice : choices)
                if (detail::choice_has_content(choice)) out.has_content = true;
        simdjson::dom::element usage;
        if (!root["usage"].get(usage) && usage.is_object()) {
            out.prompt_tokens = detail::token_count(usage, "prompt_tokens");
            out.completion_tokens = detail::token_count(usage, "completion_tokens");
        }
        out.timings = detail::read_timings(root);
        return out;
    }

private:
    simdjson::dom::parser parser_;
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
