// Everything `servestat stats` computes for one run: counts, rates, concurrency, errors, goodput,
// and a summary of every metric in every subset.
#pragma once

#include <algorithm> // std::max, std::min
#include <array>     // std::array
#include <cstddef>   // std::size_t
#include <cstdint>   // std::int32_t, std::uint64_t
#include <functional> // std::function
#include <optional>  // std::optional
#include <span>      // std::span
#include <string>    // std::string
#include <string_view> // std::string_view
#include <vector>    // std::vector

#include "servestat/core/run.hpp"          // run
#include "servestat/stats/breakdown.hpp"   // breakdown, break_down
#include "servestat/stats/time_split.hpp"  // time_split, split_time
#include "servestat/stats/cold_start.hpp"  // cold_start, detect_cold_start
#include "servestat/stats/compensated_sum.hpp" // compensated_sum
#include "servestat/stats/cost.hpp"        // deployment_price, run_cost, cost_of_run, span_of_requests
#include "servestat/stats/energy.hpp"      // run_energy, energy_of_run
#include "servestat/stats/error_kinds.hpp" // error_count, count_errors
#include "servestat/stats/goodput.hpp"     // slo, count_good
#include "servestat/stats/steady_state.hpp" // steady_state_detection, detect_steady_state
#include "servestat/stats/metrics.hpp"     // metric, collect_metric
#include "servestat/stats/subsets.hpp"     // subset_options, split_into_subsets
#include "servestat/stats/summary.hpp"     // summary, summarize_in_place
#include "servestat/core/parallel.hpp"      // parallel_for, worker_count
#include "servestat/stats/time_sort.hpp"   // detail::sort_times

namespace servestat {

struct stats_options {
    summary_options summary;
    subset_options subsets;
    std::vector<slo> slos; // goodput is computed only when some are given
    std::optional<deployment_price> price; // cost per token is computed only when given (--cost-per-hour)
    std::string power_metric; // --power-metric: the gauge in W energy per token integrates (energy.hpp)
    std::size_t threads = 0; // summaries computed side by side on this many threads; 0 = all cores
};

struct metric_summary {
    metric of;
    summary stats;
};

struct subset_stats {
    std::string name;
    std::size_t n = 0; // ok requests in the subset
    std::vector<metric_summary> metrics; // every metric, in all_metrics order
};

struct goodput_stats {
    std::vector<slo> slos;
    std::size_t good = 0;
    std::size_t unmeasurable = 0;
    std::optional<double> rps;   // good / duration
    std::optional<double> share; // good / requests
};

// A workload trace's shape: how many arrivals over how long, and how bursty.
struct arrival_stats {
    std::size_t count = 0;
    std::optional<double> span, rate; // first to last arrival; count / span
    summary gaps;                     // inter-arrival times: cov > 1 means burstier than Poisson
};

// A plain mean gathered value by value, or piece by piece and merged in any order.
struct mean_accumulator {
    compensated_sum sum;
    std::uint64_t n = 0;

    void add(double x) noexcept {
        sum.add(x);
        ++n;
    }
    void merge(const mean_accumulator& other) noexcept {
        sum.merge(other.sum);
        n += other.n;
    }
    std::optional<double> mean() const {
        return n == 0 ? std::nullopt : std::optional<double>(sum.value() / static_cast<double>(n));
    }
};

// Adds the values of `column` (an optional column: empty when no request has the field) that the
// successful requests carry, as latencies take only theirs.
inline void add_ok_values(const request_table& t, std::span<const double> column, mean_accumulator& into) {
    if (column.empty()) return;
    const auto status = t.status();
    for (std::size_t i = 0; i < column.size(); ++i)
        if (status[i] == request_status::ok && is_present(column[i])) into.add(column[i]);
}

// Where run_stats::duration came from: the requests' own clock, or the tool's summary when the
// requests have no shared clock (e.g. LLMPerf, whose summary gives the run's length).
enum class duration_source { none, requests, reported };

inline const char* to_string(duration_source d) noexcept {
    switch (d) {
    case duration_source::none: return "none";
    case duration_source::requests: return "requests";
    case duration_source::reported: return "reported";
    }
    return "?";
}

// Rates are empty when the log has no shared clock (per-request durations only) or a zero span.
struct run_stats {
    run_metadata meta;
    std::size_t requests = 0, ok = 0, failed = 0;
    std::optional<double> duration, rps, output_tps, total_tps;
    duration_source duration_from = duration_source::none;
    summary prompt_tokens, output_tokens; // over successful requests (every arrival of a trace)
    std::optional<arrival_stats> arrivals; // for run_kind::arrivals
    std::optional<std::size_t> peak_concurrency;
    // Requests sent per second, first send to last: the arrival rate a rate-limited client held,
    // which confirms a rate written only in a file's name (experiment/measured_load.hpp).
    std::optional<double> send_rate;
    std::vector<error_count> errors;
    std::optional<goodput_stats> goodput;
    std::vector<subset_stats> subsets;
    breakdown time_breakdown;
    time_split split; // by the server's own clock, when it reported queue and prefill times
    skipped_lines skipped;
    // Where the run was in steady state; with --steady-state, the window the statistics cover.
    steady_state_detection steady_state;
    std::optional<cold_start> cold; // its first requests far slower, setting its tail (cold_start.hpp)
    // Speculative decoding as the server reported it, averaged over the successful requests that
    // carry it (empty when none does). Plain means: acceptance figures are no latencies, so they get
    // no percentiles and no comparisons.
    std::optional<double> server_spec_acceptance, server_draft_acceptance;
    std::optional<run_cost> cost; // with a price: USD per 1M tokens (cost.hpp)
    // Where the run's power was sampled or its tool reported its energy: J per token (energy.hpp).
    std::optional<run_energy> energy;
};

// The summary of one metric in one subset; nullptr when the subset does not exist.
inline const summary* find_summary(const run_stats& r, std::string_view subset, metric m) {
    for (const auto& s : r.subsets)
        if (s.name == subset)
            for (const auto& ms : s.metrics)
                if (ms.of == m) return &ms.stats;
    return nullptr;
}

inline std::optional<double> find_percentile(const run_stats& r, std::string_view subset, metric m, double p) {
    const summary* s = find_summary(r, subset, m);
    return s ? find_percentile(*s, p) : std::nullopt;
}

namespace detail {

// From the first send to the last end, over every request (failed ones occupied the server too).
// The cost's batch means cut the same span into windows (span_of_requests).
inline std::optional<double> run_duration(const request_table& t) {
    const auto span = span_of_requests(t);
    if (!span) return std::nullopt;
    return span->last - span->first;
}

// Between sends one per (n - 1) gaps: the first and the last send bound n - 1 intervals.
inline std::optional<double> send_rate_of(std::size_t sent, double first, double last) {
    if (sent < 3 || !(last > first)) return std::nullopt;
    return static_cast<double>(sent - 1) / (last - first);
}

inline std::optional<double> send_rate(const request_table& t) {
    std::size_t sent = 0;
    double first = 0, last = 0;
    for (const double s : t.t_sent()) {
        if (!is_present(s)) continue;
        first = sent == 0 ? s : std::min(first, s);
        last = sent == 0 ? s : std::max(last, s);
        ++sent;
    }
    return send_rate_of(sent, first, last);
}

// Sweep over [t_sent, t_end) in send order: a request ending exactly when another starts does not
// overlap it. A request of zero duration occupies its instant, so it counts with every request in
// flight then (its end is taken off only at the next later start; taken off at once, the count
// wrapped round). Ends are taken off by two walks along the end order, one for each kind of request.
inline std::size_t peak_in_flight(const request_table& t, const in_flight_order& order) {
    const auto sent = t.t_sent(), ended = t.t_end(); // compared only: order keys will do
    const auto start_of = [&](std::uint32_t k) { return sent.order_key(order.rows[k]); };
    const std::size_t n = order.rows.size();
    // Whether each request (by send position) is an instant, found once: the walks below ask it of
    // requests in end order, where each question was two more reads at random places.
    std::vector<bool> instant(n);
    for (std::uint32_t k = 0; k < n; ++k) instant[k] = !(ended.order_key(order.rows[k]) > start_of(k));
    // The end times in end order are read in sequence by both walks; each is looked up once per step.
    const auto end_at = [&](std::size_t e) { return ended.order_key(order.rows[order.ends[e]]); };
    std::size_t in_flight = 0, peak = 0, e = 0, z = 0;
    for (std::uint32_t k = 0; k < n; ++k) {
        const double s = start_of(k);
        for (; e < n; ++e) {
            const bool zero = instant[order.ends[e]];
            if (!zero && end_at(e) > s) break;
            if (!zero) --in_flight;
        }
        for (; z < n; ++z) {
            const bool zero = instant[order.ends[z]];
            if (zero && !(end_at(z) < s)) break;
            if (zero) --in_flight;
        }
        peak = std::max(peak, ++in_flight);
    }
    return peak;
}

// The failed requests of each subset (status other than ok), in the order of `subsets`: each
// counts as +∞ in the percentiles with failures of the metrics failures_unbounded names. All zero
// after one pass over the statuses when nothing failed.
inline std::vector<std::size_t> failed_per_subset(const request_table& t, std::span<const subset> subsets) {
    std::vector<std::size_t> out(subsets.size(), 0);
    const auto status = t.status();
    std::size_t failed = 0;
    for (auto s : status) failed += s != request_status::ok;
    if (failed == 0) return out;
    for (std::size_t s = 0; s < subsets.size(); ++s)
        subsets[s].rows.visit([&](const auto& rows) {
            for (auto i : rows) out[s] += status[i] != request_status::ok;
        });
    return out;
}

inline summary summarize_metric(const request_table& t, const subset& s, metric m, const summary_options& o,
                                std::vector<double>& scratch, std::size_t failed = 0) {
    scratch.clear();
    collect_metric(t, m, s.rows, scratch);
    return summarize_in_place(scratch, o, failures_unbounded(m) ? failed : 0);
}

// The summaries of one metric in `all`, short, medium and long (in that order). `values` holds the
// values of short, medium, long and `unsplit` one after the other: `all`'s values once, not twice.
inline std::array<summary, builtin_subsets> summarize_split_metric(const request_table& t, std::span<const subset> subsets,
                                                                  const row_set& unsplit, metric m,
                                                                  const summary_options& o, std::vector<double>& values,
                                                                  std::span<const std::size_t> failed) {
    values.clear();
    values.reserve(t.size()); // the parts append in turn: growing by doubling would hold two lists at once
    std::array<std::size_t, builtin_subsets + 1> bounds{};
    for (std::size_t s = 1; s <= builtin_subsets; ++s) {
        collect_metric(t, m, s < builtin_subsets ? subsets[s].rows : unsplit, values);
        bounds[s] = values.size();
    }
    std::array<std::span<const double>, builtin_subsets> parts;
    for (std::size_t s = 0; s < builtin_subsets; ++s)
        parts[s] = std::span<const double>(values).subspan(bounds[s], bounds[s + 1] - bounds[s]);
    const auto failed_in = [&](std::size_t s) { return failures_unbounded(m) ? failed[s] : std::size_t{0}; };
    std::array<summary, builtin_subsets> out;
    out[0] = summarize_parts(parts, o, failed_in(0));
    for (std::size_t s = 1; s < builtin_subsets; ++s)
        out[s] = summarize_in_place(std::span<double>(values).subspan(bounds[s - 1], bounds[s] - bounds[s - 1]), o, failed_in(s));
    return out;
}

inline std::optional<double> reported_duration(const run_metadata& meta) {
    if (const auto* v = find_reported(meta, "duration"); v && v->value > 0) return v->value;
    return std::nullopt;
}

// Token counts of the successful requests; a trace's arrivals all count, since nothing failed.
inline summary summarize_counts(const request_table& t, count_column counts, run_kind kind,
                                const summary_options& o, std::vector<double>& values) {
    values.clear();
    for (std::size_t i = 0; i < t.size(); ++i)
        if (is_present(counts[i]) && (kind == run_kind::arrivals || t.status()[i] == request_status::ok))
            values.push_back(counts[i]);
    return summarize_in_place(values, o);
}

inline arrival_stats summarize_arrivals(const request_table& t, const summary_options& o) {
    std::vector<double> times;
    for (double x : t.t_sched())
        if (is_present(x)) times.push_back(x);
    sort_times(times);
    arrival_stats out;
    out.count = times.size();
    if (times.size() >= 2 && times.back() > times.front()) {
        out.span = times.back() - times.front();
        out.rate = static_cast<double>(times.size()) / *out.span;
    }
    std::vector<double> gaps;
    for (std::size_t i = 1; i < times.size(); ++i) gaps.push_back(times[i] - times[i - 1]);
    out.gaps = summarize_in_place(gaps, o);
    return out;
}

// Runs of fewer requests are analysed on the calling thread.
inline constexpr std::size_t rows_worth_threads = 4096;

} // namespace detail

inline run_stats analyze(const run& r, const stats_options& o = {}) {
    validate(o.summary);
    const request_table& t = r.requests;
    run_stats out;
    out.meta = r.meta;
    out.skipped = r.skipped;
    out.requests = t.size();

    // Starting threads costs more than a small run's whole analysis: thousands of one-request logs
    // were read slower on two threads than on one (reliability finding M3).
    const std::size_t threads = t.size() < detail::rows_worth_threads ? 1 : o.threads;
    const auto subsets = split_into_subsets(t, o.subsets, threads);
    for (const auto& s : subsets) {
        subset_stats stats{s.name, 0, {}};
        for (metric m : all_metrics) stats.metrics.push_back({m, {}});
        out.subsets.push_back(std::move(stats));
    }
    // `all` and the three built-in subsets of each metric are one task: the subsets (and the rows
    // with no prompt length, in `all` only) split `all`, so their values are collected once into one
    // list, part after part, and `all` is summarised from the parts before each part is summarised in
    // place. The buckets given by the user may overlap; each of theirs is a task of its own.
    const row_set unsplit = detail::rows_in_no_builtin_subset(t, subsets);
    const auto failed = detail::failed_per_subset(t, subsets);

    // The tasks are independent and each writes its own slot; what needs their results follows.
    // They are queued longest first and the shortest last, so that the threads run out of work
    // together: the window search and the waiting breakdown, one task per metric, the user's
    // buckets, then token counts, errors and subset sizes. Each task gets its worker's scratch list,
    // so two lists of n values at most exist at a time on two threads.
    using scratch_list = std::vector<double>;
    std::vector<std::function<void(scratch_list&)>> tasks{
        [&](scratch_list&) {
            if (!r.meta.shared_clock || !detail::can_order_in_flight(t)) {
                out.steady_state = detect_steady_state(r);
                if (r.meta.shared_clock) out.duration = detail::run_duration(t), out.send_rate = detail::send_rate(t);
                return;
            }
            const auto order = detail::order_in_flight(t);
            const auto counts = detail::count_in_flight(t, order);
            out.steady_state = detect_steady_state(r, order, counts);
            out.duration = detail::run_duration(t);
            out.send_rate = detail::send_rate(t);
            if (!order.rows.empty()) out.peak_concurrency = counts.peak ? *counts.peak : detail::peak_in_flight(t, order);
        },
        [&](scratch_list& values) { out.time_breakdown = break_down(t, subsets, o.summary, values); },
        [&](scratch_list&) { out.split = split_time(t, subsets); },
        [&](scratch_list&) { out.cold = detect_cold_start(t); },
    };
    for (std::size_t m = 0; m < all_metrics.size(); ++m)
        tasks.push_back([&, m](scratch_list& values) {
            const auto parts = detail::summarize_split_metric(t, subsets, unsplit, all_metrics[m], o.summary, values, failed);
            for (std::size_t s = 0; s < detail::builtin_subsets; ++s) out.subsets[s].metrics[m].stats = parts[s];
        });
    for (std::size_t s = detail::builtin_subsets; s < subsets.size(); ++s)
        for (std::size_t m = 0; m < all_metrics.size(); ++m)
            tasks.push_back([&, s, m](scratch_list& values) {
                out.subsets[s].metrics[m].stats = detail::summarize_metric(t, subsets[s], all_metrics[m], o.summary, values, failed[s]);
            });
    tasks.push_back([&](scratch_list& values) {
        out.prompt_tokens = detail::summarize_counts(t, t.prompt_tokens(), r.meta.kind, o.summary, values);
    });
    tasks.push_back([&](scratch_list& values) {
        out.output_tokens = detail::summarize_counts(t, t.output_tokens(), r.meta.kind, o.summary, values);
    });
    tasks.push_back([&](scratch_list&) { out.errors = count_errors(t); });
    tasks.push_back([&](scratch_list&) {
        mean_accumulator length, rate;
        add_ok_values(t, t.server_spec_acceptance(), length);
        add_ok_values(t, t.server_draft_acceptance(), rate);
        out.server_spec_acceptance = length.mean();
        out.server_draft_acceptance = rate.mean();
    });
    tasks.push_back([&](scratch_list&) {
        if (r.meta.kind == run_kind::arrivals) out.arrivals = detail::summarize_arrivals(t, o.summary);
    });
    tasks.push_back([&](scratch_list&) {
        for (auto status : t.status()) out.ok += status == request_status::ok;
        for (std::size_t s = 0; s < subsets.size(); ++s)
            subsets[s].rows.visit([&](const auto& rows) {
                for (auto i : rows) out.subsets[s].n += t.status()[i] == request_status::ok;
            });
    });
    std::vector<scratch_list> scratch(worker_count(tasks.size(), threads));
    parallel_for(tasks.size(), threads, [&](std::size_t task, std::size_t worker) { tasks[task](scratch[worker]); });
    out.failed = out.requests - out.ok;

    if (out.duration) out.duration_from = duration_source::requests;
    else if (const auto reported = detail::reported_duration(r.meta); reported && !t.empty()) {
        out.duration = reported;
        out.duration_from = duration_source::reported;
    }
    if (out.duration) {
        out.rps = static_cast<double>(out.ok) / *out.duration;
        double output = 0, total = 0;
        bool any_output = false, all_total = true;
        for (std::size_t i = 0; i < t.size(); ++i) {
            if (t.status()[i] != request_status::ok) continue;
            const auto out_tokens = t.output_tokens()[i], in_tokens = t.prompt_tokens()[i];
            if (is_present(out_tokens)) {
                output += out_tokens;
                any_output = true;
            }
            // In double: two int32 counts of 2e9 each overflow an int32 sum.
            if (is_present(out_tokens) && is_present(in_tokens)) total += static_cast<double>(out_tokens) + in_tokens;
            else all_total = false;
        }
        if (any_output) out.output_tps = output / *out.duration;
        if (any_output && all_total) out.total_tps = total / *out.duration;
    }
    if (!o.slos.empty()) {
        const auto g = count_good(t, o.slos);
        goodput_stats gs{o.slos, g.good, g.unmeasurable, std::nullopt, std::nullopt};
        if (out.duration) gs.rps = static_cast<double>(g.good) / *out.duration;
        if (out.requests > 0) gs.share = static_cast<double>(g.good) / static_cast<double>(out.requests);
        out.goodput = gs;
    }
    const run_rates rates{out.duration, out.duration_from == duration_source::requests, out.requests > 0 && out.ok == 0,
                          out.output_tps, out.total_tps};
    if (o.price) out.cost = cost_of_run(t, rates, *o.price, o.slos, o.summary.confidence);
    energy_inputs energy{rates, !o.slos.empty(), std::nullopt, 0, o.power_metric, o.summary.confidence};
    out.energy = energy_of_run(r.meta, &t, energy, o.slos);

    return out;
}

} // namespace servestat
