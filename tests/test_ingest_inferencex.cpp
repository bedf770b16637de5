// The InferenceX harness's result files: a run's result JSON (agentic, and fixed-length agg_*.json)
// and the workflow's agg_bmk.json list, each record one summary run. Real files: tests/data/inferencex
// (ajith-sirra-amd/InferenceMAX_Rocm_Team and SemiAnalysisAI/InferenceX, README.md there); the
// expected numbers are the files' own, and the agentic ones are checked against the AIPerf records
// they were computed from (shared/data/aiperf-inferencex-sweep-b200, the same runs).
#include "servestat/ingest/inferencex_result.hpp"

#include <algorithm>  // std::count_if, std::sort
#include <filesystem> // std::filesystem
#include <set>        // std::set
#include <string>     // std::string
#include <vector>     // std::vector

#include "servestat/ingest/aiperf.hpp"         // aiperf_format
#include "servestat/ingest/aiperf_summary.hpp" // aiperf_summary_format
#include "servestat/ingest/detect.hpp"         // detect_format, read_logs, load_options
#include "servestat/ingest/json_document.hpp"  // read_json_file
#include "servestat/stats/run_stats.hpp"       // analyze, find_percentile

#include "format_reading.hpp" // test::reported, test::has_note, test::read_one, test::file_head
#include "temp_file.hpp"
#include <catch2/catch.hpp> // TEST_CASE, REQUIRE, CHECK, Approx
#include <nlohmann/json.hpp> // nlohmann::json

namespace test_ingest_inferencex { // the unity build compiles several test files as one: each keeps its names

using namespace servestat;
using servestat::test::file_head;
using servestat::test::has_note;
using servestat::test::read_one;
using servestat::test::reported;

namespace {

namespace fs = std::filesystem;
const fs::path data = fs::path(SERVESTAT_TEST_DATA_DIR) / "inferencex";
const fs::path shared_sweep = fs::path(SERVESTAT_SHARED_DATA_DIR) / "aiperf-inferencex-sweep-b200";

// The one file under `dir` whose path contains `part`.
fs::path find_file(const fs::path& dir, const std::string& part, const std::string& ext = ".json") {
    std::vector<fs::path> found;
    for (const auto& e : fs::recursive_directory_iterator(dir))
        if (e.is_regular_file() && e.path().string().find(part) != std::string::npos && e.path().extension() == ext)
            found.push_back(e.path());
    REQUIRE(found.size() == 1);
    return found.front();
}

fs::path kimi(int c) { return find_file(data / "kimik2.5-b200-lmcache-tp4", "_conc" + std::to_string(c) + "_"); }

} // namespace

TEST_CASE("InferenceX result files are detected as inferencex-result, and nothing else claims them") {
    std::vector<fs::path> files{kimi(1), kimi(64), data / "glm5.1-mi355x-sglang-hicache/results_bmk/agg_bmk.json",
                                find_file(data / "failed-run", "bmk_agentic")};
    for (const auto& e : fs::directory_iterator(data / "fixed-seq")) files.push_back(e.path());
    for (const auto& file : files) {
        INFO(file);
        const auto* f = detect_format(file_head(file));
        REQUIRE(f);
        CHECK(f->name == "inferencex-result");
    }
}

TEST_CASE("An agentic result is a summary run with the harness's settings and numbers under servestat's names") {
    const run r = read_one(inferencex_result_format, kimi(8));
    CHECK(r.meta.kind == run_kind::summary);
    CHECK(r.requests.empty());
    CHECK(r.meta.source.format == "inferencex-result");
    CHECK(r.meta.model == "nvidia/Kimi-K2.5-NVFP4");
    CHECK(r.meta.workload == "agentic-coding");
    CHECK(r.meta.params["concurrency"] == 8);
    CHECK(r.meta.params["tensor_parallel_size"] == 4);
    CHECK(r.meta.params["expert_parallel_size"] == 1);
    CHECK(r.meta.params["data_parallel_attention"] == false);
    CHECK(r.meta.params["offloading"] == "lmcache");
    CHECK(r.meta.params["scenario"] == "agentic-coding");
    // hw, image, framework, precision and infmax_model_prefix are "" in this run's file (unset in the
    // harness's environment).
    CHECK_FALSE(r.meta.params.contains("hw"));
    CHECK_FALSE(r.meta.params.contains("model_prefix"));
    CHECK(has_note(r, "left empty"));
    // The file's own numbers: seconds stay seconds, names follow servestat's where the definitions agree.
    CHECK(reported(r, "ok") == 358);
    CHECK(reported(r, "inferencex.num_requests_total") == 358);
    CHECK(reported(r, "duration") == 1813.215858112);
    CHECK(reported(r, "output_tps") == 198.56654043104038);
    CHECK(reported(r, "total_tps") == 20218.987626863935);
    CHECK(*reported(r, "rps") == Approx(358 / 1813.215858112).epsilon(1e-15));
    CHECK(reported(r, "ttft.mean") == 10.837072387231844);
    CHECK(reported(r, "ttft.p75") == 17.195154322);
    CHECK(reported(r, "ttft.p95") == 42.12228017454999);
    CHECK(reported(r, "ttft.std") == 15.549321300139537);
    CHECK(reported(r, "e2e.p90") == 54.843114441900006);
    CHECK(reported(r, "tpot.p90") == 0.014719933762090923);
    CHECK(reported(r, "inferencex.itl.mean") == 0.013605818879333242);
    CHECK_FALSE(reported(r, "itl.mean")); // per-request TPOT, not pooled gaps
    CHECK(reported(r, "inferencex.intvty.mean") == 86.65697764895684);
    CHECK(reported(r, "inferencex.qps.mean") == 0.19822320932815102);
    CHECK_FALSE(reported(r, "qps.mean"));
    CHECK(reported(r, "prompt_tokens.p95") == 203760.09999999998);
    CHECK(reported(r, "output_tokens.mean") == 1005.7094972067039);
    CHECK(reported(r, "inferencex.tput_per_gpu") == 5054.746906715984);
    CHECK(reported(r, "inferencex.total_generation_tokens") == 360076);
    CHECK(reported(r, "inferencex.server_gpu_cache_hit_rate") == 0.01321606957501747);
    CHECK_FALSE(reported(r, "inferencex.server_cpu_cache_hit_rate")); // null in the file
    CHECK(has_note(r, "ddof 0"));
    CHECK(has_note(r, "servestat's tpot"));
    // Statistics come in a fixed order: mean, rising percentiles, std.
    std::vector<std::string> ttft;
    for (const auto& v : r.meta.reported)
        if (v.name.starts_with("ttft.")) ttft.push_back(v.name);
    CHECK(ttft == std::vector<std::string>{"ttft.mean", "ttft.p75", "ttft.p90", "ttft.p95", "ttft.std"});
}

TEST_CASE("An agentic result's ttft, e2e and tpot equal servestat's over the AIPerf records of the same run") {
    for (const int c : {1, 8, 40}) {
        INFO("conc " << c);
        const run ix = read_one(inferencex_result_format, kimi(c));
        const run records =
            read_one(aiperf_format, find_file(shared_sweep, "_conc" + std::to_string(c) + "_", ".jsonl"));
        stats_options o;
        o.summary.percentiles = {75, 90, 95};
        const auto stats = analyze(records, o);
        CHECK(static_cast<double>(stats.ok) == *reported(ix, "ok"));
        for (const auto& [m, name] : {std::pair{metric::ttft, "ttft"}, {metric::e2e, "e2e"}, {metric::tpot, "tpot"}})
            for (const double p : {75.0, 90.0, 95.0}) {
                INFO(name << " p" << p);
                const auto mine = find_percentile(stats, "all", m, p);
                REQUIRE(mine);
                CHECK(*mine == Approx(*reported(ix, std::string(name) + ".p" + std::to_string(int(p)))).epsilon(1e-9));
            }
        // duration: first send to last end, as servestat's
        REQUIRE(stats.duration);
        CHECK(*stats.duration == Approx(*reported(ix, "duration")).epsilon(1e-9));
    }
}

TEST_CASE("A fixed-length result keeps the benchmark's statistics and says what its intvty is") {
    const run r = read_one(inferencex_result_format, find_file(data / "fixed-seq", "1k1k"));
    CHECK(r.meta.kind == run_kind::summary);
    CHECK(r.meta.model == "moonshotai/Kimi-K2.5");
    CHECK(r.meta.params["concurrency"] == 4);
    CHECK(r.meta.params["input_len"] == 1024);
    CHECK(r.meta.params["output_len"] == 1024);
    CHECK(r.meta.params["tensor_parallel_size"] == 8);
    CHECK(r.meta.params["spec_decoding"] == "mtp");
    CHECK(r.meta.params["hw"] == "mi355x");
    CHECK(r.meta.params["is_multinode"] == false);
    CHECK(reported(r, "ttft.mean") == 0.3170863160688896);
    CHECK(reported(r, "ttft.p50") == 0.2969768075272441);
    CHECK(reported(r, "ttft.p99.9") == 0.6591278487213433);
    CHECK(reported(r, "tpot.p99") == 0.018459965544077445);
    CHECK(reported(r, "itl.p90") == 0.06682122603524476); // the benchmark's pooled chunk gaps
    CHECK(reported(r, "e2e.std") == 1.311820483148969);
    CHECK(reported(r, "inferencex.intvty_from_tpot.p99") == 54.17128204341814);
    CHECK_FALSE(reported(r, "inferencex.intvty_from_tpot.std")); // 1000 / std of TPOT in the file: 1414.6
    CHECK(has_note(r, "std_intvty"));
    // The harness kept only per-GPU throughputs: tp × those gives the benchmark's totals back.
    CHECK(*reported(r, "total_tps") == Approx(55.62670336516291 * 8).epsilon(1e-15));
    CHECK(*reported(r, "output_tps") == Approx(27.678011491816765 * 8).epsilon(1e-15));
    CHECK_FALSE(reported(r, "duration"));
    CHECK_FALSE(reported(r, "rps"));
}

TEST_CASE("agg_bmk.json is one summary run per record, named apart by their settings") {
    const auto file = data / "glm5.1-mi355x-sglang-hicache/results_bmk/agg_bmk.json";
    const auto runs = inferencex_result_format.read(file, {});
    REQUIRE(runs.size() == 12);
    std::set<std::string> labels;
    for (const auto& r : runs) labels.insert(r.meta.label);
    CHECK(labels.size() == 12);
    CHECK(labels.contains("hicache · c=16"));
    // Each record is the run's own result file, value for value.
    const auto& first = runs.front(); // conc 32, offloading none: the list's first record (line 2)
    CHECK(first.meta.source.line == 2);
    CHECK(first.meta.params["concurrency"] == 32);
    CHECK(first.meta.params["offloading"] == "none");
    const run single = read_one(inferencex_result_format,
                                find_file(data / "glm5.1-mi355x-sglang-hicache", "conc32_offloadnone", ".json"));
    REQUIRE(single.meta.reported.size() == first.meta.reported.size());
    for (std::size_t i = 0; i < single.meta.reported.size(); ++i) {
        CHECK(single.meta.reported[i].name == first.meta.reported[i].name);
        CHECK(single.meta.reported[i].value == first.meta.reported[i].value);
    }
    CHECK(reported(first, "ok") == 98);
    CHECK(reported(first, "ttft.mean") == 399.55540046852036);
    CHECK(reported(first, "duration") == 1824.590794557);
}

TEST_CASE("A folder with the per-run files and agg_bmk.json reads each run once, from its own file") {
    // The list was gathered from the per-run files (utils/collect_results.py): its records are the
    // same runs, read from the list alone as runs of their own.
    const auto list = inferencex_result_format.read(data / "glm5.1-mi355x-sglang-hicache/results_bmk/agg_bmk.json", {});
    CHECK(list.size() == 12);
    std::vector<directory_listing> listings;
    load_options o;
    o.listed = [&](const directory_listing& l) { listings.push_back(l); };
    const std::vector<std::string> inputs{(data / "glm5.1-mi355x-sglang-hicache").string()};
    const auto runs = read_logs(inputs, o);
    CHECK(runs.size() == 12);
    std::set<std::string> labels;
    for (const auto& r : runs) labels.insert(r.meta.label);
    CHECK(labels.size() == 12);
    for (const auto& r : runs) CHECK(r.meta.source.path.find("bmk_agentic_") != std::string::npos);
    REQUIRE(listings.size() == 1);
    REQUIRE(listings[0].passed_over.size() == 1);
    CHECK(listings[0].passed_over[0].path.ends_with("results_bmk/agg_bmk.json"));
    CHECK(listings[0].passed_over[0].reason.starts_with("gathered from the runs' own files: its 12 runs are the same"));
    // Without the list, the per-run files are the runs.
    const servestat::test::temp_file copy("", "unused");
    fs::copy(data / "glm5.1-mi355x-sglang-hicache", copy.dir() / "set", fs::copy_options::recursive);
    fs::remove_all(copy.dir() / "set" / "results_bmk");
    const std::vector<std::string> per_run{(copy.dir() / "set").string()};
    const auto alone = read_logs(per_run, o);
    CHECK(alone.size() == 12);
    for (const auto& r : alone) CHECK(r.meta.source.path.find("bmk_agentic_") != std::string::npos);
}

TEST_CASE("A run where every request failed is a summary run that says so, and its timeslices file is no run") {
    std::vector<directory_listing> listings;
    load_options o;
    o.listed = [&](const directory_listing& l) { listings.push_back(l); };
    const std::vector<std::string> inputs{(data / "failed-run").string()};
    const auto runs = read_logs(inputs, o);
    REQUIRE(runs.size() == 1);
    const run& r = runs.front();
    CHECK(r.meta.source.format == "inferencex-result");
    CHECK(reported(r, "ok") == 0);
    CHECK_FALSE(reported(r, "duration"));
    CHECK_FALSE(reported(r, "ttft.mean"));
    CHECK(reported(r, "inferencex.total_generation_tokens") == 29); // the server's counter: warm-up
    CHECK(has_note(r, "no request succeeded"));
    REQUIRE(listings.size() == 1);
    REQUIRE(listings[0].passed_over.size() == 1);
    CHECK(listings[0].passed_over[0].path.ends_with("profile_export_aiperf_timeslices.json"));
}

TEST_CASE("AIPerf's per-time-slice aggregates are never read as AIPerf's run summary") {
    // A short run's timeslices file fits the sniffed head whole, input_config's model_names included.
    const servestat::test::temp_file small(
        R"({"timeslices": [{"start_ns": 1, "end_ns": 1000000001, "request_latency": {"unit": "ms", "avg": 12.5, "p50": 12.5, "count": 1},
 "time_to_first_token": {"unit": "ms", "avg": 3.0, "count": 1}, "request_count": {"unit": "requests", "avg": 1.0}}],
 "input_config": {"endpoint": {"model_names": ["m"]}}})",
        "profile_export_aiperf_timeslices.json");
    CHECK(aiperf_summary_format.sniff(file_head(small.path())) == 0);
    CHECK(detect_format(file_head(small.path())) == nullptr);
    const auto real = find_file(data / "failed-run", "timeslices");
    CHECK(detect_format(file_head(real)) == nullptr);
}

TEST_CASE("Bad InferenceX records are errors naming the file and field") {
    {
        const servestat::test::temp_file f(R"({"infmax_model_prefix": "x", "conc": "sixteen", "tput_per_gpu": 1.0})", "r.json");
        try {
            inferencex_result_format.read(f.path(), {});
            FAIL("no error");
        } catch (const input_error& e) {
            CHECK(e.file() == f.str());
            CHECK(e.field() == "conc");
        }
    }
    {
        const servestat::test::temp_file f(
            "[\n  {\"infmax_model_prefix\": \"x\", \"conc\": 4, \"tp\": 2},\n  {\"infmax_model_prefix\": \"x\", \"conc\": 8, "
            "\"tp\": 2, \"mean_ttft\": \"slow\"}\n]",
            "agg_bmk.json");
        try {
            inferencex_result_format.read(f.path(), {});
            FAIL("no error");
        } catch (const input_error& e) {
            CHECK(e.line() == 3);
            CHECK(e.field() == "[1].mean_ttft");
        }
    }
    {
        // A list gathered from every JSON file of a results folder may hold other documents: left out, said.
        const servestat::test::temp_file f(
            R"([{"task": "gsm8k", "score": 0.9}, {"infmax_model_prefix": "x", "conc": 4, "tp": 2, "tput_per_gpu": 1.0}])",
            "agg_bmk.json");
        const auto runs = inferencex_result_format.read(f.path(), {});
        REQUIRE(runs.size() == 1);
        CHECK(has_note(runs[0], "1 element(s) of the list are no benchmark result"));
    }
}

// The nested agentic layout (AgentX v1.0 on). tests/data/inferencex/agentic-v3 holds the result the
// harness's own aggregation (utils/agentic/aggregation at SemiAnalysisAI/InferenceX@11dff3c1, with
// its stability diagnostics) wrote from the AIPerf records of the C=2 run above, with power fields
// added as utils/aggregate_power.py adds them (invented telemetry: README.md there).
namespace {
fs::path v3_file() { return find_file(data / "agentic-v3", "_conc2_"); }
} // namespace

TEST_CASE("An agentic v3 result is detected as inferencex-result and read as reported values") {
    const auto* f = detect_format(file_head(v3_file()));
    REQUIRE(f);
    CHECK(f->name == "inferencex-result");
    const run r = read_one(inferencex_result_format, v3_file());
    CHECK(r.meta.kind == run_kind::summary);
    CHECK(r.meta.model == "nvidia/Kimi-K2.5-NVFP4");
    CHECK(r.meta.params["concurrency"] == 2);
    CHECK(r.meta.params["tensor_parallel_size"] == 4);
    CHECK(r.meta.params["pipeline_parallel_size"] == 1);
    CHECK(r.meta.params["hw"] == "b200-dgxc");
    CHECK(r.meta.params["kv_offloading"] == "cpu");
    CHECK(r.meta.params["kv_offload_backend"] == "lmcache"); // {"name": "lmcache"}
    // The file's own numbers, hand-read.
    CHECK(reported(r, "ok") == 276);
    CHECK(reported(r, "inferencex.num_requests_total") == 276);
    CHECK(reported(r, "duration") == 1797.13893);
    CHECK(*reported(r, "rps") == Approx(276 / 1797.13893).epsilon(1e-15));
    CHECK(reported(r, "output_tps") == 86.56927);
    CHECK(reported(r, "total_tps") == 12108.44562);
    CHECK(reported(r, "inferencex.input_tput_tps") == 12021.87635);
    CHECK(reported(r, "inferencex.tput_per_gpu") == 3027.1114);
    CHECK(reported(r, "inferencex.output_tput_per_gpu") == 21.64232);
    CHECK(reported(r, "ttft.mean") == 1.45682);
    CHECK(reported(r, "ttft.p50") == 0.30896);
    CHECK(reported(r, "ttft.p90") == 2.66851);
    CHECK(reported(r, "ttft.std") == 4.09049);
    CHECK(reported(r, "e2e.p95") == 22.72959);
    CHECK(reported(r, "tpot.p75") == 0.00888);
    CHECK(reported(r, "inferencex.itl.mean") == 0.00835);
    CHECK_FALSE(reported(r, "itl.mean"));
    CHECK(reported(r, "inferencex.intvty_from_itl.p90") == 106.48108);
    CHECK(reported(r, "inferencex.intvty.std") == 17.78125);
    CHECK_FALSE(reported(r, "inferencex.intvty.p90")); // not the flat layout's percentile of interactivity
    CHECK(reported(r, "prompt_tokens.p50") == 58015);
    CHECK(reported(r, "output_tokens.p95") == 2351.75);
    CHECK(reported(r, "inferencex.qps.mean") == 0.15415);
    CHECK(reported(r, "inferencex.qps.windows") == 1784);
    CHECK(reported(r, "inferencex.qps.window_seconds") == 1);
    CHECK(reported(r, "inferencex.theoretical_cache_hit_rate") == 0.9349);
    CHECK(reported(r, "inferencex.request_accounting.records_total") == 276);
    CHECK(reported(r, "inferencex.request_accounting.records_error_dropped") == 0);
    CHECK(reported(r, "inferencex.total_prompt_tokens") == 21604982);
    CHECK(reported(r, "inferencex.total_generation_tokens") == 155577);
    CHECK_FALSE(reported(r, "inferencex.server_gpu_cache_hit_rate")); // null: no server metrics export
    // Stability diagnostics under their own names, seconds inside.
    CHECK(reported(r, "inferencex.stability.window_seconds") == 600);
    CHECK(reported(r, "inferencex.stability.root_trajectory_kish_effective_count") == 9.01065);
    const auto* range = find_reported(r.meta, "inferencex.stability.observed_ranges.ttft.p90.max");
    REQUIRE(range);
    CHECK(range->value == 6.45747);
    CHECK(range->unit == "s");
    CHECK(find_reported(r.meta, "inferencex.stability.observed_ranges.intvty.p75.min")->unit == "tok/s");
    // Power and energy under their own names and units.
    const auto* watts = find_reported(r.meta, "inferencex.avg_power_w");
    REQUIRE(watts);
    CHECK(watts->value == 650);
    CHECK(watts->unit == "W");
    CHECK(find_reported(r.meta, "inferencex.total_gpu_energy_j")->value == 4672561.218);
    CHECK(find_reported(r.meta, "inferencex.total_gpu_energy_j")->unit == "J");
    CHECK(find_reported(r.meta, "inferencex.joules_per_output_token")->value == 30.033753);
    CHECK(find_reported(r.meta, "inferencex.joules_per_output_token")->unit == "J/token");
    CHECK(find_reported(r.meta, "inferencex.joules_per_successful_query")->unit == "J/request");
    CHECK(reported(r, "inferencex.power_valid") == 1);
    CHECK(has_note(r, "counts every record"));
    CHECK(has_note(r, "5 decimals"));
    CHECK(has_note(r, "slow tail"));
    CHECK(has_note(r, "not intervals"));
    CHECK(has_note(r, "power and energy"));
    CHECK(has_note(r, "server_metrics_export.json missing")); // the harness's warning
    CHECK_FALSE(has_note(r, "counts successes only"));         // the flat layout's note
    // Each name once.
    std::set<std::string> names;
    for (const auto& v : r.meta.reported) CHECK(names.insert(v.name).second);
}

TEST_CASE("An agentic v3 result agrees with the flat result of the same run, rounded to 5 decimals") {
    const run v3 = read_one(inferencex_result_format, v3_file());
    const run flat = read_one(inferencex_result_format, kimi(2));
    for (const char* name : {"duration", "total_tps", "output_tps", "inferencex.tput_per_gpu", "ttft.mean", "ttft.p75",
                             "ttft.p95", "e2e.mean", "e2e.p90", "tpot.p90", "tpot.std", "inferencex.itl.p95",
                             "prompt_tokens.mean", "output_tokens.std", "inferencex.qps.mean", "inferencex.intvty.std"}) {
        INFO(name);
        REQUIRE(reported(v3, name));
        REQUIRE(reported(flat, name));
        CHECK(*reported(v3, name) == Approx(*reported(flat, name)).epsilon(2e-5).margin(5e-6));
    }
    // v3's intvty is 1 / the itl statistic; the flat layout's is a percentile of per-request 1/itl.
    CHECK(*reported(v3, "inferencex.intvty_from_itl.p90") == Approx(1 / *reported(flat, "tpot.p90")).epsilon(1e-6));
    CHECK(*reported(flat, "inferencex.intvty.p90") > *reported(v3, "inferencex.intvty_from_itl.p90"));
}

TEST_CASE("A bad number in a nested block is an error naming the file and its path") {
    auto doc = nlohmann::json::parse(detail::read_json_file(v3_file()));
    doc["request_metrics"]["latency"]["ttft"]["p90"] = "slow";
    const servestat::test::temp_file f(doc.dump(2), "v3.json");
    const input_error e = servestat::test::read_error(inferencex_result_format, f.path());
    CHECK(e.file() == f.str());
    CHECK(e.line() == 1);
    CHECK(e.field() == "request_metrics.latency.ttft.p90");
    doc["request_metrics"]["latency"]["ttft"]["p90"] = 1.0;
    doc["request_metrics"]["throughput"]["duration_seconds"] = true;
    const servestat::test::temp_file g(doc.dump(2), "v3.json");
    CHECK(servestat::test::read_error(inferencex_result_format, g.path()).field() == "request_metrics.throughput.duration_seconds");
    // Power telemetry the harness found invalid: no energy, said.
    doc["request_metrics"]["throughput"]["duration_seconds"] = 10;
    for (const char* key : {"avg_power_w", "avg_total_gpu_power_w", "total_gpu_energy_j", "joules_per_successful_query",
                            "joules_per_input_token", "joules_per_output_token", "joules_per_total_token"})
        doc.erase(key);
    doc["power_valid"] = 0;
    const servestat::test::temp_file h(doc.dump(2), "v3.json");
    const run r = read_one(inferencex_result_format, h.path());
    CHECK(has_note(r, "power_valid 0"));
    CHECK_FALSE(reported(r, "inferencex.avg_power_w"));
}

} // namespace test_ingest_inferencex
