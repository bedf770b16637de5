// Mann-Whitney U test (two-sided, normal approximation) for before/after comparisons of a metric.
#pragma once

#include <algorithm> // std::sort, std::max, std::min, std::any_of
#include <cmath>     // std::isnan, std::sqrt, std::erfc
#include <cstddef>   // std::size_t
#include <cstdint>   // std::uint64_t
#include <numbers>   // std::numbers::sqrt2
#include <span>      // std::span
#include <string>    // std::string
#include <vector>    // std::vector

#include "servestat/core/errors.hpp" // usage_error

// Same numbers as scipy 1.10's
//   scipy.stats.mannwhitneyu(a, b, alternative='two-sided', method='asymptotic', use_continuity=True)
// (u is scipy's statistic, p its pvalue), to about 1e-14 relative, with three deliberate differences:
// all values equal (see mann_whitney_u); a tie group above 2.1 million values, where scipy's int64
// sum of t^3 - t overflows; samples holding both +inf and -inf, which scipy's rankdata turns into nan.
// scipy picks method='exact' by default for small samples without ties; this always uses the normal
// approximation, which is what matters for request logs (hundreds to millions of values, many ties).

namespace servestat {

struct mann_whitney {
    double u = 0; // U of `a`: pairs (a_i, b_j) with a_i > b_j, a tie counting 1/2 (scipy's U1)
    double z = 0; // standardized max(U1, U2), with the 0.5 continuity correction
    double p = 1; // two-sided
};

namespace detail {

// What the test needs from the pooled, ranked sample.
struct mann_whitney_counts {
    std::uint64_t twice_u = 0; // 2 * U1: an integer, so it is summed exactly
    double tie_term = 0;       // sum over tie groups of t^3 - t
    std::size_t groups = 0;    // distinct values in the pooled sample
};

inline void require_usable_sample(std::span<const double> xs, const char* which) {
    if (xs.empty()) throw usage_error(std::string("mann_whitney_u: sample ").append(which).append(" is empty"));
    if (std::any_of(xs.begin(), xs.end(), [](double x) { return std::isnan(x); }))
        throw usage_error(std::string("mann_whitney_u: sample ").append(which).append(" contains NaN"));
}

inline std::vector<double> sorted_copy_of(std::span<const double> xs) {
    std::vector<double> out(xs.begin(), xs.end());
    std::sort(out.begin(), out.end());
    return out;
}

// Walks the two sorted samples as one merged sequence, a tie group (equal values, from either side)
// at a time. A value of `a` in a group beats every `b` below the group and half of the group's `b`s,
// which is exactly U1 = R1 - n1(n1+1)/2 with average ranks, without forming ranks or pairs.
// -0.0 and +0.0 compare equal and so share a group, as they share a rank in scipy.
inline mann_whitney_counts count_mann_whitney(const std::vector<double>& a, const std::vector<double>& b) {
    mann_whitney_counts counts;
    std::size_t i = 0, j = 0;
    while (i < a.size() || j < b.size()) {
        const double v = j == b.size() ? a[i] : i == a.size() ? b[j] : std::min(a[i], b[j]);
        const std::size_t b_below = j;
        std::size_t in_a = 0, in_b = 0;
        for (; i < a.size() && a[i] == v; ++i) ++in_a;
        for (; j < b.size() && b[j] == v; ++j) ++in_b;
        counts.twice_u += static_cast<std::uint64_t>(in_a) * (2 * static_cast<std::uint64_t>(b_below) + in_b);
        // In double: t^3 overflows int64 for a group of 2.1 million equal values (scipy 1.10 does).
        const double t = static_cast<double>(in_a + in_b);
        counts.tie_term += t * (t - 1) * (t + 1);
        ++counts.groups;
    }
    return counts;
}

// p for a standardized statistic: 2 * normal_sf(z). erfc keeps tiny p-values (1e-30) that
// 1 - cdf would round to 0; for z < 0 it exceeds 1 and is clipped, as scipy clips.
inline double two_sided_normal_p(double z) { return std::min(1.0, std::erfc(z / std::numbers::sqrt2)); }

} // namespace detail

// O(n log n): both samples are copied and sorted once. Throws usage_error when a sample is empty or
// holds a NaN. Infinities are ordinary values (ranks only need an order). u is exact while
// n1 n2 <= 2^52 (6.7e7 values per side): 2U is then an integer a double holds exactly.
//
// When every value is equal the variance is 0 and the statistic undefined: scipy gives z = -inf and
// p = 1 (with the continuity correction; nan without it). Here z = 0 and p = 1: identical data are
// no evidence of a shift, and a finite z keeps reports and JSON free of infinities.
inline mann_whitney mann_whitney_u(std::span<const double> a, std::span<const double> b) {
    detail::require_usable_sample(a, "a");
    detail::require_usable_sample(b, "b");
    const auto counts = detail::count_mann_whitney(detail::sorted_copy_of(a), detail::sorted_copy_of(b));

    const double n1 = static_cast<double>(a.size());
    const double n2 = static_cast<double>(b.size());
    const double n = n1 + n2;
    mann_whitney out;
    out.u = static_cast<double>(counts.twice_u) / 2;
    if (counts.groups == 1) return out; // z = 0, p = 1: see above

    // The bracket is >= 3 unless all values tie (then 0), so rounding cannot make it negative.
    const double sigma = std::sqrt(n1 * n2 / 12 * ((n + 1) - counts.tie_term / (n * (n - 1))));
    const double mu = n1 * n2 / 2;
    const double larger_u = std::max(out.u, n1 * n2 - out.u);
    out.z = (larger_u - mu - 0.5) / sigma;
    out.p = detail::two_sided_normal_p(out.z);
    return out;
}

} // namespace servestat
