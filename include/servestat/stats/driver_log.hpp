// What servestat's own load driver adds to a log: the connections it opened (TCP connect and TLS
// handshake timed apart from the requests) and the requests it cancelled on purpose.
#pragma once

#include <cstddef>     // std::size_t
#include <cstdint>     // std::int64_t
#include <optional>    // std::optional
#include <span>        // std::span
#include <string_view> // std::string_view
#include <vector>      // std::vector

#include "servestat/core/request_table.hpp" // request_table, is_present
#include "servestat/stats/quantile.hpp"     // percentiles_select

namespace servestat {

struct duration_spread {
    std::optional<double> p50, max;
};

struct driver_activity {
    std::size_t requests = 0;
    std::size_t ok = 0;
    std::size_t connections = 0; // requests that opened their connection (the others reused one)
    duration_spread connect, tls;
    std::size_t cancelled = 0;              // cancelled by the driver (--cancel-rate), not by a stop
    std::int64_t cancelled_tokens = 0;      // output tokens those had received
    std::size_t cancelled_with_output = 0;  // of them, how many had received any
};

// The error text the driver gives a request it cancels (load/client.hpp).
inline constexpr std::string_view driver_cancel_prefix = "cancelled by the driver";

namespace detail {

inline duration_spread spread_of(std::span<const double> column) {
    std::vector<double> values;
    for (double v : column)
        if (is_present(v)) values.push_back(v);
    if (values.empty()) return {};
    constexpr double ps[] = {50, 100};
    const auto v = percentiles_select(values, ps);
    return {v[0], v[1]};
}

} // namespace detail

// Nothing when the log says nothing of connections or driver cancellations (another tool's log).
inline std::optional<driver_activity> driver_activity_of(const request_table& t) {
    driver_activity out;
    out.requests = t.size();
    for (double c : t.connect_time()) out.connections += is_present(c);
    out.connect = detail::spread_of(t.connect_time());
    out.tls = detail::spread_of(t.tls_time());
    const auto status = t.status();
    const auto output = t.output_tokens();
    for (std::size_t i = 0; i < t.size(); ++i) {
        out.ok += status[i] == request_status::ok;
        if (status[i] != request_status::cancelled || !t.error(i).starts_with(driver_cancel_prefix)) continue;
        ++out.cancelled;
        if (is_present(output[i]) && output[i] > 0) {
            out.cancelled_tokens += output[i];
            ++out.cancelled_with_output;
        }
    }
    if (t.connect_time().empty() && out.cancelled == 0) return std::nullopt;
    return out;
}

} // namespace servestat
