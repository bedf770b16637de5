// A distribution-free confidence interval of a percentile: two order statistics X(l) ≤ ξp ≤ X(u)
// chosen from the binomial distribution of how many values fall below the true percentile, as in
// the classic tables for the median (n = 20: X(6) to X(15) at 95%). No assumption about the shape
// of the latencies, which are skewed and often multi-modal.
#pragma once

#include <cmath>    // std::isfinite
#include <cstddef>  // std::size_t
#include <optional> // std::optional

#include <boost/math/special_functions/beta.hpp> // ibeta, ibetac

namespace servestat {

// 0-based positions in the sorted values: the interval is [sorted[lower], sorted[upper]].
struct order_interval {
    std::size_t lower = 0, upper = 0;
};

namespace detail {

// P(B ≤ k) and P(B > k) for B ~ Binomial(n, p), 0 ≤ k < n, as regularized incomplete beta
// functions (P(B ≤ k) = I_{1−p}(n − k, k + 1)), each to about 1e-15 relative: the tail that is
// small is computed directly, so neither loses digits to 1 − x.
inline double binomial_cdf(std::size_t n, double p, std::size_t k) {
    return boost::math::ibetac(static_cast<double>(k + 1), static_cast<double>(n - k), p);
}
inline double binomial_upper_tail(std::size_t n, double p, std::size_t k) {
    return boost::math::ibeta(static_cast<double>(k + 1), static_cast<double>(n - k), p);
}

// The smallest k in [first, last) for which `holds(k)` is true, `holds` being false then true
// along k; `last` when it is never true.
template <class Holds>
std::size_t first_where(std::size_t first, std::size_t last, Holds holds) {
    while (first < last) {
        const std::size_t middle = first + (last - first) / 2;
        if (holds(middle)) last = middle;
        else first = middle + 1;
    }
    return first;
}

} // namespace detail

// The equal-tailed interval of the `percentile` (0–100) of n values with at least `confidence`
// coverage: lower is the largest l with P(B ≤ l−1) ≤ α/2 and upper the smallest u with
// P(B ≤ u−1) ≥ 1 − α/2, B ~ Binomial(n, p), l and u 1-based. None when n is too small for either
// end (at 95%: a p99 of fewer than 368 values has no upper end, 0.99^367 > 0.025; a p90 needs 36,
// a p95 72, a median 6). Both ends
// are found by bisection on the binomial distribution function, O(log n) evaluations, so a
// summary of millions of values pays microseconds for its intervals, not a sum over every rank.
inline std::optional<order_interval> percentile_interval(std::size_t n, double percentile, double confidence = 0.95) {
    const double p = percentile / 100, alpha = 1 - confidence;
    if (n == 0 || !(p > 0 && p < 1) || !(alpha > 0 && alpha < 1)) return std::nullopt;
    // k = l − 1 (0-based rank of the lower end): the first k with P(B ≤ k) > α/2, less one.
    const std::size_t above = detail::first_where(0, n, [&](std::size_t k) { return detail::binomial_cdf(n, p, k) > alpha / 2; });
    if (above == 0) return std::nullopt; // even P(B ≤ 0) = (1 − p)^n exceeds α/2
    // k = u − 1 (0-based rank of the upper end): the first k with P(B ≤ k) ≥ 1 − α/2, that is
    // P(B > k) ≤ α/2; none below n when p^n > α/2.
    const std::size_t upper = detail::first_where(0, n, [&](std::size_t k) { return detail::binomial_upper_tail(n, p, k) <= alpha / 2; });
    if (upper == n) return std::nullopt;
    return order_interval{above - 1, upper};
}

} // namespace servestat
