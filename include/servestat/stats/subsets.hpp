// Subsets of requests by prompt length: all, short, medium, long and user-defined buckets. Short
// prompts stuck behind long prefills is the question these answer.
#pragma once

#include <charconv>    // std::from_chars
#include <cstdint>     // std::int32_t, std::uint32_t
#include <limits>      // std::numeric_limits
#include <optional>    // std::optional
#include <span>        // std::span
#include <string>      // std::string
#include <string_view> // std::string_view
#include <vector>      // std::vector

#include "servestat/core/errors.hpp"        // usage_error
#include "servestat/core/parallel.hpp"      // parallel_for
#include "servestat/core/request_table.hpp" // request_table
#include "servestat/stats/row_set.hpp"       // row_set

namespace servestat {

// Prompt-token range [lo, hi], both inclusive.
struct bucket {
    std::string name;
    std::int32_t lo = 0;
    std::int32_t hi = std::numeric_limits<std::int32_t>::max();
    bool contains(std::int32_t prompt_tokens) const noexcept {
        return prompt_tokens >= lo && prompt_tokens <= hi;
    }
};

struct subset_options {
    std::int32_t short_max = 64;  // short: prompt_tokens <= short_max
    std::int32_t long_min = 2048; // long: prompt_tokens >= long_min; medium lies between
    std::vector<bucket> buckets;  // extra subsets, reported after the built-in ones
};

// A named subset as row indices into the run's request_table (every request, ok or not).
struct subset {
    std::string name;
    row_set rows;
};

namespace detail {

inline std::int32_t parse_bucket_bound(std::string_view text, std::string_view spec, std::int32_t if_empty) {
    if (text.empty()) return if_empty;
    std::int32_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc{} || end != text.data() + text.size() || value < 0)
        throw usage_error("bucket '" + std::string(spec) + "': '" + std::string(text) +
                          "' is not a non-negative token count");
    return value;
}

} // namespace detail

// Parses `name=lo:hi` (token counts, inclusive; either bound may be left empty).
inline bucket parse_bucket(std::string_view spec) {
    const auto eq = spec.find('=');
    const auto colon = spec.find(':', eq == std::string_view::npos ? 0 : eq);
    if (eq == std::string_view::npos || eq == 0 || colon == std::string_view::npos)
        throw usage_error("bucket '" + std::string(spec) + "': expected name=lo:hi, e.g. tiny=0:16");
    bucket b;
    b.name = std::string(spec.substr(0, eq));
    b.lo = detail::parse_bucket_bound(spec.substr(eq + 1, colon - eq - 1), spec, 0);
    b.hi = detail::parse_bucket_bound(spec.substr(colon + 1), spec, std::numeric_limits<std::int32_t>::max());
    if (b.lo > b.hi) throw usage_error("bucket '" + std::string(spec) + "': lo is greater than hi");
    for (std::string_view builtin : {"all", "short", "medium", "long"})
        if (b.name == builtin) throw usage_error("bucket name '" + b.name + "' is a built-in subset");
    return b;
}

inline void validate(const subset_options& o) {
    if (o.short_max < 0) throw usage_error("--short-max must not be negative");
    if (o.long_min <= o.short_max)
        throw usage_error("--long-min (" + std::to_string(o.long_min) + ") must be greater than --short-max (" +
                          std::to_string(o.short_max) + ")");
}

// Requests without a prompt token count belong to `all` only. The ranges are listed side by side
// on up to `threads` threads.
inline std::vector<subset> split_into_subsets(const request_table& table, const subset_options& o, std::size_t threads = 1) {
    validate(o);
    std::vector<bucket> ranges{{"short", 0, o.short_max},
                               {"medium", o.short_max + 1, o.long_min - 1},
                               {"long", o.long_min, std::numeric_limits<std::int32_t>::max()}};
    ranges.insert(ranges.end(), o.buckets.begin(), o.buckets.end());
    std::vector<subset> out;
    out.push_back({"all", row_set::every(table.size())});
    for (const auto& r : ranges) out.push_back({r.name, {}});
    // Each row is written at the list's end, which moves on only where the row belongs: no branch on
    // the prompt length, which is as random as the workload (a branch per row and range mispredicted
    // about once a row).
    const auto prompt = table.prompt_tokens();
    const auto rows = static_cast<std::uint32_t>(table.size());
    parallel_for(ranges.size(), threads, [&](std::size_t k) {
        const auto belongs = [&, range = ranges[k]](std::uint32_t i) { return is_present(prompt[i]) && range.contains(prompt[i]); };
        std::size_t size = 0;
        for (std::uint32_t i = 0; i < rows; ++i) size += belongs(i);
        std::vector<std::uint32_t> listed(size + 1); // a spare slot for the writes past the last member
        for (std::uint32_t i = 0, next = 0; i < rows; ++i) {
            listed[next] = i;
            next += belongs(i);
        }
        listed.pop_back();
        out[k + 1].rows = std::move(listed);
    });
    return out;
}

namespace detail {

// split_into_subsets gives `all`, then short, medium and long, which split the rows that have a
// prompt length.
inline constexpr std::size_t builtin_subsets = 4;

// The rows without a prompt length: with short, medium and long they make up `all`.
inline row_set rows_in_no_builtin_subset(const request_table& t, std::span<const subset> subsets) {
    std::size_t split = 0;
    for (std::size_t s = 1; s < builtin_subsets; ++s) split += subsets[s].rows.size();
    std::vector<std::uint32_t> rows;
    if (split == t.size()) return rows;
    const auto prompt = t.prompt_tokens();
    for (std::uint32_t i = 0; i < t.size(); ++i)
        if (!is_present(prompt[i])) rows.push_back(i);
    return rows;
}

} // namespace detail

} // namespace servestat
