// A fast path for the request lines of servestat's own log: one pass over a flat JSON object as the
// load driver (or Python's json.dumps) writes it ({"key": value, ...}: no escapes, numbers, strings,
// literals and an `itl` array of numbers). It accepts a strict subset of JSON and of what the simdjson path
// accepts, and gives the same record bit for bit; any line it is not sure of (whitespace, an escape,
// a nested value, a byte over 0x7F, a value of the wrong type, a number out of range) it
// declines, and the simdjson path reads that line and words any error. Tests and the fuzz target
// canonical_line check the two paths agree on every line.
#pragma once

#include <algorithm>    // std::min
#include <array>        // std::array
#include <bit>          // std::countr_zero, std::endian
#include <cstdint>      // std::uint64_t, std::int32_t
#include <cstring>      // std::memcmp, std::memcpy
#include <type_traits>  // std::conditional_t
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
                             prompt_tokens_original, connect_time, tls_time, cached_tokens, turn, cacheable_tokens,
                             itl_gaps, server_ttft, server_itl, server_spec_acceptance, server_draft_acceptance };

// Whether `key` spells `name`, its length already known equal: a few overlapping word compares
// against constants (memcmp, which GCC calls for sizes like 7 or 13, was 6 % of reading a log).
template <std::size_t N>
[[gnu::always_inline]] inline bool spells(std::string_view key, const char (&name)[N]) noexcept {
    constexpr std::size_t size = N - 1;
    static_assert(size >= 2);
    using word = std::conditional_t<(size >= 8), std::uint64_t, std::conditional_t<(size >= 4), std::uint32_t, std::uint16_t>>;
    const auto same_at = [&](std::size_t at) {
        word a, b;
        std::memcpy(&a, key.data() + at, sizeof a);
        std::memcpy(&b, name + at, sizeof b);
        return a == b;
    };
    bool same = same_at(size - sizeof(word)); // the last word, overlapping the one before
    for (std::size_t at = 0; at + sizeof(word) < size; at += sizeof(word)) same &= same_at(at);
    return same;
}

// Dispatch on length first: one or two comparisons per key instead of walking every name.
[[gnu::always_inline]] inline canonical_field identify_canonical_field(std::string_view key) noexcept {
    using f = canonical_field;
    switch (key.size()) {
    case 3: return spells(key, "itl") ? f::itl : f::unknown;
    case 4: return spells(key, "turn") ? f::turn : f::unknown;
    case 5:
        if (key[0] == 't') return spells(key, "t_end") ? f::t_end : f::unknown;
        return spells(key, "error") ? f::error : f::unknown;
    case 6:
        if (key[0] == 't') return spells(key, "t_sent") ? f::t_sent : f::unknown;
        return spells(key, "status") ? f::status : f::unknown;
    case 7:
        if (key[0] != 't') return f::unknown;
        if (key[2] == 'f') return spells(key, "t_first") ? f::t_first : f::unknown;
        if (key[2] == 's') return spells(key, "t_sched") ? f::t_sched : f::unknown;
        return spells(key, "trimmed") ? f::trimmed : f::unknown;
    case 8:
        if (key[0] == 'i') return spells(key, "itl_gaps") ? f::itl_gaps : f::unknown;
        return spells(key, "tls_time") ? f::tls_time : f::unknown;
    case 10:
        if (key[0] == 'm') return spells(key, "max_tokens") ? f::max_tokens : f::unknown;
        return spells(key, "server_itl") ? f::server_itl : f::unknown;
    case 11:
        if (key[0] == 'h') return spells(key, "http_status") ? f::http_status : f::unknown;
        return spells(key, "server_ttft") ? f::server_ttft : f::unknown;
    case 12:
        if (key[0] == 'c') return spells(key, "connect_time") ? f::connect_time : f::unknown;
        return spells(key, "server_queue") ? f::server_queue : f::unknown;
    case 13:
        if (key[0] == 'p') return spells(key, "prompt_tokens") ? f::prompt_tokens : f::unknown;
        if (key[0] == 'o') return spells(key, "output_tokens") ? f::output_tokens : f::unknown;
        if (key[0] == 'c') return spells(key, "cached_tokens") ? f::cached_tokens : f::unknown;
        return spells(key, "server_decode") ? f::server_decode : f::unknown;
    case 14: return spells(key, "server_prefill") ? f::server_prefill : f::unknown;
    case 16: return spells(key, "cacheable_tokens") ? f::cacheable_tokens : f::unknown;
    case 22:
        if (key[0] == 'p') return spells(key, "prompt_tokens_original") ? f::prompt_tokens_original : f::unknown;
        return spells(key, "server_spec_acceptance") ? f::server_spec_acceptance : f::unknown;
    case 23: return spells(key, "server_draft_acceptance") ? f::server_draft_acceptance : f::unknown;
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
        std::size_t position = 0;
        do {
            canonical_field field;
            if (!key(position++, field) || !value(field, out)) return false;
        } while (take(','));
        return take('}') && at_end() && has_status_;
    }

private:
    // JSON's whitespace; the line's own end is not in it.
    [[gnu::always_inline]] void skip_space() noexcept {
        while (p_ != end_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\r' || *p_ == '\n')) ++p_;
    }
    [[gnu::always_inline]] static bool is_space(char c) noexcept { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }
    // The character c after any whitespace, and the whitespace after it. Lines as servestat writes
    // them have none, so that case is tried first.
    [[gnu::always_inline]] bool take(char c) noexcept {
        if (p_ != end_ && *p_ == c) {
            ++p_;
            if (p_ != end_ && is_space(*p_)) skip_space();
            return true;
        }
        skip_space();
        if (p_ == end_ || *p_ != c) return false;
        ++p_;
        skip_space();
        return true;
    }
    // The character c exactly here (inside a token, where whitespace ends it).
    [[gnu::always_inline]] bool take_here(char c) noexcept {
        if (p_ == end_ || *p_ != c) return false;
        ++p_;
        return true;
    }
    bool at_end() const noexcept { return p_ == end_; }
    bool next_is(char c) const noexcept { return p_ != end_ && *p_ == c; }

    // The first of the 8 bytes at p that is a quote, a backslash, a control character or over 0x7F
    // (8 when none is), by the bit tricks of "Bit Twiddling Hacks" (haszero, hasless): they may flag
    // a byte above a true one, never one below it, so the lowest flag is exact.
    [[gnu::always_inline]] static unsigned first_special_byte(const char* p) noexcept {
        constexpr std::uint64_t ones = 0x0101010101010101, highs = 0x8080808080808080;
        std::uint64_t v;
        std::memcpy(&v, p, sizeof v);
        const auto has_zero = [](std::uint64_t x) { return (x - ones) & ~x; };
        const std::uint64_t flags = (has_zero(v ^ (ones * '"')) | has_zero(v ^ (ones * '\\')) | (v - ones * 0x20) | v) & highs;
        return flags == 0 ? 8 : static_cast<unsigned>(std::countr_zero(flags)) / 8;
    }

    // A string of printable ASCII without escapes; anything else is the slow path's to judge.
    [[gnu::always_inline]] bool string_token(std::string_view& out) noexcept {
        if (!take_here('"')) return false;
        const char* start = p_;
        // A word at a time (the flags need little-endian order); the last few bytes of a line one by one.
        while (std::endian::native == std::endian::little && end_ - p_ >= 8) {
            const unsigned at = first_special_byte(p_);
            p_ += at;
            if (at < 8) {
                if (*p_ != '"') return false;
                out = {start, static_cast<std::size_t>(p_ - start)};
                ++p_;
                return true;
            }
        }
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

    // A key and its colon. Lines of one log repeat their keys in one order, so the bytes `"key":` of
    // the line before at this position are tried first: a match is the same key, whole (a cached key
    // holds no escape, and its closing quote is in the match). Otherwise the key is scanned and
    // identified, and remembered for the next line.
    [[gnu::always_inline]] bool key(std::size_t position, canonical_field& field) noexcept {
        known_key* known = position < known_keys_.size() ? &known_keys_[position] : nullptr;
        if (known && known->size != 0 && static_cast<std::size_t>(end_ - p_) >= known->size && known->matches(p_)) {
            p_ += known->size;
            if (p_ != end_ && is_space(*p_)) skip_space();
            field = known->field;
            return true;
        }
        const char* start = p_;
        std::string_view name;
        if (!string_token(name) || !take(':')) return false;
        field = identify_canonical_field(name);
        const std::size_t size = name.size() + 3; // "name":
        if (known) known->remember(start, size >= 4 && size <= known_key::most && start[size - 1] == ':' ? size : 0, field);
        return true;
    }

    // The bytes `"key":` (4 to 24 of them; 0: none) met at one position of a line, and which field it is.
    struct known_key {
        static constexpr std::size_t most = 24;
        char bytes[most] = {};
        std::size_t size = 0;
        canonical_field field = canonical_field::unknown;

        void remember(const char* at, std::size_t n, canonical_field f) noexcept {
            std::memcpy(bytes, at, n);
            size = n;
            field = f;
        }
        // Overlapping word compares: 4 to 7 bytes as two 4-byte words, 8 to 24 as three 8-byte words.
        [[gnu::always_inline]] bool matches(const char* at) const noexcept {
            const auto same = [&]<class Word>(Word, std::size_t offset) {
                Word a, b;
                std::memcpy(&a, at + offset, sizeof a);
                std::memcpy(&b, bytes + offset, sizeof b);
                return a == b;
            };
            if (size < 8) return same(std::uint32_t{}, 0) & same(std::uint32_t{}, size - 4);
            return same(std::uint64_t{}, 0) & same(std::uint64_t{}, std::min<std::size_t>(8, size - 8)) & same(std::uint64_t{}, size - 8);
        }
    };

    template <std::size_t N>
    [[gnu::always_inline]] bool literal(const char (&word)[N]) noexcept {
        constexpr std::size_t size = N - 1;
        if (p_ == end_ || *p_ != word[0] || static_cast<std::size_t>(end_ - p_) < size || std::memcmp(p_, word, size) != 0)
            return false;
        p_ += size;
        return true;
    }

    [[gnu::always_inline]] bool number(double& out) noexcept {
        const std::size_t length = json_number(std::string_view(p_, static_cast<std::size_t>(end_ - p_)), out);
        p_ += length;
        return length > 0;
    }

    // A plain non-negative integer up to INT32_MAX (what the simdjson path's get_uint64 takes without
    // a second look); 37.0, 1e2 and the rest go the slow way.
    [[gnu::always_inline]] bool count(std::int32_t& out) noexcept {
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
    [[gnu::always_inline]] bool continues_number() const noexcept { return p_ != end_ && (is_digit(*p_) || *p_ == '.' || *p_ == 'e' || *p_ == 'E'); }

    [[gnu::always_inline]] static bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }
    static std::uint64_t digit(char c) noexcept { return static_cast<std::uint64_t>(c - '0'); }

    // A time, or another plain number (an acceptance figure): a finite number, or null (which leaves
    // the field as it was, as the slow path does).
    [[gnu::always_inline]] bool time(std::optional<double>& out) noexcept {
        if (literal("null")) return true;
        double x = 0;
        if (!number(x)) return false;
        out = x;
        return true;
    }

    [[gnu::always_inline]] bool count_field(std::optional<std::int32_t>& out) noexcept {
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

    [[gnu::always_inline]] bool value(canonical_field which, request_record& r) {
        using f = canonical_field;
        switch (which) {
        case f::t_sched: return time(r.t_sched);
        case f::t_sent: return time(r.t_sent);
        case f::t_first: return time(r.t_first);
        case f::t_end: return time(r.t_end);
        case f::server_queue: return time(r.server_queue);
        case f::server_prefill: return time(r.server_prefill);
        case f::server_decode: return time(r.server_decode);
        case f::server_ttft: return time(r.server_ttft);
        case f::server_itl: return time(r.server_itl);
        // Plain numbers, read as a time is; check_request judges their range on either path.
        case f::server_spec_acceptance: return time(r.server_spec_acceptance);
        case f::server_draft_acceptance: return time(r.server_draft_acceptance);
        case f::connect_time: return time(r.connect_time);
        case f::tls_time: return time(r.tls_time);
        case f::cached_tokens: return count_field(r.cached_tokens);
        case f::turn: return count_field(r.turn);
        case f::cacheable_tokens: return count_field(r.cacheable_tokens);
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
        case f::itl_gaps: return false; // a line whose itl the driver cut: rare, the slow path reads it
        case f::unknown: return skip_scalar();
        }
        return false;
    }

    const char* p_ = nullptr;
    const char* end_ = nullptr;
    bool has_status_ = false;
    std::array<known_key, 16> known_keys_{}; // by position in the line
};

} // namespace servestat::detail
