// The SVG writer: escaped text, fixed numbers, least-squares fits for the scatter line.
#include <catch2/catch.hpp> // Catch2 v2

#include <cstddef> // std::size_t
#include <limits> // std::numeric_limits
#include <string> // std::string
#include <vector> // std::vector

#include "servestat/plot/scatter.hpp"
#include "servestat/plot/svg.hpp"

namespace test_plot_svg { // the unity build compiles several test files as one: each keeps its names

using namespace servestat::plot;

TEST_CASE("escape_xml escapes the five XML specials", "[plot]") {
    CHECK(escape_xml(R"(<script>alert(1)</script> & "x" | y 'z')") ==
          "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;x&quot; | y &#39;z&#39;");
}

TEST_CASE("fixed prints at most two decimals, no -0 and no exponent", "[plot]") {
    CHECK(fixed(1.0) == "1");
    CHECK(fixed(1.25) == "1.25");
    CHECK(fixed(1.2) == "1.2");
    CHECK(fixed(-0.001) == "0");
    CHECK(fixed(-0.0) == "0");
    CHECK(fixed(1e20) == "100000000000000000000");
    CHECK(fixed(1e-7) == "0");
    CHECK(px(12.345) == "12.3");
}

TEST_CASE("least_squares recovers an exact line", "[plot]") {
    const std::vector<double> x{1, 2, 3, 4, 5}, y{3.5, 5.5, 7.5, 9.5, 11.5};
    const auto fit = least_squares(x, y);
    REQUIRE(fit);
    CHECK(fit->slope == Approx(2));
    CHECK(fit->intercept == Approx(1.5));
    CHECK(fit->r_squared == Approx(1));
    CHECK(fit->n == 5);
}

TEST_CASE("least_squares r² matches a hand computation", "[plot]") {
    // mean 2.5 for both; Sxy = 4, Sxx = Syy = 5: slope 0.8, intercept 0.5, r² = 16/25
    const std::vector<double> x{1, 2, 3, 4}, y{1, 3, 2, 4};
    const auto fit = least_squares(x, y);
    REQUIRE(fit);
    CHECK(fit->slope == Approx(0.8));
    CHECK(fit->intercept == Approx(0.5));
    CHECK(fit->r_squared == Approx(0.64));
}

TEST_CASE("least_squares has no fit for one point or constant x", "[plot]") {
    const std::vector<double> one{1}, same{2, 2, 2}, y{1, 2, 3};
    CHECK_FALSE(least_squares(one, one));
    CHECK_FALSE(least_squares(same, y));
}

TEST_CASE("thin_points keeps every stride-th finite pair, their range and the fit over all of them", "[plot]") {
    std::vector<double> x, y;
    for (int i = 0; i < 5001; ++i) {
        x.push_back(i % 97);
        y.push_back(i == 10 ? std::numeric_limits<double>::quiet_NaN() : 0.01 * i + 0.5 * (i % 7));
    }
    const auto pairs = [&](auto&& visit) {
        for (std::size_t i = 0; i < x.size(); ++i) visit(x[i], y[i]);
    };
    const auto thinned = thin_points("requests", pairs, true);
    CHECK(thinned.pairs == 5001);
    CHECK(thinned.n == 5000); // the NaN left out
    std::vector<double> fx, fy;
    for (std::size_t i = 0; i < x.size(); ++i)
        if (i != 10) fx.push_back(x[i]), fy.push_back(y[i]);
    const std::size_t stride = 3; // ceil(5000 / 2000)
    REQUIRE(thinned.x.size() == (fx.size() + stride - 1) / stride);
    for (std::size_t k = 0; k < thinned.x.size(); ++k) {
        CHECK(thinned.x[k] == fx[k * stride]);
        CHECK(thinned.y[k] == fy[k * stride]);
    }
    CHECK(thinned.x_range.lo == 0);
    CHECK(thinned.x_range.hi == 96);
    const auto fit = least_squares(fx, fy); // the same sums in the same order: equal to the bit
    REQUIRE(thinned.fit);
    CHECK(thinned.fit->slope == fit->slope);
    CHECK(thinned.fit->intercept == fit->intercept);
    CHECK(thinned.fit->r_squared == fit->r_squared);
    const auto unfitted = thin_points("requests", pairs, false); // the same dots without the fit's pass
    CHECK(unfitted.x == thinned.x);
    CHECK(unfitted.y == thinned.y);
    CHECK_FALSE(unfitted.fit);
}

} // namespace test_plot_svg
