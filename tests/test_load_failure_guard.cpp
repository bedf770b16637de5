// Tests for servestat/load/failure_guard.hpp: the run observer that stops a run whose server is gone
// (connection failures in a row) or failing (--max-error-rate over a window of the last requests),
// fed sequences of completed requests as the driver would, in the order they complete.
#include "servestat/load/failure_guard.hpp"

#include <cstddef>  // std::size_t
#include <optional> // std::optional
#include <string>   // std::string
#include <vector>   // std::vector

#include <catch2/catch.hpp>  // TEST_CASE, SECTION, REQUIRE, CHECK
#include <nlohmann/json.hpp> // nlohmann::ordered_json

namespace test_load_failure_guard { // the unity build compiles several test files as one

namespace {

using servestat::request_status;
using servestat::load::failure_guard;
using servestat::load::failure_guard_options;
using servestat::load::request_result;
using servestat::load::stop_request;

request_result ok() { return {}; }

request_result refused() {
    request_result r;
    r.status = request_status::transport;
    r.error = "transport: connect: Connection refused";
    return r;
}

request_result http_error(int status = 500, std::string message = "simulated failure") {
    request_result r;
    r.status = request_status::error;
    r.http_status = status;
    r.error = std::move(message);
    return r;
}

request_result cancelled() {
    request_result r;
    r.status = request_status::cancelled;
    r.error = "cancelled by the driver 0.500 s after sending (--cancel-rate)";
    return r;
}

// The driver's own limit met (out of file descriptors): not the server's doing.
request_result out_of_descriptors() {
    request_result r;
    r.status = request_status::transport;
    r.error = "client: the driver ran out of file descriptors (Too many open files; ulimit -n 128): raise it, or "
              "lower the concurrency or rate";
    r.client_limit = true;
    return r;
}

request_result timed_out() {
    request_result r;
    r.status = request_status::timeout;
    r.error = "no complete response within 600 s";
    return r;
}

// Feeds the results in order; the index of the first one that tripped the guard (and its stop), or
// none.
struct fed {
    std::optional<std::size_t> tripped_at;
    std::optional<stop_request> stop;
};

fed feed(failure_guard& g, const std::vector<request_result>& results) {
    fed out;
    for (std::size_t i = 0; i < results.size(); ++i)
        if (auto s = g.observe(results[i]); s && !out.stop) {
            out.tripped_at = i;
            out.stop = std::move(s);
        }
    return out;
}

std::vector<request_result> repeat(const request_result& r, std::size_t n) { return std::vector<request_result>(n, r); }

std::vector<request_result> operator+(std::vector<request_result> a, const std::vector<request_result>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

const std::string url = "http://127.0.0.1:8000";

} // namespace

TEST_CASE("the guard stops after N connection failures in a row, naming the count, the cause and the URL") {
    failure_guard g({.max_connection_failures = 10, .url = url});
    const auto f = feed(g, repeat(ok(), 5) + repeat(refused(), 12));
    REQUIRE(f.stop);
    CHECK(*f.tripped_at == 14); // the 10th failure, after 5 successes
    CHECK(f.stop->kind == "server_gone");
    CHECK(f.stop->reason ==
          "10 connection failures in a row (last: connect: Connection refused); the server at http://127.0.0.1:8000 "
          "looks gone");
    SECTION("it trips once; later requests only complete") {
        CHECK_FALSE(g.observe(refused()));
        CHECK(g.connection_failures_in_a_row() == 10);
    }
    SECTION("run.end gets what it counted") {
        nlohmann::ordered_json end = {{"reason", "server_gone"}};
        g.finished(end);
        CHECK(end["guard"] == nlohmann::ordered_json{{"consecutive_connection_failures", 10},
                                                     {"max_connection_failures", 10},
                                                     {"last_error", "connect: Connection refused"}});
    }
}

TEST_CASE("any answer from the server ends a run of connection failures; a cancellation leaves it as it was") {
    failure_guard g({.max_connection_failures = 3, .url = url});
    SECTION("a success resets the count") {
        CHECK_FALSE(feed(g, {refused(), refused(), ok(), refused(), refused(), ok(), refused(), refused()}).stop);
        CHECK(g.connection_failures_in_a_row() == 2);
    }
    SECTION("an HTTP error and a timeout do too: the server was there") {
        CHECK_FALSE(feed(g, {refused(), refused(), http_error(), refused(), refused(), timed_out(), refused()}).stop);
        CHECK(g.connection_failures_in_a_row() == 1);
    }
    SECTION("a cancelled request neither counts nor resets") {
        const auto f = feed(g, {refused(), cancelled(), refused(), cancelled(), refused()});
        REQUIRE(f.stop);
        CHECK(*f.tripped_at == 4);
        CHECK(f.stop->reason.starts_with("3 connection failures in a row"));
    }
    SECTION("the driver out of file descriptors neither counts nor resets: its own limit, not the server's") {
        CHECK_FALSE(feed(g, repeat(out_of_descriptors(), 10)).stop);
        const auto f = feed(g, {refused(), out_of_descriptors(), refused(), out_of_descriptors(), refused()});
        REQUIRE(f.stop);
        CHECK(*f.tripped_at == 4);
    }
}

TEST_CASE("0 connection failures turns the first trigger off") {
    failure_guard g({.max_connection_failures = 0, .url = url});
    CHECK_FALSE(feed(g, repeat(refused(), 1000)).stop);
    nlohmann::ordered_json end = nlohmann::ordered_json::object();
    g.finished(end);
    CHECK(end.empty()); // a guard that did not trip adds nothing
}

TEST_CASE("--max-error-rate is off unless given: a run of HTTP errors alone never stops") {
    failure_guard g({.url = url});
    CHECK_FALSE(feed(g, repeat(http_error(), 500)).stop);
}

TEST_CASE("the error rate is judged over the last W requests, only once W have completed") {
    failure_guard g({.max_connection_failures = 10, .max_error_rate = 0.5, .error_window = 10, .url = url});
    SECTION("nine errors of nine: the window is not full yet") {
        CHECK_FALSE(feed(g, repeat(http_error(), 9)).stop);
        CHECK(g.window_errors() == 9);
        SECTION("the tenth fills it: 10 of 10 > 50%") {
            const auto s = g.observe(http_error(503, "Service Unavailable"));
            REQUIRE(s);
            CHECK(s->kind == "error_rate");
            CHECK(s->reason ==
                  "10 of the last 10 requests failed (100% > --max-error-rate 0.5; last: HTTP 503: Service Unavailable)");
        }
    }
    SECTION("exactly the rate does not trip; one more error in the window does") {
        // 5 ok then 5 errors: 5 of 10 = 50%, not above it.
        auto f = feed(g, repeat(ok(), 5) + repeat(http_error(), 5));
        CHECK_FALSE(f.stop);
        // The next error pushes the first ok out: 6 of the last 10.
        const auto s = g.observe(http_error());
        REQUIRE(s);
        CHECK(s->reason.starts_with("6 of the last 10 requests failed (60% > --max-error-rate 0.5;"));
        nlohmann::ordered_json end;
        g.finished(end);
        CHECK(end["guard"] == nlohmann::ordered_json{{"errors", 6},
                                                     {"window", 10},
                                                     {"error_rate", 0.6},
                                                     {"max_error_rate", 0.5},
                                                     {"last_error", "HTTP 500: simulated failure"}});
    }
    SECTION("the window slides: old errors leave it") {
        // 5 errors, then successes: the errors slide out and never exceed 5 of 10.
        CHECK_FALSE(feed(g, repeat(http_error(), 5) + repeat(ok(), 30) + repeat(http_error(), 5)).stop);
        CHECK(g.window_errors() == 5);
    }
    SECTION("alternating errors and successes hold at half") {
        std::vector<request_result> mixed;
        for (int i = 0; i < 100; ++i) mixed.push_back(i % 2 ? ok() : http_error());
        CHECK_FALSE(feed(g, mixed).stop);
        CHECK(g.window_errors() == 5);
    }
}

TEST_CASE("cancelled requests stay out of the error window: the driver's --cancel-rate chose them") {
    failure_guard g({.max_error_rate = 0.2, .error_window = 5, .url = url});
    // Four successes and any number of cancellations: the window holds four, not full.
    CHECK_FALSE(feed(g, repeat(ok(), 2) + repeat(cancelled(), 20) + repeat(ok(), 2)).stop);
    CHECK(g.window_errors() == 0);
    // Two errors fill it: 2 of 5 = 40% > 20%.
    const auto f = feed(g, {cancelled(), http_error(), http_error()});
    REQUIRE(f.stop);
    CHECK(*f.tripped_at == 2);
    CHECK(f.stop->reason.starts_with("2 of the last 5 requests failed (40% > --max-error-rate 0.2;"));
}

TEST_CASE("every kind of failure is an error for the rate: transport, timeouts and HTTP errors") {
    failure_guard g({.max_connection_failures = 0, .max_error_rate = 0.5, .error_window = 4, .url = url});
    const auto f = feed(g, {ok(), refused(), timed_out(), http_error(429, "Too Many Requests")});
    REQUIRE(f.stop);
    CHECK(f.stop->reason == "3 of the last 4 requests failed (75% > --max-error-rate 0.5; last: HTTP 429: Too Many "
                            "Requests)");
}

TEST_CASE("a rate of a share that is not a whole percent keeps one decimal") {
    failure_guard g({.max_error_rate = 0.5, .error_window = 8, .url = url});
    const auto f = feed(g, repeat(ok(), 3) + repeat(http_error(), 5));
    REQUIRE(f.stop);
    CHECK(f.stop->reason.starts_with("5 of the last 8 requests failed (62.5% > --max-error-rate 0.5;"));
}

TEST_CASE("the connection trigger comes first when both would trip on the same request") {
    failure_guard g({.max_connection_failures = 4, .max_error_rate = 0.5, .error_window = 4, .url = url});
    const auto f = feed(g, repeat(refused(), 4));
    REQUIRE(f.stop);
    CHECK(f.stop->kind == "server_gone");
}

TEST_CASE("the progress line shows a run of failures and, with --max-error-rate, the window's errors") {
    failure_guard g({.max_connection_failures = 10, .max_error_rate = 0.9, .error_window = 3, .url = url});
    CHECK(g.progress().empty());
    g.observe(refused());
    CHECK(g.progress() == "1 connection failure in a row");
    g.observe(ok());
    g.observe(http_error());
    CHECK(g.progress() == "errors 2/3");
    g.observe(refused());
    CHECK(g.progress() == "1 connection failure in a row; errors 2/3");
}

TEST_CASE("a long error text is cut in the sentence") {
    failure_guard g({.max_connection_failures = 1, .url = url});
    auto r = refused();
    r.error = "transport: " + std::string(400, 'x');
    const auto s = g.observe(r);
    REQUIRE(s);
    CHECK(s->reason == "1 connection failure in a row (last: " + std::string(157, 'x') +
                           "...); the server at http://127.0.0.1:8000 looks gone");
}

} // namespace test_load_failure_guard
