// Order-preserving keys for doubles, and sorting run times.
#include <catch2/catch.hpp> // Catch2 v2

#include <algorithm> // std::sort, std::transform
#include <cmath>     // std::signbit
#include <random>    // std::mt19937_64, distributions
#include <vector>    // std::vector

#include "servestat/stats/order_keys.hpp"
#include "servestat/stats/radix_sort.hpp"
#include "servestat/stats/time_sort.hpp"

namespace test_order_keys { // the unity build compiles several test files as one: each keeps its names

using servestat::detail::order_key;

TEST_CASE("order keys compare like the doubles they come from") {
    const std::vector<double> ascending{-1e300, -2.5, -1e-300, -0.0, 0.0, 1e-300, 0.5, 1.0, 7.25, 1e300};
    for (std::size_t i = 1; i < ascending.size(); ++i) CHECK(order_key(ascending[i - 1]) < order_key(ascending[i]));
}

TEST_CASE("sort_times orders times exactly as std::sort does, whatever their spread") {
    std::mt19937_64 rng(5);
    std::lognormal_distribution<double> lognormal(0.0, 2.0);
    std::uniform_int_distribution<int> few(0, 3);
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{1000}, std::size_t{300000}}) {
        for (int shape = 0; shape < 5; ++shape) {
            std::vector<double> times(n);
            for (std::size_t i = 0; i < n; ++i)
                times[i] = shape == 0 ? lognormal(rng)
                         : shape == 1 ? few(rng) * 1.5
                         : shape == 2 ? 600.0 - static_cast<double>(i) * 1e-3      // descending
                         : shape == 3 ? (i == 3 ? 1e15 : 1e9 + lognormal(rng))    // one far outlier
                                      : (i % 2 ? -0.0 : 0.0) - lognormal(rng) * (i % 3 == 0); // zeros, negatives
            auto expected = times;
            std::sort(expected.begin(), expected.end());
            servestat::detail::sort_times(times);
            INFO("n=" << n << " shape " << shape);
            CHECK(times == expected);
        }
    }
}

TEST_CASE("radix_sort orders values as std::sort does, bit for bit where std::sort decides") {
    std::mt19937_64 rng(6);
    std::lognormal_distribution<double> lognormal(-2.0, 1.5);
    std::uniform_int_distribution<int> few(0, 3);
    for (std::size_t n : {std::size_t{0}, std::size_t{5}, std::size_t{5000}, std::size_t{200000}}) {
        for (int shape = 0; shape < 4; ++shape) {
            std::vector<double> values(n);
            for (std::size_t i = 0; i < n; ++i)
                values[i] = shape == 0 ? lognormal(rng)                              // latencies
                          : shape == 1 ? few(rng) * 1.5                              // ties only
                          : shape == 2 ? (i % 7 ? -lognormal(rng) : 1e300 * few(rng)) // signs, huge, zeros
                                       : 1.7e9 + lognormal(rng);                     // epoch clock
            auto expected = values;
            std::sort(expected.begin(), expected.end());
            servestat::detail::radix_sort(values);
            INFO("n=" << n << " shape " << shape);
            CHECK(values == expected);
        }
    }
    std::vector<double> zeros(5000);
    for (std::size_t i = 0; i < zeros.size(); ++i) zeros[i] = i % 2 ? 0.0 : -0.0;
    servestat::detail::radix_sort(zeros);
    CHECK(std::signbit(zeros.front())); // -0.0 first, a valid order for std::less, and always the same
    CHECK_FALSE(std::signbit(zeros.back()));
}

} // namespace test_order_keys
