// Sorting the send and end times of a run in near-linear time: times spread fairly evenly over
// the run, so a bucket per few requests over [min, max] leaves each bucket a handful of values.
#pragma once

#include <algorithm> // std::sort, std::is_sorted, std::minmax_element, std::min
#include <cmath>     // std::isfinite
#include <cstddef>   // std::size_t
#include <cstdint>   // std::uint32_t
#include <span>      // std::span
#include <vector>    // std::vector

namespace servestat::detail {

// Sorts `items` by time(item), then by operator< among equal times, so the order is fully
// determined (a (time, row) pair keeps equal times in row order, as a stable sort would). Any
// finite times sort correctly (clustered ones just make bigger buckets for std::sort); logs written
// in completion order arrive with their end times already sorted.
// Most buckets hold a handful of items: each time is read once and the (time, item) pairs sorted
// by insertion. std::sort per bucket read two times per comparison through `time` (a gather from the
// table's columns), a quarter of a 4·10^6-request sort.
inline constexpr std::size_t small_bucket = 32;

template <class T, class Time>
void sort_small_bucket(T* items, std::size_t size, Time time) {
    double keys[small_bucket]; // left uninitialised: zeroing them cost as much as the sort
    T sorted[small_bucket];
    for (std::size_t i = 0; i < size; ++i) {
        const double key = time(items[i]);
        const T item = items[i];
        std::size_t j = i;
        for (; j > 0 && (key < keys[j - 1] || (key == keys[j - 1] && item < sorted[j - 1])); --j) {
            keys[j] = keys[j - 1];
            sorted[j] = sorted[j - 1];
        }
        keys[j] = key;
        sorted[j] = item;
    }
    std::copy(sorted, sorted + size, items);
}

template <class T, class Time>
void sort_by_time(std::vector<T>& items, Time time) {
    const auto before = [&](const T& a, const T& b) {
        const double ta = time(a), tb = time(b);
        return ta < tb || (ta == tb && a < b);
    };
    if (items.size() < 2 || std::is_sorted(items.begin(), items.end(), before)) return;
    double low = time(items.front()), high = low;
    for (const T& x : items) {
        low = std::min(low, time(x));
        high = std::max(high, time(x));
    }
    const std::size_t buckets = items.size() / 4 + 1;
    // x -> bucket is non-decreasing in x, so buckets hold consecutive ranges of the sorted order.
    const double scale = static_cast<double>(buckets) / (high - low);
    if (!std::isfinite(scale) || items.size() >= (std::size_t{1} << 32)) { // a range too small (or too large) to scale by
        std::sort(items.begin(), items.end(), before);
        return;
    }
    auto bucket_of = [&](const T& x) { return std::min(buckets - 1, static_cast<std::size_t>((time(x) - low) * scale)); };
    std::vector<std::uint32_t> starts(buckets + 1, 0);
    for (const T& x : items) ++starts[bucket_of(x) + 1];
    for (std::size_t b = 1; b <= buckets; ++b) starts[b] += starts[b - 1];
    std::vector<T> sorted(items.size());
    std::vector<std::uint32_t> next(starts.begin(), starts.end() - 1);
    for (const T& x : items) sorted[next[bucket_of(x)]++] = x;
    for (std::size_t b = 0; b < buckets; ++b) {
        const std::size_t size = starts[b + 1] - starts[b];
        if (size > small_bucket) std::sort(sorted.begin() + starts[b], sorted.begin() + starts[b + 1], before);
        else if (size > 1) sort_small_bucket(sorted.data() + starts[b], size, time);
    }
    items.swap(sorted);
}

inline void sort_times(std::vector<double>& times) {
    sort_by_time(times, [](double t) { return t; });
}

} // namespace servestat::detail
