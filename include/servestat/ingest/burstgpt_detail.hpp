// Reader for the per-request detail log of BurstGPT's benchmark harness (example/profile_vllm_server.py,
// files detail_log_scale<N>_prompt<M>.json): one JSON object keyed by request index ("0".."499", not in
// order), each value one completed streaming request against a vLLM server.
//
// Fields read: event_id, in_len (prompt tokens), out_len_expected (max_tokens), first_chunk_time and
// total_chunk_time (seconds after the send), record_time (time.perf_counter() when the record was
// written, right after the stream ended). Ignored: out_len (the length in CHARACTERS of the returned
// text, which includes the prompt: not a token count), sampled_in_num and sampled_out_len (the
// BurstGPT row the request was matched to) and the GPU_* sample.
#pragma once

#include <algorithm>   // std::sort, std::min, std::max
#include <cmath>       // std::isfinite
#include <cstddef>     // std::size_t
#include <cstdint>     // std::int32_t, std::int64_t
#include <filesystem>  // std::filesystem::path
#include <memory>      // std::make_shared
#include <optional>    // std::optional
#include <set>         // std::set
#include <string>      // std::string
#include <string_view> // std::string_view
#include <utility>     // std::move
#include <vector>      // std::vector

#include <fmt/format.h>      // fmt::format
#include <nlohmann/json.hpp> // nlohmann::json

#include "servestat/core/errors.hpp"          // input_error
#include "servestat/core/text.hpp"            // shortest_number
#include "servestat/core/request_record.hpp"  // request_record
#include "servestat/core/run.hpp"             // run
#include "servestat/ingest/burstgpt_file_name.hpp" // add_burstgpt_file_params
#include "servestat/ingest/json_document.hpp" // read_json_documents, json_place, json_* helpers
#include "servestat/ingest/reader.hpp"        // log_format, read_options
#include "servestat/ingest/vllm_server_stats.hpp" // read_vllm_stats_timeline, vllm_stats_server_timeline

namespace servestat {
namespace detail {

inline constexpr std::string_view burstgpt_detail_name = "burstgpt-detail";

// One record as the harness wrote it; times stay relative to the earliest record_time until the
// run's origin (the earliest send) is known.
struct burstgpt_entry {
    double end = 0;   // record_time - earliest record_time
    double total = 0; // total_chunk_time
    std::optional<double> first;
    std::int64_t event_id = 0;
    std::int32_t prompt_tokens = 0;
    std::optional<std::int32_t> max_tokens;
};

// The JSON path of a request's field: "17".first_chunk_time (keys are numbers in quotes).
inline std::string burstgpt_path(const std::string& key, std::string_view field = {}) {
    std::string path = "\"" + key + "\"";
    return field.empty() ? path : json_path(path, field);
}

inline double burstgpt_record_time(const nlohmann::json& request, const json_place& place, const std::string& key) {
    return json_number(json_require(request, "record_time", place, burstgpt_path(key)), place,
                       burstgpt_path(key, "record_time"));
}

// first_chunk_time stays 0 when no stream chunk was timed (the harness's initial value, e.g. a
// non-streaming run): then there is no TTFT rather than a TTFT of 0.
inline burstgpt_entry read_burstgpt_entry(const std::string& key, const nlohmann::json& request,
                                          const json_place& place, double earliest_record) {
    const std::string parent = burstgpt_path(key);
    json_object(request, place, parent);
    auto field = [&](std::string_view name) -> const nlohmann::json& {
        return json_require(request, name, place, parent);
    };
    burstgpt_entry e;
    e.event_id = json_count(field("event_id"), place, burstgpt_path(key, "event_id"));
    e.prompt_tokens = json_count(field("in_len"), place, burstgpt_path(key, "in_len"));
    e.max_tokens = json_optional_count(json_member(request, "out_len_expected"), place,
                                       burstgpt_path(key, "out_len_expected"));
    e.total = json_duration(field("total_chunk_time"), place, burstgpt_path(key, "total_chunk_time"));
    const double first = json_duration(field("first_chunk_time"), place, burstgpt_path(key, "first_chunk_time"));
    if (first > e.total)
        place.fail(burstgpt_path(key, "first_chunk_time"),
                   "first chunk after the end of the stream (" + shortest_number(first) + " s > total_chunk_time " +
                       shortest_number(e.total) + " s)");
    if (first > 0) e.first = first;
    // Readings of one perf_counter run usually lie within a factor of two of each other, which makes
    // this difference exact (Sterbenz); either way it comes before the small durations are subtracted.
    e.end = burstgpt_record_time(request, place, key) - earliest_record;
    return e;
}

inline std::vector<std::string> burstgpt_notes(std::size_t untimed_first, std::int64_t missing_ids) {
    std::vector<std::string> notes{
        "output length recorded in characters (out_len counts the characters of the returned text, "
        "which includes the prompt): output tokens, tpot and token rates are unavailable",
        "t_end = record_time (perf_counter seconds when the record was written, just after the stream "
        "ended), t_sent = t_end - total_chunk_time, t_first = t_sent + first_chunk_time; 0 = the first send",
        "prompt_tokens = in_len (the harness's token count of the prompt it sent); max_tokens = out_len_expected",
        "GPU_* fields (one GPU sample per request) and sampled_in_num/sampled_out_len are ignored",
        "the harness writes a record only for a request that completed with HTTP 200, so failures are "
        "not in the file"};
    if (missing_ids > 0)
        notes.push_back(std::to_string(missing_ids) +
                        " event ids below the largest are missing: those requests probably failed");
    if (untimed_first > 0)
        notes.push_back(std::to_string(untimed_first) +
                        " requests have first_chunk_time 0 (no chunk was timed): their TTFT is absent");
    return notes;
}

inline run burstgpt_run(const std::filesystem::path& file, std::vector<burstgpt_entry>& entries) {
    std::sort(entries.begin(), entries.end(), [](const burstgpt_entry& a, const burstgpt_entry& b) {
        return a.end != b.end ? a.end < b.end : a.event_id < b.event_id;
    });
    double origin = entries.front().end - entries.front().total;
    std::int64_t largest_id = 0;
    std::set<std::int64_t> ids;
    std::set<std::int32_t> max_tokens;
    std::size_t untimed_first = 0;
    for (const auto& e : entries) {
        origin = std::min(origin, e.end - e.total);
        largest_id = std::max(largest_id, e.event_id);
        ids.insert(e.event_id);
        if (e.max_tokens) max_tokens.insert(*e.max_tokens);
        untimed_first += !e.first;
    }

    run out;
    out.meta.label = file.stem().string();
    out.meta.tool = "burstgpt";
    out.meta.source = {file.string(), std::string(burstgpt_detail_name)};
    add_burstgpt_file_params(file, out.meta.params);
    if (max_tokens.size() == 1) out.meta.params["max_tokens"] = *max_tokens.begin();
    out.meta.notes = burstgpt_notes(untimed_first, largest_id + 1 - static_cast<std::int64_t>(ids.size()));
    out.requests.reserve(entries.size());
    request_record r;
    for (const auto& e : entries) {
        r.clear();
        r.t_sent = (e.end - e.total) - origin;
        r.t_end = e.end - origin;
        if (e.first) r.t_first = *r.t_sent + *e.first;
        r.prompt_tokens = e.prompt_tokens;
        r.max_tokens = e.max_tokens;
        out.requests.push_back(r);
    }
    return out;
}

// The server-statistics timeline the harness wrote for the same replay (vllm_log_scale<N>_prompt<M>.csv
// beside detail_log_scale<N>_prompt<M>.json, or in the sibling folder vllm_log/, as it lays them out).
inline std::optional<std::filesystem::path> burstgpt_stats_beside(const std::filesystem::path& file) {
    const std::string stem = file.stem().string();
    constexpr std::string_view prefix = "detail_log";
    if (!stem.starts_with(prefix)) return std::nullopt;
    const std::string name = "vllm_log" + stem.substr(prefix.size()) + ".csv";
    for (const auto& dir : {file.parent_path(), file.parent_path().parent_path() / "vllm_log"}) {
        std::error_code ec;
        if (std::filesystem::is_regular_file(dir / name, ec)) return dir / name;
    }
    return std::nullopt;
}

// The server's side of the run: its timeline (charted like a /metrics scrape) and its aggregates as
// reported values, the file merged so a folder read shows one run. `origin` is the perf_counter time
// of the run's t = 0, the clock both files share. A broken timeline must not hide the requests.
inline void add_burstgpt_server_stats(run& r, const std::filesystem::path& file, double origin, const read_options& options) {
    const auto stats = burstgpt_stats_beside(file);
    if (!stats) return;
    r.meta.source.merged.push_back(stats->string());
    try {
        skipped_lines skipped;
        const vllm_stats_timeline t = read_vllm_stats_timeline(*stats, options, skipped);
        for (auto& v : vllm_stats_reported(t)) r.meta.reported.push_back(std::move(v));
        r.meta.server_timeline = std::make_shared<server_timeline>(vllm_stats_server_timeline(t, stats->string(), origin));
        r.meta.notes.push_back(fmt::format("{}: vLLM's statistics of the same replay, {} samples from t = {:.2f} s to {:.2f} s "
                                           "on the run's clock, are its server timeline and its vllm.* reported values",
                                           stats->filename().string(), t.samples, t.first_time - origin, t.last_time - origin));
        if (skipped.count > 0)
            r.meta.notes.push_back(fmt::format("{}: {} bad row(s) skipped", stats->filename().string(), skipped.count));
    } catch (const input_error& e) {
        r.meta.notes.push_back(stats->filename().string() + " was not used as the server timeline: " + e.what());
    }
}

inline std::vector<run> read_burstgpt_detail(const std::filesystem::path& file, const read_options& options) {
    const std::vector<json_document> documents = read_json_documents(file);
    const json_place& place = documents.front().place;
    if (documents.size() != 1)
        throw input_error(file.string(), documents[1].place.line, "",
                          "expected one JSON object, found a second document");
    const nlohmann::json& requests = json_object(documents.front().value, place, "");
    if (requests.empty()) place.fail("", "no requests in the object");

    // The earliest record_time is the subtrahend of every end time; a bad one is reported below.
    std::optional<double> earliest;
    for (const auto& [key, request] : requests.items()) {
        const auto* t = json_member(request, "record_time");
        if (t && t->is_number() && std::isfinite(t->get<double>()))
            earliest = std::min(earliest.value_or(t->get<double>()), t->get<double>());
    }

    skipped_lines skipped;
    skipped.unit = skipped_unit::record; // members of one JSON object, not lines
    std::vector<burstgpt_entry> entries;
    entries.reserve(requests.size());
    for (const auto& [key, request] : requests.items()) {
        try {
            entries.push_back(read_burstgpt_entry(key, request, place, earliest.value_or(0.0)));
        } catch (const input_error& e) {
            if (!options.skip_bad) throw;
            skipped.add(e.what());
        }
    }
    if (entries.empty()) place.fail("", "every request was bad");

    double origin = entries.front().end - entries.front().total; // the first send, as burstgpt_run takes it
    for (const auto& e : entries) origin = std::min(origin, e.end - e.total);
    std::vector<run> runs;
    runs.push_back(burstgpt_run(file, entries));
    add_burstgpt_server_stats(runs.back(), file, earliest.value_or(0.0) + origin, options);
    // Python's NaN and Infinity, read by parse_json_documents, named in the notes.
    runs.back().meta.notes.insert(runs.back().meta.notes.end(), place.nonfinite_notes().begin(),
                                  place.nonfinite_notes().end());
    runs.back().skipped = std::move(skipped);
    return runs;
}

// An object whose first request carries the harness's three timing fields.
inline int sniff_burstgpt_detail(std::string_view head) {
    if (first_json_char(head) != '{') return 0;
    for (const std::string_view key : {"\"first_chunk_time\"", "\"total_chunk_time\"", "\"record_time\""})
        if (head.find(key) == std::string_view::npos) return 0;
    return head.find("\"out_len_expected\"") != std::string_view::npos ? 100 : 80;
}

} // namespace detail

inline constexpr log_format burstgpt_detail_format{
    detail::burstgpt_detail_name,
    "per-request detail log of BurstGPT's vLLM benchmark harness (detail_log_scale<N>_prompt<M>.json)",
    &detail::sniff_burstgpt_detail, &detail::read_burstgpt_detail};

} // namespace servestat
