// Which reader handles a file, decided from its content (never its extension), and reading many
// files and directories into runs.
#pragma once

#include <algorithm>   // std::sort, std::min
#include <array>       // std::array
#include <bit>         // std::bit_cast
#include <cstddef>     // std::nullptr_t
#include <cstdint>     // std::uintmax_t
#include <cstring>     // std::memcmp
#include <exception>   // std::exception_ptr, std::current_exception, std::rethrow_exception
#include <filesystem>  // std::filesystem
#include <functional>  // std::function
#include <map>         // std::map
#include <memory>      // std::unique_ptr, std::make_unique
#include <optional>    // std::optional
#include <set>         // std::set
#include <span>        // std::span
#include <string>      // std::string
#include <string_view> // std::string_view
#include <system_error> // std::error_code, std::errc
#include <type_traits> // std::is_same_v, std::decay_t
#include <utility>     // std::pair
#include <vector>      // std::vector

#include <fmt/format.h>      // fmt::format
#include <nlohmann/json.hpp> // nlohmann::json

#include "servestat/core/errors.hpp"            // input_error, usage_error
#include "servestat/core/natural_order.hpp"     // natural_less
#include "servestat/core/parallel.hpp"          // parallel_for, resolve_threads
#include "servestat/core/progress.hpp"          // progress_state, progress_scope
#include "servestat/core/request_table.hpp"     // request_table
#include "servestat/core/text.hpp"              // detail::fnv1a
#include "servestat/ingest/aggregate_table.hpp"   // aggregate_table_format
#include "servestat/ingest/aiperf.hpp"            // aiperf_format
#include "servestat/ingest/aiperf_summary.hpp"    // aiperf_summary_format, aiperf_summary_csv_format
#include "servestat/ingest/aiperf_multi_run.hpp"  // aiperf_multi_run_format
#include "servestat/ingest/aiperf_report_v2.hpp"  // aiperf_report_v2_format
#include "servestat/ingest/arrival_trace.hpp"     // azure_trace_format, mooncake_trace_format
#include "servestat/ingest/bench_serving_console.hpp" // bench_serving_console_format
#include "servestat/ingest/burstgpt_detail.hpp"   // burstgpt_detail_format
#include "servestat/ingest/canonical_jsonl.hpp"   // canonical_log_format
#include "servestat/ingest/file_name_params.hpp"  // params_from_file_name
#include "servestat/ingest/genai_bench.hpp"       // genai_bench_format, genai_bench_metadata_message
#include "servestat/ingest/genai_perf.hpp"        // genai_perf_format
#include "servestat/ingest/genai_perf_summary.hpp" // genai_perf_summary_format, genai_perf_summary_csv_format
#include "servestat/ingest/guidellm.hpp"          // guidellm_format
#include "servestat/ingest/input_file.hpp"        // read_input_head, utf8_bom
#include "servestat/ingest/spooled_input.hpp"     // detail::spooled_input, detail::read_once
#include "servestat/ingest/inference_perf.hpp"    // inference_perf_format
#include "servestat/ingest/inference_perf_requests.hpp" // inference_perf_requests_format
#include "servestat/ingest/inferencex_result.hpp" // inferencex_result_format
#include "servestat/ingest/restated_run.hpp"      // run_values, restated_run
#include "servestat/ingest/llmperf.hpp"           // llmperf_format, llmperf_summary_format
#include "servestat/ingest/llmperf_console.hpp"   // llmperf_console_format
#include "servestat/ingest/lmbench_csv.hpp"       // lmbench_csv_format
#include "servestat/ingest/map_suggestion.hpp"    // describe_unrecognised_table
#include "servestat/ingest/llmd_benchmark_report.hpp" // llmd_benchmark_report_format
#include "servestat/ingest/mapped.hpp"            // read_mapped
#include "servestat/ingest/mapping_spec.hpp"      // mapping_spec
#include "servestat/ingest/mlcommons_endpoints.hpp" // mlcommons_endpoints_format, mlcommons_endpoints_summary_format
#include "servestat/ingest/mlperf_loadgen.hpp"    // mlperf_loadgen_format
#include "servestat/ingest/nothing_left.hpp"      // require_requests_left
#include "servestat/ingest/notebook_csv.hpp"      // notebook_csv_format
#include "servestat/ingest/reader.hpp"            // log_format, read_options
#include "servestat/ingest/derived_aggregate.hpp" // run_tally, tally_of, derived_from_siblings
#include "servestat/ingest/same_run.hpp"          // console_copies
#include "servestat/ingest/sglang_bench_serving.hpp" // sglang_bench_serving_format
#include "servestat/ingest/sweep_csv.hpp"         // sweep_csv_format
#include "servestat/ingest/trtllm_bench.hpp"      // trtllm_bench_format
#include "servestat/ingest/trtllm_perf_metrics.hpp" // trtllm_perf_metrics_format
#include "servestat/ingest/valid_text.hpp"        // make_run_text_valid
#include "servestat/ingest/vllm_bench_csv.hpp"    // vllm_bench_csv_format
#include "servestat/ingest/vllm_bench_json.hpp"   // vllm_bench_json_format
#include "servestat/ingest/vllm_bench_sweep.hpp"  // vllm_bench_sweep_format
#include "servestat/ingest/vllm_bench_sweep_summary.hpp" // vllm_bench_sweep_summary_format, vllm_bench_sweep_failure_format
#include "servestat/ingest/vllm_server_stats.hpp" // vllm_server_stats_format

namespace servestat {

inline constexpr std::array builtin_formats{
    &canonical_log_format,   &notebook_csv_format,      &vllm_bench_csv_format, &llmperf_format,
    &llmperf_summary_format, &llmperf_console_format,   &burstgpt_detail_format, &vllm_server_stats_format,
    &azure_trace_format,     &mooncake_trace_format,    &aiperf_format,          &aiperf_summary_format,
    &aiperf_summary_csv_format, &aiperf_multi_run_format, &aiperf_report_v2_format, &genai_perf_format, &guidellm_format,      &vllm_bench_json_format,
    &sweep_csv_format,       &inference_perf_format,    &llmd_benchmark_report_format, &sglang_bench_serving_format,
    &genai_bench_format,     &inferencex_result_format, &mlcommons_endpoints_format, &mlcommons_endpoints_summary_format, &mlperf_loadgen_format,
    &inference_perf_requests_format, &trtllm_bench_format, &trtllm_perf_metrics_format,
    &genai_perf_summary_format, &genai_perf_summary_csv_format, &aggregate_table_format,
    &vllm_bench_sweep_format, &vllm_bench_sweep_summary_format, &vllm_bench_sweep_failure_format,
    &bench_serving_console_format, &lmbench_csv_format};

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
    if (const auto encoding = detail::utf16_or_utf32(head)) throw input_error(file.string(), 0, "", detail::other_encoding_text(*encoding));
    const bool binary = head.find('\0') != std::string::npos;
    const std::string known = "known formats: " + format_names() + "; force one with --input-format";
    if (binary) throw input_error(file.string(), 0, "", "binary data, not a request log (" + known + ")");
    if (const auto why = detail::genai_bench_metadata_message(head)) throw input_error(file.string(), 0, "", *why);
    if (const auto table = detail::describe_unrecognised_table(file, head, detail::sniff_bytes))
        throw unrecognised_input_error(file.string(), 0, "", "not a recognised request log: " + *table + "\n  (" + known + ")");
    throw input_error(file.string(), 0, "", "not a recognised request log (" + known + ")");
}

// A file a directory read passed over, and why ("no format recognises it", "AIPerf's warm-up phase").
struct passed_over_file {
    std::string path;
    std::string reason;
};

// What one directory argument held: how many files were read as logs, and the others.
struct directory_listing {
    std::string directory;
    std::size_t logs = 0;
    std::vector<passed_over_file> passed_over;
};

struct load_options {
    read_options read;
    std::string input_format; // empty = detect per file
    // A file of a directory that its reader refuses is an error; by default it is passed over with
    // the reason and the rest of the directory is read (a file named alone is always an error).
    bool strict = false;
    std::optional<mapping_spec> mapping; // --map: every file is read through it, nothing detected
    // Told what was passed over while the rest was read (a looping symbolic link in a directory).
    std::function<void(const std::string&)> warn = [](const std::string&) {};
    // Told, for each directory argument, which files were read and which were passed over.
    std::function<void(const directory_listing&)> listed = [](const directory_listing&) {};
    // Bytes of the inputs counted as they are read (each file an item of the current stage,
    // read.progress while it is read) and as files are passed over; null: not counted. The stage
    // and its total (input_bytes) are the caller's.
    progress_state* progress = nullptr;
};

namespace detail {

// A file's stem, then the folders of `folders` nearest first (".", ".." and empty parts left out).
inline std::vector<std::string> stem_and_folders(const std::filesystem::path& file, const std::filesystem::path& folders) {
    std::vector<std::string> parts{file.stem().string()};
    std::vector<std::string> outward;
    for (const auto& part : folders) {
        const std::string name = part.string();
        if (!name.empty() && name != "." && name != "..") outward.push_back(name);
    }
    parts.insert(parts.end(), outward.rbegin(), outward.rend());
    return parts;
}

// The names a file's parameters may be read from, nearest first: its stem, then each folder of the
// path as given (the root left out).
inline std::vector<std::string> name_parts_of(const std::filesystem::path& file) {
    return stem_and_folders(file, file.parent_path().relative_path());
}

inline std::string json_text(const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

// Names by which readers record what a path part calls otherwise: a vLLM file's max_concurrency is
// the concurrency a "c16" in its name gives.
inline std::vector<std::string_view> same_param_names(std::string_view name) {
    if (name == "concurrency") return {"concurrency", "max_concurrency", "num_concurrency"};
    if (name == "request_rate") return {"request_rate", "rate"};
    if (name == "input_len") return {"input_len", "random_input_len", "isl"};
    if (name == "output_len") return {"output_len", "random_output_len", "osl"};
    if (name == "num_prompts") return {"num_prompts", "num_requests", "request_count"};
    return {name};
}

inline bool same_number(const nlohmann::json& a, const nlohmann::json& b) {
    if (a.is_number() && b.is_number()) return a.get<double>() == b.get<double>();
    return a == b;
}

} // namespace detail

// Parameters the names on a file's path give (params_from_path_parts), added where the file itself
// did not set them: what a file or the aggregates beside it record wins over its name. A name that
// disagrees with the file, or two names that disagree, leave a note naming both.
inline void add_path_params(run& r, std::span<const std::string> name_parts) {
    r.meta.source.name_parts.assign(name_parts.begin(), name_parts.end());
    if (!r.meta.source.name_stem.empty() && !r.meta.source.name_parts.empty())
        r.meta.source.name_parts.front() = r.meta.source.name_stem;
    const path_params found = params_from_path_parts(r.meta.source.name_parts);
    for (const auto& c : found.conflicts)
        r.meta.notes.push_back(fmt::format("{}: the name '{}' gives {} and '{}' gives {}; {} is used", c.param, c.used_in,
                                           detail::json_text(c.used), c.other_in, detail::json_text(c.other),
                                           detail::json_text(c.used)));
    for (const auto& [key, value] : found.params.items()) {
        bool set = false;
        for (const auto name : detail::same_param_names(key)) {
            const auto it = r.meta.params.find(name);
            if (it == r.meta.params.end()) continue;
            set = true;
            if (!detail::same_number(*it, value))
                r.meta.notes.push_back(fmt::format("{}: the file gives {}, its path gives {}; the file's value is used",
                                                   std::string(name), detail::json_text(*it), detail::json_text(value)));
            break;
        }
        if (set) continue;
        r.meta.params[key] = value;
        for (const auto& part : name_parts)
            if (params_from_file_name(part).contains(key)) {
                r.meta.param_origin[key] = part;
                break;
            }
    }
}

// Kept for callers that name a file alone: its stem and the folders of the path as given.
inline void add_file_name_params(run& r, const std::filesystem::path& file) {
    add_path_params(r, detail::name_parts_of(file));
}

// The reader entry: every file read goes through here, so what all readers owe is done once —
// an error names the file, and text is valid UTF-8 (ingest/valid_text.hpp). `name_parts` are the
// names its parameters may be read from, nearest first (default: its stem and the folders of its path).
inline std::vector<run> read_runs(const std::filesystem::path& file, const load_options& o,
                                  std::span<const std::string> name_parts) {
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
        add_path_params(r, name_parts);
        make_run_text_valid(r);
    }
    return runs;
}

inline std::vector<run> read_runs(const std::filesystem::path& file, const load_options& o = {}) {
    const auto parts = detail::name_parts_of(file);
    return read_runs(file, o, parts);
}

namespace detail {

// Two spellings of one path ("dir//a.json", "./dir/a.json") give the same key.
inline std::string same_file_key(const std::filesystem::path& path) {
    std::error_code ec;
    const auto canonical = std::filesystem::weakly_canonical(path, ec);
    return ec ? path.lexically_normal().string() : canonical.string();
}

// A directory's regular files, in its sub-folders too, in natural order of their paths below it
// (run-c2 before run-c16), hidden files and folders left out; symbolic links to folders are not
// followed (no loops). An entry whose type cannot be told (a symbolic link in a loop or to
// nothing) or a sub-folder that cannot be listed is passed to `warn` and left out; the directory
// itself unreadable is an error naming the reason ("permission denied"), never mistaken for one
// holding no logs.
// What a folder entry that is neither a file nor a folder is, for the note that passes it over: a
// folder read never waits on a pipe nor reads a device that never ends.
inline std::string not_a_file_text(const std::filesystem::file_status& status) {
    using std::filesystem::file_type;
    switch (status.type()) {
    case file_type::fifo: return "a named pipe (FIFO), not a file";
    case file_type::socket: return "a socket, not a file";
    case file_type::character:
    case file_type::block: return "a device, not a file";
    default: return "not a regular file";
    }
}

template <class Warn>
std::vector<std::filesystem::path> files_in(const std::filesystem::path& dir, Warn&& warn) {
    namespace fs = std::filesystem;
    std::vector<fs::path> files;
    std::error_code ec;
    fs::recursive_directory_iterator it(dir, ec);
    for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        const fs::path& path = it->path();
        if (path.filename().string().front() == '.') {
            it.disable_recursion_pending();
            continue;
        }
        std::error_code type_ec;
        if (fs::is_directory(fs::symlink_status(path, type_ec))) {
            // A sub-folder that cannot be listed is named and passed over; the rest is read.
            std::error_code list_ec;
            fs::directory_iterator probe(path, list_ec);
            if (list_ec) {
                warn(path.string() + ": passed over: " + reason_text(list_ec));
                it.disable_recursion_pending();
            }
            continue;
        }
        const bool regular = it->is_regular_file(type_ec);
        if (type_ec) {
            std::error_code link_ec;
            warn(path.string() + ": passed over: " + reason_text(type_ec) +
                 (it->is_symlink(link_ec) ? " (a symbolic link that leads nowhere readable)" : ""));
            continue;
        }
        if (regular) files.push_back(path);
        else warn(path.string() + ": passed over: " + not_a_file_text(it->status(type_ec)));
    }
    if (ec) throw input_error(dir.string(), 0, "", "cannot read directory: " + reason_text(ec));
    std::sort(files.begin(), files.end(), [&](const fs::path& a, const fs::path& b) {
        return natural_less(a.lexically_relative(dir).generic_string(), b.lexically_relative(dir).generic_string());
    });
    return files;
}

// The names a file found in directory `dir` may give parameters: its stem, each folder between
// `dir` and it, and `dir`'s own name (a folder named for its run: "conc16/").
inline std::vector<std::string> name_parts_below(const std::filesystem::path& dir, const std::filesystem::path& file) {
    auto parts = stem_and_folders(file, file.parent_path().lexically_relative(dir));
    std::error_code ec;
    const auto whole = std::filesystem::absolute(dir, ec).lexically_normal();
    const auto own = whole.filename().string();
    parts.push_back(own.empty() ? whole.parent_path().filename().string() : own);
    return parts;
}

// Why a file of a directory is no run of its own although it may be a log: AIPerf's warm-up phase
// (never measured data), or the profiling phase's copy of the export beside the phases/ folder.
inline std::optional<std::string> phase_copy_or_warmup(const std::filesystem::path& dir, const std::filesystem::path& file) {
    namespace fs = std::filesystem;
    std::vector<std::string> folders;
    for (const auto& part : file.parent_path().lexically_relative(dir)) folders.push_back(part.string());
    for (std::size_t k = 0; k + 1 < folders.size(); ++k) {
        if (folders[k] != "phases") continue;
        if (folders[k + 1] == "warmup") return std::string("a warm-up phase's export, not measured data");
        if (folders[k + 1] == "profiling" && k + 2 == folders.size()) {
            const fs::path top = file.parent_path().parent_path().parent_path() / file.filename();
            if (std::error_code ec; fs::is_regular_file(top, ec))
                return "the profiling phase's copy of " + top.lexically_relative(dir).generic_string() + ", read once";
        }
    }
    return std::nullopt;
}

// A file's bytes read a block at a time: their hash, and whether they hold more than one line.
struct content_digest {
    std::uint64_t hash = 0xcbf29ce484222325ULL;
    bool one_line = true;
};

inline content_digest digest_of(const std::filesystem::path& file) {
    content_digest d;
    const input_file f = open_input_as_is(file); // a file in UTF-16 is its reader's to refuse
    bool after_newline = false;
    char buffer[1 << 16];
    for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, f.get())) > 0;)
        for (std::size_t k = 0; k < n; ++k) {
            const char c = buffer[k];
            d.hash = (d.hash ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
            if (c == '\n') after_newline = true;
            else if (after_newline && c != '\r') d.one_line = false;
        }
    return d;
}

inline bool same_content(const std::filesystem::path& a, const std::filesystem::path& b) {
    const input_file fa = open_input_as_is(a), fb = open_input_as_is(b);
    char x[1 << 16], y[1 << 16];
    for (;;) {
        const std::size_t n = std::fread(x, 1, sizeof x, fa.get()), m = std::fread(y, 1, sizeof y, fb.get());
        if (n != m || std::memcmp(x, y, n) != 0) return false;
        if (n == 0) return true;
    }
}

// A listed file's first bytes, or why they cannot be read: a file deleted or replaced since the
// folder was listed, or one without permission, is passed over with the reason, as a file its reader
// refuses, where stopping at it would lose every other run of the folder (L5).
struct listed_head {
    std::string bytes;
    std::optional<std::string> unreadable;
};

inline listed_head head_of_listed(const std::filesystem::path& file) {
    try {
        return {read_head(file), std::nullopt};
    } catch (const input_error& e) {
        return {"", e.reason()};
    }
}

inline bool same_content_if_readable(const std::filesystem::path& a, const std::filesystem::path& b) {
    try {
        return same_content(a, b);
    } catch (const input_error&) {
        return false;
    }
}

// For each file, the earlier file holding the same bytes (the same measurement reached twice), if
// any. Files are hashed a block at a time and only files of one size and hash compared, so the
// memory is two blocks and the time one read of each file however many share a size (H3, H4).
inline std::vector<std::optional<std::string>> same_bytes_as_earlier(std::span<const std::filesystem::path> files,
                                                                     const std::filesystem::path& dir) {
    std::vector<std::optional<std::string>> out(files.size());
    std::map<std::uintmax_t, std::vector<std::size_t>> by_size;
    for (std::size_t i = 0; i < files.size(); ++i) {
        std::error_code ec;
        const auto size = std::filesystem::file_size(files[i], ec);
        if (!ec && size > 0) by_size[size].push_back(i);
    }
    for (const auto& [size, same_size] : by_size) {
        if (same_size.size() < 2) continue;
        std::map<std::uint64_t, std::vector<std::size_t>> by_hash; // earlier files of this size, by hash
        for (const std::size_t i : same_size) {
            // A file gone since its head was read is no copy of anything: its reader says it is gone.
            content_digest d;
            try {
                d = digest_of(files[i]);
            } catch (const input_error&) {
                continue;
            }
            // A file of one line may be a table's header alone (LMBench's CSV of a run in which nothing
            // completed): such files say nothing of which run they were, so equal bytes make them no
            // copies. A one-line file that holds a run is still found twice by its requests and values
            // (run_fingerprint).
            if (d.one_line) continue;
            auto& earlier = by_hash[d.hash];
            for (const std::size_t e : earlier)
                if (same_content_if_readable(files[e], files[i])) {
                    out[i] = "the same bytes as " + files[e].lexically_relative(dir).generic_string();
                    break;
                }
            if (!out[i]) earlier.push_back(i);
        }
    }
    return out;
}

} // namespace detail

namespace detail {

// Why a file of a directory was passed over when its reader refused it: the reader's reason, with
// the line and field it names.
inline std::string refusal_text(const input_error& e) {
    std::string where;
    if (e.line()) where += fmt::format("line {}", e.line());
    if (!e.field().empty()) where += (where.empty() ? "" : ", ") + std::string("field '") + e.field() + "'";
    return "its reader refused it: " + (where.empty() ? "" : where + ": ") + e.reason();
}

// What reading one file gave: its runs, or the error to raise when its turn comes.
struct file_result {
    std::vector<run> runs;
    std::exception_ptr error;
};

// A file to read and the names its parameters may come from (name_parts_of, name_parts_below).
struct file_to_read {
    std::filesystem::path path;
    std::vector<std::string> name_parts;
};

// How many of `files` to read side by side: one per thread, and more while they are small, so that
// threads are started once for many small logs, not once for every `threads` of them (thousands of
// one-request logs read slower on two threads than on one: M3). A window's runs are in memory
// together, so it holds at most 64 MiB of files beyond one per thread, and 256 files.
inline std::size_t window_of(std::span<const file_to_read> files, std::size_t threads) {
    constexpr std::uintmax_t small_window_bytes = std::uintmax_t{64} << 20;
    constexpr std::size_t most_files = 256;
    std::size_t count = std::min(threads, files.size());
    if (threads == 1) return count;
    std::uintmax_t bytes = 0;
    for (std::size_t k = 0; k < count; ++k) {
        std::error_code ec;
        bytes += std::filesystem::file_size(files[k].path, ec);
    }
    while (count < files.size() && count < most_files) {
        std::error_code ec;
        const std::uintmax_t size = std::filesystem::file_size(files[count].path, ec);
        if (ec || bytes + size > small_window_bytes) break;
        bytes += size;
        ++count;
    }
    return count;
}

// Reads `files` as many at a time as there are threads, handing each file's runs to
// use(runs) in file order; a file that fails raises its error in its turn, after the
// files before it were used, except a file that holds no run (not_a_run_error), which goes to
// pass_over(path, reason, error) when one is given, and so does a file its reader refuses unless o.strict. A window of files read side by side reads each on one thread.
template <class Use, class PassOver = std::nullptr_t>
void read_files_in_order(std::span<const file_to_read> files, const load_options& o, Use&& use,
                         PassOver&& pass_over = nullptr) {
    const std::size_t threads = resolve_threads(o.read.threads);
    load_options each = o;
    if (threads > 1 && files.size() > 1) each.read.threads = 1;
    for (std::size_t first = 0, count; first < files.size(); first += count) {
        count = window_of(files.subspan(first), threads);
        std::vector<file_result> window(count);
        parallel_for(count, threads, [&](std::size_t k) {
            try {
                const file_to_read& f = files[first + k];
                if (!o.progress) {
                    window[k].runs = read_runs(f.path, count > 1 ? each : o, f.name_parts);
                    return;
                }
                std::error_code ec;
                const std::uintmax_t size = std::filesystem::file_size(f.path, ec);
                const progress_scope counted(o.progress, f.path.string(), ec ? 0 : size);
                load_options mine = count > 1 ? each : o;
                mine.read.progress = counted.item();
                window[k].runs = read_runs(f.path, mine, f.name_parts);
            } catch (...) {
                window[k].error = std::current_exception();
            }
        });
        for (std::size_t k = 0; k < count; ++k) {
            if (window[k].error) {
                if constexpr (!std::is_same_v<std::decay_t<PassOver>, std::nullptr_t>) {
                    try {
                        std::rethrow_exception(window[k].error);
                    } catch (const not_a_run_error& e) {
                        pass_over(files[first + k].path, e.reason(), window[k].error);
                        continue;
                    } catch (const input_error& e) {
                        if (o.strict) throw;
                        pass_over(files[first + k].path, refusal_text(e), window[k].error);
                        continue;
                    }
                }
                std::rethrow_exception(window[k].error);
            }
            use(std::move(window[k].runs));
        }
    }
}

// Every field of every request folded into one number (FNV-1a over the values' bits): two logs
// agree in it only when their requests do, times, statuses, tokens, errors and gaps alike. Sums of
// times alone took a run with half its requests failed for the run it was copied from (H2).
inline std::uint64_t requests_digest(const request_table& t) {
    std::uint64_t h = 0xcbf29ce484222325ULL;
    const auto fold = [&h](std::uint64_t x) {
        for (int k = 0; k < 8; ++k, x >>= 8) h = (h ^ (x & 0xff)) * 0x100000001b3ULL;
    };
    const auto fold_double = [&](double x) { fold(std::bit_cast<std::uint64_t>(x)); };
    const auto times = {t.t_sched(), t.t_sent(), t.t_first(), t.t_end()};
    for (std::size_t i = 0; i < t.size(); ++i) {
        for (const auto& column : times) fold_double(column[i]);
        fold(static_cast<std::uint64_t>(t.status()[i]));
        fold(static_cast<std::uint64_t>(t.http_status()[i]));
        for (const auto& counts : {t.prompt_tokens(), t.output_tokens(), t.max_tokens()})
            fold(static_cast<std::uint64_t>(static_cast<std::int64_t>(counts[i])));
        for (const auto& server : {t.server_queue(), t.server_prefill(), t.server_decode(), t.server_ttft(),
                                   t.server_itl(), t.server_spec_acceptance(), t.server_draft_acceptance()})
            if (i < server.size()) fold_double(server[i]);
        fold(fnv1a(t.error(i)));
        for (const double gap : t.itl(i)) fold_double(gap);
    }
    return h;
}

// What makes two runs one measurement saved twice (a GuideLLM report as benchmarks.json and as
// benchmarks.yaml): the same format, model and parameters, the same requests (every field of
// every one, and when the run started) and the same reported values.
inline std::string run_fingerprint(const run& r) {
    std::size_t ok = 0;
    for (std::size_t i = 0; i < r.requests.size(); ++i) ok += r.requests.status()[i] == request_status::ok;
    // A summary's label is left out: readers name summaries by their file or their place in it, and a
    // copy saved under another name (a console log of two runs beside each run's own log), with every
    // setting and value equal to the bit, is still the same measurement. A log's own label stays.
    const std::string label = r.meta.kind == run_kind::summary ? std::string() : r.meta.label;
    // A log without one request (a header only: nothing completed) has nothing to be a copy of.
    if (r.meta.kind == run_kind::requests && r.requests.size() == 0) return "empty|" + r.meta.source.path;
    // What only the path says is left out too (a record gathered into a list has lost its file's
    // name), where the run measured something: values that are all zero or missing tell two dead
    // runs apart by nothing but their names.
    const bool measured = r.requests.size() > 0 ||
                          std::any_of(r.meta.reported.begin(), r.meta.reported.end(), [](const auto& v) { return v.value != 0; });
    nlohmann::json params = r.meta.params;
    if (measured)
        for (const auto& [key, from] : r.meta.param_origin) params.erase(key);
    std::string out = fmt::format("{}|{}|{}|{}|{}|{}|{:016x}|{}|{}", r.meta.source.format, label, r.meta.model,
                                  params.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), r.requests.size(), ok, requests_digest(r.requests), r.meta.started_at,
                                  to_string(r.meta.kind));
    for (const auto& v : r.meta.reported) out += fmt::format("|{}={:a}", v.name, v.value);
    return out;
}

// A list whose runs were found again in their own files is one entry: what it was gathered from
// (some of its rows, where the others are runs of their own: `used`).
inline void collapse_gathered_copies(std::vector<passed_over_file>& passed_over, const std::set<std::string>& used) {
    static constexpr std::string_view copy = "the same run as ";
    static constexpr std::string_view restated = ": its values restate it";
    // A file whose several runs are each the same as a run of one other file (a GuideLLM report of two
    // benchmarks saved as JSON and as YAML) is one copy of that file, listed once (L6).
    std::set<std::pair<std::string, std::string>> listed;
    std::erase_if(passed_over, [&](const auto& p) { return !listed.insert({p.path, p.reason}).second; });
    std::map<std::string, std::vector<std::string>> of_list;
    std::set<std::string> by_values;
    for (const auto& p : passed_over)
        if (p.reason.starts_with(copy)) {
            of_list[p.path].push_back(p.reason.substr(copy.size(), p.reason.find(':') - copy.size()));
            if (p.reason.ends_with(restated)) by_values.insert(p.path);
        }
    for (const auto& entry : of_list) {
        const std::string& path = entry.first;
        const std::vector<std::string>& originals = entry.second;
        if (originals.size() < 2) continue;
        std::erase_if(passed_over, [&](const auto& p) { return p.path == path && p.reason.starts_with(copy); });
        const std::string what = by_values.contains(path) ? "rows restate the values of" : "runs are the same requests and values as";
        passed_over.push_back({path, fmt::format("gathered from the runs' own files: {} {} {} and {} more{}",
                                                 used.contains(path) ? fmt::format("{} of its", originals.size())
                                                                     : fmt::format("its {}", originals.size()),
                                                 what, originals.front(), originals.size() - 1,
                                                 used.contains(path) ? " (its other rows are runs of their own)" : "")});
    }
}

// Every run of a directory argument and of its sub-folders, request runs first in path order, then
// the summaries that no request run already merged as its reported values (a tool's summary beside
// its request file, a whole-run report beside its stage reports: listing it again would double the
// run). Files no format recognises, warm-up phases and the same measurement reached twice (the same
// bytes, or the same run saved in two formats) are
// listed in `o.listed`; a directory without any log is an error.
template <class Consumer>
void read_directory(const std::filesystem::path& dir, const load_options& o, Consumer&& consume) {
    const bool forced = !o.input_format.empty() || o.mapping;
    const auto all = files_in(dir, o.warn);
    directory_listing listing{dir.string(), 0, {}};
    std::vector<file_to_read> logs;
    std::vector<passed_over_file> unrecognised; // and why: "no format recognises it", or its encoding
    std::set<std::string> console_tools; // tools whose console output lies in the folder: "llmperf" of llmperf-console
    const auto passed_over = [&](const std::filesystem::path& file) { // its bytes are done with
        std::error_code ec;
        if (!o.progress) return;
        if (const auto size = std::filesystem::file_size(file, ec); !ec) o.progress->add_done(size);
    };
    std::vector<std::filesystem::path> candidates; // files a reader will read, unless they repeat an earlier one
    for (const auto& file : all) {
        const listed_head head = forced ? listed_head{} : head_of_listed(file);
        if (head.unreadable) {
            if (o.strict) throw input_error(file.string(), 0, "", *head.unreadable);
            listing.passed_over.push_back({file.string(), *head.unreadable});
            continue;
        }
        const log_format* format = forced ? nullptr : detect_format(head.bytes);
        if (!forced && !format) {
            const auto encoding = utf16_or_utf32(head.bytes);
            unrecognised.push_back({file.string(), encoding ? other_encoding_text(*encoding) : "no format recognises it"});
            passed_over(file);
            continue;
        }
        if (format && std::string_view(format->name).ends_with("-console"))
            console_tools.insert(std::string(format->name.substr(0, format->name.size() - std::string_view("-console").size())));
        if (auto why = phase_copy_or_warmup(dir, file)) {
            listing.passed_over.push_back({file.string(), *why});
            passed_over(file);
            continue;
        }
        candidates.push_back(file);
    }
    // Only logs are compared byte for byte: a folder's other files cost no read beyond their head.
    const auto repeated = same_bytes_as_earlier(candidates, dir);
    for (std::size_t i = 0; i < candidates.size(); ++i) {
        if (repeated[i]) {
            listing.passed_over.push_back({candidates[i].string(), *repeated[i]});
            passed_over(candidates[i]);
            continue;
        }
        logs.push_back({candidates[i], name_parts_below(dir, candidates[i])});
    }
    std::set<std::string> used;
    std::set<std::string> merged;
    std::map<std::string, std::string> derived; // a file a reader found derived → why
    std::map<std::string, std::string> seen; // fingerprint → the file that gave it first
    console_copies console_runs; // a console log waits for the JSON results it may repeat (same_run.hpp)
    std::vector<run_tally> tallies; // of the runs used, to tell a file derived from them (derived_aggregate.hpp)
    std::vector<run_values> own_files; // of the runs used from files of their own, to tell a table's rows restating them
    std::set<std::string> lists; // files holding several runs
    // A tool's result files beside its console output (LLMPerf's JSON pairs beside the logs of each
    // point, in the deployment's folder) wait until the logs are read: a log that restates one of them
    // exactly is that run, and its path names the run (restated_run.hpp: console_restates).
    std::vector<run> beside_console;
    bool releasing_results = false;
    const auto use = [&](run&& r) {
        if (!releasing_results && r.meta.kind == run_kind::requests && console_tools.contains(r.meta.source.format)) {
            beside_console.push_back(std::move(r));
            return;
        }
        if (console_runs.hold(r)) return;
        console_runs.saw(r);
        const auto [at, first] = seen.try_emplace(run_fingerprint(r), r.meta.source.path);
        if (!first && at->second != r.meta.source.path) {
            const auto first_path = std::filesystem::path(at->second).lexically_relative(dir).generic_string();
            listing.passed_over.push_back({r.meta.source.path, "the same run as " + first_path + ": same requests and values"});
            return;
        }
        r.meta.source.in_directory = true;
        used.insert(r.meta.source.path);
        tallies.push_back(tally_of(r));
        if (!lists.contains(r.meta.source.path)) own_files.push_back(values_of(r));
        consume(std::move(r));
    };
    std::vector<run> summaries;
    std::size_t not_runs = 0;
    std::exception_ptr first_refusal;
    read_files_in_order(logs, o, [&](std::vector<run>&& runs) {
        if (runs.size() > 1) lists.insert(runs.front().meta.source.path);
        for (auto& r : runs) {
            for (const auto& path : r.meta.source.merged) merged.insert(same_file_key(path));
            for (const auto& [path, why] : r.meta.source.derived) derived.try_emplace(path, why);
            if (r.meta.kind == run_kind::summary) summaries.push_back(std::move(r));
            else use(std::move(r));
        }
    }, [&](const std::filesystem::path& file, const std::string& reason, const std::exception_ptr& error) {
        listing.passed_over.push_back({file.string(), reason});
        if (!first_refusal) first_refusal = error;
        if (++not_runs == logs.size()) std::rethrow_exception(first_refusal); // nothing else to read: say why
    });
    if (logs.empty()) throw input_error(dir.string(), 0, "", "directory contains no recognised request logs");
    // A list of runs beside the runs' own files (InferenceX's agg_bmk.json) was gathered from them:
    // the files come first, so that the list's copies are the ones passed over.
    std::stable_partition(summaries.begin(), summaries.end(), [&](const run& r) { return !lists.contains(r.meta.source.path); });
    std::erase_if(summaries, [&](const run& r) { return merged.contains(same_file_key(r.meta.source.path)); });
    for (auto& result : beside_console) {
        const auto values = values_of(result);
        for (auto& log : summaries) {
            if (log.meta.source.path.empty() || !std::string_view(log.meta.source.format).ends_with("-console") ||
                !console_restates(values_of(log), values))
                continue;
            const auto from = std::filesystem::path(log.meta.source.path).lexically_relative(dir).generic_string();
            result.meta.notes.push_back(from + " is this run's console output (the same values): the run is named by "
                                        "its path, where the run's settings are");
            result.meta.source.name_parts = log.meta.source.name_parts;
            for (const auto& [key, value] : log.meta.params.items())
                if (!result.meta.params.contains(key)) result.meta.params[key] = value;
            listing.passed_over.push_back({log.meta.source.path, "the same run as " +
                                                                     std::filesystem::path(result.meta.source.path).lexically_relative(dir).generic_string() +
                                                                     ": its values restate it"});
            log.meta.source.path.clear(); // taken
            break;
        }
    }
    releasing_results = true;
    for (auto& result : beside_console) use(std::move(result));
    std::erase_if(summaries, [](const run& r) { return r.meta.source.path.empty(); });
    // A summary that sums or averages the runs beside it (per-client parts) is derived from them:
    // judged against every run, the summaries among them too, before any is used.
    std::vector<run_tally> every = tallies;
    for (const auto& r : summaries) every.push_back(tally_of(r));
    std::set<std::size_t> restated; // runs a table's row was found to restate
    for (auto& r : summaries) {
        // A row saved as it was (its fingerprint seen) is a copy of that run, said so by use(); one in
        // another format is known by its values.
        if (lists.contains(r.meta.source.path) && !seen.contains(run_fingerprint(r)))
            if (const auto i = restated_run(values_of(r), own_files, restated)) {
                const auto original = std::filesystem::path(own_files[*i].path).lexically_relative(dir).generic_string();
                listing.passed_over.push_back({r.meta.source.path, "the same run as " + original + ": its values restate it"});
                continue;
            }
        if (const auto why = derived_from_siblings(tally_of(r), every)) listing.passed_over.push_back({r.meta.source.path, *why});
        else use(std::move(r));
    }
    console_runs.release(dir, [&](run&& r, const std::optional<std::string>& copy_of) {
        if (copy_of) listing.passed_over.push_back({r.meta.source.path, *copy_of});
        else use(std::move(r));
    });
    listing.logs = used.size();
    for (const auto& file : unrecognised)
        if (!merged.contains(same_file_key(file.path))) listing.passed_over.push_back(file);
    // Files a reader found derived from its run and its siblings (a whole-run summary beside stage
    // reports): no runs, and said so.
    for (const auto& entry : derived) {
        const std::string& path = entry.first;
        if (!used.contains(path) && std::none_of(listing.passed_over.begin(), listing.passed_over.end(),
                                                 [&](const auto& p) { return same_file_key(p.path) == same_file_key(path); }))
            listing.passed_over.push_back({path, entry.second});
    }
    collapse_gathered_copies(listing.passed_over, used);
    std::sort(listing.passed_over.begin(), listing.passed_over.end(),
              [](const auto& a, const auto& b) { return natural_less(a.path, b.path); });
    o.listed(listing);
}

} // namespace detail

// Calls `consume(run&&)` for each run of each input (a file or a directory) in order. Files are
// read as many at a time as `o.read.threads` allows (one large file in pieces), so a long list of
// large logs never sits in memory together beyond that window. A directory is read with its
// sub-folders (detail::read_directory); files in it that no format recognises (a README beside the
// logs) are passed over unless a format is forced.
template <class Consumer>
void for_each_run(std::span<const std::string> inputs, const load_options& o, Consumer&& consume) {
    namespace fs = std::filesystem;
    std::vector<detail::file_to_read> files; // plain files named one after another, read together
    // Pipes named as inputs, read from their copies; runs and errors name the pipe again.
    std::vector<std::unique_ptr<detail::spooled_input>> pipes;
    const auto named_as_given = [&](const std::string& path) -> const detail::spooled_input* {
        for (const auto& p : pipes)
            if (p->copy().string() == path) return p.get();
        return nullptr;
    };
    const auto read_named_files = [&] {
        try {
            detail::read_files_in_order(files, o, [&](std::vector<run>&& runs) {
                for (auto& r : runs) {
                    if (const auto* pipe = named_as_given(r.meta.source.path)) r.meta.source.path = pipe->original().string();
                    consume(std::move(r));
                }
            });
        } catch (const input_error& e) {
            if (const auto* pipe = named_as_given(e.file())) throw input_error(pipe->original().string(), e.line(), e.field(), e.reason());
            throw;
        }
        files.clear();
        pipes.clear();
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
            detail::read_directory(input, o, consume);
        } else if (detail::read_once(status)) {
            pipes.push_back(std::make_unique<detail::spooled_input>(input, o.warn));
            files.push_back({pipes.back()->copy(), detail::name_parts_of(input)});
        } else if (fs::is_character_file(status) || fs::is_block_file(status)) {
            read_named_files();
            throw input_error(input, 0, "", "a device, not a file (a log is a file, a folder, or '-' for standard input)");
        } else if (fs::exists(status)) {
            files.push_back({input, detail::name_parts_of(input)});
        } else {
            read_named_files();
            throw input_error(input, 0, "", "no such file or directory");
        }
    }
    read_named_files();
}

// The bytes for_each_run reads of `inputs`, the total of a progress stage: a file's size, and the
// sizes of the files a directory lists (read or passed over, as read_directory counts them). An
// input that is not there, or cannot be listed, counts 0 (reading it says why).
inline std::uintmax_t input_bytes(std::span<const std::string> inputs) {
    namespace fs = std::filesystem;
    std::uintmax_t total = 0;
    const auto add = [&](const fs::path& file) {
        std::error_code ec;
        if (const auto size = fs::file_size(file, ec); !ec) total += size;
    };
    for (const auto& input : inputs) {
        std::error_code ec;
        const auto status = fs::status(input, ec);
        if (ec) continue;
        if (fs::is_regular_file(status)) {
            add(input);
        } else if (fs::is_directory(status)) {
            try {
                for (const auto& file : detail::files_in(input, [](const std::string&) {})) add(file);
            } catch (const input_error&) {
            }
        }
    }
    return total;
}

inline std::vector<run> read_logs(std::span<const std::string> inputs, const load_options& o = {}) {
    std::vector<run> runs;
    for_each_run(inputs, o, [&](run&& r) { runs.push_back(std::move(r)); });
    return runs;
}

} // namespace servestat
