// Lines over the run's time: throughput per second, rolling tail latency; warm-up and overload show.
#pragma once

#include <span>   // std::span
#include <string> // std::string

#include "servestat/plot/data.hpp" // named_points, chart_labels
#include "servestat/plot/line.hpp" // line_chart, line_options

namespace servestat::plot {

// Several series share the axes (e.g. two runs' throughput); x is time since the run's start. Small
// markers: a timeline has a point a second, and the line, not the points, carries it.
inline std::string timeline_chart(std::span<const named_points> series, const chart_labels& labels) {
    line_options options;
    options.marker_radius = 2.5;
    return line_chart(series, labels, options);
}

} // namespace servestat::plot
