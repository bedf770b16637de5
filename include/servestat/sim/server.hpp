// The simulator's HTTP/1.1 server: vLLM's OpenAI-compatible API over the engine, in scaled real time.
#pragma once

#include <algorithm>     // std::max
#include <chrono>        // std::chrono::steady_clock, duration
#include <cstddef>       // std::size_t
#include <cstdint>       // std::int32_t, std::int64_t, std::uint16_t, std::uint64_t
#include <ctime>         // std::time
#include <exception>     // std::exception_ptr, std::rethrow_exception
#include <memory>        // std::shared_ptr, std::make_shared
#include <optional>      // std::optional
#include <string>        // std::string
#include <string_view>   // std::string_view
#include <unordered_map> // std::unordered_map
#include <unordered_set> // std::unordered_set
#include <utility>       // std::move
#include <vector>        // std::vector

#include <boost/asio/awaitable.hpp>      // boost::asio::awaitable
#include <boost/asio/co_spawn.hpp>       // boost::asio::co_spawn
#include <boost/asio/io_context.hpp>     // boost::asio::io_context
#include <boost/asio/ip/tcp.hpp>         // boost::asio::ip::tcp
#include <boost/asio/post.hpp>           // boost::asio::post
#include <boost/asio/redirect_error.hpp> // boost::asio::redirect_error
#include <boost/asio/steady_timer.hpp>   // boost::asio::steady_timer
#include <boost/asio/use_awaitable.hpp>  // boost::asio::use_awaitable
#include <boost/asio/write.hpp>          // boost::asio::async_write
#include <boost/beast/core/flat_buffer.hpp>   // boost::beast::flat_buffer
#include <boost/beast/core/string.hpp>        // boost::beast::iequals
#include <boost/beast/core/tcp_stream.hpp>    // boost::beast::tcp_stream
#include <boost/beast/http/error.hpp>         // boost::beast::http::error
#include <boost/beast/http/message.hpp>       // boost::beast::http::request, response
#include <boost/beast/http/parser.hpp>        // boost::beast::http::request_parser
#include <boost/beast/http/read.hpp>          // boost::beast::http::async_read_header, async_read
#include <boost/beast/http/string_body.hpp>   // boost::beast::http::string_body
#include <boost/beast/http/write.hpp>         // boost::beast::http::async_write
#include <fmt/format.h>                       // fmt::format

#include "servestat/core/errors.hpp"   // usage_error
#include "servestat/core/random.hpp"   // detail::mix64
#include "servestat/core/text.hpp"     // detail::fnv1a
#include "servestat/sim/engine.hpp"    // engine, engine_config, step_result
#include "servestat/sim/http_api.hpp"  // parse_generation_request, response_builder, api_error
#include "servestat/sim/metrics.hpp"   // server_metrics, request_timings
#include "servestat/sim/sse.hpp"       // append_sse_event, append_http_chunk
#include "servestat/sim/tokens.hpp"    // output_token

// One thread, one io_context, C++20 coroutines: an accept loop, one coroutine per connection and
// one engine loop. The engine loop runs a step, sleeps for its simulated duration divided by
// --time-scale, then hands the step's tokens to the requests' coroutines, each of which waits on a
// timer of its own that the loop cancels to wake it (an event without a channel type, which Boost
// 1.74 lacks). A connection's coroutine writes its own stream, so a slow reader delays only itself;
// tokens it has not taken yet pile up as a count, not as bytes.
//
// Simulated time runs from start(): the engine clock is `now * time_scale`. A step starts when the
// previous one ended, or at the latest arrival when that is later (an idle engine waits for work);
// it does not jump forward to the wall clock when the process falls behind, so timer latency at a
// large --time-scale does not stretch the simulated steps.

namespace servestat::sim {

struct server_options {
    std::string host = "127.0.0.1";
    std::uint16_t port = 8000;       // 0: any free port, see server::local_endpoint()
    std::string model = "Qwen/Qwen2.5-3B-Instruct";
    double time_scale = 1.0;         // simulated seconds per wall-clock second
    std::size_t max_body_bytes = 1 << 20;
    std::uint64_t seed = 0;          // output text: same seed and request order, same text
    engine_config engine{};
    double io_timeout = 60;          // seconds an idle connection is kept, or a write may stall
};

namespace detail {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;

using stream_type = beast::tcp_stream;
using string_request = http::request<http::string_body>;
using string_response = http::response<http::string_body>;

// A generation request between the engine loop and the connection that waits for its tokens.
struct pending_request {
    explicit pending_request(const net::any_io_executor& ex) : signal(ex) {
        signal.expires_at(net::steady_timer::time_point::max()); // completes only when cancelled
    }
    std::uint64_t id = 0;
    std::uint64_t seed = 0;
    std::int32_t prompt_tokens = 0;
    std::int32_t max_tokens = 0;
    std::int32_t produced = 0;    // tokens the engine has emitted so far
    bool done = false;            // the engine finished it; `timings` are set
    request_timings timings;      // seconds as the client sees them
    bool aborted = false;         // the server is shutting down
    bool watching = false;        // a readiness wait on the client's socket is pending
    bool peer_event = false;      // that wait completed: the client sent bytes or went away
    bool peer_sent_data = false;  // it sent bytes (a pipelined request): stop watching
    boost::system::error_code peer_error;
    net::steady_timer signal;     // cancelled to wake the connection's coroutine
};

// Beast 1.74 speaks boost::string_view.
inline beast::string_view to_beast(std::string_view s) { return {s.data(), s.size()}; }
inline std::string_view to_std(beast::string_view s) { return {s.data(), s.size()}; }

inline bool is_json_content_type(std::string_view value) {
    const auto semicolon = value.find(';');
    auto type = value.substr(0, semicolon);
    while (!type.empty() && (type.back() == ' ' || type.back() == '\t')) type.remove_suffix(1);
    while (!type.empty() && (type.front() == ' ' || type.front() == '\t')) type.remove_prefix(1);
    return beast::iequals(to_beast(type), "application/json");
}

inline std::string_view path_of(std::string_view target) { return target.substr(0, target.find('?')); }

inline std::string format_host(const net::ip::address& a) {
    return a.is_v6() ? std::string("[").append(a.to_string()).append("]") : a.to_string();
}

} // namespace detail

class server {
public:
    // Binds and listens at once, so a port conflict is reported before anything runs; throws
    // usage_error when the address cannot be used.
    explicit server(server_options options)
        : options_(std::move(options)), engine_(options_.engine), acceptor_(io_), wake_(io_), step_timer_(io_),
          grace_timer_(io_) {
        if (!(options_.time_scale > 0)) throw usage_error("simulator: time_scale must be positive");
        namespace net = detail::net;
        boost::system::error_code ec;
        const auto endpoint = resolve(options_.host, options_.port);
        if (acceptor_.open(endpoint.protocol(), ec); !ec)
            if (acceptor_.set_option(net::socket_base::reuse_address(true), ec); !ec)
                if (acceptor_.bind(endpoint, ec); !ec) acceptor_.listen(net::socket_base::max_listen_connections, ec);
        if (ec)
            throw usage_error(fmt::format("simulator: cannot listen on {}:{}: {}", options_.host, options_.port,
                                          ec.message()));
        wake_.expires_at(net::steady_timer::time_point::max());
    }

    server(const server&) = delete;
    server& operator=(const server&) = delete;

    // Pending coroutines hold references into the server: let them finish before the members go.
    ~server() {
        shutdown();
        io_.restart();
        io_.run_for(std::chrono::seconds(2));
    }

    detail::net::ip::tcp::endpoint local_endpoint() const { return acceptor_.local_endpoint(); }
    std::string url() const {
        const auto e = local_endpoint();
        return fmt::format("http://{}:{}", detail::format_host(e.address()), e.port());
    }

    // The context everything runs on, for signal sets and the like; run() runs it.
    detail::net::io_context& context() { return io_; }
    const server_options& options() const { return options_; }

    // Serves until stop(); call from one thread. Rethrows what the accept or engine loop threw.
    void run() {
        namespace net = detail::net;
        origin_ = std::chrono::steady_clock::now();
        net::co_spawn(io_, accept_loop(), rethrow);
        net::co_spawn(io_, engine_loop(), rethrow);
        io_.run();
    }

    // Stops accepting, ends every stream and connection; run() returns shortly after. Any thread.
    void stop() {
        detail::net::post(io_, [this] { shutdown(); });
    }

private:
    using stream_type = detail::stream_type;

    // An address literal, or a name such as localhost (its first address).
    detail::net::ip::tcp::endpoint resolve(const std::string& host, std::uint16_t port) {
        namespace net = detail::net;
        boost::system::error_code ec;
        const auto address = net::ip::make_address(host, ec);
        if (!ec) return {address, port};
        net::ip::tcp::resolver resolver(io_);
        const auto found = resolver.resolve(host, std::to_string(port), ec);
        if (ec || found.empty()) throw usage_error(fmt::format("simulator: cannot resolve host '{}'", host));
        return found.begin()->endpoint();
    }

    static void rethrow(std::exception_ptr e) {
        if (e) std::rethrow_exception(e);
    }

    // ---- time -------------------------------------------------------------------------------

    double sim_now() const {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - origin_).count() *
               options_.time_scale;
    }
    std::chrono::steady_clock::time_point wall_time(double sim_seconds) const {
        return origin_ + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                             std::chrono::duration<double>(sim_seconds / options_.time_scale));
    }
    request_timings client_timings(const finished& f) const {
        const double s = options_.time_scale;
        return {f.queue / s, f.prefill / s, f.decode / s};
    }

    // ---- engine loop ------------------------------------------------------------------------

    detail::net::awaitable<void> engine_loop() {
        namespace net = detail::net;
        boost::system::error_code ec;
        while (!stopping_) {
            if (engine_.idle()) {
                co_await wake_.async_wait(net::redirect_error(net::use_awaitable, ec));
                continue;
            }
            const double start = std::max(clock_, last_arrival_);
            const step_result step = engine_.step(start);
            clock_ = start + step.duration;
            step_timer_.expires_at(wall_time(clock_));
            co_await step_timer_.async_wait(net::redirect_error(net::use_awaitable, ec));
            if (stopping_) break;
            deliver(step);
        }
    }

    void deliver(const step_result& step) {
        metrics_.record_step(step.prefill_tokens, step.tokens.size());
        for (const auto& f : step.done) {
            const auto it = requests_.find(f.id);
            if (it == requests_.end()) continue; // cancelled while the step ran
            it->second->done = true;
            it->second->timings = client_timings(f);
            metrics_.record_finished(it->second->timings);
        }
        for (const auto& t : step.tokens) {
            const auto it = requests_.find(t.id);
            if (it == requests_.end()) continue;
            it->second->produced = t.index + 1;
            it->second->signal.cancel();
        }
    }

    // ---- accepting and shutting down ----------------------------------------------------------

    detail::net::awaitable<void> accept_loop() {
        namespace net = detail::net;
        boost::system::error_code ec;
        while (!stopping_) {
            net::ip::tcp::socket socket = co_await acceptor_.async_accept(net::redirect_error(net::use_awaitable, ec));
            if (stopping_) break;
            if (ec) {
                // Out of descriptors and the like: back off instead of spinning.
                grace_timer_.expires_after(std::chrono::milliseconds(50));
                co_await grace_timer_.async_wait(net::redirect_error(net::use_awaitable, ec));
                continue;
            }
            // A connection that fails ends alone; the server goes on.
            net::co_spawn(io_, serve_connection(std::move(socket)), [](std::exception_ptr) {});
        }
    }

    void shutdown() {
        if (stopping_) return;
        stopping_ = true;
        boost::system::error_code ec;
        acceptor_.close(ec);
        wake_.cancel();
        step_timer_.cancel();
        grace_timer_.cancel();
        for (auto& [id, request] : requests_) {
            request->aborted = true;
            request->signal.cancel();
        }
        for (auto* stream : connections_) stream->close();
    }

    // ---- connections --------------------------------------------------------------------------

    detail::net::awaitable<void> serve_connection(detail::net::ip::tcp::socket socket) {
        namespace net = detail::net;
        namespace http = detail::http;
        stream_type stream(std::move(socket));
        connections_.insert(&stream);
        struct forget {
            server* self;
            stream_type* stream;
            ~forget() { self->connections_.erase(stream); }
        } forget_guard{this, &stream};
        boost::system::error_code ec;
        // Token chunks go out as they are made; the disconnect check peeks without blocking.
        stream.socket().set_option(net::ip::tcp::no_delay(true), ec);
        stream.socket().non_blocking(true, ec);
        detail::beast::flat_buffer buffer;
        bool keep_alive = true;
        while (keep_alive && !stopping_) {
            http::request_parser<http::string_body> parser;
            parser.header_limit(16 * 1024);
            parser.body_limit(options_.max_body_bytes);
            stream.expires_after(io_timeout());
            co_await http::async_read_header(stream, buffer, parser, net::redirect_error(net::use_awaitable, ec));
            if (!ec && detail::beast::iequals(parser.get()[http::field::expect], "100-continue") && !parser.is_done()) {
                static constexpr std::string_view go_on = "HTTP/1.1 100 Continue\r\n\r\n";
                co_await net::async_write(stream, net::buffer(go_on), net::redirect_error(net::use_awaitable, ec));
            }
            if (!ec && !parser.is_done())
                co_await http::async_read(stream, buffer, parser, net::redirect_error(net::use_awaitable, ec));
            stream.expires_never();
            if (ec) {
                // A request that cannot be read gets an answer when there is one to give, then the
                // connection closes (the rest of its bytes cannot be framed).
                if (auto answer = unreadable_request_answer(ec)) {
                    co_await write_response(stream, *answer);
                    co_await lingering_close(stream);
                }
                break;
            }
            detail::string_request request = parser.release();
            keep_alive = co_await handle(stream, request);
        }
        stream.socket().shutdown(net::ip::tcp::socket::shutdown_send, ec);
    }

    std::chrono::steady_clock::duration io_timeout() const {
        return std::chrono::duration_cast<std::chrono::steady_clock::duration>(
            std::chrono::duration<double>(options_.io_timeout));
    }

    std::optional<detail::string_response> unreadable_request_answer(const boost::system::error_code& ec) const {
        namespace http = detail::http;
        if (ec == http::error::body_limit)
            return error_response(11, false,
                                  api_error(413, "RequestEntityTooLargeError",
                                            fmt::format("The request body exceeds {} bytes (--max-body-bytes)",
                                                        options_.max_body_bytes)));
        if (ec == http::error::header_limit)
            return error_response(11, false, api_error(431, "BadRequestError", "The request headers are too large"));
        // end_of_stream and partial_message: the client went away; timeouts and socket errors too.
        const bool parse_error = ec.category() == http::make_error_code(http::error::bad_target).category();
        if (!parse_error || ec == http::error::end_of_stream || ec == http::error::partial_message) return std::nullopt;
        return error_response(
            11, false, api_error(400, "BadRequestError", std::string("Malformed HTTP request: ").append(ec.message())));
    }

    // After an error answer with unread request bytes behind it: closing at once would reset the
    // connection and the client might never read the answer, so read and drop for a moment first.
    detail::net::awaitable<void> lingering_close(stream_type& stream) {
        namespace net = detail::net;
        boost::system::error_code ec;
        stream.socket().shutdown(net::ip::tcp::socket::shutdown_send, ec);
        stream.expires_after(std::chrono::seconds(1));
        std::vector<char> sink(16384); // on the heap: a large coroutine frame trips g++ 12's
                                       // -Wmismatched-new-delete inside Asio's frame allocator
        while (!ec && !stopping_)
            co_await stream.async_read_some(net::buffer(sink), net::redirect_error(net::use_awaitable, ec));
        stream.expires_never();
    }

    // ---- routing ------------------------------------------------------------------------------

    // Everything but the engine part of a generation request: a response, or the validated request.
    struct routed {
        std::optional<detail::string_response> response;
        std::optional<generation_request> generation;
    };

    detail::net::awaitable<bool> handle(stream_type& stream, const detail::string_request& request) {
        routed r = route(request);
        if (r.generation) co_return co_await generate(stream, request, *r.generation);
        co_return co_await write_response(stream, *r.response) && r.response->keep_alive();
    }

    routed route(const detail::string_request& request) {
        namespace http = detail::http;
        const unsigned version = request.version();
        const bool keep = request.keep_alive();
        const auto path = detail::path_of(detail::to_std(request.target()));
        try {
            if (path == "/v1/chat/completions" || path == "/v1/completions") {
                require(request, http::verb::post, "POST");
                const auto kind = path == "/v1/completions" ? api_kind::completion : api_kind::chat;
                auto g = parse_generation_request(kind, request.body(), options_.model);
                if (auto why = engine_.inadmissible(g.prompt_tokens, effective_max_tokens(g, max_model_len())))
                    throw api_error(400, "BadRequestError", *why);
                if (stopping_) throw api_error(503, "ServiceUnavailableError", "The server is shutting down");
                return {std::nullopt, std::move(g)};
            }
            if (path == "/tokenize") {
                require(request, http::verb::post, "POST");
                const auto count = parse_tokenize_request(request.body(), options_.model);
                const auto seed = servestat::detail::fnv1a(request.body());
                return {text_response(http::status::ok, version, keep, "application/json",
                                      tokenize_body(count, max_model_len(), seed)),
                        std::nullopt};
            }
            if (path == "/v1/models") {
                require(request, http::verb::get, "GET");
                return {text_response(http::status::ok, version, keep, "application/json",
                                      models_body(options_.model, max_model_len(), unix_time())),
                        std::nullopt};
            }
            if (path == "/health") {
                require(request, http::verb::get, "GET");
                return {text_response(http::status::ok, version, keep, "", ""), std::nullopt};
            }
            if (path == "/metrics") {
                require(request, http::verb::get, "GET");
                return {text_response(http::status::ok, version, keep, metrics_content_type,
                                      metrics_.render(options_.model, engine_.running(), engine_.waiting())),
                        std::nullopt};
            }
            throw api_error(404, "NotFoundError", fmt::format("No route for {}", path));
        } catch (const api_error& e) {
            auto response = error_response(version, keep, e);
            if (e.status() == 405) response.set(http::field::allow, detail::to_beast(allowed_method(path)));
            return {std::move(response), std::nullopt};
        }
    }

    static std::string_view allowed_method(std::string_view path) {
        return path == "/v1/models" || path == "/health" || path == "/metrics" ? "GET" : "POST";
    }

    // Method first (405), then, for bodies, the media type (415).
    static void require(const detail::string_request& request, detail::http::verb verb, std::string_view name) {
        namespace http = detail::http;
        if (request.method() != verb)
            throw api_error(405, "MethodNotAllowedError", fmt::format("Method not allowed; use {}", name));
        if (verb == http::verb::post) {
            const auto type = detail::to_std(request[http::field::content_type]);
            if (!detail::is_json_content_type(type))
                throw api_error(415, "UnsupportedMediaTypeError",
                                fmt::format("Content-Type must be application/json, got '{}'", type));
        }
    }

    std::int32_t max_model_len() const { return engine_.config().max_model_len; }
    static std::int64_t unix_time() { return static_cast<std::int64_t>(std::time(nullptr)); }

    static detail::string_response text_response(detail::http::status status, unsigned version, bool keep_alive,
                                                 std::string_view content_type, std::string body) {
        namespace http = detail::http;
        detail::string_response res{status, version};
        res.set(http::field::server, "servestat-simulate");
        if (!content_type.empty()) res.set(http::field::content_type, detail::to_beast(content_type));
        res.keep_alive(keep_alive);
        res.body() = std::move(body);
        res.prepare_payload();
        return res;
    }

    static detail::string_response error_response(unsigned version, bool keep_alive, const api_error& e) {
        return text_response(static_cast<detail::http::status>(e.status()), version, keep_alive, "application/json",
                             error_body(e));
    }

    detail::net::awaitable<bool> write_response(stream_type& stream, detail::string_response& response) {
        namespace net = detail::net;
        boost::system::error_code ec;
        stream.expires_after(io_timeout());
        co_await detail::http::async_write(stream, response, net::redirect_error(net::use_awaitable, ec));
        stream.expires_never();
        co_return !ec;
    }

    detail::net::awaitable<bool> write_bytes(stream_type& stream, std::string_view bytes) {
        namespace net = detail::net;
        boost::system::error_code ec;
        stream.expires_after(io_timeout());
        co_await net::async_write(stream, net::buffer(bytes), net::redirect_error(net::use_awaitable, ec));
        stream.expires_never();
        co_return !ec;
    }

    // ---- generation -----------------------------------------------------------------------------

    // Queues the request in the engine, answers it as a stream or whole, and takes it out of the
    // engine if the client goes away first. Returns whether the connection may serve another request.
    detail::net::awaitable<bool> generate(stream_type& stream, const detail::string_request& request,
                                          const generation_request& g) {
        const std::uint64_t id = ++last_id_;
        auto pending = std::make_shared<detail::pending_request>(stream.get_executor());
        pending->id = id;
        pending->seed = servestat::detail::mix64(options_.seed ^ servestat::detail::mix64(id));
        pending->prompt_tokens = g.prompt_tokens;
        pending->max_tokens = effective_max_tokens(g, max_model_len());
        const double arrival = sim_now();
        last_arrival_ = std::max(last_arrival_, arrival);
        engine_.add({id, pending->prompt_tokens, pending->max_tokens}, arrival);
        requests_.emplace(id, pending);
        wake_.cancel();
        // Whatever way this ends (answered, client gone, shutdown), the engine forgets the request.
        struct forget {
            server* self;
            std::uint64_t id;
            ~forget() {
                const auto it = self->requests_.find(id);
                if (it != self->requests_.end() && !it->second->done) self->engine_.cancel(id);
                self->requests_.erase(id);
            }
        } forget_guard{this, id};

        const auto prefix = g.kind == api_kind::chat ? "chatcmpl-" : "cmpl-";
        const response_builder builder(
            g.kind, fmt::format("{}{:016x}{:016x}", prefix, pending->seed, servestat::detail::mix64(pending->seed)), unix_time(),
            options_.model);
        bool keep = false;
        if (g.stream)
            keep = co_await stream_response(stream, request, g, builder, pending);
        else
            keep = co_await whole_response(stream, request, builder, pending);
        if (keep && pending->watching) {
            boost::system::error_code ec;
            stream.socket().cancel(ec); // the readiness wait; nothing else is pending
        }
        co_return keep;
    }

    // Waits until the engine loop has news for this request; false when the client is gone.
    detail::net::awaitable<bool> wait_for_engine(stream_type& stream,
                                                 const std::shared_ptr<detail::pending_request>& pending) {
        namespace net = detail::net;
        boost::system::error_code ec;
        if (!pending->watching && !pending->peer_sent_data) {
            // Readable while we wait means the client closed (or pipelined a request): a queued or
            // non-streamed request is then cancelled at once, as vLLM aborts on disconnect.
            pending->watching = true;
            stream.socket().async_wait(net::ip::tcp::socket::wait_read,
                                       [pending](const boost::system::error_code& e) {
                                           pending->watching = false;
                                           if (e == net::error::operation_aborted) return;
                                           pending->peer_event = true;
                                           pending->peer_error = e;
                                           pending->signal.cancel();
                                       });
        }
        co_await pending->signal.async_wait(net::redirect_error(net::use_awaitable, ec));
        if (pending->peer_event) {
            pending->peer_event = false;
            if (peer_gone(stream, *pending)) co_return false;
        }
        co_return true;
    }

    static bool peer_gone(stream_type& stream, detail::pending_request& pending) {
        namespace net = detail::net;
        if (pending.peer_error) return true;
        char byte = 0;
        boost::system::error_code ec;
        const auto n = stream.socket().receive(net::buffer(&byte, 1), net::socket_base::message_peek, ec);
        if (ec == net::error::would_block || ec == net::error::try_again) return false; // spurious: watch again
        if (ec || n == 0) return true;
        pending.peer_sent_data = true;
        return false;
    }

    detail::net::awaitable<bool> whole_response(stream_type& stream, const detail::string_request& request,
                                                const response_builder& builder,
                                                std::shared_ptr<detail::pending_request> pending) {
        namespace http = detail::http;
        while (!pending->done) {
            if (pending->aborted) co_return false;
            if (!co_await wait_for_engine(stream, pending)) co_return false;
        }
        std::string text;
        for (std::int32_t i = 0; i < pending->produced; ++i) text.append(output_token(pending->seed, i));
        auto response =
            text_response(http::status::ok, request.version(), request.keep_alive(), "application/json",
                          builder.full_body(text, pending->prompt_tokens, pending->produced, pending->timings));
        response.set(detail::to_beast(timings_header_name), timings_header_value(pending->timings));
        co_return co_await write_response(stream, response) && response.keep_alive();
    }

    detail::net::awaitable<bool> stream_response(stream_type& stream, const detail::string_request& request,
                                                 const generation_request& g, const response_builder& builder,
                                                 std::shared_ptr<detail::pending_request> pending) {
        // HTTP/1.0 has no chunked encoding: its stream ends when the connection closes.
        const bool chunked = request.version() >= 11;
        const bool keep_alive = chunked && request.keep_alive();
        std::string head = "HTTP/1.1 200 OK\r\nServer: servestat-simulate\r\n"
                           "Content-Type: text/event-stream; charset=utf-8\r\nCache-Control: no-cache\r\n";
        if (chunked) head.append("Transfer-Encoding: chunked\r\n");
        if (!keep_alive) head.append("Connection: close\r\n");
        head.append("\r\n");
        if (!co_await write_bytes(stream, head)) co_return false;

        std::int32_t sent = 0;
        for (;;) {
            if (pending->aborted) co_return false;
            if (pending->produced > sent) {
                std::string events;
                if (sent == 0 && g.kind == api_kind::chat) append_sse_event(events, builder.role_chunk());
                bool last = false;
                for (; sent < pending->produced; ++sent) {
                    last = sent + 1 == pending->max_tokens;
                    append_sse_event(events, builder.token_chunk(output_token(pending->seed, sent), last,
                                                                 last ? &pending->timings : nullptr));
                }
                if (last) {
                    if (g.include_usage)
                        append_sse_event(events, builder.usage_chunk(pending->prompt_tokens, pending->produced));
                    events.append(sse_done);
                }
                std::string wire;
                if (chunked) {
                    append_http_chunk(wire, events);
                    if (last) wire.append(http_last_chunk);
                } else {
                    wire = std::move(events);
                }
                if (!co_await write_bytes(stream, wire)) co_return false;
                if (last) co_return keep_alive;
                continue;
            }
            if (!co_await wait_for_engine(stream, pending)) co_return false;
        }
    }

    // io_ comes first: it is destroyed last, after the I/O objects that use it.
    detail::net::io_context io_{1};
    server_options options_;
    engine engine_;
    server_metrics metrics_;
    detail::net::ip::tcp::acceptor acceptor_;
    detail::net::steady_timer wake_;        // cancelled when a request arrives at an idle engine
    detail::net::steady_timer step_timer_;  // the end of the running step
    detail::net::steady_timer grace_timer_; // accept back-off
    std::unordered_map<std::uint64_t, std::shared_ptr<detail::pending_request>> requests_;
    std::unordered_set<stream_type*> connections_;
    std::chrono::steady_clock::time_point origin_ = std::chrono::steady_clock::now();
    double clock_ = 0;        // simulated end of the last step
    double last_arrival_ = 0; // simulated arrival of the latest request
    std::uint64_t last_id_ = 0;
    bool stopping_ = false;
};

} // namespace servestat::sim
