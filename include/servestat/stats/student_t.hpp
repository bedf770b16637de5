// Student's t: the one place servestat takes its quantiles from (a mean's interval within a run,
// the spread of replicate runs, Welch's interval of a difference between two sets of runs).
#pragma once

#include <cmath>    // std::isfinite, std::sqrt
#include <cstddef>  // std::size_t
#include <optional> // std::optional

#include <boost/math/distributions/students_t.hpp> // students_t, quantile, complement

#include "servestat/stats/interval.hpp" // interval

namespace servestat {

// The two-sided critical value t* with P(|T| <= t*) = confidence for T ~ t(df): the
// (1 + confidence) / 2 quantile (t_{0.975, 2} = 4.302653 at 95%). df need not be a whole number
// (Welch–Satterthwaite's is not). Empty when df is not positive or confidence is outside (0, 1).
inline std::optional<double> student_t_critical(double df, double confidence) {
    if (!(df > 0) || !std::isfinite(df) || !(confidence > 0 && confidence < 1)) return std::nullopt;
    const boost::math::students_t distribution(df);
    // The upper tail's quantile through complement: (1 - confidence) / 2 is exact where
    // (1 + confidence) / 2 would round near 1.
    return boost::math::quantile(boost::math::complement(distribution, (1 - confidence) / 2));
}

// mean ± t*(n − 1) · std / √n: the interval of a mean of n values whose sample standard deviation
// (ddof 1) is `std`. Empty below 2 values, where the spread of the values says nothing.
inline std::optional<interval> mean_t_interval(double mean, double std, std::size_t n, double confidence) {
    if (n < 2 || !std::isfinite(std) || !std::isfinite(mean)) return std::nullopt;
    const auto t = student_t_critical(static_cast<double>(n - 1), confidence);
    if (!t) return std::nullopt;
    const double half = *t * std / std::sqrt(static_cast<double>(n));
    return interval{mean - half, mean + half};
}

} // namespace servestat
