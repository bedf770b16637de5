// The server's own view of a run, sampled while it ran (`servestat load --scrape-interval`,
// ingest/metrics_timeline.hpp): charts of its queue and KV cache on the latency timeline's time axis,
// and the sentence that says when the queue built up or the KV cache filled, set against the p99
// latency of the completions at that time.
//
// Series are found by name, the first of each list the file has: vLLM's V1 names, its older ones,
// then SGLang's. Whatever else the server exposed stays in the timeline file.
#pragma once

#include <algorithm>   // std::max, std::min
#include <array>       // std::array
#include <cmath>       // std::abs, std::isfinite
#include <cstddef>     // std::size_t
#include <optional>    // std::optional
#include <span>        // std::span
#include <string>      // std::string
#include <string_view> // std::string_view
#include <utility>     // std::move, std::pair
#include <vector>      // std::vector

#include <fmt/format.h>      // fmt::format
#include <nlohmann/json.hpp> // nlohmann::json (the run's params)

#include "servestat/ingest/metrics_timeline.hpp" // server_timeline
#include "servestat/plot/data.hpp"               // named_points
#include "servestat/plot/line.hpp"               // reference_line
#include "servestat/plot/timeline.hpp"           // timeline_chart, timeline_options
#include "servestat/report/format.hpp"           // format_seconds

namespace servestat::report {

inline constexpr std::array<std::string_view, 2> running_names{"vllm:num_requests_running", "sglang:num_running_reqs"};
inline constexpr std::array<std::string_view, 2> waiting_names{"vllm:num_requests_waiting", "sglang:num_queue_reqs"};
inline constexpr std::array<std::string_view, 1> preemption_names{"vllm:num_preemptions_total"};
// Fractions of the cache in use, per engine (a data-parallel server's engines are averaged).
inline constexpr std::array<std::string_view, 3> kv_usage_names{"vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc",
                                                                "sglang:token_usage"};
// vLLM V1 counts prefix-cache lookups and hits in tokens; V0 and SGLang give a hit rate.
inline constexpr std::string_view prefix_hits_name = "vllm:prefix_cache_hits_total";
inline constexpr std::string_view prefix_queries_name = "vllm:prefix_cache_queries_total";
inline constexpr std::array<std::string_view, 2> prefix_hit_rate_names{"vllm:gpu_prefix_cache_hit_rate",
                                                                       "sglang:cache_hit_rate"};

// The KV-cache usage the summary marks as nearly full.
inline constexpr double kv_full_mark = 0.9;

// One series as the report reads it: its x on the charts' axis (seconds since `origin`) and its values.
struct watched_series {
    std::string metric; // the name it was read under, e.g. "vllm:num_requests_waiting"
    std::vector<double> x, y;
    std::string shown; // how a legend names it, when not by `metric` ("vllm:prefix_cache_hits ÷ queries")
};

// What a report shows of a server timeline.
struct server_watch {
    std::optional<watched_series> running, waiting, preempted, kv_usage, prefix_hits;
    std::size_t scrapes = 0, failed = 0;
    std::string sentence; // what the server's queue and cache did, against the p99 at the time
    bool notable = false; // the queue built up, the cache passed the mark or requests were preempted
};

namespace detail {

// The series of the first name present, on the axis x = t − origin (a sample before the origin is
// left out: the charts start at it). NaN values (a scrape without that name) are left out too.
inline std::optional<watched_series> first_series(const server_timeline& s, std::span<const std::string_view> names,
                                                  double origin, bool mean_over_sets = false) {
    for (const auto name : names) {
        const auto values = mean_over_sets ? s.mean_over_label_sets(name) : std::optional<std::vector<double>>();
        const std::vector<double>* v = mean_over_sets ? (values ? &*values : nullptr) : s.find(name);
        if (!v) continue;
        watched_series out{std::string(name), {}, {}, {}};
        for (std::size_t i = 0; i < v->size(); ++i)
            if (std::isfinite((*v)[i]) && s.t[i] >= origin) {
                out.x.push_back(s.t[i] - origin);
                out.y.push_back((*v)[i]);
            }
        if (!out.x.empty()) return out;
    }
    return std::nullopt;
}

// A counter as what it counted since the first sample: the run's own preemptions, not the server's
// since it started.
inline std::optional<watched_series> counted_since_first(std::optional<watched_series> s) {
    if (!s) return s;
    const double first = s->y.front();
    for (auto& v : s->y) v -= first;
    return s;
}

// The prefix cache's hit rate between consecutive scrapes: Δhits / Δqueries of vLLM V1's token
// counters (no point where nothing was looked up, or where a counter went down: a restart); else
// the hit-rate gauge of V0 or SGLang.
inline std::optional<watched_series> prefix_hit_series(const server_timeline& s, double origin) {
    const auto* hits = s.find(prefix_hits_name);
    const auto* queries = s.find(prefix_queries_name);
    if (hits && queries) {
        watched_series out{std::string(prefix_hits_name) + " / " + std::string(prefix_queries_name), {}, {},
                           "vllm:prefix_cache_hits ÷ queries"};
        std::optional<std::size_t> previous;
        for (std::size_t i = 0; i < s.t.size(); ++i) {
            if (!std::isfinite((*hits)[i]) || !std::isfinite((*queries)[i])) continue;
            if (previous) {
                const double dq = (*queries)[i] - (*queries)[*previous], dh = (*hits)[i] - (*hits)[*previous];
                if (dq > 0 && dh >= 0 && dh <= dq && s.t[i] >= origin) {
                    out.x.push_back(s.t[i] - origin);
                    out.y.push_back(dh / dq);
                }
            }
            previous = i;
        }
        if (!out.x.empty()) return out;
    }
    return first_series(s, prefix_hit_rate_names, origin, true);
}

// The timeline bin nearest to x (within one bin's width), or none where the bins near x had no completion.
inline std::optional<std::size_t> bin_near(const plot::named_points& p99, double x, double width) {
    std::optional<std::size_t> best;
    for (std::size_t i = 0; i < p99.x.size(); ++i)
        if (!best || std::abs(p99.x[i] - x) < std::abs(p99.x[*best] - x)) best = i;
    if (!best || std::abs(p99.x[*best] - x) > width) return std::nullopt;
    return best;
}

// The p99 of the completions in the timeline bin nearest to x.
inline std::optional<double> p99_near(const plot::named_points& p99, double x, double width) {
    const auto bin = bin_near(p99, x, width);
    return bin ? std::optional<double>(p99.y[*bin]) : std::nullopt;
}

// "t = 0.4 s", "t = 12 s": the charts' axis, to a tenth of a second below 100 s.
inline std::string at_time(double x) { return x < 100 ? fmt::format("t = {:.1f} s", x) : fmt::format("t = {:.0f} s", x); }

inline std::string whole_count(double v) { return fmt::format("{:.0f}", v); }

inline std::string whole_percent(double fraction) { return fmt::format("{:.0f}%", 100 * fraction); }

// "rose from 0.80 s to 3.10 s", "fell from …", "stayed near 0.80 s".
inline std::string p99_change_text(double from, double to) {
    if (std::abs(to - from) <= 0.02 * std::max(std::abs(from), std::abs(to)))
        return "stayed near " + format_seconds(to);
    return fmt::format("{} from {} to {}", to > from ? "rose" : "fell", format_seconds(from), format_seconds(to));
}

// The first scrape i where waiting > 0 here and at the next scrape too: a queue, not one request
// caught waiting for a moment.
inline std::optional<std::size_t> queue_start(const watched_series& waiting) {
    for (std::size_t i = 0; i + 1 < waiting.y.size(); ++i)
        if (waiting.y[i] > 0 && waiting.y[i + 1] > 0) return i;
    return std::nullopt;
}

inline std::size_t first_peak(const std::vector<double>& y) {
    std::size_t at = 0;
    for (std::size_t i = 1; i < y.size(); ++i)
        if (y[i] > y[at]) at = i;
    return at;
}

inline std::string queue_sentence(const watched_series& waiting, std::size_t start, const plot::named_points& p99,
                                  double width) {
    const std::size_t peak = first_peak(waiting.y);
    std::string out = fmt::format("Requests began to wait on the server at {}", at_time(waiting.x[start]));
    if (peak != start)
        out += fmt::format("; the queue peaked at {} at {} ({})", whole_count(waiting.y[peak]), at_time(waiting.x[peak]),
                           waiting.metric);
    else
        out += fmt::format(", {} at once ({})", whole_count(waiting.y[peak]), waiting.metric);
    // A change of the p99 only between two bins: within one there is one value.
    const auto before = bin_near(p99, waiting.x[start], width), at_peak = bin_near(p99, waiting.x[peak], width);
    if (before && at_peak && *before != *at_peak)
        return out + ", while the p99 e2e of completions " + p99_change_text(p99.y[*before], p99.y[*at_peak]) + ".";
    if (at_peak) return out + fmt::format("; the p99 e2e of completions was {} then.", format_seconds(p99.y[*at_peak]));
    return out + ".";
}

inline std::string kv_sentence(const watched_series& kv, const plot::named_points& p99, double width) {
    const std::size_t peak = first_peak(kv.y);
    for (std::size_t i = 0; i < kv.y.size(); ++i)
        if (kv.y[i] >= kv_full_mark) {
            std::string out = fmt::format("The KV cache passed {} at {}", whole_percent(kv_full_mark), at_time(kv.x[i]));
            if (const auto then = p99_near(p99, kv.x[i], width))
                out += fmt::format(" (p99 e2e then {})", format_seconds(*then));
            return out + fmt::format(" and peaked at {} ({}).", whole_percent(kv.y[peak]), kv.metric);
        }
    return fmt::format("KV-cache usage stayed below {} (peak {} at {}).", whole_percent(kv_full_mark),
                       whole_percent(kv.y[peak]), at_time(kv.x[peak]));
}

} // namespace detail

// Where a timeline's last sample lies on the charts' axis.
inline double server_span_end(const server_timeline& s, double origin) {
    return s.t.empty() ? 0.0 : std::max(0.0, s.t.back() - origin);
}

// The report's reading of a timeline; `origin` is the timelines' x = 0 on the log's clock and `p99`
// the p99 timeline of the completions (detail::timelines in plots.hpp), `width` its bins' width.
inline server_watch watch_server(const server_timeline& s, double origin, const plot::named_points& p99, double width) {
    server_watch w;
    w.scrapes = s.scrapes();
    w.failed = s.failed_at.size();
    w.running = detail::first_series(s, running_names, origin);
    w.waiting = detail::first_series(s, waiting_names, origin);
    w.preempted = detail::counted_since_first(detail::first_series(s, preemption_names, origin));
    w.kv_usage = detail::first_series(s, kv_usage_names, origin, true);
    w.prefix_hits = detail::prefix_hit_series(s, origin);
    std::vector<std::string> parts;
    const auto start = w.waiting ? detail::queue_start(*w.waiting) : std::nullopt;
    if (start) parts.push_back(detail::queue_sentence(*w.waiting, *start, p99, width));
    bool kv_full = false;
    if (w.kv_usage) {
        kv_full = w.kv_usage->y[detail::first_peak(w.kv_usage->y)] >= kv_full_mark;
        if (kv_full || start) parts.push_back(detail::kv_sentence(*w.kv_usage, p99, width));
    }
    const double preemptions = w.preempted ? w.preempted->y.back() : 0;
    if (preemptions > 0) {
        std::size_t first = 0;
        while (w.preempted->y[first] <= 0) ++first;
        parts.push_back(fmt::format("The server preempted requests {} times ({}), the first by {}.",
                                    detail::whole_count(preemptions), w.preempted->metric, detail::at_time(w.preempted->x[first])));
    }
    w.notable = start || kv_full || preemptions > 0;
    if (!w.notable && w.waiting)
        parts.push_back(fmt::format("No request waited on the server for more than one scrape ({}, {} scrapes).",
                                    w.waiting->metric, w.scrapes));
    for (const auto& p : parts) w.sentence.append(w.sentence.empty() ? "" : " ").append(p);
    return w;
}

// A chart of a run: its file name's kind, its title and the SVG.
struct server_chart {
    std::string kind, title, svg;
};

// The server's queue (running, waiting, preemptions) and its KV cache (usage, prefix-cache hits) over
// the run, on the axis of the run's other timelines (`span` carries their common x range). Counts and
// shares get a chart each: one axis cannot hold 41 requests and 93% readably.
inline std::vector<server_chart> server_charts(const server_timeline& s, double origin, const nlohmann::json& params,
                                               const std::string& run_name, const plot::timeline_options& span) {
    const server_watch w = watch_server(s, origin, {}, 0);
    std::vector<server_chart> out;
    // Legend names that fit the legend's two lines: what it is, then the metric it was read from.
    const auto named = [](const std::optional<watched_series>& series, std::string what, double scale = 1) {
        plot::named_points p{std::move(what) + " (" + (series->shown.empty() ? series->metric : series->shown) + ")",
                             series->x, series->y};
        for (auto& v : p.y) v *= scale;
        return p;
    };
    std::vector<plot::named_points> queue;
    if (w.running) queue.push_back(named(w.running, "running"));
    if (w.waiting) queue.push_back(named(w.waiting, "waiting"));
    if (w.preempted) queue.push_back(named(w.preempted, "preempted"));
    if (!queue.empty()) {
        plot::timeline_options o = span;
        // The scheduler's limit on running requests, where the run's parameters say it.
        if (const auto it = params.find("max_num_seqs"); it != params.end() && it->is_number())
            o.references.push_back({it->get<double>(), fmt::format("max_num_seqs = {}", it->dump())});
        const std::string title = "Requests on the server over the run — " + run_name;
        out.push_back({"server-queue", title,
                       plot::timeline_chart(queue, {title, "time since start (s)",
                                                    w.preempted ? "requests; preemptions since t = 0" : "requests"}, o)});
    }
    // KV-cache usage and the prefix cache's hit rate per scrape interval, both shares.
    std::vector<plot::named_points> cache;
    if (w.kv_usage) cache.push_back(named(w.kv_usage, "KV usage", 100));
    if (w.prefix_hits) cache.push_back(named(w.prefix_hits, "hit rate", 100));
    if (!cache.empty()) {
        plot::timeline_options o = span;
        if (w.kv_usage)
            o.references.push_back({100 * kv_full_mark, fmt::format("{} KV-cache usage", detail::whole_percent(kv_full_mark))});
        const std::string title = "KV cache over the run — " + run_name;
        out.push_back({"server-kv-cache", title, plot::timeline_chart(cache, {title, "time since start (s)", "share (%)"}, o)});
    }
    return out;
}

} // namespace servestat::report
