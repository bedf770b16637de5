// `report --group-by KEY [--window SECONDS]`: the cross-run view grouped by model or configuration,
// attached to the report's view model with its plots.
#pragma once

#include <cmath>  // std::isnan
#include <limits> // std::numeric_limits
#include <span>   // std::span
#include <string> // std::string
#include <vector> // std::vector

#include "servestat/core/run.hpp"           // run
#include "servestat/report/digest.hpp"      // lead_summary_with
#include "servestat/report/group_view.hpp"  // parse_group_key, group_runs, groups_to_json, group_view, group_plots
#include "servestat/report/plot_file.hpp"   // plot_file
#include "servestat/report/stats_json.hpp"  // json
#include "servestat/stats/run_stats.hpp"    // stats_options

namespace servestat::app {

struct group_args {
    std::string by;                                          // empty: no grouping
    double window = std::numeric_limits<double>::quiet_NaN(); // NaN: not given
};

// Sets view["has_groups"]; with --group-by also view["group_view"], view["stats"]["groups"] and the
// group plots (appended to `plots`).
inline void attach_groups(json& view, std::vector<report::plot_file>& plots, const group_args& a,
                          std::span<const run> runs, const stats_options& o) {
    view["has_groups"] = !a.by.empty();
    if (a.by.empty()) return;
    report::group_options go;
    if (!std::isnan(a.window)) go.window = a.window;
    go.method = o.summary.method;
    const auto g = report::group_runs(runs, report::parse_group_key(a.by), go);
    const auto files = report::group_plots(g);
    view["group_view"] = report::group_view(g, files);
    report::lead_summary_with(view["summary"], view["group_view"]["findings"], 3);
    view["stats"]["groups"] = report::groups_to_json(g, o.summary.method);
    plots.insert(plots.end(), files.begin(), files.end());
}

} // namespace servestat::app
