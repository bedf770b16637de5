// Deterministic random numbers: generators whose every output is fixed by their seed on every
// platform (the standard library's distributions are not), for bootstrap resamples, simulated
// workloads and generated text.
#pragma once

#include <array>   // std::array
#include <cmath>   // std::log, std::sqrt, std::pow
#include <cstdint> // std::uint64_t

namespace servestat::detail {

inline constexpr std::uint64_t golden_gamma = 0x9E3779B97F4A7C15ULL;

// splitmix64's output function: a well-mixed hash of one 64-bit value, e.g. (seed, index).
inline constexpr std::uint64_t mix64(std::uint64_t x) noexcept {
    x += golden_gamma;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

// splitmix64 (Steele, Lea, Flood 2014): tiny, and the seeder of xoshiro256.
struct splitmix64 {
    std::uint64_t state;
    std::uint64_t next() noexcept {
        const std::uint64_t out = mix64(state);
        state += golden_gamma;
        return out;
    }
};

// xoshiro256** (Blackman and Vigna), seeded through splitmix64: an exactly specified generator, so a
// seed gives the same resamples everywhere, and cheaper per number than mt19937_64, which matters
// when a bootstrap draws 10^9 indices.
class xoshiro256 {
public:
    using result_type = std::uint64_t;
    explicit xoshiro256(std::uint64_t seed) {
        splitmix64 seeder{seed};
        for (auto& word : state_) word = seeder.next();
    }
    static constexpr result_type min() { return 0; }
    static constexpr result_type max() { return ~result_type{0}; }
    result_type operator()() noexcept {
        const std::uint64_t result = rotl(state_[1] * 5, 7) * 9;
        const std::uint64_t t = state_[1] << 17;
        state_[2] ^= state_[0];
        state_[3] ^= state_[1];
        state_[1] ^= state_[2];
        state_[0] ^= state_[3];
        state_[2] ^= t;
        state_[3] = rotl(state_[3], 45);
        return result;
    }

private:
    static constexpr std::uint64_t rotl(std::uint64_t x, int k) noexcept { return (x << k) | (x >> (64 - k)); }
    std::array<std::uint64_t, 4> state_{};
};

__extension__ typedef unsigned __int128 uint128; // GCC and Clang: the full 64 x 64 bit product

// A uniform index below n by Lemire's multiply-and-reject ("Fast random integer generation in an
// interval", 2019): exact, and a division only on the rare rejection path. std's distributions are
// left to each standard library and would give other resamples elsewhere.
inline std::uint64_t draw_below(xoshiro256& rng, std::uint64_t n) noexcept {
    uint128 product = static_cast<uint128>(rng()) * n;
    auto low = static_cast<std::uint64_t>(product);
    if (low < n) {
        const std::uint64_t biased_below = (0 - n) % n; // 2^64 mod n
        while (low < biased_below) {
            product = static_cast<uint128>(rng()) * n;
            low = static_cast<std::uint64_t>(product);
        }
    }
    return static_cast<std::uint64_t>(product >> 64);
}

// ---- continuous draws for arrival schedules, each exactly specified so that a seed gives the same
// numbers everywhere up to libm's log, sqrt and pow ----

// A uniform double in (0, 1]: the top 53 bits of one draw plus one, times 2^-53. Never 0, so its log
// is finite and an exponential draw never overflows.
inline double uniform_open_closed(xoshiro256& rng) noexcept {
    return static_cast<double>((rng() >> 11) + 1) * 0x1.0p-53;
}

// Exponential with mean 1, by inversion: -log(U).
inline double standard_exponential(xoshiro256& rng) noexcept { return -std::log(uniform_open_closed(rng)); }

// Standard normal by Marsaglia's polar method: two uniform draws in (-1, 1] per try, rejected
// unless they fall inside the unit circle (and off its centre); the second normal of each accepted
// pair is dropped, which keeps the function stateless.
inline double standard_normal(xoshiro256& rng) noexcept {
    for (;;) {
        const double u = 2.0 * uniform_open_closed(rng) - 1.0;
        const double v = 2.0 * uniform_open_closed(rng) - 1.0;
        const double s = u * u + v * v;
        if (s < 1.0 && s > 0.0) return u * std::sqrt(-2.0 * std::log(s) / s);
    }
}

// Gamma with the given shape (> 0) and scale 1, by Marsaglia and Tsang ("A simple method for
// generating gamma variables", 2000): per try one standard_normal() and one uniform_open_closed(),
// the squeeze first and the log test only when it fails. A shape below 1 draws Gamma(shape + 1) and
// then multiplies by U^(1/shape), their boost for small shapes.
inline double standard_gamma(xoshiro256& rng, double shape) noexcept {
    if (shape < 1.0) {
        const double g = standard_gamma(rng, shape + 1.0);
        return g * std::pow(uniform_open_closed(rng), 1.0 / shape);
    }
    const double d = shape - 1.0 / 3.0;
    const double c = 1.0 / std::sqrt(9.0 * d);
    for (;;) {
        double x = 0, v = 0;
        do {
            x = standard_normal(rng);
            v = 1.0 + c * x;
        } while (v <= 0.0);
        v = v * v * v;
        const double u = uniform_open_closed(rng);
        const double x2 = x * x;
        if (u < 1.0 - 0.0331 * x2 * x2) return d * v;
        if (std::log(u) < 0.5 * x2 + d * (1.0 - v + std::log(v))) return d * v;
    }
}

} // namespace servestat::detail
