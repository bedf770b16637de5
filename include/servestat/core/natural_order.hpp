// The order people expect for names with numbers in them: runs and levels named c1, c2, c16, c32
// (not c1, c16, c2, c32 as bytes sort them), so series, legends and tables list levels in the order
// they were run.
#pragma once

#include <cstddef>     // std::size_t
#include <string_view> // std::string_view

namespace servestat {

namespace detail {

inline bool natural_digit(char c) noexcept { return c >= '0' && c <= '9'; }

// -1, 0 or 1 as a is before, equal to or after b with digit runs compared as numbers ("007" = "7"),
// everything else byte by byte.
inline int natural_compare(std::string_view a, std::string_view b) noexcept {
    std::size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        if (natural_digit(a[i]) && natural_digit(b[j])) {
            while (i < a.size() && a[i] == '0') ++i; // leading zeros do not make a number larger
            while (j < b.size() && b[j] == '0') ++j;
            std::size_t ei = i, ej = j;
            while (ei < a.size() && natural_digit(a[ei])) ++ei;
            while (ej < b.size() && natural_digit(b[ej])) ++ej;
            // More significant digits: a larger number, however long (no overflow).
            if (ei - i != ej - j) return ei - i < ej - j ? -1 : 1;
            for (; i < ei; ++i, ++j)
                if (a[i] != b[j]) return a[i] < b[j] ? -1 : 1;
            continue;
        }
        if (a[i] != b[j]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]) ? -1 : 1;
        ++i, ++j;
    }
    if (i < a.size()) return 1;  // b is a prefix of a
    if (j < b.size()) return -1;
    return 0;
}

} // namespace detail

// Digit runs compared as numbers: "c1" < "c2" < "c16" < "c32", "run 9" < "run 10". A strict weak
// order for std::sort and std::map: names equal as numbers ("c01", "c1") are told apart byte by byte.
inline bool natural_less(std::string_view a, std::string_view b) noexcept {
    const int c = detail::natural_compare(a, b);
    return c != 0 ? c < 0 : a < b;
}

} // namespace servestat
