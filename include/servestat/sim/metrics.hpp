// The simulator's /metrics: vLLM's Prometheus metric names in text exposition format 0.0.4.
#pragma once

#include <cmath>       // std::isinf, std::isnan
#include <cstddef>     // std::size_t
#include <cstdint>     // std::int32_t, std::uint64_t
#include <limits>      // std::numeric_limits
#include <optional>    // std::optional
#include <string>      // std::string
#include <string_view> // std::string_view
#include <utility>     // std::move
#include <vector>      // std::vector

#include <fmt/format.h> // fmt::format

// Dashboards and scrapers written for vLLM work unchanged: the names, label (model_name) and bucket
// bounds are vLLM's (vllm/engine/metrics.py; the KV-cache gauge and the preemption counter as V1's
// vllm/v1/metrics/loggers.py names them). Times are seconds as the client's clock sees them,
// i.e. simulated seconds divided by --time-scale. A counter's HELP and TYPE lines carry its _total
// name, as prometheus_client writes the 0.0.4 text format.

namespace servestat::sim {

// The Content-Type of the exposition.
inline constexpr std::string_view metrics_content_type = "text/plain; version=0.0.4; charset=utf-8";

namespace detail {

// Prometheus number syntax as Python's prometheus_client writes it: "+Inf", "1.0", "0.25".
inline std::string prometheus_number(double v) {
    if (std::isnan(v)) return "NaN";
    if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
    std::string s = fmt::format("{}", v);
    if (s.find_first_of(".e") == std::string::npos) s.append(".0");
    return s;
}

// Label values escape backslash, double quote and newline.
inline std::string prometheus_label_value(std::string_view v) {
    std::string out;
    out.reserve(v.size());
    for (const char c : v) {
        if (c == '\\') out.append("\\\\");
        else if (c == '"') out.append("\\\"");
        else if (c == '\n') out.append("\\n");
        else out.push_back(c);
    }
    return out;
}

inline void append_family_header(std::string& out, std::string_view name, std::string_view type,
                                 std::string_view help) {
    out.append("# HELP ").append(name).append(" ").append(help).append("\n");
    out.append("# TYPE ").append(name).append(" ").append(type).append("\n");
}

} // namespace detail

// vLLM's bucket bounds (seconds).
inline const std::vector<double>& ttft_buckets() {
    static const std::vector<double> b = {0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1,  0.25, 0.5,   0.75,
                                          1.0,   2.5,   5.0,  7.5,  10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0};
    return b;
}
inline const std::vector<double>& request_latency_buckets() {
    static const std::vector<double> b = {0.3,  0.5,  0.8,  1.0,  1.5,   2.0,   2.5,   5.0,    10.0,   15.0,  20.0,
                                          30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0};
    return b;
}

// A cumulative histogram with fixed upper bounds; +Inf is implicit.
class histogram {
public:
    explicit histogram(std::vector<double> upper_bounds)
        : bounds_(std::move(upper_bounds)), counts_(bounds_.size(), 0) {}

    void observe(double v) {
        for (std::size_t i = 0; i < bounds_.size(); ++i)
            if (v <= bounds_[i]) ++counts_[i]; // cumulative: every bucket at or above v
        sum_ += v;
        ++count_;
    }

    std::uint64_t count() const { return count_; }
    double sum() const { return sum_; }

    // _bucket, _sum and _count lines; `labels` is the rendered label set without braces.
    void append_samples(std::string& out, std::string_view name, std::string_view labels) const {
        for (std::size_t i = 0; i <= bounds_.size(); ++i) {
            const double le = i < bounds_.size() ? bounds_[i] : std::numeric_limits<double>::infinity();
            const std::uint64_t n = i < bounds_.size() ? counts_[i] : count_;
            out.append(name).append("_bucket{").append(labels).append(",le=\"");
            out.append(detail::prometheus_number(le)).append("\"} ");
            out.append(detail::prometheus_number(static_cast<double>(n))).append("\n");
        }
        out.append(name).append("_sum{").append(labels).append("} ");
        out.append(detail::prometheus_number(sum_)).append("\n");
        out.append(name).append("_count{").append(labels).append("} ");
        out.append(detail::prometheus_number(static_cast<double>(count_))).append("\n");
    }

private:
    std::vector<double> bounds_;
    std::vector<std::uint64_t> counts_;
    double sum_ = 0;
    std::uint64_t count_ = 0;
};

// Server-side timings of one finished request, seconds as the client sees them.
struct request_timings {
    double queue = 0, prefill = 0, decode = 0;
};

// Everything /metrics reports apart from the gauges, which are read from the engine when scraped.
class server_metrics {
public:
    void record_finished(const request_timings& t) {
        ttft_.observe(t.queue + t.prefill);
        e2e_.observe(t.queue + t.prefill + t.decode);
        queue_.observe(t.queue);
        prefill_.observe(t.prefill);
        decode_.observe(t.decode);
        ++finished_;
    }

    // Token counters grow as the engine computes, as vLLM's do: a request cancelled part way has
    // its prefilled and generated tokens counted.
    void record_step(std::int32_t prefill_tokens, std::size_t generated_tokens) {
        prompt_tokens_ += prefill_tokens;
        generation_tokens_ += static_cast<double>(generated_tokens);
    }

    // Prefix cache counters (tokens), as vLLM V1 counts them when a request is first scheduled.
    // Rendered only once enabled, so /metrics stays as it was with caching off.
    void enable_prefix_cache() { prefix_caching_ = true; }
    void record_prefix_cache(std::int32_t queries, std::int32_t hits) {
        prefix_cache_queries_ += queries;
        prefix_cache_hits_ += hits;
    }

    // Running requests preempted (vLLM V1 counts each preemption, so a request preempted twice counts 2).
    void record_preemptions(std::int32_t n) { preemptions_ += n; }

    std::uint64_t finished() const { return finished_; }

    // The gauges are the engine's state when scraped. `kv_cache_usage` (0-1) is rendered only when
    // given: with unlimited KV-cache capacity there is no fraction to report.
    std::string render(std::string_view model, std::int32_t running, std::int32_t waiting,
                       std::optional<double> kv_cache_usage = std::nullopt) const {
        std::string labels = "model_name=\"";
        labels.append(detail::prometheus_label_value(model)).append("\"");
        std::string out;
        out.reserve(8192);
        gauge(out, "vllm:num_requests_running", "Number of requests in model execution batches.", labels, running);
        gauge(out, "vllm:num_requests_waiting", "Number of requests waiting to be processed.", labels, waiting);
        if (kv_cache_usage)
            gauge(out, "vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", labels,
                  *kv_cache_usage);
        counter(out, "vllm:num_preemptions_total", "Cumulative number of preemption from the engine.", labels,
                preemptions_);
        counter(out, "vllm:prompt_tokens_total", "Number of prefill tokens processed.", labels, prompt_tokens_);
        counter(out, "vllm:generation_tokens_total", "Number of generation tokens processed.", labels,
                generation_tokens_);
        if (prefix_caching_) {
            counter(out, "vllm:prefix_cache_queries_total", "Prefix cache queries, in terms of number of queried tokens.",
                    labels, prefix_cache_queries_);
            counter(out, "vllm:prefix_cache_hits_total", "Prefix cache hits, in terms of number of cached tokens.",
                    labels, prefix_cache_hits_);
        }
        std::string success_labels = labels;
        success_labels.append(",finished_reason=\"length\"");
        counter(out, "vllm:request_success_total", "Count of successfully processed requests.", success_labels,
                static_cast<double>(finished_));
        family(out, "vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", labels, ttft_);
        family(out, "vllm:e2e_request_latency_seconds", "Histogram of end to end request latency in seconds.",
               labels, e2e_);
        family(out, "vllm:request_queue_time_seconds",
               "Histogram of time spent in WAITING phase for request.", labels, queue_);
        family(out, "vllm:request_prefill_time_seconds",
               "Histogram of time spent in PREFILL phase for request.", labels, prefill_);
        family(out, "vllm:request_decode_time_seconds", "Histogram of time spent in DECODE phase for request.",
               labels, decode_);
        return out;
    }

private:
    static void gauge(std::string& out, std::string_view name, std::string_view help, std::string_view labels,
                      double v) {
        detail::append_family_header(out, name, "gauge", help);
        out.append(name).append("{").append(labels).append("} ").append(detail::prometheus_number(v)).append("\n");
    }
    static void counter(std::string& out, std::string_view name, std::string_view help, std::string_view labels,
                        double v) {
        detail::append_family_header(out, name, "counter", help);
        out.append(name).append("{").append(labels).append("} ").append(detail::prometheus_number(v)).append("\n");
    }
    static void family(std::string& out, std::string_view name, std::string_view help, std::string_view labels,
                       const histogram& h) {
        detail::append_family_header(out, name, "histogram", help);
        h.append_samples(out, name, labels);
    }

    histogram ttft_{ttft_buckets()};
    histogram e2e_{request_latency_buckets()};
    histogram queue_{request_latency_buckets()};
    histogram prefill_{request_latency_buckets()};
    histogram decode_{request_latency_buckets()};
    double prompt_tokens_ = 0, generation_tokens_ = 0;
    bool prefix_caching_ = false;
    double prefix_cache_queries_ = 0, prefix_cache_hits_ = 0;
    double preemptions_ = 0;
    std::uint64_t finished_ = 0;
};

} // namespace servestat::sim
