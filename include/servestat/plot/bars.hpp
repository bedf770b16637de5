// Grouped bars: for each category (a subset, a run) one bar per series (p50, p90, p99), values printed
// where they cover no other bar or value.
#pragma once

#include <algorithm> // std::max, std::min
#include <cmath>     // std::isfinite
#include <cstddef>   // std::size_t
#include <limits>    // std::numeric_limits
#include <string>    // std::string
#include <utility>   // std::move
#include <vector>    // std::vector

#include <fmt/format.h> // fmt::format

#include "servestat/plot/chart.hpp" // frame
#include "servestat/plot/data.hpp"  // bar_table, chart_labels
#include "servestat/plot/highlight.hpp" // series_looks, other_colour

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

// Places a value label above its bar of width `bar`: at the bar's top where it covers no bar or label
// drawn so far, nudged sideways by as much as it is wider than the bar (off a taller neighbour), else
// raised in 2 px steps up to two lines higher (staggering neighbours), else left out, as is a label
// wider than twice its bar (it would stand over bars it does not belong to); the bar's tooltip has
// the value either way. The label stays inside the plot area.
inline void value_label(frame& f, std::vector<box>& taken, double centre, double top, double bar,
                        const std::string& text, double widest) {
    constexpr int size = 12;
    const double w = text_width(text, size);
    if (w > widest) return;
    const double nudge = std::max(0.0, (w - bar) / 2) + 1;
    const double highest = top - 4 - 2 * text_height(size);
    for (double baseline = top - 4; baseline >= highest; baseline -= 2)
        for (const double dx : {0.0, -nudge, nudge}) {
            const box b = text_box(centre + dx, baseline, text, size, "middle");
            if (b.y0 < f.plot_top() + 1) return;
            if (b.x0 < frame::plot_left || b.x1 > frame::plot_right) continue;
            if (overlaps_any(taken, b.padded(1, 0))) continue;
            f.svg.text(centre + dx, baseline, text, {.anchor = "middle", .size = size});
            taken.push_back(b);
            return;
        }
}

} // namespace detail

struct bar_options {
    // The series to colour (indices into the table's series); empty: every series while they fit the
    // palette, else picked_series (first, last, evenly spaced). The rest are drawn light grey under
    // one legend entry; each bar's tooltip names its series.
    std::vector<std::size_t> highlight;
    std::string others_name; // the grey entry's noun; empty: "other series"
};

namespace detail {

inline std::vector<legend_entry> bar_legend(const bar_table& t, const std::vector<series_look>& looks,
                                            const std::string& others_name) {
    std::vector<legend_entry> out;
    std::string grey_names;
    for (std::size_t s = 0; s < t.series.size(); ++s) {
        if (looks[s].coloured()) out.push_back({t.series[s], looks[s].colour(), legend_mark::box, {}, {}});
        else grey_names.append(grey_names.empty() ? "" : ", ").append(t.series[s]);
    }
    if (const auto grey = grey_count(looks); grey > 0)
        out.push_back({others_legend_name(grey, others_name), other_colour, legend_mark::box, {}, grey_names});
    return out;
}

} // namespace detail

inline std::string grouped_bar_chart(const bar_table& t, const chart_labels& labels, const bar_options& options) {
    frame f(labels);
    const auto r = detail::cell_range(t);
    if (!r.any) {
        f.no_data();
        return std::move(f).finish();
    }
    f.category_axis(t.categories);
    // Headroom for the value printed above the tallest bar.
    const scale y = f.y_scale(std::min(0.0, r.lo), std::max(0.0, r.hi) * 1.08);
    f.y_axis(y);
    const auto looks = detail::series_looks(t.series.size(), options.highlight);
    const double slot = frame::category_slot(t.categories.size());
    const double bar = slot * 0.8 / static_cast<double>(t.series.size());
    struct drawn {
        double centre, top;
        std::string label;
    };
    std::vector<drawn> bars;
    std::vector<detail::box> taken;
    for (std::size_t c = 0; c < t.categories.size(); ++c)
        for (std::size_t s = 0; s < t.series.size(); ++s) {
            const double v = detail::cell(t, s, c);
            if (!std::isfinite(v)) continue;
            const double x0 = frame::plot_left + slot * (static_cast<double>(c) + 0.1) + bar * static_cast<double>(s);
            const double top = std::min(y(v), y(0)), bottom = std::max(y(v), y(0));
            f.svg.rect(x0 + 1, top, std::max(0.5, bar - 2), bottom - top, looks[s].colour(),
                       fmt::format("{}, {}: {} ({})", t.categories[c], t.series[s], y.label(v), exact(v)));
            taken.push_back({x0 + 1, top, x0 + 1 + std::max(0.5, bar - 2), bottom});
            bars.push_back({x0 + bar / 2, top, short_value(v, y.unit())});
        }
    // After every bar, so no label is placed over a bar drawn later.
    for (const auto& b : bars) detail::value_label(f, taken, b.centre, b.top, bar - 2, b.label, 2 * bar);
    f.legend(detail::bar_legend(t, looks, options.others_name));
    return std::move(f).finish();
}

inline std::string grouped_bar_chart(const bar_table& t, const chart_labels& labels) {
    return grouped_bar_chart(t, labels, bar_options{});
}

} // namespace servestat::plot
