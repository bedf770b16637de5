// How the load driver counts tokens: a pair of callables (plain text, chat request), so the same
// bucketing and budgeting code runs on the documented heuristic or on the server's /tokenize.
#pragma once

#include <algorithm>   // std::min
#include <cstddef>     // std::size_t
#include <cstdint>     // std::int32_t
#include <functional>  // std::function
#include <string>      // std::string
#include <string_view> // std::string_view
#include <utility>     // std::pair
#include <vector>      // std::vector

#include "servestat/core/token_count.hpp" // count_tokens, count_chat_tokens, detail::is_space, ...

// What a user should know about token counts:
//   - The heuristic is the simulator's rule (core/token_count.hpp, docs/simulator.md): a run of
//     letters, digits and non-ASCII bytes counts one token per started 4 bytes, other non-space
//     bytes one each, spaces nothing; a chat request adds Qwen2.5's template (5 tokens per
//     message, 3 for the reply, and the default system prompt when there is none). Against
//     `servestat simulate` it is exact.
//     Against a real model it is an estimate, typically within some 10-20% on English text, so
//     bucket edges and context budgets computed with it are approximate: keep a safety margin.
//   - With --url the driver asks the server's /tokenize (vLLM's endpoint), which counts with the
//     model's own tokenizer and chat template: use that against real vLLM.
// `source` says which one produced the numbers, for the log header and the summaries.

namespace servestat::load {

struct chat_message {
    std::string role;
    std::string content;

    friend bool operator==(const chat_message&, const chat_message&) = default;
};

struct token_counter {
    // Tokens of text on its own, no template and no special tokens (the notebook's tok_len).
    std::function<std::int32_t(std::string_view)> text;
    // Prompt tokens of a chat request as the server renders it (template and generation prompt
    // included; the notebook's count_prompt_tokens).
    std::function<std::int32_t(const std::vector<chat_message>&)> chat;
    std::string source; // "heuristic" or "server /tokenize"
};

inline token_counter heuristic_token_counter() {
    token_counter c;
    c.text = [](std::string_view text) { return servestat::count_tokens(text); };
    c.chat = [](const std::vector<chat_message>& messages) {
        std::vector<std::pair<std::string, std::string>> role_content;
        role_content.reserve(messages.size());
        for (const auto& m : messages) role_content.emplace_back(m.role, m.content);
        return servestat::count_chat_tokens(role_content);
    };
    c.source = "heuristic";
    return c;
}

// The heuristic's tokens as byte spans of the text, so text can be cut "by tokens" without a
// tokenizer and put back together exactly: a word splits into pieces of 4 bytes (the last one
// shorter), every other non-space byte is a piece, and whitespace belongs to the piece after it
// (as BPE glues a leading space to the next word), or to the last piece when nothing follows.
// Concatenating all pieces gives the text back, unless the text is only whitespace (then there
// are no pieces, and no tokens either). The count of pieces is count_tokens(text).
inline std::vector<std::string_view> token_pieces(std::string_view text) {
    namespace sd = servestat::detail;
    std::vector<std::string_view> pieces;
    std::size_t start = 0; // first byte of the piece being built, whitespace included
    std::size_t i = 0;
    while (i < text.size()) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (sd::is_space(c)) {
            ++i;
        } else if (sd::is_word_byte(c)) {
            std::size_t end = i;
            while (end < text.size() && sd::is_word_byte(static_cast<unsigned char>(text[end]))) ++end;
            while (i < end) {
                const std::size_t stop = std::min(end, i + static_cast<std::size_t>(sd::word_bytes_per_token));
                pieces.push_back(text.substr(start, stop - start));
                start = i = stop;
            }
        } else {
            ++i;
            pieces.push_back(text.substr(start, i - start));
            start = i;
        }
    }
    if (start < text.size() && !pieces.empty()) { // trailing whitespace joins the last piece
        const std::string_view& last = pieces.back();
        pieces.back() = text.substr(static_cast<std::size_t>(last.data() - text.data()));
    }
    return pieces;
}

} // namespace servestat::load
