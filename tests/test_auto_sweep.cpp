// Tests for servestat/load/auto_sweep.hpp: the auto sweep's planner on synthetic curves. Each
// expected level and bracket is derived by hand in the comments (throughputs to 4 digits).
#include "servestat/load/auto_sweep.hpp"

#include <algorithm> // std::min
#include <cmath>     // std::sqrt
#include <functional> // std::function
#include <string>    // std::string
#include <utility>   // std::pair
#include <vector>    // std::vector

#include <catch2/catch.hpp> // TEST_CASE, REQUIRE, CHECK

namespace test_auto_sweep { // the unity build compiles several test files as one: each keeps its names

namespace {

using servestat::metric;
using servestat::slo;
using servestat::usage_error;
using servestat::load::auto_parameter;
using servestat::load::auto_sweep;
using servestat::load::auto_sweep_settings;
using servestat::load::climb_end;
using servestat::load::level_result;
using servestat::load::refinement_end;
using Catch::Matchers::Contains;

// A synthetic server: throughput, error rate and e2e p95 as functions of the load.
struct curve {
    std::function<double(double)> throughput;
    std::function<double(double)> errors = [](double) { return 0.0; };
    std::function<double(double)> p95 = [](double) { return 0.1; };
};

level_result measure(const curve& c, const auto_sweep_settings& s, double load) {
    level_result r;
    r.load = load;
    r.requests = 1000;
    r.ok = static_cast<std::size_t>(1000 * (1 - c.errors(load)) + 0.5);
    r.throughput = c.throughput(load);
    for (const auto& o : s.slos) r.slos.push_back({o, c.p95(load)});
    return r;
}

// Runs the planner to its end; the levels in the order it asked for them, and what it said.
struct sweep_run {
    std::vector<double> levels;
    std::vector<std::string> said;
};

sweep_run run(auto_sweep& planner, const curve& c) {
    sweep_run out;
    while (auto next = planner.next()) {
        REQUIRE(out.levels.size() < 64);
        out.levels.push_back(*next);
        out.said.push_back(planner.add(measure(c, planner.settings(), *next)));
    }
    return out;
}

using vec = std::vector<double>;

// 100·c / (c + 8): a closed loop's saturating throughput (Little's law with a fixed service demand
// and a queue). T(1) 11.11, T(2) 20, T(4) 33.33, T(8) 50, T(16) 66.67, T(32) 80, T(45) 84.91,
// T(48) 85.71, T(54) 87.10, T(64) 88.89, T(91) 91.92, T(128) 94.12.
const curve saturating{[](double c) { return 100 * c / (c + 8); }};

auto_sweep_settings concurrency_settings() { return {}; }

} // namespace

TEST_CASE("auto sweep: a saturating curve climbs until a doubling gains under 10%, then refines the knee") {
    // Gains per doubling: 1→2 +80%, 2→4 +67%, 4→8 +50%, 8→16 +33%, 16→32 +20%, 32→64 +11.1%,
    // 64→128 +5.9% < 10%: the climb stops at 128. Its highest throughput is 94.12, the knee's
    // target 94.12 / 1.1 = 85.56: T(32) = 80 is below, T(64) = 88.89 reaches it, so the knee lies in
    // [32, 64]. 64/32 = 2 > 1.25² = 1.5625: one more level, round(√(32·64)) = round(45.25) = 45,
    // T(45) = 84.91 < 85.56: [45, 64], 64/45 = 1.42 ≤ 1.5625: known to ±25%.
    auto_sweep planner(concurrency_settings());
    const auto r = run(planner, saturating);
    CHECK(r.levels == vec{1, 2, 4, 8, 16, 32, 64, 128, 45});
    CHECK(planner.climb() == climb_end::gain);
    CHECK(planner.refinement() == refinement_end::resolved);
    REQUIRE(planner.knee());
    CHECK(planner.knee()->low == 45);
    CHECK(planner.knee()->high == 64);
    CHECK(*planner.knee_target() == Approx(100 * 128.0 / 136 / 1.1));
    CHECK_FALSE(planner.capacity());
    CHECK(planner.done());
    CHECK(r.said[1] == "c=2: 20 req/s, +80% over c=1; climbing to c=4");
    CHECK_THAT(r.said[7], Contains("c=128: 94.12 req/s, +6% over c=64 (< 10%): the knee (the lowest load within 10% of "
                                   "the 94.12 req/s reached) lies between c=32 and 64; refining at c=45"));
    CHECK(r.said[8] == "c=45: 84.91 req/s, below the knee's 85.56 req/s: the knee lies between c=45 and 64; done "
                       "(--auto-resolution 0.25)");
    CHECK(planner.conclusion() == "the knee lies between c=45 and 64 (±19% around 53.7)"); // √(64/45) = 1.193
    CHECK(planner.refinement_text() == "done (--auto-resolution 0.25): the knee lies between c=45 and 64 (±19% around "
                                       "53.7)");
    const auto j = planner.to_json();
    CHECK(j["parameter"] == "concurrency");
    CHECK(j["climb"]["reason"] == "gain");
    CHECK(j["refinement"]["reason"] == "resolved");
    CHECK(j["knee"]["low"] == 45);
    CHECK(j["knee"]["high"] == 64);
    CHECK(j["levels"].size() == 9);
    CHECK(j["settings"]["gain"] == 0.1);
    CHECK(j["settings"]["max"] == 1024);
}

TEST_CASE("auto sweep: the resolution and the level budget") {
    SECTION("--auto-resolution 0.1: refined until high ≤ 1.21 × low") {
        // After 45: [45, 64], 1.42 > 1.21; round(√(45·64)) = round(53.67) = 54, T(54) = 87.10 ≥ 85.56:
        // [45, 54], 54/45 = 1.2 ≤ 1.21.
        auto s = concurrency_settings();
        s.resolution = 0.1;
        auto_sweep planner(s);
        CHECK(run(planner, saturating).levels == vec{1, 2, 4, 8, 16, 32, 64, 128, 45, 54});
        CHECK(planner.knee()->low == 45);
        CHECK(planner.knee()->high == 54);
        CHECK(planner.refinement() == refinement_end::resolved);
    }
    SECTION("--auto-levels 9 stops the same refinement after 45") {
        auto s = concurrency_settings();
        s.resolution = 0.1;
        s.max_levels = 9;
        auto_sweep planner(s);
        const auto r = run(planner, saturating);
        CHECK(r.levels.size() == 9);
        CHECK(planner.refinement() == refinement_end::levels);
        CHECK_THAT(planner.refinement_text(), Contains("--auto-levels 9 spent: the knee lies between c=45 and 64"));
    }
    SECTION("--auto-levels 5 ends the climb") {
        auto s = concurrency_settings();
        s.max_levels = 5;
        auto_sweep planner(s);
        CHECK(run(planner, saturating).levels == vec{1, 2, 4, 8, 16});
        CHECK(planner.climb() == climb_end::levels);
        CHECK_FALSE(planner.knee());
    }
    SECTION("concurrency stops at adjacent integers") {
        // Throughput 10 at 1, 20 from 2 on: 1→2 +100%, 2→4 0%: stop at 4, target 20/1.1 = 18.18:
        // T(1) below, T(2) reaches it: [1, 2], 2 > 1.5625 but round(√2) = 1 is no level between.
        auto_sweep planner(concurrency_settings());
        CHECK(run(planner, curve{[](double c) { return c >= 2 ? 20.0 : 10.0; }}).levels == vec{1, 2, 4});
        CHECK(planner.knee()->low == 1);
        CHECK(planner.knee()->high == 2);
        CHECK(planner.refinement() == refinement_end::resolved);
        CHECK(planner.conclusion() == "the knee lies between c=1 and 2 (adjacent levels)");
    }
}

TEST_CASE("auto sweep: the cap") {
    SECTION("--auto-max 32: throughput still grows 20% at the cap; no knee") {
        auto s = concurrency_settings();
        s.max = 32;
        auto_sweep planner(s);
        CHECK(run(planner, saturating).levels == vec{1, 2, 4, 8, 16, 32});
        CHECK(planner.climb() == climb_end::cap);
        CHECK(planner.refinement() == refinement_end::nothing);
        CHECK_FALSE(planner.knee());
        CHECK_THAT(planner.climb_text(), Contains("reached --auto-max 32 with throughput still growing"));
    }
    SECTION("a cap off the ladder is its last level") {
        // 32 → 48 gains (85.71/80)^(1/log2 1.5) − 1 = 1.07143^1.70951 − 1 = +12.52% per doubling ≥ 10%.
        auto s = concurrency_settings();
        s.max = 48;
        auto_sweep planner(s);
        const auto r = run(planner, saturating);
        CHECK(r.levels == vec{1, 2, 4, 8, 16, 32, 48});
        CHECK_THAT(r.said[6], Contains("+13% per doubling over c=32"));
        CHECK(planner.climb() == climb_end::cap);
    }
}

TEST_CASE("auto sweep: an open loop's hard kink is bracketed where it lies") {
    // Throughput = rate up to 10 req/s, flat beyond. 8 → 16 still gains 25% (10/8), 16 → 32 none:
    // stop at 32, target 10 / 1.1 = 9.09: T(8) = 8 below, T(16) = 10 reaches it: [8, 16], not the
    // step [16, 32] that gained too little. Midpoint √128 = 11.31 → 11.3 (three digits), T = 10:
    // [8, 11.3], 11.3/8 = 1.41 ≤ 1.5625. The kink, 10, lies inside.
    auto_sweep_settings s;
    s.parameter = auto_parameter::rate;
    auto_sweep planner(s);
    const auto r = run(planner, curve{[](double rate) { return std::min(rate, 10.0); }});
    CHECK(r.levels == vec{1, 2, 4, 8, 16, 32, 11.3});
    CHECK(planner.knee()->low == 8);
    CHECK(planner.knee()->high == 11.3);
    CHECK_THAT(r.said[5], Contains("rate=32: 10 req/s, +0.0% over rate=16 (< 10%)"));
    SECTION("from --auto-start 0.5") {
        s.start = 0.5;
        auto_sweep from_half(s);
        CHECK(run(from_half, curve{[](double rate) { return std::min(rate, 10.0); }}).levels ==
              vec{0.5, 1, 2, 4, 8, 16, 32, 11.3});
        CHECK(from_half.settings().highest() == 512);
    }
}

TEST_CASE("auto sweep: the error rate stops the climb and bounds the capacity") {
    SECTION("20% failing from c=12: stop at 16, refine the capacity") {
        // c=16 fails 20% > 0% + 5%: the climb stops (errors); 8 → 16 still gained 33%, so there is no
        // knee. Capacity [8, 16]: round(√128) = 11 fails none: [11, 16], 16/11 = 1.45 ≤ 1.5625.
        curve c = saturating;
        c.errors = [](double load) { return load >= 12 ? 0.2 : 0.0; };
        auto_sweep planner(concurrency_settings());
        const auto r = run(planner, c);
        CHECK(r.levels == vec{1, 2, 4, 8, 16, 11});
        CHECK(planner.climb() == climb_end::errors);
        CHECK_FALSE(planner.knee());
        REQUIRE(planner.capacity());
        CHECK(planner.capacity()->low == 11);
        CHECK(planner.capacity()->high == 16);
        CHECK_THAT(r.said[4], Contains("20.0% of requests failed, against 0.0% at best below (--auto-max-error 0.05)"));
        CHECK(planner.to_json()["capacity"]["reason"] == "errors");
    }
    SECTION("a share that fails at every level (too-long prompts) is no rise") {
        curve c = saturating;
        c.errors = [](double) { return 0.3; };
        auto_sweep planner(concurrency_settings());
        CHECK(run(planner, c).levels == vec{1, 2, 4, 8, 16, 32, 64, 128, 45});
        CHECK(planner.climb() == climb_end::gain);
    }
}

TEST_CASE("auto sweep: an SLO stops the climb and bounds the capacity") {
    auto s = concurrency_settings();
    s.slos = {slo{metric::e2e, 1.0}};
    SECTION("e2e p95 = 0.1 s × c: fails at 16, capacity refined to [8, 11]") {
        // c=16: 1.6 s > 1 s. Capacity [8, 16] → 11 (T = 1100/19 = 57.89): 1.1 s fails → [8, 11], 11/8 = 1.375 ≤ 1.5625.
        curve c = saturating;
        c.p95 = [](double load) { return 0.1 * load; };
        auto_sweep planner(s);
        const auto r = run(planner, c);
        CHECK(r.levels == vec{1, 2, 4, 8, 16, 11});
        CHECK(planner.climb() == climb_end::slo);
        CHECK(planner.capacity()->low == 8);
        CHECK(planner.capacity()->high == 11);
        CHECK_THAT(r.said[4], Contains("(e2e p95 1.6 s > 1 s): the capacity lies between c=8 and 16; refining at c=11"));
        CHECK(r.said[5] == "c=11: 57.89 req/s, fails (e2e p95 1.1 s > 1 s): the capacity lies between c=8 and 11; done "
                           "(--auto-resolution 0.25)");
        const auto j = planner.to_json();
        CHECK(j["capacity"]["reason"] == "slo");
        CHECK(j["levels"][4]["slos"]["e2e.p95"] == Approx(1.6));
        CHECK(j["levels"][4]["slos_met"] == false);
        CHECK(j["settings"]["slo"][0] == "e2e=1");
    }
    SECTION("missed at the first level: nothing below to refine") {
        curve c = saturating;
        c.p95 = [](double) { return 2.0; };
        auto_sweep planner(s);
        CHECK(run(planner, c).levels == vec{1});
        CHECK(planner.climb() == climb_end::slo);
        CHECK_FALSE(planner.capacity()->low);
        CHECK(planner.refinement() == refinement_end::nothing);
        CHECK(planner.conclusion() == "even c=1, the first level, fails");
    }
    SECTION("the knee and the capacity both bracketed: the wider first, the knee on a tie") {
        // e2e p95 = c / 100 s: c=128 misses 1 s, and 64 → 128 gained 5.9%: knee [32, 64] and capacity
        // [64, 128], both 2 wide. The knee first: 45 (below its target); then the capacity:
        // round(√(64·128)) = round(90.51) = 91, 0.91 s met: [91, 128], 128/91 = 1.41 ≤ 1.5625.
        curve c = saturating;
        c.p95 = [](double load) { return load / 100; };
        auto_sweep planner(s);
        CHECK(run(planner, c).levels == vec{1, 2, 4, 8, 16, 32, 64, 128, 45, 91});
        CHECK(planner.climb() == climb_end::slo); // the first reason named; the text gives both
        CHECK_THAT(planner.climb_text(), Contains("c=128 (< 10%; e2e p95 1.28 s > 1 s): the knee"));
        CHECK(planner.knee()->low == 45);
        CHECK(planner.capacity()->low == 91);
        CHECK(planner.capacity()->high == 128);
        CHECK(planner.refinement() == refinement_end::resolved);
    }
}

TEST_CASE("auto sweep: a level the failure guard stopped ends the sweep") {
    auto_sweep planner(concurrency_settings());
    for (double load : {1.0, 2.0, 4.0}) planner.add(measure(saturating, planner.settings(), load));
    auto r = measure(saturating, planner.settings(), 8);
    r.ended_early = "server_gone: 10 connection failures in a row";
    const auto said = planner.add(r);
    CHECK(planner.done());
    CHECK(planner.climb() == climb_end::failure);
    CHECK(planner.refinement() == refinement_end::failure);
    CHECK_THAT(said, Contains("the failure guard stopped c=8 (server_gone: 10 connection failures in a row): the sweep "
                              "ends there"));
    CHECK(planner.to_json()["levels"][3]["ended_early"] == r.ended_early);
}

TEST_CASE("auto sweep: nothing completed at the first level") {
    auto_sweep planner(concurrency_settings());
    level_result r;
    r.load = 1;
    r.requests = 20;
    planner.add(r);
    CHECK(planner.done());
    CHECK(planner.climb() == climb_end::nothing_completed);
}

TEST_CASE("auto sweep: settings and misuse") {
    const auto refused = [](auto change, const char* text) {
        auto_sweep_settings s;
        change(s);
        CHECK_THROWS_WITH(auto_sweep(s), Contains(text));
    };
    refused([](auto& s) { s.start = 0; }, "--auto-start 0: must be a positive integer");
    refused([](auto& s) { s.start = 1.5; }, "--auto-start 1.5: must be a positive integer");
    refused([](auto& s) { s.max = 0.5; }, "--auto-max 0.5");
    refused([](auto& s) { s.gain = 0; }, "--auto-gain 0");
    refused([](auto& s) { s.resolution = -1; }, "--auto-resolution -1");
    refused([](auto& s) { s.max_error = 1; }, "--auto-max-error 1");
    refused([](auto& s) { s.max_levels = 1; }, "--auto-levels 1");
    auto_sweep_settings rate;
    rate.parameter = auto_parameter::rate;
    rate.start = 0.25;
    CHECK_NOTHROW(auto_sweep(rate));
    auto_sweep planner(concurrency_settings());
    level_result wrong;
    wrong.load = 2;
    CHECK_THROWS_WITH(planner.add(wrong), Contains("expected the results of c=1, got c=2"));
}

TEST_CASE("auto sweep: a level's results from its run's statistics") {
    // Four ok requests (e2e 2, 1, 4, 7 s) and three failures, from t = 0 to t = 10 s: throughput
    // 4 / 10 = 0.4 req/s, error rate 3/7; e2e p95 (linear) over 1 2 4 7: rank 0.95 × 3 = 2.85,
    // 4 + 0.85 × (7 − 4) = 6.55 s.
    servestat::run r;
    const auto request = [](double sent, double end, servestat::request_status status) {
        servestat::request_record q;
        q.t_sched = q.t_sent = sent;
        q.t_end = end;
        q.status = status;
        if (status == servestat::request_status::ok) q.t_first = sent + 0.1;
        return q;
    };
    using servestat::request_status;
    for (const auto& [sent, end] : {std::pair{0.0, 2.0}, {1.0, 2.0}, {2.0, 6.0}, {3.0, 10.0}})
        r.requests.push_back(request(sent, end, request_status::ok));
    for (double sent : {4.0, 5.0, 6.0}) r.requests.push_back(request(sent, sent + 1, request_status::error));
    auto_sweep_settings s;
    s.slos = {slo{metric::e2e, 5.0}};
    servestat::stats_options o;
    o.summary.percentiles = {95};
    SECTION("throughput, errors and the SLO's p95") {
        const auto level = servestat::load::level_result_of(servestat::analyze(r, o), 8, s);
        CHECK(level.load == 8);
        CHECK(level.requests == 7);
        CHECK(level.ok == 4);
        CHECK(level.throughput == Approx(0.4));
        CHECK(level.error_rate() == Approx(3.0 / 7));
        REQUIRE(level.slos.size() == 1);
        CHECK(*level.slos[0].value == Approx(6.55));
        CHECK_FALSE(level.slos[0].met());
        CHECK(level.ended_early.empty());
    }
    SECTION("run.end: a failure-guard stop ended the level early; a precision stop did not") {
        r.meta.run_end = {{"reason", "server_gone"}, {"detail", "10 connection failures in a row"}};
        CHECK(servestat::load::level_result_of(servestat::analyze(r, o), 8, s).ended_early ==
              "server_gone: 10 connection failures in a row");
        r.meta.run_end = {{"reason", "precise"}};
        CHECK(servestat::load::level_result_of(servestat::analyze(r, o), 8, s).ended_early.empty());
    }
}

} // namespace test_auto_sweep
