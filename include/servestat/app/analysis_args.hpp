// The options every analysing front end shares (the CLI's stats, report, compare and summarize; the
// Python module's keyword arguments): inputs, percentiles, subsets, SLOs, sweeps, and the statistics
// options they stand for. Plain data: each front end fills it its own way (CLI11 flags in
// tools/servestat/analysis_options.hpp, keyword arguments in python/_servestat.cpp).
#pragma once

#include <cmath>   // std::isfinite
#include <cstddef> // std::size_t
#include <cstdint> // std::int32_t
#include <optional> // std::optional
#include <string>  // std::string
#include <vector>  // std::vector

#include <fmt/format.h> // fmt::format

#include "servestat/core/errors.hpp"          // usage_error
#include "servestat/core/progress.hpp"        // progress_state
#include "servestat/stats/cost.hpp"           // deployment_price
#include "servestat/stats/goodput.hpp"        // parse_slos
#include "servestat/stats/quantile.hpp"       // parse_quantile_method
#include "servestat/stats/run_stats.hpp"      // stats_options
#include "servestat/stats/subsets.hpp"        // parse_bucket, validate(subset_options)
#include "servestat/stats/summary.hpp"        // validate(summary_options)
#include "servestat/sweep/grid.hpp"           // grid_constraint, parse_constraints
#include "servestat/sweep/sweep_analysis.hpp" // default_degradation, validate_degradation

namespace servestat::app {

struct analysis_args {
    std::vector<std::string> logs;
    std::vector<double> percentiles{50, 90, 95, 99};
    double confidence = 0.95; // of each percentile's and mean's interval (--confidence; compare has its own)
    std::string method = "linear";
    int ddof = 1;
    std::int32_t short_max = 64;
    std::int32_t long_min = 2048;
    std::vector<std::string> buckets;
    std::string slo;
    // --cost-per-hour USD: the deployment's price per hour, or each GPU's with --gpus N (cost per
    // token, stats/cost.hpp); unset: no cost is computed.
    std::optional<double> cost_per_hour;
    std::optional<int> gpus;
    // --power-metric NAME: a gauge in W on the run's /metrics timelines that energy per token
    // integrates instead of the DCGM exporter's series (stats/energy.hpp).
    std::string power_metric;
    std::string input_format;
    std::string map, ok_if;
    std::string sweep_by;
    std::vector<std::string> factors; // --factor NAME=REGEX (experiment/overrides.hpp)
    std::vector<std::string> roles;   // --role NAME=ROLE
    bool strict = false;              // --strict: a file of a folder its reader refuses is an error
    double degradation = default_degradation; // threshold knee: latency more than this share above the lowest level
    std::string sweet_spot; // grid constraints, e.g. "short.e2e.p99<=2,success_rate>=0.99"
    bool skip_bad = false;
    bool steady_state = false; // cut each run to its steady-state window before anything is computed
    std::size_t threads = 0;   // 0 = every hardware thread
    bool quiet = false;        // --quiet: no progress line on standard error (app/progress_display.hpp)
    // Where reading, the bootstrap and report rendering count how far they got, for the progress
    // line; null (the default, and what a front end without a display leaves): nothing counted.
    progress_state* progress = nullptr;
};

inline void validate_confidence(double c) {
    if (!(c > 0.5 && c < 1)) throw usage_error(fmt::format("--confidence {}: must lie between 0.5 and 1 (e.g. 0.95)", c));
}

// The price of --cost-per-hour and --gpus; none without --cost-per-hour. A count of GPUs with no
// price would be silently ignored, so it is an error.
inline std::optional<deployment_price> price_of(const analysis_args& a) {
    if (a.gpus && !a.cost_per_hour)
        throw usage_error("--gpus: needs --cost-per-hour (the price of one GPU per hour, which --gpus multiplies)");
    if (!a.cost_per_hour) return std::nullopt;
    if (!std::isfinite(*a.cost_per_hour) || !(*a.cost_per_hour > 0))
        throw usage_error(fmt::format("--cost-per-hour {}: must be a positive number of USD per hour, e.g. 3.60", *a.cost_per_hour));
    if (a.gpus && *a.gpus <= 0) throw usage_error(fmt::format("--gpus {}: must be a positive number of GPUs", *a.gpus));
    return deployment_price{*a.cost_per_hour, a.gpus};
}

inline stats_options to_stats_options(const analysis_args& a) {
    stats_options o;
    o.summary.method = parse_quantile_method(a.method);
    o.summary.ddof = a.ddof;
    o.summary.percentiles = a.percentiles;
    validate_confidence(a.confidence);
    o.summary.confidence = a.confidence;
    o.subsets.short_max = a.short_max;
    o.subsets.long_min = a.long_min;
    for (const auto& b : a.buckets) o.subsets.buckets.push_back(parse_bucket(b));
    o.slos = parse_slos(a.slo);
    o.price = price_of(a);
    o.power_metric = a.power_metric;
    o.threads = a.threads;
    validate(o.summary);
    validate(o.subsets);
    validate_degradation(a.degradation); // a usage error even when no sweep is found
    return o;
}

// The --sweet-spot constraints; none when it was not given (or given empty).
inline std::vector<grid_constraint> sweet_spot_constraints(const analysis_args& a) {
    return a.sweet_spot.empty() ? std::vector<grid_constraint>{} : parse_constraints(a.sweet_spot);
}

} // namespace servestat::app
