// Text a reader took from a file or a file name, made valid UTF-8 at the reader entry (read_runs):
// labels, paths, notes, parameters, error texts. A byte that starts no UTF-8 sequence becomes
// U+FFFD and a note says so, so no output downstream has to handle raw bytes.
#pragma once

#include <algorithm>   // std::find
#include <string>      // std::string
#include <string_view> // std::string_view

#include <nlohmann/json.hpp> // nlohmann::json

#include "servestat/core/run.hpp"  // run
#include "servestat/core/utf8.hpp" // is_valid_utf8, make_valid_utf8, to_valid_utf8

namespace servestat {
namespace detail {

// The note of a run some of whose text was not valid UTF-8 (said once, whichever reader found it).
inline constexpr std::string_view invalid_utf8_note =
    "some text in this file or its name is not valid UTF-8: each such byte is shown as \xEF\xBF\xBD (U+FFFD)";

inline bool make_json_text_valid(nlohmann::json& v) {
    bool changed = false;
    if (v.is_string()) return make_valid_utf8(v.get_ref<std::string&>());
    if (v.is_array())
        for (auto& element : v) changed |= make_json_text_valid(element);
    if (v.is_object()) {
        bool bad_key = false;
        for (auto& [key, value] : v.items()) {
            changed |= make_json_text_valid(value);
            bad_key = bad_key || !is_valid_utf8(key);
        }
        if (bad_key) {
            nlohmann::json valid = nlohmann::json::object();
            for (auto& [key, value] : v.items()) valid[to_valid_utf8(key)] = std::move(value);
            v = std::move(valid);
            changed = true;
        }
    }
    return changed;
}

} // namespace detail

// True when something was replaced (the run then carries a note saying so).
inline bool make_run_text_valid(run& r) {
    run_metadata& m = r.meta;
    bool changed = false;
    for (std::string* text : {&m.label, &m.started_at, &m.model, &m.workload, &m.tool, &m.source.path, &m.source.format})
        changed |= make_valid_utf8(*text);
    for (auto* list : {&m.source.merged, &m.notes, &r.skipped.examples})
        for (std::string& text : *list) changed |= make_valid_utf8(text);
    for (auto& value : m.reported) {
        changed |= make_valid_utf8(value.name);
        changed |= make_valid_utf8(value.unit);
    }
    changed |= detail::make_json_text_valid(m.params);
    changed |= r.requests.make_error_texts_valid();
    if (changed && std::find(m.notes.begin(), m.notes.end(), detail::invalid_utf8_note) == m.notes.end())
        m.notes.emplace_back(detail::invalid_utf8_note);
    return changed;
}

} // namespace servestat
