// `servestat compare BEFORE AFTER` as both front ends make it: the options as comparison options,
// each side read (its runs kept whole, or its one run known by its statistics: a summary, a log
// streamed past --memory-limit), the comparison, and compare.md / compare.html / compare.json.
#pragma once

#include <algorithm>    // std::find
#include <charconv>     // std::from_chars
#include <cstddef>      // std::size_t
#include <cstdint>      // std::uint64_t
#include <optional>     // std::optional
#include <span>         // std::span
#include <string>       // std::string
#include <system_error> // std::errc
#include <tuple>        // std::tuple
#include <utility>      // std::move
#include <vector>       // std::vector

#include <fmt/format.h> // fmt::format

#include "servestat/app/analysis_args.hpp"    // analysis_args, to_stats_options, validate_confidence
#include "servestat/app/bounded_inputs.hpp"   // bounded_input, read_bounded_input, sketched_stats
#include "servestat/app/input_kind.hpp"       // classify_input, classified_input, input_kind
#include "servestat/app/globs.hpp"            // expand_globs
#include "servestat/app/input_runs.hpp"       // for_each_input_run, name_inputs_apart, begin_reading
#include "servestat/app/memory_args.hpp"      // memory_args
#include "servestat/app/report_files.hpp"     // report_files, write_report
#include "servestat/app/sweeps_and_grids.hpp" // design_options_of
#include "servestat/compare/compare.hpp"      // compare_statistics, validate(compare_options)
#include "servestat/compare/comparison.hpp"   // compare, comparison, comparison_options
#include "servestat/core/errors.hpp"          // usage_error
#include "servestat/core/progress.hpp"        // progress_unit
#include "servestat/core/run.hpp"             // run
#include "servestat/report/compare_view.hpp"  // compare_plot_set, attach_compare_plots, all_plots
#include "servestat/report/stats_json.hpp"    // json
#include "servestat/stats/bootstrap.hpp"      // bootstrap_options
#include "servestat/stats/metrics.hpp"        // parse_metric
#include "servestat/stats/run_accumulator.hpp" // run_accumulator
#include "servestat/stats/run_stats.hpp"      // analyze, stats_options

namespace servestat::app {

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

inline std::vector<run> read_side(const compare_args& a, const std::string& input) {
    analysis_args side = a;
    side.logs = {input};
    std::vector<run> runs;
    for_each_input_run(side, [&](run&& r) { runs.push_back(std::move(r)); });
    name_inputs_apart(runs); // both sides by one rule, so runs pair by label across folders alike
    return runs;
}

} // namespace detail

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
    o.compare.verdicts = {.noise = detail::parse_noise(a.noise), .alpha = a.alpha, .confidence = a.confidence};
    o.compare.bootstrap = {.resamples = a.resamples, .seed = a.seed};
    o.compare.progress = a.progress;
    o.sweep_by = a.sweep_by;
    o.design = design_options_of(a); // --factor and --role read on each side
    o.degradation = a.degradation;
    validate(o.compare);
    return o;
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

// The progress stage of reading both sides (read_compare_side counts into it).
inline void begin_reading_sides(const compare_args& a) {
    begin_reading(a, expand_globs(std::vector<std::string>{a.before, a.after}));
}

inline compare_side read_compare_side(const compare_args& a, const std::string& input, const stats_options& o,
                                      std::size_t limit) {
    compare_side side;
    const classified_input classified = classify_input(input, limit);
    if (!classified.bounded()) {
        side.runs = detail::read_side(a, input);
        return side;
    }
    if (a.steady_state)
        throw usage_error("--steady-state needs every request in memory: " +
                          (classified.kind == input_kind::standard_input
                               ? std::string("save standard input to a file")
                               : "'" + input + (classified.kind == input_kind::summary ? "' is a summary" : "' is larger than --memory-limit")));
    bounded_input in = read_bounded_input(classified, a, a, o, limit, "compare");
    if (!in.sketched) { // it fit: a log like any other, with every test
        side.runs.push_back(std::move(in.whole));
        return side;
    }
    side.runs.push_back(in.whole); // its metadata only: it holds no requests
    side.bounded = std::move(in);
    return side;
}

namespace detail {

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

} // namespace detail

// The comparison of two sides: with every test when both are kept whole, else their one pair as
// point values.
inline comparison compare_sides(const compare_side& before, const compare_side& after, const comparison_options& o) {
    if (before.sketched() || after.sketched()) return detail::compare_sketched_sides(before, after, o);
    if (o.compare.progress) o.compare.progress->begin_stage("bootstrap", progress_unit::resamples); // compare() adds the total
    return compare(before.runs, after.runs, o);
}

// compare.md / compare.html / compare.json and plots/ of a comparison whose view model is `view`
// (the plots are attached to it first). `*_sketched`: per side, its one run's accumulator or nullptr
// (runs kept whole).
inline void write_compare_report(const report_files& files, json& view, const comparison& c, std::span<const run> before,
                                 std::span<const run> after, const comparison_options& o,
                                 std::span<const run_accumulator* const> before_sketched,
                                 std::span<const run_accumulator* const> after_sketched) {
    const auto plots = report::compare_plot_set(c, before, after, o, before_sketched, after_sketched);
    report::attach_compare_plots(view, plots);
    write_report(files, "compare", view, report::all_plots(plots));
}

} // namespace servestat::app
