// Small text helpers shared by readers and classifiers.
#pragma once

#include <algorithm>   // std::search, std::equal
#include <cctype>      // std::tolower
#include <charconv>    // std::to_chars
#include <cstdint>     // std::uint64_t
#include <string>      // std::string
#include <string_view> // std::string_view

#include "servestat/core/visible_controls.hpp" // visible_controls

namespace servestat::detail {

// FNV-1a: a hash that is the same on every platform (std::hash is not), for seeds derived from names
// and texts.
inline std::uint64_t fnv1a(std::string_view text) noexcept {
    std::uint64_t h = 0xcbf29ce484222325ULL;
    for (const char c : text) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
    return h;
}

inline bool equals_ignoring_case(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
}

inline bool contains_ignoring_case(std::string_view text, std::string_view needle) {
    return std::search(text.begin(), text.end(), needle.begin(), needle.end(), [](char a, char b) {
               return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
           }) != text.end();
}

inline std::string_view trim_spaces(std::string_view s) {
    const auto first = s.find_first_not_of(" \t");
    if (first == std::string_view::npos) return {};
    return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

// For HTML and XML (SVG) text and attribute values alike. Control characters are shown as escapes:
// XML allows no C0 control but tab and line ends, and one makes a whole SVG unreadable.
inline std::string escape_markup(std::string_view raw) {
    const std::string text = visible_controls(raw);
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        case '\'': out += "&#39;"; break;
        default: out += c;
        }
    }
    return out;
}

// The shortest text that reads back as the same double, for error messages that quote a value.
inline std::string shortest_number(double x) {
    char buffer[32];
    const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, x);
    return std::string(buffer, ec == std::errc() ? end : buffer);
}

} // namespace servestat::detail
