// A distribution-free confidence interval of a percentile: two order statistics X(l) ≤ ξp ≤ X(u)
// chosen from the binomial distribution of how many values fall below the true percentile, as in
// the classic tables for the median (n = 20: X(6) to X(15) at 95%). No assumption about the shape
// of the latencies, which are skewed and often multi-modal.
#pragma once

#include <cmath>    // std::lgamma, std::log, std::exp, std::log1p
#include <cstddef>  // std::size_t
#include <optional> // std::optional

namespace servestat {

// 0-based positions in the sorted values: the interval is [sorted[lower], sorted[upper]].
struct order_interval {
    std::size_t lower = 0, upper = 0;
};

// The equal-tailed interval of the `percentile` (0–100) of n values with at least `confidence`
// coverage: lower is the largest l with P(B ≤ l−1) ≤ α/2 and upper the smallest u with
// P(B ≤ u−1) ≥ 1 − α/2, B ~ Binomial(n, p), l and u 1-based. None when n is too small for either
// end (e.g. a p99 of fewer than 299 values has no upper bound at 95%).
inline std::optional<order_interval> percentile_interval(std::size_t n, double percentile, double confidence = 0.95) {
    const double p = percentile / 100, alpha = 1 - confidence;
    if (n == 0 || !(p > 0 && p < 1) || !(alpha > 0 && alpha < 1)) return std::nullopt;
    const double nd = static_cast<double>(n), log_n_factorial = std::lgamma(nd + 1);
    const double log_p = std::log(p), log_q = std::log1p(-p);
    std::optional<std::size_t> lower, upper;
    double cdf = 0; // P(B ≤ k)
    for (std::size_t k = 0; k < n && !upper; ++k) {
        const double kd = static_cast<double>(k);
        cdf += std::exp(log_n_factorial - std::lgamma(kd + 1) - std::lgamma(nd - kd + 1) + kd * log_p + (nd - kd) * log_q);
        if (cdf <= alpha / 2) lower = k + 1;  // P(B ≤ (k+1) − 1) ≤ α/2: X(k+1) may be the lower end
        if (cdf >= 1 - alpha / 2) upper = k + 1; // the smallest u with P(B ≤ u − 1) ≥ 1 − α/2
    }
    if (!lower || !upper) return std::nullopt;
    return order_interval{*lower - 1, *upper - 1};
}

} // namespace servestat
