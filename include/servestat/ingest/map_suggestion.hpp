// What to say when no format recognises a file. A JSON array of objects, JSON Lines or a CSV table
// is most likely the per-request log of a tool servestat has no reader for, which --map can read:
// the message lists the names the file holds and a --map line guessed from them (which name is which
// of servestat's fields, from the names; time units from the names or, failing that, the values),
// every guess named as one, so the user checks it rather than trusts it.
#pragma once

#include <algorithm>   // std::sort, std::find, std::any_of, std::max_element
#include <cctype>      // std::isalnum, std::islower, std::isupper, std::tolower
#include <cmath>       // std::fabs, std::isfinite
#include <cstddef>          // std::size_t
#include <cstdint>          // std::uintmax_t
#include <cstdio>           // std::snprintf
#include <filesystem>       // std::filesystem
#include <initializer_list> // std::initializer_list
#include <optional>         // std::optional
#include <string>           // std::string
#include <string_view>      // std::string_view
#include <system_error>     // std::error_code
#include <utility>          // std::pair
#include <vector>           // std::vector

#include <nlohmann/json.hpp> // nlohmann::json

#include "servestat/core/errors.hpp"           // input_error, usage_error
#include "servestat/core/text.hpp"             // equals_ignoring_case, trim_spaces
#include "servestat/core/units.hpp"            // time_unit
#include "servestat/ingest/csv.hpp"            // csv_reader, csv_record
#include "servestat/ingest/json_document.hpp"  // parse_json_documents, parse_json_text, first_json_char
#include "servestat/ingest/mapped.hpp"         // parse_number_text
#include "servestat/ingest/mapped_sources.hpp" // source_text, list_names
#include "servestat/ingest/mapping_spec.hpp"   // parse_mapping
#include "servestat/ingest/statistic_column.hpp" // is_statistic_name

namespace servestat::detail {

// ---- what the file holds -----------------------------------------------------------------------

// The values one name (a CSV column, a JSON key path) takes in the first requests.
struct sampled_field {
    std::vector<std::string> keys; // the path; a CSV column is one key
    std::string name;              // as --map writes it
    std::vector<double> numbers;
    bool integers_only = true;
    std::size_t texts = 0, booleans = 0, numeric_arrays = 0, other = 0;
    std::vector<std::string> distinct_texts; // the first few
    std::vector<double> array_numbers;       // the numbers inside numeric arrays (gaps), the first few hundred
};

struct sampled_table {
    std::string what;                   // "a JSON array of 12 objects"
    std::string records;                // records= path, empty when the requests are the top level
    std::string listed_as;              // "keys of the first request", "columns"
    std::vector<std::string> top_names; // what the message lists
    std::vector<sampled_field> fields;  // every leaf name, file order
    std::string note;                   // e.g. other arrays of objects the guess did not read
    std::size_t sampled = 0;            // requests (rows, objects) sampled
};

inline constexpr std::size_t sampled_requests = 50;

inline constexpr std::string_view canonical_statuses[] = {"ok", "error", "timeout", "transport", "cancelled"};

inline sampled_field& field_named(sampled_table& t, const std::vector<std::string>& keys) {
    for (auto& f : t.fields)
        if (f.keys == keys) return f;
    t.fields.push_back({keys, source_text(keys)});
    return t.fields.back();
}

inline void add_number(sampled_field& f, double x) {
    if (!std::isfinite(x)) return;
    f.numbers.push_back(x);
    if (x != std::floor(x)) f.integers_only = false; // not a cast to an integer: 1e300 would overflow it
}

inline void add_text(sampled_field& f, std::string_view text) {
    ++f.texts;
    if (f.distinct_texts.size() < 8 &&
        std::find(f.distinct_texts.begin(), f.distinct_texts.end(), text) == f.distinct_texts.end())
        f.distinct_texts.emplace_back(text);
}

inline void add_json_value(sampled_field& f, const nlohmann::json& v) {
    if (v.is_null()) return;
    if (v.is_boolean()) {
        ++f.booleans;
    } else if (v.is_number()) {
        add_number(f, v.get<double>());
    } else if (v.is_string()) {
        add_text(f, v.get_ref<const std::string&>());
    } else if (v.is_array() && std::all_of(v.begin(), v.end(), [](const nlohmann::json& x) { return x.is_number(); })) {
        ++f.numeric_arrays;
        for (const auto& x : v)
            if (f.array_numbers.size() < 500) f.array_numbers.push_back(x.get<double>());
    } else {
        ++f.other;
    }
}

// Nested objects become dotted names (`usage.completion_tokens`), three levels deep at most.
inline void sample_object(sampled_table& t, const nlohmann::json& object, std::vector<std::string>& keys) {
    for (const auto& [key, value] : object.items()) {
        keys.push_back(key);
        if (value.is_object() && !value.empty() && keys.size() < 3) sample_object(t, value, keys);
        else add_json_value(field_named(t, keys), value);
        keys.pop_back();
    }
}

inline void sample_requests(sampled_table& t, const std::vector<const nlohmann::json*>& requests) {
    for (std::size_t i = 0; i < requests.size() && i < sampled_requests; ++i) {
        ++t.sampled;
        std::vector<std::string> keys;
        sample_object(t, *requests[i], keys);
    }
    if (!requests.empty())
        for (const auto& [key, value] : requests.front()->items()) t.top_names.push_back(key);
}

// Arrays of objects inside a JSON object (through objects only, three levels deep): where a tool
// keeps its requests.
inline void find_arrays_of_objects(const nlohmann::json& object, std::vector<std::string>& keys,
                                   std::vector<std::pair<std::vector<std::string>, const nlohmann::json*>>& out) {
    for (const auto& [key, value] : object.items()) {
        keys.push_back(key);
        if (value.is_array() && !value.empty() && value.front().is_object()) out.emplace_back(keys, &value);
        else if (value.is_object() && keys.size() < 3) find_arrays_of_objects(value, keys, out);
        keys.pop_back();
    }
}

inline std::vector<const nlohmann::json*> objects_in(const nlohmann::json& array) {
    std::vector<const nlohmann::json*> out;
    for (const auto& v : array)
        if (v.is_object() && out.size() < sampled_requests) out.push_back(&v);
    return out;
}

inline std::optional<sampled_table> sample_json_document(const nlohmann::json& doc) {
    sampled_table t;
    if (doc.is_array()) {
        const auto requests = objects_in(doc);
        if (requests.empty()) return std::nullopt;
        t.what = "a JSON array of " + std::to_string(doc.size()) + " objects";
        t.listed_as = "keys of the first";
        sample_requests(t, requests);
        return t;
    }
    if (!doc.is_object()) return std::nullopt;
    std::vector<std::pair<std::vector<std::string>, const nlohmann::json*>> arrays;
    std::vector<std::string> keys;
    find_arrays_of_objects(doc, keys, arrays);
    if (arrays.empty()) return std::nullopt;
    // The longest array is the likeliest list of requests.
    const auto best = std::max_element(arrays.begin(), arrays.end(), [](const auto& a, const auto& b) {
        return a.second->size() < b.second->size();
    });
    t.records = source_text(best->first);
    t.what = "a JSON object holding an array of " + std::to_string(best->second->size()) + " objects at '" +
             t.records + "'";
    t.listed_as = "keys of its first";
    if (arrays.size() > 1) {
        std::vector<std::string> others;
        for (const auto& [path, array] : arrays)
            if (&array != &best->second) others.push_back(source_text(path) + " (" + std::to_string(array->size()) + ")");
        t.note = "other arrays of objects in it: " + list_names(others, 5);
    }
    sample_requests(t, objects_in(*best->second));
    return t;
}

inline void add_cell(sampled_field& f, std::string_view cell) {
    cell = trim_spaces(cell);
    if (cell.empty() || equals_ignoring_case(cell, "nan") || equals_ignoring_case(cell, "null")) return;
    if (const auto n = parse_number_text(cell)) {
        add_number(f, n->value());
    } else if (equals_ignoring_case(cell, "true") || equals_ignoring_case(cell, "false")) {
        ++f.booleans;
    } else if (cell.front() == '[') {
        const auto parsed = nlohmann::json::parse(cell, nullptr, false);
        if (!parsed.is_discarded()) add_json_value(f, parsed);
        else add_text(f, cell);
    } else {
        add_text(f, cell);
    }
}

// A CSV table: a header of at least two plain names, and rows of as many cells.
inline std::optional<sampled_table> sample_csv(std::string_view head, bool whole_file) {
    try {
        csv_reader csv(head, "head", head.size() + 1);
        csv.read_header();
        const auto& header = csv.header();
        if (header.size() < 2) return std::nullopt;
        // Names, not prose: a sentence with commas in it is not a header.
        for (const auto& name : header)
            if (trim_spaces(name).empty() || name.size() > 64 || std::any_of(name.begin(), name.end(), [](char c) {
                    return static_cast<unsigned char>(c) < 0x20;
                }))
                return std::nullopt;
        sampled_table t;
        t.what = "a CSV table";
        t.listed_as = "columns";
        t.top_names = header;
        // A name repeated in the header samples into one field: index fields by column, not position.
        std::vector<std::size_t> field_of_column;
        for (const auto& name : header)
            field_of_column.push_back(static_cast<std::size_t>(&field_named(t, {name}) - t.fields.data()));
        std::vector<csv_record> rows;
        csv_record row;
        try {
            while (rows.size() <= sampled_requests && csv.next(row)) rows.push_back(row);
        } catch (const input_error&) {
            // a cut or ragged row ends the sample
        }
        // The head may end inside the last row.
        if (!whole_file && !rows.empty()) rows.pop_back();
        if (rows.empty()) return std::nullopt;
        t.sampled = rows.size();
        for (const auto& r : rows)
            for (std::size_t i = 0; i < header.size() && i < r.fields.size(); ++i)
                add_cell(t.fields[field_of_column[i]], r.fields[i]);
        return t;
    } catch (const input_error&) {
        return std::nullopt;
    }
}

// JSON Lines: the complete lines of the head, while each is an object (empty when one is not).
inline std::vector<nlohmann::json> head_objects(std::string_view head, bool whole_file) {
    std::vector<nlohmann::json> objects;
    std::size_t at = 0;
    while (at < head.size() && objects.size() < sampled_requests) {
        const std::size_t end = head.find('\n', at);
        if (end == std::string_view::npos && !whole_file) break;
        const std::string_view line = head.substr(at, end == std::string_view::npos ? head.size() - at : end - at);
        at = end == std::string_view::npos ? head.size() : end + 1;
        if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
        auto v = nlohmann::json::parse(line, nullptr, false);
        if (v.is_discarded() || !v.is_object()) return {};
        objects.push_back(std::move(v));
    }
    return objects;
}

inline sampled_table sample_json_lines(const std::vector<const nlohmann::json*>& requests) {
    sampled_table t;
    t.what = "JSON Lines, one object per line";
    t.listed_as = "keys of the first line";
    sample_requests(t, requests);
    return t;
}

inline constexpr std::uintmax_t inspected_document_bytes = std::uintmax_t{256} << 20;

// `head` is the file's first `sniffed_bytes` (all of it when shorter).
inline std::optional<sampled_table> sample_table(const std::filesystem::path& file, std::string_view head,
                                                 std::size_t sniffed_bytes) {
    const bool whole_file = head.size() < sniffed_bytes;
    const char first = first_json_char(head);
    if (first == '{') {
        const std::vector<nlohmann::json> objects = head_objects(head, whole_file);
        std::vector<const nlohmann::json*> requests;
        for (const auto& o : objects) requests.push_back(&o);
        if (requests.size() > 1) return sample_json_lines(requests);
        // One line: a document holding the requests, or the first of very long lines.
        if (requests.size() == 1) {
            if (auto doc = sample_json_document(objects.front())) return doc;
            return sample_json_lines(requests);
        }
    }
    if (first == '{' || first == '[') {
        std::error_code ec;
        const auto size = std::filesystem::file_size(file, ec);
        if (ec || size > inspected_document_bytes) return std::nullopt;
        const auto documents = parse_json_documents(file, read_json_file(file));
        if (documents.size() == 1) return sample_json_document(documents.front().value);
        std::vector<const nlohmann::json*> requests;
        for (const auto& d : documents)
            if (d.value.is_object() && requests.size() < sampled_requests) requests.push_back(&d.value);
        if (requests.empty()) return std::nullopt;
        return sample_json_lines(requests);
    }
    return sample_csv(head, whole_file);
}

// ---- which name is which field -------------------------------------------------------------------

// `timeToFirstToken`, `TTFT (ms)`, `usage.completion_tokens` → lower-case words.
inline std::vector<std::string> name_words(std::string_view name) {
    std::vector<std::string> words(1);
    for (std::size_t i = 0; i < name.size(); ++i) {
        const unsigned char c = static_cast<unsigned char>(name[i]);
        if (!std::isalnum(c)) {
            if (!words.back().empty()) words.emplace_back();
            continue;
        }
        if (std::isupper(c) && i > 0 && std::islower(static_cast<unsigned char>(name[i - 1])) && !words.back().empty())
            words.emplace_back();
        words.back().push_back(static_cast<char>(std::tolower(c)));
    }
    if (words.back().empty()) words.pop_back();
    return words;
}

struct field_words {
    std::vector<std::string> words;
    bool has(std::string_view w) const { return std::find(words.begin(), words.end(), w) != words.end(); }
    bool any(std::initializer_list<std::string_view> ws) const {
        return std::any_of(ws.begin(), ws.end(), [&](std::string_view w) { return has(w); });
    }
};

inline std::optional<time_unit> unit_from_name(const field_words& w) {
    if (w.any({"ms", "msec", "msecs", "millis", "milliseconds", "millisecond"})) return time_unit::ms;
    if (w.any({"us", "usec", "usecs", "micros", "microseconds", "microsecond"})) return time_unit::us;
    if (w.any({"ns", "nsec", "nanos", "nanoseconds", "nanosecond"})) return time_unit::ns;
    if (w.any({"s", "sec", "secs", "seconds", "second"})) return time_unit::s;
    return std::nullopt;
}

inline double median_of(std::vector<double> v) {
    for (double& x : v) x = std::fabs(x);
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
}

// Seconds since 1970 in 1990..2200, written in s, ms, us or ns.
inline std::optional<time_unit> epoch_unit(double magnitude) {
    const double lo = 631152000.0, hi = 7258118400.0;
    if (magnitude >= lo && magnitude < hi) return time_unit::s;
    if (magnitude >= lo * 1e3 && magnitude < hi * 1e3) return time_unit::ms;
    if (magnitude >= lo * 1e6 && magnitude < hi * 1e6) return time_unit::us;
    if (magnitude >= lo * 1e9 && magnitude < hi * 1e9) return time_unit::ns;
    return std::nullopt;
}


inline std::string rough(double x) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.4g", x);
    return buffer;
}

enum class guessed_role {
    t_sched, t_sent, t_first, t_end, ttft, e2e, tpot, itl, client_queue, server_queue, server_prefill,
    prompt_tokens, output_tokens, max_tokens, http_status, status, error, ok_flag, none
};

struct role_match {
    guessed_role role = guessed_role::none;
    double score = 0; // higher is surer; shorter names win ties
};

struct classified_field {
    const sampled_field* field;
    field_words words;
    std::optional<time_unit> epoch; // values look like a wall clock in this unit
    double median = 0;
    bool numeric = false;
};

inline bool looks_timed(const classified_field& c) {
    return c.epoch.has_value() || c.words.any({"time", "ts", "timestamp", "at", "t", "stamp", "clock"});
}

// How well `c` fits `role` by its name and values: 0 for not at all.
inline double fit(const classified_field& c, guessed_role role) {
    const field_words& w = c.words;
    const sampled_field& f = *c.field;
    const bool number = c.numeric && f.numeric_arrays == 0;
    const bool duration = number && !c.epoch;
    const bool count = number && f.integers_only && !c.epoch;
    const double length_penalty = 0.05 * static_cast<double>(w.words.size());
    const auto scored = [&](double base) { return base - length_penalty; };
    switch (role) {
    case guessed_role::itl:
        if (f.numeric_arrays > 0 && (w.any({"itl", "itls", "inter", "gaps", "gap", "tbt", "intertoken"}) ||
                                     (w.any({"token", "tokens"}) && w.any({"latencies", "latency", "gaps"}))))
            return scored(3);
        return 0;
    case guessed_role::t_sched:
        if (number && looks_timed(c) && w.any({"sched", "scheduled", "schedule", "intended", "planned", "arrival"}) &&
            !w.any({"delay", "lag"}))
            return scored(3);
        return 0;
    case guessed_role::t_sent:
        if (!number || !looks_timed(c) || w.any({"first", "end", "finish", "finished", "sched", "scheduled", "token"}))
            return 0;
        if (w.any({"start", "started", "sent", "send", "begin", "issued", "submitted", "submit"})) return scored(3);
        if (w.any({"timestamp", "created", "ts"})) return scored(2);
        return 0;
    case guessed_role::t_first:
        if (number && looks_timed(c) && w.has("first") &&
            (c.epoch || w.any({"token", "chunk", "byte", "response"})) &&
            !w.any({"to", "ttft", "latency", "duration", "delay"}))
            return scored(3);
        return 0;
    case guessed_role::t_end:
        if (number && looks_timed(c) && w.any({"end", "finish", "finished", "completed", "complete", "done", "stop"}) &&
            !w.any({"to", "e2e", "latency", "duration"}))
            return scored(3);
        return 0;
    case guessed_role::ttft:
        if (!duration) return 0;
        if (w.any({"ttft", "ttfb", "ttfa", "ttfo"})) return scored(4);
        if (w.has("first") && w.any({"token", "chunk", "byte"}) &&
            (w.has("to") || w.any({"latency", "duration", "delay", "ms", "s", "us", "ns"})))
            return scored(3);
        return 0;
    case guessed_role::e2e:
        if (!duration) return 0;
        if (w.any({"inter", "itl", "token", "first", "queue", "prefill", "decode", "ttft", "schedule", "sched", "ack"}))
            return 0;
        if (w.any({"e2e", "e2el"}) || (w.has("end") && w.has("to"))) return scored(4);
        if (w.any({"latency", "latencies"}) || (w.has("response") && w.has("time"))) return scored(3);
        if (w.any({"elapsed", "duration"}) || (w.has("total") && w.has("time"))) return scored(2);
        return 0;
    case guessed_role::tpot:
        if (duration && (w.has("tpot") || (w.has("per") && w.any({"token", "tok"}) && w.has("time"))))
            return scored(3);
        return 0;
    case guessed_role::client_queue:
        if (duration && ((w.any({"schedule", "sched", "scheduling"}) && w.any({"delay", "lag"})) ||
                         (w.has("client") && w.any({"queue", "queued", "queueing", "queuing"}))))
            return scored(3);
        return 0;
    case guessed_role::server_queue:
        if (duration && w.any({"queue", "queued", "queueing", "queuing"}) && !w.has("client")) return scored(2);
        return 0;
    case guessed_role::server_prefill:
        if (duration && w.has("prefill") && !w.any({"tokens", "token"})) return scored(2);
        return 0;
    case guessed_role::prompt_tokens:
        if (!count || w.any({"max", "id", "ids"})) return 0;
        if (w.any({"prompt", "input", "context", "isl"}) && w.any({"tokens", "token", "toks", "tok", "len", "length", "count"}))
            return scored(3);
        if (w.has("isl") || (w.any({"tokens", "token"}) && w.has("in"))) return scored(2);
        return 0;
    case guessed_role::output_tokens:
        if (!count || w.any({"max", "id", "ids", "prompt", "input"})) return 0;
        if (w.any({"output", "completion", "generated", "generation", "gen", "osl", "new", "decode"}) &&
            w.any({"tokens", "token", "toks", "tok", "len", "length", "count"}))
            return scored(3);
        if (w.has("osl") || (w.any({"tokens", "token"}) && w.has("out"))) return scored(2);
        return 0;
    case guessed_role::max_tokens:
        if (count && w.has("max") && w.any({"tokens", "token"})) return scored(3);
        return 0;
    case guessed_role::http_status:
        if (!c.numeric || !f.integers_only || f.texts > 0 || f.numbers.empty()) return 0;
        if (!std::all_of(f.numbers.begin(), f.numbers.end(), [](double x) { return x >= 100 && x <= 599; })) return 0;
        if (w.has("http") || (w.has("status") && w.has("code"))) return scored(4);
        if (w.any({"status", "code"})) return scored(3);
        return 0;
    case guessed_role::status:
        if (f.texts == 0 || f.numbers.size() > 0 || !w.any({"status", "state", "outcome"})) return 0;
        for (const auto& t : f.distinct_texts)
            if (!std::any_of(std::begin(canonical_statuses), std::end(canonical_statuses),
                             [&](std::string_view s) { return equals_ignoring_case(t, s); }))
                return 0;
        return scored(3);
    case guessed_role::error:
        if (f.numbers.size() > 0 || f.booleans > 0 || f.numeric_arrays > 0) return 0;
        if (w.any({"error", "errors", "err", "exception", "failure"}) &&
            !w.any({"code", "type", "count", "status"}))
            return scored(w.any({"message", "msg", "text", "detail"}) ? 4 : 3);
        return 0;
    case guessed_role::ok_flag:
        if (f.booleans > 0 && f.texts == 0 && f.numbers.empty() &&
            w.any({"success", "ok", "succeeded", "successful", "passed", "completed"}))
            return scored(3);
        return 0;
    case guessed_role::none: return 0;
    }
    return 0;
}


// ---- the guess -----------------------------------------------------------------------------------

struct map_guess {
    std::string map;                  // the --map value
    std::string ok_if;                // the --ok-if value, or empty
    std::vector<std::string> reasons; // how each time unit was guessed
    std::string missing;              // why `map` is not a complete mapping; empty when it is
};

inline std::vector<classified_field> classify(const sampled_table& t) {
    std::vector<classified_field> out;
    for (const auto& f : t.fields) {
        // A statistic of many requests (ttft_p50_ms, mean_itl) is never one request's field.
        if (is_statistic_name(f.name)) continue;
        classified_field c{&f, {name_words(f.name)}};
        c.numeric = !f.numbers.empty() && f.texts == 0;
        c.median = median_of(f.numbers);
        // A unit in the name must agree: `latency_ns` of 1.5e9 is 1.5 s, not a date in 2017.
        const auto named = unit_from_name(c.words);
        if (c.numeric) c.epoch = epoch_unit(c.median);
        if (c.epoch && named && *named != *c.epoch) c.epoch.reset();
        out.push_back(std::move(c));
    }
    return out;
}

// For each role, the best-fitting name not taken by a role before it (ties: the first in the file).
inline std::vector<std::pair<guessed_role, const classified_field*>> assign_roles(
    const std::vector<classified_field>& fields) {
    using enum guessed_role;
    std::vector<std::pair<guessed_role, const classified_field*>> out;
    std::vector<bool> taken(fields.size(), false);
    for (const guessed_role role : {itl, http_status, status, ok_flag, error, t_sched, t_sent, t_first, t_end, ttft,
                                    e2e, tpot, client_queue, server_queue, server_prefill, prompt_tokens,
                                    output_tokens, max_tokens}) {
        std::optional<std::size_t> best;
        double best_score = 0;
        for (std::size_t i = 0; i < fields.size(); ++i) {
            if (taken[i]) continue;
            const double score = fit(fields[i], role);
            if (score > best_score) {
                best = i;
                best_score = score;
            }
        }
        if (!best) continue;
        taken[*best] = true;
        out.emplace_back(role, &fields[*best]);
    }
    return out;
}

// A per-request duration in s, ms, us or ns from its name, else from the size of its values.
inline time_unit duration_unit(const classified_field& c, bool per_token, std::vector<std::string>& reasons) {
    if (const auto u = unit_from_name(c.words)) {
        reasons.push_back(c.field->name + " in " + std::string(servestat::to_string(*u)) + " (from the name)");
        return *u;
    }
    const double m = per_token ? median_of(c.field->array_numbers.empty() ? c.field->numbers : c.field->array_numbers)
                               : c.median;
    // A request's latency is rarely over 100 s or under 1 ms; a token's gap rarely over 1 s.
    const double s_below = per_token ? 1.0 : 100.0;
    const time_unit u = m < s_below ? time_unit::s : m < s_below * 1e3 ? time_unit::ms : m < s_below * 1e6 ? time_unit::us
                                                                                                          : time_unit::ns;
    reasons.push_back(c.field->name + " in " + std::string(servestat::to_string(u)) + " (values around " + rough(m) + ")");
    return u;
}

inline std::string unit_names(time_unit u) {
    switch (u) {
    case time_unit::s: return "Unix seconds";
    case time_unit::ms: return "Unix milliseconds";
    case time_unit::us: return "Unix microseconds";
    case time_unit::ns: return "Unix nanoseconds";
    }
    return "";
}

inline map_guess guess_mapping(const sampled_table& t, bool csv) {
    using enum guessed_role;
    const std::vector<classified_field> fields = classify(t);
    const auto roles = assign_roles(fields);
    const auto find = [&](guessed_role r) -> const classified_field* {
        for (const auto& [role, c] : roles)
            if (role == r) return c;
        return nullptr;
    };
    map_guess g;
    std::vector<std::string> entries;
    const auto source = [&](const classified_field& c) {
        const std::string& name = c.field->name;
        if (csv && c.field->keys.front().find_first_of(",:\"\\") == std::string::npos) return c.field->keys.front();
        return name;
    };
    const auto add = [&](std::string_view target, const classified_field& c, std::string_view unit = {}) {
        std::string e = std::string(target) + "=" + source(c);
        if (!unit.empty()) e.append(":").append(unit);
        entries.push_back(std::move(e));
    };
    if (!t.records.empty()) entries.push_back("records=" + t.records);

    // One clock: a send time first; other stamps only on the same kind of clock.
    const classified_field* sent = find(t_sent);
    std::optional<time_unit> clock_unit;
    if (sent) clock_unit = sent->epoch ? *sent->epoch : unit_from_name(sent->words).value_or(time_unit::s);
    std::vector<std::pair<time_unit, std::string>> wall_clock_stamps, relative_stamps; // unit, name
    const auto stamp = [&](const classified_field* c) -> std::optional<std::string> {
        if (!c || !sent || c->epoch.has_value() != sent->epoch.has_value()) return std::nullopt;
        if (c->epoch) {
            wall_clock_stamps.emplace_back(*c->epoch, c->field->name);
            return "epoch_" + std::string(servestat::to_string(*c->epoch));
        }
        const auto named = unit_from_name(c->words);
        relative_stamps.emplace_back(named.value_or(*clock_unit), c->field->name);
        return std::string(servestat::to_string(named.value_or(*clock_unit)));
    };
    const classified_field* sched = find(t_sched);
    const auto sched_unit = stamp(sched);
    if (sched_unit) add("t_sched", *sched, *sched_unit);
    if (sent) add("t_sent", *sent, *stamp(sent));
    bool have_first = false, have_end = false;
    if (const auto* c = find(t_first); const auto u = stamp(c)) {
        add("t_first", *c, *u);
        have_first = true;
    } else if (const auto* d = find(ttft)) {
        add("ttft", *d, servestat::to_string(duration_unit(*d, false, g.reasons)));
        have_first = true;
    }
    if (const auto* c = find(t_end); const auto u = stamp(c)) {
        add("t_end", *c, *u);
        have_end = true;
    } else if (const auto* d = find(e2e)) {
        add("e2e", *d, servestat::to_string(duration_unit(*d, false, g.reasons)));
        have_end = true;
    } else if (const auto* p = find(tpot); p && have_first && find(output_tokens)) {
        add("tpot", *p, servestat::to_string(duration_unit(*p, true, g.reasons)));
        have_end = true;
    }
    if (const auto* c = find(itl)) add("itl", *c, servestat::to_string(duration_unit(*c, true, g.reasons)));
    if (const auto* c = find(client_queue); c && !sched_unit) add("client_queue", *c, servestat::to_string(duration_unit(*c, false, g.reasons)));
    if (const auto* c = find(server_queue)) add("server_queue", *c, servestat::to_string(duration_unit(*c, false, g.reasons)));
    if (const auto* c = find(server_prefill)) add("server_prefill", *c, servestat::to_string(duration_unit(*c, false, g.reasons)));
    for (const auto& [role, target] : {std::pair{prompt_tokens, "prompt_tokens"}, std::pair{output_tokens, "output_tokens"},
                                       std::pair{max_tokens, "max_tokens"}, std::pair{http_status, "http_status"},
                                       std::pair{status, "status"}, std::pair{error, "error"}})
        if (const auto* c = find(role)) add(target, *c);
    if (const auto* c = find(ok_flag)) g.ok_if = source(*c) + "==true";

    std::vector<std::string> stamp_reasons;
    for (const time_unit u : {time_unit::s, time_unit::ms, time_unit::us, time_unit::ns}) {
        std::string names;
        for (const auto& [unit, name] : wall_clock_stamps)
            if (unit == u) names.append(names.empty() ? "" : ", ").append(name);
        if (!names.empty()) stamp_reasons.push_back(names + " in " + unit_names(u));
    }
    if (!stamp_reasons.empty()) stamp_reasons.back() += " (values near " + rough(sent->median) + ")";
    if (!relative_stamps.empty()) {
        std::string names;
        for (const auto& [unit, name] : relative_stamps) names.append(names.empty() ? "" : ", ").append(name);
        stamp_reasons.push_back(names + " in " + std::string(servestat::to_string(relative_stamps.front().first)) +
                                " on the file's own clock (values near " + rough(sent->median) +
                                " are no Unix time)");
    }
    g.reasons.insert(g.reasons.begin(), stamp_reasons.begin(), stamp_reasons.end());
    for (const auto& e : entries) g.map.append(g.map.empty() ? "" : ",").append(e);
    if (!have_end) g.missing = "no name looks like a latency or an end time: add e2e=<name>:<unit> or t_end=<name>:<unit>";
    if (g.missing.empty()) {
        try {
            parse_mapping(g.map, g.ok_if);
        } catch (const usage_error& e) {
            g.missing = e.what();
        }
    }
    return g;
}

inline std::string shell_quoted(std::string_view text) {
    std::string out = "'";
    for (const char c : text) {
        if (c == '\'') out += "'\\''";
        else out += c;
    }
    return out + "'";
}

// The names that are statistics of many requests (ttft_p50_ms, mean_itl_ms, p99), in file order.
inline std::vector<std::string> statistic_names(const sampled_table& t) {
    std::vector<std::string> names;
    for (const auto& f : t.fields)
        if (is_statistic_name(f.name)) names.push_back(f.name);
    return names;
}

// A table whose columns are statistics holds runs, not requests: --map has nothing to read in it.
inline std::string describe_aggregate_table(const sampled_table& t, const std::vector<std::string>& stats) {
    std::string out = t.what + "; " + t.listed_as + ": " + list_names(t.top_names) + ".";
    out += "\n  It looks like a table of aggregates, not a request log: " + list_names(stats) +
           (stats.size() == 1 ? " names a statistic" : " name statistics") +
           " of many requests, so each row is a run. --map reads one request per row: no --map line is offered.";
    out += "\n  A CSV with one row per run and columns such as ttft_p50_ms, mean_itl_ms or qps reads as summary runs "
           "(format aggregate-table); see docs/formats.md, \"aggregate-table\".";
    return out;
}

// What a JSON or CSV table of requests holds and a --map line for it; nullopt when `head` is neither.
inline std::optional<std::string> describe_unrecognised_table(const std::filesystem::path& file, std::string_view head,
                                                              std::size_t sniffed_bytes) {
    // A Markdown heading ("# my run, concurrency 1") opens prose, never a table's header.
    if (head.starts_with("# ")) return std::nullopt;
    std::optional<sampled_table> table;
    try {
        table = sample_table(file, head, sniffed_bytes);
    } catch (const input_error&) {
        return std::nullopt;
    }
    if (!table || table->top_names.empty()) return std::nullopt;
    const bool csv = table->listed_as == "columns";
    const map_guess g = guess_mapping(*table, csv);
    // Statistic columns with nothing per-request left to map (or several of them): aggregates.
    if (const auto stats = statistic_names(*table); !stats.empty() && (stats.size() >= 2 || !g.missing.empty()))
        return describe_aggregate_table(*table, stats);
    // One object with nothing like a latency in it is a settings file, not a log.
    if (table->sampled < 2 && table->records.empty() && !g.missing.empty()) return std::nullopt;
    std::string out = table->what + "; " + table->listed_as + ": " + list_names(table->top_names) + ".";
    if (!table->note.empty()) out += " (" + table->note + ")";
    out += "\n  No built-in format reads it; --map can. A guess from its names and values (check every entry):";
    if (g.missing.empty()) {
        out += "\n    --map " + shell_quoted(g.map);
        if (!g.ok_if.empty()) out += " --ok-if " + shell_quoted(g.ok_if);
    } else {
        if (!g.map.empty()) out += "\n    --map " + shell_quoted(g.map) + "   (incomplete)";
        out += "\n  " + g.missing;
    }
    if (!g.reasons.empty()) {
        std::string units;
        for (const auto& r : g.reasons) units.append(units.empty() ? "" : "; ").append(r);
        out += "\n  Units guessed: " + units + ".";
    }
    out += "\n  Targets and units: docs/formats.md, \"Any other request log: --map\".";
    return out;
}

} // namespace servestat::detail
