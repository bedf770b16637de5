// The factor table of a result set: every run × every factor, each factor with where it came from —
// the file's content (its settings and the tool's aggregates beside it), a tag of the name grammar
// on its path, a word or tag outside the grammar that differs between sibling names or folders
// (named by its position, "folder2", or its letters, "ctx"), the run's metadata (model, workload,
// format) or what the user pulled out with --factor. Roles are given to factors elsewhere
// (experiment/roles.hpp); here nothing that differs between runs is left out.
#pragma once

#include <algorithm>   // std::all_of, std::any_of, std::reverse, std::max
#include <cmath>       // std::isinf
#include <cstddef>     // std::size_t
#include <map>         // std::map
#include <optional>    // std::optional
#include <regex>       // std::regex, std::regex_search, std::smatch
#include <set>         // std::set
#include <span>        // std::span
#include <string>      // std::string
#include <string_view> // std::string_view
#include <utility>     // std::move
#include <vector>      // std::vector

#include <fmt/format.h>      // fmt::format
#include <nlohmann/json.hpp> // nlohmann::json

#include "servestat/core/run.hpp"               // run_metadata
#include "servestat/core/run_names.hpp"         // short_model_name
#include "servestat/experiment/path_words.hpp"  // path_words, path_word, word_kind

namespace servestat {

enum class factor_source { file, path_tag, path_word, run_metadata, measured, user };

inline const char* to_string(factor_source s) noexcept {
    switch (s) {
    case factor_source::file: return "file";
    case factor_source::path_tag: return "path tag";
    case factor_source::path_word: return "path word";
    case factor_source::run_metadata: return "run metadata";
    case factor_source::measured: return "measured";
    case factor_source::user: return "--factor";
    }
    return "?";
}

// What a word of a path says, as far as names tell: a time, an id or what sits at the end of a
// file name (a number there often counts repeated runs).
enum class word_hint { none, time, id, trailing_number, load_range };

struct factor {
    std::string name;
    factor_source source = factor_source::file;
    std::string where;                  // "the file", "folder 2", "the file name", "conc16", …
    std::vector<nlohmann::json> values; // one per run; null where the run has none
    word_hint hint = word_hint::none;
    bool zero_padded = false; // a number written with leading zeros somewhere ("05"): a slot or sequence

    bool varies() const {
        for (const auto& v : values)
            if (v != values.front()) return true;
        return false;
    }
};

// A factor the user pulls out of paths: --factor NAME=REGEX (the first capture group, else the
// whole match, searched in the run's path below its directory argument).
struct user_factor {
    std::string name;
    std::string pattern;
};

struct factor_table {
    std::vector<factor> factors;
    std::size_t runs = 0;

    const factor* find(std::string_view name) const {
        for (const auto& f : factors)
            if (f.name == name) return &f;
        return nullptr;
    }
};

namespace detail {

// A word's value as a factor holds it: a number when it is one, else the text as written.
inline nlohmann::json word_value(const std::string& text) {
    if (is_decimal(text)) {
        if (const auto n = parse_name_number(text)) return *n;
    }
    return text;
}

// A run's path below its directory argument, root first: its folders, then its file's stem.
inline std::vector<std::string> folders_root_first(const run_metadata& m) {
    std::vector<std::string> parts(m.source.name_parts.begin(), m.source.name_parts.end());
    if (!parts.empty()) parts.erase(parts.begin()); // the stem
    std::reverse(parts.begin(), parts.end());
    return parts;
}

inline std::string file_stem(const run_metadata& m) {
    return m.source.name_parts.empty() ? std::string() : m.source.name_parts.front();
}

inline std::string position_name(std::size_t depth) { return depth == 0 ? std::string("name") : fmt::format("folder{}", depth); }

inline std::string position_where(std::size_t depth) {
    return depth == 0 ? std::string("the file name") : fmt::format("folder {} of the path", depth);
}

// A factor for `name` unless one by that name exists: then the position's name before it.
inline std::string free_name(const factor_table& t, const std::string& name, const std::string& position) {
    if (!t.find(name)) return name;
    const std::string prefixed = position + "_" + name;
    return t.find(prefixed) ? prefixed + "_" : prefixed;
}

inline void add_if_varying(factor_table& t, factor f) {
    if (f.varies()) t.factors.push_back(std::move(f));
}

// The file's own parameters (and those the grammar found on its path, whose origin is kept).
inline void add_param_factors(factor_table& t, std::span<const run_metadata* const> runs) {
    std::set<std::string> names;
    for (const auto* m : runs)
        for (const auto& [k, v] : m->params.items()) names.insert(k);
    for (const auto& name : names) {
        factor f{name, factor_source::file, "the file", {}, word_hint::none};
        std::set<std::string> origins;
        bool from_file = false;
        for (const auto* m : runs) {
            const auto it = m->params.find(name);
            f.values.push_back(it == m->params.end() ? nlohmann::json() : *it);
            if (it == m->params.end()) continue;
            if (const auto o = m->param_origin.find(name); o != m->param_origin.end()) origins.insert(o->second);
            else from_file = true;
        }
        if (!from_file && !origins.empty()) {
            f.source = factor_source::path_tag;
            f.where = origins.size() == 1 ? "'" + *origins.begin() + "'" : fmt::format("names such as '{}'", *origins.begin());
        }
        t.factors.push_back(std::move(f));
    }
}

// The tool whose output a format is, whatever layout it was saved in: a tool's summary, its CSV
// twin, its console text or its per-request export ("genai-perf-summary" beside "genai-perf", as one
// sweep saved both ways) hold the same kind of measurement, so the layout sets no runs apart.
inline std::string format_family(std::string format) {
    for (const std::string_view layout : {"-summary-csv", "-summary", "-console", "-requests", "-csv", "-json", "-multi-run", "-report-v2"})
        if (format.size() > layout.size() && format.ends_with(layout)) {
            format.resize(format.size() - layout.size());
            break;
        }
    return format;
}

inline void add_metadata_factors(factor_table& t, std::span<const run_metadata* const> runs) {
    const auto add = [&](const char* name, auto field) {
        if (t.find(name)) return;
        factor f{name, factor_source::run_metadata, "the file", {}, word_hint::none};
        for (const auto* m : runs) {
            const std::string v = field(*m);
            f.values.push_back(v.empty() ? nlohmann::json() : nlohmann::json(v));
        }
        t.factors.push_back(std::move(f));
    };
    // A model by its name without the folder or organisation it was loaded from: the same weights
    // as "nvidia/Kimi-K2.5-NVFP4" and as "/lustre/fsw/models/Kimi-K2.5-NVFP4" are one model.
    add("model", [](const run_metadata& m) { return short_model_name(m.model); });
    add("workload", [](const run_metadata& m) -> const std::string& { return m.workload; });
    add("format", [](const run_metadata& m) { return format_family(m.source.format); });
}

// Six hexadecimal characters or more with a digit and a letter among them.
inline bool hex_like(std::string_view s) { return hex_with_digit_and_letter(s, 6); }

// Short hex ids ("7da261", a client's settings hash ending each name) are ids; one that happens to
// read as a number and letters ("38769a") or as a word is known as one by its siblings: where two
// names or more hold, in the same place from their end, hex tokens of one length and at least one
// of them reads as no tag, every such token of that place is an id.
inline void ids_known_by_siblings(std::vector<std::optional<std::vector<path_word>>>& words) {
    std::size_t longest = 0;
    for (const auto& ws : words)
        if (ws) longest = std::max(longest, ws->size());
    for (std::size_t back = 1; back <= longest; ++back) {
        std::map<std::size_t, std::size_t> of_length, untagged;
        for (const auto& ws : words)
            if (ws && ws->size() >= back)
                if (const auto& w = (*ws)[ws->size() - back]; w.kind != word_kind::hash && hex_like(w.text)) {
                    ++of_length[w.text.size()];
                    untagged[w.text.size()] += w.kind != word_kind::tag;
                }
        for (auto& ws : words)
            if (ws && ws->size() >= back)
                if (auto& w = (*ws)[ws->size() - back]; w.kind != word_kind::hash && hex_like(w.text) &&
                                                         of_length[w.text.size()] >= 2 && untagged[w.text.size()] > 0)
                    w.kind = word_kind::hash, w.key.clear(), w.value.clear();
    }
}

// The words of one position (depth 0: the file name; d: folder d below the directory argument).
inline std::vector<std::optional<std::vector<path_word>>> words_at(std::span<const run_metadata* const> runs, std::size_t depth) {
    std::vector<std::optional<std::vector<path_word>>> out;
    for (const auto* m : runs) {
        if (depth == 0) {
            out.emplace_back(path_words(file_stem(*m)));
            continue;
        }
        const auto folders = folders_root_first(*m);
        if (depth <= folders.size()) out.emplace_back(path_words(folders[depth - 1]));
        else out.emplace_back(std::nullopt);
    }
    ids_known_by_siblings(out);
    return out;
}

// `key=value` words ("run=0", "max_num_seqs=64"): a factor each key, unless the file gives it.
inline void add_key_value_factors(factor_table& t, std::span<const run_metadata* const> runs,
                                  const std::vector<std::optional<std::vector<path_word>>>& words, std::size_t depth) {
    std::set<std::string> keys;
    for (const auto& ws : words)
        if (ws)
            for (const auto& w : *ws)
                if (w.kind == word_kind::key_value) keys.insert(w.key);
    for (const auto& key : keys) {
        // The file gives it: under its key, or under the whole name the words split ("max_concurrency=1"
        // reads as max, concurrency=1; the file's max_concurrency is that setting).
        bool given = false;
        for (const auto* m : runs)
            for (const auto& [name, value] : m->params.items())
                given = given || name == key || name.ends_with("_" + key);
        if (given) continue;
        factor f{free_name(t, key, position_name(depth)), factor_source::path_tag, position_where(depth), {}, word_hint::none};
        for (const auto& ws : words) {
            nlohmann::json v;
            if (ws)
                for (const auto& w : *ws)
                    if (w.kind == word_kind::key_value && w.key == key) v = word_value(w.value);
            f.values.push_back(std::move(v));
        }
        add_if_varying(t, std::move(f));
    }
}

// Dates, times and ids of one position, joined: when and which, never what was run.
inline void add_provenance_factor(factor_table& t, const std::vector<std::optional<std::vector<path_word>>>& words,
                                  std::size_t depth, word_kind kind) {
    const bool time = kind == word_kind::time;
    factor f{free_name(t, position_name(depth) + (time ? "_time" : "_id"), position_name(depth)), factor_source::path_word,
             position_where(depth), {}, time ? word_hint::time : word_hint::id};
    for (const auto& ws : words) {
        std::string joined;
        if (ws)
            for (const auto& w : *ws)
                if (w.kind == kind) joined.append(joined.empty() ? "" : "_").append(w.text);
        f.values.push_back(joined.empty() ? nlohmann::json() : nlohmann::json(joined));
    }
    add_if_varying(t, std::move(f));
}

// Tags outside the grammar ("CTX2048", "x8"): a factor per tag's letters, its value the tag as
// written. A tag is a name, not a number on an axis: an unknown count never becomes a grid axis.
inline void add_tag_factors(factor_table& t, const std::vector<std::optional<std::vector<path_word>>>& words, std::size_t depth) {
    std::set<std::string> letters;
    for (const auto& ws : words)
        if (ws)
            for (const auto& w : *ws)
                if (w.kind == word_kind::tag) letters.insert(w.key);
    for (const auto& key : letters) {
        factor f{free_name(t, key, position_name(depth)), factor_source::path_word, position_where(depth), {}, word_hint::none};
        for (const auto& ws : words) {
            nlohmann::json v;
            if (ws)
                for (const auto& w : *ws)
                    if (w.kind == word_kind::tag && w.key == key && v.is_null()) v = w.text;
            f.values.push_back(std::move(v));
        }
        add_if_varying(t, std::move(f));
    }
}

// A bare number in a run's name that equals one of the run's own settings is that setting written
// again ("requests_4_tokens_1000" of a run with concurrency 4 and 1000 input tokens).
inline bool restates_a_setting(const path_word& w, const run_metadata& m) {
    if (w.kind == word_kind::word && lower_case(w.text) == "inf") // "qps_inf" of a run sent at an unbounded rate
        for (const auto& [k, v] : m.params.items())
            if ((v.is_string() && v.get<std::string>() == "inf") || (v.is_number_float() && std::isinf(v.get<double>())))
                return true;
    if (w.kind != word_kind::number) return false;
    const auto n = parse_name_number(w.text);
    if (!n) return false;
    for (const auto& [k, v] : m.params.items())
        if (v.is_number() && v.get<double>() == n->get<double>()) return true;
    return false;
}

// Whether the number at place `p` of run `i`'s name restates one of its settings there: it equals
// the setting, and no other run with the same number at that place of a name as long has another
// value of it ("us-east-1" in the names of runs at concurrency 1 and 5 alike is part of a name, not
// the concurrency).
inline bool restates_a_setting_at(std::size_t i, std::size_t p, std::span<const run_metadata* const> runs,
                                  const std::vector<std::optional<std::vector<path_word>>>& words) {
    const path_word& w = (*words[i])[p];
    if (!restates_a_setting(w, *runs[i])) return false;
    if (w.kind != word_kind::number) return true; // "inf": no other number to be mistaken for
    const double n = parse_name_number(w.text)->get<double>();
    for (const auto& [k, v] : runs[i]->params.items()) {
        if (!v.is_number() || v.get<double>() != n) continue;
        bool contradicted = false;
        for (std::size_t j = 0; j < words.size() && !contradicted; ++j) {
            if (j == i || !words[j] || words[j]->size() != words[i]->size() || (*words[j])[p].text != w.text) continue;
            const auto other = runs[j]->params.find(k);
            contradicted = other != runs[j]->params.end() && other->is_number() && other->get<double>() != n;
        }
        if (!contradicted) return true;
    }
    return false;
}

// The free words of each run at one position (none for a run whose path is shallower), and how
// many each run has; with `restated` false, a number that restates a setting is left out.
inline std::vector<std::optional<std::vector<std::string>>> free_words(std::span<const run_metadata* const> runs,
                                                                       const std::vector<std::optional<std::vector<path_word>>>& words,
                                                                       bool restated, std::set<std::size_t>& lengths) {
    std::vector<std::optional<std::vector<std::string>>> free(words.size());
    lengths.clear();
    for (std::size_t i = 0; i < words.size(); ++i) {
        if (!words[i]) continue;
        free[i].emplace();
        for (std::size_t p = 0; p < words[i]->size(); ++p) {
            const auto& w = (*words[i])[p];
            if ((w.kind == word_kind::word || w.kind == word_kind::number) && (restated || !restates_a_setting_at(i, p, runs, words)))
                free[i]->push_back(w.text);
        }
        lengths.insert(free[i]->size());
    }
    return free;
}

// Names with as many words differ in place (LMBench_long_input_output_0.5 beside
// LMBench_sharegpt_output_3.25): the words at their ends that are equal, or numbers, in every name
// stay places of their own; what comes before them is one word, joined ("LMBench-long-input").
inline void align_by_their_ends(std::vector<std::optional<std::vector<std::string>>>& free, std::set<std::size_t>& lengths) {
    const std::size_t shortest = *lengths.begin();
    std::size_t ends = 0;
    for (; ends < shortest; ++ends) {
        std::set<std::string> seen;
        bool numbers = true;
        for (const auto& ws : free)
            if (ws) {
                const std::string& w = (*ws)[ws->size() - 1 - ends];
                seen.insert(w);
                numbers = numbers && is_decimal(w);
            }
        if (seen.size() > 1 && !numbers) break;
    }
    if (ends == shortest && ends > 0) --ends; // something is left to join
    for (auto& ws : free) {
        if (!ws) continue;
        std::string joined;
        for (std::size_t k = 0; k + ends < ws->size(); ++k) joined.append(joined.empty() ? "" : "-").append((*ws)[k]);
        std::vector<std::string> aligned{joined};
        aligned.insert(aligned.end(), ws->end() - static_cast<std::ptrdiff_t>(ends), ws->end());
        *ws = std::move(aligned);
    }
    lengths = {ends + 1};
}

// File names of which only some end in a number (an older harness's "…_b200-dgxc" beside "…_b200-dgxc_04"):
// the number is a factor of its own ("name_end", null where a name has none), so that it never
// joins the words before it. A folder keeps its name whole ("lmcache-0310" is the authors' dated session).
inline void split_off_a_trailing_number(factor_table& t, std::vector<std::optional<std::vector<std::string>>>& free,
                                        std::set<std::size_t>& lengths, const std::string& position, std::size_t depth) {
    std::size_t ending = 0, named = 0;
    std::set<std::vector<std::string>> without; // the names that end in no number
    for (const auto& ws : free)
        if (ws) {
            ++named;
            if (!ws->empty() && is_decimal(ws->back())) ++ending;
            else without.insert(*ws);
        }
    if (ending == 0 || ending == named) return;
    // Only a number ending otherwise equal names is one ("…_dgxc_04" beside "…_dgxc"); in
    // "mix_50_50" beside "short_only" the numbers are words of the name.
    const bool otherwise_equal = std::any_of(free.begin(), free.end(), [&](const auto& ws) {
        return ws && !ws->empty() && is_decimal(ws->back()) && without.contains(std::vector<std::string>(ws->begin(), ws->end() - 1));
    });
    if (!otherwise_equal) return;
    factor f{free_name(t, position + "_end", position), factor_source::path_word, position_where(depth), {}, word_hint::trailing_number};
    lengths.clear();
    for (auto& ws : free) {
        const bool has = ws && !ws->empty() && is_decimal(ws->back());
        f.values.push_back(has ? word_value(ws->back()) : nlohmann::json());
        if (has) {
            f.zero_padded = f.zero_padded || is_zero_padded(ws->back());
            ws->pop_back();
        }
        if (ws) lengths.insert(ws->size());
    }
    add_if_varying(t, std::move(f));
}

// The other words and bare numbers of one position: where every run has as many, each place where
// they differ is a factor ("name", or "name_2" when several places differ); else, with the numbers
// that restate a run's own settings left out, the same again, or aligned by their ends.
inline void add_word_factors(factor_table& t, std::span<const run_metadata* const> runs,
                             const std::vector<std::optional<std::vector<path_word>>>& words, std::size_t depth) {
    std::set<std::size_t> lengths;
    auto free = free_words(runs, words, true, lengths);
    if (lengths.size() > 1) free = free_words(runs, words, false, lengths);
    const std::string position = position_name(depth);
    if (lengths.size() > 1 && depth == 0) split_off_a_trailing_number(t, free, lengths, position, depth);
    if (lengths.size() > 1) align_by_their_ends(free, lengths);
    const std::size_t n = lengths.empty() ? 0 : *lengths.begin();
    std::vector<std::size_t> differing;
    for (std::size_t k = 0; k < n; ++k) {
        std::set<std::string> seen;
        bool missing = false;
        for (const auto& ws : free) {
            if (ws) seen.insert((*ws)[k]);
            else missing = true;
        }
        if (seen.size() > 1 || (missing && !seen.empty() && t.runs > 1)) differing.push_back(k);
    }
    for (const std::size_t k : differing) {
        const std::string name = differing.size() == 1 ? position : fmt::format("{}_{}", position, k + 1);
        factor f{free_name(t, name, position), factor_source::path_word, position_where(depth), {}, word_hint::none};
        bool numbers = true;
        for (const auto& ws : free) {
            f.values.push_back(ws ? word_value((*ws)[k]) : nlohmann::json());
            numbers = numbers && (!ws || is_decimal((*ws)[k]));
            f.zero_padded = f.zero_padded || (ws && is_zero_padded((*ws)[k]));
        }
        if (depth == 0 && k + 1 == n && numbers) f.hint = word_hint::trailing_number;
        if (!numbers && k + 1 < n && std::all_of(free.begin(), free.end(), [&](const auto& ws) { return !ws || is_load_word(lower_case((*ws)[k + 1])); }))
            f.hint = word_hint::load_range; // "low-qps", "high-qps"
        add_if_varying(t, std::move(f));
    }
}

// Whether every run's folder at `depth` is named after its file (InferenceX's bmk_agentic_<name>/<name>.json):
// its words are the file name's, read there.
inline bool folder_repeats_the_name(std::span<const run_metadata* const> runs, std::size_t depth) {
    for (const auto* m : runs) {
        const auto folders = folders_root_first(*m);
        const std::string stem = file_stem(*m);
        if (depth > folders.size() || stem.size() < 8 || !folders[depth - 1].ends_with(stem)) return false;
    }
    return true;
}

inline void add_path_factors(factor_table& t, std::span<const run_metadata* const> runs) {
    std::size_t deepest = 0;
    for (const auto* m : runs) deepest = std::max(deepest, folders_root_first(*m).size());
    for (std::size_t depth = 1; depth <= deepest + 1; ++depth) {
        const std::size_t d = depth == deepest + 1 ? 0 : depth; // folders outermost first, the file name last
        if (d > 0 && folder_repeats_the_name(runs, d)) continue;
        const auto words = words_at(runs, d);
        add_key_value_factors(t, runs, words, d);
        add_provenance_factor(t, words, d, word_kind::time);
        add_provenance_factor(t, words, d, word_kind::hash);
        add_tag_factors(t, words, d);
        add_word_factors(t, runs, words, d);
    }
}

// The part of a run's path a --factor pattern is searched in: its folders below the directory
// argument and its file name, joined by '/'.
inline std::string searched_path(const run_metadata& m) {
    std::string out;
    auto folders = folders_root_first(m);
    if (m.source.in_directory && !folders.empty()) folders.erase(folders.begin()); // the directory argument's own name
    for (const auto& f : folders) out.append(f).append("/");
    return out + file_stem(m);
}

inline void add_user_factors(factor_table& t, std::span<const run_metadata* const> runs, std::span<const user_factor> user) {
    for (const auto& u : user) {
        const std::regex pattern(u.pattern, std::regex::ECMAScript | std::regex::icase);
        factor f{u.name, factor_source::user, "--factor " + u.name + "=" + u.pattern, {}, word_hint::none};
        for (const auto* m : runs) {
            const std::string path = searched_path(*m);
            std::smatch match;
            if (path.size() <= 4096 && std::regex_search(path, match, pattern))
                f.values.push_back(word_value(match.size() > 1 && match[1].matched ? match[1].str() : match[0].str()));
            else
                f.values.push_back(nlohmann::json());
        }
        std::erase_if(t.factors, [&](const factor& other) { return other.name == u.name; });
        t.factors.push_back(std::move(f));
    }
}

} // namespace detail

// Every factor of `runs`: the file's parameters (constant ones too), the run metadata, and the path's
// words and tags that differ between runs, then the user's --factor patterns (which replace a factor
// of the same name).
inline factor_table build_factor_table(std::span<const run_metadata* const> runs, std::span<const user_factor> user = {}) {
    factor_table t;
    t.runs = runs.size();
    detail::add_param_factors(t, runs);
    detail::add_metadata_factors(t, runs);
    detail::add_path_factors(t, runs);
    detail::add_user_factors(t, runs, user);
    return t;
}

} // namespace servestat
