// Cost per token: what the deployment's price per hour buys in tokens, in USD per 1M output tokens,
// per 1M prompt + output tokens, and per 1M output tokens of the requests that met every SLO (the
// requests goodput counts), each with a confidence interval (docs/metrics.md#cost-per-token).
//
// Cost per 1M tokens = price per second × 1e6 / token rate, the token rate being tokens per second
// over the run's duration as run_stats takes it (first send to last end), so cost × output_tps is the
// price per 1M seconds whatever the run. Within one run the interval comes from batch means over time
// windows: the run's tokens per window are no independent draws (consecutive windows share the
// server's queue and batch), so neighbouring windows are merged until their rates' lag-1
// autocorrelation is small; the t-interval of the mean window rate then maps through price / rate
// (the ends swap). Where one configuration was measured more than once, the interval is Student's t
// over the runs' costs instead.
#pragma once

#include <algorithm> // std::min, std::max, std::all_of, std::find_if
#include <cmath>     // std::isfinite, std::floor, std::sqrt
#include <cstddef>   // std::size_t
#include <functional> // std::function
#include <memory>    // std::make_shared
#include <optional>  // std::optional
#include <span>      // std::span
#include <string>    // std::string
#include <string_view> // std::string_view
#include <vector>    // std::vector

#include <fmt/format.h> // fmt::format

#include "servestat/core/request_table.hpp" // request_table, is_present
#include "servestat/stats/goodput.hpp"      // slo, meets_slos
#include "servestat/stats/interval.hpp"     // interval
#include "servestat/stats/run_spread.hpp"   // spread_of_runs
#include "servestat/stats/student_t.hpp"    // mean_t_interval

namespace servestat {

// What the deployment costs (--cost-per-hour, --gpus): the price of the whole deployment per hour,
// or, with a number of GPUs, of each GPU.
struct deployment_price {
    double per_hour = 0;
    std::optional<int> gpus;
    double deployment_per_hour() const noexcept { return per_hour * (gpus ? *gpus : 1); }
    double per_second() const noexcept { return deployment_per_hour() / 3600; }
};

// USD per 1M tokens at `rate` tokens per second.
inline double cost_per_million(const deployment_price& p, double tokens_per_second) {
    return p.per_second() * 1e6 / tokens_per_second;
}

// One cost figure in USD per 1M tokens: its value (none, with `why`, where the run has no rate of
// these tokens), its interval and how it was drawn (none, with `why`, where it could not be).
struct cost_figure {
    std::optional<double> value;
    std::optional<interval> ci;
    std::string method; // "batch means over 10 windows of 12.3 s; lag-1 autocorrelation 0.05", "between 3 runs"
    std::string why;    // why there is no value, or no interval
    // Batch means: the windows the interval rests on, each one's length, and their rates' lag-1
    // autocorrelation; between runs: how many.
    std::optional<std::size_t> windows;
    std::optional<double> window_seconds, lag1;
    std::optional<std::size_t> runs;
};

// A run's three costs at one price. The good-token figure exists only with SLOs.
struct run_cost {
    deployment_price price;
    double confidence = 0.95;
    cost_figure per_1m_output, per_1m_total;
    std::optional<cost_figure> per_1m_good_output;
};

// ---- batch means within a run ------------------------------------------------------------------

// A request's tokens and when its last one arrived.
struct timed_tokens {
    double end = 0;
    double tokens = 0;
};

// The requests a figure counts, walked in place rather than copied (a run of 10^7 requests would
// hold 160 MB per figure): each(f) calls f(end, tokens) once per request.
using timed_tokens_walk = std::function<void(const std::function<void(double, double)>&)>;

inline timed_tokens_walk walk_of(std::span<const timed_tokens> ends) {
    return [ends](const std::function<void(double, double)>& f) {
        for (const auto& e : ends) f(e.end, e.tokens);
    };
}

inline constexpr std::size_t most_cost_windows = 20;
inline constexpr std::size_t fewest_cost_windows = 5;
inline constexpr std::size_t requests_per_cost_window = 5; // on average, at the least
// Above this lag-1 autocorrelation the windows are merged in pairs: their means are not yet
// independent enough for Student's t.
inline constexpr double merge_above_lag1 = 0.2;

// The token rate of each of `k` equal windows of [start, start + span): each request's tokens count
// in the window its last token arrived in (the run's last end falls in the last window).
inline std::vector<double> window_rates(const timed_tokens_walk& each, double start, double span, std::size_t k) {
    std::vector<double> tokens(k, 0.0);
    const double width = span / static_cast<double>(k);
    each([&](double end, double n) {
        const double at = std::floor((end - start) / width);
        tokens[at <= 0 ? 0 : std::min(k - 1, static_cast<std::size_t>(at))] += n;
    });
    for (double& t : tokens) t /= width;
    return tokens;
}

inline std::vector<double> window_rates(std::span<const timed_tokens> ends, double start, double span, std::size_t k) {
    return window_rates(walk_of(ends), start, span, k);
}

// Σ(x_i − x̄)(x_{i+1} − x̄) / Σ(x_i − x̄)², the usual estimator; 0 for a series that does not vary
// (nothing to correlate) or is shorter than 2.
inline double lag1_autocorrelation(std::span<const double> xs) {
    if (xs.size() < 2) return 0;
    double mean = 0;
    for (const double x : xs) mean += x;
    mean /= static_cast<double>(xs.size());
    double across = 0, squares = 0;
    for (std::size_t i = 0; i < xs.size(); ++i) {
        squares += (xs[i] - mean) * (xs[i] - mean);
        if (i + 1 < xs.size()) across += (xs[i] - mean) * (xs[i + 1] - mean);
    }
    return squares > 0 ? across / squares : 0.0;
}

// The interval of the mean token rate by batch means, and the windows it rests on.
struct batch_means_rate {
    std::optional<interval> ci; // of the rate, tokens per second
    std::size_t windows = 0;
    double window_seconds = 0;
    double lag1 = 0;
    bool still_correlated = false; // above merge_above_lag1 at the fewest windows
    std::string why;               // why there is no interval
};

// Windows: 20, or fewer so that 5 requests end in each on average; none below 5. While the window
// rates' lag-1 autocorrelation exceeds 0.2 and halving leaves 5 windows, the run is cut into half as
// many (for an even count, neighbouring windows merged in pairs; an odd one leaves no partner, so the
// span is cut afresh into equal windows). Then Student's t over the window rates.
// `count`: the requests `ends` walks.
inline batch_means_rate batch_means(const timed_tokens_walk& ends, std::size_t count, double start, double span,
                                    double confidence, const std::string& requests_word) {
    batch_means_rate out;
    std::size_t k = std::min(most_cost_windows, count / requests_per_cost_window);
    if (k < fewest_cost_windows) {
        out.why = fmt::format("{} {} ended: batch means needs {} ({} per window, {} windows at the least)", count,
                              requests_word, fewest_cost_windows * requests_per_cost_window, requests_per_cost_window,
                              fewest_cost_windows);
        return out;
    }
    std::vector<double> rates = window_rates(ends, start, span, k);
    double lag1 = lag1_autocorrelation(rates);
    while (lag1 > merge_above_lag1 && k / 2 >= fewest_cost_windows) {
        k /= 2;
        rates = window_rates(ends, start, span, k);
        lag1 = lag1_autocorrelation(rates);
    }
    out.windows = k;
    out.window_seconds = span / static_cast<double>(k);
    out.lag1 = lag1;
    out.still_correlated = lag1 > merge_above_lag1;
    double mean = 0;
    for (const double r : rates) mean += r;
    mean /= static_cast<double>(k);
    out.ci = mean_t_interval(mean, std::sqrt(detail::squared_deviations(rates, mean) / static_cast<double>(k - 1)), k,
                             confidence);
    return out;
}

// `b`: a batch_means_rate, or energy's batch_means_ratio (the same windows' fields).
template <class Windows>
std::string batch_means_method(const Windows& b) {
    std::string out = fmt::format("batch means over {} windows of {:.3g} s; lag-1 autocorrelation {:.2f}", b.windows,
                                  b.window_seconds, b.lag1);
    if (b.still_correlated)
        out += fmt::format(" (still above {:g} at {} windows: the interval may be too narrow)", merge_above_lag1, b.windows);
    return out;
}

// ---- one figure from a token rate ----------------------------------------------------------------

// What one figure is computed from: the tokens' rate over the run's duration, and where the requests
// are at hand, each one's tokens and end within the run's span.
struct token_rate_basis {
    std::optional<double> rate; // tokens per second over the run's duration
    std::string no_rate;        // why there is none
    timed_tokens_walk ends;     // the requests counted, with their ends
    std::size_t counted = 0;    // how many `ends` walks
    std::optional<double> start, span; // first send and duration, when the requests share one clock
    std::string no_windows;            // why the requests cannot be placed in windows
    std::string requests_word = "requests with tokens"; // what `ends` holds, for the reason
};

inline cost_figure cost_figure_of(const deployment_price& p, const token_rate_basis& b, double confidence) {
    cost_figure out;
    if (!b.rate || !(*b.rate > 0)) {
        out.why = b.no_rate;
        return out;
    }
    out.value = cost_per_million(p, *b.rate);
    if (!b.start || !b.span) {
        out.method = "batch means over time windows";
        out.why = b.no_windows;
        return out;
    }
    const batch_means_rate m = batch_means(b.ends, b.counted, *b.start, *b.span, confidence, b.requests_word);
    if (m.windows == 0) {
        out.method = "batch means over time windows";
        out.why = m.why;
        return out;
    }
    out.method = batch_means_method(m);
    out.windows = m.windows;
    out.window_seconds = m.window_seconds;
    out.lag1 = m.lag1;
    if (!m.ci) {
        out.why = "no Student's t interval of the window rates";
        return out;
    }
    if (!(m.ci->low > 0)) {
        out.why = fmt::format("the interval of the token rate reaches {:.4g} tok/s, so the cost has no upper bound", m.ci->low);
        return out;
    }
    out.ci = interval{cost_per_million(p, m.ci->high), cost_per_million(p, m.ci->low)}; // a higher rate costs less
    return out;
}

// ---- a run's three figures -----------------------------------------------------------------------

// A run's span as run_stats' duration takes it: from the first send to the last end, over every
// request with both (failed ones occupied the server too).
struct run_span {
    double first = 0, last = 0;
};

inline std::optional<run_span> span_of_requests(const request_table& t) {
    std::optional<run_span> out;
    for (std::size_t i = 0; i < t.size(); ++i) {
        const double s = t.t_sent()[i], e = t.t_end()[i];
        if (!is_present(s) || !is_present(e)) continue;
        if (!out) out = run_span{s, e};
        out->first = std::min(out->first, s);
        out->last = std::max(out->last, e);
    }
    if (out && !(out->last > out->first)) return std::nullopt;
    return out;
}

// What a run's rates rest on, as run_stats computed them.
struct run_rates {
    std::optional<double> duration;
    bool timed_by_requests = false; // the duration is the requests' span (not a tool's reported figure)
    bool nothing_completed = false;
    std::optional<double> output_tps, total_tps;
};

namespace detail {

inline std::string no_rate_reason(const run_rates& r, const char* tokens) {
    if (r.nothing_completed) return "nothing completed";
    if (!r.duration) return "the run has no duration (no shared clock, and its tool reported none)";
    return fmt::format("the successful requests carry no {} token counts", tokens);
}

// The requests `tokens` counts (a count for request i, or none) as a walk over their ends, and how
// many it walks; those counted but without an end go to `untimed`, for the windows would miss them.
template <class Tokens>
void walk_counted(const request_table& t, Tokens tokens, token_rate_basis& b, std::size_t& untimed) {
    for (std::size_t i = 0; i < t.size(); ++i)
        if (tokens(i)) ++(is_present(t.t_end()[i]) ? b.counted : untimed);
    b.ends = [&t, tokens](const std::function<void(double, double)>& f) {
        for (std::size_t i = 0; i < t.size(); ++i)
            if (const auto n = tokens(i); n && is_present(t.t_end()[i])) f(t.t_end()[i], *n);
    };
}

inline void place_in_windows(token_rate_basis& b, const std::optional<run_span>& span, const run_rates& r,
                             std::size_t untimed) {
    if (!r.timed_by_requests || !span) {
        b.no_windows = "no shared clock: the requests cannot be placed in time windows";
        return;
    }
    if (untimed > 0) {
        b.no_windows = fmt::format("{} requests with tokens have no end time, so the windows would miss their tokens", untimed);
        return;
    }
    b.start = span->first;
    b.span = span->last - span->first;
}

// The requests that met every SLO (what goodput counts, goodput.hpp), how many, their output tokens
// (`output(i)` a request's count, or none) and the walk over their ends for the windows: the good
// figures of cost and energy both rest on it.
struct good_output {
    token_rate_basis basis;
    std::size_t requests = 0;
    double tokens = 0;
};

template <class Output>
good_output good_output_of(const request_table& t, const std::vector<slo>& slos, Output output,
                           const std::optional<run_span>& span, const run_rates& r) {
    good_output out;
    out.basis.requests_word = "requests that met every SLO";
    // Shared: the walk outlives this function, inside the basis returned.
    auto met = std::make_shared<std::vector<bool>>(t.size());
    for (std::size_t i = 0; i < t.size(); ++i) {
        (*met)[i] = meets_slos(t, i, slos);
        out.requests += (*met)[i] ? 1 : 0;
        if (const auto n = (*met)[i] ? output(i) : std::nullopt) out.tokens += *n;
    }
    std::size_t untimed = 0;
    walk_counted(t, [met, output](std::size_t i) { return (*met)[i] ? output(i) : std::nullopt; }, out.basis, untimed);
    place_in_windows(out.basis, span, r, untimed);
    return out;
}

} // namespace detail

// The costs of a run from its requests: output and total tokens as output_tps and total_tps count
// them (successful requests), good output tokens those of the requests meets_slos passes.
inline run_cost cost_of_run(const request_table& t, const run_rates& r, const deployment_price& p,
                            const std::vector<slo>& slos, double confidence) {
    run_cost out{p, confidence, {}, {}, std::nullopt};
    const auto span = span_of_requests(t);
    const auto output = [&](std::size_t i) -> std::optional<double> {
        if (t.status()[i] != request_status::ok || !is_present(t.output_tokens()[i])) return std::nullopt;
        return static_cast<double>(t.output_tokens()[i]);
    };
    const auto total = [&](std::size_t i) -> std::optional<double> {
        if (!output(i) || !is_present(t.prompt_tokens()[i])) return std::nullopt;
        return static_cast<double>(t.output_tokens()[i]) + static_cast<double>(t.prompt_tokens()[i]);
    };

    token_rate_basis o, a;
    o.rate = r.nothing_completed ? std::nullopt : r.output_tps;
    o.no_rate = detail::no_rate_reason(r, "output");
    o.requests_word = "successful requests with output tokens";
    a.rate = r.nothing_completed ? std::nullopt : r.total_tps;
    a.no_rate = r.duration && !r.nothing_completed && r.output_tps
                    ? std::string("some successful request lacks its prompt or output token count")
                    : detail::no_rate_reason(r, "output");
    a.requests_word = "successful requests with prompt and output token counts";
    std::size_t untimed_output = 0, untimed_total = 0;
    detail::walk_counted(t, output, o, untimed_output);
    detail::walk_counted(t, total, a, untimed_total);
    detail::place_in_windows(o, span, r, untimed_output);
    detail::place_in_windows(a, span, r, untimed_total);
    out.per_1m_output = cost_figure_of(p, o, confidence);
    out.per_1m_total = cost_figure_of(p, a, confidence);
    if (slos.empty()) return out;

    auto good = detail::good_output_of(t, slos, output, span, r);
    token_rate_basis& g = good.basis;
    if (r.duration && !r.nothing_completed && good.tokens > 0) g.rate = good.tokens / *r.duration;
    g.no_rate = r.nothing_completed || !r.duration ? detail::no_rate_reason(r, "output")
                : good.requests == 0               ? std::string("no request met every SLO")
                                                   : std::string("the requests that met every SLO carry no output tokens");
    out.per_1m_good_output = cost_figure_of(p, g, confidence);
    return out;
}

// The costs of a run known by its totals only (a summary file, or a log streamed past the memory
// limit): the values, but no interval, which needs each request's end.
inline run_cost cost_of_totals(const run_rates& r, std::optional<double> good_output_tokens, std::size_t good_requests,
                               bool with_slos, const deployment_price& p, double confidence) {
    const std::string no_windows = "known by its totals, not its requests (a summary file, or a log streamed past the "
                                   "memory limit): the windows need each request's end";
    run_cost out{p, confidence, {}, {}, std::nullopt};
    token_rate_basis o, a;
    o.rate = r.nothing_completed ? std::nullopt : r.output_tps;
    o.no_rate = detail::no_rate_reason(r, "output");
    o.no_windows = no_windows;
    a.rate = r.nothing_completed ? std::nullopt : r.total_tps;
    a.no_rate = r.output_tps ? "some successful request lacks its prompt or output token count" : o.no_rate;
    a.no_windows = no_windows;
    out.per_1m_output = cost_figure_of(p, o, confidence);
    out.per_1m_total = cost_figure_of(p, a, confidence);
    if (!with_slos) return out;
    token_rate_basis g;
    if (r.duration && !r.nothing_completed && good_output_tokens && *good_output_tokens > 0)
        g.rate = *good_output_tokens / *r.duration;
    g.no_rate = r.nothing_completed || !r.duration ? detail::no_rate_reason(r, "output")
                : good_requests == 0               ? std::string("no request met every SLO")
                : !good_output_tokens              ? std::string("the summary holds no count of the good requests' output tokens")
                                                   : std::string("the requests that met every SLO carry no output tokens");
    g.no_windows = no_windows;
    out.per_1m_good_output = cost_figure_of(p, g, confidence);
    return out;
}

// ---- between runs --------------------------------------------------------------------------------

// One figure of a configuration measured by several runs: the mean of the runs' costs and Student's t
// interval over them (stats/run_spread.hpp). Every run must have the figure: a mean of the runs that
// had good tokens would hide the one that had none.
inline cost_figure figure_between_runs(std::span<const cost_figure* const> runs, double confidence,
                                       const char* what = "costs") {
    cost_figure out;
    out.runs = runs.size();
    out.method = fmt::format("between {} runs", runs.size());
    std::vector<double> values;
    for (const auto* f : runs)
        if (f->value) values.push_back(*f->value);
    if (values.size() < runs.size()) {
        const auto missing = std::find_if(runs.begin(), runs.end(), [](const cost_figure* f) { return !f->value; });
        out.why = fmt::format("{} of the {} runs {} none ({})", runs.size() - values.size(), runs.size(),
                              runs.size() - values.size() == 1 ? "has" : "have", (*missing)->why);
        return out;
    }
    const auto s = spread_of_runs(values, confidence);
    if (!s) {
        out.why = "a run's figure is not finite";
        return out;
    }
    out.value = s->mean;
    if (!s->mean_ci) out.why = "fewer than 2 runs";
    else if (!(s->mean_ci->low > 0)) out.why = fmt::format("the runs' {} lie so far apart that the interval reaches 0", what);
    else out.ci = s->mean_ci;
    return out;
}

namespace detail {

// One figure between `runs`, each run's picked by `figure(run)` (a cost's or an energy's).
template <class Run, class Pick>
cost_figure between_runs_of(std::span<const Run* const> runs, double confidence, const char* what, Pick figure) {
    std::vector<const cost_figure*> figures;
    for (const auto* r : runs) figures.push_back(figure(*r));
    return figure_between_runs(figures, confidence, what);
}

// Whether a configuration's runs can be taken together: some, and none without the figures.
template <class Run>
bool every_run_has(std::span<const Run* const> runs) {
    return !runs.empty() && std::all_of(runs.begin(), runs.end(), [](const Run* r) { return r != nullptr; });
}

} // namespace detail

// The costs of one configuration measured by `runs` (two or more), at the first run's price and
// confidence; the good-token figure only where every run has one (every run had SLOs).
inline std::optional<run_cost> cost_between_runs(std::span<const run_cost* const> runs) {
    if (!detail::every_run_has(runs)) return std::nullopt;
    if (runs.size() == 1) return *runs.front();
    run_cost out{runs.front()->price, runs.front()->confidence, {}, {}, std::nullopt};
    const auto between = [&](auto&& figure) { return detail::between_runs_of(runs, out.confidence, "costs", figure); };
    out.per_1m_output = between([](const run_cost& r) { return &r.per_1m_output; });
    out.per_1m_total = between([](const run_cost& r) { return &r.per_1m_total; });
    const bool good = std::all_of(runs.begin(), runs.end(), [](const run_cost* r) { return r->per_1m_good_output.has_value(); });
    if (good) out.per_1m_good_output = between([](const run_cost& r) { return &*r.per_1m_good_output; });
    return out;
}

// The figures of a run's cost by their JSON names, in order; the good one null without SLOs.
inline const cost_figure* find_cost_figure(const run_cost& c, std::string_view name) {
    if (name == "per_1m_output") return &c.per_1m_output;
    if (name == "per_1m_total") return &c.per_1m_total;
    if (name == "per_1m_good_output") return c.per_1m_good_output ? &*c.per_1m_good_output : nullptr;
    return nullptr;
}

} // namespace servestat
