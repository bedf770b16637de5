// Where a request's time goes by the server's own clock (docs/metrics.md#the-time-split): from the
// moment the client meant to send it to its last token, each ok request's time is cut into the
// client's own wait, the network and the server's front end, the server's queue, prefill and
// decode. The parts add up to the client's latency: the network share is what the client waited
// for its first token beyond what the server says it spent. Means are reported, not percentiles:
// means add up, so the parts of a stacked bar make its total.
#pragma once

#include <algorithm> // std::max
#include <array>     // std::array
#include <cstddef>   // std::size_t
#include <optional>  // std::optional
#include <utility>   // std::pair
#include <span>      // std::span
#include <string>    // std::string
#include <vector>    // std::vector

#include "servestat/core/request_table.hpp"    // request_table, is_present
#include "servestat/stats/breakdown.hpp"       // detail::has_any
#include "servestat/stats/compensated_sum.hpp" // compensated_sum
#include "servestat/stats/subsets.hpp"         // subset

namespace servestat {

// The parts in the order they happen.
enum class split_part { client_wait, network, server_queue, prefill, decode };
inline constexpr std::array<split_part, 5> split_parts{split_part::client_wait, split_part::network, split_part::server_queue,
                                                       split_part::prefill, split_part::decode};

inline constexpr const char* to_string(split_part p) {
    switch (p) {
    case split_part::client_wait: return "client_wait";
    case split_part::network: return "network";
    case split_part::server_queue: return "server_queue";
    case split_part::prefill: return "prefill";
    case split_part::decode: return "decode";
    }
    return "";
}

struct subset_time_split {
    std::string subset;
    std::size_t n = 0;            // ok requests with the server's times and the client's first and last token
    std::array<double, 5> mean{}; // seconds, by split_part
    // Requests whose server says it took longer to the first token than the client waited for it
    // (clocks that disagree, or a proxy that answers first): their network share counts as 0.
    std::size_t server_ahead = 0;
    double most_ahead = 0; // the largest such excess, s

    double total() const noexcept {
        double sum = 0;
        for (double m : mean) sum += m;
        return sum;
    }
    double share(split_part p) const noexcept {
        const double t = total();
        return t > 0 ? mean[static_cast<std::size_t>(p)] / t : 0.0;
    }
};

struct time_split {
    bool client_wait = false; // the log has t_sched: the client's own wait is a part
    // The server gave its time to the first token as one number (server_ttft: Dynamo, SambaNova), not
    // as queue and prefill: the `prefill` part holds all of it and `server_queue` is 0.
    bool first_token_whole = false;
    std::vector<subset_time_split> subsets; // as the run's subsets, those without requests left out
};

namespace detail {

inline bool has_server_split(const request_table& t) {
    const auto queue = t.server_queue(), prefill = t.server_prefill();
    for (std::size_t i = 0; i < queue.size() && i < prefill.size(); ++i)
        if (is_present(queue[i]) && is_present(prefill[i])) return true;
    return false;
}

// The server's queue and prefill of request i, or (first_token_whole) 0 and its time to the first
// token as one number; nothing when the server did not report them.
inline std::optional<std::pair<double, double>> server_first_token(const request_table& t, std::size_t i, bool whole) {
    if (whole) {
        const double ttft = t.server_ttft()[i];
        return is_present(ttft) ? std::optional(std::pair(0.0, ttft)) : std::nullopt;
    }
    const double queue = t.server_queue()[i], prefill = t.server_prefill()[i];
    return is_present(queue) && is_present(prefill) ? std::optional(std::pair(queue, prefill)) : std::nullopt;
}

inline subset_time_split split_of(const request_table& t, const subset& s, bool scheduled, bool whole) {
    subset_time_split out;
    out.subset = s.name;
    std::array<compensated_sum, 5> sums;
    s.rows.visit([&](const auto& listed) {
        for (auto i : listed) {
            if (t.status()[i] != request_status::ok) continue;
            const auto server = server_first_token(t, i, whole);
            const double sent = t.t_sent()[i], first = t.t_first()[i], end = t.t_end()[i];
            if (!server || !is_present(first) || !is_present(end)) continue;
            const auto [queue, prefill] = *server;
            const double wait = scheduled && is_present(t.t_sched()[i]) ? sent - t.t_sched()[i] : 0.0;
            const double network = (first - sent) - (queue + prefill);
            if (network < 0) {
                ++out.server_ahead;
                out.most_ahead = std::max(out.most_ahead, -network);
            }
            const std::array<double, 5> parts{wait, std::max(0.0, network), queue, prefill, end - first};
            for (std::size_t k = 0; k < parts.size(); ++k) sums[k].add(parts[k]);
            ++out.n;
        }
    });
    if (out.n > 0)
        for (std::size_t k = 0; k < sums.size(); ++k) out.mean[k] = sums[k].value() / static_cast<double>(out.n);
    return out;
}

} // namespace detail

// Empty (no subsets) when no request carries the server's queue and prefill times, or its time to
// the first token as one number (used only where no request has the two apart).
inline time_split split_time(const request_table& t, std::span<const subset> subsets) {
    time_split out;
    if (!detail::has_server_split(t)) {
        if (!detail::has_any(t.server_ttft())) return out;
        out.first_token_whole = true;
    }
    out.client_wait = detail::has_any(t.t_sched());
    for (const auto& s : subsets)
        if (auto part = detail::split_of(t, s, out.client_wait, out.first_token_whole); part.n > 0)
            out.subsets.push_back(std::move(part));
    return out;
}

} // namespace servestat
