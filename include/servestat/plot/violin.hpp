// Violin per category: the Gaussian KDE outline of its values (Silverman bandwidth), a box from p25
// to p75 with the median line inside, and every value as a dot spread sideways within the outline.
#pragma once

#include <algorithm> // std::max, std::min, std::stable_sort
#include <cmath>     // std::fmod, std::log10, std::pow, std::isfinite
#include <cstddef>   // std::size_t
#include <span>      // std::span
#include <string>    // std::string
#include <utility>   // std::move
#include <vector>    // std::vector

#include <fmt/format.h> // fmt::format

#include "servestat/plot/chart.hpp"     // frame, legend_entry, detail::range
#include "servestat/plot/data.hpp"      // chart_labels
#include "servestat/plot/scale.hpp"     // scale, spans_decades
#include "servestat/plot/svg.hpp"       // series_colour, px, exact
#include "servestat/stats/kde.hpp"      // silverman_bandwidth, gaussian_kde
#include "servestat/stats/quantile.hpp" // percentile_sorted

namespace servestat::plot {

// One category's values, each optionally named (the tooltip of its dot says whose value it is).
struct violin_series {
    std::string name;
    std::vector<double> values;
    std::vector<std::string> labels; // empty, or one per value
};

// The colour of category i: Okabe–Ito for the first eight, then one grey for all the rest, since a
// colour used twice would say two categories are one (the legend names the grey ones).
inline const char* category_colour(std::size_t i) { return i < 8 ? series_colour(i) : "#9a9a9a"; }

namespace detail {

// Sideways position of the j-th dot (in value order) as a fraction in [-1, 1): the golden-ratio
// (Weyl) sequence mapped to [-1, 1): 0, -0.76, 0.47, -0.29, 0.94, ..., which never repeats and fills the interval evenly, so
// neighbours land apart without a random generator and the bytes stay the same on every run.
inline double jitter_fraction(std::size_t j) {
    const double f = std::fmod(static_cast<double>(j) * 0.6180339887498949, 1.0);
    return 2 * f - (f >= 0.5 ? 2 : 0);
}

// A violin's outline before it meets pixels: positions along the value axis and the density there
// relative to the densest point (0..1). Trimmed to the smallest and largest value (ggplot2's
// trim = TRUE): the outline never claims values nobody measured. On a log axis the estimate is
// made in log10 space, where the outline is drawn.
struct violin_outline {
    std::vector<double> at;        // values, ascending
    std::vector<double> width;     // relative density, max 1
    double bandwidth = 0;          // in the space the estimate was made (log10 on a log axis)
    bool log = false;
    std::vector<double> space;     // the values in that space
    double peak = 0;               // largest density on the grid

    // Relative width at value v (for placing a dot inside the outline).
    double width_at(double v) const {
        if (peak <= 0) return 0;
        return gaussian_kde(space, bandwidth, log ? std::log10(v) : v) / peak;
    }
};

inline violin_outline outline_of(const std::vector<double>& sorted, bool log, std::size_t points = 80) {
    violin_outline o;
    o.log = log;
    for (double v : sorted) o.space.push_back(log ? std::log10(v) : v);
    const auto h = silverman_bandwidth(o.space);
    if (!h || o.space.front() == o.space.back()) return o;
    o.bandwidth = *h;
    const auto curve = kde_curve(o.space, *h, o.space.front(), o.space.back(), points);
    for (double d : curve.density) o.peak = std::max(o.peak, d);
    for (std::size_t i = 0; i < curve.x.size(); ++i) {
        o.at.push_back(log ? std::pow(10.0, curve.x[i]) : curve.x[i]);
        o.width.push_back(o.peak > 0 ? curve.density[i] / o.peak : 0);
    }
    return o;
}

// At most `max` legend rows (the frame's height holds about 17): past that, the grey categories are
// summed up in one row, since their dots cannot be told apart anyway.
inline std::vector<legend_entry> capped_legend(std::vector<legend_entry> entries, std::size_t max = 14) {
    if (entries.size() <= max) return entries;
    const std::size_t rest = entries.size() - (max - 1);
    entries.resize(max - 1);
    entries.push_back({fmt::format("+{} more (grey)", rest), "#9a9a9a", legend_mark::box, {}});
    return entries;
}

// Right side upwards, then the left side back down: one closed polygon.
inline std::string outline_points(const violin_outline& o, const scale& y, double middle, double half) {
    std::string pts;
    for (std::size_t i = 0; i < o.at.size(); ++i)
        pts += fmt::format("{}{},{}", pts.empty() ? "" : " ", px(middle + half * o.width[i]), px(y(o.at[i])));
    for (std::size_t i = o.at.size(); i-- > 0;)
        pts += fmt::format(" {},{}", px(middle - half * o.width[i]), px(y(o.at[i])));
    return pts;
}

} // namespace detail

struct violin_options {
    std::string value_unit; // after numbers in tooltips, e.g. "s" or "tok/s"
};

inline std::string violin_chart(std::span<const violin_series> series, const chart_labels& labels,
                                const violin_options& options = {}) {
    frame f(labels);
    std::vector<std::vector<double>> sorted;
    std::vector<std::vector<std::string>> names; // per value, in sorted order
    detail::range r;
    for (const auto& s : series) {
        std::vector<std::size_t> order;
        for (std::size_t i = 0; i < s.values.size(); ++i)
            if (std::isfinite(s.values[i])) order.push_back(i);
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return s.values[a] < s.values[b]; });
        std::vector<double> v;
        std::vector<std::string> n;
        for (std::size_t i : order) {
            v.push_back(s.values[i]);
            n.push_back(i < s.labels.size() ? s.labels[i] : std::string());
            r.add(s.values[i]);
        }
        sorted.push_back(std::move(v));
        names.push_back(std::move(n));
    }
    if (!r.any) {
        f.no_data();
        return std::move(f).finish();
    }
    // Names first: slanted ones raise the plot's bottom, which the y scale must then know.
    std::vector<std::string> categories;
    for (const auto& s : series) categories.push_back(s.name);
    f.category_axis(categories);
    const bool log = spans_decades(r.lo, r.hi);
    const scale y = f.y_scale(log ? r.lo : std::min(0.0, r.lo), r.hi, log);
    f.y_axis(y);
    const double slot = frame::category_slot(series.size());
    const double half = std::min(70.0, slot * 0.42);
    const double box_half = std::max(2.0, std::min(6.0, half * 0.12));
    const auto unit = [&](double v) { return options.value_unit.empty() ? exact(v) : exact(v) + " " + options.value_unit; };
    std::vector<legend_entry> legend;
    for (std::size_t i = 0; i < series.size(); ++i) {
        const auto& v = sorted[i];
        const std::string colour = category_colour(i);
        legend.push_back({fmt::format("{} (n={})", series[i].name, v.size()), colour, legend_mark::box, {}});
        if (v.empty()) continue;
        const double middle = frame::plot_left + slot * (static_cast<double>(i) + 0.5);
        const auto outline = detail::outline_of(v, log);
        if (!outline.at.empty())
            f.svg.polygon(detail::outline_points(outline, y, middle, half), colour, 0.25, colour,
                          fmt::format("{} (n={}): Gaussian KDE, Silverman bandwidth {}{}", series[i].name, v.size(),
                                      exact(outline.bandwidth), log ? " (log10 units)" : ""));
        const double p25 = percentile_sorted(v, 25), p50 = percentile_sorted(v, 50), p75 = percentile_sorted(v, 75);
        f.svg.line(middle, y(v.front()), middle, y(v.back()), "#333333", 1);
        f.svg.rect(middle - box_half, y(p75), 2 * box_half, std::max(1.0, y(p25) - y(p75)), "#333333",
                   fmt::format("{} (n={}): min {}, p25 {}, median {}, p75 {}, max {}", series[i].name, v.size(),
                               unit(v.front()), unit(p25), unit(p50), unit(p75), unit(v.back())));
        f.svg.line(middle - box_half - 3, y(p50), middle + box_half + 3, y(p50), "#ffffff", 2.5);
        for (std::size_t j = 0; j < v.size(); ++j) {
            // Inside the outline where there is one; a lone value or a constant group sits on the axis line.
            const double room = outline.at.empty() ? 0 : 0.8 * half * outline.width_at(v[j]);
            const std::string who = names[i][j].empty() ? series[i].name : series[i].name + " · " + names[i][j];
            f.svg.circle(middle + detail::jitter_fraction(j) * room, y(v[j]), 3.5, colour,
                         fmt::format("{}: {}", who, unit(v[j])));
        }
    }
    f.note("outline: Gaussian KDE (Silverman h) · box: p25–p75, white line: median · dots: members");
    f.legend(detail::capped_legend(std::move(legend)));
    return std::move(f).finish();
}

} // namespace servestat::plot
