// Tests for AIPerf 0.8.0's files (schema 1.1) as a real sweep wrote them: the ten concurrency levels
// of SERVESTAT_SHARED_DATA_DIR/aiperf-inferencex-sweep-b200 (see its SOURCE.md). Expected values are
// SOURCE.md's table (numpy linear percentiles over each level's records, span-based output tok/s)
// and the aggregates as the files hold them, read here with nlohmann::json on their own.
#include "servestat/ingest/aiperf.hpp"
#include "servestat/ingest/aiperf_summary.hpp"
#include "servestat/ingest/detect.hpp"

#include <cmath>       // std::abs
#include <cstddef>     // std::size_t
#include <filesystem>  // std::filesystem
#include <fstream>     // std::ifstream
#include <iterator>    // std::istreambuf_iterator
#include <string>      // std::string
#include <string_view> // std::string_view
#include <vector>      // std::vector

#include <nlohmann/json.hpp> // nlohmann::json

#include "servestat/stats/run_stats.hpp" // analyze, find_summary, find_percentile

#include "format_reading.hpp"

#include <catch2/catch.hpp> // TEST_CASE, REQUIRE, CHECK

namespace test_ingest_aiperf_sweep { // the unity build compiles several test files as one

namespace {

namespace fs = std::filesystem;
using servestat::metric;
using servestat::test::file_head;
using servestat::test::has_note;
using servestat::test::read_one;

const fs::path sweep_dir = fs::path(SERVESTAT_SHARED_DATA_DIR) / "aiperf-inferencex-sweep-b200";

// SOURCE.md's reference numbers, one row per level.
struct level {
    int concurrency;
    std::size_t requests;
    double ttft_p50_ms, ttft_p99_ms, e2e_p50_ms, e2e_p99_ms, span_s, output_tps;
};

constexpr level levels[] = {
    {1, 66, 493.649, 9585.963, 3855.691, 62733.954, 1724.682, 40.2805},
    {2, 276, 308.958, 24914.137, 2573.127, 60725.487, 1797.139, 86.5693},
    {4, 397, 595.644, 8032.086, 2430.335, 49825.859, 1791.801, 125.5341},
    {8, 358, 3435.156, 75385.817, 14170.342, 115238.814, 1813.216, 198.5665},
    {16, 206, 48675.106, 156618.927, 60764.539, 202784.690, 1234.945, 199.4689},
    {32, 224, 96042.091, 144806.313, 108331.181, 176433.421, 933.974, 271.7720},
    {40, 96, 135786.728, 193326.255, 147007.869, 238415.377, 401.753, 299.6991},
    {48, 309, 162720.564, 272875.219, 173230.225, 326679.101, 1308.758, 255.2788},
    {56, 411, 208876.671, 318812.333, 222538.278, 357608.693, 1829.162, 240.2363},
    {64, 355, 260537.407, 454589.161, 275075.030, 478882.022, 1768.412, 243.3890},
};

// The level's aiperf_artifacts folder (…_conc<C>_offloadlmcache_… in the run directory's name).
fs::path artifacts(int concurrency) {
    const std::string tag = "_conc" + std::to_string(concurrency) + "_offload";
    for (const auto& entry : fs::directory_iterator(sweep_dir))
        if (entry.is_directory() && entry.path().filename().string().find(tag) != std::string::npos)
            return entry.path() / "aiperf_artifacts";
    FAIL("no run directory for concurrency " << concurrency);
    return {};
}

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Equal to the table's rounding: within half a unit of its last printed digit.
bool rounds_to(double value, double printed, double last_digit) { return std::abs(value - printed) <= last_digit / 2; }

servestat::run read_level(int concurrency) {
    const fs::path file = artifacts(concurrency) / "profile_export.jsonl";
    return read_one(servestat::detect_file_format(file), file);
}

const servestat::reported_value* reported(const servestat::run& r, std::string_view name) {
    return servestat::find_reported(r.meta, name);
}

} // namespace

TEST_CASE("every file of the AIPerf 0.8.0 sweep is detected as its AIPerf format") {
    for (const auto& l : levels) {
        const fs::path dir = artifacts(l.concurrency);
        INFO("concurrency " << l.concurrency);
        CHECK(servestat::detect_format(file_head(dir / "profile_export.jsonl"))->name == "aiperf");
        CHECK(servestat::detect_format(file_head(dir / "profile_export_aiperf.json"))->name == "aiperf-summary");
        CHECK(servestat::detect_format(file_head(dir / "profile_export_aiperf.csv"))->name == "aiperf-summary-csv");
    }
}

TEST_CASE("each level of the AIPerf sweep reproduces SOURCE.md's numbers") {
    servestat::stats_options o;
    o.summary.percentiles = {50, 99};
    for (const auto& l : levels) {
        INFO("concurrency " << l.concurrency);
        const servestat::run run = read_level(l.concurrency);
        const auto stats = servestat::analyze(run, o);
        CHECK(stats.requests == l.requests);
        CHECK(stats.ok == l.requests); // every record succeeded
        const auto* ttft = servestat::find_summary(stats, "all", metric::ttft);
        const auto* e2e = servestat::find_summary(stats, "all", metric::e2e);
        REQUIRE(ttft != nullptr);
        REQUIRE(e2e != nullptr);
        CHECK(rounds_to(*servestat::find_percentile(*ttft, 50) * 1e3, l.ttft_p50_ms, 1e-3));
        CHECK(rounds_to(*servestat::find_percentile(*ttft, 99) * 1e3, l.ttft_p99_ms, 1e-3));
        CHECK(rounds_to(*servestat::find_percentile(*e2e, 50) * 1e3, l.e2e_p50_ms, 1e-3));
        CHECK(rounds_to(*servestat::find_percentile(*e2e, 99) * 1e3, l.e2e_p99_ms, 1e-3));
        REQUIRE(stats.duration.has_value());
        CHECK(rounds_to(*stats.duration, l.span_s, 1e-3));
        CHECK(rounds_to(*stats.output_tps, l.output_tps, 1e-4));
    }
}

TEST_CASE("the AIPerf sweep's parameters come from input_config beside the records") {
    for (const auto& l : levels) {
        INFO("concurrency " << l.concurrency);
        const servestat::run run = read_level(l.concurrency);
        CHECK(run.meta.params["concurrency"] == l.concurrency);
        CHECK(run.meta.params["benchmark_duration"] == 1800.0); // as configured, not as run
        CHECK(run.meta.params["random_seed"] == 42);
        CHECK(run.meta.params["endpoint_type"] == "chat");
        CHECK(run.meta.params["streaming"] == true);
        CHECK(run.meta.model == "nvidia/Kimi-K2.5-NVFP4");
        CHECK(run.meta.workload == "semianalysis_cc_traces_weka_with_subagents_060226_256k");
        CHECK(run.meta.tool == "aiperf 0.8.0");
        CHECK(has_note(run, "AIPerf command: aiperf profile --scenario 'inferencex-agentx-mvp'"));
        const fs::path dir = artifacts(l.concurrency);
        REQUIRE(run.meta.source.merged.size() == 2);
        CHECK(run.meta.source.merged[0] == (dir / "profile_export_aiperf.json").string());
        CHECK(run.meta.source.merged[1] == (dir / "profile_export_aiperf.csv").string());
    }
}

TEST_CASE("AIPerf's schema 1.1 aggregates are reported exactly as the file holds them") {
    for (const auto& l : levels) {
        INFO("concurrency " << l.concurrency);
        const fs::path dir = artifacts(l.concurrency);
        const auto file = nlohmann::json::parse(slurp(dir / "profile_export_aiperf.json"));
        for (const auto& run : {read_level(l.concurrency),
                                read_one(servestat::aiperf_summary_format, dir / "profile_export_aiperf.json")}) {
            // Renamed where the definition is servestat's, converted from ms by one division.
            for (const auto& [tag, name] : {std::pair{"time_to_first_token", "ttft"}, std::pair{"request_latency", "e2e"},
                                            std::pair{"inter_token_latency", "tpot"},
                                            std::pair{"inter_chunk_latency", "itl"}})
                for (const char* stat : {"avg", "p1", "p50", "p99", "min", "max", "std"}) {
                    const std::string key = std::string(name) + "." + (stat == std::string_view("avg") ? "mean" : stat);
                    INFO(key);
                    REQUIRE(reported(run, key) != nullptr);
                    CHECK(reported(run, key)->value == file[tag][stat].get<double>() / 1e3);
                    CHECK(reported(run, key)->unit == "s");
                }
            CHECK(reported(run, "e2e.n")->value == file["request_latency"]["count"].get<double>());
            CHECK(reported(run, "e2e.sum")->value == file["request_latency"]["sum"].get<double>() / 1e3);
            CHECK(reported(run, "prompt_tokens.p50")->value == file["input_sequence_length"]["p50"].get<double>());
            CHECK(reported(run, "output_tokens.sum")->value == file["output_sequence_length"]["sum"].get<double>());
            CHECK(reported(run, "ok")->value == l.requests);
            CHECK(reported(run, "duration")->value == file["benchmark_duration"]["avg"].get<double>());
            CHECK(reported(run, "rps")->value == file["request_throughput"]["avg"].get<double>());
            CHECK(reported(run, "output_tps")->value == file["output_token_throughput"]["avg"].get<double>());
            // No servestat counterpart: AIPerf's name and unit.
            CHECK(reported(run, "aiperf.time_to_second_token.p50")->value ==
                  file["time_to_second_token"]["p50"].get<double>());
            CHECK(reported(run, "aiperf.time_to_second_token.p50")->unit == "ms");
            CHECK(reported(run, "aiperf.effective_concurrency.p99")->value ==
                  file["effective_concurrency"]["p99"].get<double>());
            CHECK(reported(run, "aiperf.theoretical_prefix_cache_hit")->value ==
                  file["theoretical_prefix_cache_hit"]["avg"].get<double>());
            CHECK(reported(run, "aiperf.theoretical_prefix_cache_hit.n")->value ==
                  file["theoretical_prefix_cache_hit"]["count"].get<double>());
            CHECK(reported(run, "aiperf.total_isl")->value == file["total_isl"]["avg"].get<double>());
        }
    }
}

TEST_CASE("servestat's statistics over the sweep's records agree with AIPerf's own") {
    servestat::stats_options o;
    o.summary.ddof = 0; // AIPerf's std is numpy's default, ddof 0
    o.summary.percentiles = {1, 5, 10, 25, 50, 75, 90, 95, 99};
    for (const auto& l : levels) {
        INFO("concurrency " << l.concurrency);
        const servestat::run run = read_level(l.concurrency);
        const auto stats = servestat::analyze(run, o);
        for (const auto m : {metric::ttft, metric::e2e, metric::tpot}) {
            const auto* s = servestat::find_summary(stats, "all", m);
            const std::string name(servestat::to_string(m));
            for (const double p : o.summary.percentiles) {
                const auto mine = servestat::find_percentile(*s, p);
                REQUIRE(mine.has_value());
                const auto* theirs = reported(run, name + ".p" + std::to_string(static_cast<int>(p)));
                REQUIRE(theirs != nullptr);
                CHECK(std::abs(*mine - theirs->value) <= 1e-9 * std::abs(theirs->value) + 1e-12);
            }
            CHECK(std::abs(*s->std - reported(run, name + ".std")->value) <= 1e-9 * reported(run, name + ".std")->value);
        }
        CHECK(std::abs(*stats.rps - reported(run, "rps")->value) <= 1e-6 * reported(run, "rps")->value);
    }
}

TEST_CASE("the AIPerf sweep's traps are said in notes") {
    // C=40 ended after 402 s of the configured 1800 s; C=1 ran to 1725 s (within 10%): no note.
    CHECK(has_note(read_level(40), "The records span 401.753 s of the 1800 s the run was configured for"));
    CHECK(has_note(read_level(16), "it ended early"));
    CHECK_FALSE(has_note(read_level(1), "it ended early"));
    // One C=48 record's request_end_ns is 11.316439 ms after request_start_ns + request_latency.
    CHECK(has_note(read_level(48), "1 record's metadata.request_end_ns more than 1 ms away from the end its metrics "
                                   "give (request_start_ns + request_latency; largest gap 11.3164 ms)"));
    CHECK_FALSE(has_note(read_level(56), "metadata.request_end_ns more than 1 ms away"));
    // AIPerf's benchmark_duration equals the records' span here, so no note on the rates' duration.
    for (const auto& l : levels) CHECK_FALSE(has_note(read_level(l.concurrency), "AIPerf's rates (rps, output_tps) divide"));
}

TEST_CASE("the sweep's aggregate CSV (a metric table, then single values) reads as the JSON does") {
    const fs::path dir = artifacts(40);
    const servestat::run csv = read_one(servestat::aiperf_summary_csv_format, dir / "profile_export_aiperf.csv");
    CHECK(csv.meta.kind == servestat::run_kind::summary);
    CHECK(reported(csv, "ttft.p50")->value == 135786.73 / 1e3); // "135786.73" in ms
    CHECK(reported(csv, "e2e.sum")->value == 12474259.34 / 1e3);
    CHECK(reported(csv, "duration")->value == 401.75);
    CHECK(reported(csv, "ok")->value == 96);
    CHECK(reported(csv, "aiperf.active_decode_throughput.p50")->value == 294.42);
    CHECK(reported(csv, "aiperf.active_decode_throughput.p1") == nullptr); // an empty cell is no value
    CHECK(reported(csv, "aiperf.osl_mismatch_count")->value == 0);
    CHECK(csv.meta.source.merged.empty()); // the CSV never claims the JSON (the JSON claims the CSV)
}

TEST_CASE("the sweep's aggregate JSON on its own is a summary run that claims the CSV beside it") {
    const fs::path dir = artifacts(8);
    const servestat::run run = read_one(servestat::aiperf_summary_format, dir / "profile_export_aiperf.json");
    CHECK(run.meta.kind == servestat::run_kind::summary);
    CHECK(run.meta.params["concurrency"] == 8);
    CHECK(run.meta.label == "aiperf_artifacts");
    CHECK(run.meta.started_at == "2026-06-04T06:51:53.974Z"); // min_request_timestamp, 1780555913974746112 ns
    REQUIRE(run.meta.source.merged.size() == 1);
    CHECK(run.meta.source.merged[0] == (dir / "profile_export_aiperf.csv").string());
}

TEST_CASE("reading an AIPerf artifact folder gives one run per level, never the aggregates again") {
    const std::vector<std::string> inputs{artifacts(32).string()};
    const auto runs = servestat::read_logs(inputs);
    REQUIRE(runs.size() == 1);
    CHECK(runs[0].meta.source.format == "aiperf");
    CHECK(runs[0].meta.kind == servestat::run_kind::requests);
}

} // namespace test_ingest_aiperf_sweep
