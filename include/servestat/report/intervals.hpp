// How reports show a percentile's confidence interval (stats/summary.hpp, percentile_value::ci):
// beside its value in tables ("1.08 s (0.95–1.21)", format_interval), explained once in a note under
// the table that also counts the values left without one, and as a band around a curve.
#pragma once

#include <algorithm> // std::sort, std::unique
#include <cmath>     // std::round, std::floor, std::ceil, std::abs
#include <cstddef>   // std::size_t
#include <optional>  // std::optional
#include <string>    // std::string
#include <utility>   // std::pair, std::move
#include <vector>    // std::vector

#include <fmt/format.h>       // fmt::format
#include <nlohmann/json.hpp> // nlohmann::ordered_json

#include "servestat/report/few_samples.hpp" // few_samples_mark, few_samples_mark_of, detail::thousands
#include "servestat/stats/interval.hpp"     // interval
#include "servestat/stats/summary.hpp"      // summary, percentile_key

namespace servestat::report {

// The confidence interval of percentile p of `s`, where it has one (stats/summary.hpp).
inline std::optional<interval> percentile_ci(const summary* s, double p) {
    if (s == nullptr) return std::nullopt;
    for (const auto& v : s->percentiles)
        if (v.p == p) return v.value ? v.ci : std::nullopt;
    return std::nullopt;
}

// A table cell's dagger where the cell shows an interval beside its value: none, since the interval
// says how far the value may move; "†" on a value resting on few samples that stands alone.
inline std::string few_samples_mark_unless_ci(const summary* s, double p) {
    return percentile_ci(s, p) ? std::string() : few_samples_mark_of(s, p);
}

// How many of n values lie beyond percentile p's place in them (numpy's linear method: the place
// (n − 1)·p/100, counted from 0): above it for p ≥ 50, below it under that. 1 for p99 of 101 values.
inline std::size_t values_beyond(double p, std::size_t n) {
    if (n == 0) return 0;
    const double place = static_cast<double>(n - 1) * p / 100;
    // A place a rounding hair off a whole number (0.99 × 100) is that number.
    const double whole = std::round(place);
    const double at = std::abs(place - whole) < 1e-9 ? whole : place;
    return p >= 50 ? n - 1 - static_cast<std::size_t>(std::floor(at)) : static_cast<std::size_t>(std::ceil(at));
}

// "p99 of 101 requests: 1 value above it" — a value without its interval, counted plainly.
inline std::string beyond_text(double p, std::size_t n) {
    const std::size_t k = values_beyond(p, n);
    return fmt::format("{} of {} requests: {} {} {} it", percentile_key(p), detail::thousands(n), detail::thousands(k),
                       k == 1 ? "value" : "values", p >= 50 ? "above" : "below");
}

// What the parentheses beside a table's values mean, said once under it, and for the values left
// without one their counts: "… Values without one (†) have too few requests beyond them to bound
// them: p99 of 200 requests: 2 values above it; p99 of 101 requests: 1 value above it." `alone`
// holds (p, n) of each value shown without its interval (repeats told once, at most `most`); empty
// when the table shows no interval at all. `marked`: the table marks those values with the dagger.
inline std::string interval_note(std::vector<std::pair<double, std::size_t>> alone, double confidence,
                                 bool shows_intervals, std::size_t most = 4, bool marked = true) {
    if (!shows_intervals) return {};
    std::string out = fmt::format("In parentheses beside a percentile: its {0:g}% confidence interval, the range that "
                                  "holds the true percentile with {0:g}% confidence (from the order statistics, "
                                  "whatever the distribution).",
                                  100 * confidence);
    std::sort(alone.begin(), alone.end(), [](const auto& a, const auto& b) {
        return a.first != b.first ? a.first > b.first : a.second > b.second;
    });
    alone.erase(std::unique(alone.begin(), alone.end()), alone.end());
    if (alone.empty()) return out;
    // Counts that say the same (p99 of 197, 199 and 200 requests: 2 values above each) are told once,
    // as a range of request counts.
    struct same_count {
        double p;
        std::size_t fewest, most_n, beyond;
    };
    std::vector<same_count> groups;
    for (const auto& [p, n] : alone) {
        const std::size_t k = values_beyond(p, n);
        if (!groups.empty() && groups.back().p == p && groups.back().beyond == k) groups.back().fewest = n;
        else groups.push_back({p, n, n, k});
    }
    std::string list;
    for (std::size_t i = 0; i < groups.size() && i < most; ++i) {
        const auto& g = groups[i];
        list.append(i == 0 ? "" : "; ");
        if (g.fewest == g.most_n) list.append(beyond_text(g.p, g.fewest));
        else
            list.append(fmt::format("{} of {}–{} requests: {} {} {} it", percentile_key(g.p), detail::thousands(g.fewest),
                                    detail::thousands(g.most_n), detail::thousands(g.beyond),
                                    g.beyond == 1 ? "value" : "values", g.p >= 50 ? "above" : "below"));
    }
    if (groups.size() > most) list += fmt::format("; and {} more", groups.size() - most);
    return out + fmt::format(" {} without one{} {} too few requests beyond {} to bound {}: {}.",
                             alone.size() == 1 ? "The value" : "Values",
                             marked ? fmt::format(" ({})", few_samples_mark) : std::string(),
                             alone.size() == 1 ? "has" : "have", alone.size() == 1 ? "it" : "them",
                             alone.size() == 1 ? "it" : "them", list);
}

// The legend entry every interval band of a chart shares.
inline std::string interval_band_label(double confidence) {
    return fmt::format("shaded: {:g}% confidence interval", 100 * confidence);
}

namespace detail {

// A template tests a note with {{#note}}: an empty one is null, since any string renders the section.
inline nlohmann::ordered_json text_or_null(std::string text) {
    return text.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(std::move(text));
}

} // namespace detail

} // namespace servestat::report
