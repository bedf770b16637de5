// The experiment's reading of analysed runs as the options ask for it (--factor, --role,
// --sweep-by), and from it the sweeps and grids (--degradation, --sweet-spot), the replicate groups
// and the runs a report shows on none of them: shared by stats, report and the Python module.
#pragma once

#include <algorithm> // std::stable_sort
#include <set>       // std::set
#include <span>      // std::span
#include <string>    // std::string
#include <vector>    // std::vector

#include "servestat/app/analysis_args.hpp"     // analysis_args, sweet_spot_constraints
#include "servestat/experiment/design.hpp"     // read_design, runs_as_designed, experiment_design
#include "servestat/experiment/overrides.hpp"  // parse_user_factor, parse_user_role
#include "servestat/stats/run_stats.hpp"       // run_stats, stats_options
#include "servestat/sweep/grid.hpp"            // find_grids, analyze_grid, grid_analysis
#include "servestat/sweep/sweep.hpp"           // find_sweeps, search_sweeps, left_out_run, sweep_options
#include "servestat/sweep/sweep_analysis.hpp"  // analyze_sweep, sweep_analysis

namespace servestat::app {

// A result set as the experiment stage read it: its design, and its runs with each one's
// configuration and level as their parameters (what the sweep and grid search groups).
struct read_experiment {
    experiment_design design;
    std::vector<run_stats> runs;

    sweep_options search_options() const { return {.by = design.load, .from_design = true, .lengths = design.lengths}; }
    // The design's configuration a sweep's runs belong to; none when they are not all of one (a
    // sweep the user asked for across configurations).
    const configuration* configuration_of(const sweep& s) const {
        std::set<std::size_t> of;
        for (const auto& p : s.points)
            for (const std::size_t i : p.replicates.empty() ? std::vector<std::size_t>{p.run} : p.replicates)
                if (i < design.configuration_of.size()) of.insert(design.configuration_of[i]);
        return of.size() == 1 ? &design.configurations[*of.begin()] : nullptr;
    }
    // The runs of each point measured more than once, for the replicate groups off any sweep.
    std::vector<std::vector<std::size_t>> replicated_points() const {
        std::vector<std::vector<std::size_t>> out;
        for (const auto& p : design.points)
            if (p.runs.size() > 1) out.push_back(p.runs);
        return out;
    }
};

inline design_options design_options_of(const analysis_args& a) {
    design_options o;
    o.load = a.sweep_by;
    for (const auto& f : a.factors) o.factors.push_back(parse_user_factor(f));
    for (const auto& r : a.roles) o.roles.push_back(parse_user_role(r));
    return o;
}

inline read_experiment experiment_of(const analysis_args& a, std::span<const run_stats> runs) {
    read_experiment e{read_design(runs, design_options_of(a)), {}};
    e.runs = runs_as_designed(runs, e.design);
    return e;
}

// The sweeps among analysed runs, each with its table, knees, SLO capacity and Little's law check.
inline std::vector<sweep_analysis> analyze_sweeps(const analysis_args& a, const read_experiment& e, const stats_options& o,
                                                  double slo_percentile) {
    std::vector<sweep_analysis> out;
    if (e.design.load.empty()) return out;
    auto sweeps = find_sweeps(e.runs, e.search_options());
    // In the design's order of configurations (natural order of their values), not the files' order;
    // a sweep across configurations (one the user asked for) after them.
    const auto rank = [&](const sweep& s) {
        const auto* c = e.configuration_of(s);
        return c ? static_cast<std::size_t>(c - e.design.configurations.data()) : e.design.configurations.size();
    };
    std::stable_sort(sweeps.begin(), sweeps.end(), [&](const sweep& x, const sweep& y) { return rank(x) < rank(y); });
    for (auto s : sweeps) {
        if (const auto* c = e.configuration_of(s)) s.configuration = c->name, s.configuration_pieces = c->pieces;
        out.push_back(analyze_sweep(s, e.runs, o.slos, slo_percentile, a.degradation));
    }
    return out;
}

// Runs a report shows on no sweep or grid, with why: on a curve too short, without the swept
// parameter, or a grid combination measured again. Nothing when there is no sweep or grid at all.
inline std::vector<left_out_run> runs_left_out(const read_experiment& e, std::span<const grid_analysis> grids) {
    const auto search = e.design.load.empty() ? sweep_search{} : search_sweeps(e.runs, e.search_options());
    if (search.sweeps.empty() && grids.empty()) return {};
    std::vector<bool> in_grid(e.runs.size(), false);
    std::vector<left_out_run> out;
    for (const auto& g : grids) {
        for (const auto& row : g.table.cells)
            for (const auto& cell : row)
                if (cell) in_grid[*cell] = true;
        out.insert(out.end(), g.table.left_out.begin(), g.table.left_out.end());
    }
    for (const auto& l : search.left_out)
        if (!in_grid[l.run]) out.push_back(l);
    return out;
}

// The two-parameter grids among analysed runs, each with its sweet spot when --sweet-spot was given.
inline std::vector<grid_analysis> analyze_grids(const analysis_args& a, const read_experiment& e) {
    const auto constraints = sweet_spot_constraints(a);
    std::vector<grid_analysis> out;
    if (e.design.load.empty()) return out;
    for (const auto& g : find_grids(e.runs, e.search_options())) out.push_back(analyze_grid(g, e.runs, constraints));
    return out;
}

} // namespace servestat::app
