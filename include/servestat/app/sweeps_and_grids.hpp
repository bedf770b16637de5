// The sweeps and grids among analysed runs as the options ask for them (--sweep-by, --degradation,
// --sweet-spot), and the runs a report shows on none of them: shared by stats, report and the
// Python module.
#pragma once

#include <span>   // std::span
#include <vector> // std::vector

#include "servestat/app/analysis_args.hpp"    // analysis_args, sweet_spot_constraints
#include "servestat/stats/run_stats.hpp"      // run_stats, stats_options
#include "servestat/sweep/grid.hpp"           // find_grids, analyze_grid, grid_analysis
#include "servestat/sweep/sweep.hpp"          // find_sweeps, search_sweeps, left_out_run
#include "servestat/sweep/sweep_analysis.hpp" // analyze_sweep, sweep_analysis

namespace servestat::app {

// The sweeps among analysed runs, each with its table, knees, SLO capacity and Little's law check.
inline std::vector<sweep_analysis> analyze_sweeps(const analysis_args& a, std::span<const run_stats> runs,
                                                  const stats_options& o, double slo_percentile) {
    std::vector<sweep_analysis> out;
    for (const auto& s : find_sweeps(runs, {.by = a.sweep_by}))
        out.push_back(analyze_sweep(s, runs, o.slos, slo_percentile, a.degradation));
    return out;
}

// Runs a report shows on no sweep or grid, with why: on a curve too short, without the swept
// parameter, or a grid combination measured again. Nothing when there is no sweep or grid at all.
inline std::vector<left_out_run> runs_left_out(const analysis_args& a, std::span<const run_stats> runs,
                                               std::span<const grid_analysis> grids) {
    const auto search = search_sweeps(runs, {.by = a.sweep_by});
    if (search.sweeps.empty() && grids.empty()) return {};
    std::vector<bool> in_grid(runs.size(), false);
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
inline std::vector<grid_analysis> analyze_grids(const analysis_args& a, std::span<const run_stats> runs) {
    const auto constraints = sweet_spot_constraints(a);
    std::vector<grid_analysis> out;
    for (const auto& g : find_grids(runs, {.by = a.sweep_by})) out.push_back(analyze_grid(g, runs, constraints));
    return out;
}

} // namespace servestat::app
