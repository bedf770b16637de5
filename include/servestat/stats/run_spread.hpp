// Run-to-run noise: the spread of one statistic over replicate runs (the same configuration
// measured again), and Welch's interval of the difference between two sets of runs. The unit is the
// run, not the request: requests of one run share its server state (warm caches, batch sizes, a
// noisy neighbour), so intervals over requests understate how far a second run may land.
// AIPerf's multi-run confidence aggregates (--num-profile-runs; docs/tutorials/multi-run-confidence.md)
// define the same figures over runs: mean, std (ddof 1), cv = std / |mean|, se = std / √n and
// mean ± t*(n − 1) · se.
#pragma once

#include <algorithm> // std::minmax_element
#include <cmath>     // std::sqrt, std::abs, std::isfinite
#include <cstddef>   // std::size_t
#include <optional>  // std::optional
#include <span>      // std::span

#include "servestat/stats/interval.hpp"  // interval
#include "servestat/stats/student_t.hpp" // student_t_critical

namespace servestat {

// One statistic over n runs. std, se, t_critical and the interval need two runs; cv also a mean
// other than 0.
struct run_spread {
    std::size_t runs = 0;
    double mean = 0, min = 0, max = 0;
    std::optional<double> std;        // ddof 1
    std::optional<double> cv;         // std / |mean|
    std::optional<double> se;         // std / √runs
    std::optional<double> t_critical; // t*(runs − 1) at the confidence
    std::optional<interval> mean_ci;  // mean ± t_critical · se
};

namespace detail {

// Σ(x − m)² by the corrected two-pass formula: a handful of runs, so no compensation is needed,
// but the mean's own rounding is taken back out.
inline double squared_deviations(std::span<const double> xs, double mean) {
    double d = 0, squares = 0;
    for (const double x : xs) {
        d += x - mean;
        squares += (x - mean) * (x - mean);
    }
    const double out = squares - d * d / static_cast<double>(xs.size());
    return out > 0 ? out : 0;
}

} // namespace detail

// The spread of `values`, one per run; empty without values or when one is not finite.
inline std::optional<run_spread> spread_of_runs(std::span<const double> values, double confidence = 0.95) {
    if (values.empty()) return std::nullopt;
    for (const double v : values)
        if (!std::isfinite(v)) return std::nullopt;
    run_spread out;
    out.runs = values.size();
    double sum = 0;
    for (const double v : values) sum += v;
    out.mean = sum / static_cast<double>(out.runs);
    const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
    out.min = *lo;
    out.max = *hi;
    if (out.runs < 2) return out;
    out.std = std::sqrt(detail::squared_deviations(values, out.mean) / static_cast<double>(out.runs - 1));
    if (out.mean != 0) out.cv = *out.std / std::abs(out.mean);
    out.se = *out.std / std::sqrt(static_cast<double>(out.runs));
    out.t_critical = student_t_critical(static_cast<double>(out.runs - 1), confidence);
    if (out.t_critical) out.mean_ci = interval{out.mean - *out.t_critical * *out.se, out.mean + *out.t_critical * *out.se};
    return out;
}

// The fewest runs a side needs before compare takes the run as its unit: two runs give a t
// interval (t*(1) = 12.7 at 95%) too wide to tell anything, and one run's std is unknown.
inline constexpr std::size_t fewest_runs_as_unit = 3;

// after − before over runs, by Welch's t-interval: the difference of the runs' means
//     d = mean_after − mean_before,  se² = s_b² / n_b + s_a² / n_a,
// with Welch–Satterthwaite's degrees of freedom
//     ν = se⁴ / ((s_b² / n_b)² / (n_b − 1) + (s_a² / n_a)² / (n_a − 1)),
// and the interval d ± t*(ν) · se. Its relative form divides the interval by the baseline's mean
// (taken as known: a first-order reading, narrower than the ratio's own interval when the baseline
// runs are noisy). When neither side varies at all (se 0) the interval is the difference itself.
struct runs_difference {
    run_spread before, after;
    double change = 0;               // after.mean − before.mean
    std::optional<double> relative;  // change / before.mean, when before.mean > 0
    double se = 0, df = 0;
    std::optional<double> t_critical;
    std::optional<interval> ci, relative_ci;
    // Whether the interval holds 0: the runs cannot tell this change from their own noise.
    bool holds_zero() const { return ci && ci->low <= 0 && ci->high >= 0; }
};

// Empty unless each side has two runs or more with finite values.
inline std::optional<runs_difference> welch_difference(std::span<const double> before, std::span<const double> after,
                                                       double confidence = 0.95) {
    const auto b = spread_of_runs(before, confidence), a = spread_of_runs(after, confidence);
    if (!b || !a || b->runs < 2 || a->runs < 2) return std::nullopt;
    runs_difference out{*b, *a, a->mean - b->mean, std::nullopt, 0, 0, std::nullopt, std::nullopt, std::nullopt};
    if (b->mean > 0) out.relative = out.change / b->mean;
    const double vb = *b->std * *b->std / static_cast<double>(b->runs), va = *a->std * *a->std / static_cast<double>(a->runs);
    out.se = std::sqrt(vb + va);
    if (out.se == 0) {
        out.df = static_cast<double>(b->runs + a->runs - 2);
        out.t_critical = student_t_critical(out.df, confidence);
        out.ci = interval{out.change, out.change};
    } else {
        out.df = (vb + va) * (vb + va) /
                 (vb * vb / static_cast<double>(b->runs - 1) + va * va / static_cast<double>(a->runs - 1));
        out.t_critical = student_t_critical(out.df, confidence);
        if (out.t_critical) out.ci = interval{out.change - *out.t_critical * out.se, out.change + *out.t_critical * out.se};
    }
    if (out.ci && out.relative) out.relative_ci = interval{out.ci->low / b->mean, out.ci->high / b->mean};
    return out;
}

} // namespace servestat
