// Parts of one measurement read as one run (experiment/parts.hpp), for every front end: found among
// the analysed runs by the design the options read, then each group replaced by its combined run,
// analysed again. The design is read only where two runs' wall-clock windows overlap at all.
#pragma once

#include <algorithm> // std::sort
#include <cstddef>   // std::size_t
#include <span>      // std::span
#include <utility>   // std::move, std::pair
#include <vector>    // std::vector

#include "servestat/app/analysis_args.hpp"    // analysis_args
#include "servestat/app/sweeps_and_grids.hpp" // design_options_of
#include "servestat/core/run.hpp"             // run
#include "servestat/experiment/design.hpp"    // read_design
#include "servestat/experiment/parts.hpp"     // parts_of_one_measurement, combine_parts
#include "servestat/stats/run_stats.hpp"      // run_stats, analyze, stats_options

namespace servestat::app {

// Whether the wall-clock windows of any two runs overlap: the cheap test that spares every other
// result set the design's reading.
inline bool some_windows_overlap(std::span<const run_stats> stats) {
    std::vector<std::pair<double, double>> windows;
    for (const auto& s : stats)
        if (const auto w = servestat::detail::window_of(s)) windows.emplace_back(w->start, w->end);
    std::sort(windows.begin(), windows.end());
    for (std::size_t i = 1; i < windows.size(); ++i)
        if (windows[i].first < windows[i - 1].second) return true;
    return false;
}

// The groups of analysed runs that are parts of one measurement.
inline std::vector<std::vector<std::size_t>> parts_among(const analysis_args& a, std::span<const run_stats> stats) {
    if (!some_windows_overlap(stats)) return {};
    return parts_of_one_measurement(stats, read_design(stats, design_options_of(a)));
}

// The run of each group, in order: `run_of(i)` gives run i as read (re-read from its file, or a copy
// of one in memory); each part takes the metadata its analysis had (the names its folder gave it).
template <class RunOf>
std::vector<run> combined_runs(const std::vector<std::vector<std::size_t>>& groups, std::span<const run_stats> stats, RunOf&& run_of) {
    std::vector<run> out;
    for (const auto& g : groups) {
        std::vector<run> parts;
        std::vector<const run_stats*> part_stats;
        for (const std::size_t i : g) {
            parts.push_back(run_of(i));
            parts.back().meta = stats[i].meta;
            part_stats.push_back(&stats[i]);
        }
        out.push_back(combine_parts(std::move(parts), part_stats));
    }
    return out;
}

// Whether run `i` is a part after the first of some group: its place goes to nobody.
inline bool later_part(const std::vector<std::vector<std::size_t>>& groups, std::size_t i) {
    for (const auto& g : groups)
        for (std::size_t k = 1; k < g.size(); ++k)
            if (g[k] == i) return true;
    return false;
}

// Analysed runs with each group of parts replaced, at its first part's place, by its combined run.
template <class RunOf>
std::vector<run_stats> with_parts_combined(std::vector<run_stats> stats, const std::vector<std::vector<std::size_t>>& groups,
                                           const stats_options& o, RunOf&& run_of) {
    if (groups.empty()) return stats;
    const auto combined = combined_runs(groups, stats, run_of);
    std::vector<run_stats> out;
    for (std::size_t i = 0; i < stats.size(); ++i) {
        if (later_part(groups, i)) continue;
        std::size_t group = groups.size();
        for (std::size_t g = 0; g < groups.size(); ++g)
            if (groups[g].front() == i) group = g;
        out.push_back(group < groups.size() ? analyze(combined[group], o) : std::move(stats[i]));
    }
    return out;
}

} // namespace servestat::app
