// Numbers as people read them in reports: seconds in ms or s, rates, shares. Fixed formats, so the
// same input always gives the same text.
#pragma once

#include <cmath>    // std::abs
#include <optional> // std::optional
#include <string>   // std::string

#include <fmt/format.h> // fmt::format

namespace servestat::report {

inline constexpr const char* missing_value = "–";

// 0.0123 -> "12.3 ms", 0.25 -> "250 ms", 3.5 -> "3.50 s", 125 -> "125 s".
inline std::string format_seconds(double s) {
    const double a = std::abs(s);
    if (a == 0) return "0 s";
    if (a < 0.001) return fmt::format("{:.0f} µs", s * 1e6);
    if (a < 0.01) return fmt::format("{:.2f} ms", s * 1e3);
    if (a < 0.1) return fmt::format("{:.1f} ms", s * 1e3);
    if (a < 1) return fmt::format("{:.0f} ms", s * 1e3);
    if (a < 100) return fmt::format("{:.2f} s", s);
    return fmt::format("{:.0f} s", s);
}

inline std::string format_seconds(const std::optional<double>& s) {
    return s ? format_seconds(*s) : missing_value;
}

inline std::string format_share(double fraction) { return fmt::format("{:.1f}%", 100 * fraction); }
inline std::string format_share(const std::optional<double>& f) { return f ? format_share(*f) : missing_value; }

inline std::string format_rate(const std::optional<double>& v, const char* unit) {
    return v ? fmt::format("{:.2f} {}", *v, unit) : missing_value;
}

inline std::string format_ratio(double r) { return fmt::format("{:.1f}×", r); }

} // namespace servestat::report
