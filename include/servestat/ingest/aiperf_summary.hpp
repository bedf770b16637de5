// Readers for NVIDIA AIPerf's run aggregates: profile_export_aiperf.json (format "aiperf-summary")
// and profile_export_aiperf.csv ("aiperf-summary-csv"), AIPerf's own statistics of a run, without
// per-request records. aiperf.hpp also reads the JSON one when it lies next to profile_export.jsonl,
// for the model, the run's parameters and the reported values.
#pragma once

#include <algorithm>    // std::stable_sort, std::find
#include <charconv>     // std::from_chars
#include <cmath>        // std::isfinite, std::llround
#include <cstddef>      // std::size_t
#include <cstdint>      // std::int32_t, std::int64_t
#include <filesystem>   // std::filesystem::path
#include <optional>     // std::optional
#include <set>          // std::set
#include <span>         // std::span
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <system_error> // std::errc
#include <utility>      // std::move, std::pair
#include <vector>       // std::vector

#include <fmt/format.h>      // fmt::format
#include <nlohmann/json.hpp> // nlohmann::json, nlohmann::ordered_json

#include "servestat/core/errors.hpp"            // input_error
#include "servestat/core/iso_time.hpp"          // iso_utc
#include "servestat/core/run.hpp"               // run, reported_value
#include "servestat/core/text.hpp"              // trim_spaces, shortest_number
#include "servestat/ingest/csv.hpp"             // csv_reader, csv_record, quote_cell
#include "servestat/ingest/json_document.hpp"   // json_place, parse_json_documents, first_json_char, ...
#include "servestat/ingest/aiperf_phases.hpp"   // aiperf_file_phase_context
#include "servestat/ingest/aiperf_telemetry.hpp" // describe_aiperf_telemetry, aiperf_energy_tag, ...
#include "servestat/ingest/nvidia_export.hpp"   // nvidia_member, nvidia_epoch_ns, aiperf_time_unit, ...
#include "servestat/ingest/reader.hpp"          // log_format, read_options

namespace servestat {
namespace detail {

inline constexpr std::string_view aiperf_summary_name = "aiperf-summary";
inline constexpr std::string_view aiperf_summary_csv_name = "aiperf-summary-csv";

// ---- profile_export_aiperf.json / .csv: AIPerf's aggregates ----

// How AIPerf's metric tags map onto servestat's names. Only metrics whose definition equals
// servestat's are renamed (docs/metrics.md); AIPerf's inter_token_latency is per request
// (request_latency − ttft)/(OSL − 1), exactly servestat's tpot, and its inter_chunk_latency
// statistics pool every chunk gap, exactly servestat's itl.
enum class aiperf_quantity { time, tokens, requests, request_rate, token_rate };

struct aiperf_mapping {
    std::string_view tag;
    std::string_view name;
    aiperf_quantity quantity;
    bool run_level = false; // one value for the run ("duration"), not a per-request metric's statistics
};

inline constexpr aiperf_mapping aiperf_mappings[] = {
    {"request_latency", "e2e", aiperf_quantity::time},
    {"ttft", "ttft", aiperf_quantity::time},
    {"time_to_first_token", "ttft", aiperf_quantity::time},
    {"inter_chunk_latency", "itl", aiperf_quantity::time},
    {"inter_token_latency", "tpot", aiperf_quantity::time},
    {"input_sequence_length", "prompt_tokens", aiperf_quantity::tokens},
    {"output_sequence_length", "output_tokens", aiperf_quantity::tokens},
    {"request_count", "ok", aiperf_quantity::requests, true},
    {"error_request_count", "failed", aiperf_quantity::requests, true},
    {"benchmark_duration", "duration", aiperf_quantity::time, true},
    {"request_throughput", "rps", aiperf_quantity::request_rate, true},
    {"output_token_throughput", "output_tps", aiperf_quantity::token_rate, true},
};

inline const aiperf_mapping* find_aiperf_mapping(std::string_view tag) {
    for (const auto& m : aiperf_mappings)
        if (m.tag == tag) return &m;
    return nullptr;
}

// One statistic as AIPerf names it: avg, min, max, p1 ... p99, std, count (or the CSV's Value).
struct aiperf_stat {
    std::string key;
    double value = 0;
};

// servestat's name for AIPerf's statistic key ("avg" → "mean", "count" → "n"), and its place in
// the output order (mean, std, min, max, percentiles ascending, n); nullopt for unknown keys.
struct aiperf_stat_name {
    std::string name;
    double order = 0;
};

inline std::optional<aiperf_stat_name> name_aiperf_stat(std::string_view key) {
    if (key == "avg" || key == "Value") return aiperf_stat_name{"mean", -4};
    if (key == "std") return aiperf_stat_name{"std", -3};
    if (key == "min") return aiperf_stat_name{"min", -2};
    if (key == "max") return aiperf_stat_name{"max", -1};
    if (key == "count") return aiperf_stat_name{"n", 1000};
    if (key == "sum") return aiperf_stat_name{"sum", 1001}; // schema 1.1+: the sum of the values
    if (key.size() < 2 || key[0] != 'p') return std::nullopt;
    std::string number(key.substr(1));
    for (char& c : number)
        if (c == '_') c = '.'; // p99_9
    double p = 0;
    const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), p);
    if (ec != std::errc() || end != number.data() + number.size() || p < 0 || p > 100) return std::nullopt;
    return aiperf_stat_name{fmt::format("p{}", p), p};
}

// One value, not a distribution: AIPerf puts a total, rate or count in avg (0.1.x adds count 1; a
// schema 1.1 ratio such as theoretical_prefix_cache_hit adds its count and sum).
inline bool is_scalar_record(std::span<const aiperf_stat> stats) {
    for (const auto& s : stats)
        if (s.key != "avg" && s.key != "Value" && s.key != "count" && s.key != "sum") return false;
    return true;
}

// What to divide a renamed metric's values by to get servestat's unit; its unit must be one
// servestat can convert. `fail_unit` throws with the right file/line/field for JSON or CSV.
template <class FailUnit>
double aiperf_divisor(const aiperf_mapping& m, const std::string& unit, FailUnit&& fail_unit, std::string& out_unit) {
    switch (m.quantity) {
    case aiperf_quantity::time: {
        const auto u = aiperf_time_unit(unit);
        if (!u) fail_unit(aiperf_unknown_unit(unit, aiperf_time_units));
        out_unit = "s";
        return 1e9 / aiperf_ns_per(*u);
    }
    case aiperf_quantity::tokens:
        if (unit != "tokens") fail_unit(aiperf_unknown_unit(unit, "tokens"));
        out_unit = "tokens";
        return 1.0;
    case aiperf_quantity::requests:
        if (unit != "requests" && !unit.empty()) fail_unit(aiperf_unknown_unit(unit, "requests"));
        out_unit = "requests";
        return 1.0;
    case aiperf_quantity::request_rate:
        if (unit != "requests/sec") fail_unit(aiperf_unknown_unit(unit, "requests/sec"));
        out_unit = "req/s";
        return 1.0;
    case aiperf_quantity::token_rate:
        if (unit != "tokens/sec") fail_unit(aiperf_unknown_unit(unit, "tokens/sec"));
        out_unit = "tok/s";
        return 1.0;
    }
    return 1.0;
}

// Appends one AIPerf metric's statistics to `out` under servestat's naming (run.hpp): renamed and
// converted to seconds where the definitions agree, else "aiperf.<tag>[.<stat>]" as AIPerf wrote it.
template <class FailUnit>
void report_aiperf_metric(std::string_view tag, const std::string& unit, std::vector<aiperf_stat> stats,
                          std::vector<reported_value>& out, FailUnit&& fail_unit) {
    const bool scalar = is_scalar_record(stats);
    const aiperf_mapping* mapping = find_aiperf_mapping(tag);
    const bool renamed_scalar = mapping && mapping->run_level && scalar;
    const bool renamed_metric = mapping && !mapping->run_level && !scalar;
    std::string out_unit = unit;
    double divisor = 1.0; // AIPerf unit → servestat unit, as a division so 1234 ms is the double nearest 1.234 s
    if (renamed_scalar || renamed_metric) divisor = aiperf_divisor(*mapping, unit, fail_unit, out_unit);
    std::vector<std::pair<aiperf_stat_name, double>> named;
    for (const auto& s : stats)
        if (auto n = name_aiperf_stat(s.key)) named.emplace_back(std::move(*n), s.value);
    std::stable_sort(named.begin(), named.end(), [](const auto& a, const auto& b) { return a.first.order < b.first.order; });
    const std::string prefix = renamed_scalar || renamed_metric ? std::string(mapping->name)
                                                                : std::string("aiperf.").append(tag);
    for (const auto& [stat, value] : named) {
        // A renamed metric is a duration, a count or a rate: none can be negative. Others may be
        // (osl_mismatch_diff_pct is a signed difference) and are kept as written.
        if (value < 0 && (renamed_scalar || renamed_metric))
            fail_unit("negative " + stat.name + " (" + shortest_number(value) + ")");
        if (scalar && stat.name == "n" && value == 1) continue; // AIPerf 0.1.x's count of a single value
        if (scalar && stat.name == "mean") {
            out.push_back({prefix, value / divisor, out_unit});
            continue;
        }
        if (stat.name == "n") {
            out.push_back({prefix + ".n", value, "values"});
            continue;
        }
        out.push_back({std::string(prefix).append(".").append(stat.name), value / divisor, out_unit});
    }
}

struct aiperf_summary_info {
    std::string model;
    std::string workload; // input_config's public dataset or scenario
    std::string aiperf_version; // "0.8.0"; empty in 0.1.x and before schema 1.0
    nlohmann::json params = nlohmann::json::object();
    std::vector<reported_value> reported;
    std::vector<std::string> notes;
    std::optional<std::int64_t> first_request_ns; // min_request_timestamp, for started_at
    std::string start_time;                       // AIPerf's local start_time (no zone)
};

inline std::vector<aiperf_stat> read_aiperf_record_stats(const nlohmann::json& record, const json_place& place,
                                                         const std::string& path) {
    std::vector<aiperf_stat> stats;
    for (const auto& [key, value] : record.items()) {
        if (value.is_null() || !name_aiperf_stat(key)) continue; // tag, unit, header, ...
        stats.push_back({key, json_number(value, place, json_path(path, key))});
    }
    return stats;
}

// The keys of `records` (0.1.x), or of the document itself (schema 1.x, where each metric is a
// top-level key), in the order the file lists them (nlohmann::json sorts object keys).
inline std::vector<std::string> aiperf_record_order(std::string_view text, bool top_level = false) {
    if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
    const auto ordered = nlohmann::ordered_json::parse(text, nullptr, false);
    std::vector<std::string> tags;
    if (ordered.is_discarded() || !ordered.is_object()) return tags;
    if (top_level) {
        for (const auto& item : ordered.items()) tags.push_back(item.key());
        return tags;
    }
    const auto records = ordered.find("records");
    if (records == ordered.end() || !records->is_object()) return tags;
    for (const auto& item : records->items()) tags.push_back(item.key());
    return tags;
}

// One metric block, {"unit": U, "avg": ..., "p50": ..., "count": ..., "sum": ...}, read under
// servestat's names; `path` is where it sits ("records.ttft" or "time_to_first_token").
inline void read_aiperf_metric_block(const std::string& tag, const nlohmann::json& record, const std::string& path,
                                     const json_place& place, aiperf_summary_info& out) {
    json_object(record, place, path);
    const std::string unit = nvidia_optional_string(record, "unit", place, path).value_or("");
    auto stats = read_aiperf_record_stats(record, place, path);
    report_aiperf_metric(tag, unit, std::move(stats), out.reported,
                         [&](const std::string& why) { place.fail(json_path(path, "unit"), why); });
    if (tag == "min_request_timestamp")
        if (const auto* avg = nvidia_member(record, "avg"))
            out.first_request_ns = nvidia_epoch_ns(*avg, place, json_path(path, "avg"));
}

// A top-level member of a schema 1.x document that is a metric block: an object with a unit and no
// nested objects (input_config, telemetry_data, run_info, warmup_metrics, error_summary, metadata
// and branch_stats are sections, not metrics).
inline bool is_aiperf_metric_block(const nlohmann::json& value) {
    if (!value.is_object() || !value.contains("unit") || !value["unit"].is_string()) return false;
    for (const auto& [key, member] : value.items())
        if (member.is_object() || member.is_array()) return false;
    return true;
}

// Schema 1.0-1.5 (AIPerf 0.2 and later): every metric is a top-level key of the document.
inline void read_aiperf_flat_metrics(const nlohmann::json& doc, std::string_view text, const json_place& place,
                                     aiperf_summary_info& out) {
    std::vector<std::string> order;
    for (const auto& key : aiperf_record_order(text, true))
        if (const auto* v = json_member(doc, key); v && is_aiperf_metric_block(*v)) order.push_back(key);
    std::size_t blocks = 0;
    for (const auto& [key, value] : doc.items()) blocks += is_aiperf_metric_block(value);
    if (order.size() != blocks) { // the order could not be recovered: sorted is still complete
        order.clear();
        for (const auto& [key, value] : doc.items())
            if (is_aiperf_metric_block(value)) order.push_back(key);
    }
    if (order.empty()) place.fail("", "no metric blocks ({\"unit\": ..., \"avg\": ...}) at the top level");
    for (const auto& tag : order) read_aiperf_metric_block(tag, doc.at(tag), tag, place, out);
}

inline void read_aiperf_records(const nlohmann::json& records, std::string_view text, const json_place& place,
                                aiperf_summary_info& out) {
    std::vector<std::pair<std::string, const nlohmann::json*>> ordered;
    if (records.is_array()) {
        for (std::size_t i = 0; i < records.size(); ++i) {
            const std::string path = json_path("records", i);
            json_object(records[i], place, path);
            ordered.emplace_back(json_string(json_require(records[i], "tag", place, path), place, json_path(path, "tag")),
                                 &records[i]);
        }
    } else {
        json_object(records, place, "records");
        for (const auto& tag : aiperf_record_order(text))
            if (const auto* r = json_member(records, tag)) ordered.emplace_back(tag, r);
        if (ordered.size() != records.size()) { // the order could not be recovered: sorted is still complete
            ordered.clear();
            for (const auto& [tag, r] : records.items()) ordered.emplace_back(tag, &r);
        }
    }
    for (std::size_t i = 0; i < ordered.size(); ++i) {
        const auto& [tag, record] = ordered[i];
        const std::string path = records.is_array() ? json_path("records", i) : json_path("records", tag);
        read_aiperf_metric_block(tag, *record, path, place, out);
    }
}

// Scalars of a config section become parameters; nested sections are passed over.
inline void aiperf_copy_scalars(const nlohmann::json& section, nlohmann::json& params) {
    for (const auto& [key, value] : section.items())
        if (value.is_number() || value.is_boolean() || value.is_string()) params[key] = value;
}

inline void read_aiperf_token_setting(const nlohmann::json& prompt, std::string_view key, std::string_view name,
                                      const json_place& place, nlohmann::json& params) {
    const auto* tokens = nvidia_member(prompt, key);
    if (!tokens || !tokens->is_object()) return;
    const std::string path = json_path("input_config.input.prompt", key);
    // The numbers are kept as written (250 stays an integer in the JSON export).
    if (const auto* mean = nvidia_member(*tokens, "mean")) {
        json_number(*mean, place, json_path(path, "mean"));
        params[std::string(name)] = *mean;
    }
    if (const auto* sd = nvidia_member(*tokens, "stddev")) {
        json_number(*sd, place, json_path(path, "stddev"));
        params[std::string(name).append("_stddev")] = *sd;
    }
}

// The layout of AIPerf 0.8 and later (its own dev/results files and nardnahcalab/paretoruns' 0.12.0
// runs): models.items[].name, datasets[] ({name, type, path | prompts.isl/osl | osl, entries}) and
// phases[] ({name, kind, type, requests, concurrency, exclude_from_results, ...}). The first model and
// dataset describe the run; the one profiling phase gives the load (a phase of kind profiling, or named
// so, or not excluded from results), the warm-up phase its request count. With several profiling
// phases none is taken: each phase is a run of its own (aiperf_phases.hpp).
inline void read_aiperf_models_datasets_phases(const nlohmann::json& config, const json_place& place,
                                               aiperf_summary_info& out) {
    if (const auto* models = nvidia_member(config, "models"); models && models->is_object() && out.model.empty())
        if (const auto* items = nvidia_member(*models, "items"); items && items->is_array() && !items->empty() &&
                                                                   (*items)[0].is_object())
            if (const auto name = nvidia_optional_string((*items)[0], "name", place, "input_config.models.items[0]"))
                out.model = *name;
    if (const auto* datasets = nvidia_member(config, "datasets"); datasets && datasets->is_array() && !datasets->empty() &&
                                                                  (*datasets)[0].is_object()) {
        const auto& dataset = (*datasets)[0];
        const std::string path = "input_config.datasets[0]";
        if (out.workload.empty())
            if (const auto file = nvidia_optional_string(dataset, "path", place, path)) out.workload = *file;
        const auto* prompts = nvidia_member(dataset, "prompts");
        const auto& lengths = prompts && prompts->is_object() ? *prompts : dataset;
        for (const std::string key : {"isl", "osl"})
            if (const auto* tokens = nvidia_member(lengths, key); tokens && tokens->is_object()) {
                if (const auto* mean = nvidia_member(*tokens, "mean"); mean && mean->is_number()) out.params[key] = *mean;
                if (const auto* sd = nvidia_member(*tokens, "stddev"); sd && sd->is_number())
                    out.params[key + "_stddev"] = *sd;
            }
    }
    const auto* phases = nvidia_member(config, "phases");
    if (!phases || !phases->is_array()) return;
    const nlohmann::json* profiling = nullptr;
    std::size_t profiling_phases = 0;
    for (const auto& phase : *phases) {
        if (!phase.is_object()) continue;
        const auto text = [&](std::string_view key) {
            const auto* v = nvidia_member(phase, key);
            return v && v->is_string() ? v->get<std::string>() : std::string();
        };
        const std::string kind = text("kind");
        const bool warmup = kind == "warmup" || (kind.empty() && text("name") == "warmup");
        const auto* exclude = nvidia_member(phase, "exclude_from_results");
        const bool excluded = exclude && exclude->is_boolean() && exclude->get<bool>();
        if (warmup) {
            if (const auto* n = nvidia_member(phase, "requests"); n && n->is_number_integer())
                out.params["warmup_request_count"] = *n;
        } else if (kind == "profiling" || (kind.empty() && !excluded)) {
            profiling = &phase;
            ++profiling_phases;
        }
    }
    if (profiling_phases != 1) return;
    for (const auto& [key, value] : profiling->items()) {
        if (!value.is_number() || key == "exclude_from_results") continue;
        out.params[key == "requests" ? std::string("request_count") : key] = value;
    }
}

// input_config: what the user asked AIPerf for (the CLI's options), a partial echo in which only
// the options the user set appear.
inline void read_aiperf_input_config(const nlohmann::json& config, const json_place& place, aiperf_summary_info& out) {
    json_object(config, place, "input_config");
    read_aiperf_models_datasets_phases(config, place, out);
    if (const auto* endpoint = nvidia_member(config, "endpoint")) {
        json_object(*endpoint, place, "input_config.endpoint");
        if (const auto* names = nvidia_member(*endpoint, "model_names")) {
            json_array(*names, place, "input_config.endpoint.model_names");
            if (!names->empty())
                out.model = json_string((*names)[0], place, "input_config.endpoint.model_names[0]");
        }
        if (const auto type = nvidia_optional_string(*endpoint, "type", place, "input_config.endpoint"))
            out.params["endpoint_type"] = *type;
        if (const auto* streaming = nvidia_member(*endpoint, "streaming")) {
            if (!streaming->is_boolean()) place.fail("input_config.endpoint.streaming", "expected true or false");
            out.params["streaming"] = streaming->get<bool>();
        }
    }
    if (const auto* loadgen = nvidia_member(config, "loadgen")) {
        json_object(*loadgen, place, "input_config.loadgen");
        aiperf_copy_scalars(*loadgen, out.params);
    }
    if (const auto* input = nvidia_member(config, "input"); input && input->is_object()) {
        if (const auto* prompt = nvidia_member(*input, "prompt"); prompt && prompt->is_object()) {
            read_aiperf_token_setting(*prompt, "input_tokens", "isl", place, out.params);
            read_aiperf_token_setting(*prompt, "output_tokens", "osl", place, out.params);
        }
        if (const auto* seed = nvidia_member(*input, "random_seed"); seed && seed->is_number_integer())
            out.params["random_seed"] = *seed;
        for (const std::string_view key : {"public_dataset", "custom_dataset_type", "file"})
            if (const auto* v = nvidia_member(*input, key); v && v->is_string() && out.workload.empty())
                out.workload = v->get<std::string>();
    }
    if (const auto* scenario = nvidia_member(config, "scenario"); scenario && scenario->is_string() && out.workload.empty())
        out.workload = scenario->get<std::string>();
    if (const auto command = nvidia_optional_string(config, "cli_command", place, "input_config"))
        out.notes.push_back("AIPerf command: " + *command);
}

// run_info (schema 1.2+): the run's seed and its place in a sweep or a set of repeated trials. The
// sweep's coordinates become parameters under their last path component
// ("phases.profiling.concurrency" → concurrency) unless input_config already gave that parameter.
inline void read_aiperf_run_info(const nlohmann::json& info, const json_place& place, aiperf_summary_info& out) {
    json_object(info, place, "run_info");
    if (const auto* seed = nvidia_member(info, "random_seed"); seed && seed->is_number_integer())
        out.params["random_seed"] = *seed;
    if (const auto* trial = nvidia_member(info, "trial"); trial && trial->is_number_integer())
        out.params["trial"] = *trial;
    if (const auto* values = nvidia_member(info, "variation_values")) {
        json_object(*values, place, "run_info.variation_values");
        for (const auto& [path, value] : values->items()) {
            const std::string leaf = path.substr(path.rfind('.') == std::string::npos ? 0 : path.rfind('.') + 1);
            if ((value.is_number() || value.is_string() || value.is_boolean()) && !out.params.contains(leaf))
                out.params[leaf] = value;
        }
    }
    std::string where;
    for (const std::string_view key : {"sweep_id", "run_label", "variation_label"})
        if (const auto v = nvidia_optional_string(info, key, place, "run_info"))
            where.append(where.empty() ? "" : ", ").append(key).append(" ").append(*v);
    if (!where.empty()) out.notes.push_back("AIPerf run_info: " + where + ".");
    if (const auto command = nvidia_optional_string(info, "cli_command", place, "run_info"))
        if (std::find(out.notes.begin(), out.notes.end(), "AIPerf command: " + *command) == out.notes.end())
            out.notes.push_back("AIPerf command: " + *command);
}

// What a schema 1.x document says besides its metrics, each a note: warm-up metrics (1.4), which are
// never measured data; GPU telemetry, whose per-GPU statistics servestat does not read
// (aiperf_telemetry.hpp: AIPerf's run-level energy figures are metric blocks, read as such); an
// invalid submission (1.5).
inline void read_aiperf_sections(const nlohmann::json& doc, const json_place& place, aiperf_summary_info& out) {
    if (const auto* warmup = nvidia_member(doc, "warmup_metrics")) {
        json_object(*warmup, place, "warmup_metrics");
        if (!warmup->empty())
            out.notes.push_back(fmt::format("warmup_metrics ({} metrics of AIPerf's warm-up requests) left out: warm-up "
                                            "is never measured data.", warmup->size()));
    }
    if (const auto* telemetry = nvidia_member(doc, "telemetry_data"); telemetry && telemetry->is_object())
        if (auto note = describe_aiperf_telemetry(doc, *telemetry)) out.notes.push_back(std::move(*note));
    if (const auto* reasons = nvidia_member(doc, "runtime_submission_invalid_reasons")) {
        json_array(*reasons, place, "runtime_submission_invalid_reasons");
        std::string list;
        for (const auto& r : *reasons)
            if (r.is_string()) list.append(list.empty() ? "" : ", ").append(r.get<std::string>());
        if (!list.empty()) out.notes.push_back("AIPerf marks this run's submission invalid: " + list + ".");
    }
    if (const auto* metadata = nvidia_member(doc, "metadata"); metadata && metadata->is_object())
        if (const auto* valid = nvidia_member(*metadata, "submission_valid"); valid && valid->is_boolean() &&
                                                                             !valid->get<bool>())
            out.notes.emplace_back("AIPerf marks this run's submission invalid (metadata.submission_valid false).");
}

inline void read_aiperf_error_summary(const nlohmann::json& summary, const json_place& place, aiperf_summary_info& out) {
    json_array(summary, place, "error_summary");
    for (std::size_t i = 0; i < summary.size(); ++i) {
        const std::string path = json_path("error_summary", i);
        const auto& entry = json_object(summary[i], place, path);
        const auto* count = nvidia_member(entry, "count");
        const auto* details = nvidia_member(entry, "error_details");
        if (!count || !details) continue;
        const std::int32_t n = json_count(*count, place, json_path(path, "count"));
        json_object(*details, place, json_path(path, "error_details"));
        std::string what = nvidia_optional_string(*details, "type", place, json_path(path, "error_details")).value_or("error");
        if (const auto* code = nvidia_member(*details, "code"); code && code->is_number_integer())
            what.append(" (code ").append(std::to_string(code->get<std::int64_t>())).append(")");
        out.notes.push_back(fmt::format("AIPerf's error summary: {} × {}", n, what));
    }
}

inline aiperf_summary_info read_aiperf_summary_document(const json_document& doc, std::string_view text) {
    const json_place& place = doc.place;
    if (!doc.value.is_object()) place.fail("", "expected a JSON object");
    aiperf_summary_info out;
    if (const auto* records = json_member(doc.value, "records")) { // 0.1.x: metrics under a wrapper
        read_aiperf_records(*records, text, place, out);
    } else {
        read_aiperf_flat_metrics(doc.value, text, place, out);
        out.aiperf_version = nvidia_optional_string(doc.value, "aiperf_version", place, "").value_or("");
        read_aiperf_sections(doc.value, place, out);
    }
    if (const auto* config = nvidia_member(doc.value, "input_config")) read_aiperf_input_config(*config, place, out);
    if (const auto* info = nvidia_member(doc.value, "run_info")) read_aiperf_run_info(*info, place, out);
    if (const auto* errors = nvidia_member(doc.value, "error_summary")) read_aiperf_error_summary(*errors, place, out);
    if (const auto* cancelled = nvidia_member(doc.value, "was_cancelled"); cancelled && cancelled->is_boolean() &&
                                                                              cancelled->get<bool>())
        out.notes.push_back("AIPerf reports that the benchmark was cancelled before it finished.");
    out.start_time = nvidia_optional_string(doc.value, "start_time", place, "").value_or("");
    // Python's NaN and Infinity, read by parse_json_documents, named in the notes.
    out.notes.insert(out.notes.end(), place.nonfinite_notes().begin(), place.nonfinite_notes().end());
    return out;
}

inline aiperf_summary_info read_aiperf_summary_file(const std::filesystem::path& file) {
    const std::string text = read_json_file(file);
    const auto documents = parse_json_documents(file, text);
    if (documents.size() != 1)
        throw input_error(file.string(), documents[1].place.line, "", "expected one JSON object, found several");
    return read_aiperf_summary_document(documents.front(), text);
}

inline constexpr std::string_view aiperf_std_note =
    "AIPerf's std is numpy's population std (ddof 0); servestat's default is ddof 1 (use --ddof 0 to compare).";


inline std::string aiperf_tool(const std::string& version) { return version.empty() ? "aiperf" : "aiperf " + version; }

inline run aiperf_summary_run(const std::filesystem::path& file, std::string_view format, aiperf_summary_info info) {
    run out;
    out.meta.label = nvidia_run_label(file, "profile_export_aiperf");
    out.meta.tool = aiperf_tool(info.aiperf_version);
    out.meta.source = {file.string(), std::string(format)};
    out.meta.kind = run_kind::summary;
    out.meta.model = std::move(info.model);
    out.meta.workload = std::move(info.workload);
    out.meta.params = std::move(info.params);
    auto phase = aiperf_file_phase_context(file);
    out.meta.source.merged = std::move(phase.merged);
    if (phase.phase) {
        out.meta.params["phase"] = *phase.phase;
        out.meta.label = file.parent_path().parent_path().parent_path().filename().string() + "/" + *phase.phase;
    }
    for (auto& note : phase.notes) info.notes.push_back(std::move(note));
    out.meta.reported = std::move(info.reported);
    if (info.first_request_ns) {
        out.meta.started_at = iso_utc(*info.first_request_ns, 3);
    } else if (!info.start_time.empty()) {
        out.meta.started_at = info.start_time;
        out.meta.notes.emplace_back("started_at is AIPerf's start_time, the benchmark machine's local time "
                                    "(no time zone).");
    }
    out.meta.notes.emplace_back("AIPerf's own aggregates only: no per-request records, so servestat cannot "
                                "recompute or re-slice these statistics (read profile_export.jsonl for that).");
    for (auto& note : info.notes) out.meta.notes.push_back(std::move(note));
    out.meta.notes.emplace_back(aiperf_std_note);
    return out;
}

inline std::vector<run> read_aiperf_summary(const std::filesystem::path& file, const read_options&) {
    std::vector<run> runs;
    runs.push_back(aiperf_summary_run(file, aiperf_summary_name, read_aiperf_summary_file(file)));
    // The CSV beside it is the same table in another form: one run, not two (never the other way
    // round, or a folder read would list neither).
    auto csv = file;
    csv.replace_extension(".csv");
    if (std::error_code ec; std::filesystem::is_regular_file(csv, ec)) runs.back().meta.source.merged.push_back(csv.string());
    return runs;
}

// ---- profile_export_aiperf.csv ----

// The CSV names metrics by their display header; these are AIPerf's tags for them, so both
// summary files report under the same names.
struct aiperf_header_tag {
    std::string_view header;
    std::string_view tag;
};

inline constexpr aiperf_header_tag aiperf_header_tags[] = {
    {"Request Latency", "request_latency"},
    {"Time to First Token", "ttft"},
    {"Time to Second Token", "ttst"},
    {"Time to First Output Token", "ttfo"},
    {"Inter Chunk Latency", "inter_chunk_latency"},
    {"Inter Token Latency", "inter_token_latency"},
    {"Input Sequence Length", "input_sequence_length"},
    {"Output Sequence Length", "output_sequence_length"},
    {"Output Token Count", "output_token_count"},
    {"Reasoning Token Count", "reasoning_token_count"},
    {"Output Token Throughput Per User", "output_token_throughput_per_user"},
    {"Benchmark Duration", "benchmark_duration"},
    {"Error Request Count", "error_request_count"},
    {"Maximum Response Timestamp", "max_response_timestamp"},
    {"Minimum Request Timestamp", "min_request_timestamp"},
    {"Output Token Throughput", "output_token_throughput"},
    {"Request Count", "request_count"},
    {"Request Throughput", "request_throughput"},
    {"Total Input Sequence Length", "total_isl"},
    {"Total Output Sequence Length", "total_osl"},
    {"Total Output Tokens", "total_output_tokens"},
    {"Total Reasoning Tokens", "total_reasoning_tokens"},
};

inline std::string aiperf_snake_case(std::string_view text) {
    std::string out;
    for (const char c : text) {
        const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (alnum) out.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c);
        else if (!out.empty() && out.back() != '_') out.push_back('_');
    }
    while (!out.empty() && out.back() == '_') out.pop_back();
    return out;
}

// "Time to First Token (ms)" → tag "ttft", unit "ms"; counts without a unit are in requests.
inline std::pair<std::string, std::string> aiperf_csv_metric(std::string_view cell) {
    cell = trim_spaces(cell);
    std::string unit;
    if (cell.ends_with(")"))
        if (const auto open = cell.rfind(" ("); open != std::string_view::npos) {
            unit = std::string(cell.substr(open + 2, cell.size() - open - 3));
            cell = cell.substr(0, open);
        }
    for (const auto& known : aiperf_header_tags)
        if (known.header == cell) {
            if (unit.empty() && known.tag.ends_with("request_count")) unit = "requests";
            return {std::string(known.tag), unit};
        }
    if (const auto energy = aiperf_energy_tag(cell)) return {std::string(*energy), unit}; // platform added later
    return {aiperf_snake_case(cell), unit};
}

inline double aiperf_csv_number(const std::string& file, const csv_record& row, std::size_t column,
                                const std::vector<std::string>& header) {
    const std::string_view text = trim_spaces(row.fields[column]);
    double value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value))
        throw input_error(file, row.line, header[column], "not a number: " + quote_cell(row.fields[column]));
    return value;
}

// The CSV is the JSON's table in sections, each under its own "Metric,..." header (per-metric
// statistics, then single values): blank lines separate them, so rows are read without a fixed
// column count and checked against the section's header.
inline aiperf_summary_info read_aiperf_summary_csv_rows(const std::filesystem::path& file, const read_options& options) {
    csv_reader csv(file, options.max_line_bytes);
    const std::string& name = csv.name();
    aiperf_summary_info out;
    std::vector<std::string> header;
    csv_record row;
    bool any = false;
    bool telemetry = false; // inside the GPU telemetry table (Endpoint,GPU_Index,...), which is not read
    std::size_t telemetry_rows = 0;
    std::optional<std::size_t> platform_column; // the telemetry table's Platform column (AIPerf 0.12)
    std::set<std::string> platforms;            // what it names: the prefix of the energy metrics' JSON tags
    std::set<std::string> energy_tags;          // energy rows read, under their platform-less tags
    while (csv.next(row)) {
        if (trim_spaces(row.fields.front()) == "Endpoint" && row.fields.size() > 1 &&
            trim_spaces(row.fields[1]) == "GPU_Index") {
            telemetry = true;
            platform_column.reset();
            for (std::size_t c = 0; c < row.fields.size(); ++c)
                if (trim_spaces(row.fields[c]) == "Platform") platform_column = c;
            continue;
        }
        if (telemetry && trim_spaces(row.fields.front()) != "Metric") {
            ++telemetry_rows;
            if (platform_column && *platform_column < row.fields.size())
                if (const auto p = trim_spaces(row.fields[*platform_column]); !p.empty()) platforms.insert(std::string(p));
            continue;
        }
        telemetry = false;
        if (trim_spaces(row.fields.front()) == "Metric") {
            for (std::size_t c = 1; c < row.fields.size(); ++c)
                if (!name_aiperf_stat(trim_spaces(row.fields[c])))
                    throw input_error(name, row.line, row.fields[c], "unknown statistic column");
            header = row.fields;
            continue;
        }
        if (header.empty()) throw input_error(name, row.line, "", "expected a header row starting with Metric");
        if (row.fields.size() != header.size())
            throw input_error(name, row.line, "", fmt::format("expected {} columns, found {}", header.size(), row.fields.size()));
        auto [tag, unit] = aiperf_csv_metric(row.fields.front());
        if (is_aiperf_energy_tag(tag)) energy_tags.insert(tag);
        std::vector<aiperf_stat> stats;
        for (std::size_t c = 1; c < row.fields.size(); ++c)
            if (!trim_spaces(row.fields[c]).empty())
                stats.push_back({std::string(trim_spaces(header[c])), aiperf_csv_number(name, row, c, header)});
        report_aiperf_metric(tag, unit, stats, out.reported,
                             [&](const std::string& why) { throw input_error(name, row.line, "Metric", why); });
        if (tag == "min_request_timestamp" && !stats.empty() && stats.front().value >= 0 && stats.front().value < 9.2e18)
            out.first_request_ns = std::llround(stats.front().value);
        any = true;
    }
    if (!any) throw input_error(name, 0, "", header.empty() ? "empty file" : "no metric rows after the header");
    name_aiperf_csv_energy(out.reported, energy_tags, platforms, out.notes);
    if (telemetry_rows > 0)
        out.notes.push_back(fmt::format("The GPU telemetry table ({} rows) is not read.", telemetry_rows));
    return out;
}

inline std::vector<run> read_aiperf_summary_csv(const std::filesystem::path& file, const read_options& options) {
    aiperf_summary_info info = read_aiperf_summary_csv_rows(file, options);
    info.notes.emplace_back("AIPerf's CSV rounds every value to 2 decimals in its own unit (ms values are "
                            "±0.005 ms after conversion to seconds).");
    std::vector<run> runs;
    runs.push_back(aiperf_summary_run(file, aiperf_summary_csv_name, std::move(info)));
    return runs;
}

// ---- Sniffers ----

// 0.1.x: {"records": {tag: {"tag", "header", "unit", "avg", ...}}}. Schema 1.x: metric blocks at the
// top level ({"unit", "avg", ...}) with aiperf_version/schema_version, or, before schema 1.0 (AIPerf
// 0.2), without them but with AIPerf's input_config (endpoint.model_names); GenAI-Perf's summary,
// whose layout AIPerf copied, has neither (its input_config has perf_analyzer) and is not claimed.
// The multi-run files (aggregation_type) and the v2 report (metrics with series) belong to their
// own readers.
inline int sniff_aiperf_summary(std::string_view head) {
    if (first_json_char(head) != '{') return 0;
    const auto has = [&](std::string_view key) { return head.find(key) != std::string_view::npos; };
    if (has("\"records\"") && has("\"tag\"") && has("\"header\"")) return has("\"avg\"") ? 100 : 80;
    if (has("\"aggregation_type\"") || has("\"series\"") || has("\"per_combination_metrics\"")) return 0;
    // profile_export_aiperf_timeslices.json holds the same metric blocks once per time slice (1 s):
    // no run, so never claimed (a short run's file has input_config's model_names in its head).
    if (has("\"timeslices\"")) return 0;
    const bool metric = has("\"unit\"") && has("\"avg\"") &&
                        (has("\"request_latency\"") || has("\"request_count\"") || has("\"request_throughput\"") ||
                         has("\"time_to_first_token\"") || has("\"benchmark_duration\""));
    if (!metric) return 0;
    if (has("\"aiperf_version\"") || has("\"schema_version\"")) return 100;
    // GenAI-Perf's nested input_config names model_names too: its perf_analyzer section and the
    // older flat echo's keys are GenAI-Perf's own (genai_perf_summary.hpp reads that file).
    for (const std::string_view genai : {"\"perf_analyzer\"", "\"formatted_model_name\"", "\"synthetic_input_tokens_mean\""})
        if (has(genai)) return 0;
    return has("\"model_names\"") ? 90 : 0;
}

// 0.1.x: Metric,avg,min,max,p1,...; schema 1.1+: Metric,avg,min,max,sum,p1,...
inline int sniff_aiperf_summary_csv(std::string_view head) {
    if (head.substr(0, 3) == "\xEF\xBB\xBF") head.remove_prefix(3);
    return head.starts_with("Metric,avg,min,max,p1,") || head.starts_with("Metric,avg,min,max,sum,p1,") ? 100 : 0;
}

} // namespace detail

inline constexpr log_format aiperf_summary_format{
    detail::aiperf_summary_name,
    "AIPerf's run aggregates (profile_export_aiperf.json: 0.1.x records, or schema 1.0-1.5 top-level metrics)",
    &detail::sniff_aiperf_summary, &detail::read_aiperf_summary};

inline constexpr log_format aiperf_summary_csv_format{
    detail::aiperf_summary_csv_name, "AIPerf's run aggregates as CSV (profile_export_aiperf.csv)",
    &detail::sniff_aiperf_summary_csv, &detail::read_aiperf_summary_csv};

} // namespace servestat
