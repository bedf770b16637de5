// core/token_count.hpp, the token counting the simulator and the load driver share, on its own (no
// sim/ or load/ header). Counts are worked out by hand from the rule in the header's comment: a run
// of ASCII letters, digits and non-ASCII bytes is one token per started 4 bytes, every other
// non-space byte 1, whitespace 0; a chat adds 3 for the reply, 5 a message and, with no system
// message, Qwen2.5's default one (5 + 21).
#include <catch2/catch.hpp> // Catch2 v2

#include <string>      // std::string
#include <string_view> // std::string_view
#include <utility>     // std::pair
#include <vector>      // std::vector

#include "servestat/core/token_count.hpp"

namespace test_token_count { // the unity build compiles several test files as one: each keeps its names

using servestat::count_chat_tokens;
using servestat::count_tokens;

TEST_CASE("count_tokens: a word per started 4 bytes, punctuation 1 each, whitespace 0", "[token_count]") {
    CHECK(count_tokens("the") == 1);       // 3 bytes
    CHECK(count_tokens("tokens") == 2);    // 6 bytes: "toke" "ns"
    CHECK(count_tokens("assistant") == 3); // 9 bytes: "assi" "stan" "t"
    CHECK(count_tokens(",") == 1);
    CHECK(count_tokens("!?.") == 3);
    CHECK(count_tokens("") == 0);
    CHECK(count_tokens(" \t\n\r\f\v") == 0);
    CHECK(count_tokens("the tokens, assistant!") == 8); // 1 + 2 + 1 + 3 + 1
    CHECK(count_tokens("a-b") == 3);                    // "a" "-" "b": punctuation ends a word
}

TEST_CASE("count_tokens' pieces are the bytes each token covers", "[token_count]") {
    std::vector<std::string> pieces;
    servestat::detail::for_each_token(" tokens, 42", [&pieces](std::string_view p) { pieces.emplace_back(p); });
    CHECK(pieces == std::vector<std::string>{"toke", "ns", ",", "42"});
}

TEST_CASE("count_chat_tokens: Qwen2.5's template around the messages' tokens", "[token_count]") {
    // The default system prompt, "You are Qwen, created by Alibaba Cloud. You are a helpful
    // assistant.": You 1, are 1, Qwen 1, "," 1, created 2, by 1, Alibaba 2, Cloud 2, "." 1, You 1,
    // are 1, a 1, helpful 2, assistant 3, "." 1 = 21.
    CHECK(count_tokens(servestat::detail::default_system_prompt) == 21);
    CHECK(count_chat_tokens({}) == 3 + 5 + 21);
    CHECK(count_chat_tokens({{"user", "tokens!"}}) == 3 + (5 + 3) + (5 + 21));
    CHECK(count_chat_tokens({{"system", "the"}, {"user", "assistant"}}) == 3 + (5 + 1) + (5 + 3)); // no default
}

} // namespace test_token_count
