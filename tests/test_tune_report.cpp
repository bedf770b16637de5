// Tests for servestat/report/tune_report.hpp: the report of a tune search, rendered from tune.json
// alone. tests/data/tune/tune.json is a settled search over max_num_batched_tokens × max_num_seqs
// (5 × 5): 11 configurations measured in 12 runs, one of them infeasible (out of memory), the best
// 1024 × 64 at 38 (34.8–41.2) against the starting 8192 × 256 at 12.5 (11–14); its values are hand-chosen.
#include "servestat/report/tune_report.hpp"

#include <fstream>  // std::ifstream
#include <string>   // std::string
#include <utility>  // std::pair
#include <vector>   // std::vector

#include <nlohmann/json.hpp> // nlohmann::ordered_json

#include <catch2/catch.hpp> // TEST_CASE, CHECK, REQUIRE, CHECK_THROWS_WITH

namespace test_tune_report { // the unity build compiles several test files as one: each keeps its names

namespace {

using nlohmann::ordered_json;
using servestat::report::render_tune_report;
using servestat::report::tune_report_view;

ordered_json fixture() {
    std::ifstream in(std::string(SERVESTAT_TEST_DATA_DIR) + "/tune/tune.json");
    REQUIRE(in);
    return ordered_json::parse(in);
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The configurations' statuses as the report lists them, top to bottom.
std::vector<std::string> listed(const ordered_json& view, const char* key) {
    std::vector<std::string> out;
    for (const auto& c : view["configurations"]) out.push_back(c[key].get<std::string>());
    return out;
}

ordered_json& configuration_named(ordered_json& tune, const std::string& name) {
    for (auto& c : tune["configurations"])
        if (c["name"] == name) return c;
    FAIL("no configuration " << name);
    throw;
}

// The fixture stopped by the budget with its runner-up still overlapping the best: the planner would
// have kept 1024 × 128 and re-run the leaders, had the budget allowed.
ordered_json budget_spent() {
    auto tune = fixture();
    tune["end"] = "budget";
    tune["conclusion"] = "the budget is spent: max_num_batched_tokens1024-max_num_seqs64 leads at 38 (34.8–41.2), not "
                         "told apart from max_num_batched_tokens1024-max_num_seqs128; 11 of 25 configurations measured";
    auto& second = tune["recommendation"]["runner_up"];
    second["value"] = 33.2;
    second["ci"] = {30.1, 36.3};
    second["distinguishable"] = false;
    auto& runner_up = configuration_named(tune, "max_num_batched_tokens1024-max_num_seqs128");
    runner_up["status"] = "kept";
    runner_up["value"] = 33.2;
    runner_up["ci"] = {30.1, 36.3};
    runner_up["reason"] = "its interval 30.1–36.3 overlaps the best's 34.8–41.2";
    return tune;
}

} // namespace

TEST_CASE("the report opens with what to deploy, its gain over the starting settings and the runner-up") {
    const auto view = tune_report_view(fixture());
    CHECK(view["recommendation_text"] ==
          "Deploy max_num_batched_tokens=1024, max_num_seqs=64. It serves 38 concurrent streams within the SLO "
          "(95% CI 34.8–41.2), 3.0× the starting settings (max_num_batched_tokens=8192, max_num_seqs=256: 12.5, "
          "CI 11–14; the intervals do not overlap). The runner-up, max_num_batched_tokens=1024, max_num_seqs=128 "
          "(31, CI 28.5–33.5), is told apart from it, as is every other configuration measured.");
    CHECK(view["slo_line"] == "Workload mix_50_50. SLO: short prompts' TTFT p95 ≤ 0.5 s. Objective: capacity, the "
                              "largest concurrency at which every SLO is met (higher is better).");
    CHECK(view["search_line"] == "Settled after measuring 11 of 25 configurations (12 runs, 1 h 35 min of the 2 h budget).");
}

TEST_CASE("the recommendation and its value are bold in both formats, and come before every other section") {
    const auto files = render_tune_report(fixture());
    CHECK(contains(files.markdown, "**Deploy max\\_num\\_batched\\_tokens=1024, max\\_num\\_seqs=64.** It serves "
                                   "**38 concurrent streams** within the SLO"));
    CHECK(contains(files.html, "<strong>Deploy max_num_batched_tokens=1024, max_num_seqs=64.</strong> It serves "
                               "<strong>38 concurrent streams</strong> within the SLO"));
    const auto recommendation = files.markdown.find("## Recommendation");
    CHECK(recommendation < files.markdown.find("## What short and long prompts pay"));
    CHECK(files.markdown.find("## What short and long prompts pay") < files.markdown.find("## The objective over the space"));
    CHECK(files.markdown.find("## The objective over the space") < files.markdown.find("## The leaders' curves"));
    CHECK(files.markdown.find("## The leaders' curves") < files.markdown.find("## Every configuration measured"));
    CHECK(files.markdown.find("## Every configuration measured") < files.markdown.find("## How the search went"));
    CHECK(files.markdown.find("## How the search went") < files.markdown.find("## How to read this"));
}

TEST_CASE("a search stopped by the budget is provisional, and a runner-up that overlaps is not told apart") {
    const auto view = tune_report_view(budget_spent());
    REQUIRE(view["answer"].size() == 2);
    // In plain words: the planner's sentence, with its file-name configuration names, is kept for
    // "How the search went". One configuration is kept (1024 × 128): one other not told apart.
    CHECK(view["answer"][0]["text"] == "Provisional: the budget ran out before the search settled. 11 of 25 "
                                       "configurations were measured, and the best is not yet told apart from 1 other.");
    const std::string answer = view["recommendation_text"];
    CHECK(answer.starts_with("Best so far: max_num_batched_tokens=1024, max_num_seqs=64. It serves 38"));
    CHECK(contains(answer, "The runner-up, max_num_batched_tokens=1024, max_num_seqs=128 (33.2, CI 30.1–36.3), is not "
                           "distinguishable from it: either serves as well as can be measured."));
    CHECK(view["search_line"] == "Stopped by the budget after measuring 11 of 25 configurations (12 runs, 1 h 35 min "
                                 "of the 2 h budget), before the search settled.");
    CHECK(listed(view, "status")[1] == "kept");
}

TEST_CASE("an interrupted search says so, and how far it got") {
    auto tune = fixture();
    tune["end"] = "searching";
    const auto view = tune_report_view(tune);
    // The fixture's search had settled: nothing kept, so nothing said of others.
    CHECK(view["answer"][0]["text"] == "Provisional: the search was interrupted before it ended (--resume goes on). 11 "
                                       "of 25 configurations were measured.");
    CHECK(std::string(view["search_line"]).starts_with("Interrupted after measuring 11 of 25 configurations"));
}

TEST_CASE("a gain whose interval overlaps the start's is said to be indistinguishable from none") {
    auto tune = fixture();
    tune["recommendation"]["start"] = {{"value", 35.0}, {"ci", {32, 36}}, {"ratio", 38.0 / 35}, {"distinguishable", false}};
    CHECK(contains(tune_report_view(tune)["recommendation_text"],
                   "1.1× the starting settings (max_num_batched_tokens=8192, max_num_seqs=256: 35, CI 32–36), but the "
                   "intervals overlap, so the gain is not distinguishable from no gain."));
}

TEST_CASE("when the starting settings are the best the report says so, without a gain") {
    auto tune = fixture();
    tune["start"] = {{"name", "max_num_batched_tokens1024-max_num_seqs64"},
                     {"configuration", {{"max_num_batched_tokens", 1024}, {"max_num_seqs", 64}}}};
    tune["recommendation"]["start"] = {{"value", 38}, {"ci", {34.8, 41.2}}, {"ratio", 1}, {"distinguishable", false}};
    const std::string answer = tune_report_view(tune)["recommendation_text"];
    CHECK(contains(answer, "(95% CI 34.8–41.2). The starting settings are already the best. The runner-up"));
    CHECK_FALSE(contains(answer, "×"));
}

TEST_CASE("without starting settings or a runner-up the answer is the value alone") {
    auto tune = fixture();
    tune["start"] = nullptr;
    tune["recommendation"]["start"] = nullptr;
    tune["recommendation"]["runner_up"] = nullptr;
    CHECK(tune_report_view(tune)["recommendation_text"] ==
          "Deploy max_num_batched_tokens=1024, max_num_seqs=64. It serves 38 concurrent streams within the SLO "
          "(95% CI 34.8–41.2).");
}

TEST_CASE("another objective is written with its label and unit") {
    auto tune = fixture();
    tune["objective"] = {{"name", "cost-per-good-token"},
                         {"label", "cost per good token"},
                         {"unit", "$ per 1M good output tokens"},
                         {"direction", "lower_is_better"},
                         {"description", "dollars per million output tokens of requests that met every SLO"}};
    tune["recommendation"]["value"] = 0.62;
    tune["recommendation"]["ci"] = {0.55, 0.7};
    tune["recommendation"]["start"] = {{"value", 1.24}, {"ci", {1.1, 1.4}}, {"ratio", 0.5}, {"distinguishable", true}};
    CHECK(contains(tune_report_view(tune)["recommendation_text"],
                   "Its cost per good token is 0.62 $ per 1M good output tokens (95% CI 0.55–0.7), 50% below the "
                   "starting settings (max_num_batched_tokens=8192, max_num_seqs=256: 1.24, CI 1.1–1.4; the intervals "
                   "do not overlap)."));
}

TEST_CASE("what short and long prompts pay: the table in the given order and the biggest change for long prompts") {
    const auto view = tune_report_view(fixture());
    REQUIRE(view["has_prompt_costs"] == true);
    const auto& costs = view["prompt_costs"];
    CHECK(costs["note"] == "At c=11, the highest load the starting settings meet the SLO at.");
    REQUIRE(costs["rows"].size() == 3);
    CHECK(costs["rows"][0]["role"] == "recommended");
    CHECK(costs["rows"][0]["configuration"] == "max_num_batched_tokens=1024, max_num_seqs=64");
    CHECK(costs["rows"][0]["long_ttft"] == "1.90 s");
    CHECK(costs["rows"][2]["role"] == "start");
    CHECK(costs["rows"][2]["long_n"] == "101");
    CHECK(costs["sentence"] == "Long prompts' TTFT p95 rises from 900 ms with the starting settings to 1.90 s with the "
                               "recommendation (+111%).");

    auto without = fixture();
    without["prompt_costs"] = nullptr;
    const auto files = render_tune_report(without);
    CHECK_FALSE(contains(files.markdown, "What short and long prompts pay"));
    CHECK_FALSE(contains(files.html, "What short and long prompts pay"));
}

TEST_CASE("the objective over the space: measured cells hold value and interval, untried cells are blank") {
    const auto files = render_tune_report(fixture());
    CHECK(contains(files.markdown, "| max\\_num\\_batched\\_tokens \\\\ max\\_num\\_seqs | 16 | 32 | 64 | 128 | 256 |"));
    CHECK(contains(files.markdown, "| 512 |  |  | 27.5 (25.2–29.6) | 26.2 (24–28.3) |  |"));
    CHECK(contains(files.markdown, "| 1024 |  | 21.4 (19.5–23) | **38 (34.8–41.2)** | 31 (28.5–33.5) | 28.7 (26–31.1) |"));
    CHECK(contains(files.markdown, "| 4096 |  | 24.8 (22.7–26.9) |  | ✗ infeasible |  |"));
    CHECK(contains(files.markdown, "![Capacity (concurrent streams) by max\\_num\\_batched\\_tokens × max\\_num\\_seqs]"
                                   "(plots/tune-objective.svg)"));
    REQUIRE(files.svgs.size() == 3);
    const auto& [name, heatmap] = files.svgs[0];
    CHECK(name == "plots/tune-objective.svg");
    CHECK(contains(heatmap, "max_num_batched_tokens 4096, max_num_seqs 128: infeasible")); // crossed, not coloured
    CHECK(contains(heatmap, "✗ infeasible"));
    CHECK(contains(heatmap, "max_num_batched_tokens 512, max_num_seqs 16: no value"));     // untried: grey, no number
    CHECK(contains(heatmap, ">recommended</text>"));
    CHECK(contains(files.html, heatmap)); // inline: the HTML needs no other file
}

TEST_CASE("a space of one dimension is a line over its values; of three, a slice at the recommendation's values") {
    auto one = fixture();
    one["space"] = ordered_json::array({one["space"][0]});
    one["grid_size"] = 5;
    for (auto& c : one["configurations"]) c["point"] = {c["point"][0]};
    const auto one_d = render_tune_report(one);
    CHECK(contains(one_d.svgs[0].second, "Capacity (concurrent streams) by max_num_batched_tokens"));
    CHECK(contains(one_d.svgs[0].second, "<polyline"));
    CHECK(contains(one_d.markdown, "| max\\_num\\_batched\\_tokens | capacity (CI) |"));

    auto three = fixture();
    three["space"].push_back({{"name", "enable_chunked_prefill"}, {"values", {"off", "on"}}});
    for (auto& c : three["configurations"]) c["point"].push_back(1);
    const auto view = tune_report_view(three);
    CHECK(view["space_note"] == "Only the configurations with enable_chunked_prefill=on are shown (the recommendation's "
                                "values): the space has more dimensions than a table can show.");
}

TEST_CASE("every configuration measured: best first, then kept, dropped, infeasible, better values first") {
    const auto view = tune_report_view(fixture());
    CHECK(listed(view, "status") == std::vector<std::string>{"best", "dropped", "dropped", "dropped", "dropped", "dropped",
                                                             "dropped", "dropped", "dropped", "dropped", "infeasible"});
    CHECK(listed(view, "value") ==
          std::vector<std::string>{"38 (34.8–41.2)", "31 (28.5–33.5)", "30.1 (27.8–32.2)", "29 (26.5–31)", "28.7 (26–31.1)",
                                   "27.5 (25.2–29.6)", "26.2 (24–28.3)", "24.8 (22.7–26.9)", "21.4 (19.5–23)",
                                   "12.5 (11–14)", "–"});
    const auto& infeasible = view["configurations"][10];
    CHECK(infeasible["reason"] == "infeasible: the server exited with status 1 before it was ready");
    REQUIRE(infeasible["logs"].size() == 1);
    CHECK(std::string(infeasible["logs"][0]["tail"]).ends_with("Tried to allocate 2.00 GiB"));
}

TEST_CASE("the server log of an infeasible configuration is a fenced block in Markdown, collapsed in HTML") {
    const auto files = render_tune_report(fixture());
    CHECK(contains(files.markdown, "```\nINFO 01-11 22:01:04 api_server.py:612] echo of the last request: "
                                   "'<script>alert(1)</script>'\nTraceback"));
    CHECK(contains(files.html, "<details><summary>The end of its server log"));

    auto tune = fixture();
    configuration_named(tune, "max_num_batched_tokens4096-max_num_seqs128")["measurements"][0]["server_log_tail"] =
        "a line\n```\nclosing the fence would end the block early";
    CHECK(contains(render_tune_report(tune).markdown, "````\na line\n```\nclosing the fence"));
}

TEST_CASE("every string from tune.json is escaped in the HTML, the charts included") {
    auto tune = fixture();
    configuration_named(tune, "max_num_batched_tokens1024-max_num_seqs32")["configuration"]["max_num_seqs"] =
        "<script>alert(2)</script>";
    tune["title"] = "<script>alert(3)</script>";
    const auto files = render_tune_report(tune);
    CHECK_FALSE(contains(files.html, "<script"));
    CHECK(contains(files.html, "&lt;script&gt;alert(1)&lt;/script&gt;")); // the server log's tail
    CHECK(contains(files.html, "max_num_seqs=&lt;script&gt;alert(2)&lt;/script&gt;"));
    CHECK(contains(files.html, "<h1>&lt;script&gt;alert(3)&lt;/script&gt;</h1>"));
    for (const auto& [name, svg] : files.svgs) CHECK_FALSE(contains(svg, "<script"));
}

TEST_CASE("the same tune.json renders to the same bytes") {
    const auto first = render_tune_report(fixture());
    const auto second = render_tune_report(fixture());
    CHECK(first.markdown == second.markdown);
    CHECK(first.html == second.html);
    CHECK(first.svgs == second.svgs);
}

TEST_CASE("the leaders' curves: one chart per SLO and one of throughput, for the recommendation, runner-up and start") {
    const auto files = render_tune_report(fixture());
    REQUIRE(files.svgs.size() == 3);
    const auto& slo = files.svgs[1].second;
    CHECK(files.svgs[1].first == "plots/tune-slo-1.svg");
    CHECK(contains(slo, "Short prompts&#39; TTFT p95 against load: recommended, runner-up and start"));
    CHECK(contains(slo, "concurrency (streams)"));
    CHECK(contains(slo, "short prompts&#39; TTFT p95 (s)"));
    CHECK(contains(slo, "recommended (1024, 64)"));
    CHECK(slo.find("recommended (1024, 64)") < slo.find("runner-up (1024, 128)"));
    CHECK(slo.find("runner-up (1024, 128)") < slo.find("start (8192, 256)"));
    CHECK(files.svgs[2].first == "plots/tune-output-tps.svg");
    CHECK(contains(files.svgs[2].second, "output throughput (tokens/s)"));
    CHECK(contains(files.markdown, "Recommended: max\\_num\\_batched\\_tokens=1024, max\\_num\\_seqs=64 (the first of "
                                   "its 2 runs); runner-up:"));
}

TEST_CASE("the search's decisions in order: a numbered list in Markdown, collapsed in HTML") {
    const auto files = render_tune_report(fixture());
    CHECK(contains(files.markdown, "1. **max\\_num\\_batched\\_tokens=8192, max\\_num\\_seqs=256** (start): the starting "
                                   "settings, measured first as the baseline\n2. **max\\_num\\_batched\\_tokens=2048"));
    CHECK(contains(files.html, "<details>\n<summary>12 decisions, in order</summary>"));
}

TEST_CASE("when nothing was feasible the report leads with that, and why") {
    auto tune = fixture();
    tune["end"] = "nothing_feasible";
    tune["conclusion"] = "nothing feasible: none of the 2 configurations of the spread could be measured";
    tune["recommendation"] = nullptr;
    tune["prompt_costs"] = nullptr;
    ordered_json kept = ordered_json::array();
    for (const auto& c : tune["configurations"])
        if (c["name"] == "max_num_batched_tokens4096-max_num_seqs128") kept.push_back(c);
    auto start = configuration_named(tune, "max_num_batched_tokens8192-max_num_seqs256");
    start["status"] = "infeasible";
    start["reason"] = "infeasible: out of memory";
    start["value"] = nullptr;
    start["ci"] = nullptr;
    start["measurements"] = {{{"step", "start"}, {"value", nullptr}, {"ci", nullptr}, {"infeasible", "out of memory"},
                              {"server_log", "server-start-m1.log"}, {"seconds", 20}, {"levels", ordered_json::array()}}};
    kept.push_back(start);
    tune["configurations"] = kept;
    const auto view = tune_report_view(tune);
    CHECK(view["recommendation_text"] ==
          "No configuration met the SLO. All 2 configurations measured were infeasible: the server exited with status 1 "
          "before it was ready (1 configuration); out of memory (1 configuration). The search walks only from a feasible "
          "configuration, so the space needs changing, not the search: the server logs below say why each one failed. "
          "The planner's conclusion: nothing feasible: none of the 2 configurations of the spread could be measured.");
    const auto files = render_tune_report(tune);
    CHECK(files.svgs.empty());
    CHECK_FALSE(contains(files.markdown, "## The leaders' curves"));
    CHECK(contains(files.markdown, "| 4096 |  |  |  | ✗ infeasible |  |"));
}

TEST_CASE("a malformed tune.json is refused, naming the field and what was expected") {
    auto wrong_type = fixture();
    wrong_type["configurations"][3]["value"] = "31";
    CHECK_THROWS_WITH(render_tune_report(wrong_type), "tune.json: configurations[3].value: expected a number or null");

    auto missing = fixture();
    missing["objective"].erase("unit");
    CHECK_THROWS_WITH(render_tune_report(missing), "tune.json: objective.unit: missing");

    auto bad_end = fixture();
    bad_end["end"] = "done";
    CHECK_THROWS_WITH(render_tune_report(bad_end), "tune.json: end: expected one of \"settled\", \"budget\", "
                                                   "\"nothing_feasible\", \"searching\", not \"done\"");

    auto bad_point = fixture();
    bad_point["configurations"][0]["point"] = {4, 5};
    CHECK_THROWS_WITH(render_tune_report(bad_point),
                      "tune.json: configurations[0].point[1]: index 5 is past max_num_seqs's 5 values");

    auto bad_interval = fixture();
    bad_interval["recommendation"]["ci"] = {34.8};
    CHECK_THROWS_WITH(render_tune_report(bad_interval), "tune.json: recommendation.ci: expected [low, high] (two numbers)");

    CHECK_THROWS_AS(render_tune_report(ordered_json::array()), servestat::input_error);
}

TEST_CASE("a capacity that met the SLO at every load tried is a floor, and so is a runner-up's") {
    auto tune = fixture();
    tune["recommendation"]["at_least"] = 64;
    tune["recommendation"]["runner_up"]["at_least"] = 64;
    configuration_named(tune, "max_num_batched_tokens1024-max_num_seqs64")["at_least"] = 64;
    tune["prompt_costs"]["at_capacity"] = {{"load", 32},
                                           {"short", {{"n", 50}, {"ttft_p95", 0.0075}, {"e2e_p95", 1.0}}},
                                           {"long", {{"n", 50}, {"ttft_p95", 0.07}, {"e2e_p95", 0.12}}}};
    const auto view = tune_report_view(tune);
    const std::string answer = view["recommendation_text"];
    CHECK(contains(answer, "It serves at least 64 concurrent streams within the SLO: every load up to the highest "
                           "tried (--load-max 64) met it in each of its 2 runs, so this is a floor (a higher --load-max "
                           "measures how far it goes), at least 3.0× the starting settings"));
    CHECK(contains(answer, "The runner-up, max_num_batched_tokens=1024, max_num_seqs=128, also met it at every load up "
                           "to 64: none of them is told apart until a higher --load-max finds where each stops (of a "
                           "tie, the first in the space's order leads)."));
    CHECK(contains(view["prompt_costs"]["sentence"].get<std::string>(),
                   "At c=32, the highest load it met the SLOs at, the recommendation gives short prompts a TTFT p95 of "
                   "7.50 ms and long prompts a TTFT p95 of 70.0 ms (end-to-end p95 120 ms)."));
    // Its cells say "≥ 64", not an interval of no width: in the table over the space (bold, the
    // recommendation) and in the list of every configuration.
    const auto files = render_tune_report(tune);
    CHECK(contains(files.markdown, "| **≥ 64** |"));
    CHECK(contains(files.markdown, "| best | 2 | ≥ 64 |"));
}

} // namespace test_tune_report
