// Reader for GuideLLM's `benchmarks.json` (`guidellm benchmark ... --outputs json`; GuideLLM 0.5,
// metadata.version 1, and the same benchmark layout under metadata.version 2): one run per element
// of `benchmarks`, each with its strategy, GuideLLM's own metrics and the per-request records
// `requests.successful`, `requests.errored` and `requests.incomplete`. GuideLLM 0.2's older layout
// (benchmarks with args/run_stats/worker, records with start_time ... end_time) is told apart by
// structure and read by its own functions below; any other layout is an error naming what was found.
// GuideLLM's YAML report (`--outputs yaml`, benchmarks.yaml: yaml.dump of the same report) is
// read through yaml_document.hpp into the same JSON value, so both give the same runs.
//
// Every time in a record is Unix seconds (time.time()): they become seconds since the run's earliest
// request start. t_sent = request_start_time, t_first = info.timings.first_token_iteration, t_end =
// info.timings.last_token_iteration (the last token, servestat's definition; GuideLLM's
// request_latency runs on to request_end, after the stream's usage chunk and [DONE]). GuideLLM keeps
// no per-chunk gaps, so there is no itl. GuideLLM computes its metrics over the requests that overlap
// its warmup/cooldown-trimmed measurement window; the run keeps every request and a note says which.
#pragma once

#include <algorithm>   // std::min, std::max
#include <array>       // std::array
#include <cmath>       // std::abs, std::floor
#include <cstddef>     // std::size_t
#include <cstdint>     // std::int32_t, std::int64_t
#include <cstdio>      // std::snprintf
#include <filesystem>  // std::filesystem::path
#include <limits>      // std::numeric_limits
#include <optional>    // std::optional
#include <span>        // std::span
#include <string>      // std::string
#include <string_view> // std::string_view
#include <utility>     // std::move
#include <vector>      // std::vector

#include <nlohmann/json.hpp> // nlohmann::json

#include "servestat/core/iso_time.hpp"         // iso_utc
#include "servestat/core/errors.hpp"          // input_error
#include "servestat/core/request_record.hpp"  // request_record
#include "servestat/core/request_status.hpp"  // request_status
#include "servestat/core/run.hpp"             // run, run_metadata, reported_value
#include "servestat/ingest/failure_text.hpp"  // classify_failure_text
#include "servestat/ingest/guidellm_intervals.hpp"      // read_guidellm_intervals
#include "servestat/ingest/guidellm_server_metrics.hpp" // read_guidellm_server_metrics
#include "servestat/ingest/json_document.hpp" // read_json_documents, json_place, json_* helpers
#include "servestat/ingest/reader.hpp"        // log_format, read_options
#include "servestat/ingest/yaml_document.hpp" // parse_yaml_document, with_yaml_field_lines

namespace servestat {
namespace detail {

inline constexpr std::string_view guidellm_name = "guidellm";

inline std::string guidellm_fixed(double x, int digits) {
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", digits, x);
    return text;
}

// ---- GuideLLM's own metrics -------------------------------------------------------------------

// One metric of `metrics.<key>.successful` and the name servestat reports it under: a servestat
// metric where the definitions agree, "guidellm.<key>" where they do not. `scale` converts to the
// reported unit (ms → s for ttft).
struct guidellm_metric {
    std::string_view key;
    std::string_view reported;
    std::string_view unit;
    double scale;
    bool full; // every percentile, or only mean, p50 and max (rates and concurrency)
};

// In the order GuideLLM writes them.
inline constexpr std::array<guidellm_metric, 10> guidellm_metrics{{
    {"requests_per_second", "guidellm.requests_per_second", "req/s", 1.0, false},
    {"request_concurrency", "guidellm.request_concurrency", "requests", 1.0, false},
    // Ends at request_end (after the usage chunk and [DONE]), not at the last token.
    {"request_latency", "guidellm.request_latency", "s", 1.0, true},
    {"prompt_token_count", "prompt_tokens", "tokens", 1.0, true},
    {"output_token_count", "output_tokens", "tokens", 1.0, true},
    {"time_to_first_token_ms", "ttft", "s", 1e-3, true},
    // (last token - request start) / output tokens: includes the TTFT; token-weighted.
    {"time_per_output_token_ms", "guidellm.time_per_output_token_ms", "ms", 1.0, true},
    // servestat's per-request tpot, but aggregated with weights output_tokens - 1.
    {"inter_token_latency_ms", "guidellm.inter_token_latency_ms", "ms", 1.0, true},
    {"output_tokens_per_second", "guidellm.output_tokens_per_second", "tok/s", 1.0, false},
    {"tokens_per_second", "guidellm.tokens_per_second", "tok/s", 1.0, false},
}};

inline void add_guidellm_value(run_metadata& meta, const nlohmann::json& object, std::string_view key,
                               const std::string& name, std::string_view unit, double scale,
                               const json_place& place, const std::string& path) {
    const auto* v = json_member(object, key);
    if (!v || v->is_null()) return;
    meta.reported.push_back({name, json_number(*v, place, json_path(path, key)) * scale, std::string(unit)});
}

// GuideLLM's metrics of the successful requests in its measurement window. Its median equals its
// p50 (both are the same lookup), so only p50 is kept, and where the percentiles have no p50
// (GuideLLM 0.2) the median is reported as p50; mode, variance, count and total_sum add nothing a
// reader of servestat's statistics needs. The request counts are metrics.request_totals, or the
// benchmark's own request_totals in GuideLLM 0.2.
inline void read_guidellm_metrics(const nlohmann::json& benchmark, const json_place& place, const std::string& path,
                                  run_metadata& meta) {
    const auto* metrics = json_member(benchmark, "metrics");
    if (!metrics || metrics->is_null()) return;
    const std::string metrics_path = json_path(path, "metrics");
    json_object(*metrics, place, metrics_path);

    const auto* totals = json_member(*metrics, "request_totals");
    std::string totals_path = json_path(metrics_path, "request_totals");
    if (!totals || totals->is_null()) {
        totals = json_member(benchmark, "request_totals");
        totals_path = json_path(path, "request_totals");
    }
    if (totals && !totals->is_null()) {
        json_object(*totals, place, totals_path);
        for (const std::string_view key : {"successful", "errored", "incomplete", "total"})
            add_guidellm_value(meta, *totals, key, std::string("guidellm.request_totals.").append(key), "requests",
                               1.0, place, totals_path);
    }
    guidellm_interval_reading intervals;
    for (const auto& m : guidellm_metrics) {
        const auto* metric = json_member(*metrics, m.key);
        if (!metric || metric->is_null()) continue;
        const std::string metric_path = json_path(metrics_path, m.key);
        json_object(*metric, place, metric_path);
        const auto* stats = json_member(*metric, "successful");
        if (!stats || stats->is_null()) continue;
        const std::string stats_path = json_path(metric_path, "successful");
        json_object(*stats, place, stats_path);
        const std::string prefix = std::string(m.reported).append(".");
        add_guidellm_value(meta, *stats, "mean", prefix + "mean", m.unit, m.scale, place, stats_path);
        if (m.full) {
            add_guidellm_value(meta, *stats, "std_dev", prefix + "std", m.unit, m.scale, place, stats_path);
            add_guidellm_value(meta, *stats, "min", prefix + "min", m.unit, m.scale, place, stats_path);
        }
        add_guidellm_value(meta, *stats, "max", prefix + "max", m.unit, m.scale, place, stats_path);
        if (const auto* percentiles = json_member(*stats, "percentiles"); percentiles && !percentiles->is_null()) {
            const std::string percentiles_path = json_path(stats_path, "percentiles");
            json_object(*percentiles, place, percentiles_path);
            for (const auto& p : guidellm_percentiles) {
                if (!m.full && p.key != "p50") continue;
                if (p.key == "p50" && !json_member(*percentiles, "p50"))
                    add_guidellm_value(meta, *stats, "median", prefix + "p50", m.unit, m.scale, place, stats_path);
                else
                    add_guidellm_value(meta, *percentiles, p.key, prefix + std::string(p.reported), m.unit, m.scale,
                                       place, percentiles_path);
            }
        }
        read_guidellm_intervals(*stats, stats_path, prefix, m.unit, m.scale, meta, intervals);
    }
    if (auto note = guidellm_intervals_note(intervals); !note.empty()) meta.notes.push_back(std::move(note));
}

// ---- strategy and parameters ------------------------------------------------------------------

// Strategy fields that are run parameters, under servestat's names.
inline void set_guidellm_number_param(run_metadata& meta, const nlohmann::json& object, std::string_view key,
                                      const std::string& name, const json_place& place, const std::string& path) {
    const auto* v = json_member(object, key);
    if (!v || v->is_null()) return;
    const double x = json_number(*v, place, json_path(path, key));
    if (x == std::floor(x) && std::abs(x) < 1e15) meta.params[name] = static_cast<std::int64_t>(x);
    else meta.params[name] = x;
}

// A constraint is {"type_": ..., "<limit>": N} in a benchmark's config, a bare number elsewhere.
inline void set_guidellm_constraint(run_metadata& meta, const nlohmann::json& constraints, std::string_view key,
                                    std::string_view inner, const json_place& place, const std::string& path) {
    const auto* v = json_member(constraints, key);
    if (!v || v->is_null()) return;
    if (v->is_object()) set_guidellm_number_param(meta, *v, inner, std::string(key), place, json_path(path, key));
    else set_guidellm_number_param(meta, constraints, key, std::string(key), place, path);
}

struct guidellm_strategy {
    std::string type;
    std::string label; // GuideLLM's own name: "synchronous", "concurrent@4", "constant@2.00"
    bool open_loop = false; // targeted_start is a planned arrival (constant, poisson, trace)
};

inline guidellm_strategy read_guidellm_strategy(const nlohmann::json& config, const json_place& place,
                                                const std::string& path, run_metadata& meta) {
    guidellm_strategy out;
    const auto* strategy = json_member(config, "strategy");
    if (!strategy || strategy->is_null()) return out;
    const std::string strategy_path = json_path(path, "strategy");
    json_object(*strategy, place, strategy_path);
    if (const auto* type = json_member(*strategy, "type_"); type && !type->is_null())
        out.type = json_string(*type, place, json_path(strategy_path, "type_"));
    if (!out.type.empty()) meta.params["strategy"] = out.type;
    set_guidellm_number_param(meta, *strategy, "rate", "rate", place, strategy_path);
    set_guidellm_number_param(meta, *strategy, "streams", "streams", place, strategy_path);
    set_guidellm_number_param(meta, *strategy, "max_concurrency", "max_concurrency", place, strategy_path);
    set_guidellm_number_param(meta, *strategy, "worker_count", "worker_count", place, strategy_path);
    if (const auto* ramp = json_member(*strategy, "rampup_duration");
        ramp && !ramp->is_null() && json_number(*ramp, place, json_path(strategy_path, "rampup_duration")) > 0)
        set_guidellm_number_param(meta, *strategy, "rampup_duration", "rampup_duration", place, strategy_path);

    out.open_loop = out.type == "constant" || out.type == "poisson" || out.type == "trace";
    out.label = out.type;
    if (out.type == "concurrent" && meta.params.contains("streams"))
        out.label.append("@").append(meta.params["streams"].dump());
    else if (out.open_loop && meta.params.contains("rate"))
        out.label.append("@").append(guidellm_fixed(meta.params["rate"].get<double>(), 2));
    return out;
}

inline void read_guidellm_config(const nlohmann::json& benchmark, const nlohmann::json& document,
                                 const json_place& place, const std::string& path, run_metadata& meta,
                                 guidellm_strategy& strategy) {
    const auto* config = json_member(benchmark, "config");
    const std::string config_path = json_path(path, "config");
    if (config && !config->is_null()) {
        json_object(*config, place, config_path);
        strategy = read_guidellm_strategy(*config, place, config_path, meta);
        if (const auto* profile = json_member(*config, "profile"); profile && profile->is_object())
            if (const auto* type = json_member(*profile, "type_"); type && type->is_string())
                meta.params["profile"] = type->get<std::string>();
        if (const auto* constraints = json_member(*config, "constraints"); constraints && !constraints->is_null()) {
            const std::string constraints_path = json_path(config_path, "constraints");
            json_object(*constraints, place, constraints_path);
            set_guidellm_constraint(meta, *constraints, "max_requests", "max_num", place, constraints_path);
            set_guidellm_constraint(meta, *constraints, "max_seconds", "max_duration", place, constraints_path);
            set_guidellm_constraint(meta, *constraints, "max_errors", "max_errors", place, constraints_path);
        }
        if (const auto* backend = json_member(*config, "backend"); backend && backend->is_object())
            if (const auto* model = json_member(*backend, "model"); model && model->is_string())
                meta.model = model->get<std::string>();
    }
    // The command line (`args`; `config` in newer files) fills in what the benchmark lacks.
    for (const std::string_view key : {"args", "config"}) {
        const auto* args = json_member(document, key);
        if (!args || !args->is_object()) continue;
        if (const auto* model = json_member(*args, "model"); meta.model.empty() && model && model->is_string())
            meta.model = model->get<std::string>();
        if (const auto* data = json_member(*args, "data"); meta.workload.empty() && data) {
            if (data->is_string()) meta.workload = data->get<std::string>();
            else if (data->is_array())
                for (const auto& item : *data)
                    if (item.is_string()) {
                        if (!meta.workload.empty()) meta.workload.append(", ");
                        meta.workload.append(item.get<std::string>());
                    }
        }
    }
}

// ---- per-request records ----------------------------------------------------------------------

// One request as GuideLLM recorded it, times still in Unix seconds. `end` is timings.request_end
// (the end of the HTTP exchange); `listed_end` is the record's request_end_time, which GuideLLM
// fills from resolve_end when the request never ended (a cancelled one): only its window uses that.
struct guidellm_request {
    std::optional<double> targeted, start, first, last_token, end, listed_end;
    std::optional<std::int32_t> prompt_tokens, output_tokens, max_tokens, http_status;
    request_status status = request_status::ok;
    std::string error;
    // The first out-of-order time of a field that only informs (the end of the HTTP exchange when
    // the last token is known, the listing's end): kept, and named in a note, never a refusal.
    std::string informs_out_of_order;
};

inline std::optional<double> guidellm_time(const nlohmann::json* object, std::string_view key,
                                           const json_place& place, const std::string& path) {
    if (!object) return std::nullopt;
    return json_optional_number(json_member(*object, key), place, json_path(path, key));
}

// httpx's raise_for_status text, which GuideLLM records as the error: "Client error '429 Too Many
// Requests' for url ...", "Server error '503 Service Unavailable' for url ...".
inline std::optional<std::int32_t> guidellm_http_status(std::string_view error) {
    for (const std::string_view marker : {"Client error '", "Server error '"}) {
        const auto at = error.find(marker);
        if (at == std::string_view::npos) continue;
        const std::string_view code = error.substr(at + marker.size(), 4);
        if (code.size() == 4 && code[3] == ' ' && code.find_first_not_of("0123456789", 0) == 3)
            return (code[0] - '0') * 100 + (code[1] - '0') * 10 + (code[2] - '0');
    }
    return std::nullopt;
}

// The body GuideLLM sent is kept as a JSON string (or object) in request_args: its max_tokens is
// the output budget. Anything else there (or no body) leaves max_tokens absent.
inline std::optional<std::int32_t> guidellm_max_tokens(const nlohmann::json& record) {
    const auto* args = json_member(record, "request_args");
    if (!args) return std::nullopt;
    nlohmann::json parsed;
    if (args->is_string()) parsed = parse_embedded_json(args->get_ref<const std::string&>());
    else if (args->is_object()) parsed = *args;
    const auto* body = json_member(parsed, "body");
    if (!body) return std::nullopt;
    for (const std::string_view key : {"max_tokens", "max_completion_tokens"})
        if (const auto* v = json_member(*body, key);
            v && v->is_number_integer() && v->get<std::int64_t>() >= 0 &&
            v->get<std::int64_t>() <= std::numeric_limits<std::int32_t>::max())
            return static_cast<std::int32_t>(v->get<std::int64_t>());
    return std::nullopt;
}

inline void require_order(const json_place& place, const std::string& later_path, std::optional<double> later,
                          std::optional<double> earlier, const char* what) {
    if (later && earlier && *later < *earlier) place.fail(later_path, what);
}

// The same order for a time that feeds no statistic: noted on the request, not refused.
inline void note_order(guidellm_request& r, const std::string& later_path, std::optional<double> later,
                       std::optional<double> earlier, const char* what) {
    if (later && earlier && *later < *earlier && r.informs_out_of_order.empty())
        r.informs_out_of_order = later_path + ": " + what;
}

// An errored request's text gives its HTTP status (httpx's wording) or its kind (timeout, transport).
inline void classify_guidellm_failure(guidellm_request& r) {
    if (r.status == request_status::error) {
        if (r.error.empty()) r.error = "request errored (no error text)";
        std::optional<std::int32_t> code = guidellm_http_status(r.error);
        const failure_class failure = classify_failure_text(r.error, code);
        r.status = failure.status;
        r.http_status = failure.http_status;
    } else if (r.status == request_status::cancelled && r.error.empty()) {
        r.error = "request incomplete (cancelled)";
    }
}

// `open_loop`: targeted_start is the planned arrival, so it must not come after the send.
inline guidellm_request read_guidellm_request(const nlohmann::json& record, request_status status, bool open_loop,
                                              const json_place& place, const std::string& path) {
    json_object(record, place, path);
    guidellm_request r;
    r.status = status;
    const auto* info = json_member(record, "info");
    const std::string info_path = json_path(path, "info");
    if (info && !info->is_null()) json_object(*info, place, info_path);
    else info = nullptr;
    const auto* timings = info ? json_member(*info, "timings") : nullptr;
    const std::string timings_path = json_path(info_path, "timings");
    if (timings && !timings->is_null()) json_object(*timings, place, timings_path);
    else timings = nullptr;

    r.targeted = guidellm_time(timings, "targeted_start", place, timings_path);
    r.start = guidellm_time(&record, "request_start_time", place, path);
    if (!r.start) r.start = guidellm_time(timings, "request_start", place, timings_path);
    r.first = guidellm_time(timings, "first_token_iteration", place, timings_path);
    r.last_token = guidellm_time(timings, "last_token_iteration", place, timings_path);
    r.end = guidellm_time(timings, "request_end", place, timings_path);
    r.listed_end = guidellm_time(&record, "request_end_time", place, path);
    if (!r.listed_end) r.listed_end = r.end;
    if (!r.end && !timings && status == request_status::ok) r.end = r.listed_end;
    r.prompt_tokens = json_optional_count(json_member(record, "prompt_tokens"), place, json_path(path, "prompt_tokens"));
    r.output_tokens = json_optional_count(json_member(record, "output_tokens"), place, json_path(path, "output_tokens"));
    r.max_tokens = guidellm_max_tokens(record);
    if (info)
        if (const auto* error = json_member(*info, "error"); error && !error->is_null())
            r.error = json_string(*error, place, json_path(info_path, "error"));

    if (status == request_status::ok) {
        if (!r.start) place.fail(json_path(path, "request_start_time"), "missing required field");
        if (!r.last_token && !r.end)
            place.fail(json_path(timings_path, "last_token_iteration"), "missing required field");
    }
    const std::string first_path = json_path(timings_path, "first_token_iteration");
    const std::string last_path = json_path(timings_path, "last_token_iteration");
    require_order(place, first_path, r.first, r.start, "first_token_iteration is before request_start (negative TTFT)");
    require_order(place, last_path, r.last_token, r.first, "last_token_iteration is before first_token_iteration");
    if (!r.last_token)
        require_order(place, json_path(timings_path, "request_end"), r.end, r.first,
                      "request_end is before first_token_iteration (and there is no last_token_iteration)");
    require_order(place, last_path, r.last_token, r.start, "last_token_iteration is before request_start");
    // request_end is t_end only without a last token; with one it informs GuideLLM's latency note.
    if (r.last_token)
        note_order(r, json_path(timings_path, "request_end"), r.end, r.start, "request_end is before request_start");
    else
        require_order(place, json_path(timings_path, "request_end"), r.end, r.start,
                      "request_end is before request_start (negative latency)");
    // request_end_time only places the request against GuideLLM's measurement window.
    note_order(r, json_path(path, "request_end_time"), r.listed_end, r.start,
               "request_end_time is before request_start_time");
    if (open_loop)
        require_order(place, json_path(path, "request_start_time"), r.start, r.targeted,
                      "request_start is before targeted_start (negative client queue time)");

    classify_guidellm_failure(r);
    return r;
}

// ---- GuideLLM 0.2's request records ----------------------------------------------------------
//
// GuideLLM 0.2 (GenerativeTextResponseStats / GenerativeTextErrorStats) keeps a request's times at
// the top of its record: start_time (time.time() just before the HTTP request), first_token_time
// and last_token_time (the first and last streamed line carrying text), end_time (the last line
// read, [DONE]); scheduler_info.request_start and request_end are copies of start_time and
// end_time, scheduler_info.targeted_start_time the strategy's planned start.

// A 0.2 record's time: it writes -1 (or null on an error record) for a time it never took.
inline std::optional<double> guidellm_v02_time(const nlohmann::json* object, std::string_view key,
                                               const json_place& place, const std::string& path) {
    const auto t = guidellm_time(object, key, place, path);
    return t && *t > 0 ? t : std::nullopt;
}

inline guidellm_request read_guidellm_v02_request(const nlohmann::json& record, request_status status, bool open_loop,
                                                  const json_place& place, const std::string& path) {
    json_object(record, place, path);
    guidellm_request r;
    r.status = status;
    const auto* info = json_member(record, "scheduler_info");
    const std::string info_path = json_path(path, "scheduler_info");
    if (info && !info->is_null()) json_object(*info, place, info_path);
    else info = nullptr;

    r.targeted = guidellm_v02_time(info, "targeted_start_time", place, info_path);
    r.start = guidellm_v02_time(&record, "start_time", place, path);
    if (!r.start) r.start = guidellm_v02_time(info, "request_start", place, info_path);
    r.first = guidellm_v02_time(&record, "first_token_time", place, path);
    r.last_token = guidellm_v02_time(&record, "last_token_time", place, path);
    r.end = guidellm_v02_time(&record, "end_time", place, path);
    if (!r.end) r.end = guidellm_v02_time(info, "request_end", place, info_path);
    r.listed_end = r.end;
    r.prompt_tokens = json_optional_count(json_member(record, "prompt_tokens"), place, json_path(path, "prompt_tokens"));
    r.output_tokens = json_optional_count(json_member(record, "output_tokens"), place, json_path(path, "output_tokens"));
    if (const auto* error = json_member(record, "error"); error && !error->is_null())
        r.error = json_string(*error, place, json_path(path, "error"));

    if (status == request_status::ok) {
        if (!r.start) place.fail(json_path(path, "start_time"), "missing required field");
        if (!r.last_token && !r.end) place.fail(json_path(path, "last_token_time"), "missing required field");
    }
    const std::string first_path = json_path(path, "first_token_time");
    const std::string last_path = json_path(path, "last_token_time");
    const std::string end_path = json_path(path, "end_time");
    require_order(place, first_path, r.first, r.start, "first_token_time is before start_time (negative TTFT)");
    require_order(place, last_path, r.last_token, r.first, "last_token_time is before first_token_time");
    require_order(place, last_path, r.last_token, r.start, "last_token_time is before start_time");
    // end_time is t_end only without a last token; with one it informs GuideLLM's latency note.
    note_order(r, end_path, r.end, r.last_token, "end_time is before last_token_time");
    if (r.last_token) note_order(r, end_path, r.end, r.start, "end_time is before start_time");
    else require_order(place, end_path, r.end, r.start, "end_time is before start_time (negative latency)");
    if (open_loop)
        require_order(place, json_path(path, "start_time"), r.start, r.targeted,
                      "start_time is before scheduler_info.targeted_start_time (negative client queue time)");
    classify_guidellm_failure(r);
    return r;
}

// Which of GuideLLM's layouts a file is in.
enum class guidellm_layout { v0_2, current };

struct guidellm_group {
    std::string_view key;
    request_status status;
};

inline constexpr std::array<guidellm_group, 3> guidellm_groups{{
    {"successful", request_status::ok},
    {"errored", request_status::error},
    {"incomplete", request_status::cancelled},
}};

// All listed requests of one benchmark, in the file's order (successful, errored, incomplete).
struct guidellm_requests {
    std::vector<guidellm_request> requests;
    std::array<std::size_t, 3> listed{}; // per group, skipped ones included
};

inline guidellm_requests read_guidellm_requests(const nlohmann::json& benchmark, bool open_loop,
                                                const json_place& place, const std::string& path,
                                                const read_options& options, skipped_lines& skipped,
                                                guidellm_layout layout = guidellm_layout::current,
                                                const yaml_document* yaml = nullptr) {
    const auto read_record = layout == guidellm_layout::v0_2 ? &read_guidellm_v02_request : &read_guidellm_request;
    const std::string requests_path = json_path(path, "requests");
    const auto& requests = json_object(json_require(benchmark, "requests", place, path), place, requests_path);
    guidellm_requests out;
    for (std::size_t g = 0; g < guidellm_groups.size(); ++g) {
        const auto* list = json_member(requests, guidellm_groups[g].key);
        if (!list || list->is_null()) continue;
        const std::string list_path = json_path(requests_path, guidellm_groups[g].key);
        json_array(*list, place, list_path);
        out.listed[g] = list->size();
        for (std::size_t i = 0; i < list->size(); ++i) {
            try {
                out.requests.push_back(
                    read_record((*list)[i], guidellm_groups[g].status, open_loop, place, json_path(list_path, i)));
            } catch (const input_error& e) {
                if (!options.skip_bad) throw;
                skipped.add(yaml ? at_yaml_field_line(e, *yaml).what() : e.what());
            }
        }
    }
    return out;
}

// The open-loop arrival, send, first token and last token on the run's clock (0 = first start).
// Epoch values sit near 1.8e9 s: the subtraction of two such doubles is exact, so no digit is lost.
inline void guidellm_to_record(const guidellm_request& g, double origin, bool use_targeted, request_record& r) {
    auto relative = [origin](std::optional<double> t) -> std::optional<double> {
        if (!t) return std::nullopt;
        return *t - origin;
    };
    r.t_sched = use_targeted ? relative(g.targeted) : std::nullopt;
    r.t_sent = relative(g.start);
    r.t_first = relative(g.first);
    r.t_end = relative(g.last_token ? g.last_token : g.end);
    r.prompt_tokens = g.prompt_tokens;
    r.output_tokens = g.output_tokens;
    r.max_tokens = g.max_tokens;
    r.status = g.status;
    r.http_status = g.http_status;
    r.error = g.error;
}

// The run's clock starts at the first request start (or, when no request has one, at its earliest
// recorded time, so that no time is left on the epoch scale).
inline std::optional<double> guidellm_origin(const std::vector<guidellm_request>& requests) {
    std::optional<double> origin;
    auto take = [&origin](std::optional<double> t) {
        if (t) origin = origin ? std::min(*origin, *t) : *t;
    };
    for (const auto& r : requests) take(r.start);
    if (origin) return origin;
    for (const auto& r : requests)
        for (const auto t : {r.targeted, r.first, r.last_token, r.end, r.listed_end}) take(t);
    return origin;
}

// ---- notes ------------------------------------------------------------------------------------

// Requests kept although a time that only informs is out of order (validation in proportion).
inline void add_guidellm_informs_note(const std::vector<guidellm_request>& requests, run_metadata& meta) {
    std::size_t n = 0;
    const std::string* first = nullptr;
    for (const auto& r : requests)
        if (!r.informs_out_of_order.empty()) {
            ++n;
            if (!first) first = &r.informs_out_of_order;
        }
    if (n > 0)
        meta.notes.push_back(std::to_string(n) + " request(s) have an end time out of order (first: " + *first +
                             "); that time feeds none of servestat's statistics (t_end is the last token), so "
                             "they are kept");
}

// Requests whose end had to be request_end (no last_token_iteration), so the clock note stays true.
inline std::size_t ends_at_request_end(std::span<const guidellm_request> requests) {
    std::size_t n = 0;
    for (const auto& r : requests) n += !r.last_token && r.end;
    return n;
}

inline const std::string guidellm_clock_note =
    "times are GuideLLM's Unix timestamps made relative to the run's first request_start_time; t_first is "
    "first_token_iteration and t_end is last_token_iteration (the last token, as servestat defines it)";
inline const std::string guidellm_itl_note =
    "GuideLLM records only the first and last token times: per-chunk gaps (itl) are unavailable";
inline const std::string guidellm_tpot_note =
    "servestat's tpot ((t_end - t_first) / (output_tokens - 1)) equals GuideLLM's per-request "
    "inter_token_latency_ms; GuideLLM's aggregates of it are weighted by output_tokens - 1 and are reported as "
    "guidellm.inter_token_latency_ms; its time_per_output_token_ms includes the TTFT ((last token - start) / "
    "output_tokens)";
inline const std::string guidellm_percentile_note =
    "GuideLLM's percentiles are nearest-rank (an observed value, numpy's inverted_cdf up to rounding at exact "
    "ranks) and its std_dev divides by n: compare them with --method inverted_cdf --ddof 0";

// GuideLLM's request_latency ends at request_end (end_time in 0.2); say how far that is from the
// last token.
inline std::string guidellm_latency_note(const std::vector<guidellm_request>& requests,
                                         std::string_view span = "from request_start to request_end, after the "
                                                                 "stream's usage chunk and [DONE]") {
    double largest = 0;
    bool any = false;
    for (const auto& r : requests)
        if (r.status == request_status::ok && r.last_token && r.end) {
            largest = any ? std::max(largest, *r.end - *r.last_token) : *r.end - *r.last_token;
            any = true;
        }
    std::string note = "GuideLLM's request_latency runs ";
    note.append(span);
    if (any) note.append(" (here up to ").append(guidellm_fixed(largest * 1e3, 1)).append(" ms after the last token)");
    return note.append(": it is reported as guidellm.request_latency, not as e2e");
}

inline std::string guidellm_counts(std::size_t a, std::size_t b, std::size_t c) {
    return std::to_string(a) + " successful, " + std::to_string(b) + " errored and " + std::to_string(c) +
           " incomplete";
}

// GuideLLM's metrics cover the successful requests that overlap [measure_start, measure_end]
// (request_end >= measure_start and request_start <= measure_end: GuideLLM's get_within_range).
inline void add_guidellm_window_note(const nlohmann::json& benchmark, const json_place& place, const std::string& path,
                                     const std::vector<guidellm_request>& requests, double origin,
                                     run_metadata& meta) {
    const auto* scheduler = json_member(benchmark, "scheduler_metrics");
    if (!scheduler || !scheduler->is_object()) return;
    const std::string scheduler_path = json_path(path, "scheduler_metrics");
    const auto from = guidellm_time(scheduler, "measure_start_time", place, scheduler_path);
    const auto to = guidellm_time(scheduler, "measure_end_time", place, scheduler_path);
    if (!from || !to) return;
    std::size_t successful = 0, inside = 0;
    for (const auto& r : requests) {
        if (r.status != request_status::ok) continue;
        ++successful;
        inside += r.listed_end && r.start && *r.listed_end >= *from && *r.start <= *to;
    }
    std::optional<double> counted;
    if (const auto* v = find_reported(meta, "guidellm.request_totals.successful")) counted = v->value;
    const std::string window = guidellm_fixed(*from - origin, 1) + " s to " + guidellm_fixed(*to - origin, 1) + " s";
    if (counted && *counted != static_cast<double>(inside)) {
        meta.notes.push_back("GuideLLM's metrics count " + guidellm_fixed(*counted, 0) +
                             " successful requests, but " + std::to_string(inside) +
                             " overlap its measurement window (" + window +
                             " on this run's clock): which requests its numbers cover is unknown");
        return;
    }
    if (inside == successful) return;
    meta.notes.push_back("GuideLLM's own numbers (reported values) cover the " + std::to_string(inside) + " of " +
                         std::to_string(successful) + " successful requests that overlap its measurement window, " +
                         window + " on this run's clock (warmup and cooldown trimmed); servestat's statistics cover "
                         "every request in the file");
}

// The scheduler's counts against the records the file lists (a sampled or cut-short listing).
inline void add_guidellm_listing_note(const nlohmann::json& benchmark, const guidellm_requests& listed,
                                      run_metadata& meta) {
    const auto* scheduler = json_member(benchmark, "scheduler_metrics");
    const auto* made = scheduler ? json_member(*scheduler, "requests_made") : nullptr;
    if (!made || !made->is_object()) return;
    std::array<std::size_t, 3> counts{};
    for (std::size_t g = 0; g < guidellm_groups.size(); ++g) {
        const auto* v = json_member(*made, guidellm_groups[g].key);
        if (!v || !v->is_number_unsigned()) return;
        counts[g] = v->get<std::size_t>();
    }
    if (counts == listed.listed) return;
    meta.notes.push_back("GuideLLM's scheduler counted " + guidellm_counts(counts[0], counts[1], counts[2]) +
                         " requests; the file lists " +
                         guidellm_counts(listed.listed[0], listed.listed[1], listed.listed[2]));
}

// ---- one benchmark → one run ------------------------------------------------------------------

inline run read_guidellm_benchmark(const std::filesystem::path& file, const nlohmann::json& document,
                                   const nlohmann::json& benchmark, const json_place& place, const std::string& path,
                                   const read_options& options, const yaml_document* yaml = nullptr) {
    json_object(benchmark, place, path);
    run out;
    auto& meta = out.meta;
    meta.source = {file.string(), std::string(guidellm_name)};
    meta.tool = "guidellm";
    if (const auto* metadata = json_member(document, "metadata"); metadata && metadata->is_object())
        if (const auto* version = json_member(*metadata, "guidellm_version"); version && version->is_string())
            meta.tool.append(" ").append(version->get<std::string>());

    guidellm_strategy strategy;
    read_guidellm_config(benchmark, document, place, path, meta, strategy);
    meta.label = file.stem().string();
    if (!strategy.label.empty()) meta.label.append(" ").append(strategy.label);

    const auto* scheduler = json_member(benchmark, "scheduler_metrics");
    const std::string scheduler_path = json_path(path, "scheduler_metrics");
    auto started = guidellm_time(scheduler && scheduler->is_object() ? scheduler : nullptr, "start_time", place,
                                 scheduler_path);
    if (!started) started = guidellm_time(&benchmark, "start_time", place, path);
    if (started && *started > 0 && *started < max_unix_seconds) meta.started_at = iso_utc(static_cast<std::int64_t>(std::floor(*started)) * 1000000000);

    read_guidellm_metrics(benchmark, place, path, meta);
    if (const auto* duration = json_member(benchmark, "duration"); duration && !duration->is_null())
        meta.reported.push_back({"guidellm.duration", json_duration(*duration, place, json_path(path, "duration")), "s"});

    const bool use_targeted = strategy.open_loop;
    out.skipped.unit = skipped_unit::record; // elements of the document's request arrays, not lines
    const guidellm_requests listed =
        read_guidellm_requests(benchmark, use_targeted, place, path, options, out.skipped, guidellm_layout::current, yaml);
    const std::optional<double> origin = guidellm_origin(listed.requests);
    out.requests.reserve(listed.requests.size());
    request_record record;
    for (const auto& g : listed.requests) {
        record.clear();
        guidellm_to_record(g, origin.value_or(0.0), use_targeted, record);
        out.requests.push_back(record);
    }

    meta.notes.push_back(guidellm_clock_note);
    add_guidellm_informs_note(listed.requests, meta);
    if (const auto n = ends_at_request_end(listed.requests); n > 0)
        meta.notes.push_back(std::to_string(n) + " request(s) lack last_token_iteration: their t_end is request_end, "
                             "which comes after the last token, so their e2e and decode are slightly long");
    meta.notes.push_back(guidellm_latency_note(listed.requests));
    meta.notes.push_back(guidellm_itl_note);
    meta.notes.push_back(guidellm_tpot_note);
    if (!use_targeted && !strategy.type.empty())
        meta.notes.push_back("GuideLLM's targeted_start of a closed-loop strategy (" + strategy.type +
                             ") is the earliest allowed start, not an arrival time: t_sched is absent, so "
                             "client_queue and e2e_sched are unavailable");
    add_guidellm_window_note(benchmark, place, path, listed.requests, origin.value_or(0.0), meta);
    read_guidellm_server_metrics(benchmark, place, path, origin.value_or(started.value_or(0.0)), started.value_or(0.0),
                                 meta);
    add_guidellm_listing_note(benchmark, listed, meta);
    if (listed.listed[2] > 0)
        meta.notes.push_back(std::to_string(listed.listed[2]) +
                             " incomplete request(s) (cut off when the run stopped) are counted as cancelled");
    meta.notes.push_back(guidellm_percentile_note);
    return out;
}

// ---- a GuideLLM 0.2 benchmark → one run -------------------------------------------------------

// The model and workload of a 0.2 benchmark: worker.backend_model and request_loader.data.
inline void read_guidellm_v02_setup(const nlohmann::json& benchmark, run_metadata& meta) {
    if (const auto* worker = json_member(benchmark, "worker"); worker && worker->is_object())
        if (const auto* model = json_member(*worker, "backend_model"); model && model->is_string() && *model != "None")
            meta.model = model->get<std::string>();
    if (const auto* loader = json_member(benchmark, "request_loader"); loader && loader->is_object())
        if (const auto* data = json_member(*loader, "data"); data && data->is_string())
            meta.workload = data->get<std::string>();
}

// The strategy and limits of a 0.2 benchmark (args): the same parameter names as the later layout.
inline guidellm_strategy read_guidellm_v02_args(const nlohmann::json& benchmark, const json_place& place,
                                                const std::string& path, run_metadata& meta) {
    const auto* args = json_member(benchmark, "args");
    if (!args || args->is_null()) return {};
    const std::string args_path = json_path(path, "args");
    json_object(*args, place, args_path);
    guidellm_strategy strategy = read_guidellm_strategy(*args, place, args_path, meta);
    if (const auto* profile = json_member(*args, "profile"); profile && profile->is_object())
        if (const auto* type = json_member(*profile, "type_"); type && type->is_string())
            meta.params["profile"] = type->get<std::string>();
    set_guidellm_number_param(meta, *args, "max_number", "max_requests", place, args_path);
    set_guidellm_number_param(meta, *args, "max_duration", "max_seconds", place, args_path);
    return strategy;
}

// GuideLLM 0.2 leaves warmup and cooldown requests out of the listing and computes its metrics over
// the listed requests, unless it sampled them (request_samples).
inline void add_guidellm_v02_listing_note(const nlohmann::json& benchmark, const guidellm_requests& listed,
                                          run_metadata& meta) {
    const auto* totals = json_member(benchmark, "request_totals");
    if (!totals || !totals->is_object()) return;
    std::array<std::size_t, 3> counts{};
    for (std::size_t g = 0; g < guidellm_groups.size(); ++g) {
        const auto* v = json_member(*totals, guidellm_groups[g].key);
        if (!v || !v->is_number_unsigned()) return;
        counts[g] = v->get<std::size_t>();
    }
    if (counts == listed.listed) return;
    meta.notes.push_back("GuideLLM counted " + guidellm_counts(counts[0], counts[1], counts[2]) +
                         " requests and computed its numbers over all of them; the file lists " +
                         guidellm_counts(listed.listed[0], listed.listed[1], listed.listed[2]) +
                         " (a sample), and servestat's statistics cover those");
}

inline const std::string guidellm_v02_layout_note =
    "read as GuideLLM 0.2's layout (no metadata block; benchmarks with args, run_stats and worker; request records "
    "with start_time, first_token_time, last_token_time and end_time)";
inline const std::string guidellm_v02_clock_note =
    "times are GuideLLM's Unix timestamps made relative to the run's first start_time: t_sent is start_time (= "
    "scheduler_info.request_start, taken just before the HTTP request), t_first first_token_time, t_end "
    "last_token_time (the last token, as servestat defines it); t_sched is scheduler_info.targeted_start_time for "
    "constant and poisson";
inline const std::string guidellm_v02_tpot_note =
    "servestat's tpot ((t_end - t_first) / (output_tokens - 1)) equals GuideLLM's per-request inter_token_latency_ms; "
    "GuideLLM's aggregates of it are weighted by output_tokens - 1 and its time_per_output_token_ms by output_tokens, "
    "so both are reported under guidellm.*";

inline run read_guidellm_v02_benchmark(const std::filesystem::path& file, const nlohmann::json& benchmark,
                                       const json_place& place, const std::string& path, const read_options& options,
                                       const yaml_document* yaml = nullptr) {
    json_object(benchmark, place, path);
    run out;
    out.skipped.unit = skipped_unit::record; // elements of the document's request arrays, not lines
    auto& meta = out.meta;
    meta.source = {file.string(), std::string(guidellm_name)};
    meta.tool = "guidellm 0.2";
    const guidellm_strategy strategy = read_guidellm_v02_args(benchmark, place, path, meta);
    read_guidellm_v02_setup(benchmark, meta);
    meta.label = file.stem().string();
    if (!strategy.label.empty()) meta.label.append(" ").append(strategy.label);

    const auto* stats = json_member(benchmark, "run_stats");
    auto started = guidellm_time(stats && stats->is_object() ? stats : nullptr, "start_time", place,
                                 json_path(path, "run_stats"));
    if (!started) started = guidellm_time(&benchmark, "start_time", place, path);
    if (started && *started > 0 && *started < max_unix_seconds)
        meta.started_at = iso_utc(static_cast<std::int64_t>(std::floor(*started)) * 1000000000);

    read_guidellm_metrics(benchmark, place, path, meta);
    if (const auto* duration = json_member(benchmark, "duration"); duration && !duration->is_null())
        meta.reported.push_back({"guidellm.duration", json_duration(*duration, place, json_path(path, "duration")), "s"});

    const bool use_targeted = strategy.open_loop;
    const guidellm_requests listed = read_guidellm_requests(benchmark, use_targeted, place, path, options, out.skipped,
                                                            guidellm_layout::v0_2, yaml);
    const std::optional<double> origin = guidellm_origin(listed.requests);
    out.requests.reserve(listed.requests.size());
    request_record record;
    std::size_t without_last_token = 0;
    for (const auto& g : listed.requests) {
        record.clear();
        guidellm_to_record(g, origin.value_or(0.0), use_targeted, record);
        out.requests.push_back(record);
        without_last_token += g.status == request_status::ok && !g.last_token;
    }

    meta.notes.push_back(guidellm_v02_layout_note);
    meta.notes.push_back(guidellm_v02_clock_note);
    add_guidellm_informs_note(listed.requests, meta);
    if (without_last_token > 0)
        meta.notes.push_back(std::to_string(without_last_token) + " successful request(s) have no last_token_time (-1): "
                             "their t_end is end_time, after the last token, so their e2e and decode are slightly long");
    meta.notes.push_back(guidellm_latency_note(listed.requests, "from start_time to end_time, the arrival of the "
                                                                "stream's last line ([DONE])"));
    meta.notes.push_back(guidellm_itl_note);
    meta.notes.push_back(guidellm_v02_tpot_note);
    if (!use_targeted && !strategy.type.empty())
        meta.notes.push_back("GuideLLM's targeted_start_time of a closed-loop strategy (" + strategy.type +
                             ") is the earliest allowed start, not an arrival time: t_sched is absent, so "
                             "client_queue and e2e_sched are unavailable");
    if (const auto* totals = find_reported(meta, "guidellm.request_totals.successful"); totals)
        meta.notes.push_back("GuideLLM 0.2 leaves warmup and cooldown requests out of the file and out of its numbers; "
                             "its median is reported as its p50 (the same lookup)");
    add_guidellm_v02_listing_note(benchmark, listed, meta);
    if (listed.listed[2] > 0)
        meta.notes.push_back(std::to_string(listed.listed[2]) +
                             " incomplete request(s) (cut off when the run stopped) are counted as cancelled");
    meta.notes.push_back(guidellm_percentile_note);
    return out;
}

// ---- the file ---------------------------------------------------------------------------------

// "a, b, c" (at most `most`) for an error that says what a file holds.
inline std::string guidellm_keys(const nlohmann::json& object, std::size_t most = 12) {
    if (!object.is_object()) return std::string("a ") + object.type_name();
    std::string keys;
    std::size_t n = 0;
    for (const auto& [key, value] : object.items()) {
        if (n++ == most) return keys + ", ...";
        keys.append(keys.empty() ? "" : ", ").append(key);
    }
    return keys.empty() ? "nothing" : keys;
}

// Told apart by structure: GuideLLM 0.2's benchmarks carry args and run_stats, later ones config and
// scheduler_metrics (and the file a metadata block with the schema version).
inline guidellm_layout guidellm_layout_of(const nlohmann::json& document, const nlohmann::json& benchmarks,
                                          const json_place& place) {
    const auto& first = benchmarks.front();
    const bool later = json_member(first, "config") || json_member(first, "scheduler_metrics");
    const bool v0_2 = json_member(first, "args") && json_member(first, "run_stats");
    if (first.is_object() && later && !v0_2) return guidellm_layout::current;
    if (first.is_object() && v0_2 && !later && !json_member(document, "metadata")) return guidellm_layout::v0_2;
    std::string found = "top level: " + guidellm_keys(document) + "; benchmarks[0]: " + guidellm_keys(first);
    if (const auto* metadata = json_member(document, "metadata"); metadata && metadata->is_object())
        if (const auto* version = json_member(*metadata, "version"))
            found.append("; metadata.version ").append(version->dump());
    place.fail("benchmarks[0]",
               "a GuideLLM layout servestat does not know (" + found +
                   "); supported: GuideLLM 0.2.x (benchmarks with args, run_stats and worker; records with "
                   "start_time and scheduler_info) and the later layout (metadata.version 1 or 2; benchmarks with "
                   "config and scheduler_metrics; records with info.timings)");
}

// GuideLLM's YAML output (yaml.dump of the same report, keys sorted): block mappings, never JSON.
inline bool looks_like_guidellm_yaml(std::string_view head) {
    if (!looks_like_block_yaml(head) || !yaml_has_top_key(head, "benchmarks")) return false;
    for (const std::string_view marker : {"generative_benchmark", "generative_request_stats", "generative_text_response",
                                          "guidellm_version:", "scheduler_metrics:", "run_stats:",
                                          "time_to_first_token_ms:", "inter_token_latency_ms:"})
        if (head.find(marker) != std::string_view::npos) return true;
    return false;
}

// One report (the JSON document, or the YAML one converted to the same value): one run per
// benchmark. `yaml` is the YAML document it came from, whose lines name a skipped record.
inline std::vector<run> read_guidellm_report(const std::filesystem::path& file, const nlohmann::json& document,
                                             const json_place& place, const read_options& options,
                                             const yaml_document* yaml = nullptr) {
    json_object(document, place, "");
    const auto& benchmarks = json_array(json_require(document, "benchmarks", place, ""), place, "benchmarks");
    if (benchmarks.empty()) place.fail("benchmarks", "no benchmarks in the file");
    const guidellm_layout layout = guidellm_layout_of(document, benchmarks, place);
    std::vector<run> runs;
    for (std::size_t i = 0; i < benchmarks.size(); ++i) {
        const std::string path = json_path("benchmarks", i);
        runs.push_back(layout == guidellm_layout::v0_2
                           ? read_guidellm_v02_benchmark(file, benchmarks[i], place, path, options, yaml)
                           : read_guidellm_benchmark(file, document, benchmarks[i], place, path, options, yaml));
    }
    return runs;
}

inline std::vector<run> read_guidellm(const std::filesystem::path& file, const read_options& options) {
    const std::string text = read_whole_file(file); // YAML is recognised below, so no JSON-only first byte
    std::vector<run> runs;
    json_place place;
    if (looks_like_guidellm_yaml(std::string_view(text).substr(0, 64 * 1024))) {
        const yaml_document doc = parse_yaml_document(file, text);
        runs = with_yaml_field_lines(doc, [&] { return read_guidellm_report(file, doc.value, doc.place, options, &doc); });
        place = doc.place;
    } else {
        auto documents = parse_json_documents(file, text);
        if (documents.size() > 1)
            throw input_error(file.string(), documents[1].place.line, "", "more than one JSON document in the file");
        runs = read_guidellm_report(file, documents.front().value, documents.front().place, options);
        place = documents.front().place;
    }
    for (auto& r : runs) // Python's NaN and Infinity, YAML's .nan and .inf: each read as its notes say
        r.meta.notes.insert(r.meta.notes.end(), place.nonfinite_notes().begin(), place.nonfinite_notes().end());
    return runs;
}

// A JSON object with "benchmarks" and GuideLLM's own markers (its 0.2 records are
// generative_text_response), or GuideLLM's YAML report.
inline int sniff_guidellm(std::string_view head) {
    if (looks_like_guidellm_yaml(head)) return 90;
    if (first_json_char(head) != '{') return 0;
    if (head.find("\"benchmarks\"") == std::string_view::npos) return 0;
    if (head.find("\"guidellm_version\"") != std::string_view::npos) return 100;
    for (const std::string_view marker :
         {"\"generative_benchmark\"", "\"generative_request_stats\"", "\"generative_text_response\""})
        if (head.find(marker) != std::string_view::npos) return 90;
    return 0;
}

} // namespace detail

inline constexpr log_format guidellm_format{
    detail::guidellm_name,
    "GuideLLM benchmarks.json or benchmarks.yaml (guidellm benchmark --outputs json or yaml; GuideLLM 0.2 and later "
    "layouts): one run per benchmark, per-request records",
    &detail::sniff_guidellm, &detail::read_guidellm};

} // namespace servestat
