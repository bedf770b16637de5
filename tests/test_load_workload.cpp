// Tests for servestat/load/workload.hpp: the notebook's workload JSONL, its mix presets and bucket
// ranges, sampling under a seed and synthetic prompts of exact lengths. Counts come from the
// notebook's formulas evaluated in Python (noted at each case); token counts from the heuristic's
// documented rule (docs/simulator.md), worked out by hand.
#include "servestat/load/workload.hpp"

#include <algorithm>   // std::sort, std::unique
#include <cstddef>     // std::size_t
#include <cstdint>     // std::int32_t
#include <set>         // std::set
#include <sstream>     // std::ostringstream
#include <string>      // std::string
#include <vector>      // std::vector

#include "temp_file.hpp"

#include <catch2/catch.hpp> // TEST_CASE, REQUIRE, CHECK, CHECK_THROWS_AS

namespace test_load_workload { // the unity build compiles several test files as one: each keeps its names

namespace {

namespace load = servestat::load;
using servestat::input_error;
using servestat::usage_error;

const auto heuristic = load::heuristic_token_counter();

// Runs f, which must throw input_error, and returns it.
template <class F>
input_error input_error_of(F&& f) {
    try {
        f();
    } catch (const input_error& e) {
        return e;
    }
    FAIL("no input_error");
    return input_error("", 0, "", "");
}

input_error parse_error(const std::string& text) {
    return input_error_of([&] { load::parse_workload(text, "w.jsonl"); });
}

// n words of one token each ("tok" 1 token by the heuristic).
std::string n_tokens(int n) {
    std::string s;
    for (int i = 0; i < n; ++i) s.append(i ? " tok" : "tok");
    return s;
}

std::array<std::size_t, 3> counts(std::size_t total, const std::string& mix) {
    return load::mix_counts(total, load::resolve_mix(mix));
}

using counts3 = std::array<std::size_t, 3>;

} // namespace

TEST_CASE("a notebook workload row reads messages, max_tokens and temperature") {
    const auto rows = load::parse_workload(
        R"({"messages": [{"role": "user", "content": "What is KV cache?"}], "max_tokens": 128, "temperature": 0.0})"
        "\n",
        "w.jsonl");
    REQUIRE(rows.size() == 1);
    const auto& r = rows[0];
    CHECK(r.is_chat());
    REQUIRE(r.messages.size() == 1);
    CHECK(r.messages[0].role == "user");
    CHECK(r.messages[0].content == "What is KV cache?");
    CHECK(r.max_tokens == 128);
    CHECK(r.temperature == 0.0);
    CHECK(r.extra.empty());
    CHECK(r.line == 1);
}

TEST_CASE("prompt rows, absent and null options, extra keys, blank lines and CRLF") {
    const auto rows = load::parse_workload("\xEF\xBB\xBF{\"prompt\": \"Once\", \"ignore_eos\": true, \"top_p\": 0.9}\r\n"
                                           "\r\n"
                                           "{\"messages\": [{\"role\": \"user\", \"content\": \"x\"}], \"max_tokens\": null, "
                                           "\"max_tokens\": 64.0}\n",
                                           "w.jsonl");
    REQUIRE(rows.size() == 2);
    CHECK_FALSE(rows[0].is_chat());
    CHECK(rows[0].prompt == "Once");
    CHECK_FALSE(rows[0].max_tokens.has_value());
    CHECK_FALSE(rows[0].temperature.has_value());
    CHECK(rows[0].extra == nlohmann::json{{"ignore_eos", true}, {"top_p", 0.9}});
    CHECK(rows[1].line == 3);
    CHECK(rows[1].max_tokens == 64); // nlohmann keeps the last of a repeated key, written 64.0
}

TEST_CASE("bad workload rows name the file, the line and the field") {
    auto e = parse_error("{\"prompt\": \"a\"}\n{not json\n");
    CHECK(e.file() == "w.jsonl");
    CHECK(e.line() == 2);

    e = parse_error("{\"max_tokens\": 5}\n");
    CHECK(e.line() == 1);
    CHECK(e.field() == "messages");

    e = parse_error("{\"messages\": \"hi\"}");
    CHECK(e.field() == "messages");

    e = parse_error("{\"messages\": []}");
    CHECK(e.field() == "messages");

    e = parse_error("\n{\"messages\": [{\"role\": \"user\", \"content\": 5}]}");
    CHECK(e.line() == 2);
    CHECK(e.field() == "messages[0].content");

    e = parse_error("{\"messages\": [{\"role\": \"user\"}]}");
    CHECK(e.field() == "messages[0].content");

    e = parse_error("{\"messages\": [{\"role\": \"user\", \"content\": \"a\", \"name\": \"b\"}]}");
    CHECK(e.field() == "messages[0].name");

    e = parse_error("{\"prompt\": \"a\", \"max_tokens\": -1}");
    CHECK(e.field() == "max_tokens");
    e = parse_error("{\"prompt\": \"a\", \"max_tokens\": 0}");
    CHECK(e.field() == "max_tokens");
    e = parse_error("{\"prompt\": \"a\", \"max_tokens\": 12.5}");
    CHECK(e.field() == "max_tokens");
    e = parse_error("{\"prompt\": \"a\", \"max_tokens\": \"128\"}");
    CHECK(e.field() == "max_tokens");

    e = parse_error("{\"prompt\": \"a\", \"temperature\": \"hot\"}");
    CHECK(e.field() == "temperature");
    e = parse_error("{\"prompt\": \"a\", \"temperature\": -0.5}");
    CHECK(e.field() == "temperature");

    e = parse_error("{\"prompt\": 3}");
    CHECK(e.field() == "prompt");
    e = parse_error("{\"prompt\": \"a\", \"messages\": [{\"role\": \"user\", \"content\": \"b\"}]}");
    CHECK(e.field() == "prompt");
    e = parse_error("[1, 2]");
    CHECK(e.line() == 1);

    e = parse_error("\n  \n");
    CHECK(e.line() == 0);
}

TEST_CASE("reading a workload file names it in errors, also when it is missing") {
    const servestat::test::temp_file ok("{\"prompt\": \"a\"}\n{\"prompt\": \"b\"}\n", "ok.jsonl");
    CHECK(load::read_workload(ok.str()).size() == 2);
    const servestat::test::temp_file bad("{\"prompt\": \"a\"}\n{\"prompt\": \"b\", \"max_tokens\": -3}\n", "bad.jsonl");
    const auto e = input_error_of([&] { load::read_workload(bad.str()); });
    CHECK(e.file() == bad.str());
    CHECK(e.line() == 2);
    CHECK(e.field() == "max_tokens");
    const servestat::test::temp_file empty("", "empty.jsonl");
    CHECK(input_error_of([&] { load::read_workload(empty.str()); }).file() == empty.str());
    CHECK(input_error_of([&] { load::read_workload(ok.str() + ".missing"); }).file() == ok.str() + ".missing");
}

TEST_CASE("rows are written as the notebook's write_jsonl rows, keys in a fixed order") {
    CHECK(load::workload_json_line(load::chat_row("hi")) ==
          R"({"messages":[{"role":"user","content":"hi"}],"max_tokens":128,"temperature":0.0})");
    auto r = load::parse_workload(R"({"top_p": 1, "prompt": "p", "ignore_eos": true, "temperature": 0.5})", "w")[0];
    CHECK(load::workload_json_line(r) == R"({"prompt":"p","temperature":0.5,"ignore_eos":true,"top_p":1})");
    std::ostringstream out;
    load::write_workload(out, {load::chat_row("a", 64, 0.7), r});
    const std::string text = out.str();
    const auto back = load::parse_workload(text, "round-trip");
    REQUIRE(back.size() == 2);
    CHECK(back[0].messages[0].content == "a");
    CHECK(back[0].max_tokens == 64);
    CHECK(back[0].temperature == 0.7);
    CHECK(back[1].extra == r.extra);
    CHECK(text.back() == '\n');
}

TEST_CASE("the notebook's presets give its request counts") {
    // Python: k_short = int(total * r_short), k_medium = int(total * r_medium), k_long = the rest.
    CHECK(counts(400, "mix_70_20_10") == counts3{280, 80, 40});
    CHECK(counts(400, "mix_90_10") == counts3{360, 0, 40});
    CHECK(counts(400, "mix_60_40") == counts3{240, 0, 160});
    CHECK(counts(400, "short_only") == counts3{400, 0, 0});
    CHECK(counts(400, "medium_only") == counts3{0, 400, 0});
    CHECK(counts(400, "long_only") == counts3{0, 0, 400});
    CHECK(counts(401, "mix_50_50") == counts3{200, 0, 201});
    CHECK(counts(7, "mix_60_40") == counts3{4, 0, 3});
    // 90 * 0.7 = 62.99999999999999 in Python: int() gives 62, and long takes the rest.
    CHECK(counts(90, "mix_70_20_10") == counts3{62, 18, 10});
    CHECK(load::mix_presets().size() == 8);
}

TEST_CASE("custom ratios: same counts as the presets, long takes the rest when left out") {
    CHECK(counts(400, "short=0.7,medium=0.2,long=0.1") == counts3{280, 80, 40});
    CHECK(counts(400, " short = 0.7 , medium=0.2") == counts3{280, 80, 40});
    CHECK(counts(10, "medium=1") == counts3{0, 10, 0});
    CHECK_THROWS_AS(load::resolve_mix("short=0.7,long=0.4"), usage_error);  // sums to 1.1
    CHECK_THROWS_AS(load::resolve_mix("short=0.5,long=0.2"), usage_error);  // long given, sum 0.7
    CHECK_THROWS_AS(load::resolve_mix("tiny=1"), usage_error);
    CHECK_THROWS_AS(load::resolve_mix("short=x"), usage_error);
    CHECK_THROWS_AS(load::resolve_mix("short=0.5,short=0.5"), usage_error);
    CHECK_THROWS_AS(load::resolve_mix("mix_80_20"), usage_error);
}

TEST_CASE("bucket ranges are inclusive at both ends, and prompts outside every range are kept aside") {
    std::vector<std::string> texts;
    for (int n : {7, 8, 24, 25, 127, 128, 256, 257, 2047, 2048, 4096, 4097}) texts.push_back(n_tokens(n));
    const auto b = load::bucket_prompts(texts, load::default_bucket_ranges, heuristic);
    const auto tokens = [](const std::vector<load::counted_prompt>& v) {
        std::vector<std::int32_t> out;
        for (const auto& p : v) out.push_back(p.tokens);
        return out;
    };
    CHECK(tokens(b.buckets[0]) == std::vector<std::int32_t>{8, 24});
    CHECK(tokens(b.buckets[1]) == std::vector<std::int32_t>{128, 256});
    CHECK(tokens(b.buckets[2]) == std::vector<std::int32_t>{2048, 4096});
    CHECK(tokens(b.others) == std::vector<std::int32_t>{7, 25, 127, 257, 2047, 4097});
}

TEST_CASE("--bucket overrides one range; overlapping ranges and bad ones are refused") {
    auto ranges = load::default_bucket_ranges;
    load::apply_bucket_override(ranges, "short=5:10");
    CHECK(ranges[0].min == 5);
    CHECK(ranges[0].max == 10);
    CHECK(ranges[1].min == 128);
    CHECK_THROWS_AS(load::apply_bucket_override(ranges, "short=10:5"), usage_error);
    CHECK_THROWS_AS(load::apply_bucket_override(ranges, "short=0:5"), usage_error);
    CHECK_THROWS_AS(load::apply_bucket_override(ranges, "huge=1:5"), usage_error);
    CHECK_THROWS_AS(load::apply_bucket_override(ranges, "short=5"), usage_error);
    load::apply_bucket_override(ranges, "medium=9:200");
    CHECK_THROWS_AS(load::validate(ranges), usage_error);
}

TEST_CASE("a mix draws distinct prompts per bucket, shuffled, the same for the same seed") {
    load::prompt_buckets b;
    for (int i = 0; i < 50; ++i) b.buckets[0].push_back({"s" + std::to_string(i), 10});
    for (int i = 0; i < 30; ++i) b.buckets[2].push_back({"l" + std::to_string(i), 3000});
    const auto spec = *load::find_mix_preset("mix_70_30");
    const auto m = load::make_mix(40, spec, b, 7);
    CHECK(m.counts == counts3{28, 0, 12});
    REQUIRE(m.prompts.size() == 40);
    std::set<std::string> seen;
    std::size_t shorts = 0;
    for (const auto& p : m.prompts) {
        seen.insert(p.text);
        if (p.bucket == 0) {
            ++shorts;
            CHECK(p.text[0] == 's');
        } else {
            CHECK(p.text[0] == 'l');
        }
    }
    CHECK(seen.size() == 40); // without replacement
    CHECK(shorts == 28);
    CHECK(m.notes.empty());
    // Shuffled: the 28 short prompts are not all first.
    bool interleaved = false;
    for (std::size_t i = 0; i < 28; ++i) interleaved |= m.prompts[i].bucket != 0;
    CHECK(interleaved);

    const auto again = load::make_mix(40, spec, b, 7);
    const auto other = load::make_mix(40, spec, b, 8);
    std::vector<std::string> a, c, d;
    for (const auto& p : m.prompts) a.push_back(p.text);
    for (const auto& p : again.prompts) c.push_back(p.text);
    for (const auto& p : other.prompts) d.push_back(p.text);
    CHECK(a == c);
    CHECK(a != d);
}

TEST_CASE("a bucket smaller than its share is drawn with replacement, with a note") {
    load::prompt_buckets b;
    for (int i = 0; i < 3; ++i) b.buckets[0].push_back({"s" + std::to_string(i), 10});
    for (int i = 0; i < 3; ++i) b.buckets[2].push_back({"l" + std::to_string(i), 3000});
    const auto m = load::make_mix(10, *load::find_mix_preset("mix_50_50"), b, 1);
    REQUIRE(m.prompts.size() == 10);
    REQUIRE(m.notes.size() == 2);
    CHECK(m.notes[0].find("with replacement") != std::string::npos);
    std::set<std::string> seen;
    for (const auto& p : m.prompts) seen.insert(p.text);
    CHECK(seen.size() <= 6);
    load::prompt_buckets empty_long;
    empty_long.buckets[0] = b.buckets[0];
    CHECK_THROWS_AS(load::make_mix(10, *load::find_mix_preset("mix_50_50"), empty_long, 1), usage_error);
}

TEST_CASE("synthetic prompts have exactly their drawn length under the heuristic, within the ranges") {
    const auto b = load::synthetic_buckets({100, 20, 5}, load::default_bucket_ranges, heuristic, 3);
    for (std::size_t i = 0; i < 3; ++i) {
        for (const auto& p : b.buckets[i]) {
            CHECK(p.tokens == heuristic.text(p.text));
            CHECK(load::default_bucket_ranges[i].contains(p.tokens));
        }
    }
    CHECK(b.buckets[0].size() == 100);
    CHECK(b.buckets[2].size() == 5);
    CHECK(b.notes.empty());
    // Lengths spread over the range: 100 uniform draws in 8..24 hit both halves.
    std::set<std::int32_t> lengths;
    for (const auto& p : b.buckets[0]) lengths.insert(p.tokens);
    CHECK(*lengths.begin() <= 12);
    CHECK(*lengths.rbegin() >= 20);
    // Deterministic under the seed.
    const auto again = load::synthetic_buckets({100, 20, 5}, load::default_bucket_ranges, heuristic, 3);
    CHECK(again.buckets[1][7].text == b.buckets[1][7].text);
}

TEST_CASE("synthetic prompts are corrected to a server counter's count, or the nearest is reported") {
    // A tokenizer that adds 2 special tokens and counts every word once: reachable exactly.
    load::token_counter plus_two = heuristic;
    plus_two.text = [](std::string_view s) { return servestat::count_tokens(s) + 2; };
    servestat::detail::xoshiro256 rng(11);
    const auto exact = load::synthetic_text(50, plus_two, rng);
    CHECK(exact.tokens == 50);
    CHECK(plus_two.text(exact.text) == 50);
    // One that counts two tokens per word cannot reach an odd target: the nearest is 1 away.
    load::token_counter doubled = heuristic;
    doubled.source = "doubling";
    doubled.text = [](std::string_view s) { return 2 * servestat::count_tokens(s); };
    const auto near = load::synthetic_text(51, doubled, rng);
    CHECK(near.target == 51);
    CHECK(std::abs(near.tokens - 51) == 1);
    CHECK(doubled.text(near.text) == near.tokens);
    const auto b = load::synthetic_buckets({4, 0, 0}, {load::token_range{9, 9}, load::token_range{100, 200},
                                                       load::token_range{1000, 2000}},
                                           doubled, 1);
    REQUIRE(b.notes.size() == 1);
    CHECK(b.notes[0].find("doubling") != std::string::npos);
}

TEST_CASE("prompt files: lines of text, a JSON array, or JSONL of strings, messages, prompt or text") {
    CHECK(load::parse_prompt_texts("first one\r\n\n  \nsecond\n", "q.txt") == std::vector<std::string>{"first one", "second"});
    CHECK(load::parse_prompt_texts(R"(["a", {"text": "b"}, ""])", "q.json") == std::vector<std::string>{"a", "b"});
    CHECK(load::parse_prompt_texts("\"a\"\n"
                                   "{\"messages\": [{\"role\": \"system\", \"content\": \"s\"}, {\"role\": \"user\", "
                                   "\"content\": \"b\"}], \"max_tokens\": 128}\n"
                                   "{\"prompt\": \"c\"}\n{\"text\": \"d\", \"id\": 4}\n",
                                   "q.jsonl") == std::vector<std::string>{"a", "b", "c", "d"});
    auto e = input_error_of([] { load::parse_prompt_texts("\"a\"\n{\"question\": \"b\"}\n", "q.jsonl"); });
    CHECK(e.line() == 2);
    e = input_error_of([] { load::parse_prompt_texts("{\"text\": 5}", "q.jsonl"); });
    CHECK(e.field() == "text");
    e = input_error_of([] { load::parse_prompt_texts("[\"a\", 5]", "q.json"); });
    CHECK(e.field() == "[1]");
    e = input_error_of([] { load::parse_prompt_texts("\n\n", "q.txt"); });
    CHECK(e.file() == "q.txt");
}

TEST_CASE("an empty bucket is composed from the other prompts, each within the bucket's range") {
    std::vector<std::string> texts;
    for (int i = 0; i < 40; ++i) texts.push_back("Question number " + std::to_string(i) + " asks\nabout " + n_tokens(i % 17 + 8));
    auto b = load::bucket_prompts(texts, load::default_bucket_ranges, heuristic);
    REQUIRE(b.buckets[2].empty());
    const load::token_range long_range{300, 400};
    load::compose_bucket(b, 2, 6, long_range, heuristic, 5);
    REQUIRE(b.buckets[2].size() == 6);
    for (const auto& p : b.buckets[2]) {
        CHECK(long_range.contains(p.tokens));
        CHECK(p.tokens == heuristic.text(p.text));
        CHECK(p.text.find("\n\n") != std::string::npos); // snippets joined by blank lines
        CHECK(p.text.find("asks\nabout") == std::string::npos); // newlines inside snippets flattened
    }
    REQUIRE(b.notes.size() == 1);
}

} // namespace test_load_workload
