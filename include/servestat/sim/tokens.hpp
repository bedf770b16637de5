// Deterministic token counting for the simulated server: /tokenize, usage and the engine's budgets.
#pragma once

#include <array>       // std::array
#include <cstddef>     // std::size_t
#include <cstdint>     // std::int32_t, std::uint64_t
#include <string>      // std::string
#include <string_view> // std::string_view
#include <utility>     // std::pair
#include <vector>      // std::vector

#include "servestat/core/random.hpp" // detail::mix64

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

inline std::int32_t count_tokens(std::string_view text) {
    std::int32_t tokens = 0;
    std::size_t i = 0;
    while (i < text.size()) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (detail::is_space(c)) {
            ++i;
        } else if (detail::is_word_byte(c)) {
            std::size_t end = i;
            while (end < text.size() && detail::is_word_byte(static_cast<unsigned char>(text[end]))) ++end;
            const auto length = static_cast<std::int32_t>(end - i);
            tokens += (length + detail::word_bytes_per_token - 1) / detail::word_bytes_per_token;
            i = end;
        } else {
            ++tokens;
            ++i;
        }
    }
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
