// Tests for servestat/load/client.hpp against servers that misbehave: one request sent through the
// driver's connection to a loopback server that answers in raw bytes, so that it can flood, break
// HTTP or compress as a faulty or hostile server does. What each test states is what the request's
// log row says; none of them times anything (a timeout is a status, not a measured duration).
#include "servestat/load/client.hpp"

#include <cerrno>      // errno
#include <cstddef>     // std::size_t
#include <functional>  // std::function
#include <mutex>       // std::mutex, std::lock_guard
#include <string>      // std::string
#include <string_view> // std::string_view
#include <thread>      // std::thread

#include <arpa/inet.h>    // htonl
#include <fcntl.h>        // ::open
#include <netinet/in.h>   // sockaddr_in
#include <sys/resource.h> // ::getrlimit, ::setrlimit
#include <sys/socket.h>   // ::socket, ::bind, ::listen, ::accept, ::recv, ::send, ::shutdown
#include <unistd.h>       // ::close

#include <boost/asio/co_spawn.hpp>   // boost::asio::co_spawn
#include <boost/asio/detached.hpp>   // boost::asio::detached
#include <boost/asio/io_context.hpp> // boost::asio::io_context
#include <catch2/catch.hpp>          // TEST_CASE, SECTION, REQUIRE, CHECK

#include "servestat/load/failure_guard.hpp" // failure_guard

namespace test_load_connection_faults { // the unity build compiles several test files as one

namespace {

namespace net = boost::asio;
using servestat::request_status;
using servestat::load::connection;
using servestat::load::endpoint;
using servestat::load::http_options;
using servestat::load::prepared_request;
using servestat::load::request_result;

// Writes all of `bytes`; false once the client has gone (no SIGPIPE: MSG_NOSIGNAL).
bool send_all(int fd, std::string_view bytes) {
    while (!bytes.empty()) {
        const auto n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
}

// A server on 127.0.0.1 that reads each request's head and lets `answer` write whatever it likes.
// It runs on a thread of its own with blocking sockets: sharing the client's event loop, a flood
// would take turns with the reads it is meant to outrun.
class raw_server {
public:
    using answer_function = std::function<void(int fd)>;

    explicit raw_server(answer_function answer) : answer_(std::move(answer)) {
        listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        REQUIRE(listener_ >= 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t size = sizeof address;
        REQUIRE(::bind(listener_, reinterpret_cast<sockaddr*>(&address), size) == 0);
        REQUIRE(::listen(listener_, 16) == 0);
        REQUIRE(::getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &size) == 0);
        port_ = std::to_string(ntohs(address.sin_port));
        thread_ = std::thread([this] { serve(); });
    }
    ~raw_server() {
        ::shutdown(listener_, SHUT_RDWR); // wakes accept()
        thread_.join();
        ::close(listener_);
    }
    raw_server(const raw_server&) = delete;
    raw_server& operator=(const raw_server&) = delete;

    const std::string& port() const { return port_; }
    // The head of the last request (request line and headers), as it arrived.
    std::string request_head() const {
        std::lock_guard lock(mutex_);
        return head_;
    }

private:
    void serve() {
        for (;;) {
            const int fd = ::accept(listener_, nullptr, nullptr);
            if (fd < 0) return;
            if (read_head(fd)) answer_(fd);
            ::close(fd);
        }
    }

    bool read_head(int fd) {
        std::string head;
        char buffer[4096];
        while (head.find("\r\n\r\n") == std::string::npos) {
            const auto n = ::recv(fd, buffer, sizeof buffer, 0);
            if (n <= 0) return false;
            head.append(buffer, static_cast<std::size_t>(n));
        }
        std::lock_guard lock(mutex_);
        head_ = std::move(head);
        return true;
    }

    answer_function answer_;
    int listener_ = -1;
    std::string port_;
    std::thread thread_;
    mutable std::mutex mutex_;
    std::string head_;
};

constexpr std::string_view stream_head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                                         "Transfer-Encoding: chunked\r\n\r\n";
constexpr std::string_view content_event = R"(data: {"choices":[{"index":0,"delta":{"content":"x"}}]})"
                                           "\n\n";

// `body` as one HTTP chunk.
std::string chunk(std::string_view body) { return fmt::format("{:x}\r\n{}\r\n", body.size(), body); }

std::string repeated(std::string_view text, std::size_t times) {
    std::string out;
    out.reserve(text.size() * times);
    for (std::size_t i = 0; i < times; ++i) out.append(text);
    return out;
}

// One request sent to the server on `port` as the driver sends it, and what its log row holds.
request_result send_one(const std::string& port, const http_options& options, bool stream = true) {
    net::io_context io;
    const endpoint where{.host = "127.0.0.1", .port = port};
    const auto addresses = net::ip::tcp::resolver(io).resolve(where.host, where.port);
    connection conn(io.get_executor(), where, addresses, options);
    const prepared_request request{.target = "/v1/chat/completions",
                                   .body = R"({"model":"m","messages":[{"role":"user","content":"hi"}]})",
                                   .stream = stream};
    request_result out;
    net::co_spawn(io, conn.send(request, std::chrono::steady_clock::now(), out), net::detached);
    io.run();
    return out;
}

http_options with_timeout(double seconds) {
    http_options o;
    o.timeout = seconds;
    return o;
}

} // namespace

TEST_CASE("a server flooding chunks without pause is timed out all the same", "[load][client]") {
    // 2,000 events a write and never [DONE]: the socket never runs dry, so no read ever waits for the
    // timer to fire.
    raw_server server([](int fd) {
        const std::string flood = chunk(repeated(content_event, 2000));
        if (!send_all(fd, stream_head)) return;
        while (send_all(fd, flood)) {
        }
    });
    const auto r = send_one(server.port(), with_timeout(1));
    CHECK(r.status == request_status::timeout);
    CHECK(r.error == "no complete response within 1 s");
    CHECK(r.itl.empty()); // a failed request keeps no gaps
}

TEST_CASE("a stream with more gaps than the driver keeps logs the first of them and how many it had",
          "[load][client]") {
    raw_server server([](int fd) {
        // Written one event a chunk so that the gaps are many reads, not one.
        std::string answer(stream_head);
        for (int i = 0; i < 25; ++i) answer += chunk(content_event);
        answer += chunk("data: [DONE]\n\n") + "0\r\n\r\n";
        send_all(fd, answer);
    });
    auto options = with_timeout(30);
    options.max_itl_gaps = 10;
    const auto r = send_one(server.port(), options);
    REQUIRE(r.status == request_status::ok);
    CHECK(r.output_tokens == 25); // every content chunk counted (no usage chunk)
    CHECK(r.itl.size() == 10);
    CHECK(r.itl_dropped == 14);
    CHECK(servestat::load::log_line(r).find(R"(,"itl_gaps":24)") != std::string::npos);
}

TEST_CASE("a server that breaks HTTP answered: a malformed response, not a connection failure",
          "[load][client]") {
    raw_server::answer_function answer;
    std::string expected;
    SECTION("a bad chunk after a good one") {
        answer = [](int fd) { send_all(fd, std::string(stream_head) + chunk(content_event) + "zz\r\n"); };
        expected = "malformed response: invalid HTTP (bad chunk)";
    }
    SECTION("headers without end") {
        answer = [](int fd) {
            const std::string header = "X-Filler: " + std::string(1000, 'a') + "\r\n";
            if (!send_all(fd, "HTTP/1.1 200 OK\r\n")) return;
            while (send_all(fd, header)) {
            }
        };
        expected = "malformed response: invalid HTTP (header limit exceeded)";
    }
    raw_server server(answer);
    const auto r = send_one(server.port(), with_timeout(30));
    CHECK(r.status == request_status::error);
    CHECK(r.error == expected);
    // So the failure guard does not take a server that answers every request wrongly for one gone.
    servestat::load::failure_guard guard({.max_connection_failures = 1, .url = "http://127.0.0.1"});
    CHECK_FALSE(guard.observe(r));
}

TEST_CASE("a compressed stream is named as such; the driver asks for none", "[load][client]") {
    raw_server server([](int fd) {
        send_all(fd, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Encoding: gzip\r\n"
                     "Content-Length: 10\r\n\r\n\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03");
    });
    const auto r = send_one(server.port(), with_timeout(30));
    CHECK(r.status == request_status::error);
    CHECK(r.error == "malformed response: the server sent Content-Encoding: gzip, which the driver does not "
                     "decode (it asks for Accept-Encoding: identity)");
    CHECK(server.request_head().find("\r\nAccept-Encoding: identity\r\n") != std::string::npos);
}

TEST_CASE("a body over the cap is refused, whether its length is said or not", "[load][client]") {
    std::string answer;
    SECTION("Content-Length over the cap: refused before the body is read") {
        answer = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n" +
                 std::string(5000, ' ');
    }
    SECTION("chunked: refused once the pieces pass it") {
        answer = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n" +
                 repeated(chunk(std::string(600, ' ')), 3) + "0\r\n\r\n";
    }
    raw_server server([&answer](int fd) { send_all(fd, answer); });
    auto options = with_timeout(30);
    options.max_body_bytes = 1000;
    const auto r = send_one(server.port(), options, /*stream=*/false);
    CHECK(r.status == request_status::error);
    CHECK(r.error == "malformed response: body larger than 1000 bytes");
}

namespace {

// The process's file descriptors all taken, as far as its soft limit goes: the limit lowered to the
// lowest free descriptor, and restored on leaving.
class descriptors_exhausted {
public:
    descriptors_exhausted() {
        REQUIRE(::getrlimit(RLIMIT_NOFILE, &saved_) == 0);
        const int lowest_free = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
        REQUIRE(lowest_free >= 0);
        ::close(lowest_free);
        rlimit lowered = saved_;
        lowered.rlim_cur = static_cast<rlim_t>(lowest_free);
        REQUIRE(::setrlimit(RLIMIT_NOFILE, &lowered) == 0);
        limit_ = lowest_free;
    }
    ~descriptors_exhausted() { ::setrlimit(RLIMIT_NOFILE, &saved_); }
    descriptors_exhausted(const descriptors_exhausted&) = delete;
    descriptors_exhausted& operator=(const descriptors_exhausted&) = delete;

    int limit() const { return limit_; }

private:
    rlimit saved_{};
    int limit_ = 0;
};

} // namespace

TEST_CASE("the driver out of file descriptors says so, and the guard does not blame the server",
          "[load][client]") {
    raw_server server([](int) {});
    request_result r;
    int limit = 0;
    {
        net::io_context io;
        // The event loop makes its own descriptors (epoll, eventfd, timerfd) with its first socket:
        // made before the limit, as in a run, where the limit is met by the connections it opens.
        net::ip::tcp::socket(io).open(net::ip::tcp::v4());
        const endpoint where{.host = "127.0.0.1", .port = server.port()};
        const auto addresses = net::ip::tcp::resolver(io).resolve(where.host, where.port);
        const http_options options = with_timeout(30);
        connection conn(io.get_executor(), where, addresses, options);
        const prepared_request request{.target = "/v1/chat/completions", .body = "{}"};
        descriptors_exhausted exhausted;
        limit = exhausted.limit();
        net::co_spawn(io, conn.send(request, std::chrono::steady_clock::now(), r), net::detached);
        io.run();
    }
    CHECK(r.status == request_status::transport);
    CHECK(r.error == fmt::format("client: the driver ran out of file descriptors (Too many open files; ulimit -n {}): "
                                 "raise it, or lower the concurrency or rate",
                                 limit));
    CHECK(r.client_limit);
    servestat::load::failure_guard guard({.max_connection_failures = 1, .url = "http://127.0.0.1"});
    CHECK_FALSE(guard.observe(r));
    CHECK(guard.connection_failures_in_a_row() == 0);
}

} // namespace test_load_connection_faults
