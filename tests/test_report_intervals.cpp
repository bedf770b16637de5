// Percentile intervals where reports show them: beside each value in the KPI and sweep tables,
// compactly in the value's unit ("1.08 s (0.95–1.21)"), a value without one marked and counted in the
// note under the table, and as bands around the sweep curves. The intervals are set by hand here
// (their computation is stats/summary.hpp's, tested in test_percentile_interval.cpp); every expected
// text and count is derived by hand in the comments.
#include <catch2/catch.hpp> // Catch2 v2

#include <algorithm> // std::find
#include <cmath>    // std::isfinite
#include <cstddef>  // std::size_t
#include <limits>   // std::numeric_limits
#include <optional> // std::optional
#include <string>   // std::string, std::stod
#include <utility>  // std::pair
#include <vector>   // std::vector

#include <fmt/format.h> // fmt::format

#include "servestat/plot/line.hpp"            // line_chart, band
#include "servestat/report/builtin_templates.hpp" // find_builtin_template
#include "servestat/report/digest.hpp"        // kpi_rows, kpi_interval_note
#include "servestat/report/render.hpp"        // render, markup
#include "servestat/report/view_model.hpp"    // analyse, build_view_model
#include "servestat/report/format.hpp"        // format_seconds, format_interval
#include "servestat/report/intervals.hpp"     // values_beyond, beyond_text, interval_note
#include "servestat/report/sweep_view.hpp"    // sweep_view, sweep_plots
#include "servestat/sweep/sweep_analysis.hpp" // analyze_sweep, sweep_table_columns

namespace test_report_intervals { // the unity build compiles several test files as one: each keeps its names

using namespace servestat;
using namespace servestat::report;

namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

struct hand_percentile {
    double p, value;
    std::optional<interval> ci;
};

summary hand_summary(std::size_t n, const std::vector<hand_percentile>& ps) {
    summary s;
    s.n = n;
    for (const auto& h : ps) s.percentiles.push_back({h.p, h.value, h.ci});
    return s;
}

// A run of n successful requests whose "all" subset has the given e2e and TTFT percentiles.
run_stats hand_run(std::string label, std::size_t n, const std::vector<hand_percentile>& e2e,
                   const std::vector<hand_percentile>& ttft, double concurrency = 1) {
    run_stats r;
    r.meta.label = std::move(label);
    r.meta.kind = run_kind::requests;
    r.meta.params["concurrency"] = concurrency;
    r.requests = r.ok = n;
    r.rps = 10;
    r.subsets.push_back({"all", n, {{metric::e2e, hand_summary(n, e2e)}, {metric::ttft, hand_summary(n, ttft)}}});
    return r;
}

struct polygon {
    std::string fill;
    std::vector<std::pair<double, double>> points;
};

// The bands of an SVG: its polygons drawn at the bands' opacity, with their points.
std::vector<polygon> band_polygons(const std::string& svg) {
    std::vector<polygon> out;
    const std::string opacity = "fill-opacity=\"0.18\"";
    for (auto at = svg.find("<polygon points=\""); at != std::string::npos; at = svg.find("<polygon points=\"", at + 1)) {
        const auto end = svg.find('>', at);
        const std::string tag = svg.substr(at, end - at);
        if (tag.find(opacity) == std::string::npos) continue;
        polygon p;
        const auto from = tag.find('"') + 1, to = tag.find('"', from);
        std::string list = tag.substr(from, to - from) + " ";
        for (std::size_t i = 0, j; (j = list.find(' ', i)) != std::string::npos; i = j + 1) {
            const std::string xy = list.substr(i, j - i);
            const auto comma = xy.find(',');
            p.points.emplace_back(std::stod(xy.substr(0, comma)), std::stod(xy.substr(comma + 1)));
        }
        const auto f = tag.find("fill=\"") + 6;
        p.fill = tag.substr(f, tag.find('"', f) - f);
        out.push_back(std::move(p));
    }
    return out;
}

std::size_t count(const std::string& text, const std::string& needle) {
    std::size_t n = 0;
    for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
    return n;
}

void check_inside_plot(const polygon& p) {
    for (const auto& [x, y] : p.points) {
        CHECK(x >= plot::frame::plot_left);
        CHECK(x <= plot::frame::plot_right);
        CHECK(y >= 50);  // the plot's top under a one-line title
        CHECK(y <= 410); // its bottom
    }
}

} // namespace

TEST_CASE("an interval is written beside its value in the value's unit and decimals", "[report][intervals]") {
    CHECK(format_seconds(1.08, interval{0.95, 1.21}) == "1.08 s (0.95–1.21)");
    // 0.98 s is written "980 ms": its ends in ms without decimals, 1.21 s as 1210.
    CHECK(format_seconds(0.98, interval{0.95, 1.21}) == "980 ms (950–1210)");
    CHECK(format_seconds(0.0123, interval{0.0101, 0.015}) == "12.3 ms (10.1–15.0)");
    CHECK(format_seconds(0.00512, interval{0.00498, 0.0053}) == "5.12 ms (4.98–5.30)");
    CHECK(format_seconds(0.000512, interval{0.000498, 0.00053}) == "512 µs (498–530)");
    CHECK(format_seconds(125.0, interval{110.2, 140.6}) == "125 s (110–141)");
    // A value of 0 has no unit of its own: the larger end's.
    CHECK(format_interval(0, 0, 0.004) == "(0.00–4.00)");
    // No interval (too few values): the value alone, as before.
    CHECK(format_seconds(1.08, std::optional<interval>()) == "1.08 s");
    CHECK(format_seconds(std::optional<double>(), interval{1, 2}) == "–");
}

TEST_CASE("the values beyond a percentile are counted at numpy's linear place (n − 1)·p/100", "[report][intervals]") {
    CHECK(values_beyond(99, 101) == 1);  // place 99 of 0…100: only the 100th lies above it
    CHECK(values_beyond(99, 200) == 2);  // place 197.01: 198 and 199 lie above
    CHECK(values_beyond(99, 1000) == 10); // place 989.01: 990 … 999
    CHECK(values_beyond(50, 10) == 5);   // place 4.5: 5 … 9
    CHECK(values_beyond(50, 11) == 5);   // place 5: 6 … 10
    CHECK(values_beyond(10, 101) == 10); // place 10: 0 … 9 lie below
    CHECK(values_beyond(99, 1) == 0);
    CHECK(beyond_text(99, 101) == "p99 of 101 requests: 1 value above it");
    CHECK(beyond_text(99, 1200) == "p99 of 1,200 requests: 12 values above it"); // place 1187.01
    CHECK(beyond_text(10, 101) == "p10 of 101 requests: 10 values below it");
}

TEST_CASE("the KPI table shows each percentile's interval beside it and marks a value that has none",
          "[report][intervals]") {
    // 101 requests: the median bounded, the p99 (1 value above it) not.
    const auto r = hand_run("c8", 101, {{50, 1.08, interval{0.95, 1.21}}, {99, 2.5, std::nullopt}},
                            {{50, 0.0123, interval{0.0101, 0.015}}, {99, 0.2, std::nullopt}});
    const std::vector<kpi_source> sources{{"c8", &r}};
    const json rows = kpi_rows(sources, {}, 95);
    REQUIRE(rows.size() == 1);
    const json& row = rows[0];
    CHECK(row["e2e_p50"] == "1.08 s");
    CHECK(row["e2e_p50_ci"] == "(0.95–1.21)");
    CHECK(row["e2e_p50_mark"] == "");
    CHECK(row["ttft_p50_ci"] == "(10.1–15.0)");
    CHECK(row["e2e_p99"] == "2.50 s");
    CHECK(row["e2e_p99_ci"].is_null());
    CHECK(row["e2e_p99_mark"] == few_samples_mark); // 1 value above it, fewer than 10
    CHECK(row["ttft_p99_ci"].is_null());
    const std::string note = kpi_interval_note(sources, 0.95);
    CHECK(note == "In parentheses beside a percentile: its 95% confidence interval, the range that holds the true "
                  "percentile with 95% confidence (from the order statistics, whatever the distribution). The value "
                  "without one (†) has too few requests beyond it to bound it: p99 of 101 requests: 1 value above it.");
}

TEST_CASE("a value resting on few samples shown with its interval carries no dagger", "[report][intervals]") {
    // 10 requests: the median has 5 values above it, fewer than 10 (†), but an interval (X(2)–X(9)).
    const auto r = hand_run("tiny", 10, {{50, 2.05, interval{1.2, 3.1}}, {99, 3.21, std::nullopt}},
                            {{50, 0.5, std::nullopt}, {99, 0.9, std::nullopt}});
    const std::vector<kpi_source> sources{{"tiny", &r}};
    const json row = kpi_rows(sources, {}, 95)[0];
    CHECK(row["e2e_p50_ci"] == "(1.20–3.10)");
    CHECK(row["e2e_p50_mark"] == "");
    CHECK(row["ttft_p50_mark"] == few_samples_mark); // no interval: the value alone, marked
    // Two values alone at p99 and one at p50, each told once, highest percentile first.
    CHECK_THAT(kpi_interval_note(sources, 0.95),
               Catch::EndsWith("Values without one (†) have too few requests beyond them to bound them: p99 of 10 "
                               "requests: 1 value above it; p50 of 10 requests: 5 values above it."));
    // A table with no interval at all has nothing to explain.
    const auto none = hand_run("none", 10, {{50, 2.05, std::nullopt}, {99, 3.21, std::nullopt}}, {});
    const std::vector<kpi_source> alone{{"none", &none}};
    CHECK(kpi_interval_note(alone, 0.95).empty());
}

TEST_CASE("a run known by its tool's aggregates has no interval in the KPI table", "[report][intervals]") {
    run_stats r;
    r.meta.label = "vllm";
    r.meta.kind = run_kind::summary;
    r.meta.reported.push_back({"e2e.p99", 1.5, "s"});
    const std::vector<kpi_source> sources{{"vllm", &r}};
    const json row = kpi_rows(sources, {}, 95)[0];
    CHECK(row["e2e_p99"] == "1.50 s");
    CHECK(row["e2e_p99_ci"].is_null());
    CHECK(kpi_interval_note(sources, 0.95).empty());
}

TEST_CASE("the KPI table leaves out the latency columns no run has a value in", "[report]") {
    run r; // a tool's aggregates with TTFT and no e2e (vLLM's result JSON)
    r.meta.label = "vllm";
    r.meta.kind = run_kind::summary;
    r.meta.reported = {{"ttft.p50", 0.2, "s"}, {"ttft.p99", 0.9, "s"}, {"rps", 3.0, "req/s"}};
    const json view = build_view_model({analyse(r, {})}, {}, {});
    CHECK(view["kpi_has_ttft"] == true);
    CHECK(view["kpi_has_e2e"] == false);
    const auto* md = find_builtin_template("report.md");
    REQUIRE(md != nullptr);
    // The built-in template's KPI table alone: the rest of a report needs what the app adds.
    const std::string_view whole = md->text;
    const auto from = whole.find("{{#has_kpi}}"), to = whole.find("{{/has_kpi}}") + std::string_view("{{/has_kpi}}").size();
    const std::string text = render(std::string(whole.substr(from, to - from)), view, markup::markdown, "report.md");
    CHECK_THAT(text, Catch::Contains("| | subset | requests | ok | req/s | output tok/s | TTFT p50 | TTFT p99 |\n"));
    CHECK_THAT(text, Catch::Contains("| 200 ms | 900 ms |\n"));
}

TEST_CASE("a sweep level run once carries its run's intervals; a replicated level carries none", "[report][intervals]") {
    std::vector<run_stats> runs{
        hand_run("c1", 400, {{50, 0.1, interval{0.09, 0.11}}, {99, 0.3, interval{0.28, 0.33}}}, {}, 1),
        hand_run("c2", 400, {{50, 0.2, interval{0.18, 0.21}}, {99, 0.5, std::nullopt}}, {}, 2),
        hand_run("c4-a", 400, {{50, 0.4, interval{0.38, 0.42}}, {99, 0.9, interval{0.8, 1.0}}}, {}, 4),
        hand_run("c4-b", 400, {{50, 0.44, interval{0.4, 0.46}}, {99, 1.1, interval{1.0, 1.2}}}, {}, 4)};
    sweep s{"concurrency", "", {{1, 0, {0}}, {2, 1, {1}}, {4, 2, {2, 3}}}, {}};
    const sweep_analysis a = analyze_sweep(s, runs);
    const std::size_t p50 = servestat::detail::column_index("e2e.p50"), p99 = servestat::detail::column_index("e2e.p99");
    REQUIRE(a.rows.size() == 3);
    REQUIRE(a.rows[0].ci.size() == sweep_table_columns().size());
    CHECK(a.rows[0].ci[p50] == interval{0.09, 0.11});
    CHECK(a.rows[1].ci[p50] == interval{0.18, 0.21});
    CHECK_FALSE(a.rows[1].ci[p99].has_value());
    CHECK_FALSE(a.rows[2].ci[p50].has_value()); // the median of two runs is neither run's percentile

    const json view = sweep_view(a);
    CHECK(view["rows"][0]["e2e_p50"] == "100 ms");
    CHECK(view["rows"][0]["e2e_p50_ci"] == "(90–110)");
    CHECK(view["rows"][0]["e2e_p99_ci"] == "(280–330)");
    CHECK(view["rows"][1]["e2e_p99_ci"].is_null());
    CHECK(view["rows"][1]["e2e_p99"] == "500 ms†"); // 400 values: 4 above the p99 (place 395.01)
    CHECK(view["rows"][2]["e2e_p50_ci"].is_null());
    // The table's columns are those some level has a value in: no e2e p90 was given, nor prompts
    // short or long enough for their subsets.
    std::vector<std::string> heads;
    for (const auto& c : view["columns"]) heads.push_back(c["head"]);
    CHECK(std::find(heads.begin(), heads.end(), "e2e p50") != heads.end());
    CHECK(std::find(heads.begin(), heads.end(), "e2e p90") == heads.end());
    CHECK(std::find(heads.begin(), heads.end(), "e2e p99 short prompts") == heads.end());
    const auto at = static_cast<std::size_t>(std::find(heads.begin(), heads.end(), "e2e p50") - heads.begin());
    for (const auto& row : view["rows"]) CHECK(row["cells"].size() == heads.size());
    CHECK(view["rows"][0]["cells"][at] == json{{"value", "100 ms"}, {"ci", "(90–110)"}});
    const std::string note = view["interval_note"];
    CHECK_THAT(note, Catch::StartsWith("In parentheses beside a percentile: its 95% confidence interval"));
    CHECK_THAT(note, Catch::Contains("A value without one (†) has too few requests beyond it at its level to bound it."));
    CHECK_THAT(note, Catch::EndsWith("A level run more than once shows its runs' median, without an interval."));
}

TEST_CASE("each latency percentile on a sweep chart is drawn with its interval as a band in its colour",
          "[report][intervals][plot]") {
    std::vector<run_stats> runs;
    for (int k = 0; k < 4; ++k) {
        const double c = 1 << k, m = 0.1 * (k + 1);
        runs.push_back(hand_run(fmt::format("c{}", c), 2000,
                                {{50, m, interval{0.9 * m, 1.1 * m}}, {90, 2 * m, interval{1.8 * m, 2.2 * m}},
                                 {99, 3 * m, k == 2 ? std::nullopt : std::optional<interval>(interval{2.7 * m, 3.3 * m})}},
                                {}, c));
    }
    sweep s{"concurrency", "", {{1, 0, {0}}, {2, 1, {1}}, {4, 2, {2}}, {8, 3, {3}}}, {}};
    const sweep_analysis a = analyze_sweep(s, runs);
    std::string svg;
    for (const auto& f : sweep_plots(a, "s"))
        if (f.name == "s-percentiles.svg") svg = f.svg;
    REQUIRE_FALSE(svg.empty());
    const auto bands = band_polygons(svg);
    // p50 and p90: one polygon over the 4 levels each (4 upper and 4 lower points). p99 has no
    // interval at c=4: two runs of two levels (c=1–2, and c=8 alone, a bar of 4 corners).
    REQUIRE(bands.size() == 4);
    CHECK(bands[0].fill == plot::series_colour(0));
    CHECK(bands[0].points.size() == 8);
    CHECK(bands[1].fill == plot::series_colour(1));
    CHECK(bands[1].points.size() == 8);
    CHECK(bands[2].fill == plot::series_colour(2));
    CHECK(bands[2].points.size() == 4);
    CHECK(bands[3].fill == plot::series_colour(2));
    CHECK(bands[3].points.size() == 4);
    CHECK(bands[3].points[1].first - bands[3].points[0].first == Approx(6)); // the lone level's bar
    for (const auto& b : bands) check_inside_plot(b);
    // One legend entry for every band, and why a level has none.
    CHECK(count(svg, ">shaded: 95%</text>") == 1); // the legend entry (its second line: "confidence interval")
    CHECK(count(svg, "no shading where a level has too few requests for a 95% interval") == 1);
    CHECK(count(svg, "<title>e2e p99: 95% confidence interval</title>") == 2);
}

TEST_CASE("a band breaks at a point without ends instead of bridging it", "[plot][intervals]") {
    const std::vector<plot::named_points> series{{"p99", {1, 2, 3, 4, 5}, {1, 2, 3, 4, 5}},
                                                 {"p50", {1, 2, 3, 4, 5}, {0.5, 1, 1.5, 2, 2.5}}};
    plot::line_options o;
    o.bands.push_back({0, {1, 2, 3, 4, 5}, {0.8, 1.8, nan, 3.7, 4.6}, {1.2, 2.3, nan, 4.4, 5.5}, "shaded: 95% confidence interval", {}});
    o.bands.push_back({1, {1, 2, 3, 4, 5}, {0.4, 0.9, 1.3, 1.8, 2.2}, {0.6, 1.1, 1.7, 2.3, 2.9}, "shaded: 95% confidence interval", {}});
    const std::string svg = plot::line_chart(series, {"bands", "x", "latency (s)"}, o);
    const auto bands = band_polygons(svg);
    REQUIRE(bands.size() == 3);
    CHECK(bands[0].points.size() == 4); // x = 1, 2
    CHECK(bands[1].points.size() == 4); // x = 4, 5
    CHECK(bands[2].points.size() == 10);
    for (const auto& b : bands) check_inside_plot(b);
    // The upper edge runs left to right: x of the first point of the second run is right of the first run's.
    CHECK(bands[1].points[0].first > bands[0].points[1].first);
    // Two colours share the entry: it is drawn neutral grey.
    CHECK(count(svg, ">shaded: 95%</text>") == 1); // the legend entry (its second line: "confidence interval")
    CHECK(count(svg, "fill=\"#888888\" fill-opacity=\"0.35\"") == 1);
    // A band with no finite point draws nothing and adds no legend entry.
    plot::line_options empty;
    empty.bands.push_back({0, {1, 2}, {nan, nan}, {nan, nan}, "shaded", {}});
    const std::string bare = plot::line_chart(series, {"none", "x", "latency (s)"}, empty);
    CHECK(band_polygons(bare).empty());
    CHECK(count(bare, ">shaded<") == 0);
}

} // namespace test_report_intervals
