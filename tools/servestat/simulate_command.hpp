// `servestat simulate`: options of the simulated vLLM server. The server itself (Beast) lives in
// simulate.cpp, a translation unit of its own, so main.cpp compiles without Beast; the flags that
// set these options are simulate_options.hpp's, so simulate.cpp compiles without CLI11.
#pragma once

#include <cstddef>  // std::size_t
#include <cstdint>  // std::int32_t, std::int64_t, std::uint64_t
#include <optional> // std::optional
#include <string>   // std::string

#include <fmt/format.h> // fmt::format

#include <servestat/core/errors.hpp> // usage_error
#include <servestat/sim/engine.hpp>    // engine_config, validate
#include <servestat/sim/gpu_power.hpp> // gpu_power_config, parse_gpu_power
#include <servestat/sim/presets.hpp>   // find_preset, presets

namespace servestat::cli {

struct simulate_args {
    std::string host = "127.0.0.1";
    int port = 8000;
    std::string preset; // empty: engine_config's defaults
    bool list_presets = false;
    std::string model = "Qwen/Qwen2.5-3B-Instruct";
    double time_scale = 1.0;
    std::size_t max_body_bytes = 1 << 20;
    std::uint64_t seed = 0;
    // Scheduler and cost flags given on the command line; each overrides the preset's value.
    std::optional<std::int32_t> max_num_seqs, max_num_batched_tokens, long_prefill_token_threshold, max_model_len,
        max_num_partial_prefills, max_long_partial_prefills;
    std::optional<bool> chunked_prefill;
    std::optional<double> step_overhead, per_prefill_token, per_decode_seq, per_context_token;
    // vLLM's automatic prefix caching (off unless asked for, so presets keep their timings).
    std::optional<bool> prefix_caching;
    std::optional<std::int32_t> block_size, prefix_cache_tokens;
    // KV-cache capacity in tokens (0 = unlimited); presets set the L4's.
    std::optional<std::int32_t> kv_cache_tokens;
    // HTTPS: a PEM certificate (chain) and its private key; both empty: plain HTTP.
    std::string tls_cert, tls_key;
    // Failure injection: a seeded share of generation requests answered HTTP 500, from fail_after
    // simulated seconds after the first one on.
    double fail_rate = 0;
    double fail_after = 0;
    // vLLM's --enable-per-request-metrics and --enable-force-include-usage.
    bool per_request_metrics = false;
    bool force_include_usage = false;
    // Modelled GPU power on /metrics: "IDLE:BUSY" watts per GPU (empty: off) over `gpus` GPUs.
    std::string gpu_power;
    std::int32_t gpus = 1;
};

// The preset (or the defaults) with the flags given on top; throws usage_error on an unknown preset
// or a configuration the engine refuses.
inline sim::engine_config simulate_engine_config(const simulate_args& a) {
    sim::engine_config c{};
    if (!a.preset.empty()) {
        const auto* p = sim::find_preset(a.preset);
        if (!p) {
            std::string names;
            for (const auto& known : sim::presets) names.append(names.empty() ? "" : ", ").append(known.name);
            throw usage_error(fmt::format("unknown preset '{}'; known: {}", a.preset, names));
        }
        c = p->config;
    }
    if (a.max_num_seqs) c.max_num_seqs = *a.max_num_seqs;
    if (a.max_num_batched_tokens) c.max_num_batched_tokens = *a.max_num_batched_tokens;
    if (a.chunked_prefill) c.chunked_prefill = *a.chunked_prefill;
    if (a.long_prefill_token_threshold) c.long_prefill_token_threshold = *a.long_prefill_token_threshold;
    if (a.max_model_len) c.max_model_len = *a.max_model_len;
    if (a.max_num_partial_prefills) c.max_num_partial_prefills = *a.max_num_partial_prefills;
    if (a.max_long_partial_prefills) c.max_long_partial_prefills = *a.max_long_partial_prefills;
    if (a.step_overhead) c.step_overhead = *a.step_overhead;
    if (a.per_prefill_token) c.per_prefill_token = *a.per_prefill_token;
    if (a.per_decode_seq) c.per_decode_seq = *a.per_decode_seq;
    if (a.per_context_token) c.per_context_token = *a.per_context_token;
    if (a.prefix_caching) c.prefix_caching = *a.prefix_caching;
    if (a.block_size) c.block_size = *a.block_size;
    if (a.prefix_cache_tokens) c.prefix_cache_tokens = *a.prefix_cache_tokens;
    if (a.kv_cache_tokens) c.kv_cache_tokens = *a.kv_cache_tokens;
    sim::validate(c);
    return c;
}

// --gpu-power and --gpus, or nothing without --gpu-power; throws usage_error on a malformed or
// impossible IDLE:BUSY.
inline std::optional<sim::gpu_power_config> simulate_gpu_power(const simulate_args& a) {
    if (a.gpu_power.empty()) return std::nullopt;
    return sim::parse_gpu_power(a.gpu_power, a.gpus);
}

// Defined in simulate.cpp. Serves until SIGINT or SIGTERM; returns the exit code.
int run_simulate_command(const simulate_args& a);

} // namespace servestat::cli
