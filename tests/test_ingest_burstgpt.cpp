// Tests for servestat/ingest/burstgpt_detail.hpp and vllm_server_stats.hpp: hand-made files in
// tests/data/burstgpt/ (exact binary fractions, so expected times are exact) and the twelve-scale
// BurstGPT replay in the shared data folder, checked against numpy and pandas.
#include "servestat/ingest/burstgpt_detail.hpp"
#include "servestat/ingest/vllm_server_stats.hpp"

#include "servestat/ingest/detect.hpp"     // read_logs, load_options, directory_listing
#include "servestat/ingest/input_file.hpp" // detail::read_whole_file

#include <algorithm>   // std::any_of, std::all_of, std::min_element, std::find, std::min
#include <cstddef>     // std::size_t
#include <filesystem>  // std::filesystem
#include <fstream>     // std::ifstream
#include <limits>      // std::numeric_limits
#include <optional>    // std::optional
#include <string>      // std::string
#include <string_view> // std::string_view
#include <vector>      // std::vector

#include "format_fixtures.hpp"
#include "format_reading.hpp"
#include "temp_file.hpp"

#include <catch2/catch.hpp>  // TEST_CASE, REQUIRE, CHECK, Approx
#include <nlohmann/json.hpp> // nlohmann::json

#include "servestat/stats/run_stats.hpp" // analyze, find_percentile

namespace test_ingest_burstgpt { // the unity build compiles several test files as one: each keeps its names

namespace {

using servestat::test::file_head;
using servestat::test::read_error;
using servestat::test::read_one;

namespace fs = std::filesystem;
using servestat::burstgpt_detail_format;
using servestat::input_error;
using servestat::metric;
using servestat::read_options;
using servestat::request_status;
using servestat::run_kind;
using servestat::vllm_server_stats_format;
using servestat::test::temp_file;

constexpr std::string_view detail_fixture = "detail_log_scale250_prompt4.json";
constexpr std::string_view stats_fixture = "vllm_log_scale250_prompt4.csv";

const servestat::test::format_fixtures detail_fixtures{burstgpt_detail_format, "burstgpt"};
const servestat::test::format_fixtures stats_fixtures{vllm_server_stats_format, "burstgpt"};

const fs::path replay_dir = fs::path(SERVESTAT_SHARED_DATA_DIR) / "burstgpt-replay-vllm-liao4s";

fs::path detail_log(int scale) {
    return replay_dir / "detail_log" / ("detail_log_scale" + std::to_string(scale) + "_prompt500.json");
}

fs::path vllm_log(int scale) {
    return replay_dir / "vllm_log" / ("vllm_log_scale" + std::to_string(scale) + "_prompt500.csv");
}

std::optional<servestat::reported_value> reported(const servestat::run& run, std::string_view name) {
    if (const auto* v = servestat::find_reported(run.meta, name)) return *v;
    return std::nullopt;
}

// What detection sees of a file: its first 64 KiB.
bool has_note_containing(const servestat::run& run, std::string_view text) {
    return std::any_of(run.meta.notes.begin(), run.meta.notes.end(),
                       [&](const std::string& note) { return note.find(text) != std::string::npos; });
}

// A detail log of one request, with the timing fields given.
std::string one_request(std::string_view timing) {
    return R"({"0": {"event_id": 0, "out_len": 45, "out_len_expected": 1024, "in_len": 7, )" + std::string(timing) +
           "}}";
}

// Per scale, with /usr/bin/python3 (numpy 1.24): v = json.load(open(detail_log)).values(); then
// np.percentile(fc, [50, 99]) and np.percentile(tc, [50, 99]) (method linear) of the arrays of
// first_chunk_time and total_chunk_time, and rt.max() - (rt - tc).min() with rt = record_time.
struct scale_reference {
    int scale;
    double ttft_p50, ttft_p99, e2e_p50, e2e_p99, span;
};

constexpr scale_reference references[] = {
    {100, 0.06782493088394403, 0.37564243994653224, 9.587560717947781, 44.25966581044719, 420.66784820891917},
    {200, 0.09703224059194326, 1.7964167359657586, 22.347863275557756, 69.37027499983087, 254.82830694690347},
    {300, 0.13933320064097643, 13.451706039290865, 41.19964516162872, 81.76314055474475, 206.07463501766324},
    {400, 0.3866881374269724, 36.78029958989471, 55.12362857628614, 88.08498193955049, 184.7022384237498},
    {500, 0.6194990705698729, 45.114874904472366, 62.10763827804476, 91.15078365467488, 168.93565263971686},
    {600, 1.0339917642995715, 53.33470546871423, 69.86476197373122, 94.45412795105949, 159.1873619388789},
    {700, 1.114931800402701, 60.36096147364005, 74.54132149647921, 97.92853428332135, 153.60381949320436},
    {800, 1.3305519493296742, 57.3279185774736, 73.63369986694306, 97.75562833283097, 146.45153541862965},
    {900, 1.4714114805683494, 67.7599434278719, 84.40176714491099, 101.8000645537302, 145.3664041440934},
    {1000, 1.8216196475550532, 75.97857498954981, 86.14148655161262, 109.48712210126222, 148.46336008794606},
    {1500, 3.5766763165593147, 85.38620134077966, 91.22368681896478, 111.14247301910072, 137.1244003623724},
    {2000, 5.668100889772177, 87.05925712618976, 92.30949714966118, 114.42374808484688, 133.87005138769746},
};

// The times pass through perf_counter values near 1.5e7 s (ulp 1.9e-9) and are rebuilt from sums
// at the scale of the run (~400 s, ulp 5.7e-14), so a latency is its source value to ~1e-13 s.
// Relative 1e-9 is far looser than that and far tighter than any wrong conversion.
constexpr double relative = 1e-9;

} // namespace

// ---------------------------------------------------------------- burstgpt-detail, hand-made file

TEST_CASE("the BurstGPT formats are named burstgpt-detail and vllm-server-stats") {
    CHECK(burstgpt_detail_format.name == "burstgpt-detail");
    CHECK(vllm_server_stats_format.name == "vllm-server-stats");
}

TEST_CASE("every key of a BurstGPT detail log becomes one request") {
    CHECK(detail_fixtures.read(detail_fixture).requests.size() == 4);
}

TEST_CASE("BurstGPT requests are ordered by record_time, then event_id") {
    // Keys in the file: "10", "2", "1", "0"; "1" and "10" share a record_time.
    const auto run = detail_fixtures.read(detail_fixture);
    const auto prompts = run.requests.prompt_tokens();
    REQUIRE(prompts.size() == 4);
    CHECK(prompts[0] == 7);   // "0", record_time 1000.5
    CHECK(prompts[1] == 30);  // "1", 1002.0
    CHECK(prompts[2] == 50);  // "10", 1002.0
    CHECK(prompts[3] == 200); // "2", 1003.5
}

TEST_CASE("a BurstGPT request is sent total_chunk_time before its record_time, 0 = the first send") {
    // "2" is sent first: 1003.5 - 4.0 = 999.5 is the origin.
    const auto first_sent = detail_fixtures.row(detail_fixture, 3);
    CHECK(first_sent.t_sent == 0.0);
    CHECK(first_sent.t_first == 0.25);
    CHECK(first_sent.t_end == 4.0);
    // "0": record_time 1000.5, total 0.5, first 0.0625.
    const auto r = detail_fixtures.row(detail_fixture, 0);
    CHECK(r.t_sent == 0.5);
    CHECK(r.t_first == 0.5625);
    CHECK(r.t_end == 1.0);
}

TEST_CASE("a BurstGPT request has in_len as prompt tokens, out_len_expected as max_tokens and no output tokens") {
    const auto r = detail_fixtures.row(detail_fixture, 1);
    CHECK(r.prompt_tokens == 30);
    CHECK(r.max_tokens == 1024);
    CHECK_FALSE(r.output_tokens.has_value()); // out_len (97) counts characters
    CHECK(r.status == request_status::ok);
    CHECK_FALSE(r.t_sched.has_value());
}

TEST_CASE("a BurstGPT run takes scale and prompt_num from the file name and max_tokens from the records") {
    const auto run = detail_fixtures.read(detail_fixture);
    CHECK(run.meta.label == "detail_log_scale250_prompt4");
    CHECK(run.meta.tool == "burstgpt");
    CHECK(run.meta.source.format == "burstgpt-detail");
    CHECK(run.meta.source.path == detail_fixtures.path(detail_fixture).string());
    CHECK(run.meta.kind == run_kind::requests);
    CHECK(run.meta.shared_clock);
    CHECK(run.meta.params == nlohmann::json{{"scale", 250}, {"prompt_num", 4}, {"max_tokens", 1024}});
    CHECK(run.meta.params["scale"].is_number_integer());
}

TEST_CASE("a BurstGPT run says its output length is in characters") {
    const auto run = detail_fixtures.read(detail_fixture);
    CHECK(has_note_containing(run, "output length recorded in characters"));
    CHECK(has_note_containing(run, "output tokens, tpot and token rates are unavailable"));
    CHECK(has_note_containing(run, "GPU_*"));
}

TEST_CASE("missing BurstGPT event ids are counted in a note") {
    // Ids 0, 1, 2 and 10: 3..9 are missing.
    CHECK(has_note_containing(detail_fixtures.read(detail_fixture), "7 event ids below the largest are missing"));
}

TEST_CASE("a BurstGPT first_chunk_time of 0 leaves TTFT absent and says so") {
    const temp_file file(one_request(R"("first_chunk_time": 0, "total_chunk_time": 2.0, "record_time": 10.0)"),
                         "detail.json");
    const auto run = read_one(burstgpt_detail_format, file.path());
    const auto r = run.requests.row(0);
    CHECK_FALSE(r.t_first.has_value());
    CHECK(r.t_end == 2.0);
    CHECK(has_note_containing(run, "1 requests have first_chunk_time 0"));
}

TEST_CASE("a BurstGPT log without scale in its name has no scale parameter") {
    const temp_file file(one_request(R"("first_chunk_time": 0.5, "total_chunk_time": 2.0, "record_time": 10.0)"),
                         "detail.json");
    const auto run = read_one(burstgpt_detail_format, file.path());
    CHECK_FALSE(run.meta.params.contains("scale"));
    CHECK_FALSE(run.meta.params.contains("prompt_num"));
}

TEST_CASE("numbers in BurstGPT file names") {
    using servestat::detail::number_in_file_name;
    CHECK(number_in_file_name("detail_log_scale100_prompt500", "scale") == nlohmann::json(100));
    CHECK(number_in_file_name("detail_log_scale100_prompt500", "prompt") == nlohmann::json(500));
    CHECK(number_in_file_name("vllm_log_scale1.5_prompt500", "scale") == nlohmann::json(1.5));
    CHECK_FALSE(number_in_file_name("upscale2", "scale").has_value());
    CHECK_FALSE(number_in_file_name("scale_x", "scale").has_value());
}

// ---------------------------------------------------------------- burstgpt-detail, the shared replay

TEST_CASE("each BurstGPT replay file holds 500 successful requests without output tokens") {
    for (const auto& ref : references) {
        CAPTURE(ref.scale);
        const auto run = read_one(burstgpt_detail_format, detail_log(ref.scale));
        const auto stats = servestat::analyze(run);
        CHECK(run.requests.size() == 500);
        CHECK(stats.ok == 500);
        CHECK(run.meta.params["scale"] == ref.scale);
        CHECK(run.meta.params["prompt_num"] == 500);
        CHECK(run.meta.params["max_tokens"] == 1024);
        CHECK(stats.output_tokens.n == 0);
        const auto outputs = run.requests.output_tokens();
        CHECK(std::all_of(outputs.begin(), outputs.end(), [](auto n) { return n == servestat::absent_count; }));
        CHECK_FALSE(stats.output_tps.has_value());
        CHECK(servestat::find_summary(stats, "all", metric::tpot)->n == 0);
        CHECK(has_note_containing(run, "output length recorded in characters"));
    }
}

TEST_CASE("BurstGPT TTFT p50 and p99 per scale match numpy's linear percentiles of first_chunk_time") {
    for (const auto& ref : references) {
        CAPTURE(ref.scale);
        const auto stats = servestat::analyze(read_one(burstgpt_detail_format, detail_log(ref.scale)));
        CHECK(servestat::find_percentile(stats, "all", metric::ttft, 50.0).value() ==
              Approx(ref.ttft_p50).epsilon(relative));
        CHECK(servestat::find_percentile(stats, "all", metric::ttft, 99.0).value() ==
              Approx(ref.ttft_p99).epsilon(relative));
    }
}

TEST_CASE("BurstGPT e2e p50 and p99 per scale match numpy's linear percentiles of total_chunk_time") {
    for (const auto& ref : references) {
        CAPTURE(ref.scale);
        const auto stats = servestat::analyze(read_one(burstgpt_detail_format, detail_log(ref.scale)));
        CHECK(servestat::find_percentile(stats, "all", metric::e2e, 50.0).value() ==
              Approx(ref.e2e_p50).epsilon(relative));
        CHECK(servestat::find_percentile(stats, "all", metric::e2e, 99.0).value() ==
              Approx(ref.e2e_p99).epsilon(relative));
    }
}

TEST_CASE("a BurstGPT run starts at its first send and lasts to its last record_time") {
    for (const auto& ref : references) {
        CAPTURE(ref.scale);
        const auto run = read_one(burstgpt_detail_format, detail_log(ref.scale));
        const auto sent = run.requests.t_sent();
        CHECK(*std::min_element(sent.begin(), sent.end()) == 0.0);
        CHECK(run.requests.t_end().back() == Approx(ref.span).epsilon(relative)); // ordered by record_time
        CHECK(servestat::analyze(run).duration.value() == Approx(ref.span).epsilon(relative));
    }
}

TEST_CASE("BurstGPT TTFT rises from 0.07 s at scale 100 to 5.7 s at scale 2000, as SOURCE.md says") {
    const auto p50 = [](int scale) {
        return servestat::find_percentile(servestat::analyze(read_one(burstgpt_detail_format, detail_log(scale))),
                                          "all", metric::ttft, 50.0)
            .value();
    };
    CHECK(p50(100) == Approx(0.07).margin(0.005));
    CHECK(p50(2000) == Approx(5.7).margin(0.05));
}

// ---------------------------------------------------------------- burstgpt-detail, bad input

TEST_CASE("a truncated BurstGPT detail log names the file and line") {
    const std::string text = detail_fixtures.text(detail_fixture);
    const temp_file file(text.substr(0, text.size() / 2), "detail.json");
    const input_error e = read_error(burstgpt_detail_format, file.path());
    CHECK(e.file() == file.str());
    CHECK(e.line() == 1);
    CHECK(std::string(e.what()).find("truncated") != std::string::npos);
}

TEST_CASE("a negative BurstGPT first_chunk_time names the request and field") {
    const temp_file file(R"({"0": {"event_id": 0, "in_len": 7, "first_chunk_time": 0.1, "total_chunk_time": 0.5,
 "record_time": 10.0},
"3": {"event_id": 3, "in_len": 7, "first_chunk_time": -0.1, "total_chunk_time": 0.5, "record_time": 11.0}})",
                         "detail.json");
    const input_error e = read_error(burstgpt_detail_format, file.path());
    CHECK(e.file() == file.str());
    CHECK(e.line() == 1);
    CHECK(e.field() == "\"3\".first_chunk_time");
    CHECK(e.reason() == "negative duration");
}

TEST_CASE("a BurstGPT first chunk after the end of the stream is an error") {
    const temp_file file(R"({"17": {"event_id": 17, "in_len": 7, "first_chunk_time": 2.5, "total_chunk_time": 2.0,
 "record_time": 10.0}})",
                         "detail.json");
    const input_error e = read_error(burstgpt_detail_format, file.path());
    CHECK(e.field() == "\"17\".first_chunk_time");
    CHECK(e.reason().find("after the end of the stream") != std::string::npos);
}

TEST_CASE("a BurstGPT count of the wrong type names the field") {
    const temp_file file(R"({"0": {"event_id": 0, "in_len": "seven", "first_chunk_time": 0.1, "total_chunk_time": 0.5,
 "record_time": 10.0}})",
                         "detail.json");
    const input_error e = read_error(burstgpt_detail_format, file.path());
    CHECK(e.field() == "\"0\".in_len");
    CHECK(e.reason() == "expected a number, got string");
}

TEST_CASE("a BurstGPT request without total_chunk_time is an error") {
    const temp_file file(R"({"0": {"event_id": 0, "in_len": 7, "first_chunk_time": 0.1, "record_time": 10.0}})",
                         "detail.json");
    const input_error e = read_error(burstgpt_detail_format, file.path());
    CHECK(e.field() == "\"0\".total_chunk_time");
    CHECK(e.reason() == "missing required field");
}

TEST_CASE("a BurstGPT detail log that is not one object is an error") {
    const temp_file array("[1, 2]", "detail.json");
    CHECK(read_error(burstgpt_detail_format, array.path()).reason() == "expected an object, got array");
    const temp_file two(R"({"0": {}}
{"1": {}})",
                        "detail.json");
    CHECK(read_error(burstgpt_detail_format, two.path()).line() == 2);
    const temp_file empty("{}", "detail.json");
    CHECK(read_error(burstgpt_detail_format, empty.path()).reason() == "no requests in the object");
}

TEST_CASE("a reader under --skip-bad skips and counts a bad BurstGPT request") {
    const temp_file file(R"({"0": {"event_id": 0, "in_len": 7, "first_chunk_time": 0.1, "total_chunk_time": 0.5,
 "record_time": 10.0},
"3": {"event_id": 3, "in_len": 7, "first_chunk_time": -0.1, "total_chunk_time": 0.5, "record_time": 11.0}})",
                         "detail.json");
    const auto run = read_one(burstgpt_detail_format, file.path(), {.skip_bad = true});
    CHECK(run.requests.size() == 1);
    CHECK(run.skipped.count == 1);
}

// ---------------------------------------------------------------- vllm-server-stats

TEST_CASE("a vLLM stats timeline is a summary run without requests") {
    const auto run = stats_fixtures.read(stats_fixture);
    CHECK(run.requests.empty());
    CHECK(run.meta.kind == run_kind::summary);
    CHECK(run.meta.label == "vllm_log_scale250_prompt4");
    CHECK(run.meta.source.format == "vllm-server-stats");
    CHECK(run.meta.params == nlohmann::json{{"scale", 250}, {"prompt_num", 4}});
    CHECK(has_note_containing(run, "not request records"));
    CHECK(has_note_containing(run, "detail_log file of the same scale"));
}

TEST_CASE("a vLLM stats timeline reports its means and maxima in order, with units") {
    // pandas: DataFrame.mean() and .max() of the fixture; KV-cache percentages divided by 100.
    const auto run = stats_fixtures.read(stats_fixture);
    const std::vector<std::string> names{"vllm.samples",
                                         "vllm.timeline_span",
                                         "vllm.prompt_throughput.mean",
                                         "vllm.prompt_throughput.max",
                                         "vllm.generation_throughput.mean",
                                         "vllm.generation_throughput.max",
                                         "vllm.num_running.mean",
                                         "vllm.num_running.max",
                                         "vllm.num_pending.mean",
                                         "vllm.num_pending.max",
                                         "vllm.num_swapped.max",
                                         "vllm.gpu_kvcache_usage.mean",
                                         "vllm.gpu_kvcache_usage.max",
                                         "vllm.cpu_kvcache_usage.max"};
    const std::vector<double> values{4.0, 1.5, 300.0, 1200.0, 100.0, 250.0, 1.5, 3.0, 1.25, 4.0, 0.0, 0.21875, 0.5, 0.0};
    const std::vector<std::string> units{"samples",   "s",         "tok/s",     "tok/s",     "tok/s",
                                         "tok/s",     "sequences", "sequences", "sequences", "sequences",
                                         "sequences", "fraction",  "fraction",  "fraction"};
    REQUIRE(run.meta.reported.size() == names.size());
    for (std::size_t i = 0; i < names.size(); ++i) {
        CAPTURE(i);
        CHECK(run.meta.reported[i].name == names[i]);
        CHECK(run.meta.reported[i].value == values[i]);
        CHECK(run.meta.reported[i].unit == units[i]);
    }
}

TEST_CASE("vLLM stats of the shared replay match pandas") {
    // pandas 1.5.3: d = pd.read_csv(vllm_log, float_precision="round_trip") (the default parser can be
    // 1 ulp off), then column .mean() / .max(); the KV-cache column / 100;
    // duration = last timestamp - first. Means are plain sums here and pairwise sums in pandas, so they
    // agree to rounding (relative 1e-12); maxima and the duration are exact.
    struct expected {
        int scale;
        double duration, pending_mean, pending_max, generation_mean, generation_max, prompt_mean, kv_max, kv_mean,
            running_mean, running_max;
    };
    const expected cases[] = {
        {100, 420.4952091164887, 0.01486988847583643, 4, 1276.384164562497, 3606.1868246546082, 613.8694854237223,
         0.192519706741635, 0.042364858177239874, 31.08364312267658, 150},
        {2000, 133.37295885197818, 60.247899159663866, 294, 2692.705264519626, 3678.12070664987, 1338.3256849414083,
         0.4605313929772339, 0.266390399387802, 191.92857142857142, 256},
    };
    for (const auto& c : cases) {
        CAPTURE(c.scale);
        const auto run = read_one(vllm_server_stats_format, vllm_log(c.scale));
        CHECK(reported(run, "vllm.timeline_span")->value == c.duration);
        CHECK(reported(run, "vllm.num_pending.mean")->value == Approx(c.pending_mean).epsilon(1e-12));
        CHECK(reported(run, "vllm.num_pending.max")->value == c.pending_max);
        CHECK(reported(run, "vllm.generation_throughput.mean")->value == Approx(c.generation_mean).epsilon(1e-12));
        CHECK(reported(run, "vllm.generation_throughput.max")->value == c.generation_max);
        CHECK(reported(run, "vllm.prompt_throughput.mean")->value == Approx(c.prompt_mean).epsilon(1e-12));
        CHECK(reported(run, "vllm.gpu_kvcache_usage.max")->value == c.kv_max);
        CHECK(reported(run, "vllm.gpu_kvcache_usage.mean")->value == Approx(c.kv_mean).epsilon(1e-12));
        CHECK(reported(run, "vllm.num_running.mean")->value == Approx(c.running_mean).epsilon(1e-12));
        CHECK(reported(run, "vllm.num_running.max")->value == c.running_max);
    }
}

TEST_CASE("every vLLM stats file of the shared replay reads, 3,677 samples in all") {
    std::size_t samples = 0;
    for (const auto& ref : references) {
        CAPTURE(ref.scale);
        const auto run = read_one(vllm_server_stats_format, vllm_log(ref.scale));
        CHECK(run.meta.params["scale"] == ref.scale);
        CHECK(run.skipped.count == 0);
        samples += static_cast<std::size_t>(reported(run, "vllm.samples").value().value);
    }
    CHECK(samples == 3677); // SOURCE.md
}

TEST_CASE("a vLLM stats file without num_pending names the column") {
    const temp_file file("timestamp,prompt_throughput,generation_throughput,num_running,gpu_kvcache_usage\n"
                         "1.0,0,0,0,0\n",
                         "stats.csv");
    const input_error e = read_error(vllm_server_stats_format, file.path());
    CHECK(e.file() == file.str());
    CHECK(e.line() == 1);
    CHECK(e.field() == "num_pending");
}

TEST_CASE("a vLLM stats cell of the wrong type names line and column") {
    const std::string text = stats_fixtures.text(stats_fixture);
    const temp_file file(text + "1002.0,0.0,10.0,two,0,0,1.0,0.0\n", "stats.csv");
    const input_error e = read_error(vllm_server_stats_format, file.path());
    CHECK(e.line() == 6);
    CHECK(e.field() == "num_running");
}

TEST_CASE("a vLLM stats timeline that goes backwards is an error") {
    const std::string text = stats_fixtures.text(stats_fixture);
    const temp_file file(text + "1001.0,0.0,10.0,1,0,0,1.0,0.0\n", "stats.csv");
    const input_error e = read_error(vllm_server_stats_format, file.path());
    CHECK(e.line() == 6);
    CHECK(e.field() == "timestamp");
}

TEST_CASE("a vLLM KV-cache usage above 100 percent is an error") {
    const std::string text = stats_fixtures.text(stats_fixture);
    const temp_file file(text + "1002.0,0.0,10.0,1,0,0,150.0,0.0\n", "stats.csv");
    const input_error e = read_error(vllm_server_stats_format, file.path());
    CHECK(e.field() == "gpu_kvcache_usage");
}

TEST_CASE("a vLLM stats file with only a header is an error") {
    const std::string text = stats_fixtures.text(stats_fixture);
    const temp_file file(text.substr(0, text.find('\n') + 1), "stats.csv");
    CHECK(read_error(vllm_server_stats_format, file.path()).reason() == "no samples after the header");
}

TEST_CASE("a reader under --skip-bad skips a bad vLLM stats row without counting it in the statistics") {
    const std::string text = stats_fixtures.text(stats_fixture);
    const temp_file file(text + "1002.0,0.0,9999.0,two,0,0,1.0,0.0\n", "stats.csv");
    const auto run = read_one(vllm_server_stats_format, file.path(), {.skip_bad = true});
    CHECK(run.skipped.count == 1);
    CHECK(reported(run, "vllm.generation_throughput.max")->value == 250.0);
    CHECK(reported(run, "vllm.timeline_span")->value == 1.5);
}

// ---------------------------------------------------------------- sniffing

TEST_CASE("the BurstGPT sniffers pick exactly their files in the shared data") {
    for (const auto& entry : fs::recursive_directory_iterator(SERVESTAT_SHARED_DATA_DIR)) {
        if (!entry.is_regular_file()) continue;
        const std::string head = file_head(entry.path());
        const std::string folder = entry.path().parent_path().filename().string();
        const bool in_replay = entry.path().string().find("burstgpt-replay-vllm-liao4s") != std::string::npos;
        CAPTURE(entry.path().string());
        if (in_replay && folder == "detail_log") CHECK(burstgpt_detail_format.sniff(head) == 100);
        else CHECK(burstgpt_detail_format.sniff(head) == 0);
        if (in_replay && folder == "vllm_log") CHECK(vllm_server_stats_format.sniff(head) == 100);
        else CHECK(vllm_server_stats_format.sniff(head) == 0);
    }
}

TEST_CASE("the BurstGPT sniffers return 0 on every other test file and example log") {
    const fs::path data(SERVESTAT_TEST_DATA_DIR);
    for (const fs::path& dir : {data, data / ".." / ".." / "examples" / "logs"}) {
        for (const auto& entry : fs::recursive_directory_iterator(dir)) {
            if (!entry.is_regular_file()) continue;
            const std::string head = file_head(entry.path());
            const std::string name = entry.path().filename().string();
            CAPTURE(entry.path().string());
            CHECK((burstgpt_detail_format.sniff(head) > 0) == (name == detail_fixture));
            CHECK((vllm_server_stats_format.sniff(head) > 0) == (name == stats_fixture));
        }
    }
}

} // namespace test_ingest_burstgpt

namespace test_ingest_burstgpt {

// The harness's two logs of one replay are one run: the detail log's requests with the stats
// timeline of the same scale as its server timeline and vllm.* values (SOURCE.md: the same
// perf_counter clock).
TEST_CASE("a BurstGPT detail log takes the vLLM stats of its scale as its server timeline, on its own clock") {
    const auto run = read_one(burstgpt_detail_format, detail_log(100));
    REQUIRE(run.meta.server_timeline);
    const auto& s = *run.meta.server_timeline;
    // t = 0 is the first send: the smallest record_time − total_chunk_time of the detail log.
    const auto detail = nlohmann::json::parse(servestat::detail::read_whole_file(detail_log(100)));
    double origin = std::numeric_limits<double>::infinity();
    for (const auto& [key, r] : detail.items())
        origin = std::min(origin, r["record_time"].get<double>() - r["total_chunk_time"].get<double>());
    // The stats file's first sample: its first data line's timestamp (the first column).
    std::ifstream csv(vllm_log(100));
    std::string header, first;
    std::getline(csv, header);
    std::getline(csv, first);
    REQUIRE(header.starts_with("timestamp,"));
    const double first_time = std::stod(first.substr(0, first.find(',')));
    REQUIRE(!s.t.empty());
    CHECK(s.t.front() == Approx(first_time - origin).margin(1e-9));
    const auto* waiting = s.find("vllm:num_requests_waiting");
    REQUIRE(waiting);
    CHECK(waiting->size() == s.t.size());
    CHECK(s.find("vllm:num_requests_running"));
    CHECK(s.find("vllm:gpu_cache_usage_perc"));
    // Its aggregates are the stats file's, read alone.
    const auto alone = read_one(vllm_server_stats_format, vllm_log(100));
    CHECK(reported(run, "vllm.samples")->value == reported(alone, "vllm.samples")->value);
    CHECK(reported(run, "vllm.num_pending.max")->value == reported(alone, "vllm.num_pending.max")->value);
    CHECK(std::find(run.meta.source.merged.begin(), run.meta.source.merged.end(), vllm_log(100).string()) !=
          run.meta.source.merged.end());
}

TEST_CASE("the shared replay's folder reads as 12 runs of one sweep over scale, the stats files merged") {
    std::vector<servestat::directory_listing> listings;
    servestat::load_options o;
    o.listed = [&](const servestat::directory_listing& l) { listings.push_back(l); };
    const auto runs = servestat::read_logs(std::vector<std::string>{replay_dir.string()}, o);
    CHECK(runs.size() == 12);
    for (const auto& r : runs) CHECK(r.meta.source.format == "burstgpt-detail");
    REQUIRE(listings.size() == 1);
    for (const auto& p : listings[0].passed_over) CHECK(fs::path(p.path).filename() == "SOURCE.md");
}

} // namespace test_ingest_burstgpt
