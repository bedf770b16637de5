// Gaussian kernel density estimates with Silverman's rule-of-thumb bandwidth: the outline a violin
// chart draws around a handful of member measurements.
#pragma once

#include <algorithm> // std::min, std::max
#include <cmath>     // std::exp, std::fabs, std::pow, std::sqrt
#include <cstddef>   // std::size_t
#include <numbers>   // std::numbers::pi
#include <optional>  // std::optional
#include <span>      // std::span
#include <vector>    // std::vector

#include "servestat/stats/quantile.hpp" // percentile_sorted

namespace servestat {

// Silverman (1986, "Density Estimation", eq. 3.31): h = 0.9 · min(σ, IQR / 1.34) · n^(−1/5), with σ
// the sample standard deviation (ddof = 1) and the quartiles by numpy's linear method. The min()
// keeps h narrow enough for two modes, which the plain normal-reference rule 1.06 σ n^(−1/5) (what
// scipy calls "silverman") smooths away — and two modes are what the group view looks for. When σ
// or the IQR is 0 it falls back as R's bw.nrd0 does: σ, then |x₀|, then 1, so h is never 0.
// `sorted` ascending; nullopt for fewer than two values (σ is undefined).
inline std::optional<double> silverman_bandwidth(std::span<const double> sorted) {
    const std::size_t n = sorted.size();
    if (n < 2) return std::nullopt;
    double mean = 0;
    for (double v : sorted) mean += v;
    mean /= static_cast<double>(n);
    double squares = 0;
    for (double v : sorted) squares += (v - mean) * (v - mean);
    const double sigma = std::sqrt(squares / static_cast<double>(n - 1));
    const double iqr = percentile_sorted(sorted, 75) - percentile_sorted(sorted, 25);
    double spread = std::min(sigma, iqr / 1.34);
    if (!(spread > 0)) spread = sigma;
    if (!(spread > 0)) spread = std::fabs(sorted.front());
    if (!(spread > 0)) spread = 1;
    return 0.9 * spread * std::pow(static_cast<double>(n), -0.2);
}

// f̂(x) = 1/(n h) Σ φ((x − xᵢ) / h), φ the standard normal density: integrates to 1 over the line.
inline double gaussian_kde(std::span<const double> values, double bandwidth, double x) {
    if (values.empty() || !(bandwidth > 0)) return 0;
    const double norm = 1.0 / std::sqrt(2 * std::numbers::pi);
    double sum = 0;
    for (double v : values) {
        const double z = (x - v) / bandwidth;
        sum += norm * std::exp(-0.5 * z * z);
    }
    return sum / (static_cast<double>(values.size()) * bandwidth);
}

struct density_curve {
    std::vector<double> x, density;
};

// The estimate at `points` evenly spaced positions from `lo` to `hi` inclusive.
inline density_curve kde_curve(std::span<const double> values, double bandwidth, double lo, double hi,
                               std::size_t points) {
    density_curve out;
    if (points == 0) return out;
    out.x.reserve(points);
    out.density.reserve(points);
    for (std::size_t i = 0; i < points; ++i) {
        const double x = points == 1 ? lo : lo + (hi - lo) * static_cast<double>(i) / static_cast<double>(points - 1);
        out.x.push_back(x);
        out.density.push_back(gaussian_kde(values, bandwidth, x));
    }
    return out;
}

} // namespace servestat
