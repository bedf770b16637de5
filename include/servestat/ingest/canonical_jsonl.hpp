// Reader for servestat's own log: JSON Lines, a header line then one request per line (DESIGN.md).
// Request lines go through simdjson's on-demand parser: this is the hot path of every analysis.
#pragma once

#include <algorithm>   // std::max, std::min, std::find
#include <cmath>       // std::isfinite, std::floor
#include <cstring>     // std::memchr
#include <cstdint>     // std::int32_t, std::int64_t
#include <filesystem>  // std::filesystem::path
#include <limits>      // std::numeric_limits
#include <optional>    // std::optional
#include <span>        // std::span
#include <string>      // std::string
#include <string_view> // std::string_view
#include <vector>      // std::vector

#include <fmt/format.h>      // fmt::format
#include <nlohmann/json.hpp> // nlohmann::json (the header line)
#include <simdjson.h>        // simdjson::ondemand

#include "servestat/core/errors.hpp"         // input_error
#include "servestat/core/request_record.hpp" // request_record
#include "servestat/core/parallel.hpp"       // parallel_for, resolve_threads
#include "servestat/core/run.hpp"            // run
#include "servestat/ingest/canonical_fast_line.hpp" // canonical_fast_line, identify_canonical_field
#include "servestat/ingest/json_document.hpp" // parse_json_text
#include "servestat/ingest/json_number.hpp"  // json_number
#include "servestat/ingest/line_source.hpp"  // detail::line_source
#include "servestat/ingest/metrics_timeline.hpp" // detail::add_metrics_timeline
#include "servestat/ingest/prometheus_text.hpp" // detail::add_scraped_metrics
#include "servestat/ingest/reader.hpp"       // log_format, read_options
#include "servestat/ingest/valid_text.hpp"   // detail::invalid_utf8_note

namespace servestat {
namespace detail {

inline constexpr int canonical_log_version = 1;

inline bool is_blank(std::string_view line) {
    return line.find_first_not_of(" \t\r") == std::string_view::npos;
}

// A field-level problem; the caller adds file and line.
struct field_error {
    std::string field;
    std::string message;
};

// JSON has no infinity: an unbounded parameter (Python's Infinity for an unlimited request rate) is
// kept as "inf", as every reader writes one (param_number), where nlohmann would write null.
inline void spell_infinite_params(nlohmann::json& v) {
    if (v.is_number_float() && std::isinf(v.get<double>())) v = param_number(v.get<double>());
    else if (v.is_structured())
        for (auto& element : v) spell_infinite_params(element);
}

inline run_metadata parse_canonical_header(std::string_view line, const std::string& file) {
    // Bytes that are not valid UTF-8, which nlohmann refuses, are read as U+FFFD as in a request line.
    const bool invalid_utf8 = !is_valid_utf8(line);
    const std::string valid = invalid_utf8 ? to_valid_utf8(line) : std::string();
    if (invalid_utf8) line = valid;
    std::vector<nonfinite_field> nonfinite;
    std::size_t lone_surrogates = 0;
    const nlohmann::json header = parse_json_text(line, {file, 1}, false, &nonfinite, &lone_surrogates);
    const auto tag = header.is_object() ? header.find("servestat") : header.end();
    if (!header.is_object() || tag == header.end() || *tag != "log") // compared, not value(): a number there must not throw
        throw input_error(file, 1, "servestat", "first line is not a servestat log header "
                                                "(expected {\"servestat\":\"log\",...})");
    const auto version = header.find("version");
    if (version == header.end() || !version->is_number_integer())
        throw input_error(file, 1, "version", "missing or not an integer");
    if (version->get<std::int64_t>() != canonical_log_version)
        throw input_error(file, 1, "version",
                          "unsupported log version " + version->dump() + " (this servestat reads 1)");
    run_metadata meta;
    meta.notes = nonfinite_notes(nonfinite);
    if (lone_surrogates > 0) meta.notes.push_back(lone_surrogates_note(lone_surrogates));
    if (invalid_utf8) meta.notes.emplace_back(invalid_utf8_note);
    const auto run_it = header.find("run");
    if (run_it == header.end()) return meta;
    if (!run_it->is_object()) throw input_error(file, 1, "run", "must be an object");
    auto text = [&](const char* key) -> std::string {
        const auto it = run_it->find(key);
        if (it == run_it->end() || it->is_null()) return {};
        if (!it->is_string()) throw input_error(file, 1, std::string("run.") + key, "must be a string");
        return it->get<std::string>();
    };
    meta.label = text("label");
    meta.started_at = text("started_at");
    meta.model = text("model");
    meta.workload = text("workload");
    meta.tool = text("tool");
    if (const auto params = run_it->find("params"); params != run_it->end() && !params->is_null()) {
        if (!params->is_object()) throw input_error(file, 1, "run.params", "must be an object");
        meta.params = *params;
        spell_infinite_params(meta.params);
    }
    if (const auto end = run_it->find("end"); end != run_it->end() && !end->is_null()) {
        if (!end->is_object()) throw input_error(file, 1, "run.end", "must be an object");
        meta.run_end = *end;
    }
    return meta;
}

// The readers of single fields are forced inline: on-demand values are iterators into the parser,
// and inlined readers keep that state in registers (12 % of ingest time measured; see bench/).
// Lines as the load driver writes them take canonical_fast_line instead; this path reads the rest
// and words every error.
class canonical_line_parser {
    using field = canonical_field;

public:
    // Fills `out` from one request line; returns the problem instead of throwing so that the
    // --skip-bad path costs no exception per bad line.
    std::optional<field_error> parse(std::string_view line, std::size_t readable_after,
                                     request_record& out) {
        if (fast_.parse(line, out)) return check_request(out);
        return parse_slowly(line, readable_after, out);
    }

    // The simdjson path alone (the fast path's tests compare the two). A line refused while its text
    // is not valid — bytes that are not UTF-8, for which simdjson refuses the whole line, or a lone
    // surrogate escape ("\ud800", which simdjson refuses as a string) — is read again with each
    // such byte or escape made U+FFFD, as every other format reads them; such lines are counted for
    // the run's notes.
    std::optional<field_error> parse_slowly(std::string_view line, std::size_t readable_after,
                                            request_record& out) {
        auto problem = parse_as_written(line, readable_after, out);
        if (!problem) return problem;
        const bool invalid_utf8 = !is_valid_utf8(line);
        if (!invalid_utf8 && lone_surrogate_escapes(line).empty()) return problem; // its text was not the problem
        repaired_ = invalid_utf8 ? to_valid_utf8(line) : std::string(line);
        const auto lone = lone_surrogate_escapes(repaired_); // after the bytes: U+FFFD moved the offsets
        for (const std::size_t at : lone) repaired_.replace(at + 2, 4, "fffd");
        const std::size_t size = repaired_.size();
        repaired_.resize(size + simdjson::SIMDJSON_PADDING);
        problem = parse_as_written({repaired_.data(), size}, simdjson::SIMDJSON_PADDING, out);
        if (!problem) {
            invalid_utf8_lines_ += invalid_utf8;
            lone_surrogates_ += lone.size();
        }
        return problem;
    }

    // Lines read as U+FFFD where their bytes were not UTF-8, and lone surrogate escapes read so.
    std::size_t invalid_utf8_lines() const noexcept { return invalid_utf8_lines_; }
    std::size_t lone_surrogates() const noexcept { return lone_surrogates_; }

private:
    std::optional<field_error> parse_as_written(std::string_view line, std::size_t readable_after,
                                                request_record& out) {
        out.clear();
        const simdjson::padded_string_view input(line.data(), line.size(),
                                                 line.size() + readable_after);
        simdjson::ondemand::document doc;
        if (auto e = parser_.iterate(input).get(doc)) return malformed(e);
        simdjson::ondemand::object object;
        if (auto e = doc.get_object().get(object))
            return field_error{"", e == simdjson::INCORRECT_TYPE ? "a request line must be a JSON object"
                                                                 : malformed_text(e)};
        bool has_status = false;
        for (auto member : object) {
            simdjson::ondemand::raw_json_string raw_key;
            if (auto e = member.key().get(raw_key)) return malformed(e);
            const std::string_view key = key_text(raw_key);
            const auto which = identify_canonical_field(key);
            if (which == field::unknown) continue; // ignored; the iterator skips its value
            simdjson::ondemand::value value;
            if (auto e = member.value().get(value)) return malformed(e);
            has_status = has_status || which == field::status;
            if (auto problem = read_field(which, key, value, out)) return problem;
        }
        if (doc.current_location().error() != simdjson::OUT_OF_BOUNDS)
            return field_error{"", "malformed JSON: trailing characters after the object"};
        if (!has_status) return field_error{"status", "missing required field"};
        return check_request(out);
    }

public:

    // The key as written, without unescaping: servestat's keys have no escapes, and a key that does
    // is simply unknown (ignored). Saves copying every key of every line.
    static std::string_view key_text(simdjson::ondemand::raw_json_string key) {
        const char* start = key.raw();
        const char* end = start;
        while (*end != '"') ++end;
        return {start, static_cast<std::size_t>(end - start)};
    }

    static std::string malformed_text(simdjson::error_code e) {
        return std::string("malformed JSON (") + simdjson::error_message(e) + ")";
    }
    static field_error malformed(simdjson::error_code e) { return {"", malformed_text(e)}; }

    [[gnu::always_inline]] static std::optional<field_error> read_field(field f, std::string_view key, simdjson::ondemand::value& v,
                                                 request_record& r) {
        switch (f) {
        case field::t_sched: return read_time(key, v, r.t_sched);
        case field::t_sent: return read_time(key, v, r.t_sent);
        case field::t_first: return read_time(key, v, r.t_first);
        case field::t_end: return read_time(key, v, r.t_end);
        case field::prompt_tokens: return read_count(key, v, r.prompt_tokens);
        case field::output_tokens: return read_count(key, v, r.output_tokens);
        case field::max_tokens: return read_count(key, v, r.max_tokens);
        case field::status: return read_status(v, r.status);
        case field::http_status: return read_count(key, v, r.http_status);
        case field::error: return read_error(v, r.error);
        case field::itl: return read_itl(v, r.itl);
        case field::itl_gaps: return read_gap_count(v, r.itl_gaps);
        case field::server_queue: return read_time(key, v, r.server_queue);
        case field::server_prefill: return read_time(key, v, r.server_prefill);
        case field::server_decode: return read_time(key, v, r.server_decode);
        case field::server_ttft: return read_time(key, v, r.server_ttft);
        case field::server_itl: return read_time(key, v, r.server_itl);
        // Plain numbers, read as a time is; check_request judges their range.
        case field::server_spec_acceptance: return read_time(key, v, r.server_spec_acceptance);
        case field::server_draft_acceptance: return read_time(key, v, r.server_draft_acceptance);
        case field::trimmed: return read_bool(key, v, r.trimmed);
        case field::prompt_tokens_original: return read_count(key, v, r.prompt_tokens_original);
        case field::connect_time: return read_time(key, v, r.connect_time);
        case field::tls_time: return read_time(key, v, r.tls_time);
        case field::cached_tokens: return read_count(key, v, r.cached_tokens);
        case field::turn: return read_count(key, v, r.turn);
        case field::cacheable_tokens: return read_count(key, v, r.cacheable_tokens);
        case field::unknown: break;
        }
        return std::nullopt; // unknown keys (id, anything newer) are ignored
    }

    static bool is_null(simdjson::ondemand::value& v) {
        bool null = false;
        return !v.is_null().get(null) && null;
    }

    [[gnu::always_inline]] static std::optional<field_error> read_number(std::string_view key, simdjson::ondemand::value& v,
                                                  double& out) {
        const std::string_view text = v.raw_json_token(); // read again below: simdjson#2093
        if (auto e = v.get_double().get(out); e && !(e == simdjson::NUMBER_ERROR && is_long_exponent_number(text, out)))
            return field_error{std::string(key), e == simdjson::INCORRECT_TYPE
                                                     ? "expected a number"
                                                     : malformed_text(e)};
        if (!std::isfinite(out)) return field_error{std::string(key), "must be finite"};
        double exact = 0;
        if (json_number(text, exact) > 0) out = exact; // else out of range (1e-400): simdjson's 0 stands
        return std::nullopt;
    }

    // simdjson 3.0.1 refuses an exponent with many leading zeros (5e-0000000000000000001), which
    // JSON allows: such a token, whole, is read by json_number instead.
    static bool is_long_exponent_number(std::string_view token, double& out) {
        double x = 0;
        const std::size_t length = json_number(token, x);
        if (length == 0 || token.find_first_not_of(" \t\r\n", length) != std::string_view::npos) return false;
        out = x;
        return true;
    }

    [[gnu::always_inline]] static std::optional<field_error> read_time(std::string_view key, simdjson::ondemand::value& v,
                                                std::optional<double>& out) {
        double x = 0;
        if (auto problem = read_number(key, v, x)) return is_null(v) ? std::nullopt : problem;
        out = x;
        return std::nullopt;
    }

    [[gnu::always_inline]] static std::optional<field_error> read_count(std::string_view key, simdjson::ondemand::value& v,
                                                 std::optional<std::int32_t>& out) {
        std::uint64_t n = 0;
        if (!v.get_uint64().get(n) && n <= static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max())) {
            out = static_cast<std::int32_t>(n);
            return std::nullopt;
        }
        double x = 0; // 37.0, -1, 1e12 and null take the slow path
        if (auto problem = read_number(key, v, x)) return is_null(v) ? std::nullopt : problem;
        if (x != std::floor(x)) return field_error{std::string(key), "expected an integer"};
        if (x < 0) return field_error{std::string(key), "must not be negative"};
        if (x > std::numeric_limits<std::int32_t>::max())
            return field_error{std::string(key), "is too large"};
        out = static_cast<std::int32_t>(x);
        return std::nullopt;
    }

    // A count that may pass int32 (a stream's chunk gaps, when the driver kept only the first).
    static std::optional<field_error> read_gap_count(simdjson::ondemand::value& v, std::optional<std::int64_t>& out) {
        if (is_null(v)) return std::nullopt;
        std::int64_t n = 0;
        if (v.get_int64().get(n)) return field_error{"itl_gaps", "expected an integer"};
        if (n < 0) return field_error{"itl_gaps", "must not be negative"};
        out = n;
        return std::nullopt;
    }

    [[gnu::always_inline]] static std::optional<field_error> read_bool(std::string_view key, simdjson::ondemand::value& v,
                                                std::optional<bool>& out) {
        if (is_null(v)) return std::nullopt;
        bool b = false;
        if (v.get_bool().get(b)) return field_error{std::string(key), "expected true or false"};
        out = b;
        return std::nullopt;
    }

    [[gnu::always_inline]] static std::optional<field_error> read_status(simdjson::ondemand::value& v, request_status& out) {
        std::string_view s;
        if (auto e = v.get_string().get(s))
            return field_error{"status", e == simdjson::INCORRECT_TYPE ? "expected a string" : malformed_text(e)};
        const auto status = parse_request_status(s);
        if (!status)
            return field_error{"status", "unknown status '" + std::string(s) +
                                             "' (expected ok, error, timeout, transport or cancelled)"};
        out = *status;
        return std::nullopt;
    }

    [[gnu::always_inline]] static std::optional<field_error> read_error(simdjson::ondemand::value& v, std::string& out) {
        if (is_null(v)) return std::nullopt;
        std::string_view s;
        if (auto e = v.get_string().get(s))
            return field_error{"error", e == simdjson::INCORRECT_TYPE ? "expected a string" : malformed_text(e)};
        out.assign(s);
        return std::nullopt;
    }

    [[gnu::always_inline]] static std::optional<field_error> read_itl(simdjson::ondemand::value& v, std::vector<double>& out) {
        if (is_null(v)) return std::nullopt;
        out.clear();
        simdjson::ondemand::array gaps;
        if (v.get_array().get(gaps)) return field_error{"itl", "expected an array of numbers"};
        for (auto element : gaps) {
            simdjson::ondemand::value gap;
            if (auto e = element.get(gap)) return field_error{"itl", malformed_text(e)};
            double x = 0;
            if (auto problem = read_number("itl", gap, x)) return problem;
            if (x < 0) return field_error{"itl", "gaps must not be negative"};
            out.push_back(x);
        }
        return std::nullopt;
    }

    // Consistency of one request: its times must describe a possible sequence of events.
    [[gnu::always_inline]] static std::optional<field_error> check_request(const request_record& r) {
        if (!r.t_sent) return field_error{"t_sent", "missing required field"};
        if (!r.t_end) return field_error{"t_end", "missing required field"};
        if (auto fault = time_fault(r)) return field_error{std::string(fault->field), std::move(fault->message)};
        if (*r.t_end < *r.t_sent) return field_error{"t_end", "t_end is before t_sent (negative duration)"};
        if (r.t_first && *r.t_first < *r.t_sent)
            return field_error{"t_first", "t_first is before t_sent (negative time to first token)"};
        if (r.t_first && *r.t_end < *r.t_first)
            return field_error{"t_end", "t_end is before t_first (negative decode time)"};
        if (r.t_sched && *r.t_sent < *r.t_sched)
            return field_error{"t_sent", "t_sent is before t_sched (negative client queue time)"};
        for (auto [name, value] : {std::pair{"server_queue", r.server_queue},
                                   std::pair{"server_prefill", r.server_prefill},
                                   std::pair{"server_decode", r.server_decode},
                                   std::pair{"server_ttft", r.server_ttft},
                                   std::pair{"server_itl", r.server_itl},
                                   std::pair{"connect_time", r.connect_time},
                                   std::pair{"tls_time", r.tls_time}})
            if (value && *value < 0) return field_error{name, "must not be negative"};
        if (auto fault = acceptance_fault(r)) return field_error{std::string(fault->field), std::move(fault->message)};
        if (r.turn && *r.turn < 1) return field_error{"turn", "turns count from 1"};
        return std::nullopt;
    }

    canonical_fast_line fast_;
    simdjson::ondemand::parser parser_;
    std::string repaired_; // a line made valid, padded for simdjson; reused
    std::size_t invalid_utf8_lines_ = 0, lone_surrogates_ = 0;
};

// Reserves columns from the size of what is left to read and the length of the first lines, so a
// million-request log is not grown by doubling (which would double peak memory).
inline std::size_t estimate_requests(std::uintmax_t bytes, std::size_t bytes_seen, std::size_t lines_seen) {
    if (lines_seen == 0 || bytes_seen == 0) return 0;
    const double per_line = static_cast<double>(bytes_seen) / static_cast<double>(lines_seen);
    return static_cast<std::size_t>(static_cast<double>(bytes) / per_line * 1.03) + 16; // past it, the table grows by a quarter
}

// A problem on a line of a piece, numbered within the piece until the pieces before it are counted.
struct line_problem {
    std::size_t line = 0; // 0: not on a line (a read error)
    std::string field, message;
};

// The requests of one piece of the file: all of it after the header on one thread, or one of
// several byte ranges read side by side.
struct canonical_piece {
    request_table requests;
    std::size_t lines = 0;                 // lines read, blank ones included
    std::size_t skipped = 0;               // lines skipped under --skip-bad ...
    std::vector<line_problem> skipped_examples; // ... the first few of them
    std::optional<line_problem> error;      // the first bad line, without --skip-bad (reading stopped)
    std::size_t itl_cut = 0;                // requests whose itl holds fewer gaps than they had (itl_gaps)
    std::size_t invalid_utf8_lines = 0;     // lines read with bytes that are not UTF-8 as U+FFFD
    std::size_t lone_surrogates = 0;        // lone surrogate escapes read as U+FFFD
};

inline bool itl_was_cut(const request_record& r) {
    return r.itl_gaps && *r.itl_gaps > static_cast<std::int64_t>(r.itl.size());
}

// Pooled itl takes every gap of every ok request: a request whose list the driver cut gives only its
// first gaps, which the reader cannot restore, so it says so rather than leave the pool looking whole.
inline void note_cut_itl(run& result, std::size_t requests) {
    if (requests == 0) return;
    result.meta.notes.push_back(fmt::format(
        "itl: {} request{} had more chunk gaps than the driver keeps; the log holds only the first of them "
        "(itl_gaps says how many there were), so the pooled itl leaves out their later gaps",
        requests, requests == 1 ? "" : "s"));
}

// The requests of the lines `lines` gives, each handed to use(record) (which may keep it or not);
// problems go to `piece`. Lines are numbered as `lines` numbers them: from 1 in a piece, or on from
// the header. `bytes` (the size of the range) sizes the table of a piece read whole.
template <class Use>
void read_canonical_lines(line_source& lines, const read_options& options, canonical_piece& piece, Use&& use) {
    canonical_line_parser parser;
    try {
        request_record record;
        while (auto line = lines.next()) {
            piece.lines = lines.line_number();
            if (is_blank(*line)) continue;
            if (auto problem = parser.parse(*line, lines.readable_after_line(), record)) {
                line_problem bad{lines.line_number(), std::move(problem->field), std::move(problem->message)};
                if (!options.skip_bad) {
                    piece.error = std::move(bad);
                    break;
                }
                if (piece.skipped_examples.size() < skipped_lines::max_examples) piece.skipped_examples.push_back(std::move(bad));
                ++piece.skipped;
                continue;
            }
            piece.itl_cut += itl_was_cut(record);
            use(line->size(), record);
        }
    } catch (const input_error& e) { // a line over the length limit, a read error
        piece.error = line_problem{e.line(), e.field(), e.reason()};
    }
    piece.invalid_utf8_lines = parser.invalid_utf8_lines();
    piece.lone_surrogates = parser.lone_surrogates();
}

inline void read_canonical_piece(line_source& lines, const read_options& options, std::uintmax_t bytes,
                                 canonical_piece& piece) {
    std::size_t sample_bytes = 0, sample_lines = 0;
    constexpr std::size_t sample_size = 1024;
    read_canonical_lines(lines, options, piece, [&](std::size_t line_bytes, const request_record& record) {
        if (sample_lines < sample_size) {
            sample_bytes += line_bytes + 1;
            if (++sample_lines == sample_size) piece.requests.reserve(estimate_requests(bytes, sample_bytes, sample_lines));
        }
        piece.requests.push_back(record);
    });
}

// The run the header line describes (its table empty), `lines` left after the header.
inline run read_canonical_header(line_source& lines, const std::filesystem::path& file) {
    const std::string& name = lines.name();
    auto first = lines.next();
    while (first && is_blank(*first)) first = lines.next();
    if (!first) throw input_error(name, 0, "", "empty file");
    run result;
    result.meta = parse_canonical_header(*first, name);
    result.meta.source = {name, "servestat"};
    if (result.meta.label.empty()) result.meta.label = file.stem().string();
    return result;
}

// A piece's first bad line thrown, or its skipped lines added to the run's (line numbers counting
// `line_offset` lines before the piece).
inline void take_problems(run& result, const canonical_piece& piece, std::size_t line_offset) {
    const std::string& name = result.meta.source.path;
    const auto global = [&](const line_problem& p) { return p.line == 0 ? 0 : line_offset + p.line; };
    if (piece.error) throw input_error(name, global(*piece.error), piece.error->field, piece.error->message);
    for (const auto& p : piece.skipped_examples) result.skipped.add(input_error(name, global(p), p.field, p.message).what());
    result.skipped.count += piece.skipped - piece.skipped_examples.size();
}

// The notes of text a piece's lines held and that was read as U+FFFD (canonical_line_parser).
inline void note_text_made_valid(run& result, std::span<const canonical_piece> pieces) {
    std::size_t invalid_utf8_lines = 0, lone_surrogates = 0;
    for (const auto& piece : pieces) {
        invalid_utf8_lines += piece.invalid_utf8_lines;
        lone_surrogates += piece.lone_surrogates;
    }
    auto& notes = result.meta.notes;
    if (invalid_utf8_lines > 0 && std::find(notes.begin(), notes.end(), invalid_utf8_note) == notes.end())
        notes.emplace_back(invalid_utf8_note);
    if (lone_surrogates > 0) notes.push_back(lone_surrogates_note(lone_surrogates));
}

inline std::vector<run> read_canonical_log(const std::filesystem::path& file, const read_options& options) {
    line_source lines(file, options.max_line_bytes);
    const std::string& name = lines.name();
    run result = read_canonical_header(lines, file);

    // The rest of the file in pieces read side by side, each through its own source; a small file,
    // or a pipe (whose size is unknown and which cannot be read twice), through this one.
    const std::size_t header_lines = lines.line_number();
    const std::uintmax_t rest_begin = lines.next_line_offset(), size = lines.file_size();
    const std::size_t threads = resolve_threads(options.threads);
    const auto ranges = plan_pieces(file, {rest_begin, size}, threads, options.min_piece_bytes);
    std::vector<canonical_piece> pieces(std::max<std::size_t>(ranges.size(), 1));
    std::size_t line_offset = 0, itl_cut = 0;
    if (ranges.size() <= 1) {
        lines.count_into(options.progress); // the header's chunk and every one after
        read_canonical_piece(lines, options, size > rest_begin ? size - rest_begin : 0, pieces[0]);
    } else {
        // The header's source read a chunk the first piece reads again: only the header is counted
        // here, each piece counts its own range.
        if (options.progress) options.progress->add(rest_begin);
        line_offset = header_lines;
        // The first piece's table is sized for the whole file, so the others are appended into room
        // it already has (pages not yet touched cost nothing) instead of both being copied anew.
        parallel_for(ranges.size(), threads, [&](std::size_t k) {
            line_source piece_lines(file, options.max_line_bytes, ranges[k]);
            piece_lines.count_into(options.progress);
            read_canonical_piece(piece_lines, options, k == 0 ? size - rest_begin : ranges[k].end - ranges[k].begin, pieces[k]);
        });
    }

    // Joined in file order; line numbers count the pieces before. The first error in the file wins.
    // The first piece becomes the table as it is; the others are appended column by column.
    for (auto& piece : pieces) {
        take_problems(result, piece, line_offset);
        itl_cut += piece.itl_cut;
        if (&piece == &pieces.front()) result.requests = std::move(piece.requests);
        else result.requests.append(std::move(piece.requests), threads);
        line_offset += piece.lines;
    }
    note_text_made_valid(result, pieces);
    if (result.requests.empty() && result.skipped.count == 0)
        throw input_error(name, std::max(line_offset, header_lines), "", "no requests after the header");
    note_cut_itl(result, itl_cut);
    add_scraped_metrics(result.meta, file); // the server's /metrics saved beside the log, if any
    add_metrics_timeline(result.meta, file); // and sampled during the run
    std::vector<run> runs; // not `return {std::move(result)}`: an initializer list is copied from
    runs.push_back(std::move(result));
    return runs;
}

// The log read on one thread and handed over request by request, none kept: how a log larger than
// memory is summarised and how standard input ("/dev/stdin") is read. use(record) gets each request
// in log order. Returns the run (its table empty) with its skipped lines; the first bad line throws
// as read_canonical_log's does, after the requests before it were handed over.
template <class Use>
run stream_canonical_log(const std::filesystem::path& file, const read_options& options, Use&& use) {
    line_source lines(file, options.max_line_bytes);
    lines.count_into(options.progress);
    run result = read_canonical_header(lines, file);
    const std::size_t header_lines = lines.line_number();
    canonical_piece piece;
    std::size_t requests = 0;
    read_canonical_lines(lines, options, piece, [&](std::size_t, const request_record& record) {
        use(record);
        ++requests;
    });
    take_problems(result, piece, 0);
    note_text_made_valid(result, {&piece, 1});
    if (requests == 0 && result.skipped.count == 0)
        throw input_error(result.meta.source.path, std::max(piece.lines, header_lines), "", "no requests after the header");
    note_cut_itl(result, piece.itl_cut);
    add_scraped_metrics(result.meta, file);
    add_metrics_timeline(result.meta, file);
    return result;
}

inline int sniff_canonical_log(std::string_view head) {
    const auto start = head.find_first_not_of(" \t\r\n");
    if (start == std::string_view::npos || head[start] != '{') return 0;
    const auto first_line = head.substr(start, head.find('\n', start) - start);
    return first_line.find("\"servestat\"") != std::string_view::npos &&
                   first_line.find("\"log\"") != std::string_view::npos
               ? 100
               : 0;
}

} // namespace detail

inline constexpr log_format canonical_log_format{
    "servestat", "servestat's canonical JSONL request log (header line + one request per line)",
    &detail::sniff_canonical_log, &detail::read_canonical_log};

} // namespace servestat
