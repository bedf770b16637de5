// Cost per token before and after (stats/cost.hpp): one number per run and side, like throughput, so
// there is no resampling; the change is shown with both sides' own intervals, and a verdict is given
// only when those intervals do not overlap. Overlapping intervals say the costs are not shown to
// differ, which is not the same as shown equal.
#pragma once

#include <optional>    // std::optional
#include <string>      // std::string
#include <string_view> // std::string_view
#include <utility>     // std::move
#include <vector>      // std::vector

#include "servestat/stats/cost.hpp"   // run_cost, cost_figure, find_cost_figure
#include "servestat/stats/energy.hpp" // run_energy

namespace servestat {

enum class cost_verdict { improved, regressed, not_shown_to_differ };

inline std::string_view to_string(cost_verdict v) noexcept {
    switch (v) {
    case cost_verdict::improved: return "improved";
    case cost_verdict::regressed: return "regressed";
    case cost_verdict::not_shown_to_differ: return "not_shown_to_differ";
    }
    return "?";
}

inline std::string_view describe(cost_verdict v) noexcept {
    return v == cost_verdict::not_shown_to_differ ? "not shown to differ" : to_string(v);
}

// One cost figure before and after.
struct cost_change {
    std::string name; // "per_1m_output", "per_1m_total", "per_1m_good_output"
    cost_figure before, after;
    std::optional<double> delta, relative; // after − before; after / before − 1
    cost_verdict result = cost_verdict::not_shown_to_differ;
};

// Lower costs less: improved when the after interval lies wholly below the before one.
inline cost_verdict judge_costs(const cost_figure& before, const cost_figure& after) {
    if (!before.ci || !after.ci) return cost_verdict::not_shown_to_differ;
    if (after.ci->high < before.ci->low) return cost_verdict::improved;
    if (after.ci->low > before.ci->high) return cost_verdict::regressed;
    return cost_verdict::not_shown_to_differ;
}

// The figures either side has, in order; none when neither side has a price.
inline std::vector<cost_change> compare_costs(const std::optional<run_cost>& before, const std::optional<run_cost>& after) {
    std::vector<cost_change> out;
    if (!before && !after) return out;
    for (const char* name : {"per_1m_output", "per_1m_total", "per_1m_good_output"}) {
        const cost_figure* b = before ? find_cost_figure(*before, name) : nullptr;
        const cost_figure* a = after ? find_cost_figure(*after, name) : nullptr;
        if (!b && !a) continue;
        cost_change c{name, b ? *b : cost_figure{}, a ? *a : cost_figure{}, std::nullopt, std::nullopt,
                      cost_verdict::not_shown_to_differ};
        if (c.before.value && c.after.value) {
            c.delta = *c.after.value - *c.before.value;
            c.relative = *c.after.value / *c.before.value - 1; // costs are positive
        }
        c.result = judge_costs(c.before, c.after);
        out.push_back(std::move(c));
    }
    return out;
}

// Energy per token before and after, judged as cost is (lower is better, a verdict only where the
// intervals do not overlap): J per output token, and per good output token where either side has it.
// Tokens per J is the first's inverse, so it adds no row.
inline std::vector<cost_change> compare_energy(const std::optional<run_energy>& before, const std::optional<run_energy>& after) {
    std::vector<cost_change> out;
    const auto figure = [](const std::optional<run_energy>& e, bool good) -> const cost_figure* {
        if (!e || !e->joules) return nullptr;
        return good ? (e->per_good_output_token ? &*e->per_good_output_token : nullptr) : &e->per_output_token;
    };
    for (const bool good : {false, true}) {
        const cost_figure *b = figure(before, good), *a = figure(after, good);
        if (!b && !a) continue;
        cost_change c{good ? "per_good_output_token" : "per_output_token", b ? *b : cost_figure{}, a ? *a : cost_figure{},
                      std::nullopt, std::nullopt, cost_verdict::not_shown_to_differ};
        if (c.before.value && c.after.value) {
            c.delta = *c.after.value - *c.before.value;
            c.relative = *c.after.value / *c.before.value - 1;
        }
        c.result = judge_costs(c.before, c.after);
        out.push_back(std::move(c));
    }
    return out;
}

} // namespace servestat
