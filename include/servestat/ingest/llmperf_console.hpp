// Reader for LLMPerf's console output: what token_benchmark_ray.py prints, saved as text (e.g. the
// SGLang sweep's `GPU1/requests_8_tokens_3500.txt`). Only aggregates are printed, so each run is a
// run_kind::summary run without requests.
//
// Everything before the line "Results for token benchmark for <model> queried with the <api> api."
// (tokenizer warnings, Ray log lines, the tqdm bar; LLMPerf prints the line with a stray leading
// backslash) is skipped. Then come six blocks, a name line (inter_token_latency_s, ttft_s,
// end_to_end_latency_s, request_output_throughput_token_per_s, number_input_tokens,
// number_output_tokens) followed by indented `p25 = …` … `stddev = …` lines, and the run lines
// "Number Of Errored Requests: N" (then "Error Code Frequency" and a dict when N > 0),
// "Overall Output Throughput: X", "Number Of Completed Requests: N",
// "Completed Requests Per Minute: X". Several result sections in one file are several runs.
// A file named requests_<C>_tokens_<L>.txt gives concurrency C and mean_input_tokens L, and its
// folder the deployment (the sweep script's layout).
#pragma once

#include <array>       // std::array
#include <charconv>    // std::from_chars
#include <cmath>       // std::floor, std::isfinite
#include <cstddef>     // std::size_t
#include <cstdint>     // std::int64_t
#include <filesystem>  // std::filesystem::path
#include <optional>    // std::optional
#include <string>      // std::string
#include <string_view> // std::string_view
#include <system_error> // std::errc
#include <utility>     // std::move
#include <vector>      // std::vector

#include "servestat/core/errors.hpp"          // input_error
#include "servestat/core/run.hpp"             // run, run_metadata, reported_value
#include "servestat/core/text.hpp"            // trim_spaces
#include "servestat/ingest/json_document.hpp" // read_whole_file
#include "servestat/ingest/llmperf.hpp"       // llmperf_metrics, llmperf_stats, add_llmperf_duration
#include "servestat/ingest/reader.hpp"        // log_format, read_options

namespace servestat {
namespace detail {

inline constexpr std::string_view llmperf_console_name = "llmperf-console";
inline constexpr std::string_view llmperf_results_marker = "Results for token benchmark for ";

// The run lines after the blocks, in the order LLMPerf prints them.
struct console_run_line {
    std::string_view prefix;
    std::string_view reported;
    std::string_view unit;
    double divisor;
    bool count;
};

inline constexpr std::array<console_run_line, 4> console_run_lines{{
    {"Number Of Errored Requests:", "failed", "requests", 1.0, true},
    {"Overall Output Throughput:", "output_tps", "tok/s", 1.0, false},
    {"Number Of Completed Requests:", "ok", "requests", 1.0, true},
    {"Completed Requests Per Minute:", "rps", "req/s", 60.0, false},
}};

// The marker starts its line (after LLMPerf's stray backslash): prose quoting it does not count.
inline bool marker_starts_line(std::string_view text, std::size_t at) {
    if (at > 0 && text[at - 1] == '\\') --at;
    return at == 0 || text[at - 1] == '\n' || text[at - 1] == '\r';
}

inline std::size_t find_results_marker(std::string_view text, std::size_t from) {
    for (auto at = text.find(llmperf_results_marker, from); at != std::string_view::npos;
         at = text.find(llmperf_results_marker, at + 1))
        if (marker_starts_line(text, at)) return at;
    return std::string_view::npos;
}

// A number as Python printed it; "nan" (pandas' statistic of nothing) is nullopt.
inline std::optional<double> console_number(std::string_view s, const std::string& file, std::size_t line,
                                            const std::string& field) {
    s = trim_spaces(s);
    if (s == "nan" || s == "NaN") return std::nullopt;
    double x = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
    if (s.empty() || ec != std::errc() || end != s.data() + s.size() || !std::isfinite(x))
        throw input_error(file, line, field, "expected a number, got \"" + std::string(s) + "\"");
    return x;
}

inline std::optional<std::size_t> console_metric_index(std::string_view line) {
    for (std::size_t m = 0; m < llmperf_metrics.size(); ++m)
        if (line == llmperf_metrics[m].key) return m;
    return std::nullopt;
}

// "Results for token benchmark for llama2-7b-chat queried with the openai api." → the model.
inline std::string console_model(std::string_view header) {
    header.remove_prefix(llmperf_results_marker.size());
    const auto at = header.rfind(" queried with the ");
    return std::string(at == std::string_view::npos ? std::string_view() : header.substr(0, at));
}

// What one result section held, checked for completeness at its end.
struct console_section {
    std::string model;
    std::size_t header_line = 0;
    std::array<std::array<bool, llmperf_stats.size()>, llmperf_metrics.size()> stat_seen{};
    std::array<std::size_t, llmperf_metrics.size()> block_line{};
    std::array<bool, console_run_lines.size()> run_line_seen{};
    std::vector<reported_value> reported;
    std::string error_codes;
};

class console_parser {
public:
    console_parser(std::string file, std::string_view text) : file_(std::move(file)), text_(text) {}

    // The section whose marker is at text[at]; `next` is set past its last line.
    console_section parse(std::size_t at, std::size_t& next) {
        console_section s;
        line_ = line_at(text_, at);
        s.header_line = line_;
        std::size_t pos = at;
        std::string_view header = take_line(pos);
        s.model = console_model(header);
        std::optional<std::size_t> block;
        bool codes_follow = false;
        while (pos < text_.size()) {
            const std::size_t line_start = pos;
            const std::string_view raw = take_line(pos);
            ++line_;
            if (find_results_marker(raw, 0) != std::string_view::npos) { // the next run began: this one was cut
                next = line_start;
                return s;
            }
            if (codes_follow) {
                s.error_codes = std::string(trim_spaces(raw));
                codes_follow = false;
                continue;
            }
            const std::string_view line = trim_spaces(raw);
            if (!raw.empty() && (raw.front() == ' ' || raw.front() == '\t') && block) {
                stat_line(s, *block, line);
                continue;
            }
            block = console_metric_index(line);
            if (block) {
                s.block_line[*block] = line_;
                continue;
            }
            if (line == "Error Code Frequency") codes_follow = true;
            else if (run_line(s, line)) {
                next = pos;
                return s;
            }
        }
        next = text_.size();
        return s;
    }

    std::size_t line() const noexcept { return line_; }

private:
    // The line starting at pos without its line end (LF, CRLF); pos moves past it.
    std::string_view take_line(std::size_t& pos) const {
        auto end = text_.find('\n', pos);
        if (end == std::string_view::npos) end = text_.size();
        std::string_view line = text_.substr(pos, end - pos);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        pos = end + 1;
        return line;
    }

    void stat_line(console_section& s, std::size_t m, std::string_view line) const {
        const auto eq = line.find(" = ");
        const std::string block_name(llmperf_metrics[m].key);
        if (eq == std::string_view::npos) throw input_error(file_, line_, block_name, "expected \"name = value\"");
        const std::string_view name = line.substr(0, eq);
        const std::string field = std::string(block_name).append(".").append(name);
        for (std::size_t k = 0; k < llmperf_stats.size(); ++k) {
            if (llmperf_stats[k].console != name) continue;
            if (s.stat_seen[m][k]) throw input_error(file_, line_, field, "given twice in this block");
            s.stat_seen[m][k] = true;
            if (const auto x = console_number(line.substr(eq + 3), file_, line_, field))
                s.reported.push_back({reported_name(llmperf_metrics[m], llmperf_stats[k]), *x,
                                      std::string(llmperf_metrics[m].unit)});
            return;
        }
        throw input_error(file_, line_, field, "unknown statistic");
    }

    // True for the last run line, which ends the section.
    bool run_line(console_section& s, std::string_view line) const {
        for (std::size_t k = 0; k < console_run_lines.size(); ++k) {
            const auto& r = console_run_lines[k];
            if (!line.starts_with(r.prefix)) continue;
            const std::string field(r.prefix.substr(0, r.prefix.size() - 1));
            const auto x = console_number(line.substr(r.prefix.size()), file_, line_, field);
            if (x && r.count && (*x < 0 || *x != std::floor(*x)))
                throw input_error(file_, line_, field, "expected a non-negative whole number");
            s.run_line_seen[k] = true;
            if (x) s.reported.push_back({std::string(r.reported), *x / r.divisor, std::string(r.unit)});
            return k + 1 == console_run_lines.size();
        }
        return false;
    }

    std::string file_;
    std::string_view text_;
    std::size_t line_ = 0;
};

// A section that stops early (the file was cut, or the run crashed) names what is missing.
inline void require_complete(const console_section& s, const std::string& file, std::size_t last_line) {
    for (std::size_t m = 0; m < llmperf_metrics.size(); ++m) {
        const std::string block(llmperf_metrics[m].key);
        if (s.block_line[m] == 0)
            throw input_error(file, last_line, block, "block missing from the results (truncated console log?)");
        for (std::size_t k = 0; k < llmperf_stats.size(); ++k)
            if (!s.stat_seen[m][k])
                throw input_error(file, s.block_line[m], block + "." + std::string(llmperf_stats[k].console),
                                  "statistic missing from the block (truncated console log?)");
    }
    for (std::size_t k = 0; k < console_run_lines.size(); ++k)
        if (!s.run_line_seen[k]) {
            const auto prefix = console_run_lines[k].prefix;
            throw input_error(file, last_line, std::string(prefix.substr(0, prefix.size() - 1)),
                              "line missing from the results (truncated console log?)");
        }
}

// requests_<C>_tokens_<L> (the SGLang sweep script's names) → {C, L}.
inline std::optional<std::array<std::int64_t, 2>> sweep_point_from_name(std::string_view stem) {
    constexpr std::string_view requests = "requests_", tokens = "_tokens_";
    if (!stem.starts_with(requests)) return std::nullopt;
    stem.remove_prefix(requests.size());
    const auto middle = stem.find(tokens);
    if (middle == std::string_view::npos) return std::nullopt;
    std::array<std::int64_t, 2> out{};
    const std::array<std::string_view, 2> parts{stem.substr(0, middle), stem.substr(middle + tokens.size())};
    for (std::size_t k = 0; k < 2; ++k) {
        const auto [end, ec] = std::from_chars(parts[k].data(), parts[k].data() + parts[k].size(), out[k]);
        if (parts[k].empty() || ec != std::errc() || end != parts[k].data() + parts[k].size() || out[k] < 0)
            return std::nullopt;
    }
    return out;
}

inline run console_run(const std::filesystem::path& file, console_section&& s, std::size_t index) {
    run out;
    const std::string stem = file.stem().string();
    out.meta.label = stem;
    if (const auto point = sweep_point_from_name(stem)) {
        const std::string deployment = file.parent_path().filename().string();
        out.meta.params["concurrency"] = (*point)[0];
        out.meta.params["mean_input_tokens"] = (*point)[1];
        if (!deployment.empty()) {
            out.meta.params["deployment"] = deployment;
            out.meta.label = deployment + "/" + stem;
        }
    }
    if (index > 0) out.meta.label.append("#").append(std::to_string(index + 1));
    out.meta.model = std::move(s.model);
    out.meta.tool = "llmperf";
    out.meta.source = {file.string(), std::string(llmperf_console_name)};
    out.meta.shared_clock = false;
    out.meta.kind = run_kind::summary;
    out.meta.reported = std::move(s.reported);
    const auto* ok = find_reported(out.meta, "ok");
    const auto* failed = find_reported(out.meta, "failed");
    if (ok && failed) out.meta.reported.push_back({"requests", ok->value + failed->value, "requests"});
    out.meta.notes.push_back("LLMPerf's console output: the tool's own aggregates only, no per-request data");
    add_llmperf_duration(out.meta);
    if (!s.error_codes.empty()) out.meta.notes.push_back("LLMPerf's error codes and counts: " + s.error_codes);
    out.meta.notes.emplace_back(llmperf_itl_note);
    out.meta.notes.emplace_back(llmperf_tokens_note);
    return out;
}

inline std::vector<run> read_llmperf_console(const std::filesystem::path& file, const read_options&) {
    const std::string text = read_whole_file(file);
    std::size_t at = find_results_marker(text, 0);
    if (at == std::string::npos)
        throw input_error(file.string(), 0, "",
                          "no \"Results for token benchmark\" line: not LLMPerf console output, or the run never finished");
    console_parser parser(file.string(), text);
    std::vector<run> runs;
    while (at != std::string::npos) {
        std::size_t next = 0;
        console_section s = parser.parse(at, next);
        require_complete(s, file.string(), parser.line());
        runs.push_back(console_run(file, std::move(s), runs.size()));
        at = find_results_marker(text, next);
    }
    return runs;
}

// The results line at the start of a line, then indented statistics and the closing run lines.
inline int sniff_llmperf_console(std::string_view head) {
    const auto at = find_results_marker(head, 0);
    if (at == std::string_view::npos) return 0;
    const std::string_view rest = head.substr(at);
    if (rest.find("\n    p50 = ") == std::string_view::npos) return 60;
    return rest.find("\nCompleted Requests Per Minute:") == std::string_view::npos ? 90 : 100;
}

} // namespace detail

inline constexpr log_format llmperf_console_format{
    detail::llmperf_console_name, "LLMPerf console output (\"Results for token benchmark ...\" blocks): aggregates only",
    &detail::sniff_llmperf_console, &detail::read_llmperf_console};

} // namespace servestat
