// Numbers as people read them in reports: seconds in ms or s, rates, shares. Fixed formats, so the
// same input always gives the same text.
#pragma once

#include <algorithm> // std::max
#include <cmath>    // std::abs
#include <optional> // std::optional
#include <string>   // std::string

#include <fmt/format.h> // fmt::format

#include "servestat/stats/interval.hpp" // interval

namespace servestat::report {

inline constexpr const char* missing_value = "–";
// Where a rate would be for a run in which nothing completed: no measurement, not a zero.
inline constexpr const char* failed_run_cell = "failed";

namespace detail {

// The unit and decimals a duration of this magnitude is written in: three significant digits in
// µs, ms or s.
struct seconds_unit {
    double scale;
    int decimals;
    const char* name;
};

inline seconds_unit unit_for_seconds(double magnitude) {
    if (magnitude < 0.001) return {1e6, 0, "µs"};
    if (magnitude < 0.01) return {1e3, 2, "ms"};
    if (magnitude < 0.1) return {1e3, 1, "ms"};
    if (magnitude < 1) return {1e3, 0, "ms"};
    if (magnitude < 100) return {1, 2, "s"};
    return {1, 0, "s"};
}

} // namespace detail

// 0.0123 -> "12.3 ms", 0.25 -> "250 ms", 3.5 -> "3.50 s", 125 -> "125 s".
inline std::string format_seconds(double s) {
    if (s == 0) return "0 s";
    const auto u = detail::unit_for_seconds(std::abs(s));
    return fmt::format("{:.{}f} {}", s * u.scale, u.decimals, u.name);
}

// A value's confidence interval written beside it, in the value's unit and to its decimals so the
// unit is said once: value 1.08 (written "1.08 s"), [0.95, 1.21] -> "(0.95–1.21)"; value 0.98
// ("980 ms"), [0.95, 1.21] -> "(950–1210)". A value of 0 takes the unit of the interval's larger end.
inline std::string format_interval(double value, double low, double high) {
    const double magnitude = value != 0 ? std::abs(value) : std::max(std::abs(low), std::abs(high));
    const auto u = detail::unit_for_seconds(magnitude == 0 ? 1 : magnitude);
    return fmt::format("({:.{}f}–{:.{}f})", low * u.scale, u.decimals, high * u.scale, u.decimals);
}

inline std::string format_seconds(const std::optional<double>& s) {
    return s ? format_seconds(*s) : missing_value;
}

// "1.08 s (0.95–1.21)": the value with its interval, or the value alone where it has none.
inline std::string format_seconds(const std::optional<double>& s, const std::optional<interval>& ci) {
    if (!s || !ci) return format_seconds(s);
    return format_seconds(*s) + " " + format_interval(*s, ci->low, ci->high);
}

inline std::string format_share(double fraction) { return fmt::format("{:.1f}%", 100 * fraction); }
inline std::string format_share(const std::optional<double>& f) { return f ? format_share(*f) : missing_value; }

inline std::string format_rate(const std::optional<double>& v, const char* unit) {
    return v ? fmt::format("{:.2f} {}", *v, unit) : missing_value;
}

inline std::string format_ratio(double r) { return fmt::format("{:.1f}×", r); }

} // namespace servestat::report
