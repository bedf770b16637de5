// Scatter of requests (latency against a size), with an optional least-squares line.
#pragma once

#include <algorithm> // std::clamp, std::max, std::min
#include <cmath>     // std::isfinite, std::fabs, std::log10, std::floor
#include <cstddef>   // std::size_t
#include <optional>  // std::optional
#include <span>      // std::span
#include <string>    // std::string
#include <utility>   // std::move, std::pair
#include <vector>    // std::vector

#include <fmt/format.h> // fmt::format

#include "servestat/plot/chart.hpp"       // frame
#include "servestat/plot/data.hpp"        // named_points, chart_labels
#include "servestat/plot/highlight.hpp"   // series_looks, other_colour
#include "servestat/stats/linear_fit.hpp" // linear_fit, least_squares_from, pair_sums

namespace servestat::plot {

using servestat::least_squares;
using servestat::least_squares_from;
using servestat::pair_sums;
using servestat::linear_fit;

namespace detail {

// Three significant digits without an exponent: slopes per token are often 0.0001 s.
inline std::string significant(double v) {
    if (v == 0 || !std::isfinite(v)) return "0";
    const int magnitude = static_cast<int>(std::floor(std::log10(std::fabs(v))));
    return fixed(v, std::clamp(2 - magnitude, 0, 12));
}

inline std::string equation(const linear_fit& fit) {
    return fmt::format("y = {}·x {} {}", significant(fit.slope), fit.intercept < 0 ? "−" : "+",
                       significant(std::fabs(fit.intercept)));
}

// The fit's segment across the x domain, cut where it leaves the y domain so it stays inside the frame.
inline std::optional<std::pair<double, double>> fit_span(const linear_fit& fit, const scale& x, const scale& y) {
    double from = x.domain_lo(), to = x.domain_hi();
    if (fit.slope != 0) {
        const double a = (y.domain_lo() - fit.intercept) / fit.slope, b = (y.domain_hi() - fit.intercept) / fit.slope;
        from = std::max(from, std::min(a, b));
        to = std::min(to, std::max(a, b));
    } else if (fit.intercept < y.domain_lo() || fit.intercept > y.domain_hi()) {
        return std::nullopt;
    }
    if (!(from < to)) return std::nullopt;
    return std::pair{from, to};
}

// Every k-th point, so a million requests stay about `keep` dots; deterministic, unlike sampling.
inline std::size_t stride_for(std::size_t n, std::size_t keep) { return std::max<std::size_t>(1, (n + keep - 1) / keep); }

} // namespace detail

// A series as a scatter draws it: every stride_for(n, kept)-th of its n finite pairs, the range of
// all of them and, when a fit line is drawn, their least-squares fit. Thinned before it is drawn, so
// the millions of pairs of a large run need not be held to be drawn.
struct thinned_points {
    std::string name;
    std::size_t pairs = 0;     // visited, finite or not
    std::size_t n = 0;         // finite: the ones drawn, counted and fitted
    detail::range x_range, y_range;
    std::vector<double> x, y;  // the pairs drawn
    std::optional<linear_fit> fit;
};

inline constexpr std::size_t scatter_dots_kept = 2000;

// for_each_pair(visit) calls visit(x, y) for every pair, in the same order each time (it is called
// twice). Pairs where either coordinate is not finite are left out: a fit over NaN would be NaN.
// The first pass counts, measures and sums; the second picks the dots and, with `fit`, finishes
// the fit.
template <class ForEachPair>
thinned_points thin_points(std::string name, ForEachPair for_each_pair, bool fit) {
    thinned_points out;
    out.name = std::move(name);
    pair_sums sums;
    for_each_pair([&](double x, double y) {
        ++out.pairs;
        if (!std::isfinite(x) || !std::isfinite(y)) return;
        out.x_range.add(x);
        out.y_range.add(y);
        sums.add(x, y);
    });
    out.n = sums.n;
    const std::size_t stride = detail::stride_for(out.n, scatter_dots_kept);
    std::size_t k = 0;
    const auto picking_finite = [&](auto&& visit) {
        for_each_pair([&](double x, double y) {
            if (!std::isfinite(x) || !std::isfinite(y)) return;
            if (k++ % stride == 0) {
                out.x.push_back(x);
                out.y.push_back(y);
            }
            visit(x, y);
        });
    };
    const bool fit_reads_pairs = fit && sums.n >= 2; // least_squares_from reads none with fewer than two
    if (fit) out.fit = least_squares_from(sums, picking_finite);
    if (!fit_reads_pairs) picking_finite([](double, double) {});
    return out;
}

struct scatter_options {
    bool fit_line = false; // a least-squares line per coloured series, its equation and r² in the legend
    // The series to colour (indices into the series); empty: every series while they fit the
    // palette, else picked_series (first, last, evenly spaced). The rest are drawn as small light grey
    // dots underneath, under one legend entry.
    std::vector<std::size_t> highlight;
    std::string others_name; // the grey entry's noun, e.g. "other runs"; empty: "other series"
};

// Series thinned by thin_points, with their fits where options.fit_line and they are coloured.
inline std::string scatter_chart(std::span<const thinned_points> series, const chart_labels& labels,
                                 const scatter_options& options) {
    frame f(labels);
    detail::range xr, yr; // axes from zero (or below) to the largest value drawn
    for (const auto& s : series) {
        if (s.x_range.any) xr.add(s.x_range.lo), xr.add(s.x_range.hi);
        if (s.y_range.any) yr.add(s.y_range.lo), yr.add(s.y_range.hi);
    }
    if (!xr.any) {
        f.no_data();
        return std::move(f).finish();
    }
    const scale x = f.x_scale(std::min(0.0, xr.lo), xr.hi), y = f.y_scale(std::min(0.0, yr.lo), yr.hi);
    f.x_axis(x);
    f.y_axis(y);
    const auto looks = detail::series_looks(series.size(), options.highlight);
    const auto dots = [&](const thinned_points& s, const std::string& colour, double r) {
        for (std::size_t k = 0; k < s.x.size(); ++k)
            f.svg.circle(x(s.x[k]), y(s.y[k]), r, colour, fmt::format("{}: x {}, y {}", s.name, exact(s.x[k]), exact(s.y[k])));
    };
    std::string grey_names;
    for (std::size_t i = 0; i < series.size(); ++i) // grey first, underneath
        if (!looks[i].coloured()) {
            dots(series[i], other_colour, 1.5);
            grey_names.append(grey_names.empty() ? "" : ", ").append(series[i].name);
        }
    std::vector<legend_entry> legend;
    for (std::size_t i = 0; i < series.size(); ++i) {
        if (!looks[i].coloured()) continue;
        const auto& s = series[i];
        const std::string colour = looks[i].colour();
        dots(s, colour, 2.5);
        legend.push_back({fmt::format("{} (n={})", s.name, s.n), colour, legend_mark::box, {}, {}});
        if (!options.fit_line) continue;
        const auto& fit = s.fit;
        if (!fit) continue;
        if (const auto span = detail::fit_span(*fit, x, y)) {
            const auto [from, to] = *span;
            f.svg.line(x(from), y(fit->intercept + fit->slope * from), x(to), y(fit->intercept + fit->slope * to), colour,
                       2, "6 3");
        }
        legend.push_back({"least-squares fit", colour, legend_mark::dashed_line,
                          {detail::equation(*fit), fmt::format("r² = {}", fixed(fit->r_squared, 3))}, {}});
    }
    if (const auto grey = detail::grey_count(looks); grey > 0)
        legend.push_back({detail::others_legend_name(grey, options.others_name), other_colour, legend_mark::box, {}, grey_names});
    f.legend(legend);
    return std::move(f).finish();
}

inline std::string scatter_chart(std::span<const named_points> series, const chart_labels& labels,
                                 const scatter_options& options) {
    const auto looks = detail::series_looks(series.size(), options.highlight);
    std::vector<thinned_points> thinned;
    thinned.reserve(series.size());
    for (std::size_t i = 0; i < series.size(); ++i) {
        const auto& s = series[i];
        const std::size_t n = std::min(s.x.size(), s.y.size());
        const auto pairs = [&](auto&& visit) {
            for (std::size_t k = 0; k < n; ++k) visit(s.x[k], s.y[k]);
        };
        thinned.push_back(thin_points(s.name, pairs, options.fit_line && looks[i].coloured()));
    }
    return scatter_chart(thinned, labels, options);
}

inline std::string scatter_chart(std::span<const thinned_points> series, const chart_labels& labels, bool fit_line) {
    return scatter_chart(series, labels, scatter_options{.fit_line = fit_line});
}

inline std::string scatter_chart(std::span<const named_points> series, const chart_labels& labels, bool fit_line) {
    return scatter_chart(series, labels, scatter_options{.fit_line = fit_line});
}

} // namespace servestat::plot
