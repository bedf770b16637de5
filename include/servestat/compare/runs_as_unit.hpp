// Compare with the run as the unit: when each side holds three or more replicate runs of the
// compared configuration, each headline statistic is taken once per run and the two sets of runs are
// compared by Welch's t-interval (stats/run_spread.hpp). Under load the requests of one run are not
// independent draws (they share the server's state for the run's length), so the request-level
// bootstrap can call a change significant that a second set of runs would not repeat: the replicates
// show how far runs of one configuration land apart, and a change they cannot tell from that is
// "within run-to-run noise".
#pragma once

#include <cstddef>     // std::size_t
#include <optional>    // std::optional
#include <span>        // std::span
#include <string>      // std::string
#include <string_view> // std::string_view
#include <vector>      // std::vector

#include "servestat/compare/compare.hpp"  // run_comparison, change, find_change, compare_options
#include "servestat/compare/verdict.hpp"  // verdict
#include "servestat/stats/run_spread.hpp" // welch_difference, runs_difference, fewest_runs_as_unit
#include "servestat/sweep/sweep.hpp"      // sweep_value

namespace servestat {

// One statistic compared over runs.
struct run_unit_change {
    std::string name; // "rps", "e2e.p99", as sweep_value and the request-level change name it
    bool lower_is_better = true;
    runs_difference runs;
    // Improved or regressed when the runs' interval excludes 0 (no noise band: the runs' own spread
    // is the noise), else no_change.
    verdict between_runs = verdict::no_change;
    // The request-level verdict on the same statistic of the pooled requests, when compared there.
    std::optional<verdict> request_level;
    // The request-level verdict says improved or regressed but the runs' interval holds 0.
    bool within_run_noise = false;
};

struct runs_as_unit {
    std::size_t runs_before = 0, runs_after = 0;
    double confidence = 0.95;
    std::vector<run_unit_change> changes;
};

// The statistics compared over runs: the throughputs, and of every request the percentiles compare
// asks for and the mean of e2e, ttft and tpot.
inline std::vector<std::string> run_unit_statistics(const compare_options& o) {
    std::vector<std::string> out{"rps", "output_tps"};
    for (const char* m : {"e2e", "ttft", "tpot"}) {
        for (const double p : o.percentiles) out.push_back(std::string(m) + "." + percentile_key(p));
        out.push_back(std::string(m) + ".mean");
    }
    return out;
}

// Empty unless both sides have fewest_runs_as_unit runs or more. `pooled` is the request-level
// comparison of the same sides (their requests pooled), whose verdicts the runs' are set beside.
inline std::optional<runs_as_unit> compare_runs_as_unit(std::span<const run_stats* const> before,
                                                        std::span<const run_stats* const> after,
                                                        const run_comparison* pooled, const compare_options& o) {
    if (before.size() < fewest_runs_as_unit || after.size() < fewest_runs_as_unit) return std::nullopt;
    runs_as_unit out{before.size(), after.size(), o.verdicts.confidence, {}};
    const auto values_of = [](std::span<const run_stats* const> side, std::string_view name) {
        std::vector<double> xs;
        for (const auto* r : side)
            if (const auto v = sweep_value(*r, name)) xs.push_back(*v);
        return xs;
    };
    for (const auto& name : run_unit_statistics(o)) {
        const auto b = values_of(before, name), a = values_of(after, name);
        // Every run must have the value: a statistic some runs lack is not their spread.
        if (b.size() != before.size() || a.size() != after.size()) continue;
        const auto d = welch_difference(b, a, o.verdicts.confidence);
        if (!d) continue;
        run_unit_change c;
        c.name = name;
        c.lower_is_better = !(name == "rps" || name == "output_tps");
        c.runs = *d;
        if (d->ci && !d->holds_zero()) c.between_runs = (d->ci->low > 0) == c.lower_is_better ? verdict::regressed : verdict::improved;
        if (pooled)
            if (const change* x = find_change(*pooled, name)) c.request_level = x->result;
        c.within_run_noise = c.request_level &&
                             (*c.request_level == verdict::improved || *c.request_level == verdict::regressed) &&
                             d->holds_zero();
        out.changes.push_back(std::move(c));
    }
    return out;
}

// The change called `name` compared over runs, if it was.
inline const run_unit_change* find_run_unit_change(const runs_as_unit& r, std::string_view name) {
    for (const auto& c : r.changes)
        if (c.name == name) return &c;
    return nullptr;
}

} // namespace servestat
