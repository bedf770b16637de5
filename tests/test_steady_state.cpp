// Steady-state detection: MSER-5's truncation point, the window of a closed loop with its ramp-up
// and drain, a run with neither, runs that have no window, the cut --steady-state makes, and the
// JSON field. Reference values come from tests/tools/steady_state_reference.py (numpy, MSER by its
// definition and requests in flight by brute force) or by hand, as each case says.
#include <catch2/catch.hpp> // Catch2 v2

#include <algorithm> // std::min, std::max, std::shuffle, std::sort, std::stable_sort
#include <cstddef> // std::size_t
#include <cstdint> // std::uint32_t
#include <random>  // std::mt19937_64, std::uniform_int_distribution
#include <string>  // std::string
#include <vector>  // std::vector

#include "servestat/report/stats_json.hpp"  // to_json
#include "servestat/report/view_model.hpp"  // detail::steady_state_text
#include "servestat/stats/run_stats.hpp"    // analyze
#include "servestat/stats/steady_state.hpp" // detect_steady_state, mser_truncation, cut_to_steady_state

namespace test_steady_state { // the unity build compiles several test files as one: each keeps its names

using namespace servestat;

namespace {

// The closed loop of steady_state_reference.py: `concurrency` clients, the first wave sent 1 ms
// apart, then each request sent the moment a slot frees (the lowest slot among equal times),
// lasting 1.0 + 0.1 * ((7 i) mod 5) s. Same operations in the same order, so the same doubles.
run closed_loop(std::size_t concurrency, std::size_t n) {
    run r;
    r.meta.label = "closed-loop";
    std::vector<double> free(concurrency);
    for (std::size_t j = 0; j < concurrency; ++j) free[j] = static_cast<double>(j) * 0.001;
    for (std::size_t i = 0; i < n; ++i) {
        std::size_t slot = 0;
        for (std::size_t j = 1; j < concurrency; ++j)
            if (free[j] < free[slot]) slot = j;
        request_record q;
        q.t_sched = free[slot];
        q.t_sent = free[slot];
        q.t_first = free[slot] + 0.1;
        q.t_end = free[slot] + (1.0 + 0.1 * static_cast<double>((i * 7) % 5));
        q.prompt_tokens = 10;
        q.output_tokens = 20;
        q.status = request_status::ok;
        free[slot] = *q.t_end;
        r.requests.push_back(q);
    }
    return r;
}

// `n` successful requests sent at a random tick of `step` seconds in [0, ticks] and lasting a random
// number of ticks in [shortest, longest]: many equal sends and ends.
std::vector<request_record> coarse_requests(std::mt19937_64& rng, int n, double step, int ticks, int shortest, int longest) {
    std::uniform_int_distribution<int> tick(0, ticks), length(shortest, longest);
    std::vector<request_record> requests;
    for (int i = 0; i < n; ++i) {
        request_record q;
        q.t_sent = step * tick(rng);
        q.t_end = *q.t_sent + step * length(rng);
        q.status = request_status::ok;
        requests.push_back(q);
    }
    return requests;
}

} // namespace

TEST_CASE("count_in_flight counts as its definition does, with ties and zero-length requests") {
    // Times on a coarse grid (many equal sends and ends), some requests of zero duration, rows out
    // of order and then in completion order; the reference counts by brute force, request by
    // request, from the definition.
    std::mt19937_64 rng(7);
    std::uniform_int_distribution<int> tick(0, 40), length(0, 6);
    std::vector<request_record> requests;
    for (int i = 0; i < 500; ++i) {
        request_record q;
        q.t_sent = 0.25 * tick(rng);
        q.t_end = *q.t_sent + 0.25 * (length(rng) == 0 ? 0 : length(rng));
        q.status = request_status::ok;
        requests.push_back(q);
    }
    for (const bool completion_order : {false, true}) {
        if (completion_order)
            std::stable_sort(requests.begin(), requests.end(), [](const auto& a, const auto& b) { return *a.t_end < *b.t_end; });
        run r;
        for (const auto& q : requests) r.requests.push_back(q);
        const request_table& t = r.requests;
        const auto rows = detail::timed_rows_in_send_order(t);
        REQUIRE(rows.size() == t.size());
        for (std::size_t k = 1; k < rows.size(); ++k) { // send order, log order among equal sends
            CHECK(t.t_sent()[rows[k - 1]] <= t.t_sent()[rows[k]]);
            if (t.t_sent()[rows[k - 1]] == t.t_sent()[rows[k]]) CHECK(rows[k - 1] < rows[k]);
        }
        const auto in_flight_at = [&](double time) { // t_sent <= time < t_end
            double count = 0;
            for (std::size_t i = 0; i < t.size(); ++i) count += t.t_sent()[i] <= time && time < t.t_end()[i];
            return count;
        };
        const auto order = detail::order_in_flight(t);
        CHECK(order.ends_are_rows == completion_order);
        const auto counts = detail::count_in_flight(t, order);
        CHECK_FALSE(counts.peak); // instants are counted by peak_in_flight's own rule
        for (std::size_t k = 0; k < rows.size(); ++k) {
            const double sent = t.t_sent()[rows[k]], end = t.t_end()[rows[k]];
            const double at_send = in_flight_at(sent) + (end == sent ? 1 : 0); // itself, though it ends at once
            const double at_end = in_flight_at(end) + 1;                       // itself, ending then
            INFO("row " << rows[k] << " sent " << sent << " ended " << end);
            CHECK(counts.series[k] == std::min(at_send, at_end));
        }
    }
}

TEST_CASE("peak concurrency is the most requests in flight at any send, rows in any order") {
    // Coarse times (many equal sends and ends, an end at another's send), no request of zero duration:
    // the peak then comes from the window search's walk; the reference counts by brute force at each
    // send. Once with rows in completion order (ends read straight from the table), once shuffled.
    std::mt19937_64 rng(5);
    auto requests = coarse_requests(rng, 400, 0.5, 60, 1, 8);
    std::size_t expected = 0;
    for (const auto& at : requests) {
        std::size_t in_flight = 0;
        for (const auto& q : requests) in_flight += *q.t_sent <= *at.t_sent && *at.t_sent < *q.t_end;
        expected = std::max(expected, in_flight);
    }
    std::stable_sort(requests.begin(), requests.end(), [](const auto& a, const auto& b) { return *a.t_end < *b.t_end; });
    for (const bool completion_order : {true, false}) {
        if (!completion_order) std::shuffle(requests.begin(), requests.end(), rng);
        run r;
        for (const auto& q : requests) r.requests.push_back(q);
        const auto order = detail::order_in_flight(r.requests);
        CHECK(order.ends_are_rows == completion_order);
        const auto counts = detail::count_in_flight(r.requests, order);
        REQUIRE(counts.peak);
        CHECK(*counts.peak == expected);
        CHECK(detail::peak_in_flight(r.requests, order) == expected);
        CHECK(analyze(r).peak_concurrency == expected);
    }
}

TEST_CASE("the end order of a log in completion order is the row order, ties in send order") {
    // Coarse times (many equal sends and ends), rows in end order as the driver writes them: the end
    // order is then found without a sort, and must be what sorting (end time, send position) gives.
    std::mt19937_64 rng(11);
    auto requests = coarse_requests(rng, 500, 0.25, 40, 0, 6);
    std::stable_sort(requests.begin(), requests.end(), [](const auto& a, const auto& b) { return *a.t_end < *b.t_end; });
    request_table t;
    for (const auto& q : requests) t.push_back(q);
    REQUIRE(detail::ends_in_row_order(t, t.size()));
    const auto order = detail::order_in_flight(t);
    std::vector<std::uint32_t> expected(order.rows.size());
    for (std::uint32_t k = 0; k < expected.size(); ++k) expected[k] = k;
    std::sort(expected.begin(), expected.end(), [&](std::uint32_t a, std::uint32_t b) {
        const double ea = t.t_end()[order.rows[a]], eb = t.t_end()[order.rows[b]];
        return ea < eb || (ea == eb && a < b);
    });
    CHECK(order.ends == expected);
}

TEST_CASE("mser_truncation drops the batches whose removal minimises the marginal standard error") {
    // Batch means of 5 by hand: 7.6, 5.0, 2.8, 2.8, 2.7, 2.8 (the trailing 99s fill no batch and are
    // left out). MSER(d) = sum of squared deviations of the means from d on / (6 - d)^2:
    // d=0 0.554306, d=1 0.15872, d=2 0.000469 (0.0075 / 16), d=3 0.000741 (0.006667 / 9); numpy agrees.
    const std::vector<double> series{9.0, 7.5, 8.0, 6.5, 7.0, 5.0, 6.0, 4.5, 5.5, 4.0, 3.0, 2.5, 3.5, 2.0, 3.0, 2.5,
                                     3.0, 2.0, 3.5, 3.0, 2.0, 3.0, 2.5, 3.5, 2.5, 3.0, 2.0, 2.5, 3.5, 3.0, 99.0, 99.0};
    CHECK(mser_truncation(series) == 10);
}

TEST_CASE("mser_truncation searches the first half of the batches only") {
    // On a straight line the fewest batches left always look steadiest; the search stops at k/2 = 5
    // batches of the 10 (numpy: 25).
    std::vector<double> line;
    for (int i = 1; i <= 50; ++i) line.push_back(i);
    CHECK(mser_truncation(line) == 25);
}

TEST_CASE("mser_truncation of a flat series or of fewer than two batches drops nothing") {
    CHECK(mser_truncation(std::vector<double>(40, 3.0)) == 0);
    CHECK(mser_truncation(std::vector<double>{9, 1, 9, 1, 9, 1, 9}) == 0);
}

TEST_CASE("a closed loop's window leaves out its first wave and its drain") {
    // 8 clients, 160 requests: the requests in flight climb 1..8 over the first wave and fall 8..1
    // as the last ones end. steady_state_reference.py: window 1.103 .. 21.804 s, 10 ramp-up and
    // 10 drain requests, 140 inside.
    const auto d = detect_steady_state(closed_loop(8, 160));
    REQUIRE(d.window.has_value());
    CHECK(d.window->start == Approx(1.103));
    CHECK(d.window->end == Approx(21.804));
    CHECK(d.window->excluded_start == 10);
    CHECK(d.window->excluded_end == 10);
    CHECK(d.window->requests == 140);
    CHECK(d.window->method == "MSER-5 on requests in flight");
    CHECK_FALSE(d.window->applied);
}

TEST_CASE("a run at one request in flight throughout keeps every request") {
    // One client: always exactly one request in flight, so no batch differs from another.
    // steady_state_reference.py: window 0.0 .. 142.7 s, nothing excluded, 120 inside.
    const auto d = detect_steady_state(closed_loop(1, 120));
    REQUIRE(d.window.has_value());
    CHECK(d.window->start == 0.0);
    CHECK(d.window->end == Approx(142.7));
    CHECK(d.window->excluded_start == 0);
    CHECK(d.window->excluded_end == 0);
    CHECK(d.window->requests == 120);
    CHECK(describe(*d.window) == "0 s – 142.70 s (MSER-5 on requests in flight): no ramp-up or drain found");
}

TEST_CASE("describe keeps three significant digits under a second, where a first wave ends") {
    steady_state w;
    w.start = 0.000486;
    w.end = 3.634149;
    w.excluded_start = 15;
    w.excluded_end = 20;
    CHECK(describe(w) == "0.000486 s – 3.63 s (MSER-5 on requests in flight): 15 ramp-up and 20 drain requests outside it");
    w.applied = true;
    w.untimed = 2;
    CHECK(describe(w) == "0.000486 s – 3.63 s (MSER-5 on requests in flight): 15 ramp-up and 20 drain requests "
                         "excluded, 2 requests without a send time excluded");
}

TEST_CASE("a run without a shared clock has no steady state") {
    run r = closed_loop(8, 160);
    r.meta.shared_clock = false;
    const auto d = detect_steady_state(r);
    CHECK_FALSE(d.window.has_value());
    CHECK(d.reason == "the log has no shared clock");
}

TEST_CASE("a run of too few requests has no steady state") {
    const auto d = detect_steady_state(closed_loop(8, 99));
    CHECK_FALSE(d.window.has_value());
    CHECK(d.reason == "99 requests with send and end times; MSER-5 needs at least 100");
}

TEST_CASE("cut_to_steady_state keeps the requests sent within the window and says so") {
    const run whole = closed_loop(8, 160);
    const auto d = detect_steady_state(whole);
    REQUIRE(d.window.has_value());
    const run cut = cut_to_steady_state(whole, *d.window);
    REQUIRE(cut.requests.size() == 140);
    for (double sent : cut.requests.t_sent()) {
        CHECK(sent >= 1.103 - 1e-12);
        CHECK(sent <= 21.804 + 1e-12);
    }
    REQUIRE(cut.meta.notes.size() == 1);
    CHECK(cut.meta.notes[0] == "steady state 1.10 s – 21.80 s (MSER-5 on requests in flight): 10 ramp-up and 10 "
                               "drain requests excluded; statistics cover the 140 requests sent within it "
                               "(--steady-state)");
}

TEST_CASE("analyze reports the window in the JSON export, and null without one") {
    const auto with = to_json(analyze(closed_loop(8, 160)));
    REQUIRE(with["steady_state"].is_object());
    CHECK(with["steady_state"]["start"].get<double>() == Approx(1.103));
    CHECK(with["steady_state"]["excluded_start"] == 10);
    CHECK(with["steady_state"]["excluded_end"] == 10);
    CHECK(with["steady_state"]["requests"] == 140);
    CHECK(with["steady_state"]["applied"] == false);
    CHECK(to_json(analyze(closed_loop(8, 50)))["steady_state"].is_null());
}

TEST_CASE("the report line says whether the statistics cover the window or the whole run") {
    auto d = detect_steady_state(closed_loop(8, 160));
    CHECK(report::detail::steady_state_text(d) ==
          "1.10 s – 21.80 s (MSER-5 on requests in flight): 10 ramp-up and 10 drain requests outside it; the "
          "statistics here cover the whole run (--steady-state restricts them to the window).");
    d.window->applied = true;
    CHECK(report::detail::steady_state_text(d) ==
          "1.10 s – 21.80 s (MSER-5 on requests in flight): 10 ramp-up and 10 drain requests excluded; the "
          "statistics here cover the 140 requests sent within it.");
    CHECK(report::detail::steady_state_text({std::nullopt, "the log has no shared clock"}) ==
          "none detected: the log has no shared clock.");
}

} // namespace test_steady_state
