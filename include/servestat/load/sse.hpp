// Incremental Server-Sent Events parser (WHATWG HTML, "Server-sent events: event stream
// interpretation"), for the load driver's streamed responses. Pure: no Asio or Beast, so it is cheap
// to compile and to unit-test byte by byte.
//
// The bytes of one response body arrive in arbitrary pieces: a line, a CR LF pair, the three bytes
// of a BOM may each be split across feed() calls, and the result is the same as feeding the whole
// body at once. What the spec says and this parser does:
// - lines end with LF, CR LF or a lone CR; a CR at the end of one feed and an LF at the start of the
//   next are one line end;
// - a leading UTF-8 BOM (EF BB BF) is skipped, once per stream;
// - "field:value" with one optional space after the colon stripped; a line without a colon is a
//   field with an empty value; a line starting with ':' is a comment; unknown fields are ignored;
// - data lines are joined with LF; event sets the type ("message" when none); id sets the last event
//   id, which persists across events and is ignored when it contains NUL; retry takes only digits;
// - a blank line dispatches the event, unless its data buffer is empty (an event: line alone
//   dispatches nothing); an event the stream ends without dispatching is discarded (finish()).
// Bytes are kept as they came: no UTF-8 validation or U+FFFD replacement, since the payloads are
// JSON whose parser judges them anyway, and a split multi-byte character is simply two pieces of one
// line.
#pragma once

#include <charconv>    // std::from_chars
#include <cstddef>     // std::size_t
#include <cstdint>     // std::uint64_t
#include <cstring>     // std::memchr
#include <optional>    // std::optional
#include <string>      // std::string
#include <string_view> // std::string_view
#include <utility>     // std::forward

#include "servestat/core/errors.hpp" // input_error

namespace servestat::load {

// One dispatched event. The parser hands out a reference to its own buffers, so a callback that
// keeps an event copies it.
struct sse_event {
    std::string type; // "message" unless an event: field named one
    std::string data; // the data: lines joined with LF
    std::string id;   // the last event id seen so far in the stream (it persists)
};

// The data of the event that ends an OpenAI-style stream ("data: [DONE]").
inline constexpr std::string_view openai_done = "[DONE]";

// How a stream ended: clean at an event boundary, or with a line or an event left undispatched (the
// server closed mid-event: a malformed or cut-off response).
enum class sse_end { clean, truncated };

// A line or an event over the parser's size limit: a broken or hostile server must not make the
// client grow its memory without bound.
class sse_error : public input_error {
public:
    explicit sse_error(const std::string& message) : input_error("SSE stream", 0, "", message) {}
};

inline constexpr std::size_t default_max_event_bytes = std::size_t{16} << 20;

class sse_parser {
public:
    // max_event_bytes bounds both one line and one event's data; past it feed() throws sse_error.
    explicit sse_parser(std::size_t max_event_bytes = default_max_event_bytes) : max_bytes_(max_event_bytes) {}

    // Parses the next piece of the body and calls on_event(const sse_event&) for each event it
    // completes. If on_event or the size check throws, the parser is left mid-line: reset() before
    // reusing it.
    template <class OnEvent>
    void feed(std::string_view bytes, OnEvent&& on_event) {
        if (bom_matched_ < bom_done) bytes = skip_bom(bytes, on_event);
        parse(bytes, on_event);
    }

    // Whether bytes since the last dispatch would be lost if the stream ended now: an unterminated
    // line, or data lines not yet followed by a blank line.
    bool has_partial_event() const noexcept {
        return !line_.empty() || !event_.data.empty() || (bom_matched_ > 0 && bom_matched_ < bom_done);
    }

    // The end of the stream: discards what a blank line did not dispatch, as the spec does, says
    // whether anything was, and readies the parser for a new stream.
    [[nodiscard]] sse_end finish() noexcept {
        const sse_end end = has_partial_event() ? sse_end::truncated : sse_end::clean;
        reset();
        return end;
    }

    // The stream's last retry: value in milliseconds, if it sent one.
    std::optional<std::uint64_t> retry_ms() const noexcept { return retry_ms_; }
    const std::string& last_event_id() const noexcept { return last_event_id_; }

    // Back to the start of a new stream; keeps the buffers' capacity.
    void reset() noexcept {
        line_.clear();
        event_.type.clear();
        event_.data.clear();
        event_.id.clear();
        last_event_id_.clear();
        retry_ms_.reset();
        bom_matched_ = 0;
        skip_lf_ = false;
    }

private:
    static constexpr int bom_done = 3;
    static constexpr char bom[3] = {'\xEF', '\xBB', '\xBF'};

    // Consumes the part of a BOM that starts the stream. On a mismatch the bytes matched so far were
    // ordinary content after all, and are parsed first.
    template <class OnEvent>
    std::string_view skip_bom(std::string_view bytes, OnEvent& on_event) {
        while (!bytes.empty() && bom_matched_ < bom_done) {
            if (bytes.front() != bom[bom_matched_]) {
                const int matched = bom_matched_;
                bom_matched_ = bom_done;
                parse(std::string_view(bom, static_cast<std::size_t>(matched)), on_event);
                return bytes;
            }
            ++bom_matched_;
            bytes.remove_prefix(1);
        }
        return bytes;
    }

    // Splits bytes into lines. The next CR and LF are each searched with memchr once and remembered
    // until passed, so a feed costs linear time whichever line end the server uses, and a line that
    // lies wholly inside one feed is parsed in place without a copy.
    template <class OnEvent>
    void parse(std::string_view bytes, OnEvent& on_event) {
        const char* p = bytes.data();
        const char* const end = p + bytes.size();
        if (p == end) return;
        if (skip_lf_) {
            skip_lf_ = false;
            if (*p == '\n') ++p;
        }
        const char* cr = find(p, end, '\r');
        const char* lf = find(p, end, '\n');
        while (p != end) {
            if (cr < p) cr = find(p, end, '\r');
            if (lf < p) lf = find(p, end, '\n');
            const char* const line_end = cr < lf ? cr : lf;
            if (line_end == end) {
                append_partial(p, end);
                return;
            }
            std::string_view line(p, static_cast<std::size_t>(line_end - p));
            if (!line_.empty()) {
                append_partial(p, line_end);
                line = line_;
            }
            p = line_end + 1;
            if (*line_end == '\r') {
                if (p == end) skip_lf_ = true;
                else if (*p == '\n') ++p;
            }
            process_line(line, on_event);
            line_.clear();
        }
    }

    static const char* find(const char* from, const char* end, char c) noexcept {
        const void* hit = std::memchr(from, c, static_cast<std::size_t>(end - from));
        return hit ? static_cast<const char*>(hit) : end;
    }

    void append_partial(const char* from, const char* to) {
        const auto n = static_cast<std::size_t>(to - from);
        require_line_within_limit(line_.size() + n); // bounds the buffer before the line's end arrives
        line_.append(from, n);
    }

    // The one line limit: a line's bytes without its terminator, whether it came whole or in pieces,
    // so the same stream is accepted or refused wherever the network splits it.
    void require_line_within_limit(std::size_t line_bytes) const {
        if (line_bytes > max_bytes_) throw sse_error(over_limit("a line"));
    }

    std::string over_limit(const char* what) const {
        std::string message(what);
        return message.append(" exceeds the parser's limit of ")
            .append(std::to_string(max_bytes_))
            .append(" bytes (max_event_bytes)");
    }

    template <class OnEvent>
    void process_line(std::string_view line, OnEvent& on_event) {
        require_line_within_limit(line.size());
        if (line.empty()) return dispatch(on_event);
        if (line.front() == ':') return; // a comment: keep-alives and the like
        std::string_view field = line, value;
        if (const auto colon = line.find(':'); colon != std::string_view::npos) {
            field = line.substr(0, colon);
            value = line.substr(colon + 1);
            if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
        }
        if (field == "data") {
            if (event_.data.size() + value.size() + 1 > max_bytes_) throw sse_error(over_limit("an event's data"));
            event_.data.append(value).push_back('\n');
        } else if (field == "event") {
            event_.type.assign(value);
        } else if (field == "id") {
            if (value.find('\0') == std::string_view::npos) last_event_id_.assign(value);
        } else if (field == "retry") {
            set_retry(value);
        }
    }

    // Only a value of ASCII digits sets the retry time; the spec ignores anything else.
    void set_retry(std::string_view value) noexcept {
        std::uint64_t ms = 0;
        const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), ms);
        if (ec == std::errc() && ptr == value.data() + value.size()) retry_ms_ = ms;
    }

    // The buffers are cleared after the callback returns or throws: their capacity is reused, so a
    // steady stream allocates nothing per event.
    template <class OnEvent>
    void dispatch(OnEvent& on_event) {
        struct clear_on_exit {
            sse_event& e;
            ~clear_on_exit() {
                e.type.clear();
                e.data.clear();
            }
        } guard{event_};
        if (event_.data.empty()) return;
        event_.data.pop_back(); // the LF after the last data line
        if (event_.type.empty()) event_.type.assign("message");
        event_.id.assign(last_event_id_);
        on_event(static_cast<const sse_event&>(event_));
    }

    std::size_t max_bytes_;
    std::string line_; // a line whose end has not arrived yet
    sse_event event_;  // type and data buffers of the event being read
    std::string last_event_id_;
    std::optional<std::uint64_t> retry_ms_;
    int bom_matched_ = 0;  // leading BOM bytes seen; bom_done once decided
    bool skip_lf_ = false; // the last feed ended with CR: an LF first in the next belongs to it
};

} // namespace servestat::load
