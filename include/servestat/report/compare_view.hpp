// A before/after comparison as a report (compare.md, compare.html): findings as sentences, the
// verdict table, every statistic per pair and subset, the sweep's levels, knees and SLO capacity,
// and plots overlaying the two sides. The JSON export sits under "stats", so no format can disagree.
#pragma once

#include <algorithm>   // std::sort, std::min
#include <cmath>       // std::abs
#include <cstddef>     // std::size_t
#include <limits>      // std::numeric_limits
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
#include "servestat/report/compare_json.hpp" // comparison_document, gate_outcome, json
#include "servestat/report/format.hpp"       // format_seconds, format_share, missing_value
#include "servestat/report/plot_file.hpp"    // plot_file
#include "servestat/report/plots.hpp"        // detail::slug, detail::metric_values
#include "servestat/report/sweep_view.hpp"   // detail::format_load, series_over_load, find_knee_of, sweep_cell

namespace servestat::report {

struct compare_report_options {
    std::string title = "Before / after comparison";
};

namespace detail {

// ---- numbers, with the typographic minus so "−6.1%" lines up with "+5.0%" -------------------

inline std::string with_sign(const std::string& magnitude, double v) {
    return v == 0 ? magnitude : std::string(v < 0 ? "−" : "+").append(magnitude);
}

inline std::string signed_percent(double fraction) {
    const double pct = 100 * fraction;
    return std::abs(pct) < 0.05 ? "0.0%" : with_sign(fmt::format("{:.1f}%", std::abs(pct)), pct);
}

inline std::string percent_text(double fraction) { return fmt::format("{:g}%", 100 * fraction); }

// "< 0.001" or two significant digits, as pyperf and compare.py print them.
inline std::string p_text(const std::optional<double>& p) {
    if (!p) return missing_value;
    return *p < 0.001 ? "< 0.001" : fmt::format("{:.2g}", *p);
}

inline std::string p_clause(double p) { return p < 0.001 ? "p < 0.001" : "p = " + p_text(p); }

enum class value_kind { seconds, share, requests_rate, tokens_rate };

inline value_kind kind_of(const change& c) {
    if (!c.subset.empty()) return value_kind::seconds;
    if (c.metric == "success_rate" || c.metric == "goodput_share") return value_kind::share;
    return c.metric == "output_tps" ? value_kind::tokens_rate : value_kind::requests_rate;
}

inline std::string number_text(value_kind k, double v) {
    switch (k) {
    case value_kind::seconds: return format_seconds(v);
    case value_kind::share: return format_share(v);
    case value_kind::requests_rate: return fmt::format("{:.2f}", v);
    case value_kind::tokens_rate: return fmt::format("{:.1f}", v);
    }
    return "";
}

inline std::string unit_text(value_kind k) {
    return k == value_kind::requests_rate ? " req/s" : k == value_kind::tokens_rate ? " tok/s" : "";
}

inline std::string value_text(const change& c, const std::optional<double>& v) {
    return v ? number_text(kind_of(c), *v) + unit_text(kind_of(c)) : std::string(missing_value);
}

// A difference: shares in percentage points, the rest in the statistic's own unit.
inline std::string delta_text(const change& c, double d) {
    const value_kind k = kind_of(c);
    if (k == value_kind::share) return with_sign(fmt::format("{:.1f} pp", std::abs(100 * d)), d);
    return with_sign(number_text(k, std::abs(d)), d) + unit_text(k);
}

inline std::string change_text(const change& c) {
    if (!c.delta) return missing_value;
    return c.relative ? delta_text(c, *c.delta) + " (" + signed_percent(*c.relative) + ")" : delta_text(c, *c.delta);
}

// The interval of the relative change, or of the absolute one when the baseline is zero.
inline std::optional<std::pair<std::string, std::string>> ci_ends(const change& c) {
    if (c.relative_ci) return std::pair{signed_percent(c.relative_ci->low), signed_percent(c.relative_ci->high)};
    if (c.delta_ci) return std::pair{delta_text(c, c.delta_ci->low), delta_text(c, c.delta_ci->high)};
    return std::nullopt;
}

inline std::string ci_text(const change& c) {
    const auto ends = ci_ends(c);
    return ends ? "[" + ends->first + ", " + ends->second + "]" : std::string(missing_value);
}

inline std::string css_class(verdict v) {
    switch (v) {
    case verdict::improved: return "improved";
    case verdict::regressed: return "regressed";
    case verdict::no_change:
    case verdict::within_noise: return "neutral";
    default: return "undecided";
    }
}

// "short e2e p99", "e2e p50", "throughput".
inline std::string readable_name(const change& c) {
    static constexpr std::pair<const char*, const char*> run_level[] = {
        {"rps", "throughput"}, {"output_tps", "output throughput"}, {"success_rate", "success rate"},
        {"goodput_share", "goodput share"}, {"goodput_rps", "goodput"}};
    if (c.subset.empty()) {
        for (const auto& [key, text] : run_level)
            if (c.metric == key) return text;
        return c.metric;
    }
    return (c.subset == "all" ? std::string() : c.subset + " ").append(c.metric).append(" ").append(c.statistic);
}

inline std::string param_of(const comparison& c) { return c.sweep ? c.sweep->param : std::string("load"); }

inline std::string load_prefix(const comparison& c, const compared_pair& p) {
    return p.load ? format_load(param_of(c), *p.load) + ": " : std::string();
}

inline std::string pair_heading(const comparison& c, const compared_pair& p) {
    return load_prefix(c, p) + p.comparison.before.meta.label + " → " + p.comparison.after.meta.label;
}

// ---- findings ------------------------------------------------------------------------------

struct located_change {
    const compared_pair* pair;
    const change* x;
};

inline double magnitude(const change& c) {
    return c.relative ? std::abs(*c.relative) : std::numeric_limits<double>::infinity();
}

inline std::string significant_sentence(const comparison& c, const located_change& l, const verdict_options& o) {
    const change& x = *l.x;
    std::string out = load_prefix(c, *l.pair) + readable_name(x) + " " + std::string(describe(x.result));
    if (x.relative) out += fmt::format(" by {:.1f}%", 100 * std::abs(*x.relative));
    out += " (" + value_text(x, x.before) + " → " + value_text(x, x.after);
    if (const auto ends = ci_ends(x)) out += "; " + percent_text(o.confidence) + " CI " + ends->first + " to " + ends->second;
    return out + "; " + p_clause(x.p_value.value_or(1)) + ").";
}

inline void add_significant(const comparison& c, const verdict_options& o, std::vector<std::string>& out) {
    std::vector<located_change> found;
    for (const auto& p : c.pairs)
        for (const auto& x : p.comparison.changes)
            if (x.result == verdict::improved || x.result == verdict::regressed) found.push_back({&p, &x});
    std::stable_sort(found.begin(), found.end(), [](const located_change& a, const located_change& b) {
        if (magnitude(*a.x) != magnitude(*b.x)) return magnitude(*a.x) > magnitude(*b.x);
        return a.x->name < b.x->name; // equal names (two loads) keep load order: stable
    });
    if (found.empty())
        out.push_back(fmt::format("No statistic changed significantly beyond the ±{} noise band.", percent_text(o.noise)));
    // Ten at most, except that no regression is ever left out: those are what a review must see.
    constexpr std::size_t most = 10;
    std::size_t shown = 0;
    for (const auto& l : found)
        if (shown < most || l.x->result == verdict::regressed) {
            out.push_back(significant_sentence(c, l, o));
            ++shown;
        }
    if (found.size() > shown) out.push_back(fmt::format("…and {} more significant improvements.", found.size() - shown));
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

inline std::string capacity_side(const slo_capacity& s) {
    if (!s.known) return "unknown";
    if (!s.max_load) return "none";
    return s.interpolated ? fmt::format("≈{:.3g}", *s.max_load) : fmt::format("{:g}{}", *s.max_load, s.limited ? "" : " (every level)");
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
            out.push_back(fmt::format("{}{} {} {:.1f}% ({} CI {} to {}) but the distribution as a whole did not shift "
                                      "({}){}; more requests would confirm it.",
                                      load_prefix(c, p), readable_name(x), *x.relative > 0 ? "rose" : "fell",
                                      100 * std::abs(*x.relative), percent_text(o.confidence),
                                      signed_percent(x.relative_ci->low), signed_percent(x.relative_ci->high),
                                      p_clause(*x.p_value), tail ? ": a change in the tail only" : ""));
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
            if (k < o.percentiles.size() && fewest_requests_for(o.percentiles[k], o.verdicts.confidence)) ++per_percentile[k];
            else ++other;
        }
    std::string rule;
    std::size_t total = 0;
    for (std::size_t k = 0; k < o.percentiles.size(); ++k) {
        if (per_percentile[k] == 0) continue;
        const std::size_t fewest = *fewest_requests_for(o.percentiles[k], o.verdicts.confidence);
        rule += rule.empty() ? fmt::format("{} needs ≥ {} requests per side", percentile_key(o.percentiles[k]), fewest)
                             : fmt::format(", {} ≥ {}", percentile_key(o.percentiles[k]), fewest);
        total += per_percentile[k];
    }
    auto statistics = [](std::size_t n) { return n == 1 ? std::string("1 statistic") : fmt::format("{} statistics", n); };
    std::string sentence;
    if (total > 0)
        sentence = fmt::format("{} ({} one-sided order-statistic bound); {} had fewer and {} no verdict", rule,
                               percent_text(o.verdicts.confidence), statistics(total), total == 1 ? "gets" : "get");
    if (other > 0)
        sentence += sentence.empty() ? statistics(other) + " had fewer than 2 values on a side and get no verdict"
                                     : fmt::format("; {} more had fewer than 2 values on a side", other);
    if (!sentence.empty()) out.push_back(sentence + ".");
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

// What a reader should take away, most important first: significant changes by size, moved knees
// and SLO capacity, tail shifts the test cannot confirm, single-measurement rates, the small-sample
// rule, and runs compared with nothing.
inline std::vector<std::string> compare_findings(const comparison& c, const comparison_options& o) {
    std::vector<std::string> out;
    detail::add_significant(c, o.compare.verdicts, out);
    if (c.sweep) {
        for (const auto& k : c.sweep->knees)
            if (k.before != k.after) out.push_back(detail::knee_sentence(c.sweep->param, k));
        for (const auto& s : c.sweep->capacity)
            if (detail::capacity_moved(s)) out.push_back(detail::capacity_sentence(c.sweep->param, s));
    }
    detail::add_tail_only(c, o.compare.verdicts, out);
    detail::add_single_measurements(c, o.compare.verdicts, out);
    detail::add_too_few(c, o.compare, out);
    detail::add_unpaired(c, out);
    return out;
}

namespace detail {

// ---- view model ----------------------------------------------------------------------------

inline json change_row(const change& x, std::string metric_text, std::string pair = {}) {
    return {{"name", x.name},          {"metric", std::move(metric_text)}, {"pair", std::move(pair)},
            {"before", value_text(x, x.before)}, {"after", value_text(x, x.after)}, {"change", change_text(x)},
            {"ci", ci_text(x)},        {"p", p_text(x.p_value)},           {"verdict", std::string(describe(x.result))},
            {"css", css_class(x.result)}, {"significant", x.result == verdict::improved || x.result == verdict::regressed}};
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

inline json pair_view(const comparison& c, const compared_pair& p) {
    const run_comparison& rc = p.comparison;
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
    return {{"heading", pair_heading(c, p)}, {"has_load", p.load.has_value()},
            {"load", p.load ? format_load(param_of(c), *p.load) : std::string()},
            {"before", identity(rc.before)}, {"after", identity(rc.after)}, {"run_rows", run_rows},
            {"subsets", subsets}, {"has_plots", false}, {"plots", json::array()}};
}

// compare.py's table: run level, then e2e, ttft and tpot of all requests.
inline json summary_rows(const comparison& c) {
    std::vector<std::string> names{"rps", "output_tps", "success_rate", "goodput_share", "goodput_rps"};
    for (const char* m : {"e2e", "ttft", "tpot"})
        for (const char* s : {"p50", "p90", "p99", "mean"}) names.push_back(fmt::format("{}.{}", m, s));
    json rows = json::array();
    for (const auto& p : c.pairs)
        for (const auto& name : names)
            if (const change* x = find_change(p.comparison, name))
                rows.push_back(change_row(*x, readable_name(*x), c.pairs.size() > 1 ? pair_heading(c, p) : ""));
    return rows;
}

inline json level_cell(const compared_pair& p, const char* name) {
    const change* x = find_change(p.comparison, name);
    if (x == nullptr) return {{"before", missing_value}, {"after", missing_value}, {"verdict", missing_value}, {"css", "undecided"}};
    return {{"before", value_text(*x, x->before)}, {"after", value_text(*x, x->after)},
            {"verdict", std::string(describe(x->result))}, {"css", css_class(x->result)}};
}

inline json sweep_compare_view(const comparison& c) {
    const sweep_shift& s = *c.sweep;
    json levels = json::array();
    for (const auto& p : c.pairs) {
        const change* rps = find_change(p.comparison, "rps");
        levels.push_back({{"load", p.load ? format_load(s.param, *p.load) : std::string(missing_value)},
                          {"rps", level_cell(p, "rps")},
                          {"rps_change", rps && rps->relative ? signed_percent(*rps->relative) : std::string(missing_value)},
                          {"e2e_p50", level_cell(p, "e2e.p50")}, {"e2e_p99", level_cell(p, "e2e.p99")},
                          {"ttft_p99", level_cell(p, "ttft.p99")}});
    }
    std::vector<std::string> knees, capacity;
    for (const auto& k : s.knees) knees.push_back(knee_sentence(s.param, k));
    for (const auto& x : s.capacity) capacity.push_back(capacity_sentence(s.param, x));
    return {{"param", s.param}, {"title", "Sweep over " + s.param}, {"levels", levels},
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
        failed.push_back({{"text", text + x.name + " regressed, " + value_text(x, x.before) + " → " +
                                       value_text(x, x.after) + (x.relative ? " (" + signed_percent(*x.relative) + ")" : "")}});
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
        if (const auto n = fewest_requests_for(p, v.confidence))
            rule.append(rule.empty() ? "" : ", ").append(fmt::format("{} needs {}", percentile_key(p), *n));
    j["too_few_rule"] = rule.empty() ? std::string(missing_value) : rule;
    j["text"] = fmt::format("noise band {}, significance level α = {}, {} confidence intervals from {} bootstrap resamples "
                            "(seed {}), percentiles by numpy's {} method, p-values from the Mann–Whitney U test",
                            j["noise"].get<std::string>(), j["alpha"].get<std::string>(), j["confidence"].get<std::string>(),
                            j["resamples"].get<std::string>(), j["seed"].get<std::string>(), j["method"].get<std::string>());
    return j;
}

inline std::string verdict_counts_text(const json& counts) {
    std::string out;
    for (verdict v : {verdict::improved, verdict::regressed, verdict::within_noise, verdict::no_change, verdict::too_few,
                      verdict::single}) {
        const auto n = counts[std::string(to_string(v))].get<std::size_t>();
        if (n > 0) out.append(out.empty() ? "" : ", ").append(fmt::format("{} {}", n, describe(v)));
    }
    return out;
}

inline std::string pairing_text(const comparison& c) {
    if (c.pairing == "load") return "two sweeps over " + param_of(c) + ", level by level";
    if (c.pairing == "label") return "runs of the same label";
    return "one run on each side";
}

} // namespace detail

// The stats export under "stats", and everything compare.md / compare.html show next to it.
// Plots are empty lists here; attach_compare_plots fills them.
inline json compare_view_model(const comparison& c, const comparison_options& o, const std::optional<gate_outcome>& gate,
                               const compare_report_options& ro) {
    json stats = comparison_document(c, o, gate);
    json pairs = json::array(), findings = json::array();
    for (const auto& p : c.pairs) pairs.push_back(detail::pair_view(c, p));
    for (const auto& f : compare_findings(c, o)) findings.push_back({{"text", f}});
    const std::string counts = detail::verdict_counts_text(stats["verdicts"]);
    return {{"title", ro.title},
            {"generator", "servestat 0.1.0"},
            {"options", detail::options_view(o)},
            {"pairing", c.pairing},
            {"pairing_text", detail::pairing_text(c)},
            {"verdict_counts", counts},
            {"many_pairs", c.pairs.size() > 1},
            {"summary_rows", detail::summary_rows(c)},
            {"pairs", pairs},
            {"has_gate", gate.has_value()},
            {"gate", gate ? detail::gate_view(c, *gate) : json(nullptr)},
            {"has_sweep", c.sweep.has_value()},
            {"sweep", c.sweep ? detail::sweep_compare_view(c) : json(nullptr)},
            {"has_findings", !findings.empty()},
            {"findings", findings},
            {"stats", std::move(stats)}};
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

inline std::vector<plot_file> pair_plots(const comparison& c, const compared_pair& p, const run& b, const run& a,
                                         const std::string& prefix, const subset_options& so) {
    std::vector<plot_file> out;
    std::set<std::string> used;
    const auto sb = split_into_subsets(b.requests, so), sa = split_into_subsets(a.requests, so);
    const std::string bn = "before: " + b.meta.label, an = "after: " + a.meta.label, heading = pair_heading(c, p);
    for (metric m : {metric::e2e, metric::ttft}) {
        const std::string key(to_string(m));
        const std::string what = m == metric::e2e ? "End-to-end latency" : "Time to first token";
        const std::string axis = m == metric::e2e ? "end-to-end latency (s)" : "time to first token (s)";
        for (std::size_t s = 0; s < sb.size() && s < sa.size(); ++s) {
            auto vb = metric_values(b, m, sb[s]), va = metric_values(a, m, sa[s]);
            if (vb.empty() || va.empty()) continue;
            const std::vector<plot::named_values> series{{bn, std::move(vb)}, {an, std::move(va)}};
            const std::string title = what + (s == 0 ? "" : ", " + sb[s].name + " requests") + " — " + heading;
            out.push_back({prefix + unique_name(used, key + "-ecdf-" + slug(sb[s].name)) + ".svg", title,
                           plot::ecdf_chart(series, {title, axis, "fraction of requests"})});
        }
        plot::bar_table t{{}, {bn, an}, {{}, {}}};
        bool complete = true;
        for (const auto& x : p.comparison.changes)
            if (x.subset == "all" && x.metric == key) {
                complete = complete && x.before && x.after;
                t.categories.push_back(x.statistic);
                t.values[0].push_back(x.before.value_or(0));
                t.values[1].push_back(x.after.value_or(0));
            }
        if (!complete || t.categories.empty()) continue;
        const std::string title = what + " percentiles — " + heading;
        out.push_back({prefix + key + "-percentiles.svg", title, plot::grouped_bar_chart(t, {title, "statistic", axis})});
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

inline std::vector<plot_file> sweep_compare_plots(const sweep_shift& s) {
    std::vector<plot_file> out;
    double lo = 0, hi = 0;
    for (const auto* a : {&s.before, &s.after})
        if (!a->rows.empty()) {
            lo = lo == 0 ? a->rows.front().load : std::min(lo, a->rows.front().load);
            hi = std::max(hi, a->rows.back().load);
        }
    plot::line_options base;
    base.log_x = lo > 0 && hi / lo >= 8;
    struct curve { const char *column, *file, *what, *axis; };
    static constexpr curve curves[] = {
        {"rps", "throughput", "Throughput", "throughput (req/s)"},
        {"e2e.p99", "e2e-p99", "End-to-end p99", "p99 end-to-end latency (s)"},
        {"ttft.p99", "ttft-p99", "Time to first token p99", "p99 time to first token (s)"},
        {"short.e2e.p99", "short-e2e-p99", "Short requests' end-to-end p99", "short requests' p99 e2e latency (s)"}};
    for (const auto& k : curves) {
        const std::vector<plot::named_points> series{series_over_load(s.before, k.column, "before"),
                                                     series_over_load(s.after, k.column, "after")};
        if (series[0].x.empty() || series[1].x.empty()) continue;
        plot::line_options o = base;
        mark_saturation(o, s.before, s.param, k.column, "before");
        mark_saturation(o, s.after, s.param, k.column, "after");
        const std::string title = fmt::format("{} against {}, before and after", k.what, s.param);
        out.push_back({fmt::format("sweep-{}.svg", k.file), title, plot::line_chart(series, {title, s.param, k.axis}, o)});
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
inline compare_plot_files compare_plot_set(const comparison& c, std::span<const run> before, std::span<const run> after,
                                           const comparison_options& o = {}) {
    compare_plot_files out;
    const auto prefixes = detail::pair_prefixes(c);
    for (std::size_t i = 0; i < c.pairs.size(); ++i) {
        const auto& p = c.pairs[i];
        out.pairs.push_back(detail::pair_plots(c, p, before[p.before_run], after[p.after_run], prefixes[i], o.compare.stats.subsets));
    }
    if (c.sweep) out.sweep = detail::sweep_compare_plots(*c.sweep);
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

// Puts the plots into a compare_view_model: Markdown links plots/NAME, HTML inlines the SVG.
inline void attach_compare_plots(json& view, const compare_plot_files& plots) {
    for (std::size_t i = 0; i < plots.pairs.size() && i < view["pairs"].size(); ++i) {
        view["pairs"][i]["plots"] = detail::plot_list(plots.pairs[i]);
        view["pairs"][i]["has_plots"] = !plots.pairs[i].empty();
    }
    if (view["sweep"].is_object()) {
        view["sweep"]["plots"] = detail::plot_list(plots.sweep);
        view["sweep"]["has_plots"] = !plots.sweep.empty();
    }
}

} // namespace servestat::report
