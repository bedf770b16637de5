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

#include "servestat/plot/chart.hpp"   // frame, legend_entry, detail::range, detail::box, detail::text_box
#include "servestat/plot/highlight.hpp" // series_looks, other_colour
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

// A shaded interval around one series, e.g. the 95% confidence interval of each run's p99: drawn
// in the series' colour, faint, under the lines; the y axis widens to keep it in view. A point whose
// ends are not finite (NaN: a level too small for an interval) breaks the band there; a lone point
// between breaks is drawn as a bar from low to high.
struct band {
    std::size_t series = 0; // index of the series it belongs to
    std::vector<double> x, low, high;
    // Legend entry, e.g. "shaded: 95% confidence interval"; bands with one label share one entry
    // (in their colour, or neutral grey when their colours differ).
    std::string label;
    std::string tooltip; // e.g. "e2e p99: 95% confidence interval"; empty: the label
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
    std::vector<band> bands;
    double marker_radius = 3.5;
    // The series to colour (indices into the series); empty: every series while they fit the
    // palette, else picked_series (first, last, evenly spaced). The rest are drawn thin and light grey
    // underneath, without point labels (their tooltips keep them), under one legend entry.
    std::vector<std::size_t> highlight;
    std::string others_name; // the grey entry's noun, e.g. "other levels"; empty: "other series"
    // x positions that stand for something other than their number, labelled and named in
    // tooltips by their text: an unbounded rate drawn to the right of the last measured one,
    // "∞ (max)". The axis is labelled at the data's own x values then, these by their names.
    std::vector<tick> x_names;
    // A note under the x axis, e.g. where bands are missing and why; left out when the axis needs
    // that place for its own note (a log axis over values that are not all positive).
    std::string caption;
    // [lo, hi] the x axis covers at least (charts of one run over its whole time, side by side).
    std::optional<std::pair<double, double>> x_span;
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

inline const tick* named_x(const std::vector<tick>& names, double v) {
    for (const auto& t : names)
        if (t.value == v) return &t;
    return nullptr;
}

// Ticks at the distinct x values of the data, or none when there are too many or two labels overlap.
inline std::optional<std::vector<tick>> data_ticks(const std::vector<std::vector<line_point>>& points, const scale& x,
                                                   const std::vector<tick>& names = {}) {
    std::vector<double> xs;
    for (const auto& s : points)
        for (const auto& p : s) xs.push_back(p.x);
    std::sort(xs.begin(), xs.end());
    xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
    if (xs.size() > most_data_ticks) return std::nullopt;
    std::vector<tick> out;
    double free_from = -std::numeric_limits<double>::infinity();
    for (double v : xs) {
        const tick* named = named_x(names, v);
        tick t{v, named ? named->label : x.label(v)};
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
inline scale x_axis_for(frame& f, const std::vector<std::vector<line_point>>& points, double lo, double hi, bool log,
                        const std::vector<tick>& names) {
    if (log)
        if (auto tight = tight_log_scale(f, lo, hi))
            if (const auto ticks = data_ticks(points, *tight, names)) {
                f.x_axis(*tight, *ticks);
                return *tight;
            }
    const scale x = f.x_scale(lo, hi, log);
    if (names.empty()) {
        f.x_axis(x);
        return x;
    }
    if (const auto ticks = data_ticks(points, x, names)) {
        f.x_axis(x, *ticks);
        return x;
    }
    // Too many levels to label each: the ordinary ticks below the named positions, and those.
    std::vector<tick> ticks;
    double first_named = hi;
    for (const auto& n : names) first_named = std::min(first_named, n.value);
    for (auto& t : x.ticks())
        if (x(t.value) + text_width(t.label) / 2 + 6 < x(first_named) - text_width(named_x(names, first_named)->label) / 2)
            ticks.push_back(std::move(t));
    ticks.insert(ticks.end(), names.begin(), names.end());
    f.x_axis(x, ticks);
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
    if (o.x_span)
        for (const double v : {o.x_span->first, o.x_span->second})
            if (std::isfinite(v)) xr.add(v);
    for (const auto& r : o.references) yr.add(r.y);
    for (const auto& b : o.bands)
        for (std::size_t k = 0; k < b.x.size() && k < b.low.size() && k < b.high.size(); ++k)
            if (std::isfinite(b.x[k]) && std::isfinite(b.low[k]) && std::isfinite(b.high[k])) yr.add(b.low[k]), yr.add(b.high[k]);
    const bool log = o.log_x && xr.lo > 0;
    if (o.log_x && !log) f.note("linear x axis: some x values are 0 or below, which a log axis cannot show");
    else if (!o.caption.empty()) f.note(o.caption);
    scale x = x_axis_for(f, points, log ? xr.lo : std::min(0.0, xr.lo), xr.hi, log, o.x_names);
    const scale y = f.y_scale(std::min(0.0, yr.lo), yr.hi);
    f.y_axis(y);
    return std::pair{std::move(x), y};
}

// A point's x in its tooltip: on a seconds axis as the ticks read ("1.5 s"); otherwise the exact
// number, since a plain axis' tick precision ("6" for 5.6 requests/s) would hide the value.
inline std::string x_text(const scale& x, double v, const std::vector<tick>& names = {}) {
    if (const tick* named = named_x(names, v)) return named->label;
    return x.unit() == axis_unit::seconds ? x.label(v) : exact(v);
}

inline std::string polyline_points(const std::vector<line_point>& points, const scale& x, const scale& y) {
    std::string out;
    for (const auto& p : points) {
        if (!out.empty()) out += ' ';
        out.append(px(x(p.x))).append(",").append(px(y(p.y)));
    }
    return out;
}

inline bool inside_plot(const frame& f, const box& b) {
    return b.x0 >= frame::plot_left && b.x1 <= frame::plot_right && b.y0 >= f.plot_top() && b.y1 <= f.plot_bottom();
}

// Beside its point where it covers no marker, mark or other label and stays in the plot: upper left
// first (clear of a rising curve's segments), then lower right, upper right, lower left. A label
// with no free place is left out; the point's tooltip still carries it.
inline void point_label(frame& f, std::vector<box>& taken, double at_x, double at_y, double radius,
                        std::string_view label) {
    constexpr int size = 11;
    const double gap = radius + 2, below = gap + text_ascent_em * size;
    struct place {
        double dx, dy;
        std::string_view anchor;
    };
    const place places[] = {{-gap, -gap, "end"}, {gap, below, "start"}, {gap, -gap, "start"}, {-gap, below, "end"}};
    for (const place& p : places) {
        box b = text_box(at_x + p.dx, at_y + p.dy, label, size, p.anchor);
        if (!inside_plot(f, b)) continue;
        b = b.padded(2, 1); // a little air between neighbouring labels
        if (overlaps_any(taken, b)) continue;
        taken.push_back(b);
        f.svg.text(at_x + p.dx, at_y + p.dy, label, {.anchor = p.anchor, .size = size, .fill = "#333333"});
        return;
    }
}

// A coloured series: a 2 px line and a marker per point; a grey one: a 1 px line and small markers,
// which labels may cover. Every marker's tooltip gives the point's values and its label.
inline void draw_line_series(frame& f, std::vector<box>& taken, const scale& x, const scale& y, const std::string& name,
                             const std::vector<line_point>& points, const series_look& look, double radius,
                             const std::vector<tick>& x_names) {
    if (points.empty()) return;
    const std::string colour = look.colour();
    f.svg.polyline(polyline_points(points, x, y), colour, look.coloured() ? 2 : 1, name);
    const double r = look.coloured() ? radius : std::min(radius, 2.0);
    // The line keeps every point; only the hover targets are thinned, at most ~500 per series.
    const std::size_t stride = stride_for(points.size(), 500);
    for (std::size_t k = 0; k < points.size(); k += stride) {
        const auto& p = points[k];
        std::string tooltip = fmt::format("{} at {}: {} ({})", name, x_text(x, p.x, x_names), y.label(p.y), exact(p.y));
        if (!p.label.empty()) tooltip.append(", ").append(p.label);
        f.svg.circle(x(p.x), y(p.y), r, colour, tooltip);
        if (look.coloured()) taken.push_back(around(x(p.x), y(p.y), r));
    }
}

inline void draw_reference(frame& f, std::vector<box>& taken, const scale& y, const reference_line& r) {
    const double at = y(r.y);
    f.svg.polyline(fmt::format("{},{} {},{}", px(frame::plot_left), px(at), px(frame::plot_right), px(at)),
                   reference_colour, 1.5, fmt::format("{}: {} ({})", r.label, y.label(r.y), exact(r.y)), "6 3");
    taken.push_back({frame::plot_left, at - 1, frame::plot_right, at + 1});
    // Above the line at its right end, below it where that is taken (another reference's label).
    const std::string shown = shorten_middle(r.label, frame::plot_right - frame::plot_left - 8);
    for (const double dy : {-5.0, 5 + text_ascent_em * 12}) {
        const box b = text_box(frame::plot_right - 4, at + dy, shown, 12, "end");
        if (overlaps_any(taken, b) || !inside_plot(f, b)) continue;
        f.svg.text(frame::plot_right - 4, at + dy, shown, {.anchor = "end", .fill = reference_colour},
                   tooltip_if(shown != r.label, r.label));
        taken.push_back(b);
        return;
    }
}

// The guide spans the plot's height so the mark's x reads off the axis; labels of several marks
// step down from the plot's top, right of the guide or else left of it, until they cover nothing drawn
// before (a label with no free place is left out: the legend and the diamond's tooltip have it).
// Whether the segment from (x1, y1) to (x2, y2) passes through the box (Liang–Barsky clipping).
inline bool crosses(const box& b, double x1, double y1, double x2, double y2) {
    const double dx = x2 - x1, dy = y2 - y1;
    double t0 = 0, t1 = 1;
    for (const auto& [p, q] : {std::pair{-dx, x1 - b.x0}, std::pair{dx, b.x1 - x1}, std::pair{-dy, y1 - b.y0},
                               std::pair{dy, b.y1 - y1}}) {
        if (p == 0) {
            if (q < 0) return false;
            continue;
        }
        const double r = q / p;
        if (p < 0) t0 = std::max(t0, r);
        else t1 = std::min(t1, r);
        if (t0 > t1) return false;
    }
    return true;
}

struct segment {
    double x1, y1, x2, y2;
};

// The coloured series' lines in pixels: a mark's label keeps off them where it can.
inline std::vector<segment> line_segments(const std::vector<std::vector<line_point>>& points,
                                          const std::vector<series_look>& looks, const scale& x, const scale& y) {
    std::vector<segment> out;
    for (std::size_t i = 0; i < points.size(); ++i)
        if (looks[i].coloured())
            for (std::size_t k = 1; k < points[i].size(); ++k)
                out.push_back({x(points[i][k - 1].x), y(points[i][k - 1].y), x(points[i][k].x), y(points[i][k].y)});
    return out;
}

inline void draw_mark(frame& f, std::vector<box>& taken, const std::vector<segment>& lines, const scale& x,
                      const scale& y, const marked_point& m, const std::vector<tick>& x_names) {
    const double at_x = x(m.x), at_y = y(m.y);
    f.svg.line(at_x, f.plot_top(), at_x, f.plot_bottom(), mark_colour, 1.2, "4 3");
    f.svg.polyline(diamond_points(at_x, at_y, 7), mark_colour, 2,
                   fmt::format("{}: x {}, y {} ({})", m.label, x_text(x, m.x, x_names), y.label(m.y), exact(m.y)));
    const std::string shown = shorten_middle(m.label, (frame::plot_right - frame::plot_left) / 2, {12, true});
    const auto on_a_line = [&](const box& b) {
        return std::any_of(lines.begin(), lines.end(), [&](const segment& s) { return crosses(b, s.x1, s.y1, s.x2, s.y2); });
    };
    // Right of the guide, else left of it, from the top down; clear of the series' lines where
    // possible, else at least clear of every other text and mark.
    const auto place = [&](bool avoid_lines) {
        for (double label_y = f.plot_top() + 14; label_y < f.plot_bottom(); label_y += 16)
            for (const bool left : {false, true}) {
                const double label_x = left ? at_x - 5 : at_x + 5;
                const std::string_view anchor = left ? "end" : "start";
                const box b = text_box(label_x, label_y, shown, 12, anchor, true);
                if (overlaps_any(taken, b) || !inside_plot(f, b) || (avoid_lines && on_a_line(b))) continue;
                f.svg.text(label_x, label_y, shown, {.anchor = anchor, .bold = true, .fill = mark_colour},
                           tooltip_if(shown != m.label, m.label));
                taken.push_back(b);
                return true;
            }
        return false;
    };
    if (!place(true)) place(false);
    taken.push_back({at_x - 1, f.plot_top(), at_x + 1, f.plot_bottom()});
    taken.push_back(around(at_x, at_y, 7));
}

} // namespace detail

namespace detail {

inline constexpr double band_opacity = 0.18;

// The runs of consecutive points where both ends are known: a point without them ends a run, so
// the band breaks there instead of bridging a level that has no interval.
inline std::vector<std::vector<std::size_t>> band_runs(const band& b) {
    std::vector<std::vector<std::size_t>> out(1);
    for (std::size_t k = 0; k < b.x.size() && k < b.low.size() && k < b.high.size(); ++k) {
        if (std::isfinite(b.x[k]) && std::isfinite(b.low[k]) && std::isfinite(b.high[k])) out.back().push_back(k);
        else if (!out.back().empty()) out.emplace_back();
    }
    if (out.back().empty()) out.pop_back();
    return out;
}

// Each run of the band as one closed polygon (upper edge left to right, lower edge back), a lone
// point as a bar 6 px wide; false when nothing is drawn.
inline bool draw_band(frame& f, const scale& x, const scale& y, const band& b, std::string_view colour) {
    const auto runs = band_runs(b);
    const std::string& tooltip = b.tooltip.empty() ? b.label : b.tooltip;
    for (const auto& at : runs) {
        std::string points;
        if (at.size() == 1) {
            const double cx = x(b.x[at.front()]), lo = y(b.low[at.front()]), hi = y(b.high[at.front()]);
            points = fmt::format("{},{} {},{} {},{} {},{}", px(cx - 3), px(hi), px(cx + 3), px(hi), px(cx + 3), px(lo),
                                 px(cx - 3), px(lo));
        } else {
            for (std::size_t k : at)
                points.append(points.empty() ? "" : " ").append(px(x(b.x[k]))).append(",").append(px(y(b.high[k])));
            for (auto k = at.rbegin(); k != at.rend(); ++k)
                points.append(" ").append(px(x(b.x[*k]))).append(",").append(px(y(b.low[*k])));
        }
        f.svg.polygon(points, colour, band_opacity, "none", tooltip);
    }
    return !runs.empty();
}

// One legend entry per band label: in the band's colour, or grey where bands of several colours
// share it ("shaded: 95% confidence interval" for every percentile's band).
inline void add_band_legend(std::vector<legend_entry>& legend, const std::string& label, const std::string& colour) {
    for (auto& e : legend)
        if (e.mark == legend_mark::shade && e.name == label) {
            if (e.colour != colour) e.colour = "#888888";
            return;
        }
    legend.push_back({label, colour, legend_mark::shade, {}, {}});
}

} // namespace detail

inline std::string line_chart(std::span<const named_points> series, const chart_labels& labels,
                              const line_options& options) {
    frame f(labels);
    const auto points = detail::line_points(series, options);
    const auto axes = detail::line_axes(f, points, options);
    if (!axes) return std::move(f).finish();
    const auto& [x, y] = *axes;
    const auto looks = detail::series_looks(series.size(), options.highlight);
    std::vector<legend_entry> legend;
    std::string grey_names;
    for (std::size_t i = 0; i < series.size(); ++i) {
        if (looks[i].coloured()) legend.push_back({series[i].name, looks[i].colour(), legend_mark::line, {}, {}});
        else grey_names.append(grey_names.empty() ? "" : ", ").append(series[i].name);
    }
    if (const auto grey = detail::grey_count(looks); grey > 0)
        legend.push_back({detail::others_legend_name(grey, options.others_name), other_colour, legend_mark::thin_line, {},
                          grey_names});
    std::vector<detail::box> taken;
    for (const auto& r : options.references) {
        if (!std::isfinite(r.y)) continue;
        detail::draw_reference(f, taken, y, r);
        legend.push_back({r.label, detail::reference_colour, legend_mark::dashed_line, {}, {}});
    }
    for (const auto& b : options.bands) {
        if (b.series >= series.size() || !looks[b.series].coloured()) continue;
        if (detail::draw_band(f, x, y, b, looks[b.series].colour()))
            detail::add_band_legend(legend, b.label, looks[b.series].colour());
    }
    // Grey series first, underneath the coloured ones.
    for (const bool coloured : {false, true})
        for (std::size_t i = 0; i < points.size(); ++i)
            if (looks[i].coloured() == coloured)
                detail::draw_line_series(f, taken, x, y, series[i].name, points[i], looks[i], options.marker_radius,
                                         options.x_names);
    const auto lines = detail::line_segments(points, looks, x, y);
    for (const auto& m : options.marks) {
        if (!std::isfinite(m.x) || !std::isfinite(m.y)) continue;
        detail::draw_mark(f, taken, lines, x, y, m, options.x_names);
        legend.push_back({m.label, detail::mark_colour, legend_mark::diamond, {}, {}});
    }
    // Last, so they find the places nothing else took.
    for (std::size_t i = 0; i < points.size(); ++i)
        if (looks[i].coloured())
            for (const auto& p : points[i])
                if (!p.label.empty()) detail::point_label(f, taken, x(p.x), y(p.y), options.marker_radius, p.label);
    f.legend(legend);
    return std::move(f).finish();
}

} // namespace servestat::plot
