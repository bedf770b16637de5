// The confidence interval of the change of a mean between two independent samples: the absolute
// change by Welch's t-interval, the relative change (after / before − 1) by Fieller's interval of
// the ratio of two independent means, both with Student's t at Welch–Satterthwaite's degrees of
// freedom. They replace compare's percentile bootstrap of a mean, which covered less than it stated
// on small subsets with a skewed tail (short prompts, about 60 requests a side: 92.2% at 95%): the
// bootstrap's spread of a mean is the plug-in one (ddof 0, no t), too narrow by a factor that only
// vanishes as n grows. The difference of two means of n values from one distribution is symmetric
// whatever the skew, so Welch's t holds its level closely at a few dozen values a side
// (docs/compare.md's calibration).
#pragma once

#include <cmath>    // std::sqrt, std::isfinite
#include <cstddef>  // std::size_t
#include <optional> // std::optional
#include <span>     // std::span

#include "servestat/stats/interval.hpp"  // interval
#include "servestat/stats/student_t.hpp" // student_t_critical

namespace servestat {

// A sample by its mean, sample variance (ddof 1) and count: all either interval needs.
struct mean_and_variance {
    double mean = 0, variance = 0;
    std::size_t n = 0;
};

// Two passes (mean, then the squared deviations from it): no cancellation when the values sit far
// from 0 with a small spread, as latencies of one kind do. Empty below 2 values.
inline std::optional<mean_and_variance> mean_and_variance_of(std::span<const double> values) {
    if (values.size() < 2) return std::nullopt;
    double sum = 0;
    for (double x : values) sum += x;
    const double n = static_cast<double>(values.size()), mean = sum / n;
    double squares = 0;
    for (double x : values) squares += (x - mean) * (x - mean);
    return mean_and_variance{mean, squares / (n - 1), values.size()};
}

namespace detail {

// Welch–Satterthwaite: ν = (v_b + v_a)² / (v_b² / (n_b − 1) + v_a² / (n_a − 1)) with v = s² / n the
// squared standard error of each mean, here with the before side's weighted by w² (the ratio
// interval's pivot ȳ − ρ x̄ has variance v_a + ρ² v_b; w = 1 for the difference).
inline double welch_df(const mean_and_variance& b, const mean_and_variance& a, double w = 1) {
    const double vb = w * w * b.variance / static_cast<double>(b.n), va = a.variance / static_cast<double>(a.n);
    return (vb + va) * (vb + va) /
           (vb * vb / static_cast<double>(b.n - 1) + va * va / static_cast<double>(a.n - 1));
}

inline bool usable(const mean_and_variance& s) {
    return s.n >= 2 && std::isfinite(s.mean) && std::isfinite(s.variance) && s.variance >= 0;
}

} // namespace detail

// after − before: d ± t*(ν) · √(s_b² / n_b + s_a² / n_a), ν by Welch–Satterthwaite. When neither
// side varies at all the interval is the difference itself. Empty unless each side has 2 values.
inline std::optional<interval> welch_interval(const mean_and_variance& before, const mean_and_variance& after,
                                              double confidence = 0.95) {
    if (!detail::usable(before) || !detail::usable(after)) return std::nullopt;
    const double d = after.mean - before.mean;
    const double se = std::sqrt(before.variance / static_cast<double>(before.n) + after.variance / static_cast<double>(after.n));
    if (se == 0) return interval{d, d};
    const auto t = student_t_critical(detail::welch_df(before, after), confidence);
    if (!t) return std::nullopt;
    return interval{d - *t * se, d + *t * se};
}

// after / before − 1 by Fieller's theorem: the ratios ρ for which the pivot ȳ − ρ x̄ (x before,
// y after) is within t* of 0 in its own standard errors,
//     (ȳ − ρ x̄)² ≤ t*² (v_a + ρ² v_b),  v = s² / n,
// i.e. A ρ² − 2 x̄ ȳ ρ + (ȳ² − t*² v_a) ≤ 0 with A = x̄² − t*² v_b, whose roots are
//     ρ = (x̄ ȳ ± t* √(v_a A + ȳ² v_b)) / A.
// A > 0 says the before mean is itself significantly away from 0 (|x̄| / √v_b > t*); otherwise the set
// of ratios is unbounded (the whole line, or two rays) and the interval is empty: the absolute
// change's interval then decides (compare/verdict.hpp). ν is Welch–Satterthwaite's for the pivot's
// variance at the estimated ratio ρ̂ = ȳ / x̄ (Tamhane & Logan 2004); at ρ = 1, no change, the
// pivot is Welch's statistic, so with a before mean near the after one the ratio interval holds no
// change exactly when Welch's interval holds 0. Not the difference's interval divided by x̄, which
// takes the before mean as known and is too narrow when it is not. Empty unless each side has 2
// values and x̄ > 0.
inline std::optional<interval> fieller_relative_interval(const mean_and_variance& before, const mean_and_variance& after,
                                                         double confidence = 0.95) {
    if (!detail::usable(before) || !detail::usable(after) || !(before.mean > 0)) return std::nullopt;
    const double x = before.mean, y = after.mean;
    const double vb = before.variance / static_cast<double>(before.n), va = after.variance / static_cast<double>(after.n);
    if (vb == 0 && va == 0) return interval{y / x - 1, y / x - 1};
    // Where the pivot has no spread at ρ̂ (an after side of zeros that never vary), the difference's ν.
    double df = detail::welch_df(before, after, y / x);
    if (!std::isfinite(df)) df = detail::welch_df(before, after);
    const auto t = student_t_critical(df, confidence);
    if (!t) return std::nullopt;
    const double t2 = *t * *t, a = x * x - t2 * vb;
    if (!(a > 0)) return std::nullopt;
    const double root = *t * std::sqrt(va * a + y * y * vb);
    return interval{(x * y - root) / a - 1, (x * y + root) / a - 1};
}

} // namespace servestat
