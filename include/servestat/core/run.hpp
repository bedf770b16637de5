// One load-test run: its metadata and its requests.
#pragma once

#include <cstddef> // std::size_t
#include <map>     // std::map
#include <memory>  // std::shared_ptr
#include <string>  // std::string
#include <string_view> // std::string_view
#include <utility> // std::pair
#include <vector>  // std::vector

#include <nlohmann/json.hpp> // nlohmann::json

#include "servestat/core/request_table.hpp" // request_table

namespace servestat {

struct run_source {
    std::string path;
    std::string format; // reader name, e.g. "servestat", "notebook-csv"
    // Other files this run already includes (a tool's summary read beside its request file), so
    // reading their folder does not list them again as runs of their own.
    std::vector<std::string> merged;
    // The line of the file this run came from when the file holds one run per row or line (a sweep
    // table, appended results); 0 when the run is the whole file.
    std::size_t line = 0;
    // The names on the file's path that may carry parameters, nearest first: its stem, each folder
    // up to (and including) the directory argument it was found in. The experiment stage reads
    // its factors from them (experiment/path_words.hpp).
    std::vector<std::string> name_parts;
    // Whether the last of name_parts is the directory argument the file was found in (not a folder
    // below it): a --factor pattern searches the path below it.
    bool in_directory = false;
    // The run's own name where its tool added a suffix to it for this file (GenAI-Perf's
    // <stem>_genai_perf.json names the run <stem>): read in place of the file's stem; empty: the stem.
    std::string name_stem;
    // Of the merged files, those that are no part of this run but derived from it and its siblings (a
    // whole-run summary beside stage reports): path, and why. A folder read lists them as passed over.
    std::vector<std::pair<std::string, std::string>> derived;
    // The runs this one was combined from, by their labels, when they were parts of one measurement
    // (parallel clients, experiment/parts.hpp); empty for a run read from one file.
    std::vector<std::string> parts;
};

// What a source holds: per-request measurements, only a tool's own aggregates, or a workload
// (arrival times and sizes to replay, nothing measured).
enum class run_kind { requests, summary, arrivals };

inline const char* to_string(run_kind k) noexcept {
    switch (k) {
    case run_kind::requests: return "requests";
    case run_kind::summary: return "summary";
    case run_kind::arrivals: return "arrivals";
    }
    return "?";
}

// A number the source tool computed itself, kept as it reported it (converted to seconds when its
// definition matches servestat's metric of that name). Names: "requests", "ok", "failed",
// "duration", "rps", "output_tps", "total_tps"; "<metric>.<stat>" for servestat metrics and
// token counts (e.g. "e2e.p99", "ttft.mean", "prompt_tokens.p50"); "<tool>.<name>" for what has
// no servestat counterpart (e.g. "llmperf.inter_token_latency_s.p50", which includes TTFT).
// A subset other than all is a prefix: "short.e2e.p99".
struct reported_value {
    std::string name;
    double value = 0;
    std::string unit; // "s", "req/s", "tok/s", "tokens", "requests", ...
};

// The server's /metrics sampled during the run, or another Prometheus endpoint such as the GPUs'
// power (ingest/metrics_timeline.hpp).
struct server_timeline;

struct run_metadata {
    std::string label;
    std::string started_at; // ISO 8601 as the log gave it; empty when unknown
    std::string model;
    std::string workload;
    std::string tool;
    nlohmann::json params = nlohmann::json::object(); // sorted keys: output order is stable
    // The parameters a name on the path gave (the name, e.g. "conc16"); those absent came from the file.
    std::map<std::string, std::string> param_origin;
    run_source source;
    // False when the source has per-request durations but no shared clock (e.g. the notebook's
    // latency_s table): then duration, rates and concurrency cannot be derived and stay null.
    bool shared_clock = true;
    run_kind kind = run_kind::requests;
    // What the reader converted, and what the source cannot tell (e.g. "output length is in
    // characters, not tokens"): shown with the statistics so no number is read wrongly.
    std::vector<std::string> notes;
    std::vector<reported_value> reported; // the source tool's own summary, in its order
    // servestat's own driver: how the run ended and what the driver measured about it (the log
    // header's run.end, log-format.md#run-end); null for every other source.
    nlohmann::json run_end;
    // servestat load --scrape-interval: the timeline file beside the log, read whole; null when there
    // is none. Shared, so the run's statistics and views copy a pointer, not the samples.
    std::shared_ptr<const servestat::server_timeline> server_timeline;
    // servestat load --power-url: the power endpoint's timeline beside the log (X.power-timeline.jsonl,
    // the same format: the GPUs' power and energy counters, e.g. DCGM's), read whole; null when there
    // is none.
    std::shared_ptr<const servestat::server_timeline> power_timeline;
};

// The first reported value of that name, or nullptr.
inline const reported_value* find_reported(const run_metadata& meta, std::string_view name) {
    for (const auto& v : meta.reported)
        if (v.name == name) return &v;
    return nullptr;
}

// What a reader skips under --skip-bad: a line of a line-based log (JSON Lines, CSV), or a record
// of a JSON document (an element of its array of requests), which may span lines or share one.
enum class skipped_unit { line, record };

// Lines (or records) a reader skipped under --skip-bad, with the first few reasons kept for the user.
struct skipped_lines {
    std::size_t count = 0;
    std::vector<std::string> examples;
    skipped_unit unit = skipped_unit::line;
    static constexpr std::size_t max_examples = 5;

    // "line", "lines", "record", "records": how messages count what was skipped.
    std::string noun(std::size_t n) const {
        return std::string(unit == skipped_unit::record ? "record" : "line") + (n == 1 ? "" : "s");
    }

    void add(std::string message) {
        ++count;
        if (examples.size() < max_examples) examples.push_back(std::move(message));
    }
};

struct run {
    run_metadata meta;
    request_table requests;
    skipped_lines skipped;
};

} // namespace servestat
