// JSON numbers read exactly: the double nearest to the decimal text, always. simdjson 3.0.1
// (Debian 12) reads a number of more than 19 significant digits whose integer part is 0 wrongly
// (simdjson#2093: "0.30000044444444444444444444" gave 1.23e-07), so servestat's JSON Lines readers
// take the number's text from simdjson and read it here.
#pragma once

#include <charconv>     // std::from_chars
#include <cstddef>      // std::size_t
#include <cstdint>      // std::uint64_t
#include <string_view>  // std::string_view
#include <system_error> // std::errc

namespace servestat::detail {

// Reads the JSON number at the start of `text` (strict grammar:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?) into `out`; returns its length, or 0 when no
// number starts there, it is out of a double's range or its exponent has over 5 digits. Up to 19 significant digits with a power of
// ten up to 22 is exact in one operation (Clinger's fast path: both operands are exact doubles, so
// IEEE rounds the result once); other numbers go through std::from_chars, also correctly rounded.
inline std::size_t json_number(std::string_view text, double& out) noexcept {
    static constexpr double powers[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    const char* const start = text.data();
    const char* const end = start + text.size();
    const char* p = start;
    const auto is_digit = [&] { return p != end && *p >= '0' && *p <= '9'; };
    const bool negative = p != end && *p == '-';
    if (negative) ++p;
    if (!is_digit()) return 0;
    std::uint64_t mantissa = 0;
    int digits = 0, exponent = 0; // significant digits read, and the power of ten they are scaled by
    if (*p == '0') ++p;
    else
        for (; is_digit(); ++p, ++digits) mantissa = mantissa * 10 + static_cast<std::uint64_t>(*p - '0');
    if (p != end && *p == '.') {
        ++p;
        if (!is_digit()) return 0;
        for (; is_digit(); ++p, --exponent) {
            if (mantissa == 0 && *p == '0') continue; // leading zeros of 0.000x are not significant
            mantissa = mantissa * 10 + static_cast<std::uint64_t>(*p - '0');
            ++digits;
        }
    }
    bool plain = true;
    if (p != end && (*p == 'e' || *p == 'E')) {
        ++p;
        if (p != end && (*p == '+' || *p == '-')) ++p;
        const char* exponent_start = p;
        while (is_digit()) ++p;
        // An exponent of more than 5 digits (1e-00000000000000000003) is left to the caller's own
        // parser: simdjson refuses one of 20, and the two paths must agree on what is a number.
        if (p == exponent_start || p - exponent_start > 5) return 0;
        plain = false; // rare in logs: from_chars reads the whole text
    }
    if (plain && digits <= 19 && mantissa <= (std::uint64_t{1} << 53) && exponent >= -22) {
        const double m = static_cast<double>(mantissa);
        out = exponent == 0 ? m : m / powers[-exponent];
        if (negative) out = -out;
        return static_cast<std::size_t>(p - start);
    }
    const auto [stop, ec] = std::from_chars(start, p, out);
    return ec == std::errc() && stop == p ? static_cast<std::size_t>(p - start) : 0;
}

} // namespace servestat::detail
