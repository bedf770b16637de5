// The digest every report leads with: summary sentences (five at most), the KPI table with SLO
// verdicts, ranked findings with an appendix, and names that tell sweeps and sides apart.
// Expected values are derived by hand from the rows the tests build.
#include <catch2/catch.hpp> // Catch2 v2

#include <string> // std::string
#include <vector> // std::vector

#include "servestat/report/digest.hpp"
#include "servestat/report/plots.hpp"
#include "servestat/report/report_digest.hpp"
#include "servestat/stats/run_stats.hpp"

namespace test_digest { // the unity build compiles several test files as one: each keeps its names

using namespace servestat;
using namespace servestat::report;

namespace {

// Requests one second apart with e2e 0.1, 0.2, … 1.0 s, the first half short prompts (10 tokens),
// the rest long (3000), TTFT a tenth of e2e, and one failed request at the end.
run ten_requests(const std::string& label) {
    run r;
    r.meta.label = label;
    r.meta.source.format = "servestat";
    for (int i = 0; i < 10; ++i) {
        request_record q;
        q.t_sched = q.t_sent = i;
        q.t_end = i + 0.1 * (i + 1);
        q.t_first = i + 0.01 * (i + 1);
        q.prompt_tokens = i < 5 ? 10 : 3000;
        q.output_tokens = 10;
        q.status = request_status::ok;
        r.requests.push_back(q);
    }
    request_record failed;
    failed.t_sched = failed.t_sent = 10;
    failed.t_end = 10.5;
    failed.status = request_status::error;
    failed.http_status = 500;
    r.requests.push_back(failed);
    return r;
}

} // namespace

TEST_CASE("the summary keeps the five heaviest sentences, heaviest first and equal weights in order", "[digest]") {
    std::vector<summary_sentence> s;
    for (int i = 0; i < 8; ++i) s.push_back({i % 2 ? 1.0 : 2.0, "s" + std::to_string(i)});
    const json v = summary_view(s);
    REQUIRE(v.size() == 5);
    CHECK(v[0]["text"] == "s0");
    CHECK(v[3]["text"] == "s6");
    CHECK(v[4]["text"] == "s1");
}

// Caveats on run validity are shown beside the five, in weight order: eight sentences of which two
// are caveats (weights 1.5 and 0.5) give the five heaviest others and both caveats.
TEST_CASE("the summary shows every caveat beside the five heaviest sentences", "[digest]") {
    std::vector<summary_sentence> s;
    for (int i = 0; i < 6; ++i) s.push_back({static_cast<double>(10 - i), "s" + std::to_string(i)});
    s.push_back({1.5, "caveat a", true});
    s.push_back({0.5, "caveat b", true});
    const json v = summary_view(s);
    REQUIRE(v.size() == 7);
    CHECK(v[4]["text"] == "s4");
    CHECK(v[5]["text"] == "caveat a");
    CHECK(v[6]["text"] == "caveat b");
}

TEST_CASE("the KPI table gives a run, then its short and long prompts, with SLO verdicts", "[digest]") {
    stats_options o;
    o.summary.percentiles = {50, 95, 99};
    const run_stats st = analyze(ten_requests("bad-c4"), o);
    const std::vector<kpi_source> sources{{"bad at c=4", &st}};
    // e2e p95 of 0.1 … 1.0 s (numpy linear): 0.1 + 0.95 × 9 × 0.1 = 0.955 s; short (0.1 … 0.5): 0.48 s.
    const json rows = kpi_rows(sources, {{metric::e2e, 0.5}}, 95);
    REQUIRE(rows.size() == 3);
    CHECK(rows[0]["name"] == "bad at c=4");
    CHECK(rows[0]["subset"] == "all");
    CHECK(rows[0]["requests"] == "11");
    CHECK(rows[0]["ok"] == "90.9%"); // 10 of 11
    CHECK(rows[0]["e2e_p50"] == "550 ms");
    // 1 of 11 failed: the p95 judged counts it as +∞ (place 0.95 × 10 = 9.5 reaches the failure).
    CHECK(rows[0]["slo"] == "FAIL: e2e p95 ∞ (9.1% failed) > 500 ms");
    // A p50 of 10 values has its 95% interval, X(2) to X(9) (P(B ≤ 1) = 11/1024 ≤ 0.025, P(B ≤ 8) ≥ 0.975):
    // no dagger.
    CHECK(rows[0]["e2e_p50_mark"] == "");
    CHECK(rows[1]["name"] == "");
    CHECK(rows[1]["subset"] == "short (≤ 64 tok)");
    CHECK(rows[1]["requests"] == "5"); // successful ones
    CHECK(rows[1]["rps"] == "");
    CHECK(rows[1]["slo"] == "PASS: e2e p95 480 ms† ≤ 500 ms"); // a pass resting on 5 requests, its percentile shown
    CHECK(rows[2]["subset"] == "long (≥ 2048 tok)");
    CHECK(rows[2]["ttft_p99"] == "99.6 ms"); // 0.06 … 0.10 s: 0.06 + 0.99 × 4 × 0.01
}

TEST_CASE("without SLOs the verdict cell is empty", "[digest]") {
    const run_stats st = analyze(ten_requests("run"), {});
    const std::vector<kpi_source> sources{{"run", &st}};
    CHECK(kpi_rows(sources, {}, 95)[0]["slo"] == "–");
}

// Every request of the ten failed: the row keeps its counts and says "failed" where a rate would be.
// The same requests without their ends (a log of first tokens only) still get a row, from TTFT.
TEST_CASE("the KPI table shows a failed run as failed and a run without e2e by its TTFT", "[digest]") {
    const auto rebuilt = [](const std::string& label, auto&& change) {
        const run whole = ten_requests(label);
        run r;
        r.meta = whole.meta;
        for (std::size_t i = 0; i < whole.requests.size(); ++i) {
            request_record q = whole.requests.row(i);
            if (change(q)) r.requests.push_back(q);
        }
        return r;
    };
    const run_stats failed = analyze(rebuilt("dead", [](request_record& q) {
        q.status = request_status::error;
        return true;
    }), {});
    const run_stats ttft_only = analyze(rebuilt("firsts", [](request_record& q) {
        q.t_end.reset();
        return q.status == request_status::ok;
    }), {});
    const std::vector<kpi_source> sources{{"dead", &failed}, {"firsts", &ttft_only}};
    const json rows = kpi_rows(sources, {}, 95);
    REQUIRE(rows.size() >= 2);
    CHECK(rows[0]["name"] == "dead");
    CHECK(rows[0]["requests"] == "11");
    CHECK(rows[0]["ok"] == "0.0%");
    CHECK(rows[0]["rps"] == "failed");
    CHECK(rows[0]["e2e_p99"] == "–");
    CHECK(rows[1]["name"] == "firsts");
    CHECK(rows[1]["subset"] == "all");
    CHECK(rows[1]["ttft_p50"] == "55.0 ms"); // 10 … 100 ms: 10 + 0.5 × 9 × 10
    CHECK(rows[1]["e2e_p50"] == "–");
}

TEST_CASE("the body keeps the twelve heaviest findings; the appendix keeps all", "[digest]") {
    digest_findings f;
    for (int i = 0; i < 20; ++i) {
        f.body.push_back({static_cast<double>(i), "change", "body " + std::to_string(i)});
        f.all.push_back({static_cast<double>(i), "change", "all " + std::to_string(i)});
    }
    const json v = findings_view(f);
    REQUIRE(v["findings"].size() == 12);
    CHECK(v["findings"][0]["text"] == "body 19");
    CHECK(v["findings"][11]["text"] == "body 8");
    CHECK(v["all_findings"].size() == 20);
    CHECK(v["all_findings"][19]["text"] == "all 0");
    CHECK(v["has_more_findings"] == true);
    CHECK(v["findings_total"] == "20");
}

TEST_CASE("labels' common stem stops at a separator", "[digest]") {
    CHECK(common_stem({"bad-c1", "bad-c16", "bad-c2"}) == "bad");
    CHECK(common_stem({"fair_768-c32", "fair_768-c64"}) == "fair_768");
    CHECK(common_stem({"run1", "run2"}).empty());
    CHECK(common_stem({"a-1", "b-1"}).empty());
}

TEST_CASE("sweeps are titled by their label stem and group, and no two titles are alike", "[digest]") {
    sweep_analysis bad, fair, twin;
    bad.curve = {"concurrency", "preset=bad", {}};
    bad.rows = {{1, "bad-c1", {}}, {2, "bad-c2", {}}};
    fair.curve = {"concurrency", "", {}};
    fair.rows = {{1, "fair-c1", {}}, {2, "fair-c2", {}}};
    twin = fair;
    const std::vector<sweep_analysis> sweeps{bad, fair, twin};
    const auto titles = sweep_titles(sweeps);
    // "bad" is already in its group, so the title does not say it twice.
    CHECK(titles == std::vector<std::string>{"Sweep over concurrency (preset=bad)", "Sweep over concurrency — fair",
                                             "Sweep over concurrency — fair #2"});
    CHECK(sweep_short_name(bad, 0) == "bad");
}

TEST_CASE("among sixteen runs the first, the last, the knees, the best and the worst keep their colours", "[digest]") {
    // p99 rises with the run index except run 9 (the lowest) and run 5 (the highest).
    std::vector<std::optional<double>> p99;
    for (int i = 0; i < 16; ++i) p99.push_back(1.0 + i);
    p99[9] = 0.5;
    p99[5] = 99.0;
    // First 0, last 15, the knee 4, best 9, worst 5; then evenly: 1 × 15 / 5 = 3.
    CHECK(report::detail::runs_to_highlight(p99, {4}) == std::vector<std::size_t>{0, 3, 4, 5, 9, 15});
    CHECK(report::detail::runs_to_highlight(std::vector<std::optional<double>>(8, 1.0)).empty()); // all fit the palette
}

} // namespace test_digest
