// The two-segment knee: the breakpoint of the least-squares fit of two straight lines that meet
// (a continuous piecewise-linear fit with one break) to a curve such as throughput against load.
// Beside Kneedle's knee (kneedle.hpp) it is a second, differently made answer to "where does the
// curve stop rising": Kneedle picks the measured level farthest above the chord in the unit square;
// the fit places the break anywhere between levels, where two lines explain the points best.
// docs/knee.md#two-segment-fit derives it.
#pragma once

#include <cmath>    // std::isfinite
#include <cstddef>  // std::size_t
#include <optional> // std::optional
#include <span>     // std::span
#include <vector>   // std::vector

#include "servestat/sweep/kneedle.hpp" // detail::prepare_knee_points (sorting, repeated x averaged, checks)

namespace servestat {

struct two_segment_fit {
    double breakpoint = 0;  // x where the two lines meet
    double y_at_break = 0;  // the fitted value there
    double intercept_before = 0, slope_before = 0; // the line left of the break: y = intercept + slope·x
    double intercept_after = 0, slope_after = 0;   // and right of it
    double sse = 0;          // residual sum of squares of the two-segment fit
    double sse_one_line = 0; // of the best single straight line, for comparison
    // Whether the break falls on a measured x: there continuity binds (the two lines fitted apart
    // would not meet between the neighbouring points); between two x the fit is two free lines.
    bool at_point = false;
    std::size_t points = 0; // distinct x values fitted (repeated x are averaged)
};

namespace detail {

// Least squares y = mean_y + slope·(x − mean_x) over points [from, to) of ascending x, with the
// quantities the constrained fit needs: n, the centred sums and the residual sum of squares.
struct segment_line {
    double n = 0, mean_x = 0, mean_y = 0, sxx = 0, slope = 0, sse = 0;
    double at(double x) const { return mean_y + slope * (x - mean_x); }
    // Var(fitted value at x) / σ²: 1/n + (x − mean_x)² / Sxx.
    double leverage(double x) const { return 1 / n + (x - mean_x) * (x - mean_x) / sxx; }
};

inline segment_line fit_segment(const std::vector<double>& x, const std::vector<double>& y, std::size_t from, std::size_t to) {
    segment_line l;
    l.n = static_cast<double>(to - from);
    for (std::size_t i = from; i < to; ++i) {
        l.mean_x += x[i];
        l.mean_y += y[i];
    }
    l.mean_x /= l.n;
    l.mean_y /= l.n;
    double sxy = 0;
    for (std::size_t i = from; i < to; ++i) {
        l.sxx += (x[i] - l.mean_x) * (x[i] - l.mean_x);
        sxy += (x[i] - l.mean_x) * (y[i] - l.mean_y);
    }
    l.slope = sxy / l.sxx; // sxx > 0: at least two distinct x
    for (std::size_t i = from; i < to; ++i) {
        const double r = y[i] - l.at(x[i]);
        l.sse += r * r;
    }
    return l;
}

// The fit with points [0, j] on the left line and (j, n) on the right, the lines forced to meet at
// c: the two lines fitted apart, then corrected by the equality-constrained least-squares formula.
// With d = left(c) − right(c) and w = leverage_left(c) + leverage_right(c), the constraint costs
// d²/w in the sum of squares and moves each line's value at c by its leverage's share of d.
inline two_segment_fit constrained_fit(const segment_line& left, const segment_line& right, double c, std::size_t points) {
    const double d = left.at(c) - right.at(c);
    const double w = left.leverage(c) + right.leverage(c);
    const double k = d / w;
    // Centred coordinates: the constraint vector (1, c − mean) times the covariance diag(1/n, 1/Sxx).
    const double left_mean = left.mean_y - k / left.n, left_slope = left.slope - k * (c - left.mean_x) / left.sxx;
    const double right_mean = right.mean_y + k / right.n, right_slope = right.slope + k * (c - right.mean_x) / right.sxx;
    two_segment_fit f;
    f.breakpoint = c;
    f.slope_before = left_slope;
    f.intercept_before = left_mean - left_slope * left.mean_x;
    f.slope_after = right_slope;
    f.intercept_after = right_mean - right_slope * right.mean_x;
    f.y_at_break = f.intercept_before + f.slope_before * c;
    f.sse = left.sse + right.sse + d * k;
    f.points = points;
    return f;
}

} // namespace detail

// The continuous two-segment least-squares fit of y against x (Hudson 1966, "Fitting segmented
// curves whose join points have to be estimated"), exact:
// - the points are sorted by x and a repeated x becomes one point with the mean of its y (as for
//   Kneedle); x and y of equal length and finite (usage_error naming the first bad index otherwise);
// - the break c lies in [x₁, x₍ₙ₋₂₎], so each line rests on at least two points; fewer than four
//   distinct x give no fit (with three, two lines through them fit exactly anywhere);
// - for each gap [x_j, x_(j+1)] (1 ≤ j ≤ n − 3) the points left of it and right of it are each fitted
//   by a line; where those lines cross inside the gap that is the fit with the break in it, and its
//   sum of squares is the two separate fits'. Otherwise the best break in the gap is one of its ends
//   (the constrained sum of squares, SSE_apart + d(c)²/w(c), has no other interior minimum), so every
//   x_j, 1 ≤ j ≤ n − 2, is tried with the lines forced to meet there;
// - the least sum of squares wins; on a tie the smaller x (the candidates are tried in ascending x,
//   and a later one must be strictly smaller). A straight line therefore breaks at x₁ with equal slopes.
inline std::optional<two_segment_fit> fit_two_segments(std::span<const double> x, std::span<const double> y) {
    const detail::knee_points p = detail::prepare_knee_points("fit_two_segments", x, y);
    const std::size_t n = p.x.size();
    if (n < 4) return std::nullopt;
    std::optional<two_segment_fit> best;
    const auto consider = [&best](const two_segment_fit& f) {
        if (!best || f.sse < best->sse) best = f;
    };
    for (std::size_t j = 1; j + 2 < n; ++j) { // the gap [x_j, x_(j+1)]: left 0..j, right j+1..n−1
        const detail::segment_line left = detail::fit_segment(p.x, p.y, 0, j + 1);
        const detail::segment_line right = detail::fit_segment(p.x, p.y, j + 1, n);
        consider(detail::constrained_fit(left, right, p.x[j], n));
        if (left.slope != right.slope) {
            // Where the lines fitted apart cross: mean_yL + sL(c − mxL) = mean_yR + sR(c − mxR).
            const double c = (right.mean_y - right.slope * right.mean_x - left.mean_y + left.slope * left.mean_x) /
                             (left.slope - right.slope);
            if (c > p.x[j] && c < p.x[j + 1]) consider(detail::constrained_fit(left, right, c, n));
        }
        if (j + 3 == n) consider(detail::constrained_fit(left, right, p.x[j + 1], n)); // the last point x_(n−2)
    }
    if (best) {
        best->at_point = false;
        for (double v : p.x) best->at_point = best->at_point || v == best->breakpoint;
        best->sse_one_line = detail::fit_segment(p.x, p.y, 0, n).sse;
    }
    return best;
}

} // namespace servestat
