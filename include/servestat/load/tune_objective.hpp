// What `servestat tune` measures of one configuration: its SLOs (a percentile of a metric over a
// prompt-length subset), the loads it runs (a climb by doublings until an SLO fails, then bisection
// of the bracket), and the objective with its interval: capacity (the largest concurrency meeting
// every SLO), throughput or cost per good token at the loads that meet them. Pure logic on each
// level's statistics, so it is tested without a server. docs/tune.md#one-configuration.
#pragma once

#include <algorithm>   // std::sort, std::min, std::max, std::find_if
#include <cmath>       // std::sqrt, std::round, std::isfinite, std::floor
#include <cstddef>     // std::size_t
#include <limits>      // std::numeric_limits
#include <optional>    // std::optional
#include <string>      // std::string
#include <string_view> // std::string_view
#include <vector>      // std::vector

#include <fmt/format.h> // fmt::format

#include "servestat/core/errors.hpp"      // usage_error
#include "servestat/load/failure_stop.hpp" // failure_stop_of
#include "servestat/load/tune_search.hpp" // objective_direction, tune_measurement, detail::tune_number, detail::better
#include "servestat/stats/cost.hpp"       // deployment_price, cost_figure
#include "servestat/stats/goodput.hpp"    // slo, parse_slos
#include "servestat/stats/interval.hpp"   // interval
#include "servestat/stats/metrics.hpp"    // metric, to_string
#include "servestat/stats/run_stats.hpp"  // run_stats, find_summary
#include "servestat/stats/summary.hpp"    // percentile_value

namespace servestat::load {

// ---- the objective ---------------------------------------------------------------------------------

enum class tune_objective { capacity, throughput, cost_per_good_token };

inline tune_objective parse_tune_objective(std::string_view name) {
    if (name == "capacity") return tune_objective::capacity;
    if (name == "throughput") return tune_objective::throughput;
    if (name == "cost-per-good-token") return tune_objective::cost_per_good_token;
    throw usage_error(fmt::format("--objective {}: one of capacity, throughput, cost-per-good-token", name));
}

inline const char* to_string(tune_objective o) noexcept {
    switch (o) {
    case tune_objective::capacity: return "capacity";
    case tune_objective::throughput: return "throughput";
    case tune_objective::cost_per_good_token: return "cost-per-good-token";
    }
    return "?";
}

inline objective_direction direction_of(tune_objective o) noexcept {
    return o == tune_objective::cost_per_good_token ? objective_direction::lower_is_better
                                                    : objective_direction::higher_is_better;
}

// How reports name an objective: its label, its unit and what it measures.
struct objective_text {
    const char* label;
    const char* unit;
    const char* description;
};

inline objective_text text_of(tune_objective o) noexcept {
    switch (o) {
    case tune_objective::capacity:
        return {"capacity", "concurrent streams", "the largest concurrency at which every SLO is met"};
    case tune_objective::throughput:
        return {"throughput within the SLOs", "output tokens/s",
                "the most output tokens per second of a load level that meets every SLO"};
    case tune_objective::cost_per_good_token:
        return {"cost per good output token", "USD per 1M good output tokens",
                "the lowest cost per 1M good output tokens (requests meeting the all-request SLOs) of a load "
                "level that meets every SLO"};
    }
    return {"", "", ""};
}

// ---- SLOs over subsets -------------------------------------------------------------------------------

// "short prompts' TTFT p95 ≤ 0.5 s": a percentile of one metric over the ok requests of one subset
// (all, short, long: stats/subsets.hpp's). The notebook's question is the short prompts' tail, which
// an SLO over all requests hides behind the long prompts' latencies.
struct tune_slo {
    std::string subset = "all";
    slo objective;
};

// "ttft=0.5,short:ttft=0.2,long:e2e=30": an optional SUBSET: before each metric=seconds.
inline std::vector<tune_slo> parse_tune_slos(std::string_view spec) {
    std::vector<tune_slo> out;
    while (!spec.empty()) {
        const auto comma = spec.find(',');
        auto item = spec.substr(0, comma);
        spec = comma == std::string_view::npos ? std::string_view{} : spec.substr(comma + 1);
        tune_slo s;
        if (const auto colon = item.find(':'); colon != std::string_view::npos) {
            s.subset = std::string(item.substr(0, colon));
            if (s.subset != "all" && s.subset != "short" && s.subset != "long")
                throw usage_error(fmt::format("--slo {}: the subset '{}' is not all, short or long", item, s.subset));
            item = item.substr(colon + 1);
        }
        s.objective = parse_slos(item).front();
        for (const auto& other : out)
            if (other.subset == s.subset && other.objective.on == s.objective.on)
                throw usage_error(fmt::format("--slo: {} of {} given twice", to_string(s.objective.on), s.subset));
        out.push_back(std::move(s));
    }
    if (out.empty()) throw usage_error("--slo: give at least one, e.g. ttft=0.5 or short:ttft=0.2");
    return out;
}

// "short prompts' TTFT p95 ≤ 0.5 s"
inline std::string slo_text(const tune_slo& s, double percentile) {
    std::string metric_name(to_string(s.objective.on));
    for (auto& c : metric_name) c = static_cast<char>(c == '_' ? ' ' : c);
    if (metric_name == "ttft" || metric_name == "tpot" || metric_name == "e2e")
        for (auto& c : metric_name) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
    const std::string whose = s.subset == "all" ? "all requests'" : s.subset + " prompts'";
    return fmt::format("{} {} p{:g} ≤ {:g} s", whose, metric_name, percentile, s.objective.max_seconds);
}

// ---- one level --------------------------------------------------------------------------------------

// How one configuration's loads are chosen and judged.
struct tune_level_settings {
    std::vector<tune_slo> slos;
    double percentile = 95; // of each SLO's metric, as `servestat report` judges a sweep's capacity
    double confidence = 0.95;
    double start = 1, max = 256; // concurrency: the climb's first level and its cap
    // Bisection ends once the bracket's ends lie within a factor (1 + resolution)² (or are adjacent
    // integers): capacity then known to ±resolution before noise.
    double resolution = 0.125;
    std::size_t max_levels = 10;
    // A level fails when its error rate exceeds the lowest of the levels below it by more than this.
    double max_error = 0.05;
};

// An SLO's percentile at one level, with its distribution-free interval (either end may be missing
// where too few requests bound it).
struct slo_reading {
    std::optional<double> value;
    std::optional<double> low, high;
};

// What the search needs of a level, read from its log's statistics.
struct tune_level {
    double load = 0;
    std::size_t requests = 0, ok = 0;
    std::vector<slo_reading> slos; // parallel to tune_level_settings::slos
    // Output tokens per second over the run's span, with its batch-means interval (stats/cost.hpp).
    std::optional<double> output_tps;
    std::optional<interval> output_tps_ci;
    // USD per 1M good output tokens, with its interval: at the user's price, with SLOs.
    std::optional<double> good_cost;
    std::optional<interval> good_cost_ci;
    std::string ended_early; // the failure guard stopped it: why

    double error_rate() const {
        return requests == 0 ? 1.0 : 1.0 - static_cast<double>(ok) / static_cast<double>(requests);
    }
};

namespace detail {

inline slo_reading reading_of(const run_stats& r, const tune_slo& s, double percentile) {
    slo_reading out;
    const summary* sum = find_summary(r, s.subset, s.objective.on);
    if (!sum) return out;
    for (const auto& p : sum->percentiles)
        if (p.p == percentile) {
            out.value = p.value;
            if (p.ci) {
                out.low = p.ci->low;
                out.high = p.ci->high;
            }
        }
    return out;
}

// The interval of a rate in tokens per second from its cost figure at `price`: cost per 1M = price
// per second × 10⁶ / rate, so the interval inverts exactly (its ends swap).
inline std::optional<interval> rate_interval_from_cost(const deployment_price& price, const cost_figure& f) {
    if (!f.ci || f.ci->low <= 0) return std::nullopt;
    const double scale = price.per_second() * 1e6;
    return interval{scale / f.ci->high, scale / f.ci->low};
}

} // namespace detail

// A level from its run's statistics, analysed with the SLOs' percentile and a price (the user's,
// or any: the throughput's interval is read back from the cost figure's).
inline tune_level tune_level_of(const run_stats& r, double load, const tune_level_settings& s) {
    tune_level out;
    out.load = load;
    out.requests = r.requests;
    out.ok = r.ok;
    for (const auto& objective : s.slos) out.slos.push_back(detail::reading_of(r, objective, s.percentile));
    out.output_tps = r.output_tps;
    if (r.cost) {
        out.output_tps_ci = detail::rate_interval_from_cost(r.cost->price, r.cost->per_1m_output);
        if (r.cost->per_1m_good_output) {
            out.good_cost = r.cost->per_1m_good_output->value;
            if (r.cost->per_1m_good_output->ci) out.good_cost_ci = r.cost->per_1m_good_output->ci;
        }
    }
    out.ended_early = failure_stop_of(r.meta.run_end);
    return out;
}

// ---- which loads to run -----------------------------------------------------------------------------

namespace detail {

// Which way a level is judged: by the percentiles' values, or by either end of their intervals
// (the band's upper end meets an SLO later than the value does, the lower end earlier).
enum class slo_reading_side { value, low, high };

inline std::optional<double> side_of(const slo_reading& r, slo_reading_side side) {
    switch (side) {
    case slo_reading_side::value: return r.value;
    case slo_reading_side::low: return r.low ? r.low : std::optional<double>(-std::numeric_limits<double>::infinity());
    case slo_reading_side::high: return r.high ? r.high : std::optional<double>(std::numeric_limits<double>::infinity());
    }
    return std::nullopt;
}

inline std::vector<const tune_level*> by_load(const std::vector<tune_level>& levels) {
    std::vector<const tune_level*> out;
    for (const auto& l : levels) out.push_back(&l);
    std::sort(out.begin(), out.end(), [](const tune_level* a, const tune_level* b) { return a->load < b->load; });
    return out;
}

// The error rate rose: above the lowest of the levels below by more than max_error (auto_sweep's rule).
inline bool errors_rose(const std::vector<const tune_level*>& sorted, std::size_t i, const tune_level_settings& s) {
    if (sorted[i]->ok == 0 || !sorted[i]->ended_early.empty()) return true;
    double lowest = 0;
    bool any = false;
    for (std::size_t k = 0; k < i; ++k) {
        lowest = any ? std::min(lowest, sorted[k]->error_rate()) : sorted[k]->error_rate();
        any = true;
    }
    return sorted[i]->error_rate() > (any ? lowest : 0.0) + s.max_error;
}

inline bool slo_met(const slo_reading& r, const tune_slo& objective, slo_reading_side side) {
    const auto v = side_of(r, side);
    return v && *v <= objective.objective.max_seconds;
}

inline bool passes(const std::vector<const tune_level*>& sorted, std::size_t i, const tune_level_settings& s,
                   slo_reading_side side = slo_reading_side::value) {
    if (errors_rose(sorted, i, s)) return false;
    for (std::size_t k = 0; k < s.slos.size(); ++k)
        if (!slo_met(sorted[i]->slos[k], s.slos[k], side)) return false;
    return true;
}

// The lowest failing level, and the highest passing one below it.
struct load_bracket {
    std::optional<std::size_t> last_pass, first_fail;
};

inline load_bracket bracket_of(const std::vector<const tune_level*>& sorted, const tune_level_settings& s) {
    load_bracket b;
    for (std::size_t i = 0; i < sorted.size(); ++i) {
        if (!passes(sorted, i, s)) {
            b.first_fail = i;
            return b;
        }
        b.last_pass = i;
    }
    return b;
}

} // namespace detail

// The next concurrency to run for this configuration, or none once its capacity is bracketed to
// the resolution (or the levels are spent): a climb from `start` by doublings up to `max` until a
// level fails, then geometric bisection between the last passing level and the first failing one.
// A pure function of the levels, so a resumed configuration goes on where it stopped.
inline std::optional<double> next_tune_load(const std::vector<tune_level>& levels, const tune_level_settings& s) {
    if (levels.empty()) return s.start;
    if (levels.size() >= s.max_levels) return std::nullopt;
    const auto sorted = detail::by_load(levels);
    const auto b = detail::bracket_of(sorted, s);
    if (!b.first_fail) {
        const double top = sorted.back()->load;
        if (top >= s.max) return std::nullopt;
        return std::min(s.max, top * 2);
    }
    if (!b.last_pass) return std::nullopt; // the first level fails: the capacity lies below the start
    const double low = sorted[*b.last_pass]->load, high = sorted[*b.first_fail]->load;
    const double factor = (1 + s.resolution) * (1 + s.resolution);
    if (high - low <= 1 || high <= factor * low) return std::nullopt;
    const double middle = std::round(std::sqrt(low * high));
    return std::clamp(middle, low + 1, high - 1);
}

// ---- the capacity and its interval --------------------------------------------------------------------

// Where the percentile curves cross their SLOs, interpolated linearly in load between the last level
// meeting them and the first missing them (as a sweep's SLO capacity is: sweep_analysis.hpp), three
// times: with the percentiles' values (the estimate), with their intervals' upper ends (the lowest
// load the data allow) and with their lower ends (the highest). So the interval holds both the
// bracket's width and the percentiles' own uncertainty.
struct capacity_estimate {
    double value = 0;
    interval ci;
    bool below_start = false; // even the first level misses an SLO
    bool at_least = false;    // every level meets them: the capacity is at least the highest level
    std::string limited_by;   // the SLO (or the error rate) that sets it
    std::string text;         // "short prompts' TTFT p95 ≤ 0.5 s is missed between c=11 and 16 (crossing at 13.4)"
};

namespace detail {

struct crossing {
    double load = 0;
    bool below_start = false, at_least = false;
    std::string limited_by;
    std::optional<std::size_t> between; // the failing level's index: the crossing lies below it
};

inline crossing cross(const std::vector<const tune_level*>& sorted, const tune_level_settings& s, slo_reading_side side) {
    crossing out;
    for (std::size_t i = 0; i < sorted.size(); ++i) {
        if (passes(sorted, i, s, side)) continue;
        out.between = i;
        if (i == 0) { // nothing below to interpolate from: the capacity lies under the first level
            out.below_start = true;
            out.load = 0;
        }
        const double low = i == 0 ? 0 : sorted[i - 1]->load, high = sorted[i]->load;
        if (errors_rose(sorted, i, s)) {
            out.load = low;
            out.limited_by = "the error rate";
            return out;
        }
        out.load = high;
        for (std::size_t k = 0; k < s.slos.size(); ++k) {
            const auto v1 = side_of(sorted[i]->slos[k], side);
            if (v1 && *v1 <= s.slos[k].objective.max_seconds) continue;
            double at = low;
            const auto v0 = i == 0 ? std::nullopt : side_of(sorted[i - 1]->slos[k], side);
            if (v1 && v0 && std::isfinite(*v1) && std::isfinite(*v0) && *v1 > *v0)
                at = low + (s.slos[k].objective.max_seconds - *v0) / (*v1 - *v0) * (high - low);
            if (at < out.load || out.limited_by.empty()) {
                out.load = std::clamp(at, low, high);
                out.limited_by = slo_text(s.slos[k], s.percentile);
            }
        }
        if (i == 0) out.load = 0;
        return out;
    }
    out.at_least = true;
    out.load = sorted.empty() ? 0 : sorted.back()->load;
    return out;
}

inline std::string load_text(double load) { return fmt::format("c={}", tune_number(load)); }

} // namespace detail

// The capacity of one measurement's levels; empty when it has none.
inline std::optional<capacity_estimate> estimate_capacity(const std::vector<tune_level>& levels,
                                                          const tune_level_settings& s) {
    if (levels.empty()) return std::nullopt;
    const auto sorted = detail::by_load(levels);
    const auto point = detail::cross(sorted, s, detail::slo_reading_side::value);
    const auto pessimistic = detail::cross(sorted, s, detail::slo_reading_side::high);
    const auto optimistic = detail::cross(sorted, s, detail::slo_reading_side::low);
    capacity_estimate out;
    out.value = point.load;
    out.ci = {std::min(pessimistic.load, point.load), std::max(optimistic.load, point.load)};
    out.below_start = point.below_start;
    out.at_least = point.at_least;
    out.limited_by = point.limited_by;
    if (point.at_least)
        out.text = fmt::format("every level meets the SLOs, up to {}: the capacity is at least that",
                               detail::load_text(out.value));
    else if (point.below_start)
        out.text = fmt::format("{} is missed even at {}, the first level", point.limited_by,
                               detail::load_text(sorted.front()->load));
    else
        out.text = fmt::format("{} is missed between {} and {} (the crossing at {}; the percentiles' intervals "
                               "cross at {}–{})",
                               point.limited_by, detail::load_text(sorted[*point.between - 1]->load),
                               detail::tune_number(sorted[*point.between]->load), detail::tune_number(out.value),
                               detail::tune_number(out.ci.low), detail::tune_number(out.ci.high));
    return out;
}

// ---- the objective of one measurement ------------------------------------------------------------------

namespace detail {

// The level meeting every SLO with the best figure, by `pick` (value, ci) and the direction.
template <class Pick>
tune_measurement best_passing_level(const std::vector<tune_level>& levels, const tune_level_settings& s,
                                    objective_direction d, Pick pick, const char* what) {
    tune_measurement out;
    const auto sorted = by_load(levels);
    const auto b = bracket_of(sorted, s);
    const std::size_t passing = b.first_fail ? *b.first_fail : sorted.size();
    for (std::size_t i = 0; i < passing; ++i) {
        const auto [value, ci] = pick(*sorted[i]);
        if (!value || !ci) continue;
        if (!out.value || better(*value, *out.value, d)) {
            out.value = value;
            out.ci = *ci;
        }
    }
    if (!out.value)
        out.infeasible = passing == 0 ? "no load level met every SLO"
                                      : fmt::format("no level meeting every SLO has {} with an interval", what);
    return out;
}

} // namespace detail

// One measurement of one configuration: its objective with its interval, or why it has none.
inline tune_measurement measure_objective(const tune_point& at, const std::vector<tune_level>& levels,
                                          const tune_level_settings& s, tune_objective objective) {
    tune_measurement out;
    if (levels.empty()) {
        out.at = at;
        out.infeasible = "no load level was run";
        return out;
    }
    switch (objective) {
    case tune_objective::capacity: {
        const auto c = estimate_capacity(levels, s);
        out.value = c->value;
        out.ci = c->ci;
        break;
    }
    case tune_objective::throughput:
        out = detail::best_passing_level(levels, s, objective_direction::higher_is_better,
                                         [](const tune_level& l) { return std::pair{l.output_tps, l.output_tps_ci}; },
                                         "an output throughput");
        break;
    case tune_objective::cost_per_good_token:
        out = detail::best_passing_level(levels, s, objective_direction::lower_is_better,
                                         [](const tune_level& l) { return std::pair{l.good_cost, l.good_cost_ci}; },
                                         "a cost per good token");
        break;
    }
    out.at = at;
    return out;
}

} // namespace servestat::load
