// Readers for GenAI-Perf's aggregate export, written beside profile_export.json:
// <stem>_genai_perf.json ("genai-perf-summary") and <stem>_genai_perf.csv ("genai-perf-summary-csv"),
// GenAI-Perf's own statistics of one run. The JSON is one block per metric, {"unit", "avg", "p1" ...
// "p99", "min", "max", "std"}, and an "input_config" echo of the command line: flat (the argparse
// Namespace: "model": [...], "concurrency", "synthetic_input_tokens_mean", up to GenAI-Perf 25.01 or
// so) or nested (the config file: "model_names", "endpoint", "perf_analyzer": {"stimulus"}, "input",
// with counts in unit "count"). The CSV is the same table in sections (Metric,avg,min,max,p99...;
// Metric,Value), two decimals, thousands grouped ("15,635.03"). genai_perf.hpp reads the aggregate
// beside the per-request file as that run's reported values.
#pragma once

#include <algorithm>    // std::stable_sort
#include <charconv>     // std::from_chars
#include <cmath>        // std::isfinite
#include <cstddef>      // std::size_t
#include <filesystem>   // std::filesystem::path
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <system_error> // std::error_code, std::errc
#include <utility>      // std::move, std::pair
#include <vector>       // std::vector

#include <fmt/format.h>      // fmt::format
#include <nlohmann/json.hpp> // nlohmann::json, nlohmann::ordered_json

#include "servestat/core/errors.hpp"           // input_error
#include "servestat/core/run.hpp"              // run, reported_value
#include "servestat/core/text.hpp"             // trim_spaces, shortest_number
#include "servestat/ingest/aiperf_summary.hpp" // name_aiperf_stat, aiperf_stat, aiperf_snake_case (AIPerf copied this layout)
#include "servestat/ingest/csv.hpp"            // csv_reader, csv_record, quote_cell
#include "servestat/ingest/json_document.hpp"  // json_place, parse_json_documents, first_json_char, ...
#include "servestat/ingest/nvidia_export.hpp"  // nvidia_member, aiperf_time_unit, aiperf_ns_per
#include "servestat/ingest/reader.hpp"         // log_format, read_options

namespace servestat {
namespace detail {

inline constexpr std::string_view genai_perf_summary_name = "genai-perf-summary";
inline constexpr std::string_view genai_perf_summary_csv_name = "genai-perf-summary-csv";

// ---- GenAI-Perf's metrics under servestat's names ----

// Renamed only where GenAI-Perf's definition is servestat's (docs/metrics.md): request_latency runs
// from the send to the last response, time_to_first_token to the first non-empty one, and
// inter_token_latency is per request (latency − ttft)/(OSL − 1), servestat's tpot.
enum class genai_quantity { time, tokens, count, request_rate, token_rate };

struct genai_summary_mapping {
    std::string_view tag;
    std::string_view name;
    genai_quantity quantity;
    bool run_level = false;     // one value for the run, not a distribution
    bool streamed_only = false; // unstreamed, GenAI-Perf reports the whole latency as TTFT
};

inline constexpr genai_summary_mapping genai_summary_mappings[] = {
    {"request_latency", "e2e", genai_quantity::time},
    {"time_to_first_token", "ttft", genai_quantity::time, false, true},
    {"inter_token_latency", "tpot", genai_quantity::time, false, true},
    {"input_sequence_length", "prompt_tokens", genai_quantity::tokens},
    {"output_sequence_length", "output_tokens", genai_quantity::tokens},
    {"request_count", "ok", genai_quantity::count, true},
    {"request_throughput", "rps", genai_quantity::request_rate, true},
    {"output_token_throughput", "output_tps", genai_quantity::token_rate, true},
};

inline const genai_summary_mapping* find_genai_summary_mapping(std::string_view tag) {
    for (const auto& m : genai_summary_mappings)
        if (m.tag == tag) return &m;
    return nullptr;
}

// What to divide a renamed metric by for servestat's unit (and that unit); nullopt with `why` set
// when GenAI-Perf's unit is not one servestat converts.
inline std::optional<double> genai_summary_divisor(genai_quantity q, const std::string& unit, std::string& out_unit,
                                                   std::string& why) {
    switch (q) {
    case genai_quantity::time:
        if (const auto u = aiperf_time_unit(unit)) {
            out_unit = "s";
            return 1e9 / aiperf_ns_per(*u);
        }
        why = aiperf_unknown_unit(unit, aiperf_time_units);
        return std::nullopt;
    case genai_quantity::tokens:
        out_unit = "tokens";
        if (unit == "tokens" || unit.empty()) return 1.0;
        why = aiperf_unknown_unit(unit, "tokens");
        return std::nullopt;
    case genai_quantity::count: // "count" in the nested generation, none in older CSVs
        out_unit = "requests";
        if (unit == "count" || unit == "requests" || unit.empty()) return 1.0;
        why = aiperf_unknown_unit(unit, "count");
        return std::nullopt;
    case genai_quantity::request_rate:
        out_unit = "req/s";
        if (unit == "requests/sec" || unit == "per sec") return 1.0;
        why = aiperf_unknown_unit(unit, "requests/sec or per sec");
        return std::nullopt;
    case genai_quantity::token_rate:
        out_unit = "tok/s";
        if (unit == "tokens/sec" || unit == "per sec") return 1.0;
        why = aiperf_unknown_unit(unit, "tokens/sec or per sec");
        return std::nullopt;
    }
    return std::nullopt;
}

// One value (a rate or a count: avg, or the CSV's Value), not a distribution.
inline bool genai_is_scalar(const std::vector<aiperf_stat>& stats) {
    for (const auto& s : stats)
        if (s.key != "avg" && s.key != "Value") return false;
    return !stats.empty();
}

// Whether the run streamed decides what time_to_first_token means; nullopt when nothing says.
struct genai_metric_context {
    std::optional<bool> streamed;
};

// Appends one metric's statistics under servestat's names: renamed and in seconds where the
// definitions agree, else "genai_perf.<tag>[.<stat>]" in GenAI-Perf's unit. `fail(why)` throws
// with the file's place.
template <class Fail>
void report_genai_metric(const std::string& tag, const std::string& unit, std::vector<aiperf_stat> stats,
                         const genai_metric_context& context, std::vector<reported_value>& out, Fail&& fail) {
    const bool scalar = genai_is_scalar(stats);
    const genai_summary_mapping* m = find_genai_summary_mapping(tag);
    if (m && m->streamed_only && context.streamed == false) m = nullptr;
    const bool renamed = m && m->run_level == scalar;
    std::string out_unit = unit;
    double divisor = 1.0;
    if (renamed) {
        std::string why;
        const auto d = genai_summary_divisor(m->quantity, unit, out_unit, why);
        if (!d) fail(why);
        divisor = *d;
    }
    std::vector<std::pair<aiperf_stat_name, double>> named;
    for (const auto& s : stats)
        if (auto n = name_aiperf_stat(s.key)) named.emplace_back(std::move(*n), s.value);
    std::stable_sort(named.begin(), named.end(), [](const auto& a, const auto& b) { return a.first.order < b.first.order; });
    const std::string prefix = renamed ? std::string(m->name) : "genai_perf." + tag;
    for (const auto& [stat, value] : named) {
        if (value < 0 && renamed) fail("negative " + stat.name + " (" + shortest_number(value) + ")");
        if (scalar) out.push_back({prefix, value / divisor, out_unit});
        else out.push_back({prefix + "." + stat.name, value / divisor, out_unit});
    }
}

// ---- What the run was ----

struct genai_summary_info {
    std::string model;
    std::string workload;
    nlohmann::json params = nlohmann::json::object();
    std::vector<reported_value> reported;
    std::vector<std::string> notes;
    std::optional<bool> streamed;
    std::string tokenizer;
    std::string export_stem; // the stem of --profile-export-file: the name the run was exported under
};

// --profile-export-file as the config recorded it ("artifacts/…/200_50.json" → "200_50").
inline void genai_read_export_stem(const nlohmann::json& section, genai_summary_info& out) {
    if (const auto* f = nvidia_member(section, "profile_export_file"); f && f->is_string())
        out.export_stem = std::filesystem::path(f->get<std::string>()).stem().string();
}

inline void genai_copy_number(const nlohmann::json& section, std::string_view key, std::string_view name,
                              nlohmann::json& params, bool positive_only = false) {
    const auto* v = nvidia_member(section, key);
    if (!v || !v->is_number()) return;
    if (positive_only && v->get<double>() <= 0) return; // GenAI-Perf's "not set": -1 or 0
    params[std::string(name)] = *v;
}

inline void genai_copy_string(const nlohmann::json& section, std::string_view key, std::string_view name,
                              nlohmann::json& params) {
    if (const auto* v = nvidia_member(section, key); v && v->is_string() && !v->get_ref<const std::string&>().empty())
        params[std::string(name)] = *v;
}

// --extra-inputs max_tokens:256 and the like: what every request carried.
inline void genai_copy_extra_inputs(const nlohmann::json* extra, nlohmann::json& params) {
    if (!extra || !extra->is_object()) return;
    for (const auto& [key, value] : extra->items())
        if (value.is_number() || value.is_boolean() || value.is_string()) params[key] = value;
}

inline void genai_read_streaming(const nlohmann::json& section, genai_summary_info& out) {
    if (const auto* s = nvidia_member(section, "streaming"); s && s->is_boolean()) {
        out.streamed = s->get<bool>();
        out.params["streaming"] = *s;
    }
}

// The Triton backend matters only for Triton; for OpenAI endpoints it is an unused default.
inline void genai_copy_backend(const nlohmann::json& section, genai_summary_info& out) {
    if (out.params.value("service_kind", std::string()) == "triton") genai_copy_string(section, "backend", "backend", out.params);
}

// The flat generation: the command line's argparse Namespace.
inline void read_genai_flat_config(const nlohmann::json& c, genai_summary_info& out) {
    if (const auto* model = nvidia_member(c, "model")) {
        if (model->is_array() && !model->empty() && (*model)[0].is_string()) out.model = (*model)[0].get<std::string>();
        else if (model->is_string()) out.model = model->get<std::string>();
    }
    if (out.model.empty())
        if (const auto* f = nvidia_member(c, "formatted_model_name"); f && f->is_string()) out.model = f->get<std::string>();
    genai_copy_number(c, "concurrency", "concurrency", out.params);
    genai_copy_number(c, "request_rate", "request_rate", out.params);
    genai_copy_string(c, "endpoint_type", "endpoint_type", out.params);
    genai_copy_string(c, "service_kind", "service_kind", out.params);
    genai_copy_string(c, "endpoint", "endpoint", out.params);
    genai_read_streaming(c, out);
    genai_copy_backend(c, out);
    genai_copy_number(c, "synthetic_input_tokens_mean", "isl", out.params, true);
    genai_copy_number(c, "synthetic_input_tokens_stddev", "isl_stddev", out.params);
    genai_copy_number(c, "output_tokens_mean", "osl", out.params, true);
    if (out.params.contains("osl")) genai_copy_number(c, "output_tokens_stddev", "osl_stddev", out.params);
    genai_copy_number(c, "request_count", "request_count", out.params, true);
    genai_copy_number(c, "warmup_request_count", "warmup_request_count", out.params, true);
    genai_copy_number(c, "measurement_interval", "measurement_interval_ms", out.params, true);
    genai_copy_number(c, "num_dataset_entries", "num_dataset_entries", out.params, true);
    genai_copy_number(c, "num_prompts", "num_dataset_entries", out.params, true);
    genai_copy_number(c, "random_seed", "random_seed", out.params);
    genai_copy_extra_inputs(nvidia_member(c, "extra_inputs"), out.params);
    for (const std::string_view key : {"input_dataset", "input_file", "prompt_source"})
        if (const auto* v = nvidia_member(c, key); v && v->is_string() && out.workload.empty()) out.workload = v->get<std::string>();
    if (const auto* t = nvidia_member(c, "tokenizer"); t && t->is_string()) out.tokenizer = t->get<std::string>();
}

// The nested generation: the config file's sections.
inline void read_genai_nested_config(const nlohmann::json& c, genai_summary_info& out) {
    if (const auto* names = nvidia_member(c, "model_names"); names && names->is_array() && !names->empty() &&
                                                             (*names)[0].is_string())
        out.model = (*names)[0].get<std::string>();
    if (const auto* e = nvidia_member(c, "endpoint"); e && e->is_object()) {
        genai_copy_string(*e, "type", "endpoint_type", out.params);
        genai_copy_string(*e, "service_kind", "service_kind", out.params);
        genai_copy_string(*e, "custom", "endpoint", out.params);
        genai_read_streaming(*e, out);
        genai_copy_backend(*e, out);
    }
    if (const auto* pa = nvidia_member(c, "perf_analyzer"); pa && pa->is_object()) {
        if (const auto* stimulus = nvidia_member(*pa, "stimulus"); stimulus && stimulus->is_object())
            for (const auto& [key, value] : stimulus->items())
                if (value.is_number()) out.params[key] = value; // concurrency, request_rate, ...
        if (const auto* m = nvidia_member(*pa, "measurement"); m && m->is_object()) {
            const std::string mode = m->value("mode", std::string());
            if (mode == "interval") genai_copy_number(*m, "num", "measurement_interval_ms", out.params, true);
            else if (mode == "request_count") genai_copy_number(*m, "num", "request_count", out.params, true);
        }
        genai_copy_number(*pa, "warmup_request_count", "warmup_request_count", out.params, true);
    }
    if (const auto* in = nvidia_member(c, "input"); in && in->is_object()) {
        if (const auto* s = nvidia_member(*in, "synthetic_tokens"); s && s->is_object()) {
            genai_copy_number(*s, "mean", "isl", out.params, true);
            genai_copy_number(*s, "stddev", "isl_stddev", out.params);
        }
        if (const auto* o = nvidia_member(*in, "output_tokens"); o && o->is_object()) {
            genai_copy_number(*o, "mean", "osl", out.params, true); // "" when not set
            if (out.params.contains("osl")) genai_copy_number(*o, "stddev", "osl_stddev", out.params);
        }
        genai_copy_number(*in, "num_dataset_entries", "num_dataset_entries", out.params, true);
        genai_copy_number(*in, "random_seed", "random_seed", out.params);
        genai_copy_extra_inputs(nvidia_member(*in, "extra"), out.params);
        const std::string file = in->value("file", std::string());
        out.workload = !file.empty() ? file : in->value("prompt_source", std::string());
    }
    if (const auto* t = nvidia_member(c, "tokenizer"); t && t->is_object()) out.tokenizer = t->value("name", std::string());
    if (const auto* o = nvidia_member(c, "output"); o && o->is_object()) genai_read_export_stem(*o, out);
}

inline void read_genai_input_config(const nlohmann::json& config, const json_place& place, genai_summary_info& out) {
    json_object(config, place, "input_config");
    if (config.contains("model_names") || config.contains("perf_analyzer")) read_genai_nested_config(config, out);
    else read_genai_flat_config(config, out), genai_read_export_stem(config, out);
}

// ---- profile_export_genai_perf.json ----

// A top-level metric block: an object with a unit and no nested objects.
inline bool is_genai_metric_block(const nlohmann::json& value) {
    if (!value.is_object() || !value.contains("unit") || !value["unit"].is_string()) return false;
    for (const auto& [key, member] : value.items())
        if (member.is_object() || member.is_array()) return false;
    return true;
}

// The top-level keys in the file's order (nlohmann::json sorts object keys).
inline std::vector<std::string> genai_key_order(std::string_view text) {
    if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
    const auto ordered = nlohmann::ordered_json::parse(text, nullptr, false);
    std::vector<std::string> keys;
    if (ordered.is_discarded() || !ordered.is_object()) return keys;
    for (const auto& item : ordered.items()) keys.push_back(item.key());
    return keys;
}

// Unstreamed, GenAI-Perf sets each request's TTFT to its latency: two identical blocks say so
// when the config does not.
inline std::optional<bool> genai_streamed_from_blocks(const nlohmann::json& doc) {
    const auto* ttft = json_member(doc, "time_to_first_token");
    const auto* latency = json_member(doc, "request_latency");
    if (!ttft || !latency) return std::nullopt;
    if (*ttft == *latency) return false;
    return std::nullopt;
}

inline genai_summary_info read_genai_summary_document(const json_document& doc, std::string_view text) {
    const json_place& place = doc.place;
    if (!doc.value.is_object()) place.fail("", "expected a JSON object");
    genai_summary_info out;
    if (const auto* config = nvidia_member(doc.value, "input_config")) read_genai_input_config(*config, place, out);
    if (!out.streamed) out.streamed = genai_streamed_from_blocks(doc.value);
    std::vector<std::string> order = genai_key_order(text);
    if (order.size() != doc.value.size()) { // the order could not be recovered: sorted is still complete
        order.clear();
        for (const auto& [key, value] : doc.value.items()) order.push_back(key);
    }
    std::vector<std::string> passed_over;
    std::size_t blocks = 0;
    for (const auto& tag : order) {
        const auto& block = doc.value.at(tag);
        if (!is_genai_metric_block(block)) {
            if (tag != "input_config") passed_over.push_back(tag);
            continue;
        }
        ++blocks;
        const std::string unit = block["unit"].get<std::string>();
        std::vector<aiperf_stat> stats;
        for (const auto& [key, value] : block.items()) {
            if (value.is_null() || !name_aiperf_stat(key)) continue;
            stats.push_back({key, json_number(value, place, json_path(tag, key))});
        }
        report_genai_metric(tag, unit, std::move(stats), {out.streamed}, out.reported,
                            [&](const std::string& why) { place.fail(json_path(tag, "unit"), why); });
    }
    if (blocks == 0) place.fail("", "no metric blocks ({\"unit\": ..., \"avg\": ...}) at the top level");
    if (!passed_over.empty()) {
        std::string list;
        for (const auto& k : passed_over) list.append(list.empty() ? "" : ", ").append(k);
        out.notes.push_back("Not read (not a metric block): " + list + ".");
    }
    out.notes.insert(out.notes.end(), place.nonfinite_notes().begin(), place.nonfinite_notes().end());
    return out;
}

inline genai_summary_info read_genai_summary_file(const std::filesystem::path& file) {
    const std::string text = read_json_file(file);
    const auto documents = parse_json_documents(file, text);
    if (documents.size() != 1)
        throw input_error(file.string(), documents[1].place.line, "", "expected one JSON object, found several");
    return read_genai_summary_document(documents.front(), text);
}

// ---- profile_export_genai_perf.csv ----

// "15,635.03" → 15635.03: GenAI-Perf formats with {:,.2f}, so commas group thousands and nothing
// else; anything else is not a number.
inline std::optional<double> genai_csv_number(std::string_view cell) {
    cell = trim_spaces(cell);
    std::string plain;
    std::size_t digits_since_comma = 0;
    bool comma = false, fraction = false;
    for (std::size_t i = 0; i < cell.size(); ++i) {
        const char c = cell[i];
        if (c == ',') {
            if (fraction || plain.empty() || plain == "-" || (comma && digits_since_comma != 3) || digits_since_comma > 3 ||
                digits_since_comma == 0)
                return std::nullopt;
            comma = true;
            digits_since_comma = 0;
            continue;
        }
        if (c == '.') {
            if (comma && digits_since_comma != 3) return std::nullopt;
            fraction = true;
        }
        if (c >= '0' && c <= '9' && !fraction) ++digits_since_comma;
        plain.push_back(c);
    }
    if (comma && !fraction && digits_since_comma != 3) return std::nullopt;
    double value = 0;
    const auto [end, ec] = std::from_chars(plain.data(), plain.data() + plain.size(), value);
    if (plain.empty() || ec != std::errc() || end != plain.data() + plain.size() || !std::isfinite(value))
        return std::nullopt;
    return value;
}

// "Time To First Token (ms)" → {"time_to_first_token", "ms"}; the sequence lengths carry no unit
// in older versions ("Output Sequence Length"): tokens.
inline std::pair<std::string, std::string> genai_csv_metric(std::string_view cell) {
    cell = trim_spaces(cell);
    std::string unit;
    if (cell.ends_with(")"))
        if (const auto open = cell.rfind(" ("); open != std::string_view::npos) {
            unit = std::string(cell.substr(open + 2, cell.size() - open - 3));
            cell = cell.substr(0, open);
        }
    std::string tag = aiperf_snake_case(cell);
    if (unit.empty() && tag.ends_with("sequence_length")) unit = "tokens";
    return {tag, unit};
}

inline bool genai_csv_header(const csv_record& row) {
    return trim_spaces(row.fields.front()) == "Metric" && row.fields.size() > 1;
}

// Sections under their own "Metric,..." header: per-metric statistics, then single values; GPU
// telemetry sections (Metric,GPU,...) are not read.
inline genai_summary_info read_genai_summary_csv_rows(const std::filesystem::path& file, const read_options& options) {
    csv_reader csv(file, options.max_line_bytes);
    const std::string& name = csv.name();
    genai_summary_info out;
    std::vector<std::string> header;
    bool telemetry = false;
    std::size_t telemetry_rows = 0, metrics = 0;
    csv_record row;
    while (csv.next(row)) {
        if (genai_csv_header(row)) {
            telemetry = trim_spaces(row.fields[1]) == "GPU";
            header = row.fields;
            if (!telemetry)
                for (std::size_t c = 1; c < header.size(); ++c)
                    if (!name_aiperf_stat(trim_spaces(header[c])))
                        throw input_error(name, row.line, header[c], "unknown statistic column");
            continue;
        }
        if (telemetry) {
            ++telemetry_rows;
            continue;
        }
        if (header.empty()) throw input_error(name, row.line, "", "expected a header row starting with Metric");
        if (row.fields.size() != header.size())
            throw input_error(name, row.line, "", fmt::format("expected {} columns, found {}", header.size(), row.fields.size()));
        auto [tag, unit] = genai_csv_metric(row.fields.front());
        std::vector<aiperf_stat> stats;
        for (std::size_t c = 1; c < row.fields.size(); ++c) {
            if (trim_spaces(row.fields[c]).empty()) continue;
            const auto v = genai_csv_number(row.fields[c]);
            if (!v) throw input_error(name, row.line, header[c], "not a number: " + quote_cell(row.fields[c]));
            stats.push_back({std::string(trim_spaces(header[c])), *v});
        }
        report_genai_metric(tag, unit, std::move(stats), {}, out.reported,
                            [&](const std::string& why) { throw input_error(name, row.line, "Metric", why); });
        ++metrics;
    }
    if (metrics == 0) throw input_error(name, 0, "", header.empty() ? "empty file" : "no metric rows after the header");
    if (telemetry_rows > 0) out.notes.push_back(fmt::format("The GPU telemetry table ({} rows) is not read.", telemetry_rows));
    out.notes.emplace_back("GenAI-Perf's CSV rounds every value to 2 decimals in its own unit (ms values are "
                           "±0.005 ms after conversion to seconds); the JSON beside it has them in full.");
    return out;
}

// ---- The run ----

// <stem>_genai_perf.json → <stem>: the name of the run GenAI-Perf exported.
inline std::string genai_summary_stem(const std::filesystem::path& file) {
    std::string stem = file.stem().string();
    if (stem.ends_with("_genai_perf")) stem.resize(stem.size() - std::string_view("_genai_perf").size());
    return stem;
}

// The run's stem; the default stem names no run, its artifact folder does.
inline std::string genai_summary_label(const std::filesystem::path& file) {
    const std::string stem = genai_summary_stem(file);
    const std::string dir = file.parent_path().filename().string();
    if (stem == "profile_export" && !dir.empty() && dir != "." && dir != "..") return dir;
    return stem;
}

inline constexpr std::string_view genai_std_note =
    "GenAI-Perf's std is numpy's population std (ddof 0); servestat's default is ddof 1 (use --ddof 0 to compare).";

// What every run with GenAI-Perf's numbers says about them.
inline void add_genai_summary_notes(const genai_summary_info& info, std::vector<std::string>& notes) {
    if (info.streamed == false)
        notes.emplace_back("The run was not streamed: GenAI-Perf's time_to_first_token is then the whole request "
                           "latency, kept as genai_perf.time_to_first_token.*, not servestat's ttft.");
    notes.push_back(std::string("prompt_tokens and output_tokens are GenAI-Perf's counts with its own tokenizer")
                        .append(info.tokenizer.empty() ? "" : " (" + info.tokenizer + ")")
                        .append(", not the server's usage; output_tps is their sum over GenAI-Perf's window."));
    notes.emplace_back("GenAI-Perf's rates (rps, output_tps) divide by its window, from the first request to the "
                       "last response.");
    notes.emplace_back(genai_std_note);
}

inline run genai_summary_run(const std::filesystem::path& file, std::string_view format, genai_summary_info info) {
    run out;
    out.meta.label = genai_summary_label(file);
    out.meta.tool = "genai-perf";
    out.meta.source = {file.string(), std::string(format)};
    // The export's name where the config recorded it: the same run's request file is named by it.
    out.meta.source.name_stem = !info.export_stem.empty() ? info.export_stem : genai_summary_stem(file);
    out.meta.kind = run_kind::summary;
    out.meta.model = std::move(info.model);
    out.meta.workload = std::move(info.workload);
    out.meta.params = std::move(info.params);
    out.meta.reported = std::move(info.reported);
    out.meta.notes.emplace_back("GenAI-Perf's own aggregates only: no per-request records, so servestat cannot "
                                "recompute or re-slice these statistics (read profile_export.json for that).");
    add_genai_summary_notes(info, out.meta.notes);
    for (auto& note : info.notes) out.meta.notes.push_back(std::move(note));
    return out;
}

inline std::optional<std::filesystem::path> genai_existing(const std::filesystem::path& candidate) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(candidate, ec)) return candidate;
    return std::nullopt;
}

inline std::vector<run> read_genai_perf_summary(const std::filesystem::path& file, const read_options&) {
    std::vector<run> runs;
    runs.push_back(genai_summary_run(file, genai_perf_summary_name, read_genai_summary_file(file)));
    // The CSV beside it is the same table: one run, not two (never the other way round).
    auto csv = file;
    csv.replace_extension(".csv");
    if (const auto beside = genai_existing(csv)) runs.back().meta.source.merged.push_back(beside->string());
    return runs;
}

inline std::vector<run> read_genai_perf_summary_csv(const std::filesystem::path& file, const read_options& options) {
    genai_summary_info info = read_genai_summary_csv_rows(file, options);
    info.notes.emplace_back("The CSV carries no settings (no input_config): no run parameters or model.");
    std::vector<run> runs;
    runs.push_back(genai_summary_run(file, genai_perf_summary_csv_name, std::move(info)));
    return runs;
}

// The aggregate beside a per-request export: <stem>_genai_perf.json, else the CSV. GenAI-Perf writes
// one run per artifact folder, and some versions name its aggregate by the default stem whatever
// --profile-export-file said (200_50.json beside profile_export_genai_perf.json): where the folder
// holds no export of that default name, the default-named aggregate is this export's.
inline std::optional<std::filesystem::path> genai_summary_beside(const std::filesystem::path& records) {
    const auto dir = records.parent_path();
    const std::string stem = records.stem().string();
    if (auto json = genai_existing(dir / (stem + "_genai_perf.json"))) return json;
    if (auto csv = genai_existing(dir / (stem + "_genai_perf.csv"))) return csv;
    if (stem == "profile_export" || genai_existing(dir / "profile_export.json")) return std::nullopt;
    if (auto json = genai_existing(dir / "profile_export_genai_perf.json")) return json;
    return genai_existing(dir / "profile_export_genai_perf.csv");
}

// ---- Sniffers ----

// Keys only GenAI-Perf's input_config has (AIPerf's says loadgen, endpoint.model_names).
inline bool has_genai_perf_config_keys(std::string_view head) {
    for (const std::string_view key : {"\"perf_analyzer\"", "\"formatted_model_name\"", "\"synthetic_input_tokens_mean\"",
                                       "\"stability_percentage\"", "\"measurement_interval\""})
        if (head.find(key) != std::string_view::npos) return true;
    return false;
}

// Metric blocks ({"unit", "avg", ...} under request_latency, ...) with none of AIPerf's marks and
// not another NVIDIA layout (per-request experiments, AIPerf's multi-run and time-slice files).
inline int sniff_genai_perf_summary(std::string_view head) {
    if (first_json_char(head) != '{') return 0;
    const auto has = [&](std::string_view key) { return head.find(key) != std::string_view::npos; };
    if (!has("\"unit\"") || !has("\"avg\"")) return 0;
    if (!has("\"request_latency\"") && !has("\"request_throughput\"") && !has("\"time_to_first_token\"")) return 0;
    for (const std::string_view other : {"\"aiperf_version\"", "\"schema_version\"", "\"records\"", "\"experiments\"",
                                         "\"timeslices\"", "\"aggregation_type\"", "\"series\"",
                                         "\"per_combination_metrics\"", "\"benchmark_duration\""})
        if (has(other)) return 0;
    if (has_genai_perf_config_keys(head)) return 100;
    return has("\"model_names\"") ? 0 : 60; // AIPerf 0.2 before schema 1.0 names model_names; so may GenAI-Perf
}

// Metric,avg,min,max,p99,... (AIPerf's starts Metric,avg,min,max,p1 or ...,sum,p1).
inline int sniff_genai_perf_summary_csv(std::string_view head) {
    if (head.substr(0, 3) == "\xEF\xBB\xBF") head.remove_prefix(3);
    return head.starts_with("Metric,avg,min,max,p99,") ? 100 : 0;
}

} // namespace detail

inline constexpr log_format genai_perf_summary_format{
    detail::genai_perf_summary_name,
    "GenAI-Perf's run aggregates (profile_export_genai_perf.json, flat or nested input_config)",
    &detail::sniff_genai_perf_summary, &detail::read_genai_perf_summary};

inline constexpr log_format genai_perf_summary_csv_format{
    detail::genai_perf_summary_csv_name, "GenAI-Perf's run aggregates as CSV (profile_export_genai_perf.csv)",
    &detail::sniff_genai_perf_summary_csv, &detail::read_genai_perf_summary_csv};

} // namespace servestat
