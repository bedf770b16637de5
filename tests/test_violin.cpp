// Kernel density estimates and the violin chart: Silverman's bandwidth against numpy, the density
// against a hand sum and its integral, the outline's geometry, deterministic jitter, and the SVG.
// Reference values: numpy 1.24 (np.std(ddof=1), np.percentile linear) or hand arithmetic, as noted.
#include <catch2/catch.hpp> // Catch2 v2

#include <cmath>   // std::exp, std::sqrt, std::pow
#include <cstddef> // std::size_t
#include <numbers> // std::numbers::pi
#include <string>  // std::string
#include <vector>  // std::vector

#include "servestat/plot/tradeoff.hpp"
#include "servestat/plot/violin.hpp"
#include "servestat/stats/kde.hpp"

#include "plot_golden.hpp" // check_golden

namespace test_violin { // the unity build compiles several test files as one: each keeps its names

using namespace servestat;

namespace {

std::size_t count(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

double phi(double z) { return std::exp(-0.5 * z * z) / std::sqrt(2 * std::numbers::pi); }

const std::vector<plot::violin_series> two_groups{
    {"70b", {1, 2, 3, 10, 11, 12}, {"a", "b", "c", "d", "e", "f"}},
    {"7b", {2.5, 3, 3.2, 4, 9}, {"p", "q", "r", "s", "t"}},
};

} // namespace

TEST_CASE("Silverman bandwidth of 1, 2, 3, 4, 10 matches numpy") {
    // numpy: sigma = np.std(x, ddof=1) = 3.5355339059327378, IQR = 2.0, min(sigma, IQR/1.34) = 1.4925...
    // h = 0.9 * 1.4925373134328357 * 5 ** -0.2 = 0.9735846228506357
    const std::vector<double> x{1, 2, 3, 4, 10};
    REQUIRE(silverman_bandwidth(x).has_value());
    CHECK(*silverman_bandwidth(x) == Approx(0.9735846228506357).epsilon(1e-12));
}

TEST_CASE("Silverman bandwidth falls back to the standard deviation when the IQR is 0 (R's bw.nrd0)") {
    // numpy: np.std([5,5,5,5,9], ddof=1) = 1.7888543819998317; 0.9 * that * 5 ** -0.2 = 1.166872749618789
    const std::vector<double> x{5, 5, 5, 5, 9};
    CHECK(*silverman_bandwidth(x) == Approx(1.166872749618789).epsilon(1e-12));
}

TEST_CASE("Silverman bandwidth of a constant sample falls back to |x0|, and needs two values") {
    const std::vector<double> x{3, 3, 3};
    CHECK(*silverman_bandwidth(x) == Approx(0.9 * 3 * std::pow(3.0, -0.2)).epsilon(1e-12)); // 2.167402216752623
    const std::vector<double> one{3};
    CHECK_FALSE(silverman_bandwidth(one).has_value());
}

TEST_CASE("Gaussian KDE at a point is the hand sum of kernels") {
    // f(1) = (phi(2) + phi(0) + phi(-4)) / (3 * 0.5) = 0.30204471809359046 for x = {0, 1, 3}, h = 0.5
    const std::vector<double> x{0, 1, 3};
    CHECK(gaussian_kde(x, 0.5, 1.0) == Approx((phi(2) + phi(0) + phi(-4)) / 1.5).epsilon(1e-14));
    CHECK(gaussian_kde(x, 0.5, 1.0) == Approx(0.30204471809359046).epsilon(1e-12));
}

TEST_CASE("Gaussian KDE integrates to 1") {
    const std::vector<double> x{0, 1, 3, 3.5, 8};
    const double h = *silverman_bandwidth(x);
    // Trapezoid over the data ± 8 h, where every kernel has all but 1e-15 of its mass.
    const auto curve = kde_curve(x, h, -8 * h, 8 + 8 * h, 4001);
    double area = 0;
    for (std::size_t i = 1; i < curve.x.size(); ++i)
        area += (curve.x[i] - curve.x[i - 1]) * (curve.density[i] + curve.density[i - 1]) / 2;
    CHECK(area == Approx(1.0).epsilon(1e-6));
}

TEST_CASE("A violin outline spans the smallest to the largest value, widest point 1") {
    const std::vector<double> v{1, 2, 3, 10, 11, 12};
    const auto o = plot::detail::outline_of(v, false);
    REQUIRE(o.at.size() == 80);
    CHECK(o.at.front() == 1);
    CHECK(o.at.back() == Approx(12));
    double widest = 0;
    for (double w : o.width) {
        CHECK(w > 0);
        widest = std::max(widest, w);
    }
    CHECK(widest == 1);
    // The outline narrows between the two clusters: at 6.5 it is the density there over the peak.
    const double h = *silverman_bandwidth(v);
    CHECK(o.width_at(6.5) == Approx(gaussian_kde(v, h, 6.5) / o.peak));
    CHECK(o.width_at(6.5) < 0.8);
}

TEST_CASE("On a log axis the outline is estimated in log10 space") {
    const std::vector<double> v{0.01, 0.1, 1, 10};
    const auto o = plot::detail::outline_of(v, true);
    CHECK(o.at.front() == Approx(0.01));
    CHECK(o.at.back() == Approx(10));
    CHECK(o.bandwidth == Approx(*silverman_bandwidth(std::vector<double>{-2, -1, 0, 1})));
}

TEST_CASE("Dots spread sideways by the golden-ratio sequence in [-1, 1)") {
    // 2 * frac(j * 0.618...) minus 2 when frac >= 0.5: 0, 2*0.618-2, 2*0.236, 2*0.854-2, 2*0.472
    const std::vector<double> expected{0, -0.7639320225002102, 0.4721359549995796, -0.2917960675006306,
                                       0.9442719099991592};
    for (std::size_t j = 0; j < expected.size(); ++j)
        CHECK(plot::detail::jitter_fraction(j) == Approx(expected[j]).margin(1e-12));
    for (std::size_t j = 0; j < 1000; ++j) {
        CHECK(plot::detail::jitter_fraction(j) >= -1);
        CHECK(plot::detail::jitter_fraction(j) < 1);
    }
}

TEST_CASE("Violin chart: one outline and one box per group, a named dot per value, same bytes every time") {
    const auto svg = plot::violin_chart(two_groups, {"p95 by model", "model", "p95 e2e latency (s)"}, {.value_unit = "s"});
    CHECK(svg == plot::violin_chart(two_groups, {"p95 by model", "model", "p95 e2e latency (s)"}, {.value_unit = "s"}));
    CHECK(count(svg, "<polygon") == 2);
    CHECK(count(svg, "<circle") == 11);
    CHECK(svg.find("<title>70b · d: 10 s</title>") != std::string::npos);
    CHECK(svg.find("70b (n=6): min 1 s, p25 2.25 s, median 6.5 s, p75 10.75 s, max 12 s") != std::string::npos);
    CHECK(svg.find("7b (n=5)") != std::string::npos); // legend
    CHECK(svg.find("fill=\"#0072B2\"") != std::string::npos);
    CHECK(svg.find("fill=\"#E69F00\"") != std::string::npos);
    servestat::test::check_golden("violin.svg", svg);
}

TEST_CASE("Violin chart: a lone value is a dot on the axis line, no values is 'no data'") {
    const std::vector<plot::violin_series> lone{{"only", {4}, {}}};
    const auto svg = plot::violin_chart(lone, {"t", "x", "y (s)"});
    CHECK(count(svg, "<polygon") == 0);
    CHECK(count(svg, "<circle") == 1);
    const std::vector<plot::violin_series> none{{"empty", {}, {}}};
    CHECK(plot::violin_chart(none, {"t", "x", "y (s)"}).find("no data") != std::string::npos);
}

TEST_CASE("Violin chart escapes labels taken from input") {
    const std::vector<plot::violin_series> evil{{"<b>x</b>", {1, 2, 3}, {"<script>", "&", "\""}}};
    const auto svg = plot::violin_chart(evil, {"t", "x", "y (s)"});
    CHECK(svg.find("<script>") == std::string::npos);
    CHECK(svg.find("<b>") == std::string::npos);
}

TEST_CASE("Past eight categories the colours turn grey instead of repeating, and the legend is capped") {
    std::vector<plot::violin_series> many;
    for (int i = 0; i < 20; ++i) many.push_back({"g" + std::to_string(i), {1.0 + i, 2.0 + i}, {}});
    const auto svg = plot::violin_chart(many, {"t", "x", "y (s)"});
    CHECK(std::string(plot::category_colour(7)) == "#000000");
    CHECK(std::string(plot::category_colour(8)) == "#9a9a9a");
    CHECK(svg.find("+7 more (grey)") != std::string::npos); // 13 rows named, the 7 after them summed up
}

TEST_CASE("Trade-off chart: one dot per point coloured by group, named in its tooltip") {
    const std::vector<plot::labelled_points> groups{{"7b", {50, 75}, {3.2, 2.1}, {"anyscale_7b", "fireworks_7b"}},
                                                    {"70b", {20}, {8.5}, {"replicate_70b"}}};
    const auto svg = plot::tradeoff_chart(groups, {"Trade-off", "median tokens/s (tok/s)", "p95 e2e latency (s)"},
                                          {.x_unit = "tok/s", .y_unit = "s"});
    CHECK(count(svg, "<circle") == 3);
    CHECK(svg.find("<title>70b · replicate_70b: x 20 tok/s, y 8.5 s</title>") != std::string::npos);
    CHECK(svg.find("7b (n=2)") != std::string::npos);
    CHECK(svg.find("70b (n=1)") != std::string::npos);
    servestat::test::check_golden("tradeoff.svg", svg);
}

} // namespace test_violin
