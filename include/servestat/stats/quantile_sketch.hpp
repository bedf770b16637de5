// Percentiles of more values than memory holds, within a stated relative error: a DDSketch
// (Masson, Rim and Lee, VLDB 2019). Values fall into buckets whose bounds grow by a factor
// gamma = (1 + alpha) / (1 - alpha), so every value in a bucket lies within alpha of the bucket's
// representative; a percentile read from the counts is within alpha of the exact one. Sketches of
// the same alpha merge by adding counts, exactly, in any order.
#pragma once

#include <algorithm> // std::min, std::max
#include <array>     // std::array
#include <cmath>     // std::log, std::ceil, std::pow, std::isfinite, std::fabs
#include <cstddef>   // std::size_t
#include <cstdint>   // std::int32_t, std::uint64_t
#include <limits>    // std::numeric_limits
#include <optional>  // std::optional
#include <span>      // std::span
#include <string>    // std::to_string
#include <utility>   // std::move
#include <vector>    // std::vector

#include <fmt/format.h> // fmt::format

#include "servestat/core/errors.hpp"   // usage_error
#include "servestat/stats/interval.hpp" // interval
#include "servestat/stats/quantile.hpp" // quantile_method, detail::plan_quantile, detail::evaluate_plan

namespace servestat {

inline constexpr double default_sketch_alpha = 0.005;

namespace detail {

// Counts of consecutive bucket indices, grown at either end as values arrive.
class bucket_counts {
public:
    bucket_counts() = default;
    bucket_counts(std::int32_t first, std::vector<std::uint64_t> counts) : first_(first), counts_(std::move(counts)) {}

    void add(std::int32_t index, std::uint64_t count = 1) {
        if (counts_.empty()) {
            first_ = index;
            counts_.push_back(0);
        } else if (index < first_) {
            counts_.insert(counts_.begin(), static_cast<std::size_t>(first_ - index), 0);
            first_ = index;
        } else if (index >= first_ + static_cast<std::int32_t>(counts_.size())) {
            counts_.resize(static_cast<std::size_t>(index - first_) + 1, 0);
        }
        counts_[static_cast<std::size_t>(index - first_)] += count;
    }
    void merge(const bucket_counts& other) {
        for (std::size_t k = 0; k < other.counts_.size(); ++k)
            if (other.counts_[k] > 0) add(other.first_ + static_cast<std::int32_t>(k), other.counts_[k]);
    }
    std::int32_t first() const noexcept { return first_; }
    std::span<const std::uint64_t> counts() const noexcept { return counts_; }
    bool operator==(const bucket_counts&) const = default;

private:
    std::int32_t first_ = 0;
    std::vector<std::uint64_t> counts_;
};

} // namespace detail

class quantile_sketch {
public:
    explicit quantile_sketch(double alpha = default_sketch_alpha) : alpha_(alpha) {
        if (!(alpha > 0 && alpha < 1))
            throw usage_error(fmt::format("sketch relative error {} is outside (0, 1)", alpha));
        gamma_ = (1 + alpha) / (1 - alpha);
        log_gamma_ = std::log(gamma_);
    }

    double alpha() const noexcept { return alpha_; }
    std::uint64_t count() const noexcept { return count_; }
    bool empty() const noexcept { return count_ == 0; }
    double min() const noexcept { return min_; }
    double max() const noexcept { return max_; }

    // NaN and infinities have no bucket: the caller leaves them out, as the exact statistics do.
    void add(double x) {
        if (!std::isfinite(x)) throw usage_error("a quantile sketch takes finite values only");
        min_ = count_ == 0 ? x : std::min(min_, x);
        max_ = count_ == 0 ? x : std::max(max_, x);
        ++count_;
        if (x > 0) positive_.add(index_of(x));
        else if (x < 0) negative_.add(index_of(-x));
        else ++zeros_;
    }

    // Exact: counts add, min and max combine. Both must share alpha.
    void merge(const quantile_sketch& other) {
        if (other.alpha_ != alpha_)
            throw usage_error(fmt::format("cannot merge sketches of relative error {} and {}", alpha_, other.alpha_));
        if (other.count_ == 0) return;
        min_ = count_ == 0 ? other.min_ : std::min(min_, other.min_);
        max_ = count_ == 0 ? other.max_ : std::max(max_, other.max_);
        count_ += other.count_;
        zeros_ += other.zeros_;
        positive_.merge(other.positive_);
        negative_.merge(other.negative_);
    }

    // The value of rank r (0-based) in sorted order, within alpha of the exact one (relative, for
    // values of one sign; rank 0 and the last rank are the exact min and max).
    double value_at_rank(std::uint64_t r) const {
        if (r == 0) return min_;
        if (r + 1 >= count_) return max_;
        std::uint64_t seen = 0;
        const auto negatives = negative_.counts(); // most negative first: largest magnitude first
        for (std::size_t k = negatives.size(); k-- > 0;) {
            seen += negatives[k];
            if (r < seen) return clamp(-representative(negative_.first() + static_cast<std::int32_t>(k)));
        }
        seen += zeros_;
        if (r < seen) return 0.0;
        const auto positives = positive_.counts();
        for (std::size_t k = 0; k < positives.size(); ++k) {
            seen += positives[k];
            if (r < seen) return clamp(representative(positive_.first() + static_cast<std::int32_t>(k)));
        }
        return max_;
    }

    // Where the exact value of rank r lies: [low, high] around value_at_rank(r), wide enough for the
    // sketch's relative error (a representative v of a positive x has |v − x| ≤ alpha·x, so
    // v / (1 + alpha) ≤ x ≤ v / (1 − alpha); mirrored for negatives), within [min, max]. The ends
    // of a percentile's interval read from a sketch take these, so that the interval holds the
    // exact order statistics and keeps its coverage.
    interval bounds_at_rank(std::uint64_t r) const {
        const double v = value_at_rank(r);
        if (r == 0 || r + 1 >= count_ || v == 0) return {v, v}; // the exact min, max, or a counted zero
        const double e = alpha_ * (1 + 1e-9); // a value on a bucket's bound may round into the next one
        const double a = v > 0 ? v / (1 + e) : v / (1 - e), b = v > 0 ? v / (1 - e) : v / (1 + e);
        return {clamp(a), clamp(b)};
    }

    // Percentile p (0..100) by `method`, reading the order statistics the exact method would read
    // from the sketch instead: numpy's interpolation between two values each within alpha.
    double percentile(double p, quantile_method method = quantile_method::linear) const {
        if (count_ == 0) throw usage_error("percentile of an empty sketch");
        const double q = detail::percent_to_probability(p, "quantile_sketch::percentile");
        auto plan = detail::plan_quantile(static_cast<std::size_t>(count_), q, method);
        const std::array<double, 2> read{value_at_rank(plan.lower), value_at_rank(plan.upper)};
        plan.upper = plan.upper == plan.lower ? 0 : 1;
        plan.lower = 0;
        return detail::evaluate_plan(plan, read);
    }

    // A sketch from its parts as written out (summary files); the caller has checked that the counts
    // add up to `count` and that min <= max.
    static quantile_sketch from_parts(double alpha, std::uint64_t count, double min, double max, std::uint64_t zeros,
                                      detail::bucket_counts positive, detail::bucket_counts negative) {
        quantile_sketch s(alpha);
        s.count_ = count;
        s.min_ = min;
        s.max_ = max;
        s.zeros_ = zeros;
        s.positive_ = std::move(positive);
        s.negative_ = std::move(negative);
        return s;
    }

    // The buckets, for writing a sketch out and reading it back (summaries on disk).
    const detail::bucket_counts& positive_buckets() const noexcept { return positive_; }
    const detail::bucket_counts& negative_buckets() const noexcept { return negative_; }
    std::uint64_t zero_count() const noexcept { return zeros_; }
    bool operator==(const quantile_sketch&) const = default;

private:
    // Bucket i holds (gamma^(i-1), gamma^i]; its representative 2 gamma^i / (gamma + 1) is within
    // alpha of both ends.
    std::int32_t index_of(double magnitude) const noexcept {
        return static_cast<std::int32_t>(std::ceil(std::log(magnitude) / log_gamma_));
    }
    double representative(std::int32_t index) const noexcept {
        return 2 * std::exp(static_cast<double>(index) * log_gamma_) / (gamma_ + 1);
    }
    double clamp(double x) const noexcept { return std::min(max_, std::max(min_, x)); }

    double alpha_, gamma_ = 0, log_gamma_ = 0;
    std::uint64_t count_ = 0, zeros_ = 0;
    double min_ = 0, max_ = 0;
    detail::bucket_counts positive_, negative_;
};

} // namespace servestat
