// `servestat load --until 'e2e.p99:5%'`: keep sending until a statistic is measured precisely
// enough, bounded by -n/--duration. Precision is the interval `servestat stats` reports for that
// statistic on the log so far (docs/metrics.md#intervals-of-each-percentile-and-mean-pnn_ci-mean_ci):
// the distribution-free order-statistic interval of a percentile, Student's t of a mean, at 95%, from
// the same code (stats/summary.hpp), over the same values (the metric of every logged `ok` request,
// each time as the log writes it, to the microsecond). The target is a relative half-width: both ends
// within ±target of the estimate. docs/load.md#run-until-precise.
#pragma once

#include <algorithm>    // std::max, std::min
#include <charconv>     // std::from_chars
#include <cmath>        // std::abs, std::ceil, std::isfinite
#include <cstddef>      // std::size_t
#include <cstdlib>      // std::strtod
#include <functional>   // std::function
#include <map>          // std::map
#include <optional>     // std::optional
#include <span>         // std::span
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <system_error> // std::errc
#include <vector>       // std::vector

#include <fmt/format.h>      // fmt::format
#include <nlohmann/json.hpp> // nlohmann::ordered_json

#include "servestat/core/errors.hpp"               // usage_error
#include "servestat/core/request_status.hpp"       // request_status
#include "servestat/load/log_writer.hpp"           // request_result
#include "servestat/load/run_observer.hpp"         // run_observer, stop_request
#include "servestat/stats/metrics.hpp"             // metric, all_metrics, to_string
#include "servestat/stats/percentile_interval.hpp" // percentile_interval
#include "servestat/stats/summary.hpp"             // summarize_in_place, summary_options, percentile_key

namespace servestat::load {

// The confidence of the intervals --until reads: `servestat stats`' default, so stats on the log
// reports the same interval.
inline constexpr double precision_confidence = 0.95;

// One --until target: METRIC.STATISTIC:HALF_WIDTH%.
struct precision_target {
    std::string spec;      // as given, e.g. "e2e.p99:5%"
    metric what = metric::e2e;
    bool mean = false;     // the mean; else the percentile below
    double percentile = 0; // 0 < p < 100
    double relative = 0;   // the largest relative half-width accepted: 0.05 for 5%

    // "p99", "p99.9", "mean": the statistic's key in `servestat stats --json` (median is "p50").
    std::string statistic() const { return mean ? "mean" : percentile_key(percentile); }
    // "e2e p99", for sentences.
    std::string name() const { return fmt::format("{} {}", to_string(what), statistic()); }
};

namespace detail {

inline std::string allowed_metrics() {
    std::string out;
    for (metric m : all_metrics) out += (out.empty() ? "" : ", ") + std::string(to_string(m));
    return out;
}

// A whole decimal number with nothing around it ("99", "99.9"); none otherwise.
inline std::optional<double> plain_number(std::string_view text) {
    if (text.empty() || text.front() == '+' || text.front() == '-') return std::nullopt;
    double value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, std::chars_format::fixed);
    if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) return std::nullopt;
    return value;
}

// A time as the log writes it (%.6f, log_writer.hpp) and the canonical reader reads it back, so that
// a metric here is bit for bit the value `servestat stats` computes from the log.
inline double as_logged(double seconds) {
    const auto text = fmt::format("{:.6f}", seconds);
    return std::strtod(text.c_str(), nullptr);
}

} // namespace detail

// Parses one --until spec; a usage error names the part that is wrong and what is allowed.
inline precision_target parse_precision_target(std::string_view spec) {
    const auto fail = [&](const std::string& why) {
        return usage_error(fmt::format("--until '{}': {}", spec, why));
    };
    const auto colon = spec.rfind(':');
    const auto dot = spec.find('.');
    if (colon == std::string_view::npos || dot == std::string_view::npos || dot > colon)
        throw fail("expected METRIC.STATISTIC:HALF_WIDTH%, e.g. e2e.p99:5% (the p99 of e2e within ±5%)");
    precision_target t;
    t.spec = std::string(spec);
    const auto metric_name = spec.substr(0, dot);
    const auto statistic = spec.substr(dot + 1, colon - dot - 1);
    const auto width = spec.substr(colon + 1);
    bool known = false;
    for (metric m : all_metrics)
        if (to_string(m) == metric_name) {
            t.what = m;
            known = true;
        }
    if (!known) throw fail(fmt::format("unknown metric '{}' (allowed: {})", metric_name, detail::allowed_metrics()));
    const auto bad_statistic = [&] {
        return fail(fmt::format("unknown statistic '{}' (allowed: pNN for a percentile strictly between 0 and 100, "
                                "such as p50, p90, p99, p99.9; median; mean)", statistic));
    };
    if (statistic == "mean") {
        t.mean = true;
    } else if (statistic == "median") {
        t.percentile = 50;
    } else if (statistic.size() > 1 && statistic.front() == 'p') {
        const auto p = detail::plain_number(statistic.substr(1));
        // p0 and p100 are the min and max, which no sample bounds: they have no interval.
        if (!p || !(*p > 0 && *p < 100)) throw bad_statistic();
        t.percentile = *p;
    } else {
        throw bad_statistic();
    }
    const auto bad_width = [&] {
        return fail(fmt::format("half-width '{}' is not a percentage above 0 and at most 100 (e.g. 5%)", width));
    };
    if (width.empty() || width.back() != '%') throw bad_width();
    const auto percent = detail::plain_number(width.substr(0, width.size() - 1));
    if (!percent || !(*percent > 0 && *percent <= 100)) throw bad_width();
    t.relative = *percent / 100;
    return t;
}

// Every --until spec; `bounded`: -n/--requests or --duration (or a trace) ends the run anyway.
inline std::vector<precision_target> parse_precision_targets(std::span<const std::string> specs, bool bounded) {
    std::vector<precision_target> out;
    for (const auto& s : specs) out.push_back(parse_precision_target(s));
    if (!out.empty() && !bounded)
        throw usage_error("--until needs -n/--requests or --duration as well: they bound the run when the target is "
                          "not reached (a server whose latencies never get that precise would be loaded forever)");
    return out;
}

// The fewest values for which the target's interval exists at all (a p99 needs 368, a median 6, a
// mean 2). Existence grows with n (both ends need the binomial tails beyond them to be small
// enough), so a bisection over percentile_interval itself finds it.
inline std::size_t values_for_interval(const precision_target& t, double confidence = precision_confidence) {
    if (t.mean) return 2;
    const auto exists = [&](std::size_t n) { return percentile_interval(n, t.percentile, confidence).has_value(); };
    std::size_t high = 2;
    while (!exists(high)) high *= 2;
    std::size_t low = high / 2; // does not exist (or is 1)
    while (high - low > 1) {
        const std::size_t middle = low + (high - low) / 2;
        (exists(middle) ? high : low) = middle;
    }
    return high;
}

// The statistic, its interval and its relative half-width over some values.
struct precision_estimate {
    std::size_t n = 0; // values
    std::optional<double> value, low, high;
    // max(high − value, value − low) / |value|: empty without an interval or when the value is 0.
    std::optional<double> half_width;

    bool met(const precision_target& t) const { return half_width && *half_width <= t.relative; }
};

// The target's statistic and interval over `values` as `servestat stats` computes them (linear
// percentile, ddof 1, 95%), in O(n): the values are reordered (a selection, not a sort).
inline precision_estimate estimate_precision(std::span<double> values, const precision_target& t,
                                            double confidence = precision_confidence) {
    summary_options o;
    o.percentiles.clear();
    if (!t.mean) o.percentiles.push_back(t.percentile);
    o.confidence = confidence;
    precision_estimate e;
    e.n = values.size();
    if (values.empty()) return e;
    const auto s = summarize_in_place(values, o);
    const auto& ci = t.mean ? s.mean_ci : s.percentiles.front().ci;
    e.value = t.mean ? s.mean : s.percentiles.front().value;
    if (ci) {
        e.low = ci->low;
        e.high = ci->high;
    }
    if (e.value && ci && *e.value != 0)
        e.half_width = std::max(ci->high - *e.value, *e.value - ci->low) / std::abs(*e.value);
    return e;
}

// The requests still to send for a half-width h to shrink to the target, the half-width falling as
// 1/√n: n·(h/target)² − n, rounded up; 0 when it is met.
inline std::size_t requests_left(std::size_t requests, double half_width, double target) {
    if (!(half_width > target)) return 0;
    const double ratio = half_width / target;
    const double n = static_cast<double>(requests);
    return static_cast<std::size_t>(std::ceil(n * ratio * ratio - n));
}

// "4.83" for 0.0483: three significant digits, so ±4.96% never reads as ±5.0%.
inline std::string percent_text(double fraction) { return fmt::format("{:.3g}", fraction * 100); }

// The value of metric m that a logged request adds (itl adds one per gap); NaN-free, only ok requests.
inline void append_logged_values(const request_result& r, metric m, std::vector<double>& out) {
    if (r.status != request_status::ok) return;
    using servestat::load::detail::as_logged;
    const auto present = [](const std::optional<double>& v) { return v && std::isfinite(*v); };
    switch (m) {
    case metric::e2e: out.push_back(as_logged(r.t_end) - as_logged(r.t_sent)); return;
    case metric::ttft:
        if (present(r.t_first)) out.push_back(as_logged(*r.t_first) - as_logged(r.t_sent));
        return;
    case metric::decode:
        if (present(r.t_first)) out.push_back(as_logged(r.t_end) - as_logged(*r.t_first));
        return;
    case metric::tpot:
        if (present(r.t_first) && r.output_tokens > 1)
            out.push_back((as_logged(r.t_end) - as_logged(*r.t_first)) / static_cast<double>(r.output_tokens - 1));
        return;
    case metric::itl:
        for (double gap : r.itl) out.push_back(as_logged(gap));
        return;
    case metric::client_queue: out.push_back(as_logged(r.t_sent) - as_logged(r.t_sched)); return;
    case metric::e2e_sched: out.push_back(as_logged(r.t_end) - as_logged(r.t_sched)); return;
    case metric::server_queue:
        if (present(r.server_queue)) out.push_back(as_logged(*r.server_queue));
        return;
    case metric::server_prefill:
        if (present(r.server_prefill)) out.push_back(as_logged(*r.server_prefill));
        return;
    case metric::server_decode:
        if (present(r.server_decode)) out.push_back(as_logged(*r.server_decode));
        return;
    case metric::server_ttft:
        if (present(r.server_ttft)) out.push_back(as_logged(*r.server_ttft));
        return;
    case metric::server_itl:
        if (present(r.server_itl)) out.push_back(as_logged(*r.server_itl));
        return;
    }
}

// Watches a run for its --until targets: stops sending once every target is met.
//
// Cadence: a target is checked after every request that adds a value while it has fewer than 1,000
// values, then whenever its values grew by 1% since its last check, so that a check (O(n): a
// selection and a sum) costs about 100 values' work per value added, and the run goes at most 1% past
// the point where the target was first met. The run stops when, at a check, every target is met (the
// targets not due are checked then as well, so no stale result stops a run).
//
// Survivors first: in a closed loop of 32 the first requests to complete are the short ones, and six
// alike values give a p50 within ±1%. No stop is taken while the requests in flight number more than
// half the completed ones (`in_flight`, from the driver), the rule by which a closed loop that
// completed fewer than 2 × c requests never held its load (stats/run_validity.hpp).
class precision_observer : public run_observer {
public:
    explicit precision_observer(std::vector<precision_target> targets, std::function<std::size_t()> in_flight = {})
        : targets_(std::move(targets)), in_flight_(std::move(in_flight)) {
        for (const auto& t : targets_) {
            values_.try_emplace(t.what);
            states_.push_back({values_for_interval(t), {}, 0, false});
        }
    }

    std::optional<stop_request> observe(const request_result& r) override {
        ++requests_;
        if (r.status != request_status::ok) return std::nullopt;
        for (auto& [m, values] : values_) append_logged_values(r, m, values);
        if (stopped_) return std::nullopt; // still collected: run.end covers the requests in flight too
        bool checked = false;
        for (std::size_t i = 0; i < targets_.size(); ++i)
            if (due(i)) {
                check(i);
                checked = true;
            }
        if (!checked || !all_met()) return std::nullopt;
        for (std::size_t i = 0; i < targets_.size(); ++i)
            if (states_[i].checked_at != values_.at(targets_[i].what).size()) check(i);
        if (!all_met() || (in_flight_ && requests_ < 2 * in_flight_())) return std::nullopt;
        stopped_ = true;
        std::string reached;
        for (std::size_t i = 0; i < targets_.size(); ++i) {
            const auto& t = targets_[i];
            const auto& s = states_[i];
            if (!reached.empty()) reached += ", ";
            reached += fmt::format("{} within ±{}% (target ±{}%)", t.name(), percent_text(*s.last.half_width),
                                   percent_text(t.relative));
            stopped_at_.push_back(s.last);
        }
        stopped_requests_ = requests_;
        return stop_request{"precise", fmt::format("{} after {} requests", reached, requests_)};
    }

    std::string progress() const override {
        std::string out;
        for (std::size_t i = 0; i < targets_.size(); ++i) {
            const auto& t = targets_[i];
            const auto& s = states_[i];
            if (!out.empty()) out += ", ";
            const std::size_t n = values_.at(t.what).size();
            if (n < s.needed) {
                out += fmt::format("{} needs {} values, has {}", t.name(), s.needed, n);
            } else if (!s.last.half_width) {
                out += fmt::format("{} no half-width{}", t.name(), s.last.value == 0.0 ? " (the value is 0)" : "");
            } else {
                const auto left = requests_left(requests_, *s.last.half_width, t.relative);
                out += fmt::format("{} ±{}% (target ±{}%{})", t.name(), percent_text(*s.last.half_width),
                                   percent_text(t.relative), left > 0 ? fmt::format(", ~{} more requests", left) : "");
            }
        }
        return "until: " + out;
    }

    // run.end.until: each target over every logged ok request (those that completed after sending
    // stopped included), so that stats on the final log reports the same interval. `met`: the target
    // was reached, at the check that stopped sending (`stopped_at`) or over the final log; the requests
    // in flight when sending stopped can move the final half-width a little either way.
    void finished(nlohmann::ordered_json& end) override {
        auto list = nlohmann::ordered_json::array();
        summary_.clear();
        for (std::size_t i = 0; i < targets_.size(); ++i) {
            const auto& t = targets_[i];
            auto& values = values_.at(t.what);
            const auto e = estimate_precision(values, t);
            nlohmann::ordered_json j;
            j["target"] = t.spec;
            j["metric"] = std::string(to_string(t.what));
            j["statistic"] = t.statistic();
            j["confidence"] = precision_confidence;
            j["target_half_width"] = t.relative;
            const auto number = [](const std::optional<double>& v) { return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(); };
            j["value"] = number(e.value);
            j["low"] = number(e.low);
            j["high"] = number(e.high);
            j["half_width"] = number(e.half_width);
            j["n"] = e.n;
            j["requests"] = requests_;
            j["met"] = stopped_ || e.met(t);
            if (stopped_) {
                nlohmann::ordered_json at;
                at["requests"] = stopped_requests_;
                at["n"] = stopped_at_[i].n;
                at["half_width"] = number(stopped_at_[i].half_width);
                j["stopped_at"] = std::move(at);
            }
            list.push_back(std::move(j));
            if (stopped_ && !e.met(t))
                summary_ += (summary_.empty() ? "" : "; ") +
                            fmt::format("--until {}: ±{}% over all {} requests logged (the {} that completed after "
                                        "sending stopped moved it)", t.spec, percent_text(e.half_width.value_or(0)),
                                        requests_, requests_ - stopped_requests_);
            else if (!e.met(t))
                summary_ += (summary_.empty() ? "" : "; ") + not_reached(t, e, states_[i].needed);
        }
        end["until"] = std::move(list);
    }

    // What the stderr summary adds: the targets not reached and how far they got; after a stop, a
    // target the requests in flight moved past its half-width.
    std::string summary() const override { return summary_; }

private:
    struct state {
        std::size_t needed = 0;     // values before an interval exists
        precision_estimate last;    // at the last check
        std::size_t checked_at = 0; // values at the last check
        bool met = false;
    };

    bool due(std::size_t i) const {
        const std::size_t n = values_.at(targets_[i].what).size();
        const auto& s = states_[i];
        if (n == s.checked_at || n < s.needed) return false;
        return n < 1000 || static_cast<double>(n) >= static_cast<double>(s.checked_at) * 1.01;
    }

    void check(std::size_t i) {
        auto& values = values_.at(targets_[i].what);
        auto& s = states_[i];
        s.last = estimate_precision(values, targets_[i]);
        s.checked_at = values.size();
        s.met = s.last.met(targets_[i]);
    }

    bool all_met() const {
        for (const auto& s : states_)
            if (!s.met) return false;
        return true;
    }

    std::string not_reached(const precision_target& t, const precision_estimate& e, std::size_t needed) const {
        const auto head = fmt::format("--until {} not reached", t.spec);
        if (e.n < needed) return fmt::format("{}: {} {} values, its interval needs {}", head, to_string(t.what), e.n, needed);
        if (!e.half_width) return fmt::format("{}: no relative half-width (the {} is 0)", head, t.statistic());
        return fmt::format("{}: ±{}% over {} requests, about {} more needed", head, percent_text(*e.half_width),
                           requests_, requests_left(requests_, *e.half_width, t.relative));
    }

    std::vector<precision_target> targets_;
    std::function<std::size_t()> in_flight_; // requests sent and not yet logged
    std::map<metric, std::vector<double>> values_; // one bag per metric the targets read
    std::vector<state> states_;
    std::size_t requests_ = 0; // logged, every status
    bool stopped_ = false;
    std::size_t stopped_requests_ = 0;
    std::vector<precision_estimate> stopped_at_;
    std::string summary_;
};

} // namespace servestat::load
