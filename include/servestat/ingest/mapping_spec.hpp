// The --map and --ok-if grammar of the mapped reader (mapped.hpp): which of a file's own fields
// give servestat's (`--map ttft=TTFT:ms,e2e=response_time:s,t_sent=start:epoch_s`) and which
// requests succeeded (`--ok-if 'error_code=='`), parsed and checked into a mapping_spec.
//
// --map grammar: comma-separated `target=source[:unit]` entries, plus an optional
// `records=<path>` entry naming where the array of requests sits in a JSON document. A source is
// a CSV column, or a JSON key path with dots for nesting (`usage.completion_tokens`; a numeric key
// indexes an array). A key holding a dot, comma, colon, quote or backslash is written in double
// quotes (`"time.ttft"`) or with backslash escapes (`time\.ttft`); a CSV column is the whole
// source with its quotes and escapes removed.
#pragma once

#include <algorithm>        // std::any_of, std::find_if
#include <array>            // std::array
#include <cstddef>          // std::size_t
#include <cstdint>          // std::uint8_t
#include <initializer_list> // std::initializer_list
#include <optional>         // std::optional
#include <string>           // std::string
#include <string_view>      // std::string_view
#include <utility>          // std::move, std::pair
#include <vector>           // std::vector

#include "servestat/core/errors.hpp" // usage_error
#include "servestat/core/text.hpp"   // trim_spaces
#include "servestat/core/units.hpp"  // time_unit, parse_time_unit

namespace servestat {

enum class mapped_target : std::uint8_t {
    t_sched, t_sent, t_first, t_end,             // timestamps
    ttft, e2e, decode, tpot, client_queue,       // durations that place the timestamps
    server_queue, server_prefill, server_decode, // durations the server reported
    server_ttft, server_itl,                     // ... its own ttft as one number, its mean itl
    itl,                                         // an array of chunk gaps
    prompt_tokens, output_tokens, max_tokens,    // counts
    server_spec_acceptance, server_draft_acceptance, // plain numbers: speculative decoding's acceptance
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

// `number`: a number that is no time and no count (an acceptance length or rate), which takes no unit.
enum class target_kind { timestamp, duration, gaps, count, number, http_status, status, text };

struct target_info {
    std::string_view name;
    mapped_target target;
    target_kind kind;
};

// In mapped_target's order: info() indexes it by the target.
inline constexpr std::array<target_info, 23> mapped_targets{{
    {"t_sched", mapped_target::t_sched, target_kind::timestamp},
    {"t_sent", mapped_target::t_sent, target_kind::timestamp},
    {"t_first", mapped_target::t_first, target_kind::timestamp},
    {"t_end", mapped_target::t_end, target_kind::timestamp},
    {"ttft", mapped_target::ttft, target_kind::duration},
    {"e2e", mapped_target::e2e, target_kind::duration},
    {"decode", mapped_target::decode, target_kind::duration},
    {"tpot", mapped_target::tpot, target_kind::duration},
    {"client_queue", mapped_target::client_queue, target_kind::duration},
    {"server_queue", mapped_target::server_queue, target_kind::duration},
    {"server_prefill", mapped_target::server_prefill, target_kind::duration},
    {"server_decode", mapped_target::server_decode, target_kind::duration},
    {"server_ttft", mapped_target::server_ttft, target_kind::duration},
    {"server_itl", mapped_target::server_itl, target_kind::duration},
    {"itl", mapped_target::itl, target_kind::gaps},
    {"prompt_tokens", mapped_target::prompt_tokens, target_kind::count},
    {"output_tokens", mapped_target::output_tokens, target_kind::count},
    {"max_tokens", mapped_target::max_tokens, target_kind::count},
    {"server_spec_acceptance", mapped_target::server_spec_acceptance, target_kind::number},
    {"server_draft_acceptance", mapped_target::server_draft_acceptance, target_kind::number},
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
    exclusive({t_end, e2e, decode, tpot}, "the end of a request");
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
    if (!has_any(spec, {t_end, e2e, decode, tpot}))
        throw usage("nothing to compute e2e from: map t_end or e2e, or decode or tpot with ttft or t_first");
    if (spec.find(decode) && !has_any(spec, {t_first, ttft}))
        throw usage(entry(decode) + " needs the first-token time: map ttft or t_first too");
    // servestat's tpot is decode / (output_tokens - 1), so a tool's per-request tpot gives the end
    // as t_first + tpot * (output_tokens - 1), and servestat's tpot then equals it.
    if (spec.find(tpot) && (!has_any(spec, {t_first, ttft}) || !spec.find(output_tokens)))
        throw usage(entry(tpot) + " gives the end as t_first + tpot * (output_tokens - 1): map ttft or t_first, "
                    "and output_tokens too");
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

} // namespace servestat
