// Options every analysing command shares (stats, report): inputs, percentiles, subsets, SLOs.
#pragma once

#include <cstdint> // std::int32_t
#include <filesystem> // std::filesystem::path
#include <cstdio>  // std::fputs
#include <optional> // std::optional
#include <span>    // std::span
#include <string>  // std::string
#include <type_traits> // std::is_invocable_v
#include <utility> // std::move
#include <vector>  // std::vector

#include <CLI/CLI.hpp>  // CLI::App
#include <fmt/format.h> // fmt::format

#include <servestat/servestat.hpp>

#include <servestat/sweep/grid.hpp> // find_grids, analyze_grid, parse_constraints

#include "globs.hpp" // expand_globs

namespace servestat::cli {

struct analysis_args {
    std::vector<std::string> logs;
    std::vector<double> percentiles{50, 90, 95, 99};
    double confidence = 0.95; // of each percentile's and mean's interval (--confidence; compare has its own)
    std::string method = "linear";
    int ddof = 1;
    std::int32_t short_max = 64;
    std::int32_t long_min = 2048;
    std::vector<std::string> buckets;
    std::string slo;
    std::string input_format;
    std::string map, ok_if;
    std::string sweep_by;
    double degradation = default_degradation; // threshold knee: latency more than this share above the lowest level
    std::string sweet_spot; // grid constraints, e.g. "short.e2e.p99<=2,success_rate>=0.99"
    bool skip_bad = false;
    bool steady_state = false; // cut each run to its steady-state window before anything is computed
    std::size_t threads = 0;   // 0 = every hardware thread
};

// `with_logs` false: the command names its inputs itself (compare's BEFORE and AFTER).
inline void add_analysis_options(CLI::App& cmd, analysis_args& a, bool with_logs = true) {
    if (with_logs) cmd.add_option("logs", a.logs, "Log files, directories or glob patterns")->required();
    cmd.add_option("--percentiles", a.percentiles, "Percentiles to report, e.g. 50,90,99,99.9")
        ->delimiter(',')
        ->allow_extra_args(false) // else `--percentiles 50,99 run.jsonl` would take the log as a percentile
        ->capture_default_str();
    cmd.add_option("--method", a.method, "Quantile method (numpy names: linear, lower, higher, nearest, midpoint, "
                                         "inverted_cdf, hazen, weibull, ...)")
        ->capture_default_str();
    cmd.add_option("--ddof", a.ddof, "Delta degrees of freedom of std (1 = sample, 0 = population)")
        ->capture_default_str();
    cmd.add_option("--short-max", a.short_max, "Short subset: prompt_tokens <= this")->capture_default_str();
    cmd.add_option("--long-min", a.long_min, "Long subset: prompt_tokens >= this")->capture_default_str();
    cmd.add_option("--bucket", a.buckets, "Extra subset name=lo:hi by prompt tokens (repeatable)")->allow_extra_args(false);
    cmd.add_option("--slo", a.slo, "SLOs in seconds for goodput, e.g. ttft=0.5,e2e=10");
    cmd.add_option("--input-format", a.input_format, "Force the input format instead of detecting it");
    cmd.add_option("--map", a.map,
                   "Read any CSV / JSON / JSONL log by naming its fields, e.g. "
                   "ttft=TTFT:ms,e2e=latency:s,t_sent=start:epoch_s (docs/formats.md)");
    cmd.add_option("--ok-if", a.ok_if, "With --map: which requests succeeded, e.g. 'error_code==' or 'status==200'");
    cmd.add_option("--sweep-by", a.sweep_by,
                   "Group runs into sweeps over this parameter (default: concurrency, request_rate, scale, ... "
                   "whichever varies)");
    cmd.add_option("--degradation", a.degradation,
                   "Threshold knee of each sweep's latency curves: the first level whose p99 exceeds the lowest "
                   "level's by more than this share (0.5 = 50%), reported beside Kneedle's knee")
        ->capture_default_str();
    cmd.add_option("--sweet-spot", a.sweet_spot,
                   "Pick each grid's highest-throughput cell meeting these limits, e.g. "
                   "'short.e2e.p99<=2,success_rate>=0.99' (docs/sweeps.md)");
    cmd.add_flag("--skip-bad", a.skip_bad,
                 "Skip bad request lines or records (counted on stderr and in the JSON); a file with none left "
                 "is an error");
    cmd.add_option("-j,--threads", a.threads,
                   "Threads for reading and statistics (0 = every hardware thread); the output is the same "
                   "byte for byte whatever the number")
        ->capture_default_str();
    cmd.add_flag("--steady-state", a.steady_state,
                 "Compute every statistic on each run's steady-state window only: the requests sent after the "
                 "ramp-up and before the drain (MSER-5 on requests in flight, docs/metrics.md)");
}

// --confidence of stats and report (compare declares its own, which drives its intervals and the
// per-run ones alike).
inline void add_confidence_option(CLI::App& cmd, analysis_args& a) {
    cmd.add_option("--confidence", a.confidence,
                   "Confidence level of each percentile's interval (order statistics) and each mean's (Student's t), "
                   "between 0.5 and 1")
        ->capture_default_str();
}

inline void validate_confidence(double c) {
    if (!(c > 0.5 && c < 1)) throw usage_error(fmt::format("--confidence {}: must lie between 0.5 and 1 (e.g. 0.95)", c));
}

inline stats_options to_stats_options(const analysis_args& a) {
    stats_options o;
    o.summary.method = parse_quantile_method(a.method);
    o.summary.ddof = a.ddof;
    o.summary.percentiles = a.percentiles;
    validate_confidence(a.confidence);
    o.summary.confidence = a.confidence;
    o.subsets.short_max = a.short_max;
    o.subsets.long_min = a.long_min;
    for (const auto& b : a.buckets) o.subsets.buckets.push_back(parse_bucket(b));
    o.slos = parse_slos(a.slo);
    o.threads = a.threads;
    validate(o.summary);
    validate(o.subsets);
    validate_degradation(a.degradation); // a usage error even when no sweep is found
    return o;
}

// The sweeps among analysed runs, each with its table, knees, SLO capacity and Little's law check.
inline std::vector<sweep_analysis> analyze_sweeps(const analysis_args& a, std::span<const run_stats> runs,
                                                  const stats_options& o, double slo_percentile) {
    std::vector<sweep_analysis> out;
    for (const auto& s : find_sweeps(runs, {.by = a.sweep_by}))
        out.push_back(analyze_sweep(s, runs, o.slos, slo_percentile, a.degradation));
    return out;
}

// Runs a report shows on no sweep or grid, with why: on a curve too short, without the swept
// parameter, or a grid combination measured again. Nothing when there is no sweep or grid at all.
inline std::vector<left_out_run> runs_left_out(const analysis_args& a, std::span<const run_stats> runs,
                                               std::span<const grid_analysis> grids) {
    const auto search = search_sweeps(runs, {.by = a.sweep_by});
    if (search.sweeps.empty() && grids.empty()) return {};
    std::vector<bool> in_grid(runs.size(), false);
    std::vector<left_out_run> out;
    for (const auto& g : grids) {
        for (const auto& row : g.table.cells)
            for (const auto& cell : row)
                if (cell) in_grid[*cell] = true;
        out.insert(out.end(), g.table.left_out.begin(), g.table.left_out.end());
    }
    for (const auto& l : search.left_out)
        if (!in_grid[l.run]) out.push_back(l);
    return out;
}

// The --sweet-spot constraints; none when it was not given (or given empty).
inline std::vector<grid_constraint> sweet_spot_constraints(const analysis_args& a) {
    return a.sweet_spot.empty() ? std::vector<grid_constraint>{} : parse_constraints(a.sweet_spot);
}

// The two-parameter grids among analysed runs, each with its sweet spot when --sweet-spot was given.
inline std::vector<grid_analysis> analyze_grids(const analysis_args& a, std::span<const run_stats> runs) {
    const auto constraints = sweet_spot_constraints(a);
    std::vector<grid_analysis> out;
    for (const auto& g : find_grids(runs, {.by = a.sweep_by})) out.push_back(analyze_grid(g, runs, constraints));
    return out;
}

// With --steady-state: the run cut to the requests sent within its steady-state window, with a
// note saying what was removed, and the window cut to (empty when there is none: the run stays
// whole, and a note says so). Without it: the run as read.
inline std::optional<steady_state> cut_if_asked(const analysis_args& a, run& r) {
    if (!a.steady_state || r.meta.kind != run_kind::requests) return std::nullopt;
    auto detection = detect_steady_state(r);
    if (!detection.window) {
        r.meta.notes.push_back("no steady state (" + detection.reason + "): --steady-state left the run whole");
        return std::nullopt;
    }
    r = cut_to_steady_state(r, *detection.window);
    detection.window->applied = true;
    return detection.window;
}

// The statistics of a cut run report the window it was cut to.
inline void record_cut(run_stats& s, const std::optional<steady_state>& cut) {
    if (cut) s.steady_state = {cut, {}};
}

// The lines --skip-bad skipped in one input, with the first reasons, on stderr.
inline void warn_skipped(const std::string& input, const skipped_lines& skipped) {
    if (skipped.count == 0) return;
    std::fputs(fmt::format("servestat: {}: skipped {} bad {}\n", input, skipped.count, skipped.noun(skipped.count)).c_str(),
               stderr);
    for (const auto& e : skipped.examples) std::fputs(fmt::format("  {}\n", e).c_str(), stderr);
}

// What a directory read passed over, in one note on stderr: a few files by name, then a count.
inline void say_passed_over(const directory_listing& listing) {
    if (listing.passed_over.empty()) return;
    constexpr std::size_t named = 6;
    std::string text = fmt::format("servestat: {}: read {} log{}; passed over {} file{}:", listing.directory, listing.logs,
                                   listing.logs == 1 ? "" : "s", listing.passed_over.size(),
                                   listing.passed_over.size() == 1 ? "" : "s");
    for (std::size_t i = 0; i < listing.passed_over.size() && i < named; ++i) {
        const auto& f = listing.passed_over[i];
        text += fmt::format("\n  {} ({})", std::filesystem::path(f.path).lexically_relative(listing.directory).generic_string(), f.reason);
    }
    if (listing.passed_over.size() > named) text += fmt::format("\n  and {} more", listing.passed_over.size() - named);
    std::fputs((text + "\n").c_str(), stderr);
}

// Runs read from several inputs named by what sets them apart (core/run_names.hpp).
template <class Runs>
void name_inputs_apart(Runs& runs) {
    std::vector<run_metadata*> metas;
    for (auto& r : runs) metas.push_back(&r.meta);
    name_runs_apart(metas);
}

// Reads every run of the inputs, reporting skipped lines on stderr (and what directories held
// besides logs, also added to `listings` when given), and hands each to `use`: as
// use(run&&), or as use(run&&, const std::optional<steady_state>&) to learn the window a run was
// cut to (analysing the cut run finds a window of its own, which is not the one applied).
template <class Use>
void for_each_input_run(const analysis_args& a, Use&& use, std::vector<directory_listing>* listings = nullptr) {
    load_options load;
    load.input_format = a.input_format;
    load.read.skip_bad = a.skip_bad;
    load.read.threads = a.threads;
    load.warn = [](const std::string& message) {
        std::fputs(fmt::format("servestat: warning: {}\n", message).c_str(), stderr);
    };
    load.listed = [listings](const directory_listing& listing) {
        say_passed_over(listing);
        if (listings && !listing.passed_over.empty()) listings->push_back(listing);
    };
    if (!a.ok_if.empty() && a.map.empty()) throw usage_error("--ok-if needs --map");
    if (!a.map.empty() && !a.input_format.empty()) throw usage_error("--map and --input-format exclude each other");
    if (!a.map.empty()) load.mapping = parse_mapping(a.map, a.ok_if);
    for_each_run(expand_globs(a.logs), load, [&](run&& r) {
        warn_skipped(r.meta.source.path, r.skipped);
        const auto cut = cut_if_asked(a, r);
        if constexpr (std::is_invocable_v<Use&, run&&, const std::optional<steady_state>&>) use(std::move(r), cut);
        else use(std::move(r));
    });
}

} // namespace servestat::cli
