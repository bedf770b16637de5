// Energy per token: the GPUs' energy over a run divided by the tokens it served, in J per output
// token, output tokens per J and J per output token of the requests that met every SLO, each with a
// confidence interval (docs/metrics.md#energy-per-token).
//
// The energy comes from the GPU power the driver sampled during the run (servestat load
// --scrape-interval, with --power-url for an exporter of its own): the DCGM exporter's energy counter
// where it is there (it integrates on the GPU, between the scrapes too), else its power gauge or the
// gauge --power-metric names, integrated by the trapezoid rule. A result file's own total energy
// (InferenceX, TensorRT-LLM) is the fallback. Within a run the interval is batch means over time
// windows, as for cost (cost.hpp), but of a ratio: each window's energy against the tokens that ended
// in it, whose spread about the run's ratio gives the ratio's standard error (the delta method).
// Between replicates it is Student's t over the runs, as for cost.
#pragma once

#include <algorithm>   // std::min, std::max, std::max_element, std::sort, std::all_of, std::find_if, std::count_if
#include <cmath>       // std::isfinite, std::isnan, std::floor, std::sqrt
#include <cstddef>     // std::size_t
#include <filesystem>  // std::filesystem::path
#include <optional>    // std::optional
#include <span>        // std::span
#include <string>      // std::string
#include <string_view> // std::string_view
#include <utility>     // std::move, std::pair
#include <vector>      // std::vector

#include <fmt/format.h> // fmt::format

#include "servestat/core/request_table.hpp"      // request_table, is_present
#include "servestat/core/run.hpp"                // run_metadata, find_reported
#include "servestat/ingest/metrics_timeline.hpp" // server_timeline
#include "servestat/stats/cost.hpp"              // cost_figure, run_rates, timed_tokens_walk, lag1_autocorrelation, detail::good_output_of
#include "servestat/stats/goodput.hpp"           // slo
#include "servestat/stats/student_t.hpp"         // mean_t_interval

namespace servestat {

// An energy figure has a cost figure's shape: a value or why none, an interval and its method or why
// none, and the windows or runs it rests on.
using energy_figure = cost_figure;

// DCGM exporter names (NVIDIA/dcgm-exporter's default counters): board power in W, and the energy
// since the driver loaded in mJ, one series per GPU (summed over the GPUs in the timeline).
inline constexpr std::string_view dcgm_energy_counter = "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION";
inline constexpr std::string_view dcgm_power_gauge = "DCGM_FI_DEV_POWER_USAGE";

// A run's energy and its figures. `source` says where the joules came from.
struct run_energy {
    double confidence = 0.95;
    std::string source;   // "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION (mJ counter, 2 GPUs) on run.power-timeline.jsonl"
    std::string why;      // why there is no energy (the source is there but cannot cover the run)
    std::optional<double> joules;     // over the run's duration
    std::optional<double> mean_watts; // joules / duration
    std::vector<std::string> notes;   // the samples' span and gaps, extrapolated ends
    energy_figure per_output_token;   // J
    energy_figure output_tokens_per_joule;
    std::optional<energy_figure> per_good_output_token; // with SLOs
};

// ---- the energy used up to any time of the run ---------------------------------------------------

// Joules used since the first sample, known at each sample and linear between them; outside the
// samples the power at the nearer end is held (a gauge's value, a counter's last slope).
struct energy_curve {
    std::vector<double> t, joules;
    double head_watts = 0, tail_watts = 0;

    double at(double x) const {
        if (x <= t.front()) return joules.front() - head_watts * (t.front() - x);
        if (x >= t.back()) return joules.back() + tail_watts * (x - t.back());
        const std::size_t i = static_cast<std::size_t>(std::upper_bound(t.begin(), t.end(), x) - t.begin());
        const double f = (x - t[i - 1]) / (t[i] - t[i - 1]);
        return joules[i - 1] + f * (joules[i] - joules[i - 1]);
    }
    double between(double a, double b) const { return at(b) - at(a); }
};

namespace detail {

// The samples of one series that the scrapes had: (t, value) pairs; a scrape without it is a gap.
struct series_samples {
    std::vector<double> t, v;
};

inline series_samples present_samples(const server_timeline& tl, const std::vector<double>& values) {
    series_samples out;
    for (std::size_t i = 0; i < tl.t.size() && i < values.size(); ++i)
        if (std::isfinite(values[i])) {
            out.t.push_back(tl.t[i]);
            out.v.push_back(values[i]);
        }
    return out;
}

// The counter in mJ as joules since its first sample; none, with why, where it went back (the
// exporter or driver restarted: the energy across the reset is unknown).
inline std::optional<energy_curve> curve_of_counter(const series_samples& s, std::string& why) {
    energy_curve c;
    for (std::size_t i = 0; i < s.t.size(); ++i) {
        if (i > 0 && s.v[i] < s.v[i - 1]) {
            why = fmt::format("the energy counter went back at t = {:.2f} s (a reset)", s.t[i]);
            return std::nullopt;
        }
        c.t.push_back(s.t[i]);
        c.joules.push_back((s.v[i] - s.v.front()) / 1000);
    }
    const std::size_t n = c.t.size();
    c.head_watts = (c.joules[1] - c.joules[0]) / (c.t[1] - c.t[0]);
    c.tail_watts = (c.joules[n - 1] - c.joules[n - 2]) / (c.t[n - 1] - c.t[n - 2]);
    return c;
}

// A gauge in W integrated by the trapezoid rule between samples.
inline energy_curve curve_of_gauge(const series_samples& s) {
    energy_curve c;
    c.t = s.t;
    c.joules.assign(s.t.size(), 0.0);
    for (std::size_t i = 1; i < s.t.size(); ++i)
        c.joules[i] = c.joules[i - 1] + (s.v[i] + s.v[i - 1]) / 2 * (s.t[i] - s.t[i - 1]);
    c.head_watts = s.v.front();
    c.tail_watts = s.v.back();
    return c;
}

inline double median_gap(const std::vector<double>& t) {
    std::vector<double> gaps;
    for (std::size_t i = 1; i < t.size(); ++i) gaps.push_back(t[i] - t[i - 1]);
    std::sort(gaps.begin(), gaps.end());
    return gaps[gaps.size() / 2];
}

} // namespace detail

// Which series a run's energy is read from, and from which timeline.
struct power_series {
    const server_timeline* timeline = nullptr;
    std::string name;
    bool counter = false; // mJ since some moment; else a gauge in W
};

namespace detail {

// ", summed over 8 GPUs" where the series had more than one label set (DCGM: one per GPU): a reader
// judging the watts needs to know how many boards they are.
inline std::string gpus_text(const power_series& p) {
    const auto it = p.timeline->label_sets.find(p.name);
    if (it == p.timeline->label_sets.end() || it->second.empty()) return {};
    const double most = *std::max_element(it->second.begin(), it->second.end());
    return most > 1 ? fmt::format(", summed over {:.0f} {}", most, p.name.starts_with("DCGM_") ? "GPUs" : "label sets") : std::string();
}

} // namespace detail

// The series to integrate: the one --power-metric names (a gauge in W), else DCGM's energy counter,
// else DCGM's power gauge; the power timeline (--power-url) before the server's own. None without
// either; with a name given but nowhere, none, with why.
inline std::optional<power_series> find_power_series(const run_metadata& meta, const std::string& power_metric,
                                                     std::string& why) {
    const server_timeline* timelines[] = {meta.power_timeline.get(), meta.server_timeline.get()};
    const auto look = [&](std::string_view name, bool counter) -> std::optional<power_series> {
        for (const auto* tl : timelines)
            if (tl && tl->find(name)) return power_series{tl, std::string(name), counter};
        return std::nullopt;
    };
    if (!power_metric.empty()) {
        auto found = look(power_metric, false);
        if (!found) {
            why = timelines[0] || timelines[1]
                      ? fmt::format("--power-metric {}: no scrape of the run's timelines has it", power_metric)
                      : fmt::format("--power-metric {}: the run has no /metrics timeline (servestat load --scrape-interval)",
                                    power_metric);
            return std::nullopt;
        }
        const auto type = found->timeline->types.find(power_metric);
        if (type != found->timeline->types.end() && type->second != "gauge" && type->second != "untyped") {
            why = fmt::format("--power-metric {}: a {}, not a gauge in W", power_metric, type->second);
            return std::nullopt;
        }
        return found;
    }
    if (auto c = look(dcgm_energy_counter, true)) return c;
    return look(dcgm_power_gauge, false);
}

// The curve of the series over the run's span [first, last]: none, with why, where it has fewer than
// two samples or they miss more than one scrape interval at either end of the run (the power held
// over a longer stretch would be a guess). Notes say what was held and where samples were missing.
inline std::optional<energy_curve> energy_curve_over(const power_series& p, double first, double last, std::string& why,
                                                     std::vector<std::string>& notes) {
    const auto s = detail::present_samples(*p.timeline, *p.timeline->find(p.name));
    if (s.t.size() < 2) {
        why = fmt::format("{} was sampled {} time{}: the energy needs two samples at the least", p.name, s.t.size(),
                          s.t.size() == 1 ? "" : "s");
        return std::nullopt;
    }
    const double step = p.timeline->interval > 0 ? p.timeline->interval : detail::median_gap(s.t);
    const double before = s.t.front() - first, after = last - s.t.back();
    if (before > step || after > step) {
        why = fmt::format("{}'s samples cover t = {:.2f}–{:.2f} s, the run {:.2f}–{:.2f} s: more than one scrape interval "
                          "({:g} s) of the run has no power sample",
                          p.name, s.t.front(), s.t.back(), first, last, step);
        return std::nullopt;
    }
    // Said where it matters: a scrape's first or last few milliseconds beyond the samples do not.
    if (std::max(0.0, before) + std::max(0.0, after) > 0.01 * (last - first)) {
        std::string held;
        if (before > 0) held = fmt::format("{:.3g} s before the first sample", before);
        if (after > 0) held += fmt::format("{}{:.3g} s after the last", held.empty() ? "" : " and ", after);
        notes.push_back("the power at the nearer sample is held over the run's " + held);
    }
    double widest = 0, at = 0;
    for (std::size_t i = 1; i < s.t.size(); ++i)
        if (s.t[i] - s.t[i - 1] > widest) {
            widest = s.t[i] - s.t[i - 1];
            at = s.t[i - 1];
        }
    if (widest > 2.5 * step)
        notes.push_back(fmt::format("{} has a gap of {:.3g} s from t = {:.2f} s (failed scrapes), bridged by a straight line",
                                    p.name, widest, at));
    if (p.counter) return detail::curve_of_counter(s, why);
    return detail::curve_of_gauge(s);
}

// ---- batch means of a ratio ----------------------------------------------------------------------

struct batch_means_ratio {
    std::optional<interval> ci; // of joules per token
    std::size_t windows = 0;
    double window_seconds = 0;
    double lag1 = 0;
    bool still_correlated = false;
    std::string why;
};

namespace detail {

// Each window's energy and the tokens that ended in it; the residuals e_k − R·n_k, R = Σe / Σn.
struct window_ratio {
    std::vector<double> energy, tokens, residuals;
    double ratio = 0;
};

inline window_ratio windows_of(const energy_curve& c, const timed_tokens_walk& ends, double start, double span,
                               std::size_t k) {
    window_ratio w;
    const double width = span / static_cast<double>(k);
    w.tokens = window_rates(ends, start, span, k);
    double energy = 0, tokens = 0;
    for (std::size_t i = 0; i < k; ++i) {
        w.tokens[i] *= width;
        const double a = start + width * static_cast<double>(i), b = i + 1 == k ? start + span : a + width;
        w.energy.push_back(c.between(a, b));
        energy += w.energy.back();
        tokens += w.tokens[i];
    }
    w.ratio = tokens > 0 ? energy / tokens : 0;
    for (std::size_t i = 0; i < k; ++i) w.residuals.push_back(w.energy[i] - w.ratio * w.tokens[i]);
    return w;
}

} // namespace detail

// As cost's batch means (20 windows, or fewer so that 5 requests end in each; none below 5; halved
// while the lag-1 autocorrelation exceeds 0.2), with two differences: a window is never narrower
// than the power's scrape interval, for the energy inside a narrower one would be interpolated, and
// the autocorrelation is of the residuals, whose mean's spread is the ratio's. The interval is
// R ± t·s / (√K · n̄): s the residuals' standard deviation, n̄ the mean tokens per window.
inline batch_means_ratio ratio_batch_means(const energy_curve& c, double scrape_step, const timed_tokens_walk& ends,
                                           std::size_t count, double start, double span, double confidence,
                                           const std::string& requests_word) {
    batch_means_ratio out;
    const std::size_t by_scrapes = scrape_step > 0 ? static_cast<std::size_t>(std::floor(span / scrape_step)) : most_cost_windows;
    std::size_t k = std::min({most_cost_windows, count / requests_per_cost_window, by_scrapes});
    if (k < fewest_cost_windows) {
        out.why = count / requests_per_cost_window < fewest_cost_windows
                      ? fmt::format("{} {} ended: batch means needs {} ({} per window, {} windows at the least)", count,
                                    requests_word, fewest_cost_windows * requests_per_cost_window,
                                    requests_per_cost_window, fewest_cost_windows)
                      : fmt::format("the run's {:.3g} s hold {} scrape interval{} of {:g} s: batch means needs {} windows "
                                    "at the least, each one interval wide or more",
                                    span, by_scrapes, by_scrapes == 1 ? "" : "s", scrape_step, fewest_cost_windows);
        return out;
    }
    auto w = detail::windows_of(c, ends, start, span, k);
    double lag1 = lag1_autocorrelation(w.residuals);
    while (lag1 > merge_above_lag1 && k / 2 >= fewest_cost_windows) {
        k /= 2;
        w = detail::windows_of(c, ends, start, span, k);
        lag1 = lag1_autocorrelation(w.residuals);
    }
    out.windows = k;
    out.window_seconds = span / static_cast<double>(k);
    out.lag1 = lag1;
    out.still_correlated = lag1 > merge_above_lag1;
    double tokens = 0, squares = 0;
    for (std::size_t i = 0; i < k; ++i) {
        tokens += w.tokens[i];
        squares += w.residuals[i] * w.residuals[i];
    }
    const double mean_tokens = tokens / static_cast<double>(k);
    if (!(mean_tokens > 0)) {
        out.why = "no tokens ended in the windows";
        return out;
    }
    out.ci = mean_t_interval(w.ratio, std::sqrt(squares / static_cast<double>(k - 1)) / mean_tokens, k, confidence);
    return out;
}

// ---- a run's figures -----------------------------------------------------------------------------

namespace detail {

// J per token and tokens per J from `joules` over `tokens`, with the windows' interval where the
// curve and the requests' ends are at hand.
struct energy_pair {
    energy_figure per_token, tokens_per_joule;
};

inline energy_pair energy_figures(double joules, std::optional<double> tokens, const std::string& no_tokens,
                                  const energy_curve* curve, double scrape_step, const token_rate_basis& b,
                                  double confidence, const std::string& no_curve) {
    energy_pair out;
    if (!tokens || !(*tokens > 0)) {
        out.per_token.why = out.tokens_per_joule.why = no_tokens;
        return out;
    }
    out.per_token.value = joules / *tokens;
    out.tokens_per_joule.value = *tokens / joules;
    const auto without = [&](const std::string& method, const std::string& why) {
        out.per_token.method = out.tokens_per_joule.method = method;
        out.per_token.why = out.tokens_per_joule.why = why;
    };
    if (!curve) {
        without("", no_curve);
        return out;
    }
    if (!b.start || !b.span) {
        without("batch means over time windows", b.no_windows);
        return out;
    }
    const auto m = ratio_batch_means(*curve, scrape_step, b.ends, b.counted, *b.start, *b.span, confidence, b.requests_word);
    if (m.windows == 0) {
        without("batch means over time windows", m.why);
        return out;
    }
    for (auto* f : {&out.per_token, &out.tokens_per_joule}) {
        f->method = batch_means_method(m);
        f->windows = m.windows;
        f->window_seconds = m.window_seconds;
        f->lag1 = m.lag1;
    }
    if (!m.ci) {
        out.per_token.why = out.tokens_per_joule.why = "no Student's t interval of the windows";
        return out;
    }
    if (!(m.ci->low > 0)) {
        out.per_token.why = out.tokens_per_joule.why =
            fmt::format("the interval of J per token reaches {:.4g}, so tokens per J has no upper bound", m.ci->low);
        return out;
    }
    out.per_token.ci = m.ci;
    out.tokens_per_joule.ci = interval{1 / m.ci->high, 1 / m.ci->low};
    return out;
}

// A result file's own total energy, by the names its reader gives it: AIPerf's GPU telemetry (NVIDIA
// or AMD), InferenceX's harness and TensorRT-LLM's NVML figure.
inline std::optional<std::pair<double, std::string>> reported_energy(const run_metadata& meta) {
    for (const char* name : {"aiperf.nvidia_total_gpu_energy", "aiperf.amd_total_gpu_energy", "inferencex.total_gpu_energy_j",
                             "trtllm.energy.total_energy_j"})
        if (const auto* v = find_reported(meta, name); v && std::isfinite(v->value) && v->value > 0)
            return std::pair{v->value, std::string(name)};
    return std::nullopt;
}

// A run's duration and output tokens: its requests' (run_stats' rates), else what its tool reported
// (a summary file's output_tps over its duration).
struct run_totals {
    std::optional<double> duration, output_tokens;
};

inline run_totals totals_of(const run_metadata& meta, const run_rates& r) {
    if (r.duration && r.output_tps) return {r.duration, *r.output_tps * *r.duration};
    const auto* d = find_reported(meta, "duration");
    const auto* tps = find_reported(meta, "output_tps");
    run_totals out{r.duration, std::nullopt};
    if (!out.duration && d && d->value > 0) out.duration = d->value;
    if (out.duration && tps && tps->value > 0) out.output_tokens = tps->value * *out.duration;
    return out;
}

} // namespace detail

// What a run's energy is computed from besides its requests: its rates, and its good requests'
// output tokens where SLOs were given (good_output_tokens; none without SLOs).
struct energy_inputs {
    run_rates rates;
    bool with_slos = false;
    // A run known by its totals only: its good requests and their output tokens (none unknown).
    std::optional<double> good_output_tokens;
    std::size_t good_requests = 0;
    std::string power_metric; // --power-metric
    double confidence = 0.95;
};

// A run's energy, or none where nothing in it tells the power (no timeline with a power series, no
// reported energy, and no --power-metric asked for). `t` may be null: a run known by its totals.
inline std::optional<run_energy> energy_of_run(const run_metadata& meta, const request_table* t, const energy_inputs& in,
                                               const std::vector<slo>& slos) {
    run_energy out;
    out.confidence = in.confidence;
    const auto series = find_power_series(meta, in.power_metric, out.why);
    const auto reported = series ? std::nullopt : detail::reported_energy(meta);
    if (!series && !reported) {
        if (in.power_metric.empty()) return std::nullopt;
        return out; // asked for, and why there is none
    }
    const auto span = t ? span_of_requests(*t) : std::nullopt;
    std::optional<energy_curve> curve;
    double step = 0;
    if (series) {
        out.source = fmt::format("{} ({}{}) on {}", series->name, series->counter ? "mJ counter" : "W gauge, trapezoid rule",
                                 detail::gpus_text(*series),
                                 std::filesystem::path(series->timeline->file).filename().string());
        if (!span || !in.rates.timed_by_requests) {
            out.why = t ? "the run's requests have no shared clock to set against the power samples"
                        : "known by its totals, not its requests (a log streamed past the memory limit): the power "
                          "samples need the requests' times";
            return out;
        }
        curve = energy_curve_over(*series, span->first, span->last, out.why, out.notes);
        if (!curve) return out;
        step = series->timeline->interval > 0 ? series->timeline->interval : detail::median_gap(curve->t);
        out.joules = curve->between(span->first, span->last);
    } else {
        out.source = fmt::format("{} (the result file's total)", reported->second);
        out.joules = reported->first;
    }
    const auto totals = detail::totals_of(meta, in.rates);
    if (totals.duration && *totals.duration > 0) out.mean_watts = *out.joules / *totals.duration;

    const std::string no_output = in.rates.nothing_completed ? "nothing completed"
                                  : !totals.duration          ? "the run has no duration, so no token count over it"
                                                              : "the successful requests carry no output token counts";
    const std::string no_curve = "the result file gives one total, not the power over time: no windows";

    token_rate_basis o;
    std::size_t untimed = 0;
    const auto output_of = [t](std::size_t i) -> std::optional<double> {
        if (t->status()[i] != request_status::ok || !is_present(t->output_tokens()[i])) return std::nullopt;
        return static_cast<double>(t->output_tokens()[i]);
    };
    o.requests_word = "successful requests with output tokens";
    if (t) {
        detail::walk_counted(*t, output_of, o, untimed);
        detail::place_in_windows(o, span, in.rates, untimed);
    }
    auto figures = detail::energy_figures(*out.joules, totals.output_tokens, no_output,
                                          curve ? &*curve : nullptr, step, o, in.confidence, no_curve);
    out.per_output_token = std::move(figures.per_token);
    out.output_tokens_per_joule = std::move(figures.tokens_per_joule);
    if (!in.with_slos) return out;

    // Good as for the cost per good token; a run known by its totals brings its own counts.
    detail::good_output good{{}, in.good_requests, in.good_output_tokens.value_or(0)};
    good.basis.requests_word = "requests that met every SLO";
    std::optional<double> good_tokens = in.good_output_tokens;
    if (t) {
        good = detail::good_output_of(*t, slos, output_of, span, in.rates);
        good_tokens = good.tokens;
    }
    const std::string no_good = in.rates.nothing_completed ? "nothing completed"
                                : good.requests == 0        ? "no request met every SLO"
                                : !good_tokens              ? "no count of the good requests' output tokens"
                                                            : "the requests that met every SLO carry no output tokens";
    out.per_good_output_token =
        detail::energy_figures(*out.joules, good_tokens, no_good, curve ? &*curve : nullptr, step, good.basis, in.confidence,
                               no_curve)
            .per_token;
    return out;
}

// The energy of one configuration measured by `runs` (two or more): each figure's mean over the runs
// with Student's t between them; none unless every run has an energy.
inline std::optional<run_energy> energy_between_runs(std::span<const run_energy* const> runs) {
    if (!detail::every_run_has(runs)) return std::nullopt;
    if (runs.size() == 1) return *runs.front();
    run_energy out;
    out.confidence = runs.front()->confidence;
    out.source = runs.front()->source;
    // The views read `joules` as "there is an energy": the runs' mean, or none with the first's why.
    const auto lacks = [](const run_energy* r) { return !r->joules; };
    if (const auto first = std::find_if(runs.begin(), runs.end(), lacks); first != runs.end()) {
        const auto n = std::count_if(runs.begin(), runs.end(), lacks);
        out.why = fmt::format("{} of the {} runs {} no energy ({})", n, runs.size(), n == 1 ? "has" : "have", (*first)->why);
        return out;
    }
    double joules = 0;
    for (const auto* r : runs) joules += *r->joules;
    out.joules = joules / static_cast<double>(runs.size());
    const auto between = [&](auto&& figure) { return detail::between_runs_of(runs, out.confidence, "values", figure); };
    out.per_output_token = between([](const run_energy& r) { return &r.per_output_token; });
    out.output_tokens_per_joule = between([](const run_energy& r) { return &r.output_tokens_per_joule; });
    if (std::all_of(runs.begin(), runs.end(), [](const run_energy* r) { return r->per_good_output_token.has_value(); }))
        out.per_good_output_token = between([](const run_energy& r) { return &*r.per_good_output_token; });
    // The mean power over the runs; their joules are no one figure (each run's own duration).
    double watts = 0;
    for (const auto* r : runs) {
        if (!r->mean_watts) return out;
        watts += *r->mean_watts;
    }
    out.mean_watts = watts / static_cast<double>(runs.size());
    return out;
}

} // namespace servestat
