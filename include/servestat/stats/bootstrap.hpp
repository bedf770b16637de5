// Seeded, reproducible bootstrap: the percentiles and means of resampled requests, and the
// percentile confidence interval of a statistic's bootstrap distribution.
#pragma once

#include <algorithm>   // std::sort, std::lower_bound
#include <cmath>       // std::isnan
#include <cstddef>     // std::size_t
#include <cstdint>     // std::uint32_t, std::uint64_t
#include <span>        // std::span
#include <string_view> // std::string_view
#include <utility>     // std::move
#include <vector>      // std::vector

#include <fmt/format.h> // fmt::format

#include "servestat/core/errors.hpp"    // usage_error
#include "servestat/core/random.hpp"    // detail::xoshiro256, detail::draw_below, detail::mix64
#include "servestat/core/text.hpp"      // detail::fnv1a
#include "servestat/stats/interval.hpp"  // interval
#include "servestat/stats/quantile.hpp" // quantile_method, detail::plan_quantile, percentile_sorted

namespace servestat {

struct bootstrap_options {
    std::size_t resamples = 2000;
    std::uint64_t seed = 20260111;
};

inline constexpr std::size_t max_bootstrap_resamples = 1000000;

inline void validate(const bootstrap_options& o) {
    if (o.resamples < 100) throw usage_error("the bootstrap needs at least 100 resamples");
    // Each statistic keeps its resamples to take their quantiles: beyond a million they cost memory
    // and time while the intervals' own sampling error is already far below their width.
    if (o.resamples > max_bootstrap_resamples)
        throw usage_error(fmt::format("--resamples {}: at most {} (the default, 2000, is enough for 95% intervals)", o.resamples,
                                      max_bootstrap_resamples));
}

// A generator for the resamples of one named statistic family under a seed: one stream per name, so
// one subset's intervals do not depend on which others were compared before it.
inline detail::xoshiro256 bootstrap_rng(std::uint64_t seed, std::string_view name) {
    return detail::xoshiro256(seed ^ detail::fnv1a(name));
}

// Resamples are drawn in blocks of this many, each block from its own stream (bootstrap_rng with
// the block's number), so blocks can be drawn on any thread in any order and give the same draws.
inline constexpr std::size_t resamples_per_block = 100;

inline detail::xoshiro256 bootstrap_rng(std::uint64_t seed, std::string_view name, std::size_t block) {
    return detail::xoshiro256(seed ^ detail::fnv1a(name) ^ detail::mix64(block));
}

// Resamples requests, not values: each draw picks n of a subset's n requests with replacement, and
// every metric of the draw is read from the same requests, as the runs were measured. So e2e and
// e2e_sched of a closed loop (nearly equal per request) get nearly equal intervals, and a latency
// percentile's resample holds as many successful requests as the draw happened to pick. A draw is
// kept as how often each request was picked; each metric's order statistics then come from one walk
// over its requests in value order: O(n) per draw and metric, nothing sorted after construction.
// The resampler is read-only after construction; a draw lives in a draw_state, one per thread.
class request_resampler {
public:
    struct draw_state {
        std::vector<std::uint32_t> counts; // how often each request was picked
        std::vector<detail::quantile_plan> plans;
        std::vector<std::size_t> positions;
        std::vector<double> order_statistics;
    };

    // columns[c][i]: value c of request i; NaN where the request has none (failed, or not measured).
    request_resampler(std::vector<std::vector<double>> columns, std::span<const double> percentiles,
                      quantile_method method)
        : columns_(std::move(columns)), percentiles_(percentiles.begin(), percentiles.end()), method_(method) {
        rows_ = columns_.empty() ? 0 : columns_.front().size();
        for (const auto& column : columns_) {
            if (column.size() != rows_) throw usage_error("request_resampler: columns of different lengths");
            std::vector<std::uint32_t> order;
            for (std::uint32_t i = 0; i < rows_; ++i)
                if (!std::isnan(column[i])) order.push_back(i);
            std::sort(order.begin(), order.end(), [&](auto a, auto b) { return column[a] < column[b]; });
            orders_.push_back(std::move(order));
        }
        for (double p : percentiles_) detail::percent_to_probability(p, "request_resampler");
    }

    std::size_t rows() const noexcept { return rows_; }
    std::size_t statistics() const noexcept { return percentiles_.size() + 1; } // percentiles, then the mean
    std::size_t columns() const noexcept { return columns_.size(); }

    void draw(detail::xoshiro256& rng, draw_state& s) const {
        s.counts.assign(rows_, 0u);
        for (std::size_t k = 0; k < rows_; ++k) ++s.counts[detail::draw_below(rng, rows_)];
    }

    // The draw's percentiles (in the order asked for) and mean of column c; false when the draw
    // picked no request with a value.
    bool read(std::size_t c, std::span<double> out, draw_state& s) const {
        const auto& order = orders_[c];
        const auto& column = columns_[c];
        std::size_t n = 0;
        for (auto i : order) n += s.counts[i];
        if (n == 0) return false;
        s.plans.clear();
        for (double p : percentiles_) s.plans.push_back(detail::plan_quantile(n, p / 100.0, method_));
        s.positions = detail::needed_positions(s.plans);
        s.order_statistics.resize(s.positions.size());
        std::size_t drawn = 0, next = 0;
        double sum = 0;
        for (auto i : order) {
            if (s.counts[i] == 0) continue;
            sum += s.counts[i] * column[i];
            drawn += s.counts[i];
            while (next < s.positions.size() && s.positions[next] < drawn) s.order_statistics[next++] = column[i];
        }
        const auto index_of = [&](std::size_t position) {
            return static_cast<std::size_t>(std::lower_bound(s.positions.begin(), s.positions.end(), position) - s.positions.begin());
        };
        for (std::size_t k = 0; k < s.plans.size(); ++k) {
            detail::quantile_plan plan = s.plans[k];
            plan.lower = index_of(plan.lower);
            plan.upper = index_of(plan.upper);
            out[k] = detail::evaluate_plan(plan, s.order_statistics);
        }
        out[s.plans.size()] = sum / static_cast<double>(n);
        return true;
    }

private:

    std::vector<std::vector<double>> columns_;
    std::vector<std::vector<std::uint32_t>> orders_; // per column: requests with a value, by value
    std::vector<double> percentiles_;
    quantile_method method_;
    std::size_t rows_ = 0;
};

// The central `confidence` share of a bootstrap distribution (the percentile interval, with
// numpy-linear interpolation between draws, as criterion.rs takes it). Reorders `draws`.
inline interval percentile_interval(std::span<double> draws, double confidence) {
    detail::require_non_empty(draws.size(), "percentile_interval");
    std::sort(draws.begin(), draws.end());
    const double tail = 50 * (1 - confidence);
    return {percentile_sorted(draws, tail), percentile_sorted(draws, 100 - tail)};
}

} // namespace servestat
