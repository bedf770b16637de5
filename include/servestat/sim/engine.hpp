// A continuous-batching LLM engine in simulated time: vLLM V1's scheduler over a linear cost model.
#pragma once

#include <algorithm>   // std::min, std::max, std::find_if
#include <cmath>       // std::isfinite
#include <cstddef>     // std::size_t, std::ptrdiff_t
#include <cstdint>     // std::int32_t, std::uint64_t
#include <deque>       // std::deque
#include <initializer_list> // range-for over the cost coefficients, std::min of three
#include <optional>    // std::optional
#include <string>      // std::string, std::to_string
#include <utility>     // std::move
#include <vector>      // std::vector, std::erase_if

#include "servestat/core/errors.hpp"     // usage_error
#include "servestat/sim/prefix_cache.hpp" // prefix_cache

// The engine owns no clock and does no I/O: the caller says when requests arrive and when a step
// starts, and gets back how long the step took and what it produced. The same calls give the same
// results on every platform, which is what the tests, the demo and the calibration rely on.
//
// One step (docs/simulator.md, "Scheduler model"), as vLLM V1's Scheduler.schedule() does it:
//   budget = max_num_batched_tokens
//   1. RUNNING sequences in the order they were first scheduled, while budget > 0: a decoding
//      sequence takes 1 token; one still prefilling takes min(remaining prompt, budget, threshold).
//      Sequences after the budget ran out skip the step (V1 has no decode priority: long prefill
//      chunks early in the running list can starve decodes behind them).
//   2. WAITING sequences first-come first-served while budget > 0 and running < max_num_seqs:
//      chunked prefill: min(prompt, budget, threshold); not chunked: the whole prompt or, if it does
//      not fit the remaining budget, stop (nothing behind it is admitted this step).
//   duration = step_overhead + per_prefill_token * prefill tokens + per_decode_seq * decoding
//              sequences + per_context_token * sum of (prompt + generated) over scheduled sequences
// At the end of the step a sequence that finished its prompt emits token 0, a decoding sequence
// emits its next token, and one that has emitted max_tokens tokens finishes.
// With max_num_partial_prefills > 1 (chunked prefill only) the step adds vLLM V0's concurrent
// partial prefills (vllm/core/scheduler.py, PartialPrefillMetadata), which V1 does not have:
//   - a prefill is "long" while more than long_prefill_token_threshold of its prompt is left (a
//     threshold of 0 means 4% of max_model_len, as V0 sets it);
//   - before scheduling, P = min(max_num_partial_prefills, sequences mid-prefill + waiting ones that
//     could start, FCFS, not counting long ones beyond the long limit); every prefill chunk of the
//     step is at most max_num_batched_tokens / P;
//   - at most max_long_partial_prefills long prefills run at once: a waiting long prompt over that
//     limit keeps its place in the queue, and shorter prompts behind it are scheduled (they jump it).
// KV-cache capacity (kv_cache_tokens > 0; 0 = unlimited), as vLLM V1's KVCacheManager and
// Scheduler.schedule() handle it: a sequence holds ceil(tokens with KV / block_size) blocks, one of
// the kv_cache_tokens / block_size blocks is vLLM's null block. A sequence is scheduled only if the
// blocks for its tokens of this step can be allocated (a prefill chunk: prefilled + chunk; a decode:
// prompt + generated). A RUNNING sequence that cannot get them preempts the most recently admitted
// running sequence (the last in the list; possibly itself, which ends the running pass), in RECOMPUTE
// mode: its blocks are freed and it goes back to the FRONT of the waiting queue, to prefill its prompt
// and the tokens it already generated again before emitting the next one. In a step with a
// preemption no waiting sequence is admitted. A WAITING sequence that cannot get its blocks stops
// admission for the step (FCFS). Queue and prefill times keep the first scheduling, as vLLM's.
// With prefix_caching (vLLM's automatic prefix caching, off by default here) a request brings the
// keys of its prompt's full blocks (prefix_cache.hpp). When it is first scheduled from the waiting
// queue (vLLM looks up in schedule(), not on arrival), the longest cached run of leading blocks, at
// most (prompt - 1) / block_size blocks so that one prompt token is always computed, counts as
// already prefilled: only the rest costs per_prefill_token and takes budget, while the context cost
// still counts the whole prompt. Its prompt blocks are cached when its prefill completes, and the
// blocks of prompt + reply (as the next turn renders them) when it finishes.

namespace servestat::sim {

struct engine_config {
    std::int32_t max_num_seqs = 256;                  // --max-num-seqs: running sequences at most
    std::int32_t max_num_batched_tokens = 8192;       // --max-num-batched-tokens: token budget per step
    bool chunked_prefill = true;                      // --[no-]enable-chunked-prefill
    std::int32_t long_prefill_token_threshold = 0;    // --long-prefill-token-threshold, 0 = off
    std::int32_t max_num_partial_prefills = 1;        // --max-num-partial-prefills: 1 = off (no limit)
    std::int32_t max_long_partial_prefills = 1;       // --max-long-partial-prefills: long ones among them
    std::int32_t max_model_len = 4096;                // --max-model-len: prompt + output tokens at most
    double step_overhead = 0.004;                     // seconds per engine step
    double per_prefill_token = 0.0001;                // seconds per prompt token prefilled in the step
    double per_decode_seq = 0.0004;                   // seconds per sequence decoding in the step
    double per_context_token = 0.0;                   // seconds per context token of every scheduled seq
    bool prefix_caching = false;                      // --[no-]enable-prefix-caching (off: see docs)
    std::int32_t block_size = 16;                     // --block-size: tokens per cached block
    std::int32_t prefix_cache_tokens = 262144;        // --prefix-cache-tokens: capacity (whole blocks)
    std::int32_t kv_cache_tokens = 0;                 // --kv-cache-tokens: KV cache size as vLLM logs it
                                                      // (whole blocks, one is the null block); 0 = unlimited
};

namespace detail {

inline void require(bool ok, const char* what) {
    if (!ok) throw usage_error(std::string("simulator: ").append(what));
}

} // namespace detail

// Rejects configurations vLLM would refuse to start with, and ones the scheduler cannot run.
inline void validate(const engine_config& c) {
    detail::require(c.max_num_seqs >= 1, "max_num_seqs must be at least 1");
    detail::require(c.max_num_batched_tokens >= 1, "max_num_batched_tokens must be at least 1");
    detail::require(c.max_model_len >= 2, "max_model_len must be at least 2");
    detail::require(c.long_prefill_token_threshold >= 0, "long_prefill_token_threshold must not be negative");
    detail::require(c.max_num_partial_prefills >= 1, "max_num_partial_prefills must be at least 1");
    detail::require(c.max_long_partial_prefills >= 1 && c.max_long_partial_prefills <= c.max_num_partial_prefills,
                    "max_long_partial_prefills must be at least 1 and at most max_num_partial_prefills");
    // vLLM's SchedulerConfig refuses the same two combinations.
    detail::require(c.max_num_partial_prefills == 1 || c.chunked_prefill,
                    "max_num_partial_prefills > 1 needs chunked prefill");
    detail::require(c.max_num_partial_prefills == 1 || c.long_prefill_token_threshold <= c.max_model_len,
                    "with max_num_partial_prefills > 1 long_prefill_token_threshold must not exceed max_model_len");
    // Each of them gets max_num_batched_tokens / max_num_partial_prefills tokens at least.
    detail::require(c.max_num_partial_prefills <= c.max_num_batched_tokens,
                    "max_num_partial_prefills must not exceed max_num_batched_tokens");
    detail::require(c.max_num_batched_tokens >= c.max_num_seqs,
                    "max_num_batched_tokens must be at least max_num_seqs (every running sequence "
                    "needs one token of budget to decode)");
    // Without chunking a prompt must fit one step; vLLM refuses the same combination.
    detail::require(c.chunked_prefill || c.max_num_batched_tokens >= c.max_model_len,
                    "without chunked prefill max_num_batched_tokens must be at least max_model_len");
    for (const double v : {c.step_overhead, c.per_prefill_token, c.per_decode_seq, c.per_context_token})
        detail::require(std::isfinite(v) && v >= 0, "cost coefficients must be finite and not negative");
    detail::require(c.step_overhead > 0, "step_overhead must be positive (a step takes time)");
    detail::require(c.block_size >= 1, "block_size must be at least 1");
    detail::require(!c.prefix_caching || c.prefix_cache_tokens >= c.block_size,
                    "prefix_cache_tokens must hold at least one block (block_size tokens)");
    detail::require(c.kv_cache_tokens >= 0, "kv_cache_tokens must not be negative (0 = unlimited)");
    // vLLM refuses to start when one request of max_model_len tokens cannot fit the KV cache. One block
    // stricter here (the null block is not usable), so that a request alone always fits: otherwise it
    // would preempt itself for ever.
    const std::int64_t blocks_per_request = (static_cast<std::int64_t>(c.max_model_len) + c.block_size - 1) / c.block_size;
    detail::require(c.kv_cache_tokens == 0 || c.kv_cache_tokens / c.block_size - 1 >= blocks_per_request,
                    "kv_cache_tokens must hold a request of max_model_len tokens: at least "
                    "(ceil(max_model_len / block_size) + 1) blocks, one of them vLLM's null block");
}

struct engine_request {
    std::uint64_t id;
    std::int32_t prompt_tokens;
    std::int32_t max_tokens;
};

// What the prefix cache knows of a request (block_hashes() of its tokens); ignored with caching off.
struct prefix_blocks {
    std::vector<std::uint64_t> prompt;   // the prompt's full blocks: at most prompt_tokens / block_size
    std::vector<std::uint64_t> finished; // prompt + reply as the next turn renders them (empty: none)
};

// What one step produced, at the END of the step (time = step start + duration).
struct token_event {
    std::uint64_t id;
    std::int32_t index; // 0 = first token
    bool last;
};

// queue: arrival -> first scheduled; prefill: first scheduled -> first token; decode: first token ->
// last token. All in seconds of simulated time.
struct finished {
    std::uint64_t id;
    double queue, prefill, decode;
    std::int32_t output_tokens;
    std::int32_t cached_tokens = 0; // prompt tokens found in the prefix cache
    std::int32_t preemptions = 0;   // times it was preempted (and recomputed)
};

struct step_result {
    double duration = 0;
    std::vector<token_event> tokens;
    std::vector<finished> done;
    std::int32_t prefill_tokens = 0, decode_seqs = 0;
    // Prefix cache, as vLLM counts it: prompt tokens of the requests first scheduled in this step
    // (queries) and how many of them were cached (hits). Zero with caching off.
    std::int32_t cache_queries = 0, cache_hits = 0;
    // Running sequences preempted in this step (vLLM's vllm:num_preemptions counts them).
    std::int32_t preemptions = 0;
};

namespace detail {

struct sequence {
    engine_request request;
    double arrival = 0;
    double first_scheduled = 0;
    double first_token = 0;
    std::int32_t prefill_len = 0; // tokens to compute before the next token: the prompt, or after a
                                  // preemption the prompt and the tokens generated so far
    std::int32_t prefilled = 0; // of those, computed so far (cached ones included)
    std::int32_t generated = 0; // output tokens emitted so far
    std::int32_t cached = 0;    // prompt tokens the prefix cache supplied when first scheduled
    std::uint64_t looked_up = 0; // the step whose prefix-cache lookup `prefilled` holds while waiting
    std::int32_t kv_blocks = 0;  // KV cache blocks it holds (running sequences only)
    std::int32_t preemptions = 0;
    prefix_blocks blocks;
};

// vLLM 0.10's OpenAIServing._validate_input texts (the HTTP 400 error.message).
inline std::string context_overflow_message(std::int32_t prompt, std::int32_t max_tokens, std::int32_t len) {
    std::string out;
    if (prompt >= len) {
        out.append("This model's maximum context length is ").append(std::to_string(len));
        out.append(" tokens. However, your request has ").append(std::to_string(prompt));
        return out.append(" input tokens. Please reduce the length of the input messages.");
    }
    out.append("'max_tokens' or 'max_completion_tokens' is too large: ").append(std::to_string(max_tokens));
    out.append(". This model's maximum context length is ").append(std::to_string(len));
    out.append(" tokens and your request has ").append(std::to_string(prompt));
    out.append(" input tokens (").append(std::to_string(max_tokens)).append(" > ");
    out.append(std::to_string(len)).append(" - ").append(std::to_string(prompt)).append(").");
    return out;
}

template <class Container>
auto find_sequence(Container& c, std::uint64_t id) {
    return std::find_if(c.begin(), c.end(), [id](const sequence& s) { return s.request.id == id; });
}

} // namespace detail

class engine {
public:
    explicit engine(engine_config c) : config_(c) {
        validate(config_);
        if (config_.kv_cache_tokens > 0) kv_blocks_ = config_.kv_cache_tokens / config_.block_size - 1;
        if (config_.prefix_caching)
            cache_.emplace(config_.block_size,
                           static_cast<std::size_t>(config_.prefix_cache_tokens / config_.block_size));
    }

    // Admission check as vLLM does it before queueing; nullopt when the request fits.
    std::optional<std::string> inadmissible(std::int32_t prompt_tokens, std::int32_t max_tokens) const {
        const auto len = config_.max_model_len;
        if (prompt_tokens >= len || static_cast<std::int64_t>(prompt_tokens) + max_tokens > len)
            return detail::context_overflow_message(prompt_tokens, max_tokens, len);
        return std::nullopt;
    }

    // The request arrives at simulated time `now`. It must be admissible, with a fresh id. With
    // prefix caching `blocks` are its keys (prefix_blocks); without, they are ignored.
    void add(engine_request r, double now, prefix_blocks blocks = {}) {
        detail::require(r.prompt_tokens >= 1, "a request needs at least one prompt token");
        detail::require(r.max_tokens >= 1, "a request needs max_tokens >= 1");
        detail::require(!inadmissible(r.prompt_tokens, r.max_tokens), "request exceeds max_model_len");
        detail::require(detail::find_sequence(waiting_, r.id) == waiting_.end() && detail::find_sequence(running_, r.id) == running_.end(),
                        "request id already in the engine");
        detail::sequence s;
        s.request = r;
        s.arrival = now;
        s.prefill_len = r.prompt_tokens;
        if (cache_) {
            detail::require(blocks.prompt.size() <= static_cast<std::size_t>(r.prompt_tokens / config_.block_size),
                            "more prompt blocks than the prompt has full blocks");
            s.blocks = std::move(blocks);
        }
        waiting_.push_back(std::move(s));
    }

    // The client went away: drop the request wherever it is; unknown ids are ignored.
    void cancel(std::uint64_t id) {
        if (auto it = detail::find_sequence(waiting_, id); it != waiting_.end()) waiting_.erase(it);
        if (auto it = detail::find_sequence(running_, id); it != running_.end()) {
            kv_used_ -= it->kv_blocks;
            running_.erase(it);
        }
    }

    bool idle() const { return waiting_.empty() && running_.empty(); }
    std::int32_t running() const { return static_cast<std::int32_t>(running_.size()); }
    std::int32_t waiting() const { return static_cast<std::int32_t>(waiting_.size()); }
    const engine_config& config() const { return config_; }
    // The prefix cache, or nullptr with caching off.
    const prefix_cache* cache() const { return cache_ ? &*cache_ : nullptr; }
    // KV cache blocks sequences can hold (vLLM's num_gpu_blocks less the null block); 0 = unlimited.
    std::int32_t kv_cache_blocks() const { return kv_blocks_; }
    // Blocks the running sequences hold now (counted with unlimited capacity too).
    std::int32_t kv_cache_blocks_used() const { return kv_used_; }
    // vLLM's kv_cache_usage: the fraction of usable blocks in use; nullopt with unlimited capacity.
    std::optional<double> kv_cache_usage() const {
        if (kv_blocks_ == 0) return std::nullopt;
        return static_cast<double>(kv_used_) / kv_blocks_;
    }
    // Preemptions since the engine started.
    std::uint64_t preemptions() const { return preemptions_; }

    // Schedules and runs one step starting at `now`. An idle engine returns an empty result with
    // duration 0.
    step_result step(double now) {
        step_result out;
        if (idle()) return out;
        plan_.clear();
        ++steps_;
        std::int32_t budget = config_.max_num_batched_tokens;
        plan_partial_prefills();
        schedule_running(budget, out);
        if (out.preemptions == 0) schedule_waiting(budget, now, out); // as V1: none after a preemption
        double context = 0;
        for (const auto& p : plan_) {
            const auto& s = running_[p.index];
            if (s.prefilled < s.prefill_len) out.prefill_tokens += p.tokens;
            else ++out.decode_seqs;
            context += static_cast<double>(s.request.prompt_tokens) + s.generated;
        }
        out.duration = config_.step_overhead + config_.per_prefill_token * out.prefill_tokens +
                       config_.per_decode_seq * out.decode_seqs + config_.per_context_token * context;
        finish_step(now + out.duration, out);
        return out;
    }

private:
    struct planned {
        std::size_t index;   // into running_
        std::int32_t tokens; // budget it takes this step
    };

    // V0's PartialPrefillMetadata for the step being scheduled; `on` is false in V1 mode.
    struct partial_prefills {
        bool on = false;
        std::int32_t long_threshold = 0; // a prefill with more prompt left than this is long
        std::int32_t slot = 0;           // largest prefill chunk of one sequence this step
        std::int32_t long_running = 0;   // long prefills running, counting those started this step
    };

    bool is_long(const detail::sequence& s) const {
        return s.prefill_len - s.prefilled > partial_.long_threshold;
    }

    // PartialPrefillMetadata.from_queues: count the prefills that can make progress this step and
    // split the budget evenly between them.
    void plan_partial_prefills() {
        partial_ = {};
        partial_.slot = config_.max_num_batched_tokens;
        if (!config_.chunked_prefill || config_.max_num_partial_prefills <= 1) return;
        partial_.on = true;
        // Without a threshold V0's SchedulerConfig makes one of 4% of max_model_len.
        const std::int32_t threshold = config_.long_prefill_token_threshold;
        partial_.long_threshold = threshold > 0 ? threshold : config_.max_model_len / 25;
        const std::int32_t most = config_.max_num_partial_prefills;
        std::int32_t prefills = 0;
        for (const auto& s : running_) {
            if (s.prefilled >= s.prefill_len) continue;
            ++prefills;
            if (is_long(s)) ++partial_.long_running;
        }
        std::int32_t long_waiting = 0;
        for (auto& s : waiting_) {
            if (prefills >= most) break;
            look_up_prefix(s);
            if (is_long(s)) {
                if (partial_.long_running + long_waiting >= config_.max_long_partial_prefills) continue;
                ++long_waiting;
            }
            ++prefills;
        }
        partial_.slot = config_.max_num_batched_tokens / std::max(1, std::min(prefills, most));
    }

    std::int32_t prefill_chunk(std::int32_t remaining, std::int32_t budget) const {
        std::int32_t n = std::min({remaining, budget, partial_.slot});
        const auto threshold = config_.long_prefill_token_threshold;
        if (threshold > 0) n = std::min(n, threshold);
        return n;
    }

    // Gives `s` the blocks for `tokens` tokens of KV; false (nothing changed) when too few are free.
    bool allocate(detail::sequence& s, std::int32_t tokens) {
        const std::int32_t need = (tokens + config_.block_size - 1) / config_.block_size;
        if (need <= s.kv_blocks) return true;
        if (kv_blocks_ > 0 && kv_used_ + (need - s.kv_blocks) > kv_blocks_) return false;
        kv_used_ += need - s.kv_blocks;
        s.kv_blocks = need;
        return true;
    }

    // vLLM V1's FCFS preemption: the most recently admitted running sequence (the last) frees its
    // blocks and goes to the front of the waiting queue, to recompute everything it had (RECOMPUTE).
    void preempt_last(step_result& out) {
        detail::sequence s = std::move(running_.back());
        running_.pop_back();
        kv_used_ -= s.kv_blocks;
        s.kv_blocks = 0;
        s.prefill_len = s.request.prompt_tokens + s.generated;
        s.prefilled = 0;
        s.looked_up = 0; // look up again when next considered
        ++s.preemptions;
        ++preemptions_;
        ++out.preemptions;
        waiting_.push_front(std::move(s));
    }

    void schedule_running(std::int32_t& budget, step_result& out) {
        for (std::size_t i = 0; i < running_.size() && budget > 0; ++i) {
            const std::int32_t remaining = running_[i].prefill_len - running_[i].prefilled;
            const std::int32_t n = remaining > 0 ? prefill_chunk(remaining, budget) : 1;
            // KV for what this step computes: a chunk more of the prefill, or the last token emitted.
            const std::int32_t tokens = remaining > 0 ? running_[i].prefilled + n
                                                      : running_[i].request.prompt_tokens + running_[i].generated;
            bool preempted_itself = false;
            while (!allocate(running_[i], tokens)) {
                preempted_itself = i + 1 == running_.size();
                preempt_last(out);
                if (preempted_itself) break;
            }
            if (preempted_itself) break; // nothing after it is left to schedule
            plan_.push_back({i, n});
            budget -= n;
        }
    }

    // A waiting sequence's cached prefix, as a lookup now finds it (vLLM's get_computed_blocks): held
    // in `prefilled`, recomputed once per step while the sequence waits.
    void look_up_prefix(detail::sequence& s) {
        if (!cache_ || s.looked_up == steps_) return;
        s.looked_up = steps_;
        const auto block = config_.block_size;
        const auto found = cache_->lookup(s.blocks.prompt);
        // At least one prompt token is computed, so a fully cached prompt recomputes its last block.
        const auto most = static_cast<std::size_t>((s.prefill_len - 1) / block);
        s.prefilled = static_cast<std::int32_t>(std::min(found, most)) * block;
    }

    void schedule_waiting(std::int32_t& budget, double now, step_result& out) {
        std::size_t i = 0; // waiting sequences before i were passed over (long, over the limit)
        while (i < waiting_.size() && budget > 0 && running() < config_.max_num_seqs) {
            auto& s = waiting_[i];
            look_up_prefix(s);
            const bool long_prefill = partial_.on && is_long(s);
            if (long_prefill && partial_.long_running >= config_.max_long_partial_prefills) {
                ++i; // it keeps its place; shorter prompts behind it may go first
                continue;
            }
            std::int32_t n = s.prefill_len - s.prefilled; // the uncached part
            if (config_.chunked_prefill) n = prefill_chunk(n, budget);
            else if (n > budget) break; // FCFS: whoever is behind it waits too
            if (!allocate(s, s.prefilled + n)) break; // too few free KV blocks: FCFS, the rest wait too
            if (long_prefill) ++partial_.long_running;
            const bool resumed = s.preemptions > 0;
            if (cache_) {
                cache_->touch(s.blocks.prompt, static_cast<std::size_t>(s.prefilled / config_.block_size));
                // vLLM's counters and the request's cached tokens count its first scheduling only.
                if (!resumed) {
                    s.cached = s.prefilled;
                    out.cache_queries += s.request.prompt_tokens;
                    out.cache_hits += s.cached;
                }
            }
            running_.push_back(std::move(s));
            waiting_.erase(waiting_.begin() + static_cast<std::ptrdiff_t>(i));
            if (!resumed) running_.back().first_scheduled = now;
            plan_.push_back({running_.size() - 1, n});
            budget -= n;
        }
    }

    void finish_step(double end, step_result& out) {
        for (const auto& p : plan_) {
            auto& s = running_[p.index];
            if (s.prefilled < s.prefill_len) {
                s.prefilled += p.tokens;
                if (s.prefilled < s.prefill_len) continue; // more chunks to go
                if (s.generated == 0) s.first_token = end;  // a recomputation emits a later token
                if (cache_) cache_->insert(s.blocks.prompt);
            }
            const bool last = ++s.generated == s.request.max_tokens;
            out.tokens.push_back({s.request.id, s.generated - 1, last});
            if (last) {
                out.done.push_back({s.request.id, s.first_scheduled - s.arrival, s.first_token - s.first_scheduled,
                                    end - s.first_token, s.generated, s.cached, s.preemptions});
                if (cache_) cache_->insert(s.blocks.finished);
                kv_used_ -= s.kv_blocks; // freed for the next step
                s.kv_blocks = 0;
            }
        }
        // One pass keeps the survivors in their scheduling order.
        std::erase_if(running_, [](const detail::sequence& s) { return s.generated == s.request.max_tokens; });
    }

    engine_config config_;
    std::deque<detail::sequence> waiting_;
    std::vector<detail::sequence> running_; // in the order first scheduled
    std::vector<planned> plan_;             // this step's schedule, reused to avoid reallocations
    partial_prefills partial_;              // this step's concurrent-partial-prefill limits
    std::optional<prefix_cache> cache_;     // with prefix caching only
    std::uint64_t steps_ = 0;               // steps run, for the waiting sequences' lookups
    std::int32_t kv_blocks_ = 0;            // usable KV cache blocks; 0 = unlimited
    std::int32_t kv_used_ = 0;              // blocks the running sequences hold
    std::uint64_t preemptions_ = 0;
};

} // namespace servestat::sim
