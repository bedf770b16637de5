// Service-level objectives and goodput: the requests that succeeded AND met every SLO.
#pragma once

#include <charconv>    // std::from_chars
#include <cmath>       // std::isfinite
#include <cstddef>     // std::size_t
#include <string>      // std::string
#include <string_view> // std::string_view
#include <vector>      // std::vector

#include "servestat/core/errors.hpp"        // usage_error
#include "servestat/core/request_table.hpp" // request_table
#include "servestat/stats/metrics.hpp"      // metric, metric_value

namespace servestat {

struct slo {
    metric on;
    double max_seconds; // a request meets it when its value is <= max_seconds
};

// Parses "ttft=0.5,e2e=10" (seconds). itl has no single value per request, so it cannot be an SLO.
inline std::vector<slo> parse_slos(std::string_view spec) {
    std::vector<slo> out;
    while (!spec.empty()) {
        const auto comma = spec.find(',');
        const auto item = spec.substr(0, comma);
        spec = comma == std::string_view::npos ? std::string_view{} : spec.substr(comma + 1);
        const auto eq = item.find('=');
        if (eq == std::string_view::npos)
            throw usage_error("SLO '" + std::string(item) + "': expected metric=seconds, e.g. ttft=0.5");
        const metric m = parse_metric(item.substr(0, eq));
        if (m == metric::itl) throw usage_error("itl cannot be an SLO: it has one value per chunk gap");
        const auto number = item.substr(eq + 1);
        double seconds = 0;
        const auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), seconds);
        if (ec != std::errc{} || end != number.data() + number.size() || !std::isfinite(seconds) || seconds <= 0)
            throw usage_error("SLO '" + std::string(item) + "': '" + std::string(number) +
                              "' is not a positive number of seconds");
        for (const auto& s : out)
            if (s.on == m) throw usage_error("SLO for " + std::string(to_string(m)) + " given twice");
        out.push_back({m, seconds});
    }
    return out;
}

// A request whose log lacks an SLO's metric (no t_first for a ttft SLO) cannot be shown to meet it
// and is not counted as good.
inline bool meets_slos(const request_table& t, std::size_t i, const std::vector<slo>& slos) {
    if (t.status()[i] != request_status::ok) return false;
    for (const auto& s : slos) {
        const auto v = metric_value(t, s.on, i);
        if (!v || *v > s.max_seconds) return false;
    }
    return true;
}

struct goodput {
    std::size_t good = 0;
    std::size_t unmeasurable = 0; // ok requests lacking an SLO metric
};

inline goodput count_good(const request_table& t, const std::vector<slo>& slos) {
    goodput g;
    for (std::size_t i = 0; i < t.size(); ++i) {
        if (t.status()[i] != request_status::ok) continue;
        bool measurable = true;
        for (const auto& s : slos) measurable = measurable && metric_value(t, s.on, i).has_value();
        if (!measurable) ++g.unmeasurable;
        else if (meets_slos(t, i, slos)) ++g.good;
    }
    return g;
}

} // namespace servestat
