// bench_sse_server: a minimal OpenAI-compatible streaming server with no model, to measure what a
// load-test client adds to the latencies it reports (bench/driver_overhead.py, bench/README.md).
//
//   bench_sse_server [--host 127.0.0.1] [--port 0] [--threads N] [--ttft-ms 0] [--ttft-jitter-ms 0]
//                    [--itl-ms 20] [--max-model-len 4096] [--model NAME] [--seed 1] [--stats FILE]
//                    [--chunk-log FILE] [--step-grid 0|1]
//
// Prints "listening on http://HOST:PORT" on stdout once every thread listens. Runs until SIGTERM or
// SIGINT, then writes a JSON summary of its own timings to --stats (or stderr) and exits 0.
//
// One event loop per thread: each thread has its own io_context and its own acceptor on the same
// port (SO_REUSEPORT; the kernel spreads connections over them), and serves its connections alone.
// HTTP/1.1 keep-alive. Routes:
//   POST /v1/chat/completions, /v1/completions  "stream":true: SSE in vLLM's chunk shape (chat: a
//        role-only first chunk; then one content chunk per token; then a usage chunk, which carries
//        vLLM's per-request "metrics"; then data: [DONE]), each SSE event in its own HTTP chunk. Not streamed:
//        one JSON body at the time the last token would have gone out.
//   GET /v1/models (max_model_len), GET /health, POST /tokenize (a byte-count stand-in: count =
//   bytes / 4 + 1), anything else 404.
//
// Cadence. Let t_read be the moment the server has parsed the whole request (right after the recv()
// that completed it). The response head and the role chunk are sent at once. Content chunk k
// (k = 0 .. max_tokens-1) is due at the absolute deadline
//     t_read + ttft + jitter + k * itl        (jitter uniform in [0, --ttft-jitter-ms), per request),
// so a late chunk does not delay the next ones. With --step-grid 1 the first deadline is rounded up
// to the next multiple of itl on the monotonic clock, so that every stream's chunks fall due at the
// same instants, as the tokens of one batched decode step do (then they go out in one burst). Each chunk is written with one non-blocking send();
// if the socket cannot take it all, the rest goes out with async_write and the write counts as
// "blocked" in the summary.
//
// What the server reports, as vLLM's per-request "metrics" (milliseconds, in the usage chunk after
// the last content chunk, as vLLM --enable-per-request-metrics sends them; queue_time_ms = queue,
// time_to_first_token_ms = prefill, generation_time_ms = decode, which the load driver logs as
// server_queue, server_prefill, server_decode):
//   queue   = t_read - t_rx, where t_rx is the kernel's receive timestamp of the request's last
//             bytes (SO_TIMESTAMPNS on the recvmsg that completed the request, CLOCK_REALTIME,
//             converted to CLOCK_MONOTONIC by the offset between the two clocks read right after
//             that recvmsg); the time the request waited in this server's socket buffer and event
//             loop. 0 when the kernel gave no timestamp (counted in the summary).
//   prefill = t_send(first content chunk) - t_read, where t_send is the return of the send() that
//             handed the chunk's last byte to the kernel (on loopback the kernel has by then queued it
//             on the client's socket and woken the client).
//   decode  = t_send(last content chunk) - t_send(first content chunk).
// So for a client on the same host, (t_first - t_sent) - (queue + prefill) is what the client and
// the kernel's send path of its request add to the TTFT: from its clock reading before writing the
// request to the kernel's receipt of it, and from the server's hand-over of the first content chunk
// to the client's clock reading after reading it. Likewise for the last content chunk with decode.
//
// The summary (--stats) also gives, over all content chunks, the server's lateness (t_send -
// deadline) and its own gap deviations (t_send(k) - t_send(k-1) - itl).
//
// --chunk-log FILE: every stream is numbered, the number is sent as usage.prompt_tokens (which the
// driver and bench/aiohttp_client.py log as prompt_tokens; the count is a stand-in anyway), and at
// exit FILE gets one line per stream, {"n": number, "d": [t_send(k) - t_send(0), k = 1 .. n-1, in
// ns]}, so that a client's arrival time of every content chunk can be set against the moment the
// server handed that very chunk over, not only the first and the last.
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <exception>
#include <memory>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <utility> // std::exchange (Boost 1.74's awaitable.hpp uses it without the include)
#include <vector>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/string.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <nlohmann/json.hpp>

namespace net = boost::asio;
namespace http = boost::beast::http;
using tcp = net::ip::tcp;

namespace {

struct options {
    std::string host = "127.0.0.1";
    unsigned short port = 0;
    unsigned threads = 0; // 0: hardware_concurrency
    double ttft_ms = 0;
    double ttft_jitter_ms = 0;
    double itl_ms = 20;
    int max_model_len = 4096;
    std::string model = "bench/no-model";
    std::uint64_t seed = 1;
    std::string stats_path;
    std::string chunk_log; // per-request send times of the content chunks, written at exit
    bool step_grid = false; // deadlines on one grid of period itl for all streams (a batch's decode steps)
};

// CLOCK_MONOTONIC (what std::chrono::steady_clock and Asio's steady_timer read) in nanoseconds.
inline std::int64_t mono_ns() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return std::int64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}
inline std::int64_t real_ns() {
    timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return std::int64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}
inline std::chrono::steady_clock::time_point as_time_point(std::int64_t ns) {
    return std::chrono::steady_clock::time_point(std::chrono::nanoseconds(ns));
}

// What one thread measured; merged after the threads end.
struct thread_stats {
    std::uint64_t requests = 0, streams = 0, chunks = 0, blocked_writes = 0, no_rx_timestamp = 0;
    std::int64_t first_generation_ns = 0; // t_read of the first generation request (monotonic)
    std::int64_t last_response_ns = 0;    // the end of the last response's last send()
    std::vector<float> lateness_us; // t_send - deadline, every content chunk
    std::vector<float> gap_dev_us;  // t_send(k) - t_send(k-1) - itl, content chunks k >= 1
    std::vector<float> queue_us;    // t_read - t_rx, every generation request
    std::vector<float> send_us;     // duration of the send() call of each content chunk
    // --chunk-log: per stream, its number, then t_send(k) - t_send(0) in ns for k = 1 .. n-1.
    std::vector<std::int64_t> chunk_log;
};

struct request_result {
    bool ok = false;          // parsed a request
    bool closed = false;      // the peer closed or the connection failed
    std::int64_t t_read = 0;  // monotonic ns, right after the recv that completed the request
    std::int64_t t_rx = 0;    // kernel receive time (monotonic ns) of the last bytes; 0 = none
};

std::string json_escape(std::string_view s) { return nlohmann::json(std::string(s)).dump(); }

// Words for the tokens; each token is one word with a leading space.
constexpr std::string_view words[] = {" the", " old", " song", " in", " top", " ten", " list", " back",
                                      " then", " map", " ship", " time", " year", " plan", " load", " line"};

class connection_handler {
public:
    connection_handler(tcp::socket socket, const options& o, thread_stats& stats, std::mt19937_64& rng,
                       unsigned thread_index)
        : socket_(std::move(socket)), timer_(socket_.get_executor()), o_(o), stats_(stats), rng_(rng),
          thread_index_(thread_index) {}

    net::awaitable<void> run() {
        boost::system::error_code ec;
        socket_.set_option(tcp::no_delay(true), ec);
        socket_.non_blocking(true, ec);
        const int on = 1;
        setsockopt(socket_.native_handle(), SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on);
        for (;;) {
            http::request_parser<http::string_body> parser;
            parser.eager(true);
            parser.header_limit(16 * 1024);
            parser.body_limit(1 << 20);
            const auto got = co_await read_request(parser);
            if (!got.ok) break;
            const auto& req = parser.get();
            const bool keep = req.keep_alive();
            if (!co_await handle(req, got)) break;
            if (!keep) break;
        }
        socket_.shutdown(tcp::socket::shutdown_send, ec);
        socket_.close(ec);
    }

private:
    // Reads until the parser has a whole request. Bytes past it stay in buf_ for the next one.
    net::awaitable<request_result> read_request(http::request_parser<http::string_body>& parser) {
        request_result out;
        std::int64_t t_rx = 0;
        for (;;) {
            if (begin_ < buf_.size()) {
                boost::system::error_code ec;
                const auto used = parser.put(net::buffer(buf_.data() + begin_, buf_.size() - begin_), ec);
                begin_ += used;
                if (ec && ec != http::error::need_more) {
                    co_await send_all(error_response(400, "Malformed HTTP request: " + ec.message(), false));
                    out.closed = true;
                    co_return out;
                }
                if (parser.is_done()) {
                    out.ok = true;
                    out.t_read = mono_ns();
                    out.t_rx = t_rx;
                    if (begin_ == buf_.size()) buf_.clear(), begin_ = 0;
                    co_return out;
                }
                if (used > 0 && !ec) continue;
            }
            // Need more bytes: compact, then recvmsg (non-blocking) or wait for readability.
            if (begin_ > 0) {
                buf_.erase(0, begin_);
                begin_ = 0;
            }
            const std::size_t old = buf_.size();
            buf_.resize(old + 16384);
            iovec iov{buf_.data() + old, 16384};
            alignas(cmsghdr) char control[CMSG_SPACE(sizeof(timespec)) + 64];
            msghdr msg{};
            msg.msg_iov = &iov;
            msg.msg_iovlen = 1;
            msg.msg_control = control;
            msg.msg_controllen = sizeof control;
            const ssize_t n = ::recvmsg(socket_.native_handle(), &msg, 0);
            if (n > 0) {
                const std::int64_t m = mono_ns(), r = real_ns();
                buf_.resize(old + std::size_t(n));
                t_rx = 0;
                for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
                    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
                        timespec ts;
                        std::memcpy(&ts, CMSG_DATA(c), sizeof ts);
                        const std::int64_t rx_real = std::int64_t(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
                        t_rx = m - (r - rx_real);
                    }
                continue;
            }
            buf_.resize(old);
            if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
                out.closed = true;
                co_return out;
            }
            boost::system::error_code ec;
            co_await socket_.async_wait(tcp::socket::wait_read, net::redirect_error(net::use_awaitable, ec));
            if (ec) {
                out.closed = true;
                co_return out;
            }
        }
    }

    // One send(); what it could not take goes out with async_write. Returns false when the
    // connection failed. *blocked is set when async_write was needed.
    net::awaitable<bool> send_all(std::string_view data, bool* blocked = nullptr) {
        const ssize_t n = ::send(socket_.native_handle(), data.data(), data.size(), MSG_NOSIGNAL);
        if (n == ssize_t(data.size())) co_return true;
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) co_return false;
        const std::size_t done = n > 0 ? std::size_t(n) : 0;
        if (blocked) *blocked = true;
        boost::system::error_code ec;
        co_await net::async_write(socket_, net::buffer(data.data() + done, data.size() - done),
                                  net::redirect_error(net::use_awaitable, ec));
        co_return !ec;
    }

    static std::string response(int status, std::string_view reason, std::string_view type, std::string_view body,
                                bool keep) {
        std::string out = "HTTP/1.1 " + std::to_string(status) + " ";
        out.append(reason).append("\r\nServer: bench_sse_server\r\nContent-Type: ").append(type);
        out.append("\r\nContent-Length: ").append(std::to_string(body.size()));
        if (!keep) out.append("\r\nConnection: close");
        out.append("\r\n\r\n").append(body);
        return out;
    }
    static std::string error_response(int status, const std::string& message, bool keep) {
        const std::string body = R"({"object":"error","message":)" + json_escape(message) +
                                 R"(,"type":"BadRequestError","param":null,"code":)" + std::to_string(status) + "}";
        return response(status, status == 404 ? "Not Found" : "Bad Request", "application/json", body, keep);
    }

    // Returns whether the connection may serve another request.
    net::awaitable<bool> handle(const http::request<http::string_body>& req, const request_result& got) {
        ++stats_.requests;
        const bool keep = req.keep_alive();
        const std::string_view target(req.target().data(), req.target().size());
        const auto path = target.substr(0, target.find('?'));
        if (req.method() == http::verb::get && path == "/v1/models") {
            const std::string body = R"({"object":"list","data":[{"id":)" + json_escape(o_.model) +
                                     R"(,"object":"model","created":)" + std::to_string(std::time(nullptr)) +
                                     R"(,"owned_by":"bench","root":)" + json_escape(o_.model) +
                                     R"(,"parent":null,"max_model_len":)" + std::to_string(o_.max_model_len) +
                                     R"(,"permission":[]}]})";
            co_return co_await send_all(response(200, "OK", "application/json", body, keep)) && keep;
        }
        if (req.method() == http::verb::get && path == "/health")
            co_return co_await send_all(response(200, "OK", "text/plain", "", keep)) && keep;
        if (req.method() == http::verb::post && path == "/tokenize") {
            const std::string body = R"({"count":)" + std::to_string(req.body().size() / 4 + 1) +
                                     R"(,"max_model_len":)" + std::to_string(o_.max_model_len) + "}";
            co_return co_await send_all(response(200, "OK", "application/json", body, keep)) && keep;
        }
        if (req.method() == http::verb::post && (path == "/v1/chat/completions" || path == "/v1/completions"))
            co_return co_await generate(req, got, path == "/v1/chat/completions");
        co_return co_await send_all(error_response(404, "No route for " + std::string(path), keep)) && keep;
    }

    net::awaitable<bool> generate(const http::request<http::string_body>& req, const request_result& got, bool chat) {
        const bool keep = req.keep_alive();
        const auto j = nlohmann::json::parse(req.body(), nullptr, false);
        if (!j.is_object()) co_return co_await send_all(error_response(400, "the body is not a JSON object", keep)) && keep;
        int max_tokens = 16;
        if (auto it = j.find("max_tokens"); it != j.end() && it->is_number_integer()) max_tokens = it->get<int>();
        if (max_tokens < 1) co_return co_await send_all(error_response(400, "max_tokens must be at least 1", keep)) && keep;
        const bool stream = j.value("stream", false);
        bool include_usage = false;
        if (auto it = j.find("stream_options"); it != j.end() && it->is_object())
            include_usage = it->value("include_usage", false);
        int prompt_tokens = int(req.body().size() / 4) + 1;

        ++stats_.streams;
        // The stream's number, unique in this server's run: with --chunk-log it stands in usage.prompt_tokens,
        // which clients log, so that a client's log can be joined with the server's send times.
        const std::int64_t number = std::int64_t(stats_.streams - 1) * o_.threads + thread_index_;
        if (!o_.chunk_log.empty()) prompt_tokens = int(number);
        sends_.clear();
        if (stats_.first_generation_ns == 0 || got.t_read < stats_.first_generation_ns)
            stats_.first_generation_ns = got.t_read;
        if (got.t_rx == 0) ++stats_.no_rx_timestamp;
        const std::int64_t t_read = got.t_read;
        const std::int64_t queue_ns = got.t_rx ? std::max<std::int64_t>(0, t_read - got.t_rx) : 0;
        stats_.queue_us.push_back(float(queue_ns / 1e3));
        double jitter_ms = 0;
        if (o_.ttft_jitter_ms > 0) jitter_ms = std::uniform_real_distribution<double>(0, o_.ttft_jitter_ms)(rng_);
        std::int64_t first_due = t_read + std::int64_t((o_.ttft_ms + jitter_ms) * 1e6);
        const std::int64_t itl_ns = std::int64_t(o_.itl_ms * 1e6);
        if (o_.step_grid && itl_ns > 0) first_due = (first_due + itl_ns - 1) / itl_ns * itl_ns; // the next step

        const std::uint64_t id = rng_();
        char id_text[40];
        std::snprintf(id_text, sizeof id_text, "%s%016llx", chat ? "chatcmpl-" : "cmpl-", (unsigned long long)id);
        std::string head = R"({"id":")";
        head.append(id_text).append(R"(","object":")").append(chat ? "chat.completion.chunk" : "text_completion");
        head.append(R"(","created":)").append(std::to_string(std::time(nullptr)));
        head.append(R"(,"model":)").append(json_escape(o_.model));

        if (!stream) {
            // The whole body when the last token would have gone out.
            const std::int64_t due = first_due + std::int64_t(max_tokens - 1) * itl_ns;
            co_await wait_until(due);
            std::string text;
            for (int k = 0; k < max_tokens; ++k) text.append(words[k % std::size(words)]);
            const double prefill = double(due - (max_tokens - 1) * itl_ns - t_read) / 1e9; // nominal
            std::string body = R"({"id":")";
            body.append(id_text).append(R"(","object":")").append(chat ? "chat.completion" : "text_completion");
            body.append(R"(","created":)").append(std::to_string(std::time(nullptr)));
            body.append(R"(,"model":)").append(json_escape(o_.model)).append(R"(,"choices":[{"index":0,)");
            if (chat) body.append(R"("message":{"role":"assistant","content":)").append(json_escape(text)).append("}");
            else body.append(R"("text":)").append(json_escape(text));
            body.append(R"(,"logprobs":null,"finish_reason":"length","stop_reason":null}],"usage":)");
            body.append(usage_json(prompt_tokens, max_tokens));
            body.append(R"(,"metrics":)")
                .append(metrics_json(double(queue_ns) / 1e9, prefill, double(max_tokens - 1) * itl_ns / 1e9, max_tokens))
                .append("}");
            co_return co_await send_all(response(200, "OK", "application/json", body, keep)) && keep;
        }

        std::string out = "HTTP/1.1 200 OK\r\nServer: bench_sse_server\r\n"
                          "Content-Type: text/event-stream; charset=utf-8\r\nCache-Control: no-cache\r\n"
                          "Transfer-Encoding: chunked\r\n";
        if (!keep) out.append("Connection: close\r\n");
        out.append("\r\n");
        if (chat)
            append_event(out, head + R"(,"choices":[{"index":0,"delta":{"role":"assistant","content":""},)"
                                     R"("logprobs":null,"finish_reason":null}]})");
        if (!co_await send_all(out)) co_return false;

        std::int64_t t_first_send = 0, t_last_send = 0, prev_send = 0;
        for (int k = 0; k < max_tokens; ++k) {
            const std::int64_t due = first_due + std::int64_t(k) * itl_ns;
            if (mono_ns() < due) co_await wait_until(due);
            const bool last = k + 1 == max_tokens;
            std::string data = head;
            data.append(R"(,"choices":[{"index":0,)");
            if (chat) data.append(R"("delta":{"content":")").append(words[k % std::size(words)]).append(R"("})");
            else data.append(R"("text":")").append(words[k % std::size(words)]).append("\"");
            data.append(R"(,"logprobs":null,"finish_reason":)").append(last ? R"("length")" : "null");
            data.append(R"(,"stop_reason":null}]})");
            out.clear();
            append_event(out, data);
            bool blocked = false;
            const std::int64_t before = mono_ns();
            if (!co_await send_all(out, &blocked)) co_return false;
            const std::int64_t sent = mono_ns();
            if (blocked) ++stats_.blocked_writes;
            ++stats_.chunks;
            stats_.lateness_us.push_back(float((sent - due) / 1e3));
            stats_.send_us.push_back(float((sent - before) / 1e3));
            if (k == 0) t_first_send = sent;
            else stats_.gap_dev_us.push_back(float((sent - prev_send - itl_ns) / 1e3));
            prev_send = t_last_send = sent;
            if (!o_.chunk_log.empty()) sends_.push_back(sent);
        }
        if (!o_.chunk_log.empty()) {
            stats_.chunk_log.push_back(-1 - number); // a negative entry starts a stream: -1 - its number
            for (std::size_t k = 1; k < sends_.size(); ++k) stats_.chunk_log.push_back(sends_[k] - sends_[0]);
        }
        // The usage chunk with the server's timings, [DONE], and the end of the chunked body.
        std::string data = head;
        data.append(R"(,"choices":[])");
        if (include_usage) data.append(R"(,"usage":)").append(usage_json(prompt_tokens, max_tokens));
        data.append(R"(,"metrics":)")
            .append(metrics_json(double(queue_ns) / 1e9, double(t_first_send - t_read) / 1e9,
                                 double(t_last_send - t_first_send) / 1e9, max_tokens))
            .append("}");
        out.clear();
        append_event(out, data);
        append_chunk(out, "data: [DONE]\n\n");
        out.append("0\r\n\r\n");
        if (!co_await send_all(out)) co_return false;
        stats_.last_response_ns = std::max(stats_.last_response_ns, mono_ns());
        co_return keep;
    }

    net::awaitable<void> wait_until(std::int64_t due_ns) {
        timer_.expires_at(as_time_point(due_ns));
        boost::system::error_code ec;
        co_await timer_.async_wait(net::redirect_error(net::use_awaitable, ec));
    }

    static void append_chunk(std::string& out, std::string_view payload) {
        char size[20];
        std::snprintf(size, sizeof size, "%zx\r\n", payload.size());
        out.append(size).append(payload).append("\r\n");
    }
    static void append_event(std::string& out, std::string_view json) {
        std::string event = "data: ";
        event.append(json).append("\n\n");
        append_chunk(out, event);
    }
    static std::string usage_json(int prompt, int completion) {
        return R"({"prompt_tokens":)" + std::to_string(prompt) + R"(,"total_tokens":)" +
               std::to_string(prompt + completion) + R"(,"completion_tokens":)" + std::to_string(completion) + "}";
    }
    // vLLM's per-request metrics of `tokens` output tokens from the three phases in seconds, written in
    // ms to the nanosecond; mean_itl_ms is null for one token, tokens_per_second null for no time.
    static std::string metrics_json(double queue, double prefill, double decode, int tokens) {
        char itl[40] = "null", rate[40] = "null";
        if (tokens > 1) std::snprintf(itl, sizeof itl, "%.6f", decode * 1e3 / (tokens - 1));
        if (prefill + decode > 0) std::snprintf(rate, sizeof rate, "%.3f", tokens / (prefill + decode));
        char s[256];
        std::snprintf(s, sizeof s,
                      R"({"time_to_first_token_ms":%.6f,"generation_time_ms":%.6f,"queue_time_ms":%.6f,)"
                      R"("mean_itl_ms":%s,"tokens_per_second":%s})",
                      prefill * 1e3, decode * 1e3, queue * 1e3, itl, rate);
        return s;
    }

    tcp::socket socket_;
    net::steady_timer timer_;
    const options& o_;
    thread_stats& stats_;
    std::mt19937_64& rng_;
    std::string buf_;
    std::size_t begin_ = 0;
    unsigned thread_index_ = 0;
    std::vector<std::int64_t> sends_; // this stream's content chunks' send() returns
};

net::awaitable<void> accept_loop(tcp::acceptor& acceptor, const options& o, thread_stats& stats, std::mt19937_64& rng,
                                 unsigned thread_index) {
    for (;;) {
        boost::system::error_code ec;
        tcp::socket socket = co_await acceptor.async_accept(net::redirect_error(net::use_awaitable, ec));
        if (ec == net::error::operation_aborted || !acceptor.is_open()) co_return;
        if (ec) continue;
        auto handler = std::make_shared<connection_handler>(std::move(socket), o, stats, rng, thread_index);
        net::co_spawn(acceptor.get_executor(), [handler]() { return handler->run(); }, net::detached);
    }
}

void open_acceptor(tcp::acceptor& a, const tcp::endpoint& where) {
    a.open(where.protocol());
    a.set_option(net::socket_base::reuse_address(true));
    const int on = 1;
    if (setsockopt(a.native_handle(), SOL_SOCKET, SO_REUSEPORT, &on, sizeof on) != 0)
        throw std::runtime_error(std::string("SO_REUSEPORT: ") + std::strerror(errno));
    // Accepted sockets inherit the flag, so even bytes that arrive before accept() are stamped.
    if (setsockopt(a.native_handle(), SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on) != 0)
        throw std::runtime_error(std::string("SO_TIMESTAMPNS: ") + std::strerror(errno));
    a.bind(where);
    a.listen(net::socket_base::max_listen_connections);
}

struct summary_of {
    double p1, p50, p90, p99, p999, max, mean;
};
summary_of summarize(std::vector<float>& v) {
    if (v.empty()) return {0, 0, 0, 0, 0, 0, 0};
    std::sort(v.begin(), v.end());
    auto at = [&](double q) { return double(v[std::min(v.size() - 1, std::size_t(q * double(v.size() - 1) + 0.5))]); };
    double sum = 0;
    for (float x : v) sum += x;
    return {at(0.01), at(0.5), at(0.9), at(0.99), at(0.999), double(v.back()), sum / double(v.size())};
}
nlohmann::json to_json(const summary_of& s) {
    return {{"p1", s.p1}, {"p50", s.p50}, {"p90", s.p90}, {"p99", s.p99}, {"p99.9", s.p999}, {"max", s.max}, {"mean", s.mean}};
}

[[noreturn]] void usage(const char* why) {
    std::fprintf(stderr,
                 "bench_sse_server: %s\nusage: bench_sse_server [--host H] [--port P] [--threads N] [--ttft-ms X] "
                 "[--ttft-jitter-ms J] [--itl-ms Y] [--max-model-len L] [--model NAME] [--seed S] [--stats FILE] "
                 "[--chunk-log FILE] [--step-grid 0|1]\n",
                 why);
    std::exit(2);
}

options parse_args(int argc, char** argv) {
    options o;
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        if (a == "-h" || a == "--help") usage("help");
        if (i + 1 >= argc) usage("an option without its value");
        const std::string v = argv[++i];
        try {
            if (a == "--host") o.host = v;
            else if (a == "--port") o.port = static_cast<unsigned short>(std::stoul(v));
            else if (a == "--threads") o.threads = static_cast<unsigned>(std::stoul(v));
            else if (a == "--ttft-ms") o.ttft_ms = std::stod(v);
            else if (a == "--ttft-jitter-ms") o.ttft_jitter_ms = std::stod(v);
            else if (a == "--itl-ms") o.itl_ms = std::stod(v);
            else if (a == "--max-model-len") o.max_model_len = std::stoi(v);
            else if (a == "--model") o.model = v;
            else if (a == "--seed") o.seed = std::stoull(v);
            else if (a == "--stats") o.stats_path = v;
            else if (a == "--chunk-log") o.chunk_log = v;
            else if (a == "--step-grid") o.step_grid = v != "0";
            else usage("unknown option");
        } catch (const std::logic_error&) {
            usage("a value that is not a number");
        }
    }
    if (o.ttft_ms < 0 || o.ttft_jitter_ms < 0 || o.itl_ms < 0) usage("times must not be negative");
    if (o.threads == 0) o.threads = std::max(1u, std::thread::hardware_concurrency());
    return o;
}

} // namespace

int main(int argc, char** argv) {
    const options o = parse_args(argc, argv);
    // SIGTERM and SIGINT are taken by sigwait in main; every thread inherits the mask.
    sigset_t stop_signals;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGTERM);
    sigaddset(&stop_signals, SIGINT);
    pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
    std::signal(SIGPIPE, SIG_IGN);

    std::vector<std::unique_ptr<net::io_context>> contexts;
    std::vector<std::unique_ptr<tcp::acceptor>> acceptors;
    std::vector<thread_stats> stats(o.threads);
    std::vector<std::mt19937_64> rngs;
    unsigned short port = o.port;
    try {
        const auto address = net::ip::make_address(o.host);
        for (unsigned t = 0; t < o.threads; ++t) {
            contexts.push_back(std::make_unique<net::io_context>(1));
            acceptors.push_back(std::make_unique<tcp::acceptor>(*contexts.back()));
            open_acceptor(*acceptors.back(), tcp::endpoint(address, port));
            port = acceptors.back()->local_endpoint().port(); // port 0: the others join the one chosen
            rngs.emplace_back(o.seed * 1000003 + t);
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_sse_server: cannot listen on %s:%u: %s\n", o.host.c_str(), o.port, e.what());
        return 3;
    }
    for (unsigned t = 0; t < o.threads; ++t) {
        stats[t].lateness_us.reserve(1 << 20);
        stats[t].send_us.reserve(1 << 20);
        stats[t].gap_dev_us.reserve(1 << 20);
        net::co_spawn(*contexts[t], accept_loop(*acceptors[t], o, stats[t], rngs[t], t), net::detached);
    }
    std::vector<std::thread> threads;
    for (unsigned t = 0; t < o.threads; ++t)
        threads.emplace_back([&, t] {
            prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0); // timers fire at their deadline, not up to 50 us later
            auto guard = net::make_work_guard(*contexts[t]);
            contexts[t]->run();
        });
    std::printf("listening on http://%s:%u\n", o.host.c_str(), port);
    std::fflush(stdout);

    int sig = 0;
    sigwait(&stop_signals, &sig);
    for (auto& c : contexts) c->stop();
    for (auto& th : threads) th.join();

    thread_stats all;
    for (auto& s : stats) {
        all.requests += s.requests;
        all.streams += s.streams;
        all.chunks += s.chunks;
        all.blocked_writes += s.blocked_writes;
        all.no_rx_timestamp += s.no_rx_timestamp;
        if (s.first_generation_ns && (!all.first_generation_ns || s.first_generation_ns < all.first_generation_ns))
            all.first_generation_ns = s.first_generation_ns;
        all.last_response_ns = std::max(all.last_response_ns, s.last_response_ns);
        all.lateness_us.insert(all.lateness_us.end(), s.lateness_us.begin(), s.lateness_us.end());
        all.gap_dev_us.insert(all.gap_dev_us.end(), s.gap_dev_us.begin(), s.gap_dev_us.end());
        all.queue_us.insert(all.queue_us.end(), s.queue_us.begin(), s.queue_us.end());
        all.send_us.insert(all.send_us.end(), s.send_us.begin(), s.send_us.end());
    }
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    bool first_in_list = true;
    const nlohmann::json summary = {
        {"threads", o.threads},
        {"itl_ms", o.itl_ms},
        {"ttft_ms", o.ttft_ms},
        {"ttft_jitter_ms", o.ttft_jitter_ms},
        {"requests", all.requests},
        {"streams", all.streams},
        {"content_chunks", all.chunks},
        {"blocked_writes", all.blocked_writes},
        {"no_rx_timestamp", all.no_rx_timestamp},
        {"first_generation_mono_s", all.first_generation_ns / 1e9},
        {"last_response_mono_s", all.last_response_ns / 1e9},
        {"cpu_user_s", double(ru.ru_utime.tv_sec) + ru.ru_utime.tv_usec / 1e6},
        {"cpu_sys_s", double(ru.ru_stime.tv_sec) + ru.ru_stime.tv_usec / 1e6},
        {"lateness_us", to_json(summarize(all.lateness_us))},
        {"gap_deviation_us", to_json(summarize(all.gap_dev_us))},
        {"queue_us", to_json(summarize(all.queue_us))},
        {"send_call_us", to_json(summarize(all.send_us))},
    };
    if (!o.chunk_log.empty()) {
        // JSONL: {"n": stream number, "d": [t_send(k) - t_send(0) in ns, k = 1 ..]} per stream.
        FILE* f = std::fopen(o.chunk_log.c_str(), "w");
        if (!f) {
            std::fprintf(stderr, "bench_sse_server: cannot write %s\n", o.chunk_log.c_str());
            std::_Exit(1);
        }
        for (const auto& s : stats) {
            bool open = false;
            for (const std::int64_t x : s.chunk_log) {
                if (x < 0) {
                    std::fprintf(f, "%s{\"n\":%lld,\"d\":[", open ? "]}\n" : "", (long long)(-1 - x));
                    open = true;
                    first_in_list = true;
                } else {
                    std::fprintf(f, first_in_list ? "%lld" : ",%lld", (long long)x);
                    first_in_list = false;
                }
            }
            if (open) std::fputs("]}\n", f);
        }
        std::fclose(f);
    }
    const std::string text = summary.dump() + "\n";
    if (o.stats_path.empty()) {
        std::fputs(text.c_str(), stderr);
    } else if (FILE* f = std::fopen(o.stats_path.c_str(), "w")) {
        std::fputs(text.c_str(), f);
        std::fclose(f);
    } else {
        std::fprintf(stderr, "bench_sse_server: cannot write %s\n", o.stats_path.c_str());
        std::_Exit(1);
    }
    // Without tearing down the contexts: the connections' coroutines are still suspended in them.
    std::_Exit(0);
}
