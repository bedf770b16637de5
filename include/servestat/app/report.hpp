// `servestat report` as both front ends make it: the runs of the inputs read in order (logs that
// fit side by side, summaries and logs over --memory-limit within the limit), analysed, and written
// as report.md, report.html, report.json and plots/ (write_runs_report, which the Python module
// hands runs it holds); and `report --trend` (trend.md, trend.html, trend.json).
#pragma once

#include <algorithm>  // std::find, std::count
#include <cstddef>    // std::size_t
#include <filesystem> // std::filesystem::path
#include <iterator>   // std::make_move_iterator
#include <optional>   // std::optional
#include <string>     // std::string
#include <utility>    // std::move
#include <vector>     // std::vector

#include <fmt/format.h> // fmt::format

#include "servestat/app/analysis_args.hpp"    // analysis_args, to_stats_options
#include "servestat/app/bounded_inputs.hpp"   // read_bounded_input, sketched_stats
#include "servestat/app/combined_parts.hpp"   // parts_among, combined_runs, later_part
#include "servestat/app/globs.hpp"            // expand_globs
#include "servestat/app/group_by.hpp"         // group_args, attach_groups
#include "servestat/app/input_kind.hpp"       // classify_input, classified_input, input_kind
#include "servestat/app/input_runs.hpp"       // for_each_input_run, name_inputs_apart, record_cut, begin_reading
#include "servestat/app/memory_args.hpp"      // memory_args, memory_limit_of
#include "servestat/app/report_files.hpp"     // report_files, check_report_files, write_report, plot_entries
#include "servestat/app/sweeps_and_grids.hpp" // analyze_sweeps, analyze_grids, runs_left_out
#include "servestat/compare/trend.hpp"        // default_trend_options, follow_trend
#include "servestat/core/errors.hpp"          // usage_error
#include "servestat/core/progress.hpp"        // progress_scope, progress_unit
#include "servestat/core/run.hpp"             // run
#include "servestat/ingest/detect.hpp"        // directory_listing
#include "servestat/report/accounting.hpp"    // account_inputs, inputs_json, left_out_json, accounting_view
#include "servestat/report/grid_view.hpp"     // grid_plots
#include "servestat/report/how_read_view.hpp" // design_view
#include "servestat/report/plot_file.hpp"     // plot_file
#include "servestat/report/plots.hpp"         // run_plots, sketched_run_plots, comparison_plots, appendix_plots, plot_prefixes
#include "servestat/report/stats_json.hpp"    // json
#include "servestat/report/sweep_view.hpp"    // sweep_plots, sweep_short_name, sweeps_overlay_plots
#include "servestat/report/trend_view.hpp"    // trend_view_model, trend_plots
#include "servestat/report/view_model.hpp"    // build_view_model, analyse, analysed_run, report_options
#include "servestat/stats/run_accumulator.hpp" // run_accumulator
#include "servestat/stats/run_stats.hpp"      // run_stats, stats_options
#include "servestat/stats/steady_state.hpp"   // steady_state

namespace servestat::app {

struct report_args : analysis_args, memory_args {
    std::string out_dir = "report";
    std::vector<std::string> formats{"md", "html", "json"};
    std::string template_file;
    std::string title = "Load test report";
    bool trend = false;
    group_args group; // --group-by, --window
};

inline report_files report_files_of(const report_args& a) { return {a.out_dir, a.formats, a.template_file}; }

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

namespace detail {

// What needs every request of every run, refused up front for summaries, standard input and logs
// over the limit (as stats refuses --steady-state for them).
inline void refuse_whole_run_options(const report_args& a, const classified_input& input) {
    const std::string why = input.kind == input_kind::standard_input ? "save standard input to a file"
                            : input.kind == input_kind::summary      ? "'" + input.path + "' is a summary"
                                                                     : "'" + input.path + "' is larger than --memory-limit";
    if (a.steady_state) throw usage_error("--steady-state needs every request in memory: " + why);
    if (a.trend) throw usage_error("--trend bootstraps every request of each run: " + why);
    if (!a.group.by.empty()) throw usage_error("--group-by needs every request of each run: " + why);
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

inline void attach_plots(json& view, const std::vector<std::vector<report::plot_file>>& per_run,
                         const std::vector<report::plot_file>& comparison) {
    for (std::size_t i = 0; i < per_run.size(); ++i) view["runs"][i]["plots"] = plot_entries(per_run[i]);
    view["comparison_plots"] = plot_entries(comparison);
}

} // namespace detail

// Reads the inputs in order: logs that fit together (side by side), the others one by one within
// the limit.
inline report_inputs read_report_inputs(const report_args& a, const stats_options& o) {
    const std::size_t limit = memory_limit_of(a);
    const auto paths = expand_globs(a.logs, warn_on_stderr);
    if (std::count(paths.begin(), paths.end(), "-") > 1) throw usage_error("standard input ('-') can be read once");
    begin_reading(a, paths);
    std::vector<classified_input> inputs;
    for (const auto& path : paths) {
        inputs.push_back(classify_input(path, limit));
        if (inputs.back().bounded()) detail::refuse_whole_run_options(a, inputs.back());
    }
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
        if (!input.bounded()) {
            together.logs.push_back(input.path);
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
inline void write_runs_report(const report_args& a, const stats_options& options, const report_inputs& in) {
    check_report_files(report_files_of(a));
    report::report_options ro;
    ro.title = a.title;
    const std::vector<run>& runs = in.runs;
    const auto& cuts = in.cuts;
    std::vector<report::analysed_run> analysed;
    std::vector<run_stats> stats;
    std::vector<std::optional<std::size_t>> sketched_requests; // the rows each sketched run stands for
    std::vector<const run_accumulator*> sketched;
    if (a.progress) a.progress->begin_stage("analysing", progress_unit::runs, runs.size());
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const progress_scope counted(a.progress, runs[i].meta.label, 1);
        if (in.sketched[i]) // no per-request fit of e2e to output tokens
            analysed.push_back({sketched_stats(*in.sketched[i], runs[i], in.notes[i], options), std::nullopt});
        else
            analysed.push_back(report::analyse(runs[i], options));
        record_cut(analysed.back().stats, cuts[i]);
        stats.push_back(analysed.back().stats);
        sketched_requests.push_back(in.sketched[i] ? std::optional<std::size_t>(stats.back().requests) : std::nullopt);
        sketched.push_back(in.sketched[i] ? &*in.sketched[i] : nullptr);
    }
    // Parts of one measurement (parallel clients) are one run: the report is of the runs combined.
    auto groups = parts_among(a, stats);
    std::erase_if(groups, [&](const auto& g) { // a sketched run kept no requests to pool
        return std::any_of(g.begin(), g.end(), [&](std::size_t i) { return in.sketched[i].has_value(); });
    });
    if (!groups.empty()) {
        auto combined = combined_runs(groups, stats, [&](std::size_t i) { return runs[i]; });
        report_inputs merged;
        merged.listings = in.listings;
        for (std::size_t i = 0; i < runs.size(); ++i) {
            if (later_part(groups, i)) continue;
            std::size_t g = 0;
            while (g < groups.size() && groups[g].front() != i) ++g;
            if (g < groups.size()) merged.add(std::move(combined[g]));
            else merged.add(run(runs[i]), cuts[i], in.sketched[i], in.notes[i]);
        }
        name_inputs_apart(merged.runs);
        return write_runs_report(a, options, merged);
    }
    const auto experiment = experiment_of(a, stats);
    const auto sweeps = analyze_sweeps(a, experiment, options, ro.slo_percentile);
    const auto grids = analyze_grids(a, experiment);
    json view = report::build_view_model(analysed, options, ro, sweeps, grids);
    view["inputs"] = detail::inputs_view(in.listings);
    const auto passed_over = passed_over_inputs(in.listings);
    view["how_read"] = report::design_view(experiment.design, passed_over);
    view["stats"]["design"] = design_json(experiment.design, passed_over);
    const auto inputs = report::account_inputs(runs, cuts, sketched_requests);
    const auto left_out = runs_left_out(experiment, grids);
    view["stats"]["inputs"] = report::inputs_json(inputs);
    view["stats"]["left_out"] = report::left_out_json(stats, left_out);
    view["accounting"] = report::accounting_view(inputs, stats, left_out);

    const auto prefixes = report::plot_prefixes(stats);
    std::vector<std::vector<report::plot_file>> plots;
    std::vector<const run*> run_pointers;
    const bool run_sections = report::shows_run_sections(runs.size(), ro);
    if (a.progress && run_sections) a.progress->begin_stage("charts", progress_unit::runs, runs.size());
    for (std::size_t i = 0; i < runs.size() && run_sections; ++i) {
        const progress_scope counted(a.progress, runs[i].meta.label, 1);
        auto files = sketched[i] ? report::sketched_run_plots(*sketched[i], stats[i], prefixes[i])
                                 : report::run_plots(runs[i], stats[i], prefixes[i], options.subsets, options.threads);
        plots.push_back(runs.size() > 1 ? report::appendix_plots(std::move(files)) : std::move(files));
    }
    for (const auto& r : runs) run_pointers.push_back(&r);
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
        auto split = report::sweep_split_plots(sweeps[i], stats, fmt::format("sweep-{}", i + 1),
                                               report::sweep_short_name(sweeps[i], i));
        files.insert(files.end(), std::make_move_iterator(split.begin()), std::make_move_iterator(split.end()));
        view["sweeps"][i]["plots"] = plot_entries(files);
        all_plots.insert(all_plots.end(), files.begin(), files.end());
    }
    std::vector<std::string> sweep_names;
    for (std::size_t i = 0; i < sweeps.size(); ++i) sweep_names.push_back(report::sweep_short_name(sweeps[i], i));
    const auto overlays = report::sweeps_overlay_plots(sweeps, sweep_names, options.summary.confidence);
    view["sweep_overlays"] = plot_entries(overlays);
    view["has_sweep_overlays"] = !overlays.empty();
    all_plots.insert(all_plots.end(), overlays.begin(), overlays.end());
    for (std::size_t i = 0; i < grids.size(); ++i) {
        auto files = report::grid_plots(grids[i], stats, fmt::format("grid-{}", i + 1));
        view["grids"][i]["plots"] = plot_entries(files);
        all_plots.insert(all_plots.end(), files.begin(), files.end());
    }
    attach_groups(view, all_plots, a.group, runs, options);
    write_report(report_files_of(a), "report", view, all_plots);
}

// `report --trend`: runs of one workload over time, each compared with the previous and the first
// (trend.md, trend.html, trend.json). Summaries, standard input and logs over the limit are refused:
// the trend bootstraps every request.
inline void write_trend_report(const report_args& a) {
    const auto paths = expand_globs(a.logs, warn_on_stderr);
    const std::size_t limit = memory_limit_of(a);
    for (const auto& path : paths)
        if (const auto input = classify_input(path, limit); input.bounded()) detail::refuse_whole_run_options(a, input);
    compare_options o = default_trend_options();
    o.stats = to_stats_options(a);
    begin_reading(a, paths);
    std::vector<run> runs;
    for_each_input_run(a, [&](run&& r) { runs.push_back(std::move(r)); });
    const trend t = follow_trend(runs, o);
    const std::string title = a.title == report_args{}.title ? "Trend across runs" : a.title;
    const auto plots = report::trend_plots(t, runs, o.stats.summary.confidence);
    write_report(report_files_of(a), "trend", report::trend_view_model(t, runs, o, title, plots), plots);
}

} // namespace servestat::app
