// TensorRT-LLM's benchmark outputs: trtllm-bench's console report and --report_json (summary runs),
// its --request_json (per request), and benchmark_serving.py's result (read by the vLLM reader)
// with the server's per-request timings saved beside it (trtllm-perf-metrics).
// Real files: tests/data/trtllm (a 0.16.0 throughput log and a failed cell from
// shaamil101-etched/trtllm-benchmarks, a 1.2.0 --report_json from masahiro-kubota/trtllm-latency);
// the rest are generated in TensorRT-LLM's own layouts (tests/data/trtllm/README.md).
#include "servestat/ingest/trtllm_bench.hpp"
#include "servestat/ingest/trtllm_perf_metrics.hpp"

#include <filesystem> // std::filesystem::path
#include <fstream>    // std::ofstream
#include <string>     // std::string
#include <vector>     // std::vector

#include "servestat/core/errors.hpp"            // input_error, not_a_run_error
#include "servestat/ingest/detect.hpp"          // detect_format, read_logs, load_options
#include "servestat/ingest/sglang_bench_serving.hpp" // sglang_bench_serving_format (the sniffers must not fight)
#include "servestat/ingest/vllm_bench_json.hpp" // vllm_bench_json_format

#include "format_reading.hpp" // test::reported, test::has_note, test::read_one, test::read_error, test::file_head
#include "temp_file.hpp"      // test::temp_file
#include <catch2/catch.hpp>   // TEST_CASE, REQUIRE, CHECK, Approx
#include <nlohmann/json.hpp>  // nlohmann::json

namespace test_ingest_trtllm { // the unity build compiles several test files as one: each keeps its names

using namespace servestat;
using servestat::test::file_head;
using servestat::test::has_note;
using servestat::test::read_error;
using servestat::test::read_one;
using servestat::test::reported;
using json = nlohmann::json;

namespace {

const std::filesystem::path data = std::filesystem::path(SERVESTAT_TEST_DATA_DIR) / "trtllm";
const std::filesystem::path serving = data / "serving";
const std::filesystem::path result_file = serving / "openai-inf-concurrency2-Llama-3.1-8B-Instruct-20260105-143012.json";
const std::filesystem::path perf_file =
    serving / "openai-inf-concurrency2-Llama-3.1-8B-Instruct-20260105-143014-perf_metrics.json";
const std::filesystem::path disagg_file = data / "perf_alone" / "openai-10.0qps-DeepSeek-R1-20260106-101500-perf_metrics.json";

// A reported value printed in ms (console: 4 decimals) against the reader's seconds.
void check_ms(const run& r, const std::string& name, double ms) {
    INFO(name);
    const auto v = reported(r, name);
    REQUIRE(v);
    CHECK(*v * 1e3 == Approx(ms).epsilon(1e-12));
}

void check_value(const run& r, const std::string& name, double value) {
    INFO(name);
    const auto v = reported(r, name);
    REQUIRE(v);
    CHECK(*v == Approx(value).epsilon(1e-12));
}

std::string format_of(const std::filesystem::path& file) {
    const auto* f = detect_format(file_head(file));
    return f ? std::string(f->name) : std::string("(none)");
}

} // namespace

TEST_CASE("TensorRT-LLM's files are detected from their content, each by its own reader") {
    CHECK(format_of(data / "result_128_128_30000.txt") == "trtllm-bench");
    CHECK(format_of(data / "result_16384_16384_50.txt") == "trtllm-bench");
    CHECK(format_of(data / "pytorch_backend_report.log") == "trtllm-bench");
    CHECK(format_of(data / "in128_out40_bs1.json") == "trtllm-bench");
    CHECK(format_of(data / "generated_request_info.json") == "trtllm-bench");
    CHECK(format_of(perf_file) == "trtllm-perf-metrics");
    CHECK(format_of(disagg_file) == "trtllm-perf-metrics");
    // benchmark_serving.py's result is vLLM's layout: the vLLM reader's, never trtllm-bench's.
    CHECK(format_of(result_file) == "vllm-bench-json");
    CHECK(format_of(data / "generated_serving_summary.json") == "vllm-bench-json");
    CHECK(format_of(serving / "openai-inf-concurrency2-Llama-3.1-8B-Instruct-20260105-143014-perf_metrics-time_diagram.html") ==
          "(none)");
    for (const auto& file : {data / "result_128_128_30000.txt", data / "in128_out40_bs1.json", perf_file,
                             data / "generated_request_info.json", data / "pytorch_backend_report.log"}) {
        INFO(file);
        CHECK(vllm_bench_json_format.sniff(file_head(file)) == 0);
        CHECK(sglang_bench_serving_format.sniff(file_head(file)) == 0);
    }
    // Nothing of vLLM's or SGLang's is claimed by the TensorRT-LLM sniffers.
    for (const auto* dir : {"vllm_bench_json", "sglang"})
        for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(SERVESTAT_TEST_DATA_DIR) / dir)) {
            INFO(entry.path());
            const std::string head = file_head(entry.path());
            CHECK(trtllm_bench_format.sniff(head) == 0);
            CHECK(trtllm_perf_metrics_format.sniff(head) == 0);
        }
    // TensorRT-LLM's server log shares the version line, never the benchmark's lines.
    CHECK(trtllm_bench_format.sniff("[TensorRT-LLM] TensorRT-LLM version: 0.16.0\n[TensorRT-LLM][INFO] Initialized MPI\n") == 0);
}

TEST_CASE("a trtllm-bench 0.16 throughput log (real) is one summary run with the numbers it printed") {
    const run r = read_one(trtllm_bench_format, data / "result_128_128_30000.txt");
    CHECK(r.meta.kind == run_kind::summary);
    CHECK(r.requests.size() == 0);
    CHECK(r.meta.source.format == "trtllm-bench");
    CHECK(r.meta.label == "result_128_128_30000");
    CHECK(r.meta.model == "meta-llama/Llama-3.1-70B-Instruct");
    CHECK(r.meta.tool == "trtllm-bench 0.16.0");
    CHECK(r.meta.params == json{{"benchmark", "throughput"},
                                {"backend", "tensorrt"},
                                {"engine_dir", "/tmp/meta-llama/Llama-3.1-70B-Instruct/tp_8_pp_1"},
                                {"dtype", "bfloat16"},
                                {"kv_cache_dtype", "FP8"},
                                {"quantization", "FP8"},
                                {"max_seq_len", 25000},
                                {"tensor_parallel_size", 8},
                                {"pipeline_parallel_size", 1},
                                {"max_batch_size", 2048},
                                {"max_num_tokens", 8192},
                                {"scheduling_policy", "Guaranteed No Evict"},
                                {"kv_cache_memory_fraction", 0.9}});
    // PERFORMANCE OVERVIEW: 30000 requests, 128/128 tokens, 14389.7989 tok/s, 112.4203 req/s, 266855.7100 ms.
    CHECK(reported(r, "requests") == 30000);
    check_value(r, "prompt_tokens.mean", 128.0);
    check_value(r, "output_tokens.mean", 128.0);
    check_value(r, "output_tps", 14389.7989);
    check_value(r, "rps", 112.4203);
    check_ms(r, "duration", 266855.7100);
    check_value(r, "trtllm.issue_rate", 2.9766e13);
    CHECK(r.meta.reported.size() == 7);
    CHECK(has_note(r, "console report"));
    CHECK(has_note(r, "sorted[int(n·p)]"));
}

TEST_CASE("the oldest console layout (a STATISTICS block, latency in seconds) is read too") {
    test::temp_file old("===========================================================\n= WORLD + RUNTIME INFORMATION \n"
                        "===========================================================\nTP Size:                1\n"
                        "Issue Rate (req/sec):   3.680275266452667e+18\n"
                        "===========================================================\n= STATISTICS\n"
                        "===========================================================\nNumber of requests:             3000\n"
                        "Average Input Length (tokens):  128.0\nAverage Output Length (tokens): 128.0\n"
                        "Token Throughput (tokens/sec):  23405.927228471104\nRequest Throughput (req/sec):   182.8588064724305\n"
                        "Total Latency (seconds):        16.406100739\n"
                        "===========================================================\n",
                        "old.log");
    CHECK(detect_format(file_head(old.path()))->name == "trtllm-bench");
    const run r = read_one(trtllm_bench_format, old.path());
    CHECK(reported(r, "requests") == 3000);
    check_value(r, "output_tps", 23405.927228471104);
    check_value(r, "rps", 182.8588064724305);
    check_value(r, "duration", 16.406100739);
    check_value(r, "trtllm.issue_rate", 3.680275266452667e+18);
    CHECK(r.meta.params == json{{"tensor_parallel_size", 1}});
}

TEST_CASE("a failed cell (real: the log stops before the report) is a run saying it failed, never dropped") {
    const run r = read_one(trtllm_bench_format, data / "result_16384_16384_50.txt");
    CHECK(r.meta.kind == run_kind::summary);
    CHECK(r.meta.reported.empty());
    CHECK(r.meta.label == "result_16384_16384_50");
    CHECK(r.meta.params == json{{"benchmark", "throughput"}});
    CHECK(has_note(r, "failed: trtllm-bench printed no report"));
    // Read with its sweep's other cells it stays in the list.
    test::temp_file dir(std::string("x"), "README.md");
    std::filesystem::copy_file(data / "result_16384_16384_50.txt", dir.dir() / "result_16384_16384_50.txt");
    std::filesystem::copy_file(data / "result_128_128_30000.txt", dir.dir() / "result_128_128_30000.txt");
    const auto runs = read_logs(std::vector<std::string>{dir.dir().string()});
    REQUIRE(runs.size() == 2);
    CHECK(runs[0].meta.reported.size() == 7);
    CHECK(runs[1].meta.label == "result_16384_16384_50");
    // An error line in the log is quoted in the note.
    test::temp_file oom("[TensorRT-LLM] TensorRT-LLM version: 0.16.0\n"
                        "[07/11/2025-11:40:45] [TRT-LLM] [I] Preparing to run throughput benchmark...\n"
                        "RuntimeError: [TensorRT-LLM][ERROR] CUDA runtime error in cudaMalloc: out of memory\n",
                        "oom.txt");
    const run failed = read_one(trtllm_bench_format, oom.path());
    CHECK(has_note(failed, "its last error line: RuntimeError: [TensorRT-LLM][ERROR] CUDA runtime error in cudaMalloc: out of memory"));
}

TEST_CASE("the newer console layout (PyTorch backend, streaming) gives every printed number") {
    const run r = read_one(trtllm_bench_format, data / "pytorch_backend_report.log");
    CHECK(r.meta.model == "meta-llama/Llama-3.1-8B-Instruct");
    CHECK(r.meta.tool == "trtllm-bench 0.21.0rc0");
    CHECK(r.meta.workload == "/workspace/benchmark_toolkit/synthetic_data.jsonl");
    CHECK(r.meta.params == json{{"backend", "pytorch"},
                                {"dtype", "bfloat16"},
                                {"tensor_parallel_size", 1},
                                {"pipeline_parallel_size", 1},
                                {"max_batch_size", 3840},
                                {"max_num_tokens", 7680},
                                {"scheduling_policy", "GUARANTEED_NO_EVICT"},
                                {"kv_cache_memory_fraction", 0.9},
                                {"isl", 128},
                                {"osl", 128}});
    CHECK(reported(r, "requests") == 100);
    check_value(r, "trtllm.avg_concurrent_requests", 94.6050);
    check_value(r, "rps", 86.5373);
    check_value(r, "output_tps", 11076.7700);
    check_value(r, "total_tps", 22153.5399);
    check_ms(r, "duration", 1155.5715);
    check_ms(r, "e2e.mean", 1093.2284);
    check_value(r, "trtllm.output_throughput_per_user", 117.1544);
    check_value(r, "trtllm.output_throughput_per_gpu", 11076.7700);
    check_ms(r, "ttft.mean", 162.6706);
    check_ms(r, "tpot.mean", 7.3272);
    check_value(r, "trtllm.output_speed_per_user", 137.1475);
    for (const auto& [stat, ms] : {std::pair{"min", 6.6450}, std::pair{"max", 8.1306}, std::pair{"p50", 7.6079},
                                   std::pair{"p90", 8.1246}, std::pair{"p95", 8.1289}, std::pair{"p99", 8.1306}})
        check_ms(r, std::string("tpot.") + stat, ms);
    for (const auto& [stat, ms] : {std::pair{"min", 93.9210}, std::pair{"max", 232.4339}, std::pair{"p50", 159.7857},
                                   std::pair{"p90", 220.0530}, std::pair{"p95", 226.9148}, std::pair{"p99", 232.4339}})
        check_ms(r, std::string("ttft.") + stat, ms);
    for (const auto& [stat, v] : {std::pair{"min", 122.9921}, std::pair{"max", 150.4894}, std::pair{"mean", 137.1475},
                                  std::pair{"p50", 131.4444}, std::pair{"p90", 150.4112}, std::pair{"p95", 150.4606},
                                  std::pair{"p99", 150.4894}})
        check_value(r, std::string("trtllm.generation_tps.") + stat, v);
    for (const auto& [stat, ms] : {std::pair{"p50", 1091.7905}, std::pair{"p90", 1130.7200}, std::pair{"p95", 1133.0074},
                                   std::pair{"p99", 1137.6817}, std::pair{"min", 1050.1519}, std::pair{"max", 1137.6817}})
        check_ms(r, std::string("e2e.") + stat, ms);
    // Printed twice (the average latency, TTFT and TPOT lines and their AVERAGE): reported once.
    std::size_t means = 0;
    for (const auto& v : r.meta.reported) means += v.name == "e2e.mean" || v.name == "ttft.mean" || v.name == "tpot.mean";
    CHECK(means == 3);
    CHECK(r.meta.reported.size() == 14 + 6 + 6 + 7 + 6 + 1); // + trtllm.issue_rate
}

TEST_CASE("a --report_json file (real, trtllm-bench 1.2.0 latency) is one summary run") {
    const run r = read_one(trtllm_bench_format, data / "in128_out40_bs1.json");
    CHECK(r.meta.kind == run_kind::summary);
    CHECK(r.meta.model == "Qwen/Qwen2.5-0.5B-Instruct");
    CHECK(r.meta.tool == "trtllm-bench 1.2.0");
    CHECK(r.meta.workload == "/workspace/trtllm-latency/artifacts/datasets_seq1065/in128_out40.json");
    CHECK(r.meta.params ==
          json{{"backend", "tensorrt"},
               {"engine_dir", "/workspace/trtllm-latency/artifacts/workspaces/Qwen2.5-0.5B-Instruct_bs1_seq1065_tok1065/Qwen/"
                              "Qwen2.5-0.5B-Instruct/tp_1_pp_1"},
               {"dtype", "bfloat16"},
               {"max_input_len", 1024},
               {"max_seq_len", 1065},
               {"tensor_parallel_size", 1},
               {"pipeline_parallel_size", 1},
               {"expert_parallel_size", 1},
               {"world_size", 1},
               {"max_batch_size", 1},
               {"max_num_tokens", 1065},
               {"scheduling_policy", "GUARANTEED_NO_EVICT"},
               {"kv_cache_memory_fraction", 0.9},
               {"gpu", "NVIDIA RTX PRO 6000 Blackwell Server Edition"},
               {"isl", 128},
               {"osl", 40}});
    CHECK(reported(r, "requests") == 20);
    check_value(r, "trtllm.avg_concurrent_requests", 0.9996157946437358);
    check_value(r, "prompt_tokens.mean", 128.0);
    check_value(r, "output_tokens.mean", 40.0);
    check_ms(r, "duration", 1437.850855);
    check_ms(r, "e2e.mean", 71.86492125);
    check_value(r, "rps", 13.909648508015806);
    check_value(r, "output_tps", 556.3859403206322);
    check_value(r, "total_tps", 2336.820949346655);
    check_value(r, "trtllm.output_throughput_per_user", 558.898819980835);
    check_value(r, "trtllm.output_throughput_per_gpu", 556.3859403206322);
    check_value(r, "trtllm.output_speed_per_user", 584.2079874378304);
    check_ms(r, "ttft.mean", 5.1066202999999994);
    check_ms(r, "tpot.mean", 1.7117513064102563);
    check_value(r, "trtllm.issue_rate", 6.837279165000001e+16);
    for (const auto& [stat, ms] : {std::pair{"p50", 70.42827199999999}, std::pair{"p90", 75.50215899999999},
                                   std::pair{"p95", 93.96171799999999}, std::pair{"p99", 93.96171799999999},
                                   std::pair{"min", 69.964496}, std::pair{"max", 93.96171799999999}})
        check_ms(r, std::string("e2e.") + stat, ms);
    for (const auto& [stat, ms] : {std::pair{"p50", 1.7136109743589742}, std::pair{"p90", 1.7233715128205127},
                                   std::pair{"p95", 1.7236698974358975}, std::pair{"p99", 1.7236698974358975},
                                   std::pair{"min", 1.6939951282051282}, std::pair{"max", 1.7236698974358975}})
        check_ms(r, std::string("tpot.") + stat, ms);
    for (const auto& [stat, ms] : {std::pair{"p50", 3.676513}, std::pair{"p90", 8.691822},
                                   std::pair{"p95", 27.130889999999997}, std::pair{"p99", 27.130889999999997},
                                   std::pair{"min", 3.204315}, std::pair{"max", 27.130889999999997}})
        check_ms(r, std::string("ttft.") + stat, ms);
    check_value(r, "trtllm.generation_tps.p50", 583.6266069503913);
    check_value(r, "trtllm.generation_tps.max", 590.3204698466574);
    CHECK(has_note(r, "--report_json"));
}

TEST_CASE("a --request_json file is a requests run on trtllm-bench's nanosecond clock") {
    const run r = read_one(trtllm_bench_format, data / "generated_request_info.json");
    CHECK(r.meta.kind == run_kind::requests);
    REQUIRE(r.requests.size() == 3);
    const auto row0 = r.requests.row(0), row1 = r.requests.row(1), row2 = r.requests.row(2);
    CHECK(*row0.t_sent == 0.0);
    CHECK(*row0.t_first == Approx(0.05));
    CHECK(*row0.t_end == Approx(0.45));
    CHECK(*row1.t_sent == Approx(0.001));
    CHECK(*row1.t_end == Approx(0.5));
    CHECK(row0.prompt_tokens == 128);
    CHECK(row0.output_tokens == 9);
    CHECK(row2.status == request_status::error);
    CHECK(!row2.t_first);
    CHECK(has_note(r, "ns of its monotonic clock"));
}

TEST_CASE("TensorRT-LLM's benchmark_serving.py result is read by the vLLM reader, e2els as latencies") {
    const run r = read_one(vllm_bench_json_format, result_file);
    CHECK(r.meta.tool == "trtllm-benchmark-serving");
    CHECK(r.meta.kind == run_kind::requests);
    REQUIRE(r.requests.size() == 4);
    CHECK(*r.requests.row(0).t_end == Approx(0.2));
    CHECK(*r.requests.row(0).t_first == Approx(0.05));
    CHECK(r.requests.row(3).status != request_status::ok);
    CHECK(r.requests.row(3).http_status == 500);
    // Its own keys are reported values, never run parameters.
    CHECK(r.meta.params == json{{"backend", "openai"},
                                {"tokenizer_id", "meta-llama/Llama-3.1-8B-Instruct"},
                                {"num_prompts", 4},
                                {"request_rate", "inf"},
                                {"burstiness", 1},
                                {"max_concurrency", 2}});
    check_value(r, "trtllm.user_throughput", (4 / 0.2 + 4 / 0.21 + 4 / 0.205) / 3);
    check_value(r, "trtllm.avg_decoded_tokens_per_iter.mean", 0.0);
    check_value(r, "trtllm.avg_decoded_tokens_per_iter.p99", 0.0);
    check_ms(r, "ttft.mean", 55.0);
    check_value(r, "rps", 6.0);
    CHECK(has_note(r, "TensorRT-LLM's benchmark_serving.py"));
    // The server's timings beside it are merged, with the reason they are not joined.
    REQUIRE(r.meta.source.merged.size() == 1);
    CHECK(std::filesystem::path(r.meta.source.merged[0]).filename() == perf_file.filename());
    CHECK(has_note(r, "4 records from TensorRT-LLM's /perf_metrics) cannot be joined"));
    CHECK(has_note(r, "saves no request ids"));
}

TEST_CASE("the older TensorRT-LLM summary: avg_decoded_tokens_per_iter a number, user_throughput reported") {
    const run r = read_one(vllm_bench_json_format, data / "generated_serving_summary.json");
    CHECK(r.meta.kind == run_kind::summary);
    CHECK(r.meta.tool == "trtllm-benchmark-serving");
    check_value(r, "trtllm.user_throughput", 33.5);
    check_value(r, "trtllm.avg_decoded_tokens_per_iter", 2.75);
    CHECK(r.meta.params == json{{"backend", "openai"},
                                {"tokenizer_id", "nvidia/Llama-3.1-8B-Instruct-FP8"},
                                {"num_prompts", 100},
                                {"tp", 2},
                                {"request_rate", "inf"},
                                {"burstiness", 1},
                                {"max_concurrency", 16}});
    CHECK(r.meta.source.merged.empty());
}

TEST_CASE("a folder of a result and its server timings reads as one run, the timings merged") {
    std::vector<directory_listing> listings;
    load_options o;
    o.listed = [&](const directory_listing& l) { listings.push_back(l); };
    const auto runs = read_logs(std::vector<std::string>{serving.string()}, o);
    REQUIRE(runs.size() == 1);
    CHECK(runs[0].meta.source.format == "vllm-bench-json");
    REQUIRE(runs[0].meta.source.merged.size() == 1);
    REQUIRE(listings.size() == 1);
    CHECK(listings[0].logs == 1);
    bool perf_listed = false, html_listed = false;
    for (const auto& p : listings[0].passed_over) {
        if (p.path.ends_with("-perf_metrics.json")) perf_listed = p.reason.find("merged into that result's run") != std::string::npos;
        if (p.path.ends_with(".html")) html_listed = true;
    }
    CHECK(perf_listed);
    CHECK(html_listed);
    // Named alone beside its result, the timings file says where its data went.
    try {
        trtllm_perf_metrics_format.read(perf_file, {});
        FAIL("no error");
    } catch (const not_a_run_error& e) {
        CHECK(std::string(e.reason()).find("openai-inf-concurrency2-Llama-3.1-8B-Instruct-20260105-143012.json") !=
              std::string::npos);
    }
}

TEST_CASE("server timings alone are a run of the server's view, with server_queue/prefill/decode") {
    SECTION("aggregated") {
        test::temp_file alone(std::string(""), "x.txt");
        const auto copy = alone.dir() / perf_file.filename();
        std::filesystem::copy_file(perf_file, copy);
        const run r = read_one(trtllm_perf_metrics_format, copy);
        CHECK(r.meta.source.format == "trtllm-perf-metrics");
        REQUIRE(r.requests.size() == 4);
        // Records in completion order: the warm-up (arrival 990.0) first, request 2 before 1.
        const auto w = r.requests.row(0);
        CHECK(*w.t_sent == 0.0);
        CHECK(*w.server_queue == Approx(0.001));
        CHECK(*w.server_prefill == Approx(0.02));
        CHECK(*w.server_decode == Approx(0.06));
        CHECK(*w.t_first == Approx(0.0005 + 0.001 + 0.02 + 0.0003));
        CHECK(*w.t_end == Approx(0.0005 + 0.001 + 0.02 + 0.06));
        const auto second = r.requests.row(1);
        CHECK(*second.t_sent == Approx(10.001));
        CHECK(*second.server_queue == Approx(0.003));
        CHECK(!second.output_tokens);
        CHECK(has_note(r, "the server's view of each request"));
    }
    SECTION("disaggregated") {
        const run r = read_one(trtllm_perf_metrics_format, disagg_file);
        REQUIRE(r.requests.size() == 3);
        const auto first = r.requests.row(0);
        CHECK(*first.t_sent == 0.0);
        CHECK(*first.t_first == Approx(0.095));
        CHECK(*first.t_end == Approx(0.5));
        CHECK(*first.server_queue == Approx(0.005));
        CHECK(*first.server_prefill == Approx(0.027));
        CHECK(*first.server_decode == Approx(0.415));
        CHECK(*r.requests.row(2).t_sent == Approx(1.0));
    }
}

TEST_CASE("the timings file is paired by benchmark_serving.py's names and dates") {
    const json result = json::parse(R"({"date": "20260105-143012", "backend": "openai", "model_id": "org/M-1",
                                        "request_rate": 10.0, "max_concurrency": null, "user_throughput": 1})");
    CHECK(detail::trtllm_result_name_prefix(result) == std::string("openai-10.0qps-M-1-"));
    CHECK(detail::trtllm_result_name_prefix(result, false) == std::string("openai-10.0-M-1-"));
    test::temp_file dir(std::string(""), "openai-10.0qps-M-1-20260105-143012.json");
    const auto write = [&](const std::string& name) { std::ofstream(dir.dir() / name) << "[]"; };
    write("openai-10.0qps-M-1-20260105-143011-perf_metrics.json"); // before the result: an earlier run's
    write("openai-10.0qps-M-1-20260105-144500-perf_metrics.json"); // 15 minutes later: another run's
    CHECK(!detail::trtllm_perf_metrics_for(dir.path(), result));
    write("openai-10.0qps-M-1-20260105-143013-perf_metrics.json");
    write("openai-10.0qps-M-1-20260105-143020-perf_metrics.json");
    const auto paired = detail::trtllm_perf_metrics_for(dir.path(), result);
    REQUIRE(paired);
    CHECK(paired->filename() == "openai-10.0qps-M-1-20260105-143013-perf_metrics.json");
    CHECK(detail::python_float_text(2.5) == "2.5");
    CHECK(detail::python_float_text(1.0) == "1.0");
}

TEST_CASE("bad input names the file, line and field") {
    SECTION("a console value that is no number") {
        test::temp_file bad("===========================================================\n"
                            "= PERFORMANCE OVERVIEW \n"
                            "===========================================================\n"
                            "Number of requests:\t\t30000\n"
                            "Request Throughput (req/sec):\tfast\n",
                            "bad.txt");
        const auto e = read_error(trtllm_bench_format, bad.path());
        CHECK(e.file() == bad.str());
        CHECK(e.line() == 5);
        CHECK(e.field() == "Request Throughput (req/sec)");
    }
    SECTION("a report value of the wrong type") {
        test::temp_file bad(R"({"engine": {}, "world_info": {}, "request_info": {"num_requests": 2},
  "performance": {"total_latency_ms": "long"}})",
                            "report.json");
        const auto e = read_error(trtllm_bench_format, bad.path());
        CHECK(e.file() == bad.str());
        CHECK(e.line() == 1);
        CHECK(e.field() == "performance.total_latency_ms");
    }
    SECTION("a request record without its end") {
        test::temp_file bad(R"([{"id": 0, "num_input_tokens": 8, "start_timestamp": 10, "first_token_timestamp": 20}])",
                            "requests.json");
        const auto e = read_error(trtllm_bench_format, bad.path());
        CHECK(e.field() == "[0].end_timestamp");
    }
    SECTION("a server record without timing_metrics") {
        test::temp_file bad("[\n  {\"request_id\": 1, \"perf_metrics\": {\"first_iter\": 0}}\n]", "p-perf_metrics.json");
        const auto e = read_error(trtllm_perf_metrics_format, bad.path());
        CHECK(e.file() == bad.str());
        CHECK(e.field() == "[0].perf_metrics.timing_metrics");
    }
    SECTION("a server phase that ends before it starts") {
        test::temp_file bad(R"([{"request_id": 1, "perf_metrics": {"timing_metrics": {"server_arrival_time": 1.0,
            "arrival_time": 1.1, "first_scheduled_time": 1.05, "first_token_time": 1.2}}}])",
                            "p-perf_metrics.json");
        const auto e = read_error(trtllm_perf_metrics_format, bad.path());
        CHECK(e.field() == "[0].perf_metrics.timing_metrics.first_scheduled_time");
    }
}

} // namespace test_ingest_trtllm
