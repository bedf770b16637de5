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

// Why `p` may not be matched safely: groups nested too deep, or a group holding an unbounded
// repetition that is itself repeated without bound. Empty when it is fine.
inline std::string regex_hazard(std::string_view p) {
    struct open_group {
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
            open.push_back({});
            if (open.size() > max_user_regex_depth) return fmt::format("groups nested more than {} deep", max_user_regex_depth);
        } else if (c == ')' && !open.empty()) {
            const bool inner = open.back().repeats_inside;
            open.pop_back();
            if (inner && unbounded_repeat_at(p, i + 1))
                return "a repeated group that repeats inside, as in (a+)+: matching it can take exponential time; "
                       "repeat one or the other";
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
