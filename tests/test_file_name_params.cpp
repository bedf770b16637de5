// Tests for servestat/ingest/file_name_params.hpp: run parameters read from file names.
#include "servestat/ingest/file_name_params.hpp"

#include <string> // std::string
#include <vector> // std::vector

#include <catch2/catch.hpp> // TEST_CASE, CHECK, REQUIRE

namespace test_file_name_params { // the unity build compiles several test files as one: each keeps its names

using nlohmann::json;
using servestat::params_from_file_name;

TEST_CASE("seed 003's vllm-bench names give concurrency, prefill and max tokens") {
    CHECK(params_from_file_name("smoke_test-cc8-pref256-max128-20250612-101500") ==
          json{{"concurrency", 8}, {"prefill_tokens", 256}, {"max_tokens", 128}});
}

TEST_CASE("concurrency is read in its common spellings") {
    CHECK(params_from_file_name("run-concurrency16-llama") == json{{"concurrency", 16}});
    CHECK(params_from_file_name("sweep_concurrency_32") == json{{"concurrency", 32}});
    CHECK(params_from_file_name("mix_50_50-c16") == json{{"concurrency", 16}});
}

TEST_CASE("BurstGPT replay names give the scale") {
    CHECK(params_from_file_name("detail_log_scale300_prompt500") == json{{"scale", 300}});
}

TEST_CASE("vLLM result names give the request rate written before qps") {
    CHECK(params_from_file_name("base-10.5qps-concurrency64-Llama-3-8B-20250101-120000") ==
          json{{"request_rate", 10.5}, {"concurrency", 64}});
    CHECK(params_from_file_name("base-infqps-Llama") == json{{"request_rate", "inf"}});
}

TEST_CASE("server parameters and tensor parallelism are read from names") {
    CHECK(params_from_file_name("max_num_seqs64-mnbt2048") ==
          json{{"max_num_seqs", 64}, {"max_num_batched_tokens", 2048}});
    CHECK(params_from_file_name("Qwen_Qwen3-4B_tp2_quant-fp8_benchmarks") == json{{"tensor_parallel_size", 2}});
}

TEST_CASE("tags inside words and names without numbers give nothing") {
    CHECK(params_from_file_name("AzureLLMInferenceTrace_conv") == json::object());
    CHECK(params_from_file_name("scale_up-concurrent") == json::object());
    CHECK(params_from_file_name("disc16-abc8") == json::object());
}

TEST_CASE("the first occurrence of a parameter wins") {
    CHECK(params_from_file_name("c8-run-c16") == json{{"concurrency", 8}});
}

TEST_CASE("InferenceX run folders give tensor parallelism, expert parallelism and concurrency") {
    CHECK(params_from_file_name("agentic_kimik2.5_tp4_conc32_offloadlmcache_fp4_vllm_tp4-ep1-dpafalse_disagg-false_"
                                "spec-none_conc32_b200-dgxc") ==
          json{{"tensor_parallel_size", 4}, {"concurrency", 32}, {"expert_parallel_size", 1}});
    CHECK(params_from_file_name("dsr1_fp8_tp8_conc16_isl1024_osl1024") ==
          json{{"tensor_parallel_size", 8}, {"concurrency", 16}, {"input_len", 1024}, {"output_len", 1024}});
}

TEST_CASE("SGLang result names give prompts, input and output lengths and concurrency") {
    CHECK(params_from_file_name("agg_n100_in512_out128_c32") ==
          json{{"num_prompts", 100}, {"input_len", 512}, {"output_len", 128}, {"concurrency", 32}});
    CHECK(params_from_file_name("run-num_prompts200-mc16") == json{{"num_prompts", 200}, {"concurrency", 16}});
}

TEST_CASE("the grammar ignores case and splits at '.', '/' and spaces, but keeps a decimal point") {
    CHECK(params_from_file_name("Run_TP2_Conc4") == json{{"tensor_parallel_size", 2}, {"concurrency", 4}});
    CHECK(params_from_file_name("bench.qps2.5.bs32") == json{{"request_rate", 2.5}, {"batch_size", 32}});
    // Only a rate or a scale is a fraction: LMBench's "…_output_0.1" names a rate of 0.1, no output length.
    CHECK(params_from_file_name("LMBench_long_input_output_0.1") == json::object());
    CHECK(params_from_file_name("LMBench_short_input_qps9.5") == json{{"request_rate", 9.5}});
    CHECK(params_from_file_name("pp2 dp4/rate10") ==
          json{{"pipeline_parallel_size", 2}, {"data_parallel_size", 4}, {"request_rate", 10}});
    CHECK(params_from_file_name("rps5") == json{{"request_rate", 5}});
    CHECK(params_from_file_name("concurrency-8") == json{{"concurrency", 8}});
}

TEST_CASE("model and hardware names with numbers give nothing") {
    CHECK(params_from_file_name("kimik2.5-fp4-b200-h100-llama-3-2-3b-v0.8.0") == json::object());
    CHECK(params_from_file_name("Qwen2.5-7B-Instruct_gpt-4o") == json::object());
    CHECK(params_from_file_name("c16x-in_512x") == json::object());
}

TEST_CASE("a path's parameters: the nearest name wins, and two names that disagree are reported") {
    const std::vector<std::string> parts{"run_c16", "aiperf_artifacts", "sweep_conc32_tp8"};
    const auto found = servestat::params_from_path_parts(parts);
    CHECK(found.params == json{{"concurrency", 16}, {"tensor_parallel_size", 8}});
    REQUIRE(found.conflicts.size() == 1);
    CHECK(found.conflicts[0].param == "concurrency");
    CHECK(found.conflicts[0].used == 16);
    CHECK(found.conflicts[0].other == 32);
    CHECK(found.conflicts[0].used_in == "run_c16");
    CHECK(found.conflicts[0].other_in == "sweep_conc32_tp8");
}

} // namespace test_file_name_params
