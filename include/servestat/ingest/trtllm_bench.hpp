// Reader for TensorRT-LLM's offline benchmark, `trtllm-bench throughput|latency`: its console report
// (the "= ENGINE DETAILS" / "= PYTORCH BACKEND", "= REQUEST DETAILS", "= WORLD + RUNTIME
// INFORMATION", "= PERFORMANCE OVERVIEW" blocks people save from the terminal as .txt/.log, whole
// logs included), its `--report_json` file, and its per-request `--request_json` file.
//
// A report is one run_kind::summary run: the engine and world blocks are its parameters, the
// numbers its reported values. trtllm-bench's per-request statistics (tensorrt_llm/bench/
// dataclasses/statistics.py) are servestat's definitions (e2e = end − start, ttft = first token −
// start, tpot = (end − first) / (tokens − 1)) over every request, its percentiles the order
// statistic sorted[int(n·p)]: they are reported as <metric>.<stat> in seconds with a note. A log
// in which trtllm-bench never printed its report (it died: TensorRT-LLM's docs name out of memory
// as the usual cause) is still a run, with no values and a note saying so: a failed cell of a sweep
// is never dropped silently. `--request_json` (a JSON array of RequestRecord dumps, nanosecond
// timestamps) is a requests run; `--output_json` holds generated texts only and is no run.
#pragma once

#include <algorithm>   // std::min, std::all_of, std::find
#include <array>       // std::array
#include <charconv>    // std::from_chars
#include <cmath>       // std::isfinite
#include <cstddef>     // std::size_t
#include <filesystem>  // std::filesystem::path
#include <optional>    // std::optional
#include <string>      // std::string
#include <string_view> // std::string_view
#include <system_error> // std::errc
#include <utility>     // std::move
#include <vector>      // std::vector

#include <nlohmann/json.hpp> // nlohmann::json

#include "servestat/core/errors.hpp"          // input_error
#include "servestat/core/request_record.hpp"  // request_record
#include "servestat/core/request_status.hpp"  // request_status
#include "servestat/core/run.hpp"             // run, run_metadata, reported_value, run_kind, find_reported
#include "servestat/core/text.hpp"            // trim_spaces, contains_ignoring_case
#include "servestat/ingest/json_document.hpp" // parse_json_documents, read_whole_file, json_* helpers, param_number
#include "servestat/ingest/reader.hpp"        // log_format, read_options

namespace servestat {
namespace detail {

inline constexpr std::string_view trtllm_bench_name = "trtllm-bench";

inline constexpr std::string_view trtllm_percentile_note =
    "trtllm-bench's statistics cover every request (it records no failures), TTFT 0 for a request without "
    "a first token and TPOT 0 for one of a single token included; its percentiles are the order statistic "
    "sorted[int(n·p)] (numpy's 'higher' for p50/p90/p95/p99), not numpy's linear interpolation";

// Adds a reported value once: trtllm-bench prints some numbers twice (the average request
// latency is also its [Latency] AVERAGE line).
inline void add_trtllm_value(run_metadata& meta, std::string name, double value, std::string_view unit) {
    if (find_reported(meta, name)) return;
    meta.reported.push_back({std::move(name), value, std::string(unit)});
}

// ---- what each printed or saved quantity is ---------------------------------------------------

// One quantity of the report: its console label, its JSON key (in `section`), servestat's name,
// the unit kept and the factor to it.
struct trtllm_quantity {
    std::string_view label;   // console, without the colon
    std::string_view section; // JSON object holding it
    std::string_view key;     // JSON key
    std::string_view name;    // reported name
    std::string_view unit;
    double scale;
};

inline constexpr std::array<trtllm_quantity, 18> trtllm_quantities{{
    {"Number of requests", "request_info", "num_requests", "requests", "requests", 1.0},
    {"Number of concurrent requests", "request_info", "avg_num_concurrent_requests", "trtllm.avg_concurrent_requests",
     "requests", 1.0},
    {"Average Input Length (tokens)", "request_info", "avg_input_length", "prompt_tokens.mean", "tokens", 1.0},
    {"Average Output Length (tokens)", "request_info", "avg_output_length", "output_tokens.mean", "tokens", 1.0},
    {"Request Throughput (req/sec)", "performance", "request_throughput_req_s", "rps", "req/s", 1.0},
    // 0.16 and older: total output tokens / total latency, the later "Total Output Throughput".
    {"Token Throughput (tokens/sec)", "", "", "output_tps", "tok/s", 1.0},
    {"Total Output Throughput (tokens/sec)", "performance", "system_output_throughput_tok_s", "output_tps", "tok/s", 1.0},
    {"Total Token Throughput (tokens/sec)", "performance", "system_total_throughput_tok_s", "total_tps", "tok/s", 1.0},
    // Last request's end − first request's start: servestat's duration.
    {"Total Latency (ms)", "performance", "total_latency_ms", "duration", "s", 1e-3},
    {"Total Latency (seconds)", "", "", "duration", "s", 1.0},
    {"Average request latency (ms)", "performance", "avg_request_latency_ms", "e2e.mean", "s", 1e-3},
    {"Per User Output Throughput [w/ ctx] (tps/user)", "performance", "output_throughput_per_user_tok_s",
     "trtllm.output_throughput_per_user", "tok/s", 1.0},
    {"Per GPU Output Throughput (tps/gpu)", "performance", "output_throughput_per_gpu_tok_s",
     "trtllm.output_throughput_per_gpu", "tok/s", 1.0},
    {"Average time-to-first-token [TTFT] (ms)", "streaming_metrics", "avg_ttft_ms", "ttft.mean", "s", 1e-3},
    {"Average time-per-output-token [TPOT] (ms)", "streaming_metrics", "avg_tpot_ms", "tpot.mean", "s", 1e-3},
    {"Per User Output Speed (tps/user)", "streaming_metrics", "token_output_speed_tok_s", "trtllm.output_speed_per_user",
     "tok/s", 1.0},
    {"Issue Rate (req/sec)", "world_info", "issue_rate", "trtllm.issue_rate", "req/s", 1.0},
    {"Number of Sequences", "", "", "", "", 1.0}, // the dataset's size: the request count again
}};

// A block of percentiles: its console tag ("[TTFT]"), its JSON object, servestat's metric and unit.
struct trtllm_distribution {
    std::string_view tag;
    std::string_view section;
    std::string_view key;
    std::string_view metric;
    std::string_view unit;
    double scale;
};

inline constexpr std::array<trtllm_distribution, 8> trtllm_distributions{{
    {"[Latency]", "performance", "request_latency_percentiles_ms", "e2e", "s", 1e-3},
    {"[TTFT]", "streaming_metrics", "ttft_percentiles", "ttft", "s", 1e-3},
    {"[TPOT]", "streaming_metrics", "tpot_percentiles", "tpot", "s", 1e-3},
    {"[GTPS]", "streaming_metrics", "gen_tps_percentiles", "trtllm.generation_tps", "tok/s", 1.0},
    {"[DT]", "decoding_stats", "num_draft_tokens_percentiles", "trtllm.draft_tokens", "tokens", 1.0},
    {"[ADT]", "decoding_stats", "num_accepted_draft_tokens_percentiles", "trtllm.accepted_draft_tokens", "tokens", 1.0},
    {"[DAR]", "decoding_stats", "draft_acceptance_rate_percentiles", "trtllm.draft_acceptance_rate", "", 1.0},
    {"[AL]", "decoding_stats", "acceptance_length_percentiles", "trtllm.acceptance_length", "tokens", 1.0},
}};

inline std::string trtllm_lowercase(std::string s) {
    for (auto& c : s) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    return s;
}

// "MINIMUM" / "minimum" → "min", "P90" / "p90" → "p90"; nullopt for what is no statistic.
inline std::optional<std::string> trtllm_stat_name(std::string_view stat) {
    const std::string s = trtllm_lowercase(std::string(trim_spaces(stat)));
    if (s == "minimum") return "min";
    if (s == "maximum") return "max";
    if (s == "average") return "mean";
    if (s.size() > 1 && s[0] == 'p' && std::all_of(s.begin() + 1, s.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return s;
    return std::nullopt;
}

// The parameters of the engine and world blocks: console label, JSON key, parameter name.
struct trtllm_setting {
    std::string_view label;
    std::string_view key;
    std::string_view param;
};

inline constexpr std::array<trtllm_setting, 15> trtllm_settings{{
    {"Model Path", "model_path", "model_path"},
    {"Engine Directory", "engine_dir", "engine_dir"},
    {"Dtype", "dtype", "dtype"},
    {"KV Cache Dtype", "kv_cache_dtype", "kv_cache_dtype"},
    {"Quantization", "quantization", "quantization"},
    {"Max Input Length", "max_input_length", "max_input_len"},
    {"Max Sequence Length", "max_sequence_length", "max_seq_len"},
    {"TP Size", "tp_size", "tensor_parallel_size"},
    {"PP Size", "pp_size", "pipeline_parallel_size"},
    {"EP Size", "ep_size", "expert_parallel_size"},
    {"", "world_size", "world_size"},
    {"Max Runtime Batch Size", "max_batch_size", "max_batch_size"},
    {"Max Runtime Tokens", "max_num_tokens", "max_num_tokens"},
    {"Scheduling Policy", "scheduling_policy", "scheduling_policy"},
    {"KV Memory Percentage", "kv_cache_percentage", "kv_cache_memory_fraction"},
}};

// A printed setting as a parameter: "None" (Python's) is no value, numbers become numbers.
inline std::optional<nlohmann::json> trtllm_param_text(std::string_view text) {
    text = trim_spaces(text);
    if (text.empty() || text == "None" || text == "N/A") return std::nullopt;
    double x = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), x);
    if (ec == std::errc() && end == text.data() + text.size() && std::isfinite(x)) return param_number(x);
    return nlohmann::json(std::string(text));
}

// ---- the console report -----------------------------------------------------------------------

inline bool is_trtllm_rule(std::string_view line) {
    line = trim_spaces(line);
    return line.size() >= 20 && line.find_first_not_of('=') == std::string_view::npos;
}

// One "Key: value" line of a block, with where it was.
struct trtllm_line {
    std::string section;
    std::string key;
    std::string value;
    std::size_t line = 0;
};

// The lines of the report's blocks: a block is a rule, "= NAME", a rule, then its lines up to the
// next rule. Log lines outside the blocks (the executor's, MPI's, the shutdown) are passed over, as
// are lines inside a block that are no "Key: value" (another rank's log line printed in between).
inline std::vector<trtllm_line> trtllm_report_lines(std::string_view text, std::vector<std::string>& sections) {
    std::vector<std::string_view> lines;
    for (std::size_t pos = 0; pos <= text.size();) {
        auto end = text.find('\n', pos);
        if (end == std::string_view::npos) end = text.size();
        std::string_view line = text.substr(pos, end - pos);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        lines.push_back(line);
        pos = end + 1;
    }
    std::vector<trtllm_line> out;
    std::string section;
    bool inside = false;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string_view line = trim_spaces(lines[i]);
        if (is_trtllm_rule(line)) {
            const std::string_view name = i + 1 < lines.size() ? trim_spaces(lines[i + 1]) : std::string_view();
            inside = name.starts_with("= ") && i + 2 < lines.size() && is_trtllm_rule(lines[i + 2]);
            if (inside) {
                section = std::string(trim_spaces(name.substr(2)));
                sections.push_back(section);
                i += 2;
            }
            continue;
        }
        if (!inside || line.empty() || line.starts_with("-- ")) continue;
        const auto colon = line.find(':');
        if (colon == std::string_view::npos) {
            // MACHINE DETAILS is one line: "<GPU>, memory 79.19 GB, 2.62 GHz".
            if (section == "MACHINE DETAILS") out.push_back({section, "", std::string(line), i + 1});
            continue;
        }
        out.push_back({section, std::string(trim_spaces(line.substr(0, colon))),
                       std::string(trim_spaces(line.substr(colon + 1))), i + 1});
    }
    return out;
}

inline double trtllm_text_number(const trtllm_line& l, const std::string& file) {
    std::string_view s = l.value;
    double x = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
    if (s.empty() || ec != std::errc() || end != s.data() + s.size() || !std::isfinite(x))
        throw input_error(file, l.line, l.key, "expected a number, got \"" + l.value + "\"");
    return x;
}

// "[TTFT] P50" → the distribution and the statistic; nullopt for any other key.
inline std::optional<std::pair<const trtllm_distribution*, std::string>> trtllm_tagged(std::string_view key) {
    for (const auto& d : trtllm_distributions) {
        if (!key.starts_with(d.tag)) continue;
        if (const auto stat = trtllm_stat_name(key.substr(d.tag.size()))) return std::pair{&d, *stat};
    }
    return std::nullopt;
}

// The DATASET DETAILS table's "AVG:  1024.0000  128.0000  1152.0000" row: the mean input and
// output lengths the dataset asked for.
inline void read_trtllm_dataset_row(const trtllm_line& l, run_metadata& meta) {
    if (l.key != "AVG") return;
    std::string_view rest = l.value;
    std::array<double, 2> lengths{};
    for (std::size_t k = 0; k < 2; ++k) {
        rest = trim_spaces(rest);
        const auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), lengths[k]);
        if (ec != std::errc()) return;
        rest.remove_prefix(static_cast<std::size_t>(end - rest.data()));
    }
    meta.params["isl"] = param_number(lengths[0]);
    meta.params["osl"] = param_number(lengths[1]);
}

inline void read_trtllm_text_line(const trtllm_line& l, const std::string& file, run_metadata& meta) {
    if (l.section == "MACHINE DETAILS") {
        const std::string gpu(l.value.substr(0, l.value.find(", memory")));
        if (gpu != "No GPU info available") meta.params["gpu"] = gpu;
        return;
    }
    if (l.section == "DATASET DETAILS") {
        if (l.key == "Dataset Path") meta.workload = l.value;
        read_trtllm_dataset_row(l, meta);
        return;
    }
    if (l.key == "Model") {
        meta.model = l.value;
        return;
    }
    if (l.key == "TensorRT-LLM Version" || l.key == "TensorRT LLM Version") {
        meta.tool = "trtllm-bench " + l.value;
        return;
    }
    for (const auto& q : trtllm_quantities)
        if (l.key == q.label) {
            if (!q.name.empty()) add_trtllm_value(meta, std::string(q.name), trtllm_text_number(l, file) * q.scale, q.unit);
            return;
        }
    if (const auto tagged = trtllm_tagged(l.key)) {
        const auto& [d, stat] = *tagged;
        add_trtllm_value(meta, std::string(d->metric) + "." + stat, trtllm_text_number(l, file) * d->scale, d->unit);
        return;
    }
    for (const auto& s : trtllm_settings)
        if (!s.label.empty() && l.key == s.label) {
            std::string_view value = l.value;
            if (s.key == "kv_cache_percentage" && value.ends_with('%')) { // "90.00%" → 0.9, as the JSON
                value.remove_suffix(1);
                const auto v = trtllm_param_text(value);
                if (v && v->is_number()) meta.params[std::string(s.param)] = param_number(v->get<double>() / 100);
                return;
            }
            if (const auto v = trtllm_param_text(value)) meta.params[std::string(s.param)] = *v;
            return;
        }
}

// What a log without a report still tells: which benchmark started, and its last error line.
inline std::string trtllm_failure_note(std::string_view text) {
    std::string note = "failed: trtllm-bench printed no report (the benchmark stopped before its results; "
                       "TensorRT-LLM's docs name running out of memory as the usual cause)";
    std::string last_error;
    for (std::size_t pos = 0; pos < text.size();) {
        auto end = text.find('\n', pos);
        if (end == std::string_view::npos) end = text.size();
        const std::string_view line = trim_spaces(text.substr(pos, end - pos));
        pos = end + 1;
        for (const std::string_view word : {"out of memory", "OutOfMemory", "[E]", "[ERROR]", "Error:", "Traceback"})
            if (contains_ignoring_case(line, word)) {
                last_error = std::string(line.substr(0, 300));
                break;
            }
    }
    if (!last_error.empty()) note.append("; its last error line: ").append(last_error);
    return note;
}

inline run read_trtllm_text(const std::filesystem::path& file, std::string_view text) {
    run out;
    auto& meta = out.meta;
    meta.source = {file.string(), std::string(trtllm_bench_name)};
    meta.tool = "trtllm-bench";
    meta.label = file.stem().string();
    meta.kind = run_kind::summary;
    meta.shared_clock = false;
    for (const std::string_view kind : {"throughput", "latency"})
        if (text.find("Preparing to run " + std::string(kind) + " benchmark") != std::string_view::npos)
            meta.params["benchmark"] = std::string(kind);
    std::vector<std::string> sections;
    const auto lines = trtllm_report_lines(text, sections);
    for (const auto& l : lines) read_trtllm_text_line(l, file.string(), meta);
    const bool engine = std::find(sections.begin(), sections.end(), "ENGINE DETAILS") != sections.end();
    const bool pytorch = std::find(sections.begin(), sections.end(), "PYTORCH BACKEND") != sections.end();
    if (engine || pytorch) meta.params["backend"] = engine ? "tensorrt" : "pytorch";
    if (meta.reported.empty()) {
        meta.notes.push_back(trtllm_failure_note(text));
        return out;
    }
    meta.notes.push_back("trtllm-bench's console report: its own aggregates only, printed to 4 decimals "
                         "(ms converted to s); no per-request data");
    meta.notes.emplace_back(trtllm_percentile_note);
    return out;
}

// ---- the --report_json file -------------------------------------------------------------------

inline void read_trtllm_json_settings(const nlohmann::json& report, const json_place& place, run_metadata& meta) {
    if (const auto* engine = json_member(report, "engine"); engine && engine->is_object()) {
        if (const auto* model = json_member(*engine, "model"); model && model->is_string()) meta.model = model->get<std::string>();
        if (const auto* version = json_member(*engine, "version"); version && version->is_string())
            meta.tool = "trtllm-bench " + version->get<std::string>();
        // "TRT", "Pytorch", "_autodeploy": named as the console report's blocks are.
        if (const auto* backend = json_member(*engine, "backend"); backend && backend->is_string())
            meta.params["backend"] = backend->get<std::string>() == "TRT" ? std::string("tensorrt")
                                                                         : trtllm_lowercase(backend->get<std::string>());
    }
    for (const char* section : {"engine", "world_info"}) {
        const auto* block = json_member(report, section);
        if (!block || block->is_null()) continue;
        json_object(*block, place, section);
        for (const auto& s : trtllm_settings) {
            const auto* v = json_member(*block, s.key);
            if (!v || v->is_null() || v->is_object() || v->is_array()) continue;
            if (v->is_string()) {
                if (const auto p = trtllm_param_text(v->get<std::string>())) meta.params[std::string(s.param)] = *p;
            } else if (v->is_number()) {
                meta.params[std::string(s.param)] = param_number(json_number(*v, place, json_path(section, s.key)));
            } else {
                meta.params[std::string(s.param)] = *v;
            }
        }
    }
    if (const auto* machine = json_member(report, "machine"); machine && machine->is_object())
        if (const auto* name = json_member(*machine, "name"); name && name->is_string()) meta.params["gpu"] = name->get<std::string>();
    if (const auto* decoding = json_member(report, "decoding_stats"); decoding && decoding->is_object())
        if (const auto* mode = json_member(*decoding, "mode"); mode && mode->is_string())
            meta.params["decoding_mode"] = mode->get<std::string>();
    if (const auto* dataset = json_member(report, "dataset"); dataset && dataset->is_object()) {
        for (const auto& [key, param] : {std::pair{"avg_isl", "isl"}, std::pair{"avg_osl", "osl"}})
            if (const auto* v = json_member(*dataset, key); v && v->is_number())
                meta.params[param] = param_number(json_number(*v, place, json_path("dataset", key)));
        if (const auto* path = json_member(*dataset, "dataset_path"); path && path->is_string())
            meta.workload = path->get<std::string>();
    }
}

inline void read_trtllm_json_values(const nlohmann::json& report, const json_place& place, run_metadata& meta) {
    for (const auto& q : trtllm_quantities) {
        if (q.section.empty() || q.name.empty()) continue;
        const auto* block = json_member(report, q.section);
        const auto* v = block ? json_member(*block, q.key) : nullptr;
        if (!v || v->is_null()) continue;
        add_trtllm_value(meta, std::string(q.name), json_number(*v, place, json_path(std::string(q.section), q.key)) * q.scale,
                         q.unit);
    }
    for (const auto& d : trtllm_distributions) {
        const auto* block = json_member(report, d.section);
        const auto* stats = block ? json_member(*block, d.key) : nullptr;
        if (!stats || stats->is_null()) continue;
        const std::string path = json_path(std::string(d.section), d.key);
        json_object(*stats, place, path);
        for (const auto& [key, v] : stats->items())
            if (const auto stat = trtllm_stat_name(key))
                add_trtllm_value(meta, std::string(d.metric) + "." + *stat, json_number(v, place, json_path(path, key)) * d.scale,
                                 d.unit);
    }
    // NVML energy (TensorRT-LLM PR #11397): joules, watts, tokens/s per watt, in the tool's units.
    if (const auto* energy = json_member(report, "energy"); energy && energy->is_object())
        for (const auto& [key, v] : energy->items())
            if (v.is_number()) add_trtllm_value(meta, "trtllm.energy." + key, v.get<double>(), "");
}

inline run read_trtllm_report(const std::filesystem::path& file, const nlohmann::json& report, const json_place& place) {
    json_object(report, place, "");
    if (!json_member(report, "performance") && !json_member(report, "request_info"))
        place.fail("performance", "missing required field (not a trtllm-bench report)");
    run out;
    auto& meta = out.meta;
    meta.source = {file.string(), std::string(trtllm_bench_name)};
    meta.tool = "trtllm-bench";
    meta.label = file.stem().string();
    meta.kind = run_kind::summary;
    meta.shared_clock = false;
    read_trtllm_json_settings(report, place, meta);
    read_trtllm_json_values(report, place, meta);
    meta.notes.push_back("trtllm-bench's --report_json: its own aggregates only (ms converted to s); no per-request data");
    meta.notes.emplace_back(trtllm_percentile_note);
    if (!json_member(report, "streaming_metrics"))
        meta.notes.push_back("no streaming_metrics (run without --streaming): trtllm-bench measured no TTFT or TPOT");
    return out;
}

// ---- the --request_json file ------------------------------------------------------------------

// One RequestRecord: timestamps in nanoseconds of a monotonic clock (only differences mean
// anything); first_token_timestamp -1 or 0 when none was seen.
inline void read_trtllm_request(const nlohmann::json& r, const json_place& place, const std::string& path, double origin,
                                request_record& out) {
    json_object(r, place, path);
    const auto ns = [&](const char* key) {
        return json_number(json_require(r, key, place, path), place, json_path(path, key));
    };
    const double start = ns("start_timestamp"), end = ns("end_timestamp");
    const double first = json_member(r, "first_token_timestamp") ? ns("first_token_timestamp") : -1;
    out.t_sent = (start - origin) * 1e-9;
    if (end < start) place.fail(json_path(path, "end_timestamp"), "before start_timestamp");
    out.t_end = (end - origin) * 1e-9;
    if (first > 0) {
        if (first < start || first > end) place.fail(json_path(path, "first_token_timestamp"), "outside the request");
        out.t_first = (first - origin) * 1e-9;
    }
    out.prompt_tokens = json_optional_count(json_member(r, "num_input_tokens"), place, json_path(path, "num_input_tokens"));
    const auto* tokens = json_member(r, "output_tokens") ? json_member(r, "output_tokens") : json_member(r, "num_output_tokens");
    out.output_tokens = json_optional_count(tokens, place, json_path(path, "output_tokens"));
    const auto errors = json_optional_count(json_member(r, "error_tokens"), place, json_path(path, "error_tokens"));
    out.status = errors && *errors > 0 ? request_status::error : request_status::ok;
    if (out.status == request_status::error) out.error = "trtllm-bench counted " + std::to_string(*errors) + " error response(s)";
}

inline run read_trtllm_requests(const std::filesystem::path& file, const nlohmann::json& records, const json_place& place,
                                const read_options& options) {
    run out;
    out.skipped.unit = skipped_unit::record;
    auto& meta = out.meta;
    meta.source = {file.string(), std::string(trtllm_bench_name)};
    meta.tool = "trtllm-bench";
    meta.label = file.stem().string();
    double origin = 0;
    bool first = true;
    for (std::size_t i = 0; i < records.size(); ++i)
        if (const auto* s = json_member(records[i], "start_timestamp"); s && s->is_number()) {
            origin = first ? s->get<double>() : std::min(origin, s->get<double>());
            first = false;
        }
    request_record record;
    for (std::size_t i = 0; i < records.size(); ++i) {
        try {
            record.clear();
            read_trtllm_request(records[i], place, json_path("", i), origin, record);
            out.requests.push_back(record);
        } catch (const input_error& e) {
            if (!options.skip_bad) throw;
            out.skipped.add(e.what());
        }
    }
    meta.notes.push_back("trtllm-bench's --request_json: start, first-token and end timestamps in ns of its monotonic "
                         "clock, taken in-process (no HTTP): t_sent = start − the earliest start");
    return out;
}

// ---- the reader -------------------------------------------------------------------------------

inline bool is_trtllm_requests_head(std::string_view head) {
    auto has = [head](std::string_view key) { return head.find(key) != std::string_view::npos; };
    return first_json_char(head) == '[' && has("\"start_timestamp\"") && has("\"end_timestamp\"") &&
           has("\"num_input_tokens\"") && has("\"first_token_timestamp\"");
}

// Whether text starts a JSON document: '{', or '[' before '{' or ']'. A console log starts with '['
// too ("[TensorRT-LLM] TensorRT-LLM version: 0.16.0").
inline bool starts_trtllm_json(std::string_view text) {
    const char first = first_json_char(text);
    if (first == '{') return true;
    if (first != '[') return false;
    const auto at = text.find('[');
    const auto next = text.find_first_not_of(" \t\r\n", at + 1);
    return next != std::string_view::npos && (text[next] == '{' || text[next] == ']');
}

inline std::vector<run> read_trtllm_bench(const std::filesystem::path& file, const read_options& options) {
    const std::string text = read_whole_file(file);
    if (!starts_trtllm_json(text)) return {read_trtllm_text(file, text)};
    const auto documents = parse_json_documents(file, text);
    std::vector<run> runs;
    for (const auto& [value, place] : documents) {
        if (value.is_array()) runs.push_back(read_trtllm_requests(file, value, place, options));
        else runs.push_back(read_trtllm_report(file, value, place));
        if (documents.size() > 1) {
            runs.back().meta.source.line = place.line;
            runs.back().meta.label += "#" + std::to_string(runs.size());
        }
    }
    return runs;
}

// The console report's block titles (sure), a whole log of trtllm-bench before its report (its
// "Preparing to run … benchmark" line: a run that may have failed), the --report_json object's
// sections, or the --request_json records. TensorRT-LLM's server logs share its version line but
// never the benchmark's lines.
inline int sniff_trtllm_bench(std::string_view head) {
    auto has = [head](std::string_view key) { return head.find(key) != std::string_view::npos; };
    if (starts_trtllm_json(head)) {
        if (first_json_char(head) == '[') return is_trtllm_requests_head(head) ? 100 : 0;
        return has("\"world_info\"") && has("\"request_info\"") && (has("\"performance\"") || has("\"engine\"")) ? 100 : 0;
    }
    const bool blocks = has("\n= PERFORMANCE OVERVIEW") || has("\n= WORLD + RUNTIME INFORMATION") || has("\n= STATISTICS");
    const bool engine = has("\n= ENGINE DETAILS") || has("\n= PYTORCH BACKEND") || has("\n= REQUEST DETAILS");
    if (blocks && (engine || has("Issue Rate (req/sec):") || has("Request Throughput (req/sec):"))) return 100;
    if (has("[TRT-LLM] [I] Preparing to run throughput benchmark") || has("[TRT-LLM] [I] Preparing to run latency benchmark"))
        return 80;
    return 0;
}

} // namespace detail

inline constexpr log_format trtllm_bench_format{
    detail::trtllm_bench_name,
    "TensorRT-LLM trtllm-bench report (console text or --report_json: aggregates) or --request_json (per request)",
    &detail::sniff_trtllm_bench, &detail::read_trtllm_bench};

} // namespace servestat
