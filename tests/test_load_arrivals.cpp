// Tests for servestat/load/arrivals.hpp and the continuous draws of core/random.hpp: schedules of the
// rate patterns (exact for constant spacing, statistical for Poisson and gamma, with bounds from
// numpy and scipy) and trace replay of the shared Azure and Mooncake traces, checked against pandas.
#include "servestat/load/arrivals.hpp"

#include <algorithm>   // std::is_sorted, std::count_if
#include <cmath>       // std::sqrt, std::fabs, std::isinf
#include <cstddef>     // std::size_t
#include <cstdint>     // std::uint64_t
#include <filesystem>  // std::filesystem::path
#include <limits>      // std::numeric_limits
#include <string>      // std::string
#include <vector>      // std::vector

#include <catch2/catch.hpp> // TEST_CASE, SECTION, REQUIRE, CHECK, Approx

#include "servestat/core/random.hpp"          // detail::xoshiro256, standard_normal, uniform_open_closed
#include "servestat/ingest/arrival_trace.hpp" // read_arrivals

namespace test_load_arrivals { // the unity build compiles several test files as one: each keeps its names

namespace {

namespace fs = std::filesystem;
using servestat::arrival;
using servestat::input_error;
using servestat::usage_error;
using servestat::load::arrival_generator;
using servestat::load::arrival_options;
using servestat::load::arrival_process;
using servestat::load::plan_arrivals;
using servestat::load::plan_trace;
using servestat::load::planned_arrival;
using servestat::load::trace_options;

constexpr double inf = std::numeric_limits<double>::infinity();

const fs::path shared(SERVESTAT_SHARED_DATA_DIR);
const fs::path azure_code = shared / "azure-llm-inference-2023" / "AzureLLMInferenceTrace_code.csv";
const fs::path azure_conv = shared / "azure-llm-inference-2023" / "AzureLLMInferenceTrace_conv.csv";
const fs::path mooncake_synthetic = shared / "mooncake-fast25" / "synthetic_trace.jsonl";

arrival_options count_options(double rate, std::size_t n, std::uint64_t seed = 1, double burstiness = 1) {
    arrival_options o;
    o.rate = rate;
    o.count = n;
    o.seed = seed;
    o.burstiness = burstiness;
    return o;
}

std::vector<double> times_of(const std::vector<planned_arrival>& plan) {
    std::vector<double> t;
    for (const auto& r : plan) t.push_back(r.t_sched);
    return t;
}

std::vector<double> gaps_of(const std::vector<planned_arrival>& plan) {
    std::vector<double> g;
    double previous = 0; // the first gap is from the run's start: random patterns start with a gap
    for (const auto& r : plan) {
        g.push_back(r.t_sched - previous);
        previous = r.t_sched;
    }
    return g;
}

struct moments {
    double mean = 0, cv = 0;
};

moments moments_of(const std::vector<double>& x) {
    double sum = 0;
    for (double v : x) sum += v;
    const double mean = sum / static_cast<double>(x.size());
    double ss = 0;
    for (double v : x) ss += (v - mean) * (v - mean);
    const double sd = std::sqrt(ss / static_cast<double>(x.size() - 1));
    return {mean, sd / mean};
}

double fraction_below(const std::vector<double>& x, double q) {
    const auto n = std::count_if(x.begin(), x.end(), [&](double v) { return v < q; });
    return static_cast<double>(n) / static_cast<double>(x.size());
}

// The message of the usage_error that f throws ("" when none).
template <class F>
std::string usage_message(F&& f) {
    try {
        f();
    } catch (const usage_error& e) {
        return e.what();
    }
    return "";
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

} // namespace

// ---------------------------------------------------------------- the draws of core/random.hpp

TEST_CASE("arrivals: uniform_open_closed stays in (0, 1] and standard_normal has mean 0 and sd 1") {
    servestat::detail::xoshiro256 rng(7);
    double lo = 1, hi = 0;
    for (int i = 0; i < 100000; ++i) {
        const double u = servestat::detail::uniform_open_closed(rng);
        lo = std::min(lo, u);
        hi = std::max(hi, u);
    }
    CHECK(lo > 0);
    CHECK(hi <= 1);
    CHECK(lo < 1e-3); // and they spread over the interval
    CHECK(hi > 1 - 1e-3);
    std::vector<double> z;
    for (int i = 0; i < 20000; ++i) z.push_back(servestat::detail::standard_normal(rng));
    double sum = 0, ss = 0;
    for (double v : z) sum += v;
    const double mean = sum / 20000;
    for (double v : z) ss += (v - mean) * (v - mean);
    // n = 20,000: the mean's sd is 1/sqrt(n) = 0.0071 and the sd's about 1/sqrt(2n) = 0.005, so the
    // bounds are over 5 of those sds.
    CHECK(std::fabs(mean) < 0.04);
    CHECK(std::fabs(std::sqrt(ss / 19999) - 1) < 0.03);
    // Quartiles of N(0, 1): +-0.6744897501960817 (scipy.stats.norm.ppf(0.25)); binomial sd of a
    // fraction at 0.25 over 20,000 is 0.0031, the bound 0.02.
    CHECK(fraction_below(z, -0.6744897501960817) == Approx(0.25).margin(0.02));
    CHECK(fraction_below(z, 0.6744897501960817) == Approx(0.75).margin(0.02));
}

// ---------------------------------------------------------------- rate patterns

TEST_CASE("arrivals: the same seed gives the same schedule, another seed another") {
    for (const double k : {1.0, 0.25, 4.0}) {
        INFO("burstiness " << k);
        const auto a = times_of(plan_arrivals(count_options(5, 1000, 42, k)));
        const auto b = times_of(plan_arrivals(count_options(5, 1000, 42, k)));
        const auto c = times_of(plan_arrivals(count_options(5, 1000, 43, k)));
        REQUIRE(a.size() == 1000);
        CHECK(a == b);
        CHECK(a != c);
        CHECK(a.front() != c.front());
    }
}

// The exact schedule of seed 42 at 4 requests/s, from a separate Python re-implementation of
// core/random.hpp's draws (splitmix64-seeded xoshiro256**, U = ((x >> 11) + 1) 2^-53, -log U, Marsaglia
// polar, Marsaglia-Tsang with the U^(1/k) boost drawn after Gamma(k + 1)) and of the gap rule
// t += Gamma(k) / (R k): it pins the algorithm, so any platform must reproduce these up to libm.
TEST_CASE("arrivals: seed 42 gives the schedule the reference implementation gives") {
    // The 2000th time depends on every draw before it, including the rare ones where Marsaglia-Tsang's
    // squeeze fails and its log test decides.
    struct reference {
        double k;
        double t[5];
        double t2000;
    };
    const reference cases[] = {
        {1.0, {0.6196427772646471, 0.8622105733463749, 0.9586102341219725, 0.978183621016278, 0.9802410855888537},
         505.31856415624213},
        {0.25, {0.27954234227752506, 0.44592287235642286, 0.4700389153610617, 1.1633329217646433, 1.165695500095435},
         545.9171820753157},
        {4.0, {0.15277830766884068, 0.5131620694654634, 0.9682954314301719, 1.1294680431262063, 1.4059372006637785},
         506.91876620856334},
    };
    for (const auto& c : cases) {
        INFO("burstiness " << c.k);
        const auto t = times_of(plan_arrivals(count_options(4, 2000, 42, c.k)));
        REQUIRE(t.size() == 2000);
        for (std::size_t i = 0; i < 5; ++i) CHECK(t[i] == Approx(c.t[i]).epsilon(1e-12));
        CHECK(t.back() == Approx(c.t2000).epsilon(1e-10));
    }
}

TEST_CASE("arrivals: the generator yields what the plan holds, one at a time") {
    const auto plan = times_of(plan_arrivals(count_options(5, 300, 9, 0.5)));
    arrival_generator generator(count_options(5, 300, 9, 0.5));
    CHECK(generator.process() == arrival_process::gamma);
    std::vector<double> pulled;
    while (const auto t = generator.next()) pulled.push_back(*t);
    CHECK(pulled == plan);
    CHECK_FALSE(generator.next().has_value()); // and stays exhausted
}

TEST_CASE("arrivals: schedules never go backwards and random ones start after 0") {
    for (const double k : {1.0, 0.05, 0.25, 4.0, 50.0, inf}) {
        INFO("burstiness " << k);
        const auto plan = plan_arrivals(count_options(10, 5000, 3, k));
        const auto t = times_of(plan);
        REQUIRE(t.size() == 5000);
        CHECK(std::is_sorted(t.begin(), t.end()));
        CHECK(t.front() >= 0);
        if (!std::isinf(k)) CHECK(t.back() > 0);
        CHECK_FALSE(plan.front().prompt_tokens.has_value()); // rate patterns carry no token counts
        CHECK_FALSE(plan.front().output_tokens.has_value());
    }
}

TEST_CASE("arrivals: constant spacing puts request i at exactly i / rate, the first at 0") {
    arrival_options o = count_options(3, 10);
    o.constant = true;
    const auto t = times_of(plan_arrivals(o));
    REQUIRE(t.size() == 10);
    for (std::size_t i = 0; i < t.size(); ++i) CHECK(t[i] == static_cast<double>(i) / 3.0);
    CHECK(t[0] == 0.0);
    CHECK(t[3] == 1.0);
    CHECK(arrival_generator(o).process() == arrival_process::constant);
    // --burstiness inf is the same (vLLM's spelling of constant spacing), whatever the seed.
    const auto same = times_of(plan_arrivals(count_options(3, 10, 99, inf)));
    CHECK(same == t);
}

TEST_CASE("arrivals: constant spacing over a duration holds ceil(rate x duration) requests") {
    arrival_options o;
    o.constant = true;
    o.rate = 2;
    o.duration = 10;
    auto t = times_of(plan_arrivals(o));
    CHECK(t.size() == 20); // 0, 0.5, ..., 9.5: 10.0 is not before the end
    CHECK(t.back() == 9.5);
    o.rate = 2.5;
    o.duration = 1;
    t = times_of(plan_arrivals(o));
    CHECK(t == std::vector<double>{0.0, 0.4, 0.8});
}

TEST_CASE("arrivals: burstiness 1 is the Poisson schedule of the same seed") {
    arrival_options o = count_options(4, 200, 5);
    CHECK(arrival_generator(o).process() == arrival_process::poisson);
    const auto poisson = times_of(plan_arrivals(o));
    // Shape 1 drawn by Marsaglia-Tsang would give other numbers: burstiness 1 takes the exponential.
    o.burstiness = 1.0;
    CHECK(times_of(plan_arrivals(o)) == poisson);
}

// Bounds: n = 20,000 gaps at R = 4/s. The sampling sds of the mean gap (relative) and of the CV
// were measured with numpy over 1,000 replicates of Generator.gamma(k, 1/k, 20000):
//   k = 1:    mean 0.0067, CV 0.0069      k = 0.25: mean 0.0139, CV 0.0222
//   k = 4:    mean 0.0034, CV 0.0028
// Each bound below is 4.5 to 6 of those sds, loose enough that a correct generator passes with any
// seed, tight enough that a wrong scale (mean off by 1/k) or shape (CV 1 instead of 2) fails.
// Quantiles are scipy.stats.gamma.ppf(p, k, scale=1/(R k)) for p = 0.1, 0.5, 0.9; the fraction of
// gaps below each has binomial sd <= 0.0035, the bound 0.02.
TEST_CASE("arrivals: Poisson and gamma gaps have mean 1/R, CV 1/sqrt(k) and gamma's quantiles") {
    constexpr double rate = 4;
    struct expectation {
        double k, mean_tol, cv, cv_tol;
        double q10, q50, q90;
    };
    const expectation cases[] = {
        {1.0, 0.03, 1.0, 0.03, 0.02634012891445659, 0.17328679513998638, 0.5756462732485115},
        {0.25, 0.07, 2.0, 0.11, 6.750062385633973e-05, 0.0436738023528734, 0.7503928722368366},
        {4.0, 0.02, 0.5, 0.015, 0.10904809767655696, 0.22950379680318106, 0.41754894176599155},
    };
    for (const auto& c : cases) {
        INFO("burstiness " << c.k);
        const auto gaps = gaps_of(plan_arrivals(count_options(rate, 20000, 2024, c.k)));
        REQUIRE(gaps.size() == 20000);
        const moments m = moments_of(gaps);
        CHECK(m.mean == Approx(1 / rate).epsilon(c.mean_tol));
        CHECK(m.cv == Approx(c.cv).margin(c.cv_tol));
        CHECK(fraction_below(gaps, c.q10) == Approx(0.1).margin(0.02));
        CHECK(fraction_below(gaps, c.q50) == Approx(0.5).margin(0.02));
        CHECK(fraction_below(gaps, c.q90) == Approx(0.9).margin(0.02));
    }
}

TEST_CASE("arrivals: duration mode keeps the arrivals before the duration, about rate x duration") {
    arrival_options o;
    o.rate = 4;
    o.duration = 100;
    o.seed = 11;
    for (const double k : {1.0, 0.25, 4.0}) {
        INFO("burstiness " << k);
        o.burstiness = k;
        const auto t = times_of(plan_arrivals(o));
        REQUIRE_FALSE(t.empty());
        CHECK(t.back() < 100);
        CHECK(std::is_sorted(t.begin(), t.end()));
        // For Poisson the count is Poisson(400): scipy.stats.poisson.ppf([1e-6, 1 - 1e-6], 400) =
        // 309, 499. Gamma renewal counts have variance about R D / k: k = 0.25 spreads four times
        // as far (sd 40), so its bound is 400 +- 200; k = 4 is tighter than Poisson.
        const double half_width = k < 1 ? 200 : 100;
        CHECK(static_cast<double>(t.size()) == Approx(400).margin(half_width));
        // The next arrival, had there been one, would have been at or after 100.
        arrival_generator generator(o);
        std::size_t n = 0;
        while (generator.next()) ++n;
        CHECK(n == t.size());
        CHECK_FALSE(generator.next().has_value());
    }
}

TEST_CASE("arrivals: with -n and --duration both, whichever comes first ends the schedule") {
    arrival_options o;
    o.constant = true;
    o.rate = 10;
    o.count = 5;
    o.duration = 100;
    CHECK(plan_arrivals(o).size() == 5);
    o.count = 5000;
    o.duration = 2;
    CHECK(plan_arrivals(o).size() == 20);
}

TEST_CASE("arrivals: --rate inf starts every request at 0") {
    for (const double k : {1.0, 0.5, inf}) {
        const auto t = times_of(plan_arrivals(count_options(inf, 50, 1, k)));
        REQUIRE(t.size() == 50);
        for (double v : t) CHECK(v == 0.0);
    }
}

TEST_CASE("arrivals: bad options throw usage_error naming the option") {
    CHECK(contains(usage_message([] { plan_arrivals(count_options(0, 10)); }), "--rate"));
    CHECK(contains(usage_message([] { plan_arrivals(count_options(-2, 10)); }), "(got -2)"));
    CHECK(contains(usage_message([] {
                       plan_arrivals(count_options(std::numeric_limits<double>::quiet_NaN(), 10));
                   }),
                   "--rate"));
    CHECK(contains(usage_message([] { plan_arrivals(count_options(1, 10, 1, 0)); }), "--burstiness"));
    CHECK(contains(usage_message([] { plan_arrivals(count_options(1, 10, 1, -0.5)); }), "(got -0.5)"));
    CHECK(contains(usage_message([] { plan_arrivals(count_options(1, 0)); }), "-n"));
    CHECK(contains(usage_message([] {
                       arrival_options o;
                       o.rate = 1;
                       plan_arrivals(o);
                   }),
                   "--duration"));
    CHECK(contains(usage_message([] {
                       arrival_options o;
                       o.rate = 1;
                       o.duration = -1;
                       plan_arrivals(o);
                   }),
                   "--duration must be"));
    CHECK(contains(usage_message([] {
                       arrival_options o;
                       o.rate = inf;
                       o.duration = 10;
                       plan_arrivals(o);
                   }),
                   "--rate inf"));
    CHECK(contains(usage_message([] {
                       arrival_options o = count_options(1, 10, 1, 2);
                       o.constant = true;
                       plan_arrivals(o);
                   }),
                   "--burstiness"));
    // A plan that would not fit in memory is refused before anything is allocated; the generator,
    // which holds nothing, still runs.
    arrival_options huge;
    huge.rate = 1e9;
    huge.duration = 3600;
    CHECK(contains(usage_message([&] { plan_arrivals(huge); }), "limit"));
    arrival_generator lazy(huge);
    CHECK(lazy.next().has_value());
}

// ---------------------------------------------------------------- trace replay

// Expected values from pandas and numpy, not from this code:
//   d = pandas.read_csv(f); t = pandas.to_datetime(d.TIMESTAMP)
//   s = (t - t.iloc[0]).dt.total_seconds()       (Azure)
//   s = (timestamp - timestamp[0]) / 1000        (Mooncake, numpy over json.loads of each line)
// and the counts as (s / x < D).sum().
TEST_CASE("arrivals: Azure code trace replays from 0 with its token counts") {
    const auto trace = servestat::read_arrivals(azure_code);
    const auto plan = plan_trace(trace, {});
    REQUIRE(plan.size() == 8819);
    const double t[] = {0.0, 0.052, 0.098189, 0.140684, 0.444994};
    const int prompt[] = {4808, 3180, 110, 7433, 34};
    const int output[] = {10, 8, 27, 14, 12};
    for (std::size_t i = 0; i < 5; ++i) {
        INFO("arrival " << i);
        CHECK(plan[i].t_sched == Approx(t[i]).margin(1e-9));
        CHECK(plan[i].prompt_tokens == prompt[i]);
        CHECK(plan[i].output_tokens == output[i]);
    }
    CHECK(plan.back().t_sched == Approx(3435.948056).margin(1e-6));
}

TEST_CASE("arrivals: --time-scale x divides trace time: 2 replays twice as fast, 0.5 at half speed") {
    const auto trace = servestat::read_arrivals(azure_conv);
    trace_options fast;
    fast.time_scale = 2;
    trace_options slow;
    slow.time_scale = 0.5;
    const auto at_2 = plan_trace(trace, fast);
    const auto at_half = plan_trace(trace, slow);
    REQUIRE(at_2.size() == 19366);
    REQUIRE(at_half.size() == 19366);
    // pandas: s[1..4] = 4.314579, 4.541877, 4.710427, 5.892655; s / 2 and s / 0.5 below.
    const double t2[] = {0.0, 2.1572895, 2.2709385, 2.3552135, 2.9463275};
    const double t_half[] = {0.0, 8.629158, 9.083754, 9.420854, 11.78531};
    for (std::size_t i = 0; i < 5; ++i) {
        INFO("arrival " << i);
        CHECK(at_2[i].t_sched == Approx(t2[i]).margin(1e-9));
        CHECK(at_half[i].t_sched == Approx(t_half[i]).margin(1e-9));
    }
    CHECK(at_2[1].prompt_tokens == 396);
    CHECK(at_2[1].output_tokens == 109);
    CHECK(at_2.back().t_sched == Approx(3501.721937 / 2).margin(1e-6));
}

TEST_CASE("arrivals: trace replay stops at -n or before --duration in wall seconds") {
    const auto trace = servestat::read_arrivals(azure_conv);
    trace_options o;
    o.duration = 60;
    CHECK(plan_trace(trace, o).size() == 191); // pandas: (s < 60).sum()
    o.time_scale = 2;
    CHECK(plan_trace(trace, o).size() == 456); // pandas: (s / 2 < 60).sum()
    o.time_scale = 0.5;
    CHECK(plan_trace(trace, o).size() == 59); // pandas: (s / 0.5 < 60).sum()
    o.duration.reset();
    o.count = 3;
    CHECK(plan_trace(trace, o).size() == 3);
    o.count = 1'000'000; // more than the trace: the whole trace, once
    CHECK(plan_trace(trace, o).size() == 19366);
}

TEST_CASE("arrivals: Mooncake synthetic trace replays its millisecond times and lengths") {
    const auto trace = servestat::read_arrivals(mooncake_synthetic);
    trace_options o;
    o.time_scale = 2;
    const auto plan = plan_trace(trace, o);
    REQUIRE(plan.size() == 3993);
    // The file's timestamps 0, 0, 40, 277, 471 ms, halved.
    const double t[] = {0.0, 0.0, 0.02, 0.1385, 0.2355};
    const int prompt[] = {40160, 36640, 23769, 32140, 18663};
    const int output[] = {6, 4, 3, 92, 210};
    for (std::size_t i = 0; i < 5; ++i) {
        INFO("arrival " << i);
        CHECK(plan[i].t_sched == Approx(t[i]).margin(1e-12));
        CHECK(plan[i].prompt_tokens == prompt[i]);
        CHECK(plan[i].output_tokens == output[i]);
    }
    o.time_scale = 4;
    o.duration = 60;
    CHECK(plan_trace(trace, o).size() == 877); // numpy: (s / 4 < 60).sum()
}

TEST_CASE("arrivals: a trace that does not start at 0 is shifted, one out of order is refused") {
    const std::vector<arrival> shifted = {{10.0, 5, 6}, {10.5, 7, 8}, {12.0, 9, 10}};
    const auto plan = plan_trace(shifted, {});
    REQUIRE(plan.size() == 3);
    CHECK(plan[0].t_sched == 0.0);
    CHECK(plan[1].t_sched == 0.5);
    CHECK(plan[2].t_sched == 2.0);
    CHECK(plan[2].prompt_tokens == 9);
    CHECK(plan_trace({}, {}).empty());
    const std::vector<arrival> backwards = {{0.0, 1, 1}, {2.0, 1, 1}, {1.0, 1, 1}};
    CHECK_THROWS_AS(plan_trace(backwards, {}), input_error);
}

TEST_CASE("arrivals: a bad time scale or trace limit throws usage_error naming the option") {
    const std::vector<arrival> trace = {{0.0, 1, 1}};
    for (const double x : {0.0, -1.0, inf, std::numeric_limits<double>::quiet_NaN()}) {
        trace_options o;
        o.time_scale = x;
        CHECK(contains(usage_message([&] { plan_trace(trace, o); }), "--time-scale"));
    }
    trace_options o;
    o.duration = 0;
    CHECK(contains(usage_message([&] { plan_trace(trace, o); }), "--duration"));
    o.duration.reset();
    o.count = 0;
    CHECK(contains(usage_message([&] { plan_trace(trace, o); }), "-n"));
}

} // namespace test_load_arrivals
