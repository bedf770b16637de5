// A grid of two sweep parameters (max_num_seqs by concurrency) coloured by a measure (p99, tokens/s),
// each cell's value printed in it, the cells never run marked "–", cells that could not be measured
// (a server that crashed) crossed "✗", a sweet spot outlined.
#pragma once

#include <algorithm>   // std::min, std::clamp
#include <array>       // std::array
#include <cmath>       // std::isfinite, std::pow, std::round, std::floor
#include <cstddef>     // std::size_t
#include <optional>    // std::optional
#include <string>      // std::string
#include <string_view> // std::string_view
#include <utility>     // std::move
#include <vector>      // std::vector

#include <fmt/format.h> // fmt::format

#include "servestat/plot/chart.hpp"   // frame, detail::range, detail::fit_lines, detail::text_width
#include "servestat/plot/data.hpp"    // chart_labels
#include "servestat/plot/scatter.hpp" // detail::significant

namespace servestat::plot {

// values[row][column]; an absent, non-finite or out-of-table cell is missing (a level not run).
// rows[0] is the bottom row, so ascending parameter values rise like a y axis; columns run left to right.
struct heat_table {
    std::vector<std::string> rows;
    std::vector<std::string> columns;
    std::vector<std::vector<std::optional<double>>> values;
    std::string unit;       // of the values: "s", "tokens/s"; shown in the colour legend and tooltips
    std::string value_name; // what the values are, e.g. "p99 latency": heads the colour legend
};

struct heat_cell {
    std::size_t row = 0, column = 0;
};

struct heatmap_options {
    // The colour scale always runs from dark (worst) to bright (best): reversed when lower is better,
    // as for latency, so the bright cells are the ones to pick either way.
    bool lower_is_better = false;
    std::vector<heat_cell> highlighted; // outlined, e.g. the sweet spot
    std::string highlight_label = "highlighted";
    // Cells tried without a value (a tune configuration whose server ran out of memory): a pale red
    // fill and "✗" instead of the grey "–" of cells never run, so "not tried" and "cannot work" are
    // told apart; named in the legend by crossed_label. Their values, if any, are not drawn.
    std::vector<heat_cell> crossed;
    std::string crossed_label = "infeasible";
};

namespace detail {

struct rgb {
    double r, g, b;
};

// viridis at 0, 1/8 … 1 (viridisLite::viridis(9), matplotlib's map): perceptually uniform, readable
// with the common colour-vision deficiencies and in grey print; interpolated linearly between.
inline constexpr std::array<rgb, 9> viridis_anchors{{{0x44, 0x01, 0x54},
                                                     {0x47, 0x2D, 0x7B},
                                                     {0x3B, 0x52, 0x8B},
                                                     {0x2C, 0x72, 0x8E},
                                                     {0x21, 0x90, 0x8C},
                                                     {0x27, 0xAD, 0x81},
                                                     {0x5D, 0xC8, 0x63},
                                                     {0xAA, 0xDC, 0x32},
                                                     {0xFD, 0xE7, 0x25}}};

inline rgb viridis(double t) {
    const double at = std::clamp(t, 0.0, 1.0) * (viridis_anchors.size() - 1);
    const std::size_t i = std::min(viridis_anchors.size() - 2, static_cast<std::size_t>(std::floor(at)));
    const double f = at - static_cast<double>(i);
    const auto &a = viridis_anchors[i], &b = viridis_anchors[i + 1];
    return {std::round(a.r + (b.r - a.r) * f), std::round(a.g + (b.g - a.g) * f), std::round(a.b + (b.b - a.b) * f)};
}

inline std::string hex(const rgb& c) {
    return fmt::format("#{:02x}{:02x}{:02x}", static_cast<int>(c.r), static_cast<int>(c.g), static_cast<int>(c.b));
}

// WCAG relative luminance; black text has the better contrast above 0.179, white below.
inline double luminance(const rgb& c) {
    const auto linear = [](double v) {
        v /= 255;
        return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
    };
    return 0.2126 * linear(c.r) + 0.7152 * linear(c.g) + 0.0722 * linear(c.b);
}

inline const char* readable_on(const rgb& c) { return luminance(c) > 0.179 ? "#000000" : "#ffffff"; }

inline std::optional<double> heat_value(const heat_table& t, std::size_t row, std::size_t column) {
    if (row >= t.values.size() || column >= t.values[row].size()) return std::nullopt;
    const auto& v = t.values[row][column];
    if (!v || !std::isfinite(*v)) return std::nullopt;
    return v;
}

inline constexpr const char* missing_fill = "#e0e0e0";
// Red-tinted, unlike any viridis colour and unlike missing_fill; its text dark red.
inline constexpr const char* crossed_fill = "#f6d3cb";
inline constexpr const char* crossed_text = "#9c2a0e";
inline constexpr const char* crossed_mark = "✗";

// Maps a value to its colour: the table's range onto viridis, dark to bright towards "better".
struct heat_scale {
    double lo, hi;
    bool lower_is_better;

    rgb operator()(double v) const {
        const double t = hi > lo ? (v - lo) / (hi - lo) : 0.5;
        return viridis(lower_is_better ? 1 - t : t);
    }
};

inline std::string with_unit(double v, const std::string& unit) {
    std::string out = significant(v);
    if (!unit.empty()) out.append(" ").append(unit);
    return out;
}

// The grid's cell in pixels: x, y of the top left corner, width and height.
struct cell_box {
    double x, y, w, h;
};

inline cell_box cell_at(const frame& f, const heat_table& t, std::size_t row, std::size_t column) {
    const double w = frame::category_slot(t.columns.size());
    const double h = (f.plot_bottom() - f.plot_top()) / static_cast<double>(t.rows.size());
    return {frame::plot_left + w * static_cast<double>(column), f.plot_bottom() - h * static_cast<double>(row + 1), w, h};
}

// Inside the cell with 3 px to spare on each side and 1 px above and below: neighbouring cells' texts
// never touch.
inline bool fits(const cell_box& box, std::string_view text, int size) {
    return text_width(text, size) <= box.w - 6 && text_height(size) + 2 <= box.h;
}

inline std::string cell_text(const std::optional<double>& v) { return v ? significant(*v) : "–"; }

// One size for every cell's text, so the numbers compare at a glance: 12 px if the longest fits,
// else 10 px; a text that does not fit even then is left out (its tooltip still has the value).
inline int cell_text_size(const frame& f, const heat_table& t) {
    std::string widest;
    for (std::size_t row = 0; row < t.rows.size(); ++row)
        for (std::size_t column = 0; column < t.columns.size(); ++column)
            if (const auto text = cell_text(heat_value(t, row, column)); text_width(text) > text_width(widest)) widest = text;
    return fits(cell_at(f, t, 0, 0), widest, 12) ? 12 : 10;
}

inline void draw_cell(frame& f, const heat_table& t, const chart_labels& labels, const heat_scale& colour,
                      int text_size, std::size_t row, std::size_t column) {
    const auto box = cell_at(f, t, row, column);
    const auto v = heat_value(t, row, column);
    const std::string where = fmt::format("{} {}, {} {}", labels.y_label, t.rows[row], labels.x_label, t.columns[column]);
    const rgb fill = v ? colour(*v) : rgb{};
    // A 1 px gap between cells keeps neighbours of the same colour apart.
    f.svg.rect(box.x + 1, box.y + 1, box.w - 2, box.h - 2, v ? hex(fill) : missing_fill,
               v ? fmt::format("{}: {} ({})", where, with_unit(*v, t.unit), exact(*v)) : where + ": no value");
    if (const std::string text = cell_text(v); fits(box, text, text_size))
        f.svg.text(box.x + box.w / 2, box.y + box.h / 2 + 0.35 * text_size, text,
                   {.anchor = "middle", .size = text_size, .fill = v ? readable_on(fill) : "#555555"});
}

inline bool is_crossed(const heatmap_options& o, std::size_t row, std::size_t column) {
    for (const auto& c : o.crossed)
        if (c.row == row && c.column == column) return true;
    return false;
}

inline void draw_crossed_cell(frame& f, const heat_table& t, const chart_labels& labels, const heatmap_options& o,
                              int text_size, std::size_t row, std::size_t column) {
    const auto box = cell_at(f, t, row, column);
    const std::string where = fmt::format("{} {}, {} {}", labels.y_label, t.rows[row], labels.x_label, t.columns[column]);
    f.svg.rect(box.x + 1, box.y + 1, box.w - 2, box.h - 2, crossed_fill, where + ": " + o.crossed_label);
    if (fits(box, crossed_mark, text_size))
        f.svg.text(box.x + box.w / 2, box.y + box.h / 2 + 0.35 * text_size, crossed_mark,
                   {.anchor = "middle", .size = text_size, .bold = true, .fill = crossed_text});
}

// A closed rectangle as polyline points: unlike frame's outline it takes a stroke width.
inline std::string ring_points(double x0, double y0, double x1, double y1) {
    return fmt::format("{0},{1} {2},{1} {2},{3} {0},{3} {0},{1}", px(x0), px(y0), px(x1), px(y1));
}

// Black outside, white inside: one of the two stands out on every colour of the scale.
inline void outline_cell(frame& f, const cell_box& box) {
    const auto ring = [&](double inset) {
        return ring_points(box.x + inset, box.y + inset, box.x + box.w - inset, box.y + box.h - inset);
    };
    f.svg.polyline(ring(1.5), "#000000", 3);
    f.svg.polyline(ring(3.5), "#ffffff", 1.5);
}

// Row names left of the grid, at most 50 px (shortened in the middle, whole in the tooltip); rows
// lower than a line of text name every k-th.
inline void row_axis(frame& f, const heat_table& t) {
    const double h = cell_at(f, t, 0, 0).h;
    const auto every = static_cast<std::size_t>(std::ceil((text_height(12) + 2) / h));
    for (std::size_t r = 0; r < t.rows.size(); r += every) {
        const auto box = cell_at(f, t, r, 0);
        f.y_tick_label(box.y + box.h / 2 + 4, t.rows[r], 50);
    }
}

// In the right margin: what the colours mean (a bar from the largest value at the top to the
// smallest), then boxes for a missing cell and a highlighted one where the chart has them.
inline void colour_legend(frame& f, const heat_table& t, const heat_scale& colour, bool any_missing,
                          bool any_crossed, const heatmap_options& o) {
    // The heading on two lines, unit under name, when one would run past the canvas.
    const std::string name = t.value_name.empty() ? "value" : t.value_name;
    const std::string heading = t.unit.empty() ? name : name + " (" + t.unit + ")";
    const auto lines = fit_lines(heading, frame::width - 8 - (frame::legend_left - 6), 2, {12, true});
    double y = f.plot_top() + 8;
    for (std::size_t i = 0; i < lines.lines.size(); ++i)
        f.svg.text(frame::legend_left - 6, i == 0 ? y : y += 16, lines.lines[i], {.bold = true},
                   tooltip_if(lines.shortened, heading));
    constexpr double text_room = frame::width - 8 - (frame::legend_left + 24);
    const auto fitted = [&](double at_x, double at_y, const std::string& text) {
        const std::string shown = shorten_middle(text, text_room);
        f.svg.text(at_x, at_y, shown, {}, tooltip_if(shown != text, text));
    };
    const double left = frame::legend_left, top = y + 14, height = 200;
    constexpr int steps = 40;
    for (int i = 0; i < steps; ++i) {
        const double v = colour.hi - (colour.hi - colour.lo) * (i + 0.5) / steps;
        f.svg.rect(left, top + height * i / steps, 18, height / steps + 0.2, hex(colour(v))); // overlap: no seams
    }
    f.svg.outline(left, top, 18, height, "#666666");
    fitted(left + 24, top + 9, "max " + with_unit(colour.hi, t.unit));
    fitted(left + 24, top + height, "min " + with_unit(colour.lo, t.unit));
    y = top + height + 22;
    if (o.lower_is_better) {
        f.svg.text(left - 6, y, "lower is better", {.fill = "#444444"});
        y += 20;
    }
    if (any_missing) {
        f.svg.rect(left, y - 11, 18, 14, missing_fill);
        f.svg.text(left + 24, y, "– not run / no value");
        y += 22;
    }
    if (any_crossed) {
        f.svg.rect(left, y - 11, 18, 14, crossed_fill);
        fitted(left + 24, y, std::string(crossed_mark) + " " + o.crossed_label);
        y += 22;
    }
    if (!o.highlighted.empty()) {
        f.svg.polyline(ring_points(left, y - 12, left + 18, y + 4), "#000000", 3);
        fitted(left + 24, y, o.highlight_label);
    }
}

} // namespace detail

inline std::string heatmap_chart(const heat_table& t, const chart_labels& labels, const heatmap_options& options) {
    frame f(labels);
    detail::range r;
    bool any_missing = false, any_crossed = false;
    for (std::size_t row = 0; row < t.rows.size(); ++row)
        for (std::size_t column = 0; column < t.columns.size(); ++column) {
            const auto v = detail::heat_value(t, row, column);
            if (detail::is_crossed(options, row, column)) any_crossed = true;
            else if (v) r.add(*v);
            else any_missing = true;
        }
    if (!r.any) {
        f.no_data();
        return std::move(f).finish();
    }
    f.category_axis(t.columns); // first: slanted names raise the grid's bottom
    const detail::heat_scale colour{r.lo, r.hi, options.lower_is_better};
    const int text_size = detail::cell_text_size(f, t);
    for (std::size_t row = 0; row < t.rows.size(); ++row)
        for (std::size_t column = 0; column < t.columns.size(); ++column)
            if (detail::is_crossed(options, row, column))
                detail::draw_crossed_cell(f, t, labels, options, text_size, row, column);
            else
                detail::draw_cell(f, t, labels, colour, text_size, row, column);
    for (const auto& c : options.highlighted)
        if (c.row < t.rows.size() && c.column < t.columns.size()) detail::outline_cell(f, detail::cell_at(f, t, c.row, c.column));
    detail::row_axis(f, t);
    detail::colour_legend(f, t, colour, any_missing, any_crossed, options);
    return std::move(f).finish();
}

} // namespace servestat::plot
