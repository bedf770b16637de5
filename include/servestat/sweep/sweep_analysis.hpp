// What a sweep shows: the notebook's Experiment 3 table, where throughput stops scaling and the
// tail blows up (Kneedle knees), the largest load that meets each SLO, and whether the client kept
// as many requests in flight as it claimed (Little's law).
#pragma once

#include <cstddef>     // std::size_t
#include <optional>    // std::optional
#include <span>        // std::span
#include <string>      // std::string
#include <utility>     // std::pair
#include <vector>      // std::vector

#include <fmt/format.h> // fmt::format

#include "servestat/stats/goodput.hpp"   // slo
#include "servestat/stats/run_stats.hpp" // run_stats
#include "servestat/sweep/kneedle.hpp"   // find_knee
#include "servestat/sweep/sweep.hpp"     // sweep, sweep_value

namespace servestat {

// The sweep table's columns, in order: run level, then p50/p90/p99 of e2e and ttft for all, short
// and long requests.
inline std::vector<std::string> sweep_table_columns() {
    std::vector<std::string> out{"rps", "output_tps", "success_rate"};
    for (const char* subset : {"", "short.", "long."})
        for (const char* m : {"e2e", "ttft"})
            for (const char* p : {"p50", "p90", "p99"}) out.push_back(fmt::format("{}{}.{}", subset, m, p));
    return out;
}

struct sweep_row {
    double load;
    std::string label;
    std::vector<std::optional<double>> values; // one per sweep_table_columns()
};

// A knee of one curve of the sweep: `x` where Kneedle found it, `y` the curve's value there.
struct sweep_knee {
    std::string curve; // "throughput", "p99", "ttft", "tradeoff"
    std::string shape; // the curve and direction Kneedle used, e.g. "convex increasing"
    std::string x_name, y_name;
    std::optional<double> x, y;
    std::optional<double> load; // the load level at the knee (for the tradeoff curve, x is rps)
};

// The largest load meeting an objective "percentile of metric ≤ max_seconds" over all requests.
struct slo_capacity {
    slo objective;
    double percentile;
    std::optional<double> max_load; // empty when no measured load meets it
    bool interpolated = false;      // between the last load meeting it and the first missing it
    bool limited = true;            // false when every measured load meets it
    bool known = true;              // false when no load level has that percentile of that metric
};

// Little's law for a closed loop: requests in flight on average = throughput × mean latency. Far
// fewer than the concurrency the client claims means it could not keep them in flight.
struct little_check {
    double load;
    double in_flight; // rps × mean e2e
    double ratio;     // in_flight / load
};

struct sweep_analysis {
    sweep curve;
    std::vector<sweep_row> rows;
    std::vector<sweep_knee> knees;
    std::vector<slo_capacity> capacity;
    std::vector<little_check> little;
    std::vector<std::string> findings;
};

namespace detail {

// (x, y) pairs of two sweep columns where both are known.
inline std::pair<std::vector<double>, std::vector<double>> sweep_curve(const sweep_analysis& a, std::size_t x_column,
                                                                        std::size_t y_column, bool x_is_load) {
    std::vector<double> xs, ys;
    for (const auto& row : a.rows) {
        const auto x = x_is_load ? std::optional<double>(row.load) : row.values[x_column];
        const auto y = row.values[y_column];
        if (x && y) {
            xs.push_back(*x);
            ys.push_back(*y);
        }
    }
    return {xs, ys};
}

inline std::size_t column_index(std::string_view name) {
    const auto columns = sweep_table_columns();
    for (std::size_t i = 0; i < columns.size(); ++i)
        if (columns[i] == name) return i;
    return columns.size();
}

inline std::optional<double> load_at(const sweep_analysis& a, std::size_t column, double x) {
    for (const auto& row : a.rows)
        if (row.values[column] == x) return row.load;
    return std::nullopt;
}

// `shape` nullopt: detected from the data, as kneed's find_shape does.
inline sweep_knee knee_of(const sweep_analysis& a, const char* name, std::string_view x_name, std::string_view y_name,
                          std::optional<knee_curve> shape) {
    const bool x_is_load = x_name == a.curve.param;
    const auto [xs, ys] = sweep_curve(a, column_index(x_name), column_index(y_name), x_is_load);
    sweep_knee out{name, "", std::string(x_name), std::string(y_name), std::nullopt, std::nullopt, std::nullopt};
    if (xs.size() < 3) return out;
    kneedle_options o;
    o.curve = shape;
    if (shape) o.direction = knee_direction::increasing;
    const knee_result k = find_knee(xs, ys, o);
    out.shape = std::string(to_string(k.curve)).append(" ").append(to_string(k.direction));
    if (!k.knee) return out;
    out.x = k.knee;
    for (std::size_t i = 0; i < xs.size(); ++i)
        if (xs[i] == *k.knee) out.y = ys[i];
    out.load = x_is_load ? k.knee : load_at(a, column_index(x_name), *k.knee);
    return out;
}

inline slo_capacity capacity_for(const sweep_analysis& a, const run_stats* const* points, const slo& objective,
                                 double percentile) {
    slo_capacity out{objective, percentile, std::nullopt, false, true, false};
    const std::string name = fmt::format("{}.{}", to_string(objective.on), percentile_key(percentile));
    std::optional<std::pair<double, double>> last_ok; // (load, value)
    for (std::size_t i = 0; i < a.rows.size(); ++i) {
        const auto value = sweep_value(*points[i], name);
        if (!value) continue;
        out.known = true;
        if (*value <= objective.max_seconds) {
            last_ok = std::pair{a.rows[i].load, *value};
            continue;
        }
        if (last_ok) {
            const auto [load0, value0] = *last_ok;
            out.max_load = load0 + (objective.max_seconds - value0) / (*value - value0) * (a.rows[i].load - load0);
            out.interpolated = true;
        }
        return out; // the first load missing the objective ends the search
    }
    out.limited = !out.known;
    if (last_ok) out.max_load = last_ok->first;
    return out;
}

inline std::string format_load(const std::string& param, double load) {
    return param == "concurrency" ? fmt::format("c={:g}", load) : fmt::format("{}={:g}", param, load);
}

inline void add_findings(sweep_analysis& a) {
    const auto rps = column_index("rps"), p99 = column_index("e2e.p99");
    const auto short_p99 = column_index("short.e2e.p99"), long_p99 = column_index("long.e2e.p99");
    const std::string& param = a.curve.param;
    for (const auto& k : a.knees) {
        if (k.curve != "throughput" || !k.load || !k.y) continue;
        const sweep_row* at = nullptr;
        for (const auto& row : a.rows)
            if (row.load == *k.load) at = &row;
        const sweep_row& last = a.rows.back();
        std::string text = fmt::format("Throughput saturates at ~{:.3g} req/s from {}", *k.y, format_load(param, *k.load));
        if (at && at != &last && at->values[p99] && last.values[p99] && last.values[rps] && *at->values[p99] > 0)
            text += fmt::format("; from {} to {} p99 grows {:.1f}× while throughput changes {:+.0f}%",
                                format_load(param, *k.load), format_load(param, last.load),
                                *last.values[p99] / *at->values[p99], 100 * (*last.values[rps] / *k.y - 1));
        a.findings.push_back(text + ".");
    }
    const auto& first = a.rows.front();
    const auto& last = a.rows.back();
    if (last.values[short_p99] && last.values[long_p99] && *last.values[long_p99] > 0) {
        const double end_ratio = *last.values[short_p99] / *last.values[long_p99];
        const bool started_apart = first.values[short_p99] && first.values[long_p99] &&
                                   *first.values[short_p99] < 0.5 * *first.values[long_p99];
        if (end_ratio >= 0.7 && (started_apart || !first.values[long_p99]))
            a.findings.push_back(fmt::format(
                "Short requests' p99 converges to long requests' at {} ({} vs {} s): short prompts wait behind long "
                "prefills.",
                format_load(param, last.load), fmt::format("{:.2f}", *last.values[short_p99]),
                fmt::format("{:.2f}", *last.values[long_p99])));
    }
    for (const auto& c : a.little)
        if (c.ratio < 0.8) {
            a.findings.push_back(fmt::format(
                "At {} only {:.1f} requests were in flight on average (Little's law: rps × mean latency), {:.0f}% "
                "of the concurrency: the client, not the server, may be the bottleneck.",
                format_load(param, c.load), c.in_flight, 100 * c.ratio));
            break;
        }
}

} // namespace detail

// Everything a report says about one sweep of `runs`. `slos` and `slo_percentile` give the
// objectives whose largest passing load is reported.
inline sweep_analysis analyze_sweep(const sweep& s, std::span<const run_stats> runs, std::span<const slo> slos = {},
                                    double slo_percentile = 95) {
    sweep_analysis a{s, {}, {}, {}, {}, {}};
    const auto columns = sweep_table_columns();
    std::vector<const run_stats*> points;
    for (const auto& p : s.points) {
        const run_stats& r = runs[p.run];
        points.push_back(&r);
        sweep_row row{p.load, r.meta.label, {}};
        for (const auto& c : columns) row.values.push_back(sweep_value(r, c));
        a.rows.push_back(std::move(row));
    }
    // Throughput rises and flattens; the tail blows up. TTFT may do either (under an open-loop
    // overload it climbs fast and plateaus once every request queues), so its shape is detected.
    a.knees.push_back(detail::knee_of(a, "throughput", s.param, "rps", knee_curve::concave));
    a.knees.push_back(detail::knee_of(a, "p99", s.param, "e2e.p99", knee_curve::convex));
    a.knees.push_back(detail::knee_of(a, "ttft", s.param, "ttft.p99", std::nullopt));
    a.knees.push_back(detail::knee_of(a, "tradeoff", "rps", "e2e.p99", knee_curve::convex));
    for (const auto& objective : slos) a.capacity.push_back(detail::capacity_for(a, points.data(), objective, slo_percentile));
    if (s.param == "concurrency" || s.param == "max_concurrency")
        for (std::size_t i = 0; i < a.rows.size(); ++i) {
            const auto rps = sweep_value(*points[i], "rps"), mean = sweep_value(*points[i], "e2e.mean");
            if (rps && mean && a.rows[i].load > 0)
                a.little.push_back({a.rows[i].load, *rps * *mean, *rps * *mean / a.rows[i].load});
        }
    detail::add_findings(a);
    return a;
}

} // namespace servestat
