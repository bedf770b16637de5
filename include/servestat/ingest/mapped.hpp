// Reader for request logs that no built-in format knows: the user maps the file's own fields onto
// servestat's (`--map ttft=TTFT:ms,e2e=response_time:s,t_sent=start:epoch_s`) and may say which
// requests succeeded (`--ok-if 'error_code=='`). Reads CSV, a JSON document holding an array of
// request objects, or JSON Lines, told apart by content.
//
// --map grammar: comma-separated `target=source[:unit]` entries, plus an optional
// `records=<path>` entry naming where the array of requests sits in a JSON document. A source is
// a CSV column, or a JSON key path with dots for nesting (`usage.completion_tokens`; a numeric key
// indexes an array). A key holding a dot, comma, colon, quote or backslash is written in double
// quotes (`"time.ttft"`) or with backslash escapes (`time\.ttft`); a CSV column is the whole
// source with its quotes and escapes removed.
#pragma once

#include <algorithm>    // std::any_of, std::min
#include <array>        // std::array
#include <charconv>     // std::from_chars
#include <cmath>        // std::isfinite, std::isnan, std::floor
#include <cstddef>      // std::size_t
#include <cstdint>      // std::int32_t, std::int64_t, std::uint64_t, std::uint8_t
#include <filesystem>   // std::filesystem::path
#include <fstream>      // std::ifstream
#include <initializer_list> // std::initializer_list
#include <limits>       // std::numeric_limits
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <system_error> // std::errc
#include <utility>      // std::move, std::exchange, std::pair
#include <vector>       // std::vector

#include <nlohmann/json.hpp> // nlohmann::json

#include "servestat/core/errors.hpp"          // input_error, usage_error
#include "servestat/core/request_record.hpp"  // request_record
#include "servestat/core/request_status.hpp"  // request_status, parse_request_status
#include "servestat/core/run.hpp"             // run
#include "servestat/core/iso_time.hpp"        // iso_utc
#include "servestat/core/text.hpp"            // trim_spaces, equals_ignoring_case, shortest_number
#include "servestat/core/units.hpp"           // time_unit, to_seconds
#include "servestat/ingest/csv.hpp"           // csv_reader, csv_row, for_each_csv_row, quote_cell
#include "servestat/ingest/failure_text.hpp"  // classify_failure_text, leading_http_status
#include "servestat/ingest/json_document.hpp" // parse_json_documents, read_whole_file, first_json_char
#include "servestat/ingest/line_source.hpp"   // line_source
#include "servestat/ingest/reader.hpp"        // read_options

namespace servestat {

enum class mapped_target : std::uint8_t {
    t_sched, t_sent, t_first, t_end,             // timestamps
    ttft, e2e, decode, client_queue,             // durations that place the timestamps
    server_queue, server_prefill, server_decode, // durations the server reported
    itl,                                         // an array of chunk gaps
    prompt_tokens, output_tokens, max_tokens,    // counts
    http_status, status, error,
};

// One `target=source[:unit]` entry of --map.
struct field_mapping {
    mapped_target target{};
    std::string source;            // as written, for messages
    std::vector<std::string> path; // JSON keys from the request object
    std::string column;            // the CSV column: the keys joined by '.'
    time_unit unit = time_unit::s;
    bool epoch = false;            // a wall clock (epoch_*) rather than a run-relative one
    std::string entry;             // the whole entry as written, e.g. "ttft=TTFT:ms"
};

enum class ok_operator { equal, not_equal };

// One `field==value` or `field!=value` of --ok-if; an empty value means empty, null or absent.
struct ok_rule {
    std::string source;
    std::vector<std::string> path;
    std::string column;
    ok_operator op = ok_operator::equal;
    std::string value;
    std::string text; // as written
};

struct mapping_spec {
    std::vector<field_mapping> fields;
    std::vector<std::string> records; // keys leading to the array of requests; empty: top level
    std::string records_source;       // as written; empty when --map has no records= entry
    std::vector<ok_rule> ok_if;       // all must hold; empty: no --ok-if

    const field_mapping* find(mapped_target t) const noexcept {
        for (const auto& f : fields)
            if (f.target == t) return &f;
        return nullptr;
    }
};

namespace detail {

inline constexpr std::string_view mapped_format_name = "mapped";

enum class target_kind { timestamp, duration, gaps, count, http_status, status, text };

struct target_info {
    std::string_view name;
    mapped_target target;
    target_kind kind;
};

inline constexpr std::array<target_info, 18> mapped_targets{{
    {"t_sched", mapped_target::t_sched, target_kind::timestamp},
    {"t_sent", mapped_target::t_sent, target_kind::timestamp},
    {"t_first", mapped_target::t_first, target_kind::timestamp},
    {"t_end", mapped_target::t_end, target_kind::timestamp},
    {"ttft", mapped_target::ttft, target_kind::duration},
    {"e2e", mapped_target::e2e, target_kind::duration},
    {"decode", mapped_target::decode, target_kind::duration},
    {"client_queue", mapped_target::client_queue, target_kind::duration},
    {"server_queue", mapped_target::server_queue, target_kind::duration},
    {"server_prefill", mapped_target::server_prefill, target_kind::duration},
    {"server_decode", mapped_target::server_decode, target_kind::duration},
    {"itl", mapped_target::itl, target_kind::gaps},
    {"prompt_tokens", mapped_target::prompt_tokens, target_kind::count},
    {"output_tokens", mapped_target::output_tokens, target_kind::count},
    {"max_tokens", mapped_target::max_tokens, target_kind::count},
    {"http_status", mapped_target::http_status, target_kind::http_status},
    {"status", mapped_target::status, target_kind::status},
    {"error", mapped_target::error, target_kind::text},
}};

inline const target_info& info(mapped_target t) { return mapped_targets[static_cast<std::size_t>(t)]; }

inline std::string_view target_name(mapped_target t) { return info(t).name; }

inline std::string all_target_names() {
    std::string out;
    for (const auto& t : mapped_targets) out.append(out.empty() ? "" : ", ").append(t.name);
    return out;
}

// ---- the --map and --ok-if grammar -------------------------------------------------------------

// `text` cut at each `separator` outside double quotes and not escaped by a backslash; the parts
// keep their quotes and escapes.
inline std::vector<std::string_view> split_outside_quotes(std::string_view text, std::string_view separator) {
    std::vector<std::string_view> parts;
    bool quoted = false;
    std::size_t begin = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\\') ++i;
        else if (text[i] == '"') quoted = !quoted;
        else if (!quoted && text.substr(i).starts_with(separator)) {
            parts.push_back(text.substr(begin, i - begin));
            begin = i + separator.size();
            i = begin - 1;
        }
    }
    parts.push_back(text.substr(begin));
    return parts;
}

// Where the first of `needles` starts outside quotes and escapes, and which one it is.
inline std::optional<std::pair<std::size_t, std::size_t>> find_outside_quotes(
    std::string_view text, std::initializer_list<std::string_view> needles) {
    bool quoted = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\\') {
            ++i;
            continue;
        }
        if (text[i] == '"') quoted = !quoted;
        if (quoted) continue;
        std::size_t which = 0;
        for (const std::string_view needle : needles) {
            if (text.substr(i).starts_with(needle)) return std::pair{i, which};
            ++which;
        }
    }
    return std::nullopt;
}

// `usage.completion_tokens` → {"usage", "completion_tokens"}; `"a.b".c` and `a\.b.c` → {"a.b", "c"}.
inline std::vector<std::string> parse_source_path(std::string_view raw, std::string_view option,
                                                  std::string_view entry) {
    auto fail = [&](const std::string& why) -> void {
        throw usage_error(std::string(option).append(": ").append(why).append(" in '").append(entry).append("'"));
    };
    const std::string empty_key = "empty key in source '" + std::string(raw) +
                                  "' (quote a key holding a dot, or escape the dot as \\.)";
    if (raw.empty()) fail("empty source");
    std::vector<std::string> keys(1);
    bool quoted = false, key_was_quoted = false;
    for (std::size_t i = 0; i < raw.size(); ++i) {
        const char c = raw[i];
        if (c == '\\') {
            if (++i == raw.size()) fail("a backslash ends the source (escape what?)");
            keys.back().push_back(raw[i]);
        } else if (c == '"') {
            quoted = !quoted;
            key_was_quoted = true;
        } else if (c == '.' && !quoted) {
            if (keys.back().empty() && !key_was_quoted) fail(empty_key);
            keys.emplace_back();
            key_was_quoted = false;
        } else {
            keys.back().push_back(c);
        }
    }
    if (quoted) fail("unterminated quote");
    if (keys.back().empty() && !key_was_quoted) fail(empty_key);
    return keys;
}

inline std::string join_keys(const std::vector<std::string>& keys) {
    std::string out;
    for (const auto& k : keys) out.append(out.empty() ? "" : ".").append(k);
    return out;
}

struct parsed_unit {
    time_unit scale = time_unit::s;
    bool epoch = false;
};

inline std::optional<parsed_unit> parse_mapped_unit(std::string_view text) {
    const bool epoch = text.starts_with("epoch_");
    if (epoch) text.remove_prefix(6);
    const auto scale = parse_time_unit(text);
    if (!scale) return std::nullopt;
    return parsed_unit{*scale, epoch};
}

inline field_mapping parse_map_entry(std::string_view entry) {
    const auto usage = [&](const std::string& why) {
        return usage_error(std::string("--map: ").append(why));
    };
    const auto eq = find_outside_quotes(entry, {"="});
    if (!eq) throw usage("expected target=source[:unit], got '" + std::string(entry) + "'");
    const std::string_view name = trim_spaces(entry.substr(0, eq->first));
    const auto* found = std::find_if(mapped_targets.begin(), mapped_targets.end(),
                                     [&](const target_info& t) { return t.name == name; });
    if (found == mapped_targets.end())
        throw usage("unknown target '" + std::string(name) + "' in '" + std::string(entry) +
                    "' (targets: " + all_target_names() + "; and records=<path>)");
    std::string_view rest = trim_spaces(entry.substr(eq->first + 1));
    std::string_view unit_text;
    const auto colon = find_outside_quotes(rest, {":"});
    if (colon) {
        unit_text = trim_spaces(rest.substr(colon->first + 1));
        rest = trim_spaces(rest.substr(0, colon->first));
        if (unit_text.empty()) throw usage("missing unit after ':' in '" + std::string(entry) + "'");
    }
    field_mapping f;
    f.target = found->target;
    f.source = std::string(rest);
    f.path = parse_source_path(rest, "--map", entry);
    f.column = join_keys(f.path);
    f.entry = std::string(trim_spaces(entry));
    if (unit_text.empty()) return f;

    const std::string target(found->name), unit(unit_text);
    const auto parsed = parse_mapped_unit(unit_text);
    switch (found->kind) {
    case target_kind::timestamp:
        if (!parsed)
            throw usage("unknown unit '" + unit + "' for " + target +
                        " (timestamps: epoch_s, epoch_ms, epoch_us, epoch_ns for a wall clock; s, ms, us, "
                        "ns for any other clock)");
        break;
    case target_kind::duration:
    case target_kind::gaps:
        if (parsed && parsed->epoch)
            throw usage(target + " is a duration, so " + unit +
                        " (a wall-clock unit for timestamps: t_sched, t_sent, t_first, t_end) does not apply; "
                        "use " + unit.substr(6));
        if (!parsed) throw usage("unknown unit '" + unit + "' for " + target + " (durations: s, ms, us, ns)");
        break;
    default:
        throw usage(target + " takes no unit, got ':" + unit + "' in '" + std::string(entry) + "'");
    }
    f.unit = parsed->scale;
    f.epoch = parsed->epoch;
    return f;
}

inline bool has_any(const mapping_spec& spec, std::initializer_list<mapped_target> targets) {
    return std::any_of(targets.begin(), targets.end(), [&](mapped_target t) { return spec.find(t) != nullptr; });
}

// The combinations that would make a request's times ambiguous or underivable.
inline void check_mapping(const mapping_spec& spec) {
    using enum mapped_target;
    const auto usage = [](const std::string& why) { return usage_error(std::string("--map: ").append(why)); };
    const auto entry = [&](mapped_target t) { return spec.find(t)->entry; };
    const auto exclusive = [&](std::initializer_list<mapped_target> group, std::string_view what) {
        std::vector<std::string> mapped;
        for (mapped_target t : group)
            if (spec.find(t)) mapped.push_back(entry(t));
        if (mapped.size() < 2) return;
        std::string list;
        for (std::size_t i = 0; i < mapped.size(); ++i)
            list.append(i == 0 ? "" : i + 1 == mapped.size() ? " and " : ", ").append(mapped[i]);
        throw usage("mixed: " + list + (mapped.size() == 2 ? " both give " : " all give ") + std::string(what) +
                    "; map one of them");
    };
    exclusive({t_first, ttft}, "the first-token time");
    exclusive({t_end, e2e, decode}, "the end of a request");
    if (spec.find(t_sched) && spec.find(t_sent) && spec.find(client_queue))
        throw usage("mixed: " + entry(t_sched) + ", " + entry(t_sent) + " and " + entry(client_queue) +
                    " over-determine a request's start (client_queue = t_sent - t_sched); map two of them");

    const field_mapping* first_stamp = nullptr;
    for (const auto& f : spec.fields) {
        if (info(f.target).kind != target_kind::timestamp) continue;
        if (!first_stamp) first_stamp = &f;
        else if (f.epoch != first_stamp->epoch)
            throw usage("mixed units: " + first_stamp->entry + " is " +
                        (first_stamp->epoch ? "a wall clock (epoch_*)" : "a relative clock") + " but " + f.entry +
                        " is " + (f.epoch ? "a wall clock (epoch_*)" : "a relative clock") +
                        "; all timestamps must be on one clock");
    }
    if (!has_any(spec, {t_end, e2e, decode}))
        throw usage("nothing to compute e2e from: map t_end, e2e, or decode (with ttft or t_first)");
    if (spec.find(decode) && !has_any(spec, {t_first, ttft}))
        throw usage(entry(decode) + " needs the first-token time: map ttft or t_first too");
    if (first_stamp && !spec.find(t_sent) && !(spec.find(t_sched) && spec.find(client_queue)))
        throw usage(first_stamp->entry + " is a timestamp, but nothing gives the send time: map t_sent "
                    "(or t_sched and client_queue)");
}

inline ok_rule parse_ok_rule(std::string_view text) {
    const auto usage = [](const std::string& why) { return usage_error(std::string("--ok-if: ").append(why)); };
    text = trim_spaces(text);
    if (text.empty()) throw usage("empty rule (a doubled or trailing &&?)");
    const auto op = find_outside_quotes(text, {"==", "!="});
    if (!op)
        throw usage("expected field==value or field!=value, got '" + std::string(text) + "'");
    ok_rule rule;
    rule.text = std::string(text);
    rule.op = op->second == 0 ? ok_operator::equal : ok_operator::not_equal;
    const std::string_view field = trim_spaces(text.substr(0, op->first));
    if (field.empty()) throw usage("no field before the operator in '" + std::string(text) + "'");
    rule.source = std::string(field);
    rule.path = parse_source_path(field, "--ok-if", text);
    rule.column = join_keys(rule.path);
    std::string_view value = trim_spaces(text.substr(op->first + 2));
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
        value = value.substr(1, value.size() - 2);
        for (std::size_t i = 0; i < value.size(); ++i) {
            if (value[i] == '\\' && i + 1 < value.size()) ++i;
            rule.value.push_back(value[i]);
        }
    } else {
        rule.value = std::string(value);
    }
    return rule;
}

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
            parsed = nlohmann::json::parse(v_.cell, nullptr, false);
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
        std::string why = v_.shown() + " read as epoch_" + std::string(to_string(f_.unit)) + " is ";
        if (s > -1e11L && s < 1e11L) why += iso_utc_micros(s) + ", ";
        fail(why + "not a plausible wall-clock time (1990 to 2200): is the unit right?");
    }

    static std::string_view to_string(time_unit u) {
        switch (u) {
        case time_unit::s: return "s";
        case time_unit::ms: return "ms";
        case time_unit::us: return "us";
        case time_unit::ns: return "ns";
        }
        return "s";
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
    // `fields_known`: the input proved every source exists (a CSV header), so none needs a note.
    mapped_run_builder(const mapping_spec& spec, const std::filesystem::path& file, bool fields_known)
        : spec_(spec), file_(file), fields_known_(fields_known) {
        for (std::size_t i = 0; i < spec.fields.size(); ++i)
            index_[static_cast<std::size_t>(spec.fields[i].target)] = i;
        shared_clock_ = std::any_of(spec.fields.begin(), spec.fields.end(), [](const field_mapping& f) {
            return info(f.target).kind == target_kind::timestamp;
        });
        seen_fields_.assign(spec.fields.size(), false);
        seen_rules_.assign(spec.ok_if.size(), false);
    }

    // `field(i)` gives the raw value of spec.fields[i], `rule(i)` that of spec.ok_if[i].
    template <class Access>
    void add(const Access& access, const record_place& place) {
        record_.clear();
        read_record(access, place, record_);
        records_.push_back(record_);
    }

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
        const raw_field v = access.field(*i);
        if (v.present()) seen_fields_[*i] = true;
        return field_reader(spec_.fields[*i], v, place);
    }

    [[noreturn]] void missing(mapped_target t, const record_place& place, const std::string& why = "missing") const {
        place.fail(field_label(spec_.fields[*index(t)]), why + place.hint);
    }

    template <class Access>
    bool decide_ok(const Access& access, const std::optional<request_status>& stated, const request_record& r) {
        if (!spec_.ok_if.empty()) {
            bool ok = true;
            for (std::size_t i = 0; i < spec_.ok_if.size(); ++i) {
                const raw_field v = access.rule(i);
                if (v.present()) seen_rules_[i] = true;
                ok = ok && rule_holds(spec_.ok_if[i], v);
            }
            return ok;
        }
        if (stated) return *stated == request_status::ok;
        if (index(mapped_target::error)) return trim_spaces(r.error).empty();
        if (r.http_status) return *r.http_status >= 200 && *r.http_status < 300;
        return true;
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
                   decode_span = span(access, decode, place), queue_span = span(access, client_queue, place);
        if (!sent && sched && queue_span) sent = *sched + *queue_span;
        if (!sched && sent && queue_span) sched = *sent - *queue_span;
        if (!first && sent && ttft_span) first = *sent + *ttft_span;
        if (!end && sent && e2e_span) end = *sent + *e2e_span;
        if (!end && first && decode_span) end = *first + *decode_span;

        check_order(place, sched, sent, first, end, ttft_span, e2e_span);
        if (r.status == request_status::ok) {
            if (!sent) missing(index(t_sent) ? t_sent : !sched ? t_sched : client_queue, place);
            if (!end) {
                if (index(decode) && decode_span)
                    missing(index(ttft) ? ttft : t_first, place, "missing (decode needs the first-token time)");
                missing(index(t_end) ? t_end : index(e2e) ? e2e : decode, place);
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
        if (sched && sent && *sched > *sent)
            place.fail(label(t_sched), "after t_sent: client_queue would be " + seconds_text(*sent - *sched));
        if (first && sent && *first < *sent)
            place.fail(label(t_first), "before t_sent: ttft would be " + seconds_text(*first - *sent));
        if (end && sent && *end < *sent)
            place.fail(label(index(t_end) ? t_end : index(e2e) ? e2e : decode),
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
        for (std::size_t i = 0; i < spec_.fields.size(); ++i)
            if (!seen_fields_[i] && !records_.empty() && !fields_known_)
                meta.notes.push_back(spec_.fields[i].entry + ": no request has " + spec_.fields[i].source + ", so " +
                                     std::string(target_name(spec_.fields[i].target)) + " is unavailable");
        for (std::size_t i = 0; i < spec_.ok_if.size(); ++i)
            if (!seen_rules_[i] && !records_.empty() && !fields_known_)
                meta.notes.push_back("--ok-if " + spec_.ok_if[i].text + ": no request has " + spec_.ok_if[i].source);
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
            return "a request failed when " + source(error) +
                   " is not empty; its text tells a timeout or transport failure from an error";
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
        if (first_stamp->epoch && clock_.base_seconds()) {
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
    bool fields_known_ = false;
    std::vector<bool> seen_fields_, seen_rules_;
};

// ---- the three input kinds ---------------------------------------------------------------------

inline const nlohmann::json* json_at(const nlohmann::json& object, const std::vector<std::string>& path) {
    const nlohmann::json* at = &object;
    for (const std::string& key : path) {
        if (at->is_object()) {
            const auto it = at->find(key);
            if (it == at->end()) return nullptr;
            at = &*it;
        } else if (at->is_array() && !key.empty() &&
                   key.find_first_not_of("0123456789") == std::string::npos) {
            std::size_t i = 0;
            std::from_chars(key.data(), key.data() + key.size(), i);
            if (i >= at->size()) return nullptr;
            at = &(*at)[i];
        } else {
            return nullptr;
        }
    }
    return at;
}

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

inline std::size_t column_of(const csv_reader& csv, const std::string& column, const std::string& label) {
    if (const auto at = find_column(csv.header(), column)) return *at;
    std::string columns;
    for (std::size_t i = 0; i < csv.header().size() && i < 20; ++i)
        columns.append(i == 0 ? "" : ", ").append(csv.header()[i]);
    if (csv.header().size() > 20) columns += ", ...";
    throw input_error(csv.name(), csv.header_line(), label, "no such column (the header has: " + columns + ")");
}

inline std::vector<run> read_mapped_csv(const std::filesystem::path& file, const mapping_spec& spec,
                                        const read_options& options) {
    if (!spec.records_source.empty())
        throw input_error(file.string(), 0, "", "records=" + spec.records_source +
                                                   " is for JSON documents, but this file is CSV");
    csv_reader csv(file, options.max_line_bytes);
    csv.read_header();
    std::vector<std::size_t> field_columns, rule_columns;
    for (const auto& f : spec.fields) field_columns.push_back(column_of(csv, f.column, field_label(f)));
    for (const auto& r : spec.ok_if) rule_columns.push_back(column_of(csv, r.column, r.source + " (--ok-if)"));

    mapped_run_builder builder(spec, file, true);
    skipped_lines skipped;
    const std::size_t rows = for_each_csv_row(csv, options, skipped, [&](const csv_row& row) {
        builder.add(csv_access{row, field_columns, rule_columns}, record_place{csv.name(), row.line(), "", ""});
    });
    if (rows == 0) throw input_error(csv.name(), csv.header_line(), "", "no requests after the header");
    std::vector<run> runs;
    runs.push_back(builder.finish(file.stem().string(), std::move(skipped)));
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
                doc.place.fail(here, "no such key for records= (" + parent + " has: " + list_keys(*at) + ")");
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
    std::vector<json_document> documents = parse_json_documents(file, text);
    std::vector<run> runs;
    for (std::size_t d = 0; d < documents.size(); ++d) {
        const json_document& doc = documents[d];
        const nlohmann::json& records = find_records(doc, spec);
        if (records.empty())
            doc.place.fail(join_keys(spec.records), "no requests (the array is empty)");
        mapped_run_builder builder(spec, file, false);
        skipped_lines skipped;
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
        documents = parse_json_documents(file, read_whole_file(file));
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

inline std::vector<run> read_mapped_jsonl(const std::filesystem::path& file, const mapping_spec& spec,
                                          const read_options& options) {
    line_source lines(file, options.max_line_bytes);
    mapped_run_builder builder(spec, file, false);
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
                object = nlohmann::json::parse(*line);
            } catch (const nlohmann::json::parse_error& e) {
                if (is_first) explain_document(file, spec);
                std::string reason = e.what();
                if (const auto colon = reason.find(": "); colon != std::string::npos)
                    reason = reason.substr(colon + 2);
                throw input_error(place.file, place.line, "",
                                  "malformed JSON at column " + std::to_string(e.byte) + ": " + reason);
            }
            if (!object.is_object())
                throw input_error(place.file, place.line, "",
                                  std::string("expected one JSON object per line, got ") + object.type_name());
            if (is_first) {
                const std::string arrays = arrays_of_objects(object);
                if (!arrays.empty())
                    place.hint = " (this line holds an array of objects, " + arrays +
                                 ": if the requests are in it, add records=<its path> to --map)";
            }
            builder.add(json_access{spec, object}, place);
        } catch (const input_error& e) {
            if (!options.skip_bad) throw;
            skipped.add(e.what());
        }
    }
    if (requests == 0) throw input_error(file.string(), 0, "", "empty file");
    std::vector<run> runs;
    runs.push_back(builder.finish(file.stem().string(), std::move(skipped)));
    return runs;
}

} // namespace detail

// Parses --map (and --ok-if): `target=source[:unit],...` and `field==value && field!=value`.
inline mapping_spec parse_mapping(std::string_view map, std::string_view ok_if = {}) {
    const auto usage = [](const std::string& why) { return usage_error(std::string("--map: ").append(why)); };
    mapping_spec spec;
    if (detail::trim_spaces(map).empty())
        throw usage("empty; give target=source[:unit] entries, e.g. e2e=latency_ms:ms");
    for (std::string_view entry : detail::split_outside_quotes(map, ",")) {
        entry = detail::trim_spaces(entry);
        if (entry.empty())
            throw usage("an empty entry (a doubled or trailing comma?) in '" + std::string(map) + "'");
        const auto eq = detail::find_outside_quotes(entry, {"="});
        if (eq && detail::trim_spaces(entry.substr(0, eq->first)) == "records") {
            const std::string_view path = detail::trim_spaces(entry.substr(eq->first + 1));
            if (!spec.records_source.empty()) throw usage("records= is given twice");
            if (path.empty()) throw usage("records= needs the path of the array of requests, e.g. records=results");
            if (detail::find_outside_quotes(path, {":"}))
                throw usage("records takes no unit, got '" + std::string(entry) + "'");
            spec.records = detail::parse_source_path(path, "--map", entry);
            spec.records_source = std::string(path);
            continue;
        }
        field_mapping f = detail::parse_map_entry(entry);
        if (const field_mapping* before = spec.find(f.target))
            throw usage(std::string(detail::target_name(f.target)) + " is mapped twice: " + before->entry + " and " +
                        f.entry);
        spec.fields.push_back(std::move(f));
    }
    detail::check_mapping(spec);
    if (!detail::trim_spaces(ok_if).empty())
        for (const std::string_view rule : detail::split_outside_quotes(ok_if, "&&"))
            spec.ok_if.push_back(detail::parse_ok_rule(rule));
    return spec;
}

// Reads `file` (CSV, a JSON document, or JSON Lines, told apart by its first non-blank character)
// through `spec`, which parse_mapping made. One run per file (per document, for several JSON
// documents in one file).
inline std::vector<run> read_mapped(const std::filesystem::path& file, const mapping_spec& spec,
                                    const read_options& options) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw input_error(file.string(), 0, "", "cannot open file");
    std::string head(std::size_t{64} << 10, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(in.gcount()));
    in.close();
    if (head.substr(0, 3) == "\xEF\xBB\xBF") head.erase(0, 3);
    if (head.find_first_not_of(" \t\r\n") == std::string::npos)
        throw input_error(file.string(), 0, "", "empty file");
    const char first = detail::first_json_char(head);
    if (first == '[' || (first == '{' && !spec.records_source.empty()))
        return detail::read_mapped_json(file, detail::read_whole_file(file), spec, options);
    if (first == '{') return detail::read_mapped_jsonl(file, spec, options);
    return detail::read_mapped_csv(file, spec, options);
}

} // namespace servestat
