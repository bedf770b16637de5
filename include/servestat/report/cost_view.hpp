// How cost per token is shown (docs/metrics.md#cost-per-token): dollars to a fixed precision with
// their intervals, the KPI table's cost cells (the note under them is digest.hpp's), a run's line in
// `stats`, a sweep's sentence (its column and chart are sweep_view.hpp's), and the costs before →
// after in a comparison.
#pragma once

#include <algorithm> // std::min, std::find, std::any_of, std::none_of
#include <cmath>     // std::abs, std::floor, std::log10
#include <cstddef>   // std::size_t
#include <optional>  // std::optional
#include <string>    // std::string
#include <utility>   // std::pair, std::move
#include <vector>    // std::vector

#include <fmt/format.h> // fmt::format

#include "servestat/compare/cost_change.hpp" // cost_change, compare_costs, describe(cost_verdict)
#include "servestat/report/change_text.hpp"  // signed_percent, with_sign
#include "servestat/report/format.hpp"       // missing_value
#include "servestat/report/stats_json.hpp"   // json
#include "servestat/stats/cost.hpp"          // run_cost, cost_figure, deployment_price
#include "servestat/stats/run_stats.hpp"     // run_stats
#include "servestat/sweep/sweep_analysis.hpp" // sweep_analysis, sweep_row, detail::format_load

namespace servestat::report {

namespace detail {

// Two decimals from ten cents up; below, three significant digits ($0.0421).
inline int usd_decimals(double magnitude) {
    if (!(magnitude > 0) || magnitude >= 0.1) return 2;
    return std::min(8, 2 - static_cast<int>(std::floor(std::log10(magnitude))));
}

} // namespace detail

// 40 → "$40.00", 0.0421 → "$0.0421".
inline std::string format_usd(double v) {
    return (v < 0 ? "−$" : "$") + fmt::format("{:.{}f}", std::abs(v), detail::usd_decimals(std::abs(v)));
}

// "(38.10–42.20)": to the value's decimals, the dollar said once, by the value.
inline std::string format_usd_interval(double value, const interval& ci) {
    const int d = detail::usd_decimals(std::abs(value));
    return fmt::format("({:.{}f}–{:.{}f})", ci.low, d, ci.high, d);
}

inline std::string cost_value_text(const cost_figure* f) { return f && f->value ? format_usd(*f->value) : missing_value; }

inline json cost_ci_json(const cost_figure* f) {
    return f && f->value && f->ci ? json(format_usd_interval(*f->value, *f->ci)) : json(nullptr);
}

// "$40.00 (38.10–42.20)", the value alone where it has no interval, "–" where there is none.
inline std::string cost_text(const cost_figure& f) {
    if (!f.value) return missing_value;
    return f.ci ? format_usd(*f.value) + " " + format_usd_interval(*f.value, *f.ci) : format_usd(*f.value);
}

// "$7.20/h (2 GPUs × $3.60/h)", or "$3.60/h" for the deployment's own price.
inline std::string price_text(const deployment_price& p) {
    if (!p.gpus) return format_usd(p.per_hour) + "/h";
    return fmt::format("{}/h ({} GPU{} × {}/h)", format_usd(p.deployment_per_hour()), *p.gpus, *p.gpus == 1 ? "" : "s",
                       format_usd(p.per_hour));
}

inline const cost_figure* good_output_figure(const std::optional<run_cost>& c) {
    return c && c->per_1m_good_output ? &*c->per_1m_good_output : nullptr;
}

// ---- the KPI table -------------------------------------------------------------------------------

// The KPI row's cost cells ("cost_output", "cost_good_output" and their "_ci"), a run's whole only:
// `r` null for a subset's row or a row without requests to price.
inline void add_kpi_cost(json& row, const run_stats* r, bool whole = true) {
    const cost_figure* output = r && r->cost ? &r->cost->per_1m_output : nullptr;
    const cost_figure* good = r ? good_output_figure(r->cost) : nullptr;
    row["cost_output"] = whole ? cost_value_text(output) : std::string();
    row["cost_output_ci"] = whole ? cost_ci_json(output) : json(nullptr);
    row["cost_good_output"] = whole ? cost_value_text(good) : std::string();
    row["cost_good_output_ci"] = whole ? cost_ci_json(good) : json(nullptr);
}

// ---- `stats` -------------------------------------------------------------------------------------

// A run's costs on one line of `stats`:
//   cost at $7.20/h (2 GPUs × $3.60/h): $40.00 per 1M output tokens (38.10–42.20), ...; 95% CI by
//   batch means over 20 windows of 5 s; lag-1 autocorrelation 0.05
// Where the figures' intervals were drawn differently (their windows merged apart), each method
// names the figures it holds for: "(output, total)", "(good output)".
inline std::string cost_line(const run_cost& c) {
    struct shown {
        const char* what;  // in the values: "per 1M output tokens"
        const char* short_name; // beside a method: "output"
        const cost_figure* figure;
    };
    std::vector<shown> figures{{"output tokens", "output", &c.per_1m_output}, {"tokens", "total", &c.per_1m_total}};
    if (c.per_1m_good_output) figures.push_back({"good output tokens", "good output", &*c.per_1m_good_output});
    std::string values;
    std::vector<std::pair<std::string, std::string>> methods, without; // text, the figures it holds for
    const auto note = [](std::vector<std::pair<std::string, std::string>>& list, const std::string& text, const char* name) {
        for (auto& [t, names] : list)
            if (t == text) {
                names.append(", ").append(name);
                return;
            }
        list.emplace_back(text, name);
    };
    for (const auto& f : figures) {
        values.append(values.empty() ? "" : ", ");
        if (!f.figure->value) {
            values.append(fmt::format("per 1M {} none ({})", f.what, f.figure->why));
            continue;
        }
        values.append(fmt::format("{} per 1M {}", format_usd(*f.figure->value), f.what));
        if (f.figure->ci) {
            values.append(" " + format_usd_interval(*f.figure->value, *f.figure->ci));
            note(methods, f.figure->method, f.short_name);
        } else {
            note(without, f.figure->why, f.short_name);
        }
    }
    const bool name_them = methods.size() + without.size() > 1;
    std::string out = fmt::format("  cost at {}: {}", price_text(c.price), values);
    for (std::size_t i = 0; i < methods.size(); ++i)
        out += fmt::format("{}{}{}", i == 0 ? fmt::format("; {:g}% CI by ", 100 * c.confidence) : std::string(", "),
                           methods[i].first, name_them ? " (" + methods[i].second + ")" : std::string());
    for (const auto& [why, names] : without)
        out += fmt::format("; no interval{}: {}", name_them ? " for " + names : std::string(), why);
    return out + "\n";
}

// ---- sweeps --------------------------------------------------------------------------------------

// The figure a sweep's cost is told by: per good token where its levels had SLOs, else per output token.
inline bool sweep_cost_is_good(const sweep_analysis& a) {
    return std::any_of(a.rows.begin(), a.rows.end(), [](const sweep_row& r) { return good_output_figure(r.cost) != nullptr; });
}

inline const cost_figure* sweep_cost_figure(const sweep_row& row, bool good) {
    if (!row.cost) return nullptr;
    return good ? good_output_figure(row.cost) : &row.cost->per_1m_output;
}

// Where the sweep's cost per good token is lowest, and what it is at the highest load when that is
// another: "Cost per 1M good output tokens is lowest at c=16: $0.42 (0.39–0.46); at c=64 it is $1.10
// as fewer requests meet the SLO." The reason is told only where the levels show it: a smaller share
// of the output tokens comes from requests that met every SLO (output cost / good cost). Empty
// without a price.
inline std::string sweep_cost_sentence(const sweep_analysis& a) {
    if (std::none_of(a.rows.begin(), a.rows.end(), [](const sweep_row& r) { return r.cost.has_value(); })) return {};
    const bool good = sweep_cost_is_good(a);
    const std::string what = good ? "Cost per 1M good output tokens" : "Cost per 1M output tokens";
    const sweep_row* best = nullptr;
    for (const auto& row : a.rows) {
        const cost_figure* f = sweep_cost_figure(row, good);
        if (f && f->value && (!best || *f->value < *sweep_cost_figure(*best, good)->value)) best = &row;
    }
    const sweep_row& top = a.rows.back();
    const cost_figure* top_figure = sweep_cost_figure(top, good);
    if (!best)
        return fmt::format("{}: none at any level ({}).", what, top_figure && !top_figure->why.empty() ? top_figure->why : "no rate");
    const cost_figure& lowest = *sweep_cost_figure(*best, good);
    std::string out = fmt::format("{} is lowest at {}: {}", what, servestat::detail::format_load(a.curve.param, best->load), cost_text(lowest));
    if (&top != best) {
        if (!top_figure || !top_figure->value) {
            out += fmt::format("; at {} there is none ({})", servestat::detail::format_load(a.curve.param, top.load),
                               top_figure ? top_figure->why : std::string("no price"));
        } else {
            out += fmt::format("; at {} it is {}", servestat::detail::format_load(a.curve.param, top.load), cost_text(*top_figure));
            const auto good_share = [&](const sweep_row& r) -> std::optional<double> {
                const cost_figure* g = good_output_figure(r.cost);
                if (!good || !g || !g->value || !r.cost->per_1m_output.value) return std::nullopt;
                return *r.cost->per_1m_output.value / *g->value;
            };
            const auto share_best = good_share(*best), share_top = good_share(top);
            if (share_best && share_top && *share_top < *share_best) out += " as fewer requests meet the SLO";
        }
    }
    return out + ".";
}

// ---- compare -------------------------------------------------------------------------------------

namespace detail {

inline const char* cost_row_name(const std::string& figure) {
    if (figure == "per_1m_output") return "$ / 1M output tokens";
    if (figure == "per_1m_total") return "$ / 1M tokens";
    return "$ / 1M good output tokens";
}

inline std::string cost_delta_text(const cost_change& c) {
    if (!c.delta) return missing_value;
    const std::string delta = with_sign(format_usd(std::abs(*c.delta)), *c.delta);
    return c.relative ? delta + " (" + signed_percent(*c.relative) + ")" : delta;
}

} // namespace detail

// A per-token figure's row of the run-level table, before → after (cost here, energy in
// energy_view.hpp): no interval of the change and no p (one number per run and side), a verdict
// only where the two sides' intervals do not overlap.
inline json figure_change_row(const std::string& name, const std::string& pair, std::string before, std::string after,
                              std::string change, cost_verdict result) {
    return {{"name", name},
            {"metric", name},
            {"pair", pair},
            {"before", std::move(before)},
            {"after", std::move(after)},
            {"change", std::move(change)},
            {"ci", missing_value},
            {"p", missing_value},
            {"verdict", std::string(describe(result))},
            {"css", result == cost_verdict::improved    ? "improved"
                    : result == cost_verdict::regressed ? "regressed"
                                                        : "neutral"},
            {"significant", result != cost_verdict::not_shown_to_differ},
            {"before_mark", ""},
            {"after_mark", ""}};
}

// The costs before → after as rows of the run-level table: each side's value with its own interval,
// the change, no interval of the change (one number per run and side), and a verdict only where the
// two intervals do not overlap (compare/cost_change.hpp).
inline json cost_change_rows(const std::optional<run_cost>& before, const std::optional<run_cost>& after,
                             const std::string& pair = {}) {
    json rows = json::array();
    for (const auto& c : compare_costs(before, after))
        rows.push_back(figure_change_row(detail::cost_row_name(c.name), pair, cost_text(c.before), cost_text(c.after),
                                         detail::cost_delta_text(c), c.result));
    return rows;
}

// What a cost row's verdict means, for the note beside the verdict counts.
inline constexpr const char* cost_verdict_terms =
    "Cost per token is one value per run and side, each with its own interval (docs/metrics.md#cost-per-token): "
    "improved or regressed only where the two intervals do not overlap, else not shown to differ; it is not "
    "among the statistics counted or gated.";

} // namespace servestat::report
