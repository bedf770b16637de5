// Tests for servestat/ingest/sweep_csv.hpp: aggregate sweep tables, one summary run per load level.
// tests/data/sweep/bad_unfair_exp3.csv transcribes the notebook's Experiment 3 table (README there).
#include "servestat/ingest/sweep_csv.hpp"

#include <string>      // std::string
#include <string_view> // std::string_view

#include "format_fixtures.hpp"
#include "temp_file.hpp"

#include <catch2/catch.hpp> // TEST_CASE, CHECK, REQUIRE

namespace test_ingest_sweep_csv { // the unity build compiles several test files as one: each keeps its names

namespace {

using servestat::input_error;
using servestat::run;
using servestat::sweep_csv_format;
using servestat::test::temp_file;

std::optional<double> reported(const run& r, std::string_view name) {
    if (const auto* v = servestat::find_reported(r.meta, name)) return v->value;
    return std::nullopt;
}

std::string fixture_path() { return std::string(SERVESTAT_TEST_DATA_DIR).append("/sweep/bad_unfair_exp3.csv"); }

} // namespace

TEST_CASE("each row of a sweep table is a summary run with its load level as a parameter") {
    const auto runs = sweep_csv_format.read(fixture_path(), {});
    REQUIRE(runs.size() == 8);
    CHECK(runs[4].meta.kind == servestat::run_kind::summary);
    CHECK(runs[4].meta.params == nlohmann::json{{"concurrency", 16}, {"label", "BAD_unfair"}});
    CHECK(runs[4].meta.label == "BAD_unfair concurrency=16");
    CHECK(runs[4].meta.workload == "mix_50_50.jsonl");
    CHECK(runs[4].requests.empty());
}

TEST_CASE("a sweep table's columns become reported values in seconds, subsets as prefixes") {
    const auto runs = sweep_csv_format.read(fixture_path(), {});
    const run& c64 = runs[7];
    CHECK(reported(c64, "rps") == 5.817353);
    CHECK(reported(c64, "e2e.p99") == 21.667766);
    CHECK(reported(c64, "e2e.mean") == 10.589799);
    CHECK(reported(c64, "short.e2e.p99") == 15.790760);
    CHECK(reported(c64, "long.e2e.p99") == 21.937133);
    CHECK(reported(c64, "requests") == 200);
    CHECK(reported(c64, "duration") == 34.379898);
    CHECK_FALSE(reported(runs[0], "long.e2e.p99").has_value()); // an empty cell is absent
}

TEST_CASE("millisecond columns, metric names and the notebook's grid names are read") {
    const temp_file file("max_num_seqs,concurrency,rps,ttft_p99_ms,short_tpot_p50_ms,overall_p99,long_p99,status\n"
                         "16,32,4.5,1250,20,9.5,12.25,ok\n"
                         "32,32,,,,,,server failed\n",
                         "grid.csv");
    const auto runs = sweep_csv_format.read(file.path(), {});
    REQUIRE(runs.size() == 2);
    CHECK(runs[0].meta.params == nlohmann::json{{"concurrency", 32}, {"max_num_seqs", 16}});
    CHECK(reported(runs[0], "ttft.p99") == 1.25);
    CHECK(reported(runs[0], "short.tpot.p50") == 0.02);
    CHECK(reported(runs[0], "e2e.p99") == 9.5);
    CHECK(reported(runs[0], "long.e2e.p99") == 12.25);
    CHECK(runs[1].meta.reported.empty());
    CHECK(runs[1].meta.notes.back() == "this load level did not complete: status server failed");
}

TEST_CASE("a bad cell in a sweep table names its line and column") {
    const temp_file file("concurrency,rps,p99_s\n1,1.5,0.5\n2,fast,0.7\n", "sweep.csv");
    try {
        sweep_csv_format.read(file.path(), {});
        FAIL("no input_error");
    } catch (const input_error& e) {
        CHECK(e.line() == 3);
        CHECK(e.field() == "rps");
    }
    const temp_file negative("concurrency,rps,p99_s\n1,1.5,-0.5\n", "sweep.csv");
    CHECK_THROWS_AS(sweep_csv_format.read(negative.path(), {}), input_error);
}

TEST_CASE("a table without a load parameter or without latency is not a sweep table") {
    CHECK(sweep_csv_format.sniff("concurrency,rps,p99_s\n1,2,3\n") > 0);
    CHECK(sweep_csv_format.sniff("label,rps,p99_s\nx,2,3\n") == 0);
    CHECK(sweep_csv_format.sniff("concurrency,rps,wall_time_s\n1,2,3\n") == 0);
    CHECK(sweep_csv_format.sniff(",latency_s,ok,status_code\n0,1.5,True,200\n") == 0);
    const temp_file file("label,rps,p99_s\nx,2,3\n", "sweep.csv");
    CHECK_THROWS_WITH(sweep_csv_format.read(file.path(), {}), Catch::Contains("no load parameter column"));
}

} // namespace test_ingest_sweep_csv
