// GuideLLM 0.8's `server_metrics` of a benchmark: what GuideLLM scraped from the server's /metrics
// while the benchmark ran, one entry per scraped endpoint:
//   {"source", "scrapes", "scrape_errors",
//    "gauges":     {name: [{"labels", "summary", "samples": [[t, v], …]}]},
//    "counters":   {name: [{"labels", "increase", "rate"}]},
//    "histograms": {name: [{"labels", "count", "sum", "mean", "quantiles"}]}}
// (GuideLLM's docs/en/guides/server_metrics.md; no public result file carries it yet, so the layout is
// read as leniently as its description allows: one entry or a list, quantiles as {q: v} or [[q, v]]).
//
// The gauges' samples become the run's server timeline, as `servestat load --scrape-interval` gives
// one (metrics_timeline.hpp): each name summed over its label sets and endpoints, at every time any of
// them was sampled, each label set holding its last sample until its next. Counters give only what
// they rose by and their rate, histograms only their totals: those are reported values
// (`server.<name>.increase`, `.rate`, `.count`, `.sum`, `.mean`, and a histogram's quantiles where
// one label set has them: quantiles of several cannot be combined).
#pragma once

#include <algorithm>   // std::sort, std::stable_sort, std::unique
#include <array>       // std::array
#include <cmath>       // std::isfinite
#include <cstddef>     // std::size_t
#include <limits>      // std::numeric_limits
#include <map>         // std::map
#include <memory>      // std::make_shared
#include <optional>    // std::optional
#include <string>      // std::string
#include <string_view> // std::string_view
#include <utility>     // std::pair
#include <vector>      // std::vector

#include <fmt/format.h>      // fmt::format
#include <fmt/ranges.h>      // fmt::join
#include <nlohmann/json.hpp> // nlohmann::json

#include "servestat/core/run.hpp"                // run_metadata, reported_value
#include "servestat/ingest/json_document.hpp"    // json_place, json_* helpers
#include "servestat/ingest/metrics_timeline.hpp" // server_timeline

namespace servestat {
namespace detail {

// A sample time below this is no Unix time: GuideLLM then counted from the benchmark's start.
inline constexpr double guidellm_epoch_floor = 1e9;

// One label set of one gauge: its samples in time order.
using gauge_samples = std::vector<std::pair<double, double>>;

struct guidellm_scraped {
    std::map<std::string, std::vector<gauge_samples>> gauges; // name → its label sets, over every endpoint
    std::vector<reported_value> reported;
    std::size_t scrapes = 0, scrape_errors = 0;
    std::vector<std::string> sources;
    bool relative_times = false; // some sample time was no Unix time
};

inline std::string server_value_name(const std::string& metric, std::string_view stat) {
    return "server." + metric + "." + std::string(stat);
}

// The unit a Prometheus name states by its ending (its base unit, as the naming convention asks).
inline std::string server_metric_unit(const std::string& metric, std::string_view stat) {
    if (stat == "count") return "observations";
    const std::string base = metric.ends_with("_total") ? metric.substr(0, metric.size() - 6) : metric;
    std::string unit = base.ends_with("_seconds") ? "s"
                       : base.ends_with("_tokens") ? "tokens"
                       : base.ends_with("_bytes")  ? "bytes"
                       : base.ends_with("_perc")   ? "ratio"
                                                   : "as counted";
    if (stat == "rate") unit = unit == "s" ? "s per s" : unit + " per s";
    return unit;
}

// The entries of a name: a list of label sets, or one label set written without the list.
inline std::vector<const nlohmann::json*> label_set_entries(const nlohmann::json& v, const json_place& place,
                                                            const std::string& path) {
    std::vector<const nlohmann::json*> out;
    if (v.is_object()) {
        out.push_back(&v);
        return out;
    }
    json_array(v, place, path);
    for (std::size_t i = 0; i < v.size(); ++i) out.push_back(&json_object(v[i], place, json_path(path, i)));
    return out;
}

inline void read_guidellm_gauges(const nlohmann::json& gauges, const json_place& place, const std::string& path,
                                 double origin, double benchmark_start, guidellm_scraped& out) {
    json_object(gauges, place, path);
    for (const auto& [name, sets] : gauges.items()) {
        const std::string at = json_path(path, name);
        const auto entries = label_set_entries(sets, place, at);
        for (std::size_t k = 0; k < entries.size(); ++k) {
            const std::string entry_at = sets.is_object() ? at : json_path(at, k);
            const auto* samples = json_member(*entries[k], "samples");
            if (!samples || samples->is_null()) continue;
            const std::string samples_at = json_path(entry_at, "samples");
            json_array(*samples, place, samples_at);
            gauge_samples series;
            for (std::size_t i = 0; i < samples->size(); ++i) {
                const std::string sample_at = json_path(samples_at, i);
                const auto& pair = json_array((*samples)[i], place, sample_at);
                if (pair.size() != 2)
                    place.fail(sample_at, fmt::format("a sample is [time, value]; found {} element(s)", pair.size()));
                double t = json_number(pair[0], place, json_path(sample_at, 0));
                if (t >= guidellm_epoch_floor) t -= origin;
                else t += benchmark_start - origin, out.relative_times = true;
                const auto& value = pair[1];
                const double v = value.is_null() ? std::numeric_limits<double>::quiet_NaN()
                                                 : json_number(value, place, json_path(sample_at, 1));
                series.emplace_back(t, v);
            }
            std::stable_sort(series.begin(), series.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
            if (!series.empty()) out.gauges[name].push_back(std::move(series));
        }
    }
}

// Counters and histograms: per name, their label sets' totals.
inline void read_guidellm_totals(const nlohmann::json& block, const json_place& place, const std::string& path,
                                 bool histogram, guidellm_scraped& out) {
    json_object(block, place, path);
    for (const auto& item : block.items()) { // no structured binding: Clang 14's lambdas cannot capture one
        const std::string name = item.key();
        const nlohmann::json& sets = item.value();
        const std::string at = json_path(path, name);
        const auto entries = label_set_entries(sets, place, at);
        std::map<std::string, double> sums;
        std::vector<std::string> order;
        const auto add = [&](std::string_view stat, const nlohmann::json& entry, const std::string& entry_at) {
            const auto* v = json_member(entry, stat);
            if (!v || v->is_null()) return;
            const std::string key(stat);
            if (!sums.contains(key)) order.push_back(key);
            sums[key] += json_number(*v, place, json_path(entry_at, stat));
        };
        static constexpr std::array<std::string_view, 2> histogram_totals{"count", "sum"}, counter_totals{"increase", "rate"};
        for (std::size_t k = 0; k < entries.size(); ++k) {
            const std::string entry_at = sets.is_object() ? at : json_path(at, k);
            for (const std::string_view stat : histogram ? histogram_totals : counter_totals) add(stat, *entries[k], entry_at);
        }
        for (const auto& stat : order)
            out.reported.push_back({server_value_name(name, stat), sums[stat], server_metric_unit(name, stat)});
        if (!histogram) continue;
        const std::string unit = server_metric_unit(name, "mean");
        if (sums.contains("count") && sums.contains("sum") && sums["count"] > 0)
            out.reported.push_back({server_value_name(name, "mean"), sums["sum"] / sums["count"], unit});
        else if (entries.size() == 1) // a mean the file gives, with no totals to make it from
            if (const auto* mean = json_member(*entries[0], "mean"); mean && !mean->is_null())
                out.reported.push_back({server_value_name(name, "mean"), json_number(*mean, place, json_path(at, "mean")), unit});
        if (entries.size() != 1) continue;
        const auto* quantiles = json_member(*entries[0], "quantiles");
        if (!quantiles || quantiles->is_null()) continue;
        const std::string q_at = json_path(sets.is_object() ? at : json_path(at, 0), "quantiles");
        const auto add_quantile = [&](const std::string& q, const nlohmann::json& v, const std::string& v_at) {
            if (v.is_null()) return;
            out.reported.push_back({server_value_name(name, "q" + q), json_number(v, place, v_at), unit});
        };
        if (quantiles->is_object()) {
            for (const auto& [q, v] : quantiles->items()) add_quantile(q, v, json_path(q_at, q));
        } else {
            json_array(*quantiles, place, q_at);
            for (std::size_t i = 0; i < quantiles->size(); ++i) {
                const auto& pair = json_array((*quantiles)[i], place, json_path(q_at, i));
                if (pair.size() != 2)
                    place.fail(json_path(q_at, i), "a quantile is [q, value]");
                add_quantile(fmt::format("{:g}", json_number(pair[0], place, json_path(json_path(q_at, i), 0))), pair[1],
                             json_path(json_path(q_at, i), 1));
            }
        }
    }
}

// Every gauge on one clock: at each time any label set was sampled, the sum of each label set's last
// sample so far (a label set not yet sampled adds nothing and is not counted).
inline server_timeline guidellm_timeline(const std::map<std::string, std::vector<gauge_samples>>& gauges,
                                         const std::string& file) {
    server_timeline s;
    s.file = file;
    for (const auto& [name, sets] : gauges)
        for (const auto& series : sets)
            for (const auto& [t, v] : series) s.t.push_back(t);
    std::sort(s.t.begin(), s.t.end());
    s.t.erase(std::unique(s.t.begin(), s.t.end()), s.t.end());
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (const auto& [name, sets] : gauges) {
        std::vector<double> sum(s.t.size(), nan), count(s.t.size(), 0.0);
        for (const auto& series : sets) {
            std::size_t next = 0;
            std::optional<double> held;
            for (std::size_t i = 0; i < s.t.size(); ++i) {
                while (next < series.size() && series[next].first <= s.t[i]) held = series[next++].second;
                if (!held || !std::isfinite(*held)) continue;
                sum[i] = std::isfinite(sum[i]) ? sum[i] + *held : *held;
                count[i] += 1;
            }
        }
        s.names.push_back(name);
        s.values.push_back(std::move(sum));
        s.types[name] = "gauge";
        if (sets.size() > 1) s.label_sets.emplace(name, std::move(count));
    }
    return s;
}

inline std::string guidellm_server_note(const guidellm_scraped& g, const server_timeline* s) {
    std::string note = fmt::format("GuideLLM's server_metrics: {}", fmt::join(g.sources, ", "));
    if (g.scrapes > 0) note += fmt::format(" scraped {} time{}", g.scrapes, g.scrapes == 1 ? "" : "s");
    if (g.scrape_errors > 0) note += fmt::format(" ({} failed)", g.scrape_errors);
    if (s && !s->t.empty())
        note += fmt::format("; {} gauge{} as the server timeline, from t = {:.2f} s to {:.2f} s, each summed over its "
                            "label sets and endpoints",
                            s->names.size(), s->names.size() == 1 ? "" : "s", s->t.front(), s->t.back());
    if (g.relative_times) note += " (sample times below 1e9 s were read as seconds since the benchmark's start)";
    note += "; counters and histograms are reported values (server.<name>.*)";
    return note;
}

} // namespace detail

// Reads `benchmark.server_metrics` into `meta`: the gauges as its server timeline (times on the run's
// clock: Unix seconds less `origin`), counters and histograms as reported values, a note of what was
// scraped. `benchmark_start` (Unix seconds) places sample times that count from the benchmark's start.
inline void read_guidellm_server_metrics(const nlohmann::json& benchmark, const detail::json_place& place,
                                         const std::string& path, double origin, double benchmark_start,
                                         run_metadata& meta) {
    const auto* metrics = detail::json_member(benchmark, "server_metrics");
    if (!metrics || metrics->is_null()) return;
    const std::string at = detail::json_path(path, "server_metrics");
    std::vector<std::pair<const nlohmann::json*, std::string>> endpoints;
    if (metrics->is_object()) endpoints.emplace_back(metrics, at);
    else {
        detail::json_array(*metrics, place, at);
        for (std::size_t i = 0; i < metrics->size(); ++i)
            endpoints.emplace_back(&detail::json_object((*metrics)[i], place, detail::json_path(at, i)),
                                   detail::json_path(at, i));
    }
    if (endpoints.empty()) return;
    detail::guidellm_scraped g;
    for (const auto& [endpoint, endpoint_at] : endpoints) {
        const auto* source = detail::json_member(*endpoint, "source");
        g.sources.push_back(source && source->is_string() ? source->get<std::string>() : std::string("the server"));
        if (const auto* n = detail::json_member(*endpoint, "scrapes"); n && !n->is_null())
            g.scrapes += static_cast<std::size_t>(detail::json_count(*n, place, detail::json_path(endpoint_at, "scrapes")));
        if (const auto* n = detail::json_member(*endpoint, "scrape_errors"); n && !n->is_null())
            g.scrape_errors +=
                static_cast<std::size_t>(detail::json_count(*n, place, detail::json_path(endpoint_at, "scrape_errors")));
        if (const auto* gauges = detail::json_member(*endpoint, "gauges"); gauges && !gauges->is_null())
            detail::read_guidellm_gauges(*gauges, place, detail::json_path(endpoint_at, "gauges"), origin,
                                         benchmark_start, g);
        if (const auto* counters = detail::json_member(*endpoint, "counters"); counters && !counters->is_null())
            detail::read_guidellm_totals(*counters, place, detail::json_path(endpoint_at, "counters"), false, g);
        if (const auto* histograms = detail::json_member(*endpoint, "histograms"); histograms && !histograms->is_null())
            detail::read_guidellm_totals(*histograms, place, detail::json_path(endpoint_at, "histograms"), true, g);
    }
    std::shared_ptr<server_timeline> timeline;
    if (!g.gauges.empty()) timeline = std::make_shared<server_timeline>(detail::guidellm_timeline(g.gauges, place.file));
    meta.notes.push_back(detail::guidellm_server_note(g, timeline.get()));
    for (auto& v : g.reported) meta.reported.push_back(std::move(v));
    if (timeline) meta.server_timeline = std::move(timeline);
}

} // namespace servestat
