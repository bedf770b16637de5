// Where the time goes: waiting before the first token (or before the server started the request)
// versus generating, as a share of latency at each percentile (seed 004's "queue time is 85%").
#pragma once

#include <cstddef>  // std::size_t
#include <optional> // std::optional
#include <span>     // std::span
#include <string>   // std::string
#include <vector>   // std::vector

#include "servestat/core/request_table.hpp" // request_table
#include "servestat/stats/compensated_sum.hpp" // compensated_sum
#include "servestat/stats/quantile.hpp"     // percentiles_select
#include "servestat/stats/subsets.hpp"      // subset
#include "servestat/stats/summary.hpp"      // summary_options

namespace servestat {

struct breakdown_point {
    double p;
    double waiting; // p-th percentile of per-request waiting time, s
    double total;   // p-th percentile of per-request latency from t_sched (or t_sent), s
    double share;   // waiting / total: the fraction of latency spent waiting at this percentile
};

struct subset_breakdown {
    std::string subset;
    std::size_t n = 0;                 // ok requests with the timestamps needed
    std::optional<double> mean_share;  // sum of waiting / sum of latency
    std::vector<breakdown_point> points;
};

struct breakdown {
    // What "waiting" means for this run: client_queue+server_queue when the server reported its
    // queue time, else client_queue+ttft (queue plus prefill, all the user waits before output).
    // client_queue is included only when the log has t_sched.
    std::string waiting;
    std::vector<subset_breakdown> subsets;
};

namespace detail {

inline bool use_server_queue(const request_table& t) {
    for (double q : t.server_queue())
        if (is_present(q)) return true;
    return false;
}

template <class Column>
bool has_any(const Column& column) {
    for (double x : column)
        if (is_present(x)) return true;
    return false;
}

} // namespace detail

// Empty `waiting` and no subsets when the log has neither first-token times nor server queue times.
// `values` is scratch space (its contents are replaced).
inline breakdown break_down(const request_table& t, std::span<const subset> subsets, const summary_options& o,
                            std::vector<double>& values) {
    breakdown out;
    const bool server = detail::use_server_queue(t);
    if (!server && !detail::has_any(t.t_first())) return out;
    const bool scheduled = detail::has_any(t.t_sched());
    out.waiting = std::string(scheduled ? "client_queue+" : "") + (server ? "server_queue" : "ttft");

    // One list of values at a time, taken again for the latency: 8 bytes a request, not 16.
    for (const subset& part : subsets) {
        const row_set& rows = part.rows; // not a structured binding: clang 14 cannot capture one
        compensated_sum waiting_sum, total_sum;
        const auto for_each_request = [&](auto&& use) { // use(waiting, latency) of each ok request with both
            rows.visit([&](const auto& listed) {
                for (auto i : listed) {
                    if (t.status()[i] != request_status::ok) continue;
                    const double start = scheduled && is_present(t.t_sched()[i]) ? t.t_sched()[i] : t.t_sent()[i];
                    const double before_server = t.t_sent()[i] - start;
                    const double in_server = server ? t.server_queue()[i] : t.t_first()[i] - t.t_sent()[i];
                    const double latency = t.t_end()[i] - start;
                    if (is_present(in_server) && is_present(latency)) use(before_server + in_server, latency);
                }
            });
        };
        values.clear();
        values.reserve(rows.size());
        for_each_request([&](double waiting, double latency) {
            values.push_back(waiting);
            waiting_sum.add(waiting);
            total_sum.add(latency);
        });
        subset_breakdown b{part.name, values.size(), std::nullopt, {}};
        if (!values.empty()) {
            if (total_sum.value() > 0) b.mean_share = waiting_sum.value() / total_sum.value();
            const auto w = percentiles_select(values, o.percentiles, o.method);
            values.clear();
            for_each_request([&](double, double latency) { values.push_back(latency); });
            const auto l = percentiles_select(values, o.percentiles, o.method);
            for (std::size_t k = 0; k < w.size(); ++k)
                b.points.push_back({o.percentiles[k], w[k], l[k], l[k] > 0 ? w[k] / l[k] : 0.0});
        }
        out.subsets.push_back(std::move(b));
    }
    return out;
}

inline breakdown break_down(const request_table& t, std::span<const subset> subsets, const summary_options& o) {
    std::vector<double> values;
    return break_down(t, subsets, o, values);
}

} // namespace servestat
