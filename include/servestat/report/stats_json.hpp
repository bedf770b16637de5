// The JSON export of `servestat stats --json` (version 1): a contract other tools and the report
// templates depend on. Keys keep the order they are written in; times are seconds; absent is null.
#pragma once

#include <cmath>    // std::floor, std::abs, std::isinf
#include <cstdint>  // std::int64_t
#include <filesystem> // std::filesystem::path
#include <optional> // std::optional
#include <span>     // std::span
#include <string>   // std::string

#include <fmt/format.h>      // fmt::format
#include <nlohmann/json.hpp> // nlohmann::ordered_json

#include "servestat/core/utf8.hpp"            // shortened_text
#include "servestat/ingest/metrics_timeline.hpp" // server_timeline
#include "servestat/stats/run_spread.hpp"     // run_spread
#include "servestat/stats/run_stats.hpp"      // run_stats, stats_options
#include "servestat/stats/run_validity.hpp"   // run_failed_entirely, check_run_validity
#include "servestat/stats/sample_size.hpp"    // few_sample_percentiles
#include "servestat/sweep/grid.hpp"           // grid_analysis, sweep_value
#include "servestat/sweep/replicates.hpp"     // find_replicate_groups
#include "servestat/sweep/sweep_analysis.hpp" // sweep_analysis, sweep_table_columns

namespace servestat {

using json = nlohmann::ordered_json;

inline constexpr int stats_json_version = 1;

namespace detail {

template <class T>
json or_null(const std::optional<T>& v) {
    return v ? json(*v) : json(nullptr);
}

// A load level; an unbounded one as "inf", vLLM's own spelling (JSON has no infinity).
inline json load_json(double load) { return std::isinf(load) ? json("inf") : json(load); }

// The percentiles counting failed requests as +∞ (stats/failed_percentiles.hpp, AIPerf's adj_pNN):
// how many failed, their share of n + failed, and each percentile as a number, or "inf" where it
// rests on a failure (JSON has no infinity; "inf" as for load levels, so null keeps meaning "no value").
inline json with_failed_json(const summary& s) {
    json j{{"failed", s.failed},
           {"share", static_cast<double>(s.failed) / static_cast<double>(s.n + s.failed)}};
    for (const auto& p : s.percentiles)
        j[percentile_key(p.p)] = !p.with_failed ? json(nullptr) : std::isinf(*p.with_failed) ? json("inf") : json(*p.with_failed);
    return j;
}

// A confidence interval as [low, high], or null where there is none.
inline json interval_json(const std::optional<interval>& i) { return i ? json::array({i->low, i->high}) : json(nullptr); }

inline json to_json(const summary& s) {
    json j{{"n", s.n},          {"mean", or_null(s.mean)}, {"mean_ci", interval_json(s.mean_ci)}, {"std", or_null(s.std)},
           {"cov", or_null(s.cov)}, {"min", or_null(s.min)},   {"max", or_null(s.max)}};
    for (const auto& p : s.percentiles) {
        j[percentile_key(p.p)] = or_null(p.value);
        j[percentile_key(p.p) + "_ci"] = interval_json(p.ci); // order statistics, or null where n cannot bound it
    }
    j["few_samples"] = few_sample_percentiles(s); // those resting on fewer than 10 values beyond them
    if (s.sketch_alpha) j["sketch_relative_error"] = *s.sketch_alpha; // percentiles from a sketch, within this
    if (s.failed > 0) j["with_failed"] = with_failed_json(s); // only where failures were counted
    return j;
}

// A statistic over replicate runs, with AIPerf's multi-run names (mean, std, cv, se, t_critical)
// and the t-interval of the mean as [low, high], as the per-run intervals are written.
inline json to_json(const run_spread& s) {
    return {{"runs", s.runs},
            {"mean", s.mean},
            {"std", or_null(s.std)},
            {"cv", or_null(s.cv)},
            {"se", or_null(s.se)},
            {"min", s.min},
            {"max", s.max},
            {"t_critical", or_null(s.t_critical)},
            {"ci", s.mean_ci ? json::array({s.mean_ci->low, s.mean_ci->high}) : json(nullptr)}}; // [low, high]
}

inline json to_json(const subset_stats& s) {
    json metrics = json::object();
    for (const auto& m : s.metrics) metrics[std::string(to_string(m.of))] = to_json(m.stats);
    return {{"n", s.n}, {"metrics", std::move(metrics)}};
}

inline json to_json(const breakdown& b) {
    if (b.waiting.empty()) return nullptr;
    json subsets = json::object();
    for (const auto& s : b.subsets) {
        json points = json::object();
        for (const auto& p : s.points)
            points[percentile_key(p.p)] = {{"waiting", p.waiting}, {"total", p.total}, {"share", p.share}};
        subsets[s.subset] = {{"n", s.n}, {"mean_share", or_null(s.mean_share)}, {"percentiles", std::move(points)}};
    }
    return {{"waiting", b.waiting}, {"subsets", std::move(subsets)}};
}

inline json to_json(const time_split& t) {
    if (t.subsets.empty()) return nullptr;
    json subsets = json::object();
    for (const auto& s : t.subsets) {
        json mean = json::object(), share = json::object();
        for (const split_part p : split_parts) {
            mean[to_string(p)] = s.mean[static_cast<std::size_t>(p)];
            share[to_string(p)] = s.share(p);
        }
        subsets[s.subset] = {{"n", s.n}, {"mean", std::move(mean)}, {"total", s.total()}, {"share", std::move(share)},
                             {"server_ahead", s.server_ahead}, {"most_ahead", s.most_ahead}};
    }
    return {{"client_wait", t.client_wait}, {"first_token_whole", t.first_token_whole}, {"subsets", std::move(subsets)}};
}

inline json slos_to_json(const std::vector<slo>& slos) {
    json j = json::object();
    for (const auto& s : slos) j[std::string(to_string(s.on))] = s.max_seconds;
    return j;
}

inline json to_json(const goodput_stats& g) {
    return {{"slo", slos_to_json(g.slos)}, {"good", g.good},          {"unmeasurable", g.unmeasurable},
            {"share", or_null(g.share)},   {"rps", or_null(g.rps)}};
}

// A cost figure (stats/cost.hpp): USD per 1M tokens, its interval as [low, high], how it was drawn
// and, where there is no value or no interval, why.
inline json to_json(const cost_figure& f) {
    const auto text_or_null = [](const std::string& s) { return s.empty() ? json(nullptr) : json(s); };
    return {{"value", or_null(f.value)},
            {"ci", interval_json(f.ci)},
            {"method", text_or_null(f.method)},
            {"why", f.ci ? json(nullptr) : text_or_null(f.why)},
            {"windows", or_null(f.windows)},
            {"window_seconds", or_null(f.window_seconds)},
            {"lag1_autocorrelation", or_null(f.lag1)},
            {"runs", or_null(f.runs)}};
}

inline json to_json(const run_cost& c) {
    return {{"price_per_hour", c.price.per_hour},
            {"gpus", or_null(c.price.gpus)},
            {"deployment_per_hour", c.price.deployment_per_hour()},
            {"confidence", c.confidence},
            {"per_1m_output", to_json(c.per_1m_output)},
            {"per_1m_total", to_json(c.per_1m_total)},
            {"per_1m_good_output", c.per_1m_good_output ? to_json(*c.per_1m_good_output) : json(nullptr)}};
}

inline json cost_json(const std::optional<run_cost>& c) { return c ? to_json(*c) : json(nullptr); }

// A run's energy per token (stats/energy.hpp): where it came from, the joules and mean power over
// the run, and its figures as cost's (J per output token, output tokens per J, J per good output
// token); `why` where the source is there but gave no energy.
inline json to_json(const run_energy& e) {
    json notes = json::array();
    for (const auto& n : e.notes) notes.push_back(n);
    return {{"source", e.source.empty() ? json(nullptr) : json(e.source)},
            {"why", e.joules || e.why.empty() ? json(nullptr) : json(e.why)},
            {"confidence", e.confidence},
            {"joules", or_null(e.joules)},
            {"mean_watts", or_null(e.mean_watts)},
            {"notes", std::move(notes)},
            {"j_per_output_token", e.joules ? to_json(e.per_output_token) : json(nullptr)},
            {"output_tokens_per_j", e.joules ? to_json(e.output_tokens_per_joule) : json(nullptr)},
            {"j_per_good_output_token", e.joules && e.per_good_output_token ? to_json(*e.per_good_output_token) : json(nullptr)}};
}

inline json energy_json(const std::optional<run_energy>& e) { return e ? to_json(*e) : json(nullptr); }

inline json to_json(const std::vector<reported_value>& reported) {
    json out = json::array();
    for (const auto& v : reported) out.push_back({{"name", v.name}, {"value", v.value}, {"unit", v.unit}});
    return out;
}

inline json to_json(const arrival_stats& a) {
    return {{"count", a.count}, {"span", or_null(a.span)}, {"rate", or_null(a.rate)}, {"gaps", to_json(a.gaps)}};
}

// The steady-state window (docs/json-export.md), or null when the run has none.
inline json to_json(const steady_state_detection& d) {
    if (!d.window) return nullptr;
    const steady_state& w = *d.window;
    return {{"start", w.start},
            {"end", w.end},
            {"requests", w.requests},
            {"excluded_start", w.excluded_start},
            {"excluded_end", w.excluded_end},
            {"method", w.method},
            {"applied", w.applied}};
}

// The server's sampled /metrics: where they are and what they hold by name; the values stay in the file.
inline json to_json(const server_timeline& s) {
    return {{"file", std::filesystem::path(s.file).filename().string()},
            {"url", s.url},
            {"interval", s.interval > 0 ? json(s.interval) : json(nullptr)},
            {"scrapes", s.scrapes()},
            {"failed", s.failed_at.size()},
            {"first", s.t.empty() ? json(nullptr) : json(s.t.front())},
            {"last", s.t.empty() ? json(nullptr) : json(s.t.back())},
            {"names", s.names}};
}

} // namespace detail

namespace detail {

// Whether the run's numbers are a measurement, and every validity finding about it: a run in which
// nothing completed is no measurement (valid false: no rates, no latencies); the others are told
// and leave it valid.
inline json validity_json(const run_stats& r) {
    json reasons = json::array();
    const auto add = [&](const char* finding, std::string text) { reasons.push_back({{"finding", finding}, {"text", std::move(text)}}); };
    const run_validity v = check_run_validity(r);
    if (v.nothing_completed)
        add("nothing_completed", "nothing completed: its zeros are no measurement, so it has no rates or latencies");
    for (const auto& e : {v.ended_early_time, v.ended_early_count})
        if (e) add("ended_early", fmt::format("{} was {:g}; the run measured {:g}", e->param, e->configured, e->measured));
    if (v.stopped_by_driver)
        add("stopped_by_driver", v.stopped_by_driver->reason + (v.stopped_by_driver->detail.empty() ? "" : ": " + v.stopped_by_driver->detail));
    if (v.tiny)
        add("tiny", fmt::format("{} requests over {} s: its tails rest on a handful of requests",
                                v.tiny->requests ? fmt::format("{:g}", *v.tiny->requests) : std::string("?"),
                                v.tiny->seconds ? fmt::format("{:.3g}", *v.tiny->seconds) : std::string("?")));
    if (v.errors)
        add("errors", fmt::format("{:g} of {:g} requests failed ({:.1f}%)", v.errors->failed, v.errors->requests, 100 * v.errors->share()));
    if (v.cold)
        add("cold_start", fmt::format("its first {} requests: {} median {:.6g} s against {:.6g} s for the rest; p99 {:.6g} s with them, "
                                      "{:.6g} s without", v.cold->head, v.cold->on == metric::ttft ? "ttft" : "e2e",
                                      v.cold->head_median, v.cold->rest_median, v.cold->p99, v.cold->rest_p99));
    if (v.client) add("client_limit", "the load driver's own delays or CPU may have limited the run");
    return {{"valid", !v.nothing_completed}, {"reasons", std::move(reasons)}};
}

} // namespace detail

inline json to_json(const run_stats& r) {
    const bool failed = run_failed_entirely(r);
    // A failed run's rates are zeros of nothing measured: none.
    const auto rate = [&](const std::optional<double>& v) { return failed ? json(nullptr) : detail::or_null(v); };
    json errors = json::array();
    for (const auto& e : r.errors) {
        json entry{{"kind", std::string(to_string(e.kind))}, {"count", e.count},
                   {"example", shortened_text(e.example, max_example_chars)}};
        // The whole text once, here, when the tables show it shortened.
        if (entry["example"] != e.example) entry["example_full"] = e.example;
        errors.push_back(std::move(entry));
    }
    json subsets = json::object();
    for (const auto& s : r.subsets) subsets[s.name] = detail::to_json(s);
    auto text_or_null = [](const std::string& s) { return s.empty() ? json(nullptr) : json(s); };
    return {
        {"label", r.meta.label},
        {"source", {{"path", r.meta.source.path}, {"format", r.meta.source.format}}},
        {"model", text_or_null(r.meta.model)},
        {"workload", text_or_null(r.meta.workload)},
        {"started_at", text_or_null(r.meta.started_at)},
        {"params", json::parse(r.meta.params.dump())},
        {"shared_clock", r.meta.shared_clock},
        {"kind", to_string(r.meta.kind)},
        {"notes", r.meta.notes},
        {"requests", r.requests},
        {"ok", r.ok},
        {"failed", r.failed},
        {"duration", detail::or_null(r.duration)},
        {"duration_from", r.duration ? json(to_string(r.duration_from)) : json(nullptr)},
        {"rps", rate(r.rps)},
        {"output_tps", rate(r.output_tps)},
        {"total_tps", rate(r.total_tps)},
        {"send_rate", detail::or_null(r.send_rate)},
        {"peak_concurrency", detail::or_null(r.peak_concurrency)},
        {"validity", detail::validity_json(r)},
        {"steady_state", detail::to_json(r.steady_state)},
        {"goodput_rps", r.goodput ? rate(r.goodput->rps) : json(nullptr)},
        {"goodput", r.goodput ? detail::to_json(failed ? goodput_stats{r.goodput->slos, r.goodput->good, r.goodput->unmeasurable,
                                                                         std::nullopt, r.goodput->share}
                                                        : *r.goodput)
                              : json(nullptr)},
        {"cost", detail::cost_json(r.cost)},
        {"energy", detail::energy_json(r.energy)},
        {"errors", std::move(errors)},
        {"tokens", {{"prompt", detail::to_json(r.prompt_tokens)}, {"output", detail::to_json(r.output_tokens)}}},
        {"server_spec_acceptance", detail::or_null(r.server_spec_acceptance)},
        {"server_draft_acceptance", detail::or_null(r.server_draft_acceptance)},
        {"arrivals", r.arrivals ? detail::to_json(*r.arrivals) : json(nullptr)},
        {"reported", detail::to_json(r.meta.reported)},
        {"subsets", std::move(subsets)},
        {"breakdown", detail::to_json(r.time_breakdown)},
        {"time_split", detail::to_json(r.split)},
        {"skipped", {{"count", r.skipped.count},
                     {"unit", r.skipped.unit == skipped_unit::record ? "record" : "line"},
                     {"examples", r.skipped.examples}}},
        {"server_timeline", r.meta.server_timeline ? detail::to_json(*r.meta.server_timeline) : json(nullptr)},
    };
}

// 50 rather than 50.0, as people write percentiles.
inline json percentile_list(const std::vector<double>& ps) {
    json out = json::array();
    for (double p : ps)
        out.push_back(p == std::floor(p) ? json(static_cast<std::int64_t>(p)) : json(p));
    return out;
}

inline json options_to_json(const stats_options& o) {
    json buckets = json::array();
    for (const auto& b : o.subsets.buckets) buckets.push_back({{"name", b.name}, {"lo", b.lo}, {"hi", b.hi}});
    return {{"method", std::string(to_string(o.summary.method))},
            {"ddof", o.summary.ddof},
            {"short_max", o.subsets.short_max},
            {"long_min", o.subsets.long_min},
            {"buckets", std::move(buckets)},
            {"percentiles", percentile_list(o.summary.percentiles)},
            {"confidence", o.summary.confidence},
            {"slo", detail::slos_to_json(o.slos)}};
}

namespace detail {

// Beside Kneedle's answer: the curve's shape (curve_shape.hpp), the caveat and the withheld
// end-point answer of a knee that is no saturation point, and the threshold knee of latency curves.
inline void add_knee_qualifiers(json& out, const sweep_knee& k) {
    json form{{"kind", std::string(to_string(k.form.kind))}, {"spread", k.form.spread}, {"against", k.form.against},
              {"bend_linear", k.form.bend_linear}, {"bend_log", k.form.bend_log}};
    if (!k.form.reason.empty()) form["reason"] = k.form.reason;
    if (const auto& j = k.form.jump)
        form["jump"] = {{"from", j->x_from}, {"to", j->x_to}, {"y_from", j->y_from}, {"y_to", j->y_to},
                        {"factor", j->factor}, {"flat_before", j->flat_before}, {"flat_after", j->flat_after}};
    out["curve_shape"] = std::move(form);
    out["caveat"] = k.caveat.empty() ? json(nullptr) : json(k.caveat);
    out["withheld_x"] = or_null(k.withheld_x);
    out["withheld_load"] = k.withheld_load ? load_json(*k.withheld_load) : json(nullptr);
    if (const auto& t = k.two_segment) // throughput: the two-segment fit's break (docs/knee.md#two-segment-fit)
        out["two_segment"] = {{"load", t->load},
                              {"y", t->y},
                              {"axis", t->log_x ? "log2" : "linear"},
                              {"breakpoint", t->fit.breakpoint},
                              {"slope_before", t->fit.slope_before},
                              {"slope_after", t->fit.slope_after},
                              {"levels_off", t->levels_off()},
                              {"at_level", t->fit.at_point},
                              {"sse", t->fit.sse},
                              {"sse_one_line", t->fit.sse_one_line},
                              {"points", t->fit.points}};
    else
        out["two_segment"] = nullptr;
    if (!k.threshold) {
        out["threshold"] = nullptr;
        return;
    }
    const threshold_knee& t = *k.threshold;
    out["threshold"] = {{"degradation", t.degradation},
                        {"baseline_load", t.baseline_x ? load_json(*t.baseline_x) : json(nullptr)},
                        {"baseline", or_null(t.baseline)},
                        {"limit", or_null(t.limit)},
                        {"load", t.x ? load_json(*t.x) : json(nullptr)},
                        {"y", or_null(t.y)}};
}

} // namespace detail

inline json to_json(const sweep_analysis& a) {
    const auto columns = sweep_table_columns();
    json points = json::array();
    for (const auto& row : a.rows) {
        json p{{"load", detail::load_json(row.load)}, {"label", row.label}, {"replicates", row.replicates}};
        json few = json::array();
        for (std::size_t i = 0; i < columns.size(); ++i) {
            p[columns[i]] = detail::or_null(row.values[i]);
            if (i < row.few_samples.size() && row.few_samples[i] && row.values[i]) few.push_back(columns[i]);
        }
        p["few_samples"] = std::move(few);
        p["cost"] = detail::cost_json(row.cost); // a level run more than once: between its runs
        p["energy"] = detail::energy_json(row.energy);
        if (row.replicates > 1) { // the median above, and the range it comes from
            json spread = json::object();
            for (std::size_t i = 0; i < columns.size() && i < row.low.size(); ++i)
                if (row.low[i]) spread[columns[i]] = {*row.low[i], *row.high[i]};
            p["range"] = std::move(spread);
            // Run-to-run noise per column: AIPerf's multi-run figures (stats/run_spread.hpp).
            json between = json::object();
            for (std::size_t i = 0; i < columns.size() && i < row.between_runs.size(); ++i)
                if (const auto& b = row.between_runs[i]) between[columns[i]] = detail::to_json(*b);
            p["between_runs"] = std::move(between);
        }
        points.push_back(std::move(p));
    }
    json knees = json::array();
    for (const auto& k : a.knees) {
        json knee{{"curve", k.curve}, {"shape", k.shape}, {"x_name", k.x_name}, {"y_name", k.y_name}, {"x", detail::or_null(k.x)},
                  {"y", detail::or_null(k.y)}, {"load", k.load ? detail::load_json(*k.load) : json(nullptr)}};
        detail::add_knee_qualifiers(knee, k);
        knees.push_back(std::move(knee));
    }
    json capacity = json::array();
    for (const auto& c : a.capacity)
        capacity.push_back({{"metric", std::string(to_string(c.objective.on))}, {"max_seconds", c.objective.max_seconds},
                            {"percentile", c.percentile}, {"max_load", c.max_load ? detail::load_json(*c.max_load) : json(nullptr)},
                            {"interpolated", c.interpolated}, {"limited", c.limited},
                            {"known", c.known}});
    json little = json::array();
    for (const auto& l : a.little)
        little.push_back({{"load", l.load}, {"rps", l.rps}, {"mean_e2e", l.mean_e2e}, {"in_flight", l.in_flight},
                          {"ratio", l.ratio}, {"under_80", l.ratio < little_ratio_floor}});
    return {{"param", a.curve.param}, {"group", a.curve.group}, {"configuration", a.curve.configuration}, {"covarying", a.curve.covarying}, {"points", std::move(points)},
            {"knees", std::move(knees)}, {"slo_capacity", std::move(capacity)}, {"littles_law", std::move(little)},
            {"findings", a.findings}};
}

namespace detail {

// 16 rather than 16.0: grid axes are parameter values, written as the runs' params are.
inline json axis_value(double v) {
    return v == std::floor(v) && std::abs(v) < 1e15 ? json(static_cast<std::int64_t>(v)) : json(v);
}

inline json grid_cell_to_json(const grid& g, std::span<const run_stats> runs, const std::optional<grid_cell>& c) {
    if (!c) return nullptr;
    return {{"row", axis_value(g.rows[c->row])},
            {"column", axis_value(g.columns[c->column])},
            {"label", runs[*g.cells[c->row][c->column]].meta.label}};
}

inline json to_json(const grid_analysis& a, std::span<const run_stats> runs) {
    const grid& g = a.table;
    json cells = json::array();
    for (const auto& row : g.cells) {
        json out_row = json::array();
        for (const auto& cell : row) {
            if (!cell) {
                out_row.push_back(nullptr);
                continue;
            }
            json c{{"label", runs[*cell].meta.label}};
            for (const char* name : {"rps", "e2e.p99", "short.e2e.p99", "long.e2e.p99"})
                c[name] = or_null(sweep_value(runs[*cell], name));
            out_row.push_back(std::move(c));
        }
        cells.push_back(std::move(out_row));
    }
    json rows = json::array(), columns = json::array();
    for (double v : g.rows) rows.push_back(axis_value(v));
    for (double v : g.columns) columns.push_back(axis_value(v));
    json spot = nullptr;
    if (a.spot) {
        json constraints = json::array();
        for (const auto& c : a.constraints)
            constraints.push_back({{"value", c.value}, {"op", c.at_least ? ">=" : "<="}, {"limit", c.max}});
        spot = {{"constraints", std::move(constraints)},
                {"best", grid_cell_to_json(g, runs, a.spot->best)},
                {"runner_up", grid_cell_to_json(g, runs, a.spot->runner_up)},
                {"binding", or_null(a.spot->binding)},
                {"blocked", grid_cell_to_json(g, runs, a.spot->blocked)},
                {"notes", a.spot->notes},
                {"finding", a.finding}};
    }
    return {{"row_param", g.row_param}, {"column_param", g.column_param}, {"group", g.group},
            {"rows", std::move(rows)},     {"columns", std::move(columns)},       {"cells", std::move(cells)},
            {"sweet_spot", std::move(spot)}};
}

} // namespace detail

// `replicated` holds the experiment stage's points measured more than once (null: found here by
// configuration and label, for callers without a design); `design` its reading, or null.
inline json stats_document(std::span<const run_stats> runs, const stats_options& o,
                           std::span<const sweep_analysis> sweeps = {}, std::span<const grid_analysis> grids = {},
                           const std::vector<std::vector<std::size_t>>* replicated = nullptr, json design = nullptr) {
    json all_runs = json::array();
    for (const auto& r : runs) all_runs.push_back(to_json(r));
    json all_sweeps = json::array();
    for (const auto& s : sweeps) all_sweeps.push_back(to_json(s));
    json all_grids = json::array();
    for (const auto& g : grids) all_grids.push_back(detail::to_json(g, runs));
    // One configuration measured again outside any sweep: its runs' spread.
    json all_replicates = json::array();
    for (const auto& g : replicated ? replicate_groups_of(runs, *replicated, sweeps) : find_replicate_groups(runs, sweeps)) {
        json labels = json::array(), between = json::object();
        for (const std::size_t i : g.runs) labels.push_back(runs[i].meta.label);
        for (const auto& [column, spread] : g.statistics) between[column] = detail::to_json(spread);
        all_replicates.push_back({{"runs", g.runs}, {"labels", std::move(labels)}, {"between_runs", std::move(between)},
                                  {"cost", detail::cost_json(g.cost)}, {"energy", detail::energy_json(g.energy)}});
    }
    json out = {{"servestat", "stats"}, {"version", stats_json_version}, {"options", options_to_json(o)}};
    if (!design.is_null()) out["design"] = std::move(design);
    out["runs"] = std::move(all_runs);
    out["sweeps"] = std::move(all_sweeps);
    out["grids"] = std::move(all_grids);
    out["replicates"] = std::move(all_replicates);
    out["comparisons"] = json::array();
    return out;
}

} // namespace servestat
