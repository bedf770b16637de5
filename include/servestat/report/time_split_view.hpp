// How the time split by the server's clock is shown (docs/metrics.md#the-time-split): the parts'
// names, a stacked bar table of a run's split, its rows in a run's section, and before → after in a
// comparison.
#pragma once

#include <cstddef> // std::size_t
#include <string>  // std::string
#include <utility> // std::move
#include <vector>  // std::vector

#include <fmt/format.h> // fmt::format

#include "servestat/plot/data.hpp"          // bar_table
#include "servestat/report/format.hpp"      // format_seconds, format_share
#include "servestat/report/stats_json.hpp"  // json
#include "servestat/stats/run_stats.hpp"    // run_stats
#include "servestat/stats/time_split.hpp"   // time_split, split_part, split_parts

namespace servestat::report {

// The names of the time split's parts on charts and in tables, in the order they happen.
// `whole`: the server gave its time to the first token as one number (time_split::first_token_whole).
inline const char* split_part_title(split_part p, bool whole = false) {
    if (whole && p == split_part::prefill) return "server to first token";
    switch (p) {
    case split_part::client_wait: return "client wait";
    case split_part::network: return "network and front end";
    case split_part::server_queue: return "server queue";
    case split_part::prefill: return "prefill";
    case split_part::decode: return "decode";
    }
    return "";
}

// The client's wait only where the log has it; the queue only where the server told it apart.
inline bool shows_part(const time_split& split, split_part p) {
    return !(p == split_part::client_wait && !split.client_wait) && !(p == split_part::server_queue && split.first_token_whole);
}

// The heading of the `prefill` column: all of the server's time to the first token where it gave
// that as one number.
inline std::string split_prefill_heading(bool whole) { return split_part_title(split_part::prefill, whole); }

// Mean seconds of each part of the split per subset (docs/metrics.md#the-time-split); the client's
// wait only where the log has it.
inline plot::bar_table split_components(const time_split& split) {
    plot::bar_table t;
    for (const auto& s : split.subsets) t.categories.push_back(s.subset);
    for (const split_part p : split_parts) {
        if (!shows_part(split, p)) continue;
        t.series.push_back(split_part_title(p, split.first_token_whole));
        std::vector<double> row;
        for (const auto& s : split.subsets) row.push_back(s.mean[static_cast<std::size_t>(p)]);
        t.values.push_back(std::move(row));
    }
    return t;
}

// The time split by the server's clock: per subset each part's mean and share, "2.91 s (71.0%)".
inline json split_rows(const time_split& t) {
    json rows = json::array();
    for (const auto& s : t.subsets) {
        json row = {{"subset", s.subset}, {"n", std::to_string(s.n)}, {"total", format_seconds(s.total())}};
        for (const split_part p : split_parts)
            row[to_string(p)] = shows_part(t, p) ? fmt::format("{} ({})", format_seconds(s.mean[static_cast<std::size_t>(p)]),
                                                               format_share(s.share(p)))
                                                 : std::string(missing_value);
        rows.push_back(std::move(row));
    }
    return rows;
}

// Where a request's time goes by the server's clock, before and after, per subset both sides have
// the split for: "2.91 s (71.0%) → 0.52 s (30.1%)" per part (docs/metrics.md#the-time-split).
inline json split_change_rows(const run_stats& before, const run_stats& after) {
    json rows = json::array();
    for (const auto& b : before.split.subsets)
        for (const auto& a : after.split.subsets) {
            if (a.subset != b.subset) continue;
            json row = {{"subset", b.subset}, {"n", fmt::format("{} → {}", b.n, a.n)},
                        {"total", format_seconds(b.total()) + " → " + format_seconds(a.total())}};
            for (const split_part part : split_parts) {
                const auto k = static_cast<std::size_t>(part);
                if (!shows_part(before.split, part) || !shows_part(after.split, part)) {
                    row[to_string(part)] = missing_value;
                    continue;
                }
                row[to_string(part)] = fmt::format("{} ({}) → {} ({})", format_seconds(b.mean[k]), format_share(b.share(part)),
                                                   format_seconds(a.mean[k]), format_share(a.share(part)));
            }
            rows.push_back(std::move(row));
        }
    return rows;
}

} // namespace servestat::report

