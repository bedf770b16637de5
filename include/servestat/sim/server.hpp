// The simulator's HTTP/1.1 server (plain or TLS): vLLM's OpenAI-compatible API over the engine, in scaled real time.
#pragma once

#include <algorithm>     // std::max
#include <chrono>        // std::chrono::steady_clock, duration
#include <cstddef>       // std::size_t
#include <cstdint>       // std::int32_t, std::int64_t, std::uint16_t, std::uint64_t
#include <cstring>       // std::memcpy
#include <ctime>         // std::time
#include <exception>     // std::exception_ptr, std::rethrow_exception
#include <fstream>       // std::ifstream
#include <memory>        // std::shared_ptr, std::make_shared
#include <optional>      // std::optional
#include <string>        // std::string
#include <string_view>   // std::string_view
#include <type_traits>   // std::is_same_v
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
#include <boost/asio/ssl/context.hpp>    // boost::asio::ssl::context
#include <boost/asio/ssl/error.hpp>      // boost::asio::ssl::error
#include <boost/asio/ssl/stream_base.hpp> // boost::asio::ssl::stream_base
#include <boost/asio/steady_timer.hpp>   // boost::asio::steady_timer
#include <boost/asio/use_awaitable.hpp>  // boost::asio::use_awaitable
#include <boost/asio/write.hpp>          // boost::asio::async_write
#include <boost/beast/core/flat_buffer.hpp>   // boost::beast::flat_buffer
#include <boost/beast/core/stream_traits.hpp> // boost::beast::get_lowest_layer
#include <boost/beast/core/string.hpp>        // boost::beast::iequals
#include <boost/beast/core/tcp_stream.hpp>    // boost::beast::tcp_stream
#include <boost/beast/http/error.hpp>         // boost::beast::http::error
#include <boost/beast/http/message.hpp>       // boost::beast::http::request, response
#include <boost/beast/http/parser.hpp>        // boost::beast::http::request_parser
#include <boost/beast/http/read.hpp>          // boost::beast::http::async_read_header, async_read
#include <boost/beast/http/string_body.hpp>   // boost::beast::http::string_body
#include <boost/beast/http/write.hpp>         // boost::beast::http::async_write
#include <boost/beast/ssl/ssl_stream.hpp>     // boost::beast::ssl_stream
#include <fmt/format.h>                       // fmt::format

#include "servestat/core/errors.hpp"   // usage_error
#include "servestat/core/random.hpp"   // detail::mix64
#include "servestat/core/text.hpp"     // detail::fnv1a
#include "servestat/sim/engine.hpp"    // engine, engine_config, step_result
#include "servestat/sim/gpu_power.hpp" // gpu_power_config, gpu_power_meter
#include "servestat/sim/http_api.hpp"  // parse_generation_request, response_builder, api_error, request_metrics
#include "servestat/sim/metrics.hpp"   // server_metrics, request_timings
#include "servestat/sim/prefix_cache.hpp" // block_hashes
#include "servestat/sim/responses.hpp" // parse_responses_request, response_store, responses_builder
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
//
// With a certificate and key (server_options::tls_cert, tls_key) every connection is TLS: Beast's
// ssl_stream over the same tcp_stream, OpenSSL underneath. The connection code is a template on the
// stream type, so plain HTTP runs exactly the code it ran before TLS existed. A client that fails the
// handshake ends its own connection only.

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
    std::string tls_cert, tls_key;   // PEM files; both set: HTTPS, both empty: HTTP
    std::size_t response_store_capacity = response_store::default_capacity; // stored Responses
    // Failure injection (docs/simulator.md): from `fail_after` simulated seconds after the first
    // generation request on, a share `fail_rate` of generation requests, drawn from `seed` and each
    // request's arrival number, is answered HTTP 500 at once. 0: none (and nothing else changes).
    double fail_rate = 0;
    double fail_after = 0;
    // vLLM's --enable-per-request-metrics: each finished request's `metrics` object in its response.
    bool per_request_metrics = false;
    // vLLM's --enable-force-include-usage: a stream ends with the usage chunk (and so the metrics)
    // even when the request does not ask with stream_options.include_usage.
    bool force_include_usage = false;
    // --gpu-power IDLE:BUSY, --gpus N: the modelled GPU power and energy on /metrics under DCGM's
    // names (gpu_power.hpp). None: /metrics is vLLM's alone, byte for byte as without the option.
    std::optional<gpu_power_config> gpu_power;
};

namespace detail {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;

using stream_type = beast::tcp_stream;             // plain HTTP
using tls_stream_type = beast::ssl_stream<beast::tcp_stream>; // HTTPS
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
    bool done = false;            // the engine finished it; `timings` and `cached_tokens` are set
    request_timings timings;      // seconds as the client sees them
    std::int32_t cached_tokens = 0; // prompt tokens the prefix cache supplied
    bool aborted = false;         // the server is shutting down
    bool watching = false;        // a readiness wait on the client's socket is pending
    bool peer_event = false;      // that wait completed: the client sent bytes or went away
    bool peer_sent_data = false;  // it sent bytes (a pipelined request): stop watching
    std::string pipelined;        // TLS: those bytes, decrypted to find out, for the next request
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

// A TLS context serving `cert` (a PEM chain) with `key`; usage_error naming the file that is missing,
// unreadable or refused, before anything is served.
inline net::ssl::context tls_context(const std::string& cert, const std::string& key) {
    for (const auto& [flag, file] : {std::pair{"--tls-cert", &cert}, std::pair{"--tls-key", &key}}) {
        if (file->empty())
            throw usage_error(fmt::format("simulator: TLS needs both --tls-cert and --tls-key; {} is missing", flag));
        if (!std::ifstream(*file))
            throw usage_error(fmt::format("simulator: cannot read {} file '{}'", flag, *file));
    }
    net::ssl::context ctx(net::ssl::context::tls_server);
    ctx.set_options(net::ssl::context::default_workarounds | net::ssl::context::no_sslv2 |
                    net::ssl::context::no_sslv3 | net::ssl::context::no_tlsv1 | net::ssl::context::no_tlsv1_1 |
                    net::ssl::context::single_dh_use);
    boost::system::error_code ec;
    if (ctx.use_certificate_chain_file(cert, ec); ec)
        throw usage_error(fmt::format("simulator: --tls-cert '{}' is not a usable PEM certificate: {}", cert, ec.message()));
    if (ctx.use_private_key_file(key, net::ssl::context::pem, ec); ec)
        throw usage_error(fmt::format("simulator: --tls-key '{}' is not a usable PEM private key (or does not match "
                                      "the certificate): {}", key, ec.message()));
    return ctx;
}

// The stream's TCP layer, which holds the socket and the timeouts.
template <class Stream>
beast::tcp_stream& tcp_of(Stream& stream) {
    return beast::get_lowest_layer(stream);
}

} // namespace detail

class server {
public:
    // Binds and listens at once, so a port conflict is reported before anything runs; throws
    // usage_error when the address cannot be used.
    explicit server(server_options options)
        : options_(std::move(options)), engine_(options_.engine), store_(options_.response_store_capacity),
          acceptor_(io_), wake_(io_), step_timer_(io_), grace_timer_(io_) {
        if (!(options_.time_scale > 0)) throw usage_error("simulator: time_scale must be positive");
        namespace net = detail::net;
        if (!options_.tls_cert.empty() || !options_.tls_key.empty())
            tls_.emplace(detail::tls_context(options_.tls_cert, options_.tls_key));
        if (engine_.cache()) metrics_.enable_prefix_cache();
        if (options_.gpu_power) power_.emplace(*options_.gpu_power);
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
        return fmt::format("{}://{}:{}", tls_ ? "https" : "http", detail::format_host(e.address()), e.port());
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

    // Seconds since start() as the client's clock sees them: /metrics times, the GPU energy's clock.
    double client_now() const {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - origin_).count();
    }
    double sim_now() const { return client_now() * options_.time_scale; }
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
            // The simulated schedule, on the client's clock: the GPUs are busy for the whole step.
            if (power_) power_->record_step(start / options_.time_scale, clock_ / options_.time_scale);
            step_timer_.expires_at(wall_time(clock_));
            co_await step_timer_.async_wait(net::redirect_error(net::use_awaitable, ec));
            if (stopping_) break;
            deliver(step);
        }
    }

    void deliver(const step_result& step) {
        metrics_.record_step(step.prefill_tokens, step.tokens.size());
        metrics_.record_preemptions(step.preemptions);
        if (engine_.cache()) metrics_.record_prefix_cache(step.cache_queries, step.cache_hits);
        for (const auto& f : step.done) {
            const auto it = requests_.find(f.id);
            if (it == requests_.end()) continue; // cancelled while the step ran
            it->second->done = true;
            it->second->timings = client_timings(f);
            it->second->cached_tokens = f.cached_tokens;
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
            if (tls_)
                net::co_spawn(io_, serve_tls_connection(std::move(socket)), [](std::exception_ptr) {});
            else
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

    // Registers a connection's TCP stream, which shutdown() closes, for as long as it lives.
    struct registration {
        server* self;
        detail::beast::tcp_stream* stream;
        registration(server* s, detail::beast::tcp_stream* t) : self(s), stream(t) { self->connections_.insert(t); }
        registration(const registration&) = delete;
        registration& operator=(const registration&) = delete;
        ~registration() { self->connections_.erase(stream); }
    };

    detail::net::awaitable<void> serve_connection(detail::net::ip::tcp::socket socket) {
        stream_type stream(std::move(socket));
        const registration registered(this, &stream);
        co_await serve_requests(stream);
    }

    detail::net::awaitable<void> serve_tls_connection(detail::net::ip::tcp::socket socket) {
        namespace net = detail::net;
        detail::tls_stream_type stream(std::move(socket), *tls_);
        auto& tcp = detail::tcp_of(stream);
        const registration registered(this, &tcp);
        boost::system::error_code ec;
        tcp.expires_after(io_timeout());
        co_await stream.async_handshake(net::ssl::stream_base::server, net::redirect_error(net::use_awaitable, ec));
        tcp.expires_never();
        if (ec || stopping_) co_return; // e.g. the client refused the certificate: only it is affected
        co_await serve_requests(stream);
    }

    // Reads and answers requests until the client or the server ends the connection.
    template <class Stream>
    detail::net::awaitable<void> serve_requests(Stream& stream) {
        namespace net = detail::net;
        namespace http = detail::http;
        auto& tcp = detail::tcp_of(stream);
        boost::system::error_code ec;
        // Token chunks go out as they are made; the disconnect check peeks without blocking.
        tcp.socket().set_option(net::ip::tcp::no_delay(true), ec);
        tcp.socket().non_blocking(true, ec);
        detail::beast::flat_buffer buffer;
        bool keep_alive = true;
        while (keep_alive && !stopping_) {
            http::request_parser<http::string_body> parser;
            parser.header_limit(16 * 1024);
            parser.body_limit(options_.max_body_bytes);
            tcp.expires_after(io_timeout());
            co_await http::async_read_header(stream, buffer, parser, net::redirect_error(net::use_awaitable, ec));
            if (!ec && detail::beast::iequals(parser.get()[http::field::expect], "100-continue") && !parser.is_done()) {
                static constexpr std::string_view go_on = "HTTP/1.1 100 Continue\r\n\r\n";
                co_await net::async_write(stream, net::buffer(go_on), net::redirect_error(net::use_awaitable, ec));
            }
            if (!ec && !parser.is_done())
                co_await http::async_read(stream, buffer, parser, net::redirect_error(net::use_awaitable, ec));
            tcp.expires_never();
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
            keep_alive = co_await handle(stream, buffer, request);
        }
        if constexpr (std::is_same_v<Stream, detail::tls_stream_type>) {
            // close_notify, so that a client reading to the end of the stream sees a clean end; a
            // client that has gone already makes this fail at once.
            if (!stopping_) {
                tcp.expires_after(std::chrono::seconds(2));
                co_await stream.async_shutdown(net::redirect_error(net::use_awaitable, ec));
                tcp.expires_never();
            }
        }
        tcp.socket().shutdown(net::ip::tcp::socket::shutdown_send, ec);
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
    template <class Stream>
    detail::net::awaitable<void> lingering_close(Stream& stream) {
        namespace net = detail::net;
        boost::system::error_code ec;
        auto& tcp = detail::tcp_of(stream);
        tcp.socket().shutdown(net::ip::tcp::socket::shutdown_send, ec);
        tcp.expires_after(std::chrono::seconds(1));
        std::vector<char> sink(16384); // on the heap: a large coroutine frame trips g++ 12's
                                       // -Wmismatched-new-delete inside Asio's frame allocator
        while (!ec && !stopping_)
            co_await stream.async_read_some(net::buffer(sink), net::redirect_error(net::use_awaitable, ec));
        tcp.expires_never();
    }

    // ---- routing ------------------------------------------------------------------------------

    // Everything but the engine part of a generation request: a response, or the validated request.
    struct routed {
        std::optional<detail::string_response> response;
        std::optional<generation_request> generation;
        std::optional<responses_request> responses; // with a /v1/responses generation
    };

    template <class Stream>
    detail::net::awaitable<bool> handle(Stream& stream, detail::beast::flat_buffer& buffer,
                                        const detail::string_request& request) {
        routed r = route(request);
        if (r.generation)
            co_return co_await generate(stream, buffer, request, *r.generation,
                                        r.responses ? &*r.responses : nullptr);
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
                inject_failure();
                return {std::nullopt, std::move(g), std::nullopt};
            }
            if (path == "/v1/responses") {
                require(request, http::verb::post, "POST");
                auto r = parse_responses_request(request.body(), options_.model);
                auto g = responses_generation(r, store_);
                if (auto why = engine_.inadmissible(g.prompt_tokens, max_tokens_of(g)))
                    throw api_error(400, "BadRequestError", *why);
                if (stopping_) throw api_error(503, "ServiceUnavailableError", "The server is shutting down");
                inject_failure();
                return {std::nullopt, std::move(g), std::move(r)};
            }
            if (path == "/tokenize") {
                require(request, http::verb::post, "POST");
                const auto count = parse_tokenize_request(request.body(), options_.model);
                const auto seed = servestat::detail::fnv1a(request.body());
                return {text_response(http::status::ok, version, keep, "application/json",
                                      tokenize_body(count, max_model_len(), seed)),
                        std::nullopt, std::nullopt};
            }
            if (path == "/v1/models") {
                require(request, http::verb::get, "GET");
                return {text_response(http::status::ok, version, keep, "application/json",
                                      models_body(options_.model, max_model_len(), unix_time())),
                        std::nullopt, std::nullopt};
            }
            if (path == "/health") {
                require(request, http::verb::get, "GET");
                return {text_response(http::status::ok, version, keep, "", ""), std::nullopt, std::nullopt};
            }
            if (path == "/metrics") {
                require(request, http::verb::get, "GET");
                std::string body = metrics_.render(options_.model, engine_.running(), engine_.waiting(),
                                                   engine_.kv_cache_usage());
                if (power_) power_->append_samples(body, client_now());
                return {text_response(http::status::ok, version, keep, metrics_content_type, std::move(body)),
                        std::nullopt, std::nullopt};
            }
            throw api_error(404, "NotFoundError", fmt::format("No route for {}", path));
        } catch (const api_error& e) {
            auto response = error_response(version, keep, e);
            if (e.status() == 405) response.set(http::field::allow, detail::to_beast(allowed_method(path)));
            return {std::move(response), std::nullopt, std::nullopt};
        }
    }

    // --fail-rate: throws the HTTP 500 a failing engine answers with for this generation request, when
    // the draw for its arrival number says so. The draws depend on the seed and the arrival order
    // alone, so a seed fails the same requests of the same run.
    void inject_failure() {
        if (options_.fail_rate <= 0) return;
        const double now = sim_now();
        if (!first_generation_) first_generation_ = now;
        const std::uint64_t n = generations_++;
        if (now - *first_generation_ < options_.fail_after) return;
        servestat::detail::xoshiro256 rng(servestat::detail::mix64(options_.seed ^ 0x6661696c75726573ULL) ^ n);
        if (servestat::detail::uniform_open_closed(rng) > options_.fail_rate) return;
        throw api_error(500, "InternalServerError",
                        fmt::format("Simulated engine failure (servestat simulate --fail-rate {})", options_.fail_rate));
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
    // max_tokens the engine runs a request with (0 or less: the prompt alone fills the context).
    std::int32_t max_tokens_of(const generation_request& g) const {
        return g.kind == api_kind::responses ? responses_max_tokens(g, max_model_len())
                                             : effective_max_tokens(g, max_model_len());
    }
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

    template <class Stream>
    detail::net::awaitable<bool> write_response(Stream& stream, detail::string_response& response) {
        namespace net = detail::net;
        boost::system::error_code ec;
        detail::tcp_of(stream).expires_after(io_timeout());
        co_await detail::http::async_write(stream, response, net::redirect_error(net::use_awaitable, ec));
        detail::tcp_of(stream).expires_never();
        co_return !ec;
    }

    template <class Stream>
    detail::net::awaitable<bool> write_bytes(Stream& stream, std::string_view bytes) {
        namespace net = detail::net;
        boost::system::error_code ec;
        detail::tcp_of(stream).expires_after(io_timeout());
        co_await net::async_write(stream, net::buffer(bytes), net::redirect_error(net::use_awaitable, ec));
        detail::tcp_of(stream).expires_never();
        co_return !ec;
    }

    // ---- generation -----------------------------------------------------------------------------

    // Queues the request in the engine, answers it as a stream or whole, and takes it out of the
    // engine if the client goes away first. Returns whether the connection may serve another request.
    // `responses` is the /v1/responses request behind `g`, nullptr for chat and completions;
    // `buffer` the connection's read buffer, which gets what a TLS client pipelined meanwhile.
    template <class Stream>
    detail::net::awaitable<bool> generate(Stream& stream, detail::beast::flat_buffer& buffer,
                                          const detail::string_request& request, const generation_request& g,
                                          const responses_request* responses) {
        const std::uint64_t id = ++last_id_;
        auto pending = std::make_shared<detail::pending_request>(stream.get_executor());
        pending->id = id;
        pending->seed = servestat::detail::mix64(options_.seed ^ servestat::detail::mix64(id));
        pending->prompt_tokens = g.prompt_tokens;
        pending->max_tokens = max_tokens_of(g);
        const double arrival = sim_now();
        last_arrival_ = std::max(last_arrival_, arrival);
        engine_.add({id, pending->prompt_tokens, pending->max_tokens}, arrival, prefix_blocks_of(g, *pending));
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

        const auto hex_id = fmt::format("{:016x}{:016x}", pending->seed, servestat::detail::mix64(pending->seed));
        bool keep = false;
        if (responses) {
            const responses_builder builder(fmt::format("resp_{}", hex_id),
                                            fmt::format("msg_{:016x}", servestat::detail::mix64(pending->seed ^ 1)),
                                            unix_time(), options_.model, *responses, pending->max_tokens);
            if (g.stream)
                keep = co_await responses_stream(stream, request, g, *responses, builder, pending);
            else
                keep = co_await responses_whole(stream, request, g, *responses, builder, pending);
        } else {
            const response_builder builder(g.kind, fmt::format("{}{}", g.kind == api_kind::chat ? "chatcmpl-" : "cmpl-", hex_id),
                                           unix_time(), options_.model);
            if (g.stream)
                keep = co_await stream_response(stream, request, g, builder, pending);
            else
                keep = co_await whole_response(stream, request, builder, pending);
        }
        if (keep && pending->watching) {
            boost::system::error_code ec;
            detail::tcp_of(stream).socket().cancel(ec); // the readiness wait; nothing else is pending
        }
        if (!pending->pipelined.empty()) { // read after what the parser had already buffered
            const auto n = pending->pipelined.size();
            std::memcpy(buffer.prepare(n).data(), pending->pipelined.data(), n);
            buffer.commit(n);
        }
        co_return keep;
    }

    // The request's keys in the prefix cache: its prompt's blocks, and those of prompt + reply as the
    // next turn renders them (every request generates exactly max_tokens tokens, so the reply is
    // known now). Nothing when caching is off.
    prefix_blocks prefix_blocks_of(const generation_request& g, const detail::pending_request& pending) const {
        prefix_blocks blocks;
        const auto* cache = engine_.cache();
        if (!cache) return blocks;
        auto ids = prompt_token_ids(g);
        blocks.prompt = block_hashes(ids, cache->block_size());
        append_reply_token_ids(g.kind, ids, reply_text(pending, pending.max_tokens));
        blocks.finished = block_hashes(ids, cache->block_size());
        return blocks;
    }

    static std::string reply_text(const detail::pending_request& pending, std::int32_t tokens) {
        std::string text;
        for (std::int32_t i = 0; i < tokens; ++i) text.append(output_token(pending.seed, i));
        return text;
    }

    // usage's cached tokens for chat and completions: vLLM reports them with prefix caching on.
    std::optional<std::int32_t> cached_usage(const detail::pending_request& pending) const {
        return engine_.cache() ? std::optional<std::int32_t>(pending.cached_tokens) : std::nullopt;
    }

    // vLLM's per-request metrics of a finished request, when the server reports them.
    std::optional<request_metrics> metrics_of(const detail::pending_request& pending) const {
        if (!options_.per_request_metrics) return std::nullopt;
        return request_metrics{pending.timings, pending.produced};
    }

    // Waits until the engine loop has news for this request; false when the client is gone.
    template <class Stream>
    detail::net::awaitable<bool> wait_for_engine(Stream& stream,
                                                 const std::shared_ptr<detail::pending_request>& pending) {
        namespace net = detail::net;
        boost::system::error_code ec;
        if (!pending->watching && !pending->peer_sent_data) {
            // Readable while we wait means the client closed (or pipelined a request): a queued or
            // non-streamed request is then cancelled at once, as vLLM aborts on disconnect. The wait
            // is on the TCP socket under TLS too: no TLS read is pending while a request runs.
            pending->watching = true;
            detail::tcp_of(stream).socket().async_wait(net::ip::tcp::socket::wait_read,
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

    // Whether the client went away, from what it sent while its request ran. Plain HTTP peeks: no
    // bytes is the TCP close, bytes are a pipelined request (left for the next read). Under TLS the
    // bytes are records that only OpenSSL can tell apart (TLS 1.3 sends even alerts as application
    // data records), so they are read through the TLS stream, without blocking: close_notify or a
    // TCP close without it ends the request; decrypted data is a pipelined request, kept for the
    // next read; a partial record or a handshake message (a key update) means watch again.
    template <class Stream>
    static bool peer_gone(Stream& stream, detail::pending_request& pending) {
        namespace net = detail::net;
        if (pending.peer_error) return true;
        boost::system::error_code ec;
        if constexpr (std::is_same_v<Stream, detail::tls_stream_type>) {
            char bytes[4096];
            const auto n = stream.read_some(net::buffer(bytes), ec);
            if (ec == net::error::would_block || ec == net::error::try_again) return false;
            if (ec) return true; // eof (close_notify), stream_truncated (no close_notify), a reset
            pending.pipelined.append(bytes, n);
            pending.peer_sent_data = true;
            return false;
        } else {
            char byte = 0;
            const auto n = detail::tcp_of(stream).socket().receive(net::buffer(&byte, 1), net::socket_base::message_peek, ec);
            if (ec == net::error::would_block || ec == net::error::try_again) return false; // spurious: watch again
            if (ec || n == 0) return true;
            pending.peer_sent_data = true;
            return false;
        }
    }

    template <class Stream>
    detail::net::awaitable<bool> whole_response(Stream& stream, const detail::string_request& request,
                                                const response_builder& builder,
                                                std::shared_ptr<detail::pending_request> pending) {
        namespace http = detail::http;
        // Inline on purpose: moved into a helper awaitable<bool>, this loop crashed (SIGILL in the
        // helper's resumed frame) when built with g++ 12 -O3 and Boost 1.74.
        while (!pending->done) {
            if (pending->aborted) co_return false;
            if (!co_await wait_for_engine(stream, pending)) co_return false;
        }
        const std::string text = reply_text(*pending, pending->produced);
        auto response = text_response(http::status::ok, request.version(), request.keep_alive(), "application/json",
                                      builder.full_body(text, pending->prompt_tokens, pending->produced,
                                                        cached_usage(*pending), metrics_of(*pending)));
        co_return co_await write_response(stream, response) && response.keep_alive();
    }

    // The status line and headers of a stream; HTTP/1.0 has no chunked encoding: its stream ends when
    // the connection closes.
    static std::string stream_head(bool chunked, bool keep_alive) {
        std::string head = "HTTP/1.1 200 OK\r\nServer: servestat-simulate\r\n"
                           "Content-Type: text/event-stream; charset=utf-8\r\nCache-Control: no-cache\r\n";
        if (chunked) head.append("Transfer-Encoding: chunked\r\n");
        if (!keep_alive) head.append("Connection: close\r\n");
        return head.append("\r\n");
    }

    // Writes events as one chunk (or raw for HTTP/1.0), with the last chunk when `last`.
    template <class Stream>
    detail::net::awaitable<bool> write_events(Stream& stream, std::string& events, bool chunked, bool last) {
        if (!chunked) co_return co_await write_bytes(stream, events);
        std::string wire;
        append_http_chunk(wire, events);
        if (last) wire.append(http_last_chunk);
        co_return co_await write_bytes(stream, wire);
    }

    template <class Stream>
    detail::net::awaitable<bool> stream_response(Stream& stream, const detail::string_request& request,
                                                 const generation_request& g, const response_builder& builder,
                                                 std::shared_ptr<detail::pending_request> pending) {
        const bool chunked = request.version() >= 11;
        const bool keep_alive = chunked && request.keep_alive();
        if (!co_await write_bytes(stream, stream_head(chunked, keep_alive))) co_return false;

        std::int32_t sent = 0;
        for (;;) {
            if (pending->aborted) co_return false;
            if (pending->produced > sent) {
                std::string events;
                if (sent == 0 && g.kind == api_kind::chat) append_sse_event(events, builder.role_chunk());
                bool last = false;
                for (; sent < pending->produced; ++sent) {
                    last = sent + 1 == pending->max_tokens;
                    append_sse_event(events, builder.token_chunk(output_token(pending->seed, sent), last));
                }
                if (last) {
                    if (g.include_usage || options_.force_include_usage)
                        append_sse_event(events, builder.usage_chunk(pending->prompt_tokens, pending->produced,
                                                                     cached_usage(*pending), metrics_of(*pending)));
                    events.append(sse_done);
                }
                if (!co_await write_events(stream, events, chunked, last)) co_return false;
                if (last) co_return keep_alive;
                continue;
            }
            if (!co_await wait_for_engine(stream, pending)) co_return false;
        }
    }

    // ---- /v1/responses --------------------------------------------------------------------------

    responses_usage usage_of(const detail::pending_request& pending) const {
        return {pending.prompt_tokens, pending.cached_tokens, pending.produced};
    }

    // With store (the default), the conversation a later previous_response_id continues.
    void remember(const generation_request& g, const responses_request& r, const responses_builder& builder,
                  const std::string& text) {
        if (!r.store) return;
        auto conversation = g.messages;
        conversation.emplace_back("assistant", text);
        store_.put(builder.id(), std::move(conversation));
    }

    template <class Stream>
    detail::net::awaitable<bool> responses_whole(Stream& stream, const detail::string_request& request,
                                                 const generation_request& g, const responses_request& r,
                                                 const responses_builder& builder,
                                                 std::shared_ptr<detail::pending_request> pending) {
        namespace http = detail::http;
        // Inline on purpose: moved into a helper awaitable<bool>, this loop crashed (SIGILL in the
        // helper's resumed frame) when built with g++ 12 -O3 and Boost 1.74.
        while (!pending->done) {
            if (pending->aborted) co_return false;
            if (!co_await wait_for_engine(stream, pending)) co_return false;
        }
        const std::string text = reply_text(*pending, pending->produced);
        remember(g, r, builder, text);
        auto response = text_response(http::status::ok, request.version(), request.keep_alive(), "application/json",
                                      builder.full_body(text, usage_of(*pending), metrics_of(*pending)));
        co_return co_await write_response(stream, response) && response.keep_alive();
    }

    // response.created and response.in_progress at once, as vLLM sends them before the first token;
    // the item and its part open with the first token; response.completed ends the stream.
    template <class Stream>
    detail::net::awaitable<bool> responses_stream(Stream& stream, const detail::string_request& request,
                                                  const generation_request& g, const responses_request& r,
                                                  const responses_builder& builder,
                                                  std::shared_ptr<detail::pending_request> pending) {
        const bool chunked = request.version() >= 11;
        const bool keep_alive = chunked && request.keep_alive();
        std::string opening = stream_head(chunked, keep_alive);
        std::string events;
        builder.append_opening(events);
        if (chunked) append_http_chunk(opening, events);
        else opening.append(events);
        if (!co_await write_bytes(stream, opening)) co_return false;

        std::int32_t sent = 0;
        for (;;) {
            if (pending->aborted) co_return false;
            if (pending->produced > sent) {
                events.clear();
                if (sent == 0) builder.append_item_opening(events);
                bool last = false;
                for (; sent < pending->produced; ++sent) {
                    last = sent + 1 == pending->max_tokens;
                    builder.append_delta(events, sent, output_token(pending->seed, sent));
                }
                if (last) {
                    const std::string text = reply_text(*pending, pending->produced);
                    builder.append_closing(events, text, pending->produced, usage_of(*pending), metrics_of(*pending));
                    remember(g, r, builder, text);
                }
                if (!co_await write_events(stream, events, chunked, last)) co_return false;
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
    response_store store_; // conversations of stored /v1/responses answers
    server_metrics metrics_;
    std::optional<gpu_power_meter> power_; // with --gpu-power only
    std::optional<detail::net::ssl::context> tls_; // HTTPS when set
    detail::net::ip::tcp::acceptor acceptor_;
    detail::net::steady_timer wake_;        // cancelled when a request arrives at an idle engine
    detail::net::steady_timer step_timer_;  // the end of the running step
    detail::net::steady_timer grace_timer_; // accept back-off
    std::unordered_map<std::uint64_t, std::shared_ptr<detail::pending_request>> requests_;
    std::unordered_set<detail::beast::tcp_stream*> connections_; // each connection's TCP layer
    std::chrono::steady_clock::time_point origin_ = std::chrono::steady_clock::now();
    double clock_ = 0;        // simulated end of the last step
    double last_arrival_ = 0; // simulated arrival of the latest request
    std::uint64_t last_id_ = 0;
    bool stopping_ = false;
    std::optional<double> first_generation_; // simulated arrival of the first generation request (--fail-after)
    std::uint64_t generations_ = 0;          // generation requests routed (--fail-rate's draws)
};

} // namespace servestat::sim
