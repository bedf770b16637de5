// Before/after comparison of two runs: per subset, metric and statistic the change, a confidence
// interval of it (a percentile's from both sides' order statistics, exact at every n; a mean's by
// Welch's t and Fieller's ratio interval; a share's from a seeded bootstrap), a Mann–Whitney U
// p-value for the shift of the distribution, and a verdict; at run level the success rate and
// goodput (bootstrapped over requests) and the throughputs (one measurement per run, so no interval).
#pragma once

#include <algorithm>   // std::sort, std::min, std::any_of
#include <cmath>       // std::isnan
#include <cstdint>     // std::uint32_t
#include <iterator>    // std::make_move_iterator, std::back_inserter
#include <limits>      // std::numeric_limits
#include <cstddef>     // std::size_t
#include <optional>    // std::optional
#include <span>        // std::span
#include <string>      // std::string
#include <string_view> // std::string_view
#include <utility>     // std::pair, std::move
#include <vector>      // std::vector

#include <fmt/format.h> // fmt::format

#include "servestat/compare/verdict.hpp"    // verdict, decide
#include "servestat/core/parallel.hpp"      // parallel_for, worker_count
#include "servestat/core/progress.hpp"      // progress_state, progress_scope
#include "servestat/core/run.hpp"           // run
#include "servestat/stats/bootstrap.hpp"    // request_resampler, percentile_interval (of the draws)
#include "servestat/stats/mann_whitney.hpp" // mann_whitney_u
#include "servestat/stats/mean_change_interval.hpp" // welch_interval, fieller_relative_interval
#include "servestat/stats/percentile_change_interval.hpp" // percentile_change_interval
#include "servestat/stats/run_stats.hpp"    // analyze, run_stats, stats_options
#include "servestat/stats/sample_size.hpp"  // rests_on_few_samples

namespace servestat {

struct compare_options {
    stats_options stats; // subsets, SLOs (goodput), quantile method and ddof of the point values
    std::vector<double> percentiles{50, 90, 99};
    // itl is left out: its values are chunk gaps clustered within requests, not independent draws.
    // decode is left to --metrics: tpot carries it per token.
    // The server's own times appear only where a run has them (a metric without values is left out).
    std::vector<metric> metrics{metric::e2e,           metric::ttft,           metric::tpot,
                                metric::server_queue,  metric::server_prefill, metric::server_decode,
                                metric::server_ttft,   metric::server_itl};
    // Also compare e2e_sched and client_queue when either run held some request back in the client
    // for over a millisecond (open loop, --max-concurrency): then latency as the user saw it differs
    // from latency after the send. In a closed loop they only repeat e2e.
    bool add_client_queueing = true;
    verdict_options verdicts;
    bootstrap_options bootstrap;
    // The bootstrap's resamples counted as each block of them is drawn (each pair an item of the
    // current stage); null: not counted. compare() adds the stage's total, bootstrap.resamples a
    // pair (only `all` has shares to bootstrap); compare_runs called alone adds none.
    progress_state* progress = nullptr;
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
    // Percentiles read from sketches (compare_statistics): the relative change lies within ± this
    // of the one the exact percentiles would give.
    std::optional<double> sketch_bound;
};

// The sides ("before", "after") whose value of a percentile statistic rests on few samples
// (stats/sample_size.hpp): the verdict on it rests on them too. None for a mean or a rate.
inline std::vector<std::string> few_sample_sides(const change& c) {
    std::vector<std::string> out;
    if (c.statistic.size() < 2 || c.statistic[0] != 'p') return out;
    const double p = std::stod(c.statistic.substr(1));
    if (c.before && rests_on_few_samples(p, c.n_before)) out.emplace_back("before");
    if (c.after && rests_on_few_samples(p, c.n_after)) out.emplace_back("after");
    return out;
}

struct run_comparison {
    run_stats before, after;
    std::vector<change> changes; // run level first, then subset by subset, metric by metric
};

namespace detail {

inline std::optional<double> relative_change(std::optional<double> before, std::optional<double> after) {
    if (!before || !after || !(*before > 0)) return std::nullopt;
    return *after / *before - 1;
}

// One compared quantity of a subset: a latency metric (its percentiles and mean) or a share of
// requests (success, goodput: the mean of a 0/1 column, reported at run level).
struct compared_column {
    std::string metric;
    bool share = false;
    std::vector<double> before, after; // per request of the subset; NaN where there is no value
};

inline std::vector<double> present_sorted(const std::vector<double>& column) {
    std::vector<double> out;
    for (double x : column)
        if (!std::isnan(x)) out.push_back(x);
    std::sort(out.begin(), out.end());
    return out;
}

// Values of one side: the requested percentiles then the mean, numpy semantics, as `servestat stats`
// prints them. Empty when the side has none.
inline std::vector<std::optional<double>> point_values(const std::vector<double>& sorted, std::span<const double> percentiles,
                                                       const compare_options& o) {
    std::vector<std::optional<double>> out(percentiles.size() + 1);
    if (sorted.empty()) return out;
    const summary s = summarize(sorted, {.method = o.stats.summary.method, .ddof = o.stats.summary.ddof,
                                         .percentiles = {percentiles.begin(), percentiles.end()}});
    for (std::size_t k = 0; k < percentiles.size(); ++k) out[k] = s.percentiles[k].value;
    out.back() = s.mean;
    return out;
}

struct column_intervals {
    std::optional<interval> delta, relative; // of the share
};

inline bool has_shares(const std::vector<compared_column>& columns) {
    return std::any_of(columns.begin(), columns.end(), [](const compared_column& c) { return c.share; });
}

// The bootstrap of the shares of one subset (success, goodput: means of 0/1 columns, at run level):
// both sides' requests resampled independently, every share read from the same draws. Only shares
// are bootstrapped: a percentile's interval comes from order statistics (a bootstrap cannot draw
// beyond a sample's extremes: p99 of 200 requests covered 90.7%; see percentile_change_interval),
// a latency mean's from Welch's t and Fieller (the percentile bootstrap of a mean is too narrow on
// small skewed subsets: 92.2%; see mean_change_interval). Its blocks of resamples
// (resamples_per_block, each from its own stream seeded by the subset's name and the block's
// number) are drawn on any thread, and each draw's differences go to the draw's own slot, so the
// intervals are the same on any number of threads. intervals() is indexed like `columns`, empty
// for the columns that are not shares.
class subset_bootstrap {
public:
    subset_bootstrap(const std::vector<compared_column>& columns, std::string subset, const compare_options& o)
        : subset_(std::move(subset)), o_(o), all_columns_(columns.size()), shares_(share_indices(columns)),
          before_(side(columns, &compared_column::before), {}, o.stats.summary.method),
          after_(side(columns, &compared_column::after), {}, o.stats.summary.method) {
        const std::size_t slots = columns.size() * before_.statistics() * o.bootstrap.resamples;
        deltas_.assign(slots, missing());
        ratios_.assign(slots, missing());
    }

    std::size_t blocks() const noexcept { return (o_.bootstrap.resamples + resamples_per_block - 1) / resamples_per_block; }

    // The draws of one block; `b` and `a` are the calling thread's scratch.
    void draw_block(std::size_t block, request_resampler::draw_state& b, request_resampler::draw_state& a) {
        const std::size_t stats = before_.statistics(), resamples = o_.bootstrap.resamples;
        std::vector<double> x(stats), y(stats);
        auto rng = bootstrap_rng(o_.bootstrap.seed, subset_, block);
        const std::size_t first = block * resamples_per_block, last = std::min(resamples, first + resamples_per_block);
        for (std::size_t r = first; r < last; ++r) {
            before_.draw(rng, b);
            after_.draw(rng, a);
            for (std::size_t c = 0; c < columns(); ++c) {
                if (!before_.read(c, x, b) || !after_.read(c, y, a)) continue;
                for (std::size_t k = 0; k < stats; ++k) {
                    deltas_[slot(c, k, r)] = y[k] - x[k];
                    if (x[k] > 0) ratios_[slot(c, k, r)] = y[k] / x[k] - 1;
                }
            }
        }
    }

    // An interval needs every draw to have values on both sides; a relative one also a positive
    // baseline in every draw. Call once every block is drawn.
    std::vector<column_intervals> intervals() {
        const std::size_t resamples = o_.bootstrap.resamples;
        const auto interval_of = [&](std::vector<double>& all, std::size_t c) -> std::optional<interval> {
            const std::span<double> draws(all.data() + slot(c, 0, 0), resamples);
            if (std::any_of(draws.begin(), draws.end(), [](double d) { return std::isnan(d); })) return std::nullopt;
            return percentile_interval(draws, o_.verdicts.confidence);
        };
        std::vector<column_intervals> out(all_columns_);
        for (std::size_t c = 0; c < columns(); ++c) out[shares_[c]] = {interval_of(deltas_, c), interval_of(ratios_, c)};
        return out;
    }

private:
    static std::vector<std::size_t> share_indices(const std::vector<compared_column>& columns) {
        std::vector<std::size_t> out;
        for (std::size_t c = 0; c < columns.size(); ++c)
            if (columns[c].share) out.push_back(c);
        return out;
    }
    static std::vector<std::vector<double>> side(const std::vector<compared_column>& columns,
                                                 std::vector<double> compared_column::*values) {
        std::vector<std::vector<double>> out;
        for (const auto& c : columns)
            if (c.share) out.push_back(c.*values);
        return out;
    }
    static double missing() noexcept { return std::numeric_limits<double>::quiet_NaN(); } // a draw without the value
    std::size_t columns() const noexcept { return before_.columns(); }
    std::size_t slot(std::size_t c, std::size_t k, std::size_t r) const noexcept {
        return (c * before_.statistics() + k) * o_.bootstrap.resamples + r;
    }

    std::string subset_;
    const compare_options& o_;
    std::size_t all_columns_;         // columns of the subset, shares or not
    std::vector<std::size_t> shares_; // the resampled columns' places among them
    request_resampler before_, after_;
    std::vector<double> deltas_, ratios_; // [column][statistic][draw]; NaN where the draw had none
};

// The interval of the change of a percentile from the sorted values of each side
// (stats/percentile_change_interval.hpp): after − before in [a_l − b_u, a_u − b_l], after / before
// − 1 in [a_l / b_u − 1, a_u / b_l − 1] when the before side's lower end is positive. None when the
// sides hold too few values for an interval of this confidence (the statistic is then too_few).
struct percentile_change_cis {
    std::optional<interval> delta, relative;
};

inline percentile_change_cis percentile_change_of(const std::vector<double>& before, const std::vector<double>& after,
                                                  const std::optional<percentile_change_positions>& at) {
    if (!at) return {};
    const double bl = before[at->before.lower], bu = before[at->before.upper];
    const double al = after[at->after.lower], au = after[at->after.upper];
    percentile_change_cis out;
    out.delta = interval{al - bu, au - bl};
    if (bl > 0) out.relative = interval{al / bu - 1, au / bl - 1};
    return out;
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

inline void settle(change& c, std::optional<double> before, std::optional<double> after, std::optional<interval> delta_ci,
                   std::optional<interval> relative_ci, std::optional<double> p_value, bool enough, const verdict_options& o) {
    c.before = before;
    c.after = after;
    if (before && after) c.delta = *after - *before;
    c.relative = relative_change(before, after);
    c.delta_ci = delta_ci;
    c.relative_ci = c.relative ? relative_ci : std::nullopt;
    c.p_value = p_value;
    if (!enough || !p_value || !c.delta_ci) c.result = verdict::too_few;
    else {
        const bool percentile = c.statistic.size() > 1 && c.statistic[0] == 'p';
        c.result = decide({*p_value, c.relative_ci, c.delta_ci, c.lower_is_better, percentile}, o);
    }
}

// Every statistic of every column of one subset; shares go to `run_level`, the rest to `out`.
// `intervals`: the shares' bootstrap intervals, indexed like `columns` (empty without shares).
inline void compare_subset(const std::vector<compared_column>& columns, const std::string& subset,
                           const std::vector<column_intervals>& intervals, const compare_options& o,
                           std::vector<change>& run_level, std::vector<change>& out) {
    // The positions depend on the two counts and the percentile only; the metrics of a subset
    // mostly share their counts.
    struct positions_for {
        std::size_t n_before, n_after;
        double p;
        std::optional<percentile_change_positions> at;
    };
    std::vector<positions_for> known;
    const auto positions = [&](std::size_t nb, std::size_t na, double p) {
        for (const auto& k : known)
            if (k.n_before == nb && k.n_after == na && k.p == p) return k.at;
        return known.emplace_back(positions_for{nb, na, p, percentile_change_interval(nb, na, p, o.verdicts.confidence)}).at;
    };
    for (std::size_t c = 0; c < columns.size(); ++c) {
        const auto& col = columns[c];
        const auto b = present_sorted(col.before), a = present_sorted(col.after);
        const auto pb = point_values(b, o.percentiles, o), pa = point_values(a, o.percentiles, o);
        std::optional<double> p;
        if (!b.empty() && !a.empty()) p = mann_whitney_u(b, a).p;
        const std::size_t n = std::min(b.size(), a.size());
        if (col.share) {
            change x = make_change("", col.metric, "", false, b.size(), a.size());
            settle(x, pb.back(), pa.back(), intervals[c].delta, intervals[c].relative, p, n >= 2, o.verdicts);
            run_level.push_back(std::move(x));
            continue;
        }
        for (std::size_t k = 0; k <= o.percentiles.size(); ++k) {
            const bool is_mean = k == o.percentiles.size();
            const double percentile = is_mean ? 0 : o.percentiles[k];
            change x = make_change(subset, col.metric, is_mean ? "mean" : percentile_key(percentile), true, b.size(), a.size());
            if (is_mean) {
                // Welch's t and Fieller's ratio; both need 2 values a side (then n >= 2).
                const auto vb = mean_and_variance_of(b), va = mean_and_variance_of(a);
                std::optional<interval> delta, relative;
                if (vb && va) {
                    delta = welch_interval(*vb, *va, o.verdicts.confidence);
                    relative = fieller_relative_interval(*vb, *va, o.verdicts.confidence);
                }
                settle(x, pb[k], pa[k], delta, relative, p, n >= 2, o.verdicts);
            } else {
                // p0 and p100 (min, max) have no interval: percentile_change_interval gives none.
                const auto cis = b.empty() || a.empty() ? percentile_change_cis{}
                                                        : percentile_change_of(b, a, positions(b.size(), a.size(), percentile));
                settle(x, pb[k], pa[k], cis.delta, cis.relative, p, cis.delta.has_value(), o.verdicts);
            }
            out.push_back(std::move(x));
        }
    }
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

inline std::vector<double> metric_column(const request_table& t, metric m, const row_set& rows) {
    std::vector<double> out;
    out.reserve(rows.size());
    rows.visit([&](const auto& listed) {
        for (auto i : listed) {
            std::optional<double> v;
            if (t.status()[i] == request_status::ok) v = metric_value(t, m, i);
            out.push_back(v ? *v : std::numeric_limits<double>::quiet_NaN());
        }
    });
    return out;
}

template <class Keep>
std::vector<double> indicator_column(const row_set& rows, Keep&& keep) {
    std::vector<double> out;
    out.reserve(rows.size());
    rows.visit([&](const auto& listed) {
        for (auto i : listed) out.push_back(keep(i) ? 1.0 : 0.0);
    });
    return out;
}

inline bool has_values(const std::vector<double>& column) {
    return std::any_of(column.begin(), column.end(), [](double x) { return !std::isnan(x); });
}

inline bool held_back(const request_table& t) {
    for (std::size_t i = 0; i < t.size(); ++i)
        if (const auto q = metric_value(t, metric::client_queue, i); q && *q > 0.001) return true;
    return false;
}

inline std::vector<compared_column> columns_of(const run& before, const subset& b_rows, const run& after,
                                               const subset& a_rows, const compare_options& o) {
    std::vector<compared_column> out;
    const request_table &tb = before.requests, &ta = after.requests;
    if (b_rows.name == "all") {
        auto ok = [](const request_table& t) { return [&t](std::size_t i) { return t.status()[i] == request_status::ok; }; };
        out.push_back({"success_rate", true, indicator_column(b_rows.rows, ok(tb)), indicator_column(a_rows.rows, ok(ta))});
        if (!o.stats.slos.empty()) {
            auto good = [&](const request_table& t) { return [&t, &o](std::size_t i) { return meets_slos(t, i, o.stats.slos); }; };
            out.push_back({"goodput_share", true, indicator_column(b_rows.rows, good(tb)), indicator_column(a_rows.rows, good(ta))});
        }
    }
    std::vector<metric> metrics = o.metrics;
    if (o.add_client_queueing && (held_back(tb) || held_back(ta)))
        for (metric m : {metric::e2e_sched, metric::client_queue})
            if (std::find(metrics.begin(), metrics.end(), m) == metrics.end()) metrics.push_back(m);
    for (metric m : metrics) {
        compared_column c{std::string(to_string(m)), false, metric_column(tb, m, b_rows.rows), metric_column(ta, m, a_rows.rows)};
        if (has_values(c.before) || has_values(c.after)) out.push_back(std::move(c));
    }
    return out;
}

} // namespace detail

// Compares two runs with per-request data. Deterministic: the same runs, options and seed give
// the same intervals.
inline run_comparison compare_runs(const run& before, const run& after, const compare_options& o = {}) {
    validate(o);
    run_comparison rc{analyze(before, o.stats), analyze(after, o.stats), {}};
    std::vector<change> run_level, by_subset;
    detail::compare_single(rc.before.rps, rc.after.rps, "rps", run_level);
    detail::compare_single(rc.before.output_tps, rc.after.output_tps, "output_tps", run_level);
    const auto subsets_before = split_into_subsets(before.requests, o.stats.subsets);
    const auto subsets_after = split_into_subsets(after.requests, o.stats.subsets);
    // Every block of resamples of every subset with shares (only `all` has them) is one task, so the
    // threads stay busy; changes are joined in subset order.
    struct subset_work {
        std::vector<detail::compared_column> columns;
        std::optional<detail::subset_bootstrap> bootstrap;
        std::vector<change> run_level, changes;
    };
    std::vector<subset_work> per_subset(subsets_before.size());
    parallel_for(per_subset.size(), o.stats.threads, [&](std::size_t s) {
        auto& w = per_subset[s];
        w.columns = detail::columns_of(before, subsets_before[s], after, subsets_after[s], o);
        if (detail::has_shares(w.columns)) w.bootstrap.emplace(w.columns, subsets_before[s].name, o);
    });
    std::vector<std::pair<std::size_t, std::size_t>> blocks; // (subset, block)
    for (std::size_t s = 0; s < per_subset.size(); ++s)
        if (per_subset[s].bootstrap)
            for (std::size_t b = 0; b < per_subset[s].bootstrap->blocks(); ++b) blocks.emplace_back(s, b);
    std::vector<std::pair<request_resampler::draw_state, request_resampler::draw_state>> scratch(
        worker_count(blocks.size(), o.stats.threads));
    const auto resamples_in = [&](std::size_t block) {
        return std::min(o.bootstrap.resamples, (block + 1) * resamples_per_block) - block * resamples_per_block;
    };
    std::uint64_t resamples = 0;
    for (const auto& [s, block] : blocks) resamples += resamples_in(block);
    const progress_scope counted(o.progress, before.meta.label + " / " + after.meta.label, resamples);
    parallel_for(blocks.size(), o.stats.threads, [&](std::size_t task, std::size_t worker) {
        const auto [s, block] = blocks[task];
        per_subset[s].bootstrap->draw_block(block, scratch[worker].first, scratch[worker].second);
        if (counted.item()) counted.item()->add(resamples_in(block));
    });
    scratch.clear();
    parallel_for(per_subset.size(), o.stats.threads, [&](std::size_t s) {
        auto& w = per_subset[s];
        if (w.columns.empty()) return;
        detail::compare_subset(w.columns, subsets_before[s].name,
                               w.bootstrap ? w.bootstrap->intervals() : std::vector<detail::column_intervals>{}, o,
                               w.run_level, w.changes);
        w.bootstrap.reset();
    });
    for (auto& s : per_subset) {
        std::move(s.run_level.begin(), s.run_level.end(), std::back_inserter(run_level));
        std::move(s.changes.begin(), s.changes.end(), std::back_inserter(by_subset));
    }
    if (!o.stats.slos.empty())
        detail::compare_single(rc.before.goodput ? rc.before.goodput->rps : std::nullopt,
                               rc.after.goodput ? rc.after.goodput->rps : std::nullopt, "goodput_rps", run_level);
    rc.changes = std::move(run_level);
    rc.changes.insert(rc.changes.end(), std::make_move_iterator(by_subset.begin()), std::make_move_iterator(by_subset.end()));
    return rc;
}

namespace detail {

// A statistic of sides known by their statistics only: the change of the point values, no interval,
// no test (`untested`): a sketch holds no requests to resample or rank.
inline change untested_change(std::string subset, std::string metric_name, std::string statistic, bool lower_is_better,
                              std::size_t n_before, std::size_t n_after, std::optional<double> before,
                              std::optional<double> after) {
    change c = make_change(std::move(subset), std::move(metric_name), std::move(statistic), lower_is_better, n_before, n_after);
    c.before = before;
    c.after = after;
    if (before && after) c.delta = *after - *before;
    c.relative = relative_change(before, after);
    c.result = verdict::untested;
    return c;
}

inline std::optional<double> share_of(std::size_t part, std::size_t whole) {
    return whole == 0 ? std::nullopt : std::optional<double>(static_cast<double>(part) / static_cast<double>(whole));
}

// How far a relative change r' of two percentiles, each within its side's relative error (0 when
// exact), can lie from the exact one r: after / before = (exact ratio) · k with k between
// (1 − α_after) / (1 + α_before) and (1 + α_after) / (1 − α_before), so |r − r'| ≤ (1 + r') ·
// max(1/k_low − 1, 1 − 1/k_high) = (1 + r') · ((1 + α_before) / (1 − α_after) − 1).
inline std::optional<double> sketch_bound(std::optional<double> relative, std::optional<double> alpha_before,
                                          std::optional<double> alpha_after) {
    if (!relative || (!alpha_before && !alpha_after)) return std::nullopt;
    return (1 + *relative) * ((1 + alpha_before.value_or(0)) / (1 - alpha_after.value_or(0)) - 1);
}

// Whether a side held some request back in the client for over a millisecond (max is exact in a sketch).
inline bool held_back(const run_stats& r) {
    const summary* q = find_summary(r, "all", metric::client_queue);
    return q != nullptr && q->max && *q->max > 0.001;
}

} // namespace detail

// Compares two runs from their statistics alone, when a side is a summary file or a log streamed
// past the memory limit: every statistic compare_runs reports, as point values (percentiles within
// each side's sketch error, the rest exact), with verdict `untested` (rates: `single`). Both sides
// must be analysed with o.stats, whose percentiles include o.percentiles.
inline run_comparison compare_statistics(const run_stats& before, const run_stats& after, const compare_options& o = {}) {
    validate(o);
    run_comparison rc{before, after, {}};
    auto& out = rc.changes;
    detail::compare_single(before.rps, after.rps, "rps", out);
    detail::compare_single(before.output_tps, after.output_tps, "output_tps", out);
    out.push_back(detail::untested_change("", "success_rate", "", false, before.requests, after.requests,
                                          detail::share_of(before.ok, before.requests), detail::share_of(after.ok, after.requests)));
    if (!o.stats.slos.empty()) {
        const auto good = [](const run_stats& r) { return r.goodput ? detail::share_of(r.goodput->good, r.requests) : std::nullopt; };
        out.push_back(detail::untested_change("", "goodput_share", "", false, before.requests, after.requests, good(before), good(after)));
    }
    if (!o.stats.slos.empty())
        detail::compare_single(before.goodput ? before.goodput->rps : std::nullopt,
                               after.goodput ? after.goodput->rps : std::nullopt, "goodput_rps", out);
    std::vector<metric> metrics = o.metrics;
    if (o.add_client_queueing && (detail::held_back(before) || detail::held_back(after)))
        for (metric m : {metric::e2e_sched, metric::client_queue})
            if (std::find(metrics.begin(), metrics.end(), m) == metrics.end()) metrics.push_back(m);
    for (const auto& s : before.subsets)
        for (metric m : metrics) {
            const summary* b = find_summary(before, s.name, m);
            const summary* a = find_summary(after, s.name, m);
            const std::size_t nb = b ? b->n : 0, na = a ? a->n : 0;
            if (nb == 0 && na == 0) continue;
            const std::string name(to_string(m));
            for (double p : o.percentiles) {
                change& c = out.emplace_back(detail::untested_change(s.name, name, percentile_key(p), true, nb, na,
                                                                     b ? find_percentile(*b, p) : std::nullopt,
                                                                     a ? find_percentile(*a, p) : std::nullopt));
                c.sketch_bound = detail::sketch_bound(c.relative, b ? b->sketch_alpha : std::nullopt,
                                                      a ? a->sketch_alpha : std::nullopt);
            }
            out.push_back(detail::untested_change(s.name, name, "mean", true, nb, na, b ? b->mean : std::nullopt,
                                                  a ? a->mean : std::nullopt));
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
