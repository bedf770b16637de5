// Value-to-pixel scales, linear or log10, with "nice" 1-2-5 ticks and their labels in seconds or plain.
#pragma once

#include <algorithm>   // std::max, std::min, std::clamp
#include <cmath>       // std::log10, std::pow, std::floor, std::ceil, std::fabs, std::isnan, std::isfinite
#include <string>      // std::string
#include <string_view> // std::string_view
#include <vector>      // std::vector

#include "servestat/plot/data.hpp" // axis_unit
#include "servestat/plot/svg.hpp"  // fixed

namespace servestat::plot {

struct tick {
    double value;
    std::string label;
};

// "250 ms", "1.5 s", "80 µs": the unit that keeps the number between 1 and 1000.
inline std::string format_seconds(double seconds) {
    const double a = std::fabs(seconds);
    if (!std::isfinite(seconds) || a == 0) return "0 s";
    if (a < 1e-3) return fixed(seconds * 1e6) + " µs";
    if (a < 1) return fixed(seconds * 1e3) + " ms";
    return fixed(seconds) + " s";
}

// Positive data whose largest value is at least 100 times its smallest reads better on a log axis.
inline bool spans_decades(double lo, double hi) { return lo > 0 && std::isfinite(hi) && hi / lo >= 100; }

// An axis label ending in "(s)" means seconds unless the caller said otherwise.
inline axis_unit resolve_unit(axis_unit unit, std::string_view label) {
    if (unit != axis_unit::from_label) return unit;
    return label.ends_with("(s)") ? axis_unit::seconds : axis_unit::plain;
}

// A value as a person reads it on this axis; `decimals` is what the tick step needs for plain numbers.
inline std::string format_value(double v, axis_unit unit, int decimals = 2) {
    return unit == axis_unit::seconds ? format_seconds(v) : fixed(v, decimals);
}

// Three significant digits (all of a whole number's) and never an exponent, in the axis' unit
// ("219 ms", "1.46 s", "4471"): a value printed beside what it measures, short enough to fit there;
// its tooltip is exact.
inline std::string short_value(double v, axis_unit unit) {
    const auto three = [](double x) {
        if (x == 0 || !std::isfinite(x)) return std::string("0");
        const int magnitude = static_cast<int>(std::floor(std::log10(std::fabs(x))));
        return fixed(x, std::clamp(2 - magnitude, 0, 12));
    };
    if (unit != axis_unit::seconds) return three(v);
    const double a = std::fabs(v);
    if (!std::isfinite(v) || a == 0) return "0 s";
    if (a < 1e-3) return three(v * 1e6) + " µs";
    if (a < 1) return three(v * 1e3) + " ms";
    return three(v) + " s";
}

namespace detail {

// m × 10^k computed by dividing for negative k, so 3 × 0.2 prints as 0.6, not 0.6000000000000001.
inline double scaled(double m, int k) { return k >= 0 ? m * std::pow(10.0, k) : m / std::pow(10.0, -k); }

struct nice_step {
    double mantissa; // 1, 2 or 5
    int exponent;
    double value() const { return scaled(mantissa, exponent); }
};

inline long long first_index(double lo, double step) { return static_cast<long long>(std::floor(lo / step + 1e-9)); }
inline long long last_index(double hi, double step) { return static_cast<long long>(std::ceil(hi / step - 1e-9)); }

// The 1-2-5 step whose ticks, widened outward to multiples of it, number 4 to 8 (6 aimed for).
inline nice_step choose_step(double lo, double hi) {
    const double raw = (hi - lo) / 5;
    int k = static_cast<int>(std::floor(std::log10(raw)));
    const double ms[] = {1, 2, 5};
    int m = 0;
    while (scaled(ms[m], k) < raw * (1 - 1e-9)) {
        if (++m == 3) m = 0, ++k;
    }
    return {ms[m], k};
}

inline int decimals_for(const nice_step& s) { return std::max(0, -s.exponent); }

// The range an axis is drawn over, finite and narrow enough that hi - lo is finite (with log,
// lo > 0). Statistics never hand out a non-finite value (readers refuse such times), but a scale
// is the last place that would turn one into a loop over 10^300 ticks, so it defends itself.
// An empty range stays empty: each caller widens it in its own way.
struct drawable_range {
    double lo, hi;
};

inline drawable_range make_drawable(double lo, double hi, bool log) {
    const auto tame = [](double v) {
        return std::isnan(v) ? 0.0 : std::clamp(v, -1e300, 1e300); // ±inf clamp to ±1e300
    };
    lo = tame(lo);
    hi = tame(hi);
    if (log && !(lo > 0)) lo = hi > 0 ? hi / 10 : 1;
    if (log && !(hi > 0)) hi = lo;
    return {lo, hi};
}

} // namespace detail

// Ticks at multiples of a 1-2-5 step covering [lo, hi]: [0, 9.3] gives 0, 2, 4, 6, 8, 10.
inline std::vector<double> linear_ticks(double lo_asked, double hi_asked) {
    auto [lo, hi] = detail::make_drawable(lo_asked, hi_asked, false);
    if (!(hi > lo)) hi = lo + 1;
    const auto step = detail::choose_step(lo, hi);
    std::vector<double> out;
    for (auto i = detail::first_index(lo, step.value()); i <= detail::last_index(hi, step.value()); ++i) {
        const double v = detail::scaled(static_cast<double>(i) * step.mantissa, step.exponent);
        out.push_back(v == 0 ? 0.0 : v);
    }
    return out;
}

// Powers of ten covering [lo, hi] (lo > 0); under two decades also 2× and 5×, or there would be
// too few ticks to read a value off.
inline std::vector<double> log_ticks(double lo_asked, double hi_asked) {
    const auto [lo, hi] = detail::make_drawable(lo_asked, hi_asked, true);
    const int first = static_cast<int>(std::floor(std::log10(lo) + 1e-9));
    const int last = std::max(first + 1, static_cast<int>(std::ceil(std::log10(hi) - 1e-9)));
    const bool sub_ticks = hi / lo < 100;
    std::vector<double> out;
    for (int k = first; k <= last; ++k) {
        out.push_back(detail::scaled(1, k));
        if (sub_ticks && k < last) {
            out.push_back(detail::scaled(2, k));
            out.push_back(detail::scaled(5, k));
        }
    }
    return out;
}

// Maps a domain, widened to its outermost ticks so the data never touches the frame's edge
// unlabelled, onto a pixel range (which may run downwards, as y does).
class scale {
public:
    scale(double lo_asked, double hi_asked, double pixel_lo, double pixel_hi, bool log, axis_unit unit = axis_unit::plain)
        : log_(log && lo_asked > 0 && hi_asked > 0), unit_(unit), p0_(pixel_lo), p1_(pixel_hi) {
        auto [lo, hi] = detail::make_drawable(lo_asked, hi_asked, log_);
        if (!(hi > lo)) hi = lo + (lo == 0 || log_ ? 1 : std::fabs(lo)); // a single value still gets an axis
        values_ = log_ ? log_ticks(lo, hi) : linear_ticks(lo, hi);
        lo_ = transform(values_.front());
        hi_ = transform(values_.back());
        decimals_ = log_ ? 3 : detail::decimals_for(detail::choose_step(lo, hi));
    }

    double operator()(double v) const { return p0_ + (transform(v) - lo_) / (hi_ - lo_) * (p1_ - p0_); }
    bool is_log() const noexcept { return log_; }
    double domain_lo() const { return values_.front(); }
    double domain_hi() const { return values_.back(); }
    axis_unit unit() const noexcept { return unit_; }

    std::vector<tick> ticks() const {
        std::vector<tick> out;
        for (double v : values_) out.push_back({v, label(v)});
        return out;
    }

    std::string label(double v) const { return format_value(v, unit_, decimals_); }

private:
    double transform(double v) const { return log_ ? std::log10(v) : v; }

    bool log_;
    axis_unit unit_;
    double p0_, p1_;
    std::vector<double> values_;
    double lo_ = 0, hi_ = 1;
    int decimals_ = 0;
};

} // namespace servestat::plot
