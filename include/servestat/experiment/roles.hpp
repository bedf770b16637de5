// The role of each factor of a result set, by stated principles (docs/sweeps.md#how-runs-are-read),
// each with its reason: the load (concurrency, rate, users…), the run's length (prompt counts,
// durations), a replicate index (run, rep, trial, a trailing number counting repeats), provenance
// (dates, ids, hosts: when and where, never what was run) and, for everything else that differs,
// configuration. What the stage cannot explain is a configuration, never a replicate.
#pragma once

#include <algorithm>   // std::find
#include <array>       // std::array
#include <cstddef>     // std::size_t
#include <optional>    // std::optional
#include <set>         // std::set
#include <string>      // std::string
#include <string_view> // std::string_view
#include <vector>      // std::vector

#include "servestat/core/errors.hpp"             // usage_error
#include "servestat/experiment/factor_table.hpp" // factor, word_hint

namespace servestat {

enum class factor_role { load, length, replicate, provenance, config, ignored };

inline const char* to_string(factor_role r) noexcept {
    switch (r) {
    case factor_role::load: return "load";
    case factor_role::length: return "length";
    case factor_role::replicate: return "replicate";
    case factor_role::provenance: return "provenance";
    case factor_role::config: return "config";
    case factor_role::ignored: return "ignore";
    }
    return "?";
}

inline factor_role parse_factor_role(std::string_view s) {
    for (const auto r : {factor_role::load, factor_role::length, factor_role::replicate, factor_role::provenance,
                         factor_role::config, factor_role::ignored})
        if (s == to_string(r)) return r;
    if (s == "configuration") return factor_role::config;
    throw usage_error("--role: unknown role '" + std::string(s) +
                      "' (known: load, config, replicate, length, provenance, ignore)");
}

// A role the user sets: --role NAME=ROLE.
struct user_role {
    std::string factor;
    factor_role role;
};

namespace detail {

// Load parameters, in the order a sweep prefers them when several vary.
inline constexpr std::array<std::string_view, 12> load_factor_names{
    "concurrency", "max_concurrency", "num_concurrency", "request_rate", "rate", "qps", "users", "num_users",
    "scale", "target_qps", "max_concurrent_requests", "concurrent_requests"};

// What sets how long a run lasts, not what it measures.
inline constexpr std::array<std::string_view, 14> length_factor_names{
    "num_prompts", "num_requests", "request_count", "max_requests", "max_number", "max_seconds", "benchmark_duration",
    "duration", "max_duration", "num_samples", "min_query_count", "min_duration", "warmup_requests", "num_warmups"};

// A random seed too: the same settings run again with another draw of the same workload (whether
// the draws measured alike is the workload evidence's to say).
inline constexpr std::array<std::string_view, 14> replicate_factor_names{
    "run", "run_number", "run_index", "rep", "repeat", "repetition", "replicate", "trial", "iteration", "iter",
    "attempt", "repeat_index", "profile_run", "seed"};

inline constexpr std::array<std::string_view, 15> provenance_factor_names{
    "date", "time", "timestamp", "started_at", "start_time", "end_time", "hash", "commit", "git_commit", "uuid", "id",
    "host", "hostname", "node", "pod"};

// The letters of a name tag that make its number a duration (genai-bench's `…_time_63s`): how long a
// run lasted or was let run, not what it measured.
inline constexpr std::array<std::string_view, 9> duration_unit_names{"s", "sec", "secs", "ms", "min", "mins", "h", "hr", "hrs"};

template <std::size_t N>
bool named_in(const std::array<std::string_view, N>& names, std::string_view name) {
    return std::find(names.begin(), names.end(), name) != names.end();
}

} // namespace detail

inline bool is_load_factor_name(std::string_view name) { return detail::named_in(detail::load_factor_names, name); }
inline bool is_length_factor_name(std::string_view name) { return detail::named_in(detail::length_factor_names, name); }

// Where a factor's role came from and why, as the "how read" section says it.
struct role_reading {
    factor_role role = factor_role::config;
    std::string reason;
    bool user_set = false;
};

// The role a factor's name and words give it, before the structure of the set is looked at.
inline role_reading role_by_name(const factor& f) {
    const std::string& n = f.name;
    if (f.hint == word_hint::time) return {factor_role::provenance, "a date or time in the names: when a run was made"};
    if (f.hint == word_hint::id) return {factor_role::provenance, "an id in the names: which run, not what was run"};
    if (is_load_factor_name(n)) return {factor_role::load, "a load parameter"};
    if (is_length_factor_name(n)) return {factor_role::length, "sets how long a run lasts, not what it measures"};
    if (f.source == factor_source::path_word && detail::named_in(detail::duration_unit_names, n))
        return {factor_role::length, "a duration in the names (a number of " + n + "): how long a run lasted, not what it measured"};
    if (detail::named_in(detail::replicate_factor_names, n)) return {factor_role::replicate, "numbers a repeated measurement"};
    if (detail::named_in(detail::provenance_factor_names, n)) return {factor_role::provenance, "says when or where a run was made"};
    if (f.hint == word_hint::trailing_number) return {factor_role::replicate, "a number ending otherwise equal file names"};
    if (f.hint == word_hint::load_range)
        return {factor_role::replicate, "a word before the load's name (low-qps, high-qps) says which of its levels a "
                                        "session measured: sessions of one sweep"};
    if (f.source == factor_source::path_word) return {factor_role::config, "differs between the names; not a known parameter"};
    return {factor_role::config, "differs between runs"};
}

} // namespace servestat
