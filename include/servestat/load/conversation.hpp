// One multi-turn session in flight: each turn's request built from the script and the replies so far.
//
// Turn k's prompt is the whole conversation so far: the system prompt, every earlier user message
// and the server's actual replies, then the new user text. With the Responses API the driver sends
// only the new text and the previous reply's id (`previous_response_id`): the server holds the rest.
#pragma once

#include <cstddef>  // std::size_t
#include <cstdint>  // std::int32_t
#include <optional> // std::optional
#include <string>   // std::string
#include <vector>   // std::vector

#include <nlohmann/json.hpp> // nlohmann::json, nlohmann::ordered_json

#include "servestat/core/request_status.hpp" // request_status
#include "servestat/load/client.hpp"         // prepared_request, api_protocol
#include "servestat/load/log_writer.hpp"     // request_result
#include "servestat/load/session.hpp"        // session_script
#include "servestat/load/token_counter.hpp"  // chat_message

namespace servestat::load {

// What every turn's request carries besides the conversation.
struct session_request_options {
    std::string model;
    api_protocol protocol = api_protocol::chat_completions;
    bool stream = true;
    std::int32_t max_tokens = 128;                     // when the turn does not say
    std::optional<std::int32_t> max_tokens_override;   // --max-tokens
    nlohmann::json extra = nlohmann::json::object();   // --extra
};

// One session in flight: builds turn k's request from the script and the replies so far.
class conversation {
public:
    conversation(const session_script& script, const session_request_options& options)
        : script_(script), options_(options) {}

    bool done() const noexcept { return next_ >= script_.turns.size(); }
    std::int32_t next_turn() const noexcept { return static_cast<std::int32_t>(next_) + 1; }
    double think_time() const { return next_ == 0 ? 0.0 : script_.turns[next_].think_time; }
    const session_script& script() const noexcept { return script_; }

    // The next turn's request.
    prepared_request next_request() const {
        const auto& turn = script_.turns[next_];
        prepared_request out;
        out.stream = options_.stream;
        out.protocol = options_.protocol;
        out.keep_reply = next_ + 1 < script_.turns.size(); // the last reply is not sent back
        const std::int32_t max_tokens = options_.max_tokens_override.value_or(turn.max_tokens.value_or(options_.max_tokens));
        nlohmann::ordered_json body;
        body["model"] = options_.model;
        const auto message = [](const std::string& role, const std::string& content) {
            return nlohmann::ordered_json{{"role", role}, {"content", content}};
        };
        if (options_.protocol == api_protocol::responses) {
            out.target = "/v1/responses";
            auto input = nlohmann::ordered_json::array();
            if (previous_response_id_.empty()) { // the first turn, or a server that gave no id: all of it
                if (!script_.system.empty()) input.push_back(message("system", script_.system));
                for (const auto& m : history_) input.push_back(message(m.role, m.content));
            } else {
                body["previous_response_id"] = previous_response_id_;
            }
            input.push_back(message("user", user_text(next_)));
            body["input"] = std::move(input);
            body["max_output_tokens"] = max_tokens;
        } else {
            out.target = "/v1/chat/completions";
            auto messages = nlohmann::ordered_json::array();
            if (!script_.system.empty()) messages.push_back(message("system", script_.system));
            for (const auto& m : history_) messages.push_back(message(m.role, m.content));
            messages.push_back(message("user", user_text(next_)));
            body["messages"] = std::move(messages);
            body["max_tokens"] = max_tokens;
        }
        body["temperature"] = 0.0;
        for (const auto& [key, value] : options_.extra.items()) body[key] = value;
        body["stream"] = options_.stream;
        if (options_.stream && options_.protocol == api_protocol::chat_completions)
            body["stream_options"] = {{"include_usage", true}};
        out.body = body.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
        return out;
    }

    // Records turn k's reply; false when the session cannot go on (the turn failed: without its
    // reply the conversation's next prompt does not exist).
    bool take_reply(const request_result& r) {
        const std::size_t k = next_++;
        if (r.status != request_status::ok) {
            next_ = script_.turns.size();
            return false;
        }
        if (options_.protocol == api_protocol::responses) previous_response_id_ = r.response_id;
        if (previous_response_id_.empty()) {
            history_.push_back({"user", user_text(k)});
            history_.push_back({"assistant", r.reply});
        } else {
            history_.clear(); // the server holds the conversation
        }
        return true;
    }

private:
    std::string user_text(std::size_t k) const { return turn_text(script_, k); }

    const session_script& script_;
    const session_request_options& options_;
    std::size_t next_ = 0;
    std::vector<chat_message> history_;
    std::string previous_response_id_;
};

} // namespace servestat::load
