// The part every chart shares: the 800×480 canvas, title, plot area, axes with ticks, unit-bearing
// labels and gridlines, the legend box and the "no data" placeholder.
#pragma once

#include <algorithm> // std::max, std::min
#include <cmath>     // std::isfinite
#include <cstddef>   // std::size_t
#include <span>      // std::span
#include <string>    // std::string
#include <string_view> // std::string_view
#include <utility>   // std::move
#include <vector>    // std::vector

#include <fmt/format.h> // fmt::format

#include "servestat/plot/data.hpp"  // chart_labels, axis_unit
#include "servestat/plot/scale.hpp" // scale, tick, resolve_unit
#include "servestat/plot/svg.hpp"   // svg_document, series_colour

namespace servestat::plot {

enum class legend_mark { box, line, dashed_line, diamond };

struct legend_entry {
    std::string name;
    std::string colour;
    legend_mark mark = legend_mark::box;
    std::vector<std::string> notes; // smaller lines under the name, e.g. a fit's equation
};

namespace detail {

// At most `max` bytes, cut at a character boundary so UTF-8 stays valid.
inline std::string shortened(const std::string& name, std::size_t max) {
    if (name.size() <= max) return name;
    std::size_t cut = max - 1;
    while (cut > 0 && (static_cast<unsigned char>(name[cut]) & 0xC0) == 0x80) --cut;
    return name.substr(0, cut) + "…";
}

struct range {
    double lo = 0, hi = 0;
    bool any = false;
    void add(double v) {
        if (!std::isfinite(v)) return;
        lo = any ? std::min(lo, v) : v;
        hi = any ? std::max(hi, v) : v;
        any = true;
    }
};

// About how wide text of `size` px is: sans-serif digits and lower case average 0.6 em. Counts
// bytes, so UTF-8 text comes out wider than it is, which errs on the side of room.
inline double text_width(std::string_view text, int size = 12) { return 0.6 * size * static_cast<double>(text.size()); }

// A closed diamond outline around (x, y), `r` from the centre to each corner: the marker of a
// point singled out (a knee), unlike any series' round markers.
inline std::string diamond_points(double x, double y, double r) {
    return fmt::format("{},{} {},{} {},{} {},{} {},{}", px(x), px(y - r), px(x + r), px(y), px(x), px(y + r), px(x - r),
                       px(y), px(x), px(y - r));
}

inline std::vector<double> finite_sorted(std::span<const double> values) {
    std::vector<double> out;
    out.reserve(values.size());
    for (double v : values)
        if (std::isfinite(v)) out.push_back(v);
    std::sort(out.begin(), out.end());
    return out;
}

} // namespace detail

// The canvas with its title and axis labels; charts draw into `svg` inside [plot_left, plot_right]
// × [plot_top, plot_bottom], the legend sits in the right margin.
class frame {
public:
    static constexpr int width = 800, height = 480;
    static constexpr double plot_left = 80, plot_right = 600, plot_top = 50, plot_bottom = 410;
    static constexpr double legend_left = plot_right + 16, legend_width = width - legend_left - 8;

    explicit frame(const chart_labels& labels)
        : svg(width, height, labels.title), x_unit(resolve_unit(labels.x_unit, labels.x_label)),
          y_unit(resolve_unit(labels.y_unit, labels.y_label)) {
        svg.text(width / 2.0, 28, labels.title, {.anchor = "middle", .size = 16, .bold = true});
        svg.text((plot_left + plot_right) / 2, height - 22, labels.x_label, {.anchor = "middle", .size = 14});
        svg.text(24, (plot_top + plot_bottom) / 2, labels.y_label, {.anchor = "middle", .size = 14, .rotate = -90});
    }

    scale x_scale(double lo, double hi, bool log = false) const {
        return scale(lo, hi, plot_left, plot_right, log, x_unit);
    }
    scale y_scale(double lo, double hi, bool log = false) const {
        return scale(lo, hi, plot_bottom, plot_top, log, y_unit);
    }

    void y_axis(const scale& y) {
        for (const auto& t : y.ticks()) {
            const double py = y(t.value);
            svg.line(plot_left, py, plot_right, py, "#dddddd");
            svg.text(plot_left - 6, py + 4, t.label, {.anchor = "end"});
        }
    }

    void x_axis(const scale& x) { x_axis(x, x.ticks()); }

    // Ticks of the caller's choosing, e.g. at each level a sweep ran.
    void x_axis(const scale& x, const std::vector<tick>& ticks) {
        for (const auto& t : ticks) {
            const double pxv = x(t.value);
            svg.line(pxv, plot_top, pxv, plot_bottom, "#eeeeee");
            svg.text(pxv, plot_bottom + 18, t.label, {.anchor = "middle"});
        }
    }

    // Category names under evenly spaced slots.
    void category_axis(const std::vector<std::string>& names) {
        const double slot = category_slot(names.size());
        const std::size_t room = std::max<std::size_t>(4, static_cast<std::size_t>(slot / 7));
        for (std::size_t i = 0; i < names.size(); ++i)
            svg.text(plot_left + slot * (static_cast<double>(i) + 0.5), plot_bottom + 18, detail::shortened(names[i], room),
                     {.anchor = "middle"});
    }

    static double category_slot(std::size_t count) {
        return (plot_right - plot_left) / static_cast<double>(std::max<std::size_t>(1, count));
    }

    // A small explanation under the x axis, e.g. what a box plot's whiskers mean.
    void note(const std::string& text) { svg.text(plot_right, height - 6, text, {.anchor = "end", .size = 12, .fill = "#555555"}); }

    void legend(const std::vector<legend_entry>& entries) {
        if (entries.empty()) return;
        double rows = 0;
        for (const auto& e : entries) rows += 1 + static_cast<double>(e.notes.size()) * 0.8;
        svg.outline(legend_left - 6, plot_top, legend_width, rows * 20 + 10, "#bbbbbb", "#ffffff");
        double y = plot_top + 8;
        for (const auto& e : entries) {
            if (e.mark == legend_mark::box) svg.rect(legend_left, y, 14, 12, e.colour);
            else if (e.mark == legend_mark::diamond)
                svg.polyline(detail::diamond_points(legend_left + 8, y + 6, 6), e.colour, 2);
            else svg.line(legend_left, y + 6, legend_left + 16, y + 6, e.colour, 2.5,
                          e.mark == legend_mark::dashed_line ? "6 3" : "");
            svg.text(legend_left + 22, y + 11, detail::shortened(e.name, 20));
            y += 20;
            for (const auto& n : e.notes) {
                svg.text(legend_left + 22, y + 8, detail::shortened(n, 22), {.fill = "#444444"});
                y += 16;
            }
        }
    }

    // One legend entry per name, in palette order.
    static std::vector<legend_entry> palette_entries(const std::vector<std::string>& names, legend_mark mark) {
        std::vector<legend_entry> out;
        for (std::size_t i = 0; i < names.size(); ++i) out.push_back({names[i], series_colour(i), mark, {}});
        return out;
    }

    void no_data() {
        svg.text((plot_left + plot_right) / 2, (plot_top + plot_bottom) / 2, "no data", {.anchor = "middle", .size = 14});
    }

    std::string finish() && {
        svg.outline(plot_left, plot_top, plot_right - plot_left, plot_bottom - plot_top, "#666666");
        return std::move(svg).finish();
    }

    svg_document svg;
    axis_unit x_unit, y_unit;
};

} // namespace servestat::plot
