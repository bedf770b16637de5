// Tests for servestat/ingest/llmperf.hpp (llmperf, llmperf-summary) and llmperf_console.hpp
// (llmperf-console) against the real LLMPerf files in shared/data (llmperf-leaderboard: 19 runs of
// hosted providers; llmperf-sglang-sweep-hongxuanzhang: 5 JSON pairs and 54 console logs) and
// small hand-written inputs.
//
// How LLMPerf computes its summary (token_benchmark_ray.py, ray-project/llmperf f1d6bed):
// `pd.Series(values of requests whose error_code is null).dropna().quantile([.25,.5,.75,.9,.95,.99])`
// (pandas linear = numpy "linear" = Hyndman-Fan type 7), `.mean()`, `.min()`, `.max()`, `.std()`
// (ddof = 1), failed requests excluded. Checked before writing these tests with /usr/bin/python3
// (numpy 1.24.2, pandas 1.5.3) on every one of the 24 pairs: recomputing that way from the
// individual file reproduces every summary number (all six quantities, all ten statistics) to
// within 1e-12 relative; including failed rows, or ddof = 0, does not. The cross-check below
// asserts the same agreement with servestat's own statistics at 1e-9 relative.
#include "servestat/ingest/llmperf.hpp"
#include "servestat/ingest/llmperf_console.hpp"
#include "servestat/ingest/detect.hpp" // detect_file_format, detect_format, read_logs
#include "servestat/ingest/restated_run.hpp" // console_restates, run_values
#include "servestat/sweep/sweep.hpp"   // find_sweeps

#include <algorithm>   // std::max, std::sort, std::count_if
#include <cmath>       // std::abs
#include <cstddef>     // std::size_t
#include <filesystem>  // std::filesystem
#include <fstream>     // std::ifstream, std::ofstream
#include <iterator>    // std::istreambuf_iterator
#include <map>         // std::map
#include <string>      // std::string
#include <string_view> // std::string_view
#include <vector>      // std::vector

#include <nlohmann/json.hpp> // nlohmann::json

#include "servestat/stats/run_stats.hpp" // analyze, find_summary, stats_options
#include "servestat/stats/summary.hpp"   // summarize, find_percentile
#include "format_reading.hpp"
#include "temp_file.hpp"

#include <catch2/catch.hpp> // TEST_CASE, SECTION, REQUIRE, CHECK

namespace test_ingest_llmperf { // the unity build compiles several test files as one: each keeps its names

namespace {

using servestat::test::has_note;

using servestat::test::file_head;
using servestat::test::read_error;
using servestat::test::read_one;

namespace fs = std::filesystem;
using servestat::input_error;
using servestat::llmperf_console_format;
using servestat::llmperf_format;
using servestat::llmperf_summary_format;
using servestat::log_format;
using servestat::metric;
using servestat::read_options;
using servestat::request_status;
using servestat::run;
using servestat::run_kind;
using servestat::test::temp_file;

const fs::path shared = SERVESTAT_SHARED_DATA_DIR;
const fs::path leaderboard = shared / "llmperf-leaderboard" / "raw_data";
const fs::path sweep = shared / "llmperf-sglang-sweep-hongxuanzhang" / "result_outputs";

std::string file_text(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

nlohmann::json json_file(const fs::path& file) { return nlohmann::json::parse(file_text(file)); }

// LLMPerf writes numpy integers as strings ("550"); everything else as numbers.
double number(const nlohmann::json& v) { return v.is_string() ? std::stod(v.get<std::string>()) : v.get<double>(); }

bool close(double a, double b, double relative = 1e-9) {
    return a == b || std::abs(a - b) <= relative * std::max(std::abs(a), std::abs(b));
}

const servestat::reported_value* reported(const run& r, std::string_view name) {
    return servestat::find_reported(r.meta, name);
}

double reported_value(const run& r, std::string_view name) {
    const auto* v = reported(r, name);
    INFO("reported value " << name);
    REQUIRE(v != nullptr);
    return v->value;
}

struct pair_paths {
    fs::path individual, summary;
};

// The 19 leaderboard runs and the 5 SGLang-sweep runs, each with the summary LLMPerf wrote for it.
std::vector<pair_paths> all_pairs() {
    std::vector<pair_paths> pairs;
    for (const auto& e : fs::directory_iterator(leaderboard / "individual"))
        pairs.push_back({e.path(), leaderboard / "summary" / e.path().filename()});
    for (const auto& e : fs::directory_iterator(sweep)) {
        const std::string name = e.path().filename().string();
        const auto at = name.find("_individual_responses.json");
        if (at != std::string::npos) pairs.push_back({e.path(), sweep / (name.substr(0, at) + "_summary.json")});
    }
    std::sort(pairs.begin(), pairs.end(), [](const auto& a, const auto& b) { return a.individual < b.individual; });
    return pairs;
}

std::vector<fs::path> console_files() {
    std::vector<fs::path> files;
    for (const char* deployment : {"GPU1", "GPU2_DP2", "GPU2_TP2"})
        for (const auto& e : fs::directory_iterator(sweep / deployment)) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    return files;
}

// Records per file and failed records, from the data's SOURCE.md (and counted with python's json).
struct leaderboard_counts {
    const char* name;
    std::size_t records, failed;
};

constexpr leaderboard_counts leaderboard_files[] = {
    {"anyscale_13b", 150, 0},  {"anyscale_70b", 150, 0},   {"anyscale_7b", 150, 0},
    {"bedrock_13b", 150, 97},  {"bedrock_70b", 150, 49},   {"fireworks_13b", 150, 0},
    {"fireworks_70b", 150, 0}, {"fireworks_7b", 150, 0},   {"groq_70b", 150, 0},
    {"lepton_13b", 150, 130},  {"lepton_70b", 150, 130},   {"lepton_7b", 150, 130},
    {"perplexity_70b", 150, 2}, {"replicate_13b", 150, 0}, {"replicate_70b", 145, 0},
    {"replicate_7b", 150, 0},  {"together_13b", 150, 1},   {"together_70b", 150, 0},
    {"together_7b", 150, 0},
};

constexpr const char* metric_keys[] = {"inter_token_latency_s", "ttft_s", "end_to_end_latency_s",
                                       "request_output_throughput_token_per_s", "number_input_tokens",
                                       "number_output_tokens"};
constexpr const char* metric_names[] = {"llmperf.inter_token_latency_s", "ttft", "e2e",
                                        "llmperf.request_output_throughput_token_per_s", "prompt_tokens",
                                        "output_tokens"};
constexpr const char* stat_keys[] = {"quantiles_p25", "quantiles_p50", "quantiles_p75", "quantiles_p90", "quantiles_p95",
                                     "quantiles_p99", "mean", "min", "max", "stddev"};
constexpr const char* stat_names[] = {"p25", "p50", "p75", "p90", "p95", "p99", "mean", "min", "max", "std"};
constexpr double percentiles[] = {25, 50, 75, 90, 95, 99};

const servestat::stats_options llmperf_statistics{
    .summary = {.method = servestat::quantile_method::linear, .ddof = 1, .percentiles = {25, 50, 75, 90, 95, 99}}};

// The ten statistics of `s` against results_<key>_* of LLMPerf's summary file.
void check_against_summary(const servestat::summary& s, const nlohmann::json& summary, const std::string& key) {
    const std::string prefix = "results_" + key + "_";
    for (std::size_t k = 0; k < 6; ++k) {
        const auto mine = servestat::find_percentile(s, percentiles[k]);
        REQUIRE(mine.has_value());
        INFO(prefix << stat_keys[k] << ": servestat " << *mine);
        CHECK(close(*mine, number(summary.at(prefix + stat_keys[k]))));
    }
    REQUIRE(s.mean.has_value());
    REQUIRE(s.std.has_value());
    INFO(prefix << "mean/min/max/stddev: servestat " << *s.mean << " " << *s.min << " " << *s.max << " " << *s.std);
    CHECK(close(*s.mean, number(summary.at(prefix + "mean"))));
    CHECK(close(*s.min, number(summary.at(prefix + "min"))));
    CHECK(close(*s.max, number(summary.at(prefix + "max"))));
    CHECK(close(*s.std, number(summary.at(prefix + "stddev"))));
}

} // namespace

// ---------------------------------------------------------------------------------------------
// Format names and detection

TEST_CASE("the LLMPerf formats are named llmperf, llmperf-summary and llmperf-console") {
    CHECK(llmperf_format.name == "llmperf");
    CHECK(llmperf_summary_format.name == "llmperf-summary");
    CHECK(llmperf_console_format.name == "llmperf-console");
}

TEST_CASE("each LLMPerf sniffer claims exactly its own files in shared/data and tests/data") {
    std::size_t individual = 0, summaries = 0, consoles = 0;
    for (const fs::path& root : std::vector<fs::path>{shared, SERVESTAT_TEST_DATA_DIR})
        for (const auto& e : fs::recursive_directory_iterator(root)) {
            if (!e.is_regular_file()) continue;
            const fs::path& p = e.path();
            const std::string name = p.filename().string();
            const std::string folder = p.parent_path().filename().string();
            const bool in_sweep = p.string().find("llmperf-sglang-sweep-hongxuanzhang") != std::string::npos;
            // tests/data's LLMPerf folders (other tools name files *_summary.json too: mlcommons/endpoints' result_summary.json)
            const bool in_tests = p.string().starts_with(SERVESTAT_TEST_DATA_DIR) &&
                                  p.lexically_relative(SERVESTAT_TEST_DATA_DIR).begin()->string().starts_with("llmperf");
            const bool is_individual = folder == "individual" || name.ends_with("_individual_responses.json");
            // tests/data/llmperf: summaries written unflattened and several runs' summaries in one file
            const bool is_summary = folder == "summary" || ((in_sweep || in_tests) && name.ends_with("_summary.json")) ||
                                    (folder == "llmperf" && name.ends_with(".json"));
            const bool is_console = in_sweep && name.ends_with(".txt");
            const std::string head = file_head(p);
            INFO(p);
            CHECK((llmperf_format.sniff(head) >= 60) == is_individual);
            CHECK((llmperf_format.sniff(head) == 0) == !is_individual);
            CHECK((llmperf_summary_format.sniff(head) >= 60) == is_summary);
            CHECK((llmperf_summary_format.sniff(head) == 0) == !is_summary);
            CHECK((llmperf_console_format.sniff(head) >= 60) == is_console);
            CHECK((llmperf_console_format.sniff(head) == 0) == !is_console);
            individual += is_individual;
            summaries += is_summary;
            consoles += is_console;
        }
    CHECK(individual >= 24); // the real files, and small runs in tests/data
    CHECK(summaries >= 24 + 3);
    CHECK(consoles == 54);
}

TEST_CASE("real LLMPerf files are recognised with full confidence") {
    CHECK(llmperf_format.sniff(file_head(leaderboard / "individual" / "bedrock_13b.json")) == 100);
    CHECK(llmperf_summary_format.sniff(file_head(leaderboard / "summary" / "lepton_7b.json")) == 100);
    CHECK(llmperf_console_format.sniff(file_head(sweep / "GPU1" / "requests_8_tokens_3500.txt")) == 100);
}

TEST_CASE("the sweep's SOURCE.md, which quotes the results line, is not a console log") {
    const std::string head = file_head(sweep.parent_path() / "SOURCE.md");
    REQUIRE(head.find("Results for token benchmark for") != std::string::npos);
    CHECK(llmperf_console_format.sniff(head) == 0);
}

TEST_CASE("a console log whose head holds only the results line is still probably LLMPerf's") {
    CHECK(llmperf_console_format.sniff("noise\n\\Results for token benchmark for m queried with the openai api.\n") == 60);
}

// ---------------------------------------------------------------------------------------------
// llmperf: per-request files

TEST_CASE("every leaderboard file reads with its request and failure counts") {
    for (const auto& f : leaderboard_files) {
        INFO(f.name);
        const run r = read_one(llmperf_format, leaderboard / "individual" / (std::string(f.name) + ".json"));
        CHECK(r.requests.size() == f.records);
        std::size_t failed = 0;
        for (auto s : r.requests.status()) failed += s != request_status::ok;
        CHECK(failed == f.failed);
        CHECK(r.skipped.count == 0);
    }
}

TEST_CASE("every SGLang-sweep individual file reads with all requests successful") {
    const std::map<std::string, std::size_t> records{
        {"llama2-7b-chat_1000_150", 80}, {"llama2-7b-chat_3500_150", 80}, {"llama2-7b-chat_550_150", 80},
        {"meta-llama-Llama-2-7b-chat-hf_3500_150", 80}, {"meta-llama-Llama-2-7b-chat-hf_550_150", 96}};
    for (const auto& [label, n] : records) {
        INFO(label);
        const run r = read_one(llmperf_format, sweep / (label + "_individual_responses.json"));
        CHECK(r.meta.label == label);
        CHECK(r.requests.size() == n);
        for (auto s : r.requests.status()) CHECK(s == request_status::ok);
    }
}

TEST_CASE("an LLMPerf request starts at 0, first token at ttft_s, ends at end_to_end_latency_s") {
    // lepton_7b.json, element [0], as written in the file.
    const run r = read_one(llmperf_format, leaderboard / "individual" / "lepton_7b.json");
    const auto row = r.requests.row(0);
    CHECK(row.status == request_status::ok);
    CHECK(row.t_sent == 0.0);
    CHECK(row.t_first == 1.1272406630000091);
    CHECK(row.t_end == 4.543510072000004);
    CHECK(row.prompt_tokens == 550);
    CHECK(row.output_tokens == 151);
    CHECK(row.itl.empty());
    CHECK_FALSE(r.meta.shared_clock);
    CHECK(r.meta.kind == run_kind::requests);
    CHECK(r.meta.tool == "llmperf");
    CHECK(r.meta.source.format == "llmperf");
}

TEST_CASE("failed LLMPerf requests carry no latency and no output count") {
    for (const char* name : {"lepton_7b", "bedrock_13b", "bedrock_70b", "perplexity_70b", "together_13b"}) {
        INFO(name);
        const run r = read_one(llmperf_format, leaderboard / "individual" / (std::string(name) + ".json"));
        std::size_t failed = 0;
        for (std::size_t i = 0; i < r.requests.size(); ++i) {
            const auto row = r.requests.row(i);
            if (row.status == request_status::ok) continue;
            ++failed;
            CHECK_FALSE(row.t_first.has_value());
            CHECK_FALSE(row.t_end.has_value());
            CHECK_FALSE(row.output_tokens.has_value());
            CHECK(row.prompt_tokens == 550);
        }
        CHECK(failed > 0);
    }
}

TEST_CASE("error_code 429 is HTTP 429; -1 and -100 are LLMPerf's own codes, without an HTTP status") {
    SECTION("lepton: 429 with an empty error_msg") {
        const run r = read_one(llmperf_format, leaderboard / "individual" / "lepton_7b.json");
        std::size_t rate_limited = 0;
        for (std::size_t i = 0; i < r.requests.size(); ++i) {
            const auto row = r.requests.row(i);
            if (row.status == request_status::ok) continue;
            CHECK(row.status == request_status::error);
            CHECK(row.http_status == 429);
            CHECK(row.error == "LLMPerf error_code 429");
            ++rate_limited;
        }
        CHECK(rate_limited == 130);
    }
    SECTION("perplexity: 429 keeps the server's message") {
        const run r = read_one(llmperf_format, leaderboard / "individual" / "perplexity_70b.json");
        std::size_t seen = 0;
        for (std::size_t i = 0; i < r.requests.size(); ++i) {
            const auto row = r.requests.row(i);
            if (row.status == request_status::ok) continue;
            CHECK(row.http_status == 429);
            CHECK(row.error == R"({"error":{"message":"Token rate limit exceeded, please try again later.",)"
                               R"("type":"token_rate_limit_exceeded","code":429}})");
            ++seen;
        }
        CHECK(seen == 2);
    }
    SECTION("bedrock: -100 'Output too few tokens N'") {
        const auto row = read_one(llmperf_format, leaderboard / "individual" / "bedrock_13b.json").requests.row(0);
        CHECK(row.status == request_status::error);
        CHECK_FALSE(row.http_status.has_value());
        CHECK(row.error == "Output too few tokens 39");
    }
    SECTION("together: -1 with an empty error_msg") {
        const run r = read_one(llmperf_format, leaderboard / "individual" / "together_13b.json");
        std::size_t seen = 0;
        for (std::size_t i = 0; i < r.requests.size(); ++i) {
            const auto row = r.requests.row(i);
            if (row.status == request_status::ok) continue;
            CHECK(row.status == request_status::error);
            CHECK_FALSE(row.http_status.has_value());
            CHECK(row.error == "LLMPerf error_code -1");
            ++seen;
        }
        CHECK(seen == 1);
    }
}

TEST_CASE("an individual file takes model, parameters and start time from its summary beside it") {
    SECTION("leaderboard layout: summary/<x>.json beside individual/<x>.json") {
        const run r = read_one(llmperf_format, leaderboard / "individual" / "lepton_7b.json");
        CHECK(r.meta.label == "lepton_7b");
        CHECK(r.meta.model == "llama2-7b");
        CHECK(r.meta.params.at("concurrency") == 5);
        CHECK(r.meta.params.at("mean_input_tokens") == 550);
        CHECK(r.meta.params.at("stddev_input_tokens") == 0);
        CHECK(r.meta.params.at("mean_output_tokens") == 150);
        CHECK(r.meta.params.at("framework") == "lepton");
        // "timestamp": 1703638574; python: datetime.utcfromtimestamp(1703638574) = 2023-12-27 00:56:14
        CHECK(r.meta.started_at == "2023-12-27T00:56:14Z");
        CHECK(has_note(r, "{429.0: 130}"));
    }
    SECTION("LLMPerf layout: <prefix>_summary.json beside <prefix>_individual_responses.json") {
        const run r = read_one(llmperf_format, sweep / "llama2-7b-chat_1000_150_individual_responses.json");
        CHECK(r.meta.label == "llama2-7b-chat_1000_150");
        CHECK(r.meta.model == "llama2-7b-chat");
        CHECK(r.meta.params.at("concurrency") == 20);
        CHECK(r.meta.params.at("mean_input_tokens") == 1000);
        CHECK(r.meta.params.at("stddev_input_tokens") == 150);
        // "timestamp": 1727236022 → 2024-09-25 03:47:02 UTC (python datetime.utcfromtimestamp)
        CHECK(r.meta.started_at == "2024-09-25T03:47:02Z");
        CHECK(read_one(llmperf_format, sweep / "meta-llama-Llama-2-7b-chat-hf_550_150_individual_responses.json")
                  .meta.params.at("concurrency") == 24);
    }
}

TEST_CASE("the run's duration comes from the summary: completed requests / completed per minute") {
    const run r = read_one(llmperf_format, leaderboard / "individual" / "lepton_7b.json");
    // 20 completed, 22.220951183814506 per minute: python 20 * 60 / 22.220951183814506 = 54.00308880000001
    CHECK(close(reported_value(r, "duration"), 54.00308880000001, 1e-12));
    CHECK(has_note(r, "derived"));
    CHECK(has_note(r, "inter_token_latency_s includes the TTFT"));
    CHECK(has_note(r, "Llama-2 tokenizer"));
}

TEST_CASE("LLMPerf's output throughput equals servestat's from the requests and the derived duration") {
    // LLMPerf: sum of output tokens of completed requests / wall time; servestat: the same sum over
    // ok requests / the duration derived from the summary. Same wall time, so the ratio agrees.
    for (const auto& pair : all_pairs()) {
        INFO(pair.individual);
        const run r = read_one(llmperf_format, pair.individual);
        const auto stats = servestat::analyze(r);
        const nlohmann::json summary = json_file(pair.summary);
        REQUIRE(stats.output_tps.has_value());
        CHECK(close(*stats.output_tps, number(summary.at("results_mean_output_throughput_token_per_s"))));
        REQUIRE(stats.rps.has_value());
        CHECK(close(*stats.rps, number(summary.at("results_num_completed_requests_per_min")) / 60.0));
    }
}

TEST_CASE("LLMPerf's summary statistics are reproduced from its per-request records") {
    // See the file comment: pandas linear quantiles and ddof = 1 over successful requests only.
    for (const auto& pair : all_pairs()) {
        INFO(pair.individual);
        const run r = read_one(llmperf_format, pair.individual);
        const nlohmann::json summary = json_file(pair.summary);
        const auto stats = servestat::analyze(r, llmperf_statistics);
        CHECK(stats.ok == number(summary.at("results_num_completed_requests")));
        CHECK(stats.failed == number(summary.at("results_number_errors")));
        CHECK(stats.requests == number(summary.at("results_num_requests_started")));

        const auto* ttft = servestat::find_summary(stats, "all", metric::ttft);
        const auto* e2e = servestat::find_summary(stats, "all", metric::e2e);
        REQUIRE(ttft != nullptr);
        REQUIRE(e2e != nullptr);
        check_against_summary(*ttft, summary, "ttft_s");
        check_against_summary(*e2e, summary, "end_to_end_latency_s");

        std::vector<double> prompt, output;
        for (std::size_t i = 0; i < r.requests.size(); ++i) {
            if (r.requests.status()[i] != request_status::ok) continue;
            prompt.push_back(r.requests.prompt_tokens()[i]);
            output.push_back(r.requests.output_tokens()[i]);
        }
        check_against_summary(servestat::summarize(prompt, llmperf_statistics.summary), summary, "number_input_tokens");
        check_against_summary(servestat::summarize(output, llmperf_statistics.summary), summary, "number_output_tokens");
    }
}

TEST_CASE("an individual file's reported values are its summary's numbers under servestat's names") {
    for (const auto& pair : all_pairs()) {
        INFO(pair.individual);
        const run r = read_one(llmperf_format, pair.individual);
        const nlohmann::json summary = json_file(pair.summary);
        for (std::size_t m = 0; m < 6; ++m)
            for (std::size_t s = 0; s < 10; ++s) {
                const std::string name = std::string(metric_names[m]) + "." + stat_names[s];
                INFO(name);
                CHECK(reported_value(r, name) ==
                      number(summary.at(std::string("results_") + metric_keys[m] + "_" + stat_keys[s])));
            }
        CHECK(reported_value(r, "requests") == number(summary.at("results_num_requests_started")));
        CHECK(reported_value(r, "failed") == number(summary.at("results_number_errors")));
        CHECK(reported_value(r, "ok") == number(summary.at("results_num_completed_requests")));
        CHECK(reported_value(r, "output_tps") == number(summary.at("results_mean_output_throughput_token_per_s")));
        CHECK(close(reported_value(r, "rps"), number(summary.at("results_num_completed_requests_per_min")) / 60, 1e-15));
    }
}

TEST_CASE("without a summary beside it, an individual file says what cannot be derived") {
    const std::string text = file_text(sweep / "llama2-7b-chat_550_150_individual_responses.json");
    const temp_file alone(text, "mistral-7b_700_120_individual_responses.json");
    const run r = read_one(llmperf_format, alone.path());
    CHECK(r.requests.size() == 80);
    CHECK(r.meta.label == "mistral-7b_700_120");
    CHECK(r.meta.reported.empty());
    CHECK(r.meta.model.empty());
    CHECK(r.meta.started_at.empty());
    CHECK(r.meta.params.at("mean_input_tokens") == 700);
    CHECK(r.meta.params.at("mean_output_tokens") == 120);
    CHECK_FALSE(r.meta.params.contains("concurrency"));
    CHECK(has_note(r, "duration, rps and token rates cannot be derived"));
    const auto stats = servestat::analyze(r);
    CHECK_FALSE(stats.duration.has_value());
    CHECK_FALSE(stats.output_tps.has_value());
}

// ---------------------------------------------------------------------------------------------
// llmperf-summary

TEST_CASE("an LLMPerf summary alone is a summary run with the tool's numbers") {
    const run r = read_one(llmperf_summary_format, leaderboard / "summary" / "lepton_7b.json");
    CHECK(r.meta.kind == run_kind::summary);
    CHECK(r.requests.empty());
    CHECK(r.meta.label == "lepton_7b");
    CHECK(r.meta.model == "llama2-7b");
    CHECK(r.meta.source.format == "llmperf-summary");
    CHECK(r.meta.started_at == "2023-12-27T00:56:14Z");
    CHECK(r.meta.params.at("concurrency") == 5);
    // Values as lepton_7b.json writes them.
    CHECK(r.meta.reported.front().name == "llmperf.inter_token_latency_s.p25");
    CHECK(r.meta.reported.front().value == 0.02635451365066074);
    CHECK(r.meta.reported.front().unit == "s");
    CHECK(reported_value(r, "ttft.p50") == 1.130960661500012);
    CHECK(reported_value(r, "e2e.std") == 0.23814782112686117);
    CHECK(reported_value(r, "prompt_tokens.min") == 550); // written as the string "550"
    CHECK(reported_value(r, "output_tokens.max") == 151);  // "151"
    CHECK(reported_value(r, "llmperf.request_output_throughput_token_per_s.mean") == 12.502821054597955);
    CHECK(reported(r, "llmperf.request_output_throughput_token_per_s.mean")->unit == "tok/s");
    CHECK(reported(r, "output_tokens.mean")->unit == "tokens");
    CHECK(reported_value(r, "requests") == 150);
    CHECK(reported_value(r, "failed") == 130);
    CHECK(reported_value(r, "ok") == 20);
    CHECK(reported_value(r, "output_tps") == 55.904209686613335);
    CHECK(reported_value(r, "rps") == 22.220951183814506 / 60);
    CHECK(reported(r, "rps")->unit == "req/s");
    CHECK(close(reported_value(r, "duration"), 54.00308880000001, 1e-12));
    CHECK(r.meta.reported.size() == 6 * 10 + 5 + 1);
    CHECK_FALSE(reported(r, "itl.p50"));
    CHECK_FALSE(reported(r, "tpot.p50"));
}

TEST_CASE("every LLMPerf summary file reads as one summary run") {
    for (const auto& pair : all_pairs()) {
        INFO(pair.summary);
        const run r = read_one(llmperf_summary_format, pair.summary);
        CHECK(r.meta.kind == run_kind::summary);
        CHECK(r.meta.reported.size() == 66);
        CHECK(r.meta.label == read_one(llmperf_format, pair.individual).meta.label);
    }
}

TEST_CASE("a summary with NaN statistics (nothing completed) leaves them unreported") {
    const temp_file f(R"({"version": "2023-08-31", "model": "m", "num_concurrent_requests": 2,
  "results_ttft_s_quantiles_p50": NaN, "results_ttft_s_mean": NaN,
  "results_num_requests_started": 4, "results_number_errors": 4,
  "results_error_code_frequency": "{429.0: 4}", "results_mean_output_throughput_token_per_s": 0.0,
  "results_num_completed_requests": 0, "results_num_completed_requests_per_min": 0.0, "timestamp": 1703638574})",
                      "x_summary.json");
    const run r = read_one(llmperf_summary_format, f.path());
    CHECK_FALSE(reported(r, "ttft.p50"));
    CHECK(reported_value(r, "failed") == 4);
    CHECK_FALSE(reported(r, "duration"));
    CHECK(has_note(r, "no request completed"));
}

TEST_CASE("a summary value of the wrong type names its key and line") {
    const temp_file f("{\n  \"model\": \"m\",\n  \"results_ttft_s_quantiles_p50\": \"fast\"\n}", "x_summary.json");
    const input_error e = read_error(llmperf_summary_format, f.path());
    CHECK(e.file() == f.str());
    CHECK(e.line() == 3);
    CHECK(e.field() == "results_ttft_s_quantiles_p50");
}

TEST_CASE("a JSON object without results_* keys is not an LLMPerf summary") {
    const temp_file f(R"({"model": "m"})", "x_summary.json");
    CHECK(read_error(llmperf_summary_format, f.path()).reason().find("results_") != std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// Bad per-request input

TEST_CASE("bad LLMPerf request files stop the read with file, line and field") {
    const std::string ok_row = R"({"error_code": null, "error_msg": "", "ttft_s": 0.5, "end_to_end_latency_s": 2.0,
     "number_input_tokens": 550, "number_output_tokens": 150})";
    SECTION("truncated JSON") {
        const temp_file f("[\n  " + ok_row + ",\n  {\"error_code\": null, \"ttft_s\": 0.4", "x_individual_responses.json");
        const input_error e = read_error(llmperf_format, f.path());
        CHECK(e.file() == f.str());
        CHECK(e.line() > 0);
        CHECK(e.reason().find("truncated") != std::string::npos);
    }
    SECTION("a wrong type names the element's path and the line it starts on") {
        const temp_file f("[\n  " + ok_row + ",\n  {\"error_code\": null, \"ttft_s\": \"0.4\", \"end_to_end_latency_s\": 1}\n]",
                          "x_individual_responses.json");
        const input_error e = read_error(llmperf_format, f.path());
        CHECK(e.file() == f.str());
        CHECK(e.field() == "[1].ttft_s");
        CHECK(e.line() == 4); // ok_row spans lines 2-3
    }
    SECTION("a negative latency") {
        const temp_file f(R"([{"error_code": null, "ttft_s": 0.1, "end_to_end_latency_s": -1}])", "x.json");
        const input_error e = read_error(llmperf_format, f.path());
        CHECK(e.field() == "[0].end_to_end_latency_s");
        CHECK(e.reason() == "negative duration");
    }
    SECTION("ttft larger than e2e on a successful request") {
        const temp_file f(R"([{"error_code": null, "ttft_s": 3.5, "end_to_end_latency_s": 2}])", "x.json");
        const input_error e = read_error(llmperf_format, f.path());
        CHECK(e.field() == "[0].ttft_s");
        CHECK(e.reason().find("larger than end_to_end_latency_s") != std::string::npos);
    }
    SECTION("a missing error_code") {
        const temp_file f(R"([{"ttft_s": 0.5, "end_to_end_latency_s": 2}])", "x.json");
        CHECK(read_error(llmperf_format, f.path()).field() == "[0].error_code");
    }
    SECTION("an error_code that is neither null, a whole number nor a string") {
        const temp_file f(R"([{"error_code": true, "ttft_s": 0, "end_to_end_latency_s": 0}])", "x.json");
        CHECK(read_error(llmperf_format, f.path()).field() == "[0].error_code");
    }
    SECTION("a fractional token count") {
        const temp_file f(R"([{"error_code": null, "ttft_s": 0.5, "end_to_end_latency_s": 2, "number_output_tokens": 1.5}])",
                          "x.json");
        CHECK(read_error(llmperf_format, f.path()).field() == "[0].number_output_tokens");
    }
    SECTION("an element that is not an object") {
        const temp_file f("[\n" + ok_row + ",\n 7]", "x.json");
        const input_error e = read_error(llmperf_format, f.path());
        CHECK(e.field() == "[1]");
        CHECK(e.line() == 4); // ok_row spans lines 2-3
    }
    SECTION("an empty array") {
        const temp_file f("[]", "x.json");
        CHECK(read_error(llmperf_format, f.path()).reason().find("empty") != std::string::npos);
    }
    SECTION("an object instead of the array") {
        const temp_file f(ok_row, "x.json");
        CHECK(read_error(llmperf_format, f.path()).reason().find("expected an array") != std::string::npos);
    }
}

TEST_CASE("a failed LLMPerf request's zeroed latencies are not checked or kept") {
    const temp_file f(R"([{"error_code": 503, "error_msg": "", "ttft_s": 0, "end_to_end_latency_s": 0,
  "number_input_tokens": 12, "number_output_tokens": 1}])",
                      "x.json");
    const auto row = read_one(llmperf_format, f.path()).requests.row(0);
    CHECK(row.status == request_status::error);
    CHECK(row.http_status == 503);
    CHECK_FALSE(row.t_end.has_value());
}

TEST_CASE("a string error_code is an HTTP status when numeric, else kept as text") {
    const temp_file f(R"([{"error_code": "429", "error_msg": "", "number_input_tokens": 12},
 {"error_code": "rate_limit_exceeded", "error_msg": "", "number_input_tokens": 12},
 {"error_code": "-", "error_msg": "slow down", "number_input_tokens": 12}])",
                      "x.json");
    const run r = read_one(llmperf_format, f.path());
    REQUIRE(r.requests.size() == 3);
    CHECK(r.requests.row(0).http_status == 429);
    CHECK_FALSE(r.requests.row(1).http_status.has_value());
    CHECK(r.requests.row(1).error == "LLMPerf error_code rate_limit_exceeded");
    CHECK(r.requests.row(2).error == "slow down");
    for (auto s : r.requests.status()) CHECK(s == request_status::error);
}

TEST_CASE("an error_code -1 whose message names a timeout is a timeout") {
    const temp_file f(R"x([{"error_code": -1, "error_msg": "Read timed out. (read timeout=90)", "ttft_s": 0,
  "end_to_end_latency_s": 0, "number_input_tokens": 12, "number_output_tokens": 1}])x",
                      "x.json");
    CHECK(read_one(llmperf_format, f.path()).requests.row(0).status == request_status::timeout);
}

TEST_CASE("a reader under --skip-bad skips and counts a bad LLMPerf request") {
    const temp_file f(R"([{"error_code": null, "ttft_s": 0.5, "end_to_end_latency_s": 2},
 {"error_code": null, "ttft_s": 0.5, "end_to_end_latency_s": "2"},
 {"error_code": null, "ttft_s": 0.25, "end_to_end_latency_s": 1}])",
                      "x.json");
    const run r = read_one(llmperf_format, f.path(), {.skip_bad = true});
    CHECK(r.requests.size() == 2);
    CHECK(r.skipped.count == 1);
    REQUIRE(r.skipped.examples.size() == 1);
    CHECK(r.skipped.examples[0].find("[1].end_to_end_latency_s") != std::string::npos);
}

TEST_CASE("a broken summary beside an individual file is reported against the summary") {
    const temp_file f(R"([{"error_code": null, "ttft_s": 0.5, "end_to_end_latency_s": 2}])",
                      "m_10_10_individual_responses.json");
    std::ofstream(f.dir() / "m_10_10_summary.json") << R"({"results_ttft_s_mean": [1]})";
    const input_error e = read_error(llmperf_format, f.path());
    CHECK(e.file() == (f.dir() / "m_10_10_summary.json").string());
    CHECK(e.field() == "results_ttft_s_mean");
}

// ---------------------------------------------------------------------------------------------
// llmperf-console

TEST_CASE("all 54 console logs of the SGLang sweep parse into one summary run each") {
    const auto files = console_files();
    REQUIRE(files.size() == 54);
    for (const auto& file : files) {
        INFO(file);
        const run r = read_one(llmperf_console_format, file);
        const std::string deployment = file.parent_path().filename().string();
        const auto point = servestat::detail::sweep_point_from_name(file.stem().string());
        REQUIRE(point.has_value());
        CHECK(r.meta.kind == run_kind::summary);
        CHECK(r.requests.empty());
        CHECK(r.meta.model == "llama2-7b-chat");
        CHECK(r.meta.label == deployment + "/" + file.stem().string());
        CHECK(r.meta.params.at("deployment") == deployment);
        CHECK(r.meta.params.at("concurrency") == (*point)[0]);
        CHECK(r.meta.params.at("mean_input_tokens") == (*point)[1]);
        // SOURCE.md: 4 × concurrency requests per point, none failed.
        CHECK(reported_value(r, "ok") == 4 * (*point)[0]);
        CHECK(reported_value(r, "failed") == 0);
        CHECK(reported_value(r, "requests") == 4 * (*point)[0]);
        CHECK(r.meta.reported.size() == 66);
        CHECK(has_note(r, "derived"));
    }
}

TEST_CASE("console values are the numbers printed in the text") {
    SECTION("GPU1 requests_8_tokens_3500") {
        const run r = read_one(llmperf_console_format, sweep / "GPU1" / "requests_8_tokens_3500.txt");
        CHECK(reported_value(r, "ttft.p50") == 2.967863137018867);        // line 21
        CHECK(reported_value(r, "e2e.p50") == 7.319201978505589);         // line 32
        CHECK(reported_value(r, "e2e.p99") == 9.49272914345609);
        CHECK(reported_value(r, "llmperf.inter_token_latency_s.p50") == 0.04808073161637817);
        CHECK(reported_value(r, "prompt_tokens.p90") == 3720.6000000000004);
        CHECK(reported_value(r, "output_tokens.std") == 8.052248734199619);
        CHECK(reported_value(r, "output_tps") == 125.1695408734038);
        CHECK(reported_value(r, "ok") == 32);
        CHECK(reported_value(r, "rps") == 50.40384196244449 / 60);
        // python: 32 * 60 / 50.40384196244449
        CHECK(close(reported_value(r, "duration"), 38.092334338929504, 1e-12));
    }
    SECTION("TTFT p50 across the GPU1 3500-token knee (SOURCE.md: 0.24 s at c=1, 10.15 s at c=20)") {
        CHECK(reported_value(read_one(llmperf_console_format, sweep / "GPU1" / "requests_1_tokens_3500.txt"), "ttft.p50") ==
              0.24353361094836146);
        CHECK(reported_value(read_one(llmperf_console_format, sweep / "GPU1" / "requests_20_tokens_3500.txt"), "ttft.p50") ==
              10.15299099800177);
    }
    SECTION("GPU2_TP2 and GPU2_DP2 points") {
        const run tp = read_one(llmperf_console_format, sweep / "GPU2_TP2" / "requests_20_tokens_1000.txt");
        CHECK(reported_value(tp, "ttft.p25") == 1.6717869940330274);
        CHECK(reported_value(tp, "ttft.p50") == 1.7319584405049682);
        CHECK(reported_value(tp, "rps") == 193.4817296607861 / 60);
        const run dp = read_one(llmperf_console_format, sweep / "GPU2_DP2" / "requests_1_tokens_550.txt");
        CHECK(reported_value(dp, "ttft.p50") == 0.0792286855285056);
        CHECK(reported_value(dp, "ok") == 4);
    }
}

TEST_CASE("a console log and the summary JSON of the same run report identical numbers") {
    // The sweep's llama2-7b-chat_<L>_150 JSON files are the GPU2_DP2 requests_20_tokens_<L> points
    // (their Overall Output Throughput appears in those console logs and nowhere else).
    for (const char* tokens : {"550", "1000", "3500"}) {
        INFO(tokens);
        const run console =
            read_one(llmperf_console_format, sweep / "GPU2_DP2" / (std::string("requests_20_tokens_") + tokens + ".txt"));
        const run summary =
            read_one(llmperf_summary_format, sweep / (std::string("llama2-7b-chat_") + tokens + "_150_summary.json"));
        REQUIRE(console.meta.reported.size() == summary.meta.reported.size());
        for (const auto& v : summary.meta.reported) {
            INFO(v.name);
            const auto* c = reported(console, v.name);
            REQUIRE(c != nullptr);
            CHECK(c->value == v.value);
            CHECK(c->unit == v.unit);
        }
    }
}

namespace {

// A complete console section as LLMPerf prints it, with `errors` failed requests.
std::string console_section(int errors) {
    std::string text = "\\Results for token benchmark for m/x queried with the litellm api.\n\n";
    for (const char* block : metric_keys) {
        text.append(block).append("\n");
        for (const char* stat : {"p25", "p50", "p75", "p90", "p95", "p99", "mean", "min", "max", "stddev"})
            text.append("    ").append(stat).append(" = 1.5\n");
    }
    text += "Number Of Errored Requests: " + std::to_string(errors) + "\n";
    if (errors > 0) text += "Error Code Frequency\n{429.0: " + std::to_string(errors) + "}\n";
    text += "Overall Output Throughput: 100.0\nNumber Of Completed Requests: 6\nCompleted Requests Per Minute: 30.0\n";
    return text;
}

std::string cut_after(const std::string& text, std::string_view marker) {
    const auto at = text.find(marker);
    REQUIRE(at != std::string::npos);
    return text.substr(0, at + marker.size());
}

} // namespace

TEST_CASE("a hand-written console section with errors") {
    const temp_file f("Ray noise\r\n" + console_section(2), "bench.txt");
    const run r = read_one(llmperf_console_format, f.path());
    CHECK(r.meta.model == "m/x");
    CHECK(r.meta.label == "bench");
    CHECK(r.meta.params.empty());
    CHECK(reported_value(r, "failed") == 2);
    CHECK(reported_value(r, "requests") == 8);
    CHECK(reported_value(r, "duration") == 12.0); // 6 completed at 30 per minute
    CHECK(has_note(r, "{429.0: 2}"));
}

TEST_CASE("several result sections in one console log are several runs") {
    const temp_file f(console_section(0) + "more output\n" + console_section(1), "requests_3_tokens_100.txt");
    const auto runs = llmperf_console_format.read(f.path(), {});
    REQUIRE(runs.size() == 2);
    const std::string folder = f.dir().filename().string();
    CHECK(runs[0].meta.label == folder + "/requests_3_tokens_100");
    CHECK(runs[1].meta.label == folder + "/requests_3_tokens_100#2");
    CHECK(runs[1].meta.params.at("concurrency") == 3);
}

TEST_CASE("a truncated console log names what is missing") {
    const std::string real = file_text(sweep / "GPU1" / "requests_8_tokens_3500.txt");
    SECTION("blocks missing") {
        const temp_file f(cut_after(real, "    stddev = 2.331333390352519\n"), "requests_8_tokens_3500.txt");
        const input_error e = read_error(llmperf_console_format, f.path());
        CHECK(e.file() == f.str());
        CHECK(e.field() == "end_to_end_latency_s");
        CHECK(e.reason().find("missing") != std::string::npos);
    }
    SECTION("a block cut short") {
        const temp_file f(cut_after(real, "    p50 = 2.967863137018867\n"), "requests_8_tokens_3500.txt");
        const input_error e = read_error(llmperf_console_format, f.path());
        CHECK(e.field() == "ttft_s.p75");
        CHECK(e.line() == 19); // the ttft_s line of the real file
    }
    SECTION("the run lines missing") {
        const temp_file f(cut_after(real, "Overall Output Throughput: 125.1695408734038\n"), "requests_8_tokens_3500.txt");
        CHECK(read_error(llmperf_console_format, f.path()).field() == "Number Of Completed Requests");
    }
    SECTION("cut before the results") {
        const temp_file f(real.substr(0, real.find("\\Results")), "requests_8_tokens_3500.txt");
        CHECK(read_error(llmperf_console_format, f.path()).reason().find("Results for token benchmark") != std::string::npos);
    }
    SECTION("a section cut by the start of the next one") {
        const temp_file f(cut_after(real, "    p50 = 2.967863137018867\n") + console_section(0), "x.txt");
        CHECK(read_error(llmperf_console_format, f.path()).field() == "ttft_s.p75");
    }
}

TEST_CASE("a console value that is not a number names its block, statistic and line") {
    std::string text = console_section(0);
    const auto at = text.find("ttft_s\n    p25 = 1.5\n    p50 = 1.5");
    REQUIRE(at != std::string::npos);
    text.replace(at + std::string("ttft_s\n    p25 = 1.5\n    p50 = ").size(), 3, "fast");
    const temp_file f(text, "x.txt");
    const input_error e = read_error(llmperf_console_format, f.path());
    CHECK(e.field() == "ttft_s.p50");
    CHECK(e.line() == 16); // header, blank, 11 ITL lines, ttft_s, p25, p50
}

TEST_CASE("a statistic given twice in a console block is an input error") {
    std::string text = console_section(0);
    const std::string p25 = "ttft_s\n    p25 = 1.5\n";
    const auto at = text.find(p25);
    REQUIRE(at != std::string::npos);
    text.insert(at + p25.size(), "    p25 = 99\n");
    const temp_file f(text, "x.txt");
    const input_error e = read_error(llmperf_console_format, f.path());
    CHECK(e.field() == "ttft_s.p25");
    CHECK(e.line() == 16); // header, blank, 11 ITL lines, ttft_s, p25, the repeated p25
    CHECK_THAT(e.what(), Catch::Contains("given twice"));
}

// ---------------------------------------------------------------------------------------------
// Several runs' summaries in one file, and summaries written unflattened (tests/data/llmperf, made
// by tests/tools/make_llmperf_summary_fixtures.py from LLMPerf's token_benchmark_ray.py layout)

const fs::path fixtures = fs::path(SERVESTAT_TEST_DATA_DIR) / "llmperf";

// The fixture's own number for a flattened key: "results_ttft_s_quantiles_p50" in a flat summary,
// results.ttft_s.quantiles.p50 in a nested one.
double fixture_number(const nlohmann::json& summary, const std::string& metric, const std::string& stat) {
    if (summary.contains("results")) {
        const auto& m = summary.at("results").at(metric);
        return number(stat.starts_with("quantiles_") ? m.at("quantiles").at(stat.substr(10)) : m.at(stat));
    }
    return number(summary.at("results_" + metric + "_" + stat));
}

double fixture_run_number(const nlohmann::json& summary, const std::string& key) {
    return summary.contains("results") ? number(summary.at("results").at(key)) : number(summary.at("results_" + key));
}

// Every reported value of `r` against the summary it was read from, under servestat's names.
void check_reported_against(const run& r, const nlohmann::json& summary) {
    for (std::size_t m = 0; m < 6; ++m)
        for (std::size_t k = 0; k < 10; ++k) {
            INFO(metric_keys[m] << " " << stat_keys[k]);
            CHECK(reported_value(r, std::string(metric_names[m]) + "." + stat_names[k]) ==
                  fixture_number(summary, metric_keys[m], stat_keys[k]));
        }
    CHECK(reported_value(r, "requests") == fixture_run_number(summary, "num_requests_started"));
    CHECK(reported_value(r, "failed") == fixture_run_number(summary, "number_errors"));
    CHECK(reported_value(r, "ok") == fixture_run_number(summary, "num_completed_requests"));
    CHECK(reported_value(r, "output_tps") == fixture_run_number(summary, "mean_output_throughput_token_per_s"));
    CHECK(reported_value(r, "rps") == fixture_run_number(summary, "num_completed_requests_per_min") / 60);
    CHECK(close(reported_value(r, "duration"), fixture_run_number(summary, "num_completed_requests") /
                                                   fixture_run_number(summary, "num_completed_requests_per_min") * 60,
                1e-12));
    CHECK(r.meta.reported.size() == 66);
}

TEST_CASE("a sweep saved as one file of summaries keyed by concurrency reads as one summary run per level") {
    const fs::path file = fixtures / "sweep_results.json";
    CHECK(servestat::detect_file_format(file).name == "llmperf-summary");
    const nlohmann::json saved = json_file(file);
    const auto runs = llmperf_summary_format.read(file, {});
    REQUIRE(runs.size() == 4);
    const std::vector<std::string> keys{"1", "4", "8", "16"}; // the file's order
    for (std::size_t i = 0; i < runs.size(); ++i) {
        INFO("key " << keys[i]);
        const run& r = runs[i];
        CHECK(r.meta.kind == run_kind::summary);
        CHECK(r.requests.empty());
        CHECK(r.meta.source.format == "llmperf-summary");
        CHECK(r.meta.params.at("concurrency") == std::stoi(keys[i]));
        CHECK(r.meta.params.at("mean_input_tokens") == 550);
        CHECK(r.meta.model == "meta-llama/Llama-2-7b-chat-hf");
        check_reported_against(r, saved.at(keys[i]));
        CHECK(has_note(r, "under the key \"" + keys[i] + "\""));
    }
    // Distinct names, by what sets the runs apart.
    CHECK(runs[0].meta.label == "c=1");
    CHECK(runs[3].meta.label == "c=16");
    CHECK(has_note(runs[3], "LLMPerf's error codes and counts: {429.0: 2}"));
}

TEST_CASE("a list of unflattened LLMPerf summaries reads as the same runs, one per element") {
    const fs::path file = fixtures / "sweep_list_results.json";
    CHECK(servestat::detect_file_format(file).name == "llmperf-summary");
    CHECK(llmperf_format.sniff(file_head(file)) == 0); // it names ttft_s, but with quantiles: not per-request
    const nlohmann::json saved = json_file(file);
    const auto runs = llmperf_summary_format.read(file, {});
    REQUIRE(runs.size() == saved.size());
    for (std::size_t i = 0; i < runs.size(); ++i) {
        INFO("element " << i);
        CHECK(runs[i].meta.params.at("concurrency") == saved[i].at("num_concurrent_requests"));
        check_reported_against(runs[i], saved[i]);
        CHECK(has_note(runs[i], "nested"));
        CHECK(runs[i].meta.started_at.empty()); // LLMPerfResults adds the timestamp; this dict has none
    }
}

TEST_CASE("one unflattened LLMPerf summary reads as LLMPerf's flattened file would") {
    const fs::path file = fixtures / "nested_summary.json";
    CHECK(servestat::detect_file_format(file).name == "llmperf-summary");
    const run r = read_one(llmperf_summary_format, file);
    CHECK(r.meta.label == "nested"); // the stem without LLMPerf's _summary
    CHECK(r.meta.params.at("concurrency") == 8);
    check_reported_against(r, json_file(file));
}

TEST_CASE("LLMPerf summaries in one file are a sweep over concurrency through their reported values") {
    std::vector<servestat::run_stats> stats;
    for (const auto& r : servestat::read_logs(std::vector<std::string>{(fixtures / "sweep_results.json").string()}))
        stats.push_back(servestat::analyze(r));
    const auto sweeps = servestat::find_sweeps(stats);
    REQUIRE(sweeps.size() == 1);
    CHECK(sweeps[0].param == "concurrency");
    REQUIRE(sweeps[0].points.size() == 4);
    CHECK(sweeps[0].points.front().load == 1);
    CHECK(sweeps[0].points.back().load == 16);
}

TEST_CASE("a summary keyed by one concurrency that states another is an error naming both") {
    const temp_file f(R"({
  "4": {"num_concurrent_requests": 4, "results_ttft_s_mean": 0.5},
  "8": {"num_concurrent_requests": 6, "results_ttft_s_mean": 0.7}
})", "sweep_results.json");
    const input_error e = read_error(llmperf_summary_format, f.path());
    CHECK(e.line() == 3);
    CHECK(e.field() == "8.num_concurrent_requests");
    CHECK_THAT(e.reason(), Catch::Contains("concurrency 8") && Catch::Contains("num_concurrent_requests is 6"));
}

TEST_CASE("a summary keyed by concurrency without num_concurrent_requests takes its key as the level") {
    const temp_file f(R"({"2": {"model": "m", "results_ttft_s_mean": 0.5},
 "32": {"model": "m", "results_ttft_s_mean": 0.9}})", "sweep_results.json");
    const auto runs = llmperf_summary_format.read(f.path(), {});
    REQUIRE(runs.size() == 2);
    CHECK(runs[0].meta.params.at("concurrency") == 2);
    CHECK(runs[1].meta.params.at("concurrency") == 32);
    CHECK(reported_value(runs[1], "ttft.mean") == 0.9);
}

TEST_CASE("a bad value in a multi-run file names the summary's key, the field and its line") {
    const temp_file f("{\n \"1\": {\"results_ttft_s_mean\": 0.5},\n \"8\": {\n  \"results_ttft_s_mean\": 0.5,\n"
                      "  \"results_ttft_s_max\": \"slow\"\n }\n}",
                      "sweep_results.json");
    const input_error e = read_error(llmperf_summary_format, f.path());
    CHECK(e.field() == "8.results_ttft_s_max");
    CHECK(e.line() == 5);
}

TEST_CASE("an object of objects that are not LLMPerf summaries names what it found") {
    const temp_file f(R"({"1": {"summary": {"ttft": 1}}, "8": {"results_ttft_s_mean": 0.5}})", "results.json");
    const input_error e = read_error(llmperf_summary_format, f.path());
    CHECK(e.field() == "1");
    CHECK_THAT(e.reason(), Catch::Contains("not an LLMPerf summary"));
    const temp_file g(R"({"model": "m", "runs": 3})", "results.json");
    CHECK_THAT(read_error(llmperf_summary_format, g.path()).reason(), Catch::Contains("top-level keys: model, runs"));
    const temp_file h(R"({"results": {"8": {"p50": 1.5}}})", "results.json"); // nested, but not LLMPerf's statistics
    CHECK(read_error(llmperf_summary_format, h.path()).field() == "results");
}

TEST_CASE("an LLMPerf summary whose results lie past the sniffed head is still detected") {
    // A long additional_sampling_params (flattened before the results) pushes them past 64 KiB.
    const std::string summary = R"({"version": "2023-08-31", "name": "m_550_150_summary", "model": "m",
 "mean_input_tokens": 550, "stddev_input_tokens": 150, "mean_output_tokens": 150, "stddev_output_tokens": 80,
 "num_concurrent_requests": 2, "additional_sampling_params_stop": ")" + std::string(70000, 'x') + R"(",
 "results_ttft_s_mean": 0.25, "results_num_completed_requests": 10, "results_num_completed_requests_per_min": 60.0})";
    const temp_file f(summary, "m_550_150_summary.json");
    const std::string head = file_head(f.path());
    REQUIRE(head.find("results_") == std::string::npos);
    CHECK(servestat::detect_format(head) == &llmperf_summary_format);
    const run r = read_one(llmperf_summary_format, f.path());
    CHECK(reported_value(r, "ttft.mean") == 0.25);
    CHECK(reported_value(r, "duration") == 10.0);
}

} // namespace test_ingest_llmperf

namespace test_ingest_llmperf_console_copies {

// LLMPerf printed each point's statistics (the sweep's console logs, GPU*/requests_<C>_tokens_<L>.txt)
// and wrote the same point's JSON pair, overwritten per point at the top of result_outputs/ (SOURCE.md:
// "the last point written for each name"). The three llama2-7b-chat pairs at concurrency 20 print the
// very values of GPU2_DP2's logs at 20 (ttft p50 0.45574614850920625 s in both for 550 tokens): one
// run each, named by the log's path, where the deployment is.
TEST_CASE("a console log that restates LLMPerf's JSON pair beside it is that run, and names it by its path") {
    const auto folder = std::filesystem::path(SERVESTAT_SHARED_DATA_DIR) / "llmperf-sglang-sweep-hongxuanzhang" / "result_outputs";
    std::vector<servestat::directory_listing> listings;
    servestat::load_options o;
    o.listed = [&](const servestat::directory_listing& l) { listings.push_back(l); };
    const auto runs = servestat::read_logs(std::vector<std::string>{folder.string()}, o);
    CHECK(runs.size() == 56); // 54 logs and 5 pairs, 3 of them the same runs as logs
    REQUIRE(listings.size() == 1);
    std::vector<std::string> copies; // in natural path order, as the listing sorts them
    for (const auto& p : listings[0].passed_over)
        if (p.reason.find("its values restate it") != std::string::npos)
            copies.push_back(std::filesystem::path(p.path).lexically_relative(folder).generic_string() + " → " + p.reason);
    CHECK(copies == std::vector<std::string>{
                        "GPU2_DP2/requests_20_tokens_550.txt → the same run as llama2-7b-chat_550_150_individual_responses.json: its values restate it",
                        "GPU2_DP2/requests_20_tokens_1000.txt → the same run as llama2-7b-chat_1000_150_individual_responses.json: its values restate it",
                        "GPU2_DP2/requests_20_tokens_3500.txt → the same run as llama2-7b-chat_3500_150_individual_responses.json: its values restate it"});
    for (const auto& r : runs) {
        if (std::filesystem::path(r.meta.source.path).filename() != "llama2-7b-chat_550_150_individual_responses.json") continue;
        CHECK(r.meta.params.value("deployment", std::string()) == "GPU2_DP2");
        REQUIRE(r.meta.source.name_parts.size() >= 2);
        CHECK(r.meta.source.name_parts[0] == "requests_20_tokens_550");
        CHECK(r.requests.size() == 80); // the pair's own requests
    }
    // The pairs without a log of the same values (concurrency 24; a 3500-token point no log printed) stay runs of their own.
    CHECK(std::count_if(runs.begin(), runs.end(), [](const servestat::run& r) { return r.meta.source.format == "llmperf"; }) == 5);
}

TEST_CASE("a console log restates a result only to its last digits: replicates within 0.5% are other runs") {
    const servestat::run_values result{"/r/a.json", {{"ttft.p50", 0.45574614850920625}, {"e2e.mean", 3.345367832800548}, {"rps", 5.1}}};
    CHECK(servestat::console_restates({"/r/a.txt", result.values}, result));
    auto close = result;
    close.values["e2e.mean"] *= 1.001;
    CHECK_FALSE(servestat::console_restates({"/r/b.txt", close.values}, result));
}

} // namespace test_ingest_llmperf_console_copies
