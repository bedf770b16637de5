// What a before/after change of one statistic means: improved, regressed, no significant change,
// within noise, or not decidable (too few requests, a single measurement, or a side known by its
// sketches only, which holds no requests to resample or rank). criterion.rs' two gates:
// the shift is significant AND its whole confidence interval lies beyond the noise band.
#pragma once

#include <cmath>       // std::ceil, std::log, std::max
#include <cstddef>     // std::size_t
#include <optional>    // std::optional
#include <string_view> // std::string_view

#include "servestat/core/errors.hpp"     // usage_error
#include "servestat/stats/bootstrap.hpp" // interval

namespace servestat {

enum class verdict { improved, regressed, no_change, within_noise, too_few, single, untested };

// The key in JSON and for --fail-on.
inline std::string_view to_string(verdict v) noexcept {
    switch (v) {
    case verdict::improved: return "improved";
    case verdict::regressed: return "regressed";
    case verdict::no_change: return "no_change";
    case verdict::within_noise: return "within_noise";
    case verdict::too_few: return "too_few";
    case verdict::single: return "single";
    case verdict::untested: return "untested";
    }
    return "?";
}

// The words a report prints.
inline std::string_view describe(verdict v) noexcept {
    switch (v) {
    case verdict::improved: return "improved";
    case verdict::regressed: return "regressed";
    case verdict::no_change: return "no significant change";
    case verdict::within_noise: return "within noise";
    case verdict::too_few: return "too few requests";
    case verdict::single: return "single measurement";
    case verdict::untested: return "untested: needs logs";
    }
    return "?";
}

struct verdict_options {
    double noise = 0.02;       // relative band around 0 that counts as no change (criterion.rs: 1%)
    double alpha = 0.05;       // significance level of the p-value
    double confidence = 0.95;  // of the change's interval, and of the small-sample rule
};

inline void validate(const verdict_options& o) {
    if (!(o.noise >= 0 && o.noise < 1)) throw usage_error("--noise must lie in [0%, 100%)");
    if (!(o.alpha > 0 && o.alpha < 1)) throw usage_error("--alpha must lie between 0 and 1");
    if (!(o.confidence > 0.5 && o.confidence < 1)) throw usage_error("confidence must lie between 0.5 and 1");
}

// The fewest requests per side for which percentile p (0..100) has a distribution-free
// order-statistic bound at this confidence: the sample's extreme covers the p-quantile with
// probability 1 - max(p, 1-p)^n, so n ≥ ln(1 - confidence) / ln(max(p, 1-p)). 95%: p99 needs 299,
// p99.9 needs 2995, p50 needs 5. The minimum and maximum (p 0 or 100) are never bounded.
inline std::optional<std::size_t> fewest_requests_for(double p, double confidence = 0.95) {
    const double tail = std::max(p, 100 - p) / 100;
    if (tail >= 1) return std::nullopt;
    return static_cast<std::size_t>(std::ceil(std::log(1 - confidence) / std::log(tail)));
}

// The evidence on a change of a statistic: p from the distribution test, the interval of the
// relative change (after / before - 1). When the baseline is zero there is no relative change (and
// a mean's when its own interval reaches 0: Fieller's ratio is unbounded), and the interval of the
// absolute change decides with no noise band.
struct change_evidence {
    double p_value = 1;
    std::optional<interval> relative_ci;
    std::optional<interval> delta_ci;
    bool lower_is_better = true;
    // A percentile's interval (from both sides' order statistics, its coverage exact) is its own test
    // and decides alone: the Mann–Whitney test asks whether the whole distribution shifted, which a
    // tail that moved while the bulk did not never shows, so "+61% (+47% to +72%): no significant
    // change" would be read as a contradiction. Means and shares keep both gates.
    bool interval_alone = false;
};

inline verdict decide(const change_evidence& e, const verdict_options& o) {
    if (!e.interval_alone && !(e.p_value < o.alpha)) return verdict::no_change;
    const std::optional<interval>& ci = e.relative_ci ? e.relative_ci : e.delta_ci;
    if (!ci) return verdict::no_change;
    if (e.interval_alone && ci->low <= 0 && ci->high >= 0) return verdict::no_change;
    const double band = e.relative_ci ? o.noise : 0.0;
    const bool higher = ci->low > band, lower = ci->high < -band;
    if (!higher && !lower) return verdict::within_noise;
    return higher == e.lower_is_better ? verdict::regressed : verdict::improved;
}

} // namespace servestat
