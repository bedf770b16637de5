// `servestat report` (logs to report.md, report.html, report.json and plots/) and
// `servestat templates` (list or dump the built-in templates).
#pragma once

#include <algorithm>  // std::find, std::count
#include <cstdio>     // std::fputs
#include <filesystem> // std::filesystem
#include <fstream>    // std::ofstream
#include <optional>   // std::optional
#include <sstream>    // std::ostringstream
#include <string>     // std::string
#include <vector>     // std::vector

#include <CLI/CLI.hpp>  // CLI::App
#include <fmt/format.h> // fmt::format

#include <servestat/report/accounting.hpp>        // account_inputs, inputs_json, accounting_view
#include <servestat/report/builtin_templates.hpp> // builtin_templates, find_builtin_template
#include <servestat/report/plot_file.hpp>         // plot_file
#include <servestat/report/plots.hpp>             // run_plots, comparison_plots
#include <servestat/report/render.hpp>            // render, markup
#include <servestat/report/grid_view.hpp>         // grid_plots
#include <servestat/report/sweep_view.hpp>        // sweep_plots
#include <servestat/report/trend_view.hpp>        // trend_view_model, trend_plots
#include <servestat/report/view_model.hpp>        // build_view_model

#include "analysis_options.hpp" // analysis_args, for_each_input_run
#include "bounded_inputs.hpp"   // memory_args, read_bounded_input, sketched_stats
#include "group_by.hpp"         // group_args, add_group_options, attach_groups

namespace servestat::cli {

struct report_args : analysis_args, memory_args {
    std::string out_dir = "report";
    std::vector<std::string> formats{"md", "html", "json"};
    std::string template_file;
    std::string title = "Load test report";
    bool trend = false;
    group_args group; // --group-by, --window
};

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

inline std::string read_text_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw input_error(path, 0, "", "cannot open file");
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

inline void write_text_file(const std::filesystem::path& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
    if (!out) throw input_error(path.string(), 0, "", "cannot write file");
}

// The template of a report kind ("report", "compare", "trend") for a format: the user's when its name
// says it is for that format, else built in.
inline std::pair<std::string, std::string> template_for(const std::string& kind, const std::string& format,
                                                        const std::string& user_file) {
    const std::string suffix = "." + format + ".mustache";
    if (!user_file.empty() && user_file.size() > suffix.size() &&
        user_file.compare(user_file.size() - suffix.size(), suffix.size(), suffix) == 0)
        return {user_file, read_text_file(user_file)};
    const auto* builtin = find_builtin_template(kind + "." + format);
    if (builtin == nullptr) throw usage_error("no built-in template " + kind + "." + format);
    return {std::string(builtin->name), std::string(builtin->text)};
}

// Adds the plot list to each run's view (Markdown links the file, HTML inlines the SVG).
inline json plot_entries(const std::vector<report::plot_file>& plots) {
    json list = json::array();
    for (const auto& p : plots) list.push_back({{"title", p.title}, {"file", "plots/" + p.name}, {"svg", p.svg}});
    return list;
}

inline void attach_plots(json& view, const std::vector<std::vector<report::plot_file>>& per_run,
                         const std::vector<report::plot_file>& comparison) {
    for (std::size_t i = 0; i < per_run.size(); ++i) view["runs"][i]["plots"] = plot_entries(per_run[i]);
    view["comparison_plots"] = plot_entries(comparison);
}

// Where and how a report is written: shared by report, report --trend and compare.
struct report_files {
    std::string out_dir;
    std::vector<std::string> formats;
    std::string template_file;
};

inline void check(const report_files& f) {
    for (const auto& format : f.formats)
        if (format != "md" && format != "html" && format != "json")
            throw usage_error("unknown report format '" + format + "' (md, html, json)");
    if (!f.template_file.empty() && f.template_file.find(".md.mustache") == std::string::npos &&
        f.template_file.find(".html.mustache") == std::string::npos)
        throw usage_error("--template: name the file NAME.md.mustache or NAME.html.mustache to say its format");
}

// Writes KIND.md / KIND.html from the view and KIND.json from its "stats", plus the plots.
inline void write_report(const report_files& f, const std::string& kind, const json& view,
                         const std::vector<report::plot_file>& plots) {
    namespace fs = std::filesystem;
    const fs::path dir(f.out_dir);
    fs::create_directories(dir);
    if (!plots.empty()) fs::create_directories(dir / "plots");
    for (const auto& p : plots) write_text_file(dir / "plots" / p.name, p.svg);
    for (const auto& format : f.formats) {
        if (format == "json") {
            write_text_file(dir / (kind + ".json"), view["stats"].dump(2) + "\n");
            continue;
        }
        const auto [name, text] = template_for(kind, format, f.template_file);
        write_text_file(dir / (kind + "." + format), render(text, view, format == "html" ? markup::html : markup::markdown, name));
    }
}

inline report_files files_of(const report_args& a) { return {a.out_dir, a.formats, a.template_file}; }

// The runs of a report in input order: `runs[i]` is kept whole, or (`sketched[i]` set: a summary
// file, a log streamed past --memory-limit) holds only its metadata and skipped lines.
struct report_inputs {
    std::vector<run> runs;
    std::vector<std::optional<steady_state>> cuts; // --steady-state: the window each run was cut to
    std::vector<std::optional<run_accumulator>> sketched;
    std::vector<std::string> notes; // per run: what its sketched statistics say about themselves
    std::vector<directory_listing> listings; // directories that held files besides the runs read

    void add(run&& r, std::optional<steady_state> cut = std::nullopt, std::optional<run_accumulator> acc = std::nullopt,
             std::string note = {}) {
        runs.push_back(std::move(r));
        cuts.push_back(std::move(cut));
        sketched.push_back(std::move(acc));
        notes.push_back(std::move(note));
    }
};

// What needs every request of every run, refused up front for summaries, standard input and logs
// over the limit (as stats refuses --steady-state for them).
inline void refuse_whole_run_options(const report_args& a, const std::string& input) {
    const std::string why = input == "-"              ? "save standard input to a file"
                            : is_summary_input(input) ? "'" + input + "' is a summary"
                                                      : "'" + input + "' is larger than --memory-limit";
    if (a.steady_state) throw usage_error("--steady-state needs every request in memory: " + why);
    if (a.trend) throw usage_error("--trend bootstraps every request of each run: " + why);
    if (!a.group.by.empty()) throw usage_error("--group-by needs every request of each run: " + why);
}

// Reads the inputs in order: logs that fit together (side by side), the others one by one within
// the limit.
inline report_inputs read_report_inputs(const report_args& a, const stats_options& o) {
    const std::size_t limit = memory_limit_of(a);
    const auto inputs = expand_globs(a.logs);
    if (std::count(inputs.begin(), inputs.end(), "-") > 1) throw usage_error("standard input ('-') can be read once");
    for (const auto& input : inputs)
        if (is_bounded_input(input, limit)) refuse_whole_run_options(a, input);
    report_inputs out;
    report_args together = a;
    together.logs.clear();
    const auto read_together = [&] {
        if (together.logs.empty()) return;
        for_each_input_run(
            together, [&](run&& r, const std::optional<steady_state>& cut) { out.add(std::move(r), cut); }, &out.listings);
        together.logs.clear();
    };
    for (const auto& input : inputs) {
        if (!is_bounded_input(input, limit)) {
            together.logs.push_back(input);
            continue;
        }
        read_together();
        bounded_input in = read_bounded_input(input, a, a, o, limit, "report");
        out.add(std::move(in.whole), std::nullopt, std::move(in.sketched), std::move(in.note));
    }
    read_together();
    name_inputs_apart(out.runs);
    return out;
}

// "Read from DIR: 10 logs; passed over 2 files: SOURCE.md (no format recognises it), …": what the
// report's directories held besides its runs, at the foot of the report.
inline json inputs_view(const std::vector<directory_listing>& listings) {
    json out = json::array();
    for (const auto& l : listings) {
        std::string passed;
        for (const auto& f : l.passed_over)
            passed.append(passed.empty() ? "" : ", ")
                .append(std::filesystem::path(f.path).lexically_relative(l.directory).generic_string())
                .append(" (" + f.reason + ")");
        out.push_back({{"text", fmt::format("Read from {}: {} log{}; passed over {} file{}: {}.", l.directory, l.logs,
                                            l.logs == 1 ? "" : "s", l.passed_over.size(), l.passed_over.size() == 1 ? "" : "s",
                                            passed)}});
    }
    return out;
}

inline void say_written(const report_args& a, const std::string& kind) {
    std::fputs(fmt::format("wrote {}\n", (std::filesystem::path(a.out_dir) / (kind + ".*")).string()).c_str(), stdout);
}

} // namespace detail

inline int run_trend_report(const report_args& a) {
    compare_options o = default_trend_options();
    o.stats = to_stats_options(a);
    std::vector<run> runs;
    for_each_input_run(a, [&](run&& r) { runs.push_back(std::move(r)); });
    const trend t = follow_trend(runs, o);
    const std::string title = a.title == report_args{}.title ? "Trend across runs" : a.title;
    const auto plots = report::trend_plots(t, runs, o.stats.summary.confidence);
    detail::write_report(detail::files_of(a), "trend", report::trend_view_model(t, runs, o, title, plots), plots);
    detail::say_written(a, "trend");
    return 0;
}

// The statistics options of a report: the command's, and the percentile its SLO verdicts read.
inline stats_options report_stats_options(const report_args& a) {
    stats_options options = to_stats_options(a);
    const double slo_percentile = report::report_options{}.slo_percentile;
    if (std::find(options.summary.percentiles.begin(), options.summary.percentiles.end(), slo_percentile) ==
        options.summary.percentiles.end())
        options.summary.percentiles.push_back(slo_percentile);
    return options;
}

// The report of runs already read (options from report_stats_options): report.md, report.html,
// report.json and plots/ in a.out_dir. The Python module hands it runs it holds in memory.
inline void write_runs_report(const report_args& a, const stats_options& options, const detail::report_inputs& in) {
    detail::check(detail::files_of(a));
    report::report_options ro;
    ro.title = a.title;
    const std::vector<run>& runs = in.runs;
    const auto& cuts = in.cuts;
    std::vector<report::analysed_run> analysed;
    std::vector<run_stats> stats;
    std::vector<std::optional<std::size_t>> sketched_requests; // the rows each sketched run stands for
    std::vector<const run_accumulator*> sketched;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        if (in.sketched[i]) // no per-request fit of e2e to output tokens
            analysed.push_back({sketched_stats(*in.sketched[i], runs[i], in.notes[i], options), std::nullopt});
        else
            analysed.push_back(report::analyse(runs[i], options));
        record_cut(analysed.back().stats, cuts[i]);
        stats.push_back(analysed.back().stats);
        sketched_requests.push_back(in.sketched[i] ? std::optional<std::size_t>(stats.back().requests) : std::nullopt);
        sketched.push_back(in.sketched[i] ? &*in.sketched[i] : nullptr);
    }
    const auto sweeps = analyze_sweeps(a, stats, options, ro.slo_percentile);
    const auto grids = analyze_grids(a, stats);
    json view = report::build_view_model(analysed, options, ro, sweeps, grids);
    view["inputs"] = detail::inputs_view(in.listings);
    const auto inputs = report::account_inputs(runs, cuts, sketched_requests);
    const auto left_out = runs_left_out(a, stats, grids);
    view["stats"]["inputs"] = report::inputs_json(inputs);
    view["stats"]["left_out"] = report::left_out_json(stats, left_out);
    view["accounting"] = report::accounting_view(inputs, stats, left_out);

    const auto prefixes = report::plot_prefixes(stats);
    std::vector<std::vector<report::plot_file>> plots;
    std::vector<const run*> run_pointers;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        auto files = sketched[i] ? report::sketched_run_plots(*sketched[i], stats[i], prefixes[i])
                                 : report::run_plots(runs[i], stats[i], prefixes[i], options.subsets, options.threads);
        plots.push_back(runs.size() > 1 ? report::appendix_plots(std::move(files)) : std::move(files));
        run_pointers.push_back(&runs[i]);
    }
    std::vector<std::size_t> knee_runs; // each sweep's saturation point, kept in colour among many runs
    for (const auto& s : sweeps)
        for (const auto& k : s.knees)
            if (k.curve == "throughput" && k.load)
                for (const auto& p : s.curve.points)
                    if (p.load == *k.load) knee_runs.push_back(p.run);
    auto all_plots = runs.size() > 1 ? report::comparison_plots(run_pointers, stats, knee_runs, sketched)
                                     : std::vector<report::plot_file>{};
    detail::attach_plots(view, plots, all_plots);
    for (const auto& list : plots) all_plots.insert(all_plots.end(), list.begin(), list.end());
    for (std::size_t i = 0; i < sweeps.size(); ++i) {
        auto files = report::sweep_plots(sweeps[i], fmt::format("sweep-{}", i + 1), report::sweep_short_name(sweeps[i], i),
                                         options.summary.confidence);
        view["sweeps"][i]["plots"] = detail::plot_entries(files);
        all_plots.insert(all_plots.end(), files.begin(), files.end());
    }
    std::vector<std::string> sweep_names;
    for (std::size_t i = 0; i < sweeps.size(); ++i) sweep_names.push_back(report::sweep_short_name(sweeps[i], i));
    const auto overlays = report::sweeps_overlay_plots(sweeps, sweep_names, options.summary.confidence);
    view["sweep_overlays"] = detail::plot_entries(overlays);
    view["has_sweep_overlays"] = !overlays.empty();
    all_plots.insert(all_plots.end(), overlays.begin(), overlays.end());
    for (std::size_t i = 0; i < grids.size(); ++i) {
        auto files = report::grid_plots(grids[i], stats, fmt::format("grid-{}", i + 1));
        view["grids"][i]["plots"] = detail::plot_entries(files);
        all_plots.insert(all_plots.end(), files.begin(), files.end());
    }
    attach_groups(view, all_plots, a.group, runs, options);
    detail::write_report(detail::files_of(a), "report", view, all_plots);
}

inline int run_report_command(const report_args& a) {
    detail::check(detail::files_of(a));
    check_sketch_alpha(a);
    if (a.trend) {
        for (const auto& input : expand_globs(a.logs))
            if (detail::is_bounded_input(input, detail::memory_limit_of(a))) detail::refuse_whole_run_options(a, input);
        return run_trend_report(a);
    }
    const stats_options options = report_stats_options(a);
    write_runs_report(a, options, detail::read_report_inputs(a, options));
    detail::say_written(a, "report");
    return 0;
}

inline int list_templates() {
    for (const auto& t : builtin_templates) std::fputs(fmt::format("{}\n", t.name).c_str(), stdout);
    return 0;
}

inline int dump_template(const std::string& name) {
    const auto* t = find_builtin_template(name);
    if (t == nullptr) throw usage_error("no built-in template '" + name + "' (see: servestat templates list)");
    std::fwrite(t->text.data(), 1, t->text.size(), stdout);
    return 0;
}

} // namespace servestat::cli
