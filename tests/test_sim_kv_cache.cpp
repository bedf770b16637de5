// Tests for the simulator's KV-cache capacity and preemption (servestat/sim/engine.hpp) and the
// gauges and counters /metrics renders for them (servestat/sim/metrics.hpp). The behaviour is vLLM
// V1's (Scheduler.schedule(), KVCacheManager.allocate_slots, BlockPool.get_usage): blocks of
// block_size tokens, one of kv_cache_tokens / block_size is the null block; a waiting request starts
// only if the blocks for this step's tokens can be allocated; a running one that cannot get a block
// preempts the most recently admitted running request, which goes back to the front of the queue and
// recomputes. Step timings are derived by hand with round costs (10 ms a step, 1 ms per prompt token,
// 2 ms per decoding sequence), as in test_sim_engine.cpp.
#include "servestat/ingest/prometheus_text.hpp" // parse_prometheus_text
#include "servestat/sim/closed_loop.hpp"       // mix_workload
#include "servestat/sim/engine.hpp"
#include "servestat/sim/metrics.hpp"           // server_metrics
#include "servestat/sim/presets.hpp"

#include <algorithm> // std::max
#include <cstddef>   // std::size_t
#include <cstdint>   // std::int32_t, std::uint64_t
#include <map>       // std::map
#include <string>    // std::string
#include <vector>    // std::vector

#include <catch2/catch.hpp> // TEST_CASE, SECTION, REQUIRE, CHECK, Approx

namespace test_sim_kv_cache { // the unity build compiles several test files as one: each keeps its names

namespace {

namespace sim = servestat::sim;
using servestat::usage_error;

// Blocks of 4 tokens; `kv_tokens` / 4 blocks of KV cache, one of them vLLM's null block.
sim::engine_config small_cache(std::int32_t kv_tokens, std::int32_t max_model_len, std::int32_t max_seqs = 4) {
    sim::engine_config c;
    c.max_num_seqs = max_seqs;
    c.max_num_batched_tokens = 100;
    c.chunked_prefill = true;
    c.max_model_len = max_model_len;
    c.step_overhead = 0.01;
    c.per_prefill_token = 0.001;
    c.per_decode_seq = 0.002;
    c.per_context_token = 0;
    c.block_size = 4;
    c.kv_cache_tokens = kv_tokens;
    return c;
}

struct emitted {
    std::uint64_t id;
    std::int32_t index;
};

std::vector<emitted> tokens_of(const sim::step_result& r) {
    std::vector<emitted> out;
    for (const auto& t : r.tokens) out.push_back({t.id, t.index});
    return out;
}

bool same(const std::vector<emitted>& a, const std::vector<emitted>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (a[i].id != b[i].id || a[i].index != b[i].index) return false;
    return true;
}

} // namespace

TEST_CASE("kv cache: a waiting request starts only when the blocks for its tokens are free", "[sim][kv_cache]") {
    // 5 blocks of 4 tokens, 4 usable (16 tokens). A (10 prompt tokens) takes 3 blocks; B (6) needs 2
    // and waits, though the budget and max_num_seqs have room, until A finishes.
    sim::engine e(small_cache(20, 16));
    REQUIRE(e.kv_cache_blocks() == 4);
    e.add({1, 10, 3}, 0.0);
    e.add({2, 6, 2}, 0.0);
    auto s1 = e.step(0.0);
    CHECK(s1.prefill_tokens == 10);
    CHECK(s1.duration == Approx(0.02));
    CHECK(e.running() == 1);
    CHECK(e.waiting() == 1);
    CHECK(e.kv_cache_blocks_used() == 3);
    CHECK(*e.kv_cache_usage() == Approx(0.75));
    // A's decodes need ceil(11 / 4) = ceil(12 / 4) = 3 blocks: still 1 free, B still waits.
    auto s2 = e.step(0.02);
    CHECK(same(tokens_of(s2), {{1, 1}}));
    CHECK(s2.duration == Approx(0.012));
    auto s3 = e.step(0.032);
    CHECK(same(tokens_of(s3), {{1, 2}}));
    REQUIRE(s3.done.size() == 1);
    CHECK(s3.done[0].prefill == Approx(0.02));
    CHECK(s3.done[0].decode == Approx(0.024));
    CHECK(e.kv_cache_blocks_used() == 0); // A's blocks are free for the next step
    CHECK(*e.kv_cache_usage() == 0);
    auto s4 = e.step(0.044); // B: 6 tokens, 2 blocks
    CHECK(s4.prefill_tokens == 6);
    CHECK(s4.duration == Approx(0.016));
    CHECK(e.kv_cache_blocks_used() == 2);
    auto s5 = e.step(0.060); // ceil(7 / 4) = 2 blocks: none more
    REQUIRE(s5.done.size() == 1);
    CHECK(s5.done[0].id == 2);
    CHECK(s5.done[0].queue == Approx(0.044));
    CHECK(s5.done[0].prefill == Approx(0.016));
    CHECK(s5.done[0].decode == Approx(0.012));
    CHECK(s5.done[0].preemptions == 0);
    CHECK(e.preemptions() == 0);
    CHECK(e.idle());

    SECTION("without a capacity both start at once") {
        sim::engine u(small_cache(0, 16));
        u.add({1, 10, 3}, 0.0);
        u.add({2, 6, 2}, 0.0);
        CHECK(u.step(0.0).prefill_tokens == 16);
        CHECK(u.running() == 2);
        CHECK(u.kv_cache_blocks() == 0);
        CHECK(u.kv_cache_blocks_used() == 5); // counted all the same
        CHECK_FALSE(u.kv_cache_usage().has_value());
    }
}

TEST_CASE("kv cache: a decode that needs a block preempts the most recently admitted request",
          "[sim][kv_cache]") {
    // 4 blocks, 3 usable. A (prompt 4, 3 tokens) holds 1 block, B (prompt 5, 2 tokens) 2.
    sim::engine e(small_cache(16, 12));
    e.add({1, 4, 3}, 0.0);
    e.add({2, 5, 2}, 0.0);
    auto s1 = e.step(0.0); // both prefill: 0.01 + 9 ms
    CHECK(s1.duration == Approx(0.019));
    CHECK(same(tokens_of(s1), {{1, 0}, {2, 0}}));
    CHECK(e.kv_cache_blocks_used() == 3);
    CHECK(*e.kv_cache_usage() == 1);
    // A's decode writes its 5th token: a second block, none free. B, admitted last, is preempted; its
    // 2 blocks are freed, A takes one. B emits nothing.
    auto s2 = e.step(0.019);
    CHECK(s2.preemptions == 1);
    CHECK(same(tokens_of(s2), {{1, 1}}));
    CHECK(s2.duration == Approx(0.012));
    CHECK(e.running() == 1);
    CHECK(e.waiting() == 1);
    CHECK(e.kv_cache_blocks_used() == 2);
    // B now recomputes its prompt and its first token, 6 tokens = 2 blocks: 1 is free, it waits.
    auto s3 = e.step(0.031);
    CHECK(s3.preemptions == 0);
    CHECK(same(tokens_of(s3), {{1, 2}}));
    REQUIRE(s3.done.size() == 1);
    CHECK(s3.done[0].id == 1);
    CHECK(s3.done[0].preemptions == 0);
    CHECK(s3.done[0].decode == Approx(0.024));
    // A's blocks are free: B prefills 6 tokens (0.01 + 6 ms) and emits its second token, its last.
    auto s4 = e.step(0.043);
    CHECK(s4.prefill_tokens == 6);
    CHECK(s4.decode_seqs == 0);
    CHECK(s4.duration == Approx(0.016));
    CHECK(same(tokens_of(s4), {{2, 1}}));
    REQUIRE(s4.done.size() == 1);
    const auto& b = s4.done[0];
    CHECK(b.id == 2);
    CHECK(b.output_tokens == 2);
    CHECK(b.preemptions == 1);
    // Queue and prefill keep B's first scheduling (vLLM's scheduled_ts ignores preemptions); its
    // first token stays at 0.019, so the time preempted and recomputing is decode time.
    CHECK(b.queue == Approx(0).margin(1e-12));
    CHECK(b.prefill == Approx(0.019));
    CHECK(b.decode == Approx(0.059 - 0.019));
    CHECK(e.preemptions() == 1);
    CHECK(e.idle());
    CHECK(e.kv_cache_blocks_used() == 0);
}

TEST_CASE("kv cache: preemption takes the latest admitted first, down to the request itself",
          "[sim][kv_cache]") {
    // 4 blocks, 3 usable; A, B, C (prompt 4, 3 tokens each) take one block each. In step 2 each
    // decode needs a second block: A preempts C (the latest), B finds none left and preempts itself.
    // Back in the queue B stands before C, and they recompute 5 tokens (2 blocks) one at a time.
    sim::engine e(small_cache(16, 8));
    for (std::uint64_t id = 1; id <= 3; ++id) e.add({id, 4, 3}, 0.0);
    CHECK(e.step(0.0).duration == Approx(0.022));
    auto s2 = e.step(0.022);
    CHECK(s2.preemptions == 2);
    CHECK(same(tokens_of(s2), {{1, 1}}));
    CHECK(e.running() == 1);
    CHECK(e.waiting() == 2);
    auto s3 = e.step(0.034); // B needs 2 blocks, 1 free: waits, and C behind it
    CHECK(same(tokens_of(s3), {{1, 2}}));
    auto s4 = e.step(0.046); // B recomputes: 0.01 + 5 ms; C waits (1 block free)
    CHECK(same(tokens_of(s4), {{2, 1}}));
    CHECK(s4.duration == Approx(0.015));
    CHECK(e.waiting() == 1);
    auto s5 = e.step(0.061);
    CHECK(same(tokens_of(s5), {{2, 2}}));
    auto s6 = e.step(0.073); // C recomputes
    CHECK(same(tokens_of(s6), {{3, 1}}));
    auto s7 = e.step(0.088);
    CHECK(same(tokens_of(s7), {{3, 2}}));
    REQUIRE(s7.done.size() == 1);
    const auto& c = s7.done[0];
    CHECK(c.preemptions == 1);
    CHECK(c.prefill == Approx(0.022));
    CHECK(c.decode == Approx(0.100 - 0.022));
    CHECK(s5.done.size() == 1);
    CHECK(s5.done[0].decode == Approx(0.073 - 0.022));
    CHECK(e.preemptions() == 2);
    CHECK(e.idle());
}

TEST_CASE("kv cache: a preempted request reuses its cached prompt blocks; the counters count it once",
          "[sim][kv_cache][prefix_cache]") {
    // As the two-request case above, with prefix caching: B's prompt block [b] is cached when its
    // prefill completes, so its recomputation finds 4 tokens and computes 2 (0.012 s, not 0.016). vLLM
    // counts prefix-cache queries, hits and a request's cached tokens at its first scheduling only.
    auto config = small_cache(16, 12);
    config.prefix_caching = true;
    config.prefix_cache_tokens = 64;
    sim::engine e(config);
    e.add({1, 4, 3}, 0.0, {{0xa}, {}});
    e.add({2, 5, 2}, 0.0, {{0xb}, {}});
    auto s1 = e.step(0.0);
    CHECK(s1.cache_queries == 9);
    CHECK(s1.cache_hits == 0);
    CHECK(e.step(0.019).preemptions == 1);
    e.step(0.031);
    auto s4 = e.step(0.043);
    CHECK(s4.prefill_tokens == 2);
    CHECK(s4.duration == Approx(0.012));
    CHECK(s4.cache_queries == 0);
    CHECK(s4.cache_hits == 0);
    REQUIRE(s4.done.size() == 1);
    CHECK(s4.done[0].cached_tokens == 0);
    CHECK(s4.done[0].decode == Approx(0.055 - 0.019));
}

TEST_CASE("kv cache: under pressure every request still finishes, usage never passes 1, preemptions add up",
          "[sim][kv_cache]") {
    // 40 requests with long outputs, 16 at a time, into 64 usable blocks (256 tokens) of 16 tokens:
    // they cannot all hold their context at once.
    auto config = small_cache(65 * 16, 256, 16);
    config.block_size = 16;
    config.max_num_batched_tokens = 256;
    sim::engine e(config);
    std::map<std::uint64_t, std::int32_t> next_index, max_tokens;
    std::uint64_t issued = 0;
    auto issue = [&](double now) {
        const auto id = issued++;
        const std::int32_t prompt = 20 + static_cast<std::int32_t>((id * 37) % 100);
        const std::int32_t out = 30 + static_cast<std::int32_t>((id * 53) % 90);
        e.add({id, prompt, out}, now);
        next_index[id] = 0;
        max_tokens[id] = out;
    };
    for (int i = 0; i < 16; ++i) issue(0.0);
    double now = 0, peak = 0;
    std::uint64_t step_preemptions = 0, request_preemptions = 0;
    std::size_t finished = 0, steps = 0;
    bool in_order = true;
    while (!e.idle() && steps < 100000) {
        const auto r = e.step(now);
        ++steps;
        now += r.duration;
        CHECK(e.kv_cache_blocks_used() <= e.kv_cache_blocks());
        peak = std::max(peak, *e.kv_cache_usage());
        step_preemptions += static_cast<std::uint64_t>(r.preemptions);
        for (const auto& t : r.tokens) in_order = in_order && t.index == next_index[t.id]++;
        for (const auto& f : r.done) {
            ++finished;
            request_preemptions += static_cast<std::uint64_t>(f.preemptions);
            CHECK(f.output_tokens == max_tokens[f.id]);
            if (issued < 40) issue(now);
        }
    }
    CHECK(e.idle());
    CHECK(finished == 40);
    CHECK(in_order); // each token once, in order, across preemptions
    CHECK(peak <= 1.0);
    CHECK(peak > 0.9);
    CHECK(e.preemptions() > 0);
    CHECK(step_preemptions == e.preemptions());
    CHECK(request_preemptions == e.preemptions());
    CHECK(e.kv_cache_blocks_used() == 0);
}

TEST_CASE("kv cache: cancel frees a running request's blocks", "[sim][kv_cache]") {
    sim::engine e(small_cache(20, 16));
    e.add({1, 10, 3}, 0.0);
    e.add({2, 6, 2}, 0.0);
    e.step(0.0);
    REQUIRE(e.kv_cache_blocks_used() == 3);
    e.cancel(1);
    CHECK(e.kv_cache_blocks_used() == 0);
    CHECK(e.step(0.02).prefill_tokens == 6); // B gets the blocks at once
}

TEST_CASE("kv cache: configuration checks", "[sim][kv_cache]") {
    auto c = small_cache(0, 16);
    CHECK_NOTHROW(sim::validate(c)); // 0 = unlimited
    c.kv_cache_tokens = -4;
    CHECK_THROWS_AS(sim::validate(c), usage_error);
    // A request of max_model_len = 16 tokens needs 4 blocks of 4, plus vLLM's null block: 20 tokens.
    c.kv_cache_tokens = 20;
    CHECK_NOTHROW(sim::validate(c));
    c.kv_cache_tokens = 19; // whole blocks only: 4 blocks, 3 usable
    CHECK_THROWS_AS(sim::validate(c), usage_error);
    c.kv_cache_tokens = 16;
    CHECK_THROWS_AS(sim::validate(c), usage_error);
    c.max_model_len = 12;
    CHECK_NOTHROW(sim::validate(c));
}

TEST_CASE("presets: the L4's KV cache, which the notebook's workloads never come near", "[sim][kv_cache][presets]") {
    // 262,144 tokens (docs/simulator.md): 16,384 blocks of 16, 16,383 usable. Experiment 3's heaviest
    // level, c = 64 on mix_50_50 (the bundled live sweep's 600 requests), holds at most 7,621 of them
    // (47%) on the bad preset and 965 on the fair one, so the presets' timings are those of an unlimited
    // cache.
    for (const auto& p : sim::presets) {
        INFO(p.name);
        CHECK(p.config.kv_cache_tokens == 262144);
        sim::engine e(p.config);
        CHECK(e.kv_cache_blocks() == 16383);
        const auto w = sim::mix_workload(0.5, 600, 1);
        std::size_t issued = 0;
        auto issue = [&](double now) {
            e.add({issued, w[issued].prompt_tokens, w[issued].max_tokens}, now);
            ++issued;
        };
        while (issued < 64) issue(0.0);
        double now = 0, peak = 0;
        while (!e.idle()) {
            const auto r = e.step(now);
            now += r.duration;
            peak = std::max(peak, *e.kv_cache_usage());
            for (std::size_t i = 0; i < r.done.size() && issued < w.size(); ++i) issue(now);
        }
        CHECK(e.preemptions() == 0);
        CHECK(peak < 0.6);
    }
}

TEST_CASE("/metrics: vLLM V1's KV-cache usage gauge and preemption counter", "[sim][kv_cache][metrics]") {
    sim::server_metrics m;
    m.record_preemptions(2);
    m.record_preemptions(0);
    m.record_preemptions(1);
    const std::string text = m.render("Org/model", 3, 1, 0.25);
    // Names, help texts and types as vllm/v1/metrics/loggers.py declares them; prometheus_client writes
    // a counter's HELP and TYPE with its _total name in the 0.0.4 text format.
    CHECK(text.find("# HELP vllm:kv_cache_usage_perc KV-cache usage. 1 means 100 percent usage.\n"
                    "# TYPE vllm:kv_cache_usage_perc gauge\n"
                    "vllm:kv_cache_usage_perc{model_name=\"Org/model\"} 0.25\n") != std::string::npos);
    CHECK(text.find("# HELP vllm:num_preemptions_total Cumulative number of preemption from the engine.\n"
                    "# TYPE vllm:num_preemptions_total counter\n"
                    "vllm:num_preemptions_total{model_name=\"Org/model\"} 3.0\n") != std::string::npos);
    const auto s = servestat::parse_prometheus_text(text, "sim.prom");
    CHECK(s.value("vllm:kv_cache_usage_perc") == 0.25);
    CHECK(s.value("vllm:num_preemptions_total") == 3);
    CHECK(s.value("vllm:num_requests_running") == 3);
    CHECK(s.value("vllm:num_requests_waiting") == 1);

    SECTION("with unlimited capacity there is no usage to report; the counter stays") {
        const std::string unlimited = sim::server_metrics{}.render("m", 0, 0);
        CHECK(unlimited.find("vllm:kv_cache_usage_perc") == std::string::npos);
        CHECK(unlimited.find("vllm:num_preemptions_total{model_name=\"m\"} 0.0\n") != std::string::npos);
    }
}

} // namespace test_sim_kv_cache
