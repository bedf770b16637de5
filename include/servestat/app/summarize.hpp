// `servestat summarize` as both front ends make it: each shard (a log, standard input, or a summary of
// shards) as a summary, in memory that does not grow with the number of requests for canonical logs,
// merged into the summary of the run.
#pragma once

#include <cstddef>  // std::size_t
#include <fstream>  // std::ofstream
#include <optional> // std::optional
#include <string>   // std::string
#include <utility>  // std::move

#include "servestat/app/analysis_args.hpp"      // analysis_args
#include "servestat/app/globs.hpp"              // expand_globs
#include "servestat/app/input_kind.hpp"         // classify_shard, input_kind
#include "servestat/app/input_runs.hpp"         // for_each_input_run, begin_reading, input_size
#include "servestat/core/errors.hpp"            // input_error, usage_error
#include "servestat/core/progress.hpp"          // progress_scope
#include "servestat/core/request_record.hpp"    // request_record
#include "servestat/core/run.hpp"               // run
#include "servestat/ingest/canonical_jsonl.hpp" // detail::stream_canonical_log
#include "servestat/ingest/reader.hpp"          // read_options
#include "servestat/report/summary_file.hpp"    // run_summary, read_summary_file, merge, summary_file_text
#include "servestat/stats/bounded_analysis.hpp" // piece_folder, bounded_options
#include "servestat/stats/run_accumulator.hpp"  // run_accumulator, default_sketch_alpha
#include "servestat/stats/run_stats.hpp"        // stats_options

namespace servestat::app {

struct summarize_args : analysis_args {
    std::string out;
    double sketch_alpha = default_sketch_alpha;
};

// One shard's summary: a canonical log (or standard input) request by request, any other log read
// whole; a file of several runs is refused (a summary is of one run).
inline run_summary summarize_shard(const std::string& input, const summarize_args& a, const stats_options& o) {
    const input_kind kind = classify_shard(input).kind;
    if (kind == input_kind::summary) {
        const progress_scope counted(a.progress, input, input_size(input));
        return read_summary_file(input);
    }
    run_summary out{{}, {}, run_accumulator(o, a.sketch_alpha)};
    if ((kind == input_kind::streamed_log || kind == input_kind::standard_input) && a.map.empty()) {
        const progress_scope counted(a.progress, input, input_size(input));
        read_options read;
        read.skip_bad = a.skip_bad;
        read.progress = counted.item();
        piece_folder pieces(out.stats, bounded_options{}.piece_requests);
        run r = servestat::detail::stream_canonical_log(input == "-" ? "/dev/stdin" : input, read,
                                                        [&](const request_record& q) { pieces.add(q); });
        pieces.flush();
        out.meta = std::move(r.meta);
        out.skipped = std::move(r.skipped);
        if (input == "-") out.meta.source.path = "-";
        return out;
    }
    summarize_args one = a;
    one.logs = {input};
    std::size_t runs = 0;
    for_each_input_run(one, [&](run&& r) {
        if (++runs > 1)
            throw usage_error("'" + input + "' holds several runs: summarize takes the shards of one run (give each run its own summary)");
        out.stats.add(r.requests);
        out.meta = std::move(r.meta);
        out.skipped = std::move(r.skipped);
    });
    return out;
}

// The summary of every shard of the inputs, merged in input order.
inline run_summary summarize_inputs(const summarize_args& a, const stats_options& o) {
    std::optional<run_summary> merged;
    const auto inputs = expand_globs(a.logs, warn_on_stderr);
    begin_reading(a, inputs);
    for (const auto& input : inputs) {
        auto shard = summarize_shard(input, a, o);
        if (!merged) merged = std::move(shard);
        else merge(*merged, shard);
    }
    if (!merged) throw usage_error("summarize needs at least one log, run or summary");
    return std::move(*merged);
}

// The summary file (*.ssum.json, docs/json-export.md).
inline void write_summary_file(const std::string& path, const run_summary& s) {
    std::ofstream file(path, std::ios::binary);
    file << summary_file_text(s);
    if (!file) throw input_error(path, 0, "", "cannot write the summary");
}

} // namespace servestat::app
