// The report's rows and sentences for what servestat's own driver logs: connections, cancelled
// requests, and multi-turn sessions turn by turn with the prefix cache's share.
#pragma once

#include <cstddef>  // std::size_t
#include <optional> // std::optional
#include <string>   // std::string

#include <fmt/format.h> // fmt::format

#include "servestat/report/few_samples.hpp" // detail::thousands
#include "servestat/report/format.hpp"      // format_seconds, format_share, missing_value
#include "servestat/report/stats_json.hpp"  // json
#include "servestat/stats/driver_log.hpp"   // driver_activity
#include "servestat/stats/turns.hpp"        // session_turns

namespace servestat::report {

namespace detail {

inline std::string spread_text(const char* what, const duration_spread& d) {
    return fmt::format("{} p50 {}, max {}", what, format_seconds(d.p50), format_seconds(d.max));
}

inline std::string plural(std::size_t n, const char* one, const char* many) {
    return fmt::format("{} {}", thousands(n), n == 1 ? one : many);
}

} // namespace detail

// How many connections the run opened and what opening them cost (kept out of TTFT); empty when
// the log does not say.
inline std::string connections_text(const driver_activity& d) {
    if (d.connections == 0) return {};
    std::string out = fmt::format("{} opened for {}", detail::plural(d.connections, "connection", "connections"),
                                  detail::plural(d.requests, "request", "requests"));
    if (d.requests > d.connections)
        out += fmt::format(" (keep-alive carried the other {})", detail::thousands(d.requests - d.connections));
    out += "; " + detail::spread_text("TCP connect", d.connect);
    if (d.tls.p50) out += "; " + detail::spread_text("TLS handshake", d.tls);
    out += ". Opening a connection is timed apart: it is in neither TTFT nor e2e.";
    if (d.cancelled > 0) out += " A request the driver cancels closes its connection, so the next one opens another.";
    return out;
}

// The requests the driver cancelled on purpose; empty when there were none.
inline std::string cancelled_text(const driver_activity& d) {
    if (d.cancelled == 0) return {};
    std::string out = fmt::format("the driver aborted {} mid-stream (--cancel-rate); they are counted under Errors as "
                                  "cancelled and kept out of every latency",
                                  detail::plural(d.cancelled, "request", "requests"));
    return out + (d.cancelled_with_output > 0
                      ? fmt::format(". {} of them had received {} output tokens.", detail::thousands(d.cancelled_with_output),
                                    detail::thousands(static_cast<std::size_t>(d.cancelled_tokens)))
                      : ", before any output arrived.");
}

inline std::string cache_share_text(std::int64_t part, std::int64_t whole) {
    return whole > 0 ? format_share(static_cast<double>(part) / static_cast<double>(whole)) : std::string(missing_value);
}

inline json turn_rows(const session_turns& s) {
    json rows = json::array();
    for (const auto& t : s.turns)
        rows.push_back({{"turn", std::to_string(t.turn)},
                        {"requests", detail::thousands(t.requests)},
                        {"ok", detail::thousands(t.ok)},
                        {"prompt_p50", t.prompt_tokens_p50 ? fmt::format("{:.0f}", *t.prompt_tokens_p50) : missing_value},
                        {"ttft_p50", format_seconds(t.ttft_p50)},
                        {"ttft_p90", format_seconds(t.ttft_p90)},
                        {"e2e_p50", format_seconds(t.e2e_p50)},
                        {"e2e_p90", format_seconds(t.e2e_p90)},
                        {"cached", t.cache_reported ? cache_share_text(t.cached_tokens, t.prompt_tokens) : missing_value},
                        {"bound", cache_share_text(t.cacheable_tokens, t.prompt_tokens)}});
    return rows;
}

// The sessions in a sentence or two: the cache's share against its bound, and how the first
// token's wait moved from the first turn to the last.
inline std::string turns_text(const session_turns& s) {
    std::string out;
    const auto bound = s.cache_bound();
    const std::string bound_text =
        bound ? fmt::format("the workload allowed at most {} (the shared system prompt, and each turn's earlier "
                            "conversation)",
                            format_share(*bound))
              : std::string("the workload's bound is unknown");
    if (const auto hit = s.cache_hit_rate())
        out = fmt::format("the server served {} of the {} prompt tokens of successful turns from its cache; {}.",
                          format_share(*hit), detail::thousands(static_cast<std::size_t>(s.prompt_tokens)), bound_text);
    else
        out = fmt::format("the server did not report cached prompt tokens (vLLM does with "
                          "--enable-prompt-tokens-details); {}.",
                          bound_text);
    if (s.turns.size() >= 2) {
        const auto& first = s.turns.front();
        const auto& last = s.turns.back();
        if (first.ttft_p50 && last.ttft_p50 && first.prompt_tokens_p50 && last.prompt_tokens_p50)
            out += fmt::format(" TTFT p50 is {} at turn {} and {} at turn {}, while the prompt p50 grew from {:.0f} to "
                               "{:.0f} tokens.",
                               format_seconds(first.ttft_p50), first.turn, format_seconds(last.ttft_p50), last.turn,
                               *first.prompt_tokens_p50, *last.prompt_tokens_p50);
    }
    return out;
}

// The sessions in one line for the report's summary.
inline std::string turns_summary_text(const session_turns& s) {
    std::string out = "multi-turn sessions: ";
    const auto hit = s.cache_hit_rate();
    const auto bound = s.cache_bound();
    out += hit ? fmt::format("the prefix cache served {} of the prompt tokens", format_share(*hit))
               : std::string("the server did not report cached prompt tokens");
    if (bound) out += fmt::format(" (at most {} could be: all but each turn's new text)", format_share(*bound));
    if (s.turns.size() >= 2 && s.turns.front().ttft_p50 && s.turns.back().ttft_p50)
        out += fmt::format("; TTFT p50 {} at turn {}, {} at turn {}", format_seconds(s.turns.front().ttft_p50),
                           s.turns.front().turn, format_seconds(s.turns.back().ttft_p50), s.turns.back().turn);
    return out + ".";
}

// The deliberate cancellations in one line for the summary: they lower the success rate by design.
inline std::string cancelled_summary_text(const driver_activity& d) {
    const std::size_t others = d.requests - d.cancelled;
    return fmt::format("the driver cancelled {} of {} on purpose (--cancel-rate), which lowers the success rate by "
                       "design; of the other {}, {} succeeded.",
                       detail::thousands(d.cancelled), detail::plural(d.requests, "request", "requests"),
                       detail::thousands(others), detail::thousands(d.ok));
}

} // namespace servestat::report
