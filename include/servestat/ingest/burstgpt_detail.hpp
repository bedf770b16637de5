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
#include <cctype>      // std::isalnum, std::isdigit
#include <charconv>    // std::from_chars
#include <cmath>       // std::isfinite
#include <cstddef>     // std::size_t
#include <cstdint>     // std::int32_t, std::int64_t
#include <filesystem>  // std::filesystem::path
#include <optional>    // std::optional
#include <set>         // std::set
#include <string>      // std::string
#include <string_view> // std::string_view
#include <system_error> // std::errc
#include <utility>     // std::move
#include <vector>      // std::vector

#include <nlohmann/json.hpp> // nlohmann::json

#include "servestat/core/errors.hpp"          // input_error
#include "servestat/core/text.hpp"            // shortest_number
#include "servestat/core/request_record.hpp"  // request_record
#include "servestat/core/run.hpp"             // run
#include "servestat/ingest/json_document.hpp" // read_json_documents, json_place, json_* helpers
#include "servestat/ingest/reader.hpp"        // log_format, read_options

namespace servestat {
namespace detail {

inline constexpr std::string_view burstgpt_detail_name = "burstgpt-detail";

// The number after `name` in a file stem such as "detail_log_scale100_prompt500" (the harness
// names its logs after --scale and --prompt_num), as an integer when it is whole. The name must
// start the stem or follow a non-alphanumeric character, so "upscale2" is no scale.
inline std::optional<nlohmann::json> number_in_file_name(std::string_view stem, std::string_view name) {
    auto is_digit = [&](std::size_t i) { return i < stem.size() && std::isdigit(static_cast<unsigned char>(stem[i])); };
    auto digits_end = [&](std::size_t i) {
        while (is_digit(i)) ++i;
        return i;
    };
    for (std::size_t at = stem.find(name); at != std::string_view::npos; at = stem.find(name, at + 1)) {
        if (at > 0 && std::isalnum(static_cast<unsigned char>(stem[at - 1]))) continue;
        const std::size_t begin = at + name.size();
        std::size_t end = digits_end(begin);
        if (end == begin) continue;
        const bool fraction = end < stem.size() && stem[end] == '.' && is_digit(end + 1);
        if (fraction) end = digits_end(end + 1);
        const char* first = stem.data() + begin;
        const char* last = stem.data() + end;
        if (std::int64_t whole = 0; !fraction && std::from_chars(first, last, whole).ec == std::errc())
            return nlohmann::json(whole);
        if (double x = 0; fraction && std::from_chars(first, last, x).ec == std::errc()) return nlohmann::json(x);
    }
    return std::nullopt;
}

// --scale divides the BurstGPT timestamps (the load multiplier); --prompt_num is how many trace
// rows were replayed. Both logs of one run (detail_log and vllm_log) carry them in their names.
inline void add_burstgpt_file_params(const std::filesystem::path& file, nlohmann::json& params) {
    const std::string stem = file.stem().string();
    if (auto scale = number_in_file_name(stem, "scale")) params["scale"] = *scale;
    if (auto prompts = number_in_file_name(stem, "prompt")) params["prompt_num"] = *prompts;
}

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

    std::vector<run> runs;
    runs.push_back(burstgpt_run(file, entries));
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
