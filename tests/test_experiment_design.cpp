// The experiment stage reads a result set's design on stated principles: configurations, the load
// axis, replicates, run lengths and provenance, from the files' settings and the words of their
// paths (docs/sweeps.md#how-runs-are-read). Runs here are metadata as the readers leave it: params
// from the file, name parts from the path.
#include "servestat/experiment/design.hpp"

#include <algorithm> // std::none_of
#include <string>  // std::string
#include <vector>  // std::vector

#include "servestat/experiment/design_view.hpp" // design_lines, design_json
#include "servestat/experiment/path_words.hpp"  // path_words
#include "servestat/ingest/detect.hpp"          // add_path_params
#include "servestat/sweep/grid.hpp"             // find_grids
#include "servestat/sweep/sweep.hpp"            // search_sweeps

#include <catch2/catch.hpp>  // TEST_CASE, REQUIRE, CHECK
#include <nlohmann/json.hpp> // nlohmann::json

namespace test_experiment_design {

using namespace servestat;
using json = nlohmann::json;

namespace {

// A run found at `path` below a directory argument `dir` (name parts as read_directory gives them),
// with the file's own parameters and measured mean token counts.
run_stats run_at(const std::string& dir, const std::string& path, json params = json::object(), double in = 500, double out = 60) {
    run r;
    r.meta.params = std::move(params);
    r.meta.source.path = dir + "/" + path;
    r.meta.source.format = "vllm-bench-json";
    r.meta.label = path;
    std::vector<std::string> parts;
    const auto p = std::filesystem::path(path);
    parts.push_back(p.stem().string());
    std::vector<std::string> folders;
    for (const auto& f : p.parent_path()) folders.push_back(f.string());
    parts.insert(parts.end(), folders.rbegin(), folders.rend());
    parts.push_back(dir);
    add_path_params(r, parts);
    run_stats s;
    s.meta = r.meta;
    s.prompt_tokens.n = s.output_tokens.n = 100;
    s.prompt_tokens.mean = in;
    s.output_tokens.mean = out;
    return s;
}

const design_factor& factor_of(const experiment_design& d, const std::string& name) {
    const auto* f = d.find(name);
    INFO(name);
    REQUIRE(f);
    return *f;
}

std::vector<std::string> configuration_names(const experiment_design& d) {
    std::vector<std::string> out;
    for (const auto& c : d.configurations) out.push_back(c.name);
    return out;
}

} // namespace

TEST_CASE("path words: grammar tags, key=value, dates, ids, unknown tags, numbers and words") {
    const auto w = path_words("result-short-rate4_CTX2048-x8-run=2-20250721_003902-abc1234f-3");
    REQUIRE(w.size() == 9);
    CHECK(w[0].kind == word_kind::word);
    CHECK(w[1].text == "short");
    CHECK(w[2].kind == word_kind::grammar);
    CHECK((w[3].kind == word_kind::tag && w[3].key == "ctx" && w[3].value == "2048"));
    CHECK((w[4].kind == word_kind::tag && w[4].key == "x"));
    CHECK((w[5].kind == word_kind::key_value && w[5].key == "run" && w[5].value == "2"));
    CHECK((w[6].kind == word_kind::time && w[6].text == "20250721_003902"));
    CHECK(w[7].kind == word_kind::hash);
    CHECK(w[8].kind == word_kind::number);
    const auto spelled = path_words("concurrency_16");
    REQUIRE(spelled.size() == 1);
    CHECK((spelled[0].kind == word_kind::grammar && spelled[0].text == "concurrency_16"));
    // A rate the grammar does not take ("output" is no output length of 0.5) stays a word and a number.
    const auto lmbench = path_words("LMBench_long_input_output_0.5");
    REQUIRE(lmbench.size() == 5);
    CHECK((lmbench[3].kind == word_kind::word && lmbench[4].kind == word_kind::number));
    CHECK(path_words("2025-07-21")[0].kind == word_kind::time);
    const auto numbered = path_words("run_0002");
    REQUIRE(numbered.size() == 1);
    CHECK((numbered[0].kind == word_kind::key_value && numbered[0].key == "run" && numbered[0].value == "0002"));
    CHECK(path_words("rep3")[0].kind == word_kind::key_value);
}

TEST_CASE("configurations are listed by size words' size, numbers' value and other words' first appearance") {
    std::vector<run_stats> runs;
    for (const char* device : {"tpu", "gpu"})      // as the files came: tpu first
        for (const char* shape : {"long", "short", "medium"}) // files in name order
            for (int rate : {1, 2})
                runs.push_back(run_at("results", std::string(device) + "/result-" + shape + "-rate" + std::to_string(rate) + ".json",
                                      {{"request_rate", rate}}));
    const auto d = read_design(runs);
    CHECK(configuration_names(d) ==
          std::vector<std::string>{"tpu/ · short", "tpu/ · medium", "tpu/ · long", "gpu/ · short", "gpu/ · medium", "gpu/ · long"});
    std::vector<run_stats> numbered;
    for (int tp : {16, 2, 8})
        for (int rate : {1, 2})
            numbered.push_back(run_at("results", "tp" + std::to_string(tp) + "/rate" + std::to_string(rate) + ".json", {{"request_rate", rate}}));
    CHECK(configuration_names(read_design(numbered)) == std::vector<std::string>{"tp2", "tp8", "tp16"});
    std::vector<run_stats> sized;
    for (const char* model : {"llama-7b", "llama-70b", "llama-34b"})
        for (int rate : {1, 2})
            sized.push_back(run_at("results", std::string(model) + "/rate" + std::to_string(rate) + ".json", {{"request_rate", rate}}));
    CHECK(configuration_names(read_design(sized)) == std::vector<std::string>{"7b", "34b", "70b"});
}

TEST_CASE("a workload shape in the file names is a configuration, not three replicates of a rate") {
    std::vector<run_stats> runs;
    for (const char* shape : {"short", "medium", "long"})
        for (int rate : {1, 2, 4})
            runs.push_back(run_at("results", std::string("result-") + shape + "-rate" + std::to_string(rate) + ".json",
                                  {{"request_rate", rate}}));
    const auto d = read_design(runs);
    CHECK(d.load == "request_rate");
    CHECK(d.configurations.size() == 3);
    CHECK(factor_of(d, "name").reading.role == factor_role::config);
    CHECK(configuration_names(d) == std::vector<std::string>{"short", "medium", "long"});
    CHECK(d.replicated_points() == 0);
    const auto designed = runs_as_designed(runs, d);
    const auto search = search_sweeps(designed, {.by = d.load, .from_design = true, .lengths = d.lengths});
    REQUIRE(search.sweeps.size() == 3);
    CHECK(search.sweeps[0].group == "short");
    for (const auto& s : search.sweeps)
        for (const auto& p : s.points) CHECK(p.replicates.size() == 1);
}

TEST_CASE("variant folders a few levels up are configurations; run_number is the replicate index") {
    std::vector<run_stats> runs;
    for (const char* variant : {"baseline", "variant-a", "variant-b"})
        for (int c : {4, 8, 16})
            for (int k = 0; k < 3; ++k)
                runs.push_back(run_at("sweeps", std::string(variant) + "/exp/c" + std::to_string(c) + "/run=" + std::to_string(k) + ".json",
                                      {{"max_concurrency", c}, {"run_number", k}}));
    const auto d = read_design(runs);
    CHECK(d.load == "max_concurrency");
    CHECK(factor_of(d, "run_number").reading.role == factor_role::replicate);
    CHECK(factor_of(d, "folder2").reading.role == factor_role::config); // sweeps/baseline/…: the path's second folder
    CHECK(configuration_names(d) == std::vector<std::string>{"baseline/", "variant-a/", "variant-b/"});
    CHECK(d.points.size() == 9);
    for (const auto& p : d.points) CHECK(p.runs.size() == 3);
    const auto designed = runs_as_designed(runs, d);
    const auto sweeps = search_sweeps(designed, {.by = d.load, .from_design = true, .lengths = d.lengths}).sweeps;
    REQUIRE(sweeps.size() == 3);
    CHECK(sweeps[0].group == "baseline/");
    CHECK(sweeps[1].points[0].replicates.size() == 3);
}

TEST_CASE("tags outside the grammar are configurations named by their letters, never a grid axis") {
    std::vector<run_stats> runs;
    for (const char* setup : {"vllm_TP4_CTX2048_x8", "vllm_TP4_CTX8192_x8", "sglang_TP4_CTX2048_x8"})
        for (int c : {1, 8, 32})
            runs.push_back(run_at("bench", std::string(setup) + "/c" + std::to_string(c) + ".json"));
    const auto d = read_design(runs);
    CHECK(d.load == "concurrency");
    CHECK(factor_of(d, "ctx").reading.role == factor_role::config);
    CHECK(factor_of(d, "folder2").reading.role == factor_role::config); // vllm / sglang
    CHECK(d.configurations.size() == 3);
    CHECK(d.find("x") == nullptr); // x8 everywhere: nothing to tell apart
    const auto designed = runs_as_designed(runs, d);
    CHECK(find_grids(designed, {.by = d.load, .from_design = true}).empty());
    CHECK(search_sweeps(designed, {.by = d.load, .from_design = true}).sweeps.size() == 3);
}

TEST_CASE("a run length that differs between configurations never splits a level off a curve") {
    std::vector<run_stats> runs;
    for (int len : {512, 2048})
        for (int rate : {1, 4, 16})
            runs.push_back(run_at("out", "in" + std::to_string(len) + "_qps" + std::to_string(rate) + ".json",
                                  {{"request_rate", rate}, {"num_prompts", rate == 1 ? 100 : (len == 512 ? 500 : 200)}}));
    const auto d = read_design(runs);
    CHECK(factor_of(d, "num_prompts").reading.role == factor_role::length);
    CHECK(d.configurations.size() == 2);
    const auto designed = runs_as_designed(runs, d);
    const auto sweeps = search_sweeps(designed, {.by = d.load, .from_design = true, .lengths = d.lengths}).sweeps;
    REQUIRE(sweeps.size() == 2);
    CHECK(sweeps[0].points.size() == 3);
    CHECK(sweeps[0].covarying == std::vector<std::string>{"num_prompts"});
}

TEST_CASE("timestamp folders are provenance; where the same levels were measured again, the sessions are replicates") {
    std::vector<run_stats> one_session;
    one_session.push_back(run_at("r", "20250101_1200/c1.json"));
    one_session.push_back(run_at("r", "20250101_1300/c4.json"));
    one_session.push_back(run_at("r", "20250102_0900/c16.json"));
    const auto d = read_design(one_session);
    CHECK(factor_of(d, "folder2_time").reading.role == factor_role::provenance);
    CHECK(d.configurations.size() == 1);

    std::vector<run_stats> two_sessions;
    for (const char* when : {"20250101_1200", "20250301_0800"})
        for (int c : {1, 4, 16}) two_sessions.push_back(run_at("r", std::string(when) + "/c" + std::to_string(c) + ".json"));
    const auto again = read_design(two_sessions);
    CHECK(factor_of(again, "folder2_time").reading.role == factor_role::replicate);
    CHECK(again.configurations.size() == 1);
    CHECK(again.replicated_points() == 3);
}

TEST_CASE("runs of one configuration at one level that differ in their length are not replicates") {
    std::vector<run_stats> runs;
    for (int n : {50, 100})
        for (int c : {8, 32}) runs.push_back(run_at("r", "agg_n" + std::to_string(n) + "_c" + std::to_string(c) + ".jsonl"));
    const auto d = read_design(runs);
    CHECK(factor_of(d, "num_prompts").reading.role == factor_role::config);
    CHECK(d.configurations.size() == 2);
    CHECK(d.replicated_points() == 0);
}

TEST_CASE("a load needs two levels and a setting axis three; a load given by one run only sets runs apart") {
    std::vector<run_stats> runs{run_at("r", "a.json", {{"max_concurrency", 2}}), run_at("r", "b.json")};
    const auto d = read_design(runs);
    CHECK(d.load.empty());
    CHECK(d.configurations.size() == 2);
    std::vector<run_stats> two{run_at("r", "mns16/x.json", {{"max_num_seqs", 16}}), run_at("r", "mns32/x.json", {{"max_num_seqs", 32}})};
    CHECK(read_design(two).load.empty());
}

TEST_CASE("replicates need the same measured workload: else the sizes tell configurations apart") {
    std::vector<run_stats> runs;
    for (int rate : {1, 2, 4}) {
        runs.push_back(run_at("x", "a/r" + std::to_string(rate) + "_1.json", {{"request_rate", rate}}, 506, 61));
        runs.push_back(run_at("x", "a/r" + std::to_string(rate) + "_2.json", {{"request_rate", rate}}, 2011, 250));
    }
    const auto d = read_design(runs);
    CHECK(d.configurations.size() == 2);
    CHECK(configuration_names(d) == std::vector<std::string>{"in≈506 · out≈61", "in≈2011 · out≈250"});
    CHECK(d.replicated_points() == 0);
    CHECK(!d.notes.empty());

    std::vector<run_stats> alike;
    for (int rate : {1, 2, 4})
        for (int k : {1, 2, 3}) alike.push_back(run_at("x", "a/r" + std::to_string(rate) + "_" + std::to_string(k) + ".json", {{"request_rate", rate}}, 500 + k, 60));
    const auto same = read_design(alike);
    CHECK(same.configurations.size() == 1);
    CHECK(factor_of(same, "name").reading.role == factor_role::replicate);
    CHECK(same.replicated_points() == 3);
}

TEST_CASE("runs alike in everything but their index are one point measured again, named by nothing else") {
    std::vector<run_stats> runs;
    for (int k = 0; k < 5; ++k) runs.push_back(run_at("x", "run" + std::to_string(10000 + k) + ".json", {{"max_concurrency", 4}}));
    const auto d = read_design(runs);
    CHECK(d.configurations.size() == 1);
    CHECK(d.replicated_points() == 1);
    std::string replicates;
    for (const auto& l : design_lines(d))
        if (l.heading == "replicates") replicates = l.text;
    CHECK(replicates.starts_with("1 point with 5 runs; index"));
}

TEST_CASE("where no load varies, the workload size that does is the x axis, and the words say so") {
    std::vector<run_stats> runs;
    for (const char* model : {"llama-8b", "qwen-7b"})
        for (int len : {1024, 2048, 4096, 8192})
            runs.push_back(run_at("bursts", std::string(model) + "/in" + std::to_string(len) + ".json", {{"max_concurrency", 64}}));
    const auto d = read_design(runs);
    CHECK(d.load == "input_len");
    CHECK(d.load_is_setting);
    CHECK(d.configurations.size() == 2);
    const auto lines = design_lines(d);
    bool said = false;
    for (const auto& l : lines) said = said || (l.heading == "x axis" && l.text.find("not a load") != std::string::npos);
    CHECK(said);
}

TEST_CASE("names of unequal length are aligned by their ends: a trailing rate is never merged away") {
    std::vector<run_stats> runs;
    for (const char* workload : {"LMBench_long_input_output_", "LMBench_sharegpt_output_"})
        for (const char* rate : {"0.5", "1.25", "3.25"}) runs.push_back(run_at("vllm", std::string(workload) + rate + ".csv"));
    const auto d = read_design(runs);
    CHECK(factor_of(d, "name_1").column.values[0] == "LMBench-long-input");
    CHECK(factor_of(d, "name_3").column.values[1] == 1.25);
    CHECK(d.configurations.size() == 6); // an unknown number is a configuration until --role says it is the load
    CHECK(d.replicated_points() == 0);
    const auto corrected = read_design(runs, {.roles = {{"name_3", factor_role::load}}});
    CHECK(corrected.load == "name_3");
    CHECK(corrected.configurations.size() == 2);
}

TEST_CASE("numbered run folders are replicates of one configuration (AIPerf's profile_runs/run_0001)") {
    std::vector<run_stats> runs;
    for (int k : {1, 2, 3}) runs.push_back(run_at("config", "profile_runs/run_000" + std::to_string(k) + "/run.jsonl", {{"concurrency", 8}}));
    const auto d = read_design(runs);
    CHECK(factor_of(d, "run").reading.role == factor_role::replicate);
    CHECK(d.configurations.size() == 1);
    CHECK(d.replicated_points() == 1);
}

TEST_CASE("a number ending the names is the request rate where the runs' send rates confirm it") {
    // LMBench's names: the rate after "output_" (read as an output length when whole) or "qps".
    std::vector<run_stats> runs;
    for (const double rate : {0.5, 1.0, 2.0, 4.0}) {
        const std::string text = rate == 0.5 ? "0.5" : std::to_string(static_cast<int>(rate));
        runs.push_back(run_at("r", "LMBench_sharegpt_output_" + text + ".csv", json::object(), 1148, 250));
        runs.back().send_rate = rate * 1.02;
        runs.push_back(run_at("r", "LMBench_short_input_qps" + text + ".csv", json::object(), 100, 20));
        runs.back().send_rate = rate * 0.97;
    }
    const auto d = read_design(runs);
    CHECK(d.load == "request_rate");
    CHECK(factor_of(d, "request_rate").column.values[0] == 0.5);
    CHECK(factor_of(d, "output_len").reading.role == factor_role::ignored);
    CHECK(d.configurations.size() == 2);
    CHECK(configuration_names(d) == std::vector<std::string>{"LMBench-sharegpt-output", "LMBench-short-input-qps"});
    CHECK(d.points.size() == 8);

    // Where the requests went out at other rates the names' numbers stay what the grammar says.
    for (auto& r : runs) r.send_rate = 7.0;
    const auto unconfirmed = read_design(runs);
    CHECK(factor_of(unconfirmed, "output_len").reading.role != factor_role::ignored);
    CHECK(factor_of(unconfirmed, "request_rate").reading.role == factor_role::load); // the qps tags alone
    CHECK(std::none_of(unconfirmed.notes.begin(), unconfirmed.notes.end(),
                       [](const std::string& note) { return note.find("send") != std::string::npos; }));
}

TEST_CASE("a word before the load's name (low-qps, high-qps) names sessions of one sweep") {
    std::vector<run_stats> runs;
    for (const char* rate : {"0.1", "0.3", "0.5"}) runs.push_back(run_at("r", std::string("long-input-low-qps/vllm/rate_") + rate + ".csv"));
    for (const char* rate : {"0.5", "1", "2"}) runs.push_back(run_at("r", std::string("long-input-high-qps/vllm/rate_") + rate + ".csv"));
    const auto d = read_design(runs);
    CHECK(d.load == "request_rate");
    CHECK(factor_of(d, "folder2").reading.role == factor_role::replicate);
    CHECK(d.configurations.size() == 1);
    CHECK(d.replicated_points() == 1); // 0.5, measured in both sessions
}

TEST_CASE("a name writes a level only as a whole number: h100 holds no 1, qwen-16 holds 16") {
    CHECK(detail::writes_number("qwen-16", 16));
    CHECK(detail::writes_number("rate_0.5", 0.5));
    CHECK_FALSE(detail::writes_number("h100", 1));
    CHECK_FALSE(detail::writes_number("c160", 16));
}

TEST_CASE("a load set once for each configuration is no load axis") {
    // MLPerf: each system is measured at its own tuned target rate.
    std::vector<run_stats> runs;
    runs.push_back(run_at("r", "sysA/Server/run_1/summary.txt", {{"request_rate", 8.6}}));
    runs.push_back(run_at("r", "sysB/Server/run_1/summary.txt", {{"request_rate", 73.5}}));
    runs.push_back(run_at("r", "sysC/Server/run_1/summary.txt", {{"request_rate", 76}}));
    const auto d = read_design(runs);
    CHECK(d.load.empty());
    CHECK(factor_of(d, "request_rate").reading.role == factor_role::config);
    CHECK(d.configurations.size() == 3);
    // One configuration measured at two rates makes the rate a load again.
    runs.push_back(run_at("r", "sysA/Server/run_1/again.txt", {{"request_rate", 10}}));
    runs.back().meta.source.name_parts.front() = "summary";
    CHECK(read_design(runs).load == "request_rate");
}

TEST_CASE("a word where the other runs have their replicate index is another measurement of the point") {
    // MLPerf's power runs: performance/ranging beside the scored performance/run_1.
    std::vector<run_stats> runs;
    for (const char* sys : {"sysA", "sysB"}) runs.push_back(run_at("r", std::string(sys) + "/Offline/performance/run_1/summary.txt"));
    runs.push_back(run_at("r", "sysB/Offline/performance/ranging/summary.txt"));
    const auto d = read_design(runs);
    CHECK(d.configurations.size() == 2);
    CHECK(d.replicated_points() == 1);
    CHECK(factor_of(d, "folder5").reading.role == factor_role::replicate); // r/ is folder 1
}

TEST_CASE("a sweep measured in parts, its names differing by a range word, is one sweep") {
    // InferenceX: "…-hicache" at concurrency 1 to 48, "…-hicache_high" at 56 to 120.
    std::vector<run_stats> runs;
    for (int c : {1, 8, 48}) runs.push_back(run_at("r", "qwen-hicache/conc" + std::to_string(c) + ".json"));
    for (int c : {56, 120}) runs.push_back(run_at("r", "qwen-hicache_high/conc" + std::to_string(c) + ".json"));
    const auto d = read_design(runs);
    CHECK(d.configurations.size() == 1);
    CHECK(factor_of(d, "folder2").reading.role == factor_role::replicate);
    // Where the parts measure the same levels, they are two configurations: nothing says they are one.
    runs.push_back(run_at("r", "qwen-hicache_high/conc8.json"));
    CHECK(read_design(runs).configurations.size() == 2);
}

TEST_CASE("a number ending only some names is a factor of its own; written with leading zeros it is provenance") {
    // Two generations of a harness: "…_b200-dgxc" beside "…_b200-dgxc_04" (the runner's slot).
    std::vector<run_stats> runs;
    for (int c : {1, 2}) runs.push_back(run_at("r", "kimi_conc" + std::to_string(c) + "_offloadnone_b200-dgxc.json", {{"image", nullptr}}));
    runs.push_back(run_at("r", "kimi_conc4_offloadnone_b200-dgxc_04.json"));
    runs.push_back(run_at("r", "kimi_conc8_offloadnone_b200-dgxc_07.json"));
    const auto d = read_design(runs);
    CHECK(factor_of(d, "name_end").reading.role == factor_role::provenance);
    CHECK(d.configurations.size() == 1);
    CHECK(d.points.size() == 4);
}

TEST_CASE("a model is one model whatever folder or organisation it was loaded from") {
    std::vector<run_stats> runs{run_at("r", "c1.json"), run_at("r", "c2.json")};
    runs[0].meta.model = "nvidia/Kimi-K2.5-NVFP4";
    runs[1].meta.model = "/lustre/fsw/models/Kimi-K2.5-NVFP4";
    CHECK(factor_of(read_design(runs), "model").constant);
}

TEST_CASE("a setting that Little's law confirms as the requests kept in flight is the concurrency") {
    // A table's column "bs": the client's parallel conversations, 16 to 64.
    std::vector<run_stats> runs;
    for (const char* offload : {"on", "off"})
        for (int bs : {16, 32, 64}) {
            runs.push_back(run_at("r", "summary.csv", {{"bs", bs}, {"offload", offload}}));
            runs.back().meta.reported = {{"rps", bs / 10.0, "req/s"}, {"e2e.mean", 10.5, "s"}};
        }
    const auto d = read_design(runs);
    CHECK(d.load == "bs");
    CHECK(d.load_as == "concurrency");
    CHECK(d.configurations.size() == 2);
    // Latencies that say something else leave bs a setting (here the x axis, as no load varies).
    for (auto& r : runs) r.meta.reported = {{"rps", 1.0, "req/s"}, {"e2e.mean", 2.0, "s"}};
    CHECK(read_design(runs).load_as.empty());
}

TEST_CASE("--role and --factor correct the reading, and say they did") {
    std::vector<run_stats> runs;
    for (const char* shape : {"short", "long"})
        for (int rate : {1, 2, 4}) runs.push_back(run_at("r", std::string(shape) + "_rate" + std::to_string(rate) + ".json", {{"request_rate", rate}}));
    const auto merged = read_design(runs, {.roles = {{"name", factor_role::ignored}}});
    CHECK(merged.configurations.size() == 1);
    CHECK(merged.replicated_points() == 3);
    CHECK(merged.user_settings == std::vector<std::string>{"--role name=ignore"});
    const auto named = read_design(runs, {.factors = {{"shape", "^(short|long)_"}}});
    CHECK(factor_of(named, "shape").reading.role == factor_role::config);
    CHECK(named.configurations.size() == 2);
    CHECK_THROWS_AS(read_design(runs, {.roles = {{"nothing", factor_role::config}}}), usage_error);
}

TEST_CASE("--factor searches the path below the directory argument, not the argument's own name") {
    std::vector<run_stats> runs;
    for (const char* machine : {"spark-01", "ubuntu-02"})
        for (int c : {1, 4}) {
            auto r = run_at("spark-vs-ubuntu", std::string(machine) + "/concurrency_" + std::to_string(c) + "/export.json");
            r.meta.source.in_directory = true;
            runs.push_back(std::move(r));
        }
    const auto d = read_design(runs, {.factors = {{"machine", "^(spark|ubuntu)"}}});
    CHECK(factor_of(d, "machine").column.values == std::vector<json>{"spark", "spark", "ubuntu", "ubuntu"});
}

TEST_CASE("a duration in the names (genai-bench's time_63s) is the run's length, never a configuration") {
    std::vector<run_stats> runs;
    const int seconds[] = {63, 35, 23, 15};
    int k = 0;
    for (int c : {2, 4, 8, 16})
        runs.push_back(run_at("job", "D_text_num_concurrency_" + std::to_string(c) + "_time_" + std::to_string(seconds[k++]) + "s.json",
                              {{"num_concurrency", c}}));
    const auto d = read_design(runs);
    CHECK(d.load == "num_concurrency");
    CHECK(d.configurations.size() == 1);
    CHECK(factor_of(d, "s").reading.role == factor_role::length);
}

TEST_CASE("a number in a name is a setting written again only where it follows the setting") {
    // us-east-1 names runs at concurrency 1, 5 and 10 alike: part of the name, not the concurrency.
    std::vector<run_stats> runs;
    for (const char* deployment : {"bedrock", "lepton"})
        for (int c : {1, 5, 10}) {
            const std::string folder = std::string(deployment) + (c == 1 ? "" : "/c" + std::to_string(c));
            const std::string stem = std::string(deployment) == "bedrock" ? "arn-us-east-1-model_550_150" : "dolphin_550_150";
            runs.push_back(run_at("results", folder + "/" + stem + "_summary.json", {{"num_concurrent_requests", c}}));
        }
    const auto d = read_design(runs);
    CHECK(d.configurations.size() == 2);
    CHECK(configuration_names(d) == std::vector<std::string>{"bedrock/", "lepton/"});
    // 4_tokens_1000 of a run at concurrency 4 with 1000 input tokens does restate both: the numbers
    // follow the settings (8_tokens_1000 at concurrency 8), so a name without them is the same sweep.
    std::vector<run_stats> restating;
    for (int c : {4, 8})
        restating.push_back(run_at("r", std::to_string(c) + "_tokens_1000.json", {{"concurrency", c}, {"input_len", 1000}}));
    restating.push_back(run_at("r", "tokens_1000.json", {{"concurrency", 16}, {"input_len", 1000}}));
    const auto restated = read_design(restating);
    CHECK(restated.configurations.size() == 1);
    CHECK(restated.load == "concurrency");
}

TEST_CASE("the layout a tool saved a run in sets no runs apart: a summary beside exports of the same sweep") {
    std::vector<run_stats> runs;
    for (int c : {1, 10, 25}) {
        auto r = run_at("sweep", "scenario_c" + std::to_string(c) + "/run.json", {{"concurrency", c}});
        r.meta.source.format = c == 1 ? "genai-perf" : "genai-perf-summary";
        runs.push_back(std::move(r));
    }
    const auto d = read_design(runs);
    CHECK(d.configurations.size() == 1);
    CHECK(detail::format_family("genai-perf-summary-csv") == "genai-perf");
    CHECK(detail::format_family("llmperf-console") == "llmperf");
    CHECK(detail::format_family("guidellm") == "guidellm");
}

TEST_CASE("a tag whose numbers the measured input sizes confirm is the input length, the x axis where no load varies") {
    std::vector<run_stats> runs;
    for (const char* tp : {"TP4_DP2", "TP8_DP1"})
        for (int ctx : {1024, 2048, 4096})
            runs.push_back(run_at("b200", std::string("run_1_") + tp + "_CTX" + std::to_string(ctx) + "_C100_P100_O128.json",
                                  {{"max_concurrency", 100}}, ctx, 128));
    const auto d = read_design(runs);
    CHECK(d.load == "ctx");
    CHECK(d.load_as == "input_len");
    CHECK(d.load_is_setting);
    CHECK(factor_of(d, "ctx").column.values[2] == json(4096));
    CHECK(d.configurations.size() == 2);
    // Measured sizes that do not follow the tag (a context window, not the prompt) leave it a configuration.
    std::vector<run_stats> window;
    for (int ctx : {2048, 4096, 8192}) window.push_back(run_at("w", "serve_CTX" + std::to_string(ctx) + ".json", {}, 500, 60));
    const auto w = read_design(window);
    CHECK(w.load.empty());
    CHECK(factor_of(w, "ctx").reading.role == factor_role::config);
}

TEST_CASE("short hex ids ending the names are ids even where one reads as a number and letters") {
    // SGLang runs named by a hash of the client's settings: 38769a reads as 38769 and "a" alone.
    std::vector<run_stats> runs;
    const std::pair<int, const char*> lengths[] = {{1024, "38769a"}, {2048, "7da261"}, {4096, "3168fa"}, {8192, "46cf8d"}};
    for (const char* tp : {"tp4_dp2", "tp8_dp1"})
        for (const auto& [in, id] : lengths)
            runs.push_back(run_at("h100", std::string("H100_") + tp + "_in" + std::to_string(in) + "_out128_p100_c100_" + id + ".jsonl",
                                  {{"random_input_len", in}, {"max_concurrency", 100}}, in / 2.0, 61));
    const auto d = read_design(runs);
    CHECK(d.load == "random_input_len");
    CHECK(d.configurations.size() == 2);
    CHECK(factor_of(d, "name_id").reading.role == factor_role::provenance);
}

TEST_CASE("a seed in the names numbers replicates; 'inf' after the rate's name is the rate") {
    std::vector<run_stats> runs;
    for (const char* label : {"A_vanilla", "B_tuned"})
        for (const char* rate : {"1", "4", "inf"})
            for (int seed : {7, 42})
                runs.push_back(run_at("sweep", std::string(label) + "_qps_" + rate + ".seed" + std::to_string(seed) + ".json",
                                      {{"request_rate", std::string(rate) == "inf" ? json("inf") : json(std::stoi(rate))}}));
    const auto d = read_design(runs);
    CHECK(d.load == "request_rate");
    CHECK(d.configurations.size() == 2);
    CHECK(factor_of(d, "seed").reading.role == factor_role::replicate);
    for (const auto& p : d.points) CHECK(p.runs.size() == 2);
}

TEST_CASE("workload traces are said to be traces, not runs, and their differences workloads") {
    std::vector<run_stats> traces;
    for (const char* name : {"conversation_trace.jsonl", "synthetic_trace.jsonl"}) {
        auto t = run_at("mooncake", name);
        t.meta.kind = run_kind::arrivals;
        traces.push_back(std::move(t));
    }
    const auto d = read_design(traces);
    CHECK(d.traces == 2);
    const auto lines = design_lines(d);
    REQUIRE(!lines.empty());
    CHECK(lines[0].text == "2 workload traces (arrivals and sizes to replay: nothing was measured), 2 workloads");
    CHECK(design_json(d)["traces"] == 2);
}

TEST_CASE("a setting only one format records sets no runs apart; one some runs of a format lack does") {
    // LLMPerf's JSON records mean_output_tokens, its console log does not: not known to differ.
    std::vector<run_stats> runs;
    for (int c : {1, 2, 4}) {
        auto r = run_at("s", "point_c" + std::to_string(c) + ".txt", {{"num_concurrent_requests", c}});
        r.meta.source.format = "llmperf-console";
        runs.push_back(std::move(r));
    }
    auto json_run = run_at("s", "point_c8.json", {{"num_concurrent_requests", 8}, {"mean_output_tokens", 150}});
    json_run.meta.source.format = "llmperf";
    runs.push_back(json_run);
    const auto d = read_design(runs);
    CHECK(d.configurations.size() == 1);
    CHECK(factor_of(d, "mean_output_tokens").reading.role == factor_role::ignored);
    // Where a run of the same format lacks it, the difference is in the files: a configuration.
    auto other = run_at("s", "point_c16.json", {{"num_concurrent_requests", 16}});
    other.meta.source.format = "llmperf";
    runs.push_back(other);
    CHECK(factor_of(read_design(runs), "mean_output_tokens").reading.role == factor_role::config);
}

TEST_CASE("the design's JSON holds every varying factor with its source, role and reason") {
    std::vector<run_stats> runs;
    for (int c : {1, 2, 4}) runs.push_back(run_at("r", "c" + std::to_string(c) + ".json"));
    const auto j = design_json(read_design(runs));
    REQUIRE(j["factors"].size() == 1);
    CHECK(j["factors"][0]["name"] == "concurrency");
    CHECK(j["factors"][0]["source"] == "path tag");
    CHECK(j["factors"][0]["role"] == "load");
    CHECK(j["load"]["levels"] == json::array({1, 2, 4}));
    CHECK(j["configurations"].size() == 1);
}

} // namespace test_experiment_design
