// Tests for servestat/sweep/kneedle.hpp: Kneedle with kneed 0.8.6's semantics.
// Expected values come from three places, each named at its test: derivations by hand written out
// in the comments, the assertions of kneed's own test suite (arvkevi/kneed tests/test_sample.py,
// data from kneed/data_generator.py), and numpy 1.24 (Debian's python3-numpy) run by hand with
// the command quoted.
#include "servestat/sweep/kneedle.hpp"

#include <cmath>      // std::sin, std::nan, HUGE_VAL
#include <cstddef>    // std::size_t
#include <fstream>    // std::ifstream
#include <vector>     // std::vector

#include <catch2/catch.hpp> // TEST_CASE, REQUIRE, CHECK, Approx

namespace test_kneedle { // the unity build compiles several test files as one: each keeps its names

namespace {

using servestat::find_knee;
using servestat::find_shape;
using servestat::knee_curve;
using servestat::knee_direction;
using servestat::knee_interp;
using servestat::knee_result;
using servestat::kneedle_options;
using servestat::usage_error;
using Catch::Matchers::Contains;

using vec = std::vector<double>;

constexpr knee_curve concave = knee_curve::concave;
constexpr knee_curve convex = knee_curve::convex;
constexpr knee_direction increasing = knee_direction::increasing;
constexpr knee_direction decreasing = knee_direction::decreasing;

kneedle_options shape(knee_curve c, knee_direction d, double S = 1.0) {
    kneedle_options o;
    o.curve = c;
    o.direction = d;
    o.S = S;
    return o;
}

kneedle_options with_interp(kneedle_options o, knee_interp interp) {
    o.interp = interp;
    return o;
}

kneedle_options online(kneedle_options o) {
    o.online = true;
    return o;
}

// The seed notebook's Experiment 3 (tests/data/sweep/bad_unfair_exp3.csv): concurrency, rps, p99.
const vec concurrency{1, 2, 4, 8, 16, 32, 48, 64};
const vec exp3_rps{1.310728, 2.350512, 3.588961, 4.897939, 5.902047, 5.912537, 6.029853, 5.817353};
const vec exp3_p99{1.302439, 1.788700, 2.692315, 3.694609, 6.204649, 9.536481, 13.755477, 21.667766};

// kneed's DataGenerator (kneed/data_generator.py).
const vec ten{0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
const vec concave_increasing_y{0, 60, 80, 85, 90, 95, 96, 97, 98, 99};
const vec concave_decreasing_y{99, 98, 97, 96, 95, 90, 85, 80, 60, 0};
const vec convex_increasing_y{1, 2, 3, 4, 5, 10, 15, 20, 40, 100};
const vec convex_decreasing_y{100, 40, 20, 15, 10, 5, 4, 3, 2, 1};
const vec bumpy_y{
    7305.0, 6979.0, 6666.6, 6463.2, 6326.5, 6048.8, 6032.8, 5762.0, 5742.8, 5398.2, 5256.8, 5227.0, 5001.7,
    4942.0, 4854.2, 4734.6, 4558.7, 4491.1, 4411.6, 4333.0, 4234.6, 4139.1, 4056.8, 4022.5, 3868.0, 3808.3,
    3745.3, 3692.3, 3645.6, 3618.3, 3574.3, 3504.3, 3452.4, 3401.2, 3382.4, 3340.7, 3301.1, 3247.6, 3190.3,
    3180.0, 3154.2, 3089.5, 3045.6, 2989.0, 2993.6, 2941.3, 2875.6, 2866.3, 2834.1, 2785.1, 2759.7, 2763.2,
    2720.1, 2660.1, 2690.2, 2635.7, 2632.9, 2574.6, 2556.0, 2545.7, 2513.4, 2491.6, 2496.0, 2466.5, 2442.7,
    2420.5, 2381.5, 2388.1, 2340.6, 2335.0, 2318.9, 2319.0, 2308.2, 2262.2, 2235.8, 2259.3, 2221.0, 2202.7,
    2184.3, 2170.1, 2160.0, 2127.7, 2134.7, 2102.0, 2101.4, 2066.4, 2074.3, 2063.7, 2048.1, 2031.9};

vec range(std::size_t from, std::size_t to) {
    vec out;
    for (std::size_t i = from; i < to; ++i) out.push_back(static_cast<double>(i));
    return out;
}

vec scaled(vec v, double by, std::size_t drop_last = 0) {
    v.resize(v.size() - drop_last);
    for (double& e : v) e /= by;
    return v;
}

// DataGenerator.figure2: x = np.linspace(0, 1, 10) (i * (1/9), the last one exactly 1), y = 5 - 1/(x + 0.1).
vec figure2_x() {
    vec x;
    for (int i = 0; i < 9; ++i) x.push_back(i * (1.0 / 9));
    x.push_back(1.0);
    return x;
}

vec figure2_y() {
    vec y;
    for (double x : figure2_x()) y.push_back(-1 / (x + 0.1) + 5);
    return y;
}

vec gamma_seed23() {
    std::ifstream in(SERVESTAT_TEST_DATA_DIR "/kneedle/gamma_seed23.txt");
    vec y;
    for (double v; in >> v;) y.push_back(v);
    return y;
}

} // namespace

// ---------------------------------------------------------------------------------------------
// The four shapes by hand. x = 10, 20, 30, 40, 50 normalises to xn = 0, .25, .5, .75, 1 and every
// y below normalises to multiples of 1/16, so all arithmetic is exact in binary.
// Threshold drop = S * mean(diff(xn)) = 1 * 0.25.

// concave increasing, y = 0 6 7 7.5 8: yn = y/8 = 0 .75 .875 .9375 1;
// difference d = yn - xn = 0 .5 .375 .1875 0. Local maxima (>= both neighbours, ends clipped): 1.
// Threshold at 1: .5 - .25 = .25. Scan: i=1 arms .25; d[2] = .375 is not below; i=2: d[3] = .1875
// is: knee at index 1 → x = 20, y = 6, norm_knee = xn[1] = .25, norm_knee_y = yn[1] = .75.
TEST_CASE("concave increasing: the knee is the last point before the difference curve falls by S steps") {
    const knee_result k = find_knee(vec{10, 20, 30, 40, 50}, vec{0, 6, 7, 7.5, 8}, shape(concave, increasing));
    CHECK(k.knee == 20);
    CHECK(k.knee_y == 6);
    CHECK(k.norm_knee == 0.25);
    CHECK(k.norm_knee_y == 0.75);
    CHECK(k.all_knees == vec{20});
    CHECK(k.curve == concave);
    CHECK(k.direction == increasing);
    CHECK(k.points == 5);
}

// concave decreasing, y = 8 7.5 7 6 0: yn = 1 .9375 .875 .75 0; kneed flips it: 0 .75 .875 .9375 1,
// the same difference curve as above, so the maximum is index 1 of the flipped curve. kneed maps
// the knee back as x[-(1+1)] = x[3] = 40 (y 6) but leaves norm_knee = xn[1] = .25 unmirrored and
// norm_knee_y = .75 in the flipped frame.
TEST_CASE("concave decreasing: kneed's mirrored index gives the knee, norm_knee stays unmirrored") {
    const knee_result k = find_knee(vec{10, 20, 30, 40, 50}, vec{8, 7.5, 7, 6, 0}, shape(concave, decreasing));
    CHECK(k.knee == 40);
    CHECK(k.knee_y == 6);
    CHECK(k.norm_knee == 0.25);
    CHECK(k.norm_knee_y == 0.75);
}

// convex increasing, y = 0 .5 1 2 8: yn = 0 .0625 .125 .25 1; kneed takes max - yn = 1 .9375 .875
// .75 0 and flips it: 0 .75 .875 .9375 1 — the same difference curve again. Mirrored back:
// x[-(1+1)] = 40, y = 2; norm_knee .25, norm_knee_y .75.
TEST_CASE("convex increasing: the elbow comes back through the mirrored index") {
    const knee_result k = find_knee(vec{10, 20, 30, 40, 50}, vec{0, 0.5, 1, 2, 8}, shape(convex, increasing));
    CHECK(k.knee == 40);
    CHECK(k.knee_y == 2);
    CHECK(k.norm_knee == 0.25);
    CHECK(k.norm_knee_y == 0.75);
}

// convex decreasing, y = 8 2 1 .5 0: yn = 1 .25 .125 .0625 0; max - yn = 0 .75 .875 .9375 1, not
// flipped, so the knee index is used as is: x[1] = 20, y = 2.
TEST_CASE("convex decreasing: the elbow is read at its own index") {
    const knee_result k = find_knee(vec{10, 20, 30, 40, 50}, vec{8, 2, 1, 0.5, 0}, shape(convex, decreasing));
    CHECK(k.knee == 20);
    CHECK(k.knee_y == 2);
    CHECK(k.norm_knee == 0.25);
    CHECK(k.norm_knee_y == 0.75);
}

// ---------------------------------------------------------------------------------------------
// Experiment 3 of the seed notebook.
//
// rps vs concurrency, concave increasing. xn = (x - 1)/63 = 0, 1/63, 3/63, 7/63, 15/63, 31/63,
// 47/63, 1 ≈ 0 .0159 .0476 .1111 .2381 .4921 .7460 1. yn = (y - 1.310728)/4.719125 ≈ 0 .2203
// .4828 .7601 .9729 .9751 1 .9550. d = yn - xn ≈ 0 .2045 .4351 .6490 .7348 .4831 .2540 -.0450.
// Local maxima: index 4 only (.7348 >= .6490 and >= .4831). Threshold = .7348 - 1/7 = .5920
// (mean(diff(xn)) = 1/(n-1) = 1/7). d[5] = .4831 < .5920 at once: knee at index 4 → 16, y 5.902047,
// norm_knee 15/63, norm_knee_y = 4.591319/4.719125.
TEST_CASE("Experiment 3: throughput saturates at concurrency 16") {
    const knee_result k = find_knee(concurrency, exp3_rps, shape(concave, increasing));
    CHECK(k.knee == 16);
    CHECK(k.knee_y == 5.902047);
    CHECK(*k.norm_knee == Approx(15.0 / 63).epsilon(1e-12));
    CHECK(*k.norm_knee_y == Approx(4.591319 / 4.719125).epsilon(1e-9));
}

// p99 vs concurrency, convex increasing. yn = (y - 1.302439)/20.365327 ≈ 0 .0239 .0682 .1175 .2407
// .4043 .6115 1; kneed takes 1 - yn and flips it: yt ≈ 0 .3885 .5957 .7593 .8825 .9318 .9761 1.
// d = yt - xn ≈ 0 .3726 .5481 .6482 .6444 .4397 .2301 0. Local maxima: index 3 (.6482 >= .5481 and
// >= .6444). Threshold .6482 - 1/7 = .5053; d[4] = .6444 is not below, d[5] = .4397 is: knee at
// flipped index 3, mirrored to x[-(3+1)] = x[4] = 16, y 6.204649; norm_knee = xn[3] = 7/63 (not
// mirrored), norm_knee_y = yt[3] = 1 - (6.204649 - 1.302439)/20.365327.
TEST_CASE("Experiment 3: the p99 elbow is at concurrency 16 through kneed's mirrored index") {
    const knee_result k = find_knee(concurrency, exp3_p99, shape(convex, increasing));
    CHECK(k.knee == 16);
    CHECK(k.knee_y == 6.204649);
    CHECK(*k.norm_knee == Approx(7.0 / 63).epsilon(1e-12));
    CHECK(*k.norm_knee_y == Approx(1 - 4.902210 / 20.365327).epsilon(1e-9));
}

// ---------------------------------------------------------------------------------------------
// kneed's own test suite (tests/test_sample.py) with its data and its expected values.

TEST_CASE("kneed test_figure2: the Kneedle paper's figure 2 has its knee at 0.22") {
    for (knee_interp interp : {knee_interp::interp1d, knee_interp::polynomial}) {
        const knee_result k = find_knee(figure2_x(), figure2_y(), with_interp(shape(concave, increasing), interp));
        REQUIRE(k.knee);
        CHECK(*k.knee == Approx(0.22).epsilon(0.05)); // kneed: math.isclose(kl.knee, 0.22, rel_tol=0.05)
        CHECK(*k.norm_knee == Approx(*k.knee).epsilon(0.05));
    }
}

TEST_CASE("kneed test_y: figure 2's knee has y 1.897 and normalised y 0.758") {
    const knee_result k = find_knee(figure2_x(), figure2_y(), shape(concave, increasing));
    CHECK(*k.knee_y == Approx(1.897).epsilon(0.03));
    CHECK(*k.norm_knee_y == Approx(0.758).epsilon(0.03));
}

TEST_CASE("kneed's four generated shapes: knees 2, 7, 7, 2 with either interpolation") {
    for (knee_interp interp : {knee_interp::interp1d, knee_interp::polynomial}) {
        CHECK(find_knee(ten, concave_increasing_y, with_interp(shape(concave, increasing), interp)).knee == 2);
        CHECK(find_knee(ten, concave_decreasing_y, with_interp(shape(concave, decreasing), interp)).knee == 7);
        CHECK(find_knee(ten, convex_increasing_y, with_interp(shape(convex, increasing), interp)).knee == 7);
        CHECK(find_knee(ten, convex_decreasing_y, with_interp(shape(convex, decreasing), interp)).knee == 2);
    }
}

// kneed: KneeLocator(x[:-3] / 10, y[:-3] / 10, ...) == 0.2, 0.4, 0.4, 0.2.
TEST_CASE("kneed's truncated shapes: knees 0.2, 0.4, 0.4, 0.2 with either interpolation") {
    const vec x = scaled(ten, 10, 3);
    for (knee_interp interp : {knee_interp::interp1d, knee_interp::polynomial}) {
        CHECK(find_knee(x, scaled(concave_increasing_y, 10, 3), with_interp(shape(concave, increasing), interp)).knee == 0.2);
        CHECK(find_knee(x, scaled(concave_decreasing_y, 10, 3), with_interp(shape(concave, decreasing), interp)).knee == 0.4);
        CHECK(find_knee(x, scaled(convex_increasing_y, 10, 3), with_interp(shape(convex, increasing), interp)).knee == 0.4);
        CHECK(find_knee(x, scaled(convex_decreasing_y, 10, 3), with_interp(shape(convex, decreasing), interp)).knee == 0.2);
    }
}

TEST_CASE("kneed test_convex_decreasing_bumpy: 26 as measured, 28 with the degree-7 polynomial") {
    const vec x = range(0, 90);
    CHECK(find_knee(x, bumpy_y, shape(convex, decreasing)).knee == 26);
    CHECK(find_knee(x, bumpy_y, with_interp(shape(convex, decreasing), knee_interp::polynomial)).knee == 28);
}

// kneed's test_all_knees: sorted(all_elbows) == [26, 31, 41, 46, 53] and sorted(all_norm_elbows) ==
// [0.29213.., 0.34831.., 0.46067.., 0.51685.., 0.59550..] (np.isclose), i.e. x/89 for x = 0..89:
// convex decreasing is not mirrored, so each normalised knee is its own x. all_knees_y is the
// measured y at each knee: bumpy_y at those indices.
TEST_CASE("kneed test_all_knees: online detection on the bumpy curve finds five elbows", "[kneedle]") {
    const knee_result k = find_knee(range(0, 90), bumpy_y, online(shape(convex, decreasing)));
    CHECK(k.all_knees == vec{26, 31, 41, 46, 53});
    const vec norm{0.2921348314606742, 0.348314606741573, 0.4606741573033708, 0.5168539325842696, 0.5955056179775281};
    REQUIRE(k.all_norm_knees.size() == norm.size());
    for (std::size_t i = 0; i < norm.size(); ++i) CHECK(k.all_norm_knees[i] == Approx(norm[i]).epsilon(1e-12));
    CHECK(k.all_knees_y == vec{bumpy_y[26], bumpy_y[31], bumpy_y[41], bumpy_y[46], bumpy_y[53]});
    REQUIRE(k.all_norm_knees_y.size() == 5);
    // convex decreasing: kneed's transformed yn is max - yn = 1 - (y - min)/(max - min).
    const double lo = 2031.9, hi = 7305.0;
    CHECK(k.all_norm_knees_y[0] == Approx(1 - (bumpy_y[26] - lo) / (hi - lo)).epsilon(1e-12));
    CHECK(k.all_norm_knees_y[4] == Approx(1 - (bumpy_y[53] - lo) / (hi - lo)).epsilon(1e-12));
}

// kneed test_y: all_knees_y[0] ≈ 1.897 and all_norm_knees_y[0] ≈ 0.758 (rel_tol 0.03), offline.
TEST_CASE("kneed test_y: the all-knees lists hold the first knee's y offline", "[kneedle]") {
    const knee_result k = find_knee(figure2_x(), figure2_y(), shape(concave, increasing));
    REQUIRE(k.all_knees_y.size() == 1);
    CHECK(k.all_knees_y[0] == Approx(1.897).epsilon(0.03));
    REQUIRE(k.all_norm_knees_y.size() == 1);
    CHECK(k.all_norm_knees_y[0] == Approx(0.758).epsilon(0.03));
    CHECK(k.all_norm_knees == vec{*k.norm_knee});
}

// Experiment 3's p99, convex increasing, online: the flipped difference curve (derived above)
// peaks at index 3 and every later point falls below .5053, each a detection of that same index:
// one knee. all_knees holds the mirrored x (16, y 6.204649); all_norm_knees, like norm_knee, the
// unmirrored xn[3] = 7/63, with all_norm_knees_y the flipped yt[3].
TEST_CASE("all_norm_knees keeps kneed's unmirrored index for a convex increasing curve", "[kneedle]") {
    const knee_result k = find_knee(concurrency, exp3_p99, online(shape(convex, increasing)));
    CHECK(k.all_knees == vec{16});
    CHECK(k.all_knees_y == vec{6.204649});
    REQUIRE(k.all_norm_knees.size() == 1);
    CHECK(k.all_norm_knees[0] == Approx(7.0 / 63).epsilon(1e-12));
    CHECK(k.all_norm_knees_y[0] == Approx(1 - 4.902210 / 20.365327).epsilon(1e-9));
}

TEST_CASE("kneed test_sine: online knees of sin(x) for the four shapes are 4.5, 4.9, 7.7, 1.8") {
    vec x, y;
    for (int i = 0; i < 100; ++i) { // np.arange(0, 10, 0.1)
        x.push_back(i * 0.1);
        y.push_back(std::sin(i * 0.1));
    }
    CHECK(*find_knee(x, y, online(shape(convex, decreasing))).knee == Approx(4.5));
    CHECK(*find_knee(x, y, online(shape(convex, increasing))).knee == Approx(4.9));
    CHECK(*find_knee(x, y, online(shape(concave, increasing))).knee == Approx(7.7));
    CHECK(*find_knee(x, y, online(shape(concave, decreasing))).knee == Approx(1.8));
}

TEST_CASE("kneed test_flat_maxima: S = 0 stops at the first local maximum, S = 1 reaches the global one") {
    const vec x = range(0, 18);
    const vec y{1, 0.787701317715959, 0.7437774524158126, 0.6559297218155198, 0.5065885797950219,
                0.36749633967789164, 0.2547584187408492, 0.16251830161054173, 0.10395314787701318,
                0.06734992679355783, 0.043923865300146414, 0.027818448023426062, 0.01903367496339678,
                0.013177159590043924, 0.010248901903367497, 0.007320644216691069, 0.005856515373352855,
                0.004392386530014641};
    CHECK(*find_knee(x, y, shape(convex, decreasing, 0.0)).knee == Approx(1.0).epsilon(0.05));
    CHECK(*find_knee(x, y, shape(convex, decreasing, 1.0)).knee == Approx(8.0).epsilon(0.05));
}

TEST_CASE("kneed test_y_no_knee: three points of exp(-x/10) have no elbow, so no knee_y either") {
    const knee_result k = find_knee(vec{1, 2, 3}, vec{0.90483742, 0.81873075, 0.74081822}, shape(convex, decreasing));
    CHECK_FALSE(k.knee);
    CHECK_FALSE(k.knee_y);
    CHECK_FALSE(k.norm_knee);
    CHECK_FALSE(k.norm_knee_y);
    CHECK(k.all_knees.empty());
}

TEST_CASE("kneed test_x_equals_y: a constant y has no knee") {
    CHECK_FALSE(find_knee(range(0, 10), vec(10, 1.0)).knee);
}

// tests/data/kneedle/gamma_seed23.txt is kneed's np.random.seed(23) gamma sample (see its README).
TEST_CASE("kneed test_gamma_online_offline: 1000 sorted gamma draws, elbow 22 offline and 482 online") {
    const vec y = gamma_seed23();
    REQUIRE(y.size() == 1000);
    const vec x = range(1, 1001);
    CHECK(find_knee(x, y, shape(convex, decreasing)).knee == 22);
    const knee_result k = find_knee(x, y, online(shape(convex, decreasing)));
    CHECK(k.knee == 482);
    CHECK(k.all_knees.size() > 1);
    CHECK(k.all_knees.front() == 22);
    CHECK(k.all_knees.back() == 482);
}

// kneed's test_sensitivity lists 43, 137, 178, 258, 305, 482, 482 for S = 1, 3, 5, 10, 100, 200, 400
// but asserts only that a knee exists (`assert kl.knee, expected`). Its first value contradicts
// kneed's own test_gamma_online_offline (offline S = 1 → 22, above); the others are what kneed's
// authors recorded, and they grow with S as Kneedle's definition of S says they must.
TEST_CASE("kneed test_sensitivity: a larger S gives a later elbow on the gamma sample") {
    const vec y = gamma_seed23();
    const vec x = range(1, 1001);
    const vec S{3, 5, 10, 100, 200, 400};
    const vec expected{137, 178, 258, 305, 482, 482};
    for (std::size_t i = 0; i < S.size(); ++i) {
        INFO("S = " << S[i]);
        CHECK(find_knee(x, y, shape(convex, decreasing, S[i])).knee == expected[i]);
    }
}

// ---------------------------------------------------------------------------------------------
// S, online, and the pause after a local minimum.

// The concave-increasing curve by hand (d = 0 .5 .375 .1875 0, maximum .5 at index 1, one step
// .25): S = 1.5 sets the threshold to .5 - .375 = .125, first crossed by d[4] = 0: the same knee,
// found two points later. S = 2 sets it to 0, and nothing is below 0: no knee.
TEST_CASE("a larger S needs more flat points after the knee, and may find none") {
    const vec x{10, 20, 30, 40, 50}, y{0, 6, 7, 7.5, 8};
    CHECK(find_knee(x, y, shape(concave, increasing, 1.5)).knee == 20);
    CHECK_FALSE(find_knee(x, y, shape(concave, increasing, 2.0)).knee);
}

// A staircase with two knees. x = 0..8, xn = i/8, y = 0 8 8 8 14 14 14 15 16, yn = y/16;
// d = yn - xn = 0 .375 .25 .125 .375 .25 .125 .0625 0. Maxima: 1 and 4; minima: 0, 3, 8.
// Thresholds .375 - 1/8 = .25 at both. Scan: i=1 arms .25, d[2] = .25 is not below, d[3] = .125 is:
// knee x = 1 (offline stops here). i=3 is a minimum: detection pauses. i=4 arms .25 again; d[6] =
// .125 < .25: knee x = 4, which online mode keeps as the final knee.
TEST_CASE("online mode keeps scanning: the last knee wins and all_knees has both") {
    const vec x = range(0, 9), y{0, 8, 8, 8, 14, 14, 14, 15, 16};
    const knee_result first = find_knee(x, y, shape(concave, increasing));
    CHECK(first.knee == 1);
    CHECK(first.knee_y == 8);
    CHECK(first.all_knees == vec{1});
    const knee_result last = find_knee(x, y, online(shape(concave, increasing)));
    CHECK(last.knee == 4);
    CHECK(last.knee_y == 14);
    CHECK(last.norm_knee == 0.5);
    CHECK(last.all_knees == vec{1, 4});
    // yn = y/16 at the two knees: 8/16 and 14/16; xn = 1/8 and 4/8.
    CHECK(last.all_knees_y == vec{8, 14});
    CHECK(last.all_norm_knees == vec{0.125, 0.5});
    CHECK(last.all_norm_knees_y == vec{0.5, 0.875});
}

// kneed 0.8.6 ("pause after local minima per the Kneedle algorithm specification"). x = 0..8,
// y = 0 12 12 8 12 16 22 27 32, yn = y/32, d = yn - xn = 0 .25 .125 -.125 -.125 -.125 -.0625
// -.03125 0. Maxima: 1, 4 (flat: equal to both neighbours) and 8; minima: 0, 3, 4, 5. With S = 4 the
// threshold of index 1 is .25 - 4/8 = -.25: d[2], d[3] stay above it. i=3 is a minimum: threshold
// 0 but detection paused (kneed 0.8.5 would have compared d[4] = -.125 < 0 and declared x = 1).
// i=4 is a maximum and a minimum (kneed handles the minimum last: paused; armed, its threshold
// -.625 would not be crossed either); i=5 is a minimum; no maximum follows before the end. No
// knee, offline or online.
TEST_CASE("a local minimum pauses detection until the next local maximum, a flat point included") {
    const vec x = range(0, 9), y{0, 12, 12, 8, 12, 16, 22, 27, 32};
    CHECK_FALSE(find_knee(x, y, shape(concave, increasing, 4.0)).knee);
    CHECK_FALSE(find_knee(x, y, online(shape(concave, increasing, 4.0))).knee);
}

// x = 0..4, y = 4 0 1 2 3: yn = 1 0 .25 .5 .75, d = 1 -.25 -.25 -.25 -.25. Index 0 is a maximum
// (clipped: 1 >= 1 and 1 >= -.25), threshold 1 - .25 = .75, d[1] < .75: knee x[0] = 0. kneed
// computes knee_y only `if self.knee:` and so reports None for a knee at 0; servestat reports 4.
TEST_CASE("a knee at x = 0 still has its y (kneed would report none)") {
    const knee_result k = find_knee(range(0, 5), vec{4, 0, 1, 2, 3}, shape(concave, increasing));
    CHECK(k.knee == 0);
    CHECK(k.knee_y == 4);
    CHECK(k.norm_knee == 0);
    CHECK(k.norm_knee_y == 1);
}

// ---------------------------------------------------------------------------------------------
// Polynomial mode.

// Reference values: /usr/bin/python3 -c 'import numpy as np; x=[1,2,4,8,16,32,48,64];
//   y=[...exp3_rps...]; print(list(np.poly1d(np.polyfit(x, y, 2))(x)))' (and degree 3, and p99).
TEST_CASE("polynomial fits evaluate like np.poly1d(np.polyfit(x, y, degree))(x)") {
    using servestat::detail::polynomial_fit_values;
    const vec rps2{2.50118232831653,  2.7098948887766765, 3.111563786248752,  3.8518766874000376,
                   5.080402914531142, 6.529057068107485,  6.633180154102674,  5.3927721725167075};
    const vec rps3{1.9284834476262942, 2.3553453452727933, 3.1346828554937574, 4.414128673102982,
                   6.00263099663407,   6.470298394094471,  5.558316119986148,  5.946044167789471};
    const vec p99_2{1.9251468417634692, 2.117736910221225, 2.5137318650806018, 3.3489810465748135,
                    5.192516496665071,  9.571735745252928, 14.873819458383904, 21.098767636057996};
    const vec p99_3{1.3453290788045562, 1.758780170294023,  2.5371383138502877, 3.9182220553516762,
                    6.126208252546181,  9.51224667679239,   13.785594422924948, 21.658917029435948};
    const auto check_fit = [](const vec& y, int degree, const vec& expected) {
        const vec fitted = polynomial_fit_values(concurrency, y, degree);
        REQUIRE(fitted.size() == expected.size());
        for (std::size_t i = 0; i < fitted.size(); ++i) CHECK(fitted[i] == Approx(expected[i]).epsilon(1e-9));
    };
    check_fit(exp3_rps, 2, rps2);
    check_fit(exp3_rps, 3, rps3);
    check_fit(exp3_p99, 2, p99_2);
    check_fit(exp3_p99, 3, p99_3);
}

TEST_CASE("a polynomial of degree >= n - 1 interpolates: the data come back unchanged") {
    using servestat::detail::polynomial_fit_values;
    CHECK(polynomial_fit_values(concurrency, exp3_rps, 7) == exp3_rps);
    CHECK(polynomial_fit_values(concurrency, exp3_rps, 12) == exp3_rps);
}

TEST_CASE("a degree-0 polynomial is the mean: a constant curve, so no knee") {
    kneedle_options o = with_interp(shape(concave, increasing), knee_interp::polynomial);
    o.polynomial_degree = 0;
    CHECK_FALSE(find_knee(concurrency, exp3_rps, o).knee);
}

TEST_CASE("Experiment 3 with the default degree 7 on 8 points interpolates, so both knees stay at 16") {
    CHECK(find_knee(concurrency, exp3_rps, with_interp(shape(concave, increasing), knee_interp::polynomial)).knee == 16);
    CHECK(find_knee(concurrency, exp3_p99, with_interp(shape(convex, increasing), knee_interp::polynomial)).knee == 16);
}

// ---------------------------------------------------------------------------------------------
// Automatic shape detection (kneed's find_shape). Expected signs from numpy: slope = np.polyfit(x,
// y, 1)[0]; q = mean(y[a:b]) - mean(slope*x[a:b] + intercept) with a = int(0.2n), b = int(0.8n).

TEST_CASE("find_shape: figure 2 is increasing and concave, as kneed's documentation shows") {
    // numpy: slope 6.602, q 0.918
    const auto s = find_shape(figure2_x(), figure2_y());
    CHECK(s.direction == increasing);
    CHECK(s.curve == concave);
}

TEST_CASE("find_shape: kneed's four generated shapes are recognised") {
    // numpy: slope ±7.758, q ±10.5 with the signs of each shape.
    CHECK(find_shape(ten, concave_increasing_y).curve == concave);
    CHECK(find_shape(ten, concave_increasing_y).direction == increasing);
    CHECK(find_shape(ten, concave_decreasing_y).curve == concave);
    CHECK(find_shape(ten, concave_decreasing_y).direction == decreasing);
    CHECK(find_shape(ten, convex_increasing_y).curve == convex);
    CHECK(find_shape(ten, convex_increasing_y).direction == increasing);
    CHECK(find_shape(ten, convex_decreasing_y).curve == convex);
    CHECK(find_shape(ten, convex_decreasing_y).direction == decreasing);
}

// numpy: rps slope 0.0563, q 0.587; p99 slope 0.297, q 0.0191 — on doubling concurrencies the
// middle of the p99 curve (x = 2..32) lies above the straight line, so kneed calls it concave.
TEST_CASE("find_shape: Experiment 3's rps is concave increasing, and so, narrowly, is its p99") {
    CHECK(find_shape(concurrency, exp3_rps).curve == concave);
    CHECK(find_shape(concurrency, exp3_rps).direction == increasing);
    CHECK(find_shape(concurrency, exp3_p99).curve == concave);
    CHECK(find_shape(concurrency, exp3_p99).direction == increasing);
}

TEST_CASE("find_knee detects a missing curve or direction and reports the shape it used") {
    const knee_result k = find_knee(concurrency, exp3_rps);
    CHECK(k.curve == concave);
    CHECK(k.direction == increasing);
    CHECK(k.knee == 16);
    kneedle_options only_curve;
    only_curve.curve = convex; // direction detected: increasing
    const knee_result e = find_knee(concurrency, exp3_p99, only_curve);
    CHECK(e.curve == convex);
    CHECK(e.direction == increasing);
    CHECK(e.knee == 16);
}

TEST_CASE("find_shape needs two distinct x values") {
    CHECK_THROWS_AS(find_shape(vec{1}, vec{2}), usage_error);
    CHECK_THROWS_AS(find_shape(vec{1, 1}, vec{2, 3}), usage_error);
}

// ---------------------------------------------------------------------------------------------
// Input rules.

TEST_CASE("a straight line has no knee, on even and on uneven x") {
    vec y;
    for (double x : ten) y.push_back(2 * x + 1);
    CHECK_FALSE(find_knee(ten, y, shape(concave, increasing)).knee);
    CHECK_FALSE(find_knee(ten, y, shape(convex, increasing)).knee);
    CHECK_FALSE(find_knee(concurrency, scaled(concurrency, 1.0 / 3), shape(concave, increasing)).knee);
    CHECK_FALSE(find_knee(concurrency, scaled(concurrency, -2.0), shape(convex, decreasing)).knee);
}

TEST_CASE("a constant y has no knee for any shape") {
    for (knee_curve c : {concave, convex})
        for (knee_direction d : {increasing, decreasing}) CHECK_FALSE(find_knee(concurrency, vec(8, 5.0), shape(c, d)).knee);
}

TEST_CASE("fewer than three points have no knee") {
    CHECK_FALSE(find_knee(vec{}, vec{}).knee);
    CHECK_FALSE(find_knee(vec{1}, vec{1}).knee);
    const knee_result two = find_knee(vec{1, 2}, vec{1, 5}, shape(concave, increasing, 0.0));
    CHECK_FALSE(two.knee);
    CHECK(two.points == 2);
}

// x = 0 1 2, y = 0 1 1: xn = 0 .5 1, yn = 0 1 1, d = 0 .5 0; maximum at 1; one step is .5.
// S = 1: threshold 0, d[2] = 0 is not below: no knee. S = .5: threshold .25, d[2] < .25: knee 1.
TEST_CASE("three points can have a knee when S allows it") {
    CHECK_FALSE(find_knee(vec{0, 1, 2}, vec{0, 1, 1}, shape(concave, increasing, 1.0)).knee);
    CHECK(find_knee(vec{0, 1, 2}, vec{0, 1, 1}, shape(concave, increasing, 0.5)).knee == 1);
}

TEST_CASE("unsorted x is sorted together with y") {
    const vec x{32, 1, 64, 8, 16, 2, 48, 4};
    const vec y{5.912537, 1.310728, 5.817353, 4.897939, 5.902047, 2.350512, 6.029853, 3.588961};
    const knee_result k = find_knee(x, y, shape(concave, increasing));
    CHECK(k.knee == 16);
    CHECK(k.knee_y == 5.902047);
    CHECK(k.points == 8);
}

// Two runs at concurrency 16 with rps 5.802047 and 6.002047 average to 5.902047: the curve is
// Experiment 3's again, with one point per concurrency.
TEST_CASE("a repeated x becomes one point with the mean y") {
    const vec x{1, 2, 4, 8, 16, 16, 32, 48, 64};
    const vec y{1.310728, 2.350512, 3.588961, 4.897939, 5.802047, 6.002047, 5.912537, 6.029853, 5.817353};
    const knee_result k = find_knee(x, y, shape(concave, increasing));
    CHECK(k.points == 8);
    CHECK(k.knee == 16);
    CHECK(*k.knee_y == Approx(5.902047).epsilon(1e-12));
}

TEST_CASE("bad input is a usage error that names the value") {
    const double nan = std::nan("");
    CHECK_THROWS_WITH(find_knee(vec{1, 2, 3}, vec{1, 2}), Contains("x has 3 values but y has 2"));
    CHECK_THROWS_WITH(find_knee(vec{1, 2, nan, 4}, vec{1, 2, 3, 4}), Contains("x[2] is nan"));
    CHECK_THROWS_WITH(find_knee(vec{1, 2, 3, 4}, vec{1, 2, 3, HUGE_VAL}), Contains("y[3] is inf"));
    CHECK_THROWS_AS(find_knee(vec{1, 2, 3, 4}, vec{1, -HUGE_VAL, 3, 4}), usage_error);
    CHECK_THROWS_WITH(find_shape(vec{nan}, vec{1}), Contains("x[0]"));
    CHECK_THROWS_WITH(find_knee(concurrency, exp3_rps, shape(concave, increasing, -1)), Contains("S must be"));
    CHECK_THROWS_AS(find_knee(concurrency, exp3_rps, shape(concave, increasing, nan)), usage_error);
    kneedle_options o;
    o.polynomial_degree = -1;
    CHECK_THROWS_WITH(find_knee(concurrency, exp3_rps, o), Contains("polynomial degree must be >= 0"));
}

TEST_CASE("curve, direction and interpolation names parse with kneed's spellings") {
    CHECK(servestat::parse_knee_curve("convex") == convex);
    CHECK(servestat::parse_knee_direction("decreasing") == decreasing);
    CHECK(servestat::parse_knee_interp("polynomial") == knee_interp::polynomial);
    CHECK(servestat::to_string(concave) == "concave");
    CHECK(servestat::to_string(increasing) == "increasing");
    CHECK(servestat::to_string(knee_interp::interp1d) == "interp1d");
    CHECK_THROWS_AS(servestat::parse_knee_curve("Concave"), usage_error);
    CHECK_THROWS_AS(servestat::parse_knee_interp("spline"), usage_error);
}

// numpy: np.sum(np.full(200, 0.1)) == 20.0, where a left-to-right sum gives 20.000000000000014.
TEST_CASE("the threshold's mean step is summed pairwise, like numpy") {
    CHECK(servestat::detail::numpy_pairwise_sum(vec(200, 0.1)) == 20.0);
    CHECK(servestat::detail::numpy_pairwise_sum(vec(5, 0.5)) == 2.5);
}

} // namespace test_kneedle
