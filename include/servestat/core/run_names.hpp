// Names for runs that one file holds several of (appended benchmark results, summaries keyed by
// load): the parameters that tell them apart ("no-features · rate 30"), not a position ("#3").
#pragma once

#include <algorithm>   // std::find, std::all_of, std::any_of, std::min_element
#include <array>       // std::array
#include <cstddef>     // std::size_t, std::ptrdiff_t
#include <filesystem>  // std::filesystem::path
#include <map>         // std::map
#include <set>         // std::set
#include <span>        // std::span
#include <string>      // std::string
#include <string_view> // std::string_view
#include <utility>     // std::pair
#include <vector>      // std::vector

#include <nlohmann/json.hpp> // nlohmann::json

#include "servestat/core/run.hpp" // run, run_metadata

namespace servestat {

// Load parameters in the order an automatic sweep prefers them: what a load test turns up.
inline constexpr std::array<std::string_view, 6> load_params{
    "concurrency", "max_concurrency", "request_rate", "scale", "max_num_seqs", "max_num_batched_tokens"};

inline bool is_load_param(std::string_view name) {
    return std::find(load_params.begin(), load_params.end(), name) != load_params.end();
}

// The prefix of a parameter the experiment stage puts in for a word of the path that sets
// configurations apart (experiment/design.hpp, runs_as_designed): shown by its value alone.
inline constexpr std::string_view design_word_param = "~";

namespace detail {

// "rate 30", "rate ∞", "c=16", "no-features" (a name alone), "max_tokens=128".
inline std::string param_in_name(const std::string& key, const nlohmann::json& v) {
    std::string value = v.is_string() ? v.get<std::string>() : v.dump();
    if (value == "inf" || value == "Infinity") value = "∞";
    if (key == "request_rate") return "rate " + value;
    if (key == "concurrency" || key == "max_concurrency") return "c=" + value;
    for (const auto& [name, shown] : {std::pair{"tensor_parallel_size", "tp"}, {"pipeline_parallel_size", "pp"},
                                      {"data_parallel_size", "dp"}, {"expert_parallel_size", "ep"}})
        if (key == name) return shown + value;
    return v.is_string() && !is_load_param(key) ? value : key + "=" + value;
}

// The distinct value tuples of `keys` over the runs' metadata (`meta_of(item)`).
template <class Items, class MetaOf>
std::size_t distinct_tuples(const Items& items, const std::vector<std::string>& keys, MetaOf&& meta_of) {
    std::set<std::string> seen;
    for (const auto& item : items) {
        const run_metadata& m = meta_of(item);
        std::string tuple;
        for (const auto& k : keys) tuple.append(m.params.contains(k) ? m.params[k].dump() : "-").append("\n");
        seen.insert(tuple);
    }
    return seen.size();
}

inline std::size_t distinct_tuples(std::span<const run> runs, const std::vector<std::string>& keys) {
    return distinct_tuples(runs, keys, [](const run& r) -> const run_metadata& { return r.meta; });
}

} // namespace detail

// Renames the runs of one file when two share a label: each by the parameters that vary among them,
// configuration names first and the load level last, leaving out a parameter that adds nothing
// (vLLM's num_prompts when it follows the rate). A label the user gave stays in front ("sweep · rate
// 2"); the file's own name (`fallback_label`, the reader's default) does not. Runs alike in every
// parameter keep " #k".
inline void name_runs_by_params(std::vector<run>& runs, const std::string& fallback_label) {
    std::set<std::string> labels;
    for (const auto& r : runs) labels.insert(r.meta.label);
    if (runs.size() < 2 || labels.size() == runs.size()) return;
    std::map<std::string, std::set<std::string>> values;
    for (const auto& r : runs)
        for (const auto& [k, v] : r.meta.params.items()) values[k].insert(v.dump());
    std::vector<std::string> keys; // names (strings) first, then other settings, then load levels
    for (int pass = 0; pass < 3; ++pass)
        for (const auto& [k, seen] : values) {
            bool everywhere = true;
            for (const auto& r : runs) everywhere = everywhere && r.meta.params.contains(k);
            if (seen.size() < 2 && everywhere) continue;
            const bool load = is_load_param(k), text = !load && runs.front().meta.params.value(k, nlohmann::json()).is_string();
            if ((pass == 0 && text) || (pass == 1 && !text && !load)) keys.push_back(k);
            if (pass == 2 && load) keys.push_back(k);
        }
    const std::size_t needed = detail::distinct_tuples(runs, keys);
    // Settings that are not names or loads go first, then names; load levels always stay.
    for (int pass = 0; pass < 2; ++pass)
        for (std::size_t i = keys.size(); i-- > 0;) {
            const bool text = runs.front().meta.params.value(keys[i], nlohmann::json()).is_string();
            if (is_load_param(keys[i]) || text != (pass == 1)) continue;
            auto fewer = keys;
            fewer.erase(fewer.begin() + static_cast<std::ptrdiff_t>(i));
            if (!fewer.empty() && detail::distinct_tuples(runs, fewer) == needed) keys = std::move(fewer);
        }
    std::map<std::string, int> count, next;
    std::vector<std::string> names;
    for (const auto& r : runs) {
        std::string name = r.meta.label == fallback_label ? std::string() : r.meta.label;
        for (const auto& k : keys)
            if (r.meta.params.contains(k)) name.append(name.empty() ? "" : " · ").append(detail::param_in_name(k, r.meta.params[k]));
        if (name.empty()) name = r.meta.label;
        ++count[name];
        names.push_back(std::move(name));
    }
    for (std::size_t i = 0; i < runs.size(); ++i) {
        std::string name = names[i];
        if (count[names[i]] > 1) name.append(" #").append(std::to_string(++next[names[i]]));
        runs[i].meta.label = std::move(name);
    }
}


namespace detail {

// Folder and file names that tools give every run alike: they name no run.
inline bool is_generic_run_name(std::string_view name) {
    std::string lower(name);
    for (char& c : lower) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    for (const std::string_view generic :
         {"aiperf_artifacts", "artifacts", "artifact", "results", "result", "output", "outputs", "out", "logs", "log",
          "data", "profiling", "run", "runs", "benchmark", "benchmarks", "profile_export", "profile_export_aiperf",
          "profile_export_genai_perf", "benchmark-results", "benchmark_results", "summary", "raw_data", "individual",
          "experiment_metadata", "report", "reports"})
        if (lower == generic) return true;
    return false;
}

// Past this many characters a label is a file name, not a name people say.
inline constexpr std::size_t long_run_name = 32;

// The folders and file stem of a run's source, as path parts.
inline std::vector<std::string> source_parts(const run_metadata& m) {
    std::vector<std::string> parts;
    const std::filesystem::path path(m.source.path);
    for (const auto& part : path.parent_path()) {
        const std::string name = part.string();
        if (!name.empty() && name != "." && name != ".." && name != "/") parts.push_back(name);
    }
    parts.push_back(path.stem().string());
    return parts;
}

// A label the reader derived from where the run lies (its file's stem, a folder, a tool's generic
// leaf), not one a person gave it in the log.
inline bool is_derived_label(const run_metadata& m) {
    if (m.label.empty() || is_generic_run_name(m.label)) return true;
    return m.source.path.find(m.label) != std::string::npos;
}

// Each run's path parts below the folders all of them share.
inline std::vector<std::vector<std::string>> parts_below_common(const std::vector<const run_metadata*>& runs) {
    std::vector<std::vector<std::string>> parts;
    for (const auto* m : runs) parts.push_back(source_parts(*m));
    std::size_t lead = 0;
    const auto shortest = std::min_element(parts.begin(), parts.end(), [](const auto& a, const auto& b) { return a.size() < b.size(); })->size();
    while (lead + 1 < shortest && std::all_of(parts.begin(), parts.end(), [&](const auto& p) { return p[lead] == parts[0][lead]; })) ++lead;
    for (auto& p : parts) p.erase(p.begin(), p.begin() + static_cast<std::ptrdiff_t>(lead));
    return parts;
}

// A label that names nothing: a tool's generic leaf, or a long file name the reader took.
inline bool label_names_nothing(const run_metadata& m) {
    return is_generic_run_name(m.label) || (m.label.size() > long_run_name && is_derived_label(m));
}

inline std::string short_model_name(const std::string& model) {
    const auto slash = model.rfind('/');
    return slash == std::string::npos ? model : model.substr(slash + 1);
}

// The parameters that tell `runs` apart, fewest first (configuration settings before the load
// level, which always stays), as name_runs_by_params chooses them within one file.
inline std::vector<std::string> telling_params(const std::vector<const run_metadata*>& runs) {
    std::map<std::string, std::set<std::string>> values;
    for (const auto* m : runs)
        for (const auto& [k, v] : m->params.items()) values[k].insert(v.dump());
    const auto tuples = [&](const std::vector<std::string>& keys) {
        return distinct_tuples(runs, keys, [](const run_metadata* m) -> const run_metadata& { return *m; });
    };
    std::vector<std::string> keys;
    for (const bool load : {false, true})
        for (const auto& [k, seen] : values) {
            bool everywhere = true;
            for (const auto* m : runs) everywhere = everywhere && m->params.contains(k);
            if ((seen.size() > 1 || !everywhere) && is_load_param(k) == load) keys.push_back(k);
        }
    const std::size_t needed = tuples(keys);
    for (std::size_t i = keys.size(); i-- > 0;) {
        if (is_load_param(keys[i])) continue;
        auto fewer = keys;
        fewer.erase(fewer.begin() + static_cast<std::ptrdiff_t>(i));
        if (!fewer.empty() && tuples(fewer) == needed) keys = std::move(fewer);
    }
    // Of two load parameters that say the same (a path's concurrency beside a file's max_concurrency), one.
    for (std::size_t i = keys.size(); i-- > 0;) {
        if (!is_load_param(keys[i])) continue;
        auto fewer = keys;
        fewer.erase(fewer.begin() + static_cast<std::ptrdiff_t>(i));
        const bool other_load = std::any_of(fewer.begin(), fewer.end(), [](const std::string& k) { return is_load_param(k); });
        if (other_load && tuples(fewer) == needed) keys = std::move(fewer);
    }
    return keys;
}

} // namespace detail

// Names runs read from several inputs by what sets them apart, when their labels do not: labels
// that repeat, that a tool gives every run alike ("aiperf_artifacts", "results") or that are long
// file names (those runs only). A run's new name is the model when models differ, then the fewest parameters that tell
// the runs apart ("tp8 · c=16"); runs those leave alike are told apart by the outermost folders
// where their paths differ ("vllm-baseline · rate 2"); a label a person gave in the log stays in
// front. The source path is unchanged (it stays in the JSON).
inline void name_runs_apart(std::span<run_metadata* const> given) {
    // Runs of one file that share a label were named so by its reader (replicates of a sweep table).
    std::map<std::string, std::set<std::string>> files_of_label;
    for (const auto* m : given) files_of_label[m->label].insert(m->source.path);
    std::vector<run_metadata*> runs;
    for (auto* m : given)
        if (detail::label_names_nothing(*m) || files_of_label[m->label].size() > 1) runs.push_back(m);
    if (runs.empty()) return;
    const std::vector<const run_metadata*> all(runs.begin(), runs.end());
    const auto keys = detail::telling_params(all);
    std::set<std::string> models;
    for (const auto* m : runs) models.insert(m->model);
    std::vector<std::vector<std::string>> names(runs.size()); // the pieces of each name
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const run_metadata& m = *runs[i];
        if (!detail::is_derived_label(m)) names[i].push_back(m.label);
        if (models.size() > 1 && !m.model.empty()) names[i].push_back(detail::short_model_name(m.model));
        for (const auto& k : keys)
            if (m.params.contains(k)) names[i].push_back(detail::param_in_name(k, m.params[k]));
    }
    const auto joined = [](const std::vector<std::string>& pieces) {
        std::string out;
        for (const auto& p : pieces) out.append(out.empty() ? "" : " · ").append(p);
        return out;
    };
    // Runs alike so far: the folders (outermost first) and file names where their paths differ, one
    // at a time until they are told apart, leaving out what a tool names every run.
    std::map<std::string, std::vector<std::size_t>> alike;
    for (std::size_t i = 0; i < runs.size(); ++i) alike[joined(names[i])].push_back(i);
    for (const auto& [name, group] : alike) {
        if (group.size() < 2 && !name.empty()) continue;
        std::vector<const run_metadata*> members;
        for (const std::size_t i : group) members.push_back(runs[i]);
        const auto parts = group.size() < 2 ? std::vector<std::vector<std::string>>{detail::source_parts(*runs[group[0]])}
                                            : detail::parts_below_common(members);
        std::vector<std::string> told(group.size());
        std::size_t depth = 0;
        for (const auto& p : parts) depth = std::max(depth, p.size());
        for (std::size_t k = 0; k < depth; ++k) {
            std::set<std::string> at_k, tuples;
            for (const auto& p : parts) at_k.insert(k < p.size() ? p[k] : std::string());
            if (group.size() > 1 && at_k.size() < 2) continue;
            if (group.size() == 1 && (detail::is_generic_run_name(parts[0][k]) || k + 1 < depth)) continue;
            for (std::size_t g = 0; g < group.size(); ++g) {
                const std::string& part = k < parts[g].size() ? parts[g][k] : std::string();
                if (!part.empty() && !detail::is_generic_run_name(part)) told[g].append(told[g].empty() ? "" : "/").append(part);
                tuples.insert(told[g]);
            }
            if (tuples.size() == group.size()) break;
        }
        for (std::size_t g = 0; g < group.size(); ++g)
            if (!told[g].empty()) names[group[g]].insert(names[group[g]].begin() + (detail::is_derived_label(*runs[group[g]]) ? 0 : 1), told[g]);
    }
    // A single run under a tool's generic folder: the nearest folder that is not one.
    for (std::size_t i = 0; i < runs.size(); ++i)
        if (names[i].empty()) {
            const auto parts = detail::source_parts(*runs[i]);
            for (auto it = parts.rbegin(); it != parts.rend() && names[i].empty(); ++it)
                if (!detail::is_generic_run_name(*it)) names[i].push_back(*it);
            if (names[i].empty()) names[i].push_back(runs[i]->label);
        }
    std::map<std::string, int> count, next;
    for (const auto& n : names) ++count[joined(n)];
    for (std::size_t i = 0; i < runs.size(); ++i) {
        std::string name = joined(names[i]);
        if (count[name] > 1) name.append(" #").append(std::to_string(++next[joined(names[i])]));
        runs[i]->label = std::move(name);
    }
}

} // namespace servestat
