// Aggregate tables their authors wrote (format aggregate-table): one row per run, columns naming
// statistics, throughputs and settings, read as summary runs; and the --map hint, which never maps
// such a column as a per-request field. Real files: tests/data/aggregate_tables (README.md).
#include "servestat/ingest/aggregate_table.hpp"

#include <filesystem> // std::filesystem::path
#include <fstream>    // std::ofstream
#include <string>     // std::string
#include <vector>     // std::vector

#include "servestat/core/errors.hpp"           // not_a_run_error
#include "servestat/ingest/detect.hpp"         // detect_format, read_logs
#include "servestat/ingest/map_suggestion.hpp" // describe_unrecognised_table
#include "servestat/ingest/statistic_column.hpp" // parse_statistic_column, is_statistic_name
#include "servestat/ingest/sweep_csv.hpp"      // sweep_csv_format (keeps its own files)

#include "format_reading.hpp" // test::reported, test::has_note, test::read_error, test::file_head
#include "temp_file.hpp"      // test::temp_file
#include <catch2/catch.hpp>   // TEST_CASE, REQUIRE, CHECK, Approx
#include <nlohmann/json.hpp>  // nlohmann::json

namespace test_ingest_aggregate_tables { // the unity build compiles several test files as one

using namespace servestat;
using servestat::test::file_head;
using servestat::test::has_note;
using servestat::test::read_error;
using servestat::test::reported;
using servestat::test::temp_file;
using json = nlohmann::json;

namespace {

const std::filesystem::path data = std::filesystem::path(SERVESTAT_TEST_DATA_DIR) / "aggregate_tables";

std::vector<run> read_all(const std::filesystem::path& file) { return aggregate_table_format.read(file, {}); }

} // namespace

TEST_CASE("statistic column names: metric, statistic and unit from their words") {
    using detail::parse_statistic_column;
    const auto check = [](std::string_view name, std::string_view metric, std::string_view stat, std::optional<double> unit) {
        INFO(name);
        const auto c = parse_statistic_column(name);
        REQUIRE(c);
        CHECK(c->metric == metric);
        CHECK(c->stat == stat);
        CHECK(c->seconds_per_unit == unit);
    };
    check("TTFT_p50_ms", "ttft", "p50", 1e-3);
    check("e2e_p99", "e2e", "p99", std::nullopt);
    check("mean_ttft_ms", "ttft", "mean", 1e-3);
    check("median_itl", "itl", "p50", std::nullopt);
    check("avg_latency_s", "e2e", "mean", 1.0);
    check("P99 TPOT (ms)", "tpot", "p99", 1e-3);
    check("Median_E2EL_ms", "e2e", "p50", 1e-3);
    check("ttft_p99.9_ms", "ttft", "p99.9", 1e-3);
    check("meanTtftMs", "ttft", "mean", 1e-3);
    check("mean_input_tokens", "prompt_tokens", "mean", std::nullopt);
    // one request's values, settings and throughputs are no statistic column
    for (const std::string_view name : {"ttft_ms", "latency_s", "max_tokens", "request_rate", "output_throughput",
                                        "gpu_utilization_mean_percent", "Output Throughput (tok/s)", "concurrency"}) {
        INFO(name);
        CHECK_FALSE(parse_statistic_column(name));
    }
    CHECK(detail::is_statistic_name("p99"));
    CHECK(detail::is_statistic_name("mean_output_throughput"));
    CHECK_FALSE(detail::is_statistic_name("max_tokens"));
    CHECK_FALSE(detail::is_statistic_name("max"));
}

TEST_CASE("detection: author tables are aggregate-table; other formats' CSVs are not") {
    for (const auto& file : {data / "trtllm_vs_vllm_summary.csv", data / "vllm_serving_lab_summary.csv"}) {
        INFO(file);
        const auto* f = detect_format(file_head(file));
        REQUIRE(f);
        CHECK(f->name == "aggregate-table");
    }
    const std::filesystem::path tests = SERVESTAT_TEST_DATA_DIR;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(tests)) {
        if (entry.path().extension() != ".csv" || entry.path().parent_path().filename() == "aggregate_tables") continue;
        INFO(entry.path());
        const auto* f = detect_format(file_head(entry.path()));
        if (f) CHECK(f->name != "aggregate-table");
    }
    // sweep-csv's own tables stay sweep-csv's
    CHECK(detect_format("concurrency,rps,p99_s\n1,2,3\n")->name == "sweep-csv");
    // per-request logs name a request's own values
    CHECK(aggregate_table_format.sniff("request_id,ttft_ms,latency_ms\n1,2,3\n") == 0);
    CHECK(aggregate_table_format.sniff("ttft_ms,latency_ms\n1,2\n") == 0);
    CHECK(aggregate_table_format.sniff("Metric,avg,min,max,p99\n") == 0);
}

TEST_CASE("Azir111/trtllm-vs-vllm summary.csv: tag, concurrency, qps, out_tok_s and three statistics") {
    const auto runs = read_all(data / "trtllm_vs_vllm_summary.csv");
    REQUIRE(runs.size() == 56);
    const run& r = runs[0];
    CHECK(r.meta.kind == run_kind::summary);
    CHECK(r.meta.source.format == "aggregate-table");
    CHECK(r.meta.source.line == 2);
    CHECK(r.meta.label == "trtllm_fp8 concurrency=1");
    CHECK(r.meta.params == json{{"concurrency", 1}, {"tag", "trtllm_fp8"}});
    // trtllm_fp8,1,0.203,52.0,41.9,19.17,19.85
    CHECK(reported(r, "rps") == 0.203);
    CHECK(reported(r, "output_tps") == 52.0);
    CHECK(*reported(r, "ttft.p50") == Approx(0.0419).epsilon(1e-12));
    CHECK(*reported(r, "tpot.mean") == Approx(0.01917).epsilon(1e-12));
    CHECK(*reported(r, "itl.p95") == Approx(0.01985).epsilon(1e-12));
    CHECK(r.meta.reported.size() == 5);
    CHECK_FALSE(has_note(r, "Columns servestat has no metric for"));
    // the last row: vllm_nvfp4_v2,64,20.59,5271.0,63.6,11.93,13.21
    const run& last = runs.back();
    CHECK(last.meta.source.line == 57);
    CHECK(last.meta.params == json{{"concurrency", 64}, {"tag", "vllm_nvfp4_v2"}});
    CHECK(*reported(last, "ttft.p50") == Approx(0.0636).epsilon(1e-12));
    CHECK(reported(last, "output_tps") == 5271.0);
}

TEST_CASE("Atirian-Chen/vllm-serving-lab summary.csv: text settings, empty cells, unmapped columns kept") {
    const auto runs = read_all(data / "vllm_serving_lab_summary.csv");
    REQUIRE(runs.size() == 6);
    const run& r = runs[0];
    // config differs in every row: it names the run (its label), it is no setting
    CHECK(r.meta.label == "cb_serial");
    CHECK(r.meta.workload == "mixed");
    CHECK(r.meta.params == json{{"concurrency", 8}, {"prefix_caching", "False"}, {"runs", 3}, {"server_max_num_seqs", 1}});
    // so cb_scale_1, cb_scale_4 and cb_batch are one configuration at concurrency 1, 4 and 8
    CHECK(runs[2].meta.params == json{{"concurrency", 1}, {"prefix_caching", "False"}, {"runs", 3}, {"server_max_num_seqs", 8}});
    CHECK(runs[1].meta.params == json{{"concurrency", 8}, {"prefix_caching", "False"}, {"runs", 3}, {"server_max_num_seqs", 8}});
    // cb_serial,...,0.1451,84.2382,9.2846,46824.821,55439.062,53113.019,62087.945,102.886,122.475,7948.0,97.897
    CHECK(reported(r, "rps") == 0.1451);
    CHECK(reported(r, "output_tps") == 9.2846);
    CHECK(*reported(r, "ttft.p50") == Approx(46.824821).epsilon(1e-12));
    CHECK(*reported(r, "e2e.p95") == Approx(62.087945).epsilon(1e-12)); // latency_p95_ms
    CHECK(*reported(r, "tpot.p50") == Approx(0.102886).epsilon(1e-12));
    // nothing servestat knows: kept under table.<column>, in the table's unit, and named
    CHECK(reported(r, "table.effective_input_tokens_per_s") == 84.2382);
    CHECK(reported(r, "table.success_rate") == 1.0);
    CHECK(reported(r, "table.gpu_memory_peak_mib") == 7948.0);
    CHECK(has_note(r, "success_rate, effective_input_tokens_per_s, gpu_memory_peak_mib, gpu_utilization_mean_percent"));
    // cb_scale_4 leaves the GPU columns empty: absent, not zero
    const run& scale4 = runs[3];
    CHECK(scale4.meta.params["concurrency"] == 4);
    CHECK_FALSE(reported(scale4, "table.gpu_memory_peak_mib"));
    CHECK(runs[5].meta.params["prefix_caching"] == "True");
    CHECK(runs[5].meta.workload == "shared-prefix");
}

TEST_CASE("a table of runs whose own files lie beside it is derived, and passed over in a folder") {
    temp_file sweep("", "README.md"); // the sweep's folder: agentic_aggregated/summary.csv in it
    const auto table = sweep.dir() / "agentic_aggregated" / "summary.csv";
    std::filesystem::create_directories(table.parent_path());
    std::ofstream(table) << "exp_name,conc,status,p50_ttft_ms\nagentic_model_conc1_run01,1,SUCCESS,12.5\n"
                            "agentic_model_conc2_run02,2,FAILED,13.5\n";
    // alone it is a table of two runs, named by exp_name, the failed one marked
    auto runs = read_all(table);
    REQUIRE(runs.size() == 2);
    CHECK(runs[0].meta.label == "agentic_model_conc1_run01");
    CHECK(runs[0].meta.params == json{{"concurrency", 1}});
    CHECK(has_note(runs[1], "marks this run FAILED"));
    CHECK_FALSE(has_note(runs[0], "marks this run"));
    // with the runs' own folders beside it, it only repeats them
    std::filesystem::create_directories(sweep.dir() / "bmk_agentic_model_conc1_run01");
    std::filesystem::create_directories(sweep.dir() / "bmk_agentic_model_conc2_run02");
    try {
        read_all(table);
        FAIL("no not_a_run_error");
    } catch (const not_a_run_error& e) {
        CHECK(std::string(e.what()).find("derived") != std::string::npos);
    }
}

TEST_CASE("a folder with an author table reads a run per row") {
    const auto runs = read_logs(std::vector<std::string>{(data / "trtllm_vs_vllm_summary.csv").string()});
    CHECK(runs.size() == 56);
}

TEST_CASE("spelled-out headers, units guessed from the table, counts and models") {
    temp_file f("Model,Concurrency,Successful requests,Failed,Request throughput (req/s),Output Throughput (tok/s),"
                "Mean TTFT (ms),P99 TTFT (ms),median_itl,Benchmark duration (s)\n"
                "llama-8b,16,100,2,5.5,1200.5,45.5,90.25,8.5,18.2\n",
                "table.csv");
    REQUIRE(detect_format(file_head(f.path())));
    CHECK(detect_format(file_head(f.path()))->name == "aggregate-table");
    const auto runs = read_all(f.path());
    REQUIRE(runs.size() == 1);
    const run& r = runs[0];
    CHECK(r.meta.model == "llama-8b");
    CHECK(r.meta.params == json{{"concurrency", 16}});
    CHECK(reported(r, "ok") == 100);
    CHECK(reported(r, "failed") == 2);
    CHECK(reported(r, "rps") == 5.5);
    CHECK(reported(r, "output_tps") == 1200.5);
    CHECK(reported(r, "duration") == 18.2);
    CHECK(*reported(r, "ttft.mean") == Approx(0.0455).epsilon(1e-12));
    CHECK(*reported(r, "ttft.p99") == Approx(0.09025).epsilon(1e-12));
    // median_itl names no unit: the other latency columns are in ms
    CHECK(*reported(r, "itl.p50") == Approx(0.0085).epsilon(1e-12));
    CHECK(has_note(r, "median_itl names no unit: taken in ms"));
}

TEST_CASE("no unit anywhere: guessed from the values, and said") {
    temp_file f("concurrency,e2e_p99,tpot_mean\n1,2.5,0.012\n2,3.5,0.015\n", "t.csv");
    const auto runs = read_all(f.path());
    REQUIRE(runs.size() == 2);
    CHECK(reported(runs[0], "e2e.p99") == 2.5);
    CHECK(reported(runs[0], "tpot.mean") == 0.012);
    CHECK(has_note(runs[0], "e2e_p99 names no unit: guessed s"));
}

TEST_CASE("bad aggregate tables name file, line and column") {
    {
        temp_file f("concurrency,ttft_p50_ms\n1,12\n2,fast\n", "t.csv");
        const auto e = read_error(aggregate_table_format, f.path());
        CHECK(e.line() == 3);
        CHECK(e.field() == "ttft_p50_ms");
    }
    {
        temp_file f("concurrency,ttft_p50_ms\n1,-12\n", "t.csv");
        const auto e = read_error(aggregate_table_format, f.path());
        CHECK(e.line() == 2);
        CHECK(std::string(e.what()).find(">= 0") != std::string::npos);
    }
    {
        temp_file f("concurrency,ttft_p50_ms,completed\n1,12,3.5\n", "t.csv");
        CHECK(read_error(aggregate_table_format, f.path()).field() == "completed");
    }
    {
        temp_file f("concurrency,ttft_p50_ms\n1,12,7\n", "t.csv");
        CHECK(read_error(aggregate_table_format, f.path()).line() == 2);
    }
    {
        temp_file f("concurrency,ttft_p50_ms\n", "t.csv");
        CHECK(std::string(read_error(aggregate_table_format, f.path()).what()).find("no rows") != std::string::npos);
    }
}

TEST_CASE("the --map hint calls a table of statistics aggregates and never maps a statistic column") {
    {
        temp_file f("name,p50,p99,mean\nrun1,1.5,2.5,1.7\nrun2,1.6,2.9,1.8\n", "stats.csv");
        REQUIRE_FALSE(detect_format(file_head(f.path())));
        const auto message = detail::describe_unrecognised_table(f.path(), file_head(f.path()), 65536);
        REQUIRE(message);
        CHECK(message->find("table of aggregates") != std::string::npos);
        CHECK(message->find("--map '") == std::string::npos);
    }
    {
        temp_file f("start_time,end_time,mean_itl_ms,output_tokens\n1700000000.5,1700000001.5,12.5,20\n"
                    "1700000002.5,1700000003.0,13.5,22\n",
                    "requests.csv");
        const auto message = detail::describe_unrecognised_table(f.path(), file_head(f.path()), 65536);
        REQUIRE(message);
        CHECK(message->find("--map '") != std::string::npos);
        CHECK(message->find("mean_itl_ms") == message->rfind("mean_itl_ms")); // listed once, never mapped
        CHECK(message->find("=mean_itl_ms") == std::string::npos);
    }
}

} // namespace test_ingest_aggregate_tables
