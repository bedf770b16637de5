// The simulated server's tokens: the ids the prefix cache hashes and the text of output tokens.
#pragma once

#include <array>       // std::array
#include <cstdint>     // std::int32_t, std::uint64_t
#include <string>      // std::string
#include <string_view> // std::string_view
#include <utility>     // std::pair
#include <vector>      // std::vector

#include "servestat/core/random.hpp"      // detail::mix64
#include "servestat/core/text.hpp"        // detail::fnv1a
#include "servestat/core/token_count.hpp" // detail::for_each_token, detail::default_system_prompt

// The counting rule itself (count_tokens, count_chat_tokens and Qwen2.5's chat template overheads)
// lives in core/token_count.hpp, shared with the load driver's heuristic counter; this header adds
// what only the simulator needs: the token ids the prefix cache hashes and the output text.

namespace servestat::sim {

namespace detail {

// Words of at most 4 bytes, so " word" is exactly one token by count_tokens.
inline constexpr std::array<std::string_view, 32> output_vocabulary = {
    "the",  "of",   "and",  "to",   "in",   "is",   "it",   "that", "for",  "on",   "with",
    "as",   "was",  "at",   "by",   "this", "from", "or",   "an",   "be",   "are",  "not",
    "but",  "all",  "can",  "one",  "time", "more", "data", "load", "text", "word"};

} // namespace detail

// ---- token ids, for the prefix cache ---------------------------------------------------------------
// The prefix cache (prefix_cache.hpp) keys blocks of tokens, so it needs the tokens themselves, not
// just their count. The ids below split text exactly as count_tokens counts it (a word's 4-byte
// slices, one id per punctuation byte, nothing for whitespace), each id a hash of the token's bytes;
// chat_token_ids renders the same template that count_chat_tokens counts, token for token.

namespace detail {

inline std::uint64_t token_id(std::string_view bytes) { return servestat::detail::fnv1a(bytes); }

// Qwen2.5's special tokens and the newline that follows a role and ends a message.
inline std::uint64_t im_start_id() { return token_id("<|im_start|>"); }
inline std::uint64_t im_end_id() { return token_id("<|im_end|>"); }
inline std::uint64_t newline_id() { return token_id("\n"); }

} // namespace detail

// Appends the ids of `text`'s tokens: count_tokens(text) of them.
inline void append_token_ids(std::vector<std::uint64_t>& out, std::string_view text) {
    servestat::detail::for_each_token(text,
                                      [&out](std::string_view piece) { out.push_back(detail::token_id(piece)); });
}

inline std::vector<std::uint64_t> token_ids(std::string_view text) {
    std::vector<std::uint64_t> out;
    append_token_ids(out, text);
    return out;
}

namespace detail {

inline void append_message_ids(std::vector<std::uint64_t>& out, std::string_view role, std::string_view content) {
    out.push_back(im_start_id());
    out.push_back(token_id(role)); // a role is one token (count_chat_tokens' 5 per message)
    out.push_back(newline_id());
    append_token_ids(out, content);
    out.push_back(im_end_id());
    out.push_back(newline_id());
}

} // namespace detail

// The tokens of a chat prompt as count_chat_tokens counts them: Qwen2.5's default system message
// first when the conversation has no system message, then each message in order
// (<|im_start|> role \n content <|im_end|> \n), then, with `generation_prompt`, <|im_start|>
// assistant \n. A conversation's next turn (the reply appended as an assistant message, then the
// new message) therefore starts with this turn's tokens plus the reply's.
inline std::vector<std::uint64_t> chat_token_ids(const std::vector<std::pair<std::string, std::string>>& role_content,
                                                 bool generation_prompt = true) {
    std::vector<std::uint64_t> out;
    bool has_system = false;
    for (const auto& turn : role_content) has_system = has_system || turn.first == "system";
    if (!has_system) detail::append_message_ids(out, "system", servestat::detail::default_system_prompt);
    for (const auto& [role, content] : role_content) detail::append_message_ids(out, role, content);
    if (generation_prompt) {
        out.push_back(detail::im_start_id());
        out.push_back(detail::token_id("assistant"));
        out.push_back(detail::newline_id());
    }
    return out;
}

// What an assistant reply adds after a chat prompt that ended with the generation prompt: its
// content, then <|im_end|> \n, as the next turn renders it.
inline void append_reply_ids(std::vector<std::uint64_t>& out, std::string_view reply) {
    append_token_ids(out, reply);
    out.push_back(detail::im_end_id());
    out.push_back(detail::newline_id());
}

// Text of output token `index` of a request: " word", one token by count_tokens, the same for the
// same (request_seed, index) everywhere.
inline std::string output_token(std::uint64_t request_seed, std::int32_t index) {
    const std::uint64_t h = servestat::detail::mix64(request_seed ^ servestat::detail::mix64(static_cast<std::uint64_t>(index)));
    const auto word = detail::output_vocabulary[h % detail::output_vocabulary.size()];
    std::string out;
    out.reserve(word.size() + 1);
    return out.append(" ").append(word);
}

} // namespace servestat::sim
