// Run parameters that users encode in file names (`smoke_test-cc8-pref256-max128-….csv`,
// `…-concurrency16-…`, `detail_log_scale300_prompt500.json`), so runs can be grouped into sweeps
// even when the log itself does not record the load it was run at.
#pragma once

#include <array>       // std::array
#include <charconv>    // std::from_chars
#include <cstddef>     // std::size_t
#include <optional>    // std::optional
#include <string>      // std::string
#include <string_view> // std::string_view
#include <utility>     // std::pair

#include <nlohmann/json.hpp> // nlohmann::json

namespace servestat {
namespace detail {

struct name_tag {
    std::string_view prefix; // as written in file names
    std::string_view param;  // the run parameter it sets
};

// Longer prefixes first, so "concurrency16" is not read as "c" + "oncurrency16".
inline constexpr std::array<name_tag, 10> name_tags{{
    {"max_num_batched_tokens", "max_num_batched_tokens"},
    {"max_num_seqs", "max_num_seqs"},
    {"concurrency", "concurrency"},
    {"scale", "scale"},
    {"mnbt", "max_num_batched_tokens"},
    {"pref", "prefill_tokens"},
    {"rate", "request_rate"},
    {"mns", "max_num_seqs"},
    {"max", "max_tokens"},
    {"qps", "request_rate"},
}};

// Single-letter and two-letter tags that need the whole token to be tag + number.
inline constexpr std::array<name_tag, 3> short_tags{{
    {"cc", "concurrency"},
    {"tp", "tensor_parallel_size"},
    {"c", "concurrency"},
}};

// "16" → 16, "2.5" → 2.5; anything else → nullopt.
inline std::optional<nlohmann::json> parse_name_number(std::string_view s) {
    if (s.empty() || s.front() == '-' || s.front() == '+') return std::nullopt;
    if (s.find('.') == std::string_view::npos) {
        long long whole = 0;
        const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), whole);
        if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
        return nlohmann::json(whole);
    }
    double fraction = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), fraction);
    if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
    return nlohmann::json(fraction);
}

inline bool is_name_separator(char c) { return c == '-' || c == '_' || c == ' '; }

// The number that fills the rest of the token starting at `at`.
inline std::optional<nlohmann::json> number_token_at(std::string_view stem, std::size_t at) {
    std::size_t end = at;
    while (end < stem.size() && !is_name_separator(stem[end])) ++end;
    return parse_name_number(stem.substr(at, end - at));
}

// A tag + number at the token starting at `at`: "concurrency16", "scale300", "cc8", "concurrency_16"
// (long tags only), "max_num_seqs64", or vLLM's "10.0qps" with the rate first.
inline std::optional<std::pair<std::string_view, nlohmann::json>> read_name_tag(std::string_view stem, std::size_t at) {
    const std::string_view rest = stem.substr(at);
    for (const auto& tag : short_tags)
        if (rest.starts_with(tag.prefix))
            if (auto v = number_token_at(stem, at + tag.prefix.size())) return std::pair{tag.param, *v};
    for (const auto& tag : name_tags) {
        if (!rest.starts_with(tag.prefix)) continue;
        std::size_t number_at = at + tag.prefix.size();
        if (auto v = number_token_at(stem, number_at)) return std::pair{tag.param, *v};
        if (tag.prefix.size() > 3 && number_at < stem.size() && is_name_separator(stem[number_at]))
            if (auto v = number_token_at(stem, number_at + 1)) return std::pair{tag.param, *v};
    }
    std::size_t end = at;
    while (end < stem.size() && !is_name_separator(stem[end])) ++end;
    const std::string_view token = stem.substr(at, end - at);
    if (token == "infqps") return std::pair{std::string_view("request_rate"), nlohmann::json("inf")};
    if (token.ends_with("qps"))
        if (auto v = parse_name_number(token.substr(0, token.size() - 3))) return std::pair{std::string_view("request_rate"), *v};
    return std::nullopt;
}

} // namespace detail

// Parameters found in a file's stem, e.g. "smoke_test-cc8-pref256-max128-20250101" →
// {"concurrency": 8, "prefill_tokens": 256, "max_tokens": 128}. Tags start a token (tokens are
// separated by '-', '_' or ' '); the first occurrence of a parameter wins.
inline nlohmann::json params_from_file_name(std::string_view stem) {
    nlohmann::json params = nlohmann::json::object();
    for (std::size_t at = 0; at < stem.size(); ++at) {
        if (at > 0 && !detail::is_name_separator(stem[at - 1])) continue;
        if (const auto found = detail::read_name_tag(stem, at))
            if (!params.contains(found->first)) params[std::string(found->first)] = found->second;
    }
    return params;
}

} // namespace servestat
