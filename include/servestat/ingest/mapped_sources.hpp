// Every name that --map and --ok-if give must be in the file: a CSV column the header has, a JSON
// key that at least one request holds (as null, too). A name that is not there is a usage error
// (exit code 2) that names the file, the entry and the names the user probably meant, before any
// request is read: a misspelt or wrongly cased name would otherwise leave a metric silently empty,
// or fail every request as "missing".
#pragma once

#include <algorithm>   // std::find, std::all_of
#include <charconv>    // std::from_chars
#include <cstddef>     // std::size_t
#include <filesystem>  // std::filesystem::path
#include <string>      // std::string
#include <string_view> // std::string_view
#include <vector>      // std::vector

#include <nlohmann/json.hpp> // nlohmann::json

#include "servestat/core/errors.hpp"         // usage_error
#include "servestat/ingest/mapping_spec.hpp" // mapping_spec
#include "servestat/ingest/near_names.hpp"   // near_names, describe_near_names

namespace servestat::detail {

// The value at `path` in a request object (a numeric key indexes an array), or nullptr.
inline const nlohmann::json* json_at(const nlohmann::json& object, const std::vector<std::string>& path) {
    const nlohmann::json* at = &object;
    for (const std::string& key : path) {
        if (at->is_object()) {
            const auto it = at->find(key);
            if (it == at->end()) return nullptr;
            at = &*it;
        } else if (at->is_array() && !key.empty() && key.find_first_not_of("0123456789") == std::string::npos) {
            std::size_t i = 0;
            std::from_chars(key.data(), key.data() + key.size(), i);
            if (i >= at->size()) return nullptr;
            at = &(*at)[i];
        } else {
            return nullptr;
        }
    }
    return at;
}

// A key path written back as --map reads it: dots between keys, a key holding a dot, comma, colon,
// quote or backslash in double quotes.
inline std::string source_text(const std::vector<std::string>& keys) {
    std::string out;
    for (const std::string& key : keys) {
        if (!out.empty()) out += '.';
        if (key.find_first_of(".,:\"\\") == std::string::npos && !key.empty()) {
            out += key;
            continue;
        }
        out += '"';
        for (const char c : key) {
            if (c == '"' || c == '\\') out += '\\';
            out += c;
        }
        out += '"';
    }
    return out;
}

inline std::string list_names(const std::vector<std::string>& names, std::size_t shown = 20) {
    std::string out;
    for (std::size_t i = 0; i < names.size() && i < shown; ++i) out.append(i == 0 ? "" : ", ").append(names[i]);
    if (names.size() > shown) out += ", ... (" + std::to_string(names.size()) + " in all)";
    return out;
}

// One --map entry or --ok-if rule, and what the file showed of the names around it.
struct mapped_source {
    std::string entry;             // as written: "e2e=Response_time:ms", "--ok-if error_text=="
    std::vector<std::string> path; // JSON keys; for a CSV, column is the whole source
    std::string column;
    bool found = false;
    // Where a request's walk along `path` stopped first (the depth), and the keys it found there.
    std::size_t stop_depth = 0;
    std::vector<std::string> keys_at_stop;
};

inline std::vector<mapped_source> mapped_sources(const mapping_spec& spec) {
    std::vector<mapped_source> out;
    for (const auto& f : spec.fields) out.push_back({f.entry, f.path, f.column});
    for (const auto& r : spec.ok_if) out.push_back({"--ok-if " + r.text, r.path, r.column});
    return out;
}

inline std::string near_text(const mapped_source& s, const std::vector<std::string>& candidates,
                             std::size_t depth) {
    std::vector<near_name> near = near_names(s.path[depth], candidates);
    for (near_name& n : near) {
        std::vector<std::string> suggested = s.path;
        suggested[depth] = n.name;
        n.name = source_text(suggested);
    }
    return describe_near_names(near);
}

[[noreturn]] inline void throw_absent_sources(const std::filesystem::path& file, const std::vector<std::string>& problems,
                                              std::string_view fix) {
    std::string message = file.string() + ": ";
    if (problems.size() == 1) {
        message += problems.front();
    } else {
        message += std::to_string(problems.size()) + " names in --map/--ok-if are not in the file:";
        for (const auto& p : problems) message.append("\n  ").append(p);
    }
    throw usage_error(message.append("\n  ").append(fix));
}

// Records, for each mapped JSON key path, whether any request holds it, and which keys sat where
// the path broke off, for naming the near misses.
class source_presence {
public:
    explicit source_presence(const mapping_spec& spec) : sources_(mapped_sources(spec)), spec_(spec) {}

    bool all_found() const {
        return std::all_of(sources_.begin(), sources_.end(), [](const mapped_source& s) { return s.found; });
    }

    std::size_t observed() const noexcept { return observed_; }

    // The names `other` (of the same mapping, another piece of the file) found, as found here.
    void add_found(const source_presence& other) {
        observed_ += other.observed_;
        for (std::size_t i = 0; i < sources_.size(); ++i) sources_[i].found = sources_[i].found || other.sources_[i].found;
    }

    void observe(const nlohmann::json& request) {
        ++observed_;
        for (mapped_source& s : sources_)
            if (!s.found) walk(s, request);
    }

    // Throws the usage error when a name is in no request (nothing is said before any request is seen).
    // `hint`: a sentence to add when the layout itself may be the problem.
    void check(const std::filesystem::path& file, std::string_view hint = {}) const {
        if (observed_ == 0 || all_found()) return;
        const std::string where = spec_.records_source.empty() ? "" : " (in records=" + spec_.records_source + ")";
        std::vector<std::string> problems;
        for (const mapped_source& s : sources_) {
            if (s.found) continue;
            std::string p = s.entry + ": no request" + where + " has the key '" + source_text(s.path) + "'";
            const std::string near = near_text(s, s.keys_at_stop, s.stop_depth);
            if (!near.empty()) {
                p += "; did you mean " + near + "?";
            } else {
                std::vector<std::string> prefix(s.path.begin(), s.path.begin() + static_cast<std::ptrdiff_t>(s.stop_depth));
                const std::string holder = prefix.empty() ? "the requests' keys" : "'" + source_text(prefix) + "' holds";
                if (!s.keys_at_stop.empty()) p += " (" + holder + ": " + list_names(s.keys_at_stop) + ")";
            }
            problems.push_back(std::move(p));
        }
        std::string fix = "Names are matched exactly, letter case too: correct them in --map (or --ok-if), or "
                          "leave out an entry the file never holds.";
        if (!hint.empty()) fix.append(" ").append(hint);
        throw_absent_sources(file, problems, fix);
    }

private:
    static constexpr std::size_t max_keys = 200;

    void walk(mapped_source& s, const nlohmann::json& request) const {
        const nlohmann::json* at = &request;
        for (std::size_t depth = 0; depth < s.path.size(); ++depth) {
            // A null on the way (`"error": null` where `error.msg` is mapped) is the key holding no
            // value: the name is right.
            if (at->is_null()) break;
            const nlohmann::json* next = json_at(*at, {s.path[depth]});
            if (!next) {
                // An array shorter than the index is data, not a misspelt name.
                if (at->is_array()) break;
                remember_keys(s, *at, depth);
                return;
            }
            at = next;
        }
        s.found = true;
    }

    static void remember_keys(mapped_source& s, const nlohmann::json& at, std::size_t depth) {
        if (!at.is_object()) return;
        if (depth > s.stop_depth || s.keys_at_stop.empty()) {
            if (depth > s.stop_depth) s.keys_at_stop.clear();
            s.stop_depth = depth;
        } else if (depth < s.stop_depth) {
            return; // a walk that got further elsewhere is the better guide
        }
        for (const auto& [key, value] : at.items())
            if (s.keys_at_stop.size() < max_keys &&
                std::find(s.keys_at_stop.begin(), s.keys_at_stop.end(), key) == s.keys_at_stop.end())
                s.keys_at_stop.push_back(key);
    }

    std::vector<mapped_source> sources_;
    const mapping_spec& spec_;
    std::size_t observed_ = 0;
};

// The column of each mapped source in a CSV header, in mapped_sources order; a usage error naming
// every source the header lacks, with the columns it probably meant.
inline std::vector<std::size_t> header_columns(const std::filesystem::path& file, const std::vector<std::string>& header,
                                               const mapping_spec& spec) {
    std::vector<std::size_t> columns;
    std::vector<std::string> problems;
    for (const mapped_source& s : mapped_sources(spec)) {
        const auto at = std::find(header.begin(), header.end(), s.column);
        columns.push_back(static_cast<std::size_t>(at - header.begin()));
        if (at != header.end()) continue;
        std::string p = s.entry + ": the header has no column '" + s.column + "'";
        const std::string near = describe_near_names(near_names(s.column, header));
        p += near.empty() ? " (its columns: " + list_names(header) + ")" : "; did you mean " + near + "?";
        problems.push_back(std::move(p));
    }
    if (!problems.empty())
        throw_absent_sources(file, problems,
                             "Column names are matched exactly, letter case too: correct them in --map (or --ok-if).");
    return columns;
}

} // namespace servestat::detail
