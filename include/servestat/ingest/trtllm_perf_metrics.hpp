// Reader for the per-request server timings of TensorRT-LLM's serving benchmark
// (`python -m tensorrt_llm.serve.scripts.benchmark_serving --save-request-time-breakdown`, the
// server run with `return_perf_metrics: true`): the server's GET /perf_metrics answer, saved as
// `{backend}-{rate}qps[-concurrency{N}]-{model}-{YYYYmmdd-HHMMSS}-perf_metrics.json` beside the
// result file (vllm_bench_json.hpp reads that one).
//
// The file is a JSON array of the server's records, in the order requests finished: `request_id`
// (the executor's own id, never sent to the client) and `perf_metrics.timing_metrics`
// {server_arrival_time, arrival_time, first_scheduled_time, first_token_time,
// server_first_token_time, last_token_time} in seconds of the server's steady clock; a
// disaggregated server writes `ctx_perf_metrics` and `gen_perf_metrics` (each such a record) with
// `disagg_server_arrival_time` and `disagg_server_first_token_time`. Read alone it is a run of the
// server's view of each request: t_sent its arrival, t_first the first token the server sent,
// t_end its last token, and server_queue (arrival → first scheduled), server_prefill (first
// scheduled → first token), server_decode (first → last token). Beside the result it belongs to it
// is merged into that run, and is then no run of its own.
#pragma once

#include <algorithm>   // std::min
#include <cstdint>     // std::int64_t
#include <filesystem>  // std::filesystem
#include <optional>    // std::optional
#include <string>      // std::string
#include <string_view> // std::string_view
#include <system_error> // std::error_code
#include <vector>      // std::vector

#include <nlohmann/json.hpp> // nlohmann::json

#include "servestat/core/errors.hpp"          // input_error, not_a_run_error
#include "servestat/core/request_record.hpp"  // request_record
#include "servestat/core/request_status.hpp"  // request_status
#include "servestat/core/run.hpp"             // run, run_kind
#include "servestat/core/text.hpp"            // shortest_number
#include "servestat/ingest/input_file.hpp"    // read_input_head
#include "servestat/ingest/json_document.hpp" // read_json_documents, json_* helpers
#include "servestat/ingest/reader.hpp"        // log_format, read_options

namespace servestat {
namespace detail {

inline constexpr std::string_view trtllm_perf_metrics_name = "trtllm-perf-metrics";
inline constexpr std::string_view trtllm_perf_metrics_suffix = "-perf_metrics.json";

// ---- pairing a result with its timings --------------------------------------------------------

// Python's str() of a float, as in "10.0qps" and "infqps": integral values keep their ".0".
inline std::string python_float_text(double x) {
    std::string s = shortest_number(x);
    if (s.find_first_of(".en") == std::string::npos) s += ".0";
    return s;
}

// "20260105-143012" → seconds on a proleptic calendar (only differences are used); nullopt when
// the text is not of that form.
inline std::optional<std::int64_t> compact_date_seconds(std::string_view s) {
    if (s.size() != 15 || s[8] != '-') return std::nullopt;
    for (std::size_t i = 0; i < s.size(); ++i)
        if (i != 8 && (s[i] < '0' || s[i] > '9')) return std::nullopt;
    const auto num = [s](std::size_t at, std::size_t n) {
        std::int64_t v = 0;
        for (std::size_t i = at; i < at + n; ++i) v = v * 10 + (s[i] - '0');
        return v;
    };
    std::int64_t y = num(0, 4);
    const std::int64_t m = num(4, 2), d = num(6, 2);
    if (m < 1 || m > 12 || d < 1 || d > 31) return std::nullopt;
    // Days from civil (Howard Hinnant's algorithm).
    y -= m <= 2;
    const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
    const std::int64_t yoe = y - era * 400;
    const std::int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const std::int64_t days = era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return days * 86400 + num(9, 2) * 3600 + num(11, 2) * 60 + num(13, 2);
}

// benchmark_serving.py fetches /perf_metrics right after saving its result and names the file with
// a fresh timestamp (ignoring --result-filename): the timings of a result are the file with its
// name's prefix stamped at, or within this many seconds after, the result's date.
inline constexpr std::int64_t trtllm_perf_metrics_window_s = 300;

// The name prefix benchmark_serving.py gives both files, from what the result records:
// "openai-10.0qps-concurrency8-Llama-3.1-8B-Instruct-" (the script at NVIDIA/TensorRT-LLM@f61d71d9);
// `qps` = false gives the form later files show ("openai-inf-concurrency1-gpt-oss-120b-").
inline std::optional<std::string> trtllm_result_name_prefix(const nlohmann::json& result, bool qps = true) {
    const auto* backend = json_member(result, "backend");
    const auto* model = json_member(result, "model_id");
    const auto* rate = json_member(result, "request_rate");
    if (!backend || !backend->is_string() || !model || !model->is_string() || !rate) return std::nullopt;
    std::string out = backend->get<std::string>() + "-";
    if (rate->is_string()) out += rate->get<std::string>(); // "inf"
    else if (rate->is_number()) out += python_float_text(rate->get<double>());
    else return std::nullopt;
    if (qps) out += "qps";
    if (const auto* c = json_member(result, "max_concurrency"); c && c->is_number_integer())
        out += "-concurrency" + std::to_string(c->get<std::int64_t>());
    const std::string& id = model->get_ref<const std::string&>();
    out += "-" + id.substr(id.rfind('/') == std::string::npos ? 0 : id.rfind('/') + 1) + "-";
    return out;
}

// The `-perf_metrics.json` file beside `result_file` holding the server timings of the result
// `result`, if there is one (see trtllm_perf_metrics_window_s); without a date in the result, the
// only file with its prefix.
inline std::optional<std::filesystem::path> trtllm_perf_metrics_for(const std::filesystem::path& result_file,
                                                                    const nlohmann::json& result) {
    namespace fs = std::filesystem;
    const auto with_qps = trtllm_result_name_prefix(result, true), without = trtllm_result_name_prefix(result, false);
    if (!with_qps || !without) return std::nullopt;
    std::optional<std::int64_t> date;
    if (const auto* d = json_member(result, "date"); d && d->is_string()) date = compact_date_seconds(d->get<std::string>());
    std::error_code ec;
    const fs::path dir = result_file.parent_path().empty() ? fs::path(".") : result_file.parent_path();
    std::optional<fs::path> best;
    std::int64_t best_at = 0;
    std::size_t candidates = 0;
    // The date between the prefix and the suffix, when the name has them; nullopt otherwise.
    const auto stamp = [&](const std::string& name) -> std::optional<std::string_view> {
        if (!name.ends_with(trtllm_perf_metrics_suffix)) return std::nullopt;
        for (const std::string* prefix : {&*with_qps, &*without})
            if (name.starts_with(*prefix) && name.size() >= prefix->size() + trtllm_perf_metrics_suffix.size())
                return std::string_view(name).substr(prefix->size(),
                                                     name.size() - prefix->size() - trtllm_perf_metrics_suffix.size());
        return std::nullopt;
    };
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        const auto text = stamp(name);
        if (!text) continue;
        if (std::error_code type_ec; !it->is_regular_file(type_ec)) continue;
        ++candidates;
        const auto at = compact_date_seconds(*text);
        if (!date || !at || *at < *date || *at - *date > trtllm_perf_metrics_window_s) continue;
        if (!best || *at < best_at) {
            best = it->path();
            best_at = *at;
        }
    }
    if (!date && candidates == 1) {
        for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
            if (stamp(it->path().filename().string())) return it->path();
    }
    return best;
}

// A TensorRT-LLM benchmark_serving.py result (vLLM's layout with its own user_throughput key).
inline bool is_trtllm_serving_result_head(std::string_view head) {
    return first_json_char(head) == '{' && head.find("\"user_throughput\"") != std::string_view::npos &&
           head.find("\"model_id\"") != std::string_view::npos;
}

// The result beside a timings file that claims it (trtllm_perf_metrics_for), if any. Results
// named as the script names them (the timings' prefix, another date) are tried first, so a folder
// of a sweep parses one result per timings file; one saved with --result-filename is found after.
inline std::optional<std::filesystem::path> trtllm_result_for(const std::filesystem::path& perf_file) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path dir = perf_file.parent_path().empty() ? fs::path(".") : perf_file.parent_path();
    const fs::path mine = fs::weakly_canonical(perf_file, ec);
    const std::string perf_name = perf_file.filename().string();
    const std::size_t stamped = std::string_view("YYYYmmdd-HHMMSS").size() + trtllm_perf_metrics_suffix.size();
    const std::string prefix = perf_name.size() > stamped ? perf_name.substr(0, perf_name.size() - stamped) : perf_name;
    std::vector<fs::path> named, others;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (!name.ends_with(".json") || name.ends_with(trtllm_perf_metrics_suffix)) continue;
        if (std::error_code type_ec; !it->is_regular_file(type_ec)) continue;
        (name.starts_with(prefix) ? named : others).push_back(it->path());
    }
    named.insert(named.end(), others.begin(), others.end());
    for (const fs::path& path : named) {
        try {
            if (!is_trtllm_serving_result_head(read_input_head(path, 64 * 1024))) continue;
            for (const auto& [object, place] : read_json_documents(path))
                if (const auto paired = trtllm_perf_metrics_for(path, object)) {
                    std::error_code same_ec;
                    if (fs::weakly_canonical(*paired, same_ec) == mine) return path;
                }
        } catch (const input_error&) {
            // A broken result is reported when it is read itself, not here.
        }
    }
    return std::nullopt;
}

// ---- the records ------------------------------------------------------------------------------

// A time of a timing_metrics object; absent or null → nullopt.
inline std::optional<double> trtllm_time(const nlohmann::json* timing, const char* key, const json_place& place,
                                         const std::string& path) {
    return timing ? json_optional_number(json_member(*timing, key), place, json_path(path, key)) : std::nullopt;
}

// The timing_metrics of a record (`perf_metrics.timing_metrics`), required.
inline const nlohmann::json* trtllm_timing(const nlohmann::json& record, const json_place& place, const std::string& path) {
    json_object(record, place, path);
    const auto& metrics = json_object(json_require(record, "perf_metrics", place, path), place, json_path(path, "perf_metrics"));
    const std::string timing_path = json_path(json_path(path, "perf_metrics"), "timing_metrics");
    return &json_object(json_require(metrics, "timing_metrics", place, json_path(path, "perf_metrics")), place, timing_path);
}

// b − a as a server phase: both present, and not negative.
inline std::optional<double> trtllm_phase(std::optional<double> a, std::optional<double> b, const json_place& place,
                                          const std::string& field) {
    if (!a || !b) return std::nullopt;
    if (*b < *a) place.fail(field, "ends before it starts (" + shortest_number(*b) + " < " + shortest_number(*a) + ")");
    return *b - *a;
}

// One record as the server saw it, times still on the server's clock.
struct trtllm_server_request {
    std::optional<double> start, first, end, queue, prefill, decode;
};

inline trtllm_server_request read_trtllm_server_request(const nlohmann::json& record, const json_place& place,
                                                        const std::string& path) {
    trtllm_server_request r;
    const bool disagg = json_member(record, "ctx_perf_metrics") || json_member(record, "gen_perf_metrics");
    if (!disagg) {
        const auto* t = trtllm_timing(record, place, path);
        const std::string tp = json_path(json_path(path, "perf_metrics"), "timing_metrics");
        const auto arrival = trtllm_time(t, "arrival_time", place, tp), scheduled = trtllm_time(t, "first_scheduled_time", place, tp),
                   first = trtllm_time(t, "first_token_time", place, tp), last = trtllm_time(t, "last_token_time", place, tp);
        r.start = trtllm_time(t, "server_arrival_time", place, tp);
        if (!r.start) r.start = arrival;
        r.first = trtllm_time(t, "server_first_token_time", place, tp);
        if (!r.first) r.first = first;
        r.end = last;
        r.queue = trtllm_phase(arrival, scheduled, place, json_path(tp, "first_scheduled_time"));
        r.prefill = trtllm_phase(scheduled, first, place, json_path(tp, "first_token_time"));
        r.decode = trtllm_phase(first, last, place, json_path(tp, "last_token_time"));
    } else {
        const std::string cp = json_path(path, "ctx_perf_metrics"), gp = json_path(path, "gen_perf_metrics");
        const auto* ctx = json_member(record, "ctx_perf_metrics");
        const auto* gen = json_member(record, "gen_perf_metrics");
        const auto* c = ctx && !ctx->is_null() ? trtllm_timing(*ctx, place, cp) : nullptr;
        const auto* g = gen && !gen->is_null() ? trtllm_timing(*gen, place, gp) : nullptr;
        const std::string ctp = json_path(json_path(cp, "perf_metrics"), "timing_metrics");
        const std::string gtp = json_path(json_path(gp, "perf_metrics"), "timing_metrics");
        r.start = json_optional_number(json_member(record, "disagg_server_arrival_time"), place,
                                       json_path(path, "disagg_server_arrival_time"));
        if (!r.start) r.start = trtllm_time(c, "server_arrival_time", place, ctp);
        r.first = json_optional_number(json_member(record, "disagg_server_first_token_time"), place,
                                       json_path(path, "disagg_server_first_token_time"));
        if (!r.first) r.first = trtllm_time(g, "server_first_token_time", place, gtp);
        const auto c_arrival = trtllm_time(c, "arrival_time", place, ctp), c_scheduled = trtllm_time(c, "first_scheduled_time", place, ctp),
                   c_first = trtllm_time(c, "first_token_time", place, ctp);
        const auto g_first = trtllm_time(g, "first_token_time", place, gtp), g_last = trtllm_time(g, "last_token_time", place, gtp);
        r.end = g_last;
        r.queue = trtllm_phase(c_arrival, c_scheduled, place, json_path(ctp, "first_scheduled_time"));
        r.prefill = trtllm_phase(c_scheduled, c_first, place, json_path(ctp, "first_token_time"));
        r.decode = trtllm_phase(g_first, g_last, place, json_path(gtp, "last_token_time"));
    }
    if (!r.start) place.fail(json_path(path, "perf_metrics"), "no arrival time (server_arrival_time or arrival_time)");
    if (r.first && *r.first < *r.start) place.fail(path, "the first token is before the request's arrival");
    if (r.end && r.first && *r.end < *r.first) place.fail(path, "the last token is before the first");
    return r;
}

inline const nlohmann::json& trtllm_perf_records(const std::vector<json_document>& documents) {
    if (documents.size() != 1) documents[1].place.fail("", "more than one JSON document (the server's answer is one array)");
    const auto& [value, place] = documents.front();
    return json_array(value, place, "");
}

inline run read_trtllm_perf_metrics_alone(const std::filesystem::path& file, const read_options& options) {
    const auto documents = read_json_documents(file);
    const auto& records = trtllm_perf_records(documents);
    const json_place& place = documents.front().place;
    std::vector<trtllm_server_request> requests;
    run out;
    out.skipped.unit = skipped_unit::record;
    for (std::size_t i = 0; i < records.size(); ++i) {
        try {
            requests.push_back(read_trtllm_server_request(records[i], place, json_path("", i)));
        } catch (const input_error& e) {
            if (!options.skip_bad) throw;
            out.skipped.add(e.what());
        }
    }
    double origin = 0;
    for (std::size_t i = 0; i < requests.size(); ++i) origin = i == 0 ? *requests[i].start : std::min(origin, *requests[i].start);
    request_record record;
    for (const auto& r : requests) {
        record.clear();
        record.t_sent = *r.start - origin;
        if (r.first) record.t_first = *r.first - origin;
        if (r.end) record.t_end = *r.end - origin;
        record.server_queue = r.queue;
        record.server_prefill = r.prefill;
        record.server_decode = r.decode;
        record.status = request_status::ok;
        out.requests.push_back(record);
    }
    auto& meta = out.meta;
    meta.source = {file.string(), std::string(trtllm_perf_metrics_name)};
    meta.tool = "trtllm-serve /perf_metrics";
    meta.label = file.stem().string();
    meta.notes.push_back("TensorRT-LLM's server timings (/perf_metrics), in seconds of the server's steady clock: the "
                         "server's view of each request, not the client's. t_sent = its arrival at the server, t_first = "
                         "the server sending its first token, t_end = its last token (so ttft and e2e leave out the "
                         "network); server_queue = arrival → first scheduled, server_prefill = first scheduled → first "
                         "token, server_decode = first → last token");
    meta.notes.push_back("the server records only requests that finished, with no token counts: failures, tpot and token "
                         "rates are unavailable; its records hold as many requests as perf_metrics_max_requests kept, the "
                         "benchmark's warm-up request included");
    return out;
}

inline std::vector<run> read_trtllm_perf_metrics(const std::filesystem::path& file, const read_options& options) {
    if (const auto result = trtllm_result_for(file))
        throw not_a_run_error(file.string(), 0, "",
                              "TensorRT-LLM's server timings of " + result->filename().string() +
                                  ", merged into that result's run (benchmark_serving.py wrote them beside it)");
    return {read_trtllm_perf_metrics_alone(file, options)};
}

// The number of server records in a timings file, which is checked whole (a broken file is an error
// naming it, even when merged).
inline std::size_t count_trtllm_perf_records(const std::filesystem::path& file) {
    const auto documents = read_json_documents(file);
    const auto& records = trtllm_perf_records(documents);
    for (std::size_t i = 0; i < records.size(); ++i)
        read_trtllm_server_request(records[i], documents.front().place, json_path("", i));
    return records.size();
}

// A JSON array of the server's records: their perf_metrics and timing_metrics objects (or a
// disaggregated server's ctx_/gen_perf_metrics).
inline int sniff_trtllm_perf_metrics(std::string_view head) {
    if (first_json_char(head) != '[') return 0;
    auto has = [head](std::string_view key) { return head.find(key) != std::string_view::npos; };
    if (has("\"timing_metrics\"") && (has("\"perf_metrics\"") || has("\"ctx_perf_metrics\""))) return 100;
    return 0;
}

} // namespace detail

inline constexpr log_format trtllm_perf_metrics_format{
    detail::trtllm_perf_metrics_name,
    "TensorRT-LLM server per-request timings (/perf_metrics, benchmark_serving.py --save-request-time-breakdown)",
    &detail::sniff_trtllm_perf_metrics, &detail::read_trtllm_perf_metrics};

} // namespace servestat
