// Ordinary least squares y = intercept + slope·x, with r²: how well latency scales with a size.
#pragma once

#include <cstddef>  // std::size_t
#include <optional> // std::optional
#include <span>     // std::span

namespace servestat {

struct linear_fit {
    double slope = 0;
    double intercept = 0;
    double r_squared = 0; // 1 when y is exactly linear in x (a constant y included)
    std::size_t n = 0;
};

// Empty with fewer than two points or when every x is the same (the slope is undefined).
// Centred sums: latency and token counts sit far from zero, and raw sums of squares would cancel.
inline std::optional<linear_fit> least_squares(std::span<const double> x, std::span<const double> y) {
    const std::size_t n = x.size() < y.size() ? x.size() : y.size();
    if (n < 2) return std::nullopt;
    double mean_x = 0, mean_y = 0;
    for (std::size_t i = 0; i < n; ++i) {
        mean_x += x[i];
        mean_y += y[i];
    }
    mean_x /= static_cast<double>(n);
    mean_y /= static_cast<double>(n);
    double sxx = 0, sxy = 0, syy = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const double dx = x[i] - mean_x, dy = y[i] - mean_y;
        sxx += dx * dx;
        sxy += dx * dy;
        syy += dy * dy;
    }
    if (sxx == 0) return std::nullopt;
    linear_fit fit;
    fit.n = n;
    fit.slope = sxy / sxx;
    fit.intercept = mean_y - fit.slope * mean_x;
    fit.r_squared = syy == 0 ? 1.0 : (sxy * sxy) / (sxx * syy);
    return fit;
}

} // namespace servestat
