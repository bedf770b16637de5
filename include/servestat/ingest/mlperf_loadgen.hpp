// Reader for MLPerf Inference LoadGen's logs of a performance run: `mlperf_log_summary.txt` (the
// summary LoadGen prints) and `mlperf_log_detail.txt` (one `:::MLLOG {json}` line per setting and
// result). Only LoadGen's aggregates are logged, so each file read is one run_kind::summary run.
//
// A result tree is laid out `results/<system>/<benchmark>/<scenario>/performance/run_1/` (also
// `performance/ranging/` and `compliance/<system>/<benchmark>/<scenario>/TEST06/...`): the nearest
// folder named for a scenario gives the scenario, the one above it the benchmark (`llama2-70b-99`,
// the model `llama2-70b` with its accuracy target) and the one above that the system. MLPerf's
// Interactive scenario is LoadGen's Server with tighter TTFT/TPOT limits: the log says Server, the
// folder Interactive, and `scenario` is Interactive (`loadgen_scenario` Server).
//
// A summary with a detail log beside it (same folder) is one run: the summary's values, plus the
// settings and values only the detail log holds (LoadGen's version, the start time, the query
// count), the detail listed in run.meta.source.merged so a folder read shows it once. A detail log
// alone is a run too: it holds every result the summary prints (with more digits), and a user who
// kept only it wants its numbers, not a refusal. An accuracy-mode detail log holds no performance
// result and is a not_a_run_error.
#pragma once

#include <algorithm>    // std::any_of, std::find, std::max
#include <charconv>     // std::from_chars
#include <cmath>        // std::isfinite, std::fabs, std::floor
#include <cstddef>      // std::size_t
#include <filesystem>   // std::filesystem::path
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <system_error> // std::errc, std::error_code
#include <utility>      // std::move
#include <vector>       // std::vector

#include <fmt/format.h>      // fmt::format
#include <nlohmann/json.hpp> // nlohmann::json

#include "servestat/core/errors.hpp"          // input_error, not_a_run_error
#include "servestat/core/run.hpp"             // run, run_metadata, reported_value, find_reported
#include "servestat/core/text.hpp"            // equals_ignoring_case, trim_spaces, shortest_number
#include "servestat/ingest/input_file.hpp"    // read_whole_file, read_input_head
#include "servestat/ingest/json_document.hpp" // parse_json_text, json_place, json_number, json_string, param_number
#include "servestat/ingest/line_source.hpp"   // line_source
#include "servestat/ingest/reader.hpp"        // log_format, read_options

namespace servestat {
namespace detail {

inline constexpr std::string_view mlperf_loadgen_name = "mlperf-loadgen";
inline constexpr std::string_view mlperf_rule = "================================================";
inline constexpr std::string_view mlperf_summary_title = "MLPerf Results Summary";
inline constexpr std::string_view mlperf_detail_prefix = ":::MLLOG ";
inline constexpr std::string_view mlperf_detail_file = "mlperf_log_detail.txt";

inline constexpr std::string_view mlperf_timing_note =
    "LoadGen times each sample from its scheduled issue time (servestat's t_sched): its latency is servestat's "
    "e2e_sched (reported as e2e_sched.*); its first-token latency is servestat's ttft plus client_queue, which "
    "servestat has no metric for (mlperf.ttft.*); its time per output token, (latency - first-token latency) / "
    "(tokens - 1), is servestat's tpot (tpot.*)";
inline constexpr std::string_view mlperf_percentile_note =
    "LoadGen's percentiles are the sorted value at index floor(n * p), an observed value without interpolation, "
    "not numpy's linear method";
inline constexpr std::string_view mlperf_server_rate_note =
    "LoadGen's completed samples per second is (samples - 1) / the time the last issued query completed, and its "
    "completed tokens per second tokens / that time: kept as mlperf.completed_*, not servestat's rps and output_tps";
inline constexpr std::string_view mlperf_offline_note =
    "Offline: LoadGen issues every sample at once in one query, so there is no arrival rate (expected_qps only "
    "sizes that query); samples per second is samples / the time to the last completion, servestat's rps";
inline constexpr std::string_view mlperf_inferred_note =
    "tokens per second (inferred) is samples per second times a fixed tokens-per-sample factor of the benchmark, "
    "not counted tokens: kept as mlperf.inferred_*";

// ---- where the file lies: results/<system>/<benchmark>/<scenario>/performance/run_1/ ----

struct mlperf_path_info {
    std::string system, benchmark, scenario; // empty when the path does not say
    std::string compliance_test;             // "TEST06" below the scenario folder
    std::string run_folder;                  // "run_1", "ranging"
};

// MLPerf's scenarios as LoadGen and the submission rules spell them; folders are matched in any case
// (some submitters write `server/`).
inline constexpr std::string_view mlperf_scenarios[] = {"Server", "Offline", "SingleStream", "MultiStream", "Interactive"};

inline std::optional<std::string_view> mlperf_scenario_named(std::string_view folder) {
    for (const auto s : mlperf_scenarios)
        if (equals_ignoring_case(folder, s)) return s;
    return std::nullopt;
}

inline bool is_compliance_test_folder(std::string_view name) {
    return name.size() > 4 && name.starts_with("TEST") &&
           name.substr(4).find_first_not_of("0123456789") == std::string_view::npos;
}

inline mlperf_path_info mlperf_path_of(const std::filesystem::path& file) {
    std::vector<std::string> folders;
    for (const auto& part : file.parent_path()) {
        const std::string name = part.string();
        if (!name.empty() && name != "." && name != ".." && name != "/") folders.push_back(name);
    }
    mlperf_path_info out;
    for (std::size_t k = folders.size(); k-- > 0;) {
        const auto scenario = mlperf_scenario_named(folders[k]);
        if (!scenario) continue;
        if (k < 2) break; // a scenario folder without a benchmark and a system above it says nothing
        out.scenario = std::string(*scenario);
        out.benchmark = folders[k - 1];
        out.system = folders[k - 2];
        for (std::size_t j = k + 1; j < folders.size(); ++j) {
            if (is_compliance_test_folder(folders[j])) out.compliance_test = folders[j];
            else if (folders[j] == "ranging" || folders[j].starts_with("run_")) out.run_folder = folders[j];
        }
        break;
    }
    return out;
}

// "llama2-70b-99.9" → "llama2-70b": the benchmark names its model and the accuracy target it meets.
inline std::string mlperf_model_of(std::string_view benchmark) {
    for (const std::string_view target : {"-99.9", "-99"})
        if (benchmark.size() > target.size() && benchmark.ends_with(target))
            return std::string(benchmark.substr(0, benchmark.size() - target.size()));
    return std::string(benchmark);
}

// ---- what one log gives ----

// An early-stopping block: "ttft", "tpot" or "latency" (runs without token latencies), and its lines.
struct mlperf_early_stopping {
    std::string kind;
    std::vector<std::string> items;
    std::size_t line = 0;
};

struct mlperf_result {
    std::string sut_name, scenario, mode, loadgen_version, started_at;
    std::optional<bool> valid;
    std::vector<std::string> unmet;   // "performance constraints", "min duration", ...
    std::vector<std::string> reasons; // LoadGen's recommendations
    std::vector<mlperf_early_stopping> early_stopping;
    std::vector<reported_value> reported;
    nlohmann::json settings = nlohmann::json::object(); // param name → value, before the scenario decides
    std::vector<std::string> notes;
    std::vector<std::string> unknown; // labels or keys this reader does not know
    bool inferred_tokens = false;
};

// A value LoadGen gives twice (completed tokens per second heads the summary and its stats; the
// SingleStream headline percentile is also among the percentiles) is kept once.
inline void add_mlperf_value(mlperf_result& r, std::string name, double value, std::string_view unit) {
    for (const auto& v : r.reported)
        if (v.name == name) {
            if (v.value != value)
                r.notes.push_back(fmt::format("LoadGen gives {} twice, {} and {}: the first is kept", name,
                                              shortest_number(v.value), shortest_number(value)));
            return;
        }
    r.reported.push_back({std::move(name), value, std::string(unit)});
}

// A number as LoadGen prints it ("57177.20", "7.21647e-09", "2000000000").
inline double mlperf_number(std::string_view text, const std::string& file, std::size_t line, const std::string& field) {
    text = trim_spaces(text);
    double x = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), x);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(x))
        throw input_error(file, line, field, "expected a number, got \"" + std::string(text) + "\"");
    return x;
}

inline double mlperf_count(std::string_view text, const std::string& file, std::size_t line, const std::string& field) {
    const double x = mlperf_number(text, file, line, field);
    if (x < 0 || x != std::floor(x)) throw input_error(file, line, field, "expected a non-negative whole number");
    return x;
}

// "50.00" → "p50", "99.90" → "p99.9", "90.0th" → "p90"; nullopt when it is not a percentile.
inline std::optional<std::string> mlperf_percentile_stat(std::string_view text) {
    if (text.ends_with("th")) text.remove_suffix(2);
    double p = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), p);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !(p > 0 && p < 100)) return std::nullopt;
    return "p" + shortest_number(p);
}

// The reported name of a latency statistic: its metric for the measured quantity ("latency",
// "first token latency", "time to output token") and the statistic.
inline std::optional<std::string> mlperf_latency_name(std::string_view quantity, std::string_view stat, bool per_query) {
    std::string metric;
    if (quantity == "latency") metric = per_query ? "mlperf.query_latency" : "e2e_sched";
    else if (quantity == "first token latency") metric = "mlperf.ttft";
    else if (quantity == "time to output token" || quantity == "time per output token") metric = "tpot";
    else return std::nullopt;
    return metric + "." + std::string(stat);
}

// ---- early stopping: " * Processed 884736 queries." and the like ----

// The whole number after `prefix` at the start of `item`, and what follows it.
inline std::optional<std::pair<double, std::string_view>> mlperf_number_after(std::string_view item, std::string_view prefix,
                                                                              const std::string& file, std::size_t line,
                                                                              const std::string& field) {
    if (!item.starts_with(prefix)) return std::nullopt;
    item.remove_prefix(prefix.size());
    const auto end = item.find_first_not_of("0123456789.");
    const std::string_view digits = item.substr(0, end);
    const double x = mlperf_number(digits, file, line, field);
    return std::pair{x, end == std::string_view::npos ? std::string_view() : item.substr(end)};
}

// The figures of one early-stopping block as reported values: queries processed, needed and
// discarded, and the percentile estimates (ns → s). Sentences with no figure ("Run successful.")
// stay in the block's text only.
inline void add_early_stopping_values(mlperf_result& r, const mlperf_early_stopping& block, const std::string& file) {
    const std::string prefix = "mlperf.early_stopping." + block.kind + ".";
    const std::string field = block.kind == "latency" ? "Early Stopping Result"
                                                      : (block.kind == "ttft" ? "TTFT" : "TPOT") + std::string(" Early Stopping Result");
    for (const std::string& text : block.items) {
        const std::string_view item = text;
        if (const auto at_least = mlperf_number_after(item, "Processed at least ", file, block.line, field)) {
            add_mlperf_value(r, prefix + "min_queries", at_least->first, "queries");
            if (const auto processed = mlperf_number_after(at_least->second, " queries (", file, block.line, field))
                add_mlperf_value(r, prefix + "processed_queries", processed->first, "queries");
        } else if (const auto processed = mlperf_number_after(item, "Processed ", file, block.line, field)) {
            add_mlperf_value(r, prefix + "processed_queries", processed->first, "queries");
        } else if (const auto only = mlperf_number_after(item, "Only processed ", file, block.line, field)) {
            add_mlperf_value(r, prefix + "processed_queries", only->first, "queries");
        } else if (const auto need = mlperf_number_after(item, "Need to process at least ", file, block.line, field)) {
            add_mlperf_value(r, prefix + "min_queries", need->first, "queries");
        } else if (const auto more = mlperf_number_after(item, "Would need to run at least ", file, block.line, field)) {
            add_mlperf_value(r, prefix + "more_queries_needed", more->first, "queries");
        } else if (const auto discard = mlperf_number_after(item, "Would discard ", file, block.line, field)) {
            add_mlperf_value(r, prefix + "discarded_queries", discard->first, "queries");
        } else if (item.starts_with("Early stopping ")) {
            // "Early stopping 90.0th percentile estimate: 272739682"
            const auto colon = item.find(':');
            const auto space = item.find(' ', 15);
            const auto stat = mlperf_percentile_stat(item.substr(15, space == std::string_view::npos ? 0 : space - 15));
            if (colon == std::string_view::npos || !stat)
                throw input_error(file, block.line, field, "expected \"Early stopping <p>th percentile estimate: <ns>\"");
            add_mlperf_value(r, prefix + *stat, mlperf_count(item.substr(colon + 1), file, block.line, field) * 1e-9, "s");
        }
    }
}

// Spaces runs collapsed: the detail log joins a block's lines with spaces where the summary breaks them.
inline std::string mlperf_collapse_spaces(std::string_view text) {
    std::string out;
    for (const char c : text) {
        if (c == ' ' && (out.empty() || out.back() == ' ')) continue;
        out += c;
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
}

// " * Run unsuccessful.  * Processed 884736 queries.  * Would need ..." (the detail log's form).
inline std::vector<std::string> mlperf_split_items(std::string_view text) {
    std::vector<std::string> items;
    for (std::size_t at = text.find("* "); at != std::string_view::npos;) {
        const auto next = text.find(" * ", at + 2);
        const auto item = mlperf_collapse_spaces(text.substr(at + 2, next == std::string_view::npos ? next : next - at - 2));
        if (!item.empty()) items.push_back(item);
        at = next == std::string_view::npos ? next : next + 1;
    }
    return items;
}

// ---- mlperf_log_summary.txt ----

struct mlperf_summary_line {
    std::string_view label, value;
};

// The throughput lines, as printed, and what each is.
struct mlperf_rate_line {
    std::string_view label, reported, unit;
};

inline constexpr mlperf_rate_line mlperf_rate_lines[] = {
    {"Completed samples per second", "mlperf.completed_samples_per_sec", "samples/s"},
    {"Samples per second", "rps", "req/s"},
    {"Tokens per second", "output_tps", "tok/s"},
    {"Tokens per second (inferred)", "mlperf.inferred_tokens_per_sec", "tok/s"},
    {"Completed tokens per second", "mlperf.completed_tokens_per_sec", "tok/s"},
    {"Completed tokens per second (inferred)", "mlperf.inferred_completed_tokens_per_sec", "tok/s"},
    {"Scheduled samples per second", "mlperf.scheduled_samples_per_sec", "samples/s"},
    {"QPS w/ loadgen overhead", "mlperf.qps_with_loadgen_overhead", "queries/s"},
    {"QPS w/o loadgen overhead", "mlperf.qps_without_loadgen_overhead", "queries/s"},
    {"TPS w/ loadgen overhead", "mlperf.tps_with_loadgen_overhead", "tok/s"},
    {"TPS w/o loadgen overhead", "mlperf.tps_without_loadgen_overhead", "tok/s"},
};

// A setting LoadGen prints under "Test Parameters Used" and logs in the detail log, and the
// parameter it becomes (scaled to seconds); `zero_unset`: 0 means "no limit" and is left out.
struct mlperf_setting {
    std::string_view summary_label, detail_key, param;
    double scale;
    bool zero_unset;
};

inline constexpr mlperf_setting mlperf_settings[] = {
    {"samples_per_query", "effective_samples_per_query", "samples_per_query", 1.0, false},
    {"target_qps", "effective_target_qps", "target_qps", 1.0, false},
    {"target_latency (ns)", "effective_target_latency_ns", "target_latency_s", 1e-9, true},
    {"ttft_latency (ns)", "requested_server_ttft_latency", "ttft_constraint_s", 1e-9, true},
    {"tpot_latency (ns)", "requested_server_tpot_latency", "tpot_constraint_s", 1e-9, true},
    {"max_async_queries", "effective_max_async_queries", "max_async_queries", 1.0, true},
    {"min_duration (ms)", "effective_min_duration_ms", "min_duration_s", 1e-3, false},
    {"max_duration (ms)", "effective_max_duration_ms", "max_duration_s", 1e-3, true},
    {"min_query_count", "effective_min_query_count", "min_query_count", 1.0, false},
    {"max_query_count", "effective_max_query_count", "max_query_count", 1.0, true},
    {"performance_sample_count", "effective_performance_sample_count", "performance_sample_count", 1.0, false},
};

// Settings that are the same in every run of a round (seeds) or do not shape the measurement
// (accuracy logging, debugging switches): known, not parameters.
inline constexpr std::string_view mlperf_ignored_settings[] = {
    "qsl_rng_seed",          "sample_index_rng_seed",       "schedule_rng_seed",      "accuracy_log_rng_seed",
    "accuracy_log_probability", "accuracy_log_sampling_target", "print_timestamps",  "performance_issue_unique",
    "performance_issue_same", "performance_issue_same_index", "accuracy_sample_count"};

inline void add_mlperf_setting(mlperf_result& r, const mlperf_setting& s, double x) {
    if (s.zero_unset && x == 0) return;
    r.settings[std::string(s.param)] = param_number(x * s.scale);
}

class mlperf_summary_parser {
public:
    mlperf_summary_parser(std::string file, std::string_view text) : file_(std::move(file)), text_(text) {}

    mlperf_result parse() {
        std::size_t pos = 0;
        while (pos < text_.size()) {
            std::string_view line = take_line(pos);
            ++line_;
            if (line == mlperf_summary_title) {
                if (section_ != section::before) fail("", "a second \"MLPerf Results Summary\" (two summaries in one file?)");
                section_ = section::results;
            } else if (line == "Additional Stats") {
                section_ = section::stats;
            } else if (line == "Test Parameters Used") {
                section_ = section::parameters;
                parameters_seen_ = true;
            } else if (line == mlperf_rule) {
                block_ = nullptr;
            } else if (section_ != section::before && section_ != section::after) {
                on_line(line);
            }
        }
        require_complete();
        for (const auto& block : r_.early_stopping) add_early_stopping_values(r_, block, file_);
        return std::move(r_);
    }

private:
    enum class section { before, results, stats, parameters, after };

    [[noreturn]] void fail(const std::string& field, const std::string& reason) const {
        throw input_error(file_, line_, field, reason);
    }

    std::string_view take_line(std::size_t& pos) const {
        auto end = text_.find('\n', pos);
        if (end == std::string_view::npos) end = text_.size();
        std::string_view line = text_.substr(pos, end - pos);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        pos = end + 1;
        return line;
    }

    void on_line(std::string_view line) {
        if (trim_spaces(line).empty()) {
            block_ = nullptr;
            in_warning_ = false;
            return;
        }
        if (section_ == section::results && block_line(line)) return;
        if (section_ == section::parameters && closing_line(line)) return;
        const auto colon = line.find(':');
        if (colon == std::string_view::npos) {
            r_.unknown.emplace_back(trim_spaces(line));
            return;
        }
        const mlperf_summary_line l{trim_spaces(line.substr(0, colon)), trim_spaces(line.substr(colon + 1))};
        if (section_ == section::parameters) parameter(l);
        else measurement(l);
    }

    // Recommendations and early-stopping blocks: " * " items, continued on lines that start with a space.
    bool block_line(std::string_view line) {
        const std::string_view t = trim_spaces(line);
        if (t == "Recommendations:" || t == "Early Stopping Result:" || t == "TTFT Early Stopping Result:" ||
            t == "TPOT Early Stopping Result:") {
            if (t == "Recommendations:") {
                block_ = &r_.reasons;
            } else {
                const std::string kind = t.starts_with("TTFT") ? "ttft" : t.starts_with("TPOT") ? "tpot" : "latency";
                r_.early_stopping.push_back({kind, {}, line_});
                block_ = &r_.early_stopping.back().items;
            }
            return true;
        }
        if (!block_) return false;
        if (line.starts_with(" * ")) {
            block_->push_back(mlperf_collapse_spaces(line.substr(3)));
            return true;
        }
        if (line.starts_with(" ") && !block_->empty()) { // " with the run being successful if every additional"
            block_->back() = mlperf_collapse_spaces(block_->back() + " " + std::string(line));
            return true;
        }
        return false;
    }

    // The warnings and errors lines that close the summary, and the WARNING block before them.
    bool closing_line(std::string_view line) {
        const std::string_view t = trim_spaces(line);
        if (t.starts_with("WARNING:")) {
            in_warning_ = true;
            r_.notes.push_back("LoadGen's summary warns: " + std::string(trim_spaces(t.substr(8))));
            return true;
        }
        if (in_warning_) {
            r_.notes.back().append(" ").append(t);
            return true;
        }
        if (t.ends_with("warnings encountered. See detailed log.") || t.ends_with("warning encountered. See detailed log.")) {
            r_.notes.push_back("LoadGen logged " + std::string(t.substr(0, t.find(' '))) +
                               " warning(s) during the test (listed in mlperf_log_detail.txt)");
            return true;
        }
        if (t == "No warnings encountered during test.") return true;
        if (t == "No errors encountered during test.") {
            section_ = section::after;
            return true;
        }
        if (t.ends_with("encountered. See detailed log.") && (t.find("ERROR") != std::string_view::npos)) {
            r_.notes.push_back("LoadGen logged " + std::string(t.substr(0, t.find(' '))) +
                               " error(s) during the test (listed in mlperf_log_detail.txt): check the results");
            section_ = section::after;
            return true;
        }
        return false;
    }

    void parameter(const mlperf_summary_line& l) {
        for (const auto& s : mlperf_settings)
            if (l.label == s.summary_label) {
                add_mlperf_setting(r_, s, mlperf_number(l.value, file_, line_, std::string(l.label)));
                return;
            }
        for (const auto ignored : mlperf_ignored_settings)
            if (l.label == ignored) return;
        r_.unknown.emplace_back(l.label);
    }

    bool yes_no(const mlperf_summary_line& l) const {
        if (l.value == "Yes") return true;
        if (l.value == "NO" || l.value == "No") return false;
        fail(std::string(l.label), "expected Yes or NO, got \"" + std::string(l.value) + "\"");
    }

    void measurement(const mlperf_summary_line& l) {
        const std::string field(l.label);
        if (l.label == "Per-query latency" && l.value.empty()) return; // MultiStream: the latencies below are per query
        if (l.label == "SUT name") r_.sut_name = l.value;
        else if (l.label == "Scenario") {
            if (l.value.empty()) fail(field, "empty");
            r_.scenario = l.value;
        } else if (l.label == "Mode") r_.mode = l.value;
        else if (l.label == "Result is") {
            if (l.value != "VALID" && l.value != "INVALID")
                fail(field, "expected VALID or INVALID, got \"" + std::string(l.value) + "\"");
            r_.valid = l.value == "VALID";
        } else if (l.label == "Performance constraints satisfied") {
            if (!yes_no(l)) r_.unmet.emplace_back("performance constraints");
        } else if (l.label == "Min duration satisfied") {
            if (!yes_no(l)) r_.unmet.emplace_back("min duration");
        } else if (l.label == "Min queries satisfied") {
            if (!yes_no(l)) r_.unmet.emplace_back("min queries");
        } else if (l.label == "Early stopping satisfied") {
            if (!yes_no(l)) r_.unmet.emplace_back("early stopping");
        } else if (!rate(l) && !latency(l)) {
            r_.unknown.push_back(field);
        }
    }

    bool rate(const mlperf_summary_line& l) {
        for (const auto& rl : mlperf_rate_lines)
            if (l.label == rl.label) {
                add_mlperf_value(r_, std::string(rl.reported), mlperf_number(l.value, file_, line_, std::string(l.label)), rl.unit);
                r_.inferred_tokens |= l.label.ends_with("(inferred)");
                headline_ |= section_ == section::results;
                return true;
            }
        return false;
    }

    // "Mean First Token latency (ns)", "99.00 percentile time to output token (ns)", the headline
    // "90.0th percentile latency (ns)" and "90.0th first token percentile latency (ns)".
    bool latency(const mlperf_summary_line& l) {
        std::string label = lower_case(l.label);
        if (!label.ends_with(" (ns)")) return false;
        label.resize(label.size() - 5);
        const auto space = label.find(' ');
        if (space == std::string::npos) return false;
        const std::string first = label.substr(0, space);
        std::string quantity = label.substr(space + 1);
        std::optional<std::string> stat;
        if (first == "min" || first == "max" || first == "mean") stat = first;
        else if ((stat = mlperf_percentile_stat(first))) {
            // "percentile latency", "first token percentile latency", "percentile time to output token"
            const auto word = quantity.find("percentile");
            if (word == std::string::npos) return false;
            quantity.erase(word, quantity.size() > word + 10 && quantity[word + 10] == ' ' ? 11 : 10);
            quantity = std::string(trim_spaces(quantity));
        }
        if (!stat) return false;
        const auto name = mlperf_latency_name(quantity, *stat, r_.scenario == "MultiStream");
        if (!name) return false;
        add_mlperf_value(r_, *name, mlperf_count(l.value, file_, line_, std::string(l.label)) * 1e-9, "s");
        headline_ |= section_ == section::results;
        return true;
    }

    static std::string lower_case(std::string_view s) {
        std::string out(s);
        for (char& c : out)
            if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
        return out;
    }

    // A summary cut short names what it lacks.
    void require_complete() const {
        const auto missing = [&](const std::string& field, const std::string& reason) {
            throw input_error(file_, line_, field, reason + " (truncated summary?)");
        };
        if (section_ == section::before) missing("MLPerf Results Summary", "no \"MLPerf Results Summary\" header");
        if (r_.scenario.empty()) missing("Scenario", "missing");
        if (!headline_) missing("Scenario", "no result line for the scenario (samples per second or a latency percentile)");
        if (!r_.valid) missing("Result is", "missing");
        if (!parameters_seen_) missing("Test Parameters Used", "section missing");
        if (section_ != section::after) missing("No errors encountered during test.", "LoadGen's closing errors line is missing");
    }

    std::string file_;
    std::string_view text_;
    std::size_t line_ = 0;
    section section_ = section::before;
    std::vector<std::string>* block_ = nullptr;
    bool in_warning_ = false, parameters_seen_ = false, headline_ = false;
    mlperf_result r_;
};

// ---- mlperf_log_detail.txt ----

// A detail key of a result and what it is; `scale` converts to the reported unit.
struct mlperf_detail_value {
    std::string_view key, reported, unit;
    double scale;
};

inline constexpr mlperf_detail_value mlperf_detail_values[] = {
    {"result_completed_samples_per_sec", "mlperf.completed_samples_per_sec", "samples/s", 1.0},
    {"result_samples_per_second", "rps", "req/s", 1.0},
    {"result_tokens_per_second", "output_tps", "tok/s", 1.0},
    {"result_inferred_tokens_per_second", "mlperf.inferred_tokens_per_sec", "tok/s", 1.0},
    {"result_completed_tokens_per_second", "mlperf.completed_tokens_per_sec", "tok/s", 1.0},
    {"result_inferred_completed_tokens_per_second", "mlperf.inferred_completed_tokens_per_sec", "tok/s", 1.0},
    {"result_scheduled_samples_per_sec", "mlperf.scheduled_samples_per_sec", "samples/s", 1.0},
    {"result_qps_with_loadgen_overhead", "mlperf.qps_with_loadgen_overhead", "queries/s", 1.0},
    {"result_qps_without_loadgen_overhead", "mlperf.qps_without_loadgen_overhead", "queries/s", 1.0},
    {"result_token_throughput_with_loadgen_overhead", "mlperf.tps_with_loadgen_overhead", "tok/s", 1.0},
    {"result_query_count", "mlperf.query_count", "queries", 1.0},
    {"result_min_latency_ns", "e2e_sched.min", "s", 1e-9},
    {"result_max_latency_ns", "e2e_sched.max", "s", 1e-9},
    {"result_mean_latency_ns", "e2e_sched.mean", "s", 1e-9},
    {"result_first_token_min_latency_ns", "mlperf.ttft.min", "s", 1e-9},
    {"result_first_token_max_latency_ns", "mlperf.ttft.max", "s", 1e-9},
    {"result_first_token_mean_latency_ns", "mlperf.ttft.mean", "s", 1e-9},
    {"result_time_to_output_token_min", "tpot.min", "s", 1e-9}, // ns, though the key does not say so
    {"result_time_to_output_token_max", "tpot.max", "s", 1e-9},
    {"result_time_to_output_token_mean", "tpot.mean", "s", 1e-9},
    {"result_min_query_latency_ns", "mlperf.query_latency.min", "s", 1e-9},
    {"result_max_query_latency_ns", "mlperf.query_latency.max", "s", 1e-9},
    {"result_mean_query_latency_ns", "mlperf.query_latency.mean", "s", 1e-9},
};

// result_<p>_percentile_latency_ns, result_first_token_<p>_percentile_latency_ns,
// result_time_per_output_token_<p>_percentile_ns, result_<p>_percentile_per_query_latency_ns.
inline std::optional<std::string> mlperf_detail_percentile(std::string_view key) {
    struct form {
        std::string_view prefix, suffix, metric;
    };
    static constexpr form forms[] = {{"result_first_token_", "_percentile_latency_ns", "mlperf.ttft"},
                                     {"result_time_per_output_token_", "_percentile_ns", "tpot"},
                                     {"result_", "_percentile_per_query_latency_ns", "mlperf.query_latency"},
                                     {"result_", "_percentile_latency_ns", "e2e_sched"}};
    for (const auto& f : forms) {
        if (!key.starts_with(f.prefix) || !key.ends_with(f.suffix) || key.size() <= f.prefix.size() + f.suffix.size())
            continue;
        if (const auto stat = mlperf_percentile_stat(key.substr(f.prefix.size(), key.size() - f.prefix.size() - f.suffix.size())))
            return std::string(f.metric) + "." + *stat;
    }
    return std::nullopt;
}

// One `:::MLLOG` line: its key, value and where it was.
struct mlperf_entry {
    std::string key;
    nlohmann::json value;
    json_place place;
    bool warning = false, error = false;
};

inline mlperf_entry parse_mlperf_entry(std::string_view line, const std::string& file, std::size_t number) {
    json_place place{file, number};
    if (!line.starts_with(mlperf_detail_prefix))
        throw input_error(file, number, "", "expected a \":::MLLOG {json}\" line, got \"" + std::string(line.substr(0, 60)) + "\"");
    line.remove_prefix(mlperf_detail_prefix.size());
    nlohmann::json object = parse_json_text(line, place, true);
    if (!object.is_object()) place.fail("", "expected a JSON object after :::MLLOG");
    mlperf_entry e{json_string(json_require(object, "key", place, ""), place, "key"), {}, place};
    e.value = json_require(object, "value", place, "");
    if (const auto* meta = json_member(object, "metadata"); meta && meta->is_object()) {
        const auto* w = json_member(*meta, "is_warning");
        const auto* err = json_member(*meta, "is_error");
        e.warning = w && w->is_boolean() && w->get<bool>();
        e.error = err && err->is_boolean() && err->get<bool>();
    }
    return e;
}

inline bool mlperf_bool(const mlperf_entry& e) {
    if (!e.value.is_boolean()) e.place.fail(e.key, std::string("expected true or false, got ") + json_type_name(e.value));
    return e.value.get<bool>();
}

class mlperf_detail_reader {
public:
    explicit mlperf_detail_reader(std::string file) : file_(std::move(file)) {}

    void add(const mlperf_entry& e) {
        if (e.warning && warnings_++ == 0) first_warning_ = json_text_of(e.value);
        if (e.error && errors_++ == 0) first_error_ = json_text_of(e.value);
        const std::string_view key = e.key;
        if (setting(e) || result(e)) return;
        if (key == "sut_name") r_.sut_name = json_string(e.value, e.place, e.key);
        else if (key == "effective_scenario") r_.scenario = json_string(e.value, e.place, e.key);
        else if (key == "effective_test_mode") r_.mode = json_string(e.value, e.place, e.key);
        else if (key == "loadgen_version") r_.loadgen_version = json_string(e.value, e.place, e.key);
        else if (key == "test_datetime") r_.started_at = json_string(e.value, e.place, e.key);
        else if (key == "requested_use_token_latencies") token_latencies_ = mlperf_bool(e);
        else if (key == "generated_samples_per_query") generated_samples_per_query_ = json_number(e.value, e.place, e.key);
        else if (key == "result_validity") {
            const std::string& v = json_string(e.value, e.place, e.key);
            if (v != "VALID" && v != "INVALID") e.place.fail(e.key, "expected VALID or INVALID, got \"" + v + "\"");
            r_.valid = v == "VALID";
        } else if (key == "result_perf_constraints_met") {
            if (!mlperf_bool(e)) r_.unmet.emplace_back("performance constraints");
        } else if (key == "result_min_duration_met") {
            if (!mlperf_bool(e)) r_.unmet.emplace_back("min duration");
        } else if (key == "result_min_queries_met") {
            if (!mlperf_bool(e)) r_.unmet.emplace_back("min queries");
        } else if (key == "early_stopping_met") {
            if (!mlperf_bool(e)) r_.unmet.emplace_back("early stopping");
        } else if (key == "result_invalid_reason") {
            const auto reason = mlperf_collapse_spaces(json_string(e.value, e.place, e.key));
            if (!reason.empty()) r_.reasons.push_back(reason);
        } else if (key == "early_stopping_result" || key == "early_stopping_ttft_result" || key == "early_stopping_tpot_result") {
            const std::string kind = key == "early_stopping_result" ? "latency" : key == "early_stopping_ttft_result" ? "ttft" : "tpot";
            r_.early_stopping.push_back({kind, mlperf_split_items(json_string(e.value, e.place, e.key)), e.place.line});
        } else if (key == "result_overlatency_query_count") {
            overlatency_ = json_number(e.value, e.place, e.key);
        }
    }

    // What the detail log gave; `last_line` for errors about what it lacks.
    mlperf_result finish(std::size_t last_line) {
        if (r_.scenario.empty()) throw input_error(file_, last_line, "effective_scenario", "missing (truncated detail log?)");
        for (const auto& block : r_.early_stopping) add_early_stopping_values(r_, block, file_);
        // tokens / (mean latency in ns × samples): tokens per ns, what the SingleStream summary prints
        // per second as "TPS w/o loadgen overhead"; elsewhere tokens over the sum of all latencies, a
        // rate no run achieved, which the summary does not print either.
        if (token_throughput_ && r_.scenario == "SingleStream") {
            add_mlperf_value(r_, "mlperf.tps_without_loadgen_overhead", *token_throughput_ * 1e9, "tok/s");
            r_.notes.emplace_back("LoadGen's result_token_throughput is tokens per nanosecond (it divides by the mean "
                                  "latency in ns): read x 1e9 as mlperf.tps_without_loadgen_overhead");
        }
        if (overlatency_ && r_.settings.contains("target_latency_s"))
            add_mlperf_value(r_, "mlperf.overlatency_query_count", *overlatency_, "queries");
        const auto spq = r_.settings.find("samples_per_query");
        if (generated_samples_per_query_ && spq != r_.settings.end() && spq->get<double>() != *generated_samples_per_query_)
            r_.notes.push_back(fmt::format("LoadGen generated {} samples per query, not the setting's {} "
                                           "(sample_concatenate_permutation)",
                                           shortest_number(*generated_samples_per_query_), spq->dump()));
        if (warnings_ > 0)
            r_.notes.push_back(fmt::format("LoadGen logged {} warning(s), the first: {}", warnings_, first_warning_));
        if (errors_ > 0)
            r_.notes.push_back(fmt::format("LoadGen logged {} error(s), the first: {}: check the results", errors_, first_error_));
        if (!token_latencies_) {
            r_.settings.erase("ttft_constraint_s");
            r_.settings.erase("tpot_constraint_s");
        }
        return std::move(r_);
    }

private:
    static std::string json_text_of(const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

    bool setting(const mlperf_entry& e) {
        for (const auto& s : mlperf_settings)
            if (e.key == s.detail_key) {
                add_mlperf_setting(r_, s, json_number(e.value, e.place, e.key));
                return true;
            }
        return false;
    }

    bool result(const mlperf_entry& e) {
        for (const auto& v : mlperf_detail_values)
            if (e.key == v.key) {
                add_mlperf_value(r_, std::string(v.reported), json_number(e.value, e.place, e.key) * v.scale, v.unit);
                r_.inferred_tokens |= e.key.find("inferred") != std::string::npos;
                return true;
            }
        if (e.key == "result_token_throughput") {
            token_throughput_ = json_number(e.value, e.place, e.key);
            return true;
        }
        if (const auto name = mlperf_detail_percentile(e.key)) {
            add_mlperf_value(r_, *name, json_number(e.value, e.place, e.key) * 1e-9, "s");
            return true;
        }
        return false;
    }

    std::string file_;
    mlperf_result r_;
    bool token_latencies_ = false;
    std::optional<double> generated_samples_per_query_, overlatency_, token_throughput_;
    std::size_t warnings_ = 0, errors_ = 0;
    std::string first_warning_, first_error_;
};

inline mlperf_result parse_mlperf_detail(const std::filesystem::path& file, const read_options& options) {
    line_source lines(file, options.max_line_bytes);
    lines.count_into(options.progress);
    mlperf_detail_reader reader(file.string());
    std::size_t last = 0;
    while (const auto line = lines.next()) {
        last = lines.line_number();
        if (trim_spaces(*line).empty()) continue;
        reader.add(parse_mlperf_entry(*line, file.string(), last));
    }
    mlperf_result r = reader.finish(last);
    if (!r.valid) {
        if (r.mode == "AccuracyOnly")
            throw not_a_run_error(file.string(), 0, "",
                                  "an MLPerf LoadGen accuracy-mode log: it holds no performance results (accuracy is "
                                  "scored from mlperf_log_accuracy.json)");
        throw input_error(file.string(), last, "result_validity",
                          "missing: the run did not finish or the log was cut (LoadGen logs its results last)");
    }
    return r;
}

// ---- the run ----

// The settings as parameters; what the load was depends on the scenario (LoadGen's, not the folder's):
// Server sends samples at Poisson arrivals of target_qps, the offered load (request_rate); Offline
// sends every sample at once, so target_qps only sizes that one query (expected_qps); SingleStream
// sends one sample after another (concurrency 1) and MultiStream one query of samples_per_query
// samples after another (concurrency samples_per_query), target_qps there only the expected rate.
// The TTFT/TPOT and latency limits bind only Server runs (LoadGen checks no constraint elsewhere).
inline void add_mlperf_params(nlohmann::json& params, const mlperf_result& r) {
    for (const auto& [key, value] : r.settings.items()) {
        if (key == "target_qps") {
            params[r.scenario == "Server" ? "request_rate" : "expected_qps"] = value;
        } else if (key == "ttft_constraint_s" || key == "tpot_constraint_s" || key == "target_latency_s") {
            if (r.scenario == "Server") params[key] = value;
        } else {
            params[key] = value;
        }
    }
    if (r.scenario == "SingleStream") params["concurrency"] = 1;
    if (r.scenario == "MultiStream" && r.settings.contains("samples_per_query"))
        params["concurrency"] = r.settings["samples_per_query"];
}

inline std::string mlperf_invalid_note(const mlperf_result& r) {
    std::string note = "LoadGen judged this run INVALID";
    for (std::size_t k = 0; k < r.unmet.size(); ++k) note += (k == 0 ? ": " : ", ") + r.unmet[k] + " not satisfied";
    if (!r.reasons.empty()) {
        note += "; LoadGen's reasons:";
        for (const auto& reason : r.reasons) note += " " + reason;
    }
    for (const auto& block : r.early_stopping) {
        if (block.items.empty() || (block.items.size() == 1 && block.items.front() == "Run successful.")) continue;
        note += "; " + (block.kind == "latency" ? std::string("early stopping") : block.kind + " early stopping") + ":";
        for (const auto& item : block.items) note += " " + item;
    }
    return note;
}

inline void add_mlperf_result_notes(run_metadata& meta, const mlperf_result& r) {
    if (r.valid && !*r.valid) meta.notes.push_back(mlperf_invalid_note(r));
    // LoadGen checks TTFT early stopping only when TPOT's passed (a && that stops early).
    const mlperf_early_stopping* ttft = nullptr;
    bool tpot_failed = false;
    for (const auto& block : r.early_stopping) {
        if (block.kind == "ttft") ttft = &block;
        if (block.kind == "tpot" && !block.items.empty() && block.items.front() == "Run unsuccessful.") tpot_failed = true;
    }
    if (ttft && ttft->items.empty() && tpot_failed)
        meta.notes.push_back("TTFT early stopping was not evaluated: LoadGen checks it only when TPOT early stopping "
                             "passes, and TPOT's failed");
    meta.notes.emplace_back(mlperf_timing_note);
    meta.notes.emplace_back(mlperf_percentile_note);
    if (r.scenario == "Server") meta.notes.emplace_back(mlperf_server_rate_note);
    if (r.scenario == "Offline") meta.notes.emplace_back(mlperf_offline_note);
    if (r.inferred_tokens) meta.notes.emplace_back(mlperf_inferred_note);
    for (const auto& note : r.notes) meta.notes.push_back(note);
    if (!r.unknown.empty()) {
        std::string list;
        for (const auto& u : r.unknown) list += (list.empty() ? "" : ", ") + u;
        meta.notes.push_back("lines this reader does not know, not read: " + list);
    }
}

inline run mlperf_run(const std::filesystem::path& file, mlperf_result&& r) {
    run out;
    auto& meta = out.meta;
    meta.kind = run_kind::summary;
    meta.shared_clock = false;
    meta.tool = "mlperf-loadgen";
    meta.source = {file.string(), std::string(mlperf_loadgen_name)};
    meta.started_at = r.started_at;
    const mlperf_path_info where = mlperf_path_of(file);
    std::string scenario = r.scenario;
    if (!where.scenario.empty() && where.scenario != r.scenario) {
        if (where.scenario == "Interactive" && r.scenario == "Server") scenario = where.scenario;
        else
            meta.notes.push_back("the folder says scenario " + where.scenario + ", the log " + r.scenario +
                                 ": the log's is used");
    }
    auto& p = meta.params;
    p["scenario"] = scenario;
    if (scenario != r.scenario) p["loadgen_scenario"] = r.scenario;
    if (!r.sut_name.empty()) p["sut_name"] = r.sut_name;
    if (!r.mode.empty() && r.mode != "PerformanceOnly") p["test_mode"] = r.mode;
    if (r.valid) p["result_valid"] = *r.valid;
    if (!r.loadgen_version.empty()) p["loadgen_version"] = r.loadgen_version;
    if (!where.system.empty()) p["system"] = where.system;
    if (!where.benchmark.empty()) {
        p["benchmark"] = where.benchmark;
        meta.model = mlperf_model_of(where.benchmark);
    }
    if (!where.compliance_test.empty()) {
        p["compliance_test"] = where.compliance_test;
        meta.notes.push_back("a compliance (audit) test's run, " + where.compliance_test + ", not the submitted result");
    }
    if (where.run_folder == "ranging")
        meta.notes.push_back("a ranging run (performance/ranging/): the run that found the load, not the submitted result");
    add_mlperf_params(p, r);
    meta.label = where.system.empty() ? (r.sut_name.empty() ? file.stem().string() : r.sut_name) + "/" + scenario
                                      : where.system + "/" + where.benchmark + "/" + scenario;
    if (!where.compliance_test.empty()) meta.label += "/" + where.compliance_test;
    if (!where.run_folder.empty() && where.run_folder != "run_1") meta.label += "/" + where.run_folder;
    meta.notes.push_back("MLPerf LoadGen's own results only: no per-request data");
    add_mlperf_result_notes(meta, r);
    meta.reported = std::move(r.reported);
    return out;
}

// ---- the detail log beside a summary ----

inline int sniff_mlperf_detail(std::string_view head);

// Two values of one quantity agree when they differ by no more than the summary's rounding (two
// decimals, or six significant digits).
inline bool mlperf_same_value(double summary, double detail) {
    return std::fabs(summary - detail) <= 0.005 + 1e-5 * std::fabs(detail);
}

// Why the detail log cannot be this summary's run, or nullopt when it is.
inline std::optional<std::string> mlperf_other_run(const mlperf_result& s, const mlperf_result& d) {
    if (s.scenario != d.scenario) return "its scenario is " + d.scenario + ", the summary's " + s.scenario;
    if (s.valid != d.valid) return std::string("its result is ") + (*d.valid ? "VALID" : "INVALID") + ", the summary's not";
    for (const auto& v : s.reported)
        for (const auto& w : d.reported)
            if (v.name == w.name && !mlperf_same_value(v.value, w.value))
                return fmt::format("its {} is {}, the summary's {}", v.name, shortest_number(w.value), shortest_number(v.value));
    return std::nullopt;
}

// The detail log's settings and the values the summary does not print, added to the summary's.
inline void merge_mlperf_detail(mlperf_result& s, mlperf_result&& d) {
    for (const auto& [key, value] : d.settings.items()) {
        if (!s.settings.contains(key)) s.settings[key] = value;
        else if (s.settings[key] != value)
            s.notes.push_back(fmt::format("{}: the summary gives {}, the detail log {}; the summary's is used", key,
                                          s.settings[key].dump(), value.dump()));
    }
    for (auto& v : d.reported)
        if (!std::any_of(s.reported.begin(), s.reported.end(), [&](const reported_value& w) { return w.name == v.name; }))
            s.reported.push_back(std::move(v));
    s.loadgen_version = std::move(d.loadgen_version);
    s.started_at = std::move(d.started_at);
    for (auto& note : d.notes)
        if (std::find(s.notes.begin(), s.notes.end(), note) == s.notes.end()) s.notes.push_back(std::move(note));
}

// Reads the detail log beside `summary_file` into `s`; true when it was merged. A detail log that
// cannot be read, or is another run's, leaves the summary complete on its own, with a note.
inline bool add_mlperf_detail_beside(const std::filesystem::path& summary_file, const read_options& options, mlperf_result& s) {
    const auto detail = summary_file.parent_path() / mlperf_detail_file;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(detail, ec)) return false;
    try {
        if (sniff_mlperf_detail(read_input_head(detail, 4096)) == 0) return false;
        mlperf_result d = parse_mlperf_detail(detail, options);
        if (const auto why = mlperf_other_run(s, d)) {
            s.notes.push_back("mlperf_log_detail.txt beside it is not merged, it is another run: " + *why);
            return false;
        }
        merge_mlperf_detail(s, std::move(d));
        s.notes.emplace_back("settings and the values the summary does not print are from mlperf_log_detail.txt beside it");
        return true;
    } catch (const input_error& e) {
        s.notes.push_back(std::string("mlperf_log_detail.txt beside it could not be read, only the summary's settings are "
                                      "used: ") + e.what());
        return false;
    }
}

// ---- entry points ----

inline std::size_t mlperf_first_text(std::string_view head) {
    const auto at = head.find_first_not_of(" \t\r\n");
    return at == std::string_view::npos ? head.size() : at;
}

// The summary starts with LoadGen's rule and title (a README quoting one further down is no summary).
inline int sniff_mlperf_summary(std::string_view head) {
    head.remove_prefix(mlperf_first_text(head));
    if (!head.starts_with(mlperf_rule)) return 0;
    head.remove_prefix(mlperf_rule.size());
    if (head.starts_with("\r")) head.remove_prefix(1);
    return head.starts_with("\n" + std::string(mlperf_summary_title)) ? 100 : 0;
}

// The detail log's first line is a `:::MLLOG {` record.
inline int sniff_mlperf_detail(std::string_view head) {
    head.remove_prefix(mlperf_first_text(head));
    return head.starts_with(std::string(mlperf_detail_prefix) + "{") ? 100 : 0;
}

inline int sniff_mlperf_loadgen(std::string_view head) {
    return std::max(sniff_mlperf_summary(head), sniff_mlperf_detail(head));
}

inline std::vector<run> read_mlperf_loadgen(const std::filesystem::path& file, const read_options& options) {
    const std::string head = read_input_head(file, 4096);
    if (sniff_mlperf_detail(head) > 0) {
        mlperf_result d = parse_mlperf_detail(file, options);
        std::vector<run> runs;
        runs.push_back(mlperf_run(file, std::move(d)));
        runs.back().meta.notes.emplace_back("read from the detail log alone: settings and results from its :::MLLOG lines");
        return runs;
    }
    const std::string text = read_whole_file(file);
    mlperf_result s = mlperf_summary_parser(file.string(), text).parse();
    const bool merged = add_mlperf_detail_beside(file, options, s);
    std::vector<run> runs;
    runs.push_back(mlperf_run(file, std::move(s)));
    if (merged) runs.back().meta.source.merged.push_back((file.parent_path() / mlperf_detail_file).string());
    return runs;
}

} // namespace detail

inline constexpr log_format mlperf_loadgen_format{
    detail::mlperf_loadgen_name,
    "MLPerf Inference LoadGen logs: mlperf_log_summary.txt and mlperf_log_detail.txt (:::MLLOG lines), one summary run each",
    &detail::sniff_mlperf_loadgen, &detail::read_mlperf_loadgen};

} // namespace servestat
