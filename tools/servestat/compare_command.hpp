// `servestat compare BEFORE AFTER`: did it help, by how much, and how sure are we. Prints the
// verdict table, writes compare.md / compare.html / compare.json with -o, and with --fail-on exits 1
// when a chosen statistic regressed beyond noise. The command line and the exit code are here; the
// work is the application layer's (servestat/app/compare.hpp).
#pragma once

#include <algorithm> // std::any_of
#include <cstddef>  // std::size_t
#include <optional> // std::optional
#include <string>   // std::string

#include <CLI/CLI.hpp>  // CLI::App
#include <fmt/format.h> // fmt::format

#include <servestat/app/compare.hpp>         // compare_args, to_comparison_options, read_compare_side, compare_sides, write_compare_report
#include <servestat/app/compare_table.hpp>   // compare_table_text
#include <servestat/app/memory_args.hpp>     // check_sketch_alpha, memory_limit_of
#include <servestat/app/progress_display.hpp> // progress_display, progress_wanted
#include <servestat/app/report_files.hpp>    // report_files, check_report_files
#include <servestat/compare/gate.hpp>        // parse_gate, gate_failures, validate(gate_rule)
#include <servestat/core/errors.hpp>         // usage_error
#include <servestat/core/visible_controls.hpp> // write_terminal
#include <servestat/report/compare_json.hpp> // gate_outcome
#include <servestat/report/compare_view.hpp> // compare_view_model
#include <servestat/report/stats_json.hpp>   // json

#include "analysis_options.hpp" // add_analysis_options, add_memory_options

namespace servestat::cli {

constexpr int exit_gate_failed = 1;

using app::compare_args;

inline void add_compare_options(CLI::App& cmd, compare_args& a) {
    cmd.add_option("before", a.before, "The baseline: a log, a directory or a glob (a run, runs or a sweep)")->required();
    cmd.add_option("after", a.after, "The candidate, in the same form")->required();
    add_analysis_options(cmd, a, false);
    cmd.add_option("--noise", a.noise, "Changes within ±this count as no change (2% or 0.02)")->capture_default_str();
    cmd.add_option("--alpha", a.alpha, "Significance level of the Mann–Whitney U test")->capture_default_str();
    cmd.add_option("--confidence", a.confidence, "Confidence level of the bootstrap intervals")->capture_default_str();
    cmd.add_option("--resamples", a.resamples, "Bootstrap resamples per statistic")->capture_default_str();
    cmd.add_option("--seed", a.seed, "Seed of the bootstrap (same seed, same intervals)")->capture_default_str();
    cmd.add_option("--metrics", a.metrics, "Metrics to compare (default: e2e, ttft, tpot, server_queue, server_prefill, "
                                           "server_decode, server_ttft, server_itl where the logs have them, and e2e_sched, client_queue when the client held requests "
                                           "back; also decode)")
        ->delimiter(',')
        ->allow_extra_args(false);
    cmd.add_option("--fail-on", a.fail_on, "Exit 1 when statistics regressed: 'regressed' (any) or "
                                           "'regressed:e2e.p99,ttft.p90'")
        // An unset CI variable gives '': a gate that gates nothing must not pass silently.
        ->check([](const std::string& rule) { return rule.empty() ? std::string("an empty rule gates nothing; expected regressed or regressed:e2e.p99") : std::string(); });
    cmd.add_option("-o,--output", a.out_dir, "Directory to write compare.md, compare.html, compare.json and plots/");
    cmd.add_option("--format", a.formats, "Formats to write with -o: md, html, json")
        ->delimiter(',')
        ->allow_extra_args(false)
        ->capture_default_str();
    cmd.add_option("--template", a.template_file, "A template replacing the built-in one (NAME.md.mustache or NAME.html.mustache)");
    cmd.add_option("--title", a.title, "Report title")->capture_default_str();
    cmd.add_flag("--json", a.json, "Print the comparison as JSON instead of the table");
    add_memory_options(cmd, a);
}

inline int run_compare_command(const compare_args& given) {
    const app::report_files files{given.out_dir, given.formats, given.template_file};
    app::check_report_files(files);
    app::progress_display progress(app::progress_wanted(given.quiet));
    compare_args a = given;
    a.progress = progress.state();
    const comparison_options o = app::to_comparison_options(a);
    app::check_sketch_alpha(a);
    std::optional<gate_outcome> gate;
    if (!a.fail_on.empty()) gate = gate_outcome{a.fail_on, parse_gate(a.fail_on), {}};
    if (a.before == "-" && a.after == "-") throw usage_error("standard input ('-') can be read once");
    const std::size_t limit = app::memory_limit_of(a);
    app::begin_reading_sides(a);
    const auto before = app::read_compare_side(a, a.before, o.compare.stats, limit);
    const auto after = app::read_compare_side(a, a.after, o.compare.stats, limit);
    const comparison c = app::compare_sides(before, after, o);
    if (gate) {
        validate(gate->rule, c);
        gate->failures = gate_failures(c, gate->rule, o.compare.verdicts.confidence);
    }
    json view = report::compare_view_model(c, o, gate, {.title = a.title});
    if (!a.out_dir.empty())
        app::write_compare_report(files, view, c, before.runs, after.runs, o, before.accumulators(), after.accumulators());
    const std::string text = a.json ? view["stats"].dump(2) + "\n" : app::compare_table_text(view);
    progress.stop(); // the line cleared before standard output, which may be the same terminal
    write_terminal(stdout, text);
    if (!gate || gate->failures.empty()) return 0;
    std::string failed;
    for (const auto& f : gate->failures)
        failed.append(failed.empty() ? "" : ", ")
            .append(f.load ? fmt::format("{}={:g} ", c.sweep ? c.sweep->param : "load", *f.load) : "")
            .append(f.failed->name)
            .append(f.untested ? " (" + f.reason + ")" : "");
    const bool untested = std::any_of(gate->failures.begin(), gate->failures.end(), [](const gate_failure& f) { return f.untested; });
    write_terminal(stderr, fmt::format("servestat: --fail-on {}: {}: {}\n", a.fail_on, untested ? "regressed or untested" : "regressed", failed));
    return exit_gate_failed;
}

} // namespace servestat::cli
