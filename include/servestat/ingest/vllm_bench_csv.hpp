// Reader for the per-request CSV of vllm-bench (results/<scenario>-cc<N>-pref<P>-max<M>-<ts>.csv).
//
// Known from vllm-bench's README: the columns ttft_ms, latency_ms and error, and that a row
// succeeded when error is empty. Read here:
//   latency_ms (required)              time from sending the request to its last byte, ms
//   ttft_ms                            time from sending to the first token, ms
//   error                              empty for a success; the exception text for a failure
// Assumed (never seen in a real file; read only when the header has them):
//   prompt_tokens | input_tokens       prompt length
//   completion_tokens | output_tokens  generated tokens
//   status_code | http_status          HTTP status (else parsed from a leading "HTTP NNN" in error)
//   start_ms (ms) | start_s | start_time | t_start (s)   when the request was sent, on any clock
//     shared by the run: requests are placed at start − earliest start. Without such a column
//     every request starts at 0 and the run has no shared clock.
// Other columns are ignored. The file name gives the run's parameters: cc8 → concurrency 8,
// pref256 → prefill_tokens 256, max128 → max_tokens 128, and the scenario → workload.
#pragma once

#include <algorithm>        // std::min_element
#include <charconv>         // std::from_chars
#include <cstddef>          // std::size_t
#include <cstdint>          // std::int64_t
#include <filesystem>       // std::filesystem::path
#include <initializer_list> // std::initializer_list
#include <optional>         // std::optional
#include <string>           // std::string
#include <string_view>      // std::string_view
#include <system_error>     // std::errc
#include <utility>          // std::move
#include <vector>           // std::vector

#include "servestat/core/errors.hpp"         // input_error
#include "servestat/core/request_record.hpp" // request_record
#include "servestat/core/request_status.hpp" // request_status
#include "servestat/core/run.hpp"            // run, run_metadata
#include "servestat/core/units.hpp"          // time_unit, to_seconds
#include "servestat/ingest/failure_text.hpp" // classify_failure_text
#include "servestat/ingest/csv.hpp"          // csv_reader, csv_row, for_each_csv_row
#include "servestat/ingest/reader.hpp"       // log_format, read_options

namespace servestat {
namespace detail {

inline constexpr std::string_view vllm_bench_csv_name = "vllm-bench-csv";

struct vllm_bench_columns {
    std::optional<std::size_t> latency, ttft, error, prompt_tokens, output_tokens, status_code, start;
    time_unit start_unit = time_unit::s;
};

inline vllm_bench_columns find_vllm_bench_columns(const csv_reader& csv) {
    const auto& header = csv.header();
    vllm_bench_columns columns{
        .latency = find_column(header, "latency_ms"),
        .ttft = find_column(header, "ttft_ms"),
        .error = find_column(header, "error"),
        .prompt_tokens = find_column(header, {"prompt_tokens", "input_tokens"}),
        .output_tokens = find_column(header, {"completion_tokens", "output_tokens"}),
        .status_code = find_column(header, {"status_code", "http_status"}),
        .start = find_column(header, "start_ms"),
        .start_unit = time_unit::ms,
    };
    if (!columns.latency)
        throw input_error(csv.name(), csv.header_line(), "latency_ms", "missing required column");
    if (!columns.start) {
        columns.start = find_column(header, {"start_s", "start_time", "t_start"});
        columns.start_unit = time_unit::s;
    }
    return columns;
}

// Fills times relative to the request's own start (t_sent = 0); the caller moves them onto the
// run's clock when the file has start times. Returns the start time in the file's unit, if any.
inline std::optional<double> read_vllm_bench_row(const csv_row& row, const vllm_bench_columns& columns,
                                                 request_record& r) {
    const std::string_view error = trim_spaces(row.cell(columns.error));
    const bool ok = error.empty();
    const std::optional<double> latency =
        ok ? row.required_duration(columns.latency) : row.optional_duration(columns.latency);
    const std::optional<double> ttft = row.optional_duration(columns.ttft);
    if (ttft && latency && *ttft > *latency)
        row.fail(columns.ttft, "greater than latency_ms (" + std::string(row.cell(columns.ttft)) +
                                   " > " + std::string(row.cell(columns.latency)) + ")");
    r.t_sent = 0.0;
    if (ttft) r.t_first = to_seconds(*ttft, time_unit::ms);
    if (latency) r.t_end = to_seconds(*latency, time_unit::ms);
    r.prompt_tokens = row.count(columns.prompt_tokens);
    r.output_tokens = row.count(columns.output_tokens);
    const auto http_status = row.http_status(columns.status_code);
    if (ok) {
        r.status = request_status::ok;
        r.http_status = http_status;
    } else {
        r.error = error;
        const failure_class failure = classify_failure_text(error, http_status);
        r.status = failure.status;
        r.http_status = failure.http_status;
    }
    if (!columns.start) return std::nullopt;
    return row.required_duration(columns.start);
}

// Puts every request on the run's clock, whose 0 is the earliest start (rows are often written in
// completion order, so that is not necessarily the first row's).
inline void place_on_shared_clock(std::vector<request_record>& records, const std::vector<double>& starts,
                                  time_unit unit) {
    if (starts.empty()) return;
    const double first = *std::min_element(starts.begin(), starts.end());
    for (std::size_t i = 0; i < records.size(); ++i) {
        const double offset = to_seconds(starts[i] - first, unit);
        request_record& r = records[i];
        r.t_sent = offset;
        if (r.t_first) *r.t_first += offset;
        if (r.t_end) *r.t_end += offset;
    }
}

// "cc8" with prefix "cc" → 8.
inline std::optional<std::int64_t> number_after(std::string_view part, std::string_view prefix) {
    if (!part.starts_with(prefix) || part.size() == prefix.size()) return std::nullopt;
    part.remove_prefix(prefix.size());
    std::int64_t value = 0;
    const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), value);
    if (ec != std::errc() || end != part.data() + part.size() || value < 0) return std::nullopt;
    return value;
}

// <scenario>-cc<N>-pref<P>-max<M>[-<timestamp>]; the scenario may itself contain '-'. A name that
// does not match leaves the metadata alone.
inline void read_vllm_bench_file_name(std::string_view stem, run_metadata& meta) {
    std::vector<std::string_view> parts;
    for (std::size_t begin = 0;;) {
        const std::size_t dash = stem.find('-', begin);
        parts.push_back(stem.substr(begin, dash - begin));
        if (dash == std::string_view::npos) break;
        begin = dash + 1;
    }
    for (std::size_t i = 1; i + 2 < parts.size(); ++i) {
        const auto concurrency = number_after(parts[i], "cc");
        const auto prefill = number_after(parts[i + 1], "pref");
        const auto max_new = number_after(parts[i + 2], "max");
        if (!concurrency || !prefill || !max_new) continue;
        const std::size_t scenario_end = static_cast<std::size_t>(parts[i].data() - stem.data()) - 1;
        meta.workload = std::string(stem.substr(0, scenario_end));
        meta.params["concurrency"] = *concurrency;
        meta.params["prefill_tokens"] = *prefill;
        meta.params["max_tokens"] = *max_new;
        return;
    }
}

inline std::vector<run> read_vllm_bench_csv(const std::filesystem::path& file, const read_options& options) {
    csv_reader csv(file, options.max_line_bytes);
    csv.read_header();
    const vllm_bench_columns columns = find_vllm_bench_columns(csv);

    run out;
    out.meta.label = file.stem().string();
    out.meta.source = {file.string(), std::string(vllm_bench_csv_name)};
    out.meta.tool = "vllm-bench";
    out.meta.shared_clock = columns.start.has_value();
    read_vllm_bench_file_name(out.meta.label, out.meta);

    std::vector<request_record> records;
    std::vector<double> starts;
    request_record record;
    const std::size_t rows = for_each_csv_row(csv, options, out.skipped, [&](const csv_row& row) {
        record.clear();
        const std::optional<double> start = read_vllm_bench_row(row, columns, record);
        records.push_back(record);
        if (start) starts.push_back(*start);
    });
    if (rows == 0) throw input_error(csv.name(), csv.header_line(), "", "no requests after the header");
    if (columns.start) place_on_shared_clock(records, starts, columns.start_unit);
    out.requests.reserve(records.size());
    for (const request_record& r : records) out.requests.push_back(r);

    std::vector<run> runs;
    runs.push_back(std::move(out));
    return runs;
}

// latency_ms makes it a candidate; ttft_ms and error, the columns vllm-bench is known to write,
// make it surer.
inline int sniff_vllm_bench_csv(std::string_view head) {
    const std::vector<std::string> header = sniff_csv_header(head);
    if (!find_column(header, "latency_ms")) return 0;
    int score = 50;
    if (find_column(header, "ttft_ms")) score += 30;
    if (find_column(header, "error")) score += 20;
    return score;
}

} // namespace detail

inline constexpr log_format vllm_bench_csv_format{
    detail::vllm_bench_csv_name,
    "per-request CSV of vllm-bench (<scenario>-cc<N>-pref<P>-max<M>-<ts>.csv: ttft_ms, latency_ms, error)",
    &detail::sniff_vllm_bench_csv, &detail::read_vllm_bench_csv};

} // namespace servestat
