// Tests for the simulator's modelled GPU power (servestat/sim/gpu_power.hpp): the model
// p = IDLE + (BUSY - IDLE) * u with u = 1 inside a step, the energy counter as its exact integral, the
// gauge as its mean over the last second, and the DCGM exporter's exposition. Expected values are
// worked out by hand with IDLE 60 W and BUSY 300 W, so a busy second costs 240 J above idle.
#include "servestat/ingest/prometheus_text.hpp" // parse_prometheus_text, prometheus_type
#include "servestat/sim/gpu_power.hpp"

#include <cmath>   // std::floor
#include <cstddef> // std::size_t
#include <cstdint> // std::int32_t
#include <string>  // std::string
#include <vector>  // std::vector

#include <catch2/catch.hpp> // TEST_CASE, SECTION, REQUIRE, CHECK, CHECK_THROWS_AS, Approx

namespace test_sim_gpu_power { // the unity build compiles several test files as one: each keeps its names

namespace {

namespace sim = servestat::sim;
using servestat::usage_error;

sim::gpu_power_meter meter(std::int32_t gpus = 1) { return sim::gpu_power_meter({60, 300, gpus}); }

struct interval {
    double start, end;
};

// The midpoint rule over the model's instantaneous power of one GPU (300 W inside a step, 60 W
// outside), from the steps alone, fine enough that cutting a step costs little.
double integrate_model_power(const std::vector<interval>& steps, double until) {
    const double dt = 1e-5;
    double integral = 0;
    std::size_t next = 0; // the first step not yet over at x
    for (double x = dt / 2; x < until; x += dt) {
        while (next < steps.size() && steps[next].end <= x) ++next;
        const bool busy = next < steps.size() && steps[next].start <= x;
        integral += (busy ? 300 : 60) * dt;
    }
    return integral;
}

} // namespace

TEST_CASE("GPU power: an idle simulator's counter grows at IDLE watts per GPU", "[sim][gpu_power]") {
    const auto m = meter();
    CHECK(m.energy_joules(0) == 0);
    CHECK(m.energy_joules(10) == Approx(600)); // 60 W * 10 s
    CHECK(m.energy_joules(12.5) - m.energy_joules(10) == Approx(150));
    CHECK(m.power_watts(0) == 60);
    CHECK(m.power_watts(0.25) == Approx(60)); // the first second: the mean since the start
    CHECK(m.power_watts(10) == Approx(60));
    CHECK(m.busy_seconds(10) == 0);
}

TEST_CASE("GPU power: a known busy period gives the energy worked out by hand", "[sim][gpu_power]") {
    // Asked as the server asks: each step recorded as it starts, queries at the server's now.
    auto m = meter();
    // Two steps back to back over [2, 3], one more over [4, 4.25]: 1.25 s busy.
    m.record_step(2.0, 2.5);
    CHECK(m.energy_joules(2.0) == Approx(120));                     // idle so far
    CHECK(m.energy_joules(2.25) == Approx(60 * 2.25 + 240 * 0.25)); // part way into the step: 195 J
    m.record_step(2.5, 3.0);
    CHECK(m.energy_joules(3.0) == Approx(60 * 3 + 240 * 1.0)); // 420 J
    CHECK(m.power_watts(3.0) == Approx(300));                  // the gauge: [2, 3] all busy
    CHECK(m.power_watts(3.5) == Approx(60 + 240 * 0.5));       // [2.5, 3.5]: half busy, 180 W
    m.record_step(4.0, 4.25);
    CHECK(m.power_watts(4.5) == Approx(60 + 240 * 0.25)); // [3.5, 4.5]: a quarter busy, 120 W
    CHECK(m.energy_joules(5.0) == Approx(60 * 5 + 240 * 1.25)); // 600 J
    CHECK(m.busy_seconds(5.0) == Approx(1.25));
    CHECK(m.power_watts(6.0) == Approx(60));
}

TEST_CASE("GPU power: the counter is the integral of the model's power, the gauge its one-second mean",
          "[sim][gpu_power]") {
    // Uneven steps and gaps, some shorter than a millisecond, over 30 s.
    std::vector<interval> steps;
    double t = 0.3;
    for (int k = 0; t < 30; ++k) {
        const double length = 0.0005 + 0.001 * (k % 17);
        steps.push_back({t, t + length});
        t += length + 0.0003 * (k % 5) + (k % 41 == 0 ? 0.7 : 0); // now and then an idle gap
    }
    // Recorded as the server records them, the gauge checked at times on the way as a scraper reads it.
    auto m = meter();
    std::vector<double> scrapes = {1.0, 7.3, 15.0, 22.2201, 29.5};
    std::size_t next = 0;
    for (const auto& s : steps) {
        for (; next < scrapes.size() && scrapes[next] < s.start; ++next) {
            const double at = scrapes[next];
            INFO("t = " << at);
            CHECK(m.power_watts(at) == Approx(m.energy_joules(at) - m.energy_joules(at - 1)));
            CHECK(m.energy_joules(at) == Approx(integrate_model_power(steps, at)).epsilon(1e-4));
        }
        m.record_step(s.start, s.end);
    }
    const double end = steps.back().end;
    CHECK(m.energy_joules(end) == Approx(integrate_model_power(steps, end)).epsilon(1e-4));
    CHECK(next == scrapes.size());
    CHECK(m.busy_seconds(end) > 5); // the steps kept it busy a good part of the time
}

TEST_CASE("GPU power: many steps fold into a sum without changing the energy", "[sim][gpu_power]") {
    auto m = meter();
    // 10 ms steps every 15 ms: two thirds busy, 10000 steps over 150 s.
    for (int k = 0; k < 10000; ++k) m.record_step(k * 0.015, k * 0.015 + 0.010);
    CHECK(m.busy_seconds(150) == Approx(100));
    CHECK(m.energy_joules(150) == Approx(60 * 150 + 240 * 100)); // 33000 J
    CHECK(m.power_watts(149.995) == Approx(60 + 240 * 2.0 / 3).margin(2.4)); // within a step's cut of the window
}

TEST_CASE("GPU power: the rendered counter never goes down, queried as time goes on", "[sim][gpu_power]") {
    auto m = meter();
    double previous = -1;
    for (int k = 0; k < 2000; ++k) {
        const double start = k * 0.0037;
        m.record_step(start, start + 0.0021);
        for (const double at : {start, start + 0.001, start + 0.003}) {
            const double mj = std::floor(m.energy_joules(at) * 1000);
            REQUIRE(mj >= previous);
            previous = mj;
        }
    }
}

TEST_CASE("GPU power: /metrics carries DCGM exporter's two families, one sample per GPU", "[sim][gpu_power]") {
    const auto m = meter(2);
    std::string out;
    m.append_samples(out, 10); // idle for 10 s: 60 W, 600 J = 600000 mJ per GPU
    const std::string labels0 = "{gpu=\"0\",UUID=\"GPU-00000000-0000-0000-0000-000000000000\","
                                "pci_bus_id=\"00000000:01:00.0\",device=\"nvidia0\","
                                "modelName=\"servestat simulated GPU\",Hostname=\"servestat-simulate\"}";
    const std::string labels1 = "{gpu=\"1\",UUID=\"GPU-00000000-0000-0000-0000-000000000001\","
                                "pci_bus_id=\"00000000:02:00.0\",device=\"nvidia1\","
                                "modelName=\"servestat simulated GPU\",Hostname=\"servestat-simulate\"}";
    CHECK(out == "# HELP DCGM_FI_DEV_POWER_USAGE Power draw (in W).\n"
                 "# TYPE DCGM_FI_DEV_POWER_USAGE gauge\n"
                 "DCGM_FI_DEV_POWER_USAGE" + labels0 + " 60.000000\n"
                 "DCGM_FI_DEV_POWER_USAGE" + labels1 + " 60.000000\n"
                 "# HELP DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION Total energy consumption since boot (in mJ).\n"
                 "# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter\n"
                 "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION" + labels0 + " 600000\n"
                 "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION" + labels1 + " 600000\n");
    // servestat's own reader sums the GPUs, as PromQL's sum() would.
    const auto scrape = servestat::parse_prometheus_text(out, "metrics");
    CHECK(scrape.types.at("DCGM_FI_DEV_POWER_USAGE") == servestat::prometheus_type::gauge);
    CHECK(scrape.types.at("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION") == servestat::prometheus_type::counter);
    CHECK(scrape.value("DCGM_FI_DEV_POWER_USAGE") == Approx(120));
    CHECK(scrape.value("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION") == Approx(1200000));
    CHECK(scrape.label_sets.at("DCGM_FI_DEV_POWER_USAGE") == 2);
}

TEST_CASE("GPU power: the counter is whole millijoules, rounded down", "[sim][gpu_power]") {
    auto m = meter();
    m.record_step(0, 0.0000041); // 300 W for 4.1 us: 1.23 mJ
    std::string out;
    m.append_samples(out, 0.0000041);
    CHECK(out.find("\"} 1\n") != std::string::npos);
}

TEST_CASE("GPU power: --gpu-power IDLE:BUSY and its limits", "[sim][gpu_power]") {
    const auto c = sim::parse_gpu_power("60:300", 4);
    CHECK(c.idle_watts == 60);
    CHECK(c.busy_watts == 300);
    CHECK(c.gpus == 4);
    CHECK(sim::parse_gpu_power("0:72.5", 1).busy_watts == 72.5);
    CHECK(sim::parse_gpu_power("70:70", 1).idle_watts == 70); // a constant draw is a model too
    for (const char* bad : {"300", "300:60", "-1:300", "60:300x", ":300", "60:", "nan:300", "60:inf", "0:0", "60;300"}) {
        INFO(bad);
        CHECK_THROWS_AS(sim::parse_gpu_power(bad, 1), usage_error);
    }
    CHECK_THROWS_AS(sim::parse_gpu_power("60:300", 0), usage_error);
    CHECK_THROWS_AS(sim::parse_gpu_power("60:300", sim::max_simulated_gpus + 1), usage_error);
}

TEST_CASE("GPU power: steps must come in order without overlapping", "[sim][gpu_power]") {
    auto m = meter();
    m.record_step(1, 2);
    CHECK_THROWS_AS(m.record_step(1.5, 3), usage_error);
    CHECK_THROWS_AS(m.record_step(3, 2.5), usage_error);
    m.record_step(2, 3); // back to back is fine
    CHECK(m.busy_seconds(3) == Approx(2));
    // Steps that ended two seconds before the latest start are summed up: earlier times are gone.
    m.record_step(5.5, 6);
    CHECK(m.energy_joules(4.5) == Approx(60 * 4.5 + 240 * 2));
    m.record_step(7, 8);
    CHECK_THROWS_AS(m.energy_joules(2.5), usage_error);
    CHECK(m.energy_joules(4.5) == Approx(60 * 4.5 + 240 * 2)); // after the summed-up steps: still exact
    CHECK(m.power_watts(6) == Approx(60 + 240 * 0.5));         // a window before the latest start
}

} // namespace test_sim_gpu_power
