// Trends across weeks: runs of one workload ordered by their start date, each compared with the run
// before it and with the first, so a weekly report shows both the latest step and the drift.
#pragma once

#include <algorithm> // std::stable_sort
#include <cstddef>   // std::size_t
#include <cstdint>   // std::int64_t
#include <map>       // std::map
#include <optional>  // std::optional
#include <span>      // std::span
#include <string>    // std::string
#include <vector>    // std::vector

#include <fmt/format.h> // fmt::format

#include "servestat/compare/compare.hpp" // compare_runs, run_comparison, compare_options
#include "servestat/core/errors.hpp"     // usage_error
#include "servestat/core/iso_time.hpp"   // detail::parse_utc_time, detail::utc_time

namespace servestat {

// What a trend compares unless told otherwise: the latency a user feels, its median and tail.
inline compare_options default_trend_options() {
    compare_options o;
    o.metrics = {metric::e2e, metric::ttft};
    o.percentiles = {50, 90, 99};
    return o;
}

struct trend_step {
    std::size_t run = 0;                 // index into the runs given to follow_trend
    std::optional<detail::utc_time> started; // started_at, when it parses
    run_stats stats;
    std::optional<run_comparison> vs_previous, vs_first; // empty for the first run
};

struct trend {
    std::vector<trend_step> steps; // oldest first
    std::vector<std::string> notes;
};

namespace detail {

inline void note_mixed(std::span<const run> runs, const std::vector<std::size_t>& measured, const char* what,
                       std::string run_metadata::*field, std::vector<std::string>& notes) {
    std::map<std::string, std::size_t> seen;
    for (std::size_t i : measured) ++seen[runs[i].meta.*field];
    if (seen.size() < 2) return;
    std::string list;
    for (const auto& [value, count] : seen)
        list.append(list.empty() ? "" : ", ").append(fmt::format("{} ({})", value.empty() ? "unnamed" : value, count));
    notes.push_back(fmt::format("The runs differ in {}: {}. A trend compares like with like; read the changes "
                                "across them with care.",
                                what, list));
}

} // namespace detail

// Orders the runs with per-request data by started_at (all of them must have a date, else they keep
// the order given and a note says so) and compares each with its predecessor and with the first.
inline trend follow_trend(std::span<const run> runs, const compare_options& o = default_trend_options()) {
    validate(o);
    trend t;
    std::vector<std::size_t> measured;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        if (runs[i].meta.kind == run_kind::requests && !runs[i].requests.empty()) measured.push_back(i);
        else t.notes.push_back(fmt::format("{} has no per-request data and is not part of the trend.", runs[i].meta.label));
    }
    if (measured.size() < 2) throw usage_error("a trend needs at least two runs with per-request logs");
    std::vector<std::optional<detail::utc_time>> started(runs.size());
    bool all_dated = true;
    for (std::size_t i : measured) {
        started[i] = detail::parse_utc_time(runs[i].meta.started_at);
        all_dated = all_dated && started[i].has_value();
    }
    if (all_dated)
        std::stable_sort(measured.begin(), measured.end(), [&](std::size_t a, std::size_t b) { return *started[a] < *started[b]; });
    else
        t.notes.push_back("Some runs have no start date (started_at): all runs are shown in the order given.");
    detail::note_mixed(runs, measured, "workload", &run_metadata::workload, t.notes);
    detail::note_mixed(runs, measured, "model", &run_metadata::model, t.notes);
    for (std::size_t k = 0; k < measured.size(); ++k) {
        const std::size_t i = measured[k];
        trend_step step{i, started[i], analyze(runs[i], o.stats), std::nullopt, std::nullopt};
        if (k > 0) {
            step.vs_previous = compare_runs(runs[measured[k - 1]], runs[i], o);
            if (k > 1) step.vs_first = compare_runs(runs[measured.front()], runs[i], o);
            else step.vs_first = step.vs_previous;
        }
        t.steps.push_back(std::move(step));
    }
    return t;
}

} // namespace servestat
