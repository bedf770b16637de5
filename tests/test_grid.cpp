// Tests for servestat/sweep/grid.hpp: finding two-parameter grids among runs, reading --sweet-spot
// constraints, and picking the sweet spot of the synthetic Experiment 4 grid
// (tests/data/sweep/grid_exp4.csv; its README says how it was made).
#include "servestat/sweep/grid.hpp"

#include <span>   // std::span
#include <string> // std::string
#include <tuple>  // std::tuple
#include <vector> // std::vector

#include "servestat/ingest/detect.hpp"    // read_logs
#include "servestat/ingest/sweep_csv.hpp" // sweep_csv_format

#include <catch2/catch.hpp> // TEST_CASE, CHECK, REQUIRE, Catch::Contains

namespace test_grid { // the unity build compiles several test files as one: each keeps its names

namespace {

using servestat::grid_cell;
using servestat::run_stats;

std::vector<run_stats> read_sweep_table(const char* name) {
    std::vector<run_stats> out;
    for (const auto& r : servestat::sweep_csv_format.read(std::string(SERVESTAT_TEST_DATA_DIR) + "/sweep/" + name, {}))
        out.push_back(servestat::analyze(r));
    return out;
}

std::vector<run_stats> exp4() { return read_sweep_table("grid_exp4.csv"); }

// A summary run with the tool's own numbers, as an aggregate table gives them.
run_stats summary_run(nlohmann::json params, std::vector<servestat::reported_value> reported = {},
                      std::string workload = "mix_50_50") {
    run_stats r;
    r.meta.params = std::move(params);
    r.meta.workload = std::move(workload);
    r.meta.source.format = "sweep-csv";
    r.meta.kind = servestat::run_kind::summary;
    r.meta.reported = std::move(reported);
    return r;
}

std::vector<run_stats> two_by_two(nlohmann::json extra = nlohmann::json::object()) {
    std::vector<run_stats> runs;
    for (int seqs : {16, 32})
        for (int c : {1, 4}) {
            nlohmann::json params = extra;
            params["concurrency"] = c;
            params["max_num_seqs"] = seqs;
            runs.push_back(summary_run(params));
        }
    return runs;
}

} // namespace

TEST_CASE("the Experiment 4 table is one max_num_seqs × concurrency grid with an empty cell") {
    const auto runs = exp4();
    REQUIRE(runs.size() == 19);
    const auto grids = servestat::find_grids(runs);
    REQUIRE(grids.size() == 1);
    const auto& g = grids[0];
    CHECK(g.column_param == "concurrency"); // the load parameter, as find_sweeps would choose it
    CHECK(g.row_param == "max_num_seqs");
    CHECK(g.group.empty());
    CHECK(g.rows == std::vector<double>{16, 32, 48, 64});
    CHECK(g.columns == std::vector<double>{1, 4, 16, 32, 64});
    REQUIRE(g.cells.size() == 4);
    REQUIRE(g.cells[3].size() == 5);
    CHECK(g.cells[0][0] == 0u);  // the CSV's first row: concurrency 1, max_num_seqs 16
    CHECK(g.cells[1][3] == 8u);  // concurrency 32, max_num_seqs 32: the 9th row
    CHECK_FALSE(g.cells[3][2]);  // max_num_seqs 64 × concurrency 16 was left out of the file
    CHECK(g.cells[3][3] == 17u); // so max_num_seqs 64's rows are 15, 16, 17, 18
    CHECK(g.cells[3][4] == 18u);
    std::size_t filled = 0;
    for (const auto& row : g.cells)
        for (const auto& cell : row) filled += cell.has_value();
    CHECK(filled == 19);
}

TEST_CASE("the option --sweep-by chooses the grid's column; a parameter that does not vary makes no grid") {
    const auto runs = exp4();
    const auto by_seqs = servestat::find_grids(runs, {.by = "max_num_seqs"});
    REQUIRE(by_seqs.size() == 1);
    CHECK(by_seqs[0].column_param == "max_num_seqs");
    CHECK(by_seqs[0].row_param == "concurrency");
    CHECK(by_seqs[0].rows == std::vector<double>{1, 4, 16, 32, 64});
    CHECK_FALSE(by_seqs[0].cells[2][3]); // now concurrency 16 (row 2) × max_num_seqs 64 (column 3)
    CHECK(servestat::find_grids(runs, {.by = "request_rate"}).empty());
}

TEST_CASE("a sweep is not a grid: one varying parameter, or a second with a single value") {
    CHECK(servestat::find_grids(read_sweep_table("bad_unfair_exp3.csv")).empty());
    // max_num_seqs is missing in one run, so it "varies", but it has one value: 1 row × 3 columns.
    const std::vector<run_stats> runs{summary_run({{"concurrency", 1}, {"max_num_seqs", 16}}),
                                      summary_run({{"concurrency", 4}, {"max_num_seqs", 16}}),
                                      summary_run({{"concurrency", 8}})};
    CHECK(servestat::find_grids(runs).empty());
    CHECK(servestat::find_grids(std::vector<run_stats>{}).empty());
}

TEST_CASE("three varying numeric parameters make no grid, even with --sweep-by") {
    // Decision (docs/sweeps.md): with concurrency, max_num_seqs and max_num_batched_tokens varying,
    // which of the two non-load parameters is the row and which splits the grids would be a guess.
    std::vector<run_stats> runs;
    for (int btok : {512, 1024})
        for (const auto& r : two_by_two({{"max_num_batched_tokens", btok}})) runs.push_back(r);
    CHECK(servestat::find_grids(runs).empty());
    CHECK(servestat::find_grids(runs, {.by = "concurrency"}).empty());
    CHECK(servestat::find_grids(runs, {.by = "max_num_batched_tokens"}).empty());
}

TEST_CASE("a parameter that is not a number splits the runs into one grid per value") {
    std::vector<run_stats> runs;
    for (const char* deployment : {"GPU1", "GPU2_TP2"})
        for (const auto& r : two_by_two({{"deployment", deployment}})) runs.push_back(r);
    const auto grids = servestat::find_grids(runs);
    REQUIRE(grids.size() == 2);
    CHECK(grids[0].group == "deployment=GPU1");
    CHECK(grids[1].group == "deployment=GPU2_TP2");
    CHECK(grids[1].cells[0][0] == 4u);
    // One deployment alone: the name does not vary, so it names nothing.
    CHECK(servestat::find_grids(std::span(runs).first(4)).front().group.empty());
}

TEST_CASE("workloads never share a grid, and a combination measured twice keeps its first run") {
    auto runs = two_by_two();
    for (auto r : two_by_two()) {
        r.meta.workload = "short_only";
        runs.push_back(r);
    }
    runs.push_back(runs[3]); // max_num_seqs 32 × concurrency 4 again
    const auto grids = servestat::find_grids(runs);
    REQUIRE(grids.size() == 2);
    CHECK(grids[0].group == "workload=mix_50_50");
    CHECK(grids[1].group == "workload=short_only");
    CHECK(grids[0].cells[1][1] == 3u);
    CHECK(grids[1].cells[1][1] == 7u);
}

TEST_CASE("LLMPerf on one GPU: concurrency × mean_input_tokens is a grid; three deployments make three") {
    const std::string base = std::string(SERVESTAT_SHARED_DATA_DIR) + "/llmperf-sglang-sweep-hongxuanzhang/result_outputs/";
    std::vector<run_stats> gpu1;
    for (const auto& r : servestat::read_logs(std::vector<std::string>{base + "GPU1"})) gpu1.push_back(servestat::analyze(r));
    REQUIRE(gpu1.size() == 18); // requests_{1,2,4,8,16,20}_tokens_{550,1000,3500}.txt
    const auto grids = servestat::find_grids(gpu1);
    REQUIRE(grids.size() == 1);
    CHECK(grids[0].column_param == "concurrency");
    CHECK(grids[0].row_param == "mean_input_tokens");
    CHECK(grids[0].group.empty()); // deployment is GPU1 in every run
    CHECK(grids[0].rows == std::vector<double>{550, 1000, 3500});
    CHECK(grids[0].columns == std::vector<double>{1, 2, 4, 8, 16, 20});
    for (const auto& row : grids[0].cells)
        for (const auto& cell : row) CHECK(cell.has_value());

    std::vector<run_stats> all;
    for (const auto& r : servestat::read_logs(std::vector<std::string>{base + "GPU1", base + "GPU2_DP2", base + "GPU2_TP2"}))
        all.push_back(servestat::analyze(r));
    const auto per_deployment = servestat::find_grids(all);
    REQUIRE(per_deployment.size() == 3);
    CHECK(per_deployment[0].group == "deployment=GPU1");
    CHECK(per_deployment[2].group == "deployment=GPU2_TP2");
}

TEST_CASE("constraints are read with their operator and limit") {
    const auto c = servestat::parse_constraints("short.e2e.p99<=2, e2e.p99 <= 10,success_rate>=0.99,long.ttft.p99.9<=30");
    REQUIRE(c.size() == 4);
    CHECK(c[0].value == "short.e2e.p99");
    CHECK(c[0].max == 2);
    CHECK_FALSE(c[0].at_least);
    CHECK(c[1].value == "e2e.p99");
    CHECK(c[1].max == 10);
    CHECK(c[2].value == "success_rate");
    CHECK(c[2].max == 0.99);
    CHECK(c[2].at_least);
    CHECK(c[3].value == "long.ttft.p99.9");
    CHECK(servestat::to_string(c[2]) == "success_rate>=0.99");
    CHECK(servestat::to_string(c[1]) == "e2e.p99<=10");
}

TEST_CASE("bad constraints are usage errors that say what is wrong") {
    using servestat::parse_constraints;
    using Catch::Contains;
    CHECK_THROWS_WITH(parse_constraints("short.e2e.p99<2"), Contains("unknown operator '<'"));
    CHECK_THROWS_WITH(parse_constraints("short.e2e.p99=2"), Contains("unknown operator '='"));
    CHECK_THROWS_WITH(parse_constraints("e2e.p99=<2"), Contains("unknown operator '=<'"));
    CHECK_THROWS_WITH(parse_constraints("e2e.p99<=two"), Contains("'two' is not a number"));
    CHECK_THROWS_WITH(parse_constraints("e2e.p99<=2s"), Contains("'2s' is not a number"));
    CHECK_THROWS_WITH(parse_constraints("e2e.p99<="), Contains("'' is not a number"));
    CHECK_THROWS_WITH(parse_constraints("e2e.p99<=inf"), Contains("is not a number"));
    CHECK_THROWS_WITH(parse_constraints("shrt.e2e.p99<=2"), Contains("unknown value 'shrt.e2e.p99'"));
    CHECK_THROWS_WITH(parse_constraints("p99<=2"), Contains("unknown value 'p99'"));
    CHECK_THROWS_WITH(parse_constraints("e2e.p101<=2"), Contains("unknown value"));
    CHECK_THROWS_WITH(parse_constraints("throughput>=10"), Contains("unknown value 'throughput'"));
    CHECK_THROWS_WITH(parse_constraints("short.e2e.p99"), Contains("expected VALUE<=LIMIT"));
    CHECK_THROWS_WITH(parse_constraints("e2e.p99<=2,,rps>=1"), Contains("empty constraint"));
    CHECK_THROWS_WITH(parse_constraints(" "), Contains("no constraint given"));
    CHECK_THROWS_AS(parse_constraints("e2e.p99<2"), servestat::usage_error);
}

// The grid_exp4.csv values the sweet-spot cases below are derived from (rows max_num_seqs,
// columns concurrency; "-" = the missing cell):
//
//   rps        1     4     16     32     64       short p99   1     4     16    32    64
//   16       1.32  4.60  10.90  12.90  13.40      16        0.46  0.80  1.30  1.75  2.05
//   32       1.32  4.66  11.20  15.40  16.10      32        0.46  0.82  1.38  1.93  2.32
//   48       1.31  4.70  11.40  15.90  17.60      48        0.47  0.85  1.45  2.08  2.61
//   64       1.31  4.72   -     16.30  18.80      64        0.47  0.88   -    2.21  2.90
//
//   e2e p99: 16: 1.30 2.40 4.10 6.20 9.10 / 32: 1.31 2.45 4.30 6.80 10.40 / 48: 1.31 2.50 4.40 7.30
//   11.60 / 64: 1.32 2.55 - 7.90 12.80. Success rate 1 except 48×64 (199/200 = 0.995) and 64×64
//   (194/200 = 0.97).
//
// Cells by rps, highest first: 64×64 18.80, 48×64 17.60, 64×32 16.30, 32×64 16.10, 48×32 15.90,
// 32×32 15.40, 16×64 13.40, 16×32 12.90, 48×16 11.40, 32×16 11.20, 16×16 10.90, ...
// (indices: row 0..3 = max_num_seqs 16, 32, 48, 64; column 0..4 = concurrency 1, 4, 16, 32, 64).

TEST_CASE("sweet spot under short.e2e.p99<=2: the tail limit binds") {
    // Down the rps ranking: 64×64 (short p99 2.90), 48×64 (2.61), 64×32 (2.21), 32×64 (2.32) and
    // 48×32 (2.08) exceed 2 s; 32×32 (1.93) is the first to meet it → best. Next: 16×64 (2.05)
    // fails, 16×32 (1.75) meets → runner-up. The highest-rps cell above the best is 64×64, stopped
    // by short.e2e.p99<=2.
    const auto runs = exp4();
    const auto g = servestat::find_grids(runs).front();
    const auto constraints = servestat::parse_constraints("short.e2e.p99<=2");
    const auto s = servestat::pick_sweet_spot(g, runs, constraints);
    CHECK(s.best == grid_cell{1, 3});
    CHECK(s.runner_up == grid_cell{0, 3});
    CHECK(s.blocked == grid_cell{3, 4});
    CHECK(s.binding == "short.e2e.p99<=2");
    CHECK(s.notes.empty());
    CHECK(servestat::describe(s, g, runs, constraints) ==
          "Sweet spot: max_num_seqs=32 at concurrency=32, 15.4 req/s with short p99 1.93 s (limit 2 s); runner-up "
          "max_num_seqs=16 at concurrency=32, 12.9 req/s; the binding constraint is short.e2e.p99 ≤ 2 s: "
          "max_num_seqs=64 at concurrency=64 reaches 18.8 req/s but its short p99 is 2.9 s.");
}

TEST_CASE("sweet spot under short.e2e.p99<=3,success_rate>=0.99: the success rate binds") {
    // Every short p99 is ≤ 2.90 < 3 s, so only the success rate decides: 64×64 (0.97) fails it;
    // 48×64 (0.995 ≥ 0.99) is best at 17.60 req/s; 64×32 (1.0) is runner-up at 16.30.
    const auto runs = exp4();
    const auto g = servestat::find_grids(runs).front();
    const auto constraints = servestat::parse_constraints("short.e2e.p99<=3,success_rate>=0.99");
    const auto s = servestat::pick_sweet_spot(g, runs, constraints);
    CHECK(s.best == grid_cell{2, 4});
    CHECK(s.runner_up == grid_cell{3, 3});
    CHECK(s.blocked == grid_cell{3, 4});
    CHECK(s.binding == "success_rate>=0.99");
    CHECK(servestat::describe(s, g, runs, constraints) ==
          "Sweet spot: max_num_seqs=48 at concurrency=64, 17.6 req/s with short p99 2.61 s (limit 3 s), success rate "
          "99.5% (at least 99%); runner-up max_num_seqs=64 at concurrency=32, 16.3 req/s; the binding constraint is "
          "success_rate ≥ 99%: max_num_seqs=64 at concurrency=64 reaches 18.8 req/s but its success rate is 97%.");
}

TEST_CASE("the binding constraint is the first the blocked cell misses, and the others are named") {
    // e2e.p99 ≤ 7: 64×64 (12.8) fails it and the success rate (0.97); 48×64 (11.6), 64×32 (7.9),
    // 32×64 (10.4), 48×32 (7.3) fail; 32×32 (6.8) is best; 16×64 (9.1) fails; 16×32 (6.2) is runner-up.
    const auto runs = exp4();
    const auto g = servestat::find_grids(runs).front();
    const auto constraints = servestat::parse_constraints("e2e.p99<=7,success_rate>=0.99");
    const auto s = servestat::pick_sweet_spot(g, runs, constraints);
    CHECK(s.best == grid_cell{1, 3});
    CHECK(s.runner_up == grid_cell{0, 3});
    CHECK(s.binding == "e2e.p99<=7");
    CHECK_THAT(servestat::describe(s, g, runs, constraints),
               Catch::EndsWith("but its p99 is 12.8 s (it also misses success_rate ≥ 99%)."));
}

TEST_CASE("when no cell meets the constraints there is no sweet spot, and the sentence says why") {
    // The smallest short p99 in the grid is 0.46 s.
    const auto runs = exp4();
    const auto g = servestat::find_grids(runs).front();
    const auto constraints = servestat::parse_constraints("short.e2e.p99<=0.4");
    const auto s = servestat::pick_sweet_spot(g, runs, constraints);
    CHECK_FALSE(s.best);
    CHECK_FALSE(s.runner_up);
    CHECK(s.blocked == grid_cell{3, 4});
    CHECK(s.binding == "short.e2e.p99<=0.4");
    CHECK(servestat::describe(s, g, runs, constraints) ==
          "No cell of the max_num_seqs × concurrency grid meets short.e2e.p99 ≤ 0.4 s; the highest throughput misses "
          "short.e2e.p99 ≤ 0.4 s: max_num_seqs=64 at concurrency=64 reaches 18.8 req/s but its short p99 is 2.9 s.");
}

TEST_CASE("an unknown value fails its constraint and a note says where") {
    // The table has no TTFT columns: every one of the 19 cells fails long.ttft.p99<=5.
    const auto runs = exp4();
    const auto g = servestat::find_grids(runs).front();
    const auto constraints = servestat::parse_constraints("long.ttft.p99<=5");
    const auto s = servestat::pick_sweet_spot(g, runs, constraints);
    CHECK_FALSE(s.best);
    REQUIRE(s.notes.size() == 1);
    CHECK_THAT(s.notes[0], Catch::StartsWith("long.ttft.p99 is unknown at 19 cells (max_num_seqs=64 at concurrency=64; "));
    CHECK_THAT(s.notes[0], Catch::EndsWith(" and 15 more): counted as not meeting long.ttft.p99<=5"));
    CHECK_THAT(servestat::describe(s, g, runs, constraints), Catch::EndsWith("but its long ttft p99 is unknown."));

    // Known in some cells only: 16×4 has the highest rps but no p99, so 16×1 is the sweet spot.
    std::vector<run_stats> some{
        summary_run({{"concurrency", 1}, {"max_num_seqs", 16}}, {{"rps", 1.0, "req/s"}, {"e2e.p99", 1.0, "s"}}),
        summary_run({{"concurrency", 4}, {"max_num_seqs", 16}}, {{"rps", 4.0, "req/s"}}),
        summary_run({{"concurrency", 1}, {"max_num_seqs", 32}}, {{"e2e.p99", 1.0, "s"}}), // no rps: not ranked
        summary_run({{"concurrency", 4}, {"max_num_seqs", 32}}, {{"rps", 0.5, "req/s"}, {"e2e.p99", 9.0, "s"}})};
    const auto g2 = servestat::find_grids(some).front();
    const auto c2 = servestat::parse_constraints("e2e.p99<=5");
    const auto s2 = servestat::pick_sweet_spot(g2, some, c2);
    CHECK(s2.best == grid_cell{0, 0});
    CHECK_FALSE(s2.runner_up); // 32×4 has p99 9 s
    CHECK(s2.blocked == grid_cell{0, 1});
    REQUIRE(s2.notes.size() == 2);
    CHECK(s2.notes[0] == "1 cell without a throughput not ranked: max_num_seqs=32 at concurrency=1");
    CHECK(s2.notes[1] ==
          "e2e.p99 is unknown at 1 cell (max_num_seqs=16 at concurrency=4): counted as not meeting e2e.p99<=5");
}

TEST_CASE("ties in throughput go to the lower p99, then to the smaller load") {
    // rps 10 in all four cells. p99: 16×1 3 s, 16×4 2 s, 32×1 2 s, 32×4 2 s. The lowest p99 (2 s)
    // is shared by 16×4, 32×1 and 32×4; the smaller load (concurrency 1) picks 32×1; of 16×4 and
    // 32×4 (both concurrency 4) the smaller row, 16×4, is the runner-up.
    std::vector<run_stats> runs;
    const std::vector<std::tuple<int, int, double>> cells{{1, 16, 3.0}, {4, 16, 2.0}, {1, 32, 2.0}, {4, 32, 2.0}};
    for (const auto& [c, seqs, p99] : cells)
        runs.push_back(summary_run({{"concurrency", c}, {"max_num_seqs", seqs}},
                                   {{"rps", 10.0, "req/s"}, {"e2e.p99", p99, "s"}}));
    const auto g = servestat::find_grids(runs).front();
    const auto loose = servestat::parse_constraints("e2e.p99<=5");
    const auto s = servestat::pick_sweet_spot(g, runs, loose);
    CHECK(s.best == grid_cell{1, 0});
    CHECK(s.runner_up == grid_cell{0, 1});
    CHECK_FALSE(s.blocked);
    CHECK_FALSE(s.binding);
    CHECK_THAT(servestat::describe(s, g, runs, loose), Catch::EndsWith("; no constraint binds: it is the grid's highest throughput."));
    // A limit only 16×1 meets: the three cells ranked above it are blocked; the first is 32×1.
    const auto tight = servestat::parse_constraints("e2e.p99>=2.5");
    const auto t = servestat::pick_sweet_spot(g, runs, tight);
    CHECK(t.best == grid_cell{0, 0});
    CHECK(t.blocked == grid_cell{1, 0});
    CHECK(t.binding == "e2e.p99>=2.5");
}

TEST_CASE("a grid without throughput has no sweet spot") {
    const auto runs = two_by_two();
    const auto g = servestat::find_grids(runs).front();
    const auto c = servestat::parse_constraints("e2e.p99<=5");
    const auto s = servestat::pick_sweet_spot(g, runs, c);
    CHECK_FALSE(s.best);
    CHECK_FALSE(s.blocked);
    CHECK(servestat::describe(s, g, runs, c) == "No cell of the max_num_seqs × concurrency grid has a throughput: no sweet spot.");
    const auto a = servestat::analyze_grid(g, runs, c);
    REQUIRE(a.spot);
    CHECK(a.finding == "No cell of the max_num_seqs × concurrency grid has a throughput: no sweet spot.");
    CHECK_FALSE(servestat::analyze_grid(g, runs, {}).spot); // no constraints: no sweet spot asked for
}

} // namespace test_grid
