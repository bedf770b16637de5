// The flags of `servestat load` (CLI11), for main.cpp only: load.cpp, which drives the load, needs
// load_args and not the command line's parser.
#pragma once

#include <CLI/CLI.hpp> // CLI::App

#include "load_command.hpp" // load_args

namespace servestat::cli {

// What every command that sends requests needs: the server, the key, TLS and the workload.
inline void add_connection_options(CLI::App& cmd, load_args& a) {
    cmd.add_option("--url", a.url, "Server base URL, http[s]://HOST[:PORT]")->required();
    cmd.add_option("--model", a.model, "Model to request (default: the first one /v1/models lists)");
    cmd.add_option("--api-key", a.api_key, "Sent as 'Authorization: Bearer KEY' (default: $OPENAI_API_KEY)")
        ->envname("OPENAI_API_KEY");
    cmd.add_option("--api-key-env", a.api_key_env, "Read the API key from this environment variable instead");
    cmd.add_option("--header", a.headers, "'Name: value' sent with every request (repeatable; the log keeps "
                                          "only the names)");
    cmd.add_option("--cacert", a.cacert, "HTTPS: PEM file of the CA(s) to trust instead of the system's")
        ->check(CLI::ExistingFile);
    cmd.add_flag("--insecure", a.insecure, "HTTPS: do not verify the server's certificate");
    cmd.add_option("--endpoint", a.endpoint, "API: auto (chat/completions for messages, completions for prompt "
                                             "rows) or responses (the Responses API, /v1/responses)")
        ->check(CLI::IsMember({"auto", "responses"}))
        ->capture_default_str();
    cmd.add_option("--workload", a.workload, "Workload JSONL: {\"messages\":[...],\"max_tokens\":N,...} or "
                                             "{\"prompt\":...} per line (see `servestat workload`)");
}

// How each request is made and each run watched: counts, warm-up, timeouts, budgets, the failure
// guard and the scrapes (load and tune).
inline void add_request_options(CLI::App& cmd, load_args& a) {
    cmd.add_option("-n,--requests", a.requests, "Number of requests");
    cmd.add_option("--duration", a.duration, "Seconds to keep starting requests")->check(CLI::PositiveNumber);
    cmd.add_option("--seed", a.seed, "Seed of the arrival times and of the prompt order")->capture_default_str();
    cmd.add_option("--warmup", a.warmup, "Requests sent first and left out of the log");
    cmd.add_flag("--no-stream", a.no_stream, "Ask for whole responses (no TTFT or ITL then)");
    cmd.add_option("--max-connection-failures", a.max_connection_failures,
                   "Stop sending after N connection failures in a row (refused, reset, TLS): the server is gone; "
                   "0 = never")
        ->capture_default_str();
    auto* max_error_rate = cmd.add_option("--max-error-rate", a.max_error_rate,
                                          "Stop sending when more than this share (0-1) of the last --error-window "
                                          "requests failed (default: never)")
                               ->check(CLI::Range(0.0, 1.0));
    cmd.add_option("--error-window", a.error_window, "Requests --max-error-rate is judged over, once that many completed")
        ->check(CLI::PositiveNumber)
        ->needs(max_error_rate)
        ->capture_default_str();
    cmd.add_option("--timeout", a.timeout, "Seconds a request may take; then it is logged as a timeout")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    cmd.add_option("--extra", a.extra, "JSON object merged into every request, e.g. '{\"ignore_eos\":true}'");
    cmd.add_option("--max-tokens", a.max_tokens, "Desired output tokens of every request (default: the workload's)")
        ->check(CLI::PositiveNumber);
    cmd.add_flag("--no-budget", a.no_budget, "Send max_tokens as the workload says, even past the context window "
                                             "(reproduces HTTP 400 overflows)");
    cmd.add_option("--margin", a.margin, "Context budget: tokens left unused")->capture_default_str();
    cmd.add_option("--min-output-tokens", a.min_output_tokens, "Context budget: trim the prompt rather than allow "
                                                               "fewer output tokens")
        ->capture_default_str();
    cmd.add_option("--head-fraction", a.head_fraction, "Context budget: share of a trimmed prompt kept from its start")
        ->capture_default_str();
    cmd.add_option("--max-model-len", a.max_model_len, "Context window (default: /v1/models' max_model_len)");
    cmd.add_flag("--heuristic-tokens", a.heuristic_tokens, "Count tokens with the documented heuristic instead of "
                                                           "the server's /tokenize");
    cmd.add_option("--param", a.params, "key=value recorded in the log header's params (repeatable), e.g. "
                                        "max_num_batched_tokens=8192")
        ->allow_extra_args(false);
    cmd.add_flag("--scrape-metrics", a.scrape_metrics, "Save the server's /metrics before and after each run");
    cmd.add_option("--scrape-interval", a.scrape_interval, "Sample the server's /metrics every S seconds during each "
                                                           "run, into X.metrics-timeline.jsonl beside the log X.jsonl")
        ->check(CLI::Range(0.01, 3600.0));
    cmd.add_option("--power-url", a.power_url, "Also sample this Prometheus endpoint every --scrape-interval S, "
                                               "e.g. the GPUs' power from DCGM's exporter, "
                                               "http://gpu-node:9400/metrics, into X.power-timeline.jsonl");
    cmd.add_flag("-q,--quiet", a.quiet, "No progress line");
}

inline void add_load_options(CLI::App& cmd, load_args& a) {
    add_connection_options(cmd, a);
    cmd.add_option("-o,--output", a.output, "Log file (JSONL); with --sweep or --grid a directory")->required();
    cmd.add_option("--label", a.label, "Run label (default: the workload's name and the load level)");

    auto* c = cmd.add_option("--concurrency", a.concurrency, "Closed loop: N clients, each sends when its last "
                                                             "request ends");
    auto* r = cmd.add_option("--rate", a.rate, "Open loop: requests per second (Poisson arrivals by default)");
    cmd.add_option("--burstiness", a.burstiness, "Open loop: gamma arrivals of this shape (1 = Poisson, < 1 burstier)")
        ->check(CLI::PositiveNumber);
    cmd.add_flag("--constant", a.constant, "Open loop: evenly spaced arrivals instead of random ones");
    cmd.add_option("--max-concurrency", a.max_concurrency, "Open loop: at most N requests in flight; late starts "
                                                           "show as client_queue")
        ->check(CLI::NonNegativeNumber);
    auto* t = cmd.add_option("--trace", a.trace, "Replay the arrival times (and token counts) of an Azure CSV or "
                                                 "Mooncake JSONL trace");
    cmd.add_option("--time-scale", a.trace_time_scale, "Trace replay: divide the trace's gaps by this (2 = twice "
                                                       "as fast)")
        ->check(CLI::PositiveNumber);
    c->excludes(r)->excludes(t);
    r->excludes(t);
    cmd.add_option("--until", a.until, "Stop sending once a statistic is that precise, e.g. e2e.p99:5% (its 95% "
                                       "interval within ±5%); repeatable, all must be met; needs -n or --duration")
        ->delimiter(',');

    cmd.add_option("--cancel-rate", a.cancel_rate, "Share of requests aborted mid-stream (0-1), logged as cancelled")
        ->check(CLI::Range(0.0, 1.0));
    cmd.add_option("--cancel-after", a.cancel_after, "Seconds after sending when a cancelled request is aborted: "
                                                     "a number or a distribution, e.g. uniform:0.5:2");
    cmd.add_option("--sessions-in-flight", a.sessions_in_flight, "Multi-turn workloads: sessions running at once "
                                                                 "(turns within a session run in order)")
        ->check(CLI::PositiveNumber);

    cmd.add_option("--sweep", a.sweep, "One run per value: concurrency=1,2,4,8 or rate=1,2,4; concurrency=auto or "
                                       "rate=auto finds the knee by itself (docs/load.md#finding-the-knee)");
    cmd.add_option("--auto-start", a.auto_start, "Auto sweep: the first level (default 1)");
    cmd.add_option("--auto-max", a.auto_max, "Auto sweep: the highest level (default 1024 x the start)");
    cmd.add_option("--auto-gain", a.auto_gain, "Auto sweep: climb until a doubling gains less throughput than this "
                                               "share")
        ->capture_default_str();
    cmd.add_option("--auto-resolution", a.auto_resolution, "Auto sweep: refine the knee and the capacity to +-this "
                                                           "share")
        ->capture_default_str();
    cmd.add_option("--auto-max-error", a.auto_max_error, "Auto sweep: a level fails when its error rate exceeds the "
                                                         "lowest below it by more than this")
        ->capture_default_str();
    cmd.add_option("--auto-levels", a.auto_levels, "Auto sweep: at most this many levels in all")->capture_default_str();
    cmd.add_option("--slo", a.slo, "Auto sweep: SLOs in seconds, e.g. e2e=1,ttft=0.2; a level meets them when each "
                                   "metric's p95 does");
    cmd.add_option("--grid", a.grid, "Server configurations key=v1,v2 (repeatable); with --server-cmd")
        ->allow_extra_args(false);
    cmd.add_option("--server-cmd", a.server_cmd, "Command that starts the server, with {key} placeholders from "
                                                 "--grid; restarted per configuration");
    cmd.add_option("--server-timeout", a.server_timeout, "Seconds to wait for a started server's /v1/models")
        ->capture_default_str();
    cmd.add_flag("--resume", a.resume, "Skip sweep points the manifest records as done");
    add_request_options(cmd, a);
}

} // namespace servestat::cli
