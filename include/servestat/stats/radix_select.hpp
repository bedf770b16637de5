// Order statistics of a large sample in two linear passes: a histogram over the leading bits of
// order-preserving keys finds the few buckets that hold the wanted ranks, and only those buckets'
// values are selected among. Three to four times faster than nth_element for the handful of
// percentiles a report asks for, and it leaves the sample untouched.
#pragma once

#include <algorithm> // std::nth_element, std::minmax_element
#include <cstddef>   // std::size_t
#include <cstdint>   // std::uint32_t, std::uint64_t
#include <span>      // std::span
#include <vector>    // std::vector

#include "servestat/stats/order_keys.hpp" // order_key, key_buckets

namespace servestat::detail {

// Below this size nth_element is as fast and needs no histogram.
inline constexpr std::size_t radix_select_min_size = 2048;

// -0.0 and +0.0 are equal to std::less, so they must share a bucket.
inline std::uint64_t select_key(double x) noexcept { return order_key(x + 0.0); }

// The values of rank `positions` (sorted ascending, unique, each < values.size()), in that order.
inline std::vector<double> radix_select(std::span<const double> values, std::span<const std::size_t> positions) {
    const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
    const key_buckets bucket_of = make_key_buckets(select_key(*lo), select_key(*hi), values.size());
    std::vector<std::uint32_t> counts(bucket_of.count, 0);
    for (double x : values) ++counts[bucket_of(select_key(x))];

    // For each wanted rank: its bucket, and its rank among that bucket's values.
    constexpr std::uint32_t unwanted = ~std::uint32_t{0};
    std::vector<std::uint32_t> slot_of_bucket(bucket_of.count, unwanted);
    std::vector<std::size_t> slot_of_position, rank_in_bucket;
    std::size_t slots = 0, bucket = 0, before = 0;
    for (std::size_t k : positions) {
        while (before + counts[bucket] <= k) before += counts[bucket++];
        if (slot_of_bucket[bucket] == unwanted) slot_of_bucket[bucket] = static_cast<std::uint32_t>(slots++);
        slot_of_position.push_back(slot_of_bucket[bucket]);
        rank_in_bucket.push_back(k - before);
    }

    std::vector<std::vector<double>> members(slots);
    for (std::size_t b = 0; b < bucket_of.count; ++b)
        if (slot_of_bucket[b] != unwanted) members[slot_of_bucket[b]].reserve(counts[b]);
    for (double x : values)
        if (const auto slot = slot_of_bucket[bucket_of(select_key(x))]; slot != unwanted) members[slot].push_back(x);

    std::vector<double> out;
    out.reserve(positions.size());
    for (std::size_t i = 0; i < positions.size(); ++i) {
        auto& m = members[slot_of_position[i]];
        const auto nth = m.begin() + static_cast<std::ptrdiff_t>(rank_in_bucket[i]);
        std::nth_element(m.begin(), nth, m.end());
        out.push_back(*nth);
    }
    return out;
}

} // namespace servestat::detail
