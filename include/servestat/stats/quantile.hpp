// Exact sample quantiles that reproduce numpy 1.24's np.percentile / np.quantile bit for bit, all 13 methods.
#pragma once

#include <algorithm>   // std::nth_element, std::min_element, std::max_element, std::sort, std::unique
#include <array>       // std::array
#include <charconv>    // std::to_chars
#include <cmath>       // std::floor, std::ceil, std::fmod
#include <cstddef>     // std::size_t, std::ptrdiff_t
#include <optional>    // std::optional
#include <span>        // std::span
#include <string>      // std::string
#include <string_view> // std::string_view
#include <utility>     // std::pair
#include <vector>      // std::vector

#include "servestat/core/errors.hpp"         // servestat::usage_error
#include "servestat/stats/radix_select.hpp" // detail::radix_select

// Inputs: every value must be a finite double (callers reject NaN and infinities before this point);
// numpy's NaN propagation is not reproduced. With finite inputs and n < 2^53 every result equals
// numpy's np.percentile(data, p, method=...) exactly, because each floating-point step below is the
// same operation, in the same order, that numpy 1.24 performs (numpy/lib/function_base.py).

namespace servestat {

// Names and order follow numpy's `method=` argument (Hyndman & Fan types 1-9 plus numpy's own four).
enum class quantile_method {
    linear,
    lower,
    higher,
    nearest,
    midpoint,
    inverted_cdf,
    averaged_inverted_cdf,
    closest_observation,
    interpolated_inverted_cdf,
    hazen,
    weibull,
    median_unbiased,
    normal_unbiased,
};

namespace detail {

inline constexpr std::array<quantile_method, 13> quantile_methods{
    quantile_method::linear,
    quantile_method::lower,
    quantile_method::higher,
    quantile_method::nearest,
    quantile_method::midpoint,
    quantile_method::inverted_cdf,
    quantile_method::averaged_inverted_cdf,
    quantile_method::closest_observation,
    quantile_method::interpolated_inverted_cdf,
    quantile_method::hazen,
    quantile_method::weibull,
    quantile_method::median_unbiased,
    quantile_method::normal_unbiased,
};

} // namespace detail

inline std::string_view to_string(quantile_method m) noexcept {
    switch (m) {
    case quantile_method::linear: return "linear";
    case quantile_method::lower: return "lower";
    case quantile_method::higher: return "higher";
    case quantile_method::nearest: return "nearest";
    case quantile_method::midpoint: return "midpoint";
    case quantile_method::inverted_cdf: return "inverted_cdf";
    case quantile_method::averaged_inverted_cdf: return "averaged_inverted_cdf";
    case quantile_method::closest_observation: return "closest_observation";
    case quantile_method::interpolated_inverted_cdf: return "interpolated_inverted_cdf";
    case quantile_method::hazen: return "hazen";
    case quantile_method::weibull: return "weibull";
    case quantile_method::median_unbiased: return "median_unbiased";
    case quantile_method::normal_unbiased: return "normal_unbiased";
    }
    return "?";
}

// In declaration order.
inline std::span<const quantile_method> all_quantile_methods() noexcept { return detail::quantile_methods; }

namespace detail {

inline std::string valid_quantile_method_names() {
    std::string names;
    for (quantile_method m : quantile_methods) {
        if (!names.empty()) names += ", ";
        names += to_string(m);
    }
    return names;
}

// Shortest text that reads back as the same double, so error messages show e.g. 1e-09, not 0.000000.
inline std::string format_double(double x) {
    std::array<char, 32> buffer{};
    const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), x);
    return std::string(buffer.data(), result.ptr);
}

} // namespace detail

// Case-sensitive, like numpy.
inline quantile_method parse_quantile_method(std::string_view name) {
    for (quantile_method m : all_quantile_methods())
        if (to_string(m) == name) return m;
    throw usage_error("unknown quantile method '" + std::string(name) +
                      "'; valid methods: " + detail::valid_quantile_method_names());
}

namespace detail {

// Which order statistics of the sorted sample y a quantile reads and how it combines them.
// numpy has two code paths: methods whose virtual index is an integer return y[lower] untouched;
// all others go through _lerp even when gamma is 0 or both neighbours are the same element, and
// _lerp can change the sign of a zero, so the paths must stay distinct to be bit-exact.
struct quantile_plan {
    std::size_t lower = 0;    // y[j]
    std::size_t upper = 0;    // y[j+1]; equal to lower when only one element is read
    double gamma = 0.0;       // weight of y[upper]
    bool interpolate = false; // false: the result is y[lower] as is
};

// Rounds a product to double before it is used. numpy rounds after every operation, but a C++
// compiler may fuse `a * b + c` into one FMA (GCC's default -ffp-contract=fast for C++, clang's
// default "on"), which rounds once and changes the last bit. A volatile round trip prevents that
// fusion on every compiler (without it g++ -march=native misses numpy in the last bit); it costs nothing
// measurable because it runs once per result, not per sample.
inline double rounded(double product) noexcept {
    volatile double stored = product;
    return stored;
}

// np.around with 0 decimals rounds half to even (np.rint); std::round would round half away from zero.
inline double round_half_to_even(double x) noexcept {
    const double below = std::floor(x);
    const double fraction = x - below;
    if (fraction > 0.5) return below + 1.0;
    if (fraction < 0.5) return below;
    return std::fmod(below, 2.0) == 0.0 ? below : below + 1.0;
}

inline quantile_plan single_element_plan(double index) noexcept {
    const auto i = static_cast<std::size_t>(index);
    return {i, i, 0.0, false};
}

// `lower`, `higher` and `nearest`: numpy casts (n-1)*q to an integer index and takes that element.
inline quantile_plan rank_plan(std::size_t n, double q, quantile_method m) noexcept {
    const double rank = rounded(static_cast<double>(n - 1) * q);
    switch (m) {
    case quantile_method::lower: return single_element_plan(std::floor(rank));
    case quantile_method::higher: return single_element_plan(std::ceil(rank));
    default: return single_element_plan(round_half_to_even(rank));
    }
}

// numpy's _discret_interpolation_to_boundaries: the element before `index` when `take_previous`
// holds, else the one after; negative results clip to 0. The upper clamp never fires for n < 2^52
// and only keeps absurd sizes from reading out of bounds.
template <class TakePrevious>
quantile_plan boundary_plan(std::size_t n, double index, TakePrevious take_previous) noexcept {
    const double previous = std::floor(index);
    const double gamma = index - previous;
    const double chosen = take_previous(gamma, previous) ? previous : previous + 1.0;
    const double last = static_cast<double>(n - 1);
    return single_element_plan(chosen < 0.0 ? 0.0 : (chosen > last ? last : chosen));
}

// H&F type 1: y[n*q - 1] if that index is integral, otherwise the element after it.
inline quantile_plan inverted_cdf_plan(std::size_t n, double q) noexcept {
    const double index = rounded(static_cast<double>(n) * q) - 1.0;
    return boundary_plan(n, index, [](double gamma, double) { return gamma == 0.0; });
}

// On a tie numpy 1.24 takes the previous element when its 0-based index is even, i.e. the odd 1-based
// order statistic; R's type 3 and numpy >= 2.0.1 (numpy#26656) take the even one. We follow 1.24.
inline quantile_plan closest_observation_plan(std::size_t n, double q) noexcept {
    const double index = (rounded(static_cast<double>(n) * q) - 1.0) - 0.5;
    return boundary_plan(n, index, [](double gamma, double previous) {
        return gamma == 0.0 && std::fmod(previous, 2.0) == 0.0;
    });
}

// numpy's _compute_virtual_index: n*q + (alpha + q*(1 - alpha - beta)) - 1, evaluated in that order.
inline double alpha_beta_virtual_index(std::size_t n, double q, double alpha, double beta) noexcept {
    const double correction = alpha + rounded(q * ((1.0 - alpha) - beta));
    return (rounded(static_cast<double>(n) * q) + correction) - 1.0;
}

inline double virtual_index(std::size_t n, double q, quantile_method m) noexcept {
    switch (m) {
    case quantile_method::linear:
        // numpy uses (n-1)*q, not the algebraically equal alpha = beta = 1 form; the bits differ.
        return rounded(static_cast<double>(n - 1) * q);
    case quantile_method::midpoint: {
        const double rank = rounded(static_cast<double>(n - 1) * q);
        return 0.5 * (std::floor(rank) + std::ceil(rank));
    }
    case quantile_method::averaged_inverted_cdf: return rounded(static_cast<double>(n) * q) - 1.0;
    case quantile_method::interpolated_inverted_cdf: return alpha_beta_virtual_index(n, q, 0.0, 1.0);
    case quantile_method::hazen: return alpha_beta_virtual_index(n, q, 0.5, 0.5);
    case quantile_method::weibull: return alpha_beta_virtual_index(n, q, 0.0, 0.0);
    case quantile_method::median_unbiased: return alpha_beta_virtual_index(n, q, 1.0 / 3.0, 1.0 / 3.0);
    case quantile_method::normal_unbiased: return alpha_beta_virtual_index(n, q, 3.0 / 8.0, 3.0 / 8.0);
    default: return 0.0; // the single-element methods never get here
    }
}

// numpy's fix_gamma: the two interpolating methods that are really step functions override the weight.
inline double fixed_gamma(quantile_method m, double gamma, double index) noexcept {
    switch (m) {
    case quantile_method::averaged_inverted_cdf: return gamma == 0.0 ? 0.5 : 1.0;
    case quantile_method::midpoint: return index == std::floor(index) ? 0.0 : 0.5;
    default: return gamma;
    }
}

// numpy's _get_indexes + _get_gamma. numpy marks an index past the end as -1 and one before the start
// as 0 *before* it subtracts, so there gamma is v + 1 or v rather than a fraction. Both neighbours are
// then the same element, yet that odd weight still reaches _lerp and can decide the sign of a zero.
inline quantile_plan interpolation_plan(std::size_t n, double q, quantile_method m) noexcept {
    const double index = virtual_index(n, q, m);
    quantile_plan plan;
    plan.interpolate = true;
    double previous = 0.0;
    if (index >= static_cast<double>(n - 1)) {
        plan.lower = plan.upper = n - 1;
        previous = -1.0;
    } else if (index < 0.0) {
        plan.lower = plan.upper = 0;
        previous = 0.0;
    } else {
        previous = std::floor(index);
        plan.lower = static_cast<std::size_t>(previous);
        plan.upper = plan.lower + 1;
    }
    plan.gamma = fixed_gamma(m, index - previous, index);
    return plan;
}

// Preconditions (checked by callers): n > 0, 0 <= q <= 1.
inline quantile_plan plan_quantile(std::size_t n, double q, quantile_method m) noexcept {
    switch (m) {
    case quantile_method::lower:
    case quantile_method::higher:
    case quantile_method::nearest: return rank_plan(n, q, m);
    case quantile_method::inverted_cdf: return inverted_cdf_plan(n, q);
    case quantile_method::closest_observation: return closest_observation_plan(n, q);
    default: return interpolation_plan(n, q, m);
    }
}

// numpy's _lerp. For t >= 0.5 it measures back from b, b - (b-a)*(1-t), so t = 1 lands exactly on b
// (a + (b-a)*1 need not). The two forms differ in the last bit, so a bit-exact port must switch at 0.5 too.
inline double numpy_lerp(double a, double b, double t) noexcept {
    const double difference = b - a;
    if (t >= 0.5) return b - rounded(difference * (1.0 - t));
    return a + rounded(difference * t);
}

inline double evaluate_plan(const quantile_plan& plan, std::span<const double> order_statistics) noexcept {
    const double low = order_statistics[plan.lower];
    if (!plan.interpolate) return low;
    return numpy_lerp(low, order_statistics[plan.upper], plan.gamma);
}

inline void require_non_empty(std::size_t n, std::string_view function) {
    if (n == 0) throw usage_error(std::string(function) + ": no values");
}

// The negated comparisons also reject NaN.
inline void require_probability(double q, std::string_view function) {
    if (!(q >= 0.0 && q <= 1.0))
        throw usage_error(std::string(function) + ": quantile must be in [0, 1], got " + format_double(q));
}

// np.percentile divides by 100 (true_divide) before anything else, so p99 uses the double nearest 0.99.
inline double percent_to_probability(double p, std::string_view function) {
    if (!(p >= 0.0 && p <= 100.0))
        throw usage_error(std::string(function) + ": percentile must be in [0, 100], got " + format_double(p));
    return p / 100.0;
}

// Sorted, de-duplicated positions of every order statistic the plans read.
inline std::vector<std::size_t> needed_positions(std::span<const quantile_plan> plans) {
    std::vector<std::size_t> positions;
    positions.reserve(2 * plans.size());
    for (const quantile_plan& plan : plans) {
        positions.push_back(plan.lower);
        if (plan.upper != plan.lower) positions.push_back(plan.upper);
    }
    std::sort(positions.begin(), positions.end());
    positions.erase(std::unique(positions.begin(), positions.end()), positions.end());
    return positions;
}

// Elements each direction's selections touch in total: lowest-first narrows the range from the left
// (cheap for the high percentiles latency reports ask for), highest-first from the right.
inline std::size_t ascending_selection_cost(std::size_t n, std::span<const std::size_t> positions) noexcept {
    std::size_t cost = 0;
    std::size_t begin = 0;
    for (std::size_t k : positions) {
        cost += n - begin;
        begin = k + 1;
    }
    return cost;
}

inline std::size_t descending_selection_cost(std::size_t n, std::span<const std::size_t> positions) noexcept {
    std::size_t cost = 0;
    std::size_t end = n;
    for (auto it = positions.rbegin(); it != positions.rend(); ++it) {
        cost += end;
        end = *it;
    }
    return cost;
}

// After each step everything left of position k is <= values[k] <= everything right of it, so the
// next selection only needs the part above k. A position right after the previous one (y[j+1] next to
// y[j]) is just the minimum of what remains: one linear pass instead of an nth_element.
inline void select_lowest_first(std::span<double> values, std::span<const std::size_t> positions) {
    auto first = values.begin();
    for (std::size_t k : positions) {
        const auto nth = values.begin() + static_cast<std::ptrdiff_t>(k);
        if (nth == first)
            std::iter_swap(nth, std::min_element(nth, values.end()));
        else
            std::nth_element(first, nth, values.end());
        first = nth + 1;
    }
}

inline void select_highest_first(std::span<double> values, std::span<const std::size_t> positions) {
    auto last = values.end();
    for (auto it = positions.rbegin(); it != positions.rend(); ++it) {
        const auto nth = values.begin() + static_cast<std::ptrdiff_t>(*it);
        if (nth + 1 == last)
            std::iter_swap(nth, std::max_element(values.begin(), last));
        else
            std::nth_element(values.begin(), nth, last);
        last = nth;
    }
}

// Moves the order statistic of rank k to values[k] for every k in `positions` (sorted, unique).
inline void select_order_statistics(std::span<double> values, std::span<const std::size_t> positions) {
    const std::size_t n = values.size();
    if (ascending_selection_cost(n, positions) <= descending_selection_cost(n, positions))
        select_lowest_first(values, positions);
    else
        select_highest_first(values, positions);
}

} // namespace detail

// q in [0, 1]; `sorted` ascending and non-empty (sortedness is not checked: O(n)). Same as numpy's
// np.quantile(sorted, q, method=m) for a float q. (numpy 1.24 with an *integer* q == 0 returns the
// maximum for some methods, numpy#24593; np.percentile never does, since it divides by 100 first.)
inline double quantile_sorted(std::span<const double> sorted, double q,
                              quantile_method m = quantile_method::linear) {
    detail::require_non_empty(sorted.size(), "quantile_sorted");
    detail::require_probability(q, "quantile_sorted");
    return detail::evaluate_plan(detail::plan_quantile(sorted.size(), q, m), sorted);
}

// p in [0, 100]; exactly np.percentile(sorted, p, method=m).
inline double percentile_sorted(std::span<const double> sorted, double p,
                                quantile_method m = quantile_method::linear) {
    detail::require_non_empty(sorted.size(), "percentile_sorted");
    const double q = detail::percent_to_probability(p, "percentile_sorted");
    return detail::evaluate_plan(detail::plan_quantile(sorted.size(), q, m), sorted);
}

// Percentiles and, beside them, order statistics by rank (the ends of their confidence intervals),
// all found in one selection.
struct percentiles_and_ranks {
    std::vector<double> percentiles; // in the order of the ps asked for
    std::vector<double> ranked;      // the values of the ranks asked for, in that order
};

namespace detail {

inline std::vector<quantile_plan> plan_percentiles(std::size_t n, std::span<const double> ps, quantile_method m) {
    require_non_empty(n, "percentiles_select");
    std::vector<quantile_plan> plans;
    plans.reserve(ps.size());
    for (double p : ps) plans.push_back(plan_quantile(n, percent_to_probability(p, "percentiles_select"), m));
    return plans;
}

// Sorted, de-duplicated positions of every order statistic the plans read and of `ranks`.
inline std::vector<std::size_t> needed_positions(std::span<const quantile_plan> plans, std::span<const std::size_t> ranks) {
    if (ranks.empty()) return needed_positions(plans);
    std::vector<std::size_t> positions = needed_positions(plans);
    positions.insert(positions.end(), ranks.begin(), ranks.end());
    std::sort(positions.begin(), positions.end());
    positions.erase(std::unique(positions.begin(), positions.end()), positions.end());
    return positions;
}

// Where `position` is in the sorted, unique `positions` (it is one of them).
inline std::size_t index_in(std::span<const std::size_t> positions, std::size_t position) {
    return static_cast<std::size_t>(std::lower_bound(positions.begin(), positions.end(), position) - positions.begin());
}

// The percentiles of the plans and the order statistics of `ranks`, from the order statistics at
// `positions` (needed_positions of both), held in `statistics` in that order.
inline percentiles_and_ranks read_selection(std::span<const quantile_plan> plans, std::span<const std::size_t> ranks,
                                            std::span<const std::size_t> positions, std::span<const double> statistics) {
    percentiles_and_ranks out;
    out.percentiles.reserve(plans.size());
    for (quantile_plan plan : plans) {
        plan.lower = index_in(positions, plan.lower);
        plan.upper = index_in(positions, plan.upper);
        out.percentiles.push_back(evaluate_plan(plan, statistics));
    }
    out.ranked.reserve(ranks.size());
    for (std::size_t r : ranks) out.ranked.push_back(statistics[index_in(positions, r)]);
    return out;
}

// Large samples: the order statistics come out of a radix select as a short list; plans index into it.
inline percentiles_and_ranks percentiles_by_radix_select(std::span<const std::span<const double>> parts,
                                                         const std::vector<quantile_plan>& plans, std::span<const std::size_t> ranks,
                                                         std::optional<std::pair<double, double>> extremes) {
    const auto positions = needed_positions(plans, ranks);
    return read_selection(plans, ranks, positions, radix_select(parts, positions, extremes));
}

} // namespace detail

// Several percentiles of unsorted data without sorting it, evaluated exactly as percentile_sorted
// would, and the order statistics of `ranks` (0-based, each < n, any order) in the same selection:
// the ranks are only more positions to select, not another pass. Small samples are reordered in
// place (a permutation) by nth_element; large ones are read twice by a radix select and left as they
// are. Results follow the order of `ps` (any order, duplicates allowed) and of `ranks`. Every p is
// validated before `values` is touched. `extremes`: the smallest and largest value, when the caller
// has them.
inline percentiles_and_ranks percentiles_and_ranks_select(std::span<double> values, std::span<const double> ps,
                                                          std::span<const std::size_t> ranks,
                                                          quantile_method m = quantile_method::linear,
                                                          std::optional<std::pair<double, double>> extremes = std::nullopt) {
    const auto plans = detail::plan_percentiles(values.size(), ps, m);
    for (std::size_t r : ranks)
        if (r >= values.size()) throw usage_error("percentiles_select: a rank is past the last value");
    if (values.size() >= detail::radix_select_min_size) {
        const std::span<const double> whole = values;
        return detail::percentiles_by_radix_select(std::span(&whole, 1), plans, ranks, extremes);
    }
    const auto positions = detail::needed_positions(plans, ranks);
    detail::select_order_statistics(values, positions);
    percentiles_and_ranks out;
    out.percentiles.reserve(plans.size());
    for (const detail::quantile_plan& plan : plans) out.percentiles.push_back(detail::evaluate_plan(plan, values));
    for (std::size_t r : ranks) out.ranked.push_back(values[r]);
    return out;
}

inline std::vector<double> percentiles_select(std::span<double> values, std::span<const double> ps,
                                              quantile_method m = quantile_method::linear,
                                              std::optional<std::pair<double, double>> extremes = std::nullopt) {
    return percentiles_and_ranks_select(values, ps, {}, m, extremes).percentiles;
}

// The same of the values of all `parts` together, which are left as they are.
inline percentiles_and_ranks percentiles_and_ranks_of_parts(std::span<const std::span<const double>> parts,
                                                            std::span<const double> ps, std::span<const std::size_t> ranks,
                                                            quantile_method m = quantile_method::linear,
                                                            std::optional<std::pair<double, double>> extremes = std::nullopt) {
    std::size_t n = 0;
    for (const auto part : parts) n += part.size();
    if (n >= detail::radix_select_min_size) {
        for (std::size_t r : ranks)
            if (r >= n) throw usage_error("percentiles_of_parts: a rank is past the last value");
        return detail::percentiles_by_radix_select(parts, detail::plan_percentiles(n, ps, m), ranks, extremes);
    }
    std::vector<double> together;
    together.reserve(n);
    for (const auto part : parts) together.insert(together.end(), part.begin(), part.end());
    return percentiles_and_ranks_select(together, ps, ranks, m);
}

inline std::vector<double> percentiles_of_parts(std::span<const std::span<const double>> parts, std::span<const double> ps,
                                                quantile_method m = quantile_method::linear,
                                                std::optional<std::pair<double, double>> extremes = std::nullopt) {
    return percentiles_and_ranks_of_parts(parts, ps, {}, m, extremes).percentiles;
}

} // namespace servestat
