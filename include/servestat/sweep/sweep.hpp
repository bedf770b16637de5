// Sweeps: runs that differ in one load parameter (concurrency, request rate, scale, ...) and agree
// on everything else, ordered by that parameter; and two-parameter grids.
#pragma once

#include <algorithm>   // std::sort, std::find, std::find_if
#include <array>       // std::array
#include <cmath>       // std::isinf
#include <cstddef>     // std::size_t
#include <filesystem>  // std::filesystem::path
#include <limits>      // std::numeric_limits
#include <map>         // std::map
#include <optional>    // std::optional
#include <set>         // std::set
#include <span>        // std::span
#include <string>      // std::string
#include <string_view> // std::string_view
#include <utility>     // std::pair
#include <vector>      // std::vector

#include <fmt/format.h>       // fmt::format
#include <nlohmann/json.hpp> // nlohmann::json

#include "servestat/core/errors.hpp"    // input_error
#include "servestat/core/run_names.hpp" // load_params

#include "servestat/stats/interval.hpp"  // interval
#include "servestat/stats/run_stats.hpp" // run_stats, find_summary, find_percentile
#include "servestat/stats/run_validity.hpp" // run_failed_entirely, run_request_count

namespace servestat {

struct sweep_point {
    double load;     // the swept parameter's value; +inf for an unbounded rate (vLLM's "inf")
    std::size_t run; // index into the runs the sweep was found in: the level's first run
    // Every run of this configuration at this level, `run` first, in input order: more than one
    // when the level was measured again (replicates).
    std::vector<std::size_t> replicates;
};

struct sweep {
    std::string param;               // what was swept, e.g. "concurrency"
    std::string group;               // the other parameters that set this sweep apart, e.g. "max_num_seqs=16"
    std::vector<sweep_point> points; // ascending load
    // Parameters whose value follows the load level and so set no sweep apart ("num_prompts" when
    // each rate was run with its own number of prompts).
    std::vector<std::string> covarying;
    // The experiment's name for the configuration this sweep measures ("llm-d/ · sharegpt"), set by
    // whoever read the design; empty when the set has one configuration or no design was read.
    std::string configuration;
    std::vector<std::string> configuration_pieces; // its name by factor (experiment/design.hpp's configuration::pieces)
};

// A run that has the swept parameter but is on no sweep, and why.
struct left_out_run {
    std::size_t run;
    std::string reason;
};

struct sweep_options {
    std::string by;             // the parameter to sweep; empty = choose automatically
    std::size_t min_points = 3; // fewer load levels make no curve
    // The experiment stage's reading (experiment/design.hpp): the runs' parameters are already their
    // configuration and level, `lengths` the factors that set a run's length (never a curve apart),
    // and folders are factors of their own, so no heuristic below second-guesses them.
    bool from_design = false;
    std::vector<std::string> lengths;
};

namespace detail {

// A load level: a number, or "inf" / "Infinity" (how vLLM and JSON writers spell an unbounded rate;
// JSON itself has no infinity).
inline std::optional<double> numeric_param(const run_metadata& meta, const std::string& name) {
    const auto it = meta.params.find(name);
    if (it == meta.params.end()) return std::nullopt;
    if (it->is_number()) return it->get<double>();
    if (it->is_string())
        for (const char* spelling : {"inf", "Infinity", "infinity", "+inf"})
            if (it->get_ref<const std::string&>() == spelling) return std::numeric_limits<double>::infinity();
    return std::nullopt;
}

// A load level as people write it: "16", "2.5", and "∞ (max)" for an unbounded rate (every
// request sent at once: the server's maximum throughput).
inline std::string load_text(double load) {
    return std::isinf(load) ? std::string("∞ (max)") : fmt::format("{:g}", load);
}

// Parameters whose value is not the same in every run.
inline std::set<std::string> varying_params(std::span<const run_stats> runs) {
    std::map<std::string, std::set<std::string>> values;
    for (const auto& r : runs)
        for (const auto& [name, value] : r.meta.params.items()) values[name].insert(value.dump());
    std::set<std::string> out;
    for (const auto& [name, seen] : values) {
        std::size_t with = 0;
        for (const auto& r : runs) with += r.meta.params.contains(name);
        if (seen.size() > 1 || with != runs.size()) out.insert(name);
    }
    return out;
}

// The load parameter that varies and that most runs have (the earlier of load_params on a tie):
// one run with a concurrency among rate-swept runs does not make concurrency the sweep.
inline std::string choose_sweep_param(std::span<const run_stats> runs, const sweep_options& o) {
    if (!o.by.empty()) return o.by;
    const auto varying = varying_params(runs);
    std::string best;
    std::size_t best_count = 0;
    for (const auto p : load_params) {
        if (!varying.contains(std::string(p))) continue;
        std::size_t count = 0;
        for (const auto& r : runs) count += numeric_param(r.meta, std::string(p)).has_value();
        if (count > best_count) best = std::string(p), best_count = count;
    }
    if (!best.empty()) return best;
    return varying.size() == 1 ? *varying.begin() : std::string();
}

inline std::string folder_of(const run_stats& r) {
    return std::filesystem::path(r.meta.source.path).parent_path().string();
}

// Counts that set how long a run lasts, which people scale with the load (ten prompts per unit of
// concurrency): when each level has one value, they follow the load even over a curve's length.
inline bool is_run_length_param(std::string_view name) {
    for (const std::string_view n : {"num_prompts", "num_requests", "request_count", "max_requests", "max_number",
                                     "max_seconds", "benchmark_duration", "duration"})
        if (name == n) return true;
    return false;
}

// Parameters other than the swept one whose value is a function of the load level: one value at
// each level (every run there agrees; one run per level is enough), more than one value in all, and
// no value held over a whole curve's worth of levels (that would be a configuration measured at
// several loads, which sets a curve apart) unless it is a run's length. vLLM's `num_prompts` = 10 ×
// concurrency is one; `max_num_seqs` of a grid is not (two values at one level).
inline std::vector<std::string> covarying_params(std::span<const run_stats> runs, const std::string& param,
                                                 const std::set<std::string>& varying, const sweep_options& o = {}) {
    constexpr std::size_t curve_points = 3;
    std::vector<std::string> out;
    for (const auto& name : varying) {
        if (name == param) continue;
        if (o.from_design) { // the stage's lengths follow the load, whatever their values
            if (std::find(o.lengths.begin(), o.lengths.end(), name) != o.lengths.end()) out.push_back(name);
            continue;
        }
        std::map<double, std::set<std::string>> values_at;
        std::map<std::string, std::set<double>> levels_of;
        for (const auto& r : runs) {
            const auto load = numeric_param(r.meta, param);
            if (!load) continue;
            const auto it = r.meta.params.find(name);
            const std::string value = it == r.meta.params.end() ? std::string("\x01" "absent") : it->dump();
            values_at[*load].insert(value);
            levels_of[value].insert(*load);
        }
        bool one_per_level = true, spans_curve = false;
        for (const auto& [load, values] : values_at) one_per_level = one_per_level && values.size() == 1;
        for (const auto& [value, levels] : levels_of) spans_curve = spans_curve || levels.size() >= curve_points;
        if (one_per_level && (!spans_curve || is_run_length_param(name)) && levels_of.size() > 1) out.push_back(name);
    }
    return out;
}

// What must be equal for two runs to lie on one curve: the source format, workload, model and
// every parameter except the swept one and those that follow it (and, when folders hold the
// configurations, the folder).
inline std::string curve_key(const run_stats& r, const std::string& param, std::span<const std::string> covarying,
                             bool by_folder) {
    nlohmann::json others = r.meta.params;
    others.erase(param);
    for (const auto& name : covarying) others.erase(name);
    return r.meta.source.format + "\n" + r.meta.workload + "\n" + r.meta.model + "\n" + others.dump() + "\n" +
           (by_folder ? folder_of(r) : std::string());
}

// Folders hold configurations (GPU1/, GPU2_TP2/, each a full sweep of files named by load) when
// runs alike in every parameter come from several folders, a level appears in more than one, and
// some folder holds a curve's worth of levels. Their runs are then not replicates of each other.
inline bool folders_set_curves_apart(std::span<const run_stats> runs, const std::string& param,
                                     std::span<const std::string> covarying) {
    constexpr std::size_t curve_points = 3;
    std::map<std::string, std::map<double, std::set<std::string>>> folders_at; // curve key → level → folders
    std::map<std::string, std::set<double>> levels_in;                        // folder → levels
    for (const auto& r : runs) {
        const auto load = numeric_param(r.meta, param);
        if (!load) continue;
        folders_at[curve_key(r, param, covarying, false)][*load].insert(folder_of(r));
        levels_in[folder_of(r)].insert(*load);
    }
    bool shared_level = false, full_folder = false;
    for (const auto& [key, levels] : folders_at)
        for (const auto& [load, folders] : levels) shared_level = shared_level || folders.size() > 1;
    for (const auto& [folder, levels] : levels_in) full_folder = full_folder || levels.size() >= curve_points;
    return levels_in.size() > 1 && shared_level && full_folder;
}

// Run metadata that sets curves apart besides the parameters: a model, workload or source format
// that is not the same in every run.
inline std::vector<std::pair<std::string, std::string>> distinguishing_metadata(const run_stats& r,
                                                                                std::span<const run_stats> runs) {
    std::vector<std::pair<std::string, std::string>> out;
    auto add_if_varying = [&](const char* name, auto field) {
        for (const auto& other : runs)
            if (field(other) != field(r)) {
                out.emplace_back(name, field(r).empty() ? std::string("(none)") : field(r));
                return;
            }
    };
    add_if_varying("model", [](const run_stats& x) -> const std::string& { return x.meta.model; });
    add_if_varying("workload", [](const run_stats& x) -> const std::string& { return x.meta.workload; });
    add_if_varying("format", [](const run_stats& x) -> const std::string& { return x.meta.source.format; });
    return out;
}

// A parameter as a name shows it: a label column's value alone ("configA"), others as key=value.
inline std::string param_text(const std::string& name, const nlohmann::json& v) {
    const std::string value = v.is_string() ? v.get<std::string>() : v.dump();
    return name == "label" || name.starts_with(design_word_param) ? value : name + "=" + value;
}

// The folder that sets a run's curve apart: the first folder of its path where the runs' folders
// differ ("vllm-baseline" of vllm-baseline/results/), past any a tool names every run alike.
inline std::string folder_name(const run_stats& r, std::span<const run_stats> runs) {
    const auto parts = [](const run_stats& x) {
        std::vector<std::string> out;
        for (const auto& p : std::filesystem::path(folder_of(x))) out.push_back(p.string());
        return out;
    };
    const auto mine = parts(r);
    std::size_t lead = mine.size();
    for (const auto& other : runs) {
        const auto theirs = parts(other);
        std::size_t same = 0;
        while (same < mine.size() && same < theirs.size() && mine[same] == theirs[same]) ++same;
        if (same < mine.size() || theirs.size() > mine.size()) lead = std::min(lead, same);
    }
    for (std::size_t k = lead; k < mine.size(); ++k)
        if (!is_generic_run_name(mine[k])) return mine[k];
    return std::filesystem::path(folder_of(r)).filename().string();
}

inline std::string group_name(const run_stats& r, const std::string& param, const std::set<std::string>& varying,
                              std::span<const std::string> covarying, bool by_folder, std::span<const run_stats> runs) {
    std::string out;
    if (by_folder) out = folder_name(r, runs) + "/";
    for (const auto& [name, value] : distinguishing_metadata(r, runs))
        out.append(out.empty() ? "" : ", ").append(name).append("=").append(value);
    for (const auto& name : varying) {
        if (name == param || !r.meta.params.contains(name)) continue;
        if (std::find(covarying.begin(), covarying.end(), name) != covarying.end()) continue;
        out.append(out.empty() ? "" : ", ").append(param_text(name, r.meta.params[name]));
    }
    return out;
}

// Two summary rows of one file that agree on every parameter and every number cannot be told
// apart as replicates: most likely a row pasted twice.
inline void refuse_identical_rows(const run_stats& a, const run_stats& b) {
    if (a.meta.kind != run_kind::summary || b.meta.kind != run_kind::summary) return;
    if (a.meta.source.path != b.meta.source.path || a.meta.reported.empty()) return;
    if (a.meta.params != b.meta.params || a.meta.reported.size() != b.meta.reported.size()) return;
    for (std::size_t k = 0; k < a.meta.reported.size(); ++k)
        if (a.meta.reported[k].name != b.meta.reported[k].name || a.meta.reported[k].value != b.meta.reported[k].value)
            return;
    const auto where = [](const run_stats& r) {
        return r.meta.source.line ? "line " + std::to_string(r.meta.source.line) : "'" + r.meta.label + "'";
    };
    throw input_error(a.meta.source.path, b.meta.source.line, "",
                      where(b) + " repeats " + where(a) + " exactly (every parameter and value): a level measured "
                      "twice gives two different results, so one is likely a copy; remove it, or add a column "
                      "(label, run) that tells the two apart");
}

// Sweeps that would read alike get told apart by where their runs came from, then by number.
inline void name_sweeps_apart(std::vector<sweep>& sweeps, std::span<const run_stats> runs) {
    if (sweeps.size() < 2) return;
    auto collides = [&](std::size_t i) {
        if (sweeps[i].group.empty()) return true;
        for (std::size_t j = 0; j < sweeps.size(); ++j)
            if (j != i && sweeps[j].group == sweeps[i].group) return true;
        return false;
    };
    std::vector<std::size_t> unclear;
    for (std::size_t i = 0; i < sweeps.size(); ++i)
        if (collides(i)) unclear.push_back(i);
    std::set<std::string> sources;
    for (const std::size_t i : unclear) sources.insert(runs[sweeps[i].points.front().run].meta.source.path);
    for (const std::size_t i : unclear) {
        std::string& group = sweeps[i].group;
        if (sources.size() == unclear.size())
            group.append(group.empty() ? "" : ", ")
                .append("from ")
                .append(std::filesystem::path(runs[sweeps[i].points.front().run].meta.source.path).filename().string());
    }
    std::map<std::string, int> count, next;
    for (const auto& s : sweeps) ++count[s.group];
    for (auto& s : sweeps) {
        const std::string group = s.group;
        if (count[group] > 1 || group.empty())
            s.group.append(group.empty() ? "#" : " #").append(std::to_string(++next[group]));
    }
}

} // namespace detail

// The sweeps among `runs` and the runs that have the swept parameter but are on none.
struct sweep_search {
    std::vector<sweep> sweeps;
    std::vector<left_out_run> left_out;
};

// The sweeps among `runs`: groups of at least `min_points` load levels whose runs agree on all but
// the swept parameter and the parameters that follow it, each ordered by it. A level measured
// again in the same configuration is a replicate of it; nothing is dropped.
inline sweep_search search_sweeps(std::span<const run_stats> runs, const sweep_options& o = {}) {
    sweep_search out;
    const std::string param = detail::choose_sweep_param(runs, o);
    if (param.empty()) return out;
    const auto varying = detail::varying_params(runs);
    const auto covarying = detail::covarying_params(runs, param, varying, o);
    const bool by_folder = !o.from_design && detail::folders_set_curves_apart(runs, param, covarying);
    std::map<std::string, sweep> by_key;
    std::vector<std::string> order; // first appearance, so output order follows input order
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const auto load = detail::numeric_param(runs[i].meta, param);
        if (!load) continue;
        const std::string key = detail::curve_key(runs[i], param, covarying, by_folder);
        auto [it, inserted] = by_key.try_emplace(
            key, sweep{param, detail::group_name(runs[i], param, varying, covarying, by_folder, runs), {}, covarying});
        if (inserted) order.push_back(key);
        auto& points = it->second.points;
        const auto at = std::find_if(points.begin(), points.end(), [&](const sweep_point& p) { return p.load == *load; });
        if (at == points.end()) {
            points.push_back({*load, i, {i}});
            continue;
        }
        for (const std::size_t j : at->replicates) detail::refuse_identical_rows(runs[j], runs[i]);
        at->replicates.push_back(i);
    }
    for (const auto& key : order) {
        sweep s = std::move(by_key[key]);
        if (s.points.size() < o.min_points) {
            const std::string reason =
                fmt::format("{} has {} level{} of {}; a sweep needs {}", s.group.empty() ? "its configuration" : s.group,
                            s.points.size(), s.points.size() == 1 ? "" : "s", param, o.min_points);
            for (const auto& p : s.points)
                for (const std::size_t i : p.replicates) out.left_out.push_back({i, reason});
            continue;
        }
        std::sort(s.points.begin(), s.points.end(), [](const auto& a, const auto& b) { return a.load < b.load; });
        out.sweeps.push_back(std::move(s));
    }
    detail::name_sweeps_apart(out.sweeps, runs);
    if (!out.sweeps.empty())
        for (std::size_t i = 0; i < runs.size(); ++i)
            if (!detail::numeric_param(runs[i].meta, param)) out.left_out.push_back({i, "no " + param + " parameter"});
    std::sort(out.left_out.begin(), out.left_out.end(), [](const auto& a, const auto& b) { return a.run < b.run; });
    return out;
}

inline std::vector<sweep> find_sweeps(std::span<const run_stats> runs, const sweep_options& o = {}) {
    return search_sweeps(runs, o).sweeps;
}

namespace detail {

// The summary a "[subset.]metric.stat" name reads from a run with measured requests, and its stat
// ("short.ttft.p50": short prompts' TTFT summary, "p50"); none for other names and other runs.
struct summary_stat {
    const summary* of = nullptr;
    std::string_view stat;
};

inline summary_stat measured_summary_stat(const run_stats& r, std::string_view name) {
    if (!(r.requests > 0 && r.meta.kind == run_kind::requests)) return {};
    // [subset.]metric.stat, where stat may hold a dot itself ("p99.9")
    std::string subset = "all";
    std::string_view rest = name;
    for (const std::string_view s : {"short.", "medium.", "long."})
        if (rest.starts_with(s)) {
            subset = std::string(s.substr(0, s.size() - 1));
            rest.remove_prefix(s.size());
        }
    const auto dot = rest.find('.');
    if (dot == std::string_view::npos) return {};
    const std::string_view metric_name = rest.substr(0, dot), stat = rest.substr(dot + 1);
    for (metric m : all_metrics)
        if (to_string(m) == metric_name)
            if (const summary* s = find_summary(r, subset, m); s && s->n > 0) return {s, stat};
    return {};
}

} // namespace detail

// The confidence interval of a percentile a sweep reads from one run ("e2e.p99", "short.ttft.p50"),
// where its requests gave one (stats/summary.hpp); none for other names, and for a tool's aggregates.
inline std::optional<interval> sweep_interval(const run_stats& r, std::string_view name) {
    const auto [s, stat] = detail::measured_summary_stat(r, name);
    if (s == nullptr || !stat.starts_with('p')) return std::nullopt;
    for (const auto& p : s->percentiles)
        if (percentile_key(p.p) == stat) return p.value ? p.ci : std::nullopt;
    return std::nullopt;
}

// A value of one run as a sweep reads it: computed from its requests when it has them, else as
// its tool reported it. Names: "rps", "output_tps", "total_tps", "duration", "success_rate", and
// "[subset.]metric.stat" (e.g. "e2e.p99", "short.ttft.p50", "e2e.mean").
inline std::optional<double> sweep_value(const run_stats& r, std::string_view name) {
    auto reported = [&](std::string_view n) -> std::optional<double> {
        if (const auto* v = find_reported(r.meta, n)) return v->value;
        return std::nullopt;
    };
    const bool measured = r.requests > 0 && r.meta.kind == run_kind::requests;
    // A run in which nothing completed has no rates: its zeros are no measurement.
    const bool rate = name == "rps" || name == "output_tps" || name == "total_tps";
    if (rate && run_failed_entirely(r)) return std::nullopt;
    if (name == "rps") return r.rps ? r.rps : reported(name);
    if (name == "output_tps") return r.output_tps ? r.output_tps : reported(name);
    if (name == "total_tps") return r.total_tps ? r.total_tps : reported(name);
    if (name == "duration") return r.duration ? r.duration : reported(name);
    if (name == "success_rate") {
        if (measured) return static_cast<double>(r.ok) / static_cast<double>(r.requests);
        const auto ok = reported("ok"), requests = run_request_count(r);
        if (ok && requests && *requests > 0) return *ok / *requests;
        return std::nullopt;
    }
    if (const auto [s, stat] = detail::measured_summary_stat(r, name); s != nullptr) {
        if (stat == "mean") return s->mean;
        if (stat == "std") return s->std;
        if (stat == "min") return s->min;
        if (stat == "max") return s->max;
        if (stat.starts_with('p'))
            for (const auto& p : s->percentiles)
                if (percentile_key(p.p) == stat) return p.value;
    }
    return reported(name);
}

} // namespace servestat
