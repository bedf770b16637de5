// `servestat summarize`: the statistics of a run's shards (logs, or summaries of shards) merged into
// one summary file, in memory that does not grow with the number of requests (docs/cli.md).
#pragma once

#include <cstdio>   // std::fputs
#include <fstream>  // std::ofstream
#include <optional> // std::optional
#include <string>   // std::string
#include <vector>   // std::vector

#include <CLI/CLI.hpp>  // CLI::App
#include <fmt/format.h> // fmt::format

#include <servestat/servestat.hpp>
#include <servestat/report/summary_file.hpp> // run_summary, read_summary_file, merge, summary_file_text
#include <servestat/stats/bounded_analysis.hpp> // piece_folder, bounded_options

#include "analysis_options.hpp" // analysis_args, for_each_input_run
#include "bounded_inputs.hpp"   // detail::is_summary_input

namespace servestat::cli {

struct summarize_args : analysis_args {
    std::string out;
    double sketch_alpha = default_sketch_alpha;
};

inline void add_summarize_options(CLI::App& cmd, summarize_args& a) {
    add_analysis_options(cmd, a);
    // A summary answers any percentile, method and ddof when read, and holds no sweep or window.
    for (const char* name : {"--percentiles", "--method", "--ddof", "--sweep-by", "--degradation", "--sweet-spot", "--steady-state"})
        cmd.remove_option(cmd.get_option(name));
    cmd.add_option("-o,--out", a.out, "Summary file to write (*.ssum.json, docs/json-export.md)")->required();
    cmd.add_option("--sketch-alpha", a.sketch_alpha, "Relative error of the percentiles' sketches (0.005 = within 0.5%)")
        ->capture_default_str();
}

namespace detail {

inline bool is_canonical_input(const std::string& input) {
    std::error_code ec;
    return input == "-" || (std::filesystem::is_regular_file(input, ec) &&
                            servestat::detail::sniff_canonical_log(servestat::detail::read_input_head(input, 1 << 12)) > 0);
}

// One shard's summary: a canonical log (or standard input) request by request, any other log read
// whole; a file of several runs is refused (a summary is of one run).
inline run_summary summarize_shard(const std::string& input, const summarize_args& a, const stats_options& o) {
    if (is_summary_input(input)) return read_summary_file(input);
    run_summary out{{}, {}, run_accumulator(o, a.sketch_alpha)};
    if (is_canonical_input(input) && a.map.empty()) {
        read_options read;
        read.skip_bad = a.skip_bad;
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

} // namespace detail

inline int run_summarize_command(const summarize_args& a) {
    if (!(a.sketch_alpha > 0 && a.sketch_alpha < 1)) throw usage_error("--sketch-alpha must lie between 0 and 1");
    const stats_options o = to_stats_options(a);
    std::optional<run_summary> merged;
    for (const auto& input : expand_globs(a.logs)) {
        auto shard = detail::summarize_shard(input, a, o);
        if (!merged) merged = std::move(shard);
        else merge(*merged, shard);
    }
    std::ofstream file(a.out, std::ios::binary);
    file << summary_file_text(*merged);
    if (!file) throw input_error(a.out, 0, "", "cannot write the summary");
    std::fputs(fmt::format("servestat: {}: summary of {} requests\n", a.out, merged->stats.requests()).c_str(), stderr);
    return 0;
}

} // namespace servestat::cli
