// Whether servestat's load driver may have limited its own run: what it measured about itself
// (load/self_measure.hpp: the log header's run.end.client) against limits. A client that starts
// requests late offers less load than it was asked to; a client whose event loop runs late or whose
// thread is near a full core stamps arrivals late, so the latencies hold some of its own delay.
// Told as a run-validity sentence (docs/sweeps.md#run-validity); a run without run.end.client
// (another tool's, or a log written before the driver measured itself) says nothing.
#pragma once

#include <optional>    // std::optional
#include <string>      // std::string
#include <string_view> // std::string_view
#include <vector>      // std::vector

#include <fmt/format.h>      // fmt::format
#include <nlohmann/json.hpp> // nlohmann::json

namespace servestat {

// 10 ms of lag at p99 is the line, and Node's default event-loop probe resolution; a client
// over 90% of one core has no headroom left for bursts.
struct client_limits {
    double lag_p99 = 0.010;        // schedule_lag or turnaround p99 above this, in seconds
    double loop_delay_p99 = 0.010; // loop_delay p99 above this, in seconds
    double cpu_share = 0.9;        // cpu_share at or above this
};

// A delay that crossed its limit: its p99 and largest value, in seconds.
struct client_delay {
    double p99 = 0;
    std::optional<double> max;
};

struct client_limit {
    std::optional<client_delay> schedule_lag, turnaround, loop_delay;
    std::optional<double> cpu_share;
};

namespace detail {

inline std::optional<double> client_number(const nlohmann::json& j, const char* key) {
    if (!j.is_object()) return std::nullopt;
    const auto it = j.find(key);
    if (it == j.end() || !it->is_number()) return std::nullopt;
    return it->get<double>();
}

// run.end.client.<key> when its p99 is above `limit`; a summary without a numeric p99 is not judged.
inline std::optional<client_delay> delay_over(const nlohmann::json& client, const char* key, double limit) {
    const auto it = client.find(key);
    if (it == client.end()) return std::nullopt;
    const auto p99 = client_number(*it, "p99");
    if (!p99 || !(*p99 > limit)) return std::nullopt;
    return client_delay{*p99, client_number(*it, "max")};
}

// "23.4 ms", "140 ms", "1.25 s".
inline std::string delay_text(double seconds) {
    if (seconds >= 1) return fmt::format("{:.2f} s", seconds);
    if (seconds >= 0.1) return fmt::format("{:.0f} ms", seconds * 1e3);
    return fmt::format("{:.1f} ms", seconds * 1e3);
}

inline std::string delay_detail(const client_delay& d, std::string_view after_p99) {
    std::string out = "p99 " + delay_text(d.p99) + std::string(after_p99);
    if (d.max) out += ", max " + delay_text(*d.max);
    return out;
}

} // namespace detail

// What run.end (run_metadata::run_end) says of the client against `limits`; nothing when no limit is
// crossed or the run has no run.end.client.
inline std::optional<client_limit> check_client(const nlohmann::json& run_end, const client_limits& limits = {}) {
    if (!run_end.is_object()) return std::nullopt;
    const auto it = run_end.find("client");
    if (it == run_end.end() || !it->is_object()) return std::nullopt;
    const nlohmann::json& c = *it;
    client_limit out;
    out.schedule_lag = detail::delay_over(c, "schedule_lag", limits.lag_p99);
    out.turnaround = detail::delay_over(c, "turnaround", limits.lag_p99);
    out.loop_delay = detail::delay_over(c, "loop_delay", limits.loop_delay_p99);
    if (const auto share = detail::client_number(c, "cpu_share"); share && *share >= limits.cpu_share) out.cpu_share = share;
    if (!out.schedule_lag && !out.turnaround && !out.loop_delay && !out.cpu_share) return std::nullopt;
    return out;
}

// "its send schedule slipped (p99 23.4 ms late, max 140 ms) and it used 97% of one core".
inline std::string client_limit_reasons(const client_limit& c) {
    std::vector<std::string> parts;
    if (c.schedule_lag) parts.push_back("its send schedule slipped (" + detail::delay_detail(*c.schedule_lag, " late") + ")");
    if (c.turnaround)
        parts.push_back("it was slow to send again after a response (" +
                        detail::delay_detail(*c.turnaround, " from a response's end to the next request") + ")");
    if (c.loop_delay) parts.push_back("its event loop ran late (" + detail::delay_detail(*c.loop_delay, "") + ")");
    if (c.cpu_share) parts.push_back(fmt::format("it used {:.0f}% of one core", *c.cpu_share * 100));
    std::string out;
    for (std::size_t i = 0; i < parts.size(); ++i)
        out.append(i == 0 ? "" : i + 1 == parts.size() ? " and " : ", ").append(parts[i]);
    return out;
}

// What it means: late starts offer less load than asked; a late loop or a busy thread stamps arrivals
// late, so the latencies may hold the client's own delay.
inline std::string client_limit_consequence(const client_limit& c) {
    const bool late_sends = c.schedule_lag || c.turnaround;
    const bool late_stamps = c.loop_delay || c.cpu_share;
    if (late_sends && late_stamps) return "it sent requests later than planned and its latencies may include its own delay";
    if (late_sends) return "it sent requests later than planned, so the server saw less load than configured";
    return "its latencies may include its own delay";
}

// "The client may have limited this run: its send schedule slipped (p99 23.4 ms late, max 140 ms) and it
// used 97% of one core; it sent requests later than planned and its latencies may include its own delay."
inline std::string client_limit_sentence(const client_limit& c, std::string_view who = "this run") {
    return fmt::format("The client may have limited {}: {}; {}.", who, client_limit_reasons(c), client_limit_consequence(c));
}

} // namespace servestat
