// Reader for request logs that no built-in format knows: the user maps the file's own fields onto
// servestat's (`--map ttft=TTFT:ms,e2e=response_time:s,t_sent=start:epoch_s`) and may say which
// requests succeeded (`--ok-if 'error_code=='`); mapping_spec.hpp parses both into a mapping_spec.
// Reads CSV, a JSON document holding an array of request objects, or JSON Lines, told apart by
// content. Every name mapped must be in the file (mapped_sources.hpp); a mapped tpot gives the end.
#pragma once

#include <algorithm>        // std::any_of, std::find_if
#include <array>            // std::array
#include <atomic>           // std::atomic
#include <charconv>         // std::from_chars
#include <cmath>            // std::isfinite, std::isnan, std::floor, std::llround
#include <cstddef>          // std::size_t
#include <cstdint>          // std::int32_t, std::int64_t, std::uint64_t
#include <filesystem>       // std::filesystem::path
#include <initializer_list> // std::initializer_list
#include <iterator>         // std::make_move_iterator
#include <limits>           // std::numeric_limits
#include <optional>         // std::optional
#include <string>           // std::string
#include <string_view>      // std::string_view
#include <system_error>     // std::errc
#include <tuple>            // std::tuple
#include <utility>          // std::move, std::exchange
#include <vector>           // std::vector

#include <nlohmann/json.hpp> // nlohmann::json

#include "servestat/core/errors.hpp"            // input_error
#include "servestat/core/request_record.hpp"    // request_record, max_seconds, max_acceptance_length
#include "servestat/core/request_status.hpp"    // request_status, parse_request_status
#include "servestat/core/run.hpp"               // run
#include "servestat/core/iso_time.hpp"          // iso_utc
#include "servestat/core/text.hpp"              // trim_spaces, equals_ignoring_case, shortest_number
#include "servestat/core/units.hpp"             // time_unit, to_seconds
#include "servestat/ingest/csv.hpp"             // csv_reader, csv_row, for_each_csv_row, quote_cell
#include "servestat/ingest/csv_pieces.hpp"      // csv_piece_ranges, read_csv_pieces
#include "servestat/ingest/failure_text.hpp"    // classify_failure_text, leading_http_status
#include "servestat/ingest/input_file.hpp"      // read_input_head
#include "servestat/ingest/json_document.hpp"   // parse_json_documents, read_json_file, first_json_char
#include "servestat/ingest/line_source.hpp"     // line_source, plan_pieces
#include "servestat/core/parallel.hpp"          // parallel_for, resolve_threads
#include "servestat/ingest/mapped_sources.hpp"  // json_at, source_presence, header_columns
#include "servestat/ingest/mapping_spec.hpp"    // mapping_spec, field_mapping, ok_rule, mapped_targets
#include "servestat/ingest/reader.hpp"          // read_options

namespace servestat {
namespace detail {

inline constexpr std::string_view mapped_format_name = "mapped";

// ---- values as the file holds them -------------------------------------------------------------

// A number as the file wrote it: integers exactly (epoch nanoseconds have 19 digits, more than a
// double holds), anything else as a double.
struct raw_number {
    bool is_integer = false;
    std::int64_t integer = 0;
    double real = 0;

    long double wide() const noexcept {
        return is_integer ? static_cast<long double>(integer) : static_cast<long double>(real);
    }
    double value() const noexcept { return is_integer ? static_cast<double>(integer) : real; }
};

// "42" → integer 42, "4.2e1" → 42.0, "abc" → nullopt; "nan" and "inf" parse (callers decide).
inline std::optional<raw_number> parse_number_text(std::string_view text) {
    text = trim_spaces(text);
    if (text.starts_with('+')) text.remove_prefix(1);
    if (text.empty()) return std::nullopt;
    const char* end = text.data() + text.size();
    raw_number n;
    if (auto [p, ec] = std::from_chars(text.data(), end, n.integer); ec == std::errc() && p == end) {
        n.is_integer = true;
        return n;
    }
    if (auto [p, ec] = std::from_chars(text.data(), end, n.real); ec == std::errc() && p == end) return n;
    return std::nullopt;
}

inline std::optional<raw_number> json_raw_number(const nlohmann::json& v) {
    raw_number n;
    if (v.is_number_unsigned()) {
        const auto u = v.get<std::uint64_t>();
        n.is_integer = u <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
        if (n.is_integer) n.integer = static_cast<std::int64_t>(u);
        else n.real = static_cast<double>(u);
    } else if (v.is_number_integer()) {
        n.is_integer = true;
        n.integer = v.get<std::int64_t>();
    } else if (v.is_number_float()) {
        n.real = v.get<double>();
    } else {
        return std::nullopt;
    }
    return n;
}

inline bool numbers_equal(const raw_number& a, const raw_number& b) {
    if (a.is_integer && b.is_integer) return a.integer == b.integer;
    return a.wide() == b.wide();
}

inline long double wide_seconds(const raw_number& n, time_unit u) {
    switch (u) {
    case time_unit::s: return n.wide();
    case time_unit::ms: return n.wide() / 1e3L;
    case time_unit::us: return n.wide() / 1e6L;
    case time_unit::ns: return n.wide() / 1e9L;
    }
    return n.wide();
}

// a − b in seconds. In one unit the difference is taken on the values as written (exactly, for
// integers), and only then scaled, so two epoch-ns stamps 1 ns apart stay 1e-9 s apart.
inline double seconds_between(const raw_number& a, time_unit ua, const raw_number& b, time_unit ub) {
    if (ua != ub) return static_cast<double>(wide_seconds(a, ua) - wide_seconds(b, ub));
    if (a.is_integer && b.is_integer && (a.integer >= 0) == (b.integer >= 0))
        return to_seconds(static_cast<double>(a.integer - b.integer), ua);
    return to_seconds(static_cast<double>(a.wide() - b.wide()), ua);
}

inline std::string seconds_text(double s) { return shortest_number(s).append(" s"); }

// Seconds since 1970 as ISO 8601 UTC, rounded to the microsecond (a double holds no more).
inline std::string iso_utc_micros(long double epoch_seconds) {
    return iso_utc(static_cast<std::int64_t>(std::llround(epoch_seconds * 1e6L)) * 1000, 6);
}

// Wall-clock stamps must fall in 1990..2200: a stamp outside is almost surely read in the wrong
// unit (epoch seconds read as epoch_ms land in January 1970), which would scale every latency.
inline constexpr long double earliest_wall_clock = 631152000.0L; // 1990-01-01T00:00:00Z
inline constexpr long double latest_wall_clock = 7258118400.0L;  // 2200-01-01T00:00:00Z

// One field of one request as the file holds it: a JSON value, a CSV cell, or nothing.
struct raw_field {
    const nlohmann::json* json = nullptr;
    std::string_view cell;
    bool is_cell = false;

    bool present() const noexcept { return json != nullptr || is_cell; }

    // Absent, null, an empty string or an empty cell.
    bool empty() const {
        if (is_cell) return trim_spaces(cell).empty();
        if (!json || json->is_null()) return true;
        return json->is_string() && trim_spaces(json->get_ref<const std::string&>()).empty();
    }

    std::string text() const {
        if (is_cell) return std::string(cell);
        if (!json || json->is_null()) return {};
        if (json->is_string()) return json->get<std::string>();
        return json->dump();
    }

    std::string shown() const { return quote_cell(text()); }
};

// Where a request came from: the file, the line (a CSV record's or JSONL line's; a JSON
// document's first line) and, in a JSON document, the request's path ("results[12].").
struct record_place {
    std::string file;
    std::size_t line = 0;
    std::string prefix;
    std::string hint; // added to "missing" when the record looks like the wrong level of a document

    [[noreturn]] void fail(const std::string& field, const std::string& why) const {
        throw input_error(file, line, prefix + field, why);
    }
};

inline std::string field_label(const field_mapping& f) {
    return std::string(f.source).append(" (").append(target_name(f.target)).append(")");
}

// Reads one mapped field of one request, failing with the file, line and `source (target)`.
class field_reader {
public:
    field_reader(const field_mapping& f, raw_field v, const record_place& place) : f_(f), v_(v), place_(place) {}

    [[noreturn]] void fail(const std::string& why) const { place_.fail(field_label(f_), why); }

    // A number, or nullopt when empty; NaN (pandas' missing value) is absent too.
    std::optional<raw_number> number() const {
        if (v_.empty()) return std::nullopt;
        std::optional<raw_number> n;
        if (v_.is_cell) n = parse_number_text(v_.cell);
        else if (v_.json->is_string()) n = parse_number_text(v_.json->get_ref<const std::string&>());
        else if (v_.json->is_number()) n = json_raw_number(*v_.json);
        else fail(std::string("expected a number, got ") + v_.json->type_name() + " " + v_.shown());
        if (!n) fail("not a number: " + v_.shown());
        if (!n->is_integer && std::isnan(n->real)) return std::nullopt;
        return n;
    }

    std::optional<double> duration() const {
        const auto n = number();
        if (!n) return std::nullopt;
        const double x = n->value();
        if (!std::isfinite(x) || x < 0) fail("must be a finite number >= 0, got " + v_.shown());
        return to_seconds(x, f_.unit);
    }

    // A number that is no time (so no unit scales it), within [low, high].
    std::optional<double> bounded(double low, double high) const {
        const auto n = number();
        if (!n) return std::nullopt;
        const double x = n->value();
        if (!(x >= low && x <= high))
            fail("must be a number from " + shortest_number(low) + " to " + shortest_number(high) + ", got " + v_.shown());
        return x;
    }

    std::optional<raw_number> timestamp() const {
        const auto n = number();
        if (!n) return std::nullopt;
        if (!n->is_integer && !std::isfinite(n->real)) fail("not a finite number: " + v_.shown());
        if (f_.epoch) check_wall_clock(*n);
        return n;
    }

    std::optional<std::int32_t> count() const {
        const auto n = number();
        if (!n) return std::nullopt;
        const long double x = n->wide();
        if (!n->is_integer && (!std::isfinite(n->real) || n->real != std::floor(n->real)))
            fail("not a whole number: " + v_.shown());
        if (x < 0) fail("must not be negative, got " + v_.shown());
        if (x > std::numeric_limits<std::int32_t>::max()) fail("too large: " + v_.shown());
        return static_cast<std::int32_t>(x);
    }

    std::optional<std::int32_t> http_status() const {
        const auto n = number();
        if (!n) return std::nullopt;
        const long double code = n->wide();
        if (code < 100 || code > 599 || code != std::floor(code)) fail("not an HTTP status code: " + v_.shown());
        return static_cast<std::int32_t>(code);
    }

    std::optional<request_status> status() const {
        if (v_.empty()) return std::nullopt;
        if (!v_.is_cell && !v_.json->is_string())
            fail(std::string("expected a status string, got ") + v_.json->type_name());
        const std::string text(trim_spaces(v_.text()));
        for (const std::string_view name : {"ok", "error", "timeout", "transport", "cancelled"})
            if (equals_ignoring_case(text, name)) return parse_request_status(name);
        fail("unknown status " + v_.shown() + " (expected ok, error, timeout, transport or cancelled; "
             "or say which requests succeeded with --ok-if)");
    }

    // A JSON array of gaps; in a CSV cell, the array written as JSON text ("[0.021, 0.019]").
    void gaps(std::vector<double>& out) const {
        if (v_.empty()) return;
        nlohmann::json parsed;
        const nlohmann::json* array = v_.json;
        if (v_.is_cell) {
            parsed = parse_embedded_json(v_.cell);
            array = &parsed;
        }
        if (!array->is_array())
            fail("expected an array of gaps, got " +
                 std::string(v_.is_cell && parsed.is_discarded() ? "text" : array->type_name()) + " " + v_.shown());
        for (std::size_t i = 0; i < array->size(); ++i) {
            const nlohmann::json& gap = (*array)[i];
            if (!gap.is_number() || !std::isfinite(gap.get<double>()) || gap.get<double>() < 0)
                fail("gap [" + std::to_string(i) + "] must be a finite number >= 0, got " + quote_cell(gap.dump()));
            out.push_back(to_seconds(gap.get<double>(), f_.unit));
        }
    }

    std::string text() const { return v_.text(); }

private:
    void check_wall_clock(const raw_number& n) const {
        const long double s = wide_seconds(n, f_.unit);
        if (s >= earliest_wall_clock && s < latest_wall_clock) return;
        std::string why = v_.shown() + " read as epoch_" + std::string(servestat::to_string(f_.unit)) + " is ";
        if (s > -max_unix_seconds && s < max_unix_seconds) why += iso_utc_micros(s) + ", ";
        fail(why + "not a plausible wall-clock time (1990 to 2200): is the unit right?");
    }

    const field_mapping& f_;
    raw_field v_;
    const record_place& place_;
};

inline bool rule_holds(const ok_rule& rule, const raw_field& v) {
    bool equal = false;
    if (v.empty()) {
        equal = rule.value.empty();
    } else if (!rule.value.empty()) {
        std::optional<raw_number> field_number;
        if (v.is_cell) field_number = parse_number_text(v.cell);
        else if (v.json->is_number()) field_number = json_raw_number(*v.json);
        else if (v.json->is_string()) field_number = parse_number_text(v.json->get_ref<const std::string&>());
        const auto rule_number = parse_number_text(rule.value);
        const auto usable = [](const std::optional<raw_number>& n) { return n && !std::isnan(n->value()); };
        if (usable(field_number) && usable(rule_number)) equal = numbers_equal(*field_number, *rule_number);
        else equal = trim_spaces(v.text()) == rule.value;
    }
    return rule.op == ok_operator::equal ? equal : !equal;
}

// Times are first placed on a provisional clock whose 0 is the first stamp read, so each stays a
// small double; the run's clock (0 = the earliest t_sent) is a shift applied once all are read.
class provisional_clock {
public:
    double seconds(const raw_number& v, time_unit u) {
        if (!base_) {
            base_ = v;
            unit_ = u;
        }
        return seconds_between(v, u, *base_, unit_);
    }
    std::optional<long double> base_seconds() const {
        return base_ ? std::optional<long double>(wide_seconds(*base_, unit_)) : std::nullopt;
    }

private:
    std::optional<raw_number> base_;
    time_unit unit_ = time_unit::s;
};

// Reads requests through a mapping; the input kind supplies each record's fields.
class mapped_run_builder {
public:
    mapped_run_builder(const mapping_spec& spec, const std::filesystem::path& file) : spec_(spec), file_(file) {
        for (std::size_t i = 0; i < spec.fields.size(); ++i)
            index_[static_cast<std::size_t>(spec.fields[i].target)] = i;
        shared_clock_ = std::any_of(spec.fields.begin(), spec.fields.end(), [](const field_mapping& f) {
            return info(f.target).kind == target_kind::timestamp;
        });
    }

    // `field(i)` gives the raw value of spec.fields[i], `rule(i)` that of spec.ok_if[i].
    template <class Access>
    void add(const Access& access, const record_place& place) {
        record_.clear();
        read_record(access, place, record_);
        records_.push_back(record_);
    }

    // Whether the provisional clock has its 0 (or the mapping has no timestamps to put on it).
    bool clock_set() const { return !shared_clock_ || clock_.base_seconds().has_value(); }
    // The clock of another builder of the same mapping: pieces of a file read side by side put
    // their times on the one clock that a single reader would have set.
    void use_clock_of(const mapped_run_builder& other) { clock_ = other.clock_; }
    // The requests `piece` read, after these.
    void append(mapped_run_builder&& piece) {
        records_.insert(records_.end(), std::make_move_iterator(piece.records_.begin()),
                        std::make_move_iterator(piece.records_.end()));
        piece.records_ = {};
    }
    std::size_t size() const { return records_.size(); }

    run finish(std::string label, skipped_lines skipped) {
        run out;
        out.meta.label = std::move(label);
        out.meta.source = {file_.string(), std::string(mapped_format_name)};
        out.meta.shared_clock = shared_clock_;
        out.skipped = std::move(skipped);
        const double shift = run_origin();
        out.requests.reserve(records_.size());
        for (request_record& r : records_) {
            for (auto* t : {&r.t_sched, &r.t_sent, &r.t_first, &r.t_end})
                if (*t) **t -= shift;
            out.requests.push_back(r);
        }
        write_notes(out.meta, shift);
        return out;
    }

private:
    std::optional<std::size_t> index(mapped_target t) const { return index_[static_cast<std::size_t>(t)]; }

    template <class Access>
    std::optional<field_reader> field(const Access& access, mapped_target t, const record_place& place) {
        const auto i = index(t);
        if (!i) return std::nullopt;
        return field_reader(spec_.fields[*i], access.field(*i), place);
    }

    [[noreturn]] void missing(mapped_target t, const record_place& place, const std::string& why = "missing") const {
        place.fail(field_label(spec_.fields[*index(t)]), why + place.hint);
    }

    template <class Access>
    bool decide_ok(const Access& access, const std::optional<request_status>& stated, const request_record& r) {
        if (!spec_.ok_if.empty()) {
            bool ok = true;
            for (std::size_t i = 0; i < spec_.ok_if.size(); ++i) {
                ok = ok && rule_holds(spec_.ok_if[i], access.rule(i));
            }
            return ok;
        }
        if (stated) return *stated == request_status::ok;
        // An error text or a non-2xx status each mean failure: a 500 with an empty message failed too.
        const bool error_free = !index(mapped_target::error) || trim_spaces(r.error).empty();
        const bool status_ok = !r.http_status || (*r.http_status >= 200 && *r.http_status < 300);
        return error_free && status_ok;
    }

    template <class Access>
    void read_record(const Access& access, const record_place& place, request_record& r) {
        using enum mapped_target;
        if (auto f = field(access, error, place)) r.error = f->text();
        if (auto f = field(access, http_status, place)) r.http_status = f->http_status();
        std::optional<request_status> stated;
        if (auto f = field(access, status, place)) stated = f->status();
        if (decide_ok(access, stated, r)) {
            r.status = request_status::ok;
        } else if (stated && *stated != request_status::ok) {
            r.status = *stated;
            if (!r.http_status) r.http_status = leading_http_status(r.error);
        } else {
            const failure_class failure = classify_failure_text(r.error, r.http_status);
            r.status = failure.status;
            r.http_status = failure.http_status;
        }
        if (auto f = field(access, prompt_tokens, place)) r.prompt_tokens = f->count();
        if (auto f = field(access, output_tokens, place)) r.output_tokens = f->count();
        if (auto f = field(access, max_tokens, place)) r.max_tokens = f->count();
        if (auto f = field(access, server_queue, place)) r.server_queue = f->duration();
        if (auto f = field(access, server_prefill, place)) r.server_prefill = f->duration();
        if (auto f = field(access, server_decode, place)) r.server_decode = f->duration();
        if (auto f = field(access, server_ttft, place)) r.server_ttft = f->duration();
        if (auto f = field(access, server_itl, place)) r.server_itl = f->duration();
        // A verification step yields at least its bonus token; a rate is a share.
        if (auto f = field(access, server_spec_acceptance, place))
            r.server_spec_acceptance = f->bounded(1, max_acceptance_length);
        if (auto f = field(access, server_draft_acceptance, place)) r.server_draft_acceptance = f->bounded(0, 1);
        if (auto f = field(access, itl, place)) f->gaps(r.itl);
        read_times(access, place, r);
    }

    template <class Access>
    std::optional<double> stamp(const Access& access, mapped_target t, const record_place& place) {
        const auto f = field(access, t, place);
        if (!f) return std::nullopt;
        const auto n = f->timestamp();
        if (!n) return std::nullopt;
        const field_mapping& m = spec_.fields[*index(t)];
        return clock_.seconds(*n, m.unit);
    }

    template <class Access>
    std::optional<double> span(const Access& access, mapped_target t, const record_place& place) {
        const auto f = field(access, t, place);
        return f ? f->duration() : std::nullopt;
    }

    // Timestamps go on the provisional clock; durations place the missing ones relative to t_sent.
    template <class Access>
    void read_times(const Access& access, const record_place& place, request_record& r) {
        using enum mapped_target;
        std::optional<double> sent = shared_clock_ ? stamp(access, t_sent, place) : std::optional<double>(0.0);
        std::optional<double> sched = stamp(access, t_sched, place);
        std::optional<double> first = stamp(access, t_first, place);
        std::optional<double> end = stamp(access, t_end, place);
        const auto ttft_span = span(access, ttft, place), e2e_span = span(access, e2e, place),
                   decode_span = span(access, decode, place), queue_span = span(access, client_queue, place),
                   tpot_span = span(access, tpot, place);
        if (!sent && sched && queue_span) sent = *sched + *queue_span;
        if (!sched && sent && queue_span) sched = *sent - *queue_span;
        if (!first && sent && ttft_span) first = *sent + *ttft_span;
        if (!end && sent && e2e_span) end = *sent + *e2e_span;
        if (!end && first && decode_span) end = *first + *decode_span;
        // servestat's tpot is decode / (output_tokens - 1): the end that makes it equal the tool's.
        const bool tpot_defined = r.output_tokens && *r.output_tokens > 1;
        if (!end && first && tpot_span && tpot_defined) end = *first + *tpot_span * (*r.output_tokens - 1);

        check_order(place, sched, sent, first, end, ttft_span, e2e_span);
        if (r.status == request_status::ok) {
            if (!sent) missing(index(t_sent) ? t_sent : !sched ? t_sched : client_queue, place);
            if (!end) {
                if ((index(decode) && decode_span) || (index(tpot) && tpot_span && tpot_defined))
                    missing(index(ttft) ? ttft : t_first, place,
                            std::string("missing (") + (index(decode) ? "decode" : "tpot") +
                                " needs the first-token time)");
                if (index(tpot) && !tpot_defined)
                    missing(tpot, place,
                            "gives no end when output_tokens is " +
                                (r.output_tokens ? std::to_string(*r.output_tokens) : std::string("missing")) +
                                " (t_end = t_first + tpot * (output_tokens - 1) needs output_tokens > 1)");
                missing(index(t_end) ? t_end : index(e2e) ? e2e : index(decode) ? decode : tpot, place);
            }
        }
        r.t_sched = sched;
        r.t_sent = sent;
        r.t_first = first;
        r.t_end = end;
    }

    void check_order(const record_place& place, std::optional<double> sched, std::optional<double> sent,
                     std::optional<double> first, std::optional<double> end, std::optional<double> ttft_span,
                     std::optional<double> e2e_span) const {
        using enum mapped_target;
        const auto label = [&](mapped_target t) { return field_label(spec_.fields[*index(t)]); };
        // Two finite times can be an infinite span apart (-1.7e308 and 1.7e308).
        for (const auto& [a, b, at] : {std::tuple{sched, sent, t_sched}, {sent, first, t_first}, {sent, end, t_end},
                                       {first, end, t_end}})
            if (a && b && !(std::fabs(*b - *a) <= max_seconds))
                place.fail(index(at) ? label(at) : std::string(target_name(at)), "lies " + seconds_text(*b - *a) + " from the time before it: not a span "
                                      "servestat can use (at most ±1e12 s; is the unit right?)");
        if (sched && sent && *sched > *sent)
            place.fail(label(t_sched), "after t_sent: client_queue would be " + seconds_text(*sent - *sched));
        if (first && sent && *first < *sent)
            place.fail(label(t_first), "before t_sent: ttft would be " + seconds_text(*first - *sent));
        if (end && sent && *end < *sent)
            place.fail(label(index(t_end) ? t_end : index(e2e) ? e2e : index(decode) ? decode : tpot),
                       "before t_sent: e2e would be " + seconds_text(*end - *sent));
        if (first && end && *first > *end) {
            const double shown_ttft = ttft_span ? *ttft_span : sent ? *first - *sent : *first;
            const double shown_e2e = e2e_span ? *e2e_span : sent ? *end - *sent : *end;
            place.fail(label(index(ttft) ? ttft : t_first),
                       sent ? "the first token comes after the end: ttft " + seconds_text(shown_ttft) +
                                  " > e2e " + seconds_text(shown_e2e)
                            : "the first token comes after the end");
        }
    }

    // The shift that puts 0 at the earliest t_sent (the earliest t_sched when no request has one).
    double run_origin() {
        origin_target_ = mapped_target::t_sent;
        std::optional<double> origin;
        for (const auto& r : records_)
            if (r.t_sent && (!origin || *r.t_sent < *origin)) origin = r.t_sent;
        if (!origin) {
            origin_target_ = mapped_target::t_sched;
            for (const auto& r : records_)
                if (r.t_sched && (!origin || *r.t_sched < *origin)) origin = r.t_sched;
        }
        return shared_clock_ ? origin.value_or(0.0) : 0.0;
    }

    void write_notes(run_metadata& meta, double shift) const {
        std::string mapped;
        for (const auto& f : spec_.fields) mapped.append(mapped.empty() ? "" : ", ").append(f.entry);
        if (!spec_.records_source.empty()) mapped.insert(0, "records=" + spec_.records_source + ", ");
        meta.notes.push_back("fields mapped by --map: " + mapped);
        meta.notes.push_back(status_note());
        meta.notes.push_back(clock_note(meta, shift));
        if (const auto i = index(mapped_target::tpot))
            meta.notes.push_back(spec_.fields[*i].entry +
                                 ": each end is t_first + tpot * (output_tokens - 1), so servestat's tpot is the "
                                 "file's and e2e and decode follow from it");
    }

    std::string status_note() const {
        using enum mapped_target;
        if (!spec_.ok_if.empty()) {
            std::string rules;
            for (const auto& r : spec_.ok_if) rules.append(rules.empty() ? "" : " && ").append(r.text);
            return "a request succeeded when --ok-if " + rules + " holds; " +
                   (index(error) ? "a failure is a timeout or transport failure when its error text says so, else an "
                                   "error"
                                 : "a failure counts as an error (map error= to tell timeouts and transport "
                                   "failures apart)");
        }
        const auto source = [&](mapped_target t) { return spec_.fields[*index(t)].source; };
        if (index(status))
            return "status read from " + source(status) + " (ok, error, timeout, transport, cancelled)";
        if (index(error))
            return "a request failed when " + source(error) + " is not empty" +
                   (index(http_status) ? " or " + source(http_status) + " is not a 2xx HTTP status" : std::string()) +
                   "; its text tells a timeout or transport failure from an error";
        if (index(http_status)) return "a request failed when " + source(http_status) + " is not a 2xx HTTP status";
        return "no status, error, http_status or --ok-if given: every request counts as successful";
    }

    std::string clock_note(run_metadata& meta, double shift) const {
        if (!shared_clock_)
            return "no timestamps mapped: every request starts at 0, so duration, rps and token rates cannot be "
                   "derived";
        const auto first_stamp = std::find_if(spec_.fields.begin(), spec_.fields.end(), [](const field_mapping& f) {
            return info(f.target).kind == target_kind::timestamp;
        });
        const std::string zero =
            origin_target_ == mapped_target::t_sent ? "the earliest t_sent" : "the earliest t_sched";
        if (first_stamp->epoch && clock_.base_seconds() &&
            std::fabs(*clock_.base_seconds() + shift) < max_unix_seconds) { // else no date (year 2262 and after)
            meta.started_at = iso_utc_micros(*clock_.base_seconds() + shift);
            return "timestamps are wall-clock (epoch) times; 0 is " + zero + ", " + meta.started_at;
        }
        return "timestamps are on the file's own clock; 0 is " + zero;
    }

    const mapping_spec& spec_;
    std::filesystem::path file_;
    std::array<std::optional<std::size_t>, mapped_targets.size()> index_{};
    bool shared_clock_ = false;
    provisional_clock clock_;
    request_record record_;
    std::vector<request_record> records_;
    mapped_target origin_target_ = mapped_target::t_sent;
};

// ---- the three input kinds ---------------------------------------------------------------------

struct json_access {
    const mapping_spec& spec;
    const nlohmann::json& object;
    raw_field field(std::size_t i) const { return {json_at(object, spec.fields[i].path), {}, false}; }
    raw_field rule(std::size_t i) const { return {json_at(object, spec.ok_if[i].path), {}, false}; }
};

struct csv_access {
    const csv_row& row;
    const std::vector<std::size_t>& field_columns;
    const std::vector<std::size_t>& rule_columns;
    raw_field field(std::size_t i) const { return {nullptr, row.cell(field_columns[i]), true}; }
    raw_field rule(std::size_t i) const { return {nullptr, row.cell(rule_columns[i]), true}; }
};

// The members of a JSON object that are arrays of objects: where requests usually are.
inline std::string arrays_of_objects(const nlohmann::json& object) {
    std::string out;
    if (!object.is_object()) return out;
    for (const auto& [key, value] : object.items())
        if (value.is_array() && !value.empty() && value.front().is_object())
            out.append(out.empty() ? "" : ", ").append(key);
    return out;
}

inline std::string list_keys(const nlohmann::json& object) {
    std::string out;
    std::size_t n = 0;
    for (const auto& [key, value] : object.items()) {
        if (++n > 20) return out + ", ...";
        out.append(out.empty() ? "" : ", ").append(key);
    }
    return out;
}

// The requests of a mapped CSV file read in pieces side by side into `builder` (csv_pieces.hpp), as
// one reader would read them: the provisional clock's 0 is set first by reading rows from the
// start as one reader does, until a timestamp is met; every piece then uses that clock. The rows
// read, or 0 when the file was not read in pieces (too small, no timestamp in the first piece, or
// an error anywhere): then `builder` is to be dropped and the file read on one thread.
template <class AddRow>
std::size_t read_mapped_csv_pieces(const csv_reader& csv, const std::filesystem::path& file, const read_options& options,
                                   mapped_run_builder& builder, AddRow&& add_row) {
    const auto ranges = csv_piece_ranges(csv, file, options);
    if (ranges.size() < 2) return 0;
    try {
        mapped_run_builder probe = builder;
        csv_reader first(file, options.max_line_bytes, ranges.front());
        first.use_header(csv);
        csv_record record;
        while (!probe.clock_set() && first.next(record)) add_row(probe, csv_row(first.name(), record, first.header()));
        if (!probe.clock_set()) return 0;
        builder.use_clock_of(probe);
    } catch (const input_error&) {
        return 0;
    }
    std::vector<mapped_run_builder> pieces(ranges.size(), builder);
    const auto read_piece = [&](std::size_t k, csv_reader& reader, const std::atomic<bool>& clean) {
        csv_record record;
        while (clean && reader.next(record)) add_row(pieces[k], csv_row(reader.name(), record, reader.header()));
    };
    if (!read_csv_pieces(csv, file, options, ranges, read_piece)) return 0;
    for (auto& piece : pieces) builder.append(std::move(piece));
    return builder.size();
}

inline std::vector<run> read_mapped_csv(const std::filesystem::path& file, const mapping_spec& spec,
                                        const read_options& options) {
    if (!spec.records_source.empty())
        throw input_error(file.string(), 0, "", "records=" + spec.records_source +
                                                   " is for JSON documents, but this file is CSV");
    csv_reader csv(file, options.max_line_bytes);
    csv.read_header();
    const std::vector<std::size_t> columns = header_columns(file, csv.header(), spec);
    const auto split = columns.begin() + static_cast<std::ptrdiff_t>(spec.fields.size());
    const std::vector<std::size_t> field_columns(columns.begin(), split), rule_columns(split, columns.end());

    std::optional<mapped_run_builder> builder(std::in_place, spec, file);
    const auto add_row = [&](mapped_run_builder& to, const csv_row& row) {
        to.add(csv_access{row, field_columns, rule_columns}, record_place{row.file(), row.line(), "", ""});
    };
    skipped_lines skipped;
    std::size_t rows = read_mapped_csv_pieces(csv, file, options, *builder, add_row);
    if (rows == 0) {
        builder.emplace(spec, file);
        rows = for_each_csv_row(csv, options, skipped, [&](const csv_row& row) { add_row(*builder, row); });
    }
    if (rows == 0) throw input_error(csv.name(), csv.header_line(), "", "no requests after the header");
    std::vector<run> runs;
    runs.push_back(builder->finish(file.stem().string(), std::move(skipped)));
    return runs;
}

// The array of requests in one JSON document: spec.records from the top, or the top itself.
inline const nlohmann::json& find_records(const json_document& doc, const mapping_spec& spec) {
    const nlohmann::json* at = &doc.value;
    std::string walked;
    for (const std::string& key : spec.records) {
        const nlohmann::json* next = json_at(*at, {key});
        const std::string here = json_path(walked, key);
        const std::string parent = walked.empty() ? std::string("the document") : walked;
        if (!next) {
            if (at->is_object())
                doc.place.fail(here, "no such key for records= (" + parent +
                                         (at->empty() ? " is an empty object)" : " has: " + list_keys(*at) + ")"));
            doc.place.fail(here, "records=" + spec.records_source + " goes through " + parent + ", which is " +
                                     at->type_name() + ", not an object");
        }
        at = next;
        walked = here;
    }
    if (at->is_array()) return *at;
    if (spec.records.empty()) {
        const std::string candidates = arrays_of_objects(*at);
        doc.place.fail("", std::string("the document is ") + at->type_name() +
                               ", not an array of requests: name the array with records=<path> in --map" +
                               (candidates.empty() ? "" : " (arrays of objects in it: " + candidates + ")"));
    }
    doc.place.fail(walked, std::string("records=") + spec.records_source + " should be an array of requests, got " +
                               at->type_name());
}

inline std::vector<run> read_mapped_json(const std::filesystem::path& file, std::string_view text,
                                         const mapping_spec& spec, const read_options& options) {
    // find_records throws on a document without the records= path: the first such ends the read.
    std::vector<json_document> documents =
        parse_json_documents(file, text, [&](const json_document& doc) { find_records(doc, spec); });
    source_presence presence(spec);
    for (const json_document& doc : documents)
        for (const nlohmann::json& request : find_records(doc, spec))
            if (request.is_object() && !presence.all_found()) presence.observe(request);
    presence.check(file);
    std::vector<run> runs;
    for (std::size_t d = 0; d < documents.size(); ++d) {
        const json_document& doc = documents[d];
        const nlohmann::json& records = find_records(doc, spec);
        if (records.empty())
            doc.place.fail(join_keys(spec.records), "no requests (the array is empty)");
        mapped_run_builder builder(spec, file);
        skipped_lines skipped;
        skipped.unit = skipped_unit::record; // elements of the document's array, not lines
        const std::string base = spec.records.empty() ? std::string() : join_keys(spec.records);
        for (std::size_t i = 0; i < records.size(); ++i) {
            record_place place{doc.place.file, doc.place.line, json_path(base, i) + ".", ""};
            try {
                if (!records[i].is_object())
                    throw input_error(place.file, place.line, json_path(base, i),
                                      std::string("expected a request object, got ") + records[i].type_name());
                builder.add(json_access{spec, records[i]}, place);
            } catch (const input_error& e) {
                if (!options.skip_bad) throw;
                skipped.add(e.what());
            }
        }
        std::string label = file.stem().string();
        if (documents.size() > 1) label.append("-").append(std::to_string(d + 1));
        runs.push_back(builder.finish(std::move(label), std::move(skipped)));
    }
    return runs;
}

// A first line that is not JSON may start a pretty-printed document: say how to read that.
inline void explain_document(const std::filesystem::path& file, const mapping_spec& spec) {
    std::vector<json_document> documents;
    try {
        documents = parse_json_documents(file, read_json_file(file));
    } catch (const input_error&) {
        return;
    }
    if (documents.size() != 1 || !documents.front().value.is_object() || !spec.records_source.empty()) return;
    const std::string candidates = arrays_of_objects(documents.front().value);
    throw input_error(file.string(), documents.front().place.line, "",
                      "the file is one JSON object, not one request per line: name the array of requests with "
                      "records=<path> in --map" +
                          (candidates.empty() ? std::string() : " (arrays of objects in it: " + candidates + ")"));
}

// A mapped JSON Lines file read in pieces side by side into `builder`, as read_mapped_csv_pieces
// reads a CSV file: the clock set first as one reader sets it, then every piece on that clock. The
// requests read, or 0 when the file was not read in pieces (too small, a pipe, no timestamp in the
// first piece, a bad line anywhere, or a mapped name in no request, whose message the reader on one
// thread words): then `builder` is to be dropped.
inline std::size_t read_mapped_jsonl_pieces(const std::filesystem::path& file, const mapping_spec& spec,
                                            const read_options& options, mapped_run_builder& builder) {
    std::error_code ec;
    const std::uintmax_t size = std::filesystem::is_regular_file(file, ec) ? std::filesystem::file_size(file, ec) : 0;
    const auto ranges = plan_pieces(file, {0, ec ? 0 : size}, resolve_threads(options.threads), options.min_piece_bytes);
    if (ranges.size() < 2) return 0;
    // One request line read into `to` (a blank line is none). Any error only sends the file to one
    // reader, which words it.
    const auto read_line = [&](std::string_view line, const line_source& lines, mapped_run_builder& to, source_presence& presence) {
        if (line.find_first_not_of(" \t\r") == std::string_view::npos) return;
        const record_place place{lines.name(), lines.line_number(), "", ""};
        const nlohmann::json object = parse_json_text(line, {place.file, place.line});
        if (!object.is_object()) throw input_error(place.file, place.line, "", "not an object");
        presence.observe(object);
        to.add(json_access{spec, object}, place);
    };
    try {
        mapped_run_builder probe = builder;
        source_presence ignored(spec);
        line_source lines(file, options.max_line_bytes, ranges.front());
        while (!probe.clock_set())
            if (const auto line = lines.next()) read_line(*line, lines, probe, ignored);
            else return 0;
        builder.use_clock_of(probe);
    } catch (const input_error&) {
        return 0;
    }
    std::vector<mapped_run_builder> pieces(ranges.size(), builder);
    std::vector<source_presence> presence(ranges.size(), source_presence(spec));
    std::atomic<bool> clean = true;
    parallel_for(ranges.size(), ranges.size(), [&](std::size_t k) {
        try {
            line_source lines(file, options.max_line_bytes, ranges[k]);
            while (clean)
                if (const auto line = lines.next()) read_line(*line, lines, pieces[k], presence[k]);
                else break;
        } catch (const input_error&) {
            clean = false;
        }
    });
    for (std::size_t k = 1; k < presence.size(); ++k) presence.front().add_found(presence[k]);
    if (!clean || !presence.front().all_found()) return 0;
    for (auto& piece : pieces) builder.append(std::move(piece));
    return builder.size();
}

inline std::vector<run> read_mapped_jsonl(const std::filesystem::path& file, const mapping_spec& spec,
                                          const read_options& options) {
    if (mapped_run_builder builder(spec, file); read_mapped_jsonl_pieces(file, spec, options, builder) > 0) {
        std::vector<run> runs;
        runs.push_back(builder.finish(file.stem().string(), {}));
        return runs;
    }
    line_source lines(file, options.max_line_bytes);
    mapped_run_builder builder(spec, file);
    source_presence presence(spec);
    std::string layout_hint;
    // A bad request stops the read, but a misspelt name is the likelier cause: look for each name
    // in the rest of the file first, and say so when one is in no request at all.
    const auto check_names_in_rest = [&] {
        while (!presence.all_found()) {
            const auto line = lines.next();
            if (!line) break;
            try {
                const nlohmann::json object = parse_json_text(*line, {file.string(), lines.line_number()});
                if (object.is_object()) presence.observe(object);
            } catch (const input_error&) {
                // unreadable lines say nothing about names
            }
        }
        // One object holding the array of requests: the missing records= is the fault, said already.
        if (!layout_hint.empty() && presence.observed() == 1) return;
        presence.check(file, layout_hint);
    };
    skipped_lines skipped;
    std::size_t requests = 0;
    bool first = true;
    while (const auto line = lines.next()) {
        if (line->find_first_not_of(" \t\r") == std::string_view::npos) continue;
        const bool is_first = std::exchange(first, false);
        ++requests;
        record_place place{lines.name(), lines.line_number(), "", ""};
        try {
            nlohmann::json object;
            try {
                object = parse_json_text(*line, {place.file, place.line});
            } catch (const input_error&) {
                if (is_first) explain_document(file, spec);
                throw;
            }
            if (!object.is_object())
                throw input_error(place.file, place.line, "",
                                  std::string("expected one JSON object per line, got ") + object.type_name());
            if (is_first) {
                const std::string arrays = arrays_of_objects(object);
                if (!arrays.empty()) {
                    place.hint = " (this line holds an array of objects, " + arrays +
                                 ": if the requests are in it, add records=<its path> to --map)";
                    layout_hint = "The first line holds an array of objects (" + arrays +
                                  "): if the requests are in it, add records=<its path> to --map.";
                }
            }
            presence.observe(object);
            builder.add(json_access{spec, object}, place);
        } catch (const input_error& e) {
            if (!options.skip_bad) {
                check_names_in_rest();
                throw;
            }
            skipped.add(e.what());
        }
    }
    if (requests == 0) throw input_error(file.string(), 0, "", "empty file");
    presence.check(file, layout_hint);
    std::vector<run> runs;
    runs.push_back(builder.finish(file.stem().string(), std::move(skipped)));
    return runs;
}

} // namespace detail

// Reads `file` (CSV, a JSON document, or JSON Lines, told apart by its first non-blank character)
// through `spec`, which parse_mapping made. One run per file (per document, for several JSON
// documents in one file).
inline std::vector<run> read_mapped(const std::filesystem::path& file, const mapping_spec& spec,
                                    const read_options& options) {
    const std::string head = detail::read_input_head(file, std::size_t{64} << 10);
    if (head.find_first_not_of(" \t\r\n") == std::string::npos)
        throw input_error(file.string(), 0, "", "empty file");
    const char first = detail::first_json_char(head);
    if (first == '[' || (first == '{' && !spec.records_source.empty()))
        return detail::read_mapped_json(file, detail::read_json_file(file), spec, options);
    if (first == '{') return detail::read_mapped_jsonl(file, spec, options);
    return detail::read_mapped_csv(file, spec, options);
}

} // namespace servestat
