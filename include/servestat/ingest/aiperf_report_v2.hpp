// AIPerf's v2 native report, aiperf_report.json ({"schema_version": "2.0", "run", "summary",
// "metrics": {name: {"type", "unit", "series": [{"labels", "stats", "timeslices"}]}}}), recognised
// (format "aiperf-report-v2") and refused with what it is. Its layout is fixed by no AIPerf
// documentation yet: it is described only in a design note of the Rust rewrite
// (docs/dev/...-exporters-overhaul, "partially built"), which keeps the v1 files
// (profile_export.jsonl, profile_export_aiperf.json) as the compatible output. A reader written to
// a design in progress would read numbers under guessed meanings, so the message points at those.
#pragma once

#include <filesystem>  // std::filesystem::path
#include <string_view> // std::string_view
#include <vector>      // std::vector

#include "servestat/core/errors.hpp"          // input_error
#include "servestat/core/run.hpp"             // run
#include "servestat/ingest/json_document.hpp" // first_json_char
#include "servestat/ingest/reader.hpp"        // log_format, read_options

namespace servestat {
namespace detail {

inline constexpr std::string_view aiperf_report_v2_name = "aiperf-report-v2";

inline std::vector<run> read_aiperf_report_v2(const std::filesystem::path& file, const read_options&) {
    throw not_a_run_error(file.string(), 0, "schema_version",
                      "AIPerf's v2 native report (aiperf_report.json, schema 2.0): its layout is not yet fixed by "
                      "AIPerf's documentation, so servestat does not read it; read profile_export.jsonl (every "
                      "request) or profile_export_aiperf.json (AIPerf's aggregates) from the same run instead");
}

// schema_version 2.0 with metrics whose values come in series: neither the v1 summary (flat metric
// blocks) nor the multi-run files (aggregation_type) have "series".
inline int sniff_aiperf_report_v2(std::string_view head) {
    if (first_json_char(head) != '{') return 0;
    const auto has = [&](std::string_view key) { return head.find(key) != std::string_view::npos; };
    const bool v2 = has("\"schema_version\": \"2.") || has("\"schema_version\":\"2.");
    return v2 && has("\"metrics\"") && has("\"series\"") && has("\"aiperf_version\"") ? 100 : 0;
}

} // namespace detail

inline constexpr log_format aiperf_report_v2_format{
    detail::aiperf_report_v2_name, "AIPerf's v2 native report (aiperf_report.json), recognised and refused",
    &detail::sniff_aiperf_report_v2, &detail::read_aiperf_report_v2};

} // namespace servestat
