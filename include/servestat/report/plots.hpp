// Which plots a report shows, and the data each is drawn from.
#pragma once

#include <algorithm> // std::max, std::min, std::minmax_element, std::find, std::sort, std::ranges::all_of, std::ranges::copy
#include <array>     // std::array
#include <cctype>    // std::isalnum, std::tolower
#include <cmath>     // std::ceil, std::isfinite
#include <cstdint>   // std::int32_t
#include <cstddef>   // std::size_t
#include <functional> // std::function
#include <iterator>  // std::back_inserter
#include <optional>  // std::optional
#include <span>      // std::span
#include <set>       // std::set
#include <string>    // std::string
#include <tuple>     // std::tuple
#include <utility>   // std::pair
#include <vector>    // std::vector

#include <fmt/format.h> // fmt::format

#include "servestat/core/parallel.hpp"       // parallel_for
#include "servestat/core/run.hpp"            // run
#include "servestat/core/text.hpp"           // detail::fnv1a
#include "servestat/report/plot_file.hpp"    // plot_file
#include "servestat/report/server_watch.hpp" // server_charts, server_span_end
#include "servestat/report/time_split_view.hpp" // split_components
#include "servestat/plot/bars.hpp"           // grouped_bar_chart
#include "servestat/plot/box.hpp"            // box_chart, box_chart_ranks
#include "servestat/plot/ecdf.hpp"           // ecdf_chart, ecdf_chart_ranks
#include "servestat/plot/histogram.hpp"      // histogram_chart, binned_histogram_chart, bin_sample
#include "servestat/plot/scatter.hpp"        // scatter_chart, thin_points
#include "servestat/plot/stacked_bars.hpp"   // stacked_bar_chart
#include "servestat/plot/timeline.hpp"       // timeline_chart
#include "servestat/stats/metrics.hpp"       // collect_metric, for_each_latency_against_count
#include "servestat/stats/quantile.hpp"      // percentiles_select
#include "servestat/stats/quantile_sketch.hpp" // quantile_sketch
#include "servestat/stats/run_accumulator.hpp" // run_accumulator
#include "servestat/stats/run_stats.hpp"     // run_stats, find_summary
#include "servestat/stats/subsets.hpp"       // split_into_subsets

namespace servestat::report {

namespace detail {

// The longest slug: a plot's file name holds up to two (a pair's prefix and a subset's name) beside
// a chart's kind, and must stay within NAME_MAX (255 bytes), or the report fails half-written (M1).
inline constexpr std::size_t max_slug_bytes = 100;

// A slug longer than max_slug_bytes cut, with the hash of the whole slug after it: labels that share
// their first 90 characters still get names of their own, and a label gets the same name every time.
inline std::string shortened_slug(std::string slug) {
    if (slug.size() <= max_slug_bytes) return slug;
    const std::string hash = fmt::format("{:08x}", static_cast<std::uint32_t>(servestat::detail::fnv1a(slug)));
    slug.resize(max_slug_bytes - hash.size() - 1);
    while (!slug.empty() && slug.back() == '-') slug.pop_back();
    return slug + "-" + hash;
}

// File-name-safe, stable and short enough: lower-case letters, digits and dashes.
inline std::string slug(const std::string& label) {
    std::string out;
    for (unsigned char c : label) {
        if (std::isalnum(c)) out.push_back(static_cast<char>(std::tolower(c)));
        else if (!out.empty() && out.back() != '-') out.push_back('-');
    }
    while (!out.empty() && out.back() == '-') out.pop_back();
    return out.empty() ? "run" : shortened_slug(std::move(out));
}

inline std::vector<double> metric_values(const run& r, metric m, const subset& s) {
    std::vector<double> out;
    collect_metric(r.requests, m, s.rows, out);
    return out;
}

// A metric's values over every request of a run (failed ones have none).
inline std::vector<double> metric_values(const run& r, metric m) {
    return metric_values(r, m, subset{"all", row_set::every(r.requests.size())});
}

// The subsets whose distributions are drawn: all, and short/long when they have requests.
inline bool drawn_subset(const std::string& name) { return name == "all" || name == "short" || name == "long"; }

// One subset's values of one metric as the distribution charts (ECDF, box, histogram) read them:
// collected once, the order statistics every one of those charts reads selected in one pass, and
// for the histogram's sample its bins counted from the same values. The values themselves are not
// kept: 4·10^6 requests would hold 32 MB per sample.
struct drawn_sample {
    bool present = false; // the subset has values of the metric (drawn as a series even if none is finite)
    plot::ranked_series ranked;
    std::optional<plot::binned_sample> bins;
};

// Which charts read a sample, so which ranks it is selected at.
struct sample_uses {
    bool box = false, histogram = false; // every drawn sample feeds an ECDF
};

inline std::vector<std::size_t> ranks_read(std::size_t n, const sample_uses& uses) {
    auto ranks = plot::ecdf_chart_ranks(n);
    if (uses.box) std::ranges::copy(plot::box_chart_ranks(n), std::back_inserter(ranks));
    if (uses.histogram) std::ranges::copy(plot::histogram_chart_ranks(n), std::back_inserter(ranks));
    return ranks;
}

// `scratch` is the worker's list, reused from sample to sample.
inline drawn_sample draw_sample(const run& r, metric m, const subset& s, const sample_uses& uses,
                                std::vector<double>& scratch) {
    scratch.clear();
    collect_metric(r.requests, m, s.rows, scratch);
    drawn_sample out;
    out.present = !scratch.empty();
    if (!std::ranges::all_of(scratch, [](double v) { return std::isfinite(v); }))
        std::erase_if(scratch, [](double v) { return !std::isfinite(v); });
    out.ranked = {s.name, plot::detail::ranked_values(std::span<double>(scratch), ranks_read(scratch.size(), uses))};
    if (uses.histogram) out.bins = plot::bin_sample(s.name, scratch, out.ranked.values);
    return out;
}

// The series of one metric's charts: the present samples, in subset order.
inline std::vector<plot::ranked_series> present_series(const std::vector<drawn_sample>& samples) {
    std::vector<plot::ranked_series> out;
    for (const auto& s : samples)
        if (s.present) out.push_back(s.ranked);
    return out;
}

// p50/p90/p99 of e2e for all, short and long (the notebook's bar chart).
inline plot::bar_table percentile_bars(const run_stats& st, metric m) {
    plot::bar_table t;
    for (const char* subset : {"all", "short", "long"})
        if (const summary* s = find_summary(st, subset, m); s && s->n > 0) t.categories.push_back(subset);
    for (double p : {50.0, 90.0, 99.0}) {
        std::vector<double> row;
        for (const auto& c : t.categories) row.push_back(find_percentile(st, c, m, p).value_or(0.0));
        t.series.push_back(percentile_key(p));
        t.values.push_back(std::move(row));
    }
    return t;
}

// Client queue, time to first token and decode at p50..p99 (seed 004's queue-time breakdown).
inline plot::bar_table time_components(const run_stats& st) {
    plot::bar_table t;
    const std::vector<std::pair<metric, const char*>> parts{
        {metric::client_queue, "client queue"}, {metric::ttft, "first token"}, {metric::decode, "decode"}};
    std::vector<double> ps;
    for (double p : {50.0, 90.0, 95.0, 99.0})
        if (find_percentile(st, "all", metric::e2e, p)) {
            ps.push_back(p);
            t.categories.push_back(percentile_key(p));
        }
    for (const auto& [m, name] : parts) {
        const summary* s = find_summary(st, "all", m);
        if (s == nullptr || s->n == 0) continue;
        std::vector<double> row;
        for (double p : ps) row.push_back(find_percentile(*s, p).value_or(0.0));
        t.series.push_back(name);
        t.values.push_back(std::move(row));
    }
    return t;
}

// Completions per second and the p99 of their e2e, in bins of about a sixtieth of the run; x is
// seconds since `origin`, the first bin's start.
struct run_timelines {
    plot::named_points rate, tail;
    double origin = 0; // the first request's send time, or the run's t = 0 when drawn from there
    double end = 0;    // where the last bin ends, on the same axis as x
};

// `from_run_start`: bins from the log's t = 0 rather than the first send (the axis the server's
// sampled /metrics share, metrics_timeline.hpp).
inline run_timelines timelines(const run& r, bool from_run_start = false) {
    const auto& t = r.requests;
    const auto status = t.status();
    const auto sent = t.t_sent(), end = t.t_end(); // read inline: metric_value per row cost as much as the rest
    double first = 0, last = 0;
    bool any = false;
    for (std::size_t i = 0; i < t.size(); ++i)
        if (is_present(sent[i]) && is_present(end[i])) {
            first = any ? std::min(first, sent[i]) : sent[i];
            last = any ? std::max(last, end[i]) : end[i];
            any = true;
        }
    plot::named_points rate{"completed requests/s", {}, {}}, tail{"p99 e2e of completions", {}, {}};
    if (from_run_start) first = std::min(first, 0.0);
    if (!any || last <= first) return {rate, tail, first, 0};
    const double width = std::max(1.0, std::ceil((last - first) / 60.0));
    const auto bins = static_cast<std::size_t>(std::ceil((last - first) / width));
    const auto for_each_completion = [&](auto&& visit) { // visit(bin, e2e)
        for (std::size_t i = 0; i < t.size(); ++i) {
            if (status[i] != request_status::ok) continue;
            const double s = sent[i], e = end[i];
            if (!is_present(s) || !is_present(e)) continue;
            visit(std::min(bins - 1, static_cast<std::size_t>((e - first) / width)), e - s);
        }
    };
    // Counted first: bins grown by doubling copied and faulted in several times their size.
    std::vector<std::size_t> sizes(bins);
    for_each_completion([&](std::size_t b, double) { ++sizes[b]; });
    std::vector<std::vector<double>> latencies(bins);
    for (std::size_t b = 0; b < bins; ++b) latencies[b].reserve(sizes[b]);
    for_each_completion([&](std::size_t b, double e2e) { latencies[b].push_back(e2e); });
    const std::vector<double> p99{99.0};
    for (std::size_t b = 0; b < bins; ++b) {
        const double middle = (static_cast<double>(b) + 0.5) * width;
        rate.x.push_back(middle);
        rate.y.push_back(static_cast<double>(latencies[b].size()) / width);
        if (latencies[b].empty()) continue;
        tail.x.push_back(middle);
        tail.y.push_back(percentiles_select(latencies[b], p99).front());
    }
    return {rate, tail, first, static_cast<double>(bins) * width};
}

// Arrivals per second of a workload trace, in bins of about a sixtieth of its span.
inline plot::named_points arrival_rate(const run& r) {
    std::vector<double> times;
    for (double x : r.requests.t_sched())
        if (is_present(x)) times.push_back(x);
    plot::named_points rate{"arrivals/s", {}, {}};
    if (times.size() < 2) return rate;
    const auto [lo, hi] = std::minmax_element(times.begin(), times.end());
    const double first = *lo, span = *hi - *lo;
    if (span <= 0) return rate;
    const double width = std::max(1.0, std::ceil(span / 60.0));
    const auto bins = static_cast<std::size_t>(std::ceil(span / width));
    std::vector<std::size_t> counts(bins);
    for (double x : times) ++counts[std::min(bins - 1, static_cast<std::size_t>((x - first) / width))];
    for (std::size_t b = 0; b < bins; ++b) {
        rate.x.push_back((static_cast<double>(b) + 0.5) * width);
        rate.y.push_back(static_cast<double>(counts[b]) / width);
    }
    return rate;
}

inline std::vector<double> present_counts(count_column counts) {
    std::vector<double> out;
    for (auto c : counts)
        if (is_present(c)) out.push_back(c);
    return out;
}

// A workload trace has no latencies: its plots are its arrival rate and its sizes.
inline void add_arrival_plots(const run& r, const std::string& run_name,
                              const std::function<void(const std::string&, const std::string&, std::string)>& add) {
    if (auto rate = arrival_rate(r); rate.x.size() > 1) {
        const std::vector<plot::named_points> series{std::move(rate)};
        add("arrival-rate", "Arrival rate over the trace — " + run_name,
            plot::timeline_chart(series, {"Arrivals per second over the trace — " + run_name, "time since start (s)",
                                          "arrivals per second"}));
    }
    for (const auto& [kind, what, counts] :
         {std::tuple{"prompt-tokens", "Prompt tokens", r.requests.prompt_tokens()},
          std::tuple{"output-tokens", "Output tokens", r.requests.output_tokens()}}) {
        auto values = present_counts(counts);
        if (values.empty()) continue;
        add(std::string(kind) + "-histogram", std::string(what) + " per request — " + run_name,
            plot::histogram_chart({"requests", std::move(values)},
                                  {std::string(what) + " per request — " + run_name,
                                   std::string(what).append(" (tokens)"), "requests"}));
    }
}

} // namespace detail

// One run's charts. They are drawn side by side on `threads` threads (0 = every core), each into its
// own slot, and listed in the same order whatever the number. Each sample of e2e and ttft is read
// once for all the charts that draw it; the whole run's samples are drawn while the requests are
// split into subsets, the subsets' after.
inline std::vector<plot_file> run_plots(const run& r, const run_stats& st, const std::string& prefix,
                                        const subset_options& subset_options, std::size_t threads = 0) {
    const std::string run_name = r.meta.label;
    using files = std::vector<plot_file>;
    const auto file = [&](const std::string& kind, const std::string& title, std::string svg) {
        return plot_file{prefix + "-" + kind + ".svg", title, std::move(svg)};
    };
    if (r.meta.kind == run_kind::arrivals) {
        files out;
        detail::add_arrival_plots(r, run_name, [&](const std::string& kind, const std::string& title, std::string svg) {
            out.push_back(file(kind, title, std::move(svg)));
        });
        return out;
    }
    // Thinned while the requests are read: a copy of every (count, e2e) pair took 64 MB per chart.
    const auto scatter = [&](count_column counts, const char* kind, const char* what) -> files {
        const auto pairs = [&](auto&& visit) { for_each_latency_against_count(r.requests, counts, visit); };
        const std::vector<plot::thinned_points> series{plot::thin_points("requests", pairs, true)};
        if (series.front().pairs <= 1) return {};
        return {file(std::string("e2e-vs-") + kind, std::string("Latency against ") + what + " — " + run_name,
                     plot::scatter_chart(series, {std::string("End-to-end latency against ") + what + " — " + run_name,
                                                  what, "end-to-end latency (s)"}, true))};
    };
    // Charts that read the requests directly, in the order they are listed after the distributions.
    const std::vector<std::function<files()>> direct_charts{
        [&]() -> files {
            files out;
            if (const auto parts = detail::time_components(st); parts.series.size() > 1)
                out.push_back(file("time-breakdown", "Where the time goes at each percentile — " + run_name,
                                   plot::stacked_bar_chart(parts, {"Client queue, time to first token and decode — " + run_name,
                                                                   "percentile", "time (s)"})));
            if (!st.split.subsets.empty())
                out.push_back(file("time-split", "Where a request's time goes, by the server's clock — " + run_name,
                                   plot::stacked_bar_chart(split_components(st.split),
                                                           {"Mean time per request by the server's clock — " + run_name,
                                                            "prompt-length subset", "mean time per request (s)"})));
            return out;
        },
        [&] { return scatter(r.requests.output_tokens(), "output-tokens", "output tokens"); },
        [&] { return scatter(r.requests.prompt_tokens(), "prompt-tokens", "prompt tokens"); },
        [&]() -> files {
            if (!r.meta.shared_clock) return {};
            // With the server's sampled /metrics, every timeline is drawn on the log's clock over one span.
            const server_timeline* server = r.meta.server_timeline.get();
            auto timeline = detail::timelines(r, server != nullptr);
            if (timeline.rate.x.size() <= 1) return {};
            plot::timeline_options span;
            if (server) span.x_span = {0.0, std::max(timeline.end, server_span_end(*server, timeline.origin))};
            const std::vector<plot::named_points> rates{std::move(timeline.rate)}, tails{std::move(timeline.tail)};
            files out{file("throughput-timeline", "Throughput over the run — " + run_name,
                           plot::timeline_chart(rates, {"Completed requests per second over the run — " + run_name,
                                                        "time since start (s)", "requests per second"}, span)),
                      file("p99-timeline", "Tail latency over the run — " + run_name,
                           plot::timeline_chart(tails, {"p99 end-to-end latency of completions over the run — " + run_name,
                                                        "time since start (s)", "p99 end-to-end latency (s)"}, span))};
            if (server)
                for (auto& chart : server_charts(*server, timeline.origin, r.meta.params, run_name, span))
                    out.push_back(file(chart.kind, chart.title, std::move(chart.svg)));
            return out;
        },
    };

    // Samples: e2e (ECDF, box; the whole run's also the histogram) and ttft (ECDF) of each drawn
    // subset. "all" comes first in every split, and has values whenever a subset has.
    const std::array<metric, 2> drawn_metrics{metric::e2e, metric::ttft};
    const auto uses = [](metric m, std::size_t subset_index) {
        return detail::sample_uses{m == metric::e2e, m == metric::e2e && subset_index == 0};
    };
    const subset whole{"all", row_set::every(r.requests.size())};
    std::vector<subset> subsets;
    std::array<std::vector<detail::drawn_sample>, 2> samples; // [metric][index among the drawn subsets]
    std::vector<files> direct(direct_charts.size());
    // First the split, the direct charts and the whole run's samples, the longest first (the
    // timelines, the scatters, the split) so that no thread is left with a long one at the end.
    using task = std::function<void(std::vector<double>& scratch)>;
    std::vector<task> first_stage;
    for (std::size_t k = direct_charts.size(); k-- > 1;) // the timelines, the scatters
        first_stage.push_back([&, k](std::vector<double>&) { direct[k] = direct_charts[k](); });
    first_stage.push_back([&](std::vector<double>&) { subsets = split_into_subsets(r.requests, subset_options); });
    for (auto& s : samples) s.resize(1);
    for (std::size_t m = 0; m < drawn_metrics.size(); ++m)
        first_stage.push_back([&, m](std::vector<double>& scratch) {
            samples[m][0] = detail::draw_sample(r, drawn_metrics[m], whole, uses(drawn_metrics[m], 0), scratch);
        });
    first_stage.push_back([&](std::vector<double>&) { direct[0] = direct_charts[0](); }); // the breakdown: a few numbers
    std::vector<std::vector<double>> scratch(worker_count(first_stage.size(), threads)); // one list per worker
    parallel_for(first_stage.size(), threads, [&](std::size_t k, std::size_t worker) { first_stage[k](scratch[worker]); });
    // Then the other drawn subsets' samples ("all" is subsets[0], drawn above).
    std::vector<const subset*> parts;
    for (std::size_t k = 1; k < subsets.size(); ++k)
        if (detail::drawn_subset(subsets[k].name)) parts.push_back(&subsets[k]);
    for (auto& s : samples) s.resize(1 + parts.size());
    parallel_for(drawn_metrics.size() * parts.size(), threads, [&](std::size_t task, std::size_t worker) {
        const std::size_t m = task % drawn_metrics.size(), k = task / drawn_metrics.size();
        samples[m][k + 1] = detail::draw_sample(r, drawn_metrics[m], *parts[k], uses(drawn_metrics[m], k + 1),
                                                scratch[worker]);
    });
    scratch.clear(); // the columns' copies go before the charts are laid out
    scratch.shrink_to_fit();

    const auto e2e = detail::present_series(samples[0]), ttft = detail::present_series(samples[1]);
    files out;
    if (!e2e.empty()) {
        out.push_back(file("e2e-ecdf", "End-to-end latency distribution by prompt length — " + run_name,
                           plot::ecdf_chart(e2e, {"End-to-end latency by prompt length — " + run_name,
                                                  "end-to-end latency (s)", "fraction of requests"})));
        out.push_back(file("e2e-histogram", "End-to-end latency histogram — " + run_name,
                           plot::binned_histogram_chart(*samples[0][0].bins, {"End-to-end latency — " + run_name,
                                                                       "end-to-end latency (s)", "requests"})));
        out.push_back(file("e2e-box", "End-to-end latency by subset — " + run_name,
                           plot::box_chart(e2e, {"End-to-end latency by subset — " + run_name, "subset",
                                                 "end-to-end latency (s)"})));
        out.push_back(file("e2e-percentiles", "p50 / p90 / p99 by subset — " + run_name,
                           plot::grouped_bar_chart(detail::percentile_bars(st, metric::e2e),
                                                   {"End-to-end p50 / p90 / p99 by subset — " + run_name, "subset",
                                                    "end-to-end latency (s)"})));
    }
    if (!ttft.empty())
        out.push_back(file("ttft-ecdf", "Time to first token by prompt length — " + run_name,
                           plot::ecdf_chart(ttft, {"Time to first token by prompt length — " + run_name,
                                                   "time to first token (s)", "fraction of requests"})));
    for (auto& d : direct) std::move(d.begin(), d.end(), std::back_inserter(out));
    return out;
}

namespace detail {

// Values standing for a sketch's distribution: its values at `points` evenly spaced ranks, the exact
// min and max at the ends and every other within the sketch's relative error, so an ECDF drawn
// through them is the sketch's, as honest in value as its percentiles and within 1/points in rank.
inline std::vector<double> sketch_quantile_values(const quantile_sketch& s, std::size_t points = 1001) {
    std::vector<double> out;
    if (s.empty()) return out;
    const std::uint64_t n = s.count();
    const std::uint64_t m = std::min<std::uint64_t>(n, points);
    for (std::uint64_t j = 0; j < m; ++j) out.push_back(s.value_at_rank(m == 1 ? 0 : j * (n - 1) / (m - 1)));
    return out;
}

// "sketched, each value within 0.5%": how a chart drawn from sketches says so.
inline std::string sketched_words(double alpha) { return fmt::format("sketched, each value within {:g}%", 100 * alpha); }

// "sketched ±0.5%": the same, short enough for a legend entry.
inline std::string sketched_mark(double alpha) { return fmt::format("sketched ±{:g}%", 100 * alpha); }

// The sketched counterpart of by_subset: all, short and long from their sketches.
inline void sketched_by_subset(const run_accumulator& acc, metric m, std::vector<plot::named_values>& series,
                               std::vector<std::size_t>& counts) {
    for (const char* name : {"all", "short", "long"}) {
        const metric_accumulator* found = acc.find_metric(name, m);
        if (found == nullptr || found->count() == 0) continue;
        series.push_back({name, sketch_quantile_values(found->sketch())});
        counts.push_back(static_cast<std::size_t>(found->count()));
    }
}

} // namespace detail

// The charts of a run known by its accumulated statistics only (a summary file, a log streamed past
// --memory-limit): the latency ECDFs drawn from the sketches and the percentile bars, each titled as
// sketched with the bound. Nothing that needs every request (histograms, box plots, scatters,
// timelines); the report says why in a sentence.
inline std::vector<plot_file> sketched_run_plots(const run_accumulator& acc, const run_stats& st, const std::string& prefix) {
    const std::string run_name = st.meta.label, sketched = " (" + detail::sketched_words(acc.sketch_alpha()) + ")";
    std::vector<plot_file> out;
    const auto file = [&](const std::string& kind, const std::string& title, std::string svg) {
        out.push_back({prefix + "-" + kind + ".svg", title, std::move(svg)});
    };
    for (const auto& [m, kind, what, axis] :
         {std::tuple{metric::e2e, "e2e-ecdf", "End-to-end latency", "end-to-end latency (s)"},
          std::tuple{metric::ttft, "ttft-ecdf", "Time to first token", "time to first token (s)"}}) {
        plot::ecdf_options counts;
        std::vector<plot::named_values> series;
        detail::sketched_by_subset(acc, m, series, counts.stands_for);
        if (series.empty()) continue;
        const std::string title = std::string(what) + " by prompt length" + sketched + " — " + run_name;
        file(kind, title, plot::ecdf_chart(series, {title, axis, "fraction of requests"}, counts));
        if (m != metric::e2e) continue;
        file("e2e-percentiles", "p50 / p90 / p99 by subset" + sketched + " — " + run_name,
             plot::grouped_bar_chart(detail::percentile_bars(st, metric::e2e),
                                     {"End-to-end p50 / p90 / p99 by subset" + sketched + " — " + run_name, "subset",
                                      "end-to-end latency (s)"}));
    }
    if (const auto parts = detail::time_components(st); parts.series.size() > 1)
        file("time-breakdown", "Where the time goes at each percentile" + sketched + " — " + run_name,
             plot::stacked_bar_chart(parts, {"Client queue, time to first token and decode" + sketched + " — " + run_name,
                                             "percentile", "time (s)"}));
    return out;
}

// Overlaid distributions and percentiles of several runs, named by label.
namespace detail {

// Beyond the palette's eight colours the runs a reader looks for keep theirs: the first and the
// last, the sweeps' saturation knees (`knees`, series indices), the lowest and the highest p99, then
// first-to-last evenly; the rest go grey.
inline std::vector<std::size_t> runs_to_highlight(const std::vector<std::optional<double>>& p99,
                                                  const std::vector<std::size_t>& knees = {}) {
    const std::size_t n = p99.size();
    if (n <= plot::palette_size) return {};
    std::vector<std::size_t> out{0, n - 1};
    auto add = [&](std::size_t i) {
        if (out.size() < 6 && i < n && std::find(out.begin(), out.end(), i) == out.end()) out.push_back(i);
    };
    for (std::size_t k : knees) add(k);
    std::optional<std::size_t> best, worst;
    for (std::size_t i = 0; i < n; ++i) {
        if (!p99[i]) continue;
        if (!best || *p99[i] < *p99[*best]) best = i;
        if (!worst || *p99[i] > *p99[*worst]) worst = i;
    }
    if (best) add(*best);
    if (worst) add(*worst);
    for (std::size_t k = 1; out.size() < 6 && k < 5; ++k) add(k * (n - 1) / 5);
    std::sort(out.begin(), out.end());
    return out;
}

} // namespace detail

// `knee_runs`: indices into `runs` of the sweeps' saturation knees, kept in colour among many runs.
// `sketched[k]`, where set, is run k's accumulated statistics (a summary, a streamed log): its curve
// is drawn from its sketch and named as sketched.
inline std::vector<plot_file> comparison_plots(const std::vector<const run*>& runs, const std::vector<run_stats>& stats,
                                               const std::vector<std::size_t>& knee_runs = {},
                                               const std::vector<const run_accumulator*>& sketched = {}) {
    std::vector<plot_file> out;
    for (const metric m : {metric::e2e, metric::ttft}) {
        std::vector<plot::named_values> series;
        std::vector<std::optional<double>> p99;
        std::vector<std::size_t> knees, stands_for;
        for (std::size_t k = 0; k < runs.size(); ++k) {
            const run* r = runs[k];
            const run_accumulator* acc = k < sketched.size() ? sketched[k] : nullptr;
            const metric_accumulator* from_sketch = acc ? acc->find_metric("all", m) : nullptr;
            auto values = acc ? (from_sketch ? detail::sketch_quantile_values(from_sketch->sketch()) : std::vector<double>{})
                              : detail::metric_values(*r, m);
            if (values.empty()) continue;
            if (std::find(knee_runs.begin(), knee_runs.end(), k) != knee_runs.end()) knees.push_back(series.size());
            stands_for.push_back(acc ? static_cast<std::size_t>(from_sketch->count()) : 0);
            series.push_back({acc ? r->meta.label + " (" + detail::sketched_mark(acc->sketch_alpha()) + ")" : r->meta.label,
                              std::move(values)});
            p99.push_back(k < stats.size() ? find_percentile(stats[k], "all", m, 99) : std::nullopt);
        }
        if (series.size() < 2) continue;
        const std::string what = m == metric::e2e ? "End-to-end latency" : "Time to first token";
        const std::string axis = m == metric::e2e ? "end-to-end latency (s)" : "time to first token (s)";
        const plot::ecdf_options highlight{detail::runs_to_highlight(p99, knees), "other runs", std::move(stands_for)};
        out.push_back({std::string("compare-") + std::string(to_string(m)) + "-ecdf.svg", what + " by run",
                       plot::ecdf_chart(series, {what + " by run", axis, "fraction of requests"}, highlight)});
    }
    // Only runs with measured latencies get bars: a missing value drawn as 0 would read as instant.
    std::vector<const run_stats*> measured;
    for (const auto& st : stats)
        if (const summary* e2e = find_summary(st, "all", metric::e2e); e2e && e2e->n > 0) measured.push_back(&st);
    plot::bar_table bars;
    for (const auto* st : measured) bars.categories.push_back(st->meta.label);
    for (double p : {50.0, 90.0, 99.0}) {
        std::vector<double> row;
        for (const auto* st : measured) row.push_back(find_percentile(*st, "all", metric::e2e, p).value_or(0.0));
        bars.series.push_back(percentile_key(p));
        bars.values.push_back(std::move(row));
    }
    if (measured.size() > 1)
        out.push_back({"compare-e2e-percentiles.svg", "End-to-end p50 / p90 / p99 by run",
                       plot::grouped_bar_chart(bars, {"End-to-end p50 / p90 / p99 by run", "run",
                                                      "end-to-end latency (s)"})});
    return out;
}

// A run's plots in the appendix of a report on many runs: its latency distribution by prompt
// length, where its time goes, and its tail over time (or a trace's arrivals). The rest would
// repeat per run what the overlays and sweep curves already show side by side.
inline std::vector<plot_file> appendix_plots(std::vector<plot_file> plots) {
    std::vector<plot_file> out;
    // Where the server reported its own times, its split says where the time goes.
    const bool split = std::any_of(plots.begin(), plots.end(), [](const plot_file& p) { return p.name.ends_with("-time-split.svg"); });
    for (auto& p : plots)
        for (const char* kind : {"-e2e-ecdf.svg", split ? "-time-split.svg" : "-time-breakdown.svg", "-p99-timeline.svg",
                                 "-server-queue.svg", "-arrival-rate.svg"})
            if (p.name.ends_with(kind)) {
                out.push_back(std::move(p));
                break;
            }
    return out;
}

// Distinct, stable file-name prefixes for runs (two runs labelled alike get -2, -3, ...).
inline std::vector<std::string> plot_prefixes(const std::vector<run_stats>& stats) {
    std::vector<std::string> out;
    std::set<std::string> used;
    for (const auto& st : stats) {
        std::string base = detail::slug(st.meta.label), name = base;
        for (int k = 2; used.count(name); ++k) name = base + "-" + std::to_string(k);
        used.insert(name);
        out.push_back(name);
    }
    return out;
}

} // namespace servestat::report
