// The InferenceX (InferenceMAX) benchmark harness's result files (format "inferencex-result"): one
// flat JSON object per benchmark run (`<result name>.json` under `bmk_agentic_<name>/`, or
// `agg_<name>.json` for a fixed-length run), and the workflow's `agg_bmk.json`, a JSON array of those
// objects gathered from every run of a sweep (utils/collect_results.py). Each object is a summary
// run: the harness's own aggregates, no requests. A folder read keeps a run's own file and passes
// over the list's copy of it (detect.hpp: the list was gathered from the files). Read from the harness's code
// (utils/process_agentic_result.py, utils/process_result.py, SemiAnalysisAI/InferenceX) and real
// files (tests/data/inferencex/README.md). The nested agentic layout of AgentX v1.0 on
// (request_accounting, request_metrics, server_metrics, power fields) is inferencex_agentic_v3.hpp's.
#pragma once

#include <algorithm>   // std::sort
#include <array>       // std::array
#include <cctype>      // std::isdigit
#include <charconv>    // std::from_chars
#include <cmath>       // std::isfinite
#include <cstddef>     // std::size_t
#include <system_error> // std::error_code
#include <filesystem>  // std::filesystem::path
#include <optional>    // std::optional
#include <string>      // std::string
#include <string_view> // std::string_view
#include <tuple>       // std::tuple, std::get
#include <utility>     // std::move, std::pair
#include <vector>      // std::vector

#include <fmt/format.h>      // fmt::format
#include <nlohmann/json.hpp> // nlohmann::json

#include "servestat/core/errors.hpp"          // input_error
#include "servestat/core/run.hpp"             // run, run_metadata, reported_value, run_kind
#include "servestat/core/run_names.hpp"       // name_runs_by_params
#include "servestat/ingest/inferencex_agentic_v3.hpp" // read_inferencex_nested, inferencex_top_level_unit
#include "servestat/ingest/json_document.hpp" // parse_json_documents, read_json_file, json_* helpers, param_number
#include "servestat/ingest/reader.hpp"        // log_format, read_options

namespace servestat {
namespace detail {

inline constexpr std::string_view inferencex_result_name = "inferencex-result";

// Settings the harness writes (from its environment) and the run parameter each becomes.
inline constexpr std::array<std::pair<std::string_view, std::string_view>, 17> inferencex_params{{
    {"conc", "concurrency"},
    {"tp", "tensor_parallel_size"},
    {"ep", "expert_parallel_size"},
    {"dp_attention", "data_parallel_attention"},
    {"offloading", "offloading"},
    {"framework", "framework"},
    {"precision", "precision"},
    {"hw", "hw"},
    {"image", "image"},
    {"scenario_type", "scenario"},
    {"spec_decoding", "spec_decoding"},
    {"infmax_model_prefix", "model_prefix"},
    {"isl", "input_len"},
    {"osl", "output_len"},
    // The nested agentic layout's single-node parallelism (pipeline, decode- and prefill-context).
    {"pp", "pipeline_parallel_size"},
    {"dcp_size", "dcp_size"},
    {"pcp_size", "pcp_size"},
}};

// Whole-run numbers and what each is reported as. duration_seconds is max request end − min
// request start over the successful records: servestat's duration; the token rates are token sums
// over it, servestat's rates.
struct inferencex_value {
    std::string_view key;
    std::string_view reported;
    std::string_view unit;
};
inline constexpr std::array<inferencex_value, 17> inferencex_run_values{{
    {"num_requests_successful", "ok", "requests"},
    {"num_requests_total", "inferencex.num_requests_total", "requests"},
    {"duration_seconds", "duration", "s"},
    {"output_tput_tps", "output_tps", "tok/s"},
    {"total_tput_tps", "total_tps", "tok/s"},
    {"input_tput_tps", "inferencex.input_tput_tps", "tok/s"},
    {"tput_per_gpu", "inferencex.tput_per_gpu", "tok/s"},
    {"output_tput_per_gpu", "inferencex.output_tput_per_gpu", "tok/s"},
    {"input_tput_per_gpu", "inferencex.input_tput_per_gpu", "tok/s"},
    {"total_prompt_tokens", "inferencex.total_prompt_tokens", "tokens"},
    {"total_generation_tokens", "inferencex.total_generation_tokens", "tokens"},
    {"total_requests_completed", "inferencex.total_requests_completed", "requests"},
    {"theoretical_cache_hit_rate", "inferencex.theoretical_cache_hit_rate", "ratio"},
    {"server_gpu_cache_hit_rate", "inferencex.server_gpu_cache_hit_rate", "ratio"},
    {"server_cpu_cache_hit_rate", "inferencex.server_cpu_cache_hit_rate", "ratio"},
    {"response_cache_hit_rate", "inferencex.response_cache_hit_rate", "ratio"},
    {"cpu_kv_cache_usage_pct", "inferencex.cpu_kv_cache_usage_pct", "ratio"},
}};

// Per-request quantities the harness summarises as `<stat>_<key>`, in report order. `agentic` is
// the name in an agentic result (statistics over AIPerf's records), `fixed` in a fixed-length one
// (the serving benchmark's *_ms statistics ÷ 1000); empty: not reported.
struct inferencex_metric {
    std::string_view key;
    std::string_view agentic;
    std::string_view fixed;
    std::string_view unit;
};
inline constexpr std::array<inferencex_metric, 9> inferencex_metrics{{
    {"ttft", "ttft", "ttft", "s"},
    {"e2el", "e2e", "e2e", "s"},
    // AIPerf's inter_token_latency is per request (e2e − ttft) / (output − 1): servestat's tpot, not
    // pooled chunk gaps; the harness copies that list into both itl and tpot.
    {"tpot", "tpot", "tpot", "s"},
    {"itl", "inferencex.itl", "itl", "s"},
    // Agentic: 1/itl per request, then summarised. Fixed: 1000 / each TPOT statistic in ms.
    {"intvty", "inferencex.intvty", "inferencex.intvty_from_tpot", "tok/s"},
    {"qps", "inferencex.qps", "inferencex.qps", "req/s"},
    {"input_tokens", "prompt_tokens", "prompt_tokens", "tokens"},
    {"output_tokens_actual", "output_tokens", "output_tokens", "tokens"},
    {"output_tokens_expected", "inferencex.output_tokens_expected", "inferencex.output_tokens_expected", "tokens"},
}};

// "p99.9_ttft" → {metric index, "p99.9"}; "median_e2el" → "p50"; "mean_", "std_" as they are.
inline std::optional<std::pair<std::size_t, std::string>> inferencex_stat_key(std::string_view key) {
    const auto cut = key.find('_');
    if (cut == std::string_view::npos) return std::nullopt;
    const std::string_view stat = key.substr(0, cut), rest = key.substr(cut + 1);
    std::size_t metric = inferencex_metrics.size();
    for (std::size_t m = 0; m < inferencex_metrics.size(); ++m)
        if (inferencex_metrics[m].key == rest) metric = m;
    if (metric == inferencex_metrics.size()) return std::nullopt;
    if (stat == "mean" || stat == "std") return std::pair{metric, std::string(stat)};
    if (stat == "median") return std::pair{metric, std::string("p50")};
    const std::string_view number = stat.substr(1);
    if (stat.size() < 2 || stat[0] != 'p' || !std::isdigit(static_cast<unsigned char>(number.front())) ||
        number.find_first_not_of("0123456789.") != std::string_view::npos)
        return std::nullopt;
    double q = 0;
    const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), q);
    if (ec != std::errc() || end != number.data() + number.size() || q > 100) return std::nullopt;
    return std::pair{metric, std::string(stat)};
}

// The order statistics are reported in: mean, percentiles rising, std.
inline double inferencex_stat_rank(const std::string& stat) {
    if (stat == "mean") return -1;
    if (stat == "std") return 1000;
    return std::stod(stat.substr(1));
}

inline bool inferencex_agentic(const nlohmann::json& object) {
    if (const auto* s = json_member(object, "scenario_type"); s && s->is_string())
        return s->get_ref<const std::string&>().find("agentic") != std::string::npos;
    return json_member(object, "duration_seconds") || json_member(object, "num_requests_successful");
}

// A number to report: null, NaN (Python's word, read as null) and ±Infinity are not (the
// document's notes name them); any other non-number is an error naming the field.
inline std::optional<double> inferencex_number(const nlohmann::json& v, const json_place& place, const std::string& path) {
    if (v.is_null() || (v.is_number_float() && !std::isfinite(v.get<double>()))) return std::nullopt;
    return json_number(v, place, path);
}

inline nlohmann::json inferencex_param(std::string_view key, const nlohmann::json& v, const json_place& place,
                                       const std::string& path) {
    if (key == "conc" || key == "tp" || key == "ep" || key == "isl" || key == "osl" || key == "pp" || key == "dcp_size" ||
        key == "pcp_size") {
        const double x = json_number(v, place, path, true);
        if (x < 1 || x > 1e9 || x != static_cast<double>(static_cast<long long>(x)))
            place.fail(path, "expected a positive whole number");
        return param_number(x);
    }
    // The harness writes dp_attention as the environment's text ("false", "true").
    if (key == "dp_attention" && v.is_string()) {
        const auto& s = v.get_ref<const std::string&>();
        if (s == "true" || s == "True") return true;
        if (s == "false" || s == "False") return false;
    }
    if (!v.is_string() && !v.is_boolean() && !v.is_number()) place.fail(path, std::string("expected a setting, got ") + json_type_name(v));
    return v.is_number() ? param_number(json_number(v, place, path)) : v;
}

inline run read_inferencex_record(const std::filesystem::path& file, const nlohmann::json& object,
                                  const json_place& place, const std::string& at) {
    json_object(object, place, at);
    const auto path = [&](std::string_view key) { return json_path(at, key); };
    json_require(object, "conc", place, at);
    run out;
    auto& meta = out.meta;
    meta.kind = run_kind::summary;
    meta.source = {file.string(), std::string(inferencex_result_name)};
    meta.tool = "InferenceX";
    meta.label = file.stem().string();
    const bool agentic = inferencex_agentic(object);
    if (const auto* m = json_member(object, "model"); m && !m->is_null()) meta.model = json_string(*m, place, path("model"));
    // Settings first, then numbers in a fixed order (nlohmann keeps no file order).
    std::vector<std::string> unread, empty;
    std::vector<std::pair<std::string, double>> other; // numbers with no table entry, by key
    std::vector<std::tuple<std::size_t, double, std::string, double>> stats; // metric, rank, stat, value
    bool std_intvty = false;
    for (const auto& [key, v] : object.items()) {
        if (key == "model") continue;
        bool param = false;
        for (const auto& [name, as] : inferencex_params)
            if (key == name) {
                param = true;
                // The harness writes an unset environment variable as "" (hw, image, framework, ...).
                if (v.is_string() && v.get_ref<const std::string&>().empty()) empty.push_back(key);
                else if (!v.is_null()) meta.params[std::string(as)] = inferencex_param(key, v, place, path(key));
            }
        if (param) continue;
        bool value = false;
        for (const auto& r : inferencex_run_values) value = value || key == r.key;
        if (value) continue;
        if (const auto s = inferencex_stat_key(key)) {
            const auto x = inferencex_number(v, place, path(key));
            if (!x) continue;
            const auto& metric = inferencex_metrics[s->first];
            // 1000 / std of TPOT in ms is no statistic of anything.
            if (!agentic && metric.key == "intvty" && s->second == "std") {
                std_intvty = true;
                continue;
            }
            stats.emplace_back(s->first, inferencex_stat_rank(s->second), s->second, *x);
            continue;
        }
        if (v.is_null() || inferencex_nested_block(key)) continue; // the nested blocks: read_inferencex_nested
        if (key == "warnings" && v.is_array()) {
            for (const auto& w : v)
                if (w.is_string()) meta.notes.push_back("the harness's warning: " + w.get<std::string>());
            continue;
        }
        // kv_offload_backend and router of the nested layout: {"name", "version"?}; the name is the setting.
        if (const auto* name = json_member(v, "name"); v.is_object() && name && name->is_string()) {
            meta.params[key] = *name;
            continue;
        }
        if (v.is_boolean() || v.is_string()) meta.params[key] = v; // disagg, is_multinode, decode_dp_attention, ...
        else if (v.is_number()) {
            if (const auto x = inferencex_number(v, place, path(key))) other.emplace_back(key, *x);
        } else unread.push_back(key);
    }
    if (const auto* s = json_member(object, "scenario_type"); s && s->is_string()) meta.workload = s->get<std::string>();
    for (const auto& r : inferencex_run_values) {
        const auto* v = json_member(object, r.key);
        const auto x = v ? inferencex_number(*v, place, path(r.key)) : std::nullopt;
        if (!x) continue;
        meta.reported.push_back({std::string(r.reported), *x, std::string(r.unit)});
        if (r.key == "duration_seconds") {
            // The harness gives no request rate (its qps is a windowed count): ok / duration is servestat's rps.
            const auto* ok = json_member(object, "num_requests_successful");
            if (const auto n = ok ? inferencex_number(*ok, place, path("num_requests_successful")) : std::nullopt; n && *x > 0)
                meta.reported.push_back({"rps", *n / *x, "req/s"});
        }
    }
    std::sort(stats.begin(), stats.end(), [](const auto& a, const auto& b) {
        return std::get<0>(a) != std::get<0>(b) ? std::get<0>(a) < std::get<0>(b) : std::get<1>(a) < std::get<1>(b);
    });
    for (const auto& [m, rank, stat, x] : stats) {
        const auto& metric = inferencex_metrics[m];
        meta.reported.push_back({std::string(agentic ? metric.agentic : metric.fixed) + "." + stat, x, std::string(metric.unit)});
    }
    for (const auto& [key, x] : other) meta.reported.push_back({"inferencex." + key, x, inferencex_top_level_unit(key)});
    const bool nested = inferencex_nested(object);
    if (nested) read_inferencex_nested(object, place, at, meta);
    add_inferencex_power_notes(object, meta);

    // What the numbers mean, where the harness's differ from what their names suggest.
    const bool multinode = meta.params.value("is_multinode", false) == true;
    if (agentic && !nested) {
        meta.notes.push_back("InferenceX's agentic result: statistics the harness computed from AIPerf's per-request "
                             "records (utils/process_agentic_result.py) after dropping failed ones, so "
                             "num_requests_total counts successes only and failures are unknown here (AIPerf's "
                             "profile_export.jsonl of the same run has them)");
        meta.notes.push_back("std is the population std (ddof 0, Python's statistics.pstdev); percentiles are linear "
                             "(numpy's default); latencies of 0 or less are left out of ttft, e2e and itl");
        meta.notes.push_back("the harness's itl is AIPerf's per-request inter_token_latency, (e2e - ttft) / (output "
                             "tokens - 1): servestat's tpot, not pooled chunk gaps, kept as inferencex.itl.* (its tpot "
                             "is the same list); intvty is 1/itl per request");
        meta.notes.push_back("qps counts completions in 1-second windows from the first completion (inferencex.qps.*), "
                             "not a rate over the run; rps is num_requests_successful / duration_seconds");
        if (json_member(object, "total_prompt_tokens"))
            meta.notes.push_back("total_prompt_tokens and total_generation_tokens are the server's Prometheus counters "
                                 "where it exports them (vLLM: every request it served, warm-up included), else sums over "
                                 "the successful records");
        if (const auto* n = json_member(object, "num_requests_successful"); n && n->is_number() && n->get<double>() == 0)
            meta.notes.push_back("no request succeeded: the harness wrote no latency, token or throughput statistics "
                                 "for this run");
    } else if (agentic) {
        meta.notes.push_back("InferenceX's agentic result: statistics the harness computed from AIPerf's per-request "
                             "records after dropping warm-up and failed ones");
        meta.notes.push_back("std is the population std (ddof 0, Python's statistics.pstdev); percentiles are linear; "
                             "latencies of 0 or less are left out of ttft, e2e and itl");
        meta.notes.push_back("the harness's itl is AIPerf's per-request inter_token_latency, (e2e - ttft) / (output "
                             "tokens - 1): servestat's tpot, not pooled chunk gaps, kept as inferencex.itl.* (its tpot "
                             "is the same list)");
        meta.notes.push_back("qps counts completions in 1-second windows from the first completion (inferencex.qps.*), "
                             "not a rate over the run; rps is num_requests_successful / duration_seconds");
    } else {
        meta.notes.push_back("InferenceX's fixed-length result (utils/process_result.py): the serving benchmark's *_ms "
                             "statistics divided by 1000, with std numpy's population std (ddof 0); the benchmark's own "
                             "counts, duration and request rate are not kept by the harness");
        meta.notes.push_back("intvty values are 1000 / the TPOT statistic of the same name in ms (p99 intvty = 1 / p99 "
                             "TPOT), not statistics of per-request interactivity: kept as inferencex.intvty_from_tpot.*");
        if (std_intvty) meta.notes.push_back("std_intvty (1000 / std of TPOT in ms) is no statistic and is not reported");
        // Single node: the harness divided the benchmark's totals by tp, so tp × per-GPU gives them back.
        const auto* tp = json_member(object, "tp");
        if (!multinode && tp && tp->is_number()) {
            const double gpus = tp->get<double>();
            const auto add = [&](std::string_view key, std::string name) {
                if (const auto* v = json_member(object, key))
                    if (const auto x = inferencex_number(*v, place, path(key))) meta.reported.push_back({std::move(name), *x * gpus, "tok/s"});
            };
            add("tput_per_gpu", "total_tps");
            add("output_tput_per_gpu", "output_tps");
            meta.notes.push_back("total_tps and output_tps are tput_per_gpu and output_tput_per_gpu times tp: the "
                                 "harness divided the benchmark's throughputs by tp");
        }
    }
    meta.notes.push_back(multinode ? "per-GPU throughputs divide by the prefill and decode GPUs the harness was told of"
                                   : "per-GPU throughputs (inferencex.*_per_gpu) divide by tp alone, whatever ep or "
                                     "data-parallel attention add");
    if (!empty.empty()) {
        std::string names;
        for (const auto& key : empty) names.append(names.empty() ? "" : ", ").append(key);
        meta.notes.push_back("settings the harness left empty (unset in its environment) are not set: " + names);
    }
    for (const auto& key : unread) meta.notes.push_back("field " + path(key) + " (not a number or a setting) is not read");
    return out;
}

// The line each element of the top-level array starts on (json.dump(indent=2) puts one per line block).
inline std::vector<std::size_t> inferencex_element_lines(std::string_view text, std::size_t first_line) {
    std::vector<std::size_t> lines;
    std::size_t line = first_line;
    int depth = 0;
    json_string_tracker strings;
    for (const char c : text) {
        if (c == '\n') ++line;
        if (strings.inside(c)) continue;
        if (c == '{' || c == '[') {
            if (++depth == 2) lines.push_back(line);
        } else if ((c == '}' || c == ']') && --depth == 0) {
            break;
        }
    }
    return lines;
}

// The agentic harness computes a run's result from AIPerf's per-request export of that run, which a
// result set keeps beside it: bmk_<name>/ next to <name>/aiperf_artifacts/profile_export.jsonl.
inline std::optional<std::filesystem::path> aiperf_export_beside(const std::filesystem::path& file) {
    const auto folder = file.parent_path();
    const std::string name = folder.filename().string();
    if (!name.starts_with("bmk_")) return std::nullopt;
    const auto records = folder.parent_path() / name.substr(4) / "aiperf_artifacts" / "profile_export.jsonl";
    if (std::error_code ec; std::filesystem::is_regular_file(records, ec)) return records;
    return std::nullopt;
}

inline std::vector<run> read_inferencex_result(const std::filesystem::path& file, const read_options&) {
    const std::string text = read_json_file(file);
    const auto documents = parse_json_documents(file, text);
    std::vector<run> runs;
    std::vector<std::string> left_out;
    for (const auto& [value, place] : documents) {
        const auto& notes = place.nonfinite_notes();
        if (!value.is_array()) {
            runs.push_back(read_inferencex_record(file, value, place, ""));
            runs.back().meta.notes.insert(runs.back().meta.notes.end(), notes.begin(), notes.end());
            // Beside the requests it summarises, a folder read reads those (every request, AIPerf's
            // aggregates) and not this summary of them; named alone it is a run.
            if (const auto records = aiperf_export_beside(file)) {
                runs.back().meta.source.merged.push_back(file.string());
                runs.back().meta.notes.push_back("InferenceX's summary of the AIPerf run in " +
                                                 records->parent_path().parent_path().filename().string() +
                                                 ": a folder holding both reads that run's requests");
            }
            continue;
        }
        // agg_bmk.json: every JSON file the workflow found, gathered into one list.
        const auto lines = inferencex_element_lines(std::string_view(text).substr(text.find('[')), place.line);
        for (std::size_t i = 0; i < value.size(); ++i) {
            const json_place at{place.file, i < lines.size() ? lines[i] : place.line, place.nonfinite};
            const auto& element = value[i];
            if (!element.is_object() || !json_member(element, "conc")) {
                left_out.push_back(json_path("", i));
                continue;
            }
            runs.push_back(read_inferencex_record(file, element, at, json_path("", i)));
            runs.back().meta.source.line = at.line;
            // A record whose run's own file lies beside is that run gathered again: a folder read
            // keeps the file and passes the record over (read_directory, run_fingerprint).
            runs.back().meta.notes.insert(runs.back().meta.notes.end(), notes.begin(), notes.end());
        }
    }
    if (runs.empty())
        throw input_error(file.string(), 0, "conc", "no benchmark result in the file (no object with \"conc\")");
    if (!left_out.empty())
        runs.front().meta.notes.push_back(fmt::format("{} element(s) of the list are no benchmark result (no \"conc\") "
                                                      "and were left out, the first {}",
                                                      left_out.size(), left_out.front()));
    // A gathered list's runs share the file's name: each is named by the settings that set it apart.
    name_runs_by_params(runs, file.stem().string());
    return runs;
}

// The harness's own keys: infmax_model_prefix with conc and a result field (agentic results of a
// run that failed whole carry num_requests_total but no throughput). An object or a list of them.
inline int sniff_inferencex_result(std::string_view head) {
    const char first = first_json_char(head);
    if (first != '{' && first != '[') return 0;
    const auto has = [&](std::string_view key) { return head.find(key) != std::string_view::npos; };
    if (!has("\"infmax_model_prefix\"") || !has("\"conc\"")) return 0;
    return has("\"tput_per_gpu\"") || has("\"num_requests_total\"") || has("\"scenario_type\"") ? 100 : 0;
}

} // namespace detail

inline constexpr log_format inferencex_result_format{
    detail::inferencex_result_name,
    "InferenceX / InferenceMAX harness results (a run's result JSON, or agg_bmk.json: a list of them)",
    &detail::sniff_inferencex_result, &detail::read_inferencex_result};

} // namespace servestat
