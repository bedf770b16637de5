// The steady-state window of a run: the requests sent once the load had built up and before it
// drained away, found with MSER-5 on the number of requests in flight, so that statistics can leave
// the ramp-up and the drain out (`--steady-state`) and a report can say where they were.
#pragma once

#include <algorithm> // std::min, std::sort
#include <cstddef>   // std::size_t
#include <cstdint>   // std::uint32_t, std::int32_t, std::int64_t
#include <limits>    // std::numeric_limits
#include <optional>  // std::optional
#include <span>      // std::span
#include <string>    // std::string
#include <utility>   // std::move
#include <vector>    // std::vector

#include <fmt/format.h> // fmt::format

#include "servestat/core/errors.hpp" // input_error
#include "servestat/core/run.hpp" // run, request_table
#include "servestat/stats/time_sort.hpp" // detail::sort_by_time

namespace servestat {

struct steady_state_options {
    std::size_t batch_size = 5; // MSER-5: White et al. (2000) found batches of 5 as good as any
    // On short series MSER cuts noise: on 200 stationary series of 100 Poisson draws the two-ended
    // rule below cut 28 % on average (8 % at 200 draws, 1 % at 1000), so shorter runs get no window
    // rather than a wrong one.
    std::size_t min_requests = 100;
};

inline constexpr const char* steady_state_method = "MSER-5 on requests in flight";

// A window on the send-time axis: a request belongs to it when its t_sent lies in [start, end].
struct steady_state {
    double start = 0, end = 0;        // run seconds: t_sent of the first and of the last request kept
    std::size_t requests = 0;          // requests sent within [start, end]
    std::size_t excluded_start = 0;    // ramp-up: requests sent before start
    std::size_t excluded_end = 0;      // drain: requests sent after end
    std::size_t untimed = 0;           // requests without a send time, in no window
    std::string method = steady_state_method;
    bool applied = false;              // the statistics were computed on this window only
};

// Either a window or why there is none ("no shared clock", "too few requests").
struct steady_state_detection {
    std::optional<steady_state> window;
    std::string reason;
};

namespace detail {

// Welford's update run backwards over the batch means, so every candidate truncation costs O(1)
// and a million requests need no O(k²) pass; sums of squares by subtraction would cancel badly.
struct running_spread {
    double count = 0, mean = 0, m2 = 0;
    void add(double z) {
        count += 1;
        const double delta = z - mean;
        mean += delta / count;
        m2 += delta * (z - mean);
    }
};

// Request rows with both times, in send order (log order among equal send times).
inline std::vector<std::uint32_t> timed_rows_in_send_order(const request_table& t) {
    std::vector<std::uint32_t> rows;
    rows.reserve(t.size()); // growing by doubling would copy, and fault in, half as much again
    const auto sent = t.t_sent(), ended = t.t_end();
    for (std::size_t i = 0; i < t.size(); ++i)
        if (is_present(sent.order_key(i)) && is_present(ended.order_key(i))) rows.push_back(static_cast<std::uint32_t>(i));
    sort_by_time(rows, [&](std::uint32_t i) { return sent.order_key(i); });
    return rows;
}

// The requests with both a send and an end time: their rows in send order, and their positions in
// that order sorted by end. The window search and the peak concurrency both walk these (8 bytes a
// request), so the run's times are sorted once for the two. `ends_are_rows`: every row is timed
// and the log is in completion order, so the f-th end is row f's.
struct in_flight_order {
    std::vector<std::uint32_t> rows, ends;
    bool ends_are_rows = false;
};

// Rows are 32-bit and the counts in flight signed 32-bit.
inline bool can_order_in_flight(const request_table& t) {
    return t.size() <= static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max());
}

// Whether every request has both times and the end times never decrease from row to row: a log
// written in completion order, as the load driver and most peers write theirs.
inline bool ends_in_row_order(const request_table& t, std::size_t timed) {
    if (timed != t.size()) return false;
    const auto ended = t.t_end();
    for (std::size_t i = 1; i < t.size(); ++i)
        if (ended.order_key(i) < ended.order_key(i - 1)) return false;
    return true;
}

inline in_flight_order order_in_flight(const request_table& t) {
    in_flight_order out{timed_rows_in_send_order(t), {}};
    const std::size_t n = out.rows.size();
    out.ends.resize(n);
    const auto ended = t.t_end();
    if (ends_in_row_order(t, n)) {
        // The end order is the row order, so the send positions in end order are `rows` inverted:
        // no sort. Equal end times then stand in row order; they are put in send order, as the sort
        // below puts them.
        out.ends_are_rows = true;
        for (std::size_t k = 0; k < n; ++k) out.ends[out.rows[k]] = static_cast<std::uint32_t>(k);
        for (std::size_t first = 0, last = 1; first < n; first = last++) {
            while (last < n && ended.order_key(last) == ended.order_key(first)) ++last;
            if (last - first > 1) std::sort(out.ends.begin() + static_cast<std::ptrdiff_t>(first), out.ends.begin() + static_cast<std::ptrdiff_t>(last));
        }
        return out;
    }
    for (std::size_t k = 0; k < n; ++k) out.ends[k] = static_cast<std::uint32_t>(k);
    sort_by_time(out.ends, [&](std::uint32_t k) { return ended.order_key(out.rows[k]); });
    return out;
}

// Per request in send order: how many requests were in flight when it was sent and when it ended,
// whichever is fewer (each count includes the request itself; in flight means t_sent <= t < t_end,
// as for peak concurrency). A closed loop's first wave is sent into a server holding 1, 2, ... c
// requests; its last requests end with c, c-1, ... 1 still there; in between both counts sit at c.
// Latencies would show the same ends but also whatever the workload puts in a stretch of requests
// (a run of long prompts looks like a warm-up), and time windows of throughput cannot say which
// requests to drop: the drain happens after the last send, when no request is sent any more.
// `peak`: the most requests in flight at once, as peak_in_flight counts them; set only when no
// request is an instant (t_end == t_sent), whose counting differs.
struct in_flight_counts {
    std::vector<std::int32_t> series;
    std::optional<std::size_t> peak;
};

namespace in_flight_walk {

// Both counts are merges of the sorted sends with the sorted ends, walked from the top down without
// a branch on the data: the walk either passes an end or settles a send (or, the other way round,
// passes a send or settles an end), and what it writes for the current one before it knows which is
// overwritten (or, under the min, outweighed) until the step that settles it. A walk that branched
// there mispredicted about once a step, most of its time on 4·10^6 requests.

// series[k] = (sends <= S_k) - (ends <= S_k) + [E of request k == S_k]; the largest
// k + 1 - (ends <= S_k) is the peak when nothing is an instant.
template <class Send, class End, class EndOfSend>
std::size_t count_at_sends(std::size_t n, Send send, End end, EndOfSend end_of_send, std::vector<std::int32_t>& series) {
    std::int64_t k = static_cast<std::int64_t>(n), ends_upto = k, peak = 0;
    bool settled_any = false;       // whether a send is settled yet,
    std::int64_t settled_key = 0;   // the last settled send's time,
    std::int64_t settled_upto = k;  // and sends <= it
    while (k > 0) {
        const std::int64_t s = send(k - 1);
        const std::int64_t e = ends_upto > 0 ? end(ends_upto - 1) : std::numeric_limits<std::int64_t>::min();
        const std::int64_t sends_upto = settled_any && s == settled_key ? settled_upto : k;
        series[static_cast<std::size_t>(k - 1)] =
            static_cast<std::int32_t>(sends_upto - ends_upto + (end_of_send(k - 1) == s ? 1 : 0));
        peak = std::max(peak, k - ends_upto);
        const bool end_after = e > s;
        ends_upto -= end_after;
        settled_any |= !end_after;
        settled_key = end_after ? settled_key : s;
        settled_upto = end_after ? settled_upto : sends_upto;
        k -= !end_after;
    }
    return static_cast<std::size_t>(peak);
}

// series[k] = min(series[k], (sends <= E_k) - (ends <= E_k) + 1), k the send position of each end.
template <class Send, class End>
void count_at_ends(std::size_t n, Send send, End end, std::span<const std::uint32_t> send_position_of_end,
                   std::vector<std::int32_t>& series) {
    std::int64_t f = static_cast<std::int64_t>(n), sends_upto = f;
    bool settled_any = false;
    std::int64_t settled_key = 0, settled_upto = f;
    while (f > 0) {
        const std::int64_t x = end(f - 1);
        const std::int64_t s = sends_upto > 0 ? send(sends_upto - 1) : std::numeric_limits<std::int64_t>::min();
        const std::int64_t ends_upto = settled_any && x == settled_key ? settled_upto : f;
        auto& count = series[send_position_of_end[static_cast<std::size_t>(f - 1)]];
        count = std::min(count, static_cast<std::int32_t>(sends_upto - ends_upto + 1));
        const bool send_after = s > x;
        sends_upto -= send_after;
        settled_any |= !send_after;
        settled_key = send_after ? settled_key : x;
        settled_upto = send_after ? settled_upto : ends_upto;
        f -= !send_after;
    }
}

} // namespace in_flight_walk

inline in_flight_counts count_in_flight(const request_table& t, const in_flight_order& order) {
    const auto& rows = order.rows;
    const std::size_t n = rows.size();
    const auto sent = t.t_sent(), ended = t.t_end(); // compared only: order bits will do
    const auto send = [&](std::int64_t k) { return sent.order_bits(rows[static_cast<std::size_t>(k)]); };
    const auto end_of_send = [&](std::int64_t k) { return ended.order_bits(rows[static_cast<std::size_t>(k)]); };
    in_flight_counts out{std::vector<std::int32_t>(n), std::nullopt};
    const auto walk = [&](auto end) {
        const std::size_t peak = in_flight_walk::count_at_sends(n, send, end, end_of_send, out.series);
        in_flight_walk::count_at_ends(n, send, end, order.ends, out.series);
        return peak;
    };
    const std::size_t peak = order.ends_are_rows
        ? walk([&](std::int64_t f) { return ended.order_bits(static_cast<std::size_t>(f)); })
        : walk([&](std::int64_t f) { return end_of_send(order.ends[static_cast<std::size_t>(f)]); });
    bool instants = false;
    for (std::size_t k = 0; k < n; ++k) instants |= !(end_of_send(static_cast<std::int64_t>(k)) > send(static_cast<std::int64_t>(k)));
    if (!instants) out.peak = peak;
    return out;
}

// Part of a series, read forwards or backwards, without a copy.
template <class Series>
struct series_slice {
    const Series& series;
    std::size_t offset = 0, length = 0;
    bool reversed = false;
    std::size_t size() const noexcept { return length; }
    double operator[](std::size_t i) const { return static_cast<double>(series[offset + (reversed ? length - 1 - i : i)]); }
};

} // namespace detail

// MSER-m (White 1997; MSER-5 with batches of 5, White, Cobb and Spratt 2000): the number of leading
// observations to drop. The series is cut into k batches of `batch_size` (a partial last batch is
// left out), and d* is the d in 0..floor(k/2) minimising the squared marginal standard error of the
// mean of the batch means that remain, sum_{j>=d} (Z_j - mean_d)^2 / (k - d)^2; the smallest d wins
// a tie. Searching only the first half is the rule's own guard: past it, the few batches left make
// the statistic small by chance. Returns d* * batch_size; 0 when there are fewer than 2 batches.
template <class Series> // anything with size() and [] giving numbers
std::size_t mser_truncation(const Series& series, std::size_t batch_size = 5) {
    const std::size_t k = batch_size == 0 ? 0 : series.size() / batch_size;
    if (k < 2) return 0;
    std::vector<double> means(k);
    for (std::size_t j = 0; j < k; ++j) {
        double sum = 0;
        for (std::size_t i = 0; i < batch_size; ++i) sum += static_cast<double>(series[j * batch_size + i]);
        means[j] = sum / static_cast<double>(batch_size);
    }
    std::vector<double> statistic(k / 2 + 1);
    detail::running_spread tail;
    for (std::size_t d = k; d-- > 0;) {
        tail.add(means[d]);
        if (d < statistic.size()) statistic[d] = tail.m2 / (tail.count * tail.count);
    }
    std::size_t best = 0;
    for (std::size_t d = 1; d < statistic.size(); ++d)
        if (statistic[d] < statistic[best]) best = d;
    return best * batch_size;
}

namespace detail {

// MSER assumes the transient is at the start: a drain still in the tail inflates the spread of
// every candidate and stops the rule early (on a closed loop of 64 it dropped 20 of the 64
// ramp-up requests). So the rule runs forwards for the ramp-up and on the reversed series for the
// drain, each time on what the other end left, until neither end moves: then each pass sees one
// transient only. Cuts only grow and each leaves at least half of what it was given, so this ends.
struct trimmed_ends {
    std::size_t start = 0, end = 0;
};

template <class Series>
trimmed_ends trim_both_ends(const Series& series, std::size_t batch_size) {
    trimmed_ends cut;
    const std::size_t n = series.size();
    for (;;) {
        const std::size_t start =
            cut.start + mser_truncation(series_slice<Series>{series, cut.start, n - cut.start - cut.end}, batch_size);
        const std::size_t end =
            cut.end + mser_truncation(series_slice<Series>{series, start, n - start - cut.end, true}, batch_size);
        if (start == cut.start && end == cut.end) return cut;
        cut = {start, end};
    }
}

// A closed loop's first wave goes out within a millisecond: "0.00 s" would hide that the window
// starts after it, so times under a second keep three significant digits.
inline std::string format_run_seconds(double t) {
    return t < 1 ? fmt::format("{:.3g} s", t) : fmt::format("{:.2f} s", t);
}

} // namespace detail

// The window of the requests sent in steady state, or why there is none. Counts follow the cut that
// --steady-state makes (t_sent within [start, end]), failed requests included: they held the
// server too, so they count in flight, and a window keeps them as it keeps the rest.
// `counts`: count_in_flight(r.requests, order), when the caller needs them too (empty: counted here).
inline steady_state_detection detect_steady_state(const run& r, const detail::in_flight_order& order,
                                                 const detail::in_flight_counts& counts,
                                                 const steady_state_options& o = {}) {
    if (r.meta.kind != run_kind::requests) return {std::nullopt, "no per-request measurements"};
    if (!r.meta.shared_clock) return {std::nullopt, "the log has no shared clock"};
    const request_table& t = r.requests;
    if (!detail::can_order_in_flight(t)) return {std::nullopt, "2^31 requests or more: the window search counts them in 32 bits"};
    const auto& rows = order.rows;
    if (rows.size() < o.min_requests)
        return {std::nullopt, fmt::format("{} requests with send and end times; MSER-5 needs at least {}", rows.size(),
                                          o.min_requests)};
    detail::in_flight_counts counted_here;
    const auto& series = counts.series.size() == rows.size() ? counts.series
                                                             : (counted_here = detail::count_in_flight(t, order)).series;
    const auto cut = detail::trim_both_ends(series, o.batch_size);
    steady_state w;
    w.start = t.t_sent()[rows[cut.start]];
    w.end = t.t_sent()[rows[rows.size() - 1 - cut.end]];
    for (double sent : t.t_sent()) {
        if (!is_present(sent)) ++w.untimed;
        else if (sent < w.start) ++w.excluded_start;
        else if (sent > w.end) ++w.excluded_end;
        else ++w.requests;
    }
    return {std::move(w), {}};
}

inline steady_state_detection detect_steady_state(const run& r, const steady_state_options& o = {}) {
    const bool searched = r.meta.kind == run_kind::requests && r.meta.shared_clock && detail::can_order_in_flight(r.requests);
    return detect_steady_state(r, searched ? detail::order_in_flight(r.requests) : detail::in_flight_order{},
                               detail::in_flight_counts{}, o);
}

// "0.611 s – 1.14 s (MSER-5 on requests in flight): 65 ramp-up and 70 drain requests excluded"
// ("... outside it" while the window is only reported).
inline std::string describe(const steady_state& w) {
    std::string out = fmt::format("{} – {} ({}): ", detail::format_run_seconds(w.start),
                                  detail::format_run_seconds(w.end), w.method);
    if (w.excluded_start == 0 && w.excluded_end == 0) out += "no ramp-up or drain found";
    else
        out += fmt::format("{} ramp-up and {} drain requests {}", w.excluded_start, w.excluded_end,
                           w.applied ? "excluded" : "outside it");
    if (w.untimed > 0) out += fmt::format(", {} requests without a send time {}", w.untimed, w.applied ? "excluded" : "in none");
    return out;
}

// More than half of the requests in ramp-up and drain: the run was short for its load, and the
// window, a few batches wide, says little about a longer run.
inline bool mostly_transient(const steady_state& w) {
    return 2 * (w.excluded_start + w.excluded_end) > w.requests + w.excluded_start + w.excluded_end;
}

// The run cut to the requests sent within the window, with a note saying what was removed. A
// window that holds no request (one made by hand, not detected) would leave a run of nothing: an
// input error naming the file, not statistics of zero requests.
inline run cut_to_steady_state(const run& r, const steady_state& w) {
    if (w.requests == 0)
        throw input_error(r.meta.source.path, 0, "",
                          fmt::format("the steady-state window {} holds no request: --steady-state would leave "
                                      "nothing to analyse",
                                      describe(w)));
    run out;
    out.meta = r.meta;
    out.skipped = r.skipped;
    out.requests.reserve(w.requests);
    const request_table& t = r.requests;
    for (std::size_t i = 0; i < t.size(); ++i) {
        const double sent = t.t_sent()[i];
        if (is_present(sent) && sent >= w.start && sent <= w.end) out.requests.push_back(t.row(i));
    }
    steady_state applied = w;
    applied.applied = true;
    out.meta.notes.push_back(fmt::format("steady state {}; statistics cover the {} requests sent within it "
                                         "(--steady-state)",
                                         describe(applied), w.requests));
    return out;
}

} // namespace servestat
