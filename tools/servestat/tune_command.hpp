// `servestat tune`: the search over server settings (load/tune_search.hpp), each configuration's
// objective measured against a server started for it (load/tune_objective.hpp, level_runner in
// load.cpp), kept in a manifest that --resume continues, and its report. Compiled in main.cpp, which
// has the readers and the report for stats and report anyway. docs/tune.md.
#pragma once

#include <algorithm>  // std::max, std::find_if, std::sort
#include <chrono>     // std::chrono::steady_clock, std::chrono::duration
#include <cmath>      // std::floor, std::isfinite
#include <csignal>    // std::signal, SIGINT, SIGTERM, std::sig_atomic_t
#include <cstddef>    // std::size_t
#include <cstdint>    // std::int32_t
#include <filesystem> // std::filesystem
#include <fstream>    // std::ofstream, std::ifstream
#include <limits>     // std::numeric_limits
#include <map>        // std::map
#include <optional>   // std::optional
#include <string>     // std::string
#include <vector>     // std::vector

#include <CLI/CLI.hpp>       // CLI::App
#include <fmt/format.h>      // fmt::format
#include <nlohmann/json.hpp> // nlohmann::ordered_json

#include <servestat/app/output_folder.hpp>     // app::create_output_folder
#include <servestat/core/errors.hpp>           // usage_error, input_error
#include <servestat/core/visible_controls.hpp> // write_terminal
#include <servestat/load/sweep_plan.hpp>       // parse_dimension, tail_lines, value_text, write_manifest_file
#include <servestat/load/tune_objective.hpp>   // tune_level, next_tune_load, measure_objective, estimate_capacity
#include <servestat/load/tune_search.hpp>      // plan_tune, tune_plan
#include <servestat/load/tune_space.hpp>       // parse_space, server_command, configuration_name
#include <servestat/report/tune_report.hpp>    // render_tune_report
#include <servestat/stats/run_stats.hpp>       // stats_options, run_stats, find_summary

#include "level_stats.hpp"    // analyze_log
#include "load_command.hpp"   // load_args, level_runner
#include "load_options.hpp"   // add_connection_options, add_request_options

namespace servestat::cli {

struct tune_args {
    // Every measurement starts a cold server: each level sends 10 requests first, left out of its log,
    // unless --warmup says otherwise.
    tune_args() { load.warmup = 10; }
    load_args load; // the server, the workload and how requests are made; load.output is the folder
    std::vector<std::string> space;
    std::string server_cmd;
    double server_timeout = 900;
    std::string slo;
    double slo_percentile = 95;
    std::string objective = "capacity";
    std::string budget;
    std::vector<std::string> start; // key=value per dimension: the settings to beat
    double load_start = 1, load_max = 256, resolution = 0.125, max_error = 0.05;
    std::size_t levels = 10;
    double config_timeout = 0; // seconds of levels per measurement; 0: no cap
    std::int32_t short_max = 64, long_min = 2048;
    std::optional<double> cost_per_hour;
    std::optional<int> gpus;
    std::vector<std::string> fail_on;
    std::string title;
    bool resume = false;
};

inline void add_tune_options(CLI::App& cmd, tune_args& a) {
    add_connection_options(cmd, a.load);
    cmd.add_option("-o,--output", a.load.output, "Folder for the logs, the server logs, tune-manifest.json and the "
                                                 "report (tune.md, tune.html, tune.json)")
        ->required();
    cmd.add_option("--space", a.space, "A server setting and its values: NAME=LO..HI (LO, the powers of two "
                                       "between, HI) or NAME=a,b,c (repeatable)")
        ->required()
        ->allow_extra_args(false);
    cmd.add_option("--server-cmd", a.server_cmd, "Command that starts the server, with a {NAME} placeholder per "
                                                 "--space; started once per measurement")
        ->required();
    cmd.add_option("--server-timeout", a.server_timeout, "Seconds to wait for a started server's /v1/models")
        ->capture_default_str();
    cmd.add_option("--slo", a.slo, "SLOs in seconds, each optionally over a subset: short:ttft=0.5,e2e=20 (a level "
                                   "meets them when each percentile does)")
        ->required();
    cmd.add_option("--slo-percentile", a.slo_percentile, "The percentile each SLO bounds")->capture_default_str();
    cmd.add_option("--objective", a.objective, "capacity (the largest concurrency meeting the SLOs), throughput or "
                                               "cost-per-good-token (needs --cost-per-hour)")
        ->check(CLI::IsMember({"capacity", "throughput", "cost-per-good-token"}))
        ->capture_default_str();
    cmd.add_option("--budget", a.budget, "Wall-clock time the whole search may take, e.g. 2h, 90m, 600s: a hard "
                                         "limit, counted over --resume")
        ->required();
    cmd.add_option("--start", a.start, "The settings in use, NAME=VALUE per --space (repeatable): measured first, "
                                       "and the recommendation's gain is against them")
        ->allow_extra_args(false);
    cmd.add_option("--load-start", a.load_start, "Each configuration's first concurrency")->capture_default_str();
    cmd.add_option("--load-max", a.load_max, "Each configuration's highest concurrency")->capture_default_str();
    cmd.add_option("--resolution", a.resolution, "Bisect each configuration's capacity to +-this share")
        ->capture_default_str();
    cmd.add_option("--levels", a.levels, "Load levels per measurement at most")->capture_default_str();
    cmd.add_option("--max-error", a.max_error, "A level fails when its error rate exceeds the lowest below it by "
                                               "more than this")
        ->capture_default_str();
    cmd.add_option("--config-timeout", a.config_timeout, "Seconds one measurement may take, its server's start "
                                                         "included; then its objective is judged on the levels run")
        ->check(CLI::PositiveNumber);
    cmd.add_option("--short-max", a.short_max, "Short prompts: at most this many tokens")->capture_default_str();
    cmd.add_option("--long-min", a.long_min, "Long prompts: at least this many tokens")->capture_default_str();
    cmd.add_option("--cost-per-hour", a.cost_per_hour, "USD per hour of the deployment (or per GPU with --gpus)")
        ->check(CLI::PositiveNumber);
    cmd.add_option("--gpus", a.gpus, "GPUs the deployment runs on, each at --cost-per-hour")->check(CLI::PositiveNumber);
    cmd.add_option("--fail-on", a.fail_on, "Exit 1 when: start-beaten (a configuration is told apart as better than "
                                           "--start), undecided (the best is not told apart from the runner-up), "
                                           "nothing-feasible")
        ->delimiter(',')
        ->check(CLI::IsMember({"start-beaten", "undecided", "nothing-feasible"}));
    cmd.add_option("--title", a.title, "Report title");
    cmd.add_flag("--resume", a.resume, "Go on from the folder's tune-manifest.json: only what is missing is measured");
    add_request_options(cmd, a.load);
}

namespace tune_detail {

namespace fs = std::filesystem;
using clock = std::chrono::steady_clock;

inline constexpr const char* manifest_name = "tune-manifest.json";
inline constexpr int exit_gate = 1;
inline constexpr int exit_interrupted = 130;

// SIGINT and SIGTERM between levels (while a level runs, its driver catches them and ends the run):
// the measurement in progress is recorded as interrupted and the manifest stays whole.
inline volatile std::sig_atomic_t interrupted = 0;
inline void on_signal(int) { interrupted = 1; }
inline void catch_signals() {
    std::signal(SIGINT, on_signal);
    std::signal(SIGTERM, on_signal);
}

inline void say(const std::string& text) { write_terminal(stderr, "servestat tune: " + text + "\n"); }

// "2h", "90m", "600s", "600", "1.5h": seconds.
inline double parse_budget(const std::string& text) {
    double value = 0;
    std::size_t used = 0;
    try {
        value = std::stod(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    const auto unit = used == 0 ? std::string("?") : text.substr(used);
    const double scale = unit.empty() || unit == "s" ? 1 : unit == "m" ? 60 : unit == "h" ? 3600 : 0;
    if (used == 0 || scale == 0 || !std::isfinite(value) || value <= 0)
        throw usage_error(fmt::format("--budget {}: expected a time such as 2h, 90m or 600s", text));
    return value * scale;
}

// ---- what the manifest keeps ------------------------------------------------------------------------

struct level_record {
    double load = 0;
    std::string label, log, status; // status: done, interrupted, out_of_time
    std::size_t sent = 0, ok = 0;
};

// One measurement: a server started for one configuration and the levels run against it.
struct measurement_record {
    load::tune_point at;
    std::string name;
    std::size_t index = 1; // the configuration's first, second, … measurement
    std::string step, reason;
    std::string status; // done, infeasible, interrupted, out_of_time (the last two go on with --resume)
    std::string infeasible, server_log, server_log_tail, note;
    double seconds = 0;
    std::vector<level_record> levels;
    bool finished() const { return status == "done" || status == "infeasible"; }
};

inline nlohmann::ordered_json to_json(const level_record& l) {
    return {{"load", l.load}, {"label", l.label}, {"log", l.log}, {"status", l.status}, {"sent", l.sent}, {"ok", l.ok}};
}

inline nlohmann::ordered_json to_json(const measurement_record& m, const load::tune_space& space) {
    nlohmann::ordered_json j;
    j["configuration"] = load::configuration_of(space, m.at);
    j["name"] = m.name;
    j["index"] = m.index;
    j["step"] = m.step;
    j["reason"] = m.reason;
    j["status"] = m.status;
    j["infeasible"] = m.infeasible;
    j["server_log"] = m.server_log;
    j["server_log_tail"] = m.server_log_tail;
    j["note"] = m.note;
    j["seconds"] = m.seconds;
    j["levels"] = nlohmann::ordered_json::array();
    for (const auto& l : m.levels) j["levels"].push_back(to_json(l));
    return j;
}

// The configuration a manifest names, as indices into the space (an input error when it lies outside).
inline load::tune_point point_of(const load::tune_space& space, const nlohmann::ordered_json& configuration,
                                 const std::string& file) {
    load::tune_point at;
    for (const auto& d : space.dimensions) {
        if (!configuration.is_object() || !configuration.contains(d.key))
            throw input_error(file, 0, "measurements.configuration", fmt::format("no value of {}", d.key));
        const auto& v = configuration[d.key];
        const auto found = std::find(d.values.begin(), d.values.end(), v);
        if (found == d.values.end())
            throw input_error(file, 0, "measurements.configuration",
                              fmt::format("{}={} is not in the space", d.key, load::value_text(v)));
        at.push_back(static_cast<std::size_t>(found - d.values.begin()));
    }
    return at;
}

inline measurement_record measurement_of(const nlohmann::ordered_json& j, const load::tune_space& space,
                                         const std::string& file) {
    measurement_record m;
    try {
        m.at = point_of(space, j.at("configuration"), file);
        m.name = load::configuration_name(space, m.at);
        m.index = j.at("index").get<std::size_t>();
        m.step = j.at("step").get<std::string>();
        m.reason = j.at("reason").get<std::string>();
        m.status = j.at("status").get<std::string>();
        m.infeasible = j.value("infeasible", "");
        m.server_log = j.value("server_log", "");
        m.server_log_tail = j.value("server_log_tail", "");
        m.note = j.value("note", "");
        m.seconds = j.value("seconds", 0.0);
        for (const auto& l : j.at("levels"))
            m.levels.push_back({l.at("load").get<double>(), l.at("label").get<std::string>(),
                                l.at("log").get<std::string>(), l.at("status").get<std::string>(),
                                l.value("sent", std::size_t{0}), l.value("ok", std::size_t{0})});
    } catch (const nlohmann::json::exception& e) {
        throw input_error(file, 0, "measurements", e.what());
    }
    return m;
}

// What one level's log says, read once.
struct level_reading {
    load::tune_level level;
    struct side {
        std::size_t n = 0;
        std::optional<double> ttft, e2e; // p95, seconds
    };
    std::optional<side> short_prompts, long_prompts;
};

inline std::optional<level_reading::side> side_of(const run_stats& r, const char* subset) {
    const auto* ttft = find_summary(r, subset, metric::ttft);
    const auto* e2e = find_summary(r, subset, metric::e2e);
    if (!e2e || e2e->n == 0) return std::nullopt;
    return level_reading::side{e2e->n, ttft ? find_percentile(*ttft, 95) : std::nullopt, find_percentile(*e2e, 95)};
}

inline nlohmann::ordered_json optional_number(const std::optional<double>& v) {
    return v && std::isfinite(*v) ? nlohmann::ordered_json(*v) : nlohmann::ordered_json();
}

// A prompt group's count and p95s, as tune.json's prompt_costs holds them; null when it had none.
inline nlohmann::ordered_json side_json(const std::optional<level_reading::side>& s) {
    if (!s) return nullptr;
    return {{"n", s->n}, {"ttft_p95", optional_number(s->ttft)}, {"e2e_p95", optional_number(s->e2e)}};
}

// ---- the search -------------------------------------------------------------------------------------

class tune_runner {
public:
    explicit tune_runner(const tune_args& a)
        : a_(a), dir_(a.load.output), space_(load::parse_space(a.space)),
          objective_(load::parse_tune_objective(a.objective)), budget_seconds_(parse_budget(a.budget)) {
        load::check_server_command(space_, a.server_cmd);
        if (!a.load.requests && !a.load.duration)
            throw usage_error("give -n REQUESTS or --duration SECONDS: how long each load level runs");
        if (a.load.workload.empty()) throw usage_error("give --workload: the requests each level sends");
        if (objective_ == load::tune_objective::cost_per_good_token && !a.cost_per_hour)
            throw usage_error("--objective cost-per-good-token needs --cost-per-hour");
        levels_.slos = load::parse_tune_slos(a.slo);
        levels_.percentile = a.slo_percentile;
        levels_.start = a.load_start;
        levels_.max = a.load_max;
        levels_.resolution = a.resolution;
        levels_.max_levels = a.levels;
        levels_.max_error = a.max_error;
        check_level_settings();
        search_.direction = load::direction_of(objective_);
        if (!a.start.empty()) start_ = start_point();
        if (fs::exists(dir_) && !fs::is_directory(dir_))
            throw usage_error(fmt::format("-o {}: tune writes a folder, and this is a file", a.load.output));
        app::create_output_folder(dir_);
        settings_ = settings_json();
        if (a.resume) read_manifest();
        else if (fs::exists(dir_ / manifest_name))
            throw usage_error(fmt::format("-o {}: it holds a tune already ({}); give --resume to go on with it, or "
                                          "another folder",
                                          a.load.output, manifest_name));
    }

    int run() {
        catch_signals();
        began_ = clock::now();
        deadline_ = began_ + std::chrono::duration_cast<clock::duration>(
                                 std::chrono::duration<double>(std::max(0.0, budget_seconds_ - used_before_)));
        say(fmt::format("{} of {} configurations; budget {:.0f} s, {:.0f} s used before", space_text(),
                        load::grid_size(space_), budget_seconds_, used_before_));
        load::tune_plan plan;
        bool stopped = !finish_unfinished();
        if (!stopped && start_ && !any_run_of(*start_))
            stopped = !measure(new_record(*start_, "start", "the starting settings (--start), measured first as "
                                                            "the baseline"));
        while (!stopped) {
            plan = load::plan_tune(space_, measurements(), runs_left(), search_);
            if (plan.done() || plan.next.empty()) break;
            const auto& next = plan.next.front();
            stopped = !measure(new_record(next.at, load::to_string(next.step), next.why));
        }
        plan = load::plan_tune(space_, measurements(), 0, search_);
        write_report(summary_json(plan));
        return exit_code(plan);
    }

private:
    // ---- settings ----

    void check_level_settings() const {
        const auto& s = levels_;
        if (!(s.start >= 1 && s.start == std::floor(s.start)))
            throw usage_error(fmt::format("--load-start {:g}: a whole number of streams, at least 1", s.start));
        if (!(s.max >= s.start && s.max == std::floor(s.max)))
            throw usage_error(fmt::format("--load-max {:g}: a whole number, at least --load-start", s.max));
        if (!(s.resolution > 0)) throw usage_error("--resolution: a positive share, e.g. 0.125");
        if (s.max_levels < 2) throw usage_error("--levels: at least 2");
        if (!(s.max_error >= 0 && s.max_error < 1)) throw usage_error("--max-error: a share in [0, 1)");
        if (!(s.percentile > 0 && s.percentile < 100)) throw usage_error("--slo-percentile: between 0 and 100");
    }

    load::tune_point start_point() const {
        std::map<std::string, nlohmann::ordered_json> given;
        for (const auto& text : a_.start) {
            const auto d = load::parse_dimension(text, "--start");
            if (d.values.size() != 1) throw usage_error(fmt::format("--start {}: one value per setting", text));
            given[d.key] = d.values.front();
        }
        load::tune_point at;
        for (const auto& d : space_.dimensions) {
            const auto v = given.find(d.key);
            if (v == given.end()) throw usage_error(fmt::format("--start gives no value of {}", d.key));
            const auto found = std::find(d.values.begin(), d.values.end(), v->second);
            if (found == d.values.end())
                throw usage_error(fmt::format("--start {}={}: not among the --space values of {}; add it to the "
                                              "space (a list: {}=a,b,c)",
                                              d.key, load::value_text(v->second), d.key, d.key));
            at.push_back(static_cast<std::size_t>(found - d.values.begin()));
            given.erase(v);
        }
        if (!given.empty()) throw usage_error(fmt::format("--start {}: not a --space setting", given.begin()->first));
        return at;
    }

    // What a resumed search must share with the one it continues (the budget may grow).
    nlohmann::ordered_json settings_json() const {
        nlohmann::ordered_json s;
        s["space"] = a_.space;
        s["server_cmd"] = a_.server_cmd;
        s["slo"] = a_.slo;
        s["slo_percentile"] = a_.slo_percentile;
        s["objective"] = a_.objective;
        s["start"] = a_.start;
        s["load_start"] = a_.load_start;
        s["load_max"] = a_.load_max;
        s["resolution"] = a_.resolution;
        s["levels"] = a_.levels;
        s["max_error"] = a_.max_error;
        s["workload"] = a_.load.workload;
        s["requests"] = a_.load.requests ? nlohmann::ordered_json(*a_.load.requests) : nlohmann::ordered_json();
        s["duration"] = a_.load.duration ? nlohmann::ordered_json(*a_.load.duration) : nlohmann::ordered_json();
        s["warmup"] = a_.load.warmup;
        s["seed"] = a_.load.seed;
        s["short_max"] = a_.short_max;
        s["long_min"] = a_.long_min;
        s["cost_per_hour"] = a_.cost_per_hour ? nlohmann::ordered_json(*a_.cost_per_hour) : nlohmann::ordered_json();
        s["gpus"] = a_.gpus ? nlohmann::ordered_json(*a_.gpus) : nlohmann::ordered_json();
        return s;
    }

    std::string space_text() const {
        std::string out;
        for (const auto& d : space_.dimensions) out += (out.empty() ? "" : " × ") + fmt::format("{} {}", d.values.size(), d.key);
        return out;
    }

    // ---- the manifest ----

    void read_manifest() {
        const auto file = (dir_ / manifest_name).string();
        std::ifstream in(file, std::ios::binary);
        if (!in) throw usage_error(fmt::format("--resume: {} does not exist", file));
        const auto j = nlohmann::ordered_json::parse(in, nullptr, false);
        if (j.is_discarded() || !j.is_object() || !j.contains("measurements") || !j["measurements"].is_array())
            throw input_error(file, 0, "measurements", "not a tune manifest");
        const auto changes =
            load::changed_settings(j.value("settings", nlohmann::ordered_json::object()), settings_);
        if (!changes.empty())
            throw usage_error(fmt::format("--resume: {} was written with other settings ({}); a search goes on only "
                                          "with the settings it began with (the budget may change)",
                                          file, changes.front()));
        for (const auto& m : j["measurements"]) runs_.push_back(measurement_of(m, space_, file));
        used_before_ = j.value("used_seconds", 0.0);
        say(fmt::format("resuming: {} measurements in {}", runs_.size(), file));
    }

    double used_seconds() const {
        return used_before_ + std::chrono::duration<double>(clock::now() - began_).count();
    }

    void save() const {
        nlohmann::ordered_json j;
        j["servestat_tune_manifest"] = 1;
        j["settings"] = settings_;
        j["budget_seconds"] = budget_seconds_;
        j["used_seconds"] = used_seconds();
        j["measurements"] = nlohmann::ordered_json::array();
        for (const auto& m : runs_) j["measurements"].push_back(to_json(m, space_));
        load::write_manifest_file(dir_ / manifest_name, j.dump(2) + "\n");
    }

    // ---- measuring ----

    bool any_run_of(const load::tune_point& at) const {
        return std::any_of(runs_.begin(), runs_.end(), [&](const auto& m) { return m.at == at; });
    }

    std::size_t new_record(const load::tune_point& at, std::string step, std::string reason) {
        measurement_record m;
        m.at = at;
        m.name = load::configuration_name(space_, at);
        m.index = 1 + static_cast<std::size_t>(std::count_if(runs_.begin(), runs_.end(),
                                                             [&](const auto& r) { return r.at == at; }));
        m.step = std::move(step);
        m.reason = std::move(reason);
        m.status = "interrupted"; // until it is done: --resume goes on with it
        runs_.push_back(std::move(m));
        return runs_.size() - 1;
    }

    // Measurements a previous invocation left unfinished, in their order.
    bool finish_unfinished() {
        for (std::size_t i = 0; i < runs_.size(); ++i)
            if (!runs_[i].finished()) {
                std::erase_if(runs_[i].levels, [](const auto& l) { return l.status != "done"; });
                if (!measure(i)) return false;
            }
        return true;
    }

    double seconds_left() const { return std::chrono::duration<double>(deadline_ - clock::now()).count(); }

    // Runs the budget buys at the mean time a measurement has taken; unbounded before the first.
    std::size_t runs_left() const {
        const double left = seconds_left();
        if (left <= 0) return 0;
        double total = 0;
        std::size_t n = 0;
        for (const auto& m : runs_)
            if (m.status == "done") {
                total += m.seconds;
                ++n;
            }
        if (n == 0 || total <= 0) return std::numeric_limits<std::size_t>::max();
        return static_cast<std::size_t>(std::floor(left / (total / static_cast<double>(n))));
    }

    std::string level_label(const measurement_record& m, double load) const {
        return fmt::format("{}-{}-m{}-c{}", fs::path(a_.load.workload).stem().string(), m.name, m.index,
                           load::detail::tune_number(load));
    }

    stats_options analysis_options() const {
        stats_options o;
        o.summary.percentiles = {50, 95, 99};
        if (a_.slo_percentile != 50 && a_.slo_percentile != 95 && a_.slo_percentile != 99)
            o.summary.percentiles.push_back(a_.slo_percentile);
        o.subsets.short_max = a_.short_max;
        o.subsets.long_min = a_.long_min;
        for (const auto& s : levels_.slos)
            if (s.subset == "all") o.slos.push_back(s.objective); // good tokens: the all-request SLOs
        // The throughput's interval is read back from the cost figure's: any price gives it.
        o.price = deployment_price{a_.cost_per_hour.value_or(3600), a_.gpus};
        o.threads = 1;
        return o;
    }

    const level_reading& reading(const level_record& l) {
        const auto found = readings_.find(l.log);
        if (found != readings_.end()) return found->second;
        const auto r = analyze_log(dir_ / l.log, analysis_options());
        level_reading out{load::tune_level_of(r, l.load, levels_), side_of(r, "short"), side_of(r, "long")};
        return readings_.emplace(l.log, std::move(out)).first->second;
    }

    std::vector<load::tune_level> levels_of(const measurement_record& m) {
        std::vector<load::tune_level> out;
        for (const auto& l : m.levels)
            if (l.status == "done") out.push_back(reading(l).level);
        return out;
    }

    load::tune_measurement measurement(const measurement_record& m) {
        if (m.status == "infeasible") return {m.at, std::nullopt, {}, m.infeasible};
        return load::measure_objective(m.at, levels_of(m), levels_, objective_);
    }

    std::vector<load::tune_measurement> measurements() {
        std::vector<load::tune_measurement> out;
        for (const auto& m : runs_)
            if (m.finished()) out.push_back(measurement(m));
        return out;
    }

    // Stops the measurement's server however the measurement ends.
    struct runner_state {
        level_runner& runner;
        void stop() { runner.stop_server(); }
        ~runner_state() { runner.stop_server(); }
    };

    void infeasible(measurement_record& m, std::string why, runner_state& server) {
        m.status = "infeasible";
        m.infeasible = std::move(why);
        m.server_log_tail = load::tail_lines(dir_ / m.server_log, 20);
        say(fmt::format("{} is infeasible: {}; last lines of {}:\n{}", m.name, m.infeasible,
                        (dir_ / m.server_log).string(), m.server_log_tail));
        server.stop();
    }

    // One measurement: its server started, its levels run until its capacity is bracketed. False when
    // the search must stop (a signal, or the budget's end); the manifest then says where it stood.
    bool measure(std::size_t index) {
        auto& m = runs_[index];
        const auto started = clock::now();
        const double seconds_before = m.seconds;
        const auto account = [&] { m.seconds = seconds_before + std::chrono::duration<double>(clock::now() - started).count(); };
        say(fmt::format("[{}] {} ({}): {}", index + 1, m.name, m.step, m.reason));
        if (seconds_left() <= 0) return out_of_time(m, account);
        m.server_log = fmt::format("server-{}-m{}.log", m.name, m.index);
        runner_state server{runner_};
        const auto why = runner_.start_server(load::server_command(space_, a_.server_cmd, m.at), dir_ / m.server_log,
                                              std::min(a_.server_timeout, std::max(0.0, seconds_left())),
                                              [] { return interrupted == 0; });
        if (interrupted) return stop_interrupted(m, account);
        if (!why.empty()) {
            if (seconds_left() <= 0) return out_of_time(m, account);
            infeasible(m, why, server);
            account();
            save();
            return true;
        }
        auto levels = levels_of(m);
        while (const auto next = load::next_tune_load(levels, levels_)) {
            const double spent = seconds_before + std::chrono::duration<double>(clock::now() - started).count();
            if (a_.config_timeout > 0 && spent >= a_.config_timeout) {
                m.note = fmt::format("its time cap (--config-timeout {:g} s) ended it after {} levels", a_.config_timeout,
                                     levels.size());
                break;
            }
            if (seconds_left() <= 0) return out_of_time(m, account);
            level_record l;
            l.load = *next;
            l.label = level_label(m, *next);
            l.log = l.label + ".jsonl";
            nlohmann::ordered_json params = load::configuration_of(space_, m.at);
            params["concurrency"] = static_cast<std::int64_t>(*next);
            const auto outcome = runner_.run(l.label, dir_ / l.log, params, static_cast<std::int32_t>(*next), deadline_);
            catch_signals(); // the driver's signal handling ends with the run
            l.sent = outcome.sent;
            l.ok = outcome.ok;
            l.status = outcome.interrupted ? "interrupted" : outcome.out_of_time ? "out_of_time" : "done";
            m.levels.push_back(l);
            if (outcome.interrupted || interrupted) return stop_interrupted(m, account);
            if (outcome.out_of_time) return out_of_time(m, account);
            if (const auto gone = runner_.server_gone(); !gone.empty()) {
                m.levels.back().status = "failed";
                infeasible(m, fmt::format("the server {} during c={}", gone, load::detail::tune_number(*next)), server);
                account();
                save();
                return true;
            }
            levels.push_back(reading(m.levels.back()).level);
            say(level_text(m.levels.back()));
            warn_unbounded(levels.back());
            account();
            save();
        }
        server.stop();
        m.status = "done";
        account();
        const auto result = measurement(m);
        say(fmt::format("{}: {}", m.name, result.value ? fmt::format("{} {} ({}–{})", load::detail::tune_number(*result.value),
                                                                     load::text_of(objective_).unit,
                                                                     load::detail::tune_number(result.ci.low),
                                                                     load::detail::tune_number(result.ci.high))
                                                       : result.infeasible));
        save();
        return true;
    }

    template <class Account>
    bool stop_interrupted(measurement_record& m, Account account) {
        m.status = "interrupted";
        account();
        save();
        say(fmt::format("interrupted during {}; the manifest keeps {} finished measurements; --resume goes on", m.name,
                        std::count_if(runs_.begin(), runs_.end(), [](const auto& r) { return r.finished(); })));
        stopped_by_signal_ = true;
        return false;
    }

    template <class Account>
    bool out_of_time(measurement_record& m, Account account) {
        m.status = "out_of_time";
        account();
        save();
        say(fmt::format("the budget ended during {}; it is not counted (a larger --budget with --resume finishes it)",
                        m.name));
        return false;
    }

    // A percentile of too few requests has no upper confidence bound (a p95 at 95% needs 72): the
    // capacity's lower end then falls to 0, which is true and useless. Said once, with the remedy.
    void warn_unbounded(const load::tune_level& l) {
        for (std::size_t k = 0; k < levels_.slos.size() && !warned_unbounded_; ++k)
            if (l.slos[k].value && !l.slos[k].high) {
                warned_unbounded_ = true;
                say(fmt::format("warning: at c={} the {} rests on too few requests to bound it above, so the "
                                "capacity's interval reaches down to 0; give more requests per level (-n)",
                                load::detail::tune_number(l.load), load::slo_text(levels_.slos[k], levels_.percentile)));
            }
    }

    std::string level_text(const level_record& l) {
        const auto& r = reading(l);
        std::string slos;
        for (std::size_t k = 0; k < levels_.slos.size(); ++k) {
            const auto& v = r.level.slos[k].value;
            const auto& reading_k = r.level.slos[k];
            const auto bound = [](const std::optional<double>& x) { return x ? fmt::format("{:.3g}", *x) : std::string("?"); };
            slos += fmt::format("; {} {}", load::slo_text(levels_.slos[k], levels_.percentile),
                                v ? fmt::format("at {:.3g} s ({}–{})", *v, bound(reading_k.low), bound(reading_k.high))
                                  : std::string("has no value"));
        }
        return fmt::format("  c={}: {} of {} ok{}", load::detail::tune_number(l.load), l.ok, l.sent, slos);
    }

    // ---- the answer ----

    // Every finished measurement of the configuration met the SLOs up to its highest level.
    bool every_level_met(const load::tune_point& at) {
        bool any = false;
        for (const auto& m : runs_)
            if (m.at == at && m.status == "done") {
                const auto c = load::estimate_capacity(levels_of(m), levels_);
                if (!c || !c->at_least) return false;
                any = true;
            }
        return any;
    }

    int exit_code(const load::tune_plan& plan) const {
        if (stopped_by_signal_) return exit_interrupted;
        const auto asked = [&](const char* what) {
            return std::find(a_.fail_on.begin(), a_.fail_on.end(), what) != a_.fail_on.end();
        };
        if (asked("nothing-feasible") && !plan.best) return exit_gate;
        if (asked("undecided") && plan.best && !plan.distinguishable) return exit_gate;
        if (asked("start-beaten") && start_ && plan.best && plan.verdicts[*plan.best].at != *start_)
            for (const auto& v : plan.verdicts)
                if (v.at == *start_ && v.status == load::tune_status::dropped) return exit_gate;
        return 0;
    }

    nlohmann::ordered_json summary_json(const load::tune_plan& plan);
    nlohmann::ordered_json measurement_json(const measurement_record& m);
    nlohmann::ordered_json prompt_costs_json(const load::tune_plan& plan);
    nlohmann::ordered_json at_capacity_json(const load::tune_point& at);
    static const load::tune_verdict* find_verdict_of(const load::tune_plan& plan, const load::tune_point& at);
    void write_report(const nlohmann::ordered_json& j) const;

    const tune_args& a_;
    fs::path dir_;
    load::tune_space space_;
    load::tune_objective objective_;
    double budget_seconds_ = 0, used_before_ = 0;
    load::tune_level_settings levels_;
    load::tune_settings search_;
    std::optional<load::tune_point> start_;
    nlohmann::ordered_json settings_;
    std::vector<measurement_record> runs_;
    std::map<std::string, level_reading> readings_;
    level_runner runner_{a_.load};
    clock::time_point began_, deadline_;
    bool stopped_by_signal_ = false;
    bool warned_unbounded_ = false;
};

inline nlohmann::ordered_json tune_runner::summary_json(const load::tune_plan& plan) {
    using json = nlohmann::ordered_json;
    json j;
    j["servestat_tune"] = 1;
    std::string names;
    for (const auto& d : space_.dimensions) names += (names.empty() ? "" : " × ") + d.key;
    const auto workload = fs::path(a_.load.workload).stem().string();
    j["title"] = a_.title.empty() ? fmt::format("Tuning {} ({})", names, workload) : a_.title;
    j["workload"] = workload;
    const auto text = load::text_of(objective_);
    j["objective"] = {{"name", load::to_string(objective_)},
                      {"label", text.label},
                      {"unit", text.unit},
                      {"direction", search_.direction == load::objective_direction::higher_is_better ? "higher_is_better"
                                                                                                   : "lower_is_better"},
                      {"description", text.description}};
    j["slos"] = json::array();
    for (const auto& s : levels_.slos)
        j["slos"].push_back({{"subset", s.subset},
                             {"metric", std::string(to_string(s.objective.on))},
                             {"percentile", levels_.percentile},
                             {"max_seconds", s.objective.max_seconds},
                             {"text", load::slo_text(s, levels_.percentile)}});
    j["confidence"] = search_.confidence;
    j["space"] = json::array();
    for (const auto& d : space_.dimensions) j["space"].push_back({{"name", d.key}, {"values", d.values}});
    j["grid_size"] = load::grid_size(space_);
    j["start"] = start_ ? json{{"name", load::configuration_name(space_, *start_)},
                               {"configuration", load::configuration_of(space_, *start_)}}
                        : json();
    const auto finished = static_cast<std::size_t>(
        std::count_if(runs_.begin(), runs_.end(), [](const auto& m) { return m.finished(); }));
    j["budget"] = {{"seconds", budget_seconds_},
                   {"used_seconds", used_seconds()},
                   {"runs", finished},
                   {"configurations", plan.measured}};
    j["end"] = stopped_by_signal_ ? "searching" : load::to_string(plan.end);
    j["conclusion"] = stopped_by_signal_ ? "interrupted before the search ended (--resume goes on): " + plan.conclusion
                                         : plan.conclusion;

    const auto verdict_json = [&](const load::tune_verdict& v) {
        return json{{"name", v.name},
                    {"configuration", load::configuration_of(space_, v.at)},
                    {"value", v.estimate ? json(v.estimate->mean) : json()},
                    {"ci", v.estimate ? json::array({v.estimate->ci.low, v.estimate->ci.high}) : json()},
                    {"runs", v.runs}};
    };
    if (plan.best) {
        const auto& best = plan.verdicts[*plan.best];
        auto r = verdict_json(best);
        r["start"] = json();
        if (const auto* start = start_ ? find_verdict_of(plan, *start_) : nullptr; start && start->estimate) {
            const bool same = start->at == best.at;
            r["start"] = {{"value", start->estimate->mean},
                          {"ci", json::array({start->estimate->ci.low, start->estimate->ci.high})},
                          {"ratio", same ? json(1.0)
                                    : start->estimate->mean != 0 ? json(best.estimate->mean / start->estimate->mean)
                                                                 : json()},
                          {"distinguishable", !same && !load::detail::overlap(best.estimate->ci, start->estimate->ci)}};
        }
        if (objective_ == load::tune_objective::capacity && every_level_met(best.at)) {
            r["at_least"] = levels_.max;
            say(fmt::format("warning: {} met the SLOs at every load up to --load-max {:g} in every run: its capacity "
                            "is at least that, and a higher --load-max would tell how far it goes",
                            best.name, levels_.max));
        }
        r["runner_up"] = json();
        if (plan.runner_up) {
            const auto& up = plan.verdicts[*plan.runner_up];
            auto u = verdict_json(up);
            u["distinguishable"] = !load::detail::overlap(best.estimate->ci, up.estimate->ci);
            if (objective_ == load::tune_objective::capacity && every_level_met(up.at)) u["at_least"] = levels_.max;
            r["runner_up"] = u;
        }
        j["recommendation"] = r;
    } else {
        j["recommendation"] = json();
    }

    j["configurations"] = json::array();
    for (const auto& v : plan.verdicts) {
        auto c = verdict_json(v);
        c["point"] = v.at;
        c["start"] = start_ && *start_ == v.at;
        c["status"] = load::to_string(v.status);
        c["reason"] = v.why;
        if (objective_ == load::tune_objective::capacity && every_level_met(v.at)) c["at_least"] = levels_.max;
        c["measurements"] = json::array();
        for (const auto& m : runs_)
            if (m.at == v.at && m.finished()) c["measurements"].push_back(measurement_json(m));
        j["configurations"].push_back(c);
    }
    j["prompt_costs"] = prompt_costs_json(plan);
    j["decisions"] = json::array();
    for (std::size_t i = 0; i < runs_.size(); ++i)
        j["decisions"].push_back(
            {{"order", i + 1}, {"name", runs_[i].name}, {"step", runs_[i].step}, {"reason", runs_[i].reason},
             {"status", runs_[i].status}});
    return j;
}

inline nlohmann::ordered_json tune_runner::measurement_json(const measurement_record& m) {
    using json = nlohmann::ordered_json;
    const auto result = measurement(m);
    json j{{"step", m.step},
           {"value", result.value ? json(*result.value) : json()},
           {"ci", result.value ? json::array({result.ci.low, result.ci.high}) : json()},
           {"infeasible", result.value ? std::string() : result.infeasible},
           {"server_log", m.server_log},
           {"seconds", m.seconds}};
    if (m.status == "infeasible") j["server_log_tail"] = m.server_log_tail;
    if (!m.note.empty()) j["note"] = m.note;
    const auto levels = levels_of(m);
    if (objective_ == load::tune_objective::capacity || !levels.empty())
        if (const auto c = load::estimate_capacity(levels, levels_))
            j["capacity"] = {{"text", c->text}, {"limited_by", c->limited_by}};
    const auto sorted = load::detail::by_load(levels);
    j["levels"] = json::array();
    std::vector<level_record> by_load(m.levels.begin(), m.levels.end());
    std::sort(by_load.begin(), by_load.end(), [](const auto& a, const auto& b) { return a.load < b.load; });
    for (const auto& l : by_load) {
        json lj{{"load", l.load}, {"label", l.label}, {"log", l.log}, {"status", l.status}, {"requests", l.sent},
                {"ok", l.ok}, {"output_tps", nullptr}, {"slos", json::array()}, {"meets", false}};
        if (l.status == "done") {
            const auto& r = reading(l).level;
            lj["output_tps"] = optional_number(r.output_tps);
            for (const auto& s : r.slos)
                lj["slos"].push_back({{"value", optional_number(s.value)},
                                      {"ci", s.low && s.high && std::isfinite(*s.low) && std::isfinite(*s.high)
                                                 ? json::array({*s.low, *s.high})
                                                 : json()}});
            for (std::size_t i = 0; i < sorted.size(); ++i)
                if (sorted[i]->load == l.load) lj["meets"] = load::detail::passes(sorted, i, levels_);
        }
        j["levels"].push_back(lj);
    }
    return j;
}

// What short and long prompts pay under the recommendation, the runner-up and the start, at one load
// all three ran: the highest at which the start (else the recommendation) meets the SLOs, so that
// the comparison is at a load the deployment serves today.
inline nlohmann::ordered_json tune_runner::prompt_costs_json(const load::tune_plan& plan) {
    using json = nlohmann::ordered_json;
    if (!plan.best) return nullptr;
    struct row {
        load::tune_point at;
        const char* role;
    };
    std::vector<row> rows{{plan.verdicts[*plan.best].at, "recommended"}};
    if (plan.runner_up && plan.verdicts[*plan.runner_up].estimate) rows.push_back({plan.verdicts[*plan.runner_up].at, "runner-up"});
    if (start_ && *start_ != rows.front().at) rows.push_back({*start_, "start"});
    // Each configuration's done levels by load (its first measurement holding that load).
    const auto levels_at = [&](const load::tune_point& at) {
        std::map<double, const level_record*> out;
        for (const auto& m : runs_)
            if (m.at == at && m.status == "done")
                for (const auto& l : m.levels)
                    if (l.status == "done") out.emplace(l.load, &l);
        return out;
    };
    std::vector<std::map<double, const level_record*>> each;
    for (const auto& r : rows) each.push_back(levels_at(r.at));
    std::vector<double> common;
    for (const auto& [load, _] : each.front())
        if (std::all_of(each.begin(), each.end(), [load = load](const auto& e) { return e.contains(load); }))
            common.push_back(load);
    if (common.empty()) return nullptr;
    const auto& judge = each.back(); // the start's, when there is one; else the last row's
    const auto meets = [&](double load) {
        const auto* l = judge.at(load);
        const auto& r = reading(*l).level;
        for (std::size_t k = 0; k < levels_.slos.size(); ++k)
            if (!load::detail::slo_met(r.slos[k], levels_.slos[k], load::detail::slo_reading_side::value)) return false;
        return true;
    };
    double chosen = common.back();
    bool met = false;
    for (auto it = common.rbegin(); it != common.rend(); ++it)
        if (meets(*it)) {
            chosen = *it;
            met = true;
            break;
        }
    json out;
    out["load"] = chosen;
    const bool has_start = rows.back().role == std::string("start");
    const auto* start_verdict = has_start ? find_verdict_of(plan, rows.back().at) : nullptr;
    const auto start_capacity = start_verdict && start_verdict->estimate && objective_ == load::tune_objective::capacity
                                    ? fmt::format("; their capacity, {:.3g}, is interpolated between the loads run",
                                                  start_verdict->estimate->mean)
                                    : std::string();
    out["note"] = fmt::format("at c={}, {}", load::detail::tune_number(chosen),
                              met ? (has_start ? "the highest load at which the starting settings met the SLOs (all of "
                                                 "them ran it" + start_capacity + ")"
                                               : "the highest load every configuration shown ran and the last one "
                                                 "meets the SLOs at")
                                  : "the highest load every configuration shown ran (none of them meets the SLOs at "
                                    "a load the others ran)");
    out["at_capacity"] = at_capacity_json(rows.front().at);
    out["rows"] = json::array();
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const auto& r = reading(*each[i].at(chosen));
        out["rows"].push_back({{"name", load::configuration_name(space_, rows[i].at)},
                               {"role", rows[i].role},
                               {"load", chosen},
                               {"short", side_json(r.short_prompts)},
                               {"long", side_json(r.long_prompts)}});
    }
    return out;
}

inline const load::tune_verdict* tune_runner::find_verdict_of(const load::tune_plan& plan, const load::tune_point& at) {
    for (const auto& v : plan.verdicts)
        if (v.at == at) return &v;
    return nullptr;
}

// The configuration's highest level meeting the SLOs, in its first finished measurement: what short
// and long prompts pay where it would run.
inline nlohmann::ordered_json tune_runner::at_capacity_json(const load::tune_point& at) {
    for (const auto& m : runs_) {
        if (m.at != at || m.status != "done") continue;
        const auto levels = levels_of(m);
        const auto sorted = load::detail::by_load(levels);
        const auto b = load::detail::bracket_of(sorted, levels_);
        if (!b.last_pass) return nullptr;
        const double load = sorted[*b.last_pass]->load;
        for (const auto& l : m.levels)
            if (l.status == "done" && l.load == load) {
                const auto& r = reading(l);
                return {{"load", load}, {"short", side_json(r.short_prompts)}, {"long", side_json(r.long_prompts)}};
            }
        return nullptr;
    }
    return nullptr;
}

inline void tune_runner::write_report(const nlohmann::ordered_json& j) const {
    const auto files = report::render_tune_report(j);
    const auto write = [&](const fs::path& name, const std::string& text) {
        const auto path = dir_ / name;
        if (path.has_parent_path()) fs::create_directories(path.parent_path());
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        out << text;
        if (!out) throw error(fmt::format("{}: cannot write it", path.string()));
    };
    write("tune.json", j.dump(2) + "\n");
    write("tune.md", files.markdown);
    write("tune.html", files.html);
    for (const auto& [name, svg] : files.svgs) write(name, svg);
    std::string answer;
    if (j["recommendation"].is_object()) {
        const auto& r = j["recommendation"];
        answer = fmt::format("best: {} at {} ({}–{}) {}", r["name"].get<std::string>(),
                             load::detail::tune_number(r["value"].get<double>()),
                             load::detail::tune_number(r["ci"][0].get<double>()),
                             load::detail::tune_number(r["ci"][1].get<double>()), load::text_of(objective_).unit);
    } else {
        answer = "no configuration met the SLOs";
    }
    write_terminal(stdout, fmt::format("{}\n{}\nwrote {}\n", answer, j["conclusion"].get<std::string>(),
                                       (dir_ / "tune.{md,html,json}").string()));
}

inline int run_tune_command(const tune_args& a) { return tune_runner(a).run(); }

} // namespace tune_detail

using tune_detail::run_tune_command;

} // namespace servestat::cli
