// The shape of a sweep curve, told from the steps between its adjacent load levels: a smooth
// saturation (where a knee means something), one jump, a plateau, a steady rise without a bend, or
// noise. Kneedle normalises every curve to the unit square and always finds a bend somewhere, so a
// knee read off a step, a plateau or noise is not a saturation point; the sweep analysis says which
// shape it saw next to each knee. docs/knee.md#curve-shapes defines each shape with an example.
#pragma once

#include <algorithm>   // std::minmax_element, std::max, std::min
#include <cmath>       // std::log, std::abs
#include <cstddef>     // std::size_t
#include <optional>    // std::optional
#include <span>        // std::span
#include <string>      // std::string
#include <string_view> // std::string_view
#include <vector>      // std::vector

#include "servestat/sweep/kneedle.hpp" // detail::prepare_knee_points

namespace servestat {

// In the order classify_curve tests them (the first that applies wins):
// - unclassified: fewer than 3 distinct x, or a y ≤ 0 (steps are ratios of adjacent values);
// - plateau: the whole curve stays within a band, max y ≤ (1 + plateau_spread) · min y;
// - noisy: of the curve's movement in steps that are not flat, at least noise_share goes against
//   its main direction (min(up, down) / (up + down), each the sum of |ln(y[i+1]/y[i])|);
// - jump: one step multiplies or divides y by at least jump_factor, is at least jump_dominance
//   times every other step (in |ln| terms), carries at least jump_share of all the movement and is
//   out of proportion to its load step on the log x axis the charts use: |ln(y[i+1]/y[i])| at least
//   jump_elasticity × ln(x[i+1]/x[i]) (7× over c = 1 → 2 is a jump, 7× over c = 1 → 10 is not);
// - smooth_saturation: the curve bends: some point lies at least `bend` of the y range away from
//   the straight line through the end points, on linear axes or on log–log axes (x > 0);
// - monotone: none of the above: it moves one way and stays close to that straight line (a
//   steady rise or fall without a knee).
enum class curve_kind { smooth_saturation, jump, plateau, monotone, noisy, unclassified };

inline std::string_view to_string(curve_kind k) noexcept {
    switch (k) {
    case curve_kind::smooth_saturation: return "smooth_saturation";
    case curve_kind::jump: return "jump";
    case curve_kind::plateau: return "plateau_only";
    case curve_kind::monotone: return "monotone_without_knee";
    case curve_kind::noisy: return "noisy";
    case curve_kind::unclassified: break;
    }
    return "unclassified";
}

// The shape in words, for sentences: "a smooth saturation", "one jump", ...
inline std::string_view describe(curve_kind k) noexcept {
    switch (k) {
    case curve_kind::smooth_saturation: return "smooth saturation";
    case curve_kind::jump: return "step (one jump)";
    case curve_kind::plateau: return "plateau only";
    case curve_kind::monotone: return "monotone without a knee";
    case curve_kind::noisy: return "noisy";
    case curve_kind::unclassified: break;
    }
    return "unclassified";
}

struct curve_shape_options {
    double flat_step = 0.10;      // a step with |y[i+1]/y[i] − 1| below this (in ln terms) is flat
    double plateau_spread = 0.20; // plateau: max y ≤ (1 + this) · min y
    double noise_share = 0.25;    // noisy: movement against the main direction ≥ this share
    double jump_factor = 2.0;     // jump: y[i+1]/y[i] ≥ this, or ≤ 1/this
    double jump_dominance = 2.0;  // jump: |ln step| ≥ this × every other step's
    double jump_share = 0.5;      // jump: |ln step| ≥ this share of the sum over all steps
    // jump: |ln step| ≥ this × ln(x[i+1]/x[i]): y changes at least twice as fast as the load on
    // log–log axes. Latency proportional to a closed loop's concurrency (2× over a doubling) and
    // throughput growing with it are in proportion; only a change out of proportion is a jump.
    double jump_elasticity = 2.0;
    double bend = 0.2;            // smooth saturation: largest distance from the chord, share of the range
};

// The step classify_curve called a jump, between two adjacent points (after sorting by x).
struct curve_jump {
    std::size_t at = 0; // index of the point before the jump
    double x_from = 0, x_to = 0, y_from = 0, y_to = 0;
    double factor = 1;        // y_to / y_from: above 1 a rise, below 1 a fall
    bool flat_before = false; // every step before the jump is flat (a step shape, not just a jump)
    bool flat_after = false;  // every step after it is flat (it plateaus)
};

struct curve_shape {
    curve_kind kind = curve_kind::unclassified;
    std::string reason;                       // why it is unclassified; empty otherwise
    std::size_t points = 0;                   // distinct x (repeated x averaged, as for Kneedle)
    double spread = 0;                        // max y / min y
    bool rising = false;                      // the last point lies above the first
    double against = 0;                       // share of the non-flat movement against the main direction
    double bend_linear = 0, bend_log = 0;     // largest distance from the chord, share of the range
    std::optional<curve_jump> jump;           // set for curve_kind::jump
};

namespace detail {

// Largest |v[i] − chord(u[i])| over the range of v, the chord joining the first and last points.
inline double chord_deviation(const std::vector<double>& u, const std::vector<double>& v) {
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    const double range = *hi - *lo, width = u.back() - u.front();
    if (range <= 0 || width <= 0) return 0;
    double most = 0;
    for (std::size_t i = 0; i < u.size(); ++i) {
        const double on_chord = v.front() + (v.back() - v.front()) * (u[i] - u.front()) / width;
        most = std::max(most, std::abs(v[i] - on_chord));
    }
    return most / range;
}

// The index of the jump among the log steps `l` (of y) over the load steps `lx` (ln of the x
// ratio; 0 where an x is not positive and has no logarithm), if one step qualifies.
inline std::optional<std::size_t> find_jump(const std::vector<double>& l, const std::vector<double>& lx,
                                            const curve_shape_options& o) {
    std::size_t top = 0;
    double total = 0;
    for (std::size_t i = 0; i < l.size(); ++i) {
        total += std::abs(l[i]);
        if (std::abs(l[i]) > std::abs(l[top])) top = i;
    }
    double others = 0;
    for (std::size_t i = 0; i < l.size(); ++i)
        if (i != top) others = std::max(others, std::abs(l[i]));
    const double size = std::abs(l[top]);
    if (size < std::log(o.jump_factor) || size < o.jump_dominance * others || size < o.jump_share * total ||
        size < o.jump_elasticity * lx[top])
        return std::nullopt;
    return top;
}

} // namespace detail

// The shape of the curve y(x) (docs/knee.md#curve-shapes). Points are sorted by x and a repeated
// x becomes one point with the mean y, as Kneedle sees them; x and y of equal length and finite
// (usage_error otherwise).
inline curve_shape classify_curve(std::span<const double> x, std::span<const double> y, const curve_shape_options& o = {}) {
    const detail::knee_points p = detail::prepare_knee_points("classify_curve", x, y);
    curve_shape out;
    out.points = p.x.size();
    if (out.points < 3) {
        out.reason = "fewer than 3 levels";
        return out;
    }
    const auto [lo, hi] = std::minmax_element(p.y.begin(), p.y.end());
    if (*lo <= 0) {
        out.reason = "a value of 0 or less (steps are compared as ratios)";
        return out;
    }
    out.spread = *hi / *lo;
    out.rising = p.y.back() > p.y.front();

    std::vector<double> steps, load_steps; // ln(y[i+1] / y[i]), ln(x[i+1] / x[i])
    double up = 0, down = 0;
    for (std::size_t i = 0; i + 1 < p.y.size(); ++i) {
        steps.push_back(std::log(p.y[i + 1] / p.y[i]));
        load_steps.push_back(p.x[i] > 0 ? std::log(p.x[i + 1] / p.x[i]) : 0.0);
        if (std::abs(steps.back()) < std::log(1 + o.flat_step)) continue;
        (steps.back() > 0 ? up : down) += std::abs(steps.back());
    }
    out.against = up + down > 0 ? std::min(up, down) / (up + down) : 0;

    std::vector<double> log_y(p.y.size()), log_x;
    for (std::size_t i = 0; i < p.y.size(); ++i) log_y[i] = std::log(p.y[i]);
    if (p.x.front() > 0)
        for (double v : p.x) log_x.push_back(std::log(v));
    out.bend_linear = detail::chord_deviation(p.x, p.y);
    out.bend_log = log_x.empty() ? 0 : detail::chord_deviation(log_x, log_y);

    if (out.spread <= 1 + o.plateau_spread) {
        out.kind = curve_kind::plateau;
    } else if (out.against >= o.noise_share) {
        out.kind = curve_kind::noisy;
    } else if (const auto at = detail::find_jump(steps, load_steps, o)) {
        out.kind = curve_kind::jump;
        const double flat = std::log(1 + o.flat_step);
        curve_jump j{*at, p.x[*at], p.x[*at + 1], p.y[*at], p.y[*at + 1], p.y[*at + 1] / p.y[*at], true, true};
        for (std::size_t i = 0; i < steps.size(); ++i)
            if (i != *at && std::abs(steps[i]) >= flat) (i < *at ? j.flat_before : j.flat_after) = false;
        out.jump = j;
    } else if (std::max(out.bend_linear, out.bend_log) >= o.bend) {
        out.kind = curve_kind::smooth_saturation;
    } else {
        out.kind = curve_kind::monotone;
    }
    return out;
}

} // namespace servestat
