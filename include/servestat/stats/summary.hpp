// Summary of one metric: count, moments and exact percentiles.
#pragma once

#include <algorithm> // std::min, std::max, std::min_element, std::max_element
#include <array>    // std::array
#include <cmath>    // std::sqrt, std::ilogb, std::ldexp
#include <cstddef>  // std::size_t
#include <optional> // std::optional
#include <span>     // std::span
#include <string>   // std::string
#include <utility>  // std::pair
#include <vector>   // std::vector

#include <fmt/format.h>                             // fmt::format

#include "servestat/core/errors.hpp"     // usage_error
#include "servestat/stats/compensated_sum.hpp" // compensated_sum
#include "servestat/stats/interval.hpp"  // interval
#include "servestat/stats/failed_percentiles.hpp" // plan_with_failed, evaluate_with_failed
#include "servestat/stats/percentile_interval.hpp" // percentile_interval, order_interval
#include "servestat/stats/quantile.hpp"  // percentiles_and_ranks_select, percentiles_and_ranks_of_parts, quantile_method
#include "servestat/stats/radix_select.hpp" // detail::extremes_over
#include "servestat/stats/student_t.hpp" // mean_t_interval

namespace servestat {

struct summary_options {
    quantile_method method = quantile_method::linear;
    int ddof = 1; // 1 = sample std (pandas, llmperf); 0 = population (numpy, vLLM)
    std::vector<double> percentiles{50, 90, 95, 99};
    double confidence = 0.95; // of the intervals of the percentiles and the mean
};

struct percentile_value {
    double p;                    // 0..100
    std::optional<double> value; // empty when n = 0
    // Distribution-free (order statistics, stats/percentile_interval.hpp), with coverage at least
    // summary_options::confidence; empty where n cannot bound the percentile (at 95%, a p99 of
    // fewer than 368 values has no upper end). From a sketch, the ends are widened by the sketch's
    // relative error so that they still hold the exact order statistics (summary::sketch_alpha).
    std::optional<interval> ci;
    // The same percentile counting summary::failed more values of +∞ (stats/failed_percentiles.hpp,
    // AIPerf's adj_p99): a number, or +∞ where it rests on a failure. Empty when none were counted.
    std::optional<double> with_failed;
    bool operator==(const percentile_value&) const = default;
};

// Statistics that need more values than there are (std with n <= ddof, anything with n = 0, cov
// with mean 0) are empty rather than a misleading number.
struct summary {
    std::size_t n = 0;
    std::optional<double> mean, std, cov, min, max;
    std::optional<interval> mean_ci; // Student's t at summary_options::confidence; empty below 2 values
    std::vector<percentile_value> percentiles;
    // Set when the percentiles were read from a sketch (the log did not fit in memory): each is then
    // within this relative error of the exact one. Empty: exact.
    std::optional<double> sketch_alpha;
    // Failed requests counted as +∞ in each percentile's with_failed (run_stats counts them for the
    // metrics failures_unbounded names); 0: none counted, and with_failed is empty.
    std::size_t failed = 0;
};

// "p50", "p99.9": the key a percentile has in JSON, templates and tables.
inline std::string percentile_key(double p) { return fmt::format("p{}", p); }

// The value of percentile p in a summary, when it was asked for and there were values.
inline std::optional<double> find_percentile(const summary& s, double p) {
    for (const auto& v : s.percentiles)
        if (v.p == p) return v.value;
    return std::nullopt;
}

inline void validate(const summary_options& o) {
    if (o.ddof < 0) throw usage_error("ddof must not be negative");
    for (double p : o.percentiles)
        if (!(p >= 0 && p <= 100)) throw usage_error("percentile " + fmt::format("{}", p) + " is outside 0..100");
    if (!(o.confidence > 0.5 && o.confidence < 1))
        throw usage_error(fmt::format("confidence {} is outside (0.5, 1)", o.confidence));
}

namespace detail {

// The smallest and largest of `xs` (not empty), kept in eight lanes as compensated_sum_of does:
// std::minmax_element branches on every value and took 2.8 ns a value, this 0.3.
inline std::pair<double, double> min_max(std::span<const double> xs) {
    constexpr std::size_t lanes = 8;
    std::array<double, lanes> low, high;
    low.fill(xs.front());
    high.fill(xs.front());
    const std::size_t whole = xs.size() / lanes * lanes;
    for (std::size_t i = 0; i < whole; i += lanes)
        for (std::size_t k = 0; k < lanes; ++k) {
            low[k] = std::min(low[k], xs[i + k]);
            high[k] = std::max(high[k], xs[i + k]);
        }
    for (std::size_t i = whole; i < xs.size(); ++i) {
        low[0] = std::min(low[0], xs[i]);
        high[0] = std::max(high[0], xs[i]);
    }
    return {*std::min_element(low.begin(), low.end()), *std::max_element(high.begin(), high.end())};
}

// The mean is a compensated sum over n, so it is within a rounding or two of the exact mean (a
// running sum drifts by up to n rounding errors). The variance takes a second pass over the
// deviations from that mean, with the corrected two-pass formula
//     Σ(x − m)² − (Σ(x − m))² / n,
// whose second term cancels the mean's own rounding error; both sums are compensated. Deviations are
// small numbers even when the values are not (times near 1e9 s on an epoch clock), so no digits are
// lost to the offset, and they are scaled by a power of two (exactly) so that their squares neither
// underflow nor overflow. min and max are values of the data, bit for bit.
// Over the values of all `parts` together (some non-empty); each part's compensated sums merge
// without losing either compensation.
inline void fill_moments(std::span<const std::span<const double>> parts, summary& out, int ddof, double confidence) {
    std::size_t n = 0;
    for (const auto part : parts) n += part.size();
    const auto [low, high] = *extremes_over(parts, min_max);
    out.min = low;
    out.max = high;
    const auto sum_over_parts = [&](auto f) {
        if (parts.size() == 1) return compensated_sum_of(parts[0], f).value();
        compensated_sum total;
        for (const auto part : parts) total.merge(compensated_sum_of(part, f));
        return total.value();
    };
    const double mean = sum_over_parts([](double x) { return x; }) / static_cast<double>(n);
    out.mean = mean;
    // The mean's interval needs the sample spread (ddof 1) whatever ddof the reported std uses.
    if (n <= static_cast<std::size_t>(ddof) && n < 2) return;
    const double widest = std::max(high - mean, mean - low);
    const int exponent = widest > 0 ? std::max(std::ilogb(widest), -1022) : 0; // 2^-exponent stays finite
    const double scale = std::ldexp(1.0, -exponent);
    const double d = sum_over_parts([&](double x) { return (x - mean) * scale; });
    const double squares = sum_over_parts([&](double x) {
        const double deviation = (x - mean) * scale;
        return deviation * deviation;
    });
    const double sum_of_squares = std::max(0.0, squares - d * d / static_cast<double>(n));
    const auto spread = [&](std::size_t dof) { return std::ldexp(std::sqrt(sum_of_squares / static_cast<double>(n - dof)), exponent); };
    if (n > static_cast<std::size_t>(ddof)) {
        out.std = spread(static_cast<std::size_t>(ddof));
        if (mean != 0) out.cov = *out.std / mean;
    }
    if (n >= 2) out.mean_ci = mean_t_interval(mean, ddof == 1 ? *out.std : spread(1), n, confidence);
}

inline void fill_moments(std::span<const double> xs, summary& out, int ddof, double confidence) {
    fill_moments(std::span<const std::span<const double>>(&xs, 1), out, ddof, confidence);
}

// The 0-based ranks of the ends of each percentile's interval among n values (two per percentile
// that has one, in the order of `ps`), to be selected with the percentiles themselves.
inline std::vector<std::optional<order_interval>> percentile_intervals(std::size_t n, std::span<const double> ps, double confidence,
                                                                      std::vector<std::size_t>& ranks) {
    std::vector<std::optional<order_interval>> out;
    out.reserve(ps.size());
    for (double p : ps) {
        out.push_back(percentile_interval(n, p, confidence));
        if (out.back()) {
            ranks.push_back(out.back()->lower);
            ranks.push_back(out.back()->upper);
        }
    }
    return out;
}

// Fills out.percentiles from a selection of the percentiles and of the ranks percentile_intervals gave.
inline void fill_percentiles(summary& out, std::span<const double> ps, std::span<const std::optional<order_interval>> intervals,
                             const percentiles_and_ranks& selected) {
    std::size_t next = 0;
    for (std::size_t k = 0; k < ps.size(); ++k) {
        std::optional<interval> ci;
        if (intervals[k]) {
            ci = interval{selected.ranked[next], selected.ranked[next + 1]};
            next += 2;
        }
        out.percentiles.push_back({ps[k], selected.percentiles[k], ci});
    }
}

// Each percentile's with_failed, from the successes' order statistics the same selection found.
inline void fill_with_failed(const failed_percentile_plan& plan, std::span<const double> ranked, summary& out) {
    if (plan.plans.empty()) return;
    out.failed = plan.failed;
    const auto values = evaluate_with_failed(plan, ranked);
    for (std::size_t k = 0; k < values.size(); ++k) out.percentiles[k].with_failed = values[k];
}

// The percentiles of out.n values, their intervals and their with_failed, all from one selection:
// `select(ranks)` finds the percentiles and the order statistics at `ranks` (the intervals' ends,
// then the ranks the failure-counting percentiles read).
template <class Select>
void fill_percentiles_selected(summary& out, const summary_options& o, std::size_t failed, Select&& select) {
    std::vector<std::size_t> ranks;
    const auto intervals = percentile_intervals(out.n, o.percentiles, o.confidence, ranks);
    const std::size_t interval_ranks = ranks.size();
    const auto with_failed = plan_with_failed(out.n, failed, o.percentiles, o.method);
    ranks.insert(ranks.end(), with_failed.ranks.begin(), with_failed.ranks.end());
    const auto selected = select(std::span<const std::size_t>(ranks));
    fill_percentiles(out, o.percentiles, intervals, selected);
    fill_with_failed(with_failed, std::span<const double>(selected.ranked).subspan(interval_ranks), out);
}

} // namespace detail

// Summarises `values`, reordering them in place (percentiles are found by selection, not a sort;
// the ends of their intervals are more ranks of the same selection).
// `failed`: requests without a value because they failed, counted as +∞ in each percentile's
// with_failed (0: not counted); their ranks are more positions of the same selection.
inline summary summarize_in_place(std::span<double> values, const summary_options& o = {}, std::size_t failed = 0) {
    validate(o);
    summary out;
    out.n = values.size();
    out.percentiles.reserve(o.percentiles.size());
    if (values.empty()) {
        for (double p : o.percentiles) out.percentiles.push_back({p, std::nullopt});
        return out;
    }
    detail::fill_moments(values, out, o.ddof, o.confidence);
    detail::fill_percentiles_selected(out, o, failed, [&](std::span<const std::size_t> ranks) {
        return percentiles_and_ranks_select(values, o.percentiles, ranks, o.method, std::pair{*out.min, *out.max});
    });
    return out;
}

// The summary of the values of all `parts` together, as summarize would give it of them in one list
// (sums may differ in the last bit: they are added in another order). The parts are left as they are.
inline summary summarize_parts(std::span<const std::span<const double>> parts, const summary_options& o = {},
                               std::size_t failed = 0) {
    validate(o);
    summary out;
    for (const auto part : parts) out.n += part.size();
    out.percentiles.reserve(o.percentiles.size());
    if (out.n == 0) {
        for (double p : o.percentiles) out.percentiles.push_back({p, std::nullopt});
        return out;
    }
    detail::fill_moments(parts, out, o.ddof, o.confidence);
    detail::fill_percentiles_selected(out, o, failed, [&](std::span<const std::size_t> ranks) {
        return percentiles_and_ranks_of_parts(parts, o.percentiles, ranks, o.method, std::pair{*out.min, *out.max});
    });
    return out;
}

inline summary summarize(std::span<const double> values, const summary_options& o = {}) {
    std::vector<double> copy(values.begin(), values.end());
    return summarize_in_place(copy, o);
}

} // namespace servestat
