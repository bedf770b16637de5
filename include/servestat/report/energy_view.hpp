// How energy per token is shown (docs/metrics.md#energy-per-token): joules to three significant
// digits with their intervals, the KPI table's energy cells and the note under them, a run's line in
// `stats`, a sweep's sentence, and the energy before → after in a comparison.
#pragma once

#include <algorithm> // std::any_of, std::none_of, std::find
#include <cmath>     // std::abs, std::floor, std::log10
#include <optional>  // std::optional
#include <span>      // std::span
#include <string>    // std::string
#include <utility>   // std::move
#include <vector>    // std::vector

#include <fmt/format.h> // fmt::format

#include "servestat/compare/cost_change.hpp"  // compare_energy
#include "servestat/report/cost_view.hpp"     // figure_change_row
#include "servestat/report/change_text.hpp"   // detail::signed_percent, detail::with_sign
#include "servestat/report/format.hpp"        // missing_value
#include "servestat/report/stats_json.hpp"    // json
#include "servestat/stats/energy.hpp"         // run_energy, energy_figure
#include "servestat/stats/run_stats.hpp"      // run_stats
#include "servestat/sweep/sweep_analysis.hpp" // sweep_analysis, sweep_row, detail::format_load

namespace servestat::report {

namespace detail {

// Decimals that give three significant digits (0.412, 12.3, 1234).
inline int three_digits_decimals(double magnitude) {
    if (!(magnitude > 0)) return 2;
    return std::max(0, 2 - static_cast<int>(std::floor(std::log10(magnitude))));
}

} // namespace detail

// 0.4123 → "0.412 J".
inline std::string format_joules(double v) {
    return fmt::format("{:.{}f} J", v, detail::three_digits_decimals(std::abs(v)));
}

// "(0.391–0.446)": to the value's decimals, the unit said once, by the value.
inline std::string format_energy_interval(double value, const interval& ci) {
    const int d = detail::three_digits_decimals(std::abs(value));
    return fmt::format("({:.{}f}–{:.{}f})", ci.low, d, ci.high, d);
}

inline std::string energy_value_text(const energy_figure* f) { return f && f->value ? format_joules(*f->value) : missing_value; }

inline json energy_ci_json(const energy_figure* f) {
    return f && f->value && f->ci ? json(format_energy_interval(*f->value, *f->ci)) : json(nullptr);
}

// "0.412 J (0.391–0.446)", the value alone without an interval, "–" where there is none.
inline std::string energy_text(const energy_figure& f) {
    if (!f.value) return missing_value;
    return f.ci ? format_joules(*f.value) + " " + format_energy_interval(*f.value, *f.ci) : format_joules(*f.value);
}

inline const energy_figure* good_energy_figure(const std::optional<run_energy>& e) {
    return e && e->per_good_output_token ? &*e->per_good_output_token : nullptr;
}

inline const energy_figure* output_energy_figure(const std::optional<run_energy>& e) {
    return e && e->joules ? &e->per_output_token : nullptr;
}

// ---- the KPI table -------------------------------------------------------------------------------

// The KPI row's energy cells ("energy_output", "energy_good_output" and their "_ci"), a run's whole
// only (`whole` false for a subset's row).
inline void add_kpi_energy(json& row, const run_stats* r, bool whole = true) {
    const energy_figure* output = r ? output_energy_figure(r->energy) : nullptr;
    const energy_figure* good = r ? good_energy_figure(r->energy) : nullptr;
    row["energy_output"] = whole ? energy_value_text(output) : std::string();
    row["energy_output_ci"] = whole ? energy_ci_json(output) : json(nullptr);
    row["energy_good_output"] = whole ? energy_value_text(good) : std::string();
    row["energy_good_output_ci"] = whole ? energy_ci_json(good) : json(nullptr);
}

// A run's energy in one sentence for a note: "run-a: 412 W on average over the run, from
// DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION (mJ counter) on run-a.power-timeline.jsonl", or why none.
inline std::string energy_source_text(const run_energy& e) {
    if (!e.joules) return "no energy: " + e.why;
    std::string out = e.mean_watts ? fmt::format("{:.0f} W on average, from {}", *e.mean_watts, e.source) : "from " + e.source;
    for (const auto& n : e.notes) out += "; " + n;
    return out;
}

// ---- `stats` -------------------------------------------------------------------------------------

// A run's energy on one line of `stats`:
//   energy: 0.412 J per output token (0.391–0.446), 2.43 tokens per J (2.24–2.56), 0.52 J per good
//   output token (...); 95% CI by batch means over 20 windows of 5 s; lag-1 autocorrelation 0.05;
//   412 W on average, from DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION (mJ counter) on run.power-timeline.jsonl
inline std::string energy_line(const run_energy& e) {
    if (!e.joules) return "  energy: none (" + e.why + ")\n";
    const auto figure = [](const energy_figure& f, const char* what, bool joules) {
        if (!f.value) return fmt::format("{} none ({})", what, f.why);
        const std::string v = joules ? format_joules(*f.value) : fmt::format("{:.3g}", *f.value);
        if (!f.ci) return fmt::format("{} {}", v, what);
        return fmt::format("{} {} {}", v, what,
                           joules ? format_energy_interval(*f.value, *f.ci) : fmt::format("({:.3g}–{:.3g})", f.ci->low, f.ci->high));
    };
    std::string out = "  energy: " + figure(e.per_output_token, "per output token", true) + ", " +
                      figure(e.output_tokens_per_joule, "output tokens per J", false);
    if (e.per_good_output_token) out += ", " + figure(*e.per_good_output_token, "per good output token", true);
    const energy_figure& f = e.per_output_token;
    if (f.ci) out += fmt::format("; {:g}% CI by {}", 100 * e.confidence, f.method);
    else if (f.value) out += "; no interval: " + f.why;
    if (e.per_good_output_token && e.per_good_output_token->value && !e.per_good_output_token->ci && f.ci)
        out += "; none for good output tokens: " + e.per_good_output_token->why;
    return out + "; " + energy_source_text(e) + "\n";
}

// ---- sweeps --------------------------------------------------------------------------------------

// The figure a sweep's energy is told by: per good output token where its levels had SLOs.
inline bool sweep_energy_is_good(const sweep_analysis& a) {
    return std::any_of(a.rows.begin(), a.rows.end(), [](const sweep_row& r) { return good_energy_figure(r.energy) != nullptr; });
}

inline const energy_figure* sweep_energy_figure(const sweep_row& row, bool good) {
    return good ? good_energy_figure(row.energy) : output_energy_figure(row.energy);
}

// Where the sweep's energy per good output token (per output token without SLOs) is lowest, and
// what it is at the highest load when that is another. Empty where no level has an energy.
inline std::string sweep_energy_sentence(const sweep_analysis& a) {
    if (std::none_of(a.rows.begin(), a.rows.end(), [](const sweep_row& r) { return r.energy && r.energy->joules; })) return {};
    const bool good = sweep_energy_is_good(a);
    const std::string what = good ? "Energy per good output token" : "Energy per output token";
    const sweep_row* best = nullptr;
    for (const auto& row : a.rows) {
        const energy_figure* f = sweep_energy_figure(row, good);
        if (f && f->value && (!best || *f->value < *sweep_energy_figure(*best, good)->value)) best = &row;
    }
    if (!best) return fmt::format("{}: none at any level.", what);
    const sweep_row& top = a.rows.back();
    const energy_figure& lowest = *sweep_energy_figure(*best, good);
    const energy_figure* at_top = sweep_energy_figure(top, good);
    // Without intervals, a lowest that the top load matches within 2% is no finding: say they are even.
    if (&top != best && at_top && at_top->value && !lowest.ci && !at_top->ci && *at_top->value < 1.02 * *lowest.value)
        return fmt::format("{} is about the same at {} and {}: {} and {} (within 2%; no intervals: {}).", what,
                           servestat::detail::format_load(a.curve.param, best->load),
                           servestat::detail::format_load(a.curve.param, top.load), energy_text(lowest),
                           energy_text(*at_top), lowest.why);
    std::string out = fmt::format("{} is lowest at {}: {}", what, servestat::detail::format_load(a.curve.param, best->load),
                                  energy_text(lowest));
    if (&top != best)
        out += at_top && at_top->value
                   ? fmt::format("; at {} it is {}", servestat::detail::format_load(a.curve.param, top.load), energy_text(*at_top))
                   : fmt::format("; at {} there is none", servestat::detail::format_load(a.curve.param, top.load));
    return out + ".";
}

// ---- compare -------------------------------------------------------------------------------------

// The energy before → after as rows of the run-level table, as cost_change_rows: each side's value
// with its own interval, a verdict only where the two intervals do not overlap.
inline json energy_change_rows(const std::optional<run_energy>& before, const std::optional<run_energy>& after,
                               const std::string& pair = {}) {
    json rows = json::array();
    for (const auto& c : compare_energy(before, after)) {
        std::string change = missing_value;
        if (c.delta) {
            change = detail::with_sign(format_joules(std::abs(*c.delta)), *c.delta);
            if (c.relative) change += " (" + detail::signed_percent(*c.relative) + ")";
        }
        rows.push_back(figure_change_row(c.name == "per_output_token" ? "J / output token" : "J / good output token", pair,
                                         energy_text(c.before), energy_text(c.after), std::move(change), c.result));
    }
    return rows;
}

// What an energy row's verdict means, for the note beside the verdict counts.
inline constexpr const char* energy_verdict_terms =
    "Energy per token is one value per run and side, each with its own interval (docs/metrics.md#energy-per-token): "
    "improved or regressed only where the two intervals do not overlap, else not shown to differ; it is not among "
    "the statistics counted or gated.";

} // namespace servestat::report
