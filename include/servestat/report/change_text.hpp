// How a change between two runs reads in text: signed percentages with the typographic minus,
// values in their unit, intervals, p-values and verdict classes. Every view that shows a change
// (compare, trend, the digest) writes it the same way.
#pragma once

#include <cmath>    // std::abs
#include <optional> // std::optional
#include <string>   // std::string
#include <string_view> // std::string_view
#include <utility>  // std::pair

#include <fmt/format.h> // fmt::format

#include "servestat/compare/compare.hpp" // change, verdict
#include "servestat/report/few_samples.hpp" // few_samples_mark
#include "servestat/report/format.hpp"   // format_seconds, format_share, missing_value

namespace servestat::report::detail {

// ---- numbers, with the typographic minus so "−6.1%" lines up with "+5.0%" -------------------

inline std::string with_sign(const std::string& magnitude, double v) {
    return v == 0 ? magnitude : std::string(v < 0 ? "−" : "+").append(magnitude);
}

inline std::string signed_percent(double fraction) {
    const double pct = 100 * fraction;
    return std::abs(pct) < 0.05 ? "0.0%" : with_sign(fmt::format("{:.1f}%", std::abs(pct)), pct);
}

inline std::string percent_text(double fraction) { return fmt::format("{:g}%", 100 * fraction); }

// "< 0.001" or two significant digits, as pyperf and compare.py print them.
inline std::string p_text(const std::optional<double>& p) {
    if (!p) return missing_value;
    return *p < 0.001 ? "< 0.001" : fmt::format("{:.2g}", *p);
}

inline std::string p_clause(double p) { return p < 0.001 ? "p < 0.001" : "p = " + p_text(p); }

enum class value_kind { seconds, share, requests_rate, tokens_rate };

inline value_kind kind_of(const change& c) {
    if (!c.subset.empty()) return value_kind::seconds;
    if (c.metric == "success_rate" || c.metric == "goodput_share") return value_kind::share;
    return c.metric == "output_tps" ? value_kind::tokens_rate : value_kind::requests_rate;
}

inline std::string number_text(value_kind k, double v) {
    switch (k) {
    case value_kind::seconds: return format_seconds(v);
    case value_kind::share: return format_share(v);
    case value_kind::requests_rate: return fmt::format("{:.2f}", v);
    case value_kind::tokens_rate: return fmt::format("{:.1f}", v);
    }
    return "";
}

inline std::string unit_text(value_kind k) {
    return k == value_kind::requests_rate ? " req/s" : k == value_kind::tokens_rate ? " tok/s" : "";
}

inline std::string value_text(const change& c, const std::optional<double>& v) {
    return v ? number_text(kind_of(c), *v) + unit_text(kind_of(c)) : std::string(missing_value);
}


// A difference: shares in percentage points, the rest in the statistic's own unit.
inline std::string delta_text(const change& c, double d) {
    const value_kind k = kind_of(c);
    if (k == value_kind::share) return with_sign(fmt::format("{:.1f} pp", std::abs(100 * d)), d);
    return with_sign(number_text(k, std::abs(d)), d) + unit_text(k);
}

inline std::string change_text(const change& c) {
    if (!c.delta) return missing_value;
    // A change of sketched percentiles carries the bound of its error, "+0.0%, sketched ±2.0%", not
    // a bare 0 (and not a bare ±, which reads as a confidence interval).
    const std::string bound = c.sketch_bound ? fmt::format(", sketched ±{:.1f}%", 100 * *c.sketch_bound) : std::string();
    return c.relative ? delta_text(c, *c.delta) + " (" + signed_percent(*c.relative) + bound + ")" : delta_text(c, *c.delta);
}

// The interval of the relative change, or of the absolute one when the baseline is zero.
inline std::optional<std::pair<std::string, std::string>> ci_ends(const change& c) {
    if (c.relative_ci) return std::pair{signed_percent(c.relative_ci->low), signed_percent(c.relative_ci->high)};
    if (c.delta_ci) return std::pair{delta_text(c, c.delta_ci->low), delta_text(c, c.delta_ci->high)};
    return std::nullopt;
}

// "†" when that side's percentile rests on few samples (stats/sample_size.hpp) and the change has
// no interval, else "". An interval already says how sure the change is, and a dagger beside it was
// read as a footnote on the p-value.
inline std::string side_mark(const change& c, std::string_view side) {
    if (ci_ends(c)) return {};
    for (const auto& s : few_sample_sides(c))
        if (s == side) return few_samples_mark;
    return {};
}

// A side's value as sentences quote it, with its dagger where it has one: "1.40 s†".
inline std::string marked_side_text(const change& c, std::string_view side) {
    return value_text(c, side == "before" ? c.before : c.after) + side_mark(c, side);
}

inline std::string ci_text(const change& c) {
    const auto ends = ci_ends(c);
    return ends ? "[" + ends->first + ", " + ends->second + "]" : std::string(missing_value);
}

inline std::string css_class(verdict v) {
    switch (v) {
    case verdict::improved: return "improved";
    case verdict::regressed: return "regressed";
    case verdict::no_change:
    case verdict::within_noise: return "neutral";
    default: return "undecided";
    }
}

// "short e2e p99", "e2e p50", "throughput".
inline std::string readable_name(const change& c) {
    static constexpr std::pair<const char*, const char*> run_level[] = {
        {"rps", "throughput"}, {"output_tps", "output throughput"}, {"success_rate", "success rate"},
        {"goodput_share", "goodput share"}, {"goodput_rps", "goodput"}};
    if (c.subset.empty()) {
        for (const auto& [key, text] : run_level)
            if (c.metric == key) return text;
        return c.metric;
    }
    return (c.subset == "all" ? std::string() : c.subset + " ").append(c.metric).append(" ").append(c.statistic);
}

// A statistic as a sentence names it, its subset always said so that no finding leaves the reader
// to guess whose latency moved: "all requests' e2e p99", "short prompts' TTFT p50", "throughput".
inline std::string sentence_name(const change& c) {
    if (c.subset.empty()) return readable_name(c);
    return (c.subset == "all" ? std::string("all requests' ") : c.subset + " prompts' ")
        .append(c.metric).append(" ").append(c.statistic);
}

} // namespace servestat::report::detail
