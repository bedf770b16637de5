// A minimal SVG writer with fixed number formatting and XML escaping, so charts are deterministic
// bytes and labels taken from input cannot inject markup.
#pragma once

#include <cmath>       // std::round, std::isfinite
#include <cstddef>     // std::size_t
#include <string>      // std::string
#include <string_view> // std::string_view
#include <utility>     // std::move

#include <fmt/format.h> // fmt::format

#include "servestat/core/text.hpp" // detail::escape_markup

namespace servestat::plot {

inline std::string escape_xml(std::string_view text) { return servestat::detail::escape_markup(text); }

// Fixed-point with at most `decimals` digits, trailing zeros dropped, never "-0" and never an
// exponent: the same bytes on every machine, which golden files need.
inline std::string fixed(double v, int decimals = 2) {
    if (!std::isfinite(v)) return "0";
    std::string s = fmt::format("{:.{}f}", v, decimals);
    if (s.find('.') != std::string::npos) {
        while (s.back() == '0') s.pop_back();
        if (s.back() == '.') s.pop_back();
    }
    if (s == "-0") s = "0";
    return s;
}

// Pixel coordinates: a tenth of a pixel is finer than any screen shows.
inline std::string px(double v) { return fixed(v, 1); }

// Shortest text that reads back as the same double: tooltips give the exact value.
inline std::string exact(double v) { return fmt::format("{}", v); }

// Okabe–Ito: distinguishable with the common colour-vision deficiencies. Eight colours and no more:
// a chart with more series colours a few of them (plot/highlight.hpp) and draws the rest in
// other_colour.
inline constexpr std::size_t palette_size = 8;
inline constexpr const char* other_colour = "#c4c4c4";

// The palette's i-th colour; past the palette other_colour, never a palette colour again, so no index
// can make two series look alike.
inline const char* series_colour(std::size_t i) noexcept {
    constexpr const char* palette[palette_size] = {"#0072B2", "#E69F00", "#009E73", "#D55E00",
                                                   "#CC79A7", "#56B4E9", "#F0E442", "#000000"};
    return i < palette_size ? palette[i] : other_colour;
}

// Text drawn on series_colour(i): white on the dark ones, black on the light ones (and on grey).
inline const char* text_colour_on(std::size_t i) noexcept {
    constexpr const char* on[palette_size] = {"#ffffff", "#000000", "#ffffff", "#ffffff",
                                              "#000000", "#000000", "#000000", "#ffffff"};
    return i < palette_size ? on[i] : "#000000";
}

struct text_style {
    std::string_view anchor = "start";
    int size = 12;
    bool bold = false;
    double rotate = 0;
    std::string_view fill = "#222222";
    std::string_view css_class = {}; // e.g. "title": lets a checker find the chart's title
};

class svg_document {
public:
    svg_document(int width, int height, std::string_view title) {
        out_ = fmt::format(R"(<svg xmlns="http://www.w3.org/2000/svg" width="{0}" height="{1}" viewBox="0 0 {0} {1}" )"
                           R"(role="img" aria-label="{2}" font-family="sans-serif" font-size="12">)"
                           "\n<title>{2}</title>\n"
                           R"(<rect x="0" y="0" width="{0}" height="{1}" fill="#ffffff"/>)" "\n",
                           width, height, escape_xml(title));
    }

    void line(double x1, double y1, double x2, double y2, std::string_view stroke, double width = 1,
              std::string_view dash = {}) {
        out_ += fmt::format(R"(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}" stroke-width="{}")", px(x1), px(y1),
                            px(x2), px(y2), stroke, px(width));
        if (!dash.empty()) out_ += fmt::format(R"( stroke-dasharray="{}")", dash);
        close("line", {});
    }

    void rect(double x, double y, double w, double h, std::string_view fill, std::string_view tooltip = {}) {
        out_ += fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" fill="{}")", px(x), px(y), px(w), px(h), fill);
        close("rect", tooltip);
    }

    void outline(double x, double y, double w, double h, std::string_view stroke, std::string_view fill = "none") {
        out_ += fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" fill="{}" stroke="{}")", px(x), px(y), px(w),
                            px(h), fill, stroke);
        close("rect", {});
    }

    void circle(double x, double y, double r, std::string_view fill, std::string_view tooltip = {}) {
        out_ += fmt::format(R"(<circle cx="{}" cy="{}" r="{}" fill="{}" fill-opacity="0.75")", px(x), px(y), px(r), fill);
        close("circle", tooltip);
    }

    // points: "x,y x,y ..." already formatted with px().
    void polyline(std::string_view points, std::string_view stroke, double width, std::string_view tooltip = {},
                  std::string_view dash = {}) {
        out_ += fmt::format(R"(<polyline points="{}" fill="none" stroke="{}" stroke-width="{}" stroke-linejoin="round")",
                            points, stroke, px(width));
        if (!dash.empty()) out_ += fmt::format(R"( stroke-dasharray="{}")", dash);
        close("polyline", tooltip);
    }

    // A closed, filled outline (a violin's density); points as for polyline.
    void polygon(std::string_view points, std::string_view fill, double fill_opacity, std::string_view stroke,
                 std::string_view tooltip = {}) {
        out_ += fmt::format(R"(<polygon points="{}" fill="{}" fill-opacity="{}" stroke="{}" stroke-width="1.5" )"
                            R"(stroke-linejoin="round")",
                            points, fill, fixed(fill_opacity), stroke);
        close("polygon", tooltip);
    }

    // A tooltip (the whole of a shortened text) is the first child, so the drawn text still ends
    // the element: ">shown…</text>".
    void text(double x, double y, std::string_view content, const text_style& style = {},
              std::string_view tooltip = {}) {
        out_ += fmt::format(R"(<text x="{}" y="{}" text-anchor="{}" font-size="{}" fill="{}")", px(x), px(y),
                            style.anchor, style.size, style.fill);
        if (style.bold) out_ += R"( font-weight="bold")";
        if (!style.css_class.empty()) out_ += fmt::format(R"( class="{}")", style.css_class);
        if (style.rotate != 0)
            out_ += fmt::format(R"~( transform="rotate({} {} {})")~", px(style.rotate), px(x), px(y));
        out_ += '>';
        if (!tooltip.empty()) out_ += fmt::format("<title>{}</title>", escape_xml(tooltip));
        out_ += fmt::format("{}</text>\n", escape_xml(content));
    }

    std::string finish() && { return std::move(out_) + "</svg>\n"; }

private:
    // A tooltip is a <title> child, which every SVG viewer shows on hover.
    void close(std::string_view element, std::string_view tooltip) {
        if (tooltip.empty()) out_ += "/>\n";
        else out_ += fmt::format("><title>{}</title></{}>\n", escape_xml(tooltip), element);
    }

    std::string out_;
};

} // namespace servestat::plot
