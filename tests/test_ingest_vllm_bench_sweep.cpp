// `vllm bench sweep serve` trees: run=N.json read as vLLM results with their replicate index
// (run_number), summary.json / summary.csv recognised and passed over as copies of them, the
// warm-up and failure records passed over with what they are. Real files: tests/data/vllm_bench_sweep
// (FlashSampling/FlashSampling, README.md there), the expected numbers hand-read from them; the
// generated/ combination is in the sweep's layout with serve parameters, a warm-up and a failure.
#include "servestat/ingest/vllm_bench_sweep.hpp"
#include "servestat/ingest/vllm_bench_sweep_summary.hpp"

#include <filesystem> // std::filesystem
#include <map>        // std::map
#include <string>     // std::string
#include <vector>     // std::vector

#include "servestat/ingest/detect.hpp"          // detect_format, read_logs, load_options, directory_listing
#include "servestat/ingest/sweep_csv.hpp"       // sweep_csv_format
#include "servestat/ingest/vllm_bench_json.hpp" // vllm_bench_json_format

#include "format_reading.hpp" // test::reported, test::has_note, test::read_one, test::file_head, test::read_error
#include "temp_file.hpp"      // test::temp_file
#include <catch2/catch.hpp>   // TEST_CASE, REQUIRE, CHECK, Approx

namespace test_ingest_vllm_bench_sweep { // the unity build compiles several test files as one: each keeps its names

using namespace servestat;
using servestat::test::file_head;
using servestat::test::has_note;
using servestat::test::read_one;
using servestat::test::reported;

namespace {

namespace fs = std::filesystem;
const fs::path tree = fs::path(SERVESTAT_TEST_DATA_DIR) / "vllm_bench_sweep";
const fs::path experiment = tree / "gpt-oss-120b-baseline" / "20260211_140427";
const fs::path generated = tree / "generated" / "SERVE--max_num_seqs=32-BENCH--max_concurrency=8";

fs::path level(int c) {
    return experiment / ("BENCH--max_concurrency=" + std::to_string(c) + "-num_prompts=" + std::to_string(10 * c) +
                         "-request_rate=" + std::to_string(c));
}

} // namespace

TEST_CASE("run=N.json of a sweep are vllm-bench-sweep; its summaries and records are theirs; nothing else fights") {
    for (const int c : {1, 2, 4})
        for (const char* name : {"run=0.json", "run=1.json", "run=2.json"}) {
            INFO(level(c) / name);
            const std::string head = file_head(level(c) / name);
            REQUIRE(detect_format(head));
            CHECK(detect_format(head)->name == "vllm-bench-sweep");
            CHECK(vllm_bench_json_format.sniff(head) > 0); // vLLM's result, and read as one
            CHECK(vllm_bench_sweep_summary_format.sniff(head) == 0);
            const std::string summary = file_head(level(c) / "summary.json");
            REQUIRE(detect_format(summary));
            CHECK(detect_format(summary)->name == "vllm-bench-sweep-summary");
            CHECK(vllm_bench_sweep_format.sniff(summary) == 0);
        }
    const std::string csv = file_head(experiment / "summary.csv");
    REQUIRE(detect_format(csv));
    CHECK(detect_format(csv)->name == "vllm-bench-sweep-summary");
    CHECK(sweep_csv_format.sniff(csv) < vllm_bench_sweep_summary_format.sniff(csv));
    CHECK(detect_format(file_head(generated / "run=1.failure.json"))->name == "vllm-bench-sweep-failure");
    CHECK(detect_format(file_head(generated / "warmup.json"))->name == "vllm-bench-sweep");
    // A vLLM result without the sweep's run_number stays vllm-bench-json's.
    const fs::path plain = fs::path(SERVESTAT_TEST_DATA_DIR) / "vllm_bench_json" / "summary_no_detail.json";
    CHECK(vllm_bench_sweep_format.sniff(file_head(plain)) == 0);
    CHECK(vllm_bench_sweep_summary_format.sniff(file_head(plain)) == 0);
    CHECK(vllm_bench_sweep_failure_format.sniff(file_head(plain)) == 0);
}

TEST_CASE("a run file is vLLM's result with its replicate index as run_number, numbers as the file gives them") {
    const run r = read_one(vllm_bench_sweep_format, level(1) / "run=0.json");
    CHECK(r.meta.kind == run_kind::summary); // saved without --save-detailed
    CHECK(r.meta.source.format == "vllm-bench-json");
    CHECK(r.meta.tool == "vllm bench sweep serve");
    CHECK(r.meta.model == "openai/gpt-oss-120b");
    CHECK(r.meta.started_at == "2026-02-11T14:07:33");
    CHECK(r.meta.label == "BENCH--max_concurrency=1-num_prompts=10-request_rate=1/run=0");
    CHECK(r.meta.params["run_number"] == 0);
    CHECK(r.meta.params["max_concurrency"] == 1);
    CHECK(r.meta.params["num_prompts"] == 10);
    CHECK(r.meta.params["request_rate"] == 1);
    CHECK(has_note(r, "replicate index"));
    CHECK(has_note(r, "vllm bench serve with max_concurrency=1, num_prompts=10, request_rate=1"));
    // Hand-read from the file.
    CHECK(reported(r, "duration") == 16.139943942999707);
    CHECK(reported(r, "ok") == 10);
    CHECK(reported(r, "failed") == 0);
    CHECK(reported(r, "rps") == 0.619580838404166);
    CHECK(reported(r, "output_tps") == 158.6126946314665);
    CHECK(reported(r, "vllm.total_output_tokens") == 2560);
    CHECK(*reported(r, "ttft.mean") == Approx(42.29354679991957e-3).epsilon(1e-15));
    CHECK(*reported(r, "ttft.p99") == Approx(50.272657520035864e-3).epsilon(1e-15));
    CHECK(*reported(r, "tpot.p50") == Approx(5.899975025489517e-3).epsilon(1e-15));
    CHECK(*reported(r, "e2e.p99") == Approx(1551.817523979471e-3).epsilon(1e-15));
    // The same numbers as vllm-bench-json reads from the file: the sweep only adds its keys.
    const run plain = read_one(vllm_bench_json_format, level(1) / "run=0.json");
    CHECK(plain.meta.params == r.meta.params);
    REQUIRE(plain.meta.reported.size() == r.meta.reported.size());
    for (std::size_t i = 0; i < r.meta.reported.size(); ++i) CHECK(plain.meta.reported[i].value == r.meta.reported[i].value);
}

TEST_CASE("each level's replicates differ only in run_number, so they can be taken as one level measured again") {
    const std::map<int, std::vector<double>> rps{{1, {0.619580838404166, 0.6202368276304143, 0.6202476197850662}},
                                                 {2, {1.0541555923264736, 1.0537638680787476, 1.0537648662346915}},
                                                 {4, {1.5507224382645406, 1.5501833851133013, 1.5506255036004968}}};
    for (const auto& [c, expected] : rps)
        for (int n = 0; n < 3; ++n) {
            INFO("c" << c << " run=" << n);
            const run r = read_one(vllm_bench_sweep_format, level(c) / ("run=" + std::to_string(n) + ".json"));
            CHECK(r.meta.params["run_number"] == n);
            CHECK(r.meta.params["max_concurrency"] == c);
            CHECK(reported(r, "rps") == expected[static_cast<std::size_t>(n)]);
            auto others = r.meta.params;
            others.erase("run_number");
            const run first = read_one(vllm_bench_sweep_format, level(c) / "run=0.json");
            auto first_params = first.meta.params;
            first_params.erase("run_number");
            CHECK(others == first_params);
        }
}

TEST_CASE("a folder read takes the nine run files and passes over the summaries with their reason") {
    directory_listing listing;
    load_options o;
    o.listed = [&](const directory_listing& l) { listing = l; };
    const std::vector<std::string> inputs{experiment.string()};
    const auto runs = read_logs(inputs, o);
    REQUIRE(runs.size() == 9);
    std::map<int, int> per_level;
    for (const auto& r : runs) {
        CHECK(r.meta.tool == "vllm bench sweep serve");
        ++per_level[r.meta.params["max_concurrency"].get<int>()];
    }
    CHECK(per_level == std::map<int, int>{{1, 3}, {2, 3}, {4, 3}});
    CHECK(listing.logs == 9);
    REQUIRE(listing.passed_over.size() == 4); // three summary.json, one summary.csv
    for (const auto& p : listing.passed_over) {
        INFO(p.path);
        CHECK((fs::path(p.path).filename() == "summary.json" || fs::path(p.path).filename() == "summary.csv"));
        CHECK(p.reason == "vllm bench sweep's summary of the run=N.json files beside it: derived from them");
    }
}

TEST_CASE("a summary named alone is an error saying what it is") {
    for (const fs::path& file : {level(2) / "summary.json", experiment / "summary.csv"}) {
        INFO(file);
        const std::vector<std::string> inputs{file.string()};
        try {
            read_logs(inputs);
            FAIL("no error");
        } catch (const not_a_run_error& e) {
            CHECK(e.file() == file.string());
            CHECK(e.reason() == "vllm bench sweep's summary of the run=N.json files beside it: derived from them");
        }
    }
    // Nor does the --map suggestion ever see it: detection takes it first.
    CHECK(detect_file_format(experiment / "summary.csv").name == "vllm-bench-sweep-summary");
}

TEST_CASE("a combination with serve parameters: the folder's sides, the warm-up and a failed run passed over") {
    const run r = read_one(vllm_bench_sweep_format, generated / "run=0.json");
    CHECK(r.meta.params["run_number"] == 0);
    CHECK(r.meta.params["max_num_seqs"] == 32);
    CHECK(r.meta.params["max_concurrency"] == 8);
    CHECK(has_note(r, "vllm serve with max_num_seqs=32; vllm bench serve with max_concurrency=8."));
    CHECK(reported(r, "ok") == 80);
    try {
        vllm_bench_sweep_format.read(generated / "warmup.json", {});
        FAIL("no error");
    } catch (const not_a_run_error& e) {
        CHECK(e.field() == "run_number");
        CHECK(e.reason().find("warm-up run (run_number -1") != std::string::npos);
    }
    directory_listing listing;
    load_options o;
    o.listed = [&](const directory_listing& l) { listing = l; };
    const std::vector<std::string> inputs{generated.string()};
    const auto runs = read_logs(inputs, o);
    REQUIRE(runs.size() == 1);
    REQUIRE(listing.passed_over.size() == 2);
    CHECK(fs::path(listing.passed_over[0].path).filename() == "run=1.failure.json");
    CHECK(listing.passed_over[0].reason ==
          "vllm bench sweep's record of a failed run (run_number 1) with max_num_seqs=32; max_concurrency=8: "
          "CalledProcessError: Command '['vllm', 'bench', 'serve', '--max-concurrency', '8']' returned non-zero exit "
          "status 1. (no measured data)");
    CHECK(fs::path(listing.passed_over[1].path).filename() == "warmup.json");
    CHECK(listing.passed_over[1].reason.find("warm-up") != std::string::npos);
}

TEST_CASE("combination folder names: serve and bench sides, names, values with dashes") {
    const auto both = detail::parse_vllm_sweep_folder("SERVE--max_num_seqs=4-BENCH--max_concurrency=2-num_prompts=8");
    REQUIRE(both);
    REQUIRE(both->serve);
    REQUIRE(both->bench);
    CHECK(both->serve->pairs == std::vector<std::pair<std::string, std::string>>{{"max_num_seqs", "4"}});
    CHECK(both->bench->pairs ==
          std::vector<std::pair<std::string, std::string>>{{"max_concurrency", "2"}, {"num_prompts", "8"}});
    const auto named = detail::parse_vllm_sweep_folder("SERVE--fast-BENCH--model=meta-llama-3-max_concurrency=2");
    REQUIRE(named);
    CHECK(named->serve->name == "fast");
    CHECK(named->bench->pairs ==
          std::vector<std::pair<std::string, std::string>>{{"model", "meta-llama-3"}, {"max_concurrency", "2"}});
    CHECK_FALSE(detail::parse_vllm_sweep_folder("conc16"));
    CHECK(detail::vllm_sweep_stem_number("run=12") == 12);
    CHECK_FALSE(detail::vllm_sweep_stem_number("run=x"));
}

TEST_CASE("bad sweep files are errors naming the file and field") {
    std::string text = detail::read_json_file(level(1) / "run=0.json");
    const auto at = text.find("\"run_number\": 0");
    REQUIRE(at != std::string::npos);
    {
        std::string bad = text;
        bad.replace(at, 15, "\"run_number\": 0.5");
        const servestat::test::temp_file f(bad, "run=0.json");
        const input_error e = servestat::test::read_error(vllm_bench_sweep_format, f.path());
        CHECK(e.file() == f.str());
        CHECK(e.field() == "run_number");
    }
    {
        const servestat::test::temp_file f(R"({"run_number": 1, "error_type": 7, "error": "x", "bench_overrides": {}})",
                                           "run=1.failure.json");
        try {
            vllm_bench_sweep_failure_format.read(f.path(), {});
            FAIL("no error");
        } catch (const not_a_run_error&) {
            FAIL("a malformed record is an input error, not a record passed over");
        } catch (const input_error& e) {
            CHECK(e.file() == f.str());
            CHECK(e.line() == 1);
            CHECK(e.field() == "error_type");
        }
    }
    {
        std::string bad = text;
        bad.replace(text.find("\"duration\": "), 12, "\"duration\": \"long\", \"x\": ");
        const servestat::test::temp_file f(bad, "run=0.json");
        CHECK(servestat::test::read_error(vllm_bench_sweep_format, f.path()).field() == "duration");
    }
}

} // namespace test_ingest_vllm_bench_sweep
