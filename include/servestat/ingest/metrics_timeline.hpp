// The server's /metrics sampled during a run (`servestat load --scrape-interval S`): the file
// X.metrics-timeline.jsonl beside the log X.jsonl, one JSON line per scrape (log-format.md#the-metrics-timeline).
// The driver writes a line as each scrape ends (load/metrics_sampler.hpp), so a killed run keeps the
// samples so far; every command that reads the log picks the file up as it does the
// .metrics-before/after.prom scrapes, and the run carries it as run_metadata::server_timeline.
// `--power-url URL` writes another Prometheus endpoint's samples (the GPUs' power, from NVIDIA's DCGM
// exporter) in the same format into X.power-timeline.jsonl, carried as run_metadata::power_timeline.
//
// Each line holds every counter and gauge of that scrape by name, summed over its label sets as
// prometheus_text.hpp sums them (a histogram contributes its _sum and _count); a failed scrape is a
// line with its error: a gap, never a crash. Times are the run's clock (0 = the log's t = 0).
#pragma once

#include <algorithm>   // std::max
#include <cmath>       // std::isfinite, std::round
#include <cstddef>     // std::size_t
#include <cstdint>     // std::int64_t
#include <filesystem>  // std::filesystem::path
#include <functional>  // std::less
#include <limits>      // std::numeric_limits
#include <map>         // std::map
#include <memory>      // std::make_shared
#include <optional>    // std::optional
#include <string>      // std::string
#include <string_view> // std::string_view
#include <vector>      // std::vector

#include <fmt/format.h>      // fmt::format
#include <nlohmann/json.hpp> // nlohmann::json, nlohmann::ordered_json

#include "servestat/core/errors.hpp"            // input_error
#include "servestat/core/run.hpp"               // run_metadata
#include "servestat/ingest/input_file.hpp"      // read_whole_file
#include "servestat/ingest/json_document.hpp"   // parse_json_text
#include "servestat/ingest/prometheus_text.hpp" // prometheus_scrape, prometheus_type

namespace servestat {

inline constexpr std::string_view metrics_timeline_tag = "metrics-timeline";
inline constexpr int metrics_timeline_version = 1;

// A whole timeline file, by column: the successful scrapes' times and each name's values at them.
struct server_timeline {
    std::string file; // the path as read, for messages
    std::string url;  // the /metrics URL scraped
    double interval = 0; // seconds between scrapes, as asked
    std::vector<double> t; // each successful scrape: seconds since the run's start (the scrape's midpoint)
    std::vector<std::string> names; // every name any scrape had, sorted
    std::vector<std::vector<double>> values; // values[k][i]: names[k] at t[i]; NaN where that scrape lacked it
    std::map<std::string, std::string, std::less<>> types; // name → counter, gauge, histogram, summary, untyped
    // Names that had more than one label set in some scrape: how many, per scrape (1 where one or none).
    std::map<std::string, std::vector<double>, std::less<>> label_sets;
    std::vector<double> failed_at; // the failed scrapes' times: gaps
    std::string first_failure;     // the first failed scrape's error

    std::size_t scrapes() const { return t.size(); }

    const std::vector<double>* find(std::string_view name) const {
        const auto it = std::lower_bound(names.begin(), names.end(), name);
        return it != names.end() && *it == name ? &values[static_cast<std::size_t>(it - names.begin())] : nullptr;
    }

    // A gauge's mean over its label sets (a fraction such as KV-cache usage, per engine of a
    // data-parallel server: their sum would pass 1); the value itself where it had one set.
    std::optional<std::vector<double>> mean_over_label_sets(std::string_view name) const {
        const auto* v = find(name);
        if (!v) return std::nullopt;
        auto out = *v;
        if (const auto it = label_sets.find(name); it != label_sets.end())
            for (std::size_t i = 0; i < out.size(); ++i) out[i] /= std::max(1.0, it->second[i]);
        return out;
    }
};

namespace detail {

// Where `servestat load --scrape-interval` writes the timeline of the log `log` (the log's
// extension replaced, as for the .metrics-before/after.prom files).
inline std::filesystem::path metrics_timeline_file(std::filesystem::path log) {
    return log.replace_extension(".metrics-timeline.jsonl");
}

// Where `servestat load --power-url` writes the power endpoint's timeline of the log `log`.
inline std::filesystem::path power_timeline_file(std::filesystem::path log) {
    return log.replace_extension(".power-timeline.jsonl");
}

// The file's first line. No key may be "log" or "summary": the file must not sniff as a servestat
// log or summary when its folder is read.
inline std::string metrics_timeline_header(const std::string& url, double interval, double timeout) {
    nlohmann::ordered_json h;
    h["servestat"] = metrics_timeline_tag;
    h["version"] = metrics_timeline_version;
    h["url"] = url;
    h["interval"] = interval;
    h["timeout"] = timeout;
    return h.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace).append("\n");
}

// A number as the file holds it: JSON has no NaN or infinity (a gauge may be either), so null.
inline nlohmann::ordered_json timeline_number(double v) {
    return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json(nullptr);
}

inline const char* prometheus_type_name(prometheus_type t) {
    switch (t) {
    case prometheus_type::counter: return "counter";
    case prometheus_type::gauge: return "gauge";
    case prometheus_type::histogram: return "histogram";
    case prometheus_type::summary: return "summary";
    case prometheus_type::untyped: return "untyped";
    }
    return "untyped";
}

// What a scrape contributes: every sample but histogram buckets and a counter's _created time.
inline bool kept_in_timeline(std::string_view name) { return !name.ends_with("_created"); }

// Seconds to the microsecond: the clock's jitter on a loaded machine is larger (log_writer.hpp's rule).
inline double to_microseconds(double seconds) { return std::round(seconds * 1e6) / 1e6; }

// One successful scrape's line. `known_types` holds the names whose type an earlier line gave: a
// type is written once, on the line where its name first appears.
inline std::string metrics_timeline_sample_line(double t, double took, const prometheus_scrape& s,
                                                std::map<std::string, std::string, std::less<>>& known_types) {
    nlohmann::ordered_json line;
    line["t"] = to_microseconds(t);
    line["took"] = to_microseconds(took);
    nlohmann::ordered_json values = nlohmann::ordered_json::object(), types = nlohmann::ordered_json::object(),
                           sets = nlohmann::ordered_json::object();
    for (const auto& [name, v] : s.samples) {
        if (!kept_in_timeline(name)) continue;
        values[name] = timeline_number(v);
        if (!known_types.contains(name)) {
            const char* type = prometheus_type_name(s.type_of(name));
            known_types.emplace(name, type);
            types[name] = type;
        }
        if (const auto it = s.label_sets.find(name); it != s.label_sets.end() && it->second > 1) sets[name] = it->second;
    }
    line["values"] = std::move(values);
    if (!types.empty()) line["types"] = std::move(types);
    if (!sets.empty()) line["sets"] = std::move(sets);
    return line.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace).append("\n");
}

// A failed scrape's line: a gap in the series.
inline std::string metrics_timeline_failure_line(double t, double took, const std::string& error) {
    nlohmann::ordered_json line;
    line["t"] = to_microseconds(t);
    line["took"] = to_microseconds(took);
    line["error"] = error;
    return line.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace).append("\n");
}

class timeline_reader {
public:
    explicit timeline_reader(std::string file) { out_.file = std::move(file); }

    void header(const nlohmann::json& h, std::size_t line) {
        if (!h.is_object() || h.find("servestat") == h.end() || h["servestat"] != metrics_timeline_tag)
            throw input_error(out_.file, line, "servestat",
                              R"(first line is not a metrics timeline header (expected {"servestat":"metrics-timeline",...}))");
        const auto version = h.find("version");
        if (version == h.end() || !version->is_number_integer())
            throw input_error(out_.file, line, "version", "missing or not an integer");
        if (version->get<std::int64_t>() != metrics_timeline_version)
            throw input_error(out_.file, line, "version",
                              "unsupported version " + version->dump() + " (this servestat reads 1)");
        if (const auto url = h.find("url"); url != h.end() && !url->is_null()) {
            if (!url->is_string()) throw input_error(out_.file, line, "url", "must be a string");
            out_.url = url->get<std::string>();
        }
        if (const auto interval = h.find("interval"); interval != h.end() && !interval->is_null()) {
            if (!interval->is_number() || !(interval->get<double>() > 0) || !std::isfinite(interval->get<double>()))
                throw input_error(out_.file, line, "interval", "must be a number of seconds > 0");
            out_.interval = interval->get<double>();
        }
    }

    void sample(const nlohmann::json& j, std::size_t line) {
        if (!j.is_object()) throw input_error(out_.file, line, "", "a scrape line must be a JSON object");
        const double t = seconds(j, "t", line, true).value();
        if (!out_.t.empty() || !out_.failed_at.empty())
            if (t < last_t_)
                throw input_error(out_.file, line, "t",
                                  fmt::format("goes back in time: {} after {} (scrapes are written in order)", t, last_t_));
        last_t_ = t;
        seconds(j, "took", line, false);
        const auto error = j.find("error");
        const auto values = j.find("values");
        if (error != j.end() && !error->is_null()) {
            if (!error->is_string()) throw input_error(out_.file, line, "error", "must be a string");
            if (values != j.end() && !values->is_null())
                throw input_error(out_.file, line, "values", "a failed scrape (with an error) has no values");
            if (out_.failed_at.empty()) out_.first_failure = error->get<std::string>();
            out_.failed_at.push_back(t);
            return;
        }
        if (values == j.end() || !values->is_object())
            throw input_error(out_.file, line, "values", "missing or not an object (a failed scrape has an error instead)");
        const std::size_t k = out_.t.size();
        out_.t.push_back(t);
        for (const auto& [name, v] : values->items()) {
            if (!v.is_null() && !v.is_number())
                throw input_error(out_.file, line, "values." + name, "must be a number or null");
            auto& column = columns_[name];
            column.resize(k, nan);
            column.push_back(v.is_null() ? nan : v.get<double>());
        }
        if (const auto types = j.find("types"); types != j.end() && !types->is_null()) {
            if (!types->is_object()) throw input_error(out_.file, line, "types", "must be an object");
            for (const auto& [name, type] : types->items()) {
                if (!type.is_string() || !is_type_name(type.get<std::string>()))
                    throw input_error(out_.file, line, "types." + name,
                                      "must be counter, gauge, histogram, summary or untyped");
                out_.types[name] = type.get<std::string>();
            }
        }
        if (const auto sets = j.find("sets"); sets != j.end() && !sets->is_null()) {
            if (!sets->is_object()) throw input_error(out_.file, line, "sets", "must be an object");
            for (const auto& [name, n] : sets->items()) {
                if (!n.is_number_integer() || n.get<std::int64_t>() < 1)
                    throw input_error(out_.file, line, "sets." + name, "must be an integer >= 1");
                auto& column = sets_[name];
                column.resize(k, 1.0);
                column.push_back(static_cast<double>(n.get<std::int64_t>()));
            }
        }
    }

    server_timeline finish() && {
        const std::size_t n = out_.t.size();
        for (auto& [name, column] : columns_) {
            column.resize(n, nan);
            out_.names.push_back(name);
            out_.values.push_back(std::move(column));
        }
        for (auto& [name, column] : sets_) {
            column.resize(n, 1.0);
            out_.label_sets.emplace(name, std::move(column));
        }
        return std::move(out_);
    }

private:
    static constexpr double nan = std::numeric_limits<double>::quiet_NaN();

    static bool is_type_name(std::string_view s) {
        return s == "counter" || s == "gauge" || s == "histogram" || s == "summary" || s == "untyped";
    }

    std::optional<double> seconds(const nlohmann::json& j, const char* key, std::size_t line, bool required) const {
        const auto it = j.find(key);
        if (it == j.end() || it->is_null()) {
            if (required) throw input_error(out_.file, line, key, "missing (seconds since the run's start)");
            return std::nullopt;
        }
        if (!it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() < 0)
            throw input_error(out_.file, line, key, "must be a number of seconds >= 0");
        return it->get<double>();
    }

    server_timeline out_;
    std::map<std::string, std::vector<double>> columns_; // sorted: names come out sorted
    std::map<std::string, std::vector<double>> sets_;
    double last_t_ = 0;
};

} // namespace detail

// Parses a whole timeline; `file` names it in errors. Blank lines are skipped; \r\n is accepted.
inline server_timeline parse_metrics_timeline(std::string_view text, const std::string& file) {
    detail::timeline_reader reader(file);
    std::size_t line = 0;
    bool header = true;
    while (!text.empty()) {
        const std::size_t nl = text.find('\n');
        std::string_view current = text.substr(0, nl);
        text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
        ++line;
        if (current.ends_with('\r')) current.remove_suffix(1);
        if (current.find_first_not_of(" \t") == std::string_view::npos) continue;
        const nlohmann::json j = detail::parse_json_text(current, {file, line});
        if (header) reader.header(j, line);
        else reader.sample(j, line);
        header = false;
    }
    if (header) throw input_error(file, 0, "", "empty file: no metrics timeline header");
    return std::move(reader).finish();
}

inline server_timeline read_metrics_timeline(const std::filesystem::path& file) {
    return parse_metrics_timeline(detail::read_whole_file(file, "{"), file.string());
}

namespace detail {

// `sampled`: what the file holds samples of, as the note names it.
inline std::string metrics_timeline_note(const std::filesystem::path& file, const server_timeline& s,
                                         std::string_view sampled) {
    std::string note = fmt::format("{}: {} sampled {} time{}", file.filename().string(), sampled, s.scrapes(),
                                   s.scrapes() == 1 ? "" : "s");
    if (s.interval > 0) note += fmt::format(" every {:g} s", s.interval);
    if (!s.t.empty()) note += fmt::format(" from t = {:.2f} s to {:.2f} s", s.t.front(), s.t.back());
    note += fmt::format(" ({} series by name, each summed over its label sets)", s.names.size());
    if (!s.failed_at.empty())
        note += fmt::format("; {} failed and {} (first: {})",
                            s.failed_at.size() == 1 ? "1 scrape" : fmt::format("{} scrapes", s.failed_at.size()),
                            s.failed_at.size() == 1 ? "is a gap" : "are gaps", s.first_failure);
    return note;
}

// What a timeline holds samples of, as its note names it.
inline std::string server_metrics_sampled(const server_timeline&) { return "the server's /metrics"; }
inline std::string power_sampled(const server_timeline& s) {
    return s.url.empty() ? "the power endpoint" : "the power endpoint " + s.url;
}

// The timeline `file` when there is one, with its note on the run and the file merged into it (so a
// folder's reading neither takes it for a log nor lists it as passed over); null when there is none.
// A malformed file is an input_error naming it, line and field: it is read as strictly as the log.
inline std::shared_ptr<const server_timeline> timeline_beside(run_metadata& meta, const std::filesystem::path& file,
                                                              std::string (*sampled)(const server_timeline&)) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file, ec)) return nullptr;
    auto timeline = std::make_shared<server_timeline>(read_metrics_timeline(file));
    meta.notes.push_back(metrics_timeline_note(file, *timeline, sampled(*timeline)));
    meta.source.merged.push_back(file.string());
    return timeline;
}

// Reads the timelines beside the log `log` into `meta`, where there are: the server's /metrics
// (--scrape-interval) and the power endpoint's (--power-url).
inline void add_metrics_timeline(run_metadata& meta, const std::filesystem::path& log) {
    if (auto timeline = timeline_beside(meta, metrics_timeline_file(log), server_metrics_sampled))
        meta.server_timeline = std::move(timeline);
    if (auto timeline = timeline_beside(meta, power_timeline_file(log), power_sampled))
        meta.power_timeline = std::move(timeline);
}

} // namespace detail
} // namespace servestat
