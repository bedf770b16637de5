// Deterministic token counting for the simulated server: /tokenize, usage and the engine's budgets.
#pragma once

#include <algorithm>   // std::min
#include <array>       // std::array
#include <cstddef>     // std::size_t
#include <cstdint>     // std::int32_t, std::uint64_t
#include <string>      // std::string
#include <string_view> // std::string_view
#include <utility>     // std::pair
#include <vector>      // std::vector

#include "servestat/core/random.hpp" // detail::mix64
#include "servestat/core/text.hpp"   // detail::fnv1a

// The simulator has no tokenizer; it needs counts that are stable across platforms, cheap, and
// roughly the size of a BPE tokenizer's on English text, so that prompt lengths from a real workload
// land near the same budgets. The rule (docs/simulator.md has examples):
//   - a word is a maximal run of ASCII letters, digits and non-ASCII bytes; it counts one token per
//     started group of 4 bytes ("the" 1, "tokens" 2, "Alibaba" 2, "assistant" 3);
//   - every other non-whitespace byte (punctuation, symbols) counts 1;
//   - whitespace counts 0: BPE tokenizers glue the leading space onto the next word.

namespace servestat::sim {

namespace detail {

inline bool is_space(unsigned char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

// Non-ASCII bytes count as word bytes so UTF-8 text splits like long words, not like punctuation.
inline bool is_word_byte(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c >= 0x80;
}

inline constexpr std::int32_t word_bytes_per_token = 4;

// Qwen2.5's chat template: "<|im_start|>{role}\n{content}<|im_end|>\n" per message, and
// "<|im_start|>assistant\n" to open the reply.
inline constexpr std::int32_t per_message_overhead = 5;   // <|im_start|> role \n ... <|im_end|> \n
inline constexpr std::int32_t assistant_prompt_overhead = 3; // <|im_start|> assistant \n

// Qwen2.5's template inserts this system message when the conversation has none; it is why the
// notebook's 8-23 token questions arrive as 37-45 prompt tokens.
inline constexpr std::string_view default_system_prompt =
    "You are Qwen, created by Alibaba Cloud. You are a helpful assistant.";

// Words of at most 4 bytes, so " word" is exactly one token by count_tokens.
inline constexpr std::array<std::string_view, 32> output_vocabulary = {
    "the",  "of",   "and",  "to",   "in",   "is",   "it",   "that", "for",  "on",   "with",
    "as",   "was",  "at",   "by",   "this", "from", "or",   "an",   "be",   "are",  "not",
    "but",  "all",  "can",  "one",  "time", "more", "data", "load", "text", "word"};

} // namespace detail

namespace detail {

// The heuristic's tokens of `text` in order, each as the bytes it covers: a run of word bytes in
// pieces of word_bytes_per_token (the last shorter), every other non-space byte alone, spaces none.
template <class OnToken>
void for_each_token(std::string_view text, OnToken&& on_token) {
    std::size_t i = 0;
    while (i < text.size()) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (is_space(c)) {
            ++i;
        } else if (is_word_byte(c)) {
            std::size_t end = i;
            while (end < text.size() && is_word_byte(static_cast<unsigned char>(text[end]))) ++end;
            for (std::size_t piece = i; piece < end; piece += word_bytes_per_token)
                on_token(text.substr(piece, std::min<std::size_t>(word_bytes_per_token, end - piece)));
            i = end;
        } else {
            on_token(text.substr(i, 1));
            ++i;
        }
    }
}

} // namespace detail

inline std::int32_t count_tokens(std::string_view text) {
    std::int32_t tokens = 0;
    detail::for_each_token(text, [&tokens](std::string_view) { ++tokens; });
    return tokens;
}

// Prompt tokens of a chat request: (role, content) pairs rendered through Qwen2.5's template.
inline std::int32_t count_chat_tokens(const std::vector<std::pair<std::string, std::string>>& role_content) {
    std::int32_t tokens = detail::assistant_prompt_overhead;
    bool has_system = false;
    for (const auto& [role, content] : role_content) {
        if (role == "system") has_system = true;
        tokens += detail::per_message_overhead + count_tokens(content);
    }
    if (!has_system) tokens += detail::per_message_overhead + count_tokens(detail::default_system_prompt);
    return tokens;
}

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
    detail::for_each_token(text, [&out](std::string_view piece) { out.push_back(detail::token_id(piece)); });
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
    if (!has_system) detail::append_message_ids(out, "system", detail::default_system_prompt);
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
