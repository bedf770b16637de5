// The search of a server tune (issue 51): which configurations of a tune space to measure next,
// decided from the measurements so far, and, once the search ends, its answer: the best
// configuration, the runner-up, whether the two are told apart, and every measured configuration's
// status with the reason. Pure logic: `plan_tune` is a function of the space, the measurements and the
// budget left, so the same logs give the same decisions, and it is tested on synthetic landscapes
// without a server. docs/tune.md.
//
// 1. The spread: the centre of the space, then the corners of the box at the first and third
//    quartiles of each dimension's values (a two-level factorial, 2^d points): each dimension is seen
//    at two settings with the others at both of theirs, so an interaction shows, and the edges, where
//    batch settings are usually worst (too few sequences to batch, too many for the memory), are left
//    to the refinement, which walks there when the best lies there. 5 configurations in 2-D, 9 in 3-D.
// 2. The refinement: the best configuration's neighbours (one value away along one dimension) that
//    are not measured yet, all of them; repeated with the new best until the best has none left. On a
//    landscape that rises towards one peak along every dimension this walks to the peak.
// 3. The leaders: while another configuration's interval overlaps the best's, the one of the two (the
//    best or such a contender) with the fewest runs is measured again, until every other
//    configuration's interval lies wholly on the worse side of the best's, or the budget is spent.
// A configuration's runs combine into one estimate (`combine_runs`); a configuration is infeasible when
// any run of it was (a setting that fails once is no setting to recommend) and is never run again.
#pragma once

#include <algorithm> // std::max, std::find
#include <cmath>     // std::isfinite, std::sqrt, std::abs
#include <cstddef>   // std::size_t
#include <map>       // std::map
#include <optional>  // std::optional
#include <span>      // std::span
#include <string>    // std::string
#include <utility>   // std::move
#include <vector>    // std::vector

#include <fmt/format.h> // fmt::format

#include "servestat/core/errors.hpp"     // usage_error
#include "servestat/load/tune_space.hpp" // tune_space, tune_point, grid_size, in_space, neighbours_of, configuration_name
#include "servestat/stats/interval.hpp"  // interval
#include "servestat/stats/run_spread.hpp" // spread_of_runs, fewest_runs_as_unit

namespace servestat::load {

// Capacity and throughput are better higher; a cost per good token is better lower.
enum class objective_direction { higher_is_better, lower_is_better };

struct tune_settings {
    objective_direction direction = objective_direction::higher_is_better;
    double confidence = 0.95; // of every run's interval, and of the intervals combined from several runs
};

// One run of one configuration: the objective with its interval at the settings' confidence, or why
// the configuration could not be measured (the server crashed, ran out of memory, never got ready).
struct tune_measurement {
    tune_point at;
    std::optional<double> value; // empty: infeasible
    interval ci;                 // holds value
    std::string infeasible;      // why there is no value
};

// A configuration's runs taken together.
struct tune_estimate {
    std::size_t runs = 0;
    double mean = 0;
    interval ci;
};

// What a measured configuration is to the search.
enum class tune_status {
    best,       // the best estimate
    kept,       // its interval overlaps the best's: it may still be the best
    dropped,    // its interval lies wholly on the worse side of the best's
    infeasible, // a run of it failed
};

struct tune_verdict {
    tune_point at;
    std::string name; // as --grid names it
    std::size_t runs = 0;
    std::optional<tune_estimate> estimate; // empty when infeasible
    tune_status status = tune_status::kept;
    std::string why; // "its interval 20–24 lies wholly below the best's 34–41", "infeasible: out of memory"
};

enum class tune_step { spread, refine, remeasure };

struct tune_proposal {
    tune_point at;
    tune_step step = tune_step::spread;
    std::string why; // "spread 1/5 (the centre)", "refine around …", "re-measure …"
};

// Why the search ended.
enum class tune_end {
    searching,        // not yet: `next` says what to measure
    settled,          // the best has no unmeasured neighbour and every other interval lies below its own
    budget,           // the budget is spent
    nothing_feasible, // the spread is measured and no configuration measured was feasible
};

struct tune_plan {
    std::vector<tune_proposal> next; // what to measure, in order; empty once the search has ended
    tune_end end = tune_end::searching;
    std::vector<tune_verdict> verdicts;         // every measured configuration, in the grid's order
    std::optional<std::size_t> best, runner_up; // indices into verdicts: the two best estimates
    // No other feasible configuration's interval overlaps the best's (true with no other at all).
    bool distinguishable = false;
    std::size_t measured = 0, grid = 0; // configurations measured, of the grid's
    std::string conclusion;             // one sentence: where the search stands or what it found
    bool done() const { return end != tune_end::searching; }
};

inline const char* to_string(tune_status s) noexcept {
    switch (s) {
    case tune_status::best: return "best";
    case tune_status::kept: return "kept";
    case tune_status::dropped: return "dropped";
    case tune_status::infeasible: return "infeasible";
    }
    return "?";
}

inline const char* to_string(tune_step s) noexcept {
    switch (s) {
    case tune_step::spread: return "spread";
    case tune_step::refine: return "refine";
    case tune_step::remeasure: return "remeasure";
    }
    return "?";
}

inline const char* to_string(tune_end e) noexcept {
    switch (e) {
    case tune_end::searching: return "searching";
    case tune_end::settled: return "settled";
    case tune_end::budget: return "budget";
    case tune_end::nothing_feasible: return "nothing_feasible";
    }
    return "?";
}

// The runs of one configuration (all feasible) as one estimate: the mean of the runs' values, and
//   1 run:   its own interval;
//   2 runs:  the mean ± the larger of the runs' own error of the mean, √(Σ hᵢ²) / n (hᵢ a run's
//            half-width), and half the two values' distance: two runs say too little of their spread
//            for Student's t (t*(1) = 12.7 at 95%), but an interval narrower than the runs' own
//            disagreement would claim what they do not show;
//   3 or more: the mean ± the larger of √(Σ hᵢ²) / n and Student's t over the runs
//            (stats/run_spread.hpp): runs share no server state, so their spread is the noise a
//            request-level interval cannot see, and the runs' own error bounds it below when they
//            agree by chance.
inline tune_estimate combine_runs(std::span<const tune_measurement> runs, double confidence = 0.95) {
    if (runs.empty()) throw usage_error("tune: no runs to combine");
    std::vector<double> values;
    for (const auto& r : runs) {
        if (!r.value) throw usage_error("tune: an infeasible run has no value to combine");
        values.push_back(*r.value);
    }
    if (runs.size() == 1) return {1, values[0], runs[0].ci};
    const double n = static_cast<double>(runs.size());
    double sum = 0, squares = 0;
    for (const auto& r : runs) {
        sum += *r.value;
        const double half = (r.ci.high - r.ci.low) / 2;
        squares += half * half;
    }
    const double mean = sum / n;
    double half = std::sqrt(squares) / n;
    if (runs.size() < fewest_runs_as_unit) {
        half = std::max(half, std::abs(values[1] - values[0]) / 2);
    } else if (const auto spread = spread_of_runs(values, confidence); spread && spread->mean_ci) {
        half = std::max(half, (spread->mean_ci->high - spread->mean_ci->low) / 2);
    }
    return {runs.size(), mean, {mean - half, mean + half}};
}

namespace detail {

inline std::string tune_number(double x) { return fmt::format("{:.4g}", x); }

// "20–24".
inline std::string interval_text(const interval& ci) { return tune_number(ci.low) + "–" + tune_number(ci.high); }

// "37.5 (34–41)".
inline std::string estimate_text(const tune_estimate& e) { return tune_number(e.mean) + " (" + interval_text(e.ci) + ")"; }

inline bool better(double a, double b, objective_direction d) {
    return d == objective_direction::higher_is_better ? a > b : a < b;
}

inline bool overlap(const interval& a, const interval& b) { return a.low <= b.high && b.low <= a.high; }

// The third quartile's index among n values, halves rounded up: round(0.75 · 6) = round(4.5) = 5 for
// 7 values. The first quartile is its mirror (6 − 5 = 1), so the box is centred on the space.
inline std::size_t third_quartile_index(std::size_t n) {
    const std::size_t last = n == 0 ? 0 : n - 1;
    return (3 * last + 2) / 4;
}

// The centre (index ⌊(n − 1)/2⌋ of each dimension: the lower of two middles), then the corners of the
// quartile box in the grid's order, without repeats (a dimension of one or two values has fewer
// distinct quartiles).
inline std::vector<tune_point> spread_points(const tune_space& space) {
    const std::size_t d = space.dimensions.size();
    tune_point centre(d);
    std::vector<std::size_t> low(d), high(d);
    for (std::size_t k = 0; k < d; ++k) {
        const std::size_t n = space.dimensions[k].values.size();
        centre[k] = n == 0 ? 0 : (n - 1) / 2;
        high[k] = third_quartile_index(n);
        low[k] = (n == 0 ? 0 : n - 1) - high[k];
    }
    std::vector<tune_point> out{centre};
    std::vector<tune_point> corners{tune_point{}};
    for (std::size_t k = 0; k < d; ++k) {
        std::vector<tune_point> next;
        for (const auto& partial : corners)
            for (const std::size_t i : {low[k], high[k]}) {
                auto p = partial;
                p.push_back(i);
                if (std::find(next.begin(), next.end(), p) == next.end()) next.push_back(std::move(p));
            }
        corners = std::move(next);
    }
    for (auto& c : corners)
        if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(std::move(c));
    return out;
}

inline void check_measurement(const tune_space& space, const tune_measurement& m) {
    if (!in_space(space, m.at)) throw usage_error("tune: a measurement of a configuration outside the --space");
    const auto name = configuration_name(space, m.at);
    if (!m.value) {
        if (m.infeasible.empty()) throw usage_error(fmt::format("tune: {}: a run without a value needs the reason", name));
        return;
    }
    if (!std::isfinite(*m.value) || !std::isfinite(m.ci.low) || !std::isfinite(m.ci.high) || m.ci.low > *m.value ||
        *m.value > m.ci.high)
        throw usage_error(fmt::format("tune: {}: the value {} must be finite and lie in its interval {}", name,
                                      tune_number(*m.value), interval_text(m.ci)));
}

// Each measured configuration with its runs, in the grid's order.
inline std::map<tune_point, std::vector<tune_measurement>> runs_by_configuration(const tune_space& space,
                                                                                   std::span<const tune_measurement> measured) {
    std::map<tune_point, std::vector<tune_measurement>> out;
    for (const auto& m : measured) {
        check_measurement(space, m);
        out[m.at].push_back(m);
    }
    return out;
}

inline tune_verdict verdict_of(const tune_space& space, const tune_point& at, const std::vector<tune_measurement>& runs,
                               double confidence) {
    tune_verdict v{at, configuration_name(space, at), runs.size(), std::nullopt, tune_status::kept, {}};
    std::size_t failed = 0;
    for (const auto& r : runs)
        if (!r.value) {
            if (failed++ == 0) v.why = "infeasible: " + r.infeasible;
        }
    if (failed > 0) {
        v.status = tune_status::infeasible;
        if (failed < runs.size()) v.why += fmt::format(" (in {} of {} runs)", failed, runs.size());
        return v;
    }
    v.estimate = combine_runs(runs, confidence);
    return v;
}

// The index of the best estimate among the verdicts, skipping `except`; the grid's order breaks ties.
inline std::optional<std::size_t> best_verdict(const std::vector<tune_verdict>& verdicts, objective_direction d,
                                               std::optional<std::size_t> except = std::nullopt) {
    std::optional<std::size_t> out;
    for (std::size_t i = 0; i < verdicts.size(); ++i) {
        if (!verdicts[i].estimate || i == except) continue;
        if (!out || better(verdicts[i].estimate->mean, verdicts[*out].estimate->mean, d)) out = i;
    }
    return out;
}

// Marks each feasible verdict best, kept or dropped against the best's interval, with the reason.
inline void judge_against_best(std::vector<tune_verdict>& verdicts, std::size_t best, objective_direction d) {
    const auto& top = *verdicts[best].estimate;
    const char* side = d == objective_direction::higher_is_better ? "below" : "above";
    for (std::size_t i = 0; i < verdicts.size(); ++i) {
        auto& v = verdicts[i];
        if (!v.estimate) continue;
        const auto& ci = v.estimate->ci;
        if (i == best) {
            v.status = tune_status::best;
            v.why = fmt::format("the best estimate: {}", estimate_text(top));
        } else if (overlap(ci, top.ci)) {
            v.status = tune_status::kept;
            v.why = fmt::format("its interval {} overlaps the best's {}", interval_text(ci), interval_text(top.ci));
        } else {
            v.status = tune_status::dropped;
            v.why = fmt::format("its interval {} lies wholly {} the best's {}", interval_text(ci), side, interval_text(top.ci));
        }
    }
}

inline bool measured(const std::map<tune_point, std::vector<tune_measurement>>& runs, const tune_point& at) {
    return runs.find(at) != runs.end();
}

// The configuration among the best and the kept ones to run again: the fewest runs first, then the
// widest interval, then the best, then the grid's order.
inline std::size_t leader_to_remeasure(const std::vector<tune_verdict>& verdicts, std::size_t best) {
    std::size_t pick = best;
    const auto width = [&](std::size_t i) { return verdicts[i].estimate->ci.high - verdicts[i].estimate->ci.low; };
    for (std::size_t i = 0; i < verdicts.size(); ++i) {
        if (verdicts[i].status != tune_status::kept) continue;
        const bool fewer = verdicts[i].runs < verdicts[pick].runs;
        const bool wider = verdicts[i].runs == verdicts[pick].runs && width(i) > width(pick);
        if (fewer || wider) pick = i;
    }
    return pick;
}

// What to measure next, before the budget is applied: the spread's unmeasured points, else the
// best's unmeasured neighbours, else one leader while the best is not told apart; nothing once settled.
inline std::vector<tune_proposal> proposals(const tune_space& space,
                                            const std::map<tune_point, std::vector<tune_measurement>>& runs,
                                            const tune_plan& standing) {
    std::vector<tune_proposal> out;
    const auto spread = spread_points(space);
    for (std::size_t i = 0; i < spread.size(); ++i)
        if (!measured(runs, spread[i]))
            out.push_back({spread[i], tune_step::spread,
                           fmt::format("spread {}/{}{}", i + 1, spread.size(), i == 0 ? " (the centre)" : " (a quartile corner)")});
    if (!out.empty() || !standing.best) return out;
    const auto& best = standing.verdicts[*standing.best];
    for (auto& n : neighbours_of(space, best.at))
        if (!measured(runs, n))
            out.push_back({std::move(n), tune_step::refine,
                           fmt::format("refine around {}, the best so far at {}", best.name, estimate_text(*best.estimate))});
    if (!out.empty() || standing.distinguishable) return out;
    const std::size_t pick = leader_to_remeasure(standing.verdicts, *standing.best);
    const auto& leader = standing.verdicts[pick];
    std::string why;
    if (pick == *standing.best) {
        std::string others;
        for (const auto& v : standing.verdicts)
            if (v.status == tune_status::kept) others += (others.empty() ? "" : ", ") + v.name;
        why = fmt::format("re-measure the best, {} (run {}): its interval {} overlaps those of {}", leader.name,
                          leader.runs + 1, interval_text(leader.estimate->ci), others);
    } else {
        why = fmt::format("re-measure {} (run {}): {}", leader.name, leader.runs + 1, leader.why);
    }
    out.push_back({leader.at, tune_step::remeasure, std::move(why)});
    return out;
}

// Names of the kept configurations: "a, b".
inline std::string kept_names(const std::vector<tune_verdict>& verdicts) {
    std::string out;
    for (const auto& v : verdicts)
        if (v.status == tune_status::kept) out += (out.empty() ? "" : ", ") + v.name;
    return out;
}

inline std::string conclusion_of(const tune_plan& p) {
    const std::string counted = fmt::format("{} of {} configurations measured", p.measured, p.grid);
    if (!p.best) {
        if (p.end == tune_end::budget) return fmt::format("the budget is spent with no feasible configuration; {}", counted);
        if (p.end == tune_end::nothing_feasible) return fmt::format("no configuration measured was feasible; {}", counted);
        return fmt::format("no feasible configuration yet; {}", counted);
    }
    const auto& best = p.verdicts[*p.best];
    const std::string runner = p.runner_up ? fmt::format("; runner-up {} at {}", p.verdicts[*p.runner_up].name,
                                                         estimate_text(*p.verdicts[*p.runner_up].estimate))
                                           : std::string("; no other configuration was feasible");
    const std::string apart = p.distinguishable ? "told apart from every other configuration measured"
                                                : "not told apart from " + kept_names(p.verdicts);
    switch (p.end) {
    case tune_end::settled:
        return fmt::format("{} is the best at {}, {}{}; {}", best.name, estimate_text(*best.estimate), apart, runner, counted);
    case tune_end::budget:
        return fmt::format("the budget is spent: {} leads at {}, {}{}; {}", best.name, estimate_text(*best.estimate), apart,
                           runner, counted);
    default:
        return fmt::format("{} leads so far at {}, {}{}; {}", best.name, estimate_text(*best.estimate), apart, runner, counted);
    }
}

} // namespace detail

// The next configurations to measure, or the search's answer. `measured` holds every run so far (in
// any order: the plan depends on the runs, not on their order); `budget_left` is how many more runs
// may be made, and `next` never holds more. The caller measures `next` in order and asks again (after
// each run or after all of them: either way the plan is a function of what has been measured).
inline tune_plan plan_tune(const tune_space& space, std::span<const tune_measurement> measured, std::size_t budget_left,
                           const tune_settings& s = {}) {
    if (space.dimensions.empty()) throw usage_error("tune: the space has no dimension");
    for (const auto& d : space.dimensions)
        if (d.values.empty()) throw usage_error(fmt::format("tune: --space {} has no value", d.key));
    if (!(s.confidence > 0 && s.confidence < 1))
        throw usage_error(fmt::format("tune: the confidence {:g} must lie between 0 and 1", s.confidence));
    const auto runs = detail::runs_by_configuration(space, measured);
    tune_plan plan;
    plan.grid = grid_size(space);
    plan.measured = runs.size();
    for (const auto& [at, r] : runs) plan.verdicts.push_back(detail::verdict_of(space, at, r, s.confidence));
    plan.best = detail::best_verdict(plan.verdicts, s.direction);
    if (plan.best) {
        plan.runner_up = detail::best_verdict(plan.verdicts, s.direction, plan.best);
        detail::judge_against_best(plan.verdicts, *plan.best, s.direction);
        plan.distinguishable = detail::kept_names(plan.verdicts).empty();
    }
    auto next = detail::proposals(space, runs, plan);
    if (next.empty()) {
        plan.end = plan.best ? tune_end::settled : tune_end::nothing_feasible;
    } else if (budget_left == 0) {
        plan.end = tune_end::budget;
    } else {
        if (next.size() > budget_left) next.resize(budget_left);
        plan.next = std::move(next);
    }
    plan.conclusion = detail::conclusion_of(plan);
    return plan;
}

} // namespace servestat::load
