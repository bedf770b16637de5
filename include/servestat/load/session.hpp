// Multi-turn session workloads: conversations as JSON Lines, read, written and made up.
//
// A session workload is JSON Lines, one conversation per line:
//   {"session":"s1","system":"...","context":"...","turns":[{"user":"...","max_tokens":64,"think_time":2.5}, ...]}
// `system` (optional) is the system prompt, shared across sessions when the texts are equal;
// `context` (optional) is the session's own material (a document, a profile), put before the first
// user message; each turn's `think_time` (seconds, optional) is the user's pause after the previous
// reply before sending it. How the driver plays them: load/conversation.hpp.
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
#include "servestat/core/random.hpp"         // detail::xoshiro256
#include "servestat/load/distribution.hpp"  // distribution
#include "servestat/load/token_counter.hpp" // chat_message, token_counter
#include "servestat/load/workload.hpp"      // synthetic_text, detail::for_each_line, parse_json_line, json_type

namespace servestat::load {

struct session_turn {
    std::string user;
    std::optional<std::int32_t> max_tokens;
    double think_time = 0;
    std::int32_t new_tokens = 0; // the tokens of turn_text(), counted by the driver (not in the file)
};

struct session_script {
    std::string id;
    std::string system;
    std::string context;
    std::vector<session_turn> turns;
    std::size_t line = 0;
};

// What turn k adds to the conversation: the user's words, after the session's context on the first turn.
inline std::string turn_text(const session_script& s, std::size_t k) {
    const auto& text = s.turns[k].user;
    if (k != 0 || s.context.empty()) return text;
    return s.context + "\n\n" + text;
}

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
    if (const auto m = t.find("max_tokens"); m != t.end() && !m->is_null()) {
        try {
            out.max_tokens = read_max_tokens(*m, file, line);
        } catch (const input_error& e) {
            throw input_error(file, line, field("max_tokens"), e.reason());
        }
    }
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

// How `servestat workload --sessions` builds a session workload of synthetic text: token counts by
// the counter (the heuristic, or the server's /tokenize).
struct session_spec {
    std::size_t sessions = 0;
    distribution turns = distribution::constant(3);      // per session, at least 1
    distribution think_time = distribution::constant(0); // seconds before each turn after the first
    std::int32_t shared_prefix_tokens = 0;               // one system prompt shared by every session
    distribution context_tokens = distribution::constant(0); // each session's own context
    distribution turn_tokens = distribution::parse("uniform:8:24", "--turn-tokens"); // each user message
    std::int32_t max_tokens = 128;
};

// Deterministic under `seed`: the shared prompt, then each session's draws in order.
inline std::vector<session_script> make_sessions(const session_spec& spec, const token_counter& counter,
                                                 std::uint64_t seed) {
    servestat::detail::xoshiro256 rng(seed);
    const std::string system =
        spec.shared_prefix_tokens > 0 ? synthetic_text(spec.shared_prefix_tokens, counter, rng).text : std::string();
    std::vector<session_script> out;
    out.reserve(spec.sessions);
    for (std::size_t i = 0; i < spec.sessions; ++i) {
        session_script s;
        s.id = fmt::format("s{}", i + 1);
        s.system = system;
        if (const auto context = spec.context_tokens.draw_count(rng, 0); context > 0)
            s.context = synthetic_text(context, counter, rng).text;
        const auto turns = spec.turns.draw_count(rng, 1);
        for (std::int32_t k = 0; k < turns; ++k) {
            session_turn t;
            t.user = synthetic_text(spec.turn_tokens.draw_count(rng, 1), counter, rng).text;
            t.max_tokens = spec.max_tokens;
            if (k > 0) t.think_time = spec.think_time.draw(rng);
            s.turns.push_back(std::move(t));
        }
        out.push_back(std::move(s));
    }
    return out;
}

} // namespace servestat::load
