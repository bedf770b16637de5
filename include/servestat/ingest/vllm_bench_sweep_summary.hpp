// The files `vllm bench sweep serve` writes beside its run=N.json that hold no run of their own,
// recognised and passed over with what they are (vllm/benchmarks/sweep/serve.py):
// - "vllm-bench-sweep-summary": summary.json in each combination folder (a JSON list of that
//   combination's run=N.json objects, unchanged) and summary.csv in the experiment folder (pandas'
//   to_csv of every run of every combination, its index as a first, unnamed column). Both are
//   copies of the run files: read as runs they would count every replicate twice.
// - "vllm-bench-sweep-failure": run=N.failure.json (--continue-on-error: a run that raised) and
//   SERVE-<name>-failure.json (a server combination that failed to start): the error, no results.
#pragma once

#include <filesystem>  // std::filesystem::path
#include <string>      // std::string
#include <string_view> // std::string_view
#include <vector>      // std::vector

#include <nlohmann/json.hpp> // nlohmann::json

#include "servestat/core/errors.hpp"          // input_error, not_a_run_error
#include "servestat/core/run.hpp"             // run
#include "servestat/core/text.hpp"            // shortest_number
#include "servestat/ingest/csv.hpp"           // sniff_csv_header, find_column
#include "servestat/ingest/json_document.hpp" // first_json_char, parse_json_documents, read_json_file, json_* helpers
#include "servestat/ingest/reader.hpp"        // log_format, read_options

namespace servestat {
namespace detail {

inline constexpr std::string_view vllm_bench_sweep_summary_name = "vllm-bench-sweep-summary";
inline constexpr std::string_view vllm_bench_sweep_failure_name = "vllm-bench-sweep-failure";

inline constexpr std::string_view vllm_sweep_summary_reason =
    "vllm bench sweep's summary of the run=N.json files beside it: derived from them";

inline std::vector<run> read_vllm_bench_sweep_summary(const std::filesystem::path& file, const read_options&) {
    throw not_a_run_error(file.string(), 0, "", std::string(vllm_sweep_summary_reason));
}

// vLLM's result keys with the sweep's run_number: a JSON list of run objects (summary.json), or a
// table with those columns (summary.csv). No other tool's list or table has run_number beside
// vLLM's completed and request_throughput.
inline int sniff_vllm_bench_sweep_summary(std::string_view head) {
    const auto has = [&](std::string_view key) { return head.find(key) != std::string_view::npos; };
    if (first_json_char(head) == '[')
        return has("\"run_number\"") && has("\"completed\"") && has("\"request_throughput\"") &&
                       (has("\"model_id\"") || has("\"date\""))
                   ? 100
                   : 0;
    if (first_json_char(head) == '{') return 0;
    const std::vector<std::string> header = sniff_csv_header(head);
    const bool vllm = find_column(header, "completed") && find_column(header, "request_throughput") &&
                      find_column(header, {"model_id", "date", "duration"});
    // Above sweep-csv (70), which would read its rows as levels of a sweep.
    return vllm && find_column(header, "run_number") ? 120 : 0;
}

// ---- failure records ----------------------------------------------------------------------------

inline std::string vllm_sweep_overrides_text(const nlohmann::json* overrides) {
    if (!overrides || !overrides->is_object() || overrides->empty()) return "";
    std::string text;
    for (const auto& [k, v] : overrides->items())
        text.append(text.empty() ? "" : ", ").append(k).append("=").append(v.is_string() ? v.get<std::string>() : v.dump());
    return text;
}

// What failed, in the sweep's words: the run (or server combination), its overrides and the error.
inline std::string vllm_sweep_failure_reason(const nlohmann::json& o, const json_place& place) {
    json_object(o, place, "");
    const std::string type = json_string(json_require(o, "error_type", place, ""), place, "error_type");
    const std::string error = json_string(json_require(o, "error", place, ""), place, "error");
    std::string what = "vllm bench sweep's record of a failed ";
    if (const auto* n = json_member(o, "run_number"); n && !n->is_null())
        what.append("run (run_number ").append(shortest_number(json_number(*n, place, "run_number"))).append(")");
    else what.append("server combination");
    std::string with;
    for (const char* side : {"serve_overrides", "bench_overrides"})
        if (const auto text = vllm_sweep_overrides_text(json_member(o, side)); !text.empty())
            with.append(with.empty() ? "" : "; ").append(text);
    if (!with.empty()) what.append(" with ").append(with);
    return what + ": " + type + ": " + error + " (no measured data)";
}

inline std::vector<run> read_vllm_bench_sweep_failure(const std::filesystem::path& file, const read_options&) {
    const auto documents = parse_json_documents(file, read_json_file(file));
    if (documents.size() != 1)
        throw input_error(file.string(), 0, "", "expected one failure record, found " + std::to_string(documents.size()));
    const auto& [object, place] = documents.front();
    throw not_a_run_error(file.string(), place.line, "", vllm_sweep_failure_reason(object, place));
}

inline int sniff_vllm_bench_sweep_failure(std::string_view head) {
    if (first_json_char(head) != '{') return 0;
    const auto has = [&](std::string_view key) { return head.find(key) != std::string_view::npos; };
    return has("\"error_type\"") && has("\"error\"") && (has("\"serve_overrides\"") || has("\"bench_overrides\"")) ? 100 : 0;
}

} // namespace detail

inline constexpr log_format vllm_bench_sweep_summary_format{
    detail::vllm_bench_sweep_summary_name,
    "vllm bench sweep's summary.json / summary.csv (copies of its run=N.json), recognised and passed over",
    &detail::sniff_vllm_bench_sweep_summary, &detail::read_vllm_bench_sweep_summary};

inline constexpr log_format vllm_bench_sweep_failure_format{
    detail::vllm_bench_sweep_failure_name,
    "vllm bench sweep's failure records (run=N.failure.json, SERVE-…-failure.json), recognised and passed over",
    &detail::sniff_vllm_bench_sweep_failure, &detail::read_vllm_bench_sweep_failure};

} // namespace servestat
