// When a percentile rests on few samples: fewer than ten values lie beyond it, so it is set by the
// handful of most extreme requests and another run of the same load may well give another value.
#pragma once

#include <algorithm> // std::min
#include <cmath>     // std::ceil
#include <cstddef>   // std::size_t
#include <string>    // std::string
#include <vector>    // std::vector

#include "servestat/stats/summary.hpp" // summary, percentile_key

namespace servestat {

// Values that should lie beyond a percentile before it is read as more than its sample's extremes.
inline constexpr double values_beyond_percentile = 10;

// The fewest values for percentile p (0–100) to have ten beyond it: 10 / (1 − q) for q = p/100 at
// or above the median (p99 needs 1,000, p95 200, p90 100, p50 20), 10 / q below it (p1 needs
// 1,000), since a low percentile rests on the few smallest values as a high one on the largest.
// 0 for p0 and p100: the sample's min and max, which state what was observed and estimate nothing.
inline std::size_t samples_for_percentile(double p) {
    const double tail_percent = std::min(p, 100 - p); // in percent: 100 − 90 is exactly 10, 1 − 0.9 is not 0.1
    if (!(tail_percent > 0)) return 0;
    // Percent inputs such as 99.9 leave 100 − p a hair off 0.1: round such noise away, not up.
    return static_cast<std::size_t>(std::ceil(values_beyond_percentile * 100 / tail_percent * (1 - 1e-12)));
}

// True when a percentile of n values (n > 0) rests on few samples; a percentile of no values is
// no number at all, and nothing to mark.
inline bool rests_on_few_samples(double p, std::size_t n) { return n > 0 && n < samples_for_percentile(p); }

// The keys ("p99") of the summary's percentiles that rest on few samples, in the summary's order.
inline std::vector<std::string> few_sample_percentiles(const summary& s) {
    std::vector<std::string> out;
    for (const auto& v : s.percentiles)
        if (v.value && rests_on_few_samples(v.p, s.n)) out.push_back(percentile_key(v.p));
    return out;
}

} // namespace servestat
