// A sweep as reports show it: the sweep table with formatted cells, knees, SLO capacity and
// findings as sentences, and its plots (throughput and percentiles against load with the knees
// marked, short against long p99, and p99 against throughput labelled by load).
#pragma once

#include <algorithm> // std::min, std::max, std::find, std::find_if, std::any_of
#include <array>     // std::array
#include <cmath>   // std::isinf, std::isfinite, std::abs
#include <cstddef> // std::size_t
#include <optional> // std::optional
#include <limits>  // std::numeric_limits
#include <set>     // std::set
#include <span>    // std::span
#include <tuple>   // std::tuple
#include <string>  // std::string
#include <vector>  // std::vector

#include <fmt/format.h> // fmt::format

#include "servestat/plot/line.hpp"           // line_chart, line_options
#include "servestat/plot/stacked_bars.hpp"   // stacked_bar_chart
#include "servestat/report/cost_view.hpp"    // cost_value_text, cost_ci_json, good_output_figure, sweep_cost_sentence
#include "servestat/report/energy_view.hpp"  // sweep_energy_figure, sweep_energy_is_good
#include "servestat/report/few_samples.hpp"  // few_samples_mark
#include "servestat/report/format.hpp"       // format_seconds, format_share, format_interval
#include "servestat/report/intervals.hpp"    // interval_note, interval_band_label, detail::text_or_null
#include "servestat/report/plot_file.hpp"    // plot_file
#include "servestat/report/plots.hpp"        // detail::slug
#include "servestat/report/time_split_view.hpp" // split_part_title
#include "servestat/report/stats_json.hpp"   // json
#include "servestat/sweep/sweep_analysis.hpp" // sweep_analysis

namespace servestat::report {
namespace detail {

inline std::optional<double> sweep_cell(const sweep_row& row, std::string_view column) {
    const std::size_t i = servestat::detail::column_index(column);
    return i < row.values.size() ? row.values[i] : std::nullopt;
}

using servestat::detail::format_load; // "c=16", "request_rate=2.5"

inline std::string sweep_title(const sweep_analysis& a) {
    const std::string& apart = a.curve.configuration.empty() ? a.curve.group : a.curve.configuration;
    return "Sweep over " + a.curve.param + (apart.empty() ? "" : " (" + apart + ")");
}

// " Threshold knee (p99 more than 50% above c=1's 1.30 s): c=4, 2.69 s." — beside Kneedle's.
inline std::string threshold_sentence(const sweep_analysis& a, const sweep_knee& k) {
    if (!k.threshold || !k.threshold->baseline) return {};
    const threshold_knee& t = *k.threshold;
    const std::string rule = fmt::format("more than {:.0f}% above {}'s {}", 100 * t.degradation,
                                         format_load(a.curve.param, *t.baseline_x), format_seconds(t.baseline));
    if (!t.x) return fmt::format(" Threshold knee: none, no level is {}.", rule);
    return fmt::format(" Threshold knee ({}): {}, {}.", rule, format_load(a.curve.param, *t.x), format_seconds(t.y));
}

// A load between two measured levels, to the precision a straight line between them supports:
// "36", not "36.1"; "2.5" for a request rate.
inline std::string interpolated_load(double load) {
    return load >= 10 ? fmt::format("{:.0f}", load) : fmt::format("{:.2g}", load);
}

// Two knees further apart than this share of Kneedle's are told as a disagreement.
inline constexpr double knee_agreement = 0.1;

// " Two-segment fit (…): break at c≈12, 95.7 req/s (+18.2 req/s per doubling before, +6.50 after).
// Kneedle puts the knee at c=16, the two-segment fit at c≈12: the knee lies between them." —
// beside Kneedle's throughput knee.
inline std::string two_segment_sentence(const sweep_analysis& a, const sweep_knee& k) {
    if (!k.two_segment) return {};
    const two_segment_knee& t = *k.two_segment;
    const std::string at = (a.curve.param == "concurrency" ? "c≈" : a.curve.param + "≈") + interpolated_load(t.load);
    const std::string method = fmt::format("two straight lines meeting, least squares against {}", t.log_x ? "log₂ " + a.curve.param : a.curve.param);
    if (!t.levels_off())
        return fmt::format(" Two-segment fit ({}): no levelling off, the line after its break at {} rises at least as "
                           "fast as the one before.", method, at);
    const std::string per = t.log_x ? " per doubling" : " per unit of " + a.curve.param;
    std::string out = fmt::format(" Two-segment fit ({}): break at {}, {:.3g} req/s ({:+.3g} req/s{} before, {:+.3g} after).",
                                  method, at, t.y, t.fit.slope_before, per, t.fit.slope_after);
    const auto kneedle = k.x ? k.x : k.withheld_x;
    if (!kneedle) return out;
    if (std::abs(t.load - *kneedle) <= knee_agreement * *kneedle)
        return out + fmt::format(" It agrees with Kneedle's {}.", format_load(a.curve.param, *kneedle));
    return out + fmt::format(" Kneedle {} the knee at {}, the two-segment fit at {}: the knee lies between them.",
                             k.x ? "puts" : "would put", format_load(a.curve.param, *kneedle), at);
}

inline std::string knee_sentence(const sweep_analysis& a, const sweep_knee& k) {
    static constexpr std::pair<const char*, const char*> names[] = {
        {"throughput", "Saturation (throughput against load)"},
        {"p99", "Tail blow-up (p99 latency against load)"},
        {"ttft", "Time to first token (p99 against load)"},
        {"tradeoff", "Latency–throughput tradeoff (p99 against rps)"}};
    std::string what = k.curve;
    for (const auto& [key, text] : names)
        if (k.curve == key) what = text;
    const std::string form = k.form.kind == curve_kind::unclassified ? std::string() : "; curve: " + std::string(describe(k.form.kind));
    std::string out;
    if (k.withheld_x)
        out = fmt::format("{}: no knee reported ({}) — caveat: {}.", what, k.shape, k.caveat);
    else if (!k.x)
        out = what + ": no knee" + (k.shape.empty() ? std::string(" (too few points)") : " (" + k.shape + form + ")") + ".";
    else {
        const std::string y = k.y_name == "rps" ? fmt::format("{:.3g} req/s", k.y.value_or(0)) : format_seconds(k.y);
        std::string at = k.x_name == a.curve.param ? format_load(a.curve.param, *k.x)
                                                   : fmt::format("{:.3g} req/s", *k.x) +
                                                         (k.load ? " (" + format_load(a.curve.param, *k.load) + ")" : "");
        out = k.caveat.empty() ? fmt::format("{}: knee at {}, where it is {} ({}{}).", what, at, y, k.shape, form)
                               : fmt::format("{}: knee at {}, where it is {} ({}) — caveat: {}.", what, at, y, k.shape, k.caveat);
    }
    return out + threshold_sentence(a, k) + two_segment_sentence(a, k);
}

inline std::string capacity_sentence(const sweep_analysis& a, const slo_capacity& c) {
    const std::string objective = fmt::format("{} {} ≤ {}", to_string(c.objective.on), percentile_key(c.percentile),
                                              format_seconds(c.objective.max_seconds));
    if (!c.known) return fmt::format("{}: unknown, no load level has that percentile.", objective);
    if (!c.max_load) return fmt::format("{}: not met at any measured load.", objective);
    if (!c.limited)
        return fmt::format("{}: met at every measured load, up to {}.", objective, format_load(a.curve.param, *c.max_load));
    return fmt::format("{}: met up to {} {}{}.", objective, a.curve.param,
                       c.interpolated ? "≈" + interpolated_load(*c.max_load) : servestat::detail::load_text(*c.max_load),
                       c.interpolated ? " (interpolated between measured loads)" : "");
}

// The sweep table's percentile columns: the field each is shown in and the column it reads.
inline constexpr std::pair<const char*, const char*> sweep_percentile_fields[] = {
    {"e2e_p50", "e2e.p50"},   {"e2e_p90", "e2e.p90"},   {"e2e_p99", "e2e.p99"},         {"ttft_p50", "ttft.p50"},
    {"ttft_p99", "ttft.p99"}, {"short_p99", "short.e2e.p99"}, {"long_p99", "long.e2e.p99"}};

inline std::optional<interval> sweep_ci(const sweep_row& row, std::string_view column) {
    const std::size_t i = servestat::detail::column_index(column);
    return i < row.ci.size() && sweep_cell(row, column) ? row.ci[i] : std::nullopt;
}

// Beside each percentile of a level its interval ("e2e_p50_ci": "(520–590)", in the value's unit),
// null where the level has none (too few requests, or a level run more than once, whose median is no
// one run's percentile).
inline void add_sweep_intervals(json& cells, const sweep_row& row) {
    for (const auto& [field, column] : sweep_percentile_fields) {
        const auto ci = sweep_ci(row, column);
        const auto value = sweep_cell(row, column);
        cells[std::string(field) + "_ci"] = ci && value ? json(format_interval(*value, ci->low, ci->high)) : json(nullptr);
    }
}

// The sweep table's columns after the load, with their heads: those no level has a value in are left
// out (a sweep of a tool's aggregates has no per-request e2e, nor short and long prompts), so an
// empty column neither takes the width nor reads as a finding.
inline constexpr std::pair<const char*, const char*> sweep_table_heads[] = {
    {"rps", "req/s"},         {"output_tps", "output tok/s"}, {"success", "success"},
    {"e2e_p50", "e2e p50"},   {"e2e_p90", "e2e p90"},         {"e2e_p99", "e2e p99"},
    {"ttft_p50", "ttft p50"}, {"ttft_p99", "ttft p99"},       {"short_p99", "e2e p99 short prompts"},
    {"long_p99", "e2e p99 long prompts"}, {"cost_output", "$ / 1M out"}, {"cost_good", "$ / 1M good out"}};

inline bool column_has_values(const json& rows, const char* field) {
    return std::any_of(rows.begin(), rows.end(), [field](const json& r) { return r[field] != missing_value; });
}

// Each row's shown values in column order ("cells": value and interval), for templates that draw
// the columns a sweep has; the named fields stay for templates that name them.
inline void add_sweep_cells(json& rows) {
    std::vector<const char*> shown;
    for (const auto& column : sweep_table_heads)
        if (column_has_values(rows, column.first)) shown.push_back(column.first);
    for (auto& r : rows) {
        json cells = json::array();
        for (const char* field : shown) {
            const auto ci = r.find(std::string(field) + "_ci");
            cells.push_back({{"value", r[field]}, {"ci", ci == r.end() ? json(nullptr) : *ci}});
        }
        r["cells"] = std::move(cells);
    }
}

inline json sweep_columns(const json& rows) {
    json out = json::array();
    if (rows.empty()) return out;
    for (const auto& [field, head] : sweep_table_heads)
        if (column_has_values(rows, field)) out.push_back({{"head", head}});
    return out;
}

// The level's cost per good token, or per output token where the runs had no SLOs ("cost_good",
// "cost_output" and their "_ci"): "–" without a price, so the column stays out of the table.
inline void add_sweep_cost(json& cells, const sweep_row& row) {
    const cost_figure* good = good_output_figure(row.cost);
    const cost_figure* output = row.cost && !good ? &row.cost->per_1m_output : nullptr;
    cells["cost_output"] = cost_value_text(output);
    cells["cost_output_ci"] = cost_ci_json(output);
    cells["cost_good"] = cost_value_text(good);
    cells["cost_good_ci"] = cost_ci_json(good);
}

inline json sweep_rows(const sweep_analysis& a) {
    json rows = json::array();
    for (const auto& row : a.rows) {
        // A value shown with its interval needs no dagger: the interval says how far it may move.
        auto seconds = [&](std::string_view c) {
            const std::size_t i = servestat::detail::column_index(c);
            const bool few = i < row.few_samples.size() && row.few_samples[i] && sweep_cell(row, c) && !sweep_ci(row, c);
            return format_seconds(sweep_cell(row, c)) + (few ? few_samples_mark : "");
        };
        const auto rps = sweep_cell(row, "rps"), tps = sweep_cell(row, "output_tps");
        rows.push_back({{"load", servestat::detail::load_text(row.load) +
                                     (row.replicates > 1 ? fmt::format(" ({} runs)", row.replicates) : std::string())},
                        {"rps", rps ? fmt::format("{:.2f}", *rps) : std::string(missing_value)},
                        {"output_tps", tps ? fmt::format("{:.1f}", *tps) : std::string(missing_value)},
                        {"success", format_share(sweep_cell(row, "success_rate"))},
                        {"e2e_p50", seconds("e2e.p50")},
                        {"e2e_p90", seconds("e2e.p90")},
                        {"e2e_p99", seconds("e2e.p99")},
                        {"ttft_p50", seconds("ttft.p50")},
                        {"ttft_p99", seconds("ttft.p99")},
                        {"short_p99", seconds("short.e2e.p99")},
                        {"long_p99", seconds("long.e2e.p99")}});
        add_sweep_intervals(rows.back(), row);
        add_sweep_cost(rows.back(), row);
    }
    add_sweep_cells(rows);
    return rows;
}

inline json sentences(const std::vector<std::string>& texts) {
    json out = json::array();
    for (const auto& t : texts) out.push_back({{"text", t}});
    return out;
}

// Where a level is drawn on a load axis: at its value; an unbounded rate one step past the last
// measured level (twice it on a log axis), where the axis names it "∞ (max)".
inline double plotted_load(const sweep_analysis& a, double load, bool log_x) {
    if (!std::isinf(load)) return load;
    std::vector<double> finite;
    for (const auto& row : a.rows)
        if (std::isfinite(row.load)) finite.push_back(row.load);
    if (finite.empty()) return 1;
    const double last = finite.back();
    if (log_x || finite.size() < 2) return last > 0 ? 2 * last : 1;
    return last + std::max(last - finite[finite.size() - 2], 0.25 * std::abs(last));
}

// Points (load, column) where the column is known, as one plot series.
inline plot::named_points series_over_load(const sweep_analysis& a, std::string_view column, std::string name,
                                           bool log_x = false) {
    plot::named_points s{std::move(name), {}, {}};
    for (const auto& row : a.rows)
        if (const auto v = sweep_cell(row, column)) {
            s.x.push_back(plotted_load(a, row.load, log_x));
            s.y.push_back(*v);
        }
    return s;
}

// The smallest to largest value of repeated runs around series `series`'s line (the line is their
// median); none when no level was run more than once.
inline std::optional<plot::band> replicate_band(const sweep_analysis& a, std::string_view column, std::size_t series,
                                                bool log_x) {
    const std::size_t i = servestat::detail::column_index(column);
    plot::band b{series, {}, {}, {}, "range of repeated runs"};
    bool any = false;
    for (const auto& row : a.rows) {
        if (i >= row.values.size() || !row.values[i]) continue;
        const bool spread = row.replicates > 1 && i < row.low.size() && row.low[i];
        b.x.push_back(plotted_load(a, row.load, log_x));
        b.low.push_back(spread ? *row.low[i] : *row.values[i]);
        b.high.push_back(spread ? *row.high[i] : *row.values[i]);
        any = any || spread;
    }
    return any ? std::optional<plot::band>(std::move(b)) : std::nullopt;
}

// The confidence interval of a percentile column around series `series` (drawn at the same x as
// series_over_load's points), from its low to its high end per level; NaN where a level has none, so
// the band breaks there. None when no level has one.
inline std::optional<plot::band> interval_band(const sweep_analysis& a, std::string_view column, std::size_t series,
                                               const std::string& name, double confidence, bool log_x) {
    plot::band b{series, {}, {}, {}, interval_band_label(confidence), fmt::format("{}: {:g}% confidence interval", name, 100 * confidence)};
    bool any = false;
    for (const auto& row : a.rows) {
        if (!sweep_cell(row, column)) continue;
        const auto ci = sweep_ci(row, column);
        b.x.push_back(plotted_load(a, row.load, log_x));
        b.low.push_back(ci ? ci->low : std::numeric_limits<double>::quiet_NaN());
        b.high.push_back(ci ? ci->high : std::numeric_limits<double>::quiet_NaN());
        any = any || ci.has_value();
    }
    return any ? std::optional<plot::band>(std::move(b)) : std::nullopt;
}

// Under a chart whose bands miss some level: "no shading where a level has too few requests for a
// 95% interval", or where it was run more than once (its median is no one run's percentile).
inline std::string no_band_caption(const sweep_analysis& a, const std::vector<std::string>& columns, double confidence) {
    bool few = false, replicated = false;
    for (const auto& row : a.rows)
        for (const auto& c : columns)
            if (sweep_cell(row, c) && !sweep_ci(row, c)) (row.replicates > 1 ? replicated : few) = true;
    const std::string runs = "was run more than once";
    if (few) return fmt::format("no shading where a level has too few requests for a {:g}% interval{}", 100 * confidence,
                                replicated ? " or " + runs : std::string());
    return replicated ? "no shading where a level " + runs : std::string();
}

// Whether the sweep table marks a percentile as resting on few samples (its footnote is shown then):
// a value shown with its interval carries no mark.
inline bool shows_few_samples_in(const sweep_analysis& a) {
    for (const auto& row : a.rows)
        for (std::size_t i = 0; i < row.few_samples.size() && i < row.values.size(); ++i)
            if (row.few_samples[i] && row.values[i] && !(i < row.ci.size() && row.ci[i])) return true;
    return false;
}

// Beside the percentiles' note, what the cost column's parentheses are; empty without a price.
inline std::string sweep_cost_interval_note(const sweep_analysis& a) {
    const auto with_ci = [](const sweep_row& r) {
        const cost_figure* f = sweep_cost_figure(r, good_output_figure(r.cost) != nullptr);
        return f && f->ci;
    };
    const auto shown = std::find_if(a.rows.begin(), a.rows.end(), with_ci);
    if (shown == a.rows.end()) return {};
    return fmt::format("Beside a cost: its {:g}% interval, by batch means over time windows within a run, or Student's t "
                       "between the runs of a level run more than once (docs/metrics.md#cost-per-token).",
                       100 * shown->cost->confidence);
}

// What the sweep table's parentheses mean, once under it; empty when it shows none. Its values
// without one rest on too few requests at their level (a p99 of 200 has no upper end at 95%), or
// are the median of a level run more than once.
inline std::string sweep_interval_note(const sweep_analysis& a, double confidence) {
    bool any = false, replicated = false;
    for (const auto& row : a.rows) {
        replicated = replicated || row.replicates > 1;
        for (const auto& [field, column] : sweep_percentile_fields) any = any || sweep_ci(row, column).has_value();
    }
    const std::string cost = sweep_cost_interval_note(a);
    if (!any) return cost;
    std::string out = interval_note({}, confidence, true);
    if (shows_few_samples_in(a))
        out += fmt::format(" A value without one ({}) has too few requests beyond it at its level to bound it.", few_samples_mark);
    if (replicated) out += " A level run more than once shows its runs' median, without an interval.";
    return cost.empty() ? out : out + " " + cost;
}

// One column's spread between the runs of a level: "97.1 ± 1.2 req/s (CV 1.3%)", the mean ± the
// standard deviation over runs; empty when the level has no spread in it.
inline std::string between_runs_text(const sweep_row& row, std::string_view column, bool seconds) {
    const std::size_t i = servestat::detail::column_index(column);
    if (i >= row.between_runs.size() || !row.between_runs[i] || !row.between_runs[i]->std) return {};
    const run_spread& s = *row.between_runs[i];
    const std::string value = seconds ? format_seconds(s.mean) + " ± " + format_seconds(*s.std)
                                      : fmt::format("{:.4g} ± {:.2g} req/s", s.mean, *s.std);
    return s.cv ? value + fmt::format(" (CV {:.1f}%)", 100 * *s.cv) : value;
}

// Run-to-run noise of each replicated level (stats/run_spread.hpp): throughput and e2e p99 as the
// mean ± std over its runs, with their coefficient of variation and the t-interval of the mean.
inline std::string between_runs_sentence(const sweep_analysis& a) {
    std::string out;
    for (const auto& row : a.rows) {
        if (row.replicates < 2) continue;
        const std::string rps = between_runs_text(row, "rps", false), p99 = between_runs_text(row, "e2e.p99", true);
        if (rps.empty() && p99.empty()) continue;
        std::string level = fmt::format(" {} measured {} times: ", format_load(a.curve.param, row.load), row.replicates);
        if (!rps.empty()) level += "throughput " + rps;
        if (!p99.empty()) level += (rps.empty() ? "e2e p99 " : ", e2e p99 ") + p99;
        const std::size_t i = servestat::detail::column_index("rps");
        if (i < row.between_runs.size() && row.between_runs[i] && row.between_runs[i]->mean_ci)
            level += fmt::format("; the mean throughput lies in {:.4g}–{:.4g} req/s at {:.0f}% confidence (Student's t over "
                                 "the runs)",
                                 row.between_runs[i]->mean_ci->low, row.between_runs[i]->mean_ci->high,
                                 100 * replicate_confidence);
        out += level + ".";
    }
    if (out.empty()) return {};
    return " Between runs (mean ± standard deviation over the runs, CV = standard deviation / mean):" + out;
}

// What the table and the plots make of levels measured more than once.
inline std::string replicates_sentence(const sweep_analysis& a) {
    std::string levels;
    for (const auto& row : a.rows)
        if (row.replicates > 1)
            levels.append(levels.empty() ? "" : ", ").append(fmt::format("{} ({} runs)", format_load(a.curve.param, row.load), row.replicates));
    if (levels.empty()) return {};
    return fmt::format("Measured more than once: {}. The table and the curves show the median of those runs; the "
                       "shaded band on the curves spans their smallest to largest value, and each run is in the run "
                       "tables.{}", levels, between_runs_sentence(a));
}

inline const sweep_knee* find_knee_of(const sweep_analysis& a, std::string_view curve) {
    for (const auto& k : a.knees)
        if (k.curve == curve && k.x && k.y) return &k;
    return nullptr;
}

// Little's law over every level: requests in flight (rps × mean e2e) against the concurrency asked.
inline std::string little_sentence(const sweep_analysis& a) {
    if (a.little.empty()) return {};
    double lo = a.little.front().ratio, hi = lo;
    std::string short_of;
    for (const auto& c : a.little) {
        lo = std::min(lo, c.ratio);
        hi = std::max(hi, c.ratio);
        if (c.ratio < little_ratio_floor) short_of.append(short_of.empty() ? "" : ", ").append(format_load(a.curve.param, c.load));
    }
    std::string out = fmt::format("Little's law (in flight = req/s × mean e2e): {:.0f}–{:.0f}% of the {} asked at the {} "
                                  "levels",
                                  100 * lo, 100 * hi, a.curve.param, a.little.size());
    if (short_of.empty()) return out + ", so the client kept the load it claims.";
    return out + "; under 80% at " + short_of + ", where the client, not the server, may limit the load.";
}

// The Little's law table: one row per level, whether or not it passes.
inline json little_rows(const sweep_analysis& a) {
    json rows = json::array();
    for (const auto& c : a.little)
        rows.push_back({{"load", servestat::detail::load_text(c.load)},
                        {"rps", fmt::format("{:.2f}", c.rps)},
                        {"mean_e2e", format_seconds(c.mean_e2e)},
                        {"in_flight", fmt::format("{:.1f}", c.in_flight)},
                        {"ratio", fmt::format("{:.0f}%", 100 * c.ratio)},
                        {"under_80", c.ratio < little_ratio_floor},
                        {"verdict", c.ratio < little_ratio_floor ? "under 80%" : "ok"}});
    return rows;
}

} // namespace detail

inline json sweep_view(const sweep_analysis& a, double confidence = 0.95) {
    std::vector<std::string> knees, capacity;
    for (const auto& k : a.knees) knees.push_back(detail::knee_sentence(a, k));
    for (const auto& c : a.capacity) capacity.push_back(detail::capacity_sentence(a, c));
    const json rows = detail::sweep_rows(a);
    return {{"title", detail::sweep_title(a)},
            {"param", a.curve.param},
            {"rows", rows},
            {"columns", detail::sweep_columns(rows)},
            {"knees", detail::sentences(knees)},
            {"has_capacity", !capacity.empty()},
            {"capacity", detail::sentences(capacity)},
            {"has_findings", !a.findings.empty()},
            {"findings", detail::sentences(a.findings)},
            {"has_few_samples", detail::shows_few_samples_in(a)},
            {"interval_note", detail::text_or_null(detail::sweep_interval_note(a, confidence))},
            {"replicates", detail::replicates_sentence(a)},
            {"has_replicates", !detail::replicates_sentence(a).empty()},
            {"has_little", !a.little.empty()},
            {"little", detail::little_sentence(a)},
            {"little_rows", detail::little_rows(a)}};
}

// Every sweep over one parameter on one chart per measure (throughput, e2e p99, TTFT p99): the
// configurations side by side, one series each, in the order given. None for a single sweep.
inline std::vector<plot_file> sweeps_overlay_plots(std::span<const sweep_analysis> sweeps,
                                                   const std::vector<std::string>& names, double confidence = 0.95) {
    std::vector<plot_file> out;
    if (sweeps.size() < 2) return out;
    const std::string param = sweeps.front().curve.param;
    for (const auto& a : sweeps)
        if (a.curve.param != param) return out;
    // One axis for all: log when the measured levels span a factor of 8; ∞ one step past the last.
    sweep_analysis all = sweeps.front();
    all.rows.clear();
    std::set<double> levels;
    for (const auto& a : sweeps)
        for (const auto& row : a.rows) levels.insert(row.load);
    for (double l : levels) all.rows.push_back({l, {}, {}, 1, {}, {}});
    std::vector<double> finite;
    for (double l : levels)
        if (std::isfinite(l)) finite.push_back(l);
    plot::line_options o;
    o.log_x = !finite.empty() && finite.front() > 0 && finite.back() / finite.front() >= 8;
    if (std::isinf(*levels.rbegin())) o.x_names.push_back({detail::plotted_load(all, *levels.rbegin(), o.log_x), "∞ (max)"});
    for (const auto& [column, what, axis, file] :
         {std::tuple{"rps", "Throughput", "throughput (req/s)", "throughput"},
          std::tuple{"e2e.p99", "End-to-end p99", "p99 end-to-end latency (s)", "e2e-p99"},
          std::tuple{"ttft.p99", "TTFT p99", "p99 time to first token (s)", "ttft-p99"}}) {
        std::vector<plot::named_points> series;
        plot::line_options with_bands = o;
        // An unbounded level sits one step past the last level any sweep measured.
        auto on_shared_axis = [&](std::vector<double>& xs) {
            for (auto& x : xs)
                if (x > (finite.empty() ? 0 : finite.back())) x = detail::plotted_load(all, std::numeric_limits<double>::infinity(), o.log_x);
        };
        for (std::size_t i = 0; i < sweeps.size(); ++i) {
            auto s = detail::series_over_load(sweeps[i], column, i < names.size() ? names[i] : sweeps[i].curve.group, o.log_x);
            on_shared_axis(s.x);
            if (s.x.size() < 2) continue;
            if (std::string_view(column) != "rps") {
                if (auto b = detail::interval_band(sweeps[i], column, series.size(), s.name, confidence, o.log_x)) {
                    on_shared_axis(b->x);
                    with_bands.bands.push_back(std::move(*b));
                }
                if (with_bands.caption.empty()) with_bands.caption = detail::no_band_caption(sweeps[i], {column}, confidence);
            }
            series.push_back(std::move(s));
        }
        if (series.size() < 2) continue;
        const std::string title = std::string(what) + " against " + param + " — every sweep";
        out.push_back({std::string("sweeps-") + file + ".svg", title, plot::line_chart(series, {title, param, axis}, with_bands)});
    }
    return out;
}

// The notebook's sweep charts, with Kneedle's knees marked. `prefix` keeps file names apart.
namespace detail {

// A level's split of one subset: each part's mean over the level's runs that have the subset's
// split (replicates weigh alike), or nothing when none has it.
inline std::optional<std::array<double, 5>> level_split(const sweep_point& level, std::span<const run_stats> runs,
                                                        const std::string& subset) {
    std::array<double, 5> sum{};
    std::size_t n = 0;
    for (const std::size_t i : level.replicates.empty() ? std::vector<std::size_t>{level.run} : level.replicates)
        for (const auto& s : runs[i].split.subsets)
            if (s.subset == subset) {
                for (std::size_t k = 0; k < sum.size(); ++k) sum[k] += s.mean[k];
                ++n;
            }
    if (n == 0) return std::nullopt;
    for (double& v : sum) v /= static_cast<double>(n);
    return sum;
}

} // namespace detail

// Per prompt-length subset, where a request's time goes at each level by the server's own clock
// (docs/metrics.md#the-time-split): one stacked chart per subset (`all` only where there is no
// other), a bar per level. None when no run of the sweep has the server's times.
inline std::vector<plot_file> sweep_split_plots(const sweep_analysis& a, std::span<const run_stats> runs,
                                                const std::string& prefix, const std::string& name) {
    std::vector<std::string> subsets; // in the runs' order: all, short, medium, long, then buckets
    time_split shown;                 // which parts the levels show: any level's client wait, queue apart in all
    for (const auto& p : a.curve.points) {
        const time_split& split = runs[p.run].split;
        for (const auto& s : split.subsets)
            if (std::find(subsets.begin(), subsets.end(), s.subset) == subsets.end()) subsets.push_back(s.subset);
        shown.client_wait = shown.client_wait || split.client_wait;
        shown.first_token_whole = shown.first_token_whole || split.first_token_whole;
    }
    std::vector<plot_file> out;
    for (const auto& subset : subsets) {
        if (subset == "all" && subsets.size() > 1) continue; // the prompt-length subsets say more, apart
        plot::bar_table t;
        std::vector<std::array<double, 5>> levels;
        for (const auto& p : a.curve.points)
            if (auto split = detail::level_split(p, runs, subset)) {
                t.categories.push_back(servestat::detail::load_text(p.load));
                levels.push_back(*split);
            }
        if (t.categories.size() < 2) continue;
        for (const split_part part : split_parts) {
            if (!shows_part(shown, part)) continue;
            t.series.push_back(split_part_title(part, shown.first_token_whole));
            std::vector<double> row;
            for (const auto& level : levels) row.push_back(level[static_cast<std::size_t>(part)]);
            t.values.push_back(std::move(row));
        }
        const std::string what = subset == "all" ? "every request" : subset + " prompts";
        const std::string title = fmt::format("Time of {} by {}, server's clock — {}", what, a.curve.param, name);
        out.push_back({fmt::format("{}-time-split-{}.svg", prefix, detail::slug(subset)), title,
                       plot::stacked_bar_chart(t, {title, a.curve.param, "mean time per request (s)"})});
    }
    return out;
}

inline std::vector<plot_file> sweep_plots(const sweep_analysis& a, const std::string& prefix, const std::string& short_name = {},
                                          double confidence = 0.95) {
    std::vector<plot_file> out;
    const std::string name = short_name.empty() ? detail::sweep_title(a) : short_name, param = a.curve.param;
    plot::line_options base;
    std::vector<double> finite;
    for (const auto& row : a.rows)
        if (std::isfinite(row.load)) finite.push_back(row.load);
    if (!finite.empty() && finite.front() > 0 && finite.back() / finite.front() >= 8) base.log_x = true;
    const bool log_x = base.log_x;
    if (!a.rows.empty() && std::isinf(a.rows.back().load))
        base.x_names.push_back({detail::plotted_load(a, a.rows.back().load, log_x), "∞ (max)"});
    auto add = [&](const std::string& kind, const std::string& title, std::string svg) {
        out.push_back({prefix + "-" + kind + ".svg", title, std::move(svg)});
    };
    // Each percentile series with its confidence interval as a band (where some level has one), and
    // under the axis why a level has none.
    auto add_interval_bands = [&](plot::line_options& o, const std::vector<plot::named_points>& series,
                                  const std::vector<std::string>& columns) {
        for (std::size_t i = 0; i < series.size() && i < columns.size(); ++i)
            if (auto b = detail::interval_band(a, columns[i], i, series[i].name, confidence, log_x)) o.bands.push_back(std::move(*b));
        o.caption = detail::no_band_caption(a, columns, confidence);
    };
    auto mark = [&](plot::line_options& o, std::string_view curve) {
        if (const auto* k = detail::find_knee_of(a, curve))
            o.marks.push_back({*k->x, *k->y, "knee " + (k->x_name == param ? detail::format_load(param, *k->x)
                                                        : k->load ? detail::format_load(param, *k->load)
                                                                  : fmt::format("{:.3g} req/s", *k->x))});
    };

    if (const auto rps = detail::series_over_load(a, "rps", "throughput", log_x); rps.x.size() > 1) {
        plot::line_options o = base;
        mark(o, "throughput");
        if (auto b = detail::replicate_band(a, "rps", 0, log_x)) o.bands.push_back(std::move(*b));
        const std::vector<plot::named_points> series{rps};
        add("throughput", "Throughput against " + param + " — " + name,
            plot::line_chart(series, {"Throughput against " + param + " — " + name, param, "throughput (req/s)"}, o));
    }
    std::vector<plot::named_points> percentiles;
    std::vector<std::string> percentile_columns;
    for (const char* p : {"p50", "p90", "p99"})
        if (auto s = detail::series_over_load(a, std::string("e2e.") + p, std::string("e2e ") + p, log_x); s.x.size() > 1) {
            percentiles.push_back(std::move(s));
            percentile_columns.push_back(std::string("e2e.") + p);
        }
    if (!percentiles.empty()) {
        plot::line_options o = base;
        mark(o, "p99");
        add_interval_bands(o, percentiles, percentile_columns);
        if (percentiles.back().name == "e2e p99")
            if (auto b = detail::replicate_band(a, "e2e.p99", percentiles.size() - 1, log_x)) o.bands.push_back(std::move(*b));
        add("percentiles", "Latency percentiles against " + param + " — " + name,
            plot::line_chart(percentiles, {"End-to-end p50 / p90 / p99 against " + param + " — " + name, param,
                                           "end-to-end latency (s)"}, o));
    }
    std::vector<plot::named_points> short_long;
    std::vector<std::string> short_long_columns;
    for (const char* subset : {"short", "long"})
        if (auto s = detail::series_over_load(a, std::string(subset) + ".e2e.p99", std::string(subset) + " p99", log_x);
            s.x.size() > 1) {
            short_long.push_back(std::move(s));
            short_long_columns.push_back(std::string(subset) + ".e2e.p99");
        }
    if (!short_long.empty()) {
        plot::line_options o = base;
        add_interval_bands(o, short_long, short_long_columns);
        add("short-long-p99", "Short and long requests' p99 against " + param + " — " + name,
            plot::line_chart(short_long, {"Short vs long prompts: p99 against " + param + " — " + name, param,
                                          "p99 end-to-end latency (s)"}, o));
    }

    std::vector<plot::named_points> ttft;
    std::vector<std::string> ttft_columns;
    for (const char* p : {"p50", "p99"})
        if (auto s = detail::series_over_load(a, std::string("ttft.") + p, std::string("TTFT ") + p, log_x); s.x.size() > 1) {
            ttft.push_back(std::move(s));
            ttft_columns.push_back(std::string("ttft.") + p);
        }
    if (!ttft.empty()) {
        plot::line_options o = base;
        mark(o, "ttft");
        add_interval_bands(o, ttft, ttft_columns);
        add("ttft", "Time to first token against " + param + " — " + name,
            plot::line_chart(ttft, {"TTFT p50 / p99 against " + param + " — " + name, param, "time to first token (s)"}, o));
    }

    // Cost and energy per good token (per output token without SLOs) against load, each with its
    // interval as a band: only where the levels have the figure.
    const auto per_token_chart = [&](const std::string& series_name, const std::string& slug, const std::string& title,
                                     const std::string& y_label, double figure_confidence, auto&& figure_of) {
        plot::named_points points{series_name, {}, {}};
        plot::band band{0, {}, {}, {}, interval_band_label(figure_confidence),
                        fmt::format("{}: {:g}% confidence interval", series_name, 100 * figure_confidence)};
        for (const auto& row : a.rows) {
            const cost_figure* f = figure_of(row);
            if (!f || !f->value) continue;
            const double x = detail::plotted_load(a, row.load, log_x);
            points.x.push_back(x);
            points.y.push_back(*f->value);
            band.x.push_back(x);
            band.low.push_back(f->ci ? f->ci->low : std::numeric_limits<double>::quiet_NaN());
            band.high.push_back(f->ci ? f->ci->high : std::numeric_limits<double>::quiet_NaN());
        }
        if (points.x.size() < 2) return;
        plot::line_options o = base;
        if (std::any_of(band.low.begin(), band.low.end(), [](double v) { return std::isfinite(v); }))
            o.bands.push_back(std::move(band));
        const std::vector<plot::named_points> series{std::move(points)};
        add(slug, title, plot::line_chart(series, {title, param, y_label}, o));
    };
    const bool good = sweep_cost_is_good(a);
    const auto priced = std::find_if(a.rows.begin(), a.rows.end(), [](const sweep_row& r) { return r.cost.has_value(); });
    per_token_chart(good ? "$ per 1M good output tokens" : "$ per 1M output tokens", good ? "cost-per-good-token" : "cost-per-token",
                    (good ? "Cost per good token against " : "Cost per token against ") + param + " — " + name,
                    good ? "USD per 1M good output tokens" : "USD per 1M output tokens",
                    priced == a.rows.end() ? confidence : priced->cost->confidence,
                    [good](const sweep_row& row) { return sweep_cost_figure(row, good); });
    const bool good_energy = sweep_energy_is_good(a);
    const auto measured = std::find_if(a.rows.begin(), a.rows.end(), [](const sweep_row& r) { return r.energy.has_value(); });
    per_token_chart(good_energy ? "J per good output token" : "J per output token",
                    good_energy ? "energy-per-good-token" : "energy-per-token",
                    (good_energy ? "Energy per good token against " : "Energy per token against ") + param + " — " + name,
                    good_energy ? "J per good output token" : "J per output token",
                    measured == a.rows.end() ? confidence : measured->energy->confidence,
                    [good_energy](const sweep_row& row) { return sweep_energy_figure(row, good_energy); });

    // The notebook's "knee visualization": p99 against throughput, each point labelled by its load.
    plot::named_points tradeoff{"load levels", {}, {}};
    std::vector<std::string> labels;
    for (const auto& row : a.rows) {
        const auto rps = detail::sweep_cell(row, "rps"), p99 = detail::sweep_cell(row, "e2e.p99");
        if (!rps || !p99) continue;
        tradeoff.x.push_back(*rps);
        tradeoff.y.push_back(*p99);
        labels.push_back(detail::format_load(param, row.load));
    }
    if (tradeoff.x.size() > 1) {
        plot::line_options o;
        o.point_labels.push_back(labels);
        mark(o, "tradeoff");
        const std::vector<plot::named_points> series{tradeoff};
        add("p99-vs-rps", "p99 against throughput — " + name,
            plot::line_chart(series, {"p99 latency against throughput (labels: " + param + ") — " + name,
                                      "throughput (req/s)", "p99 end-to-end latency (s)"}, o));
    }
    return out;
}

} // namespace servestat::report
