// Doubles mapped to order-preserving integer keys, and buckets over the keys' leading bits: the
// histogram that radix selection walks.
#pragma once

#include <algorithm> // std::max, std::min
#include <bit>       // std::bit_cast, std::bit_width
#include <cstddef>   // std::size_t
#include <cstdint>   // std::uint64_t

namespace servestat::detail {

// Unsigned keys that compare like the doubles they come from (finite values, -0 before +0).
inline std::uint64_t order_key(double x) noexcept {
    const auto bits = std::bit_cast<std::uint64_t>(x);
    return (bits >> 63) ? ~bits : bits | (std::uint64_t{1} << 63);
}

// Which bucket a key falls in: keys shifted right until the span from the smallest to the largest
// takes `bits` bits, so the buckets cover the keys' actual range. (Cutting below the highest bit in
// which the two keys differ instead left latencies between 0.05 and 10 s in 288 buckets of 65,536:
// the keys' exponents differ in a high bit, but span few values of it.)
struct key_buckets {
    std::uint64_t base = 0;
    int shift = 0;
    std::size_t count = 1;
    std::size_t operator()(std::uint64_t key) const noexcept {
        return static_cast<std::size_t>((key >> shift) - base);
    }
};

inline key_buckets make_key_buckets(std::uint64_t low, std::uint64_t high, std::size_t n) {
    key_buckets b;
    b.base = low;
    if (low == high) return b;
    const int bits = std::max(8, std::min(16, static_cast<int>(std::bit_width(n)) - 4));
    b.shift = std::max(0, static_cast<int>(std::bit_width(high - low)) - bits); // at most 2^bits + 1 buckets
    b.base = low >> b.shift;
    b.count = static_cast<std::size_t>((high >> b.shift) - b.base) + 1;
    return b;
}

} // namespace servestat::detail
