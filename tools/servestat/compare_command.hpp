// `servestat compare BEFORE AFTER`: did it help, by how much, and how sure are we. Prints the
// verdict table, writes compare.md / compare.html / compare.json with -o, and with --fail-on exits 1
// when a chosen statistic regressed beyond noise.
#pragma once

#include <algorithm>  // std::find, std::count_if, std::max
#include <charconv>   // std::from_chars
#include <cstdint>    // std::uint64_t
#include <cstdio>     // std::fputs
#include <optional>   // std::optional
#include <tuple>      // std::tuple
#include <string>     // std::string
#include <vector>     // std::vector

#include <CLI/CLI.hpp>  // CLI::App
#include <fmt/format.h> // fmt::format

#include <servestat/compare/gate.hpp>         // parse_gate, gate_failures
#include <servestat/report/compare_json.hpp>  // comparison_document, gate_outcome
#include <servestat/report/compare_view.hpp>  // compare_view_model, compare_plots, compare_findings

#include "analysis_options.hpp" // analysis_args, for_each_input_run
#include "bounded_inputs.hpp"   // memory_args, read_bounded_input, sketched_stats
#include "report_command.hpp"   // detail::report_files, detail::write_report

namespace servestat::cli {

constexpr int exit_gate_failed = 1;

struct compare_args : analysis_args, memory_args {
    std::string before, after;
    std::string noise = "2%";
    double alpha = 0.05;
    double confidence = 0.95;
    std::size_t resamples = 2000;
    std::uint64_t seed = bootstrap_options{}.seed;
    std::vector<std::string> metrics;
    std::string fail_on;
    std::string out_dir; // empty: print only
    std::vector<std::string> formats{"md", "html", "json"};
    std::string template_file;
    std::string title = "Before / after comparison";
    bool json = false;
    compare_args() { percentiles = {50, 90, 99}; }
};

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
                                           "server_decode, and e2e_sched, client_queue when the client held requests "
                                           "back; also decode)")
        ->delimiter(',')
        ->allow_extra_args(false);
    cmd.add_option("--fail-on", a.fail_on, "Exit 1 when statistics regressed: 'regressed' (any) or "
                                           "'regressed:e2e.p99,ttft.p90'");
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

namespace detail {

// "2%" or "0.02". A bare number of 1 or more is ambiguous (1% or 100%?) and refused.
inline double parse_noise(const std::string& text) {
    const bool percent = !text.empty() && text.back() == '%';
    const std::string number = percent ? text.substr(0, text.size() - 1) : text;
    double value = 0;
    const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
    if (ec != std::errc{} || end != number.data() + number.size() || number.empty())
        throw usage_error("--noise '" + text + "': expected a share such as 2% or 0.02");
    if (!percent && value >= 1) throw usage_error("--noise '" + text + "': write " + text + "% for a percentage");
    return percent ? value / 100 : value;
}

inline comparison_options to_comparison_options(const compare_args& a) {
    comparison_options o;
    o.compare.stats = to_stats_options(a);
    validate_confidence(a.confidence);
    o.compare.stats.summary.confidence = a.confidence; // --confidence drives the per-run intervals too
    o.compare.percentiles = a.percentiles;
    if (!a.metrics.empty()) {
        o.compare.metrics.clear();
        o.compare.add_client_queueing = false;
        for (const auto& m : a.metrics) o.compare.metrics.push_back(parse_metric(m));
    }
    o.compare.verdicts = {.noise = parse_noise(a.noise), .alpha = a.alpha, .confidence = a.confidence};
    o.compare.bootstrap = {.resamples = a.resamples, .seed = a.seed};
    o.sweep_by = a.sweep_by;
    o.degradation = a.degradation;
    validate(o.compare);
    return o;
}

inline std::vector<run> read_side(const compare_args& a, const std::string& input) {
    analysis_args side = a;
    side.logs = {input};
    std::vector<run> runs;
    for_each_input_run(side, [&](run&& r) { runs.push_back(std::move(r)); });
    name_inputs_apart(runs); // both sides by one rule, so runs pair by label across folders alike
    return runs;
}

// One side of a comparison: its runs kept whole, or its one run known by its statistics (a summary
// file, a log streamed past --memory-limit), which has no requests to resample.
struct compare_side {
    std::vector<run> runs;
    std::optional<bounded_input> bounded;
    bool sketched() const { return bounded && bounded->sketched; }
    std::vector<const run_accumulator*> accumulators() const {
        return {sketched() ? &*bounded->sketched : nullptr};
    }
};

inline compare_side read_compare_side(const compare_args& a, const std::string& input, const stats_options& o,
                                      std::size_t limit) {
    compare_side side;
    if (!is_bounded_input(input, limit)) {
        side.runs = read_side(a, input);
        return side;
    }
    if (a.steady_state)
        throw usage_error("--steady-state needs every request in memory: " +
                          (input == "-" ? std::string("save standard input to a file")
                                        : "'" + input + (is_summary_input(input) ? "' is a summary" : "' is larger than --memory-limit")));
    bounded_input in = read_bounded_input(input, a, a, o, limit, "compare");
    if (!in.sketched) { // it fit: a log like any other, with every test
        side.runs.push_back(std::move(in.whole));
        return side;
    }
    side.runs.push_back(in.whole); // its metadata only: it holds no requests
    side.bounded = std::move(in);
    return side;
}

// Sides of which one is known by its statistics only: their one pair, every statistic as a point
// value (compare_statistics), untested.
inline comparison compare_sketched_sides(const compare_side& before, const compare_side& after, const comparison_options& given) {
    for (const auto& [side, name, other] : {std::tuple{&before, "BEFORE", &after}, std::tuple{&after, "AFTER", &before}})
        if (side->runs.size() != 1)
            throw usage_error(fmt::format("{} holds {} runs, and {} is a summary or a streamed log: compare one run with one "
                                          "run (sweeps and labelled sets need every request)",
                                          name, side->runs.size(), other == &after ? "AFTER" : "BEFORE"));
    comparison_options o = given; // as compare() does, each side's statistics hold slo_percentile too
    auto& ps = o.compare.stats.summary.percentiles;
    if (std::find(ps.begin(), ps.end(), o.slo_percentile) == ps.end()) ps.push_back(o.slo_percentile);
    const auto stats_of = [&](const compare_side& s) {
        return s.sketched() ? sketched_stats(*s.bounded->sketched, s.bounded->whole, s.bounded->note, o.compare.stats)
                            : analyze(s.runs.front(), o.compare.stats);
    };
    return {"single", {{std::nullopt, compare_statistics(stats_of(before), stats_of(after), o.compare), 0, 0}}, std::nullopt, {}};
}

// compare.py's table: one block per pair, one line per statistic.
inline void print_table(const json& view) {
    std::size_t index = 0; // view["pairs"] and view["stats"]["pairs"] are both in comparison order
    for (const auto& pair : view["pairs"]) {
        std::fputs(fmt::format("{}\n", pair["heading"].get<std::string>()).c_str(), stdout);
        for (const char* side : {"before", "after"}) // e.g. the window --steady-state cut each run to
            for (const auto& note : view["stats"]["pairs"][index][side]["notes"])
                std::fputs(fmt::format("  {} note: {}\n", side, note.get<std::string>()).c_str(), stdout);
        ++index;
        // The change column is as wide as its widest entry (a sketched one carries its bound).
        std::size_t change_width = 22;
        const auto widen = [&](const json& rows) {
            for (const auto& row : rows) {
                const auto& text = row["change"].get_ref<const std::string&>();
                change_width = std::max<std::size_t>(change_width, std::count_if(text.begin(), text.end(), [](char c) {
                                                         return (static_cast<unsigned char>(c) & 0xC0) != 0x80; // code points
                                                     }));
            }
        };
        widen(pair["run_rows"]);
        for (const auto& subset : pair["subsets"]) widen(subset["rows"]);
        std::fputs(fmt::format("  {:<24} {:>12} {:>12} {:>{}} {:>20} {:>9}  {}\n", "statistic", "before", "after", "change",
                               change_width, "95% CI", "p", "verdict")
                       .c_str(),
                   stdout);
        auto print_row = [&](const json& row) {
            std::fputs(fmt::format("  {:<24} {:>12} {:>12} {:>{}} {:>20} {:>9}  {}\n", row["name"].get<std::string>(),
                                   row["before"].get<std::string>(), row["after"].get<std::string>(),
                                   row["change"].get<std::string>(), change_width, row["ci"].get<std::string>(),
                                   row["p"].get<std::string>(), row["verdict"].get<std::string>())
                           .c_str(),
                       stdout);
        };
        for (const auto& row : pair["run_rows"]) print_row(row);
        for (const auto& subset : pair["subsets"])
            for (const auto& row : subset["rows"]) print_row(row);
        std::fputs("\n", stdout);
    }
    for (const auto& f : view["findings"]) std::fputs(fmt::format("- {}\n", f["text"].get<std::string>()).c_str(), stdout);
}

} // namespace detail

inline int run_compare_command(const compare_args& a) {
    const detail::report_files files{a.out_dir, a.formats, a.template_file};
    detail::check(files);
    const comparison_options o = detail::to_comparison_options(a);
    check_sketch_alpha(a);
    std::optional<gate_outcome> gate;
    if (!a.fail_on.empty()) gate = gate_outcome{a.fail_on, parse_gate(a.fail_on), {}};
    if (a.before == "-" && a.after == "-") throw usage_error("standard input ('-') can be read once");
    const std::size_t limit = detail::memory_limit_of(a);
    const auto before_side = detail::read_compare_side(a, a.before, o.compare.stats, limit);
    const auto after_side = detail::read_compare_side(a, a.after, o.compare.stats, limit);
    const auto& before = before_side.runs;
    const auto& after = after_side.runs;
    const comparison c = before_side.sketched() || after_side.sketched()
                             ? detail::compare_sketched_sides(before_side, after_side, o)
                             : compare(before, after, o);
    if (gate) {
        validate(gate->rule, c);
        gate->failures = gate_failures(c, gate->rule);
    }
    json view = report::compare_view_model(c, o, gate, {.title = a.title});
    if (!a.out_dir.empty()) {
        const auto plots = report::compare_plot_set(c, before, after, o, before_side.accumulators(), after_side.accumulators());
        report::attach_compare_plots(view, plots);
        detail::write_report(files, "compare", view, report::all_plots(plots));
    }
    if (a.json) std::fputs((view["stats"].dump(2) + "\n").c_str(), stdout);
    else detail::print_table(view);
    if (!gate || gate->failures.empty()) return 0;
    std::string failed;
    for (const auto& f : gate->failures)
        failed.append(failed.empty() ? "" : ", ")
            .append(f.load ? fmt::format("{}={:g} ", c.sweep ? c.sweep->param : "load", *f.load) : "")
            .append(f.failed->name);
    std::fputs(fmt::format("servestat: --fail-on {}: regressed: {}\n", a.fail_on, failed).c_str(), stderr);
    return exit_gate_failed;
}

} // namespace servestat::cli
