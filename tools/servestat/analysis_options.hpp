// The command line of what every analysing command shares (stats, report, compare, summarize):
// CLI11 flags filling the application layer's plain option structs (include/servestat/app/).
#pragma once

#include <CLI/CLI.hpp> // CLI::App

#include <servestat/app/analysis_args.hpp> // analysis_args
#include <servestat/app/memory_args.hpp>   // memory_args

namespace servestat::cli {

// `with_logs` false: the command names its inputs itself (compare's BEFORE and AFTER).
inline void add_analysis_options(CLI::App& cmd, app::analysis_args& a, bool with_logs = true) {
    if (with_logs) cmd.add_option("logs", a.logs, "Log files, directories or glob patterns")->required();
    cmd.add_option("--percentiles", a.percentiles, "Percentiles to report, e.g. 50,90,99,99.9")
        ->delimiter(',')
        ->allow_extra_args(false) // else `--percentiles 50,99 run.jsonl` would take the log as a percentile
        ->capture_default_str()
        // An unset shell variable gives '': no percentile is not a request for the defaults.
        ->check([](const std::string& p) { return p.empty() ? std::string("an empty percentile; expected e.g. 50,90,99") : std::string(); });
    cmd.add_option("--method", a.method, "Quantile method (numpy names: linear, lower, higher, nearest, midpoint, "
                                         "inverted_cdf, hazen, weibull, ...)")
        ->capture_default_str();
    cmd.add_option("--ddof", a.ddof, "Delta degrees of freedom of std (1 = sample, 0 = population)")
        ->capture_default_str();
    cmd.add_option("--short-max", a.short_max, "Short subset: prompt_tokens <= this")->capture_default_str();
    cmd.add_option("--long-min", a.long_min, "Long subset: prompt_tokens >= this")->capture_default_str();
    cmd.add_option("--bucket", a.buckets, "Extra subset name=lo:hi by prompt tokens (repeatable)")->allow_extra_args(false);
    cmd.add_option("--slo", a.slo, "SLOs in seconds for goodput, e.g. ttft=0.5,e2e=10");
    cmd.add_option("--cost-per-hour", a.cost_per_hour,
                   "Price of the deployment in USD per hour (per GPU with --gpus): cost per 1M output, total and "
                   "good output tokens, each with its interval (docs/metrics.md#cost-per-token)");
    cmd.add_option("--gpus", a.gpus, "With --cost-per-hour: the deployment's GPUs; the price is per GPU, times this");
    cmd.add_option("--power-metric", a.power_metric,
                   "A gauge in W on the /metrics timelines (servestat load --scrape-interval) that energy per token "
                   "integrates instead of the DCGM exporter's (docs/metrics.md#energy-per-token)");
    cmd.add_option("--input-format", a.input_format, "Force the input format instead of detecting it");
    cmd.add_option("--map", a.map,
                   "Read any CSV / JSON / JSONL log by naming its fields, e.g. "
                   "ttft=TTFT:ms,e2e=latency:s,t_sent=start:epoch_s (docs/formats.md)");
    cmd.add_option("--ok-if", a.ok_if, "With --map: which requests succeeded, e.g. 'error_code==' or 'status==200'");
    cmd.add_option("--sweep-by", a.sweep_by,
                   "Group runs into sweeps over this parameter (default: concurrency, request_rate, scale, ... "
                   "whichever varies)");
    cmd.add_option("--factor", a.factors,
                   "Pull a factor out of the runs' paths: NAME=REGEX (the first group, else the match), e.g. "
                   "'shape=-(short|medium|long)-' (repeatable; docs/sweeps.md#how-runs-are-read)")
        ->allow_extra_args(false);
    cmd.add_option("--role", a.roles,
                   "Set a factor's role: NAME=load|config|replicate|length|provenance|ignore, e.g. "
                   "'folder2=config' (repeatable; names as 'How these runs were read' shows them)")
        ->allow_extra_args(false);
    cmd.add_flag("--strict", a.strict,
                 "A file of a folder that its reader refuses is an error (by default it is passed over with "
                 "its reason and the rest is read)");
    cmd.add_option("--degradation", a.degradation,
                   "Threshold knee of each sweep's latency curves: the first level whose p99 exceeds the lowest "
                   "level's by more than this share (0.5 = 50%), reported beside Kneedle's knee")
        ->capture_default_str();
    cmd.add_option("--sweet-spot", a.sweet_spot,
                   "Pick each grid's highest-throughput cell meeting these limits, e.g. "
                   "'short.e2e.p99<=2,success_rate>=0.99' (docs/sweeps.md)");
    cmd.add_flag("--skip-bad", a.skip_bad,
                 "Skip bad request lines or records (counted on stderr and in the JSON); a file with none left "
                 "is an error");
    cmd.add_option("-j,--threads", a.threads,
                   "Threads for reading and statistics (0 = every hardware thread); the output is the same "
                   "byte for byte whatever the number")
        ->capture_default_str();
    cmd.add_flag("--steady-state", a.steady_state,
                 "Compute every statistic on each run's steady-state window only: the requests sent after the "
                 "ramp-up and before the drain (MSER-5 on requests in flight, docs/metrics.md)");
    cmd.add_flag("-q,--quiet", a.quiet,
                 "No progress line on standard error (shown only when standard error is a terminal and the work "
                 "takes over half a second; standard output and files are the same either way)");
}

// --confidence of stats and report (compare declares its own, which drives its intervals and the
// per-run ones alike).
inline void add_confidence_option(CLI::App& cmd, app::analysis_args& a) {
    cmd.add_option("--confidence", a.confidence,
                   "Confidence level of each percentile's interval (order statistics) and each mean's (Student's t), "
                   "between 0.5 and 1")
        ->capture_default_str();
}

// --memory-limit and --sketch-alpha, as stats, report and compare take them.
inline void add_memory_options(CLI::App& cmd, app::memory_args& a) {
    cmd.add_option("--memory-limit", a.memory_limit,
                   "Memory for one canonical log's requests and their analysis, e.g. 2G or 512M (default: half of "
                   "physical memory). A log that does not fit is streamed: percentiles from sketches, the rest exact");
    cmd.add_option("--sketch-alpha", a.sketch_alpha,
                   "Relative error of the percentiles of a streamed log (0.005 = within 0.5%)")
        ->capture_default_str();
}

} // namespace servestat::cli
