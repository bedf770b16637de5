// The threshold knee: the first load level whose latency exceeds the lowest level's by more than
// a share d ("p99 50 % above its baseline", d = 0.5, `--degradation`). AIPerf-style tools report
// this simple rule instead of a curvature criterion; servestat reports it next to Kneedle's knee
// for comparison (docs/knee.md#threshold-knee).
#pragma once

#include <algorithm> // std::stable_sort
#include <cmath>     // std::isfinite, std::isnan
#include <cstddef>   // std::size_t
#include <optional>  // std::optional
#include <span>      // std::span
#include <string>    // std::string
#include <vector>    // std::vector

#include "servestat/core/errors.hpp"    // usage_error
#include "servestat/stats/quantile.hpp" // detail::format_double

namespace servestat {

inline constexpr double default_degradation = 0.5;

struct threshold_knee {
    double degradation = default_degradation;
    std::optional<double> baseline_x, baseline; // the lowest x and its value
    std::optional<double> limit;                // baseline × (1 + degradation)
    std::optional<double> x, y;                 // the first point above the limit; empty when none is
    std::optional<std::size_t> index;           // that point's position in the input
};

// d finite and >= 0 (usage_error otherwise): 0.5 means "more than 50 % above the baseline".
inline void validate_degradation(double d) {
    if (!std::isfinite(d) || d < 0)
        throw usage_error("--degradation must be a finite number >= 0 (0.5: 50 % above the lowest level), got " +
                          detail::format_double(d));
}

// The first point, in ascending x (+inf allowed: an unbounded rate comes last), whose y exceeds
// y at the lowest x by more than `degradation` of it. NaN y values are skipped; no point, or a
// single one, gives no baseline or no knee.
inline threshold_knee find_threshold_knee(std::span<const double> x, std::span<const double> y,
                                          double degradation = default_degradation) {
    validate_degradation(degradation);
    threshold_knee out;
    out.degradation = degradation;
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < x.size() && i < y.size(); ++i)
        if (!std::isnan(x[i]) && !std::isnan(y[i])) order.push_back(i);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return x[a] < x[b]; });
    if (order.empty()) return out;
    out.baseline_x = x[order.front()];
    out.baseline = y[order.front()];
    out.limit = *out.baseline * (1 + degradation);
    for (std::size_t i : order)
        if (y[i] > *out.limit) {
            out.x = x[i];
            out.y = y[i];
            out.index = i;
            break;
        }
    return out;
}

} // namespace servestat
