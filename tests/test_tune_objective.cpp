// Tests for servestat/load/tune_objective.hpp: one configuration's loads and its objective. Every
// expected load, crossing and interval is worked out by hand in the comments from the levels given,
// not read back from the code.
#include "servestat/load/tune_objective.hpp"

#include <cstddef> // std::size_t
#include <string>  // std::string
#include <vector>  // std::vector

#include <catch2/catch.hpp> // TEST_CASE, REQUIRE, CHECK, CHECK_THROWS_WITH, Approx

namespace test_tune_objective { // the unity build compiles several test files as one: each keeps its names

namespace {

using servestat::interval;
using servestat::metric;
using servestat::usage_error;
using servestat::load::estimate_capacity;
using servestat::load::measure_objective;
using servestat::load::next_tune_load;
using servestat::load::parse_tune_objective;
using servestat::load::parse_tune_slos;
using servestat::load::slo_reading;
using servestat::load::slo_text;
using servestat::load::tune_level;
using servestat::load::tune_level_settings;
using servestat::load::tune_objective;
using Catch::Matchers::Contains;

// One SLO: short prompts' TTFT p95 ≤ 0.5 s; the climb from c=1 to at most c=64.
tune_level_settings short_ttft() {
    tune_level_settings s;
    s.slos = parse_tune_slos("short:ttft=0.5");
    s.start = 1;
    s.max = 64;
    return s;
}

// A level of 100 requests, all ok, whose SLO percentile is `value` with the interval [low, high].
tune_level level(double load, double value, double low, double high) {
    tune_level l;
    l.load = load;
    l.requests = l.ok = 100;
    l.slos = {slo_reading{value, low, high}};
    return l;
}

} // namespace

TEST_CASE("tune SLOs name a subset, a metric and a bound", "[tune]") {
    const auto slos = parse_tune_slos("short:ttft=0.5,e2e=10");
    REQUIRE(slos.size() == 2);
    CHECK(slos[0].subset == "short");
    CHECK(slos[0].objective.on == metric::ttft);
    CHECK(slos[0].objective.max_seconds == 0.5);
    CHECK(slos[1].subset == "all");
    CHECK(slo_text(slos[0], 95) == "short prompts' TTFT p95 ≤ 0.5 s");
    CHECK(slo_text(slos[1], 99) == "all requests' E2E p99 ≤ 10 s");
    CHECK_THROWS_WITH(parse_tune_slos("medium:ttft=1"), Contains("'medium' is not all, short or long"));
    CHECK_THROWS_WITH(parse_tune_slos("ttft=1,all:ttft=2"), Contains("ttft of all given twice"));
    CHECK_THROWS_WITH(parse_tune_slos(""), Contains("at least one"));
    CHECK_THROWS_AS(parse_tune_slos("short:ttft=-1"), usage_error);
    CHECK(parse_tune_objective("cost-per-good-token") == tune_objective::cost_per_good_token);
    CHECK_THROWS_WITH(parse_tune_objective("speed"), Contains("one of capacity, throughput"));
}

TEST_CASE("a configuration's loads climb by doublings, then bisect the bracket to the resolution", "[tune]") {
    const auto s = short_ttft(); // resolution 0.125: a bracket is narrow enough once high ≤ 1.265625 · low
    std::vector<tune_level> levels;
    CHECK(next_tune_load(levels, s) == 1.0);
    for (double c : {1.0, 2.0, 4.0, 8.0}) {
        levels.push_back(level(c, 0.1 * c / 8, 0, 0.2));
        CHECK(next_tune_load(levels, s) == 2 * c); // every level passes: double
    }
    levels.push_back(level(16, 0.30, 0.27, 0.34));
    CHECK(next_tune_load(levels, s) == 32.0);
    levels.push_back(level(32, 0.80, 0.70, 0.95)); // fails: bracket 16–32, 32 > 20.25
    CHECK(next_tune_load(levels, s) == 23.0);      // round(√(16 · 32)) = round(22.63)
    levels.push_back(level(23, 0.45, 0.40, 0.52)); // passes: bracket 23–32, 32 > 29.11
    CHECK(next_tune_load(levels, s) == 27.0);      // round(√(23 · 32)) = round(27.13)
    levels.push_back(level(27, 0.60, 0.53, 0.70)); // fails: bracket 23–27, 27 ≤ 29.11: done
    CHECK_FALSE(next_tune_load(levels, s).has_value());

    // The capacity: the values cross 0.5 between c=23 (0.45) and c=27 (0.60):
    // 23 + (0.5 − 0.45) / (0.60 − 0.45) · 4 = 24.333. The upper ends (pessimistic) first miss at
    // c=23 (0.52), from c=16's 0.34: 16 + (0.16 / 0.18) · 7 = 22.222. The lower ends (optimistic)
    // first miss at c=27 (0.53), from c=23's 0.40: 23 + (0.10 / 0.13) · 4 = 26.077.
    const auto c = estimate_capacity(levels, s);
    REQUIRE(c);
    CHECK(c->value == Approx(24.0 + 1.0 / 3).epsilon(1e-12));
    CHECK(c->ci.low == Approx(16 + 7 * 0.16 / 0.18).epsilon(1e-12));
    CHECK(c->ci.high == Approx(23 + 4 * 0.10 / 0.13).epsilon(1e-12));
    CHECK(c->limited_by == "short prompts' TTFT p95 ≤ 0.5 s");
    CHECK_FALSE(c->at_least);
    CHECK_FALSE(c->below_start);
    CHECK_THAT(c->text, Contains("missed between c=23 and 27"));

    const auto m = measure_objective({1, 2}, levels, s, tune_objective::capacity);
    REQUIRE(m.value);
    CHECK(*m.value == Approx(24.0 + 1.0 / 3).epsilon(1e-12));
    CHECK(m.at == servestat::load::tune_point{1, 2});
}

TEST_CASE("the levels' budget ends a configuration's search", "[tune]") {
    auto s = short_ttft();
    s.max_levels = 3;
    const std::vector<tune_level> levels{level(1, 0.1, 0, 1), level(2, 0.1, 0, 1), level(4, 0.1, 0, 1)};
    CHECK_FALSE(next_tune_load(levels, s).has_value());
}

TEST_CASE("a capacity under the first level, and one at least the cap", "[tune]") {
    const auto s = short_ttft();
    const std::vector<tune_level> fails{level(1, 0.7, 0.6, 0.8)};
    CHECK_FALSE(next_tune_load(fails, s).has_value());
    const auto below = estimate_capacity(fails, s);
    CHECK(below->below_start);
    CHECK(below->value == 0);
    CHECK(below->ci.low == 0);
    CHECK(below->ci.high == 0); // even the interval's lower end, 0.6, misses it
    CHECK_THAT(below->text, Contains("missed even at c=1, the first level"));

    std::vector<tune_level> all_pass;
    for (double c = 1; c <= 64; c *= 2) all_pass.push_back(level(c, 0.2, 0.1, 0.3));
    CHECK_FALSE(next_tune_load(all_pass, s).has_value()); // the cap, 64, is reached
    const auto at_least = estimate_capacity(all_pass, s);
    CHECK(at_least->at_least);
    CHECK(at_least->value == 64);
    CHECK(at_least->ci == interval{64, 64});
}

TEST_CASE("a rise in errors caps the capacity at the level below it", "[tune]") {
    const auto s = short_ttft(); // max_error 0.05
    std::vector<tune_level> levels{level(4, 0.1, 0.05, 0.15), level(8, 0.2, 0.15, 0.25), level(16, 0.3, 0.25, 0.35)};
    levels[2].ok = 80; // 20% failed, against 0% below: more than 5 points more
    const auto c = estimate_capacity(levels, s);
    CHECK(c->value == 8);
    CHECK(c->ci == interval{8, 8});
    CHECK(c->limited_by == "the error rate");
    CHECK(next_tune_load(levels, s) == 11.0); // round(√(8 · 16)) = round(11.31)
}

TEST_CASE("throughput and cost per good token take the best level that meets every SLO", "[tune]") {
    const auto s = short_ttft();
    std::vector<tune_level> levels{level(16, 0.3, 0.27, 0.34), level(23, 0.45, 0.40, 0.52), level(27, 0.6, 0.53, 0.7)};
    const double tps[] = {100, 120, 130};
    const interval tps_ci[] = {{95, 105}, {110, 130}, {125, 135}};
    const double cost[] = {2.0, 1.8, 1.5};
    const interval cost_ci[] = {{1.9, 2.1}, {1.6, 2.0}, {1.4, 1.6}};
    for (std::size_t i = 0; i < levels.size(); ++i) {
        levels[i].output_tps = tps[i];
        levels[i].output_tps_ci = tps_ci[i];
        levels[i].good_cost = cost[i];
        levels[i].good_cost_ci = cost_ci[i];
    }
    // c=27 misses the SLO, so its 130 tokens/s and 1.5 USD do not count.
    const auto t = measure_objective({0}, levels, s, tune_objective::throughput);
    CHECK(t.value == 120.0);
    CHECK(t.ci == interval{110, 130});
    const auto c = measure_objective({0}, levels, s, tune_objective::cost_per_good_token);
    CHECK(c.value == 1.8);
    CHECK(c.ci == interval{1.6, 2.0});

    const std::vector<tune_level> failing{level(1, 0.7, 0.6, 0.8)};
    const auto none = measure_objective({0}, failing, s, tune_objective::throughput);
    CHECK_FALSE(none.value);
    CHECK(none.infeasible == "no load level met every SLO");
}

TEST_CASE("a level's throughput interval is read back from its cost figure", "[tune]") {
    // At 3600 USD/h (1 USD/s) a rate r costs 10⁶ / r per 1M tokens: 5000 USD is 200 tokens/s, and
    // the interval 4000–6250 USD is 250–160 tokens/s.
    servestat::run_stats r;
    r.requests = r.ok = 10;
    r.output_tps = 200;
    servestat::run_cost cost;
    cost.price.per_hour = 3600;
    cost.per_1m_output.value = 5000;
    cost.per_1m_output.ci = interval{4000, 6250};
    r.cost = cost;
    auto s = short_ttft();
    const auto l = servestat::load::tune_level_of(r, 8, s);
    CHECK(l.load == 8);
    REQUIRE(l.output_tps_ci);
    CHECK(l.output_tps_ci->low == Approx(160).epsilon(1e-12));
    CHECK(l.output_tps_ci->high == Approx(250).epsilon(1e-12));
    REQUIRE(l.slos.size() == 1);
    CHECK_FALSE(l.slos[0].value); // the run has no short subset
}

} // namespace test_tune_objective
