// Run-to-run noise: the spread of a statistic over replicate runs and Welch's interval of the
// difference between two sets of runs (stats/run_spread.hpp), the comparison with the run as the
// unit (compare/runs_as_unit.hpp) and replicate runs outside sweeps (sweep/replicates.hpp).
// References: AIPerf's own worked example (docs/tutorials/multi-run-confidence.md: TTFT p99 of five
// runs 150, 152, 148, 155, 151 ms → mean 151.2, std ≈ 2.59, cv ≈ 0.017, se ≈ 1.16, CI [148.0, 154.4]
// with t_critical ≈ 2.776), Python's statistics.stdev, and Welch–Satterthwaite worked by hand below;
// t at fractional df from integrating the t density (see tests/test_student_t.cpp).
#include <catch2/catch.hpp> // Catch2 v2

#include <cmath>  // std::sqrt
#include <vector> // std::vector

#include "servestat/compare/runs_as_unit.hpp"
#include "servestat/stats/run_spread.hpp"
#include "servestat/sweep/replicates.hpp"

namespace test_run_spread { // the unity build compiles several test files as one

using namespace servestat;

TEST_CASE("the spread over runs has AIPerf's multi-run figures", "[run_spread]") {
    const std::vector<double> p99{150, 152, 148, 155, 151};
    const auto s = spread_of_runs(p99, 0.95);
    REQUIRE(s);
    CHECK(s->runs == 5);
    CHECK(s->mean == Approx(151.2).epsilon(1e-12));
    CHECK(*s->std == Approx(2.588435821108957).epsilon(1e-12)); // statistics.stdev
    CHECK(*s->cv == Approx(0.017119284531143895).epsilon(1e-12));
    CHECK(*s->se == Approx(1.1575836902790224).epsilon(1e-12));
    CHECK(*s->t_critical == Approx(2.776445).margin(5e-7));
    CHECK(s->min == 148);
    CHECK(s->max == 155);
    REQUIRE(s->mean_ci);
    // AIPerf's tutorial rounds them to [148.0, 154.4].
    CHECK(s->mean_ci->low == Approx(147.98603242926785).epsilon(1e-9));
    CHECK(s->mean_ci->high == Approx(154.41396757073213).epsilon(1e-9));
}

TEST_CASE("one run has a mean but no spread; no runs have nothing", "[run_spread]") {
    const std::vector<double> one{97.1};
    const auto s = spread_of_runs(one);
    REQUIRE(s);
    CHECK(s->mean == 97.1);
    CHECK_FALSE(s->std);
    CHECK_FALSE(s->mean_ci);
    CHECK_FALSE(spread_of_runs(std::vector<double>{}));
}

TEST_CASE("Welch's interval of the difference of two sets of runs", "[run_spread]") {
    // before 10, 12, 14: mean 12, s² = 4; after 15, 16, 17: mean 16, s² = 1.
    // se² = 4/3 + 1/3 = 5/3; ν = (5/3)² / ((4/3)²/2 + (1/3)²/2) = (25/9) / (17/18) = 50/17 ≈ 2.941;
    // t*(50/17) = 3.218758614533378 (numerical integration); d = 4 ± t*·√(5/3).
    const std::vector<double> before{10, 12, 14}, after{15, 16, 17};
    const auto d = welch_difference(before, after, 0.95);
    REQUIRE(d);
    CHECK(d->change == 4);
    CHECK(d->df == Approx(50.0 / 17).epsilon(1e-12));
    CHECK(d->se == Approx(std::sqrt(5.0 / 3)).epsilon(1e-12));
    CHECK(*d->t_critical == Approx(3.218758614533378).epsilon(1e-9));
    REQUIRE(d->ci);
    CHECK(d->ci->low == Approx(-0.1553995031831441).epsilon(1e-8));
    CHECK(d->ci->high == Approx(8.155399503183144).epsilon(1e-9));
    CHECK(d->holds_zero());
    CHECK(*d->relative == Approx(1.0 / 3).epsilon(1e-12));
    REQUIRE(d->relative_ci);
    CHECK(d->relative_ci->low == Approx(-0.1553995031831441 / 12).epsilon(1e-8));
    CHECK(d->relative_ci->high == Approx(8.155399503183144 / 12).epsilon(1e-9));
}

TEST_CASE("Welch with equal variances and sizes has n_b + n_a − 2 degrees of freedom", "[run_spread]") {
    // s² = 1 on both sides, three runs each: ν = (2/3)² / (2 · (1/3)² / 2) = 4; t*(4) = 2.776445.
    const std::vector<double> before{1, 2, 3}, after{11, 12, 13};
    const auto d = welch_difference(before, after);
    REQUIRE(d);
    CHECK(d->df == Approx(4).epsilon(1e-12));
    CHECK(d->ci->low == Approx(10 - 2.776445105197932 * std::sqrt(2.0 / 3)).epsilon(1e-9));
    CHECK_FALSE(d->holds_zero());
}

TEST_CASE("runs that do not vary at all give the difference itself; one run a side gives nothing", "[run_spread]") {
    const std::vector<double> before{5, 5, 5}, after{6, 6, 6};
    const auto d = welch_difference(before, after);
    REQUIRE(d);
    CHECK(d->ci->low == 1);
    CHECK(d->ci->high == 1);
    CHECK_FALSE(welch_difference(std::vector<double>{5}, after));
}

// A run with measured requests whose throughput and e2e p50 are given.
run_stats measured(std::string label, double rps, double e2e_p50) {
    run_stats r;
    r.meta.kind = run_kind::requests;
    r.meta.label = std::move(label);
    r.meta.params["concurrency"] = 16;
    r.requests = 1000;
    r.ok = 1000;
    r.rps = rps;
    subset_stats all{"all", 1000, {}};
    summary s;
    s.n = 1000;
    s.mean = e2e_p50;
    s.percentiles = {{50, e2e_p50, std::nullopt}};
    all.metrics.push_back({metric::e2e, s});
    r.subsets.push_back(all);
    return r;
}

TEST_CASE("a request-level verdict the runs cannot repeat is within run-to-run noise", "[runs_as_unit]") {
    // e2e p50 of three runs a side: 1.0, 1.2, 1.4 s before, 0.9, 1.1, 1.3 s after — the runs' interval
    // of −0.1 s holds 0, while the pooled requests called it improved.
    const std::vector<run_stats> b{measured("run_0001", 10, 1.0), measured("run_0002", 11, 1.2), measured("run_0003", 12, 1.4)};
    const std::vector<run_stats> a{measured("run_0001", 20, 0.9), measured("run_0002", 21, 1.1), measured("run_0003", 22, 1.3)};
    const std::vector<const run_stats*> pb{&b[0], &b[1], &b[2]}, pa{&a[0], &a[1], &a[2]};
    run_comparison pooled;
    change improved;
    improved.name = "e2e.p50";
    improved.result = verdict::improved;
    pooled.changes.push_back(improved);
    compare_options o;
    o.percentiles = {50};
    const auto r = compare_runs_as_unit(pb, pa, &pooled, o);
    REQUIRE(r);
    CHECK(r->runs_before == 3);
    const auto* p50 = find_run_unit_change(*r, "e2e.p50");
    REQUIRE(p50);
    CHECK(p50->runs.change == Approx(-0.1).epsilon(1e-12));
    CHECK(p50->runs.holds_zero());
    CHECK(p50->between_runs == verdict::no_change);
    CHECK(p50->request_level == verdict::improved);
    CHECK(p50->within_run_noise);
    // Throughput: 11 → 21 req/s with s = 1 a side: ν = 4, 10 ± 2.776445·√(2/3), clear of 0.
    const auto* rps = find_run_unit_change(*r, "rps");
    REQUIRE(rps);
    CHECK(rps->between_runs == verdict::improved);
    CHECK_FALSE(rps->within_run_noise);
    CHECK_FALSE(rps->request_level);
    // Statistics no run has (ttft) are left out.
    CHECK_FALSE(find_run_unit_change(*r, "ttft.p50"));
}

TEST_CASE("two runs a side are too few to take the run as the unit", "[runs_as_unit]") {
    const std::vector<run_stats> b{measured("a", 10, 1.0), measured("b", 11, 1.2)};
    const std::vector<const run_stats*> p{&b[0], &b[1]};
    CHECK_FALSE(compare_runs_as_unit(p, p, nullptr, {}));
}

TEST_CASE("runs on no sweep that agree on everything and number their labels are replicates", "[replicates]") {
    std::vector<run_stats> runs{measured("rep1", 96, 1.0), measured("rep2", 97, 1.1), measured("rep3", 98, 1.2),
                                measured("other", 50, 2.0)};
    const auto groups = find_replicate_groups(runs);
    REQUIRE(groups.size() == 1);
    CHECK(groups[0].runs == std::vector<std::size_t>{0, 1, 2});
    REQUIRE_FALSE(groups[0].statistics.empty());
    CHECK(groups[0].statistics[0].first == "rps");
    const run_spread& rps = groups[0].statistics[0].second;
    CHECK(rps.mean == Approx(97));
    CHECK(*rps.std == Approx(1));
    CHECK(rps.mean_ci->low == Approx(97 - 4.302652729749811 / std::sqrt(3.0)).epsilon(1e-9));
}

TEST_CASE("runs named apart are not replicates, even with equal parameters", "[replicates]") {
    std::vector<run_stats> runs{measured("llama", 96, 1.0), measured("mistral", 97, 1.1)};
    CHECK(find_replicate_groups(runs).empty());
}

} // namespace test_run_spread
