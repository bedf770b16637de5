// Failed requests grouped by cause, with one example message each.
#pragma once

#include <array>       // std::array
#include <cstddef>     // std::size_t
#include <string>      // std::string
#include <string_view> // std::string_view
#include <vector>      // std::vector

#include "servestat/core/request_table.hpp" // request_table
#include "servestat/core/text.hpp"          // detail::contains_ignoring_case

namespace servestat {

enum class error_kind { context_overflow, rate_limited, server_error, timeout, transport, cancelled, other };

inline constexpr std::array<error_kind, 7> all_error_kinds{
    error_kind::context_overflow, error_kind::rate_limited, error_kind::server_error, error_kind::timeout,
    error_kind::transport,        error_kind::cancelled,    error_kind::other};

inline std::string_view to_string(error_kind k) noexcept {
    constexpr std::array<std::string_view, 7> names{"context_overflow", "rate_limited", "server_error", "timeout",
                                                    "transport",        "cancelled",    "other"};
    return names[static_cast<std::size_t>(k)];
}

namespace detail {

// vLLM: "This model's maximum context length is 4096 tokens and your request has 4030 input
// tokens"; OpenAI: "context_length_exceeded".
inline bool mentions_context_overflow(std::string_view message) {
    return contains_ignoring_case(message, "maximum context length") ||
           contains_ignoring_case(message, "context_length_exceeded") ||
           contains_ignoring_case(message, "context length") ||
           (contains_ignoring_case(message, "max_tokens") && contains_ignoring_case(message, "too large"));
}

} // namespace detail

inline error_kind classify_failure(request_status status, int http_status, std::string_view message) {
    if (status == request_status::timeout) return error_kind::timeout;
    if (status == request_status::transport) return error_kind::transport;
    if (status == request_status::cancelled) return error_kind::cancelled;
    if (detail::mentions_context_overflow(message) && (http_status == 0 || http_status == 400 || http_status == 413))
        return error_kind::context_overflow;
    if (http_status == 429) return error_kind::rate_limited;
    if (http_status >= 500 && http_status <= 599) return error_kind::server_error;
    return error_kind::other;
}

// Reports show an example error text up to this many characters (the whole text is in the JSON).
inline constexpr std::size_t max_example_chars = 300;

struct error_count {
    error_kind kind;
    std::size_t count = 0;
    std::string example; // the first failure of this kind in log order
};

// Kinds with no failures are left out; the rest in all_error_kinds order.
inline std::vector<error_count> count_errors(const request_table& t) {
    std::array<error_count, all_error_kinds.size()> by_kind{};
    for (std::size_t k = 0; k < by_kind.size(); ++k) by_kind[k].kind = all_error_kinds[k];
    const auto status = t.status();
    const auto http = t.http_status();
    for (std::size_t i = 0; i < t.size(); ++i) {
        if (status[i] == request_status::ok) continue;
        auto& slot = by_kind[static_cast<std::size_t>(classify_failure(status[i], http[i], t.error(i)))];
        if (slot.count++ == 0) {
            slot.example = std::string(t.error(i));
            if (slot.example.empty()) slot.example = std::string(to_string(status[i])) +
                                                     (http[i] ? " (HTTP " + std::to_string(http[i]) + ")" : "");
        }
    }
    std::vector<error_count> out;
    for (auto& e : by_kind)
        if (e.count > 0) out.push_back(std::move(e));
    return out;
}

} // namespace servestat
