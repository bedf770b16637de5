// A table of runs beside the runs' own result files, whose rows restate them (an author's CSV of the
// sweep), is read once: the rows that restate a run are passed over as gathered from the files, the
// others stay runs of their own. The result files are three real `vllm bench serve` JSONs of the
// corpus set vllm-tsho-gpu-tpu-sessions; the tables are written here, their values taken from those
// files' own aggregates (request_throughput, output_throughput, median_ttft_ms, p99_tpot_ms …).
#include "servestat/ingest/restated_run.hpp"

#include <filesystem> // std::filesystem
#include <fstream>    // std::ofstream
#include <string>     // std::string
#include <vector>     // std::vector

#include "servestat/ingest/detect.hpp" // detail::read_directory, load_options, passed_over_file

#include <catch2/catch.hpp> // TEST_CASE, REQUIRE, CHECK

#include "temp_file.hpp" // temp_file
#include "folder_reading.hpp" // test::read_folder

namespace test_restated_run {

using namespace servestat;
namespace fs = std::filesystem;

namespace {

const fs::path gpu = fs::path(SERVESTAT_CORPUS_DIR) / "vllm-tsho-gpu-tpu-sessions" / "vllm-bench-gpu" / "bench-results" /
                     "20260427-104816-gemma4-gpu";

using test::read_folder;

// Three rate levels of the short profile, copied beside a table written as `table`.
fs::path folder_with(const test::temp_file& base, const std::string& table) {
    const fs::path dir = base.dir() / "sweep";
    fs::create_directories(dir);
    for (const char* rate : {"1", "2", "4"}) {
        const std::string name = std::string("result-short-rate") + rate + ".json";
        fs::copy_file(gpu / name, dir / name);
    }
    std::ofstream(dir / "summary.csv") << table;
    return dir;
}

const std::string header = "profile,rate,req/s,out_tok/s,total_tok/s,TTFT_p50_ms,TTFT_p99_ms,TPOT_p50_ms,TPOT_p99_ms\n";

} // namespace

TEST_CASE("a table whose every row restates a result file beside it is passed over as gathered from them") {
    test::temp_file base("", "unused");
    // The files' own values, as the authors' table prints them (rounded to what a reader sees).
    const auto dir = folder_with(base, header +
                                           "short,1,0.993,254.22,1271.09,248.61,554.95,33.566,44.300\n"
                                           "short,2,1.9694,504.17,2520.84,291.32,911.48,55.434,74.727\n"
                                           "short,4,2.5625,656.01,3280.06,86708.97,131206.61,116.67,120.44\n");
    const auto read = read_folder(dir);
    CHECK(read.runs.size() == 3);
    for (const auto& r : read.runs) CHECK(fs::path(r.meta.source.path).extension() == ".json");
    REQUIRE(read.passed.size() == 1);
    CHECK(fs::path(read.passed[0].path).filename() == "summary.csv");
    CHECK(read.passed[0].reason ==
          "gathered from the runs' own files: its 3 rows restate the values of result-short-rate1.json and 2 more");
}

TEST_CASE("a row that restates no file is a run of its own, and the table says which rows were copies") {
    test::temp_file base("", "unused");
    const auto dir = folder_with(base, header +
                                           "short,1,0.993,254.22,1271.09,248.61,554.95,33.566,44.300\n"
                                           "short,2,1.9694,504.17,2520.84,291.32,911.48,55.434,74.727\n"
                                           "short,8,2.8845,738.44,3692.18,99110.08,212300.84,115.37,125.62\n");
    const auto read = read_folder(dir);
    CHECK(read.runs.size() == 4); // three files and the rate-8 row, measured nowhere else here
    REQUIRE(read.passed.size() == 1);
    CHECK(read.passed[0].reason == "gathered from the runs' own files: 2 of its rows restate the values of "
                                   "result-short-rate1.json and 1 more (its other rows are runs of their own)");
}

TEST_CASE("a row restates a run only where three measured values or more agree and none differs") {
    const run_values r{"/s/a.json", {{"rps", 2.0}, {"ttft.p50", 0.25}, {"tpot.p99", 0.044}, {"output_tps", 500.0}}};
    CHECK(restates({"/s/t.csv", {{"rps", 2.004}, {"ttft.p50", 0.2505}, {"tpot.p99", 0.0441}}}, r));
    CHECK_FALSE(restates({"/s/t.csv", {{"rps", 2.0}, {"ttft.p50", 0.25}}}, r));                          // two agree: too few
    CHECK_FALSE(restates({"/s/t.csv", {{"rps", 2.0}, {"ttft.p50", 0.25}, {"tpot.p99", 0.05}}}, r)); // one differs: another run
    // Counts, token sizes and zeros are alike in runs of one workload, and in dead runs: no evidence.
    const run_values counted{"/s/b.json", {{"ok", 100.0}, {"failed", 0.0}, {"requests", 100.0}, {"vllm.total_input_tokens", 51200.0},
                                           {"rps", 0.0}, {"ttft.p50", 0.0}}};
    CHECK_FALSE(restates(counted, counted));
    std::set<std::size_t> taken;
    const std::vector<run_values> runs = {r, r};
    const run_values row{"/s/t.csv", {{"rps", 2.0}, {"ttft.p50", 0.25}, {"tpot.p99", 0.044}}};
    CHECK(restated_run(row, runs, taken) == 0u);
    CHECK(restated_run(row, runs, taken) == 1u); // each run is restated by one row at most
    CHECK_FALSE(restated_run(row, runs, taken));
}

} // namespace test_restated_run
