// Replicate runs outside sweeps: one configuration measured several times (AIPerf's
// --num-profile-runs folders profile_runs/run_0001, run_0002, ...; a person's rep1, rep2). A sweep
// finds the replicates of each of its levels itself (sweep_point::replicates); these are the runs on
// no sweep that agree on everything and whose labels only number them.
#pragma once

#include <cstddef>  // std::size_t
#include <map>      // std::map
#include <optional> // std::optional
#include <span>     // std::span
#include <string>   // std::string
#include <utility>  // std::pair
#include <vector>   // std::vector

#include "servestat/stats/cost.hpp"           // run_cost, cost_between_runs
#include "servestat/stats/energy.hpp"         // run_energy, energy_between_runs
#include "servestat/stats/run_spread.hpp"     // run_spread, spread_of_runs
#include "servestat/sweep/sweep.hpp"          // detail::curve_key, sweep_value
#include "servestat/sweep/sweep_analysis.hpp" // sweep_analysis, sweep_table_columns

namespace servestat {

namespace detail {

// A label without the number it ends in: run_0001 and run_0002 are both "run_". Only a trailing
// number counts as a run's number: llama3-8b and llama3-70b name two models, not two runs.
inline std::string label_letters(const std::string& label) {
    std::size_t end = label.size();
    while (end > 0 && label[end - 1] >= '0' && label[end - 1] <= '9') --end;
    return label.substr(0, end);
}

// What replicates agree on: source format, workload, model and every parameter.
inline std::string configuration_key(const run_stats& r) { return curve_key(r, "", {}, false); }

} // namespace detail

struct replicate_group {
    std::vector<std::size_t> runs; // indices into the runs searched, input order
    std::string label;             // the first run's
    // Per sweep table column (sweep_table_columns) that every run of the group has: its spread.
    std::vector<std::pair<std::string, run_spread>> statistics;
    // With a price: the cost per token between the runs (stats/cost.hpp), when every run has one.
    std::optional<run_cost> cost;
    // Where the runs' power was sampled: the energy per token between them (stats/energy.hpp).
    std::optional<run_energy> energy;
};

namespace detail {

inline replicate_group spread_of_group(std::span<const run_stats> runs, std::vector<std::size_t> members, double confidence) {
    replicate_group g{std::move(members), {}, {}, std::nullopt, std::nullopt};
    g.label = runs[g.runs.front()].meta.label;
    for (const auto& column : sweep_table_columns()) {
        std::vector<double> values;
        for (const std::size_t i : g.runs)
            if (const auto v = sweep_value(runs[i], column)) values.push_back(*v);
        if (values.size() != g.runs.size()) continue;
        if (const auto s = spread_of_runs(values, confidence)) g.statistics.emplace_back(column, *s);
    }
    std::vector<const run_cost*> costs;
    for (const std::size_t i : g.runs) costs.push_back(runs[i].cost ? &*runs[i].cost : nullptr);
    g.cost = cost_between_runs(costs);
    std::vector<const run_energy*> energies;
    for (const std::size_t i : g.runs) energies.push_back(runs[i].energy ? &*runs[i].energy : nullptr);
    g.energy = energy_between_runs(energies);
    return g;
}

inline std::vector<bool> runs_on_sweeps(std::size_t n, std::span<const sweep_analysis> sweeps) {
    std::vector<bool> on_sweep(n, false);
    for (const auto& s : sweeps)
        for (const auto& p : s.curve.points) {
            if (p.run < n) on_sweep[p.run] = true;
            for (const std::size_t i : p.replicates)
                if (i < n) on_sweep[i] = true;
        }
    return on_sweep;
}

} // namespace detail

// Runs on none of `sweeps` that agree on format, workload, model and every parameter, two or more,
// whose labels are equal or differ only in the number they end in: each such set is one configuration measured
// again, and its spread between runs is given per column.
inline std::vector<replicate_group> find_replicate_groups(std::span<const run_stats> runs,
                                                          std::span<const sweep_analysis> sweeps = {},
                                                          double confidence = replicate_confidence) {
    const auto on_sweep = detail::runs_on_sweeps(runs.size(), sweeps);
    std::map<std::string, std::vector<std::size_t>> by_key;
    std::vector<std::string> order;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        if (on_sweep[i]) continue;
        const std::string key = detail::configuration_key(runs[i]) + "\n" + detail::label_letters(runs[i].meta.label);
        auto [it, inserted] = by_key.try_emplace(key);
        if (inserted) order.push_back(key);
        it->second.push_back(i);
    }
    std::vector<replicate_group> out;
    for (const auto& key : order)
        if (by_key[key].size() >= 2) out.push_back(detail::spread_of_group(runs, by_key[key], confidence));
    return out;
}

// The replicate groups the experiment stage found (experiment/design.hpp: the runs of one
// configuration at one level, with the same measured workload), those on no sweep.
inline std::vector<replicate_group> replicate_groups_of(std::span<const run_stats> runs,
                                                        std::span<const std::vector<std::size_t>> points,
                                                        std::span<const sweep_analysis> sweeps = {},
                                                        double confidence = replicate_confidence) {
    const auto on_sweep = detail::runs_on_sweeps(runs.size(), sweeps);
    std::vector<replicate_group> out;
    for (const auto& members : points) {
        std::vector<std::size_t> off;
        for (const std::size_t i : members)
            if (!on_sweep[i]) off.push_back(i);
        if (off.size() >= 2) out.push_back(detail::spread_of_group(runs, std::move(off), confidence));
    }
    return out;
}

} // namespace servestat
