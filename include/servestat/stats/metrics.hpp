// Per-request latency metrics (DESIGN.md's table) and how each is derived from a request's times.
#pragma once

#include <array>       // std::array
#include <cmath>       // std::isnan
#include <cstddef>     // std::size_t
#include <cstdint>     // std::uint32_t
#include <optional>    // std::optional
#include <span>        // std::span
#include <string>      // std::string
#include <string_view> // std::string_view
#include <vector>      // std::vector

#include "servestat/core/errors.hpp"        // usage_error
#include "servestat/core/request_table.hpp" // request_table
#include "servestat/stats/row_set.hpp"       // row_set

namespace servestat {

enum class metric {
    e2e,          // t_end - t_sent
    ttft,         // t_first - t_sent
    decode,       // t_end - t_first
    tpot,         // decode / (output_tokens - 1), output_tokens > 1
    itl,          // pooled chunk gaps: one value per gap, not per request
    client_queue, // t_sent - t_sched
    e2e_sched,    // t_end - t_sched
    server_queue,
    server_prefill,
    server_decode,
    server_ttft,  // the server's own time to first token, where it reports one number
    server_itl,   // the server's mean inter-token latency of the request
};

inline constexpr std::array<metric, 12> all_metrics{
    metric::e2e,       metric::ttft,         metric::decode,         metric::tpot,
    metric::itl,       metric::client_queue, metric::e2e_sched,      metric::server_queue,
    metric::server_prefill, metric::server_decode, metric::server_ttft, metric::server_itl};

inline std::string_view to_string(metric m) noexcept {
    constexpr std::array<std::string_view, 12> names{"e2e",          "ttft",      "decode",
                                                     "tpot",         "itl",       "client_queue",
                                                     "e2e_sched",    "server_queue", "server_prefill",
                                                     "server_decode", "server_ttft", "server_itl"};
    return names[static_cast<std::size_t>(m)];
}

// Whether a failed request (status other than ok) counts as +∞ in the metric's percentiles with
// failures (percentile_value::with_failed): the metrics that time a milestone of a successful
// response from the client's side. A request that failed never delivered one, so its time to it is
// unbounded; one cancelled on purpose or cut off is censored (at least as long as it ran), and +∞
// bounds its percentile from above as the successes-only value bounds it from below. ttft counts
// a failed request that had streamed its first token as +∞ too (the token began a response that
// failed; AIPerf does the same, and goodput never counts such a request as good). Not per-token
// rates (tpot, itl), nor phases a failure does not lengthen (decode, client_queue), nor the
// server's own phase times.
inline constexpr bool failures_unbounded(metric m) noexcept {
    return m == metric::e2e || m == metric::ttft || m == metric::e2e_sched;
}

inline metric parse_metric(std::string_view name) {
    for (metric m : all_metrics)
        if (to_string(m) == name) return m;
    std::string valid;
    for (metric m : all_metrics) valid += (valid.empty() ? "" : ", ") + std::string(to_string(m));
    throw usage_error("unknown metric '" + std::string(name) + "' (valid: " + valid + ")");
}

// The value of a one-value-per-request metric for row i, if its inputs are present. Not for itl.
inline std::optional<double> metric_value(const request_table& t, metric m, std::size_t i) {
    auto difference = [](double later, double earlier) -> std::optional<double> {
        if (!is_present(later) || !is_present(earlier)) return std::nullopt;
        return later - earlier;
    };
    auto optional_column = [i](std::span<const double> column) -> std::optional<double> {
        if (column.empty() || !is_present(column[i])) return std::nullopt;
        return column[i];
    };
    switch (m) {
    case metric::e2e: return difference(t.t_end()[i], t.t_sent()[i]);
    case metric::ttft: return difference(t.t_first()[i], t.t_sent()[i]);
    case metric::decode: return difference(t.t_end()[i], t.t_first()[i]);
    case metric::tpot: {
        const auto decode = difference(t.t_end()[i], t.t_first()[i]);
        const auto tokens = t.output_tokens()[i];
        if (!decode || tokens <= 1) return std::nullopt;
        return *decode / static_cast<double>(tokens - 1);
    }
    case metric::client_queue: return difference(t.t_sent()[i], t.t_sched()[i]);
    case metric::e2e_sched: return difference(t.t_end()[i], t.t_sched()[i]);
    case metric::server_queue: return optional_column(t.server_queue());
    case metric::server_prefill: return optional_column(t.server_prefill());
    case metric::server_decode: return optional_column(t.server_decode());
    case metric::server_ttft: return optional_column(t.server_ttft());
    case metric::server_itl: return optional_column(t.server_itl());
    case metric::itl: break;
    }
    throw usage_error("itl has one value per chunk gap, not per request");
}

namespace detail {

// Appends value(i) for the successful requests i among `rows` where it is not NaN (a difference
// with an absent time is NaN). One loop per metric, with the metric's arithmetic inlined: a call
// per value that switched on the metric took 12 % of `stats`.
template <class Rows, class Value>
void collect_successful(const Rows& rows, std::span<const request_status> status, Value value,
                        std::vector<double>& out) {
    const std::size_t start = out.size();
    out.resize(start + rows.size());
    std::size_t n = start;
    for (auto i : rows) {
        if (status[i] != request_status::ok) continue;
        const double v = value(i);
        out[n] = v;
        n += !std::isnan(v);
    }
    out.resize(n);
}

template <class Rows> // a span of rows, or the range of every row
void collect_metric_over(const request_table& t, metric m, const Rows& rows, std::vector<double>& out) {
    const auto status = t.status();
    const auto sched = t.t_sched(), sent = t.t_sent(), first = t.t_first(), end = t.t_end();
    const auto difference = [&](const time_column& later, const time_column& earlier) {
        detail::collect_successful(rows, status, [&](std::uint32_t i) { return later[i] - earlier[i]; }, out);
    };
    const auto column = [&](std::span<const double> values) {
        if (!values.empty()) detail::collect_successful(rows, status, [&](std::uint32_t i) { return values[i]; }, out);
    };
    switch (m) {
    case metric::e2e: return difference(end, sent);
    case metric::ttft: return difference(first, sent);
    case metric::decode: return difference(end, first);
    case metric::tpot: {
        const auto tokens = t.output_tokens();
        return detail::collect_successful(rows, status, [&](std::uint32_t i) {
            return tokens[i] > 1 ? (end[i] - first[i]) / static_cast<double>(tokens[i] - 1) : absent_time;
        }, out);
    }
    case metric::client_queue: return difference(sent, sched);
    case metric::e2e_sched: return difference(end, sched);
    case metric::server_queue: return column(t.server_queue());
    case metric::server_prefill: return column(t.server_prefill());
    case metric::server_decode: return column(t.server_decode());
    case metric::server_ttft: return column(t.server_ttft());
    case metric::server_itl: return column(t.server_itl());
    case metric::itl:
        if (!t.has_itl()) return;
        for (auto i : rows)
            if (status[i] == request_status::ok) {
                const auto gaps = t.itl(i);
                out.insert(out.end(), gaps.begin(), gaps.end());
            }
        return;
    }
}

} // namespace detail

// Appends the metric's values over the successful requests among `rows`. Failed requests never
// enter latency statistics.
inline void collect_metric(const request_table& t, metric m, const row_set& rows, std::vector<double>& out) {
    rows.visit([&](const auto& r) { detail::collect_metric_over(t, m, r, out); });
}

struct paired_values {
    std::vector<double> x, y;
};

// Calls visit(count, e2e) for every successful request that has both, in row order.
template <class Visit>
void for_each_latency_against_count(const request_table& t, count_column counts, Visit&& visit) {
    const auto status = t.status();
    const auto sent = t.t_sent(), end = t.t_end(); // columns read inline: metric_value per row was half the time
    for (std::size_t i = 0; i < t.size(); ++i) {
        if (status[i] != request_status::ok || !is_present(counts[i])) continue;
        const double s = sent[i], e = end[i];
        if (is_present(s) && is_present(e)) visit(static_cast<double>(counts[i]), e - s);
    }
}

// (count, e2e) of every successful request that has both: how latency scales with a size such as
// output or prompt tokens.
inline paired_values latency_against_count(const request_table& t, count_column counts) {
    paired_values out;
    out.x.reserve(t.size()); // no copy on growth; the pages past the pairs are never touched
    out.y.reserve(t.size());
    for_each_latency_against_count(t, counts, [&](double count, double e2e) {
        out.x.push_back(count);
        out.y.push_back(e2e);
    });
    return out;
}

} // namespace servestat
