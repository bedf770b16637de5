// Reader for the result lines of SGLang's serving benchmark (`python -m sglang.bench_serving
// --output-file F [--output-details]`, since 2025 also `python -m sglang.benchmark.serving`): each run
// appends one JSON object as one line to F, so one file holds as many runs as were appended. The
// refactored benchmark (python/sglang/benchmark/metrics.py) spells the token sums total_input /
// total_output, adds *_throughput_retokenized, and nests the --output-details arrays under "details".
//
// A line holds the run's settings (backend, dataset_name, request_rate, max_concurrency,
// sharegpt_output_len, random_input_len, random_output_len, random_range_ratio; `tag` and a large
// server_info in newer versions), SGLang's aggregates (duration, completed, token totals,
// throughputs, mean/median/std/p{90,95,99}_{e2e_latency,ttft,tpot,itl}_ms, concurrency,
// accept_length) and, with --output-details, parallel per-request arrays: input_lens,
// output_lens, ttfts (s), itls (lists of s), generated_texts, errors, and with --cache-report
// cached_tokens. Those arrays are vLLM's (bench_serving was adapted from vLLM's
// benchmark_serving.py) and are read by the vLLM reader's code; SGLang never saves latencies or
// start times, so a request has no end and there is no shared clock.
#pragma once

#include <cmath>       // std::isinf
#include <cstddef>     // std::size_t
#include <filesystem>  // std::filesystem::path
#include <optional>    // std::optional
#include <string>      // std::string
#include <string_view> // std::string_view
#include <utility>     // std::move, std::pair
#include <vector>      // std::vector

#include <nlohmann/json.hpp> // nlohmann::json

#include "servestat/core/errors.hpp"           // input_error
#include "servestat/core/request_record.hpp"   // request_record
#include "servestat/core/run.hpp"              // run, run_metadata, run_kind
#include "servestat/core/run_names.hpp"        // name_runs_by_params
#include "servestat/ingest/json_document.hpp"  // parse_json_documents, read_json_file, json_* helpers, param_number
#include "servestat/ingest/reader.hpp"         // log_format, read_options
#include "servestat/ingest/vllm_bench_json.hpp" // read_vllm_arrays, read_vllm_request, vllm_to_record, vllm_percentile_of

namespace servestat {
namespace detail {

inline constexpr std::string_view sglang_bench_serving_name = "sglang-bench-serving";

// SGLang's per-request quantities (`<stat>_<key>_ms`) and servestat's metric for each. The
// definitions agree: e2e_latency runs from the send to the last chunk, ttft to the first chunk
// carrying text, tpot is (e2e - ttft) / (output_len - 1), itl the gaps between text chunks.
inline constexpr std::pair<std::string_view, std::string_view> sglang_metrics[] = {
    {"e2e_latency", "e2e"}, {"ttft", "ttft"}, {"tpot", "tpot"}, {"itl", "itl"}};

struct sglang_run_value {
    std::string_view key, reported, unit;
};

inline constexpr sglang_run_value sglang_run_values[] = {
    {"duration", "duration", "s"},
    {"completed", "ok", "requests"},
    {"total_input_tokens", "sglang.total_input_tokens", "tokens"},
    {"total_input", "sglang.total_input_tokens", "tokens"}, // the refactored benchmark's names, same sums
    {"total_output", "sglang.total_output_tokens", "tokens"},
    {"total_output_retokenized", "sglang.total_output_tokens_retokenized", "tokens"},
    {"total_input_text_tokens", "sglang.total_input_text_tokens", "tokens"},
    {"total_input_vision_tokens", "sglang.total_input_vision_tokens", "tokens"},
    {"total_output_tokens", "sglang.total_output_tokens", "tokens"},
    {"total_output_tokens_retokenized", "sglang.total_output_tokens_retokenized", "tokens"},
    {"request_throughput", "rps", "req/s"},
    {"input_throughput", "sglang.input_throughput", "tok/s"},
    {"output_throughput", "output_tps", "tok/s"},
    {"total_throughput", "total_tps", "tok/s"},
    {"output_throughput_retokenized", "sglang.output_throughput_retokenized", "tok/s"},
    {"total_throughput_retokenized", "sglang.total_throughput_retokenized", "tok/s"},
    // The mean number of requests in flight: the sum of e2e latencies / duration.
    {"concurrency", "sglang.concurrency", "requests"},
    {"accept_length", "sglang.accept_length", "tokens"},
    {"max_output_tokens_per_s", "sglang.max_output_tokens_per_s", "tok/s"},
    {"max_concurrent_requests", "sglang.max_concurrent_requests", "requests"},
};

// The run settings SGLang writes; the random_* ones only mean something for a random dataset
// (SGLang writes their defaults whatever the dataset), sharegpt_output_len only for sharegpt.
inline constexpr std::string_view sglang_settings[] = {"backend",          "dataset_name",      "request_rate",
                                                       "max_concurrency",  "num_prompts",       "sharegpt_output_len",
                                                       "random_input_len", "random_output_len", "random_range_ratio"};

inline bool is_sglang_random_setting(std::string_view key) { return key.starts_with("random_"); }

inline void add_sglang_value(run_metadata& meta, const nlohmann::json& object, std::string_view key, std::string name,
                             std::string_view unit, double scale, const json_place& place) {
    const auto* v = json_member(object, key);
    // null (also Python's NaN) and Infinity are not reported; the document's notes name them.
    if (!v || v->is_null() || (v->is_number_float() && std::isinf(v->get<double>()))) return;
    meta.reported.push_back({std::move(name), json_number(*v, place, std::string(key)) * scale, std::string(unit)});
}

inline void read_sglang_summary(const nlohmann::json& object, const json_place& place, run_metadata& meta) {
    for (const auto& v : sglang_run_values) add_sglang_value(meta, object, v.key, std::string(v.reported), v.unit, 1.0, place);
    if (const auto* completed = json_member(object, "completed");
        completed && completed->is_number() && completed->get<double>() == 0) {
        meta.notes.push_back("no request completed: SGLang's latency statistics are placeholders (np.mean(0) and the "
                             "like) and are not reported");
        return;
    }
    for (const auto& [key, name] : sglang_metrics) {
        const std::string middle = std::string("_").append(key).append("_ms");
        const std::string prefix = std::string(name).append(".");
        add_sglang_value(meta, object, "mean" + middle, prefix + "mean", "s", 1e-3, place);
        add_sglang_value(meta, object, "median" + middle, prefix + "p50", "s", 1e-3, place);
        for (const auto& [k, value] : object.items())
            if (const auto p = vllm_percentile_of(k, key); p && *p != 50)
                add_sglang_value(meta, object, k, prefix + k.substr(0, k.size() - middle.size()), "s", 1e-3, place);
        add_sglang_value(meta, object, "max" + middle, prefix + "max", "s", 1e-3, place);
        // np.std: the population standard deviation, not servestat's (ddof 1), so tool-named.
        add_sglang_value(meta, object, "std" + middle, "sglang." + prefix + "std", "s", 1e-3, place);
    }
    if (const auto* cache = json_member(object, "cache_report"); cache && cache->is_object()) {
        add_sglang_value(meta, *cache, "total_cached_tokens", "sglang.cache_report.total_cached_tokens", "tokens", 1.0, place);
        add_sglang_value(meta, *cache, "cache_hit_rate_pct", "sglang.cache_report.cache_hit_rate_pct", "%", 1.0, place);
    }
}

inline void read_sglang_settings(const nlohmann::json& object, const json_place& place, run_metadata& meta) {
    std::string dataset;
    if (const auto* d = json_member(object, "dataset_name"); d && d->is_string()) dataset = d->get<std::string>();
    const bool random = dataset.starts_with("random") || dataset == "image";
    bool skipped_random = false;
    for (const std::string_view key : sglang_settings) {
        const auto* v = json_member(object, key);
        if (!v || v->is_null()) continue;
        if (is_sglang_random_setting(key) && !random) {
            skipped_random = true;
            continue;
        }
        if (key == "sharegpt_output_len" && dataset != "sharegpt") continue;
        const std::string k(key);
        if (key == "request_rate") {
            // A number, Python's Infinity (every request at once) or "trace" (a trace's timestamps).
            if (v->is_string()) meta.params[k] = json_string(*v, place, k);
            else {
                if (!v->is_number()) place.fail(k, std::string("expected a number, got ") + json_type_name(*v));
                if (v->get<double>() <= 0) place.fail(k, "must be greater than 0");
                meta.params[k] = param_number(v->get<double>());
            }
        } else if (key == "max_concurrency" || key == "num_prompts" || key == "random_input_len" ||
                   key == "random_output_len" || key == "sharegpt_output_len") {
            meta.params[k] = json_count(*v, place, k);
        } else if (v->is_number()) {
            meta.params[k] = param_number(json_number(*v, place, k));
        } else {
            meta.params[k] = json_string(*v, place, k);
        }
    }
    if (skipped_random)
        meta.notes.push_back("random_input_len, random_output_len and random_range_ratio are not parameters of this run: "
                             "SGLang writes their defaults whatever the dataset (here " +
                             (dataset.empty() ? std::string("unnamed") : dataset) + ")");
    if (meta.params.contains("request_rate") && meta.params["request_rate"] == "inf")
        meta.notes.push_back("request_rate inf: every request was sent at once (limited by max_concurrency when set), "
                             "with no arrival process");
    if (const auto* tag = json_member(object, "tag"); tag && tag->is_string() && !tag->get_ref<const std::string&>().empty())
        meta.label = tag->get<std::string>();
    if (const auto* info = json_member(object, "server_info"); info && info->is_object()) {
        for (const char* key : {"served_model_name", "model_path"})
            if (const auto* m = json_member(*info, key); m && m->is_string() && !m->get_ref<const std::string&>().empty()) {
                meta.model = m->get<std::string>();
                break;
            }
    }
}

// Where the per-request arrays are: the refactored benchmark (sglang.benchmark.serving's metrics.py)
// nests them under "details"; bench_serving puts them beside the aggregates. nullptr: none.
inline const nlohmann::json* sglang_details(const nlohmann::json& object, const json_place& place) {
    if (const auto* d = json_member(object, "details"); d && !d->is_null()) return &json_object(*d, place, "details");
    const bool flat = json_member(object, "ttfts") || json_member(object, "errors") || json_member(object, "input_lens");
    return flat ? &object : nullptr;
}

// The vLLM helpers name a field by its key ("ttfts[3]"): under "details" it is "details.ttfts[3]".
template <class Read>
auto sglang_named_within(const nlohmann::json& object, const nlohmann::json& arrays, Read&& read) {
    if (&arrays == &object) return read();
    try {
        return read();
    } catch (const input_error& e) {
        throw input_error(e.file(), e.line(), json_path("details", e.field()), e.reason());
    }
}

// --output-details: one record per request, from the arrays SGLang shares with vLLM (in `arrays`:
// the result line itself, or its "details").
inline void read_sglang_requests(const nlohmann::json& object, const nlohmann::json& arrays, const json_place& place,
                                 const read_options& options, run& out) {
    const vllm_arrays a = sglang_named_within(object, arrays, [&] { return read_vllm_arrays(arrays, place); });
    const nlohmann::json* cached = nullptr;
    if (const auto* c = json_member(arrays, "cached_tokens"); c && !c->is_null()) {
        json_array(*c, place, "cached_tokens");
        if (c->size() != a.size)
            place.fail("cached_tokens", "has " + std::to_string(c->size()) + " elements but the other per-request arrays have " +
                                            std::to_string(a.size));
        cached = c;
    }
    auto& meta = out.meta;
    std::size_t ok = 0, unmeasured_ttft = 0;
    request_record record;
    for (std::size_t i = 0; i < a.size; ++i) {
        try {
            const vllm_request v = sglang_named_within(object, arrays, [&] { return read_vllm_request(a, i, place); });
            record.clear();
            vllm_to_record(v, std::nullopt, record);
            // SGLang leaves ttft at 0.0 when no chunk carried text (a backend that does not stream).
            if (v.ok && v.ttft && *v.ttft == 0) {
                record.t_first.reset();
                ++unmeasured_ttft;
            }
            if (cached) record.cached_tokens = json_optional_count(&(*cached)[i], place, json_path("cached_tokens", i));
            ok += v.ok;
            out.requests.push_back(record);
        } catch (const input_error& e) {
            if (!options.skip_bad) throw;
            out.skipped.add(e.what());
        }
    }
    meta.shared_clock = false;
    meta.notes.push_back("SGLang saves no start times and no latencies: every request is placed at t_sent = 0 with no "
                         "shared clock, so e2e, decode and tpot are unavailable per request (SGLang's own e2e and tpot "
                         "statistics are kept as reported) and the run's rates use SGLang's reported duration");
    if (a.ttfts)
        meta.notes.push_back("SGLang's TTFT ends at the first chunk carrying text, as servestat's: t_first = ttft");
    if (a.itls)
        meta.notes.push_back("itl holds SGLang's gaps between text chunks (not tokens), pooled over requests as "
                             "servestat's itl");
    if (unmeasured_ttft > 0)
        meta.notes.push_back(std::to_string(unmeasured_ttft) + " successful request(s) have ttft 0.0, SGLang's value when "
                             "no chunk carried text (a backend that does not stream): their TTFT is unavailable");
    if (const auto* completed = json_member(object, "completed");
        completed && completed->is_number() && out.skipped.count == 0 && completed->get<double>() != static_cast<double>(ok))
        meta.notes.push_back("SGLang counted " + completed->dump() + " completed requests, but " + std::to_string(ok) +
                             " have an empty error text (a request that failed with an empty HTTP reason counts as "
                             "successful here)");
}

inline run read_sglang_run(const std::filesystem::path& file, const nlohmann::json& object, const json_place& place,
                           const read_options& options) {
    json_object(object, place, "");
    if (!json_member(object, "completed") && !json_member(object, "duration"))
        place.fail("completed", "missing required field (not an SGLang bench_serving result)");
    run out;
    out.skipped.unit = skipped_unit::record;
    auto& meta = out.meta;
    meta.source = {file.string(), std::string(sglang_bench_serving_name)};
    meta.tool = "sglang-bench-serving";
    meta.label = file.stem().string();
    read_sglang_settings(object, place, meta);
    read_sglang_summary(object, place, meta);
    if (json_member(object, "total_input") || json_member(object, "details"))
        meta.notes.push_back("written by SGLang's refactored benchmark (python -m sglang.benchmark.serving): its "
                             "total_input / total_output are the token sums bench_serving calls total_input_tokens / "
                             "total_output_tokens, and --output-details nests the per-request arrays under details");
    meta.notes.push_back("SGLang's std is numpy's population std (ddof 0), reported as sglang.<metric>.std; "
                         "servestat's default is ddof 1 (use --ddof 0 to compare)");
    if (const auto* arrays = sglang_details(object, place)) {
        read_sglang_requests(object, *arrays, place, options, out);
    } else {
        meta.kind = run_kind::summary;
        meta.notes.push_back("no per-request arrays (saved without --output-details): only SGLang's own aggregates are "
                             "available");
    }
    return out;
}

inline std::vector<run> read_sglang_bench_serving(const std::filesystem::path& file, const read_options& options) {
    const std::string text = read_json_file(file);
    const auto documents = parse_json_documents(file, text);
    std::vector<run> runs;
    runs.reserve(documents.size());
    for (const auto& [object, place] : documents) {
        runs.push_back(read_sglang_run(file, object, place, options));
        const auto& notes = place.nonfinite_notes();
        runs.back().meta.notes.insert(runs.back().meta.notes.end(), notes.begin(), notes.end());
        if (documents.size() > 1) runs.back().meta.source.line = place.line;
    }
    // Appended runs share the file's name: each is named by the settings that set it apart.
    name_runs_by_params(runs, file.stem().string());
    return runs;
}

// Keys only SGLang writes: total_output_tokens_retokenized (every version), its e2e_latency
// statistics (vLLM spells them e2el). A large server_info can push the aggregates past the head,
// but backend and dataset_name come first and server_info itself is SGLang's.
inline int sniff_sglang_bench_serving(std::string_view head) {
    if (first_json_char(head) != '{') return 0;
    auto has = [head](std::string_view key) { return head.find(key) != std::string_view::npos; };
    const bool own = has("\"total_output_tokens_retokenized\"") || has("\"median_e2e_latency_ms\"") ||
                     has("\"mean_e2e_latency_ms\"");
    if (own && (has("\"completed\"") || has("\"backend\""))) return 100;
    return has("\"backend\"") && has("\"dataset_name\"") && has("\"server_info\"") && has("\"random_range_ratio\"") ? 90 : 0;
}

} // namespace detail

inline constexpr log_format sglang_bench_serving_format{
    detail::sglang_bench_serving_name,
    "SGLang serving benchmark result lines (python -m sglang.bench_serving --output-file F [--output-details])",
    &detail::sniff_sglang_bench_serving, &detail::read_sglang_bench_serving};

} // namespace servestat
