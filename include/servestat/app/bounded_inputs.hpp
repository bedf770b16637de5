// Inputs read within a memory limit, shared by stats, report and compare (and the Python module's
// summaries): summary files (`servestat summarize`), standard input (`-`) and canonical logs larger
// than --memory-limit (app/input_kind.hpp says which an input is), each either kept whole (it fit) or
// known by its accumulated statistics (run_accumulator: exact counts, sums, min and max; percentiles
// from quantile sketches).
#pragma once

#include <cstddef>    // std::size_t
#include <filesystem> // std::filesystem::path
#include <optional>   // std::optional
#include <string>     // std::string
#include <utility>    // std::move

#include <fmt/format.h> // fmt::format

#include "servestat/app/analysis_args.hpp"      // analysis_args
#include "servestat/app/input_kind.hpp"         // classified_input, input_kind
#include "servestat/app/input_runs.hpp"         // warn_skipped, input_size
#include "servestat/app/memory_args.hpp"        // memory_args
#include "servestat/core/errors.hpp"            // usage_error
#include "servestat/core/progress.hpp"          // progress_scope
#include "servestat/core/run.hpp"               // run
#include "servestat/ingest/canonical_jsonl.hpp" // detail::stream_canonical_log
#include "servestat/ingest/reader.hpp"          // read_options
#include "servestat/report/summary_file.hpp"    // read_summary_file, run_summary
#include "servestat/stats/bounded_analysis.hpp" // read_bounded, bounded_options, streamed_note
#include "servestat/stats/energy.hpp"           // energy_inputs, energy_of_run
#include "servestat/stats/metrics.hpp"          // to_string(metric)
#include "servestat/stats/run_accumulator.hpp"  // run_accumulator
#include "servestat/stats/run_stats.hpp"        // run_stats, stats_options

namespace servestat::app {

namespace detail {

// The subset and SLO options as the flags that give them, e.g. "--short-max 64 --long-min 2048 --slo ttft=0.5".
inline std::string subset_and_slo_flags(const stats_options& o) {
    std::string out = fmt::format("--short-max {} --long-min {}", o.subsets.short_max, o.subsets.long_min);
    for (const auto& b : o.subsets.buckets) out += fmt::format(" --bucket {}={}:{}", b.name, b.lo, b.hi);
    std::string slos;
    for (const auto& s : o.slos) slos += fmt::format("{}{}={:g}", slos.empty() ? "" : ",", to_string(s.on), s.max_seconds);
    return slos.empty() ? out : out + " --slo " + slos;
}

} // namespace detail

// What a summary's statistics say about themselves.
inline std::string summary_note(std::size_t requests, double alpha) {
    return fmt::format("read from a summary (servestat summarize) of {} requests: percentiles are read from sketches, "
                       "each within {:g}% of the exact value; the steady-state window, peak concurrency and the waiting "
                       "breakdown are not in a summary",
                       requests, 100 * alpha);
}

// A summary's subsets and goodput were fixed when it was made: reading it with others would put its
// numbers under the wrong names, so they must be the command's.
inline void check_summary_options(const std::string& input, const stats_options& made, const stats_options& asked,
                                  const char* command) {
    const std::string theirs = detail::subset_and_slo_flags(made), ours = detail::subset_and_slo_flags(asked);
    if (theirs == ours) return;
    throw usage_error(fmt::format("'{}' was summarized with {}, but {} was given {}: a summary's subsets and SLOs "
                                  "cannot be changed, so give {} the summary's",
                                  input, theirs, command, ours, command));
}

// One input read within the memory limit: a run kept whole, or one known by its statistics.
struct bounded_input {
    run whole;                               // the requests when kept; else the metadata and skipped lines only
    std::optional<run_accumulator> sketched; // set when the run is known by its accumulated statistics
    std::string note;                        // what sketched statistics say about themselves
};

// Reads a summary file, standard input ("-") or a canonical log over the limit, as classify_input
// found it. With `command`, a summary's subset and SLO options must be the command's (the error
// names it); without, the summary's own are kept (`stats` lists each run with its own subsets).
inline bounded_input read_bounded_input(const classified_input& in, const analysis_args& a, const memory_args& m,
                                        const stats_options& o, std::size_t limit, const char* command = nullptr) {
    const std::string& input = in.path;
    const progress_scope counted(a.progress, input, input_size(input)); // counted whole when done, or chunk by chunk
    if (in.kind == input_kind::summary) {
        run_summary s = read_summary_file(input);
        if (command != nullptr) check_summary_options(input, s.stats.options(), o, command);
        std::string note = summary_note(static_cast<std::size_t>(s.stats.requests()), s.stats.sketch_alpha());
        bounded_input out{{}, std::move(s.stats), std::move(note)};
        out.whole.meta = std::move(s.meta);
        out.whole.meta.source = {input, "servestat-summary"};
        out.whole.skipped = std::move(s.skipped);
        return out;
    }
    if (!a.map.empty() || (!a.input_format.empty() && a.input_format != "servestat"))
        throw usage_error("'" + input + "' is read as servestat's canonical log (standard input and logs over "
                          "--memory-limit are): --map and --input-format do not apply");
    read_options read;
    read.skip_bad = a.skip_bad;
    read.progress = counted.item();
    bounded_options b;
    b.memory_limit = limit;
    b.sketch_alpha = m.sketch_alpha;
    const std::filesystem::path path = input == "-" ? "/dev/stdin" : input;
    bounded_read r = read_bounded([&](auto&& use) { return servestat::detail::stream_canonical_log(path, read, use); }, o, b);
    bounded_input out{std::move(r.kept), std::move(r.folded), {}};
    if (out.sketched) out.note = streamed_note(static_cast<std::size_t>(out.sketched->requests()), b);
    if (input == "-") {
        out.whole.meta.source.path = "-";
        if (out.whole.meta.label == "stdin") out.whole.meta.label = "standard input";
    }
    warn_skipped(input, out.whole.skipped);
    return out;
}

// The statistics of a run known by its accumulator (`r` holds its metadata and skipped lines), read
// with the command's percentiles, method and ddof, with the note on what is sketched.
inline run_stats sketched_stats(const run_accumulator& acc, const run& r, const std::string& note, const stats_options& o) {
    run_stats out = acc.result(r.meta, r.skipped, o.summary);
    out.meta.notes.push_back(note);
    const run_rates rates{out.duration, out.duration_from == duration_source::requests, out.requests > 0 && out.ok == 0,
                          out.output_tps, out.total_tps};
    if (o.price)
        out.cost = cost_of_totals(rates, acc.good_output_tokens(), out.goodput ? out.goodput->good : 0, out.goodput.has_value(),
                                  *o.price, o.summary.confidence);
    const energy_inputs energy{rates, out.goodput.has_value(), acc.good_output_tokens(), out.goodput ? out.goodput->good : 0,
                               o.power_metric, o.summary.confidence};
    out.energy = energy_of_run(r.meta, nullptr, energy, o.slos);
    return out;
}

} // namespace servestat::app
