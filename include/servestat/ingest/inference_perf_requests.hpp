// Reader for inference-perf's per-request report `per_request_lifecycle_metrics.json`
// (kubernetes-sigs/inference-perf, format "inference-perf-requests"): a JSON array with one record per
// request of the whole run, every stage together, read into one requests run.
//
// How it relates to the lifecycle reports beside it (inference_perf.hpp): inference-perf computes
// `summary_lifecycle_metrics.json`, each `stage_N_lifecycle_metrics.json` and each adapter's report
// from the very requests this file lists. So the file is the run; the whole-run report beside it
// (same file-name prefix) gives its reported values under servestat's names, each stage report its
// own under "stage_<N>." (an adapter's under "adapter_<name>."), and all of them are listed in
// run.meta.source.merged: a folder read shows these requests once, not once more per stage.
//
// A record, across versions (reportgen/base.py; apis/base.py):
//   {"start_time", "end_time" (monotonic s), "request" | "request_data" (the body, a JSON string),
//    "response" | "response_data", "scheduled_time"?, "stage_id"?,
//    "info": {"input_tokens" | "request_metrics": {"text": {"input_tokens"}},
//             "output_tokens", "output_token_times" (<= 0.6) | "response_info": {...} (2026-04) |
//             "response_metrics": {"output_tokens", "output_token_times", "chunk_times",
//                                  "server_usage"} (2026-05 on)},
//    "error": null | {"error_type", "error_msg"}}
// t_sent = start_time, t_first = the first output token's time, t_end = the last token's (end_time is
// after the usage chunk and [DONE]: the end only without token times), t_sched = scheduled_time, itl
// = gaps between successive distinct token times (every token of a chunk carries the chunk's time).
#pragma once

#include <algorithm>    // std::min_element, std::sort
#include <cstddef>      // std::size_t
#include <cstdint>      // std::int32_t
#include <filesystem>   // std::filesystem
#include <initializer_list> // std::initializer_list
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <system_error> // std::error_code
#include <utility>      // std::move
#include <vector>       // std::vector

#include <fmt/format.h>      // fmt::format
#include <nlohmann/json.hpp> // nlohmann::json

#include "servestat/core/errors.hpp"          // input_error
#include "servestat/core/natural_order.hpp"   // natural_less
#include "servestat/core/request_record.hpp"  // request_record, time_fault
#include "servestat/core/request_status.hpp"  // request_status
#include "servestat/core/run.hpp"             // run, reported_value
#include "servestat/ingest/failure_text.hpp"  // classify_failure_text
#include "servestat/ingest/inference_perf.hpp" // read_inference_perf_document, parse_inference_perf_file_name
#include "servestat/ingest/json_document.hpp" // parse_json_documents, json_place, json_* helpers
#include "servestat/ingest/reader.hpp"        // log_format, read_options

namespace servestat {
namespace detail {

inline constexpr std::string_view inference_perf_requests_name = "inference-perf-requests";
inline constexpr std::string_view inference_perf_requests_stem = "per_request_lifecycle_metrics";

// One record before the run's clock is known: times stay inference-perf's monotonic seconds.
struct inference_perf_request {
    request_record record; // everything but the times
    double start = 0, end = 0;
    std::optional<double> scheduled;
    std::vector<double> token_times;
};

// The first of `keys` that `object` has and is not null.
inline const nlohmann::json* inference_perf_first(const nlohmann::json* object, std::initializer_list<std::string_view> keys) {
    if (!object || !object->is_object()) return nullptr;
    for (const auto key : keys)
        if (const auto* v = json_member(*object, key); v && !v->is_null()) return v;
    return nullptr;
}

// Where the response's numbers sit: info.response_metrics, info.response_info, or info itself.
inline std::pair<const nlohmann::json*, std::string> inference_perf_response(const nlohmann::json& info,
                                                                             const std::string& path) {
    for (const std::string_view key : {"response_metrics", "response_info"})
        if (const auto* r = json_member(info, key); r && r->is_object()) return {r, json_path(path, key)};
    return {&info, path};
}

inline void read_inference_perf_tokens(const nlohmann::json& info, const json_place& place, const std::string& path,
                                       inference_perf_request& out) {
    request_record& r = out.record;
    if (const auto* m = json_member(info, "request_metrics"); m && m->is_object())
        if (const auto* text = json_member(*m, "text"); text && text->is_object())
            r.prompt_tokens = json_optional_count(json_member(*text, "input_tokens"), place,
                                                  json_path(path, "request_metrics.text.input_tokens"));
    if (!r.prompt_tokens)
        r.prompt_tokens = json_optional_count(json_member(info, "input_tokens"), place, json_path(path, "input_tokens"));
    const auto [response, response_path] = inference_perf_response(info, path);
    r.output_tokens = json_optional_count(json_member(*response, "output_tokens"), place,
                                          json_path(response_path, "output_tokens"));
    if (const auto* usage = inference_perf_first(response, {"server_usage"}))
        if (const auto* details = inference_perf_first(usage, {"prompt_tokens_details"}))
            r.cached_tokens = json_optional_count(json_member(*details, "cached_tokens"), place,
                                                  json_path(response_path, "server_usage.prompt_tokens_details.cached_tokens"));
    if (const auto* times = inference_perf_first(response, {"output_token_times"})) {
        const std::string times_path = json_path(response_path, "output_token_times");
        json_array(*times, place, times_path);
        for (std::size_t k = 0; k < times->size(); ++k) {
            const double t = json_number((*times)[k], place, json_path(times_path, k));
            if (!out.token_times.empty() && t < out.token_times.back())
                place.fail(json_path(times_path, k), "token times go back in time");
            out.token_times.push_back(t);
        }
    }
}

// max_tokens from the request body, a JSON string; nothing when it is no JSON object.
inline std::optional<std::int32_t> inference_perf_max_tokens(const nlohmann::json& record) {
    const auto* body = inference_perf_first(&record, {"request", "request_data"});
    if (!body || !body->is_string() || body->get_ref<const std::string&>().size() > (std::size_t{1} << 20)) return std::nullopt;
    const auto parsed = nlohmann::json::parse(body->get_ref<const std::string&>(), nullptr, false);
    for (const std::string_view key : {"max_tokens", "max_completion_tokens"})
        if (const auto* v = json_member(parsed, key); v && v->is_number_unsigned() && v->get<std::uint64_t>() < (1u << 31))
            return static_cast<std::int32_t>(v->get<std::uint64_t>());
    return std::nullopt;
}

inline void read_inference_perf_error(const nlohmann::json& error, const json_place& place, const std::string& path,
                                      request_record& r) {
    json_object(error, place, path);
    const auto text = [&](std::string_view key) {
        const auto* v = json_member(error, key);
        return v && v->is_string() ? v->get<std::string>() : std::string();
    };
    r.error = text("error_type");
    if (const std::string msg = text("error_msg"); !msg.empty()) r.error.append(r.error.empty() ? "" : ": ").append(msg);
    if (r.error.empty()) r.error = "error";
    // inference-perf names an HTTP failure "HTTP Error 503" (aiohttp's status in its error_type).
    std::optional<std::int32_t> http;
    if (const std::string type = text("error_type"); type.starts_with("HTTP Error ") && type.size() == 14)
        if (const auto code = whole_number_suffix(std::string_view(type).substr(11)); code && *code >= 100 && *code <= 599)
            http = *code;
    const failure_class failure = classify_failure_text(r.error, http);
    r.status = failure.status;
    r.http_status = failure.http_status;
}

inline inference_perf_request read_inference_perf_record(const nlohmann::json& record, const json_place& place,
                                                         const std::string& path) {
    json_object(record, place, path);
    inference_perf_request out;
    out.start = json_number(json_require(record, "start_time", place, path), place, json_path(path, "start_time"));
    out.end = json_number(json_require(record, "end_time", place, path), place, json_path(path, "end_time"));
    if (out.end < out.start) place.fail(json_path(path, "end_time"), "earlier than start_time");
    out.scheduled = json_optional_number(json_member(record, "scheduled_time"), place, json_path(path, "scheduled_time"));
    if (const auto* info = json_member(record, "info"); info && !info->is_null())
        read_inference_perf_tokens(json_object(*info, place, json_path(path, "info")), place, json_path(path, "info"), out);
    if (!out.token_times.empty() && (out.token_times.front() < out.start || out.token_times.back() > out.end))
        place.fail(json_path(path, "info"), "output token times outside start_time .. end_time");
    out.record.max_tokens = inference_perf_max_tokens(record);
    if (const auto* error = json_member(record, "error"); error && !error->is_null())
        read_inference_perf_error(*error, place, json_path(path, "error"), out.record);
    return out;
}

inline void inference_perf_to_record(inference_perf_request& q, double t0) {
    request_record& r = q.record;
    r.t_sent = q.start - t0;
    if (q.scheduled) r.t_sched = *q.scheduled - t0;
    if (!q.token_times.empty()) r.t_first = q.token_times.front() - t0;
    r.t_end = (q.token_times.empty() || r.status != request_status::ok ? q.end : q.token_times.back()) - t0;
    for (std::size_t k = 1; k < q.token_times.size(); ++k)
        if (q.token_times[k] > q.token_times[k - 1]) // tokens of one chunk share its time: no gap
            r.itl.push_back(q.token_times[k] - q.token_times[k - 1]);
}

// ---- The lifecycle reports beside the file ----

struct inference_perf_beside {
    std::vector<std::filesystem::path> files; // merged
    std::vector<reported_value> reported;
    std::vector<std::string> notes;
    nlohmann::json params = nlohmann::json::object();
    std::size_t stages = 0;
};

// "stage_3.", "adapter_x.", "adapter_x.stage_3.", or "" for the whole-run report.
inline std::string inference_perf_prefix(const inference_perf_file_name& name) {
    std::string prefix;
    if (!name.adapter.empty()) prefix.append("adapter_").append(name.adapter).append(".");
    if (name.stage) prefix.append(fmt::format("stage_{}.", *name.stage));
    return prefix;
}

inline void add_inference_perf_report(const std::filesystem::path& file, const inference_perf_file_name& name,
                                      inference_perf_beside& out) {
    out.files.push_back(file);
    const std::string prefix = inference_perf_prefix(name);
    try {
        const std::string text = python_words_to_json(read_json_file(file), "null");
        const auto documents = parse_json_documents(file, text);
        inference_perf_report report = read_inference_perf_document(documents.front());
        for (auto& v : report.reported) out.reported.push_back({prefix + v.name, v.value, v.unit});
        if (name.stage && name.adapter.empty()) {
            ++out.stages;
            if (out.stages == 1) out.params = report.params;
            else out.params = nlohmann::json::object(); // stages differ: no one rate is the run's
        }
        if (prefix.empty())
            for (auto& note : report.notes) out.notes.push_back(std::move(note));
    } catch (const input_error& e) {
        out.notes.push_back("Could not read " + file.filename().string() + " beside the requests (" + e.what() + ").");
    }
}

// The lifecycle reports with the same file-name prefix in the same folder, whole-run report first.
inline inference_perf_beside inference_perf_reports_beside(const std::filesystem::path& requests_file) {
    namespace fs = std::filesystem;
    std::string prefix = requests_file.stem().string();
    prefix.resize(prefix.size() - std::min(prefix.size(), inference_perf_requests_stem.size()));
    std::vector<std::pair<fs::path, inference_perf_file_name>> found;
    std::error_code ec;
    const fs::path dir = requests_file.parent_path().empty() ? fs::path(".") : requests_file.parent_path();
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        if (!entry.is_regular_file(ec) || entry.path().extension() != ".json") continue;
        auto name = parse_inference_perf_file_name(entry.path().stem().string());
        if (name.recognised && name.prefix == prefix) found.emplace_back(entry.path(), std::move(name));
    }
    std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
        const bool a_whole = !a.second.stage && a.second.adapter.empty(), b_whole = !b.second.stage && b.second.adapter.empty();
        if (a_whole != b_whole) return a_whole;
        return natural_less(a.first.filename().string(), b.first.filename().string());
    });
    inference_perf_beside out;
    for (const auto& [file, name] : found) add_inference_perf_report(file, name, out);
    return out;
}

inline void add_inference_perf_beside(const std::filesystem::path& file, run_metadata& meta) {
    inference_perf_beside beside = inference_perf_reports_beside(file);
    for (const auto& f : beside.files) meta.source.merged.push_back(f.string());
    meta.reported = std::move(beside.reported);
    meta.params = std::move(beside.params);
    if (!beside.files.empty())
        meta.notes.push_back(fmt::format("The lifecycle reports beside it ({} file(s)) summarise these same requests: their "
                                         "values are reported (the whole run's under servestat's names, each stage's under "
                                         "stage_<N>.) and they are not listed as runs of their own.",
                                         beside.files.size()));
    if (beside.stages > 1)
        meta.notes.push_back(fmt::format("The requests of {} load stages together: servestat's statistics mix their "
                                         "rates; each stage's own values are stage_<N>.*.", beside.stages));
    for (auto& note : beside.notes) meta.notes.push_back(std::move(note));
}

inline std::vector<run> read_inference_perf_requests(const std::filesystem::path& file, const read_options& options) {
    const std::string text = python_words_to_json(read_json_file(file), "null");
    const auto documents = parse_json_documents(file, text);
    if (documents.size() != 1)
        throw input_error(file.string(), documents[1].place.line, "", "expected one JSON array, found several");
    const auto& [records, place] = documents.front();
    json_array(records, place, "");
    run out;
    out.skipped.unit = skipped_unit::record;
    std::vector<inference_perf_request> requests;
    for (std::size_t i = 0; i < records.size(); ++i) {
        try {
            requests.push_back(read_inference_perf_record(records[i], place, json_path("", i)));
        } catch (const input_error& e) {
            if (!options.skip_bad) throw;
            out.skipped.add(e.what());
        }
    }
    if (requests.empty() && out.skipped.count == 0) throw input_error(file.string(), 0, "", "no request records");
    out.meta.label = inference_perf_label(file);
    out.meta.tool = "inference-perf";
    out.meta.source = {file.string(), std::string(inference_perf_requests_name), {}};
    out.meta.kind = run_kind::requests;
    if (!requests.empty()) {
        const double t0 = std::min_element(requests.begin(), requests.end(), [](const auto& a, const auto& b) {
                              return a.start < b.start;
                          })->start;
        for (auto& q : requests) {
            inference_perf_to_record(q, t0);
            if (const auto fault = time_fault(q.record)) throw input_error(file.string(), place.line, std::string(fault->field), fault->message);
            out.requests.push_back(q.record);
        }
    }
    out.meta.notes.emplace_back("t_sent is start_time, t_first and t_end the first and last output token times "
                                "(end_time, after the usage chunk and [DONE], only where a request has none), t_sched "
                                "scheduled_time where written; itl pools the gaps between the chunks' arrival times. "
                                "Times are seconds since the earliest start_time (inference-perf's clock is monotonic).");
    add_inference_perf_beside(file, out.meta);
    std::vector<run> runs;
    runs.push_back(std::move(out));
    return runs;
}

// A JSON array of records with start_time, end_time and the request body (which can be long: the
// keys after it may lie past the head).
inline int sniff_inference_perf_requests(std::string_view head) {
    if (first_json_char(head) != '[') return 0;
    for (const std::string_view key : {"\"start_time\"", "\"end_time\""})
        if (head.find(key) == std::string_view::npos) return 0;
    const bool body = head.find("\"request\"") != std::string_view::npos || head.find("\"request_data\"") != std::string_view::npos;
    return body ? 80 : 0;
}

} // namespace detail

inline constexpr log_format inference_perf_requests_format{
    detail::inference_perf_requests_name,
    "inference-perf's per-request report (per_request_lifecycle_metrics.json): every request of the run",
    &detail::sniff_inference_perf_requests, &detail::read_inference_perf_requests};

} // namespace servestat
