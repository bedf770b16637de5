// `servestat simulate`: the simulated vLLM server. Its own translation unit: Beast compiles here only.
#include <csignal>  // SIGINT, SIGTERM
#include <cstdio>   // std::fputs, std::fflush, stdout, stderr
#include <optional> // std::optional
#include <string>   // std::string

#include <boost/asio/signal_set.hpp> // boost::asio::signal_set
#include <fmt/format.h>              // fmt::format

#include <servestat/sim/server.hpp> // sim::server, sim::server_options

#include "simulate_command.hpp" // simulate_args, simulate_engine_config

namespace servestat::cli {

namespace {

int list_presets() {
    for (const auto& p : sim::presets) std::fputs(fmt::format("{}\t{}\n", p.name, p.description).c_str(), stdout);
    return 0;
}

std::string describe(const sim::engine_config& c) {
    const std::string caching =
        c.prefix_caching ? fmt::format("; prefix caching on: blocks of {} tokens, {} tokens at most", c.block_size,
                                       c.prefix_cache_tokens / c.block_size * c.block_size)
                         : std::string();
    const std::string kv = c.kv_cache_tokens > 0
                               ? fmt::format("; KV cache {} tokens ({} usable blocks of {})", c.kv_cache_tokens,
                                             c.kv_cache_tokens / c.block_size - 1, c.block_size)
                               : std::string("; KV cache unlimited");
    return fmt::format("max_num_seqs {}, max_num_batched_tokens {}, chunked prefill {}, "
                       "long_prefill_token_threshold {}, max_num_partial_prefills {} (long {}), max_model_len {}; "
                       "step {} s + {} s/prefill token + {} s/decoding seq + {} s/context token{}{}",
                       c.max_num_seqs, c.max_num_batched_tokens, c.chunked_prefill ? "on" : "off",
                       c.long_prefill_token_threshold, c.max_num_partial_prefills, c.max_long_partial_prefills,
                       c.max_model_len, c.step_overhead, c.per_prefill_token, c.per_decode_seq, c.per_context_token,
                       kv, caching);
}

std::string describe(const std::optional<sim::gpu_power_config>& power) {
    if (!power) return {};
    return fmt::format("; modelled GPU power on /metrics (DCGM's names): {} W idle, {} W busy, {} GPU{}",
                       power->idle_watts, power->busy_watts, power->gpus, power->gpus == 1 ? "" : "s");
}

} // namespace

int run_simulate_command(const simulate_args& a) {
    if (a.list_presets) return list_presets();
    sim::server_options options;
    options.host = a.host;
    options.port = static_cast<std::uint16_t>(a.port);
    options.model = a.model;
    options.time_scale = a.time_scale;
    options.max_body_bytes = a.max_body_bytes;
    options.seed = a.seed;
    options.engine = simulate_engine_config(a);
    options.tls_cert = a.tls_cert;
    options.tls_key = a.tls_key;
    options.fail_rate = a.fail_rate;
    options.fail_after = a.fail_after;
    options.per_request_metrics = a.per_request_metrics;
    options.force_include_usage = a.force_include_usage;
    options.gpu_power = simulate_gpu_power(a);
    sim::server server(options);

    boost::asio::signal_set signals(server.context(), SIGINT, SIGTERM);
    signals.async_wait([&server](const boost::system::error_code& ec, int) {
        if (!ec) server.stop();
    });
    const auto failing = a.fail_rate <= 0 ? std::string()
                         : fmt::format("; failing {} of generation requests with HTTP 500 from {} s after the first",
                                       a.fail_rate, a.fail_after);
    const auto reporting = std::string(a.per_request_metrics ? "; per-request metrics in responses" : "") +
                           (a.force_include_usage ? "; usage in every stream" : "") + describe(options.gpu_power);
    std::fputs(fmt::format("servestat simulate: {}{}, time scale {}: {}{}{}\n", a.model,
                           a.preset.empty() ? std::string() : fmt::format(" (preset {})", a.preset), a.time_scale,
                           describe(options.engine), failing, reporting)
                   .c_str(),
               stderr);
    // Scripts and tests read the port from this line, so it is the only one on stdout.
    std::fputs(fmt::format("servestat simulate listening on {}\n", server.url()).c_str(), stdout);
    std::fflush(stdout);
    server.run();
    return 0;
}

} // namespace servestat::cli
