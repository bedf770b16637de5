// The confidence interval of a change in a percentile between two samples, built from each
// sample's order statistics (Hettmansperger 1984, "Two-sample inference based on one-sample sign
// statistics"): with [b_l, b_u] and [a_l, a_u] order-statistic intervals of the percentile before
// and after, after − before lies in [a_l − b_u, a_u − b_l] and after / before − 1 in
// [a_l / b_u − 1, a_u / b_l − 1]. Two independent 95% intervals combined this way cover far more
// than 95%, so the per-side positions are narrowed until the combined interval's coverage is the
// smallest at or above the confidence. That coverage is exact and holds at every n: the interval
// misses the true change only when one side's interval lies wholly beyond the other's (shifted
// by the change), and when the two distributions differ by a shift (absolute change) or a factor
// (relative change), no change included, the chance of that depends on the ranks alone (a
// negative hypergeometric count), whatever the shape of the latencies. A percentile resting on
// too few values for any such interval gets none (the comparison says `too_few`), instead of a
// bootstrap interval that covers less than it states: the bootstrap cannot draw beyond the
// observed extremes, and a p99 of a few hundred requests rests on the handful above it.
#pragma once

#include <algorithm> // std::max, std::min
#include <cmath>     // std::lgamma, std::log, std::log1p, std::exp, std::sqrt, std::floor, std::ceil
#include <cstddef>   // std::size_t
#include <optional>  // std::optional
#include <vector>    // std::vector

#include "servestat/stats/percentile_interval.hpp" // order_interval

namespace servestat {

// 0-based positions in each side's sorted values, and the exact coverage of the combined interval
// when the two distributions differ by a shift or a factor.
struct percentile_change_positions {
    order_interval before, after;
    double coverage = 0;
};

namespace detail {

// P(B ≤ k) for B ~ Binomial(n, p), B counting the values below the p-quantile: the equal-tailed
// order-statistic rule of percentile_interval. Terms more than 40 standard deviations from np are
// below 1e-300 and left out, so a log of millions of requests costs a window, not n terms.
class binomial_window {
public:
    binomial_window(std::size_t n, double p) : n_(n) {
        const double nd = static_cast<double>(n), sd = std::sqrt(nd * p * (1 - p));
        first_ = static_cast<std::size_t>(std::max(0.0, std::floor(nd * p - 40 * sd - 50)));
        const auto last = static_cast<std::size_t>(std::min(nd, std::ceil(nd * p + 40 * sd + 50)));
        const double log_p = std::log(p), log_q = std::log1p(-p);
        // The terms are carried as logarithms: the window's edges lie below the smallest double.
        double log_term = std::lgamma(nd + 1) - std::lgamma(static_cast<double>(first_) + 1) -
                          std::lgamma(nd - static_cast<double>(first_) + 1) + static_cast<double>(first_) * log_p +
                          (nd - static_cast<double>(first_)) * log_q;
        const double log_ratio = log_p - log_q;
        double cdf = 0;
        for (std::size_t k = first_; k <= last; ++k) {
            cdf += std::exp(log_term);
            cdf_.push_back(cdf);
            if (k < n) log_term += std::log(static_cast<double>(n - k) / static_cast<double>(k + 1)) + log_ratio;
        }
    }
    std::size_t n() const noexcept { return n_; }
    double at(std::size_t k) const noexcept { // P(B ≤ k)
        if (k < first_) return 0;
        return k - first_ < cdf_.size() ? cdf_[k - first_] : 1;
    }
    // 0-based lower position: the largest l (1-based) with P(B ≤ l − 1) ≤ tail, less one.
    std::optional<std::size_t> lower(double tail) const {
        if (!(at(0) <= tail)) return std::nullopt;
        std::size_t lo = 0, hi = n_; // at(lo) ≤ tail; find the last such k below n
        while (hi - lo > 1) {
            const std::size_t mid = lo + (hi - lo) / 2;
            (at(mid) <= tail ? lo : hi) = mid;
        }
        return lo; // X(lo + 1), 1-based
    }
    // 0-based upper position: the smallest u (1-based) with P(B ≤ u − 1) ≥ 1 − tail, less one.
    std::optional<std::size_t> upper(double tail) const {
        if (n_ == 0 || !(1 - at(n_ - 1) <= tail)) return std::nullopt;
        std::size_t lo = 0, hi = n_ - 1; // the first k with 1 − at(k) ≤ tail lies in [lo, hi]
        while (lo < hi) {
            const std::size_t mid = lo + (hi - lo) / 2;
            if (1 - at(mid) <= tail) hi = mid;
            else lo = mid + 1;
        }
        return lo;
    }

private:
    std::size_t n_, first_ = 0;
    std::vector<double> cdf_; // from first_
};

// P(X(i) > Y(j)) for m values X and n values Y from one continuous distribution, 1-based i and j:
// fewer than i of the X lie below Y(j), that is, at least j of the i + j − 1 smallest of all m + n
// values are Y: a hypergeometric tail, P(H ≥ j) for H ~ Hypergeometric(m + n values, n of them Y,
// i + j − 1 drawn). Summed over whichever tail has fewer terms (a p99's has a handful), and within
// 40 standard deviations of the mean (the terms beyond are below 1e-300).
inline double order_statistic_exceeds(std::size_t m, std::size_t n, std::size_t i, std::size_t j) {
    if (i == 0) return 0;
    if (i > m || j == 0) return 1;
    if (j > n) return 0;
    const std::size_t drawn = i + j - 1, total = m + n;
    const std::size_t lowest = drawn > m ? drawn - m : 0, highest = std::min(n, drawn);
    if (j > highest) return 0;
    if (j <= lowest) return 1;
    const double md = static_cast<double>(m), nd = static_cast<double>(n), dd = static_cast<double>(drawn);
    const double td = static_cast<double>(total), mean = dd * nd / td;
    const double sd = std::sqrt(dd * (nd / td) * (md / td) * (td - dd) / std::max(td - 1, 1.0));
    const auto log_choose = [](double a, double b) { return std::lgamma(a + 1) - std::lgamma(b + 1) - std::lgamma(a - b + 1); };
    const auto log_pmf = [&](std::size_t h) {
        const double hd = static_cast<double>(h);
        return log_choose(nd, hd) + log_choose(md, dd - hd) - log_choose(td, dd);
    };
    // Σ pmf(h) for h in [from, to], walking up with the ratio pmf(h + 1) / pmf(h).
    const auto sum = [&](std::size_t from, std::size_t to) {
        from = std::max(from, static_cast<std::size_t>(std::max(0.0, std::floor(mean - 40 * sd - 50))));
        to = std::min(to, static_cast<std::size_t>(std::ceil(mean + 40 * sd + 50)));
        double total_mass = 0, log_term = from <= to ? log_pmf(from) : 0;
        for (std::size_t h = from; h <= to; ++h) {
            total_mass += std::exp(log_term);
            const double hd = static_cast<double>(h);
            if (h < to) log_term += std::log((nd - hd) * (dd - hd) / ((hd + 1) * (md - dd + hd + 1)));
        }
        return total_mass;
    };
    if (highest - j < j - lowest) return std::min(1.0, sum(j, highest));
    return std::max(0.0, 1 - sum(lowest, j - 1));
}

} // namespace detail

// The order-statistic positions of percentile (0–100) on each side for an interval of the change
// with coverage at least `confidence`, or none when no positions inside the samples reach it
// (a p99 of 200 values per side at 95%: its tail holds about two values a side).
//
// The rule: each side's interval is percentile_interval's, with the lower end at tail probability
// t_low and the upper at t_high. First t_low = t_high = t, the largest t (narrowest intervals) whose
// combined coverage is at least `confidence`; then, the positions being discrete, whichever single
// tail can be narrowed further (t_low alone, else t_high alone, to the largest value that keeps the
// coverage) and brings the coverage nearer the confidence. The coverage is 1 − P(a_l > b_u) −
// P(b_l > a_u) (the two misses exclude each other).
inline std::optional<percentile_change_positions> percentile_change_interval(std::size_t n_before, std::size_t n_after,
                                                                           double percentile, double confidence = 0.95,
                                                                           bool existence_only = false) { // true: stop at the widest positions
    const double p = percentile / 100;
    if (n_before == 0 || n_after == 0 || !(p > 0 && p < 1) || !(confidence > 0 && confidence < 1)) return std::nullopt;
    const detail::binomial_window before(n_before, p), after(n_after, p);
    struct candidate {
        percentile_change_positions positions;
        bool valid = false;
    };
    std::vector<percentile_change_positions> seen; // the bisections revisit the same positions
    const auto at = [&](double t_low, double t_high) {
        candidate c;
        const auto bl = before.lower(t_low), bu = before.upper(t_high), al = after.lower(t_low), au = after.upper(t_high);
        if (!bl || !bu || !al || !au) return c;
        c.valid = true;
        for (const auto& s : seen)
            if (s.before.lower == *bl && s.before.upper == *bu && s.after.lower == *al && s.after.upper == *au) {
                c.positions = s;
                return c;
            }
        c.positions.before = {*bl, *bu};
        c.positions.after = {*al, *au};
        c.positions.coverage = 1 - detail::order_statistic_exceeds(n_after, n_before, *al + 1, *bu + 1) -
                               detail::order_statistic_exceeds(n_before, n_after, *bl + 1, *au + 1);
        seen.push_back(c.positions);
        return c;
    };
    const auto holds = [&](const candidate& c) { return c.valid && c.positions.coverage >= confidence; };
    // The widest intervals: each side's extremes are its first or last values.
    const double widest = std::max({before.at(0), 1 - before.at(n_before - 1), after.at(0), 1 - after.at(n_after - 1)});
    candidate best = at(widest, widest);
    if (!holds(best)) return std::nullopt;
    if (existence_only) return best.positions;
    // Narrowest holding t in [lo, hi): coverage falls as t rises.
    const auto narrowest = [&](double lo, auto&& evaluate) {
        double hi = 0.5;
        candidate kept = evaluate(lo);
        for (int step = 0; step < 50; ++step) {
            const double mid = lo + (hi - lo) / 2;
            if (const candidate c = evaluate(mid); holds(c)) {
                lo = mid;
                kept = c;
            } else {
                hi = mid;
            }
        }
        return std::pair{lo, kept};
    };
    const auto [t, equal] = narrowest(widest, [&](double x) { return at(x, x); });
    best = equal;
    const candidate low_only = narrowest(t, [&, t = t](double x) { return at(x, t); }).second;
    const candidate high_only = narrowest(t, [&, t = t](double x) { return at(t, x); }).second;
    if (low_only.positions.coverage < best.positions.coverage) best = low_only;
    if (high_only.positions.coverage < best.positions.coverage) best = high_only;
    return best.positions;
}

// Whether the widest positions (each side's extremes) reach the confidence: whether
// percentile_change_interval gives an interval at all.
inline bool percentile_change_bounded(std::size_t n_before, std::size_t n_after, double percentile, double confidence = 0.95) {
    return percentile_change_interval(n_before, n_after, percentile, confidence, true).has_value();
}

// The fewest values per side (equal on both) from which a percentile's change gets an interval at
// this confidence, searched up to `limit`; none beyond it. At 95%: p50 needs 4, p90 20, p95 48,
// p99 238, p99.9 2,377 (a one-sided bound of one side alone needs 299 for p99).
inline std::optional<std::size_t> fewest_values_for_change(double percentile, double confidence = 0.95,
                                                           std::size_t limit = 100000) {
    for (std::size_t n = 1; n <= limit; ++n)
        if (percentile_change_bounded(n, n, percentile, confidence)) return n;
    return std::nullopt;
}

} // namespace servestat
