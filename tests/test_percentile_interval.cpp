// Distribution-free percentile intervals from order statistics. Expected positions are the classic
// table values for the median (n = 20: X(6)–X(15); n = 100: X(40)–X(61), 1-based) and the binomial
// sums written out with Python's math.comb (p99 of 1000 values: X(983)–X(997)).
#include <catch2/catch.hpp> // Catch2 v2

#include "servestat/stats/percentile_interval.hpp"

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

} // namespace test_percentile_interval
