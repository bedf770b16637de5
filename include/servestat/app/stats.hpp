// What `servestat stats` computes from its inputs, and its two outputs: the JSON export (also the
// Python module's `stats()`) and the aligned text (app/stats_text.hpp). Inputs are read in order:
// logs that fit together, side by side; summaries, standard input and logs over --memory-limit one
// by one within the limit (app/bounded_inputs.hpp), each classified once (app/input_kind.hpp).
#pragma once

#include <algorithm> // std::count
#include <filesystem> // std::filesystem::path
#include <span>      // std::span
#include <cstddef>   // std::size_t
#include <optional>  // std::optional
#include <string>    // std::string
#include <vector>    // std::vector

#include "servestat/app/analysis_args.hpp"    // analysis_args, to_stats_options
#include "servestat/app/bounded_inputs.hpp"   // read_bounded_input, sketched_stats
#include "servestat/app/combined_parts.hpp"   // parts_among, with_parts_combined
#include "servestat/app/globs.hpp"            // expand_globs
#include "servestat/app/input_kind.hpp"       // classify_input, classified_input, input_kind
#include "servestat/app/input_runs.hpp"       // for_each_input_run, name_inputs_apart, record_cut, read_run_again
#include "servestat/app/memory_args.hpp"      // memory_args, memory_limit_of
#include "servestat/app/stats_text.hpp"       // format_stats_table, format_sweep_tables, format_grid_tables
#include "servestat/app/sweeps_and_grids.hpp" // analyze_sweeps, analyze_grids
#include "servestat/core/errors.hpp"          // usage_error
#include "servestat/experiment/design_view.hpp" // design_text, design_json, passed_over_input
#include "servestat/ingest/detect.hpp"        // directory_listing
#include "servestat/core/run.hpp"             // run
#include "servestat/report/stats_json.hpp"    // stats_document
#include "servestat/stats/run_stats.hpp"      // analyze, run_stats, stats_options
#include "servestat/stats/steady_state.hpp"   // steady_state

namespace servestat::app {

struct stats_args : analysis_args, memory_args {
    bool json = false;
};

namespace detail {

// A summary file, standard input or a canonical log over the limit: its statistics, sketched where
// it did not fit (a note says so). A summary keeps the subsets and SLOs it was made with.
inline run_stats bounded_stats(const classified_input& input, const stats_args& a, const stats_options& o, std::size_t limit) {
    if (a.steady_state && input.kind != input_kind::summary)
        throw usage_error(input.kind == input_kind::standard_input
                              ? "--steady-state needs every request in memory: save standard input to a file"
                              : "--steady-state needs every request in memory: '" + input.path + "' is larger than --memory-limit");
    const bounded_input in = read_bounded_input(input, a, a, o, limit);
    return in.sketched ? sketched_stats(*in.sketched, in.whole, in.note, o) : analyze(in.whole, o);
}

} // namespace detail

// The statistics of every run of the inputs, in input order, named apart; what directories held
// besides runs goes to `listings` when given.
inline std::vector<run_stats> stats_of_inputs(const stats_args& a, const stats_options& options,
                                              std::vector<directory_listing>* listings = nullptr) {
    const std::size_t limit = memory_limit_of(a);
    std::vector<run_stats> results;
    // Inputs in order; those read whole are read together (side by side), the others one by one.
    stats_args together = a;
    together.logs.clear();
    const auto read_together = [&] {
        if (together.logs.empty()) return;
        for_each_input_run(together, [&](run&& r, const std::optional<steady_state>& cut) {
            results.push_back(analyze(r, options));
            record_cut(results.back(), cut);
        }, listings);
        together.logs.clear();
    };
    const auto inputs = expand_globs(a.logs, warn_on_stderr);
    if (std::count(inputs.begin(), inputs.end(), "-") > 1) throw usage_error("standard input ('-') can be read once");
    begin_reading(a, inputs);
    for (const auto& path : inputs) {
        const classified_input input = classify_input(path, limit);
        if (!input.bounded()) {
            together.logs.push_back(path);
            continue;
        }
        read_together();
        results.push_back(detail::bounded_stats(input, a, options, limit));
    }
    read_together();
    name_inputs_apart(results);
    if (const auto groups = parts_among(a, results); !groups.empty()) {
        std::vector<run_source> sources;
        for (const auto& r : results) sources.push_back(r.meta.source);
        std::vector<std::size_t> requests;
        for (const auto& r : results) requests.push_back(r.requests);
        results = with_parts_combined(std::move(results), groups, options,
                                      [&](std::size_t i) { return read_run_again(a, sources[i], requests[i]); });
        name_inputs_apart(results);
    }
    return results;
}

// The JSON export of analysed runs, with their design and the sweeps and grids among them: what `stats --json` prints.
inline std::string stats_json_text(const analysis_args& a, const std::vector<run_stats>& results, const stats_options& options,
                                   std::span<const directory_listing> listings = {}) {
    const auto e = experiment_of(a, results);
    const auto sweeps = analyze_sweeps(a, e, options, 95);
    const auto replicated = e.replicated_points();
    return stats_document(results, options, sweeps, analyze_grids(a, e), &replicated,
                          design_json(e.design, passed_over_inputs(listings)))
               .dump(2) +
           "\n";
}

// What `stats` prints without --json: how the runs were read, each run's tables, then the sweeps' and grids'.
inline std::string stats_table_text(const analysis_args& a, const std::vector<run_stats>& results, const stats_options& options,
                                    std::span<const directory_listing> listings = {}) {
    const auto e = experiment_of(a, results);
    return design_text(e.design, passed_over_inputs(listings)) + "\n" +
           format_stats_table(results, options.summary.percentiles, options.summary.confidence) +
           format_sweep_tables(analyze_sweeps(a, e, options, 95)) + format_grid_tables(analyze_grids(a, e), results);
}

} // namespace servestat::app
