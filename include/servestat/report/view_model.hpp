// The report's view model: the stats JSON export plus presentation fields (formatted numbers,
// findings, plot references), so JSON, Markdown and HTML can never disagree.
#pragma once

#include <algorithm> // std::all_of, std::max
#include <cstddef>  // std::size_t
#include <initializer_list> // std::initializer_list
#include <optional> // std::optional
#include <span>     // std::span
#include <string>   // std::string
#include <vector>   // std::vector

#include <fmt/format.h> // fmt::format

#include "servestat/core/run.hpp"           // run
#include "servestat/core/thousands.hpp"     // thousands
#include "servestat/core/utf8.hpp"          // shortened_text
#include "servestat/report/cost_view.hpp"   // sweep_cost_sentence
#include "servestat/report/energy_view.hpp" // sweep_energy_sentence
#include "servestat/report/driver_view.hpp" // connections_text, cancelled_text, turn_rows, turns_text, *_summary_text
#include "servestat/report/few_samples.hpp" // few_samples_mark_of, few_samples_note
#include "servestat/report/findings.hpp"    // derive_findings
#include "servestat/report/format.hpp"      // format_seconds, format_share, format_rate
#include "servestat/report/stats_json.hpp"  // json, stats_document
#include "servestat/report/grid_view.hpp"   // grid_view
#include "servestat/report/plots.hpp"       // detail::timelines (the server's sentence reads the p99 timeline)
#include "servestat/report/server_watch.hpp" // server_watch, watch_server
#include "servestat/report/report_digest.hpp" // report_summary, report_kpi_sources, sweep_titles
#include "servestat/report/sweep_view.hpp"  // sweep_view
#include "servestat/report/time_split_view.hpp" // split_rows
#include "servestat/report/with_failed.hpp" // judged_percentile, judged_text, kpi_shows_with_failed, with_failed_note
#include "servestat/stats/driver_log.hpp"   // driver_activity_of
#include "servestat/stats/linear_fit.hpp"   // least_squares_over
#include "servestat/stats/metrics.hpp"      // for_each_latency_against_count
#include "servestat/stats/run_stats.hpp"    // analyze, run_stats
#include "servestat/stats/turns.hpp"        // turns_of

namespace servestat::report {

struct report_options {
    std::string title = "Load test report";
    double slo_percentile = 95; // an SLO passes when this percentile of the metric meets it
    // Past this many runs the report leaves out the per-run sections and their charts: nobody reads
    // a thousand sections, and they made a report of 8,000 one-request logs hold 3.4 GB. The tables,
    // the comparison charts and report.json keep every run.
    std::size_t max_run_sections = 64;
};

// Whether a report of `runs` runs gives each its own section (and charts).
inline bool shows_run_sections(std::size_t runs, const report_options& ro) { return runs <= ro.max_run_sections; }

// What a report is made of before it is rendered: per run its statistics, the fit the findings
// quote, and the view model.
struct analysed_run {
    run_stats stats;
    std::optional<linear_fit> e2e_per_output_token;
    std::optional<driver_activity> driver; // servestat's own driver logs: connections, cancellations
    std::optional<session_turns> turns;    // multi-turn session logs
    std::optional<server_watch> server;    // the server's /metrics sampled during the run (--scrape-interval)
};

namespace detail {

// Whether any row of a table has a value in one of `fields` (not "–").
inline bool any_value_in(const json& rows, std::initializer_list<const char*> fields) {
    for (const auto& row : rows)
        for (const char* f : fields)
            if (row.contains(f) && row[f] != missing_value) return true;
    return false;
}

inline constexpr const char* metric_title(metric m) {
    switch (m) {
    case metric::e2e: return "End-to-end latency (e2e)";
    case metric::ttft: return "Time to first token (ttft)";
    case metric::decode: return "Decode time (decode)";
    case metric::tpot: return "Time per output token (tpot)";
    case metric::itl: return "Inter-token latency (itl)";
    case metric::client_queue: return "Client queue (client_queue)";
    case metric::e2e_sched: return "Latency from intended send (e2e_sched)";
    case metric::server_queue: return "Server queue (server_queue)";
    case metric::server_prefill: return "Server prefill (server_prefill)";
    case metric::server_decode: return "Server decode (server_decode)";
    case metric::server_ttft: return "Server time to first token (server_ttft)";
    case metric::server_itl: return "Server inter-token latency (server_itl)";
    }
    return "";
}

// Over the requests in place: a copy of their pairs took 64 MB for 4·10^6 requests.
inline std::optional<linear_fit> fit_e2e_to_output_tokens(const run& r) {
    return least_squares_over(
        [&](auto&& visit) { for_each_latency_against_count(r.requests, r.requests.output_tokens(), visit); });
}

inline json percentile_columns(const std::vector<double>& ps) {
    json columns = json::array();
    for (double p : ps) columns.push_back({{"name", percentile_key(p)}});
    return columns;
}

// The relative error of a run's sketched percentiles (a summary file, a log streamed past
// --memory-limit); none when every percentile is exact.
inline std::optional<double> sketch_alpha_of(const run_stats& r) {
    std::optional<double> out;
    for (const auto& s : r.subsets)
        for (const auto& m : s.metrics)
            if (m.stats.sketch_alpha) out = std::max(out.value_or(0.0), *m.stats.sketch_alpha);
    return out;
}

inline std::string bound_text(double alpha) { return fmt::format("{:g}%", 100 * alpha); }

// One table per metric with values: a row per subset that has any.
inline json metric_tables(const run_stats& r, const std::vector<double>& ps) {
    json tables = json::array();
    const auto alpha = sketch_alpha_of(r);
    const std::string sketched = alpha ? " — percentiles sketched, each within " + bound_text(*alpha) : "";
    for (metric m : all_metrics) {
        json rows = json::array();
        for (const auto& s : r.subsets) {
            const summary* sum = find_summary(r, s.name, m);
            if (sum == nullptr || sum->n == 0) continue;
            json cells = json::array();
            for (double p : ps)
                cells.push_back({{"value", format_seconds(find_percentile(*sum, p))}, {"mark", few_samples_mark_of(sum, p)}});
            rows.push_back({{"subset", s.name},
                            {"n", std::to_string(sum->n)},
                            {"mean", format_seconds(sum->mean)},
                            {"std", format_seconds(sum->std)},
                            {"cov", format_share(sum->cov)},
                            {"cells", cells},
                            {"max", format_seconds(sum->max)}});
        }
        if (rows.empty()) continue;
        tables.push_back({{"metric", std::string(to_string(m))},
                          {"title", std::string(metric_title(m)) + sketched},
                          {"columns", percentile_columns(ps)},
                          {"rows", rows}});
    }
    return tables;
}

inline json headline(const run_stats& r) {
    const summary* e2e = find_summary(r, "all", metric::e2e);
    const summary* ttft = find_summary(r, "all", metric::ttft);
    auto at = [](const summary* s, double p) {
        return s ? format_seconds(find_percentile(*s, p)) : std::string(missing_value);
    };
    // Each percentile's dagger beside it, so a template can show the value with or without it.
    auto mark = [](const summary* s, double p) { return few_samples_mark_of(s, p); };
    const double success = r.requests ? static_cast<double>(r.ok) / static_cast<double>(r.requests) : 0.0;
    return {{"requests", std::to_string(r.requests)},
            {"ok", std::to_string(r.ok)},
            {"failed", std::to_string(r.failed)},
            {"success_rate", format_share(success)},
            {"has_rates", r.rps.has_value()},
            {"duration", format_seconds(r.duration)},
            {"rps", format_rate(r.rps, "req/s")},
            {"output_tps", format_rate(r.output_tps, "tok/s")},
            {"total_tps", format_rate(r.total_tps, "tok/s")},
            {"has_peak_concurrency", r.peak_concurrency.has_value()},
            {"peak_concurrency", r.peak_concurrency ? std::to_string(*r.peak_concurrency) : missing_value},
            {"e2e_p50", at(e2e, 50)},
            {"e2e_p90", at(e2e, 90)},
            {"e2e_p99", at(e2e, 99)},
            {"e2e_p50_mark", mark(e2e, 50)},
            {"e2e_p90_mark", mark(e2e, 90)},
            {"e2e_p99_mark", mark(e2e, 99)},
            {"has_ttft", ttft != nullptr && ttft->n > 0},
            {"ttft_p50", at(ttft, 50)},
            {"ttft_p90", at(ttft, 90)},
            {"ttft_p99", at(ttft, 99)},
            {"ttft_p50_mark", mark(ttft, 50)},
            {"ttft_p90_mark", mark(ttft, 90)},
            {"ttft_p99_mark", mark(ttft, 99)}};
}

inline json error_rows(const run_stats& r) {
    json rows = json::array();
    for (const auto& e : r.errors)
        rows.push_back({{"kind", std::string(to_string(e.kind))},
                        {"count", std::to_string(e.count)},
                        {"share", format_share(static_cast<double>(e.count) / static_cast<double>(r.requests))},
                        {"example", shortened_text(e.example, max_example_chars)}});
    return rows;
}

inline json breakdown_rows(const breakdown& b) {
    json rows = json::array();
    for (const auto& s : b.subsets) {
        if (s.n == 0) continue;
        json cells = json::array();
        for (const auto& p : s.points)
            cells.push_back({{"percentile", percentile_key(p.p)},
                             {"waiting", format_seconds(p.waiting)},
                             {"total", format_seconds(p.total)},
                             {"share", format_share(p.share)}});
        rows.push_back({{"subset", s.subset},
                        {"n", std::to_string(s.n)},
                        {"mean_share", format_share(s.mean_share)},
                        {"cells", cells}});
    }
    return rows;
}

// Seed 004's "95% in < 2 s: FAIL, your p95 is 2.544 s", per SLO and subset.
inline json slo_rows(const run_stats& r, const std::vector<slo>& slos, double percentile) {
    json rows = json::array();
    for (const auto& s : slos)
        for (const auto& subset : r.subsets) {
            const summary* sum = find_summary(r, subset.name, s.on);
            if (sum == nullptr || sum->n == 0) continue;
            // Failed requests count as +∞ where any failed: they were not within the objective.
            const auto value = judged_percentile(sum, percentile);
            if (!value) continue;
            const bool pass = *value <= s.max_seconds;
            rows.push_back({{"metric", std::string(to_string(s.on))},
                            {"subset", subset.name},
                            {"objective", fmt::format("{}% of requests within {}", percentile, format_seconds(s.max_seconds))},
                            {"pass", pass},
                            {"verdict", pass ? "PASS" : "FAIL"},
                            {"actual", fmt::format("p{} is {}", percentile, judged_text(sum, percentile))}});
        }
    return rows;
}

inline json params_rows(const run_metadata& meta) {
    json rows = json::array();
    for (const auto& [name, value] : meta.params.items())
        rows.push_back({{"name", name}, {"value", value.is_string() ? value.get<std::string>() : value.dump()}});
    return rows;
}

// A tool's own number as it reported it: seconds formatted like ours, anything else as given.
inline json reported_rows(const run_metadata& meta) {
    json rows = json::array();
    for (const auto& v : meta.reported)
        rows.push_back({{"name", v.name},
                        {"value", v.unit == "s" ? format_seconds(v.value) : fmt::format("{:.6g}", v.value)},
                        {"unit", v.unit == "s" ? std::string() : v.unit}});
    return rows;
}

// A sketched run's notes end with the charts it cannot have, and why.
inline json note_rows(const run_metadata& meta, bool sketched = false) {
    json rows = json::array();
    for (const auto& note : meta.notes) rows.push_back({{"text", note}});
    if (sketched)
        rows.push_back({{"text", "charts that need every request (the latency histogram and box plot, latency against "
                                 "token counts, throughput and tail latency over time) are left out: this run is known "
                                 "by its sketches, not its requests; its distribution curves are drawn from the "
                                 "sketches"}});
    return rows;
}

inline std::string format_count_percentiles(const summary& s) {
    if (s.n == 0) return std::string(missing_value);
    std::string out;
    for (const auto& p : s.percentiles)
        if (p.value) out.append(out.empty() ? "" : ", ").append(fmt::format("{} {:.0f}", percentile_key(p.p), *p.value));
    return out.append(fmt::format(" (mean {:.0f}, max {:.0f})", s.mean.value_or(0), s.max.value_or(0)));
}

inline json arrivals_view(const run_stats& r) {
    if (!r.arrivals) return nullptr;
    const arrival_stats& a = *r.arrivals;
    return {{"count", std::to_string(a.count)},
            {"span", format_seconds(a.span)},
            {"rate", format_rate(a.rate, "arrivals/s")},
            {"gap_cov", a.gaps.cov ? fmt::format("{:.2f}", *a.gaps.cov) : std::string(missing_value)},
            {"prompt_tokens", format_count_percentiles(r.prompt_tokens)},
            {"output_tokens", format_count_percentiles(r.output_tokens)}};
}

// Whether every run lies on some sweep, so the sweep tables already list each one.
inline bool all_in_sweeps(std::size_t runs, std::span<const sweep_analysis> sweeps) {
    std::vector<bool> in(runs, false);
    for (const auto& a : sweeps)
        for (const auto& p : a.curve.points)
            if (p.run < runs) in[p.run] = true;
    return !sweeps.empty() && std::all_of(in.begin(), in.end(), [](bool b) { return b; });
}

// A run's latencies in one small table for the appendix of a multi-run report: per subset its
// e2e p50/p90/p99, TTFT p50/p99 and TPOT p50.
inline json compact_rows(const run_stats& r) {
    json rows = json::array();
    for (const auto& s : r.subsets) {
        const summary* e2e = find_summary(r, s.name, metric::e2e);
        if (e2e == nullptr || e2e->n == 0) continue;
        auto at = [&](metric m, double p) { return format_seconds(find_percentile(r, s.name, m, p)); };
        auto mark = [&](metric m, double p) { return few_samples_mark_of(find_summary(r, s.name, m), p); };
        rows.push_back({{"subset", s.name}, {"n", std::to_string(e2e->n)},
                        {"e2e_p50", at(metric::e2e, 50)}, {"e2e_p90", at(metric::e2e, 90)}, {"e2e_p99", at(metric::e2e, 99)},
                        {"ttft_p50", at(metric::ttft, 50)}, {"ttft_p99", at(metric::ttft, 99)}, {"tpot_p50", at(metric::tpot, 50)},
                        {"e2e_p50_mark", mark(metric::e2e, 50)}, {"e2e_p90_mark", mark(metric::e2e, 90)},
                        {"e2e_p99_mark", mark(metric::e2e, 99)}, {"ttft_p50_mark", mark(metric::ttft, 50)},
                        {"ttft_p99_mark", mark(metric::ttft, 99)}, {"tpot_p50_mark", mark(metric::tpot, 50)}});
    }
    return rows;
}

inline bool has_measured_requests(const run_stats& r) { return r.requests > 0 && r.meta.kind != run_kind::arrivals; }



// The steady-state line of a run: the window and what --steady-state did or would do with it, or
// why there is none.
inline std::string steady_state_text(const steady_state_detection& d) {
    if (!d.window) return "none detected: " + d.reason + ".";
    const steady_state& w = *d.window;
    std::string out = describe(w);
    if (w.applied) out += fmt::format("; the statistics here cover the {} requests sent within it.", w.requests);
    else if (w.excluded_start + w.excluded_end > 0) out += "; the statistics here cover the whole run (--steady-state restricts them to the window).";
    else out += ".";
    if (mostly_transient(w)) out += " More than half of the requests are ramp-up or drain: the run is short for its load.";
    return out;
}

inline json steady_state_view(const steady_state_detection& d) {
    if (!d.window) return nullptr;
    const steady_state& w = *d.window;
    return {{"start", format_seconds(w.start)},
            {"end", format_seconds(w.end)},
            {"requests", std::to_string(w.requests)},
            {"excluded_start", std::to_string(w.excluded_start)},
            {"excluded_end", std::to_string(w.excluded_end)},
            {"method", w.method},
            {"applied", w.applied},
            {"text", steady_state_text(d)}};
}

inline json run_view(const analysed_run& a, const stats_options& o, const report_options& ro) {
    const run_stats& r = a.stats;
    json findings = json::array();
    for (const auto& f : derive_findings(r, a.e2e_per_output_token))
        findings.push_back({{"rule", f.rule}, {"text", f.text}});
    const json errors = error_rows(r);
    const json breakdown = breakdown_rows(r.time_breakdown);
    const json slos = slo_rows(r, o.slos, ro.slo_percentile);
    json view{{"label", r.meta.label},
              {"source_path", r.meta.source.path},
              {"source_format", r.meta.source.format},
              {"model", r.meta.model.empty() ? std::string(missing_value) : r.meta.model},
              {"workload", r.meta.workload.empty() ? std::string(missing_value) : r.meta.workload},
              {"started_at", r.meta.started_at.empty() ? std::string(missing_value) : r.meta.started_at},
              {"params", params_rows(r.meta)},
              {"has_params", !r.meta.params.empty()},
              {"shared_clock", r.meta.shared_clock},
              {"has_requests", has_measured_requests(r)},
              {"is_summary", r.meta.kind == run_kind::summary && r.requests == 0},
              {"is_arrivals", r.meta.kind == run_kind::arrivals},
              {"arrivals", arrivals_view(r)},
              {"duration_reported", r.duration_from == duration_source::reported},
              {"has_notes", !r.meta.notes.empty()},
              {"notes", note_rows(r.meta, sketch_alpha_of(r).has_value())},
              {"has_reported", !r.meta.reported.empty()},
              {"reported", reported_rows(r.meta)},
              {"headline", headline(r)},
              {"metric_tables", metric_tables(r, o.summary.percentiles)},
              {"has_errors", !errors.empty()},
              {"errors", errors},
              {"has_breakdown", !breakdown.empty()},
              {"has_time_split", !r.split.subsets.empty()},
              {"time_split_client_wait", r.split.client_wait},
              {"time_split_prefill", report::split_prefill_heading(r.split.first_token_whole)},
              {"time_split", report::split_rows(r.split)},
              {"breakdown_waiting", r.time_breakdown.waiting},
              {"breakdown", breakdown},
              {"has_slo", !slos.empty()},
              {"slo", slos},
              {"has_findings", !findings.empty()},
              {"findings", findings},
              {"has_skipped", r.skipped.count > 0},
              {"skipped", std::to_string(r.skipped.count)},
              {"skipped_text", fmt::format("{} bad {}{} {} skipped", r.skipped.count,
                                           r.skipped.unit == skipped_unit::line ? "log " : "",
                                           r.skipped.noun(r.skipped.count), r.skipped.count == 1 ? "was" : "were")},
              {"has_steady_state", r.steady_state.window.has_value()},
              {"steady_state", steady_state_view(r.steady_state)},
              {"steady_state_text", sketch_alpha_of(r) && !r.steady_state.window
                                        ? "not searched: " + r.steady_state.reason + "."
                                        : steady_state_text(r.steady_state)}};
    const std::string connections = a.driver ? connections_text(*a.driver) : std::string();
    const std::string cancelled = a.driver ? cancelled_text(*a.driver) : std::string();
    view["has_connections"] = !connections.empty();
    view["connections_text"] = connections;
    view["has_driver_cancelled"] = !cancelled.empty();
    view["driver_cancelled_text"] = cancelled;
    if (a.server && !a.server->sentence.empty()) { // what the server's own gauges say, after the latency findings
        view["findings"].push_back({{"rule", "server_queue"}, {"text", a.server->sentence}});
        view["has_findings"] = true;
    }
    view["has_turns"] = a.turns.has_value();
    view["turns"] = a.turns ? turn_rows(*a.turns) : json::array();
    view["turns_text"] = a.turns ? turns_text(*a.turns) : std::string();
    return view;
}

// One row per run with measured requests: the notebook's short_only / mix_90_10 / mix_70_30
// comparison. Traces and summary-only files have nothing to set side by side here.
inline json comparison_rows(const std::vector<analysed_run>& runs) {
    json rows = json::array();
    for (const auto& a : runs) {
        if (!has_measured_requests(a.stats)) continue;
        json h = headline(a.stats);
        h["label"] = a.stats.meta.label;
        rows.push_back(std::move(h));
    }
    return rows;
}

inline std::string capitalised(std::string text) {
    if (!text.empty() && text[0] >= 'a' && text[0] <= 'z') text[0] = static_cast<char>(text[0] - 'a' + 'A');
    return text;
}

// The summary's lines on what servestat's driver logged: sessions and deliberate cancellations,
// for a report of a few runs (more would crowd out the comparison).
inline void add_driver_sentences(const std::vector<analysed_run>& runs, std::vector<summary_sentence>& out) {
    if (runs.size() > 3) return;
    for (const auto& a : runs) {
        const std::string who = runs.size() > 1 ? a.stats.meta.label + ": " : std::string();
        if (a.turns) out.push_back({8.5, capitalised(who + turns_summary_text(*a.turns))});
        if (a.driver && a.driver->cancelled > 0) out.push_back({8.4, capitalised(who + cancelled_summary_text(*a.driver))});
        if (a.server && a.server->notable) out.push_back({8.6, who + a.server->sentence});
    }
}

// The server's timeline read against the run's p99 timeline, on the axis the report's charts share.
inline std::optional<server_watch> server_watch_of(const run& r) {
    if (!r.meta.server_timeline || !r.meta.shared_clock) return std::nullopt;
    const auto timeline = timelines(r, true);
    const double width = timeline.rate.x.empty() ? 0 : timeline.end / static_cast<double>(timeline.rate.x.size());
    return watch_server(*r.meta.server_timeline, timeline.origin, timeline.tail, width);
}

// report.json's record of the server timeline: what the stats export says of it, and the report's reading.
inline void add_server_json(json& stats_run, const server_watch& w) {
    json charted = json::array();
    for (const auto* s : {&w.running, &w.waiting, &w.preempted, &w.kv_usage, &w.prefix_hits})
        if (*s) charted.push_back((*s)->metric);
    stats_run["server_timeline"]["charted"] = std::move(charted);
    stats_run["server_timeline"]["summary"] = w.sentence.empty() ? json(nullptr) : json(w.sentence);
}

} // namespace detail

inline analysed_run analyse(const run& r, const stats_options& o) {
    return {analyze(r, o), detail::fit_e2e_to_output_tokens(r), driver_activity_of(r.requests), turns_of(r.requests),
            detail::server_watch_of(r)};
}

// The stats export under "stats", and everything the templates show next to it.
inline json build_view_model(const std::vector<analysed_run>& runs, const stats_options& o, const report_options& ro,
                             std::span<const sweep_analysis> sweeps = {}, std::span<const grid_analysis> grids = {}) {
    std::vector<run_stats> stats;
    std::vector<std::vector<finding>> findings;
    const json comparison = detail::comparison_rows(runs);
    const auto titles = sweep_titles(sweeps);
    json sweep_views = json::array();
    // Each sweep's section opens with its sentence: the summary shows a few of them among many sweeps.
    const auto common = sweeps.size() > 1 ? detail::highest_common_load(sweeps) : std::nullopt;
    for (std::size_t i = 0; i < sweeps.size(); ++i) {
        json v = sweep_view(sweeps[i], o.summary.confidence);
        v["title"] = titles[i];
        v["sentence"] = detail::sweep_sentence(sweeps[i], i, sweeps.size() == 1, common);
        // With a price, where the cost per good token is lowest follows (docs/metrics.md#cost-per-token).
        // Where the power was sampled, where the energy per good token is lowest (#energy-per-token).
        for (const std::string& more : {sweep_cost_sentence(sweeps[i]), sweep_energy_sentence(sweeps[i])})
            if (!more.empty())
                v["sentence"] = v["sentence"].is_string() && !v["sentence"].get<std::string>().empty()
                                    ? json(v["sentence"].get<std::string>() + " " + more)
                                    : json(more);
        sweep_views.push_back(std::move(v));
    }
    json grid_views = json::array();
    for (const auto& g : grids) grid_views.push_back(grid_view(g));
    json run_views = json::array();
    for (const auto& a : runs) {
        stats.push_back(a.stats);
        findings.push_back(derive_findings(a.stats, a.e2e_per_output_token));
        if (!shows_run_sections(runs.size(), ro)) continue;
        json& view = run_views.emplace_back(detail::run_view(a, o, ro));
        view["compact"] = detail::compact_rows(a.stats);
        view["has_few_samples"] = shows_few_samples(view["headline"]) || shows_few_samples(view["metric_tables"]) ||
                                  shows_few_samples(view["compact"]) || shows_few_samples(view["findings"]) ||
                                  shows_few_samples(view["slo"]);
    }
    const auto [kpi_sources, kpi_note] = report_kpi_sources(stats, sweeps);
    auto sentences = report_summary(stats, findings, sweeps, o.slos, ro.slo_percentile);
    detail::add_driver_sentences(runs, sentences);
    json summary = summary_view(std::move(sentences));
    json kpi = kpi_rows(kpi_sources, o.slos, ro.slo_percentile, o.subsets);
    const std::string kpi_intervals = kpi_interval_note(kpi_sources, o.summary.confidence);
    // The interval note under the KPI table says what the dagger marks, with the counts.
    const bool digest_few = kpi_intervals.empty() && (shows_few_samples(summary) || shows_few_samples(kpi));
    const bool kpi_with_failed = kpi_shows_with_failed(kpi);
    const bool kpi_has_subsets = std::any_of(kpi.begin(), kpi.end(), [](const json& row) {
        return !row["subset"].get<std::string>().starts_with("all"); // "all", "all (as reported)"
    });
    const bool kpi_has_ttft = detail::any_value_in(kpi, {"ttft_p50", "ttft_p99"});
    const bool kpi_has_e2e = detail::any_value_in(kpi, {"e2e_p50", "e2e_p99"});
    json stats_json = stats_document(stats, o, sweeps, grids);
    for (std::size_t i = 0; i < runs.size(); ++i)
        if (runs[i].server) detail::add_server_json(stats_json["runs"][i], *runs[i].server);
    json view = {{"title", ro.title},
            {"generator", "servestat 0.1.0"},
            {"summary", std::move(summary)},
            {"kpi", std::move(kpi)},
            {"has_kpi", !kpi_sources.empty()},
            {"kpi_has_subsets", kpi_has_subsets},
            {"kpi_note", kpi_note},
            {"kpi_interval_note", detail::text_or_null(kpi_intervals)},
            {"kpi_failed_note", kpi_with_failed ? json(with_failed_note) : json(nullptr)},
            {"digest_few_samples", digest_few},
            // Once is enough where the runs compared follow the digest's own footnote.
            {"comparison_few_samples", !digest_few && shows_few_samples(comparison)},
            {"few_samples_note", few_samples_note(o.summary.percentiles)},
            {"has_kpi_slo", !o.slos.empty()},
            // A column no row has a value in is left out: runs known by a tool's aggregates may have
            // TTFT and no per-request e2e.
            {"kpi_has_ttft", kpi_has_ttft},
            {"kpi_has_e2e", kpi_has_e2e},
            {"many_runs", comparison.size() > 1},
            {"runs_in_sweeps", detail::all_in_sweeps(runs.size(), sweeps)},
            {"single_run", runs.size() == 1},
            {"run_count", std::to_string(runs.size())},
            {"comparison", comparison},
            {"runs", std::move(run_views)},
            // The templates say what was left out: {"runs": "2,000", "most": "64"}.
            {"run_sections_left_out", shows_run_sections(runs.size(), ro)
                                          ? json(nullptr)
                                          : json{{"runs", servestat::detail::thousands(runs.size())}, {"most", std::to_string(ro.max_run_sections)}}},
            {"has_sweeps", !sweeps.empty()},
            {"has_sweep_overlays", false}, // the CLI adds "sweep_overlays" (sweeps_overlay_plots) and sets it
            {"accounting", json::array()}, // the CLI's: rows and runs left out (accounting_view)
            {"sweeps", sweep_views},
            {"grids", grid_views},
            {"has_groups", false}, // report --group-by sets it and adds "group_view"
            {"stats", std::move(stats_json)}};
    add_kpi_cost_view(view, kpi_sources);
    add_kpi_energy_view(view, kpi_sources);
    return view;
}

} // namespace servestat::report
