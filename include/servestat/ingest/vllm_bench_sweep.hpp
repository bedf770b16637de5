// Reader for the run files of `vllm bench sweep serve` (vllm/benchmarks/sweep/serve.py, format
// "vllm-bench-sweep"): <output_dir>/<experiment>/SERVE--<serve combination>-BENCH--<bench
// combination>/run=N.json, one per replicate of a parameter combination. Each is the result JSON of
// `vllm bench serve --save-result` rewritten by the sweep (json.dump, indent 4) with `run_number`
// (the replicate index, 0 …) and the combination's overrides appended as top-level keys; a warm-up
// run (--warmup-num-prompts) is warmup.json with run_number -1. Read by the vLLM result reader;
// here the sweep's additions: run_number as the replicate index, the combination named in the
// folder, the warm-up passed over.
#pragma once

#include <algorithm>   // std::min
#include <cmath>       // std::floor
#include <cstddef>     // std::size_t
#include <filesystem>  // std::filesystem::path
#include <optional>    // std::optional
#include <string>      // std::string
#include <string_view> // std::string_view
#include <utility>     // std::pair
#include <vector>      // std::vector

#include <nlohmann/json.hpp> // nlohmann::json

#include "servestat/core/errors.hpp"            // input_error, not_a_run_error
#include "servestat/core/run.hpp"               // run, run_metadata
#include "servestat/ingest/json_document.hpp"   // first_json_char, read_json_file, parse_json_documents
#include "servestat/ingest/reader.hpp"          // log_format, read_options
#include "servestat/ingest/vllm_bench_json.hpp" // read_vllm_bench_json, sniff_vllm_bench_json, vllm_param_value

namespace servestat {
namespace detail {

inline constexpr std::string_view vllm_bench_sweep_name = "vllm-bench-sweep";

// ---- the combination folder ---------------------------------------------------------------------

// One side of a combination folder's name: `k=v` pairs joined by '-' (ParameterSweepItem.as_text),
// or the combination's _benchmark_name. A value may itself hold '-' ("model=meta-llama-3"): a piece
// without '=' continues the value before it.
struct vllm_sweep_side {
    std::string name; // the _benchmark_name, when the side is one
    std::vector<std::pair<std::string, std::string>> pairs;
};

inline vllm_sweep_side parse_vllm_sweep_side(std::string_view text) {
    vllm_sweep_side side;
    if (text.find('=') == std::string_view::npos) {
        side.name = std::string(text);
        return side;
    }
    std::size_t at = 0;
    while (at <= text.size()) {
        const std::size_t dash = std::min(text.find('-', at), text.size());
        const std::string_view piece = text.substr(at, dash - at);
        const std::size_t eq = piece.find('=');
        if (eq != std::string_view::npos && eq > 0) side.pairs.emplace_back(std::string(piece.substr(0, eq)), std::string(piece.substr(eq + 1)));
        else if (!side.pairs.empty()) side.pairs.back().second.append("-").append(piece);
        at = dash + 1;
    }
    return side;
}

// "SERVE--max_num_seqs=4-BENCH--max_concurrency=2-num_prompts=8" → its two sides (either may be
// absent: the sweep names only the sides that have parameters). nullopt: not a combination folder.
struct vllm_sweep_combination {
    std::optional<vllm_sweep_side> serve, bench;
};

inline std::optional<vllm_sweep_combination> parse_vllm_sweep_folder(std::string_view folder) {
    constexpr std::string_view serve_mark = "SERVE--", bench_mark = "BENCH--";
    vllm_sweep_combination out;
    if (folder.starts_with(serve_mark)) {
        folder.remove_prefix(serve_mark.size());
        const std::size_t bench = folder.find(std::string("-").append(bench_mark));
        out.serve = parse_vllm_sweep_side(folder.substr(0, bench));
        if (bench == std::string_view::npos) return out;
        folder.remove_prefix(bench + 1);
    }
    if (!folder.starts_with(bench_mark)) return out.serve ? std::optional(out) : std::nullopt;
    out.bench = parse_vllm_sweep_side(folder.substr(bench_mark.size()));
    return out;
}

inline std::string vllm_sweep_side_text(const vllm_sweep_side& side) {
    if (!side.name.empty()) return "\"" + side.name + "\"";
    std::string text;
    for (const auto& [k, v] : side.pairs) text.append(text.empty() ? "" : ", ").append(k).append("=").append(v);
    return text;
}

// What the folder names: a note naming the serve and bench sides, and parameters the JSON lacks (a
// serve _benchmark_name, which the bench side's overwrites in the JSON; a pair edited out).
inline void add_vllm_sweep_folder(const std::filesystem::path& file, run_metadata& meta) {
    const auto combination = parse_vllm_sweep_folder(file.parent_path().filename().string());
    if (!combination) return;
    std::string note = "a vllm bench sweep serve combination (its folder " + file.parent_path().filename().string() + "):";
    for (const auto& [side, label] : {std::pair{&combination->serve, "vllm serve"}, std::pair{&combination->bench, "vllm bench serve"}}) {
        if (!*side) continue;
        note.append(" ").append(label).append(" with ").append(vllm_sweep_side_text(**side)).append(";");
        for (const auto& [k, v] : (*side)->pairs)
            if (!meta.params.contains(k)) meta.params[k] = vllm_param_value(nlohmann::json(v));
    }
    if (combination->serve && !combination->serve->name.empty() &&
        meta.params.value("_benchmark_name", nlohmann::json()) != nlohmann::json(combination->serve->name))
        meta.params["serve_benchmark_name"] = combination->serve->name;
    note.back() = '.';
    note.append(" Settings of --serve-cmd and --bench-cmd that no combination varies are not recorded anywhere");
    meta.notes.push_back(std::move(note));
}

// ---- the replicate index ------------------------------------------------------------------------

// "run=3" → 3 (the sweep's file name for run_number 3).
inline std::optional<long long> vllm_sweep_stem_number(std::string_view stem) {
    if (!stem.starts_with("run=") || stem.size() == 4) return std::nullopt;
    long long n = 0;
    for (const char c : stem.substr(4)) {
        if (c < '0' || c > '9' || n > 1'000'000'000) return std::nullopt;
        n = n * 10 + (c - '0');
    }
    return n;
}

// run_number must be a whole number: -1 is the warm-up (no measured data), 0 … the replicates.
inline long long vllm_sweep_run_number(const run& r, const std::filesystem::path& file) {
    const auto it = r.meta.params.find("run_number");
    if (it == r.meta.params.end())
        throw input_error(file.string(), r.meta.source.line, "run_number",
                          "missing: not a run of vllm bench sweep (read it as vllm-bench-json)");
    const bool whole = it->is_number() && std::floor(it->get<double>()) == it->get<double>() && it->get<double>() >= -1 &&
                       it->get<double>() < 1e9;
    if (!whole)
        throw input_error(file.string(), r.meta.source.line, "run_number",
                          "expected the replicate index (a whole number, -1 for the warm-up), got " + it->dump());
    return static_cast<long long>(it->get<double>());
}

inline void add_vllm_sweep_replicate(const std::filesystem::path& file, long long number, run& r) {
    r.meta.params["run_number"] = number;
    r.meta.tool = "vllm bench sweep serve";
    r.meta.notes.push_back("run_number " + std::to_string(number) + " is the replicate index within its combination: "
                           "the sweep runs each combination --num-runs times (default 3), run=0.json first");
    if (const auto from_name = vllm_sweep_stem_number(file.stem().string()); from_name && *from_name != number)
        r.meta.notes.push_back("the file is named run=" + std::to_string(*from_name) + " but its run_number is " +
                               std::to_string(number) + "; the file's run_number is used");
}

// ---- the file -----------------------------------------------------------------------------------

// The runs keep the vLLM result's format name: the sweep only appends keys, and a --save-detailed
// run whose run_number lies past the sniffed head is read by vllm-bench-json itself, so one name
// keeps a sweep's levels on one curve whichever reader took each file.
inline std::vector<run> read_vllm_bench_sweep(const std::filesystem::path& file, const read_options& options) {
    auto runs = read_vllm_bench_json(file, options);
    for (auto& r : runs) {
        const long long number = vllm_sweep_run_number(r, file);
        if (number == -1)
            throw not_a_run_error(file.string(), r.meta.source.line, "run_number",
                                  "vllm bench sweep's warm-up run (run_number -1, --warmup-num-prompts): not measured "
                                  "data, and the sweep leaves it out of its summary");
        add_vllm_sweep_replicate(file, number, r);
        add_vllm_sweep_folder(file, r.meta);
        // Every level's replicates are run=0, run=1, ...: the folder tells the levels apart.
        if (r.meta.label == file.stem().string() && file.has_parent_path())
            r.meta.label = file.parent_path().filename().string() + "/" + r.meta.label;
    }
    return runs;
}

// vLLM's result object (its own sniffer) with the sweep's run_number. The sweep appends run_number
// after vLLM's keys, so a result with --save-detailed arrays can push it past the head: then
// vllm-bench-json reads the file, with run_number still a parameter.
inline int sniff_vllm_bench_sweep(std::string_view head) {
    if (first_json_char(head) != '{' || sniff_vllm_bench_json(head) == 0) return 0;
    return head.find("\"run_number\"") != std::string_view::npos ? 110 : 0;
}

} // namespace detail

inline constexpr log_format vllm_bench_sweep_format{
    detail::vllm_bench_sweep_name,
    "vllm bench sweep serve run files (SERVE--…-BENCH--…/run=N.json: vLLM's result with its replicate index)",
    &detail::sniff_vllm_bench_sweep, &detail::read_vllm_bench_sweep};

} // namespace servestat
