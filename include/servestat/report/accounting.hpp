// Where every input row went: per input file the rows read and used and why any were left out of
// the statistics (bad records under --skip-bad, requests outside the --steady-state window), and
// the runs a sweep or grid does not show. No row leaves a report without a line saying so.
#pragma once

#include <algorithm> // std::find_if, std::max
#include <cstddef>  // std::size_t
#include <map>      // std::map
#include <optional> // std::optional
#include <span>     // std::span
#include <string>   // std::string
#include <utility>  // std::pair
#include <vector>   // std::vector

#include <fmt/format.h> // fmt::format

#include "servestat/core/run.hpp"            // run, run_kind
#include "servestat/report/stats_json.hpp"   // json
#include "servestat/stats/run_stats.hpp"     // run_stats
#include "servestat/stats/steady_state.hpp"  // steady_state
#include "servestat/sweep/sweep.hpp"         // left_out_run

namespace servestat::report {

struct input_rows {
    std::string path, format;
    std::size_t read = 0, used = 0;
    std::vector<std::pair<std::size_t, std::string>> excluded; // (rows, why)
};

// One entry per input file, in the order first read. A summary run is one row (a line of a sweep
// table, one appended result); a run of requests is its requests, plus what was skipped or cut.
// `cuts[i]` is the steady-state window run i was cut to, if any; `sketched[i]`, where set, the
// requests of run i, which was read into sketches (a summary file, a streamed log) and holds none.
inline std::vector<input_rows> account_inputs(std::span<const run> runs, std::span<const std::optional<steady_state>> cuts,
                                              std::span<const std::optional<std::size_t>> sketched = {}) {
    std::vector<input_rows> out;
    std::map<std::string, std::size_t> at;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const run& r = runs[i];
        auto [it, inserted] = at.try_emplace(r.meta.source.path, out.size());
        if (inserted) out.push_back({r.meta.source.path, r.meta.source.format, 0, 0, {}});
        input_rows& in = out[it->second];
        const std::size_t rows = i < sketched.size() && sketched[i] ? *sketched[i]
                                 : r.meta.kind == run_kind::summary && r.requests.empty() ? 1
                                                                                            : r.requests.size();
        in.read += rows + r.skipped.count;
        in.used += rows;
        if (r.skipped.count > 0)
            in.excluded.push_back(
                {r.skipped.count, fmt::format("bad {} skipped (--skip-bad){}", r.skipped.noun(r.skipped.count),
                                              r.skipped.examples.empty() ? "" : "; the first: " + r.skipped.examples.front())});
        if (i < cuts.size() && cuts[i]) {
            const steady_state& w = *cuts[i];
            const std::size_t cut = w.excluded_start + w.excluded_end + w.untimed;
            in.read += cut;
            if (cut > 0)
                in.excluded.push_back({cut, fmt::format("requests outside the steady-state window (--steady-state): {} "
                                                        "ramp-up, {} drain{}",
                                                        w.excluded_start, w.excluded_end,
                                                        w.untimed ? fmt::format(", {} without a send time", w.untimed) : "")});
        }
    }
    return out;
}

inline json inputs_json(const std::vector<input_rows>& inputs) {
    json out = json::array();
    for (const auto& in : inputs) {
        json excluded = json::array();
        for (const auto& [rows, why] : in.excluded) excluded.push_back({{"rows", rows}, {"reason", why}});
        out.push_back({{"path", in.path}, {"format", in.format}, {"rows_read", in.read}, {"rows_used", in.used},
                       {"excluded", std::move(excluded)}});
    }
    return out;
}

inline json left_out_json(std::span<const run_stats> runs, std::span<const left_out_run> left_out) {
    json out = json::array();
    for (const auto& l : left_out)
        out.push_back({{"label", runs[l.run].meta.label}, {"path", runs[l.run].meta.source.path}, {"reason", l.reason}});
    return out;
}

// The report's sentences about rows and runs it does not show: one per input with rows left out of
// the statistics, one per reason a run is on no sweep or grid ("Not on a sweep: tp4 concurrency=1,
// tp4 concurrency=2 (tp4 has 2 levels of concurrency; a sweep needs 3).").
inline json accounting_view(const std::vector<input_rows>& inputs, std::span<const run_stats> runs,
                            std::span<const left_out_run> left_out) {
    json out = json::array();
    for (const auto& in : inputs)
        for (const auto& [rows, why] : in.excluded)
            out.push_back({{"text", fmt::format("{}: {} of {} rows left out of the statistics: {}.", in.path, rows, in.read, why)}});
    std::vector<std::pair<std::string, std::string>> by_reason; // (reason, labels), first appearance first
    for (const auto& l : left_out) {
        auto it = std::find_if(by_reason.begin(), by_reason.end(), [&](const auto& p) { return p.first == l.reason; });
        if (it == by_reason.end()) it = by_reason.insert(by_reason.end(), {l.reason, std::string()});
        it->second.append(it->second.empty() ? "" : ", ").append(runs[l.run].meta.label);
    }
    // Runs read into sketches (summary files, logs over --memory-limit): which numbers are not exact.
    std::string sketched;
    std::optional<double> widest;
    for (const auto& r : runs) {
        std::optional<double> alpha;
        for (const auto& s : r.subsets)
            for (const auto& m : s.metrics)
                if (m.stats.sketch_alpha) alpha = std::max(alpha.value_or(0.0), *m.stats.sketch_alpha);
        if (!alpha) continue;
        sketched.append(sketched.empty() ? "" : ", ").append(r.meta.label);
        widest = std::max(widest.value_or(0.0), *alpha);
    }
    if (widest)
        out.push_back({{"text", fmt::format("Percentiles of {} are read from quantile sketches (a summary file, or a log "
                                            "larger than --memory-limit), each within {:g}% of the exact value; counts, "
                                            "rates, min and max are exact.",
                                            runs.size() == 1 ? "this run" : sketched, 100 * *widest)}});
    for (const auto& [reason, labels] : by_reason)
        out.push_back({{"text", fmt::format("Not shown on a sweep or grid: {} ({}); each is in the run tables.", labels, reason)}});
    return out;
}

} // namespace servestat::report
