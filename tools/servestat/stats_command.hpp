// `servestat stats`: summaries of every metric per run and subset, as an aligned table or as JSON.
#pragma once

#include <cstdio>   // std::FILE, std::fputs
#include <optional> // std::optional
#include <string>   // std::string
#include <vector>   // std::vector

#include <CLI/CLI.hpp>  // CLI::App
#include <fmt/format.h> // fmt::format

#include <servestat/servestat.hpp>

#include "globs.hpp" // expand_globs

namespace servestat::cli {

struct stats_args {
    std::vector<std::string> logs;
    bool json = false;
    std::vector<double> percentiles{50, 90, 95, 99};
    std::string method = "linear";
    int ddof = 1;
    std::int32_t short_max = 64;
    std::int32_t long_min = 2048;
    std::vector<std::string> buckets;
    std::string slo;
    std::string input_format;
    bool skip_bad = false;
};

inline void add_stats_options(CLI::App& cmd, stats_args& a) {
    cmd.add_option("logs", a.logs, "Log files or directories")->required();
    cmd.add_flag("--json", a.json, "Print the JSON export (the contract of docs/json-export.md)");
    cmd.add_option("--percentiles", a.percentiles, "Percentiles to report, e.g. 50,90,99,99.9")
        ->delimiter(',')
        ->capture_default_str();
    cmd.add_option("--method", a.method, "Quantile method (numpy names: linear, lower, higher, nearest, midpoint, "
                                         "inverted_cdf, hazen, weibull, ...)")
        ->capture_default_str();
    cmd.add_option("--ddof", a.ddof, "Delta degrees of freedom of std (1 = sample, 0 = population)")
        ->capture_default_str();
    cmd.add_option("--short-max", a.short_max, "Short subset: prompt_tokens <= this")->capture_default_str();
    cmd.add_option("--long-min", a.long_min, "Long subset: prompt_tokens >= this")->capture_default_str();
    cmd.add_option("--bucket", a.buckets, "Extra subset name=lo:hi by prompt tokens (repeatable)");
    cmd.add_option("--slo", a.slo, "SLOs in seconds for goodput, e.g. ttft=0.5,e2e=10");
    cmd.add_option("--input-format", a.input_format, "Force the input format instead of detecting it");
    cmd.add_flag("--skip-bad", a.skip_bad, "Skip bad request lines (counted on stderr and in the JSON)");
}

inline stats_options to_stats_options(const stats_args& a) {
    stats_options o;
    o.summary.method = parse_quantile_method(a.method);
    o.summary.ddof = a.ddof;
    o.summary.percentiles = a.percentiles;
    o.subsets.short_max = a.short_max;
    o.subsets.long_min = a.long_min;
    for (const auto& b : a.buckets) o.subsets.buckets.push_back(parse_bucket(b));
    o.slos = parse_slos(a.slo);
    validate(o.summary);
    validate(o.subsets);
    return o;
}

namespace detail {

inline std::string seconds_or_dash(const std::optional<double>& v) { return v ? fmt::format("{:.4f}", *v) : "-"; }

inline std::string run_heading(const run_stats& r) {
    std::string out = fmt::format("run {}  ({}, {})\n", r.meta.label, r.meta.source.path, r.meta.source.format);
    out += fmt::format("  requests {}  ok {}  failed {}", r.requests, r.ok, r.failed);
    if (r.duration) out += fmt::format("  duration {:.3f} s  rps {:.3f}", *r.duration, *r.rps);
    if (r.output_tps) out += fmt::format("  output tok/s {:.1f}", *r.output_tps);
    if (r.total_tps) out += fmt::format("  total tok/s {:.1f}", *r.total_tps);
    if (r.peak_concurrency) out += fmt::format("  peak concurrency {}", *r.peak_concurrency);
    if (!r.meta.shared_clock) out += "\n  (per-request durations only: no shared clock, so no rates)";
    out += "\n";
    for (const auto& e : r.errors)
        out += fmt::format("  failed {:<16} {:>6}  e.g. {}\n", to_string(e.kind), e.count,
                           e.example.size() > 160 ? e.example.substr(0, 157) + "..." : e.example);
    if (r.goodput) {
        std::string slos;
        for (const auto& s : r.goodput->slos) slos += fmt::format("{}{}<={}s", slos.empty() ? "" : ",", to_string(s.on), s.max_seconds);
        out += fmt::format("  goodput ({}): {} good", slos, r.goodput->good);
        if (r.goodput->share) out += fmt::format(" ({:.1f}% of requests)", 100 * *r.goodput->share);
        if (r.goodput->rps) out += fmt::format(", {:.3f} req/s", *r.goodput->rps);
        if (r.goodput->unmeasurable) out += fmt::format(", {} ok requests lack an SLO metric", r.goodput->unmeasurable);
        out += "\n";
    }
    return out;
}

inline std::string subset_table(const subset_stats& s) {
    if (s.n == 0) return fmt::format("  subset {}: no successful requests\n", s.name);
    std::string out = fmt::format("  subset {} (n={}), seconds\n", s.name, s.n);
    const auto& first = s.metrics.front().stats;
    out += fmt::format("    {:<15}{:>9}{:>11}{:>11}{:>8}{:>11}", "metric", "n", "mean", "std", "cov", "min");
    for (const auto& p : first.percentiles) out += fmt::format("{:>11}", percentile_key(p.p));
    out += fmt::format("{:>11}\n", "max");
    for (const auto& m : s.metrics) {
        if (m.stats.n == 0) continue;
        out += fmt::format("    {:<15}{:>9}{:>11}{:>11}{:>8}{:>11}", to_string(m.of), m.stats.n,
                           seconds_or_dash(m.stats.mean), seconds_or_dash(m.stats.std),
                           m.stats.cov ? fmt::format("{:.1f}%", 100 * *m.stats.cov) : "-",
                           seconds_or_dash(m.stats.min));
        for (const auto& p : m.stats.percentiles) out += fmt::format("{:>11}", seconds_or_dash(p.value));
        out += fmt::format("{:>11}\n", seconds_or_dash(m.stats.max));
    }
    return out;
}

inline std::string breakdown_table(const breakdown& b) {
    if (b.waiting.empty()) return {};
    std::string out = fmt::format("  time spent waiting ({}) as a share of latency\n", b.waiting);
    for (const auto& s : b.subsets) {
        if (s.n == 0) continue;
        out += fmt::format("    {:<10}", s.subset);
        for (const auto& p : s.points) out += fmt::format("  {} {:.1f}%", percentile_key(p.p), 100 * p.share);
        if (s.mean_share) out += fmt::format("  overall {:.1f}%", 100 * *s.mean_share);
        out += "\n";
    }
    return out;
}

} // namespace detail

inline std::string format_stats_table(const std::vector<run_stats>& runs) {
    std::string out;
    for (const auto& r : runs) {
        if (!out.empty()) out += "\n";
        out += detail::run_heading(r);
        for (const auto& s : r.subsets) out += detail::subset_table(s);
        out += detail::breakdown_table(r.time_breakdown);
    }
    return out;
}

inline int run_stats_command(const stats_args& a) {
    const stats_options options = to_stats_options(a);
    load_options load;
    load.input_format = a.input_format;
    load.read.skip_bad = a.skip_bad;
    std::vector<run_stats> results;
    for_each_run(expand_globs(a.logs), load, [&](run&& r) {
        if (r.skipped.count > 0) {
            std::fputs(fmt::format("servestat: {}: skipped {} bad line(s)\n", r.meta.source.path, r.skipped.count).c_str(), stderr);
            for (const auto& e : r.skipped.examples) std::fputs(fmt::format("  {}\n", e).c_str(), stderr);
        }
        results.push_back(analyze(r, options));
    });
    const std::string text = a.json ? stats_document(results, options).dump(2) + "\n" : format_stats_table(results);
    std::fputs(text.c_str(), stdout);
    return 0;
}

} // namespace servestat::cli
