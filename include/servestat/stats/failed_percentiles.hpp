// Percentiles that count failed requests as unbounded: the value a percentile takes when each
// failed, timed-out or cancelled request is given the latency +∞ (AIPerf's adj_p50 … adj_p99).
// A run that times out its slowest requests drops exactly the values that make its tail, so its
// successes-only p99 looks faster than what its users saw; this one cannot.
//
// With n successes and k failures the percentile of the n + k values reads the order statistics
// numpy's plan over n + k names (stats/quantile.hpp, all 13 methods). The failures are the k
// largest values, at positions n … n+k−1. If the plan gives nonzero weight to any of them, the
// value is +∞; otherwise every position it reads is a success's, and the value is the successes'
// own order statistic(s), combined exactly as numpy combines them. Those ranks are selected in the
// same pass as the successes' percentiles (percentiles_and_ranks_select): no sort, no second pass.
//
// Where numpy itself meets +∞ it gives NaN in two cases this does not: interpolating towards +∞
// with weight 0 (numpy computes (inf − a) · 0 = NaN; here the value is the finite order statistic
// it rests on, which is what the formula means), and with weight ≥ 0.5 or between two infinities
// (inf − inf = NaN; here +∞). Wherever numpy's value is a number, this is the same number, bit for bit.
#pragma once

#include <cstddef>  // std::size_t
#include <limits>   // std::numeric_limits
#include <optional> // std::optional
#include <span>     // std::span
#include <vector>   // std::vector

#include "servestat/stats/quantile.hpp" // quantile_method, detail::plan_quantile, detail::evaluate_plan, percentiles_and_ranks_select

namespace servestat {

namespace detail {

// The plan over n successes and `failed` values of +∞, when it reads successes only: its positions
// are then ranks among the successes. None when it gives a +∞ nonzero weight.
inline std::optional<quantile_plan> plan_with_unbounded(std::size_t n, std::size_t failed, double q, quantile_method m) noexcept {
    quantile_plan plan = plan_quantile(n + failed, q, m);
    if (plan.lower >= n) return std::nullopt; // y[lower] is +∞, whatever its weight (numpy: +∞ or NaN)
    if (plan.upper < n) return plan;          // every value read is a success's: numpy's own arithmetic
    // upper is a failure and lower a success: lerp(a, +∞, γ) is +∞ for γ > 0 and a for γ = 0.
    if (plan.interpolate && plan.gamma > 0) return std::nullopt;
    return quantile_plan{plan.lower, plan.lower, 0.0, false};
}

} // namespace detail

// Which order statistics of the successes the percentiles counting failures read, and how.
struct failed_percentile_plan {
    std::size_t failed = 0;
    std::vector<std::optional<detail::quantile_plan>> plans; // one per percentile; none: +∞
    std::vector<std::size_t> ranks;                          // ranks among the successes they read
};

// Empty (no plans, no ranks) when there is nothing to count: no failures, or no successes to rank
// (a metric no successful request measured has no percentile either way).
inline failed_percentile_plan plan_with_failed(std::size_t n, std::size_t failed, std::span<const double> ps,
                                               quantile_method m) {
    failed_percentile_plan out;
    if (failed == 0 || n == 0) return out;
    out.failed = failed;
    out.plans.reserve(ps.size());
    for (double p : ps) {
        auto plan = detail::plan_with_unbounded(n, failed, detail::percent_to_probability(p, "plan_with_failed"), m);
        if (plan) {
            out.ranks.push_back(plan->lower);
            if (plan->upper != plan->lower) out.ranks.push_back(plan->upper);
        }
        out.plans.push_back(plan);
    }
    return out;
}

// The percentiles counting failures, from the order statistics of plan.ranks (`ranked`, in that
// order): +∞ where a plan reads a failure.
inline std::vector<double> evaluate_with_failed(const failed_percentile_plan& plan, std::span<const double> ranked) {
    std::vector<double> out;
    out.reserve(plan.plans.size());
    std::size_t next = 0;
    for (const auto& p : plan.plans) {
        if (!p) {
            out.push_back(std::numeric_limits<double>::infinity());
            continue;
        }
        // The ranks were listed plan by plan, lower then upper (when it differs).
        detail::quantile_plan local = *p;
        local.lower = next++;
        local.upper = p->upper == p->lower ? local.lower : next++;
        out.push_back(detail::evaluate_plan(local, ranked));
    }
    return out;
}

// The percentiles of `values` (the successes, reordered in place) with `failed` more values of +∞:
// numpy's np.percentile(np.append(values, [np.inf] * failed), ps, method=m) wherever that is a
// number. Empty when failed is 0 or values is empty.
inline std::vector<double> percentiles_with_failed(std::span<double> values, std::size_t failed, std::span<const double> ps,
                                                   quantile_method m = quantile_method::linear) {
    const auto plan = plan_with_failed(values.size(), failed, ps, m);
    if (plan.plans.empty()) return {};
    return evaluate_with_failed(plan, percentiles_and_ranks_select(values, {}, plan.ranks, m).ranked);
}

} // namespace servestat
