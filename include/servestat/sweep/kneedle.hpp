// Kneedle knee/elbow detection with the semantics of the Python package kneed 0.8.x: where a
// saturating curve stops paying (throughput vs concurrency) or a latency curve takes off.
// docs/knee.md describes the algorithm, the options and every way servestat differs from kneed.
#pragma once

#include <algorithm>   // std::stable_sort, std::sort, std::unique, std::reverse, std::minmax_element, std::find
#include <cmath>       // std::isfinite, std::abs, std::sqrt, std::copysign
#include <cstddef>     // std::size_t
#include <numeric>     // std::iota
#include <optional>    // std::optional
#include <span>        // std::span
#include <string>      // std::string, std::to_string
#include <string_view> // std::string_view
#include <vector>      // std::vector

#include "servestat/core/errors.hpp"       // usage_error
#include "servestat/stats/linear_fit.hpp"  // least_squares
#include "servestat/stats/quantile.hpp"    // detail::format_double

namespace servestat {

// concave: the curve bends down (a knee: throughput levelling off); convex: it bends up (an elbow:
// latency taking off, or a decreasing curve flattening out).
enum class knee_curve { concave, convex };
enum class knee_direction { increasing, decreasing };
// interp1d: the data as measured (kneed's default; despite the name nothing is interpolated);
// polynomial: a least-squares polynomial of the data first, which smooths noisy curves.
enum class knee_interp { interp1d, polynomial };

inline std::string_view to_string(knee_curve c) noexcept { return c == knee_curve::concave ? "concave" : "convex"; }

inline std::string_view to_string(knee_direction d) noexcept {
    return d == knee_direction::increasing ? "increasing" : "decreasing";
}

inline std::string_view to_string(knee_interp i) noexcept { return i == knee_interp::interp1d ? "interp1d" : "polynomial"; }

// kneed's spellings, case-sensitive like kneed.
inline knee_curve parse_knee_curve(std::string_view name) {
    if (name == "concave") return knee_curve::concave;
    if (name == "convex") return knee_curve::convex;
    throw usage_error("unknown curve '" + std::string(name) + "'; valid: concave, convex");
}

inline knee_direction parse_knee_direction(std::string_view name) {
    if (name == "increasing") return knee_direction::increasing;
    if (name == "decreasing") return knee_direction::decreasing;
    throw usage_error("unknown direction '" + std::string(name) + "'; valid: increasing, decreasing");
}

inline knee_interp parse_knee_interp(std::string_view name) {
    if (name == "interp1d") return knee_interp::interp1d;
    if (name == "polynomial") return knee_interp::polynomial;
    throw usage_error("unknown interpolation '" + std::string(name) + "'; valid: interp1d, polynomial");
}

struct knee_shape {
    knee_curve curve = knee_curve::concave;
    knee_direction direction = knee_direction::increasing;
};

struct kneedle_options {
    // nullopt: detected like kneed's find_shape (each one that is missing).
    std::optional<knee_curve> curve;
    std::optional<knee_direction> direction;
    // Sensitivity: how many grid steps of flatness (in the unit square) must follow a candidate
    // before it counts. Larger is more conservative: a later knee, or none. Finite and >= 0.
    double S = 1.0;
    // false: the first knee found; true: keep scanning, `knee` is the last one, all_knees has all.
    bool online = false;
    knee_interp interp = knee_interp::interp1d;
    int polynomial_degree = 7; // >= 0; only for knee_interp::polynomial
};

struct knee_result {
    std::optional<double> knee;        // x of the knee (kneed's `knee`)
    std::optional<double> knee_y;      // y there, as measured (the mean y where x repeats)
    std::optional<double> norm_knee;   // kneed's `norm_knee`: NOT mirrored, see docs/knee.md
    std::optional<double> norm_knee_y; // kneed's `norm_knee_y`: in the flipped/reflected frame
    // kneed's all_knees / all_norm_knees (sets there, ascending lists here) and all_knees_y /
    // all_norm_knees_y (lists in detection order there; here each lines up with its x list).
    std::vector<double> all_knees;        // every knee x found, ascending (one knee unless online)
    std::vector<double> all_knees_y;      // y at each of all_knees, as measured
    std::vector<double> all_norm_knees;   // every norm_knee found (unmirrored, like norm_knee), ascending
    std::vector<double> all_norm_knees_y; // norm_knee_y at each of all_norm_knees (transformed frame)
    knee_curve curve = knee_curve::concave;               // the shape used, given or detected
    knee_direction direction = knee_direction::increasing;
    std::size_t points = 0; // distinct x values the detector saw (repeated x are averaged)
};

namespace detail {

// numpy's pairwise summation (numpy/core/src/umath/loops_utils.h.src, 8-way unrolled blocks of
// at most 128), so that kneed's threshold, mean(diff(x_normalized)), has numpy's rounding.
inline double numpy_pairwise_sum(std::span<const double> a) {
    const std::size_t n = a.size();
    if (n < 8) {
        double sum = 0.;
        for (double v : a) sum += v;
        return sum;
    }
    if (n <= 128) {
        double r[8];
        for (std::size_t k = 0; k < 8; ++k) r[k] = a[k];
        std::size_t i = 8;
        for (; i < n - n % 8; i += 8)
            for (std::size_t k = 0; k < 8; ++k) r[k] += a[i + k];
        double sum = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; ++i) sum += a[i];
        return sum;
    }
    std::size_t half = n / 2;
    half -= half % 8;
    return numpy_pairwise_sum(a.first(half)) + numpy_pairwise_sum(a.subspan(half));
}

// The curve Kneedle sees: ascending distinct x, each with the mean of its y values.
struct knee_points {
    std::vector<double> x, y;
};

inline void check_knee_input(std::string_view what, std::span<const double> x, std::span<const double> y) {
    if (x.size() != y.size())
        throw usage_error(std::string(what).append(": x has ").append(std::to_string(x.size()))
                              .append(" values but y has ").append(std::to_string(y.size())));
    for (std::size_t i = 0; i < x.size(); ++i) {
        const char* axis = !std::isfinite(x[i]) ? "x" : !std::isfinite(y[i]) ? "y" : nullptr;
        if (!axis) continue;
        const double v = axis[0] == 'x' ? x[i] : y[i];
        throw usage_error(std::string(what).append(": ").append(axis).append("[").append(std::to_string(i))
                              .append("] is ").append(format_double(v)).append(", not a finite number"));
    }
}

// kneed requires ascending x and misbehaves on repeats (its interp1d and its x == knee look-ups
// assume a function of x); sorting and averaging make any sample of a curve acceptable.
inline knee_points prepare_knee_points(std::string_view what, std::span<const double> x, std::span<const double> y) {
    check_knee_input(what, x, y);
    std::vector<std::size_t> order(x.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return x[a] < x[b]; });
    knee_points p;
    for (std::size_t i = 0; i < order.size();) {
        std::size_t j = i;
        double sum = 0;
        for (; j < order.size() && x[order[j]] == x[order[i]]; ++j) sum += y[order[j]];
        p.x.push_back(x[order[i]]);
        p.y.push_back(j - i == 1 ? y[order[i]] : sum / static_cast<double>(j - i));
        i = j;
    }
    return p;
}

// np.poly1d(np.polyfit(x, y, degree))(x) for ascending distinct x, computed stably: Chebyshev
// polynomials of x mapped onto [-1, 1] (the same space of polynomials as numpy's monomials, but
// well conditioned), Householder QR, back substitution, and the series evaluated at each x. The
// evaluation (rather than the projection Q·Qᵀ·y) keeps a degree-0 fit exactly constant, as numpy's.
// With n <= degree + 1 points the polynomial interpolates: y itself.
inline std::vector<double> polynomial_fit_values(std::span<const double> x, std::span<const double> y, int degree) {
    const std::size_t n = x.size();
    const std::size_t p = static_cast<std::size_t>(degree) + 1;
    if (n <= p) return {y.begin(), y.end()};
    const double lo = x.front(), hi = x.back();
    std::vector<double> basis(n * p); // column-major: basis[k * n + i] = T_k(t_i)
    for (std::size_t i = 0; i < n; ++i) {
        const double t = ((x[i] - lo) - (hi - x[i])) / (hi - lo);
        basis[i] = 1;
        if (p > 1) basis[n + i] = t;
        for (std::size_t k = 2; k < p; ++k) basis[k * n + i] = 2 * t * basis[(k - 1) * n + i] - basis[(k - 2) * n + i];
    }
    std::vector<double> a = basis, b(y.begin(), y.end()), v;
    // Householder reflector I - v·vᵀ (|v|² = 2) on rows k..n-1 of one column.
    const auto reflect = [n, &v](std::size_t k, double* col) {
        double dot = 0;
        for (std::size_t i = k; i < n; ++i) dot += v[i - k] * col[i];
        for (std::size_t i = k; i < n; ++i) col[i] -= dot * v[i - k];
    };
    for (std::size_t k = 0; k < p; ++k) {
        double* col = a.data() + k * n;
        double norm = 0;
        for (std::size_t i = k; i < n; ++i) norm += col[i] * col[i];
        if (norm == 0) continue; // cannot happen for distinct x; leaves R's diagonal 0
        norm = std::sqrt(norm);
        v.assign(col + k, col + n);
        v[0] += std::copysign(norm, col[k]);
        double vv = 0;
        for (double e : v) vv += e * e;
        const double scale = std::sqrt(2.0 / vv);
        for (double& e : v) e *= scale;
        for (std::size_t c = k; c < p; ++c) reflect(k, a.data() + c * n);
        reflect(k, b.data());
    }
    std::vector<double> coef(p); // R·coef = (Qᵀy)[0, p)
    for (std::size_t k = p; k-- > 0;) {
        double rest = b[k];
        for (std::size_t c = k + 1; c < p; ++c) rest -= a[c * n + k] * coef[c];
        const double diagonal = a[k * n + k];
        coef[k] = diagonal == 0 ? 0 : rest / diagonal;
    }
    std::vector<double> fitted(n, 0.0);
    for (std::size_t k = 0; k < p; ++k)
        for (std::size_t i = 0; i < n; ++i) fitted[i] += coef[k] * basis[k * n + i];
    return fitted;
}

// kneed's find_shape (kneed/shape_detector.py): the sign of a least-squares line's slope gives the
// direction; whether the middle 60 % of the points (by position) lies above that line, the curve.
inline knee_shape shape_of(const knee_points& p) {
    const std::size_t n = p.x.size();
    const auto line = least_squares(p.x, p.y);
    const double slope = line ? line->slope : 0, intercept = line ? line->intercept : 0;
    const auto from = static_cast<std::size_t>(static_cast<double>(n) * 0.2);
    const auto to = static_cast<std::size_t>(static_cast<double>(n) * 0.8);
    double above = 0;
    for (std::size_t i = from; i < to; ++i) above += p.y[i] - (slope * p.x[i] + intercept);
    return {above > 0 ? knee_curve::concave : knee_curve::convex,
            slope > 0 ? knee_direction::increasing : knee_direction::decreasing};
}

inline std::vector<double> normalized(std::span<const double> a) {
    const auto [lo, hi] = std::minmax_element(a.begin(), a.end());
    std::vector<double> out(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) out[i] = (a[i] - *lo) / (*hi - *lo);
    return out;
}

// kneed's transform_y: every shape becomes "concave increasing". Only y moves, so for the
// mirrored shapes the knee's index has to be mirrored back afterwards (and kneed does that for
// `knee` alone).
inline void to_concave_increasing(std::vector<double>& y, knee_shape shape) {
    const double top = *std::max_element(y.begin(), y.end());
    if (shape.curve == knee_curve::convex)
        for (double& v : y) v = top - v;
    if ((shape.curve == knee_curve::convex) == (shape.direction == knee_direction::increasing))
        std::reverse(y.begin(), y.end());
}

// scipy.signal.argrelextrema(d, np.greater_equal / np.less_equal), order 1, mode "clip": the end
// points compare with themselves on their open side, and a flat run is all maxima and minima.
inline std::vector<bool> local_extrema(const std::vector<double>& d, bool maxima) {
    const std::size_t n = d.size();
    std::vector<bool> out(n);
    for (std::size_t i = 0; i < n; ++i) {
        const double before = d[i == 0 ? 0 : i - 1], after = d[i + 1 == n ? i : i + 1];
        out[i] = maxima ? (d[i] >= before && d[i] >= after) : (d[i] <= before && d[i] <= after);
    }
    return out;
}

// kneed 0.8.6's find_knee scan over the difference curve d: each local maximum arms a threshold,
// a local minimum (handled after the maximum test, so a flat point ends disarmed) pauses
// detection until the next maximum, and a knee is the last maximum once d drops below its
// threshold. Returns the index of that maximum for every detection, in order.
inline std::vector<std::size_t> kneedle_scan(const std::vector<double>& d, double threshold_drop, bool online) {
    const std::vector<bool> is_max = local_extrema(d, true), is_min = local_extrema(d, false);
    std::vector<std::size_t> found;
    const auto first = std::find(is_max.begin(), is_max.end(), true);
    double threshold = 0;
    std::size_t at = 0;
    bool armed = false;
    for (auto i = static_cast<std::size_t>(first - is_max.begin()); i + 1 < d.size(); ++i) {
        if (is_max[i]) {
            threshold = d[i] - threshold_drop;
            at = i;
            armed = true;
        }
        if (is_min[i]) {
            threshold = 0;
            armed = false;
        }
        if (armed && d[i + 1] < threshold) {
            found.push_back(at);
            if (!online) break;
        }
    }
    return found;
}

} // namespace detail

// S finite and >= 0 (kneed accepts any S; a negative one declares a knee at the first maximum),
// polynomial_degree >= 0 (np.polyfit's rule). usage_error otherwise.
inline void validate(const kneedle_options& options) {
    if (!std::isfinite(options.S) || options.S < 0)
        throw usage_error("Kneedle: S must be a finite number >= 0, got " + detail::format_double(options.S));
    if (options.polynomial_degree < 0)
        throw usage_error("Kneedle: the polynomial degree must be >= 0, got " + std::to_string(options.polynomial_degree));
}

// The direction and curve kneed's find_shape reports for this data, on the points sorted by x
// with repeated x averaged. Needs at least two distinct x values (usage_error otherwise); x and y
// must have equal length and hold only finite numbers.
inline knee_shape find_shape(std::span<const double> x, std::span<const double> y) {
    const detail::knee_points p = detail::prepare_knee_points("find_shape", x, y);
    if (p.x.size() < 2) throw usage_error("find_shape: needs at least two distinct x values");
    return detail::shape_of(p);
}

// Kneedle as kneed 0.8.6 runs it (docs/knee.md). Input rules:
// - x and y of equal length, every value finite: usage_error naming the first bad index otherwise;
// - any order of x: the points are sorted by x first (kneed needs ascending x);
// - a repeated x becomes one point with the mean of its y values;
// - fewer than 3 distinct x, a constant (fitted) y, or a straight line: no knee;
// - options.S finite and >= 0, options.polynomial_degree >= 0: usage_error otherwise.
// knee_y is reported for every knee, also at x = 0, where kneed reports none.
inline knee_result find_knee(std::span<const double> x, std::span<const double> y, const kneedle_options& options = {}) {
    validate(options);
    const detail::knee_points p = detail::prepare_knee_points("find_knee", x, y);
    const std::size_t n = p.x.size();
    knee_result out;
    out.points = n;
    knee_shape shape;
    if (!options.curve || !options.direction) {
        if (n >= 2) shape = detail::shape_of(p);
    }
    out.curve = options.curve.value_or(shape.curve);
    out.direction = options.direction.value_or(shape.direction);
    if (n < 3) return out;

    const std::vector<double> fitted = options.interp == knee_interp::polynomial
                                           ? detail::polynomial_fit_values(p.x, p.y, options.polynomial_degree)
                                           : p.y;
    const auto [lo, hi] = std::minmax_element(fitted.begin(), fitted.end());
    if (*lo == *hi) return out; // kneed: 0/0, no extrema, no knee

    const std::vector<double> xn = detail::normalized(p.x);
    std::vector<double> yn = detail::normalized(fitted);
    detail::to_concave_increasing(yn, {out.curve, out.direction});
    std::vector<double> difference(n), steps(n - 1);
    for (std::size_t i = 0; i < n; ++i) difference[i] = yn[i] - xn[i];
    for (std::size_t i = 0; i + 1 < n; ++i) steps[i] = xn[i + 1] - xn[i];
    const double drop = options.S * std::abs(detail::numpy_pairwise_sum(steps) / static_cast<double>(n - 1));

    const std::vector<std::size_t> found = detail::kneedle_scan(difference, drop, options.online);
    if (found.empty()) return out;
    // kneed maps the index back for the shapes whose y it reversed, but not norm_knee.
    const bool mirrored = (out.curve == knee_curve::convex) == (out.direction == knee_direction::increasing);
    const auto knee_index = [&](std::size_t at) { return mirrored ? n - 1 - at : at; };
    // A knee is detected once per point that falls below its threshold: the same index repeats.
    std::vector<std::size_t> distinct = found;
    std::sort(distinct.begin(), distinct.end());
    distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
    for (std::size_t at : distinct) { // ascending index: ascending normalised x
        out.all_norm_knees.push_back(xn[at]);
        out.all_norm_knees_y.push_back(yn[at]);
    }
    if (mirrored) std::reverse(distinct.begin(), distinct.end()); // ascending x of the mirrored index
    for (std::size_t at : distinct) {
        out.all_knees.push_back(p.x[knee_index(at)]);
        out.all_knees_y.push_back(p.y[knee_index(at)]);
    }
    const std::size_t last = found.back();
    out.knee = p.x[knee_index(last)];
    out.knee_y = p.y[knee_index(last)];
    out.norm_knee = xn[last];
    out.norm_knee_y = yn[last];
    return out;
}

} // namespace servestat
