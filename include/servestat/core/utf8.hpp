// Text from files and file names made valid UTF-8 once, where it enters, so every output (JSON,
// Markdown, HTML, the terminal) can quote it: a CSV cell or a file name holding byte 0xFF would
// otherwise stop the JSON writer with no file named.
#pragma once

#include <cstddef>     // std::size_t
#include <string>      // std::string
#include <string_view> // std::string_view

namespace servestat {
namespace detail {

// Length of the well-formed UTF-8 sequence starting at s[i] (RFC 3629: no overlongs, no
// surrogates, nothing above U+10FFFF), or 0.
inline std::size_t utf8_sequence_length(std::string_view s, std::size_t i) noexcept {
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    const auto continuation = [&](std::size_t k, unsigned char lo = 0x80, unsigned char hi = 0xBF) {
        return k < s.size() && byte(k) >= lo && byte(k) <= hi;
    };
    const unsigned char b = byte(i);
    if (b < 0x80) return 1;
    if (b >= 0xC2 && b <= 0xDF) return continuation(i + 1) ? 2 : 0;
    if (b >= 0xE0 && b <= 0xEF) {
        const unsigned char lo = b == 0xE0 ? 0xA0 : 0x80, hi = b == 0xED ? 0x9F : 0xBF;
        return continuation(i + 1, lo, hi) && continuation(i + 2) ? 3 : 0;
    }
    if (b >= 0xF0 && b <= 0xF4) {
        const unsigned char lo = b == 0xF0 ? 0x90 : 0x80, hi = b == 0xF4 ? 0x8F : 0xBF;
        return continuation(i + 1, lo, hi) && continuation(i + 2) && continuation(i + 3) ? 4 : 0;
    }
    return 0;
}

} // namespace detail

inline bool is_valid_utf8(std::string_view text) noexcept {
    for (std::size_t i = 0; i < text.size();) {
        if (static_cast<unsigned char>(text[i]) < 0x80) { // ASCII runs are the common case
            ++i;
            continue;
        }
        const std::size_t n = detail::utf8_sequence_length(text, i);
        if (n == 0) return false;
        i += n;
    }
    return true;
}

// `text` with every byte that starts no well-formed sequence replaced by U+FFFD. Valid text (the
// usual case) comes back unchanged.
inline std::string to_valid_utf8(std::string_view text) {
    if (is_valid_utf8(text)) return std::string(text);
    std::string out;
    out.reserve(text.size() + 16);
    for (std::size_t i = 0; i < text.size();) {
        if (const std::size_t n = detail::utf8_sequence_length(text, i)) {
            out.append(text.substr(i, n));
            i += n;
        } else {
            out.append("\xEF\xBF\xBD");
            ++i;
        }
    }
    return out;
}

// At most `max_chars` characters of `text` (cut between UTF-8 sequences, never inside one), then
// "… (5,000,016 characters)" when it was longer: a failed request's 5 MB error text or a hostile
// line quoted in a message must not make every table or message that shows it as large.
inline std::string shortened_text(std::string_view text, std::size_t max_chars) {
    std::size_t chars = 0, cut = text.size();
    for (std::size_t i = 0; i < text.size(); ++chars) {
        if (chars == max_chars) cut = i;
        const std::size_t n = detail::utf8_sequence_length(text, i);
        i += n == 0 ? 1 : n;
    }
    if (chars <= max_chars) return std::string(text);
    std::string count = std::to_string(chars);
    for (std::size_t at = count.size(); at > 3; at -= 3) count.insert(at - 3, ",");
    return std::string(text.substr(0, cut)).append("\xE2\x80\xA6 (").append(count).append(" characters)");
}

// At most `max_chars` characters of `text`: its first and last halves around "… (5,092 characters)
// …", cut between UTF-8 sequences. For messages, whose end says why (a 5,000-character path before
// ": file name too long"): cut at the end, the reason would be what is lost (M2).
inline std::string shortened_in_middle(std::string_view text, std::size_t max_chars) {
    const auto next = [&](std::size_t i) {
        const std::size_t n = detail::utf8_sequence_length(text, i);
        return i + (n == 0 ? 1 : n);
    };
    std::size_t chars = 0;
    for (std::size_t i = 0; i < text.size(); i = next(i)) ++chars;
    if (chars <= max_chars) return std::string(text);
    const std::size_t head = (max_chars + 1) / 2, tail_from = chars - max_chars / 2;
    std::size_t head_end = 0, tail_start = text.size(), k = 0;
    for (std::size_t i = 0; i < text.size(); i = next(i), ++k) {
        if (k == head) head_end = i;
        if (k == tail_from) tail_start = i;
    }
    std::string count = std::to_string(chars);
    for (std::size_t at = count.size(); at > 3; at -= 3) count.insert(at - 3, ",");
    return std::string(text.substr(0, head_end))
        .append("\xE2\x80\xA6 (").append(count).append(" characters) \xE2\x80\xA6")
        .append(text.substr(tail_start));
}

// In place; true when something was replaced.
inline bool make_valid_utf8(std::string& text) {
    if (is_valid_utf8(text)) return false;
    text = to_valid_utf8(text);
    return true;
}

} // namespace servestat
