// The digest every report leads with: a few summary sentences built from the numbers, a KPI table
// per run or side with SLO verdicts, and findings merged across load levels and ranked, the most
// important in the body and every one in an appendix. The report, compare, sweep and trend views
// all build their top section from these pieces.
#pragma once

#include <cctype>    // std::toupper
#include <algorithm>   // std::stable_sort, std::min, std::max, std::sort, std::find, std::any_of
#include <cmath>       // std::abs, std::log10
#include <cstddef>     // std::size_t
#include <map>         // std::map
#include <optional>    // std::optional
#include <span>        // std::span
#include <string>      // std::string
#include <string_view> // std::string_view
#include <utility>     // std::move, std::pair
#include <vector>      // std::vector

#include <fmt/format.h> // fmt::format

#include "servestat/compare/compare.hpp"      // change, verdict
#include "servestat/report/change_text.hpp"   // signed_percent, value_text, readable_name, p_clause
#include "servestat/report/cost_view.hpp"     // add_kpi_cost, price_text, good_output_figure
#include "servestat/report/energy_view.hpp"   // add_kpi_energy, energy_source_text, good_energy_figure
#include "servestat/report/few_samples.hpp"   // few_samples_mark_of, marked_seconds
#include "servestat/report/format.hpp"        // format_seconds, format_share, missing_value, format_interval
#include "servestat/report/intervals.hpp"     // percentile_ci, few_samples_mark_unless_ci, interval_note
#include "servestat/report/stats_json.hpp"    // json
#include "servestat/report/with_failed.hpp"   // judged_percentile, judged_text, detail::add_kpi_with_failed
#include "servestat/stats/run_stats.hpp"      // run_stats, find_summary, find_percentile
#include "servestat/stats/run_validity.hpp"   // run_failed_entirely, run_request_count
#include "servestat/stats/subsets.hpp"        // subset_options
#include "servestat/sweep/sweep_analysis.hpp" // detail::format_load

namespace servestat::report {

// ---- summary sentences ------------------------------------------------------------------------

// A statement for the summary and how much it matters: the heaviest few are shown. A caveat (a run
// whose numbers are not the server's: a straggler, an early end, a tiny run, errors, levels out of
// order) is always shown, beside the five: a reader must meet it before the numbers it qualifies.
struct summary_sentence {
    double weight = 0;
    std::string text;
    bool caveat = false;
};

inline constexpr std::size_t summary_sentences_shown = 5;

// Every caveat and at most five other sentences, heaviest first (equal weights keep the order
// they were made in).
inline json summary_view(std::vector<summary_sentence> sentences) {
    std::stable_sort(sentences.begin(), sentences.end(),
                     [](const summary_sentence& a, const summary_sentence& b) { return a.weight > b.weight; });
    json out = json::array();
    std::size_t others = 0;
    for (auto& s : sentences)
        if (s.caveat || others++ < summary_sentences_shown) out.push_back({{"text", std::move(s.text)}});
    return out;
}

// What labels share up to the last separator before they differ: "bad" for bad-c1 … bad-c64;
// empty when they share nothing that reads as a name.
inline std::string common_stem(const std::vector<std::string>& labels) {
    if (labels.empty()) return {};
    std::string common = labels.front();
    for (const auto& l : labels) {
        std::size_t n = 0;
        while (n < common.size() && n < l.size() && common[n] == l[n]) ++n;
        common.resize(n);
    }
    if (labels.size() == 1) return common;
    const auto cut = common.find_last_of("-_ /.");
    if (cut == std::string::npos) return {};
    std::string stem = common.substr(0, cut);
    // Runs named by their settings ("base · rate 10", "base · c=8"): the stem is the configuration.
    for (const std::string_view load_word : {" · rate", " · c"})
        if (stem.ends_with(load_word)) stem.resize(stem.size() - load_word.size());
    if (stem.ends_with(" ·")) stem.resize(stem.size() - std::string_view(" ·").size());
    return stem;
}

// A section's own first findings ahead of the summary built before it (the groups of --group-by
// are what that report was asked for); the summary stays at five sentences.
inline void lead_summary_with(json& summary, const json& findings, std::size_t most) {
    json out = json::array();
    for (std::size_t i = 0; i < findings.size() && i < most; ++i) out.push_back({{"text", findings[i]["text"]}});
    for (const auto& s : summary)
        if (out.size() < summary_sentences_shown) out.push_back(s);
    summary = std::move(out);
}

// ---- KPI table --------------------------------------------------------------------------------

// One row group of the KPI table: a run, or one side of a comparison, under a name.
struct kpi_source {
    std::string name;
    const run_stats* stats = nullptr;
};

namespace detail {

// The KPI table's percentiles: TTFT and e2e p50 and p99, each in fields "ttft_p50" ….
inline constexpr std::pair<metric, double> kpi_percentiles[] = {
    {metric::ttft, 50}, {metric::ttft, 99}, {metric::e2e, 50}, {metric::e2e, 99}};

inline std::string kpi_key(metric m, double p) { return fmt::format("{}_{}", to_string(m), percentile_key(p)); }

// Beside each KPI percentile its interval ("ttft_p50_ci": "(0.95–1.21)", in the value's unit), null
// where it has none; a value shown with its interval drops the dagger (few_samples_mark_unless_ci).
// `r` null: a row of reported numbers, which carry no interval.
inline void add_kpi_intervals(json& row, const run_stats* r, std::string_view subset) {
    for (const auto& [m, p] : kpi_percentiles) {
        const summary* s = r ? find_summary(*r, subset, m) : nullptr;
        const auto value = s ? find_percentile(*s, p) : std::nullopt;
        const auto ci = percentile_ci(s, p);
        row[kpi_key(m, p) + "_ci"] = value && ci ? json(format_interval(*value, ci->low, ci->high)) : json(nullptr);
        if (r) row[kpi_key(m, p) + "_mark"] = few_samples_mark_unless_ci(s, p);
    }
}

inline std::string slo_verdict_text(const run_stats& r, std::string_view subset, const std::vector<slo>& slos,
                                    double percentile) {
    // Every objective is shown with the percentile it judged, passed or not: "PASS: e2e p95 98.2 ms ≤ 500 ms".
    std::vector<std::string> passed, failed;
    bool counted = false;
    for (const auto& s : slos) {
        // Judged with failed requests counted as +∞ where any failed (report/with_failed.hpp).
        const summary* sum = find_summary(r, subset, s.on);
        const auto value = judged_percentile(sum, percentile);
        if (!value) continue;
        counted = counted || with_failed_value(sum, percentile).has_value();
        const bool pass = *value <= s.max_seconds;
        (pass ? passed : failed)
            .push_back(fmt::format("{} {} {} {} {}", to_string(s.on), percentile_key(percentile), judged_text(sum, percentile),
                                   pass ? "≤" : ">", format_seconds(s.max_seconds)));
    }
    if (passed.empty() && failed.empty()) return missing_value;
    const auto joined = [](const std::vector<std::string>& parts) {
        std::string out;
        for (const auto& p : parts) out.append(out.empty() ? "" : "; ").append(p);
        return out;
    };
    if (!failed.empty()) return "FAIL: " + joined(failed);
    // A value resting on few samples carries its dagger (a longer run may well fail it); a pass that
    // counted failed requests says so (its percentile was the one with them as +∞).
    return "PASS: " + joined(passed) +
           (counted ? " (failed requests counted as ∞)" : "");
}

inline std::string rate_text(const std::optional<double>& v, const char* format) {
    return v ? fmt::format(fmt::runtime(format), *v) : std::string(missing_value);
}

// A run known only by its tool's own numbers (an aggregate file): its KPI row from those, as reported.
inline json reported_kpi_row(const std::string& name, const run_stats& r, const std::vector<slo>& slos,
                             double slo_percentile) {
    auto value = [&](std::string_view key) -> std::optional<double> {
        if (const auto* v = find_reported(r.meta, key)) return v->value;
        return std::nullopt;
    };
    const auto requests = run_request_count(r), ok = value("ok");
    const bool nothing = run_failed_entirely(r);
    std::string failed;
    bool any = false;
    for (const auto& s : slos) {
        const auto v = value(fmt::format("{}.{}", to_string(s.on), percentile_key(slo_percentile)));
        if (!v) continue;
        any = true;
        if (*v > s.max_seconds)
            failed.append(failed.empty() ? "" : "; ")
                .append(fmt::format("{} {} {} > {}", to_string(s.on), percentile_key(slo_percentile), format_seconds(*v),
                                    format_seconds(s.max_seconds)));
    }
    const std::string slo_text = !any ? std::string(missing_value) : failed.empty() ? std::string("PASS") : "FAIL: " + failed;
    json row{{"name", name},
            {"subset", "all (as reported)"},
            {"requests", requests ? fmt::format("{:.0f}", *requests) : std::string(missing_value)},
            // Without a count of requests sent, the share is unknown: the count of successes stands in.
            {"ok", ok && requests && *requests > 0 ? format_share(*ok / *requests)
                   : ok                            ? fmt::format("{:.0f} ok", *ok)
                                                   : std::string(missing_value)},
            // A failed run's zeros are no measurement (stats/run_validity.hpp).
            {"rps", nothing ? std::string(failed_run_cell) : rate_text(value("rps"), "{:.2f}")},
            {"output_tps", nothing ? std::string(missing_value) : rate_text(value("output_tps"), "{:.1f}")},
            {"ttft_p50", format_seconds(value("ttft.p50"))},
            {"ttft_p99", format_seconds(value("ttft.p99"))},
            {"e2e_p50", format_seconds(value("e2e.p50"))},
            {"e2e_p99", format_seconds(value("e2e.p99"))},
            {"ttft_p50_mark", ""},
            {"ttft_p99_mark", ""},
            {"e2e_p50_mark", ""},
            {"e2e_p99_mark", ""},
            {"slo", slo_text}};
    add_kpi_intervals(row, nullptr, "all");
    add_kpi_with_failed(row, nullptr, "all");
    add_kpi_cost(row, &r);
    add_kpi_energy(row, &r);
    return row;
}

// A run of requests in which none completed: its counts, and "failed" where its rates would be.
inline json failed_kpi_row(const std::string& name, const run_stats& r) {
    json row{{"name", name}, {"subset", "all"}, {"requests", std::to_string(r.requests)}, {"ok", format_share(0.0)},
             {"rps", failed_run_cell}, {"output_tps", missing_value}, {"slo", missing_value}};
    for (const char* cell : {"ttft_p50", "ttft_p99", "e2e_p50", "e2e_p99"}) {
        row[cell] = missing_value;
        row[std::string(cell) + "_mark"] = "";
    }
    add_kpi_intervals(row, nullptr, "all");
    add_kpi_with_failed(row, nullptr, "all");
    add_kpi_cost(row, &r);
    add_kpi_energy(row, &r);
    return row;
}

} // namespace detail

// What the KPI table's parentheses mean and which of its values stand without one, for the note
// under it (interval_note); empty when it shows no interval. `marked`: the table shows the daggers
// (the trend's does not).
inline std::string kpi_interval_note(std::span<const kpi_source> sources, double confidence, bool marked = true) {
    std::vector<std::pair<double, std::size_t>> alone;
    bool any = false;
    for (const auto& source : sources) {
        if (source.stats->meta.kind == run_kind::summary) continue;
        for (const char* subset : {"all", "short", "long"})
            for (const auto& [m, p] : detail::kpi_percentiles) {
                const summary* s = find_summary(*source.stats, subset, m);
                if (s == nullptr || !find_percentile(*s, p)) continue;
                if (percentile_ci(s, p)) any = true;
                else if (!few_samples_mark_of(s, p).empty()) alone.emplace_back(p, s->n);
            }
    }
    return interval_note(std::move(alone), confidence, any, 4, marked);
}

// Rows of the KPI table: per source its whole run, then short and long prompts where it has them
// (their successful requests: medium prompts count in "all" only). Rates and success belong to the
// run, so subset rows leave them empty.
inline json kpi_rows(std::span<const kpi_source> sources, const std::vector<slo>& slos, double slo_percentile,
                     const subset_options& subsets = {}) {
    const std::string short_name = fmt::format("short (≤ {} tok)", subsets.short_max),
                      long_name = fmt::format("long (≥ {} tok)", subsets.long_min);
    json rows = json::array();
    for (const auto& source : sources) {
        const run_stats& r = *source.stats;
        if (r.meta.kind == run_kind::summary) {
            rows.push_back(detail::reported_kpi_row(source.name, r, slos, slo_percentile));
            continue;
        }
        if (run_failed_entirely(r)) {
            rows.push_back(detail::failed_kpi_row(source.name, r));
            continue;
        }
        bool first = true;
        for (const char* subset : {"all", "short", "long"}) {
            // A run's latencies as it has them: e2e where requests carry their ends, else the first
            // token's (a log of TTFT and ITL alone still has its row).
            const summary* e2e = find_summary(r, subset, metric::e2e);
            if (e2e == nullptr || e2e->n == 0) e2e = find_summary(r, subset, metric::ttft);
            if (e2e == nullptr || e2e->n == 0) continue;
            auto at = [&](metric m, double p) { return format_seconds(find_percentile(r, subset, m, p)); };
            auto mark = [&](metric m, double p) { return few_samples_mark_of(find_summary(r, subset, m), p); };
            const bool whole = std::string_view(subset) == "all";
            const double ok = r.requests ? static_cast<double>(r.ok) / static_cast<double>(r.requests) : 0.0;
            rows.push_back({{"name", first ? source.name : std::string()},
                            {"subset", whole ? std::string("all") : std::string_view(subset) == "short" ? short_name : long_name},
                            {"requests", whole ? std::to_string(r.requests) : std::to_string(e2e->n)},
                            {"ok", whole ? format_share(ok) : std::string()},
                            {"rps", whole ? detail::rate_text(r.rps, "{:.2f}") : std::string()},
                            {"output_tps", whole ? detail::rate_text(r.output_tps, "{:.1f}") : std::string()},
                            {"ttft_p50", at(metric::ttft, 50)},
                            {"ttft_p99", at(metric::ttft, 99)},
                            {"e2e_p50", at(metric::e2e, 50)},
                            {"e2e_p99", at(metric::e2e, 99)},
                            {"ttft_p50_mark", mark(metric::ttft, 50)},
                            {"ttft_p99_mark", mark(metric::ttft, 99)},
                            {"e2e_p50_mark", mark(metric::e2e, 50)},
                            {"e2e_p99_mark", mark(metric::e2e, 99)},
                            {"slo", detail::slo_verdict_text(r, subset, slos, slo_percentile)}});
            detail::add_kpi_intervals(rows.back(), &r, subset);
            detail::add_kpi_with_failed(rows.back(), &r, subset);
            add_kpi_cost(rows.back(), &r, whole); // cost belongs to the run, as its rates do
            add_kpi_energy(rows.back(), &r, whole);
            first = false;
        }
    }
    return rows;
}

// Under the KPI table where it shows cost: the price, what the columns count, what the parentheses
// are, and why a cost has no interval or no value. Empty when no source has a price.
inline std::string kpi_cost_note(std::span<const kpi_source> sources) {
    const run_cost* priced = nullptr;
    std::vector<std::string> reasons;
    const auto note_reason = [&](const cost_figure* f) {
        if (f && !f->ci && !f->why.empty() && std::find(reasons.begin(), reasons.end(), f->why) == reasons.end())
            reasons.push_back(f->why);
    };
    for (const auto& s : sources) {
        if (!s.stats->cost) continue;
        if (!priced) priced = &*s.stats->cost;
        note_reason(&s.stats->cost->per_1m_output);
        note_reason(good_output_figure(s.stats->cost));
    }
    if (!priced) return {};
    std::string out = fmt::format("$ / 1M out: USD per 1M output tokens at {}", price_text(priced->price));
    if (priced->per_1m_good_output) out += "; $ / 1M good out: per 1M output tokens of the requests that met every SLO";
    out += fmt::format(". In parentheses the {:g}% interval: batch means over time windows within a run, Student's t "
                       "between runs where one configuration ran more than once (docs/metrics.md#cost-per-token).",
                       100 * priced->confidence);
    std::string why;
    for (std::size_t i = 0; i < reasons.size() && i < 3; ++i) why.append(why.empty() ? "" : "; ").append(reasons[i]);
    return why.empty() ? out : out + " Without one: " + why + ".";
}

// The KPI view's cost flags, columns only where some source has a price, and the cost note after
// the interval note: both say what the table's parentheses are (a template without a price renders
// as before, no line added).
inline void add_kpi_cost_view(json& view, std::span<const kpi_source> sources) {
    const bool any = std::any_of(sources.begin(), sources.end(), [](const kpi_source& s) { return s.stats->cost.has_value(); });
    const bool good = std::any_of(sources.begin(), sources.end(),
                                  [](const kpi_source& s) { return good_output_figure(s.stats->cost) != nullptr; });
    view["has_kpi_cost"] = any;
    view["has_kpi_cost_good"] = good;
    const std::string note = kpi_cost_note(sources);
    if (note.empty()) return;
    json& intervals = view["kpi_interval_note"];
    intervals = intervals.is_string() ? json(intervals.get<std::string>() + " " + note) : json(note);
}

// Under the KPI table where it shows energy: what the columns count, where each run's energy came
// from, what the parentheses are, and why a figure has no interval or no value. Empty when no
// source has an energy.
inline std::string kpi_energy_note(std::span<const kpi_source> sources) {
    const run_energy* first = nullptr;
    std::vector<std::string> reasons, origins;
    const auto add = [](std::vector<std::string>& list, const std::string& text) {
        if (!text.empty() && std::find(list.begin(), list.end(), text) == list.end()) list.push_back(text);
    };
    for (const auto& s : sources) {
        const auto& e = s.stats->energy;
        if (!e) continue;
        if (!first) first = &*e;
        const energy_figure* shown = output_energy_figure(e);
        add(origins, s.name + ": " + energy_source_text(*e) +
                         (shown && shown->ci ? "; its interval by " + shown->method : std::string()));
        for (const energy_figure* f : {output_energy_figure(e), good_energy_figure(e)})
            if (f && f->value && !f->ci) add(reasons, f->why);
    }
    if (!first) return {};
    std::string out = "J / out tok: the GPUs' energy over the whole run (whole-board power of every GPU counted, idle "
                      "draw included) per output token; it belongs to the run, as its rates do";
    if (std::any_of(sources.begin(), sources.end(), [](const kpi_source& s) { return good_energy_figure(s.stats->energy); }))
        out += "; J / good out tok: the same energy per output token of the requests that each met every SLO "
               "(the requests goodput counts)";
    out += fmt::format(". In parentheses the {:g}% interval: batch means of energy against tokens over time windows within "
                       "a run, Student's t between runs where one configuration ran more than once "
                       "(docs/metrics.md#energy-per-token).",
                       100 * first->confidence);
    for (std::size_t i = 0; i < origins.size() && i < 3; ++i) out += (i == 0 ? " Power: " : "; ") + origins[i];
    if (origins.size() > 3) out += fmt::format("; and {} more runs (report.json, runs[].energy)", origins.size() - 3);
    if (!origins.empty()) out += ".";
    std::string why;
    for (std::size_t i = 0; i < reasons.size() && i < 3; ++i) why.append(why.empty() ? "" : "; ").append(reasons[i]);
    return why.empty() ? out : out + " Without an interval: " + why + ".";
}

// The KPI view's energy flags and note, as add_kpi_cost_view's.
inline void add_kpi_energy_view(json& view, std::span<const kpi_source> sources) {
    view["has_kpi_energy"] = std::any_of(sources.begin(), sources.end(),
                                         [](const kpi_source& s) { return s.stats->energy.has_value(); });
    view["has_kpi_energy_good"] = std::any_of(sources.begin(), sources.end(),
                                              [](const kpi_source& s) { return good_energy_figure(s.stats->energy); });
    const std::string note = kpi_energy_note(sources);
    if (note.empty()) return;
    json& intervals = view["kpi_interval_note"];
    intervals = intervals.is_string() ? json(intervals.get<std::string>() + " " + note) : json(note);
}

// ---- findings, ranked -------------------------------------------------------------------------

// A finding with the weight that ranks it: the body shows the heaviest, the appendix every one.
struct digest_finding {
    double score = 0;
    std::string kind; // "change", "trade_off", "knee", "capacity", "throughput", "tail_only", "too_few", ...
    std::string text;
};

inline constexpr std::size_t findings_in_body = 12;

// Findings at two depths: the body's digest (changes grouped by subset and metric, trade-offs named)
// and every finding one by one, for the appendix and the JSON export.
struct digest_findings {
    std::vector<digest_finding> body, all;
};

namespace detail {

inline void rank(std::vector<digest_finding>& list) {
    std::stable_sort(list.begin(), list.end(),
                     [](const digest_finding& a, const digest_finding& b) { return a.score > b.score; });
}

inline json finding_list(const std::vector<digest_finding>& list) {
    json out = json::array();
    for (const auto& f : list) out.push_back({{"text", f.text}, {"kind", f.kind}});
    return out;
}

} // namespace detail

// The heaviest twelve of the body; "All findings" keeps every one.
inline json findings_view(digest_findings f) {
    detail::rank(f.body);
    detail::rank(f.all);
    std::vector<digest_finding> body(f.body.begin(), f.body.begin() + static_cast<std::ptrdiff_t>(std::min(f.body.size(), findings_in_body)));
    return {{"findings", detail::finding_list(body)},
            {"has_findings", !body.empty()},
            {"all_findings", detail::finding_list(f.all)},
            {"has_more_findings", f.all.size() > body.size()},
            {"findings_total", std::to_string(f.all.size())}};
}

// ---- changes merged across load levels ---------------------------------------------------------

// One statistic's change at one place: a load level of a sweep, a pair of runs, or the only pair.
struct located_change {
    std::optional<double> load;
    std::string where; // "c=16", or a pair's heading; empty for the only pair
    std::size_t position = 0; // the place's index, so runs of neighbouring levels read as a range
    const change* x = nullptr;
};

// Every level at which one statistic moved significantly in one direction.
struct merged_change {
    std::string name; // "short.e2e.p99"
    verdict direction = verdict::improved;
    std::vector<located_change> levels; // where it moved that way, in level order
    std::size_t judged = 0;             // levels where the statistic got a verdict at all
};

namespace detail {

inline bool judged(verdict v) { return v != verdict::too_few && v != verdict::single && v != verdict::untested; }

// User-facing latencies and throughput first; the server's own breakdown explains them.
inline double importance(const change& c) {
    if (c.metric == "e2e" || c.metric == "e2e_sched" || c.subset.empty()) return 1.0;
    if (c.metric == "ttft") return 0.95; // part of e2e: where both moved, e2e leads
    if (c.metric == "tpot") return 0.8;
    return 0.5;
}

inline double median_magnitude(const merged_change& m) {
    std::vector<double> v;
    for (const auto& l : m.levels)
        if (l.x->relative) v.push_back(std::abs(*l.x->relative));
    if (v.empty()) return 1.0; // a baseline of zero: no ratio, but a verdict all the same
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

inline double largest_p(const merged_change& m) {
    double p = 0;
    for (const auto& l : m.levels) p = std::max(p, l.x->p_value.value_or(1.0));
    return p;
}

// Effect × significance: the median size of the change (capped at 100%, beyond which size no longer
// decides what a reader must see first), the share of levels where it is significant, the
// strength of the weakest p-value (full at p ≤ 0.001) and the metric's importance.
inline double score(const merged_change& m) {
    const double breadth = m.judged ? static_cast<double>(m.levels.size()) / static_cast<double>(m.judged) : 1.0;
    const double strength = std::min(1.0, -std::log10(std::max(largest_p(m), 1e-300)) / 3.0);
    return importance(*m.levels.front().x) * std::min(median_magnitude(m), 1.0) * breadth * strength;
}

// "31–44%" (or one value), from the relative changes; absolute deltas where a baseline was zero.
inline std::string magnitude_range(const merged_change& m) {
    double lo = 0, hi = 0;
    bool any = false;
    for (const auto& l : m.levels)
        if (l.x->relative) {
            const double v = 100 * std::abs(*l.x->relative);
            lo = any ? std::min(lo, v) : v;
            hi = any ? std::max(hi, v) : v;
            any = true;
        }
    if (!any) return delta_text(*m.levels.front().x, *m.levels.front().x->delta);
    if (lo == hi) return fmt::format("{:.1f}%", hi);
    auto pct = [](double v) { return v >= 10 ? fmt::format("{:.0f}", v) : fmt::format("{:.1f}", v); };
    return pct(lo) == pct(hi) ? pct(hi) + "%" : pct(lo) + "–" + pct(hi) + "%";
}

// The range with its direction: "−19.3%", "−32% to −80%", "+15% to +111%".
inline std::string signed_range(const merged_change& m) {
    const std::string range = magnitude_range(m);
    const std::string sign = m.levels.front().x->relative && *m.levels.front().x->relative < 0 ? "−" : "+";
    if (!m.levels.front().x->relative) return range; // an absolute delta carries its own sign
    const auto dash = range.find("–");
    if (dash == std::string::npos) return sign + range;
    return sign + range.substr(0, dash) + "% to " + sign + range.substr(dash + std::string("–").size());
}

// "c=16…64" for neighbouring levels, "c=1, c=8…64" where a run of three or more neighbours is
// broken, "c=8, c=32"; pairs of runs by their headings.
inline std::string levels_text(const std::string& param, const merged_change& m) {
    const auto& ls = m.levels;
    std::string out;
    if (!ls.front().load) {
        for (const auto& l : ls) out.append(out.empty() ? "" : ", ").append(l.where);
        return out;
    }
    for (std::size_t i = 0; i < ls.size();) {
        std::size_t j = i;
        while (j + 1 < ls.size() && ls[j + 1].position == ls[j].position + 1) ++j;
        // Each range or level names its parameter, so "c=1, c=8…64" cannot read as one range.
        out.append(out.empty() ? "" : ", ").append(servestat::detail::format_load(param, *ls[i].load));
        if (j >= i + 2) out += "…" + servestat::detail::load_text(*ls[j].load);
        else
            for (std::size_t k = i + 1; k <= j; ++k) out.append(", ").append(servestat::detail::format_load(param, *ls[k].load));
        i = j + 1;
    }
    return out;
}

// The interval's ends over all levels: the least and the most the data supports.
inline std::string ci_span(const merged_change& m, const verdict_options& o) {
    std::optional<double> lo, hi;
    for (const auto& l : m.levels)
        if (l.x->relative_ci) {
            lo = lo ? std::min(*lo, l.x->relative_ci->low) : l.x->relative_ci->low;
            hi = hi ? std::max(*hi, l.x->relative_ci->high) : l.x->relative_ci->high;
        }
    if (!lo) return "";
    return fmt::format("; {} CIs within {} to {}", percent_text(o.confidence), signed_percent(*lo), signed_percent(*hi));
}

inline const located_change& largest(const merged_change& m) {
    const located_change* best = &m.levels.front();
    for (const auto& l : m.levels)
        if (l.x->relative && (!best->x->relative || std::abs(*l.x->relative) > std::abs(*best->x->relative))) best = &l;
    return *best;
}

inline std::string p_bound(double p) { return p < 0.001 ? "p < 0.001" : "p ≤ " + p_text(p); }

} // namespace detail

// The statistics that moved significantly, each merged over the levels where it moved one way.
inline std::vector<merged_change> merge_changes(std::span<const located_change> changes) {
    std::map<std::string, std::size_t> judged;
    for (const auto& l : changes)
        if (detail::judged(l.x->result)) ++judged[l.x->name];
    std::vector<merged_change> out;
    std::map<std::pair<std::string, verdict>, std::size_t> index;
    for (const auto& l : changes) {
        if (l.x->result != verdict::improved && l.x->result != verdict::regressed) continue;
        const auto key = std::pair{l.x->name, l.x->result};
        auto [it, fresh] = index.try_emplace(key, out.size());
        if (fresh) out.push_back({l.x->name, l.x->result, {}, judged[l.x->name]});
        out[it->second].levels.push_back(l);
    }
    return out;
}

// "short e2e p99 improved 31–44% at c=16…64 (significant at 5 of 8 levels; 95% CIs within …; largest
// at c=64: 1.40 s → 790 ms; p < 0.001)", or for one pair the change with its own interval.
inline std::string merged_sentence(const std::string& param, const merged_change& m, const verdict_options& o) {
    const change& x = *m.levels.front().x;
    const std::string what = detail::sentence_name(x) + " " + std::string(describe(m.direction));
    if (m.levels.size() == 1 && m.judged <= 1) {
        const auto& l = m.levels.front();
        std::string out = (l.where.empty() ? "" : l.where + ": ") + what;
        if (l.where.empty()) out[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(out[0]))); // a sentence
        if (x.relative) out += fmt::format(" by {:.1f}%", 100 * std::abs(*x.relative));
        out += " (" + detail::marked_side_text(x, "before") + " → " + detail::marked_side_text(x, "after");
        if (const auto ends = detail::ci_ends(x))
            out += "; " + detail::percent_text(o.confidence) + " CI " + ends->first + " to " + ends->second;
        return out + "; " + detail::p_clause(x.p_value.value_or(1)) + ").";
    }
    const auto& big = detail::largest(m);
    std::string lead = what;
    lead[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(lead[0])));
    return fmt::format("{} {} at {} (significant at {} of {} {}{}; largest at {}: {} → {}; {}).", lead,
                       detail::magnitude_range(m), detail::levels_text(param, m), m.levels.size(), m.judged,
                       m.levels.front().load ? "levels" : "pairs", detail::ci_span(m, o), big.where,
                       detail::marked_side_text(*big.x, "before"), detail::marked_side_text(*big.x, "after"),
                       detail::p_bound(detail::largest_p(m)));
}

// A trade-off: one prompt-length subset improved where another regressed, on the same statistic.
struct trade_off {
    const merged_change* gained;
    const merged_change* paid;
};

inline std::vector<trade_off> find_trade_offs(const std::vector<merged_change>& merged) {
    std::vector<trade_off> out;
    for (const auto& g : merged) {
        const change& gx = *g.levels.front().x;
        if (g.direction != verdict::improved || gx.subset.empty() || gx.subset == "all") continue;
        const merged_change* strongest = nullptr;
        for (const auto& p : merged) {
            const change& px = *p.levels.front().x;
            if (p.direction != verdict::regressed || px.subset.empty() || px.subset == "all" || px.subset == gx.subset ||
                px.metric != gx.metric || px.statistic != gx.statistic)
                continue;
            if (strongest == nullptr || detail::score(p) > detail::score(*strongest)) strongest = &p;
        }
        if (strongest) out.push_back({&g, strongest});
    }
    return out;
}

inline std::string trade_off_sentence(const std::string& param, const trade_off& t) {
    auto part = [&](const merged_change& m) {
        return fmt::format("{} {} {} at {}", detail::sentence_name(*m.levels.front().x), describe(m.direction),
                           detail::magnitude_range(m), detail::levels_text(param, m));
    };
    return "Trade-off: " + part(*t.gained) + ", while " + part(*t.paid) + ".";
}

// Findings from changes: each merged change, and each trade-off, ranked by effect × significance.
inline std::vector<digest_finding> change_findings(const std::string& param, const std::vector<merged_change>& merged,
                                                   const verdict_options& o) {
    std::vector<digest_finding> out;
    for (const auto& t : find_trade_offs(merged))
        out.push_back({std::max(detail::score(*t.gained), detail::score(*t.paid)) * 1.01, "trade_off",
                       trade_off_sentence(param, t)});
    for (const auto& m : merged)
        out.push_back({detail::score(m), "change", merged_sentence(param, m, o)});
    return out;
}

// ---- changes grouped by subset and metric ------------------------------------------------------

// The statistics of one subset's metric that moved the same way: one event for a reader, since a
// shifted distribution moves its p50, p90 and mean together (and they share one p-value).
struct change_group {
    std::string subset, metric;
    verdict direction = verdict::improved;
    std::vector<const merged_change*> members; // p50, p90, p95, p99, p99.9, mean order
    double score = 0;
};

namespace detail {

inline int statistic_order(const std::string& statistic) {
    if (statistic == "mean") return 1000;
    if (statistic.size() > 1 && statistic[0] == 'p') return static_cast<int>(10 * std::stod(statistic.substr(1)));
    return 2000;
}

inline std::string metric_words(const std::string& metric) {
    static constexpr std::pair<const char*, const char*> names[] = {
        {"e2e", "e2e latency"}, {"ttft", "TTFT"}, {"tpot", "TPOT"}, {"itl", "inter-token latency"},
        {"decode", "decode time"}, {"client_queue", "client queue time"}, {"e2e_sched", "latency from intended send"},
        {"server_queue", "server queue time"}, {"server_prefill", "server prefill time"},
        {"server_decode", "server decode time"}, {"server_ttft", "server TTFT"},
        {"server_itl", "server inter-token latency"}};
    for (const auto& [key, text] : names)
        if (metric == key) return text;
    return metric;
}

inline std::string subset_words(const std::string& subset) {
    if (subset.empty()) return "";
    return subset == "all" ? "all requests'" : subset + " prompts'";
}

// "p50 32–80%, p90 43–82% at c=16…64", the levels said once when every statistic shares them.
inline std::string members_text(const std::string& param, const change_group& g) {
    std::string levels = levels_text(param, *g.members.front());
    bool same = true;
    for (const auto* m : g.members) same = same && levels_text(param, *m) == levels;
    std::string out;
    for (const auto* m : g.members) {
        out.append(out.empty() ? "" : ", ").append(m->levels.front().x->statistic).append(" ").append(signed_range(*m));
        if (!same) out.append(" at ").append(levels_text(param, *m));
    }
    return same && !levels.empty() ? out + " at " + levels : out;
}

// The group's strongest member in numbers: where, from what to what, its interval and p-value.
inline std::string evidence_text(const change_group& g, const verdict_options& o) {
    const merged_change* best = g.members.front();
    for (const auto* m : g.members)
        if (score(*m) > score(*best)) best = m;
    const auto& l = largest(*best);
    std::string out = l.x->statistic + (l.where.empty() ? "" : " at " + l.where) + ": " + marked_side_text(*l.x, "before") +
                      " → " + marked_side_text(*l.x, "after");
    if (const auto ends = ci_ends(*l.x)) out += ", " + percent_text(o.confidence) + " CI " + ends->first + " to " + ends->second;
    return out + ", " + p_clause(l.x->p_value.value_or(1));
}

} // namespace detail

// The groups point into `merged`, so it must outlive them: a temporary would leave them dangling
// (a trend of three runs read freed memory so, under ASan).
std::vector<change_group> group_changes(std::vector<merged_change>&& merged) = delete;

// Merged changes grouped by subset, metric and direction, strongest group first.
inline std::vector<change_group> group_changes(const std::vector<merged_change>& merged) {
    std::vector<change_group> out;
    std::map<std::string, std::size_t> index;
    for (const auto& m : merged) {
        const change& x = *m.levels.front().x;
        if (x.subset.empty()) continue; // run-level rates are single measurements, not grouped
        const std::string key = x.subset + "\n" + x.metric + "\n" + std::string(to_string(m.direction));
        auto [it, fresh] = index.try_emplace(key, out.size());
        if (fresh) out.push_back({x.subset, x.metric, m.direction, {}, 0});
        out[it->second].members.push_back(&m);
        out[it->second].score = std::max(out[it->second].score, detail::score(m));
    }
    for (auto& g : out)
        std::stable_sort(g.members.begin(), g.members.end(), [](const merged_change* a, const merged_change* b) {
            return detail::statistic_order(a->levels.front().x->statistic) < detail::statistic_order(b->levels.front().x->statistic);
        });
    std::stable_sort(out.begin(), out.end(), [](const change_group& a, const change_group& b) { return a.score > b.score; });
    return out;
}

// "short prompts' e2e improved: p50 32–80%, p90 43–82% at c=16…64 (largest: p90 at c=48: 150 ms →
// 27 ms, 95% CI −85.0% to −75.0%, p < 0.001)."
inline std::string group_sentence(const std::string& param, const change_group& g, const verdict_options& o) {
    const std::string who = detail::subset_words(g.subset);
    std::string out = fmt::format("{}{} {}: {} (largest change {}).", who.empty() ? "" : who + " ", detail::metric_words(g.metric),
                                  describe(g.direction), detail::members_text(param, g), detail::evidence_text(g, o));
    out[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(out[0]))); // a finding is a sentence
    return out;
}

// A trade-off between groups: one prompt-length subset's metric improved where another's regressed.
struct group_trade_off {
    const change_group* gained;
    const change_group* paid;
};

inline std::vector<group_trade_off> find_group_trade_offs(const std::vector<change_group>& groups) {
    std::vector<group_trade_off> out;
    for (const auto& g : groups) {
        if (g.direction != verdict::improved || g.subset == "all") continue;
        // A cost a fraction the size of the gain (+11% at one level against −80% at five) is told
        // on its own line, not made the other half of a trade-off.
        for (const auto& p : groups)
            if (p.direction == verdict::regressed && p.subset != "all" && p.subset != g.subset && p.metric == g.metric &&
                p.score >= 0.25 * g.score) {
                out.push_back({&g, &p});
                break; // groups are strongest first
            }
    }
    return out;
}

inline std::string group_trade_off_sentence(const std::string& param, const group_trade_off& t, const verdict_options& o) {
    return fmt::format("Trade-off on {}: {} improved ({}; largest change {}), while {} regressed ({}; largest change {}).",
                       detail::metric_words(t.gained->metric), detail::subset_words(t.gained->subset).substr(0, detail::subset_words(t.gained->subset).size() - 1),
                       detail::members_text(param, *t.gained), detail::evidence_text(*t.gained, o),
                       detail::subset_words(t.paid->subset).substr(0, detail::subset_words(t.paid->subset).size() - 1),
                       detail::members_text(param, *t.paid), detail::evidence_text(*t.paid, o));
}

// The body's findings from changes: each trade-off once, then each group not told by a trade-off.
inline std::vector<digest_finding> group_findings(const std::string& param, const std::vector<change_group>& groups,
                                                  const verdict_options& o) {
    std::vector<digest_finding> out;
    std::vector<const change_group*> told;
    for (const auto& t : find_group_trade_offs(groups)) {
        out.push_back({std::max(t.gained->score, t.paid->score) * 1.01, "trade_off", group_trade_off_sentence(param, t, o)});
        told.push_back(t.gained);
        told.push_back(t.paid);
    }
    for (const auto& g : groups)
        if (std::find(told.begin(), told.end(), &g) == told.end())
            out.push_back({g.score, "change", group_sentence(param, g, o)});
    return out;
}

} // namespace servestat::report
