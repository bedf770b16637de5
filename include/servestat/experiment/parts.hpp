// Parts of one measurement (docs/sweeps.md#files-that-are-not-runs): runs of one configuration at
// one level that ran at the same time — parallel clients (llm-d-benchmark's `-j` pods), each writing
// its own file, often in folders that only count them. Replicates run one after another; parts
// overlap. So runs alike in every setting but such a counter, at one level, whose time windows (start
// on a wall clock, and duration) overlap by more than half of the shorter are one measurement, and
// are read as one run: their requests together where they have them (every statistic exact), else
// their counts and rates summed and their means weighted by their successful requests — their
// percentiles cannot be pooled without the requests, so the run has none.
#pragma once

#include <algorithm> // std::sort, std::max, std::min, std::all_of
#include <cstddef>   // std::size_t
#include <map>       // std::map
#include <optional>  // std::optional
#include <span>      // std::span
#include <string>    // std::string
#include <utility>   // std::pair
#include <vector>    // std::vector

#include <fmt/format.h> // fmt::format
#include <fmt/ranges.h> // fmt::join

#include "servestat/core/iso_time.hpp"     // parse_iso_utc
#include "servestat/core/request_table.hpp" // is_present
#include "servestat/core/run.hpp"          // run, run_kind, reported_value, find_reported
#include "servestat/experiment/design.hpp" // experiment_design, design_factor, detail::counts_repeats
#include "servestat/stats/run_stats.hpp"   // run_stats

namespace servestat {

// Two windows are one measurement's when they overlap by more than this share of the shorter.
inline constexpr double parts_overlap_share = 0.5;

namespace detail {

struct time_window {
    double start = 0, end = 0; // Unix seconds
};

// From its start on a wall clock for its duration: measured, else as its tool reported it.
inline std::optional<time_window> window_of(const run_stats& r) {
    const reported_value* reported = find_reported(r.meta, "duration");
    const double duration = r.duration ? *r.duration : reported ? reported->value : 0.0;
    if (r.meta.started_at.empty() || !(duration > 0)) return std::nullopt;
    const auto ns = parse_iso_utc(r.meta.started_at);
    if (!ns) return std::nullopt;
    const double start = static_cast<double>(*ns) / 1e9;
    return time_window{start, start + duration};
}

inline bool overlap_as_parts(const time_window& a, const time_window& b) {
    const double shared = std::min(a.end, b.end) - std::max(a.start, b.start);
    return shared > parts_overlap_share * std::min(a.end - a.start, b.end - b.start);
}

} // namespace detail

namespace detail {

// A factor that only counts the runs (a path's 1, 2, 3 or 0, 1: `…_stack_1` … `_stack_3` of
// llm-d-benchmark's pods, `client_0`, `client_1`): the design calls it a configuration, since it
// explains nothing; where the runs it counts overlap in time it numbers the clients of one
// measurement. Never one the user set.
inline bool counts_the_runs(const design_factor& f) {
    return !f.constant && !f.reading.user_set && f.reading.role == factor_role::config &&
           (f.column.source == factor_source::path_word || f.column.source == factor_source::path_tag) && counts_repeats(f.column);
}

// A replicate index the authors wrote as such (`rep1`, `run_number`, `run=2`): their word that the
// runs are repeats, never parts. A bare number ending the names is only a counter.
inline bool named_replicate_index(const design_factor& f) {
    return !f.constant && f.reading.role == factor_role::replicate && f.column.hint != word_hint::trailing_number;
}

// What must agree between parts: every configuration factor but a counter, a named replicate
// index, and the level.
inline std::string part_key(const experiment_design& d, std::size_t run) {
    std::string key;
    for (const auto& f : d.factors) {
        if (f.constant || counts_the_runs(f)) continue;
        if (f.reading.role != factor_role::config && f.reading.role != factor_role::load && !named_replicate_index(f)) continue;
        key.append(f.column.name).append("=").append(f.column.values[run].dump()).append("\n");
    }
    return key;
}

} // namespace detail

// The groups of runs (two or more, input order) that are parts of one measurement: alike in every
// configuration factor but a counter of the runs, at one level, their time windows chained by
// overlaps. A run without a wall-clock window is no part.
inline std::vector<std::vector<std::size_t>> parts_of_one_measurement(std::span<const run_stats> runs,
                                                                       const experiment_design& d) {
    std::map<std::string, std::vector<std::size_t>> alike;
    for (std::size_t i = 0; i < runs.size() && i < d.runs; ++i) alike[detail::part_key(d, i)].push_back(i);
    std::vector<std::vector<std::size_t>> out;
    for (const auto& entry : alike) {
        std::vector<std::pair<detail::time_window, std::size_t>> timed;
        for (const std::size_t i : entry.second)
            if (const auto w = detail::window_of(runs[i])) timed.emplace_back(*w, i);
        std::sort(timed.begin(), timed.end(), [](const auto& a, const auto& b) { return a.first.start < b.first.start; });
        std::vector<std::size_t> group;
        detail::time_window reach{};
        for (const auto& [w, i] : timed) {
            if (!group.empty() && !detail::overlap_as_parts(reach, w)) {
                if (group.size() > 1) out.push_back(group);
                group.clear();
            }
            reach = group.empty() ? w : detail::time_window{reach.start, std::max(reach.end, w.end)};
            group.push_back(i);
        }
        if (group.size() > 1) out.push_back(group);
    }
    for (auto& g : out) std::sort(g.begin(), g.end());
    std::sort(out.begin(), out.end());
    return out;
}

namespace detail {

// The aggregates of parts known only by them: counts, durations' union and rates summed, means
// weighted by the parts' successful requests; percentiles and spreads left out.
inline std::vector<reported_value> combined_aggregates(std::span<const run* const> parts, double duration) {
    std::vector<reported_value> out;
    const auto all_have = [&](const std::string& name) {
        for (const auto* p : parts)
            if (!find_reported(p->meta, name)) return false;
        return true;
    };
    const auto weight = [](const run& r) {
        const auto* ok = find_reported(r.meta, "ok");
        return ok ? ok->value : 0.0;
    };
    for (const auto& v : parts.front()->meta.reported) {
        if (!all_have(v.name)) continue;
        const bool count = v.name == "requests" || v.name == "ok" || v.name == "failed";
        const bool rate = v.unit == "req/s" || v.unit == "tok/s" || v.name == "rps" || v.name.ends_with("_tps");
        const bool mean = v.name.ends_with(".mean");
        if (v.name == "duration") out.push_back({v.name, duration, v.unit});
        else if (count || rate) {
            double sum = 0;
            for (const auto* p : parts) sum += find_reported(p->meta, v.name)->value;
            out.push_back({v.name, sum, v.unit});
        } else if (mean) {
            double sum = 0, weights = 0;
            for (const auto* p : parts) sum += find_reported(p->meta, v.name)->value * weight(*p), weights += weight(*p);
            if (weights > 0) out.push_back({v.name, sum / weights, v.unit});
        }
    }
    return out;
}

} // namespace detail

// One run of the parts (in order; `stats` theirs, with their windows), named and placed as the
// first: their requests together, each part's clock moved to the first's where its times count from
// its own start, or for aggregates the sums and weighted means over the union of their windows. A
// note says which; `source.merged` lists the other files and `source.parts` every part.
inline run combine_parts(std::vector<run>&& parts, std::span<const run_stats* const> stats) {
    std::vector<detail::time_window> windows;
    for (const auto* s : stats) windows.push_back(*detail::window_of(*s));
    double first = windows.front().start, last = windows.front().end;
    for (const auto& w : windows) first = std::min(first, w.start), last = std::max(last, w.end);
    run out;
    out.meta = parts.front().meta;
    std::vector<std::string> names;
    for (const auto& p : parts) names.push_back(p.meta.label);
    const bool have_requests = std::all_of(parts.begin(), parts.end(), [](const run& r) { return r.meta.kind == run_kind::requests; });
    if (have_requests) {
        for (std::size_t k = 0; k < parts.size(); ++k) {
            const auto& t = parts[k].requests;
            const auto sent = t.t_sent();
            // Times of a Unix clock (after 2001) need no move; times from the run's start do.
            const bool own_clock = t.size() == 0 || !is_present(sent[0]) || sent[0] < 1e9;
            const double shift = own_clock ? windows[k].start - windows.front().start : 0.0;
            for (std::size_t i = 0; i < t.size(); ++i) {
                auto row = t.row(i);
                for (auto* time : {&row.t_sched, &row.t_sent, &row.t_first, &row.t_end})
                    if (*time) **time += shift;
                out.requests.push_back(row);
            }
        }
    } else {
        std::vector<const run*> pointers;
        for (const auto& p : parts) pointers.push_back(&p);
        out.meta.kind = run_kind::summary;
        out.meta.reported = detail::combined_aggregates(pointers, last - first);
    }
    for (std::size_t i = 1; i < parts.size(); ++i) {
        out.meta.source.merged.push_back(parts[i].meta.source.path);
        out.skipped.count += parts[i].skipped.count;
    }
    out.meta.source.parts = names;
    out.meta.notes.push_back(fmt::format(
        "{} parts of one measurement, run at the same time ({}): {}", parts.size(), fmt::join(names, ", "),
        have_requests ? "read as one run of all their requests"
                      : "read as one run with their counts and rates summed and their means weighted by their requests; "
                        "their percentiles cannot be pooled without the requests, so it has none"));
    return out;
}

} // namespace servestat
