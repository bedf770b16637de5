// Distribution-free percentile intervals from order statistics. Expected positions are the classic
// table values for the median (n = 20: X(6)–X(15); n = 100: X(40)–X(61), 1-based) and the binomial
// sums written out with Python's math.comb (p99 of 1000 values: X(983)–X(997)). Every other expected
// position comes from this exact integer form of the definition (Python 3, math.comb), run once:
//     def interval(n, a, c=95):  # percentile a%, confidence c%
//         total = 100**n; cdf = 0; lower = upper = None
//         for k in range(n):
//             cdf += comb(n, k) * a**k * (100 - a)**(n - k)            # P(B <= k) * 100**n
//             if cdf * 200 <= (100 - c) * total: lower = k + 1           # P(B <= l-1) <= alpha/2
//             if cdf * 200 >= (100 + c) * total: upper = k + 1; break    # P(B <= u-1) >= 1 - alpha/2
//         return None if lower is None or upper is None else (lower - 1, upper - 1)
// Summaries' intervals are then checked against values whose sorted order is known, and the mean's
// t-interval against numpy with t quantiles from a published table.
#include <algorithm> // std::reverse
#include <cmath>     // std::sqrt
#include <cstddef>   // std::size_t
#include <span>      // std::span
#include <vector>    // std::vector

#include <catch2/catch.hpp> // Catch2 v2

#include "servestat/stats/percentile_interval.hpp"
#include "servestat/stats/quantile_sketch.hpp"
#include "servestat/stats/run_accumulator.hpp"
#include "servestat/stats/summary.hpp"

namespace test_percentile_interval { // the unity build compiles several test files as one

using servestat::percentile_interval;

TEST_CASE("the 95% interval of a median of 20 values runs from the 6th to the 15th", "[percentile_interval]") {
    const auto i = percentile_interval(20, 50);
    REQUIRE(i);
    CHECK(i->lower == 5);
    CHECK(i->upper == 14);
}

TEST_CASE("the 95% interval of a median of 100 values runs from the 40th to the 61st", "[percentile_interval]") {
    const auto i = percentile_interval(100, 50);
    REQUIRE(i);
    CHECK(i->lower == 39);
    CHECK(i->upper == 60);
}

TEST_CASE("a p99 of 1000 values lies between the 983rd and the 997th", "[percentile_interval]") {
    const auto i = percentile_interval(1000, 99);
    REQUIRE(i);
    CHECK(i->lower == 982);
    CHECK(i->upper == 996);
}

TEST_CASE("too few values for either end give no interval", "[percentile_interval]") {
    CHECK_FALSE(percentile_interval(299, 99)); // 1 − 0.99^299 < 0.975: no upper end
    CHECK_FALSE(percentile_interval(30, 90));
    CHECK_FALSE(percentile_interval(5, 50));  // 0.5^5 > 0.025: no lower end
    CHECK_FALSE(percentile_interval(0, 50));
    CHECK_FALSE(percentile_interval(100, 0));
}

TEST_CASE("the ends of p50, p90 and p99 intervals equal the exact binomial references", "[percentile_interval]") {
    struct reference {
        std::size_t n;
        double p;
        std::size_t lower, upper;
    };
    // interval(n, a) above, e.g. interval(3000, 99) == (2958, 2980).
    for (const auto& r : {reference{3000, 50, 1445, 1554}, reference{3000, 90, 2666, 2732}, reference{3000, 99, 2958, 2980},
                          reference{2500, 99, 2464, 2484}, reference{368, 99, 359, 367}, reference{36, 90, 28, 35},
                          reference{1000, 90, 880, 918}, reference{50, 90, 40, 49}, reference{100, 90, 83, 95},
                          reference{6, 50, 0, 5}, reference{73, 95, 64, 72}, reference{10000, 99, 9879, 9919},
                          reference{10000, 50, 4901, 5098}}) {
        INFO("n = " << r.n << ", p" << r.p);
        const auto i = percentile_interval(r.n, r.p);
        REQUIRE(i);
        CHECK(i->lower == r.lower);
        CHECK(i->upper == r.upper);
    }
}

TEST_CASE("a percentile is unbounded just below the count that bounds it", "[percentile_interval]") {
    CHECK_FALSE(percentile_interval(367, 99)); // interval(367, 99) is None: 0.99**367 > 0.025
    CHECK_FALSE(percentile_interval(35, 90));  // 0.9**35 > 0.025
    CHECK_FALSE(percentile_interval(71, 95));
    CHECK_FALSE(percentile_interval(100, 99));
    CHECK_FALSE(percentile_interval(20, 90));
}

TEST_CASE("the confidence level moves the ends", "[percentile_interval]") {
    // interval(20, 50, 99) == (3, 16): X(4)–X(17), the classic 99% table entry for n = 20.
    const auto i99 = percentile_interval(20, 50, 0.99);
    REQUIRE(i99);
    CHECK(i99->lower == 3);
    CHECK(i99->upper == 16);
    // interval(3000, 99, 99) == (2954, 2983).
    const auto tail = percentile_interval(3000, 99, 0.99);
    REQUIRE(tail);
    CHECK(tail->lower == 2954);
    CHECK(tail->upper == 2983);
}

namespace {

// 0.5, 1.5, …, n − 0.5 in a scrambled order: the value of rank k is k + 0.5.
std::vector<double> scrambled(std::size_t n) {
    std::vector<double> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<double>((i * 7919) % n) + 0.5; // 7919 is prime, n is not its multiple
    return v;
}

} // namespace

TEST_CASE("a summary's percentiles carry the order statistics at the interval's ranks", "[percentile_interval][summary]") {
    SECTION("twenty values: the median between the 6th and the 15th") {
        const auto s = servestat::summarize(scrambled(20));
        REQUIRE(s.percentiles[0].p == 50);
        REQUIRE(s.percentiles[0].ci);
        CHECK(s.percentiles[0].ci->low == 5.5);
        CHECK(s.percentiles[0].ci->high == 14.5);
        for (std::size_t k = 1; k < s.percentiles.size(); ++k) CHECK_FALSE(s.percentiles[k].ci); // p90, p95, p99 of 20
    }
    SECTION("3000 values, selected by radix: p50, p90, p95 and p99") {
        const auto s = servestat::summarize(scrambled(3000));
        // interval(3000, 95) == (2825, 2873)
        const double lows[] = {1445.5, 2666.5, 2825.5, 2958.5}, highs[] = {1554.5, 2732.5, 2873.5, 2980.5};
        for (std::size_t k = 0; k < 4; ++k) {
            INFO("p" << s.percentiles[k].p);
            REQUIRE(s.percentiles[k].ci);
            CHECK(s.percentiles[k].ci->low == lows[k]);
            CHECK(s.percentiles[k].ci->high == highs[k]);
        }
    }
    SECTION("the same of parts, as all requests are summarised from their subsets") {
        auto values = scrambled(3000);
        const std::span<const double> whole(values);
        const std::span<const double> parts[] = {whole.first(1000), whole.subspan(1000, 1500), whole.subspan(2500)};
        const auto s = servestat::summarize_parts(parts);
        REQUIRE(s.percentiles[3].ci);
        CHECK(s.percentiles[3].ci->low == 2958.5);
        CHECK(s.percentiles[3].ci->high == 2980.5);
        CHECK(s.percentiles == servestat::summarize(values).percentiles);
    }
    SECTION("the confidence comes from the options") {
        const auto s = servestat::summarize(scrambled(20), {.confidence = 0.99});
        REQUIRE(s.percentiles[0].ci);
        CHECK(s.percentiles[0].ci->low == 3.5);
        CHECK(s.percentiles[0].ci->high == 16.5);
    }
    SECTION("no values, no interval") {
        const auto s = servestat::summarize(std::vector<double>{});
        for (const auto& p : s.percentiles) CHECK_FALSE(p.ci);
        CHECK_FALSE(s.mean_ci);
    }
}

TEST_CASE("a summary's mean carries Student's t interval of the sample spread", "[percentile_interval][summary]") {
    // numpy: x.mean() ± 2.262157 * x.std(ddof=1) / sqrt(10), t_{0.975, 9} = 2.262157 from the table.
    const std::vector<double> x{0.8, 1.1, 0.95, 1.3, 2.4, 0.7, 1.05, 0.9, 1.6, 1.2};
    for (int ddof : {0, 1}) { // the interval uses the sample spread whichever std is reported
        INFO("ddof " << ddof);
        const auto s = servestat::summarize(x, {.ddof = ddof});
        REQUIRE(s.mean_ci);
        CHECK(s.mean_ci->low == Approx(0.8459164220556104).epsilon(1e-6));
        CHECK(s.mean_ci->high == Approx(1.5540835779443891).epsilon(1e-6));
    }
    // Two values: 4 ± 12.706205 · 1.41421 / √2 = 4 ± 12.706205 (t_{0.975, 1} = 12.706205).
    const auto two = servestat::summarize(std::vector<double>{3, 5});
    REQUIRE(two.mean_ci);
    CHECK(two.mean_ci->low == Approx(4 - 12.706205).epsilon(1e-7));
    CHECK(two.mean_ci->high == Approx(4 + 12.706205).epsilon(1e-7));
    CHECK_FALSE(servestat::summarize(std::vector<double>{3}).mean_ci); // one value says nothing of the spread
    const auto same = servestat::summarize(std::vector<double>{2, 2, 2});
    REQUIRE(same.mean_ci);
    CHECK(same.mean_ci->low == 2);
    CHECK(same.mean_ci->high == 2);
    CHECK_THROWS(servestat::summarize(x, {.confidence = 1}));
    CHECK_THROWS(servestat::summarize(x, {.confidence = 0.5}));
}

TEST_CASE("a sketch's intervals hold the exact order statistics within its relative error", "[percentile_interval][sketch]") {
    const auto values = scrambled(3000);
    servestat::metric_accumulator streamed;
    streamed.add(values);
    const auto s = streamed.result({});
    REQUIRE(s.sketch_alpha);
    const double alpha = *s.sketch_alpha;
    // The exact ends of p50 and p99, interval(3000, 50) and interval(3000, 99), must lie inside
    // the sketch's interval, which is at most (1 + alpha) / (1 - alpha) wider at each end.
    const double exact_low[] = {1445.5, 2958.5}, exact_high[] = {1554.5, 2980.5};
    const std::size_t at[] = {0, 3};
    for (std::size_t k = 0; k < 2; ++k) {
        const auto& p = s.percentiles[at[k]];
        INFO("p" << p.p);
        REQUIRE(p.ci);
        CHECK(p.ci->low <= exact_low[k]);
        CHECK(p.ci->low >= exact_low[k] * (1 - alpha) / (1 + alpha) * (1 - 1e-12));
        CHECK(p.ci->high >= exact_high[k]);
        CHECK(p.ci->high <= exact_high[k] * (1 + alpha) / (1 - alpha) * (1 + 1e-12));
    }
    // The mean's interval comes from the exact sums: the same as the exact summary's.
    const auto exact = servestat::summarize(values);
    REQUIRE(s.mean_ci);
    CHECK(s.mean_ci->low == Approx(exact.mean_ci->low).epsilon(1e-12));
    CHECK(s.mean_ci->high == Approx(exact.mean_ci->high).epsilon(1e-12));
    CHECK_FALSE(servestat::metric_accumulator{}.result({}).mean_ci);
}

} // namespace test_percentile_interval
