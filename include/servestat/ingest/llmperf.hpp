// Readers for Ray LLMPerf's result files (token_benchmark_ray.py, schema version "2023-08-31"):
//   llmperf          `<prefix>_individual_responses.json`: a JSON array, one object per request;
//   llmperf-summary  `<prefix>_summary.json`: one flat object of LLMPerf's own aggregates (also
//                    written unflattened, and several runs' summaries in one file: a list, or an
//                    object keyed by concurrency; one summary run each).
//
// A request object holds error_code (null on success; an HTTP status such as 429, or LLMPerf's own
// -1 "no HTTP status" / -100 "output too short"), error_msg, ttft_s, end_to_end_latency_s,
// inter_token_latency_s, request_output_throughput_token_per_s, number_input_tokens,
// number_output_tokens, number_total_tokens, and sometimes GEN_TEXT (ignored). There are no
// timestamps, so requests are placed at t_sent = 0 without a shared clock. LLMPerf writes zeros
// as the latencies of failed requests and leaves them out of its statistics: here they are failed
// requests with no latency at all.
//
// The summary sits next to the requests (`<prefix>_summary.json` beside
// `<prefix>_individual_responses.json`, or `summary/<x>.json` beside `individual/<x>.json` in the
// llmperf-leaderboard layout); when it does, the run takes its parameters, model, start time and
// the tool's own numbers from it, including the run's duration, which only the summary can give.
#pragma once

#include <algorithm>   // std::min
#include <array>       // std::array
#include <charconv>    // std::from_chars
#include <cmath>       // std::abs, std::floor
#include <cstddef>     // std::size_t
#include <cstdint>     // std::int32_t, std::int64_t
#include <filesystem>  // std::filesystem::path, std::filesystem::is_regular_file
#include <map>         // std::map
#include <optional>    // std::optional
#include <string>      // std::string
#include <string_view> // std::string_view
#include <system_error> // std::error_code, std::errc
#include <utility>     // std::move
#include <vector>      // std::vector

#include <nlohmann/json.hpp> // nlohmann::json

#include "servestat/core/iso_time.hpp"         // iso_utc, max_unix_seconds
#include "servestat/core/text.hpp"             // shortest_number
#include "servestat/core/errors.hpp"          // input_error
#include "servestat/core/request_record.hpp"  // request_record
#include "servestat/core/request_status.hpp"  // request_status
#include "servestat/core/run.hpp"             // run, run_metadata, reported_value, run_kind
#include "servestat/core/run_names.hpp"       // name_runs_by_params
#include "servestat/ingest/failure_text.hpp"  // classify_failure_text
#include "servestat/ingest/json_document.hpp" // parse_json_documents, json_place, json_* helpers
#include "servestat/ingest/reader.hpp"        // log_format, read_options

namespace servestat {
namespace detail {

inline constexpr std::string_view llmperf_name = "llmperf";
inline constexpr std::string_view llmperf_summary_name = "llmperf-summary";

// One of LLMPerf's six summarised per-request quantities and the name servestat reports it under:
// a servestat metric where the definitions agree, "llmperf.<key>" where they do not (its
// inter_token_latency_s includes the TTFT; its request throughput has no servestat counterpart).
struct llmperf_metric {
    std::string_view key;
    std::string_view reported;
    std::string_view unit;
};

inline constexpr std::array<llmperf_metric, 6> llmperf_metrics{{
    {"inter_token_latency_s", "llmperf.inter_token_latency_s", "s"},
    {"ttft_s", "ttft", "s"},
    {"end_to_end_latency_s", "e2e", "s"},
    {"request_output_throughput_token_per_s", "llmperf.request_output_throughput_token_per_s", "tok/s"},
    {"number_input_tokens", "prompt_tokens", "tokens"},
    {"number_output_tokens", "output_tokens", "tokens"},
}};

// The statistics LLMPerf prints per quantity: `summary` is the flattened key suffix in the summary
// file, `console` the name on its console, `reported` servestat's key.
struct llmperf_stat {
    std::string_view summary;
    std::string_view console;
    std::string_view reported;
};

inline constexpr std::array<llmperf_stat, 10> llmperf_stats{{
    {"quantiles_p25", "p25", "p25"},
    {"quantiles_p50", "p50", "p50"},
    {"quantiles_p75", "p75", "p75"},
    {"quantiles_p90", "p90", "p90"},
    {"quantiles_p95", "p95", "p95"},
    {"quantiles_p99", "p99", "p99"},
    {"mean", "mean", "mean"},
    {"min", "min", "min"},
    {"max", "max", "max"},
    {"stddev", "stddev", "std"},
}};

inline std::string reported_name(const llmperf_metric& m, const llmperf_stat& s) {
    return std::string(m.reported).append(".").append(s.reported);
}

// Run-level numbers of the summary file, in the order LLMPerf writes them; `divisor` converts to
// servestat's unit (completed requests per minute → per second).
struct llmperf_run_value {
    std::string_view summary;
    std::string_view reported;
    std::string_view unit;
    double divisor;
};

inline constexpr std::array<llmperf_run_value, 5> llmperf_run_values{{
    {"results_num_requests_started", "requests", "requests", 1.0},
    {"results_number_errors", "failed", "requests", 1.0},
    {"results_mean_output_throughput_token_per_s", "output_tps", "tok/s", 1.0},
    {"results_num_completed_requests", "ok", "requests", 1.0},
    {"results_num_completed_requests_per_min", "rps", "req/s", 60.0},
}};

inline constexpr std::string_view llmperf_itl_note =
    "LLMPerf's inter_token_latency_s includes the TTFT (sum of TTFT and all chunk gaps / output "
    "tokens), so it is kept as llmperf.inter_token_latency_s and is neither servestat's itl nor its "
    "tpot ((e2e - ttft) / (output_tokens - 1))";
inline constexpr std::string_view llmperf_tokens_note =
    "token counts are LLMPerf's recount with the Llama-2 tokenizer (hf-internal-testing/llama-tokenizer), "
    "whatever the model served";

// LLMPerf does not record how long the run took, but it prints completed requests and completed
// requests per minute over that same wall time, so the time is their ratio.
inline void add_llmperf_duration(run_metadata& meta) {
    const auto* ok = find_reported(meta, "ok");
    const auto* per_min = find_reported(meta, "rps");
    if (!ok || !per_min)
        meta.notes.push_back("LLMPerf's completed requests or requests per minute are missing: the run's duration "
                             "cannot be derived");
    else if (ok->value <= 0 || per_min->value <= 0)
        meta.notes.push_back("no request completed: the run's duration cannot be derived");
    else {
        const double duration = ok->value / per_min->value; // read before push_back moves the values
        meta.reported.push_back({"duration", duration, "s"});
        meta.notes.push_back("the run's duration is not recorded by LLMPerf: it is derived from its own numbers as "
                             "num_completed_requests / num_completed_requests_per_min");
    }
}

// Where one summary lies in its file, for errors: the file's text and the span the summary occupies
// (a multi-run file holds several), the JSON path leading to it ("" for a file that is one summary,
// "8" or "[2]" in a multi-run file) and, for a summary written unflattened, each flat key's own path.
struct llmperf_summary_source {
    std::string_view text;
    std::size_t from = 0, to = std::string_view::npos;
    std::string path;
    std::map<std::string, std::string> nested; // "results_ttft_s_mean" -> "results.ttft_s.mean"
};

// The field an error names: the key as the file spells it, under the summary's own path.
inline std::string summary_field(const llmperf_summary_source& source, std::string_view key) {
    const auto nested = source.nested.find(std::string(key));
    return json_path(source.path, nested == source.nested.end() ? key : std::string_view(nested->second));
}

// The line a flat key first appears on within the summary, for errors about its members (a key
// that only exists after flattening is placed at the summary's start).
inline json_place key_place(const json_place& document, const llmperf_summary_source& source, std::string_view key) {
    std::string quoted = "\"";
    quoted.append(key).append("\"");
    const std::string_view span = source.text.substr(0, std::min(source.to, source.text.size()));
    const auto at = span.find(quoted, source.from);
    return at == std::string_view::npos ? document : json_place{document.file, line_at(source.text, at)};
}

// A summary value; numeric strings are accepted because LLMPerf dumps numpy integers with
// default=str ("results_number_input_tokens_min": "550"); null (NaN) means not reported.
inline std::optional<double> summary_number(const nlohmann::json& summary, std::string_view key,
                                            const json_place& document, const llmperf_summary_source& source) {
    const auto* v = json_member(summary, key);
    if (!v || v->is_null()) return std::nullopt;
    return json_number(*v, key_place(document, source, key), summary_field(source, key), true);
}

inline void set_summary_param(run_metadata& meta, const nlohmann::json& summary, std::string_view key,
                              const json_place& document, const llmperf_summary_source& source) {
    if (const auto x = summary_number(summary, key, document, source)) {
        const std::string name = key == "num_concurrent_requests" ? "concurrency" : std::string(key);
        if (*x == std::floor(*x) && std::abs(*x) < 1e15) meta.params[name] = static_cast<std::int64_t>(*x);
        else meta.params[name] = *x;
    }
}

inline std::optional<std::string> summary_string(const nlohmann::json& summary, std::string_view key,
                                                 const json_place& document, const llmperf_summary_source& source) {
    const auto* v = json_member(summary, key);
    if (!v || v->is_null()) return std::nullopt;
    return json_string(*v, key_place(document, source, key), summary_field(source, key));
}

inline bool has_results_keys(const nlohmann::json& summary) {
    for (const auto& [key, value] : summary.items())
        if (key.starts_with("results_")) return true;
    return false;
}

// LLMPerf's own summary dict nests its statistics (results.ttft_s.quantiles.p50); the file it saves
// is that dict through utils.flatten_dict, which joins nested keys with "_". A summary written
// unflattened (a script dumping get_token_throughput_latencies' dict) is flattened the same way, so
// both read alike; `paths` remembers where each flat key came from, for errors.
inline void flatten_llmperf(const nlohmann::json& object, const std::string& flat, const std::string& path,
                            nlohmann::json& out, std::map<std::string, std::string>& paths) {
    for (const auto& [key, value] : object.items()) {
        const std::string name = flat.empty() ? key : flat + "_" + key;
        const std::string where = json_path(path, key);
        if (value.is_object()) {
            flatten_llmperf(value, name, where, out, paths);
        } else {
            out[name] = value;
            if (where != name) paths[name] = where;
        }
    }
}

// Whether a flattened summary holds any of the statistics LLMPerf writes.
inline bool has_llmperf_statistics(const nlohmann::json& flat) {
    for (const auto& [key, value] : flat.items())
        if (key.starts_with("results_ttft_s_") || key.starts_with("results_end_to_end_latency_s_") ||
            key == "results_num_completed_requests")
            return true;
    return false;
}

// A summary as LLMPerf saves it: flat results_* members, or a nested results object.
inline bool looks_like_llmperf_summary(const nlohmann::json& v) {
    if (!v.is_object()) return false;
    if (has_results_keys(v)) return true;
    const auto* results = json_member(v, "results");
    return results && results->is_object() && !results->empty();
}

// Everything a summary object tells about its run: model, start time, parameters, the tool's own
// numbers (in LLMPerf's order) and the derived duration.
inline void read_llmperf_summary_object(const nlohmann::json& given, const json_place& document,
                                        llmperf_summary_source source, run_metadata& meta) {
    json_object(given, document, source.path);
    nlohmann::json flattened;
    const bool nested = !has_results_keys(given) && looks_like_llmperf_summary(given);
    if (nested) flatten_llmperf(given, "", "", flattened, source.nested);
    const nlohmann::json& summary = nested ? flattened : given;
    if (!has_results_keys(summary)) document.fail(source.path, "no results_* keys: not an LLMPerf summary");
    if (nested && !has_llmperf_statistics(summary))
        document.fail(json_path(source.path, "results"), "holds none of LLMPerf's statistics (results.ttft_s, "
                                                         "results.end_to_end_latency_s, results.num_completed_requests)");
    if (nested)
        meta.notes.push_back("the summary's statistics are nested (results.<metric>.quantiles.pNN): read as LLMPerf's "
                             "flattened results_<metric>_quantiles_pNN keys");

    if (auto model = summary_string(summary, "model", document, source)) meta.model = std::move(*model);
    if (const auto* ts = json_member(summary, "timestamp"); ts && !ts->is_null()) {
        const json_place at = key_place(document, source, "timestamp");
        const double t = json_number(*ts, at, summary_field(source, "timestamp"), true);
        if (t < 0 || t > max_unix_seconds) at.fail(summary_field(source, "timestamp"), "not a Unix time in seconds");
        meta.started_at = iso_utc(static_cast<std::int64_t>(std::floor(t)) * 1000000000);
    }
    for (const std::string_view key : {"num_concurrent_requests", "mean_input_tokens", "stddev_input_tokens",
                                       "mean_output_tokens", "stddev_output_tokens"})
        set_summary_param(meta, summary, key, document, source);
    for (const std::string_view key : {"framework", "model_size"})
        if (auto s = summary_string(summary, key, document, source)) meta.params[std::string(key)] = std::move(*s);

    for (const auto& m : llmperf_metrics)
        for (const auto& s : llmperf_stats) {
            const std::string key = std::string("results_").append(m.key).append("_").append(s.summary);
            if (const auto x = summary_number(summary, key, document, source))
                meta.reported.push_back({reported_name(m, s), *x, std::string(m.unit)});
        }
    for (const auto& c : llmperf_run_values)
        if (const auto x = summary_number(summary, c.summary, document, source))
            meta.reported.push_back({std::string(c.reported), *x / c.divisor, std::string(c.unit)});
    add_llmperf_duration(meta);
    if (auto codes = summary_string(summary, "results_error_code_frequency", document, source);
        codes && *codes != "{}" && !codes->empty())
        meta.notes.push_back("LLMPerf's error codes and counts: " + *codes);
}

// The single JSON document of an LLMPerf file, with the text it was parsed from.
struct llmperf_document {
    std::string text;
    json_document document;
    std::size_t offset = 0; // where the document starts in text
};

inline llmperf_document read_llmperf_document(const std::filesystem::path& file, bool python_words) {
    llmperf_document out;
    out.text = read_json_file(file);
    if (python_words) out.text = python_words_to_json(std::move(out.text), "null");
    auto documents = parse_json_documents(file, out.text);
    if (documents.size() > 1)
        throw input_error(file.string(), documents[1].place.line, "", "more than one JSON document in the file");
    out.document = std::move(documents.front());
    std::string_view text = out.text;
    const std::size_t bom = text.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
    out.offset = text.find_first_not_of(" \t\r\n", bom);
    return out;
}

inline void read_llmperf_summary_file(const std::filesystem::path& file, run_metadata& meta) {
    const llmperf_document summary = read_llmperf_document(file, true);
    read_llmperf_summary_object(summary.document.value, summary.document.place, {summary.text}, meta);
}

// The summary of the same run, by LLMPerf's naming (`<prefix>_summary.json` beside
// `<prefix>_individual_responses.json`) or the leaderboard's folders (`summary/<x>.json` beside
// `individual/<x>.json`).
inline std::optional<std::filesystem::path> llmperf_summary_beside(const std::filesystem::path& file) {
    constexpr std::string_view suffix = "_individual_responses";
    const std::string stem = file.stem().string();
    std::error_code ec;
    if (stem.ends_with(suffix)) {
        auto beside = file.parent_path() / (stem.substr(0, stem.size() - suffix.size()) + "_summary.json");
        if (std::filesystem::is_regular_file(beside, ec)) return beside;
    }
    if (file.parent_path().filename() == "individual") {
        auto beside = file.parent_path().parent_path() / "summary" / file.filename();
        if (std::filesystem::is_regular_file(beside, ec)) return beside;
    }
    return std::nullopt;
}

// "llama2-7b-chat_550_150_individual_responses" → "llama2-7b-chat_550_150"; "lepton_7b" stays.
inline std::string llmperf_label(const std::filesystem::path& file) {
    std::string stem = file.stem().string();
    for (const std::string_view suffix : {"_individual_responses", "_summary"})
        if (stem.ends_with(suffix) && stem.size() > suffix.size()) return stem.substr(0, stem.size() - suffix.size());
    return stem;
}

// Without a summary, LLMPerf's own file name still tells the requested mean lengths:
// `{model}_{mean_input}_{mean_output}_individual_responses`.
inline void params_from_llmperf_name(const std::filesystem::path& file, run_metadata& meta) {
    const std::string label = llmperf_label(file);
    if (label.size() == file.stem().string().size()) return;
    std::string_view stem = label;
    std::array<std::int64_t, 2> numbers{};
    for (std::size_t k = 2; k-- > 0;) {
        const auto at = stem.rfind('_');
        if (at == std::string_view::npos) return;
        const std::string_view digits = stem.substr(at + 1);
        if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string_view::npos) return;
        numbers[k] = std::stoll(std::string(digits));
        stem = stem.substr(0, at);
    }
    meta.params["mean_input_tokens"] = numbers[0];
    meta.params["mean_output_tokens"] = numbers[1];
}

// The line each element of the JSON array starting at text[at] begins on, found with one scan.
inline std::vector<std::size_t> array_element_lines(std::string_view text, std::size_t at, std::size_t line) {
    std::vector<std::size_t> lines;
    int depth = 0;
    bool in_string = false, escaped = false, expect_element = false;
    for (std::size_t i = at; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '\n') ++line;
        if (in_string) {
            if (escaped) escaped = false;
            else if (c == '\\') escaped = true;
            else if (c == '"') in_string = false;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n') continue;
        if (depth == 1 && expect_element && c != ']') {
            lines.push_back(line);
            expect_element = false;
        }
        if (c == '"') in_string = true;
        else if (c == '[' || c == '{') expect_element = ++depth == 1;
        else if ((c == ']' || c == '}') && --depth == 0) break;
        else if (c == ',' && depth == 1) expect_element = true;
    }
    return lines;
}

// error_code: null for success; a whole number (HTTP status or LLMPerf's negative codes), or a
// string when an API put one in its error body.
struct llmperf_error_code {
    bool failed = false;
    std::optional<std::int64_t> number;
    std::string text;
};

inline llmperf_error_code read_error_code(const nlohmann::json& row, const json_place& place, const std::string& path) {
    const auto& v = json_require(row, "error_code", place, path);
    const std::string field = json_path(path, "error_code");
    if (v.is_null()) return {};
    if (v.is_string()) {
        const auto& s = v.get_ref<const std::string&>();
        std::int64_t number = 0;
        const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), number);
        if (!s.empty() && ec == std::errc() && end == s.data() + s.size()) return {true, number, s};
        return {true, std::nullopt, s};
    }
    const double x = json_number(v, place, field);
    if (x != std::floor(x) || std::abs(x) > 1e9) place.fail(field, "expected a whole number or null");
    const auto code = static_cast<std::int64_t>(x);
    return {true, code, std::to_string(code)};
}

// One request object. Failed requests keep their prompt length and error but no latency or output
// count: LLMPerf zeroes them (429, -1) or, for -100, excluded them from its statistics.
inline void read_llmperf_row(const nlohmann::json& row, const json_place& place, const std::string& path,
                             request_record& r) {
    json_object(row, place, path);
    const llmperf_error_code code = read_error_code(row, place, path);
    r.t_sent = 0.0;
    r.prompt_tokens = json_optional_count(json_member(row, "number_input_tokens"), place,
                                          json_path(path, "number_input_tokens"));
    std::string message;
    if (const auto* msg = json_member(row, "error_msg"); msg && !msg->is_null())
        message = json_string(*msg, place, json_path(path, "error_msg"));
    if (!code.failed) {
        const double ttft = json_duration(json_require(row, "ttft_s", place, path), place, json_path(path, "ttft_s"));
        const double e2e = json_duration(json_require(row, "end_to_end_latency_s", place, path), place,
                                         json_path(path, "end_to_end_latency_s"));
        if (ttft > e2e)
            place.fail(json_path(path, "ttft_s"), "ttft_s (" + shortest_number(ttft) +
                                                      ") is larger than end_to_end_latency_s (" + shortest_number(e2e) + ")");
        r.t_first = ttft;
        r.t_end = e2e;
        r.output_tokens = json_optional_count(json_member(row, "number_output_tokens"), place,
                                              json_path(path, "number_output_tokens"));
        r.status = request_status::ok;
        return;
    }
    std::optional<std::int32_t> http;
    if (code.number && *code.number >= 100 && *code.number <= 599) http = static_cast<std::int32_t>(*code.number);
    const failure_class failure = classify_failure_text(message, http);
    r.status = failure.status;
    r.http_status = failure.http_status;
    r.error = message.empty() ? "LLMPerf error_code " + code.text : std::move(message);
}

inline std::vector<run> read_llmperf(const std::filesystem::path& file, const read_options& options) {
    const llmperf_document doc = read_llmperf_document(file, false);
    const json_place& place = doc.document.place;
    const nlohmann::json& rows = doc.document.value;
    json_array(rows, place, "");
    if (rows.empty()) place.fail("", "empty array: no requests");
    const std::vector<std::size_t> lines = array_element_lines(doc.text, doc.offset, place.line);

    run out;
    out.skipped.unit = skipped_unit::record; // elements of one JSON array, not lines
    out.meta.label = llmperf_label(file);
    out.meta.tool = "llmperf";
    out.meta.source = {file.string(), std::string(llmperf_name)};
    out.meta.shared_clock = false;
    out.meta.kind = run_kind::requests;
    out.requests.reserve(rows.size());
    request_record record;
    std::size_t failed = 0;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const json_place row_place{place.file, i < lines.size() ? lines[i] : place.line};
        record.clear();
        try {
            read_llmperf_row(rows[i], row_place, json_path("", i), record);
        } catch (const input_error& e) {
            if (!options.skip_bad) throw;
            out.skipped.add(e.what());
            continue;
        }
        failed += record.status != request_status::ok;
        out.requests.push_back(record);
    }

    out.meta.notes.push_back("LLMPerf records no timestamps: every request starts at 0 (no shared clock)");
    out.meta.notes.emplace_back(llmperf_itl_note);
    out.meta.notes.emplace_back(llmperf_tokens_note);
    if (failed > 0)
        out.meta.notes.push_back(std::to_string(failed) + " failed requests carry no latencies (LLMPerf wrote zeros or "
                                 "excluded them); error_code -1 and -100 are LLMPerf's own codes, not HTTP statuses");
    if (const auto summary = llmperf_summary_beside(file)) {
        read_llmperf_summary_file(*summary, out.meta);
        out.meta.source.merged.push_back(summary->string());
        out.meta.notes.push_back("parameters, model, start time and reported values come from " +
                                 (summary->parent_path().filename() / summary->filename()).string());
        const auto* started = find_reported(out.meta, "requests");
        if (started && started->value != static_cast<double>(rows.size()))
            out.meta.notes.push_back("the summary counts " + std::to_string(static_cast<long long>(started->value)) +
                                     " requests, the file holds " + std::to_string(rows.size()));
    } else {
        params_from_llmperf_name(file, out.meta);
        out.meta.notes.push_back("no LLMPerf summary file beside it: duration, rps and token rates cannot be derived");
    }

    std::vector<run> runs;
    runs.push_back(std::move(out));
    return runs;
}

// One member of the object or array a multi-run file holds: its key as written (objects only), the
// line it starts on and its span in the text.
struct llmperf_member {
    std::string key;
    std::size_t line = 0, from = 0, to = 0;
};

// The members of the object or array starting at text[at], found with one scan, so that errors
// name the line of the summary they are about.
inline std::vector<llmperf_member> top_level_members(std::string_view text, std::size_t at, std::size_t line) {
    std::vector<llmperf_member> members;
    const bool object = at < text.size() && text[at] == '{';
    int depth = 0;
    bool in_string = false, escaped = false, expect_member = false, in_key = false;
    for (std::size_t i = at; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '\n') ++line;
        if (in_string) {
            if (escaped) escaped = false;
            else if (c == '\\') escaped = true;
            else if (c == '"') in_string = in_key = false;
            if (in_key && in_string) members.back().key += c;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n') continue;
        if (depth == 1 && expect_member && c != ']' && c != '}') {
            members.push_back({"", line, i, text.size()});
            expect_member = false;
            in_key = object && c == '"';
        }
        if (c == '"') in_string = true;
        else if (c == '[' || c == '{') expect_member = ++depth == 1;
        else if ((c == ']' || c == '}') && --depth == 0) {
            if (!members.empty()) members.back().to = i;
            break;
        } else if (c == ',' && depth == 1) {
            members.back().to = i;
            expect_member = true;
        }
    }
    return members;
}

// A key that is a load level ("8", "16", "0.5"), or nullopt.
inline std::optional<double> level_of_key(const std::string& key) {
    if (key.empty() || key.find_first_not_of("0123456789.") != std::string::npos) return std::nullopt;
    double x = 0;
    const auto [end, ec] = std::from_chars(key.data(), key.data() + key.size(), x);
    if (ec != std::errc() || end != key.data() + key.size()) return std::nullopt;
    return x;
}

inline run llmperf_summary_run(const std::filesystem::path& file) {
    run out;
    out.meta.label = llmperf_label(file);
    out.meta.tool = "llmperf";
    out.meta.source = {file.string(), std::string(llmperf_summary_name)};
    out.meta.shared_clock = false;
    out.meta.kind = run_kind::summary;
    return out;
}

inline void add_llmperf_summary_notes(run_metadata& meta) {
    meta.notes.push_back("LLMPerf's summary only: the tool's own aggregates, no per-request data");
    meta.notes.emplace_back(llmperf_itl_note);
    meta.notes.emplace_back(llmperf_tokens_note);
}

// A summary keyed by its load level must say the same level itself, if it says one.
inline void check_keyed_level(const llmperf_member& m, double level, const json_place& at, run_metadata& meta) {
    const auto given = meta.params.find("concurrency");
    if (given == meta.params.end()) {
        meta.params["concurrency"] = level == std::floor(level) ? nlohmann::json(static_cast<std::int64_t>(level))
                                                                 : nlohmann::json(level);
        meta.notes.push_back("the summary has no num_concurrent_requests: its concurrency is its key in the file, " +
                             m.key);
        return;
    }
    if (given->get<double>() != level)
        at.fail(json_path(m.key, "num_concurrent_requests"),
                "the file keys this summary by concurrency " + m.key + " but its num_concurrent_requests is " +
                    given->dump() + ": which is the run's level is unclear");
}

// "a, b, c" (at most `most` of them) for an error that says what a file holds instead.
inline std::string some_keys(const nlohmann::json& object, std::size_t most = 8) {
    std::string keys;
    std::size_t n = 0;
    for (const auto& [key, value] : object.items()) {
        if (n++ == most) return keys + ", ...";
        keys.append(keys.empty() ? "" : ", ").append(key);
    }
    return keys;
}

// Runs summarised in one file (a sweep saved by a script around LLMPerf): a JSON list of summaries,
// or an object of summaries keyed by concurrency ({"1": {...}, "8": {...}}). Each is one summary
// run, in the file's order.
inline std::vector<run> read_llmperf_summaries(const std::filesystem::path& file, const llmperf_document& doc) {
    const nlohmann::json& value = doc.document.value;
    const json_place& place = doc.document.place;
    const std::vector<llmperf_member> members = top_level_members(doc.text, doc.offset, place.line);
    std::vector<run> runs;
    auto read_member = [&](const nlohmann::json& summary, const llmperf_member& m, const std::string& path) {
        const json_place at{place.file, m.line};
        if (!looks_like_llmperf_summary(summary))
            at.fail(path, "not an LLMPerf summary (no results_* keys); a file of several runs must hold one LLMPerf "
                          "summary per member");
        run out = llmperf_summary_run(file);
        read_llmperf_summary_object(summary, at, {doc.text, m.from, m.to, path}, out.meta);
        add_llmperf_summary_notes(out.meta);
        runs.push_back(std::move(out));
        return at;
    };
    if (value.is_array()) {
        if (value.empty()) place.fail("", "empty array: no LLMPerf summaries");
        for (std::size_t i = 0; i < value.size(); ++i) {
            const llmperf_member m = i < members.size() ? members[i] : llmperf_member{"", place.line};
            read_member(value[i], m, json_path("", i));
            runs.back().meta.notes.push_back("summary " + std::to_string(i + 1) + " of the " +
                                             std::to_string(value.size()) + " in this file's list");
            if (!runs.back().meta.params.contains("concurrency"))
                runs.back().meta.notes.push_back("the summary has no num_concurrent_requests: its load level is unknown");
        }
        return runs;
    }
    bool keyed = value.is_object() && !value.empty();
    for (const auto& [key, member] : value.items()) keyed = keyed && member.is_object();
    if (!keyed)
        place.fail("", "no results_* keys: not an LLMPerf summary, nor a file of LLMPerf summaries keyed by "
                       "concurrency or in a list (top-level keys: " + some_keys(value) + ")");
    // The file's order, when the scan found every key as written; else the parser's.
    std::vector<llmperf_member> order;
    for (const auto& m : members)
        if (value.contains(m.key)) order.push_back(m);
    if (order.size() != value.size()) {
        order.clear();
        for (const auto& [key, member] : value.items()) order.push_back({key, place.line});
    }
    for (const auto& m : order) {
        const json_place at = read_member(value.at(m.key), m, m.key);
        if (const auto level = level_of_key(m.key)) check_keyed_level(m, *level, at, runs.back().meta);
        runs.back().meta.notes.push_back("one of the " + std::to_string(value.size()) +
                                         " summaries in this file, under the key \"" + m.key + "\"");
    }
    return runs;
}

inline std::vector<run> read_llmperf_summary(const std::filesystem::path& file, const read_options&) {
    const llmperf_document doc = read_llmperf_document(file, true);
    std::vector<run> runs;
    if (looks_like_llmperf_summary(doc.document.value)) {
        run out = llmperf_summary_run(file);
        read_llmperf_summary_object(doc.document.value, doc.document.place, {doc.text}, out.meta);
        add_llmperf_summary_notes(out.meta);
        runs.push_back(std::move(out));
        return runs;
    }
    runs = read_llmperf_summaries(file, doc);
    // They share the file's name: each is named by what sets it apart (its concurrency).
    name_runs_by_params(runs, runs.empty() ? std::string() : runs.front().meta.label); // the file's own name
    return runs;
}

// An array whose objects carry LLMPerf's per-request keys (and no statistics: a list of summaries
// written unflattened names the same quantities, each with its "quantiles").
inline int sniff_llmperf(std::string_view head) {
    if (first_json_char(head) != '[') return 0;
    if (head.find("\"ttft_s\"") == std::string_view::npos ||
        head.find("\"end_to_end_latency_s\"") == std::string_view::npos ||
        head.find("\"quantiles\"") != std::string_view::npos)
        return 0;
    int score = 80;
    if (head.find("\"inter_token_latency_s\"") != std::string_view::npos &&
        head.find("\"request_output_throughput_token_per_s\"") != std::string_view::npos)
        score = 100;
    return score;
}

// LLMPerf summaries: an object with the flattened results_<metric>_* keys, or with the nested
// results.<metric>.quantiles LLMPerf flattens them from; a list of such objects, or an object of
// them keyed by concurrency. A summary whose results lie past the head (a long
// additional_sampling_params before them) is still known by LLMPerf's settings and version.
inline int sniff_llmperf_summary(std::string_view head) {
    const char first = first_json_char(head);
    if (first != '{' && first != '[') return 0;
    auto has = [head](std::string_view key) { return head.find(key) != std::string_view::npos; };
    const bool flat = has("\"results_ttft_s_") || has("\"results_end_to_end_latency_s_");
    const bool nested = has("\"results\"") && has("\"quantiles\"") &&
                        (has("\"ttft_s\"") || has("\"end_to_end_latency_s\""));
    if (flat || nested) return has("\"num_concurrent_requests\"") ? 100 : 80;
    const bool settings = has("\"num_concurrent_requests\"") && has("\"mean_input_tokens\"") &&
                          has("\"stddev_output_tokens\"");
    return settings && has("\"2023-08-31\"") ? 70 : 0;
}

} // namespace detail

inline constexpr log_format llmperf_format{
    detail::llmperf_name, "LLMPerf per-request results (*_individual_responses.json; summary read from beside it)",
    &detail::sniff_llmperf, &detail::read_llmperf};

inline constexpr log_format llmperf_summary_format{
    detail::llmperf_summary_name,
    "LLMPerf summary (*_summary.json, or several runs' summaries in one file): the tool's aggregates only",
    &detail::sniff_llmperf_summary, &detail::read_llmperf_summary};

} // namespace servestat
