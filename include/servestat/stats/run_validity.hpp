// Whether a run's numbers describe the load it was asked to hold: a run that ended well before its
// configured duration or request count, a run of only a few requests or seconds, and a run whose
// error rate is above 1%, and a cold start (stats/cold_start.hpp). Each is read from the run's own
// statistics, or from its tool's reported values for a run known only by them. The checks that
// need a sweep (a straggler setting a level's duration, levels run out of order) are in sweep/sweep_analysis.hpp; whether servestat's own driver
// kept up (its run.end.client) in client_limits.hpp. docs/sweeps.md#run-validity.
#pragma once

#include <cstddef>     // std::size_t
#include <initializer_list> // std::initializer_list
#include <optional>    // std::optional
#include <string>      // std::string
#include <string_view> // std::string_view
#include <utility>     // std::pair

#include "servestat/core/run.hpp"          // run_metadata, find_reported, run_kind
#include "servestat/stats/client_limits.hpp" // check_client, client_limit, client_limits
#include "servestat/stats/error_kinds.hpp" // error_kind
#include "servestat/stats/run_stats.hpp"   // run_stats

namespace servestat {

// A run in which nothing completed (a dead server, a model it does not serve): every request
// failed, or its tool reports no completed request, or for a run known only by its aggregates,
// zero throughput. Its zeros are no measurement: it is a failed run.
inline bool run_failed_entirely(const run_stats& r) {
    if (r.meta.kind == run_kind::arrivals) return false;
    if (r.meta.kind == run_kind::requests && r.requests > 0) return r.ok == 0;
    if (const auto* ok = find_reported(r.meta, "ok")) return ok->value == 0;
    const auto* rps = find_reported(r.meta, "rps");
    const auto* tps = find_reported(r.meta, "output_tps");
    return (rps || tps) && (!rps || rps->value == 0) && (!tps || tps->value == 0);
}

struct validity_options {
    double early_duration_share = 0.8; // measured span below this share of the configured duration
    double early_count_share = 0.9;    // requests below this share of the configured count
    double tiny_requests = 100; // a run of at most this many requests is tiny
    double tiny_seconds = 10;   // and so is one that lasted less than this
    double error_share = 0.01;         // an error rate above this is told
    client_limits client;              // servestat's driver's own lag, loop delay and CPU (run.end.client)
};

// What a run was configured to do and did not: `param` names the setting ("benchmark_duration",
// "num_prompts"), `configured` its value, `measured` what the run did (seconds, or requests).
struct early_end {
    std::string param;
    double configured = 0, measured = 0;
};

// A run of only a few requests or seconds: its request count and span, where known. Its tails rest
// on a handful of requests, and a few seconds are mostly ramp-up and drain.
struct tiny_run {
    std::optional<double> requests, seconds;
};

// Failed requests (deliberate cancellations are not failures) against all the run's requests.
struct error_rate {
    double failed = 0, requests = 0;
    double context_overflows = 0;
    double share() const { return requests > 0 ? failed / requests : 0; }
};

// servestat's driver stopped sending before the run's end, on its own (the server looked gone or
// failing) or on a signal: the header's run.end reason and its sentence.
struct driver_stop {
    std::string reason; // run.end.reason: server_gone, error_rate, interrupted, ...
    std::string detail; // run.end.detail, may be empty
};

struct run_validity {
    // Nothing completed: the run is no measurement (no rates, no latencies), and the findings below
    // that judge a measurement (its length, its error share) are not made.
    bool nothing_completed = false;
    std::optional<early_end> ended_early_time, ended_early_count;
    std::optional<driver_stop> stopped_by_driver;
    std::optional<tiny_run> tiny;
    std::optional<error_rate> errors;
    std::optional<client_limit> client; // the load driver may have limited the run (client_limits.hpp)
    std::optional<cold_start> cold;     // its first requests set its tail (cold_start.hpp)
    bool ended_early() const { return ended_early_time || ended_early_count || stopped_by_driver; }
};

namespace detail {

inline std::optional<double> reported_number(const run_metadata& meta, std::string_view name) {
    if (const auto* v = find_reported(meta, name)) return v->value;
    return std::nullopt;
}

// The first of `names` that the run's parameters hold as a number above 0.
inline std::optional<std::pair<std::string, double>> configured_param(const run_metadata& meta,
                                                                      std::initializer_list<const char*> names) {
    for (const char* name : names)
        if (const auto it = meta.params.find(name); it != meta.params.end() && it->is_number() && it->get<double>() > 0)
            return std::pair{std::string(name), it->get<double>()};
    return std::nullopt;
}

inline bool measured_requests(const run_stats& r) { return r.meta.kind == run_kind::requests && r.requests > 0; }

} // namespace detail

// The run's requests (sent, successful or not) as measured, else as its tool reported them.
inline std::optional<double> run_request_count(const run_stats& r) {
    if (detail::measured_requests(r)) return static_cast<double>(r.requests);
    if (const auto n = detail::reported_number(r.meta, "requests")) return n;
    const auto ok = detail::reported_number(r.meta, "ok"), failed = detail::reported_number(r.meta, "failed");
    if (ok) return *ok + failed.value_or(0);
    return std::nullopt;
}

// The run's span (first send to last end), or the duration its tool reported.
inline std::optional<double> run_span(const run_stats& r) {
    if (r.duration) return r.duration;
    return detail::reported_number(r.meta, "duration");
}

// The failed requests, cancellations by the load driver left out (they are the test's, not the
// server's), with the context overflows among them.
inline std::optional<error_rate> run_errors(const run_stats& r) {
    const auto requests = run_request_count(r);
    if (!requests || *requests <= 0) return std::nullopt;
    if (detail::measured_requests(r)) {
        error_rate e{0, *requests, 0};
        for (const auto& c : r.errors) {
            if (c.kind == error_kind::cancelled) continue;
            e.failed += static_cast<double>(c.count);
            if (c.kind == error_kind::context_overflow) e.context_overflows += static_cast<double>(c.count);
        }
        return e;
    }
    auto failed = detail::reported_number(r.meta, "failed");
    if (!failed)
        if (const auto ok = detail::reported_number(r.meta, "ok"); ok && detail::reported_number(r.meta, "requests"))
            failed = *requests - *ok;
    if (!failed) return std::nullopt;
    return error_rate{*failed, *requests, 0};
}

// A closed loop of c clients that completed fewer than 2 × c requests never held its load: its
// numbers are ramp-up and drain (report/findings.hpp tells it as short_for_concurrency). The
// successful requests as measured, else as reported; false when either is unknown.
inline bool below_steady_state(const run_stats& r) {
    const auto c = detail::configured_param(r.meta, {"concurrency", "max_concurrency"});
    std::optional<double> ok;
    if (detail::measured_requests(r)) ok = static_cast<double>(r.ok);
    else ok = detail::reported_number(r.meta, "ok");
    return c && ok && *ok < 2 * c->second;
}

// How servestat's driver says the run ended (run.end.reason), or empty for other sources.
inline std::string driver_end_reason(const run_metadata& meta) {
    if (!meta.run_end.is_object()) return {};
    const auto it = meta.run_end.find("reason");
    return it != meta.run_end.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// The per-run checks of issue 37 (docs/sweeps.md#run-validity). A workload trace (nothing
// measured) and a run without requests are never flagged.
inline run_validity check_run_validity(const run_stats& r, const validity_options& o = {}) {
    run_validity out;
    if (r.meta.kind == run_kind::arrivals || (r.meta.kind == run_kind::requests && r.requests == 0)) return out;
    const auto requests = run_request_count(r);
    const auto span = run_span(r);
    // servestat's driver says how its run ended: stopping at the requested precision is the run's
    // purpose, not an early end; a stop on a failing server or a signal is told with its reason.
    const std::string ended = driver_end_reason(r.meta);
    if (!ended.empty() && ended != "completed" && ended != "precise") {
        const auto detail = r.meta.run_end.find("detail");
        out.stopped_by_driver = driver_stop{ended, detail != r.meta.run_end.end() && detail->is_string()
                                                       ? detail->get<std::string>() : std::string()};
    }
    out.client = check_client(r.meta.run_end, o.client);
    if (run_failed_entirely(r)) {
        out.nothing_completed = true;
        return out;
    }
    // Its length was meant (precise), or is told with its reason.
    const bool length_told = ended == "precise" || out.stopped_by_driver;
    // Time first: a run cut short by time usually has fewer requests than asked too.
    if (const auto d = detail::configured_param(r.meta, {"benchmark_duration", "max_seconds", "duration"});
        !length_told && d && span && *span < o.early_duration_share * d->second)
        out.ended_early_time = early_end{d->first, d->second, *span};
    if (const auto n = detail::configured_param(r.meta, {"num_prompts", "request_count", "max_requests"});
        !length_told && n && requests && *requests < o.early_count_share * n->second)
        out.ended_early_count = early_end{n->first, n->second, *requests};
    if ((requests && *requests <= o.tiny_requests) || (span && *span < o.tiny_seconds)) out.tiny = tiny_run{requests, span};
    if (const auto e = run_errors(r); e && e->share() > o.error_share) out.errors = e;
    out.cold = r.cold;
    return out;
}

} // namespace servestat
