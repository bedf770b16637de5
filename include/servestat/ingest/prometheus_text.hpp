// Prometheus text exposition (format 0.0.4), as a server's /metrics serves it, and the server-side
// values `servestat load --scrape-metrics` makes possible: the scrapes before and after a run
// (X.metrics-before.prom, X.metrics-after.prom beside the log X.jsonl) differ by exactly what the
// server did during the run, so vLLM's queue, prefill and decode histograms of that run can be shown
// next to servestat's own statistics.
//
// Series are summed over their label sets (apart from a histogram's `le`), as PromQL's
// `sum by (le)` would: several models or finished_reason values add up. A summary's
// quantile-labelled samples are left out (a sum of quantiles means nothing). A counter that went down
// between the scrapes means the server restarted: the after scrape alone is used, and said so, rather
// than failing a log whose requests are fine. A malformed line is an input_error (file, line, field).
#pragma once

#include <algorithm>   // std::sort, std::find_if, std::max
#include <array>       // std::array
#include <charconv>    // std::from_chars
#include <cmath>       // std::isnan, std::isinf, std::abs
#include <cstddef>     // std::size_t
#include <cstdint>     // std::int64_t
#include <filesystem>  // std::filesystem::path
#include <functional>  // std::less
#include <limits>      // std::numeric_limits
#include <map>         // std::map
#include <optional>    // std::optional
#include <string>      // std::string
#include <string_view> // std::string_view
#include <utility>     // std::pair, std::move
#include <vector>      // std::vector

#include "servestat/core/errors.hpp" // input_error
#include "servestat/core/run.hpp"    // run_metadata, reported_value
#include "servestat/ingest/input_file.hpp" // read_whole_file

namespace servestat {

enum class prometheus_type { untyped, counter, gauge, histogram, summary };

// One bucket of a classic histogram: the number of observations ≤ le (cumulative).
struct prometheus_bucket {
    double le = 0;
    double count = 0;
};

struct prometheus_histogram {
    std::vector<prometheus_bucket> buckets; // ascending le, +Inf last when the source had it
    double sum = 0;
    double count = 0;
};

// One scrape, every series summed over its label sets.
struct prometheus_scrape {
    std::string file; // for messages
    std::map<std::string, prometheus_type, std::less<>> types; // from the TYPE lines
    // Every sample except histogram buckets: counters, gauges, a histogram's _sum and _count.
    std::map<std::string, double, std::less<>> samples;
    // How many label sets each of `samples` summed (a gauge's mean over them is its sum / this).
    std::map<std::string, std::size_t, std::less<>> label_sets;
    // Histogram name (without _bucket) → le → cumulative count.
    std::map<std::string, std::map<double, double>, std::less<>> buckets;

    std::optional<double> value(std::string_view name) const {
        const auto it = samples.find(name);
        return it == samples.end() ? std::nullopt : std::optional<double>(it->second);
    }

    // The histogram `name` (e.g. "vllm:e2e_request_latency_seconds"), or nullopt when the scrape has
    // no buckets of that name. Buckets without _sum and _count are an input error: a mean could not
    // be told apart from a missing one.
    std::optional<prometheus_histogram> histogram(std::string_view name) const {
        const auto it = buckets.find(name);
        if (it == buckets.end()) return std::nullopt;
        const std::string base(name);
        const auto sum = value(base + "_sum"), count = value(base + "_count");
        if (!sum || !count)
            throw input_error(file, 0, base, "histogram has _bucket samples but no _sum or _count");
        prometheus_histogram h{{}, *sum, *count};
        for (const auto& [le, n] : it->second) h.buckets.push_back({le, n});
        return h;
    }

    // The type of the family a sample belongs to: its own TYPE line, else that of the name without
    // a _total, _sum, _count or _bucket suffix; untyped without either.
    prometheus_type type_of(std::string_view sample) const {
        if (const auto it = types.find(sample); it != types.end()) return it->second;
        for (const std::string_view suffix : {"_total", "_sum", "_count", "_bucket"})
            if (sample.ends_with(suffix))
                if (const auto it = types.find(sample.substr(0, sample.size() - suffix.size())); it != types.end())
                    return it->second;
        return prometheus_type::untyped;
    }
};

namespace detail {

inline bool is_blank_char(char c) { return c == ' ' || c == '\t'; }

inline std::size_t skip_blanks(std::string_view s, std::size_t pos) {
    while (pos < s.size() && is_blank_char(s[pos])) ++pos;
    return pos;
}

inline bool is_name_start(char c, bool colon_allowed) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (colon_allowed && c == ':');
}

inline bool is_name_char(char c, bool colon_allowed) { return is_name_start(c, colon_allowed) || (c >= '0' && c <= '9'); }

// A metric name ([a-zA-Z_:][a-zA-Z0-9_:]*) or label name (no colon) starting at pos; empty when none.
inline std::string_view read_prometheus_name(std::string_view s, std::size_t& pos, bool colon_allowed) {
    const std::size_t start = pos;
    if (pos < s.size() && is_name_start(s[pos], colon_allowed))
        while (pos < s.size() && is_name_char(s[pos], colon_allowed)) ++pos;
    return s.substr(start, pos - start);
}

// 'text', for messages.
inline std::string in_quotes(std::string_view text) { return std::string("'").append(text).append("'"); }

inline std::string_view read_token(std::string_view s, std::size_t& pos) {
    const std::size_t start = pos;
    while (pos < s.size() && !is_blank_char(s[pos])) ++pos;
    return s.substr(start, pos - start);
}

// Go's ParseFloat as the format uses it: decimals, exponents, and Inf, +Inf, -Inf, NaN in any case.
inline std::optional<double> parse_prometheus_number(std::string_view s) {
    if (s.size() > 1 && s.front() == '+' && s[1] != '-' && s[1] != '+') s.remove_prefix(1);
    double x = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
    if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
    return x;
}

using prometheus_labels = std::vector<std::pair<std::string, std::string>>;

// One sample line as written: the metric name, its labels unescaped, the value.
struct prometheus_sample {
    std::string name;
    prometheus_labels labels;
    double value = 0;

    const std::string* label(std::string_view key) const {
        const auto it = std::find_if(labels.begin(), labels.end(), [&](const auto& l) { return l.first == key; });
        return it == labels.end() ? nullptr : &it->second;
    }
};

// Parses sample lines and comments one at a time, throwing input_error with the file and line.
class prometheus_line_parser {
public:
    prometheus_line_parser(std::string file, std::size_t line) : file_(std::move(file)), line_(line) {}

    void parse(std::string_view text, prometheus_scrape& out) const {
        std::size_t pos = skip_blanks(text, 0);
        if (pos == text.size()) return;
        if (text[pos] == '#') return parse_comment(text, pos + 1, out);
        add_sample(sample(text), out);
    }

    // A line known to hold a sample.
    prometheus_sample sample(std::string_view s) const {
        std::size_t pos = skip_blanks(s, 0);
        prometheus_sample out;
        out.name = read_prometheus_name(s, pos, true);
        if (out.name.empty()) fail("name", "expected a metric name or a comment");
        pos = skip_blanks(s, pos);
        if (pos < s.size() && s[pos] == '{') pos = parse_labels(s, pos + 1, out.labels);
        pos = skip_blanks(s, pos);
        const std::string_view value_text = read_token(s, pos);
        if (value_text.empty()) fail("value", std::string("missing value after ").append(out.name));
        const auto value = parse_prometheus_number(value_text);
        if (!value) fail("value", in_quotes(value_text).append(" is not a number"));
        out.value = *value;
        pos = skip_blanks(s, pos);
        if (pos < s.size()) parse_timestamp(read_token(s, pos));
        if (skip_blanks(s, pos) != s.size()) fail("timestamp", "unexpected text after the timestamp");
        return out;
    }

private:
    [[noreturn]] void fail(std::string field, const std::string& message) const {
        throw input_error(file_, line_, std::move(field), message);
    }

    // HELP and TYPE are checked; any other comment is free text.
    void parse_comment(std::string_view s, std::size_t pos, prometheus_scrape& out) const {
        pos = skip_blanks(s, pos);
        const std::string_view keyword = read_token(s, pos);
        if (keyword != "HELP" && keyword != "TYPE") return;
        pos = skip_blanks(s, pos);
        const std::string_view name = read_prometheus_name(s, pos, true);
        if (name.empty() || (pos < s.size() && !is_blank_char(s[pos])))
            fail(std::string(keyword), std::string("expected a metric name after # ").append(keyword));
        if (keyword == "HELP") return; // the docstring is not used
        pos = skip_blanks(s, pos);
        const std::string_view type = read_token(s, pos);
        if (skip_blanks(s, pos) != s.size()) fail("TYPE", "unexpected text after the type");
        out.types[std::string(name)] = parse_type(type);
    }

    prometheus_type parse_type(std::string_view type) const {
        if (type == "counter") return prometheus_type::counter;
        if (type == "gauge") return prometheus_type::gauge;
        if (type == "histogram") return prometheus_type::histogram;
        if (type == "summary") return prometheus_type::summary;
        if (type == "untyped") return prometheus_type::untyped;
        fail("TYPE", std::string("unknown metric type ")
                         .append(in_quotes(type))
                         .append(" (expected counter, gauge, histogram, summary or untyped)"));
    }

    // Milliseconds since the epoch: checked, not used (a scrape is one instant).
    void parse_timestamp(std::string_view t) const {
        std::int64_t ms = 0;
        const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), ms);
        if (ec != std::errc() || end != t.data() + t.size())
            fail("timestamp", in_quotes(t).append(" is not an integer timestamp"));
    }

    // After '{': name="value" pairs separated by commas (a trailing one allowed) up to '}'.
    std::size_t parse_labels(std::string_view s, std::size_t pos, prometheus_labels& labels) const {
        for (;;) {
            pos = skip_blanks(s, pos);
            if (pos < s.size() && s[pos] == '}') return pos + 1;
            const std::string_view name = read_prometheus_name(s, pos, false);
            if (name.empty()) fail("labels", "expected a label name or '}'");
            pos = skip_blanks(s, pos);
            if (pos >= s.size() || s[pos] != '=') fail(std::string(name), "expected '=' after the label name");
            pos = skip_blanks(s, pos + 1);
            if (pos >= s.size() || s[pos] != '"') fail(std::string(name), "expected a quoted label value");
            std::string value;
            pos = parse_label_value(s, pos + 1, name, value);
            labels.emplace_back(std::string(name), std::move(value));
            pos = skip_blanks(s, pos);
            if (pos < s.size() && s[pos] == ',') { ++pos; continue; }
            if (pos < s.size() && s[pos] == '}') return pos + 1;
            fail("labels", std::string("expected ',' or '}' after the value of label ").append(name));
        }
    }

    // After the opening quote; returns the position after the closing one. Escapes: \\ \" \n.
    std::size_t parse_label_value(std::string_view s, std::size_t pos, std::string_view label,
                                  std::string& value) const {
        for (; pos < s.size(); ++pos) {
            const char c = s[pos];
            if (c == '"') return pos + 1;
            if (c != '\\') { value.push_back(c); continue; }
            if (++pos == s.size()) break;
            if (s[pos] == 'n') value.push_back('\n');
            else if (s[pos] == '\\' || s[pos] == '"') value.push_back(s[pos]);
            else fail(std::string(label), std::string("invalid escape \\").append(1, s[pos]).append(" in the label value"));
        }
        fail(std::string(label), "unterminated label value");
    }

    void add_sample(const prometheus_sample& sample, prometheus_scrape& out) const {
        if (sample.label("quantile")) return;
        const std::string* le = sample.label("le");
        if (!le || !sample.name.ends_with("_bucket")) {
            out.samples[sample.name] += sample.value;
            ++out.label_sets[sample.name];
            return;
        }
        const auto bound = parse_prometheus_number(*le);
        if (!bound || std::isnan(*bound)) fail("le", in_quotes(*le).append(" is not a bucket bound"));
        if (std::isnan(sample.value) || sample.value < 0) fail("value", "a bucket count must be a number >= 0");
        out.buckets[sample.name.substr(0, sample.name.size() - 7)][*bound] += sample.value;
    }

    std::string file_;
    std::size_t line_;
};

// Series whose value only grows while the server runs, as their TYPE line or their buckets say:
// what a difference of two scrapes is taken of.
inline bool is_cumulative(const prometheus_scrape& s, std::string_view sample) {
    if (sample.ends_with("_created")) return false; // a creation time, not a count
    for (const std::string_view suffix : {"_sum", "_count"})
        if (sample.ends_with(suffix) && s.buckets.contains(sample.substr(0, sample.size() - suffix.size())))
            return true;
    const prometheus_type t = s.type_of(sample);
    return t == prometheus_type::counter || t == prometheus_type::histogram || t == prometheus_type::summary;
}

// A bucket's count; 0 when the scrape has no such bucket (a series that did not exist yet).
inline double bucket_count(const prometheus_scrape& s, const std::string& histogram, double le) {
    const auto it = s.buckets.find(histogram);
    if (it == s.buckets.end()) return 0;
    const auto bucket = it->second.find(le);
    return bucket == it->second.end() ? 0 : bucket->second;
}

// Whether a cumulative series of `before` is lower in `after`, or gone from it: the server restarted.
inline bool any_went_down(const prometheus_scrape& before, const prometheus_scrape& after) {
    for (const auto& [name, v] : before.samples)
        if (is_cumulative(before, name) && after.value(name).value_or(0) < v) return true;
    for (const auto& [name, bounds] : before.buckets)
        for (const auto& [le, n] : bounds)
            if (bucket_count(after, name, le) < n) return true;
    return false;
}

} // namespace detail

// Parses a whole exposition; `file` names it in errors. Lines end in \n or \r\n.
inline prometheus_scrape parse_prometheus_text(std::string_view text, std::string file) {
    prometheus_scrape out;
    out.file = std::move(file);
    std::size_t line = 0;
    while (!text.empty()) {
        const std::size_t nl = text.find('\n');
        std::string_view current = text.substr(0, nl);
        text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
        if (current.ends_with('\r')) current.remove_suffix(1);
        detail::prometheus_line_parser(out.file, ++line).parse(current, out);
    }
    return out;
}

inline prometheus_scrape read_prometheus_file(const std::filesystem::path& file) {
    return parse_prometheus_text(detail::read_whole_file(file), file.string());
}

// The φ-quantile of a classic histogram as PromQL's histogram_quantile computes it (promql/quantile.go,
// bucketQuantile): buckets sorted by le and merged when equal, counts made monotonic; rank = q × the
// +Inf bucket's count; the first bucket whose count reaches the rank holds the quantile, interpolated
// linearly between its lower bound (the previous bucket's le, 0 for the lowest bucket when its le is
// above 0) and its le. A rank beyond every finite bucket gives the highest finite le; a lowest bucket
// with le ≤ 0 gives that le. q < 0 gives -Inf and q > 1 +Inf, as in PromQL. Where PromQL answers NaN
// (no observations, no +Inf bucket, fewer than two buckets, q NaN, or q = 0 over an empty lowest
// bucket) the answer is nullopt.
inline std::optional<double> histogram_quantile(double q, std::vector<prometheus_bucket> buckets) {
    if (std::isnan(q) || buckets.empty()) return std::nullopt;
    if (q < 0) return -std::numeric_limits<double>::infinity();
    if (q > 1) return std::numeric_limits<double>::infinity();
    std::sort(buckets.begin(), buckets.end(), [](const auto& a, const auto& b) { return a.le < b.le; });
    if (!std::isinf(buckets.back().le) || buckets.back().le < 0) return std::nullopt;
    std::vector<prometheus_bucket> b; // coalesced: one bucket per le
    for (const auto& x : buckets) {
        if (!b.empty() && b.back().le == x.le) b.back().count += x.count;
        else b.push_back(x);
    }
    // Float noise below 1e-12 relative does not count as a change (correctPrecisionErrors) ...
    for (std::size_t i = 1, prev = 0; i < b.size(); ++i) {
        const double delta = std::abs(b[i].count - b[prev].count);
        if (delta == 0) continue;
        if (delta / b[i].count <= 1e-12) b[i].count = b[prev].count;
        else prev = i;
    }
    // ... and a decrease is flattened to the running maximum (ensureMonotonic).
    for (std::size_t i = 1; i < b.size(); ++i) b[i].count = std::max(b[i].count, b[i - 1].count);
    if (b.size() < 2) return std::nullopt;
    const double observations = b.back().count;
    if (observations == 0) return std::nullopt;
    double rank = q * observations;
    std::size_t i = 0;
    while (i < b.size() - 1 && b[i].count < rank) ++i;
    if (i == b.size() - 1) return b[b.size() - 2].le;
    if (i == 0 && b[0].le <= 0) return b[0].le;
    double start = 0, count = b[i].count;
    if (i > 0) {
        start = b[i - 1].le;
        count -= b[i - 1].count;
        rank -= b[i - 1].count;
    }
    const double x = start + (b[i].le - start) * (rank / count);
    return std::isnan(x) ? std::nullopt : std::optional<double>(x);
}

inline std::optional<double> histogram_quantile(double q, const prometheus_histogram& h) {
    return histogram_quantile(q, h.buckets);
}

// What the server did between two scrapes: after − before for every cumulative series (counters,
// histogram buckets, _sum and _count); gauges are left out, their difference means nothing.
struct prometheus_delta {
    prometheus_scrape values;
    // A cumulative series went down, or process_start_time_seconds changed: the server restarted
    // in between, and `values` are the after scrape alone, i.e. what it did since the restart.
    bool restarted = false;
};

inline prometheus_delta scrape_difference(const prometheus_scrape& before, const prometheus_scrape& after) {
    prometheus_delta out;
    out.values.file = after.file;
    out.values.types = after.types;
    const auto start_before = before.value("process_start_time_seconds");
    const auto start_after = after.value("process_start_time_seconds");
    out.restarted = (start_before && start_after && *start_before != *start_after) ||
                    detail::any_went_down(before, after);
    const bool subtract = !out.restarted;
    for (const auto& [name, v] : after.samples)
        if (detail::is_cumulative(after, name))
            out.values.samples[name] = subtract ? v - before.value(name).value_or(0) : v;
    for (const auto& [name, bounds] : after.buckets) {
        auto& into = out.values.buckets[name];
        for (const auto& [le, n] : bounds) into[le] = subtract ? n - detail::bucket_count(before, name, le) : n;
    }
    return out;
}

namespace detail {

// vLLM's histograms and counters shown in a run's reported values, by the name they are shown under:
// "vllm.<name>.<stat>" keeps them apart from servestat's "<metric>.<stat>" (other definitions:
// server-side clocks and bucket estimates).
struct scraped_series {
    std::string_view metric;
    std::string_view shown;
};

inline constexpr std::array<scraped_series, 5> scraped_histograms{{
    {"vllm:request_queue_time_seconds", "vllm.request_queue_time"},
    {"vllm:request_prefill_time_seconds", "vllm.request_prefill_time"},
    {"vllm:request_decode_time_seconds", "vllm.request_decode_time"},
    {"vllm:time_to_first_token_seconds", "vllm.time_to_first_token"},
    {"vllm:e2e_request_latency_seconds", "vllm.e2e_request_latency"},
}};

inline constexpr std::array<scraped_series, 2> scraped_counters{{
    {"vllm:prompt_tokens_total", "vllm.prompt_tokens"},
    {"vllm:generation_tokens_total", "vllm.generation_tokens"},
}};

inline std::vector<reported_value> scraped_reported(const prometheus_scrape& delta) {
    std::vector<reported_value> out;
    for (const auto& series : scraped_histograms) {
        const auto h = delta.histogram(series.metric);
        if (!h) continue;
        const std::string base(series.shown);
        out.push_back({base + ".count", h->count, "requests"});
        if (h->count <= 0) continue;
        out.push_back({base + ".mean", h->sum / h->count, "s"});
        for (const auto& [q, stat] : {std::pair{0.5, ".p50"}, std::pair{0.9, ".p90"}, std::pair{0.99, ".p99"}})
            if (const auto x = histogram_quantile(q, *h)) out.push_back({base + stat, *x, "s"});
    }
    for (const auto& series : scraped_counters)
        if (const auto v = delta.value(series.metric)) out.push_back({std::string(series.shown), *v, "tokens"});
    return out;
}

// Where `servestat load --scrape-metrics` saved the scrapes of the log `log` (the writer's rule:
// the log's extension replaced).
inline std::filesystem::path scrape_file(std::filesystem::path log, std::string_view when) {
    return log.replace_extension(std::string(".metrics-").append(when).append(".prom"));
}

inline std::string scraped_note(const std::filesystem::path& before, const std::filesystem::path& after,
                                bool restarted) {
    std::string note = "vllm.* values are the server's own, from its Prometheus /metrics scraped before and after "
                       "the run (";
    note.append(before.filename().string()).append(", ").append(after.filename().string());
    note.append("): their difference, so they count everything the server did in between, other clients' "
                "requests included. Means are exact (sum/count); p50, p90 and p99 are bucket-resolution "
                "estimates, not exact percentiles: Prometheus' histogram_quantile, linear within vLLM's "
                "buckets (a quantile past the last finite bucket shows as that bound)");
    if (restarted)
        note.append(". The server restarted between the scrapes (a counter went down): the values are the "
                    "after scrape alone, i.e. only what the server did since it restarted");
    return note;
}

// Adds the server-side values of a scraped run to `meta`, when both scrapes lie beside the log.
// A malformed scrape is an input_error naming that file: it is read as strictly as the log.
inline void add_scraped_metrics(run_metadata& meta, const std::filesystem::path& log) {
    const auto before_path = scrape_file(log, "before"), after_path = scrape_file(log, "after");
    std::error_code ec;
    if (!std::filesystem::is_regular_file(before_path, ec) || !std::filesystem::is_regular_file(after_path, ec))
        return;
    const auto delta = scrape_difference(read_prometheus_file(before_path), read_prometheus_file(after_path));
    const auto values = scraped_reported(delta.values);
    meta.reported.insert(meta.reported.end(), values.begin(), values.end());
    if (values.empty())
        meta.notes.push_back(before_path.filename().string().append(" and ").append(after_path.filename().string())
                                 .append(" hold none of vLLM's request histograms or token counters: no server-side "
                                         "values from them"));
    else
        meta.notes.push_back(scraped_note(before_path, after_path, delta.restarted));
    meta.source.merged.push_back(before_path.string());
    meta.source.merged.push_back(after_path.string());
}

} // namespace detail
} // namespace servestat
