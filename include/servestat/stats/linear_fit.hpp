// Ordinary least squares y = intercept + slope·x, with r²: how well latency scales with a size.
#pragma once

#include <cmath>    // std::sqrt
#include <cstddef>  // std::size_t
#include <optional> // std::optional
#include <span>     // std::span

#include <boost/math/distributions/students_t.hpp> // students_t, cdf, complement

namespace servestat {

struct linear_fit {
    double slope = 0;
    double intercept = 0;
    double r_squared = 0; // 1 when y is exactly linear in x (a constant y included)
    std::size_t n = 0;
};

// The first of least_squares' two passes: the count and the sums that give the means.
struct pair_sums {
    std::size_t n = 0;
    double x = 0, y = 0;
    void add(double px, double py) noexcept {
        ++n;
        x += px;
        y += py;
    }
};

// The second pass, over the same pairs in the same order, which for_each_pair(visit) passes to
// visit(x, y): a fit over millions of requests needs no copy of them, and a caller that reads them
// anyway (for their range, say) takes the first pass's sums along.
template <class ForEachPair>
std::optional<linear_fit> least_squares_from(const pair_sums& sums, ForEachPair for_each_pair) {
    const std::size_t n = sums.n;
    if (n < 2) return std::nullopt;
    const double mean_x = sums.x / static_cast<double>(n), mean_y = sums.y / static_cast<double>(n);
    double sxx = 0, sxy = 0, syy = 0;
    for_each_pair([&](double x, double y) {
        const double dx = x - mean_x, dy = y - mean_y;
        sxx += dx * dx;
        sxy += dx * dy;
        syy += dy * dy;
    });
    if (sxx == 0) return std::nullopt;
    linear_fit fit;
    fit.n = n;
    fit.slope = sxy / sxx;
    fit.intercept = mean_y - fit.slope * mean_x;
    fit.r_squared = syy == 0 ? 1.0 : (sxy * sxy) / (sxx * syy);
    return fit;
}

// Both passes over the pairs for_each_pair visits.
template <class ForEachPair>
std::optional<linear_fit> least_squares_over(ForEachPair for_each_pair) {
    pair_sums sums;
    for_each_pair([&](double x, double y) { sums.add(x, y); });
    return least_squares_from(sums, for_each_pair);
}

// Empty with fewer than two points or when every x is the same (the slope is undefined).
// Centred sums: latency and token counts sit far from zero, and raw sums of squares would cancel.
inline std::optional<linear_fit> least_squares(std::span<const double> x, std::span<const double> y) {
    const std::size_t n = x.size() < y.size() ? x.size() : y.size();
    if (n < 2) return std::nullopt;
    return least_squares_over([&](auto&& visit) {
        for (std::size_t i = 0; i < n; ++i) visit(x[i], y[i]);
    });
}

// The two-sided p-value of the t-test that the slope is 0 (no linear relation), with n − 2 degrees
// of freedom. The t statistic of the slope, slope / its standard error, equals
// r·sqrt(n − 2) / sqrt(1 − r²), so r² and n decide it. Empty with fewer than three points (no
// residual left to estimate the error from); 0 for an exact line.
inline std::optional<double> slope_p_value(const linear_fit& fit) {
    if (fit.n < 3 || !(fit.r_squared >= 0)) return std::nullopt;
    if (fit.r_squared >= 1) return 0.0; // rounding may put an exact line a hair above 1
    const double df = static_cast<double>(fit.n - 2);
    const double t = std::sqrt(fit.r_squared * df / (1 - fit.r_squared));
    const boost::math::students_t distribution(df);
    return 2 * boost::math::cdf(boost::math::complement(distribution, t)); // complement keeps tiny p-values exact
}

} // namespace servestat
