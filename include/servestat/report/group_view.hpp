// The cross-run view grouped by model or configuration (seed 001): runs grouped by a metadata key or
// by a pattern in their file names, each run (or each time bin of it) one member measurement; per
// group the members' p95/p99 latency and tokens/s, violins, the trade-off scatter, a ranking and
// findings on regimes and tails.
#pragma once

#include <algorithm>  // std::sort, std::stable_sort, std::min, std::max
#include <cmath>      // std::floor, std::isfinite
#include <cstddef>    // std::size_t
#include <filesystem> // std::filesystem::path
#include <map>        // std::map
#include <optional>   // std::optional
#include <regex>      // std::regex, std::regex_search
#include <span>       // std::span
#include <string>     // std::string
#include <utility>    // std::pair, std::move
#include <vector>     // std::vector

#include <fmt/format.h> // fmt::format

#include "servestat/core/errors.hpp"        // usage_error
#include "servestat/core/natural_order.hpp" // natural_less
#include "servestat/core/run.hpp"           // run, run_metadata
#include "servestat/core/user_regex.hpp"    // compile_user_regex
#include "servestat/plot/tradeoff.hpp"      // tradeoff_chart, labelled_points
#include "servestat/plot/violin.hpp"        // violin_chart, violin_series
#include "servestat/report/format.hpp"      // format_seconds, format_ratio
#include "servestat/report/plot_file.hpp"   // plot_file
#include "servestat/report/stats_json.hpp"  // json
#include "servestat/stats/compensated_sum.hpp" // compensated_sum
#include "servestat/stats/metrics.hpp"      // metric_value
#include "servestat/stats/modality.hpp"     // find_two_regimes, find_heavy_tail
#include "servestat/stats/quantile.hpp"     // percentile_sorted, quantile_method

namespace servestat::report {

// What --group-by names: a run metadata field or parameter, or NAME=REGEX over file names.
struct group_key {
    std::string name;    // what the groups are called in the report: "model", or NAME
    std::string pattern; // REGEX of NAME=REGEX as given; empty for a metadata key
};

inline constexpr const char* no_group = "(none)";

// "model" is a metadata key; "size=_([0-9]+b)\.json$" a pattern. The first '=' separates them, so a
// pattern may itself contain '='.
inline group_key parse_group_key(const std::string& spec) {
    const auto eq = spec.find('=');
    group_key k;
    k.name = spec.substr(0, eq);
    if (eq != std::string::npos) k.pattern = spec.substr(eq + 1);
    if (k.name.empty()) throw usage_error("--group-by: name the groups, e.g. 'model' or 'model=_([0-9]+b)\\.json$'");
    if (eq != std::string::npos && k.pattern.empty())
        throw usage_error("--group-by " + spec + ": the regular expression after '=' is empty");
    return k;
}

// One member measurement: a whole run, or one time bin of it.
struct group_member {
    std::string label, source;
    std::optional<std::pair<double, double>> window; // [start, end) s after the run's first send
    std::size_t requests = 0;                         // successful requests with an e2e
    double p95 = 0, p99 = 0;                          // of e2e
    std::optional<double> tokens_per_s_median;        // median of output_tokens / e2e per request
    std::optional<double> output_tps;                 // output tokens / span, with a shared clock
};

struct run_group {
    std::string name;
    std::vector<group_member> members;
};

struct group_options {
    std::optional<double> window; // seconds; one member per run without it
    quantile_method method = quantile_method::linear;
    // A bin's p95 rests on its requests: with fewer than 5 it would be little more than its maximum.
    std::size_t min_bin_requests = 5;
};

struct grouping {
    group_key key;
    std::optional<double> window;
    std::size_t runs = 0; // runs that gave members
    std::vector<run_group> groups; // natural order of names, "(none)" last
    std::vector<std::string> notes;
};

// The measures each member has, in the order the JSON and the charts list them.
enum class member_measure { p95, p99, tokens_per_s_median, output_tps };

inline const char* to_string(member_measure m) noexcept {
    switch (m) {
    case member_measure::p95: return "p95";
    case member_measure::p99: return "p99";
    case member_measure::tokens_per_s_median: return "tokens_per_s_median";
    case member_measure::output_tps: return "output_tps";
    }
    return "?";
}

inline std::optional<double> measure_of(const group_member& m, member_measure which) {
    switch (which) {
    case member_measure::p95: return m.p95;
    case member_measure::p99: return m.p99;
    case member_measure::tokens_per_s_median: return m.tokens_per_s_median;
    case member_measure::output_tps: return m.output_tps;
    }
    return std::nullopt;
}

inline std::vector<double> measure_values(const run_group& g, member_measure which) {
    std::vector<double> out;
    for (const auto& m : g.members)
        if (const auto v = measure_of(m, which)) out.push_back(*v);
    return out;
}

namespace detail {

// Natural order ("7b" < "13b" < "70b", "c2" < "c16"), with the group of runs without a value last.
inline bool group_order(const std::string& a, const std::string& b) {
    if ((a == no_group) != (b == no_group)) return b == no_group;
    return natural_less(a, b);
}

inline std::string file_name_of(const std::string& path) { return std::filesystem::path(path).filename().string(); }

// The key's value for a run: a metadata field, else a parameter (strings as they are, numbers and
// booleans as JSON writes them: 16, 0.5, true); nullopt when the run has none or it is empty.
inline std::optional<std::string> metadata_value(const run_metadata& meta, const std::string& key) {
    const auto present = [](const std::string& s) { return s.empty() ? std::nullopt : std::optional<std::string>(s); };
    if (key == "model") return present(meta.model);
    if (key == "label") return present(meta.label);
    if (key == "workload") return present(meta.workload);
    if (key == "tool") return present(meta.tool);
    if (!meta.params.is_object() || !meta.params.contains(key)) return std::nullopt;
    const auto& v = meta.params.at(key);
    if (v.is_null()) return std::nullopt;
    return present(v.is_string() ? v.get<std::string>() : v.dump());
}

inline std::optional<std::string> pattern_value(const std::regex& re, const std::string& path) {
    const std::string name = file_name_of(path);
    std::smatch m;
    if (!std::regex_search(name, m, re)) return std::nullopt;
    const std::string v = m.size() > 1 ? (m[1].matched ? m[1].str() : std::string()) : m[0].str();
    return v.empty() ? std::nullopt : std::optional<std::string>(v);
}

// The members' measurements over `rows` of one run, or nullopt when no successful request there has an e2e.
inline std::optional<group_member> measure_rows(const run& r, std::span<const std::size_t> rows, quantile_method method) {
    const request_table& t = r.requests;
    std::vector<double> e2e, tps;
    double output = 0, first = 0, last = 0;
    bool any_output = false, any_span = false;
    for (std::size_t i : rows) {
        if (is_present(t.t_sent()[i]) && is_present(t.t_end()[i])) {
            first = any_span ? std::min(first, t.t_sent()[i]) : t.t_sent()[i];
            last = any_span ? std::max(last, t.t_end()[i]) : t.t_end()[i];
            any_span = true;
        }
        if (t.status()[i] != request_status::ok) continue;
        const auto latency = metric_value(t, metric::e2e, i);
        if (!latency) continue;
        e2e.push_back(*latency);
        const auto tokens = t.output_tokens()[i];
        if (!is_present(tokens)) continue;
        output += tokens;
        any_output = true;
        if (*latency > 0) tps.push_back(static_cast<double>(tokens) / *latency);
    }
    if (e2e.empty()) return std::nullopt;
    std::sort(e2e.begin(), e2e.end());
    std::sort(tps.begin(), tps.end());
    group_member m;
    m.label = r.meta.label;
    m.source = r.meta.source.path;
    m.requests = e2e.size();
    m.p95 = percentile_sorted(e2e, 95, method);
    m.p99 = percentile_sorted(e2e, 99, method);
    if (!tps.empty()) m.tokens_per_s_median = percentile_sorted(tps, 50, method);
    if (r.meta.shared_clock && any_output && any_span && last > first) m.output_tps = output / (last - first);
    return m;
}

inline std::string window_text(double start, double end) {
    return fmt::format("[{}, {})", format_seconds(start), format_seconds(end));
}

// One member per time bin of `window` seconds by send time, counted from the run's first send.
inline std::vector<group_member> binned_members(const run& r, double window, const group_options& o,
                                                std::vector<std::string>& notes) {
    const request_table& t = r.requests;
    double origin = 0;
    bool any = false;
    std::size_t unsent = 0;
    for (std::size_t i = 0; i < t.size(); ++i) {
        if (!is_present(t.t_sent()[i])) {
            ++unsent;
            continue;
        }
        origin = any ? std::min(origin, t.t_sent()[i]) : t.t_sent()[i];
        any = true;
    }
    std::map<std::size_t, std::vector<std::size_t>> bins;
    for (std::size_t i = 0; i < t.size(); ++i)
        if (is_present(t.t_sent()[i]))
            bins[static_cast<std::size_t>(std::floor((t.t_sent()[i] - origin) / window))].push_back(i);
    std::vector<group_member> out;
    std::size_t sparse = 0;
    for (const auto& [bin, rows] : bins) {
        auto m = measure_rows(r, rows, o.method);
        if (!m || m->requests < o.min_bin_requests) {
            ++sparse;
            continue;
        }
        const double start = static_cast<double>(bin) * window;
        m->window = std::pair{start, start + window};
        m->label = r.meta.label + " " + window_text(start, start + window);
        out.push_back(std::move(*m));
    }
    if (sparse > 0)
        notes.push_back(fmt::format("{}: {} of {} time bins had fewer than {} successful requests and are left out.",
                                    r.meta.label, sparse, bins.size(), o.min_bin_requests));
    if (unsent > 0)
        notes.push_back(fmt::format("{}: {} requests without a send time are in no time bin.", r.meta.label, unsent));
    return out;
}

inline std::string label_list(const std::vector<std::string>& labels) {
    std::string out;
    for (std::size_t i = 0; i < labels.size() && i < 5; ++i) out += (i ? ", " : "") + labels[i];
    if (labels.size() > 5) out += fmt::format(" and {} more", labels.size() - 5);
    return out;
}

} // namespace detail

// Groups runs by `key` and measures their members. Throws usage_error for an invalid regular
// expression, a pattern that matches no file name, or a metadata key no run has.
inline grouping group_runs(std::span<const run> runs, const group_key& key, const group_options& o = {}) {
    if (o.window && !(*o.window > 0))
        throw usage_error(fmt::format("--window must be a positive number of seconds, not {}", *o.window));
    std::optional<std::regex> re;
    if (!key.pattern.empty()) re = compile_user_regex("--group-by " + key.name, key.pattern);
    grouping out;
    out.key = key;
    out.window = o.window;
    std::map<std::string, std::vector<group_member>> members;
    std::vector<std::string> without_key, no_clock;
    bool any_key = false;
    for (const auto& r : runs) {
        const auto value = re ? detail::pattern_value(*re, r.meta.source.path) : detail::metadata_value(r.meta, key.name);
        any_key = any_key || value.has_value();
        if (r.meta.kind != run_kind::requests || r.requests.empty()) {
            out.notes.push_back(fmt::format("{} holds no per-request measurements ({}) and is left out.", r.meta.label,
                                            to_string(r.meta.kind)));
            continue;
        }
        std::vector<group_member> found;
        if (o.window && r.meta.shared_clock) {
            found = detail::binned_members(r, *o.window, o, out.notes);
        } else {
            if (o.window) no_clock.push_back(r.meta.label);
            std::vector<std::size_t> rows(r.requests.size());
            for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = i;
            if (auto m = detail::measure_rows(r, rows, o.method)) found.push_back(std::move(*m));
        }
        if (found.empty()) {
            out.notes.push_back(fmt::format("{} has no successful request with a latency and is left out.", r.meta.label));
            continue;
        }
        if (!value) without_key.push_back(r.meta.label);
        ++out.runs;
        auto& list = members[value.value_or(no_group)];
        for (auto& m : found) list.push_back(std::move(m));
    }
    if (!runs.empty() && !any_key) {
        if (re)
            throw usage_error(fmt::format("--group-by {}={}: the pattern matches no file name (e.g. '{}'); the first "
                                          "capture group, or the whole match, names each group",
                                          key.name, key.pattern, detail::file_name_of(runs.front().meta.source.path)));
        throw usage_error(fmt::format("--group-by {}: no run has this key (keys: model, label, workload, tool, or a "
                                      "run parameter{})",
                                      key.name, runs.front().meta.params.empty() ? std::string() : " such as '" +
                                          runs.front().meta.params.begin().key() + "'"));
    }
    if (!without_key.empty())
        out.notes.push_back(fmt::format("{} run(s) have no {} {}: grouped as {} ({}).", without_key.size(), key.name,
                                        re ? "in their file name" : "value", no_group, detail::label_list(without_key)));
    if (!no_clock.empty())
        out.notes.push_back(fmt::format("{} run(s) have no shared clock, so --window cannot cut them into time bins: "
                                        "each is one member ({}).",
                                        no_clock.size(), detail::label_list(no_clock)));
    for (auto& [name, list] : members) out.groups.push_back({name, std::move(list)});
    std::stable_sort(out.groups.begin(), out.groups.end(),
                     [](const run_group& a, const run_group& b) { return detail::group_order(a.name, b.name); });
    return out;
}

// ---- JSON (report.json's "groups") ----------------------------------------------------------------

namespace detail {

inline json or_null_value(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

inline json values_summary(std::vector<double> v, quantile_method method) {
    if (v.empty())
        return {{"n", 0}, {"min", nullptr}, {"p25", nullptr}, {"median", nullptr},
                {"p75", nullptr}, {"max", nullptr}, {"mean", nullptr}};
    std::sort(v.begin(), v.end());
    compensated_sum sum;
    for (double x : v) sum.add(x);
    const double mean = sum.value() / static_cast<double>(v.size());
    return {{"n", v.size()},
            {"min", v.front()},
            {"p25", percentile_sorted(v, 25, method)},
            {"median", percentile_sorted(v, 50, method)},
            {"p75", percentile_sorted(v, 75, method)},
            {"max", v.back()},
            {"mean", mean}};
}

inline constexpr member_measure shape_measures[] = {member_measure::p95, member_measure::p99,
                                                    member_measure::tokens_per_s_median};
inline constexpr member_measure all_measures[] = {member_measure::p95, member_measure::p99,
                                                  member_measure::tokens_per_s_median, member_measure::output_tps};

inline json cluster_json(const value_cluster& c) {
    return {{"n", c.n}, {"min", c.min}, {"max", c.max}, {"mean", c.mean}};
}

} // namespace detail

inline json groups_to_json(const grouping& g, quantile_method method = quantile_method::linear) {
    json out = json::array();
    for (const auto& group : g.groups) {
        json members = json::array();
        for (const auto& m : group.members) {
            json j{{"label", m.label}, {"source", m.source}};
            if (m.window) j["window"] = {{"start", m.window->first}, {"end", m.window->second}};
            j["requests"] = m.requests;
            j["p95"] = m.p95;
            j["p99"] = m.p99;
            j["tokens_per_s_median"] = detail::or_null_value(m.tokens_per_s_median);
            j["output_tps"] = detail::or_null_value(m.output_tps);
            members.push_back(std::move(j));
        }
        json summaries = json::object();
        for (auto which : detail::all_measures)
            summaries[to_string(which)] = detail::values_summary(measure_values(group, which), method);
        json regimes = json::array(), tails = json::array();
        for (auto which : detail::shape_measures) {
            const auto values = measure_values(group, which);
            if (const auto r = find_two_regimes(values)) {
                regimes.push_back({{"measure", to_string(which)},
                                   {"split", (r->lower.max + r->upper.min) / 2},
                                   {"ashman_d", std::isfinite(r->ashman_d) ? json(r->ashman_d) : json(nullptr)},
                                   {"lower", detail::cluster_json(r->lower)},
                                   {"upper", detail::cluster_json(r->upper)}});
            } else if (const auto t = find_heavy_tail(values)) {
                tails.push_back({{"measure", to_string(which)},
                                 {"side", t->upper ? "upper" : "lower"},
                                 {"extreme", t->extreme},
                                 {"median", t->median},
                                 {"ratio", t->ratio}});
            }
        }
        out.push_back({{"key", g.key.name},
                       {"name", group.name},
                       {"members", std::move(members)},
                       {"summaries", std::move(summaries)},
                       {"regimes", std::move(regimes)},
                       {"tails", std::move(tails)}});
    }
    return out;
}

// ---- presentation: findings, ranking, plots ---------------------------------------------------------

namespace detail {

inline std::string format_tps(double v) { return fmt::format("{:.1f} tok/s", v); }

inline std::string format_measure(member_measure which, double v) {
    return which == member_measure::p95 || which == member_measure::p99 ? format_seconds(v) : format_tps(v);
}

inline const char* measure_title(member_measure which) {
    switch (which) {
    case member_measure::p95: return "p95 e2e";
    case member_measure::p99: return "p99 e2e";
    case member_measure::tokens_per_s_median: return "median tokens/s";
    case member_measure::output_tps: return "output tok/s";
    }
    return "?";
}

inline std::optional<double> median_of(std::vector<double> v) {
    if (v.empty()) return std::nullopt;
    std::sort(v.begin(), v.end());
    return percentile_sorted(v, 50);
}

// The member whose value is `v` (the tail finding names it).
inline std::string member_with(const run_group& g, member_measure which, double v) {
    for (const auto& m : g.members)
        if (const auto x = measure_of(m, which); x && *x == v) return m.label;
    return "";
}

inline std::string range_text(member_measure which, double lo, double hi) {
    return lo == hi ? format_measure(which, lo) : format_measure(which, lo) + "–" + format_measure(which, hi);
}

// Findings name a group with its key ("model 7b", "concurrency 16"): a bare "16:" reads as a count.
inline std::string group_title(const grouping& g, const run_group& group) { return g.key.name + " " + group.name; }

inline std::string regimes_text(const std::string& who, member_measure which, const two_regimes& r) {
    const std::string d = std::isfinite(r.ashman_d) ? fmt::format("{:.1f}", r.ashman_d) : "∞ (both constant)";
    return fmt::format("{}: {} has two regimes — {} members at {} and {} at {} (best two-cluster split, Ashman's D {}).",
                       who, measure_title(which), r.lower.n, range_text(which, r.lower.min, r.lower.max), r.upper.n,
                       range_text(which, r.upper.min, r.upper.max), d);
}

inline std::string tail_text(const std::string& who, const run_group& g, member_measure which, const heavy_tail& t) {
    const std::string extreme = member_with(g, which, t.extreme) + " at " + format_measure(which, t.extreme);
    const std::string median = "the median of its " + std::to_string(measure_values(g, which).size()) + " members, " +
                               format_measure(which, t.median);
    return t.upper ? fmt::format("{}: {} has a heavy upper tail — {} is {} {}.", who, measure_title(which), extreme,
                                 format_ratio(t.ratio), median)
                   : fmt::format("{}: {} has a heavy lower tail — {}; {}, is {} that.", who, measure_title(which),
                                 extreme, median, format_ratio(t.ratio));
}

// A finding about one group's shape, with what ranks it: regimes before tails (two regimes say more
// than one odd member), then the larger separation (Ashman's D) or ratio first.
struct shape_finding {
    std::string text;
    bool regimes = false;
    double strength = 0;
};

// Regimes or a tail per measure. When p95 and p99 have a tail on the same side in the same member,
// one sentence says both: the second would repeat the first with a slightly different number.
inline std::vector<shape_finding> shape_findings(const grouping& grouped, const run_group& g) {
    const std::string who = group_title(grouped, g);
    std::vector<shape_finding> out;
    std::optional<heavy_tail> p95_tail;
    for (auto which : shape_measures) {
        const auto values = measure_values(g, which);
        if (const auto r = find_two_regimes(values)) {
            out.push_back({regimes_text(who, which, *r), true, r->ashman_d});
            continue;
        }
        const auto t = find_heavy_tail(values);
        if (!t) continue;
        if (which == member_measure::p95) p95_tail = t;
        const bool same_as_p95 = which == member_measure::p99 && p95_tail && p95_tail->upper == t->upper &&
                                 member_with(g, member_measure::p95, p95_tail->extreme) ==
                                     member_with(g, member_measure::p99, t->extreme);
        if (!same_as_p95) {
            out.push_back({tail_text(who, g, which, *t), false, t->ratio});
            continue;
        }
        const std::string member = member_with(g, member_measure::p95, p95_tail->extreme);
        const std::string at = format_seconds(p95_tail->extreme) + " and " + format_seconds(t->extreme);
        const std::string medians = fmt::format("the medians of its {} members, {} and {}", values.size(),
                                                format_seconds(p95_tail->median), format_seconds(t->median));
        const std::string ratios = format_ratio(p95_tail->ratio) + " and " + format_ratio(t->ratio);
        out.back() = {t->upper ? fmt::format("{}: p95 and p99 e2e have a heavy upper tail — {} at {} is {} {}.", who,
                                             member, at, ratios, medians)
                               : fmt::format("{}: p95 and p99 e2e have a heavy lower tail — {} at {}; {}, are {} that.",
                                             who, member, at, medians, ratios),
                      false, std::max(p95_tail->ratio, t->ratio)};
    }
    return out;
}

// Across groups: the best and worst median of a measure, and how far apart they are.
inline std::optional<std::string> extremes_finding(const grouping& g, member_measure which, bool lower_is_better) {
    const run_group *best = nullptr, *worst = nullptr;
    double best_v = 0, worst_v = 0;
    for (const auto& group : g.groups) {
        const auto m = median_of(measure_values(group, which));
        if (!m) continue;
        const bool better = lower_is_better ? *m < best_v : *m > best_v;
        const bool poorer = lower_is_better ? *m > worst_v : *m < worst_v;
        if (best == nullptr || better) {
            best = &group;
            best_v = *m;
        }
        if (worst == nullptr || poorer) {
            worst = &group;
            worst_v = *m;
        }
    }
    if (best == nullptr || best == worst) return std::nullopt;
    const double lo = std::min(best_v, worst_v), hi = std::max(best_v, worst_v);
    const std::string ratio = lo > 0 ? ", " + format_ratio(hi / lo) + " apart" : std::string();
    return fmt::format("Members' {}, median per group: {} {} ({}), {} {} ({}){}.", measure_title(which),
                       lower_is_better ? "lowest" : "highest", group_title(g, *best), format_measure(which, best_v),
                       lower_is_better ? "highest" : "lowest", group_title(g, *worst), format_measure(which, worst_v), ratio);
}

inline std::string describe(const grouping& g) {
    std::size_t members = 0;
    for (const auto& group : g.groups) members += group.members.size();
    const std::string by = g.key.pattern.empty()
                               ? fmt::format("the runs' {}", g.key.name)
                               : fmt::format("the first capture group of '{}' in each file name", g.key.pattern);
    const std::string each = g.window ? fmt::format("each run cut into {} windows by send time, each window one member",
                                                    format_seconds(*g.window))
                                      : std::string("each run one member");
    return fmt::format("{} runs in {} groups by {}; {} ({} members).", g.runs, g.groups.size(), by, each, members);
}

inline json ranking_rows(const grouping& g) {
    struct row {
        const run_group* group;
        std::optional<double> p95, p99, tps, out_tps;
    };
    std::vector<row> rows;
    for (const auto& group : g.groups)
        rows.push_back({&group, median_of(measure_values(group, member_measure::p95)),
                        median_of(measure_values(group, member_measure::p99)),
                        median_of(measure_values(group, member_measure::tokens_per_s_median)),
                        median_of(measure_values(group, member_measure::output_tps))});
    // Lower median p95 ranks first; tokens/s breaks ties.
    std::stable_sort(rows.begin(), rows.end(), [](const row& a, const row& b) {
        if (a.p95 != b.p95) return a.p95.value_or(0) < b.p95.value_or(0);
        return a.tps.value_or(0) > b.tps.value_or(0);
    });
    json out = json::array();
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const auto& r = rows[i];
        const auto p95s = measure_values(*r.group, member_measure::p95);
        const auto tps = measure_values(*r.group, member_measure::tokens_per_s_median);
        const auto [p95_lo, p95_hi] = std::minmax_element(p95s.begin(), p95s.end());
        std::string tps_range = missing_value;
        if (!tps.empty()) {
            const auto [lo, hi] = std::minmax_element(tps.begin(), tps.end());
            tps_range = range_text(member_measure::tokens_per_s_median, *lo, *hi);
        }
        out.push_back({{"rank", std::to_string(i + 1)},
                       {"name", r.group->name},
                       {"members", std::to_string(r.group->members.size())},
                       {"p95", r.p95 ? format_seconds(*r.p95) : std::string(missing_value)},
                       {"p99", r.p99 ? format_seconds(*r.p99) : std::string(missing_value)},
                       {"tokens_per_s", r.tps ? format_tps(*r.tps) : std::string(missing_value)},
                       {"output_tps", r.out_tps ? format_tps(*r.out_tps) : std::string(missing_value)},
                       {"p95_spread", p95s.empty() ? std::string(missing_value)
                                                   : range_text(member_measure::p95, *p95_lo, *p95_hi)},
                       {"tokens_spread", tps_range}});
    }
    return out;
}

inline std::string chart_name(const std::string& name) { return plot::detail::shortened(name, 24); }

} // namespace detail

inline constexpr std::size_t max_group_findings = 12;

// The group section's view: description, ranking table, findings, notes, and the plot list
// (Markdown links each file, HTML inlines it).
inline json group_view(const grouping& g, const std::vector<plot_file>& plots) {
    json findings = json::array();
    // Sentences start with a capital even when they start with a key name ("Model 7b: ...").
    const auto add = [&](std::string text) {
        if (!text.empty() && text[0] >= 'a' && text[0] <= 'z') text[0] = static_cast<char>(text[0] - 'a' + 'A');
        findings.push_back({{"text", text}});
    };
    if (const auto f = detail::extremes_finding(g, member_measure::p95, true)) add(*f);
    if (const auto f = detail::extremes_finding(g, member_measure::tokens_per_s_median, false)) add(*f);
    std::vector<detail::shape_finding> shapes;
    for (const auto& group : g.groups)
        for (auto& f : detail::shape_findings(g, group)) shapes.push_back(std::move(f));
    std::stable_sort(shapes.begin(), shapes.end(), [](const auto& a, const auto& b) {
        return a.regimes != b.regimes ? a.regimes : a.strength > b.strength;
    });
    // At most a dozen findings in all (docs/report.md): the rest are in report.json's groups.
    std::size_t room = max_group_findings - findings.size();
    if (shapes.size() > room) --room; // for the line saying how many more there are
    for (std::size_t i = 0; i < shapes.size() && i < room; ++i) add(shapes[i].text);
    if (shapes.size() > room)
        add(fmt::format("{} more findings of this kind: report.json lists every group's regimes and tails.",
                        shapes.size() - room));
    json notes = json::array();
    for (const auto& n : g.notes) notes.push_back({{"text", n}});
    json plot_list = json::array();
    for (const auto& p : plots) plot_list.push_back({{"title", p.title}, {"file", "plots/" + p.name}, {"svg", p.svg}});
    return {{"key", g.key.name},
            {"description", detail::describe(g)},
            {"rows", detail::ranking_rows(g)},
            {"has_findings", !findings.empty()},
            {"findings", findings},
            {"has_notes", !notes.empty()},
            {"notes", notes},
            {"plots", plot_list}};
}

// Violins of p95, p99 and median tokens/s per member (groups in natural order, one colour each),
// then the trade-off of median tokens/s against p95, one dot per member.
inline std::vector<plot_file> group_plots(const grouping& g) {
    const std::string by = detail::chart_name(g.key.name);
    const std::string members = g.window ? fmt::format("{} (one member per {} window)", by, format_seconds(*g.window))
                                         : fmt::format("{} (one member per run)", by);
    const auto violins = [&](member_measure which) {
        std::vector<plot::violin_series> series;
        for (const auto& group : g.groups) {
            plot::violin_series s{group.name, {}, {}};
            for (const auto& m : group.members)
                if (const auto v = measure_of(m, which)) {
                    s.values.push_back(*v);
                    s.labels.push_back(m.label);
                }
            series.push_back(std::move(s));
        }
        return series;
    };
    std::vector<plot_file> out;
    const auto latency = [&](member_measure which, const char* p) {
        const std::string title = fmt::format("{} end-to-end latency per member, by {}", p, by);
        out.push_back({fmt::format("groups-{}-violin.svg", p), title,
                       plot::violin_chart(violins(which), {title, members, fmt::format("{} e2e latency (s)", p)},
                                          {.value_unit = "s"})});
    };
    latency(member_measure::p95, "p95");
    latency(member_measure::p99, "p99");
    const std::string tps_title = fmt::format("Median output tokens/s per member, by {}", by);
    out.push_back({"groups-tokens-violin.svg", tps_title,
                   plot::violin_chart(violins(member_measure::tokens_per_s_median),
                                      {tps_title, members, "median of output tokens / e2e (tok/s)"},
                                      {.value_unit = "tok/s"})});
    std::vector<plot::labelled_points> points;
    for (const auto& group : g.groups) {
        plot::labelled_points s{group.name, {}, {}, {}};
        for (const auto& m : group.members)
            if (m.tokens_per_s_median) {
                s.x.push_back(*m.tokens_per_s_median);
                s.y.push_back(m.p95);
                s.labels.push_back(m.label);
            }
        points.push_back(std::move(s));
    }
    const std::string trade_title = fmt::format("Trade-off: median tokens/s vs p95 latency, by {}", by);
    out.push_back({"groups-tradeoff.svg", trade_title,
                   plot::tradeoff_chart(points,
                                        {trade_title, "median of output tokens / e2e per member (tok/s)",
                                         "p95 e2e latency (s)"},
                                        {.x_unit = "tok/s", .y_unit = "s"})});
    return out;
}

} // namespace servestat::report
