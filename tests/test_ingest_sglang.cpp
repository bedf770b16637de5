// SGLang bench_serving result lines (python -m sglang.bench_serving --output-file F [--output-details]):
// one run per appended line, its aggregates reported, its per-request arrays read as records.
// Real files: shared/data/sglang-bench-serving-tonyli15 (SGLang 0.5.5, SOURCE.md's numbers) and
// tests/data/sglang (datacrunch-research/h200-benchmarks, an SGLang of late 2024); the
// --output-details fixture is generated in SGLang's own layout (tests/data/sglang/README.md).
#include "servestat/ingest/sglang_bench_serving.hpp"

#include <filesystem> // std::filesystem::path
#include <string>     // std::string
#include <vector>     // std::vector

#include "servestat/ingest/detect.hpp"          // detect_format
#include "servestat/ingest/json_document.hpp"   // read_json_documents
#include "servestat/ingest/vllm_bench_json.hpp" // vllm_bench_json_format (the sniffers must not fight)
#include "servestat/stats/run_stats.hpp"        // analyze, find_summary

#include "format_reading.hpp" // test::reported, test::has_note, test::read_one, test::file_head
#include "temp_file.hpp"
#include <catch2/catch.hpp>  // TEST_CASE, REQUIRE, CHECK, Approx
#include <nlohmann/json.hpp> // nlohmann::json

namespace test_ingest_sglang { // the unity build compiles several test files as one: each keeps its names

using namespace servestat;
using servestat::test::file_head;
using servestat::test::has_note;
using servestat::test::read_one;
using servestat::test::reported;
using json = nlohmann::json;

namespace {

const std::filesystem::path tonyli = std::filesystem::path(SERVESTAT_SHARED_DATA_DIR) / "sglang-bench-serving-tonyli15";
const std::filesystem::path data = std::filesystem::path(SERVESTAT_TEST_DATA_DIR) / "sglang";

std::vector<run> read_all(const std::filesystem::path& file, read_options options = {}) {
    return sglang_bench_serving_format.read(file, options);
}

// SGLang's value in ms against the reader's in s.
void check_ms(const run& r, const std::string& name, double ms) {
    INFO(name);
    const auto v = reported(r, name);
    REQUIRE(v);
    CHECK(*v * 1e3 == Approx(ms).epsilon(1e-12));
}

} // namespace

TEST_CASE("SGLang result lines are detected as sglang-bench-serving, never as vLLM's result") {
    for (const auto& file : {tonyli / "agg_n100_in512_out128_c8.jsonl", tonyli / "agg_n100_in512_out128_c32.jsonl",
                             data / "llama_3_3_70b_online_output.jsonl", data / "deepseek_dp_mla_output.jsonl",
                             data / "generated_output_details.jsonl", data / "refactored_output.jsonl"}) {
        INFO(file);
        const std::string head = file_head(file);
        REQUIRE(detect_format(head));
        CHECK(detect_format(head)->name == "sglang-bench-serving");
        CHECK(vllm_bench_json_format.sniff(head) == 0);
    }
}

TEST_CASE("a run without --output-details is SGLang's aggregates, reported as SOURCE.md gives them (C=8)") {
    const run r = read_one(sglang_bench_serving_format, tonyli / "agg_n100_in512_out128_c8.jsonl");
    CHECK(r.meta.kind == run_kind::summary);
    CHECK(r.requests.size() == 0);
    CHECK(r.meta.label == "agg_n100_in512_out128_c8"); // its tag
    CHECK(r.meta.model == "Qwen/Qwen2.5-3B-Instruct"); // from server_info
    CHECK(r.meta.params == json{{"backend", "sglang"},      {"dataset_name", "random"}, {"request_rate", "inf"},
                                {"max_concurrency", 8},     {"random_input_len", 512},  {"random_output_len", 128},
                                {"random_range_ratio", 0}});
    CHECK(has_note(r, "request_rate inf"));
    CHECK(has_note(r, "Infinity in field request_rate"));
    CHECK(has_note(r, "ddof 0"));
    // SOURCE.md: completed 100, duration 4.356595 s, 22.953707 req/s, output 1418.539073 tok/s.
    CHECK(reported(r, "ok") == 100);
    CHECK(*reported(r, "duration") == Approx(4.356595).margin(5e-7));
    CHECK(*reported(r, "rps") == Approx(22.953707).margin(5e-7));
    CHECK(*reported(r, "output_tps") == Approx(1418.539073).margin(5e-7));
    // TTFT mean/median/p99 28.438685 / 22.780496 / 53.528566 ms; e2e median/p99 325.104568 / 702.416585 ms;
    // TPOT median 5.100694 ms; ITL median/p95/p99 3.609934 / 17.835393 / 22.366012 ms.
    const auto ms = [&](const char* name) { return *reported(r, name) * 1e3; };
    CHECK(ms("ttft.mean") == Approx(28.438685).margin(5e-7));
    CHECK(ms("ttft.p50") == Approx(22.780496).margin(5e-7));
    CHECK(ms("ttft.p99") == Approx(53.528566).margin(5e-7));
    CHECK(ms("e2e.p50") == Approx(325.104568).margin(5e-7));
    CHECK(ms("e2e.p99") == Approx(702.416585).margin(5e-7));
    CHECK(ms("tpot.p50") == Approx(5.100694).margin(5e-7));
    CHECK(ms("itl.p50") == Approx(3.609934).margin(5e-7));
    CHECK(ms("itl.p95") == Approx(17.835393).margin(5e-7));
    CHECK(ms("itl.p99") == Approx(22.366012).margin(5e-7));
    // The file's own numbers, all of them: ms to s, std tool-named (np.std is ddof 0).
    const json o = detail::read_json_documents(tonyli / "agg_n100_in512_out128_c8.jsonl").front().value;
    for (const auto& [key, name] : {std::pair{"mean_e2e_latency_ms", "e2e.mean"}, std::pair{"std_e2e_latency_ms", "sglang.e2e.std"},
                                    std::pair{"mean_tpot_ms", "tpot.mean"}, std::pair{"p99_tpot_ms", "tpot.p99"},
                                    std::pair{"std_itl_ms", "sglang.itl.std"}, std::pair{"mean_itl_ms", "itl.mean"}})
        check_ms(r, name, o[key].get<double>());
    CHECK(reported(r, "sglang.concurrency") == o["concurrency"].get<double>());
    CHECK(reported(r, "sglang.total_output_tokens_retokenized") == 6179);
    CHECK(reported(r, "total_tps") == o["total_throughput"].get<double>());
    CHECK_FALSE(reported(r, "sglang.accept_length")); // null
    CHECK_FALSE(reported(r, "ttft.std"));             // not servestat's std
}

TEST_CASE("the C=32 run of the same sweep: SOURCE.md's numbers") {
    const run r = read_one(sglang_bench_serving_format, tonyli / "agg_n100_in512_out128_c32.jsonl");
    CHECK(r.meta.params["max_concurrency"] == 32);
    CHECK(*reported(r, "duration") == Approx(1.961009).margin(5e-7));
    CHECK(*reported(r, "rps") == Approx(50.994167).margin(5e-7));
    CHECK(*reported(r, "output_tps") == Approx(3151.439491).margin(5e-7));
    CHECK(*reported(r, "ttft.mean") * 1e3 == Approx(42.448918).margin(5e-7));
    CHECK(*reported(r, "ttft.p50") * 1e3 == Approx(37.136998).margin(5e-7));
    CHECK(*reported(r, "ttft.p99") * 1e3 == Approx(64.620508).margin(5e-7));
    CHECK(*reported(r, "e2e.p50") * 1e3 == Approx(522.697980).margin(5e-7));
    CHECK(*reported(r, "e2e.p99") * 1e3 == Approx(1181.290017).margin(5e-7));
}

TEST_CASE("appended runs of an older SGLang (late 2024): one run per line, named by their settings") {
    const auto runs = read_all(data / "llama_3_3_70b_online_output.jsonl");
    REQUIRE(runs.size() == 7);
    const double rates[] = {1, 2, 4, 8, 16, 4, 8};
    for (std::size_t k = 0; k < runs.size(); ++k) {
        INFO(k);
        const run& r = runs[k];
        CHECK(r.meta.kind == run_kind::summary);
        CHECK(r.meta.source.line == k + 1);
        CHECK(r.meta.params["request_rate"] == rates[k]);
        CHECK_FALSE(r.meta.params.contains("max_concurrency")); // null: not set
        CHECK(r.meta.params["backend"] == "sglang");
    }
    // The sharegpt runs carry SGLang's random_* defaults, which are no parameters of theirs.
    CHECK(runs[0].meta.params["random_input_len"] == 1024);
    CHECK(runs[5].meta.params["dataset_name"] == "sharegpt");
    CHECK_FALSE(runs[5].meta.params.contains("random_input_len"));
    CHECK(has_note(runs[5], "not parameters of this run"));
    CHECK(runs[0].meta.label != runs[1].meta.label);
    // This version saved no request_throughput nor ttft mean: what is there is reported.
    CHECK_FALSE(reported(runs[0], "rps"));
    CHECK(reported(runs[0], "ok") == 300);
    CHECK(reported(runs[0], "duration") == 298.3675805060193);
    check_ms(runs[0], "e2e.mean", 7840.616212638561);
    check_ms(runs[0], "e2e.p50", 7819.046192569658);
    check_ms(runs[0], "ttft.p50", 85.74514742940664);
    check_ms(runs[0], "itl.p50", 13.638956006616354);
    CHECK(reported(runs[4], "output_tps") == 4288.049348197696);
}

TEST_CASE("Python's Infinity as the request rate is read as inf (one line, DeepSeek)") {
    const run r = read_one(sglang_bench_serving_format, data / "deepseek_dp_mla_output.jsonl");
    CHECK(r.meta.params["request_rate"] == "inf");
    CHECK(r.meta.params["random_range_ratio"] == 1);
    CHECK(reported(r, "ok") == 10000);
    check_ms(r, "ttft.p50", 10014.104524045251);
}

TEST_CASE("--output-details: one record per request, no clock, failures with their error text") {
    const run r = read_one(sglang_bench_serving_format, data / "generated_output_details.jsonl");
    CHECK(r.meta.kind == run_kind::requests);
    CHECK_FALSE(r.meta.shared_clock);
    REQUIRE(r.requests.size() == 5);
    const double ttfts[] = {0.0412, 0.0388, 0, 0.0521, 0.0459};
    const int cached[] = {0, 64, 0, 128, 64};
    for (std::size_t i = 0; i < 5; ++i) {
        INFO(i);
        const request_record row = r.requests.row(i);
        CHECK(row.t_sent == 0.0);
        CHECK_FALSE(row.t_end); // SGLang saves no latencies
        CHECK(row.cached_tokens == cached[i]);
        if (i == 2) {
            CHECK(row.status == request_status::transport);
            CHECK(row.error.find("ServerDisconnectedError") != std::string::npos);
            CHECK_FALSE(row.t_first);
            continue;
        }
        CHECK(row.status == request_status::ok);
        CHECK(row.t_first == ttfts[i]);
    }
    CHECK(r.requests.row(3).itl == std::vector<double>{0.0142, 0.0118, 0.0121, 0.0125});
    CHECK(r.requests.row(1).prompt_tokens == 130);
    CHECK(r.requests.row(1).output_tokens == 3);
    CHECK(has_note(r, "no shared clock"));
    // servestat's TTFT and ITL percentiles of the records equal SGLang's own (numpy linear), and
    // numpy's: TTFT p50 of [0.0412, 0.0388, 0.0521, 0.0459] = 0.04355.
    stats_options o;
    o.summary.percentiles = {50, 90, 95, 99};
    const auto stats = analyze(r, o);
    CHECK(stats.ok == 4);
    CHECK(stats.failed == 1);
    CHECK(*find_percentile(stats, "all", metric::ttft, 50) == Approx(0.04355).epsilon(1e-12));
    for (const char* p : {"50", "90", "95", "99"}) {
        INFO(p);
        CHECK(*find_percentile(stats, "all", metric::ttft, std::stod(p)) ==
              Approx(*reported(r, std::string("ttft.p") + p)).epsilon(1e-12));
        CHECK(*find_percentile(stats, "all", metric::itl, std::stod(p)) ==
              Approx(*reported(r, std::string("itl.p") + p)).epsilon(1e-12));
    }
    CHECK(find_summary(stats, "all", metric::e2e)->n == 0);
    // the rates use SGLang's duration (0.5 s): 4 ok / 0.5 s
    REQUIRE(stats.rps);
    CHECK(*stats.rps == Approx(8.0));
    CHECK(reported(r, "sglang.cache_report.total_cached_tokens") == 256);
}

TEST_CASE("SGLang's per-request arrays must be parallel; a bad record names its index") {
    std::string text = detail::read_json_file(data / "generated_output_details.jsonl");
    json o = json::parse(detail::python_words_to_json(text, "1e308"));
    o["request_rate"] = 4;
    o["ttfts"][3] = "soon";
    const test::temp_file bad(o.dump() + "\n", "sglang.jsonl");
    const input_error e = test::read_error(sglang_bench_serving_format, bad.path());
    CHECK(e.field() == "ttfts[3]");
    const run skipped = read_one(sglang_bench_serving_format, bad.path(), {.skip_bad = true});
    CHECK(skipped.requests.size() == 4);
    CHECK(skipped.skipped.count == 1);
    o["ttfts"][3] = 0.05;
    o["cached_tokens"].push_back(1);
    const test::temp_file uneven(o.dump() + "\n", "sglang.jsonl");
    CHECK(test::read_error(sglang_bench_serving_format, uneven.path()).field() == "cached_tokens");
}

TEST_CASE("a NaN statistic (nothing measured) is read as missing with a note, not a refusal") {
    std::string text = detail::read_json_file(tonyli / "agg_n100_in512_out128_c8.jsonl");
    const auto at = text.find("\"mean_ttft_ms\": ") + 16;
    text.replace(at, text.find(',', at) - at, "NaN");
    const test::temp_file f(text, "nan.jsonl");
    const run r = read_one(sglang_bench_serving_format, f.path());
    CHECK_FALSE(reported(r, "ttft.mean"));
    CHECK(reported(r, "ttft.p50"));
    CHECK(has_note(r, "NaN in field mean_ttft_ms read as missing"));
}

// SGLang's refactored benchmark (sgl-project/sglang@6e48df33 python/sglang/benchmark/metrics.py):
// total_input / total_output, *_retokenized throughputs, and --output-details under "details".
// Generated in that layout (tests/data/sglang/README.md): line 1 without details, line 2 with.
TEST_CASE("the refactored benchmark's total_input / total_output are read as the same token sums") {
    const auto runs = read_all(data / "refactored_output.jsonl");
    REQUIRE(runs.size() == 2);
    const run& r = runs[0];
    CHECK(r.meta.kind == run_kind::summary);
    CHECK(r.meta.params["request_rate"] == "inf");
    CHECK(r.meta.params["max_concurrency"] == 4);
    CHECK(has_note(r, "refactored benchmark"));
    // The file's own numbers, hand-read from line 1.
    CHECK(reported(r, "ok") == 4);
    CHECK(reported(r, "duration") == 0.6123);
    CHECK(reported(r, "sglang.total_input_tokens") == 771);
    CHECK(reported(r, "sglang.total_output_tokens") == 25);
    CHECK(reported(r, "sglang.total_output_tokens_retokenized") == 25);
    CHECK(reported(r, "rps") == 6.532745386248571);
    CHECK(reported(r, "sglang.input_throughput") == 1259.186673199412);
    CHECK(reported(r, "output_tps") == 40.829658664053575);
    CHECK(reported(r, "sglang.output_throughput_retokenized") == 40.829658664053575);
    CHECK(reported(r, "total_tps") == 1300.0163318634657);
    CHECK(reported(r, "sglang.total_throughput_retokenized") == 1300.0163318634657);
    check_ms(r, "ttft.mean", 44.375);
    CHECK_FALSE(reported(r, "sglang.accept_length")); // null
    // Every *_ms aggregate of the line, ms to s under servestat's names (std tool-named).
    const json o = detail::read_json_documents(data / "refactored_output.jsonl").front().value;
    for (const auto& [key, name] :
         {std::pair{"median_ttft_ms", "ttft.p50"}, std::pair{"p99_ttft_ms", "ttft.p99"}, std::pair{"std_ttft_ms", "sglang.ttft.std"},
          std::pair{"mean_tpot_ms", "tpot.mean"}, std::pair{"p99_tpot_ms", "tpot.p99"}, std::pair{"mean_itl_ms", "itl.mean"},
          std::pair{"p95_itl_ms", "itl.p95"}, std::pair{"max_itl_ms", "itl.max"}, std::pair{"mean_e2e_latency_ms", "e2e.mean"},
          std::pair{"median_e2e_latency_ms", "e2e.p50"}, std::pair{"p99_e2e_latency_ms", "e2e.p99"}})
        check_ms(r, name, o[key].get<double>());
    CHECK(reported(r, "sglang.concurrency") == o["concurrency"].get<double>());
}

TEST_CASE("the refactored benchmark's details hold the per-request arrays: records equal its aggregates") {
    const auto runs = read_all(data / "refactored_output.jsonl");
    REQUIRE(runs.size() == 2);
    const run& r = runs[1];
    CHECK(r.meta.source.line == 2);
    CHECK(r.meta.kind == run_kind::requests);
    CHECK_FALSE(r.meta.params.contains("max_concurrency")); // null
    REQUIRE(r.requests.size() == 5);
    CHECK(r.requests.row(0).t_first == 0.0412);
    CHECK(r.requests.row(1).prompt_tokens == 231);
    CHECK(r.requests.row(1).output_tokens == 8);
    CHECK(r.requests.row(2).itl == std::vector<double>{0.0141, 0.0144, 0.0144});
    CHECK(r.requests.row(3).status == request_status::transport);
    CHECK(r.requests.row(3).error.find("Server disconnected") != std::string::npos);
    CHECK(reported(r, "sglang.total_output_tokens_retokenized") == 26);
    CHECK(reported(r, "duration") == 2.481);
    stats_options so;
    so.summary.percentiles = {50, 95, 99};
    const auto stats = analyze(r, so);
    CHECK(stats.ok == 4);
    CHECK(stats.failed == 1);
    CHECK(find_summary(stats, "all", metric::ttft)->mean == Approx(*reported(r, "ttft.mean")).epsilon(1e-12));
    CHECK(*find_percentile(stats, "all", metric::ttft, 50) == Approx(*reported(r, "ttft.p50")).epsilon(1e-12));
    CHECK(*find_percentile(stats, "all", metric::ttft, 99) == Approx(*reported(r, "ttft.p99")).epsilon(1e-12));
    CHECK(*find_percentile(stats, "all", metric::itl, 95) == Approx(*reported(r, "itl.p95")).epsilon(1e-12));
    CHECK(*find_percentile(stats, "all", metric::itl, 99) == Approx(*reported(r, "itl.p99")).epsilon(1e-12));
    REQUIRE(stats.rps);
    CHECK(*stats.rps == Approx(4 / 2.481)); // SGLang's duration: no clock of its own
}

TEST_CASE("a bad element under details is an error naming details, its array and index") {
    const auto docs = detail::read_json_documents(data / "refactored_output.jsonl");
    json o = docs.back().value;
    o["details"]["ttfts"][2] = "soon";
    const test::temp_file bad(o.dump() + "\n", "sglang.jsonl");
    const input_error e = test::read_error(sglang_bench_serving_format, bad.path());
    CHECK(e.field() == "details.ttfts[2]");
    CHECK(e.line() == 1);
    CHECK(std::string(e.what()).find("sglang.jsonl") != std::string::npos);
    o["details"]["ttfts"] = json::array({0.1});
    const test::temp_file uneven(o.dump() + "\n", "sglang.jsonl");
    CHECK(test::read_error(sglang_bench_serving_format, uneven.path()).field().starts_with("details."));
    o["details"] = "none";
    const test::temp_file not_object(o.dump() + "\n", "sglang.jsonl");
    CHECK(test::read_error(sglang_bench_serving_format, not_object.path()).field() == "details");
}

} // namespace test_ingest_sglang
