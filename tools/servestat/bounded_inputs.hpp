// Inputs read within a memory limit, shared by stats, report and compare: summary files
// (`servestat summarize`), standard input (`-`) and canonical logs larger than --memory-limit, each
// either kept whole (it fit) or known by its accumulated statistics (run_accumulator: exact counts,
// sums, min and max; percentiles from quantile sketches).
#pragma once

#include <algorithm>  // std::count
#include <cstddef>    // std::size_t
#include <cstdint>    // std::uintmax_t
#include <filesystem> // std::filesystem::is_regular_file, std::filesystem::file_size
#include <optional>   // std::optional
#include <string>     // std::string
#include <utility>    // std::move

#include <CLI/CLI.hpp>  // CLI::App
#include <fmt/format.h> // fmt::format

#include <servestat/servestat.hpp>
#include <servestat/report/summary_file.hpp>    // read_summary_file, sniff_summary_file
#include <servestat/stats/bounded_analysis.hpp> // read_bounded, bounded_options, streamed_note

#include <unistd.h> // sysconf

#include "analysis_options.hpp" // analysis_args, warn_skipped

namespace servestat::cli {

// --memory-limit and --sketch-alpha, as stats, report and compare take them.
struct memory_args {
    std::string memory_limit; // empty: half of physical memory
    double sketch_alpha = default_sketch_alpha;
};

inline void add_memory_options(CLI::App& cmd, memory_args& a) {
    cmd.add_option("--memory-limit", a.memory_limit,
                   "Memory for one canonical log's requests and their analysis, e.g. 2G or 512M (default: half of "
                   "physical memory). A log that does not fit is streamed: percentiles from sketches, the rest exact");
    cmd.add_option("--sketch-alpha", a.sketch_alpha,
                   "Relative error of the percentiles of a streamed log (0.005 = within 0.5%)")
        ->capture_default_str();
}

inline void check_sketch_alpha(const memory_args& a) {
    if (!(a.sketch_alpha > 0 && a.sketch_alpha < 1)) throw usage_error("--sketch-alpha must lie between 0 and 1");
}

namespace detail {

// "2G", "512M", "64k", "1.5G", "1000000" (bytes): powers of 1024.
inline std::size_t parse_memory_size(const std::string& text) {
    double number = 0;
    std::size_t used = 0;
    try {
        number = std::stod(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    std::string unit = text.substr(used);
    const auto scale = [&]() -> double {
        if (unit.empty() || unit == "B") return 1;
        if (unit.size() >= 2 && unit.substr(1) != "B" && unit.substr(1) != "iB") return 0;
        switch (unit[0]) {
        case 'k': case 'K': return 1024.0;
        case 'm': case 'M': return 1024.0 * 1024;
        case 'g': case 'G': return 1024.0 * 1024 * 1024;
        case 't': case 'T': return 1024.0 * 1024 * 1024 * 1024;
        default: return 0;
        }
    }();
    if (used == 0 || scale == 0 || !(number > 0) || number * scale < 1 << 20)
        throw usage_error("--memory-limit '" + text + "': expected a size of at least 1M, e.g. 2G, 512M");
    return static_cast<std::size_t>(number * scale);
}

inline std::size_t memory_limit_of(const memory_args& a) {
    if (!a.memory_limit.empty()) return parse_memory_size(a.memory_limit);
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page) / 2 : 0;
}

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

inline bool is_summary_input(const std::string& input) {
    std::error_code ec;
    return std::filesystem::is_regular_file(input, ec) &&
           sniff_summary_file(servestat::detail::read_input_head(input, 512)) > 0;
}

// Whether an input is read within the memory limit rather than whole with the other logs.
inline bool is_bounded_input(const std::string& input, std::size_t limit) {
    return input == "-" || is_summary_input(input) || too_large_to_keep(input, limit);
}

// What a summary's statistics say about themselves.
inline std::string summary_note(std::size_t requests, double alpha) {
    return fmt::format("read from a summary (servestat summarize) of {} requests: percentiles are read from sketches, "
                       "each within {:g}% of the exact value; the steady-state window, peak concurrency and the waiting "
                       "breakdown are not in a summary",
                       requests, 100 * alpha);
}

// The subset and SLO options as the flags that give them, e.g. "--short-max 64 --long-min 2048 --slo ttft=0.5".
inline std::string subset_and_slo_flags(const stats_options& o) {
    std::string out = fmt::format("--short-max {} --long-min {}", o.subsets.short_max, o.subsets.long_min);
    for (const auto& b : o.subsets.buckets) out += fmt::format(" --bucket {}={}:{}", b.name, b.lo, b.hi);
    std::string slos;
    for (const auto& s : o.slos) slos += fmt::format("{}{}={:g}", slos.empty() ? "" : ",", to_string(s.on), s.max_seconds);
    return slos.empty() ? out : out + " --slo " + slos;
}

// A summary's subsets and goodput were fixed when it was made: reading it with others would put its
// numbers under the wrong names, so they must be the command's.
inline void check_summary_options(const std::string& input, const stats_options& made, const stats_options& asked,
                                  const char* command) {
    const std::string theirs = subset_and_slo_flags(made), ours = subset_and_slo_flags(asked);
    if (theirs == ours) return;
    throw usage_error(fmt::format("'{}' was summarized with {}, but {} was given {}: a summary's subsets and SLOs "
                                  "cannot be changed, so give {} the summary's",
                                  input, theirs, command, ours, command));
}

} // namespace detail

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
    if (detail::is_summary_input(input)) {
        run_summary s = read_summary_file(input);
        if (command != nullptr) detail::check_summary_options(input, s.stats.options(), o, command);
        std::string note = detail::summary_note(static_cast<std::size_t>(s.stats.requests()), s.stats.sketch_alpha());
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

} // namespace servestat::cli
