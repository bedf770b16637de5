// Intended start times for open-loop load: the t_sched of each request, in seconds from the run's
// start, planned before the run so that a late send shows up as client_queue (t_sent - t_sched)
// instead of silently stretching the schedule (coordinated omission).
//
// Rate patterns (--rate R):
// - Poisson: exponential gaps with mean 1/R;
// - gamma (--burstiness k): gaps Gamma(shape k, scale 1/(R k)), vLLM bench serve's semantics: the
//   mean gap stays 1/R, the coefficient of variation is 1/sqrt(k); k = 1 is Poisson (drawn as the
//   exponential, so --burstiness 1 gives the Poisson schedule of the same seed), k < 1 is burstier,
//   k > 1 more regular, k = +inf constant;
// - constant: gaps of exactly 1/R, t_i = i / R.
// Where the first request goes: a random pattern's first arrival is its first gap after 0 (as in
//   vLLM), so the schedule is a stationary process started at 0; the constant pattern's first is at
//   exactly 0 (vLLM's is at 1/R), so that --duration D holds ceil(R D) requests, R D when that is
//   whole, the count a rate of R over D seconds promises. Unlike vLLM, nothing is rescaled so that
//   the n-th arrival lands on n/R: rescaling would make the gaps depend on each other and has no
//   counterpart in --duration mode; the schedule's realised rate is the process's, noise included.
// -n N stops after N requests, --duration D before the first arrival at or after D; given both,
//   whichever comes first. --rate inf (count mode only) schedules every request at 0, as vLLM's
//   default does.
// Randomness comes from core/random.hpp's xoshiro256 and its exactly specified draws, never from
// <random>'s distributions, so a seed gives the same schedule on every platform up to libm.
//
// Trace replay (--trace FILE [--time-scale x]): the arrivals of an Azure or Mooncake trace, shifted
// so the first is at 0 and divided by x: x is trace seconds per wall second, as simulate's
// --time-scale is simulated seconds per wall second, so --time-scale 2 replays twice as fast and
// 0.5 at half speed, and a trace replayed at --time-scale 5 against `servestat simulate
// --time-scale 5` arrives at its original rate in simulated time.
#pragma once

#include <algorithm>   // std::min
#include <cmath>       // std::isinf, std::isfinite, std::ceil
#include <cstddef>     // std::size_t
#include <cstdint>     // std::int32_t, std::uint64_t
#include <optional>    // std::optional
#include <string>      // std::string
#include <string_view> // std::string_view
#include <vector>      // std::vector

#include "servestat/core/errors.hpp"            // usage_error, input_error
#include "servestat/core/random.hpp"            // detail::xoshiro256, standard_exponential, standard_gamma
#include "servestat/core/text.hpp"              // detail::shortest_number
#include "servestat/ingest/arrival_trace.hpp"   // arrival

namespace servestat::load {

// One request of an open-loop plan: when it should start and, when a trace gave them, its token
// counts (the workload may size its prompt and max_tokens after them).
struct planned_arrival {
    double t_sched = 0;
    std::optional<std::int32_t> prompt_tokens;
    std::optional<std::int32_t> output_tokens;
};

enum class arrival_process { poisson, gamma, constant };

inline constexpr std::string_view arrival_process_name(arrival_process p) noexcept {
    switch (p) {
    case arrival_process::poisson: return "poisson";
    case arrival_process::gamma: return "gamma";
    case arrival_process::constant: return "constant";
    }
    return "poisson";
}

struct arrival_options {
    double rate = 0;         // --rate, requests/s (> 0; +inf: all at 0, needs count)
    double burstiness = 1;   // --burstiness, the gamma shape (> 0; 1 Poisson, +inf constant)
    bool constant = false;   // constant spacing 1/rate (burstiness must then stay 1)
    std::optional<std::size_t> count; // -n
    std::optional<double> duration;   // --duration, seconds
    std::uint64_t seed = 0;           // --seed
};

struct trace_options {
    double time_scale = 1; // --time-scale: trace seconds per wall second (> 0; 2 = twice as fast)
    std::optional<std::size_t> count; // -n: the first n arrivals of the trace
    std::optional<double> duration;   // --duration: the arrivals before this many wall seconds
};

// More planned requests than a schedule vector will hold: 10 million is hours of load at any rate a
// single driver sustains, and a typo such as --rate 1e9 must not exhaust memory before the run.
// arrival_generator has no such limit.
inline constexpr std::size_t max_planned_arrivals = 10'000'000;

namespace detail {

inline std::string quoted_number(double x) {
    std::string out(" (got ");
    return out.append(servestat::detail::shortest_number(x)).append(")");
}

inline void check_count_and_duration(const std::optional<std::size_t>& count, const std::optional<double>& duration) {
    if (count && *count == 0) throw usage_error("-n must be at least 1 request");
    if (duration && !(*duration > 0 && std::isfinite(*duration)))
        throw usage_error(std::string("--duration must be a positive, finite number of seconds")
                              .append(quoted_number(*duration)));
}

inline const arrival_options& validated(const arrival_options& o) {
    if (!(o.rate > 0))
        throw usage_error(std::string("--rate must be a positive number of requests per second").append(quoted_number(o.rate)));
    if (!(o.burstiness > 0))
        throw usage_error(std::string("--burstiness must be positive (1 is Poisson, below 1 burstier, above 1 more "
                                      "regular)")
                              .append(quoted_number(o.burstiness)));
    if (o.constant && o.burstiness != 1 && !std::isinf(o.burstiness))
        throw usage_error("--burstiness has no meaning with constant spacing, whose gaps are exactly 1/rate");
    if (!o.count && !o.duration)
        throw usage_error("an open-loop schedule needs -n (a number of requests) or --duration (seconds)");
    check_count_and_duration(o.count, o.duration);
    if (std::isinf(o.rate) && !o.count)
        throw usage_error("--rate inf starts every request at once: give -n, --duration alone never ends");
    return o;
}

inline arrival_process process_of(const arrival_options& o) noexcept {
    if (o.constant || std::isinf(o.burstiness)) return arrival_process::constant;
    return o.burstiness == 1 ? arrival_process::poisson : arrival_process::gamma;
}

// How many requests a plan may hold at most (count, or about rate x duration), checked against
// max_planned_arrivals before anything is allocated.
inline std::size_t expected_size(const std::optional<std::size_t>& count, double rate,
                                 const std::optional<double>& duration) {
    double n = count ? static_cast<double>(*count) : 0;
    if (duration) {
        // A Poisson count over D has sd sqrt(R D): 6 of them, plus one, covers the random patterns.
        const double mean = rate * *duration;
        const double bound = std::ceil(mean + 6 * std::sqrt(mean) + 1);
        n = count ? std::min(n, bound) : bound;
    }
    if (!(n <= static_cast<double>(max_planned_arrivals)))
        throw usage_error(std::string("the schedule would hold about ")
                              .append(servestat::detail::shortest_number(std::ceil(n)))
                              .append(" requests, more than the limit of ")
                              .append(std::to_string(max_planned_arrivals))
                              .append(": lower -n, --rate or --duration"));
    return static_cast<std::size_t>(n);
}

} // namespace detail

// The start times of a rate pattern, one at a time, in order. Validates its options on
// construction (usage_error naming the option).
class arrival_generator {
public:
    explicit arrival_generator(const arrival_options& options)
        : options_(detail::validated(options)), process_(detail::process_of(options)), rng_(options.seed) {}

    // The next intended start time, or nullopt once -n or --duration is reached (and ever after).
    std::optional<double> next() {
        if (done_ || (options_.count && issued_ >= *options_.count)) return std::nullopt;
        const double t = next_time();
        if (options_.duration && !(t < *options_.duration)) {
            done_ = true;
            return std::nullopt;
        }
        ++issued_;
        return t;
    }

    arrival_process process() const noexcept { return process_; }

private:
    // x / inf = 0, so --rate inf needs no case of its own: every time stays 0.
    double next_time() {
        switch (process_) {
        case arrival_process::constant: return static_cast<double>(issued_) / options_.rate;
        case arrival_process::poisson: t_ += servestat::detail::standard_exponential(rng_) / options_.rate; break;
        case arrival_process::gamma:
            t_ += servestat::detail::standard_gamma(rng_, options_.burstiness) / (options_.rate * options_.burstiness);
            break;
        }
        return t_;
    }

    arrival_options options_;
    arrival_process process_;
    servestat::detail::xoshiro256 rng_;
    double t_ = 0;
    std::size_t issued_ = 0;
    bool done_ = false;
};

// The whole schedule of a rate pattern, without token counts.
inline std::vector<planned_arrival> plan_arrivals(const arrival_options& options) {
    arrival_generator generator(options);
    std::vector<planned_arrival> out;
    out.reserve(detail::expected_size(options.count, options.rate, options.duration));
    while (const auto t = generator.next()) out.push_back({*t, std::nullopt, std::nullopt});
    return out;
}

// The schedule of a trace replay, each request with the trace's token counts. The trace must be in
// time order (read_arrivals() guarantees it; a vector that is not throws input_error).
inline std::vector<planned_arrival> plan_trace(const std::vector<arrival>& trace, const trace_options& options) {
    if (!(options.time_scale > 0 && std::isfinite(options.time_scale)))
        throw usage_error(std::string("--time-scale must be a positive number (trace seconds per wall second: 2 "
                                      "replays twice as fast)")
                              .append(detail::quoted_number(options.time_scale)));
    detail::check_count_and_duration(options.count, options.duration);
    std::vector<planned_arrival> out;
    if (trace.empty()) return out;
    const std::size_t n = options.count ? std::min(*options.count, trace.size()) : trace.size();
    if (n > max_planned_arrivals)
        throw usage_error(std::string("the trace has ")
                              .append(std::to_string(n))
                              .append(" arrivals, more than the limit of ")
                              .append(std::to_string(max_planned_arrivals))
                              .append(": replay part of it with -n or --duration"));
    out.reserve(n);
    const double t0 = trace.front().t;
    for (std::size_t i = 0; i < n; ++i) {
        const arrival& a = trace[i];
        if (i > 0 && a.t < trace[i - 1].t)
            throw input_error("", 0, "t",
                              std::string("arrival ")
                                  .append(std::to_string(i))
                                  .append(" is earlier than the one before it: the trace must be in time order"));
        const double t = (a.t - t0) / options.time_scale;
        if (options.duration && !(t < *options.duration)) break;
        out.push_back({t, a.prompt_tokens, a.output_tokens});
    }
    return out;
}

} // namespace servestat::load
