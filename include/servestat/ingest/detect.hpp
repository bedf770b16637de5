// Which reader handles a file, decided from its content (never its extension), and reading many
// files and directories into runs.
#pragma once

#include <algorithm>   // std::sort, std::min
#include <array>       // std::array
#include <exception>   // std::exception_ptr, std::current_exception, std::rethrow_exception
#include <filesystem>  // std::filesystem
#include <functional>  // std::function
#include <optional>    // std::optional
#include <set>         // std::set
#include <span>        // std::span
#include <string>      // std::string
#include <string_view> // std::string_view
#include <system_error> // std::error_code, std::errc
#include <vector>      // std::vector

#include <nlohmann/json.hpp> // nlohmann::json

#include "servestat/core/errors.hpp"            // input_error, usage_error
#include "servestat/core/natural_order.hpp"     // natural_less
#include "servestat/core/parallel.hpp"          // parallel_for, resolve_threads
#include "servestat/ingest/aiperf.hpp"            // aiperf_format
#include "servestat/ingest/aiperf_summary.hpp"    // aiperf_summary_format, aiperf_summary_csv_format
#include "servestat/ingest/arrival_trace.hpp"     // azure_trace_format, mooncake_trace_format
#include "servestat/ingest/burstgpt_detail.hpp"   // burstgpt_detail_format
#include "servestat/ingest/canonical_jsonl.hpp"   // canonical_log_format
#include "servestat/ingest/file_name_params.hpp"  // params_from_file_name
#include "servestat/ingest/genai_perf.hpp"        // genai_perf_format
#include "servestat/ingest/guidellm.hpp"          // guidellm_format
#include "servestat/ingest/input_file.hpp"        // read_input_head, utf8_bom
#include "servestat/ingest/inference_perf.hpp"    // inference_perf_format
#include "servestat/ingest/llmperf.hpp"           // llmperf_format, llmperf_summary_format
#include "servestat/ingest/llmperf_console.hpp"   // llmperf_console_format
#include "servestat/ingest/map_suggestion.hpp"    // describe_unrecognised_table
#include "servestat/ingest/llmd_benchmark_report.hpp" // llmd_benchmark_report_format
#include "servestat/ingest/mapped.hpp"            // read_mapped
#include "servestat/ingest/mapping_spec.hpp"      // mapping_spec
#include "servestat/ingest/nothing_left.hpp"      // require_requests_left
#include "servestat/ingest/notebook_csv.hpp"      // notebook_csv_format
#include "servestat/ingest/reader.hpp"            // log_format, read_options
#include "servestat/ingest/sweep_csv.hpp"         // sweep_csv_format
#include "servestat/ingest/valid_text.hpp"        // make_run_text_valid
#include "servestat/ingest/vllm_bench_csv.hpp"    // vllm_bench_csv_format
#include "servestat/ingest/vllm_bench_json.hpp"   // vllm_bench_json_format
#include "servestat/ingest/vllm_server_stats.hpp" // vllm_server_stats_format

namespace servestat {

inline constexpr std::array builtin_formats{
    &canonical_log_format,   &notebook_csv_format,      &vllm_bench_csv_format, &llmperf_format,
    &llmperf_summary_format, &llmperf_console_format,   &burstgpt_detail_format, &vllm_server_stats_format,
    &azure_trace_format,     &mooncake_trace_format,    &aiperf_format,          &aiperf_summary_format,
    &aiperf_summary_csv_format, &genai_perf_format, &guidellm_format,      &vllm_bench_json_format,
    &sweep_csv_format,       &inference_perf_format,    &llmd_benchmark_report_format};

inline std::string format_names() {
    std::string names;
    for (const auto* f : builtin_formats) names += (names.empty() ? "" : ", ") + std::string(f->name);
    return names;
}

inline const log_format& find_format(std::string_view name) {
    for (const auto* f : builtin_formats)
        if (f->name == name) return *f;
    throw usage_error("unknown input format '" + std::string(name) + "' (known: " + format_names() + ")");
}

namespace detail {

inline constexpr std::size_t sniff_bytes = 64 * 1024;

inline std::string read_head(const std::filesystem::path& file) {
    return read_input_head(file, sniff_bytes);
}

} // namespace detail

// The format with the highest confidence; nullptr when none recognises the content.
inline const log_format* detect_format(std::string_view head) {
    if (head.starts_with(detail::utf8_bom)) head.remove_prefix(detail::utf8_bom.size());
    const log_format* best = nullptr;
    int best_score = 0;
    for (const auto* f : builtin_formats)
        if (const int score = f->sniff(head); score > best_score) {
            best = f;
            best_score = score;
        }
    return best;
}

// A file no format recognises fails with what it holds: a JSON or CSV table of requests gets its
// names and a --map line guessed from them (map_suggestion.hpp) as a usage error, since --map
// reads it; anything else (prose, binary data) a short input error.
inline const log_format& detect_file_format(const std::filesystem::path& file) {
    const std::string head = detail::read_head(file);
    if (head.find_first_not_of(" \t\r\n") == std::string::npos) throw input_error(file.string(), 0, "", "empty file");
    if (const auto* f = detect_format(head)) return *f;
    const bool binary = head.find('\0') != std::string::npos;
    const std::string known = "known formats: " + format_names() + "; force one with --input-format";
    if (binary) throw input_error(file.string(), 0, "", "binary data, not a request log (" + known + ")");
    if (const auto table = detail::describe_unrecognised_table(file, head, detail::sniff_bytes))
        throw unrecognised_input_error(file.string(), 0, "", "not a recognised request log: " + *table + "\n  (" + known + ")");
    throw input_error(file.string(), 0, "", "not a recognised request log (" + known + ")");
}

struct load_options {
    read_options read;
    std::string input_format; // empty = detect per file
    std::optional<mapping_spec> mapping; // --map: every file is read through it, nothing detected
    // Told what was passed over while the rest was read (a looping symbolic link in a directory).
    std::function<void(const std::string&)> warn = [](const std::string&) {};
};

// Parameters a reader found in the file win over those its name suggests.
inline void add_file_name_params(run& r, const std::filesystem::path& file) {
    const nlohmann::json from_name = params_from_file_name(file.stem().string());
    for (const auto& [key, value] : from_name.items())
        if (!r.meta.params.contains(key)) r.meta.params[key] = value;
}

// The reader entry: every file read goes through here, so what all readers owe is done once —
// an error names the file, and text is valid UTF-8 (ingest/valid_text.hpp).
inline std::vector<run> read_runs(const std::filesystem::path& file, const load_options& o = {}) {
    auto runs = [&] {
        try {
            if (o.mapping) return read_mapped(file, *o.mapping, o.read);
            const log_format& format = o.input_format.empty() ? detect_file_format(file) : find_format(o.input_format);
            return format.read(file, o.read);
        } catch (const input_error& e) {
            if (!e.file().empty()) throw;
            // Raised where the file is not known (request_table::push_back refusing a time).
            throw input_error(file.string(), e.line(), e.field(), e.reason());
        }
    }();
    for (auto& r : runs) {
        require_requests_left(r); // --skip-bad rejected every request: an error, not a run of nothing
        add_file_name_params(r, file);
        make_run_text_valid(r);
    }
    return runs;
}

namespace detail {

// Two spellings of one path ("dir//a.json", "./dir/a.json") give the same key.
inline std::string same_file_key(const std::filesystem::path& path) {
    std::error_code ec;
    const auto canonical = std::filesystem::weakly_canonical(path, ec);
    return ec ? path.lexically_normal().string() : canonical.string();
}

// A directory's regular files in natural name order (run-c2 before run-c16), not recursively,
// hidden files left out. An entry whose type cannot be told (a symbolic link in a loop or to
// nothing) is passed to `warn` and left out; a directory that cannot be listed is an error naming
// the reason ("permission denied"), never mistaken for one holding no logs.
template <class Warn>
std::vector<std::filesystem::path> files_in(const std::filesystem::path& dir, Warn&& warn) {
    namespace fs = std::filesystem;
    std::vector<fs::path> files;
    std::error_code ec;
    fs::directory_iterator it(dir, ec);
    for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
        const fs::path& path = it->path();
        if (path.filename().string().front() == '.') continue;
        std::error_code type_ec;
        const bool regular = it->is_regular_file(type_ec);
        if (type_ec) {
            std::error_code link_ec;
            warn(path.string() + ": passed over: " + reason_text(type_ec) +
                 (it->is_symlink(link_ec) ? " (a symbolic link that leads nowhere readable)" : ""));
            continue;
        }
        if (regular) files.push_back(path);
    }
    if (ec) throw input_error(dir.string(), 0, "", "cannot read directory: " + reason_text(ec));
    std::sort(files.begin(), files.end(), [](const fs::path& a, const fs::path& b) {
        return natural_less(a.filename().string(), b.filename().string());
    });
    return files;
}

} // namespace detail

namespace detail {

// What reading one file gave: its runs, or the error to raise when its turn comes.
struct file_result {
    std::vector<run> runs;
    std::exception_ptr error;
};

// Reads `files` as many at a time as there are threads, handing each file's runs to
// use(runs) in file order; a file that fails raises its error in its turn, after the
// files before it were used. A window of files read side by side reads each on one thread.
template <class Use>
void read_files_in_order(std::span<const std::filesystem::path> files, const load_options& o, Use&& use) {
    const std::size_t threads = resolve_threads(o.read.threads);
    load_options each = o;
    if (threads > 1 && files.size() > 1) each.read.threads = 1;
    for (std::size_t first = 0; first < files.size(); first += threads) {
        const std::size_t count = std::min(threads, files.size() - first);
        std::vector<file_result> window(count);
        parallel_for(count, threads, [&](std::size_t k) {
            try {
                window[k].runs = read_runs(files[first + k], count > 1 ? each : o);
            } catch (...) {
                window[k].error = std::current_exception();
            }
        });
        for (std::size_t k = 0; k < count; ++k) {
            if (window[k].error) std::rethrow_exception(window[k].error);
            use(std::move(window[k].runs));
        }
    }
}

} // namespace detail

// Calls `consume(run&&)` for each run of each input (a file or a directory) in order. Files are
// read as many at a time as `o.read.threads` allows (one large file in pieces), so a long list of
// large logs never sits in memory together beyond that window. Files in a directory that no format
// recognises (a README beside the logs) are passed over unless a format is forced.
template <class Consumer>
void for_each_run(std::span<const std::string> inputs, const load_options& o, Consumer&& consume) {
    namespace fs = std::filesystem;
    std::vector<fs::path> files; // plain files named one after another, read together
    const auto read_named_files = [&] {
        detail::read_files_in_order(files, o, [&](std::vector<run>&& runs) {
            for (auto& r : runs) consume(std::move(r));
        });
        files.clear();
    };
    for (const auto& input : inputs) {
        std::error_code ec;
        const auto status = fs::status(input, ec);
        if (ec && ec != std::errc::no_such_file_or_directory) {
            read_named_files();
            throw input_error(input, 0, "", "cannot read: " + detail::reason_text(ec)); // a looping link, no permission
        }
        if (fs::is_directory(status)) {
            read_named_files();
            // A tool's summary file beside its request file (LLMPerf, AIPerf) was already merged
            // into the request run as its reported values, and a whole-run report beside its stage
            // reports (inference-perf) is covered by them; listing it again would double the run.
            std::set<std::string> merged;
            std::vector<run> summaries;
            const bool forced = !o.input_format.empty() || o.mapping;
            std::vector<fs::path> logs;
            for (const auto& file : detail::files_in(input, o.warn))
                if (forced || detect_format(detail::read_head(file))) logs.push_back(file);
            detail::read_files_in_order(logs, o, [&](std::vector<run>&& runs) {
                for (auto& r : runs) {
                    for (const auto& path : r.meta.source.merged) merged.insert(detail::same_file_key(path));
                    if (r.meta.kind == run_kind::summary) summaries.push_back(std::move(r));
                    else consume(std::move(r));
                }
            });
            for (auto& r : summaries)
                if (!merged.contains(detail::same_file_key(r.meta.source.path))) consume(std::move(r));
            if (logs.empty()) throw input_error(input, 0, "", "directory contains no recognised request logs");
        } else if (fs::exists(status)) {
            files.push_back(input);
        } else {
            read_named_files();
            throw input_error(input, 0, "", "no such file or directory");
        }
    }
    read_named_files();
}

inline std::vector<run> read_logs(std::span<const std::string> inputs, const load_options& o = {}) {
    std::vector<run> runs;
    for_each_run(inputs, o, [&](run&& r) { runs.push_back(std::move(r)); });
    return runs;
}

} // namespace servestat
