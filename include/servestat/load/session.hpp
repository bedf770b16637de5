// Multi-turn sessions: a workload of conversations, and the state of one conversation in flight.
//
// A session workload is JSON Lines, one conversation per line:
//   {"session":"s1","system":"...","context":"...","turns":[{"user":"...","max_tokens":64,"think_time":2.5}, ...]}
// `system` (optional) is the system prompt, shared across sessions when the texts are equal;
// `context` (optional) is the session's own material (a document, a profile), put before the first
// user message; each turn's `think_time` (seconds, optional) is the user's pause after the previous
// reply before sending it. Turn k's prompt is the whole conversation so far: the system prompt, every
// earlier user message and the server's actual replies, then the new user text; with the Responses
// API the driver sends only the new text and the previous reply's id (`previous_response_id`).
#pragma once

#include <cmath>         // std::isfinite
#include <cstdint>       // std::int32_t
#include <optional>      // std::optional
#include <string>        // std::string
#include <string_view>   // std::string_view
#include <unordered_set> // std::unordered_set
#include <utility>       // std::move
#include <vector>        // std::vector

#include <fmt/format.h>      // fmt::format
#include <nlohmann/json.hpp> // nlohmann::json, nlohmann::ordered_json

#include "servestat/core/errors.hpp"        // input_error
#include "servestat/load/client.hpp"        // prepared_request, api_protocol
#include "servestat/load/log_writer.hpp"    // request_result
#include "servestat/load/token_counter.hpp" // chat_message, token_counter
#include "servestat/load/workload.hpp"      // detail::for_each_line, parse_json_line, read_file_text, json_type

namespace servestat::load {

struct session_turn {
    std::string user;
    std::optional<std::int32_t> max_tokens;
    double think_time = 0;
};

struct session_script {
    std::string id;
    std::string system;
    std::string context;
    std::vector<session_turn> turns;
    std::size_t line = 0;
    std::int32_t system_tokens = 0; // the system prompt's own tokens, counted by the driver (not in the file)
};

namespace detail {

inline std::string session_string(const nlohmann::json& row, const char* key, const std::string& file, std::size_t line) {
    const auto it = row.find(key);
    if (it == row.end() || it->is_null()) return {};
    if (!it->is_string()) throw input_error(file, line, key, "must be a string, got " + json_type(*it));
    return it->get<std::string>();
}

inline session_turn read_turn(const nlohmann::json& t, const std::string& file, std::size_t line, std::size_t k) {
    const auto field = [k](const char* name) { return fmt::format("turns[{}].{}", k, name); };
    if (!t.is_object()) throw input_error(file, line, fmt::format("turns[{}]", k), "must be an object, got " + json_type(t));
    session_turn out;
    const auto user = t.find("user");
    if (user == t.end() || !user->is_string())
        throw input_error(file, line, field("user"), user == t.end() ? "missing" : "must be a string, got " + json_type(*user));
    out.user = user->get<std::string>();
    if (const auto m = t.find("max_tokens"); m != t.end() && !m->is_null()) out.max_tokens = read_max_tokens(*m, file, line);
    if (const auto think = t.find("think_time"); think != t.end() && !think->is_null()) {
        if (!think->is_number() || !(think->get<double>() >= 0) || !std::isfinite(think->get<double>()))
            throw input_error(file, line, field("think_time"), "must be a number of seconds ≥ 0, got " + think->dump());
        out.think_time = think->get<double>();
    }
    return out;
}

} // namespace detail

// Whether a workload file holds sessions: its first request line has "turns".
inline bool is_session_workload(std::string_view text) {
    bool sessions = false, seen = false;
    detail::for_each_line(text, [&](std::size_t, std::string_view line) {
        if (seen || detail::is_blank(line)) return;
        seen = true;
        const auto j = nlohmann::json::parse(line, nullptr, false);
        sessions = j.is_object() && j.contains("turns");
    });
    return sessions;
}

// Throws input_error naming the file, the line and the field of the first bad session.
inline std::vector<session_script> parse_sessions(std::string_view text, const std::string& name) {
    std::vector<session_script> out;
    std::unordered_set<std::string> ids;
    detail::for_each_line(text, [&](std::size_t number, std::string_view line) {
        if (detail::is_blank(line)) return;
        const auto row = detail::parse_json_line(line, name, number);
        if (!row.is_object()) throw input_error(name, number, "", "a session must be a JSON object, got " + detail::json_type(row));
        session_script s;
        s.line = number;
        s.id = detail::session_string(row, "session", name, number);
        if (s.id.empty()) s.id = fmt::format("s{}", out.size() + 1);
        if (!ids.insert(s.id).second) throw input_error(name, number, "session", fmt::format("'{}' is used twice", s.id));
        s.system = detail::session_string(row, "system", name, number);
        s.context = detail::session_string(row, "context", name, number);
        const auto turns = row.find("turns");
        if (turns == row.end() || !turns->is_array() || turns->empty())
            throw input_error(name, number, "turns", "must be a non-empty array of {\"user\": ...} objects");
        for (std::size_t k = 0; k < turns->size(); ++k) s.turns.push_back(detail::read_turn((*turns)[k], name, number, k));
        for (const auto& [key, value] : row.items())
            if (key != "session" && key != "system" && key != "context" && key != "turns")
                throw input_error(name, number, key, "unknown key of a session (session, system, context, turns)");
        out.push_back(std::move(s));
    });
    if (out.empty()) throw input_error(name, 0, "", "no sessions in the workload file");
    return out;
}

inline std::string session_json_line(const session_script& s) {
    nlohmann::ordered_json out;
    out["session"] = s.id;
    if (!s.system.empty()) out["system"] = s.system;
    if (!s.context.empty()) out["context"] = s.context;
    out["turns"] = nlohmann::ordered_json::array();
    for (const auto& t : s.turns) {
        nlohmann::ordered_json turn;
        turn["user"] = t.user;
        if (t.max_tokens) turn["max_tokens"] = *t.max_tokens;
        if (t.think_time > 0) turn["think_time"] = t.think_time;
        out["turns"].push_back(std::move(turn));
    }
    return out.dump();
}

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

    // The next turn's request. `cacheable` is the most of its prompt a prefix cache could already
    // hold (see take_reply): the previous turn's prompt and reply.
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

    // The prompt tokens the previous turn left for a prefix cache: its prompt and its reply (server's
    // counts); nothing before the first turn, whose shared system prompt the driver counts itself.
    std::optional<std::int32_t> carried_tokens() const noexcept { return carried_; }

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
        carried_ = r.prompt_tokens + r.output_tokens;
        return true;
    }

private:
    // The first turn carries the session's context before the user's words.
    std::string user_text(std::size_t k) const {
        const auto& text = script_.turns[k].user;
        if (k != 0 || script_.context.empty()) return text;
        return script_.context + "\n\n" + text;
    }

    const session_script& script_;
    const session_request_options& options_;
    std::size_t next_ = 0;
    std::vector<chat_message> history_;
    std::string previous_response_id_;
    std::optional<std::int32_t> carried_;
};

} // namespace servestat::load
