// Tests for servestat/load/tune_search.hpp: the tune's planner on synthetic landscapes over a 5 × 7
// space (a = 1, 2, 4, 8, 16 by index i; b = 1, 2, 4, …, 64 by index j). Every expected configuration,
// value and interval is worked out by hand from the landscape in the comments, not read back from
// the planner: the spread of a 5 × 7 space is its centre (2, 3) and the corners of its quartile box,
// i ∈ {1, 3} × j ∈ {1, 5} (n = 5: third quartile round(0.75 · 4) = 3, first 4 − 3 = 1; n = 7:
// round(0.75 · 6) = round(4.5) = 5, first 6 − 5 = 1), in the grid's order.
#include "servestat/load/tune_search.hpp"

#include <algorithm>  // std::count_if, std::reverse
#include <cstddef>    // std::size_t
#include <functional> // std::function
#include <string>     // std::string
#include <utility>    // std::move
#include <vector>     // std::vector

#include <catch2/catch.hpp> // TEST_CASE, REQUIRE, CHECK, CHECK_THROWS_AS, Approx

namespace test_tune_search { // the unity build compiles several test files as one: each keeps its names

namespace {

using servestat::interval;
using servestat::usage_error;
using servestat::load::combine_runs;
using servestat::load::objective_direction;
using servestat::load::parse_space;
using servestat::load::plan_tune;
using servestat::load::tune_end;
using servestat::load::tune_measurement;
using servestat::load::tune_plan;
using servestat::load::tune_point;
using servestat::load::tune_settings;
using servestat::load::tune_space;
using servestat::load::tune_status;
using servestat::load::tune_step;
using Catch::Matchers::Contains;
using points = std::vector<tune_point>;

tune_space space_5x7() { return parse_space({"a=1..16", "b=1..64"}); }

tune_measurement feasible(const tune_point& at, double value, double half) {
    return {at, value, {value - half, value + half}, {}};
}

tune_measurement infeasible(const tune_point& at, std::string why) { return {at, std::nullopt, {}, std::move(why)}; }

// A synthetic server: the measurement of a configuration's run-th run (0 for its first).
using landscape = std::function<tune_measurement(const tune_point&, std::size_t run)>;

struct search_run {
    std::vector<tune_point> asked;
    std::vector<tune_step> steps;
    std::vector<tune_measurement> measured;
    tune_plan final;
};

std::size_t runs_of(const std::vector<tune_measurement>& measured, const tune_point& at) {
    return static_cast<std::size_t>(std::count_if(measured.begin(), measured.end(), [&](const auto& m) { return m.at == at; }));
}

// Runs the planner to its end with `budget` runs in all, measuring every proposal of a plan before
// asking again (or only its first, `one_at_a_time`); checks on the way that no plan asks for more
// than the budget left and that only a re-measurement runs a configuration again.
search_run run_search(const tune_space& space, const landscape& server, std::size_t budget, tune_settings s = {},
                      bool one_at_a_time = false) {
    search_run out;
    while (true) {
        REQUIRE(out.measured.size() <= budget);
        auto plan = plan_tune(space, out.measured, budget - out.measured.size(), s);
        if (plan.done()) {
            CHECK(plan.next.empty());
            out.final = std::move(plan);
            return out;
        }
        REQUIRE(!plan.next.empty());
        REQUIRE(plan.next.size() <= budget - out.measured.size());
        if (one_at_a_time) plan.next.resize(1);
        for (const auto& p : plan.next) {
            const auto before = runs_of(out.measured, p.at);
            CHECK((before == 0) == (p.step != tune_step::remeasure));
            out.asked.push_back(p.at);
            out.steps.push_back(p.step);
            out.measured.push_back(server(p.at, before));
        }
    }
}

const servestat::load::tune_verdict& verdict_at(const tune_plan& plan, const tune_point& at) {
    for (const auto& v : plan.verdicts)
        if (v.at == at) return v;
    FAIL("no verdict for the configuration");
    return plan.verdicts.front();
}

// 100 − 3(i − 4)² − 2(j − 6)², ±0.5: one peak, 100 at (4, 6), the grid's corner of largest a and b.
double peak(const tune_point& p) {
    const double i = static_cast<double>(p[0]), j = static_cast<double>(p[1]);
    return 100 - 3 * (i - 4) * (i - 4) - 2 * (j - 6) * (j - 6);
}

const landscape smooth = [](const tune_point& p, std::size_t) { return feasible(p, peak(p), 0.5); };

} // namespace

TEST_CASE("tune search: a smooth unimodal objective is climbed to the grid's best in 11 of 35 runs") {
    // Spread: (2,3) 70, (1,1) 23, (1,5) 71, (3,1) 47, (3,5) 95. The best, (3,5), has the neighbours
    // (2,5) 86, (4,5) 98, (3,4) 89, (3,6) 97; the new best (4,5) has (4,4) 92 and (4,6) 100 left
    // ((3,5) is measured, i = 5 lies outside); (4,6)'s neighbours (3,6) and (4,5) are measured. The
    // runner-up (4,5) at 98 ± 0.5 lies wholly below 100 ± 0.5: settled.
    const auto r = run_search(space_5x7(), smooth, 35);
    CHECK(r.asked == points{{2, 3}, {1, 1}, {1, 5}, {3, 1}, {3, 5}, {2, 5}, {4, 5}, {3, 4}, {3, 6}, {4, 4}, {4, 6}});
    CHECK(r.steps == std::vector<tune_step>{tune_step::spread, tune_step::spread, tune_step::spread, tune_step::spread,
                                            tune_step::spread, tune_step::refine, tune_step::refine, tune_step::refine,
                                            tune_step::refine, tune_step::refine, tune_step::refine});
    const auto& plan = r.final;
    CHECK(plan.end == tune_end::settled);
    CHECK(plan.measured == 11);
    CHECK(plan.grid == 35);
    REQUIRE(plan.best);
    CHECK(plan.verdicts[*plan.best].at == tune_point{4, 6});
    CHECK(plan.verdicts[*plan.best].name == "a16-b64");
    REQUIRE(plan.runner_up);
    CHECK(plan.verdicts[*plan.runner_up].at == tune_point{4, 5});
    CHECK(plan.distinguishable);
    CHECK_THAT(plan.conclusion, Contains("a16-b64 is the best at 100 (99.5–100.5), told apart from every other configuration"));
    CHECK_THAT(plan.conclusion, Contains("runner-up a16-b32 at 98 (97.5–98.5)"));
    CHECK_THAT(plan.conclusion, Contains("11 of 35 configurations measured"));
}

TEST_CASE("tune search: a configuration is dropped with its interval and the best's") {
    const auto& plan = run_search(space_5x7(), smooth, 35).final;
    const auto& runner = verdict_at(plan, {4, 5});
    CHECK(runner.status == tune_status::dropped);
    CHECK(runner.why == "its interval 97.5–98.5 lies wholly below the best's 99.5–100.5");
    const auto& worst = verdict_at(plan, {1, 1}); // 23 ± 0.5
    CHECK(worst.why == "its interval 22.5–23.5 lies wholly below the best's 99.5–100.5");
    CHECK(verdict_at(plan, {4, 6}).status == tune_status::best);
    for (const auto& v : plan.verdicts) CHECK(v.runs == 1);
}

TEST_CASE("tune search: a refinement says around which configuration it searches") {
    const auto space = space_5x7();
    std::vector<tune_measurement> measured;
    for (const tune_point& p : points{{2, 3}, {1, 1}, {1, 5}, {3, 1}, {3, 5}}) measured.push_back(smooth(p, 0));
    const auto plan = plan_tune(space, measured, 30);
    REQUIRE(plan.next.size() == 4);
    CHECK(plan.next[0].at == tune_point{2, 5});
    CHECK(plan.next[0].step == tune_step::refine);
    CHECK(plan.next[0].why == "refine around a8-b32, the best so far at 95 (94.5–95.5)"); // (3,5): a = 8, b = 32
    CHECK_THAT(plan.conclusion, Contains("a8-b32 leads so far at 95 (94.5–95.5)"));
}

TEST_CASE("tune search: measured one run at a time, the search walks the same peak with fewer runs") {
    // After the spread: (2,5) 86 leaves (3,5) the best, so its next neighbour (4,5) 98 is run; (4,5)
    // is the best, its first unmeasured neighbour (4,4) 92, then (4,6) 100; (4,6)'s neighbour (3,6)
    // 97 is still unmeasured; then none is: 10 runs.
    const auto r = run_search(space_5x7(), smooth, 35, {}, true);
    CHECK(r.asked == points{{2, 3}, {1, 1}, {1, 5}, {3, 1}, {3, 5}, {2, 5}, {4, 5}, {4, 4}, {4, 6}, {3, 6}});
    CHECK(r.final.end == tune_end::settled);
    REQUIRE(r.final.best);
    CHECK(r.final.verdicts[*r.final.best].at == tune_point{4, 6});
}

TEST_CASE("tune search: a lower-is-better objective finds the lowest and drops what lies above") {
    // Cost 200 − peak: the same path, 100 at (4, 6), 102 at (4, 5).
    const landscape cost = [](const tune_point& p, std::size_t) { return feasible(p, 200 - peak(p), 0.5); };
    const auto r = run_search(space_5x7(), cost, 35, {.direction = objective_direction::lower_is_better});
    CHECK(r.asked.size() == 11);
    REQUIRE(r.final.best);
    CHECK(r.final.verdicts[*r.final.best].at == tune_point{4, 6});
    CHECK(verdict_at(r.final, {4, 5}).why == "its interval 101.5–102.5 lies wholly above the best's 99.5–100.5");
}

TEST_CASE("tune search: the budget is respected exactly and the answer says it was spent") {
    // 7 runs: the spread's 5 and the first 2 of (3,5)'s neighbours, (2,5) 86 and (4,5) 98.
    const auto r = run_search(space_5x7(), smooth, 7);
    CHECK(r.measured.size() == 7);
    CHECK(r.asked == points{{2, 3}, {1, 1}, {1, 5}, {3, 1}, {3, 5}, {2, 5}, {4, 5}});
    CHECK(r.final.end == tune_end::budget);
    REQUIRE(r.final.best);
    CHECK(r.final.verdicts[*r.final.best].at == tune_point{4, 5});
    CHECK_THAT(r.final.conclusion, Contains("the budget is spent: a16-b32 leads at 98 (97.5–98.5)"));
}

TEST_CASE("tune search: a budget smaller than the spread runs the spread's first configurations") {
    const auto r = run_search(space_5x7(), smooth, 3);
    CHECK(r.asked == points{{2, 3}, {1, 1}, {1, 5}});
    CHECK(r.final.end == tune_end::budget);
    const auto none = run_search(space_5x7(), smooth, 0);
    CHECK(none.asked.empty());
    CHECK(none.final.end == tune_end::budget);
    CHECK_FALSE(none.final.best);
}

TEST_CASE("tune search: two leaders on a plateau are re-measured in turn until the budget ends, not told apart") {
    // A = (2,3), the centre, 50.5 ± 2 every run; B = (2,4) 50 ± 2; everything else 40 ± 2. Spread (5
    // runs) and A's neighbours (1,3), (3,3), (2,2), (2,4) (4 runs): B's [48, 52] overlaps A's [48.5,
    // 52.5]. Re-measurement takes the leader with fewer runs, the best on a tie (equal widths):
    // A, B, A, B, … 11 runs: A 7 runs, B 6. Identical values combine to ±2·√n / n: A ± 0.756 =
    // [49.74, 51.26], B ± 0.816 = [49.18, 50.82]: still overlapping when the budget of 20 ends.
    const landscape plateau = [](const tune_point& p, std::size_t) {
        if (p == tune_point{2, 3}) return feasible(p, 50.5, 2);
        if (p == tune_point{2, 4}) return feasible(p, 50, 2);
        return feasible(p, 40, 2);
    };
    const auto r = run_search(space_5x7(), plateau, 20);
    CHECK(r.measured.size() == 20);
    const points remeasured(r.asked.begin() + 9, r.asked.end());
    CHECK(remeasured == points{{2, 3}, {2, 4}, {2, 3}, {2, 4}, {2, 3}, {2, 4}, {2, 3}, {2, 4}, {2, 3}, {2, 4}, {2, 3}});
    const auto& plan = r.final;
    CHECK(plan.end == tune_end::budget);
    CHECK_FALSE(plan.distinguishable);
    REQUIRE(plan.best);
    REQUIRE(plan.runner_up);
    const auto& a = plan.verdicts[*plan.best];
    const auto& b = plan.verdicts[*plan.runner_up];
    CHECK(a.at == tune_point{2, 3});
    CHECK(b.at == tune_point{2, 4});
    CHECK(a.runs == 7);
    CHECK(b.runs == 6);
    CHECK(a.estimate->ci.low == Approx(49.744).margin(0.001));
    CHECK(b.estimate->ci.high == Approx(50.816).margin(0.001));
    CHECK(b.status == tune_status::kept);
    CHECK_THAT(b.why, Contains("overlaps the best's"));
    CHECK_THAT(plan.conclusion, Contains("not told apart from a4-b16"));
}

TEST_CASE("tune search: leaders are re-measured until their intervals part") {
    // A = (2,3) 52 ± 2, B = (2,4) 50 ± 2, the rest 40 ± 2. After 9 runs: A [50, 54], B [48, 52].
    // A n2 ±1.414 [50.59, 53.41] / B [48, 52]; B n2 [48.59, 51.41]; A n3 ±1.155 [50.85, 53.15];
    // B n3 [48.85, 51.15]; A n4 ±1 [51, 53]; B n4 [49, 51]: touching intervals overlap; A n5 ±0.894
    // [51.11, 52.89] lies above 51: told apart after 7 re-measurements, 16 runs of the 30 allowed.
    const landscape two = [](const tune_point& p, std::size_t) {
        if (p == tune_point{2, 3}) return feasible(p, 52, 2);
        if (p == tune_point{2, 4}) return feasible(p, 50, 2);
        return feasible(p, 40, 2);
    };
    const auto r = run_search(space_5x7(), two, 30);
    CHECK(r.measured.size() == 16);
    CHECK(r.final.end == tune_end::settled);
    CHECK(r.final.distinguishable);
    CHECK(verdict_at(r.final, {2, 3}).runs == 5);
    CHECK(verdict_at(r.final, {2, 4}).runs == 4);
    CHECK(verdict_at(r.final, {2, 4}).status == tune_status::dropped);
    CHECK_THAT(verdict_at(r.final, {2, 4}).why, Contains("lies wholly below the best's 51.11–52.89"));
}

TEST_CASE("tune search: the re-measurement says why") {
    // A line of three values, 1, 2, 4: the spread is the centre (index 1) and both ends, so the best's
    // neighbours are measured once the spread is, and the leaders come next.
    const auto line = parse_space({"a=1..4"});
    const std::vector<tune_measurement> on_line{feasible({1}, 52, 2), feasible({0}, 50, 2), feasible({2}, 40, 2)};
    const auto first = plan_tune(line, on_line, 5);
    REQUIRE(first.next.size() == 1);
    CHECK(first.next[0].step == tune_step::remeasure);
    CHECK(first.next[0].at == tune_point{1}); // both one run, equal widths: the best
    CHECK(first.next[0].why == "re-measure the best, a2 (run 2): its interval 50–54 overlaps those of a1");
    auto more = on_line;
    more.push_back(feasible({1}, 52, 2));
    const auto second = plan_tune(line, more, 4);
    REQUIRE(second.next.size() == 1);
    CHECK(second.next[0].at == tune_point{0});
    CHECK(second.next[0].why == "re-measure a1 (run 2): its interval 48–52 overlaps the best's 50.59–53.41");
}

TEST_CASE("tune search: infeasible configurations in a corner are walked around and named with their reason") {
    // 10i + 4j, out of memory where i ≥ 3 and j ≥ 5; ±1. Spread: (2,3) 32, (1,1) 14, (1,5) 30, (3,1) 34,
    // (3,5) infeasible. Around (3,1): (2,1) 24, (4,1) 44, (3,0) 30, (3,2) 38; around (4,1): (4,0) 40,
    // (4,2) 48; around (4,2): (4,3) 52; around (4,3): (3,3) 42, (4,4) 56; around (4,4): (3,4) 46,
    // (4,5) infeasible. The grid's best feasible is 10·4 + 4·4 = 56 at (4,4); runner-up (4,3) 52.
    const landscape oom = [](const tune_point& p, std::size_t) {
        if (p[0] >= 3 && p[1] >= 5) return infeasible(p, "out of memory");
        return feasible(p, 10.0 * static_cast<double>(p[0]) + 4.0 * static_cast<double>(p[1]), 1);
    };
    const auto r = run_search(space_5x7(), oom, 35);
    CHECK(r.asked == points{{2, 3}, {1, 1}, {1, 5}, {3, 1}, {3, 5}, {2, 1}, {4, 1}, {3, 0}, {3, 2}, {4, 0}, {4, 2},
                            {4, 3}, {3, 3}, {4, 4}, {3, 4}, {4, 5}});
    const auto& plan = r.final;
    CHECK(plan.end == tune_end::settled);
    REQUIRE(plan.best);
    CHECK(plan.verdicts[*plan.best].at == tune_point{4, 4});
    CHECK(plan.verdicts[*plan.runner_up].at == tune_point{4, 3});
    for (const tune_point& p : points{{3, 5}, {4, 5}}) {
        const auto& v = verdict_at(plan, p);
        CHECK(v.status == tune_status::infeasible);
        CHECK(v.why == "infeasible: out of memory");
        CHECK_FALSE(v.estimate);
    }
}

TEST_CASE("tune search: a configuration with one failed run among several is infeasible and not run again") {
    const auto line = parse_space({"a=1..4"});
    const std::vector<tune_measurement> measured{feasible({1}, 50, 1), infeasible({1}, "server exited with status 1"),
                                                 feasible({1}, 51, 1), feasible({0}, 30, 1), feasible({2}, 40, 1)};
    const auto plan = plan_tune(line, measured, 10);
    const auto& v = verdict_at(plan, {1});
    CHECK(v.status == tune_status::infeasible);
    CHECK(v.why == "infeasible: server exited with status 1 (in 1 of 3 runs)");
    // The best is then (2) at 40, whose neighbour (1) is measured: 30 ± 1 lies below 39–41, settled.
    CHECK(plan.end == tune_end::settled);
    CHECK(plan.verdicts[*plan.best].at == tune_point{2});
}

TEST_CASE("tune search: when every configuration of the spread is infeasible the search ends with no answer") {
    const landscape broken = [](const tune_point& p, std::size_t) { return infeasible(p, "not ready within 900 s"); };
    const auto r = run_search(space_5x7(), broken, 35);
    CHECK(r.measured.size() == 5);
    CHECK(r.final.end == tune_end::nothing_feasible);
    CHECK_FALSE(r.final.best);
    CHECK_THAT(r.final.conclusion, Contains("no configuration measured was feasible; 5 of 35 configurations measured"));
}

TEST_CASE("tune search: a 3-D space with a word dimension finds the grid's best with fewer runs than its 60") {
    // 5 × 6 × 2: f = 100 − 3(i − 3)² − 2(j − 2)² + 5 when chunked prefill is on (c = 0); best 105 at
    // (3,2,0). Spread: centre (2,2,0) 102 and the quartile corners {1,3} × {1,4} × {0,1}: (3,1,0) 103
    // is the best of them. Around it (2,1,0) 100, (4,1,0) 100, (3,0,0) 97, (3,2,0) 105 ((3,1,1) is
    // measured); around (3,2,0): (4,2,0) 102, (3,3,0) 103, (3,2,1) 100. 9 + 4 + 3 = 16 runs.
    const auto space = parse_space({"max_num_seqs=16..256", "max_num_batched_tokens=512..16384", "chunked=on,off"});
    const landscape f = [](const tune_point& p, std::size_t) {
        const double i = static_cast<double>(p[0]), j = static_cast<double>(p[1]);
        return feasible(p, 100 - 3 * (i - 3) * (i - 3) - 2 * (j - 2) * (j - 2) + (p[2] == 0 ? 5 : 0), 0.5);
    };
    const auto r = run_search(space, f, 60);
    CHECK(r.measured.size() == 16);
    CHECK(points(r.asked.begin(), r.asked.begin() + 9) ==
          points{{2, 2, 0}, {1, 1, 0}, {1, 1, 1}, {1, 4, 0}, {1, 4, 1}, {3, 1, 0}, {3, 1, 1}, {3, 4, 0}, {3, 4, 1}});
    REQUIRE(r.final.best);
    CHECK(r.final.verdicts[*r.final.best].name == "max_num_seqs128-max_num_batched_tokens2048-chunkedon");
    // (3,1,0) and (3,3,0) tie at 103: the grid's order names (3,1,0) the runner-up.
    CHECK(r.final.verdicts[*r.final.runner_up].at == tune_point{3, 1, 0});
    CHECK(r.final.end == tune_end::settled);
}

TEST_CASE("tune search: the plan is a function of the runs, not of their order") {
    const auto space = space_5x7();
    const auto r = run_search(space, smooth, 9); // stops mid-refinement
    auto reversed = r.measured;
    std::reverse(reversed.begin(), reversed.end());
    const auto a = plan_tune(space, r.measured, 4), b = plan_tune(space, reversed, 4), c = plan_tune(space, r.measured, 4);
    REQUIRE(a.next.size() == 2); // (4,5)'s unmeasured neighbours (4,4), (4,6)
    for (const auto* other : {&b, &c}) {
        REQUIRE(other->next.size() == a.next.size());
        for (std::size_t k = 0; k < a.next.size(); ++k) {
            CHECK(other->next[k].at == a.next[k].at);
            CHECK(other->next[k].why == a.next[k].why);
        }
        CHECK(other->conclusion == a.conclusion);
        REQUIRE(other->verdicts.size() == a.verdicts.size());
        for (std::size_t k = 0; k < a.verdicts.size(); ++k) CHECK(other->verdicts[k].why == a.verdicts[k].why);
    }
    // A second search against the same server asks for the same configurations.
    CHECK(run_search(space, smooth, 35).asked == run_search(space, smooth, 35).asked);
}

TEST_CASE("tune search: one run keeps its own interval") {
    const tune_measurement one{{0}, 10, {9, 12}, {}};
    const auto e = combine_runs(std::vector<tune_measurement>{one});
    CHECK(e.runs == 1);
    CHECK(e.mean == 10);
    CHECK(e.ci == interval{9, 12});
}

TEST_CASE("tune search: two runs span at least their own disagreement") {
    // 10 and 14 (±0.5): the runs' own error √(0.25 + 0.25) / 2 = 0.354 is less than half their
    // distance, 2: [10, 14].
    const auto apart = combine_runs(std::vector<tune_measurement>{feasible({0}, 10, 0.5), feasible({0}, 14, 0.5)});
    CHECK(apart.mean == 12);
    CHECK(apart.ci == interval{10, 14});
    // 10 and 10.2 (±1): √2 / 2 = 0.7071 exceeds 0.1: 10.1 ± 0.7071.
    const auto close = combine_runs(std::vector<tune_measurement>{feasible({0}, 10, 1), feasible({0}, 10.2, 1)});
    CHECK(close.ci.low == Approx(10.1 - 0.70711).margin(1e-5));
    CHECK(close.ci.high == Approx(10.1 + 0.70711).margin(1e-5));
}

TEST_CASE("tune search: three runs or more take Student's t over the runs, bounded below by the runs' own error") {
    // 10, 12, 14: s = 2, se = 2/√3 = 1.1547, t*(2) at 95% = 4.302653: 12 ± 4.9683.
    const auto spread = combine_runs(
        std::vector<tune_measurement>{feasible({0}, 10, 0.5), feasible({0}, 12, 0.5), feasible({0}, 14, 0.5)});
    CHECK(spread.ci.low == Approx(12 - 4.9683).margin(1e-4));
    CHECK(spread.ci.high == Approx(12 + 4.9683).margin(1e-4));
    // 20, 20, 20 (±3): no spread; the runs' own error √27 / 3 = 1.7321.
    const auto agree = combine_runs(
        std::vector<tune_measurement>{feasible({0}, 20, 3), feasible({0}, 20, 3), feasible({0}, 20, 3)});
    CHECK(agree.ci.low == Approx(20 - 1.73205).margin(1e-5));
    CHECK(agree.ci.high == Approx(20 + 1.73205).margin(1e-5));
}

TEST_CASE("tune search: measurements the planner cannot use are usage errors") {
    const auto space = space_5x7();
    CHECK_THROWS_AS(plan_tune(space, std::vector<tune_measurement>{feasible({5, 0}, 1, 0.1)}, 3), usage_error);
    CHECK_THROWS_AS(plan_tune(space, std::vector<tune_measurement>{feasible({1}, 1, 0.1)}, 3), usage_error);
    CHECK_THROWS_AS(plan_tune(space, std::vector<tune_measurement>{{{0, 0}, 5, {6, 7}, {}}}, 3), usage_error);
    CHECK_THROWS_AS(plan_tune(space, std::vector<tune_measurement>{{{0, 0}, std::nullopt, {}, {}}}, 3), usage_error);
    CHECK_THROWS_AS(plan_tune(space, {}, 3, {.confidence = 1}), usage_error);
    try {
        (void)plan_tune(space, std::vector<tune_measurement>{{{0, 0}, 5, {6, 7}, {}}}, 3);
    } catch (const usage_error& e) {
        CHECK_THAT(e.what(), Contains("a1-b1: the value 5 must be finite and lie in its interval 6–7"));
    }
}

} // namespace test_tune_search
