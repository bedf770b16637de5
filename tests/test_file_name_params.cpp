// Tests for servestat/ingest/file_name_params.hpp: run parameters read from file names.
#include "servestat/ingest/file_name_params.hpp"

#include <catch2/catch.hpp> // TEST_CASE, CHECK

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

} // namespace test_file_name_params
