// AIPerf's GPU energy figures and telemetry (servestat/ingest/aiperf_telemetry.hpp, read through
// aiperf_summary.hpp and aiperf.hpp), against the tool's own numbers in real files:
// - tests/corpus/aiperf-paretoruns-gb10-datasets: AIPerf 0.12.0 on one NVIDIA GB10 with
//   --gpu-telemetry pynvml, 12 runs (3 datasets × concurrency 1-8), each with AIPerf's run-level
//   energy metrics (nvidia_total_gpu_energy in J, ...) in profile_export_aiperf.json and .csv;
// - tests/corpus/aiperf-wellflat-single: an earlier AIPerf with a DCGM exporter, whose telemetry_data
//   holds statistics of each GPU's energy counter since boot and no run energy.
// The expected values are the files' own numbers, read here with nlohmann::json, never servestat's.
#include "servestat/ingest/aiperf.hpp"
#include "servestat/ingest/aiperf_summary.hpp"
#include "servestat/ingest/aiperf_telemetry.hpp"

#include <algorithm>   // std::max
#include <cmath>       // std::abs
#include <filesystem>  // std::filesystem
#include <fstream>     // std::ifstream
#include <set>         // std::set
#include <string>      // std::string
#include <string_view> // std::string_view
#include <vector>      // std::vector

#include <nlohmann/json.hpp> // nlohmann::json

#include "servestat/stats/run_stats.hpp" // analyze

#include "format_reading.hpp"

#include <catch2/catch.hpp> // TEST_CASE, REQUIRE, CHECK

namespace test_ingest_aiperf_energy { // the unity build compiles several test files as one: each keeps its names

namespace {

namespace fs = std::filesystem;
using servestat::test::has_note;
using servestat::test::read_one;
using servestat::test::reported;

const fs::path sweep = fs::path(SERVESTAT_CORPUS_DIR) / "aiperf-paretoruns-gb10-datasets" / "20260807_182301";
const fs::path wellflat = fs::path(SERVESTAT_CORPUS_DIR) / "aiperf-wellflat-single" / "profile_export_aiperf.json";

const std::vector<std::string> sweep_runs = {"random_c1",    "random_c2",    "random_c4",    "random_c8",
                                             "reasoning_c1", "reasoning_c2", "reasoning_c4", "reasoning_c8",
                                             "text_c1",      "text_c2",      "text_c4",      "text_c8"};

nlohmann::json load(const fs::path& file) {
    std::ifstream in(file);
    return nlohmann::json::parse(in);
}

double avg(const nlohmann::json& doc, std::string_view tag) { return doc.at(std::string(tag)).at("avg").get<double>(); }

bool close(double a, double b, double rel) { return std::abs(a - b) <= rel * std::max(std::abs(a), std::abs(b)); }

// AIPerf 0.12's energy tags: the JSON's top-level blocks, the CSV's rows mapped back to them.
constexpr std::string_view energy_tags[] = {
    "nvidia_total_gpu_power",       "nvidia_average_gpu_power",     "nvidia_total_gpu_energy",
    "nvidia_output_tokens_per_joule", "nvidia_energy_per_output_token", "nvidia_energy_per_total_token",
    "nvidia_energy_per_request",    "nvidia_energy_per_user",       "nvidia_energy_delay_product",
    "nvidia_performance_per_watt",  "nvidia_output_tps_per_watt"};

} // namespace

TEST_CASE("AIPerf's run energy is reported as aiperf.nvidia_total_gpu_energy in J, the file's own number") {
    for (const auto& name : sweep_runs) {
        INFO(name);
        const fs::path file = sweep / name / "profile_export_aiperf.json";
        const auto doc = load(file);
        const servestat::run run = read_one(servestat::aiperf_summary_format, file);
        for (const auto tag : energy_tags) {
            const auto* v = servestat::find_reported(run.meta, "aiperf." + std::string(tag));
            REQUIRE(v != nullptr);
            CHECK(v->value == avg(doc, tag));
            CHECK(v->unit == doc.at(std::string(tag)).at("unit").get<std::string>());
        }
        CHECK(servestat::find_reported(run.meta, "aiperf.nvidia_total_gpu_energy")->unit == "J");
        CHECK(servestat::find_reported(run.meta, "aiperf.nvidia_average_gpu_power")->unit == "W");
    }
}

TEST_CASE("AIPerf's energy figures agree with its token counts, request count and duration in every run") {
    // What the figures mean, from the files alone: AIPerf divides the run's energy by its own totals.
    for (const auto& name : sweep_runs) {
        INFO(name);
        const servestat::run run = read_one(servestat::aiperf_summary_format, sweep / name / "profile_export_aiperf.json");
        const double joules = *reported(run, "aiperf.nvidia_total_gpu_energy");
        const double osl = *reported(run, "aiperf.total_osl");
        const double isl = *reported(run, "aiperf.total_isl");
        CHECK(close(*reported(run, "aiperf.nvidia_output_tokens_per_joule"), osl / joules, 1e-12));
        CHECK(close(*reported(run, "aiperf.nvidia_energy_per_output_token"), 1000 * joules / osl, 1e-12)); // mJ
        CHECK(close(*reported(run, "aiperf.nvidia_energy_per_total_token"), 1000 * joules / (osl + isl), 1e-12));
        CHECK(close(*reported(run, "aiperf.nvidia_energy_per_request"), joules / *reported(run, "ok"), 1e-12));
        // Average power is the energy over AIPerf's duration, to within its windows' difference (< 0.01 %).
        CHECK(close(*reported(run, "aiperf.nvidia_average_gpu_power"), joules / *reported(run, "duration"), 1e-4));
        CHECK(close(*reported(run, "aiperf.nvidia_output_tps_per_watt"),
                    *reported(run, "output_tps") / *reported(run, "aiperf.nvidia_average_gpu_power"), 1e-12));
    }
}

TEST_CASE("servestat's own output tokens over the records give AIPerf's joules per output token") {
    // The per-request records (warm-up left out, as AIPerf leaves it out) hold exactly the output
    // tokens AIPerf divides by: J per token from servestat's requests is AIPerf's figure.
    for (const auto& name : sweep_runs) {
        INFO(name);
        const servestat::run run = read_one(servestat::aiperf_format, sweep / name / "profile_export.jsonl");
        CHECK(run.requests.size() == 50);
        const auto s = servestat::analyze(run);
        REQUIRE(s.output_tokens.mean);
        const double tokens = *s.output_tokens.mean * static_cast<double>(s.output_tokens.n);
        CHECK(close(tokens, *reported(run, "aiperf.total_osl"), 1e-12));
        const double joules = *reported(run, "aiperf.nvidia_total_gpu_energy");
        CHECK(close(1000 * joules / tokens, *reported(run, "aiperf.nvidia_energy_per_output_token"), 1e-12));
        // And so servestat's energy per token (stats/energy.hpp) is AIPerf's, from its total.
        REQUIRE(s.energy);
        CHECK(s.energy->source == "aiperf.nvidia_total_gpu_energy (the result file's total)");
        REQUIRE(s.energy->per_output_token.value);
        CHECK(close(1000 * *s.energy->per_output_token.value, *reported(run, "aiperf.nvidia_energy_per_output_token"), 1e-9));
        CHECK(close(*s.energy->output_tokens_per_joule.value, *reported(run, "aiperf.nvidia_output_tokens_per_joule"), 1e-9));
        CHECK_FALSE(s.energy->per_output_token.ci); // one total: no windows
    }
}

TEST_CASE("the run's energy is the sum over telemetry_data's GPUs of the energy counter's rise, and a note says so") {
    for (const auto& name : sweep_runs) {
        INFO(name);
        const fs::path file = sweep / name / "profile_export_aiperf.json";
        const auto doc = load(file);
        double rise_mj = 0;
        std::size_t gpus = 0;
        for (const auto& [endpoint, entry] : doc.at("telemetry_data").at("endpoints").items())
            for (const auto& [key, gpu] : entry.at("gpus").items()) {
                rise_mj += gpu.at("metrics").at("nvidia_energy_consumption").at("avg").get<double>();
                ++gpus;
            }
        CHECK(gpus == 1);
        CHECK(close(rise_mj * 1e6, avg(doc, "nvidia_total_gpu_energy"), 1e-12));
        const servestat::run run = read_one(servestat::aiperf_summary_format, file);
        CHECK(has_note(run, "telemetry_data (GPU telemetry) of 1 GPU (1 × NVIDIA GB10) from 1 endpoint is not read"));
        CHECK(has_note(run, "AIPerf's nvidia_total_gpu_energy (aiperf.nvidia_total_gpu_energy, J) is that sum."));
    }
}

TEST_CASE("the CSV's energy rows are reported under the JSON's names, within its 2-decimal rounding") {
    for (const auto& name : sweep_runs) {
        INFO(name);
        const servestat::run json = read_one(servestat::aiperf_summary_format, sweep / name / "profile_export_aiperf.json");
        const servestat::run csv = read_one(servestat::aiperf_summary_csv_format, sweep / name / "profile_export_aiperf.csv");
        for (const auto tag : energy_tags) {
            INFO(tag);
            const auto* from_csv = servestat::find_reported(csv.meta, "aiperf." + std::string(tag));
            const auto* from_json = servestat::find_reported(json.meta, "aiperf." + std::string(tag));
            REQUIRE(from_csv != nullptr);
            REQUIRE(from_json != nullptr);
            CHECK(std::abs(from_csv->value - from_json->value) <= 0.005 + 1e-9);
            CHECK(from_csv->unit == from_json->unit);
        }
        // The platform-less names are gone.
        CHECK(servestat::find_reported(csv.meta, "aiperf.total_gpu_energy") == nullptr);
        CHECK(servestat::find_reported(csv.meta, "aiperf.output_tokens_per_second_per_watt") == nullptr);
    }
}

TEST_CASE("CSV energy rows without a platform in the telemetry table keep AIPerf's plain tags, with a note") {
    std::vector<servestat::reported_value> values{{"aiperf.total_gpu_energy", 1702.16, "J"},
                                                  {"aiperf.output_tps_per_watt", 3.86, "tokens/sec/W"},
                                                  {"aiperf.total_osl", 6564, "tokens"}};
    std::vector<std::string> notes;
    servestat::detail::name_aiperf_csv_energy(values, {"total_gpu_energy", "output_tps_per_watt"}, {}, notes);
    CHECK(values[0].name == "aiperf.total_gpu_energy");
    REQUIRE(notes.size() == 1);
    CHECK(notes[0].find("names 0 platforms") != std::string::npos);
    notes.clear();
    servestat::detail::name_aiperf_csv_energy(values, {"total_gpu_energy", "output_tps_per_watt"}, {"amd"}, notes);
    CHECK(values[0].name == "aiperf.amd_total_gpu_energy");
    CHECK(values[1].name == "aiperf.amd_output_tps_per_watt");
    CHECK(values[2].name == "aiperf.total_osl"); // not an energy row
    CHECK(notes.empty());
}

TEST_CASE("AIPerf 0.12's input_config gives the model, the load and the dataset") {
    // models.items[].name, datasets[].path/osl, phases[] (kind, requests, concurrency): the file's own
    // settings, matching run_info.cli_command's --concurrency and the folder's _c<N>.
    for (const auto& name : sweep_runs) {
        INFO(name);
        const servestat::run run = read_one(servestat::aiperf_summary_format, sweep / name / "profile_export_aiperf.json");
        CHECK(run.meta.model == "nvidia/Qwen3.6-35B-A3B-NVFP4");
        const std::string dataset = name.substr(0, name.find('_'));
        CHECK(run.meta.workload == "/data/multi_turn_iso_" + dataset + "_chat.jsonl");
        CHECK(run.meta.params["concurrency"] == std::stoi(name.substr(name.find("_c") + 2)));
        CHECK(run.meta.params["request_count"] == 50);
        CHECK(run.meta.params["warmup_request_count"] == 3);
        CHECK(run.meta.params["osl"] == 128.0);
        CHECK(run.meta.params["osl_stddev"] == 32.0);
    }
}

TEST_CASE("an earlier AIPerf's telemetry_data holds energy since boot: a note, and no energy value") {
    const auto doc = load(wellflat);
    // Its energy_consumption is the DCGM counter's readings: about 1.4 GJ per A100, far more than any
    // run could use (519.6 s at under 110 W per GPU is under 60 kJ).
    const auto& gpu0 = doc.at("telemetry_data").at("endpoints").begin()->at("gpus").at("gpu_0").at("metrics");
    CHECK(gpu0.at("energy_consumption").at("unit") == "MJ");
    CHECK(gpu0.at("energy_consumption").at("min").get<double>() > 1000);
    const servestat::run run = read_one(servestat::aiperf_summary_format, wellflat);
    CHECK(has_note(run, "telemetry_data (GPU telemetry) of 8 GPUs (8 × NVIDIA A100-SXM4-80GB) from 1 endpoint is not read"));
    CHECK(has_note(run, "Its energy_consumption is each GPU's energy counter since boot (MJ) summarised over the "
                        "samples: no energy used by the run."));
    for (const auto& v : run.meta.reported) {
        INFO(v.name);
        CHECK(v.name.find("energy") == std::string::npos);
        CHECK(v.name.find("power") == std::string::npos);
    }
}

} // namespace test_ingest_aiperf_energy
