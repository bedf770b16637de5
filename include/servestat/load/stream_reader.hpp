// One streamed response (chat/completions chunks, or Responses API events) read event by event: what the client makes of the SSE
// events between the server's first byte and its close, without the socket or the clock, so the
// unit tests and the fuzzer (fuzz/harness/driver.cpp) run the code the load driver runs.
#pragma once

#include <cstdint>  // std::int32_t
#include <limits>   // std::numeric_limits
#include <optional> // std::optional
#include <string>   // std::string
#include <string_view> // std::string_view

#include "servestat/load/response.hpp" // response_reader, response_info, response_error, api_protocol
#include "servestat/load/sse.hpp"      // sse_parser, sse_event

namespace servestat::load {

class stream_reader {
public:
    explicit stream_reader(response_reader& reader, api_protocol protocol = api_protocol::chat_completions)
        : reader_(reader), protocol_(protocol) {}

    // Feeds the next piece of the body; on_reading(const response_info&) is called for each event
    // that carries a reading (content, usage, timings), in order. Throws response_error for an
    // event that is not a JSON object, sse_error past the parser's limit.
    template <class OnReading>
    void feed(std::string_view piece, OnReading&& on_reading) {
        events_.feed(piece, [&](const sse_event& event) {
            if (done_) return; // nothing after the end ([DONE], response.completed) counts
            if (event.data == openai_done) {
                done_ = protocol_ == api_protocol::chat_completions;
                return;
            }
            const response_info info = reader_.read(event.data);
            if (info.error) {
                error_ = *info.error;
                return;
            }
            if (info.ends_response && protocol_ == api_protocol::responses) done_ = true;
            // Saturates: a server flooding chunks until the timeout must not overflow the count.
            if (info.has_content && content_chunks_ < std::numeric_limits<std::int32_t>::max()) ++content_chunks_;
            if (info.completion_tokens) completion_tokens_ = info.completion_tokens;
            on_reading(info);
        });
    }

    // After the server closed: the last error event's text, if one came; otherwise throws response_error
    // when the stream ended inside an event or without its end ([DONE]; response.completed).
    std::optional<std::string> finish() {
        if (error_) return error_;
        if (events_.has_partial_event()) throw response_error("the event stream ended inside an event");
        if (done_) return std::nullopt;
        throw response_error(protocol_ == api_protocol::responses
                                 ? "the event stream ended without response.completed"
                                 : "the event stream ended without data: [DONE]");
    }

    std::int32_t content_chunks() const noexcept { return content_chunks_; }
    // The server's completion_tokens from the usage chunk, else the content chunks counted.
    std::int32_t output_tokens() const noexcept { return completion_tokens_.value_or(content_chunks_); }

private:
    response_reader& reader_;
    api_protocol protocol_;
    sse_parser events_;
    bool done_ = false;
    std::optional<std::string> error_;
    std::int32_t content_chunks_ = 0;
    std::optional<std::int32_t> completion_tokens_;
};

} // namespace servestat::load
