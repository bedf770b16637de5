// The part every chart shares: the 800×480 canvas, title, plot area, axes with ticks, unit-bearing
// labels and gridlines, the legend box and the "no data" placeholder; every text in it measured
// (text_metrics.hpp) and fitted (text_fit.hpp), never clipped.
#pragma once

#include <algorithm> // std::any_of, std::lower_bound, std::max, std::min, std::sort, std::unique
#include <cmath>     // std::ceil, std::isfinite
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
#include "servestat/plot/text_fit.hpp"     // fit_lines, shorten_middle, shorten_end
#include "servestat/plot/text_metrics.hpp" // text_width, text_ascent_em
#include "servestat/stats/quantile.hpp"     // detail::select_order_statistics, detail::radix_select, detail::plan_quantile

namespace servestat::plot {

enum class legend_mark { box, line, thin_line, dashed_line, diamond, shade };

struct legend_entry {
    std::string name;
    std::string colour;
    legend_mark mark = legend_mark::box;
    std::vector<std::string> notes; // smaller lines under the name, e.g. a fit's equation
    std::string tooltip;            // e.g. the names of the series an "others (grey)" entry stands for
};

namespace detail {

// At most `max` bytes, cut at a character boundary so UTF-8 stays valid. Kept for callers that cut
// data, not drawn text: text is measured (shorten_end, shorten_middle, fit_lines).
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

// A pixel rectangle something is drawn on (a marker, a label, a bar); labels go where they cover
// none of them.
struct box {
    double x0, y0, x1, y1;
    bool overlaps(const box& o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
    box padded(double dx, double dy) const { return {x0 - dx, y0 - dy, x1 + dx, y1 + dy}; }
};

inline box around(double x, double y, double r) { return {x - r, y - r, x + r, y + r}; }

// The box a browser gives text of `size` px with its baseline at y, anchored at x ("start", "middle"
// or "end"): the font's ascent above the baseline, its descent below.
inline box text_box(double x, double y, std::string_view text, int size, std::string_view anchor, bool bold = false) {
    const double w = text_width(text, size, bold);
    const double x0 = anchor == "end" ? x - w : anchor == "middle" ? x - w / 2 : x;
    return {x0, y - text_ascent_em * size, x0 + w, y + text_descent_em * size};
}

inline bool overlaps_any(const std::vector<box>& taken, const box& b) {
    return std::any_of(taken.begin(), taken.end(), [&](const box& t) { return t.overlaps(b); });
}

// A closed diamond outline around (x, y), `r` from the centre to each corner: the marker of a
// point singled out (a knee), unlike any series' round markers.
inline std::string diamond_points(double x, double y, double r) {
    return fmt::format("{},{} {},{} {},{} {},{} {},{}", px(x), px(y - r), px(x + r), px(y), px(x), px(y + r), px(x - r),
                       px(y), px(x), px(y - r));
}

inline std::vector<double> finite_values(std::span<const double> values) {
    std::vector<double> out;
    out.reserve(values.size());
    for (double v : values)
        if (std::isfinite(v)) out.push_back(v);
    return out;
}

// Order statistics of a sample at chosen ranks, found by selection: a chart of 4·10^6 latencies
// draws a few hundred of them, and sorting them all took most of `report`'s extra time.
// One selection answers every chart drawn from the same sample (ECDF steps, box percentiles,
// histogram quartiles): ask for the union of their ranks.
class ranked_values {
public:
    ranked_values() = default;
    // `values` finite (they are reordered); `ranks` below values.size(), in any order.
    ranked_values(std::vector<double> values, std::vector<std::size_t> ranks)
        : ranked_values(std::span<double>(values), std::move(ranks)) {}
    // The same without taking the values: the caller keeps them (possibly reordered) for other uses.
    ranked_values(std::span<double> values, std::vector<std::size_t> ranks) : n_(values.size()), ranks_(std::move(ranks)) {
        std::sort(ranks_.begin(), ranks_.end());
        ranks_.erase(std::unique(ranks_.begin(), ranks_.end()), ranks_.end());
        if (ranks_.empty()) return;
        if (values.size() < servestat::detail::radix_select_min_size) {
            servestat::detail::select_order_statistics(values, ranks_);
            for (std::size_t r : ranks_) at_.push_back(values[r]);
        } else {
            at_ = servestat::detail::radix_select(values, ranks_);
        }
    }
    std::size_t size() const noexcept { return n_; }
    bool empty() const noexcept { return n_ == 0; }
    // The value of rank r, which must be one of the ranks asked for.
    double operator[](std::size_t r) const {
        return at_[static_cast<std::size_t>(std::lower_bound(ranks_.begin(), ranks_.end(), r) - ranks_.begin())];
    }
    double front() const { return (*this)[0]; }
    double back() const { return (*this)[n_ - 1]; }

private:
    std::size_t n_ = 0;
    std::vector<std::size_t> ranks_;
    std::vector<double> at_;
};

// The ranks numpy's linear percentiles `ps` of n values read (the method the summary tables use).
inline std::vector<std::size_t> linear_percentile_ranks(std::size_t n, std::span<const double> ps) {
    std::vector<std::size_t> ranks;
    if (n == 0) return ranks;
    for (double p : ps) {
        const auto plan = servestat::detail::plan_quantile(n, p / 100.0, quantile_method::linear);
        ranks.push_back(plan.lower);
        ranks.push_back(plan.upper);
    }
    return ranks;
}

// Linear percentile p of values ranked at least at linear_percentile_ranks(n, {p}): the same
// arithmetic as percentiles_select, on the two order statistics it reads.
inline double linear_percentile(const ranked_values& v, double p) {
    auto plan = servestat::detail::plan_quantile(v.size(), p / 100.0, quantile_method::linear);
    const double read[] = {v[plan.lower], v[plan.upper]};
    plan.lower = 0;
    plan.upper = 1;
    return servestat::detail::evaluate_plan(plan, read);
}

// The whole text as a tooltip when what is drawn is not all of it.
inline std::string tooltip_if(bool shortened, std::string_view whole) { return shortened ? std::string(whole) : std::string(); }

} // namespace detail

// A named sample whose order statistics were selected beforehand, at the ranks the charts drawing it
// read (ecdf_chart_ranks, box_chart_ranks, histogram_chart_ranks of its size, or their union).
struct ranked_series {
    std::string name;
    detail::ranked_values values; // of the finite values only
};

// Raw samples made into ranked series: each one's finite values, selected at ranks_of(their count).
template <class Ranks>
std::vector<ranked_series> rank_series(std::span<const named_values> series, Ranks&& ranks_of) {
    std::vector<ranked_series> ranked;
    ranked.reserve(series.size());
    for (const auto& s : series) {
        auto values = detail::finite_values(s.values);
        auto ranks = ranks_of(values.size());
        ranked.push_back({s.name, detail::ranked_values(std::move(values), std::move(ranks))});
    }
    return ranked;
}

// The canvas with its title and axis labels; charts draw into the plot area [plot_left, plot_right]
// × [plot_top(), plot_bottom()], the legend sits in the right margin. The area's top moves down when
// the title needs two lines, its bottom up when category names are drawn slanted; a chart lays out
// its category axis before its y scale, which is made for the area as it then is.
class frame {
public:
    static constexpr int width = 800, height = 480;
    static constexpr double plot_left = 80, plot_right = 600;
    static constexpr double legend_left = plot_right + 16, legend_width = width - legend_left - 8;
    static constexpr int title_size = 16, axis_label_size = 14;

    explicit frame(const chart_labels& labels)
        : svg(width, height, labels.title), x_unit(resolve_unit(labels.x_unit, labels.x_label)),
          y_unit(resolve_unit(labels.y_unit, labels.y_label)), x_label_(labels.x_label), y_label_(labels.y_label) {
        // Two lines where one would run off the canvas, the plot area moved down for the second.
        const auto title = detail::fit_lines(labels.title, width - 24, 2, {title_size, true});
        const double first = title.lines.size() > 1 ? 24 : 28;
        for (std::size_t i = 0; i < title.lines.size(); ++i)
            svg.text(width / 2.0, first + 19 * static_cast<double>(i), title.lines[i],
                     {.anchor = "middle", .size = title_size, .bold = true, .css_class = "title"},
                     detail::tooltip_if(title.shortened, labels.title));
        if (title.lines.size() > 1) plot_top_ = 58;
    }

    double plot_top() const noexcept { return plot_top_; }
    double plot_bottom() const noexcept { return plot_bottom_; }

    scale x_scale(double lo, double hi, bool log = false) const {
        return scale(lo, hi, plot_left, plot_right, log, x_unit);
    }
    scale y_scale(double lo, double hi, bool log = false) const {
        y_scale_made_ = true;
        return scale(lo, hi, plot_bottom_, plot_top_, log, y_unit);
    }

    void y_axis(const scale& y) {
        for (const auto& t : y.ticks()) {
            const double py = y(t.value);
            svg.line(plot_left, py, plot_right, py, "#dddddd");
            y_tick_label(py + 4, t.label);
        }
    }

    // A name left of the plot at baseline y (a tick's value, a heatmap's row), at most `room` px wide
    // (shortened in the middle, whole in the tooltip); the y axis label keeps clear of the widest.
    void y_tick_label(double y, const std::string& text, double room = plot_left - 30) {
        const std::string shown = detail::shorten_middle(text, room);
        svg.text(plot_left - 6, y, shown, {.anchor = "end"}, detail::tooltip_if(shown != text, text));
        widest_y_tick_ = std::max(widest_y_tick_, detail::text_width(shown));
    }

    void x_axis(const scale& x) { x_axis(x, x.ticks()); }

    // Ticks of the caller's choosing, e.g. at each level a sweep ran. A label that would run into the
    // one before it is left out; its gridline stays.
    void x_axis(const scale& x, const std::vector<tick>& ticks) {
        double free_from = -1e9;
        for (const auto& t : ticks) {
            const double pxv = x(t.value);
            svg.line(pxv, plot_top_, pxv, plot_bottom_, "#eeeeee");
            const auto b = detail::text_box(pxv, plot_bottom_ + 18, t.label, 12, "middle");
            if (b.x0 < free_from) continue;
            svg.text(pxv, plot_bottom_ + 18, t.label, {.anchor = "middle"});
            free_from = b.x1 + 4;
        }
    }

    // Category names under evenly spaced slots, whole wherever possible: on one line when each fits
    // its slot, else on two (broken at a space or after a hyphen), else slanted at −45° with the
    // plot's bottom raised to make room. Slanted names longer than 150 px, or than the room left of
    // their slot, are shortened in the middle (their ends, which tell "bad-c16" from "bad-c32",
    // kept) with the whole name as a tooltip; slots too narrow even for slanted text label every
    // k-th. Call before y_scale: after it the plot's bottom stays and slanted names get only the
    // room under it.
    void category_axis(const std::vector<std::string>& names) {
        const double slot = category_slot(names.size());
        const auto centre = [&](std::size_t i) { return plot_left + slot * (static_cast<double>(i) + 0.5); };
        const double room = slot - 6;
        std::vector<detail::fitted_text> fitted;
        bool all_fit = true;
        for (const auto& n : names) {
            fitted.push_back(detail::fit_lines(n, room, 2));
            all_fit = all_fit && !fitted.back().shortened;
        }
        if (all_fit) {
            for (std::size_t i = 0; i < names.size(); ++i)
                for (std::size_t l = 0; l < fitted[i].lines.size(); ++l)
                    svg.text(centre(i), plot_bottom_ + 18 + 14 * static_cast<double>(l), fitted[i].lines[l],
                             {.anchor = "middle"});
            return;
        }
        constexpr double slant = 0.7071067811865476, drop = 10; // sin 45° = cos 45°
        const double line_height = detail::text_height(12);
        // A y scale made already fixed the plot's bottom: the names get the room under it, no more.
        const double longest = y_scale_made_ ? std::max(0.0, (height - 35 - plot_bottom_ - drop) / slant - line_height) : 150;
        // Parallel slanted names sit slot·sin 45° apart: label every k-th where that is under a line.
        const auto every = static_cast<std::size_t>(std::ceil((line_height + 2) / (slot * slant)));
        double widest = 0;
        std::vector<std::string> shown(names.size());
        for (std::size_t i = 0; i < names.size(); i += every) {
            // The name runs down-left from its slot's centre: no further than the canvas' edge.
            const double fits = std::min(longest, (centre(i) - 4) / slant - line_height);
            shown[i] = detail::shorten_middle(names[i], fits);
            widest = std::max(widest, detail::text_width(shown[i]));
        }
        // Room under the plot for the slanted names, above the x axis label.
        const double needed = drop + (widest + line_height) * slant;
        if (!y_scale_made_) plot_bottom_ = std::min(plot_bottom_, height - 35 - needed);
        for (std::size_t i = 0; i < names.size(); i += every)
            svg.text(centre(i) + 4, plot_bottom_ + drop, shown[i], {.anchor = "end", .rotate = -45},
                     detail::tooltip_if(shown[i] != names[i], names[i]));
    }

    static double category_slot(std::size_t count) {
        return (plot_right - plot_left) / static_cast<double>(std::max<std::size_t>(1, count));
    }

    // A small explanation under the x axis, e.g. what a box plot's whiskers mean.
    void note(const std::string& text) {
        const std::string shown = detail::shorten_end(text, plot_right - 8);
        svg.text(plot_right, height - 6, shown, {.anchor = "end", .size = 12, .fill = "#555555"},
                 detail::tooltip_if(shown != text, text));
    }

    // Entries top to bottom in the right margin; a name too wide for it takes two lines, then is
    // shortened with the whole name as the tooltip. Entries that would run below the plot area are
    // summed up in a last line "… and N more", whose tooltip names them.
    void legend(const std::vector<legend_entry>& entries) {
        if (entries.empty()) return;
        constexpr double text_x = legend_left + 22, room = legend_left - 6 + legend_width - 6 - text_x;
        struct laid {
            const legend_entry* entry;
            detail::fitted_text name;
            std::vector<detail::fitted_text> notes;
            double height;
        };
        std::vector<laid> rows;
        double total = 0;
        for (const auto& e : entries) {
            laid row{&e, detail::fit_lines(e.name, room, 2), {}, 0};
            for (const auto& n : e.notes) row.notes.push_back(detail::fit_lines(n, room, 1));
            row.height = 20 + 15 * static_cast<double>(row.name.lines.size() - 1) + 16 * static_cast<double>(row.notes.size());
            total += row.height;
            rows.push_back(std::move(row));
        }
        const double available = plot_bottom_ - plot_top_ - 10;
        double used = 0;
        std::size_t kept = 0;
        while (kept < rows.size() && used + rows[kept].height + (total > available ? 20 : 0) <= available)
            used += rows[kept++].height;
        rows.resize(kept);
        const std::size_t left_out = entries.size() - rows.size();
        svg.outline(legend_left - 6, plot_top_, legend_width, used + (left_out > 0 ? 20 : 0) + 10, "#bbbbbb", "#ffffff");
        double y = plot_top_ + 8;
        for (const auto& row : rows) {
            const auto& e = *row.entry;
            if (e.mark == legend_mark::box) svg.rect(legend_left, y, 14, 12, e.colour);
            else if (e.mark == legend_mark::shade) // a band's faint fill, a little stronger to read at this size
                svg.polygon(fmt::format("{},{} {},{} {},{} {},{}", px(legend_left), px(y),
                                        px(legend_left + 16), px(y), px(legend_left + 16),
                                        px(y + 12), px(legend_left), px(y + 12)),
                            e.colour, 0.35, "none");
            else if (e.mark == legend_mark::diamond)
                svg.polyline(detail::diamond_points(legend_left + 8, y + 6, 6), e.colour, 2);
            else svg.line(legend_left, y + 6, legend_left + 16, y + 6, e.colour, e.mark == legend_mark::thin_line ? 1.5 : 2.5,
                          e.mark == legend_mark::dashed_line ? "6 3" : "");
            const std::string tooltip = row.name.shortened ? e.name : e.tooltip;
            for (std::size_t l = 0; l < row.name.lines.size(); ++l)
                svg.text(text_x, y + 11 + 15 * static_cast<double>(l), row.name.lines[l], {}, tooltip);
            y += 20 + 15 * static_cast<double>(row.name.lines.size() - 1);
            for (std::size_t k = 0; k < row.notes.size(); ++k) {
                svg.text(text_x, y + 8, row.notes[k].lines.front(), {.fill = "#444444"},
                         detail::tooltip_if(row.notes[k].shortened, e.notes[k]));
                y += 16;
            }
        }
        if (left_out > 0) {
            std::string names;
            for (std::size_t i = rows.size(); i < entries.size(); ++i) names.append(names.empty() ? "" : ", ").append(entries[i].name);
            svg.text(legend_left, y + 11, fmt::format("… and {} more", left_out), {.fill = "#444444"}, names);
        }
    }

    // One legend entry per name, in palette order.
    static std::vector<legend_entry> palette_entries(const std::vector<std::string>& names, legend_mark mark) {
        std::vector<legend_entry> out;
        for (std::size_t i = 0; i < names.size(); ++i) out.push_back({names[i], series_colour(i), mark, {}, {}});
        return out;
    }

    void no_data() {
        svg.text((plot_left + plot_right) / 2, (plot_top_ + plot_bottom_) / 2, "no data", {.anchor = "middle", .size = 14});
    }

    // The axis labels last, when the y ticks' width is known, then the plot area's outline. Each on
    // one line, shortened in the middle (which keeps a unit at the end) with a tooltip if need be.
    std::string finish() && {
        constexpr double x_centre = (plot_left + plot_right) / 2; // room to the canvas' edge on either side
        const auto x_label = detail::fit_lines(x_label_, 2 * std::min(x_centre - 8, width - 8 - x_centre), 1,
                                               {axis_label_size, false});
        svg.text(x_centre, height - 22, x_label.lines.front(), {.anchor = "middle", .size = axis_label_size},
                 detail::tooltip_if(x_label.shortened, x_label_));
        // Rotated, the label's ascent points left: it ends 4 px clear of the widest tick label.
        const double y_at = std::max(detail::text_ascent_em * axis_label_size + 1,
                                     std::min(24.0, plot_left - 6 - widest_y_tick_ - 4 - detail::text_descent_em * axis_label_size));
        const auto y_label = detail::fit_lines(y_label_, plot_bottom_ - plot_top_, 1, {axis_label_size, false});
        svg.text(y_at, (plot_top_ + plot_bottom_) / 2, y_label.lines.front(),
                 {.anchor = "middle", .size = axis_label_size, .rotate = -90}, detail::tooltip_if(y_label.shortened, y_label_));
        svg.outline(plot_left, plot_top_, plot_right - plot_left, plot_bottom_ - plot_top_, "#666666");
        return std::move(svg).finish();
    }

    svg_document svg;
    axis_unit x_unit, y_unit;

private:
    std::string x_label_, y_label_;
    double plot_top_ = 50, plot_bottom_ = 410;
    double widest_y_tick_ = 0;
    mutable bool y_scale_made_ = false;
};

} // namespace servestat::plot
