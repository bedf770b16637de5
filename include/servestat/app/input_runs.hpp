// Reading the runs of the inputs as the options ask (files, directories, globs; --input-format,
// --map, --skip-bad, --steady-state), with what was skipped or passed over said on standard error:
// every front end reads its logs through for_each_input_run.
#pragma once

#include <cstdint>     // std::uintmax_t
#include <filesystem>  // std::filesystem::path, std::filesystem::file_size
#include <span>        // std::span
#include <optional>    // std::optional
#include <string>      // std::string
#include <system_error> // std::error_code
#include <type_traits> // std::is_invocable_v
#include <utility>     // std::move
#include <vector>      // std::vector

#include <fmt/format.h> // fmt::format

#include "servestat/app/analysis_args.hpp"   // analysis_args
#include "servestat/app/globs.hpp"           // expand_globs
#include "servestat/app/progress_display.hpp" // write_stderr
#include "servestat/core/errors.hpp"         // usage_error, input_error
#include "servestat/core/progress.hpp"       // progress_state, progress_unit
#include "servestat/core/run.hpp"            // run, run_kind, run_metadata, skipped_lines
#include "servestat/core/run_names.hpp"      // name_runs_apart
#include "servestat/experiment/design_view.hpp" // passed_over_input
#include "servestat/ingest/detect.hpp"       // for_each_run, load_options, directory_listing, input_bytes
#include "servestat/ingest/mapping_spec.hpp" // parse_mapping
#include "servestat/stats/run_stats.hpp"     // run_stats
#include "servestat/stats/steady_state.hpp"  // detect_steady_state, cut_to_steady_state, steady_state

namespace servestat::app {

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

// A warning on stderr: what a read passed over while it read the rest.
inline void warn_on_stderr(const std::string& message) { write_stderr(fmt::format("servestat: warning: {}\n", message)); }

// The lines --skip-bad skipped in one input, with the first reasons, on stderr.
inline void warn_skipped(const std::string& input, const skipped_lines& skipped) {
    if (skipped.count == 0) return;
    std::string text = fmt::format("servestat: {}: skipped {} bad {}\n", input, skipped.count, skipped.noun(skipped.count));
    for (const auto& e : skipped.examples) text += fmt::format("  {}\n", e);
    write_stderr(text);
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
    write_stderr(text + "\n");
}

// What directories held besides runs, as the "How these runs were read" section lists them: below
// their directory, named with it when several directories were read (bad/manifest.json).
inline std::vector<passed_over_input> passed_over_inputs(std::span<const directory_listing> listings) {
    std::vector<passed_over_input> out;
    for (const auto& l : listings) {
        auto base = std::filesystem::path(l.directory).lexically_normal();
        if (base.filename().empty()) base = base.parent_path();
        const auto below = listings.size() > 1 ? base.parent_path() : base;
        for (const auto& f : l.passed_over)
            out.push_back({std::filesystem::path(f.path).lexically_normal().lexically_relative(below).generic_string(), f.reason});
    }
    return out;
}

// The stage of reading `inputs` (globs expanded), when progress is counted: its total is every
// byte for_each_input_run and the bounded readers will read (standard input: unknown, 0).
inline void begin_reading(const analysis_args& a, std::span<const std::string> inputs) {
    if (a.progress) a.progress->begin_stage("reading", progress_unit::bytes, input_bytes(inputs));
}

// The size of an input read on its own (a summary, a streamed log), the total of its progress
// item; 0 for standard input or what cannot be sized.
inline std::uintmax_t input_size(const std::string& input) {
    std::error_code ec;
    const std::uintmax_t size = input == "-" ? 0 : std::filesystem::file_size(input, ec);
    return ec ? 0 : size;
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
    load.strict = a.strict;
    load.progress = a.progress;
    load.warn = warn_on_stderr;
    load.listed = [listings](const directory_listing& listing) {
        say_passed_over(listing);
        if (listings && !listing.passed_over.empty()) listings->push_back(listing);
    };
    if (!a.ok_if.empty() && a.map.empty()) throw usage_error("--ok-if needs --map");
    if (!a.map.empty() && !a.input_format.empty()) throw usage_error("--map and --input-format exclude each other");
    if (!a.map.empty()) load.mapping = parse_mapping(a.map, a.ok_if);
    for_each_run(expand_globs(a.logs, warn_on_stderr), load, [&](run&& r) {
        warn_skipped(r.meta.source.path, r.skipped);
        const auto cut = cut_if_asked(a, r);
        if constexpr (std::is_invocable_v<Use&, run&&, const std::optional<steady_state>&>) use(std::move(r), cut);
        else use(std::move(r));
    });
}

// A run of a file read once more, as it was first read (its row, and of several runs on one row the
// one with its request count): what combining parts of one measurement needs of a run whose
// statistics alone were kept.
inline run read_run_again(const analysis_args& a, const run_source& source, std::size_t requests) {
    analysis_args once = a;
    once.logs = {source.path};
    once.progress = nullptr;
    std::vector<run> found;
    for_each_input_run(once, [&](run&& r) {
        if (r.meta.source.line == source.line) found.push_back(std::move(r));
    });
    for (auto& r : found)
        if (found.size() == 1 || r.requests.size() == requests) return std::move(r);
    throw input_error(source.path, source.line, "", "the run read before is not in the file any more");
}

} // namespace servestat::app
