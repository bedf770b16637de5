// A regular expression the user gives (--group-by NAME=REGEX, --factor NAME=REGEX), checked before
// std::regex sees it. std::regex compiles by recursion, one frame per nesting level (30,000 nested
// groups overflow the stack: reliability finding H12), and matches by backtracking with no bound, so
// a repetition of a repetition (`(a+)+$`) takes exponential time on a short file name (M11).
// Patterns that name parts of paths need neither.
#pragma once

#include <cstddef>     // std::size_t
#include <regex>       // std::regex, std::regex_error
#include <string>      // std::string
#include <string_view> // std::string_view
#include <vector>      // std::vector

#include <fmt/format.h> // fmt::format

#include "servestat/core/errors.hpp" // usage_error

namespace servestat {

inline constexpr std::size_t max_user_regex_chars = 1000;
inline constexpr std::size_t max_user_regex_depth = 32;

namespace detail {

// Whether p[i] starts a repetition without an upper bound: *, + or {n,}.
inline bool unbounded_repeat_at(std::string_view p, std::size_t i) {
    if (i >= p.size()) return false;
    if (p[i] == '*' || p[i] == '+') return true;
    if (p[i] != '{') return false;
    const auto close = p.find('}', i);
    if (close == std::string_view::npos) return false;
    const auto inside = p.substr(i + 1, close - i - 1); // "2," in {2,}
    return inside.size() > 1 && inside.back() == ',' && inside.find_first_not_of("0123456789") == inside.size() - 1;
}

// Whether the alternatives of a group's body ("?:tp|dp" → tp, dp) can be told apart by their first
// characters' run: plain words none of which begins another. (a|aa)+ repeated lets a backtracking
// matcher try every way of cutting "aaaa…" into a's and aa's; (tp|dp)+ has one way.
inline bool alternatives_unambiguous(std::string_view body) {
    if (body.starts_with("?:")) body.remove_prefix(2);
    std::vector<std::string_view> words;
    for (std::size_t start = 0;;) {
        const auto bar = body.find('|', start);
        words.push_back(body.substr(start, bar == std::string_view::npos ? std::string_view::npos : bar - start));
        if (bar == std::string_view::npos) break;
        start = bar + 1;
    }
    if (words.size() < 2) return true;
    for (const auto w : words)
        if (w.empty() || w.find_first_of("\\.[]()*+?{}^$") != std::string_view::npos) return false;
    for (const auto a : words)
        for (const auto b : words)
            if (a.data() != b.data() && b.starts_with(a)) return false;
    return true;
}

// Why `p` may not be matched safely: groups nested too deep, or a group repeated without bound that
// repeats inside too, or holds alternatives that can match the same text. Empty when it is fine.
inline std::string regex_hazard(std::string_view p) {
    struct open_group {
        std::size_t at = 0; // where its '(' is
        bool repeats_inside = false;
    };
    std::vector<open_group> open;
    bool in_class = false;
    for (std::size_t i = 0; i < p.size(); ++i) {
        const char c = p[i];
        if (c == '\\') {
            ++i; // an escaped character is a literal
            if (!open.empty() && unbounded_repeat_at(p, i + 1)) open.back().repeats_inside = true;
            continue;
        }
        if (in_class) {
            in_class = c != ']';
            if (!in_class && !open.empty() && unbounded_repeat_at(p, i + 1)) open.back().repeats_inside = true;
            continue;
        }
        if (c == '[') {
            in_class = true;
            continue;
        }
        if (c == '(') {
            open.push_back({i});
            if (open.size() > max_user_regex_depth) return fmt::format("groups nested more than {} deep", max_user_regex_depth);
        } else if (c == ')' && !open.empty()) {
            const bool inner = open.back().repeats_inside;
            const std::string_view body = p.substr(open.back().at + 1, i - open.back().at - 1);
            open.pop_back();
            if (inner && unbounded_repeat_at(p, i + 1))
                return "a repeated group that repeats inside, as in (a+)+: matching it can take exponential time; "
                       "repeat one or the other";
            if (unbounded_repeat_at(p, i + 1) && !alternatives_unambiguous(body))
                return "a repeated group of alternatives that may match the same text, as in (a|aa)+: matching it can "
                       "take exponential time; repeat plain words none of which begins another, or a character class";
            if (!open.empty()) open.back().repeats_inside = open.back().repeats_inside || inner || unbounded_repeat_at(p, i + 1);
        } else if (!open.empty() && unbounded_repeat_at(p, i + 1) && c != '(' && c != '|') {
            open.back().repeats_inside = true;
        }
    }
    return {};
}

} // namespace detail

// The compiled pattern, or a usage error naming the flag (`--group-by size`) and what is wrong.
inline std::regex compile_user_regex(const std::string& flag, const std::string& pattern,
                                     std::regex::flag_type flags = std::regex::ECMAScript) {
    if (pattern.size() > max_user_regex_chars)
        throw usage_error(fmt::format("{}: the pattern is longer than {} characters", flag, max_user_regex_chars));
    if (const auto why = detail::regex_hazard(pattern); !why.empty())
        throw usage_error(fmt::format("{}={}: {}", flag, pattern, why));
    try {
        return std::regex(pattern, flags);
    } catch (const std::regex_error& e) {
        throw usage_error(fmt::format("{}={}: invalid regular expression ({})", flag, pattern, e.what()));
    }
}

} // namespace servestat
