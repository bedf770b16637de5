// servestat: from LLM-serving load-test logs to statistics and reports.
#include <cstdio>    // std::fputs
#include <exception> // std::exception
#include <string>    // std::string

#include <CLI/CLI.hpp>  // CLI::App
#include <fmt/format.h> // fmt::format

#include "stats_command.hpp" // stats_args, run_stats_command

namespace {

// Exit codes (DESIGN.md): 0 ok, 1 a comparison gate failed, 2 usage error, 3 input error.
constexpr int exit_usage = 2;
constexpr int exit_input = 3;

int fail(int code, const std::string& message) {
    std::fputs(fmt::format("servestat: {}\n", message).c_str(), stderr);
    return code;
}

} // namespace

int main(int argc, char** argv) {
    CLI::App app{"servestat: statistics and reports for LLM-serving load tests"};
    app.require_subcommand(1);
    app.set_version_flag("--version", "servestat 0.1.0");

    servestat::cli::stats_args stats;
    auto* stats_cmd = app.add_subcommand("stats", "Summaries of every metric per run and prompt-length subset");
    servestat::cli::add_stats_options(*stats_cmd, stats);

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int code = app.exit(e);
        return code == 0 ? 0 : exit_usage;
    }
    try {
        if (stats_cmd->parsed()) return servestat::cli::run_stats_command(stats);
    } catch (const servestat::input_error& e) {
        return fail(exit_input, e.what());
    } catch (const servestat::usage_error& e) {
        return fail(exit_usage, e.what());
    } catch (const std::exception& e) {
        return fail(exit_input, e.what());
    }
    return 0;
}
