// How a request ended, as the canonical log's `status` field names it.
#pragma once

#include <cstdint>     // std::uint8_t
#include <optional>    // std::optional
#include <string_view> // std::string_view

namespace servestat {

enum class request_status : std::uint8_t { ok, error, timeout, transport, cancelled };

inline std::string_view to_string(request_status s) noexcept {
    switch (s) {
    case request_status::ok: return "ok";
    case request_status::error: return "error";
    case request_status::timeout: return "timeout";
    case request_status::transport: return "transport";
    case request_status::cancelled: return "cancelled";
    }
    return "?";
}

inline std::optional<request_status> parse_request_status(std::string_view s) noexcept {
    if (s == "ok") return request_status::ok;
    if (s == "error") return request_status::error;
    if (s == "timeout") return request_status::timeout;
    if (s == "transport") return request_status::transport;
    if (s == "cancelled") return request_status::cancelled;
    return std::nullopt;
}

} // namespace servestat
