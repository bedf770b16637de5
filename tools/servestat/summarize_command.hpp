// `servestat summarize`: its command line; the work is the application layer's
// (servestat/app/summarize.hpp).
#pragma once


#include <CLI/CLI.hpp>  // CLI::App
#include <fmt/format.h> // fmt::format

#include <servestat/app/analysis_args.hpp> // to_stats_options
#include <servestat/app/progress_display.hpp> // progress_display, progress_wanted
#include <servestat/app/summarize.hpp>     // summarize_args, summarize_inputs, write_summary_file
#include <servestat/core/errors.hpp>       // usage_error
#include <servestat/core/visible_controls.hpp> // write_terminal

#include "analysis_options.hpp" // add_analysis_options

namespace servestat::cli {

using app::summarize_args;

inline void add_summarize_options(CLI::App& cmd, summarize_args& a) {
    add_analysis_options(cmd, a);
    // A summary answers any percentile, method and ddof when read, and holds no sweep, window or price
    // nor energy (the command that reads it takes --cost-per-hour).
    for (const char* name : {"--percentiles", "--method", "--ddof", "--sweep-by", "--degradation", "--sweet-spot", "--steady-state",
                             "--cost-per-hour", "--gpus", "--power-metric"})
        cmd.remove_option(cmd.get_option(name));
    cmd.add_option("-o,--out", a.out, "Summary file to write (*.ssum.json, docs/json-export.md)")->required();
    cmd.add_option("--sketch-alpha", a.sketch_alpha, "Relative error of the percentiles' sketches (0.005 = within 0.5%)")
        ->capture_default_str();
}

inline int run_summarize_command(const summarize_args& given) {
    if (!(given.sketch_alpha > 0 && given.sketch_alpha < 1)) throw usage_error("--sketch-alpha must lie between 0 and 1");
    const stats_options o = app::to_stats_options(given);
    app::progress_display progress(app::progress_wanted(given.quiet));
    summarize_args a = given;
    a.progress = progress.state();
    const run_summary merged = app::summarize_inputs(a, o);
    progress.stop();
    app::write_summary_file(a.out, merged);
    write_terminal(stderr, fmt::format("servestat: {}: summary of {} requests\n", a.out, merged.stats.requests()));
    return 0;
}

} // namespace servestat::cli
