// Statistics of a log of any size in bounded memory: exact while the requests fit in the budget,
// then streamed. Up to the budget the requests are kept and analysed as `analyze` does; past it,
// those kept and every later one are folded into a run_accumulator, so memory stays flat however
// many requests follow (counts, sums, min and max stay exact; percentiles come from sketches).
#pragma once

#include <cstddef>  // std::size_t
#include <cstdint>  // std::uint64_t
#include <optional> // std::optional
#include <string>   // std::string
#include <utility>  // std::move, std::forward

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

// Requests folded into an accumulator a piece at a time: a table of at most `piece_requests` is held.
class piece_folder {
public:
    piece_folder(run_accumulator& into, std::size_t piece_requests) : into_(into), piece_requests_(piece_requests) {}
    void add(const request_record& r) {
        piece_.push_back(r);
        if (piece_.size() == piece_requests_) flush();
    }
    void flush() {
        if (piece_.empty()) return;
        into_.add(piece_);
        piece_ = request_table{};
    }

private:
    run_accumulator& into_;
    std::size_t piece_requests_;
    request_table piece_;
};

// A log read within the budget: its requests, kept whole while they fit; else none kept and every
// request folded into `folded`. `kept`'s metadata and skipped lines are the log's either way.
struct bounded_read {
    run kept;
    std::optional<run_accumulator> folded;
};

// stream(use) hands each request of one run to use(const request_record&), in log order, and returns
// the run without its requests (metadata, skipped lines). stream_canonical_log is one.
template <class Stream>
bounded_read read_bounded(Stream&& stream, const stats_options& o, const bounded_options& b) {
    request_table kept;
    std::optional<run_accumulator> folded;
    std::optional<piece_folder> pieces;
    run streamed = stream([&](const request_record& r) {
        if (pieces) return pieces->add(r);
        kept.push_back(r);
        if (!detail::over_budget(kept, b.memory_limit)) return;
        folded.emplace(o, b.sketch_alpha);
        folded->add(kept);
        kept = request_table{};
        pieces.emplace(*folded, b.piece_requests);
    });
    if (pieces) pieces->flush();
    streamed.requests = std::move(kept);
    return {std::move(streamed), std::move(folded)};
}

// What a streamed run's statistics say about themselves.
inline std::string streamed_note(std::size_t requests, const bounded_options& b) {
    return fmt::format(
        "{} requests did not fit in the memory limit of {} MiB: percentiles are read from sketches, each within "
        "{:g}% of the exact value; counts, rates, min and max are exact, means and std agree with an exact pass to "
        "the last digits; the steady-state window, peak concurrency and the waiting breakdown need every request "
        "at once and are left out",
        requests, b.memory_limit >> 20, 100 * b.sketch_alpha);
}

template <class Stream>
run_stats analyze_bounded(Stream&& stream, const stats_options& o, const bounded_options& b) {
    bounded_read read = read_bounded(std::forward<Stream>(stream), o, b);
    if (!read.folded) return analyze(read.kept, o);
    auto out = read.folded->result(read.kept.meta, read.kept.skipped);
    out.meta.notes.push_back(streamed_note(out.requests, b));
    return out;
}

} // namespace servestat
