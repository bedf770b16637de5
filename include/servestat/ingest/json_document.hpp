// Reading whole-document JSON formats (a peer tool's result file) with errors that name the file,
// the line where a document starts and the JSON path of the offending field.
#pragma once

#include <algorithm>   // std::count, std::find, std::upper_bound
#include <cmath>       // std::isfinite, std::isinf, std::floor
#include <cstddef>     // std::size_t
#include <cstdint>     // std::int32_t
#include <cstdio>      // std::FILE, std::fopen, std::fread
#include <filesystem>  // std::filesystem::path
#include <limits>      // std::numeric_limits
#include <memory>      // std::shared_ptr, std::make_shared
#include <optional>    // std::optional
#include <string>      // std::string
#include <string_view> // std::string_view
#include <tuple>       // std::tuple
#include <utility>     // std::pair
#include <vector>      // std::vector

#include <nlohmann/json.hpp> // nlohmann::json

#include "servestat/core/errors.hpp"   // input_error
#include "servestat/ingest/input_file.hpp" // read_whole_file
#include "servestat/ingest/reader.hpp" // read_options

namespace servestat::detail {

// A number read as a run parameter: whole numbers as integers (exact below 1e15), others as doubles.
// Never a cast of a value no integer holds (7.8e21 to long long is undefined behaviour). JSON has no
// infinity (nlohmann would write null): an unbounded value is "inf", vLLM's spelling of an unbounded
// rate, which sweeps read as a load level.
inline nlohmann::json param_number(double x) {
    if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
    if (x == std::floor(x) && std::abs(x) < 1e15) return static_cast<std::int64_t>(x);
    return x;
}

// A file holding JSON document(s): refused at its first byte unless that can start one.
inline std::string read_json_file(const std::filesystem::path& file) { return read_whole_file(file, "{["); }

inline std::size_t line_at(std::string_view text, std::size_t offset) {
    std::size_t line = 1;
    for (std::size_t i = 0; i < offset && i < text.size(); ++i) line += text[i] == '\n';
    return line;
}

// ---- Lone surrogate escapes ----------------------------------------------------------------------
//
// JSON's grammar allows "\ud800" alone (RFC 8259 § 8.2: an unpaired surrogate), and Python's
// json.dumps writes one for a string holding a broken character; nlohmann refuses the whole text
// for it and simdjson the string ("expected a string" named no cause). servestat reads such an
// escape as U+FFFD, as it reads bytes that are not valid UTF-8: each is rewritten as "\ufffd",
// the same six bytes, so every offset and column of the text stays true.

// The code unit of the escape \uXXXX at text[at], or nullopt when no such escape starts there.
inline std::optional<unsigned> unicode_escape_at(std::string_view text, std::size_t at) noexcept {
    if (at + 6 > text.size() || text[at] != '\\' || text[at + 1] != 'u') return std::nullopt;
    unsigned unit = 0;
    for (std::size_t k = at + 2; k < at + 6; ++k) {
        const char c = text[k];
        const int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (digit < 0) return std::nullopt;
        unit = unit * 16 + static_cast<unsigned>(digit);
    }
    return unit;
}

inline bool is_high_surrogate(unsigned unit) noexcept { return unit >= 0xD800 && unit <= 0xDBFF; }
inline bool is_low_surrogate(unsigned unit) noexcept { return unit >= 0xDC00 && unit <= 0xDFFF; }

// Where the escapes of surrogates that are not half of a pair (high then low) start. Escapes are
// followed from backslash to backslash, so "\\ud800" (a backslash, then text) is none.
inline std::vector<std::size_t> lone_surrogate_escapes(std::string_view text) {
    std::vector<std::size_t> lone;
    for (std::size_t at = text.find('\\'); at != std::string_view::npos; at = text.find('\\', at)) {
        const auto unit = unicode_escape_at(text, at);
        if (!unit) {
            at += 2; // another escape (\", \\, \n): its second character is no backslash
            continue;
        }
        if (is_high_surrogate(*unit)) {
            const auto next = unicode_escape_at(text, at + 6);
            if (next && is_low_surrogate(*next)) {
                at += 12;
                continue;
            }
        }
        if (is_high_surrogate(*unit) || is_low_surrogate(*unit)) lone.push_back(at);
        at += 6;
    }
    return lone;
}

// `text` with the escapes at `lone` rewritten as \ufffd.
inline std::string with_lone_surrogates_replaced(std::string_view text, const std::vector<std::size_t>& lone) {
    std::string out(text);
    for (const std::size_t at : lone) out.replace(at + 2, 4, "fffd");
    return out;
}

// The note of a run whose text had `count` of them.
inline std::string lone_surrogates_note(std::size_t count) {
    return (count == 1 ? std::string("a lone UTF-16 surrogate escape (such as \\ud800 without its pair) was")
                       : std::to_string(count) + " lone UTF-16 surrogate escapes (such as \\ud800 without its pair) were") +
           " read as \xEF\xBF\xBD (U+FFFD)";
}

// What a document's Python words were read as (see parse_json_text): the fields that held NaN
// (read as null), so that a required field refused as null says why, and the notes a reader adds to
// its run (lone surrogate escapes read as U+FFFD among them).
struct nonfinite_info {
    std::vector<std::string> nan_fields;
    std::vector<std::string> notes;
};

// Where a value came from, for error messages: the file and the line its document starts on, and
// what its non-finite words were read as (null when it had none).
struct json_place {
    std::string file;
    std::size_t line = 0;
    std::shared_ptr<const nonfinite_info> nonfinite = nullptr;

    [[noreturn]] void fail(const std::string& path, const std::string& reason) const {
        if (nonfinite && std::find(nonfinite->nan_fields.begin(), nonfinite->nan_fields.end(), path) !=
                             nonfinite->nan_fields.end())
            throw input_error(file, line, path, reason + " (the file has NaN here, Python's not-a-number)");
        throw input_error(file, line, path, reason);
    }

    // "NaN in field X read as missing", ...: for the run's notes (empty when there were none).
    const std::vector<std::string>& nonfinite_notes() const {
        static const std::vector<std::string> none;
        return nonfinite ? nonfinite->notes : none;
    }
};

// A field that held one of Python's non-finite words (see parse_json_text).
struct nonfinite_field {
    std::string path;
    std::string_view word; // "NaN", "Infinity" or "-Infinity"
};

struct json_document {
    nlohmann::json value;
    json_place place;
};

// Nothing a load-test tool writes nests this deep; a value nested deeper would make printing or
// copying it recurse once per level, so it is refused before parsing.
inline constexpr int max_json_depth = 256;

// Brackets outside strings, from text[0] to where the first container closes: `closed_at` is one
// past its closing bracket, `too_deep_at` where the nesting first exceeds max_json_depth; npos
// when that does not happen.
struct bracket_scan {
    std::size_t closed_at = std::string_view::npos;
    std::size_t too_deep_at = std::string_view::npos;
};

// Whether a character of JSON text lies inside a string literal (its quotes included), fed one
// character at a time.
class json_string_tracker {
public:
    bool inside(char c) noexcept {
        if (in_string_) {
            if (escaped_) escaped_ = false;
            else if (c == '\\') escaped_ = true;
            else if (c == '"') in_string_ = false;
            return true;
        }
        in_string_ = c == '"';
        return in_string_;
    }

private:
    bool in_string_ = false, escaped_ = false;
};

inline bracket_scan scan_brackets(std::string_view text) {
    bracket_scan out;
    int depth = 0;
    json_string_tracker strings;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (strings.inside(c)) continue;
        if (c == '{' || c == '[') {
            if (++depth > max_json_depth && out.too_deep_at == std::string_view::npos) out.too_deep_at = i;
        } else if ((c == '}' || c == ']') && --depth == 0) {
            out.closed_at = i + 1;
            return out;
        }
    }
    return out;
}

inline std::size_t end_of_container(std::string_view text) { return scan_brackets(text).closed_at; }
inline std::size_t too_deep_at(std::string_view text) { return scan_brackets(text).too_deep_at; }

[[noreturn]] inline void throw_parse_error(const std::string& file, std::string_view text, std::size_t offset,
                                           std::size_t first_line, std::string reason) {
    if (const auto colon = reason.find(": "); colon != std::string::npos) reason = reason.substr(colon + 2);
    const auto line_start = offset == 0 ? std::string_view::npos : text.rfind('\n', offset - 1);
    const std::size_t column = offset - (line_start == std::string_view::npos ? 0 : line_start + 1) + 1;
    throw input_error(file, first_line + line_at(text, offset) - 1, "",
                      "malformed JSON at column " + std::to_string(column) + ": " + reason);
}

inline std::string json_path(const std::string& parent, std::string_view key) {
    std::string out = parent;
    if (!out.empty()) out += '.';
    return out.append(key);
}

inline std::string json_path(const std::string& parent, std::size_t index) {
    return parent + "[" + std::to_string(index) + "]";
}

// ---- Python's non-finite numbers ----------------------------------------------------------------
//
// Python's json module writes NaN, Infinity and -Infinity as bare words, which are not JSON: pandas
// and numpy give NaN statistics when nothing completed, and an unlimited request rate is Infinity.
// Such a file is read, never refused for it: each word outside strings becomes null for nlohmann's
// parser (Infinity padded with spaces so columns stay true), the parser's callback turns the k-th
// null back into what the k-th null token of the text was, and a walk over the result turns NaN
// into null (missing) and keeps ±Infinity as ±inf, which json_number refuses where a finite number
// is needed and param_number writes "inf".

// The text with the words replaced, and for each null token of it in order what it stood for:
// 0 a real null, 'N' NaN, '+' Infinity, '-' -Infinity. `grown_at`: offsets in `text` after which
// one byte was added (NaN → null), to give syntax errors their columns in the original text.
struct python_words_replaced {
    std::string text;
    std::vector<char> nulls;
    std::vector<std::size_t> grown_at;
};

inline bool is_word_char(char c) noexcept {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// nullopt when the text holds none of the words outside strings (the common case: found without a
// scan when the letters are nowhere at all).
inline std::optional<python_words_replaced> replace_python_words(std::string_view text) {
    if (text.find("NaN") == std::string_view::npos && text.find("Infinity") == std::string_view::npos)
        return std::nullopt;
    python_words_replaced out;
    out.text.reserve(text.size() + 16);
    json_string_tracker strings;
    bool any = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (strings.inside(c)) {
            out.text += c;
            continue;
        }
        if (c == 'n') out.nulls.push_back(0); // outside strings only `null` has an n
        bool replaced = false;
        if (c == 'N' || c == 'I' || c == '-') {
            const std::string_view rest = text.substr(i);
            for (const auto& [word, kind, replacement] :
                 {std::tuple{std::string_view("-Infinity"), '-', std::string_view("null     ")},
                  std::tuple{std::string_view("Infinity"), '+', std::string_view("null    ")},
                  std::tuple{std::string_view("NaN"), 'N', std::string_view("null")}}) {
                if (!rest.starts_with(word) || (rest.size() > word.size() && is_word_char(rest[word.size()]))) continue;
                out.nulls.push_back(kind);
                out.text.append(replacement);
                if (replacement.size() > word.size()) out.grown_at.push_back(out.text.size());
                i += word.size() - 1;
                replaced = any = true;
                break;
            }
        }
        if (!replaced) out.text += c;
    }
    if (!any) return std::nullopt;
    return out;
}

// NaN → null and ±inf kept, each field named in `found`. The path is spelled only for a hit (a
// detailed vLLM result holds millions of numbers); `left` counts the words still to find, so the
// walk stops at the last.
struct nonfinite_walk {
    std::vector<nonfinite_field>& found;
    std::size_t left;
    std::vector<std::pair<const std::string*, std::size_t>> at{}; // object key, or nullptr and an index

    std::string path() const {
        std::string out;
        for (const auto& [key, index] : at) out = key ? json_path(out, *key) : json_path(out, index);
        return out;
    }

    void visit(nlohmann::json& v) {
        if (left == 0) return;
        if (v.is_number_float()) {
            const double x = v.get<double>();
            if (std::isfinite(x)) return;
            found.push_back({path(), std::isnan(x) ? "NaN" : x > 0 ? "Infinity" : "-Infinity"});
            --left;
            if (std::isnan(x)) v = nullptr;
        } else if (v.is_object()) {
            for (auto it = v.begin(); it != v.end() && left > 0; ++it) {
                at.emplace_back(&it.key(), 0);
                visit(it.value());
                at.pop_back();
            }
        } else if (v.is_array()) {
            for (std::size_t i = 0; i < v.size() && left > 0; ++i) {
                at.emplace_back(nullptr, i);
                visit(v[i]);
                at.pop_back();
            }
        }
    }
};

// The notes a reader adds to its run: each field and what it was read as, the first few by name.
inline std::vector<std::string> nonfinite_notes(const std::vector<nonfinite_field>& found) {
    constexpr std::size_t named = 5;
    std::vector<std::string> notes;
    for (std::size_t i = 0; i < found.size() && i < named; ++i) {
        const auto& f = found[i];
        const std::string field = f.path.empty() ? std::string("the document") : "field " + f.path;
        notes.push_back(f.word == "NaN" ? "NaN in " + field + " read as missing"
                                        : std::string(f.word) + " in " + field +
                                              " read as unbounded where the value may be (a rate), else as missing");
    }
    if (found.size() > named)
        notes.push_back(std::to_string(found.size() - named) +
                        " more fields hold NaN or Infinity (Python's json writes them): read the same way");
    return notes;
}

// What json_place::nonfinite holds for a document's non-finite fields and lone surrogate escapes:
// null when there were none.
inline std::shared_ptr<const nonfinite_info> nonfinite_info_of(const std::vector<nonfinite_field>& found,
                                                               std::size_t lone_surrogates = 0) {
    if (found.empty() && lone_surrogates == 0) return nullptr;
    auto info = std::make_shared<nonfinite_info>();
    for (const auto& f : found)
        if (f.word == "NaN") info->nan_fields.push_back(f.path);
    info->notes = nonfinite_notes(found);
    if (lone_surrogates > 0) info->notes.push_back(lone_surrogates_note(lone_surrogates));
    return info;
}

// Where a number literal first stands outside a string, whole; npos when nowhere.
inline std::size_t json_number_offset(std::string_view text, std::string_view literal) {
    const auto in_number = [](char c) { return (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'; };
    json_string_tracker strings;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (strings.inside(text[i]) || !text.substr(i).starts_with(literal) || (i > 0 && in_number(text[i - 1])))
            continue;
        if (i + literal.size() == text.size() || !in_number(text[i + literal.size()])) return i;
    }
    return std::string_view::npos;
}

// Parses one JSON text that starts on line `place.line` of `place.file`. Syntax errors (named by
// line and column), numbers beyond a double and nesting deeper than max_json_depth become
// input_errors; `truncated` adds the likely cause to a syntax error. Python's NaN and ±Infinity
// are read (above) and listed in `nonfinite` when the caller asks; lone surrogate escapes are read
// as U+FFFD (above) and counted in `lone_surrogates` when the caller asks.
inline nlohmann::json parse_json_text(std::string_view text, const json_place& place, bool truncated = false,
                                      std::vector<nonfinite_field>* nonfinite = nullptr,
                                      std::size_t* lone_surrogates = nullptr) {
    if (const auto at = too_deep_at(text); at != std::string_view::npos)
        throw_parse_error(place.file, text, at, place.line,
                          "nested deeper than " + std::to_string(max_json_depth) + " levels");
    const auto lone = lone_surrogate_escapes(text);
    if (lone_surrogates) *lone_surrogates = lone.size();
    const std::string repaired = lone.empty() ? std::string() : with_lone_surrogates_replaced(text, lone);
    if (!lone.empty()) text = repaired; // as long as the original: offsets below hold for both
    const auto replaced = replace_python_words(text);
    // An offset in the replaced text → the same place in `text`.
    auto original_offset = [&](std::size_t offset) {
        if (!replaced) return offset;
        const auto grown = std::upper_bound(replaced->grown_at.begin(), replaced->grown_at.end(), offset) -
                           replaced->grown_at.begin();
        return offset - static_cast<std::size_t>(grown);
    };
    try {
        if (!replaced) return nlohmann::json::parse(text);
        std::size_t k = 0;
        const auto& kinds = replaced->nulls;
        nlohmann::json value = nlohmann::json::parse(
            replaced->text, [&](int, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
                if (event != nlohmann::json::parse_event_t::value || !parsed.is_null()) return true;
                const char kind = k < kinds.size() ? kinds[k] : 0;
                ++k;
                if (kind == 'N') parsed = std::numeric_limits<double>::quiet_NaN();
                else if (kind != 0) parsed = kind == '+' ? std::numeric_limits<double>::infinity()
                                                         : -std::numeric_limits<double>::infinity();
                return true;
            });
        std::vector<nonfinite_field> found;
        nonfinite_walk{found, static_cast<std::size_t>(kinds.size() - static_cast<std::size_t>(
                                                            std::count(kinds.begin(), kinds.end(), char{0})))}
            .visit(value);
        if (nonfinite) *nonfinite = std::move(found);
        return value;
    } catch (const nlohmann::json::parse_error& e) {
        throw_parse_error(place.file, text, original_offset(e.byte > 0 ? e.byte - 1 : 0), place.line,
                          std::string(e.what()) + (truncated ? " (truncated?)" : ""));
    } catch (const nlohmann::json::exception& e) {
        // nlohmann's out_of_range.406: a number literal beyond the range of a double, e.g. 1e400,
        // named ("number overflow parsing '1e400'") but not placed: found again to give its column.
        std::string reason = e.what();
        const auto open = reason.find('\''), close = reason.rfind('\'');
        if (open < close) {
            const std::string literal = reason.substr(open + 1, close - open - 1);
            const auto at = json_number_offset(replaced ? std::string_view(replaced->text) : text, literal);
            if (at != std::string_view::npos)
                throw_parse_error(place.file, text, original_offset(at), place.line,
                                  "number " + literal + " is out of the range of a double");
        }
        if (const auto end = reason.find("] "); end != std::string::npos) reason = reason.substr(end + 2);
        throw input_error(place.file, place.line, "", reason);
    }
}

// JSON held in a string field (an SSE payload, a request body): discarded when malformed or nested
// deeper than max_json_depth, so the caller can fall back or report it in its own words.
inline nlohmann::json parse_embedded_json(std::string_view text) {
    if (too_deep_at(text) != std::string_view::npos) return nlohmann::json(nlohmann::json::value_t::discarded);
    return nlohmann::json::parse(text, nullptr, false);
}

// One or more JSON objects or arrays separated by whitespace (vLLM's --append-result writes one
// object per line; a plain result file holds one). A syntax error names its line and column.
// Linear in the text: lines are counted on from the previous document, never from the start.
// `check` sees each document as soon as it is parsed, so a bad first document ends the read there.
template <class Check>
std::vector<json_document> parse_json_documents(const std::filesystem::path& file, std::string_view text, Check&& check) {
    if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
    std::vector<json_document> documents;
    std::size_t line = 1, counted_to = 0; // line number of offset counted_to
    for (std::size_t at = text.find_first_not_of(" \t\r\n"); at != std::string_view::npos;
         at = text.find_first_not_of(" \t\r\n", at)) {
        line += static_cast<std::size_t>(std::count(text.begin() + counted_to, text.begin() + at, '\n'));
        counted_to = at;
        const json_place place{file.string(), line};
        if (text[at] != '{' && text[at] != '[')
            throw_parse_error(place.file, text, at, 1, "expected a JSON object or array");
        const std::size_t closed_at = end_of_container(text.substr(at));
        const bool truncated = closed_at == std::string_view::npos;
        const std::size_t length = truncated ? text.size() - at : closed_at;
        std::vector<nonfinite_field> nonfinite;
        std::size_t lone_surrogates = 0;
        documents.push_back({parse_json_text(text.substr(at, length), place, truncated, &nonfinite, &lone_surrogates), place});
        documents.back().place.nonfinite = nonfinite_info_of(nonfinite, lone_surrogates);
        check(documents.back());
        at += length;
    }
    if (documents.empty()) throw input_error(file.string(), 0, "", "empty file");
    return documents;
}

inline std::vector<json_document> parse_json_documents(const std::filesystem::path& file, std::string_view text) {
    return parse_json_documents(file, text, [](const json_document&) {});
}

inline std::vector<json_document> read_json_documents(const std::filesystem::path& file) {
    const std::string text = read_json_file(file);
    return parse_json_documents(file, text);
}

// Python's json.dump writes NaN and ±Infinity as bare words, which are not JSON (pandas gives NaN
// statistics when no request completed; vLLM writes an unlimited request rate as Infinity).
// Outside strings NaN becomes null (not reported) and Infinity `infinity` (e.g. "null" or
// "\"inf\"", with a sign for -Infinity when it is a string); a number field holding either is then
// reported as a wrong type rather than read as a number.
inline std::string python_words_to_json(std::string text, std::string_view infinity) {
    const std::string negative_infinity =
        infinity.starts_with('"') ? std::string("\"-").append(infinity.substr(1)) : std::string(infinity);
    json_string_tracker strings;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (strings.inside(text[i])) continue;
        const std::string_view rest = std::string_view(text).substr(i);
        for (const auto& [word, replacement] : {std::pair{std::string_view("-Infinity"), std::string_view(negative_infinity)},
                                                std::pair{std::string_view("Infinity"), infinity},
                                                std::pair{std::string_view("NaN"), std::string_view("null")}})
            if (rest.starts_with(word)) {
                text.replace(i, word.size(), replacement);
                i += replacement.size() - 1;
                break;
            }
    }
    return text;
}

inline const char* json_type_name(const nlohmann::json& v) { return v.type_name(); }

// The member `key` of an object, or nullptr when the object lacks it.
inline const nlohmann::json* json_member(const nlohmann::json& object, std::string_view key) {
    if (!object.is_object()) return nullptr;
    const auto it = object.find(key);
    return it == object.end() ? nullptr : &*it;
}

inline const nlohmann::json& json_require(const nlohmann::json& object, std::string_view key,
                                          const json_place& place, const std::string& parent) {
    if (const auto* v = json_member(object, key)) return *v;
    place.fail(json_path(parent, key), "missing required field");
}

// A finite number. Numeric strings ("550") are accepted only where a tool is known to write them.
inline double json_number(const nlohmann::json& v, const json_place& place, const std::string& path,
                          bool allow_numeric_string = false) {
    double x = 0;
    if (v.is_number()) x = v.get<double>();
    else if (allow_numeric_string && v.is_string()) {
        const auto& s = v.get_ref<const std::string&>();
        std::size_t used = 0;
        try {
            x = std::stod(s, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used == 0 || used != s.size()) place.fail(path, "expected a number, got the string \"" + s + "\"");
    } else {
        place.fail(path, std::string("expected a number, got ") + json_type_name(v));
    }
    if (std::isinf(x)) place.fail(path, std::string(x > 0 ? "Infinity" : "-Infinity") + " where a finite number is required");
    if (!std::isfinite(x)) place.fail(path, "not a finite number");
    return x;
}

// Absent or null → nullopt; so is ±Infinity (Python's word, listed in the document's notes): an
// optional value that is unbounded is not one a statistic can use.
inline std::optional<double> json_optional_number(const nlohmann::json* v, const json_place& place,
                                                  const std::string& path, bool allow_numeric_string = false) {
    if (!v || v->is_null()) return std::nullopt;
    if (v->is_number_float() && std::isinf(v->get<double>())) return std::nullopt;
    return json_number(*v, place, path, allow_numeric_string);
}

// A duration in the unit's seconds: finite and not negative.
inline double json_duration(const nlohmann::json& v, const json_place& place, const std::string& path,
                            double seconds_per_unit = 1.0) {
    const double x = json_number(v, place, path);
    if (x < 0) place.fail(path, "negative duration");
    return x * seconds_per_unit;
}

// A token or request count: a non-negative whole number (39.0 accepted, 39.5 not).
inline std::int32_t json_count(const nlohmann::json& v, const json_place& place, const std::string& path,
                               bool allow_numeric_string = false) {
    const double x = json_number(v, place, path, allow_numeric_string);
    if (x < 0 || x != std::floor(x) || x > std::numeric_limits<std::int32_t>::max())
        place.fail(path, "expected a non-negative whole number");
    return static_cast<std::int32_t>(x);
}

inline std::optional<std::int32_t> json_optional_count(const nlohmann::json* v, const json_place& place,
                                                       const std::string& path, bool allow_numeric_string = false) {
    if (!v || v->is_null()) return std::nullopt;
    return json_count(*v, place, path, allow_numeric_string);
}

inline const std::string& json_string(const nlohmann::json& v, const json_place& place, const std::string& path) {
    if (!v.is_string()) place.fail(path, std::string("expected a string, got ") + json_type_name(v));
    return v.get_ref<const std::string&>();
}

inline const nlohmann::json& json_array(const nlohmann::json& v, const json_place& place, const std::string& path) {
    if (!v.is_array()) place.fail(path, std::string("expected an array, got ") + json_type_name(v));
    return v;
}

inline const nlohmann::json& json_object(const nlohmann::json& v, const json_place& place, const std::string& path) {
    if (!v.is_object()) place.fail(path, std::string("expected an object, got ") + json_type_name(v));
    return v;
}

// The first non-blank character of a sniffed head, or '\0'.
inline char first_json_char(std::string_view head) {
    if (head.substr(0, 3) == "\xEF\xBB\xBF") head.remove_prefix(3);
    const auto at = head.find_first_not_of(" \t\r\n");
    return at == std::string_view::npos ? '\0' : head[at];
}

} // namespace servestat::detail
