// The digest of `servestat report`: summary sentences and KPI rows for one run, several runs or
// sweeps of runs, and names that tell sweeps apart. Built on the digest layer (digest.hpp).
#pragma once

#include <algorithm> // std::sort
#include <cstddef>  // std::size_t
#include <optional> // std::optional
#include <set>      // std::set
#include <span>     // std::span
#include <string>   // std::string
#include <utility>  // std::pair
#include <vector>   // std::vector

#include <fmt/format.h> // fmt::format

#include "servestat/report/digest.hpp"        // summary_sentence, kpi_source, common_stem
#include "servestat/report/findings.hpp"      // finding
#include "servestat/report/format.hpp"        // format_seconds, format_share, format_rate
#include "servestat/stats/run_stats.hpp"      // run_stats
#include "servestat/report/sweep_view.hpp"     // detail::interpolated_load, detail::sweep_cell
#include "servestat/sweep/sweep_analysis.hpp" // sweep_analysis, detail::format_load

namespace servestat::report {

namespace detail {

// The row of a sweep with the highest throughput.
inline const sweep_row* peak_row(const sweep_analysis& a) {
    const sweep_row* best = nullptr;
    for (const auto& row : a.rows)
        if (const auto v = sweep_cell(row, "rps"); v && (!best || *v > *sweep_cell(*best, "rps"))) best = &row;
    return best;
}

inline std::string sweep_stem(const sweep_analysis& a) {
    std::vector<std::string> labels;
    for (const auto& row : a.rows) labels.push_back(row.label);
    return a.rows.size() > 1 ? common_stem(labels) : std::string();
}

} // namespace detail

// One title per sweep, no two alike: what it sweeps, the stem its runs' labels share and the
// metadata and parameters that set it apart ("Sweep over concurrency — bad (preset=…)").
inline std::vector<std::string> sweep_titles(std::span<const sweep_analysis> sweeps) {
    std::vector<std::string> out;
    std::set<std::string> used;
    for (const auto& a : sweeps) {
        const std::string stem = detail::sweep_stem(a);
        std::string title = "Sweep over " + a.curve.param + (stem.empty() ? "" : " — " + stem) +
                            (a.curve.group.empty() ? "" : " (" + a.curve.group + ")");
        std::string unique = title;
        for (int k = 2; used.count(unique); ++k) unique = fmt::format("{} #{}", title, k);
        used.insert(unique);
        out.push_back(unique);
    }
    return out;
}

// A short name for a sweep in sentences: its stem, else its group, else its position.
inline std::string sweep_short_name(const sweep_analysis& a, std::size_t index) {
    if (const auto stem = detail::sweep_stem(a); !stem.empty()) return stem;
    if (!a.curve.group.empty()) return a.curve.group;
    return fmt::format("sweep {}", index + 1);
}

namespace detail {

inline std::string headline_sentence(const run_stats& r) {
    const double ok = r.requests ? static_cast<double>(r.ok) / static_cast<double>(r.requests) : 0.0;
    std::string out = fmt::format("{}: {} requests, {} succeeded", r.meta.label, r.requests, format_share(ok));
    if (r.rps) out += fmt::format(", {} and {} output", format_rate(r.rps, "req/s"), format_rate(r.output_tps, "tok/s"));
    const auto e50 = find_percentile(r, "all", metric::e2e, 50), e99 = find_percentile(r, "all", metric::e2e, 99);
    if (e50 && e99) out += fmt::format("; e2e p50 {}, p99 {}", format_seconds(*e50), format_seconds(*e99));
    const auto t50 = find_percentile(r, "all", metric::ttft, 50), t99 = find_percentile(r, "all", metric::ttft, 99);
    if (t50 && t99) out += fmt::format("; TTFT p50 {}, p99 {}", format_seconds(*t50), format_seconds(*t99));
    return out + ".";
}

// The SLOs a run misses, subset by subset: "SLO e2e p95 ≤ 250 ms fails for long prompts (p95 1.02 s)".
inline std::vector<std::string> failed_slos(const run_stats& r, const std::vector<slo>& slos, double percentile) {
    std::vector<std::string> out;
    for (const auto& s : slos) {
        std::string failing;
        for (const char* subset : {"all", "short", "long"}) {
            const auto v = find_percentile(r, subset, s.on, percentile);
            if (!v || *v <= s.max_seconds) continue;
            failing.append(failing.empty() ? "" : ", ")
                .append(fmt::format("{} {}", std::string_view(subset) == "all" ? "all requests" : std::string(subset) + " prompts",
                                    format_seconds(*v)));
        }
        if (!failing.empty())
            out.push_back(fmt::format("{}: SLO {} {} ≤ {} fails ({} {}: {}).", r.meta.label, to_string(s.on),
                                      percentile_key(percentile), format_seconds(s.max_seconds), to_string(s.on),
                                      percentile_key(percentile), failing));
    }
    return out;
}

// Per SLO over several runs, on all requests: "SLO ttft p95 ≤ 25.0 ms: met by short_only-c16 only;
// missed by mix_50_50-c16 (142 ms), mix_70_30-c16 (77.4 ms)".
inline std::vector<std::string> slo_across_runs(const std::vector<const run_stats*>& runs, const std::vector<slo>& slos,
                                                double percentile) {
    std::vector<std::string> out;
    for (const auto& s : slos) {
        std::string met, missed;
        std::size_t n_met = 0;
        for (const auto* r : runs) {
            const auto v = find_percentile(*r, "all", s.on, percentile);
            if (!v) continue;
            if (*v <= s.max_seconds) {
                met.append(met.empty() ? "" : ", ").append(r->meta.label);
                ++n_met;
            } else
                missed.append(missed.empty() ? "" : ", ").append(fmt::format("{} ({})", r->meta.label, format_seconds(*v)));
        }
        if (met.empty() && missed.empty()) continue;
        const std::string objective = fmt::format("SLO {} {} ≤ {}", to_string(s.on), percentile_key(percentile), format_seconds(s.max_seconds));
        if (missed.empty()) out.push_back(objective + ": met by every run.");
        else if (met.empty()) out.push_back(objective + ": missed by every run: " + missed + ".");
        else out.push_back(fmt::format("{}: met by {}{}; missed by {}.", objective, met, n_met == 1 ? " only" : "", missed));
    }
    return out;
}

// How much a run's own finding matters in the summary: failures and blocking first.
inline double finding_weight(const std::string& rule) {
    if (rule == "context_overflows") return 9;
    if (rule == "short_requests_in_tail") return 7;
    if (rule == "waiting_dominates") return 6;
    if (rule == "tail_to_median") return 4;
    return 1;
}

inline std::string sweep_sentence(const sweep_analysis& a, std::size_t index) {
    const std::string name = sweep_short_name(a, index), param = a.curve.param;
    auto load = [&](double l) { return servestat::detail::format_load(param, l); };
    std::string out = name + ":";
    const sweep_row* peak = peak_row(a);
    if (peak) out += fmt::format(" throughput reaches {:.2f} req/s at {}", *sweep_cell(*peak, "rps"), load(peak->load));
    for (const auto& k : a.knees) {
        if (!k.load || !k.y) continue;
        if (k.curve == "throughput")
            out += fmt::format(", gaining little beyond its knee at {} ({:.2f} req/s)", load(*k.load), *k.y);
        else if (k.curve == "p99")
            out += fmt::format("; e2e p99 bends upward from {} ({})", load(*k.load), format_seconds(*k.y));
    }
    return out + ".";
}

inline const sweep_row* row_at(const sweep_analysis& a, double load) {
    for (const auto& row : a.rows)
        if (row.load == load) return &row;
    return nullptr;
}

// The highest load every sweep measured, if any.
inline std::optional<double> highest_common_load(std::span<const sweep_analysis> sweeps) {
    if (sweeps.empty()) return std::nullopt;
    for (auto it = sweeps.front().rows.rbegin(); it != sweeps.front().rows.rend(); ++it) {
        bool everywhere = true;
        for (const auto& a : sweeps) everywhere = everywhere && row_at(a, it->load) != nullptr;
        if (everywhere) return it->load;
    }
    return std::nullopt;
}

// Two sweeps side by side at the highest load both ran: throughput and the short and long tails.
inline std::string same_load_sentence(std::span<const sweep_analysis> sweeps) {
    if (sweeps.size() < 2) return {};
    const auto load = highest_common_load(sweeps);
    if (!load) return {};
    std::string out = fmt::format("At {}", servestat::detail::format_load(sweeps.front().curve.param, *load));
    bool any = false;
    for (const auto& [column, what] : {std::pair{"short.e2e.p99", "short prompts' e2e p99"},
                                       std::pair{"long.e2e.p99", "long prompts' e2e p99"}, std::pair{"rps", "throughput"}}) {
        std::string part;
        for (std::size_t i = 0; i < sweeps.size(); ++i) {
            const auto v = sweep_cell(*row_at(sweeps[i], *load), column);
            if (!v) continue;
            part.append(part.empty() ? "" : " vs ")
                .append(sweep_short_name(sweeps[i], i) + " " +
                        (std::string_view(column) == "rps" ? fmt::format("{:.2f} req/s", *v) : format_seconds(*v)));
        }
        if (part.empty()) continue;
        out.append(any ? "; " : ", ").append(what).append(" is ").append(part);
        any = true;
    }
    return any ? out + "." : std::string();
}

// The sweep that peaks highest against the next: the comparison a tuning review starts from.
inline std::string best_sweep_sentence(std::span<const sweep_analysis> sweeps) {
    std::vector<std::pair<double, std::size_t>> peaks;
    for (std::size_t i = 0; i < sweeps.size(); ++i)
        if (const auto* p = peak_row(sweeps[i])) peaks.emplace_back(*sweep_cell(*p, "rps"), i);
    if (peaks.size() < 2) return {};
    std::sort(peaks.begin(), peaks.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    const double above = peaks[0].first / peaks[1].first - 1;
    // A throughput is one measurement per level: a few percent may be run-to-run noise.
    const char* caveat = above < 0.05 ? "; one run per level, so repeat the sweeps before calling so small a difference real" : "";
    return fmt::format("Highest peak throughput: {} at {:.2f} req/s, {} above {} ({:.2f} req/s){}.",
                       sweep_short_name(sweeps[peaks[0].second], peaks[0].second), peaks[0].first, format_share(above),
                       sweep_short_name(sweeps[peaks[1].second], peaks[1].second), peaks[1].first, caveat);
}

// One sentence per SLO over every sweep: "SLO e2e p95 ≤ 500 ms holds up to c≈36 on bad and c≈23 on fair."
inline std::vector<std::string> capacity_summary(std::span<const sweep_analysis> sweeps) {
    std::vector<std::string> out;
    if (sweeps.empty()) return out;
    for (std::size_t k = 0; k < sweeps.front().capacity.size(); ++k) {
        const slo_capacity& first = sweeps.front().capacity[k];
        std::vector<std::string> parts;
        bool interpolated = false;
        for (std::size_t i = 0; i < sweeps.size(); ++i) {
            if (k >= sweeps[i].capacity.size()) continue;
            const slo_capacity& c = sweeps[i].capacity[k];
            const std::string param = sweeps[i].curve.param == "concurrency" ? "c" : sweeps[i].curve.param;
            std::string where = !c.known       ? "unknown"
                                : !c.max_load  ? "not met at any load"
                                : !c.limited   ? fmt::format("met at every load up to {}={:g}", param, *c.max_load)
                                : c.interpolated ? fmt::format("up to {}≈{}", param, interpolated_load(*c.max_load))
                                                 : fmt::format("up to {}={:g}", param, *c.max_load);
            interpolated = interpolated || (c.max_load && c.interpolated);
            parts.push_back(where + (sweeps.size() > 1 ? " on " + sweep_short_name(sweeps[i], i) : std::string()));
        }
        std::string joined;
        for (std::size_t i = 0; i < parts.size(); ++i)
            joined.append(i == 0 ? "" : i + 1 == parts.size() ? " and " : ", ").append(parts[i]);
        out.push_back(fmt::format("SLO {} {} ≤ {} holds {}{}.", to_string(first.objective.on), percentile_key(first.percentile),
                                  format_seconds(first.objective.max_seconds), joined,
                                  interpolated ? " (≈: interpolated between measured loads)" : ""));
    }
    return out;
}

} // namespace detail

// At most five sentences (summary_view picks them): for sweeps their peaks, knees and SLO
// capacity; for one run its headline, missed SLOs and strongest findings; for several runs the
// best and worst of them.
inline std::vector<summary_sentence> report_summary(std::span<const run_stats> runs,
                                                    std::span<const std::vector<finding>> run_findings,
                                                    std::span<const sweep_analysis> sweeps, const std::vector<slo>& slos,
                                                    double slo_percentile) {
    std::vector<summary_sentence> out;
    std::vector<const run_stats*> measured;
    for (const auto& r : runs)
        if (r.requests > 0 && r.meta.kind == run_kind::requests) measured.push_back(&r);
    if (!sweeps.empty()) {
        if (auto s = detail::best_sweep_sentence(sweeps); !s.empty()) out.push_back({9, std::move(s)});
        if (auto s = detail::same_load_sentence(sweeps); !s.empty()) out.push_back({8.5, std::move(s)});
        for (std::size_t i = 0; i < sweeps.size(); ++i) out.push_back({8 - 0.01 * static_cast<double>(i), detail::sweep_sentence(sweeps[i], i)});
        for (auto& c : detail::capacity_summary(sweeps)) out.push_back({8.7, std::move(c)});
    } else if (measured.size() == 1) {
        out.push_back({10, detail::headline_sentence(*measured.front())});
    } else if (measured.size() > 1) {
        const run_stats* fastest = measured.front();
        const run_stats* tightest = nullptr;
        for (const auto* r : measured) {
            if (r->rps && (!fastest->rps || *r->rps > *fastest->rps)) fastest = r;
            const auto p99 = find_percentile(*r, "all", metric::e2e, 99);
            if (p99 && (!tightest || *p99 < *find_percentile(*tightest, "all", metric::e2e, 99))) tightest = r;
        }
        if (fastest->rps)
            out.push_back({9, fmt::format("Highest throughput: {} with {} ({} output).", fastest->meta.label,
                                          format_rate(fastest->rps, "req/s"), format_rate(fastest->output_tps, "tok/s"))});
        if (tightest)
            out.push_back({8, fmt::format("Lowest e2e p99: {} at {} (p50 {}).", tightest->meta.label,
                                          format_seconds(find_percentile(*tightest, "all", metric::e2e, 99)),
                                          format_seconds(find_percentile(*tightest, "all", metric::e2e, 50)))});
    }
    if (measured.size() > 1)
        for (auto& s : detail::slo_across_runs(measured, slos, slo_percentile)) out.push_back({sweeps.empty() ? 7.5 : 2.0, std::move(s)});
    for (std::size_t i = 0; i < runs.size(); ++i) {
        if (runs[i].requests == 0) continue;
        // In a sweep the curves speak for the runs; a run's own findings matter when it stands alone.
        const double scale = sweeps.empty() ? 1.0 : 0.3;
        if (measured.size() == 1)
            for (const auto& s : detail::failed_slos(runs[i], slos, slo_percentile)) out.push_back({7.5 * scale, s});
        if (i < run_findings.size() && measured.size() <= 3)
            for (const auto& f : run_findings[i])
                out.push_back({detail::finding_weight(f.rule) * scale,
                               (measured.size() > 1 ? runs[i].meta.label + ": " : std::string()) + f.text});
    }
    return out;
}

// The KPI table's sources: one run alone, each sweep at its peak throughput, or the runs (six at most).
inline std::pair<std::vector<kpi_source>, std::string> report_kpi_sources(std::span<const run_stats> runs,
                                                                         std::span<const sweep_analysis> sweeps) {
    std::vector<kpi_source> out;
    std::string note;
    if (!sweeps.empty()) {
        // Side by side at the highest load every sweep ran; a lone sweep (or sweeps that share no
        // level) at its peak throughput.
        const auto common = sweeps.size() > 1 ? detail::highest_common_load(sweeps) : std::nullopt;
        for (std::size_t i = 0; i < sweeps.size(); ++i) {
            const sweep_row* row = common ? detail::row_at(sweeps[i], *common) : detail::peak_row(sweeps[i]);
            if (row == nullptr) continue;
            // Rows follow the sweep's points, which index the runs.
            const auto k = static_cast<std::size_t>(row - sweeps[i].rows.data());
            if (k >= sweeps[i].curve.points.size() || sweeps[i].curve.points[k].run >= runs.size()) continue;
            out.push_back({fmt::format("{} at {}", sweep_short_name(sweeps[i], i),
                                       servestat::detail::format_load(sweeps[i].curve.param, row->load)),
                           &runs[sweeps[i].curve.points[k].run]});
        }
        note = common ? fmt::format("KPIs of each sweep at {}, the highest load every sweep ran; every level is in the sweep "
                                    "tables below.", servestat::detail::format_load(sweeps.front().curve.param, *common))
                      : "KPIs of each sweep at the load where its throughput peaked; every level is in the sweep tables below.";
        return {out, note};
    }
    constexpr std::size_t most = 6;
    for (const auto& r : runs) {
        if (r.requests == 0 || r.meta.kind != run_kind::requests) continue;
        if (out.size() == most) {
            note = fmt::format("The first {} runs; every run is in the table below.", most);
            break;
        }
        out.push_back({r.meta.label, &r});
    }
    return {out, note};
}

} // namespace servestat::report
