// A load written only as a number in the file names, with no key to say what it is
// ("LMBench_sharegpt_output_0.5", "…_qps4.5", "…_output_12"): the runs' own measurements decide. Where
// the number ending the names agrees with the rate at which most of those runs sent their requests,
// it is the request rate — whatever the name grammar made of it ("output_12" is no output length of
// 12 tokens when the run sent 12 requests a second and its replies were 275 tokens long).
#pragma once

#include <algorithm>   // std::find
#include <cctype>      // std::isdigit
#include <cmath>       // std::abs
#include <cstddef>     // std::size_t
#include <optional>    // std::optional
#include <span>        // std::span
#include <string>      // std::string
#include <string_view> // std::string_view
#include <utility>     // std::pair
#include <vector>      // std::vector

#include <fmt/format.h>      // fmt::format
#include <nlohmann/json.hpp> // nlohmann::json

#include "servestat/core/run.hpp"                // run_metadata, find_reported
#include "servestat/ingest/file_name_params.hpp" // params_from_file_name, detail::parse_name_number
#include "servestat/stats/metrics.hpp"           // metric
#include "servestat/stats/run_stats.hpp"         // run_stats, find_summary

namespace servestat {

struct rate_in_names {
    bool confirmed = false;
    std::size_t agreeing = 0, measured = 0; // runs whose send rate agrees, runs with a send rate
    std::vector<std::string> replaced;       // the grammar's readings of that number, now ignored
    std::string note;                        // what the design says about it
};

namespace detail {

// A send rate within this share of the named rate agrees with it: a Poisson client of 250 requests
// keeps within a few percent; a run the server could not keep up with falls far behind.
inline constexpr double send_rate_tolerance = 0.15;

// The decimal number ending a name, with where it starts; none for a name ending otherwise.
inline std::optional<std::pair<std::size_t, nlohmann::json>> trailing_number(std::string_view stem) {
    std::size_t start = stem.size();
    while (start > 0 && (std::isdigit(static_cast<unsigned char>(stem[start - 1])) || stem[start - 1] == '.')) --start;
    while (start < stem.size() && stem[start] == '.') ++start; // "x.5" ends on "5", "v1." on nothing
    if (start == stem.size()) return std::nullopt;
    const auto value = parse_name_number(stem.substr(start));
    if (!value || !value->is_number()) return std::nullopt;
    return std::pair(start, *value);
}

inline bool agrees(double named, double sent) { return named > 0 && std::abs(sent / named - 1) <= send_rate_tolerance; }

} // namespace detail

// Whether the number ending the runs' file names is their request rate, and if so the metadata as
// the factor table should read it: request_rate set from the name, the number taken off the name's
// words (so "LMBench_sharegpt_output" and "LMBench_short_input_qps" name the workloads). Nothing is
// read where a file gives its own request rate, where the user pulls factors out of the paths, or
// where fewer than three runs could be measured.
inline rate_in_names read_rate_in_names(std::span<const run_stats> runs, std::vector<run_metadata>& metas, bool user_factors) {
    rate_in_names out;
    if (user_factors) return out;
    std::vector<std::optional<std::pair<std::size_t, nlohmann::json>>> numbers;
    for (const auto& r : runs) {
        const bool own_rate = r.meta.params.contains("request_rate") && !r.meta.param_origin.contains("request_rate");
        if (own_rate) return out;
        numbers.push_back(r.meta.source.name_parts.empty() ? std::nullopt : detail::trailing_number(r.meta.source.name_parts.front()));
        if (numbers.back() && r.send_rate) {
            ++out.measured;
            out.agreeing += detail::agrees(numbers.back()->second.get<double>(), *r.send_rate);
        }
    }
    out.confirmed = out.measured >= 3 && 2 * out.agreeing > out.measured;
    if (!out.confirmed) return out;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        if (!numbers[i]) continue;
        auto& m = metas[i];
        std::string& stem = m.source.name_parts.front();
        const std::string origin = stem;
        stem.erase(numbers[i]->first);
        while (!stem.empty() && (stem.back() == '_' || stem.back() == '-' || stem.back() == '.')) stem.pop_back();
        // What the grammar read from the tag holding the number ("output_12": an output length;
        // "qps4.5": the rate itself) is what the name no longer says without it.
        const nlohmann::json without = params_from_file_name(stem);
        for (const auto& [key, from] : m.param_origin)
            if (key != "request_rate" && from == origin && (!without.contains(key) || without[key] != m.params[key]) &&
                std::find(out.replaced.begin(), out.replaced.end(), key) == out.replaced.end())
                out.replaced.push_back(key);
        m.params["request_rate"] = numbers[i]->second;
        m.param_origin["request_rate"] = origin;
    }
    out.note = fmt::format("The number ending the file names is the request rate: {} of the {} runs that could be "
                           "measured sent their requests at that rate (within {:.0f}%).",
                           out.agreeing, out.measured, 100 * detail::send_rate_tolerance);
    return out;
}

namespace detail {

// Little's law on a closed-loop client: requests in flight = throughput × mean latency. A setting
// within this share of it is the number of requests the client kept in flight.
inline constexpr double in_flight_tolerance = 0.25;

inline std::optional<double> mean_in_flight(const run_stats& r) {
    std::optional<double> rps = r.rps, latency;
    if (const auto* s = find_summary(r, "all", metric::e2e); s && s->n > 0 && s->mean) latency = *s->mean;
    if (!rps)
        if (const auto* v = find_reported(r.meta, "rps")) rps = v->value;
    if (!latency)
        if (const auto* v = find_reported(r.meta, "e2e.mean")) latency = v->value;
    if (!rps || !latency || !(*rps > 0) || !(*latency > 0)) return std::nullopt;
    return *rps * *latency;
}

} // namespace detail

// Whether a number that varies between runs, under a name that says nothing of load ("bs" of a
// table whose runs kept bs requests in flight), is their concurrency: in most runs that could be
// measured, throughput × mean latency is within 25% of it. `values` are the factor's, one per run.
struct measurement_check {
    bool confirmed = false;
    std::size_t agreeing = 0, measured = 0;
};

namespace detail {

// Whether most runs whose `measure` is known (three at least) measured within `tolerance` of their value.
template <class Measure>
measurement_check confirmed_by(std::span<const run_stats> runs, std::span<const nlohmann::json> values, Measure measure,
                               double tolerance) {
    measurement_check out;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        if (!values[i].is_number() || !(values[i].get<double>() >= 1)) continue;
        const std::optional<double> measured = measure(runs[i]);
        if (!measured || !(*measured > 0)) continue;
        ++out.measured;
        out.agreeing += std::abs(*measured / values[i].get<double>() - 1) <= tolerance;
    }
    out.confirmed = out.measured >= 3 && 2 * out.agreeing > out.measured;
    return out;
}

} // namespace detail

inline measurement_check confirms_concurrency(std::span<const run_stats> runs, std::span<const nlohmann::json> values) {
    return detail::confirmed_by(runs, values, detail::mean_in_flight, detail::in_flight_tolerance);
}

// A run's mean input and output tokens, as measured.
struct measured_workload {
    std::optional<double> input, output;
};

namespace detail {

// Its requests' mean, else the tool's mean, else the tool's total (vLLM's total_input_tokens, of
// results saved without per-request lengths) over the requests that completed.
inline std::optional<double> mean_tokens(const run_stats& r, const summary& s, std::string_view mean_name,
                                         std::string_view total_suffix) {
    if (s.n > 0 && s.mean) return *s.mean;
    if (const auto* v = find_reported(r.meta, mean_name)) return v->value;
    double completed = static_cast<double>(r.ok);
    if (const auto* ok = find_reported(r.meta, "ok"); completed == 0 && ok) completed = ok->value; // a summary's count
    if (!(completed > 0)) return std::nullopt;
    for (const auto& v : r.meta.reported)
        if (v.name.ends_with(total_suffix) && v.value > 0) return v.value / completed;
    return std::nullopt;
}

} // namespace detail

inline measured_workload workload_of(const run_stats& r) {
    return {detail::mean_tokens(r, r.prompt_tokens, "prompt_tokens.mean", ".total_input_tokens"),
            detail::mean_tokens(r, r.output_tokens, "output_tokens.mean", ".total_output_tokens")};
}

// Whether the numbers of a name tag outside the grammar ("CTX2048") are the runs' input length: in
// most runs that measured their prompts (three at least), the mean input tokens are within 10% of
// the number. `values` are the tag's numbers, one per run (null where a run has none).
inline constexpr double input_length_tolerance = 0.10;

inline measurement_check confirms_input_length(std::span<const run_stats> runs, std::span<const nlohmann::json> values) {
    return detail::confirmed_by(runs, values, [](const run_stats& r) { return workload_of(r).input; }, input_length_tolerance);
}

} // namespace servestat
