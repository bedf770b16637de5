// What the harness translation units share beyond the entry points: the error contract and the
// invariants of a run read successfully.
#pragma once

#include <string>      // std::string
#include <string_view> // std::string_view
#include <vector>      // std::vector

#include <servestat/core/run.hpp> // run

#include "harness.hpp"

namespace servestat_fuzz {

// Called inside a catch (...) block: names the escaped exception's type and what(), then aborts.
[[noreturn]] void escaped(std::string_view target);

// Counts, per-run statistics as `servestat stats` computes them (percentiles within [min, max],
// no NaN or infinity), valid UTF-8 in every string. Aborts on a violation.
void check_runs(std::string_view target, const std::vector<servestat::run>& runs);

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
    return {reinterpret_cast<const char*>(data), size};
}

} // namespace servestat_fuzz
