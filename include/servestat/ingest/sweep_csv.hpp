// Reader for aggregate sweep tables: one row per load level with its throughput and latency
// percentiles, as the tuning notebook saves its `summary_df` (pandas to_csv) and as people keep
// sweep results in spreadsheets. Each row becomes a `summary` run whose reported values the sweep
// analysis reads, so a sweep can be analysed without its per-request logs.
//
// Columns, by name (any order, all optional except one parameter and one measure):
//   parameters  concurrency, max_concurrency, request_rate, max_num_seqs, max_num_batched_tokens,
//               scale, max_tokens, desired_max_tokens, tensor_parallel_size
//   identity    label (the configuration a row belongs to: kept as the parameter "label", so rows of
//               different labels make different sweeps), workload, model, status ("ok" or a
//               failure word: the row is kept, marked)
//   counts      ok, fail / failed, requests
//   rates       rps, output_tps, total_tps; wall_time_s / duration_s
//   latency     [SUBSET_][METRIC_]STAT_s in seconds or ..._ms in milliseconds, where SUBSET is
//               short, medium or long (none = all), METRIC is ttft, tpot, itl, e2e (none = e2e) and
//               STAT is p<N>, mean, median, min, max, std; the notebook's grid names
//               overall_p99 / short_p99 / long_p99 (seconds) are read too.
// Anything else is ignored. Empty cells and pandas' NaN are absent values.
#pragma once

#include <cmath>       // std::isnan, std::floor
#include <cstddef>     // std::size_t
#include <filesystem>  // std::filesystem::path
#include <optional>    // std::optional
#include <string>      // std::string
#include <string_view> // std::string_view
#include <utility>     // std::move
#include <vector>      // std::vector

#include <fmt/format.h> // fmt::format
#include <nlohmann/json.hpp> // nlohmann::json

#include "servestat/core/errors.hpp"   // input_error
#include "servestat/core/run.hpp"      // run, reported_value
#include "servestat/core/text.hpp"     // trim_spaces, equals_ignoring_case
#include "servestat/ingest/csv.hpp"    // csv_reader, csv_row, for_each_csv_row, sniff_csv_header
#include "servestat/ingest/json_document.hpp" // param_number
#include "servestat/ingest/nothing_left.hpp" // throw_nothing_left
#include "servestat/ingest/reader.hpp" // log_format, read_options

namespace servestat {
namespace detail {

inline constexpr std::string_view sweep_csv_name = "sweep-csv";

inline constexpr std::string_view sweep_params[] = {
    "concurrency",  "max_concurrency", "request_rate", "max_num_seqs", "max_num_batched_tokens",
    "scale",        "max_tokens",      "desired_max_tokens", "tensor_parallel_size"};

// What one latency column reports: e.g. "short_ttft_p99_s" → {"short.ttft.p99", seconds per unit 1}.
struct latency_column {
    std::size_t column;
    std::string name;
    double seconds_per_unit;
};

inline std::optional<std::string> latency_stat(std::string_view s) {
    if (s == "mean" || s == "min" || s == "max" || s == "std") return std::string(s);
    if (s == "median") return std::string("p50");
    if (s.size() < 2 || s.front() != 'p') return std::nullopt;
    for (char c : s.substr(1))
        if (!(c >= '0' && c <= '9') && c != '.') return std::nullopt;
    return std::string(s);
}

// "short_p99_s", "ttft_p50_ms", "p90_s", "overall_p99", "long_p99" → the reported name and unit.
inline std::optional<latency_column> parse_latency_column(std::string_view header, std::size_t column) {
    double unit = 1.0;
    if (header.ends_with("_ms")) {
        unit = 1e-3;
        header.remove_suffix(3);
    } else if (header.ends_with("_s")) {
        header.remove_suffix(2);
    }
    std::string subset;
    for (std::string_view s : {"short_", "medium_", "long_", "overall_"})
        if (header.starts_with(s)) {
            if (s != "overall_") subset = std::string(s.substr(0, s.size() - 1));
            header.remove_prefix(s.size());
            break;
        }
    std::string metric = "e2e";
    for (std::string_view m : {"ttft_", "tpot_", "itl_", "e2e_", "latency_"})
        if (header.starts_with(m)) {
            if (m != "latency_") metric = std::string(m.substr(0, m.size() - 1));
            header.remove_prefix(m.size());
            break;
        }
    const auto stat = latency_stat(header);
    if (!stat) return std::nullopt;
    std::string name = subset.empty() ? metric : subset + "." + metric;
    return latency_column{column, name.append(".").append(*stat), unit};
}

struct sweep_columns {
    std::vector<std::pair<std::string, std::size_t>> params;
    std::vector<latency_column> latencies;
    std::optional<std::size_t> label, workload, model, status, ok, failed, requests, rps, output_tps, total_tps,
        duration;
};

inline sweep_columns find_sweep_columns(const csv_reader& csv) {
    const auto& header = csv.header();
    sweep_columns c;
    for (const std::string_view p : sweep_params)
        if (const auto at = find_column(header, p)) c.params.emplace_back(std::string(p), *at);
    for (std::size_t i = 0; i < header.size(); ++i)
        if (auto l = parse_latency_column(header[i], i)) c.latencies.push_back(std::move(*l));
    c.label = find_column(header, "label");
    c.workload = find_column(header, "workload");
    c.model = find_column(header, "model");
    c.status = find_column(header, "status");
    c.ok = find_column(header, "ok");
    c.failed = find_column(header, {"fail", "failed"});
    c.requests = find_column(header, "requests");
    c.rps = find_column(header, {"rps", "request_throughput"});
    c.output_tps = find_column(header, {"output_tps", "output_throughput"});
    c.total_tps = find_column(header, {"total_tps", "total_token_throughput"});
    c.duration = find_column(header, {"wall_time_s", "duration_s", "duration"});
    if (c.params.empty())
        throw input_error(csv.name(), csv.header_line(), "",
                          "no load parameter column (concurrency, request_rate, max_num_seqs, ...)");
    return c;
}

// A finite value >= 0, or nullopt for an empty cell or pandas' NaN.
inline std::optional<double> sweep_value(const csv_row& row, std::size_t column) {
    return row.optional_duration(column);
}

inline std::string sweep_row_label(const nlohmann::json& params, const std::string& stem) {
    std::string label = params.contains("label") ? params["label"].get<std::string>() : stem;
    for (const auto& [name, value] : params.items())
        if (name != "label") // a cell may not be UTF-8 yet: the reader entry makes it valid later
            label += fmt::format(" {}={}", name, value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    return label;
}

inline constexpr std::string_view sweep_row_note =
    "one load level of an aggregate sweep table: the numbers are the table's, as written";

inline run read_sweep_row(const csv_row& row, const sweep_columns& c, const std::filesystem::path& file) {
    run out;
    out.meta.kind = run_kind::summary;
    out.meta.source = {file.string(), std::string(sweep_csv_name), {}, row.line()};
    out.meta.shared_clock = false;
    out.meta.notes.emplace_back(sweep_row_note);
    for (const auto& [name, column] : c.params) {
        const auto v = row.number(column);
        if (!v || std::isnan(*v)) continue;
        out.meta.params[name] = param_number(*v);
    }
    if (out.meta.params.empty()) row.fail(c.params.front().second, "no parameter value in this row");
    // The label names a configuration (several rows, one per load level, share it): it sets a
    // sweep apart like any other parameter, so two configurations are never merged into one curve.
    if (c.label)
        if (const auto label = trim_spaces(row.cell(*c.label)); !label.empty()) out.meta.params["label"] = std::string(label);
    out.meta.label = sweep_row_label(out.meta.params, file.stem().string());
    if (c.workload) out.meta.workload = std::string(trim_spaces(row.cell(c.workload)));
    if (c.model) out.meta.model = std::string(trim_spaces(row.cell(c.model)));
    if (c.status) {
        const std::string_view status = trim_spaces(row.cell(c.status));
        if (!status.empty() && !equals_ignoring_case(status, "ok"))
            out.meta.notes.push_back("this load level did not complete: status " + std::string(status));
    }
    auto report = [&](std::optional<std::size_t> column, const char* name, const char* unit) {
        if (!column) return;
        if (const auto v = sweep_value(row, *column)) out.meta.reported.push_back({name, *v, unit});
    };
    const auto ok = row.count(c.ok); // an absent column reads as empty
    const auto failed = row.count(c.failed);
    if (c.requests) report(c.requests, "requests", "requests");
    else if (ok && failed) out.meta.reported.push_back({"requests", static_cast<double>(*ok + *failed), "requests"});
    if (ok) out.meta.reported.push_back({"ok", static_cast<double>(*ok), "requests"});
    if (failed) out.meta.reported.push_back({"failed", static_cast<double>(*failed), "requests"});
    report(c.duration, "duration", "s");
    report(c.rps, "rps", "req/s");
    report(c.output_tps, "output_tps", "tok/s");
    report(c.total_tps, "total_tps", "tok/s");
    for (const auto& l : c.latencies)
        if (const auto v = sweep_value(row, l.column)) out.meta.reported.push_back({l.name, *v * l.seconds_per_unit, "s"});
    return out;
}

inline std::vector<run> read_sweep_csv(const std::filesystem::path& file, const read_options& options) {
    csv_reader csv(file, options.max_line_bytes);
    csv.read_header();
    const sweep_columns columns = find_sweep_columns(csv);
    std::vector<run> runs;
    skipped_lines skipped;
    const std::size_t rows = for_each_csv_row(csv, options, skipped, [&](const csv_row& row) {
        runs.push_back(read_sweep_row(row, columns, file));
    });
    if (rows == 0) throw input_error(csv.name(), csv.header_line(), "", "no load levels after the header");
    if (runs.empty()) throw_nothing_left(csv.name(), skipped); // every row was bad
    runs.front().skipped = skipped;
    return runs;
}

// A load parameter beside throughput and a latency percentile: an aggregate sweep table. The
// notebook's per-request table (latency_s, ok) has neither rps nor percentile columns.
inline int sniff_sweep_csv(std::string_view head) {
    const std::vector<std::string> header = sniff_csv_header(head);
    bool param = false, latency = false;
    for (const std::string_view p : sweep_params) param = param || find_column(header, p).has_value();
    for (std::size_t i = 0; i < header.size(); ++i) latency = latency || parse_latency_column(header[i], i).has_value();
    if (!param || !latency || !find_column(header, {"rps", "request_throughput"})) return 0;
    return 70;
}

} // namespace detail

inline constexpr log_format sweep_csv_format{
    detail::sweep_csv_name, "aggregate sweep table: one row per load level (the notebook's summary_df, spreadsheets)",
    &detail::sniff_sweep_csv, &detail::read_sweep_csv};

} // namespace servestat
