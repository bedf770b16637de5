// Whole numbers with thousands separators, 12345 -> "12,345": counts in report sentences and on the
// progress line, whatever the locale.
#pragma once

#include <cstddef> // std::size_t
#include <cstdint> // std::uint64_t
#include <string>  // std::string

namespace servestat::detail {

inline std::string thousands(std::uint64_t n) {
    const std::string digits = std::to_string(n);
    std::string out; // appended, not inserted into: g++ 12 -O3 warns falsely on insert (GCC bug 105329)
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

} // namespace servestat::detail
