// GuideLLM's own confidence intervals (vllm-project/guidellm PR #1163, `--metrics confidence=…`):
// nullable `mean_ci` and `percentile_cis` on each distribution summary. No public result file carries
// them yet and the PR names only its classes (ConfidenceInterval, PercentileIntervals), so an
// interval is read in any of the shapes those describe — {"lower", "upper"} (or low/high, lo/hi,
// lower_bound/upper_bound, ci_low/ci_high) or [lower, upper] — with an optional confidence level, and
// percentile_cis keyed by GuideLLM's percentile names (p50, p999), by numbers (99, 0.99) or as a list
// of intervals that name their percentile. They are kept as reported values beside the estimate they
// bound (`ttft.p99.ci_low`, `ttft.p99.ci_high`), never in place of servestat's own intervals; a
// shape none of these fits is named in a note, never dropped silently.
#pragma once

#include <array>       // std::array
#include <cmath>       // std::isfinite
#include <cstddef>     // std::size_t
#include <initializer_list> // std::initializer_list
#include <optional>    // std::optional
#include <stdexcept>   // std::exception
#include <string>      // std::string
#include <string_view> // std::string_view
#include <utility>     // std::pair
#include <vector>      // std::vector

#include <fmt/format.h>      // fmt::format
#include <nlohmann/json.hpp> // nlohmann::json

#include "servestat/core/run.hpp"             // run_metadata
#include "servestat/ingest/json_document.hpp" // json_place, json_* helpers

namespace servestat {
namespace detail {

// GuideLLM's percentile keys and servestat's names for them (guidellm.hpp reads the estimates by them).
struct guidellm_percentile {
    std::string_view key;      // in `percentiles`
    std::string_view reported; // servestat's stat name
};

inline constexpr std::array<guidellm_percentile, 11> guidellm_percentiles{{
    {"p001", "p0.1"}, {"p01", "p1"}, {"p05", "p5"}, {"p10", "p10"}, {"p25", "p25"}, {"p50", "p50"},
    {"p75", "p75"}, {"p90", "p90"}, {"p95", "p95"}, {"p99", "p99"}, {"p999", "p99.9"},
}};

struct reported_interval {
    double low = 0, high = 0;
    std::optional<double> level; // the confidence, as a fraction (0.95)
};

inline const nlohmann::json* first_member(const nlohmann::json& object, std::initializer_list<std::string_view> keys) {
    for (const auto key : keys)
        if (const auto* v = json_member(object, key); v && v->is_number()) return v;
    return nullptr;
}

// A confidence level as a fraction: 95 and 0.95 are the same level.
inline std::optional<double> confidence_fraction(const nlohmann::json* v) {
    if (!v || !v->is_number()) return std::nullopt;
    const double x = v->get<double>();
    if (!std::isfinite(x) || x <= 0 || x >= 100) return std::nullopt;
    return x < 1 ? x : x / 100;
}

inline std::optional<reported_interval> interval_of(const nlohmann::json& v) {
    if (v.is_array() && v.size() == 2 && v[0].is_number() && v[1].is_number())
        return reported_interval{v[0].get<double>(), v[1].get<double>(), std::nullopt};
    if (!v.is_object()) return std::nullopt;
    const auto* low = first_member(v, {"lower", "low", "lo", "lower_bound", "ci_low", "ci_lower"});
    const auto* high = first_member(v, {"upper", "high", "hi", "upper_bound", "ci_high", "ci_upper"});
    if (!low || !high) return std::nullopt;
    const auto* level = first_member(v, {"confidence", "level", "confidence_level"});
    return reported_interval{low->get<double>(), high->get<double>(), confidence_fraction(level)};
}

// servestat's name of a GuideLLM percentile key: p999 → p99.9, p05 → p5, 99 → p99, 0.999 → p99.9.
inline std::optional<std::string> percentile_name(std::string_view key) {
    for (const auto& p : guidellm_percentiles)
        if (key == p.key) return std::string(p.reported);
    if (key == "median") return std::string("p50");
    std::string_view digits = key;
    if (digits.starts_with('p')) digits.remove_prefix(1);
    if (digits.empty()) return std::nullopt;
    double x = 0;
    try {
        std::size_t used = 0;
        x = std::stod(std::string(digits), &used);
        if (used != digits.size()) return std::nullopt;
    } catch (const std::exception&) {
        return std::nullopt;
    }
    if (!(x > 0) || !(x < 100)) return std::nullopt;
    if (x < 1 && !key.starts_with('p')) x *= 100; // a fraction: 0.99
    return fmt::format("p{:g}", x);
}

inline void push_interval(run_metadata& meta, const std::string& name, const reported_interval& i, std::string_view unit,
                          double scale) {
    meta.reported.push_back({name + ".ci_low", i.low * scale, std::string(unit)});
    meta.reported.push_back({name + ".ci_high", i.high * scale, std::string(unit)});
}

} // namespace detail

struct guidellm_interval_reading {
    std::size_t read = 0;             // intervals kept
    std::optional<double> level;      // the confidence the file states
    std::vector<std::string> unknown; // paths whose shape was not understood
};

// The intervals of one distribution summary `stats` (at `path`), reported as `<prefix><stat>.ci_low`
// and `.ci_high` in the estimate's unit (`scale` converts, as for the estimate).
inline void read_guidellm_intervals(const nlohmann::json& stats, const std::string& path, const std::string& prefix,
                                    std::string_view unit, double scale, run_metadata& meta,
                                    guidellm_interval_reading& out) {
    using detail::json_member;
    const auto note_level = [&out](const std::optional<double>& level) {
        if (level && !out.level) out.level = level;
    };
    if (const auto* mean = json_member(stats, "mean_ci"); mean && !mean->is_null()) {
        if (const auto i = detail::interval_of(*mean)) {
            detail::push_interval(meta, prefix + "mean", *i, unit, scale);
            note_level(i->level);
            ++out.read;
        } else out.unknown.push_back(detail::json_path(path, "mean_ci"));
    }
    const auto* cis = json_member(stats, "percentile_cis");
    if (!cis || cis->is_null()) return;
    const std::string cis_path = detail::json_path(path, "percentile_cis");
    const auto take = [&](std::string_view key, const nlohmann::json& v, const std::string& at) {
        const auto name = detail::percentile_name(key);
        const auto i = detail::interval_of(v);
        if (!name || !i) {
            out.unknown.push_back(at);
            return;
        }
        detail::push_interval(meta, prefix + *name, *i, unit, scale);
        note_level(i->level);
        ++out.read;
    };
    if (cis->is_object()) {
        // PercentileIntervals may wrap its intervals ({"confidence": 0.95, "intervals": {...}}).
        const nlohmann::json* inner = cis;
        for (const char* wrapper : {"intervals", "percentiles"})
            if (const auto* w = json_member(*cis, wrapper); w && (w->is_object() || w->is_array())) inner = w;
        note_level(detail::confidence_fraction(detail::first_member(*cis, {"confidence", "level", "confidence_level"})));
        if (inner->is_object()) {
            for (const auto& [key, v] : inner->items()) {
                if (key == "confidence" || key == "level" || key == "confidence_level" || v.is_null()) continue;
                take(key, v, detail::json_path(cis_path, key));
            }
            return;
        }
        cis = inner;
    }
    if (!cis->is_array()) {
        out.unknown.push_back(cis_path);
        return;
    }
    for (std::size_t k = 0; k < cis->size(); ++k) {
        const auto& v = (*cis)[k];
        const std::string at = detail::json_path(cis_path, k);
        const auto* p = v.is_object() ? detail::first_member(v, {"percentile", "p", "quantile", "q"}) : nullptr;
        if (!p) {
            out.unknown.push_back(at);
            continue;
        }
        const double x = p->get<double>();
        take(fmt::format("{:g}", x), v, at);
    }
}

// What the run's notes say of them, once per run (empty when the file had none).
inline std::string guidellm_intervals_note(const guidellm_interval_reading& r) {
    if (r.read == 0 && r.unknown.empty()) return {};
    std::string note;
    if (r.read > 0)
        note = fmt::format("GuideLLM's own {}confidence intervals ({} of them) are reported beside their estimates as "
                           "<metric>.<statistic>.ci_low and .ci_high",
                           r.level ? fmt::format("{:g}% ", *r.level * 100) : std::string(), r.read);
    if (!r.unknown.empty())
        note += fmt::format("{}{} interval(s) in a shape servestat does not know were not read (first: {})",
                            note.empty() ? "" : "; ", r.unknown.size(), r.unknown.front());
    return note;
}

} // namespace servestat
