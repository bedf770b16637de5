// Reader for the console output of the serving benchmarks of vLLM (`vllm bench serve`, the legacy
// benchmarks/benchmark_serving.py) and of SGLang (`python -m sglang.bench_serving`) saved as text:
// one run_kind::summary run per "Serving Benchmark Result" block, with the settings printed before it.
//
// Both tools print their settings first, argparse's repr `Namespace(...)` (SGLang's newer versions
// as `benchmark_args=Namespace(...)`, then once more), and vLLM echoes "Traffic request rate: inf",
// "Burstiness factor: 1.0 (Poisson process)" and "Maximum request concurrency: 16". Then the block:
// its header line, rows "<label>:<padding><value>" (Python's "{:<40} {:<10.2f}": two decimals,
// latencies in ms), ruler lines naming a section ("----Time to First Token----") and a closing line
// of 50 '='. SGLang's block alone starts with "Backend:", which tells the tools apart. The rest (tqdm
// bars redrawn with carriage returns, warnings, server log lines, a wrapper script's headings) is
// skipped. The numbers are those the tool saves with --save-result / --output-file, rounded, and are
// reported under the names the JSON readers give them (vllm_bench_json.hpp, sglang_bench_serving.hpp)
// so that a log beside its JSON is known for the same run (same_run.hpp).
#pragma once

#include <charconv>     // std::from_chars
#include <cmath>        // std::floor, std::isfinite, std::isnan
#include <cstddef>      // std::size_t
#include <filesystem>   // std::filesystem::path
#include <limits>       // std::numeric_limits
#include <map>          // std::map
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <system_error> // std::errc
#include <utility>      // std::move, std::pair
#include <vector>       // std::vector

#include <nlohmann/json.hpp> // nlohmann::json

#include "servestat/core/errors.hpp"                // input_error, not_a_run_error
#include "servestat/core/run.hpp"                   // run, run_metadata, reported_value, run_kind
#include "servestat/core/run_names.hpp"             // name_runs_by_params
#include "servestat/core/text.hpp"                  // trim_spaces
#include "servestat/ingest/input_file.hpp"          // read_whole_file
#include "servestat/ingest/json_document.hpp"       // param_number
#include "servestat/ingest/python_namespace.hpp"    // parse_py_namespace, py_namespace, py_string_list
#include "servestat/ingest/reader.hpp"              // log_format, read_options
#include "servestat/ingest/sglang_bench_serving.hpp" // sglang_settings, is_sglang_random_setting
#include "servestat/ingest/vllm_bench_json.hpp"     // vllm_param_value

namespace servestat {
namespace detail {

inline constexpr std::string_view bench_console_name = "bench-serving-console";
inline constexpr std::string_view bench_console_header = "============ Serving Benchmark Result ============";
// The JSON readers' tool names: a console run and a JSON run of one tool compare (same_run.hpp).
inline constexpr std::string_view console_vllm_tool = "vllm-bench-serve";
inline constexpr std::string_view console_sglang_tool = "sglang-bench-serving";

// ---- the file as the terminal showed it -------------------------------------------------------

// A piece of a line: a tqdm bar redrawn with carriage returns is several pieces of one line.
struct console_piece {
    std::string_view text; // trimmed of spaces
    std::size_t line = 0;
};

inline std::vector<console_piece> console_pieces(std::string_view text) {
    std::vector<console_piece> out;
    std::size_t line = 0;
    for (std::size_t pos = 0; pos < text.size();) {
        std::size_t end = text.find('\n', pos);
        if (end == std::string_view::npos) end = text.size();
        std::string_view whole = text.substr(pos, end - pos);
        pos = end + 1;
        ++line;
        for (std::size_t from = 0;;) {
            const std::size_t cr = whole.find('\r', from);
            const std::string_view piece = trim_spaces(whole.substr(from, cr == std::string_view::npos ? whole.npos : cr - from));
            if (!piece.empty()) out.push_back({piece, line});
            if (cr == std::string_view::npos) break;
            from = cr + 1;
        }
    }
    return out;
}

// The closing line: only '=' (50 of them; a wrapper's own ruler outside a block is never read as one).
inline bool is_closing_line(std::string_view t) {
    return t.size() >= 40 && t.find_first_not_of('=') == std::string_view::npos;
}

// "---------------Time to First Token----------------"
inline bool is_ruler_line(std::string_view t) { return t.size() >= 10 && t.front() == '-' && t.back() == '-'; }

// "Benchmark duration (s):                  51.62" → {"Benchmark duration (s):", "51.62"}.
inline std::optional<std::pair<std::string_view, std::string_view>> console_row_parts(std::string_view t) {
    const std::size_t colon = t.find(':');
    if (colon == std::string_view::npos || colon == 0 || colon + 1 == t.size() || t[colon + 1] != ' ') return std::nullopt;
    return std::pair{t.substr(0, colon + 1), trim_spaces(t.substr(colon + 1))};
}

// A number as Python printed it, nullopt when it is not one; "nan" (a statistic of nothing) is NaN.
inline std::optional<double> console_value_number(std::string_view s) {
    if (s == "nan" || s == "NaN") return std::numeric_limits<double>::quiet_NaN();
    double x = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
    if (s.empty() || ec != std::errc() || end != s.data() + s.size() || !std::isfinite(x)) return std::nullopt;
    return x;
}

// ---- the result block -------------------------------------------------------------------------

struct console_row {
    std::string_view label; // with its ':'
    std::string_view value;
    std::size_t line = 0;
};

struct console_block {
    std::size_t header_line = 0;
    std::size_t last_line = 0;
    std::vector<console_row> rows;

    const console_row* find(std::string_view label) const {
        for (const auto& r : rows)
            if (r.label == label) return &r;
        return nullptr;
    }
    bool sglang() const { return find("Backend:") != nullptr; } // vLLM's block never names its backend
};

// Rows every block of the tool prints, in its order: a block cut short names the first one missing.
inline constexpr std::string_view vllm_core_rows[] = {"Successful requests:",       "Benchmark duration (s):",
                                                      "Total input tokens:",         "Total generated tokens:",
                                                      "Request throughput (req/s):", "Output token throughput (tok/s):"};
inline constexpr std::string_view sglang_core_rows[] = {
    "Backend:",           "Traffic request rate:",   "Successful requests:",       "Benchmark duration (s):",
    "Total input tokens:", "Total generated tokens:", "Request throughput (req/s):", "Output token throughput (tok/s):"};

inline std::string row_field(std::string_view label) { return std::string(label.substr(0, label.size() - 1)); }

// The rows that are numbers both tools save, with the reported names the JSON readers give them
// (empty: the tool prints no such row).
struct console_value_row {
    std::string_view label, vllm, sglang, unit;
    bool count;
};

inline constexpr console_value_row console_value_rows[] = {
    {"Successful requests:", "ok", "ok", "requests", true},
    {"Failed requests:", "failed", "", "requests", true},
    {"Benchmark duration (s):", "duration", "duration", "s", false},
    {"Total input tokens:", "vllm.total_input_tokens", "sglang.total_input_tokens", "tokens", true},
    {"Total input text tokens:", "", "sglang.total_input_text_tokens", "tokens", true},
    {"Total input vision tokens:", "", "sglang.total_input_vision_tokens", "tokens", true},
    {"Total generated tokens:", "vllm.total_output_tokens", "sglang.total_output_tokens", "tokens", true},
    {"Total generated tokens (retokenized):", "", "sglang.total_output_tokens_retokenized", "tokens", true},
    {"Request throughput (req/s):", "rps", "rps", "req/s", false},
    {"Request goodput (req/s):", "vllm.request_goodput", "", "req/s", false},
    {"Input token throughput (tok/s):", "vllm.input_throughput", "sglang.input_throughput", "tok/s", false},
    {"Output token throughput (tok/s):", "output_tps", "output_tps", "tok/s", false},
    {"Peak output token throughput (tok/s):", "vllm.max_output_tokens_per_s", "sglang.max_output_tokens_per_s", "tok/s", false},
    {"Peak concurrent requests:", "vllm.max_concurrent_requests", "sglang.max_concurrent_requests", "requests", false},
    {"Total Token throughput (tok/s):", "total_tps", "total_tps", "tok/s", false}, // vLLM until 2025
    {"Total token throughput (tok/s):", "total_tps", "total_tps", "tok/s", false},
    {"Total throughput (tok/s):", "total_tps", "total_tps", "tok/s", false}, // SGLang of 2024
    {"Concurrency:", "", "sglang.concurrency", "requests", false},
    {"Accept length:", "", "sglang.accept_length", "tokens", false},
};

// Rows that are settings, not results: read into the run's parameters.
inline constexpr std::string_view console_setting_rows[] = {"Backend:", "Traffic request rate:", "Max request concurrency:",
                                                            "Maximum request concurrency:", "Request rate configured (RPS):"};

// The latency statistics, "<Stat> <Metric> (ms):": servestat's metric for each metric label.
inline constexpr std::pair<std::string_view, std::string_view> console_metrics[] = {
    {"TTFT", "ttft"}, {"TPOT", "tpot"}, {"ITL", "itl"}, {"E2EL", "e2e"}, {"E2E Latency", "e2e"}};

struct console_stat {
    std::string stat;          // "mean", "p50", "p99.9", "std", "max"
    std::string_view metric;   // "ttft"
};

// "P99.9 TTFT (ms):" → {"p99.9", "ttft"}; nullopt for any other label.
inline std::optional<console_stat> console_stat_of(std::string_view label) {
    constexpr std::string_view unit = " (ms):";
    if (!label.ends_with(unit)) return std::nullopt;
    label.remove_suffix(unit.size());
    const std::size_t space = label.find(' ');
    if (space == std::string_view::npos) return std::nullopt;
    const std::string_view stat = label.substr(0, space), metric = label.substr(space + 1);
    console_stat out;
    for (const auto& [name, key] : console_metrics)
        if (metric == name) out.metric = key;
    if (out.metric.empty()) return std::nullopt;
    if (stat == "Mean") out.stat = "mean";
    else if (stat == "Std") out.stat = "std";
    else if (stat == "Max") out.stat = "max";
    else if (stat == "Min") out.stat = "min";
    else if (stat == "Median") out.stat = "p50";
    else if (stat.size() > 1 && stat[0] == 'P' && console_value_number(stat.substr(1))) out.stat = "p" + std::string(stat.substr(1));
    else return std::nullopt;
    return out;
}

// ---- settings ---------------------------------------------------------------------------------

// What was printed before a block: the last Namespace(...) and vLLM's echo lines after it.
struct console_settings {
    std::optional<py_namespace> names;
    std::size_t names_line = 0;
    std::map<std::string, std::pair<nlohmann::json, std::size_t>> echo; // key → value (null: None), line
};

// vLLM's echo lines: "Traffic request rate: inf", "Burstiness factor: 1.0 (Poisson process)",
// "Maximum request concurrency: None". A value that is no number (a ramp-up's text) is not a setting.
inline void read_echo_line(std::string_view t, std::size_t line, console_settings& s) {
    static constexpr std::pair<std::string_view, std::string_view> echoes[] = {
        {"Traffic request rate: ", "request_rate"},
        {"Burstiness factor: ", "burstiness"},
        {"Maximum request concurrency: ", "max_concurrency"}};
    for (const auto& [prefix, key] : echoes) {
        if (!t.starts_with(prefix)) continue;
        std::string_view value = trim_spaces(t.substr(prefix.size()));
        value = value.substr(0, value.find(' '));
        if (value == "None") s.echo[std::string(key)] = {nullptr, line};
        else if (value == "inf" && key != "max_concurrency") s.echo[std::string(key)] = {"inf", line};
        else if (const auto x = console_value_number(value); x && *x > 0) s.echo[std::string(key)] = {param_number(*x), line};
        return;
    }
}

class console_setting_reader {
public:
    console_setting_reader(const std::string& file, std::size_t line) : file_(file), line_(line) {}

    // A whole number (num_prompts, max_concurrency, a length): Python's int, or a str holding one.
    nlohmann::json count(const py_setting& s) const {
        const auto x = console_value_number(s.value);
        if (!x || *x < 0 || *x != std::floor(*x)) fail(s, "expected a whole number");
        return param_number(*x);
    }

    // A rate or burstiness: a positive number or inf (vLLM's and SGLang's unbounded rate).
    nlohmann::json rate(const py_setting& s) const {
        if (s.value == "inf") return "inf";
        const auto x = console_value_number(s.value);
        if (!x || !(*x > 0)) fail(s, "expected a number greater than 0 or inf");
        return param_number(*x);
    }

    // Any other setting: a str as text (a number in a str as the number: vLLM prints
    // random_range_ratio='0.0'), True/False, a number.
    nlohmann::json other(const py_setting& s) const {
        if (const auto x = console_value_number(s.value); x && std::isfinite(*x)) return param_number(*x);
        if (s.quoted) return s.value;
        if (s.value == "True" || s.value == "False") return s.value == "True";
        return s.value;
    }

    [[noreturn]] void fail(const py_setting& s, const std::string& why) const {
        throw input_error(file_, line_, s.key, why + ", got " + (s.quoted ? "'" + s.value + "'" : s.value));
    }

private:
    const std::string& file_;
    std::size_t line_;
};

inline bool is_console_count_setting(std::string_view key) {
    return key == "num_prompts" || key == "max_concurrency" || key.ends_with("_len");
}

inline void add_console_setting(const console_setting_reader& reader, const py_setting& s, run_metadata& meta) {
    if (!s.quoted && s.value == "None") return;
    if (s.key == "request_rate" || s.key == "burstiness") meta.params[s.key] = reader.rate(s);
    else if (is_console_count_setting(s.key)) meta.params[s.key] = reader.count(s);
    else meta.params[s.key] = reader.other(s);
}

inline std::string py_text(const py_namespace& n, std::string_view key) {
    const auto* s = n.find(key);
    return s && s->quoted ? s->value : std::string();
}

// vLLM: the settings its JSON result holds (backend, num_prompts, request_rate, burstiness,
// max_concurrency, --metadata pairs), the dataset and its lengths, model and label.
inline void read_vllm_console_settings(const py_namespace& n, const console_setting_reader& reader, run_metadata& meta) {
    const std::string dataset = py_text(n, "dataset_name");
    for (const auto& s : n.settings) {
        const std::string_view k = s.key;
        const bool general = k == "backend" || k == "endpoint_type" || k == "dataset_name" || k == "num_prompts" ||
                             k == "request_rate" || k == "burstiness" || k == "max_concurrency" || k == "input_len" ||
                             k == "output_len";
        const bool of_dataset = (k.starts_with("random_") && dataset.starts_with("random") && k.ends_with("_len")) ||
                                (k == "random_range_ratio" && dataset.starts_with("random")) ||
                                (k == "sharegpt_output_len" && dataset == "sharegpt") ||
                                (k.starts_with("sonnet_") && dataset == "sonnet");
        if (general || of_dataset) add_console_setting(reader, s, meta);
    }
    if (const auto* pairs = n.find("metadata"); pairs && !pairs->quoted && pairs->value != "None")
        for (const auto& pair : py_string_list(pairs->value))
            if (const auto eq = pair.find('='); eq != std::string::npos && eq > 0)
                meta.params[pair.substr(0, eq)] = vllm_param_value(nlohmann::json(pair.substr(eq + 1)));
    if (const std::string model = py_text(n, "model"); !model.empty()) meta.model = model;
    if (const std::string label = py_text(n, "label"); !label.empty()) meta.label = label;
}

// SGLang: the settings its JSON line holds, with its reader's rules (random_* only for a random
// dataset, sharegpt_output_len only for sharegpt), model and tag.
inline void read_sglang_console_settings(const py_namespace& n, const console_setting_reader& reader, run_metadata& meta) {
    const std::string dataset = py_text(n, "dataset_name");
    const bool random = dataset.starts_with("random") || dataset == "image";
    for (const std::string_view key : sglang_settings) {
        const auto* s = n.find(key);
        if (!s || (is_sglang_random_setting(key) && !random) || (key == "sharegpt_output_len" && dataset != "sharegpt"))
            continue;
        add_console_setting(reader, *s, meta);
    }
    if (const std::string model = py_text(n, "model"); !model.empty()) meta.model = model;
    if (const std::string tag = py_text(n, "tag"); !tag.empty()) meta.label = tag;
}

// The block's own setting rows (SGLang's Backend, Traffic request rate, Max request concurrency;
// vLLM's Maximum request concurrency, Request rate configured): what the block says wins.
// The parameter a setting row of the block gives, empty for any other row.
inline std::string block_setting_key(std::string_view label) {
    if (label == "Backend:") return "backend";
    if (label == "Traffic request rate:" || label == "Request rate configured (RPS):") return "request_rate";
    if (label == "Max request concurrency:" || label == "Maximum request concurrency:") return "max_concurrency";
    return {};
}

// The block's own setting rows (SGLang's Backend, Traffic request rate, Max request concurrency;
// vLLM's Maximum request concurrency, Request rate configured): what the block says wins.
inline void read_block_settings(const console_block& b, const std::string& file, run_metadata& meta) {
    for (const auto& r : b.rows) {
        const py_setting s{block_setting_key(r.label), std::string(r.value), r.label == "Backend:"};
        if (s.key.empty()) continue;
        if (s.value == "not set" || s.value == "None") {
            meta.params.erase(s.key);
            continue;
        }
        try {
            add_console_setting(console_setting_reader(file, r.line), s, meta);
        } catch (const input_error& e) { // named by the row's label, as the log shows it
            throw input_error(file, r.line, row_field(r.label), e.reason());
        }
    }
}

// ---- one block → one run ----------------------------------------------------------------------

class console_run_builder {
public:
    console_run_builder(const std::filesystem::path& file, const console_block& b, const console_settings& s)
        : file_(file), path_(file.string()), b_(b), s_(s), sglang_(b.sglang()) {}

    run build() {
        run out;
        auto& meta = out.meta;
        meta.kind = run_kind::summary;
        meta.shared_clock = false;
        meta.source = {path_, std::string(bench_console_name)};
        meta.tool = std::string(sglang_ ? console_sglang_tool : console_vllm_tool);
        meta.label = file_.stem().string();
        read_settings(meta);
        read_block_settings(b_, path_, meta);
        read_values(meta);
        add_notes(meta);
        return out;
    }

private:
    void read_settings(run_metadata& meta) {
        if (s_.names) {
            const console_setting_reader reader(path_, s_.names_line);
            if (sglang_) read_sglang_console_settings(*s_.names, reader, meta);
            else read_vllm_console_settings(*s_.names, reader, meta);
        }
        for (const auto& [key, echo] : s_.echo) {
            if (echo.first.is_null()) meta.params.erase(key);
            else meta.params[key] = echo.first;
        }
    }

    void read_values(run_metadata& meta) {
        const auto* ok = b_.find("Successful requests:");
        const bool none_ok = ok && console_value_number(ok->value) == 0.0;
        for (const auto& r : b_.rows) {
            if (is_setting_row(r.label)) continue;
            if (const auto* v = value_row(r.label)) {
                add_value(meta, r, sglang_ ? v->sglang : v->vllm, v->unit, v->count);
            } else if (const auto stat = console_stat_of(r.label)) {
                if (none_ok) continue; // placeholders of np.mean([]) and the like, as the JSON readers treat them
                const bool tool_named = sglang_ && stat->stat == "std"; // numpy's ddof 0, as sglang_bench_serving.hpp names it
                const std::string name = (tool_named ? "sglang." : "") + std::string(stat->metric) + "." + stat->stat;
                if (stat->stat == "p50" && find_reported(meta, name)) continue; // vLLM prints Median and P50 alike
                add_number(meta, r, name, "s", 1e-3, false);
            } else if (console_value_number(r.value)) {
                unread_.push_back(row_field(r.label));
            }
        }
        if (none_ok)
            meta.notes.push_back("no request completed: the tool's latency statistics are placeholders and are not reported");
    }

    static bool is_setting_row(std::string_view label) {
        for (const auto l : console_setting_rows)
            if (l == label) return true;
        return false;
    }

    const console_value_row* value_row(std::string_view label) const {
        for (const auto& v : console_value_rows)
            if (v.label == label && !(sglang_ ? v.sglang : v.vllm).empty()) return &v;
        return nullptr;
    }

    void add_value(run_metadata& meta, const console_row& r, std::string_view name, std::string_view unit, bool count) {
        add_number(meta, r, std::string(name), unit, 1.0, count);
    }

    void add_number(run_metadata& meta, const console_row& r, const std::string& name, std::string_view unit, double scale,
                    bool count) {
        if (find_reported(meta, name)) throw input_error(path_, r.line, row_field(r.label), "given twice in this result block");
        const auto x = console_value_number(r.value);
        if (!x) throw input_error(path_, r.line, row_field(r.label), "expected a number, got \"" + std::string(r.value) + "\"");
        if (std::isnan(*x)) return;
        if (count && (*x < 0 || *x != std::floor(*x)))
            throw input_error(path_, r.line, row_field(r.label), "expected a whole number, got " + std::string(r.value));
        meta.reported.push_back({name, *x * scale, std::string(unit)});
    }

    void add_notes(run_metadata& meta) const {
        meta.notes.push_back(std::string(sglang_ ? "SGLang's bench_serving" : "vLLM's serving benchmark") +
                             " console output: the tool's own aggregates only, printed with two decimals (latencies in "
                             "ms), no per-request data");
        if (!s_.names)
            meta.notes.push_back("no Namespace(...) line before the result block: the settings are only what the block and "
                                 "the lines before it print");
        else if (!s_.names->closed)
            meta.notes.push_back("the Namespace(...) line at line " + std::to_string(s_.names_line) +
                                 " is cut short: the settings after the cut are unknown");
        if (meta.params.contains("request_rate") && meta.params["request_rate"] == "inf")
            meta.notes.push_back("request_rate inf: every request was sent at once (limited by max_concurrency when set), "
                                 "with no arrival process");
        if (!unread_.empty()) {
            std::string note = "rows of the result block not read:";
            for (std::size_t k = 0; k < unread_.size(); ++k) note.append(k ? ", " : " ").append(unread_[k]);
            meta.notes.push_back(std::move(note));
        }
    }

    const std::filesystem::path& file_;
    std::string path_;
    const console_block& b_;
    const console_settings& s_;
    bool sglang_;
    std::vector<std::string> unread_;
};

// ---- the whole file ---------------------------------------------------------------------------

class console_log_reader {
public:
    console_log_reader(const std::filesystem::path& file, std::string_view text) : file_(file), path_(file.string()), text_(text) {}

    std::vector<run> read() {
        std::optional<console_block> block;
        for (const auto& p : console_pieces(text_)) {
            if (block) {
                if (p.text == bench_console_header || starts_namespace(p.text)) cut_short(*block, p.line);
                if (is_closing_line(p.text)) {
                    block->last_line = p.line;
                    finish(*block);
                    block.reset();
                } else if (!is_ruler_line(p.text)) {
                    add_row(*block, p);
                }
            } else if (p.text == bench_console_header) {
                block = console_block{p.line, p.line, {}};
            } else if (starts_namespace(p.text)) {
                settings_ = console_settings{};
                const std::string_view after = p.text.substr(p.text.find("Namespace(") + 10);
                settings_.names = parse_py_namespace(after);
                settings_.names_line = p.line;
                settings_line_ = p.line;
            } else {
                read_echo_line(p.text, p.line, settings_);
            }
        }
        if (block) cut_short(*block, block->last_line);
        return std::move(runs_);
    }

    // The line of the last Namespace(...) read, 0 when there was none.
    std::size_t settings_line() const noexcept { return settings_line_; }

private:
    static bool starts_namespace(std::string_view t) {
        return t.starts_with("Namespace(") || t.starts_with("benchmark_args=Namespace(");
    }

    void add_row(console_block& b, const console_piece& p) const {
        const auto parts = console_row_parts(p.text);
        if (!parts) return; // noise inside the block: an interleaved log line, a stray bar
        b.rows.push_back({parts->first, parts->second, p.line});
        b.last_line = p.line;
    }

    void require_core_rows(const console_block& b, std::size_t line, const std::string& why) const {
        const auto check = [&](const auto& rows) {
            for (const std::string_view label : rows)
                if (!b.find(label))
                    throw input_error(path_, line, row_field(label),
                                      why + ": no \"" + std::string(label) + "\" line (the block starts at line " +
                                          std::to_string(b.header_line) + ")");
        };
        if (b.sglang()) check(sglang_core_rows);
        else check(vllm_core_rows);
    }

    [[noreturn]] void cut_short(const console_block& b, std::size_t line) const {
        const std::string why = "result block cut short";
        require_core_rows(b, line, why);
        throw input_error(path_, line, "result block",
                          why + ": no closing line of '=' (the block starts at line " + std::to_string(b.header_line) + ")");
    }

    void finish(const console_block& b) {
        require_core_rows(b, b.last_line, "incomplete result block");
        runs_.push_back(console_run_builder(file_, b, settings_).build());
        runs_.back().meta.source.line = b.header_line; // reset for a file of one run (read_bench_console)
    }

    const std::filesystem::path& file_;
    std::string path_;
    std::string_view text_;
    console_settings settings_;
    std::size_t settings_line_ = 0;
    std::vector<run> runs_;
};

inline std::vector<run> read_bench_console(const std::filesystem::path& file, const read_options&) {
    const std::string text = read_whole_file(file);
    console_log_reader reader(file, text);
    std::vector<run> runs = reader.read();
    if (runs.empty() && reader.settings_line() > 0)
        throw not_a_run_error(file.string(), reader.settings_line(), "",
                              "the benchmark's settings but no \"Serving Benchmark Result\" block: the run did not finish");
    if (runs.empty())
        throw input_error(file.string(), 0, "",
                          "no \"Serving Benchmark Result\" block: not the console output of vllm bench serve or "
                          "sglang.bench_serving");
    if (runs.size() == 1) runs.front().meta.source.line = 0; // the run is the whole file
    else name_runs_by_params(runs, file.stem().string());   // blocks of one file: named by their settings
    return runs;
}

// ---- detection --------------------------------------------------------------------------------

inline bool console_line_starts_with(std::string_view head, std::string_view s) {
    for (auto at = head.find(s); at != std::string_view::npos; at = head.find(s, at + 1))
        if (at == 0 || head[at - 1] == '\n' || head[at - 1] == '\r') return true;
    return false;
}

// The header at the start of a line; Markdown quoting it in a code fence is documentation (a
// README beside the logs), never a run. A log whose block lies past the head, or that never got
// one, is known by vLLM's or SGLang's Namespace line.
inline int sniff_bench_console(std::string_view head) {
    const auto first = head.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos || head[first] == '{' || head[first] == '[') return 0;
    if (console_line_starts_with(head, "```")) return 0;
    if (console_line_starts_with(head, bench_console_header))
        return console_line_starts_with(head, "Successful requests:") ? 100 : 90;
    if (console_line_starts_with(head, "Namespace(subparser='bench', bench_type='serve'") ||
        console_line_starts_with(head, "benchmark_args=Namespace("))
        return 60;
    return 0;
}

} // namespace detail

inline constexpr log_format bench_serving_console_format{
    detail::bench_console_name,
    "console output of vllm bench serve / benchmark_serving.py and sglang.bench_serving (\"Serving Benchmark Result\" "
    "blocks): aggregates only",
    &detail::sniff_bench_console, &detail::read_bench_console};

} // namespace servestat
