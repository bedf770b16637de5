// servestat: from LLM-serving load-test logs to statistics and reports.
#include <exception> // std::exception
#include <string>    // std::string

#include <CLI/CLI.hpp>  // CLI::App
#include <fmt/format.h> // fmt::format

#include <servestat/core/visible_controls.hpp> // write_terminal

#include "compare_command.hpp" // compare_args, run_compare_command
#include "huge_pages.hpp"     // restart_with_huge_pages
#include "knee_command.hpp"   // knee_args, run_knee_command
#include "level_stats.hpp"    // analyze_log (defined below, for load.cpp)
#include "load_options.hpp"   // load_args, add_load_options, run_load_command
#include "report_command.hpp" // report_args, run_report_command, list_templates, dump_template
#include "simulate_options.hpp" // simulate_args, add_simulate_options, run_simulate_command
#include "stats_command.hpp"  // stats_args, run_stats_command
#include "summarize_command.hpp" // summarize_args, run_summarize_command
#include "tune_command.hpp"      // tune_args, add_tune_options, run_tune_command
#include "version.hpp"        // version_line
#include "workload_command.hpp" // workload_args, run_workload_command

namespace {

// Exit codes (DESIGN.md): 0 ok, 1 a comparison gate failed, 2 usage error, 3 input error.
constexpr int exit_usage = 2;
constexpr int exit_input = 3;

int fail(int code, const std::string& message) {
    servestat::write_terminal(stderr, fmt::format("servestat: {}\n", message));
    return code;
}

} // namespace

// Here, where the readers and analyze() are compiled for stats and report anyway (level_stats.hpp).
servestat::run_stats servestat::cli::analyze_log(const std::filesystem::path& log, const stats_options& options) {
    const auto runs = canonical_log_format.read(log, read_options{});
    return analyze(runs.front(), options);
}

int main(int argc, char** argv) {
    servestat::cli::restart_with_huge_pages(argv);
    CLI::App app{"servestat: statistics and reports for LLM-serving load tests"};
    app.require_subcommand(1);
    app.set_version_flag("--version", servestat::cli::version_line);

    servestat::cli::stats_args stats;
    auto* stats_cmd = app.add_subcommand("stats", "Summaries of every metric per run and prompt-length subset");
    servestat::cli::add_stats_options(*stats_cmd, stats);

    servestat::cli::summarize_args summarize;
    auto* summarize_cmd = app.add_subcommand("summarize", "Merge the statistics of a run's shards (logs or summaries) "
                                                          "into one summary file, which stats reads like a log");
    servestat::cli::add_summarize_options(*summarize_cmd, summarize);

    servestat::cli::report_args report;
    auto* report_cmd = app.add_subcommand("report", "Markdown and HTML report with plots and findings, plus JSON");
    servestat::cli::add_report_options(*report_cmd, report);

    servestat::cli::compare_args compare;
    auto* compare_cmd = app.add_subcommand("compare", "Before/after: change, bootstrap CI, Mann-Whitney p and verdict "
                                                      "per statistic; --fail-on for CI");
    servestat::cli::add_compare_options(*compare_cmd, compare);

    servestat::cli::knee_args knee;
    auto* knee_cmd = app.add_subcommand("knee", "Kneedle knee/elbow of a curve in a CSV file (kneed 0.8.x semantics)");
    servestat::cli::add_knee_options(*knee_cmd, knee);

    servestat::cli::load_args load;
    auto* load_cmd = app.add_subcommand("load", "Load test an OpenAI-compatible server and log every request "
                                                "(closed or open loop, trace replay, sweeps)");
    servestat::cli::add_load_options(*load_cmd, load);

    servestat::cli::tune_args tune;
    auto* tune_cmd = app.add_subcommand("tune", "Search server settings (a server started per configuration) for "
                                                "the most capacity within the SLOs, with intervals and a report");
    servestat::cli::add_tune_options(*tune_cmd, tune);

    servestat::cli::workload_args workload;
    auto* workload_cmd = app.add_subcommand("workload", "Workload JSONL for `servestat load`: prompt mixes by token "
                                                        "bucket (the notebook's presets), or synthetic prompts");
    servestat::cli::add_workload_options(*workload_cmd, workload);

    servestat::cli::simulate_args simulate;
    auto* simulate_cmd = app.add_subcommand("simulate", "A simulated vLLM server (OpenAI API, continuous batching) "
                                                        "to test and rehearse against");
    servestat::cli::add_simulate_options(*simulate_cmd, simulate);

    auto* templates_cmd = app.add_subcommand("templates", "The built-in report templates");
    templates_cmd->require_subcommand(1);
    auto* templates_list = templates_cmd->add_subcommand("list", "Names of the built-in templates");
    std::string template_name;
    auto* templates_dump = templates_cmd->add_subcommand("dump", "Print a built-in template, to copy and edit");
    templates_dump->add_option("name", template_name, "Template name (see list)")->required();

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int code = app.exit(e);
        return code == 0 ? 0 : exit_usage;
    }
    try {
        if (stats_cmd->parsed()) return servestat::cli::run_stats_command(stats);
        if (summarize_cmd->parsed()) return servestat::cli::run_summarize_command(summarize);
        if (report_cmd->parsed()) return servestat::cli::run_report_command(report);
        if (compare_cmd->parsed()) return servestat::cli::run_compare_command(compare);
        if (knee_cmd->parsed()) return servestat::cli::run_knee_command(knee);
        if (load_cmd->parsed()) return servestat::cli::run_load_command(load);
        if (tune_cmd->parsed()) return servestat::cli::run_tune_command(tune);
        if (workload_cmd->parsed())
            return servestat::cli::run_workload_command(workload, [](const servestat::cli::workload_args& w) {
                return servestat::cli::server_token_counter_for(w.url, w.api_key, w.model);
            });
        if (simulate_cmd->parsed()) return servestat::cli::run_simulate_command(simulate);
        if (templates_list->parsed()) return servestat::cli::list_templates();
        if (templates_dump->parsed()) return servestat::cli::dump_template(template_name);
    } catch (const servestat::unrecognised_input_error& e) { // say how to read it: a usage matter
        return fail(exit_usage, e.what());
    } catch (const servestat::input_error& e) {
        return fail(exit_input, e.what());
    } catch (const servestat::usage_error& e) {
        return fail(exit_usage, e.what());
    } catch (const std::exception& e) {
        return fail(exit_input, e.what());
    }
    return 0;
}
