// The load driver's response handling without a network: SSE framing (sse.hpp) and what the client
// makes of a streamed or whole response (response.hpp, as load/client.hpp's read_stream and
// read_whole use them). The body is fed whole and in pieces whose sizes come from the input's
// first bytes; both must give the same result.
#include <cmath>       // std::isfinite
#include <cstdint>     // std::uint8_t
#include <optional>    // std::optional
#include <string>      // std::string
#include <string_view> // std::string_view
#include <vector>      // std::vector

#include <servestat/load/response.hpp> // response_reader, server_timings
#include <servestat/load/sse.hpp>      // sse_parser
#include <servestat/load/stream_reader.hpp> // stream_reader

#include "internal.hpp"

namespace servestat_fuzz {
namespace {

using servestat::load::sse_event;
using servestat::load::sse_parser;

// Byte 0: how many piece sizes follow (0-7); then those sizes (1-256 bytes each, cycled); then the body.
struct split_input {
    std::vector<std::size_t> pieces;
    std::string_view body;
};

split_input split(std::string_view in) {
    split_input out;
    if (in.empty()) return out;
    std::size_t k = static_cast<unsigned char>(in[0]) % 8;
    in.remove_prefix(1);
    k = std::min(k, in.size());
    for (std::size_t i = 0; i < k; ++i) out.pieces.push_back(static_cast<unsigned char>(in[i]) + std::size_t{1});
    in.remove_prefix(k);
    out.body = in;
    return out;
}

template <class OnPiece>
void for_each_piece(const split_input& s, OnPiece&& on_piece) {
    std::string_view rest = s.body;
    for (std::size_t i = 0; !rest.empty(); ++i) {
        const std::size_t n = s.pieces.empty() ? rest.size() : std::min(rest.size(), s.pieces[i % s.pieces.size()]);
        on_piece(rest.substr(0, n));
        rest.remove_prefix(n);
    }
}

struct sse_result {
    std::vector<sse_event> events;
    std::optional<std::uint64_t> retry;
    std::string last_id;
    bool truncated = false;
    bool operator==(const sse_result& o) const {
        if (events.size() != o.events.size() || retry != o.retry || last_id != o.last_id || truncated != o.truncated)
            return false;
        for (std::size_t i = 0; i < events.size(); ++i)
            if (events[i].type != o.events[i].type || events[i].data != o.events[i].data || events[i].id != o.events[i].id)
                return false;
        return true;
    }
};

template <class Feed>
sse_result parse_sse(Feed&& feed_all) {
    sse_parser p; // the default limit: no input here reaches it
    sse_result out;
    feed_all([&](std::string_view piece) { p.feed(piece, [&](const sse_event& e) { out.events.push_back(e); }); });
    out.retry = p.retry_ms();
    out.last_id = p.last_event_id();
    out.truncated = p.finish() == servestat::load::sse_end::truncated;
    return out;
}

void check_timings(std::string_view target, const std::optional<servestat::load::server_timings>& t, std::string_view where) {
    if (!t) return;
    if (t->empty()) violation(target, std::string(where) + " gave server timings without a value");
    for (const auto& x : {t->queue, t->prefill, t->decode, t->ttft, t->itl, t->spec_acceptance, t->draft_acceptance})
        if (x && (!std::isfinite(*x) || *x < 0))
            violation(target, std::string(where) + " gave a server timing that is negative or not finite: " + std::to_string(*x));
}

} // namespace

int sse_stream(const std::uint8_t* data, std::size_t size) {
    constexpr std::string_view target = "sse";
    if (size > max_input_bytes) return 0;
    const split_input in = split(as_text(data, size));
    try {
        const sse_result whole = parse_sse([&](auto&& feed) { feed(in.body); });
        const sse_result pieces = parse_sse([&](auto&& feed) { for_each_piece(in, feed); });
        const sse_result bytes = parse_sse([&](auto&& feed) {
            for (std::size_t i = 0; i < in.body.size(); ++i) feed(in.body.substr(i, 1));
        });
        if (!(whole == pieces)) violation(target, "fed in pieces, the stream parses differently than whole");
        if (!(whole == bytes)) violation(target, "fed byte by byte, the stream parses differently than whole");
        // A small limit: sse_error is the only failure, and whether it comes does not depend on
        // where the stream is cut (issue 22: a line split across reads used to be measured apart).
        const auto refused = [](auto&& feed_all) {
            sse_parser small(64);
            try {
                feed_all([&](std::string_view piece) { small.feed(piece, [](const sse_event&) {}); });
            } catch (const servestat::load::sse_error&) {
                return true;
            }
            return false;
        };
        const bool refused_whole = refused([&](auto&& feed) { feed(in.body); });
        if (refused([&](auto&& feed) { for_each_piece(in, feed); }) != refused_whole)
            violation(target, "with a small limit, the stream is refused in pieces but not whole, or the reverse");
        if (refused([&](auto&& feed) {
                for (std::size_t i = 0; i < in.body.size(); ++i) feed(in.body.substr(i, 1));
            }) != refused_whole)
            violation(target, "with a small limit, the stream is refused byte by byte but not whole, or the reverse");
    } catch (...) {
        escaped(target);
    }
    return 0;
}

namespace {

// What read_stream and read_whole of load/client.hpp record, reduced to a comparable value.
struct response_outcome {
    std::string status; // "ok", "error: ...", "malformed: ..."
    std::int32_t content_chunks = 0;
    std::optional<std::int32_t> prompt_tokens, completion_tokens, cached_tokens;
    std::string text, response_id; // what a session's next turn is built from
    bool operator==(const response_outcome&) const = default;
};

// The load driver's own stream handling (load/stream_reader.hpp), fed by `feed_all`, for chat
// chunks or Responses API events, keeping the reply's text as a session does.
template <class Feed>
response_outcome read_stream(std::string_view target, servestat::load::api_protocol protocol, Feed&& feed_all) {
    servestat::load::response_reader reader;
    reader.keep_text(true);
    servestat::load::stream_reader stream(reader, protocol);
    response_outcome out;
    try {
        feed_all([&](std::string_view piece) {
            stream.feed(piece, [&](const servestat::load::response_info& info) {
                if (info.prompt_tokens) out.prompt_tokens = info.prompt_tokens;
                if (info.cached_tokens) out.cached_tokens = info.cached_tokens;
                if (info.response_id) out.response_id = *info.response_id;
                out.text += info.text;
                check_timings(target, info.timings, "a stream chunk");
            });
        });
        const auto error = stream.finish();
        if (error && !valid_utf8(*error)) violation(target, "an error text is not valid UTF-8");
        out.status = error ? "error: " + *error : "ok";
    } catch (const servestat::load::response_error& e) {
        out.status = std::string("malformed: ") + e.what();
    } catch (const servestat::load::sse_error& e) {
        out.status = std::string("malformed: ") + e.what();
    }
    out.content_chunks = stream.content_chunks();
    out.completion_tokens = stream.output_tokens();
    if (out.prompt_tokens && *out.prompt_tokens < 0) violation(target, "negative prompt tokens");
    if (out.cached_tokens && *out.cached_tokens < 0) violation(target, "negative cached tokens");
    if (*out.completion_tokens < 0) violation(target, "negative completion tokens");
    return out;
}

} // namespace

// The body as an event stream (whole, in pieces) and as a whole JSON body.
int response_stream(const std::uint8_t* data, std::size_t size) {
    constexpr std::string_view target = "response";
    if (size > max_input_bytes) return 0;
    const split_input in = split(as_text(data, size));
    try {
        for (const auto protocol : {servestat::load::api_protocol::chat_completions, servestat::load::api_protocol::responses}) {
            const response_outcome whole = read_stream(target, protocol, [&](auto&& feed) { feed(in.body); });
            const response_outcome pieces = read_stream(target, protocol, [&](auto&& feed) { for_each_piece(in, feed); });
            if (!(whole == pieces))
                violation(target, "fed in pieces, the stream reads differently than whole: '" + whole.status +
                                      "' vs '" + pieces.status + "'");
        }
        servestat::load::response_reader reader;
        try {
            const auto info = reader.read(std::string(in.body)); // as read_whole: a std::string body
            check_timings(target, info.timings, "a whole body");
            if (info.prompt_tokens && *info.prompt_tokens < 0) violation(target, "negative prompt tokens");
        } catch (const servestat::load::response_error&) {
        }
    } catch (...) {
        escaped(target);
    }
    return 0;
}

} // namespace servestat_fuzz
