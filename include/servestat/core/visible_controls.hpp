// Text from input (labels, error texts, file names, a server's error events) shown with its control
// characters visible instead of obeyed. On a terminal ESC [1A ESC [2K CR would rewrite the lines
// printed before it and OSC 0 would set the window title; a NUL cuts a C string; in SVG and HTML a C0
// control makes the file invalid XML; a bidi override reorders the text after it. The one rule for
// every output: C0 controls (but newline and tab), DEL and C1 controls become `\x1b`-style escapes,
// bidi controls `\u202e`-style ones.
#pragma once

#include <cstddef>     // std::size_t
#include <cstdio>      // std::FILE, std::fwrite
#include <string>      // std::string
#include <string_view> // std::string_view

#include <fmt/format.h> // fmt::format

namespace servestat {

namespace detail {

inline bool is_c0_or_del(unsigned char c) noexcept { return (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f; }

// The code point of a C1 control (U+0080–U+009F) or bidi control (U+061C, U+200E–U+200F,
// U+202A–U+202E, U+2066–U+2069) encoded at s[i], with its length in bytes; 0 for anything else.
inline std::pair<char32_t, std::size_t> hidden_control_at(std::string_view s, std::size_t i) noexcept {
    const auto byte = [&](std::size_t k) { return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0u; };
    if (byte(0) == 0xC2 && byte(1) >= 0x80 && byte(1) <= 0x9F) return {byte(1), 2};
    if (byte(0) == 0xD8 && byte(1) == 0x9C) return {0x061C, 2};
    if (byte(0) == 0xE2 && (byte(1) == 0x80 || byte(1) == 0x81)) {
        const char32_t cp = 0x2000 + ((byte(1) & 0x3F) << 6) + (byte(2) & 0x3F);
        if ((cp >= 0x200E && cp <= 0x200F) || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069)) return {cp, 3};
    }
    return {0, 0};
}

inline bool has_hidden_controls(std::string_view s) noexcept {
    for (std::size_t i = 0; i < s.size(); ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (is_c0_or_del(c)) return true;
        if ((c == 0xC2 || c == 0xD8 || c == 0xE2) && hidden_control_at(s, i).second) return true;
    }
    return false;
}

} // namespace detail

// `text` with every control character but newline and tab written out as an escape.
inline std::string visible_controls(std::string_view text) {
    if (!detail::has_hidden_controls(text)) return std::string(text);
    std::string out;
    out.reserve(text.size() + 16);
    for (std::size_t i = 0; i < text.size();) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (detail::is_c0_or_del(c)) {
            out += fmt::format("\\x{:02x}", c);
            ++i;
        } else if (const auto [cp, length] = detail::hidden_control_at(text, i); length) {
            out += fmt::format("\\u{:04x}", static_cast<unsigned>(cp));
            i += length;
        } else {
            out += text[i++];
        }
    }
    return out;
}

// Writes `text` whole, with its controls visible: a NUL inside it does not end the output there.
inline void write_terminal(std::FILE* to, std::string_view text) {
    const std::string shown = visible_controls(text);
    std::fwrite(shown.data(), 1, shown.size(), to);
}

} // namespace servestat
