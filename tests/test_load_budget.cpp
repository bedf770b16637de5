// Tests for servestat/load/budget.hpp (the notebook's Experiment 1.1 context budgeting) and the
// heuristic's token pieces of servestat/load/token_counter.hpp. Expected numbers are worked out by
// hand from the heuristic's documented rule (docs/simulator.md): a chat with one user message costs
// 3 (reply) + 5 (the message) + 5 + 21 (Qwen's default system prompt: "You"1 "are"1 "Qwen"1 ","1
// "created"2 "by"1 "Alibaba"2 "Cloud"2 "."1 "You"1 "are"1 "a"1 "helpful"2 "assistant"3 "."1) = 34
// tokens on top of its content.
#include "servestat/load/budget.hpp"

#include <cstddef>     // std::size_t
#include <cstdint>     // std::int32_t
#include <string>      // std::string
#include <string_view> // std::string_view
#include <vector>      // std::vector

#include <catch2/catch.hpp> // TEST_CASE, REQUIRE, CHECK, CHECK_THROWS_AS

namespace test_load_budget { // the unity build compiles several test files as one: each keeps its names

namespace {

using servestat::load::budget_chat;
using servestat::load::budget_error;
using servestat::load::budget_options;
using servestat::load::budget_prompt;
using servestat::load::chat_message;
using servestat::load::head_tail_trim;
using servestat::load::token_pieces;

const auto heuristic = servestat::load::heuristic_token_counter();
constexpr std::int32_t chat_overhead = 34; // see the file comment

// Word i: "w" and three letters, distinct for i < 17576 and one token each (4 bytes).
std::string word(std::size_t i) {
    std::string w = "w";
    w.push_back(static_cast<char>('a' + (i / 676) % 26));
    w.push_back(static_cast<char>('a' + (i / 26) % 26));
    w.push_back(static_cast<char>('a' + i % 26));
    return w;
}

// Words [from, to) joined by single spaces: to - from tokens.
std::string words(std::size_t from, std::size_t to) {
    std::string out;
    for (std::size_t i = from; i < to; ++i) out.append(i > from ? " " : "").append(word(i));
    return out;
}

std::vector<chat_message> user(std::string content) { return {chat_message{"user", std::move(content)}}; }

// Long texts compared without Catch printing thousands of words on a failure.
bool same(const std::string& a, const std::string& b) {
    if (a == b) return true;
    std::size_t i = 0;
    while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
    UNSCOPED_INFO("sizes " << a.size() << " vs " << b.size() << ", first difference at byte " << i);
    return false;
}

const budget_options notebook{}; // 4096, margin 16, minimum output 32, head fraction 0.35

} // namespace

TEST_CASE("the heuristic counter counts the chat template on top of the content") {
    CHECK(heuristic.source == "heuristic");
    CHECK(heuristic.text(words(0, 100)) == 100);
    CHECK(heuristic.chat(user(words(0, 100))) == 100 + chat_overhead);
    // A system message of its own replaces the default one: 3 + 5 + 1 + 5 + 1.
    CHECK(heuristic.chat({{"system", "be"}, {"user", "hi"}}) == 15);
}

TEST_CASE("token pieces: words split every 4 bytes, punctuation alone, whitespace joins the next piece") {
    const std::string_view text = "Hello, tokenization world!\n";
    const auto pieces = token_pieces(text);
    const std::vector<std::string_view> expected = {"Hell", "o", ",", " toke", "niza", "tion", " worl", "d", "!\n"};
    CHECK(pieces == expected);
    CHECK(heuristic.text(text) == 9); // Hello 2, "," 1, tokenization 3, world 2, "!" 1
}

TEST_CASE("token pieces put leading whitespace on the first piece and rebuild the text exactly") {
    const std::string_view text = "  \tab  cd\r\n\n e";
    const auto pieces = token_pieces(text);
    REQUIRE(pieces.size() == 3);
    CHECK(pieces[0] == "  \tab");
    std::string joined;
    for (auto p : pieces) joined.append(p);
    CHECK(joined == text);
    CHECK(token_pieces(" \n\t ").empty());
    CHECK(token_pieces("").empty());
}

TEST_CASE("head_tail_trim keeps int(keep * head_fraction) pieces from the head and the rest from the tail") {
    const std::string text = "a b c d e f g h i j"; // 10 one-token pieces
    CHECK(head_tail_trim(text, 4, 0.35) == "a h i j");   // int(1.4) = 1 head, 3 tail
    CHECK(head_tail_trim(text, 4, 0.5) == "a b i j");    // 2 + 2
    CHECK(head_tail_trim(text, 3, 0.0) == " h i j");     // tail only: its first piece keeps its space
    CHECK(head_tail_trim(text, 3, 1.0) == "a b c");      // head only
    CHECK(head_tail_trim(text, 0, 0.35).empty());        // not the notebook's ids[-0:] (everything)
    CHECK(head_tail_trim(text, 10, 0.35) == text);
    CHECK(head_tail_trim(text, 11, 0.35) == text);
}

TEST_CASE("a 4030-token request with max_tokens 128 gets 4096 - 16 - 4030 = 50 output tokens, untrimmed") {
    const std::string content = words(0, 4030 - chat_overhead);
    const auto r = budget_chat(user(content), 128, notebook, heuristic, "mix_90_10.jsonl:7");
    CHECK(r.prompt_tokens == 4030);
    CHECK(r.prompt_tokens_original == 4030);
    CHECK(r.max_tokens == 50);
    CHECK_FALSE(r.trimmed);
    REQUIRE(r.messages.size() == 1);
    CHECK(same(r.messages[0].content, content)); // byte for byte
}

TEST_CASE("a short request keeps the max_tokens it asked for") {
    const auto r = budget_chat(user(words(0, 20)), 128, notebook, heuristic, "r");
    CHECK(r.max_tokens == 128);
    CHECK(r.prompt_tokens == 54);
    CHECK_FALSE(r.trimmed);
}

TEST_CASE("exactly the minimum output left is not trimmed") {
    // 4096 - 16 - 32 = 4048 prompt tokens leave 32.
    const auto r = budget_chat(user(words(0, 4048 - chat_overhead)), 128, notebook, heuristic, "r");
    CHECK(r.max_tokens == 32);
    CHECK_FALSE(r.trimmed);
}

TEST_CASE("a 4090-token request is trimmed head+tail to the largest prompt that leaves 32 output tokens") {
    const std::size_t n = 4090 - chat_overhead; // 4056 content words
    const std::string content = words(0, n);
    const auto r = budget_chat(user(content), 128, notebook, heuristic, "r");
    CHECK(r.trimmed);
    CHECK(r.prompt_tokens_original == 4090);
    // Budget 4096 - 16 - 32 = 4048 prompt tokens = 4014 content words: 1404 (int(4014 * 0.35)) from
    // the head, 2610 from the tail (words 1446..4055).
    CHECK(r.prompt_tokens == 4048);
    CHECK(r.max_tokens == 32);
    CHECK(r.kept_pieces == 4014);
    CHECK(r.original_pieces == n);
    REQUIRE(r.messages.size() == 1);
    CHECK(same(r.messages[0].content, words(0, 1404) + " " + words(1446, n)));
    CHECK(r.messages[0].role == "user");
}

TEST_CASE("trimming is maximal: one more kept piece would not fit, whatever the text") {
    // Long words make cuts inside words, where the pieces of the head and the tail may fuse.
    std::string content;
    for (int i = 0; i < 700; ++i) content.append("internationalization, Ünïcödé tokenizers!\n");
    const auto r = budget_chat(user(content), 128, notebook, heuristic, "r");
    REQUIRE(r.trimmed);
    const std::int32_t budget = 4096 - 16 - 32;
    CHECK(r.prompt_tokens <= budget);
    CHECK(r.prompt_tokens == heuristic.chat(r.messages));
    CHECK(r.max_tokens == std::min<std::int32_t>(128, 4096 - 16 - r.prompt_tokens));
    CHECK(r.max_tokens >= 32);
    CHECK(heuristic.chat(user(head_tail_trim(content, r.kept_pieces + 1, 0.35))) > budget);
    CHECK(same(r.messages[0].content, head_tail_trim(content, r.kept_pieces, 0.35)));
}

TEST_CASE("only the last user message is trimmed; the others count toward the prompt") {
    const std::vector<chat_message> messages = {
        {"system", "be brief"}, {"user", words(0, 100)}, {"assistant", "ok"}, {"user", words(100, 4100)}};
    // 3 + (5 + 3: "be" 1, "brief" 2) + (5 + 100) + (5 + 1) + (5 + 4000) = 4127 tokens; the budget of
    // 4048 leaves 4048 - 127 = 3921 words of the last message.
    const auto r = budget_chat(messages, 128, notebook, heuristic, "r");
    CHECK(r.prompt_tokens_original == 4127);
    CHECK(r.trimmed);
    CHECK(r.prompt_tokens == 4048);
    REQUIRE(r.messages.size() == 4);
    CHECK(r.messages[0] == messages[0]);
    CHECK(r.messages[1] == messages[1]);
    CHECK(r.messages[2] == messages[2]);
    CHECK(r.kept_pieces == 3921);
    // int(3921 * 0.35) = 1372 words of the head, 2549 of the tail (words 4100 - 2549 = 1551 on).
    CHECK(same(r.messages[3].content, words(100, 1472) + " " + words(1551, 4100)));
}

TEST_CASE("a request asking for fewer tokens than the minimum is not trimmed for it") {
    // 4060 prompt tokens leave 20 < 32, but the request only wants 16.
    const auto r = budget_chat(user(words(0, 4060 - chat_overhead)), 16, notebook, heuristic, "r");
    CHECK_FALSE(r.trimmed);
    CHECK(r.max_tokens == 16);
}

TEST_CASE("a prompt that cannot fit even when emptied is an error naming the request") {
    const std::vector<chat_message> messages = {{"system", words(0, 4090)}, {"user", "hello"}};
    try {
        budget_chat(messages, 128, notebook, heuristic, "long.jsonl:3");
        FAIL("no error");
    } catch (const budget_error& e) {
        CHECK(std::string(e.what()).find("long.jsonl:3") != std::string::npos);
    }
}

TEST_CASE("a conversation without a user message can only lose output tokens") {
    const auto fits = budget_chat({{"system", words(0, 100)}}, 128, notebook, heuristic, "r");
    CHECK(fits.max_tokens == 128);
    CHECK(fits.prompt_tokens == 3 + 5 + 100);
    CHECK_THROWS_AS(budget_chat({{"system", words(0, 4060)}}, 128, notebook, heuristic, "r"), budget_error);
}

TEST_CASE("a context too small for the margin and the minimum output is an error") {
    budget_options tiny = notebook;
    tiny.max_model_len = 48; // 48 - 16 - 32 = 0 tokens of prompt
    CHECK_THROWS_AS(budget_chat(user("hi"), 128, tiny, heuristic, "r"), budget_error);
}

TEST_CASE("bad budget options and a max_tokens below 1 are refused") {
    budget_options o = notebook;
    o.head_fraction = 1.5;
    CHECK_THROWS_AS(budget_chat(user("hi"), 128, o, heuristic, "r"), servestat::usage_error);
    o = notebook;
    o.min_output_tokens = 0;
    CHECK_THROWS_AS(budget_chat(user("hi"), 128, o, heuristic, "r"), servestat::usage_error);
    CHECK_THROWS_AS(budget_chat(user("hi"), 0, notebook, heuristic, "r"), budget_error);
}

TEST_CASE("completions prompts are budgeted by counter.text, without a template") {
    const auto fits = budget_prompt(words(0, 4030), 128, notebook, heuristic, "r");
    CHECK(fits.max_tokens == 50);
    CHECK(same(fits.prompt, words(0, 4030)));
    CHECK_FALSE(fits.trimmed);

    const auto cut = budget_prompt(words(0, 5000), 128, notebook, heuristic, "r");
    CHECK(cut.trimmed);
    CHECK(cut.prompt_tokens_original == 5000);
    CHECK(cut.prompt_tokens == 4048);
    CHECK(cut.max_tokens == 32);
    // int(4048 * 0.35) = 1416 head words, 2632 tail words (5000 - 2632 = 2368 on).
    CHECK(same(cut.prompt, words(0, 1416) + " " + words(2368, 5000)));
    CHECK(cut.messages.empty());
}

TEST_CASE("the head fraction moves the cut") {
    budget_options o = notebook;
    o.head_fraction = 0.0;
    const auto tail = budget_prompt(words(0, 5000), 128, o, heuristic, "r");
    CHECK(same(tail.prompt, " " + words(5000 - 4048, 5000)));
    o.head_fraction = 1.0;
    const auto head = budget_prompt(words(0, 5000), 128, o, heuristic, "r");
    CHECK(same(head.prompt, words(0, 4048)));
}

} // namespace test_load_budget
