// Reader for mlcommons/endpoints' `result_summary.json` (format "mlcommons-endpoints-summary"): the
// tool's Report of one benchmark run (metrics/report.py), read as its reported values. Beside the run's
// `events.jsonl` the events reader (mlcommons_endpoints.hpp) merges it into the requests run; alone it
// is one summary run.
//
// Layout (mlcommons/endpoints@ea332753): {version, git_sha, test_started_at, n_samples_issued,
// n_samples_completed, n_samples_failed, duration_ns, state, complete, ttft, tpot, latency,
// output_sequence_lengths, input_sequence_lengths, legacy_loadgen_window_duration_ns, qps, tps,
// finish_reason_counts, run_config}; each metric {total, min, max, median, avg, std_dev,
// percentiles: {"99.9": v, ..., "50.0": v}, early_stopping_percentiles?: {"99.0": v | null},
// histogram}, times in nanoseconds. Submissions carry reduced copies (percentile keys "50", no
// version, extra numbers such as system_tps): every field but the sample counts is optional.
#pragma once

#include <algorithm>   // std::stable_sort, std::any_of
#include <charconv>    // std::from_chars
#include <cstddef>     // std::size_t
#include <cstdint>     // std::int32_t
#include <filesystem>  // std::filesystem::path
#include <optional>    // std::optional
#include <string>      // std::string
#include <string_view> // std::string_view
#include <system_error> // std::errc
#include <utility>     // std::move, std::pair
#include <vector>      // std::vector

#include <fmt/format.h>      // fmt::format
#include <nlohmann/json.hpp> // nlohmann::json

#include "servestat/core/errors.hpp"          // input_error
#include "servestat/core/run.hpp"             // run, reported_value
#include "servestat/core/text.hpp"            // shortest_number
#include "servestat/ingest/json_document.hpp" // parse_json_documents, json_place, json_* helpers
#include "servestat/ingest/reader.hpp"        // log_format, read_options

namespace servestat {
namespace detail {

inline constexpr std::string_view mlcommons_endpoints_summary_name = "mlcommons-endpoints-summary";

// What result_summary.json gives a run.
struct mlcommons_endpoints_summary {
    std::string tool = "mlcommons-endpoints";
    nlohmann::json params = nlohmann::json::object();
    std::vector<reported_value> reported;
    std::vector<std::string> notes;
};

// One metric of the Report and the name it is reported under: servestat's where the definitions
// agree (ttft = recv_first − issued, latency = complete − issued = e2e, the sequence lengths),
// "mlcommons_endpoints.<key>" where they do not (tpot divides by the tokens after the first chunk,
// not output_tokens − 1).
struct mlcommons_endpoints_metric {
    std::string_view key, name, unit;
    double scale; // to the unit: ns → s
};

inline constexpr mlcommons_endpoints_metric mlcommons_endpoints_metrics[] = {
    {"ttft", "ttft", "s", 1e-9},
    {"tpot", "mlcommons_endpoints.tpot", "s", 1e-9},
    {"latency", "e2e", "s", 1e-9},
    {"input_sequence_lengths", "prompt_tokens", "tokens", 1.0},
    {"output_sequence_lengths", "output_tokens", "tokens", 1.0},
};

// "99.9" or "50.0" or "50" → 99.9, 50; nullopt for a key that is no percentage.
inline std::optional<double> mlcommons_endpoints_percent(std::string_view key) {
    double p = 0;
    const auto [end, ec] = std::from_chars(key.data(), key.data() + key.size(), p);
    if (ec != std::errc() || end != key.data() + key.size() || p < 0 || p > 100) return std::nullopt;
    return p;
}

struct mlcommons_endpoints_stat {
    double order; // mean, std, min, max, then percentiles ascending
    std::string name;
    double value;
};

// {"<p>": v} → ("p<p>", v) in ascending order; null values (too few samples) are left out.
inline std::vector<mlcommons_endpoints_stat> mlcommons_endpoints_percentiles(const nlohmann::json& map,
                                                                           const json_place& place,
                                                                           const std::string& path, double scale) {
    json_object(map, place, path);
    std::vector<mlcommons_endpoints_stat> out;
    for (const auto& [key, value] : map.items()) {
        const auto p = mlcommons_endpoints_percent(key);
        if (!p) place.fail(json_path(path, key), "expected a percentage as the key (\"99.0\")");
        if (value.is_null()) continue;
        out.push_back({*p, "p" + shortest_number(*p), json_number(value, place, json_path(path, key)) * scale});
    }
    std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.order < b.order; });
    return out;
}

inline void read_mlcommons_endpoints_metric(const nlohmann::json& metric, const mlcommons_endpoints_metric& m,
                                            const json_place& place, mlcommons_endpoints_summary& out) {
    const std::string path(m.key);
    json_object(metric, place, path);
    const std::string prefix(m.name);
    const auto add = [&](std::string_view key, std::string_view stat) {
        const auto* v = json_member(metric, key);
        if (!v || v->is_null()) return;
        const double x = json_number(*v, place, json_path(path, key));
        if (x < 0 && key != "std_dev") place.fail(json_path(path, key), "negative value (" + shortest_number(x) + ")");
        out.reported.push_back({prefix + "." + std::string(stat), x * m.scale, std::string(m.unit)});
    };
    add("avg", "mean");
    add("std_dev", "std");
    add("min", "min");
    add("max", "max");
    std::vector<mlcommons_endpoints_stat> percentiles;
    if (const auto* p = json_member(metric, "percentiles"); p && !p->is_null())
        percentiles = mlcommons_endpoints_percentiles(*p, place, json_path(path, "percentiles"), m.scale);
    const bool has_p50 = std::any_of(percentiles.begin(), percentiles.end(), [](const auto& s) { return s.order == 50; });
    if (!has_p50) add("median", "p50");
    for (const auto& s : percentiles) out.reported.push_back({prefix + "." + s.name, s.value, std::string(m.unit)});
    // LoadGen's binomial upper bounds (confidence 0.99): no servestat counterpart.
    if (const auto* es = json_member(metric, "early_stopping_percentiles"); es && !es->is_null())
        for (const auto& s : mlcommons_endpoints_percentiles(*es, place, json_path(path, "early_stopping_percentiles"), m.scale))
            out.reported.push_back({"mlcommons_endpoints." + path + ".early_stopping_" + s.name, s.value, std::string(m.unit)});
    if (m.unit == "tokens") { // the tokens of every sample together
        const auto* total = json_member(metric, "total");
        if (total && !total->is_null())
            out.reported.push_back({"mlcommons_endpoints." + path + ".total", json_number(*total, place, json_path(path, "total")),
                                    "tokens"});
    }
}

inline void read_mlcommons_endpoints_counts(const nlohmann::json& doc, const json_place& place,
                                            mlcommons_endpoints_summary& out) {
    const auto issued = json_count(json_require(doc, "n_samples_issued", place, ""), place, "n_samples_issued");
    const auto completed = json_count(json_require(doc, "n_samples_completed", place, ""), place, "n_samples_completed");
    const auto* failed_v = json_member(doc, "n_samples_failed");
    const std::int32_t failed = failed_v && !failed_v->is_null() ? json_count(*failed_v, place, "n_samples_failed") : 0;
    if (failed > completed) place.fail("n_samples_failed", "more failed samples than completed ones");
    // A failed sample also gets its COMPLETE event, so n_samples_completed counts it.
    out.reported.push_back({"requests", static_cast<double>(issued), "requests"});
    out.reported.push_back({"ok", static_cast<double>(completed - failed), "requests"});
    out.reported.push_back({"failed", static_cast<double>(failed), "requests"});
    if (failed > 0)
        out.notes.push_back(fmt::format("mlcommons/endpoints' latency and TTFT statistics include its {} failed "
                                        "sample(s) (it records them at their COMPLETE event); servestat's cover "
                                        "successful requests.", failed));
}

inline void read_mlcommons_endpoints_rates(const nlohmann::json& doc, const json_place& place,
                                           mlcommons_endpoints_summary& out) {
    const auto seconds = [&](std::string_view key, std::string_view name) {
        const auto* v = json_member(doc, key);
        if (!v || v->is_null()) return;
        out.reported.push_back({std::string(name), json_duration(*v, place, std::string(key), 1e-9), "s"});
    };
    // From start_performance_tracking to the last tracked completion: not servestat's duration
    // (first send to last end), so not under its name.
    seconds("duration_ns", "mlcommons_endpoints.duration");
    seconds("legacy_loadgen_window_duration_ns", "mlcommons_endpoints.legacy_loadgen_window");
    for (const auto& [key, unit] : {std::pair{std::string_view("qps"), std::string_view("req/s")},
                                    std::pair{std::string_view("tps"), std::string_view("tok/s")}})
        if (const auto v = json_optional_number(json_member(doc, key), place, std::string(key)))
            out.reported.push_back({"mlcommons_endpoints." + std::string(key), *v, std::string(unit)});
    if (const auto* legacy = json_member(doc, "legacy_loadgen_window_duration_ns"); legacy && !legacy->is_null())
        out.notes.emplace_back("mlcommons/endpoints' qps and tps use the legacy LoadGen Server window ((completed − 1) / "
                               "window from the first issued to the completion of the last issued sample): "
                               "mlcommons_endpoints.legacy_loadgen_window.");
}

inline void read_mlcommons_endpoints_finish_reasons(const nlohmann::json& doc, const json_place& place,
                                                    mlcommons_endpoints_summary& out) {
    const auto* reasons = json_member(doc, "finish_reason_counts");
    if (!reasons || reasons->is_null()) return;
    json_object(*reasons, place, "finish_reason_counts");
    for (const auto& [key, value] : reasons->items())
        out.reported.push_back({"mlcommons_endpoints.finish_reason." + key,
                                static_cast<double>(json_count(value, place, json_path("finish_reason_counts", key))),
                                "requests"});
}

// run_config.load_pattern under servestat's parameter names; the seeds as they are.
inline void read_mlcommons_endpoints_config(const nlohmann::json& doc, mlcommons_endpoints_summary& out) {
    const auto* config = json_member(doc, "run_config");
    if (!config || !config->is_object()) return;
    if (const auto* pattern = json_member(*config, "load_pattern"); pattern && pattern->is_object()) {
        if (const auto* type = json_member(*pattern, "type"); type && type->is_string())
            out.params["load_pattern"] = type->get<std::string>();
        if (const auto* qps = json_member(*pattern, "target_qps"); qps && qps->is_number())
            out.params["request_rate"] = param_number(qps->get<double>());
        if (const auto* c = json_member(*pattern, "target_concurrency"); c && c->is_number())
            out.params["concurrency"] = param_number(c->get<double>());
    }
    for (const std::string_view key : {"scheduler_random_seed", "dataloader_random_seed"})
        if (const auto* seed = json_member(*config, key); seed && seed->is_number())
            out.params[std::string(key)] = param_number(seed->get<double>());
}

// Numbers the Report does not define but reduced copies carry (system_tps, tps_per_user): kept under
// the tool's prefix, unit unknown.
inline bool mlcommons_endpoints_known_key(std::string_view key) {
    for (const std::string_view known :
         {"version", "git_sha", "test_started_at", "n_samples_issued", "n_samples_completed", "n_samples_failed",
          "duration_ns", "state", "complete", "legacy_loadgen_window_duration_ns", "qps", "tps"})
        if (key == known) return true;
    for (const auto& m : mlcommons_endpoints_metrics)
        if (key == m.key) return true;
    return false;
}

inline mlcommons_endpoints_summary read_mlcommons_endpoints_summary_document(const json_document& document) {
    const auto& doc = document.value;
    const json_place& place = document.place;
    if (!doc.is_object()) place.fail("", std::string("expected a JSON object, got ") + json_type_name(doc));
    mlcommons_endpoints_summary out;
    if (const auto* version = json_member(doc, "version"); version && version->is_string())
        out.tool.append(" ").append(version->get<std::string>());
    read_mlcommons_endpoints_counts(doc, place, out);
    read_mlcommons_endpoints_rates(doc, place, out);
    for (const auto& m : mlcommons_endpoints_metrics)
        if (const auto* metric = json_member(doc, m.key); metric && !metric->is_null())
            read_mlcommons_endpoints_metric(*metric, m, place, out);
    read_mlcommons_endpoints_finish_reasons(doc, place, out);
    for (const auto& [key, value] : doc.items())
        if (value.is_number() && !mlcommons_endpoints_known_key(key))
            out.reported.push_back({"mlcommons_endpoints." + key, json_number(value, place, key), ""});
    read_mlcommons_endpoints_config(doc, out);
    if (const auto* state = json_member(doc, "state"); state && state->is_string() && *state != "complete")
        out.notes.push_back("mlcommons/endpoints' report state is '" + state->get<std::string>() +
                            "': the run did not finish cleanly, its statistics are partial.");
    else if (const auto* complete = json_member(doc, "complete"); complete && complete->is_boolean() && !complete->get<bool>())
        out.notes.emplace_back("mlcommons/endpoints marks its report incomplete (token counting did not finish): "
                               "token statistics may be partial.");
    out.notes.emplace_back("mlcommons/endpoints' tpot is (complete − first chunk) / the tokens after the first chunk, "
                           "kept as mlcommons_endpoints.tpot.* (s); its percentiles take the lower sample "
                           "(numpy method \"lower\").");
    return out;
}

inline mlcommons_endpoints_summary read_mlcommons_endpoints_summary_file(const std::filesystem::path& file) {
    const auto documents = read_json_documents(file);
    if (documents.size() != 1)
        throw input_error(file.string(), documents[1].place.line, "", "expected one JSON object, found several");
    return read_mlcommons_endpoints_summary_document(documents.front());
}

// The folder naming the run: result_summary.json sits in <run>/performance/ (or <run>/ in older copies).
inline std::filesystem::path mlcommons_endpoints_run_dir(const std::filesystem::path& summary) {
    const auto dir = summary.parent_path();
    return dir.filename() == "performance" ? dir.parent_path() : dir;
}

inline std::string mlcommons_endpoints_label(const std::filesystem::path& dir) {
    const std::string name = dir.filename().string();
    return name.empty() || name == "." || name == ".." ? std::string("mlcommons-endpoints") : name;
}

inline std::vector<run> read_mlcommons_endpoints_summary_run(const std::filesystem::path& file, const read_options&) {
    mlcommons_endpoints_summary summary = read_mlcommons_endpoints_summary_file(file);
    run out;
    out.meta.label = mlcommons_endpoints_label(mlcommons_endpoints_run_dir(file));
    out.meta.tool = summary.tool;
    out.meta.source = {file.string(), std::string(mlcommons_endpoints_summary_name), {}};
    out.meta.kind = run_kind::summary;
    out.meta.params = std::move(summary.params);
    out.meta.reported = std::move(summary.reported);
    out.meta.notes.emplace_back("mlcommons/endpoints' own aggregates (result_summary.json) without its events.jsonl: "
                                "no per-request records, so servestat cannot recompute these statistics.");
    for (auto& note : summary.notes) out.meta.notes.push_back(std::move(note));
    std::vector<run> runs;
    runs.push_back(std::move(out));
    return runs;
}

// A JSON object with the Report's sample counts: no other tool writes n_samples_issued.
inline int sniff_mlcommons_endpoints_summary(std::string_view head) {
    if (first_json_char(head) != '{') return 0;
    const bool counts = head.find("\"n_samples_issued\"") != std::string_view::npos &&
                        head.find("\"n_samples_completed\"") != std::string_view::npos;
    return counts ? 90 : 0;
}

} // namespace detail

inline constexpr log_format mlcommons_endpoints_summary_format{
    detail::mlcommons_endpoints_summary_name,
    "mlcommons/endpoints' result_summary.json: the tool's own statistics of one run",
    &detail::sniff_mlcommons_endpoints_summary, &detail::read_mlcommons_endpoints_summary_run};

} // namespace servestat
