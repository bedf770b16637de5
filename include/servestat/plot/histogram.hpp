// Histogram of one sample: how many requests fall in each value range.
#pragma once

#include <algorithm> // std::clamp, std::max, std::max_element, std::min, std::minmax_element
#include <cmath>     // std::ceil, std::cbrt
#include <cstddef>   // std::size_t
#include <string>    // std::string
#include <utility>   // std::move
#include <vector>    // std::vector

#include <fmt/format.h> // fmt::format

#include "servestat/plot/chart.hpp"     // frame, detail::finite_values
#include "servestat/plot/data.hpp"      // named_values, chart_labels
#include "servestat/stats/quantile.hpp" // percentiles_select

namespace servestat::plot {

namespace detail {

// Freedman–Diaconis (bin width 2·IQR/∛n) adapts to spread and sample size; clamped to 5..60 bins so
// a tiny or heavy-tailed sample still draws a readable shape.
// `values` (finite) are reordered; lo and hi are their extremes.
inline int freedman_diaconis_bins(std::vector<double>& values, double lo, double hi) {
    if (values.size() < 2 || hi == lo) return 5;
    static constexpr double quartiles[] = {75, 25};
    const auto at = percentiles_select(values, quartiles);
    const double iqr = at[0] - at[1];
    if (iqr <= 0) return 60; // most values equal, a few apart: as fine as allowed
    const double width = 2 * iqr / std::cbrt(static_cast<double>(values.size()));
    return std::clamp(static_cast<int>(std::ceil((hi - lo) / width)), 5, 60);
}

inline std::vector<std::size_t> bin_counts(const std::vector<double>& values, double lo, double width, int bins) {
    std::vector<std::size_t> counts(static_cast<std::size_t>(bins), 0);
    for (double v : values) {
        const auto b = static_cast<std::size_t>(std::max(0.0, (v - lo) / width));
        ++counts[std::min(counts.size() - 1, b)]; // the maximum belongs to the last bin
    }
    return counts;
}

} // namespace detail

// bins = 0 chooses by Freedman–Diaconis.
inline std::string histogram_chart(const named_values& sample, const chart_labels& labels, int bins = 0) {
    frame f(labels);
    auto values = detail::finite_values(sample.values);
    if (values.empty()) {
        f.no_data();
        return std::move(f).finish();
    }
    const auto [smallest, largest] = std::minmax_element(values.begin(), values.end());
    const double lo = *smallest, highest = *largest;
    if (bins <= 0) bins = detail::freedman_diaconis_bins(values, lo, highest);
    const double hi = highest > lo ? highest : lo + 1;
    const double width = (hi - lo) / bins;
    const auto counts = detail::bin_counts(values, lo, width, bins);
    const double tallest = static_cast<double>(*std::max_element(counts.begin(), counts.end()));
    const scale x = f.x_scale(lo, hi);
    const scale y = f.y_scale(0, tallest * 1.05); // the tallest bar clear of the frame
    f.x_axis(x);
    f.y_axis(y);
    for (std::size_t b = 0; b < counts.size(); ++b) {
        const double from = lo + width * static_cast<double>(b), to = b + 1 == counts.size() ? hi : from + width;
        const double top = y(static_cast<double>(counts[b]));
        f.svg.rect(x(from) + 0.5, top, std::max(0.5, x(to) - x(from) - 1), f.plot_bottom() - top, series_colour(0),
                   fmt::format("{} to {}{}: {} requests", x.label(from), x.label(to),
                               b + 1 == counts.size() ? " (inclusive)" : "", counts[b]));
    }
    f.legend({{fmt::format("{} (n={})", sample.name, values.size()), series_colour(0), legend_mark::box, {}, {}}});
    return std::move(f).finish();
}

} // namespace servestat::plot
