// Series of (x, y) joined by lines with point markers: a sweep's p99 against requests per second with
// each point's concurrency written beside it, throughput against concurrency on a log axis, the knee
// marked, an SLO drawn across; and, with no options, the timeline of one run.
#pragma once

#include <algorithm>   // std::any_of, std::min, std::sort, std::unique
#include <cmath>       // std::isfinite
#include <cstddef>     // std::size_t
#include <limits>      // std::numeric_limits
#include <optional>    // std::optional
#include <span>        // std::span
#include <string>      // std::string
#include <string_view> // std::string_view
#include <utility>     // std::move, std::pair
#include <vector>      // std::vector

#include <fmt/format.h> // fmt::format

#include "servestat/plot/chart.hpp"   // frame, legend_entry, detail::range, detail::diamond_points, detail::text_width
#include "servestat/plot/data.hpp"    // named_points, chart_labels
#include "servestat/plot/scatter.hpp" // detail::stride_for

namespace servestat::plot {

// A point singled out, e.g. {16, 2.4, "knee c=16"}: a diamond, a dashed vertical guide through it
// and its label at the top of the guide; listed in the legend.
struct marked_point {
    double x = 0, y = 0;
    std::string label;
};

// A level across the whole plot, e.g. {5, "p99 ≤ 5 s"}: dashed, labelled at its right end, listed
// in the legend. It widens the y axis to stay in view, so the distance to an SLO shows.
struct reference_line {
    double y = 0;
    std::string label;
};

struct line_options {
    // A log10 x axis, for levels that double (concurrency 1, 2, 4 … 64). Its ticks sit at the data's
    // own x values when there are at most 16 distinct ones whose labels do not overlap, so every
    // level a sweep ran is labelled as it was run, and then the axis spans just the data (first and
    // last level 24 px inside the frame); otherwise at 1, 2, 5 × 10^k over whole decades. When some
    // x is not positive the axis stays linear and a note under it says why.
    bool log_x = false;
    // point_labels[i][k] is written beside point k of series i (e.g. "c=16"), where it covers no
    // marker, line of a mark or reference, or other label; one with no free place is left out (the
    // point's tooltip still ends with it). Missing or empty: none.
    std::vector<std::vector<std::string>> point_labels;
    std::vector<marked_point> marks;
    std::vector<reference_line> references;
    double marker_radius = 3.5;
};

namespace detail {

inline constexpr const char* mark_colour = "#000000";
inline constexpr const char* reference_colour = "#444444";
// Above this many distinct x values a log axis falls back to 1-2-5 ticks.
inline constexpr std::size_t most_data_ticks = 16;

struct line_point {
    double x, y;
    std::string_view label;
};

// The finite points of each series with their labels; a non-finite coordinate drops its point only,
// so the labels of the others stay with their points.
inline std::vector<std::vector<line_point>> line_points(std::span<const named_points> series, const line_options& o) {
    std::vector<std::vector<line_point>> out;
    for (std::size_t i = 0; i < series.size(); ++i) {
        const auto& s = series[i];
        const auto* labels = i < o.point_labels.size() ? &o.point_labels[i] : nullptr;
        auto& points = out.emplace_back();
        for (std::size_t k = 0; k < std::min(s.x.size(), s.y.size()); ++k)
            if (std::isfinite(s.x[k]) && std::isfinite(s.y[k]))
                points.push_back({s.x[k], s.y[k], labels && k < labels->size() ? std::string_view((*labels)[k]) : ""});
    }
    return out;
}

// Ticks at the distinct x values of the data, or none when there are too many or two labels overlap.
inline std::optional<std::vector<tick>> data_ticks(const std::vector<std::vector<line_point>>& points, const scale& x) {
    std::vector<double> xs;
    for (const auto& s : points)
        for (const auto& p : s) xs.push_back(p.x);
    std::sort(xs.begin(), xs.end());
    xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
    if (xs.size() > most_data_ticks) return std::nullopt;
    std::vector<tick> out;
    double free_from = -std::numeric_limits<double>::infinity();
    for (double v : xs) {
        tick t{v, x.label(v)};
        const double half = text_width(t.label) / 2 + 3;
        if (x(v) - half < free_from) return std::nullopt;
        free_from = x(v) + half;
        out.push_back(std::move(t));
    }
    return out;
}

// A log x scale with the data's first and last level `pad` px inside the plot, for ticks at the
// levels themselves: the decades an ordinary log scale widens to (1 to 1000 for 1 … 256) would leave
// up to a third of the plot empty. None for a single level.
inline std::optional<scale> tight_log_scale(const frame& f, double lo, double hi) {
    constexpr double pad = 24, width = frame::plot_right - frame::plot_left;
    if (!(hi > lo)) return std::nullopt;
    // The ordinary scale's transform, stretched and shifted so that lo and hi land on the padded ends.
    const scale wide = f.x_scale(lo, hi, true);
    const double at_lo = (wide(lo) - frame::plot_left) / width, at_hi = (wide(hi) - frame::plot_left) / width;
    const double span = (width - 2 * pad) / (at_hi - at_lo), start = frame::plot_left + pad - at_lo * span;
    return scale(lo, hi, start, start + span, true, f.x_unit);
}

// The x axis over [lo, hi], drawn: on a log axis at the data's levels where they can be labelled.
inline scale x_axis_for(frame& f, const std::vector<std::vector<line_point>>& points, double lo, double hi, bool log) {
    if (log)
        if (auto tight = tight_log_scale(f, lo, hi))
            if (const auto ticks = data_ticks(points, *tight)) {
                f.x_axis(*tight, *ticks);
                return *tight;
            }
    const scale x = f.x_scale(lo, hi, log);
    f.x_axis(x);
    return x;
}

// Axes over the points, the marks and the reference levels, from zero (or below) unless log; drawn.
// Empty, with "no data" shown, when there is no point.
inline std::optional<std::pair<scale, scale>> line_axes(frame& f, const std::vector<std::vector<line_point>>& points,
                                                        const line_options& o) {
    range xr, yr;
    for (const auto& s : points)
        for (const auto& p : s) xr.add(p.x), yr.add(p.y);
    if (!xr.any) {
        f.no_data();
        return std::nullopt;
    }
    for (const auto& m : o.marks)
        if (std::isfinite(m.x) && std::isfinite(m.y)) xr.add(m.x), yr.add(m.y);
    for (const auto& r : o.references) yr.add(r.y);
    const bool log = o.log_x && xr.lo > 0;
    if (o.log_x && !log) f.note("linear x axis: some x values are 0 or below, which a log axis cannot show");
    scale x = x_axis_for(f, points, log ? xr.lo : std::min(0.0, xr.lo), xr.hi, log);
    const scale y = f.y_scale(std::min(0.0, yr.lo), yr.hi);
    f.y_axis(y);
    return std::pair{std::move(x), y};
}

// A point's x in its tooltip: on a seconds axis as the ticks read ("1.5 s"); otherwise the exact
// number, since a plain axis' tick precision ("6" for 5.6 requests/s) would hide the value.
inline std::string x_text(const scale& x, double v) { return x.unit() == axis_unit::seconds ? x.label(v) : exact(v); }

inline std::string polyline_points(const std::vector<line_point>& points, const scale& x, const scale& y) {
    std::string out;
    for (const auto& p : points) {
        if (!out.empty()) out += ' ';
        out.append(px(x(p.x))).append(",").append(px(y(p.y)));
    }
    return out;
}

// A pixel rectangle something is drawn on (a marker, a label, a dashed line); point labels go
// where they cover none of them.
struct box {
    double x0, y0, x1, y1;
    bool overlaps(const box& o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
    bool inside_plot() const {
        return x0 >= frame::plot_left && x1 <= frame::plot_right && y0 >= frame::plot_top && y1 <= frame::plot_bottom;
    }
};

inline box around(double x, double y, double r) { return {x - r, y - r, x + r, y + r}; }

// Text of `size` px with its baseline at y, starting at x or (end_anchored) ending there.
inline box text_box(double x, double y, std::string_view text, int size, bool end_anchored) {
    const double w = text_width(text, size);
    return {end_anchored ? x - w : x, y - 0.8 * size, end_anchored ? x : x + w, y + 0.2 * size};
}

// Beside its point where it covers no marker, mark or other label and stays in the plot: upper left
// first (clear of a rising curve's segments), then lower right, upper right, lower left. A label
// with no free place is left out; the point's tooltip still carries it.
inline void point_label(frame& f, std::vector<box>& taken, double at_x, double at_y, double radius,
                        std::string_view label) {
    constexpr int size = 11;
    const double gap = radius + 2, below = gap + 0.8 * size;
    struct place {
        double dx, dy;
        bool end_anchored;
    };
    const place places[] = {{-gap, -gap, true}, {gap, below, false}, {gap, -gap, false}, {-gap, below, true}};
    for (const place& p : places) {
        box b = text_box(at_x + p.dx, at_y + p.dy, label, size, p.end_anchored);
        if (!b.inside_plot()) continue;
        b = {b.x0 - 2, b.y0 - 1, b.x1 + 2, b.y1 + 1}; // a little air between neighbouring labels
        if (std::any_of(taken.begin(), taken.end(), [&](const box& t) { return t.overlaps(b); })) continue;
        taken.push_back(b);
        f.svg.text(at_x + p.dx, at_y + p.dy, label,
                   {.anchor = p.end_anchored ? "end" : "start", .size = size, .fill = "#333333"});
        return;
    }
}

inline void draw_line_series(frame& f, std::vector<box>& taken, const scale& x, const scale& y, const std::string& name,
                             const std::vector<line_point>& points, std::size_t index, double radius) {
    if (points.empty()) return;
    f.svg.polyline(polyline_points(points, x, y), series_colour(index), 2);
    // The line keeps every point; only the hover targets are thinned, at most ~500 per series.
    const std::size_t stride = stride_for(points.size(), 500);
    for (std::size_t k = 0; k < points.size(); k += stride) {
        const auto& p = points[k];
        std::string tooltip = fmt::format("{} at {}: {} ({})", name, x_text(x, p.x), y.label(p.y), exact(p.y));
        if (!p.label.empty()) tooltip.append(", ").append(p.label);
        f.svg.circle(x(p.x), y(p.y), radius, series_colour(index), tooltip);
        taken.push_back(around(x(p.x), y(p.y), radius));
    }
}

inline void draw_reference(frame& f, std::vector<box>& taken, const scale& y, const reference_line& r) {
    const double at = y(r.y);
    f.svg.polyline(fmt::format("{},{} {},{}", px(frame::plot_left), px(at), px(frame::plot_right), px(at)),
                   reference_colour, 1.5, fmt::format("{}: {} ({})", r.label, y.label(r.y), exact(r.y)), "6 3");
    f.svg.text(frame::plot_right - 4, at - 5, r.label, {.anchor = "end", .fill = reference_colour});
    taken.push_back({frame::plot_left, at - 1, frame::plot_right, at + 1});
    taken.push_back(text_box(frame::plot_right - 4, at - 5, r.label, 12, true));
}

// The guide spans the plot's height so the mark's x reads off the axis; labels of several marks
// step down so they do not overprint.
inline void draw_mark(frame& f, std::vector<box>& taken, const scale& x, const scale& y, const marked_point& m,
                      std::size_t index) {
    const double at_x = x(m.x), at_y = y(m.y), label_y = frame::plot_top + 14 + 16 * static_cast<double>(index);
    f.svg.line(at_x, frame::plot_top, at_x, frame::plot_bottom, mark_colour, 1.2, "4 3");
    f.svg.polyline(diamond_points(at_x, at_y, 7), mark_colour, 2,
                   fmt::format("{}: x {}, y {} ({})", m.label, x_text(x, m.x), y.label(m.y), exact(m.y)));
    const bool left = at_x + 5 + text_width(m.label) > frame::plot_right;
    f.svg.text(left ? at_x - 5 : at_x + 5, label_y, m.label,
               {.anchor = left ? "end" : "start", .bold = true, .fill = mark_colour});
    taken.push_back({at_x - 1, frame::plot_top, at_x + 1, frame::plot_bottom});
    taken.push_back(around(at_x, at_y, 7));
    taken.push_back(text_box(left ? at_x - 5 : at_x + 5, label_y, m.label, 12, left));
}

} // namespace detail

inline std::string line_chart(std::span<const named_points> series, const chart_labels& labels,
                              const line_options& options) {
    frame f(labels);
    const auto points = detail::line_points(series, options);
    const auto axes = detail::line_axes(f, points, options);
    if (!axes) return std::move(f).finish();
    const auto& [x, y] = *axes;
    std::vector<std::string> names;
    for (const auto& s : series) names.push_back(s.name);
    auto legend = frame::palette_entries(names, legend_mark::line);
    std::vector<detail::box> taken;
    for (const auto& r : options.references) {
        if (!std::isfinite(r.y)) continue;
        detail::draw_reference(f, taken, y, r);
        legend.push_back({r.label, detail::reference_colour, legend_mark::dashed_line, {}});
    }
    for (std::size_t i = 0; i < points.size(); ++i)
        detail::draw_line_series(f, taken, x, y, series[i].name, points[i], i, options.marker_radius);
    std::size_t drawn = 0;
    for (const auto& m : options.marks) {
        if (!std::isfinite(m.x) || !std::isfinite(m.y)) continue;
        detail::draw_mark(f, taken, x, y, m, drawn++);
        legend.push_back({m.label, detail::mark_colour, legend_mark::diamond, {}});
    }
    // Last, so they find the places nothing else took.
    for (const auto& s : points)
        for (const auto& p : s)
            if (!p.label.empty()) detail::point_label(f, taken, x(p.x), y(p.y), options.marker_radius, p.label);
    f.legend(legend);
    return std::move(f).finish();
}

} // namespace servestat::plot
