// A run that --skip-bad emptied is an input error: a report of nothing, exit 0, would read as a run
// that measured nothing, when every request the file held was rejected.
#pragma once

#include <string> // std::string

#include <fmt/format.h> // fmt::format

#include "servestat/core/errors.hpp" // input_error
#include "servestat/core/run.hpp"    // run, skipped_lines

namespace servestat {

// Throws naming the file, the count skipped and the first reason, when `skipped` holds every
// request a file had ("every record was bad: 1000 records skipped under --skip-bad ...").
[[noreturn]] inline void throw_nothing_left(const std::string& file, const skipped_lines& skipped) {
    throw input_error(file, 0, "",
                      fmt::format("every {} was bad: {} {} skipped under --skip-bad, nothing left to analyse "
                                  "(the first: {})",
                                  skipped.noun(1), skipped.count, skipped.noun(skipped.count),
                                  skipped.examples.empty() ? std::string("no reason kept") : skipped.examples.front()));
}

// A run of requests read under --skip-bad must keep at least one of them. A tool's aggregates
// (run_kind::summary) hold no requests to keep: a sweep table's skipped rows ride on its first run.
inline void require_requests_left(const run& r) {
    if (r.meta.kind != run_kind::summary && r.requests.empty() && r.skipped.count > 0)
        throw_nothing_left(r.meta.source.path, r.skipped);
}

} // namespace servestat
