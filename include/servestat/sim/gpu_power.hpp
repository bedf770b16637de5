// The simulator's modelled GPU power and energy (`servestat simulate --gpu-power IDLE:BUSY --gpus N`),
// on /metrics under the NVIDIA DCGM exporter's names. A model of the engine's schedule, not a measurement.
#pragma once

#include <algorithm>    // std::max, std::min
#include <charconv>     // std::from_chars
#include <cmath>        // std::isfinite, std::floor
#include <cstdint>      // std::int32_t
#include <deque>        // std::deque
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <system_error> // std::errc

#include <fmt/format.h> // fmt::format

#include "servestat/core/errors.hpp" // usage_error
#include "servestat/sim/metrics.hpp" // detail::append_family_header, detail::prometheus_label_value

// The model (docs/simulator.md, "Modelled GPU power"): each GPU draws
//   p(t) = IDLE + (BUSY - IDLE) * u(t),   u(t) = 1 while the engine runs a step, 0 while it is idle,
// and the --gpus GPUs draw alike (tensor-parallel ranks step together), so the server draws N * p(t).
// u is the engine's busy time, not the step's share of its token budget (max_num_batched_tokens):
// the cost model says how long a step keeps the GPU working, not how hard, and a decode step of 256
// sequences fills 3% of an 8192-token budget while it keeps the GPU busy for all of its duration.
// DCGM's own utilisation (DCGM_FI_DEV_GPU_UTIL) is likewise the share of time a kernel runs; averaged
// over a period, u is exactly that share.
//
// Time is the client's clock (simulated seconds / --time-scale) from the server's start, as for every
// time on /metrics, so that energy over an interval of the client's divided by the tokens it counted
// in that interval is energy per token:
//   DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION = the integral of p from the start, exact (p is piecewise
//     constant), in whole millijoules as the exporter writes this INT64 field (rounded down, so that
//     it never decreases);
//   DCGM_FI_DEV_POWER_USAGE = p's mean over the last second (since the start when that is shorter),
//     as nvmlDeviceGetPowerUsage, which the exporter reads, averages over 1 s on Ampere and later
//     GPUs. An instantaneous value would flicker between IDLE and BUSY with steps of milliseconds.
// So the gauge at t is (counter(t) - counter(t - 1 s)) / 1 s, up to the counter's rounding to mJ.

namespace servestat::sim {

struct gpu_power_config {
    double idle_watts = 0;  // one GPU, while the engine is idle
    double busy_watts = 0;  // one GPU, while the engine runs a step
    std::int32_t gpus = 1;  // GPUs the server runs on, each drawing the same
};

// /metrics renders one sample per GPU and family: a bound keeps a typo from making it gigabytes.
inline constexpr std::int32_t max_simulated_gpus = 1024;

inline void validate(const gpu_power_config& c) {
    if (!(std::isfinite(c.idle_watts) && c.idle_watts >= 0))
        throw usage_error("simulator: the idle GPU power must be a finite number of watts, 0 or more");
    if (!(std::isfinite(c.busy_watts) && c.busy_watts > 0 && c.busy_watts >= c.idle_watts))
        throw usage_error("simulator: the busy GPU power must be a finite number of watts, above 0 and at least "
                          "the idle power");
    if (c.gpus < 1 || c.gpus > max_simulated_gpus)
        throw usage_error(fmt::format("simulator: the number of GPUs must be from 1 to {}", max_simulated_gpus));
}

namespace detail {

inline bool parse_watts(std::string_view text, double& out) {
    const char* end = text.data() + text.size();
    const auto [stop, ec] = std::from_chars(text.data(), end, out);
    return ec == std::errc() && stop == end;
}

} // namespace detail

// "IDLE:BUSY" in watts per GPU (--gpu-power 60:300), checked with validate().
inline gpu_power_config parse_gpu_power(std::string_view text, std::int32_t gpus) {
    const auto colon = text.find(':');
    gpu_power_config c;
    c.gpus = gpus;
    if (colon == std::string_view::npos || !detail::parse_watts(text.substr(0, colon), c.idle_watts) ||
        !detail::parse_watts(text.substr(colon + 1), c.busy_watts))
        throw usage_error(fmt::format("--gpu-power expects IDLE:BUSY in watts per GPU, e.g. 60:300; got '{}'", text));
    validate(c);
    return c;
}

// The engine's busy intervals on the client's clock and the power and energy the model gives them.
class gpu_power_meter {
public:
    static constexpr double window_seconds = 1.0; // the power gauge's averaging period

    explicit gpu_power_meter(gpu_power_config c) : config_(c) { validate(config_); }

    const gpu_power_config& config() const { return config_; }

    // The engine runs a step from `start` to `end`, client-clock seconds since the server started.
    // Steps come in order without overlapping. Queries after this one are at `start` - window_seconds
    // or later (the server asks at its clock's now, past every step's start, and its clock only goes
    // forward), so steps that ended two windows before `start` are folded into a sum: the meter holds
    // the last seconds of steps, not a whole run's.
    void record_step(double start, double end) {
        if (!(start >= last_end_ && end >= start))
            throw usage_error("simulator: GPU power steps must come in order and not overlap");
        steps_.push_back({start, end});
        last_end_ = end;
        while (!steps_.empty() && steps_.front().end <= start - 2 * window_seconds) {
            folded_busy_ += steps_.front().end - steps_.front().start;
            folded_until_ = steps_.front().end;
            steps_.pop_front();
        }
    }

    // Seconds of [0, t] in which the engine ran a step.
    double busy_seconds(double t) const {
        if (t < folded_until_)
            throw usage_error("simulator: GPU power asked about a time before the steps it has summed up");
        double busy = folded_busy_;
        for (const auto& s : steps_) {
            if (s.start >= t) break;
            busy += std::min(s.end, t) - s.start;
        }
        return busy;
    }

    // One GPU's energy over [0, t], joules: the exact integral of its modelled power.
    double energy_joules(double t) const {
        const double span = std::max(t, 0.0);
        return config_.idle_watts * span + (config_.busy_watts - config_.idle_watts) * busy_seconds(span);
    }

    // One GPU's power at t, watts: its mean over the window before t (over [0, t] early on).
    double power_watts(double t) const {
        const double from = std::max(0.0, t - window_seconds);
        if (!(t > from)) return config_.idle_watts + (config_.busy_watts - config_.idle_watts) * busy_at(t);
        return (energy_joules(t) - energy_joules(from)) / (t - from);
    }

    // The exporter's two families at client time t, one sample per GPU, HELP as its default counters
    // file (etc/default-counters.csv) has it; "boot" is the server's start.
    void append_samples(std::string& out, double t) const {
        detail::append_family_header(out, "DCGM_FI_DEV_POWER_USAGE", "gauge", "Power draw (in W).");
        const std::string power = fmt::format("{:.6f}", power_watts(t)); // the exporter's %f
        for (std::int32_t gpu = 0; gpu < config_.gpus; ++gpu)
            append_sample(out, "DCGM_FI_DEV_POWER_USAGE", gpu, power);
        detail::append_family_header(out, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "counter",
                                     "Total energy consumption since boot (in mJ).");
        const std::string energy = fmt::format("{:.0f}", std::floor(energy_joules(t) * 1000));
        for (std::int32_t gpu = 0; gpu < config_.gpus; ++gpu)
            append_sample(out, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", gpu, energy);
    }

private:
    struct busy_interval {
        double start, end;
    };

    // 1 inside a step, 0 outside: u(t) itself.
    double busy_at(double t) const {
        for (const auto& s : steps_)
            if (s.start <= t && t < s.end) return 1;
        return 0;
    }

    // The exporter's labels (gpu, UUID, pci_bus_id, device, modelName, Hostname), made up so that
    // they are plainly not hardware, and the same on every run.
    static void append_sample(std::string& out, std::string_view name, std::int32_t gpu, std::string_view value) {
        out.append(name).append(fmt::format(
            "{{gpu=\"{0}\",UUID=\"GPU-00000000-0000-0000-0000-{0:012x}\",pci_bus_id=\"00000000:{1:02X}:00.0\","
            "device=\"nvidia{0}\",modelName=\"{2}\",Hostname=\"{3}\"}} ",
            gpu, gpu + 1, detail::prometheus_label_value(simulated_model_name),
            detail::prometheus_label_value(simulated_host_name)));
        out.append(value).append("\n");
    }

    static constexpr std::string_view simulated_model_name = "servestat simulated GPU";
    static constexpr std::string_view simulated_host_name = "servestat-simulate";

    gpu_power_config config_;
    std::deque<busy_interval> steps_; // those a query may still see partly or in its window
    double folded_busy_ = 0;          // total length of the steps folded out of steps_
    double folded_until_ = 0;         // the end of the last of them
    double last_end_ = 0;
};

} // namespace servestat::sim
