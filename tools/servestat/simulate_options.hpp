// The flags of `servestat simulate` (CLI11), for main.cpp only: simulate.cpp, which runs the server,
// needs simulate_args and not the command line's parser.
#pragma once

#include <cstdint>     // std::int64_t
#include <optional>    // std::optional
#include <string>      // std::string
#include <type_traits> // std::is_floating_point_v

#include <CLI/CLI.hpp>  // CLI::App
#include <fmt/format.h> // fmt::format

#include <servestat/sim/engine.hpp>    // engine_config
#include <servestat/sim/gpu_power.hpp> // max_simulated_gpus
#include <servestat/sim/presets.hpp>   // presets

#include "simulate_command.hpp" // simulate_args

namespace servestat::cli {

namespace detail {

template <class T>
void add_override(CLI::App& cmd, const std::string& flag, std::optional<T>& target, const std::string& help,
                  T default_value) {
    cmd.add_option_function<T>(flag, [&target](const T& v) { target = v; },
                               fmt::format("{} (default {}, or the preset's)", help, default_value))
        ->type_name(std::is_floating_point_v<T> ? "SECONDS" : "INT");
}

// vLLM's on/off flag pair, e.g. "--enable-X,!--no-enable-X": the override set either way.
inline void add_switch(CLI::App& cmd, const std::string& flags, std::optional<bool>& target, const std::string& help) {
    cmd.add_flag_function(flags, [&target](std::int64_t n) { target = n > 0; }, help);
}

} // namespace detail

inline void add_simulate_options(CLI::App& cmd, simulate_args& a) {
    const sim::engine_config d{};
    cmd.add_option("--host", a.host, "Address to listen on")->capture_default_str();
    cmd.add_option("--port", a.port, "Port to listen on; 0 picks a free one (the URL is printed)")
        ->check(CLI::Range(0, 65535))
        ->capture_default_str();
    cmd.add_option("--preset", a.preset, "Named configuration, e.g. l4-qwen2.5-3b-bad (see --list-presets); "
                                         "scheduler and cost flags given too override it");
    cmd.add_flag("--list-presets", a.list_presets, "Print the presets and exit");
    cmd.add_option("--model", a.model, "Model name served and checked in requests")->capture_default_str();
    cmd.add_option("--time-scale", a.time_scale, "Run simulated time this many times faster than the wall clock")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    cmd.add_option("--max-body-bytes", a.max_body_bytes, "Largest request body accepted (413 above)")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    cmd.add_option("--seed", a.seed, "Seed of the generated text")->capture_default_str();
    detail::add_override(cmd, "--max-num-seqs", a.max_num_seqs, "Running sequences at most", d.max_num_seqs);
    detail::add_override(cmd, "--max-num-batched-tokens", a.max_num_batched_tokens, "Token budget of one step",
                         d.max_num_batched_tokens);
    detail::add_override(cmd, "--long-prefill-token-threshold", a.long_prefill_token_threshold,
                         "Largest prefill chunk of one sequence per step, 0 = off", d.long_prefill_token_threshold);
    detail::add_override(cmd, "--max-model-len", a.max_model_len, "Prompt plus output tokens at most",
                         d.max_model_len);
    detail::add_override(cmd, "--max-num-partial-prefills", a.max_num_partial_prefills,
                         "Sequences prefilling concurrently, sharing the step's budget; 1 = no limit",
                         d.max_num_partial_prefills);
    detail::add_override(cmd, "--max-long-partial-prefills", a.max_long_partial_prefills,
                         "Long prompts among those concurrent prefills", d.max_long_partial_prefills);
    detail::add_switch(cmd, "--enable-chunked-prefill,!--no-enable-chunked-prefill", a.chunked_prefill,
                       "Split long prompts across steps within the token budget (default on, or the preset's)");
    detail::add_override(cmd, "--step-overhead", a.step_overhead, "Seconds per engine step", d.step_overhead);
    detail::add_override(cmd, "--per-prefill-token", a.per_prefill_token, "Seconds per prompt token prefilled",
                         d.per_prefill_token);
    detail::add_override(cmd, "--per-decode-seq", a.per_decode_seq, "Seconds per sequence decoding in a step",
                         d.per_decode_seq);
    detail::add_override(cmd, "--per-context-token", a.per_context_token,
                         "Seconds per context token of every scheduled sequence", d.per_context_token);
    detail::add_switch(cmd, "--enable-prefix-caching,!--no-enable-prefix-caching", a.prefix_caching,
                       "vLLM's automatic prefix caching: prompt blocks already computed are not prefilled again (default off)");
    detail::add_override(cmd, "--block-size", a.block_size, "Tokens per prefix-cache block", d.block_size);
    detail::add_override(cmd, "--prefix-cache-tokens", a.prefix_cache_tokens,
                         "Prefix cache capacity in tokens (whole blocks), least recently used evicted first",
                         d.prefix_cache_tokens);
    detail::add_override(cmd, "--kv-cache-tokens", a.kv_cache_tokens,
                         "KV cache size in tokens as vLLM logs it (whole blocks of --block-size, one of them vLLM's "
                         "null block); running requests are preempted when it is full; 0 = unlimited",
                         d.kv_cache_tokens);
    cmd.add_option("--tls-cert,--ssl-certfile", a.tls_cert,
                   "PEM certificate (chain) to serve HTTPS with; needs --tls-key")
        ->type_name("FILE");
    cmd.add_option("--tls-key,--ssl-keyfile", a.tls_key, "PEM private key of --tls-cert")->type_name("FILE");
    auto* fail_rate = cmd.add_option("--fail-rate", a.fail_rate, "Answer this share (0-1) of generation requests "
                                                                 "with HTTP 500, drawn from --seed (default 0)")
                          ->check(CLI::Range(0.0, 1.0));
    cmd.add_option("--fail-after", a.fail_after, "Start failing requests this many simulated seconds after the first "
                                                 "generation request (default 0)")
        ->check(CLI::NonNegativeNumber)
        ->needs(fail_rate)
        ->type_name("SECONDS");
    cmd.add_flag("--enable-per-request-metrics", a.per_request_metrics,
                 "vLLM's per-request metrics: a `metrics` object (queue, TTFT from scheduling, decode, mean ITL, "
                 "tokens/s) in each response; streams carry it in the final usage chunk");
    cmd.add_flag("--enable-force-include-usage", a.force_include_usage,
                 "End every stream with the usage chunk, as if it asked with stream_options.include_usage");
    auto* gpu_power = cmd.add_option("--gpu-power", a.gpu_power,
                                     "Model GPU power on /metrics under DCGM's names (DCGM_FI_DEV_POWER_USAGE, "
                                     "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION): watts per GPU while the engine is idle "
                                     "and while it steps, e.g. 60:300 (a model, not a measurement; default off)")
                          ->type_name("IDLE:BUSY")
                          ->check([](const std::string& v) {
                              return v.empty() ? std::string("an empty --gpu-power; expected IDLE:BUSY, e.g. 60:300")
                                               : std::string();
                          });
    cmd.add_option("--gpus", a.gpus, "With --gpu-power: the GPUs the server runs on, each drawing the modelled power")
        ->check(CLI::Range(1, static_cast<int>(sim::max_simulated_gpus)))
        ->needs(gpu_power)
        ->capture_default_str();
}

} // namespace servestat::cli
