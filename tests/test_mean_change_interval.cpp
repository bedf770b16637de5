// The interval of a mean's change: Welch's t-interval of after − before and Fieller's interval of
// after / before − 1. Expected values are computed in Python's math and statistics: sample
// variances by statistics.variance, Welch–Satterthwaite's ν by its formula, t*(ν) by integrating
// the t density numerically (Simpson's rule, 200,000 steps) and solving P(T > t) = 0.025 by
// bisection (at ν = 8 it gives the published table's 2.306004), and Fieller's ends as the roots of
// (x̄² − t² v_b) ρ² − 2 x̄ ȳ ρ + (ȳ² − t² v_a) = 0, ν taken at ρ̂ = ȳ / x̄.
#include <catch2/catch.hpp> // Catch2 v2

#include <vector> // std::vector

#include "servestat/stats/mean_change_interval.hpp"

namespace test_mean_change_interval { // the unity build compiles several test files as one

using namespace servestat;

namespace {
mean_and_variance of(const std::vector<double>& v) { return *mean_and_variance_of(v); }
} // namespace

TEST_CASE("a mean and its sample variance (ddof 1) from two passes", "[mean_change]") {
    const auto s = of({10, 12, 9, 11, 14, 13});
    CHECK(s.mean == Approx(11.5));
    CHECK(s.variance == Approx(3.5)); // statistics.variance
    CHECK(s.n == 6);
    // Far from 0 with a small spread: 1e9 + {0, 1, 2} has variance 1 exactly.
    CHECK(of({1e9, 1e9 + 1, 1e9 + 2}).variance == 1.0);
    CHECK_FALSE(mean_and_variance_of(std::vector<double>{3.0}));
}

TEST_CASE("Welch's interval of the change of a mean", "[mean_change]") {
    // Equal sizes and variances: ν = 2n − 2 = 8, t*(8) = 2.306004 (the table), se = 1.
    auto i = welch_interval(of({1, 2, 3, 4, 5}), of({2, 3, 4, 5, 6}));
    REQUIRE(i);
    CHECK(i->low == Approx(-1.3060041352040201).epsilon(1e-9));
    CHECK(i->high == Approx(3.30600413520402).epsilon(1e-9));
    // Unequal sizes and variances: ν = 4.3015869, t* = 2.7013352.
    i = welch_interval(of({10, 12, 9, 11, 14, 13}), of({15, 11, 19, 14}));
    REQUIRE(i);
    CHECK(i->low == Approx(-1.6665042888001933).epsilon(1e-9));
    CHECK(i->high == Approx(8.166504288800194).epsilon(1e-9));
    // Neither side varies: the difference itself.
    i = welch_interval(of({2, 2, 2}), of({3, 3}));
    REQUIRE(i);
    CHECK(*i == interval{1, 1});
    CHECK_FALSE(welch_interval({3, 0, 1}, of({3, 4})));
}

TEST_CASE("Fieller's interval of the relative change of a mean", "[mean_change]") {
    // x̄ = 3, ȳ = 4: ν at ρ̂ = 4/3 is 7.4183976, t* = 2.3378555; not symmetric about ρ̂ − 1 = 1/3.
    auto i = fieller_relative_interval(of({1, 2, 3, 4, 5}), of({2, 3, 4, 5, 6}));
    REQUIRE(i);
    CHECK(i->low == Approx(-0.3299635318599775).epsilon(1e-9));
    CHECK(i->high == Approx(2.159415203202167).epsilon(1e-9));
    i = fieller_relative_interval(of({10, 12, 9, 11, 14, 13}), of({15, 11, 19, 14}));
    REQUIRE(i);
    CHECK(i->low == Approx(-0.11404961527324486).epsilon(1e-9));
    CHECK(i->high == Approx(0.7553308819866336).epsilon(1e-9));
    // Neither side varies: the ratio itself.
    i = fieller_relative_interval(of({2, 2, 2}), of({3, 3}));
    REQUIRE(i);
    CHECK(i->low == Approx(0.5));
    CHECK(i->high == Approx(0.5));
}

TEST_CASE("no relative interval when the before mean's own interval reaches 0", "[mean_change]") {
    // x̄ = 1 with se 2: t*² v_b > x̄², the ratio is unbounded; Welch's interval still exists.
    const auto b = of({-1, 3}), a = of({2, 4, 6});
    CHECK_FALSE(fieller_relative_interval(b, a));
    const auto d = welch_interval(b, a);
    REQUIRE(d);
    CHECK(d->low == Approx(-8.953994896519893).epsilon(1e-9));
    CHECK(d->high == Approx(14.953994896519893).epsilon(1e-9));
    // A before mean of 0 or below has no relative change at all.
    CHECK_FALSE(fieller_relative_interval(of({-2, -1}), a));
}

TEST_CASE("with no change, Fieller's interval holds 0 exactly when Welch's does (same ν)", "[mean_change]") {
    // Equal means and variances: ρ̂ = 1, so both use the same ν and the same pivot at ρ = 1.
    const auto b = of({1, 2, 3, 4, 5}), a = of({0, 2, 3, 4, 6});
    const auto d = welch_interval(b, a), r = fieller_relative_interval(b, a);
    REQUIRE(d);
    REQUIRE(r);
    CHECK(d->low < 0);
    CHECK(d->high > 0);
    CHECK(r->low < 0);
    CHECK(r->high > 0);
}

} // namespace test_mean_change_interval
