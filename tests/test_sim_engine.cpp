// Tests for the simulator's engine (servestat/sim/engine.hpp), token counting (core/token_count.hpp,
// shared with the load driver) and token ids (tokens.hpp), closed-loop driver (closed_loop.hpp) and
// presets (presets.hpp). Step-by-step expectations are derived by hand from the scheduling rules in
// docs/simulator.md with round cost coefficients; the preset checks compare shapes against the
// notebook's Experiment 3 (tests/data/sweep/bad_unfair_exp3.csv).
#include "servestat/core/token_count.hpp" // count_tokens, count_chat_tokens
#include "servestat/sim/closed_loop.hpp"
#include "servestat/sim/engine.hpp"
#include "servestat/sim/prefix_cache.hpp"
#include "servestat/sim/presets.hpp"
#include "servestat/sim/tokens.hpp"
#include "servestat/stats/quantile.hpp" // quantile_sorted

#include <algorithm> // std::sort
#include <cstddef>   // std::size_t
#include <cstdint>   // std::int32_t, std::uint64_t
#include <limits>    // std::numeric_limits
#include <numeric>   // std::iota
#include <optional>  // std::optional
#include <set>       // std::set
#include <string>    // std::string
#include <vector>    // std::vector

#include <catch2/catch.hpp> // TEST_CASE, SECTION, REQUIRE, CHECK, Approx

namespace test_sim_engine { // the unity build compiles several test files as one: each keeps its names

namespace {

namespace sim = servestat::sim;
using servestat::usage_error;

// Round coefficients so every duration can be worked out by hand: 10 ms per step, 1 ms per prompt
// token, 2 ms per decoding sequence, no context cost.
sim::engine_config hand_config(std::int32_t budget, std::int32_t max_seqs = 4) {
    sim::engine_config c;
    c.max_num_seqs = max_seqs;
    c.max_num_batched_tokens = budget;
    c.chunked_prefill = true;
    c.long_prefill_token_threshold = 0;
    c.max_model_len = 4096;
    c.step_overhead = 0.01;
    c.per_prefill_token = 0.001;
    c.per_decode_seq = 0.002;
    c.per_context_token = 0;
    return c;
}

struct emitted {
    std::uint64_t id;
    std::int32_t index;
    bool last;
};

std::vector<emitted> tokens_of(const sim::step_result& r) {
    std::vector<emitted> out;
    for (const auto& t : r.tokens) out.push_back({t.id, t.index, t.last});
    return out;
}

bool same(const std::vector<emitted>& a, const std::vector<emitted>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i].id != b[i].id || a[i].index != b[i].index || a[i].last != b[i].last) return false;
    return true;
}

} // namespace

TEST_CASE("a lone request: prefill step, then one decode step per token", "[sim][engine]") {
    sim::engine e(hand_config(8192));
    e.add({7, 100, 3}, 0.0);
    auto s1 = e.step(0.0);
    CHECK(s1.duration == Approx(0.01 + 100 * 0.001)); // 0.11
    CHECK(s1.prefill_tokens == 100);
    CHECK(s1.decode_seqs == 0);
    CHECK(same(tokens_of(s1), {{7, 0, false}})); // first token at the END of the prefill step
    auto s2 = e.step(0.11);
    CHECK(s2.duration == Approx(0.012));
    CHECK(same(tokens_of(s2), {{7, 1, false}}));
    auto s3 = e.step(0.122);
    CHECK(same(tokens_of(s3), {{7, 2, true}}));
    REQUIRE(s3.done.size() == 1);
    CHECK(s3.done[0].id == 7);
    CHECK(s3.done[0].output_tokens == 3);
    CHECK(s3.done[0].queue == Approx(0).margin(1e-12));
    CHECK(s3.done[0].prefill == Approx(0.11));
    CHECK(s3.done[0].decode == Approx(0.024));
    CHECK(e.idle());
}

TEST_CASE("running sequences are scheduled before waiting ones, waiting ones first come first served",
          "[sim][engine]") {
    sim::engine e(hand_config(10));
    e.add({1, 5, 3}, 0.0);
    auto s1 = e.step(0.0); // A prefills 5: 0.01 + 0.005
    CHECK(s1.duration == Approx(0.015));
    e.add({2, 9, 2}, 0.015);
    e.add({3, 2, 1}, 0.015);
    // A decodes first (1 token of budget), B takes the other 9, C waits: the budget is spent.
    auto s2 = e.step(0.015);
    CHECK(s2.decode_seqs == 1);
    CHECK(s2.prefill_tokens == 9);
    CHECK(s2.duration == Approx(0.01 + 0.009 + 0.002));
    CHECK(same(tokens_of(s2), {{1, 1, false}, {2, 0, false}}));
    CHECK(e.running() == 2);
    CHECK(e.waiting() == 1);
    // A and B decode (2 tokens), C prefills 2 and, with max_tokens 1, finishes at once.
    auto s3 = e.step(0.036);
    CHECK(s3.duration == Approx(0.01 + 0.002 + 2 * 0.002));
    CHECK(same(tokens_of(s3), {{1, 2, true}, {2, 1, true}, {3, 0, true}}));
    REQUIRE(s3.done.size() == 3);
    // A: scheduled on arrival; first token at 0.015; last at 0.052.
    CHECK(s3.done[0].queue == Approx(0).margin(1e-12));
    CHECK(s3.done[0].prefill == Approx(0.015));
    CHECK(s3.done[0].decode == Approx(0.037));
    // B: arrived and scheduled at 0.015, first token at 0.036, last at 0.052.
    CHECK(s3.done[1].queue == Approx(0).margin(1e-12));
    CHECK(s3.done[1].prefill == Approx(0.021));
    CHECK(s3.done[1].decode == Approx(0.016));
    // C: arrived at 0.015, scheduled at 0.036, its only token at 0.052.
    CHECK(s3.done[2].queue == Approx(0.021));
    CHECK(s3.done[2].prefill == Approx(0.016));
    CHECK(s3.done[2].decode == Approx(0).margin(1e-12));
    CHECK(s3.done[2].output_tokens == 1);
    CHECK(e.idle());
}

TEST_CASE("chunked prefill splits a 3000-token prompt over steps of the budget", "[sim][engine]") {
    sim::engine e(hand_config(1024));
    e.add({1, 3000, 2}, 0.0);
    double now = 0;
    const std::int32_t chunks[] = {1024, 1024, 952};
    for (int i = 0; i < 3; ++i) {
        auto s = e.step(now);
        CHECK(s.prefill_tokens == chunks[i]);
        CHECK(s.duration == Approx(0.01 + chunks[i] * 0.001));
        CHECK(s.tokens.size() == (i < 2 ? 0u : 1u)); // no token before the prompt is done
        now += s.duration;
    }
    auto last = e.step(now);
    CHECK(same(tokens_of(last), {{1, 1, true}}));
    REQUIRE(last.done.size() == 1);
    CHECK(last.done[0].prefill == Approx(1.034 + 1.034 + 0.962));
    CHECK(last.done[0].decode == Approx(0.012));
}

TEST_CASE("without chunking a prompt that does not fit the budget waits and blocks those behind it",
          "[sim][engine]") {
    auto config = hand_config(4096);
    config.chunked_prefill = false;
    sim::engine e(config);
    e.add({1, 3000, 4}, 0.0);
    e.add({2, 2000, 4}, 0.0);
    e.add({3, 10, 4}, 0.0); // would fit the 1096 left, but FCFS stops at B
    auto s1 = e.step(0.0);
    CHECK(s1.prefill_tokens == 3000);
    CHECK(e.running() == 1);
    CHECK(e.waiting() == 2);
    auto s2 = e.step(s1.duration); // A decodes (1), B 2000 and C 10 fit the remaining 4095
    CHECK(s2.decode_seqs == 1);
    CHECK(s2.prefill_tokens == 2010);
    CHECK(e.running() == 3);
    CHECK(e.waiting() == 0);

    SECTION("with chunking B takes the rest of the budget instead") {
        config.chunked_prefill = true;
        sim::engine chunked(config);
        chunked.add({1, 3000, 4}, 0.0);
        chunked.add({2, 2000, 4}, 0.0);
        chunked.add({3, 10, 4}, 0.0);
        CHECK(chunked.step(0.0).prefill_tokens == 4096); // 3000 + 1096 of B
        CHECK(chunked.running() == 2);
        CHECK(chunked.waiting() == 1);
    }
}

TEST_CASE("long_prefill_token_threshold caps every prefill chunk", "[sim][engine]") {
    auto config = hand_config(8192);
    config.long_prefill_token_threshold = 512;
    sim::engine e(config);
    e.add({1, 1200, 1}, 0.0);
    e.add({2, 1200, 1}, 0.0);
    auto s1 = e.step(0.0);
    CHECK(s1.prefill_tokens == 1024); // 512 each, although 8192 were available
    CHECK(s1.tokens.empty());
    auto s2 = e.step(1.0);
    CHECK(s2.prefill_tokens == 1024);
    auto s3 = e.step(2.0);
    CHECK(s3.prefill_tokens == 2 * 176);
    CHECK(same(tokens_of(s3), {{1, 0, true}, {2, 0, true}}));
}

// vLLM V0's concurrent partial prefills (vllm/core/scheduler.py, PartialPrefillMetadata). The first
// three steps repeat vLLM's own test_short_prompts_jump_long_prompts_in_queue
// (tests/core/test_chunked_prefill_scheduler.py: budget 64, max_model_len 2000, two 1200-token and
// two 40-token prompts, max_num_partial_prefills 2) and expect its chunk sizes.
sim::engine_config partial_config(std::int32_t budget, std::int32_t partial, std::int32_t long_partial) {
    auto c = hand_config(budget, 60);
    c.max_model_len = 2000; // threshold 0: a prefill is long while more than 4% (80 tokens) is left
    c.max_num_partial_prefills = partial;
    c.max_long_partial_prefills = long_partial;
    return c;
}

TEST_CASE("partial prefills: short prompts jump a long one that is over the long limit", "[sim][engine]") {
    sim::engine e(partial_config(64, 2, 1));
    e.add({1, 1200, 1}, 0.0); // L1
    e.add({2, 1200, 1}, 0.0); // L2
    e.add({3, 40, 2}, 0.0);   // S1
    e.add({4, 40, 1}, 0.0);   // S2
    // Step 1: two prefills can progress (L1, and S1 - L2 is over the long limit), 64 / 2 = 32 each.
    auto s1 = e.step(0.0);
    CHECK(s1.prefill_tokens == 64); // L1 32 + S1 32
    CHECK(s1.tokens.empty());
    CHECK(s1.duration == Approx(0.074));
    CHECK(e.running() == 2);
    CHECK(e.waiting() == 2); // L2 kept its place at the head, S2 behind it
    // Step 2: L1 32, S1 its last 8 (first token), S2 jumps L2 and takes the 24 left.
    auto s2 = e.step(0.074);
    CHECK(s2.prefill_tokens == 64);
    CHECK(same(tokens_of(s2), {{3, 0, false}}));
    CHECK(e.running() == 3);
    CHECK(e.waiting() == 1);
    // Step 3: L1 32, S1 decodes, S2 its last 16: 49 tokens of budget, as vLLM's test has it.
    auto s3 = e.step(0.148);
    CHECK(s3.prefill_tokens == 48);
    CHECK(s3.decode_seqs == 1);
    CHECK(s3.duration == Approx(0.01 + 0.048 + 0.002));
    CHECK(same(tokens_of(s3), {{3, 1, true}, {4, 0, true}}));
    CHECK(e.waiting() == 1);
    // Step 4: L1 is the only prefill that can progress, so it gets the whole budget (vLLM's test
    // gives it 62 because its short prompts still decode there).
    auto s4 = e.step(0.208);
    CHECK(s4.prefill_tokens == 64);
    e.add({5, 1200, 1}, 0.3); // L3 arrives behind L2
    // L1 has 1200 - 160 = 1040 left: 64 a step until 80 are left (15 steps); L2 waits throughout.
    double now = 0.3;
    for (int i = 0; i < 15; ++i) {
        auto s = e.step(now);
        CHECK(s.prefill_tokens == 64);
        now += s.duration;
    }
    CHECK(e.running() == 1);
    CHECK(e.waiting() == 2);
    // With 80 left L1 is no longer long: L2 (first in the queue, not L3) starts, 32 tokens each.
    auto s20 = e.step(now);
    CHECK(s20.prefill_tokens == 64);
    CHECK(e.running() == 2);
    CHECK(e.waiting() == 1);
    e.cancel(5); // L3 was the one still waiting
    CHECK(e.waiting() == 0);
    CHECK(e.running() == 2);
}

TEST_CASE("partial prefills split the budget evenly between the prefills that can progress", "[sim][engine]") {
    // vLLM's test_concurrent_chunking: two 60-token prompts, budget 64 -> 32 + 32, then 28 + 28.
    sim::engine e(partial_config(64, 2, 1));
    e.add({1, 60, 1}, 0.0);
    e.add({2, 60, 1}, 0.0);
    auto s1 = e.step(0.0);
    CHECK(s1.prefill_tokens == 64);
    CHECK(s1.tokens.empty()); // neither prompt is done
    auto s2 = e.step(1.0);
    CHECK(s2.prefill_tokens == 56);
    CHECK(same(tokens_of(s2), {{1, 0, true}, {2, 0, true}}));

    SECTION("with the default of 1 the first prompt takes all it needs, as in V1") {
        sim::engine v1(partial_config(64, 1, 1));
        v1.add({1, 60, 1}, 0.0);
        v1.add({2, 60, 1}, 0.0);
        auto s = v1.step(0.0);
        CHECK(s.prefill_tokens == 64); // 60 + 4
        CHECK(same(tokens_of(s), {{1, 0, true}}));
    }
    SECTION("the split caps chunks; it does not cap how many short prompts start") {
        // 4% of 4096 = 163: A (1000) is long, B and C (163) are not. P = 2 (A and B), so chunks are
        // at most 1024 / 2 = 512; C still fits the budget left and starts too.
        auto c = hand_config(1024, 60);
        c.max_num_partial_prefills = 2;
        sim::engine many(c);
        many.add({1, 1000, 1}, 0.0);
        many.add({2, 163, 1}, 0.0);
        many.add({3, 163, 1}, 0.0);
        auto s = many.step(0.0);
        CHECK(s.prefill_tokens == 512 + 163 + 163);
        CHECK(same(tokens_of(s), {{2, 0, true}, {3, 0, true}}));
        CHECK(many.waiting() == 0);
    }
    SECTION("a threshold of 0 makes prompts of more than 4% of max_model_len long") {
        auto c = hand_config(1024, 60);
        c.max_num_partial_prefills = 2;
        sim::engine four(c);
        four.add({1, 1000, 1}, 0.0);
        four.add({2, 164, 1}, 0.0); // long: it waits while A prefills
        four.add({3, 163, 1}, 0.0);
        auto s = four.step(0.0);
        CHECK(s.prefill_tokens == 512 + 163);
        CHECK(same(tokens_of(s), {{3, 0, true}}));
        CHECK(four.waiting() == 1);
    }
}

TEST_CASE("partial prefills: only one long prompt at a time with max_long_partial_prefills 1", "[sim][engine]") {
    // vLLM's test_concurrent_chunking_large_requests: the second 1200-token prompt waits, and the
    // first gets the whole budget.
    sim::engine e(partial_config(64, 2, 1));
    e.add({1, 1200, 1}, 0.0);
    e.add({2, 1200, 1}, 0.0);
    CHECK(e.step(0.0).prefill_tokens == 64);
    CHECK(e.running() == 1);
    CHECK(e.waiting() == 1);

    SECTION("max_long_partial_prefills 2 lets both start, 32 tokens each") {
        sim::engine two(partial_config(64, 2, 2));
        two.add({1, 1200, 1}, 0.0);
        two.add({2, 1200, 1}, 0.0);
        CHECK(two.step(0.0).prefill_tokens == 64);
        CHECK(two.running() == 2);
        CHECK(two.waiting() == 0);
    }
}

TEST_CASE("partial prefills: a prefill is long while more than the threshold is left", "[sim][engine]") {
    auto c = hand_config(256, 60);
    c.long_prefill_token_threshold = 100; // also caps every chunk at 100, as in V1
    c.max_num_partial_prefills = 2;
    sim::engine e(c);
    e.add({1, 300, 1}, 0.0); // A: long
    e.add({2, 300, 1}, 0.0); // B: long, waits for A
    e.add({3, 50, 2}, 0.0);  // C: short, jumps B
    // P = 2 (A, C): chunks of at most min(256 / 2, 100); A 100, C 50; 106 tokens stay unused.
    auto s1 = e.step(0.0);
    CHECK(s1.prefill_tokens == 150);
    CHECK(s1.duration == Approx(0.16));
    CHECK(same(tokens_of(s1), {{3, 0, false}}));
    CHECK(e.waiting() == 1);
    // A has 200 left (long), so B still waits; A 100, C decodes its last token.
    auto s2 = e.step(0.16);
    CHECK(s2.prefill_tokens == 100);
    CHECK(s2.decode_seqs == 1);
    CHECK(same(tokens_of(s2), {{3, 1, true}}));
    CHECK(e.waiting() == 1);
    // A has exactly 100 left: no longer long, so B starts beside it.
    auto s3 = e.step(0.272);
    CHECK(s3.prefill_tokens == 200);
    CHECK(same(tokens_of(s3), {{1, 0, true}}));
    CHECK(e.waiting() == 0);
    CHECK(e.running() == 1);

    SECTION("without partial prefills the queue stays first come first served") {
        auto off = c;
        off.max_num_partial_prefills = 1;
        sim::engine fcfs(off);
        fcfs.add({1, 300, 1}, 0.0);
        fcfs.add({2, 300, 1}, 0.0);
        fcfs.add({3, 50, 2}, 0.0);
        CHECK(fcfs.step(0.0).prefill_tokens == 250); // 100 + 100 + 50: B before C
        CHECK(fcfs.waiting() == 0);
    }
}

TEST_CASE("max_num_seqs caps the running sequences", "[sim][engine]") {
    sim::engine e(hand_config(100, 2));
    for (std::uint64_t id = 1; id <= 3; ++id) e.add({id, 5, 2}, 0.0);
    auto s1 = e.step(0.0);
    CHECK(s1.prefill_tokens == 10);
    CHECK(e.running() == 2);
    CHECK(e.waiting() == 1);
    auto s2 = e.step(1.0); // A and B finish at the end of this step: C still had no seat in it
    CHECK(s2.done.size() == 2);
    CHECK(s2.prefill_tokens == 0);
    CHECK(e.running() == 0);
    CHECK(e.waiting() == 1);
    auto s3 = e.step(2.0);
    CHECK(s3.prefill_tokens == 5);
    CHECK(e.running() == 1);
}

TEST_CASE("cancel drops a request from the waiting queue or the running batch", "[sim][engine]") {
    sim::engine e(hand_config(100, 1));
    e.add({1, 5, 5}, 0.0);
    e.add({2, 5, 5}, 0.0);
    e.step(0.0);
    REQUIRE(e.running() == 1);
    REQUIRE(e.waiting() == 1);
    e.cancel(1); // running
    CHECK(e.running() == 0);
    CHECK(e.waiting() == 1);
    e.cancel(42); // unknown: ignored
    CHECK(e.waiting() == 1);
    auto s = e.step(1.0); // the seat freed by 1 goes to 2, and 1 emits nothing more
    CHECK(same(tokens_of(s), {{2, 0, false}}));
    e.cancel(2);
    CHECK(e.idle());
    auto empty = e.step(2.0);
    CHECK(empty.duration == 0);
    CHECK(empty.tokens.empty());

    SECTION("cancel from waiting") {
        sim::engine w(hand_config(100, 1));
        w.add({1, 5, 5}, 0.0);
        w.add({2, 5, 5}, 0.0);
        w.step(0.0);
        w.cancel(2);
        CHECK(w.waiting() == 0);
        CHECK(w.running() == 1);
    }
}

TEST_CASE("step duration: overhead + prefill tokens + decoding sequences + context of scheduled sequences",
          "[sim][engine]") {
    auto config = hand_config(8192);
    config.per_context_token = 0.0001;
    sim::engine e(config);
    e.add({1, 100, 2}, 0.0);
    // 0.01 + 100 * 0.001 + 100 context tokens * 0.0001
    CHECK(e.step(0.0).duration == Approx(0.12));
    // 0.01 + 1 decoding sequence * 0.002 + (100 prompt + 1 generated) * 0.0001
    CHECK(e.step(0.12).duration == Approx(0.0221));

    SECTION("a prefill chunk counts the sequence's whole prompt as its context") {
        auto small = config;
        small.max_num_batched_tokens = 64;
        sim::engine chunked(small);
        chunked.add({1, 100, 2}, 0.0);
        CHECK(chunked.step(0.0).duration == Approx(0.01 + 0.064 + 0.01)); // 64 tokens, context 100
    }
}

TEST_CASE("admission rejects context overflow with vLLM's message", "[sim][engine]") {
    sim::engine e(hand_config(8192));
    // The notebook's Experiment 1 failure, word for word as vLLM 0.10 writes error.message.
    const std::optional<std::string> overflow = e.inadmissible(4030, 128);
    REQUIRE(overflow);
    CHECK(*overflow == "'max_tokens' or 'max_completion_tokens' is too large: 128. This model's maximum context "
                       "length is 4096 tokens and your request has 4030 input tokens (128 > 4096 - 4030).");
    CHECK_FALSE(e.inadmissible(4030, 66)); // exactly 4096
    CHECK(e.inadmissible(4096, 1) == std::optional<std::string>(
                                         "This model's maximum context length is 4096 tokens. However, your request "
                                         "has 4096 input tokens. Please reduce the length of the input messages."));
    CHECK_THROWS_AS(e.add({1, 4030, 128}, 0.0), usage_error);
    CHECK_THROWS_AS(e.add({1, 10, 0}, 0.0), usage_error);
    e.add({1, 10, 1}, 0.0);
    CHECK_THROWS_AS(e.add({1, 10, 1}, 0.0), usage_error); // same id twice
}

TEST_CASE("validate rejects configurations vLLM would not start with", "[sim][engine]") {
    const auto ok = hand_config(8192);
    CHECK_NOTHROW(sim::validate(ok));
    auto c = ok;
    c.max_num_seqs = 0;
    CHECK_THROWS_AS(sim::validate(c), usage_error);
    c = ok;
    c.max_num_batched_tokens = 2; // below max_num_seqs 4
    CHECK_THROWS_AS(sim::validate(c), usage_error);
    c = ok;
    c.chunked_prefill = false;
    c.max_num_batched_tokens = 2048; // a 4096-token context could never be scheduled
    CHECK_THROWS_AS(sim::validate(c), usage_error);
    c = ok;
    c.long_prefill_token_threshold = -1;
    CHECK_THROWS_AS(sim::validate(c), usage_error);
    c = ok;
    c.per_prefill_token = -0.001;
    CHECK_THROWS_AS(sim::validate(c), usage_error);
    c = ok;
    c.per_decode_seq = std::numeric_limits<double>::quiet_NaN();
    CHECK_THROWS_AS(sim::validate(c), usage_error);
    c = ok;
    c.step_overhead = 0;
    CHECK_THROWS_AS(sim::engine(c), usage_error);
    // Concurrent partial prefills, as vLLM's SchedulerConfig checks them.
    c = ok;
    c.max_num_partial_prefills = 4;
    c.max_long_partial_prefills = 4;
    CHECK_NOTHROW(sim::validate(c));
    c.max_long_partial_prefills = 5; // more long ones than partial prefills
    CHECK_THROWS_AS(sim::validate(c), usage_error);
    c.max_long_partial_prefills = 0;
    CHECK_THROWS_AS(sim::validate(c), usage_error);
    c = ok;
    c.max_num_partial_prefills = 0;
    CHECK_THROWS_AS(sim::validate(c), usage_error);
    c = ok;
    c.max_num_partial_prefills = 2;
    c.chunked_prefill = false; // partial prefills need chunking
    CHECK_THROWS_AS(sim::validate(c), usage_error);
    c = ok;
    c.max_num_partial_prefills = 2;
    c.long_prefill_token_threshold = 4097; // above max_model_len 4096
    CHECK_THROWS_AS(sim::validate(c), usage_error);
    c.max_num_partial_prefills = 1; // the threshold alone may be anything
    CHECK_NOTHROW(sim::validate(c));
    c = ok;
    c.max_num_batched_tokens = 4;
    c.max_num_partial_prefills = 5; // a chunk of 4 / 5 = 0 tokens could never progress
    CHECK_THROWS_AS(sim::validate(c), usage_error);
}

// ---- prefix caching ------------------------------------------------------------------------------
// Blocks of 4 tokens so the hits can be counted by hand; token ids are small integers, the keys come
// from block_hashes as the server makes them. hand_config's costs: 10 ms a step, 1 ms per prompt
// token prefilled, 2 ms per decoding sequence, no context cost.

namespace {

sim::engine_config cache_config(std::int32_t capacity_tokens, std::int32_t max_seqs = 4) {
    auto c = hand_config(8192, max_seqs);
    c.prefix_caching = true;
    c.block_size = 4;
    c.prefix_cache_tokens = capacity_tokens;
    return c;
}

std::vector<std::uint64_t> ids(std::uint64_t first, std::uint64_t last) { // first..last inclusive
    std::vector<std::uint64_t> out(last - first + 1);
    std::iota(out.begin(), out.end(), first);
    return out;
}

std::vector<std::uint64_t> concat(std::vector<std::uint64_t> a, const std::vector<std::uint64_t>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

// The engine's keys for a request whose prompt is `prompt` and whose next turn would start with `next`.
sim::prefix_blocks keys(const std::vector<std::uint64_t>& prompt, const std::vector<std::uint64_t>& next) {
    return {sim::block_hashes(prompt, 4), sim::block_hashes(next, 4)};
}

// Adds one request and steps the engine until it finishes; its `finished` record.
sim::finished run_alone(sim::engine& e, std::uint64_t id, const std::vector<std::uint64_t>& prompt,
                        std::int32_t max_tokens, const std::vector<std::uint64_t>& next, double& now,
                        sim::step_result* first_step = nullptr) {
    e.add({id, static_cast<std::int32_t>(prompt.size()), max_tokens}, now, keys(prompt, next));
    for (int guard = 0; guard < 1000; ++guard) {
        auto s = e.step(now);
        if (first_step && guard == 0) *first_step = s;
        now += s.duration;
        for (const auto& f : s.done)
            if (f.id == id) return f;
    }
    FAIL("the request never finished");
    return {};
}

} // namespace

TEST_CASE("block_hashes: full blocks only, each key chained to the blocks before it", "[sim][prefix_cache]") {
    const auto a = sim::block_hashes(ids(1, 10), 4); // [1-4] [5-8], 9 and 10 are not a full block
    REQUIRE(a.size() == 2);
    CHECK(sim::block_hashes(ids(1, 8), 4) == a);
    CHECK(sim::block_hashes(ids(1, 3), 4).empty());
    // The same four tokens behind another prefix make another key.
    const auto b = sim::block_hashes(concat(ids(100, 103), ids(5, 8)), 4);
    CHECK(b[1] != a[1]);
    CHECK(a[0] != a[1]);
}

TEST_CASE("prefix cache: a second request sharing a prefix prefills only the rest", "[sim][engine][prefix_cache]") {
    sim::engine e(cache_config(64));
    double now = 0;
    // A: prompt 1..10 (blocks [1-4] [5-8]), 3 tokens; its next turn would render 1..10, the reply
    // 101..103 and the two closing tokens 104 105: blocks [1-4] [5-8] [9 10 101 102].
    sim::step_result a_first;
    const auto a = run_alone(e, 1, ids(1, 10), 3, concat(ids(1, 10), ids(101, 105)), now, &a_first);
    CHECK(a.cached_tokens == 0);
    CHECK(a.prefill == Approx(0.01 + 10 * 0.001)); // nothing cached yet
    CHECK(a_first.cache_queries == 10);
    CHECK(a_first.cache_hits == 0);
    REQUIRE(e.cache());
    CHECK(e.cache()->size() == 3);
    // B, A's next turn: 1..10, 101..105, then 201..205: 20 tokens, 5 full blocks, of which the first 3
    // are cached: 12 tokens. It prefills 20 - 12 = 8: 0.01 + 0.008, against 0.03 without the cache.
    sim::step_result b_first;
    const auto b = run_alone(e, 2, concat(concat(ids(1, 10), ids(101, 105)), ids(201, 205)), 2, {}, now, &b_first);
    CHECK(b.cached_tokens == 12);
    CHECK(b_first.prefill_tokens == 8);
    CHECK(b.prefill == Approx(0.018));
    CHECK(b_first.duration == Approx(0.018));
    CHECK(b_first.cache_queries == 20);
    CHECK(b_first.cache_hits == 12);
    CHECK(b.decode == Approx(0.012));

    SECTION("the context cost still counts the whole prompt") {
        auto c = cache_config(64);
        c.per_context_token = 0.0001;
        sim::engine ctx(c);
        double t = 0;
        run_alone(ctx, 1, ids(1, 10), 1, ids(1, 10), t);
        sim::step_result first;
        const auto f = run_alone(ctx, 2, concat(ids(1, 8), ids(301, 304)), 1, {}, t, &first);
        // 12 tokens, [1-4] [5-8] cached (cap (12 - 1) / 4 = 2 blocks): 4 prefilled, context 12.
        CHECK(f.cached_tokens == 8);
        CHECK(first.duration == Approx(0.01 + 4 * 0.001 + 12 * 0.0001));
    }
    SECTION("with caching off the keys are ignored") {
        auto off = cache_config(64);
        off.prefix_caching = false;
        sim::engine plain(off);
        double t = 0;
        run_alone(plain, 1, ids(1, 10), 3, concat(ids(1, 10), ids(101, 105)), t);
        sim::step_result first;
        const auto f = run_alone(plain, 2, concat(concat(ids(1, 10), ids(101, 105)), ids(201, 205)), 2, {}, t, &first);
        CHECK(f.cached_tokens == 0);
        CHECK(first.prefill_tokens == 20);
        CHECK(first.cache_queries == 0);
        CHECK(plain.cache() == nullptr);
    }
}

TEST_CASE("prefix cache: at least one prompt token is computed", "[sim][engine][prefix_cache]") {
    sim::engine e(cache_config(64));
    double now = 0;
    // Caches [1-4] [5-8] [9 10 101 102].
    run_alone(e, 1, ids(1, 10), 3, concat(ids(1, 10), ids(101, 105)), now);
    // A 12-token prompt whose 3 blocks are all cached: the hit is the largest multiple of 4 up to
    // 12 - 1 = 11, i.e. 8, and the last block is computed again (4 tokens).
    sim::step_result first;
    auto f = run_alone(e, 2, concat(ids(1, 10), ids(101, 102)), 1, {}, now, &first);
    CHECK(f.cached_tokens == 8);
    CHECK(first.prefill_tokens == 4);
    CHECK(first.duration == Approx(0.014));
    // One token more (13): all 3 full blocks fit below 13 - 1 = 12, so 12 are cached and 1 computed.
    f = run_alone(e, 3, concat(ids(1, 10), ids(101, 103)), 1, {}, now, &first);
    CHECK(f.cached_tokens == 12);
    CHECK(first.prefill_tokens == 1);
    CHECK(first.duration == Approx(0.011));
}

TEST_CASE("prefix cache: the least recently used blocks are evicted at capacity, a chain's tail first",
          "[sim][engine][prefix_cache]") {
    sim::engine e(cache_config(12)); // 3 blocks of 4
    double now = 0;
    const auto a = ids(1, 9), d = ids(11, 15), x = ids(21, 25);
    const auto a_next = concat(a, {100}), d_next = concat(d, {100}), x_next = concat(x, {100});
    run_alone(e, 1, a, 1, a_next, now); // caches A1 [1-4], A2 [5-8]
    run_alone(e, 2, d, 1, d_next, now); // caches D1 [11-14]: full (3 blocks)
    CHECK(e.cache()->size() == 3);
    // A again: both blocks hit ((9 - 1) / 4 = 2), and A1, A2 become the most recently used.
    auto f = run_alone(e, 3, a, 1, a_next, now);
    CHECK(f.cached_tokens == 8);
    CHECK(f.prefill == Approx(0.011));
    // X's block X1 pushes out the least recently used one, D1.
    run_alone(e, 4, x, 1, x_next, now);
    CHECK(e.cache()->size() == 3);
    f = run_alone(e, 5, d, 1, d_next, now);
    CHECK(f.cached_tokens == 0); // D1 was evicted
    CHECK(f.prefill == Approx(0.015));
    // Caching D1 again evicted the oldest block, A2 (A1 was touched after it): A keeps its first block.
    f = run_alone(e, 6, a, 1, a_next, now);
    CHECK(f.cached_tokens == 4);
    CHECK(f.prefill == Approx(0.015));
}

TEST_CASE("prefix cache: a waiting request looks up when first scheduled, not on arrival",
          "[sim][engine][prefix_cache]") {
    sim::engine e(cache_config(64, 1)); // one running sequence at a time
    const auto a = ids(1, 9);
    e.add({1, 9, 2}, 0.0, keys(a, concat(a, {100, 101})));
    e.add({2, 10, 1}, 0.0, keys(concat(a, {50}), {})); // arrives with nothing cached yet
    auto s1 = e.step(0.0); // A prefills 9 (0.019); B has no seat; A's blocks are cached at the end
    CHECK(s1.prefill_tokens == 9);
    auto s2 = e.step(0.019); // A decodes its last token (0.012); B still has no seat in this step
    CHECK(s2.done.size() == 1);
    auto s3 = e.step(0.031); // B: [1-4] [5-8] cached ((10 - 1) / 4 = 2 blocks), 2 tokens to prefill
    CHECK(s3.prefill_tokens == 2);
    CHECK(s3.duration == Approx(0.012));
    REQUIRE(s3.done.size() == 1);
    CHECK(s3.done[0].cached_tokens == 8);
    CHECK(s3.done[0].queue == Approx(0.031));
    CHECK(s3.done[0].prefill == Approx(0.012));
}

TEST_CASE("prefix cache: configuration checks", "[sim][engine][prefix_cache]") {
    auto c = cache_config(64);
    CHECK_NOTHROW(sim::validate(c));
    c.block_size = 0;
    CHECK_THROWS_AS(sim::validate(c), usage_error);
    c = cache_config(3); // less than one block of 4
    CHECK_THROWS_AS(sim::validate(c), usage_error);
    c.prefix_caching = false; // the capacity matters only with caching on
    CHECK_NOTHROW(sim::validate(c));
    sim::engine e(cache_config(64));
    // A 7-token prompt has one full block of 4: two keys are one too many.
    CHECK_THROWS_AS(e.add({1, 7, 1}, 0.0, {sim::block_hashes(ids(1, 8), 4), {}}), usage_error);
}

TEST_CASE("token ids split text as count_tokens counts it", "[sim][tokens]") {
    using sim::detail::token_id;
    CHECK(sim::token_ids("Hello, world!") ==
          std::vector<std::uint64_t>{token_id("Hell"), token_id("o"), token_id(","), token_id("worl"), token_id("d"),
                                     token_id("!")});
    for (const char* text : {"", "  \n", "the", "assistant", "e.g.", "3.14", "caf\xc3\xa9", "who sang take that"})
        CHECK(sim::token_ids(text).size() == static_cast<std::size_t>(servestat::count_tokens(text)));
}

TEST_CASE("chat_token_ids renders what count_chat_tokens counts, and a next turn extends it",
          "[sim][tokens]") {
    const std::vector<std::pair<std::string, std::string>> first = {{"user", "who sang take that look off your face"}};
    const auto prompt = sim::chat_token_ids(first);
    CHECK(prompt.size() == 42u); // as count_chat_tokens: 3 + 5 + 8 + 26
    CHECK(sim::chat_token_ids({{"system", "Be brief."}, {"user", "Hi"}}).size() == 18u);
    // The next turn: the reply as an assistant message, then a new user message.
    auto next = first;
    next.emplace_back("assistant", " the data");
    next.emplace_back("user", "and then");
    const auto next_ids = sim::chat_token_ids(next);
    CHECK(next_ids.size() == static_cast<std::size_t>(servestat::count_chat_tokens(next)));
    CHECK(next_ids.size() == 56u); // 42 + (5 + 2) for the reply + (5 + 2) for "and then"
    auto extended = prompt;
    sim::append_reply_ids(extended, " the data"); // + " the", " data", <|im_end|>, \n
    REQUIRE(extended.size() == 46u);
    CHECK(std::equal(extended.begin(), extended.end(), next_ids.begin()));
}

TEST_CASE("count_tokens: words by groups of 4 bytes, punctuation 1, whitespace 0", "[sim][tokens]") {
    CHECK(servestat::count_tokens("") == 0);
    CHECK(servestat::count_tokens(" \n\t ") == 0);
    CHECK(servestat::count_tokens("the") == 1);
    CHECK(servestat::count_tokens("word") == 1);
    CHECK(servestat::count_tokens("tokens") == 2);
    CHECK(servestat::count_tokens("assistant") == 3);
    CHECK(servestat::count_tokens("Hello, world!") == 6); // Hello 2, "," 1, world 2, "!" 1
    CHECK(servestat::count_tokens("e.g.") == 4);
    CHECK(servestat::count_tokens("3.14") == 3);
    CHECK(servestat::count_tokens("caf\xc3\xa9") == 2); // 5 UTF-8 bytes
    CHECK(servestat::count_tokens("who sang take that look off your face") == 8);
}

TEST_CASE("count_chat_tokens follows Qwen2.5's chat template", "[sim][tokens]") {
    // 3 (assistant prompt) + 5 + 8 (user) + 5 + 21 (the default system prompt Qwen2.5 inserts):
    // the notebook's short prompts of 8-16 tokens arrive as 37-45.
    CHECK(servestat::count_chat_tokens({{"user", "who sang take that look off your face"}}) == 42);
    // An explicit system message replaces the default: 3 + (5 + 4) + (5 + 1).
    CHECK(servestat::count_chat_tokens({{"system", "Be brief."}, {"user", "Hi"}}) == 18);
    CHECK(servestat::count_chat_tokens({}) == 3 + 5 + 21);
}

TEST_CASE("output_token is one token and deterministic", "[sim][tokens]") {
    std::set<std::string> distinct;
    for (std::uint64_t seed : {0ULL, 1ULL, 42ULL, 0xFFFFFFFFFFFFFFFFULL}) {
        for (std::int32_t i = 0; i < 200; ++i) {
            const std::string t = sim::output_token(seed, i);
            CHECK(servestat::count_tokens(t) == 1);
            CHECK(t.front() == ' ');
            CHECK(t == sim::output_token(seed, i));
            distinct.insert(t);
        }
    }
    CHECK(distinct.size() > 10); // a varied text, not one word repeated
    std::string a, b;
    for (std::int32_t i = 0; i < 16; ++i) {
        a += sim::output_token(1, i);
        b += sim::output_token(2, i);
    }
    CHECK(servestat::count_tokens(a) == 16);
    CHECK(a != b);
}

TEST_CASE("mix_workload: an exact share of short and long prompts, fixed by the seed", "[sim][closed_loop]") {
    const auto w = sim::mix_workload(0.5, 200, 1);
    REQUIRE(w.size() == 200);
    int longs = 0;
    for (const auto& item : w) {
        CHECK(item.max_tokens == 16);
        const bool is_long = item.prompt_tokens >= 2048;
        longs += is_long;
        if (is_long) CHECK(item.prompt_tokens <= 4000);
        else CHECK((item.prompt_tokens >= 36 && item.prompt_tokens <= 45));
    }
    CHECK(longs == 100);
    const auto again = sim::mix_workload(0.5, 200, 1);
    const auto other = sim::mix_workload(0.5, 200, 2);
    bool equal = true, differs = false;
    for (std::size_t i = 0; i < w.size(); ++i) {
        equal = equal && w[i].prompt_tokens == again[i].prompt_tokens;
        differs = differs || w[i].prompt_tokens != other[i].prompt_tokens;
    }
    CHECK(equal);
    CHECK(differs);
    CHECK_THROWS_AS(sim::mix_workload(1.5, 10, 1), usage_error);
}

TEST_CASE("run_closed_loop: each client sends its next request when the last one ends", "[sim][closed_loop]") {
    const std::vector<sim::workload_item> items = {{100, 3}, {40, 2}};
    const auto r = sim::run_closed_loop(hand_config(8192), items, 1, 3); // items cycle: 100, 40, 100
    REQUIRE(r.requests.size() == 3);
    // By hand: 100-token prompt, 3 tokens: 0.11 + 2 * 0.012 = 0.134; 40 tokens, 2: 0.05 + 0.012 = 0.062.
    CHECK(r.requests[0].end == Approx(0.134));
    CHECK(r.requests[1].arrival == Approx(0.134));
    CHECK(r.requests[1].prompt_tokens == 40);
    CHECK(r.requests[1].first_token == Approx(0.184));
    CHECK(r.requests[1].end == Approx(0.196));
    CHECK(r.requests[2].end == Approx(0.33));
    CHECK(r.wall_time == Approx(0.33));
    CHECK(r.rps == Approx(3 / 0.33));

    const auto w = sim::mix_workload(0.5, 200, 3);
    const auto a = sim::run_closed_loop(sim::find_preset("l4-qwen2.5-3b-bad")->config, w, 16, 200);
    const auto b = sim::run_closed_loop(sim::find_preset("l4-qwen2.5-3b-bad")->config, w, 16, 200);
    REQUIRE(a.requests.size() == 200);
    bool identical = a.wall_time == b.wall_time;
    for (std::size_t i = 0; i < a.requests.size(); ++i) identical = identical && a.requests[i].end == b.requests[i].end;
    CHECK(identical);
    for (const auto& q : a.requests) {
        CHECK(q.queue + q.prefill + q.decode == Approx(q.latency()));
        CHECK(q.first_token == Approx(q.arrival + q.queue + q.prefill));
    }
}

TEST_CASE("presets: names, flags and validity", "[sim][presets]") {
    const auto* bad = sim::find_preset("l4-qwen2.5-3b-bad");
    const auto* fair = sim::find_preset("l4-qwen2.5-3b-fair");
    REQUIRE(bad);
    REQUIRE(fair);
    CHECK(sim::find_preset("nope") == nullptr);
    // The notebook's server command lines (Experiments 2-3 and 5).
    CHECK(bad->config.max_num_batched_tokens == 8192);
    CHECK(fair->config.max_num_batched_tokens == 768);
    // BAD as V1 runs it (no concurrent partial prefills); FAIR lets short prompts jump long ones.
    CHECK(bad->config.max_num_partial_prefills == 1);
    CHECK(bad->config.max_long_partial_prefills == 1);
    CHECK(fair->config.max_num_partial_prefills == 2);
    CHECK(fair->config.max_long_partial_prefills == 1);
    for (const auto* p : {bad, fair}) {
        CHECK(p->config.max_model_len == 4096);
        CHECK(p->config.long_prefill_token_threshold == 1024);
        CHECK(p->config.chunked_prefill);
        CHECK_NOTHROW(sim::validate(p->config));
    }
    // Same GPU and model: the same costs.
    CHECK(bad->config.step_overhead == fair->config.step_overhead);
    CHECK(bad->config.per_prefill_token == fair->config.per_prefill_token);
    CHECK(bad->config.per_decode_seq == fair->config.per_decode_seq);
    CHECK(bad->config.per_context_token == fair->config.per_context_token);
}

TEST_CASE("the bad preset reproduces the shape of the notebook's Experiment 3", "[sim][presets]") {
    // Seed (tests/data/sweep/bad_unfair_exp3.csv): rps 1.31 at c=1 rising to ~5.9 from c=16 on;
    // p99 1.30 s -> 21.7 s; short p99 0.46 s -> 15.8 s.
    const auto& config = sim::find_preset("l4-qwen2.5-3b-bad")->config;
    const auto w = sim::mix_workload(0.5, 200, 1);
    const int levels[] = {1, 2, 4, 8, 16, 32, 48, 64};
    std::vector<sim::closed_loop_summary> s;
    for (int c : levels) s.push_back(sim::summarize(sim::run_closed_loop(config, w, c, 200)));
    const auto& c1 = s[0];
    const auto& c16 = s[4];
    const auto& c64 = s[7];
    CHECK(c1.rps >= 1.0);
    CHECK(c1.rps <= 1.7);
    CHECK(c16.rps >= 4);
    CHECK(c64.rps / c16.rps < 1.25); // saturated
    CHECK(c64.p99 / c1.p99 >= 8);
    CHECK(c1.short_n == 100);
    for (std::size_t i = 1; i < s.size(); ++i) {
        INFO("c = " << levels[i]);
        CHECK(s[i].rps > s[i - 1].rps * 0.98);        // throughput never drops (much)
        CHECK(s[i].short_p99 > s[i - 1].short_p99);   // short requests suffer more and more
    }
}

TEST_CASE("the fair preset protects short requests, and long ones pay", "[sim][presets]") {
    // Experiment 5 (btok 768 vs 8192 at c=32): FAIR ran 200 requests in 41 s against BAD's 34 s.
    // With short prompts jumping long ones (max_num_partial_prefills 2, max_long 1) the short
    // requests' tail stays near 2 s while BAD's grows with load; the long requests wait longer.
    const auto& bad = sim::find_preset("l4-qwen2.5-3b-bad")->config;
    const auto& fair = sim::find_preset("l4-qwen2.5-3b-fair")->config;
    const auto w = sim::mix_workload(0.5, 200, 1);
    const auto bad32 = sim::run_closed_loop(bad, w, 32, 200);
    const auto fair32 = sim::run_closed_loop(fair, w, 32, 200);
    CHECK(fair32.rps < bad32.rps);
    CHECK(fair32.rps > 0.7 * bad32.rps);
    // Once admitted, a short request streams its 16 tokens in small steps instead of 8192-token ones.
    auto short_decode_p99 = [](const sim::closed_loop_result& r) {
        std::vector<double> xs;
        for (const auto& q : r.requests)
            if (q.prompt_tokens <= 64) xs.push_back(q.decode);
        std::sort(xs.begin(), xs.end());
        return servestat::quantile_sorted(xs, 0.99);
    };
    CHECK(short_decode_p99(fair32) < 0.5 * short_decode_p99(bad32));
    // Short requests' p99 below BAD's at c=16 and c=32 (for every workload seed 1-10 at most 0.6x
    // and 0.35x of BAD's); long requests' p99 above it.
    const auto b32 = sim::summarize(bad32);
    const auto f32 = sim::summarize(fair32);
    CHECK(f32.short_p99 < b32.short_p99);
    CHECK(f32.long_p99 > b32.long_p99);
    const auto b16 = sim::summarize(sim::run_closed_loop(bad, w, 16, 200));
    const auto f16 = sim::summarize(sim::run_closed_loop(fair, w, 16, 200));
    CHECK(f16.short_p99 < b16.short_p99);
    CHECK(f16.long_p99 > b16.long_p99);

    SECTION("without partial prefills (the notebook's V1 server) short requests wait in the FCFS queue") {
        auto v1 = fair;
        v1.max_num_partial_prefills = 1;
        const auto v32 = sim::run_closed_loop(v1, w, 32, 200);
        auto short_queue_p50 = [](const sim::closed_loop_result& r) {
            std::vector<double> xs;
            for (const auto& q : r.requests)
                if (q.prompt_tokens <= 64) xs.push_back(q.queue);
            std::sort(xs.begin(), xs.end());
            return servestat::quantile_sorted(xs, 0.5);
        };
        CHECK(short_queue_p50(v32) > 1.0);            // behind long prompts prefilled one at a time
        CHECK(short_queue_p50(fair32) < 0.1);         // they jump them
        CHECK(sim::summarize(v32).short_p99 > f32.short_p99);
    }
}

} // namespace test_sim_engine
