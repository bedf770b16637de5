// Summary of one metric: count, moments and exact percentiles.
#pragma once

#include <cmath>    // std::sqrt
#include <cstddef>  // std::size_t
#include <optional> // std::optional
#include <span>     // std::span
#include <string>   // std::string
#include <vector>   // std::vector

#include <boost/accumulators/accumulators.hpp>      // accumulator_set
#include <boost/accumulators/statistics/count.hpp>  // tag::count
#include <boost/accumulators/statistics/max.hpp>    // tag::max
#include <boost/accumulators/statistics/mean.hpp>   // tag::mean
#include <boost/accumulators/statistics/min.hpp>    // tag::min
#include <boost/accumulators/statistics/stats.hpp>  // stats<>
#include <boost/accumulators/statistics/sum.hpp>    // tag::sum
#include <boost/accumulators/statistics/variance.hpp> // tag::variance (immediate form)
#include <fmt/format.h>                             // fmt::format

#include "servestat/core/errors.hpp"     // usage_error
#include "servestat/stats/quantile.hpp"  // percentiles_select, quantile_method

namespace servestat {

struct summary_options {
    quantile_method method = quantile_method::linear;
    int ddof = 1; // 1 = sample std (pandas, llmperf); 0 = population (numpy, vLLM)
    std::vector<double> percentiles{50, 90, 95, 99};
};

struct percentile_value {
    double p;                    // 0..100
    std::optional<double> value; // empty when n = 0
};

// Statistics that need more values than there are (std with n <= ddof, anything with n = 0, cov
// with mean 0) are empty rather than a misleading number.
struct summary {
    std::size_t n = 0;
    std::optional<double> mean, std, cov, min, max;
    std::vector<percentile_value> percentiles;
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
}

namespace detail {

namespace acc = boost::accumulators;
using moments_set = acc::accumulator_set<
    double, acc::stats<acc::tag::count, acc::tag::sum, acc::tag::mean, acc::tag::min, acc::tag::max,
                       acc::tag::variance>>;

// Boost's variance is the immediate (Welford-style) update, which loses digits when the values sit
// far from zero (times near 1e9 s on an epoch clock). Accumulating x - pivot keeps the
// numbers small; variance is shift-invariant and the pivot is added back to mean, min and max.
inline void fill_moments(std::span<const double> xs, summary& out, int ddof) {
    const double pivot = xs.front();
    moments_set moments;
    for (double x : xs) moments(x - pivot);
    const auto n = acc::count(moments);
    out.mean = pivot + acc::mean(moments);
    out.min = pivot + acc::min(moments);
    out.max = pivot + acc::max(moments);
    if (n > static_cast<std::size_t>(ddof)) {
        const double population_variance = acc::variance(moments); // divides by n
        out.std = std::sqrt(population_variance * static_cast<double>(n) /
                            static_cast<double>(n - static_cast<std::size_t>(ddof)));
        if (*out.mean != 0) out.cov = *out.std / *out.mean;
    }
}

} // namespace detail

// Summarises `values`, reordering them in place (percentiles are found by selection, not a sort).
inline summary summarize_in_place(std::span<double> values, const summary_options& o = {}) {
    validate(o);
    summary out;
    out.n = values.size();
    out.percentiles.reserve(o.percentiles.size());
    if (values.empty()) {
        for (double p : o.percentiles) out.percentiles.push_back({p, std::nullopt});
        return out;
    }
    detail::fill_moments(values, out, o.ddof);
    const auto at = percentiles_select(values, o.percentiles, o.method);
    for (std::size_t k = 0; k < at.size(); ++k) out.percentiles.push_back({o.percentiles[k], at[k]});
    return out;
}

inline summary summarize(std::span<const double> values, const summary_options& o = {}) {
    std::vector<double> copy(values.begin(), values.end());
    return summarize_in_place(copy, o);
}

} // namespace servestat
