// Time units of input fields, converted to the seconds used everywhere inside.
#pragma once

#include <optional>    // std::optional
#include <string_view> // std::string_view

namespace servestat {

enum class time_unit { s, ms, us, ns };

// As --map spells it: "s", "ms", "us", "ns".
inline constexpr std::string_view to_string(time_unit u) noexcept {
    switch (u) {
    case time_unit::s: return "s";
    case time_unit::ms: return "ms";
    case time_unit::us: return "us";
    case time_unit::ns: return "ns";
    }
    return "s";
}

// Divides rather than multiplies by 1e-3 so that 1234 ms becomes exactly the double nearest 1.234 s,
// the value pandas gives for `ms / 1000`.
inline constexpr double to_seconds(double value, time_unit u) noexcept {
    switch (u) {
    case time_unit::s: return value;
    case time_unit::ms: return value / 1e3;
    case time_unit::us: return value / 1e6;
    case time_unit::ns: return value / 1e9;
    }
    return value;
}

inline std::optional<time_unit> parse_time_unit(std::string_view s) noexcept {
    if (s == "s") return time_unit::s;
    if (s == "ms") return time_unit::ms;
    if (s == "us") return time_unit::us;
    if (s == "ns") return time_unit::ns;
    return std::nullopt;
}

} // namespace servestat
