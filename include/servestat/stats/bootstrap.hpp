// Seeded, reproducible bootstrap: the percentiles and means of resampled requests, and the
// percentile confidence interval of a statistic's bootstrap distribution.
#pragma once

#include <algorithm>   // std::sort, std::fill, std::lower_bound
#include <cmath>       // std::isnan
#include <cstddef>     // std::size_t
#include <cstdint>     // std::uint32_t, std::uint64_t
#include <span>        // std::span
#include <string_view> // std::string_view
#include <utility>     // std::move
#include <vector>      // std::vector

#include "servestat/core/errors.hpp"    // usage_error
#include "servestat/core/random.hpp"    // detail::xoshiro256, detail::draw_below
#include "servestat/core/text.hpp"      // detail::fnv1a
#include "servestat/stats/quantile.hpp" // quantile_method, detail::plan_quantile, percentile_sorted

namespace servestat {

struct bootstrap_options {
    std::size_t resamples = 2000;
    std::uint64_t seed = 20260111;
};

inline void validate(const bootstrap_options& o) {
    if (o.resamples < 100) throw usage_error("the bootstrap needs at least 100 resamples");
}

struct interval {
    double low = 0, high = 0;
};

// A generator for the resamples of one named statistic family under a seed: one stream per name, so
// one subset's intervals do not depend on which others were compared before it.
inline detail::xoshiro256 bootstrap_rng(std::uint64_t seed, std::string_view name) {
    return detail::xoshiro256(seed ^ detail::fnv1a(name));
}

// Resamples requests, not values: each draw picks n of a subset's n requests with replacement, and
// every metric of the draw is read from the same requests, as the runs were measured. So e2e and
// e2e_sched of a closed loop (nearly equal per request) get nearly equal intervals, and a latency
// percentile's resample holds as many successful requests as the draw happened to pick. A draw is
// kept as how often each request was picked; each metric's order statistics then come from one walk
// over its requests in value order: O(n) per draw and metric, nothing sorted after construction.
class request_resampler {
public:
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
        counts_.resize(rows_);
    }

    std::size_t rows() const noexcept { return rows_; }
    std::size_t statistics() const noexcept { return percentiles_.size() + 1; } // percentiles, then the mean

    void draw(detail::xoshiro256& rng) {
        std::fill(counts_.begin(), counts_.end(), 0u);
        for (std::size_t k = 0; k < rows_; ++k) ++counts_[detail::draw_below(rng, rows_)];
    }

    // The last draw's percentiles (in the order asked for) and mean of column c; false when the draw
    // picked no request with a value.
    bool read(std::size_t c, std::span<double> out) {
        const auto& order = orders_[c];
        const auto& column = columns_[c];
        std::size_t n = 0;
        for (auto i : order) n += counts_[i];
        if (n == 0) return false;
        plans_.clear();
        for (double p : percentiles_) plans_.push_back(detail::plan_quantile(n, p / 100.0, method_));
        positions_ = detail::needed_positions(plans_);
        order_statistics_.resize(positions_.size());
        std::size_t drawn = 0, next = 0;
        double sum = 0;
        for (auto i : order) {
            if (counts_[i] == 0) continue;
            sum += counts_[i] * column[i];
            drawn += counts_[i];
            while (next < positions_.size() && positions_[next] < drawn) order_statistics_[next++] = column[i];
        }
        for (std::size_t k = 0; k < plans_.size(); ++k) {
            detail::quantile_plan plan = plans_[k];
            plan.lower = index_of(plan.lower);
            plan.upper = index_of(plan.upper);
            out[k] = detail::evaluate_plan(plan, order_statistics_);
        }
        out[plans_.size()] = sum / static_cast<double>(n);
        return true;
    }

private:
    std::size_t index_of(std::size_t position) const {
        return static_cast<std::size_t>(std::lower_bound(positions_.begin(), positions_.end(), position) - positions_.begin());
    }

    std::vector<std::vector<double>> columns_;
    std::vector<std::vector<std::uint32_t>> orders_; // per column: requests with a value, by value
    std::vector<double> percentiles_;
    quantile_method method_;
    std::size_t rows_ = 0;
    std::vector<std::uint32_t> counts_;
    std::vector<detail::quantile_plan> plans_;
    std::vector<std::size_t> positions_;
    std::vector<double> order_statistics_;
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
