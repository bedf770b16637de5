// The shape of a small sample of measurements (one value per run or time bin): two regimes ("normal"
// and "stress") or one regime with a heavy tail, as seed 001 reads its violin plots.
#pragma once

#include <algorithm> // std::sort, std::min, std::max
#include <cmath>     // std::sqrt, std::isfinite, std::fabs
#include <cstddef>   // std::size_t
#include <limits>    // std::numeric_limits
#include <optional>  // std::optional
#include <span>      // std::span
#include <vector>    // std::vector

#include "servestat/stats/kde.hpp"      // silverman_bandwidth, gaussian_kde
#include "servestat/stats/quantile.hpp" // percentile_sorted
#include "servestat/stats/radix_sort.hpp" // detail::radix_sort

namespace servestat {

struct value_cluster {
    std::size_t n = 0;
    double min = 0, max = 0, mean = 0;
    double std = 0; // population (ddof = 0): the spread of a fitted Gaussian component
};

struct two_regimes {
    value_cluster lower, upper;
    double ashman_d = 0;     // +inf when both clusters are constant
    double valley_ratio = 0; // lowest density between the clusters / the smaller cluster's peak
};

// Why three conditions and not Ashman's D alone: D is defined for fitted Gaussian components, and a
// hard split truncates each side, which shrinks its spread: a normal sample split at its best cut
// gives D ≈ 2.65 as n grows, a uniform one 3.46, so "D ≥ 2" called 86–100% of unimodal samples of 8
// or more values two regimes (tests/tools/regime_rule_simulation.py). The valley condition asks
// what a reader of the violin sees: the outline (Gaussian KDE, Silverman bandwidth) narrows between
// the two clusters, to at most 80% of the smaller cluster's peak. With all three, at most 17% of
// unimodal samples (normal, uniform, lognormal; n = 5 to 60, 400 each) are called two regimes,
// against 87–100% of an even mix of two normals 5σ apart at n ≥ 20, and none at n = 5 (Silverman's
// bandwidth smooths five values into one bulge). 70% would cut the false calls to 15% but already
// misses 1, 2, 3 | 10, 11, 12 (valley 75% of the peak), which no reader would call one regime.
struct modality_options {
    double min_ashman_d = 2;     // Ashman et al. (1994): D > 2 is needed for a clean separation
    std::size_t min_cluster = 2; // one value alone is an outlier (a tail), not a regime
    double max_valley_ratio = 0.8;
};

namespace detail {

inline value_cluster cluster_of(std::span<const double> sorted) {
    value_cluster c;
    c.n = sorted.size();
    if (c.n == 0) return c;
    c.min = sorted.front();
    c.max = sorted.back();
    for (double v : sorted) c.mean += v;
    c.mean /= static_cast<double>(c.n);
    double squares = 0;
    for (double v : sorted) squares += (v - c.mean) * (v - c.mean);
    c.std = std::sqrt(squares / static_cast<double>(c.n));
    return c;
}

// The largest (or smallest) density at 64 evenly spaced points of [lo, hi].
inline double density_extreme(std::span<const double> values, double h, double lo, double hi, bool largest) {
    double out = gaussian_kde(values, h, lo);
    for (int i = 1; i < 64; ++i) {
        const double d = gaussian_kde(values, h, lo + (hi - lo) * i / 63.0);
        out = largest ? std::max(out, d) : std::min(out, d);
    }
    return out;
}

inline double squared_deviations(std::span<const double> xs) {
    double mean = 0;
    for (double v : xs) mean += v;
    mean /= static_cast<double>(xs.size());
    double s = 0;
    for (double v : xs) s += (v - mean) * (v - mean);
    return s;
}

} // namespace detail

// Where to cut ascending `sorted` (size ≥ 2) into [0, k) and [k, n) so the within-cluster sum of
// squared deviations is smallest: Jenks natural breaks with two classes, which for one-dimensional
// data is also Otsu's threshold (it maximises the between-class variance). Exhaustive over the n − 1
// cuts (each costs O(n): samples here are a few hundred values at most); the first cut wins a tie.
inline std::size_t best_two_split(std::span<const double> sorted) {
    std::size_t best = 1;
    double best_cost = std::numeric_limits<double>::infinity();
    for (std::size_t k = 1; k < sorted.size(); ++k) {
        const double cost = detail::squared_deviations(sorted.first(k)) + detail::squared_deviations(sorted.subspan(k));
        if (cost < best_cost) {
            best_cost = cost;
            best = k;
        }
    }
    return best;
}

// Ashman, Bird & Zepf (1994, AJ 108, 2348): D = √2 · |μ₁ − μ₂| / √(σ₁² + σ₂²), the separation of two
// Gaussian components in units of their spread.
inline double ashman_d(const value_cluster& a, const value_cluster& b) {
    const double spread = std::sqrt(a.std * a.std + b.std * b.std);
    const double gap = std::fabs(a.mean - b.mean);
    if (spread == 0) return gap == 0 ? 0 : std::numeric_limits<double>::infinity();
    return std::sqrt(2.0) * gap / spread;
}

// Two regimes when the best two-cluster split leaves each side with at least `min_cluster` values,
// separates them by Ashman's D ≥ `min_ashman_d`, and the kernel density estimate (Gaussian,
// Silverman bandwidth, in value space) falls between them to at most `max_valley_ratio` of the
// smaller cluster's peak. Non-finite values are ignored.
inline std::optional<two_regimes> find_two_regimes(std::span<const double> values, const modality_options& o = {}) {
    std::vector<double> sorted;
    for (double v : values)
        if (std::isfinite(v)) sorted.push_back(v);
    if (sorted.size() < 2 * o.min_cluster || sorted.size() < 2) return std::nullopt;
    detail::radix_sort(sorted);
    const std::size_t k = best_two_split(sorted);
    const std::span<const double> all(sorted);
    two_regimes r{detail::cluster_of(all.first(k)), detail::cluster_of(all.subspan(k)), 0};
    if (r.lower.n < o.min_cluster || r.upper.n < o.min_cluster) return std::nullopt;
    r.ashman_d = ashman_d(r.lower, r.upper);
    if (!(r.ashman_d >= o.min_ashman_d)) return std::nullopt;
    const double h = *silverman_bandwidth(sorted);
    const double peak = std::min(detail::density_extreme(sorted, h, r.lower.min, r.lower.max, true),
                                 detail::density_extreme(sorted, h, r.upper.min, r.upper.max, true));
    r.valley_ratio = detail::density_extreme(sorted, h, r.lower.max, r.upper.min, false) / peak;
    if (!(r.valley_ratio <= o.max_valley_ratio)) return std::nullopt;
    return r;
}

// A tail: the largest value at least `min_ratio` × the median (upper), or the median at least
// `min_ratio` × the smallest value (lower, positive values only). The larger ratio wins when both hold.
struct heavy_tail {
    bool upper = true;
    double extreme = 0, median = 0;
    double ratio = 0; // max / median, or median / min
};

struct tail_options {
    // Members are repeated measurements of one configuration: for a sample with a CoV of 20%, a value
    // at twice the median lies five standard deviations out, which noise alone almost never gives at
    // these sample sizes; it is the "rare spike" / "degraded regime" of seed 001.
    double min_ratio = 2;
    std::size_t min_n = 3; // with two values the median is their mean: no tail to speak of
};

inline std::optional<heavy_tail> find_heavy_tail(std::span<const double> values, const tail_options& o = {}) {
    std::vector<double> sorted;
    for (double v : values)
        if (std::isfinite(v)) sorted.push_back(v);
    if (sorted.size() < o.min_n || sorted.empty()) return std::nullopt;
    detail::radix_sort(sorted);
    const double median = percentile_sorted(sorted, 50);
    if (!(median > 0)) return std::nullopt;
    const double up = sorted.back() / median;
    const double down = sorted.front() > 0 ? median / sorted.front() : std::numeric_limits<double>::infinity();
    const bool up_holds = up >= o.min_ratio, down_holds = sorted.front() > 0 && down >= o.min_ratio;
    if (!up_holds && !down_holds) return std::nullopt;
    if (up_holds && (!down_holds || up >= down)) return heavy_tail{true, sorted.back(), median, up};
    return heavy_tail{false, sorted.front(), median, down};
}

} // namespace servestat
