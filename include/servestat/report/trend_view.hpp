// A trend as reports show it (trend.md, trend.html, trend.json): one row per run, oldest first, each
// latency with its change against the previous run and against the first, marked only where the
// verdict says so; findings as sentences; line charts over time. The JSON export sits under "stats",
// so no format can disagree.
#pragma once

#include <algorithm>   // std::stable_sort, std::sort
#include <cmath>       // std::abs, std::isfinite
#include <cstddef>     // std::size_t
#include <cstdint>     // std::int64_t
#include <limits>      // std::numeric_limits
#include <optional>    // std::optional
#include <span>        // std::span
#include <string>      // std::string
#include <string_view> // std::string_view
#include <vector>      // std::vector

#include <fmt/format.h> // fmt::format
#include <fmt/ranges.h> // fmt::join

#include "servestat/compare/trend.hpp"       // trend, trend_step, find_change
#include "servestat/core/iso_time.hpp"       // detail::iso_utc
#include "servestat/plot/line.hpp"           // line_chart, line_options
#include "servestat/report/compare_json.hpp" // compare_options_to_json, detail::to_json(change), json
#include "servestat/report/compare_view.hpp" // detail::signed_percent, detail::p_clause
#include "servestat/report/digest.hpp"       // merge_changes, group_changes, kpi_rows, summary_view
#include "servestat/report/intervals.hpp"    // percentile_ci, interval_band_label, detail::text_or_null
#include "servestat/report/format.hpp"       // format_seconds, format_share, missing_value
#include "servestat/report/time_split_view.hpp" // split_rows
#include "servestat/report/cost_view.hpp"    // cost_text, good_output_figure
#include "servestat/report/energy_view.hpp"  // energy_text, good_energy_figure, output_energy_figure
#include "servestat/report/plot_file.hpp"    // plot_file
#include "servestat/stats/run_validity.hpp"   // run_failed_entirely

namespace servestat::report {

inline constexpr int trend_json_version = 1;

namespace detail::trend_parts {

using servestat::detail::or_null;

using report::detail::delta_text;
using report::detail::kind_of;
using report::detail::value_kind;
using report::detail::p_clause;
using report::detail::readable_name;
using report::detail::sentence_name;
using report::detail::signed_percent;

inline bool is_share(const change& c) { return kind_of(c) == value_kind::share; }

// "2026-11-09 21:00 UTC"; the date alone with `with_time` false.
inline std::string date_text(const std::optional<servestat::detail::utc_time>& t, bool with_time = true) {
    if (!t) return missing_value;
    const std::string iso = servestat::detail::iso_utc(*t);
    return with_time ? iso.substr(0, 10) + " " + iso.substr(11, 5) + " UTC" : iso.substr(0, 10);
}

inline std::string run_name(const trend_step& s, std::size_t position, std::span<const run> runs) {
    const std::string& label = runs[s.run].meta.label;
    return s.started ? fmt::format("{} ({})", date_text(s.started, false), label)
                     : fmt::format("Run {} ({})", position + 1, label);
}

inline bool all_dated(const trend& t) {
    for (const auto& s : t.steps)
        if (!s.started) return false;
    return true;
}

inline const change* find(const std::optional<run_comparison>& rc, std::string_view name) {
    return rc ? find_change(*rc, name) : nullptr;
}

// The changes a trend publishes: the run level and the whole run's latencies, not every subset.
inline bool published(const change& c) { return c.subset.empty() || c.subset == "all"; }

inline json changes_json(const std::optional<run_comparison>& rc) {
    if (!rc) return nullptr;
    json list = json::array();
    for (const auto& c : rc->changes)
        if (published(c)) list.push_back(servestat::detail::to_json(c));
    return {{"changes", std::move(list)}};
}

inline json statistics_json(const run_stats& r, metric m) {
    const summary* s = find_summary(r, "all", m);
    if (s == nullptr || s->n == 0) return nullptr;
    return {{"p50", or_null(find_percentile(*s, 50))}, {"p90", or_null(find_percentile(*s, 90))},
            {"p99", or_null(find_percentile(*s, 99))}, {"mean", or_null(s->mean)}};
}

// A change as a table shows it: "+12.3% ▲" where the verdict is regressed, "▼" improved.
inline json delta_cell(const change* c, bool marked) {
    if (c == nullptr || !c->relative) return nullptr;
    const bool up = marked && c->result == verdict::regressed, down = marked && c->result == verdict::improved;
    const std::string change = signed_percent(*c->relative), marker = up ? "▲" : down ? "▼" : "";
    return {{"change", change},
            {"marker", marker},
            {"text", marker.empty() ? change : change + " " + marker},
            {"class", up ? "regressed" : down ? "improved" : ""},
            {"verdict", std::string(to_string(c->result))}};
}

inline json latency_cell(const trend_step& s, metric m, double p) {
    const std::string name = fmt::format("{}.{}", to_string(m), percentile_key(p));
    const change* c = find(s.vs_previous, name);
    auto value = find_percentile(s.stats, "all", m, p);
    if (!value && c) value = c->after;
    return {{"value", format_seconds(value)}, {"vs_previous", delta_cell(c, true)},
            {"vs_first", delta_cell(find(s.vs_first, name), true)}};
}

inline json rps_cell(const trend_step& s) {
    return {{"value", s.stats.rps ? fmt::format("{:.2f}", *s.stats.rps) : std::string(missing_value)},
            {"vs_previous", delta_cell(find(s.vs_previous, "rps"), false)},
            {"vs_first", delta_cell(find(s.vs_first, "rps"), false)}};
}

inline json row_json(const trend_step& s) {
    const run_stats& r = s.stats;
    const double success = r.requests ? static_cast<double>(r.ok) / static_cast<double>(r.requests) : 0.0;
    return {{"date", date_text(s.started)},
            {"label", r.meta.label},
            {"requests", std::to_string(r.requests)},
            {"success", format_share(success)},
            {"rps", rps_cell(s)},
            {"e2e_p50", latency_cell(s, metric::e2e, 50)},
            {"e2e_p99", latency_cell(s, metric::e2e, 99)},
            {"ttft_p50", latency_cell(s, metric::ttft, 50)},
            {"ttft_p99", latency_cell(s, metric::ttft, 99)}};
}

// How large a change is and how sure: {"15.2%", "95% CI +11.0% to +19.5%, p < 0.001", "+15.2%"};
// shares move in percentage points.
struct sized_change {
    std::string size, evidence, shift;
};

inline std::optional<sized_change> size_of(const change& c, const compare_options& o) {
    if (!c.p_value) return std::nullopt;
    const std::string level = fmt::format("{:g}% CI", 100 * o.verdicts.confidence), p = p_clause(*c.p_value);
    if (is_share(c) && c.delta && c.delta_ci) {
        return sized_change{fmt::format("{:.1f} pp", std::abs(100 * *c.delta)),
                            fmt::format("{} {} to {}, {}", level, delta_text(c, c.delta_ci->low),
                                        delta_text(c, c.delta_ci->high), p),
                            delta_text(c, *c.delta)};
    }
    if (!c.relative || !c.relative_ci) return std::nullopt;
    return sized_change{fmt::format("{:.1f}%", std::abs(100 * *c.relative)),
                        fmt::format("{} {} to {}, {}", level, signed_percent(c.relative_ci->low),
                                    signed_percent(c.relative_ci->high), p),
                        signed_percent(*c.relative)};
}

inline bool significant(const change& c) { return c.result == verdict::improved || c.result == verdict::regressed; }

// "p90, p99 and mean"
inline std::string joined(const std::vector<std::string>& items) {
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i)
        out.append(i == 0 ? "" : i + 1 == items.size() ? " and " : ", ").append(items[i]);
    return out;
}

// One sentence per metric and direction of a step: its first statistic in full, the others that
// moved the same way after it, so a shifted distribution reads as one event.
inline void step_findings(const run_comparison& rc, const std::string& name, const compare_options& o,
                          std::vector<std::string>& out) {
    std::vector<bool> told(rc.changes.size(), false);
    for (std::size_t i = 0; i < rc.changes.size(); ++i) {
        const change& c = rc.changes[i];
        const auto lead = published(c) && significant(c) && !told[i] ? size_of(c, o) : std::nullopt;
        if (!lead) continue;
        std::string text = fmt::format("{}: {} {} by {} against the previous run ({})", name, sentence_name(c),
                                       to_string(c.result), lead->size, lead->evidence);
        std::vector<std::string> statistics, shifts;
        for (std::size_t j = i + 1; j < rc.changes.size() && !c.subset.empty(); ++j) {
            const change& d = rc.changes[j];
            if (d.subset != c.subset || d.metric != c.metric || d.result != c.result) continue;
            if (const auto more = size_of(d, o)) {
                told[j] = true;
                statistics.push_back(d.statistic);
                shifts.push_back(more->shift);
            }
        }
        if (!statistics.empty())
            text.append(fmt::format("; {} {} too ({})", joined(statistics), to_string(c.result),
                                    fmt::join(shifts, ", ")));
        out.push_back(text.append("."));
    }
}

// Every significant step between consecutive runs, then where the latest run stands against the first.
inline std::vector<std::string> findings(const trend& t, std::span<const run> runs, const compare_options& o) {
    std::vector<std::string> out;
    for (std::size_t k = 1; k < t.steps.size(); ++k)
        step_findings(*t.steps[k].vs_previous, run_name(t.steps[k], k, runs), o, out);
    if (out.empty()) out.push_back("No significant change between consecutive runs.");
    const std::string first = runs[t.steps.front().run].meta.label;
    for (const char* name : {"e2e.p50", "ttft.p50"}) {
        const change* c = find(t.steps.back().vs_first, name);
        if (c == nullptr) continue;
        const std::string lead = fmt::format("Against the first run ({}), {} in the latest run", first, sentence_name(*c));
        const auto size = size_of(*c, o);
        const std::string p = c->p_value ? ", " + p_clause(*c->p_value) : "";
        if (significant(*c) && size)
            out.push_back(fmt::format("{} {} by {} ({}).", lead, to_string(c->result), size->size, size->evidence));
        else if (c->result == verdict::within_noise && size)
            out.push_back(fmt::format("{} is within noise ({}, {}).", lead, size->shift, size->evidence));
        else if (c->result == verdict::no_change && c->relative)
            out.push_back(fmt::format("{} shows no significant change ({}{}).", lead, signed_percent(*c->relative), p));
        else out.push_back(fmt::format("{} cannot be judged: {}.", lead, describe(c->result)));
    }
    return out;
}

inline json text_list(const std::vector<std::string>& texts) {
    json out = json::array();
    for (const auto& t : texts) out.push_back({{"text", t}});
    return out;
}

// Each run's confidence interval of a percentile (distribution-free, from its own requests:
// percentile_value::ci), as a band around the trend line: a step that stays inside the previous
// run's band is no evidence of change. A run too small for an interval breaks the band.
inline plot::band percentile_band(const trend& t, const std::vector<double>& xs, metric m, double p, std::size_t series,
                                  const std::string& name, double confidence) {
    plot::band b{series, {}, {}, {}, interval_band_label(confidence),
                 fmt::format("{}: {:g}% confidence interval", name, 100 * confidence)};
    for (std::size_t k = 0; k < t.steps.size(); ++k) {
        const summary* s = find_summary(t.steps[k].stats, "all", m);
        if (s == nullptr || !find_percentile(*s, p)) continue; // no point on the line here either
        const auto ci = percentile_ci(s, p);
        b.x.push_back(xs[k]);
        b.low.push_back(ci ? ci->low : std::numeric_limits<double>::quiet_NaN());
        b.high.push_back(ci ? ci->high : std::numeric_limits<double>::quiet_NaN());
    }
    return b;
}

// The published changes of one step, located for the digest (one pair, no load).
inline std::vector<located_change> located(const run_comparison& rc) {
    std::vector<located_change> out;
    for (const auto& c : rc.changes)
        if (published(c)) out.push_back({std::nullopt, "", 0, &c});
    return out;
}

// What a weekly review asks first: what changed since the previous run (compare's verdicts, grouped
// by metric), where the latest run stands against the first, and how often the series regressed.
inline std::vector<summary_sentence> summary(const trend& t, std::span<const run> runs, const compare_options& o) {
    std::vector<summary_sentence> out;
    if (t.steps.size() < 2) {
        const run_stats& r = t.steps.front().stats;
        out.push_back({1, fmt::format("One run so far ({}: {} requests, e2e p50 {}, p99 {}); a trend needs two or more.",
                                      runs[t.steps.front().run].meta.label, r.requests,
                                      format_seconds(find_percentile(r, "all", metric::e2e, 50)),
                                      format_seconds(find_percentile(r, "all", metric::e2e, 99)))});
        return out;
    }
    const trend_step& latest = t.steps.back();
    auto named = [&](const trend_step& step) {
        const std::string& label = runs[step.run].meta.label;
        return step.started ? label + ", " + date_text(step.started, false) : label;
    };
    const std::string since = "Since the previous run (" + named(t.steps[t.steps.size() - 2]) + ")";
    const auto changes = located(*latest.vs_previous);
    const auto merged = merge_changes(changes);
    auto groups = group_changes(merged);
    // Regressions first, then what users wait for: e2e before TTFT before the rest.
    auto rank = [](const change_group& g) {
        return (g.direction == verdict::regressed ? 0 : 10) + (g.metric == "e2e" ? 0 : g.metric == "ttft" ? 1 : 2);
    };
    std::stable_sort(groups.begin(), groups.end(), [&](const change_group& a, const change_group& b) { return rank(a) < rank(b); });
    for (std::size_t i = 0; i < groups.size(); ++i)
        out.push_back({10 - 0.1 * static_cast<double>(i), since + ": " + group_sentence("", groups[i], o.verdicts)});
    // A run in which nothing completed has no latencies to compare: "no latency changed" would read
    // as good news. The failure leads instead.
    const bool latest_failed = run_failed_entirely(latest.stats);
    if (latest_failed)
        out.push_back({11, fmt::format("The latest run ({}) completed none of its {} requests: every latency is missing, "
                                       "not unchanged.", named(latest), latest.stats.requests)});
    if (groups.empty() && !latest_failed) {
        std::string moved;
        for (const char* name : {"e2e.p50", "e2e.p99"})
            if (const change* c = find(latest.vs_previous, name); c && c->relative)
                moved.append(moved.empty() ? "" : ", ").append(fmt::format("{} {} ({})", readable_name(*c), signed_percent(*c->relative), describe(c->result)));
        out.push_back({10, fmt::format("{}, no latency changed significantly beyond ±{:g}%{}.", since, 100 * o.verdicts.noise,
                                       moved.empty() ? "" : ": " + moved)});
    }
    if (const change* rps = find(latest.vs_previous, "rps"); rps && rps->relative)
        out.push_back({6, fmt::format("Throughput {:.2f} → {:.2f} req/s ({}), one measurement per run.", *rps->before,
                                      *rps->after, signed_percent(*rps->relative))});
    if (t.steps.size() > 2) {
        const auto first_changes = located(*latest.vs_first);
        const auto first_merged = merge_changes(first_changes); // the groups point into it: it must outlive them
        const auto first_groups = group_changes(first_merged);
        const std::string against = "Against the first run (" + named(t.steps.front()) + ")";
        if (first_groups.empty())
            out.push_back({9.95, against + ", the latest run shows no significant latency change."});
        else
            out.push_back({9.95, against + ", the latest run: " + group_sentence("", first_groups.front(), o.verdicts)});
        // Steps where e2e latency moved significantly, each way: a regression later undone reads as both.
        std::vector<std::string> regressed, improved;
        for (std::size_t k = 1; k < t.steps.size(); ++k) {
            const std::string when = t.steps[k].started ? date_text(t.steps[k].started, false) : runs[t.steps[k].run].meta.label;
            for (const verdict v : {verdict::regressed, verdict::improved})
                for (const auto& c : t.steps[k].vs_previous->changes)
                    if (published(c) && c.metric == "e2e" && c.result == v) {
                        (v == verdict::regressed ? regressed : improved).push_back(when);
                        break;
                    }
        }
        auto count = [&](const std::vector<std::string>& when) {
            return when.empty() ? std::string("none") : fmt::format("{} ({})", when.size(), joined(when));
        };
        out.push_back({5, fmt::format("Of the {} steps between runs, e2e latency regressed significantly in {} and improved "
                                      "in {}.",
                                      t.steps.size() - 1, count(regressed), count(improved))});
    }
    return out;
}

} // namespace detail::trend_parts

// trend.json: each run's headline numbers and its published changes against the previous and the first run.
inline json trend_document(const trend& t, std::span<const run> runs, const compare_options& o) {
    namespace parts = detail::trend_parts;
    comparison_options wrapped; // the compare export's option keys, less the sweeps' one
    wrapped.compare = o;
    json options = compare_options_to_json(wrapped);
    options.erase("slo_percentile");
    json list = json::array();
    for (const auto& s : t.steps) {
        const run_stats& r = s.stats;
        const run_metadata& meta = runs[s.run].meta;
        list.push_back({{"label", meta.label},
                        {"started_at", meta.started_at.empty() ? json(nullptr) : json(meta.started_at)},
                        {"started_utc", s.started ? json(servestat::detail::iso_utc(*s.started)) : json(nullptr)},
                        {"source", {{"path", meta.source.path}, {"format", meta.source.format}}},
                        {"requests", r.requests},
                        {"ok", r.ok},
                        {"rps", parts::or_null(r.rps)},
                        {"output_tps", parts::or_null(r.output_tps)},
                        {"cost", servestat::detail::cost_json(r.cost)},
                        {"energy", servestat::detail::energy_json(r.energy)},
                        {"e2e", parts::statistics_json(r, metric::e2e)},
                        {"ttft", parts::statistics_json(r, metric::ttft)},
                        {"vs_previous", parts::changes_json(s.vs_previous)},
                        {"vs_first", parts::changes_json(s.vs_first)}});
    }
    return {{"servestat", "trend"},
            {"version", trend_json_version},
            {"options", std::move(options)},
            {"notes", t.notes},
            {"runs", std::move(list)}};
}

// The templates' view: the runs table, findings and notes, the plots as "plots/NAME" and inline SVG.
inline json trend_view_model(const trend& t, std::span<const run> runs, const compare_options& o, std::string title,
                             std::span<const plot_file> plots = {}) {
    namespace parts = detail::trend_parts;
    json rows = json::array(), plot_list = json::array();
    for (const auto& s : t.steps) rows.push_back(parts::row_json(s));
    // Each run's cost per good token (per output token without SLOs), with its interval: a column
    // only where the runs were priced.
    bool priced = false, good = false;
    for (const auto& s : t.steps) {
        priced = priced || s.stats.cost.has_value();
        good = good || good_output_figure(s.stats.cost) != nullptr;
    }
    for (std::size_t k = 0; k < t.steps.size(); ++k) {
        const auto& cost = t.steps[k].stats.cost;
        const cost_figure* f = good ? good_output_figure(cost) : cost ? &cost->per_1m_output : nullptr;
        rows[k]["cost"] = f ? cost_text(*f) : std::string(missing_value);
    }
    // Likewise each run's energy per good output token, where some run's power was sampled.
    bool energy = false, energy_good = false;
    for (const auto& s : t.steps) {
        energy = energy || output_energy_figure(s.stats.energy) != nullptr;
        energy_good = energy_good || good_energy_figure(s.stats.energy) != nullptr;
    }
    for (std::size_t k = 0; k < t.steps.size(); ++k) {
        const auto& e = t.steps[k].stats.energy;
        const energy_figure* f = energy_good ? good_energy_figure(e) : output_energy_figure(e);
        rows[k]["energy"] = f ? energy_text(*f) : std::string(missing_value);
    }
    json split = json::array(); // each run's time split by the server's clock, oldest first
    bool client_wait = false, whole = false;
    for (const auto& s : t.steps) {
        client_wait = client_wait || s.stats.split.client_wait;
        whole = whole || s.stats.split.first_token_whole;
        for (auto& row : split_rows(s.stats.split)) {
            row["date"] = detail::trend_parts::date_text(s.started);
            row["label"] = s.stats.meta.label;
            split.push_back(std::move(row));
        }
    }
    for (const auto& p : plots) plot_list.push_back({{"title", p.title}, {"file", "plots/" + p.name}, {"svg", p.svg}});
    std::vector<kpi_source> kpi;
    if (t.steps.size() >= 2) kpi.push_back({"previous: " + runs[t.steps[t.steps.size() - 2].run].meta.label, &t.steps[t.steps.size() - 2].stats});
    kpi.push_back({"latest: " + runs[t.steps.back().run].meta.label, &t.steps.back().stats});
    json view = {{"title", std::move(title)},
            {"generator", "servestat 0.1.0"},
            {"summary", summary_view(parts::summary(t, runs, o))},
            {"kpi", kpi_rows(kpi, o.stats.slos, 95, o.stats.subsets)},
            {"kpi_interval_note", detail::text_or_null(kpi_interval_note(kpi, o.stats.summary.confidence, false))},
            {"has_kpi_slo", !o.stats.slos.empty()},
            {"run_count", std::to_string(t.steps.size())},
            {"dated", parts::all_dated(t)},
            {"first_label", runs[t.steps.front().run].meta.label},
            {"latest_label", runs[t.steps.back().run].meta.label},
            {"alpha", fmt::format("{:g}", o.verdicts.alpha)},
            {"noise", fmt::format("{:g}%", 100 * o.verdicts.noise)},
            {"confidence", fmt::format("{:g}%", 100 * o.verdicts.confidence)},
            {"rows", std::move(rows)},
            {"has_cost", priced},
            {"cost_per_good", good}, // the column's head: "$ / 1M good out", else "$ / 1M out"
            {"has_energy", energy},
            {"energy_per_good", energy_good}, // "J / good out tok", else "J / out tok"
            {"has_time_split", !split.empty()},
            {"time_split_client_wait", client_wait},
            {"time_split_prefill", split_prefill_heading(whole)},
            {"time_split", std::move(split)},
            {"findings", parts::text_list(parts::findings(t, runs, o))},
            {"has_notes", !t.notes.empty()},
            {"notes", parts::text_list(t.notes)},
            {"has_plots", !plot_list.empty()},
            {"plots", std::move(plot_list)},
            {"stats", trend_document(t, runs, o)}};
    add_kpi_cost_view(view, kpi);
    add_kpi_energy_view(view, kpi);
    return view;
}

// Latency and throughput over time, run labels beside the points, regressions against the previous
// run marked. x is days since the first run, or the run's place when some run has no date.
inline std::vector<plot_file> trend_plots(const trend& t, std::span<const run> runs, double confidence = 0.95) {
    namespace parts = detail::trend_parts;
    const bool dated = parts::all_dated(t);
    const std::string x_label = dated ? "days since " + parts::date_text(t.steps.front().started, false)
                                      : "run (in the order given)";
    std::vector<double> xs;
    for (std::size_t k = 0; k < t.steps.size(); ++k)
        xs.push_back(dated ? t.steps[k].started->seconds_since(*t.steps.front().started) / 86400
                           : static_cast<double>(k + 1));
    struct series_spec {
        std::string name;
        std::optional<metric> of; // none: throughput
        double p = 0;
    };
    auto value = [&](const trend_step& s, const series_spec& spec) {
        return spec.of ? find_percentile(s.stats, "all", *spec.of, spec.p) : s.stats.rps;
    };
    std::vector<plot_file> out;
    auto add = [&](const char* file, const std::string& title, const char* y_label,
                   const std::vector<series_spec>& specs) {
        std::vector<plot::named_points> series;
        plot::line_options o;
        for (const auto& spec : specs) {
            plot::named_points s{spec.name, {}, {}};
            std::vector<std::string> labels; // on the first series only: one label per run is enough
            for (std::size_t k = 0; k < t.steps.size(); ++k)
                if (const auto y = value(t.steps[k], spec)) {
                    s.x.push_back(xs[k]);
                    s.y.push_back(*y);
                    labels.push_back(series.empty() ? runs[t.steps[k].run].meta.label : "");
                }
            if (s.x.empty()) continue;
            o.point_labels.push_back(std::move(labels));
            series.push_back(std::move(s));
        }
        if (series.empty()) return;
        for (std::size_t i = 0; i < specs.size() && i < series.size(); ++i)
            if (specs[i].of) o.bands.push_back(parts::percentile_band(t, xs, *specs[i].of, specs[i].p, i, specs[i].name, confidence));
        // A run too small for an interval breaks its band: said under the axis.
        for (const auto& b : o.bands)
            for (std::size_t k = 0; k < b.low.size(); ++k)
                if (!std::isfinite(b.low[k]))
                    o.caption = fmt::format("no shading where a run has too few requests for a {:g}% interval", 100 * confidence);
        for (std::size_t k = 1; k < t.steps.size(); ++k)
            for (const auto& spec : specs) {
                if (!spec.of) continue;
                const std::string name = fmt::format("{}.{}", to_string(*spec.of), percentile_key(spec.p));
                const change* c = parts::find(t.steps[k].vs_previous, name);
                const auto y = value(t.steps[k], spec);
                if (c == nullptr || c->result != verdict::regressed || !y) continue;
                o.marks.push_back({xs[k], *y, "regressed (" + runs[t.steps[k].run].meta.label + ")"});
                break; // one mark per run
            }
        out.push_back({file, title, plot::line_chart(series, {title, x_label, y_label}, o)});
    };
    add("trend-e2e.svg", "End-to-end latency over time (p50, p99)", "end-to-end latency (s)",
        {{"e2e p50", metric::e2e, 50}, {"e2e p99", metric::e2e, 99}});
    add("trend-ttft.svg", "Time to first token over time (p50, p99)", "time to first token (s)",
        {{"ttft p50", metric::ttft, 50}, {"ttft p99", metric::ttft, 99}});
    add("trend-rps.svg", "Throughput over time", "throughput (req/s)", {{"requests/s", std::nullopt, 0}});
    return out;
}

} // namespace servestat::report
