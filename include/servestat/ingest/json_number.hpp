// JSON numbers read exactly: the double nearest to the decimal text, always. simdjson 3.0.1
// (Debian 12) reads a number of more than 19 significant digits whose integer part is 0 wrongly
// (simdjson#2093: "0.30000044444444444444444444" gave 1.23e-07), so servestat's JSON Lines readers
// take the number's text from simdjson and read it here.
#pragma once

#include <bit>          // std::countr_zero, std::endian
#include <charconv>     // std::from_chars
#include <cstring>      // std::memcpy
#include <cstddef>      // std::size_t
#include <cstdint>      // std::uint64_t
#include <string_view>  // std::string_view
#include <system_error> // std::errc

namespace servestat::detail {

[[gnu::always_inline]] inline bool is_json_digit(const char* p, const char* end) noexcept {
    return p != end && static_cast<unsigned char>(*p - '0') <= 9;
}

// How many of the 8 bytes in v (first byte lowest) are digits before the first that is not: flags
// from the bit tricks of "Bit Twiddling Hacks" (hasless, hasmore), which may mark a byte above a
// true one but never below it, so the lowest mark is exact.
[[gnu::always_inline]] inline unsigned leading_digits(std::uint64_t v) noexcept {
    constexpr std::uint64_t ones = 0x0101010101010101, highs = 0x8080808080808080;
    const std::uint64_t below_zero = (v - ones * '0') & ~v, above_nine = (v + ones * (127 - '9')) | v;
    const std::uint64_t flags = (below_zero | above_nine) & highs;
    return flags == 0 ? 8 : static_cast<unsigned>(std::countr_zero(flags)) / 8;
}

// The number the first n (1..8) digit bytes of v spell: moved to the top of the word behind zero
// bytes (leading zeros), then combined pairwise (fast_float's eight-digit step).
[[gnu::always_inline]] inline std::uint64_t value_of_digits(std::uint64_t v, unsigned n) noexcept {
    v &= 0x0F0F0F0F0F0F0F0F;
    if (n < 8) v = (v & ((std::uint64_t{1} << (8 * n)) - 1)) << (8 * (8 - n));
    v = (v * 2561) >> 8 & 0x00FF00FF00FF00FF;
    v = (v * 6553601) >> 16 & 0x0000FFFF0000FFFF;
    return (v * 42949672960001) >> 32;
}

// The digits at p, on into `mantissa` (which wraps past 19 digits: the caller counts them); how
// many. Eight at a time where eight bytes are left (the word trick needs little-endian order).
[[gnu::always_inline]] inline int read_json_digits(const char*& p, const char* end, std::uint64_t& mantissa) noexcept {
    static constexpr std::uint64_t scale[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};
    const char* first = p;
    if constexpr (std::endian::native == std::endian::little) {
        while (end - p >= 8) {
            std::uint64_t v;
            std::memcpy(&v, p, sizeof v);
            const unsigned n = leading_digits(v);
            if (n == 0) return static_cast<int>(p - first);
            mantissa = mantissa * scale[n] + value_of_digits(v, n);
            p += n;
            if (n < 8) return static_cast<int>(p - first);
        }
    }
    for (; is_json_digit(p, end); ++p) mantissa = mantissa * 10 + static_cast<std::uint64_t>(*p - '0');
    return static_cast<int>(p - first);
}

// Reads the JSON number at the start of `text` (strict grammar:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?) into `out`; returns its length, or 0 when no
// number starts there, it is out of a double's range or its exponent has over 5 significant digits. Up to 19 significant digits with a power of
// ten up to 22 is exact in one operation (Clinger's fast path: both operands are exact doubles, so
// IEEE rounds the result once); other numbers go through std::from_chars, also correctly rounded.
[[gnu::always_inline]] inline std::size_t json_number(std::string_view text, double& out) noexcept {
    static constexpr double powers[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    const char* const start = text.data();
    const char* const end = start + text.size();
    const char* p = start;
    const bool negative = p != end && *p == '-';
    if (negative) ++p;
    if (!is_json_digit(p, end)) return 0;
    std::uint64_t mantissa = 0;
    int digits = 0, exponent = 0; // significant digits read, and the power of ten they are scaled by
    if (*p == '0') ++p;
    else digits = read_json_digits(p, end, mantissa);
    if (p != end && *p == '.') {
        ++p;
        if (!is_json_digit(p, end)) return 0;
        if (mantissa == 0) // the leading zeros of 0.000x are not significant
            for (; p != end && *p == '0'; ++p) --exponent;
        const int fraction = read_json_digits(p, end, mantissa);
        digits += fraction;
        exponent -= fraction;
    }
    bool plain = true;
    if (p != end && (*p == 'e' || *p == 'E')) {
        ++p;
        if (p != end && (*p == '+' || *p == '-')) ++p;
        const char* exponent_start = p;
        while (p != end && *p == '0') ++p; // leading zeros (5e-0000000000000000001) are valid JSON
        const char* significant_start = p;
        while (is_json_digit(p, end)) ++p;
        // An exponent of more than 5 significant digits puts any number but zero out of a double's range.
        if (p == exponent_start || p - significant_start > 5) return 0;
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
