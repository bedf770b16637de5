// A cold start: the first requests of a run far slower than the rest (a server compiling graphs,
// loading weights or warming caches as the load begins), and so slow that they set the run's tail.
// Its p99 then says how the server starts, not how it serves; the run is measured once it has warmed
// up, or with --steady-state. docs/sweeps.md#run-validity.
//
// The head is the first 2% of the successful requests in order of sending (3 at least, a tenth at
// most); it is a cold start when its median is more than 3× the rest's, at least half of it is above
// the rest's p99, and the run's p99 is more than 20% above the rest's. The metric is TTFT (where the
// warm-up shows first), else e2e. Runs of fewer than 50 successful requests are not judged: a p99 of
// fewer says too little to be set by anything.
#pragma once

#include <algorithm> // std::sort, std::max, std::min, std::count_if
#include <cmath>     // std::ceil, std::nan
#include <cstddef>   // std::size_t, std::ptrdiff_t
#include <optional>  // std::optional
#include <utility>   // std::pair
#include <vector>    // std::vector

#include "servestat/core/request_status.hpp" // request_status
#include "servestat/core/request_table.hpp"  // request_table, is_present
#include "servestat/stats/metrics.hpp"       // metric
#include "servestat/stats/quantile.hpp"      // percentile_sorted

namespace servestat {

struct cold_start_options {
    double head_share = 0.02;     // the first requests judged: this share of the successful ones
    std::size_t min_head = 3;
    double max_head_share = 0.10;
    double slower = 3.0;          // the head's median above this many times the rest's
    double tail_factor = 1.2;     // the run's p99 above this many times the rest's
    std::size_t min_requests = 50;
};

struct cold_start {
    metric on = metric::ttft;
    std::size_t head = 0;          // the first requests judged
    std::size_t above_rest_p99 = 0; // of them, those above the rest's p99
    double head_median = 0, rest_median = 0; // seconds
    double p99 = 0, rest_p99 = 0;            // the run's p99, and the rest's
};

namespace detail {

// The metric's values of the successful requests in order of sending; empty when some lacks it.
inline std::vector<double> values_in_send_order(const request_table& t, metric on) {
    std::vector<std::pair<double, double>> rows; // (sent, value)
    const auto sent = t.t_sent(), first = t.t_first(), end = t.t_end();
    for (std::size_t i = 0; i < t.size(); ++i) {
        if (t.status()[i] != request_status::ok) continue;
        const double s = sent[i], stop = on == metric::ttft ? (first.empty() ? std::nan("") : first[i]) : end[i];
        if (!is_present(s) || !is_present(stop)) return {};
        rows.emplace_back(s, stop - s);
    }
    std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<double> out;
    for (const auto& r : rows) out.push_back(r.second);
    return out;
}

inline double sorted_percentile(std::vector<double> v, double p) {
    std::sort(v.begin(), v.end());
    return percentile_sorted(v, p);
}

inline std::optional<cold_start> cold_start_on(const std::vector<double>& values, metric on, const cold_start_options& o) {
    const std::size_t n = values.size();
    if (n < o.min_requests) return std::nullopt;
    const auto head = std::min(std::max(o.min_head, static_cast<std::size_t>(std::ceil(o.head_share * static_cast<double>(n)))),
                               static_cast<std::size_t>(o.max_head_share * static_cast<double>(n)));
    const std::vector<double> first(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(head));
    const std::vector<double> rest(values.begin() + static_cast<std::ptrdiff_t>(head), values.end());
    cold_start c{on, head, 0, sorted_percentile(first, 50), sorted_percentile(rest, 50), sorted_percentile(values, 99),
                 sorted_percentile(rest, 99)};
    c.above_rest_p99 = static_cast<std::size_t>(std::count_if(first.begin(), first.end(), [&](double v) { return v > c.rest_p99; }));
    const bool slower = c.head_median > o.slower * c.rest_median;
    const bool mostly_above = 2 * c.above_rest_p99 >= head;
    const bool sets_tail = c.p99 > o.tail_factor * c.rest_p99;
    if (!(slower && mostly_above && sets_tail)) return std::nullopt;
    return c;
}

} // namespace detail

// The run's cold start, judged on TTFT where every successful request has one, else on e2e.
inline std::optional<cold_start> detect_cold_start(const request_table& t, const cold_start_options& o = {}) {
    if (const auto ttft = detail::values_in_send_order(t, metric::ttft); !ttft.empty()) return detail::cold_start_on(ttft, metric::ttft, o);
    return detail::cold_start_on(detail::values_in_send_order(t, metric::e2e), metric::e2e, o);
}

} // namespace servestat
