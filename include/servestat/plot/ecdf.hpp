// Empirical CDF: for each series the fraction of requests at or below each value, overlaid; p50,
// p90 and p99 marked. Beyond the palette a few series coloured, the rest grey (highlight.hpp).
#pragma once

#include <algorithm> // std::min, std::sort, std::unique
#include <cmath>     // std::ceil
#include <cstddef>   // std::size_t
#include <span>      // std::span
#include <string>    // std::string
#include <utility>   // std::move
#include <vector>    // std::vector

#include <fmt/format.h> // fmt::format

#include "servestat/plot/chart.hpp" // frame, detail::ranked_values
#include "servestat/plot/data.hpp"  // named_values, chart_labels
#include "servestat/plot/highlight.hpp" // series_looks, other_colour

namespace servestat::plot {

namespace detail {

// The fractions whose points are kept exactly however long the series: what readers look up.
inline constexpr double ecdf_marked_fractions[] = {0.5, 0.9, 0.95, 0.99};

// Index of the smallest value at or above fraction q of the sorted sample (the inverted CDF).
inline std::size_t rank_at(std::size_t n, double q) {
    const auto r = static_cast<std::size_t>(std::ceil(q * static_cast<double>(n) - 1e-9));
    return r == 0 ? 0 : std::min(n, r) - 1;
}

// Ranks of the steps drawn: all of them for short samples, else about `keep` at evenly spaced
// ranks plus min, max and the marked quantiles, so a million requests draw as a small file that
// still passes through every value a reader would look up. 150 steps are about 4 px apart across a
// chart; more only made a sweep of 16 runs of 600 requests a 1.3 MB report.
inline std::vector<std::size_t> ecdf_ranks(std::size_t n, std::size_t keep = 150) {
    std::vector<std::size_t> ranks;
    if (n == 0) return ranks;
    if (n <= keep) {
        for (std::size_t i = 0; i < n; ++i) ranks.push_back(i);
        return ranks;
    }
    for (std::size_t j = 0; j < keep; ++j) ranks.push_back(j * (n - 1) / (keep - 1));
    for (double q : ecdf_marked_fractions) ranks.push_back(rank_at(n, q));
    std::sort(ranks.begin(), ranks.end());
    ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
    return ranks;
}

// Staircase through the kept steps: across at the previous fraction, then up at each value.
inline std::string ecdf_points(const ranked_values& sorted, const scale& x, const scale& y) {
    const double n = static_cast<double>(sorted.size());
    std::string points = px(x(sorted.front())) + "," + px(y(0));
    double below = 0;
    for (std::size_t r : ecdf_ranks(sorted.size())) {
        const double fraction = static_cast<double>(r + 1) / n;
        const std::string at = px(x(sorted[r]));
        points.append(" ").append(at).append(",").append(px(y(below)));
        points.append(" ").append(at).append(",").append(px(y(fraction)));
        below = fraction;
    }
    return points;
}

} // namespace detail

struct ecdf_options {
    // The series to colour (indices into the series); empty: every series while they fit the
    // palette, else picked_series (first, last, evenly spaced). The rest are drawn thin and light
    // grey underneath, with one legend entry.
    std::vector<std::size_t> highlight;
    std::string others_name; // the grey entry's noun, e.g. "other levels"; empty: "other series"
    // How many values each series stands for where its values are quantiles of a larger sample (a
    // sketch's), so a tooltip gives the sample's size; empty or 0: the values' own count.
    std::vector<std::size_t> stands_for;
};

namespace detail {

// The quantiles a reader looks up, marked on each coloured curve with their values as tooltips.
inline constexpr double ecdf_marker_fractions[] = {0.5, 0.9, 0.99};

// Name, size, range and the marked quantiles: hovering a curve (even a grey one) tells what it is.
inline std::string ecdf_tooltip(const std::string& name, const ranked_values& v, const scale& x, std::size_t count = 0) {
    std::string out = fmt::format("{}: {} values from {} to {}", name, count > 0 ? count : v.size(), x.label(v.front()),
                                  x.label(v.back()));
    for (double q : ecdf_marker_fractions)
        out += fmt::format("{} p{} {}", q == ecdf_marker_fractions[0] ? ";" : ",", fixed(q * 100),
                           x.label(v[rank_at(v.size(), q)]));
    return out;
}

} // namespace detail

// Every rank an ECDF of n finite values reads: the steps drawn, the maximum, the marked quantiles.
inline std::vector<std::size_t> ecdf_chart_ranks(std::size_t n) {
    std::vector<std::size_t> ranks = detail::ecdf_ranks(n);
    if (n > 0) {
        ranks.push_back(n - 1);
        for (double q : detail::ecdf_marker_fractions) ranks.push_back(detail::rank_at(n, q));
    }
    return ranks;
}

inline std::string ecdf_chart(std::span<const ranked_series> series, const chart_labels& labels,
                              const ecdf_options& options) {
    frame f(labels);
    detail::range r;
    for (const auto& s : series)
        if (!s.values.empty()) r.add(s.values.front()), r.add(s.values.back());
    if (!r.any) {
        f.no_data();
        return std::move(f).finish();
    }
    const bool log = spans_decades(r.lo, r.hi);
    const scale x = f.x_scale(log ? r.lo : std::min(0.0, r.lo), r.hi, log);
    const scale y = f.y_scale(0, 1);
    f.x_axis(x);
    f.y_axis(y);
    const auto looks = detail::series_looks(series.size(), options.highlight);
    const auto stands_for = [&](std::size_t i) { return i < options.stands_for.size() ? options.stands_for[i] : 0; };
    std::string grey_names;
    for (std::size_t i = 0; i < series.size(); ++i) { // grey first: the coloured curves stay on top
        if (looks[i].coloured()) continue;
        grey_names.append(grey_names.empty() ? "" : ", ").append(series[i].name);
        if (!series[i].values.empty())
            f.svg.polyline(detail::ecdf_points(series[i].values, x, y), other_colour, 1,
                           detail::ecdf_tooltip(series[i].name, series[i].values, x, stands_for(i)));
    }
    std::vector<legend_entry> legend;
    for (std::size_t i = 0; i < series.size(); ++i) {
        if (!looks[i].coloured()) continue;
        const std::string colour = looks[i].colour();
        legend.push_back({series[i].name, colour, legend_mark::line, {}, {}});
        const auto& v = series[i].values;
        if (v.empty()) continue;
        f.svg.polyline(detail::ecdf_points(v, x, y), colour, 2, detail::ecdf_tooltip(series[i].name, v, x, stands_for(i)));
        for (double q : detail::ecdf_marker_fractions) {
            const double value = v[detail::rank_at(v.size(), q)];
            f.svg.circle(x(value), y(q), 3, colour,
                         fmt::format("{}: {}% of requests at or below {} ({})", series[i].name, fixed(q * 100),
                                     x.label(value), exact(value)));
        }
    }
    if (const auto grey = detail::grey_count(looks); grey > 0)
        legend.push_back({detail::others_legend_name(grey, options.others_name), other_colour, legend_mark::thin_line, {},
                          grey_names});
    f.legend(legend);
    return std::move(f).finish();
}

inline std::string ecdf_chart(std::span<const named_values> series, const chart_labels& labels,
                              const ecdf_options& options) {
    return ecdf_chart(rank_series(series, ecdf_chart_ranks), labels, options);
}

inline std::string ecdf_chart(std::span<const named_values> series, const chart_labels& labels) {
    return ecdf_chart(series, labels, ecdf_options{});
}

inline std::string ecdf_chart(std::span<const ranked_series> series, const chart_labels& labels) {
    return ecdf_chart(series, labels, ecdf_options{});
}

} // namespace servestat::plot
