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
#include "servestat/stats/linear_fit.hpp" // linear_fit, least_squares

namespace servestat::plot {

using servestat::least_squares;
using servestat::linear_fit;

namespace detail {

// Pairs where both coordinates are finite: a fit over NaN would be NaN.
inline named_points finite_pairs(const named_points& s) {
    named_points out{s.name, {}, {}};
    const std::size_t n = std::min(s.x.size(), s.y.size());
    for (std::size_t i = 0; i < n; ++i)
        if (std::isfinite(s.x[i]) && std::isfinite(s.y[i])) {
            out.x.push_back(s.x[i]);
            out.y.push_back(s.y[i]);
        }
    return out;
}

inline std::vector<named_points> finite_series(std::span<const named_points> series) {
    std::vector<named_points> out;
    for (const auto& s : series) out.push_back(finite_pairs(s));
    return out;
}

// Axes from zero (or below) to the largest value, drawn; empty (and "no data" shown) without points.
inline std::optional<std::pair<scale, scale>> point_axes(frame& f, const std::vector<named_points>& series) {
    range xr, yr;
    for (const auto& s : series) {
        for (double v : s.x) xr.add(v);
        for (double v : s.y) yr.add(v);
    }
    if (!xr.any) {
        f.no_data();
        return std::nullopt;
    }
    std::pair<scale, scale> axes{f.x_scale(std::min(0.0, xr.lo), xr.hi), f.y_scale(std::min(0.0, yr.lo), yr.hi)};
    f.x_axis(axes.first);
    f.y_axis(axes.second);
    return axes;
}

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

struct scatter_options {
    bool fit_line = false; // a least-squares line per coloured series, its equation and r² in the legend
    // The series to colour (indices into the series); empty: every series while they fit the
    // palette, else picked_series (first, last, evenly spaced). The rest are drawn as small light grey
    // dots underneath, under one legend entry.
    std::vector<std::size_t> highlight;
    std::string others_name; // the grey entry's noun, e.g. "other runs"; empty: "other series"
};

inline std::string scatter_chart(std::span<const named_points> series, const chart_labels& labels,
                                 const scatter_options& options) {
    frame f(labels);
    const auto clean = detail::finite_series(series);
    const auto axes = detail::point_axes(f, clean);
    if (!axes) return std::move(f).finish();
    // Named references, not a structured binding: clang 14 (the fuzz build; Debian 12's clang) cannot
    // capture a binding in a lambda.
    const scale& x = axes->first;
    const scale& y = axes->second;
    const auto looks = detail::series_looks(clean.size(), options.highlight);
    const auto dots = [&](const named_points& s, const std::string& colour, double r) {
        const std::size_t stride = detail::stride_for(s.x.size(), 2000);
        for (std::size_t k = 0; k < s.x.size(); k += stride)
            f.svg.circle(x(s.x[k]), y(s.y[k]), r, colour, fmt::format("{}: x {}, y {}", s.name, exact(s.x[k]), exact(s.y[k])));
    };
    std::string grey_names;
    for (std::size_t i = 0; i < clean.size(); ++i) // grey first, underneath
        if (!looks[i].coloured()) {
            dots(clean[i], other_colour, 1.5);
            grey_names.append(grey_names.empty() ? "" : ", ").append(clean[i].name);
        }
    std::vector<legend_entry> legend;
    for (std::size_t i = 0; i < clean.size(); ++i) {
        if (!looks[i].coloured()) continue;
        const auto& s = clean[i];
        const std::string colour = looks[i].colour();
        dots(s, colour, 2.5);
        legend.push_back({fmt::format("{} (n={})", s.name, s.x.size()), colour, legend_mark::box, {}, {}});
        if (!options.fit_line) continue;
        const auto fit = least_squares(s.x, s.y);
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

inline std::string scatter_chart(std::span<const named_points> series, const chart_labels& labels, bool fit_line) {
    return scatter_chart(series, labels, scatter_options{.fit_line = fit_line});
}

} // namespace servestat::plot
