// Reader for the per-request table of the load-test notebook, saved with pandas DataFrame.to_csv:
// one row per request with its end-to-end latency, but no timestamps.
//
// Columns read: latency_s and ok (required); error, status_code, prompt_tokens, completion_tokens,
// max_tokens_used, trimmed, prompt_tokens_est_original (optional). Others (the unnamed index column,
// total_tokens, prompt_tokens_est, the *_len_chars columns) are ignored. pandas' habits are
// expected: NaN as an empty cell, integer columns holding NaN written as floats ("39.0"), booleans
// as True/False. Failed rows have no latency, tokens or status code; their error text is the
// client's exception, e.g. `HTTP 400: {"error": ...}`.
#pragma once

#include <cstddef>          // std::size_t
#include <filesystem>       // std::filesystem::path
#include <initializer_list> // std::initializer_list
#include <optional>         // std::optional
#include <string>           // std::string
#include <string_view>      // std::string_view
#include <utility>          // std::move
#include <vector>           // std::vector

#include "servestat/core/errors.hpp"         // input_error
#include "servestat/core/request_record.hpp" // request_record
#include "servestat/core/request_status.hpp" // request_status
#include "servestat/core/run.hpp"            // run
#include "servestat/ingest/failure_text.hpp" // classify_failure_text
#include "servestat/ingest/csv.hpp"          // csv_reader, csv_row, score_csv_header
#include "servestat/ingest/csv_pieces.hpp"   // read_csv_requests
#include "servestat/ingest/reader.hpp"       // log_format, read_options

namespace servestat {
namespace detail {

inline constexpr std::string_view notebook_csv_name = "notebook-csv";

// Where each field lives in the file; nullopt for an optional column the file lacks.
struct notebook_columns {
    std::optional<std::size_t> latency, ok, error, status_code, prompt_tokens, completion_tokens,
        max_tokens_used, trimmed, prompt_tokens_original;
};

inline notebook_columns find_notebook_columns(const csv_reader& csv) {
    const auto& header = csv.header();
    for (const std::string_view required : {"latency_s", "ok"})
        if (!find_column(header, required))
            throw input_error(csv.name(), csv.header_line(), std::string(required),
                              "missing required column");
    return {
        .latency = find_column(header, "latency_s"),
        .ok = find_column(header, "ok"),
        .error = find_column(header, "error"),
        .status_code = find_column(header, "status_code"),
        .prompt_tokens = find_column(header, "prompt_tokens"),
        .completion_tokens = find_column(header, "completion_tokens"),
        .max_tokens_used = find_column(header, "max_tokens_used"),
        .trimmed = find_column(header, "trimmed"),
        .prompt_tokens_original = find_column(header, "prompt_tokens_est_original"),
    };
}

// Without timestamps every request is placed at t_sent = 0 and ends at its latency; a failed row
// has no latency, so its end stays absent rather than pretending it took no time.
inline void read_notebook_row(const csv_row& row, const notebook_columns& columns, request_record& r) {
    const auto ok = row.boolean(columns.ok);
    if (!ok) row.fail(columns.ok, "missing (expected True or False)");
    r.t_sent = 0.0;
    r.t_end = *ok ? row.required_duration(columns.latency) : row.optional_duration(columns.latency);
    r.prompt_tokens = row.count(columns.prompt_tokens);
    r.output_tokens = row.count(columns.completion_tokens);
    r.max_tokens = row.count(columns.max_tokens_used);
    r.prompt_tokens_original = row.count(columns.prompt_tokens_original);
    r.trimmed = row.boolean(columns.trimmed);
    const auto http_status = row.http_status(columns.status_code);
    if (*ok) {
        r.status = request_status::ok;
        r.http_status = http_status;
        return;
    }
    r.error = row.cell(columns.error);
    const failure_class failure = classify_failure_text(r.error, http_status);
    r.status = failure.status;
    r.http_status = failure.http_status;
}

inline std::vector<run> read_notebook_csv(const std::filesystem::path& file, const read_options& options) {
    csv_reader csv(file, options.max_line_bytes);
    csv.read_header();
    const notebook_columns columns = find_notebook_columns(csv);

    run out;
    out.meta.label = file.stem().string();
    out.meta.source = {file.string(), std::string(notebook_csv_name)};
    out.meta.shared_clock = false;
    const std::size_t rows = read_csv_requests(csv, file, options, out.requests, out.skipped,
                                               [&](const csv_row& row, request_record& r) { read_notebook_row(row, columns, r); })
                                 .records;
    if (rows == 0) throw input_error(csv.name(), csv.header_line(), "", "no requests after the header");

    std::vector<run> runs;
    runs.push_back(std::move(out));
    return runs;
}

// latency_s and ok make it this table; status_code and completion_tokens make it surer.
inline int sniff_notebook_csv(std::string_view head) {
    return score_csv_header(head, {"latency_s", "ok"}, {"status_code", "completion_tokens"}, 60, 20);
}

} // namespace detail

inline constexpr log_format notebook_csv_format{
    detail::notebook_csv_name,
    "per-request table of the load-test notebook (pandas to_csv: latency_s, ok, error, ...)",
    &detail::sniff_notebook_csv, &detail::read_notebook_csv};

} // namespace servestat
