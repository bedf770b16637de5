// Box plot per series: box from p25 to p75, median line, whiskers at p5 and p95.
#pragma once

#include <algorithm> // std::min, std::max
#include <cstddef>   // std::size_t
#include <span>      // std::span
#include <string>    // std::string
#include <utility>   // std::move
#include <vector>    // std::vector

#include <fmt/format.h> // fmt::format

#include "servestat/plot/chart.hpp"     // frame, detail::finite_values, detail::ranked_values, detail::linear_percentile
#include "servestat/plot/data.hpp"      // named_values, chart_labels
#include "servestat/plot/highlight.hpp" // series_looks, other_colour

namespace servestat::plot {

namespace detail {

struct box_stats {
    double p5, p25, p50, p75, p95;
};

inline constexpr double box_percentiles[] = {5, 25, 50, 75, 95};

// Linear-method percentiles, the same numbers the summary tables print; `values` ranked at least at
// box_chart_ranks(values.size()).
inline box_stats box_of(const ranked_values& values) {
    return {linear_percentile(values, 5), linear_percentile(values, 25), linear_percentile(values, 50),
            linear_percentile(values, 75), linear_percentile(values, 95)};
}

} // namespace detail

// The ranks a box of n finite values reads.
inline std::vector<std::size_t> box_chart_ranks(std::size_t n) { return detail::linear_percentile_ranks(n, detail::box_percentiles); }

// Series without finite values are left out.
inline std::string box_chart(std::span<const ranked_series> series, const chart_labels& labels) {
    frame f(labels);
    std::vector<std::size_t> counts;
    std::vector<std::string> names;
    std::vector<detail::box_stats> boxes;
    detail::range r;
    for (const auto& s : series) {
        if (s.values.empty()) continue;
        counts.push_back(s.values.size());
        names.push_back(s.name);
        boxes.push_back(detail::box_of(s.values));
        r.add(boxes.back().p5);
        r.add(boxes.back().p95);
    }
    if (boxes.empty()) {
        f.no_data();
        return std::move(f).finish();
    }
    f.category_axis(names);
    const scale y = f.y_scale(std::min(0.0, r.lo), r.hi);
    f.y_axis(y);
    // Beyond the palette a few boxes coloured, the rest grey: the axis names every box.
    const auto looks = detail::series_looks(boxes.size(), {});
    const double slot = frame::category_slot(boxes.size());
    for (std::size_t i = 0; i < boxes.size(); ++i) {
        const auto& b = boxes[i];
        const double middle = frame::plot_left + slot * (static_cast<double>(i) + 0.5);
        const double half = std::min(40.0, slot * 0.25);
        f.svg.line(middle, y(b.p5), middle, y(b.p25), "#333333", 1.5);
        f.svg.line(middle, y(b.p75), middle, y(b.p95), "#333333", 1.5);
        f.svg.line(middle - half / 2, y(b.p5), middle + half / 2, y(b.p5), "#333333", 1.5);
        f.svg.line(middle - half / 2, y(b.p95), middle + half / 2, y(b.p95), "#333333", 1.5);
        f.svg.rect(middle - half, y(b.p75), 2 * half, y(b.p25) - y(b.p75), looks[i].colour(),
                   fmt::format("{} (n={}): p5 {}, p25 {}, median {}, p75 {}, p95 {}", names[i], counts[i],
                               exact(b.p5), exact(b.p25), exact(b.p50), exact(b.p75), exact(b.p95)));
        f.svg.line(middle - half, y(b.p50), middle + half, y(b.p50), "#000000", 2.5);
    }
    f.note("box: p25 to p75, line: median, whiskers: p5 and p95 (linear percentiles)");
    std::vector<legend_entry> legend;
    for (std::size_t i = 0; i < names.size(); ++i)
        if (looks[i].coloured()) legend.push_back({names[i], looks[i].colour(), legend_mark::box, {}, {}});
    if (const auto grey = detail::grey_count(looks); grey > 0)
        legend.push_back({detail::others_legend_name(grey, ""), other_colour, legend_mark::box, {}, {}});
    f.legend(legend);
    return std::move(f).finish();
}

inline std::string box_chart(std::span<const named_values> series, const chart_labels& labels) {
    return box_chart(rank_series(series, box_chart_ranks), labels);
}

} // namespace servestat::plot
