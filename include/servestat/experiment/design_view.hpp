// "How these runs were read": the design as the user sees it first — a few lines of text (stats,
// the reports) and the `design` object of the JSON export, with the same content: configurations
// (factor, values, where each came from), the x axis and its levels, replicates, run length, what
// was ignored and why, files passed over, and what the user set. Lists stay short.
#pragma once

#include <algorithm>   // std::stable_sort, std::any_of
#include <cstddef>     // std::size_t
#include <limits>      // std::numeric_limits
#include <set>         // std::set
#include <span>        // std::span
#include <string>      // std::string
#include <utility>     // std::pair
#include <vector>      // std::vector

#include <fmt/format.h>      // fmt::format
#include <nlohmann/json.hpp> // nlohmann::json

#include "servestat/experiment/design.hpp"   // experiment_design, design_factor, value_ranks

namespace servestat {

// A file a folder read did not take as a run, and why.
struct passed_over_input {
    std::string path;
    std::string reason;
};

// One line of the section: a heading word ("configurations") and what follows it.
struct design_line {
    std::string heading;
    std::string text;
};

namespace detail {

inline constexpr std::size_t design_list_items = 4; // then "and N more"

inline std::string value_text(const nlohmann::json& v) {
    if (v.is_null()) return "(none)";
    if (v.is_string()) {
        const auto& s = v.get_ref<const std::string&>();
        return s == "inf" || s == "Infinity" ? std::string("∞") : s;
    }
    return v.dump();
}

// A factor's distinct values in the order configurations are listed in (design.hpp value_ranks):
// numbers by value, size words by size, other words as they first appear.
inline std::vector<nlohmann::json> distinct_json(const factor& f) {
    const auto rank = value_ranks(f);
    std::vector<std::pair<double, nlohmann::json>> seen;
    std::set<std::string> keys;
    for (std::size_t i = 0; i < f.values.size(); ++i)
        if (!f.values[i].is_null() && keys.insert(f.values[i].dump()).second) seen.emplace_back(rank[i], f.values[i]);
    std::stable_sort(seen.begin(), seen.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<nlohmann::json> out;
    for (auto& [r, v] : seen) out.push_back(std::move(v));
    return out;
}

// The values as text, and "(none)" last where some runs do not have the factor: a factor that
// tells runs apart by being missing in some says so ("2, (none)"), not a lone value.
inline std::vector<std::string> distinct_values(const factor& f) {
    std::vector<std::string> out;
    for (const auto& v : distinct_json(f)) out.push_back(value_text(v));
    if (std::any_of(f.values.begin(), f.values.end(), [](const nlohmann::json& v) { return v.is_null(); }))
        out.push_back(value_text(nullptr));
    return out;
}

inline std::string short_list(const std::vector<std::string>& items, std::size_t shown = design_list_items) {
    std::string out;
    for (std::size_t i = 0; i < items.size() && i < shown; ++i) out.append(i ? ", " : "").append(items[i]);
    if (items.size() > shown) out += fmt::format(" and {} more", items.size() - shown);
    return out;
}

inline std::string where_text(const design_factor& f) {
    switch (f.column.source) {
    case factor_source::file: return "from the file";
    case factor_source::run_metadata: return "from the file";
    case factor_source::path_tag: return "from " + f.column.where;
    case factor_source::path_word: return "from " + f.column.where;
    case factor_source::measured: return "measured";
    case factor_source::user: return "from " + f.column.where;
    }
    return {};
}

inline std::string factor_text(const design_factor& f) {
    return fmt::format("{} ({}; {})", f.column.name, short_list(distinct_values(f.column)), where_text(f));
}

// How a length factor relates to the load: one value per level in each configuration, one value per configuration, or neither.
inline std::string length_relation(const experiment_design& d, const design_factor& f) {
    bool per_configuration = true, per_level = true;
    for (const auto& c : d.configurations) {
        std::set<std::string> values;
        for (const std::size_t i : c.runs) values.insert(f.column.values[i].dump());
        per_configuration = per_configuration && values.size() == 1;
    }
    for (const auto& p : d.points) {
        std::set<std::string> values;
        for (const std::size_t i : p.runs) values.insert(f.column.values[i].dump());
        per_level = per_level && values.size() == 1;
    }
    if (per_configuration) return "one value per configuration";
    if (per_level && !d.load.empty()) return "follows the load within each configuration";
    return "differs between runs of one point";
}

// Which points were measured more than once, by configuration: "tpu/ · short at 1, 2, 4".
inline std::string replicated_points_text(const experiment_design& d) {
    std::vector<std::string> configs;
    std::vector<std::vector<std::string>> levels;
    constexpr std::size_t none = std::numeric_limits<std::size_t>::max();
    std::vector<std::size_t> of_config(d.configurations.size(), none);
    for (const auto& p : d.points) {
        if (p.runs.size() < 2) continue;
        if (of_config[p.configuration] == none) {
            of_config[p.configuration] = configs.size();
            configs.push_back(d.configurations[p.configuration].name);
            levels.emplace_back();
        }
        if (!p.level.is_null()) levels[of_config[p.configuration]].push_back(value_text(p.level));
    }
    std::vector<std::string> parts;
    for (std::size_t k = 0; k < configs.size(); ++k) {
        const std::string at = levels[k].empty() ? std::string() : fmt::format("{} {}", d.load, short_list(levels[k], 4));
        parts.push_back(configs[k].empty() ? at : at.empty() ? configs[k] : configs[k] + " at " + at);
    }
    return short_list(parts, 2);
}

} // namespace detail

// The section's lines, for the text of `stats` and the reports.
inline std::vector<design_line> design_lines(const experiment_design& d, std::span<const passed_over_input> passed_over = {}) {
    using detail::short_list;
    std::vector<design_line> out;
    std::size_t max_replicates = 1, min_replicated = 0; // the most runs of a point, the fewest of one measured again
    for (const auto& p : d.points) {
        max_replicates = std::max(max_replicates, p.runs.size());
        if (p.runs.size() > 1) min_replicated = min_replicated == 0 ? p.runs.size() : std::min(min_replicated, p.runs.size());
    }
    const design_factor* load = d.find(d.load);
    // Workload traces are what a run would replay, not runs: said so, and counted as workloads.
    const bool all_traces = d.traces == d.runs && d.runs > 0;
    std::string overview =
        all_traces
            ? fmt::format("{} workload trace{} (arrivals and sizes to replay: nothing was measured), {} workload{}", d.runs,
                          d.runs == 1 ? "" : "s", d.configurations.size(), d.configurations.size() == 1 ? "" : "s")
            : fmt::format("{} run{}{}, {} configuration{}", d.runs, d.runs == 1 ? "" : "s",
                          d.traces > 0 ? fmt::format(" ({} of them workload traces: nothing measured)", d.traces) : std::string(),
                          d.configurations.size(), d.configurations.size() == 1 ? "" : "s");
    if (load) overview += fmt::format(", {} level{} of {}", detail::distinct_values(load->column).size(),
                                      detail::distinct_values(load->column).size() == 1 ? "" : "s", d.load);
    if (d.replicated_points())
        overview += fmt::format("; {} point{} measured more than once (up to {} runs)", d.replicated_points(),
                                d.replicated_points() == 1 ? "" : "s", max_replicates);
    out.push_back({"read", overview});
    std::vector<std::string> configs;
    for (const auto& f : d.factors)
        if (!f.constant && f.reading.role == factor_role::config) configs.push_back(detail::factor_text(f));
    if (!configs.empty()) {
        std::vector<std::string> names;
        for (const auto& c : d.configurations) names.push_back(c.name.empty() ? std::string("(unnamed)") : c.name);
        // One factor names the configurations by its values already.
        out.push_back({"configurations", short_list(configs, 3) + (configs.size() == 1 ? "" : "; named " + short_list(names))});
    } else {
        const bool replicated = std::any_of(d.factors.begin(), d.factors.end(), [](const design_factor& f) {
            return !f.constant && f.reading.role == factor_role::replicate;
        });
        out.push_back({"configurations", d.runs < 2 ? std::string("one: a single run")
                                         : fmt::format("one: no setting differs between the runs{}",
                                                       load ? fmt::format(" but {}", d.load) + (replicated ? " and the replicate index" : "")
                                                            : replicated ? " but the replicate index" : "")});
    }
    if (load)
        out.push_back({d.load_is_setting ? "x axis" : "load",
                       fmt::format("{} {} ({}){}", d.load, short_list(detail::distinct_values(load->column), 8), detail::where_text(*load),
                                   d.load_is_setting || !d.load_as.empty() ? ": " + load->reading.reason : "")});
    else if (!all_traces)
        out.push_back({"load", "none varies: each configuration is one point"});
    std::vector<std::string> replicate_factors;
    for (const auto& f : d.factors)
        if (!f.constant && f.reading.role == factor_role::replicate)
            replicate_factors.push_back(fmt::format("{} ({})", f.column.name, f.reading.reason));
    const std::string index = replicate_factors.empty() ? std::string() : "; index " + short_list(replicate_factors, 2);
    // One unnamed configuration with no load axis: nothing names the point, and "()" would say nothing.
    const std::string which_points = detail::replicated_points_text(d);
    if (d.replicated_points())
        out.push_back({"replicates", fmt::format("{} point{} with {} runs{}{}", d.replicated_points(),
                                                 d.replicated_points() == 1 ? "" : "s",
                                                 min_replicated == max_replicates ? fmt::format("{}", max_replicates)
                                                                                  : fmt::format("{} to {}", min_replicated, max_replicates),
                                                 which_points.empty() ? "" : " (" + which_points + ")",
                                                 index.empty() ? ": runs alike in every setting and measured workload" : index)});
    else if (!d.points.empty() && !all_traces) // a trace is replayed, not measured: no point to repeat
        out.push_back({"replicates", "none: one run per point" + index});
    // A run's length, varying or not ("num_prompts 100 in every run"): its own line, never a setting.
    std::vector<std::string> lengths;
    for (const auto& f : d.factors)
        if (f.reading.role == factor_role::length && !f.column.values.empty() && !(f.constant && f.column.values.front().is_null()))
            lengths.push_back(f.constant ? fmt::format("{} {} in every run", f.column.name, detail::value_text(f.column.values.front()))
                                         : fmt::format("{} {} ({})", f.column.name, short_list(detail::distinct_values(f.column)),
                                                       detail::length_relation(d, f)));
    if (!lengths.empty()) out.push_back({"run length", short_list(lengths, 2) + " (how long each run was: never a configuration)"});
    std::vector<std::string> ignored;
    for (const auto& f : d.factors)
        if (!f.constant && (f.reading.role == factor_role::ignored || f.reading.role == factor_role::provenance)) {
            // A folder's words ignored while its timestamp counts ("folder4" beside "folder4_time"):
            // say which part of the folder is ignored, so the two lines do not seem to contradict.
            const auto* time = d.find(f.column.name + "_time");
            const bool time_used = time && !time->constant && time->reading.role != factor_role::ignored &&
                                   time->reading.role != factor_role::provenance;
            ignored.push_back(fmt::format("{} ({}{})", f.column.name, f.reading.reason,
                                          time_used ? fmt::format("; only its time counts, as {}", time->column.name) : std::string()));
        }
    if (!ignored.empty()) out.push_back({"ignored", short_list(ignored, 3)});
    std::vector<std::string> same;
    for (const auto& f : d.factors)
        if (f.constant && f.reading.role != factor_role::length && !f.column.values.empty() && !f.column.values.front().is_null() &&
            f.column.source != factor_source::run_metadata)
            same.push_back(f.column.name + " " + detail::value_text(f.column.values.front()));
    if (!same.empty()) out.push_back({"the same in every run", short_list(same, 5)});
    if (!passed_over.empty()) {
        std::vector<std::string> files;
        for (const auto& p : passed_over) files.push_back(fmt::format("{} ({})", p.path, p.reason));
        out.push_back({"passed over", fmt::format("{} file{}: {}", passed_over.size(), passed_over.size() == 1 ? "" : "s", short_list(files, 3))});
    }
    if (!d.failed.empty())
        out.push_back({"failed runs", fmt::format("{} run{} in which nothing completed: no rates or latencies to show", d.failed.size(),
                                                  d.failed.size() == 1 ? "" : "s")});
    if (!d.combined.empty()) {
        std::vector<std::string> named;
        for (const auto& c : d.combined) named.push_back(fmt::format("{} ({} parts)", c.label, c.parts.size()));
        out.push_back({"parts combined",
                       d.combined.size() == 1
                           ? fmt::format("{} is {} runs of one setting and level that ran at the same time (parallel clients' parts "
                                         "of one measurement), read as one", d.combined.front().label, d.combined.front().parts.size())
                           : fmt::format("{} runs are each the parts of one measurement that ran at the same time (parallel "
                                         "clients), read as one: {}", d.combined.size(), short_list(named, 3))});
    }
    for (const auto& note : d.notes) out.push_back({"note", note});
    out.push_back({d.user_settings.empty() ? "to correct" : "set by you",
                   d.user_settings.empty() ? std::string("--factor NAME=REGEX pulls a factor out of the paths; --role NAME=load|config|replicate|length|provenance|ignore sets a role")
                                           : short_list(d.user_settings, 6)});
    return out;
}

// The section as plain text: a heading, then one indented line each.
inline std::string design_text(const experiment_design& d, std::span<const passed_over_input> passed_over = {}) {
    std::string out = "How these runs were read\n";
    for (const auto& l : design_lines(d, passed_over)) out += fmt::format("  {}: {}\n", l.heading, l.text);
    return out;
}

// The `design` object of the JSON export: every varying factor with its source, role and reason,
// the constant ones, the configurations, the x axis, the replicated points and the files passed over.
inline nlohmann::json design_json(const experiment_design& d, std::span<const passed_over_input> passed_over = {}) {
    using json = nlohmann::json;
    json factors = json::array(), constant = json::object();
    for (const auto& f : d.factors) {
        if (f.constant) {
            if (!f.column.values.empty()) constant[f.column.name] = f.column.values.front();
            continue;
        }
        json values = detail::distinct_json(f.column);
        json one = {{"name", f.column.name}, {"source", to_string(f.column.source)}, {"where", f.column.where},
                    {"role", to_string(f.reading.role)}, {"reason", f.reading.reason}, {"user_set", f.reading.user_set},
                    {"values", std::move(values)}, {"per_run", f.column.values}};
        if (!f.same_as.empty()) one["same_as"] = f.same_as;
        factors.push_back(std::move(one));
    }
    json configurations = json::array();
    for (const auto& c : d.configurations) configurations.push_back({{"name", c.name}, {"runs", c.runs}});
    json points = json::array();
    for (const auto& p : d.points) points.push_back({{"configuration", p.configuration}, {"level", p.level}, {"runs", p.runs}});
    json files = json::array();
    for (const auto& p : passed_over) files.push_back({{"path", p.path}, {"reason", p.reason}});
    json combined = json::array();
    for (const auto& c : d.combined) combined.push_back({{"run", c.run}, {"parts", c.parts}});
    json load = nullptr;
    if (const auto* f = d.find(d.load)) {
        load = {{"factor", d.load}, {"is_load", !d.load_is_setting}, {"levels", detail::distinct_json(f->column)}};
        if (!d.load_as.empty()) load["as"] = d.load_as;
    }
    return {{"runs", d.runs}, {"traces", d.traces}, {"factors", std::move(factors)}, {"constant", std::move(constant)}, {"load", std::move(load)},
            {"configurations", std::move(configurations)}, {"configuration_of", d.configuration_of},
            {"points", std::move(points)}, {"lengths", d.lengths}, {"failed", d.failed}, {"combined", std::move(combined)}, {"notes", d.notes}, {"user", d.user_settings},
            {"passed_over", {{"count", passed_over.size()}, {"files", std::move(files)}}}};
}

} // namespace servestat
