// The memory an analysing front end may use (--memory-limit, --sketch-alpha) and the limit it
// stands for: an input whose requests would not fit is known by its statistics instead
// (app/bounded_inputs.hpp).
#pragma once

#include <cstddef>   // std::size_t
#include <exception> // std::exception
#include <string>    // std::string, std::stod

#include <unistd.h> // sysconf

#include "servestat/core/errors.hpp"           // usage_error
#include "servestat/stats/run_accumulator.hpp" // default_sketch_alpha

namespace servestat::app {

// --memory-limit and --sketch-alpha, as stats, report and compare take them.
struct memory_args {
    std::string memory_limit; // empty: half of physical memory
    double sketch_alpha = default_sketch_alpha;
};

inline void check_sketch_alpha(const memory_args& a) {
    if (!(a.sketch_alpha > 0 && a.sketch_alpha < 1)) throw usage_error("--sketch-alpha must lie between 0 and 1");
}

namespace detail {

// "2G", "512M", "64k", "1.5G", "1000000" (bytes): powers of 1024.
inline std::size_t parse_memory_size(const std::string& text) {
    double number = 0;
    std::size_t used = 0;
    try {
        number = std::stod(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    std::string unit = text.substr(used);
    const auto scale = [&]() -> double {
        if (unit.empty() || unit == "B") return 1;
        if (unit.size() >= 2 && unit.substr(1) != "B" && unit.substr(1) != "iB") return 0;
        switch (unit[0]) {
        case 'k': case 'K': return 1024.0;
        case 'm': case 'M': return 1024.0 * 1024;
        case 'g': case 'G': return 1024.0 * 1024 * 1024;
        case 't': case 'T': return 1024.0 * 1024 * 1024 * 1024;
        default: return 0;
        }
    }();
    if (used == 0 || scale == 0 || !(number > 0) || number * scale < 1 << 20)
        throw usage_error("--memory-limit '" + text + "': expected a size of at least 1M, e.g. 2G, 512M");
    // Beyond 2^60 bytes (1 EiB) no machine has it, and the conversion to a byte count would overflow.
    if (number * scale > 0x1p60) throw usage_error("--memory-limit '" + text + "': more than 1 EiB; no machine has it");
    return static_cast<std::size_t>(number * scale);
}

} // namespace detail

// The limit in bytes: --memory-limit, else half of physical memory (0 when unknown: no limit).
inline std::size_t memory_limit_of(const memory_args& a) {
    if (!a.memory_limit.empty()) return detail::parse_memory_size(a.memory_limit);
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page) / 2 : 0;
}

} // namespace servestat::app
