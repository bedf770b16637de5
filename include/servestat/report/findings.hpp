// Findings: numbered statements derived automatically from a run's statistics, each quoting its
// numbers. Every rule lives here, as one function, with its thresholds.
#pragma once

#include <optional>    // std::optional
#include <regex>       // std::regex, std::smatch
#include <string>      // std::string
#include <string_view> // std::string_view
#include <vector>      // std::vector

#include <fmt/format.h> // fmt::format

#include "servestat/core/utf8.hpp"          // shortened_text
#include "servestat/report/few_samples.hpp" // marked_seconds
#include "servestat/report/format.hpp"   // format_seconds, format_share
#include "servestat/stats/linear_fit.hpp" // linear_fit, slope_p_value
#include "servestat/stats/run_stats.hpp"  // run_stats, find_summary

namespace servestat::report {

struct finding {
    std::string rule; // stable name, for tests and for readers who want to filter
    std::string text;
};

namespace detail {

inline std::optional<double> e2e_percentile(const run_stats& r, std::string_view subset, double p) {
    return find_percentile(r, subset, metric::e2e, p);
}

} // namespace detail

// A p99 far above the median means a minority of requests has a very different experience.
inline std::optional<finding> tail_to_median(const run_stats& r) {
    const auto p50 = detail::e2e_percentile(r, "all", 50), p99 = detail::e2e_percentile(r, "all", 99);
    if (!p50 || !p99 || *p50 <= 0) return std::nullopt;
    const double ratio = *p99 / *p50;
    const char* verdict = ratio >= 3 ? "a heavy tail: the slowest 1% wait far longer than typical requests"
                        : ratio >= 1.5 ? "a moderate tail"
                                       : "a tight distribution";
    const summary* e2e = find_summary(r, "all", metric::e2e);
    return finding{"tail_to_median", fmt::format("End-to-end p99 is {} the median ({} vs {}): {}.", format_ratio(ratio),
                                                 marked_seconds(e2e, 99), marked_seconds(e2e, 50), verdict)};
}

// Short prompts should be fast; a short p99 close to the long p99 means they queue behind long
// prefills (head-of-line blocking).
inline std::optional<finding> short_requests_in_tail(const run_stats& r) {
    const auto s50 = detail::e2e_percentile(r, "short", 50), s99 = detail::e2e_percentile(r, "short", 99);
    const auto l99 = detail::e2e_percentile(r, "long", 99);
    if (!s50 || !s99 || !l99 || *s50 <= 0 || *l99 <= 0) return std::nullopt;
    const double spread = *s99 / *s50, versus_long = *s99 / *l99;
    if (spread < 2 && versus_long < 0.8) return std::nullopt;
    return finding{"short_requests_in_tail",
                   fmt::format("Short prompts are dragged into the tail: short p99 {} is {} the short median {} "
                               "and {} of the long-prompt p99 {}. Short requests are likely waiting behind long "
                               "prefills.",
                               marked_seconds(find_summary(r, "short", metric::e2e), 99), format_ratio(spread),
                               marked_seconds(find_summary(r, "short", metric::e2e), 50), format_share(versus_long),
                               marked_seconds(find_summary(r, "long", metric::e2e), 99))};
}

// Seed 004's "queue time is 85% of latency": capacity is idle while requests wait.
inline std::optional<finding> waiting_dominates(const run_stats& r) {
    const auto& b = r.time_breakdown;
    if (b.waiting.empty() || b.subsets.empty()) return std::nullopt;
    for (const auto& p : b.subsets.front().points)
        if (p.p == 50 && p.share >= 0.5)
            return finding{"waiting_dominates",
                           fmt::format("Waiting dominates latency: at the median, {} of {} ({}) is spent before "
                                       "generation ({}).",
                                       format_seconds(p.waiting), format_seconds(p.total), format_share(p.share),
                                       b.waiting)};
    return std::nullopt;
}

// A server that says it spent longer to the first token than the client waited for it: the two
// clocks disagree, or something in between (a proxy, a gateway) answered first. The split counts
// such a request's network part as 0; how many there were, and by how much, is said here.
inline std::optional<finding> server_ahead_of_client(const run_stats& r) {
    if (r.split.subsets.empty() || r.split.subsets.front().server_ahead == 0) return std::nullopt;
    const auto& all = r.split.subsets.front();
    return finding{"server_ahead_of_client",
                   fmt::format("For {} of {} requests the server's own time to the first token (queue and prefill) "
                               "exceeds the client's TTFT, by up to {}: the clocks disagree or something between them "
                               "answers first; the time split counts their network share as 0.",
                               all.server_ahead, all.n, format_seconds(all.most_ahead))};
}

// The bands of seed 004.
inline std::optional<finding> latency_consistency(const run_stats& r) {
    const summary* e2e = find_summary(r, "all", metric::e2e);
    if (e2e == nullptr || !e2e->cov) return std::nullopt;
    const double cov = *e2e->cov;
    const char* band = cov < 0.05  ? "under 5%: consistent, users get a predictable experience"
                     : cov < 0.10  ? "5–10%: generally consistent with occasional variation"
                     : cov < 0.20  ? "10–20%: noticeable variation that users may notice"
                                   : "over 20%: high variation (expected with mixed prompt and output lengths; "
                                     "compare subsets)";
    return finding{"latency_consistency",
                   fmt::format("End-to-end latency varies with a coefficient of variation of {}, {}.",
                               format_share(cov), band)};
}

// vLLM's 400 "maximum context length is N tokens and your request has M input tokens".
inline std::optional<finding> context_overflows(const run_stats& r) {
    for (const auto& e : r.errors) {
        if (e.kind != error_kind::context_overflow) continue;
        std::string cause;
        static const std::regex numbers(R"(maximum context length is (\d+) tokens and your request has (\d+) input tokens)");
        const std::string example = shortened_text(e.example, max_example_chars); // vLLM's message leads
        if (std::smatch m; std::regex_search(example, m, numbers))
            cause = fmt::format(" For example a {}-token prompt left no room for output in the {}-token context; "
                                "budget max_tokens from the prompt length or trim prompts.",
                                m[2].str(), m[1].str());
        const double share = static_cast<double>(e.count) / static_cast<double>(r.requests);
        return finding{"context_overflows",
                       fmt::format("{} of {} requests ({}) failed because prompt plus max_tokens exceeded the "
                                   "model's context.{}",
                                   e.count, r.requests, format_share(share), cause)};
    }
    return std::nullopt;
}

// Decode cost per output token from e2e against output tokens, stated only where the line explains
// the latency: r² ≥ 0.5 and a slope significantly different from 0 (t-test, p < 0.05). A slope that
// its own fit calls noise is no finding, however many requests it was fitted on.
inline constexpr double per_token_cost_min_r_squared = 0.5;
inline constexpr double per_token_cost_alpha = 0.05;

inline std::optional<finding> per_token_cost(const std::optional<linear_fit>& fit) {
    if (!fit || fit->slope <= 0 || fit->r_squared < per_token_cost_min_r_squared) return std::nullopt;
    const auto p = slope_p_value(*fit);
    if (!p || *p >= per_token_cost_alpha) return std::nullopt;
    const char* quality = fit->r_squared >= 0.9 ? "a linear model explains latency well"
                                                : "output length explains part of the latency; queueing adds the rest";
    return finding{"per_token_cost",
                   fmt::format("Each output token adds {} of latency (least squares over {} requests, r² = {:.2f}, "
                               "slope {}): {}.",
                               format_seconds(fit->slope), fit->n, fit->r_squared,
                               *p < 0.001 ? std::string("p < 0.001") : fmt::format("p = {:.2g}", *p), quality)};
}

// The concurrency a run was driven at (`concurrency`, else vLLM's `max_concurrency`), when a number.
inline std::optional<double> run_concurrency(const run_metadata& meta) {
    for (const char* key : {"concurrency", "max_concurrency"})
        if (const auto it = meta.params.find(key); it != meta.params.end() && it->is_number() && it->get<double>() > 0)
            return it->get<double>();
    return std::nullopt;
}

// A closed loop of c clients needs each to finish a few requests before the server sits at c in
// flight; a run that completed fewer than 2 × c requests spent its whole time in ramp-up and drain.
inline std::optional<finding> short_for_concurrency(const run_stats& r) {
    const auto c = run_concurrency(r.meta);
    // A run that completed nothing is a failed run, told as such (report_digest.hpp).
    if (r.meta.kind != run_kind::requests || r.ok == 0 || !c || static_cast<double>(r.ok) >= 2 * *c)
        return std::nullopt;
    return finding{"short_for_concurrency",
                   fmt::format("{} completed {} requests at concurrency {:g}, fewer than 2 × {:g} = {:g}: the run did "
                               "not reach steady state, so its latencies describe the ramp-up and drain, not a "
                               "sustained load of {:g}.",
                               r.meta.label, r.ok, *c, *c, 2 * *c, *c)};
}

inline std::vector<finding> derive_findings(const run_stats& r, const std::optional<linear_fit>& e2e_per_output_token) {
    std::vector<finding> out;
    for (auto f : {short_for_concurrency(r), context_overflows(r), waiting_dominates(r), server_ahead_of_client(r),
                   short_requests_in_tail(r), tail_to_median(r), per_token_cost(e2e_per_output_token), latency_consistency(r)})
        if (f) out.push_back(std::move(*f));
    return out;
}

} // namespace servestat::report
