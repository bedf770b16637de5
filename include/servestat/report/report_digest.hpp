// The digest of `servestat report`: summary sentences and KPI rows for one run, several runs or
// sweeps of runs, and names that tell sweeps apart. Built on the digest layer (digest.hpp).
#pragma once

#include <algorithm> // std::sort, std::find, std::minmax_element, std::any_of, std::count_if, std::min, std::max
#include <cmath>    // std::ceil, std::isinf
#include <cstddef>  // std::size_t
#include <map>      // std::map
#include <optional> // std::optional
#include <set>      // std::set
#include <span>     // std::span
#include <string>   // std::string
#include <string_view> // std::string_view
#include <utility>  // std::pair
#include <vector>   // std::vector

#include <fmt/format.h> // fmt::format

#include "servestat/report/digest.hpp"        // summary_sentence, kpi_source, common_stem
#include "servestat/report/few_samples.hpp"   // marked_seconds, few_samples_mark_of
#include "servestat/report/energy_view.hpp"   // output_energy_figure, energy_text
#include "servestat/report/findings.hpp"      // finding
#include "servestat/report/format.hpp"        // format_seconds, format_share, format_rate
#include "servestat/stats/run_stats.hpp"      // run_stats
#include "servestat/report/sweep_view.hpp"     // detail::interpolated_load, detail::sweep_cell
#include "servestat/report/with_failed.hpp" // judged_percentile, judged_text
#include "servestat/stats/run_validity.hpp"   // check_run_validity
#include "servestat/sweep/sweep_analysis.hpp" // sweep_analysis, detail::format_load

namespace servestat::report {

namespace detail {

// Requests whose size differs between levels by more than this (output tokens per request, largest
// over smallest) make req/s a poor measure of what the server did: a trace replayed for different
// lengths of time meets different requests at each level.
inline constexpr double request_size_spread = 1.25;

// Output tokens per request at each of `rows` that has both rates, and whether they differ by more
// than request_size_spread.
struct request_sizes {
    std::vector<const sweep_row*> rows;
    double smallest = 0, largest = 0;
    bool differ() const { return rows.size() >= 3 && largest > request_size_spread * smallest; }
};

inline request_sizes sizes_of(const std::vector<const sweep_row*>& rows) {
    request_sizes out;
    for (const auto* r : rows) {
        const auto tps = sweep_cell(*r, "output_tps"), rps = sweep_cell(*r, "rps");
        if (!tps || !rps || *rps <= 0 || *tps <= 0) continue;
        const double size = *tps / *rps;
        out.smallest = out.rows.empty() ? size : std::min(out.smallest, size);
        out.largest = out.rows.empty() ? size : std::max(out.largest, size);
        out.rows.push_back(r);
    }
    return out;
}

// The column a sweep's throughput is told in: output tok/s where its requests differ in size
// between levels, else req/s.
inline std::string_view throughput_column(const sweep_analysis& a) {
    std::vector<const sweep_row*> rows;
    for (const auto& row : a.rows) rows.push_back(&row);
    return sizes_of(rows).differ() ? "output_tps" : "rps";
}

// The row of a sweep with the highest throughput.
inline const sweep_row* peak_row(const sweep_analysis& a) {
    const std::string_view column = throughput_column(a);
    const sweep_row* best = nullptr;
    for (const auto& row : a.rows)
        if (const auto v = sweep_cell(row, column); v && (!best || *v > *sweep_cell(*best, column))) best = &row;
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

// One title per sweep, no two alike: what it sweeps and the design's name for its configuration;
// without one, the stem its runs' labels share and the parameters that set it apart
// ("Sweep over concurrency — bad (preset=…)").
inline std::vector<std::string> sweep_titles(std::span<const sweep_analysis> sweeps) {
    std::vector<std::string> out;
    std::set<std::string> used;
    for (const auto& a : sweeps) {
        std::string title = "Sweep over " + a.curve.param + " — " + a.curve.configuration;
        if (a.curve.configuration.empty()) {
            std::string stem = detail::sweep_stem(a);
            if (a.curve.group.find(stem) != std::string::npos) stem.clear(); // "no-features" in "deployment=no-features"
            title = "Sweep over " + a.curve.param + (stem.empty() ? "" : " — " + stem) +
                    (a.curve.group.empty() ? "" : " (" + a.curve.group + ")");
        }
        std::string unique = title;
        for (int k = 2; used.count(unique); ++k) unique = fmt::format("{} #{}", title, k);
        used.insert(unique);
        out.push_back(unique);
    }
    return out;
}

// A short name for a sweep in sentences: its configuration's name, else its stem, else its group,
// else its position.
inline std::string sweep_short_name(const sweep_analysis& a, std::size_t index) {
    if (!a.curve.configuration.empty()) return a.curve.configuration;
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
    // Where the GPUs' power was sampled or reported, what a token took (energy_view.hpp).
    if (const energy_figure* j = output_energy_figure(r.energy); j && j->value)
        out += fmt::format("; {} per output token{}", energy_text(*j),
                           r.energy->mean_watts ? fmt::format(" at {:.0f} W", *r.energy->mean_watts) : std::string());
    return out + ".";
}

// The SLOs a run misses, subset by subset: "SLO e2e p95 ≤ 250 ms fails for long prompts (p95 1.02 s)".
inline std::vector<std::string> failed_slos(const run_stats& r, const std::vector<slo>& slos, double percentile) {
    std::vector<std::string> out;
    for (const auto& s : slos) {
        std::string failing;
        for (const char* subset : {"all", "short", "long"}) {
            // Failed requests count as +∞ where any failed (report/with_failed.hpp).
            const summary* sum = find_summary(r, subset, s.on);
            const auto v = judged_percentile(sum, percentile);
            if (!v || *v <= s.max_seconds) continue;
            failing.append(failing.empty() ? "" : ", ")
                .append(fmt::format("{} {}", std::string_view(subset) == "all" ? "all requests" : std::string(subset) + " prompts",
                                    judged_text(sum, percentile)));
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
            const summary* sum = find_summary(*r, "all", s.on);
            const auto v = judged_percentile(sum, percentile); // failed requests as +∞ where any failed
            if (!v) continue;
            if (*v <= s.max_seconds) {
                met.append(met.empty() ? "" : ", ").append(r->meta.label + few_samples_mark_of(sum, percentile));
                ++n_met;
            } else
                missed.append(missed.empty() ? "" : ", ").append(fmt::format("{} ({})", r->meta.label, judged_text(sum, percentile)));
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

// What was swept over which range: "concurrency 1 to 64 (8 levels)", "max_concurrency 1, 4 and 16";
// `inner` gives the form that sits inside parentheses ("concurrency 1 to 64, 8 levels").
inline std::string sweep_range(const sweep_analysis& a, bool inner = false) {
    std::vector<std::string> loads, failed;
    for (const auto& row : a.rows) {
        loads.push_back(std::isinf(row.load) ? "∞" : servestat::detail::load_text(row.load));
        if (row.excluded_because == nothing_completed_reason) failed.push_back(loads.back());
    }
    if (loads.empty()) return a.curve.param;
    // A level where nothing completed is named as such: the range alone would pass it for measured.
    std::string none;
    for (std::size_t i = 0; i < failed.size(); ++i)
        none.append(i == 0 ? "nothing completed at " : i + 1 == failed.size() ? " and " : ", ").append(failed[i]);
    if (!none.empty()) none = inner ? "; " + none : " (" + none + ")";
    if (loads.size() > 4)
        return fmt::format(fmt::runtime(inner ? "{} {} to {}, {} levels" : "{} {} to {} ({} levels)"), a.curve.param,
                           loads.front(), loads.back(), loads.size()) + none;
    std::string out = a.curve.param + " ";
    for (std::size_t i = 0; i < loads.size(); ++i)
        out.append(i == 0 ? "" : i + 1 == loads.size() ? " and " : ", ").append(loads[i]);
    return out + none;
}

// The levels the knees saw (those not kept out for their validity), with a throughput.
inline std::vector<const sweep_row*> throughput_rows(const sweep_analysis& a) {
    std::vector<const sweep_row*> out;
    for (const auto& row : a.rows)
        if (!row.excluded && sweep_cell(row, "rps")) out.push_back(&row);
    if (out.empty())
        for (const auto& row : a.rows)
            if (sweep_cell(row, "rps")) out.push_back(&row);
    return out;
}

// Share of the peak within which a level counts as having reached it ("growth stops").
inline constexpr double growth_stop_share = 0.9;

// Where throughput stops growing, without a knee: the first level within 10% of the peak, whether
// every level after it stays there, or that it is still rising at the top level.
inline std::string growth_clause(const sweep_analysis& a, const std::vector<const sweep_row*>& rows, const sweep_row& peak) {
    auto load = [&](double l) { return servestat::detail::format_load(a.curve.param, l); };
    auto rps = [](const sweep_row* r) { return *sweep_cell(*r, "rps"); };
    const double top = rps(&peak);
    std::size_t first = 0;
    while (first < rows.size() && rps(rows[first]) < growth_stop_share * top) ++first;
    if (rows.size() < 2 || first >= rows.size()) return {};
    if (first + 1 == rows.size())
        return fmt::format(", still rising at the top level ({:+.0f}% over {}), so growth does not stop within the range",
                           100 * (top / rps(rows[first - 1]) - 1), load(rows[first - 1]->load));
    bool stays = true;
    for (std::size_t i = first; i < rows.size(); ++i) stays = stays && rps(rows[i]) >= growth_stop_share * top;
    std::string out = first == 0 ? ", already within 10% of its peak at the lowest level"
                                 : ", growth stopping at " + load(rows[first]->load);
    if (stays) return out + (first == 0 ? " and at every level above it" : " (every level from there within 10% of the peak)");
    if (const sweep_row* last = rows.back(); rps(last) < growth_stop_share * top)
        return out + fmt::format(", then falling to {:.2f} req/s at {} ({:.0f}% below the peak)", rps(last), load(last->load),
                                 100 * (1 - rps(last) / top));
    return out;
}

// A step that adds less than this share of output tok/s has stopped growing.
inline constexpr double token_growth_floor = 0.10;

// Where output tok/s stops growing, for sweeps whose requests differ in size between levels (an
// agentic trace), in place of the req/s clauses: ": measured in output tok/s (…), which stops
// growing between c=8 and c=16 (199 → 199 tok/s) while TTFT p50 climbs from 3.44 s to 48.68 s (261 s
// at c=64), then rises again to 300 tok/s at c=40". Empty when req/s measures the levels alike.
inline std::string token_growth_clause(const sweep_analysis& a, const std::vector<const sweep_row*>& rows) {
    auto load = [&](double l) { return servestat::detail::format_load(a.curve.param, l); };
    const request_sizes sizes = sizes_of(rows);
    if (!sizes.differ()) return {};
    const auto& with = sizes.rows;
    const double smallest = sizes.smallest, largest = sizes.largest;
    auto tps = [](const sweep_row* r) { return *sweep_cell(*r, "output_tps"); };
    const sweep_row* peak = with.front();
    for (const auto* r : with)
        if (tps(r) > tps(peak)) peak = r;
    std::string out = fmt::format(": measured in output tok/s (output tokens per request range from {:.0f} to {:.0f} "
                                  "across the levels, so req/s counts unlike requests), which ",
                                  smallest, largest);
    std::size_t stop = 0;
    while (stop + 1 < with.size() && tps(with[stop + 1]) >= (1 + token_growth_floor) * tps(with[stop])) ++stop;
    if (stop + 1 == with.size())
        return out + fmt::format("rises at every step, to {:.0f} tok/s at {}", tps(with.back()), load(with.back()->load));
    const sweep_row* before = with[stop];
    const sweep_row* after = with[stop + 1];
    out += fmt::format("stops growing between {} and {} ({:.0f} → {:.0f} tok/s)", load(before->load), load(after->load),
                       tps(before), tps(after));
    const auto ttft_before = sweep_cell(*before, "ttft.p50"), ttft_after = sweep_cell(*after, "ttft.p50");
    const auto ttft_top = sweep_cell(*with.back(), "ttft.p50");
    if (ttft_before && ttft_after && *ttft_after > *ttft_before) {
        out += fmt::format(" while TTFT p50 climbs from {} to {}", format_seconds(*ttft_before), format_seconds(*ttft_after));
        if (with.back() != after && ttft_top && *ttft_top > *ttft_after)
            out += fmt::format(" ({} at {})", format_seconds(*ttft_top), load(with.back()->load));
    }
    if (peak == after || peak == before) return out;
    return out + fmt::format(fmt::runtime(peak->load > after->load ? ", then rises again to {:.0f} tok/s at {}"
                                                                    : ", after its peak of {:.0f} tok/s at {}"),
                             tps(peak), load(peak->load));
}

// A sweep in one sentence, whatever its curves look like: what was swept over which range, the
// peak throughput and where, where growth stops (a knee, else the first level within 10% of the
// peak, or that it does not within the range), the tail knee when there is one, and the p99 e2e
// and TTFT at the top level (left out when the side-by-side sentence gives that level: `shown`).
// "; the two-segment fit puts it at c≈12" beside Kneedle's throughput knee, or "; the two-segment fit
// agrees" (sweep_view.hpp's knee_agreement); nothing when the fit found no levelling off.
inline std::string two_segment_clause(const sweep_analysis& a, const sweep_knee& k) {
    if (!k.two_segment || !k.two_segment->levels_off() || !k.load) return {};
    const double at = k.two_segment->load;
    if (std::abs(at - *k.load) <= knee_agreement * *k.load) return "; the two-segment fit agrees";
    return "; the two-segment fit puts it at " + (a.curve.param == "concurrency" ? std::string("c≈") : a.curve.param + "≈") +
           interpolated_load(at);
}

inline std::string sweep_sentence(const sweep_analysis& a, std::size_t index, bool alone,
                                  std::optional<double> shown = std::nullopt) {
    const std::string param = a.curve.param;
    auto load = [&](double l) { return servestat::detail::format_load(param, l); };
    const std::string name = sweep_short_name(a, index);
    std::string out = alone && name == fmt::format("sweep {}", index + 1) ? "Sweep over " + sweep_range(a)
                                                                          : name + " (" + sweep_range(a, true) + ")";
    const auto rows = throughput_rows(a);
    const sweep_row* peak = nullptr;
    for (const auto* r : rows)
        if (!peak || *sweep_cell(*r, "rps") > *sweep_cell(*peak, "rps")) peak = r;
    if (const std::string tokens = token_growth_clause(a, rows); !tokens.empty()) {
        out += tokens;
    } else if (peak) {
        out += fmt::format(": throughput peaks at {:.2f} req/s at {}", *sweep_cell(*peak, "rps"), load(peak->load));
        const sweep_knee* knee = nullptr;
        for (const auto& k : a.knees)
            if (k.curve == "throughput" && k.load && k.y && k.caveat.empty()) knee = &k;
        out += knee ? fmt::format(", gaining little beyond its knee at {} ({:.2f} req/s{})", load(*knee->load), *knee->y,
                                  two_segment_clause(a, *knee))
                    : growth_clause(a, rows, *peak);
    } else
        out += ": no level has a throughput";
    for (const auto& k : a.knees) {
        if (k.curve != "p99" || servestat::detail::jump_over_load(a, k)) continue; // a jump has its own sentence
        if (k.load && k.y && k.caveat.empty()) out += fmt::format("; e2e p99 bends upward from {} ({})", load(*k.load), format_seconds(*k.y));
        else if (k.load && k.y) // a knee Kneedle found on a curve without a bend worth the name
            out += fmt::format("; e2e p99 {} (Kneedle's knee at {} is no saturation point)", shape_phrase(k.form), load(*k.load));
    }
    // The top level the knees saw: a level kept out has its own sentence.
    const sweep_row* top = nullptr;
    for (const auto& row : a.rows)
        if (!row.excluded) top = &row;
    if (top && !(shown && top->load == *shown)) {
        auto cell = [&](std::string_view column) -> std::string {
            const auto v = sweep_cell(*top, column);
            if (!v) return {};
            const std::size_t i = servestat::detail::column_index(column);
            return format_seconds(*v) + (i < top->few_samples.size() && top->few_samples[i] ? few_samples_mark : "");
        };
        const std::string e2e = cell("e2e.p99"), ttft = cell("ttft.p99");
        if (!e2e.empty() || !ttft.empty())
            out += fmt::format("; at {}{} {}", load(top->load), top == &a.rows.back() ? "" : " (the top level the knees use)",
                               !e2e.empty() && !ttft.empty() ? "e2e p99 is " + e2e + " and TTFT p99 " + ttft
                               : !e2e.empty()                ? "e2e p99 is " + e2e
                                                             : "TTFT p99 is " + ttft);
    }
    return out + ".";
}

// A sentence per curve over load that is one jump, so that the summary says it before any knee; not
// for req/s where the sweep is told in output tok/s (its requests differ in size between levels).
inline std::vector<std::string> jump_sentences(std::span<const sweep_analysis> sweeps) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < sweeps.size(); ++i)
        for (const auto& k : sweeps[i].knees)
            if (servestat::detail::jump_over_load(sweeps[i], k) &&
                !(k.curve == "throughput" && sizes_of(throughput_rows(sweeps[i])).differ()))
                out.push_back((sweeps.size() > 1 ? sweep_short_name(sweeps[i], i) + ": " : std::string()) +
                              servestat::detail::jump_finding(sweeps[i], k));
    return out;
}

// Runs known only by their tools' aggregates (a summary file, result lines) that form no sweep:
// the highest throughput and the lowest e2e p99 among them, as the tools reported them.
inline std::string reported_runs_sentence(std::span<const run_stats> runs) {
    const run_stats* fastest = nullptr;
    const run_stats* tightest = nullptr;
    for (const auto& r : runs) {
        if (r.meta.kind != run_kind::summary) continue;
        if (const auto rps = sweep_value(r, "rps"); rps && (!fastest || *rps > *sweep_value(*fastest, "rps"))) fastest = &r;
        if (const auto p99 = sweep_value(r, "e2e.p99"); p99 && (!tightest || *p99 < *sweep_value(*tightest, "e2e.p99")))
            tightest = &r;
    }
    if (!fastest) return {};
    // Among the runs that have a throughput (a failed run has none, so it is no rival).
    const auto rated = std::count_if(runs.begin(), runs.end(), [](const run_stats& r) {
        return r.meta.kind == run_kind::summary && sweep_value(r, "rps").has_value();
    });
    const auto tps = sweep_value(*fastest, "output_tps");
    std::string out = fmt::format("{} {} req/s{}", rated > 1 ? "Highest throughput, as the tools reported it: " + fastest->meta.label + " with"
                                                                 : "As the tool reported it: " + fastest->meta.label + ",",
                                  fmt::format("{:.2f}", *sweep_value(*fastest, "rps")),
                                  tps ? fmt::format(" ({:.1f} tok/s output)", *tps) : std::string());
    if (tightest && rated > 1)
        out += fmt::format("; lowest e2e p99: {} at {}", tightest->meta.label, format_seconds(*sweep_value(*tightest, "e2e.p99")));
    else if (tightest)
        out += fmt::format(", e2e p99 {}", format_seconds(*sweep_value(*tightest, "e2e.p99")));
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

// Sweeps whose configurations are named by two factors or more, grouped to be compared on one of
// them with the others held (llm-d against vLLM within each workload, never a short workload against
// a long one): `compared` is the position of that factor's piece, each group's name the other pieces.
struct comparison_groups {
    std::size_t compared = 0;
    std::vector<std::vector<std::size_t>> groups;
    std::vector<std::string> names;
};

// The first naming factor that splits every group of the others into two sweeps or more.
inline std::optional<comparison_groups> groups_to_compare(std::span<const sweep_analysis> sweeps) {
    const std::size_t n = sweeps.empty() ? 0 : sweeps.front().curve.configuration_pieces.size();
    if (n < 2) return std::nullopt;
    for (const auto& a : sweeps)
        if (a.curve.configuration_pieces.size() != n) return std::nullopt;
    for (std::size_t k = 0; k < n; ++k) {
        std::map<std::string, std::vector<std::size_t>> by_rest;
        std::vector<std::string> order;
        for (std::size_t i = 0; i < sweeps.size(); ++i) {
            std::string rest;
            for (std::size_t j = 0; j < n; ++j)
                if (j != k && !sweeps[i].curve.configuration_pieces[j].empty())
                    rest.append(rest.empty() ? "" : " · ").append(sweeps[i].curve.configuration_pieces[j]);
            auto& group = by_rest[rest];
            if (group.empty()) order.push_back(rest);
            group.push_back(i);
        }
        const bool splits = by_rest.size() > 1 && std::all_of(by_rest.begin(), by_rest.end(), [](const auto& g) { return g.second.size() > 1 && !g.first.empty(); });
        if (!splits) continue;
        comparison_groups out{k, {}, order};
        for (const auto& name : order) out.groups.push_back(by_rest[name]);
        return out;
    }
    return std::nullopt;
}

// One column at one load within a group: "27.51 s on llm-d/ vs 83.13 s on vllm/ (3.0× apart)".
inline std::string group_values(std::span<const sweep_analysis> sweeps, const std::vector<std::size_t>& group, std::size_t compared,
                                double load, std::string_view column) {
    std::vector<sweep_analysis> members;
    std::string part;
    for (const std::size_t i : group) {
        const auto v = sweep_cell(*row_at(sweeps[i], load), column);
        if (!v) continue;
        members.push_back(sweeps[i]);
        part.append(part.empty() ? "" : " vs ")
            .append((column == "rps" ? fmt::format("{:.2f} req/s", *v) : format_seconds(*v)) + " on " +
                    sweeps[i].curve.configuration_pieces[compared]);
    }
    if (members.size() < 2) return {};
    if (const auto spread = spread_at(members, load, column); spread && *spread >= 1.5 && column != "rps")
        part += fmt::format(" ({:.1f}× apart{})", *spread, agreeing_levels(members, load, column));
    return part;
}

// The sweeps side by side at the highest load all ran: the tails users feel (short and long
// prompts' e2e p99 where known, else e2e and TTFT p99) and throughput, with how far apart they are
// and whether lower levels agreed. Configurations named by several factors are compared on one
// with the others held (groups_to_compare).
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
    if (const auto grouped = groups_to_compare(sweeps)) {
        for (const auto& [column, what] : columns) {
            std::string part;
            for (std::size_t g = 0; g < grouped->groups.size(); ++g)
                if (auto values = group_values(sweeps, grouped->groups[g], grouped->compared, *load, column); !values.empty())
                    part.append(part.empty() ? "" : ", ").append(values + " for " + grouped->names[g]);
            if (part.empty()) continue;
            out.append(any ? "; " : ", ").append(what).append(" is ").append(part);
            any = true;
        }
        return any ? out + "." : std::string();
    }
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

// The sweep that peaks highest against the next: the comparison a tuning review starts from; for
// configurations named by several factors, within each group of the others (groups_to_compare).
inline std::string best_sweep_sentence(std::span<const sweep_analysis> sweeps) {
    const auto grouped = groups_to_compare(sweeps);
    const auto name = [&](std::size_t i) {
        return grouped ? sweeps[i].curve.configuration_pieces[grouped->compared] : sweep_short_name(sweeps[i], i);
    };
    // "vllm/ at 2.33 req/s, 30.4% above llm-d/ (1.79 req/s)", then `where` and the caveat.
    const auto best_of = [&](const std::vector<std::size_t>& members, const std::string& where) -> std::string {
        std::vector<std::pair<double, std::size_t>> peaks;
        for (const std::size_t i : members)
            if (const auto* p = peak_row(sweeps[i])) peaks.emplace_back(*sweep_cell(*p, "rps"), i);
        if (peaks.size() < 2) return {};
        std::sort(peaks.begin(), peaks.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
        const double above = peaks[0].first / peaks[1].first - 1;
        // A throughput is one measurement per level: a few percent may be run-to-run noise.
        const char* caveat = above < 0.05 ? " (one run per level: repeat the sweeps before calling so small a difference real)" : "";
        return fmt::format("{} at {:.2f} req/s, {} above {} ({:.2f} req/s){}{}", name(peaks[0].second), peaks[0].first,
                           format_share(above), name(peaks[1].second), peaks[1].first, where, caveat);
    };
    if (!grouped) {
        std::vector<std::size_t> all(sweeps.size());
        for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
        const std::string best = best_of(all, "");
        return best.empty() ? best : "Highest peak throughput: " + best + ".";
    }
    std::string out;
    for (std::size_t g = 0; g < grouped->groups.size(); ++g)
        if (const std::string best = best_of(grouped->groups[g], " for " + grouped->names[g]); !best.empty())
            out.append(out.empty() ? "Highest peak throughput: " : "; ").append(best);
    return out.empty() ? out : out + ".";
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

// "a, b and c", or the first `most` and how many more.
inline std::string name_list(const std::vector<std::string>& items, std::size_t most = 4) {
    std::string out;
    const std::size_t shown = items.size() > most + 1 ? most : items.size();
    for (std::size_t i = 0; i < shown; ++i)
        out.append(i == 0 ? "" : i + 1 == shown && shown == items.size() ? " and " : ", ").append(items[i]);
    if (shown < items.size()) out += fmt::format(" and {} more", items.size() - shown);
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
    return "Not in steady state, having completed fewer than 2 × their concurrency in requests: " + name_list(named, 6) +
           "; their latencies describe ramp-up and drain.";
}

// ---- run validity in the summary (docs/sweeps.md#run-validity) --------------------------------

// How a run is named in the validity sentences: by its level and label when it is on a sweep
// ("c=16 (label)"), else by its label.
inline std::string validity_name(std::span<const sweep_analysis> sweeps, std::size_t run, const run_stats& r) {
    for (std::size_t s = 0; s < sweeps.size(); ++s) {
        const auto& a = sweeps[s];
        for (const auto& p : a.curve.points) {
            const bool here = p.run == run || std::find(p.replicates.begin(), p.replicates.end(), run) != p.replicates.end();
            if (!here) continue;
            // The level names the run in its sweep; a label that carries the level ("bad-c64", "rate ∞")
            // names it alone, and a long one (a folder's name) is left to the level, and to its
            // sweep's name where several sweeps have that level.
            const std::string level = servestat::detail::format_load(a.curve.param, p.load);
            const std::string& label = r.meta.label;
            const std::string number = std::isinf(p.load) ? "∞" : servestat::detail::load_text(p.load);
            if (label.empty() || label.size() > 32) return sweeps.size() > 1 ? level + " on " + sweep_short_name(a, s) : level;
            if (label.find(number) != std::string::npos) return label;
            return level + " (" + label + ")";
        }
    }
    return r.meta.label;
}

inline std::string count_text(double n) { return fmt::format("{:.0f}", n); }

// The runs servestat's load driver may have limited (run.end.client over stats/client_limits.hpp's
// limits): a sentence each, "this run" in a report of one; more than two in one sentence naming them.
inline std::vector<summary_sentence> client_sentences(std::span<const run_stats> runs,
                                                      std::span<const sweep_analysis> sweeps) {
    const servestat::validity_options limits;
    std::vector<std::pair<std::string, client_limit>> limited;
    for (std::size_t i = 0; i < runs.size(); ++i)
        if (auto c = check_client(runs[i].meta.run_end, limits.client))
            limited.emplace_back(runs.size() == 1 ? std::string("this run") : validity_name(sweeps, i, runs[i]), *c);
    std::vector<summary_sentence> out;
    if (limited.size() <= 2) {
        for (const auto& [who, c] : limited) out.push_back({9.15, client_limit_sentence(c, who), true});
        return out;
    }
    std::vector<std::string> names;
    bool lag = false, turnaround = false, loop = false, cpu = false;
    for (const auto& [who, c] : limited) {
        names.push_back(who);
        lag = lag || c.schedule_lag;
        turnaround = turnaround || c.turnaround;
        loop = loop || c.loop_delay;
        cpu = cpu || c.cpu_share;
    }
    std::vector<std::string> what;
    if (lag) what.push_back("its send schedule slipped");
    if (turnaround) what.push_back("it was slow to send again after a response");
    if (loop) what.push_back("its event loop ran late");
    if (cpu) what.push_back(fmt::format("it used {:.0f}% or more of one core", limits.client.cpu_share * 100));
    std::string reasons;
    for (std::size_t i = 0; i < what.size(); ++i)
        reasons.append(i == 0 ? "" : i + 1 == what.size() ? " or " : ", ").append(what[i]);
    const bool late_sends = lag || turnaround, late_stamps = loop || cpu;
    out.push_back({9.15,
                   fmt::format("The client may have limited {} runs ({}): in each {} (run.end.client in their logs); {}.",
                               limited.size(), name_list(names), reasons,
                               late_sends && late_stamps ? "requests went out later than planned and the latencies may "
                                                           "include the client's own delay"
                               : late_sends ? "requests went out later than planned, so the server saw less load than configured"
                                            : "their latencies may include the client's own delay"),
                   true});
    return out;
}

// The runs' validity issues, one sentence per kind, each naming its runs; stragglers and levels
// run out of order come from the sweep analysis. `told` receives the runs whose errors are told,
// so that their context-overflow finding is not told again.
inline std::vector<summary_sentence> validity_sentences(std::span<const run_stats> runs,
                                                        std::span<const sweep_analysis> sweeps, std::vector<bool>& told) {
    std::vector<summary_sentence> out;
    told.assign(runs.size(), false);
    // Stragglers and levels out of order: the sweep's own findings, named by sweep among several.
    for (std::size_t i = 0; i < sweeps.size(); ++i) {
        const std::string prefix = sweeps.size() > 1 ? sweep_short_name(sweeps[i], i) + ": " : std::string();
        for (const auto& st : sweeps[i].validity.stragglers)
            out.push_back({9.4, prefix + servestat::detail::straggler_finding(sweeps[i], st), true});
        if (auto t = servestat::detail::short_of_siblings_finding(sweeps[i]); !t.empty())
            out.push_back({9.2, prefix + t, true});
        if (!sweeps[i].validity.start_order.empty())
            out.push_back({9.1, prefix + servestat::detail::order_finding(sweeps[i]), true});
        if (auto t = servestat::detail::unsteady_exclusion_finding(sweeps[i]); !t.empty())
            out.push_back({9.0, prefix + t, true});
    }
    struct early_run {
        std::string who;
        early_end end;
        bool time;
    };
    std::vector<early_run> early;
    std::vector<std::string> tiny, failing, stopped, nothing, cold;
    std::vector<double> tiny_requests, tiny_seconds;
    std::size_t tiny_runs = 0, measured = 0;
    const servestat::validity_options limits;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const run_stats& r = runs[i];
        const run_validity v = check_run_validity(r, limits);
        const std::string who = validity_name(sweeps, i, r);
        if (v.nothing_completed) {
            told[i] = true;
            const auto errors = run_errors(r);
            nothing.push_back(errors && errors->failed > 0
                                  ? fmt::format("{} ({} of {} requests failed)", who, count_text(errors->failed),
                                                count_text(errors->requests))
                                  : who);
        } else if (r.meta.kind != run_kind::arrivals && !(r.meta.kind == run_kind::requests && r.requests == 0))
            ++measured;
        // The time it ran, else the requests it sent, against what it was configured for.
        if (v.ended_early_time) early.push_back({who, *v.ended_early_time, true});
        else if (v.ended_early_count) early.push_back({who, *v.ended_early_count, false});
        if (v.stopped_by_driver) {
            const auto& d = *v.stopped_by_driver;
            stopped.push_back(fmt::format("{} ({})", who, !d.detail.empty()           ? d.detail
                                                        : d.reason == "interrupted" ? "stopped by a signal"
                                                                                    : d.reason));
        }
        // A run already told to be short for its concurrency (short_runs_sentence) is not told again.
        if (v.tiny && !short_for_concurrency(r)) {
            ++tiny_runs;
            std::string detail;
            if (v.tiny->requests && v.tiny->seconds)
                detail = fmt::format("{} requests in {}", count_text(*v.tiny->requests), format_seconds(*v.tiny->seconds));
            else if (v.tiny->requests) detail = fmt::format("{} requests", count_text(*v.tiny->requests));
            else if (v.tiny->seconds) detail = format_seconds(*v.tiny->seconds);
            // "c=40 (run f, 96 requests in 402 s)", "bad-c64 (200 requests in 1.82 s)".
            std::string what = who.ends_with(")") ? who.substr(0, who.size() - 1) + ", " + detail + ")" : who + " (" + detail + ")";
            tiny.push_back(std::move(what));
            if (v.tiny->requests) tiny_requests.push_back(*v.tiny->requests);
            if (v.tiny->seconds) tiny_seconds.push_back(*v.tiny->seconds);
        }
        if (v.cold) {
            told[i] = true;
            const auto& c = *v.cold;
            const char* name = c.on == metric::ttft ? "TTFT" : "e2e";
            cold.push_back(fmt::format("{} (its first {} requests: {} {} at the median against {} for the rest; {} p99 {} with "
                                       "them, {} without)",
                                       who, c.head, name, format_seconds(c.head_median), format_seconds(c.rest_median), name,
                                       format_seconds(c.p99), format_seconds(c.rest_p99)));
        }
        if (v.errors) {
            told[i] = true;
            const auto& e = *v.errors;
            std::string kinds;
            if (e.context_overflows == e.failed) kinds = e.failed == 1 ? ", a context overflow" : ", all context overflows";
            else if (e.context_overflows == 1) kinds = ", 1 of them a context overflow";
            else if (e.context_overflows > 0) kinds = fmt::format(", {} of them context overflows", count_text(e.context_overflows));
            failing.push_back(fmt::format("{} ({} of {}: {}{})", who, count_text(e.failed), count_text(e.requests),
                                          format_share(e.share()), kinds));
        }
    }
    if (!nothing.empty())
        out.push_back({9.35, fmt::format("Nothing completed in {}: {}; {} no measurement, so {} no rates or latencies "
                                         "and no point on any curve.",
                                         nothing.size() == 1 ? "one run" : fmt::format("{} runs", nothing.size()),
                                         name_list(nothing), nothing.size() == 1 ? "it is" : "they are",
                                         nothing.size() == 1 ? "it has" : "they have"),
                       true});
    if (!failing.empty())
        out.push_back({9.3, fmt::format("More than 1% of requests failed in {}: {}; {} latencies and throughput count the "
                                        "successful requests only.",
                                        failing.size() == 1 ? "one run" : fmt::format("{} runs", failing.size()),
                                        name_list(failing), failing.size() == 1 ? "its" : "their"),
                        true});
    if (!cold.empty())
        out.push_back({9.22, fmt::format("Cold start in {}: {}; {} tail is the server warming up, not serving — measure after "
                                         "a warm-up, or read it with --steady-state.",
                                         cold.size() == 1 ? "one run" : fmt::format("{} runs", cold.size()), name_list(cold),
                                         cold.size() == 1 ? "its" : "their"),
                       true});
    if (!stopped.empty())
        out.push_back({9.25, fmt::format("The load driver stopped sending early in {}; {} numbers cover only the part that ran.",
                                         name_list(stopped), stopped.size() == 1 ? "its" : "their"),
                       true});
    if (!early.empty()) {
        // "c=16 after 1235 s and c=40 after 402 s of the configured 1800 s (benchmark_duration)" when
        // they share one setting; else each with its own.
        bool shared = true;
        for (const auto& e : early)
            shared = shared && e.time == early.front().time && e.end.param == early.front().end.param &&
                     e.end.configured == early.front().end.configured;
        auto amount = [](const early_run& e, double v) { return e.time ? fmt::format("{:.0f} s", v) : count_text(v) + " requests"; };
        std::vector<std::string> parts;
        for (const auto& e : early)
            parts.push_back(shared ? fmt::format("{} after {}", e.who, e.time ? amount(e, e.end.measured) : count_text(e.end.measured))
                                   : fmt::format("{} after {} of its configured {} ({})", e.who,
                                                 e.time ? amount(e, e.end.measured) : count_text(e.end.measured),
                                                 amount(e, e.end.configured), e.end.param));
        const early_run& f = early.front();
        out.push_back({9.2,
                       fmt::format("Ended well before {} configured length: {}{}; {} numbers cover only the part that ran.",
                                   early.size() == 1 ? "its" : "their", name_list(parts),
                                   shared ? fmt::format(" of the configured {} ({})", amount(f, f.end.configured), f.end.param)
                                          : std::string(),
                                   early.size() == 1 ? "its" : "their"),
                       true});
    }
    if (!tiny.empty()) {
        // Few requests make tails unsteady; a few seconds make rates mostly ramp-up and drain.
        const bool few = std::any_of(tiny_requests.begin(), tiny_requests.end(),
                                     [&](double n) { return n <= limits.tiny_requests; });
        const bool brief = std::any_of(tiny_seconds.begin(), tiny_seconds.end(),
                                       [&](double t) { return t < limits.tiny_seconds; });
        const std::string consequence =
            few && brief ? "; tails from so few requests, and rates from a few seconds of ramp-up and drain, may not repeat."
            : few        ? "; tails from so few requests may not repeat."
                         : "; rates from a few seconds of ramp-up and drain may not repeat.";
        if (tiny_runs > 4 || (tiny_runs > 1 && tiny_runs == measured)) { // many, or all: in one range
            auto range = [](std::vector<double> v, bool seconds) {
                const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
                auto text = [&](double x) { return seconds ? format_seconds(x) : count_text(x); };
                return *lo == *hi ? text(*lo) : text(*lo) + " to " + text(*hi);
            };
            std::string what;
            if (!tiny_requests.empty()) what = range(tiny_requests, false) + " requests";
            if (!tiny_seconds.empty()) what += (what.empty() ? "" : " in ") + range(tiny_seconds, true);
            out.push_back({8.9,
                           fmt::format("{} short ({}){}",
                                       tiny_runs == measured ? fmt::format("Every run ({}) is", tiny_runs)
                                                             : fmt::format("{} runs are", tiny_runs),
                                       what, consequence),
                           true});
        } else
            out.push_back({8.9, fmt::format("Short runs: {}{}", name_list(tiny), consequence), true});
    }
    for (auto& s : client_sentences(runs, sweeps)) out.push_back(std::move(s));
    return out;
}

} // namespace detail

// At most five sentences (summary_view picks them): for sweeps their peaks, knees and SLO
// capacity; for one run its headline, missed SLOs and strongest findings; for several runs the
// best and worst of them.
namespace detail {

// The server's queue is said to be where the time goes from this share of a request's time on.
inline constexpr double queue_share_told = 0.25;

inline std::string split_subset_words(const std::string& subset) {
    return subset == "all" ? "requests" : subset + " prompts";
}

// "By the server's own clock, short prompts spend 71% of their time in its queue at c=32 (long
// prompts 12%)": of the runs whose server reported its queue (docs/metrics.md#the-time-split), at
// each sweep's highest level with the split (or each run without sweeps), the subset that waits in
// the queue the largest share of its time, when that is at least queue_share_told.
inline std::string server_clock_sentence(std::span<const run_stats> runs, std::span<const sweep_analysis> sweeps) {
    struct candidate {
        const run_stats* run;
        std::string where;
    };
    std::vector<candidate> candidates;
    for (std::size_t i = 0; i < sweeps.size(); ++i)
        for (auto p = sweeps[i].curve.points.rbegin(); p != sweeps[i].curve.points.rend(); ++p)
            if (!runs[p->run].split.subsets.empty()) {
                candidates.push_back({&runs[p->run], "at " + format_load(sweeps[i].curve.param, p->load) +
                                                         (sweeps.size() > 1 ? " on " + sweep_short_name(sweeps[i], i) : "")});
                break;
            }
    if (sweeps.empty())
        for (const auto& r : runs)
            if (!r.split.subsets.empty()) candidates.push_back({&r, runs.size() > 1 ? "in " + r.meta.label : ""});
    const candidate* best = nullptr;
    const subset_time_split* most = nullptr;
    for (const auto& c : candidates)
        for (const auto& s : c.run->split.subsets) {
            // `all` speaks only where no prompt-length subset has the split.
            if (s.subset == "all" && c.run->split.subsets.size() > 1) continue;
            if (!most || s.share(split_part::server_queue) > most->share(split_part::server_queue)) best = &c, most = &s;
        }
    if (!most || most->share(split_part::server_queue) < queue_share_told) return {};
    std::vector<std::string> others;
    for (const auto& s : best->run->split.subsets)
        if (&s != most && s.subset != "all")
            others.push_back(fmt::format("{} {}", split_subset_words(s.subset), format_share(s.share(split_part::server_queue))));
    // The same prompts elsewhere (each other sweep's highest level, each other run), for contrast.
    std::vector<std::string> elsewhere;
    for (const auto& c : candidates)
        if (&c != best)
            for (const auto& s : c.run->split.subsets)
                if (s.subset == most->subset)
                    elsewhere.push_back(fmt::format("{}{}", c.where.empty() ? "" : c.where + ", ",
                                                    format_share(s.share(split_part::server_queue))));
    return fmt::format("By the server's own clock, {} spend {} of their time in its queue{}{}{}.", split_subset_words(most->subset),
                       format_share(most->share(split_part::server_queue)), best->where.empty() ? "" : " " + best->where,
                       others.empty() ? "" : " (" + name_list(others) + ")",
                       elsewhere.empty() ? "" : "; " + name_list(elsewhere, 2));
}

} // namespace detail

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
        // A lone sweep's sentence leads: it is what the report is about. Several sweeps are
        // compared first (same_load_sentence, best_sweep_sentence).
        for (std::size_t i = 0; i < sweeps.size(); ++i)
            out.push_back({sweeps.size() == 1 ? 9.6 : 8 - 0.01 * static_cast<double>(i),
                           detail::sweep_sentence(sweeps[i], i, sweeps.size() == 1, shown)});
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
    } else if (auto s = detail::reported_runs_sentence(runs); !s.empty()) {
        out.push_back({9, std::move(s)}); // aggregates only, on no sweep: the tools' own numbers still say something
    }
    if (auto s = detail::server_clock_sentence(runs, sweeps); !s.empty()) out.push_back({8.6, std::move(s)});
    // Ahead of every number: those of a run that never reached steady state describe no sustained load.
    if (auto s = detail::short_runs_sentence(runs); !s.empty()) out.push_back({10.5, std::move(s)});
    // Then which numbers are not the server's: stragglers, early ends, tiny runs, errors, order.
    std::vector<bool> errors_told;
    for (auto& s : detail::validity_sentences(runs, sweeps, errors_told)) out.push_back(std::move(s));
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
                if (f.rule == "context_overflows" && i < errors_told.size() && errors_told[i]) continue; // told with the errors
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
                      : fmt::format("KPIs of each sweep at the load where its {} peaked; every level is in the sweep "
                                    "tables below.", sweeps.size() == 1 && detail::throughput_column(sweeps.front()) == "output_tps"
                                                         ? "output tok/s" : "throughput");
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
