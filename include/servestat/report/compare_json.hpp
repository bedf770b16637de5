// JSON export of a before/after comparison (`servestat compare --json`, compare.json): every
// statistic's values, interval, p-value and verdict, for CI systems and embedding tools.
#pragma once

#include <optional> // std::optional
#include <string>   // std::string
#include <vector>   // std::vector

#include "servestat/compare/comparison.hpp" // comparison, comparison_options
#include "servestat/compare/cost_change.hpp" // compare_costs, compare_energy
#include "servestat/compare/gate.hpp"       // gate_rule, gate_failure
#include "servestat/report/stats_json.hpp"  // json, options_to_json, to_json(sweep_analysis)

namespace servestat {

inline constexpr int compare_json_version = 1;

// What a gate was asked and what failed it; absent when no --fail-on was given.
struct gate_outcome {
    std::string spec; // as given, e.g. "regressed:e2e.p99"
    gate_rule rule;
    std::vector<gate_failure> failures;
};

namespace detail {

// {low, high}: compare.json's form (stats --json writes [low, high], interval_json).
inline json compare_interval_json(const std::optional<interval>& i) {
    return i ? json{{"low", i->low}, {"high", i->high}} : json(nullptr);
}

inline json to_json(const change& c) {
    return {{"name", c.name},
            {"subset", c.subset.empty() ? json(nullptr) : json(c.subset)},
            {"metric", c.metric},
            {"statistic", c.statistic.empty() ? json(nullptr) : json(c.statistic)},
            {"better", c.lower_is_better ? "lower" : "higher"},
            {"n_before", c.n_before},
            {"n_after", c.n_after},
            {"before", or_null(c.before)},
            {"after", or_null(c.after)},
            {"change", or_null(c.delta)},
            {"relative_change", or_null(c.relative)},
            {"ci", compare_interval_json(c.delta_ci)},
            {"relative_ci", compare_interval_json(c.relative_ci)},
            {"p_value", or_null(c.p_value)},
            {"sketch_bound", or_null(c.sketch_bound)},
            {"verdict", std::string(to_string(c.result))},
            {"few_samples", few_sample_sides(c)}};
}

inline json run_identity(const run_stats& r) {
    return {{"label", r.meta.label},
            {"source", {{"path", r.meta.source.path}, {"format", r.meta.source.format}}},
            {"started_at", r.meta.started_at.empty() ? json(nullptr) : json(r.meta.started_at)},
            {"params", r.meta.params},
            {"requests", r.requests},
            {"ok", r.ok},
            {"notes", r.meta.notes}}; // e.g. what --steady-state removed: the numbers are read with it
}

// The statistics compared with the run as the unit (compare/runs_as_unit.hpp): each side's spread
// over its runs, Welch's interval of the difference of their means, and whether a request-level
// verdict of a change lies within the noise the runs show.
inline json to_json(const runs_as_unit& r) {
    json changes = json::array();
    for (const auto& c : r.changes)
        changes.push_back({{"name", c.name},
                           {"better", c.lower_is_better ? "lower" : "higher"},
                           {"before", to_json(c.runs.before)},
                           {"after", to_json(c.runs.after)},
                           {"change", c.runs.change},
                           {"relative_change", or_null(c.runs.relative)},
                           {"se", c.runs.se},
                           {"df", c.runs.df},
                           {"t_critical", or_null(c.runs.t_critical)},
                           {"ci", compare_interval_json(c.runs.ci)},
                           {"relative_ci", compare_interval_json(c.runs.relative_ci)},
                           {"verdict", std::string(to_string(c.between_runs))},
                           {"request_verdict", c.request_level ? json(std::string(to_string(*c.request_level))) : json(nullptr)},
                           {"within_run_noise", c.within_run_noise}});
    return {{"method", "welch"},
            {"confidence", r.confidence},
            {"runs_before", r.runs_before},
            {"runs_after", r.runs_after},
            {"changes", std::move(changes)}};
}

// The costs of a compared pair (compare/cost_change.hpp): each side's, and the changes with their
// verdicts; null when neither side has a price.
inline json figure_changes_json(const std::vector<cost_change>& figures) {
    json changes = json::array();
    for (const auto& c : figures)
        changes.push_back({{"name", c.name},
                           {"before", or_null(c.before.value)},
                           {"after", or_null(c.after.value)},
                           {"before_ci", interval_json(c.before.ci)},
                           {"after_ci", interval_json(c.after.ci)},
                           {"change", or_null(c.delta)},
                           {"relative_change", or_null(c.relative)},
                           {"verdict", std::string(to_string(c.result))}});
    return changes;
}

inline json cost_changes_json(const std::optional<run_cost>& before, const std::optional<run_cost>& after) {
    if (!before && !after) return nullptr;
    return {{"before", cost_json(before)}, {"after", cost_json(after)}, {"changes", figure_changes_json(compare_costs(before, after))}};
}

// The energy per token of a compared pair, likewise; null when neither side has an energy.
inline json energy_changes_json(const std::optional<run_energy>& before, const std::optional<run_energy>& after) {
    if (!before && !after) return nullptr;
    return {{"before", energy_json(before)},
            {"after", energy_json(after)},
            {"changes", figure_changes_json(compare_energy(before, after))}};
}

inline json to_json(const compared_pair& p) {
    json changes = json::array();
    for (const auto& c : p.comparison.changes) changes.push_back(to_json(c));
    return {{"load", p.load ? load_json(*p.load) : json(nullptr)},
            {"before", run_identity(p.comparison.before)},
            {"after", run_identity(p.comparison.after)},
            {"changes", std::move(changes)},
            {"runs_as_unit", p.runs ? to_json(*p.runs) : json(nullptr)},
            {"cost", cost_changes_json(p.comparison.before.cost, p.comparison.after.cost)},
            {"energy", energy_changes_json(p.comparison.before.energy, p.comparison.after.energy)}};
}

inline json capacity_side(const slo_capacity& c) {
    return {{"max_load", or_null(c.max_load)}, {"interpolated", c.interpolated}, {"limited", c.limited}, {"known", c.known}};
}

inline json to_json(const sweep_shift& s) {
    json knees = json::array();
    for (const auto& k : s.knees) knees.push_back({{"curve", k.curve}, {"before", or_null(k.before)}, {"after", or_null(k.after)}});
    json capacity = json::array();
    for (const auto& c : s.capacity)
        capacity.push_back({{"metric", std::string(to_string(c.objective.on))}, {"max_seconds", c.objective.max_seconds},
                            {"percentile", c.percentile}, {"before", capacity_side(c.before)}, {"after", capacity_side(c.after)}});
    return {{"param", s.param},
            {"knees", std::move(knees)},
            {"slo_capacity", std::move(capacity)},
            {"only_before", s.only_before},
            {"only_after", s.only_after},
            {"before", servestat::to_json(s.before)},
            {"after", servestat::to_json(s.after)}};
}

inline json verdict_counts(const comparison& c) {
    json counts = json::object();
    for (verdict v : {verdict::improved, verdict::regressed, verdict::no_change, verdict::within_noise, verdict::too_few,
                      verdict::single, verdict::untested}) {
        std::size_t n = 0;
        for (const auto& p : c.pairs)
            for (const auto& x : p.comparison.changes) n += x.result == v;
        counts[std::string(to_string(v))] = n;
    }
    return counts;
}

inline json to_json(const gate_outcome& g) {
    json failed = json::array();
    for (const auto& f : g.failures)
        failed.push_back({{"load", f.load ? load_json(*f.load) : json(nullptr)}, {"name", f.failed->name}, {"reason", f.reason}});
    return {{"rule", g.spec}, {"names", g.rule.names}, {"passed", g.failures.empty()}, {"failed", std::move(failed)}};
}

} // namespace detail

inline json compare_options_to_json(const comparison_options& o) {
    json j = options_to_json(o.compare.stats);
    j["percentiles"] = percentile_list(o.compare.percentiles);
    json metrics = json::array();
    for (metric m : o.compare.metrics) metrics.push_back(std::string(to_string(m)));
    j["metrics"] = std::move(metrics);
    j["add_client_queueing"] = o.compare.add_client_queueing;
    j["noise"] = o.compare.verdicts.noise;
    j["alpha"] = o.compare.verdicts.alpha;
    j["confidence"] = o.compare.verdicts.confidence;
    j["resamples"] = o.compare.bootstrap.resamples;
    j["seed"] = o.compare.bootstrap.seed;
    j["slo_percentile"] = o.slo_percentile;
    return j;
}

inline json comparison_document(const comparison& c, const comparison_options& o,
                                const std::optional<gate_outcome>& gate = std::nullopt) {
    json pairs = json::array();
    for (const auto& p : c.pairs) pairs.push_back(detail::to_json(p));
    return {{"servestat", "compare"},
            {"version", compare_json_version},
            {"options", compare_options_to_json(o)},
            {"pairing", c.pairing},
            {"verdicts", detail::verdict_counts(c)},
            {"gate", gate ? detail::to_json(*gate) : json(nullptr)},
            {"pairs", std::move(pairs)},
            {"sweep", c.sweep ? detail::to_json(*c.sweep) : json(nullptr)},
            {"unpaired", c.unpaired}};
}

} // namespace servestat
