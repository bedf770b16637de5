// `servestat report` (logs to report.md, report.html, report.json and plots/; --trend) and
// `servestat templates` (list or dump the built-in templates): their command lines; the work is the
// application layer's (servestat/app/report.hpp).
#pragma once

#include <cstdio>     // std::fwrite
#include <filesystem> // std::filesystem::path
#include <string>     // std::string

#include <CLI/CLI.hpp>  // CLI::App
#include <fmt/format.h> // fmt::format

#include <servestat/app/group_by.hpp>             // group_args
#include <servestat/app/memory_args.hpp>          // check_sketch_alpha
#include <servestat/app/progress_display.hpp>     // progress_display, progress_wanted
#include <servestat/app/report.hpp>               // report_args, read_report_inputs, write_runs_report, write_trend_report
#include <servestat/app/report_files.hpp>         // check_report_files
#include <servestat/core/errors.hpp>              // usage_error
#include <servestat/core/visible_controls.hpp>    // write_terminal
#include <servestat/report/builtin_templates.hpp> // builtin_templates, find_builtin_template

#include "analysis_options.hpp" // add_analysis_options, add_confidence_option, add_memory_options

namespace servestat::cli {

using app::report_args;

// --group-by and --window (the cross-run view grouped by model or configuration).
inline void add_group_options(CLI::App& cmd, app::group_args& a) {
    auto* by = cmd.add_option("--group-by", a.by,
                              "Group runs by a metadata key (model, label, workload, tool, a run parameter) or by "
                              "NAME=REGEX, the first capture group of REGEX in each file name, e.g. "
                              "'model=_([0-9]+b)\\.json$'");
    auto* window = cmd.add_option("--window", a.window,
                                  "With --group-by: cut each run into time bins of this many seconds by send time, "
                                  "each bin one member measurement (runs with a shared clock)");
    window->needs(by);
    if (auto* trend = cmd.get_option_no_throw("--trend")) by->excludes(trend);
}

inline void add_report_options(CLI::App& cmd, report_args& a) {
    add_analysis_options(cmd, a);
    add_confidence_option(cmd, a);
    cmd.add_option("-o,--output", a.out_dir, "Directory to write report.md, report.html, report.json and plots/")
        ->capture_default_str();
    cmd.add_option("--format", a.formats, "Formats to write: md, html, json")->delimiter(',')->allow_extra_args(false)->capture_default_str();
    cmd.add_option("--template", a.template_file,
                   "A template replacing the built-in one of its format (NAME.md.mustache or NAME.html.mustache)");
    cmd.add_option("--title", a.title, "Report title")->capture_default_str();
    cmd.add_flag("--trend", a.trend,
                 "Runs of one workload over time: order them by start date and compare each with the previous "
                 "and the first (trend.md, trend.html, trend.json)");
    add_group_options(cmd, a.group);
    add_memory_options(cmd, a);
}

namespace detail {

inline void say_written(const report_args& a, const std::string& kind) {
    write_terminal(stdout, fmt::format("wrote {}\n", (std::filesystem::path(a.out_dir) / (kind + ".*")).string()));
}

} // namespace detail

inline int run_report_command(const report_args& given) {
    app::check_report_files(app::report_files_of(given));
    app::check_sketch_alpha(given);
    app::progress_display progress(app::progress_wanted(given.quiet));
    report_args a = given;
    a.progress = progress.state();
    if (a.trend) {
        app::write_trend_report(a);
        progress.stop();
        detail::say_written(a, "trend");
        return 0;
    }
    const stats_options options = app::report_stats_options(a);
    app::write_runs_report(a, options, app::read_report_inputs(a, options));
    progress.stop();
    detail::say_written(a, "report");
    return 0;
}

inline int list_templates() {
    for (const auto& t : builtin_templates) write_terminal(stdout, fmt::format("{}\n", t.name));
    return 0;
}

inline int dump_template(const std::string& name) {
    const auto* t = find_builtin_template(name);
    if (t == nullptr) throw usage_error("no built-in template '" + name + "' (see: servestat templates list)");
    std::fwrite(t->text.data(), 1, t->text.size(), stdout);
    return 0;
}

} // namespace servestat::cli
