// A cold start: the first requests of a run far slower than the rest, setting its tail. Each
// expected value is derived by hand in the comment above its test from the rule in
// stats/cold_start.hpp (the first 2% of the successful requests, at least 3; median above 3× the
// rest's; half of them above the rest's p99; the run's p99 above 1.2× the rest's).
#include "servestat/stats/cold_start.hpp"

#include <string> // std::string
#include <vector> // std::vector

#include "servestat/report/report_digest.hpp" // report_summary, summary_view
#include "servestat/stats/run_stats.hpp"      // analyze
#include "servestat/stats/run_validity.hpp"   // check_run_validity

#include <catch2/catch.hpp> // TEST_CASE, REQUIRE, CHECK

namespace test_cold_start {

using namespace servestat;

namespace {

// One request a second; request i has the TTFT `ttft(i)` and ends 1 s after its first token.
template <class Ttft>
run requests_with(std::size_t n, Ttft ttft) {
    run r;
    r.meta.label = "c8";
    for (std::size_t i = 0; i < n; ++i) {
        request_record q;
        q.t_sent = static_cast<double>(i);
        q.t_first = static_cast<double>(i) + ttft(i);
        q.t_end = *q.t_first + 1.0;
        q.prompt_tokens = 100;
        q.output_tokens = 20;
        r.requests.push_back(q);
    }
    return r;
}

} // namespace

// 100 requests: the head is max(3, ceil(0.02 × 100) = 2) = 3 requests at 5 s TTFT, the other 97 at
// 0.2 s. Head median 5 > 3 × 0.2; all 3 are above the rest's p99 (0.2); the run's p99 is numpy's
// linear p99 of 97 × 0.2 and 3 × 5: index 0.99 × 99 = 98.01, between the sorted values 98 and 99,
// both 5, so 5 > 1.2 × 0.2.
TEST_CASE("the first requests far slower than the rest, setting the tail, are a cold start") {
    const run r = requests_with(100, [](std::size_t i) { return i < 3 ? 5.0 : 0.2; });
    const auto c = detect_cold_start(r.requests);
    REQUIRE(c);
    CHECK(c->on == metric::ttft);
    CHECK(c->head == 3);
    CHECK(c->above_rest_p99 == 3);
    CHECK(c->head_median == Approx(5.0));
    CHECK(c->rest_median == Approx(0.2));
    CHECK(c->p99 == Approx(5.0));
    CHECK(c->rest_p99 == Approx(0.2));

    const run_stats s = analyze(r);
    const auto v = check_run_validity(s);
    REQUIRE(v.cold);
    const auto view = report::summary_view(report::report_summary(std::vector<run_stats>{s}, {}, {}, {}, 95));
    bool told = false;
    for (const auto& sentence : view)
        told = told || sentence["text"].get<std::string>().starts_with(
                           "Cold start in one run: c8 (its first 3 requests: TTFT 5.00 s at the median against 200 ms for the rest");
    CHECK(told);
}

TEST_CASE("slow requests later in the run, a slow start that does not set the tail, or too few requests are no cold start") {
    SECTION("the same 3 slow requests in the middle of the run") {
        CHECK_FALSE(detect_cold_start(requests_with(100, [](std::size_t i) { return i >= 50 && i < 53 ? 5.0 : 0.2; }).requests));
    }
    SECTION("a first wave twice as slow as the rest: median 0.4 s is not above 3 × 0.2 s") {
        CHECK_FALSE(detect_cold_start(requests_with(100, [](std::size_t i) { return i < 3 ? 0.4 : 0.2; }).requests));
    }
    SECTION("40 successful requests are too few to judge a p99") {
        CHECK_FALSE(detect_cold_start(requests_with(40, [](std::size_t i) { return i < 3 ? 5.0 : 0.2; }).requests));
    }
}

} // namespace test_cold_start
