// How a failed request ended, read from the text a client wrote down for it: Python tools log
// HTTP errors as "HTTP 400: ..." and transport problems as exception messages.
#pragma once

#include <cctype>       // std::isdigit
#include <charconv>     // std::from_chars
#include <cstdint>      // std::int32_t
#include <optional>     // std::optional
#include <string_view>  // std::string_view
#include <system_error> // std::errc

#include "servestat/core/request_status.hpp" // request_status
#include "servestat/core/text.hpp"           // contains_ignoring_case, trim_spaces

namespace servestat::detail {

// "HTTP 400: {...}" → 400: the form Python clients give HTTP errors when they raise them.
inline std::optional<std::int32_t> leading_http_status(std::string_view error) {
    error = trim_spaces(error);
    if (!error.starts_with("HTTP ") || error.size() < 8) return std::nullopt;
    std::int32_t code = 0;
    const char* first = error.data() + 5;
    const auto [end, ec] = std::from_chars(first, first + 3, code);
    if (ec != std::errc() || end != first + 3 || code < 100 || code > 599) return std::nullopt;
    if (error.size() > 8 && std::isdigit(static_cast<unsigned char>(error[8]))) return std::nullopt;
    return code;
}

struct failure_class {
    request_status status = request_status::error;
    std::optional<std::int32_t> http_status;
};

// How a failed request ended, from what the client wrote down. An HTTP status means the server
// answered (error); without one, the exception text tells a timeout from a connection failure
// (the wording of Python's requests/urllib3/httpx/aiohttp exceptions).
inline failure_class classify_failure_text(std::string_view error, std::optional<std::int32_t> http_status) {
    if (!http_status) http_status = leading_http_status(error);
    if (http_status) return {request_status::error, http_status};
    for (const std::string_view word : {"timeout", "timed out"})
        if (contains_ignoring_case(error, word)) return {request_status::timeout, std::nullopt};
    for (const std::string_view word :
         {"connectionerror", "connecterror", "connection refused", "connection reset",
          "connection aborted", "failed to establish a new connection",
          "remote end closed connection", "server disconnected", "clientconnectorerror"})
        if (contains_ignoring_case(error, word)) return {request_status::transport, std::nullopt};
    return {request_status::error, std::nullopt};
}

} // namespace servestat::detail
