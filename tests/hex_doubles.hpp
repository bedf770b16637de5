// Reference files written by tests/tools/*.py store every double as float.hex() text, so the exact
// bits come back: strtod reads hex exactly, independent of any JSON number parser.
#pragma once

#include <bit>     // std::bit_cast
#include <cstdint> // std::uint64_t
#include <cstdlib> // std::strtod
#include <string>  // std::string
#include <vector>  // std::vector

#include <nlohmann/json.hpp> // nlohmann::json

namespace servestat::test {

inline double from_hex(const std::string& text) { return std::strtod(text.c_str(), nullptr); }

inline std::vector<double> doubles_from_hex(const nlohmann::json& array) {
    std::vector<double> out;
    out.reserve(array.size());
    for (const auto& item : array) out.push_back(from_hex(item.get<std::string>()));
    return out;
}

inline bool same_bits(double a, double b) { return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b); }

} // namespace servestat::test
