// What a column name says when it names a statistic of many requests (`TTFT_p50_ms`, `mean_itl_ms`,
// `median_e2el`, `avg_latency_s`, `P99 TPOT (ms)`, `Output Throughput (tok/s)`): the grammar shared
// by the reader of author-made aggregate tables (aggregate_table.hpp) and the --map hint
// (map_suggestion.hpp), which must never offer such a column as a per-request field.
#pragma once

#include <algorithm>        // std::find, std::any_of
#include <cctype>           // std::isalnum, std::isdigit, std::islower, std::isupper, std::tolower
#include <cstddef>          // std::size_t
#include <initializer_list> // std::initializer_list
#include <optional>         // std::optional
#include <string>           // std::string
#include <string_view>      // std::string_view
#include <vector>           // std::vector

namespace servestat::detail {

// `TTFT_p50_ms` → ttft, p50, ms; `Mean TTFT (ms)` → mean, ttft, ms; `p99.9_e2e_s` → p99.9, e2e, s.
// A dot between digits stays inside its word (a percentile), every other non-alphanumeric splits.
inline std::vector<std::string> column_words(std::string_view name) {
    std::vector<std::string> words(1);
    const auto digit = [&](std::size_t i) { return i < name.size() && std::isdigit(static_cast<unsigned char>(name[i])); };
    for (std::size_t i = 0; i < name.size(); ++i) {
        const unsigned char c = static_cast<unsigned char>(name[i]);
        if (c == '.' && i > 0 && digit(i - 1) && digit(i + 1)) {
            words.back().push_back('.');
            continue;
        }
        if (!std::isalnum(c)) {
            if (!words.back().empty()) words.emplace_back();
            continue;
        }
        // camelCase splits (meanTtftMs); a run of capitals (TTFT) stays one word.
        if (std::isupper(c) && i > 0 && std::islower(static_cast<unsigned char>(name[i - 1])) && !words.back().empty())
            words.emplace_back();
        words.back().push_back(static_cast<char>(std::tolower(c)));
    }
    if (words.back().empty()) words.pop_back();
    return words;
}

struct column_word_set {
    std::vector<std::string> words;
    bool has(std::string_view w) const { return std::find(words.begin(), words.end(), w) != words.end(); }
    bool any(std::initializer_list<std::string_view> ws) const {
        return std::any_of(ws.begin(), ws.end(), [&](std::string_view w) { return has(w); });
    }
};

// "p99", "p99.9", "p50": a percentile word; nullopt otherwise.
inline std::optional<std::string> percentile_word(std::string_view w) {
    if (w.size() < 2 || w.front() != 'p') return std::nullopt;
    bool digits = false;
    for (const char c : w.substr(1)) {
        if (c >= '0' && c <= '9') digits = true;
        else if (c != '.') return std::nullopt;
    }
    if (!digits || w[1] == '.' || w.back() == '.') return std::nullopt;
    return std::string(w);
}

// servestat's name of the one statistic the words name (mean, p50, p99, min, max, std); nullopt
// when they name none or more than one.
inline std::optional<std::string> statistic_of(const column_word_set& w) {
    std::optional<std::string> found;
    std::size_t count = 0;
    for (const auto& word : w.words) {
        std::optional<std::string> stat;
        if (word == "mean" || word == "avg" || word == "average") stat = "mean";
        else if (word == "median" || word == "med") stat = "p50";
        else if (word == "min" || word == "max") stat = word;
        else if (word == "std" || word == "stdev" || word == "stddev" || word == "sd") stat = "std";
        else stat = percentile_word(word);
        if (stat) {
            ++count;
            found = std::move(stat);
        }
    }
    if (count != 1) return std::nullopt;
    return found;
}

// The servestat metric a column's words name, for the latency and token-count metrics an
// aggregate table reports: ttft, tpot, itl, e2e, prompt_tokens, output_tokens.
inline std::optional<std::string> statistic_metric(const column_word_set& w) {
    if (w.any({"throughput", "tput", "tps", "rps", "qps", "user", "gpu", "rate"})) return std::nullopt;
    if (w.any({"ttft", "ttfb"}) || (w.has("first") && w.any({"token", "tok"}))) return "ttft";
    if (w.has("tpot") || (w.has("time") && w.has("per") && w.has("output") && w.any({"token", "tok"}))) return "tpot";
    if (w.any({"itl", "tbt"}) || (w.has("inter") && w.any({"token", "tok"}))) return "itl";
    if (w.any({"e2e", "e2el", "latency", "latencies"})) return "e2e";
    const bool tokens = w.any({"tokens", "token", "tok", "toks", "len", "length"});
    if (w.any({"isl"}) || (tokens && w.any({"input", "prompt", "in"}))) return "prompt_tokens";
    if (w.any({"osl"}) || (tokens && w.any({"output", "completion", "generated", "gen", "out"}))) return "output_tokens";
    return std::nullopt;
}

// Seconds per unit of a time named in the words (ms, s, us, ns); nullopt when none is named.
inline std::optional<double> seconds_per_named_unit(const column_word_set& w) {
    if (w.any({"ms", "msec", "msecs", "millis", "milliseconds"})) return 1e-3;
    if (w.any({"us", "usec", "micros", "microseconds"})) return 1e-6;
    if (w.any({"ns", "nsec", "nanos", "nanoseconds"})) return 1e-9;
    if (w.any({"s", "sec", "secs", "seconds"})) return 1.0;
    return std::nullopt;
}

// One statistic column: "TTFT_p50_ms" → {"ttft", "p50", 1e-3}; tokens have no time unit.
struct statistic_column {
    std::string metric;
    std::string stat;
    std::optional<double> seconds_per_unit; // of a time metric; nullopt when the name gives none
    bool tokens = false;
};

inline std::optional<statistic_column> parse_statistic_column(std::string_view name) {
    const column_word_set w{column_words(name)};
    const auto stat = statistic_of(w);
    if (!stat) return std::nullopt;
    const auto metric = statistic_metric(w);
    if (!metric) return std::nullopt;
    const bool tokens = metric->ends_with("_tokens");
    // min_tokens / max_tokens are a request's settings, not a distribution's extremes.
    if (tokens && (*stat == "min" || *stat == "max") && !w.any({"input", "prompt", "output", "isl", "osl"}))
        return std::nullopt;
    return statistic_column{*metric, *stat, tokens ? std::nullopt : seconds_per_named_unit(w), tokens};
}

// Whether a name reads as an aggregate over requests rather than one request's value: a latency or
// token statistic (`ttft_p50_ms`, `mean_input_tokens`), a throughput's statistic
// (`output_throughput_mean`), or a bare statistic heading (`p99`, `avg`, `median`).
inline bool is_statistic_name(std::string_view name) {
    if (parse_statistic_column(name)) return true;
    const column_word_set w{column_words(name)};
    if (w.words.size() == 1 && statistic_of(w)) return w.words.front() != "min" && w.words.front() != "max";
    return statistic_of(w) && w.any({"throughput", "tput", "tps", "rps", "qps"});
}

} // namespace servestat::detail
