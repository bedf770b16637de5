// Where the time goes: waiting before the first token (or before the server started the request)
// versus generating, as a share of latency at each percentile (seed 004's "queue time is 85%").
#pragma once

#include <array>    // std::array
#include <cstddef>  // std::size_t
#include <optional> // std::optional
#include <span>     // std::span
#include <string>   // std::string
#include <utility>  // std::move
#include <vector>   // std::vector

#include "servestat/core/request_table.hpp" // request_table
#include "servestat/stats/compensated_sum.hpp" // compensated_sum
#include "servestat/stats/quantile.hpp"     // percentiles_select, percentiles_of_parts
#include "servestat/stats/subsets.hpp"      // subset, detail::builtin_subsets, detail::rows_in_no_builtin_subset
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

// use(waiting, latency) of each ok request among `rows` that has both.
template <class Use>
void for_each_wait(const request_table& t, const row_set& rows, bool server, bool scheduled, Use&& use) {
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
}

// Of a subset with `n` requests: the mean share and, at each percentile, waiting against latency.
inline subset_breakdown breakdown_of(std::string name, std::size_t n, const compensated_sum& waiting_sum,
                                     const compensated_sum& total_sum, const std::vector<double>& waiting,
                                     const std::vector<double>& latency, const summary_options& o) {
    subset_breakdown b{std::move(name), n, std::nullopt, {}};
    if (n == 0) return b;
    if (total_sum.value() > 0) b.mean_share = waiting_sum.value() / total_sum.value();
    for (std::size_t k = 0; k < waiting.size(); ++k)
        b.points.push_back({o.percentiles[k], waiting[k], latency[k], latency[k] > 0 ? waiting[k] / latency[k] : 0.0});
    return b;
}

} // namespace detail

// Empty `waiting` and no subsets when the log has neither first-token times nor server queue times.
// `subsets` as split_into_subsets gives them; `values` is scratch space (its contents are replaced).
inline breakdown break_down(const request_table& t, std::span<const subset> subsets, const summary_options& o,
                            std::vector<double>& values) {
    breakdown out;
    const bool server = detail::use_server_queue(t);
    if (!server && !detail::has_any(t.t_first())) return out;
    const bool scheduled = detail::has_any(t.t_sched());
    out.waiting = std::string(scheduled ? "client_queue+" : "") + (server ? "server_queue" : "ttft");
    const auto for_each_wait = [&](const row_set& rows, auto&& use) { detail::for_each_wait(t, rows, server, scheduled, use); };

    // `all` from the parts that split it, as analyze summarises metrics: short, medium, long and the
    // rows with no prompt length, each part's waiting times (then latencies) one after the other in
    // one list, 8 bytes a request, and `all`'s percentiles selected across the parts.
    constexpr std::size_t parts = detail::builtin_subsets;
    const row_set unsplit = detail::rows_in_no_builtin_subset(t, subsets);
    const auto part_rows = [&](std::size_t k) -> const row_set& { return k + 1 < parts ? subsets[k + 1].rows : unsplit; };
    std::array<std::size_t, parts + 1> bounds{};
    std::array<compensated_sum, parts> waiting_sums, total_sums;
    const auto part_values = [&](std::size_t k) { return std::span<double>(values).subspan(bounds[k], bounds[k + 1] - bounds[k]); };
    const auto all_values = [&] {
        std::array<std::span<const double>, parts> spans;
        for (std::size_t k = 0; k < parts; ++k) spans[k] = part_values(k);
        return spans;
    };
    values.clear();
    values.reserve(t.size());
    for (std::size_t k = 0; k < parts; ++k) {
        for_each_wait(part_rows(k), [&](double waiting, double latency) {
            values.push_back(waiting);
            waiting_sums[k].add(waiting);
            total_sums[k].add(latency);
        });
        bounds[k + 1] = values.size();
    }
    const std::size_t n_all = values.size();
    std::array<std::vector<double>, parts> waiting, latency; // percentiles of each part
    std::vector<double> all_waiting, all_latency;
    if (n_all > 0) all_waiting = percentiles_of_parts(all_values(), o.percentiles, o.method);
    for (std::size_t k = 0; k + 1 < parts; ++k)
        if (bounds[k + 1] > bounds[k]) waiting[k] = percentiles_select(part_values(k), o.percentiles, o.method);
    values.clear();
    for (std::size_t k = 0; k < parts; ++k) for_each_wait(part_rows(k), [&](double, double l) { values.push_back(l); });
    if (n_all > 0) all_latency = percentiles_of_parts(all_values(), o.percentiles, o.method);
    for (std::size_t k = 0; k + 1 < parts; ++k)
        if (bounds[k + 1] > bounds[k]) latency[k] = percentiles_select(part_values(k), o.percentiles, o.method);
    compensated_sum all_waiting_sum, all_total_sum;
    for (std::size_t k = 0; k < parts; ++k) {
        all_waiting_sum.merge(waiting_sums[k]);
        all_total_sum.merge(total_sums[k]);
    }
    out.subsets.push_back(detail::breakdown_of(subsets[0].name, n_all, all_waiting_sum, all_total_sum, all_waiting, all_latency, o));
    for (std::size_t k = 0; k + 1 < parts; ++k)
        out.subsets.push_back(detail::breakdown_of(subsets[k + 1].name, bounds[k + 1] - bounds[k], waiting_sums[k], total_sums[k],
                                                   waiting[k], latency[k], o));

    // The buckets given by the user, which may overlap, one at a time.
    for (const subset& part : subsets.subspan(parts)) {
        compensated_sum waiting_sum, total_sum;
        values.clear();
        for_each_wait(part.rows, [&](double w, double l) {
            values.push_back(w);
            waiting_sum.add(w);
            total_sum.add(l);
        });
        const std::size_t n = values.size();
        std::vector<double> w, l;
        if (n > 0) w = percentiles_select(values, o.percentiles, o.method);
        values.clear();
        for_each_wait(part.rows, [&](double, double latency_of) { values.push_back(latency_of); });
        if (n > 0) l = percentiles_select(values, o.percentiles, o.method);
        out.subsets.push_back(detail::breakdown_of(part.name, n, waiting_sum, total_sum, w, l, o));
    }
    return out;
}

inline breakdown break_down(const request_table& t, std::span<const subset> subsets, const summary_options& o) {
    std::vector<double> values;
    return break_down(t, subsets, o, values);
}

} // namespace servestat
