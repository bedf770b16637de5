// Comparing two sides that are each a run, a set of runs or a sweep: which run pairs with which
// (the only run of each side, the same load level of two sweeps, or the same label), and for sweeps
// how the knees and the largest load meeting each SLO moved. Each side is read by the experiment
// stage first (experiment/design.hpp): its load axis, configurations and replicates decide the pairing.
#pragma once

#include <algorithm> // std::find
#include <cstddef>  // std::size_t
#include <cstdint>  // std::uint64_t
#include <map>      // std::map
#include <optional> // std::optional
#include <set>      // std::set
#include <span>     // std::span
#include <string>   // std::string
#include <vector>   // std::vector

#include <fmt/format.h> // fmt::format

#include "servestat/compare/compare.hpp"      // compare_runs, run_comparison, compare_options
#include "servestat/compare/runs_as_unit.hpp" // compare_runs_as_unit, runs_as_unit
#include "servestat/core/errors.hpp"          // usage_error
#include "servestat/experiment/design.hpp"    // read_design, runs_as_designed, design_options
#include "servestat/stats/cost.hpp"           // run_cost, cost_between_runs
#include "servestat/stats/energy.hpp"         // run_energy, energy_between_runs
#include "servestat/sweep/sweep_analysis.hpp" // analyze_sweep, sweep_analysis, find_sweeps

namespace servestat {

struct compared_pair {
    std::optional<double> load; // the load level, when the sides are sweeps
    run_comparison comparison;
    std::size_t before_run = 0, after_run = 0; // indices into the runs given to compare()
    // The same statistics with the run as the unit, when each side has fewest_runs_as_unit
    // replicate runs or more (compare/runs_as_unit.hpp).
    std::optional<runs_as_unit> runs;
};

// Where one knee of the sweep curves lies before and after, as a load level.
struct knee_shift {
    std::string curve; // "throughput", "p99", "ttft", "tradeoff" (see sweep_analysis.hpp)
    std::optional<double> before, after;
};

struct capacity_shift {
    slo objective;
    double percentile = 95;
    slo_capacity before, after;
};

struct sweep_shift {
    std::string param;
    sweep_analysis before, after;
    std::vector<knee_shift> knees;
    std::vector<capacity_shift> capacity;
    std::vector<double> only_before, only_after; // load levels measured on one side only
};

struct comparison_options {
    compare_options compare;
    std::string sweep_by;        // the swept parameter; empty = the load axis each side's design reads
    design_options design;       // --factor and --role, read on each side
    double slo_percentile = 95;  // SLO capacity of sweeps: the largest load whose p95 meets each SLO
    double degradation = default_degradation; // each side's threshold knees (threshold_knee.hpp)
};

struct comparison {
    std::string pairing; // "single", "load", "label", "replicates" (each side one configuration run several times)
    std::vector<compared_pair> pairs;
    std::optional<sweep_shift> sweep;
    std::vector<std::string> unpaired; // labels of runs compared with nothing
};

namespace detail {

// The runs of a side that have per-request data, as indices into it.
inline std::vector<std::size_t> measured_runs(std::span<const run> runs, const char* side) {
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < runs.size(); ++i)
        if (runs[i].meta.kind == run_kind::requests && !runs[i].requests.empty()) out.push_back(i);
    if (out.empty())
        throw usage_error(fmt::format("{} holds no per-request log: a comparison needs each request's measurements "
                                      "(summary files and arrival traces cannot be bootstrapped)",
                                      side));
    return out;
}

inline std::vector<run_stats> analyze_all(std::span<const run> runs, const std::vector<std::size_t>& which,
                                          const stats_options& o) {
    std::vector<run_stats> out;
    for (std::size_t i : which) out.push_back(analyze(runs[i], o));
    return out;
}

// A progress stage's total: the resamples of `pairs` pairs (compare_runs counts them as drawn).
inline void expect_pairs(const compare_options& o, std::size_t pairs) {
    if (o.progress) o.progress->add_total(static_cast<std::uint64_t>(pairs) * o.bootstrap.resamples);
}

inline compared_pair pair_up(std::span<const run> before, std::size_t b, std::span<const run> after, std::size_t a,
                             std::optional<double> load, const compare_options& o) {
    return {load, compare_runs(before[b], after[a], o), b, a};
}

// The runs of one level measured more than once, pooled as replicates: every request of each
// counts toward the level's latencies. Their clocks are not one clock, so rates and durations are
// left out (shared_clock false) and a note says so. One run: itself.
inline run pooled_level(std::span<const run> side, const std::vector<std::size_t>& side_runs, const sweep_point& p) {
    if (p.replicates.size() < 2) return side[side_runs[p.run]];
    run out;
    out.meta = side[side_runs[p.run]].meta;
    out.meta.shared_clock = false;
    out.meta.label += fmt::format(" (+{} repeated runs)", p.replicates.size() - 1);
    out.meta.notes.push_back(fmt::format("{} runs of this level pooled as replicates: latencies from all their requests; "
                                         "rates are left out, the runs having no clock in common",
                                         p.replicates.size()));
    for (const std::size_t i : p.replicates) {
        const run& r = side[side_runs[i]];
        for (std::size_t k = 0; k < r.requests.size(); ++k) out.requests.push_back(r.requests.row(k));
        out.skipped.count += r.skipped.count;
    }
    return out;
}

// A level holding runs 0 .. n − 1 of a side: every run of a side that is one configuration.
inline sweep_point every_run(std::size_t n) {
    sweep_point p{0, 0, {}};
    for (std::size_t i = 0; i < n; ++i) p.replicates.push_back(i);
    return p;
}

inline std::vector<const run_stats*> stats_of(std::span<const run_stats> stats, const std::vector<std::size_t>& which) {
    std::vector<const run_stats*> out;
    for (const std::size_t i : which) out.push_back(&stats[i]);
    return out;
}

// A side pooled from several runs has no clock of its own, so no cost or energy of its own: each is
// taken between its runs instead (stats/cost.hpp, stats/energy.hpp), as a replicated sweep level's is.
inline void cost_between_pooled(run_stats& pooled, std::span<const run_stats* const> runs) {
    if (runs.size() < 2) return;
    std::vector<const run_cost*> costs;
    std::vector<const run_energy*> energies;
    for (const auto* r : runs) {
        costs.push_back(r->cost ? &*r->cost : nullptr);
        energies.push_back(r->energy ? &*r->energy : nullptr);
    }
    pooled.cost = cost_between_runs(costs);
    pooled.energy = energy_between_runs(energies);
}

// Whether a side's design is one point measured by every run: replicates (same settings, same
// measured workload; run_0001, run_0002 — runs named apart, a and b, are configurations).
inline bool one_replicated_point(const experiment_design& d) {
    return d.runs > 1 && d.points.size() == 1 && d.points.front().runs.size() == d.runs;
}

// Two sides that are each one configuration run two or more times, as their designs read them: the
// runs of each side are replicates. The request-level comparison pools each side's requests (as a
// replicated sweep level's), and with three runs or more a side the runs are also compared as the unit.
inline std::optional<comparison> compare_replicates(std::span<const run> before, const std::vector<std::size_t>& b_runs,
                                                    std::span<const run> after, const std::vector<std::size_t>& a_runs,
                                                    std::span<const run_stats> before_stats,
                                                    std::span<const run_stats> after_stats, const experiment_design& before_design,
                                                    const experiment_design& after_design, const comparison_options& o) {
    if (!one_replicated_point(before_design) || !one_replicated_point(after_design)) return std::nullopt;
    const sweep_point pb = every_run(b_runs.size()), pa = every_run(a_runs.size());
    const auto sb = stats_of(before_stats, pb.replicates), sa = stats_of(after_stats, pa.replicates);
    comparison out{"replicates", {}, std::nullopt, {}};
    expect_pairs(o.compare, 1);
    out.pairs.push_back({std::nullopt, compare_runs(pooled_level(before, b_runs, pb), pooled_level(after, a_runs, pa), o.compare),
                         b_runs.front(), a_runs.front()});
    out.pairs.back().runs = compare_runs_as_unit(sb, sa, &out.pairs.back().comparison, o.compare);
    cost_between_pooled(out.pairs.back().comparison.before, sb);
    cost_between_pooled(out.pairs.back().comparison.after, sa);
    return out;
}

inline sweep single_sweep(std::span<const run_stats> stats, const std::string& param, const experiment_design& d, const char* side) {
    const auto sweeps = find_sweeps(stats, {.by = param, .min_points = 1, .from_design = true, .lengths = d.lengths});
    if (sweeps.size() != 1)
        throw usage_error(fmt::format("{} holds {} curves over {}; compare one sweep per side (fewer files, or "
                                      "--sweep-by another parameter)",
                                      side, sweeps.size(), param));
    return sweeps.front();
}


inline void note_unswept(std::span<const run_stats> stats, const sweep& s, std::vector<std::string>& unpaired) {
    std::vector<bool> in_sweep(stats.size(), false);
    for (const auto& p : s.points)
        for (const std::size_t i : p.replicates) in_sweep[i] = true;
    for (const auto& p : s.points) in_sweep[p.run] = true;
    for (std::size_t i = 0; i < stats.size(); ++i)
        if (!in_sweep[i]) unpaired.push_back(stats[i].meta.label);
}

inline sweep_shift shift_of(const sweep& b, const sweep& a, std::span<const run_stats> before_stats,
                            std::span<const run_stats> after_stats, const comparison_options& o) {
    sweep_shift out{b.param, analyze_sweep(b, before_stats, o.compare.stats.slos, o.slo_percentile, o.degradation),
                    analyze_sweep(a, after_stats, o.compare.stats.slos, o.slo_percentile, o.degradation), {}, {}, {}, {}};
    for (std::size_t k = 0; k < out.before.knees.size() && k < out.after.knees.size(); ++k)
        out.knees.push_back({out.before.knees[k].curve, out.before.knees[k].load, out.after.knees[k].load});
    for (std::size_t k = 0; k < out.before.capacity.size() && k < out.after.capacity.size(); ++k)
        out.capacity.push_back({out.before.capacity[k].objective, o.slo_percentile, out.before.capacity[k],
                                out.after.capacity[k]});
    return out;
}

inline comparison compare_sweeps(std::span<const run> before, const std::vector<std::size_t>& b_runs,
                                 std::span<const run> after, const std::vector<std::size_t>& a_runs,
                                 std::span<const run_stats> before_stats, std::span<const run_stats> after_stats,
                                 const experiment_design& before_design, const experiment_design& after_design,
                                 const std::string& param, const comparison_options& o) {
    const sweep b = single_sweep(before_stats, param, before_design, "BEFORE"), a = single_sweep(after_stats, param, after_design, "AFTER");
    comparison out{"load", {}, std::nullopt, {}};
    std::map<double, const sweep_point*> after_at;
    for (const auto& p : a.points) after_at[p.load] = &p;
    std::size_t levels = 0;
    for (const auto& p : b.points) levels += after_at.contains(p.load);
    expect_pairs(o.compare, levels);
    for (const auto& p : b.points) {
        const auto it = after_at.find(p.load);
        if (it == after_at.end()) continue;
        const sweep_point& q = *it->second;
        if (p.replicates.size() < 2 && q.replicates.size() < 2) {
            out.pairs.push_back(pair_up(before, b_runs[p.run], after, a_runs[q.run], p.load, o.compare));
            continue;
        }
        out.pairs.push_back({p.load, compare_runs(pooled_level(before, b_runs, p), pooled_level(after, a_runs, q), o.compare),
                             b_runs[p.run], a_runs[q.run]});
        out.pairs.back().runs = compare_runs_as_unit(stats_of(before_stats, p.replicates), stats_of(after_stats, q.replicates),
                                                     &out.pairs.back().comparison, o.compare);
        cost_between_pooled(out.pairs.back().comparison.before, stats_of(before_stats, p.replicates));
        cost_between_pooled(out.pairs.back().comparison.after, stats_of(after_stats, q.replicates));
    }
    if (out.pairs.empty())
        throw usage_error(fmt::format("BEFORE and AFTER share no {} level: nothing to compare", param));
    out.sweep = shift_of(b, a, before_stats, after_stats, o);
    std::map<double, bool> before_at;
    for (const auto& p : b.points) before_at[p.load] = true;
    for (const auto& p : b.points)
        if (!after_at.contains(p.load)) out.sweep->only_before.push_back(p.load);
    for (const auto& p : a.points)
        if (!before_at.contains(p.load)) out.sweep->only_after.push_back(p.load);
    note_unswept(before_stats, b, out.unpaired);
    note_unswept(after_stats, a, out.unpaired);
    return out;
}

inline comparison compare_by_label(std::span<const run> before, const std::vector<std::size_t>& b_runs,
                                   std::span<const run> after, const std::vector<std::size_t>& a_runs,
                                   const comparison_options& o) {
    comparison out{"label", {}, std::nullopt, {}};
    std::map<std::string, std::size_t> after_by_label;
    for (std::size_t i : a_runs) after_by_label.emplace(after[i].meta.label, i);
    std::set<std::string> labels; // the pairs the loop below makes: each label of BEFORE found in AFTER, once
    for (std::size_t i : b_runs)
        if (after_by_label.contains(before[i].meta.label)) labels.insert(before[i].meta.label);
    expect_pairs(o.compare, labels.size());
    std::map<std::string, bool> paired;
    for (std::size_t i : b_runs) {
        const std::string& label = before[i].meta.label;
        const auto it = after_by_label.find(label);
        if (it == after_by_label.end() || paired[label]) {
            out.unpaired.push_back(label);
            continue;
        }
        paired[label] = true;
        out.pairs.push_back(pair_up(before, i, after, it->second, std::nullopt, o.compare));
    }
    for (std::size_t i : a_runs)
        if (!paired[after[i].meta.label]) out.unpaired.push_back(after[i].meta.label);
    if (out.pairs.empty())
        throw usage_error(fmt::format("cannot pair {} run(s) of BEFORE with {} run(s) of AFTER: give one run per side, "
                                      "two sweeps over one parameter, or runs with the same labels",
                                      b_runs.size(), a_runs.size()));
    return out;
}

} // namespace detail

// Pairs the runs of two sides and compares each pair: one run each; else two sweeps over the same
// load parameter, level by level, with their knees and SLO capacity; else two sides that are each
// one configuration run several times, pooled (and with three runs a side compared over runs too);
// else runs of equal label.
inline comparison compare(std::span<const run> before, std::span<const run> after, const comparison_options& given = {}) {
    validate(given.compare);
    // Each run's summary holds slo_percentile, asked for or not: the sweeps' SLO capacity and the
    // report's SLO verdicts read it. The statistics compared stay those asked for.
    comparison_options o = given;
    auto& ps = o.compare.stats.summary.percentiles;
    if (std::find(ps.begin(), ps.end(), o.slo_percentile) == ps.end()) ps.push_back(o.slo_percentile);
    const auto b = detail::measured_runs(before, "BEFORE");
    const auto a = detail::measured_runs(after, "AFTER");
    if (b.size() == 1 && a.size() == 1) {
        detail::expect_pairs(o.compare, 1);
        return {"single", {detail::pair_up(before, b.front(), after, a.front(), std::nullopt, o.compare)}, std::nullopt, {}};
    }
    design_options reading = o.design;
    if (reading.load.empty()) reading.load = o.sweep_by;
    const auto before_read = detail::analyze_all(before, b, o.compare.stats);
    const auto after_read = detail::analyze_all(after, a, o.compare.stats);
    const auto before_design = read_design(before_read, reading), after_design = read_design(after_read, reading);
    // Each run's parameters as its side's design reads them: its configuration and its level.
    const auto before_stats = runs_as_designed(before_read, before_design), after_stats = runs_as_designed(after_read, after_design);
    const std::string param = !o.sweep_by.empty() ? o.sweep_by : !before_design.load.empty() ? before_design.load : after_design.load;
    if (!param.empty() && b.size() > 1 && a.size() > 1)
        return detail::compare_sweeps(before, b, after, a, before_stats, after_stats, before_design, after_design, param, o);
    if (param.empty())
        if (auto replicates = detail::compare_replicates(before, b, after, a, before_stats, after_stats, before_design,
                                                         after_design, o))
            return *replicates;
    return detail::compare_by_label(before, b, after, a, o);
}

} // namespace servestat
