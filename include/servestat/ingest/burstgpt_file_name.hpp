// The names BurstGPT's benchmark harness gives its logs: detail_log_scale<N>_prompt<M>.json and
// vllm_log_scale<N>_prompt<M>.csv carry the run's --scale and --prompt_num, and the two logs of one
// run share them (burstgpt_detail.hpp, vllm_server_stats.hpp).
#pragma once

#include <cctype>      // std::isalnum, std::isdigit
#include <charconv>    // std::from_chars
#include <cstddef>     // std::size_t
#include <cstdint>     // std::int64_t
#include <filesystem>  // std::filesystem::path
#include <optional>    // std::optional
#include <string>      // std::string
#include <string_view> // std::string_view
#include <system_error> // std::errc

#include <nlohmann/json.hpp> // nlohmann::json

namespace servestat::detail {

// The number after `name` in a file stem such as "detail_log_scale100_prompt500" (the harness
// names its logs after --scale and --prompt_num), as an integer when it is whole. The name must
// start the stem or follow a non-alphanumeric character, so "upscale2" is no scale.
inline std::optional<nlohmann::json> number_in_file_name(std::string_view stem, std::string_view name) {
    auto is_digit = [&](std::size_t i) { return i < stem.size() && std::isdigit(static_cast<unsigned char>(stem[i])); };
    auto digits_end = [&](std::size_t i) {
        while (is_digit(i)) ++i;
        return i;
    };
    for (std::size_t at = stem.find(name); at != std::string_view::npos; at = stem.find(name, at + 1)) {
        if (at > 0 && std::isalnum(static_cast<unsigned char>(stem[at - 1]))) continue;
        const std::size_t begin = at + name.size();
        std::size_t end = digits_end(begin);
        if (end == begin) continue;
        const bool fraction = end < stem.size() && stem[end] == '.' && is_digit(end + 1);
        if (fraction) end = digits_end(end + 1);
        const char* first = stem.data() + begin;
        const char* last = stem.data() + end;
        if (std::int64_t whole = 0; !fraction && std::from_chars(first, last, whole).ec == std::errc())
            return nlohmann::json(whole);
        if (double x = 0; fraction && std::from_chars(first, last, x).ec == std::errc()) return nlohmann::json(x);
    }
    return std::nullopt;
}

// --scale divides the BurstGPT timestamps (the load multiplier); --prompt_num is how many trace
// rows were replayed. Both logs of one run (detail_log and vllm_log) carry them in their names.
inline void add_burstgpt_file_params(const std::filesystem::path& file, nlohmann::json& params) {
    const std::string stem = file.stem().string();
    if (auto scale = number_in_file_name(stem, "scale")) params["scale"] = *scale;
    if (auto prompts = number_in_file_name(stem, "prompt")) params["prompt_num"] = *prompts;
}

} // namespace servestat::detail
