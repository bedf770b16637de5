// Sorting the send and end times of a run in near-linear time: times spread fairly evenly over
// the run, so a bucket per few requests over [min, max] leaves each bucket a handful of values.
#pragma once

#include <algorithm> // std::sort, std::is_sorted, std::minmax_element, std::min
#include <cmath>     // std::isfinite
#include <cstddef>   // std::size_t
#include <cstdint>   // std::uint32_t
#include <vector>    // std::vector

namespace servestat::detail {

// Any finite doubles sort correctly (clustered ones just make bigger buckets for std::sort); logs
// written in completion order arrive with their end times already sorted.
inline void sort_times(std::vector<double>& times) {
    if (times.size() < 2 || std::is_sorted(times.begin(), times.end())) return;
    const auto [lo, hi] = std::minmax_element(times.begin(), times.end());
    const double low = *lo, range = *hi - *lo;
    const std::size_t buckets = times.size() / 4 + 1;
    // x -> bucket is non-decreasing in x, so buckets hold consecutive ranges of the sorted order.
    const double scale = static_cast<double>(buckets) / range;
    if (!std::isfinite(scale)) { // a range too small (or too large) to scale by
        std::sort(times.begin(), times.end());
        return;
    }
    auto bucket_of = [&](double x) { return std::min(buckets - 1, static_cast<std::size_t>((x - low) * scale)); };
    std::vector<std::uint32_t> starts(buckets + 1, 0);
    for (double x : times) ++starts[bucket_of(x) + 1];
    for (std::size_t b = 1; b <= buckets; ++b) starts[b] += starts[b - 1];
    std::vector<double> sorted(times.size());
    std::vector<std::uint32_t> next(starts.begin(), starts.end() - 1);
    for (double x : times) sorted[next[bucket_of(x)]++] = x;
    for (std::size_t b = 0; b < buckets; ++b)
        if (starts[b + 1] - starts[b] > 1) std::sort(sorted.begin() + starts[b], sorted.begin() + starts[b + 1]);
    times.swap(sorted);
}

} // namespace servestat::detail
