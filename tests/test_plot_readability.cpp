// Readable charts (issue 15): text measured in DejaVu Sans' widths, fitted (wrapped, slanted or
// shortened with the whole as a tooltip), never overlapping; no palette colour shared by two series,
// a few series coloured and the rest grey beyond the palette; values in tooltips.
#include <catch2/catch.hpp> // Catch2 v2

#include <cmath>    // std::cos, std::sin
#include <cstddef>  // std::size_t
#include <map>      // std::map
#include <regex>    // std::regex, std::sregex_iterator
#include <set>      // std::set
#include <string>   // std::string
#include <vector>   // std::vector

#include <fmt/format.h> // fmt::format

#include "servestat/plot/bars.hpp"
#include "servestat/plot/box.hpp"
#include "servestat/plot/ecdf.hpp"
#include "servestat/plot/heatmap.hpp"
#include "servestat/plot/highlight.hpp"
#include "servestat/plot/line.hpp"
#include "servestat/plot/scatter.hpp"
#include "servestat/plot/stacked_bars.hpp"
#include "servestat/plot/text_fit.hpp"
#include "servestat/plot/text_metrics.hpp"
#include "servestat/plot/timeline.hpp"

namespace test_plot_readability { // the unity build compiles several test files as one: each keeps its names

using namespace servestat::plot;

namespace {

const std::vector<std::string> okabe_ito{"#0072B2", "#E69F00", "#009E73", "#D55E00",
                                         "#CC79A7", "#56B4E9", "#F0E442", "#000000"};

std::size_t count(const std::string& text, const std::string& needle) {
    std::size_t n = 0;
    for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
    return n;
}

bool has(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

std::string unescape(std::string s) {
    for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
             {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&#39;", "'"}, {"&amp;", "&"}})
        for (auto at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
            s.replace(at, from.size(), to);
    return s;
}

std::string attribute(const std::string& attributes, const std::string& name) {
    const std::regex re("(?:^|\\s)" + name + "=\"([^\"]*)\"");
    std::smatch m;
    return std::regex_search(attributes, m, re) ? m[1].str() : std::string();
}

// A <text> element as drawn: where, how big, what it shows and its tooltip.
struct drawn_text {
    double x, y;
    std::string anchor;
    int size;
    bool bold;
    double rotate;
    std::string shown, tooltip, css_class;
};

std::vector<drawn_text> texts_of(const std::string& svg) {
    static const std::regex re("<text ([^>]*)>(?:<title>([^<]*)</title>)?([^<]*)</text>");
    std::vector<drawn_text> out;
    for (auto it = std::sregex_iterator(svg.begin(), svg.end(), re); it != std::sregex_iterator(); ++it) {
        const std::string a = (*it)[1].str();
        const std::string transform = attribute(a, "transform");
        double rotate = 0;
        if (!transform.empty()) rotate = std::stod(transform.substr(transform.find('(') + 1));
        out.push_back({std::stod(attribute(a, "x")), std::stod(attribute(a, "y")), attribute(a, "text-anchor"),
                       std::stoi(attribute(a, "font-size")), attribute(a, "font-weight") == "bold", rotate,
                       unescape((*it)[3].str()), unescape((*it)[2].str()), attribute(a, "class")});
    }
    return out;
}

// The corners of a text's box: DejaVu's advance widths across, its ascent and descent (1901 and 483
// of 2048 units per em) above and below the baseline; rotated about (x, y) as the transform says.
std::vector<std::pair<double, double>> corners(const drawn_text& t) {
    const double w = detail::text_width(t.shown, t.size, t.bold);
    const double x0 = t.anchor == "end" ? -w : t.anchor == "middle" ? -w / 2 : 0;
    const double up = 1901.0 / 2048 * t.size, down = 483.0 / 2048 * t.size;
    const double a = t.rotate * 3.14159265358979 / 180;
    std::vector<std::pair<double, double>> out;
    for (const auto& [dx, dy] : std::vector<std::pair<double, double>>{{x0, -up}, {x0 + w, -up}, {x0 + w, down}, {x0, down}})
        out.push_back({t.x + dx * std::cos(a) - dy * std::sin(a), t.y + dx * std::sin(a) + dy * std::cos(a)});
    return out;
}

// Overlap of two convex quadrilaterals along the axis that separates them best (0: apart).
double overlap(const std::vector<std::pair<double, double>>& p, const std::vector<std::pair<double, double>>& q) {
    double least = 1e9;
    for (const auto* poly : {&p, &q})
        for (std::size_t i = 0; i < 4; ++i) {
            const auto [x1, y1] = (*poly)[i];
            const auto [x2, y2] = (*poly)[(i + 1) % 4];
            const double len = std::hypot(x2 - x1, y2 - y1), nx = (y1 - y2) / len, ny = (x2 - x1) / len;
            double lo_p = 1e9, hi_p = -1e9, lo_q = 1e9, hi_q = -1e9;
            for (const auto& [x, y] : p) lo_p = std::min(lo_p, x * nx + y * ny), hi_p = std::max(hi_p, x * nx + y * ny);
            for (const auto& [x, y] : q) lo_q = std::min(lo_q, x * nx + y * ny), hi_q = std::max(hi_q, x * nx + y * ny);
            least = std::min(least, std::min(hi_p, hi_q) - std::max(lo_p, lo_q));
        }
    return std::max(0.0, least);
}

// Every text inside the 800×480 canvas, no two overlapping (0.5 px of rounding allowed).
void check_text_layout(const std::string& svg) {
    const auto texts = texts_of(svg);
    REQUIRE(!texts.empty());
    for (const auto& t : texts)
        for (const auto& [x, y] : corners(t)) {
            INFO("text \"" << t.shown << "\" at " << x << ", " << y);
            CHECK(x >= -0.5);
            CHECK(x <= 800.5);
            CHECK(y >= -0.5);
            CHECK(y <= 480.5);
        }
    for (std::size_t i = 0; i < texts.size(); ++i)
        for (std::size_t j = i + 1; j < texts.size(); ++j) {
            INFO("\"" << texts[i].shown << "\" and \"" << texts[j].shown << "\"");
            CHECK(overlap(corners(texts[i]), corners(texts[j])) <= 0.5);
        }
}

// Palette colour → the series names in the tooltips of the elements filled or stroked with it.
std::map<std::string, std::set<std::string>> palette_use(const std::string& svg, const std::vector<std::string>& names) {
    static const std::regex element("<(rect|circle|polyline|line) ([^>]*)>(?:<title>([^<]*)</title>)?");
    std::map<std::string, std::set<std::string>> out;
    for (auto it = std::sregex_iterator(svg.begin(), svg.end(), element); it != std::sregex_iterator(); ++it) {
        const std::string a = (*it)[2].str(), tooltip = (*it)[3].str();
        for (const auto& colour : {attribute(a, "fill"), attribute(a, "stroke")}) {
            if (std::find(okabe_ito.begin(), okabe_ito.end(), colour) == okabe_ito.end()) continue;
            for (const auto& n : names)
                if (has(tooltip, n)) out[colour].insert(n);
        }
    }
    return out;
}

// Twelve series named so none is part of another's name: run-01 … run-12.
std::vector<std::string> twelve_names() {
    std::vector<std::string> out;
    for (int i = 1; i <= 12; ++i) out.push_back(fmt::format("run-{:02}", i));
    return out;
}

std::vector<named_values> twelve_samples() {
    std::vector<named_values> out;
    int k = 0;
    for (const auto& n : twelve_names()) {
        ++k;
        out.push_back({n, {0.1 * k, 0.15 * k, 0.2 * k, 0.3 * k, 0.5 * k}});
    }
    return out;
}

std::vector<named_points> twelve_lines() {
    std::vector<named_points> out;
    int k = 0;
    for (const auto& n : twelve_names()) {
        ++k;
        out.push_back({n, {1, 2, 3, 4}, {1.0 * k, 1.5 * k, 1.7 * k, 2.0 * k}});
    }
    return out;
}

bar_table twelve_series_bars() {
    bar_table t{{"alpha", "beta"}, twelve_names(), {}};
    for (std::size_t s = 0; s < 12; ++s) t.values.push_back({1.0 + static_cast<double>(s), 2.0 + static_cast<double>(s)});
    return t;
}

const chart_labels plain_labels{"A chart", "x (s)", "y (s)"};

} // namespace

TEST_CASE("text is measured with DejaVu Sans' advance widths", "[plot][text]") {
    // DejaVu's digits are all 1303 units of 2048 to the em; 'i' 569, 'W' 2025, space 651
    CHECK(detail::text_width("0123456789", 12) == Approx(10 * 1303 * 12 / 2048.0));
    CHECK(detail::text_width("i", 16) == Approx(569 * 16 / 2048.0));
    CHECK(detail::text_width("W W", 10) == Approx((2025 + 651 + 2025) * 10 / 2048.0));
    // bold is wider: its digits are 1425 units
    CHECK(detail::text_width("42", 12, true) == Approx(2 * 1425 * 12 / 2048.0));
    CHECK(detail::text_width("") == 0);
}

TEST_CASE("text outside ASCII counts an em per code point, not per byte", "[plot][text]") {
    CHECK(detail::text_width("…", 12) == Approx(12)); // three bytes, one code point
    CHECK(detail::text_width("µs", 10) == Approx(10 + 1067 * 10 / 2048.0));
    CHECK(detail::text_width("≤≤", 14) == Approx(28));
}

TEST_CASE("shortening in the middle keeps the distinguishing end and fits the width", "[plot][text]") {
    const std::string a = "loadtest-2026-01-11-bad-c16", b = "loadtest-2026-01-11-bad-c32";
    const auto sa = detail::shorten_middle(a, 90), sb = detail::shorten_middle(b, 90);
    CHECK(has(sa, "…"));
    CHECK(sa != sb);
    CHECK(sa.ends_with("c16"));
    CHECK(sb.ends_with("c32"));
    CHECK(sa.starts_with("lo"));
    CHECK(detail::text_width(sa) <= 90);
    CHECK(detail::shorten_middle("short", 90) == "short");
    // shortening from the end keeps the start
    const auto e = detail::shorten_end("End-to-end latency by prompt length", 100);
    CHECK(e.starts_with("End-to"));
    CHECK(e.ends_with("…"));
    CHECK(detail::text_width(e) <= 100);
}

TEST_CASE("fit_lines breaks at spaces and after hyphens, each line within the width", "[plot][text]") {
    const auto two = detail::fit_lines("p99 latency against throughput by concurrency", 200, 2);
    REQUIRE(two.lines.size() == 2);
    CHECK_FALSE(two.shortened);
    CHECK(two.lines[0] + " " + two.lines[1] == "p99 latency against throughput by concurrency");
    for (const auto& l : two.lines) CHECK(detail::text_width(l) <= 200);
    const auto hyphen = detail::fit_lines("prefill-heavy-c16", 80, 2);
    REQUIRE(hyphen.lines.size() == 2);
    CHECK(hyphen.lines[0] + hyphen.lines[1] == "prefill-heavy-c16");
    CHECK(hyphen.lines[0].ends_with("-"));
    // too long for two lines: the second shortened in the middle, the end kept
    const auto cut = detail::fit_lines("one two three four five six seven eight nine ten eleven twelve", 100, 2);
    CHECK(cut.lines.size() == 2);
    CHECK(cut.shortened);
    CHECK(cut.lines[1].ends_with("twelve"));
}

TEST_CASE("the palette gives no colour twice: past its eight colours it gives the grey of other series",
          "[plot][colour]") {
    std::set<std::string> seen;
    for (std::size_t i = 0; i < palette_size; ++i) seen.insert(series_colour(i));
    CHECK(seen.size() == 8);
    CHECK(seen == std::set<std::string>(okabe_ito.begin(), okabe_ito.end()));
    for (std::size_t i : {std::size_t{8}, std::size_t{9}, std::size_t{16}, std::size_t{1000}}) {
        CHECK(seen.count(series_colour(i)) == 0);
        CHECK(std::string(series_colour(i)) == other_colour);
    }
}

TEST_CASE("beyond the palette the first, the last and evenly spaced series are picked, six in all", "[plot][colour]") {
    CHECK(picked_series(3) == std::vector<std::size_t>{0, 1, 2});
    CHECK(picked_series(8) == std::vector<std::size_t>{0, 1, 2, 3, 4, 5, 6, 7});
    // 16 series: 0, 15/5 … 15
    CHECK(picked_series(16) == std::vector<std::size_t>{0, 3, 6, 9, 12, 15});
    // 9 series: 8·j/5 = 0, 1.6, 3.2, 4.8, 6.4, 8 rounded
    CHECK(picked_series(9) == std::vector<std::size_t>{0, 2, 3, 5, 6, 8});
    CHECK(picked_series(0).empty());
}

TEST_CASE("the series a caller names get the palette in order, the rest grey", "[plot][colour]") {
    const std::vector<std::size_t> named{7, 2, 2, 99};
    const auto slots = palette_slots(10, named);
    REQUIRE(slots.size() == 10);
    CHECK(slots[2] == std::optional<std::size_t>(0));
    CHECK(slots[7] == std::optional<std::size_t>(1));
    for (std::size_t i : {0, 1, 3, 4, 5, 6, 8, 9}) CHECK_FALSE(slots[i].has_value());
    // with few series a named subset still greys the rest
    const std::vector<std::size_t> one{1};
    const auto few = palette_slots(3, one);
    CHECK_FALSE(few[0].has_value());
    CHECK(few[1] == std::optional<std::size_t>(0));
}

TEST_CASE("no chart kind gives two of twelve series the same palette colour", "[plot][colour]") {
    const auto names = twelve_names();
    const auto samples = twelve_samples();
    const auto lines = twelve_lines();
    const auto bars = twelve_series_bars();
    const std::vector<std::pair<std::string, std::string>> charts{
        {"ecdf", ecdf_chart(samples, plain_labels)},
        {"line", line_chart(lines, plain_labels, {})},
        {"timeline", timeline_chart(lines, plain_labels)},
        {"scatter", scatter_chart(lines, plain_labels, false)},
        {"grouped bars", grouped_bar_chart(bars, plain_labels)},
        {"stacked bars", stacked_bar_chart(bars, plain_labels)},
        {"box", box_chart(samples, plain_labels)},
    };
    for (const auto& [kind, svg] : charts) {
        INFO(kind);
        const auto use = palette_use(svg, names);
        std::set<std::string> coloured;
        for (const auto& [colour, series] : use) {
            INFO("colour " << colour);
            CHECK(series.size() == 1); // one series per colour
            coloured.insert(series.begin(), series.end());
        }
        // six picked: 11·j/5 rounded is 0, 2, 4, 7, 9, 11
        CHECK(coloured == std::set<std::string>{"run-01", "run-03", "run-05", "run-08", "run-10", "run-12"});
        CHECK(has(svg, ">6 other series (grey)</text>"));
        CHECK(has(svg, other_colour));
    }
}

TEST_CASE("eight series or fewer each get their own palette colour and no grey entry", "[plot][colour]") {
    auto samples = twelve_samples();
    samples.resize(8);
    const auto svg = ecdf_chart(samples, plain_labels);
    const auto use = palette_use(svg, twelve_names());
    CHECK(use.size() == 8);
    for (const auto& [colour, series] : use) CHECK(series.size() == 1);
    CHECK_FALSE(has(svg, "(grey)"));
}

TEST_CASE("a caller asks for the series to colour; the grey ones are thin, underneath and summed up in the legend",
          "[plot][colour]") {
    line_options o;
    o.highlight = {4, 1};
    o.others_name = "other levels";
    const auto svg = line_chart(twelve_lines(), plain_labels, o);
    const auto use = palette_use(svg, twelve_names());
    REQUIRE(use.size() == 2);
    CHECK(use.at("#0072B2") == std::set<std::string>{"run-02"});
    CHECK(use.at("#E69F00") == std::set<std::string>{"run-05"});
    CHECK(has(svg, ">10 other levels (grey)</text>"));
    // the grey entry's tooltip names the series it stands for
    CHECK(has(svg, "<title>run-01, run-03, run-04, run-06"));
    // grey lines are 1 px and drawn before (under) every coloured line
    const auto first_coloured = svg.find(R"(stroke="#0072B2" stroke-width="2")");
    const auto last_grey = svg.rfind(R"(stroke="#c4c4c4" stroke-width="1")");
    REQUIRE(first_coloured != std::string::npos);
    REQUIRE(last_grey != std::string::npos);
    CHECK(last_grey < first_coloured);
    ecdf_options e;
    e.highlight = {0};
    CHECK(has(ecdf_chart(twelve_samples(), plain_labels, e), ">11 other series (grey)</text>"));
    scatter_options s;
    s.highlight = {0, 11};
    CHECK(has(scatter_chart(twelve_lines(), plain_labels, s), ">10 other series (grey)</text>"));
    timeline_options t;
    t.highlight = {3};
    CHECK(has(timeline_chart(twelve_lines(), plain_labels, t), ">11 other series (grey)</text>"));
    bar_options b;
    b.highlight = {0, 1, 2};
    CHECK(has(grouped_bar_chart(twelve_series_bars(), plain_labels, b), ">9 other series (grey)</text>"));
}

TEST_CASE("a title too wide for one line takes two, the plot area moved down", "[plot][text]") {
    const std::string title =
        "p99 end-to-end latency against throughput (labels: max_num_batched_tokens) — a long run name from the manifest";
    const auto svg = ecdf_chart(twelve_samples(), {title, "x (s)", "y"});
    std::vector<drawn_text> lines;
    for (const auto& t : texts_of(svg))
        if (t.css_class == "title") lines.push_back(t);
    REQUIRE(lines.size() == 2);
    CHECK(lines[0].shown + " " + lines[1].shown == title);
    for (const auto& l : lines) CHECK(detail::text_width(l.shown, 16, true) <= 800 - 16);
    CHECK(lines[1].y > lines[0].y + 16 * 1.16); // a line's box apart
    // the plot area's outline starts below the second line
    CHECK(has(svg, R"(<rect x="80" y="58" width="520")"));
    check_text_layout(svg);
}

TEST_CASE("a title too long for two lines is shortened with the whole of it as a tooltip", "[plot][text]") {
    std::string title;
    for (int i = 0; i < 30; ++i) title += fmt::format("word{} ", i);
    title += "end";
    const auto svg = line_chart(twelve_lines(), {title, "x", "y"}, {});
    std::size_t tipped = 0;
    for (const auto& t : texts_of(svg))
        if (t.css_class == "title") {
            CHECK(t.tooltip == title);
            ++tipped;
        }
    CHECK(tipped == 2);
    CHECK(has(svg, "…"));
    check_text_layout(svg);
}

TEST_CASE("axis labels too long are shortened in the middle, keeping the unit, with a tooltip", "[plot][text]") {
    const std::string x_label(200, 'x'), y_label = std::string(120, 'y') + " (s)";
    const auto svg = ecdf_chart(twelve_samples(), {"t", x_label + " (s)", y_label});
    bool x_found = false, y_found = false;
    for (const auto& t : texts_of(svg)) {
        if (t.tooltip == x_label + " (s)") x_found = t.shown.ends_with("(s)") && has(t.shown, "…");
        if (t.tooltip == y_label) y_found = t.shown.ends_with("(s)") && t.rotate == -90;
    }
    CHECK(x_found);
    CHECK(y_found);
    check_text_layout(svg);
}

TEST_CASE("category names that fit their slot stay on one line, whole", "[plot][text]") {
    const bar_table t{{"all", "short", "long"}, {"p50", "p99"}, {{1, 2, 3}, {2, 3, 4}}};
    const auto svg = grouped_bar_chart(t, {"t", "subset", "latency (s)"});
    for (const char* name : {">all</text>", ">short</text>", ">long</text>"}) CHECK(has(svg, name));
    CHECK_FALSE(has(svg, "rotate(-45"));
    check_text_layout(svg);
}

TEST_CASE("category names too wide for their slot wrap onto two lines at a hyphen or space", "[plot][text]") {
    bar_table t{{}, {"p50"}, {{}}};
    // seven slots of 74 px: "prefill-heavy-c56" is 101 px wide, "prefill-heavy-" 79, "heavy-c56" 63
    for (int i = 1; i <= 7; ++i) {
        t.categories.push_back(fmt::format("prefill-heavy-c{}", i * 8));
        t.values[0].push_back(i);
    }
    const auto svg = grouped_bar_chart(t, {"t", "run", "latency (s)"});
    CHECK_FALSE(has(svg, "rotate(-45"));
    CHECK_FALSE(has(svg, "…"));
    CHECK(count(svg, ">prefill-</text>") == 7);
    CHECK(has(svg, ">heavy-c56</text>"));
    check_text_layout(svg);
}

TEST_CASE("sixteen run names under bars are slanted, every one whole, none shortened to its start", "[plot][text]") {
    bar_table t{{}, {"p50", "p90", "p99"}, {{}, {}, {}}};
    for (const char* side : {"bad", "fair"})
        for (int c : {1, 2, 4, 8, 16, 32, 48, 64}) t.categories.push_back(fmt::format("{}-c{}", side, c));
    for (std::size_t c = 0; c < t.categories.size(); ++c)
        for (std::size_t s = 0; s < 3; ++s) t.values[s].push_back(0.1 * static_cast<double>(c + 1) + 0.02 * static_cast<double>(s));
    const auto svg = grouped_bar_chart(t, {"End-to-end p50 / p90 / p99 by run", "run", "end-to-end latency (s)"});
    for (const auto& name : t.categories) CHECK(count(svg, ">" + name + "</text>") == 1);
    CHECK(count(svg, "rotate(-45") == 16);
    CHECK_FALSE(has(svg, "…"));
    check_text_layout(svg);
}

TEST_CASE("slanted names too long are shortened in the middle, the end kept, the whole in a tooltip", "[plot][text]") {
    bar_table t{{}, {"p50"}, {{}}};
    for (int c : {1, 2, 4, 8, 16, 32, 48, 64, 96, 128}) {
        t.categories.push_back(fmt::format("qwen2.5-3b-instruct-on-vllm-0.6.3-with-prefix-caching-c{}", c));
        t.values[0].push_back(c);
    }
    const auto svg = grouped_bar_chart(t, {"t", "run", "latency (s)"});
    std::size_t shortened = 0;
    for (const auto& text : texts_of(svg))
        if (text.rotate == -45 && has(text.shown, "…")) {
            ++shortened;
            CHECK(text.tooltip.starts_with("qwen2.5"));
            CHECK(text.shown.ends_with(text.tooltip.substr(text.tooltip.rfind('-'))));
            CHECK(detail::text_width(text.shown) <= 150);
        }
    CHECK(shortened == 10);
    check_text_layout(svg);
}

TEST_CASE("category names laid out after the y scale keep the plot's bottom and stay under it", "[plot][text]") {
    frame f({"t", "run", "latency (s)"});
    f.y_axis(f.y_scale(0, 1)); // the wrong order for slanted names: they must make do with the room left
    std::vector<std::string> names;
    for (int c = 1; c <= 16; ++c) names.push_back(fmt::format("a-rather-long-run-name-c{}", c));
    f.category_axis(names);
    const auto svg = std::move(f).finish();
    CHECK(has(svg, R"(<rect x="80" y="50" width="520" height="360")")); // bottom still at 410
    check_text_layout(svg);
    for (const auto& t : texts_of(svg))
        if (t.rotate == -45) CHECK(t.tooltip.starts_with("a-rather-long-run-name-c"));
}

TEST_CASE("value labels above bars never overlap: staggered or left out, the value kept in the tooltip",
          "[plot][text]") {
    // close values in narrow bars: labels of neighbours would overprint
    bar_table t{{"a", "b", "c", "d", "e", "f"}, {"p50", "p90", "p99"}, {{}, {}, {}}};
    for (std::size_t c = 0; c < 6; ++c)
        for (std::size_t s = 0; s < 3; ++s) t.values[s].push_back(1.234 + 0.001 * static_cast<double>(s));
    const auto svg = grouped_bar_chart(t, {"t", "subset", "latency (s)"});
    check_text_layout(svg);
    CHECK(has(svg, "<title>a, p99: 1.24 s (1.236)</title>"));
    // many bars: slots 32 px wide, three bars each, labels wider than two bars left out
    const auto crowded = grouped_bar_chart(
        [] {
            bar_table w{{}, {"p50", "p90", "p99"}, {{}, {}, {}}};
            for (int c = 0; c < 16; ++c) {
                w.categories.push_back(fmt::format("r{}", c));
                for (std::size_t s = 0; s < 3; ++s) w.values[s].push_back(100.5 + c);
            }
            return w;
        }(),
        {"t", "run", "tokens"});
    check_text_layout(crowded);
    CHECK_FALSE(has(crowded, ">116</text>"));
    CHECK(has(crowded, "<title>r15, p99: 116 (115.5)</title>"));
}

TEST_CASE("stacked bars' totals and shares never overlap", "[plot][text]") {
    bar_table t{{}, {"queue", "prefill", "decode"}, {{}, {}, {}}};
    for (int c = 0; c < 14; ++c) {
        t.categories.push_back(fmt::format("p{}", 50 + 3 * c));
        t.values[0].push_back(0.0123 * c);
        t.values[1].push_back(0.2);
        t.values[2].push_back(1.01 + 0.001 * c);
    }
    const auto svg = stacked_bar_chart(t, {"Where the time goes", "percentile", "time (s)"});
    check_text_layout(svg);
}

TEST_CASE("line chart point labels, marks and references never overlap", "[plot][text]") {
    std::vector<named_points> series;
    line_options o;
    for (int s = 0; s < 3; ++s) {
        named_points p{fmt::format("max_num_seqs {}", 32 * (s + 1)), {}, {}};
        std::vector<std::string> labels;
        for (int c = 1; c <= 64; c *= 2) {
            p.x.push_back(c * (1 + 0.05 * s));
            p.y.push_back(2 + 0.01 * c * c / (s + 1));
            labels.push_back(fmt::format("c={}", c));
        }
        series.push_back(p);
        o.point_labels.push_back(labels);
    }
    o.marks = {{16, 2.5, "knee c=16"}, {32, 6, "knee c=32"}};
    o.references = {{5, "p99 ≤ 5 s"}, {5.2, "p99 ≤ 5.2 s"}};
    const auto svg = line_chart(series, {"p99 latency against throughput", "throughput (requests/s)", "p99 (s)"}, o);
    check_text_layout(svg);
    CHECK(count(svg, ">knee c=16</text>") == 2); // on the plot and in the legend
    CHECK(count(svg, ">p99 ≤ 5.2 s</text>") == 2);
}

TEST_CASE("every mark's label is drawn: left of its guide when the right would cross another mark's guide",
          "[plot][text]") {
    const std::vector<named_points> series{{"before: bad", {1, 2, 4, 8, 16, 32, 64}, {0.05, 0.07, 0.1, 0.16, 0.26, 0.5, 1.1}},
                                           {"after: fair", {1, 2, 4, 8, 16, 32, 64}, {0.05, 0.07, 0.1, 0.17, 0.35, 0.72, 1.5}}};
    line_options o;
    o.log_x = true;
    o.marks = {{16, 0.26, "before: bad: knee c=16"}, {8, 0.17, "after: fair: knee c=8"}};
    const auto svg = line_chart(series, {"p99 against concurrency", "concurrency", "p99 (s)"}, o);
    check_text_layout(svg);
    std::size_t left_of_guide = 0;
    for (const auto& t : texts_of(svg))
        if (t.shown == "after: fair: knee c=8" && t.x < frame::legend_left) left_of_guide += t.anchor == "end";
    CHECK(left_of_guide == 1);
}

TEST_CASE("heatmap texts fit their cells and row names, the legend and the axes never overlap", "[plot][text]") {
    heat_table t{{}, {}, {}, "tokens/s", "output throughput of the whole server"};
    for (int r = 0; r < 6; ++r) t.rows.push_back(fmt::format("max_num_batched_tokens={}", 1024 << r));
    for (int c = 0; c < 9; ++c) t.columns.push_back(fmt::format("{}", 1 << c));
    for (int r = 0; r < 6; ++r) {
        t.values.emplace_back();
        for (int c = 0; c < 9; ++c) t.values.back().push_back(1234.5 * (r + 1) + c);
    }
    heatmap_options o;
    o.highlighted = {{1, 2}};
    o.highlight_label = "the sweet spot chosen by the capacity rule";
    const auto svg = heatmap_chart(t, {"Throughput", "concurrency", "max_num_batched_tokens"}, o);
    check_text_layout(svg);
    // long row names shortened, whole in the tooltip
    CHECK(has(svg, "<title>max_num_batched_tokens=1024</title>"));
}

TEST_CASE("legend names are measured: wrapped onto two lines or shortened with a tooltip", "[plot][text]") {
    const std::vector<named_values> series{
        {"a run with a long descriptive name", {1, 2, 3}},
        {"qwen2.5-3b-instruct-on-vllm-0.6.3-with-prefix-caching-and-chunked-prefill-c16", {2, 3, 4}},
    };
    const auto svg = ecdf_chart(series, {"t", "x (s)", "y"});
    check_text_layout(svg);
    const auto texts = texts_of(svg);
    std::size_t tipped = 0;
    for (const auto& t : texts) {
        if (t.x < frame::legend_left) continue;
        CHECK(t.x + detail::text_width(t.shown) <= frame::legend_left - 6 + frame::legend_width);
        if (t.tooltip == series[1].name) ++tipped;
    }
    CHECK(tipped == 2); // both lines of the shortened name carry it
    CHECK(has(svg, ">a run with a long</text>"));
    CHECK(has(svg, ">descriptive name</text>"));
}

TEST_CASE("a legend longer than the plot is high ends in a line naming the rest", "[plot][text]") {
    line_options o;
    for (std::size_t i = 0; i < 8; ++i) o.highlight.push_back(i);
    for (int m = 0; m < 14; ++m) o.marks.push_back({1.0 + 0.2 * m, 2.0, fmt::format("mark number {}", m)});
    const auto svg = line_chart(twelve_lines(), plain_labels, o);
    check_text_layout(svg);
    CHECK(has(svg, " more</text>"));
    CHECK(has(svg, "mark number 13</title>"));
}

TEST_CASE("every point carries its values as a tooltip; an ECDF's curve its name and size, p50/p90/p99 marked",
          "[plot]") {
    const std::vector<named_points> points{{"s", {1, 2}, {3, 4}}};
    CHECK(has(line_chart(points, {"t", "x", "y (s)"}, {}), "<title>s at 2: 4 s (4)</title>"));
    CHECK(has(scatter_chart(points, {"t", "x", "y"}, false), "<title>s: x 2, y 4</title>"));
    const std::vector<named_values> sample{{"e2e", {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0}}};
    const auto ecdf = ecdf_chart(sample, {"t", "latency (s)", "fraction of requests"});
    CHECK(has(ecdf, "<title>e2e: 10 values from 100 ms to 1 s; p50 500 ms, p90 900 ms, p99 1 s</title>"));
    CHECK(count(ecdf, "<circle") == 3);
    CHECK(has(ecdf, "e2e: 50% of requests at or below 500 ms (0.5)"));
    CHECK(has(ecdf, "e2e: 90% of requests at or below 900 ms (0.9)"));
    CHECK(has(ecdf, "e2e: 99% of requests at or below 1 s (1)"));
}

TEST_CASE("short_value prints three significant digits in the axis' unit", "[plot]") {
    CHECK(short_value(0.21918, axis_unit::seconds) == "219 ms");
    CHECK(short_value(1.4567, axis_unit::seconds) == "1.46 s");
    CHECK(short_value(0.0000456, axis_unit::seconds) == "45.6 µs");
    CHECK(short_value(4471.2, axis_unit::plain) == "4471");
    CHECK(short_value(0.012345, axis_unit::plain) == "0.0123");
    CHECK(short_value(0, axis_unit::seconds) == "0 s");
}

} // namespace test_plot_readability
