// One request as a plain struct: what readers fill in and what request_table::row() gives back.
#pragma once

#include <algorithm> // std::equal
#include <bit>      // std::bit_cast
#include <cmath>    // std::fabs
#include <cstdint>  // std::int32_t, std::uint64_t
#include <optional> // std::optional
#include <string>   // std::string
#include <string_view> // std::string_view
#include <utility>  // std::pair
#include <vector>   // std::vector

#include <fmt/format.h> // fmt::format

#include "servestat/core/request_status.hpp" // request_status

namespace servestat {

// Times are seconds on the run's clock (0 = run start). Absent values are empty optionals.
// Readers reuse one record per line (clear() keeps the buffers), so filling it does not allocate.
struct request_record {
    std::optional<double> t_sched; // when the load driver intended to send it
    std::optional<double> t_sent;
    std::optional<double> t_first; // first chunk carrying content
    std::optional<double> t_end;
    std::optional<std::int32_t> prompt_tokens;
    std::optional<std::int32_t> output_tokens;
    std::optional<std::int32_t> max_tokens;
    std::optional<std::int32_t> prompt_tokens_original; // before the driver trimmed the prompt
    std::optional<bool> trimmed;
    request_status status = request_status::ok;
    std::optional<std::int32_t> http_status;
    std::string error; // empty when there is none
    std::vector<double> itl; // chunk gaps, seconds
    std::optional<std::int64_t> itl_gaps; // the gaps the stream had, when itl keeps only the first (the driver's cap)
    std::optional<double> server_queue;
    std::optional<double> server_prefill;
    std::optional<double> server_decode;
    // The server's time to first token as one number (Dynamo's nvext.timing.ttft_ms, SambaNova's
    // usage.time_to_first_token), where it does not report the split into server_queue and
    // server_prefill; and its mean inter-token latency of the request (vLLM's metrics.mean_itl_ms).
    std::optional<double> server_ttft;
    std::optional<double> server_itl;
    // Speculative decoding as the server reported it; not times. The mean acceptance length is the
    // tokens a verification step yields, its bonus token included (≥ 1); the acceptance rate is the
    // share of proposed draft tokens accepted (0 to 1).
    std::optional<double> server_spec_acceptance;
    std::optional<double> server_draft_acceptance;
    // What servestat's own driver adds: how its connection was opened, and multi-turn sessions.
    std::optional<double> connect_time;           // TCP connect of the connection this request opened
    std::optional<double> tls_time;               // its TLS handshake
    std::optional<std::int32_t> cached_tokens;    // prompt tokens the server's prefix cache served
    std::optional<std::int32_t> turn;             // the request's turn in its session, 1 = first
    std::optional<std::int32_t> cacheable_tokens; // the most of the prompt a prefix cache could hold

    void clear() noexcept {
        t_sched.reset(); t_sent.reset(); t_first.reset(); t_end.reset();
        prompt_tokens.reset(); output_tokens.reset(); max_tokens.reset(); prompt_tokens_original.reset();
        trimmed.reset();
        status = request_status::ok;
        http_status.reset();
        error.clear();
        itl.clear();
        itl_gaps.reset();
        server_queue.reset(); server_prefill.reset(); server_decode.reset();
        server_ttft.reset(); server_itl.reset(); server_spec_acceptance.reset(); server_draft_acceptance.reset();
        connect_time.reset(); tls_time.reset(); cached_tokens.reset(); turn.reset(); cacheable_tokens.reset();
    }
};

// Bit-for-bit equality (-0.0 differs from 0.0): how tests and the fuzzer check that two ways of
// reading a line, or of reading a file, give the same record.
inline bool identical(const request_record& a, const request_record& b) {
    const auto same = [](double x, double y) { return std::bit_cast<std::uint64_t>(x) == std::bit_cast<std::uint64_t>(y); };
    const auto same_optional = [&](const std::optional<double>& x, const std::optional<double>& y) {
        return x.has_value() == y.has_value() && (!x || same(*x, *y));
    };
    return same_optional(a.t_sched, b.t_sched) && same_optional(a.t_sent, b.t_sent) &&
           same_optional(a.t_first, b.t_first) && same_optional(a.t_end, b.t_end) &&
           same_optional(a.server_queue, b.server_queue) && same_optional(a.server_prefill, b.server_prefill) &&
           same_optional(a.server_decode, b.server_decode) && same_optional(a.server_ttft, b.server_ttft) &&
           same_optional(a.server_itl, b.server_itl) &&
           same_optional(a.server_spec_acceptance, b.server_spec_acceptance) &&
           same_optional(a.server_draft_acceptance, b.server_draft_acceptance) &&
           same_optional(a.connect_time, b.connect_time) &&
           same_optional(a.tls_time, b.tls_time) && a.cached_tokens == b.cached_tokens && a.turn == b.turn &&
           a.cacheable_tokens == b.cacheable_tokens && a.prompt_tokens == b.prompt_tokens &&
           a.output_tokens == b.output_tokens && a.max_tokens == b.max_tokens &&
           a.prompt_tokens_original == b.prompt_tokens_original && a.trimmed == b.trimmed && a.status == b.status &&
           a.http_status == b.http_status && a.error == b.error && a.itl_gaps == b.itl_gaps &&
           std::equal(a.itl.begin(), a.itl.end(), b.itl.begin(), b.itl.end(), same);
}

// Every time and duration a reader stores lies within this many seconds of zero (about 31,700
// years). Two finite times can still be an infinite duration apart (t_sent -1.7e308, t_end 1.7e308),
// and sums of squares over 2^53 requests must stay finite, so the bound is on the times themselves:
// with it every difference, mean and variance the statistics take is a finite number.
inline constexpr double max_seconds = 1e12;

struct record_fault {
    std::string_view field;
    std::string message;
};

// The first time or duration of `r` that is not a finite number of seconds within ±max_seconds,
// if any. Readers call it where they know the line; request_table::push_back is the backstop.
inline std::optional<record_fault> time_fault(const request_record& r) {
    const auto out_of_range = [](double t) { return !(std::fabs(t) <= max_seconds); }; // NaN too
    // Every request is checked (twice, by a reader and by the table): the common case first, in
    // branch-free arithmetic, and the field named only when there is a fault.
    const auto in_range = [](const std::optional<double>& t) { return !t || std::fabs(*t) <= max_seconds; };
    bool usable = in_range(r.t_sched) & in_range(r.t_sent) & in_range(r.t_first) & in_range(r.t_end) &
                  in_range(r.server_queue) & in_range(r.server_prefill) & in_range(r.server_decode) &
                  in_range(r.server_ttft) & in_range(r.server_itl) & in_range(r.connect_time) & in_range(r.tls_time);
    for (double gap : r.itl) usable &= std::fabs(gap) <= max_seconds;
    if (usable) return std::nullopt;
    const auto fault = [](std::string_view field, double t) {
        return record_fault{field, fmt::format("{} s is not a time servestat can use (times must be finite and within "
                                               "±1e12 s of the run's start: is the unit right?)", t)};
    };
    for (const auto& [field, t] : {std::pair<std::string_view, const std::optional<double>&>{"t_sched", r.t_sched},
                                   {"t_sent", r.t_sent},
                                   {"t_first", r.t_first},
                                   {"t_end", r.t_end},
                                   {"server_queue", r.server_queue},
                                   {"server_prefill", r.server_prefill},
                                   {"server_decode", r.server_decode},
                                   {"server_ttft", r.server_ttft},
                                   {"server_itl", r.server_itl},
                                   {"connect_time", r.connect_time},
                                   {"tls_time", r.tls_time}})
        if (t && out_of_range(*t)) return fault(field, *t);
    for (double gap : r.itl)
        if (out_of_range(gap)) return fault("itl", gap);
    return std::nullopt;
}

// No drafter proposes anywhere near this many tokens a step; the bound keeps every sum of
// acceptance lengths over a run finite, as max_seconds does for times.
inline constexpr double max_acceptance_length = 1e6;

// The first speculative-decoding value of `r` outside its range, if any: an acceptance length
// below 1 (a verification step always yields its bonus token) or a rate outside 0 to 1 is no
// acceptance figure, and NaN would read back from a table column as absent. Called where
// time_fault is.
inline std::optional<record_fault> acceptance_fault(const request_record& r) {
    if (const auto& n = r.server_spec_acceptance; n && !(*n >= 1 && *n <= max_acceptance_length))
        return record_fault{"server_spec_acceptance",
                            fmt::format("{} is not a mean acceptance length (tokens per verification step, the bonus "
                                        "token included: from 1 to 1e6)", *n)};
    if (const auto& rate = r.server_draft_acceptance; rate && !(*rate >= 0 && *rate <= 1))
        return record_fault{"server_draft_acceptance",
                            fmt::format("{} is not an acceptance rate (the share of draft tokens accepted: from 0 to 1)",
                                        *rate)};
    return std::nullopt;
}

} // namespace servestat
