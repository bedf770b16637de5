// Grouped bars: for each category (a subset, a run) one bar per series (p50, p90, p99), values printed.
#pragma once

#include <algorithm> // std::max
#include <cmath>     // std::isfinite
#include <cstddef>   // std::size_t
#include <limits>    // std::numeric_limits
#include <string>    // std::string
#include <utility>   // std::move

#include <fmt/format.h> // fmt::format

#include "servestat/plot/chart.hpp" // frame
#include "servestat/plot/data.hpp"  // bar_table, chart_labels

namespace servestat::plot {

namespace detail {

// NaN for a cell the table lacks, so a ragged table draws what it has instead of reading past the end.
inline double cell(const bar_table& t, std::size_t series, std::size_t category) {
    if (series >= t.values.size() || category >= t.values[series].size())
        return std::numeric_limits<double>::quiet_NaN();
    return t.values[series][category];
}

inline range cell_range(const bar_table& t) {
    range r;
    for (std::size_t s = 0; s < t.series.size(); ++s)
        for (std::size_t c = 0; c < t.categories.size(); ++c) r.add(cell(t, s, c));
    return r;
}

} // namespace detail

inline std::string grouped_bar_chart(const bar_table& t, const chart_labels& labels) {
    frame f(labels);
    const auto r = detail::cell_range(t);
    if (!r.any) {
        f.no_data();
        return std::move(f).finish();
    }
    // Headroom for the value printed above the tallest bar.
    const scale y = f.y_scale(std::min(0.0, r.lo), std::max(0.0, r.hi) * 1.08);
    f.y_axis(y);
    f.category_axis(t.categories);
    const double slot = frame::category_slot(t.categories.size());
    const double bar = slot * 0.8 / static_cast<double>(t.series.size());
    for (std::size_t c = 0; c < t.categories.size(); ++c)
        for (std::size_t s = 0; s < t.series.size(); ++s) {
            const double v = detail::cell(t, s, c);
            if (!std::isfinite(v)) continue;
            const double x0 = frame::plot_left + slot * (static_cast<double>(c) + 0.1) + bar * static_cast<double>(s);
            const double top = std::min(y(v), y(0)), bottom = std::max(y(v), y(0));
            f.svg.rect(x0 + 1, top, std::max(0.5, bar - 2), bottom - top, series_colour(s),
                       fmt::format("{}, {}: {} ({})", t.categories[c], t.series[s], y.label(v), exact(v)));
            if (bar >= 30) f.svg.text(x0 + bar / 2, top - 4, y.label(v), {.anchor = "middle"});
        }
    f.legend(frame::palette_entries(t.series, legend_mark::box));
    return std::move(f).finish();
}

} // namespace servestat::plot
