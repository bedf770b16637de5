// A two-parameter grid as reports show it: heatmaps of throughput and of p99 latency (all, short
// and long requests) with the values printed in the cells, and the sweet spot outlined and named.
#pragma once

#include <cstddef>  // std::size_t
#include <optional> // std::optional
#include <span>     // std::span
#include <string>   // std::string
#include <vector>   // std::vector

#include <fmt/format.h> // fmt::format

#include "servestat/plot/heatmap.hpp"     // heatmap_chart, heat_table
#include "servestat/report/plot_file.hpp" // plot_file
#include "servestat/report/stats_json.hpp" // json
#include "servestat/sweep/grid.hpp"       // grid_analysis

namespace servestat::report {
namespace detail {

inline std::string grid_title(const grid_analysis& a) {
    return fmt::format("Grid: {} × {}{}", a.table.row_param, a.table.column_param,
                       a.table.group.empty() ? "" : " (" + a.table.group + ")");
}

inline plot::heat_table grid_values(const grid_analysis& a, std::span<const run_stats> runs, const std::string& value,
                                    const std::string& value_name, const std::string& unit) {
    plot::heat_table t;
    for (double r : a.table.rows) t.rows.push_back(fmt::format("{:g}", r));
    for (double c : a.table.columns) t.columns.push_back(fmt::format("{:g}", c));
    t.unit = unit;
    t.value_name = value_name;
    for (const auto& row : a.table.cells) {
        std::vector<std::optional<double>> values;
        for (const auto& cell : row) values.push_back(cell ? sweep_value(runs[*cell], value) : std::nullopt);
        t.values.push_back(std::move(values));
    }
    return t;
}

} // namespace detail

inline json grid_view(const grid_analysis& a) {
    return {{"title", detail::grid_title(a)},
            {"rows", std::to_string(a.table.rows.size())},
            {"columns", std::to_string(a.table.columns.size())},
            {"row_param", a.table.row_param},
            {"column_param", a.table.column_param},
            {"has_sweet_spot", !a.finding.empty()},
            {"sweet_spot", a.finding}};
}

// Heatmaps of rps, p99, short p99 and long p99 over the grid (those with any value), the sweet
// spot outlined in each.
inline std::vector<plot_file> grid_plots(const grid_analysis& a, std::span<const run_stats> runs,
                                         const std::string& prefix) {
    struct panel {
        const char* kind;
        const char* value;
        const char* name;
        const char* unit;
        bool lower_is_better;
    };
    static constexpr panel panels[] = {{"rps", "rps", "throughput", "req/s", false},
                                       {"p99", "e2e.p99", "p99 latency", "s", true},
                                       {"short-p99", "short.e2e.p99", "short requests' p99", "s", true},
                                       {"long-p99", "long.e2e.p99", "long requests' p99", "s", true}};
    std::vector<plot_file> out;
    const std::string title = detail::grid_title(a);
    for (const auto& p : panels) {
        const plot::heat_table t = detail::grid_values(a, runs, p.value, p.name, p.unit);
        bool any = false;
        for (const auto& row : t.values)
            for (const auto& v : row) any = any || v.has_value();
        if (!any) continue;
        plot::heatmap_options o;
        o.lower_is_better = p.lower_is_better;
        if (a.spot && a.spot->best) {
            o.highlighted.push_back({a.spot->best->row, a.spot->best->column});
            o.highlight_label = "sweet spot";
        }
        const std::string chart = fmt::format("{} — {}", p.name, title);
        out.push_back({fmt::format("{}-{}.svg", prefix, p.kind), chart,
                       plot::heatmap_chart(t, {chart, a.table.column_param, a.table.row_param}, o)});
    }
    return out;
}

} // namespace servestat::report
