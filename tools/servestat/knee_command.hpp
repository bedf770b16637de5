// `servestat knee`: its command line; the work is the application layer's (servestat/app/knee.hpp).
#pragma once

#include <string> // std::string

#include <CLI/CLI.hpp> // CLI::App, CLI::IsMember

#include <servestat/app/knee.hpp>      // knee_args, read_knee_csv, to_kneedle_options, knee_json, format_knee
#include <servestat/core/visible_controls.hpp> // write_terminal
#include <servestat/sweep/kneedle.hpp> // find_knee, kneedle_options, knee_result

namespace servestat::cli {

using app::knee_args;

inline void add_knee_options(CLI::App& cmd, knee_args& a) {
    cmd.add_option("file", a.file, "CSV file with a header row")->required();
    cmd.add_option("--x", a.x_column, "Column of x, e.g. concurrency (default: the first column)");
    cmd.add_option("--y", a.y_column, "Column of y, e.g. rps or p99_s (default: the second column)");
    cmd.add_option("--curve", a.curve, "concave (a knee: levelling off) or convex (an elbow); default: detected")
        ->check(CLI::IsMember({"concave", "convex"}));
    cmd.add_option("--direction", a.direction, "increasing or decreasing; default: detected")
        ->check(CLI::IsMember({"increasing", "decreasing"}));
    cmd.add_option("--S", a.S, "Sensitivity: grid steps of flatness needed after a knee (larger: later or none)")
        ->capture_default_str();
    cmd.add_flag("--online", a.online, "Scan the whole curve: report the last knee and list every knee found");
    cmd.add_flag("--all-knees", a.all_knees,
                 "List every knee with kneed's all_knees, all_knees_y, all_norm_knees, all_norm_knees_y "
                 "(scans the whole curve, as --online)");
    cmd.add_option("--interp", a.interp, "interp1d (the data as measured) or polynomial (a least-squares fit first)")
        ->check(CLI::IsMember({"interp1d", "polynomial"}))
        ->capture_default_str();
    cmd.add_option("--degree", a.degree, "Degree of the polynomial for --interp polynomial")->capture_default_str();
    cmd.add_flag("--json", a.json, "Print the result as JSON");
}

inline int run_knee_command(const knee_args& a) {
    const kneedle_options options = app::to_kneedle_options(a);
    const app::knee_input in = app::read_knee_csv(a.file, a.x_column, a.y_column);
    const knee_result k = find_knee(in.x, in.y, options);
    const std::string text = a.json ? app::knee_json(a, in, k).dump(2) + "\n" : app::format_knee(a, in, k);
    write_terminal(stdout, text);
    return 0;
}

} // namespace servestat::cli
