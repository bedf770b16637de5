// Lines over the run's time: throughput per second, rolling tail latency; warm-up and overload show.
#pragma once

#include <cstddef> // std::size_t
#include <optional> // std::optional
#include <span>    // std::span
#include <string>  // std::string
#include <utility> // std::pair
#include <vector>  // std::vector

#include "servestat/plot/data.hpp" // named_points, chart_labels
#include "servestat/plot/line.hpp" // line_chart, line_options

namespace servestat::plot {

struct timeline_options {
    // The series to colour; empty: every series while they fit the palette, else picked_series. The
    // rest are drawn thin and light grey underneath (line_options::highlight).
    std::vector<std::size_t> highlight;
    std::string others_name; // the grey entry's noun, e.g. "other runs"; empty: "other series"
    // [lo, hi] the x axis covers at least, so that charts of one run share their time axis.
    std::optional<std::pair<double, double>> x_span;
    std::vector<reference_line> references; // levels across the plot, e.g. a configured limit
};

// Several series share the axes (e.g. two runs' throughput); x is time since the run's start. Small
// markers: a timeline has a point a second, and the line, not the points, carries it.
inline std::string timeline_chart(std::span<const named_points> series, const chart_labels& labels,
                                  const timeline_options& options) {
    line_options o;
    o.marker_radius = 2.5;
    o.highlight = options.highlight;
    o.others_name = options.others_name;
    o.x_span = options.x_span;
    o.references = options.references;
    return line_chart(series, labels, o);
}

inline std::string timeline_chart(std::span<const named_points> series, const chart_labels& labels) {
    return timeline_chart(series, labels, timeline_options{});
}

} // namespace servestat::plot
