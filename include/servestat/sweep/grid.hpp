// Grids: runs that vary in exactly two parameters (the notebook's Experiment 4, concurrency ×
// max_num_seqs; Experiment 5, max_num_batched_tokens × max_num_seqs), read as heat tables, and the
// "sweet spot" the notebook picks by eye: the highest throughput whose tail meets the user's limits.
#pragma once

#include <algorithm>    // std::sort, std::find
#include <charconv>     // std::from_chars
#include <cmath>        // std::isfinite
#include <cstddef>      // std::size_t
#include <limits>       // std::numeric_limits
#include <map>          // std::map
#include <optional>     // std::optional
#include <set>          // std::set
#include <span>         // std::span
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <system_error> // std::errc
#include <utility>      // std::move
#include <vector>       // std::vector

#include <fmt/format.h> // fmt::format
#include <nlohmann/json.hpp> // nlohmann::json

#include "servestat/core/errors.hpp"     // usage_error
#include "servestat/stats/metrics.hpp"   // all_metrics, to_string(metric)
#include "servestat/stats/run_stats.hpp" // run_stats
#include "servestat/sweep/sweep.hpp"     // sweep_options, load_params, sweep_value

namespace servestat {

struct grid {
    std::string row_param, column_param; // the column is the load parameter, e.g. concurrency
    std::string group;                   // what sets this grid apart from the others, e.g. "deployment=GPU1"
    std::vector<double> rows, columns;   // ascending
    std::vector<std::vector<std::optional<std::size_t>>> cells; // [row][column] → index into runs; empty = not measured
    std::vector<left_out_run> left_out; // a combination measured again: its cell shows the first run
};

struct grid_cell {
    std::size_t row, column;
    bool operator==(const grid_cell&) const = default;
};

// "short.e2e.p99<=2": a sweep_value name and its limit, an upper one unless `at_least`.
struct grid_constraint {
    std::string value; // a sweep_value name: "short.e2e.p99", "e2e.p99", "ttft.p99", "success_rate", ...
    double max = 0;    // the limit (a lower one when at_least)
    bool at_least = false;
};

struct sweet_spot {
    std::optional<grid_cell> best, runner_up;
    std::optional<std::string> binding; // the constraint that stopped a higher-throughput cell, as "short.e2e.p99<=2"
    std::optional<grid_cell> blocked;   // that higher-throughput cell
    std::vector<std::string> notes;     // values that were unknown, cells that could not be ranked
};

namespace detail {

// Parameters whose values are not numbers (a deployment name) cannot be an axis: they set grids apart.
inline std::string grid_family_key(const run_stats& r) {
    nlohmann::json others = nlohmann::json::object();
    for (const auto& [name, value] : r.meta.params.items())
        if (!numeric_param(r.meta, name)) others[name] = value; // "inf" is a level, not a name
    return r.meta.source.format + "\n" + r.meta.workload + "\n" + r.meta.model + "\n" + others.dump();
}

// Numeric parameters that differ between the runs of one family, or that some of them lack.
inline std::set<std::string> varying_numeric_params(std::span<const run_stats> runs, const std::vector<std::size_t>& family) {
    std::map<std::string, std::set<std::string>> values;
    std::map<std::string, std::size_t> with;
    for (const std::size_t i : family)
        for (const auto& [name, value] : runs[i].meta.params.items())
            if (numeric_param(runs[i].meta, name)) {
                values[name].insert(value.dump());
                ++with[name];
            }
    std::set<std::string> out;
    for (const auto& [name, seen] : values)
        if (seen.size() > 1 || with[name] != family.size()) out.insert(name);
    return out;
}

// The column as find_sweeps chooses its parameter: --sweep-by, else the load_params order; two
// parameters neither of which is a load parameter still make a grid, in name order.
inline std::string grid_column_param(const std::set<std::string>& two, const sweep_options& o) {
    if (!o.by.empty()) return two.contains(o.by) ? o.by : std::string();
    for (const auto p : load_params)
        if (two.contains(std::string(p))) return std::string(p);
    return *two.begin();
}

inline std::string grid_group_name(std::span<const run_stats> runs, const run_stats& r) {
    std::set<std::string> workloads, models;
    for (const auto& x : runs) {
        workloads.insert(x.meta.workload);
        models.insert(x.meta.model);
    }
    std::string out;
    auto add = [&](const std::string& name, const std::string& value) {
        out.append(out.empty() ? "" : ", ").append(name).append("=").append(value);
    };
    if (workloads.size() > 1) add("workload", r.meta.workload);
    if (models.size() > 1) add("model", r.meta.model);
    const auto varying = varying_params(runs);
    for (const auto& [name, value] : r.meta.params.items())
        if (!numeric_param(r.meta, name) && varying.contains(name))
            out.append(out.empty() ? "" : ", ").append(param_text(name, value));
    return out;
}

inline std::vector<double> sorted_values(std::span<const run_stats> runs, const std::vector<std::size_t>& family,
                                         const std::string& param) {
    std::set<double> seen;
    for (const std::size_t i : family)
        if (const auto v = numeric_param(runs[i].meta, param)) seen.insert(*v);
    return {seen.begin(), seen.end()};
}

// Two rows measured at two columns each: without such a crossing (one run per row, a diagonal)
// nothing in the table compares one axis at two values of the other, and it is no grid.
inline bool has_crossing(const grid& g) {
    for (std::size_t a = 0; a < g.rows.size(); ++a)
        for (std::size_t b = a + 1; b < g.rows.size(); ++b) {
            std::size_t shared = 0;
            for (std::size_t c = 0; c < g.columns.size(); ++c) shared += g.cells[a][c] && g.cells[b][c];
            if (shared >= 2) return true;
        }
    return false;
}

inline std::optional<grid> grid_of(std::span<const run_stats> runs, const std::vector<std::size_t>& family,
                                   const sweep_options& o) {
    auto varying = varying_numeric_params(runs, family);
    for (const auto& length : o.lengths) varying.erase(length); // a run's length is no axis
    if (varying.size() != 2) return std::nullopt; // one is a sweep; three leave the rows ambiguous
    grid g;
    g.column_param = grid_column_param(varying, o);
    if (g.column_param.empty()) return std::nullopt;
    g.row_param = *varying.begin() == g.column_param ? *varying.rbegin() : *varying.begin();
    // A parameter that follows the load (each rate run with its own number of prompts) is no axis.
    if (!covarying_params(runs, g.column_param, {g.row_param}, o).empty()) return std::nullopt;
    g.group = grid_group_name(runs, runs[family.front()]);
    g.rows = sorted_values(runs, family, g.row_param);
    g.columns = sorted_values(runs, family, g.column_param);
    if (g.rows.size() < 2 || g.columns.size() < 2) return std::nullopt;
    g.cells.assign(g.rows.size(), std::vector<std::optional<std::size_t>>(g.columns.size()));
    for (const std::size_t i : family) {
        const auto row = numeric_param(runs[i].meta, g.row_param), column = numeric_param(runs[i].meta, g.column_param);
        if (!row || !column) continue;
        const auto r = static_cast<std::size_t>(std::find(g.rows.begin(), g.rows.end(), *row) - g.rows.begin());
        const auto c = static_cast<std::size_t>(std::find(g.columns.begin(), g.columns.end(), *column) - g.columns.begin());
        if (!g.cells[r][c]) g.cells[r][c] = i;
        else
            g.left_out.push_back({i, fmt::format("{}={} at {}={} was measured again: the grid's cell shows {}", g.row_param,
                                                 load_text(*row), g.column_param, load_text(*column),
                                                 runs[*g.cells[r][c]].meta.label)});
    }
    if (!has_crossing(g)) return std::nullopt;
    return g;
}

} // namespace detail

// The grids among `runs`: runs that agree on source format, workload, model and every parameter
// but exactly two numeric ones, with at least two values of each. The column is the load parameter
// (`o.by`, else the first of load_params that varies); the row is the other. Parameters whose values
// are not numbers (a deployment name) split the runs into one grid per value. A third varying
// numeric parameter makes no grid: which of the other two is the row would be a guess.
inline std::vector<grid> find_grids(std::span<const run_stats> runs, const sweep_options& o = {}) {
    std::map<std::string, std::vector<std::size_t>> families;
    std::vector<std::string> order; // first appearance, so output order follows input order
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const std::string key = detail::grid_family_key(runs[i]);
        auto [it, inserted] = families.try_emplace(key);
        if (inserted) order.push_back(key);
        it->second.push_back(i);
    }
    std::vector<grid> out;
    for (const auto& key : order)
        if (auto g = detail::grid_of(runs, families[key], o)) out.push_back(std::move(*g));
    return out;
}

namespace detail {

inline bool is_percentile_stat(std::string_view s) {
    if (s.size() < 2 || s.front() != 'p') return false;
    double p = 0;
    const auto [end, ec] = std::from_chars(s.data() + 1, s.data() + s.size(), p);
    return ec == std::errc{} && end == s.data() + s.size() && p >= 0 && p <= 100;
}

// A name sweep_value understands: run-level values, or [short.|medium.|long.]metric.stat (metric
// names have no dot, stat "p99.9" has one).
inline bool known_grid_value(std::string_view name) {
    for (std::string_view run_level : {"rps", "output_tps", "total_tps", "duration", "success_rate"})
        if (name == run_level) return true;
    for (std::string_view subset : {"short.", "medium.", "long."})
        if (name.starts_with(subset)) {
            name.remove_prefix(subset.size());
            break;
        }
    const auto dot = name.find('.');
    if (dot == std::string_view::npos) return false;
    const std::string_view head = name.substr(0, dot), stat = name.substr(dot + 1);
    bool metric_known = false;
    for (metric m : all_metrics) metric_known = metric_known || to_string(m) == head;
    return metric_known && (stat == "mean" || stat == "std" || stat == "min" || stat == "max" || is_percentile_stat(stat));
}

inline std::string_view trim_blanks(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

inline grid_constraint parse_constraint(std::string_view item) {
    const std::string quoted = "constraint '" + std::string(item) + "'";
    const auto op = item.find_first_of("<>=!");
    if (op == std::string_view::npos)
        throw usage_error(quoted + ": expected VALUE<=LIMIT or VALUE>=LIMIT, e.g. short.e2e.p99<=2");
    const auto op_end = item.find_first_not_of("<>=!", op);
    const std::string_view oper = item.substr(op, op_end == std::string_view::npos ? std::string_view::npos : op_end - op);
    if (oper != "<=" && oper != ">=")
        throw usage_error(quoted + ": unknown operator '" + std::string(oper) + "' (use <= or >=)");
    const std::string_view name = trim_blanks(item.substr(0, op));
    if (!known_grid_value(name))
        throw usage_error(quoted + ": unknown value '" + std::string(name) +
                          "' (rps, output_tps, total_tps, duration, success_rate or [short.|medium.|long.]METRIC.STAT "
                          "with STAT mean, std, min, max or pN, e.g. e2e.p99, short.ttft.p90)");
    const std::string_view number = trim_blanks(op_end == std::string_view::npos ? std::string_view{} : item.substr(op_end));
    double limit = 0;
    const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), limit);
    if (number.empty() || ec != std::errc{} || end != number.data() + number.size() || !std::isfinite(limit))
        throw usage_error(quoted + ": '" + std::string(number) + "' is not a number");
    return {std::string(name), limit, oper == ">="};
}

} // namespace detail

// "short.e2e.p99<=2,e2e.p99<=10,success_rate>=0.99": limits in the values' own units (seconds,
// req/s, a share 0..1).
inline std::vector<grid_constraint> parse_constraints(std::string_view spec) {
    if (detail::trim_blanks(spec).empty())
        throw usage_error("no constraint given: expected e.g. short.e2e.p99<=2,success_rate>=0.99");
    std::vector<grid_constraint> out;
    while (true) {
        const auto comma = spec.find(',');
        const std::string_view item = detail::trim_blanks(spec.substr(0, comma));
        if (item.empty()) throw usage_error("empty constraint in '" + std::string(spec) + "'");
        out.push_back(detail::parse_constraint(item));
        if (comma == std::string_view::npos) break;
        spec.remove_prefix(comma + 1);
    }
    return out;
}

// As parse_constraints reads it back: "short.e2e.p99<=2".
inline std::string to_string(const grid_constraint& c) {
    return fmt::format("{}{}{:g}", c.value, c.at_least ? ">=" : "<=", c.max);
}

namespace detail {

inline bool meets(const grid_constraint& c, double v) { return c.at_least ? v >= c.max : v <= c.max; }

inline std::string cell_name(const grid& g, const grid_cell& c) {
    return fmt::format("{}={:g} at {}={:g}", g.row_param, g.rows[c.row], g.column_param, g.columns[c.column]);
}

inline const run_stats& cell_run(const grid& g, std::span<const run_stats> runs, const grid_cell& c) {
    return runs[*g.cells[c.row][c.column]];
}

// Constraints a cell's run misses, in the order given; an unknown value misses.
inline std::vector<std::size_t> violated(const run_stats& r, std::span<const grid_constraint> constraints) {
    std::vector<std::size_t> out;
    for (std::size_t i = 0; i < constraints.size(); ++i) {
        const auto v = sweep_value(r, constraints[i].value);
        if (!v || !meets(constraints[i], *v)) out.push_back(i);
    }
    return out;
}

inline std::string joined(const std::vector<std::string>& parts, std::string_view separator) {
    std::string out;
    for (std::size_t i = 0; i < parts.size(); ++i) out.append(i ? separator : "").append(parts[i]);
    return out;
}

struct ranked_cell {
    grid_cell cell;
    double rps, p99, load, row;
};

// Highest throughput first; ties go to the lower p99 (unknown last), then the smaller load, then
// the smaller row.
inline std::vector<ranked_cell> rank_cells(const grid& g, std::span<const run_stats> runs, std::vector<std::string>& notes) {
    std::vector<ranked_cell> out;
    std::vector<std::string> unranked;
    for (std::size_t r = 0; r < g.rows.size(); ++r)
        for (std::size_t c = 0; c < g.columns.size(); ++c) {
            if (!g.cells[r][c]) continue;
            const run_stats& run = runs[*g.cells[r][c]];
            const auto rps = sweep_value(run, "rps");
            if (!rps) {
                unranked.push_back(cell_name(g, {r, c}));
                continue;
            }
            out.push_back({{r, c}, *rps, sweep_value(run, "e2e.p99").value_or(std::numeric_limits<double>::infinity()),
                           g.columns[c], g.rows[r]});
        }
    std::sort(out.begin(), out.end(), [](const ranked_cell& a, const ranked_cell& b) {
        if (a.rps != b.rps) return a.rps > b.rps;
        if (a.p99 != b.p99) return a.p99 < b.p99;
        if (a.load != b.load) return a.load < b.load;
        return a.row < b.row;
    });
    if (!unranked.empty())
        notes.push_back(fmt::format("{} cell{} without a throughput not ranked: {}", unranked.size(),
                                    unranked.size() == 1 ? "" : "s", joined(unranked, "; ")));
    return out;
}

inline std::string cell_list(const std::vector<std::string>& cells) {
    constexpr std::size_t shown = 4;
    std::string out;
    for (std::size_t i = 0; i < cells.size() && i < shown; ++i) out.append(i ? "; " : "").append(cells[i]);
    if (cells.size() > shown) out += fmt::format(" and {} more", cells.size() - shown);
    return out;
}

} // namespace detail

// The cell with the highest throughput among those whose run meets every constraint (ties: lower
// e2e p99, then smaller load), the next one, and — when a cell of higher rank misses a constraint —
// the highest-ranked such cell and the first constraint it misses.
inline sweet_spot pick_sweet_spot(const grid& g, std::span<const run_stats> runs,
                                  std::span<const grid_constraint> constraints) {
    sweet_spot out;
    const auto ranked = detail::rank_cells(g, runs, out.notes);
    std::vector<std::vector<std::string>> unknown_at(constraints.size());
    for (const auto& rc : ranked) {
        const run_stats& r = detail::cell_run(g, runs, rc.cell);
        for (std::size_t i = 0; i < constraints.size(); ++i)
            if (!sweep_value(r, constraints[i].value)) unknown_at[i].push_back(detail::cell_name(g, rc.cell));
        const auto misses = detail::violated(r, constraints);
        if (!misses.empty()) {
            if (!out.best && !out.blocked) {
                out.blocked = rc.cell;
                out.binding = to_string(constraints[misses.front()]);
            }
            continue;
        }
        if (!out.best) out.best = rc.cell;
        else if (!out.runner_up) out.runner_up = rc.cell;
    }
    for (std::size_t i = 0; i < constraints.size(); ++i)
        if (!unknown_at[i].empty())
            out.notes.push_back(fmt::format("{} is unknown at {} cell{} ({}): counted as not meeting {}",
                                            constraints[i].value, unknown_at[i].size(), unknown_at[i].size() == 1 ? "" : "s",
                                            detail::cell_list(unknown_at[i]), to_string(constraints[i])));
    return out;
}

namespace detail {

// "short.e2e.p99" → "short p99", "ttft.p99" → "ttft p99", "success_rate" → "success rate".
inline std::string value_words(std::string_view name) {
    if (name == "rps") return "throughput";
    if (name == "success_rate") return "success rate";
    std::string out(name);
    if (const auto at = out.find("e2e.p"); at != std::string::npos && (at == 0 || out[at - 1] == '.')) out.erase(at, 4);
    for (auto& ch : out)
        if (ch == '.' || ch == '_') ch = ' ';
    return out;
}

inline bool is_latency_value(std::string_view name) {
    return name == "duration" || name.find('.') != std::string_view::npos;
}

// A value with its unit: "1.93 s", "15.9 req/s", "97%".
inline std::string value_text(std::string_view name, double v, bool limit = false) {
    if (name == "success_rate") return fmt::format("{:.3g}%", 100 * v);
    const std::string number = limit ? fmt::format("{:g}", v) : fmt::format("{:.3g}", v);
    if (name == "rps") return number + " req/s";
    if (name == "output_tps" || name == "total_tps") return number + " tok/s";
    return is_latency_value(name) ? number + " s" : number;
}

inline std::string constraint_text(const grid_constraint& c) {
    return fmt::format("{} {} {}", c.value, c.at_least ? "≥" : "≤", value_text(c.value, c.max, true));
}

inline std::string value_at(const run_stats& r, const grid_constraint& c) {
    const auto v = sweep_value(r, c.value);
    return v ? value_text(c.value, *v) : std::string("unknown");
}

inline std::string rps_text(const run_stats& r) {
    const auto v = sweep_value(r, "rps");
    return v ? value_text("rps", *v) : std::string("an unknown rate");
}

} // namespace detail

namespace detail {

// "...: max_num_seqs=64 at concurrency=64 reaches 18.8 req/s but its short p99 is 2.9 s (it also misses ...)"
inline std::string blocked_text(const sweet_spot& s, const grid& g, std::span<const run_stats> runs,
                                std::span<const grid_constraint> constraints) {
    const run_stats& blocked = cell_run(g, runs, *s.blocked);
    const auto misses = violated(blocked, constraints);
    const grid_constraint& binding = constraints[misses.front()];
    std::string out = fmt::format("{}: {} reaches {} but its {} is {}", constraint_text(binding), cell_name(g, *s.blocked),
                                  rps_text(blocked), value_words(binding.value), value_at(blocked, binding));
    std::vector<std::string> also;
    for (std::size_t i = 1; i < misses.size(); ++i) also.push_back(constraint_text(constraints[misses[i]]));
    if (!also.empty()) out += " (it also misses " + joined(also, " and ") + ")";
    return out;
}

} // namespace detail

// The finding sentence of a sweet spot, e.g. "Sweet spot: max_num_seqs=32 at concurrency=32,
// 15.4 req/s with short p99 1.93 s (limit 2 s); runner-up ...; the binding constraint is
// short.e2e.p99 ≤ 2 s: max_num_seqs=64 at concurrency=64 reaches 18.8 req/s but its short p99 is 2.9 s."
inline std::string describe(const sweet_spot& s, const grid& g, std::span<const run_stats> runs,
                            std::span<const grid_constraint> constraints) {
    if (!s.best && !s.blocked)
        return fmt::format("No cell of the {} × {} grid has a throughput: no sweet spot.", g.row_param, g.column_param);
    if (!s.best) {
        std::vector<std::string> all;
        for (const auto& c : constraints) all.push_back(detail::constraint_text(c));
        return fmt::format("No cell of the {} × {} grid meets {}; the highest throughput misses {}.", g.row_param,
                           g.column_param, detail::joined(all, " and "), detail::blocked_text(s, g, runs, constraints));
    }
    const run_stats& best = detail::cell_run(g, runs, *s.best);
    std::string out = fmt::format("Sweet spot: {}, {}", detail::cell_name(g, *s.best), detail::rps_text(best));
    std::vector<std::string> with;
    for (const auto& c : constraints)
        with.push_back(fmt::format("{} {} ({} {})", detail::value_words(c.value), detail::value_at(best, c),
                                   c.at_least ? "at least" : "limit", detail::value_text(c.value, c.max, true)));
    if (!with.empty()) out += " with " + detail::joined(with, ", ");
    if (s.runner_up)
        out += fmt::format("; runner-up {}, {}", detail::cell_name(g, *s.runner_up),
                           detail::rps_text(detail::cell_run(g, runs, *s.runner_up)));
    if (s.blocked) return out + "; the binding constraint is " + detail::blocked_text(s, g, runs, constraints) + ".";
    return out + (constraints.empty() ? "." : "; no constraint binds: it is the grid's highest throughput.");
}

// A grid with its sweet spot under the constraints (none given: no sweet spot).
struct grid_analysis {
    grid table;
    std::vector<grid_constraint> constraints;
    std::optional<sweet_spot> spot;
    std::string finding; // describe(*spot, ...) when there is a spot
};

inline grid_analysis analyze_grid(const grid& g, std::span<const run_stats> runs,
                                  std::span<const grid_constraint> constraints) {
    grid_analysis out{g, {constraints.begin(), constraints.end()}, std::nullopt, {}};
    if (constraints.empty()) return out;
    out.spot = pick_sweet_spot(g, runs, constraints);
    out.finding = describe(*out.spot, g, runs, constraints);
    return out;
}

} // namespace servestat
