// The words of one name on a run's path (a file's stem or a folder), each classified: a tag of the
// parameter grammar (ingest/file_name_params.hpp: "conc16", "tp8"), a `key=value` pair ("run=0"),
// a date or time ("20250721_003902"), a hash, a tag outside the grammar ("CTX2048", "x8"), a bare
// number or a word. The experiment stage (experiment/factor_table.hpp) turns the words that differ
// between runs into factors, so no difference between names is dropped unseen.
#pragma once

#include <cctype>      // std::isdigit, std::isalpha, std::isxdigit
#include <cstddef>     // std::size_t
#include <string>      // std::string
#include <string_view> // std::string_view
#include <vector>      // std::vector

#include "servestat/ingest/file_name_params.hpp" // detail::read_name_tag, detail::separates_at, detail::token_end, detail::long_tags

namespace servestat {

enum class word_kind {
    grammar,    // a tag of the parameter grammar with its number: already a parameter of the run
    key_value,  // "run=0", "max_num_seqs=64": a factor named by its key
    time,       // a date, a time or a Unix timestamp: when the run was made
    hash,       // hexadecimal digits and letters (a commit, an id): which run, not what was run
    tag,        // letters and a number outside the grammar ("ctx2048", "x8", "gpu1"): named by its letters
    number,     // a bare number ("4", "0.5")
    word        // anything else ("short", "baseline", "vllm")
};

struct path_word {
    std::string text;  // as written (case kept)
    word_kind kind = word_kind::word;
    std::string key;   // key_value: its key (lower case); tag: its letters (lower case)
    std::string value; // key_value: its value as written; tag: its number
};

namespace detail {

inline bool all_digits(std::string_view s) {
    if (s.empty()) return false;
    for (const char c : s)
        if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    return true;
}

// A whole number written with leading zeros ("05", "0310"): a slot or sequence, not a quantity.
inline bool is_zero_padded(std::string_view s) { return s.size() > 1 && s.front() == '0' && all_digits(s); }

inline bool is_decimal(std::string_view s) {
    const auto dot = s.find('.');
    if (dot == std::string_view::npos) return all_digits(s);
    return all_digits(s.substr(0, dot)) && all_digits(s.substr(dot + 1));
}

inline int two_digits(std::string_view s, std::size_t at) { return (s[at] - '0') * 10 + (s[at + 1] - '0'); }

// A calendar date written as YYYYMMDD (1990–2099, a real month and day).
inline bool is_date_digits(std::string_view s) {
    if (s.size() != 8 || !all_digits(s)) return false;
    const int century = two_digits(s, 0), month = two_digits(s, 4), day = two_digits(s, 6);
    return (century == 19 || century == 20) && month >= 1 && month <= 12 && day >= 1 && day <= 31;
}

// A time of day written as HHMM or HHMMSS.
inline bool is_time_digits(std::string_view s) {
    if ((s.size() != 4 && s.size() != 6) || !all_digits(s)) return false;
    return two_digits(s, 0) < 24 && two_digits(s, 2) < 60 && (s.size() == 4 || two_digits(s, 4) < 60);
}

// The date (and time) starting at `at` of a lower-case name, as the end of what it covers, or `at`
// when there is none: "20250721", "20250721_003902", "2025-07-21", "2025-07-21t10-30-00", and a
// Unix timestamp of 10 or 13 digits. Separators between its pieces are "-", "_" and ".".
inline std::size_t time_end(std::string_view s, std::size_t at) {
    const auto digits_from = [&](std::size_t k) {
        std::size_t e = k;
        while (e < s.size() && std::isdigit(static_cast<unsigned char>(s[e]))) ++e;
        return e;
    };
    const auto is_sep = [&](std::size_t k) { return k < s.size() && (s[k] == '-' || s[k] == '_' || s[k] == '.' || s[k] == 't'); };
    std::size_t e = digits_from(at);
    const std::string_view first = s.substr(at, e - at);
    bool date = is_date_digits(first);
    if (!date && first.size() == 4 && (first.starts_with("19") || first.starts_with("20")) && is_sep(e)) {
        const std::size_t m = e + 1, me = digits_from(m);
        if (me - m == 2 && is_sep(me)) {
            const std::size_t d = me + 1, de = digits_from(d);
            if (de - d == 2) {
                const std::string joined = std::string(first) + std::string(s.substr(m, 2)) + std::string(s.substr(d, 2));
                if (is_date_digits(joined)) date = true, e = de;
            }
        }
    }
    if (!date) {
        const bool epoch = (first.size() == 10 || first.size() == 13) && first.front() == '1';
        return epoch ? e : at;
    }
    // A time after the date: HHMMSS, or HH-MM[-SS].
    if (is_sep(e)) {
        const std::size_t t = e + 1, te = digits_from(t);
        if (is_time_digits(s.substr(t, te - t))) return te;
        if (te - t == 2 && two_digits(s, t) < 24 && is_sep(te)) {
            const std::size_t mm = te + 1, mme = digits_from(mm);
            if (mme - mm == 2 && two_digits(s, mm) < 60) {
                std::size_t end = mme;
                if (is_sep(mme)) {
                    const std::size_t ss = mme + 1, sse = digits_from(ss);
                    if (sse - ss == 2 && two_digits(s, ss) < 60) end = sse;
                }
                return end;
            }
        }
    }
    return e;
}

// `shortest` hexadecimal characters or more with a digit and a letter among them.
inline bool hex_with_digit_and_letter(std::string_view s, std::size_t shortest) {
    if (s.size() < shortest) return false;
    bool digit = false, letter = false;
    for (const char c : s) {
        if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
        (std::isdigit(static_cast<unsigned char>(c)) ? digit : letter) = true;
    }
    return digit && letter;
}

// Seven or more: a commit or an id, whatever its siblings (factor_table.hpp knows shorter ones by them).
inline bool is_hash(std::string_view s) { return hex_with_digit_and_letter(s, 7); }

// Letters then a number ("ctx2048", "x8", "gpu1"), or a number then letters ("8k", "2048ctx").
inline bool split_tag(std::string_view lower, std::string& letters, std::string& number) {
    std::size_t k = 0;
    while (k < lower.size() && std::isalpha(static_cast<unsigned char>(lower[k]))) ++k;
    if (k > 0 && k < lower.size() && is_decimal(lower.substr(k))) {
        letters = std::string(lower.substr(0, k)), number = std::string(lower.substr(k));
        return true;
    }
    k = 0;
    while (k < lower.size() && (std::isdigit(static_cast<unsigned char>(lower[k])) || lower[k] == '.')) ++k;
    if (k > 0 && k < lower.size() && is_decimal(lower.substr(0, k))) {
        std::size_t j = k;
        while (j < lower.size() && std::isalpha(static_cast<unsigned char>(lower[j]))) ++j;
        if (j == lower.size()) {
            letters = std::string(lower.substr(k)), number = std::string(lower.substr(0, k));
            return true;
        }
    }
    return false;
}

// Whether the token at `at` is a long tag of the grammar written whole, its number in the next
// token ("concurrency_16"): both tokens are the grammar's.
inline bool long_tag_alone(std::string_view lower, std::size_t at, std::size_t end) {
    const std::string_view token = lower.substr(at, end - at);
    for (const auto& tag : long_tags)
        if (token == tag.prefix) return true;
    return false;
}

// Words that count repeated runs when a number follows ("run_0001", "rep2", "trial-3"): read as
// `key=value`, so the count is a factor named by the word (a replicate index, experiment/roles.hpp).
inline bool is_repeat_word(std::string_view lower) {
    for (const std::string_view w : {"run", "rep", "repeat", "trial", "iteration", "iter", "attempt", "replicate"})
        if (lower == w) return true;
    return false;
}

// A load named as a word ("…-low-qps", "high_concurrency"): the word before it says which range
// of the load a session covered.
inline bool is_load_word(std::string_view lower) {
    for (const std::string_view w : {"qps", "rps", "rate", "rates", "concurrency", "conc", "users", "load"})
        if (lower == w) return true;
    return false;
}

} // namespace detail

// The words of one name, in order. A name longer than 255 characters is one word: no file system
// allows a longer one, so it is no name a person wrote.
inline std::vector<path_word> path_words(std::string_view name) {
    std::vector<path_word> out;
    if (name.size() > 255) return {{std::string(name), word_kind::word, {}, {}}};
    const std::string lower = detail::lower_case(name);
    std::size_t at = 0;
    while (at < lower.size()) {
        if (detail::separates_at(lower, at) || lower[at] == '.') {
            ++at;
            continue;
        }
        if (const std::size_t e = detail::time_end(lower, at); e > at) {
            out.push_back({std::string(name.substr(at, e - at)), word_kind::time, {}, {}});
            at = e;
            continue;
        }
        std::size_t end = detail::token_end(lower, at);
        const std::string_view token = std::string_view(lower).substr(at, end - at);
        path_word w{std::string(name.substr(at, end - at)), word_kind::word, {}, {}};
        if (const auto eq = token.find('='); eq != std::string_view::npos && eq > 0 && eq + 1 < token.size()) {
            w.kind = word_kind::key_value;
            w.key = std::string(token.substr(0, eq));
            w.value = w.text.substr(eq + 1);
        } else if (detail::read_name_tag(lower, at)) {
            w.kind = word_kind::grammar;
            if (detail::long_tag_alone(lower, at, end) && end < lower.size()) { // "concurrency_16": the number too
                end = detail::token_end(lower, end + 1);
                w.text = std::string(name.substr(at, end - at));
            }
        } else if (detail::is_decimal(token)) {
            w.kind = word_kind::number;
        } else if (detail::is_hash(token)) {
            w.kind = word_kind::hash;
        } else if (std::string letters, number; detail::split_tag(token, letters, number)) {
            w.kind = detail::is_repeat_word(letters) && detail::all_digits(number) ? word_kind::key_value : word_kind::tag;
            w.key = letters;
            w.value = number;
        } else if (detail::is_repeat_word(token) && end < lower.size() && detail::separates_at(lower, end)) {
            const std::size_t next = end + 1, next_end = detail::token_end(lower, next);
            if (next_end > next && detail::all_digits(std::string_view(lower).substr(next, next_end - next))) {
                w = {std::string(name.substr(at, next_end - at)), word_kind::key_value, std::string(token),
                     std::string(name.substr(next, next_end - next))};
                end = next_end;
            }
        }
        out.push_back(std::move(w));
        at = end;
    }
    return out;
}

} // namespace servestat
