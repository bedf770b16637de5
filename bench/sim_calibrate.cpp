// Prints the simulated closed-loop table of Experiment 3 for the simulator presets, or for cost
// coefficients given on the command line, to calibrate include/servestat/sim/presets.hpp.
//   g++ -std=c++20 -O2 -Iinclude bench/sim_calibrate.cpp -o sim_calibrate
//   ./sim_calibrate                       # both presets, and the fair one as the notebook ran it
//   ./sim_calibrate 0.026 0.0001 0.0004 5e-7   # step_overhead per_prefill_token per_decode_seq per_context_token
#include <cstdio>   // std::printf
#include <cstdlib>  // std::atof
#include <string>   // std::string

#include "servestat/sim/closed_loop.hpp" // run_closed_loop, mix_workload, summarize
#include "servestat/sim/presets.hpp"     // find_preset

namespace sim = servestat::sim;

static void table(const char* label, const sim::engine_config& config) {
    const auto items = sim::mix_workload(0.5, 200, 1);
    std::printf("%s\n%4s %7s %8s %7s %7s %7s %7s %9s %8s\n", label, "c", "rps", "wall_s", "p50", "p90", "p99",
                "mean", "short_p99", "long_p99");
    for (int c : {1, 2, 4, 8, 16, 32, 48, 64}) {
        const auto s = sim::summarize(sim::run_closed_loop(config, items, c, 200));
        std::printf("%4d %7.3f %8.2f %7.3f %7.3f %7.3f %7.3f %9.3f %8.3f\n", c, s.rps, 200 / s.rps, s.p50, s.p90,
                    s.p99, s.mean, s.short_p99, s.long_p99);
    }
}

int main(int argc, char** argv) {
    if (argc == 5 || argc == 6) {
        for (const char* name : {"l4-qwen2.5-3b-bad", "l4-qwen2.5-3b-fair"}) {
            sim::engine_config c = sim::find_preset(name)->config;
            c.step_overhead = std::atof(argv[1]);
            c.per_prefill_token = std::atof(argv[2]);
            c.per_decode_seq = std::atof(argv[3]);
            c.per_context_token = std::atof(argv[4]);
            table(name, c);
        }
        return 0;
    }
    for (const auto& p : sim::presets) table(std::string(p.name).c_str(), p.config);
    // vLLM 0.13 (V1), which the notebook ran, has no concurrent partial prefills: its FAIR server
    // is the fair preset with them off.
    sim::engine_config v1_fair = sim::find_preset("l4-qwen2.5-3b-fair")->config;
    v1_fair.max_num_partial_prefills = 1;
    v1_fair.max_long_partial_prefills = 1;
    table("l4-qwen2.5-3b-fair --max-num-partial-prefills 1 --max-long-partial-prefills 1", v1_fair);
}
