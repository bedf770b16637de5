// Charts: one golden SVG per kind from small fixed inputs, deterministic bytes, escaped labels,
// "no data" instead of a crash, small files from large inputs.
#include <catch2/catch.hpp> // Catch2 v2

#include <array>      // std::array
#include <cmath>      // std::exp
#include <cstdint>    // std::uint64_t
#include <functional> // std::function
#include <limits>     // std::numeric_limits
#include <string>     // std::string
#include <vector>     // std::vector

#include <fmt/format.h> // fmt::format

#include "servestat/plot/bars.hpp"
#include "servestat/plot/box.hpp"
#include "servestat/plot/ecdf.hpp"
#include "servestat/plot/histogram.hpp"
#include "servestat/plot/scatter.hpp"
#include "servestat/plot/stacked_bars.hpp"
#include "servestat/plot/timeline.hpp"

#include "plot_golden.hpp" // check_golden

namespace test_plot_charts { // the unity build compiles several test files as one: each keeps its names

using namespace servestat::plot;
using servestat::test::check_golden;

namespace {

const std::vector<named_values> latency_by_subset{
    {"short", {0.12, 0.25, 0.25, 0.4, 0.8, 1.1, 0.31, 0.22}},
    {"long", {0.5, 0.9, 1.3, 2.2, 3.5, 1.7, 0.95}},
};

const bar_table percentiles_by_subset{
    {"all", "short", "long"},
    {"p50", "p90", "p99"},
    {{0.42, 0.25, 1.3}, {1.9, 0.9, 3.1}, {3.4, 1.1, 3.5}},
};

const bar_table time_by_percentile{
    {"p50", "p90", "p95", "p99"},
    {"client queue", "prefill", "decode"},
    {{0.01, 0.05, 0.2, 0.9}, {0.08, 0.15, 0.2, 0.4}, {0.4, 1.1, 1.3, 1.6}},
};

const std::vector<named_points> latency_by_tokens{
    {"requests", {10, 50, 100, 150, 200, 300, 400, 512}, {0.31, 0.72, 1.28, 1.69, 2.35, 3.2, 4.4, 5.5}},
};

const std::vector<named_points> run_timeline{
    {"completed/s", {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, {3, 8, 12, 14, 15, 15, 14, 15, 9, 2}},
    {"started/s", {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, {16, 16, 15, 16, 15, 16, 15, 16, 0, 0}},
};

// A fixed pseudo-random sample (LCG) so large-input tests need no data file.
std::vector<double> lognormalish(std::size_t n) {
    std::vector<double> out(n);
    std::uint64_t state = 42;
    for (auto& v : out) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        const double u = static_cast<double>(state >> 11) / 9007199254740992.0;
        v = 0.01 * std::exp(6 * u); // 10 ms to about 4 s
    }
    return out;
}

} // namespace

TEST_CASE("ECDF chart matches its golden file", "[plot]") {
    check_golden("ecdf.svg", ecdf_chart(latency_by_subset, {"End-to-end latency by prompt length",
                                                            "end-to-end latency (s)", "fraction of requests"}));
}

TEST_CASE("ECDF chart of data spanning decades uses a log axis and matches its golden file", "[plot]") {
    const std::vector<named_values> series{{"ttft", {0.004, 0.006, 0.01, 0.02, 0.05, 0.2, 0.9, 2.5}}};
    const auto svg = ecdf_chart(series, {"Time to first token", "time to first token (s)", "fraction of requests"});
    CHECK(svg.find(">10 ms</text>") != std::string::npos);
    CHECK(svg.find(">100 ms</text>") != std::string::npos);
    check_golden("ecdf_log.svg", svg);
}

// A sweep's sixteen runs (two servers at eight concurrencies): more series than the palette has
// colours, so six are coloured and ten drawn grey.
std::vector<named_values> sixteen_runs() {
    std::vector<named_values> out;
    int k = 0;
    for (const char* side : {"bad", "fair"})
        for (int c : {1, 2, 4, 8, 16, 32, 48, 64}) {
            std::vector<double> v = lognormalish(60);
            for (auto& x : v) x *= 1 + 0.08 * c * (side[0] == 'b' ? 1.5 : 1) + 0.01 * k;
            out.push_back({fmt::format("{}-c{}", side, c), v});
            ++k;
        }
    return out;
}

TEST_CASE("ECDF chart of sixteen runs colours six and greys ten, matching its golden file", "[plot]") {
    const auto svg = ecdf_chart(sixteen_runs(), {"End-to-end latency by run", "end-to-end latency (s)",
                                                 "fraction of requests"});
    CHECK(svg.find(">10 other series (grey)</text>") != std::string::npos);
    check_golden("ecdf_many.svg", svg);
}

TEST_CASE("grouped bar chart of sixteen runs slants their names and matches its golden file", "[plot]") {
    bar_table t{{}, {"p50", "p90", "p99"}, {{}, {}, {}}};
    for (const auto& run : sixteen_runs()) {
        t.categories.push_back(run.name);
        auto sorted = run.values;
        std::sort(sorted.begin(), sorted.end());
        for (std::size_t s = 0; s < 3; ++s)
            t.values[s].push_back(sorted[detail::rank_at(sorted.size(), std::array{0.5, 0.9, 0.99}[s])]);
    }
    const auto svg = grouped_bar_chart(t, {"End-to-end p50 / p90 / p99 by run", "run", "end-to-end latency (s)"});
    CHECK(svg.find(R"(>bad-c16</text>)") != std::string::npos);
    CHECK(svg.find(R"(>fair-c32</text>)") != std::string::npos);
    check_golden("bars_runs.svg", svg);
}

TEST_CASE("histogram chart matches its golden file", "[plot]") {
    check_golden("histogram.svg", histogram_chart({"all", {0.12, 0.25, 0.25, 0.4, 0.8, 1.1, 0.31, 0.22, 0.5, 0.9, 1.3,
                                                           2.2, 3.5, 1.7, 0.95, 0.6, 0.45, 0.38, 0.7, 1.05}},
                                                  {"End-to-end latency", "end-to-end latency (s)", "requests"}));
}

TEST_CASE("histogram with explicit bins counts every value once", "[plot]") {
    const auto svg = histogram_chart({"x", {1, 2, 3, 4}}, {"t", "value", "count"}, 2);
    CHECK(svg.find(": 2 requests</title>") != std::string::npos);
    CHECK(svg.find("(inclusive): 2 requests</title>") != std::string::npos);
}

TEST_CASE("grouped bar chart matches its golden file", "[plot]") {
    check_golden("bars.svg", grouped_bar_chart(percentiles_by_subset, {"End-to-end p50 / p90 / p99 by subset",
                                                                       "subset", "end-to-end latency (s)"}));
}

TEST_CASE("stacked bar chart matches its golden file", "[plot]") {
    check_golden("stacked_bars.svg",
                 stacked_bar_chart(time_by_percentile, {"Where the time goes", "percentile", "time (s)"}));
}

TEST_CASE("scatter chart with a fit line matches its golden file", "[plot]") {
    check_golden("scatter.svg", scatter_chart(latency_by_tokens, {"End-to-end latency against output tokens",
                                                                  "output tokens", "end-to-end latency (s)"},
                                              true));
}

TEST_CASE("timeline chart matches its golden file", "[plot]") {
    check_golden("timeline.svg",
                 timeline_chart(run_timeline, {"Requests per second over the run", "time since start (s)",
                                               "requests per second"}));
}

TEST_CASE("box chart matches its golden file", "[plot]") {
    check_golden("box.svg", box_chart(latency_by_subset, {"End-to-end latency by subset", "subset",
                                                          "end-to-end latency (s)"}));
}

TEST_CASE("a chart without values says no data and matches its golden file", "[plot]") {
    const std::vector<named_values> empty{{"none", {}}};
    const auto svg = ecdf_chart(empty, {"Nothing here", "latency (s)", "fraction of requests"});
    CHECK(svg.find(">no data</text>") != std::string::npos);
    check_golden("no_data.svg", svg);
}

TEST_CASE("every chart kind survives empty and non-finite input", "[plot]") {
    const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
    const chart_labels labels{"t", "x (s)", "y"};
    const std::vector<named_values> no_values, bad_values{{"bad", {nan, inf, -inf}}};
    const std::vector<named_points> no_points, bad_points{{"bad", {nan, 1}, {1, inf}}};
    const bar_table no_bars, ragged{{"a", "b"}, {"s1", "s2"}, {{nan}}};
    const std::vector<std::function<std::string()>> charts{
        [&] { return ecdf_chart(no_values, labels); },
        [&] { return ecdf_chart(bad_values, labels); },
        [&] { return histogram_chart({"x", {}}, labels); },
        [&] { return histogram_chart(bad_values.front(), labels); },
        [&] { return grouped_bar_chart(no_bars, labels); },
        [&] { return grouped_bar_chart(ragged, labels); },
        [&] { return stacked_bar_chart(no_bars, labels); },
        [&] { return stacked_bar_chart(ragged, labels); },
        [&] { return scatter_chart(no_points, labels, true); },
        [&] { return scatter_chart(bad_points, labels, true); },
        [&] { return timeline_chart(bad_points, labels); },
        [&] { return box_chart(bad_values, labels); },
    };
    for (const auto& chart : charts) {
        const auto svg = chart();
        CHECK(svg.find(">no data</text>") != std::string::npos);
        CHECK(svg.find("nan") == std::string::npos);
        CHECK(svg.find("inf") == std::string::npos);
    }
}

TEST_CASE("NaN values are skipped, the rest drawn", "[plot]") {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const std::vector<named_values> series{{"s", {0.5, nan, 1.5}}};
    const auto svg = ecdf_chart(series, {"t", "x (s)", "y"});
    CHECK(svg.find("no data") == std::string::npos);
    CHECK(svg.find("s: 2 values") != std::string::npos);
}

TEST_CASE("labels from input are XML-escaped everywhere", "[plot]") {
    const std::string hostile = R"(<script>alert(1)</script> & "x" | y)";
    const std::string escaped = "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;x&quot; | y";
    const std::vector<named_values> series{{hostile, {0.1, 0.2, 0.3}}};
    const auto svg = ecdf_chart(series, {hostile, hostile, hostile});
    CHECK(svg.find("<script") == std::string::npos);
    CHECK(svg.find("<title>" + escaped + "</title>") != std::string::npos);
    CHECK(svg.find(R"(aria-label=")" + escaped + R"(")") != std::string::npos);
}

TEST_CASE("rendering twice gives the same bytes", "[plot]") {
    const std::vector<named_values> series{{"big", lognormalish(20000)}};
    const chart_labels labels{"t", "latency (s)", "fraction of requests"};
    CHECK(ecdf_chart(series, labels) == ecdf_chart(series, labels));
    CHECK(box_chart(series, labels) == box_chart(series, labels));
    CHECK(histogram_chart(series.front(), labels) == histogram_chart(series.front(), labels));
}

TEST_CASE("an ECDF of a million values keeps its marked quantiles in a small file", "[plot]") {
    const std::vector<named_values> series{{"big", lognormalish(1000000)}};
    const auto svg = ecdf_chart(series, {"t", "latency (s)", "fraction of requests"});
    CHECK(svg.size() < 40000);
    CHECK(svg.find("99% of requests at or below") != std::string::npos);
}

TEST_CASE("a scatter of many points draws about 2000 of them", "[plot]") {
    named_points p{"many", {}, {}};
    for (int i = 0; i < 100000; ++i) {
        p.x.push_back(i);
        p.y.push_back(0.001 * i);
    }
    const std::vector<named_points> series{p};
    const auto svg = scatter_chart(series, {"t", "tokens", "latency (s)"}, true);
    std::size_t circles = 0;
    for (auto at = svg.find("<circle"); at != std::string::npos; at = svg.find("<circle", at + 1)) ++circles;
    CHECK(circles <= 2000);
    CHECK(circles >= 1000);
    CHECK(svg.find("r² = 1") != std::string::npos);
}

TEST_CASE("every chart kind has its title, both axis labels, role=img and a white background", "[plot]") {
    const chart_labels labels{"A title", "x label (s)", "y label (s)"};
    const std::vector<std::string> charts{
        ecdf_chart(latency_by_subset, labels),          histogram_chart(latency_by_subset.front(), labels),
        grouped_bar_chart(percentiles_by_subset, labels), stacked_bar_chart(time_by_percentile, labels),
        scatter_chart(latency_by_tokens, labels, true), timeline_chart(run_timeline, labels),
        box_chart(latency_by_subset, labels)};
    for (const auto& svg : charts) {
        CHECK(svg.rfind(R"(<svg xmlns="http://www.w3.org/2000/svg")", 0) == 0);
        CHECK(svg.find(R"(role="img" aria-label="A title")") != std::string::npos);
        CHECK(svg.find("<title>A title</title>") != std::string::npos);
        CHECK(svg.find(">x label (s)</text>") != std::string::npos);
        CHECK(svg.find(">y label (s)</text>") != std::string::npos);
        CHECK(svg.find(R"(fill="#ffffff")") != std::string::npos);
    }
}

TEST_CASE("grouped bars give each bar its exact value as a tooltip and print it above", "[plot]") {
    const auto svg = grouped_bar_chart(percentiles_by_subset, {"t", "subset", "latency (s)"});
    CHECK(svg.find("<title>long, p99: 3.5 s (3.5)</title>") != std::string::npos);
    CHECK(svg.find(">3.5 s</text>") != std::string::npos);
}

TEST_CASE("stacked bars label each part with its share of the bar", "[plot]") {
    const bar_table parts{{"p50"}, {"queue", "decode"}, {{3.0}, {1.0}}};
    const auto svg = stacked_bar_chart(parts, {"t", "percentile", "time (s)"});
    CHECK(svg.find("<title>p50, queue: 3 s (3), 75% of 4 s</title>") != std::string::npos);
    CHECK(svg.find(">75%</text>") != std::string::npos);
}

TEST_CASE("box chart whiskers are linear p5 and p95", "[plot]") {
    // 1..21: p5 = 2, p25 = 6, median 11, p75 = 16, p95 = 20 (linear method)
    std::vector<double> v;
    for (int i = 1; i <= 21; ++i) v.push_back(i);
    const std::vector<named_values> series{{"s", v}};
    const auto svg = box_chart(series, {"t", "subset", "latency (s)"});
    CHECK(svg.find("s (n=21): p5 2, p25 6, median 11, p75 16, p95 20") != std::string::npos);
    CHECK(svg.find("whiskers: p5 and p95") != std::string::npos);
}

} // namespace test_plot_charts
