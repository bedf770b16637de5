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

#include "servestat/stats/cost.hpp" // run_cost, cost_figure, find_cost_figure

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

} // namespace servestat
