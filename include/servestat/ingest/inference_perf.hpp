// Reader for inference-perf's lifecycle reports (kubernetes-sigs/inference-perf, format
// "inference-perf"): `stage_N_lifecycle_metrics.json`, the tool's aggregates of one load stage, and
// `summary_lifecycle_metrics.json`, the same over the whole run. Each file is one summary run; a
// directory of stage reports is a sweep over the stages' requested rate (or concurrency), and the
// whole-run report beside them is folded into that sweep instead of being listed as one more run.
#pragma once

#include <algorithm>    // std::sort, std::stable_sort
#include <charconv>     // std::from_chars
#include <cstddef>      // std::size_t
#include <cstdint>      // std::int32_t
#include <filesystem>   // std::filesystem
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <system_error> // std::errc, std::error_code
#include <utility>      // std::move, std::pair
#include <vector>       // std::vector

#include <fmt/format.h>      // fmt::format
#include <nlohmann/json.hpp> // nlohmann::json

#include "servestat/core/natural_order.hpp"   // natural_less
#include "servestat/core/run.hpp"             // run, reported_value
#include "servestat/core/text.hpp"            // shortest_number
#include "servestat/ingest/json_document.hpp" // json_place, parse_json_documents, json_* helpers
#include "servestat/ingest/reader.hpp"        // log_format, read_options

namespace servestat {
namespace detail {

inline constexpr std::string_view inference_perf_name = "inference-perf";

// ---- What the file name says: which stage, which LoRA adapter, which run ----

// inference-perf names its reports `<prefix>stage_<N>_lifecycle_metrics`,
// `<prefix>summary_lifecycle_metrics`, `<prefix>adapter_<name>_lifecycle_metrics` and
// `<prefix>adapter_<name>_stage_<N>_lifecycle_metrics` (the prefix is storage's
// report_file_prefix, usually empty).
struct inference_perf_file_name {
    bool recognised = false;
    std::string prefix;
    std::optional<int> stage;
    std::string adapter; // empty: all requests, not one LoRA adapter's
};

inline std::optional<int> whole_number_suffix(std::string_view text) {
    if (text.empty() || text.size() > 6) return std::nullopt;
    int n = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return n;
}

inline inference_perf_file_name parse_inference_perf_file_name(std::string_view stem) {
    constexpr std::string_view suffix = "_lifecycle_metrics";
    inference_perf_file_name out;
    if (!stem.ends_with(suffix)) return out;
    stem.remove_suffix(suffix.size());
    if (const auto at = stem.rfind("stage_"); at != std::string_view::npos && (at == 0 || stem[at - 1] == '_'))
        if (const auto n = whole_number_suffix(stem.substr(at + 6))) {
            out.stage = n;
            stem = stem.substr(0, at);
            if (stem.ends_with('_')) stem.remove_suffix(1); // "adapter_x_" before "stage_3"
        }
    if (const auto at = stem.find("adapter_"); at != std::string_view::npos && at + 8 < stem.size()) {
        out.adapter = std::string(stem.substr(at + 8));
        out.prefix = std::string(stem.substr(0, at));
    } else if (out.stage) {
        out.prefix = std::string(stem);
    } else if (stem.ends_with("summary")) {
        out.prefix = std::string(stem.substr(0, stem.size() - 7));
    } else {
        return out;
    }
    out.recognised = true;
    return out;
}

// The whole-run reports of the same run (same prefix) that lie beside a stage report: the summary
// and each adapter's whole-run report. They cover the same requests as the stage reports together.
inline std::vector<std::filesystem::path> inference_perf_whole_run_reports(const std::filesystem::path& stage_file,
                                                                          const std::string& prefix) {
    namespace fs = std::filesystem;
    std::vector<fs::path> out;
    std::error_code ec;
    const fs::path dir = stage_file.parent_path().empty() ? fs::path(".") : stage_file.parent_path();
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        if (!entry.is_regular_file(ec) || entry.path().extension() != ".json") continue;
        const auto name = parse_inference_perf_file_name(entry.path().stem().string());
        if (name.recognised && !name.stage && name.prefix == prefix) out.push_back(entry.path());
    }
    std::sort(out.begin(), out.end(), [](const fs::path& a, const fs::path& b) {
        return natural_less(a.filename().string(), b.filename().string());
    });
    return out;
}

// ---- Statistics: {"mean", "min", "max", "median", "p0.1", ..., "p99.9"} ----

struct inference_perf_stat {
    std::string name; // servestat's: mean, min, max, p50, p99.9
    double order = 0; // mean, min, max, then percentiles ascending
    double value = 0;
};

inline std::optional<std::pair<std::string, double>> name_inference_perf_stat(std::string_view key) {
    if (key == "mean") return std::pair{std::string("mean"), -3.0};
    if (key == "min") return std::pair{std::string("min"), -2.0};
    if (key == "max") return std::pair{std::string("max"), -1.0};
    if (key == "median") return std::pair{std::string("p50"), 50.0};
    if (key.size() < 2 || key[0] != 'p') return std::nullopt; // rate, total, cached, ...
    double p = 0;
    const auto [end, ec] = std::from_chars(key.data() + 1, key.data() + key.size(), p);
    if (ec != std::errc() || end != key.data() + key.size() || p < 0 || p > 100) return std::nullopt;
    return std::pair{fmt::format("p{}", p), p};
}

// What a value out of its range becomes in a field that only informs, where such a value is a real
// measurement (a schedule delay below 0: the load generator's timer woke early): a note, the value
// kept. A value that no run can have in a statistic of the tool's (a negative latency, count or
// rate) still refuses the report, naming the file and the field.
struct inference_perf_informative {
    std::vector<std::string>* notes;
    std::string_view why; // what the out-of-range value means
};

// Appends "<prefix>.<stat>" for each statistic of one inference-perf distribution, in servestat's
// order. null (inference-perf's "no values") reports nothing; every value is a duration, a count
// or a size, none negative, except in a distribution that only informs (`informative`), where the
// negative ones are kept with one note naming the lowest.
inline void report_inference_perf_distribution(const nlohmann::json& dist, const json_place& place,
                                               const std::string& path, const std::string& prefix,
                                               std::string_view unit, std::vector<reported_value>& out,
                                               const inference_perf_informative* informative = nullptr) {
    if (dist.is_null()) return;
    json_object(dist, place, path);
    std::vector<inference_perf_stat> stats;
    std::size_t negative = 0;
    std::string lowest_key;
    double lowest = 0;
    for (const auto& [key, value] : dist.items()) {
        const auto name = name_inference_perf_stat(key);
        if (!name || value.is_null()) continue;
        const double x = json_number(value, place, json_path(path, key));
        if (x < 0) {
            if (!informative) place.fail(json_path(path, key), "negative value (" + shortest_number(x) + ")");
            ++negative;
            if (x < lowest) lowest = x, lowest_key = key;
        }
        stats.push_back({name->first, name->second, x});
    }
    std::stable_sort(stats.begin(), stats.end(), [](const auto& a, const auto& b) { return a.order < b.order; });
    for (const auto& s : stats) out.push_back({prefix + "." + s.name, s.value, std::string(unit)});
    if (negative > 0)
        informative->notes->push_back(fmt::format(
            "{}.{} is {} {} ({} of its statistics below 0): {}; it only informs, so it is kept as reported.", path,
            lowest_key, shortest_number(lowest), unit, negative, informative->why));
}

inline std::optional<double> inference_perf_number(const nlohmann::json& section, std::string_view key,
                                                   const json_place& place, const std::string& path) {
    const auto value = json_optional_number(json_member(section, key), place, json_path(path, key));
    if (value && *value < 0) place.fail(json_path(path, key), "negative value (" + shortest_number(*value) + ")");
    return value;
}

// ---- The report's sections ----

struct inference_perf_report {
    nlohmann::json params = nlohmann::json::object();
    std::vector<reported_value> reported;
    std::vector<std::string> notes;
    bool stage_level = false; // load_summary names the stage's requested rate
};

// The latency distributions of successes.latency, in the order they are reported: the two whose
// definitions equal servestat's under servestat's names, the others under inference-perf's.
struct inference_perf_latency {
    std::string_view key;
    std::string_view name; // empty: "inference_perf.<key>"
};

inline constexpr inference_perf_latency inference_perf_latencies[] = {
    {"time_to_first_token", "ttft"},
    {"time_per_output_token", "tpot"},
    {"request_latency", ""},
    {"inter_token_latency", ""},
    {"normalized_time_per_output_token", ""},
};

inline void read_inference_perf_load(const nlohmann::json& load, const json_place& place, inference_perf_report& out,
                                     std::optional<double>& requests) {
    const std::string path = "load_summary";
    json_object(load, place, path);
    if (const auto* count = json_member(load, "count"); count && !count->is_null())
        requests = json_count(*count, place, json_path(path, "count"));
    const auto rate = inference_perf_number(load, "requested_rate", place, path);
    const auto* concurrency = json_member(load, "concurrency");
    if (concurrency && !concurrency->is_null()) {
        out.params["concurrency"] = json_count(*concurrency, place, json_path(path, "concurrency"));
        // A concurrency stage's rate is set at run time, not asked for: kept, not a parameter.
        if (rate) out.reported.push_back({"inference_perf.requested_rate", *rate, "req/s"});
    } else if (rate) {
        if (*rate <= 0) place.fail(json_path(path, "requested_rate"), "expected a positive rate");
        out.params["request_rate"] = *rate;
    }
    out.stage_level = rate.has_value();
    if (const auto achieved = inference_perf_number(load, "achieved_rate", place, path))
        out.reported.push_back({"inference_perf.achieved_rate", *achieved, "req/s"});
    if (const auto send = inference_perf_number(load, "send_duration", place, path))
        out.reported.push_back({"inference_perf.send_duration", *send, "s"});
    // send time - scheduled time: inference-perf's timer wakes a little early as well as late, so
    // its own demo reports have delays down to -1.9 ms (sends before their scheduled time).
    const inference_perf_informative delays{&out.notes, "requests sent up to that long before their scheduled time "
                                                        "(the load generator's timer woke early)"};
    for (const std::string_view key : {"schedule_delay", "schedule_accuracy"}) // the first layout says accuracy
        if (const auto* dist = json_member(load, key))
            report_inference_perf_distribution(*dist, place, json_path(path, key), "inference_perf.schedule_delay", "s",
                                               out.reported, &delays);
}

inline void read_inference_perf_latency(const nlohmann::json& latency, const json_place& place,
                                        inference_perf_report& out) {
    const std::string path = "successes.latency";
    json_object(latency, place, path);
    for (const auto& l : inference_perf_latencies)
        if (const auto* dist = json_member(latency, l.key)) {
            const std::string prefix = l.name.empty() ? "inference_perf." + std::string(l.key) : std::string(l.name);
            report_inference_perf_distribution(*dist, place, json_path(path, l.key), prefix, "s", out.reported);
        }
}

inline void read_inference_perf_throughput(const nlohmann::json& throughput, const json_place& place,
                                           inference_perf_report& out) {
    const std::string path = "successes.throughput";
    json_object(throughput, place, path);
    // inference-perf's rates divide by max(end) - min(start) over the stage's requests, and count
    // successful requests and their tokens: servestat's rps, output_tps and total_tps.
    struct rate_name {
        std::string_view key, name, unit;
    };
    for (const auto& [key, name, unit] : {rate_name{"requests_per_sec", "rps", "req/s"},
                                          rate_name{"output_tokens_per_sec", "output_tps", "tok/s"},
                                          rate_name{"total_tokens_per_sec", "total_tps", "tok/s"},
                                          rate_name{"input_tokens_per_sec", "inference_perf.input_tokens_per_sec", "tok/s"}})
        if (const auto v = inference_perf_number(throughput, key, place, path))
            out.reported.push_back({std::string(name), *v, std::string(unit)});
}

// Token counts: `prompt_len` (older files) or `prompt_tokens` (with total/cached/uncached), and
// `output_tokens` (the server's usage counts, else the client's) or, in older files, `output_len`
// (inference-perf's tokenizer count).
inline void read_inference_perf_tokens(const nlohmann::json& successes, const json_place& place,
                                       inference_perf_report& out) {
    const std::string path = "successes";
    for (const std::string_view key : {"prompt_tokens", "prompt_len"})
        if (const auto* dist = json_member(successes, key)) {
            report_inference_perf_distribution(*dist, place, json_path(path, key), "prompt_tokens", "tokens",
                                               out.reported);
            break;
        }
    const auto* server = json_member(successes, "output_tokens");
    const auto* client = json_member(successes, "output_len");
    if (server) report_inference_perf_distribution(*server, place, json_path(path, "output_tokens"), "output_tokens",
                                                   "tokens", out.reported);
    if (client) report_inference_perf_distribution(*client, place, json_path(path, "output_len"),
                                                   server ? "inference_perf.output_len" : "output_tokens", "tokens",
                                                   out.reported);
}

inline void read_inference_perf_goodput(const nlohmann::json& goodput, const json_place& place,
                                        const std::string& path, inference_perf_report& out) {
    json_object(goodput, place, path);
    for (const auto& [key, value] : goodput.items())
        if (value.is_number())
            out.reported.push_back({"inference_perf.goodput." + key, json_number(value, place, json_path(path, key)),
                                    key.ends_with("percentage") ? "%"
                                    : key == "request_goodput"  ? "req/s"
                                    : key == "token_goodput"    ? "tok/s"
                                                                : "requests"});
}

inline std::int32_t read_inference_perf_successes(const nlohmann::json& successes, const json_place& place,
                                                  inference_perf_report& out) {
    json_object(successes, place, "successes");
    const std::int32_t ok = json_count(json_require(successes, "count", place, "successes"), place, "successes.count");
    if (const auto* latency = json_member(successes, "latency"); latency && !latency->is_null())
        read_inference_perf_latency(*latency, place, out);
    if (const auto* throughput = json_member(successes, "throughput"); throughput && !throughput->is_null())
        read_inference_perf_throughput(*throughput, place, out);
    read_inference_perf_tokens(successes, place, out);
    if (const auto* goodput = json_member(successes, "goodput_metrics"); goodput && !goodput->is_null())
        read_inference_perf_goodput(*goodput, place, "successes.goodput_metrics", out);
    return ok;
}

// "inference-perf's failures by label: 2 × 503 - Service Unavailable, 1 × Timeout".
inline void read_inference_perf_failure_labels(const nlohmann::json& labels, const json_place& place,
                                               inference_perf_report& out) {
    const std::string path = "failures.by_label";
    json_object(labels, place, path);
    std::string text;
    for (const auto& [label, entry] : labels.items()) {
        json_object(entry, place, json_path(path, label));
        const auto n = json_count(json_require(entry, "count", place, json_path(path, label)), place,
                                  json_path(json_path(path, label), "count"));
        text.append(text.empty() ? "" : ", ").append(fmt::format("{} × {}", n, label));
    }
    if (!text.empty()) out.notes.push_back("inference-perf's failures by label: " + text + ".");
}

inline std::int32_t read_inference_perf_failures(const nlohmann::json& failures, const json_place& place,
                                                 inference_perf_report& out) {
    json_object(failures, place, "failures");
    const std::int32_t failed = json_count(json_require(failures, "count", place, "failures"), place, "failures.count");
    if (const auto* latency = json_member(failures, "request_latency"))
        report_inference_perf_distribution(*latency, place, "failures.request_latency",
                                           "inference_perf.failures.request_latency", "s", out.reported);
    if (const auto* labels = json_member(failures, "by_label"); labels && !labels->is_null())
        read_inference_perf_failure_labels(*labels, place, out);
    return failed;
}

inline constexpr std::string_view inference_perf_definition_notes[] = {
    "inference-perf's request_latency runs from the send to when it had read and token-counted the whole "
    "response (after the last token, the usage chunk and [DONE]), not to the last token: not servestat's e2e, "
    "kept as inference_perf.request_latency.* (s).",
    "inference-perf's inter_token_latency pools the gaps between output tokens, where every token of a chunk "
    "carries the chunk's arrival time (gaps of 0 within a chunk); servestat's itl pools chunk gaps. They agree "
    "only when every chunk carries one token: kept as inference_perf.inter_token_latency.* (s).",
    "inference-perf's time_per_output_token is (last token − first token) / (output tokens − 1), servestat's "
    "tpot, with inference-perf's own token count (its tokenizer's, or the server's with "
    "use_server_output_tokens); normalized_time_per_output_token = request_latency / output tokens includes "
    "the TTFT and has no servestat counterpart.",
};

inline std::optional<double> inference_perf_rps(const std::vector<reported_value>& reported) {
    for (const auto& v : reported)
        if (v.name == "rps") return v.value;
    return std::nullopt;
}

inline inference_perf_report read_inference_perf_document(const json_document& doc) {
    const json_place& place = doc.place;
    if (!doc.value.is_object()) place.fail("", std::string("expected a JSON object, got ") + json_type_name(doc.value));
    inference_perf_report out;
    std::optional<double> requests;
    read_inference_perf_load(json_require(doc.value, "load_summary", place, ""), place, out, requests);
    const std::int32_t ok = read_inference_perf_successes(json_require(doc.value, "successes", place, ""), place, out);
    const std::int32_t failed = read_inference_perf_failures(json_require(doc.value, "failures", place, ""), place, out);
    std::vector<reported_value> counts{{"requests", requests.value_or(ok + failed), "requests"},
                                       {"ok", static_cast<double>(ok), "requests"},
                                       {"failed", static_cast<double>(failed), "requests"}};
    // benchmark_time_seconds (newer files) is max(end) - min(start), servestat's duration; older
    // files give it only through requests_per_sec = successes / that time.
    if (const auto seconds = inference_perf_number(doc.value, "benchmark_time_seconds", place, ""))
        counts.push_back({"duration", *seconds, "s"});
    else if (const auto rps = inference_perf_rps(out.reported); rps && *rps > 0 && ok > 0)
        counts.push_back({"duration", ok / *rps, "s"});
    if (const auto* goodput = json_member(doc.value, "goodput_metrics"); goodput && !goodput->is_null())
        read_inference_perf_goodput(*goodput, place, "goodput_metrics", out);
    out.reported.insert(out.reported.begin(), counts.begin(), counts.end());
    if (const auto* retries = json_member(doc.value, "retries"); retries && retries->is_object())
        if (const auto* n = json_member(*retries, "requests_retried"); n && n->is_number())
            out.notes.push_back(fmt::format("inference-perf retried {} requests (their latencies include the retries).",
                                            json_count(*n, place, "retries.requests_retried")));
    return out;
}

inline std::string inference_perf_label(const std::filesystem::path& file) {
    std::string stem = file.stem().string();
    if (stem.ends_with("_lifecycle_metrics")) stem.resize(stem.size() - 18);
    const std::string dir = file.parent_path().filename().string();
    return dir.empty() || dir == "." || dir == ".." ? stem : dir + "/" + stem;
}

inline std::vector<run> read_inference_perf(const std::filesystem::path& file, const read_options&) {
    const std::string text = python_words_to_json(read_json_file(file), "null");
    const auto documents = parse_json_documents(file, text);
    if (documents.size() != 1)
        throw input_error(file.string(), documents[1].place.line, "", "expected one JSON object, found several");
    inference_perf_report report = read_inference_perf_document(documents.front());
    const auto name = parse_inference_perf_file_name(file.stem().string());

    run out;
    out.meta.label = inference_perf_label(file);
    out.meta.tool = "inference-perf";
    out.meta.source = {file.string(), std::string(inference_perf_name), {}};
    out.meta.kind = run_kind::summary;
    out.meta.params = std::move(report.params);
    if (!name.adapter.empty()) out.meta.params["lora_adapter"] = name.adapter;
    out.meta.reported = std::move(report.reported);
    const std::string what = report.stage_level
                                 ? (name.stage ? fmt::format("load stage {}", *name.stage) : std::string("one load stage"))
                                 : std::string("the whole run, every stage together");
    out.meta.notes.push_back("inference-perf's own aggregates of " + what +
                             (name.adapter.empty() ? "" : " (LoRA adapter " + name.adapter + "'s requests)") +
                             ": no per-request records, so servestat cannot recompute or re-slice these statistics.");
    if (report.stage_level && name.recognised)
        for (const auto& whole : inference_perf_whole_run_reports(file, name.prefix)) {
            out.meta.source.merged.push_back(whole.string());
            out.meta.source.derived.emplace_back(whole.string(), "inference-perf's aggregate of every stage together: derived "
                                                                 "from the stage reports beside it, not a run of its own");
            out.meta.notes.push_back(whole.filename().string() +
                                     " beside it covers every stage together and is not listed as a run of its own.");
        }
    // inference-perf >= 0.7 writes its slice of an llm-d Benchmark Report beside each stage report,
    // from the same requests: read alone it is a run (llmd-benchmark-report), beside this one it
    // would list the stage twice.
    if (name.stage && name.adapter.empty()) {
        const auto partial = (file.parent_path() / fmt::format("inference-perf.partial.stage_{}.yaml", *name.stage));
        std::error_code ec;
        if (std::filesystem::is_regular_file(partial, ec)) {
            out.meta.source.merged.push_back(partial.string());
            out.meta.notes.push_back(partial.filename().string() +
                                     " beside it holds the same stage's aggregates as a Benchmark Report and is not "
                                     "listed as a run of its own.");
        }
    }
    for (const auto note : inference_perf_definition_notes) out.meta.notes.emplace_back(note);
    out.meta.notes.emplace_back("inference_perf.schedule_delay.* (s) is servestat's client_queue (send − scheduled "
                                "time) over every request, failed ones included; inference_perf.achieved_rate is "
                                "requests sent per second of the send window, not completions (rps is).");
    for (auto& note : report.notes) out.meta.notes.push_back(std::move(note));
    std::vector<run> runs;
    runs.push_back(std::move(out));
    return runs;
}

// A JSON object with inference-perf's three sections; `"latency"` (successes.latency) tells the
// lifecycle report from the Prometheus one (`stage_N_prometheus_metrics.json`, server-side
// figures, not read), and the schedule statistics from other tools' JSON.
inline int sniff_inference_perf(std::string_view head) {
    if (first_json_char(head) != '{') return 0;
    if (head.find("\"load_summary\"") == std::string_view::npos || head.find("\"successes\"") == std::string_view::npos)
        return 0;
    if (head.find("\"latency\"") != std::string_view::npos) return 100;
    const bool schedule = head.find("\"schedule_delay\"") != std::string_view::npos ||
                          head.find("\"schedule_accuracy\"") != std::string_view::npos;
    return schedule ? 90 : 0;
}

} // namespace detail

inline constexpr log_format inference_perf_format{
    detail::inference_perf_name,
    "inference-perf's lifecycle reports (stage_N_lifecycle_metrics.json, summary_lifecycle_metrics.json)",
    &detail::sniff_inference_perf, &detail::read_inference_perf};

} // namespace servestat
