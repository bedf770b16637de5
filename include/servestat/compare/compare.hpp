// Before/after comparison of two runs: per subset, metric and statistic the change, a seeded
// bootstrap confidence interval of it, a Mann–Whitney U p-value for the shift of the distribution,
// and a verdict; at run level the success rate and goodput (bootstrapped over requests) and the
// throughputs (one measurement per run, so no interval).
#pragma once

#include <algorithm>   // std::sort, std::min
#include <cstddef>     // std::size_t
#include <optional>    // std::optional
#include <span>        // std::span
#include <string>      // std::string
#include <string_view> // std::string_view
#include <vector>      // std::vector

#include <fmt/format.h> // fmt::format

#include "servestat/compare/verdict.hpp"    // verdict, decide, fewest_requests_for
#include "servestat/core/run.hpp"           // run
#include "servestat/stats/bootstrap.hpp"    // sorted_resampler, percentile_interval
#include "servestat/stats/mann_whitney.hpp" // mann_whitney_u
#include "servestat/stats/run_stats.hpp"    // analyze, run_stats, stats_options

namespace servestat {

struct compare_options {
    stats_options stats; // subsets, SLOs (goodput), quantile method and ddof of the point values
    std::vector<double> percentiles{50, 90, 99};
    // itl is left out: its values are chunk gaps clustered within requests, not independent draws.
    std::vector<metric> metrics{metric::e2e,          metric::ttft,          metric::tpot,
                                metric::decode,       metric::e2e_sched,     metric::client_queue,
                                metric::server_queue, metric::server_prefill, metric::server_decode};
    verdict_options verdicts;
    bootstrap_options bootstrap;
};

inline void validate(const compare_options& o) {
    validate(o.stats.summary);
    validate(o.stats.subsets);
    validate(o.verdicts);
    validate(o.bootstrap);
    for (double p : o.percentiles)
        if (!(p >= 0 && p <= 100)) throw usage_error(fmt::format("percentile {} is outside 0..100", p));
    for (metric m : o.metrics)
        if (m == metric::itl) throw usage_error("itl cannot be compared: its chunk gaps are not independent samples");
}

// One statistic before and after.
struct change {
    std::string name;      // "e2e.p99", "short.ttft.mean", "rps", "success_rate"
    std::string subset;    // "all", "short", ...; empty at run level
    std::string metric;    // "e2e", ..., or a run-level name
    std::string statistic; // "p50", "mean"; empty at run level
    bool lower_is_better = true;
    std::size_t n_before = 0, n_after = 0; // values each side had (requests at run level)
    std::optional<double> before, after;
    std::optional<double> delta;    // after - before
    std::optional<double> relative; // after / before - 1, when before > 0
    std::optional<interval> delta_ci, relative_ci;
    std::optional<double> p_value; // Mann–Whitney U, two-sided, on the whole distribution
    verdict result = verdict::no_change;
};

struct run_comparison {
    run_stats before, after;
    std::vector<change> changes; // run level first, then subset by subset, metric by metric
};

namespace detail {

struct bootstrapped_statistic {
    std::optional<double> before, after;
    std::optional<interval> delta_ci, relative_ci;
};

inline std::optional<double> relative_change(std::optional<double> before, std::optional<double> after) {
    if (!before || !after || !(*before > 0)) return std::nullopt;
    return *after / *before - 1;
}

// The point values (numpy semantics, as `servestat stats` prints them) and bootstrap intervals of
// the percentiles and the mean of two sorted samples, in that order. Both sides are resampled
// independently from one generator seeded by `name`.
inline std::vector<bootstrapped_statistic> bootstrap_statistics(std::span<const double> before, std::span<const double> after,
                                                                 std::span<const double> percentiles,
                                                                 const compare_options& o, std::string_view name) {
    const std::size_t count = percentiles.size() + 1;
    std::vector<bootstrapped_statistic> out(count);
    const summary_options point{.method = o.stats.summary.method, .ddof = o.stats.summary.ddof,
                                .percentiles = {percentiles.begin(), percentiles.end()}};
    auto fill_points = [&](std::span<const double> sample, auto member) {
        if (sample.empty()) return;
        const summary s = summarize(sample, point);
        for (std::size_t k = 0; k < percentiles.size(); ++k) out[k].*member = s.percentiles[k].value;
        out[count - 1].*member = s.mean;
    };
    fill_points(before, &bootstrapped_statistic::before);
    fill_points(after, &bootstrapped_statistic::after);
    if (before.empty() || after.empty()) return out;

    sorted_resampler resample_before(before, percentiles, o.stats.summary.method);
    sorted_resampler resample_after(after, percentiles, o.stats.summary.method);
    auto rng = bootstrap_rng(o.bootstrap.seed, name);
    std::vector<double> b(count), a(count);
    std::vector<std::vector<double>> deltas(count), ratios(count);
    for (std::size_t r = 0; r < o.bootstrap.resamples; ++r) {
        resample_before.draw(rng, b);
        resample_after.draw(rng, a);
        for (std::size_t k = 0; k < count; ++k) {
            deltas[k].push_back(a[k] - b[k]);
            if (b[k] > 0) ratios[k].push_back(a[k] / b[k] - 1);
        }
    }
    for (std::size_t k = 0; k < count; ++k) {
        out[k].delta_ci = percentile_interval(deltas[k], o.verdicts.confidence);
        // A resample whose baseline is 0 has no relative change; the interval then says nothing.
        if (relative_change(out[k].before, out[k].after) && ratios[k].size() == o.bootstrap.resamples)
            out[k].relative_ci = percentile_interval(ratios[k], o.verdicts.confidence);
    }
    return out;
}

inline bool enough_for(std::string_view statistic, double p, std::size_t n, const verdict_options& o) {
    if (statistic == "mean") return n >= 2;
    const auto fewest = fewest_requests_for(p, o.confidence);
    return fewest && n >= *fewest;
}

inline change make_change(std::string subset, std::string metric_name, std::string statistic, bool lower_is_better,
                          std::size_t n_before, std::size_t n_after) {
    change c;
    if (!subset.empty() && subset != "all") c.name = subset + ".";
    c.name.append(metric_name);
    if (!statistic.empty()) c.name.append(".").append(statistic);
    c.subset = std::move(subset);
    c.metric = std::move(metric_name);
    c.statistic = std::move(statistic);
    c.lower_is_better = lower_is_better;
    c.n_before = n_before;
    c.n_after = n_after;
    return c;
}

inline void settle(change& c, const bootstrapped_statistic& s, std::optional<double> p_value, bool enough,
                   const verdict_options& o) {
    c.before = s.before;
    c.after = s.after;
    if (c.before && c.after) c.delta = *c.after - *c.before;
    c.relative = relative_change(c.before, c.after);
    c.delta_ci = s.delta_ci;
    c.relative_ci = s.relative_ci;
    c.p_value = p_value;
    if (!enough || !p_value || !c.delta_ci) c.result = verdict::too_few;
    else c.result = decide({*p_value, c.relative_ci, c.delta_ci, c.lower_is_better}, o);
}

// Every statistic of one metric in one subset; nothing when neither side has a value.
inline void compare_metric(std::vector<double> before, std::vector<double> after, const std::string& subset,
                           const std::string& metric_name, const compare_options& o, std::vector<change>& out) {
    if (before.empty() && after.empty()) return;
    std::sort(before.begin(), before.end());
    std::sort(after.begin(), after.end());
    const auto stats = bootstrap_statistics(before, after, o.percentiles, o, subset + "." + metric_name);
    std::optional<double> p;
    if (!before.empty() && !after.empty()) p = mann_whitney_u(before, after).p;
    for (std::size_t k = 0; k < stats.size(); ++k) {
        const bool is_mean = k == o.percentiles.size();
        const double percentile = is_mean ? 0 : o.percentiles[k];
        change c = make_change(subset, metric_name, is_mean ? "mean" : percentile_key(percentile), true, before.size(),
                               after.size());
        const std::size_t n = std::min(before.size(), after.size());
        settle(c, stats[k], p, enough_for(c.statistic, percentile, n, o.verdicts), o.verdicts);
        out.push_back(std::move(c));
    }
}

// A share of requests (success rate, goodput): each request a 1 or a 0, bootstrapped over requests.
inline void compare_share(std::vector<double> before, std::vector<double> after, const std::string& name,
                          const compare_options& o, std::vector<change>& out) {
    std::sort(before.begin(), before.end());
    std::sort(after.begin(), after.end());
    const auto stats = bootstrap_statistics(before, after, {}, o, name);
    std::optional<double> p;
    if (!before.empty() && !after.empty()) p = mann_whitney_u(before, after).p;
    change c = make_change("", name, "", false, before.size(), after.size());
    settle(c, stats.back(), p, std::min(before.size(), after.size()) >= 2, o.verdicts);
    out.push_back(std::move(c));
}

// A rate with one value per run: no resampling can give it an interval.
inline void compare_single(std::optional<double> before, std::optional<double> after, const std::string& name,
                           std::vector<change>& out) {
    if (!before && !after) return;
    change c = make_change("", name, "", false, 1, 1);
    c.before = before;
    c.after = after;
    if (before && after) c.delta = *after - *before;
    c.relative = relative_change(before, after);
    c.result = verdict::single;
    out.push_back(std::move(c));
}

template <class Keep>
std::vector<double> indicators(const request_table& t, Keep&& keep) {
    std::vector<double> out;
    out.reserve(t.size());
    for (std::size_t i = 0; i < t.size(); ++i) out.push_back(keep(i) ? 1.0 : 0.0);
    return out;
}

inline void compare_run_level(const run& before, const run& after, const run_comparison& rc, const compare_options& o,
                              std::vector<change>& out) {
    compare_single(rc.before.rps, rc.after.rps, "rps", out);
    compare_single(rc.before.output_tps, rc.after.output_tps, "output_tps", out);
    auto succeeded = [](const request_table& t) {
        return indicators(t, [&](std::size_t i) { return t.status()[i] == request_status::ok; });
    };
    compare_share(succeeded(before.requests), succeeded(after.requests), "success_rate", o, out);
    if (o.stats.slos.empty()) return;
    auto good = [&](const request_table& t) {
        return indicators(t, [&](std::size_t i) { return meets_slos(t, i, o.stats.slos); });
    };
    compare_share(good(before.requests), good(after.requests), "goodput_share", o, out);
    compare_single(rc.before.goodput ? rc.before.goodput->rps : std::nullopt,
                   rc.after.goodput ? rc.after.goodput->rps : std::nullopt, "goodput_rps", out);
}

} // namespace detail

// Compares two runs with per-request data. Deterministic: the same runs, options and seed give
// the same intervals.
inline run_comparison compare_runs(const run& before, const run& after, const compare_options& o = {}) {
    validate(o);
    run_comparison rc{analyze(before, o.stats), analyze(after, o.stats), {}};
    detail::compare_run_level(before, after, rc, o, rc.changes);
    const auto subsets_before = split_into_subsets(before.requests, o.stats.subsets);
    const auto subsets_after = split_into_subsets(after.requests, o.stats.subsets);
    for (std::size_t s = 0; s < subsets_before.size(); ++s)
        for (metric m : o.metrics) {
            std::vector<double> b, a;
            collect_metric(before.requests, m, subsets_before[s].rows, b);
            collect_metric(after.requests, m, subsets_after[s].rows, a);
            detail::compare_metric(std::move(b), std::move(a), subsets_before[s].name, std::string(to_string(m)), o,
                                   rc.changes);
        }
    return rc;
}

// The change called `name` ("e2e.p99", "short.ttft.p50", "rps"), if it was compared.
inline const change* find_change(const run_comparison& rc, std::string_view name) {
    for (const auto& c : rc.changes)
        if (c.name == name) return &c;
    return nullptr;
}

} // namespace servestat
