// Reader for AIPerf's files across runs (format "aiperf-multi-run"), written beside the runs'
// own artifact directories when AIPerf repeats a benchmark (--num-profile-runs N) or sweeps a
// parameter (docs/tutorials/multi-run-confidence.md, docs/api/sweep-aggregates.md,
// src/aiperf/exporters/aggregate/):
//   profile_export_aiperf_aggregate.json  {"schema_version": "1.0", "metadata": {"aggregation_type":
//       "confidence", "num_profile_runs", "num_successful_runs", "failed_runs", "confidence_level",
//       "run_labels"}, "metrics": {"<tag>_<stat>": {"mean", "std", "min", "max", "cv", "se", "ci_low",
//       "ci_high", "t_critical", "unit"}}}: each value a statistic over the runs of one per-run
//       number (e.g. the mean over five runs of each run's TTFT p99).
//   profile_export_aiperf_collated.json   {"schema_version": "1.0.0", "metadata": {"aggregation_type":
//       "detailed", ...}, "combined": {metric: {"mean", "std", "p50", ..., "count", "unit"}},
//       "per_run": [...]}: the runs' per-request values pooled into one population.
//   profile_export_aiperf_sweep.json      {"aggregation_type": "sweep", "metadata": {"sweep_parameters",
//       ...}, "per_combination_metrics": [{"parameters" | "variation_values": {...}, "metrics": {...}}],
//       "best_configurations": {...}, "pareto_optimal": [...]}.
// Each is read as runs of kind summary holding AIPerf's values as reported (aiperf.<metric>.<stat>:
// none is a statistic of one run's requests, so none takes a servestat name). The confidence and
// collated files are one run each; the sweep file is one run per combination. A sweep file only
// restates the runs in the sweep's own folders (or their confidence aggregates), so its runs list
// the file as merged: a folder read leaves them out, and naming the file shows them.
#pragma once

#include <cstddef>     // std::size_t
#include <filesystem>  // std::filesystem::path
#include <string>      // std::string
#include <string_view> // std::string_view
#include <utility>     // std::move
#include <vector>      // std::vector

#include <fmt/format.h>      // fmt::format
#include <nlohmann/json.hpp> // nlohmann::json, nlohmann::ordered_json

#include "servestat/core/run.hpp"               // run, run_kind, reported_value
#include "servestat/ingest/aiperf_summary.hpp"  // aiperf_tool, aiperf_record_order
#include "servestat/ingest/json_document.hpp"   // parse_json_documents, json_place, json_number, ...
#include "servestat/ingest/nvidia_export.hpp"   // nvidia_member, nvidia_optional_string
#include "servestat/ingest/reader.hpp"          // log_format, read_options

namespace servestat {
namespace detail {

inline constexpr std::string_view aiperf_multi_run_name = "aiperf-multi-run";

// The members of the object at `path` in the file's own order (nlohmann::json sorts keys).
inline std::vector<std::string> aiperf_member_order(std::string_view text, const std::vector<std::string_view>& path) {
    if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
    const auto doc = nlohmann::ordered_json::parse(text, nullptr, false);
    std::vector<std::string> keys;
    if (doc.is_discarded()) return keys;
    const nlohmann::ordered_json* at = &doc;
    for (const auto step : path) {
        if (!at->is_object() || !at->contains(std::string(step))) return keys;
        at = &(*at)[std::string(step)];
    }
    if (at->is_object())
        for (const auto& item : at->items()) keys.push_back(item.key());
    return keys;
}

// {metric: {stat: number, ..., "unit": U}} → aiperf.<metric>.<stat>, metrics in `order` when it
// names them all, else sorted; statistics in the file's order within each metric.
inline void read_aiperf_metric_map(const nlohmann::json& metrics, const std::string& path,
                                   const std::vector<std::string>& order, const json_place& place,
                                   std::vector<reported_value>& out) {
    json_object(metrics, place, path);
    std::vector<std::string> names = order;
    if (names.size() != metrics.size()) {
        names.clear();
        for (const auto& [key, value] : metrics.items()) names.push_back(key);
    }
    for (const auto& name : names) {
        const auto* block = json_member(metrics, name);
        if (!block) continue;
        const std::string at = json_path(path, name);
        json_object(*block, place, at);
        const std::string unit = nvidia_optional_string(*block, "unit", place, at).value_or("");
        for (const std::string_view stat : {"mean", "avg", "std", "min", "max", "cv", "se", "ci_low", "ci_high",
                                            "t_critical", "p1", "p5", "p10", "p25", "p50", "p75", "p90", "p95", "p99",
                                            "count", "sum"}) {
            const auto* v = nvidia_member(*block, stat);
            if (!v) continue;
            const double value = json_number(*v, place, json_path(at, stat));
            const bool unitless = stat == "cv" || stat == "t_critical" || stat == "count";
            out.push_back({"aiperf." + name + "." + std::string(stat == "avg" ? "mean" : stat == "count" ? "n" : stat),
                           value, unitless ? std::string(stat == "count" ? "values" : "") : unit});
        }
    }
}

inline std::string aiperf_multi_run_label(const std::filesystem::path& file) {
    const auto dir = file.parent_path();
    const std::string name = dir.filename().string();
    const std::string parent = dir.parent_path().filename().string();
    if ((name == "aggregate" || name == "sweep_aggregate") && !parent.empty()) return parent + "/" + name;
    return name.empty() ? file.stem().string() : name;
}

// metadata's run counts and failures, as the notes of a confidence or collated run.
inline void read_aiperf_multi_run_metadata(const nlohmann::json& metadata, const json_place& place, run_metadata& meta) {
    json_object(metadata, place, "metadata");
    std::size_t runs = 0, ok = 0;
    if (const auto* n = nvidia_member(metadata, "num_profile_runs")) {
        runs = static_cast<std::size_t>(json_count(*n, place, "metadata.num_profile_runs"));
        meta.params["num_profile_runs"] = runs;
    }
    if (const auto* n = nvidia_member(metadata, "num_successful_runs"))
        ok = static_cast<std::size_t>(json_count(*n, place, "metadata.num_successful_runs"));
    if (const auto* level = nvidia_member(metadata, "confidence_level"))
        meta.params["confidence_level"] = json_number(*level, place, "metadata.confidence_level");
    if (runs > 0) meta.notes.push_back(fmt::format("AIPerf's statistics across {} runs ({} successful).", runs, ok));
    if (const auto* failed = nvidia_member(metadata, "failed_runs"); failed && failed->is_array())
        for (const auto& f : *failed)
            if (f.is_object())
                meta.notes.push_back("AIPerf's failed run " + f.value("label", std::string("?")) + ": " +
                                     f.value("error", std::string("no reason given")));
}

inline run aiperf_multi_run_base(const std::filesystem::path& file, const nlohmann::json& doc, const json_place& place) {
    run out;
    out.meta.kind = run_kind::summary;
    out.meta.source = {file.string(), std::string(aiperf_multi_run_name)};
    out.meta.label = aiperf_multi_run_label(file);
    out.meta.tool = aiperf_tool(nvidia_optional_string(doc, "aiperf_version", place, "").value_or(""));
    return out;
}

inline std::vector<run> read_aiperf_sweep(const std::filesystem::path& file, const nlohmann::json& doc,
                                          const json_place& place) {
    const auto& combinations = json_array(json_require(doc, "per_combination_metrics", place, ""), place,
                                          "per_combination_metrics");
    // Which combinations AIPerf named best or Pareto optimal, by their parameters.
    std::vector<std::pair<nlohmann::json, std::string>> marks;
    if (const auto* best = nvidia_member(doc, "best_configurations"); best && best->is_object())
        for (const auto& [name, entry] : best->items())
            if (entry.is_object() && entry.contains("parameters"))
                marks.emplace_back(entry["parameters"], "AIPerf's sweep names this combination " + name + ".");
    if (const auto* pareto = nvidia_member(doc, "pareto_optimal"); pareto && pareto->is_array())
        for (const auto& point : *pareto)
            marks.emplace_back(point, "Pareto optimal in AIPerf's sweep (throughput against latency).");
    std::vector<run> runs;
    for (std::size_t i = 0; i < combinations.size(); ++i) {
        const std::string path = json_path("per_combination_metrics", i);
        const auto& entry = json_object(combinations[i], place, path);
        run r = aiperf_multi_run_base(file, doc, place);
        const nlohmann::json* parameters = nvidia_member(entry, "parameters");
        if (!parameters) parameters = nvidia_member(entry, "variation_values");
        std::string label;
        if (parameters) {
            json_object(*parameters, place, json_path(path, parameters == nvidia_member(entry, "parameters")
                                                                ? "parameters"
                                                                : "variation_values"));
            for (const auto& [key, value] : parameters->items()) {
                const std::string leaf = key.substr(key.rfind('.') == std::string::npos ? 0 : key.rfind('.') + 1);
                if (value.is_number() || value.is_string() || value.is_boolean()) r.meta.params[leaf] = value;
                label.append(label.empty() ? "" : ",").append(leaf).append("=").append(
                    value.is_string() ? value.get<std::string>() : value.dump());
            }
        }
        r.meta.label = aiperf_multi_run_label(file) + "[" + (label.empty() ? std::to_string(i) : label) + "]";
        // (no order to recover inside an array: the metrics come sorted by name)
        read_aiperf_metric_map(json_require(entry, "metrics", place, path), json_path(path, "metrics"), {}, place,
                               r.meta.reported);
        r.meta.notes.emplace_back("One combination of AIPerf's sweep aggregate (profile_export_aiperf_sweep.json): "
                                  "its values restate the runs in the sweep's own folders (a mean over trials when "
                                  "there were several), so a folder read leaves this file out; name it to see it.");
        for (const auto& [params, note] : marks)
            if (parameters && params == *parameters) r.meta.notes.push_back(note);
        r.meta.source.merged.push_back(file.string());
        runs.push_back(std::move(r));
    }
    if (runs.empty()) place.fail("per_combination_metrics", "no combinations");
    return runs;
}

inline std::vector<run> read_aiperf_multi_run(const std::filesystem::path& file, const read_options&) {
    const std::string text = read_json_file(file);
    const auto documents = parse_json_documents(file, text);
    if (documents.size() != 1)
        throw input_error(file.string(), documents[1].place.line, "", "expected one JSON object, found several");
    const auto& doc = documents.front().value;
    const json_place& place = documents.front().place;
    if (!doc.is_object()) place.fail("", "expected a JSON object");
    if (doc.contains("per_combination_metrics")) return read_aiperf_sweep(file, doc, place);

    const auto& metadata = json_require(doc, "metadata", place, "");
    const std::string type = nvidia_optional_string(json_object(metadata, place, "metadata"), "aggregation_type",
                                                    place, "metadata").value_or("");
    run r = aiperf_multi_run_base(file, doc, place);
    read_aiperf_multi_run_metadata(metadata, place, r.meta);
    if (type == "confidence") {
        read_aiperf_metric_map(json_require(doc, "metrics", place, ""), "metrics", aiperf_member_order(text, {"metrics"}),
                               place, r.meta.reported);
        r.meta.notes.emplace_back("AIPerf's confidence aggregate (profile_export_aiperf_aggregate.json): each metric "
                                  "is one per-run value (its name says which, e.g. time_to_first_token_p99) and its "
                                  "statistics across the runs (mean, std with ddof 1, cv, se, a t confidence "
                                  "interval); no per-request records.");
    } else if (type == "detailed" || doc.contains("combined")) {
        read_aiperf_metric_map(json_require(doc, "combined", place, ""), "combined",
                               aiperf_member_order(text, {"combined"}), place, r.meta.reported);
        r.meta.notes.emplace_back("AIPerf's collated aggregate (profile_export_aiperf_collated.json): every run's "
                                  "per-request values pooled into one population; per_run is not read.");
    } else {
        place.fail("metadata.aggregation_type", "unknown aggregation type '" + type +
                                                    "' (expected confidence, detailed or a sweep's per_combination_metrics)");
    }
    std::vector<run> runs;
    runs.push_back(std::move(r));
    return runs;
}

inline int sniff_aiperf_multi_run(std::string_view head) {
    if (first_json_char(head) != '{') return 0;
    const auto has = [&](std::string_view key) { return head.find(key) != std::string_view::npos; };
    if (has("\"per_combination_metrics\"")) return 100;
    if (has("\"aggregation_type\"") && (has("\"confidence\"") || has("\"detailed\"")) &&
        (has("\"metrics\"") || has("\"combined\"")))
        return 100;
    return 0;
}

} // namespace detail

inline constexpr log_format aiperf_multi_run_format{
    detail::aiperf_multi_run_name,
    "AIPerf's aggregates across runs (profile_export_aiperf_aggregate.json, _collated.json, _sweep.json)",
    &detail::sniff_aiperf_multi_run, &detail::read_aiperf_multi_run};

} // namespace servestat
