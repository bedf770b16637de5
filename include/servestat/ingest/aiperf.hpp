// Readers for NVIDIA AIPerf's exports (the successor of GenAI-Perf): the per-request records
// profile_export.jsonl (format "aiperf") and the run's aggregates profile_export_aiperf.json
// ("aiperf-summary") and profile_export_aiperf.csv ("aiperf-summary-csv").
//
// profile_export.jsonl holds one object per request:
//   {"metadata":{"timestamp_ns" | "request_start_ns": epoch ns, "request_end_ns"?, "credit_phase" |
//                "benchmark_phase", "was_cancelled"?, ids...},
//    "metrics":{NAME: {"value": V, "unit": U}, ...} (null on failed records in newer versions),
//    "error": null | {"code", "type", "message"}}
// Metrics read: ttft | time_to_first_token, request_latency, inter_chunk_latency (a list),
// min_request_timestamp and max_response_timestamp (epoch ns), input_sequence_length (error_isl on
// failed records), output_sequence_length, reasoning_token_count (for a note). Latencies are
// rounded back to the whole nanoseconds AIPerf measured, so every time of the run sits on one
// integer clock before it becomes seconds. When profile_export_aiperf.json lies next to the records
// it supplies the model, the run's parameters and AIPerf's own statistics (meta.reported).
#pragma once

#include <algorithm>   // std::min_element, std::sort
#include <charconv>    // std::from_chars
#include <cmath>       // std::llround
#include <cstddef>     // std::size_t
#include <cstdint>     // std::int32_t, std::int64_t, std::uint64_t
#include <filesystem>  // std::filesystem::path
#include <limits>      // std::numeric_limits
#include <optional>    // std::optional
#include <span>        // std::span
#include <string>      // std::string
#include <string_view> // std::string_view
#include <system_error> // std::errc
#include <utility>     // std::move
#include <vector>      // std::vector

#include <fmt/format.h>      // fmt::format
#include <nlohmann/json.hpp> // nlohmann::json, nlohmann::ordered_json

#include "servestat/core/iso_time.hpp"         // iso_utc
#include "servestat/core/errors.hpp"          // input_error
#include "servestat/core/request_record.hpp"  // request_record
#include "servestat/core/request_status.hpp"  // request_status
#include "servestat/core/run.hpp"             // run, reported_value
#include "servestat/core/text.hpp"            // trim_spaces
#include "servestat/core/units.hpp"           // time_unit, to_seconds, parse_time_unit
#include "servestat/ingest/csv.hpp"           // csv_reader, csv_record
#include "servestat/ingest/failure_text.hpp"  // classify_failure_text
#include "servestat/ingest/json_document.hpp" // json_place, json_member, json_number, ...
#include "servestat/ingest/line_source.hpp"   // line_source
#include "servestat/ingest/reader.hpp"        // log_format, read_options

namespace servestat {
namespace detail {

inline constexpr std::string_view aiperf_name = "aiperf";
inline constexpr std::string_view aiperf_summary_name = "aiperf-summary";
inline constexpr std::string_view aiperf_summary_csv_name = "aiperf-summary-csv";

// ---- Shared with the GenAI-Perf reader: epoch-ns clocks, dates and run labels ----

// Epoch nanoseconds as an integer: 1.76e18 has no room for a fraction in a double, so timestamps
// are kept as integers until the run's earliest one has been subtracted.
inline std::int64_t nvidia_epoch_ns(const nlohmann::json& v, const json_place& place, const std::string& path) {
    constexpr auto max = std::numeric_limits<std::int64_t>::max();
    if (v.is_number_unsigned()) {
        const auto x = v.get<std::uint64_t>();
        if (x > static_cast<std::uint64_t>(max)) place.fail(path, "timestamp out of range");
        return static_cast<std::int64_t>(x);
    }
    if (v.is_number_integer()) {
        const auto x = v.get<std::int64_t>();
        if (x < 0) place.fail(path, "negative timestamp");
        return x;
    }
    const double x = json_number(v, place, path);
    if (x < 0) place.fail(path, "negative timestamp");
    if (x >= 9.2e18) place.fail(path, "timestamp out of range");
    return static_cast<std::int64_t>(std::llround(x));
}

// Seconds between two epoch-ns instants, subtracted as integers so no digit is lost.
inline double nvidia_seconds_between(std::int64_t later_ns, std::int64_t earlier_ns) {
    return static_cast<double>(later_ns - earlier_ns) / 1e9;
}

// AIPerf and GenAI-Perf give every export the same file name and tell runs apart by their artifact
// directory (artifacts/<model>-openai-chat-concurrency8/profile_export.json), so that directory
// is the better label when the file kept its default name.
inline std::string nvidia_run_label(const std::filesystem::path& file, std::string_view default_stem) {
    const std::string stem = file.stem().string();
    const std::string dir = file.parent_path().filename().string();
    if (stem == default_stem && !dir.empty() && dir != "." && dir != "..") return dir;
    return stem;
}

// ---- Units ----

// AIPerf writes "sec" for seconds (benchmark_duration) besides ns/us/ms.
inline std::optional<time_unit> aiperf_time_unit(std::string_view unit) {
    if (unit == "sec") return time_unit::s;
    return parse_time_unit(unit);
}

inline constexpr std::string_view aiperf_time_units = "ns, us, ms, s or sec";

inline double aiperf_ns_per(time_unit u) {
    switch (u) {
    case time_unit::s: return 1e9;
    case time_unit::ms: return 1e6;
    case time_unit::us: return 1e3;
    case time_unit::ns: return 1;
    }
    return 1;
}

inline std::string aiperf_unknown_unit(std::string_view unit, std::string_view expected) {
    return std::string("unknown unit '").append(unit).append("' (expected ").append(expected).append(")");
}

// ---- profile_export.jsonl: one record ----

// The {"value", "unit"} object of a metric; nullptr when the record lacks it or it is null.
inline const nlohmann::json* aiperf_metric(const nlohmann::json& metrics, std::string_view name,
                                           const json_place& place) {
    const auto* m = json_member(metrics, name);
    if (!m || m->is_null()) return nullptr;
    const std::string path = json_path("metrics", name);
    json_object(*m, place, path);
    json_require(*m, "value", place, path);
    return m;
}

inline const std::string& aiperf_unit(const nlohmann::json& metric, const json_place& place, const std::string& path) {
    return json_string(json_require(metric, "unit", place, path), place, json_path(path, "unit"));
}

inline time_unit aiperf_metric_time_unit(const nlohmann::json& metric, const json_place& place, const std::string& path) {
    const std::string& unit = aiperf_unit(metric, place, path);
    if (const auto u = aiperf_time_unit(unit)) return *u;
    place.fail(json_path(path, "unit"), aiperf_unknown_unit(unit, aiperf_time_units));
}

// A latency in whole nanoseconds: AIPerf measures integers in ns and divides them by 1e6 for ms,
// so rounding recovers its integers exactly.
inline std::optional<std::int64_t> aiperf_duration_ns(const nlohmann::json& metrics, std::string_view name,
                                                      const json_place& place) {
    const auto* m = aiperf_metric(metrics, name, place);
    if (!m) return std::nullopt;
    const std::string path = json_path("metrics", name);
    const time_unit unit = aiperf_metric_time_unit(*m, place, path);
    const double ns = json_duration(m->at("value"), place, json_path(path, "value")) * aiperf_ns_per(unit);
    if (ns >= 9.2e18) place.fail(json_path(path, "value"), "duration out of range");
    return std::llround(ns);
}

inline std::optional<std::int64_t> aiperf_timestamp_ns(const nlohmann::json& metrics, std::string_view name,
                                                       const json_place& place) {
    const auto* m = aiperf_metric(metrics, name, place);
    if (!m) return std::nullopt;
    const std::string path = json_path("metrics", name);
    const time_unit unit = aiperf_metric_time_unit(*m, place, path);
    const auto& value = m->at("value");
    if (unit == time_unit::ns) return nvidia_epoch_ns(value, place, json_path(path, "value"));
    const double ns = json_number(value, place, json_path(path, "value")) * aiperf_ns_per(unit);
    if (ns < 0 || ns >= 9.2e18) place.fail(json_path(path, "value"), "timestamp out of range");
    return std::llround(ns);
}

inline std::optional<std::int32_t> aiperf_tokens(const nlohmann::json& metrics, std::string_view name,
                                                 const json_place& place) {
    const auto* m = aiperf_metric(metrics, name, place);
    if (!m) return std::nullopt;
    const std::string path = json_path("metrics", name);
    const std::string& unit = aiperf_unit(*m, place, path);
    if (unit != "tokens") place.fail(json_path(path, "unit"), aiperf_unknown_unit(unit, "tokens"));
    return json_count(m->at("value"), place, json_path(path, "value"));
}

inline void aiperf_chunk_gaps(const nlohmann::json& metrics, std::string_view name, const json_place& place,
                              std::vector<double>& out) {
    const auto* m = aiperf_metric(metrics, name, place);
    if (!m) return;
    const std::string path = json_path("metrics", name);
    const time_unit unit = aiperf_metric_time_unit(*m, place, path);
    const std::string value_path = json_path(path, "value");
    const auto& gaps = json_array(m->at("value"), place, value_path);
    out.reserve(gaps.size());
    for (std::size_t i = 0; i < gaps.size(); ++i)
        out.push_back(to_seconds(json_duration(gaps[i], place, json_path(value_path, i)), unit));
}

// One request before the run's clock is known: its instants stay epoch ns until the earliest
// start of the whole file has been found.
struct aiperf_request {
    request_record record; // everything except the times
    std::int64_t start_ns = 0;
    std::optional<std::int64_t> first_ns, end_ns;
    std::optional<std::int32_t> reasoning_tokens;
    bool end_from_request_end = false; // only metadata.request_end_ns gave the end
};

inline const nlohmann::json* nvidia_member(const nlohmann::json& object, std::string_view key) {
    const auto* v = json_member(object, key);
    return v && !v->is_null() ? v : nullptr;
}

inline std::optional<std::string> nvidia_optional_string(const nlohmann::json& object, std::string_view key,
                                                  const json_place& place, const std::string& parent) {
    const auto* v = nvidia_member(object, key);
    if (!v) return std::nullopt;
    return json_string(*v, place, json_path(parent, key));
}

// A failed record: code 499 / RequestCancellationError is AIPerf cancelling the request on purpose
// (--request-cancellation-rate), not the server failing it.
inline void read_aiperf_failure(const nlohmann::json* error, bool was_cancelled, const json_place& place,
                                request_record& r) {
    std::optional<std::int64_t> code;
    std::string type, message;
    if (error) {
        json_object(*error, place, "error");
        if (const auto* c = nvidia_member(*error, "code")) {
            const double x = json_number(*c, place, "error.code");
            if (x != static_cast<double>(static_cast<std::int64_t>(x))) place.fail("error.code", "expected a whole number");
            code = static_cast<std::int64_t>(x);
        }
        type = nvidia_optional_string(*error, "type", place, "error").value_or("");
        message = nvidia_optional_string(*error, "message", place, "error").value_or("");
    }
    r.error = type;
    if (!type.empty() && !message.empty()) r.error.append(": ");
    r.error.append(message);
    if (was_cancelled || code == 499 || type == "RequestCancellationError") {
        if (r.error.empty()) r.error = "cancelled by AIPerf";
        r.status = request_status::cancelled;
        return;
    }
    if (r.error.empty()) r.error = "error";
    std::optional<std::int32_t> http;
    if (code && *code >= 100 && *code <= 599) http = static_cast<std::int32_t>(*code);
    const failure_class failure = classify_failure_text(r.error, http);
    r.status = failure.status;
    r.http_status = failure.http_status;
}

inline std::int64_t aiperf_request_start(const nlohmann::json& metadata, const nlohmann::json& metrics,
                                         const json_place& place) {
    for (const std::string_view key : {"request_start_ns", "timestamp_ns"})
        if (const auto* v = nvidia_member(metadata, key)) return nvidia_epoch_ns(*v, place, json_path("metadata", key));
    if (const auto start = aiperf_timestamp_ns(metrics, "min_request_timestamp", place)) return *start;
    place.fail("metadata.timestamp_ns", "missing (a record needs metadata.timestamp_ns, metadata.request_start_ns "
                                        "or metrics.min_request_timestamp)");
}

// The end of a successful request: the last response AIPerf counted (max_response_timestamp), else
// start + request_latency, else the metadata's request_end_ns (which may include the closing
// [DONE] and so run a little later than the last token).
inline void read_aiperf_end(const nlohmann::json& metadata, const nlohmann::json& metrics, const json_place& place,
                            aiperf_request& out) {
    if (const auto last = aiperf_timestamp_ns(metrics, "max_response_timestamp", place)) {
        if (*last < out.start_ns)
            place.fail("metrics.max_response_timestamp.value", "earlier than the request's start");
        out.end_ns = *last;
    } else if (const auto latency = aiperf_duration_ns(metrics, "request_latency", place)) {
        out.end_ns = out.start_ns + *latency;
    } else if (const auto* end = nvidia_member(metadata, "request_end_ns")) {
        const std::int64_t end_ns = nvidia_epoch_ns(*end, place, "metadata.request_end_ns");
        if (end_ns < out.start_ns) place.fail("metadata.request_end_ns", "earlier than the request's start");
        out.end_ns = end_ns;
        out.end_from_request_end = true;
    } else {
        place.fail("metrics.request_latency", "missing (a successful record needs request_latency or "
                                              "max_response_timestamp)");
    }
}

inline void read_aiperf_success(const nlohmann::json& metadata, const nlohmann::json& metrics,
                                const json_place& place, aiperf_request& out) {
    request_record& r = out.record;
    r.status = request_status::ok;
    r.prompt_tokens = aiperf_tokens(metrics, "input_sequence_length", place);
    r.output_tokens = aiperf_tokens(metrics, "output_sequence_length", place);
    out.reasoning_tokens = aiperf_tokens(metrics, "reasoning_token_count", place);
    read_aiperf_end(metadata, metrics, place, out);
    for (const std::string_view name : {"ttft", "time_to_first_token"}) {
        const auto ttft = aiperf_duration_ns(metrics, name, place);
        if (!ttft) continue;
        if (out.start_ns + *ttft > *out.end_ns)
            place.fail(json_path("metrics", name), "time to first token is longer than the request's latency");
        out.first_ns = out.start_ns + *ttft;
        break;
    }
    aiperf_chunk_gaps(metrics, "inter_chunk_latency", place, r.itl);
}

// Returns false for a warmup record, which AIPerf leaves out of its statistics too.
inline bool read_aiperf_record(const nlohmann::json& doc, const json_place& place, aiperf_request& out) {
    if (!doc.is_object()) place.fail("", "a record must be a JSON object");
    const auto& metadata = json_object(json_require(doc, "metadata", place, ""), place, "metadata");
    for (const std::string_view key : {"benchmark_phase", "credit_phase"})
        if (const auto phase = nvidia_optional_string(metadata, key, place, "metadata"); phase && *phase == "warmup")
            return false;
    static const nlohmann::json no_metrics = nlohmann::json::object();
    const auto* metrics_member = nvidia_member(doc, "metrics");
    const auto& metrics = metrics_member ? json_object(*metrics_member, place, "metrics") : no_metrics;

    out = aiperf_request{};
    out.start_ns = aiperf_request_start(metadata, metrics, place);
    bool was_cancelled = false;
    if (const auto* c = nvidia_member(metadata, "was_cancelled")) {
        if (!c->is_boolean()) place.fail("metadata.was_cancelled", std::string("expected true or false, got ") + c->type_name());
        was_cancelled = c->get<bool>();
    }
    const auto* error = nvidia_member(doc, "error");
    if (error || was_cancelled) {
        read_aiperf_failure(error, was_cancelled, place, out.record);
        out.record.prompt_tokens = aiperf_tokens(metrics, "error_isl", place);
        if (!out.record.prompt_tokens) out.record.prompt_tokens = aiperf_tokens(metrics, "input_sequence_length", place);
        return true;
    }
    read_aiperf_success(metadata, metrics, place, out);
    return true;
}

inline nlohmann::json nvidia_parse_json_line(std::string_view line, const json_place& place) {
    try {
        return nlohmann::json::parse(line);
    } catch (const nlohmann::json::parse_error& e) {
        std::string reason = e.what();
        if (const auto colon = reason.find(": "); colon != std::string::npos) reason = reason.substr(colon + 2);
        const bool truncated = end_of_container(line) == std::string_view::npos;
        place.fail("", std::string("malformed JSON at column ")
                           .append(std::to_string(e.byte))
                           .append(": ")
                           .append(reason)
                           .append(truncated ? " (truncated line?)" : ""));
    }
}

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
    if (key.size() < 2 || key[0] != 'p') return std::nullopt;
    std::string number(key.substr(1));
    for (char& c : number)
        if (c == '_') c = '.'; // p99_9
    double p = 0;
    const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), p);
    if (ec != std::errc() || end != number.data() + number.size() || p < 0 || p > 100) return std::nullopt;
    return aiperf_stat_name{fmt::format("p{}", p), p};
}

inline bool is_scalar_record(std::span<const aiperf_stat> stats) {
    for (const auto& s : stats)
        if (s.key != "avg" && s.key != "Value" && s.key != "count") return false;
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
        if (scalar && stat.name == "n") continue; // AIPerf's count of a single value is 1
        if (scalar) {
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

// The tags of `records` in the order the file lists them (nlohmann::json sorts object keys).
inline std::vector<std::string> aiperf_record_order(std::string_view text) {
    if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
    const auto ordered = nlohmann::ordered_json::parse(text, nullptr, false);
    std::vector<std::string> tags;
    if (ordered.is_discarded() || !ordered.is_object()) return tags;
    const auto records = ordered.find("records");
    if (records == ordered.end() || !records->is_object()) return tags;
    for (const auto& item : records->items()) tags.push_back(item.key());
    return tags;
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
        json_object(*record, place, path);
        const std::string unit = nvidia_optional_string(*record, "unit", place, path).value_or("");
        auto stats = read_aiperf_record_stats(*record, place, path);
        report_aiperf_metric(tag, unit, std::move(stats), out.reported,
                             [&](const std::string& why) { place.fail(json_path(path, "unit"), why); });
        if (tag == "min_request_timestamp")
            if (const auto* avg = nvidia_member(*record, "avg"))
                out.first_request_ns = nvidia_epoch_ns(*avg, place, json_path(path, "avg"));
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

// input_config: what the user asked AIPerf for (the CLI's options), a partial echo in which only
// the options the user set appear.
inline void read_aiperf_input_config(const nlohmann::json& config, const json_place& place, aiperf_summary_info& out) {
    json_object(config, place, "input_config");
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
    if (const auto* input = nvidia_member(config, "input"); input && input->is_object())
        if (const auto* prompt = nvidia_member(*input, "prompt"); prompt && prompt->is_object()) {
            read_aiperf_token_setting(*prompt, "input_tokens", "isl", place, out.params);
            read_aiperf_token_setting(*prompt, "output_tokens", "osl", place, out.params);
        }
    if (const auto command = nvidia_optional_string(config, "cli_command", place, "input_config"))
        out.notes.push_back("AIPerf command: " + *command);
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
    read_aiperf_records(json_require(doc.value, "records", place, ""), text, place, out);
    if (const auto* config = nvidia_member(doc.value, "input_config")) read_aiperf_input_config(*config, place, out);
    if (const auto* errors = nvidia_member(doc.value, "error_summary")) read_aiperf_error_summary(*errors, place, out);
    if (const auto* cancelled = nvidia_member(doc.value, "was_cancelled"); cancelled && cancelled->is_boolean() &&
                                                                              cancelled->get<bool>())
        out.notes.push_back("AIPerf reports that the benchmark was cancelled before it finished.");
    out.start_time = nvidia_optional_string(doc.value, "start_time", place, "").value_or("");
    return out;
}

inline aiperf_summary_info read_aiperf_summary_file(const std::filesystem::path& file) {
    const std::string text = read_whole_file(file);
    const auto documents = parse_json_documents(file, text);
    if (documents.size() != 1)
        throw input_error(file.string(), documents[1].place.line, "", "expected one JSON object, found several");
    return read_aiperf_summary_document(documents.front(), text);
}

inline constexpr std::string_view aiperf_std_note =
    "AIPerf's std is numpy's population std (ddof 0); servestat's default is ddof 1 (use --ddof 0 to compare).";

// profile_export_aiperf.json next to a profile_export.jsonl (AIPerf names it <stem>_aiperf.json).
inline std::optional<std::filesystem::path> aiperf_summary_beside(const std::filesystem::path& records) {
    const auto dir = records.parent_path();
    for (const std::string& name : {records.stem().string() + "_aiperf.json", std::string("profile_export_aiperf.json")}) {
        std::error_code ec;
        const auto candidate = dir / name;
        if (std::filesystem::is_regular_file(candidate, ec)) return candidate;
    }
    return std::nullopt;
}

// A broken aggregate file must not hide the per-request data, which is complete on its own.
inline void add_aiperf_summary_beside(const std::filesystem::path& file, run_metadata& meta) {
    const auto summary_path = aiperf_summary_beside(file);
    if (!summary_path) return;
    try {
        aiperf_summary_info info = read_aiperf_summary_file(*summary_path);
        meta.model = info.model;
        meta.params = std::move(info.params);
        meta.reported = std::move(info.reported);
        for (auto& note : info.notes) meta.notes.push_back(std::move(note));
        meta.notes.push_back(std::string("Run parameters, model and reported values come from ")
                                 .append(summary_path->filename().string())
                                 .append(" next to the records."));
        if (!meta.reported.empty()) meta.notes.emplace_back(aiperf_std_note);
    } catch (const input_error& e) {
        meta.notes.push_back(std::string("Could not read ")
                                 .append(summary_path->filename().string())
                                 .append(" next to the records (")
                                 .append(e.what())
                                 .append("): no run parameters or reported values."));
    }
}

inline void add_aiperf_record_notes(std::span<const aiperf_request> requests, std::size_t warmup, run_metadata& meta) {
    std::int64_t reasoning = 0, output = 0;
    std::size_t cancelled = 0, end_from_request_end = 0;
    bool any_reasoning = false;
    for (const auto& r : requests) {
        if (r.record.status == request_status::cancelled) ++cancelled;
        if (r.record.status != request_status::ok) continue;
        end_from_request_end += r.end_from_request_end;
        output += r.record.output_tokens.value_or(0);
        if (r.reasoning_tokens) {
            any_reasoning = true;
            reasoning += *r.reasoning_tokens;
        }
    }
    meta.notes.emplace_back("output_tokens is AIPerf's output_sequence_length: every generated token, reasoning "
                            "included, as in AIPerf's inter_token_latency (servestat's tpot) and output token "
                            "throughput.");
    if (any_reasoning)
        meta.notes.push_back(fmt::format("{} of the {} output tokens of successful requests were reasoning tokens "
                                         "(reasoning_token_count); ttft counts the first response with any "
                                         "content, reasoning included.",
                                         reasoning, output));
    meta.notes.emplace_back("itl is AIPerf's inter_chunk_latency (the gaps between streamed chunks, pooled).");
    if (cancelled > 0)
        meta.notes.push_back(fmt::format("{} requests were cancelled by AIPerf on purpose (error code 499, "
                                         "--request-cancellation-rate): status cancelled, not server errors.",
                                         cancelled));
    if (end_from_request_end > 0)
        meta.notes.push_back(fmt::format("{} records have neither request_latency nor max_response_timestamp: their "
                                         "end is metadata.request_end_ns, which may include the closing [DONE].",
                                         end_from_request_end));
    if (warmup > 0)
        meta.notes.push_back(fmt::format("{} warmup records were left out, as AIPerf leaves them out.", warmup));
}

inline std::vector<run> read_aiperf(const std::filesystem::path& file, const read_options& options) {
    line_source lines(file, options.max_line_bytes);
    run out;
    std::vector<aiperf_request> requests;
    std::size_t warmup = 0;
    aiperf_request request;
    while (const auto line = lines.next()) {
        if (trim_spaces(*line).empty()) continue;
        const json_place place{lines.name(), lines.line_number()};
        try {
            const nlohmann::json doc = nvidia_parse_json_line(*line, place);
            if (read_aiperf_record(doc, place, request)) requests.push_back(std::move(request));
            else ++warmup;
        } catch (const input_error& e) {
            if (!options.skip_bad) throw;
            out.skipped.add(e.what());
        }
    }
    if (requests.empty() && out.skipped.count == 0)
        throw input_error(lines.name(), 0, "", warmup > 0 ? "only warmup records" : "no request records");

    out.meta.label = nvidia_run_label(file, "profile_export");
    out.meta.tool = "aiperf";
    out.meta.source = {file.string(), std::string(aiperf_name)};
    out.meta.kind = run_kind::requests;
    if (!requests.empty()) {
        const std::int64_t t0 = std::min_element(requests.begin(), requests.end(), [](const auto& a, const auto& b) {
                                    return a.start_ns < b.start_ns;
                                })->start_ns;
        out.meta.started_at = iso_utc(t0, 3);
        out.requests.reserve(requests.size());
        for (auto& r : requests) {
            r.record.t_sent = nvidia_seconds_between(r.start_ns, t0);
            if (r.first_ns) r.record.t_first = nvidia_seconds_between(*r.first_ns, t0);
            if (r.end_ns) r.record.t_end = nvidia_seconds_between(*r.end_ns, t0);
            out.requests.push_back(r.record);
        }
    }
    add_aiperf_record_notes(requests, warmup, out.meta);
    add_aiperf_summary_beside(file, out.meta);
    std::vector<run> runs;
    runs.push_back(std::move(out));
    return runs;
}

inline run aiperf_summary_run(const std::filesystem::path& file, std::string_view format, aiperf_summary_info info) {
    run out;
    out.meta.label = nvidia_run_label(file, "profile_export_aiperf");
    out.meta.tool = "aiperf";
    out.meta.source = {file.string(), std::string(format)};
    out.meta.kind = run_kind::summary;
    out.meta.model = std::move(info.model);
    out.meta.params = std::move(info.params);
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
    while (csv.next(row)) {
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

inline std::string_view aiperf_first_line(std::string_view head) {
    if (head.substr(0, 3) == "\xEF\xBB\xBF") head.remove_prefix(3);
    const auto start = head.find_first_not_of(" \t\r\n");
    if (start == std::string_view::npos) return {};
    head.remove_prefix(start);
    return head.substr(0, head.find('\n'));
}

// {"metadata": ... "metrics": ... on one line, with AIPerf's own metadata keys (GuideLLM's result
// file also starts with {"metadata": and holds "metrics", but as one pretty document).
inline int sniff_aiperf(std::string_view head) {
    std::string_view line = aiperf_first_line(head);
    if (line.empty() || line.front() != '{') return 0;
    line.remove_prefix(1);
    line = trim_spaces(line);
    if (!line.starts_with("\"metadata\"") || line.find("\"metrics\"") == std::string_view::npos) return 0;
    for (const std::string_view key : {"\"x_request_id\"", "\"record_processor_id\"", "\"timestamp_ns\"",
                                       "\"request_start_ns\""})
        if (line.find(key) != std::string_view::npos) return 100;
    return 0;
}

inline int sniff_aiperf_summary(std::string_view head) {
    if (first_json_char(head) != '{') return 0;
    for (const std::string_view key : {"\"records\"", "\"tag\"", "\"header\""})
        if (head.find(key) == std::string_view::npos) return 0;
    return head.find("\"avg\"") != std::string_view::npos ? 100 : 80;
}

inline int sniff_aiperf_summary_csv(std::string_view head) {
    if (head.substr(0, 3) == "\xEF\xBB\xBF") head.remove_prefix(3);
    return head.starts_with("Metric,avg,min,max,p1,") ? 100 : 0;
}

} // namespace detail

inline constexpr log_format aiperf_format{
    detail::aiperf_name, "AIPerf per-request records (profile_export.jsonl: metadata, metrics, error)",
    &detail::sniff_aiperf, &detail::read_aiperf};

inline constexpr log_format aiperf_summary_format{
    detail::aiperf_summary_name, "AIPerf's run aggregates (profile_export_aiperf.json: records, input_config)",
    &detail::sniff_aiperf_summary, &detail::read_aiperf_summary};

inline constexpr log_format aiperf_summary_csv_format{
    detail::aiperf_summary_csv_name, "AIPerf's run aggregates as CSV (profile_export_aiperf.csv)",
    &detail::sniff_aiperf_summary_csv, &detail::read_aiperf_summary_csv};

} // namespace servestat
