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

// Okabe–Ito: distinguishable with the common colour-vision deficiencies.
inline const char* series_colour(std::size_t i) {
    constexpr const char* palette[] = {"#0072B2", "#E69F00", "#009E73", "#D55E00",
                                       "#CC79A7", "#56B4E9", "#F0E442", "#000000"};
    return palette[i % 8];
}

// Text drawn on a palette colour: white on the dark ones, black on the light ones.
inline const char* text_colour_on(std::size_t i) {
    constexpr const char* on[] = {"#ffffff", "#000000", "#ffffff", "#ffffff",
                                  "#000000", "#000000", "#000000", "#ffffff"};
    return on[i % 8];
}

struct text_style {
    std::string_view anchor = "start";
    int size = 12;
    bool bold = false;
    double rotate = 0;
    std::string_view fill = "#222222";
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

    void text(double x, double y, std::string_view content, const text_style& style = {}) {
        out_ += fmt::format(R"(<text x="{}" y="{}" text-anchor="{}" font-size="{}" fill="{}")", px(x), px(y),
                            style.anchor, style.size, style.fill);
        if (style.bold) out_ += R"( font-weight="bold")";
        if (style.rotate != 0)
            out_ += fmt::format(R"~( transform="rotate({} {} {})")~", px(style.rotate), px(x), px(y));
        out_ += fmt::format(">{}</text>\n", escape_xml(content));
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
