// Reader for genai-bench's experiment folders (sgl-project/genai-bench): one JSON file per traffic
// scenario and concurrency (or batch size), `<scenario>_<task>_<model>_<iteration>_<n>_time_<t>s.json`,
// beside the folder's experiment_metadata.json (the command and its settings, not a run).
//
// A run file holds `aggregated_metrics` (scenario, num_concurrency or batch_size, run_duration,
// throughputs, request and error counts, and `stats`: min, max, mean, stddev, sum, p25…p99 of each
// per-request field over the successful requests) and `individual_request_metrics` (one record per
// request: ttft, tpot, e2e_latency, output_latency, token counts, error_code, error_message),
// and since 0.0.2 `_time_unit` ("s" or "ms", --metrics-time-unit: ttft, tpot, e2e_latency and
// output_latency and their stats are in that unit; run_duration always in seconds). A record holds
// durations only, no start or end time: there is no shared clock.
#pragma once

#include <cmath>       // std::isinf
#include <cstddef>     // std::size_t
#include <cstdint>     // std::int32_t
#include <filesystem>  // std::filesystem
#include <optional>    // std::optional
#include <string>      // std::string
#include <string_view> // std::string_view
#include <system_error> // std::error_code
#include <utility>     // std::move
#include <vector>      // std::vector

#include <nlohmann/json.hpp> // nlohmann::json

#include "servestat/core/errors.hpp"          // input_error
#include "servestat/core/request_record.hpp"  // request_record
#include "servestat/core/request_status.hpp"  // request_status
#include "servestat/core/run.hpp"             // run, run_metadata, reported_value
#include "servestat/core/text.hpp"            // shortest_number
#include "servestat/ingest/failure_text.hpp"  // classify_failure_text
#include "servestat/ingest/json_document.hpp" // parse_json_documents, read_json_file, json_* helpers, param_number
#include "servestat/ingest/reader.hpp"        // log_format, read_options

namespace servestat {
namespace detail {

inline constexpr std::string_view genai_bench_name = "genai-bench";
inline constexpr std::string_view genai_bench_metadata_file = "experiment_metadata.json";

// The per-request fields genai-bench summarises in aggregated_metrics.stats, servestat's name for
// each where the definition agrees (output_latency = e2e - ttft is servestat's decode; tpot is
// output_latency / (output tokens - 1), as servestat's), else "" (reported as genai_bench.<field>),
// its unit, and whether it is a time in the file's time unit.
struct genai_bench_field {
    std::string_view key, metric, unit;
    bool time;
};

inline constexpr genai_bench_field genai_bench_fields[] = {
    {"ttft", "ttft", "s", true},
    {"tpot", "tpot", "s", true},
    {"e2e_latency", "e2e", "s", true},
    {"output_latency", "decode", "s", true},
    {"num_input_tokens", "prompt_tokens", "tokens", false},
    {"num_output_tokens", "output_tokens", "tokens", false},
    {"num_reasoning_tokens", "", "tokens", false},
    {"total_tokens", "", "tokens", false},
    {"output_inference_speed", "", "tok/s", false},
    {"input_throughput", "", "tok/s", false},
    {"output_throughput", "", "tok/s", false},
    {"audio_throughput", "", "bytes/s", false},
};

struct genai_bench_run_value {
    std::string_view key, reported, unit;
};

// mean_output_throughput_tokens_per_s is the sum of output tokens / run_duration (not a mean of
// per-request rates): servestat's output_tps; likewise the total and requests_per_second.
inline constexpr genai_bench_run_value genai_bench_run_values[] = {
    {"run_duration", "duration", "s"},
    {"num_requests", "requests", "requests"},
    {"num_completed_requests", "ok", "requests"},
    {"num_error_requests", "failed", "requests"},
    {"requests_per_second", "rps", "req/s"},
    {"mean_output_throughput_tokens_per_s", "output_tps", "tok/s"},
    {"mean_total_tokens_throughput_tokens_per_s", "total_tps", "tok/s"},
    {"mean_input_throughput_tokens_per_s", "genai_bench.input_throughput", "tok/s"},
    {"mean_total_chars_per_hour", "genai_bench.total_chars_per_hour", "chars/h"},
    {"error_rate", "genai_bench.error_rate", "share"},
    {"total_arrivals", "genai_bench.total_arrivals", "requests"},
    {"arrival_requests_per_second", "genai_bench.arrival_requests_per_second", "req/s"},
};

inline constexpr std::string_view genai_bench_stats[] = {"min", "max", "mean", "stddev", "sum", "p25",
                                                          "p50", "p75", "p90",  "p95",    "p99"};

// Seconds per unit of the file's times: its _time_unit, else the metadata's metrics_time_unit, else s.
inline double genai_bench_seconds_per_unit(const std::string& unit, const json_place& place, const std::string& field) {
    if (unit == "s") return 1.0;
    if (unit == "ms") return 1e-3;
    place.fail(field, "unknown time unit \"" + unit + "\" (genai-bench writes \"s\" or \"ms\")");
}

inline void add_genai_value(run_metadata& meta, const nlohmann::json& object, std::string_view key, std::string name,
                            std::string_view unit, double scale, const json_place& place, const std::string& path) {
    const auto* v = json_member(object, key);
    // null (also Python's NaN) and Infinity are not reported; the document's notes name them.
    if (!v || v->is_null() || (v->is_number_float() && std::isinf(v->get<double>()))) return;
    meta.reported.push_back({std::move(name), json_number(*v, place, json_path(path, key)) * scale, std::string(unit)});
}

inline void read_genai_aggregates(const nlohmann::json& agg, const json_place& place, double seconds_per_unit,
                                  run_metadata& meta) {
    const std::string path = "aggregated_metrics";
    for (const auto& v : genai_bench_run_values)
        add_genai_value(meta, agg, v.key, std::string(v.reported), v.unit, 1.0, place, path);
    const auto* stats = json_member(agg, "stats");
    if (!stats || stats->is_null()) return;
    json_object(*stats, place, json_path(path, "stats"));
    for (const auto& f : genai_bench_fields) {
        const auto* s = json_member(*stats, f.key);
        if (!s || s->is_null()) continue;
        const std::string field_path = json_path(json_path(path, "stats"), f.key);
        json_object(*s, place, field_path);
        const std::string prefix = f.metric.empty() ? "genai_bench." + std::string(f.key) : std::string(f.metric);
        for (const std::string_view stat : genai_bench_stats) {
            // numpy's std (ddof 0) and the sum are genai-bench's own, whatever the field.
            const bool own = stat == "stddev" || stat == "sum";
            const std::string name = (own && !f.metric.empty() ? "genai_bench." + prefix : prefix) + "." + std::string(stat);
            add_genai_value(meta, *s, stat, name, f.unit, f.time ? seconds_per_unit : 1.0, place, field_path);
        }
    }
}

// experiment_metadata.json beside a run file: its settings become the run's parameters. It only
// informs, so a file that cannot be read leaves a note, not an error.
struct genai_bench_metadata {
    nlohmann::json object; // null when absent or unreadable
    std::string path;
};

inline genai_bench_metadata read_genai_metadata(const std::filesystem::path& file, run_metadata& meta) {
    genai_bench_metadata out;
    const auto beside = file.parent_path() / genai_bench_metadata_file;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(beside, ec)) return out;
    out.path = beside.string();
    try {
        auto documents = parse_json_documents(beside, read_json_file(beside));
        if (documents.size() != 1 || !documents.front().value.is_object())
            throw input_error(beside.string(), 0, "", "expected one JSON object");
        out.object = std::move(documents.front().value);
    } catch (const input_error& e) {
        meta.notes.push_back(std::string("experiment_metadata.json beside the run could not be read (") + e.what() +
                             "): its settings are not among the parameters");
    }
    return out;
}

inline void read_genai_params(const nlohmann::json& agg, const genai_bench_metadata& md, const json_place& place,
                              run_metadata& meta) {
    std::string iteration = "num_concurrency";
    if (const auto* it = json_member(agg, "iteration_type"); it && it->is_string()) iteration = it->get<std::string>();
    if (iteration == "batch_size") {
        if (const auto* b = json_member(agg, "batch_size"); b && !b->is_null())
            meta.params["batch_size"] = json_count(*b, place, "aggregated_metrics.batch_size");
    } else if (const auto* c = json_member(agg, "num_concurrency"); c && !c->is_null()) {
        meta.params["concurrency"] = json_count(*c, place, "aggregated_metrics.num_concurrency");
    }
    if (const auto* s = json_member(agg, "scenario"); s && s->is_string()) {
        meta.params["scenario"] = s->get<std::string>();
        meta.workload = s->get<std::string>();
    }
    const nlohmann::json& m = md.object;
    if (!m.is_object()) return;
    for (const char* key : {"api_backend", "task", "server_engine", "server_version", "server_gpu_type"})
        if (const auto* v = json_member(m, key); v && v->is_string() && !v->get_ref<const std::string&>().empty())
            meta.params[key] = v->get<std::string>();
    if (const auto* v = json_member(m, "server_gpu_count"); v && v->is_number()) meta.params["server_gpu_count"] = param_number(v->get<double>());
    for (const char* key : {"api_model_name", "model"})
        if (const auto* v = json_member(m, key); v && v->is_string() && !v->get_ref<const std::string&>().empty()) {
            meta.model = v->get<std::string>();
            break;
        }
    if (const auto* v = json_member(m, "benchmark_version"); v && v->is_string())
        meta.tool = "genai-bench " + v->get<std::string>();
    for (const char* key : {"warmup_ratio", "cooldown_ratio"})
        if (const auto* v = json_member(m, key); v && v->is_number() && v->get<double>() > 0)
            meta.notes.push_back(std::string("genai-bench's statistics leave out the ") +
                                 (key[0] == 'w' ? "first" : "last") + " " + shortest_number(v->get<double>() * 100) +
                                 "% of requests (" + key + "); servestat's use every record");
}

// One record of individual_request_metrics. A request failed when error_code is set (genai-bench's
// own test: a truthy error_code); its statistics inputs are then null.
inline void read_genai_request(const nlohmann::json& r, const json_place& place, const std::string& path,
                               double seconds_per_unit, request_record& out) {
    json_object(r, place, path);
    out.t_sent = 0.0;
    const auto* code = json_member(r, "error_code");
    const bool failed = code && !code->is_null() && !(code->is_number() && code->get<double>() == 0);
    out.prompt_tokens = json_optional_count(json_member(r, "num_input_tokens"), place, json_path(path, "num_input_tokens"));
    if (failed) {
        std::optional<std::int32_t> status;
        if (code->is_number_integer()) {
            const auto c = code->get<std::int64_t>();
            if (c >= 100 && c <= 599) status = static_cast<std::int32_t>(c);
        }
        std::string message;
        if (const auto* m = json_member(r, "error_message"); m && m->is_string()) message = m->get<std::string>();
        out.error = message.empty() ? "error_code " + code->dump() : message;
        const failure_class failure = classify_failure_text(out.error, status);
        out.status = failure.status;
        out.http_status = failure.http_status;
        return;
    }
    out.status = request_status::ok;
    const double ttft = json_duration(json_require(r, "ttft", place, path), place, json_path(path, "ttft"), seconds_per_unit);
    const double e2e =
        json_duration(json_require(r, "e2e_latency", place, path), place, json_path(path, "e2e_latency"), seconds_per_unit);
    if (ttft > e2e)
        place.fail(json_path(path, "ttft"), "ttft (" + shortest_number(ttft) + " s) is larger than e2e_latency (" +
                                                shortest_number(e2e) + " s)");
    out.t_first = ttft;
    out.t_end = e2e;
    out.output_tokens = json_optional_count(json_member(r, "num_output_tokens"), place, json_path(path, "num_output_tokens"));
}

inline std::vector<run> read_genai_bench(const std::filesystem::path& file, const read_options& options) {
    const std::string text = read_json_file(file);
    const auto documents = parse_json_documents(file, text);
    if (documents.size() != 1) throw input_error(file.string(), documents[1].place.line, "", "expected one JSON object, found several");
    const auto& [doc, place] = documents.front();
    json_object(doc, place, "");
    const auto& agg = json_object(json_require(doc, "aggregated_metrics", place, ""), place, "aggregated_metrics");
    const auto& records =
        json_array(json_require(doc, "individual_request_metrics", place, ""), place, "individual_request_metrics");
    run out;
    out.skipped.unit = skipped_unit::record;
    auto& meta = out.meta;
    meta.source = {file.string(), std::string(genai_bench_name)};
    meta.tool = "genai-bench";
    meta.label = file.stem().string();
    const genai_bench_metadata md = read_genai_metadata(file, meta);
    if (!md.path.empty()) meta.source.merged.push_back(md.path);

    std::string unit = "s", unit_field = "_time_unit";
    if (const auto* u = json_member(doc, "_time_unit"); u && !u->is_null()) unit = json_string(*u, place, "_time_unit");
    else if (const auto* mu = json_member(md.object, "metrics_time_unit"); mu && mu->is_string()) {
        unit = mu->get<std::string>();
        unit_field = "experiment_metadata.json: metrics_time_unit";
    }
    const double seconds_per_unit = genai_bench_seconds_per_unit(unit, place, unit_field);
    read_genai_params(agg, md, place, meta);
    read_genai_aggregates(agg, place, seconds_per_unit, meta);

    request_record record;
    for (std::size_t i = 0; i < records.size(); ++i) {
        record.clear();
        try {
            read_genai_request(records[i], place, json_path("individual_request_metrics", i), seconds_per_unit, record);
            out.requests.push_back(record);
        } catch (const input_error& e) {
            if (!options.skip_bad) throw;
            out.skipped.add(e.what());
        }
    }
    meta.shared_clock = false;
    meta.notes.push_back("genai-bench keeps each request's durations, not when it was sent: every request is placed at "
                         "t_sent = 0 with no shared clock (t_first = ttft, t_end = e2e_latency), and the run's rates "
                         "use genai-bench's run_duration");
    if (unit == "ms") meta.notes.push_back("times were written in milliseconds (--metrics-time-unit ms): read as seconds");
    meta.notes.push_back("genai-bench's stddev is numpy's population standard deviation (ddof 0), reported as "
                         "genai_bench.<metric>.stddev; servestat's std uses ddof 1 (use --ddof 0 to compare)");
    meta.notes.push_back("genai-bench's tpot statistics leave out requests whose output_latency is under 1 ms "
                         "(its filter for timing jitter); servestat's tpot uses them all");
    meta.notes.insert(meta.notes.end(), place.nonfinite_notes().begin(), place.nonfinite_notes().end());
    std::vector<run> runs;
    runs.push_back(std::move(out));
    return runs;
}

inline int sniff_genai_bench(std::string_view head) {
    if (first_json_char(head) != '{') return 0;
    auto has = [head](std::string_view key) { return head.find(key) != std::string_view::npos; };
    return has("\"aggregated_metrics\"") && (has("\"individual_request_metrics\"") || has("\"num_concurrency\"") ||
                                             has("\"iteration_type\""))
               ? 100
               : 0;
}

// experiment_metadata.json is no run, and no format claims it (a folder read leaves it to the
// run files, which list it as merged); named alone it gets this message instead of "not a
// recognised request log".
inline std::optional<std::string> genai_bench_metadata_message(std::string_view head) {
    if (first_json_char(head) != '{') return std::nullopt;
    auto has = [head](std::string_view key) { return head.find(key) != std::string_view::npos; };
    if (!has("\"benchmark_version\"") || !has("\"iteration_type\"") || !has("\"traffic_scenario\"")) return std::nullopt;
    return std::string("genai-bench's experiment_metadata.json holds the experiment's settings, not a run: read its "
                       "folder, or a scenario file beside it (its settings become the runs' parameters)");
}

} // namespace detail

inline constexpr log_format genai_bench_format{
    detail::genai_bench_name,
    "genai-bench experiment run file (aggregated_metrics + individual_request_metrics, beside experiment_metadata.json)",
    &detail::sniff_genai_bench, &detail::read_genai_bench};

} // namespace servestat
