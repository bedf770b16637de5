// Seeded, reproducible bootstrap: the percentiles and mean of resamples of a sample, and the
// percentile confidence interval of a statistic's bootstrap distribution.
#pragma once

#include <algorithm>   // std::sort, std::fill, std::lower_bound
#include <array>       // std::array
#include <cstddef>     // std::size_t
#include <cstdint>     // std::uint32_t, std::uint64_t
#include <span>        // std::span
#include <string_view> // std::string_view
#include <vector>      // std::vector

#include "servestat/core/errors.hpp"    // usage_error
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

namespace detail {

// xoshiro256** (Blackman and Vigna), seeded through splitmix64: an exactly specified generator, so a
// seed gives the same resamples everywhere, and cheaper per number than mt19937_64, which matters
// when a bootstrap draws 10^9 indices.
class xoshiro256 {
public:
    using result_type = std::uint64_t;
    explicit xoshiro256(std::uint64_t seed) {
        for (auto& word : state_) {
            seed += 0x9e3779b97f4a7c15ull;
            std::uint64_t z = seed;
            z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
            z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
            word = z ^ (z >> 31);
        }
    }
    static constexpr result_type min() { return 0; }
    static constexpr result_type max() { return ~result_type{0}; }
    result_type operator()() noexcept {
        const std::uint64_t result = rotl(state_[1] * 5, 7) * 9;
        const std::uint64_t t = state_[1] << 17;
        state_[2] ^= state_[0];
        state_[3] ^= state_[1];
        state_[1] ^= state_[2];
        state_[0] ^= state_[3];
        state_[2] ^= t;
        state_[3] = rotl(state_[3], 45);
        return result;
    }

private:
    static constexpr std::uint64_t rotl(std::uint64_t x, int k) noexcept { return (x << k) | (x >> (64 - k)); }
    std::array<std::uint64_t, 4> state_{};
};

__extension__ typedef unsigned __int128 uint128; // GCC and Clang: the full 64 x 64 bit product

// A uniform index below n by Lemire's multiply-and-reject ("Fast random integer generation in an
// interval", 2019): exact, and a division only on the rare rejection path. std's distributions are
// left to each standard library and would give other resamples elsewhere.
inline std::uint64_t draw_below(xoshiro256& rng, std::uint64_t n) noexcept {
    uint128 product = static_cast<uint128>(rng()) * n;
    auto low = static_cast<std::uint64_t>(product);
    if (low < n) {
        const std::uint64_t biased_below = (0 - n) % n; // 2^64 mod n
        while (low < biased_below) {
            product = static_cast<uint128>(rng()) * n;
            low = static_cast<std::uint64_t>(product);
        }
    }
    return static_cast<std::uint64_t>(product >> 64);
}

// FNV-1a: a stable seed per statistic name, so one metric's interval does not depend on which other
// metrics were compared before it.
inline std::uint64_t name_hash(std::string_view name) noexcept {
    std::uint64_t h = 14695981039346656037ull;
    for (unsigned char c : name) h = (h ^ c) * 1099511628211ull;
    return h;
}

} // namespace detail

// A generator for the resamples of one named statistic family under a seed.
inline detail::xoshiro256 bootstrap_rng(std::uint64_t seed, std::string_view name) {
    return detail::xoshiro256(seed ^ detail::name_hash(name));
}

// Draws resamples of a sorted sample and evaluates the requested percentiles (numpy semantics of
// `method`) and the mean of each. A resample is kept as how often each element was drawn, so its
// order statistics come from one pass over the counts: O(n) per resample, nothing sorted.
class sorted_resampler {
public:
    sorted_resampler(std::span<const double> sorted, std::span<const double> percentiles, quantile_method method)
        : sorted_(sorted), counts_(sorted.size()) {
        detail::require_non_empty(sorted.size(), "sorted_resampler");
        for (double p : percentiles)
            plans_.push_back(detail::plan_quantile(sorted.size(), detail::percent_to_probability(p, "sorted_resampler"), method));
        positions_ = detail::needed_positions(plans_);
        order_statistics_.resize(positions_.size());
        auto index_of = [&](std::size_t position) {
            return static_cast<std::size_t>(std::lower_bound(positions_.begin(), positions_.end(), position) -
                                            positions_.begin());
        };
        for (auto& plan : plans_) {
            plan.lower = index_of(plan.lower);
            plan.upper = index_of(plan.upper);
        }
    }

    // Writes the resample's percentiles, in the order asked for, then its mean: percentiles + 1 values.
    void draw(detail::xoshiro256& rng, std::span<double> out) {
        const std::size_t n = sorted_.size();
        std::fill(counts_.begin(), counts_.end(), 0u);
        for (std::size_t k = 0; k < n; ++k) ++counts_[detail::draw_below(rng, n)];
        std::size_t drawn = 0, next = 0;
        double sum = 0;
        for (std::size_t i = 0; i < n; ++i) {
            if (counts_[i] == 0) continue;
            sum += counts_[i] * sorted_[i];
            drawn += counts_[i];
            while (next < positions_.size() && positions_[next] < drawn) order_statistics_[next++] = sorted_[i];
        }
        for (std::size_t k = 0; k < plans_.size(); ++k) out[k] = detail::evaluate_plan(plans_[k], order_statistics_);
        out[plans_.size()] = sum / static_cast<double>(n);
    }

    std::size_t statistics() const noexcept { return plans_.size() + 1; }

private:
    std::span<const double> sorted_;
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
