// A closed-loop load test against the simulated engine in simulated time, for calibration and tests.
#pragma once

#include <algorithm>   // std::sort, std::swap
#include <cmath>       // std::lround
#include <cstddef>     // std::size_t
#include <cstdint>     // std::int32_t, std::uint64_t
#include <span>        // std::span
#include <vector>      // std::vector

#include "servestat/core/errors.hpp"     // usage_error
#include "servestat/core/random.hpp"     // detail::splitmix64
#include "servestat/sim/engine.hpp"      // engine, engine_config
#include "servestat/stats/quantile.hpp"  // quantile_sorted

// `concurrency` clients each send a request, wait for its last token, and send the next one at once
// (no network, no tokenization, no client think time), like the notebook's run_load() against a
// server on localhost. Everything runs in simulated seconds, so a 200-request sweep point costs
// microseconds and gives the same numbers everywhere.

namespace servestat::sim {

struct workload_item {
    std::int32_t prompt_tokens;
    std::int32_t max_tokens;
};

// One completed request; all times in seconds since the start of the run.
struct closed_loop_request {
    std::int32_t prompt_tokens = 0;
    double arrival = 0;
    double first_token = 0;
    double end = 0;
    double queue = 0, prefill = 0, decode = 0; // as engine's `finished`
    double latency() const { return end - arrival; }
};

struct closed_loop_result {
    std::vector<closed_loop_request> requests; // in completion order
    double wall_time = 0;                      // start to the last request's end
    double rps = 0;                            // completed requests / wall_time
};

// The latency summary the notebook's Experiment 3 prints per concurrency (numpy's default linear
// quantiles). A subset with no requests reports 0.
struct closed_loop_summary {
    double rps = 0, p50 = 0, p90 = 0, p99 = 0, mean = 0, short_p99 = 0, long_p99 = 0;
    std::size_t short_n = 0, long_n = 0;
};

namespace detail {

// Uniform in [lo, hi]; the modulo bias is below 1e-15 for these ranges.
inline std::int32_t between(servestat::detail::splitmix64& rng, std::int32_t lo, std::int32_t hi) {
    return lo + static_cast<std::int32_t>(rng.next() % static_cast<std::uint64_t>(hi - lo + 1));
}

inline double sorted_quantile(std::vector<double>& xs, double q) {
    if (xs.empty()) return 0;
    std::sort(xs.begin(), xs.end());
    return quantile_sorted(xs, q);
}

} // namespace detail

// The notebook's short prompts after Qwen's chat template (36-45 tokens) and its long ones
// (2048-4000, leaving room for 16 output tokens in a 4096 context); every request asks for 16 tokens.
inline constexpr std::int32_t mix_short_min = 36, mix_short_max = 45;
inline constexpr std::int32_t mix_long_min = 2048, mix_long_max = 4000;
inline constexpr std::int32_t mix_max_tokens = 16;

// n requests, round(long_share * n) of them long, in a shuffled order fixed by `seed`. An exact
// share (rather than a coin per request) keeps every seed's mix equal to the notebook's 50/50 file.
inline std::vector<workload_item> mix_workload(double long_share, int n, std::uint64_t seed) {
    if (!(long_share >= 0 && long_share <= 1)) throw usage_error("mix_workload: long_share must be in [0, 1]");
    if (n < 0) throw usage_error("mix_workload: n must not be negative");
    servestat::detail::splitmix64 rng{seed};
    const auto longs = static_cast<int>(std::lround(long_share * n));
    std::vector<workload_item> items;
    items.reserve(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
        const bool is_long = i < longs;
        items.push_back({is_long ? detail::between(rng, mix_long_min, mix_long_max) : detail::between(rng, mix_short_min, mix_short_max),
                         mix_max_tokens});
    }
    for (std::size_t i = items.size(); i > 1; --i) // Fisher-Yates
        std::swap(items[i - 1], items[static_cast<std::size_t>(rng.next() % i)]);
    return items;
}

// Runs total_requests requests, items[k % items.size()] for the k-th, with `concurrency` clients.
inline closed_loop_result run_closed_loop(const engine_config& config, std::span<const workload_item> items,
                                          int concurrency, int total_requests) {
    if (items.empty()) throw usage_error("run_closed_loop: the workload is empty");
    if (concurrency < 1) throw usage_error("run_closed_loop: concurrency must be at least 1");
    if (total_requests < 0) throw usage_error("run_closed_loop: total_requests must not be negative");
    engine e(config);
    std::vector<closed_loop_request> open(static_cast<std::size_t>(total_requests)); // by request id
    int issued = 0;
    auto issue = [&](double now) {
        const auto& item = items[static_cast<std::size_t>(issued) % items.size()];
        open[static_cast<std::size_t>(issued)].prompt_tokens = item.prompt_tokens;
        open[static_cast<std::size_t>(issued)].arrival = now;
        e.add({static_cast<std::uint64_t>(issued), item.prompt_tokens, item.max_tokens}, now);
        ++issued;
    };
    while (issued < std::min(concurrency, total_requests)) issue(0.0);

    closed_loop_result out;
    out.requests.reserve(open.size());
    double now = 0;
    while (!e.idle()) {
        const step_result r = e.step(now);
        now += r.duration;
        for (const finished& f : r.done) {
            auto& q = open[static_cast<std::size_t>(f.id)];
            q.end = now;
            q.queue = f.queue;
            q.prefill = f.prefill;
            q.decode = f.decode;
            q.first_token = q.arrival + f.queue + f.prefill;
            out.requests.push_back(q);
            if (issued < total_requests) issue(now); // the client sends its next request at once
        }
    }
    out.wall_time = now;
    out.rps = now > 0 ? static_cast<double>(out.requests.size()) / now : 0;
    return out;
}

// The notebook's cut-offs: short <= 64 prompt tokens, long >= 2048.
inline closed_loop_summary summarize(const closed_loop_result& r, std::int32_t short_cutoff = 64,
                                     std::int32_t long_cutoff = 2048) {
    std::vector<double> all, shorts, longs;
    double sum = 0;
    for (const auto& q : r.requests) {
        all.push_back(q.latency());
        sum += q.latency();
        if (q.prompt_tokens <= short_cutoff) shorts.push_back(q.latency());
        if (q.prompt_tokens >= long_cutoff) longs.push_back(q.latency());
    }
    closed_loop_summary s;
    s.rps = r.rps;
    s.mean = all.empty() ? 0 : sum / static_cast<double>(all.size());
    s.short_n = shorts.size();
    s.long_n = longs.size();
    s.p50 = detail::sorted_quantile(all, 0.50);
    s.p90 = detail::sorted_quantile(all, 0.90);
    s.p99 = detail::sorted_quantile(all, 0.99);
    s.short_p99 = detail::sorted_quantile(shorts, 0.99);
    s.long_p99 = detail::sorted_quantile(longs, 0.99);
    return s;
}

} // namespace servestat::sim
