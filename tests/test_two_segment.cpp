// Tests for servestat/sweep/two_segment.hpp: the continuous two-segment least-squares fit.
// Expected values come from a derivation by hand (written out below) and from numpy 1.24 (Debian's
// python3-numpy): for each candidate break c, np.linalg.lstsq on the columns [1, x, max(0, x − c)],
// the candidates being the inner points x₁ … x₍ₙ₋₂₎ and, per gap, the crossing of np.polyfit(…, 1)
// lines fitted to the points on either side; a grid of 4,001 breaks over [x₁, x₍ₙ₋₂₎] found none
// better. The script: /usr/bin/python3 with
//   def sse_at(x, y, c):
//       A = np.column_stack([np.ones_like(x), x, np.maximum(0, x - c)])
//       beta = np.linalg.lstsq(A, y, rcond=None)[0]; r = y - A @ beta; return r @ r, beta
#include "servestat/sweep/two_segment.hpp"

#include <algorithm> // std::min
#include <cmath>  // std::log2, std::exp2, std::nan
#include <vector> // std::vector

#include <catch2/catch.hpp> // TEST_CASE, REQUIRE, CHECK, Approx

namespace test_two_segment { // the unity build compiles several test files as one: each keeps its names

namespace {

using servestat::fit_two_segments;
using servestat::two_segment_fit;
using Catch::Matchers::Contains;
using vec = std::vector<double>;

Approx close(double v) { return Approx(v).epsilon(1e-9).margin(1e-12); }

vec log2_of(const vec& x) {
    vec out;
    for (double v : x) out.push_back(std::log2(v));
    return out;
}

const vec concurrency{1, 2, 4, 8, 16, 32, 48, 64};
// The seed notebook's Experiment 3 (tests/data/sweep/bad_unfair_exp3.csv) and the bundled live sweep
// on the bad simulator (examples/live/bad: ok requests per second of each level's log).
const vec exp3_rps{1.310728, 2.350512, 3.588961, 4.897939, 5.902047, 5.912537, 6.029853, 5.817353};
const vec live_bad_rps{30.091817658630898, 46.583055258372916, 66.34629515100363, 84.25319094918521,
                       97.44019729691149,  105.65402216938348, 108.705341128231,  110.25113186568252};

} // namespace

TEST_CASE("two segments: the constraint binds and the break falls on a point (by hand)") {
    // x = 0 1 2 3, y = 0 1 1 3. Breaks may lie in [x1, x2] = [1, 2]. The lines fitted apart through
    // (0,0),(1,1) (y = x) and (2,1),(3,3) (y = 2x − 3) cross at x = 3, outside the gap, so the best
    // break is an end of it. SSE(c) = d(c)² / w(c), the separate fits being exact:
    //   c = 1: d = 1 − (−1) = 2; leverages 1/2 + 0.5²/0.5 = 1 and 1/2 + 1.5²/0.5 = 5; SSE = 4/6;
    //   c = 2: d = 2 − 1 = 1; leverages 5 and 1; SSE = 1/6.  So c = 2.
    // There the left line is the least-squares line of (0,0),(1,1),(2,1): slope 1/2, intercept 1/6;
    // the right one passes through (2, 7/6) and (3, 3): slope 11/6. Residuals −1/6, 1/3, −1/6, 0.
    const auto f = fit_two_segments(vec{0, 1, 2, 3}, vec{0, 1, 1, 3});
    REQUIRE(f);
    CHECK(f->breakpoint == 2);
    CHECK(f->at_point);
    CHECK(f->sse == close(1.0 / 6));
    CHECK(f->slope_before == close(0.5));
    CHECK(f->intercept_before == close(1.0 / 6));
    CHECK(f->slope_after == close(11.0 / 6));
    CHECK(f->intercept_after == close(7.0 / 6 - 2 * 11.0 / 6));
    CHECK(f->y_at_break == close(7.0 / 6));
    CHECK(f->points == 4);
    // numpy: lstsq at c = 2 gives sse 0.16666666666666669, beta (1/6, 1/2, 4/3); polyfit's line 0.7.
    CHECK(f->sse_one_line == close(0.7000000000000004));
}

TEST_CASE("two segments: a break between points is where the lines fitted apart cross (by hand)") {
    // y = min(2x, 9) at x = 0 … 8: the rising line 2x and the plateau 9 meet at x = 4.5, between
    // the points 4 and 5; both are fitted exactly, so the sum of squares is 0.
    vec x, y;
    for (int i = 0; i <= 8; ++i) {
        x.push_back(i);
        y.push_back(std::min(2.0 * i, 9.0));
    }
    const auto f = fit_two_segments(x, y);
    REQUIRE(f);
    CHECK(f->breakpoint == close(4.5));
    CHECK_FALSE(f->at_point);
    CHECK(f->sse == Approx(0).margin(1e-20));
    CHECK(f->slope_before == close(2));
    CHECK(f->slope_after == Approx(0).margin(1e-12));
    CHECK(f->y_at_break == close(9));
    CHECK(f->sse_one_line == close(13.888888888888896)); // numpy polyfit(x, y, 1)
}

TEST_CASE("two segments: Experiment 3's throughput against log2 concurrency (numpy)") {
    const auto f = fit_two_segments(log2_of(concurrency), exp3_rps);
    REQUIRE(f);
    // numpy: c = 3.9067945317986674 (2^c = 14.999), sse 0.041696540193326415, beta (1.2370227000000011,
    // 1.2000082000000005, b_after − b), slope after −0.007875028955013796, y(c) 5.925208173873564,
    // one line 2.3172048645852787.
    CHECK(f->breakpoint == close(3.9067945317986674));
    CHECK(std::exp2(f->breakpoint) == Approx(14.999001237868054).epsilon(1e-9));
    CHECK_FALSE(f->at_point);
    CHECK(f->sse == close(0.041696540193326415));
    CHECK(f->intercept_before == close(1.2370227000000011));
    CHECK(f->slope_before == close(1.2000082000000005));
    CHECK(f->slope_after == Approx(-0.007875028955013796).epsilon(1e-8));
    CHECK(f->y_at_break == close(5.925208173873564));
    CHECK(f->sse_one_line == close(2.3172048645852787));
}

TEST_CASE("two segments: Experiment 3 on a linear axis, and the bundled live sweep (numpy)") {
    const auto linear = fit_two_segments(concurrency, exp3_rps);
    REQUIRE(linear);
    // numpy: c = 9.716067385522907, sse 0.4279094322635825, slopes 0.48680288695652285 and
    // −0.0008547874999999538, y(c) 5.941333827049701.
    CHECK(linear->breakpoint == close(9.716067385522907));
    CHECK(linear->sse == close(0.4279094322635825));
    CHECK(linear->slope_before == close(0.48680288695652285));
    CHECK(linear->slope_after == Approx(-0.0008547874999999538).epsilon(1e-7));
    CHECK(linear->y_at_break == close(5.941333827049701));

    const auto live = fit_two_segments(log2_of(concurrency), live_bad_rps);
    REQUIRE(live);
    // numpy: c = 3.6310963035944424 (2^c = 12.38993147775385), sse 4.1689679998406595, slopes
    // 18.224735976429375 and 6.50460536794631, y(c) 95.65725722765143, one line 226.31049211658564.
    CHECK(live->breakpoint == close(3.6310963035944424));
    CHECK(live->sse == close(4.1689679998406595));
    CHECK(live->intercept_before == close(29.481485789654077));
    CHECK(live->slope_before == close(18.224735976429375));
    CHECK(live->slope_after == close(6.50460536794631));
    CHECK(live->y_at_break == close(95.65725722765143));
    CHECK(live->sse_one_line == close(226.31049211658564));
}

TEST_CASE("two segments: input rules") {
    SECTION("fewer than four distinct x: no fit") {
        CHECK_FALSE(fit_two_segments(vec{1, 2, 4}, vec{1, 2, 2}));
        CHECK_FALSE(fit_two_segments(vec{1, 2, 2, 4}, vec{1, 2, 3, 2})); // three distinct
        CHECK_FALSE(fit_two_segments(vec{}, vec{}));
    }
    SECTION("a straight line breaks at x1 with equal slopes") {
        const auto f = fit_two_segments(vec{0, 1, 2, 3, 4}, vec{1, 3, 5, 7, 9});
        REQUIRE(f);
        CHECK(f->breakpoint == 1);
        CHECK(f->slope_before == close(2));
        CHECK(f->slope_after == close(2));
        CHECK(f->sse == Approx(0).margin(1e-20));
    }
    SECTION("any order of x; a repeated x is the mean of its y") {
        const auto sorted = fit_two_segments(vec{0, 1, 2, 3}, vec{0, 1, 1, 3});
        const auto shuffled = fit_two_segments(vec{3, 1, 2, 0, 2}, vec{3, 1, 0.5, 0, 1.5});
        REQUIRE(sorted);
        REQUIRE(shuffled);
        CHECK(shuffled->breakpoint == sorted->breakpoint);
        CHECK(shuffled->sse == close(sorted->sse));
        CHECK(shuffled->points == 4);
    }
    SECTION("non-finite values and unequal lengths are refused, naming the index") {
        CHECK_THROWS_WITH(fit_two_segments(vec{1, 2, std::nan(""), 4}, vec{1, 2, 3, 4}), Contains("x[2]"));
        CHECK_THROWS_WITH(fit_two_segments(vec{1, 2, 3}, vec{1, 2}), Contains("x has 3 values but y has 2"));
    }
}

} // namespace test_two_segment
