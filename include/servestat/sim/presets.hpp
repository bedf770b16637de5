// Named simulator configurations: the notebook's L4 + Qwen2.5-3B-Instruct servers.
#pragma once

#include <array>       // std::array
#include <string_view> // std::string_view

#include "servestat/sim/engine.hpp" // engine_config

// Both presets run the same model on the same GPU, so they share the cost coefficients and differ
// only in scheduler flags. The coefficients were fitted (bench/sim_calibrate.cpp) so that the bad
// preset's simulated closed-loop sweep on mix_50_50 looks like the notebook's Experiment 3
// (tests/data/sweep/bad_unfair_exp3.csv); docs/simulator.md has the tables.

namespace servestat::sim {

struct preset {
    std::string_view name, description;
    engine_config config;
};

namespace detail {

// Qwen2.5-3B-Instruct, fp16, --enforce-eager on one NVIDIA L4.
inline constexpr engine_config l4_qwen_3b_costs() {
    engine_config c;
    c.step_overhead = 0.028;        // ~6.2 GB of weights read per step at the L4's ~300 GB/s, plus eager
                                    // mode's kernel launches: a lone short request decodes in 0.46 s
    c.per_prefill_token = 0.0001;   // ~10k prompt tokens per second (6 GFLOP per token)
    c.per_decode_seq = 0.0003;      // sampling and bookkeeping per sequence
    c.per_context_token = 1.2e-7;   // ~36 KB of KV cache per token (36 layers, 2 KV heads) at 300 GB/s
    c.kv_cache_tokens = 262144;     // ~9 GiB left for KV cache at the notebook's gpu_memory_utilization
                                    // 0.70 / 36 KiB per token (docs/simulator.md); its runs need < 60%
    return c;
}

inline constexpr engine_config with_scheduler(std::int32_t max_num_batched_tokens,
                                              std::int32_t long_prefill_token_threshold,
                                              std::int32_t max_num_partial_prefills = 1,
                                              std::int32_t max_long_partial_prefills = 1) {
    engine_config c = l4_qwen_3b_costs();
    c.max_num_seqs = 256; // vLLM's default; the notebook never sets it in Experiments 3 and 5
    c.max_num_batched_tokens = max_num_batched_tokens;
    c.chunked_prefill = true; // vLLM V1 always chunks
    c.long_prefill_token_threshold = long_prefill_token_threshold;
    c.max_num_partial_prefills = max_num_partial_prefills;
    c.max_long_partial_prefills = max_long_partial_prefills;
    c.max_model_len = 4096;
    return c;
}

} // namespace detail

inline constexpr std::array<preset, 2> presets{{
    {"l4-qwen2.5-3b-bad",
     "the notebook's BAD server: --max-model-len 4096 --max-num-batched-tokens 8192 "
     "--long-prefill-token-threshold 1024 (Experiments 2-3)",
     detail::with_scheduler(8192, 1024)},
    // The notebook's FAIR flags plus vLLM V0's concurrent partial prefills, which let short prompts
    // jump a long one. vLLM 0.13 (V1), which the notebook ran, refuses these two flags; with
    // --max-num-partial-prefills 1 the preset is the notebook's FAIR server as it ran.
    {"l4-qwen2.5-3b-fair",
     "the notebook's FAIR server (Experiment 5: --max-model-len 4096 --max-num-batched-tokens 768 "
     "--long-prefill-token-threshold 1024) with vLLM V0's --max-num-partial-prefills 2 "
     "--max-long-partial-prefills 1, so short prompts jump long ones",
     detail::with_scheduler(768, 1024, 2, 1)},
}};

// nullptr when no preset has that name.
inline const preset* find_preset(std::string_view name) {
    for (const auto& p : presets)
        if (p.name == name) return &p;
    return nullptr;
}

} // namespace servestat::sim
