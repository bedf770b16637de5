// Python's repr of an argparse Namespace ("Namespace(seed=0, model='m', request_rate=inf, ...)"), as
// benchmark scripts print their settings to the console: each key with its value's text, read
// without Python.
#pragma once

#include <cctype>      // std::isalnum
#include <cstddef>     // std::size_t
#include <string>      // std::string
#include <string_view> // std::string_view
#include <utility>     // std::move
#include <vector>      // std::vector

namespace servestat::detail {

// One setting: a str's contents (quotes removed, escapes undone) or the repr's text of any other
// value ("None", "True", "1.0", "inf", "['a=1']", "<function f at 0x7f...>").
struct py_setting {
    std::string key;
    std::string value;
    bool quoted = false;
};

// What one Namespace(...) held; `closed` is false when the text ended before its ')' (a line cut
// short): the settings read until then are kept, the one cut is not.
struct py_namespace {
    std::vector<py_setting> settings;
    bool closed = false;

    const py_setting* find(std::string_view key) const {
        for (const auto& s : settings)
            if (s.key == key) return &s;
        return nullptr;
    }
};

// A quoted str starting at text[at] (its quote character); `at` moves past the closing quote.
// False when the text ends first.
inline bool read_py_string(std::string_view text, std::size_t& at, std::string& out) {
    const char quote = text[at++];
    for (; at < text.size(); ++at) {
        const char c = text[at];
        if (c == quote) {
            ++at;
            return true;
        }
        if (c != '\\' || at + 1 == text.size()) {
            out += c;
            continue;
        }
        const char next = text[++at];
        out += next == 'n' ? '\n' : next == 't' ? '\t' : next; // \\ \' \" and the rest as written
    }
    return false;
}

// Any other value: up to the ',' or ')' that closes it at nesting depth 0 ([...], {...}, (...),
// <...> and quoted strs inside may hold commas). False when the text ends first.
inline bool read_py_other(std::string_view text, std::size_t& at, std::string& out) {
    int depth = 0;
    const std::size_t from = at;
    for (; at < text.size(); ++at) {
        const char c = text[at];
        if (c == '\'' || c == '"') {
            std::string ignored;
            if (!read_py_string(text, at, ignored)) return false;
            --at;
        } else if (c == '(' || c == '[' || c == '{' || c == '<') {
            ++depth;
        } else if (c == ')' || c == ']' || c == '}' || c == '>') {
            if (depth == 0) break; // the Namespace's own ')'
            --depth;
        } else if (c == ',' && depth == 0) {
            break;
        }
    }
    if (at == text.size()) return false;
    out.assign(text.substr(from, at - from));
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return true;
}

// `text` starts right after "Namespace(".
inline py_namespace parse_py_namespace(std::string_view text) {
    py_namespace out;
    std::size_t at = 0;
    while (at < text.size()) {
        while (at < text.size() && text[at] == ' ') ++at;
        if (at < text.size() && text[at] == ')') {
            out.closed = true;
            return out;
        }
        const std::size_t key_start = at;
        while (at < text.size() && (std::isalnum(static_cast<unsigned char>(text[at])) || text[at] == '_')) ++at;
        if (at == key_start || at == text.size() || text[at] != '=') return out; // not key=value: stop here
        py_setting s{std::string(text.substr(key_start, at - key_start)), {}, false};
        ++at;
        s.quoted = at < text.size() && (text[at] == '\'' || text[at] == '"');
        if (!(s.quoted ? read_py_string(text, at, s.value) : read_py_other(text, at, s.value))) return out;
        out.settings.push_back(std::move(s));
        if (at < text.size() && text[at] == ',') ++at;
    }
    return out;
}

// The quoted strs of a list repr ("['tp=2', 'gpu=H100']"), in order.
inline std::vector<std::string> py_string_list(std::string_view repr) {
    std::vector<std::string> out;
    for (std::size_t at = 0; at < repr.size();) {
        if (repr[at] != '\'' && repr[at] != '"') {
            ++at;
            continue;
        }
        std::string s;
        if (!read_py_string(repr, at, s)) break;
        out.push_back(std::move(s));
    }
    return out;
}

} // namespace servestat::detail
