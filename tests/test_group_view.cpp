// The cross-run view grouped by model or configuration: grouping keys (metadata, parameters, file
// name patterns, "(none)"), natural order, per-member measurements (whole runs and time bins), the
// two-regime and heavy-tail rules, the JSON and the findings. Expected values are derived by hand
// from the small runs built here, or computed with numpy where noted.
#include <catch2/catch.hpp> // Catch2 v2

#include <cmath>   // std::sqrt
#include <string>  // std::string
#include <vector>  // std::vector

#include "servestat/report/group_view.hpp"
#include "servestat/stats/modality.hpp"

namespace test_group_view { // the unity build compiles several test files as one: each keeps its names

using namespace servestat;

namespace {

request_record request(double t_sent, double e2e, int output_tokens, request_status status = request_status::ok) {
    request_record r;
    r.t_sent = t_sent;
    r.t_first = t_sent + e2e / 4;
    r.t_end = t_sent + e2e;
    r.output_tokens = output_tokens;
    r.prompt_tokens = 100;
    r.status = status;
    return r;
}

// Five requests that all take `e2e` seconds: its p95 and p99 are `e2e`.
run constant_run(const std::string& label, const std::string& model, double e2e, const std::string& path = "") {
    run r;
    r.meta.label = label;
    r.meta.model = model;
    r.meta.source.path = path.empty() ? "/logs/" + label + ".jsonl" : path;
    for (int i = 0; i < 5; ++i) r.requests.push_back(request(i, e2e, 20));
    return r;
}

std::vector<std::string> names(const report::grouping& g) {
    std::vector<std::string> out;
    for (const auto& group : g.groups) out.push_back(group.name);
    return out;
}

bool has_note_containing(const report::grouping& g, const std::string& text) {
    for (const auto& n : g.notes)
        if (n.find(text) != std::string::npos) return true;
    return false;
}

} // namespace

// ---- the two-regime and tail rules ------------------------------------------------------------------

TEST_CASE("1, 2, 3 | 10, 11, 12 is two regimes: the hand-derived split and Ashman's D") {
    // Best split k = 3: within sums of squares 2 + 2 = 4 (any other cut is larger). Means 2 and 11,
    // population sigma sqrt(2/3) each: D = sqrt(2) * 9 / sqrt(4/3) = 9 * sqrt(1.5) = 11.0227...
    // numpy (tests/tools/regime_rule_simulation.py's kde): valley / smaller peak = 0.7528094232371534.
    const std::vector<double> v{12, 1, 11, 2, 10, 3};
    const std::vector<double> sorted{1, 2, 3, 10, 11, 12};
    CHECK(best_two_split(sorted) == 3);
    const auto r = find_two_regimes(v);
    REQUIRE(r.has_value());
    CHECK(r->lower.n == 3);
    CHECK(r->lower.min == 1);
    CHECK(r->lower.max == 3);
    CHECK(r->upper.min == 10);
    CHECK(r->upper.max == 12);
    CHECK(r->lower.std == Approx(std::sqrt(2.0 / 3)));
    CHECK(r->ashman_d == Approx(9 * std::sqrt(1.5)));
    CHECK(r->valley_ratio == Approx(0.7528094232371534).epsilon(1e-3)); // 64-point grid against numpy's
}

TEST_CASE("1 to 6 evenly spaced is one regime although its split has Ashman's D 3.67") {
    // Split k = 3 (lower 1..3, upper 4..6): D = sqrt(2) * 3 / sqrt(4/3) = 3 * sqrt(1.5) = 3.674 >= 2,
    // but the density has no valley between the halves, so no reader of the violin sees two bulges.
    const std::vector<double> v{1, 2, 3, 4, 5, 6};
    CHECK(best_two_split(v) == 3);
    const value_cluster lower{3, 1, 3, 2, std::sqrt(2.0 / 3)}, upper{3, 4, 6, 5, std::sqrt(2.0 / 3)};
    CHECK(ashman_d(lower, upper) == Approx(3 * std::sqrt(1.5)));
    CHECK_FALSE(find_two_regimes(v).has_value());
}

TEST_CASE("A lone outlier is a tail, not a regime") {
    const std::vector<double> v{1, 2, 3, 4, 20};
    CHECK(best_two_split(std::vector<double>{1, 2, 3, 4, 20}) == 4); // the outlier alone: a cluster of 1
    CHECK_FALSE(find_two_regimes(v).has_value());
    const auto t = find_heavy_tail(v);
    REQUIRE(t.has_value());
    CHECK(t->upper);
    CHECK(t->extreme == 20);
    CHECK(t->median == 3);
    CHECK(t->ratio == Approx(20.0 / 3));
}

TEST_CASE("A value far below the median is a lower tail") {
    const std::vector<double> v{1, 10, 11, 12}; // median 10.5, 10.5 / 1 = 10.5; 12 / 10.5 < 2
    const auto t = find_heavy_tail(v);
    REQUIRE(t.has_value());
    CHECK_FALSE(t->upper);
    CHECK(t->ratio == Approx(10.5));
}

TEST_CASE("No tail below twice the median, nor with fewer than three values") {
    CHECK_FALSE(find_heavy_tail(std::vector<double>{1, 1.2, 1.5, 1.9}).has_value()); // 1.9 / 1.35 = 1.4
    CHECK_FALSE(find_heavy_tail(std::vector<double>{1, 10}).has_value());
}

TEST_CASE("Two constant clusters are two regimes with an infinite D") {
    const auto r = find_two_regimes(std::vector<double>{5, 5, 5, 9, 9, 9});
    REQUIRE(r.has_value());
    CHECK(std::isinf(r->ashman_d));
    CHECK_FALSE(find_two_regimes(std::vector<double>{5, 5, 5, 5}).has_value());
}

// ---- keys and order ------------------------------------------------------------------------------------

TEST_CASE("Group names sort naturally, (none) last") {
    using report::detail::group_order;
    CHECK(natural_less("7b", "13b"));
    CHECK(natural_less("13b", "70b"));
    CHECK_FALSE(natural_less("70b", "7b"));
    CHECK(natural_less("c2", "c16"));
    CHECK(natural_less("llama", "qwen"));
    CHECK(natural_less("07", "7")); // equal values: a total order by bytes
    CHECK_FALSE(natural_less("7", "07"));
    CHECK(group_order("zzz", "(none)"));
    CHECK_FALSE(group_order("(none)", "1"));
}

TEST_CASE("--group-by takes a metadata key or NAME=REGEX split at the first '='") {
    CHECK(report::parse_group_key("model").name == "model");
    CHECK(report::parse_group_key("model").pattern.empty());
    const auto k = report::parse_group_key("size=_([0-9]+b)\\.json$");
    CHECK(k.name == "size");
    CHECK(k.pattern == "_([0-9]+b)\\.json$");
    CHECK(report::parse_group_key("a=b=c").pattern == "b=c");
    CHECK_THROWS_AS(report::parse_group_key(""), usage_error);
    CHECK_THROWS_AS(report::parse_group_key("=x"), usage_error);
    CHECK_THROWS_AS(report::parse_group_key("size="), usage_error);
}

TEST_CASE("Grouping by model puts runs without one in (none), with a note naming them") {
    std::vector<run> runs{constant_run("a", "qwen", 1), constant_run("b", "llama", 2), constant_run("c", "qwen", 3),
                          constant_run("d", "", 4)};
    const auto g = report::group_runs(runs, report::parse_group_key("model"));
    CHECK(names(g) == std::vector<std::string>{"llama", "qwen", "(none)"});
    CHECK(g.groups[1].members.size() == 2);
    CHECK(g.runs == 4);
    CHECK(has_note_containing(g, "1 run(s) have no model value: grouped as (none) (d)"));
}

TEST_CASE("Grouping by a run parameter orders its values numerically") {
    std::vector<run> runs;
    for (int c : {16, 2, 64, 4}) {
        runs.push_back(constant_run("c" + std::to_string(c), "m", c / 10.0));
        runs.back().meta.params["concurrency"] = c;
    }
    const auto g = report::group_runs(runs, report::parse_group_key("concurrency"));
    CHECK(names(g) == std::vector<std::string>{"2", "4", "16", "64"});
}

TEST_CASE("Grouping by a pattern takes its first capture group in each file name") {
    std::vector<run> runs{constant_run("x1", "", 1, "/data/anyscale_70b.json"),
                          constant_run("x2", "", 1, "/data/anyscale_7b.json"),
                          constant_run("x3", "", 1, "/data/groq_13b.json"),
                          constant_run("x4", "", 1, "/data/fireworks_7b.json"),
                          constant_run("x5", "", 1, "/data_7b.json/notes.json")}; // the directory does not count
    const auto g = report::group_runs(runs, report::parse_group_key("model=_([0-9]+b)\\.json$"));
    CHECK(names(g) == std::vector<std::string>{"7b", "13b", "70b", "(none)"});
    CHECK(g.groups[0].members.size() == 2);
    CHECK(has_note_containing(g, "have no model in their file name"));
}

TEST_CASE("A pattern without a capture group uses the whole match") {
    std::vector<run> runs{constant_run("x1", "", 1, "/d/run_7b.json"), constant_run("x2", "", 1, "/d/run_13b.json")};
    CHECK(names(report::group_runs(runs, report::parse_group_key("size=[0-9]+b"))) ==
          std::vector<std::string>{"7b", "13b"});
}

TEST_CASE("Grouping refuses a pattern that matches no file name, naming it and an example") {
    std::vector<run> runs{constant_run("x1", "", 1, "/data/anyscale_70b.json")};
    try {
        report::group_runs(runs, report::parse_group_key("size=_(q[0-9]+)\\.json$"));
        FAIL("no error");
    } catch (const usage_error& e) {
        const std::string what = e.what();
        CHECK(what.find("_(q[0-9]+)\\.json$") != std::string::npos);
        CHECK(what.find("anyscale_70b.json") != std::string::npos);
    }
}

TEST_CASE("Grouping refuses an invalid regular expression and a key no run has") {
    std::vector<run> runs{constant_run("x1", "m", 1)};
    CHECK_THROWS_WITH(report::group_runs(runs, report::parse_group_key("size=_([0-9]+b")),
                      Catch::Contains("invalid regular expression"));
    CHECK_THROWS_WITH(report::group_runs(runs, report::parse_group_key("modle")), Catch::Contains("no run has"));
}

// ---- members ---------------------------------------------------------------------------------------

TEST_CASE("A whole-run member: p95 and p99 of e2e, median tokens/s, output tok/s over its span") {
    // e2e 1..20 s, all sent at 0, 10 output tokens each, plus one failed request.
    // numpy: np.percentile(range(1, 21), 95) = 19.05, 99 -> 19.81.
    // tokens/s 10/e2e: sorted 10/20 .. 10/1, median = (10/11 + 10/10) / 2 = 0.9545454...
    // output tok/s: 200 tokens over the span 0 .. 25 s (the failed request's end counts: it held the server).
    run r;
    r.meta.label = "r";
    r.meta.model = "m";
    for (int i = 1; i <= 20; ++i) r.requests.push_back(request(0, i, 10));
    r.requests.push_back(request(0, 25, 10, request_status::error));
    const std::vector<run> runs{r};
    const auto g = report::group_runs(runs, report::parse_group_key("model"));
    REQUIRE(g.groups.size() == 1);
    const auto& m = g.groups[0].members.at(0);
    CHECK(m.requests == 20);
    CHECK(m.p95 == Approx(19.05));
    CHECK(m.p99 == Approx(19.81));
    CHECK(*m.tokens_per_s_median == Approx((10.0 / 11 + 1) / 2));
    CHECK(*m.output_tps == Approx(200.0 / 25));
    CHECK_FALSE(m.window.has_value());
}

TEST_CASE("Without a shared clock a member has no output tok/s") {
    run r = constant_run("r", "m", 2);
    r.meta.shared_clock = false;
    const std::vector<run> runs{r};
    const auto g = report::group_runs(runs, report::parse_group_key("model"));
    CHECK_FALSE(g.groups[0].members[0].output_tps.has_value());
    CHECK(*g.groups[0].members[0].tokens_per_s_median == Approx(10)); // 20 tokens / 2 s
}

TEST_CASE("--window cuts a run into time bins by send time; sparse bins are left out with a note") {
    // Sends at 100..132 s (one a second, 33 requests), window 10 s from the first send: bins [0, 10),
    // [10, 20), [20, 30) hold 10 each, [30, 40) holds 3 (< 5) and is left out.
    run r;
    r.meta.label = "r";
    r.meta.model = "m";
    for (int i = 0; i < 33; ++i) r.requests.push_back(request(100 + i, i < 10 ? 1 : i < 20 ? 2 : 3, 10));
    const std::vector<run> runs{r};
    const auto g = report::group_runs(runs, report::parse_group_key("model"), {.window = 10.0});
    const auto& members = g.groups.at(0).members;
    REQUIRE(members.size() == 3);
    CHECK(members[0].window->first == 0);
    CHECK(members[0].window->second == 10);
    CHECK(members[2].window->first == 20);
    CHECK(members[0].p95 == 1);
    CHECK(members[1].p95 == 2);
    CHECK(members[2].p95 == 3);
    CHECK(members[1].requests == 10);
    CHECK(members[1].label == "r [10.00 s, 20.00 s)");
    CHECK(has_note_containing(g, "r: 1 of 4 time bins had fewer than 5 successful requests"));
}

TEST_CASE("--window leaves a run without a shared clock whole, and says so") {
    run r = constant_run("llmperf", "m", 2);
    r.meta.shared_clock = false;
    const std::vector<run> runs{r};
    const auto g = report::group_runs(runs, report::parse_group_key("model"), {.window = 10.0});
    CHECK(g.groups[0].members.size() == 1);
    CHECK(has_note_containing(g, "no shared clock"));
    CHECK_THROWS_AS(report::group_runs(runs, report::parse_group_key("model"), {.window = 0.0}), usage_error);
    CHECK_THROWS_AS(report::group_runs(runs, report::parse_group_key("model"), {.window = -5.0}), usage_error);
}

TEST_CASE("A run with nothing measured is left out with a note") {
    run trace = constant_run("trace", "m", 1);
    trace.meta.kind = run_kind::arrivals;
    const std::vector<run> runs{trace, constant_run("ok", "m", 1)};
    const auto g = report::group_runs(runs, report::parse_group_key("model"));
    CHECK(g.runs == 1);
    CHECK(has_note_containing(g, "trace holds no per-request measurements (arrivals)"));
}

// ---- JSON and findings -------------------------------------------------------------------------------

TEST_CASE("groups JSON: members, summaries per measure, regimes and tails") {
    std::vector<run> runs;
    for (double e2e : {1.0, 2.0, 3.0, 10.0, 11.0, 12.0}) runs.push_back(constant_run("b" + std::to_string(int(e2e)), "big", e2e));
    for (double e2e : {1.0, 2.0, 3.0, 4.0, 20.0}) runs.push_back(constant_run("s" + std::to_string(int(e2e)), "small", e2e));
    const auto g = report::group_runs(runs, report::parse_group_key("model"));
    const auto j = report::groups_to_json(g);
    REQUIRE(j.size() == 2);
    CHECK(j[0]["name"] == "big");
    CHECK(j[0]["key"] == "model");
    CHECK(j[0]["members"].size() == 6);
    CHECK(j[0]["members"][0]["label"] == "b1");
    CHECK_FALSE(j[0]["members"][0].contains("window"));
    CHECK(j[0]["members"][0]["p95"] == 1.0);
    CHECK(j[0]["members"][0]["output_tps"] == Approx(100.0 / 5)); // 100 tokens, sends 0..4, last end 4 + 1
    const auto& p95 = j[0]["summaries"]["p95"];
    CHECK(p95["n"] == 6);
    CHECK(p95["min"] == 1.0);
    CHECK(p95["p25"] == 2.25);
    CHECK(p95["median"] == 6.5);
    CHECK(p95["p75"] == 10.75);
    CHECK(p95["max"] == 12.0);
    CHECK(p95["mean"] == 6.5);
    // p95 and p99 are the same numbers here: both have two regimes. Tokens/s (20 / e2e: 1.67, 1.82, 2,
    // 6.67, 10, 20) is best split with 20 alone, so it is a tail (20 / 4.33 = 4.6×), not a regime.
    REQUIRE(j[0]["regimes"].size() == 2);
    REQUIRE(j[0]["tails"].size() == 1);
    CHECK(j[0]["tails"][0]["measure"] == "tokens_per_s_median");
    CHECK(j[0]["regimes"][0]["measure"] == "p95");
    CHECK(j[0]["regimes"][0]["split"] == 6.5);
    CHECK(j[0]["regimes"][0]["lower"]["n"] == 3);
    CHECK(j[0]["regimes"][0]["ashman_d"].get<double>() == Approx(9 * std::sqrt(1.5)));
    REQUIRE(j[1]["tails"].size() >= 2);
    CHECK(j[1]["tails"][0]["measure"] == "p95");
    CHECK(j[1]["tails"][0]["side"] == "upper");
    CHECK(j[1]["tails"][0]["ratio"].get<double>() == Approx(20.0 / 3));
}

TEST_CASE("Findings quote the groups' own numbers") {
    std::vector<run> runs;
    for (double e2e : {1.0, 2.0, 3.0, 10.0, 11.0, 12.0}) runs.push_back(constant_run("b" + std::to_string(int(e2e)), "big", e2e));
    for (double e2e : {1.0, 2.0, 3.0, 4.0, 20.0}) runs.push_back(constant_run("s" + std::to_string(int(e2e)), "small", e2e));
    const auto g = report::group_runs(runs, report::parse_group_key("model"));
    const auto view = report::group_view(g, {});
    std::string all;
    for (const auto& f : view["findings"]) all += f["text"].get<std::string>() + "\n";
    CHECK(all.find("Model big: p95 e2e has two regimes — 3 members at 1.00 s–3.00 s and 3 at 10.00 s–12.00 s "
                   "(best two-cluster split, Ashman's D 11.0).") != std::string::npos);
    // p95 and p99 are equal here, with the tail in the same member: one sentence for both.
    CHECK(all.find("Model small: p95 and p99 e2e have a heavy upper tail — s20 at 20.00 s and 20.00 s is 6.7× and "
                   "6.7× the medians of its 5 members, 3.00 s and 3.00 s.") != std::string::npos);
    CHECK(all.find("Model small: p99") == std::string::npos);
    // Tokens/s of small (20 / e2e: 20, 10, 6.67, 5, 1): median 6.67 is 6.7× the smallest.
    CHECK(all.find("Model small: median tokens/s has a heavy lower tail — s20 at 1.0 tok/s; the median of its 5 "
                   "members, 6.7 tok/s, is 6.7× that.") != std::string::npos);
    // Medians of the members' p95: big 6.5 s, small 3 s.
    CHECK(all.find("Members' p95 e2e, median per group: lowest model small (3.00 s), highest model big (6.50 s), "
                   "2.2× apart.") != std::string::npos);
    CHECK(view["rows"][0]["name"] == "small"); // ranked by median p95
    CHECK(view["rows"][0]["p95_spread"] == "1.00 s–20.00 s");
}

TEST_CASE("At most a dozen findings: regimes first, then the largest tails, then how many more") {
    // 14 groups of four members, three at 1 s and one at 10 + g s: per group an upper tail in p95
    // and p99 (one merged finding) and a lower tail in tokens/s (20 tok/s against 20 / (10 + g)), so
    // 28 shape findings. Every group's median p95 is 1 s, so there is no lowest-vs-highest finding.
    // Twelve lines: the eleven strongest and "17 more".
    std::vector<run> runs;
    for (int g = 0; g < 14; ++g)
        for (int m = 0; m < 4; ++m)
            runs.push_back(constant_run("g" + std::to_string(g) + "m" + std::to_string(m), "g" + std::to_string(g),
                                        m == 3 ? 10.0 + g : 1.0));
    const auto view = report::group_view(report::group_runs(runs, report::parse_group_key("model")), {});
    REQUIRE(view["findings"].size() == 12);
    // The largest ratio first: group g13's member at 23 s is 23× the median 1 s (its tokens/s tie).
    CHECK(view["findings"][0]["text"].get<std::string>().starts_with("Model g13: p95 and p99 e2e have a heavy upper tail"));
    CHECK(view["findings"][11]["text"] == "17 more findings of this kind: report.json lists every group's regimes and tails.");
}

TEST_CASE("Group plots: three violins and the trade-off, named and byte-stable") {
    std::vector<run> runs{constant_run("a", "7b", 1), constant_run("b", "70b", 2), constant_run("c", "13b", 3),
                          constant_run("d", "7b", 1.5)};
    const auto g = report::group_runs(runs, report::parse_group_key("model"));
    const auto plots = report::group_plots(g);
    REQUIRE(plots.size() == 4);
    CHECK(plots[0].name == "groups-p95-violin.svg");
    CHECK(plots[1].name == "groups-p99-violin.svg");
    CHECK(plots[2].name == "groups-tokens-violin.svg");
    CHECK(plots[3].name == "groups-tradeoff.svg");
    // Natural order on the category axis: 7b, 13b, 70b.
    const auto& svg = plots[0].svg;
    CHECK(svg.find(">7b<") < svg.find(">13b<"));
    CHECK(svg.find(">13b<") < svg.find(">70b<"));
    const auto again = report::group_plots(report::group_runs(runs, report::parse_group_key("model")));
    for (std::size_t i = 0; i < plots.size(); ++i) CHECK(plots[i].svg == again[i].svg);
}

} // namespace test_group_view
