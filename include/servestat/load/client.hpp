// The driver's HTTP/1.1 client: one keep-alive connection sends requests and times their responses.
#pragma once

#include <algorithm>   // std::min, std::max
#include <array>       // std::array
#include <chrono>      // std::chrono::steady_clock, duration
#include <cstddef>     // std::size_t
#include <cstdint>     // std::int32_t, std::uint64_t
#include <limits>      // std::numeric_limits
#include <memory>      // std::shared_ptr
#include <optional>    // std::optional
#include <string>      // std::string
#include <string_view> // std::string_view
#include <utility>     // std::exchange (Boost 1.74's awaitable.hpp uses it without the include), std::move, std::pair
#include <vector>      // std::vector

#include <boost/asio/awaitable.hpp>     // boost::asio::awaitable
#include <boost/asio/connect.hpp>       // boost::asio::async_connect
#include <boost/asio/ip/tcp.hpp>        // boost::asio::ip::tcp
#include <boost/asio/ssl/context.hpp>   // boost::asio::ssl::context
#include <boost/asio/redirect_error.hpp> // boost::asio::redirect_error
#include <boost/asio/use_awaitable.hpp> // boost::asio::use_awaitable
#include <boost/beast/core/error.hpp>        // boost::beast::error
#include <boost/beast/core/flat_buffer.hpp>  // boost::beast::flat_buffer
#include <boost/beast/core/string.hpp>       // boost::beast::iequals
#include <boost/beast/http/buffer_body.hpp>  // boost::beast::http::buffer_body
#include <boost/beast/http/error.hpp>        // boost::beast::http::error::need_buffer
#include <boost/beast/http/message.hpp>      // boost::beast::http::request
#include <boost/beast/http/parser.hpp>       // boost::beast::http::response_parser
#include <boost/beast/http/read.hpp>         // boost::beast::http::async_read_header, async_read_some
#include <boost/beast/http/string_body.hpp>  // boost::beast::http::string_body
#include <boost/beast/http/write.hpp>        // boost::beast::http::async_write
#include <fmt/format.h>                      // fmt::format

#include <sys/resource.h> // ::getrlimit, RLIMIT_NOFILE

#include "servestat/core/errors.hpp"      // usage_error
#include "servestat/load/log_writer.hpp"  // request_result
#include "servestat/load/response.hpp"    // response_reader, server_timings
#include "servestat/load/stream_reader.hpp" // stream_reader
#include "servestat/load/transport.hpp"     // client_stream, connect_timing, tls_options

namespace servestat::load {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = boost::asio::ip::tcp;
using steady = std::chrono::steady_clock;

// Where the server is: http[s]://host[:port][/prefix].
struct endpoint {
    std::string host;
    std::string port = "80";
    std::string prefix; // e.g. "/v1" stripped: paths below are absolute; a proxy prefix stays
    bool tls = false;   // https://
    std::string url() const { return fmt::format("{}://{}:{}{}", tls ? "https" : "http", host, port, prefix); }
};

inline endpoint parse_url(std::string_view url) {
    endpoint out;
    std::string_view rest;
    if (url.starts_with("https://")) {
        out.tls = true;
        out.port = "443";
        rest = url.substr(8);
    } else if (url.starts_with("http://")) {
        rest = url.substr(7);
    } else {
        throw usage_error(fmt::format("--url {}: expected http://HOST[:PORT] or https://HOST[:PORT]", url));
    }
    if (const auto slash = rest.find('/'); slash != std::string_view::npos) {
        out.prefix = std::string(rest.substr(slash));
        rest = rest.substr(0, slash);
    }
    while (!out.prefix.empty() && out.prefix.back() == '/') out.prefix.pop_back();
    // Users paste the OpenAI base URL (".../v1"); the driver adds /v1/... itself.
    if (out.prefix.ends_with("/v1")) out.prefix.resize(out.prefix.size() - 3);
    const auto colon = rest.rfind(':');
    if (colon != std::string_view::npos && rest.find(']') == std::string_view::npos) {
        out.host = std::string(rest.substr(0, colon));
        out.port = std::string(rest.substr(colon + 1));
    } else {
        out.host = std::string(rest);
    }
    if (out.host.empty() || out.port.empty() || out.port.find_first_not_of("0123456789") != std::string::npos)
        throw usage_error(fmt::format("--url {}: expected http[s]://HOST[:PORT]", url));
    return out;
}

struct http_options {
    std::string api_key;             // sent as "Authorization: Bearer KEY" when not empty
    std::vector<std::pair<std::string, std::string>> headers; // --header, sent with every request
    double timeout = 600;            // seconds from sending to the last byte; then status timeout
    // What one request may hold, so that a hostile or broken server cannot grow the driver without
    // bound (docs/load.md#what-a-response-may-hold): a whole body (or a session's reply text) up to
    // this many bytes, and this many chunk gaps of a stream, the later ones counted but not kept.
    std::size_t max_body_bytes = 64 << 20;
    std::size_t max_itl_gaps = default_max_itl_gaps;
    std::shared_ptr<net::ssl::context> tls; // set for https:// endpoints
};

// "Name: value" (--header) as a pair; throws usage_error for anything else.
inline std::pair<std::string, std::string> parse_header(std::string_view text) {
    const auto colon = text.find(':');
    auto name = text.substr(0, colon);
    const bool token = !name.empty() && name.find_first_of(" \t()<>@,;:\\\"/[]?={}") == std::string_view::npos;
    if (colon == std::string_view::npos || !token)
        throw usage_error(fmt::format("--header '{}': expected 'Name: value'", text));
    auto value = text.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
    if (value.find_first_of("\r\n") != std::string_view::npos)
        throw usage_error(fmt::format("--header '{}': a value cannot span lines", name));
    return {std::string(name), std::string(value)};
}

// A request ready to send: everything that could fail before the network is done already.
struct prepared_request {
    std::string target; // "/v1/chat/completions"
    std::string body;   // JSON
    bool stream = true;
    api_protocol protocol = api_protocol::chat_completions;
    bool keep_reply = false; // keep the reply's text and id (a session's next turn needs them)
};

namespace detail {

inline double seconds_since(steady::time_point start) {
    return std::chrono::duration<double>(steady::now() - start).count();
}

inline std::string error_message_of(std::string_view body) {
    response_reader reader;
    try {
        if (auto info = reader.read(body); info.error) return *info.error;
    } catch (const response_error&) {
    }
    return std::string(body.substr(0, 500));
}

// A failure of the transport, with the status the log gives it.
struct transport_failure {
    request_status status;
    std::string message;
};

// Whether Beast refused what the server sent as HTTP (a bad chunk, headers over the parser's limit):
// the server answered, wrongly, so it is a malformed response, not a connection failure.
inline bool is_protocol_violation(const boost::system::error_code& ec) {
    if (ec.category() != beast::http::make_error_code(http::error::bad_chunk).category()) return false;
    switch (static_cast<http::error>(ec.value())) {
    case http::error::unexpected_body:
    case http::error::header_limit:
    case http::error::body_limit:
    case http::error::bad_line_ending:
    case http::error::bad_method:
    case http::error::bad_target:
    case http::error::bad_version:
    case http::error::bad_status:
    case http::error::bad_reason:
    case http::error::bad_field:
    case http::error::bad_value:
    case http::error::bad_content_length:
    case http::error::bad_transfer_encoding:
    case http::error::bad_chunk:
    case http::error::bad_chunk_extension:
    case http::error::bad_obs_fold: return true;
    default: return false; // end_of_stream, partial_message: the server went away
    }
}

// Whether the driver itself ran out of file descriptors: its own limit, not the server's doing.
inline bool is_out_of_descriptors(const boost::system::error_code& ec) {
    return ec == boost::system::errc::too_many_files_open || ec == boost::system::errc::too_many_files_open_in_system;
}

// "ulimit -n 1024": the soft limit the driver runs under, as the shell would set it.
inline std::string descriptor_limit() {
    rlimit limit{};
    if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return "ulimit -n";
    return fmt::format("ulimit -n {}", limit.rlim_cur);
}

inline std::string out_of_descriptors_message(const boost::system::error_code& ec) {
    return fmt::format("client: the driver ran out of file descriptors ({}; {}): raise it, or lower the "
                       "concurrency or rate",
                       ec.message(), descriptor_limit());
}

} // namespace detail

// One keep-alive connection. Not thread-safe: a connection belongs to one coroutine at a time.
class connection {
public:
    connection(net::any_io_executor executor, const endpoint& where, const tcp::resolver::results_type& addresses,
               const http_options& options)
        : executor_(std::move(executor)), where_(where), addresses_(addresses), options_(options) {}

    bool is_open() const { return stream_.has_value(); }
    void close() {
        if (stream_) stream_->close();
        stream_.reset();
        buffer_.clear();
    }
    steady::time_point last_used() const { return last_used_; }

    // Sends the request and fills out's timing, tokens and status. t_sent is stamped when the
    // connection is ready, just before the request is written: opening one is timed apart
    // (connect_time, tls_time on the request that opened it). Never throws for what a server or
    // network does: those are data (status transport/timeout/error).
    // `cancel_after`: the driver aborts the request this many seconds after t_sent (--cancel-rate).
    net::awaitable<void> send(const prepared_request& request, steady::time_point run_start, request_result& out,
                              std::optional<double> cancel_after = std::nullopt) {
        cancel_after_ = cancel_after;
        out.t_sent = detail::seconds_since(run_start);
        // One deadline for connecting, writing and reading, counted from the start of sending.
        const auto deadline = steady::now() + std::chrono::duration_cast<steady::duration>(
                                                  std::chrono::duration<double>(options_.timeout));
        // A reused connection the server has closed meanwhile fails before any byte of the response
        // arrives; that is the idle keep-alive race, not the server's answer, so it is retried once.
        const bool reused = is_open();
        for (int attempt = 0; attempt < 2; ++attempt) {
            bool response_started = false;
            try {
                co_await exchange(request, run_start, out, deadline, response_started);
                last_used_ = steady::now();
                co_return;
            } catch (const boost::system::system_error& e) {
                close();
                if (detail::is_protocol_violation(e.code())) {
                    record_malformed(out, fmt::format("invalid HTTP ({})", e.code().message()), run_start);
                    co_return;
                }
                if (attempt == 0 && reused && !response_started && !timed_out(e.code()) && !cancelled_) continue;
                record_failure(out, e, run_start);
                co_return;
            } catch (const response_error& e) {
                record_malformed(out, e.what(), run_start);
                co_return;
            } catch (const sse_error& e) {
                record_malformed(out, e.what(), run_start);
                co_return;
            }
        }
    }

    // Connects ahead of the first request (a closed loop's clients exist before its clock starts);
    // a failure is left for that request to meet and log. The time it took goes on that request.
    net::awaitable<void> open() {
        if (stream_) co_return;
        try {
            co_await connect(steady::now() + std::chrono::duration_cast<steady::duration>(
                                                 std::chrono::duration<double>(options_.timeout)));
        } catch (const boost::system::system_error&) {
            close();
        }
    }

    // The user stopped the run: abort whatever is in flight on this connection.
    void cancel() {
        cancelled_ = true;
        close();
    }

private:
    static bool timed_out(const boost::system::error_code& ec) { return ec == beast::error::timeout; }

    net::awaitable<void> connect(steady::time_point deadline) {
        stream_.emplace(executor_, options_.tls.get());
        unreported_ = co_await stream_->open(addresses_, where_.host, deadline);
    }

    // A failed request keeps when it ended and why, not the partial stream before the failure.
    static void fail(request_result& out, request_status status, std::string message) {
        out.status = status;
        out.error = std::move(message);
        out.t_first.reset();
        out.itl.clear();
        out.itl_dropped = 0;
        out.output_tokens = 0;
    }

    // Every gap the stream had, kept in itl or not.
    static std::int32_t gaps_seen(const request_result& out) {
        const auto all = static_cast<std::int64_t>(out.itl.size()) + out.itl_dropped;
        return static_cast<std::int32_t>(std::min<std::int64_t>(all, std::numeric_limits<std::int32_t>::max() - 1));
    }

    void record_malformed(request_result& out, std::string_view what, steady::time_point run_start) {
        close();
        out.t_end = detail::seconds_since(run_start);
        fail(out, request_status::error, fmt::format("malformed response: {}", what));
    }

    // A planned cancellation (--cancel-rate) keeps what arrived before it: the tokens received are
    // part of what the run did to the server.
    void record_failure(request_result& out, const boost::system::system_error& e, steady::time_point run_start) {
        out.t_end = detail::seconds_since(run_start);
        if (cancelled_) {
            fail(out, request_status::cancelled, "cancelled: the run was stopped");
        } else if (planned_cancel_ && timed_out(e.code())) {
            out.status = request_status::cancelled;
            out.error = fmt::format("cancelled by the driver {:.3f} s after sending (--cancel-rate)", *cancel_after_);
            out.output_tokens = out.t_first ? gaps_seen(out) + 1 : 0;
        } else if (timed_out(e.code())) {
            fail(out, request_status::timeout, fmt::format("no complete response within {} s", options_.timeout));
        } else if (detail::is_out_of_descriptors(e.code())) {
            fail(out, request_status::transport, detail::out_of_descriptors_message(e.code()));
            out.client_limit = true;
        } else {
            // what(): the code's message, after the TLS handshake's reason when it has one.
            fail(out, request_status::transport, fmt::format("transport: {}", e.what()));
        }
    }

    net::awaitable<void> exchange(const prepared_request& request, steady::time_point run_start, request_result& out,
                                  steady::time_point deadline, bool& response_started) {
        if (!stream_) co_await connect(deadline);
        if (unreported_) {
            out.connect_time = unreported_->connect;
            out.tls_time = unreported_->tls;
            unreported_.reset();
        }
        out.t_sent = detail::seconds_since(run_start);
        // A planned cancellation is the stream's deadline coming early: Beast then closes the socket,
        // which is how an HTTP/1.1 client aborts a request (the server sees the disconnect).
        planned_cancel_ = false;
        auto expiry = deadline;
        if (cancel_after_) {
            const auto cancel_at = steady::now() + std::chrono::duration_cast<steady::duration>(
                                                       std::chrono::duration<double>(*cancel_after_));
            if (cancel_at < deadline) {
                expiry = cancel_at;
                planned_cancel_ = true;
            }
        }
        expiry_ = expiry;
        stream_->lowest().expires_at(expiry);
        http::request<http::string_body> req{http::verb::post, where_.prefix + request.target, 11};
        req.set(http::field::host, where_.host);
        req.set(http::field::content_type, "application/json");
        req.set(http::field::accept, request.stream ? "text/event-stream" : "application/json");
        req.set(http::field::user_agent, "servestat-load/0.1");
        req.set(http::field::accept_encoding, "identity"); // the driver decodes no compression
        if (!options_.api_key.empty()) req.set(http::field::authorization, "Bearer " + options_.api_key);
        for (const auto& [name, value] : options_.headers) req.set(name, value);
        req.keep_alive(true);
        req.body() = request.body;
        req.prepare_payload();
        co_await http::async_write(*stream_, req, net::use_awaitable);

        http::response_parser<http::buffer_body> parser;
        // A stream is as long as the server makes it (its events are capped); not boost::none, which
        // Beast 1.74 compares with a Content-Length and refuses every sized body (beast#2070).
        parser.body_limit(std::numeric_limits<std::uint64_t>::max());
        co_await http::async_read_header(*stream_, buffer_, parser, net::use_awaitable);
        response_started = true;
        out.http_status = static_cast<int>(parser.get().result_int());
        refuse_encoded_body(parser.get());
        const bool is_event_stream = parser.get()[http::field::content_type].starts_with("text/event-stream");
        if (out.http_status == 200 && request.stream && is_event_stream)
            co_await read_stream(parser, run_start, out, request);
        else
            co_await read_whole(parser, run_start, out, request);
        if (!parser.keep_alive()) close();
    }

    // A compressed body read as text would fail somewhere inside it ("ended inside an event") for a
    // reason the message would not name; the request asks for identity, so a server that compresses
    // anyway is told as such.
    static void refuse_encoded_body(const http::response_header<>& header) {
        const auto encoding = header[http::field::content_encoding];
        if (encoding.empty() || beast::iequals(encoding, "identity")) return;
        throw response_error(fmt::format("the server sent Content-Encoding: {}, which the driver does not decode "
                                         "(it asks for Accept-Encoding: identity)",
                                         std::string_view(encoding.data(), std::min<std::size_t>(encoding.size(), 100))));
    }

    // The server's own timings of the request (load/response.hpp says which servers give which).
    // Each reading sets what it carries and leaves the rest: a stream's timings come in one chunk
    // (vLLM's final usage chunk), and a server that gives no queue time leaves server_queue unset.
    static void set_timings(request_result& out, const std::optional<server_timings>& t) {
        if (!t) return;
        if (t->queue) out.server_queue = t->queue;
        if (t->prefill) out.server_prefill = t->prefill;
        if (t->decode) out.server_decode = t->decode;
        if (t->ttft) out.server_ttft = t->ttft;
        if (t->itl) out.server_itl = t->itl;
        if (t->spec_acceptance) out.server_spec_acceptance = t->spec_acceptance;
        if (t->draft_acceptance) out.server_draft_acceptance = t->draft_acceptance;
    }

    // What every reading may carry besides content: usage, timings, the reply's id.
    static void take_reading(request_result& out, const response_info& info) {
        if (info.prompt_tokens) out.prompt_tokens = *info.prompt_tokens;
        if (info.cached_tokens) out.cached_tokens = *info.cached_tokens;
        if (info.response_id) out.response_id = *info.response_id;
        set_timings(out, info.timings);
    }

    // Reads the body into `body`, at most max_body_bytes of it.
    using piece_buffer = std::array<char, 16384>;

    // The next bytes of the body into `piece`: whatever has arrived (read_some, so that stream
    // chunks are timed as they come), at most the piece's size. Returns how many.
    net::awaitable<std::size_t> read_piece(http::response_parser<http::buffer_body>& parser, piece_buffer& piece) {
        parser.get().body().data = piece.data();
        parser.get().body().size = piece.size();
        beast::error_code ec;
        co_await http::async_read_some(*stream_, buffer_, parser, net::redirect_error(net::use_awaitable, ec));
        if (ec && ec != http::error::need_buffer) throw boost::system::system_error(ec);
        // The stream's timer fires only while a read waits: a server that keeps the socket full never
        // lets one wait, so the deadline is checked after every read too.
        if (steady::now() >= expiry_) throw boost::system::system_error(beast::error::timeout);
        co_return piece.size() - parser.get().body().size;
    }

    void refuse_body_over_cap() const {
        throw response_error(fmt::format("body larger than {} bytes", options_.max_body_bytes));
    }

    // The body's room never passes the cap: a Content-Length over it is refused before a byte is
    // read, one under it reserved at once; a chunked body's room doubles up to the cap (a vector,
    // whose reserve is exact: a string may round up to twice its old room).
    net::awaitable<void> read_body(http::response_parser<http::buffer_body>& parser, std::vector<char>& body) {
        if (const auto length = parser.content_length()) {
            if (*length > options_.max_body_bytes) refuse_body_over_cap();
            body.reserve(static_cast<std::size_t>(*length));
        }
        piece_buffer piece{};
        while (!parser.is_done()) {
            const auto got = co_await read_piece(parser, piece);
            if (body.size() + got > options_.max_body_bytes) refuse_body_over_cap();
            if (body.size() + got > body.capacity())
                body.reserve(std::min(std::max(body.capacity() * 2, body.size() + got), options_.max_body_bytes));
            body.insert(body.end(), piece.data(), piece.data() + got);
        }
    }

    net::awaitable<void> read_whole(http::response_parser<http::buffer_body>& parser, steady::time_point run_start,
                                    request_result& out, const prepared_request& request) {
        std::vector<char> bytes;
        co_await read_body(parser, bytes);
        const std::string_view body(bytes.data(), bytes.size());
        out.t_end = detail::seconds_since(run_start);
        if (out.http_status != 200) {
            out.status = request_status::error;
            out.error = detail::error_message_of(body);
            co_return;
        }
        if (request.stream) throw response_error("asked for a stream, got a response that is not text/event-stream");
        reader_.keep_text(request.keep_reply);
        const auto info = reader_.read(body);
        if (info.error) {
            fail(out, request_status::error, *info.error);
            co_return;
        }
        take_reading(out, info);
        out.output_tokens = info.completion_tokens.value_or(0);
        if (request.keep_reply) out.reply = info.text;
        out.status = request_status::ok;
    }

    net::awaitable<void> read_stream(http::response_parser<http::buffer_body>& parser, steady::time_point run_start,
                                     request_result& out, const prepared_request& request) {
        reader_.keep_text(request.keep_reply);
        stream_reader stream(reader_, request.protocol);
        piece_buffer piece{};
        double last_content = 0;
        while (!parser.is_done()) {
            const auto got = co_await read_piece(parser, piece);
            // One clock reading per read: events that arrived together arrived at the same time.
            const double now = detail::seconds_since(run_start);
            stream.feed(std::string_view(piece.data(), got), [&](const response_info& info) {
                if (info.has_content) {
                    if (stream.content_chunks() == 1) out.t_first = now;
                    else keep_gap(out, now - last_content);
                    last_content = now;
                    if (request.keep_reply) keep_reply_text(out, info.text);
                }
                take_reading(out, info);
            });
        }
        out.t_end = detail::seconds_since(run_start);
        out.output_tokens = stream.output_tokens();
        if (const auto error = stream.finish()) fail(out, request_status::error, *error);
        else out.status = request_status::ok;
    }

    // Past max_itl_gaps a gap is only counted: the log says how many the stream had (itl_gaps).
    void keep_gap(request_result& out, double gap) const {
        if (out.itl.size() < options_.max_itl_gaps) out.itl.push_back(gap);
        else ++out.itl_dropped;
    }

    // A session resends the reply, so it is held whole or the request fails: at most a body's cap.
    void keep_reply_text(request_result& out, std::string_view text) const {
        if (out.reply.size() + text.size() > options_.max_body_bytes)
            throw response_error(fmt::format("the reply's text is longer than {} bytes", options_.max_body_bytes));
        out.reply.append(text);
    }

    net::any_io_executor executor_;
    const endpoint& where_;
    const tcp::resolver::results_type& addresses_;
    const http_options& options_;
    std::optional<client_stream> stream_;
    std::optional<connect_timing> unreported_; // how the open connection was opened, until a request logs it
    beast::flat_buffer buffer_;
    response_reader reader_;
    steady::time_point last_used_{};
    bool cancelled_ = false;
    std::optional<double> cancel_after_; // the current request's
    bool planned_cancel_ = false;        // its deadline is its cancel_after_
    steady::time_point expiry_{};        // the current request's deadline (or planned cancellation)
};

} // namespace servestat::load
