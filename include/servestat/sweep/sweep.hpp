// Sweeps: runs that differ in one load parameter (concurrency, request rate, scale, ...) and agree
// on everything else, ordered by that parameter; and two-parameter grids.
#pragma once

#include <algorithm>   // std::sort, std::none_of
#include <array>       // std::array
#include <cstddef>     // std::size_t
#include <map>         // std::map
#include <optional>    // std::optional
#include <set>         // std::set
#include <span>        // std::span
#include <string>      // std::string
#include <string_view> // std::string_view
#include <utility>     // std::pair
#include <vector>      // std::vector

#include <nlohmann/json.hpp> // nlohmann::json

#include "servestat/stats/run_stats.hpp" // run_stats, find_summary, find_percentile

namespace servestat {

struct sweep_point {
    double load;     // the swept parameter's value
    std::size_t run; // index into the runs the sweep was found in
};

struct sweep {
    std::string param;               // what was swept, e.g. "concurrency"
    std::string group;               // the other parameters that set this sweep apart, e.g. "max_num_seqs=16"
    std::vector<sweep_point> points; // ascending load
};

struct sweep_options {
    std::string by;             // the parameter to sweep; empty = choose automatically
    std::size_t min_points = 3; // fewer load levels make no curve
};

// Load parameters in the order an automatic choice prefers them: what a load test turns up.
inline constexpr std::array<std::string_view, 6> load_params{
    "concurrency", "max_concurrency", "request_rate", "scale", "max_num_seqs", "max_num_batched_tokens"};

namespace detail {

inline std::optional<double> numeric_param(const run_metadata& meta, const std::string& name) {
    const auto it = meta.params.find(name);
    if (it == meta.params.end() || !it->is_number()) return std::nullopt;
    return it->get<double>();
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

inline std::string choose_sweep_param(std::span<const run_stats> runs, const sweep_options& o) {
    if (!o.by.empty()) return o.by;
    const auto varying = varying_params(runs);
    for (const auto p : load_params)
        if (varying.contains(std::string(p))) return std::string(p);
    return varying.size() == 1 ? *varying.begin() : std::string();
}

// What must be equal for two runs to lie on one curve: the source format, workload, model and
// every parameter except the swept one.
inline std::string curve_key(const run_stats& r, const std::string& param) {
    nlohmann::json others = r.meta.params;
    others.erase(param);
    return r.meta.source.format + "\n" + r.meta.workload + "\n" + r.meta.model + "\n" + others.dump();
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

inline std::string group_name(const run_stats& r, const std::string& param, const std::set<std::string>& varying,
                              std::span<const run_stats> runs) {
    std::string out;
    for (const auto& [name, value] : distinguishing_metadata(r, runs))
        out.append(out.empty() ? "" : ", ").append(name).append("=").append(value);
    for (const auto& name : varying) {
        if (name == param || !r.meta.params.contains(name)) continue;
        const auto& v = r.meta.params[name];
        out.append(out.empty() ? "" : ", ").append(name).append("=").append(v.is_string() ? v.get<std::string>() : v.dump());
    }
    return out;
}

} // namespace detail

// The sweeps among `runs`: groups of at least `min_points` runs that agree on all but the swept
// parameter, each ordered by it. A load level measured twice keeps its first run.
inline std::vector<sweep> find_sweeps(std::span<const run_stats> runs, const sweep_options& o = {}) {
    const std::string param = detail::choose_sweep_param(runs, o);
    if (param.empty()) return {};
    const auto varying = detail::varying_params(runs);
    std::map<std::string, sweep> by_key;
    std::vector<std::string> order; // first appearance, so output order follows input order
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const auto load = detail::numeric_param(runs[i].meta, param);
        if (!load) continue;
        const std::string key = detail::curve_key(runs[i], param);
        auto [it, inserted] = by_key.try_emplace(key, sweep{param, detail::group_name(runs[i], param, varying, runs), {}});
        if (inserted) order.push_back(key);
        auto& points = it->second.points;
        if (std::none_of(points.begin(), points.end(), [&](const sweep_point& p) { return p.load == *load; }))
            points.push_back({*load, i});
    }
    std::vector<sweep> out;
    for (const auto& key : order) {
        sweep s = std::move(by_key[key]);
        if (s.points.size() < o.min_points) continue;
        std::sort(s.points.begin(), s.points.end(), [](const auto& a, const auto& b) { return a.load < b.load; });
        out.push_back(std::move(s));
    }
    return out;
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
    if (name == "rps") return r.rps ? r.rps : reported(name);
    if (name == "output_tps") return r.output_tps ? r.output_tps : reported(name);
    if (name == "total_tps") return r.total_tps ? r.total_tps : reported(name);
    if (name == "duration") return r.duration ? r.duration : reported(name);
    if (name == "success_rate") {
        if (measured) return static_cast<double>(r.ok) / static_cast<double>(r.requests);
        const auto ok = reported("ok"), requests = reported("requests");
        if (ok && requests && *requests > 0) return *ok / *requests;
        return std::nullopt;
    }
    // [subset.]metric.stat, where stat may hold a dot itself ("p99.9")
    std::string subset = "all";
    std::string_view rest = name;
    for (const std::string_view s : {"short.", "medium.", "long."})
        if (rest.starts_with(s)) {
            subset = std::string(s.substr(0, s.size() - 1));
            rest.remove_prefix(s.size());
        }
    const auto dot = rest.find('.');
    if (dot == std::string_view::npos) return reported(name);
    const std::string_view metric_name = rest.substr(0, dot), stat = rest.substr(dot + 1);
    if (measured)
        for (metric m : all_metrics)
            if (to_string(m) == metric_name)
                if (const summary* s = find_summary(r, subset, m); s && s->n > 0) {
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
