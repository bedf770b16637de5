// Tests for servestat/stats/mann_whitney.hpp: agreement with scipy 1.10's asymptotic mannwhitneyu
// formulas (reference values from tests/tools/mann_whitney_reference.py), brute-force pair counts,
// edge cases.
#include "servestat/stats/mann_whitney.hpp"

#include <algorithm> // std::max
#include <cmath>     // std::fabs, std::tan
#include <cstddef>   // std::size_t
#include <cstdint>   // std::uint64_t
#include <limits>    // std::numeric_limits
#include <random>    // std::mt19937_64, std::uniform_int_distribution
#include <span>      // std::span
#include <vector>    // std::vector

#include <catch2/catch.hpp> // TEST_CASE, REQUIRE, CHECK, CHECK_THROWS_WITH, Contains

namespace test_mann_whitney { // the unity build compiles several test files as one: each keeps its names

namespace {

using servestat::mann_whitney;
using servestat::mann_whitney_u;
using Catch::Matchers::Contains;

// 1e-9 relative; the absolute floor keeps an expected 0 from demanding bit equality.
bool within_tolerance(double got, double expected) {
    return std::fabs(got - expected) <= std::max(1e-9 * std::fabs(expected), 1e-300);
}

void check_against(const mann_whitney& got, const mann_whitney& expected) {
    INFO("u = " << got.u << ", z = " << got.z << ", p = " << got.p);
    CHECK(within_tolerance(got.u, expected.u));
    CHECK(within_tolerance(got.z, expected.z));
    CHECK(within_tolerance(got.p, expected.p));
}

// The samples below are built by the same formulas as in tests/tools/mann_whitney_reference.py;
// the expected values are that script's output (/usr/bin/python3, numpy 1.24.2), printed with %.17g.
// `--check-scipy` showed every one within 1e-14 relative of scipy 1.10.1's mannwhitneyu, except
// huge_tie_group, where scipy's integer tie term overflows.

const std::vector<double> no_ties_a{19, 22, 16, 29, 24};
const std::vector<double> no_ties_b{20, 11, 17, 12};

// Tie groups 2, 3, 5 and 8 span both samples; 9 ties within b only.
const std::vector<double> ties_a{1, 2, 2, 3, 5, 5, 5, 8};
const std::vector<double> ties_b{2, 3, 3, 5, 7, 8, 8, 9, 9};

const std::vector<double> unequal_a{3.5, 17.25, 40, 61, 62.25};

std::vector<double> unequal_b() {
    std::vector<double> b;
    for (std::uint64_t i = 0; i < 300; ++i) b.push_back(static_cast<double>((i * 7919) % 250) / 4.0);
    return b;
}

// Integers 0..999 from the high bits of a 64-bit LCG (Knuth's MMIX constants); many ties.
std::vector<double> lcg_values(std::uint64_t& state, std::size_t count) {
    std::vector<double> out;
    out.reserve(count);
    for (std::size_t k = 0; k < count; ++k) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        out.push_back(static_cast<double>((state >> 33) % 1000));
    }
    return out;
}

// The statistic by definition, O(n1 n2): pairs with a_i > b_j, ties counting 1/2.
double brute_force_u(std::span<const double> a, std::span<const double> b) {
    double u = 0;
    for (double x : a)
        for (double y : b) u += x > y ? 1.0 : x == y ? 0.5 : 0.0;
    return u;
}

} // namespace

TEST_CASE("mann_whitney_u without ties matches the reference", "[mann_whitney]") {
    const auto r = mann_whitney_u(no_ties_a, no_ties_b);
    // By hand: 19 beats 3 of b, 22 beats 4, 16 beats 2, 29 and 24 beat 4 each.
    CHECK(r.u == 17);
    check_against(r, {17, 1.5921683328090657, 0.11134688653314048});
}

TEST_CASE("mann_whitney_u averages the ranks of tie groups across the samples", "[mann_whitney]") {
    const auto r = mann_whitney_u(ties_a, ties_b);
    CHECK(r.u == brute_force_u(ties_a, ties_b));
    check_against(r, {19.5, 1.5617682537637718, 0.11834259304801784});
}

TEST_CASE("mann_whitney_u with samples of very different sizes", "[mann_whitney]") {
    check_against(mann_whitney_u(unequal_a, unequal_b()), {890, 0.71328173859073585, 0.47567143527749833});
}

TEST_CASE("mann_whitney_u keeps tiny p-values of a clear shift", "[mann_whitney]") {
    std::vector<double> a, b;
    for (std::uint64_t i = 0; i < 100; ++i) {
        a.push_back(static_cast<double>((i * 37) % 101));
        b.push_back(static_cast<double>((i * 53) % 97 + 60));
    }
    const auto r = mann_whitney_u(a, b);
    // b is larger, so U1 is small; the test uses U2 = n1 n2 - U1.
    check_against(r, {907, 9.9997452720335183, 1.5278956606969881e-23});
}

TEST_CASE("mann_whitney_u on 20000 values per side with many ties", "[mann_whitney]") {
    std::uint64_t state = 42;
    const std::vector<double> a = lcg_values(state, 20000);
    std::vector<double> b = lcg_values(state, 20000);
    for (double& x : b) x += 7;
    check_against(mann_whitney_u(a, b), {196207625.5, 3.2842529160370608, 0.0010225311495967182});
}

TEST_CASE("mann_whitney_u sums the tie term in double, past where int64 overflows", "[mann_whitney]") {
    // One tie group of 2.2e6 values: t^3 - t is about 1.06e19 > 2^63. scipy 1.10 overflows here and
    // reports p = 0.99922; the reference is the formula evaluated in float64 (hand check: the variance
    // bracket (n + 1) - sum(t^3 - t)/(n (n - 1)) is exactly 3).
    const std::vector<double> a(1200000, 0.0);
    std::vector<double> b(1000000, 0.0);
    b.push_back(1);
    check_against(mann_whitney_u(a, b), {600000000000, 1.0954436544177129, 0.27332231786927452});
}

TEST_CASE("mann_whitney_u of identical samples has p = 1", "[mann_whitney]") {
    const std::vector<double> x{1, 2, 3, 4, 5};
    const auto r = mann_whitney_u(x, x);
    CHECK(r.u == 12.5);
    // The continuity correction makes z negative; erfc then exceeds 1 and is clipped.
    check_against(r, {12.5, -0.10606601717798213, 1});
    CHECK(r.p == 1);
}

TEST_CASE("mann_whitney_u when every value is equal reports z = 0 and p = 1", "[mann_whitney]") {
    // sigma is 0 here; scipy reports z = -inf, p = 1 (nan without the continuity correction).
    const std::vector<double> a{4, 4, 4};
    const std::vector<double> b{4, 4};
    const auto r = mann_whitney_u(a, b);
    CHECK(r.u == 3);
    CHECK(r.z == 0);
    CHECK(r.p == 1);
}

TEST_CASE("swapping the samples keeps p and z and turns u into n1 n2 - u", "[mann_whitney]") {
    SECTION("ties") {
        const auto forward = mann_whitney_u(ties_a, ties_b);
        const auto swapped = mann_whitney_u(ties_b, ties_a);
        check_against(swapped, {52.5, 1.5617682537637718, 0.11834259304801784});
        CHECK(swapped.u == 8 * 9 - forward.u);
        CHECK(swapped.z == forward.z);
        CHECK(swapped.p == forward.p);
    }
    SECTION("unequal sizes") {
        const std::vector<double> b = unequal_b();
        const auto forward = mann_whitney_u(unequal_a, b);
        const auto swapped = mann_whitney_u(b, unequal_a);
        check_against(swapped, {610, 0.71328173859073585, 0.47567143527749833});
        CHECK(swapped.u == 5 * 300 - forward.u);
        CHECK(swapped.z == forward.z);
        CHECK(swapped.p == forward.p);
    }
}

TEST_CASE("mann_whitney_u counts the same pairs as the quadratic definition", "[mann_whitney]") {
    std::mt19937_64 rng(2024);
    std::uniform_int_distribution<int> size(1, 40);
    for (int round = 0; round < 500; ++round) {
        // Few distinct values, so ties, empty overlaps and one-sided groups all occur.
        std::uniform_int_distribution<int> value(0, 1 + round % 12);
        std::vector<double> a(static_cast<std::size_t>(size(rng))), b(static_cast<std::size_t>(size(rng)));
        for (double& x : a) x = value(rng);
        for (double& x : b) x = value(rng) + (round % 3 == 0 ? 6 : 0);
        const auto r = mann_whitney_u(a, b);
        INFO("round " << round);
        REQUIRE(r.u == brute_force_u(a, b));
        REQUIRE(r.p >= 0);
        REQUIRE(r.p <= 1);
    }
}

TEST_CASE("mann_whitney_u depends only on the order of the values", "[mann_whitney]") {
    const auto reference = mann_whitney_u(ties_a, ties_b);
    SECTION("a strictly increasing transform changes nothing") {
        std::vector<double> a, b;
        for (double x : ties_a) a.push_back(std::tan(x / 10) * 1e6 - 3);
        for (double x : ties_b) b.push_back(std::tan(x / 10) * 1e6 - 3);
        const auto r = mann_whitney_u(a, b);
        CHECK(r.u == reference.u);
        CHECK(r.p == reference.p);
    }
    SECTION("an infinity is just the largest value") {
        // (scipy 1.10 returns nan when +inf and -inf are both present: its rankdata sums the data to
        // look for NaN. One sign of infinity is handled there as here.)
        const double inf = std::numeric_limits<double>::infinity();
        const std::vector<double> a{1, 2, 2, 3, 5, 5, 5, inf};
        const std::vector<double> b{2, 3, 3, 5, 7, inf, inf, 9, 9};
        CHECK(mann_whitney_u(a, b).u == brute_force_u(a, b));
        CHECK(mann_whitney_u(a, b).p == mann_whitney_u(std::vector<double>{1, 2, 2, 3, 5, 5, 5, 99},
                                                       std::vector<double>{2, 3, 3, 5, 7, 99, 99, 9, 9}).p);
    }
    SECTION("-0.0 and +0.0 are one tie group") {
        const auto mixed = mann_whitney_u(std::vector<double>{-0.0, 1}, std::vector<double>{0.0, 2});
        CHECK(mixed.u == 1.5);
        CHECK(mixed.p == mann_whitney_u(std::vector<double>{0.0, 1}, std::vector<double>{0.0, 2}).p);
    }
}

TEST_CASE("mann_whitney_u rejects empty samples and NaN", "[mann_whitney]") {
    const std::vector<double> some{1, 2, 3};
    const std::vector<double> none;
    const std::vector<double> with_nan{1, std::numeric_limits<double>::quiet_NaN(), 3};
    CHECK_THROWS_WITH(mann_whitney_u(none, some), Contains("sample a is empty"));
    CHECK_THROWS_WITH(mann_whitney_u(some, none), Contains("sample b is empty"));
    CHECK_THROWS_AS(mann_whitney_u(none, none), servestat::usage_error);
    CHECK_THROWS_WITH(mann_whitney_u(with_nan, some), Contains("sample a contains NaN"));
    CHECK_THROWS_WITH(mann_whitney_u(some, with_nan), Contains("sample b contains NaN"));
    CHECK_THROWS_AS(mann_whitney_u(some, with_nan), servestat::usage_error);
}

} // namespace test_mann_whitney
