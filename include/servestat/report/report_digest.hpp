// The digest of `servestat report`: summary sentences and KPI rows for one run, several runs or
// sweeps of runs, and names that tell sweeps apart. Built on the digest layer (digest.hpp).
#pragma once

#include <algorithm> // std::sort
#include <cmath>    // std::ceil, std::isinf
#include <cstddef>  // std::size_t
#include <optional> // std::optional
#include <set>      // std::set
#include <span>     // std::span
#include <string>   // std::string
#include <utility>  // std::pair
#include <vector>   // std::vector

#include <fmt/format.h> // fmt::format

#include "servestat/report/digest.hpp"        // summary_sentence, kpi_source, common_stem
#include "servestat/report/few_samples.hpp"   // marked_seconds, few_samples_mark_of
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

// Of a level's replicates, the run whose throughput is the median (the lower middle one of an even
// count); the level's run when it has no replicates or no throughput.
inline std::size_t median_throughput_run(std::span<const run_stats> runs, const sweep_point& p) {
    std::vector<std::pair<double, std::size_t>> by_rps;
    for (const std::size_t i : p.replicates)
        if (i < runs.size())
            if (const auto v = sweep_value(runs[i], "rps")) by_rps.emplace_back(*v, i);
    if (by_rps.size() < 2) return p.run;
    std::sort(by_rps.begin(), by_rps.end());
    return by_rps[(by_rps.size() - 1) / 2].second;
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
        std::string stem = detail::sweep_stem(a);
        if (a.curve.group.find(stem) != std::string::npos) stem.clear(); // "no-features" in "deployment=no-features"
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
    const summary* e2e = find_summary(r, "all", metric::e2e);
    const summary* ttft = find_summary(r, "all", metric::ttft);
    const auto e50 = find_percentile(r, "all", metric::e2e, 50), e99 = find_percentile(r, "all", metric::e2e, 99);
    if (e50 && e99) out += fmt::format("; e2e p50 {}, p99 {}", marked_seconds(e2e, 50), marked_seconds(e2e, 99));
    const auto t50 = find_percentile(r, "all", metric::ttft, 50), t99 = find_percentile(r, "all", metric::ttft, 99);
    if (t50 && t99) out += fmt::format("; TTFT p50 {}, p99 {}", marked_seconds(ttft, 50), marked_seconds(ttft, 99));
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
                                    marked_seconds(find_summary(r, subset, s.on), percentile)));
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
            const summary* sum = find_summary(*r, "all", s.on);
            if (*v <= s.max_seconds) {
                met.append(met.empty() ? "" : ", ").append(r->meta.label + few_samples_mark_of(sum, percentile));
                ++n_met;
            } else
                missed.append(missed.empty() ? "" : ", ").append(fmt::format("{} ({})", r->meta.label, marked_seconds(sum, percentile)));
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

// How a curve without a saturation knee moves: "rises steadily without a clear bend".
inline std::string shape_phrase(const curve_shape& f) {
    switch (f.kind) {
    case curve_kind::plateau: return "stays flat";
    case curve_kind::noisy: return "is noisy";
    case curve_kind::monotone: return f.rising ? "rises steadily without a clear bend" : "falls steadily without a clear bend";
    default: return "has no clear knee";
    }
}

// Empty when it would only repeat the peak that the side-by-side sentence already gives (`shown`).
inline std::string sweep_sentence(const sweep_analysis& a, std::size_t index, std::optional<double> shown = std::nullopt) {
    const std::string name = sweep_short_name(a, index), param = a.curve.param;
    auto load = [&](double l) { return servestat::detail::format_load(param, l); };
    std::string out = name + ":";
    const sweep_row* peak = peak_row(a);
    if (peak) out += fmt::format(" throughput reaches {:.2f} req/s at {}", *sweep_cell(*peak, "rps"), load(peak->load));
    const std::size_t bare = out.size();
    for (const auto& k : a.knees) {
        if (k.curve != "throughput" && k.curve != "p99") continue;
        if (servestat::detail::jump_over_load(a, k)) continue; // its own sentence (jump_sentences)
        const bool throughput = k.curve == "throughput";
        if (k.load && k.y && k.caveat.empty())
            out += throughput ? fmt::format(", gaining little beyond its knee at {} ({:.2f} req/s)", load(*k.load), *k.y)
                              : fmt::format("; e2e p99 bends upward from {} ({})", load(*k.load), format_seconds(*k.y));
        else if (k.load && k.y) // a knee Kneedle found on a curve without a bend worth the name
            out += fmt::format("{} {} (Kneedle's knee at {} is no saturation point)", throughput ? ", throughput" : "; e2e p99",
                               shape_phrase(k.form), load(*k.load));
    }
    if (out.size() == bare && peak && shown && peak->load == *shown) return {};
    return out + ".";
}

// A sentence per curve over load that is one jump, so that the summary says it before any knee.
inline std::vector<std::string> jump_sentences(std::span<const sweep_analysis> sweeps) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < sweeps.size(); ++i)
        for (const auto& k : sweeps[i].knees)
            if (servestat::detail::jump_over_load(sweeps[i], k))
                out.push_back((sweeps.size() > 1 ? sweep_short_name(sweeps[i], i) + ": " : std::string()) +
                              servestat::detail::jump_finding(sweeps[i], k));
    return out;
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

// How far apart the sweeps are on one column at one level: largest over smallest, when all have it.
inline std::optional<double> spread_at(std::span<const sweep_analysis> sweeps, double load, std::string_view column) {
    std::optional<double> lo, hi;
    for (const auto& a : sweeps) {
        const auto* row = row_at(a, load);
        const auto v = row ? sweep_cell(*row, column) : std::nullopt;
        if (!v || *v <= 0) return std::nullopt;
        lo = lo ? std::min(*lo, *v) : *v;
        hi = hi ? std::max(*hi, *v) : *v;
    }
    return lo ? std::optional<double>(*hi / *lo) : std::nullopt;
}

// Lower levels every sweep ran where they agree on `column` within 10%: what the highest level's
// difference is not ("within 3% of each other at request_rate 10 and 30").
inline std::string agreeing_levels(std::span<const sweep_analysis> sweeps, double highest, std::string_view column) {
    std::vector<std::string> levels;
    double widest = 1;
    for (const auto& row : sweeps.front().rows) {
        if (row.load >= highest) break;
        const auto spread = spread_at(sweeps, row.load, column);
        if (!spread) continue;
        if (*spread >= 1.1) return {};
        widest = std::max(widest, *spread);
        levels.push_back(servestat::detail::load_text(row.load));
    }
    if (levels.empty()) return {};
    std::string joined;
    for (std::size_t i = 0; i < levels.size(); ++i)
        joined.append(i == 0 ? "" : i + 1 == levels.size() ? " and " : ", ").append(levels[i]);
    return fmt::format("; within {:.0f}% of each other at {} {}", std::max(1.0, std::ceil(100 * (widest - 1))),
                       sweeps.front().curve.param, joined);
}

// The sweeps side by side at the highest load all ran: the tails users feel (short and long
// prompts' e2e p99 where known, else e2e and TTFT p99) and throughput, with how far apart they are
// and whether lower levels agreed.
inline std::string same_load_sentence(std::span<const sweep_analysis> sweeps) {
    if (sweeps.size() < 2) return {};
    const auto load = highest_common_load(sweeps);
    if (!load) return {};
    auto any_has = [&](std::string_view column) {
        for (const auto& a : sweeps)
            if (sweep_cell(*row_at(a, *load), column)) return true;
        return false;
    };
    std::vector<std::pair<const char*, const char*>> columns;
    if (any_has("short.e2e.p99") || any_has("long.e2e.p99"))
        columns = {{"short.e2e.p99", "short prompts' e2e p99"}, {"long.e2e.p99", "long prompts' e2e p99"}};
    else
        columns = {{"e2e.p99", "e2e p99"}, {"ttft.p99", "TTFT p99"}};
    columns.push_back({"rps", "throughput"});
    std::string out = fmt::format("At {}{}", servestat::detail::format_load(sweeps.front().curve.param, *load),
                                  std::isinf(*load) ? " (every request sent at once, so latency includes the wait in the "
                                                      "queue that burst builds)"
                                                    : "");
    bool any = false;
    for (const auto& [column, what] : columns) {
        std::string part;
        for (std::size_t i = 0; i < sweeps.size(); ++i) {
            const auto v = sweep_cell(*row_at(sweeps[i], *load), column);
            if (!v) continue;
            part.append(part.empty() ? "" : " vs ")
                .append((std::string_view(column) == "rps" ? fmt::format("{:.2f} req/s", *v) : format_seconds(*v)) + " on " +
                        sweep_short_name(sweeps[i], i));
        }
        if (part.empty()) continue;
        if (const auto spread = spread_at(sweeps, *load, column); spread && *spread >= 1.5 && std::string_view(column) != "rps")
            part += fmt::format(" ({:.1f}× apart{})", *spread, agreeing_levels(sweeps, *load, column));
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
                                : !c.limited   ? fmt::format("met at every load up to {}={}", param, servestat::detail::load_text(*c.max_load))
                                : c.interpolated ? fmt::format("up to {}≈{}", param, interpolated_load(*c.max_load))
                                                 : fmt::format("up to {}={}", param, servestat::detail::load_text(*c.max_load));
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

// The runs too short for their concurrency, in one sentence: their latencies describe no steady
// load, which matters before any number of theirs is read (findings.hpp, short_for_concurrency).
inline std::string short_runs_sentence(std::span<const run_stats> runs) {
    std::vector<std::string> named;
    const run_stats* only = nullptr;
    for (const auto& r : runs)
        if (short_for_concurrency(r)) {
            named.push_back(fmt::format("{} ({} at concurrency {:g})", r.meta.label, r.ok, *run_concurrency(r.meta)));
            only = &r;
        }
    if (named.size() == 1) return short_for_concurrency(*only)->text;
    if (named.empty()) return {};
    std::string list;
    for (std::size_t i = 0; i < named.size(); ++i)
        list.append(i == 0 ? "" : i + 1 == named.size() ? " and " : ", ").append(named[i]);
    return "Not in steady state, having completed fewer than 2 × their concurrency in requests: " + list +
           "; their latencies describe ramp-up and drain.";
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
        // Configurations side by side at one level lead: the comparison a tuning review starts from.
        if (auto s = detail::same_load_sentence(sweeps); !s.empty()) out.push_back({9.5, std::move(s)});
        const auto shown = sweeps.size() > 1 ? detail::highest_common_load(sweeps) : std::nullopt;
        for (std::size_t i = 0; i < sweeps.size(); ++i)
            if (auto sentence = detail::sweep_sentence(sweeps[i], i, shown); !sentence.empty())
                out.push_back({8 - 0.01 * static_cast<double>(i), std::move(sentence)});
        // A jump read as a knee misleads more than any other sentence here helps.
        for (auto& j : detail::jump_sentences(sweeps)) out.push_back({8.8, std::move(j)});
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
                                          marked_seconds(find_summary(*tightest, "all", metric::e2e), 99),
                                          marked_seconds(find_summary(*tightest, "all", metric::e2e), 50))});
    }
    // Ahead of every number: those of a run that never reached steady state describe no sustained load.
    if (auto s = detail::short_runs_sentence(runs); !s.empty()) out.push_back({10.5, std::move(s)});
    if (measured.size() > 1)
        for (auto& s : detail::slo_across_runs(measured, slos, slo_percentile)) out.push_back({sweeps.empty() ? 7.5 : 2.0, std::move(s)});
    for (std::size_t i = 0; i < runs.size(); ++i) {
        if (runs[i].requests == 0) continue;
        // In a sweep the curves speak for the runs; a run's own findings matter when it stands alone.
        const double scale = sweeps.empty() ? 1.0 : 0.3;
        if (measured.size() == 1)
            for (const auto& s : detail::failed_slos(runs[i], slos, slo_percentile)) out.push_back({7.5 * scale, s});
        if (i < run_findings.size() && measured.size() <= 3)
            for (const auto& f : run_findings[i]) {
                if (f.rule == "short_for_concurrency") continue; // told above, for every run at once
                out.push_back({detail::finding_weight(f.rule) * scale,
                               (measured.size() > 1 ? runs[i].meta.label + ": " : std::string()) + f.text});
            }
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
        std::optional<double> common;
        if (sweeps.size() > 1) common = detail::highest_common_load(sweeps);
        for (std::size_t i = 0; i < sweeps.size(); ++i) {
            const sweep_row* row = common ? detail::row_at(sweeps[i], *common) : detail::peak_row(sweeps[i]);
            if (row == nullptr) continue;
            // Rows follow the sweep's points, which index the runs.
            const auto k = static_cast<std::size_t>(row - sweeps[i].rows.data());
            if (k >= sweeps[i].curve.points.size() || sweeps[i].curve.points[k].run >= runs.size()) continue;
            // A level run more than once: the run of median throughput stands for it (the sweep
            // table has each column's median).
            const auto& point = sweeps[i].curve.points[k];
            const std::size_t chosen = detail::median_throughput_run(runs, point);
            out.push_back({fmt::format("{} at {}{}", sweep_short_name(sweeps[i], i),
                                       servestat::detail::format_load(sweeps[i].curve.param, row->load),
                                       point.replicates.size() > 1
                                           ? fmt::format(" (its median-throughput run of {})", point.replicates.size())
                                           : std::string()),
                           &runs[chosen]});
        }
        note = common ? fmt::format("KPIs of each sweep at {}, the highest load every sweep ran; every level is in the sweep "
                                    "tables below.", servestat::detail::format_load(sweeps.front().curve.param, *common))
                      : "KPIs of each sweep at the load where its throughput peaked; every level is in the sweep tables below.";
        return {out, note};
    }
    constexpr std::size_t most = 6;
    for (const auto& r : runs) {
        if (r.meta.kind == run_kind::arrivals || (r.meta.kind == run_kind::requests && r.requests == 0)) continue;
        if (out.size() == most) {
            note = fmt::format("The first {} runs; every run is in the table below.", most);
            break;
        }
        out.push_back({r.meta.label, &r});
    }
    return {out, note};
}

} // namespace servestat::report
