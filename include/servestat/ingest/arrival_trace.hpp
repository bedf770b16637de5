// Readers for production arrival traces: when each request arrived and how many tokens it had, with
// nothing measured. They are workloads to replay, read as run_kind::arrivals runs (t_sched, token
// counts, no t_sent/t_first/t_end), and through read_arrivals() as a plain list for the load driver.
//
// azure-trace: Azure's LLM inference trace (AzurePublicDataset, Splitwise ISCA'24): CSV with
//   TIMESTAMP ("YYYY-MM-DD HH:MM:SS.fffffff", no time zone), ContextTokens, GeneratedTokens.
// mooncake-trace: Mooncake's FAST'25 traces: JSON Lines with timestamp (ms from the trace start),
//   input_length, output_length and hash_ids (prefix-cache block ids, not used here).
// Arrivals must come in time order (equal times allowed): a trace that goes backwards is an error,
// not silently sorted, because replay order within a conversation matters.
#pragma once

#include <cstddef>     // std::size_t
#include <cstdint>     // std::int32_t, std::int64_t
#include <cstdio>      // std::FILE, std::fopen, std::fread
#include <filesystem>  // std::filesystem::path
#include <memory>      // std::unique_ptr
#include <optional>    // std::optional
#include <string>      // std::string
#include <string_view> // std::string_view
#include <utility>     // std::move
#include <vector>      // std::vector

#include <nlohmann/json.hpp> // nlohmann::json

#include "servestat/core/errors.hpp"          // input_error
#include "servestat/core/request_record.hpp"  // request_record
#include "servestat/core/request_status.hpp"  // request_status
#include "servestat/core/run.hpp"             // run, skipped_lines
#include "servestat/core/text.hpp"            // trim_spaces
#include "servestat/ingest/csv.hpp"           // csv_reader, csv_row, for_each_csv_row, find_column
#include "servestat/ingest/input_file.hpp"    // read_input_head
#include "servestat/ingest/json_document.hpp" // json_place, json_require, json_number, json_count
#include "servestat/ingest/line_source.hpp"   // line_source
#include "servestat/ingest/reader.hpp"        // log_format, read_options

namespace servestat {

// One request of a workload trace: seconds after the trace's first arrival, and its token counts.
struct arrival {
    double t = 0;
    std::int32_t prompt_tokens = 0;
    std::int32_t output_tokens = 0;
};

namespace detail {

inline constexpr std::string_view azure_trace_name = "azure-trace";
inline constexpr std::string_view mooncake_trace_name = "mooncake-trace";

// ---- calendar arithmetic for Azure's timestamps (proleptic Gregorian, no time zone) ----

constexpr bool is_leap_year(std::int64_t y) noexcept { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

constexpr unsigned days_in_month(std::int64_t y, unsigned m) noexcept {
    constexpr unsigned days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 && is_leap_year(y) ? 29 : days[m - 1];
}

// Days from 1970-01-01 to y-m-d (Howard Hinnant's days_from_civil: eras of 400 years, years that
// start in March so the leap day comes last).
constexpr std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) noexcept {
    y -= m <= 2;
    const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
    const auto year_of_era = static_cast<unsigned>(y - era * 400);
    const unsigned day_of_year = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    const unsigned day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    return era * 146097 + static_cast<std::int64_t>(day_of_era) - 719468;
}

inline constexpr std::int64_t ticks_per_second = 10'000'000; // Azure's 7 fractional digits: 100 ns

// "YYYY-MM-DD HH:MM:SS" with an optional fraction of 1 to 7 digits, as 100 ns ticks since
// 1970-01-01 00:00:00 in the same (unknown) zone. Integers all the way, so differences are exact.
// nullopt unless the text has exactly that shape and names a real date and time.
inline std::optional<std::int64_t> parse_azure_timestamp(std::string_view s) {
    auto digits = [&](std::size_t at, std::size_t n) -> std::optional<std::int64_t> {
        if (at + n > s.size()) return std::nullopt;
        std::int64_t v = 0;
        for (std::size_t i = at; i < at + n; ++i) {
            if (s[i] < '0' || s[i] > '9') return std::nullopt;
            v = v * 10 + (s[i] - '0');
        }
        return v;
    };
    auto separator = [&](std::size_t at, char c) { return at < s.size() && s[at] == c; };
    const auto year = digits(0, 4), month = digits(5, 2), day = digits(8, 2);
    const auto hour = digits(11, 2), minute = digits(14, 2), second = digits(17, 2);
    if (!year || !month || !day || !hour || !minute || !second || !separator(4, '-') || !separator(7, '-') ||
        !separator(10, ' ') || !separator(13, ':') || !separator(16, ':'))
        return std::nullopt;
    if (*month < 1 || *month > 12 || *day < 1 || *day > days_in_month(*year, static_cast<unsigned>(*month)) ||
        *hour > 23 || *minute > 59 || *second > 59)
        return std::nullopt;
    std::int64_t fraction = 0;
    if (s.size() > 19) {
        const std::size_t n = s.size() - 20;
        const auto f = separator(19, '.') && n >= 1 && n <= 7 ? digits(20, n) : std::nullopt;
        if (!f) return std::nullopt;
        fraction = *f;
        for (std::size_t i = n; i < 7; ++i) fraction *= 10;
    }
    const std::int64_t days = days_from_civil(*year, static_cast<unsigned>(*month), static_cast<unsigned>(*day));
    const std::int64_t seconds = days * 86400 + *hour * 3600 + *minute * 60 + *second;
    return seconds * ticks_per_second + fraction;
}

// What a trace says about itself besides its arrivals.
struct trace_info {
    std::string started_at; // ISO 8601 without a zone, when the trace has wall-clock times
};

// ---- azure-trace ----

struct azure_columns {
    std::optional<std::size_t> timestamp, context_tokens, generated_tokens;
};

inline azure_columns find_azure_columns(const csv_reader& csv) {
    const auto& header = csv.header();
    for (const std::string_view required : {"TIMESTAMP", "ContextTokens", "GeneratedTokens"})
        if (!find_column(header, required))
            throw input_error(csv.name(), csv.header_line(), std::string(required), "missing required column");
    return {find_column(header, "TIMESTAMP"), find_column(header, "ContextTokens"),
            find_column(header, "GeneratedTokens")};
}

inline std::int32_t required_count(const csv_row& row, std::optional<std::size_t> column) {
    const auto n = row.count(column);
    if (!n) row.fail(column, "missing");
    return *n;
}

// Calls on_arrival(arrival) for each row, times relative to the first row's timestamp.
template <class OnArrival>
void parse_azure_trace(const std::filesystem::path& file, const read_options& options, skipped_lines& skipped,
                       trace_info& info, OnArrival&& on_arrival) {
    csv_reader csv(file, options.max_line_bytes);
    csv.read_header();
    const azure_columns columns = find_azure_columns(csv);
    std::optional<std::int64_t> origin;
    std::int64_t previous = 0;
    std::size_t previous_line = 0;
    const std::size_t rows = for_each_csv_row(csv, options, skipped, [&](const csv_row& row) {
        const std::string_view text = trim_spaces(row.cell(columns.timestamp));
        const auto ticks = parse_azure_timestamp(text);
        if (!ticks)
            row.fail(columns.timestamp,
                     "malformed timestamp " + quote_cell(text) + " (expected YYYY-MM-DD HH:MM:SS.fffffff)");
        if (origin && *ticks < previous)
            row.fail(columns.timestamp, "arrival goes backwards (line " + std::to_string(previous_line) +
                                            " is later): the trace must be sorted by time");
        const std::int32_t prompt = required_count(row, columns.context_tokens);
        const std::int32_t output = required_count(row, columns.generated_tokens);
        if (!origin) {
            origin = *ticks;
            info.started_at = std::string(text);
            info.started_at[10] = 'T';
        }
        previous = *ticks;
        previous_line = row.line();
        on_arrival(arrival{static_cast<double>(*ticks - *origin) / static_cast<double>(ticks_per_second), prompt,
                           output});
    });
    if (rows == 0) throw input_error(csv.name(), csv.header_line(), "", "no arrivals after the header");
    if (!origin) throw input_error(csv.name(), 0, "", "every arrival was bad");
}

// ---- mooncake-trace ----

struct mooncake_line {
    double timestamp_ms = 0;
    std::int32_t input_length = 0, output_length = 0;
};

inline mooncake_line parse_mooncake_line(std::string_view line, const json_place& place) {
    const nlohmann::json request = parse_json_text(line, place);
    json_object(request, place, "");
    mooncake_line out;
    out.timestamp_ms = json_number(json_require(request, "timestamp", place, ""), place, "timestamp");
    if (out.timestamp_ms < 0) place.fail("timestamp", "negative time");
    out.input_length = json_count(json_require(request, "input_length", place, ""), place, "input_length");
    out.output_length = json_count(json_require(request, "output_length", place, ""), place, "output_length");
    return out;
}

inline bool is_blank_line(std::string_view line) { return line.find_first_not_of(" \t\r") == std::string_view::npos; }

// Calls on_arrival(arrival) for each line, times relative to the first line's timestamp.
template <class OnArrival>
void parse_mooncake_trace(const std::filesystem::path& file, const read_options& options, skipped_lines& skipped,
                          trace_info&, OnArrival&& on_arrival) {
    line_source lines(file, options.max_line_bytes);
    std::optional<double> origin_ms;
    double previous_ms = 0;
    std::size_t previous_line = 0;
    while (const auto line = lines.next()) {
        if (is_blank_line(*line)) continue;
        const json_place place{lines.name(), lines.line_number()};
        try {
            const mooncake_line m = parse_mooncake_line(*line, place);
            if (origin_ms && m.timestamp_ms < previous_ms)
                place.fail("timestamp", "arrival goes backwards (line " + std::to_string(previous_line) +
                                            " is later): the trace must be sorted by time");
            if (!origin_ms) origin_ms = m.timestamp_ms;
            previous_ms = m.timestamp_ms;
            previous_line = place.line;
            // Whole milliseconds subtract exactly; one division rounds once.
            on_arrival(arrival{(m.timestamp_ms - *origin_ms) / 1000.0, m.input_length, m.output_length});
        } catch (const input_error& e) {
            if (!options.skip_bad) throw;
            skipped.add(e.what());
        }
    }
    if (!origin_ms)
        throw input_error(lines.name(), 0, "", skipped.count > 0 ? "every arrival was bad" : "no arrivals in the file");
}

// ---- runs ----

inline constexpr std::string_view replay_note =
    "a workload trace for replay (servestat load --trace, a later feature): arrival times and token counts "
    "only; nothing was measured, so there are no latencies";

inline run arrival_run(const std::filesystem::path& file, std::string_view format) {
    run out;
    out.meta.label = file.stem().string();
    out.meta.kind = run_kind::arrivals;
    out.meta.source = {file.string(), std::string(format)};
    return out;
}

inline void push_arrival(run& out, request_record& r, const arrival& a) {
    r.clear();
    r.t_sched = a.t;
    r.prompt_tokens = a.prompt_tokens;
    r.output_tokens = a.output_tokens;
    r.status = request_status::ok;
    out.requests.push_back(r);
}

// "AzureLLMInferenceTrace_code" → "code".
inline std::string azure_workload(const std::string& stem) {
    const auto underscore = stem.rfind('_');
    return underscore == std::string::npos ? std::string() : stem.substr(underscore + 1);
}

inline std::vector<run> read_azure_trace(const std::filesystem::path& file, const read_options& options) {
    run out = arrival_run(file, azure_trace_name);
    trace_info info;
    request_record r;
    parse_azure_trace(file, options, out.skipped, info, [&](const arrival& a) { push_arrival(out, r, a); });
    out.meta.tool = "azure-llm-inference-trace";
    out.meta.started_at = std::move(info.started_at);
    out.meta.workload = azure_workload(out.meta.label);
    out.meta.notes = {std::string(replay_note),
                      "t_sched = TIMESTAMP - the first TIMESTAMP, exact to its 100 ns digits; TIMESTAMP has no "
                      "time zone, so started_at is the first arrival as written",
                      "prompt_tokens = ContextTokens, output_tokens = GeneratedTokens"};
    std::vector<run> runs;
    runs.push_back(std::move(out));
    return runs;
}

// "conversation_trace" → "conversation".
inline std::string mooncake_workload(const std::string& stem) {
    constexpr std::string_view suffix = "_trace";
    return stem.ends_with(suffix) ? stem.substr(0, stem.size() - suffix.size()) : std::string();
}

inline std::vector<run> read_mooncake_trace(const std::filesystem::path& file, const read_options& options) {
    run out = arrival_run(file, mooncake_trace_name);
    trace_info info;
    request_record r;
    parse_mooncake_trace(file, options, out.skipped, info, [&](const arrival& a) { push_arrival(out, r, a); });
    out.meta.tool = "mooncake";
    out.meta.workload = mooncake_workload(out.meta.label);
    out.meta.notes = {std::string(replay_note),
                      "t_sched = (timestamp - the first timestamp) / 1000: the file counts milliseconds from the "
                      "trace start, with no wall-clock date",
                      "prompt_tokens = input_length, output_tokens = output_length; hash_ids (prefix-cache block "
                      "ids, 512 tokens a block) are not used"};
    std::vector<run> runs;
    runs.push_back(std::move(out));
    return runs;
}

// ---- sniffing ----

inline int sniff_azure_trace(std::string_view head) {
    const std::vector<std::string> header = sniff_csv_header(head);
    for (const std::string_view column : {"TIMESTAMP", "ContextTokens", "GeneratedTokens"})
        if (!find_column(header, column)) return 0;
    return 100;
}

// The first line is an object with a numeric timestamp and the two lengths; hash_ids makes it sure.
inline int sniff_mooncake_trace(std::string_view head) {
    if (first_json_char(head) != '{') return 0;
    const std::size_t start = head.find('{');
    // A line cut off by the end of the head does not parse, so it is not taken for a trace line.
    const std::string_view line = head.substr(start, head.find('\n', start) - start);
    const nlohmann::json first = nlohmann::json::parse(line, nullptr, false);
    if (!first.is_object()) return 0;
    const auto* timestamp = json_member(first, "timestamp");
    const auto* input = json_member(first, "input_length");
    const auto* output = json_member(first, "output_length");
    if (!timestamp || !timestamp->is_number() || !input || !input->is_number() || !output || !output->is_number())
        return 0;
    return json_member(first, "hash_ids") ? 100 : 80;
}

inline std::string read_trace_head(const std::filesystem::path& file) {
    return read_input_head(file, std::size_t{64} << 10);
}

} // namespace detail

inline constexpr log_format azure_trace_format{
    detail::azure_trace_name,
    "Azure LLM inference arrival trace (CSV: TIMESTAMP, ContextTokens, GeneratedTokens); a workload, no latencies",
    &detail::sniff_azure_trace, &detail::read_azure_trace};

inline constexpr log_format mooncake_trace_format{
    detail::mooncake_trace_name,
    "Mooncake arrival trace (JSON Lines: timestamp ms, input_length, output_length, hash_ids); a workload, "
    "no latencies",
    &detail::sniff_mooncake_trace, &detail::read_mooncake_trace};

// The arrivals of an Azure or Mooncake trace, told apart by content, for the load driver. Bad input
// throws input_error as the readers do.
inline std::vector<arrival> read_arrivals(const std::filesystem::path& file) {
    const std::string head = detail::read_trace_head(file);
    std::vector<arrival> out;
    skipped_lines skipped;
    detail::trace_info info;
    auto keep = [&](const arrival& a) { out.push_back(a); };
    if (detail::sniff_azure_trace(head) > 0) detail::parse_azure_trace(file, {}, skipped, info, keep);
    else if (detail::sniff_mooncake_trace(head) > 0) detail::parse_mooncake_trace(file, {}, skipped, info, keep);
    else
        throw input_error(file.string(), 0, "",
                          "not an arrival trace (expected Azure's CSV with TIMESTAMP,ContextTokens,GeneratedTokens "
                          "or Mooncake's JSON Lines with timestamp, input_length, output_length)");
    return out;
}

} // namespace servestat
