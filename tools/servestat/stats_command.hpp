// `servestat stats`: its command line; the work is the application layer's (servestat/app/stats.hpp).
#pragma once

#include <string>  // std::string
#include <vector>  // std::vector

#include <CLI/CLI.hpp> // CLI::App

#include <servestat/app/analysis_args.hpp> // to_stats_options, sweet_spot_constraints
#include <servestat/app/memory_args.hpp>   // check_sketch_alpha
#include <servestat/app/progress_display.hpp> // progress_display, progress_wanted
#include <servestat/app/stats.hpp>         // stats_args, stats_of_inputs, stats_json_text, stats_table_text
#include <servestat/core/visible_controls.hpp> // write_terminal

#include "analysis_options.hpp" // add_analysis_options, add_confidence_option, add_memory_options

namespace servestat::cli {

using app::stats_args;

inline void add_stats_options(CLI::App& cmd, stats_args& a) {
    add_analysis_options(cmd, a);
    add_confidence_option(cmd, a);
    cmd.add_flag("--json", a.json, "Print the JSON export (the contract of docs/json-export.md)");
    add_memory_options(cmd, a);
}

inline int run_stats_command(const stats_args& given) {
    const stats_options options = app::to_stats_options(given);
    app::sweet_spot_constraints(given); // a malformed --sweet-spot fails before the inputs are read
    app::check_sketch_alpha(given);
    app::progress_display progress(app::progress_wanted(given.quiet));
    stats_args a = given;
    a.progress = progress.state();
    std::vector<directory_listing> listings;
    const std::vector<run_stats> results = app::stats_of_inputs(a, options, &listings);
    const std::string text = a.json ? app::stats_json_text(a, results, options, listings)
                                    : app::stats_table_text(a, results, options, listings);
    progress.stop(); // the line cleared before standard output, which may be the same terminal
    write_terminal(stdout, text);
    return 0;
}

} // namespace servestat::cli
