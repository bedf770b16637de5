// Reader for the vLLM server-statistics timeline that BurstGPT's benchmark harness writes beside its
// detail log (vllm_log_scale<N>_prompt<M>.csv): one row per vLLM stats log line, about every 0.5 s.
// It holds no requests, so the run is a summary: the timeline's means and maxima become reported
// values, to set next to the latencies of the detail_log file of the same scale.
//
// Columns: timestamp (perf_counter seconds, the detail log's record_time clock), prompt_throughput
// and generation_throughput (tokens/s, vLLM's average over its logging interval), num_running,
// num_swapped, num_pending (sequences), gpu_kvcache_usage and cpu_kvcache_usage (PERCENT, as vLLM's
// "GPU KV cache usage: 1.1%" log line gives it: the real files reach 47 with 256 sequences running
// and 1.1 with 6, so they are not the 0..1 fractions the column name might suggest).
// num_swapped and cpu_kvcache_usage are optional: newer vLLM versions no longer report them.
#pragma once

#include <algorithm>   // std::max
#include <cmath>       // std::isfinite
#include <cstddef>     // std::size_t
#include <filesystem>  // std::filesystem::path
#include <optional>    // std::optional
#include <string>      // std::string
#include <string_view> // std::string_view
#include <utility>     // std::move
#include <vector>      // std::vector

#include "servestat/core/errors.hpp"            // input_error
#include "servestat/core/run.hpp"               // run, reported_value
#include "servestat/ingest/burstgpt_file_name.hpp" // detail::add_burstgpt_file_params
#include "servestat/ingest/csv.hpp"             // csv_reader, csv_row, for_each_csv_row, find_column, score_csv_header
#include "servestat/ingest/metrics_timeline.hpp" // server_timeline
#include "servestat/ingest/reader.hpp"          // log_format, read_options

namespace servestat {
namespace detail {

inline constexpr std::string_view vllm_server_stats_name = "vllm-server-stats";

// Running sum and maximum of one column over the samples, and the samples themselves.
struct timeline_column {
    std::optional<std::size_t> column;
    double sum = 0;
    double max = 0;
    std::vector<double> values;

    void add(double x) {
        sum += x;
        max = std::max(max, x);
        values.push_back(x);
    }
};

struct vllm_stats_timeline {
    std::optional<std::size_t> timestamp;
    timeline_column prompt_throughput, generation_throughput, num_running, num_swapped, num_pending,
        gpu_kvcache_usage, cpu_kvcache_usage;
    std::size_t samples = 0;
    double first_time = 0, last_time = 0;
    std::size_t last_line = 0;
    std::vector<double> times;
};

inline vllm_stats_timeline find_vllm_stats_columns(const csv_reader& csv) {
    const auto& header = csv.header();
    for (const std::string_view required : {"timestamp", "prompt_throughput", "generation_throughput", "num_running",
                                            "num_pending", "gpu_kvcache_usage"})
        if (!find_column(header, required))
            throw input_error(csv.name(), csv.header_line(), std::string(required), "missing required column");
    vllm_stats_timeline t;
    t.timestamp = find_column(header, "timestamp");
    t.prompt_throughput.column = find_column(header, "prompt_throughput");
    t.generation_throughput.column = find_column(header, "generation_throughput");
    t.num_running.column = find_column(header, "num_running");
    t.num_swapped.column = find_column(header, "num_swapped");
    t.num_pending.column = find_column(header, "num_pending");
    t.gpu_kvcache_usage.column = find_column(header, "gpu_kvcache_usage");
    t.cpu_kvcache_usage.column = find_column(header, "cpu_kvcache_usage");
    return t;
}

// A cell of a present column must hold a value; an absent optional column adds nothing.
inline void add_rate(const csv_row& row, timeline_column& c) {
    if (c.column) c.add(row.required_duration(c.column)); // finite and >= 0, like a duration
}

inline void add_count(const csv_row& row, timeline_column& c) {
    if (!c.column) return;
    const auto n = row.count(c.column);
    if (!n) row.fail(c.column, "missing");
    c.add(*n);
}

// Percent in the file, a fraction in servestat (like every other share it reports).
inline void add_percent_as_fraction(const csv_row& row, timeline_column& c) {
    if (!c.column) return;
    const double x = row.required_duration(c.column);
    if (x > 100) row.fail(c.column, "expected a percentage between 0 and 100, got " + quote_cell(row.cell(c.column)));
    c.add(x / 100);
}

inline void read_vllm_stats_row(const csv_row& row, vllm_stats_timeline& t) {
    const auto time = row.number(t.timestamp);
    if (!time || !std::isfinite(*time)) row.fail(t.timestamp, "missing or not a finite number");
    if (t.samples > 0 && *time < t.last_time)
        row.fail(t.timestamp, "goes backwards (the sample on line " + std::to_string(t.last_line) + " is later)");
    // Validate the whole row before any of it counts, so a skipped row leaves no trace.
    vllm_stats_timeline next = t;
    add_rate(row, next.prompt_throughput);
    add_rate(row, next.generation_throughput);
    add_count(row, next.num_running);
    add_count(row, next.num_swapped);
    add_count(row, next.num_pending);
    add_percent_as_fraction(row, next.gpu_kvcache_usage);
    add_percent_as_fraction(row, next.cpu_kvcache_usage);
    if (next.samples++ == 0) next.first_time = *time;
    next.last_time = *time;
    next.last_line = row.line();
    next.times.push_back(*time);
    t = std::move(next);
}

inline std::vector<reported_value> vllm_stats_reported(const vllm_stats_timeline& t) {
    const double n = static_cast<double>(t.samples);
    std::vector<reported_value> out{{"vllm.samples", n, "samples"}, {"vllm.timeline_span", t.last_time - t.first_time, "s"}};
    auto add = [&](const timeline_column& c, std::string_view name, const char* unit, bool mean) {
        if (!c.column) return;
        const std::string base = "vllm." + std::string(name);
        if (mean) out.push_back({base + ".mean", c.sum / n, unit});
        out.push_back({base + ".max", c.max, unit});
    };
    add(t.prompt_throughput, "prompt_throughput", "tok/s", true);
    add(t.generation_throughput, "generation_throughput", "tok/s", true);
    add(t.num_running, "num_running", "sequences", true);
    add(t.num_pending, "num_pending", "sequences", true);
    add(t.num_swapped, "num_swapped", "sequences", false);
    add(t.gpu_kvcache_usage, "gpu_kvcache_usage", "fraction", true);
    add(t.cpu_kvcache_usage, "cpu_kvcache_usage", "fraction", false);
    return out;
}

// The whole file's samples; `skipped` counts the rows skipped under --skip-bad.
inline vllm_stats_timeline read_vllm_stats_timeline(const std::filesystem::path& file, const read_options& options,
                                                    skipped_lines& skipped) {
    csv_reader csv(file, options.max_line_bytes);
    csv.read_header();
    vllm_stats_timeline timeline = find_vllm_stats_columns(csv);
    for_each_csv_row(csv, options, skipped, [&](const csv_row& row) { read_vllm_stats_row(row, timeline); });
    if (timeline.samples == 0)
        throw input_error(csv.name(), csv.header_line(), "", "no samples after the header");
    return timeline;
}

// The samples as a server timeline on a run's clock (`origin`: the perf_counter time of the run's
// t = 0), under the names of the vLLM gauges the log lines print (vLLM V0's /metrics names), so
// that a report charts them as it charts a /metrics scrape.
inline server_timeline vllm_stats_server_timeline(const vllm_stats_timeline& t, const std::string& file, double origin) {
    server_timeline s;
    s.file = file;
    for (const double time : t.times) s.t.push_back(time - origin);
    const std::pair<const timeline_column*, std::string_view> series[] = {
        {&t.generation_throughput, "vllm:avg_generation_throughput_toks_per_s"},
        {&t.prompt_throughput, "vllm:avg_prompt_throughput_toks_per_s"},
        {&t.cpu_kvcache_usage, "vllm:cpu_cache_usage_perc"},
        {&t.gpu_kvcache_usage, "vllm:gpu_cache_usage_perc"},
        {&t.num_running, "vllm:num_requests_running"},
        {&t.num_swapped, "vllm:num_requests_swapped"},
        {&t.num_pending, "vllm:num_requests_waiting"},
    }; // sorted by name, as a timeline's names are
    for (const auto& [column, name] : series) {
        if (!column->column) continue;
        s.names.emplace_back(name);
        s.values.push_back(column->values);
        s.types[std::string(name)] = "gauge";
    }
    return s;
}

inline std::vector<run> read_vllm_server_stats(const std::filesystem::path& file, const read_options& options) {
    run out;
    const vllm_stats_timeline timeline = read_vllm_stats_timeline(file, options, out.skipped);

    out.meta.label = file.stem().string();
    out.meta.tool = "vllm";
    out.meta.kind = run_kind::summary;
    out.meta.source = {file.string(), std::string(vllm_server_stats_name)};
    add_burstgpt_file_params(file, out.meta.params);
    out.meta.notes = {
        "vLLM server statistics sampled about every 0.5 s, not request records: it pairs with the "
        "detail_log file of the same scale, which holds the latencies",
        "means and maxima are servestat's, over the samples (unweighted); the throughputs are vLLM's own "
        "averages over each logging interval in tokens/s; vllm.timeline_span is the span of the timeline",
        "gpu_kvcache_usage and cpu_kvcache_usage are percentages in the file (vLLM's log value); servestat "
        "reports them divided by 100, as fractions"};
    out.meta.reported = vllm_stats_reported(timeline);

    std::vector<run> runs;
    runs.push_back(std::move(out));
    return runs;
}

// The harness's header: vLLM's queue and KV-cache gauges next to a timestamp.
inline int sniff_vllm_server_stats(std::string_view head) {
    return score_csv_header(head, {"timestamp", "generation_throughput", "num_running", "num_pending"},
                            {"prompt_throughput", "gpu_kvcache_usage"}, 80, 10);
}

} // namespace detail

inline constexpr log_format vllm_server_stats_format{
    detail::vllm_server_stats_name,
    "vLLM server statistics timeline of BurstGPT's harness (vllm_log_*.csv: num_running, num_pending, "
    "kv-cache usage); a summary, not requests",
    &detail::sniff_vllm_server_stats, &detail::read_vllm_server_stats};

} // namespace servestat
