// `servestat load --scrape-interval S`: the server's /metrics sampled every S seconds while the run
// goes, into X.metrics-timeline.jsonl beside the log X.jsonl (ingest/metrics_timeline.hpp has the
// format and its reader); with `--power-url URL`, a second sampler on the same schedule scrapes that
// Prometheus endpoint (the GPUs' power, from NVIDIA's DCGM exporter on a host of its own) into
// X.power-timeline.jsonl, in the same format. Each sampler has a thread of its own with a connection
// of its own, so the driver's event loop never waits for a scrape and a slow endpoint never delays a
// request.
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
#include <string_view>        // std::string_view
#include <thread>             // std::thread
#include <utility>            // std::move

#include <fmt/format.h>      // fmt::format
#include <nlohmann/json.hpp> // nlohmann::ordered_json

#include "servestat/core/errors.hpp"             // usage_error
#include "servestat/ingest/metrics_timeline.hpp" // detail::metrics_timeline_*, detail::power_timeline_file, prometheus parsing
#include "servestat/load/client.hpp"             // endpoint, parse_url, http_options
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

// What one sampler scrapes, where its samples go and how it reports them: the server's /metrics
// (--scrape-interval) or another Prometheus endpoint (--power-url).
struct sampled_endpoint {
    endpoint where;                 // host and port; the server's prefix, if any, goes before `target`
    std::string target = "/metrics"; // the path asked for
    std::filesystem::path file;     // the timeline, beside the log
    std::string end_key;            // its record in the header's run.end
    std::string summary_name;       // what the summary line says was sampled
    bool shows_progress = false;    // whether its last sample adds the server's queue to the progress line

    std::string url() const { return where.url() + target; }
};

// --scrape-interval: the server's own /metrics, beside the log `log`.
inline sampled_endpoint server_metrics_endpoint(endpoint where, const std::filesystem::path& log) {
    return {std::move(where), "/metrics", servestat::detail::metrics_timeline_file(log), "metrics_timeline", "/metrics",
            true};
}

// A Prometheus endpoint given whole, as --power-url takes it: http[s]://HOST[:PORT]/PATH, the path
// kept as given (it is no OpenAI server: no /v1 to strip); none means /metrics, every exporter's
// default. `option` names the flag in the message.
struct scrape_url {
    endpoint where; // no prefix: `path` is the whole of it
    std::string path;
};

inline scrape_url parse_scrape_url(std::string_view url, std::string_view option) {
    const auto bad = [&] {
        return usage_error(fmt::format("{} {}: expected http[s]://HOST[:PORT]/PATH, e.g. http://gpu-node:9400/metrics",
                                       option, url));
    };
    const auto scheme = url.find("://");
    if (scheme == std::string_view::npos) throw bad();
    const auto path_start = url.find('/', scheme + 3);
    scrape_url out;
    try {
        out.where = parse_url(url.substr(0, path_start));
    } catch (const usage_error&) {
        throw bad(); // parse_url's message names --url
    }
    out.path = path_start == std::string_view::npos ? "/metrics" : std::string(url.substr(path_start));
    return out;
}

// --power-url: the GPUs' power from an exporter of its own, beside the log `log`.
inline sampled_endpoint power_endpoint(scrape_url url, const std::filesystem::path& log) {
    sampled_endpoint out{std::move(url.where), std::move(url.path), servestat::detail::power_timeline_file(log),
                         "power_timeline", "", false};
    out.summary_name = "power from " + out.url();
    return out;
}

class metrics_sampler : public run_observer {
public:
    // The file is created here, so a folder that cannot take it stops the command before the run starts.
    metrics_sampler(sampled_endpoint what, http_options options, double interval)
        : what_(std::move(what)), url_(what_.url()), options_(std::move(options)), interval_(interval),
          timeout_(std::max(2.0, interval)), writer_(what_.file) {
        writer_.write(servestat::detail::metrics_timeline_header(url_, interval_, timeout_));
    }
    // The server's /metrics; `log`: the run's log, the timeline goes beside it.
    metrics_sampler(endpoint where, http_options options, double interval, const std::filesystem::path& log)
        : metrics_sampler(server_metrics_endpoint(std::move(where), log), std::move(options), interval) {}
    metrics_sampler(const metrics_sampler&) = delete;
    metrics_sampler& operator=(const metrics_sampler&) = delete;
    ~metrics_sampler() override { stop(false); } // an abandoned run: no closing scrape to wait for

    void started(steady::time_point run_start) override {
        start_ = run_start;
        thread_ = std::thread([this] { sample_until_stopped(); });
    }

    std::string progress() const override {
        std::lock_guard lock(mutex_);
        return shown_;
    }

    // Every request is logged by now: the closing scrape is taken after the last request ended, so
    // the timeline spans the whole run (energy needs a sample at or after the last end).
    void finished(nlohmann::ordered_json& end) override {
        stop(true);
        std::lock_guard lock(mutex_);
        auto& record = end[what_.end_key];
        record = {{"file", what_.file.filename().string()},
                  {"interval", interval_},
                  {"scrapes", scrapes_},
                  {"failed", failed_}};
        if (!first_failure_.empty()) record["first_failure"] = first_failure_;
        if (!write_failure_.empty()) record["write_failure"] = write_failure_;
    }

    // On the run's summary line: where the samples went, and the gaps (also in the file and run.end).
    std::string summary() const override {
        std::lock_guard lock(mutex_);
        std::string out =
            fmt::format("{} sampled {} times into {}", what_.summary_name, scrapes_, what_.file.filename().string());
        if (failed_ > 0)
            out += fmt::format(" ({} of {} scrapes failed, gaps; first: {})", failed_, failed_ + scrapes_, first_failure_);
        if (!write_failure_.empty()) out += fmt::format(" (sampling stopped: {})", write_failure_);
        return out;
    }

private:
    using seconds = std::chrono::duration<double>;
    enum class turn { scrape, closing_scrape, none };

    void stop(bool closing_scrape) {
        {
            std::lock_guard lock(mutex_);
            if (!stopping_) closing_scrape_ = closing_scrape;
            stopping_ = true;
        }
        wake_.notify_all();
        if (thread_.joinable()) thread_.join();
    }

    double since_start(steady::time_point at) const { return seconds(at - start_).count(); }

    // Waits for the scrape due at `next`; a stop ends the wait at once, with the closing scrape when
    // the run finished rather than was abandoned.
    turn wait_for(steady::time_point next) {
        std::unique_lock lock(mutex_);
        if (!wake_.wait_until(lock, next, [this] { return stopping_; })) return turn::scrape;
        return closing_scrape_ ? turn::closing_scrape : turn::none;
    }

    // The first scrape at t = 0 (taken even when the run is over by then: every timeline has one),
    // then every interval on the run's clock, and a closing one once the run is over; a scrape that
    // overruns its turn skips the ticks it missed rather than firing them back to back. Scrapes are
    // taken one after the other on this thread, so their times never decrease.
    void sample_until_stopped() {
        blocking_client client(what_.where, options_);
        const auto step = std::chrono::duration_cast<steady::duration>(seconds(interval_));
        auto next = start_;
        std::map<std::string, std::string, std::less<>> types; // written once per name
        for (bool first = true;; first = false) {
            const turn now = first ? turn::scrape : wait_for(next);
            if (now == turn::none) return;
            if (!write(scrape(client, types)) || now == turn::closing_scrape) return;
            next += step;
            if (const auto t = steady::now(); next < t) next += step * ((t - next) / step + 1);
        }
    }

    // One scrape's line: its values, or why it failed.
    std::string scrape(blocking_client& client, std::map<std::string, std::string, std::less<>>& types) {
        const auto sent = steady::now();
        try {
            const auto reply = client.call(http::verb::get, what_.target, {}, timeout_);
            const auto arrived = steady::now();
            const double t = since_start(sent + (arrived - sent) / 2), took = seconds(arrived - sent).count();
            if (reply.status != 200) return failure(t, took, fmt::format("HTTP {}", reply.status));
            const auto scraped = parse_prometheus_text(reply.body, url_);
            auto line = servestat::detail::metrics_timeline_sample_line(t, took, scraped, types);
            std::lock_guard lock(mutex_);
            ++scrapes_;
            if (what_.shows_progress) shown_ = detail::server_progress(scraped);
            return line;
        } catch (const std::exception& e) { // unreachable, timed out, or an exposition that does not parse
            const auto arrived = steady::now();
            return failure(since_start(sent + (arrived - sent) / 2), seconds(arrived - sent).count(), e.what());
        }
    }

    // False when the file cannot take the line: sampling stops, and says why at the end.
    bool write(const std::string& line) {
        try {
            writer_.write(line);
            return true;
        } catch (const std::exception& e) {
            std::lock_guard lock(mutex_);
            write_failure_ = e.what();
            return false;
        }
    }

    std::string failure(double t, double took, const std::string& error) {
        std::lock_guard lock(mutex_);
        ++failed_;
        if (first_failure_.empty()) first_failure_ = error;
        return servestat::detail::metrics_timeline_failure_line(t, took, error);
    }

    sampled_endpoint what_;
    std::string url_;
    http_options options_;
    double interval_;
    double timeout_;
    log_writer writer_;
    steady::time_point start_{};
    std::thread thread_;
    mutable std::mutex mutex_; // guards what follows
    std::condition_variable wake_;
    bool stopping_ = false;
    bool closing_scrape_ = false; // take one more scrape once stopped: the run finished
    std::size_t scrapes_ = 0, failed_ = 0;
    std::string first_failure_, write_failure_, shown_;
};

} // namespace servestat::load
