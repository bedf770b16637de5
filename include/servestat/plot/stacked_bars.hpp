// Stacked bars: per category (a percentile) the parts of latency on top of each other (client
// queue, time to first token, decode), each labelled with its share.
#pragma once

#include <algorithm> // std::max
#include <cmath>     // std::isfinite
#include <cstddef>   // std::size_t
#include <string>    // std::string
#include <utility>   // std::move

#include <fmt/format.h> // fmt::format

#include "servestat/plot/bars.hpp"  // detail::cell
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

inline std::string stacked_bar_chart(const bar_table& t, const chart_labels& labels) {
    frame f(labels);
    double top = 0;
    for (std::size_t c = 0; c < t.categories.size(); ++c) top = std::max(top, detail::stack_total(t, c));
    if (t.series.empty() || !(top > 0)) {
        f.no_data();
        return std::move(f).finish();
    }
    const scale y = f.y_scale(0, top * 1.08); // headroom for the total printed above
    f.y_axis(y);
    f.category_axis(t.categories);
    const double slot = frame::category_slot(t.categories.size());
    for (std::size_t c = 0; c < t.categories.size(); ++c) {
        const double total = detail::stack_total(t, c);
        const double x0 = frame::plot_left + slot * (static_cast<double>(c) + 0.2), w = slot * 0.6;
        double base = 0;
        for (std::size_t s = 0; s < t.series.size(); ++s) {
            const double v = detail::stack_part(t, s, c);
            if (v == 0) continue;
            const double y_top = y(base + v), y_bottom = y(base);
            const std::string share = fixed(total > 0 ? 100 * v / total : 0, 0) + "%";
            f.svg.rect(x0, y_top, w, y_bottom - y_top, series_colour(s),
                       fmt::format("{}, {}: {} ({}), {} of {}", t.categories[c], t.series[s], y.label(v), exact(v),
                                   share, y.label(total)));
            if (y_bottom - y_top >= 16 && w >= 30)
                f.svg.text(x0 + w / 2, (y_top + y_bottom) / 2 + 4, share, {.anchor = "middle", .fill = text_colour_on(s)});
            base += v;
        }
        f.svg.text(x0 + w / 2, y(total) - 4, y.label(total), {.anchor = "middle"});
    }
    f.legend(frame::palette_entries(t.series, legend_mark::box));
    return std::move(f).finish();
}

} // namespace servestat::plot
