// Console logs of vLLM's serving benchmark (vllm bench serve, benchmarks/benchmark_serving.py) and of
// SGLang's bench_serving: one summary run per "Serving Benchmark Result" block, its settings from the
// Namespace(...) line before it, and a log beside its JSON result passed over as the same run.
// Real files: tests/data/bench_console (README.md names each file's repository, commit and path); every
// expected number below is read by hand from the log itself.
#include "servestat/ingest/bench_serving_console.hpp"

#include <filesystem> // std::filesystem
#include <fstream>    // std::ifstream, std::ofstream
#include <iterator>   // std::istreambuf_iterator
#include <optional>   // std::optional
#include <string>     // std::string
#include <vector>     // std::vector

#include <nlohmann/json.hpp> // nlohmann::json

#include "servestat/ingest/detect.hpp"               // detect_format, read_logs, builtin_formats, load_options
#include "servestat/ingest/llmperf_console.hpp"      // llmperf_console_format (the sniffers must not fight)
#include "servestat/ingest/python_namespace.hpp"     // parse_py_namespace
#include "servestat/ingest/same_run.hpp"             // is_same_run
#include "servestat/ingest/sglang_bench_serving.hpp" // sglang_bench_serving_format
#include "servestat/ingest/vllm_bench_json.hpp"      // vllm_bench_json_format

#include "format_reading.hpp" // test::reported, test::has_note, test::read_one, test::read_error, test::file_head
#include "temp_file.hpp"      // test::temp_file
#include <catch2/catch.hpp>   // TEST_CASE, REQUIRE, CHECK, Approx

namespace test_ingest_bench_console { // the unity build compiles several test files as one: each keeps its names

using namespace servestat;
using servestat::test::file_head;
using servestat::test::has_note;
using servestat::test::read_error;
using servestat::test::read_one;
using servestat::test::reported;
using servestat::test::temp_file;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

const fs::path data = fs::path(SERVESTAT_TEST_DATA_DIR) / "bench_console";
const fs::path mystous = data / "mystous_qwen25_7b";          // vLLM 2026: bench.log + bench.json of one run
const fs::path schedcp = data / "20251207_231745_uvm_baseline_client.log"; // vLLM late 2025, rate 5
const fs::path legacy = data / "benchmark_serving.txt";       // benchmarks/benchmark_serving.py, mid 2024
const fs::path crashed = data / "benchmark_serving_crashed.txt"; // the legacy script's traceback, no block
const fs::path kvcached = data / "kvcached_overhead_README.md"; // six SGLang blocks quoted in Markdown

std::string text_of(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write(const fs::path& file, const std::string& text) { std::ofstream(file, std::ios::binary) << text; }

// The log's value in ms against the reader's in s.
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

const reported_value* find(const run& r, const std::string& name) { return find_reported(r.meta, name); }

// The datacrunch SGLang run of tests/data/sglang/deepseek_dp_mla_output.jsonl (SGLang of late 2024) as
// that version prints it: GENERATED from the JSON line's numbers with SGLang's "{:<40} {:<10.2f}"
// rows (no public console log of a run whose JSON is public was found); the rows whose values the
// JSON does not hold (mean TTFT, p99s) are left out.
const std::string sglang_generated =
    "Namespace(backend='sglang', base_url=None, host='0.0.0.0', port=None, dataset_name='random', dataset_path='', "
    "model=None, tokenizer=None, num_prompts=10000, sharegpt_output_len=None, random_input_len=1, "
    "random_output_len=512, random_range_ratio=1.0, request_rate=inf, max_concurrency=None, output_file=None)\n"
    "\n#Input tokens: 10000\n#Output tokens: 5120000\n"
    "100%|##########| 10000/10000 [06:52<00:00, 24.24it/s]\n"
    "\n============ Serving Benchmark Result ============\n"
    "Backend:                                 sglang    \n"
    "Traffic request rate:                    inf       \n"
    "Max request concurrency:                 not set   \n"
    "Successful requests:                     10000     \n"
    "Benchmark duration (s):                  412.49    \n"
    "Total input tokens:                      10000     \n"
    "Total generated tokens:                  5120000   \n"
    "Total generated tokens (retokenized):    5115342   \n"
    "Request throughput (req/s):              24.24     \n"
    "Input token throughput (tok/s):          24.24     \n"
    "Output token throughput (tok/s):         12412.39  \n"
    "Total token throughput (tok/s):          12436.64  \n"
    "----------------End-to-End Latency----------------\n"
    "Mean E2E Latency (ms):                   381236.82 \n"
    "Median E2E Latency (ms):                 374559.59 \n"
    "---------------Time to First Token----------------\n"
    "Median TTFT (ms):                        10014.10  \n"
    "---------------Inter-token Latency----------------\n"
    "Median ITL (ms):                         371.84    \n"
    "==================================================\n";

// The lines of a file, each with its line end, so that tests can cut or change one.
std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> out;
    for (std::size_t pos = 0; pos < text.size();) {
        const std::size_t end = text.find('\n', pos);
        const std::size_t next = end == std::string::npos ? text.size() : end + 1;
        out.push_back(text.substr(pos, next - pos));
        pos = next;
    }
    return out;
}

std::string first_lines(const std::string& text, std::size_t n) {
    std::string out;
    const auto lines = lines_of(text);
    for (std::size_t k = 0; k < n && k < lines.size(); ++k) out += lines[k];
    return out;
}

std::size_t line_number_of(const std::string& text, const std::string& part) {
    const auto lines = lines_of(text);
    for (std::size_t k = 0; k < lines.size(); ++k)
        if (lines[k].find(part) != std::string::npos) return k + 1;
    FAIL("no line holds " << part);
    return 0;
}

} // namespace

// ---- detection ---------------------------------------------------------------------------------

TEST_CASE("bench-serving-console is detected from content and is the only format claiming the logs") {
    CHECK(bench_serving_console_format.name == "bench-serving-console");
    CHECK(find_format("bench-serving-console").name == "bench-serving-console");
    for (const auto& file : {mystous / "bench.log", schedcp, legacy}) {
        INFO(file);
        const std::string head = file_head(file);
        CHECK(bench_serving_console_format.sniff(head) == 100);
        REQUIRE(detect_format(head));
        CHECK(detect_format(head)->name == "bench-serving-console");
        for (const auto* f : builtin_formats) {
            if (f == &bench_serving_console_format) continue;
            INFO(f->name);
            CHECK(f->sniff(head) == 0);
        }
    }
    temp_file sglang(sglang_generated, "sglang.log");
    CHECK(detect_format(file_head(sglang.path()))->name == "bench-serving-console");
    CHECK(llmperf_console_format.sniff(sglang_generated) == 0);
    CHECK(sglang_bench_serving_format.sniff(sglang_generated) == 0);
}

TEST_CASE("the console sniffer leaves Markdown quoting a block, a log without a block and other formats alone") {
    CHECK(bench_serving_console_format.sniff(file_head(kvcached)) == 0); // a README beside the logs is no run
    CHECK(bench_serving_console_format.sniff(file_head(crashed)) == 0);  // legacy Namespace, traceback, no block
    CHECK(bench_serving_console_format.sniff(file_head(mystous / "bench.json")) == 0);
    CHECK(vllm_bench_json_format.sniff(file_head(mystous / "bench.json")) == 100);
    // A shell script keeping a block as comments, and the same block as JSON text, are not logs.
    CHECK(bench_serving_console_format.sniff("# ============ Serving Benchmark Result ============\n# Successful requests: 3\n") == 0);
    CHECK(bench_serving_console_format.sniff("{\"log\": \"\\n============ Serving Benchmark Result ============\"}") == 0);
    // vLLM's Namespace line alone (the block past the first 64 KiB, or never printed) is still its log.
    CHECK(bench_serving_console_format.sniff("Namespace(subparser='bench', bench_type='serve', seed=0)\n") == 60);
    CHECK(bench_serving_console_format.sniff("benchmark_args=Namespace(backend='sglang', port=None)\n") == 60);
    CHECK(bench_serving_console_format.sniff("Namespace(subparser='bench', bench_type='throughput', seed=0)\n") == 0);
    // Every other test fixture, and LLMPerf's console output, is left to its own reader.
    std::size_t claimed = 0;
    for (const auto& e : fs::recursive_directory_iterator(SERVESTAT_TEST_DATA_DIR)) {
        if (!e.is_regular_file()) continue;
        const bool mine = e.path().parent_path().string().starts_with(data.string()) &&
                          (e.path().extension() == ".log" || e.path().filename() == "benchmark_serving.txt");
        INFO(e.path());
        CHECK((bench_serving_console_format.sniff(file_head(e.path())) > 0) == mine);
        claimed += mine;
    }
    CHECK(claimed == 3);
    const fs::path llmperf_txt = fs::path(SERVESTAT_SHARED_DATA_DIR) / "llmperf-sglang-sweep-hongxuanzhang" / "result_outputs";
    if (fs::exists(llmperf_txt))
        for (const auto& e : fs::recursive_directory_iterator(llmperf_txt))
            if (e.is_regular_file() && e.path().extension() == ".txt") {
                INFO(e.path());
                CHECK(bench_serving_console_format.sniff(file_head(e.path())) == 0);
                CHECK(llmperf_console_format.sniff(file_head(e.path())) > 0);
            }
}

// ---- vLLM --------------------------------------------------------------------------------------

TEST_CASE("vllm bench serve's log (2026) is one summary run with the numbers it printed") {
    const run r = read_one(bench_serving_console_format, mystous / "bench.log");
    CHECK(r.meta.kind == run_kind::summary);
    CHECK(r.requests.size() == 0);
    CHECK_FALSE(r.meta.shared_clock);
    CHECK(r.meta.tool == "vllm-bench-serve");
    CHECK(r.meta.source.format == "bench-serving-console");
    CHECK(r.meta.source.line == 0);
    CHECK(r.meta.label == "bench");
    CHECK(r.meta.model == "Qwen/Qwen2.5-7B-Instruct");
    CHECK(r.meta.params == json{{"backend", "vllm"},         {"dataset_name", "random"},  {"num_prompts", 200},
                                {"request_rate", "inf"},     {"burstiness", 1},          {"random_input_len", 512},
                                {"random_output_len", 256},  {"random_range_ratio", 0},  {"random_prefix_len", 0}});
    CHECK(has_note(r, "request_rate inf"));
    CHECK(has_note(r, "two decimals"));
    // The block as printed: 200 / 0 requests, 51.62 s, 102400 / 51200 tokens, 3.87 req/s, 991.84,
    // peak 2901.00 tok/s, peak 200.00 requests, 2975.51 tok/s.
    check_value(r, "ok", 200);
    check_value(r, "failed", 0);
    check_value(r, "duration", 51.62);
    check_value(r, "vllm.total_input_tokens", 102400);
    check_value(r, "vllm.total_output_tokens", 51200);
    check_value(r, "rps", 3.87);
    check_value(r, "output_tps", 991.84);
    check_value(r, "vllm.max_output_tokens_per_s", 2901.00);
    check_value(r, "vllm.max_concurrent_requests", 200.00);
    check_value(r, "total_tps", 2975.51);
    CHECK(find(r, "duration")->unit == "s");
    CHECK(find(r, "ok")->unit == "requests");
    CHECK(find(r, "output_tps")->unit == "tok/s");
    // TTFT 14079.36 / 13743.20 / 24937.75 ms, TPOT 122.20 / 126.31 / 135.30, ITL 122.20 / 62.20 / 445.33.
    check_ms(r, "ttft.mean", 14079.36);
    check_ms(r, "ttft.p50", 13743.20);
    check_ms(r, "ttft.p99", 24937.75);
    check_ms(r, "tpot.mean", 122.20);
    check_ms(r, "tpot.p50", 126.31);
    check_ms(r, "tpot.p99", 135.30);
    check_ms(r, "itl.mean", 122.20);
    check_ms(r, "itl.p50", 62.20);
    check_ms(r, "itl.p99", 445.33);
    CHECK(find(r, "itl.p99")->unit == "s");
    CHECK(r.meta.reported.size() == 19);
}

TEST_CASE("a wrapper's log around vllm bench serve: the rate from the block, noise skipped") {
    // Command:/STDOUT:/STDERR: headings, a 60-'=' ruler, INFO lines and tqdm bars redrawn with \r.
    const run r = read_one(bench_serving_console_format, schedcp);
    CHECK(r.meta.model == "Qwen/Qwen3-30B-A3B-FP8");
    CHECK(r.meta.params == json{{"backend", "openai"}, {"dataset_name", "sharegpt"}, {"num_prompts", 100},
                                {"request_rate", 5},     {"burstiness", 1},           {"sharegpt_output_len", 512}});
    CHECK_FALSE(has_note(r, "request_rate inf"));
    check_value(r, "ok", 100);
    CHECK_FALSE(reported(r, "failed")); // this vLLM printed no "Failed requests:" row
    check_value(r, "duration", 360.55);
    check_value(r, "vllm.total_input_tokens", 23501);
    check_value(r, "vllm.total_output_tokens", 50843);
    check_value(r, "rps", 0.28);
    check_value(r, "output_tps", 141.01);
    check_value(r, "vllm.max_output_tokens_per_s", 300.00);
    check_value(r, "vllm.max_concurrent_requests", 100.00);
    check_value(r, "total_tps", 206.19); // "Total Token throughput", vLLM's spelling of 2025
    check_ms(r, "ttft.mean", 1114.53);
    check_ms(r, "ttft.p50", 1032.34);
    check_ms(r, "ttft.p99", 2167.30);
    check_ms(r, "tpot.mean", 646.02);
    check_ms(r, "tpot.p50", 644.79);
    check_ms(r, "tpot.p99", 664.40);
    check_ms(r, "itl.mean", 647.09);
    check_ms(r, "itl.p50", 581.34);
    check_ms(r, "itl.p99", 1053.08);
    CHECK(r.meta.reported.size() == 18);
}

TEST_CASE("the legacy benchmark_serving.py's log: its input throughput, no failed count") {
    const run r = read_one(bench_serving_console_format, legacy);
    CHECK(r.meta.tool == "vllm-bench-serve");
    CHECK(r.meta.model == "/root/models/facebook/opt-6.7b");
    CHECK(r.meta.params == json{{"backend", "vllm"}, {"dataset_name", "sharegpt"}, {"num_prompts", 2}, {"request_rate", "inf"}});
    check_value(r, "ok", 2);
    check_value(r, "duration", 5.14);
    check_value(r, "vllm.total_input_tokens", 41);
    check_value(r, "vllm.total_output_tokens", 977);
    check_value(r, "rps", 0.39);
    check_value(r, "vllm.input_throughput", 7.98);
    check_value(r, "output_tps", 190.19);
    CHECK_FALSE(reported(r, "total_tps"));
    check_ms(r, "ttft.mean", 42.92);
    check_ms(r, "ttft.p50", 42.92);
    check_ms(r, "ttft.p99", 52.88);
    check_ms(r, "tpot.mean", 9.36);
    check_ms(r, "tpot.p50", 9.36);
    check_ms(r, "tpot.p99", 13.35);
    check_ms(r, "itl.mean", 25.84);
    check_ms(r, "itl.p50", 25.39);
    check_ms(r, "itl.p99", 28.82);
    CHECK(r.meta.reported.size() == 16);
}

TEST_CASE("a Namespace(...) repr is read as Python wrote it") {
    const auto n = detail::parse_py_namespace(
        "subparser='bench', dispatch_function=<function Cmd.cmd at 0x7f59>, seed=0, mm={(256, 256, 1): 0.5, (720, 1, 1): 0.0}, "
        "label=None, path='it\\'s, here', request_rate=inf, metadata=['tp=2', 'gpu=H100'], flag=True)");
    CHECK(n.closed);
    REQUIRE(n.settings.size() == 9);
    CHECK(n.find("dispatch_function")->value == "<function Cmd.cmd at 0x7f59>");
    CHECK(n.find("mm")->value == "{(256, 256, 1): 0.5, (720, 1, 1): 0.0}");
    CHECK(n.find("path")->value == "it's, here");
    CHECK(n.find("path")->quoted);
    CHECK(n.find("label")->value == "None");
    CHECK_FALSE(n.find("label")->quoted);
    CHECK(n.find("request_rate")->value == "inf");
    CHECK(detail::py_string_list(n.find("metadata")->value) == std::vector<std::string>{"tp=2", "gpu=H100"});
    const auto cut = detail::parse_py_namespace("seed=0, model='Qwen/Qw");
    CHECK_FALSE(cut.closed);
    REQUIRE(cut.settings.size() == 1);
    CHECK(cut.settings[0].key == "seed");
}

TEST_CASE("--metadata pairs and --label reach the run as the JSON reader gives them") {
    // A Namespace written for this test, then the real log's block.
    const std::string log = text_of(mystous / "bench.log");
    temp_file f("Namespace(subparser='bench', bench_type='serve', num_prompts=4, dataset_name='random', label='sweep-a', "
                "backend='openai-chat', max_concurrency=2, request_rate=8.0, burstiness=0.5, model='m', "
                "metadata=['tp=2', 'gpu=H100'], random_input_len=10, random_output_len=5, random_range_ratio='0.0')\n" +
                    log.substr(log.find("============ Serving")),
                "run.log");
    const run r = read_one(bench_serving_console_format, f.path());
    CHECK(r.meta.label == "sweep-a");
    CHECK(r.meta.model == "m");
    CHECK(r.meta.params == json{{"backend", "openai-chat"}, {"dataset_name", "random"}, {"num_prompts", 4},
                                {"request_rate", 8},          {"burstiness", 0.5},        {"max_concurrency", 2},
                                {"random_input_len", 10},     {"random_output_len", 5},   {"random_range_ratio", 0},
                                {"tp", 2},                    {"gpu", "H100"}});
    CHECK_FALSE(has_note(r, "request_rate inf"));
}

TEST_CASE("vLLM's echo lines after the Namespace are settings too, and alone they are all there is") {
    const std::string log = text_of(mystous / "bench.log");
    // From "Traffic request rate: inf" on: no Namespace line.
    temp_file f(log.substr(log.find("Traffic request rate:")), "tail.log");
    const run r = read_one(bench_serving_console_format, f.path());
    CHECK(r.meta.params == json{{"request_rate", "inf"}, {"burstiness", 1}});
    CHECK(r.meta.model.empty());
    CHECK(has_note(r, "no Namespace(...) line"));
    check_value(r, "duration", 51.62);
}

// ---- SGLang ------------------------------------------------------------------------------------

TEST_CASE("SGLang's blocks quoted in a README, read with the format forced: six runs") {
    const auto runs = bench_serving_console_format.read(kvcached, {});
    REQUIRE(runs.size() == 6);
    const run& r = runs[0];
    CHECK(r.meta.tool == "sglang-bench-serving");
    CHECK(r.meta.source.line == line_number_of(text_of(kvcached), "============ Serving Benchmark Result"));
    CHECK(r.meta.params == json{{"backend", "sglang-oai"}, {"request_rate", 32}}); // "Max request concurrency: not set"
    CHECK(has_note(r, "no Namespace(...) line"));
    check_value(r, "ok", 1920);
    check_value(r, "duration", 213.71);
    check_value(r, "sglang.total_input_tokens", 1843657);
    check_value(r, "sglang.total_output_tokens", 157031);
    check_value(r, "sglang.total_output_tokens_retokenized", 156230);
    check_value(r, "rps", 8.98);
    check_value(r, "sglang.input_throughput", 8626.75);
    check_value(r, "output_tps", 734.77);
    check_value(r, "total_tps", 9361.52);
    check_value(r, "sglang.concurrency", 1418.05);
    check_ms(r, "e2e.mean", 157842.85);
    check_ms(r, "e2e.p50", 157290.17);
    check_ms(r, "ttft.mean", 112043.40);
    check_ms(r, "ttft.p50", 140974.91);
    check_ms(r, "ttft.p99", 145546.45);
    check_ms(r, "itl.mean", 569.94);
    check_ms(r, "itl.p50", 172.52);
    check_ms(r, "itl.p95", 561.59);
    check_ms(r, "itl.p99", 798.81);
    check_ms(r, "itl.max", 151008.49);
    CHECK(r.meta.reported.size() == 20);
    // The other blocks: without kvcached at 32 req/s, then 16 and 8 with and without.
    check_value(runs[1], "duration", 71.62);
    check_ms(runs[1], "itl.max", 3768.23);
    CHECK(runs[2].meta.params["request_rate"] == 16);
    check_value(runs[2], "sglang.concurrency", 21.04);
    check_value(runs[3], "sglang.total_output_tokens_retokenized", 75616);
    CHECK(runs[5].meta.params["request_rate"] == 8);
    check_ms(runs[5], "ttft.p99", 156.96);
    check_ms(runs[5], "itl.max", 207.75);
    // Named apart by their settings; the two runs of each rate stay " #k".
    for (std::size_t a = 0; a < runs.size(); ++a)
        for (std::size_t b = a + 1; b < runs.size(); ++b) CHECK(runs[a].meta.label != runs[b].meta.label);
}

TEST_CASE("SGLang's Namespace line gives its settings with the SGLang reader's rules") {
    temp_file f(sglang_generated, "sglang.log");
    const run r = read_one(bench_serving_console_format, f.path());
    CHECK(r.meta.tool == "sglang-bench-serving");
    CHECK(r.meta.model.empty()); // model=None: the server's own
    CHECK(r.meta.params == json{{"backend", "sglang"},       {"dataset_name", "random"}, {"num_prompts", 10000},
                                {"request_rate", "inf"},     {"random_input_len", 1},    {"random_output_len", 512},
                                {"random_range_ratio", 1}});
    check_value(r, "sglang.total_output_tokens_retokenized", 5115342);
    check_ms(r, "e2e.p50", 374559.59);
    check_ms(r, "itl.p50", 371.84);
}

// ---- several runs ------------------------------------------------------------------------------

TEST_CASE("several runs in one log: each block with the settings printed before it") {
    temp_file f(text_of(legacy) + text_of(schedcp) + text_of(mystous / "bench.log"), "all.log");
    const auto runs = bench_serving_console_format.read(f.path(), {});
    REQUIRE(runs.size() == 3);
    CHECK(runs[0].meta.params["num_prompts"] == 2);
    CHECK(runs[0].meta.params["request_rate"] == "inf");
    CHECK(runs[0].meta.model == "/root/models/facebook/opt-6.7b");
    check_value(runs[0], "duration", 5.14);
    CHECK(runs[1].meta.params["num_prompts"] == 100);
    CHECK(runs[1].meta.params["request_rate"] == 5);
    CHECK(runs[1].meta.model == "Qwen/Qwen3-30B-A3B-FP8");
    check_value(runs[1], "duration", 360.55);
    CHECK(runs[2].meta.params["num_prompts"] == 200);
    CHECK(runs[2].meta.params["random_input_len"] == 512);
    check_value(runs[2], "duration", 51.62);
    const std::string text = text_of(f.path());
    const std::size_t legacy_lines = lines_of(text_of(legacy)).size();
    CHECK(runs[0].meta.source.line == line_number_of(text, "Serving Benchmark Result"));
    CHECK(runs[1].meta.source.line > legacy_lines);
    CHECK(runs[0].meta.label != runs[1].meta.label);
    CHECK(runs[1].meta.label != runs[2].meta.label);
}

// ---- a log beside its JSON ---------------------------------------------------------------------

TEST_CASE("a log beside its JSON result is the same run: passed over as a copy, counted once") {
    const run console = read_one(bench_serving_console_format, mystous / "bench.log");
    const run result = read_one(vllm_bench_json_format, mystous / "bench.json");
    CHECK(detail::is_same_run(console.meta, result.meta));
    std::vector<directory_listing> listings;
    load_options o;
    o.listed = [&](const directory_listing& l) { listings.push_back(l); };
    const auto runs = read_logs(std::vector<std::string>{mystous.string()}, o);
    REQUIRE(runs.size() == 1);
    CHECK(runs[0].meta.source.format == "vllm-bench-json");
    REQUIRE(listings.size() == 1);
    CHECK(listings[0].logs == 1);
    REQUIRE(listings[0].passed_over.size() == 1);
    CHECK(fs::path(listings[0].passed_over[0].path) == mystous / "bench.log");
    CHECK(listings[0].passed_over[0].reason == "the same run as bench.json: same settings and values");
}

TEST_CASE("a console log read before its JSON in path order is still the copy") {
    // benchmark_serving.txt sorts before vllm-infqps-*.json: the console run waits for the JSON.
    temp_file dir(text_of(mystous / "bench.log"), "a_console.txt");
    write(dir.dir() / "z_result.json", text_of(mystous / "bench.json"));
    std::vector<passed_over_file> passed;
    load_options o;
    o.listed = [&](const directory_listing& l) { passed = l.passed_over; };
    const auto runs = read_logs(std::vector<std::string>{dir.dir().string()}, o);
    REQUIRE(runs.size() == 1);
    CHECK(runs[0].meta.source.format == "vllm-bench-json");
    REQUIRE(passed.size() == 1);
    CHECK(passed[0].reason == "the same run as z_result.json: same settings and values");
}

TEST_CASE("a console log whose values or settings differ from the JSON is a run of its own") {
    const std::string log = text_of(mystous / "bench.log");
    SECTION("a value off by more than the rounding") {
        std::string changed = log;
        const std::string row = "Mean TTFT (ms):                          14079.36  ";
        REQUIRE(changed.find(row) != std::string::npos);
        changed.replace(changed.find(row), row.size(), "Mean TTFT (ms):                          14079.37  ");
        temp_file dir(changed, "bench.log");
        write(dir.dir() / "bench.json", text_of(mystous / "bench.json"));
        CHECK(read_logs(std::vector<std::string>{dir.dir().string()}).size() == 2);
    }
    SECTION("a setting both give differs") {
        std::string changed = log;
        changed.replace(changed.find("num_prompts=200"), 15, "num_prompts=201");
        temp_file dir(changed, "bench.log");
        write(dir.dir() / "bench.json", text_of(mystous / "bench.json"));
        CHECK(read_logs(std::vector<std::string>{dir.dir().string()}).size() == 2);
    }
    SECTION("alone in its folder") {
        temp_file dir(log, "bench.log");
        const auto runs = read_logs(std::vector<std::string>{dir.dir().string()});
        REQUIRE(runs.size() == 1);
        CHECK(runs[0].meta.source.format == "bench-serving-console");
    }
}

TEST_CASE("a dead run's log is the copy of the JSON saved under its own name, never of another dead run's") {
    // Two runs against a server that had died (completed 0, every value 0), each saved as .json and
    // .txt (corpus set vllm-scicom-runpod-b200-h200-tp-dp): their values tell them apart by nothing.
    const fs::path from = fs::path(SERVESTAT_CORPUS_DIR) / "vllm-scicom-runpod-b200-h200-tp-dp" / "runpod_b200" / "GLM-4.7-FP8";
    temp_file dir("", "unused");
    for (const char* ctx : {"4096", "8192"})
        for (const char* ext : {".json", ".txt"}) {
            const std::string name = std::string("run_1_TP4_DP2_CTX") + ctx + "_C100_P100_O128" + ext;
            write(dir.dir() / name, text_of(from / name));
        }
    std::vector<passed_over_file> passed;
    load_options o;
    o.listed = [&](const directory_listing& l) { passed = l.passed_over; };
    const auto runs = read_logs(std::vector<std::string>{dir.dir().string()}, o);
    CHECK(runs.size() == 2);
    std::vector<std::string> reasons;
    for (const auto& p : passed)
        if (fs::path(p.path).extension() == ".txt") reasons.push_back(fs::path(p.path).stem().string() + " → " + p.reason);
    CHECK(reasons == std::vector<std::string>{
                         "run_1_TP4_DP2_CTX4096_C100_P100_O128 → the same run as run_1_TP4_DP2_CTX4096_C100_P100_O128.json: same settings and values",
                         "run_1_TP4_DP2_CTX8192_C100_P100_O128 → the same run as run_1_TP4_DP2_CTX8192_C100_P100_O128.json: same settings and values"});
}

TEST_CASE("SGLang's console log beside its JSON line is the same run") {
    temp_file dir(sglang_generated, "bench_serving.log");
    write(dir.dir() / "output.jsonl", text_of(fs::path(SERVESTAT_TEST_DATA_DIR) / "sglang" / "deepseek_dp_mla_output.jsonl"));
    std::vector<passed_over_file> passed;
    load_options o;
    o.listed = [&](const directory_listing& l) { passed = l.passed_over; };
    const auto runs = read_logs(std::vector<std::string>{dir.dir().string()}, o);
    REQUIRE(runs.size() == 1);
    CHECK(runs[0].meta.source.format == "sglang-bench-serving");
    REQUIRE(passed.size() == 1);
    CHECK(passed[0].reason == "the same run as output.jsonl: same settings and values");
}

TEST_CASE("the same-run rule: rounding to the console's two decimals, the tool, at least two values") {
    run_metadata console, result;
    console.source.format = "bench-serving-console";
    result.source.format = "vllm-bench-json";
    console.tool = result.tool = "vllm-bench-serve";
    console.reported = {{"duration", 51.62, "s"}, {"ttft.mean", 14.07936, "s"}};
    result.reported = {{"duration", 51.6214, "s"}, {"ttft.mean", 14.079357416, "s"}, {"ttft.std", 6.6, "s"}};
    CHECK(detail::is_same_run(console, result));
    result.reported[1].value = 14.0793649; // 14079.3649 ms rounds to 14079.36: still the same
    CHECK(detail::is_same_run(console, result));
    result.reported[1].value = 14.079366; // 14079.366 ms would print 14079.37
    CHECK_FALSE(detail::is_same_run(console, result));
    result.reported[1].value = 14.079357416;
    console.params["request_rate"] = "inf";
    result.params["request_rate"] = 8;
    CHECK_FALSE(detail::is_same_run(console, result));
    result.params["request_rate"] = "inf";
    result.params["tokenizer_id"] = "t"; // a setting only one gives does not count
    CHECK(detail::is_same_run(console, result));
    result.tool = "sglang-bench-serving";
    CHECK_FALSE(detail::is_same_run(console, result));
    result.tool = "vllm-bench-serve";
    console.reported.pop_back();
    CHECK_FALSE(detail::is_same_run(console, result)); // one value in common is no evidence
}

// ---- bad input ---------------------------------------------------------------------------------

TEST_CASE("a result block cut short names the missing line") {
    const std::string log = text_of(mystous / "bench.log");
    SECTION("cut before its throughput rows") {
        const std::size_t n = line_number_of(log, "Total generated tokens:");
        temp_file f(first_lines(log, n), "bench.log");
        const input_error e = read_error(bench_serving_console_format, f.path());
        CHECK(e.file() == f.str());
        CHECK(e.line() == n);
        CHECK(e.field() == "Request throughput (req/s)");
        CHECK(e.reason().find("cut short") != std::string::npos);
        CHECK(e.reason().find("starts at line " + std::to_string(line_number_of(log, "Serving Benchmark Result"))) !=
              std::string::npos);
    }
    SECTION("cut before its closing line") {
        const std::size_t n = line_number_of(log, "P99 ITL (ms):");
        temp_file f(first_lines(log, n), "bench.log");
        const input_error e = read_error(bench_serving_console_format, f.path());
        CHECK(e.line() == n);
        CHECK(e.field() == "result block");
        CHECK(e.reason().find("no closing line") != std::string::npos);
    }
    SECTION("the next run's header before the closing line") {
        const std::size_t n = line_number_of(log, "Median ITL (ms):");
        temp_file f(first_lines(log, n) + log, "bench.log");
        const input_error e = read_error(bench_serving_console_format, f.path());
        CHECK(e.line() == n + 1); // the next run's Namespace line
        CHECK(e.field() == "result block");
    }
}

TEST_CASE("bad values name file, line and row") {
    const std::string log = text_of(mystous / "bench.log");
    SECTION("a row that is no number") {
        std::string changed = log;
        changed.replace(changed.find("51.62"), 5, "fast!");
        temp_file f(changed, "bench.log");
        const input_error e = read_error(bench_serving_console_format, f.path());
        CHECK(e.line() == line_number_of(log, "Benchmark duration (s):"));
        CHECK(e.field() == "Benchmark duration (s)");
        CHECK(e.reason().find("fast!") != std::string::npos);
    }
    SECTION("a count that is no whole number") {
        std::string changed = log;
        changed.replace(changed.find("Total input tokens:                      102400"), 46,
                        "Total input tokens:                      102.5 ");
        temp_file f(changed, "bench.log");
        const input_error e = read_error(bench_serving_console_format, f.path());
        CHECK(e.field() == "Total input tokens");
    }
    SECTION("a setting of the Namespace that is not what it must be") {
        std::string changed = log;
        changed.replace(changed.find("num_prompts=200"), 15, "num_prompts=-3 ");
        temp_file f(changed, "bench.log");
        const input_error e = read_error(bench_serving_console_format, f.path());
        CHECK(e.line() == 1);
        CHECK(e.field() == "num_prompts");
    }
    SECTION("a row given twice") {
        std::string changed = log;
        const std::string row = "Request throughput (req/s):              3.87      \n";
        changed.insert(changed.find(row), row);
        temp_file f(changed, "bench.log");
        const input_error e = read_error(bench_serving_console_format, f.path());
        CHECK(e.field() == "Request throughput (req/s)");
        CHECK(e.reason().find("twice") != std::string::npos);
    }
}

TEST_CASE("a log that never printed its result block holds no run") {
    // The legacy script's Namespace, then numpy's warnings and an IndexError traceback.
    try {
        bench_serving_console_format.read(crashed, {});
        FAIL("no error");
    } catch (const not_a_run_error& e) {
        CHECK(e.line() == 1);
        CHECK(e.reason().find("did not finish") != std::string::npos);
    }
    temp_file prose("tip: install termplotlib and gnuplot to plot the metrics\n", "notes.txt");
    const input_error e = read_error(bench_serving_console_format, prose.path());
    CHECK(e.reason().find("no \"Serving Benchmark Result\" block") != std::string::npos);
    // In a folder the crashed log is no log at all (its legacy Namespace alone is not detected).
    temp_file dir(text_of(crashed), "benchmark_serving.txt");
    write(dir.dir() / "bench.log", text_of(mystous / "bench.log"));
    std::vector<passed_over_file> passed;
    load_options o;
    o.listed = [&](const directory_listing& l) { passed = l.passed_over; };
    CHECK(read_logs(std::vector<std::string>{dir.dir().string()}, o).size() == 1);
    REQUIRE(passed.size() == 1);
    CHECK(passed[0].reason == "no format recognises it");
}

TEST_CASE("a run with no successful request reports no placeholder latencies") {
    temp_file f("Namespace(subparser='bench', bench_type='serve', num_prompts=3, request_rate=inf)\n"
                "============ Serving Benchmark Result ============\n"
                "Successful requests:                     0         \n"
                "Failed requests:                         3         \n"
                "Benchmark duration (s):                  0.52      \n"
                "Total input tokens:                      0         \n"
                "Total generated tokens:                  0         \n"
                "Request throughput (req/s):              0.00      \n"
                "Output token throughput (tok/s):         0.00      \n"
                "---------------Time to First Token----------------\n"
                "Mean TTFT (ms):                          nan       \n"
                "Median TTFT (ms):                        0.00      \n"
                "RTFx (Inverse Real-Time Factor):         1.50      \n"
                "==================================================\n",
                "failed.log");
    const run r = read_one(bench_serving_console_format, f.path());
    check_value(r, "failed", 3);
    CHECK_FALSE(reported(r, "ttft.mean"));
    CHECK_FALSE(reported(r, "ttft.p50"));
    CHECK(has_note(r, "no request completed"));
    CHECK(has_note(r, "not read: RTFx (Inverse Real-Time Factor)"));
}

} // namespace test_ingest_bench_console
