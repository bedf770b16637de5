// Reader for NVIDIA AIPerf's per-request records (AIPerf is the successor of GenAI-Perf),
// profile_export.jsonl (format "aiperf"); the run's aggregates are read by aiperf_summary.hpp.
//
// profile_export.jsonl holds one object per request:
//   {"metadata":{"timestamp_ns" | "request_start_ns": epoch ns, "request_end_ns"?, "credit_phase" |
//                "benchmark_phase", "was_cancelled"?, ids...},
//    "metrics":{NAME: {"value": V, "unit": U}, ...} (null on failed records in newer versions),
//    "error": null | {"code", "type", "message"}}
// Metrics read: ttft | time_to_first_token, request_latency, inter_chunk_latency (a list),
// min_request_timestamp and max_response_timestamp (epoch ns), input_sequence_length (error_isl on
// failed records), output_sequence_length, reasoning_token_count (for a note). Latencies are
// rounded back to the whole nanoseconds AIPerf measured, so every time of the run sits on one
// integer clock before it becomes seconds. When profile_export_aiperf.json lies next to the records
// it supplies the model, the run's parameters and AIPerf's own statistics (meta.reported).
#pragma once

#include <algorithm>    // std::min_element, std::max
#include <cmath>        // std::llround, std::abs
#include <cstddef>      // std::size_t
#include <cstdint>      // std::int32_t, std::int64_t
#include <filesystem>   // std::filesystem::path
#include <optional>     // std::optional
#include <span>         // std::span
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <system_error> // std::error_code
#include <utility>      // std::move
#include <vector>       // std::vector

#include <fmt/format.h>      // fmt::format
#include <nlohmann/json.hpp> // nlohmann::json

#include "servestat/core/errors.hpp"             // input_error
#include "servestat/core/iso_time.hpp"           // iso_utc
#include "servestat/core/request_record.hpp"     // request_record
#include "servestat/core/request_status.hpp"     // request_status
#include "servestat/core/run.hpp"                // run, run_metadata
#include "servestat/core/text.hpp"               // trim_spaces
#include "servestat/core/units.hpp"              // time_unit, to_seconds
#include "servestat/ingest/aiperf_phases.hpp"    // aiperf_root_phase_context
#include "servestat/ingest/aiperf_summary.hpp"   // read_aiperf_summary_file, aiperf_std_note
#include "servestat/ingest/failure_text.hpp"     // classify_failure_text
#include "servestat/ingest/json_document.hpp"    // json_place, json_member, json_number, ...
#include "servestat/ingest/line_source.hpp"      // line_source
#include "servestat/ingest/nvidia_export.hpp"    // nvidia_epoch_ns, nvidia_member, nvidia_parse_json_line, ...
#include "servestat/ingest/reader.hpp"           // log_format, read_options

namespace servestat {
namespace detail {

inline constexpr std::string_view aiperf_name = "aiperf";

// ---- profile_export.jsonl: one record ----

// The {"value", "unit"} object of a metric; nullptr when the record lacks it or it is null.
inline const nlohmann::json* aiperf_metric(const nlohmann::json& metrics, std::string_view name,
                                           const json_place& place) {
    const auto* m = json_member(metrics, name);
    if (!m || m->is_null()) return nullptr;
    const std::string path = json_path("metrics", name);
    json_object(*m, place, path);
    json_require(*m, "value", place, path);
    return m;
}

inline const std::string& aiperf_unit(const nlohmann::json& metric, const json_place& place, const std::string& path) {
    return json_string(json_require(metric, "unit", place, path), place, json_path(path, "unit"));
}

inline time_unit aiperf_metric_time_unit(const nlohmann::json& metric, const json_place& place, const std::string& path) {
    const std::string& unit = aiperf_unit(metric, place, path);
    if (const auto u = aiperf_time_unit(unit)) return *u;
    place.fail(json_path(path, "unit"), aiperf_unknown_unit(unit, aiperf_time_units));
}

// A latency in whole nanoseconds: AIPerf measures integers in ns and divides them by 1e6 for ms,
// so rounding recovers its integers exactly.
inline std::optional<std::int64_t> aiperf_duration_ns(const nlohmann::json& metrics, std::string_view name,
                                                      const json_place& place) {
    const auto* m = aiperf_metric(metrics, name, place);
    if (!m) return std::nullopt;
    const std::string path = json_path("metrics", name);
    const time_unit unit = aiperf_metric_time_unit(*m, place, path);
    const double ns = json_duration(m->at("value"), place, json_path(path, "value")) * aiperf_ns_per(unit);
    if (ns >= 9.2e18) place.fail(json_path(path, "value"), "duration out of range");
    return std::llround(ns);
}

inline std::optional<std::int64_t> aiperf_timestamp_ns(const nlohmann::json& metrics, std::string_view name,
                                                       const json_place& place) {
    const auto* m = aiperf_metric(metrics, name, place);
    if (!m) return std::nullopt;
    const std::string path = json_path("metrics", name);
    const time_unit unit = aiperf_metric_time_unit(*m, place, path);
    const auto& value = m->at("value");
    if (unit == time_unit::ns) return nvidia_epoch_ns(value, place, json_path(path, "value"));
    const double ns = json_number(value, place, json_path(path, "value")) * aiperf_ns_per(unit);
    if (ns < 0 || ns >= 9.2e18) place.fail(json_path(path, "value"), "timestamp out of range");
    return std::llround(ns);
}

inline std::optional<std::int32_t> aiperf_tokens(const nlohmann::json& metrics, std::string_view name,
                                                 const json_place& place) {
    const auto* m = aiperf_metric(metrics, name, place);
    if (!m) return std::nullopt;
    const std::string path = json_path("metrics", name);
    const std::string& unit = aiperf_unit(*m, place, path);
    if (unit != "tokens") place.fail(json_path(path, "unit"), aiperf_unknown_unit(unit, "tokens"));
    return json_count(m->at("value"), place, json_path(path, "value"));
}

inline void aiperf_chunk_gaps(const nlohmann::json& metrics, std::string_view name, const json_place& place,
                              std::vector<double>& out) {
    const auto* m = aiperf_metric(metrics, name, place);
    if (!m) return;
    const std::string path = json_path("metrics", name);
    const time_unit unit = aiperf_metric_time_unit(*m, place, path);
    const std::string value_path = json_path(path, "value");
    const auto& gaps = json_array(m->at("value"), place, value_path);
    out.reserve(gaps.size());
    for (std::size_t i = 0; i < gaps.size(); ++i)
        out.push_back(to_seconds(json_duration(gaps[i], place, json_path(value_path, i)), unit));
}

// One request before the run's clock is known: its instants stay epoch ns until the earliest
// start of the whole file has been found.
struct aiperf_request {
    request_record record; // everything except the times
    std::int64_t start_ns = 0;
    std::optional<std::int64_t> first_ns, end_ns;
    std::optional<std::int32_t> reasoning_tokens;
    bool end_from_request_end = false; // only metadata.request_end_ns gave the end
    // metadata.request_end_ns minus the end taken from the metrics, when both are there: it only
    // informs (a gap over a millisecond gets a note), the metrics' end is kept.
    std::optional<std::int64_t> request_end_gap_ns;
};

// A failed record: code 499 / RequestCancellationError is AIPerf cancelling the request on purpose
// (--request-cancellation-rate), not the server failing it.
inline void read_aiperf_failure(const nlohmann::json* error, bool was_cancelled, const json_place& place,
                                request_record& r) {
    std::optional<std::int64_t> code;
    std::string type, message;
    if (error) {
        json_object(*error, place, "error");
        if (const auto* c = nvidia_member(*error, "code")) {
            const double x = json_number(*c, place, "error.code");
            if (x != static_cast<double>(static_cast<std::int64_t>(x))) place.fail("error.code", "expected a whole number");
            code = static_cast<std::int64_t>(x);
        }
        type = nvidia_optional_string(*error, "type", place, "error").value_or("");
        message = nvidia_optional_string(*error, "message", place, "error").value_or("");
    }
    r.error = type;
    if (!type.empty() && !message.empty()) r.error.append(": ");
    r.error.append(message);
    if (was_cancelled || code == 499 || type == "RequestCancellationError") {
        if (r.error.empty()) r.error = "cancelled by AIPerf";
        r.status = request_status::cancelled;
        return;
    }
    if (r.error.empty()) r.error = "error";
    std::optional<std::int32_t> http;
    if (code && *code >= 100 && *code <= 599) http = static_cast<std::int32_t>(*code);
    const failure_class failure = classify_failure_text(r.error, http);
    r.status = failure.status;
    r.http_status = failure.http_status;
}

inline std::int64_t aiperf_request_start(const nlohmann::json& metadata, const nlohmann::json& metrics,
                                         const json_place& place) {
    for (const std::string_view key : {"request_start_ns", "timestamp_ns"})
        if (const auto* v = nvidia_member(metadata, key)) return nvidia_epoch_ns(*v, place, json_path("metadata", key));
    if (const auto start = aiperf_timestamp_ns(metrics, "min_request_timestamp", place)) return *start;
    place.fail("metadata.timestamp_ns", "missing (a record needs metadata.timestamp_ns, metadata.request_start_ns "
                                        "or metrics.min_request_timestamp)");
}

// The end of a successful request: the last response AIPerf counted (max_response_timestamp), else
// start + request_latency, else the metadata's request_end_ns (which may include the closing
// [DONE] and so run a little later than the last token).
inline void read_aiperf_end(const nlohmann::json& metadata, const nlohmann::json& metrics, const json_place& place,
                            aiperf_request& out) {
    const auto request_end = [&]() -> std::optional<std::int64_t> {
        if (const auto* end = nvidia_member(metadata, "request_end_ns"))
            return nvidia_epoch_ns(*end, place, "metadata.request_end_ns");
        return std::nullopt;
    };
    if (const auto last = aiperf_timestamp_ns(metrics, "max_response_timestamp", place)) {
        if (*last < out.start_ns)
            place.fail("metrics.max_response_timestamp.value", "earlier than the request's start");
        out.end_ns = *last;
        if (const auto end = request_end()) out.request_end_gap_ns = *end - *last;
    } else if (const auto latency = aiperf_duration_ns(metrics, "request_latency", place)) {
        out.end_ns = out.start_ns + *latency;
        if (const auto end = request_end()) out.request_end_gap_ns = *end - *out.end_ns;
    } else if (const auto* end = nvidia_member(metadata, "request_end_ns")) {
        const std::int64_t end_ns = nvidia_epoch_ns(*end, place, "metadata.request_end_ns");
        if (end_ns < out.start_ns) place.fail("metadata.request_end_ns", "earlier than the request's start");
        out.end_ns = end_ns;
        out.end_from_request_end = true;
    } else {
        place.fail("metrics.request_latency", "missing (a successful record needs request_latency or "
                                              "max_response_timestamp)");
    }
}

inline void read_aiperf_success(const nlohmann::json& metadata, const nlohmann::json& metrics,
                                const json_place& place, aiperf_request& out) {
    request_record& r = out.record;
    r.status = request_status::ok;
    r.prompt_tokens = aiperf_tokens(metrics, "input_sequence_length", place);
    r.output_tokens = aiperf_tokens(metrics, "output_sequence_length", place);
    out.reasoning_tokens = aiperf_tokens(metrics, "reasoning_token_count", place);
    read_aiperf_end(metadata, metrics, place, out);
    for (const std::string_view name : {"ttft", "time_to_first_token"}) {
        const auto ttft = aiperf_duration_ns(metrics, name, place);
        if (!ttft) continue;
        if (out.start_ns + *ttft > *out.end_ns)
            place.fail(json_path("metrics", name), "time to first token is longer than the request's latency");
        out.first_ns = out.start_ns + *ttft;
        break;
    }
    aiperf_chunk_gaps(metrics, "inter_chunk_latency", place, r.itl);
}

// Returns false for a warmup record, which AIPerf leaves out of its statistics too.
inline bool read_aiperf_record(const nlohmann::json& doc, const json_place& place, aiperf_request& out) {
    if (!doc.is_object()) place.fail("", "a record must be a JSON object");
    const auto& metadata = json_object(json_require(doc, "metadata", place, ""), place, "metadata");
    for (const std::string_view key : {"benchmark_phase", "credit_phase"})
        if (const auto phase = nvidia_optional_string(metadata, key, place, "metadata"); phase && *phase == "warmup")
            return false;
    static const nlohmann::json no_metrics = nlohmann::json::object();
    const auto* metrics_member = nvidia_member(doc, "metrics");
    const auto& metrics = metrics_member ? json_object(*metrics_member, place, "metrics") : no_metrics;

    out = aiperf_request{};
    out.start_ns = aiperf_request_start(metadata, metrics, place);
    bool was_cancelled = false;
    if (const auto* c = nvidia_member(metadata, "was_cancelled")) {
        if (!c->is_boolean()) place.fail("metadata.was_cancelled", std::string("expected true or false, got ") + c->type_name());
        was_cancelled = c->get<bool>();
    }
    const auto* error = nvidia_member(doc, "error");
    if (error || was_cancelled) {
        read_aiperf_failure(error, was_cancelled, place, out.record);
        out.record.prompt_tokens = aiperf_tokens(metrics, "error_isl", place);
        if (!out.record.prompt_tokens) out.record.prompt_tokens = aiperf_tokens(metrics, "input_sequence_length", place);
        return true;
    }
    read_aiperf_success(metadata, metrics, place, out);
    return true;
}

// ---- profile_export.jsonl: the run ----

// profile_export_aiperf.json next to a profile_export.jsonl (AIPerf names it <stem>_aiperf.json).
inline std::optional<std::filesystem::path> aiperf_summary_beside(const std::filesystem::path& records) {
    const auto dir = records.parent_path();
    for (const std::string& name : {records.stem().string() + "_aiperf.json", std::string("profile_export_aiperf.json")}) {
        std::error_code ec;
        const auto candidate = dir / name;
        if (std::filesystem::is_regular_file(candidate, ec)) return candidate;
    }
    return std::nullopt;
}

// The aggregate CSV beside a profile_export.jsonl, when no JSON aggregate is there to read.
inline std::optional<std::filesystem::path> aiperf_summary_csv_beside(const std::filesystem::path& records) {
    const auto dir = records.parent_path();
    for (const std::string& name : {records.stem().string() + "_aiperf.csv", std::string("profile_export_aiperf.csv")}) {
        std::error_code ec;
        const auto candidate = dir / name;
        if (std::filesystem::is_regular_file(candidate, ec)) return candidate;
    }
    return std::nullopt;
}

// A broken aggregate file must not hide the per-request data, which is complete on its own.
inline void add_aiperf_summary_beside(const std::filesystem::path& file, const read_options& options, run_metadata& meta) {
    auto phases = aiperf_root_phase_context(file.parent_path());
    for (auto& f : phases.merged) meta.source.merged.push_back(std::move(f));
    for (auto& note : phases.notes) meta.notes.push_back(std::move(note));
    const auto json_path_beside = aiperf_summary_beside(file);
    const auto csv_path_beside = aiperf_summary_csv_beside(file);
    // The CSV beside it is the same table of aggregates in another form.
    for (const auto* merged : {&json_path_beside, &csv_path_beside})
        if (*merged) meta.source.merged.push_back((*merged)->string());
    const auto summary_path = json_path_beside ? json_path_beside : csv_path_beside;
    if (!summary_path) return;
    try {
        aiperf_summary_info info = json_path_beside ? read_aiperf_summary_file(*summary_path)
                                                    : read_aiperf_summary_csv_rows(*summary_path, options);
        meta.model = info.model;
        meta.workload = info.workload;
        meta.tool = aiperf_tool(info.aiperf_version);
        meta.params = std::move(info.params);
        meta.reported = std::move(info.reported);
        for (auto& note : info.notes) meta.notes.push_back(std::move(note));
        meta.notes.push_back(std::string(json_path_beside ? "Run parameters, model and reported values come from "
                                                          : "Reported values come from ")
                                 .append(summary_path->filename().string())
                                 .append(" next to the records."));
        if (!meta.reported.empty()) meta.notes.emplace_back(aiperf_std_note);
    } catch (const input_error& e) {
        meta.notes.push_back(std::string("Could not read ")
                                 .append(summary_path->filename().string())
                                 .append(" next to the records (")
                                 .append(e.what())
                                 .append("): no run parameters or reported values."));
    }
}

// Where AIPerf's own numbers and servestat's part, a note says why. AIPerf's rates divide by its
// benchmark_duration (the profiling window: from the first request to the last response, or the
// phase's own window in newer versions); servestat's by the span of the records it kept. And a
// run that stopped well short of the duration it was configured for says so.
inline void add_aiperf_duration_notes(const request_table& requests, run_metadata& meta) {
    std::optional<double> first, last;
    for (std::size_t i = 0; i < requests.size(); ++i) {
        const request_record r = requests.row(i);
        if (!first || r.t_sent < *first) first = r.t_sent;
        if (r.t_end && (!last || *r.t_end > *last)) last = r.t_end;
    }
    if (!first || !last) return;
    const double span = *last - *first;
    if (const auto* reported = find_reported(meta, "duration");
        reported && std::abs(reported->value - span) > std::max(1e-3, 1e-6 * span))
        meta.notes.push_back(fmt::format("AIPerf's rates (rps, output_tps) divide by its benchmark_duration, {:.6g} s; "
                                         "servestat's divide by the span of the records, {:.6g} s, so the two differ "
                                         "by that ratio.",
                                         reported->value, span));
    const bool cancelled = std::any_of(meta.notes.begin(), meta.notes.end(), [](const std::string& n) {
        return n.starts_with("AIPerf reports that the benchmark was cancelled");
    });
    const auto configured = meta.params.find("benchmark_duration");
    if (!cancelled && configured != meta.params.end() && configured->is_number() && configured->get<double>() > 0 &&
        span < 0.9 * configured->get<double>())
        meta.notes.push_back(fmt::format("The records span {:.6g} s of the {:.6g} s the run was configured for "
                                         "(input_config.loadgen.benchmark_duration): it ended early, and the "
                                         "files do not say why.",
                                         span, configured->get<double>()));
}

inline void add_aiperf_record_notes(std::span<const aiperf_request> requests, std::size_t warmup, run_metadata& meta) {
    std::int64_t reasoning = 0, output = 0;
    std::size_t cancelled = 0, end_from_request_end = 0, end_gaps = 0;
    std::int64_t largest_gap = 0;
    bool any_reasoning = false;
    for (const auto& r : requests) {
        if (r.record.status == request_status::cancelled) ++cancelled;
        if (r.record.status != request_status::ok) continue;
        end_from_request_end += r.end_from_request_end;
        if (r.request_end_gap_ns && std::abs(*r.request_end_gap_ns) > 1'000'000) {
            ++end_gaps;
            if (std::abs(*r.request_end_gap_ns) > std::abs(largest_gap)) largest_gap = *r.request_end_gap_ns;
        }
        output += r.record.output_tokens.value_or(0);
        if (r.reasoning_tokens) {
            any_reasoning = true;
            reasoning += *r.reasoning_tokens;
        }
    }
    meta.notes.emplace_back("output_tokens is AIPerf's output_sequence_length: every generated token, reasoning "
                            "included, as in AIPerf's inter_token_latency (servestat's tpot) and output token "
                            "throughput.");
    if (any_reasoning)
        meta.notes.push_back(fmt::format("{} of the {} output tokens of successful requests were reasoning tokens "
                                         "(reasoning_token_count); ttft counts the first response with any "
                                         "content, reasoning included.",
                                         reasoning, output));
    meta.notes.emplace_back("itl is AIPerf's inter_chunk_latency (the gaps between streamed chunks, pooled).");
    if (cancelled > 0)
        meta.notes.push_back(fmt::format("{} requests were cancelled by AIPerf on purpose (error code 499, "
                                         "--request-cancellation-rate): status cancelled, not server errors.",
                                         cancelled));
    if (end_from_request_end > 0)
        meta.notes.push_back(fmt::format("{} records have neither request_latency nor max_response_timestamp: their "
                                         "end is metadata.request_end_ns, which may include the closing [DONE].",
                                         end_from_request_end));
    if (end_gaps > 0)
        meta.notes.push_back(fmt::format("{} record{} metadata.request_end_ns more than 1 ms away from the end its "
                                         "metrics give (request_start_ns + request_latency; largest gap {:.6g} ms): "
                                         "the end is the metrics', as in AIPerf's statistics.",
                                         end_gaps, end_gaps == 1 ? "'s" : "s'", static_cast<double>(largest_gap) / 1e6));
    if (warmup > 0)
        meta.notes.push_back(fmt::format("{} warmup records were left out, as AIPerf leaves them out.", warmup));
}

inline std::vector<run> read_aiperf(const std::filesystem::path& file, const read_options& options) {
    line_source lines(file, options.max_line_bytes);
    run out;
    std::vector<aiperf_request> requests;
    std::size_t warmup = 0;
    aiperf_request request;
    while (const auto line = lines.next()) {
        if (trim_spaces(*line).empty()) continue;
        const json_place place{lines.name(), lines.line_number()};
        try {
            const nlohmann::json doc = nvidia_parse_json_line(*line, place);
            if (read_aiperf_record(doc, place, request)) requests.push_back(std::move(request));
            else ++warmup;
        } catch (const input_error& e) {
            if (!options.skip_bad) throw;
            out.skipped.add(e.what());
        }
    }
    if (requests.empty() && out.skipped.count == 0)
        throw input_error(lines.name(), 0, "", warmup > 0 ? "only warmup records" : "no request records");

    out.meta.label = nvidia_run_label(file, "profile_export");
    out.meta.tool = "aiperf";
    out.meta.source = {file.string(), std::string(aiperf_name)};
    out.meta.kind = run_kind::requests;
    if (!requests.empty()) {
        const std::int64_t t0 = std::min_element(requests.begin(), requests.end(), [](const auto& a, const auto& b) {
                                    return a.start_ns < b.start_ns;
                                })->start_ns;
        out.meta.started_at = iso_utc(t0, 3);
        out.requests.reserve(requests.size());
        for (auto& r : requests) {
            r.record.t_sent = nvidia_seconds_between(r.start_ns, t0);
            if (r.first_ns) r.record.t_first = nvidia_seconds_between(*r.first_ns, t0);
            if (r.end_ns) r.record.t_end = nvidia_seconds_between(*r.end_ns, t0);
            out.requests.push_back(r.record);
        }
    }
    add_aiperf_record_notes(requests, warmup, out.meta);
    add_aiperf_summary_beside(file, options, out.meta);
    add_aiperf_duration_notes(out.requests, out.meta);
    std::vector<run> runs;
    runs.push_back(std::move(out));
    return runs;
}

// ---- Sniffer ----

inline std::string_view aiperf_first_line(std::string_view head) {
    if (head.substr(0, 3) == "\xEF\xBB\xBF") head.remove_prefix(3);
    const auto start = head.find_first_not_of(" \t\r\n");
    if (start == std::string_view::npos) return {};
    head.remove_prefix(start);
    return head.substr(0, head.find('\n'));
}

// {"metadata": ... "metrics": ... on one line, with AIPerf's own metadata keys (GuideLLM's result
// file also starts with {"metadata": and holds "metrics", but as one pretty document).
inline int sniff_aiperf(std::string_view head) {
    std::string_view line = aiperf_first_line(head);
    if (line.empty() || line.front() != '{') return 0;
    line.remove_prefix(1);
    line = trim_spaces(line);
    if (!line.starts_with("\"metadata\"") || line.find("\"metrics\"") == std::string_view::npos) return 0;
    for (const std::string_view key : {"\"x_request_id\"", "\"record_processor_id\"", "\"timestamp_ns\"",
                                       "\"request_start_ns\""})
        if (line.find(key) != std::string_view::npos) return 100;
    return 0;
}

} // namespace detail

inline constexpr log_format aiperf_format{
    detail::aiperf_name, "AIPerf per-request records (profile_export.jsonl: metadata, metrics, error)",
    &detail::sniff_aiperf, &detail::read_aiperf};

} // namespace servestat
