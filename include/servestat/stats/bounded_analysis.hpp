// Statistics of a log of any size in bounded memory: exact while the requests fit in the budget,
// then streamed. Up to the budget the requests are kept and analysed as `analyze` does; past it,
// those kept and every later one are folded into a run_accumulator, so memory stays flat however
// many requests follow (counts, sums, min and max stay exact; percentiles come from sketches).
#pragma once

#include <cstddef>  // std::size_t
#include <cstdint>  // std::uint64_t
#include <optional> // std::optional
#include <utility>  // std::move

#include <fmt/format.h> // fmt::format

#include "servestat/core/run.hpp"              // run, request_table
#include "servestat/stats/run_accumulator.hpp" // run_accumulator
#include "servestat/stats/run_stats.hpp"       // analyze, run_stats

namespace servestat {

struct bounded_options {
    std::size_t memory_limit = 0; // bytes for the requests and their analysis; 0 = no limit
    double sketch_alpha = default_sketch_alpha;
    std::size_t piece_requests = 1 << 16; // streamed requests are folded in pieces of this many
};

namespace detail {

// Analysis takes about as much memory again as the table it reads (scratch lists of values, the
// send/end order), so the table may take half the budget.
inline bool over_budget(const request_table& t, std::size_t limit) {
    return limit > 0 && 2 * t.memory_bytes() > limit;
}

} // namespace detail

// stream(use) hands each request of one run to use(const request_record&), in log order, and returns
// the run without its requests (metadata, skipped lines). stream_canonical_log is one.
template <class Stream>
run_stats analyze_bounded(Stream&& stream, const stats_options& o, const bounded_options& b) {
    run kept;
    std::optional<run_accumulator> folded;
    request_table piece;
    const auto fold_piece = [&] {
        folded->add(piece);
        piece = request_table{};
        piece.reserve(b.piece_requests);
    };
    run streamed = stream([&](const request_record& r) {
        if (!folded) {
            kept.requests.push_back(r);
            if (!detail::over_budget(kept.requests, b.memory_limit)) return;
            folded.emplace(o, b.sketch_alpha);
            folded->add(kept.requests);
            kept.requests = request_table{};
            piece.reserve(b.piece_requests);
            return;
        }
        piece.push_back(r);
        if (piece.size() == b.piece_requests) fold_piece();
    });
    if (!folded) {
        streamed.requests = std::move(kept.requests);
        return analyze(streamed, o);
    }
    if (!piece.empty()) fold_piece();
    auto out = folded->result(streamed.meta, streamed.skipped);
    out.meta.notes.push_back(fmt::format(
        "{} requests did not fit in the memory limit of {} MiB: percentiles are read from sketches, each within "
        "{:g}% of the exact value; counts, rates, min and max are exact, means and std agree with an exact pass to "
        "the last digits; the steady-state window, peak concurrency and the waiting breakdown need every request "
        "at once and are left out",
        out.requests, b.memory_limit >> 20, 100 * b.sketch_alpha));
    return out;
}

} // namespace servestat
