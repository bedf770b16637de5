// Reader for mlcommons/endpoints' event log `events.jsonl` (format "mlcommons-endpoints"): one JSON
// line per event of the run, read into one requests run, with `result_summary.json` beside it (in the
// same folder or its performance/ folder) merged as the run's reported values.
//
// A line (mlcommons/endpoints@ea332753, core/record.py as msgspec.json encodes it):
//   {"event_type": "sample.issued" | "sample.recv_first" | "sample.recv_non_first" | "sample.complete"
//                  | "error.<kind>" | "session.<kind>", "timestamp_ns": monotonic ns, "sample_uuid",
//    "conversation_id", "turn", "data": ["PromptData", text, token_ids, ...] | ["TextModelOutput", ...]
//                  | ["ErrorData", type, message] | null, "finish_reason"?, "worker_id"?}
// Before the 2026-04 refactor (#282) the log was written from SQLite with sorted keys and the older
// names (loadgen_issue_called, first_chunk_received, non_first_chunk_received, complete, error,
// test_started): both are read. Per request: t_sent = issued, t_first = recv_first, t_end = complete,
// itl = the gaps between its chunk events; prompt_tokens = len(token_ids) when the prompt was sent as
// tokens. Only samples issued inside a performance-tracking window count, as in the tool's report.
#pragma once

#include <algorithm>     // std::min_element
#include <cmath>         // std::floor
#include <cstddef>       // std::size_t
#include <cstdint>       // std::int32_t, std::int64_t
#include <filesystem>    // std::filesystem::path
#include <optional>      // std::optional
#include <string>        // std::string
#include <string_view>   // std::string_view
#include <system_error>  // std::error_code
#include <unordered_map> // std::unordered_map
#include <utility>       // std::move
#include <vector>        // std::vector

#include <fmt/format.h>      // fmt::format
#include <nlohmann/json.hpp> // nlohmann::json

#include "servestat/core/errors.hpp"                        // input_error
#include "servestat/core/request_record.hpp"                // request_record, time_fault
#include "servestat/core/request_status.hpp"                // request_status
#include "servestat/core/run.hpp"                           // run
#include "servestat/core/text.hpp"                          // trim_spaces
#include "servestat/ingest/failure_text.hpp"                // classify_failure_text, leading_http_status
#include "servestat/ingest/json_document.hpp"               // parse_json_text, json_place, json_* helpers
#include "servestat/ingest/line_source.hpp"                 // line_source
#include "servestat/ingest/mlcommons_endpoints_summary.hpp" // read_mlcommons_endpoints_summary_file
#include "servestat/ingest/reader.hpp"                      // log_format, read_options

namespace servestat {
namespace detail {

inline constexpr std::string_view mlcommons_endpoints_name = "mlcommons-endpoints";

enum class endpoints_event { issued, recv, complete, error, start_tracking, stop_tracking, other };

// Both spellings: category.value topics, and the names of the older SQLite-backed log.
inline endpoints_event endpoints_event_of(std::string_view type) {
    if (type == "sample.issued" || type == "loadgen_issue_called") return endpoints_event::issued;
    if (type == "sample.recv_first" || type == "sample.recv_non_first" || type == "first_chunk_received" ||
        type == "non_first_chunk_received")
        return endpoints_event::recv;
    if (type == "sample.complete" || type == "complete") return endpoints_event::complete;
    if (type.starts_with("error.") || type == "error") return endpoints_event::error;
    if (type == "session.start_performance_tracking" || type == "start_performance_tracking")
        return endpoints_event::start_tracking;
    if (type == "session.stop_performance_tracking" || type == "stop_performance_tracking")
        return endpoints_event::stop_tracking;
    return endpoints_event::other;
}

// One sample as its events give it, times still monotonic ns.
struct endpoints_sample {
    std::int64_t issued_ns = 0;
    bool tracked = false;
    std::vector<std::int64_t> recv_ns; // first chunk, then the others
    std::optional<std::int64_t> complete_ns;
    std::optional<std::int32_t> prompt_tokens;
    std::string error;
};

inline std::int64_t endpoints_timestamp(const nlohmann::json& line, const json_place& place) {
    const auto& v = json_require(line, "timestamp_ns", place, "");
    const double x = json_number(v, place, "timestamp_ns");
    if (x < 0 || x != std::floor(x) || x >= 9.2e18) place.fail("timestamp_ns", "expected whole nanoseconds >= 0");
    return v.is_number_integer() ? v.get<std::int64_t>() : static_cast<std::int64_t>(x);
}

// ["PromptData", text, token_ids, ...] (msgspec's array-like tagged struct): the prompt's length when
// it was sent as token ids; otherwise the tool tokenized the text itself and the log cannot tell.
inline std::optional<std::int32_t> endpoints_prompt_tokens(const nlohmann::json* data) {
    if (!data) return std::nullopt;
    const nlohmann::json* ids = nullptr;
    if (data->is_array() && data->size() >= 3 && (*data)[0] == "PromptData") ids = &(*data)[2];
    else if (data->is_object()) ids = json_member(*data, "token_ids");
    if (!ids || !ids->is_array()) return std::nullopt;
    return static_cast<std::int32_t>(ids->size());
}

// "HTTPError: 503 Service Unavailable" from ["ErrorData", type, message], or the text the older log held.
inline std::string endpoints_error_text(const nlohmann::json* data) {
    if (!data || data->is_null()) return "error";
    if (data->is_array() && data->size() >= 2 && (*data)[0] == "ErrorData") {
        std::string text = (*data)[1].is_string() ? (*data)[1].get<std::string>() : std::string("error");
        if (data->size() >= 3 && (*data)[2].is_string() && !(*data)[2].get<std::string>().empty())
            text.append(": ").append((*data)[2].get<std::string>());
        return text;
    }
    if (data->is_string()) return data->get<std::string>();
    if (data->is_object())
        for (const std::string_view key : {"error_message", "error_type", "message"})
            if (const auto* m = json_member(*data, key); m && m->is_string()) return m->get<std::string>();
    return data->dump();
}

// What the whole log gives, in file order of the issued events.
struct endpoints_log {
    std::vector<endpoints_sample> samples;
    std::unordered_map<std::string, std::size_t> index; // sample_uuid → samples
    bool saw_tracking = false, tracking = false;
    std::size_t orphan_events = 0; // chunk/complete/error events of a sample never issued
    std::size_t session_errors = 0;
};

inline void read_endpoints_line(const nlohmann::json& line, const json_place& place, endpoints_log& log) {
    if (!line.is_object()) place.fail("", "an event must be a JSON object");
    const auto& type = json_string(json_require(line, "event_type", place, ""), place, "event_type");
    const endpoints_event kind = endpoints_event_of(type);
    const std::int64_t ts = endpoints_timestamp(line, place);
    if (kind == endpoints_event::start_tracking) log.saw_tracking = log.tracking = true;
    if (kind == endpoints_event::stop_tracking) log.tracking = false;
    if (kind == endpoints_event::other || kind == endpoints_event::start_tracking || kind == endpoints_event::stop_tracking)
        return;
    const auto* uuid_field = json_member(line, "sample_uuid");
    const std::string uuid = uuid_field && uuid_field->is_string() ? uuid_field->get<std::string>() : std::string();
    if (uuid.empty()) {
        if (kind == endpoints_event::error) ++log.session_errors;
        else if (kind == endpoints_event::issued) place.fail("sample_uuid", "an issued sample needs its sample_uuid");
        return;
    }
    const auto* data = json_member(line, json_member(line, "data") ? "data" : "value"); // "value" in the older log
    if (kind == endpoints_event::issued) {
        const auto [at, added] = log.index.try_emplace(uuid, log.samples.size());
        if (!added) place.fail("sample_uuid", "sample " + uuid + " is issued twice");
        endpoints_sample s;
        s.issued_ns = ts;
        s.tracked = log.tracking;
        s.prompt_tokens = endpoints_prompt_tokens(data);
        log.samples.push_back(std::move(s));
        return;
    }
    const auto it = log.index.find(uuid);
    if (it == log.index.end()) {
        ++log.orphan_events;
        return;
    }
    endpoints_sample& s = log.samples[it->second];
    if (ts < s.issued_ns) place.fail("timestamp_ns", "before sample " + uuid + " was issued");
    if (kind == endpoints_event::recv) {
        if (s.complete_ns) place.fail("event_type", "a chunk of sample " + uuid + " after its completion");
        if (!s.recv_ns.empty() && ts < s.recv_ns.back()) // its gap would be negative
            place.fail("timestamp_ns", "a chunk of sample " + uuid + " before its previous chunk");
        s.recv_ns.push_back(ts);
    } else if (kind == endpoints_event::error) {
        if (s.error.empty()) s.error = endpoints_error_text(data);
    } else {
        if (s.complete_ns) place.fail("event_type", "sample " + uuid + " completes twice");
        if (!s.recv_ns.empty() && ts < s.recv_ns.back())
            place.fail("timestamp_ns", "sample " + uuid + " completes before its last chunk");
        s.complete_ns = ts;
    }
}

inline double endpoints_seconds(std::int64_t ns, std::int64_t t0) { return static_cast<double>(ns - t0) / 1e9; }

inline void endpoints_to_record(const endpoints_sample& s, std::int64_t t0, request_record& r) {
    r.clear();
    r.t_sent = endpoints_seconds(s.issued_ns, t0);
    if (!s.recv_ns.empty()) r.t_first = endpoints_seconds(s.recv_ns.front(), t0);
    if (s.complete_ns) r.t_end = endpoints_seconds(*s.complete_ns, t0);
    for (std::size_t k = 1; k < s.recv_ns.size(); ++k) r.itl.push_back(static_cast<double>(s.recv_ns[k] - s.recv_ns[k - 1]) / 1e9);
    r.prompt_tokens = s.prompt_tokens;
    if (!s.error.empty()) {
        r.error = s.error;
        // "HTTPError: 503 ...": the status leads the message, not the text
        const auto colon = s.error.find(": ");
        const auto status = leading_http_status(colon == std::string::npos ? std::string_view(s.error)
                                                                           : std::string_view(s.error).substr(colon + 2));
        const failure_class failure = classify_failure_text(s.error, status);
        r.status = failure.status;
        r.http_status = failure.http_status;
    } else if (!s.complete_ns) {
        r.status = request_status::cancelled;
        r.error = "no completion event: the run ended before the response";
    }
}

// result_summary.json of the same run: mlcommons/endpoints writes it to <run>/performance/; copies
// keep it beside the log.
inline std::optional<std::filesystem::path> endpoints_summary_beside(const std::filesystem::path& events) {
    const auto dir = events.parent_path();
    for (const auto& candidate : {dir / "performance" / "result_summary.json", dir / "result_summary.json"}) {
        std::error_code ec;
        if (std::filesystem::is_regular_file(candidate, ec)) return candidate;
    }
    return std::nullopt;
}

// A broken summary must not hide the events, which are complete on their own.
inline void add_endpoints_summary_beside(const std::filesystem::path& events, run_metadata& meta) {
    const auto summary_path = endpoints_summary_beside(events);
    if (!summary_path) return;
    meta.source.merged.push_back(summary_path->string());
    try {
        auto summary = read_mlcommons_endpoints_summary_file(*summary_path);
        meta.tool = summary.tool;
        meta.params = std::move(summary.params);
        meta.reported = std::move(summary.reported);
        for (auto& note : summary.notes) meta.notes.push_back(std::move(note));
        meta.notes.push_back("Run parameters and reported values come from " +
                             summary_path->lexically_relative(events.parent_path()).generic_string() + " beside the events.");
    } catch (const input_error& e) {
        meta.notes.push_back(std::string("Could not read ") + summary_path->filename().string() + " beside the events (" +
                             e.what() + "): no run parameters or reported values.");
    }
}

inline void add_endpoints_notes(const endpoints_log& log, std::size_t untracked, bool any_prompt_tokens, run_metadata& meta) {
    meta.notes.emplace_back("t_sent is the sample's ISSUED event, t_first its first chunk (recv_first), t_end its "
                            "COMPLETE event, itl the gaps between its chunk events; times are seconds since the "
                            "earliest send (the log's clock is monotonic: no wall-clock start).");
    meta.notes.emplace_back("events.jsonl holds output text, not token counts (mlcommons/endpoints tokenizes it with the "
                            "model's tokenizer): output_tokens is absent, so tpot and token rates are only the "
                            "reported values of result_summary.json.");
    if (!any_prompt_tokens)
        meta.notes.emplace_back("No prompt was sent as token ids: prompt_tokens is absent (the tool tokenized the text).");
    if (untracked > 0)
        meta.notes.push_back(fmt::format("{} sample(s) issued outside a performance-tracking window (warm-up or accuracy "
                                         "phases) are left out, as mlcommons/endpoints leaves them out of its report.",
                                         untracked));
    if (!log.saw_tracking)
        meta.notes.emplace_back("The log has no start_performance_tracking event (an older layout): every sample counts.");
    if (log.orphan_events > 0)
        meta.notes.push_back(fmt::format("{} event(s) name a sample the log never issued and are left out.", log.orphan_events));
    if (log.session_errors > 0)
        meta.notes.push_back(fmt::format("{} error event(s) belong to no sample (session or load-generator errors).",
                                         log.session_errors));
}

inline std::vector<run> read_mlcommons_endpoints(const std::filesystem::path& file, const read_options& options) {
    line_source lines(file, options.max_line_bytes);
    run out;
    endpoints_log log;
    while (const auto line = lines.next()) {
        if (trim_spaces(*line).empty()) continue;
        const json_place place{lines.name(), lines.line_number()};
        try {
            read_endpoints_line(parse_json_text(*line, place), place, log);
        } catch (const input_error& e) {
            if (!options.skip_bad) throw;
            out.skipped.add(e.what());
        }
    }
    std::vector<const endpoints_sample*> kept;
    for (const auto& s : log.samples)
        if (s.tracked || !log.saw_tracking) kept.push_back(&s);
    if (kept.empty() && out.skipped.count == 0)
        throw input_error(lines.name(), 0, "", log.samples.empty() ? "no sample.issued events"
                                                                   : "no sample issued inside a performance-tracking window");
    out.meta.label = mlcommons_endpoints_label(file.parent_path());
    out.meta.tool = "mlcommons-endpoints";
    out.meta.source = {file.string(), std::string(mlcommons_endpoints_name), {}};
    out.meta.kind = run_kind::requests;
    bool any_prompt_tokens = false;
    if (!kept.empty()) {
        const std::int64_t t0 = (*std::min_element(kept.begin(), kept.end(), [](const auto* a, const auto* b) {
                                    return a->issued_ns < b->issued_ns;
                                }))->issued_ns;
        out.requests.reserve(kept.size());
        request_record r;
        for (const auto* s : kept) {
            endpoints_to_record(*s, t0, r);
            any_prompt_tokens |= r.prompt_tokens.has_value();
            out.requests.push_back(r);
        }
    }
    add_endpoints_notes(log, log.samples.size() - kept.size(), any_prompt_tokens, out.meta);
    add_endpoints_summary_beside(file, out.meta);
    std::vector<run> runs;
    runs.push_back(std::move(out));
    return runs;
}

// The first line is an event: event_type, timestamp_ns and sample_uuid, in either layout's key order.
inline int sniff_mlcommons_endpoints(std::string_view head) {
    if (first_json_char(head) != '{') return 0;
    const auto start = head.find('{');
    const std::string_view line = head.substr(start, head.find('\n', start) - start);
    for (const std::string_view key : {"\"event_type\"", "\"timestamp_ns\"", "\"sample_uuid\""})
        if (line.find(key) == std::string_view::npos) return 0;
    return 90;
}

} // namespace detail

inline constexpr log_format mlcommons_endpoints_format{
    detail::mlcommons_endpoints_name,
    "mlcommons/endpoints' events.jsonl: per-request events (issued, chunks, complete, errors) of one run",
    &detail::sniff_mlcommons_endpoints, &detail::read_mlcommons_endpoints};

} // namespace servestat
