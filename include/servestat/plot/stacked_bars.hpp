// Stacked bars: per category (a percentile) the parts of latency on top of each other (client
// queue, time to first token, decode), each labelled with its share.
#pragma once

#include <algorithm> // std::max, std::min
#include <cmath>     // std::isfinite
#include <cstddef>   // std::size_t
#include <string>    // std::string
#include <utility>   // std::move
#include <vector>    // std::vector

#include <fmt/format.h> // fmt::format

#include "servestat/plot/bars.hpp"  // detail::cell, detail::value_label, bar_options
#include "servestat/plot/chart.hpp" // frame
#include "servestat/plot/data.hpp"  // bar_table, chart_labels

namespace servestat::plot {

namespace detail {

// Negative and missing parts count as nothing: a stack has no meaningful negative segment.
inline double stack_part(const bar_table& t, std::size_t series, std::size_t category) {
    const double v = cell(t, series, category);
    return std::isfinite(v) ? std::max(0.0, v) : 0.0;
}

inline double stack_total(const bar_table& t, std::size_t category) {
    double sum = 0;
    for (std::size_t s = 0; s < t.series.size(); ++s) sum += stack_part(t, s, category);
    return sum;
}

} // namespace detail

inline std::string stacked_bar_chart(const bar_table& t, const chart_labels& labels, const bar_options& options) {
    frame f(labels);
    double top = 0;
    for (std::size_t c = 0; c < t.categories.size(); ++c) top = std::max(top, detail::stack_total(t, c));
    if (t.series.empty() || !(top > 0)) {
        f.no_data();
        return std::move(f).finish();
    }
    f.category_axis(t.categories);
    const scale y = f.y_scale(0, top * 1.08); // headroom for the total printed above
    f.y_axis(y);
    const auto looks = detail::series_looks(t.series.size(), options.highlight);
    const double slot = frame::category_slot(t.categories.size());
    std::vector<detail::box> taken;
    struct total_label {
        double centre, top;
        std::string text;
    };
    std::vector<total_label> totals;
    for (std::size_t c = 0; c < t.categories.size(); ++c) {
        const double total = detail::stack_total(t, c);
        const double x0 = frame::plot_left + slot * (static_cast<double>(c) + 0.2), w = slot * 0.6;
        double base = 0;
        for (std::size_t s = 0; s < t.series.size(); ++s) {
            const double v = detail::stack_part(t, s, c);
            if (v == 0) continue;
            const double y_top = y(base + v), y_bottom = y(base);
            const std::string share = fixed(total > 0 ? 100 * v / total : 0, 0) + "%";
            // Grey parts lie on each other: a 1 px gap keeps them apart.
            const double gap = looks[s].coloured() ? 0 : std::min(1.0, (y_bottom - y_top) / 2);
            f.svg.rect(x0, y_top + gap, w, y_bottom - y_top - gap, looks[s].colour(),
                       fmt::format("{}, {}: {} ({}), {} of {}", t.categories[c], t.series[s], y.label(v), exact(v),
                                   share, y.label(total)));
            // The share inside its part where it fits (its tooltip has it otherwise).
            if (detail::text_height(12) + 2 <= y_bottom - y_top && detail::text_width(share) + 4 <= w)
                f.svg.text(x0 + w / 2, (y_top + y_bottom) / 2 + 4, share,
                           {.anchor = "middle", .fill = looks[s].slot ? text_colour_on(*looks[s].slot) : "#000000"});
            base += v;
        }
        taken.push_back({x0, y(total), x0 + w, y(0)});
        totals.push_back({x0 + w / 2, y(total), short_value(total, y.unit())});
    }
    for (const auto& l : totals) detail::value_label(f, taken, l.centre, l.top, slot * 0.6, l.text, slot - 4);
    f.legend(detail::bar_legend(t, looks, options.others_name));
    return std::move(f).finish();
}

inline std::string stacked_bar_chart(const bar_table& t, const chart_labels& labels) {
    return stacked_bar_chart(t, labels, bar_options{});
}

} // namespace servestat::plot
