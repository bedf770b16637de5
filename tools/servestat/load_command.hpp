// `servestat load`: options of the load driver. The driver itself (Beast) lives in load.cpp, a
// translation unit of its own, so main.cpp compiles without Beast; the flags that set these options
// are load_options.hpp's, so load.cpp compiles without CLI11.
#pragma once

#include <chrono>     // std::chrono::steady_clock
#include <cstddef>    // std::size_t
#include <cstdint>    // std::int32_t, std::uint64_t
#include <filesystem> // std::filesystem::path
#include <functional> // std::function
#include <memory>     // std::unique_ptr
#include <optional>   // std::optional
#include <string>     // std::string
#include <vector>     // std::vector

#include <nlohmann/json.hpp> // nlohmann::ordered_json

#include <servestat/load/token_counter.hpp> // token_counter

namespace servestat::cli {

struct load_args {
    std::string url;
    std::string model; // empty: the first model /v1/models lists
    std::string api_key;
    std::string api_key_env;            // the key is read from this variable (never logged)
    std::vector<std::string> headers;   // "Name: value", sent with every request (values never logged)
    std::string cacert;                 // HTTPS: trust this CA file instead of the system's store
    bool insecure = false;              // HTTPS: no certificate verification
    std::string endpoint = "auto";      // auto (chat or completions by the row), responses
    std::string workload;
    std::string output;
    std::string label;
    // Pattern.
    std::optional<std::int32_t> concurrency;
    std::optional<double> rate;
    double burstiness = 1.0;
    bool constant = false;
    std::int32_t max_concurrency = 0;
    std::string trace;
    double trace_time_scale = 1.0;
    std::optional<std::size_t> requests;
    std::optional<double> duration;
    std::vector<std::string> until; // --until METRIC.STATISTIC:HALF_WIDTH% (load/precision_target.hpp)
    std::uint64_t seed = 0;
    std::size_t warmup = 0;
    // Requests.
    bool no_stream = false;
    double timeout = 600;
    std::string extra; // JSON object merged into every request body
    std::optional<std::int32_t> max_tokens; // overrides the workload's
    double cancel_rate = 0;                 // share of requests the driver aborts
    std::string cancel_after;               // seconds after sending, a distribution (load/distribution.hpp)
    std::int32_t sessions_in_flight = 0;    // multi-turn workloads: sessions running at once
    // The failure guard (load/failure_guard.hpp): stop sending when the server is gone or failing.
    std::size_t max_connection_failures = 10; // in a row; 0: never
    std::optional<double> max_error_rate;     // over the last error_window requests; unset: never
    std::size_t error_window = 50;
    // Context budget.
    bool no_budget = false;
    std::int32_t margin = 16;
    std::int32_t min_output_tokens = 32;
    double head_fraction = 0.35;
    std::optional<std::int32_t> max_model_len; // else /v1/models'
    bool heuristic_tokens = false;              // do not ask /tokenize
    std::vector<std::string> params;            // key=value recorded in the header
    // Sweeps.
    std::string sweep;                 // concurrency=1,2,4 or rate=1,2; concurrency=auto or rate=auto
    // --sweep concurrency=auto / rate=auto (load/auto_sweep.hpp, docs/load.md#finding-the-knee).
    std::optional<double> auto_start, auto_max; // unset: 1 and 1024 × the start
    double auto_gain = 0.10, auto_resolution = 0.25, auto_max_error = 0.05;
    std::size_t auto_levels = 16;
    std::string slo; // metric=seconds,...: an auto sweep stops climbing when a level's p95 misses one
    std::vector<std::string> grid;     // key=v1,v2 (repeatable): server configurations
    std::string server_cmd;            // {key} placeholders from the grid
    double server_timeout = 600;
    bool resume = false;
    bool scrape_metrics = false;
    double scrape_interval = 0; // seconds between samples of /metrics during the run; 0: none
    std::string power_url;      // a Prometheus endpoint (DCGM's power) sampled on the same schedule; empty: none
    bool quiet = false;
};

int run_load_command(const load_args& a); // load.cpp

// For `servestat tune` (tune_command.hpp, compiled in main.cpp): one server started per measurement
// and the closed-loop levels run against it, with the load command's requests, warm-up, logs and
// failure guard. Defined in load.cpp, so that only one translation unit compiles Beast.
class level_runner {
public:
    explicit level_runner(const load_args& a);
    ~level_runner();
    level_runner(const level_runner&) = delete;
    level_runner& operator=(const level_runner&) = delete;

    // Starts `command` (its output into `log`) and waits until /v1/models answers, at most `timeout`
    // seconds and while `keep_waiting()` holds. Empty when ready; otherwise why not ("not ready within
    // 900 s"). The workload is prepared against the first server that answers.
    std::string start_server(const std::string& command, const std::filesystem::path& log, double timeout,
                             const std::function<bool()>& keep_waiting);
    // Empty while the server runs; "exited with status 1" once it has ended.
    std::string server_gone();
    void stop_server();

    struct outcome {
        bool interrupted = false;     // SIGINT or SIGTERM stopped it
        bool out_of_time = false;     // the deadline drained it
        std::size_t sent = 0, ok = 0;
    };
    // One level at `concurrency`, logged to `log` under `label` with `params` in its header; new
    // requests stop at `deadline` (those in flight end and are logged).
    outcome run(const std::string& label, const std::filesystem::path& log, const nlohmann::ordered_json& params,
                std::int32_t concurrency, std::chrono::steady_clock::time_point deadline);

private:
    struct state;
    std::unique_ptr<state> state_;
};

// Counts tokens with the server's /tokenize (load.cpp: it speaks HTTP); `model` empty: the first
// model /v1/models lists. Throws when the server cannot be reached.
load::token_counter server_token_counter_for(const std::string& url, const std::string& api_key,
                                             const std::string& model);

} // namespace servestat::cli
