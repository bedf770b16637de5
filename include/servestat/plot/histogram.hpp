// Histogram of one sample: how many requests fall in each value range.
#pragma once

#include <algorithm> // std::clamp, std::max, std::max_element, std::min
#include <cmath>     // std::ceil, std::cbrt
#include <cstddef>   // std::size_t
#include <span>      // std::span
#include <string>    // std::string
#include <utility>   // std::move
#include <vector>    // std::vector

#include <fmt/format.h> // fmt::format

#include "servestat/plot/chart.hpp"     // frame, detail::finite_values, detail::ranked_values, detail::linear_percentile
#include "servestat/plot/data.hpp"      // named_values, chart_labels

namespace servestat::plot {

// What a histogram draws of a sample: its range and how many values fall in each bin.
struct binned_sample {
    std::string name;
    std::size_t n = 0;         // finite values; none: "no data"
    double lo = 0, hi = 0;     // the smallest value; the largest, or lo + 1 when all are equal
    double width = 0;          // of each bin
    std::vector<std::size_t> counts;
};

namespace detail {

inline constexpr double quartile_percentiles[] = {75, 25};

// Freedman–Diaconis (bin width 2·IQR/∛n) adapts to spread and sample size; clamped to 5..60 bins so
// a tiny or heavy-tailed sample still draws a readable shape. lo and hi are the sample's extremes.
inline int freedman_diaconis_bins(const ranked_values& values, double lo, double hi) {
    if (values.size() < 2 || hi == lo) return 5;
    const double iqr = linear_percentile(values, 75) - linear_percentile(values, 25);
    if (iqr <= 0) return 60; // most values equal, a few apart: as fine as allowed
    const double width = 2 * iqr / std::cbrt(static_cast<double>(values.size()));
    return std::clamp(static_cast<int>(std::ceil((hi - lo) / width)), 5, 60);
}

inline std::vector<std::size_t> bin_counts(std::span<const double> values, double lo, double width, int bins) {
    std::vector<std::size_t> counts(static_cast<std::size_t>(bins), 0);
    for (double v : values) {
        const auto b = static_cast<std::size_t>(std::max(0.0, (v - lo) / width));
        ++counts[std::min(counts.size() - 1, b)]; // the maximum belongs to the last bin
    }
    return counts;
}

} // namespace detail

// The ranks bin_sample reads of n finite values: the extremes and the quartiles.
inline std::vector<std::size_t> histogram_chart_ranks(std::size_t n) {
    std::vector<std::size_t> ranks = detail::linear_percentile_ranks(n, detail::quartile_percentiles);
    if (n > 0) ranks.insert(ranks.end(), {0, n - 1});
    return ranks;
}

// `values` finite, in any order, and `ranked` their order statistics at (at least)
// histogram_chart_ranks(values.size()): one pass counts the bins. bins = 0 chooses by Freedman–Diaconis.
inline binned_sample bin_sample(std::string name, std::span<const double> values, const detail::ranked_values& ranked,
                                int bins = 0) {
    binned_sample out{std::move(name), values.size(), 0, 0, 0, {}};
    if (values.empty()) return out;
    const double lo = ranked.front(), highest = ranked.back();
    if (bins <= 0) bins = detail::freedman_diaconis_bins(ranked, lo, highest);
    out.lo = lo;
    out.hi = highest > lo ? highest : lo + 1;
    out.width = (out.hi - lo) / bins;
    out.counts = detail::bin_counts(values, lo, out.width, bins);
    return out;
}

// A differently named function, not an overload: histogram_chart({"name", {}}, labels) stays unambiguous.
inline std::string binned_histogram_chart(const binned_sample& sample, const chart_labels& labels) {
    frame f(labels);
    if (sample.n == 0) {
        f.no_data();
        return std::move(f).finish();
    }
    const auto& counts = sample.counts;
    const double lo = sample.lo, hi = sample.hi, width = sample.width;
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
    f.legend({{fmt::format("{} (n={})", sample.name, sample.n), series_colour(0), legend_mark::box, {}, {}}});
    return std::move(f).finish();
}

// bins = 0 chooses by Freedman–Diaconis.
inline std::string histogram_chart(const named_values& sample, const chart_labels& labels, int bins = 0) {
    auto values = detail::finite_values(sample.values);
    const detail::ranked_values ranked(std::span<double>(values), histogram_chart_ranks(values.size()));
    return binned_histogram_chart(bin_sample(sample.name, values, ranked, bins), labels);
}

} // namespace servestat::plot
