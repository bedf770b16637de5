// A row of a table of runs that restates a run read from its own file (docs/sweeps.md#files-that-are-not-runs):
// an author's CSV of the sweep beside the sweep's result files, whose rows copy each run's rate,
// throughput and percentiles. Read as runs of their own, the rows would count every run twice, and
// their columns (a `profile` word the result files carry only in their names) would make
// configurations of their own. A copy in the same format is found by its fingerprint (detect.hpp);
// a copy in another format has only its values to show it.
//
// The evidence is the values, never a name: the row and the run share three reported values or more
// (`rps`, `ttft.p50`, … under servestat's names, converted to its units by both readers), every one of
// them equal within the rounding a tool prints (derived_aggregate.hpp's 0.5%), and no count that
// differs. Three agreeing rates and percentiles do not meet by chance, while a row of another run at
// the same settings (a replicate) differs in its measured values.
#pragma once

#include <cstddef>  // std::size_t
#include <map>      // std::map
#include <optional> // std::optional
#include <set>      // std::set
#include <span>     // std::span
#include <string>   // std::string

#include "servestat/core/run.hpp"                // run, reported_value
#include "servestat/ingest/derived_aggregate.hpp" // derived_tolerance, detail::within_rounding

namespace servestat {

// What a directory read keeps of a run to find a row that restates it: its tool's own values.
struct run_values {
    std::string path;
    std::map<std::string, double> values; // reported values by name, the first of each name
};

inline run_values values_of(const run& r) {
    run_values out{r.meta.source.path, {}};
    for (const auto& v : r.meta.reported) out.values.try_emplace(v.name, v.value);
    return out;
}

// The fewest measured values a row and a run must share, all agreeing, for the row to restate the run.
inline constexpr std::size_t restated_values_needed = 3;

namespace detail {

// A value that tells one measurement from another: a rate, a latency or a throughput, not zero. Counts
// and token sizes are alike in runs of one workload (every run of 100 prompts completed 100, the same
// seed gives the same prompts), and a dead run's zeros in every other dead run.
inline bool tells_runs_apart(const std::string& name, double value) {
    if (value == 0) return false;
    if (name == "ok" || name == "failed" || name == "requests" || name == "duration") return false;
    return name.find("tokens") == std::string::npos && name.find("concurren") == std::string::npos;
}

} // namespace detail

// Whether `row` restates `r`: every value both give agrees within `tolerance` (a printed table's
// rounding), counts included, and at least three of them are measured values.
inline bool restates(const run_values& row, const run_values& r, double tolerance = derived_tolerance) {
    std::size_t measured = 0;
    for (const auto& [name, value] : row.values) {
        const auto at = r.values.find(name);
        if (at == r.values.end()) continue;
        if (!detail::within_rounding(value, at->second, tolerance)) return false;
        measured += detail::tells_runs_apart(name, value);
    }
    return measured >= restated_values_needed;
}

// Whether a tool's console output restates its own result file: the values it prints at full
// precision (LLMPerf's) equal the file's to the last digits, three measured values at least and none
// that differs. Replicates of a stable run agree within 0.5%, never to 1e-9.
inline bool console_restates(const run_values& console, const run_values& result) {
    return restates(console, result, 1e-9);
}

// The run among `runs` (each read from a file of its own) that `row` restates and no earlier row
// took (`taken`, updated), or nothing.
inline std::optional<std::size_t> restated_run(const run_values& row, std::span<const run_values> runs,
                                               std::set<std::size_t>& taken) {
    for (std::size_t i = 0; i < runs.size(); ++i)
        if (!taken.contains(i) && runs[i].path != row.path && restates(row, runs[i])) {
            taken.insert(i);
            return i;
        }
    return std::nullopt;
}

} // namespace servestat
