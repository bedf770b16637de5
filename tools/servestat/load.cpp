// `servestat load`: the load driver. Its own translation unit: Beast compiles here and in simulate.cpp only.
#include <algorithm>  // std::max, std::min
#include <chrono>     // std::chrono::system_clock
#include <cmath>      // std::floor
#include <cstdio>     // std::fwrite, stderr
#include <cstdlib>    // std::getenv
#include <filesystem> // std::filesystem
#include <fstream>    // std::ofstream
#include <memory>     // std::unique_ptr
#include <optional>   // std::optional
#include <string>     // std::string
#include <string_view> // std::string_view
#include <vector>     // std::vector

#include <unistd.h> // ::isatty

#include <boost/asio/io_context.hpp> // boost::asio::io_context
#include <fmt/format.h>              // fmt::format
#include <nlohmann/json.hpp>         // nlohmann::ordered_json

#include <servestat/app/output_folder.hpp>     // app::create_output_folder
#include <servestat/core/errors.hpp>           // usage_error, input_error
#include <servestat/core/iso_time.hpp>         // detail::iso_utc
#include <servestat/core/random.hpp>           // detail::xoshiro256, draw_below
#include <servestat/core/visible_controls.hpp> // write_terminal
#include <servestat/ingest/arrival_trace.hpp>  // read_arrivals
#include <servestat/load/arrivals.hpp>         // open-loop schedules, trace replay
#include <servestat/load/auto_sweep.hpp>       // auto_sweep (--sweep concurrency=auto)
#include <servestat/load/budget.hpp>           // budget_chat, budget_prompt
#include <servestat/load/distribution.hpp>     // distribution (--cancel-after)
#include <servestat/load/driver.hpp>           // driver, load_pattern, planned_request
#include <servestat/load/failure_guard.hpp>    // failure_guard, is_failure_stop
#include <servestat/load/log_writer.hpp>       // log_writer, log_line, header_line
#include <servestat/load/metrics_sampler.hpp>  // metrics_sampler (--scrape-interval)
#include <servestat/load/precision_target.hpp> // precision_observer, parse_precision_targets (--until)
#include <servestat/load/run_observer.hpp>     // run_observer, stop_request
#include <servestat/load/self_measure.hpp>     // self_measure (run.end.client)
#include <servestat/load/server_api.hpp>       // read_models, server_token_counter, scrape_metrics
#include <servestat/load/session.hpp>          // session workloads
#include <servestat/load/sweep_plan.hpp>       // sweep points, manifest, server process
#include <servestat/load/workload.hpp>         // read_workload, synthetic_text
#include <servestat/stats/quantile.hpp>        // percentiles_select

#include "level_stats.hpp"  // analyze_log (an auto sweep reads each level back)
#include "load_command.hpp" // load_args

namespace servestat::cli {

namespace {

namespace fs = std::filesystem;

constexpr int exit_interrupted = 130; // as a shell reports a run ended by SIGINT
constexpr int exit_server_failing = 4; // the failure guard stopped a run: the server was gone or failing

// A line for stderr. What it quotes (labels, a server's error texts, its log's last lines) has its
// control characters shown, not obeyed; only the progress line's own "clear the line" goes out raw.
void say(const std::string& text) {
    constexpr std::string_view clear_line = "\r\033[K";
    std::string_view rest = text;
    if (rest.starts_with(clear_line)) {
        std::fwrite(clear_line.data(), 1, clear_line.size(), stderr);
        rest.remove_prefix(clear_line.size());
    }
    servestat::write_terminal(stderr, rest);
}

// The rows the driver will send, each budgeted once before the run starts.
struct prepared_workload {
    std::string name;                      // workload file stem or trace stem
    std::vector<load::planned_request> rows;
    std::vector<load::session_script> sessions; // a multi-turn workload (then rows is empty)
    load::session_request_options session_options;
    std::vector<double> trace_times;       // trace replay: the start of each row, in order
    std::string token_source;
    std::int32_t max_model_len = 0;
    std::size_t trimmed = 0;
};

nlohmann::json parse_extra(const std::string& text) {
    if (text.empty()) return nlohmann::json::object();
    const auto j = nlohmann::json::parse(text, nullptr, false);
    if (!j.is_object()) throw usage_error(fmt::format("--extra must be a JSON object, got: {}", text));
    return j;
}

bool responses_api(const load_args& a) { return a.endpoint == "responses"; }

// The row as the chosen API takes it. The Responses API gets the messages (or the prompt) as its
// `input` and max_output_tokens; it always reports usage in response.completed.
std::string request_body(const load::workload_row& row, const load::budget_result& fitted, const std::string& model,
                         const load_args& a, const nlohmann::json& extra) {
    nlohmann::ordered_json body;
    body["model"] = model;
    auto messages = nlohmann::ordered_json::array();
    for (const auto& m : fitted.messages) messages.push_back({{"role", m.role}, {"content", m.content}});
    if (responses_api(a)) {
        body["input"] = row.is_chat() ? std::move(messages) : nlohmann::ordered_json(fitted.prompt);
        body["max_output_tokens"] = fitted.max_tokens;
    } else {
        if (row.is_chat()) body["messages"] = std::move(messages);
        else body["prompt"] = fitted.prompt;
        body["max_tokens"] = fitted.max_tokens;
    }
    body["temperature"] = row.temperature.value_or(0.0);
    for (const auto& [key, value] : row.extra.items()) body[key] = value;
    for (const auto& [key, value] : extra.items()) body[key] = value;
    body["stream"] = !a.no_stream;
    if (!a.no_stream && !responses_api(a)) body["stream_options"] = {{"include_usage", true}};
    return body.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

// Budgeting off (--no-budget): the request goes out as the workload says; the prompt is still
// counted so the log has prompt_tokens when the server rejects it.
load::budget_result unbudgeted(const load::workload_row& row, std::int32_t desired, const load::token_counter& counter) {
    load::budget_result r;
    if (row.is_chat()) {
        r.messages = row.messages;
        r.prompt_tokens = counter.chat(row.messages);
    } else {
        r.prompt = *row.prompt;
        r.prompt_tokens = counter.text(*row.prompt);
    }
    r.prompt_tokens_original = r.prompt_tokens;
    r.max_tokens = desired;
    return r;
}

load::planned_request plan_row(const load::workload_row& row, std::int32_t desired, const std::string& where,
                               const load::budget_options& budget, const load::token_counter& counter,
                               const std::string& model, const load_args& a, const nlohmann::json& extra) {
    const auto fitted = a.no_budget ? unbudgeted(row, desired, counter)
                        : row.is_chat() ? load::budget_chat(row.messages, desired, budget, counter, where)
                                        : load::budget_prompt(*row.prompt, desired, budget, counter, where);
    load::planned_request p;
    p.http.target = responses_api(a) ? "/v1/responses" : row.is_chat() ? "/v1/chat/completions" : "/v1/completions";
    if (responses_api(a)) p.http.protocol = load::api_protocol::responses;
    p.http.body = request_body(row, fitted, model, a, extra);
    p.http.stream = !a.no_stream;
    p.prompt_tokens = fitted.prompt_tokens;
    p.max_tokens = fitted.max_tokens;
    p.trimmed = fitted.trimmed;
    if (fitted.trimmed) p.prompt_tokens_original = fitted.prompt_tokens_original;
    return p;
}

// Trace replay without a workload: one chat request per arrival whose prompt has the arrival's
// token count (chat template included) and whose max_tokens is its output count.
std::vector<load::workload_row> trace_rows(const std::vector<load::planned_arrival>& arrivals,
                                           const load::token_counter& counter, std::uint64_t seed) {
    const std::int32_t template_tokens = counter.chat({{"user", ""}});
    servestat::detail::xoshiro256 rng(seed);
    std::vector<load::workload_row> rows;
    rows.reserve(arrivals.size());
    for (std::size_t i = 0; i < arrivals.size(); ++i) {
        const auto target = std::max<std::int32_t>(1, arrivals[i].prompt_tokens.value_or(0) - template_tokens);
        auto row = load::chat_row(load::synthetic_text(target, counter, rng).text,
                                  std::max(1, arrivals[i].output_tokens.value_or(0)));
        row.line = i + 2;
        rows.push_back(std::move(row));
    }
    return rows;
}

load::token_counter choose_counter(const load_args& a, const load::endpoint& where, const load::http_options& options,
                                   const std::string& model) {
    if (a.heuristic_tokens) return load::heuristic_token_counter();
    try {
        auto counter = load::server_token_counter(where, options, model);
        counter.text("hello");
        return counter;
    } catch (const std::exception& e) {
        say(fmt::format("servestat load: {}/tokenize is not usable ({}); counting tokens with the heuristic "
                        "(docs/load.md)\n",
                        where.url(), e.what()));
        return load::heuristic_token_counter();
    }
}

// A multi-turn workload: no context budget (each turn's prompt is the conversation so far, known only
// as the run goes; a turn past the context window is the server's error, logged); each turn's new
// text is counted for the prefix cache's bound.
prepared_workload prepare_sessions(const load_args& a, const std::string& text, const load::token_counter& counter,
                                   const std::string& model, prepared_workload out) {
    if (!a.trace.empty()) throw usage_error("--trace replays single requests; a session workload has its own turns");
    if (a.concurrency || a.rate) throw usage_error("a session workload runs --sessions-in-flight N sessions at once, "
                                                   "not --concurrency or --rate");
    if (a.warmup > 0) throw usage_error("--warmup sends single requests; a session workload has none");
    out.sessions = load::parse_sessions(text, a.workload);
    out.name = fs::path(a.workload).stem().string();
    out.session_options = {.model = model, .protocol = responses_api(a) ? load::api_protocol::responses
                                                                        : load::api_protocol::chat_completions,
                           .stream = !a.no_stream, .max_tokens_override = a.max_tokens, .extra = parse_extra(a.extra)};
    for (auto& s : out.sessions)
        for (std::size_t k = 0; k < s.turns.size(); ++k) s.turns[k].new_tokens = counter.text(load::turn_text(s, k));
    return out;
}

prepared_workload prepare_workload(const load_args& a, const load::endpoint& where, const load::http_options& options,
                                   const load::server_info& server) {
    prepared_workload out;
    const auto counter = choose_counter(a, where, options, server.model);
    out.token_source = counter.source;
    out.max_model_len = a.max_model_len.value_or(server.max_model_len.value_or(0));
    std::string workload_text;
    if (!a.workload.empty()) {
        workload_text = load::detail::read_file_text(a.workload);
        if (load::is_session_workload(workload_text)) return prepare_sessions(a, workload_text, counter, server.model, std::move(out));
    }
    if (!a.no_budget && out.max_model_len <= 0)
        throw usage_error("the server does not say its max_model_len: give --max-model-len or --no-budget");
    std::vector<load::workload_row> rows;
    std::string source;
    if (!a.workload.empty()) {
        rows = load::parse_workload(workload_text, a.workload);
        source = a.workload;
        out.name = fs::path(a.workload).stem().string();
    }
    if (!a.trace.empty()) {
        const auto arrivals = read_arrivals(a.trace);
        if (arrivals.empty()) throw input_error(a.trace, 0, "", "the trace has no arrivals");
        // Only the arrivals the run will replay are planned and prepared (a trace may hold hours).
        const auto replayed = load::plan_trace(arrivals, {.time_scale = a.trace_time_scale, .count = a.requests,
                                                          .duration = a.duration});
        for (const auto& planned : replayed) out.trace_times.push_back(planned.t_sched);
        if (rows.empty()) {
            rows = trace_rows(replayed, counter, a.seed);
            source = a.trace;
            out.name = fs::path(a.trace).stem().string();
        }
    }
    if (rows.empty()) throw usage_error("give --workload FILE (see `servestat workload`) or --trace FILE");
    const load::budget_options budget{.max_model_len = out.max_model_len, .margin = a.margin,
                                      .min_output_tokens = a.min_output_tokens, .head_fraction = a.head_fraction};
    const auto extra = parse_extra(a.extra);
    out.rows.reserve(rows.size());
    for (const auto& row : rows) {
        const std::int32_t desired = a.max_tokens.value_or(row.max_tokens.value_or(128));
        const auto where_in_source = fmt::format("{}:{}", source, row.line);
        out.rows.push_back(plan_row(row, desired, where_in_source, budget, counter, server.model, a, extra));
        if (out.rows.back().trimmed) ++out.trimmed;
    }
    return out;
}

// Which row request i sends: a seeded draw with replacement (the notebook's rng.choice), or the
// trace's own order when replaying a trace.
class request_order {
public:
    request_order(const prepared_workload& w, std::uint64_t seed) : workload_(w), rng_(seed) {}
    const load::planned_request& operator()(std::size_t index) {
        if (!workload_.trace_times.empty()) return workload_.rows[index % workload_.rows.size()];
        while (picks_.size() <= index) picks_.push_back(servestat::detail::draw_below(rng_, workload_.rows.size()));
        return workload_.rows[picks_[index]];
    }

private:
    const prepared_workload& workload_;
    servestat::detail::xoshiro256 rng_;
    std::vector<std::uint64_t> picks_;
};

using observers = std::vector<std::unique_ptr<load::run_observer>>;

// done/total, ok/failed, rate and running latency percentiles on one line of a terminal, and what the
// run's observers add.
class progress {
public:
    progress(std::string label, std::optional<std::size_t> total, bool live, const observers& watching)
        : label_(std::move(label)), total_(total), live_(live), start_(load::steady::now()), watching_(watching) {}

    void add(const load::request_result& r) {
        ++done_;
        cancelled_ += r.status == request_status::cancelled;
        if (r.status == request_status::ok) {
            ++ok_;
            latencies_.push_back(r.t_end - r.t_sent);
        }
        if (!live_) return;
        const auto now = load::steady::now();
        if (now - last_draw_ < std::chrono::milliseconds(200) && done_ != total_.value_or(0)) return;
        last_draw_ = now;
        std::string added;
        for (const auto& o : watching_)
            if (auto text = o->progress(); !text.empty()) added += "; " + text;
        say(fmt::format("\r\033[K{}: {}{} done, {} ok, {} failed, {:.2f} req/s, e2e {}{}", label_, done_,
                        total_ ? fmt::format("/{}", *total_) : std::string(), ok_, done_ - ok_, rate(),
                        percentiles(), added));
    }

    void finish(const fs::path& log, const load::run_totals& totals) {
        if (live_) say("\r\033[K");
        std::string extra = fmt::format("; {} connection{} opened", totals.connections, totals.connections == 1 ? "" : "s");
        if (cancelled_ > 0) extra += fmt::format("; {} cancelled", cancelled_);
        if (totals.turns_not_sent > 0)
            extra += fmt::format("; {} later turns not sent (their session's turn failed)", totals.turns_not_sent);
        for (const auto& o : watching_)
            if (auto text = o->summary(); !text.empty()) extra += "; " + text;
        const std::string early = totals.stopped                  ? " (stopped early)"
                                  : !totals.drained_reason.empty() ? " (stopped sending: " + totals.drained_reason + ")"
                                                                   : "";
        say(fmt::format("servestat load: {}: {} requests, {} ok, {} failed in {:.1f} s, {:.2f} req/s, e2e {}{}{}; "
                        "log {}\n",
                        label_, done_, ok_, done_ - ok_, seconds(), rate(), percentiles(), early, extra,
                        log.string()));
    }

private:
    double seconds() const { return std::chrono::duration<double>(load::steady::now() - start_).count(); }
    double rate() const { return seconds() > 0 ? static_cast<double>(ok_) / seconds() : 0.0; }

    // numpy's linear percentiles, as the report will show them; a selection reorders the values,
    // which are a bag.
    std::string percentiles() {
        if (latencies_.empty()) return "p50 - p99 -";
        constexpr double ps[] = {50, 99};
        const auto v = percentiles_select(latencies_, ps);
        return fmt::format("p50 {:.3f} s p99 {:.3f} s", v[0], v[1]);
    }

    std::string label_;
    std::optional<std::size_t> total_;
    bool live_;
    load::steady::time_point start_;
    load::steady::time_point last_draw_{};
    std::size_t done_ = 0;
    std::size_t ok_ = 0;
    std::size_t cancelled_ = 0;
    std::vector<double> latencies_;
    const observers& watching_;
};

// One run: a load level (and server configuration) and where its log goes.
struct run_point {
    std::string label;
    fs::path log;
    nlohmann::ordered_json params = nlohmann::ordered_json::object(); // the swept and grid values
    load::load_pattern pattern;
    std::optional<load::steady::time_point> stop_at; // tune's budget: no new request after it
};

// Drains the run once its deadline has passed: the requests in flight end and are logged, so a time
// budget never loses a completed request. Checked as each request ends, which under load is often.
class deadline_observer final : public load::run_observer {
public:
    explicit deadline_observer(load::steady::time_point at) : at_(at) {}
    std::optional<load::stop_request> observe(const load::request_result&) override {
        if (load::steady::now() < at_) return std::nullopt;
        return load::stop_request{std::string(deadline_stop), "the tune's time budget ended"};
    }
    static constexpr const char* deadline_stop = "deadline";

private:
    load::steady::time_point at_;
};

// `concurrency` 0: not a closed loop; `rate` 0: not an open loop.
load::load_pattern pattern_for(const load_args& a, const prepared_workload& w, std::int32_t concurrency, double rate) {
    load::load_pattern p;
    p.requests = a.requests;
    p.duration = a.duration;
    p.max_concurrency = a.max_concurrency;
    if (!w.trace_times.empty()) {
        p.schedule = w.trace_times;
    } else if (rate > 0) {
        for (const auto& planned : load::plan_arrivals({.rate = rate, .burstiness = a.burstiness,
                                                        .constant = a.constant, .count = a.requests,
                                                        .duration = a.duration, .seed = a.seed}))
            p.schedule.push_back(planned.t_sched);
    } else {
        p.concurrency = concurrency;
        if (!a.requests && !a.duration) throw usage_error("give -n/--requests or --duration");
    }
    return p;
}

// The turns a session run will send at most: those of the sessions -n lets it start.
std::size_t session_turns(const prepared_workload& w, const load_args& a) {
    const auto count = std::min(w.sessions.size(), a.requests.value_or(w.sessions.size()));
    std::size_t turns = 0;
    for (std::size_t i = 0; i < count; ++i) turns += w.sessions[i].turns.size();
    return turns;
}

nlohmann::ordered_json run_header(const load_args& a, const run_point& point, const prepared_workload& w,
                                  const load::server_info& server, const std::string& started_at) {
    nlohmann::ordered_json params;
    for (const auto& [key, value] : point.params.items()) params[key] = value;
    const auto& p = point.pattern;
    if (!w.sessions.empty()) {
        params["sessions_in_flight"] = std::max(1, a.sessions_in_flight);
        params["sessions"] = std::min(w.sessions.size(), a.requests.value_or(w.sessions.size()));
        params["turns_total"] = session_turns(w, a);
    } else if (!w.trace_times.empty()) {
        params["arrivals"] = "trace";
        params["trace"] = fs::path(a.trace).filename().string();
        params["time_scale"] = a.trace_time_scale;
    } else if (p.is_open_loop()) {
        params["arrivals"] = a.constant ? "constant" : a.burstiness == 1.0 ? "poisson" : "gamma";
        if (!a.constant && a.burstiness != 1.0) params["burstiness"] = a.burstiness;
    } else {
        params["concurrency"] = p.concurrency;
    }
    if (p.is_open_loop() && p.max_concurrency > 0) params["max_concurrency"] = p.max_concurrency;
    if (a.requests && w.sessions.empty()) params["requests"] = *a.requests;
    if (a.duration) params["duration"] = *a.duration;
    if (!a.until.empty()) params["until"] = a.until;
    params["seed"] = a.seed;
    params["stream"] = !a.no_stream;
    if (a.max_tokens) params["max_tokens"] = *a.max_tokens;
    params["endpoint"] = responses_api(a) ? "responses" : "chat/completions";
    if (a.cancel_rate > 0) {
        params["cancel_rate"] = a.cancel_rate;
        params["cancel_after_seconds"] = a.cancel_after;
    }
    if (a.url.starts_with("https://"))
        params["tls_verify"] = a.insecure ? "off" : a.cacert.empty() ? "system CA store" : fs::path(a.cacert).filename().string();
    if (!a.headers.empty()) { // names only: values may be credentials
        auto names = nlohmann::ordered_json::array();
        for (const auto& h : a.headers) names.push_back(load::parse_header(h).first);
        params["headers"] = std::move(names);
    }
    const bool budgeted = !a.no_budget && w.sessions.empty();
    params["budget"] = budgeted;
    if (budgeted) {
        params["max_model_len"] = w.max_model_len;
        params["budget_margin"] = a.margin;
        params["min_output_tokens"] = a.min_output_tokens;
        params["head_fraction"] = a.head_fraction;
    }
    params["token_counts"] = w.token_source;
    if (a.warmup > 0) params["warmup"] = a.warmup;
    params["timeout"] = a.timeout;
    for (const auto& kv : a.params) {
        const auto eq = kv.find('=');
        if (eq == std::string::npos || eq == 0) throw usage_error(fmt::format("--param {}: expected key=value", kv));
        const auto value = kv.substr(eq + 1);
        const auto number = nlohmann::json::parse(value, nullptr, false);
        params[kv.substr(0, eq)] = number.is_discarded() || number.is_object() || number.is_array()
                                       ? nlohmann::json(value) : number;
    }
    nlohmann::ordered_json run;
    run["label"] = point.label;
    run["started_at"] = started_at;
    run["model"] = server.model;
    run["workload"] = w.name;
    run["params"] = std::move(params);
    run["tool"] = "servestat 0.1.0";
    run["url"] = a.url;
    run["server"] = server.card;
    return run;
}

std::string now_iso() {
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                        std::chrono::system_clock::now().time_since_epoch())
                        .count();
    return servestat::detail::iso_utc(ns, 3);
}

void save_metrics(const load_args& a, const load::driver& driver, const fs::path& log, const char* when) {
    if (!a.scrape_metrics) return;
    const auto& where = driver.where();
    auto text = load::scrape_metrics(where, driver.options());
    if (!text) {
        say(fmt::format("servestat load: {}/metrics is not available; nothing saved\n", where.url()));
        return;
    }
    auto file = log;
    file.replace_extension(fmt::format(".metrics-{}.prom", when));
    std::ofstream(file, std::ios::binary) << *text;
}

load::session_pattern session_pattern_for(const load_args& a) {
    return {.in_flight = std::max(1, a.sessions_in_flight), .sessions = a.requests, .duration = a.duration};
}

load::http_options http_options_for(const load_args& a, const load::endpoint& where); // below

// --scrape-interval: the server's /metrics sampled during the run, beside its log.
std::unique_ptr<load::run_observer> metrics_sampler_for(const load_args& a, const fs::path& log) {
    const auto where = load::parse_url(a.url);
    return std::make_unique<load::metrics_sampler>(where, http_options_for(a, where), a.scrape_interval, log);
}

// The power endpoint is another host (DCGM's exporter beside the GPUs): the server's key and headers
// are not sent there; its TLS is verified as --cacert and --insecure say.
load::http_options power_http_options_for(const load_args& a, const load::endpoint& where) {
    load::http_options o{.timeout = a.timeout};
    if (where.tls) o.tls = load::make_tls_context({.ca_file = a.cacert, .insecure = a.insecure});
    return o;
}

// --power-url: that endpoint sampled on --scrape-interval's schedule, beside the log.
std::unique_ptr<load::run_observer> power_sampler_for(const load_args& a, const fs::path& log) {
    auto what = load::power_endpoint(load::parse_scrape_url(a.power_url, "--power-url"), log);
    auto options = power_http_options_for(a, what.where);
    return std::make_unique<load::metrics_sampler>(std::move(what), std::move(options), a.scrape_interval);
}

// What watches one run (each sweep level gets its own).
observers observers_for(const load_args& a, const run_point& point, const load::driver& driver) {
    observers out;
    out.push_back(std::make_unique<load::failure_guard>(
        load::failure_guard_options{a.max_connection_failures, a.max_error_rate, a.error_window, a.url}));
    if (a.scrape_interval > 0) out.push_back(metrics_sampler_for(a, point.log));
    if (!a.power_url.empty()) out.push_back(power_sampler_for(a, point.log));
    out.push_back(std::make_unique<load::self_measure>());
    if (point.stop_at) out.push_back(std::make_unique<deadline_observer>(*point.stop_at));
    if (!a.until.empty())
        out.push_back(std::make_unique<load::precision_observer>(load::parse_precision_targets(a.until, true),
                                                                 [&driver] { return driver.in_flight(); }));
    return out;
}

// The header's run.end: how the run ended, and what each observer found.
nlohmann::ordered_json run_end(const load::run_totals& totals, const observers& watching) {
    nlohmann::ordered_json end;
    end["reason"] = totals.stopped ? "interrupted" : totals.drained_kind.empty() ? "completed" : totals.drained_kind;
    if (!totals.drained_reason.empty()) end["detail"] = totals.drained_reason;
    end["requests_sent"] = totals.sent;
    end["wall_seconds"] = totals.wall_seconds;
    for (const auto& o : watching) o->finished(end);
    return end;
}

// Runs one point; returns the totals, or throws on what stops the whole command.
load::run_totals run_one(const load_args& a, load::driver& driver, const run_point& point, const prepared_workload& w,
                         const load::server_info& server) {
    request_order order(w, a.seed);
    const auto plan = [&order](std::size_t i) -> const load::planned_request& { return order(i); };
    if (a.warmup > 0) {
        load::load_pattern warm;
        const std::int32_t in_flight =
            point.pattern.is_open_loop() ? point.pattern.max_concurrency : point.pattern.concurrency;
        warm.concurrency = std::max(1, std::min(static_cast<std::int32_t>(a.warmup), in_flight));
        warm.requests = a.warmup;
        request_order warm_order(w, a.seed ^ 0x5741524dULL);
        const auto warm_plan = [&warm_order](std::size_t i) -> const load::planned_request& { return warm_order(i); };
        const auto totals = driver.run(warm, warm_plan, [](const load::request_result&) {});
        if (totals.stopped) return totals;
    }
    save_metrics(a, driver, point.log, "before");
    load::log_writer log(point.log);
    auto header = run_header(a, point, w, server, now_iso());
    log.write(load::header_line(header));
    const auto watching = observers_for(a, point, driver);
    for (const auto& o : watching) // the self-measurement also hooks into the driver
        if (auto* probe = dynamic_cast<load::run_probe*>(o.get())) driver.set_probe(probe);
    driver.on_start([&watching](load::steady::time_point t) {
        for (const auto& o : watching) o->started(t);
    });
    const bool sessions = !w.sessions.empty();
    const std::optional<std::size_t> total = sessions ? std::optional<std::size_t>(session_turns(w, a))
                                             : point.pattern.is_open_loop()
                                                 ? std::optional<std::size_t>(point.pattern.schedule.size())
                                                 : a.requests;
    progress shown(point.label, a.duration && !point.pattern.is_open_loop() ? std::nullopt : total,
                   !a.quiet && ::isatty(STDERR_FILENO), watching);
    const auto record = [&](const load::request_result& r) {
        log.write(load::log_line(r));
        for (const auto& o : watching)
            if (auto stop = o->observe(r)) driver.drain(std::move(stop->kind), std::move(stop->reason));
        shown.add(r);
    };
    const auto totals = sessions ? driver.run_sessions(session_pattern_for(a), w.sessions, w.session_options, record)
                                 : driver.run(point.pattern, plan, record);
    driver.on_start({});
    driver.set_probe(nullptr);
    header["end"] = run_end(totals, watching);
    log.rewrite_header(load::header_line(header));
    shown.finish(point.log, totals);
    save_metrics(a, driver, point.log, "after");
    return totals;
}

std::string level_suffix(const run_point& p, const load_args& a) {
    if (!a.trace.empty()) return "trace";
    if (p.pattern.is_open_loop()) return fmt::format("r{}", a.rate.value_or(0.0));
    return fmt::format("c{}", p.pattern.concurrency);
}

// The key, the headers and TLS as the options say. The key never goes further than the request's
// Authorization header: not into the log, the manifest or a message.
load::http_options http_options_for(const load_args& a, const load::endpoint& where) {
    load::http_options o{.api_key = a.api_key, .timeout = a.timeout};
    if (!a.api_key_env.empty()) {
        const char* key = std::getenv(a.api_key_env.c_str());
        if (!key || !*key) throw usage_error(fmt::format("--api-key-env {}: the variable is not set", a.api_key_env));
        o.api_key = key;
    }
    for (const auto& h : a.headers) o.headers.push_back(load::parse_header(h));
    if (where.tls) o.tls = load::make_tls_context({.ca_file = a.cacert, .insecure = a.insecure});
    else if ((!a.cacert.empty() || a.insecure) && !a.power_url.starts_with("https://"))
        throw usage_error("--cacert and --insecure are for https:// URLs");
    return o;
}

// /v1/models' answer; when the server cannot be reached at all and the run needs nothing from it
// (--model given, and --max-model-len or --no-budget), the run goes ahead and every request logs
// why it failed, as it would had the server gone away mid-run.
load::server_info server_info_for(const load_args& a, const load::endpoint& where, const load::http_options& options) {
    try {
        return load::read_models(where, options, a.model);
    } catch (const load::unreachable_error& e) {
        if (a.model.empty() || (!a.max_model_len && !a.no_budget)) throw;
        const auto stops = a.max_connection_failures == 0 ? std::string()
                           : fmt::format(" (the run stops after {} in a row, --max-connection-failures)",
                                         a.max_connection_failures);
        say(fmt::format("servestat load: {}; running with --model {} anyway: each request will log why it failed{}\n",
                        e.what(), a.model, stops));
        return {a.model, a.max_model_len, nlohmann::json()};
    }
}

// --cancel-rate P --cancel-after DIST: whether request `key` is cancelled and when, drawn from the
// seed and the key alone, so a seed cancels the same requests after the same delays every run.
load::driver::cancel_function cancellation_for(const load_args& a) {
    if (a.cancel_rate <= 0) {
        if (!a.cancel_after.empty()) throw usage_error("--cancel-after needs --cancel-rate");
        return {};
    }
    if (a.cancel_after.empty()) throw usage_error("--cancel-rate needs --cancel-after SECONDS (a number or a distribution)");
    const auto after = load::distribution::parse(a.cancel_after, "--cancel-after");
    return [after, rate = a.cancel_rate, seed = a.seed](std::size_t key) -> std::optional<double> {
        servestat::detail::xoshiro256 rng(servestat::detail::mix64(seed ^ 0x63616e63656c6c73ULL) ^ key);
        if (1.0 - servestat::detail::uniform_open_closed(rng) >= rate) return std::nullopt;
        return after.draw(rng);
    };
}

load::driver make_driver(boost::asio::io_context& io, const load::endpoint& where, const load::http_options& options,
                         const load_args& a) {
    load::driver d(io, where, options);
    d.set_cancellation(cancellation_for(a));
    return d;
}

// The command's exit status for a run (docs/load.md#exit-codes).
int exit_code_for(const load::run_totals& totals) {
    if (totals.stopped) return exit_interrupted;
    return load::is_failure_stop(totals.drained_kind) ? exit_server_failing : 0;
}

// A single run's exit status, said on stderr when the failure guard stopped it.
int single_run_code(const load::run_totals& totals) {
    const int code = exit_code_for(totals);
    if (code == exit_server_failing)
        say(fmt::format("servestat load: stopped early: {}; the log holds every request sent (exit {})\n",
                        totals.drained_reason, code));
    return code;
}

int run_single(const load_args& a, const load::endpoint& where) {
    const auto options = http_options_for(a, where);
    const auto server = server_info_for(a, where, options);
    const auto w = prepare_workload(a, where, options, server);
    if (w.sessions.empty() && !a.concurrency && !a.rate && a.trace.empty())
        throw usage_error("give --concurrency, --rate or --trace");
    boost::asio::io_context io;
    load::driver driver = make_driver(io, where, options, a);
    run_point point;
    if (!w.sessions.empty()) {
        point.log = a.output;
        point.label = a.label.empty() ? fmt::format("{}-s{}", w.name, std::max(1, a.sessions_in_flight)) : a.label;
        const auto totals = run_one(a, driver, point, w, server);
        return single_run_code(totals);
    }
    point.pattern = pattern_for(a, w, a.concurrency.value_or(0), a.rate.value_or(0.0));
    point.log = a.output;
    point.label = a.label.empty() ? fmt::format("{}-{}", w.name, level_suffix(point, a)) : a.label;
    if (w.trimmed > 0)
        say(fmt::format("servestat load: {} of {} workload rows trimmed to fit the context window\n", w.trimmed,
                        w.rows.size()));
    const auto totals = run_one(a, driver, point, w, server);
    return single_run_code(totals);
}

// --sweep concurrency=auto or rate=auto: the levels are chosen as the sweep goes (load/auto_sweep.hpp).
bool auto_sweep_asked(const load_args& a) { return a.sweep == "concurrency=auto" || a.sweep == "rate=auto"; }

load::auto_sweep_settings auto_settings_for(const load_args& a) {
    load::auto_sweep_settings s;
    s.parameter = a.sweep.starts_with("rate") ? load::auto_parameter::rate : load::auto_parameter::concurrency;
    s.start = a.auto_start.value_or(1);
    s.max = a.auto_max;
    s.gain = a.auto_gain;
    s.resolution = a.auto_resolution;
    s.max_error = a.auto_max_error;
    s.max_levels = a.auto_levels;
    s.slos = parse_slos(a.slo);
    load::validate(s);
    return s;
}

// The auto sweep's options mean nothing elsewhere: a usage error rather than silently ignored.
void check_auto_options(const load_args& a) {
    if (auto_sweep_asked(a)) return;
    const load_args defaults;
    if (a.auto_start || a.auto_max || !a.slo.empty() || a.auto_gain != defaults.auto_gain ||
        a.auto_resolution != defaults.auto_resolution || a.auto_max_error != defaults.auto_max_error ||
        a.auto_levels != defaults.auto_levels)
        throw usage_error("--auto-start, --auto-max, --auto-gain, --auto-resolution, --auto-max-error, --auto-levels and "
                          "--slo steer an auto sweep: give --sweep concurrency=auto or rate=auto (for a fixed sweep, "
                          "give --slo to `servestat report`)");
}

nlohmann::ordered_json sweep_settings(const load_args& a) {
    nlohmann::ordered_json s;
    s["url"] = a.url;
    s["model"] = a.model;
    s["workload"] = a.workload;
    s["trace"] = a.trace;
    s["requests"] = a.requests ? nlohmann::ordered_json(*a.requests) : nlohmann::ordered_json();
    s["duration"] = a.duration ? nlohmann::ordered_json(*a.duration) : nlohmann::ordered_json();
    if (!a.until.empty()) s["until"] = a.until; // only when given: manifests written before --until compare equal
    s["seed"] = a.seed;
    s["sweep"] = a.sweep;
    s["grid"] = a.grid;
    s["server_cmd"] = a.server_cmd;
    s["stream"] = !a.no_stream;
    s["budget"] = !a.no_budget;
    s["max_tokens"] = a.max_tokens ? nlohmann::ordered_json(*a.max_tokens) : nlohmann::ordered_json();
    s["extra"] = a.extra;
    s["warmup"] = a.warmup;
    s["burstiness"] = a.burstiness;
    s["constant"] = a.constant;
    s["max_concurrency"] = a.max_concurrency;
    s["params"] = a.params;
    if (auto_sweep_asked(a)) s["auto"] = load::auto_sweep::settings_json(auto_settings_for(a));
    return s;
}

// The swept dimension: concurrency (closed loop) or rate (open loop); none sweeps only the grid. An
// auto sweep has the key and no values.
load::dimension swept_dimension(const load_args& a) {
    if (a.sweep.empty()) {
        if (a.concurrency) return {"concurrency", {*a.concurrency}};
        if (a.rate) return {"rate", {*a.rate}};
        if (!a.trace.empty()) return {"", {nullptr}};
        throw usage_error("give --sweep, --concurrency, --rate or --trace");
    }
    auto d = load::parse_dimension(a.sweep, "--sweep");
    if (d.key != "concurrency" && d.key != "rate")
        throw usage_error(fmt::format("--sweep {}: sweeps concurrency or rate", a.sweep));
    if (a.concurrency || a.rate) throw usage_error("--sweep replaces --concurrency and --rate");
    if (auto_sweep_asked(a)) {
        d.values.clear();
        return d;
    }
    for (const auto& v : d.values)
        if (!v.is_number() || v.get<double>() <= 0 || (d.key == "concurrency" && !v.is_number_integer()))
            throw usage_error(fmt::format("--sweep {}: values must be positive {}", a.sweep,
                                          d.key == "concurrency" ? "integers" : "numbers"));
    return d;
}

class sweep_runner {
public:
    sweep_runner(const load_args& a, const load::endpoint& where)
        : a_(a), where_(where), options_(http_options_for(a, where)), dir_(a.output) {
        swept_ = swept_dimension(a);
        if (auto_sweep_asked(a)) auto_ = auto_settings_for(a);
        for (const auto& g : a.grid) grid_.push_back(load::parse_dimension(g, "--grid"));
        if (!grid_.empty() && a.server_cmd.empty())
            throw usage_error("--grid needs --server-cmd: the grid's values configure the server it starts");
        if (fs::exists(dir_) && !fs::is_directory(dir_))
            throw usage_error(fmt::format("-o {}: a sweep writes a directory of logs, and this is a file", a.output));
        app::create_output_folder(dir_);
        manifest_.settings = sweep_settings(a);
        if (a.resume) {
            auto previous = load::read_manifest(dir_);
            for (const auto& change : load::changed_settings(previous.settings, manifest_.settings))
                say(fmt::format("servestat load: warning: the manifest was written with other settings ({}); "
                                "resuming anyway\n", change));
            manifest_.points = std::move(previous.points);
        }
    }

    int run() {
        for (const auto& config : load::combinations(grid_)) {
            const int code = run_configuration(config);
            if (code != 0) return code;
        }
        std::size_t failed = 0, stopped = 0, not_run = 0;
        for (const auto& p : manifest_.points) {
            stopped += p.status == "stopped";
            not_run += p.status == "not_run";
            failed += p.status != "done" && p.status != "stopped" && p.status != "not_run";
        }
        const auto early = stopped == 0 ? std::string()
                                        : fmt::format(", {} stopped early (the server was gone or failing), {} not run",
                                                      stopped, not_run);
        say(fmt::format("servestat load: sweep done, {} points, {} failed{}; manifest {}\n", manifest_.points.size(),
                        failed, early, (dir_ / load::manifest_file_name).string()));
        return guard_stops_ > 0 ? exit_server_failing : 0;
    }

private:
    std::string point_label(const std::string& workload, const nlohmann::ordered_json& config,
                            const nlohmann::ordered_json& level) const {
        std::string label = a_.label.empty() ? workload : a_.label;
        if (!config.empty()) label += "-" + load::configuration_name(config);
        if (swept_.key == "concurrency") label += "-c" + load::value_text(level);
        else if (swept_.key == "rate") label += "-r" + load::value_text(level);
        return label;
    }

    bool recorded_done(const std::string& label) const {
        const auto* p = manifest_.find(label);
        return p && p->status == "done" && fs::exists(dir_ / p->log);
    }
    bool done(const std::string& label) const { return a_.resume && recorded_done(label); }

    void record(const std::string& label, const nlohmann::ordered_json& params, std::string status, std::string error,
                std::size_t requests = 0, std::size_t ok = 0) {
        manifest_.record({label, label + ".jsonl", params, std::move(status), std::move(error), requests, ok});
        load::write_manifest(dir_, manifest_);
        if (planner_ && !planner_->done()) auto_recorded(*manifest_.find(label));
    }

    // Points of a configuration by label, skipping those a resumed manifest has done.
    std::vector<std::pair<std::string, nlohmann::ordered_json>> pending(const std::string& workload,
                                                                       const nlohmann::ordered_json& config) {
        std::vector<std::pair<std::string, nlohmann::ordered_json>> out;
        if (auto_) { // the planner's first level (on --resume, the first it chooses that is not done)
            planner_.emplace(*auto_);
            advance_auto(out, config);
            return out;
        }
        for (const auto& level : swept_.values) {
            const auto label = point_label(workload, config, level);
            if (done(label)) {
                say(fmt::format("servestat load: {} is done (manifest); skipped\n", label));
                continue;
            }
            out.emplace_back(label, level);
        }
        return out;
    }

    nlohmann::ordered_json params_of(const nlohmann::ordered_json& config, const nlohmann::ordered_json& level) const {
        auto params = config;
        if (!swept_.key.empty()) params[swept_.key] = level;
        return params;
    }

    std::string workload_name() const {
        return fs::path(a_.workload.empty() ? a_.trace : a_.workload).stem().string();
    }

    // The failure guard stopped level `i` of a configuration: its server is gone or failing. The level
    // is recorded `stopped` with the reason (its log holds every request sent), the configuration's
    // later levels `not_run` (--resume runs both again). Without --server-cmd the sweep ends here;
    // with it, this configuration ends and the next one starts its own server.
    void record_stop(const nlohmann::ordered_json& config,
                     const std::vector<std::pair<std::string, nlohmann::ordered_json>>& todo, std::size_t i,
                     const load::run_totals& totals, std::optional<load::server_process>& server,
                     const fs::path& server_log) {
        ++guard_stops_;
        const auto& label = todo[i].first;
        auto why = totals.drained_reason;
        if (server && !server->running()) why += fmt::format("; the server {}", server->exit_status());
        record(label, params_of(config, todo[i].second), "stopped", why, totals.sent, totals.ok);
        for (std::size_t k = i + 1; k < todo.size(); ++k)
            record(todo[k].first, params_of(config, todo[k].second), "not_run",
                   fmt::format("not run: {} stopped early ({})", label, totals.drained_kind));
        const std::size_t later = todo.size() - i - 1;
        const auto rest = later == 0 ? std::string() : fmt::format("; {} later level{} not run", later, later == 1 ? "" : "s");
        if (server)
            say(fmt::format("servestat load: {} stopped early: {}{}; going on with the next configuration; last lines "
                            "of {}:\n{}", label, why, rest, server_log.string(), load::tail_lines(server_log, 20)));
        else
            say(fmt::format("servestat load: sweep stopped at {}: {}{}; manifest {} (exit {})\n", label, why, rest,
                            (dir_ / load::manifest_file_name).string(), exit_server_failing));
    }

    // ---- --sweep concurrency=auto / rate=auto (load/auto_sweep.hpp, docs/load.md#finding-the-knee) ----

    // A level as logs and labels keep it: a whole number as an integer ("-c12", "-r2"), else "-r22.6".
    static nlohmann::ordered_json level_json(double load) {
        if (load == std::floor(load) && load < 1e15) return static_cast<std::int64_t>(load);
        return load;
    }

    // A level's results from its own log, read back with the library as `servestat stats` reads it.
    load::level_result auto_level_result(const std::string& label, double load) const {
        stats_options o;
        o.summary.percentiles = {50, 90, 99, auto_->slo_percentile};
        o.threads = 1;
        return load::level_result_of(analyze_log(dir_ / (label + ".jsonl"), o), load, *auto_);
    }

    // What the manifest keeps of this configuration's auto sweep; `ended` says why it ended short of
    // its plan (a level failed or was interrupted).
    void save_auto_outcome(const nlohmann::ordered_json& config, const std::string& ended = {}) {
        nlohmann::ordered_json entry;
        entry["configuration"] = config;
        const auto outcome = planner_->to_json();
        for (const auto& [key, value] : outcome.items())
            if (key != "settings") entry[key] = value; // in the manifest's settings.auto
        if (!ended.empty()) entry["ended"] = ended;
        auto& all = manifest_.auto_sweeps;
        auto same = std::find_if(all.begin(), all.end(), [&](const auto& e) { return e["configuration"] == config; });
        if (same != all.end()) *same = std::move(entry);
        else all.push_back(std::move(entry));
        load::write_manifest(dir_, manifest_);
    }

    // A level of the auto sweep was recorded: done or stopped by the failure guard, the planner
    // reads its log (a guard stop ends the sweep); failed or interrupted, the sweep ends there.
    void auto_recorded(const load::manifest_point& p) {
        auto config = p.params;
        if (!config.contains(swept_.key)) return;
        const double load = config[swept_.key].get<double>();
        config.erase(swept_.key);
        if (p.status == "done" || p.status == "stopped") {
            say("servestat load: " + planner_->add(auto_level_result(p.label, load)) + "\n");
            save_auto_outcome(config);
        } else {
            save_auto_outcome(config, fmt::format("{} {}: {}", p.label, p.status, p.error));
        }
    }

    // Appends the planner's next level to `todo`; on --resume a level the manifest has done is read
    // back from its log instead of run. Says how the sweep ended once the planner has no next level.
    void advance_auto(std::vector<std::pair<std::string, nlohmann::ordered_json>>& todo,
                      const nlohmann::ordered_json& config) {
        while (const auto next = planner_->next()) {
            const auto level = level_json(*next);
            auto label = point_label(workload_name(), config, level);
            if (!done(label)) {
                todo.emplace_back(std::move(label), level);
                return;
            }
            say(fmt::format("servestat load: {} is done (manifest); its log is read back\n", label));
            say("servestat load: " + planner_->add(auto_level_result(label, *next)) + "\n");
            save_auto_outcome(config);
        }
        save_auto_outcome(config);
        const auto found = planner_->conclusion();
        say(fmt::format("servestat load: auto sweep{}, {} levels: {}\n",
                        config.empty() ? "" : " (" + load::configuration_name(config) + ")", planner_->levels().size(),
                        found.empty() ? planner_->climb_text() : found));
    }

    int run_configuration(const nlohmann::ordered_json& config) {
        auto todo = pending(workload_name(), config);
        if (todo.empty()) return 0;
        std::optional<load::server_process> server;
        fs::path server_log;
        if (!a_.server_cmd.empty()) {
            const auto command = load::substitute(a_.server_cmd, config);
            server_log = dir_ / fmt::format("server{}.log", config.empty() ? "" : "-" + load::configuration_name(config));
            say(fmt::format("servestat load: starting the server: {}\n", command));
            server.emplace(command, server_log);
            const bool ready = load::wait_until_ready(where_, options_, a_.server_timeout,
                                                      [&server] { return server->running(); });
            if (!ready) {
                const auto why = server->running()
                                     ? fmt::format("not ready within {} s", a_.server_timeout)
                                     : fmt::format("the server {} before it was ready", server->exit_status());
                say(fmt::format("servestat load: {}; last lines of {}:\n{}", why, server_log.string(),
                                load::tail_lines(server_log, 20)));
                for (const auto& [label, level] : todo) record(label, params_of(config, level), "failed", why);
                return 0;
            }
        }
        try {
            const auto info = load::read_models(where_, options_, a_.model);
            const auto w = prepare_workload(a_, where_, options_, info);
            if (!w.sessions.empty()) throw usage_error("a session workload is not swept (give --sessions-in-flight)");
            boost::asio::io_context io;
            load::driver driver = make_driver(io, where_, options_, a_);
            for (std::size_t i = 0; i < todo.size(); ++i) {
                const auto& [label, level] = todo[i];
                run_point point;
                point.label = label;
                point.log = dir_ / (label + ".jsonl");
                point.params = params_of(config, level);
                const auto concurrency = swept_.key == "concurrency" ? level.get<std::int32_t>() : 0;
                const auto rate = swept_.key == "rate" ? level.get<double>() : 0.0;
                point.pattern = pattern_for(a_, w, concurrency, rate);
                if (server && !server->running()) {
                    record(label, point.params, "failed", fmt::format("the server {}", server->exit_status()));
                    continue;
                }
                const auto totals = run_one(a_, driver, point, w, info);
                if (totals.stopped) {
                    record(label, point.params, "interrupted", "stopped by a signal", totals.sent, totals.ok);
                    return exit_interrupted;
                }
                if (load::is_failure_stop(totals.drained_kind)) { // the failure guard: see record_stop
                    record_stop(config, todo, i, totals, server, server_log);
                    return server ? 0 : exit_server_failing;
                }
                if (server && !server->running()) {
                    say(fmt::format("servestat load: the server {} during {}; last lines of {}:\n{}",
                                    server->exit_status(), label, server_log.string(), load::tail_lines(server_log, 20)));
                    record(label, point.params, "failed", fmt::format("the server {} during the run",
                                                                      server->exit_status()), totals.sent, totals.ok);
                    continue;
                }
                record(label, point.params, "done", "", totals.sent, totals.ok);
                if (planner_) advance_auto(todo, config); // the level the planner chooses next, if any
            }
        } catch (const servestat::error& e) {
            if (!server) throw;
            say(fmt::format("servestat load: {}; last lines of {}:\n{}", e.what(), server_log.string(),
                            load::tail_lines(server_log, 20)));
            for (const auto& [label, level] : todo)
                if (!recorded_done(label)) record(label, params_of(config, level), "failed", e.what());
        }
        return 0;
    }

    const load_args& a_;
    const load::endpoint& where_;
    load::http_options options_;
    fs::path dir_;
    load::dimension swept_;
    std::vector<load::dimension> grid_;
    load::manifest manifest_;
    std::size_t guard_stops_ = 0; // levels the failure guard stopped in this invocation
    std::optional<load::auto_sweep_settings> auto_; // --sweep concurrency=auto / rate=auto
    std::optional<load::auto_sweep> planner_;        // the current configuration's auto sweep
};

} // namespace

load::token_counter server_token_counter_for(const std::string& url, const std::string& api_key,
                                             const std::string& model) {
    const auto where = load::parse_url(url);
    load::http_options options{.api_key = api_key};
    if (where.tls) options.tls = load::make_tls_context({});
    const auto server = load::read_models(where, options, model);
    auto counter = load::server_token_counter(where, options, server.model);
    counter.text("hello");
    return counter;
}

// --power-url rides on --scrape-interval's schedule; its URL is checked before any request.
void check_power_options(const load_args& a) {
    if (a.power_url.empty()) return;
    if (a.scrape_interval <= 0)
        throw usage_error("--power-url is sampled on --scrape-interval's schedule: give --scrape-interval S as well "
                          "(e.g. --scrape-interval 1)");
    load::parse_scrape_url(a.power_url, "--power-url");
}

// ---- level_runner (load_command.hpp): tune's servers and levels ----

struct level_runner::state {
    explicit state(const load_args& args) : a(args), where(load::parse_url(args.url)) {}
    const load_args& a;
    load::endpoint where;
    load::http_options options;
    std::optional<load::server_process> server;
    std::optional<load::server_info> info;
    std::optional<prepared_workload> workload;
};

level_runner::level_runner(const load_args& a) : state_(std::make_unique<state>(a)) {
    state_->options = http_options_for(a, state_->where);
}

level_runner::~level_runner() = default;

std::string level_runner::start_server(const std::string& command, const fs::path& log, double timeout,
                                       const std::function<bool()>& keep_waiting) {
    auto& s = *state_;
    s.server.emplace(command, log);
    const bool ready = load::wait_until_ready(s.where, s.options, timeout,
                                              [&] { return s.server->running() && keep_waiting(); });
    if (!ready) {
        const auto why = !keep_waiting()       ? std::string("interrupted while it started")
                         : s.server->running() ? fmt::format("not ready within {} s", timeout)
                                               : fmt::format("the server {} before it was ready", s.server->exit_status());
        s.server.reset();
        return why;
    }
    if (!s.workload) { // the first server that answers tells the model, its context and its tokenizer
        s.info = load::read_models(s.where, s.options, s.a.model);
        s.workload = prepare_workload(s.a, s.where, s.options, *s.info);
        if (!s.workload->sessions.empty()) throw usage_error("tune runs closed-loop levels: a session workload is not tuned");
    }
    return {};
}

std::string level_runner::server_gone() {
    auto& s = *state_;
    if (!s.server) return "not started";
    return s.server->running() ? std::string() : s.server->exit_status();
}

void level_runner::stop_server() { state_->server.reset(); }

level_runner::outcome level_runner::run(const std::string& label, const fs::path& log,
                                        const nlohmann::ordered_json& params, std::int32_t concurrency,
                                        load::steady::time_point deadline) {
    auto& s = *state_;
    run_point point;
    point.label = label;
    point.log = log;
    point.params = params;
    point.pattern = pattern_for(s.a, *s.workload, concurrency, 0.0);
    point.stop_at = deadline;
    boost::asio::io_context io;
    load::driver driver = make_driver(io, s.where, s.options, s.a);
    const auto totals = run_one(s.a, driver, point, *s.workload, *s.info);
    return {totals.stopped, totals.drained_kind == deadline_observer::deadline_stop, totals.sent, totals.ok};
}

int run_load_command(const load_args& a) {
    check_auto_options(a);
    check_power_options(a);
    load::parse_precision_targets(a.until, a.requests || a.duration || !a.trace.empty()); // usage errors before any request
    const auto where = load::parse_url(a.url);
    if (!a.sweep.empty() || !a.grid.empty()) return sweep_runner(a, where).run();
    return run_single(a, where);
}

} // namespace servestat::cli
