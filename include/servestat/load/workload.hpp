// Workloads for the load driver: reading and writing the notebook's JSONL request files, and
// building its prompt mixes (short/medium/long buckets by token count, mixed by ratio).
#pragma once

#include <algorithm>   // std::sort, std::swap, std::min
#include <array>       // std::array
#include <cmath>       // std::isfinite, std::floor, std::llround
#include <cstddef>     // std::size_t
#include <cstdint>     // std::int32_t, std::int64_t, std::uint64_t
#include <cstdlib>     // std::abs
#include <fstream>     // std::ifstream
#include <iterator>    // std::istreambuf_iterator
#include <optional>    // std::optional
#include <ostream>     // std::ostream
#include <string>      // std::string
#include <string_view> // std::string_view
#include <unordered_set> // std::unordered_set
#include <utility>     // std::move
#include <vector>      // std::vector

#include <fmt/format.h>      // fmt::format
#include <nlohmann/json.hpp> // nlohmann::json, nlohmann::ordered_json

#include "servestat/core/errors.hpp"         // input_error, usage_error
#include "servestat/core/random.hpp"         // detail::xoshiro256, detail::draw_below
#include "servestat/load/budget.hpp"        // detail::largest_fitting_cut
#include "servestat/load/token_counter.hpp" // chat_message, token_counter

namespace servestat::load {

// ---------------------------------------------------------------------------------------------
// Workload files: one request per line, the notebook's write_jsonl format
//   {"messages":[{"role":"user","content":"..."}],"max_tokens":128,"temperature":0.0}
// or, for the legacy completions endpoint, {"prompt":"...", ...}. Other keys are passed through
// to the request body unchanged (e.g. "ignore_eos", "top_p"). Blank lines are skipped.

struct workload_row {
    std::vector<chat_message> messages;     // chat rows
    std::optional<std::string> prompt;      // completions rows (then messages is empty)
    std::optional<std::int32_t> max_tokens; // absent: the driver's default
    std::optional<double> temperature;      // absent: the driver's default
    nlohmann::json extra = nlohmann::json::object(); // every other key of the row
    std::size_t line = 0;                            // line in the file, for messages

    bool is_chat() const noexcept { return !prompt.has_value(); }
};

namespace detail {

inline std::string json_type(const nlohmann::json& v) { return v.type_name(); }

inline std::vector<chat_message> read_messages(const nlohmann::json& v, const std::string& file, std::size_t line) {
    if (!v.is_array()) throw input_error(file, line, "messages", "must be an array, got " + json_type(v));
    if (v.empty()) throw input_error(file, line, "messages", "is empty");
    std::vector<chat_message> out;
    out.reserve(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) {
        const auto& m = v[i];
        const std::string field = fmt::format("messages[{}]", i);
        if (!m.is_object()) throw input_error(file, line, field, "must be an object, got " + json_type(m));
        chat_message msg;
        for (const auto& [key, value] : m.items()) {
            if (key != "role" && key != "content")
                throw input_error(file, line, field + "." + key, "not supported: a message has role and content only");
            if (!value.is_string())
                throw input_error(file, line, field + "." + key, "must be a string, got " + json_type(value));
        }
        if (!m.contains("role")) throw input_error(file, line, field + ".role", "missing");
        if (!m.contains("content")) throw input_error(file, line, field + ".content", "missing");
        msg.role = m["role"].get<std::string>();
        msg.content = m["content"].get<std::string>();
        out.push_back(std::move(msg));
    }
    return out;
}

inline std::int32_t read_max_tokens(const nlohmann::json& v, const std::string& file, std::size_t line) {
    double value = 0;
    if (v.is_number_integer()) {
        const auto i = v.get<std::int64_t>();
        if (i < 1 || i > INT32_MAX)
            throw input_error(file, line, "max_tokens", fmt::format("must be between 1 and {}, got {}", INT32_MAX, i));
        return static_cast<std::int32_t>(i);
    }
    if (v.is_number_float()) value = v.get<double>(); // pandas and the like write 128.0
    else throw input_error(file, line, "max_tokens", "must be an integer, got " + json_type(v));
    if (!(value >= 1 && value <= INT32_MAX) || std::floor(value) != value)
        throw input_error(file, line, "max_tokens", fmt::format("must be an integer between 1 and {}, got {}", INT32_MAX, value));
    return static_cast<std::int32_t>(value);
}

// Line `line` of a workload file, already parsed as JSON.
inline workload_row read_workload_row(const nlohmann::json& row, const std::string& file, std::size_t line) {
    if (!row.is_object()) throw input_error(file, line, "", "a request must be a JSON object, got " + json_type(row));
    workload_row r;
    r.line = line;
    const bool has_messages = row.contains("messages"), has_prompt = row.contains("prompt");
    if (has_messages && has_prompt) throw input_error(file, line, "prompt", "a request has messages or prompt, not both");
    if (!has_messages && !has_prompt) throw input_error(file, line, "messages", "missing (or prompt, for completions)");
    for (const auto& [key, value] : row.items()) {
        if (key == "messages") {
            r.messages = read_messages(value, file, line);
        } else if (key == "prompt") {
            if (!value.is_string()) throw input_error(file, line, "prompt", "must be a string, got " + json_type(value));
            r.prompt = value.get<std::string>();
        } else if (key == "max_tokens") {
            if (!value.is_null()) r.max_tokens = read_max_tokens(value, file, line);
        } else if (key == "temperature") {
            if (value.is_null()) continue;
            if (!value.is_number()) throw input_error(file, line, "temperature", "must be a number, got " + json_type(value));
            const double t = value.get<double>();
            if (!(t >= 0) || !std::isfinite(t))
                throw input_error(file, line, "temperature", fmt::format("must be 0 or more, got {}", t));
            r.temperature = t;
        } else {
            r.extra[key] = value;
        }
    }
    return r;
}

// Calls f(line_number, line) for every line of text, without its \n or \r\n and without a UTF-8 BOM.
template <class F>
void for_each_line(std::string_view text, F&& f) {
    if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
    std::size_t number = 0;
    while (!text.empty()) {
        const std::size_t end = text.find('\n');
        std::string_view line = text.substr(0, end);
        text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        f(++number, line);
    }
}

inline bool is_blank(std::string_view s) { return s.find_first_not_of(" \t\r\n\f\v") == std::string_view::npos; }

inline nlohmann::json parse_json_line(std::string_view line, const std::string& file, std::size_t number) {
    try {
        return nlohmann::json::parse(line);
    } catch (const nlohmann::json::parse_error& e) {
        throw input_error(file, number, "", std::string("not JSON: ").append(e.what()));
    }
}

inline std::string read_file_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw input_error(path, 0, "", "cannot open the file");
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

} // namespace detail

// Throws input_error naming the file (`name`), the line and the field of the first bad row, and
// for a file without any request.
inline std::vector<workload_row> parse_workload(std::string_view text, const std::string& name) {
    std::vector<workload_row> rows;
    detail::for_each_line(text, [&](std::size_t number, std::string_view line) {
        if (detail::is_blank(line)) return;
        rows.push_back(detail::read_workload_row(detail::parse_json_line(line, name, number), name, number));
    });
    if (rows.empty()) throw input_error(name, 0, "", "no requests in the workload file");
    return rows;
}

inline std::vector<workload_row> read_workload(const std::string& path) {
    return parse_workload(detail::read_file_text(path), path);
}

// One row as a JSON line (no newline): messages or prompt, max_tokens, temperature, then the extra
// keys in sorted order, so the same rows always give the same bytes.
inline std::string workload_json_line(const workload_row& r) {
    nlohmann::ordered_json out;
    if (r.is_chat()) {
        out["messages"] = nlohmann::ordered_json::array();
        for (const auto& m : r.messages) out["messages"].push_back({{"role", m.role}, {"content", m.content}});
    } else {
        out["prompt"] = *r.prompt;
    }
    if (r.max_tokens) out["max_tokens"] = *r.max_tokens;
    if (r.temperature) out["temperature"] = *r.temperature;
    for (const auto& [key, value] : r.extra.items()) out[key] = value;
    return out.dump();
}

inline void write_workload(std::ostream& out, const std::vector<workload_row>& rows) {
    for (const auto& r : rows) out << workload_json_line(r) << '\n';
}

// The notebook's write_jsonl row: one user message.
inline workload_row chat_row(std::string content, std::int32_t max_tokens = 128, double temperature = 0.0) {
    workload_row r;
    r.messages.push_back({"user", std::move(content)});
    r.max_tokens = max_tokens;
    r.temperature = temperature;
    return r;
}

// ---------------------------------------------------------------------------------------------
// Buckets and mixes. A prompt's length is the token count of its text alone (the notebook's
// tok_len: no chat template), so "short 8-24" means 8-24 tokens of question, which arrive as
// about 37-58 prompt tokens once Qwen's template and system prompt are added.

inline constexpr std::size_t bucket_count = 3;
inline constexpr std::array<std::string_view, bucket_count> bucket_names = {"short", "medium", "long"};

struct token_range {
    std::int32_t min = 0, max = 0; // inclusive
    bool contains(std::int32_t tokens) const noexcept { return tokens >= min && tokens <= max; }
};

using bucket_ranges = std::array<token_range, bucket_count>;

// The notebook's SHORT_RANGE, MED_RANGE and LONG_RANGE.
inline constexpr bucket_ranges default_bucket_ranges = {token_range{8, 24}, token_range{128, 256},
                                                        token_range{2048, 4096}};

inline std::optional<std::size_t> find_bucket(std::string_view name) {
    for (std::size_t i = 0; i < bucket_count; ++i)
        if (bucket_names[i] == name) return i;
    return std::nullopt;
}

// Ratios per bucket; an absent long ratio means "the rest", as the notebook's normalize_ratios.
struct mix_spec {
    std::string name;
    std::array<std::optional<double>, bucket_count> ratios;
};

// The notebook's MIX_SPECS, in its order.
inline const std::vector<mix_spec>& mix_presets() {
    static const std::vector<mix_spec> presets = {
        {"short_only", {1.0, std::nullopt, std::nullopt}},
        {"medium_only", {std::nullopt, 1.0, std::nullopt}},
        {"long_only", {std::nullopt, std::nullopt, 1.0}},
        {"mix_90_10", {0.9, std::nullopt, 0.1}},
        {"mix_70_30", {0.7, std::nullopt, 0.3}},
        {"mix_70_20_10", {0.7, 0.2, 0.1}},
        {"mix_60_40", {0.6, std::nullopt, 0.4}},
        {"mix_50_50", {0.5, std::nullopt, 0.5}},
    };
    return presets;
}

inline std::optional<mix_spec> find_mix_preset(std::string_view name) {
    for (const auto& p : mix_presets())
        if (p.name == name) return p;
    return std::nullopt;
}

namespace detail {

inline std::string_view trim_spaces(std::string_view s) {
    const auto first = s.find_first_not_of(" \t");
    if (first == std::string_view::npos) return {};
    return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

inline double parse_ratio(std::string_view text, std::string_view what) {
    const std::string s(trim_spaces(text));
    std::size_t used = 0;
    double v = 0;
    try {
        v = std::stod(s, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (s.empty() || used != s.size() || !std::isfinite(v) || v < 0 || v > 1)
        throw usage_error(fmt::format("{}: the ratio must be a number within [0, 1], got '{}'", what, s));
    return v;
}

inline std::int32_t parse_count(std::string_view text, std::string_view what) {
    const std::string s(trim_spaces(text));
    std::size_t used = 0;
    long long v = -1;
    try {
        v = std::stoll(s, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (s.empty() || used != s.size() || v < 1 || v > INT32_MAX)
        throw usage_error(fmt::format("{}: '{}' is not a token count of at least 1", what, s));
    return static_cast<std::int32_t>(v);
}

} // namespace detail

// "short=0.7,medium=0.2,long=0.1" (buckets short, medium, long; an omitted long takes the rest).
// Ratios given for all the buckets named must sum to 1 (within 1e-6); the notebook's silent "long
// takes the rest even when given" would hide a typo.
inline mix_spec parse_mix(std::string_view text) {
    mix_spec m;
    m.name = std::string(text);
    std::string_view rest = text;
    while (!rest.empty()) {
        const auto comma = rest.find(',');
        const std::string_view item = rest.substr(0, comma);
        rest.remove_prefix(comma == std::string_view::npos ? rest.size() : comma + 1);
        const auto eq = item.find('=');
        if (eq == std::string_view::npos)
            throw usage_error(fmt::format("mix '{}': '{}' is not NAME=RATIO", text, item));
        const auto name = detail::trim_spaces(item.substr(0, eq));
        const auto bucket = find_bucket(name);
        if (!bucket) throw usage_error(fmt::format("mix '{}': unknown bucket '{}' (short, medium, long)", text, name));
        if (m.ratios[*bucket]) throw usage_error(fmt::format("mix '{}': '{}' given twice", text, name));
        m.ratios[*bucket] = detail::parse_ratio(item.substr(eq + 1), fmt::format("mix '{}'", text));
    }
    double sum = 0;
    for (const auto& r : m.ratios) sum += r.value_or(0.0);
    if (!m.ratios[0] && !m.ratios[1] && !m.ratios[2]) throw usage_error("the mix names no bucket");
    if (sum > 1.000001) throw usage_error(fmt::format("mix '{}': the ratios sum to {} > 1", text, sum));
    if (m.ratios[2] && sum < 0.999999)
        throw usage_error(fmt::format("mix '{}': the ratios sum to {} < 1 (leave long out to give it the rest)", text, sum));
    return m;
}

// A preset name or NAME=RATIO,...; throws usage_error.
inline mix_spec resolve_mix(std::string_view text) {
    if (auto preset = find_mix_preset(text)) return *preset;
    if (text.find('=') == std::string_view::npos) {
        std::string names;
        for (const auto& p : mix_presets()) names.append(names.empty() ? "" : ", ").append(p.name);
        throw usage_error(fmt::format("unknown mix preset '{}'; known: {} (or ratios: short=0.7,medium=0.2,long=0.1)",
                                      text, names));
    }
    return parse_mix(text);
}

// Requests per bucket, the notebook's make_mix: k_short = int(total * r_short), k_medium =
// int(total * r_medium), k_long = total - k_short - k_medium.
inline std::array<std::size_t, bucket_count> mix_counts(std::size_t total, const mix_spec& m) {
    double sum = 0;
    for (const auto& r : m.ratios) sum += r.value_or(0.0);
    if (sum > 1.000001) throw usage_error(fmt::format("mix '{}': the ratios sum to {} > 1", m.name, sum));
    const auto part = [&](std::size_t i) {
        return static_cast<std::size_t>(static_cast<double>(total) * m.ratios[i].value_or(0.0));
    };
    std::array<std::size_t, bucket_count> k{part(0), part(1), 0};
    k[2] = total - std::min(total, k[0] + k[1]);
    return k;
}

// "short=8:24" for --bucket; updates ranges in place. Throws usage_error, also when two ranges overlap
// (a prompt would belong to two buckets).
inline void apply_bucket_override(bucket_ranges& ranges, std::string_view text) {
    const auto eq = text.find('=');
    const auto colon = text.find(':', eq == std::string_view::npos ? 0 : eq);
    if (eq == std::string_view::npos || colon == std::string_view::npos)
        throw usage_error(fmt::format("--bucket '{}': expected NAME=MIN:MAX, e.g. short=8:24", text));
    const auto name = detail::trim_spaces(text.substr(0, eq));
    const auto bucket = find_bucket(name);
    if (!bucket) throw usage_error(fmt::format("--bucket '{}': unknown bucket '{}' (short, medium, long)", text, name));
    const std::string what = fmt::format("--bucket '{}'", text);
    const token_range r{detail::parse_count(text.substr(eq + 1, colon - eq - 1), what),
                        detail::parse_count(text.substr(colon + 1), what)};
    if (r.min > r.max) throw usage_error(fmt::format("--bucket '{}': MIN {} is above MAX {}", text, r.min, r.max));
    ranges[*bucket] = r;
}

inline void validate(const bucket_ranges& ranges) {
    for (std::size_t i = 0; i < bucket_count; ++i)
        for (std::size_t j = i + 1; j < bucket_count; ++j)
            if (ranges[i].min <= ranges[j].max && ranges[j].min <= ranges[i].max)
                throw usage_error(fmt::format("the {} range {}-{} overlaps the {} range {}-{}", bucket_names[i],
                                              ranges[i].min, ranges[i].max, bucket_names[j], ranges[j].min,
                                              ranges[j].max));
}

struct counted_prompt {
    std::string text;
    std::int32_t tokens = 0; // counter.text(text)
};

struct prompt_buckets {
    std::array<std::vector<counted_prompt>, bucket_count> buckets;
    std::vector<counted_prompt> others; // in no bucket's range; snippets for composing (compose_bucket)
    std::vector<std::string> notes;     // about how the buckets were built, for the summary
};

// ---------------------------------------------------------------------------------------------
// Prompt sources. What a user has is usually a dataset dumped to a list of strings, so a prompt
// file may be:
//   - *.txt: one prompt per line;
//   - a JSON array of strings or objects (json.dump(list_of_prompts));
//   - JSONL: per line a JSON string, or an object with "messages" (the first user message's
//     content is the prompt: a workload file works), "prompt" or "text".
// Blank prompts are skipped, as the notebook's text_fn skips them.

namespace detail {

inline std::optional<std::string> prompt_text_of(const nlohmann::json& v, const std::string& file, std::size_t line,
                                                 const std::string& where) {
    if (v.is_string()) return v.get<std::string>();
    if (!v.is_object())
        throw input_error(file, line, where, "a prompt must be a string or an object, got " + json_type(v));
    if (v.contains("messages")) {
        const auto messages = read_messages(v["messages"], file, line);
        for (const auto& m : messages)
            if (m.role == "user") return m.content;
        throw input_error(file, line, where.empty() ? "messages" : where + ".messages", "no user message");
    }
    for (const char* key : {"prompt", "text"}) {
        if (!v.contains(key)) continue;
        const auto& s = v[key];
        if (!s.is_string())
            throw input_error(file, line, where.empty() ? key : where + "." + key, "must be a string, got " + json_type(s));
        return s.get<std::string>();
    }
    throw input_error(file, line, where, "an object needs \"messages\", \"prompt\" or \"text\"");
}

inline bool ends_with(std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

} // namespace detail

// `name` is the file name for messages; it also decides the format (*.txt: lines).
inline std::vector<std::string> parse_prompt_texts(std::string_view text, const std::string& name) {
    std::vector<std::string> out;
    const auto add = [&](std::string s) {
        if (!detail::is_blank(s)) out.push_back(std::move(s));
    };
    if (detail::ends_with(name, ".txt")) {
        detail::for_each_line(text, [&](std::size_t, std::string_view line) { add(std::string(line)); });
    } else {
        const auto first = text.find_first_not_of(" \t\r\n\xEF\xBB\xBF");
        if (first != std::string_view::npos && text[first] == '[') {
            nlohmann::json all;
            try {
                all = nlohmann::json::parse(text.substr(first));
            } catch (const nlohmann::json::parse_error& e) {
                throw input_error(name, 0, "", std::string("not a JSON array: ").append(e.what()));
            }
            for (std::size_t i = 0; i < all.size(); ++i)
                if (auto s = detail::prompt_text_of(all[i], name, 0, fmt::format("[{}]", i))) add(std::move(*s));
        } else {
            detail::for_each_line(text, [&](std::size_t number, std::string_view line) {
                if (detail::is_blank(line)) return;
                if (auto s = detail::prompt_text_of(detail::parse_json_line(line, name, number), name, number, ""))
                    add(std::move(*s));
            });
        }
    }
    if (out.empty()) throw input_error(name, 0, "", "no prompts in the file");
    return out;
}

inline std::vector<std::string> read_prompt_texts(const std::string& path) {
    return parse_prompt_texts(detail::read_file_text(path), path);
}

// Counts every text with counter.text and files it under the bucket whose range holds it.
inline prompt_buckets bucket_prompts(std::vector<std::string> texts, const bucket_ranges& ranges,
                                     const token_counter& counter) {
    validate(ranges);
    prompt_buckets b;
    for (auto& t : texts) {
        counted_prompt p{std::move(t), 0};
        p.tokens = counter.text(p.text);
        std::size_t i = 0;
        while (i < bucket_count && !ranges[i].contains(p.tokens)) ++i;
        (i < bucket_count ? b.buckets[i] : b.others).push_back(std::move(p));
    }
    return b;
}

namespace detail {

inline std::int32_t draw_in(servestat::detail::xoshiro256& rng, const token_range& r) {
    const auto span = static_cast<std::uint64_t>(r.max - r.min) + 1;
    return r.min + static_cast<std::int32_t>(servestat::detail::draw_below(rng, span));
}

// The notebook's build_long_prompt: distinct random snippets (newlines flattened), joined by blank
// lines until the text has `target` tokens, then cut to its first `target` tokens (here: the
// longest head of the heuristic's pieces that the counter puts at or under target).
inline counted_prompt compose_prompt(std::int32_t target, const std::vector<const counted_prompt*>& pool,
                                     servestat::detail::xoshiro256& rng, const token_counter& counter) {
    std::string text;
    std::unordered_set<std::size_t> used;
    std::int32_t tokens = 0;
    int stalled = 0; // appends that did not raise the count: a counter that ignores the text must not hang us
    while (true) {
        const auto idx = static_cast<std::size_t>(servestat::detail::draw_below(rng, pool.size()));
        if (used.count(idx)) continue;
        used.insert(idx);
        std::string part = pool[idx]->text;
        std::replace(part.begin(), part.end(), '\n', ' ');
        const auto kept = trim_spaces(part);
        if (!text.empty()) text.append("\n\n");
        text.append(kept);
        const std::int32_t before = tokens;
        tokens = counter.text(text);
        if (tokens >= target) break;
        stalled = tokens > before ? 0 : stalled + 1;
        if (stalled >= 1000)
            throw servestat::error(fmt::format("composing a {}-token prompt: {} counts {} tokens and stopped growing",
                                               target, counter.source, tokens));
        if (used.size() > std::min<std::size_t>(2000, pool.size() - 1)) used.clear();
    }
    if (tokens > target) {
        auto cut = largest_fitting_cut(text, 1.0, target, counter.text);
        if (cut) return {std::move(cut->text), cut->tokens};
    }
    return {std::move(text), tokens};
}

} // namespace detail

// Fills an empty bucket with `want` prompts composed from every prompt read (the notebook built its
// long bucket from the short and medium ones: no dataset has many 2048-4096-token questions).
inline void compose_bucket(prompt_buckets& b, std::size_t bucket, std::size_t want, const token_range& range,
                           const token_counter& counter, std::uint64_t seed) {
    std::vector<const counted_prompt*> pool;
    for (const auto& list : b.buckets)
        for (const auto& p : list) pool.push_back(&p);
    for (const auto& p : b.others) pool.push_back(&p);
    if (pool.empty()) throw usage_error(fmt::format("no prompts to build the {} bucket from", bucket_names[bucket]));
    servestat::detail::xoshiro256 rng(servestat::detail::mix64(seed ^ (0x10ad0000ULL + bucket)));
    std::vector<counted_prompt> built;
    built.reserve(want);
    for (std::size_t i = 0; i < want; ++i) built.push_back(detail::compose_prompt(detail::draw_in(rng, range), pool, rng, counter));
    b.buckets[bucket] = std::move(built);
    b.notes.push_back(fmt::format("no {} prompts ({}-{} tokens) in the files: composed {} from the others, joined "
                                  "like the notebook's build_long_prompt",
                                  bucket_names[bucket], range.min, range.max, want));
}

// ---------------------------------------------------------------------------------------------
// Synthetic filler prompts of exact token lengths, for when no prompt file is given. Words of at
// most 4 ASCII letters joined by spaces are one token each under the heuristic (and nearly always
// under BPE tokenizers), so the heuristic is exact at once; with a server counter the words are
// added or removed until the count matches. Each prompt's words are drawn afresh, so prompts share
// no prefix and a prefix cache cannot shortcut them.

inline constexpr std::array<std::string_view, 64> filler_vocabulary = {
    "the",  "of",   "and",  "to",   "in",   "is",   "it",   "that", "for",  "on",   "with", "as",   "was",
    "at",   "by",   "this", "from", "or",   "an",   "be",   "are",  "not",  "but",  "all",  "can",  "one",
    "time", "more", "data", "load", "text", "word", "what", "when", "how",  "why",  "who",  "does", "make",
    "work", "city", "year", "case", "form", "part", "plan", "rule", "line", "list", "map",  "name", "note",
    "page", "play", "road", "ship", "song", "team", "tree", "wind", "band", "game", "king", "lake"};

struct synthetic_prompt {
    std::string text;
    std::int32_t target = 0;
    std::int32_t tokens = 0; // counter.text(text); equal to target unless the counter would not allow it
};

namespace detail {

inline std::string join_words(const std::vector<std::string_view>& words, std::size_t n) {
    std::string out;
    for (std::size_t i = 0; i < n; ++i) out.append(i ? " " : "").append(words[i]);
    return out;
}

} // namespace detail

// A prompt of `target` tokens by counter.text: `target` filler words, then up to max_tries
// corrections that scale the word count by target / tokens (at least one word toward the target),
// then the nearest seen. Exact at once under the heuristic.
inline synthetic_prompt synthetic_text(std::int32_t target, const token_counter& counter,
                                       servestat::detail::xoshiro256& rng, int max_tries = 8) {
    std::vector<std::string_view> words;
    const auto ensure = [&](std::size_t n) {
        while (words.size() < n)
            words.push_back(filler_vocabulary[servestat::detail::draw_below(rng, filler_vocabulary.size())]);
    };
    std::size_t n = static_cast<std::size_t>(std::max(target, 0));
    ensure(n);
    synthetic_prompt best{detail::join_words(words, n), target, 0};
    best.tokens = counter.text(best.text);
    std::int32_t tokens = best.tokens;
    for (int attempt = 0; attempt < max_tries && tokens != target; ++attempt) {
        std::size_t next = tokens > 0 ? static_cast<std::size_t>(std::llround(static_cast<double>(n) * target / tokens))
                                      : n + 1;
        if (tokens < target && next <= n) next = n + 1;
        if (tokens > target && next >= n) next = n > 0 ? n - 1 : 0;
        n = next;
        ensure(n);
        std::string text = detail::join_words(words, n);
        tokens = counter.text(text);
        if (std::abs(tokens - target) < std::abs(best.tokens - target)) best = {std::move(text), target, tokens};
    }
    return best;
}

// `counts[i]` synthetic prompts per bucket, lengths uniform within each bucket's range.
inline prompt_buckets synthetic_buckets(const std::array<std::size_t, bucket_count>& counts, const bucket_ranges& ranges,
                                        const token_counter& counter, std::uint64_t seed) {
    validate(ranges);
    prompt_buckets b;
    std::size_t inexact = 0;
    std::int32_t worst = 0;
    for (std::size_t i = 0; i < bucket_count; ++i) {
        // One stream per bucket, so changing one bucket's count leaves the others' prompts alone.
        servestat::detail::xoshiro256 rng(servestat::detail::mix64(seed ^ (0x5e7e0000ULL + i)));
        for (std::size_t j = 0; j < counts[i]; ++j) {
            auto s = synthetic_text(detail::draw_in(rng, ranges[i]), counter, rng);
            if (s.tokens != s.target) {
                ++inexact;
                worst = std::max(worst, std::abs(s.tokens - s.target));
            }
            b.buckets[i].push_back({std::move(s.text), s.tokens});
        }
    }
    if (inexact > 0)
        b.notes.push_back(fmt::format("{} synthetic prompt(s) missed their target length by up to {} token(s) under {}",
                                      inexact, worst, counter.source));
    return b;
}

// ---------------------------------------------------------------------------------------------
// Mixing: k prompts per bucket drawn without replacement (the notebook's rng.sample), or with
// replacement and a note when the bucket holds fewer than k (the notebook stopped there), then all
// shuffled together. Deterministic under the seed on every platform.

struct mixed_prompt {
    std::string text;
    std::int32_t tokens = 0;
    std::size_t bucket = 0;
};

struct mix_result {
    std::vector<mixed_prompt> prompts;
    std::array<std::size_t, bucket_count> counts{};
    std::vector<std::string> notes;
};

inline mix_result make_mix(std::size_t total, const mix_spec& spec, const prompt_buckets& b, std::uint64_t seed) {
    using servestat::detail::draw_below;
    servestat::detail::xoshiro256 rng(seed);
    mix_result out;
    out.counts = mix_counts(total, spec);
    out.notes = b.notes;
    out.prompts.reserve(total);
    for (std::size_t i = 0; i < bucket_count; ++i) {
        const std::size_t k = out.counts[i];
        const auto& bucket = b.buckets[i];
        if (k == 0) continue;
        if (bucket.empty())
            throw usage_error(fmt::format("the mix needs {} {} prompt(s) and the {} bucket is empty", k, bucket_names[i],
                                          bucket_names[i]));
        const auto add = [&](std::size_t index) { out.prompts.push_back({bucket[index].text, bucket[index].tokens, i}); };
        if (bucket.size() >= k) { // partial Fisher-Yates: k distinct indices
            std::vector<std::size_t> index(bucket.size());
            for (std::size_t j = 0; j < index.size(); ++j) index[j] = j;
            for (std::size_t j = 0; j < k; ++j) {
                std::swap(index[j], index[j + draw_below(rng, index.size() - j)]);
                add(index[j]);
            }
        } else {
            for (std::size_t j = 0; j < k; ++j) add(draw_below(rng, bucket.size()));
            out.notes.push_back(fmt::format("the {} bucket has {} prompt(s) for {} requests: drawn with replacement, so "
                                            "prompts repeat (a prefix cache may serve repeats faster)",
                                            bucket_names[i], bucket.size(), k));
        }
    }
    for (std::size_t j = out.prompts.size(); j > 1; --j) std::swap(out.prompts[j - 1], out.prompts[draw_below(rng, j)]);
    return out;
}

} // namespace servestat::load
