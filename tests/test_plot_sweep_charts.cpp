// Sweep charts: the line chart (p99 against throughput with each point's concurrency, a knee and an
// SLO; throughput against concurrency on a log axis) and the heatmap of two sweep parameters.
#include <catch2/catch.hpp> // Catch2 v2

#include <cstddef>  // std::size_t
#include <limits>   // std::numeric_limits
#include <optional> // std::optional, std::nullopt
#include <string>   // std::string
#include <vector>   // std::vector

#include "servestat/plot/heatmap.hpp"
#include "servestat/plot/line.hpp"
#include "servestat/plot/timeline.hpp"

#include "plot_golden.hpp" // check_golden

namespace test_plot_sweep_charts { // the unity build compiles several test files as one: each keeps its names

using namespace servestat::plot;
using servestat::test::check_golden;

namespace {

constexpr double not_a_number = std::numeric_limits<double>::quiet_NaN();
const std::optional<double> none = std::nullopt;

std::size_t count(const std::string& text, const std::string& needle) {
    std::size_t n = 0;
    for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
    return n;
}

bool has(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

// A concurrency sweep at two max_num_seqs: throughput levels off, p99 rises steeply past c=16.
const std::vector<named_points> p99_by_rps{
    {"max_num_seqs 32", {0.45, 0.88, 1.7, 3.2, 5.6, 6.9, 7.1}, {2.3, 2.4, 2.6, 2.9, 3.6, 6.2, 12.5}},
    {"max_num_seqs 64", {0.46, 0.9, 1.75, 3.3, 5.9, 8.1, 8.8}, {2.3, 2.35, 2.5, 2.8, 3.3, 4.6, 8.9}},
};
const std::vector<std::string> concurrencies{"c=1", "c=2", "c=4", "c=8", "c=16", "c=32", "c=64"};

line_options knee_options() {
    line_options o;
    o.point_labels = {concurrencies, concurrencies};
    o.marks = {{5.6, 3.6, "knee c=16"}};
    o.references = {{5, "p99 ≤ 5 s"}};
    return o;
}

const chart_labels knee_labels{"p99 latency against throughput", "throughput (requests/s)",
                               "p99 end-to-end latency (s)"};

const std::vector<named_points> tps_by_concurrency{
    {"max_num_seqs 32", {1, 2, 4, 8, 16, 32, 64}, {48, 95, 182, 340, 600, 740, 760}},
    {"max_num_seqs 64", {1, 2, 4, 8, 16, 32, 64}, {49, 97, 188, 355, 640, 870, 945}},
};

// p99 (s) by max_num_seqs (rows, bottom to top) and concurrency (columns); two levels not run.
heat_table p99_grid() {
    return {{"16", "32", "48", "64", "96"},
            {"1", "2", "4", "8", "16", "32", "64"},
            {{2.3, 2.4, 2.7, 3.4, 5.9, 11.8, 23.1},
             {2.3, 2.4, 2.6, 2.9, 3.6, 6.2, 12.5},
             {2.3, 2.35, 2.5, 2.8, 3.4, 5.1, 10.2},
             {2.3, 2.35, 2.5, 2.8, 3.3, 4.6, 8.9},
             {2.4, 2.4, 2.6, 2.9, 3.5, none, none}},
            "s",
            "p99 latency"};
}

heatmap_options sweet_spot() {
    heatmap_options o;
    o.lower_is_better = true;
    o.highlighted = {{3, 4}};
    o.highlight_label = "sweet spot";
    return o;
}

const chart_labels grid_labels{"p99 latency by max_num_seqs and concurrency", "concurrency", "max_num_seqs"};

std::string log_x_chart(const std::vector<named_points>& series) {
    line_options o;
    o.log_x = true;
    return line_chart(series, {"t", "concurrency", "tokens/s"}, o);
}

} // namespace

TEST_CASE("line chart of p99 against throughput with concurrency labels, a knee and an SLO matches its golden file",
          "[plot]") {
    check_golden("line_knee.svg", line_chart(p99_by_rps, knee_labels, knee_options()));
}

TEST_CASE("line chart of throughput against concurrency on a log axis matches its golden file", "[plot]") {
    line_options o;
    o.log_x = true;
    o.marks = {{16, 640, "knee c=16"}};
    check_golden("line_log.svg", line_chart(tps_by_concurrency, {"Output throughput by concurrency", "concurrency",
                                                                 "output tokens per second"},
                                            o));
}

TEST_CASE("heatmap of p99 by max_num_seqs and concurrency matches its golden file", "[plot]") {
    check_golden("heatmap.svg", heatmap_chart(p99_grid(), grid_labels, sweet_spot()));
}

TEST_CASE("line chart has its title, axis labels, one marker per point and every legend entry", "[plot]") {
    const auto svg = line_chart(p99_by_rps, knee_labels, knee_options());
    CHECK(svg.rfind(R"(<svg xmlns="http://www.w3.org/2000/svg")", 0) == 0);
    CHECK(has(svg, R"(role="img" aria-label="p99 latency against throughput")"));
    CHECK(has(svg, "<title>p99 latency against throughput</title>"));
    CHECK(has(svg, ">throughput (requests/s)</text>"));
    CHECK(has(svg, ">p99 end-to-end latency (s)</text>"));
    CHECK(count(svg, "<circle") == 14);
    // the two series, the SLO, the knee's diamond and its legend diamond
    CHECK(count(svg, "<polyline") == 2 + 1 + 1 + 1);
    CHECK(has(svg, ">max_num_seqs 32</text>"));
    CHECK(has(svg, ">max_num_seqs 64</text>"));
    // the SLO and the knee: on the plot and in the legend
    CHECK(count(svg, ">p99 ≤ 5 s</text>") == 2);
    CHECK(count(svg, ">knee c=16</text>") == 2);
    CHECK(has(svg, R"(stroke-dasharray="6 3")"));
    CHECK(has(svg, R"(stroke-dasharray="4 3")"));
}

TEST_CASE("line chart prints each point's label and puts it in the point's tooltip", "[plot]") {
    const auto svg = line_chart(p99_by_rps, knee_labels, knee_options());
    CHECK(count(svg, ">c=8</text>") == 2);
    CHECK(count(svg, ">c=64</text>") == 2);
    // max_num_seqs 32's c=16 would cover the knee's diamond: left out, its tooltip keeps it
    CHECK(count(svg, ">c=16</text>") == 1);
    CHECK(has(svg, "<title>max_num_seqs 32 at 5.6: 3.6 s (3.6), c=16</title>"));
    CHECK(has(svg, "<title>p99 ≤ 5 s: 5 s (5)</title>"));
    CHECK(has(svg, "<title>knee c=16: x 5.6, y 3.6 s (3.6)</title>"));
}

TEST_CASE("an SLO above every point still widens the y axis to show it", "[plot]") {
    const std::vector<named_points> low{{"s", {1, 2, 3}, {0.1, 0.2, 0.3}}};
    line_options o;
    o.references = {{5, "p99 ≤ 5 s"}};
    const auto svg = line_chart(low, {"t", "rps", "p99 (s)"}, o);
    CHECK(has(svg, ">5 s</text>"));
    CHECK(!has(line_chart(low, {"t", "rps", "p99 (s)"}, {}), ">5 s</text>"));
}

TEST_CASE("a log x axis over a concurrency sweep has a tick at each level run and spans just them", "[plot]") {
    const auto svg = log_x_chart(tps_by_concurrency);
    for (const char* level : {">1</text>", ">2</text>", ">4</text>", ">8</text>", ">16</text>", ">32</text>", ">64</text>"})
        CHECK(has(svg, level));
    // not the 1-2-5 ticks of a log axis, nor its decade 100
    CHECK(!has(svg, ">5</text>"));
    CHECK(!has(svg, ">50</text>"));
    CHECK(!has(svg, ">100</text>"));
    CHECK(!has(svg, "linear x axis"));
    // first and last level 24 px inside the plot's 80..600
    CHECK(has(svg, R"(<text x="104" y="428" text-anchor="middle" font-size="12" fill="#222222">1</text>)"));
    CHECK(has(svg, R"(<text x="576" y="428" text-anchor="middle" font-size="12" fill="#222222">64</text>)"));
}

TEST_CASE("a log x axis with many x values or crowded levels falls back to 1-2-5 ticks over decades", "[plot]") {
    named_points dense{"dense", {}, {}};
    for (int i = 1; i <= 40; ++i) {
        dense.x.push_back(i * 2.5);
        dense.y.push_back(i);
    }
    const auto many = log_x_chart({dense});
    for (const char* tick : {">1</text>", ">2</text>", ">5</text>", ">100</text>"}) CHECK(has(many, tick));
    CHECK(!has(many, ">2.5</text>"));
    // 56, 60 and 64 lie 8 px apart on a log axis: their labels would overprint
    const auto crowded = log_x_chart({{"s", {1, 56, 60, 64}, {1, 2, 3, 4}}});
    CHECK(has(crowded, ">100</text>"));
    CHECK(!has(crowded, ">56</text>"));
}

TEST_CASE("a log x axis is impossible with x at zero: linear, with a note", "[plot]") {
    const auto svg = log_x_chart({{"s", {0, 1, 2, 4}, {1, 2, 3, 4}}});
    CHECK(has(svg, "linear x axis: some x values are 0 or below"));
    CHECK(count(svg, "<circle") == 4);
}

TEST_CASE("a non-finite point is dropped and the labels stay with their points", "[plot]") {
    const std::vector<named_points> gappy{{"s", {1, not_a_number, 3}, {1, 2, 3}}};
    line_options o;
    o.point_labels = {{"a", "b", "c"}};
    const auto svg = line_chart(gappy, {"t", "x", "y"}, o);
    CHECK(count(svg, "<circle") == 2);
    CHECK(has(svg, ">a</text>"));
    CHECK(!has(svg, ">b</text>"));
    CHECK(has(svg, "<title>s at 3: 3 (3), c</title>"));
}

TEST_CASE("point labels never overprint each other", "[plot]") {
    // five labels on one spot: the four places around it take four, the fifth is left out
    const std::vector<named_points> same{{"s", {2, 2, 2, 2, 2, 4}, {2, 2, 2, 2, 2, 4}}};
    line_options o;
    o.point_labels = {{"aa", "bb", "cc", "dd", "ee"}};
    const auto svg = line_chart(same, {"t", "x", "y"}, o);
    for (const char* label : {">aa</text>", ">bb</text>", ">cc</text>", ">dd</text>"}) CHECK(has(svg, label));
    CHECK(!has(svg, ">ee</text>"));
    CHECK(has(svg, "<title>s at 2: 2 (2), ee</title>"));
}

TEST_CASE("line chart without points says no data", "[plot]") {
    const std::vector<named_points> none_at_all, only_nan{{"s", {not_a_number}, {1}}}, empty_series{{"s", {}, {}}};
    for (const auto* series : {&none_at_all, &only_nan, &empty_series}) {
        const auto svg = line_chart(*series, knee_labels, knee_options());
        CHECK(has(svg, ">no data</text>"));
        CHECK(!has(svg, "<circle"));
        CHECK(!has(svg, "nan"));
    }
}

TEST_CASE("the timeline chart is the line chart with small markers", "[plot]") {
    line_options o;
    o.marker_radius = 2.5;
    CHECK(timeline_chart(p99_by_rps, knee_labels) == line_chart(p99_by_rps, knee_labels, o));
}

TEST_CASE("heatmap has its title, axis titles, every row and column name and one cell per pair", "[plot]") {
    const auto t = p99_grid();
    const auto svg = heatmap_chart(t, grid_labels, sweet_spot());
    CHECK(has(svg, "<title>p99 latency by max_num_seqs and concurrency</title>"));
    CHECK(has(svg, ">concurrency</text>"));
    CHECK(has(svg, ">max_num_seqs</text>"));
    for (const auto& name : t.rows) CHECK(has(svg, ">" + name + "</text>"));
    // only cells carry a tooltip among the rects
    CHECK(count(svg, "</rect>") == 5 * 7);
    CHECK(has(svg, "<title>max_num_seqs 64, concurrency 16: 3.3 s (3.3)</title>"));
}

TEST_CASE("heatmap prints each value in its cell, missing cells as a dash", "[plot]") {
    const auto svg = heatmap_chart(p99_grid(), grid_labels, sweet_spot());
    for (const char* value : {">23.1</text>", ">2.35</text>", ">12.5</text>", ">8.9</text>", ">5.9</text>"})
        CHECK(has(svg, value));
    CHECK(count(svg, ">–</text>") == 2);
    CHECK(has(svg, "<title>max_num_seqs 96, concurrency 64: no value</title>"));
    CHECK(has(svg, R"(fill="#e0e0e0"><title>max_num_seqs 96, concurrency 32: no value</title>)"));
    CHECK(has(svg, ">– not run / no value</text>"));
}

TEST_CASE("heatmap colour legend gives the unit, the range and the direction", "[plot]") {
    const auto svg = heatmap_chart(p99_grid(), grid_labels, sweet_spot());
    CHECK(has(svg, ">p99 latency (s)</text>"));
    CHECK(has(svg, ">max 23.1 s</text>"));
    CHECK(has(svg, ">min 2.3 s</text>"));
    CHECK(has(svg, ">lower is better</text>"));
    CHECK(has(svg, ">sweet spot</text>"));
}

TEST_CASE("heatmap colours run dark to bright towards better, text readable on each", "[plot]") {
    const heat_table t{{"a"}, {"lo", "hi"}, {{1.0, 3.0}}, "s", ""};
    const chart_labels labels{"t", "c", "r"};
    heatmap_options lower;
    lower.lower_is_better = true;
    const auto higher_svg = heatmap_chart(t, labels, {});
    const auto lower_svg = heatmap_chart(t, labels, lower);
    // viridis' ends: #440154 (dark purple) and #fde725 (yellow)
    CHECK(has(higher_svg, R"(fill="#440154"><title>r a, c lo: 1 s (1)</title>)"));
    CHECK(has(higher_svg, R"(fill="#fde725"><title>r a, c hi: 3 s (3)</title>)"));
    CHECK(has(lower_svg, R"(fill="#fde725"><title>r a, c lo: 1 s (1)</title>)"));
    CHECK(has(lower_svg, R"(fill="#440154"><title>r a, c hi: 3 s (3)</title>)"));
    CHECK(has(higher_svg, R"(fill="#ffffff">1</text>)"));
    CHECK(has(higher_svg, R"(fill="#000000">3</text>)"));
    CHECK(!has(higher_svg, "lower is better"));
}

TEST_CASE("viridis is interpolated between its anchors; text colour follows luminance", "[plot]") {
    CHECK(detail::hex(detail::viridis(0)) == "#440154");
    CHECK(detail::hex(detail::viridis(0.5)) == "#21908c");
    CHECK(detail::hex(detail::viridis(1)) == "#fde725");
    // halfway between #440154 and #472d7b: (0x44+0x47)/2 = 69.5 → 70 (0x46), 0x17, 0x68 (rounded half up)
    CHECK(detail::hex(detail::viridis(1.0 / 16)) == "#461768");
    CHECK(std::string(detail::readable_on(detail::viridis(0.1))) == "#ffffff");
    CHECK(std::string(detail::readable_on(detail::viridis(0.9))) == "#000000");
}

TEST_CASE("heatmap outlines each highlighted cell inside the table", "[plot]") {
    auto o = sweet_spot();
    o.highlighted.push_back({0, 0});
    o.highlighted.push_back({99, 0}); // outside: ignored
    const auto svg = heatmap_chart(p99_grid(), grid_labels, o);
    // a black and a white ring per cell, one black ring in the legend
    CHECK(count(svg, R"(stroke="#000000" stroke-width="3")") == 2 + 1);
    CHECK(count(svg, R"(stroke="#ffffff" stroke-width="1.5")") == 2);
}

TEST_CASE("a ragged heatmap table draws its short rows' ends as missing", "[plot]") {
    const heat_table t{{"a", "b"}, {"x", "y"}, {{1.0}}, "", ""};
    const auto svg = heatmap_chart(t, {"t", "c", "r"}, {});
    CHECK(count(svg, "</rect>") == 4);
    CHECK(count(svg, ">–</text>") == 3);
    CHECK(has(svg, ">value</text>"));
}

TEST_CASE("heatmap without values says no data", "[plot]") {
    const std::vector<heat_table> empties{
        heat_table{},
        {{"a"}, {}, {}, "s", ""},
        {{"a", "b"}, {"x"}, {{none}, {not_a_number}}, "s", ""},
    };
    for (const auto& t : empties) {
        const auto svg = heatmap_chart(t, grid_labels, sweet_spot());
        CHECK(has(svg, ">no data</text>"));
        CHECK(!has(svg, "</rect>"));
        CHECK(!has(svg, "nan"));
    }
}

TEST_CASE("heatmap values too long for small cells stay in the tooltip", "[plot]") {
    heat_table t{{"r"}, {}, {{}}, "", ""};
    for (int c = 0; c < 40; ++c) {
        t.columns.push_back(std::to_string(c));
        t.values[0].push_back(1234.25 + c);
    }
    const auto svg = heatmap_chart(t, {"t", "c", "r"}, {});
    CHECK(count(svg, "</rect>") == 40);
    CHECK(!has(svg, ">1234</text>"));
    CHECK(has(svg, "<title>r r, c 0: 1234 (1234.25)</title>"));
}

TEST_CASE("labels and names from input are escaped in both sweep charts", "[plot]") {
    const std::string hostile = R"(<b>&")";
    const std::string escaped = "&lt;b&gt;&amp;&quot;";
    const chart_labels labels{hostile, hostile, hostile};
    line_options o;
    o.point_labels = {{hostile}};
    o.marks = {{2, 2, hostile}};
    o.references = {{1, hostile}};
    const std::vector<named_points> series{{hostile, {1, 2}, {1, 2}}};
    const auto line = line_chart(series, labels, o);
    const auto heat = heatmap_chart({{hostile}, {hostile}, {{1.0}}, hostile, hostile}, labels, {});
    for (const auto& svg : {line, heat}) {
        CHECK(!has(svg, "<b>"));
        CHECK(!has(svg, "&\""));
        CHECK(has(svg, "<title>" + escaped + "</title>"));
        CHECK(has(svg, R"(aria-label=")" + escaped + R"(")"));
    }
    // title, point label, mark on plot and legend, reference on plot and legend, series in legend, axis labels ×2
    CHECK(count(line, ">" + escaped + "</text>") == 9);
    CHECK(has(heat, "<title>" + escaped + " " + escaped + ", " + escaped + " " + escaped + ": 1 " + escaped + " (1)</title>"));
}

TEST_CASE("sweep charts give the same bytes every time", "[plot]") {
    line_options o = knee_options();
    o.log_x = true;
    CHECK(line_chart(p99_by_rps, knee_labels, o) == line_chart(p99_by_rps, knee_labels, o));
    CHECK(heatmap_chart(p99_grid(), grid_labels, sweet_spot()) == heatmap_chart(p99_grid(), grid_labels, sweet_spot()));
}

} // namespace test_plot_sweep_charts
