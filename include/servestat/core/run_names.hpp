// Names for runs that one file holds several of (appended benchmark results, summaries keyed by
// load): the parameters that tell them apart ("no-features · rate 30"), not a position ("#3").
#pragma once

#include <algorithm>   // std::find
#include <array>       // std::array
#include <cstddef>     // std::size_t
#include <map>         // std::map
#include <set>         // std::set
#include <span>        // std::span
#include <string>      // std::string
#include <string_view> // std::string_view
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

namespace detail {

// "rate 30", "rate ∞", "c=16", "no-features" (a name alone), "max_tokens=128".
inline std::string param_in_name(const std::string& key, const nlohmann::json& v) {
    std::string value = v.is_string() ? v.get<std::string>() : v.dump();
    if (value == "inf" || value == "Infinity") value = "∞";
    if (key == "request_rate") return "rate " + value;
    if (key == "concurrency" || key == "max_concurrency") return "c=" + value;
    return v.is_string() && !is_load_param(key) ? value : key + "=" + value;
}

// The distinct value tuples of `keys` over the runs.
inline std::size_t distinct_tuples(std::span<const run> runs, const std::vector<std::string>& keys) {
    std::set<std::string> seen;
    for (const auto& r : runs) {
        std::string tuple;
        for (const auto& k : keys) tuple.append(r.meta.params.contains(k) ? r.meta.params[k].dump() : "-").append("\n");
        seen.insert(tuple);
    }
    return seen.size();
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

} // namespace servestat
