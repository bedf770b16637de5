// Reader for aggregate tables people write by hand or with their own scripts (format
// "aggregate-table"): a CSV with one row per run whose columns name statistics of many requests
// (`ttft_p50_ms`, `mean_tpot_ms`, `latency_p95_ms`, `P99 E2EL (ms)`, `avg_latency_s`), throughputs
// (`qps`, `out_tok_s`, `Output Throughput (tok/s)`) and the run's settings (`concurrency`, `tag`,
// `model`). Each row becomes a summary run: the settings are its parameters, the numbers its reported
// values, converted to seconds. Unlike sweep-csv (sweep_csv.hpp, a fixed set of names) the names
// are read by their words (statistic_column.hpp), and a column nothing maps is kept as
// `table.<column>` and named in a note, never dropped.
#pragma once

#include <algorithm>   // std::sort, std::all_of
#include <charconv>    // std::from_chars
#include <cmath>       // std::isnan, std::isfinite, std::floor
#include <cstddef>     // std::size_t
#include <filesystem>  // std::filesystem::path
#include <optional>    // std::optional
#include <string>      // std::string
#include <set>         // std::set
#include <string_view> // std::string_view
#include <system_error> // std::errc, std::error_code
#include <utility>     // std::move
#include <vector>      // std::vector

#include <fmt/format.h>      // fmt::format
#include <nlohmann/json.hpp> // nlohmann::json

#include "servestat/core/errors.hpp"              // input_error, not_a_run_error
#include "servestat/core/run.hpp"                 // run, reported_value
#include "servestat/core/text.hpp"                // trim_spaces, equals_ignoring_case
#include "servestat/ingest/csv.hpp"               // csv_reader, csv_row, for_each_csv_row, sniff_csv_header
#include "servestat/ingest/json_document.hpp"     // param_number, first_json_char
#include "servestat/ingest/nothing_left.hpp"      // throw_nothing_left
#include "servestat/ingest/reader.hpp"            // log_format, read_options
#include "servestat/ingest/statistic_column.hpp"  // parse_statistic_column, column_words, column_word_set

namespace servestat {
namespace detail {

inline constexpr std::string_view aggregate_table_name = "aggregate-table";

// What a column of an aggregate table is, from its name (and, for the unnamed kinds, its cells).
enum class table_role { statistic, rate, count, duration, setting, text, name, status, model, workload, unmapped };

struct table_column {
    std::size_t index = 0;
    std::string header;
    table_role role = table_role::unmapped;
    std::string name;  // the reported value's or the parameter's name
    std::string unit;  // of the reported value
    double scale = 1;  // the table's unit → servestat's (ms → s: 1e-3)
    bool integer = false; // a count: whole numbers only
    std::optional<statistic_column> statistic;
};

// `Request Rate` → request_rate; the names of the load every sweep reads are fixed.
inline std::string table_param_name(const column_word_set& w) {
    if (w.any({"concurrency", "conc", "concurrent"}) && !w.has("max")) return "concurrency";
    if (w.has("rate") && w.words.size() <= 2 && (w.words.size() == 1 || w.any({"request", "req", "requests"})))
        return "request_rate";
    std::string name;
    for (const auto& word : w.words) name.append(name.empty() ? "" : "_").append(word);
    return name;
}

// A throughput of the whole run: requests or tokens per second.
inline std::optional<std::pair<std::string, std::string>> table_rate(const column_word_set& w) {
    if (w.any({"user", "gpu", "ms", "min", "input", "prompt", "in", "prefill"})) return std::nullopt;
    const bool per_second = w.any({"throughput", "tput", "tps", "s", "sec", "second", "per"});
    if (w.any({"qps", "rps"}) && w.words.size() <= 2) return std::pair{std::string("rps"), std::string("req/s")};
    if (w.any({"request", "requests", "req"}) && per_second && !w.has("rate"))
        return std::pair{std::string("rps"), std::string("req/s")};
    const bool tokens = w.any({"tok", "tokens", "token", "toks", "tps"});
    if (w.has("total") && (tokens || w.has("throughput")) && per_second)
        return std::pair{std::string("total_tps"), std::string("tok/s")};
    // vLLM's output_throughput is output tokens per second; so is out_tok_s.
    if (w.any({"output", "out", "gen", "generation", "generated", "decode", "completion"}) && (tokens || w.has("throughput")) &&
        per_second)
        return std::pair{std::string("output_tps"), std::string("tok/s")};
    return std::nullopt;
}

// A count of the run's requests: ok, failed or all of them.
inline std::optional<std::string> table_count(const column_word_set& w) {
    if (w.any({"rate", "pct", "percent", "ratio", "tokens", "token", "s", "per"})) return std::nullopt;
    if (w.any({"completed", "successful", "succeeded", "ok"}) || (w.has("success") && w.has("requests"))) return "ok";
    if (w.any({"failed", "fail", "failures", "errors"}) || (w.has("error") && w.any({"count", "requests"}))) return "failed";
    if (w.words == std::vector<std::string>{"requests"} || (w.has("requests") && w.any({"num", "total", "n"})))
        return "requests";
    return std::nullopt;
}

inline bool table_duration(const column_word_set& w) {
    return w.any({"duration", "elapsed"}) || (w.has("wall") && w.has("time"));
}

// A number that sets up the run rather than measures it (concurrency, isl, tp, num_prompts).
inline bool table_setting(const column_word_set& w) {
    if (w.any({"success", "error", "fail", "hit", "utilization", "util", "memory", "mem", "power"})) return false;
    if (w.any({"min", "max"}) && w.any({"tokens", "token"})) return true; // max_tokens
    return w.any({"concurrency", "conc", "concurrent", "rate", "isl", "osl", "tp", "dp", "ep", "pp", "batch", "seqs",
                  "prompts", "runs", "rounds", "replicas", "gpus", "len", "length", "parallel", "users", "clients",
                  "workers", "scale", "nodes", "seed", "bs"});
}

inline table_column classify_by_name(std::size_t index, const std::string& header) {
    table_column c;
    c.index = index;
    c.header = header;
    const column_word_set w{column_words(header)};
    if (auto s = parse_statistic_column(header)) {
        c.role = table_role::statistic;
        c.name = s->metric + "." + s->stat;
        c.unit = s->tokens ? "tokens" : "s";
        c.scale = s->seconds_per_unit.value_or(1.0);
        c.statistic = std::move(s);
        return c;
    }
    if (auto rate = table_rate(w)) {
        c.role = table_role::rate;
        c.name = rate->first;
        c.unit = rate->second;
        return c;
    }
    if (auto count = table_count(w)) {
        c.role = table_role::count;
        c.name = *count;
        c.unit = "requests";
        c.integer = true;
        return c;
    }
    if (table_duration(w)) {
        c.role = table_role::duration;
        c.name = "duration";
        c.unit = "s";
        c.scale = seconds_per_named_unit(w).value_or(1.0);
        return c;
    }
    if (w.words.size() == 1 && w.any({"model", "model_name"})) c.role = table_role::model;
    else if (w.words == std::vector<std::string>{"model", "name"} || w.words == std::vector<std::string>{"model", "id"})
        c.role = table_role::model;
    else if (w.words.size() == 1 && w.any({"workload", "dataset", "scenario"})) c.role = table_role::workload;
    else if (table_setting(w)) c.role = table_role::setting;
    c.name = table_param_name(w);
    return c;
}

// A cell as a number: nullopt for an empty cell or pandas' NaN; `ok` false when it is not a number.
inline std::optional<double> table_number(std::string_view cell, bool& ok) {
    ok = true;
    cell = trim_spaces(cell);
    if (cell.empty() || equals_ignoring_case(cell, "nan")) return std::nullopt;
    if (cell.front() == '+') cell.remove_prefix(1);
    double value = 0;
    const auto [end, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), value);
    ok = ec == std::errc() && end == cell.data() + cell.size();
    if (!ok) return std::nullopt;
    return value;
}

struct table_rows {
    std::vector<std::string> header;
    std::vector<std::pair<std::size_t, std::vector<std::string>>> rows; // line, cells
};

// A column no name rule claimed: text (a setting such as a tag or a flag) if any of its cells is
// not a number, else a measurement nothing maps (kept as table.<column>) unless its name is a setting's.
inline void classify_by_cells(table_column& c, const table_rows& t) {
    if (c.role == table_role::model || c.role == table_role::workload) return;
    bool numeric = true;
    for (const auto& [line, cells] : t.rows) {
        bool ok = true;
        table_number(cells[c.index], ok);
        numeric = numeric && ok;
    }
    if (!numeric) {
        // A text column whose every row differs names the runs (exp_name): their label, no setting
        // (as a parameter it would make every row a configuration of its own).
        std::set<std::string> values;
        for (const auto& [line, cells] : t.rows) values.insert(std::string(trim_spaces(cells[c.index])));
        c.role = t.rows.size() > 1 && values.size() == t.rows.size() ? table_role::name : table_role::text;
        if (c.name == "status") c.role = table_role::status;
    } else if (c.role != table_role::setting) {
        c.role = table_role::unmapped;
        c.name = "table." + c.header;
    }
}

// A latency statistic whose name gives no unit takes the unit every named one shares; failing
// that, its size decides (a request's latency is rarely over 100 s, a token's gap over 1 s).
inline std::vector<std::string> settle_time_units(std::vector<table_column>& columns, const table_rows& t) {
    std::optional<double> shared;
    bool agree = true;
    for (const auto& c : columns)
        if (c.statistic && !c.statistic->tokens && c.statistic->seconds_per_unit) {
            if (shared && *shared != *c.statistic->seconds_per_unit) agree = false;
            shared = c.statistic->seconds_per_unit;
        }
    std::vector<std::string> notes;
    for (auto& c : columns) {
        if (!c.statistic || c.statistic->tokens || c.statistic->seconds_per_unit) continue;
        if (shared && agree) {
            c.scale = *shared;
            notes.push_back(fmt::format("{} names no unit: taken in {}, the unit of the table's other latency columns.",
                                        c.header, *shared == 1e-3 ? "ms" : *shared == 1 ? "s" : *shared == 1e-6 ? "us" : "ns"));
            continue;
        }
        std::vector<double> values;
        for (const auto& [line, cells] : t.rows) {
            bool ok = true;
            if (const auto v = table_number(cells[c.index], ok)) values.push_back(*v);
        }
        std::sort(values.begin(), values.end());
        const double median = values.empty() ? 0 : values[values.size() / 2];
        const bool per_token = c.statistic->metric == "tpot" || c.statistic->metric == "itl";
        c.scale = median < (per_token ? 1.0 : 100.0) ? 1.0 : 1e-3;
        notes.push_back(fmt::format("{} names no unit: guessed {} from its values (median {}); check it.", c.header,
                                    c.scale == 1.0 ? "s" : "ms", shortest_number(median)));
    }
    return notes;
}

inline std::vector<table_column> classify_table_columns(const table_rows& t, std::vector<std::string>& notes) {
    std::vector<table_column> columns;
    for (std::size_t i = 0; i < t.header.size(); ++i) {
        columns.push_back(classify_by_name(i, t.header[i]));
        auto& c = columns.back();
        if (c.role == table_role::setting || c.role == table_role::unmapped || c.role == table_role::model ||
            c.role == table_role::workload)
            classify_by_cells(c, t);
    }
    notes = settle_time_units(columns, t);
    std::string unmapped;
    for (const auto& c : columns)
        if (c.role == table_role::unmapped) unmapped.append(unmapped.empty() ? "" : ", ").append(c.header);
    if (!unmapped.empty())
        notes.push_back("Columns servestat has no metric for, kept as reported table.<column> in the table's unit: " +
                        unmapped + ".");
    return columns;
}

// A measured value of a row: finite, >= 0, whole for counts; nullopt when the cell is empty.
inline std::optional<double> table_value(const csv_row& row, const table_column& c) {
    const auto v = row.number(c.index);
    if (!v || std::isnan(*v)) return std::nullopt;
    if (c.role == table_role::unmapped) {
        if (!std::isfinite(*v)) row.fail(c.index, "not a finite number: " + quote_cell(row.cell(c.index)));
        return *v; // as written: a signed difference may be negative
    }
    if (!std::isfinite(*v) || *v < 0) row.fail(c.index, "must be a finite number >= 0, got " + quote_cell(row.cell(c.index)));
    if (c.integer && *v != std::floor(*v)) row.fail(c.index, "not a whole number: " + quote_cell(row.cell(c.index)));
    return *v * c.scale;
}

inline std::string table_row_label(const run_metadata& meta, const csv_row& row, const std::vector<table_column>& columns,
                                   const std::string& stem) {
    std::string label;
    for (const auto& c : columns)
        if (c.role == table_role::name) {
            label = std::string(trim_spaces(row.cell(c.index)));
            if (!label.empty()) return label; // names the run whole
        }
    for (const auto& c : columns)
        if (c.role == table_role::text && meta.params.contains(c.name)) {
            label = meta.params[c.name].get<std::string>();
            break;
        }
    if (label.empty()) label = stem;
    for (const std::string_view load : {"concurrency", "max_concurrency", "request_rate"})
        if (meta.params.contains(load)) // a cell may not be UTF-8 yet: the reader entry makes it valid later
            label += fmt::format(" {}={}", load,
                                 meta.params[std::string(load)].dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    return label;
}

inline run read_table_row(const csv_row& row, const std::vector<table_column>& columns,
                          const std::vector<std::string>& notes, const std::filesystem::path& file) {
    run out;
    out.meta.kind = run_kind::summary;
    out.meta.source = {file.string(), std::string(aggregate_table_name), {}, row.line()};
    out.meta.shared_clock = false;
    out.meta.notes.emplace_back("one row of an aggregate table written by its author: the numbers are the "
                                "table's, as written (nothing here can be recomputed)");
    for (const auto& c : columns) {
        const std::string_view cell = trim_spaces(row.cell(c.index));
        switch (c.role) {
        case table_role::model: out.meta.model = std::string(cell); break;
        case table_role::workload: out.meta.workload = std::string(cell); break;
        case table_role::text:
            if (!cell.empty()) out.meta.params[c.name] = std::string(cell);
            break;
        case table_role::name: break; // the label
        case table_role::status:
            if (!cell.empty() && !equals_ignoring_case(cell, "ok") && !equals_ignoring_case(cell, "success") &&
                !equals_ignoring_case(cell, "succeeded"))
                out.meta.notes.push_back("the table marks this run " + std::string(cell) + ": it did not complete");
            break;
        case table_role::setting:
            if (const auto v = row.number(c.index); v && !std::isnan(*v)) out.meta.params[c.name] = param_number(*v);
            break;
        default:
            if (const auto v = table_value(row, c)) out.meta.reported.push_back({c.name, *v, c.unit});
        }
    }
    out.meta.label = table_row_label(out.meta, row, columns, file.stem().string());
    out.meta.notes.insert(out.meta.notes.end(), notes.begin(), notes.end());
    return out;
}

// Whether the table lists runs whose own files lie beside it (InferenceX's
// agentic_aggregated/summary.csv next to bmk_agentic_<exp_name>/): then it is derived from them, and
// reading both would count every run twice. Its rows' names are looked for among the names of the
// files and folders of the table's folder and the one above, two levels deep.
inline bool table_derived_from_runs_beside(const std::filesystem::path& file, const table_rows& t,
                                           const std::vector<table_column>& columns) {
    const table_column* name = nullptr;
    for (const auto& c : columns)
        if (c.role == table_role::name) name = &c;
    if (!name) return false;
    std::vector<std::string> entries;
    const auto list = [&](const std::filesystem::path& dir, int depth, auto&& self) -> void {
        std::error_code ec;
        for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
            if (it->path() == file) continue;
            entries.push_back(it->path().filename().string()); // a folder's whole name: kimik2.5 has a dot
            if (depth > 1 && it->is_directory(ec)) self(it->path(), depth - 1, self);
            if (entries.size() > 10000) return;
        }
    };
    const auto dir = file.parent_path();
    list(dir.parent_path().empty() ? dir : dir.parent_path(), 2, list);
    std::size_t found = 0;
    for (const auto& [line, cells] : t.rows) {
        const std::string value(trim_spaces(cells[name->index]));
        if (value.size() < 8) continue; // too short to tell a run
        for (const auto& e : entries)
            if (e.find(value) != std::string::npos) {
                ++found;
                break;
            }
    }
    return 2 * found > t.rows.size();
}

inline std::vector<run> read_aggregate_table(const std::filesystem::path& file, const read_options& options) {
    csv_reader csv(file, options.max_line_bytes);
    csv.read_header();
    table_rows t{csv.header(), {}};
    skipped_lines skipped;
    const std::size_t rows = for_each_csv_row(csv, options, skipped, [&](const csv_row& row) {
        std::vector<std::string> cells;
        for (std::size_t i = 0; i < t.header.size(); ++i) cells.emplace_back(row.cell(i));
        t.rows.emplace_back(row.line(), std::move(cells));
    });
    if (rows == 0) throw input_error(csv.name(), csv.header_line(), "", "no rows after the header");
    std::vector<std::string> notes;
    const auto columns = classify_table_columns(t, notes);
    if (table_derived_from_runs_beside(file, t, columns))
        throw not_a_run_error(csv.name(), 0, "",
                              "a table of runs whose own files lie beside it (derived from them; they are read instead)");
    std::vector<run> runs;
    for (const auto& [line, cells] : t.rows) {
        csv_record record{cells, line};
        try {
            runs.push_back(read_table_row(csv_row(csv.name(), record, t.header), columns, notes, file));
        } catch (const input_error& e) {
            if (!options.skip_bad) throw;
            skipped.add(e.what());
        }
    }
    if (runs.empty()) throw_nothing_left(csv.name(), skipped); // every row was bad
    runs.front().skipped = skipped;
    return runs;
}

// A CSV header with a column naming a latency or token statistic (metric, statistic, unit): one
// row per run. Per-request logs name a request's own values (ttft_ms, latency_s), never a p50 of
// them; AIPerf's and GenAI-Perf's exports (Metric,avg,...) name statistics alone and are theirs.
// Below sweep-csv, whose fixed names it reads first.
inline int sniff_aggregate_table(std::string_view head) {
    if (const char c = first_json_char(head); c == '{' || c == '[') return 0; // a JSON document, not a table
    const std::vector<std::string> header = sniff_csv_header(head);
    if (header.size() < 2 || equals_ignoring_case(trim_spaces(header.front()), "metric")) return 0;
    for (const auto& name : header) {
        const column_word_set w{column_words(name)};
        if (w.any({"id", "uuid"}) || (w.has("request") && w.has("id"))) return 0; // one request per row
    }
    for (const auto& name : header)
        if (parse_statistic_column(name)) return 60;
    return 0;
}

} // namespace detail

inline constexpr log_format aggregate_table_format{
    detail::aggregate_table_name,
    "an aggregate table an author wrote: one row per run, columns naming statistics (ttft_p50_ms, mean_itl_ms, qps)",
    &detail::sniff_aggregate_table, &detail::read_aggregate_table};

} // namespace servestat
