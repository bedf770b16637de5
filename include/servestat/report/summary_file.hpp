// Summaries on disk (`servestat summarize`, *.ssum.json, docs/json-export.md): the accumulated
// statistics of one run's requests, versioned, which merge with the summaries of the run's other
// shards into the summary of all of them, and which `stats` reads like a log. Every number is kept
// as it was accumulated (sums with their compensations, sketch buckets), so a merge of shards read
// back equals a merge in memory bit for bit.
#pragma once

#include <cstddef>     // std::size_t
#include <cstdint>     // std::int32_t, std::int64_t, std::uint64_t
#include <filesystem>  // std::filesystem::path
#include <limits>      // std::numeric_limits
#include <string>      // std::string
#include <string_view> // std::string_view
#include <vector>      // std::vector

#include <fmt/format.h>      // fmt::format
#include <nlohmann/json.hpp> // nlohmann::json

#include "servestat/core/errors.hpp"            // input_error, usage_error
#include "servestat/core/run.hpp"               // run_metadata, skipped_lines
#include "servestat/ingest/input_file.hpp"      // read_whole_file
#include "servestat/ingest/json_document.hpp"   // parse_json_text
#include "servestat/stats/run_accumulator.hpp"  // run_accumulator, metric_accumulator
#include "servestat/stats/goodput.hpp"          // slo, parse_slos

namespace servestat {

inline constexpr int summary_file_version = 1;

// One run's statistics as accumulated: what a summary file holds.
struct run_summary {
    run_metadata meta;
    skipped_lines skipped;
    run_accumulator stats;
};

namespace detail {

// Metrics servestat gained after summary files of version 1 were first written: a file may lack
// them, where every other metric must be there.
inline bool added_within_version_1(metric m) noexcept { return m == metric::server_ttft || m == metric::server_itl; }

struct summary_file_access {
    using json = nlohmann::json;

    // --- writing ---

    static json buckets_json(const bucket_counts& b) {
        return {{"first", b.first()}, {"counts", std::vector<std::uint64_t>(b.counts().begin(), b.counts().end())}};
    }

    static json metric_json(const metric_accumulator& m) {
        const auto& k = m.sketch_;
        const auto sum = m.sum_.parts();
        return {{"n", m.n_},
                {"sum", {sum[0], sum[1], sum[2]}},
                {"squares", m.squares_},
                {"sketch", {{"min", k.min()}, {"max", k.max()}, {"zeros", k.zero_count()},
                            {"positive", buckets_json(k.positive_buckets())},
                            {"negative", buckets_json(k.negative_buckets())}}}};
    }

    static json mean_json(const mean_accumulator& m) {
        const auto sum = m.sum.parts();
        return {{"n", m.n}, {"sum", {sum[0], sum[1], sum[2]}}};
    }

    static json options_json(const run_accumulator& a) {
        const auto& o = a.options_;
        json buckets = json::array();
        for (const auto& b : o.subsets.buckets) buckets.push_back({{"name", b.name}, {"lo", b.lo}, {"hi", b.hi}});
        json slos = json::object();
        for (const auto& s : o.slos) slos[std::string(to_string(s.on))] = s.max_seconds;
        return {{"short_max", o.subsets.short_max}, {"long_min", o.subsets.long_min}, {"buckets", std::move(buckets)},
                {"slo", std::move(slos)}, {"sketch_alpha", a.prompt_tokens_.sketch_.alpha()}};
    }

    static json run_json(const run_summary& s) {
        const run_accumulator& a = s.stats;
        json subsets = json::array();
        for (const auto& part : a.subsets_) {
            json metrics = json::object();
            for (std::size_t m = 0; m < all_metrics.size(); ++m)
                metrics[std::string(to_string(all_metrics[m]))] = metric_json(part.metrics[m]);
            subsets.push_back({{"name", part.name}, {"ok", part.ok}, {"metrics", std::move(metrics)}});
        }
        json errors = json::array();
        for (const auto& e : a.errors_)
            if (e.count > 0) errors.push_back({{"kind", std::string(to_string(e.kind))}, {"count", e.count}, {"example", e.example}});
        const auto or_null = [](const std::optional<double>& v) { return v ? json(*v) : json(nullptr); };
        return {{"label", s.meta.label},
                {"model", s.meta.model},
                {"workload", s.meta.workload},
                {"tool", s.meta.tool},
                {"started_at", s.meta.started_at},
                {"params", s.meta.params},
                {"source", {{"path", s.meta.source.path}, {"format", s.meta.source.format}}},
                {"shared_clock", s.meta.shared_clock},
                {"notes", s.meta.notes},
                {"skipped", {{"count", s.skipped.count}, {"examples", s.skipped.examples}}},
                {"requests", a.requests_},
                {"ok", a.ok_},
                {"first_sent", or_null(a.first_sent_)},
                {"last_end", or_null(a.last_end_)},
                {"output_tokens_sum", a.output_sum_},
                {"total_tokens_sum", a.total_sum_},
                {"any_output", a.any_output_},
                {"all_total", a.all_total_},
                {"good", a.good_},
                {"unmeasurable", a.unmeasurable_},
                {"good_output_tokens_sum", a.good_output_sum_},
                {"errors", std::move(errors)},
                {"prompt_tokens", metric_json(a.prompt_tokens_)},
                {"output_tokens", metric_json(a.output_tokens_)},
                {"server_spec_acceptance", mean_json(a.spec_acceptance_)},
                {"server_draft_acceptance", mean_json(a.draft_acceptance_)},
                {"subsets", std::move(subsets)}};
    }

    // --- reading: every field checked, an error names it ---

    struct reader {
        const std::string& file;
        [[noreturn]] void fail(const std::string& field, const std::string& why) const { throw input_error(file, 0, field, why); }
        const json& at(const json& j, const std::string& field, const char* key) const {
            if (!j.is_object()) fail(field, "must be an object");
            const auto it = j.find(key);
            if (it == j.end()) fail(field.empty() ? key : field + "." + key, "missing");
            return *it;
        }
        static std::string path(const std::string& field, const char* key) { return field.empty() ? key : field + "." + key; }
        double number(const json& j, const std::string& field, const char* key) const {
            const json& v = at(j, field, key);
            if (!v.is_number()) fail(path(field, key), "must be a number");
            return v.get<double>();
        }
        std::optional<double> optional_number(const json& j, const std::string& field, const char* key) const {
            const json& v = at(j, field, key);
            if (v.is_null()) return std::nullopt;
            if (!v.is_number()) fail(path(field, key), "must be a number or null");
            return v.get<double>();
        }
        std::uint64_t count(const json& j, const std::string& field, const char* key) const {
            const json& v = at(j, field, key);
            if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<std::int64_t>() >= 0))
                fail(path(field, key), "must be a non-negative integer");
            return v.get<std::uint64_t>();
        }
        bool flag(const json& j, const std::string& field, const char* key) const {
            const json& v = at(j, field, key);
            if (!v.is_boolean()) fail(path(field, key), "must be true or false");
            return v.get<bool>();
        }
        std::string text(const json& j, const std::string& field, const char* key) const {
            const json& v = at(j, field, key);
            if (!v.is_string()) fail(path(field, key), "must be a string");
            return v.get<std::string>();
        }
        std::vector<std::string> texts(const json& j, const std::string& field, const char* key) const {
            const json& v = at(j, field, key);
            std::vector<std::string> out;
            if (!v.is_array()) fail(path(field, key), "must be an array of strings");
            for (const auto& x : v) {
                if (!x.is_string()) fail(path(field, key), "must be an array of strings");
                out.push_back(x.get<std::string>());
            }
            return out;
        }

        bucket_counts buckets(const json& j, const std::string& field, std::uint64_t& total) const {
            const auto first = number(j, field, "first");
            if (first != static_cast<double>(static_cast<std::int32_t>(first))) fail(path(field, "first"), "must be a 32-bit integer");
            const json& counts = at(j, field, "counts");
            if (!counts.is_array()) fail(path(field, "counts"), "must be an array of counts");
            if (counts.size() > (std::size_t{1} << 20)) fail(path(field, "counts"), "has more buckets than any sketch of doubles needs");
            if (first + static_cast<double>(counts.size()) > std::numeric_limits<std::int32_t>::max())
                fail(path(field, "first"), "puts buckets past the 32-bit bucket indices");
            std::vector<std::uint64_t> out;
            for (const auto& c : counts) {
                if (!c.is_number_unsigned() && !(c.is_number_integer() && c.get<std::int64_t>() >= 0))
                    fail(path(field, "counts"), "must be an array of non-negative integers");
                const auto v = c.get<std::uint64_t>();
                if (total + v < total) fail(path(field, "counts"), "add up to more than 2^64");
                total += v;
                out.push_back(v);
            }
            return {static_cast<std::int32_t>(first), std::move(out)};
        }

        metric_accumulator metric(const json& j, const std::string& field, double alpha) const {
            metric_accumulator m(alpha);
            m.n_ = count(j, field, "n");
            const json& sum = at(j, field, "sum");
            if (!sum.is_array() || sum.size() != 3 || !sum[0].is_number() || !sum[1].is_number() || !sum[2].is_number())
                fail(path(field, "sum"), "must be three numbers (a sum and its two compensations)");
            m.sum_ = compensated_sum::from_parts({sum[0].get<double>(), sum[1].get<double>(), sum[2].get<double>()});
            m.squares_ = number(j, field, "squares");
            if (!(m.squares_ >= 0)) fail(path(field, "squares"), "must not be negative");
            const json& k = at(j, field, "sketch");
            const std::string sketch = path(field, "sketch");
            const double low = number(k, sketch, "min"), high = number(k, sketch, "max");
            std::uint64_t total = count(k, sketch, "zeros");
            const auto zeros = total;
            auto positive = buckets(at(k, sketch, "positive"), path(sketch, "positive"), total);
            auto negative = buckets(at(k, sketch, "negative"), path(sketch, "negative"), total);
            if (total != m.n_) fail(sketch, fmt::format("holds {} values where n is {}", total, m.n_));
            if (m.n_ > 0 && !(low <= high)) fail(sketch, "min is greater than max");
            m.sketch_ = quantile_sketch::from_parts(alpha, total, low, high, zeros, std::move(positive), std::move(negative));
            return m;
        }

        // A sum and count kept for a plain mean. Absent in files written before servestat kept one:
        // those runs had none of its values.
        mean_accumulator mean(const json& j, const std::string& field, const char* key) const {
            mean_accumulator m;
            if (j.is_object() && !j.contains(key)) return m;
            const std::string place = path(field, key);
            const json& v = at(j, field, key);
            m.n = count(v, place, "n");
            const json& sum = at(v, place, "sum");
            if (!sum.is_array() || sum.size() != 3 || !sum[0].is_number() || !sum[1].is_number() || !sum[2].is_number())
                fail(path(place, "sum"), "must be three numbers (a sum and its two compensations)");
            m.sum = compensated_sum::from_parts({sum[0].get<double>(), sum[1].get<double>(), sum[2].get<double>()});
            return m;
        }

        stats_options options(const json& j) const {
            stats_options o;
            o.subsets.short_max = static_cast<std::int32_t>(count(j, "options", "short_max"));
            o.subsets.long_min = static_cast<std::int32_t>(count(j, "options", "long_min"));
            const json& buckets = at(j, "options", "buckets");
            if (!buckets.is_array()) fail("options.buckets", "must be an array");
            for (const auto& b : buckets)
                o.subsets.buckets.push_back({text(b, "options.buckets", "name"),
                                             static_cast<std::int32_t>(count(b, "options.buckets", "lo")),
                                             static_cast<std::int32_t>(count(b, "options.buckets", "hi"))});
            const json& slos = at(j, "options", "slo");
            if (!slos.is_object()) fail("options.slo", "must be an object");
            std::string spec;
            for (const auto& [name, limit] : slos.items()) {
                if (!limit.is_number()) fail("options.slo." + name, "must be a number of seconds");
                spec += fmt::format("{}{}={}", spec.empty() ? "" : ",", name, limit.get<double>());
            }
            try {
                o.slos = parse_slos(spec);
                validate(o.subsets);
            } catch (const usage_error& e) {
                fail("options", e.what());
            }
            return o;
        }

        run_summary summary(const json& doc) const {
            if (!doc.is_object() || doc.value("servestat", json()) != "summary")
                fail("servestat", "not a servestat summary (expected {\"servestat\":\"summary\",...})");
            const json& version = at(doc, "", "version");
            if (!version.is_number_integer() || version.get<std::int64_t>() != summary_file_version)
                fail("version", "unsupported summary version " + version.dump() + " (this servestat reads 1)");
            const json& o = at(doc, "", "options");
            const double alpha = number(o, "options", "sketch_alpha");
            if (!(alpha > 0 && alpha < 1)) fail("options.sketch_alpha", "must lie between 0 and 1");
            run_summary out{{}, {}, run_accumulator(options(o), alpha)};
            const json& r = at(doc, "", "run");
            out.meta.label = text(r, "run", "label");
            out.meta.model = text(r, "run", "model");
            out.meta.workload = text(r, "run", "workload");
            out.meta.tool = text(r, "run", "tool");
            out.meta.started_at = text(r, "run", "started_at");
            out.meta.params = at(r, "run", "params");
            if (!out.meta.params.is_object()) fail("run.params", "must be an object");
            out.meta.source = {text(at(r, "run", "source"), "run.source", "path"), text(at(r, "run", "source"), "run.source", "format")};
            out.meta.shared_clock = flag(r, "run", "shared_clock");
            out.meta.notes = texts(r, "run", "notes");
            out.skipped.count = static_cast<std::size_t>(count(at(r, "run", "skipped"), "run.skipped", "count"));
            out.skipped.examples = texts(at(r, "run", "skipped"), "run.skipped", "examples");
            run_accumulator& a = out.stats;
            a.requests_ = count(r, "run", "requests");
            a.ok_ = count(r, "run", "ok");
            if (a.ok_ > a.requests_) fail("run.ok", "is greater than run.requests");
            a.first_sent_ = optional_number(r, "run", "first_sent");
            a.last_end_ = optional_number(r, "run", "last_end");
            a.output_sum_ = count(r, "run", "output_tokens_sum");
            a.total_sum_ = count(r, "run", "total_tokens_sum");
            a.any_output_ = flag(r, "run", "any_output");
            a.all_total_ = flag(r, "run", "all_total");
            a.good_ = count(r, "run", "good");
            a.unmeasurable_ = count(r, "run", "unmeasurable");
            // Added after version 1 was out: a file without it has no cost per good token.
            a.good_output_known_ = r.contains("good_output_tokens_sum");
            if (a.good_output_known_) a.good_output_sum_ = count(r, "run", "good_output_tokens_sum");
            const json& errors = at(r, "run", "errors");
            if (!errors.is_array()) fail("run.errors", "must be an array");
            for (const auto& e : errors) {
                const std::string kind = text(e, "run.errors", "kind");
                bool known = false;
                for (auto& slot : a.errors_)
                    if (to_string(slot.kind) == kind) {
                        slot.count = static_cast<std::size_t>(count(e, "run.errors", "count"));
                        slot.example = text(e, "run.errors", "example");
                        known = true;
                    }
                if (!known) fail("run.errors", "unknown error kind '" + kind + "'");
            }
            a.prompt_tokens_ = metric(at(r, "run", "prompt_tokens"), "run.prompt_tokens", alpha);
            a.output_tokens_ = metric(at(r, "run", "output_tokens"), "run.output_tokens", alpha);
            a.spec_acceptance_ = mean(r, "run", "server_spec_acceptance");
            a.draft_acceptance_ = mean(r, "run", "server_draft_acceptance");
            const json& subsets = at(r, "run", "subsets");
            if (!subsets.is_array() || subsets.size() != a.subsets_.size())
                fail("run.subsets", fmt::format("must list the {} subsets of the options", a.subsets_.size()));
            for (std::size_t s = 0; s < a.subsets_.size(); ++s) {
                const std::string field = fmt::format("run.subsets[{}]", s);
                if (text(subsets[s], field, "name") != a.subsets_[s].name)
                    fail(field + ".name", "must be '" + a.subsets_[s].name + "' (subsets follow the options)");
                a.subsets_[s].ok = count(subsets[s], field, "ok");
                const json& metrics = at(subsets[s], field, "metrics");
                for (std::size_t m = 0; m < all_metrics.size(); ++m) {
                    const std::string name(to_string(all_metrics[m]));
                    if (metrics.is_object() && !metrics.contains(name) && added_within_version_1(all_metrics[m]))
                        continue; // written before servestat had the metric: the run had no values of it
                    a.subsets_[s].metrics[m] = metric(at(metrics, field + ".metrics", name.c_str()), field + ".metrics." + name, alpha);
                }
            }
            return out;
        }
    };
};

inline bool same_options(const run_accumulator& a, const run_accumulator& b) {
    return summary_file_access::options_json(a) == summary_file_access::options_json(b);
}

} // namespace detail

inline nlohmann::json to_json(const run_summary& s) {
    return {{"servestat", "summary"},
            {"version", summary_file_version},
            {"options", detail::summary_file_access::options_json(s.stats)},
            {"run", detail::summary_file_access::run_json(s)}};
}

// The file's text: the JSON of to_json with "servestat" and "version" first (a JSON object's keys
// are otherwise sorted), so the first bytes say what the file is.
inline std::string summary_file_text(const run_summary& s) {
    return fmt::format(R"({{"servestat":"summary","version":{},"options":{},"run":{}}})", summary_file_version,
                       detail::summary_file_access::options_json(s.stats).dump(),
                       detail::summary_file_access::run_json(s).dump()) +
           "\n";
}

// A summary from its text, e.g. one sent between processes; `name` stands for the file in errors.
inline run_summary parse_summary_text(std::string_view text, const std::string& name) {
    return detail::summary_file_access::reader{name}.summary(detail::parse_json_text(text, {name, 0}));
}

inline run_summary read_summary_file(const std::filesystem::path& file) {
    return parse_summary_text(detail::read_whole_file(file, "{"), file.string());
}

inline int sniff_summary_file(std::string_view head) {
    const auto start = head.find_first_not_of(" \t\r\n");
    if (start == std::string_view::npos || head[start] != '{') return 0;
    return head.substr(start, 200).find("\"summary\"") != std::string_view::npos &&
                   head.substr(start, 200).find("\"servestat\"") != std::string_view::npos
               ? 100
               : 0;
}

// `other`'s requests added to `into`'s: the summary of both shards. Options (subsets, SLOs, sketch
// error) must agree; the metadata and error examples stay those of `into`.
inline void merge(run_summary& into, const run_summary& other) {
    if (!detail::same_options(into.stats, other.stats))
        throw usage_error(fmt::format("summaries of '{}' and '{}' were made with different options (subsets, SLOs or "
                                      "sketch error): they cannot be merged",
                                      into.meta.source.path, other.meta.source.path));
    into.stats.merge(other.stats);
    for (const auto& e : other.skipped.examples) into.skipped.add(e); // counts each
    into.skipped.count += other.skipped.count - other.skipped.examples.size();
    into.meta.shared_clock = into.meta.shared_clock && other.meta.shared_clock;
}

} // namespace servestat
