// Sweeps of configurations named by two factors (a deployment and a workload, as LMBench's
// llm-d/vLLM × ShareGPT/short-input sets) are compared on one factor with the other held: llm-d
// against vLLM within each workload, never a ShareGPT tail against a short-input one. Expected
// values are derived by hand in the comment above the test.
#include <catch2/catch.hpp> // Catch2 v2

#include <string> // std::string
#include <vector> // std::vector

#include <fmt/format.h> // fmt::format

#include "servestat/report/report_digest.hpp"  // report_summary, summary_view
#include "servestat/sweep/sweep.hpp"           // find_sweeps
#include "servestat/sweep/sweep_analysis.hpp"  // analyze_sweep

namespace test_sweep_comparison {

using namespace servestat;

namespace {

run_stats reported_run(const std::string& deployment, const std::string& workload, double rate, double e2e_p99) {
    run_stats r;
    r.meta.label = fmt::format("{}-{}-{:g}", deployment, workload, rate);
    r.meta.params = {{"request_rate", rate}, {"deployment", deployment}, {"workload", workload}};
    r.meta.kind = run_kind::summary;
    r.meta.reported = {{"requests", 500, "requests"}, {"ok", 500, "requests"}, {"rps", 0.9 * rate, "req/s"},
                       {"e2e.p99", e2e_p99, "s"}};
    return r;
}

} // namespace

// At request_rate 4, the highest level all four ran: ShareGPT's e2e p99 is 27.51 s on llm-d and
// 83.13 s on vLLM, 83.13 / 27.51 = 3.02 → "3.0× apart"; their lower levels disagree (12 against 20 s
// at 2, more than 10%), so no agreeing levels are named. Short input's 1.63 and 1.28 s are 1.27×
// apart, under the 1.5× worth saying. Throughput is 0.9 × 4 = 3.60 req/s everywhere.
TEST_CASE("configurations named by two factors are compared on one with the other held") {
    std::vector<run_stats> runs;
    const std::vector<std::tuple<std::string, std::string, std::vector<double>>> curves = {
        {"llm-d", "sharegpt", {10, 12, 27.51}},
        {"vllm", "sharegpt", {10, 20, 83.13}},
        {"llm-d", "short", {1, 1.2, 1.63}},
        {"vllm", "short", {1, 1.1, 1.28}},
    };
    for (const auto& [deployment, workload, p99] : curves)
        for (std::size_t k = 0; k < 3; ++k) runs.push_back(reported_run(deployment, workload, double(1 << k), p99[k]));
    std::vector<sweep_analysis> sweeps;
    for (auto s : find_sweeps(runs)) {
        // As the experiment stage names them (app/sweeps_and_grids.hpp): deployment folder, workload word.
        const auto& params = runs[s.points.front().run].meta.params;
        s.configuration_pieces = {params["deployment"].get<std::string>() + "/", params["workload"].get<std::string>()};
        s.configuration = s.configuration_pieces[0] + " · " + s.configuration_pieces[1];
        sweeps.push_back(analyze_sweep(s, runs));
    }
    REQUIRE(sweeps.size() == 4);
    const auto grouped = report::detail::groups_to_compare(sweeps);
    REQUIRE(grouped);
    CHECK(grouped->compared == 0);
    const std::string sentence = report::detail::same_load_sentence(sweeps);
    CHECK(sentence.find("At request_rate=4, e2e p99 is 27.51 s on llm-d/ vs 83.13 s on vllm/ (3.0× apart) for sharegpt, "
                        "1.63 s on llm-d/ vs 1.28 s on vllm/ for short; throughput is 3.60 req/s on llm-d/ vs 3.60 req/s on "
                        "vllm/ for sharegpt, 3.60 req/s on llm-d/ vs 3.60 req/s on vllm/ for short.") != std::string::npos);
    CHECK(sentence.find("27.51 s on llm-d/ vs 1.63 s") == std::string::npos);

    // Named by one factor, the sweeps are side by side as before.
    for (auto& a : sweeps) a.curve.configuration_pieces.resize(1);
    CHECK_FALSE(report::detail::groups_to_compare(sweeps));
}

} // namespace test_sweep_comparison
