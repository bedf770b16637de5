// A fast path for the request lines of servestat's own log: one pass over a flat JSON object as the
// load driver (or Python's json.dumps) writes it ({"key": value, ...}: no escapes, numbers, strings,
// literals and an `itl` array of numbers). It accepts a strict subset of JSON and of what the simdjson path
// accepts, and gives the same record bit for bit; any line it is not sure of (whitespace, an escape,
// a nested value, a byte over 0x7F, a value of the wrong type, a number out of range) it
// declines, and the simdjson path reads that line and words any error. Tests and the fuzz target
// canonical_line check the two paths agree on every line.
#pragma once

#include <cstdint>      // std::uint64_t, std::int32_t
#include <limits>       // std::numeric_limits
#include <optional>     // std::optional
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <vector>       // std::vector

#include "servestat/core/request_record.hpp" // request_record
#include "servestat/core/request_status.hpp" // parse_request_status
#include "servestat/ingest/json_number.hpp"    // json_number

namespace servestat::detail {

// The fields of a canonical request line; the simdjson path names them the same way.
enum class canonical_field { unknown, t_sched, t_sent, t_first, t_end, prompt_tokens, output_tokens, max_tokens,
                             status, http_status, error, itl, server_queue, server_prefill, server_decode, trimmed,
                             prompt_tokens_original };

// Dispatch on length first: one or two comparisons per key instead of walking every name.
inline canonical_field identify_canonical_field(std::string_view key) noexcept {
    using f = canonical_field;
    auto is = [key](std::string_view name, f which) { return key == name ? which : f::unknown; };
    switch (key.size()) {
    case 3: return is("itl", f::itl);
    case 5: return key[0] == 't' ? is("t_end", f::t_end) : is("error", f::error);
    case 6: return key[0] == 't' ? is("t_sent", f::t_sent) : is("status", f::status);
    case 7:
        if (key[0] != 't') return f::unknown;
        if (key[2] == 'f') return is("t_first", f::t_first);
        return key[2] == 's' ? is("t_sched", f::t_sched) : is("trimmed", f::trimmed);
    case 10: return is("max_tokens", f::max_tokens);
    case 11: return is("http_status", f::http_status);
    case 12: return is("server_queue", f::server_queue);
    case 13:
        if (key[0] == 'p') return is("prompt_tokens", f::prompt_tokens);
        return key[0] == 'o' ? is("output_tokens", f::output_tokens) : is("server_decode", f::server_decode);
    case 14: return is("server_prefill", f::server_prefill);
    case 22: return is("prompt_tokens_original", f::prompt_tokens_original);
    default: return f::unknown;
    }
}

class canonical_fast_line {
public:
    // Fills `out` (cleared first) and returns true, or returns false: then `out` is unspecified and
    // the caller reads the line the slow way.
    bool parse(std::string_view line, request_record& out) {
        out.clear();
        p_ = line.data();
        end_ = line.data() + line.size();
        has_status_ = false;
        if (!take('{')) return false;
        if (take('}')) return at_end() && has_status_;
        do {
            std::string_view key;
            if (!string_token(key) || !take(':')) return false;
            if (!value(identify_canonical_field(key), out)) return false;
        } while (take(','));
        return take('}') && at_end() && has_status_;
    }

private:
    // JSON's whitespace; the line's own end is not in it.
    void skip_space() noexcept {
        while (p_ != end_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\r' || *p_ == '\n')) ++p_;
    }
    // The character c after any whitespace, and the whitespace after it.
    bool take(char c) noexcept {
        skip_space();
        if (p_ == end_ || *p_ != c) return false;
        ++p_;
        skip_space();
        return true;
    }
    // The character c exactly here (inside a token, where whitespace ends it).
    bool take_here(char c) noexcept {
        if (p_ == end_ || *p_ != c) return false;
        ++p_;
        return true;
    }
    bool at_end() const noexcept { return p_ == end_; }
    bool next_is(char c) const noexcept { return p_ != end_ && *p_ == c; }

    // A string of printable ASCII without escapes; anything else is the slow path's to judge.
    bool string_token(std::string_view& out) noexcept {
        if (!take_here('"')) return false;
        const char* start = p_;
        for (; p_ != end_; ++p_) {
            const auto c = static_cast<unsigned char>(*p_);
            if (c == '"') {
                out = {start, static_cast<std::size_t>(p_ - start)};
                ++p_;
                return true;
            }
            if (c < 0x20 || c >= 0x80 || c == '\\') return false;
        }
        return false;
    }

    bool literal(std::string_view word) noexcept {
        if (static_cast<std::size_t>(end_ - p_) < word.size() || std::string_view(p_, word.size()) != word) return false;
        p_ += word.size();
        return true;
    }

    bool number(double& out) noexcept {
        const std::size_t length = json_number(std::string_view(p_, static_cast<std::size_t>(end_ - p_)), out);
        p_ += length;
        return length > 0;
    }

    // A plain non-negative integer up to INT32_MAX (what the simdjson path's get_uint64 takes without
    // a second look); 37.0, 1e2 and the rest go the slow way.
    bool count(std::int32_t& out) noexcept {
        if (p_ == end_ || !is_digit(*p_)) return false;
        if (*p_ == '0') {
            ++p_;
            out = 0;
            return !continues_number();
        }
        std::uint64_t n = 0;
        int digits = 0;
        for (; p_ != end_ && is_digit(*p_); ++p_)
            if (++digits > 10) return false;
            else n = n * 10 + digit(*p_);
        if (continues_number() || n > static_cast<std::uint64_t>(std::numeric_limits<std::int32_t>::max())) return false;
        out = static_cast<std::int32_t>(n);
        return true;
    }
    bool continues_number() const noexcept { return p_ != end_ && (is_digit(*p_) || *p_ == '.' || *p_ == 'e' || *p_ == 'E'); }

    static bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }
    static std::uint64_t digit(char c) noexcept { return static_cast<std::uint64_t>(c - '0'); }

    // A time: a finite number, or null (which leaves the field as it was, as the slow path does).
    bool time(std::optional<double>& out) noexcept {
        if (literal("null")) return true;
        double x = 0;
        if (!number(x)) return false;
        out = x;
        return true;
    }

    bool count_field(std::optional<std::int32_t>& out) noexcept {
        if (literal("null")) return true;
        std::int32_t n = 0;
        if (!count(n)) return false;
        out = n;
        return true;
    }

    bool gaps(std::vector<double>& out) {
        if (literal("null")) return true;
        if (!take('[')) return false;
        out.clear();
        if (take(']')) return true;
        do {
            double x = 0;
            if (!number(x) || x < 0) return false;
            out.push_back(x);
        } while (take(','));
        return take(']');
    }

    // A value the reader does not use: skipped when it is a scalar, declined when it nests.
    bool skip_scalar() noexcept {
        std::string_view ignored;
        double x = 0;
        if (next_is('"')) return string_token(ignored);
        return literal("null") || literal("true") || literal("false") || number(x);
    }

    bool value(canonical_field which, request_record& r) {
        using f = canonical_field;
        switch (which) {
        case f::t_sched: return time(r.t_sched);
        case f::t_sent: return time(r.t_sent);
        case f::t_first: return time(r.t_first);
        case f::t_end: return time(r.t_end);
        case f::server_queue: return time(r.server_queue);
        case f::server_prefill: return time(r.server_prefill);
        case f::server_decode: return time(r.server_decode);
        case f::prompt_tokens: return count_field(r.prompt_tokens);
        case f::output_tokens: return count_field(r.output_tokens);
        case f::max_tokens: return count_field(r.max_tokens);
        case f::http_status: return count_field(r.http_status);
        case f::prompt_tokens_original: return count_field(r.prompt_tokens_original);
        case f::status: {
            std::string_view s;
            if (!string_token(s)) return false;
            const auto status = parse_request_status(s);
            if (!status) return false;
            r.status = *status;
            has_status_ = true;
            return true;
        }
        case f::error: {
            if (literal("null")) return true;
            std::string_view s;
            if (!string_token(s)) return false;
            r.error.assign(s);
            return true;
        }
        case f::trimmed:
            if (literal("null")) return true;
            if (literal("true")) r.trimmed = true;
            else if (literal("false")) r.trimmed = false;
            else return false;
            return true;
        case f::itl: return gaps(r.itl);
        case f::unknown: return skip_scalar();
        }
        return false;
    }

    const char* p_ = nullptr;
    const char* end_ = nullptr;
    bool has_status_ = false;
};

} // namespace servestat::detail
