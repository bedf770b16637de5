// Making a label fit a width: wrapped onto lines at word and hyphen boundaries, or shortened with
// "…". Shortening keeps both ends of a label ("bad-c…c32"), since names of runs and levels differ at
// their ends; a caller that shortens puts the whole text in a tooltip.
#pragma once

#include <algorithm>   // std::min
#include <cstddef>     // std::size_t
#include <string>      // std::string
#include <string_view> // std::string_view
#include <utility>     // std::move
#include <vector>      // std::vector

#include "servestat/plot/text_metrics.hpp" // text_width, utf8_length

namespace servestat::plot::detail {

inline constexpr std::string_view ellipsis = "…";

struct font {
    int size = 12;
    bool bold = false;
};

// The code points of `text` with their widths in px.
struct glyph_run {
    std::vector<std::string_view> points;
    std::vector<double> widths;
};

inline glyph_run glyphs(std::string_view text, const font& f) {
    glyph_run out;
    for (std::size_t at = 0; at < text.size();) {
        const std::size_t n = std::min(text.size() - at, utf8_length(static_cast<unsigned char>(text[at])));
        out.points.push_back(text.substr(at, n));
        out.widths.push_back(text_width(text.substr(at, n), f.size, f.bold));
        at += n;
    }
    return out;
}

// At most `max_width` px: the start kept, "…" at the end.
inline std::string shorten_end(std::string_view text, double max_width, const font& f = {}) {
    if (text_width(text, f.size, f.bold) <= max_width) return std::string(text);
    const auto g = glyphs(text, f);
    double budget = max_width - text_width(ellipsis, f.size, f.bold), used = 0;
    std::string out;
    for (std::size_t i = 0; i < g.points.size() && used + g.widths[i] <= budget; ++i) {
        out += g.points[i];
        used += g.widths[i];
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + std::string(ellipsis);
}

// At most `max_width` px: "…" in place of the middle, the end given half the room (so "bad-c16"
// and "bad-c32" stay apart) and the start the rest.
inline std::string shorten_middle(std::string_view text, double max_width, const font& f = {}) {
    if (text_width(text, f.size, f.bold) <= max_width) return std::string(text);
    const auto g = glyphs(text, f);
    const double budget = max_width - text_width(ellipsis, f.size, f.bold);
    std::size_t head = 0, tail = g.points.size(); // kept: [0, head) and [tail, size)
    double used = 0;
    while (tail > 0 && used + g.widths[tail - 1] <= budget / 2) used += g.widths[--tail];
    while (head < tail && used + g.widths[head] <= budget) used += g.widths[head++];
    while (tail > head && used + g.widths[tail - 1] <= budget) used += g.widths[--tail]; // room the start left
    std::string out;
    for (std::size_t i = 0; i < head; ++i) out += g.points[i];
    out += ellipsis;
    for (std::size_t i = tail; i < g.points.size(); ++i) out += g.points[i];
    return out;
}

struct fitted_text {
    std::vector<std::string> lines;
    bool shortened = false; // some of the text is not drawn: the caller adds a tooltip with all of it
};

// The pieces a line may break after: a space (dropped at the break) or a hyphen, underscore,
// slash or comma (kept at the line's end).
struct piece {
    std::string text;
    bool space_before = false;
};

inline std::vector<piece> break_pieces(std::string_view text) {
    std::vector<piece> out;
    std::string current;
    bool space = false;
    for (const char c : text) {
        if (c == ' ') {
            if (!current.empty()) out.push_back({std::move(current), space});
            current.clear();
            space = true;
            continue;
        }
        current += c;
        if (c == '-' || c == '_' || c == '/' || c == ',') {
            out.push_back({std::move(current), space});
            current.clear();
            space = false;
        }
    }
    if (!current.empty()) out.push_back({std::move(current), space});
    return out;
}

// `text` on at most `max_lines` lines of at most `max_width` px each: greedy breaks at the pieces'
// boundaries; whatever does not fit the last line is shortened in the middle.
inline fitted_text fit_lines(std::string_view text, double max_width, std::size_t max_lines, const font& f = {}) {
    const auto width = [&](std::string_view s) { return text_width(s, f.size, f.bold); };
    if (width(text) <= max_width || max_lines <= 1) {
        std::string one = shorten_middle(text, max_width, f);
        const bool cut = one != text;
        return {{std::move(one)}, cut};
    }
    const auto pieces = break_pieces(text);
    const auto joined = [&](std::size_t from, std::size_t to) {
        std::string s = pieces[from].text;
        for (std::size_t k = from + 1; k < to; ++k) s.append(pieces[k].space_before ? " " : "").append(pieces[k].text);
        return s;
    };
    fitted_text out;
    for (std::size_t i = 0; i < pieces.size();) {
        if (out.lines.size() + 1 == max_lines) { // the last line takes the rest
            const std::string rest = joined(i, pieces.size());
            out.lines.push_back(shorten_middle(rest, max_width, f));
            out.shortened = out.shortened || out.lines.back() != rest;
            break;
        }
        std::size_t to = i + 1;
        while (to < pieces.size() && width(joined(i, to + 1)) <= max_width) ++to;
        const std::string line = joined(i, to);
        out.lines.push_back(shorten_middle(line, max_width, f)); // one piece wider than a line: shortened
        out.shortened = out.shortened || out.lines.back() != line;
        i = to;
    }
    return out;
}

} // namespace servestat::plot::detail
