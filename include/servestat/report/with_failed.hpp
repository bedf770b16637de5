// Percentiles counting failed requests as +∞ (stats/failed_percentiles.hpp) as reports write them:
// "∞ (11.0% failed)" or "9.12 s (11.0% failed)" beside the successes-only value in the KPI table,
// and the percentile SLO verdicts judge: the one counting failures wherever they were counted, so a
// run that fails or times out its slowest requests cannot pass an SLO its users did not get.
#pragma once

#include <cmath>       // std::isinf
#include <optional>    // std::optional
#include <string>      // std::string
#include <string_view> // std::string_view

#include <fmt/format.h> // fmt::format

#include "servestat/report/few_samples.hpp" // marked_seconds
#include "servestat/report/format.hpp"      // format_seconds
#include "servestat/report/stats_json.hpp"  // json
#include "servestat/stats/run_stats.hpp"    // run_stats, find_summary, summary

namespace servestat::report {

// The percentile p counting the summary's failed requests as +∞; none when none were counted.
inline std::optional<double> with_failed_value(const summary* s, double p) {
    if (s == nullptr || s->failed == 0) return std::nullopt;
    for (const auto& v : s->percentiles)
        if (v.p == p) return v.with_failed;
    return std::nullopt;
}

// "∞ (11.0% failed)", "9.12 s (11.0% failed)"; empty when no failure was counted.
inline std::string with_failed_text(const summary* s, double p) {
    const auto v = with_failed_value(s, p);
    if (!v) return {};
    const double share = static_cast<double>(s->failed) / static_cast<double>(s->n + s->failed);
    return fmt::format("{} ({} failed)", std::isinf(*v) ? std::string("∞") : format_seconds(*v), format_share(share));
}

// The percentile an SLO is judged by: the one counting failures where they were counted (e2e,
// ttft, e2e_sched with failed requests), else the successes' own.
inline std::optional<double> judged_percentile(const summary* s, double p) {
    if (const auto v = with_failed_value(s, p)) return v;
    return s ? find_percentile(*s, p) : std::nullopt;
}

// The judged percentile as a verdict writes it: marked_seconds, or "∞ (11.0% failed)".
inline std::string judged_text(const summary* s, double p) {
    const std::string failed = with_failed_text(s, p);
    return failed.empty() ? marked_seconds(s, p) : failed;
}

namespace detail {

// Beside each KPI percentile the same counting failures: "ttft_p50_failed" = " · ∞ (11.0% failed)",
// empty where nothing failed (and in rows of reported numbers, `r` null).
inline void add_kpi_with_failed(json& row, const run_stats* r, std::string_view subset) {
    for (const metric m : {metric::ttft, metric::e2e})
        for (const double p : {50.0, 99.0}) {
            const std::string text = r ? with_failed_text(find_summary(*r, subset, m), p) : std::string();
            row[fmt::format("{}_{}_failed", to_string(m), percentile_key(p))] = text.empty() ? text : " · " + text;
        }
}

} // namespace detail

// Whether any KPI row shows a percentile counting failures (the table's note then says what it is).
inline bool kpi_shows_with_failed(const json& rows) {
    for (const auto& row : rows)
        for (const char* key : {"ttft_p50_failed", "ttft_p99_failed", "e2e_p50_failed", "e2e_p99_failed"})
            if (row.contains(key) && !row[key].get<std::string>().empty()) return true;
    return false;
}

inline constexpr const char* with_failed_note =
    "“∞ (x% failed)” beside a percentile: the same percentile counting the failed, timed-out and cancelled "
    "requests as unbounded latency (AIPerf's adj_p99), a number where it does not fall among them; SLO verdicts "
    "judge this one wherever requests failed.";

} // namespace servestat::report
