// Reader for the result file of vLLM's serving benchmark (`vllm bench serve --save-result
// [--save-detailed] [--append-result]`, and the legacy `benchmarks/benchmark_serving.py`): one JSON
// object per run (--append-result puts several in one file, separated by newlines).
//
// A run object holds its settings (date, backend, model_id, num_prompts, request_rate, burstiness,
// max_concurrency, --metadata pairs), vLLM's aggregates (completed, failed, duration, throughputs and
// mean/median/std/p{P}_{ttft,tpot,itl,e2el,...}_ms) and, per request, parallel arrays: input_lens,
// output_lens, ttfts (s), itls (lists of s), latencies (s), start_times (time.perf_counter(), s),
// queue_times (s), errors. Without --save-detailed only latencies and queue_times are kept, and the
// legacy script never wrote latencies, start_times or queue_times: whatever is there is read, and
// what is missing stays absent (no clock without start_times). The Rust vllm-bench
// (vllm-project/vllm-bench) writes the same object with its keys sorted and a few of its own
// (steady_state, failed_requests, input_throughput): told apart by those, read the same way.
// TensorRT-LLM's copy of the legacy script (tensorrt_llm/serve/scripts/benchmark_serving.py) adds
// user_throughput, avg_decoded_tokens_per_iter and energy, spells the latencies `e2els`, and can
// save the server's per-request timings beside the result (trtllm_perf_metrics.hpp): merged here.
#pragma once

#include <algorithm>   // std::sort, std::min, std::all_of, std::any_of
#include <array>       // std::array
#include <cctype>      // std::isdigit
#include <charconv>    // std::from_chars
#include <cmath>       // std::abs, std::floor, std::isfinite
#include <cstddef>     // std::size_t
#include <cstdint>     // std::int32_t, std::int64_t
#include <cstdio>      // std::snprintf
#include <exception>   // std::exception
#include <filesystem>  // std::filesystem::path
#include <optional>    // std::optional
#include <string>      // std::string
#include <string_view> // std::string_view
#include <utility>     // std::move, std::pair
#include <vector>      // std::vector

#include <nlohmann/json.hpp> // nlohmann::json

#include "servestat/core/errors.hpp"          // input_error
#include "servestat/core/request_record.hpp"  // request_record
#include "servestat/core/request_status.hpp"  // request_status
#include "servestat/core/run.hpp"             // run, run_metadata, reported_value, run_kind
#include "servestat/core/run_names.hpp"       // name_runs_by_params
#include "servestat/core/text.hpp"            // trim_spaces, shortest_number
#include "servestat/ingest/failure_text.hpp"  // classify_failure_text
#include "servestat/ingest/json_document.hpp" // parse_json_documents, read_json_file, json_* helpers
#include "servestat/ingest/reader.hpp"        // log_format, read_options
#include "servestat/ingest/trtllm_perf_metrics.hpp" // trtllm_perf_metrics_for, count_trtllm_perf_records

namespace servestat {
namespace detail {

inline constexpr std::string_view vllm_bench_json_name = "vllm-bench-json";

// ---- the per-request arrays -------------------------------------------------------------------

// The parallel arrays of one run (nullptr when absent); element i of each is request i.
struct vllm_arrays {
    const nlohmann::json *input_lens = nullptr, *output_lens = nullptr, *ttfts = nullptr, *itls = nullptr,
                         *latencies = nullptr, *start_times = nullptr, *queue_times = nullptr, *errors = nullptr;
    const char* latencies_key = "latencies"; // "e2els" in TensorRT-LLM's files
    std::size_t size = 0;
    bool any() const { return latencies || ttfts || errors || input_lens || output_lens || itls || start_times; }
};

// Arrays of unequal length cannot be paired up: the whole run is rejected, naming the array.
inline vllm_arrays read_vllm_arrays(const nlohmann::json& object, const json_place& place) {
    vllm_arrays a;
    std::string reference;
    // TensorRT-LLM's benchmark_serving.py saves the latencies as `e2els` (never both).
    for (auto [key, slot] : {std::pair{"latencies", &a.latencies}, std::pair{"e2els", &a.latencies}, std::pair{"ttfts", &a.ttfts},
                             std::pair{"itls", &a.itls}, std::pair{"start_times", &a.start_times},
                             std::pair{"queue_times", &a.queue_times}, std::pair{"errors", &a.errors},
                             std::pair{"input_lens", &a.input_lens}, std::pair{"output_lens", &a.output_lens}}) {
        const auto* v = json_member(object, key);
        if (!v || v->is_null() || (*slot && slot == &a.latencies)) continue;
        json_array(*v, place, key);
        if (reference.empty()) {
            reference = key;
            a.size = v->size();
        } else if (v->size() != a.size) {
            place.fail(key, "has " + std::to_string(v->size()) + " elements but " + reference + " has " +
                                std::to_string(a.size) + " (the per-request arrays must be parallel)");
        }
        *slot = v;
        if (slot == &a.latencies) a.latencies_key = key;
    }
    return a;
}

// aiohttp's reason phrase is all vLLM keeps of an HTTP error ("Too Many Requests"): the standard
// phrases give back the status code.
inline std::optional<std::int32_t> vllm_reason_status(std::string_view error) {
    static constexpr std::array<std::pair<std::string_view, std::int32_t>, 12> phrases{{
        {"Bad Request", 400},           {"Unauthorized", 401},         {"Forbidden", 403},
        {"Not Found", 404},             {"Request Timeout", 408},      {"Payload Too Large", 413},
        {"Request Entity Too Large", 413}, {"Too Many Requests", 429}, {"Internal Server Error", 500},
        {"Bad Gateway", 502},           {"Service Unavailable", 503},  {"Gateway Timeout", 504},
    }};
    error = trim_spaces(error);
    for (const auto& [phrase, code] : phrases)
        if (error == phrase) return code;
    return std::nullopt;
}

inline constexpr std::string_view vllm_no_error_text = "request failed (no error text)";

// One request, its times still on vLLM's perf_counter clock.
struct vllm_request {
    std::optional<double> start, queue, ttft, latency;
    std::optional<std::int32_t> prompt_tokens, output_tokens;
    std::vector<double> itl;
    bool ok = true;
    std::string error;
};

inline vllm_request read_vllm_request(const vllm_arrays& a, std::size_t i, const json_place& place) {
    vllm_request r;
    auto element = [i](const char* key) { return json_path(key, i); };
    if (a.errors) {
        const auto& e = (*a.errors)[i];
        if (!e.is_null()) r.error = json_string(e, place, element("errors"));
    }
    if (a.latencies) r.latency = json_duration((*a.latencies)[i], place, element(a.latencies_key));
    // vLLM's success flag is not saved: an empty error text and a positive latency stand for it
    // (a failed request has latency 0.0 and sometimes an empty error text).
    r.ok = r.error.empty() && (!r.latency || *r.latency > 0);
    if (a.start_times) r.start = json_number((*a.start_times)[i], place, element("start_times"));
    if (a.queue_times && !(*a.queue_times)[i].is_null())
        r.queue = json_duration((*a.queue_times)[i], place, element("queue_times"));
    if (a.input_lens) r.prompt_tokens = json_optional_count(&(*a.input_lens)[i], place, element("input_lens"));
    if (a.output_lens) r.output_tokens = json_optional_count(&(*a.output_lens)[i], place, element("output_lens"));
    if (!r.ok) {
        if (r.error.empty()) r.error = vllm_no_error_text;
        return r;
    }
    if (a.ttfts) {
        r.ttft = json_duration((*a.ttfts)[i], place, element("ttfts"));
        if (r.latency && *r.ttft > *r.latency)
            place.fail(element("ttfts"), "ttft (" + shortest_number(*r.ttft) + " s) is larger than latency (" +
                                             shortest_number(*r.latency) + " s)");
    }
    if (a.itls) {
        const std::string path = element("itls");
        const auto& gaps = json_array((*a.itls)[i], place, path);
        r.itl.reserve(gaps.size());
        for (std::size_t k = 0; k < gaps.size(); ++k) r.itl.push_back(json_duration(gaps[k], place, json_path(path, k)));
    }
    return r;
}

// perf_counter readings are seconds since an arbitrary point: only differences mean anything.
inline void vllm_to_record(const vllm_request& v, std::optional<double> origin, request_record& r) {
    const double sent = origin && v.start ? *v.start - *origin : 0.0;
    r.t_sent = sent;
    if (v.queue) r.t_sched = sent - *v.queue;
    r.prompt_tokens = v.prompt_tokens;
    r.output_tokens = v.output_tokens;
    if (!v.ok) {
        r.error = v.error;
        const failure_class failure = classify_failure_text(r.error, vllm_reason_status(r.error));
        r.status = failure.status;
        r.http_status = failure.http_status;
        return;
    }
    r.status = request_status::ok;
    if (v.ttft) r.t_first = sent + *v.ttft;
    if (v.latency) r.t_end = sent + *v.latency;
    r.itl = v.itl;
}

// ---- vLLM's aggregates ------------------------------------------------------------------------

// The per-request quantities vLLM summarises (`<stat>_<key>_ms`) and servestat's metric for each:
// the definitions agree (vLLM's TTFT and ITL are what its per-request arrays hold).
inline constexpr std::array<std::pair<std::string_view, std::string_view>, 6> vllm_metrics{{
    {"ttft", "ttft"},
    {"tpot", "tpot"},
    {"itl", "itl"},
    {"e2el", "e2e"},
    {"client_queue_time", "client_queue"},
    {"e2el_including_client_queue", "e2e_sched"},
}};

struct vllm_run_value {
    std::string_view key;
    std::string_view reported;
    std::string_view unit;
};

// In the order vLLM writes them; input_throughput and the conversation counts of a multi-turn
// run come from the Rust vllm-bench.
inline constexpr std::array<vllm_run_value, 17> vllm_run_values{{
    {"duration", "duration", "s"},
    {"completed", "ok", "requests"},
    {"failed", "failed", "requests"},
    {"total_input_tokens", "vllm.total_input_tokens", "tokens"},
    {"total_output_tokens", "vllm.total_output_tokens", "tokens"},
    {"request_throughput", "rps", "req/s"},
    {"request_goodput", "vllm.request_goodput", "req/s"},
    {"request_goodput:", "vllm.request_goodput", "req/s"}, // legacy benchmark_serving.py's key
    {"input_throughput", "vllm.input_throughput", "tok/s"},
    {"output_throughput", "output_tps", "tok/s"},
    {"total_token_throughput", "total_tps", "tok/s"},
    {"max_output_tokens_per_s", "vllm.max_output_tokens_per_s", "tok/s"},
    {"max_concurrent_requests", "vllm.max_concurrent_requests", "requests"},
    {"conversations_completed", "vllm.conversations_completed", "conversations"},
    {"conversations_failed", "vllm.conversations_failed", "conversations"},
    {"avg_turns_completed", "vllm.avg_turns_completed", "turns"},
    {"avg_conversation_duration_ms", "vllm.avg_conversation_duration_ms", "ms"},
}};

// "p99.9_ttft_ms" → 99.9 when the key is `p<number>_<metric>_ms`.
inline std::optional<double> vllm_percentile_of(std::string_view key, std::string_view metric) {
    std::string suffix = "_";
    suffix.append(metric).append("_ms");
    if (key.size() <= suffix.size() + 1 || key[0] != 'p' || !key.ends_with(suffix)) return std::nullopt;
    const std::string_view number = key.substr(1, key.size() - 1 - suffix.size());
    if (number.empty() || number.find_first_not_of("0123456789.") != std::string_view::npos ||
        !std::isdigit(static_cast<unsigned char>(number.front())) ||
        number.find('.') != number.rfind('.'))
        return std::nullopt;
    double q = 0; // from_chars, not stod: a key of 400 digits is out of range, not an exception
    const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), q);
    if (ec != std::errc() || end != number.data() + number.size() || q > 100) return std::nullopt;
    return q;
}

// Keys holding vLLM's aggregates (never run parameters).
inline bool is_vllm_summary_key(std::string_view key) {
    for (const auto& v : vllm_run_values)
        if (key == v.key) return true;
    for (const std::string_view other : {"rtfx", "total_input_sequences", "input_sequence_throughput", "user_throughput",
                                         "avg_decoded_tokens_per_iter"})
        if (key == other) return true;
    if (key.ends_with("_avg_decoded_tokens_per_iter")) return true; // TensorRT-LLM's mean_/std_/p99_... of it
    for (const std::string_view prefix : {"probe_", "spec_decode_", "diffusion_"})
        if (key.starts_with(prefix)) return true;
    const bool statistic = key.starts_with("mean_") || key.starts_with("median_") || key.starts_with("std_") ||
                           (key.size() > 1 && key[0] == 'p' && std::isdigit(static_cast<unsigned char>(key[1])));
    if (!statistic) return false;
    if (key.ends_with("_ms")) return true;
    // Scripts that rewrite vLLM's results keep its statistics without a unit ("median_ttft",
    // "p99_e2el" in seconds): aggregates still, never settings that tell runs apart.
    const std::string_view metric = key.substr(key.find('_') + 1);
    return std::any_of(vllm_metrics.begin(), vllm_metrics.end(), [&](const auto& m) { return metric == m.first; });
}

inline void add_vllm_value(run_metadata& meta, const nlohmann::json& object, std::string_view key, std::string name,
                           std::string_view unit, double scale, const json_place& place) {
    const auto* v = json_member(object, key);
    // null (Python's NaN reads as null) and Infinity are not reported: the document's notes say so.
    if (!v || v->is_null() || (v->is_number_float() && std::isinf(v->get<double>()))) return;
    meta.reported.push_back({std::move(name), json_number(*v, place, std::string(key)) * scale, std::string(unit)});
}

inline void read_vllm_summary(const nlohmann::json& object, const json_place& place, run_metadata& meta) {
    for (const auto& v : vllm_run_values) add_vllm_value(meta, object, v.key, std::string(v.reported), v.unit, 1.0, place);
    // With no completed request vLLM's statistics are np.mean(0) and the like: placeholders.
    if (const auto* completed = json_member(object, "completed");
        completed && completed->is_number() && completed->get<double>() == 0) {
        meta.notes.push_back("no request completed: vLLM's latency statistics are placeholder zeros and are not "
                             "reported");
        return;
    }
    for (const auto& [key, name] : vllm_metrics) {
        const std::string middle = std::string("_").append(key).append("_ms");
        const std::string prefix = std::string(name).append(".");
        std::vector<std::pair<double, std::string>> percentiles;
        for (const auto& [k, value] : object.items())
            if (const auto p = vllm_percentile_of(k, key)) percentiles.emplace_back(*p, k);
        std::sort(percentiles.begin(), percentiles.end());
        add_vllm_value(meta, object, "mean" + middle, prefix + "mean", "s", 1e-3, place);
        const bool has_p50 = std::any_of(percentiles.begin(), percentiles.end(), [](const auto& p) { return p.first == 50; });
        if (!has_p50) add_vllm_value(meta, object, "median" + middle, prefix + "p50", "s", 1e-3, place);
        add_vllm_value(meta, object, "std" + middle, prefix + "std", "s", 1e-3, place);
        for (const auto& [p, k] : percentiles)
            add_vllm_value(meta, object, k, prefix + k.substr(0, k.size() - middle.size()), "s", 1e-3, place);
    }
}

// ---- run settings -----------------------------------------------------------------------------

// The Rust vllm-bench's date: "2025-06-01T12:00:00Z" (chrono, UTC).
inline bool is_iso_utc_date(std::string_view s) {
    auto digits = [s](std::size_t from, std::size_t n) {
        return std::all_of(s.begin() + static_cast<std::ptrdiff_t>(from), s.begin() + static_cast<std::ptrdiff_t>(from + n),
                           [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
    };
    return s.size() == 20 && digits(0, 4) && s[4] == '-' && digits(5, 2) && s[7] == '-' && digits(8, 2) &&
           s[10] == 'T' && digits(11, 2) && s[13] == ':' && digits(14, 2) && s[16] == ':' && digits(17, 2) &&
           s[19] == 'Z';
}

// "20250127-140322" (datetime.now().strftime("%Y%m%d-%H%M%S"), local time) → "2025-01-27T14:03:22";
// the Rust vllm-bench's "2025-01-27T14:03:22Z" (UTC) is kept as it is.
inline std::string vllm_date(const nlohmann::json& v, const json_place& place) {
    const std::string& s = json_string(v, place, "date");
    if (is_iso_utc_date(s)) return s;
    const bool digits = s.size() == 15 && s[8] == '-' &&
                        std::all_of(s.begin(), s.begin() + 8, [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }) &&
                        std::all_of(s.begin() + 9, s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
    if (!digits) place.fail("date", "expected YYYYmmdd-HHMMSS (or the Rust vllm-bench's YYYY-mm-ddTHH:MM:SSZ), got \"" + s + "\"");
    return s.substr(0, 4) + "-" + s.substr(4, 2) + "-" + s.substr(6, 2) + "T" + s.substr(9, 2) + ":" +
           s.substr(11, 2) + ":" + s.substr(13, 2);
}

// A parameter value: numbers stay numbers (whole ones as integers), --metadata strings that are
// numbers become numbers, "inf" stays a string.
inline nlohmann::json vllm_param_value(const nlohmann::json& v) {
    const auto number = param_number;
    if (v.is_number()) return number(v.get<double>());
    if (v.is_string()) {
        const std::string& s = v.get_ref<const std::string&>();
        const bool numeric = !s.empty() && s.find_first_not_of("0123456789.-+eE") == std::string::npos &&
                             s.find_first_of("0123456789") != std::string::npos;
        if (numeric) {
            std::size_t used = 0;
            try {
                const double x = std::stod(s, &used);
                // Only when the number writes back as the same text: "0.10", "1.0" or a hash
                // like "7e10" stay strings rather than losing what the user wrote.
                if (used == s.size() && std::isfinite(x))
                    if (nlohmann::json n = number(x); n.dump() == s) return n;
            } catch (const std::exception&) {
            }
        }
    }
    return v;
}

// A rate or burstiness: a number, or "inf" (vLLM's own spelling for no limit).
inline nlohmann::json vllm_rate(const nlohmann::json& v, const json_place& place, const std::string& key) {
    if (v.is_string() && v.get_ref<const std::string&>() == "inf") return v;
    if (v.is_number_float() && std::isinf(v.get<double>()) && v.get<double>() > 0) return "inf"; // Python's Infinity
    const double x = json_number(v, place, key);
    if (x <= 0) place.fail(key, "must be greater than 0");
    return vllm_param_value(v);
}

inline void read_vllm_settings(const nlohmann::json& object, const json_place& place, run_metadata& meta) {
    if (const auto* date = json_member(object, "date"); date && !date->is_null()) meta.started_at = vllm_date(*date, place);
    if (const auto* label = json_member(object, "label"); label && !label->is_null())
        meta.label = json_string(*label, place, "label");
    if (const auto* model = json_member(object, "model_id"); model && !model->is_null())
        meta.model = json_string(*model, place, "model_id");
    for (const auto& [key, value] : object.items()) {
        if (value.is_null() || value.is_array() || value.is_object()) continue;
        if (key == "date" || key == "label" || key == "model_id" || is_vllm_summary_key(key)) continue;
        if (key == "request_rate" || key == "burstiness") meta.params[key] = vllm_rate(value, place, key);
        else if (key == "max_concurrency" || key == "num_prompts")
            meta.params[key] = json_count(value, place, key);
        else meta.params[key] = vllm_param_value(value);
    }
}

// ---- notes ------------------------------------------------------------------------------------

inline void add_vllm_notes(const vllm_arrays& a, const std::vector<vllm_request>& requests, bool rust,
                           run_metadata& meta) {
    if (a.start_times && rust)
        meta.notes.push_back("start_times are seconds since the benchmark's start on a monotonic clock (the Rust "
                             "vllm-bench's Instant), taken just before each request is sent (after its "
                             "--max-concurrency slot; there are no queue_times): t_sent = start_time - the earliest "
                             "start_time, t_first = t_sent + ttft, t_end = t_sent + latency");
    else if (a.start_times)
        meta.notes.push_back("start_times are time.perf_counter() readings (a monotonic clock, not the wall clock): "
                             "t_sent = start_time - the earliest start_time, t_first = t_sent + ttft, t_end = t_sent + "
                             "latency");
    else
        meta.notes.push_back("no start_times (saved without --save-detailed, or by the legacy benchmark_serving.py): "
                             "every request is placed at t_sent = 0 with no shared clock; the run's duration and "
                             "rates come from vLLM's reported duration");
    if (!a.latencies)
        meta.notes.push_back("no latencies (legacy benchmark_serving.py): e2e, decode and tpot are unavailable; vLLM's "
                             "own e2el and tpot statistics are kept as reported");
    if (a.queue_times)
        meta.notes.push_back("queue_times run from a request's arrival to its send (the wait for a --max-concurrency "
                             "slot, when one is set): t_sched = t_sent - queue_time");
    if (a.ttfts)
        meta.notes.push_back("vLLM's TTFT ends at the first SSE event with non-empty choices, which counts a "
                             "role-only first chunk (chat endpoints): when the server sends one, ttft is shorter than "
                             "servestat's definition (first chunk carrying content) and the first itl gap longer");
    if (a.itls)
        meta.notes.push_back("itl holds vLLM's gaps between streamed chunks (not tokens), pooled over requests as "
                             "servestat's itl; tpot is (e2e - ttft) / (output_tokens - 1) in both");
    else if (a.any())
        meta.notes.push_back("no itls (saved without --save-detailed): per-chunk gaps are unavailable");
    std::size_t silent = 0;
    for (const auto& r : requests) silent += !r.ok && r.error == vllm_no_error_text;
    if (silent > 0 && !a.errors)
        meta.notes.push_back("no errors (saved without --save-detailed): a request with latency 0 is counted as "
                             "failed, with no error text");
    else if (silent > 0)
        meta.notes.push_back(std::to_string(silent) + " failed request(s) have no error text (vLLM keeps only the "
                             "HTTP reason, which can be empty): a request failed when its error text is non-empty or "
                             "its latency is 0");
}

inline void add_vllm_count_note(const nlohmann::json& object, const std::vector<vllm_request>& requests,
                                std::size_t skipped, run_metadata& meta) {
    const auto* completed = json_member(object, "completed");
    if (!completed || !completed->is_number()) return;
    std::size_t ok = 0;
    for (const auto& r : requests) ok += r.ok;
    if (skipped == 0 && completed->get<double>() != static_cast<double>(ok))
        meta.notes.push_back("vLLM counted " + completed->dump() + " completed requests, but " + std::to_string(ok) +
                             " have an empty error text and a positive latency");
}

// ---- the Rust vllm-bench -----------------------------------------------------------------------
//
// vllm-project/vllm-bench (Rust) writes the same result object (src/output/json.rs), with keys in
// alphabetical order (serde_json's default map), its date in UTC ISO form, and a few keys of its
// own: steady_state (its plateau-window metrics, or null), failed_requests (every failed request
// with its error, always), input_throughput, max_model_len, and in multi-turn mode mode,
// conversation counts and per_turn_metrics.

// Written by the Rust tool: it alone writes steady_state (always, null when not computed) and an
// ISO date.
inline bool written_by_rust_vllm_bench(const nlohmann::json& object) {
    if (json_member(object, "steady_state")) return true;
    const auto* date = json_member(object, "date");
    return date && date->is_string() && is_iso_utc_date(date->get_ref<const std::string&>());
}

// The plateau window's numbers (steady_state), reported under vllm.steady_state.* in the tool's
// units: they cover only the window, so they are never servestat's whole-run metrics.
inline void read_vllm_steady_state(const nlohmann::json& object, const json_place& place, run_metadata& meta) {
    const auto* state = json_member(object, "steady_state");
    if (!state || !state->is_object()) return;
    json_object(*state, place, "steady_state");
    const std::string prefix = "vllm.steady_state.";
    for (const auto& [key, unit] : {std::pair{"request_throughput", "req/s"}, std::pair{"input_throughput", "tok/s"},
                                    std::pair{"output_throughput", "tok/s"}, std::pair{"total_token_throughput", "tok/s"},
                                    std::pair{"mean_ttft_ms", "ms"}, std::pair{"median_ttft_ms", "ms"},
                                    std::pair{"mean_tpot_ms", "ms"}, std::pair{"median_tpot_ms", "ms"},
                                    std::pair{"p90_tpot_ms", "ms"}, std::pair{"p99_tpot_ms", "ms"}})
        add_vllm_value(meta, *state, key, prefix + key, unit, 1.0, place);
    if (const auto* ttfts = json_member(*state, "percentiles_ttft_ms"); ttfts && ttfts->is_array())
        for (std::size_t i = 0; i < ttfts->size(); ++i) {
            const auto& pair = (*ttfts)[i];
            const std::string path = json_path("steady_state.percentiles_ttft_ms", i);
            if (!pair.is_array() || pair.size() != 2) place.fail(path, "expected [percentile, value]");
            const double p = json_number(pair[0], place, json_path(path, std::size_t{0}));
            meta.reported.push_back({prefix + "p" + shortest_number(p) + "_ttft_ms",
                                     json_number(pair[1], place, json_path(path, std::size_t{1})), "ms"});
        }
    const auto* window = json_member(*state, "window");
    if (!window || !window->is_object()) return;
    for (const char* key : {"start_s", "end_s", "duration_s"})
        add_vllm_value(meta, *window, key, prefix + "window." + key, "s", 1.0, place);
    std::string note = "the Rust vllm-bench's steady_state numbers cover only its plateau window";
    const auto from = find_reported(meta, prefix + "window.start_s"), to = find_reported(meta, prefix + "window.end_s");
    if (from && to) {
        char span[96];
        std::snprintf(span, sizeof span, " (%.1f s to %.1f s after the first successful start)", from->value, to->value);
        note.append(span);
    }
    note.append(": reported as vllm.steady_state.*, not as the run's metrics");
    if (const auto* warning = json_member(*window, "warning"); warning && warning->is_string())
        note.append("; its warning: ").append(warning->get<std::string>());
    meta.notes.push_back(std::move(note));
}

// failed_requests lists every failure even without --save-detailed: said in a note (the requests
// themselves are in the per-request arrays when there are any).
inline void add_vllm_failed_requests_note(const nlohmann::json& object, run_metadata& meta) {
    const auto* failed = json_member(object, "failed_requests");
    if (!failed || !failed->is_array() || failed->empty()) return;
    std::string note = std::to_string(failed->size()) + " failed request(s) listed in failed_requests";
    if (const auto* error = json_member(failed->front(), "error"); error && error->is_string())
        note.append("; the first: \"").append(error->get<std::string>()).append("\"");
    meta.notes.push_back(std::move(note));
}

// ---- TensorRT-LLM's benchmark_serving.py ------------------------------------------------------
//
// NVIDIA/TensorRT-LLM's tensorrt_llm/serve/scripts/benchmark_serving.py is a copy of vLLM's legacy
// script: the same result object with its "request_goodput:" key, and user_throughput (the mean
// over successful requests of output tokens / latency), avg_decoded_tokens_per_iter (speculative
// decoding: a number, later an object {mean, min, max, median, std, percentiles} and top-level
// <stat>_avg_decoded_tokens_per_iter keys), energy {total_energy_j, output_tps_per_w,
// total_gpu_power_w} when the server answers /energy_metrics, and, in later versions, the
// per-request latencies as `e2els`.

inline bool written_by_trtllm_benchmark_serving(const nlohmann::json& object) {
    return json_member(object, "user_throughput") != nullptr;
}

inline void read_trtllm_serving_values(const nlohmann::json& object, const json_place& place, run_metadata& meta) {
    add_vllm_value(meta, object, "user_throughput", "trtllm.user_throughput", "tok/s", 1.0, place);
    const std::string decoded = "avg_decoded_tokens_per_iter";
    const std::string name = "trtllm." + decoded;
    if (const auto* v = json_member(object, decoded); v && v->is_number())
        add_vllm_value(meta, object, decoded, name, "tokens", 1.0, place);
    else if (v && v->is_object()) {
        for (const auto& [key, stat] : {std::pair{"mean", "mean"}, std::pair{"median", "p50"}, std::pair{"std", "std"},
                                        std::pair{"min", "min"}, std::pair{"max", "max"}})
            add_vllm_value(meta, *v, key, name + "." + stat, "tokens", 1.0, place);
        if (const auto* ps = json_member(*v, "percentiles"); ps && ps->is_object())
            for (const auto& [key, value] : ps->items())
                if (key != "p50") add_vllm_value(meta, *ps, key, name + "." + key, "tokens", 1.0, place);
    }
    for (const auto& [key, value] : object.items()) {
        if (!key.ends_with("_" + decoded) || find_reported(meta, name + ".mean")) continue;
        const std::string stat = key.substr(0, key.size() - decoded.size() - 1);
        add_vllm_value(meta, object, key, name + "." + (stat == "median" ? std::string("p50") : stat), "tokens", 1.0, place);
    }
    if (const auto* energy = json_member(object, "energy"); energy && energy->is_object())
        for (const auto& [key, unit] : {std::pair{"total_energy_j", "J"}, std::pair{"output_tps_per_w", "tok/s/W"},
                                        std::pair{"total_gpu_power_w", "W"}})
            add_vllm_value(meta, *energy, key, "trtllm.energy." + std::string(key), unit, 1.0, place);
}

// benchmark_serving.py --save-request-time-breakdown writes the server's per-request timings beside
// the result. They cannot be joined to its requests: the result saves no request ids, and the
// server's records carry the executor's own ids in the order requests finished. So the file is
// merged (read once, listed in source.merged) and a note says why its times are not in the run.
inline void merge_trtllm_perf_metrics(const std::filesystem::path& file, const nlohmann::json& object, run_metadata& meta) {
    const auto perf = trtllm_perf_metrics_for(file, object);
    if (!perf) return;
    const std::size_t records = count_trtllm_perf_records(*perf);
    meta.source.merged.push_back(perf->string());
    meta.notes.push_back("the server's per-request timings beside this result (" + perf->filename().string() + ", " +
                         std::to_string(records) + " records from TensorRT-LLM's /perf_metrics) cannot be joined to its "
                         "requests: benchmark_serving.py saves no request ids, and the server's records carry the "
                         "executor's own ids in the order requests finished; read that file alone for the server's "
                         "server_queue, server_prefill and server_decode");
}

// ---- one JSON object → one run ----------------------------------------------------------------

inline run read_vllm_run(const std::filesystem::path& file, const nlohmann::json& object, const json_place& place,
                         const read_options& options) {
    json_object(object, place, "");
    // A result trimmed to its latency statistics (vllm-ascend's nightly benchmark_serving.py keeps
    // only mean/median/std/p99 of ttft, tpot and itl) is still the run, without counts or rates.
    const bool latencies_only = !json_member(object, "completed") && !json_member(object, "request_throughput") &&
                                json_member(object, "mean_ttft_ms");
    if (!json_member(object, "completed") && !json_member(object, "request_throughput") && !latencies_only)
        place.fail("completed", "missing required field (not a vLLM benchmark result)");
    run out;
    out.skipped.unit = skipped_unit::record; // indices across the result's arrays, not lines
    auto& meta = out.meta;
    meta.source = {file.string(), std::string(vllm_bench_json_name)};
    const bool rust = written_by_rust_vllm_bench(object);
    const bool trtllm = written_by_trtllm_benchmark_serving(object);
    meta.tool = rust ? "vllm-bench (Rust)" : trtllm ? "trtllm-benchmark-serving" : "vllm-bench-serve";
    meta.label = file.stem().string();
    read_vllm_settings(object, place, meta);
    if (trtllm)
        meta.notes.push_back("written by TensorRT-LLM's benchmark_serving.py (its user_throughput key), a copy of vLLM's "
                             "legacy script");
    else if (json_member(object, "request_goodput:"))
        meta.notes.push_back("written by the legacy benchmarks/benchmark_serving.py (its \"request_goodput:\" key)");
    if (meta.params.contains("request_rate") && meta.params["request_rate"] == "inf")
        meta.notes.push_back("request_rate \"inf\": every request was sent at once, with no arrival process");
    if (!meta.started_at.empty() && !rust) meta.notes.push_back("the date is vLLM's local time, with no time zone");
    if (latencies_only)
        meta.notes.push_back("the result keeps only vLLM's latency statistics (mean, median, std and p99 of ttft, tpot "
                             "and itl): no request counts, duration or throughput were saved, so the run has no rates");
    if (rust && meta.params.contains("mode"))
        meta.notes.push_back("a multi-turn run of the Rust vllm-bench: its per_turn_metrics are not read");
    read_vllm_summary(object, place, meta);
    if (trtllm) read_trtllm_serving_values(object, place, meta);
    read_vllm_steady_state(object, place, meta);
    add_vllm_failed_requests_note(object, meta);

    const vllm_arrays a = read_vllm_arrays(object, place);
    std::vector<vllm_request> requests;
    if (a.any() && (a.latencies || a.errors)) {
        requests.reserve(a.size);
        for (std::size_t i = 0; i < a.size; ++i) {
            try {
                requests.push_back(read_vllm_request(a, i, place));
            } catch (const input_error& e) {
                if (!options.skip_bad) throw;
                out.skipped.add(e.what());
            }
        }
    } else {
        meta.kind = run_kind::summary;
        meta.notes.push_back(rust ? "no per-request arrays (the Rust vllm-bench keeps them only with "
                                    "--save-detailed): only its own aggregates are available"
                                  : "no per-request arrays (saved without --save-detailed by an older vLLM): only "
                                    "vLLM's own aggregates are available");
    }
    std::optional<double> origin;
    for (const auto& r : requests)
        if (r.start) origin = origin ? std::min(*origin, *r.start) : *r.start;
    meta.shared_clock = a.start_times != nullptr;
    out.requests.reserve(requests.size());
    request_record record;
    for (const auto& r : requests) {
        record.clear();
        vllm_to_record(r, origin, record);
        out.requests.push_back(record);
    }
    if (meta.kind == run_kind::requests) {
        add_vllm_notes(a, requests, rust, meta);
        add_vllm_count_note(object, requests, out.skipped.count, meta);
    }
    if (trtllm) merge_trtllm_perf_metrics(file, object, meta);
    return out;
}

inline std::vector<run> read_vllm_bench_json(const std::filesystem::path& file, const read_options& options) {
    // Python's Infinity (an unlimited rate) and NaN are read by parse_json_documents, with notes.
    const std::string text = read_json_file(file);
    const auto documents = parse_json_documents(file, text);
    std::vector<run> runs;
    runs.reserve(documents.size());
    for (const auto& [object, place] : documents) {
        runs.push_back(read_vllm_run(file, object, place, options));
        const auto& notes = place.nonfinite_notes();
        runs.back().meta.notes.insert(runs.back().meta.notes.end(), notes.begin(), notes.end());
        if (documents.size() > 1) runs.back().meta.source.line = place.line;
    }
    // Appended runs share the file's name: each is named by the settings that set it apart.
    name_runs_by_params(runs, file.stem().string());
    return runs;
}

// vLLM writes date, backend, model_id, ... first and its aggregates before the arrays, so the
// head holds model_id, completed and request_throughput. The Rust vllm-bench sorts its keys, so
// with --save-detailed its arrays (generated_texts, itls) can push model_id and
// request_throughput past the head; backend, burstiness, completed, date and endpoint_type sort
// before them all. SGLang's look-alike uses other keys (mean_e2e_latency_ms,
// total_output_tokens_retokenized) and is read by sglang_bench_serving.hpp.
inline int sniff_vllm_bench_json(std::string_view head) {
    if (first_json_char(head) != '{') return 0;
    auto has = [head](std::string_view key) { return head.find(key) != std::string_view::npos; };
    if (has("\"mean_e2e_latency_ms\"") || has("\"median_e2e_latency_ms\"") ||
        has("\"total_output_tokens_retokenized\"") || has("\"benchmarks\""))
        return 0;
    // Trimmed to its settings and latency statistics (vllm-ascend's nightly results).
    if (!has("\"completed\"") && !has("\"request_throughput\""))
        return has("\"model_id\"") && has("\"num_prompts\"") && has("\"request_rate\"") && has("\"mean_ttft_ms\"") &&
                       has("\"p99_tpot_ms\"")
                   ? 70
                   : 0;
    if (!has("\"model_id\"") || !has("\"completed\"") || !has("\"request_throughput\""))
        return has("\"backend\"") && has("\"burstiness\"") && has("\"completed\"") && has("\"date\"") &&
                       has("\"endpoint_type\"")
                   ? 90
                   : 0;
    return has("\"date\"") && has("\"num_prompts\"") ? 100 : 80;
}

} // namespace detail

inline constexpr log_format vllm_bench_json_format{
    detail::vllm_bench_json_name,
    "vLLM serving benchmark result JSON (vllm bench serve --save-result [--save-detailed] [--append-result])",
    &detail::sniff_vllm_bench_json, &detail::read_vllm_bench_json};

} // namespace servestat
