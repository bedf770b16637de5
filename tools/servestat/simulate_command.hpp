// `servestat simulate`: options of the simulated vLLM server. The server itself (Beast) lives in
// simulate.cpp, a translation unit of its own, so main.cpp compiles without Beast.
#pragma once

#include <cstddef>  // std::size_t
#include <cstdint>  // std::int32_t, std::int64_t, std::uint64_t
#include <optional> // std::optional
#include <string>   // std::string
#include <type_traits> // std::is_floating_point_v

#include <CLI/CLI.hpp>  // CLI::App
#include <fmt/format.h> // fmt::format

#include <servestat/core/errors.hpp> // usage_error
#include <servestat/sim/engine.hpp>  // engine_config, validate
#include <servestat/sim/presets.hpp> // find_preset, presets

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
};

namespace detail {

template <class T>
void add_override(CLI::App& cmd, const std::string& flag, std::optional<T>& target, const std::string& help,
                  T default_value) {
    cmd.add_option_function<T>(flag, [&target](const T& v) { target = v; },
                               fmt::format("{} (default {}, or the preset's)", help, default_value))
        ->type_name(std::is_floating_point_v<T> ? "SECONDS" : "INT");
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
    cmd.add_flag_function(
           "--enable-chunked-prefill,!--no-enable-chunked-prefill",
           [&a](std::int64_t n) { a.chunked_prefill = n > 0; },
           "Split long prompts across steps within the token budget (default on, or the preset's)");
    detail::add_override(cmd, "--step-overhead", a.step_overhead, "Seconds per engine step", d.step_overhead);
    detail::add_override(cmd, "--per-prefill-token", a.per_prefill_token, "Seconds per prompt token prefilled",
                         d.per_prefill_token);
    detail::add_override(cmd, "--per-decode-seq", a.per_decode_seq, "Seconds per sequence decoding in a step",
                         d.per_decode_seq);
    detail::add_override(cmd, "--per-context-token", a.per_context_token,
                         "Seconds per context token of every scheduled sequence", d.per_context_token);
    cmd.add_flag_function(
           "--enable-prefix-caching,!--no-enable-prefix-caching",
           [&a](std::int64_t n) { a.prefix_caching = n > 0; },
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
}

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

// Defined in simulate.cpp. Serves until SIGINT or SIGTERM; returns the exit code.
int run_simulate_command(const simulate_args& a);

} // namespace servestat::cli
