// Is the client the bottleneck? The load driver measures itself while it runs: how late it started
// requests against what it could have done (driver.hpp's run_probe), how late a 10 ms probe timer on
// its event loop fires (as Node's monitorEventLoopDelay does), and the CPU its thread used over the
// run's wall time. They go into the log header's run.end.client (docs/log-format.md#run-end), and a
// run where they cross stats/client_limits.hpp's limits is told as a run-validity sentence.
#pragma once

#include <algorithm>  // std::max, std::max_element
#include <chrono>     // std::chrono
#include <cmath>      // std::round
#include <cstddef>    // std::size_t
#include <memory>     // std::shared_ptr, std::make_shared
#include <optional>   // std::optional
#include <span>       // std::span
#include <string>     // std::string
#include <vector>     // std::vector

#include <sys/resource.h> // getrusage, RUSAGE_THREAD, RUSAGE_SELF

#include <boost/asio/io_context.hpp>   // boost::asio::io_context
#include <boost/asio/steady_timer.hpp> // boost::asio::steady_timer
#include <nlohmann/json.hpp>           // nlohmann::ordered_json

#include "servestat/load/driver.hpp"       // run_probe, steady
#include "servestat/load/run_observer.hpp" // run_observer
#include "servestat/stats/client_limits.hpp" // check_client, client_limit_reasons
#include "servestat/stats/quantile.hpp"    // percentiles_select

namespace servestat::load {

// A measured delay over the run, in seconds: numpy's linear p50 and p99, the largest, and how many.
struct delay_summary {
    double p50 = 0, p99 = 0, max = 0;
    std::size_t n = 0;
};

// The summary of `values` (reordered), or nothing when there are none.
inline std::optional<delay_summary> summarise_delays(std::span<double> values) {
    if (values.empty()) return std::nullopt;
    const double max = *std::max_element(values.begin(), values.end());
    constexpr double ps[] = {50, 99};
    const auto q = percentiles_select(values, ps);
    return delay_summary{q[0], q[1], max, values.size()};
}

namespace detail {

// Microseconds are as fine as a steady clock read between other work means anything.
inline double round_micro(double seconds) { return std::round(seconds * 1e6) / 1e6; }

inline nlohmann::ordered_json delay_json(const delay_summary& d) {
    return {{"p50", round_micro(d.p50)}, {"p99", round_micro(d.p99)}, {"max", round_micro(d.max)}, {"n", d.n}};
}

// CPU seconds (user + system) of the calling thread: the driver runs every request on one thread,
// the io_context's; a thread of another part (a /metrics sampler) is not the one that can fall behind.
inline double thread_cpu_seconds() {
    rusage u{};
#ifdef RUSAGE_THREAD
    getrusage(RUSAGE_THREAD, &u);
#else
    getrusage(RUSAGE_SELF, &u);
#endif
    auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6; };
    return seconds(u.ru_utime) + seconds(u.ru_stime);
}

// The process's peak resident memory so far, in bytes (Linux counts ru_maxrss in KiB).
inline long long max_rss_bytes() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<long long>(u.ru_maxrss) * 1024;
}

// The event-loop probe: a timer re-armed `interval` after each firing; how late each firing came is
// how long the loop was busy with other work (or the thread was not scheduled). Its state is shared
// with the timer's handler, so a handler still queued when the run ends finds it alive.
struct loop_probe {
    loop_probe(boost::asio::io_context& io, std::chrono::nanoseconds every) : timer(io), interval(every) {}
    boost::asio::steady_timer timer;
    std::chrono::nanoseconds interval;
    bool stopped = false;
    std::vector<float> delays; // seconds; a float each keeps a day at 100 a second in 35 MB

    static void arm(const std::shared_ptr<loop_probe>& p) {
        p->timer.expires_after(p->interval);
        p->timer.async_wait([p](const boost::system::error_code& ec) {
            if (ec || p->stopped) return;
            p->delays.push_back(std::chrono::duration<float>(steady::now() - p->timer.expiry()).count());
            arm(p);
        });
    }
};

} // namespace detail

class self_measure final : public run_observer, public run_probe {
public:
    // 10 ms: Node's default resolution; 100 wake-ups a second cost the loop almost nothing.
    explicit self_measure(double probe_interval_seconds = 0.010)
        : interval_(std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::duration<double>(probe_interval_seconds))) {}

    void begin(boost::asio::io_context& io, steady::time_point run_start) override {
        start_ = run_start;
        cpu_start_ = detail::thread_cpu_seconds();
        probe_ = std::make_shared<detail::loop_probe>(io, interval_);
        detail::loop_probe::arm(probe_);
    }

    void end() override {
        if (!probe_ || probe_->stopped) return;
        probe_->stopped = true;
        probe_->timer.cancel();
        wall_ = std::chrono::duration<double>(steady::now() - start_).count();
        cpu_ = detail::thread_cpu_seconds() - cpu_start_;
        rss_ = detail::max_rss_bytes();
    }

    void late(lateness kind, double seconds) override {
        (kind == lateness::schedule ? schedule_ : turnaround_).push_back(std::max(0.0, seconds));
    }

    // run.end.client: schedule_lag (open loop, session turns) or turnaround (closed loop), loop_delay,
    // cpu_seconds, cpu_share (of one core, over the run's wall time) and max_rss_bytes; times in seconds.
    nlohmann::ordered_json measured() const {
        nlohmann::ordered_json out = nlohmann::ordered_json::object();
        auto add = [&](const char* key, std::vector<double> values) {
            if (const auto s = summarise_delays(values)) out[key] = detail::delay_json(*s);
        };
        add("schedule_lag", schedule_);
        add("turnaround", turnaround_);
        if (probe_) {
            std::vector<double> delays(probe_->delays.begin(), probe_->delays.end());
            if (const auto s = summarise_delays(delays)) {
                auto j = detail::delay_json(*s);
                j["interval"] = std::chrono::duration<double>(interval_).count();
                out["loop_delay"] = std::move(j);
            }
        }
        if (wall_) {
            out["cpu_seconds"] = detail::round_micro(*cpu_);
            out["cpu_share"] = *wall_ > 0 ? std::round(*cpu_ / *wall_ * 1e4) / 1e4 : 0.0;
            out["max_rss_bytes"] = rss_;
        }
        return out;
    }

    void finished(nlohmann::ordered_json& end) override {
        auto client = measured();
        if (client.empty()) return;
        // Judged as the report will judge the log (stats/client_limits.hpp), for the summary line.
        const nlohmann::json as_read = {{"client", nlohmann::json(client)}};
        if (const auto limit = check_client(as_read))
            warning_ = "warning: the client may have limited this run: " + client_limit_reasons(*limit);
        end["client"] = std::move(client);
    }

    // On the summary line when a limit was crossed.
    std::string summary() const override { return warning_; }

private:
    std::chrono::nanoseconds interval_;
    steady::time_point start_{};
    double cpu_start_ = 0;
    std::optional<double> wall_, cpu_;
    long long rss_ = 0;
    std::shared_ptr<detail::loop_probe> probe_;
    std::vector<double> schedule_, turnaround_;
    std::string warning_;
};

} // namespace servestat::load
