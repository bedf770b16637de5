// `servestat stats`' aligned text: each run's heading, its per-subset tables with intervals and
// failed-request rows, the waiting breakdown, notes and the tool's reported values; then each
// sweep's table, knees and capacity, and each grid's heat tables and sweet spot.
#pragma once

#include <algorithm>   // std::max, std::any_of
#include <cmath>       // std::isinf
#include <cstddef>     // std::size_t
#include <optional>    // std::optional
#include <span>        // std::span
#include <string>      // std::string
#include <string_view> // std::string_view
#include <vector>      // std::vector

#include <fmt/format.h> // fmt::format, fmt::runtime

#include "servestat/core/run.hpp"               // run_kind
#include "servestat/core/utf8.hpp"              // shortened_text
#include "servestat/report/cost_view.hpp"       // report::cost_line, report::sweep_cost_sentence
#include "servestat/report/energy_view.hpp"     // report::energy_line, report::sweep_energy_sentence
#include "servestat/report/few_samples.hpp"     // report::few_samples_note
#include "servestat/stats/breakdown.hpp"        // breakdown
#include "servestat/stats/client_limits.hpp"    // check_client, client_limit_sentence
#include "servestat/stats/error_kinds.hpp"      // to_string(error_kind)
#include "servestat/stats/metrics.hpp"          // to_string(metric)
#include "servestat/stats/run_stats.hpp"        // run_stats, subset_stats, arrival_stats
#include "servestat/stats/run_validity.hpp"     // run_failed_entirely, run_errors
#include "servestat/stats/sample_size.hpp"      // rests_on_few_samples, few_sample_percentiles
#include "servestat/stats/summary.hpp"          // summary, percentile_key
#include "servestat/sweep/curve_shape.hpp"      // curve_kind, describe
#include "servestat/sweep/grid.hpp"             // grid, grid_analysis, grid_cell, to_string(grid_constraint)
#include "servestat/sweep/sweep.hpp"            // detail::load_text, sweep_value
#include "servestat/sweep/sweep_analysis.hpp"   // sweep_analysis, sweep_row, sweep_table_columns, detail::format_load

namespace servestat::app {

namespace detail {

inline std::string seconds_or_dash(const std::optional<double>& v) { return v ? fmt::format("{:.4f}", *v) : "-"; }

inline std::string number_or_dash(const std::optional<double>& v) { return v ? fmt::format("{:.4g}", *v) : "-"; }

inline std::string arrivals_heading(const run_stats& r) {
    const arrival_stats& a = *r.arrivals;
    std::string out = fmt::format("  workload trace: {} arrivals", a.count);
    if (a.span) out += fmt::format(" over {:.3f} s, {:.3f} per second", *a.span, *a.rate);
    if (a.gaps.cov) out += fmt::format(", inter-arrival CoV {:.2f}", *a.gaps.cov);
    return out + "\n";
}

inline std::string token_line(const char* what, const summary& s) {
    if (s.n == 0) return {};
    std::string out = fmt::format("  {:<14} n {}  mean {}", what, s.n, number_or_dash(s.mean));
    for (const auto& p : s.percentiles) out += fmt::format("  {} {}", percentile_key(p.p), number_or_dash(p.value));
    return out + fmt::format("  max {}\n", number_or_dash(s.max));
}

inline std::string notes_and_reported(const run_stats& r) {
    std::string out;
    for (const auto& note : r.meta.notes) out += fmt::format("  note: {}\n", note);
    if (r.meta.reported.empty()) return out;
    out += fmt::format("  reported by the tool ({} values):\n", r.meta.reported.size());
    for (const auto& v : r.meta.reported) out += fmt::format("    {:<52} {:>14.6g} {}\n", v.name, v.value, v.unit);
    return out;
}

// The server's speculative-decoding figures, means over the ok requests; nothing when it reported none.
inline std::string speculation_line(const run_stats& r) {
    if (!r.server_spec_acceptance && !r.server_draft_acceptance) return {};
    std::string out = "  speculative decoding (as the server reported, mean per request):";
    if (r.server_spec_acceptance) out += fmt::format("  acceptance length {:.2f}", *r.server_spec_acceptance);
    if (r.server_draft_acceptance) out += fmt::format("  draft acceptance {:.1f}%", 100 * *r.server_draft_acceptance);
    return out + "\n";
}

inline std::string run_heading(const run_stats& r) {
    std::string out = fmt::format("run {}  ({}, {})\n", r.meta.label, r.meta.source.path, r.meta.source.format);
    if (r.meta.kind == run_kind::arrivals) return out + arrivals_heading(r);
    // A run in which nothing completed is no measurement: said first, and its zero rates left out.
    const bool nothing = run_failed_entirely(r);
    if (nothing) {
        const auto errors = run_errors(r);
        out += errors && errors->failed > 0
                   ? fmt::format("  failed run: nothing completed ({:g} of {:g} requests failed): no rates or latencies\n",
                                 errors->failed, errors->requests)
                   : std::string("  failed run: nothing completed: no rates or latencies\n");
    }
    if (r.meta.kind == run_kind::summary && r.requests == 0) return out + "  aggregates only: no per-request records\n";
    out += fmt::format("  requests {}  ok {}  failed {}", r.requests, r.ok, r.failed);
    if (r.duration)
        out += fmt::format("  duration {:.3f} s{}", *r.duration, r.duration_from == duration_source::reported ? " (as reported)" : "");
    if (r.rps && !nothing) out += fmt::format("  rps {:.3f}", *r.rps);
    if (r.output_tps && !nothing) out += fmt::format("  output tok/s {:.1f}", *r.output_tps);
    if (r.total_tps && !nothing) out += fmt::format("  total tok/s {:.1f}", *r.total_tps);
    if (r.peak_concurrency) out += fmt::format("  peak concurrency {}", *r.peak_concurrency);
    if (!r.meta.shared_clock && !r.duration) out += "\n  (per-request durations only: no shared clock, so no rates)";
    out += "\n";
    for (const auto& e : r.errors)
        out += fmt::format("  failed {:<16} {:>6}  e.g. {}\n", to_string(e.kind), e.count,
                           shortened_text(e.example, 160));
    if (r.goodput) {
        std::string slos;
        for (const auto& s : r.goodput->slos) slos += fmt::format("{}{}<={}s", slos.empty() ? "" : ",", to_string(s.on), s.max_seconds);
        out += fmt::format("  goodput ({}): {} good", slos, r.goodput->good);
        if (r.goodput->share) out += fmt::format(" ({:.1f}% of requests)", 100 * *r.goodput->share);
        if (r.goodput->rps) out += fmt::format(", {:.3f} req/s", *r.goodput->rps);
        if (r.goodput->unmeasurable) out += fmt::format(", {} ok requests lack an SLO metric", r.goodput->unmeasurable);
        out += "\n";
    }
    out += speculation_line(r);
    if (r.cost) out += report::cost_line(*r.cost);
    if (r.energy) out += report::energy_line(*r.energy);
    return out;
}

// Under a metric whose failures were counted: its percentiles with the subset's failed requests
// as +∞ (AIPerf's adj_pNN), "∞" where one rests on a failure, aligned with the row above.
inline std::string with_failed_row(const summary& s) {
    if (s.failed == 0) return {};
    const double share = static_cast<double>(s.failed) / static_cast<double>(s.n + s.failed);
    std::string out = fmt::format("    {:<15}{:>9}{:>41}", "  with failed", s.n + s.failed,
                                  fmt::format("{} failed ({:.1f}%) as ∞", s.failed, 100 * share));
    for (const auto& p : s.percentiles)
        out += fmt::format("{:>11}", !p.with_failed ? std::string("-") : std::isinf(*p.with_failed) ? std::string("∞")
                                                                                                  : seconds_or_dash(p.with_failed));
    return out + fmt::format("{:>11}\n", "∞");
}

// Under a metric's row: the intervals of its mean and percentiles at the run's confidence, one
// line ("-" where n cannot bound a percentile); a sketch's ends are widened by its relative error.
inline std::string interval_row(const summary& s, double confidence) {
    const auto range = [](const std::optional<interval>& i) {
        return i ? fmt::format("{:.4f}–{:.4f}", i->low, i->high) : std::string("-");
    };
    std::string out = fmt::format("      {:g}% CI: mean {}", 100 * confidence, range(s.mean_ci));
    for (const auto& p : s.percentiles) out += fmt::format("  {} {}", percentile_key(p.p), range(p.ci));
    return out + "\n";
}

inline std::string subset_table(const subset_stats& s, double confidence) {
    if (s.n == 0) return fmt::format("  subset {}: no successful requests\n", s.name);
    std::string out = fmt::format("  subset {} (n={}), seconds\n", s.name, s.n);
    const auto& first = s.metrics.front().stats;
    out += fmt::format("    {:<15}{:>9}{:>11}{:>11}{:>8}{:>11}", "metric", "n", "mean", "std", "cov", "min");
    for (const auto& p : first.percentiles) out += fmt::format("{:>11}", percentile_key(p.p));
    out += fmt::format("{:>11}\n", "max");
    for (const auto& m : s.metrics) {
        if (m.stats.n == 0) continue;
        out += fmt::format("    {:<15}{:>9}{:>11}{:>11}{:>8}{:>11}", to_string(m.of), m.stats.n,
                           seconds_or_dash(m.stats.mean), seconds_or_dash(m.stats.std),
                           m.stats.cov ? fmt::format("{:.1f}%", 100 * *m.stats.cov) : "-",
                           seconds_or_dash(m.stats.min));
        for (const auto& p : m.stats.percentiles)
            out += fmt::format("{:>11}", seconds_or_dash(p.value) + (p.value && rests_on_few_samples(p.p, m.stats.n) ? "†" : ""));
        out += fmt::format("{:>11}\n", seconds_or_dash(m.stats.max));
        out += with_failed_row(m.stats);
        out += interval_row(m.stats, confidence);
    }
    return out;
}

// The footnote of the dagger, once under a run's tables when any percentile carried it.
inline std::string few_samples_footnote(const run_stats& r, const std::vector<double>& percentiles) {
    for (const auto& s : r.subsets)
        for (const auto& m : s.metrics)
            if (!few_sample_percentiles(m.stats).empty()) return "  " + report::few_samples_note(percentiles) + "\n";
    return {};
}

inline std::string breakdown_table(const breakdown& b) {
    if (b.waiting.empty()) return {};
    std::string out = fmt::format("  time spent waiting ({}) as a share of latency\n", b.waiting);
    for (const auto& s : b.subsets) {
        if (s.n == 0) continue;
        out += fmt::format("    {:<10}", s.subset);
        for (const auto& p : s.points) out += fmt::format("  {} {:.1f}%", percentile_key(p.p), 100 * p.share);
        if (s.mean_share) out += fmt::format("  overall {:.1f}%", 100 * *s.mean_share);
        out += "\n";
    }
    return out;
}

inline std::string number_cell(const std::optional<double>& v, const char* format = "{:.3f}") {
    return v ? fmt::format(fmt::runtime(format), *v) : "-";
}

inline std::string knee_lines(const sweep_analysis& a) {
    std::string out;
    for (const auto& k : a.knees) {
        out += fmt::format("  knee of {} vs {}{}: ", k.y_name, k.x_name, k.shape.empty() ? "" : " (" + k.shape + ")");
        if (!k.x) out += k.withheld_x ? "no knee reported\n" : "no knee\n";
        else
            out += fmt::format("{}={:g}, {}={:.4g}{}\n", k.x_name, *k.x, k.y_name, k.y.value_or(0),
                               k.load && k.x_name != a.curve.param ? " (" + servestat::detail::format_load(a.curve.param, *k.load) + ")"
                                                                    : "");
        if (k.form.kind != curve_kind::unclassified) out += fmt::format("    curve: {}\n", describe(k.form.kind));
        if (!k.caveat.empty()) out += "    caveat: " + k.caveat + "\n";
        if (const auto& t = k.two_segment)
            out += fmt::format("    two-segment fit (against {}{}): break at {}={:.4g}, {}={:.4g}{}\n", t->log_x ? "log2 " : "",
                               a.curve.param, a.curve.param, t->load, k.y_name, t->y,
                               t->levels_off() ? "" : " (no levelling off)");
        if (k.threshold && k.threshold->baseline)
            out += fmt::format("    threshold knee ({} > {:.4g} = {:.4g} at {} x {:g}): {}\n", k.y_name, *k.threshold->limit,
                               *k.threshold->baseline, servestat::detail::format_load(a.curve.param, *k.threshold->baseline_x),
                               1 + k.threshold->degradation,
                               k.threshold->x ? servestat::detail::format_load(a.curve.param, *k.threshold->x) : "none");
    }
    return out;
}

inline std::string capacity_lines(const sweep_analysis& a) {
    std::string out;
    for (const auto& c : a.capacity) {
        out += fmt::format("  largest {} meeting {} {} <= {} s: ", a.curve.param, to_string(c.objective.on),
                           percentile_key(c.percentile), c.objective.max_seconds);
        if (!c.known) out += fmt::format("unknown: no load level has a {} of {}\n", percentile_key(c.percentile), to_string(c.objective.on));
        else if (!c.max_load) out += "none of the measured loads\n";
        else if (!c.limited) out += servestat::detail::load_text(*c.max_load) + " (met at every measured load)\n";
        else out += fmt::format("{:.3g}{}\n", *c.max_load, c.interpolated ? " (interpolated)" : "");
    }
    return out;
}

} // namespace detail

// The notebook's sweep table per sweep, then its knees, SLO capacity and findings.
inline std::string format_sweep_tables(const std::vector<sweep_analysis>& sweeps) {
    std::string out;
    for (const auto& a : sweeps) {
        const std::string& apart = a.curve.configuration.empty() ? a.curve.group : a.curve.configuration;
        out += fmt::format("\nsweep over {}{} ({} load levels)\n", a.curve.param, apart.empty() ? "" : " (" + apart + ")",
                           a.rows.size());
        // With a price, each level's cost per good token (per output token without SLOs) closes the row.
        const bool priced = std::any_of(a.rows.begin(), a.rows.end(), [](const sweep_row& r) { return r.cost.has_value(); });
        const bool good = report::sweep_cost_is_good(a);
        const auto cost_cell = [&](const sweep_row& row) {
            if (!priced) return std::string();
            const cost_figure* f = report::sweep_cost_figure(row, good);
            return fmt::format("{:>14}", f && f->value ? report::format_usd(*f->value) : std::string("-"));
        };
        out += fmt::format("  {:>12}{:>9}{:>10}{:>8}{:>9}{:>9}{:>9}{:>9}{:>9}{:>9}{:>11}{:>10}{}\n", a.curve.param, "rps",
                           "out tok/s", "ok", "e2e p50", "e2e p90", "e2e p99", "ttft p50", "ttft p90", "ttft p99",
                           "short p99", "long p99", priced ? fmt::format("{:>14}", good ? "$/1M good out" : "$/1M out") : "");
        const auto columns = sweep_table_columns();
        auto at = [&](const sweep_row& row, std::string_view name) {
            for (std::size_t i = 0; i < columns.size(); ++i)
                if (columns[i] == name) return row.values[i];
            return std::optional<double>();
        };
        for (const auto& row : a.rows) {
            const auto success = at(row, "success_rate");
            const std::string load = servestat::detail::load_text(row.load) +
                                     (row.replicates > 1 ? fmt::format(" ({}x)", row.replicates) : std::string());
            out += fmt::format("  {:>12}{:>9}{:>10}{:>8}{:>9}{:>9}{:>9}{:>9}{:>9}{:>9}{:>11}{:>10}{}\n", load,
                               detail::number_cell(at(row, "rps")), detail::number_cell(at(row, "output_tps"), "{:.1f}"),
                               success ? fmt::format("{:.1f}%", 100 * *success) : "-",
                               detail::number_cell(at(row, "e2e.p50")), detail::number_cell(at(row, "e2e.p90")),
                               detail::number_cell(at(row, "e2e.p99")), detail::number_cell(at(row, "ttft.p50")),
                               detail::number_cell(at(row, "ttft.p90")), detail::number_cell(at(row, "ttft.p99")),
                               detail::number_cell(at(row, "short.e2e.p99")), detail::number_cell(at(row, "long.e2e.p99")),
                               cost_cell(row));
        }
        if (const std::string cost = report::sweep_cost_sentence(a); !cost.empty()) out += "  " + cost + "\n";
        if (const std::string energy = report::sweep_energy_sentence(a); !energy.empty()) out += "  " + energy + "\n";
        out += detail::knee_lines(a) + detail::capacity_lines(a);
        for (const auto& f : a.findings) out += "  finding: " + f + "\n";
    }
    return out;
}

namespace detail {

// One heat table of a grid: rows by the row parameter, columns by the load; '-' where the cell was
// not measured or lacks the value; '*' marks the sweet spot.
inline std::string grid_heat_table(const grid_analysis& a, std::span<const run_stats> runs, const char* value,
                                   const char* title) {
    const grid& g = a.table;
    std::vector<std::vector<std::string>> text(g.rows.size());
    bool known = false;
    for (std::size_t r = 0; r < g.rows.size(); ++r)
        for (std::size_t c = 0; c < g.columns.size(); ++c) {
            const auto& cell = g.cells[r][c];
            const auto v = cell ? sweep_value(runs[*cell], value) : std::nullopt;
            known = known || v.has_value();
            const bool best = a.spot && a.spot->best == grid_cell{r, c};
            text[r].push_back(v ? fmt::format("{:.2f}{}", *v, best ? "*" : " ") : "- ");
        }
    if (!known) return fmt::format("  {}: unknown in every cell\n", title);
    const std::string corner = g.row_param + " \\ " + g.column_param;
    const std::size_t first = corner.size();
    std::size_t width = 8;
    for (double x : g.columns) width = std::max(width, fmt::format("{:g}", x).size() + 2);
    for (const auto& row : text)
        for (const auto& cell : row) width = std::max(width, cell.size() + 1);
    std::string out = fmt::format("  {}\n    {}", title, corner);
    auto end_line = [&] { // the mark column leaves a space at the end of each line
        while (out.back() == ' ') out.pop_back();
        out += "\n";
    };
    for (double x : g.columns) out += fmt::format("{:>{}}", fmt::format("{:g} ", x), width);
    end_line();
    for (std::size_t r = 0; r < g.rows.size(); ++r) {
        out += fmt::format("    {:>{}}", fmt::format("{:g}", g.rows[r]), first);
        for (const auto& cell : text[r]) out += fmt::format("{:>{}}", cell, width);
        end_line();
    }
    return out;
}

} // namespace detail

// Per grid: heat tables of rps and the p99s (the notebook's Experiment 4 heatmaps), then the sweet spot.
inline std::string format_grid_tables(const std::vector<grid_analysis>& grids, std::span<const run_stats> runs) {
    std::string out;
    for (const auto& a : grids) {
        const grid& g = a.table;
        std::size_t measured = 0;
        for (const auto& row : g.cells)
            for (const auto& cell : row) measured += cell.has_value();
        out += fmt::format("\ngrid {} × {}{} ({} of {} cells measured)\n", g.row_param, g.column_param,
                           g.group.empty() ? "" : " (" + g.group + ")", measured, g.rows.size() * g.columns.size());
        out += detail::grid_heat_table(a, runs, "rps", "rps (req/s)");
        out += detail::grid_heat_table(a, runs, "e2e.p99", "p99 (s)");
        out += detail::grid_heat_table(a, runs, "short.e2e.p99", "short p99 (s)");
        out += detail::grid_heat_table(a, runs, "long.e2e.p99", "long p99 (s)");
        if (!a.spot) continue;
        std::string limits;
        for (const auto& c : a.constraints) limits.append(limits.empty() ? "" : ",").append(to_string(c));
        out += fmt::format("  sweet spot under {}{}: {}\n", limits, a.spot->best ? " (* in the tables)" : "", a.finding);
        for (const auto& note : a.spot->notes) out += "  note: " + note + "\n";
    }
    return out;
}

inline std::string format_stats_table(const std::vector<run_stats>& runs, const std::vector<double>& percentiles,
                                      double confidence = 0.95) {
    std::string out;
    for (const auto& r : runs) {
        if (!out.empty()) out += "\n";
        out += detail::run_heading(r);
        out += detail::token_line("prompt tokens", r.prompt_tokens);
        out += detail::token_line("output tokens", r.output_tokens);
        if (r.meta.kind != run_kind::arrivals && r.requests > 0) {
            for (const auto& s : r.subsets) out += detail::subset_table(s, confidence);
            out += detail::few_samples_footnote(r, percentiles);
            out += detail::breakdown_table(r.time_breakdown);
        }
        out += detail::notes_and_reported(r);
        // servestat's driver may have limited its own run (run.end.client; docs/sweeps.md#run-validity).
        if (const auto c = check_client(r.meta.run_end)) out += "  warning: " + client_limit_sentence(*c) + "\n";
    }
    return out;
}

} // namespace servestat::app
