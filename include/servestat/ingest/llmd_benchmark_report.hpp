// Reader for llm-d-benchmark's Benchmark Report, versions 0.2 and 0.2.1 (llm-d/llm-d-benchmark,
// llmdbenchmark/analysis/benchmark_report/schema_v0_2.py; format "llmd-benchmark-report"): the
// normalised summary its converters write for GuideLLM, InferenceMAX, inference-perf, vLLM's
// benchmark and others. One report is one summary run at one load level. Reports are YAML
// (export_yaml, yaml.dump with sorted keys) or JSON (export_json); both are read as one JSON value
// (yaml_document.hpp). inference-perf (>= 0.7) writes each load stage's slice of a report,
// `inference-perf.partial.stage_N.yaml` (version, run and results, no scenario), read as a report
// whose tool is inference-perf.
//
// The schema normalises field names, not definitions: `time_per_output_token` of a GuideLLM report
// includes the TTFT, of a vLLM one it does not. So a statistic takes servestat's name only where
// the tool that computed it is known and defines it as servestat does (docs/metrics.md); every other
// one is kept under the tool's name.
#pragma once

#include <algorithm>   // std::stable_sort
#include <charconv>    // std::from_chars
#include <cmath>       // std::floor
#include <cstddef>     // std::size_t
#include <filesystem>  // std::filesystem::path
#include <limits>      // std::numeric_limits
#include <optional>    // std::optional
#include <string>      // std::string
#include <string_view> // std::string_view
#include <system_error> // std::errc
#include <utility>     // std::move, std::pair
#include <vector>      // std::vector

#include <fmt/format.h>      // fmt::format
#include <nlohmann/json.hpp> // nlohmann::json

#include "servestat/core/errors.hpp"          // input_error
#include "servestat/core/iso_time.hpp"        // parse_iso_utc
#include "servestat/core/run.hpp"             // run, reported_value
#include "servestat/core/text.hpp"            // shortest_number, trim_spaces
#include "servestat/ingest/json_document.hpp" // json_place, parse_json_documents, json_* helpers
#include "servestat/ingest/reader.hpp"        // log_format, read_options
#include "servestat/ingest/yaml_document.hpp" // parse_yaml_document, yaml_has_top_key

namespace servestat {
namespace detail {

inline constexpr std::string_view llmd_report_name = "llmd-benchmark-report";
inline constexpr std::string_view llmd_supported_versions = "0.2 and 0.2.1";

// ---- Which tool computed the numbers, and what its names mean ----

enum class llmd_tool { vllm_benchmark, inference_perf, guidellm, unknown };

inline llmd_tool classify_llmd_tool(std::string_view tool) {
    // InferenceMAX runs vLLM's benchmark_serving.py and is converted by the same code.
    if (tool == "vllm-benchmark" || tool == "inferencemax") return llmd_tool::vllm_benchmark;
    if (tool == "inference-perf") return llmd_tool::inference_perf;
    if (tool == "guidellm") return llmd_tool::guidellm;
    return llmd_tool::unknown;
}

// The prefix of what keeps the tool's name: "vllm.inter_token_latency.p99", "llmd.request_latency.p50"
// when the tool is not known.
inline std::string llmd_tool_prefix(std::string_view tool) {
    if (tool == "vllm-benchmark") return "vllm";
    if (tool == "inferencemax" || tool == "inference-perf" || tool == "guidellm") {
        std::string out(tool);
        for (char& c : out)
            if (c == '-') c = '_';
        return out;
    }
    return "llmd";
}

// servestat's name for a latency statistic of `tool`, or "" when it keeps the tool's name.
inline std::string_view llmd_latency_name(llmd_tool tool, std::string_view field) {
    if (field == "time_to_first_token" && tool != llmd_tool::unknown) return "ttft";
    switch (tool) {
    case llmd_tool::vllm_benchmark:
        if (field == "time_per_output_token") return "tpot";
        if (field == "inter_token_latency") return "itl";
        if (field == "request_latency") return "e2e";
        return "";
    case llmd_tool::inference_perf: return field == "time_per_output_token" ? "tpot" : "";
    case llmd_tool::guidellm:
    case llmd_tool::unknown: return "";
    }
    return "";
}

// vLLM's and inference-perf's request_rate is successful requests / the run's wall time, and the
// token rates count successful requests' tokens over the same time: servestat's rps, output_tps,
// total_tps. GuideLLM's are its own rate distributions.
inline std::string_view llmd_rate_name(llmd_tool tool, std::string_view field) {
    if (tool != llmd_tool::vllm_benchmark && tool != llmd_tool::inference_perf) return "";
    if (field == "request_rate") return "rps";
    if (field == "output_token_rate") return "output_tps";
    if (field == "total_token_rate") return "total_tps";
    return "";
}

inline std::vector<std::string> llmd_definition_notes(llmd_tool tool, const std::string& prefix) {
    switch (tool) {
    case llmd_tool::vllm_benchmark:
        return {"vLLM's TTFT ends at the first chunk with choices, which counts a role-only first chunk on chat "
                "endpoints (servestat's ttft waits for content); its TPOT, ITL (pooled chunk gaps) and E2EL are "
                "servestat's tpot, itl and e2e. std is numpy's population std (ddof 0)."};
    case llmd_tool::inference_perf:
        return {"inference-perf's request_latency ends after it read and token-counted the whole response (after "
                "[DONE]), not at the last token: kept as " + prefix + ".request_latency.*; its inter_token_latency "
                "pools per-token gaps with 0 between tokens of one chunk (servestat's itl pools chunk gaps): kept as " +
                prefix + ".inter_token_latency.*; normalized_time_per_output_token includes the TTFT."};
    case llmd_tool::guidellm:
        return {"GuideLLM's request_latency runs to the request's end after [DONE] (not the last token), its "
                "time_per_output_token includes the TTFT and its inter_token_latency is weighted by output tokens: "
                "all kept under " + prefix + ".*; its request and token rates are its own rate distributions. std "
                "divides by n (ddof 0)."};
    case llmd_tool::unknown:
        return {"Latency and throughput definitions depend on the tool that produced the report, which servestat "
                "does not know: kept under " + prefix + ".* (converted to seconds) rather than servestat's names."};
    }
    return {};
}

// ---- Units ----

enum class llmd_quantity { time, token_latency, count, token_rate, request_rate };

// What to divide a value by to get servestat's unit, and that unit; a unit the schema does not
// allow for the quantity is an error naming `<path>.units`.
inline std::pair<double, std::string> llmd_unit(llmd_quantity q, const std::string& unit, const json_place& place,
                                                const std::string& path) {
    std::string_view expected;
    switch (q) {
    case llmd_quantity::time:
        if (unit == "s") return {1.0, "s"};
        if (unit == "ms") return {1000.0, "s"};
        expected = "a time (s or ms)";
        break;
    case llmd_quantity::token_latency:
        if (unit == "s/token") return {1.0, "s"};
        if (unit == "ms/token") return {1000.0, "s"};
        expected = "a time per token (s/token or ms/token)";
        break;
    case llmd_quantity::count:
        if (unit == "count") return {1.0, "tokens"};
        expected = "a count";
        break;
    case llmd_quantity::token_rate:
        if (unit == "tokens/s") return {1.0, "tok/s"};
        expected = "a token rate (tokens/s)";
        break;
    case llmd_quantity::request_rate:
        if (unit == "queries/s") return {1.0, "req/s"};
        expected = "a request rate (queries/s)";
        break;
    }
    place.fail(json_path(path, "units"), "unit \"" + unit + "\" where " + std::string(expected) + " belongs");
}

// ---- Statistics: {units, mean, mode, stddev, min, p0p1, p1, ..., p99p9, max} ----

// servestat's name for a statistic key and its place in the output order (mean, std, min, max,
// percentiles ascending); nullopt for `units`, `mode` (no servestat counterpart) and unknown keys.
inline std::optional<std::pair<std::string, double>> name_llmd_stat(std::string_view key) {
    if (key == "mean") return std::pair{std::string("mean"), -4.0};
    if (key == "stddev") return std::pair{std::string("std"), -3.0};
    if (key == "min") return std::pair{std::string("min"), -2.0};
    if (key == "max") return std::pair{std::string("max"), -1.0};
    if (key.size() < 2 || key[0] != 'p') return std::nullopt;
    std::string number(key.substr(1));
    for (char& c : number)
        if (c == 'p') c = '.'; // p0p1 → 0.1, p99p9 → 99.9
    double p = 0;
    const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), p);
    if (ec != std::errc() || end != number.data() + number.size() || p < 0 || p > 100) return std::nullopt;
    return std::pair{fmt::format("p{}", p), p};
}

struct llmd_stat {
    std::string name;
    double order = 0;
    double value = 0;
};

// Appends "<prefix>.<stat>" for each statistic of one Statistics object, converted to servestat's
// unit; `only_mean` reports a lone mean as "<prefix>" (a run-level rate such as rps).
inline void report_llmd_statistics(const nlohmann::json& stats, llmd_quantity q, const json_place& place,
                                   const std::string& path, const std::string& prefix, std::vector<reported_value>& out,
                                   std::string_view mean_name = "") {
    if (stats.is_null()) return;
    json_object(stats, place, path);
    const std::string unit_text = json_string(json_require(stats, "units", place, path), place, json_path(path, "units"));
    const auto [divisor, unit] = llmd_unit(q, unit_text, place, path);
    std::vector<llmd_stat> named;
    for (const auto& [key, value] : stats.items()) {
        const auto name = name_llmd_stat(key);
        if (!name || value.is_null()) continue;
        const double x = json_number(value, place, json_path(path, key));
        if (x < 0) place.fail(json_path(path, key), "negative value (" + shortest_number(x) + ")");
        named.push_back({name->first, name->second, x / divisor});
    }
    std::stable_sort(named.begin(), named.end(), [](const auto& a, const auto& b) { return a.order < b.order; });
    for (const auto& s : named) {
        if (!mean_name.empty() && s.name == "mean") out.push_back({std::string(mean_name), s.value, unit});
        else out.push_back({prefix + "." + s.name, s.value, unit});
    }
}

// ---- The report ----

struct llmd_report {
    std::string version;
    std::string tool;         // scenario.load.standardized.tool, "" when absent
    std::string tool_version;
    std::string model;
    std::string started_at;
    std::optional<int> stage;
    std::string eid;      // run.eid: one experiment, shared by its reports (inference-perf's stages)
    bool partial = false; // inference-perf's partial report: no scenario, tool known from its names
    nlohmann::json params = nlohmann::json::object();
    std::vector<reported_value> reported;
    std::vector<std::string> notes;
};

inline std::string read_llmd_version(const nlohmann::json& doc, const json_place& place) {
    const auto& v = json_require(doc, "version", place, "");
    // YAML written by hand may leave 0.2 unquoted, a number once converted to JSON.
    const std::string version = v.is_number() ? shortest_number(v.get<double>()) : json_string(v, place, "version");
    if (version != "0.2" && version != "0.2.1")
        place.fail("version", "Benchmark Report version " + version + " found; servestat reads versions " +
                                  std::string(llmd_supported_versions));
    return version;
}

// A rate or concurrency of the load section: a positive number, or the schema's infinity (".inf",
// Infinity in JSON) kept as "inf".
inline std::optional<nlohmann::json> read_llmd_load_level(const nlohmann::json& load, std::string_view key,
                                                          const json_place& place, const std::string& path) {
    const auto* v = json_member(load, key);
    if (!v || v->is_null()) return std::nullopt;
    const bool unbounded = (v->is_number_float() && v->get<double>() == std::numeric_limits<double>::infinity()) ||
                           (v->is_string() && v->get_ref<const std::string&>() == "inf");
    if (unbounded) return nlohmann::json("inf");
    const double x = json_number(*v, place, json_path(path, key));
    if (x <= 0) place.fail(json_path(path, key), "expected a positive number");
    if (key == "concurrency" && x != std::floor(x)) place.fail(json_path(path, key), "expected a whole number");
    return key == "concurrency" ? param_number(x) : nlohmann::json(x);
}

inline void read_llmd_scenario(const nlohmann::json& scenario, const json_place& place, llmd_report& out) {
    json_object(scenario, place, "scenario");
    if (const auto* load = json_member(scenario, "load"); load && !load->is_null()) {
        json_object(*load, place, "scenario.load");
        if (const auto* std_load = json_member(*load, "standardized"); std_load && !std_load->is_null()) {
            const std::string path = "scenario.load.standardized";
            json_object(*std_load, place, path);
            if (const auto* tool = json_member(*std_load, "tool")) out.tool = json_string(*tool, place, json_path(path, "tool"));
            if (const auto* version = json_member(*std_load, "tool_version"); version && !version->is_null())
                out.tool_version = json_string(*version, place, json_path(path, "tool_version"));
            if (const auto rate = read_llmd_load_level(*std_load, "rate_qps", place, path)) out.params["request_rate"] = *rate;
            if (const auto c = read_llmd_load_level(*std_load, "concurrency", place, path)) out.params["concurrency"] = *c;
            if (const auto* stage = json_member(*std_load, "stage"); stage && !stage->is_null())
                out.stage = json_count(*stage, place, json_path(path, "stage"));
        }
    }
    if (const auto* stack = json_member(scenario, "stack"); stack && !stack->is_null()) {
        json_array(*stack, place, "scenario.stack");
        for (std::size_t i = 0; i < stack->size() && out.model.empty(); ++i) {
            const std::string path = json_path(json_path("scenario.stack", i), "standardized");
            const auto* component = json_member((*stack)[i], "standardized");
            if (!component || json_member(*component, "kind") == nullptr ||
                *json_member(*component, "kind") != "inference_engine")
                continue;
            if (const auto* model = json_member(*component, "model"); model && model->is_object())
                if (const auto* name = json_member(*model, "name"); name && !name->is_null())
                    out.model = json_string(*name, place, json_path(json_path(path, "model"), "name"));
        }
    }
}

inline void read_llmd_requests(const nlohmann::json& requests, const json_place& place, const std::string& prefix,
                               llmd_report& out) {
    const std::string path = "results.request_performance.aggregate.requests";
    json_object(requests, place, path);
    const auto total = json_count(json_require(requests, "total", place, path), place, json_path(path, "total"));
    out.reported.push_back({"requests", static_cast<double>(total), "requests"});
    const auto failures = json_optional_count(json_member(requests, "failures"), place, json_path(path, "failures"));
    const auto incomplete = json_optional_count(json_member(requests, "incomplete"), place, json_path(path, "incomplete"));
    if (failures) {
        // servestat's failed is everything not ok: errors and requests cut off before they finished.
        const auto failed = *failures + incomplete.value_or(0);
        if (failed > total) place.fail(json_path(path, "failures"), "more failed requests than the total");
        out.reported.push_back({"ok", static_cast<double>(total - failed), "requests"});
        out.reported.push_back({"failed", static_cast<double>(failed), "requests"});
    }
    if (incomplete) out.reported.push_back({prefix + ".requests.incomplete", static_cast<double>(*incomplete), "requests"});
    if (const auto* in = json_member(requests, "input_length"))
        report_llmd_statistics(*in, llmd_quantity::count, place, json_path(path, "input_length"), "prompt_tokens",
                               out.reported);
    if (const auto* output = json_member(requests, "output_length"))
        report_llmd_statistics(*output, llmd_quantity::count, place, json_path(path, "output_length"), "output_tokens",
                               out.reported);
}

inline constexpr std::string_view llmd_latency_fields[] = {"time_to_first_token", "time_per_output_token",
                                                           "inter_token_latency", "request_latency",
                                                           "normalized_time_per_output_token"};
inline constexpr std::string_view llmd_rate_fields[] = {"request_rate", "output_token_rate", "total_token_rate",
                                                        "input_token_rate"};

inline void read_llmd_aggregate(const nlohmann::json& aggregate, const json_place& place, llmd_tool tool,
                                const std::string& prefix, llmd_report& out) {
    const std::string path = "results.request_performance.aggregate";
    json_object(aggregate, place, path);
    if (const auto* requests = json_member(aggregate, "requests"); requests && !requests->is_null())
        read_llmd_requests(*requests, place, prefix, out);
    if (const auto* latency = json_member(aggregate, "latency"); latency && !latency->is_null()) {
        json_object(*latency, place, json_path(path, "latency"));
        for (const auto field : llmd_latency_fields)
            if (const auto* stats = json_member(*latency, field)) {
                const auto name = llmd_latency_name(tool, field);
                const bool per_token = field.ends_with("per_output_token") || field == "inter_token_latency";
                report_llmd_statistics(*stats, per_token ? llmd_quantity::token_latency : llmd_quantity::time, place,
                                       json_path(json_path(path, "latency"), field),
                                       name.empty() ? prefix + "." + std::string(field) : std::string(name),
                                       out.reported);
            }
    }
    if (const auto* throughput = json_member(aggregate, "throughput"); throughput && !throughput->is_null()) {
        json_object(*throughput, place, json_path(path, "throughput"));
        for (const auto field : llmd_rate_fields)
            if (const auto* stats = json_member(*throughput, field)) {
                const auto q = field == "request_rate" ? llmd_quantity::request_rate : llmd_quantity::token_rate;
                report_llmd_statistics(*stats, q, place, json_path(json_path(path, "throughput"), field),
                                       prefix + "." + std::string(field), out.reported, llmd_rate_name(tool, field));
            }
    }
}

// inference-perf's partial names its stage in the file name (inference-perf.partial.stage_3) and
// in run.uid (inference-perf-stage-3-1a2b3c4d).
inline std::optional<int> inference_perf_partial_stage(std::string_view text, std::string_view marker) {
    const auto at = text.find(marker);
    if (at == std::string_view::npos) return std::nullopt;
    int n = 0;
    const char* first = text.data() + at + marker.size();
    const auto [end, ec] = std::from_chars(first, text.data() + text.size(), n);
    if (ec != std::errc() || end == first || n < 0) return std::nullopt;
    return n;
}

// The seconds an ISO 8601 duration gives ("PT49.97S", "PT1H2M3S"); none for any other text.
inline std::optional<double> iso_duration_seconds(std::string_view text) {
    if (!text.starts_with("PT") || text.size() < 4) return std::nullopt;
    double total = 0;
    std::size_t at = 2;
    while (at < text.size()) {
        double n = 0;
        const auto [end, ec] = std::from_chars(text.data() + at, text.data() + text.size(), n);
        if (ec != std::errc() || end == text.data() + text.size() || !(n >= 0)) return std::nullopt;
        const char unit = *end;
        total += n * (unit == 'H' ? 3600 : unit == 'M' ? 60 : unit == 'S' ? 1 : -1e300);
        if (total < 0) return std::nullopt;
        at = static_cast<std::size_t>(end - text.data()) + 1;
    }
    return total;
}

// How long the run took: run.time.duration, else its end less its start; none when neither says.
inline std::optional<double> llmd_run_seconds(const nlohmann::json& time, const json_place& place) {
    if (const auto* d = json_member(time, "duration"); d && !d->is_null())
        if (const auto seconds = iso_duration_seconds(json_string(*d, place, "run.time.duration")); seconds && *seconds > 0)
            return seconds;
    const auto* start = json_member(time, "start");
    const auto* end = json_member(time, "end");
    if (!start || !end || !start->is_string() || !end->is_string()) return std::nullopt;
    const auto from = parse_iso_utc(start->get<std::string>()), to = parse_iso_utc(end->get<std::string>());
    if (!from || !to || *to <= *from) return std::nullopt;
    return static_cast<double>(*to - *from) / 1e9;
}

inline llmd_report read_llmd_document(const json_document& doc, std::string_view file_name = "") {
    const json_place& place = doc.place;
    if (!doc.value.is_object()) place.fail("", std::string("expected a JSON object, got ") + json_type_name(doc.value));
    llmd_report out;
    out.version = read_llmd_version(doc.value, place);
    const auto& run_section = json_object(json_require(doc.value, "run", place, ""), place, "run");
    if (const auto* time = json_member(run_section, "time"); time && time->is_object()) {
        if (const auto* start = json_member(*time, "start"); start && !start->is_null())
            out.started_at = json_string(*start, place, "run.time.start");
        if (const auto seconds = llmd_run_seconds(*time, place)) out.reported.push_back({"duration", *seconds, "s"});
    }
    if (const auto* eid = json_member(run_section, "eid"); eid && !eid->is_null())
        out.eid = json_string(*eid, place, "run.eid");
    if (const auto* scenario = json_member(doc.value, "scenario"); scenario && !scenario->is_null())
        read_llmd_scenario(*scenario, place, out);
    // No scenario: inference-perf's partial says who wrote it only through its names.
    std::string uid;
    if (const auto* v = json_member(run_section, "uid"); v && v->is_string()) uid = v->get<std::string>();
    if (out.tool.empty() && (file_name.starts_with("inference-perf.partial.") || uid.starts_with("inference-perf-"))) {
        out.tool = "inference-perf";
        out.partial = true;
        out.stage = inference_perf_partial_stage(file_name, "partial.stage_");
        if (!out.stage) out.stage = inference_perf_partial_stage(uid, "inference-perf-stage-");
    }
    const llmd_tool tool = classify_llmd_tool(out.tool);
    const std::string prefix = llmd_tool_prefix(out.tool);
    const auto& results = json_object(json_require(doc.value, "results", place, ""), place, "results");
    const auto* performance = json_member(results, "request_performance");
    const auto* aggregate = performance && performance->is_object() ? json_member(*performance, "aggregate") : nullptr;
    if (performance && !performance->is_null()) json_object(*performance, place, "results.request_performance");
    if (aggregate && !aggregate->is_null()) {
        read_llmd_aggregate(*aggregate, place, tool, prefix, out);
        out.notes = llmd_definition_notes(tool, prefix);
    } else {
        out.notes.emplace_back("The report has no request-level aggregates (results.request_performance.aggregate): "
                               "nothing to show but its load.");
    }
    // A statistic that is NaN (.nan) is left out of the reported values: say which. Infinity is the
    // schema's unbounded load (noted with the parameters), and refused in a statistic.
    for (const auto& note : place.nonfinite_notes())
        if (note.starts_with("NaN")) out.notes.push_back(note);
    return out;
}

// ---- YAML: the reports' usual form ----

inline constexpr std::size_t llmd_sniff_bytes = 64 * 1024; // what detection sees of a file

// A full Benchmark Report in YAML has scenario and results (or, in v0.1, metrics) at the top level,
// besides version and run. yaml.dump sorts the keys, so with large results (observability time
// series) only `results:` may lie within the bytes detection sees: a head that fills them and
// starts with the report's results is taken for a report too. inference-perf's partial reports
// (`inference-perf.partial.stage_N.yaml`: results, run and version in a few KiB, no scenario) are
// told by their request performance and run.
inline bool looks_like_yaml_report(std::string_view head) {
    if (!looks_like_block_yaml(head)) return false;
    const bool results = yaml_has_top_key(head, "results") || yaml_has_top_key(head, "metrics");
    if (!results) return false;
    if (yaml_has_top_key(head, "scenario")) return yaml_has_top_key(head, "version") || head.size() >= llmd_sniff_bytes;
    if (yaml_has_top_key(head, "run") && yaml_has_top_key(head, "version"))
        return head.find("\n  request_performance:") != std::string_view::npos;
    return head.size() >= llmd_sniff_bytes && head.starts_with("results:") &&
           head.find("\n  request_performance:") != std::string_view::npos;
}

inline std::vector<run> read_llmd_report(const std::filesystem::path& file, const read_options&) {
    const std::string raw = read_whole_file(file); // YAML is recognised below, so no JSON-only first byte
    const std::string file_name = file.filename().string();
    llmd_report report;
    if (looks_like_block_yaml(std::string_view(raw).substr(0, llmd_sniff_bytes))) {
        // The schema's infinite concurrency is .inf in YAML, Infinity in json.dump's JSON: the same
        // double in both, read as "inf".
        const yaml_document doc = parse_yaml_document(file, raw);
        report = with_yaml_field_lines(doc, [&] { return read_llmd_document({doc.value, doc.place}, file_name); });
    } else {
        const auto documents = parse_json_documents(file, raw);
        if (documents.size() != 1)
            throw input_error(file.string(), documents[1].place.line, "", "expected one JSON object, found several");
        report = read_llmd_document(documents.front(), file_name);
    }

    run out;
    out.meta.label = file.stem().string();
    out.meta.tool = report.tool.empty() ? std::string("llm-d-benchmark")
                                        : report.tool + (report.tool_version.empty() ? "" : " " + report.tool_version);
    out.meta.source = {file.string(), std::string(llmd_report_name), {}};
    out.meta.kind = run_kind::summary;
    out.meta.model = std::move(report.model);
    out.meta.started_at = std::move(report.started_at);
    out.meta.params = std::move(report.params);
    out.meta.reported = std::move(report.reported);
    out.meta.notes.push_back(fmt::format(
        "llm-d Benchmark Report v{}{}{}: {}'s own aggregates, no per-request records, so servestat cannot recompute "
        "or re-slice them.",
        report.version, report.tool.empty() ? std::string() : " converted from " + report.tool + " results",
        // vLLM's and InferenceMAX's converters always write stage 0: only a real stage is named.
        report.stage && (*report.stage > 0 || report.tool == "inference-perf") ? fmt::format(" (load stage {})", *report.stage)
                                                                                 : std::string(),
        report.tool.empty() ? std::string("the tool") : report.tool));
    if (report.partial) {
        // A stage's slice has no scenario: the stage is its only load parameter.
        if (report.stage) out.meta.params["stage"] = *report.stage;
        out.meta.notes.emplace_back(
            "inference-perf's partial report (no scenario: the tool is known from the file name or run.uid, the load "
            "stage from the file name; the stage's requested rate is in its stage_N_lifecycle_metrics.json). Its std is "
            "the sample std (ddof 1).");
    }
    if (!report.eid.empty())
        out.meta.notes.push_back("run.eid " + report.eid +
                                 ": the experiment this report belongs to (the same in each report of one sweep).");
    if (out.meta.params.contains("concurrency") && out.meta.params["concurrency"] == "inf")
        out.meta.notes.emplace_back("Concurrency is unbounded (.inf in the report).");
    for (auto& note : report.notes) out.meta.notes.push_back(std::move(note));
    out.meta.notes.emplace_back("Not read: the report's time series, observability, session and health sections.");
    std::vector<run> runs;
    runs.push_back(std::move(out));
    return runs;
}

// A JSON object with the report's version and its request-performance or standardized load
// sections; version 0.1 (scenario and metrics) is recognised too, so reading it names the version.
inline int sniff_llmd_report(std::string_view head) {
    if (looks_like_yaml_report(head)) return 60;
    if (first_json_char(head) != '{' || head.find("\"version\"") == std::string_view::npos) return 0;
    if (head.find("\"request_performance\"") != std::string_view::npos) return 100;
    if (head.find("\"scenario\"") == std::string_view::npos) return 0;
    if (head.find("\"standardized\"") != std::string_view::npos) return 100;
    return head.find("\"metrics\"") != std::string_view::npos ? 80 : 0;
}

} // namespace detail

inline constexpr log_format llmd_benchmark_report_format{
    detail::llmd_report_name,
    "llm-d-benchmark's Benchmark Report v0.2 / v0.2.1 (YAML or JSON; inference-perf's per-stage partial reports)",
    &detail::sniff_llmd_report,
    &detail::read_llmd_report};

} // namespace servestat
