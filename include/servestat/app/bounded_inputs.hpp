// Inputs read within a memory limit, shared by stats, report and compare (and the Python module's
// summaries): summary files (`servestat summarize`), standard input (`-`) and canonical logs larger
// than --memory-limit, each either kept whole (it fit) or known by its accumulated statistics
// (run_accumulator: exact counts, sums, min and max; percentiles from quantile sketches).
#pragma once

#include <algorithm>    // std::count
#include <cstddef>      // std::size_t
#include <cstdint>      // std::uintmax_t
#include <filesystem>   // std::filesystem::is_regular_file, std::filesystem::file_size, std::filesystem::path
#include <optional>     // std::optional
#include <string>       // std::string
#include <system_error> // std::error_code
#include <utility>      // std::move

#include <fmt/format.h> // fmt::format

#include "servestat/app/analysis_args.hpp"      // analysis_args
#include "servestat/app/input_runs.hpp"         // warn_skipped
#include "servestat/app/memory_args.hpp"        // memory_args
#include "servestat/core/errors.hpp"            // usage_error
#include "servestat/core/run.hpp"               // run
#include "servestat/ingest/canonical_jsonl.hpp" // detail::sniff_canonical_log, detail::stream_canonical_log
#include "servestat/ingest/input_file.hpp"      // detail::read_input_head
#include "servestat/ingest/reader.hpp"          // read_options
#include "servestat/report/summary_file.hpp"    // read_summary_file, sniff_summary_file, run_summary
#include "servestat/stats/bounded_analysis.hpp" // read_bounded, bounded_options, streamed_note
#include "servestat/stats/metrics.hpp"          // to_string(metric)
#include "servestat/stats/run_accumulator.hpp"  // run_accumulator
#include "servestat/stats/run_stats.hpp"        // run_stats, stats_options

namespace servestat::app {

namespace detail {

// A canonical log whose requests, at the size of its first lines, would not fit in half the limit
// (the other half is for the analysis): read request by request instead of whole.
inline bool too_large_to_keep(const std::string& input, std::size_t limit) {
    std::error_code ec;
    if (limit == 0 || !std::filesystem::is_regular_file(input, ec)) return false;
    const std::uintmax_t size = std::filesystem::file_size(input, ec);
    if (ec || size < (std::uintmax_t{1} << 20)) return false;
    const std::string head = servestat::detail::read_input_head(input, 1 << 16);
    if (servestat::detail::sniff_canonical_log(head) == 0) return false;
    const auto lines = static_cast<std::size_t>(std::count(head.begin(), head.end(), '\n'));
    if (lines < 2) return false;
    constexpr double table_bytes_per_request = 32; // request_table of a canonical log (29) and slack
    const double requests = static_cast<double>(size) * static_cast<double>(lines) / static_cast<double>(head.size());
    return 2 * requests * table_bytes_per_request > static_cast<double>(limit);
}

// The subset and SLO options as the flags that give them, e.g. "--short-max 64 --long-min 2048 --slo ttft=0.5".
inline std::string subset_and_slo_flags(const stats_options& o) {
    std::string out = fmt::format("--short-max {} --long-min {}", o.subsets.short_max, o.subsets.long_min);
    for (const auto& b : o.subsets.buckets) out += fmt::format(" --bucket {}={}:{}", b.name, b.lo, b.hi);
    std::string slos;
    for (const auto& s : o.slos) slos += fmt::format("{}{}={:g}", slos.empty() ? "" : ",", to_string(s.on), s.max_seconds);
    return slos.empty() ? out : out + " --slo " + slos;
}

} // namespace detail

inline bool is_summary_input(const std::string& input) {
    std::error_code ec;
    return std::filesystem::is_regular_file(input, ec) &&
           sniff_summary_file(servestat::detail::read_input_head(input, 512)) > 0;
}

// Whether an input is read within the memory limit rather than whole with the other logs.
inline bool is_bounded_input(const std::string& input, std::size_t limit) {
    return input == "-" || is_summary_input(input) || detail::too_large_to_keep(input, limit);
}

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

// Reads a summary file, standard input ("-") or a canonical log over the limit. With `command`, a
// summary's subset and SLO options must be the command's (the error names it); without, the
// summary's own are kept (`stats` lists each run with its own subsets).
inline bounded_input read_bounded_input(const std::string& input, const analysis_args& a, const memory_args& m,
                                        const stats_options& o, std::size_t limit, const char* command = nullptr) {
    if (is_summary_input(input)) {
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
    return out;
}

} // namespace servestat::app
