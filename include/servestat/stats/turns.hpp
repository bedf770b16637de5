// Multi-turn sessions turn by turn: how latency and prompt size grow with the conversation, and
// how much of the prompts the server's prefix cache served against how much it could have.
#pragma once

#include <cstddef>  // std::size_t
#include <cstdint>  // std::int32_t, std::int64_t
#include <map>      // std::map
#include <optional> // std::optional
#include <vector>   // std::vector

#include "servestat/core/request_table.hpp" // request_table, absent_count
#include "servestat/stats/quantile.hpp"     // percentiles_select

namespace servestat {

// One turn index across every session (turn 1 = each session's first request). Latencies and
// token sums are over the turn's successful requests.
struct turn_stats {
    std::int32_t turn = 0;
    std::size_t requests = 0;
    std::size_t ok = 0;
    std::optional<double> prompt_tokens_p50;
    std::optional<double> ttft_p50, ttft_p90;
    std::optional<double> e2e_p50, e2e_p90;
    std::int64_t prompt_tokens = 0;    // Σ over ok requests that report their prompt size
    std::int64_t cached_tokens = 0;    // Σ the server's cached prompt tokens, where it reported them
    std::int64_t cacheable_tokens = 0; // Σ the workload's bound on them
    bool cache_reported = false;       // some request of the turn carried cached_tokens
};

struct session_turns {
    std::vector<turn_stats> turns; // by turn, ascending
    std::int64_t prompt_tokens = 0, cached_tokens = 0, cacheable_tokens = 0;
    bool cache_reported = false;

    // Shares of the prompt tokens: what the server served from its cache, and the most it could have.
    std::optional<double> cache_hit_rate() const { return share(cached_tokens, cache_reported); }
    std::optional<double> cache_bound() const { return share(cacheable_tokens, true); }

private:
    std::optional<double> share(std::int64_t part, bool known) const {
        if (!known || prompt_tokens <= 0) return std::nullopt;
        return static_cast<double>(part) / static_cast<double>(prompt_tokens);
    }
};

namespace detail {

inline void add_percentiles(std::vector<double>& values, std::optional<double>& p50, std::optional<double>* p90) {
    if (values.empty()) return;
    constexpr double ps[] = {50, 90};
    const auto v = percentiles_select(values, ps);
    p50 = v[0];
    if (p90) *p90 = v[1];
}

} // namespace detail

// Nothing when the run has no turns (not a session workload).
inline std::optional<session_turns> turns_of(const request_table& t) {
    const auto turn = t.turn();
    if (turn.empty()) return std::nullopt;
    const auto status = t.status();
    const auto sent = t.t_sent(), first = t.t_first(), end = t.t_end();
    const auto prompt = t.prompt_tokens();
    const auto cached = t.cached_tokens(), cacheable = t.cacheable_tokens();
    struct samples {
        std::vector<double> prompt, ttft, e2e;
    };
    std::map<std::int32_t, std::pair<turn_stats, samples>> by_turn;
    for (std::size_t i = 0; i < t.size(); ++i) {
        if (turn[i] == absent_count) continue;
        auto& [row, s] = by_turn[turn[i]];
        row.turn = turn[i];
        ++row.requests;
        if (status[i] != request_status::ok) continue;
        ++row.ok;
        if (is_present(end[i])) s.e2e.push_back(end[i] - sent[i]);
        if (is_present(first[i])) s.ttft.push_back(first[i] - sent[i]);
        if (!is_present(prompt[i])) continue;
        s.prompt.push_back(prompt[i]);
        row.prompt_tokens += prompt[i];
        if (!cached.empty() && cached[i] != absent_count) {
            row.cached_tokens += cached[i];
            row.cache_reported = true;
        }
        if (!cacheable.empty() && cacheable[i] != absent_count) row.cacheable_tokens += cacheable[i];
    }
    session_turns out;
    for (auto& [k, entry] : by_turn) {
        auto& [row, s] = entry;
        detail::add_percentiles(s.prompt, row.prompt_tokens_p50, nullptr);
        detail::add_percentiles(s.ttft, row.ttft_p50, &row.ttft_p90);
        detail::add_percentiles(s.e2e, row.e2e_p50, &row.e2e_p90);
        out.prompt_tokens += row.prompt_tokens;
        out.cached_tokens += row.cached_tokens;
        out.cacheable_tokens += row.cacheable_tokens;
        out.cache_reported = out.cache_reported || row.cache_reported;
        out.turns.push_back(row);
    }
    return out;
}

} // namespace servestat
