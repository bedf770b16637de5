// `servestat load --scrape-interval S`: the server's /metrics sampled every S seconds while the run
// goes, into X.metrics-timeline.jsonl beside the log X.jsonl (ingest/metrics_timeline.hpp has the
// format and its reader). A thread of its own with a connection of its own, so the driver's event
// loop never waits for a scrape and a slow /metrics never delays a request.
#pragma once

#include <algorithm>          // std::max
#include <chrono>             // std::chrono
#include <condition_variable> // std::condition_variable
#include <cstddef>            // std::size_t
#include <exception>          // std::exception
#include <filesystem>         // std::filesystem::path
#include <functional>         // std::less
#include <initializer_list>   // std::initializer_list
#include <map>                // std::map
#include <mutex>              // std::mutex, std::lock_guard, std::unique_lock
#include <optional>           // std::optional
#include <string>             // std::string
#include <thread>             // std::thread
#include <utility>            // std::move

#include <fmt/format.h>      // fmt::format
#include <nlohmann/json.hpp> // nlohmann::ordered_json

#include "servestat/ingest/metrics_timeline.hpp" // detail::metrics_timeline_*, prometheus parsing
#include "servestat/load/log_writer.hpp"         // log_writer
#include "servestat/load/run_observer.hpp"       // run_observer
#include "servestat/load/server_api.hpp"         // blocking_client

namespace servestat::load {

namespace detail {

// The live progress line's view of the server: the queue and the KV cache, where /metrics has them.
inline std::string server_progress(const prometheus_scrape& s) {
    const auto first = [&](std::initializer_list<std::string_view> names) -> std::optional<double> {
        for (auto name : names)
            if (auto v = s.value(name)) return v;
        return std::nullopt;
    };
    const auto mean = [&](std::string_view name) -> std::optional<double> {
        const auto v = s.value(name);
        if (!v) return std::nullopt;
        const auto it = s.label_sets.find(name);
        return *v / static_cast<double>(it == s.label_sets.end() ? 1 : std::max<std::size_t>(1, it->second));
    };
    std::string out;
    const auto running = first({"vllm:num_requests_running", "sglang:num_running_reqs"});
    const auto waiting = first({"vllm:num_requests_waiting", "sglang:num_queue_reqs"});
    if (running) out += fmt::format("{:.0f} running", *running);
    if (waiting) out += fmt::format("{}{:.0f} waiting", out.empty() ? "" : ", ", *waiting);
    std::optional<double> kv;
    for (auto name : {"vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc", "sglang:token_usage"})
        if ((kv = mean(name))) break;
    if (kv) out += fmt::format("{}KV {:.0f}%", out.empty() ? "" : ", ", 100 * *kv);
    return out.empty() ? out : "server " + out;
}

} // namespace detail

class metrics_sampler : public run_observer {
public:
    // `log`: the run's log; the timeline goes beside it. The file is created here, so a folder that
    // cannot take it stops the command before the run starts.
    metrics_sampler(endpoint where, http_options options, double interval, const std::filesystem::path& log)
        : where_(std::move(where)), options_(std::move(options)), interval_(interval),
          timeout_(std::max(2.0, interval)), file_(servestat::detail::metrics_timeline_file(log)), writer_(file_) {
        writer_.write(servestat::detail::metrics_timeline_header(where_.url() + "/metrics", interval_, timeout_));
    }
    metrics_sampler(const metrics_sampler&) = delete;
    metrics_sampler& operator=(const metrics_sampler&) = delete;
    ~metrics_sampler() override { stop(); }

    void started(steady::time_point run_start) override {
        start_ = run_start;
        thread_ = std::thread([this] { sample_until_stopped(); });
    }

    std::string progress() const override {
        std::lock_guard lock(mutex_);
        return shown_;
    }

    void finished(nlohmann::ordered_json& end) override {
        stop();
        std::lock_guard lock(mutex_);
        end["metrics_timeline"] = {{"file", file_.filename().string()},
                                   {"interval", interval_},
                                   {"scrapes", scrapes_},
                                   {"failed", failed_}};
        if (!first_failure_.empty()) end["metrics_timeline"]["first_failure"] = first_failure_;
        if (!write_failure_.empty()) end["metrics_timeline"]["write_failure"] = write_failure_;
    }

    // On the run's summary line: where the samples went, and the gaps (also in the file and run.end).
    std::string summary() const override {
        std::lock_guard lock(mutex_);
        std::string out = fmt::format("/metrics sampled {} times into {}", scrapes_, file_.filename().string());
        if (failed_ > 0)
            out += fmt::format(" ({} of {} scrapes failed, gaps; first: {})", failed_, failed_ + scrapes_, first_failure_);
        if (!write_failure_.empty()) out += fmt::format(" (sampling stopped: {})", write_failure_);
        return out;
    }

private:
    using seconds = std::chrono::duration<double>;

    void stop() {
        {
            std::lock_guard lock(mutex_);
            stopping_ = true;
        }
        wake_.notify_all();
        if (thread_.joinable()) thread_.join();
    }

    double since_start(steady::time_point at) const { return seconds(at - start_).count(); }

    // The first scrape at t = 0 (taken even when the run is over by then: every timeline has one),
    // then every interval on the run's clock; a scrape that overruns its turn skips the ticks it
    // missed rather than firing them back to back.
    void sample_until_stopped() {
        blocking_client client(where_, options_);
        const auto step = std::chrono::duration_cast<steady::duration>(seconds(interval_));
        auto next = start_;
        std::map<std::string, std::string, std::less<>> types; // written once per name
        for (bool first = true;; first = false) {
            if (!first) {
                std::unique_lock lock(mutex_);
                if (wake_.wait_until(lock, next, [this] { return stopping_; })) return;
            }
            const auto sent = steady::now();
            std::string line;
            try {
                const auto reply = client.call(http::verb::get, "/metrics", {}, timeout_);
                const auto arrived = steady::now();
                const double t = since_start(sent + (arrived - sent) / 2), took = seconds(arrived - sent).count();
                if (reply.status != 200) {
                    line = failure(t, took, fmt::format("HTTP {}", reply.status));
                } else {
                    const auto scrape = parse_prometheus_text(reply.body, where_.url() + "/metrics");
                    line = servestat::detail::metrics_timeline_sample_line(t, took, scrape, types);
                    std::lock_guard lock(mutex_);
                    ++scrapes_;
                    shown_ = detail::server_progress(scrape);
                }
            } catch (const std::exception& e) { // unreachable, timed out, or an exposition that does not parse
                const auto arrived = steady::now();
                line = failure(since_start(sent + (arrived - sent) / 2), seconds(arrived - sent).count(), e.what());
            }
            try {
                writer_.write(line);
            } catch (const std::exception& e) {
                std::lock_guard lock(mutex_);
                write_failure_ = e.what();
                return;
            }
            next += step;
            if (const auto now = steady::now(); next < now) next += step * ((now - next) / step + 1);
        }
    }

    std::string failure(double t, double took, const std::string& error) {
        std::lock_guard lock(mutex_);
        ++failed_;
        if (first_failure_.empty()) first_failure_ = error;
        return servestat::detail::metrics_timeline_failure_line(t, took, error);
    }

    endpoint where_;
    http_options options_;
    double interval_;
    double timeout_;
    std::filesystem::path file_;
    log_writer writer_;
    steady::time_point start_{};
    std::thread thread_;
    mutable std::mutex mutex_; // guards what follows
    std::condition_variable wake_;
    bool stopping_ = false;
    std::size_t scrapes_ = 0, failed_ = 0;
    std::string first_failure_, write_failure_, shown_;
};

} // namespace servestat::load
