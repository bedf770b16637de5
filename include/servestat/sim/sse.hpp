// Framing of a streamed response: server-sent events inside HTTP/1.1 chunked transfer encoding.
#pragma once

#include <string>      // std::string
#include <string_view> // std::string_view

// The simulator writes its streams by hand rather than through Beast's chunk serializer: the bytes
// on the wire are then plain strings that the unit tests can compare, and a slow client's backlog of
// events can be coalesced into one write.

namespace servestat::sim {

// The event that ends an OpenAI-style stream.
inline constexpr std::string_view sse_done = "data: [DONE]\n\n";

// One SSE event carrying `data` (a single line of JSON): "data: {...}\n\n".
inline void append_sse_event(std::string& out, std::string_view data) {
    out.append("data: ").append(data).append("\n\n");
}

// One chunk of a chunked body: hexadecimal size, CRLF, payload, CRLF. An empty payload would end
// the body, so it writes nothing.
inline void append_http_chunk(std::string& out, std::string_view payload) {
    if (payload.empty()) return;
    constexpr std::string_view hex = "0123456789abcdef";
    char digits[16];
    int n = 0;
    for (auto size = payload.size(); size > 0; size >>= 4) digits[n++] = hex[size & 0xf];
    while (n > 0) out.push_back(digits[--n]);
    out.append("\r\n").append(payload).append("\r\n");
}

// The zero-length chunk that ends a chunked body (no trailers).
inline constexpr std::string_view http_last_chunk = "0\r\n\r\n";

} // namespace servestat::sim
