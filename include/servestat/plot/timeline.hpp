// Lines over the run's time: throughput per second, rolling tail latency; warm-up and overload show.
#pragma once

#include <algorithm> // std::min
#include <cmath>     // std::isfinite
#include <cstddef>   // std::size_t
#include <span>      // std::span
#include <string>    // std::string
#include <utility>   // std::move
#include <vector>    // std::vector

#include <fmt/format.h> // fmt::format

#include "servestat/plot/chart.hpp"   // frame
#include "servestat/plot/data.hpp"    // named_points, chart_labels
#include "servestat/plot/scatter.hpp" // detail::finite_series, detail::point_axes, detail::stride_for

namespace servestat::plot {

// Several series share the axes (e.g. two runs' throughput); x is time since the run's start.
inline std::string timeline_chart(std::span<const named_points> series, const chart_labels& labels) {
    frame f(labels);
    const auto clean = detail::finite_series(series);
    const auto axes = detail::point_axes(f, clean);
    if (!axes) return std::move(f).finish();
    const auto& [x, y] = *axes;
    std::vector<std::string> names;
    for (std::size_t i = 0; i < clean.size(); ++i) {
        const auto& s = clean[i];
        names.push_back(s.name);
        if (s.x.empty()) continue;
        // The line keeps every point; only the hover targets are thinned, at most ~500 per series.
        std::string points;
        for (std::size_t k = 0; k < s.x.size(); ++k) {
            if (k > 0) points += ' ';
            points.append(px(x(s.x[k]))).append(",").append(px(y(s.y[k])));
        }
        f.svg.polyline(points, series_colour(i), 2);
        const std::size_t stride = detail::stride_for(s.x.size(), 500);
        for (std::size_t k = 0; k < s.x.size(); k += stride)
            f.svg.circle(x(s.x[k]), y(s.y[k]), 2.5, series_colour(i),
                         fmt::format("{} at {}: {} ({})", s.name, x.label(s.x[k]), y.label(s.y[k]), exact(s.y[k])));
    }
    f.legend(frame::palette_entries(names, legend_mark::line));
    return std::move(f).finish();
}

} // namespace servestat::plot
