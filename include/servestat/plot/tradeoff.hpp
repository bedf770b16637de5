// Trade-off scatter of measurements grouped by category: one dot per measurement (a run or a time
// bin), coloured by its group, each dot named in its tooltip — seed 001's "median tokens/s vs p95".
#pragma once

#include <algorithm> // std::min
#include <cmath>     // std::isfinite
#include <cstddef>   // std::size_t
#include <span>      // std::span
#include <string>    // std::string
#include <utility>   // std::move
#include <vector>    // std::vector

#include <fmt/format.h> // fmt::format

#include "servestat/plot/chart.hpp"  // frame, legend_entry, detail::range
#include "servestat/plot/data.hpp"   // chart_labels
#include "servestat/plot/svg.hpp"    // exact
#include "servestat/plot/violin.hpp" // category_colour, detail::capped_legend

namespace servestat::plot {

struct labelled_points {
    std::string name; // the group
    std::vector<double> x, y;
    std::vector<std::string> labels; // empty, or one per point
};

struct tradeoff_options {
    std::string x_unit, y_unit; // after numbers in tooltips
};

// Colours follow category_colour in series order, so the same group has the same colour here and in
// the violins beside it.
inline std::string tradeoff_chart(std::span<const labelled_points> series, const chart_labels& labels,
                                  const tradeoff_options& options = {}) {
    frame f(labels);
    detail::range xr, yr;
    for (const auto& s : series)
        for (std::size_t i = 0; i < std::min(s.x.size(), s.y.size()); ++i)
            if (std::isfinite(s.x[i]) && std::isfinite(s.y[i])) {
                xr.add(s.x[i]);
                yr.add(s.y[i]);
            }
    if (!xr.any) {
        f.no_data();
        return std::move(f).finish();
    }
    const scale x = f.x_scale(std::min(0.0, xr.lo), xr.hi);
    const scale y = f.y_scale(std::min(0.0, yr.lo), yr.hi);
    f.x_axis(x);
    f.y_axis(y);
    const auto with_unit = [](double v, const std::string& unit) { return unit.empty() ? exact(v) : exact(v) + " " + unit; };
    std::vector<legend_entry> legend;
    for (std::size_t g = 0; g < series.size(); ++g) {
        const auto& s = series[g];
        std::size_t shown = 0;
        for (std::size_t i = 0; i < std::min(s.x.size(), s.y.size()); ++i) {
            if (!std::isfinite(s.x[i]) || !std::isfinite(s.y[i])) continue;
            ++shown;
            const std::string who = i < s.labels.size() && !s.labels[i].empty() ? s.name + " · " + s.labels[i] : s.name;
            f.svg.circle(x(s.x[i]), y(s.y[i]), 4.5, category_colour(g),
                         fmt::format("{}: x {}, y {}", who, with_unit(s.x[i], options.x_unit),
                                     with_unit(s.y[i], options.y_unit)));
        }
        legend.push_back({fmt::format("{} (n={})", s.name, shown), category_colour(g), legend_mark::box, {}});
    }
    f.legend(detail::capped_legend(std::move(legend)));
    return std::move(f).finish();
}

} // namespace servestat::plot
