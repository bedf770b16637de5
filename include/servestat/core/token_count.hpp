// Deterministic token counting without a tokenizer: the one rule the simulated server (sim/: /tokenize,
// usage and the engine's budgets) and the load driver's heuristic counter (load/token_counter.hpp) share.
#pragma once

#include <algorithm>   // std::min
#include <cstddef>     // std::size_t
#include <cstdint>     // std::int32_t
#include <string>      // std::string
#include <string_view> // std::string_view
#include <utility>     // std::pair
#include <vector>      // std::vector

// The simulator has no tokenizer; it needs counts that are stable across platforms, cheap, and
// roughly the size of a BPE tokenizer's on English text, so that prompt lengths from a real workload
// land near the same budgets. The rule (docs/simulator.md has examples):
//   - a word is a maximal run of ASCII letters, digits and non-ASCII bytes; it counts one token per
//     started group of 4 bytes ("the" 1, "tokens" 2, "Alibaba" 2, "assistant" 3);
//   - every other non-whitespace byte (punctuation, symbols) counts 1;
//   - whitespace counts 0: BPE tokenizers glue the leading space onto the next word.

namespace servestat {

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

} // namespace servestat
