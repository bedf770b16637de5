// Run parameters that users encode in file and folder names (`smoke_test-cc8-pref256-max128-….csv`,
// `…_tp4_conc16_…/aiperf_artifacts/`, `agg_n100_in512_out128_c8.jsonl`), so runs can be grouped into
// sweeps even when the log itself does not record the load it was run at. The grammar is in
// docs/sweeps.md: a tag and a number form one token ("conc16", "tp8", "qps2.5"); tokens are separated
// by '_', '-', '.', ' ' and '/'; case does not matter.
#pragma once

#include <array>       // std::array
#include <cctype>      // std::tolower, std::isdigit
#include <charconv>    // std::from_chars
#include <cstddef>     // std::size_t
#include <optional>    // std::optional
#include <span>        // std::span
#include <string>      // std::string
#include <string_view> // std::string_view
#include <utility>     // std::pair
#include <vector>      // std::vector

#include <nlohmann/json.hpp> // nlohmann::json

namespace servestat {
namespace detail {

struct name_tag {
    std::string_view prefix; // as written in names, lower case
    std::string_view param;  // the run parameter it sets
};

// Tags that may also be followed by one separator before the number ("concurrency_16",
// "num_prompts_200"): long enough never to be the start of an ordinary word and a number.
// Longer prefixes first, so "concurrency16" is not read as "c" + "oncurrency16".
inline constexpr std::array<name_tag, 16> long_tags{{
    {"max_num_batched_tokens", "max_num_batched_tokens"},
    {"max_concurrency", "concurrency"},
    {"num_concurrency", "concurrency"},
    {"max_num_seqs", "max_num_seqs"},
    {"request_rate", "request_rate"},
    {"num_requests", "num_prompts"},
    {"num_prompts", "num_prompts"},
    {"concurrency", "concurrency"},
    {"batch_size", "batch_size"},
    {"users", "concurrency"},
    {"scale", "scale"},
    {"batch", "batch_size"},
    {"input", "input_len"},
    {"output", "output_len"},
    {"rate", "request_rate"},
    {"conc", "concurrency"},
}};

// Tags that need the whole token to be tag + number ("c16", "tp8", "in512").
inline constexpr std::array<name_tag, 19> short_tags{{
    {"mnbt", "max_num_batched_tokens"},
    {"pref", "prefill_tokens"},
    {"mns", "max_num_seqs"},
    {"max", "max_tokens"},
    {"qps", "request_rate"},
    {"rps", "request_rate"},
    {"isl", "input_len"},
    {"osl", "output_len"},
    {"out", "output_len"},
    {"cc", "concurrency"},
    {"mc", "concurrency"},
    {"bs", "batch_size"},
    {"tp", "tensor_parallel_size"},
    {"pp", "pipeline_parallel_size"},
    {"dp", "data_parallel_size"},
    {"ep", "expert_parallel_size"},
    {"in", "input_len"},
    {"c", "concurrency"},
    {"n", "num_prompts"},
}};

// "16" → 16, "2.5" → 2.5; anything else → nullopt.
inline std::optional<nlohmann::json> parse_name_number(std::string_view s) {
    if (s.empty() || !std::isdigit(static_cast<unsigned char>(s.front())) ||
        !std::isdigit(static_cast<unsigned char>(s.back())))
        return std::nullopt;
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

inline bool is_name_separator(char c) { return c == '-' || c == '_' || c == ' ' || c == '/'; }

// A '.' separates tokens unless it is a decimal point ("qps2.5", "10.5qps").
inline bool separates_at(std::string_view name, std::size_t i) {
    if (is_name_separator(name[i])) return true;
    if (name[i] != '.') return false;
    const auto digit = [&](std::size_t k) { return k < name.size() && std::isdigit(static_cast<unsigned char>(name[k])); };
    return !(i > 0 && digit(i - 1) && digit(i + 1));
}

inline std::size_t token_end(std::string_view name, std::size_t at) {
    while (at < name.size() && !separates_at(name, at)) ++at;
    return at;
}

inline std::optional<nlohmann::json> number_token_at(std::string_view name, std::size_t at) {
    return parse_name_number(name.substr(at, token_end(name, at) - at));
}

using name_param = std::pair<std::string_view, nlohmann::json>;

// A tag + number at the token starting at `at`: "concurrency16", "conc16", "cc8", "concurrency_16"
// (long tags only), "qps2.5", or vLLM's "10.0qps" with the rate first.
// Only a rate or a scale can be a fraction: "output_0.1" is no output length of a tenth of a token
// (LMBench names its files by their rate, "LMBench_long_input_output_0.1").
inline bool fits_param(std::string_view param, const nlohmann::json& v) {
    return v.is_number_integer() || param == "request_rate" || param == "scale";
}

inline std::optional<name_param> read_name_tag(std::string_view name, std::size_t at) {
    const std::string_view rest = name.substr(at);
    for (const auto& tag : long_tags) {
        if (!rest.starts_with(tag.prefix)) continue;
        const std::size_t number_at = at + tag.prefix.size();
        if (auto v = number_token_at(name, number_at); v && fits_param(tag.param, *v)) return name_param{tag.param, *v};
        if (number_at < name.size() && (name[number_at] == '_' || name[number_at] == '-'))
            if (auto v = number_token_at(name, number_at + 1); v && fits_param(tag.param, *v)) return name_param{tag.param, *v};
    }
    for (const auto& tag : short_tags)
        if (rest.starts_with(tag.prefix))
            if (auto v = number_token_at(name, at + tag.prefix.size()); v && fits_param(tag.param, *v))
                return name_param{tag.param, *v};
    const std::string_view token = name.substr(at, token_end(name, at) - at);
    if (token == "infqps" || token == "qpsinf" || token == "rateinf") return name_param{"request_rate", "inf"};
    if (token.ends_with("qps"))
        if (auto v = parse_name_number(token.substr(0, token.size() - 3))) return name_param{"request_rate", *v};
    return std::nullopt;
}

inline std::string lower_case(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

} // namespace detail

// Parameters found in one name (a file's stem or a folder), e.g. "smoke_test-cc8-pref256-max128-20250101"
// → {"concurrency": 8, "prefill_tokens": 256, "max_tokens": 128}. Tags start a token; the first
// occurrence of a parameter wins.
inline nlohmann::json params_from_file_name(std::string_view name) {
    const std::string lower = detail::lower_case(name);
    nlohmann::json params = nlohmann::json::object();
    for (std::size_t at = 0; at < lower.size(); ++at) {
        if (at > 0 && !detail::separates_at(lower, at - 1)) continue;
        if (const auto found = detail::read_name_tag(lower, at))
            if (!params.contains(found->first)) params[std::string(found->first)] = found->second;
    }
    return params;
}

// A parameter two parts of one path give differently ("conc16/…_c32.json"): the nearer part (the
// file's name before its folders) is used.
struct path_param_conflict {
    std::string param;
    nlohmann::json used, other;
    std::string used_in, other_in; // the names that gave them
};

struct path_params {
    nlohmann::json params = nlohmann::json::object();
    std::vector<path_param_conflict> conflicts;
};

// Parameters of a file from the names on its path, nearest first: `parts` holds the file's stem,
// then its folder, its folder's folder and so on (as many as the caller counts as the user's).
inline path_params params_from_path_parts(std::span<const std::string> parts) {
    path_params out;
    for (const auto& part : parts) {
        const nlohmann::json of_part = params_from_file_name(part);
        for (const auto& [key, value] : of_part.items()) {
            if (!out.params.contains(key)) {
                out.params[key] = value;
                continue;
            }
            if (out.params[key] == value) continue;
            bool known = false;
            for (const auto& c : out.conflicts) known = known || (c.param == key && c.other == value);
            if (!known) {
                std::string used_in;
                for (const auto& earlier : parts)
                    if (params_from_file_name(earlier).value(key, nlohmann::json()) == out.params[key]) {
                        used_in = earlier;
                        break;
                    }
                out.conflicts.push_back({key, out.params[key], value, used_in, part});
            }
        }
    }
    return out;
}

} // namespace servestat
