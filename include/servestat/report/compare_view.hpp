// A before/after comparison as a report (compare.md, compare.html): findings as sentences, the
// verdict table, every statistic per pair and subset, the sweep's levels, knees and SLO capacity,
// and plots overlaying the two sides. The JSON export sits under "stats", so no format can disagree.
#pragma once

#include <algorithm>   // std::sort, std::min, std::max, std::any_of, std::find, std::find_if
#include <cctype>      // std::toupper
#include <cmath>       // std::abs
#include <cstddef>     // std::size_t
#include <optional>    // std::optional
#include <set>         // std::set
#include <span>        // std::span
#include <string>      // std::string
#include <string_view> // std::string_view
#include <vector>      // std::vector

#include <fmt/format.h> // fmt::format

#include "servestat/compare/comparison.hpp"  // comparison, comparison_options, change
#include "servestat/plot/bars.hpp"           // grouped_bar_chart
#include "servestat/plot/ecdf.hpp"           // ecdf_chart
#include "servestat/plot/line.hpp"           // line_chart, line_options
#include "servestat/report/change_text.hpp"  // signed_percent, value_text, readable_name, ...
#include "servestat/report/compare_json.hpp" // comparison_document, gate_outcome, json
#include "servestat/report/cost_view.hpp"    // cost_change_rows, cost_verdict_terms
#include "servestat/report/energy_view.hpp"  // energy_change_rows, energy_verdict_terms
#include "servestat/report/digest.hpp"       // merge_changes, change_findings, findings_view, kpi_rows, summary_view, add_kpi_cost_view
#include "servestat/report/format.hpp"       // format_seconds, format_share, missing_value
#include "servestat/report/plot_file.hpp"    // plot_file
#include "servestat/report/plots.hpp"        // detail::slug, detail::metric_values
#include "servestat/report/report_digest.hpp" // detail::peak_row
#include "servestat/report/time_split_view.hpp" // split_change_rows
#include "servestat/report/sweep_view.hpp"   // detail::format_load, series_over_load, find_knee_of, sweep_cell

namespace servestat::report {

struct compare_report_options {
    std::string title = "Before / after comparison";
};

namespace detail {

inline std::string param_of(const comparison& c) { return c.sweep ? c.sweep->param : std::string("load"); }

inline std::string load_prefix(const comparison& c, const compared_pair& p) {
    return p.load ? format_load(param_of(c), *p.load) + ": " : std::string();
}

inline std::string pair_heading(const comparison& c, const compared_pair& p) {
    return load_prefix(c, p) + p.comparison.before.meta.label + " → " + p.comparison.after.meta.label;
}

// ---- findings ------------------------------------------------------------------------------

// Every statistic of every pair, where it was measured: the input of the merged findings.
inline std::vector<located_change> located_changes(const comparison& c) {
    std::vector<located_change> out;
    for (std::size_t i = 0; i < c.pairs.size(); ++i) {
        const auto& p = c.pairs[i];
        const std::string where = p.load ? format_load(param_of(c), *p.load)
                                  : c.pairs.size() > 1 ? p.comparison.before.meta.label + " → " + p.comparison.after.meta.label
                                                       : std::string();
        for (const auto& x : p.comparison.changes) out.push_back({p.load, where, i, &x});
    }
    return out;
}

// Whether a side was known by its sketches only: then "no significant change" would claim a test
// that was never run.
inline bool has_untested(const comparison& c) {
    for (const auto& p : c.pairs)
        for (const auto& x : p.comparison.changes)
            if (x.result == verdict::untested) return true;
    return false;
}

// What a comparison of sketched sides can say first: which side is sketched, and the point changes
// of the medians users feel, with their sketch error; no verdict, since nothing could be tested.
inline std::string untested_summary(const comparison& c) {
    std::vector<std::string> sides;
    std::string changes;
    if (c.pairs.size() == 1) {
        const auto& rc = c.pairs.front().comparison;
        const auto sketched = [](const run_stats& r) {
            return std::any_of(r.subsets.begin(), r.subsets.end(), [](const subset_stats& s) {
                return std::any_of(s.metrics.begin(), s.metrics.end(), [](const auto& m) { return m.stats.sketch_alpha.has_value(); });
            });
        };
        for (const auto& [side, r] : {std::pair{"before", &rc.before}, std::pair{"after", &rc.after}})
            if (sketched(*r))
                sides.push_back(fmt::format("{} ({}) is {}", side, r->meta.label,
                                            r->meta.source.format == "servestat-summary" ? "a summary file" : "a streamed log"));
        for (const auto& [name, words] : {std::pair{"e2e.p50", "e2e p50"}, std::pair{"ttft.p50", "TTFT p50"}})
            if (const change* x = find_change(rc, name); x && x->relative)
                changes.append(changes.empty() ? "" : ", ").append(fmt::format("{} {}", words, signed_percent(*x->relative)));
    }
    std::string which = sides.empty() ? "a side is a summary or a streamed log" : sides.front();
    if (sides.size() == 2) which += " and " + sides.back();
    if (changes.empty())
        return "Nothing was tested: " + which + ", known by quantile sketches that hold no requests to bootstrap or rank; "
               "the changes below are point values.";
    return fmt::format("Point changes, untested: {} (estimates accurate to their sketch error, shown as \"sketched ±\" below; no interval for run-to-run noise). Nothing "
                       "was tested: {}, known by quantile sketches that hold no requests to bootstrap or rank.",
                       changes, which);
}

// The significant changes merged across levels (ties by name): grouped by subset and metric for
// the body, one by one for the appendix; or a sentence saying there are none.
inline void add_significant(const comparison& c, const verdict_options& o, digest_findings& out) {
    const auto located = located_changes(c);
    auto merged = merge_changes(located);
    std::stable_sort(merged.begin(), merged.end(),
                     [](const merged_change& a, const merged_change& b) { return a.name < b.name; });
    if (merged.empty() && !has_untested(c)) {
        const digest_finding none{1.0, "none",
                                  fmt::format("No statistic changed significantly beyond the ±{} noise band.", percent_text(o.noise))};
        out.body.push_back(none);
        out.all.push_back(none);
    }
    for (auto& f : group_findings(param_of(c), group_changes(merged), o)) out.body.push_back(std::move(f));
    for (auto& f : change_findings(param_of(c), merged, o)) out.all.push_back(std::move(f));
}

// Sentences of one kind, weighted to sit among the changes: an SLO capacity or a knee that moved
// weighs like a change of 50% or 40%; the caveats come last.
inline void add_all(digest_findings& out, double score, const char* kind, const std::vector<std::string>& texts) {
    for (const auto& t : texts) {
        out.body.push_back({score, kind, t});
        out.all.push_back({score, kind, t});
    }
}

inline std::string knee_name(const std::string& curve) {
    if (curve == "throughput") return "Saturation (throughput knee)";
    if (curve == "p99") return "Tail blow-up (e2e p99 knee)";
    if (curve == "ttft") return "Time to first token (ttft p99 knee)";
    if (curve == "tradeoff") return "Latency–throughput tradeoff (p99 against req/s knee)";
    return curve + " knee";
}

inline std::string knee_sentence(const std::string& param, const knee_shift& k) {
    auto at = [&](const std::optional<double>& load) { return load ? format_load(param, *load) : std::string("none found"); };
    if (k.before == k.after)
        return knee_name(k.curve) + (k.before ? " stayed at " + at(k.before) + "." : ": no knee on either side.");
    return knee_name(k.curve) + " moved from " + at(k.before) + " to " + at(k.after) + ".";
}

// "Knees moved (Kneedle, each side's own): saturation c=16 → 8, e2e p99 c=16 → 8, TTFT p99 none → c=8."
inline std::string knees_moved_sentence(const sweep_shift& s) {
    static constexpr std::pair<const char*, const char*> short_names[] = {
        {"throughput", "saturation"}, {"p99", "e2e p99"}, {"ttft", "TTFT p99"}, {"tradeoff", "latency–throughput trade-off"}};
    std::string parts;
    for (const auto& k : s.knees) {
        if (k.before == k.after) continue;
        std::string name = k.curve;
        for (const auto& [key, text] : short_names)
            if (k.curve == key) name = text;
        auto at = [&](const std::optional<double>& load) { return load ? format_load(s.param, *load) : std::string("none"); };
        parts.append(parts.empty() ? "" : "; ").append(name + " " + at(k.before) + " → " + at(k.after));
    }
    return "Knees moved (Kneedle, each side's own): " + parts + ".";
}

inline std::string capacity_side(const slo_capacity& s) {
    if (!s.known) return "unknown";
    if (!s.max_load) return "none";
    return s.interpolated ? "≈" + interpolated_load(*s.max_load) : servestat::detail::load_text(*s.max_load) + (s.limited ? "" : " (every level)");
}

inline bool capacity_moved(const capacity_shift& s) { return capacity_side(s.before) != capacity_side(s.after); }

inline std::string capacity_sentence(const std::string& param, const capacity_shift& s) {
    const std::string what = fmt::format("Largest {} meeting {} {} ≤ {}: ", param, to_string(s.objective.on),
                                         percentile_key(s.percentile), format_seconds(s.objective.max_seconds));
    if (!capacity_moved(s)) return what + capacity_side(s.before) + ", unchanged.";
    return what + capacity_side(s.before) + " → " + capacity_side(s.after) + ".";
}

// A shift of the tail that the distribution test does not confirm: the interval clears the noise
// band, but the p-value, taken over whole distributions, is not significant.
inline void add_tail_only(const comparison& c, const verdict_options& o, std::vector<std::string>& out) {
    for (const auto& p : c.pairs)
        for (const auto& x : p.comparison.changes) {
            if (x.result != verdict::no_change || !x.relative || !x.relative_ci || !x.p_value) continue;
            if (!(x.relative_ci->low > o.noise || x.relative_ci->high < -o.noise)) continue;
            const bool tail = x.statistic == "mean" || (x.statistic.size() > 1 && x.statistic[0] == 'p' && x.statistic != "p50");
            std::string text = fmt::format("{}{} {} {:.1f}% ({} CI {} to {}) but the distribution as a whole did not shift "
                                           "({}){}; more requests would confirm it.",
                                           load_prefix(c, p), sentence_name(x), *x.relative > 0 ? "rose" : "fell",
                                           100 * std::abs(*x.relative), percent_text(o.confidence),
                                           signed_percent(x.relative_ci->low), signed_percent(x.relative_ci->high),
                                           p_clause(*x.p_value), tail ? ": a change in the tail only" : "");
            text[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(text[0])));
            out.push_back(std::move(text));
        }
}

// Throughput beyond the noise band. One sentence per pair for a single pair; for a sweep one
// sentence listing the levels, or a line per level would drown the findings.
inline void add_single_measurements(const comparison& c, const verdict_options& o, std::vector<std::string>& out) {
    std::vector<std::pair<const compared_pair*, const change*>> moved;
    for (const auto& p : c.pairs)
        if (const change* x = find_change(p.comparison, "rps"); x && x->relative && std::abs(*x->relative) > o.noise)
            moved.emplace_back(&p, x);
    if (moved.empty()) return;
    constexpr const char* caveat = "one measurement per run: repeat the runs to know whether it is real.";
    if (c.pairs.size() == 1) {
        const change& x = *moved.front().second;
        out.push_back(fmt::format("Throughput {} {:.1f}% ({} → {} req/s), {}", *x.relative > 0 ? "rose" : "fell",
                                  100 * std::abs(*x.relative), number_text(value_kind::requests_rate, *x.before),
                                  number_text(value_kind::requests_rate, *x.after), caveat));
        return;
    }
    std::string levels;
    for (const auto& [p, x] : moved)
        levels.append(levels.empty() ? "" : ", ").append(load_prefix(c, *p).substr(0, load_prefix(c, *p).size() - 2))
            .append(" ").append(signed_percent(*x->relative));
    out.push_back(fmt::format("Throughput changed beyond ±{} at {} of {} {}: {}; {}", percent_text(o.noise), moved.size(),
                              c.pairs.size(), c.pairing == "load" ? "levels" : "pairs", levels, caveat));
}

// One sentence for every statistic without a verdict because a side had too few requests.
inline void add_too_few(const comparison& c, const compare_options& o, std::vector<std::string>& out) {
    std::vector<std::size_t> per_percentile(o.percentiles.size(), 0);
    std::size_t other = 0;
    for (const auto& p : c.pairs)
        for (const auto& x : p.comparison.changes) {
            if (x.result != verdict::too_few) continue;
            std::size_t k = 0;
            while (k < o.percentiles.size() && percentile_key(o.percentiles[k]) != x.statistic) ++k;
            if (k < o.percentiles.size() && fewest_values_for_change(o.percentiles[k], o.verdicts.confidence)) ++per_percentile[k];
            else ++other;
        }
    std::string rule;
    std::size_t total = 0;
    for (std::size_t k = 0; k < o.percentiles.size(); ++k) {
        if (per_percentile[k] == 0) continue;
        const std::size_t fewest = *fewest_values_for_change(o.percentiles[k], o.verdicts.confidence);
        rule += rule.empty() ? fmt::format("{} needs ≥ {} requests per side", percentile_key(o.percentiles[k]), fewest)
                             : fmt::format(", {} ≥ {}", percentile_key(o.percentiles[k]), fewest);
        total += per_percentile[k];
    }
    auto statistics = [](std::size_t n) { return n == 1 ? std::string("1 statistic") : fmt::format("{} statistics", n); };
    std::string sentence;
    if (total > 0)
        sentence = fmt::format("{} for a {} interval from both sides' order statistics; {} had fewer and {} no verdict", rule,
                               percent_text(o.verdicts.confidence), statistics(total), total == 1 ? "gets" : "get");
    if (other > 0)
        sentence += sentence.empty() ? statistics(other) + " had fewer than 2 values on a side and get no verdict"
                                     : fmt::format("; {} more had fewer than 2 values on a side", other);
    if (!sentence.empty()) out.push_back(sentence + ".");
}

// One sentence when a side was known by its sketches only (a summary file, a log streamed past
// --memory-limit): its changes are point values, with no interval and no test.
inline void add_untested(const comparison& c, std::vector<std::string>& out) {
    std::size_t untested = 0;
    std::optional<double> alpha;
    for (const auto& p : c.pairs) {
        for (const auto& x : p.comparison.changes) untested += x.result == verdict::untested;
        for (const run_stats* side : {&p.comparison.before, &p.comparison.after})
            for (const auto& s : side->subsets)
                for (const auto& m : s.metrics)
                    if (m.stats.sketch_alpha) alpha = std::max(alpha.value_or(0.0), *m.stats.sketch_alpha);
    }
    if (untested == 0) return;
    out.push_back(fmt::format("{} statistics are untested: a side is a summary or a streamed log, known by its quantile "
                              "sketches, which hold no requests to bootstrap or rank. Their changes are point values{}; "
                              "compare the logs themselves for intervals, p-values and verdicts.",
                              untested,
                              alpha ? fmt::format(" (sketched percentiles each within {:g}% of the exact value, so a "
                                                  "change is known to within about ±{:g}% of the baseline)",
                                                  100 * *alpha, 200 * *alpha)
                                    : std::string()));
}

inline std::string load_list(const std::string& param, const std::vector<double>& loads) {
    std::string out;
    for (double l : loads) out.append(out.empty() ? "" : ", ").append(format_load(param, l));
    return out;
}

inline void add_unpaired(const comparison& c, std::vector<std::string>& out) {
    if (!c.unpaired.empty()) {
        std::string labels;
        for (const auto& l : c.unpaired) labels.append(labels.empty() ? "" : ", ").append(l);
        out.push_back((c.pairing == "load" ? "Not part of either side's sweep, so compared with nothing: "
                                           : "No run of the same label on the other side, so compared with nothing: ") +
                      labels + ".");
    }
    if (!c.sweep) return;
    if (!c.sweep->only_before.empty())
        out.push_back("Measured only before, so not compared: " + load_list(c.sweep->param, c.sweep->only_before) + ".");
    if (!c.sweep->only_after.empty())
        out.push_back("Measured only after, so not compared: " + load_list(c.sweep->param, c.sweep->only_after) + ".");
}

} // namespace detail

// What a reader should take away, ranked: significant changes merged across load levels (and the
// trade-offs among them) by effect × significance, moved SLO capacity and knees, then tail shifts
// the test cannot confirm, single-measurement rates, the small-sample rule, and runs compared with
// nothing. The report's body shows the first twelve (findings_view); JSON and "All findings" every one.
inline digest_findings compare_digest_findings(const comparison& c, const comparison_options& o) {
    digest_findings out;
    detail::add_significant(c, o.compare.verdicts, out);
    if (c.sweep) {
        std::vector<std::string> knees, capacity;
        for (const auto& k : c.sweep->knees)
            if (k.before != k.after) knees.push_back(detail::knee_sentence(c.sweep->param, k));
        for (const auto& s : c.sweep->capacity)
            if (detail::capacity_moved(s)) capacity.push_back(detail::capacity_sentence(c.sweep->param, s));
        detail::add_all(out, 0.5, "capacity", capacity);
        if (knees.size() > 1) { // one line in the body, each knee in the appendix
            out.body.push_back({0.4, "knee", detail::knees_moved_sentence(*c.sweep)});
            for (const auto& k : knees) out.all.push_back({0.4, "knee", k});
        } else
            detail::add_all(out, 0.4, "knee", knees);
        // A side whose curve is one jump: what looks like its knee is no saturation point.
        std::vector<std::string> jumps;
        for (const auto& [side, name] : {std::pair{&c.sweep->before, "Before"}, std::pair{&c.sweep->after, "After"}})
            for (const auto& k : side->knees)
                if (servestat::detail::jump_over_load(*side, k))
                    jumps.push_back(std::string(name) + ": " + servestat::detail::jump_finding(*side, k));
        detail::add_all(out, 0.45, "knee", jumps);
    }
    std::vector<std::string> tail, rates, few, unpaired, untested;
    detail::add_untested(c, untested);
    detail::add_all(out, 0.6, "untested", untested);
    detail::add_tail_only(c, o.compare.verdicts, tail);
    detail::add_single_measurements(c, o.compare.verdicts, rates);
    detail::add_too_few(c, o.compare, few);
    detail::add_unpaired(c, unpaired);
    detail::add_all(out, 0.05, "throughput", rates);
    detail::add_all(out, 0.02, "tail_only", tail);
    detail::add_all(out, 0.01, "too_few", few);
    detail::add_all(out, 0.01, "unpaired", unpaired);
    detail::rank(out.body);
    detail::rank(out.all);
    return out;
}

// The findings' sentences, ranked.
inline std::vector<std::string> compare_findings(const comparison& c, const comparison_options& o) {
    std::vector<std::string> out;
    for (const auto& f : compare_digest_findings(c, o).all) out.push_back(f.text);
    return out;
}

namespace detail {

// ---- view model ----------------------------------------------------------------------------

inline json change_row(const change& x, std::string metric_text, std::string pair = {}) {
    return {{"name", x.name},          {"metric", std::move(metric_text)}, {"pair", std::move(pair)},
            {"before", value_text(x, x.before)}, {"after", value_text(x, x.after)}, {"change", change_text(x)},
            {"ci", ci_text(x)},        {"p", p_text(x.p_value)},           {"verdict", std::string(describe(x.result))},
            {"css", css_class(x.result)}, {"significant", x.result == verdict::improved || x.result == verdict::regressed},
            {"before_mark", side_mark(x, "before")}, {"after_mark", side_mark(x, "after")}};
}

inline json identity(const run_stats& r) {
    return {{"label", r.meta.label},
            {"source_path", r.meta.source.path},
            {"source_format", r.meta.source.format},
            {"started_at", r.meta.started_at.empty() ? std::string(missing_value) : r.meta.started_at},
            {"requests", std::to_string(r.requests)},
            {"ok", std::to_string(r.ok)}};
}

inline std::string subset_n(const run_stats& r, const std::string& name) {
    for (const auto& s : r.subsets)
        if (s.name == name) return std::to_string(s.n);
    return "0";
}

// ---- run-to-run noise (compare/runs_as_unit.hpp) ----------------------------------------------

// A value compared over runs, in its unit: "97.1 req/s", "1.21 s".
inline std::string run_unit_value(const std::string& name, double v) {
    if (name == "rps") return fmt::format("{:.4g} req/s", v);
    if (name == "output_tps") return fmt::format("{:.4g} tok/s", v);
    return format_seconds(v);
}

inline std::string run_unit_signed(const std::string& name, double v) {
    return (v > 0 ? "+" : v < 0 ? "−" : "") + run_unit_value(name, std::abs(v));
}

// "e2e.p99" → "e2e p99", as the tables name statistics.
inline std::string run_unit_metric(const std::string& name) {
    if (name == "rps") return "throughput (req/s)";
    if (name == "output_tps") return "output tok/s";
    std::string out = name;
    std::replace(out.begin(), out.end(), '.', ' ');
    return out;
}

inline std::string run_unit_side(const std::string& name, const run_spread& s) {
    return run_unit_value(name, s.mean) + (s.std ? " ± " + run_unit_value(name, *s.std) : std::string());
}

inline json run_unit_rows(const runs_as_unit& r) {
    json rows = json::array();
    for (const auto& x : r.changes) {
        const auto& d = x.runs;
        std::string ci = missing_value;
        if (d.relative_ci) ci = signed_percent(d.relative_ci->low) + " to " + signed_percent(d.relative_ci->high);
        else if (d.ci) ci = run_unit_signed(x.name, d.ci->low) + " to " + run_unit_signed(x.name, d.ci->high);
        std::string verdict_text(describe(x.between_runs));
        if (x.within_run_noise)
            verdict_text += fmt::format(" (requests: {}; within run-to-run noise)", describe(*x.request_level));
        rows.push_back({{"metric", run_unit_metric(x.name)},
                        {"before", run_unit_side(x.name, d.before)},
                        {"after", run_unit_side(x.name, d.after)},
                        {"change", run_unit_signed(x.name, d.change) +
                                       (d.relative ? " (" + signed_percent(*d.relative) + ")" : std::string())},
                        {"ci", ci},
                        {"verdict", verdict_text},
                        {"css", css_class(x.between_runs)},
                        {"within_run_noise", x.within_run_noise}});
    }
    return rows;
}

// The note under the runs' table: what it is and how it decides.
inline std::string run_unit_note(const runs_as_unit& r) {
    return fmt::format("Each statistic taken once per run ({} runs before, {} after) and compared over runs: "
                       "mean ± standard deviation of the runs, and Welch's {:g}% t-interval of the difference of "
                       "their means (relative to the before mean). A change is within run-to-run noise when the "
                       "request-level test calls it significant but this interval includes no change: the runs "
                       "of one configuration land that far apart on their own.",
                       r.runs_before, r.runs_after, 100 * r.confidence);
}

// The statistics whose request-level verdict the replicate runs cannot repeat, over every pair.
inline std::string within_run_noise_sentence(const comparison& c) {
    std::vector<std::string> names;
    std::size_t runs_before = 0, runs_after = 0;
    for (const auto& p : c.pairs) {
        if (!p.runs) continue;
        for (const auto& x : p.runs->changes)
            if (x.within_run_noise) {
                std::string n = run_unit_metric(x.name) + " " + std::string(describe(*x.request_level));
                if (x.runs.relative_ci)
                    n += fmt::format(" ({} over runs, {:g}% interval {} to {})",
                                     x.runs.relative ? signed_percent(*x.runs.relative) : std::string(missing_value),
                                     100 * p.runs->confidence, signed_percent(x.runs.relative_ci->low),
                                     signed_percent(x.runs.relative_ci->high));
                if (p.load) n = load_prefix(c, p) + n;
                names.push_back(std::move(n));
                runs_before = p.runs->runs_before;
                runs_after = p.runs->runs_after;
            }
    }
    if (names.empty()) return {};
    // Two named in full, the rest counted: the pair's "Between runs" table lists every one.
    constexpr std::size_t named = 2;
    std::string list;
    for (std::size_t i = 0; i < names.size() && i < named; ++i) list.append(list.empty() ? "" : "; ").append(names[i]);
    if (names.size() > named)
        list += fmt::format(" and {} more statistic{} (the \"Between runs\" table lists them)", names.size() - named,
                            names.size() - named == 1 ? "" : "s");
    return fmt::format("Within run-to-run noise: {} by the request-level test, but across the replicate runs ({} "
                       "before, {} after) the interval of the change includes none.",
                       list, runs_before, runs_after);
}

inline json pair_view(const comparison& c, const compared_pair& p) {
    const run_comparison& rc = p.comparison;
    const json split = report::split_change_rows(rc.before, rc.after);
    json run_rows = json::array(), subsets = json::array();
    for (const auto& x : rc.changes) {
        if (x.subset.empty()) {
            run_rows.push_back(change_row(x, readable_name(x)));
            continue;
        }
        if (subsets.empty() || subsets.back()["name"] != x.subset)
            subsets.push_back({{"name", x.subset}, {"n_before", subset_n(rc.before, x.subset)},
                               {"n_after", subset_n(rc.after, x.subset)}, {"rows", json::array()}});
        subsets.back()["rows"].push_back(change_row(x, x.metric + " " + x.statistic));
    }
    for (auto& row : cost_change_rows(rc.before.cost, rc.after.cost)) run_rows.push_back(std::move(row));
    for (auto& row : energy_change_rows(rc.before.energy, rc.after.energy)) run_rows.push_back(std::move(row));
    return {{"heading", pair_heading(c, p)}, {"has_load", p.load.has_value()},
            {"load", p.load ? format_load(param_of(c), *p.load) : std::string()},
            {"before", identity(rc.before)}, {"after", identity(rc.after)}, {"run_rows", run_rows},
            {"subsets", subsets}, {"has_plots", false}, {"plots", json::array()},
            {"has_runs_as_unit", p.runs.has_value() && !p.runs->changes.empty()},
            {"runs_as_unit_rows", p.runs ? run_unit_rows(*p.runs) : json::array()},
            {"runs_as_unit_note", p.runs ? run_unit_note(*p.runs) : std::string()},
            {"has_time_split", !split.empty()},
            {"time_split", split},
            {"time_split_client_wait", rc.before.split.client_wait || rc.after.split.client_wait},
            {"time_split_prefill", report::split_prefill_heading(rc.before.split.first_token_whole ||
                                                                 rc.after.split.first_token_whole)}};
}

// compare.py's table: run level, then e2e, ttft and tpot of all requests.
inline json summary_rows(const comparison& c) {
    std::vector<std::string> names{"rps", "output_tps", "success_rate", "goodput_share", "goodput_rps"};
    for (const char* m : {"e2e", "ttft", "tpot"})
        for (const char* s : {"p50", "p90", "p99", "mean"}) names.push_back(fmt::format("{}.{}", m, s));
    json rows = json::array();
    for (const auto& p : c.pairs) {
        const std::string pair = c.pairs.size() > 1 ? pair_heading(c, p) : "";
        for (const auto& name : names)
            if (const change* x = find_change(p.comparison, name)) rows.push_back(change_row(*x, readable_name(*x), pair));
        for (auto& row : cost_change_rows(p.comparison.before.cost, p.comparison.after.cost, pair)) rows.push_back(std::move(row));
        for (auto& row : energy_change_rows(p.comparison.before.energy, p.comparison.after.energy, pair))
            rows.push_back(std::move(row));
    }
    return rows;
}

// "−84.2% (−84.8% to −83.0%)": the relative change and its interval, so a level's row says how much
// and how sure; the change alone where there is no interval.
inline std::string level_change_text(const change& x) {
    if (!x.relative) return x.delta ? delta_text(x, *x.delta) : std::string(missing_value);
    const auto ends = ci_ends(x);
    return signed_percent(*x.relative) + (ends ? " (" + ends->first + " to " + ends->second + ")" : "");
}

inline json level_cell(const compared_pair& p, const char* name) {
    const change* x = find_change(p.comparison, name);
    if (x == nullptr)
        return {{"before", missing_value}, {"after", missing_value}, {"verdict", missing_value}, {"css", "undecided"},
                {"before_mark", ""}, {"after_mark", ""}, {"change", missing_value}};
    return {{"before", value_text(*x, x->before)}, {"after", value_text(*x, x->after)},
            {"verdict", std::string(describe(x->result))}, {"css", css_class(x->result)},
            {"before_mark", side_mark(*x, "before")}, {"after_mark", side_mark(*x, "after")},
            {"change", level_change_text(*x)}};
}


inline json sweep_compare_view(const comparison& c) {
    const sweep_shift& s = *c.sweep;
    json levels = json::array();
    bool by_prompt_length = false; // short and long prompts' p99 get columns of their own
    for (const auto& p : c.pairs) {
        const change* rps = find_change(p.comparison, "rps");
        levels.push_back({{"load", p.load ? format_load(s.param, *p.load) : std::string(missing_value)},
                          {"rps", level_cell(p, "rps")},
                          {"rps_change", rps && rps->relative ? signed_percent(*rps->relative) : std::string(missing_value)},
                          {"e2e_p50", level_cell(p, "e2e.p50")}, {"e2e_p99", level_cell(p, "e2e.p99")},
                          {"ttft_p99", level_cell(p, "ttft.p99")}, {"short_e2e_p99", level_cell(p, "short.e2e.p99")},
                          {"long_e2e_p99", level_cell(p, "long.e2e.p99")}});
        by_prompt_length = by_prompt_length || find_change(p.comparison, "short.e2e.p99") != nullptr ||
                           find_change(p.comparison, "long.e2e.p99") != nullptr;
    }
    std::vector<std::string> knees, capacity;
    for (const auto& k : s.knees) knees.push_back(knee_sentence(s.param, k));
    for (const auto& x : s.capacity) capacity.push_back(capacity_sentence(s.param, x));
    return {{"param", s.param}, {"title", "Sweep over " + s.param}, {"levels", levels}, {"by_prompt_length", by_prompt_length},
            {"knees", sentences(knees)}, {"has_knees", !knees.empty()},
            {"capacity", sentences(capacity)}, {"has_capacity", !capacity.empty()},
            {"has_only_before", !s.only_before.empty()}, {"only_before", load_list(s.param, s.only_before)},
            {"has_only_after", !s.only_after.empty()}, {"only_after", load_list(s.param, s.only_after)},
            {"has_plots", false}, {"plots", json::array()}};
}

inline json gate_view(const comparison& c, const gate_outcome& g) {
    json failed = json::array();
    for (const auto& f : g.failures) {
        const change& x = *f.failed;
        std::string text = f.load ? format_load(param_of(c), *f.load) + ": " : std::string();
        failed.push_back({{"text", text + x.name + " " + f.reason +
                                       ", " + value_text(x, x.before) + " → " + value_text(x, x.after) +
                                       (x.relative ? " (" + signed_percent(*x.relative) + ")" : "")}});
    }
    const bool passed = g.failures.empty();
    return {{"rule", g.spec}, {"passed", passed}, {"verdict", passed ? "PASS" : "FAIL"},
            {"has_failed", !failed.empty()}, {"failed", failed}};
}

inline json options_view(const comparison_options& o) {
    const auto& v = o.compare.verdicts;
    json j{{"noise", "±" + percent_text(v.noise)}, {"alpha", fmt::format("{:g}", v.alpha)},
           {"confidence", percent_text(v.confidence)}, {"resamples", std::to_string(o.compare.bootstrap.resamples)},
           {"seed", std::to_string(o.compare.bootstrap.seed)}, {"method", std::string(to_string(o.compare.stats.summary.method))}};
    std::string rule;
    for (double p : o.compare.percentiles)
        if (const auto n = fewest_values_for_change(p, v.confidence))
            rule.append(rule.empty() ? "" : ", ").append(fmt::format("{} needs {}", percentile_key(p), *n));
    j["too_few_rule"] = rule.empty() ? std::string(missing_value) : rule;
    j["text"] = fmt::format("noise band {}, significance level α = {}, {} confidence intervals (percentiles' from order "
                            "statistics, means' by Welch and Fieller, shares' from {} bootstrap resamples, seed {}), "
                            "percentiles by numpy's {} method, p-values from the Mann–Whitney U test",
                            j["noise"].get<std::string>(), j["alpha"].get<std::string>(), j["confidence"].get<std::string>(),
                            j["resamples"].get<std::string>(), j["seed"].get<std::string>(), j["method"].get<std::string>());
    return j;
}

inline std::string verdict_counts_text(const json& counts) {
    std::size_t total = 0;
    for (const auto& [name, n] : counts.items()) total += n.get<std::size_t>();
    std::string out = fmt::format("of {} statistics compared, ", total);
    const std::size_t prefix = out.size();
    for (verdict v : {verdict::improved, verdict::regressed, verdict::within_noise, verdict::no_change, verdict::too_few,
                      verdict::single, verdict::untested}) {
        const auto n = counts[std::string(to_string(v))].get<std::size_t>();
        if (n > 0) out.append(out.size() == prefix ? "" : ", ").append(fmt::format("{} {}", n, describe(v)));
    }
    return out;
}

// What each verdict the counts name means, said where the counts are read (a reader met "within
// noise" beside "no significant change" with no definition): only the verdicts that occur.
inline std::string verdict_terms_text(const json& counts, const verdict_options& o) {
    const auto occurs = [&](verdict v) { return counts[std::string(to_string(v))].get<std::size_t>() > 0; };
    const std::string band = "±" + percent_text(o.noise), confidence = percent_text(o.confidence);
    std::vector<std::string> terms;
    if (occurs(verdict::improved) || occurs(verdict::regressed))
        terms.push_back(fmt::format("improved or regressed means the whole {} interval of the change lies beyond {} (a "
                                    "percentile's interval is its own test; a mean's change also needs the "
                                    "distributions to differ, Mann–Whitney p < {:g})",
                                    confidence, band, o.alpha));
    if (occurs(verdict::within_noise))
        terms.push_back(fmt::format("within noise: a change is shown, but its interval reaches into {}, so it may be too "
                                    "small to matter",
                                    band));
    if (occurs(verdict::no_change))
        terms.push_back(fmt::format("no significant change: the interval includes no change (a percentile) or p ≥ {:g} "
                                    "(a mean)",
                                    o.alpha));
    if (occurs(verdict::too_few))
        terms.push_back(fmt::format("too few requests: no interval that holds {} can be drawn from that many values "
                                    "(a tail percentile needs hundreds)",
                                    confidence));
    if (occurs(verdict::single)) terms.push_back("single measurement: one value per run, no interval");
    if (occurs(verdict::untested)) terms.push_back("untested: a side has statistics but no per-request log");
    std::string out;
    for (const auto& t : terms) out.append(out.empty() ? "" : "; ").append(t);
    if (!out.empty()) out[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(out[0])));
    return out.empty() ? out : out + ".";
}

inline std::string pairing_text(const comparison& c) {
    if (c.pairing == "load") return "two sweeps over " + param_of(c) + ", level by level";
    if (c.pairing == "label") return "runs of the same label";
    if (c.pairing == "replicates") return "each side's repeated runs of one configuration, their requests pooled";
    return "one run on each side";
}

} // namespace detail

namespace detail {

// ---- summary -----------------------------------------------------------------------------------

inline bool user_facing(const merged_change& m) { return importance(*m.levels.front().x) >= 1.0; }

// The interval ends of a merged change, in brackets: "(95% CIs within −52.0% to −20.0%)".
inline std::string ci_brackets(const merged_change& m, const verdict_options& o) {
    const std::string span = ci_span(m, o);
    return span.empty() ? std::string() : " (" + span.substr(2) + ")";
}

inline std::string summary_part(const std::string& param, const merged_change& m, const verdict_options& o) {
    return fmt::format("{} {} {} at {}{}", sentence_name(*m.levels.front().x), describe(m.direction),
                       magnitude_range(m), levels_text(param, m), ci_brackets(m, o));
}

// The highest throughput of a sweep and the level that reached it.
inline std::optional<std::pair<double, double>> peak_rps(const sweep_analysis& a) {
    const sweep_row* peak = peak_row(a);
    if (peak == nullptr) return std::nullopt;
    return std::pair{peak->load, *sweep_cell(*peak, "rps")};
}

inline std::string throughput_summary(const comparison& c, const verdict_options& o) {
    constexpr const char* caveat = "one run per level, so only repeated runs can show whether it is real";
    if (c.sweep) {
        const auto b = peak_rps(c.sweep->before), a = peak_rps(c.sweep->after);
        if (!b || !a) return {};
        return fmt::format("Peak throughput {:.2f} req/s at {} before, {:.2f} req/s at {} after ({}); {}.", b->second,
                           format_load(c.sweep->param, b->first), a->second, format_load(c.sweep->param, a->first),
                           signed_percent(a->second / b->second - 1), caveat);
    }
    if (c.pairs.size() != 1) return {};
    const change* x = find_change(c.pairs.front().comparison, "rps");
    if (x == nullptr || !x->relative) return {};
    if (std::abs(*x->relative) <= o.noise)
        return fmt::format("Throughput held within ±{} ({:.2f} → {:.2f} req/s).", percent_text(o.noise), *x->before, *x->after);
    return fmt::format("Throughput {} {:.1f}% ({:.2f} → {:.2f} req/s); {}.", *x->relative > 0 ? "rose" : "fell",
                       100 * std::abs(*x->relative), *x->before, *x->after, caveat);
}

// A side named by what its runs' labels share: "bad (before)" in legends and "bad" beside its marks
// for bad-c1 … bad-c64; just "before" when the labels share nothing.
struct side_names {
    std::string legend, mark;
};

inline side_names side_name(const sweep_analysis& a, const char* side) {
    const std::string stem = sweep_stem(a);
    if (stem.empty() || stem == side) return {side, side};
    return {fmt::format("{} ({})", stem, side), stem};
}

// "short prompts' e2e latency and TTFT"
inline std::string joined_names(const std::vector<std::string>& names) {
    std::string out;
    for (std::size_t i = 0; i < names.size(); ++i)
        out.append(i == 0 ? "" : i + 1 == names.size() ? " and " : ", ").append(names[i]);
    return out;
}

// What users feel that moved one way, by subset: "short prompts' e2e latency and TTFT".
// All requests are the prompt-length subsets mixed: where those moved, they tell it, and the mix
// (median better, tail worse) would only read as a contradiction.
inline std::vector<std::string> user_facing_moves(const std::vector<change_group>& groups, verdict direction) {
    const bool by_prompt_length = std::any_of(groups.begin(), groups.end(), [](const change_group& g) {
        return g.subset != "all" && importance(*g.members.front()->levels.front().x) >= 0.95;
    });
    std::vector<std::pair<std::string, std::vector<std::string>>> by_subset;
    for (const auto& g : groups) {
        if (g.direction != direction || importance(*g.members.front()->levels.front().x) < 0.95) continue;
        if (by_prompt_length && g.subset == "all") continue;
        const std::string who = subset_words(g.subset) + " ";
        auto it = std::find_if(by_subset.begin(), by_subset.end(), [&](const auto& e) { return e.first == who; });
        if (it == by_subset.end()) it = by_subset.insert(by_subset.end(), {who, {}});
        it->second.push_back(metric_words(g.metric));
    }
    std::vector<std::string> out;
    for (const auto& [who, metrics] : by_subset) out.push_back(who + joined_names(metrics));
    return out;
}

// What moved for the run as a whole, rather than per request: peak throughput and the SLO capacity
// of a sweep, each "raised" when it grew. Higher is better for both.
struct run_wide_moves {
    std::vector<std::string> raised, lowered;
};

inline run_wide_moves whole_run_moves(const comparison& c, const verdict_options& v) {
    run_wide_moves out;
    if (!c.sweep) return out;
    const auto b = peak_rps(c.sweep->before), a = peak_rps(c.sweep->after);
    if (b && a && std::abs(a->second / b->second - 1) > v.noise)
        (a->second > b->second ? out.raised : out.lowered)
            .push_back(fmt::format("peak throughput ({})", signed_percent(a->second / b->second - 1)));
    for (const auto& s : c.sweep->capacity) {
        if (!capacity_moved(s) || !s.before.max_load || !s.after.max_load) continue;
        const std::string what = fmt::format("capacity under {} {} ≤ {} ({} → {})", to_string(s.objective.on),
                                             percentile_key(s.percentile), format_seconds(s.objective.max_seconds),
                                             capacity_side(s.before), capacity_side(s.after));
        (*s.after.max_load > *s.before.max_load ? out.raised : out.lowered).push_back(what);
    }
    return out;
}

// "improves X and worsens Y", either half left out when empty.
inline std::string moves_clause(const std::vector<std::string>& better, const char* better_verb,
                                const std::vector<std::string>& worse, const char* worse_verb) {
    std::string out;
    if (!better.empty()) out = std::string(better_verb) + " " + joined_names(better);
    if (!worse.empty()) out.append(out.empty() ? "" : " and ").append(worse_verb).append(" ").append(joined_names(worse));
    return out;
}

// The verdict in one line: what the change buys and what it costs, and so which side to run for
// which goal. Per-request latencies (by prompt-length subset) and whole-run figures (throughput,
// capacity) are told apart: a reader must not take "worsens peak throughput" for a latency.
inline std::string net_sentence(const comparison& c, const std::vector<change_group>& groups, const verdict_options& v) {
    const auto gains = user_facing_moves(groups, verdict::improved), costs = user_facing_moves(groups, verdict::regressed);
    const auto run_wide = whole_run_moves(c, v);
    if (gains.empty() && costs.empty() && run_wide.raised.empty() && run_wide.lowered.empty()) return {};
    std::string after = "after", before = "before", after_short = "after", before_short = "before";
    if (c.sweep) {
        after = side_name(c.sweep->after, "after").legend;
        before = side_name(c.sweep->before, "before").legend;
        after_short = side_name(c.sweep->after, "after").mark;
        before_short = side_name(c.sweep->before, "before").mark;
    } else if (c.pairs.size() == 1) {
        after_short = c.pairs.front().comparison.after.meta.label;
        before_short = c.pairs.front().comparison.before.meta.label;
        after = "after (" + after_short + ")";
        before = "before (" + before_short + ")";
    }
    const std::string per_request = moves_clause(gains, "improves", costs, "worsens");
    const std::string whole_run = moves_clause(run_wide.raised, "raises", run_wide.lowered, "lowers");
    std::string out = "Net: " + after;
    if (!per_request.empty()) out += " " + per_request;
    if (!whole_run.empty()) out += (per_request.empty() ? " " : "; for the run as a whole it ") + whole_run;
    const bool any_gain = !gains.empty() || !run_wide.raised.empty(), any_cost = !costs.empty() || !run_wide.lowered.empty();
    if (!any_cost) return out + ", with no significant cost in latency, throughput or SLO capacity.";
    // Only what users feel by prompt length and the whole-run figures count as gains here, so the
    // words must not claim that nothing at all improved (a whole-run p90 may have).
    if (!any_gain) return out + ", with no gain by prompt length or for the run as a whole to set against it: keep " + before + ".";
    const std::string goal = gains.empty() ? run_wide.raised.front() : gains.front();
    return fmt::format("{}. Choose {} when {} matter{} most, {} otherwise.", out, after_short, goal,
                       gains.empty() ? "s" : "", before_short);
}

// Per-token figures whose two sides' intervals do not overlap (cost, energy): one sentence each, for
// they are not among the statistics the other sentences count. "Energy per output token: 3.00 J
// (2.47–3.53) → 2.00 J (1.65–2.35), −33.3%, improved: the intervals do not overlap." At most three.
inline std::vector<std::string> per_token_sentences(const comparison& c) {
    std::vector<std::string> out;
    const auto tell = [&](const compared_pair& p, const char* what, const cost_change& x, const std::string& before,
                          const std::string& after) {
        if (x.result == cost_verdict::not_shown_to_differ || out.size() >= 3) return;
        out.push_back(fmt::format("{}{}: {} → {}{}, {}: the intervals do not overlap.", load_prefix(c, p), what, before, after,
                                  x.relative ? ", " + signed_percent(*x.relative) : std::string(), describe(x.result)));
    };
    for (const auto& p : c.pairs) {
        const auto& rc = p.comparison;
        for (const auto& x : compare_costs(rc.before.cost, rc.after.cost))
            tell(p, x.name == "per_1m_output"  ? "Cost per 1M output tokens"
                    : x.name == "per_1m_total" ? "Cost per 1M tokens"
                                               : "Cost per 1M good output tokens",
                 x, cost_text(x.before), cost_text(x.after));
        for (const auto& x : compare_energy(rc.before.energy, rc.after.energy))
            tell(p, x.name == "per_output_token" ? "Energy per output token" : "Energy per good output token", x,
                 energy_text(x.before), energy_text(x.after));
    }
    return out;
}

} // namespace detail

// At most five sentences a reader can act on: the trade-off, the largest gain and the largest cost
// on what users feel, SLO capacity, throughput and knees — each with its figures and interval.
inline std::vector<summary_sentence> compare_summary(const comparison& c, const comparison_options& o) {
    const auto& v = o.compare.verdicts;
    const std::string param = detail::param_of(c);
    const auto located = detail::located_changes(c);
    const auto merged = merge_changes(located);
    const auto groups = group_changes(merged);
    std::vector<summary_sentence> out;
    // End-to-end latency is what users wait for: its trade-off leads, else the strongest one.
    const auto trade_offs = find_group_trade_offs(groups);
    const group_trade_off* lead = nullptr;
    for (const auto& t : trade_offs)
        if (lead == nullptr || (t.gained->metric == "e2e" && lead->gained->metric != "e2e")) lead = &t;
    if (lead) out.push_back({10, group_trade_off_sentence(param, *lead, v)});
    std::vector<const change_group*> told;
    for (const auto& t : trade_offs) {
        told.push_back(t.gained);
        told.push_back(t.paid);
        if (&t != lead) out.push_back({6 + std::max(t.gained->score, t.paid->score), group_trade_off_sentence(param, t, v)});
    }
    for (const verdict direction : {verdict::improved, verdict::regressed}) {
        const change_group* best = nullptr;
        for (const auto& g : groups)
            if (g.direction == direction && std::find(told.begin(), told.end(), &g) == told.end() &&
                (best == nullptr || g.score * detail::importance(*g.members.front()->levels.front().x) >
                                        best->score * detail::importance(*best->members.front()->levels.front().x)))
                best = &g;
        if (best)
            out.push_back({6 + best->score, std::string(direction == verdict::improved ? "Largest gain: " : "Largest cost: ") +
                                                group_sentence(param, *best, v)});
    }
    // Cost and energy have verdicts of their own: where one moved, "no statistic" would contradict it.
    auto per_token = detail::per_token_sentences(c);
    if (merged.empty() && detail::has_untested(c)) out.push_back({9, detail::untested_summary(c)});
    else if (merged.empty())
        out.push_back({9, fmt::format("No {} changed significantly: every difference is within the ±{} noise "
                                      "band or not significant (Mann–Whitney p ≥ {:g}).",
                                      per_token.empty() ? "statistic" : "latency, throughput or success statistic",
                                      detail::percent_text(v.noise), v.alpha)});
    if (c.sweep) {
        for (const auto& s : c.sweep->capacity) out.push_back({detail::capacity_moved(s) ? 7.0 : 2.0, detail::capacity_sentence(param, s)});
        for (const auto& k : c.sweep->knees)
            if (k.before != k.after) out.push_back({4, detail::knee_sentence(param, k)});
    }
    if (auto t = detail::throughput_summary(c, v); !t.empty()) out.push_back({5, std::move(t)});
    for (auto& s : per_token) out.push_back({6, std::move(s)});
    if (auto net = detail::net_sentence(c, groups, v); !net.empty()) out.push_back({11, std::move(net)});
    if (auto noise = detail::within_run_noise_sentence(c); !noise.empty()) out.push_back({8, std::move(noise)});
    return out;
}

namespace detail {

// The KPI table's sources: each side of the only pair, of the highest load two sweeps share, or of
// the first three pairs of runs matched by label.
inline std::pair<std::vector<kpi_source>, std::string> compare_kpi_sources(const comparison& c) {
    std::vector<kpi_source> out;
    std::string note;
    std::size_t first = 0, last = std::min<std::size_t>(c.pairs.size(), 3);
    if (c.sweep && !c.pairs.empty()) {
        first = c.pairs.size() - 1;
        last = c.pairs.size();
        note = fmt::format("KPIs at {}, the highest load both sides measured.", load_prefix(c, c.pairs.back()).substr(0, load_prefix(c, c.pairs.back()).size() - 2));
    }
    for (std::size_t i = first; i < last; ++i) {
        const auto& rc = c.pairs[i].comparison;
        out.push_back({"before: " + rc.before.meta.label, &rc.before});
        out.push_back({"after: " + rc.after.meta.label, &rc.after});
    }
    if (c.pairs.size() > 3 && !c.sweep) note = fmt::format("The first 3 of {} pairs; every pair is below.", c.pairs.size());
    return {out, note};
}

} // namespace detail

// The stats export under "stats" (with every finding), and everything compare.md / compare.html
// show next to it: the summary, KPI table and ranked findings first. Plots are empty lists here;
// attach_compare_plots fills them.
inline json compare_view_model(const comparison& c, const comparison_options& o, const std::optional<gate_outcome>& gate,
                               const compare_report_options& ro) {
    json stats = comparison_document(c, o, gate);
    json pairs = json::array();
    for (const auto& p : c.pairs) pairs.push_back(detail::pair_view(c, p));
    const auto findings = compare_digest_findings(c, o);
    stats["findings"] = detail::finding_list(findings.all);
    const std::string counts = detail::verdict_counts_text(stats["verdicts"]);
    const auto [kpi_sources, kpi_note] = detail::compare_kpi_sources(c);
    json summary = summary_view(compare_summary(c, o));
    json kpi = kpi_rows(kpi_sources, o.compare.stats.slos, o.slo_percentile, o.compare.stats.subsets);
    std::string kpi_interval_text = kpi_interval_note(kpi_sources, o.compare.stats.summary.confidence);
    // A p99 of 294 requests has no interval of its own, yet its change may have one: a reader took
    // that for a contradiction. Each side of a change needs less (fewest_values_for_change).
    if (const auto fewest = fewest_values_for_change(99, o.compare.verdicts.confidence);
        fewest && kpi_interval_text.find(few_samples_mark) != std::string::npos)
        kpi_interval_text += fmt::format(" A change between two such values can still have its interval below: for "
                                         "the change's interval to hold {}, each side's own may hold less, so fewer "
                                         "requests do (a p99 needs {} a side).",
                                         detail::percent_text(o.compare.verdicts.confidence), detail::thousands(*fewest));
    json kpi_intervals = detail::text_or_null(std::move(kpi_interval_text));
    const bool digest_few = shows_few_samples(summary) || shows_few_samples(kpi);
    std::vector<double> shown = o.compare.percentiles; // the KPI table's p50 and p99 beside the compared ones
    shown.insert(shown.end(), {50, 99});
    json view{{"title", ro.title},
              {"generator", "servestat 0.1.0"},
              {"summary", std::move(summary)},
              {"kpi", std::move(kpi)},
              {"digest_few_samples", digest_few},
              {"few_samples_note", few_samples_note(shown)},
              {"kpi_note", kpi_note},
              {"kpi_interval_note", std::move(kpi_intervals)},
              {"has_kpi_slo", !o.compare.stats.slos.empty()},
              {"options", detail::options_view(o)},
              {"pairing", c.pairing},
              {"pairing_text", detail::pairing_text(c)},
              {"verdict_counts", counts},
              {"verdict_terms", detail::verdict_terms_text(stats["verdicts"], o.compare.verdicts)},
              {"many_pairs", c.pairs.size() > 1},
              {"summary_rows", detail::summary_rows(c)},
              {"pairs", pairs},
              {"has_gate", gate.has_value()},
              {"gate", gate ? detail::gate_view(c, *gate) : json(nullptr)},
              {"has_sweep", c.sweep.has_value()},
              {"sweep", c.sweep ? detail::sweep_compare_view(c) : json(nullptr)},
              {"has_overlays", false},
              {"overlays", json::array()},
              {"stats", std::move(stats)}};
    view.update(findings_view(findings));
    // Cost rows carry verdicts of their own, told beside the others' terms.
    const bool priced = std::any_of(c.pairs.begin(), c.pairs.end(), [](const compared_pair& p) {
        return p.comparison.before.cost || p.comparison.after.cost;
    });
    if (priced) {
        const std::string terms = view["verdict_terms"].get<std::string>();
        view["verdict_terms"] = terms.empty() ? std::string(cost_verdict_terms) : terms + " " + cost_verdict_terms;
    }
    if (std::any_of(c.pairs.begin(), c.pairs.end(),
                    [](const compared_pair& p) { return p.comparison.before.energy || p.comparison.after.energy; })) {
        const std::string terms = view["verdict_terms"].get<std::string>();
        view["verdict_terms"] = terms.empty() ? std::string(energy_verdict_terms) : terms + " " + energy_verdict_terms;
    }
    // The KPI table's interval note already says what the dagger marks (a value with too few requests
    // beyond it for an interval), with the counts; a second note would tell it again.
    view["has_few_samples"] = view["kpi_interval_note"].is_null() &&
                              (digest_few || shows_few_samples(view["summary_rows"]) || shows_few_samples(view["pairs"]) ||
                               shows_few_samples(view["sweep"]) || shows_few_samples(view["findings"]) ||
                               shows_few_samples(view["all_findings"]));
    add_kpi_cost_view(view, kpi_sources); // after: its note says nothing of the dagger
    add_kpi_energy_view(view, kpi_sources);
    return view;
}

// ---- plots -------------------------------------------------------------------------------------

// The plots of each compared pair, in comparison order, and of the sweep.
struct compare_plot_files {
    std::vector<std::vector<plot_file>> pairs;
    std::vector<plot_file> sweep;
};

namespace detail {

inline std::string unique_name(std::set<std::string>& used, const std::string& base) {
    std::string name = base;
    for (int k = 2; used.count(name); ++k) name = base + "-" + std::to_string(k);
    used.insert(name);
    return name;
}

// "" for a single pair, else "c32-", "request-rate-2-5-" or the before run's label.
inline std::vector<std::string> pair_prefixes(const comparison& c) {
    if (c.pairs.size() == 1) return {""};
    std::vector<std::string> out;
    std::set<std::string> used;
    for (const auto& p : c.pairs) {
        const std::string param = param_of(c);
        const std::string base = !p.load ? slug(p.comparison.before.meta.label)
                                 : param == "concurrency" ? slug(fmt::format("c{:g}", *p.load))
                                                          : slug(fmt::format("{}-{:g}", param, *p.load));
        out.push_back(unique_name(used, base) + "-");
    }
    return out;
}

// One side of a pair in a subset, for an ECDF: its requests' values, or (a side known by its
// statistics: a summary, a streamed log) its sketch's values at evenly spaced ranks, with the number
// of requests they stand for.
inline std::vector<double> side_values(const run& r, const run_accumulator* sketched, metric m, const subset& s,
                                       std::size_t& stands_for) {
    stands_for = 0;
    if (sketched == nullptr) return metric_values(r, m, s);
    const metric_accumulator* found = sketched->find_metric(s.name, m);
    if (found == nullptr) return {};
    stands_for = static_cast<std::size_t>(found->count());
    return sketch_quantile_values(found->sketch());
}

// The percentile ladder of one side: from its requests, or read from its sketch (within its error).
inline std::vector<double> ladder_values(std::vector<double> values, const run_accumulator* sketched, metric m,
                                         std::span<const double> ladder, quantile_method method) {
    if (sketched == nullptr) return percentiles_select(values, ladder);
    std::vector<double> out;
    for (double q : ladder) out.push_back(sketched->find_metric("all", m)->sketch().percentile(q, method));
    return out;
}

// `sb_sketch`, `sa_sketch`: a side's accumulated statistics where it is known by them only; its
// curves are drawn from its sketches and named so, with the bound.
inline std::vector<plot_file> pair_plots(const comparison& c, const compared_pair& p, const run& b, const run& a,
                                         const std::string& prefix, const subset_options& so,
                                         const run_accumulator* b_sketch = nullptr, const run_accumulator* a_sketch = nullptr,
                                         quantile_method method = quantile_method::linear) {
    std::vector<plot_file> out;
    std::set<std::string> used;
    const auto sb = split_into_subsets(b.requests, so), sa = split_into_subsets(a.requests, so);
    const auto sketched = [](const run_accumulator* s) { return s ? " (" + sketched_mark(s->sketch_alpha()) + ")" : std::string(); };
    const std::string bn = "before: " + b.meta.label + sketched(b_sketch), an = "after: " + a.meta.label + sketched(a_sketch),
                      heading = pair_heading(c, p);
    for (metric m : {metric::e2e, metric::ttft}) {
        const std::string key(to_string(m));
        const std::string what = m == metric::e2e ? "End-to-end latency" : "Time to first token";
        const std::string axis = m == metric::e2e ? "end-to-end latency (s)" : "time to first token (s)";
        for (std::size_t s = 0; s < sb.size() && s < sa.size(); ++s) {
            plot::ecdf_options counts{{}, {}, {0, 0}};
            auto vb = side_values(b, b_sketch, m, sb[s], counts.stands_for[0]);
            auto va = side_values(a, a_sketch, m, sa[s], counts.stands_for[1]);
            if (vb.empty() || va.empty()) continue;
            const std::vector<plot::named_values> series{{bn, std::move(vb)}, {an, std::move(va)}};
            const std::string title = what + (s == 0 ? "" : ", " + sb[s].name + " requests") + " — " + heading;
            out.push_back({prefix + unique_name(used, key + "-ecdf-" + slug(sb[s].name)) + ".svg", title,
                           plot::ecdf_chart(series, {title, axis, "fraction of requests"}, counts)});
        }
        // The percentile ladder: both sides' p50 … p99.9 of all requests side by side.
        std::size_t unused = 0;
        auto vb = side_values(b, b_sketch, m, sb.front(), unused), va = side_values(a, a_sketch, m, sa.front(), unused);
        if (vb.empty() || va.empty()) continue;
        static constexpr double ladder[] = {50, 90, 95, 99, 99.9};
        plot::bar_table t{{}, {bn, an}, {ladder_values(std::move(vb), b_sketch, m, ladder, method),
                                         ladder_values(std::move(va), a_sketch, m, ladder, method)}};
        for (double q : ladder) t.categories.push_back(percentile_key(q));
        const std::string title = what + " percentiles p50…p99.9 — " + heading;
        out.push_back({prefix + key + "-percentiles.svg", title, plot::grouped_bar_chart(t, {title, "percentile", axis})});
    }
    return out;
}

// Each side's saturation point (throughput knee) on a curve over load, where that side has a value.
inline void mark_saturation(plot::line_options& o, const sweep_analysis& a, const std::string& param,
                            std::string_view column, const char* side) {
    const auto* k = find_knee_of(a, "throughput");
    if (k == nullptr || !k->load) return;
    for (const auto& row : a.rows)
        if (row.load == *k->load)
            if (const auto y = sweep_cell(row, column))
                o.marks.push_back({row.load, *y, std::string(side) + ": knee " + format_load(param, row.load)});
}

// Where a side's SLO capacity lies on the objective's curve: the load, at the objective's value.
inline void mark_capacity(plot::line_options& o, const slo_capacity& c, const std::string& param, const std::string& side) {
    if (!c.known || !c.max_load || !c.limited) return;
    o.marks.push_back({*c.max_load, c.objective.max_seconds,
                       fmt::format("{}: capacity {}{:.3g}", side, param == "concurrency" ? "c=" : param + "=", *c.max_load)});
}

inline std::vector<plot_file> sweep_compare_plots(const sweep_shift& s, std::span<const compared_pair> pairs) {
    std::vector<plot_file> out;
    double lo = 0, hi = 0;
    for (const auto* a : {&s.before, &s.after})
        if (!a->rows.empty()) {
            lo = lo == 0 ? a->rows.front().load : std::min(lo, a->rows.front().load);
            hi = std::max(hi, a->rows.back().load);
        }
    plot::line_options base;
    base.log_x = lo > 0 && hi / lo >= 8;
    const side_names before = side_name(s.before, "before"), after = side_name(s.after, "after");
    auto add = [&](const std::string& column, const std::string& file, const std::string& what, const std::string& axis,
                   plot::line_options o) {
        const std::vector<plot::named_points> series{series_over_load(s.before, column, before.legend),
                                                     series_over_load(s.after, column, after.legend)};
        if (series[0].x.empty() || series[1].x.empty()) return;
        const std::string title = fmt::format("{} against {}, before and after", what, s.param);
        out.push_back({"sweep-" + file + ".svg", title, plot::line_chart(series, {title, s.param, axis}, o)});
    };
    struct curve { const char *column, *file, *what, *axis; };
    static constexpr curve curves[] = {
        {"rps", "throughput", "Throughput", "throughput (req/s)"},
        {"e2e.p99", "e2e-p99", "End-to-end p99", "p99 end-to-end latency (s)"},
        {"ttft.p99", "ttft-p99", "Time to first token p99", "p99 time to first token (s)"},
        {"short.e2e.p99", "short-e2e-p99", "Short requests' end-to-end p99", "short requests' p99 e2e latency (s)"},
        {"long.e2e.p99", "long-e2e-p99", "Long requests' end-to-end p99", "long requests' p99 e2e latency (s)"}};
    for (const auto& k : curves) {
        plot::line_options o = base;
        mark_saturation(o, s.before, s.param, k.column, before.mark.c_str());
        mark_saturation(o, s.after, s.param, k.column, after.mark.c_str());
        add(k.column, k.file, k.what, k.axis, o);
    }
    // Each SLO on its own curve (the levels both sides ran, from the pairs' runs, which hold the
    // SLO's percentile), with the objective drawn across and each side's capacity marked.
    for (const auto& c : s.capacity) {
        const std::string metric_name(to_string(c.objective.on)), p = percentile_key(c.percentile);
        plot::line_options o = base;
        o.references.push_back({c.objective.max_seconds, fmt::format("SLO {} {} ≤ {}", metric_name, p,
                                                                     format_seconds(c.objective.max_seconds))});
        mark_capacity(o, c.before, s.param, before.mark);
        mark_capacity(o, c.after, s.param, after.mark);
        std::vector<plot::named_points> series{{before.legend, {}, {}}, {after.legend, {}, {}}};
        for (const auto& pair : pairs) {
            const auto vb = find_percentile(pair.comparison.before, "all", c.objective.on, c.percentile);
            const auto va = find_percentile(pair.comparison.after, "all", c.objective.on, c.percentile);
            if (!pair.load || !vb || !va) continue;
            series[0].x.push_back(*pair.load);
            series[0].y.push_back(*vb);
            series[1].x.push_back(*pair.load);
            series[1].y.push_back(*va);
        }
        if (series[0].x.empty()) continue;
        const std::string title = fmt::format("{} {} against {} and its SLO, before and after", metric_name, p, s.param);
        out.push_back({fmt::format("sweep-slo-{}-{}.svg", metric_name, p), title,
                       plot::line_chart(series, {title, s.param, fmt::format("{} {} (s)", metric_name, p)}, o)});
    }
    return out;
}

inline json plot_list(const std::vector<plot_file>& plots) {
    json list = json::array();
    for (const auto& p : plots) list.push_back({{"title", p.title}, {"file", "plots/" + p.name}, {"svg", p.svg}});
    return list;
}

} // namespace detail

// compared_pair::before_run / after_run index `before` / `after`, the runs given to compare().
// `before_sketched[i]`, where set, is before run i's accumulated statistics (it holds no requests);
// likewise after.
inline compare_plot_files compare_plot_set(const comparison& c, std::span<const run> before, std::span<const run> after,
                                           const comparison_options& o = {},
                                           std::span<const run_accumulator* const> before_sketched = {},
                                           std::span<const run_accumulator* const> after_sketched = {}) {
    compare_plot_files out;
    const auto prefixes = detail::pair_prefixes(c);
    const auto at = [](std::span<const run_accumulator* const> list, std::size_t i) { return i < list.size() ? list[i] : nullptr; };
    for (std::size_t i = 0; i < c.pairs.size(); ++i) {
        const auto& p = c.pairs[i];
        out.pairs.push_back(detail::pair_plots(c, p, before[p.before_run], after[p.after_run], prefixes[i], o.compare.stats.subsets,
                                               at(before_sketched, p.before_run), at(after_sketched, p.after_run),
                                               o.compare.stats.summary.method));
    }
    if (c.sweep) out.sweep = detail::sweep_compare_plots(*c.sweep, c.pairs);
    return out;
}

// The plots as one list, pairs first: the files to write under plots/.
inline std::vector<plot_file> all_plots(const compare_plot_files& set) {
    std::vector<plot_file> out;
    for (const auto& list : set.pairs) out.insert(out.end(), list.begin(), list.end());
    out.insert(out.end(), set.sweep.begin(), set.sweep.end());
    return out;
}

// Every plot of the comparison; file names are unique and stable.
inline std::vector<plot_file> compare_plots(const comparison& c, std::span<const run> before, std::span<const run> after,
                                            const comparison_options& o = {}) {
    return all_plots(compare_plot_set(c, before, after, o));
}

namespace detail {

// The plots of a pair whose file names end in one of `kinds` ("e2e-ecdf-short"), in that order.
inline std::vector<plot_file> pick_plots(const std::vector<plot_file>& plots, std::initializer_list<std::string_view> kinds) {
    std::vector<plot_file> out;
    for (const auto kind : kinds)
        for (const auto& p : plots)
            if (p.name.ends_with(std::string(kind) + ".svg")) out.push_back(p);
    return out;
}

} // namespace detail

// Puts the plots into a compare_view_model: Markdown links plots/NAME, HTML inlines the SVG. The
// overlays under the findings are what a reader looks at first: the sweeps' curves of both sides
// with knees and SLO capacity, and at the highest shared load (or the only pair) the e2e ECDFs of
// short and long prompts and the percentile ladder; the rest stays with its pair.
inline void attach_compare_plots(json& view, const compare_plot_files& plots) {
    for (std::size_t i = 0; i < plots.pairs.size() && i < view["pairs"].size(); ++i) {
        view["pairs"][i]["plots"] = detail::plot_list(plots.pairs[i]);
        view["pairs"][i]["has_plots"] = !plots.pairs[i].empty();
    }
    std::vector<plot_file> overlays;
    if (view["sweep"].is_object()) {
        overlays = plots.sweep;
        view["sweep"]["plots"] = json::array();
        view["sweep"]["has_plots"] = false;
        if (!plots.pairs.empty())
            for (auto& p : detail::pick_plots(plots.pairs.back(), {"e2e-ecdf-short", "e2e-ecdf-long", "e2e-percentiles"}))
                overlays.push_back(std::move(p));
    } else if (plots.pairs.size() == 1) {
        overlays = plots.pairs.front();
        view["pairs"][0]["plots"] = json::array();
        view["pairs"][0]["has_plots"] = false;
    } else if (!plots.pairs.empty()) {
        overlays = detail::pick_plots(plots.pairs.front(), {"e2e-ecdf-all", "e2e-percentiles"});
    }
    view["overlays"] = detail::plot_list(overlays);
    view["has_overlays"] = !overlays.empty();
}

} // namespace servestat::report
