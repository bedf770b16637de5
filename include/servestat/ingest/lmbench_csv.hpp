// Reader for LMBench's per-request CSV (LMCache's multi-round-QA benchmark, LMBench_<workload>_*.csv,
// as llm-d-benchmark committed them): one file is one requests run, one row one finished request.
//
// From LMBench's source (3-workloads/synthetic/multi-round-qa.py, UserSession.summary and
// RequestExecutor), every time on the client's time.time() clock:
//   prompt_tokens, generation_tokens  the server's usage counts (pandas may write them as "76.0")
//   launch_time                       epoch seconds just before the request was sent
//   ttft                              first content chunk − launch_time, s; 0 when no chunk had content
//   generation_time                   last chunk − first content chunk, s (0 likewise); not read:
//                                     finish_time gives the end
//   finish_time                       epoch seconds once the stream was done
//   question_id (optional)            the request's place in its user's conversation, 1 = first → turn
//   user_id (optional)                the simulated user; ignored (servestat has no session column)
// Traps: rows come grouped by user, not in time order, so the run's 0 is the earliest launch_time,
// not the first row's. LMBench writes only requests that finished inside the run: a request that
// raised is dropped and one still running at the end is left out, so no row is a failure and the
// error rate cannot be told (a note says so). A file with its header alone is a run where nothing
// finished. The file name (LMBench_sharegpt_output_6.5 → QPS 6.5) is not read here.
#pragma once

#include <algorithm>   // std::min_element
#include <cstddef>     // std::size_t
#include <filesystem>  // std::filesystem::path
#include <initializer_list> // std::initializer_list
#include <optional>    // std::optional
#include <string>      // std::string
#include <string_view> // std::string_view
#include <utility>     // std::move
#include <vector>      // std::vector

#include "servestat/core/errors.hpp"         // input_error
#include "servestat/core/request_record.hpp" // request_record
#include "servestat/core/request_status.hpp" // request_status
#include "servestat/core/run.hpp"            // run, reported_value
#include "servestat/ingest/csv.hpp"          // csv_reader, csv_row, find_column, for_each_csv_row, sniff_csv_header
#include "servestat/ingest/reader.hpp"       // log_format, read_options

namespace servestat {
namespace detail {

inline constexpr std::string_view lmbench_csv_name = "lmbench-csv";

// The columns every LMBench variant writes; the sniffer needs all of them.
inline constexpr std::string_view lmbench_required_columns[] = {"prompt_tokens", "generation_tokens", "ttft",
                                                                "generation_time", "launch_time", "finish_time"};

struct lmbench_columns {
    std::optional<std::size_t> prompt_tokens, generation_tokens, ttft, launch, finish, question_id;
};

inline lmbench_columns find_lmbench_columns(const csv_reader& csv) {
    const auto& header = csv.header();
    for (const std::string_view required : lmbench_required_columns)
        if (!find_column(header, required))
            throw input_error(csv.name(), csv.header_line(), std::string(required), "missing required column");
    return {
        .prompt_tokens = find_column(header, "prompt_tokens"),
        .generation_tokens = find_column(header, "generation_tokens"),
        .ttft = find_column(header, "ttft"),
        .launch = find_column(header, "launch_time"),
        .finish = find_column(header, "finish_time"),
        .question_id = find_column(header, "question_id"),
    };
}

// A row's times in the file's terms: absolute launch and finish, ttft relative to launch.
struct lmbench_times {
    double launch = 0, finish = 0;
    std::optional<double> ttft; // absent when LMBench saw no content chunk (it writes 0)
};

// Fills the counts and status; returns the times, checked against each other so that no request
// ends before it starts or has its first token after its end.
inline lmbench_times read_lmbench_row(const csv_row& row, const lmbench_columns& columns, request_record& r) {
    lmbench_times t;
    t.launch = row.required_duration(columns.launch);
    t.finish = row.required_duration(columns.finish);
    if (t.finish < t.launch)
        row.fail(columns.finish, "before launch_time (" + std::string(row.cell(columns.finish)) + " < " +
                                     std::string(row.cell(columns.launch)) + ")");
    const double ttft = row.required_duration(columns.ttft);
    if (ttft > t.finish - t.launch)
        row.fail(columns.ttft, "longer than finish_time − launch_time (" + std::string(row.cell(columns.ttft)) + ")");
    if (ttft > 0) t.ttft = ttft;
    r.prompt_tokens = row.count(columns.prompt_tokens);
    r.output_tokens = row.count(columns.generation_tokens);
    if (const auto turn = row.count(columns.question_id)) {
        if (*turn < 1) row.fail(columns.question_id, "must be 1 or more, got " + quote_cell(row.cell(columns.question_id)));
        r.turn = turn;
    }
    r.status = request_status::ok; // LMBench writes finished requests only
    return t;
}

// Every request on the run's clock, whose 0 is the earliest launch.
inline void place_lmbench_times(std::vector<request_record>& records, const std::vector<lmbench_times>& times) {
    if (times.empty()) return;
    const double first =
        std::min_element(times.begin(), times.end(), [](const auto& a, const auto& b) { return a.launch < b.launch; })
            ->launch;
    for (std::size_t i = 0; i < records.size(); ++i) {
        const double sent = times[i].launch - first;
        records[i].t_sent = sent;
        if (times[i].ttft) records[i].t_first = sent + *times[i].ttft;
        records[i].t_end = times[i].finish - first;
    }
}

// A header-only file is a run where nothing finished (LMBench's summary filtered every row out).
// It is kept as a run of zero requests, not refused with not_a_run_error: refusing would drop it
// from a folder read, and the sweep would lose the point where the server failed. The file's count
// of finished requests, 0, is reported as "ok", which is what run_failed_entirely reads for a run
// without requests: the folder read shows it as a failed run, with no rates or latencies.
inline void mark_nothing_finished(run& out) {
    out.meta.reported.push_back(reported_value{"ok", 0, "requests"});
    out.meta.notes.push_back("the file has its header only: no request finished (LMBench writes finished "
                             "requests only), a failed run");
}

inline std::vector<run> read_lmbench_csv(const std::filesystem::path& file, const read_options& options) {
    csv_reader csv(file, options.max_line_bytes);
    csv.read_header();
    const lmbench_columns columns = find_lmbench_columns(csv);

    run out;
    out.meta.label = file.stem().string();
    out.meta.source = {file.string(), std::string(lmbench_csv_name)};
    out.meta.tool = "lmbench";
    out.meta.shared_clock = true;

    std::vector<request_record> records;
    std::vector<lmbench_times> times;
    request_record record;
    const std::size_t rows = for_each_csv_row(csv, options, out.skipped, [&](const csv_row& row) {
        record.clear();
        const lmbench_times t = read_lmbench_row(row, columns, record);
        records.push_back(record);
        times.push_back(t);
    });
    if (rows == 0) {
        mark_nothing_finished(out);
    } else {
        place_lmbench_times(records, times);
        out.requests.reserve(records.size());
        for (const request_record& r : records) out.requests.push_back(r);
        out.meta.notes.push_back("LMBench writes only requests that finished: failed requests and those still "
                                 "running at the end are not in the file, so its error rate is unknown");
    }

    std::vector<run> runs;
    runs.push_back(std::move(out));
    return runs;
}

// All six columns LMBench always writes make it a candidate; question_id and user_id (the
// multi-round-QA variant) make it surer. launch_time, finish_time and generation_time together are
// LMBench's own spelling, which no other format's header has.
inline int sniff_lmbench_csv(std::string_view head) {
    const std::vector<std::string> header = sniff_csv_header(head);
    for (const std::string_view required : lmbench_required_columns)
        if (!find_column(header, required)) return 0;
    int score = 70;
    for (const std::string_view supporting : {"user_id", "question_id"})
        if (find_column(header, supporting)) score += 10;
    return score;
}

} // namespace detail

inline constexpr log_format lmbench_csv_format{
    detail::lmbench_csv_name,
    "per-request CSV of LMBench (LMCache multi-round QA: prompt_tokens, generation_tokens, ttft, launch_time, ...)",
    &detail::sniff_lmbench_csv, &detail::read_lmbench_csv};

} // namespace servestat
