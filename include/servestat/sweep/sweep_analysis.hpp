// What a sweep shows: the notebook's Experiment 3 table, where throughput stops scaling and the
// tail blows up (Kneedle knees), the largest load that meets each SLO, and whether the client kept
// as many requests in flight as it claimed (Little's law).
#pragma once

#include <map>        // std::map
#include <tuple>      // std::tuple
#include <algorithm>   // std::sort, std::min, std::max, std::all_of
#include <charconv>    // std::from_chars
#include <cmath>       // std::isinf, std::isfinite, std::log2, std::exp2
#include <cstddef>     // std::size_t
#include <optional>    // std::optional
#include <span>        // std::span
#include <string_view> // std::string_view
#include <system_error> // std::errc
#include <string>      // std::string
#include <utility>     // std::pair
#include <vector>      // std::vector

#include <fmt/format.h> // fmt::format

#include "servestat/core/iso_time.hpp"  // parse_utc_time, utc_time
#include "servestat/stats/cost.hpp"      // run_cost, cost_between_runs
#include "servestat/stats/energy.hpp"    // run_energy, energy_between_runs
#include "servestat/stats/goodput.hpp"   // slo
#include "servestat/stats/run_validity.hpp" // check_run_validity, run_validity
#include "servestat/stats/run_spread.hpp" // run_spread, spread_of_runs
#include "servestat/stats/run_stats.hpp" // run_stats
#include "servestat/stats/sample_size.hpp" // rests_on_few_samples
#include "servestat/sweep/curve_shape.hpp"    // classify_curve, curve_shape
#include "servestat/sweep/kneedle.hpp"        // find_knee
#include "servestat/sweep/threshold_knee.hpp" // find_threshold_knee, default_degradation
#include "servestat/sweep/two_segment.hpp"    // fit_two_segments
#include "servestat/sweep/sweep.hpp"     // sweep, sweep_value

namespace servestat {

// The sweep table's columns, in order: run level, then p50/p90/p99 of e2e and ttft for all, short
// and long requests.
inline std::vector<std::string> sweep_table_columns() {
    std::vector<std::string> out{"rps", "output_tps", "success_rate"};
    for (const char* subset : {"", "short.", "long."})
        for (const char* m : {"e2e", "ttft"})
            for (const char* p : {"p50", "p90", "p99"}) out.push_back(fmt::format("{}{}.{}", subset, m, p));
    return out;
}

// Why a level is kept out when none of its runs completed a request (check_validity).
inline constexpr std::string_view nothing_completed_reason = "nothing completed";

struct sweep_row {
    double load; // +inf for an unbounded rate
    std::string label;
    std::vector<std::optional<double>> values; // one per sweep_table_columns(): the replicates' median
    // Runs measured at this level (replicates) and, when more than one, their smallest and largest
    // value per column: the spread the median hides.
    std::size_t replicates = 1;
    std::vector<std::optional<double>> low, high;
    // Per column: a percentile that rests on few samples in some run of the level (stats/sample_size.hpp).
    std::vector<bool> few_samples;
    // Kept out of the knees, the threshold knees and the SLO capacity, and why ("a few slow requests
    // set its duration"): its numbers would distort them (docs/sweeps.md#run-validity).
    bool excluded = false;
    std::string excluded_because;
    // Per column: the confidence interval of a percentile of a level run once (sweep_interval);
    // none for other columns and for replicated levels, whose median is no one run's percentile.
    std::vector<std::optional<interval>> ci;
    // Per column, for a level run more than once: the spread between its runs (mean, std, CV and the
    // t-interval of the mean over runs, stats/run_spread.hpp), over the runs that have the value.
    std::vector<std::optional<run_spread>> between_runs;
    // With a price: the level's cost per token, a run's own, or for a level run more than once the
    // mean over its runs with Student's t interval between them (stats/cost.hpp).
    std::optional<run_cost> cost;
    // Where the runs' power was sampled: the level's energy per token, likewise (stats/energy.hpp).
    std::optional<run_energy> energy;
};

// A level whose throughput collapsed while its median latency held: a few slow requests set the
// run's duration, so its rate is not the server's. Compared with the lower level of highest
// throughput (`reference_*`).
struct straggler_level {
    double load = 0, reference_load = 0;
    double rps = 0, reference_rps = 0;
    double p50 = 0, reference_p50 = 0;
    std::optional<double> p99;
};

// What makes a sweep's runs doubtful as measurements of their levels (docs/sweeps.md#run-validity).
struct sweep_validity {
    std::vector<std::pair<std::size_t, run_validity>> runs; // run index and its issues, for runs with any
    std::vector<straggler_level> stragglers;
    // The levels' loads in the order they started, when start times are known for every level and
    // do not ascend with the load (an interrupted or re-run sweep); empty otherwise.
    std::vector<double> start_order;
    // Runs that sent fewer requests than the run length most of the sweep shares (`siblings`): cut
    // short, with no setting of their own to say so (ended_early needs a configured length).
    struct short_run {
        double load = 0, requests = 0;
    };
    std::vector<short_run> short_of_siblings;
    double siblings = 0; // the request count most runs of the sweep share
};

// The two-segment knee of throughput against load (two_segment.hpp, docs/knee.md#two-segment-fit):
// fitted against log2 of the load when every level is above 0 (levels that double are evenly spaced
// there, as the sweep charts draw them), else against the load.
struct two_segment_knee {
    two_segment_fit fit; // in the fitted coordinates (log2 load, or load)
    bool log_x = true;
    double load = 0; // the break as a load: 2^breakpoint on the log axis
    double y = 0;    // the fitted throughput there
    // The fitted throughput rises less (or falls) after the break than before: the curve levels off.
    bool levels_off() const { return fit.slope_after < fit.slope_before; }
};

// A knee of one curve of the sweep: `x` where Kneedle found it, `y` the curve's value there, and
// how far it can be read as a saturation point (docs/knee.md#curve-shapes).
struct sweep_knee {
    std::string curve; // "throughput", "p99", "ttft", "tradeoff"
    std::string shape; // the curve and direction Kneedle used, e.g. "convex increasing"
    std::string x_name, y_name;
    std::optional<double> x, y;
    std::optional<double> load; // the load level at the knee (for the tradeoff curve, x is rps)
    curve_shape form;           // the curve's shape, from the steps between adjacent levels
    // On a jump, Kneedle's answer when it is an end point of the curve: reported as withheld, not
    // as a knee (x, y and load stay empty).
    std::optional<double> withheld_x, withheld_load;
    std::string caveat; // why the knee is not a saturation point; empty for a smooth saturation
    std::optional<threshold_knee> threshold; // latency curves: first level more than d above the lowest
    std::optional<two_segment_knee> two_segment; // throughput: the two-segment fit's break, beside Kneedle's
};

// The largest load meeting an objective "percentile of metric ≤ max_seconds" over all requests.
struct slo_capacity {
    slo objective;
    double percentile;
    std::optional<double> max_load; // empty when no measured load meets it
    bool interpolated = false;      // between the last load meeting it and the first missing it
    bool limited = true;            // false when every measured load meets it
    bool known = true;              // false when no load level has that percentile of that metric
};

// Little's law for a closed loop: requests in flight on average = throughput × mean latency. Far
// fewer than the concurrency the client claims means it could not keep them in flight.
struct little_check {
    double load;
    double in_flight;     // rps × mean e2e
    double ratio;         // in_flight / load
    double rps = 0;       // the level's throughput (req/s)
    double mean_e2e = 0;  // and its mean end-to-end latency (s)
};

// Below this share of the concurrency in flight, the client may not have kept the load it claims.
inline constexpr double little_ratio_floor = 0.8;

struct sweep_analysis {
    sweep curve;
    std::vector<sweep_row> rows;
    std::vector<sweep_knee> knees;
    std::vector<slo_capacity> capacity;
    std::vector<little_check> little;
    std::vector<std::string> findings;
    sweep_validity validity;
};

// A straggler: throughput below this share of a lower level's while the median e2e stays within
// straggler_median_factor of that level's.
inline constexpr double straggler_rps_share = 0.5;
inline constexpr double straggler_median_factor = 2.0;

// The confidence of the interval of a replicated level's mean over its runs.
inline constexpr double replicate_confidence = 0.95;

namespace detail {

// The median of the values the replicates of one level have (the value itself for one run).
inline std::optional<double> replicate_median(std::vector<double> values) {
    if (values.empty()) return std::nullopt;
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

// A level's energy per token: its run's own, or between its runs; none unless every run has one.
inline std::optional<run_energy> level_energy(const std::vector<const run_stats*>& level) {
    std::vector<const run_energy*> energies;
    for (const auto* r : level) energies.push_back(r->energy ? &*r->energy : nullptr);
    return energy_between_runs(energies);
}

// A level's cost: its run's own, or between its runs; none unless every run has one.
inline std::optional<run_cost> level_cost(const std::vector<const run_stats*>& level) {
    std::vector<const run_cost*> costs;
    for (const auto* r : level) costs.push_back(r->cost ? &*r->cost : nullptr);
    return cost_between_runs(costs);
}

// One named value of a level: the median over its replicates that have it.
inline std::optional<double> level_value(const std::vector<const run_stats*>& level, std::string_view name) {
    std::vector<double> values;
    for (const auto* r : level)
        if (const auto v = sweep_value(*r, name)) values.push_back(*v);
    return replicate_median(std::move(values));
}

// Whether a percentile column ("short.e2e.p99") rests on few samples in some run of the level: the
// run's own count of that subset's values, or for a tool's aggregates its count of successful
// requests (whole runs only). Unknown counts mark nothing.
inline bool level_rests_on_few_samples(const std::vector<const run_stats*>& level, std::string_view column) {
    std::string subset = "all";
    for (const std::string_view s : {"short.", "medium.", "long."})
        if (column.starts_with(s)) {
            subset = std::string(s.substr(0, s.size() - 1));
            column.remove_prefix(s.size());
        }
    const auto dot = column.find('.');
    if (dot == std::string_view::npos || column.substr(dot + 1).size() < 2 || column[dot + 1] != 'p') return false;
    const std::string_view metric_name = column.substr(0, dot), stat = column.substr(dot + 2);
    double p = 0;
    if (std::from_chars(stat.data(), stat.data() + stat.size(), p).ec != std::errc{}) return false;
    for (const auto* r : level) {
        std::size_t n = 0;
        if (r->meta.kind == run_kind::requests && r->requests > 0) {
            for (metric m : all_metrics)
                if (to_string(m) == metric_name)
                    if (const summary* s = find_summary(*r, subset, m)) n = s->n;
        } else if (subset == "all") {
            if (const auto* ok = find_reported(r->meta, "ok"); ok && ok->value >= 1) n = static_cast<std::size_t>(ok->value);
        }
        if (rests_on_few_samples(p, n)) return true;
    }
    return false;
}

// (x, y) pairs of two sweep columns where both are known. An unbounded level has no place on a
// load axis: knees over load use the measured levels only (the throughput against p99 curve keeps
// it, at the throughput it reached).
inline std::pair<std::vector<double>, std::vector<double>> sweep_curve(const sweep_analysis& a, std::size_t x_column,
                                                                        std::size_t y_column, bool x_is_load) {
    std::vector<double> xs, ys;
    for (const auto& row : a.rows) {
        if (row.excluded) continue;
        const auto x = x_is_load ? std::optional<double>(row.load) : row.values[x_column];
        const auto y = row.values[y_column];
        if (x && y && std::isfinite(*x)) {
            xs.push_back(*x);
            ys.push_back(*y);
        }
    }
    return {xs, ys};
}

inline std::size_t column_index(std::string_view name) {
    const auto columns = sweep_table_columns();
    for (std::size_t i = 0; i < columns.size(); ++i)
        if (columns[i] == name) return i;
    return columns.size();
}

inline std::optional<double> load_at(const sweep_analysis& a, std::size_t column, double x) {
    for (const auto& row : a.rows)
        if (row.values[column] == x) return row.load;
    return std::nullopt;
}

// `shape` nullopt: detected from the data, as kneed's find_shape does.
inline sweep_knee knee_of(const sweep_analysis& a, const char* name, std::string_view x_name, std::string_view y_name,
                          std::optional<knee_curve> shape) {
    const bool x_is_load = x_name == a.curve.param;
    const auto [xs, ys] = sweep_curve(a, column_index(x_name), column_index(y_name), x_is_load);
    sweep_knee out;
    out.curve = name;
    out.x_name = std::string(x_name);
    out.y_name = std::string(y_name);
    out.form = classify_curve(xs, ys);
    if (xs.size() < 3) return out;
    kneedle_options o;
    o.curve = shape;
    if (shape) o.direction = knee_direction::increasing;
    const knee_result k = find_knee(xs, ys, o);
    out.shape = std::string(to_string(k.curve)).append(" ").append(to_string(k.direction));
    if (!k.knee) return out;
    out.x = k.knee;
    for (std::size_t i = 0; i < xs.size(); ++i)
        if (xs[i] == *k.knee) out.y = ys[i];
    out.load = x_is_load ? k.knee : load_at(a, column_index(x_name), *k.knee);
    return out;
}

inline slo_capacity capacity_for(const sweep_analysis& a, const std::vector<std::vector<const run_stats*>>& levels,
                                 const slo& objective, double percentile) {
    slo_capacity out{objective, percentile, std::nullopt, false, true, false};
    const std::string name = fmt::format("{}.{}", to_string(objective.on), percentile_key(percentile));
    std::optional<std::pair<double, double>> last_ok; // (load, value)
    for (std::size_t i = 0; i < a.rows.size(); ++i) {
        if (a.rows[i].excluded) continue;
        const auto value = level_value(levels[i], name);
        if (!value) continue;
        out.known = true;
        if (*value <= objective.max_seconds) {
            last_ok = std::pair{a.rows[i].load, *value};
            continue;
        }
        if (last_ok && std::isinf(a.rows[i].load)) {
            out.max_load = last_ok->first; // nothing lies between the last rate and no limit
            return out;
        }
        if (last_ok) {
            const auto [load0, value0] = *last_ok;
            out.max_load = load0 + (objective.max_seconds - value0) / (*value - value0) * (a.rows[i].load - load0);
            out.interpolated = true;
        }
        return out; // the first load missing the objective ends the search
    }
    out.limited = !out.known;
    if (last_ok) out.max_load = last_ok->first;
    return out;
}

inline std::string format_load(const std::string& param, double load) {
    return (param == "concurrency" ? "c=" : param + "=") + load_text(load);
}

// Several levels compactly: "c=32, 48, 64", "request_rate=2, 4".
inline std::string format_loads(const std::string& param, const std::vector<double>& loads) {
    std::string out;
    for (double load : loads) out.append(out.empty() ? format_load(param, load) : ", " + load_text(load));
    return out;
}

// Two adjacent levels: "c=40 → 48", "request_rate 40 → 48"; on the tradeoff curve "5.1 → 5.3 req/s".
inline std::string level_step(const sweep_analysis& a, const sweep_knee& k, double from, double to) {
    if (k.x_name != a.curve.param) return fmt::format("{:.3g} → {:.3g} req/s", from, to);
    if (a.curve.param == "concurrency") return fmt::format("c={} → {}", load_text(from), load_text(to));
    return fmt::format("{} {} → {}", a.curve.param, load_text(from), load_text(to));
}

inline std::string knee_place(const sweep_analysis& a, const sweep_knee& k, double x) {
    return k.x_name == a.curve.param ? format_load(a.curve.param, x) : fmt::format("{:.3g} req/s", x);
}

// What the curve measures, as a sentence starts: "TTFT p99", "Throughput".
inline std::string curve_subject(const sweep_knee& k) {
    if (k.y_name == "rps") return "Throughput";
    if (k.y_name == "ttft.p99") return "TTFT p99";
    if (k.y_name == "e2e.p99") return "e2e p99";
    return k.y_name;
}

inline std::string curve_value(const sweep_knee& k, double v) {
    return k.y_name == "rps" ? fmt::format("{:.3g} req/s", v) : fmt::format("{:.3g} s", v);
}

// "rises 15×", "rises 2.4×", "falls 3.1×".
inline std::string jump_verb(double factor) {
    const double by = factor >= 1 ? factor : 1 / factor;
    return fmt::format("{} {}×", factor >= 1 ? "rises" : "falls", by >= 10 ? fmt::format("{:.0f}", by) : fmt::format("{:.1f}", by));
}

// "TTFT p99 rises 15× in one step, request_rate 40 → 48 (0.21 s → 3.2 s)".
inline std::string jump_text(const sweep_analysis& a, const sweep_knee& k) {
    const curve_jump& j = *k.form.jump;
    return fmt::format("{} {} in one step, {} ({} → {})", curve_subject(k), jump_verb(j.factor),
                       level_step(a, k, j.x_from, j.x_to), curve_value(k, j.y_from), curve_value(k, j.y_to));
}

// Kneedle always finds a bend in the unit square; the curve's shape says whether it is one. On a
// jump an end-point answer is withheld (a reader would take it as the saturation point); every
// other shape but a smooth saturation keeps its knee with a caveat.
inline void qualify_knee(const sweep_analysis& a, sweep_knee& k) {
    if (!k.x) return;
    const curve_shape& f = k.form;
    switch (f.kind) {
    case curve_kind::smooth_saturation:
    case curve_kind::unclassified: return;
    case curve_kind::jump: {
        const auto [xs, ys] = sweep_curve(a, column_index(k.x_name), column_index(k.y_name), k.x_name == a.curve.param);
        const auto [lo, hi] = std::minmax_element(xs.begin(), xs.end());
        const std::string step = level_step(a, k, f.jump->x_from, f.jump->x_to);
        if (*k.x == *lo || *k.x == *hi) {
            k.caveat = fmt::format("the curve is one jump (it {} at {}); Kneedle's answer, {}, is its {} level, not a "
                                   "saturation point",
                                   jump_verb(f.jump->factor), step, knee_place(a, k, *k.x), *k.x == *lo ? "first" : "last");
            k.withheld_x = k.x;
            k.withheld_load = k.load;
            k.x = k.y = k.load = std::nullopt;
        } else
            k.caveat = fmt::format("the curve is one jump (it {} at {}): the knee only places that step, it is not a "
                                   "gradual saturation",
                                   jump_verb(f.jump->factor), step);
        return;
    }
    case curve_kind::plateau:
        k.caveat = fmt::format("the curve stays within a {:.0f}% band (plateau only): Kneedle stretches that to the unit "
                               "square, so the knee marks noise",
                               100 * (f.spread - 1));
        return;
    case curve_kind::noisy:
        k.caveat = fmt::format("the curve is noisy ({:.0f}% of its movement goes against its trend): the knee is not "
                               "reliable",
                               100 * f.against);
        return;
    case curve_kind::monotone:
        k.caveat = fmt::format("the curve {} steadily without a clear bend (at most {:.0f}% of its range off the straight "
                               "line through its ends): weak evidence of saturation",
                               f.rising ? "rises" : "falls",
                               100 * std::max(f.bend_linear, f.bend_log));
        return;
    }
}

// The threshold knee of a latency curve, over every level that has the value (an unbounded
// level last). Throughput has none: it degrades downwards, and its knee is a levelling off.
inline std::optional<threshold_knee> threshold_of(const sweep_analysis& a, const sweep_knee& k, double degradation) {
    if (k.y_name == "rps") return std::nullopt;
    const std::size_t column = column_index(k.y_name);
    std::vector<double> loads, values;
    for (const auto& row : a.rows)
        if (row.values[column] && !row.excluded) {
            loads.push_back(row.load);
            values.push_back(*row.values[column]);
        }
    return find_threshold_knee(loads, values, degradation);
}

// The two-segment fit of a throughput curve over the levels Kneedle saw (excluded and unbounded
// levels left out); none for other curves or fewer than four levels.
inline std::optional<two_segment_knee> two_segment_of(const sweep_analysis& a, const sweep_knee& k) {
    if (k.y_name != "rps" || k.x_name != a.curve.param) return std::nullopt;
    auto [xs, ys] = sweep_curve(a, column_index(k.x_name), column_index(k.y_name), true);
    two_segment_knee out;
    out.log_x = !xs.empty() && std::all_of(xs.begin(), xs.end(), [](double x) { return x > 0; });
    if (out.log_x)
        for (double& x : xs) x = std::log2(x);
    const auto fit = fit_two_segments(xs, ys);
    if (!fit) return std::nullopt;
    out.fit = *fit;
    out.load = out.log_x ? std::exp2(fit->breakpoint) : fit->breakpoint;
    out.y = fit->y_at_break;
    return out;
}

// Whether a knee's curve is over load and one jump: the jump is then a finding of its own.
inline bool jump_over_load(const sweep_analysis& a, const sweep_knee& k) {
    return k.form.kind == curve_kind::jump && k.form.jump && k.x_name == a.curve.param;
}

// The finding for a curve that is one jump: the step, and what became of Kneedle's knee.
inline std::string jump_finding(const sweep_analysis& a, const sweep_knee& k) {
    const curve_jump& j = *k.form.jump;
    std::string text = jump_text(a, k);
    // Flat "after" a jump into the last level says nothing: no level follows it.
    double last_load = a.rows.front().load;
    for (const auto& row : a.rows)
        if (std::isfinite(row.load)) last_load = row.load;
    const bool after = last_load > j.x_to, before = a.rows.front().load < j.x_from;
    if (j.flat_before && j.flat_after && before && after) text += ", flat on either side: a step, not a gradual saturation";
    else if (j.flat_after && after) text += ", then levels off";
    else if (!after) text += " into the last level measured";
    if (k.withheld_x)
        text += fmt::format("; Kneedle's answer, {}, is the {} level and is not reported as a knee",
                            knee_place(a, k, *k.withheld_x), *k.withheld_x > j.x_from ? "last" : "first");
    else if (k.x)
        text += fmt::format("; Kneedle's knee at {} only places that step", knee_place(a, k, *k.x));
    return text + ".";
}

inline void add_jump_findings(sweep_analysis& a) {
    for (const auto& k : a.knees)
        if (jump_over_load(a, k)) a.findings.push_back(jump_finding(a, k));
}

// Little's law at every level; the finding names each level where fewer than 80 % of the
// concurrency were in flight.
inline void add_little_finding(sweep_analysis& a) {
    std::vector<const little_check*> short_of;
    for (const auto& c : a.little)
        if (c.ratio < little_ratio_floor) short_of.push_back(&c);
    if (short_of.empty()) return;
    const std::string& param = a.curve.param;
    if (short_of.size() == 1) {
        const little_check& c = *short_of.front();
        a.findings.push_back(fmt::format(
            "At {} only {:.1f} requests were in flight on average (Little's law: rps × mean latency), {:.0f}% "
            "of the concurrency: the client, not the server, may be the bottleneck.",
            format_load(param, c.load), c.in_flight, 100 * c.ratio));
        return;
    }
    std::vector<double> loads;
    double lo = short_of.front()->ratio, hi = lo;
    for (const auto* c : short_of) {
        loads.push_back(c->load);
        lo = std::min(lo, c->ratio);
        hi = std::max(hi, c->ratio);
    }
    a.findings.push_back(fmt::format(
        "At {} only {:.0f}–{:.0f}% of the concurrency was in flight on average (Little's law: rps × mean latency; "
        "the Little's law table lists every level): the client, not the server, may be the bottleneck.",
        format_loads(param, loads), 100 * lo, 100 * hi));
}

inline void add_findings(sweep_analysis& a) {
    add_jump_findings(a); // first: it says how to read every knee below
    const auto rps = column_index("rps"), p99 = column_index("e2e.p99");
    const auto short_p99 = column_index("short.e2e.p99"), long_p99 = column_index("long.e2e.p99");
    const std::string& param = a.curve.param;
    for (const auto& k : a.knees) {
        // A knee with a caveat is not a saturation point: its sentence (and a jump's finding) says so.
        if (k.curve != "throughput" || !k.load || !k.y || !k.caveat.empty()) continue;
        const sweep_row* at = nullptr;
        for (const auto& row : a.rows)
            if (row.load == *k.load) at = &row;
        const sweep_row* top = &a.rows.back(); // the highest level the knees saw
        for (const auto& row : a.rows)
            if (!row.excluded) top = &row;
        const sweep_row& last = *top;
        // Still gaining 15% or more past the knee is slowing growth, not saturation.
        const double gain = last.values[rps] ? *last.values[rps] / *k.y - 1 : 0;
        std::string text = fmt::format("Throughput {} at ~{:.3g} req/s from {}", gain >= 0.15 ? "growth slows" : "saturates",
                                       *k.y, format_load(param, *k.load));
        if (at && at != &last && at->values[p99] && last.values[p99] && last.values[rps] && *at->values[p99] > 0)
            text += fmt::format("; from {} to {} p99 grows {:.1f}× while throughput changes {:+.0f}%",
                                format_load(param, *k.load), format_load(param, last.load),
                                *last.values[p99] / *at->values[p99], 100 * gain);
        a.findings.push_back(text + ".");
    }
    const auto& first = a.rows.front();
    const auto& last = a.rows.back();
    if (last.values[short_p99] && last.values[long_p99] && *last.values[long_p99] > 0) {
        const double end_ratio = *last.values[short_p99] / *last.values[long_p99];
        const bool started_apart = first.values[short_p99] && first.values[long_p99] &&
                                   *first.values[short_p99] < 0.5 * *first.values[long_p99];
        if (end_ratio >= 0.7 && (started_apart || !first.values[long_p99]))
            a.findings.push_back(fmt::format(
                "Short requests' p99 converges to long requests' at {} ({} vs {} s): short prompts wait behind long "
                "prefills.",
                format_load(param, last.load), fmt::format("{:.2f}", *last.values[short_p99]),
                fmt::format("{:.2f}", *last.values[long_p99])));
    }
    add_little_finding(a);
}

// ---- run validity (docs/sweeps.md#run-validity) ----------------------------------------------

// Seconds as the validity sentences quote them: "2.1 s", "0.35 s", "1800 s".
inline std::string validity_seconds(double v) {
    return v >= 100 ? fmt::format("{:.0f} s", v) : fmt::format("{:.2g} s", v);
}

// Levels whose throughput collapsed while the median held, each against the lower level of
// highest throughput.
inline std::vector<straggler_level> find_stragglers(const sweep_analysis& a) {
    std::vector<straggler_level> out;
    const auto rps = column_index("rps"), p50 = column_index("e2e.p50"), p99 = column_index("e2e.p99");
    const sweep_row* best = nullptr;
    for (const auto& row : a.rows) {
        const auto r = row.values[rps], m = row.values[p50];
        if (best && r && m && *m > 0 && *r < straggler_rps_share * *best->values[rps] && best->values[p50] &&
            *m <= straggler_median_factor * *best->values[p50])
            out.push_back({row.load, best->load, *r, *best->values[rps], *m, *best->values[p50], row.values[p99]});
        if (r && m && (!best || *r > *best->values[rps])) best = &row;
    }
    return out;
}

// The levels' loads in the order they started (each level at its earliest run), when every level
// has a start time and they do not ascend with the load; empty otherwise.
inline std::vector<double> levels_out_of_order(const sweep_analysis& a, std::span<const run_stats> runs) {
    std::vector<std::pair<utc_time, double>> starts;
    for (const auto& p : a.curve.points) {
        std::optional<utc_time> first;
        for (const std::size_t i : p.replicates.empty() ? std::vector<std::size_t>{p.run} : p.replicates) {
            if (i >= runs.size()) continue;
            const auto t = parse_utc_time(runs[i].meta.started_at);
            if (!t) return {};
            first = first ? std::min(*first, *t) : *t;
        }
        if (!first) return {};
        starts.emplace_back(*first, p.load);
    }
    if (starts.size() < 2) return {};
    bool ascending = true;
    for (std::size_t i = 1; i < starts.size(); ++i) ascending = ascending && starts[i - 1].first <= starts[i].first;
    if (ascending) return {};
    std::stable_sort(starts.begin(), starts.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    std::vector<double> out;
    for (const auto& [t, load] : starts) out.push_back(load);
    return out;
}

// Runs well short (below ended_early's 90%) of the request count that most of the sweep's runs
// share exactly (three at least, half of them or more): a fixed run length they did not reach.
inline void find_short_of_siblings(sweep_analysis& a, std::span<const run_stats> runs) {
    std::map<double, std::size_t> counts;
    std::vector<std::tuple<double, double, bool>> measured; // load, requests, told as ended early already
    for (const auto& p : a.curve.points)
        for (const std::size_t i : p.replicates.empty() ? std::vector<std::size_t>{p.run} : p.replicates)
            if (i < runs.size() && !run_failed_entirely(runs[i]))
                if (const auto n = run_request_count(runs[i]))
                    ++counts[*n], measured.emplace_back(p.load, *n, check_run_validity(runs[i]).ended_early());
    if (counts.empty()) return;
    const auto mode = std::max_element(counts.begin(), counts.end(), [](const auto& x, const auto& y) { return x.second < y.second; });
    if (mode->second < 3 || 2 * mode->second < measured.size()) return;
    const validity_options o;
    for (const auto& [load, n, ended_early] : measured)
        if (n < o.early_count_share * mode->first && !ended_early) a.validity.short_of_siblings.push_back({load, n});
    if (!a.validity.short_of_siblings.empty()) a.validity.siblings = mode->first;
}

// The checks of every run of the sweep, the stragglers and the order of the levels. Stragglers are
// kept out of the knees and the SLO capacity, and so are levels that never held their load (fewer
// than 2 × c requests completed) while three levels that did remain: a sweep of such runs is read
// as it is, with the warning.
inline void check_validity(sweep_analysis& a, std::span<const run_stats> runs,
                           const std::vector<std::vector<const run_stats*>>& levels) {
    std::vector<bool> unsteady(a.rows.size(), false);
    for (std::size_t k = 0; k < a.curve.points.size(); ++k) {
        const auto& p = a.curve.points[k];
        bool all_unsteady = true, all_failed = true;
        for (const std::size_t i : p.replicates.empty() ? std::vector<std::size_t>{p.run} : p.replicates) {
            if (i >= runs.size()) continue;
            run_validity v = check_run_validity(runs[i]);
            all_unsteady = all_unsteady && below_steady_state(runs[i]);
            all_failed = all_failed && v.nothing_completed;
            if (v.ended_early() || v.tiny || v.errors || v.nothing_completed) a.validity.runs.emplace_back(i, std::move(v));
        }
        unsteady[k] = all_unsteady && !all_failed && !levels[k].empty();
        // A level where nothing completed is no point of the curve: no knee, peak or capacity rests on it.
        if (all_failed && !levels[k].empty() && k < a.rows.size()) {
            a.rows[k].excluded = true;
            a.rows[k].excluded_because = nothing_completed_reason;
        }
    }
    a.validity.stragglers = find_stragglers(a);
    a.validity.start_order = levels_out_of_order(a, runs);
    find_short_of_siblings(a, runs);
    for (const auto& s : a.validity.stragglers)
        for (auto& row : a.rows)
            if (row.load == s.load) {
                row.excluded = true;
                row.excluded_because = "a few slow requests set its duration";
            }
    std::size_t sound = 0;
    for (std::size_t k = 0; k < a.rows.size(); ++k)
        sound += !unsteady[k] && !a.rows[k].excluded && std::isfinite(a.rows[k].load);
    if (sound >= 3)
        for (std::size_t k = 0; k < a.rows.size(); ++k)
            if (unsteady[k] && !a.rows[k].excluded) {
                a.rows[k].excluded = true;
                a.rows[k].excluded_because = "fewer than 2 × its concurrency in requests completed";
            }
}

// "c=100 (vllm · rate 100)": a level and the run that stands for it.
inline std::string level_and_label(const sweep_analysis& a, double load) {
    for (const auto& row : a.rows)
        if (row.load == load && !row.label.empty()) return format_load(a.curve.param, load) + " (" + row.label + ")";
    return format_load(a.curve.param, load);
}

inline std::string straggler_finding(const sweep_analysis& a, const straggler_level& s) {
    return fmt::format("{}: {:.3g} req/s against {:.3g} req/s at {}, while its median e2e held ({} against {}){}: a few "
                       "slow requests set the run's duration, so its throughput is not the server's; it is kept out of "
                       "the knees and the SLO capacity.",
                       level_and_label(a, s.load), s.rps, s.reference_rps, format_load(a.curve.param, s.reference_load),
                       validity_seconds(s.p50), validity_seconds(s.reference_p50),
                       s.p99 ? " and its p99 e2e is " + validity_seconds(*s.p99) : std::string());
}

inline std::string order_finding(const sweep_analysis& a) {
    // The levels that started before a lower one (run early), and those that started after a higher
    // one (run late): the fewer are named (one level re-run at the end is "2 started after higher
    // levels", not the five levels before it).
    const auto& order = a.validity.start_order;
    std::vector<double> early, late;
    for (std::size_t i = 0; i < order.size(); ++i) {
        if (std::any_of(order.begin() + static_cast<std::ptrdiff_t>(i) + 1, order.end(), [&](double o) { return o < order[i]; }))
            early.push_back(order[i]);
        if (std::any_of(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(i), [&](double o) { return o > order[i]; }))
            late.push_back(order[i]);
    }
    const bool name_late = late.size() < early.size();
    auto& named = name_late ? late : early;
    std::sort(named.begin(), named.end());
    return fmt::format("The levels were not run in order of {}: {} started {} (start order {}), a sign "
                       "of an interrupted or re-run sweep; levels run apart in time may have met the server in "
                       "different states.",
                       a.curve.param, format_loads(a.curve.param, named), name_late ? "after higher levels" : "before lower levels",
                       format_loads(a.curve.param, order));
}

inline std::string short_of_siblings_finding(const sweep_analysis& a) {
    const auto& v = a.validity;
    std::vector<std::string> runs;
    for (const auto& r : v.short_of_siblings) runs.push_back(fmt::format("{} with {:g}", level_and_label(a, r.load), r.requests));
    if (runs.empty()) return {};
    std::string list = runs.front();
    for (std::size_t i = 1; i < runs.size() && i < 3; ++i) list += (i + 1 == runs.size() ? " and " : ", ") + runs[i];
    if (runs.size() > 3) list += fmt::format(" and {} more", runs.size() - 3);
    return fmt::format("Fewer requests than the other levels' {:g}: {}; {} ended early, so {} numbers cover only the part that ran.",
                       v.siblings, list, runs.size() == 1 ? "it" : "they", runs.size() == 1 ? "its" : "their");
}

// Levels that never held their load, kept out of the knees (stragglers say so in their own finding).
inline std::string unsteady_exclusion_finding(const sweep_analysis& a) {
    std::vector<double> loads;
    for (const auto& row : a.rows)
        if (row.excluded && row.excluded_because.starts_with("fewer than 2")) loads.push_back(row.load);
    if (loads.empty()) return {};
    return fmt::format("{} completed fewer than 2 × {} concurrency in requests and never held {} load, so {} kept out "
                       "of the knees and the SLO capacity.",
                       format_loads(a.curve.param, loads), loads.size() == 1 ? "its" : "their",
                       loads.size() == 1 ? "its" : "their", loads.size() == 1 ? "it is" : "they are");
}

inline void add_validity_findings(sweep_analysis& a) {
    for (const auto& s : a.validity.stragglers) a.findings.push_back(straggler_finding(a, s));
    if (auto t = unsteady_exclusion_finding(a); !t.empty()) a.findings.push_back(std::move(t));
    if (!a.validity.start_order.empty()) a.findings.push_back(order_finding(a));
}

} // namespace detail

// Everything a report says about one sweep of `runs`. `slos` and `slo_percentile` give the
// objectives whose largest passing load is reported; `degradation` the threshold knee's d (latency
// more than d above the lowest level's, validate_degradation's rule).
inline sweep_analysis analyze_sweep(const sweep& s, std::span<const run_stats> runs, std::span<const slo> slos = {},
                                    double slo_percentile = 95, double degradation = default_degradation) {
    validate_degradation(degradation);
    sweep_analysis a{s, {}, {}, {}, {}, {}, {}};
    const auto columns = sweep_table_columns();
    std::vector<std::vector<const run_stats*>> levels;
    for (const auto& p : s.points) {
        auto& level = levels.emplace_back();
        for (const std::size_t i : p.replicates.empty() ? std::vector<std::size_t>{p.run} : p.replicates)
            level.push_back(&runs[i]);
        sweep_row row{p.load, runs[p.run].meta.label, {}, level.size(), {}, {}, {}, false, {}};
        for (const auto& c : columns) {
            row.values.push_back(detail::level_value(level, c));
            row.few_samples.push_back(detail::level_rests_on_few_samples(level, c));
            row.ci.push_back(level.size() == 1 ? sweep_interval(*level.front(), c) : std::nullopt);
            if (level.size() < 2) continue;
            std::optional<double> lo, hi;
            for (const auto* r : level)
                if (const auto v = sweep_value(*r, c)) {
                    lo = lo ? std::min(*lo, *v) : *v;
                    hi = hi ? std::max(*hi, *v) : *v;
                }
            row.low.push_back(lo);
            row.high.push_back(hi);
            std::vector<double> per_run;
            for (const auto* r : level)
                if (const auto v = sweep_value(*r, c)) per_run.push_back(*v);
            row.between_runs.push_back(per_run.size() >= 2 ? spread_of_runs(per_run, replicate_confidence) : std::nullopt);
        }
        row.cost = detail::level_cost(level);
        row.energy = detail::level_energy(level);
        a.rows.push_back(std::move(row));
    }
    // Throughput rises and flattens; the tail blows up. TTFT may do either (under an open-loop
    // overload it climbs fast and plateaus once every request queues), so its shape is detected.
    detail::check_validity(a, runs, levels); // before the knees: a distorting level is kept out of them
    a.knees.push_back(detail::knee_of(a, "throughput", s.param, "rps", knee_curve::concave));
    a.knees.push_back(detail::knee_of(a, "p99", s.param, "e2e.p99", knee_curve::convex));
    a.knees.push_back(detail::knee_of(a, "ttft", s.param, "ttft.p99", std::nullopt));
    a.knees.push_back(detail::knee_of(a, "tradeoff", "rps", "e2e.p99", knee_curve::convex));
    for (auto& k : a.knees) {
        detail::qualify_knee(a, k);
        k.threshold = detail::threshold_of(a, k, degradation);
        k.two_segment = detail::two_segment_of(a, k);
    }
    for (const auto& objective : slos) a.capacity.push_back(detail::capacity_for(a, levels, objective, slo_percentile));
    if (s.param == "concurrency" || s.param == "max_concurrency")
        for (std::size_t i = 0; i < a.rows.size(); ++i) {
            const auto rps = detail::level_value(levels[i], "rps"), mean = detail::level_value(levels[i], "e2e.mean");
            if (rps && mean && a.rows[i].load > 0 && std::isfinite(a.rows[i].load))
                a.little.push_back({a.rows[i].load, *rps * *mean, *rps * *mean / a.rows[i].load, *rps, *mean});
        }
    detail::add_validity_findings(a); // first: they say which numbers not to read as the server's
    detail::add_findings(a);
    return a;
}

} // namespace servestat
