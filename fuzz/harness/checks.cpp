// The shared machinery (memfd, violations, UTF-8), the invariants of a run read successfully, and
// the small parsers: CSV records, Prometheus text, ISO times, parameters in file names.
#include <sys/mman.h> // memfd_create
#include <unistd.h>   // ftruncate, pwrite

#include <algorithm>  // std::min
#include <cmath>      // std::isfinite, std::isnan
#include <cstdio>     // std::fprintf
#include <cstdlib>    // std::abort
#include <cxxabi.h>   // abi::__cxa_demangle
#include <exception>  // std::exception
#include <limits>     // std::numeric_limits
#include <memory>     // std::unique_ptr
#include <optional>   // std::optional
#include <string>     // std::string
#include <typeinfo>   // typeid
#include <vector>     // std::vector

#include <servestat/core/iso_time.hpp>          // detail::parse_iso_utc, iso_utc
#include <servestat/ingest/canonical_jsonl.hpp> // detail::canonical_line_parser
#include <servestat/report/stats_json.hpp>       // stats_document
#include <servestat/report/summary_file.hpp>     // read_summary_file, summary_file_text, merge
#include <servestat/ingest/csv.hpp>             // detail::csv_reader, csv_row
#include <servestat/ingest/file_name_params.hpp> // params_from_file_name
#include <servestat/ingest/prometheus_text.hpp> // parse_prometheus_text, scrape_difference
#include <servestat/stats/run_stats.hpp>        // analyze
#include <servestat/ingest/yaml_document.hpp>   // detail::parse_yaml_documents

#include "internal.hpp"

namespace servestat_fuzz {

// ---- shared ------------------------------------------------------------------------------------

const std::string& memory_file(std::string_view bytes) {
    static const int fd = [] {
        const int f = memfd_create("servestat-fuzz", 0);
        if (f < 0) {
            std::perror("memfd_create");
            std::abort();
        }
        return f;
    }();
    static const std::string path = "/proc/self/fd/" + std::to_string(fd);
    if (ftruncate(fd, 0) != 0) std::abort();
    std::size_t done = 0;
    while (done < bytes.size()) {
        const auto n = pwrite(fd, bytes.data() + done, bytes.size() - done, static_cast<off_t>(done));
        if (n <= 0) std::abort();
        done += static_cast<std::size_t>(n);
    }
    return path;
}

void violation(std::string_view target, std::string_view what) {
    std::fprintf(stderr, "\nservestat-fuzz [%.*s] CONTRACT VIOLATION: %.*s\n", static_cast<int>(target.size()),
                 target.data(), static_cast<int>(what.size()), what.data());
    std::abort();
}

void escaped(std::string_view target) {
    try {
        throw;
    } catch (const std::exception& e) {
        int status = 0;
        std::unique_ptr<char, void (*)(void*)> name(abi::__cxa_demangle(typeid(e).name(), nullptr, nullptr, &status),
                                                    std::free);
        violation(target, std::string("escaped exception ") + (status == 0 ? name.get() : typeid(e).name()) +
                              ": " + e.what());
    } catch (...) {
        violation(target, "escaped exception of a type not derived from std::exception");
    }
}

// RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF.
bool valid_utf8(std::string_view s) {
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    const std::size_t n = s.size();
    for (std::size_t i = 0; i < n;) {
        const unsigned char b = p[i];
        std::size_t len = 0;
        unsigned char lo = 0x80, hi = 0xBF;
        if (b < 0x80) len = 1;
        else if (b >= 0xC2 && b <= 0xDF) len = 2;
        else if (b >= 0xE0 && b <= 0xEF) len = 3, lo = b == 0xE0 ? 0xA0 : 0x80, hi = b == 0xED ? 0x9F : 0xBF;
        else if (b >= 0xF0 && b <= 0xF4) len = 4, lo = b == 0xF0 ? 0x90 : 0x80, hi = b == 0xF4 ? 0x8F : 0xBF;
        else return false;
        if (i + len > n) return false;
        for (std::size_t k = 1; k < len; ++k) {
            const unsigned char c = p[i + k];
            if (k == 1 ? (c < lo || c > hi) : (c < 0x80 || c > 0xBF)) return false;
        }
        i += len;
    }
    return true;
}

// ---- invariants of a run -------------------------------------------------------------------------

namespace {

using servestat::summary;

struct run_checker {
    std::string_view target;
    std::string where; // "run 2 'label'", for messages

    [[noreturn]] void fail(const std::string& what) const { violation(target, where + ": " + what); }

    void text(std::string_view what, std::string_view s) const {
        if (!valid_utf8(s)) fail(std::string(what) + " is not valid UTF-8");
    }

    void json_text(const nlohmann::json& j) const {
        if (j.is_string()) text("a string in params", j.get_ref<const std::string&>());
        if (j.is_number_float() && !std::isfinite(j.get<double>())) fail("a non-finite number in params");
        if (j.is_object())
            for (const auto& [key, value] : j.items()) {
                text("a key in params", key);
                json_text(value);
            }
        if (j.is_array())
            for (const auto& value : j) json_text(value);
    }

    void finite(std::string_view what, const std::optional<double>& x, bool non_negative = false) const {
        if (!x) return;
        if (!std::isfinite(*x)) fail(std::string(what) + " is " + std::to_string(*x));
        if (non_negative && *x < 0) fail(std::string(what) + " is negative: " + std::to_string(*x));
    }

    void stats(const std::string& what, const summary& s) const {
        if (s.n == 0) {
            if (s.mean || s.min || s.max || s.std) fail(what + ": statistics of no values");
            for (const auto& p : s.percentiles)
                if (p.value) fail(what + ": a percentile of no values");
            return;
        }
        if (!s.mean || !s.min || !s.max) fail(what + ": mean, min or max missing");
        finite(what + ".mean", s.mean);
        finite(what + ".min", s.min);
        finite(what + ".max", s.max);
        finite(what + ".std", s.std, true);
        finite(what + ".cov", s.cov);
        const double lo = *s.min, hi = *s.max;
        if (lo > hi) fail(what + ": min > max");
        // A few ulps of slack for interpolation and the pivoted mean.
        const double slack = 8 * std::numeric_limits<double>::epsilon() * std::max(std::abs(lo), std::abs(hi));
        if (*s.mean < lo - slack || *s.mean > hi + slack) fail(what + ": mean outside [min, max]");
        for (const auto& p : s.percentiles) {
            const std::string name = what + "." + servestat::percentile_key(p.p);
            if (!p.value) fail(name + " missing");
            finite(name, p.value);
            if (*p.value < lo - slack || *p.value > hi + slack)
                fail(name + " = " + std::to_string(*p.value) + " outside [" + std::to_string(lo) + ", " +
                     std::to_string(hi) + "]");
        }
    }

    void check(const servestat::run& r) const {
        const auto& m = r.meta;
        for (auto [what, s] : {std::pair{"label", &m.label}, {"started_at", &m.started_at}, {"model", &m.model},
                               {"workload", &m.workload}, {"tool", &m.tool}, {"source.format", &m.source.format}})
            text(what, *s);
        for (const auto& note : m.notes) text("a note", note);
        for (const auto& v : m.reported) {
            text("a reported value's name", v.name);
            text("a reported value's unit", v.unit);
            if (std::isnan(v.value)) fail("reported value " + v.name + " is NaN");
        }
        for (const auto& e : r.skipped.examples) text("a skipped line's message", e);
        if (r.skipped.examples.size() > std::min(r.skipped.count, r.skipped.max_examples))
            fail("more skipped examples than skipped lines");
        json_text(m.params);

        const auto& t = r.requests;
        const std::size_t n = t.size();
        if (t.t_sched().size() != n || t.t_sent().size() != n || t.t_first().size() != n || t.t_end().size() != n ||
            t.prompt_tokens().size() != n || t.output_tokens().size() != n || t.max_tokens().size() != n ||
            t.http_status().size() != n)
            fail("columns of different lengths");
        for (auto column : {t.server_queue(), t.server_prefill(), t.server_decode(), t.server_ttft(), t.server_itl(),
                            t.server_spec_acceptance(), t.server_draft_acceptance()})
            if (!column.empty() && column.size() != n) fail("an optional column of the wrong length");
        for (double x : t.server_spec_acceptance())
            if (servestat::is_present(x) && !(x >= 1 && x <= servestat::max_acceptance_length))
                fail("an acceptance length below 1 or past its bound");
        for (double x : t.server_draft_acceptance())
            if (servestat::is_present(x) && !(x >= 0 && x <= 1)) fail("an acceptance rate outside 0 to 1");
        for (std::size_t i = 0; i < n; ++i) {
            for (auto column : {t.prompt_tokens(), t.output_tokens(), t.max_tokens()})
                if (column[i] < servestat::absent_count) fail("a negative token count");
            for (auto column : {t.t_sched(), t.t_sent(), t.t_first(), t.t_end()})
                if (std::isinf(column[i])) fail("an infinite time in row " + std::to_string(i));
            text("an error text", t.error(i));
            for (double g : t.itl(i))
                if (!std::isfinite(g) || g < 0) fail("a chunk gap that is negative or not finite");
        }

        const servestat::run_stats s = servestat::analyze(r);
        if (s.requests != n || s.ok + s.failed != s.requests) fail("request counts inconsistent");
        finite("duration", s.duration, true);
        if (s.duration && *s.duration <= 0) fail("duration not positive");
        finite("rps", s.rps, true);
        finite("output_tps", s.output_tps, true);
        finite("total_tps", s.total_tps, true);
        if (s.peak_concurrency && *s.peak_concurrency > n) fail("peak concurrency above the request count");
        std::size_t errors = 0;
        for (const auto& e : s.errors) errors += e.count;
        if (errors > s.failed) fail("more classified errors than failed requests");
        stats("prompt_tokens", s.prompt_tokens);
        stats("output_tokens", s.output_tokens);
        if (s.arrivals) {
            if (s.arrivals->count > n) fail("more arrivals than requests");
            finite("arrivals.span", s.arrivals->span, true);
            finite("arrivals.rate", s.arrivals->rate, true);
            stats("arrivals.gaps", s.arrivals->gaps);
        }
        for (const auto& sub : s.subsets) {
            if (sub.n > s.ok) fail("subset " + sub.name + " has more ok requests than the run");
            for (const auto& ms : sub.metrics) stats(sub.name + "." + std::string(servestat::to_string(ms.of)), ms.stats);
        }
        for (const auto& sub : s.time_breakdown.subsets) finite("breakdown mean_share", sub.mean_share, true);
    }
};

} // namespace

void check_runs(std::string_view target, const std::vector<servestat::run>& runs) {
    for (std::size_t i = 0; i < runs.size(); ++i) {
        run_checker c{target, "run " + std::to_string(i)};
        try {
            c.check(runs[i]);
        } catch (...) {
            escaped(target);
        }
    }
}

// ---- CSV records -------------------------------------------------------------------------------

namespace {

struct csv_result {
    std::vector<servestat::detail::csv_record> records;
    std::optional<std::string> error;
};

csv_result read_csv(servestat::detail::csv_reader& csv, std::size_t max_record) {
    constexpr std::string_view target = "csv";
    csv_result out;
    try {
        csv.read_header();
        out.records.push_back({csv.header(), csv.header_line()});
        servestat::detail::csv_record r;
        for (;;) {
            try {
                if (!csv.next(r)) break;
            } catch (const servestat::input_error& e) {
                if (!csv.can_continue()) throw;
                out.records.push_back({{"<skipped>", e.what()}, 0});
                continue;
            }
            std::size_t bytes = 0;
            for (const auto& f : r.fields) bytes += f.size();
            if (bytes > max_record) violation(target, "a record over max_record_bytes was returned");
            out.records.push_back(r);
            // Every typed cell accessor on every column of the first records: parses or names the file.
            for (std::size_t c = 0; out.records.size() <= 64 && c < r.fields.size(); ++c) {
                const servestat::detail::csv_row row(csv.name(), r, csv.header());
                auto guard = [&](auto&& f) {
                    try {
                        f();
                    } catch (const servestat::input_error& e) {
                        if (e.file() != csv.name()) violation(target, "a cell error without the file name");
                    }
                };
                guard([&] { (void)row.number(c); });
                guard([&] { (void)row.optional_duration(c); });
                guard([&] {
                    if (const auto n = row.count(c); n && *n < 0) violation(target, "negative count accepted");
                });
                guard([&] { (void)row.boolean(c); });
                guard([&] {
                    if (const auto h = row.http_status(c); h && (*h < 100 || *h > 599)) violation(target, "bad HTTP status accepted");
                });
            }
        }
    } catch (const servestat::input_error& e) {
        if (e.file() != csv.name()) violation(target, "input_error without the file name");
        out.error = e.what();
    } catch (...) {
        escaped(target);
    }
    return out;
}

} // namespace

// The same bytes through the file reader (chunks of 3 to 34 bytes, so records straddle refills) and
// the in-memory reader must give the same records and the same error.
int csv_records(const std::uint8_t* data, std::size_t size) {
    if (size > max_input_bytes) return 0;
    const std::string_view bytes = as_text(data, size);
    const std::string& path = memory_file(bytes);
    const std::size_t max_record = 512, chunk = 3 + size % 32;
    csv_result from_file, from_memory;
    try {
        servestat::detail::csv_reader file(path, max_record, chunk);
        from_file = read_csv(file, max_record);
        servestat::detail::csv_reader memory(bytes, path, max_record);
        from_memory = read_csv(memory, max_record);
    } catch (const servestat::input_error& e) {
        if (e.file() != path) violation("csv", "input_error without the file name");
        return 0;
    } catch (...) {
        escaped("csv");
    }
    if (from_file.error != from_memory.error)
        violation("csv", "file and in-memory readers disagree on the error: '" + from_file.error.value_or("none") +
                             "' vs '" + from_memory.error.value_or("none") + "'");
    if (from_file.records.size() != from_memory.records.size())
        violation("csv", "file and in-memory readers disagree on the number of records");
    for (std::size_t i = 0; i < from_file.records.size(); ++i)
        if (from_file.records[i].fields != from_memory.records[i].fields ||
            from_file.records[i].line != from_memory.records[i].line)
            violation("csv", "file and in-memory readers disagree on record " + std::to_string(i));
    return 0;
}

// ---- Prometheus text ----------------------------------------------------------------------------

namespace {

void check_scrape(const servestat::prometheus_scrape& s) {
    constexpr std::string_view target = "prometheus_text";
    for (const auto& [name, les] : s.buckets) {
        std::optional<servestat::prometheus_histogram> h;
        try {
            h = s.histogram(name);
        } catch (const servestat::input_error& e) {
            if (e.file() != s.file) violation(target, "histogram error without the file name");
            continue;
        }
        if (!h) violation(target, "a histogram with buckets not found");
        double lowest = 0, highest = -std::numeric_limits<double>::infinity();
        bool counts_finite = true;
        for (const auto& b : h->buckets) {
            lowest = std::min(lowest, b.le);
            if (std::isfinite(b.le)) highest = std::max(highest, b.le);
            counts_finite = counts_finite && std::isfinite(b.count);
        }
        for (double q : {0.0, 0.25, 0.5, 0.9, 0.99, 1.0}) {
            const auto x = servestat::histogram_quantile(q, *h);
            if (!x) continue;
            if (std::isnan(*x)) violation(target, "histogram_quantile gave NaN");
            if (counts_finite && std::isfinite(lowest) && std::isfinite(*x) &&
                (*x < lowest - 1e-9 * std::abs(lowest) || *x > highest + 1e-9 * std::abs(highest)))
                violation(target, "histogram_quantile(" + std::to_string(q) + ") = " + std::to_string(*x) +
                                      " outside the buckets' bounds");
        }
    }
}

} // namespace

// The whole text as the after scrape, its first half (cut at a line end) as the before scrape.
int prometheus_text(const std::uint8_t* data, std::size_t size) {
    constexpr std::string_view target = "prometheus_text";
    if (size > max_input_bytes) return 0;
    const std::string_view text = as_text(data, size);
    const std::string file = "scrape.prom";
    try {
        const auto after = servestat::parse_prometheus_text(text, file);
        check_scrape(after);
        const auto cut = text.find('\n', text.size() / 2);
        const auto before = servestat::parse_prometheus_text(text.substr(0, cut == std::string_view::npos ? text.size() : cut + 1), file);
        const auto delta = servestat::scrape_difference(before, after);
        check_scrape(delta.values);
        for (const auto& v : servestat::detail::scraped_reported(delta.values))
            if (!valid_utf8(v.name)) violation(target, "reported name not UTF-8");
        const auto same = servestat::scrape_difference(after, after);
        if (same.restarted) violation(target, "a scrape compared with itself counts as a restart");
    } catch (const servestat::input_error& e) {
        if (e.file() != file) violation(target, std::string("input_error without the file name: ") + e.what());
    } catch (...) {
        escaped(target);
    }
    return 0;
}

// ---- YAML documents ---------------------------------------------------------------------------

// Whether a value holds a non-finite number (.inf, .nan), which JSON text cannot carry back.
bool has_non_finite(const nlohmann::json& v) {
    if (v.is_number_float()) return !std::isfinite(v.get<double>());
    if (v.is_structured())
        for (const auto& item : v)
            if (has_non_finite(item)) return true;
    return false;
}

std::size_t depth_of(const nlohmann::json& v) {
    std::size_t deepest = 0;
    if (v.is_structured())
        for (const auto& item : v) deepest = std::max(deepest, depth_of(item));
    return v.is_structured() ? deepest + 1 : 0;
}

// A YAML stream becomes JSON values or one input_error naming the file; each value is nested no
// deeper than max_json_depth, and one of valid UTF-8 with finite numbers survives JSON text unchanged
// (the readers' JSON path and YAML path see the same value).
int yaml_document(const std::uint8_t* data, std::size_t size) {
    constexpr std::string_view target = "yaml_document";
    if (size > max_input_bytes) return 0;
    const std::string file = "report.yaml";
    try {
        const auto documents = servestat::detail::parse_yaml_documents(file, as_text(data, size));
        if (documents.empty()) violation(target, "no document and no error");
        for (const auto& d : documents) {
            if (depth_of(d.value) > static_cast<std::size_t>(servestat::detail::max_json_depth))
                violation(target, "a value nested deeper than max_json_depth");
            if (d.place.line == 0) violation(target, "a document without its line");
            if (has_non_finite(d.value)) continue;
            std::string text;
            try {
                text = d.value.dump();
            } catch (const nlohmann::json::type_error&) {
                continue; // a string that is not UTF-8: YAML allows none either, but yaml-cpp passes it on
            }
            if (nlohmann::json::parse(text) != d.value) violation(target, "the value changed through JSON text");
        }
    } catch (const servestat::input_error& e) {
        if (e.file() != file) violation(target, std::string("input_error without the file name: ") + e.what());
    } catch (...) {
        escaped(target);
    }
    return 0;
}

// ---- the canonical log's fast line path -------------------------------------------------------

// The fast path and the simdjson path read every line alike: the same error, or the same record.
// The input's lines are read by one parser, in order, so each meets the keys the fast path
// remembered from the lines before it.
int canonical_line(const std::uint8_t* data, std::size_t size) {
    constexpr std::string_view target = "canonical_line";
    if (size > max_input_bytes) return 0;
    const std::string_view text = as_text(data, size);
    try {
        servestat::detail::canonical_line_parser parser;
        for (std::size_t begin = 0; begin <= text.size();) {
            const std::size_t end = std::min(text.find('\n', begin), text.size());
            std::string padded(text.substr(begin, end - begin));
            const std::size_t length = padded.size();
            padded.resize(length + 64, ' ');
            const std::string_view line(padded.data(), length);
            servestat::request_record both, slow;
            const auto a = parser.parse(line, 64, both);
            const auto b = parser.parse_slowly(line, 64, slow);
            if (a.has_value() != b.has_value()) violation(target, a ? "only the simdjson path read the line" : "only the fast path read the line");
            if (a && (a->field != b->field || a->message != b->message))
                violation(target, "different errors: '" + a->field + ": " + a->message + "' and '" + b->field + ": " + b->message + "'");
            if (!a && !servestat::identical(both, slow)) violation(target, "the two paths read different records");
            begin = end + 1;
        }
    } catch (...) {
        escaped(target);
    }
    return 0;
}

// ---- summary files ----------------------------------------------------------------------------

// A summary file reads, or is an input error naming the file. One that reads writes out to a text
// that reads back to itself, merges with itself, and gives statistics and their JSON.
int summary_file(const std::uint8_t* data, std::size_t size) {
    constexpr std::string_view target = "summary_file";
    if (size > max_input_bytes) return 0;
    try {
        const std::string path = memory_file(as_text(data, size));
        std::optional<servestat::run_summary> read;
        try {
            read = servestat::read_summary_file(path);
        } catch (const servestat::input_error& e) {
            if (e.file() != path) violation(target, "input_error names the file '" + e.file() + "', not '" + path + "'");
            return 0;
        }
        const std::string text = servestat::summary_file_text(*read);
        const std::string again = servestat::summary_file_text(servestat::read_summary_file(memory_file(text)));
        if (again != text) violation(target, "a summary written out does not read back to itself");
        servestat::run_summary twice = *read;
        servestat::merge(twice, *read);
        if (twice.stats.requests() != 2 * read->stats.requests()) violation(target, "merging a summary with itself lost requests");
        servestat::stats_options o;
        o.summary.percentiles = {0, 50, 99.9, 100};
        const auto stats = twice.stats.result(twice.meta, twice.skipped, o.summary);
        const std::vector<servestat::run_stats> runs{stats};
        (void)servestat::stats_document(runs, o).dump();
    } catch (...) {
        escaped(target);
    }
    return 0;
}

// ---- ISO times and file-name parameters ------------------------------------------------------

// parse_iso_utc never throws; what it accepts prints back (iso_utc) and reads again to the same instant.
int iso_time(const std::uint8_t* data, std::size_t size) {
    constexpr std::string_view target = "iso_time";
    if (size > 256) return 0;
    try {
        const auto ns = servestat::detail::parse_iso_utc(as_text(data, size));
        if (!ns) return 0;
        const std::string back = servestat::detail::iso_utc(*ns, 9);
        const auto again = servestat::detail::parse_iso_utc(back);
        if (!again || *again != *ns)
            violation(target, "'" + back + "' does not read back to " + std::to_string(*ns));
    } catch (...) {
        escaped(target);
    }
    return 0;
}

// Any stem gives an object of finite numbers under known keys, with valid UTF-8 text.
int file_name_params(const std::uint8_t* data, std::size_t size) {
    constexpr std::string_view target = "file_name_params";
    if (size > 4096) return 0;
    try {
        const nlohmann::json params = servestat::params_from_file_name(as_text(data, size));
        if (!params.is_object()) violation(target, "params are not an object");
        for (const auto& [key, value] : params.items()) {
            if (!valid_utf8(key)) violation(target, "a key is not valid UTF-8");
            if (value.is_number_float() && !std::isfinite(value.get<double>())) violation(target, "a non-finite number");
            if (value.is_string() && !valid_utf8(value.get_ref<const std::string&>())) violation(target, "a value is not UTF-8");
        }
        (void)params.dump(); // throws on invalid UTF-8: what the JSON output would meet
    } catch (...) {
        escaped(target);
    }
    return 0;
}

} // namespace servestat_fuzz
