// Helpers shared by the readers of NVIDIA's benchmark exports, AIPerf's (aiperf.hpp,
// aiperf_summary.hpp) and GenAI-Perf's (genai_perf.hpp): epoch-ns clocks, run labels, member
// access, JSON-line parsing, and the time units AIPerf writes.
#pragma once

#include <cmath>       // std::llround
#include <cstdint>     // std::int64_t, std::uint64_t
#include <filesystem>  // std::filesystem::path
#include <limits>      // std::numeric_limits
#include <optional>    // std::optional
#include <string>      // std::string, std::to_string
#include <string_view> // std::string_view

#include <nlohmann/json.hpp> // nlohmann::json

#include "servestat/core/units.hpp"           // time_unit, parse_time_unit
#include "servestat/ingest/json_document.hpp" // json_place, json_member, json_number, json_string, end_of_container

namespace servestat {
namespace detail {

// ---- Shared with the GenAI-Perf reader: epoch-ns clocks, dates and run labels ----

// Epoch nanoseconds as an integer: 1.76e18 has no room for a fraction in a double, so timestamps
// are kept as integers until the run's earliest one has been subtracted.
inline std::int64_t nvidia_epoch_ns(const nlohmann::json& v, const json_place& place, const std::string& path) {
    constexpr auto max = std::numeric_limits<std::int64_t>::max();
    if (v.is_number_unsigned()) {
        const auto x = v.get<std::uint64_t>();
        if (x > static_cast<std::uint64_t>(max)) place.fail(path, "timestamp out of range");
        return static_cast<std::int64_t>(x);
    }
    if (v.is_number_integer()) {
        const auto x = v.get<std::int64_t>();
        if (x < 0) place.fail(path, "negative timestamp");
        return x;
    }
    const double x = json_number(v, place, path);
    if (x < 0) place.fail(path, "negative timestamp");
    if (x >= 9.2e18) place.fail(path, "timestamp out of range");
    return static_cast<std::int64_t>(std::llround(x));
}

// Seconds between two epoch-ns instants, subtracted as integers so no digit is lost.
inline double nvidia_seconds_between(std::int64_t later_ns, std::int64_t earlier_ns) {
    return static_cast<double>(later_ns - earlier_ns) / 1e9;
}

// AIPerf and GenAI-Perf give every export the same file name and tell runs apart by their artifact
// directory (artifacts/<model>-openai-chat-concurrency8/profile_export.json), so that directory
// is the better label when the file kept its default name.
inline std::string nvidia_run_label(const std::filesystem::path& file, std::string_view default_stem) {
    const std::string stem = file.stem().string();
    const std::string dir = file.parent_path().filename().string();
    if (stem == default_stem && !dir.empty() && dir != "." && dir != "..") return dir;
    return stem;
}

// ---- Units ----

// AIPerf writes "sec" for seconds (benchmark_duration) besides ns/us/ms.
inline std::optional<time_unit> aiperf_time_unit(std::string_view unit) {
    if (unit == "sec") return time_unit::s;
    return parse_time_unit(unit);
}

inline constexpr std::string_view aiperf_time_units = "ns, us, ms, s or sec";

inline double aiperf_ns_per(time_unit u) {
    switch (u) {
    case time_unit::s: return 1e9;
    case time_unit::ms: return 1e6;
    case time_unit::us: return 1e3;
    case time_unit::ns: return 1;
    }
    return 1;
}

inline std::string aiperf_unknown_unit(std::string_view unit, std::string_view expected) {
    return std::string("unknown unit '").append(unit).append("' (expected ").append(expected).append(")");
}

// ---- JSON members and lines ----

inline const nlohmann::json* nvidia_member(const nlohmann::json& object, std::string_view key) {
    const auto* v = json_member(object, key);
    return v && !v->is_null() ? v : nullptr;
}

inline std::optional<std::string> nvidia_optional_string(const nlohmann::json& object, std::string_view key,
                                                  const json_place& place, const std::string& parent) {
    const auto* v = nvidia_member(object, key);
    if (!v) return std::nullopt;
    return json_string(*v, place, json_path(parent, key));
}

inline nlohmann::json nvidia_parse_json_line(std::string_view line, const json_place& place) {
    return parse_json_text(line, place, end_of_container(line) == std::string_view::npos);
}

} // namespace detail
} // namespace servestat
