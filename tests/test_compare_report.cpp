// The compare report: findings (order and wording), the view model's sections, escaping,
// determinism, plots, and the built-in compare templates rendered strictly.
// Expected sentences are written out by hand from the formatting rules (fixed decimals, typographic
// minus); the order-statistic sample sizes come from numpy (see the too-few test).
#include <catch2/catch.hpp> // Catch2 v2

#include <algorithm> // std::all_of, std::count
#include <cmath>     // std::fmod
#include <regex>     // std::regex_match
#include <string>    // std::string
#include <vector>    // std::vector

#include "servestat/compare/gate.hpp"
#include "servestat/ingest/sweep_csv.hpp" // sweep_csv_format
#include "servestat/report/builtin_templates.hpp"
#include "servestat/report/compare_view.hpp"
#include "servestat/report/render.hpp"

namespace test_compare_report { // the unity build compiles several test files as one: each keeps its names

using namespace servestat;
using report::compare_findings;

namespace {

// ---- hand-made comparisons, for the wording of findings ----

change make_change(std::string subset, std::string metric_name, std::string statistic, double before, double after,
                   verdict v, std::optional<interval> relative_ci = std::nullopt, std::optional<double> p = std::nullopt,
                   std::size_t n = 1000) {
    change c;
    c.subset = std::move(subset);
    c.metric = std::move(metric_name);
    c.statistic = std::move(statistic);
    if (!c.subset.empty() && c.subset != "all") c.name = c.subset + ".";
    c.name += c.metric;
    if (!c.statistic.empty()) c.name += "." + c.statistic;
    c.lower_is_better = !c.subset.empty();
    c.n_before = c.n_after = n;
    c.before = before;
    c.after = after;
    c.delta = after - before;
    if (before > 0) c.relative = after / before - 1;
    c.relative_ci = relative_ci;
    if (relative_ci) c.delta_ci = interval{relative_ci->low * before, relative_ci->high * before};
    c.p_value = p;
    c.result = v;
    return c;
}

change latency(const char* subset, const char* statistic, double before, double after, verdict v,
               std::optional<interval> ci = std::nullopt, std::optional<double> p = std::nullopt) {
    return make_change(subset, "e2e", statistic, before, after, v, ci, p);
}

compared_pair hand_pair(std::vector<change> changes, std::optional<double> load = std::nullopt) {
    compared_pair p;
    p.load = load;
    p.comparison.before.meta.label = "before-run";
    p.comparison.after.meta.label = "after-run";
    p.comparison.changes = std::move(changes);
    return p;
}

comparison single(std::vector<change> changes) {
    comparison c;
    c.pairing = "single";
    c.pairs.push_back(hand_pair(std::move(changes)));
    return c;
}

// ---- runs built request by request, compared for real ----

// n requests one `gap` apart; prompts cycle short (20), medium (500), long (3000) tokens; e2e is
// `scale` times a deterministic spread in [1, 2), ttft a third of it (none when `with_ttft` is false).
run synthetic_run(std::string label, double scale, double gap, int n = 60, bool with_ttft = true) {
    run r;
    r.meta.label = std::move(label);
    r.meta.source.path = "logs/" + r.meta.label + ".jsonl";
    r.meta.source.format = "servestat";
    r.meta.started_at = "2026-01-11T22:01:00Z";
    for (int i = 0; i < n; ++i) {
        request_record q;
        const double spread = 1 + std::fmod(i * 0.618, 1.0);
        q.t_sched = q.t_sent = i * gap;
        q.t_end = *q.t_sent + scale * spread;
        if (with_ttft) q.t_first = *q.t_sent + scale * spread / 3;
        q.prompt_tokens = i % 3 == 0 ? 20 : i % 3 == 1 ? 500 : 3000;
        q.output_tokens = 40;
        q.status = request_status::ok;
        r.requests.push_back(q);
    }
    return r;
}

comparison_options fast_options() {
    comparison_options o;
    o.compare.bootstrap.resamples = 200;
    return o;
}

const std::string hostile = "<script>alert(1)</script> | *x* _y_ [z](http://evil)";

struct compared_runs {
    std::vector<run> before, after;
    comparison_options options = fast_options();
    comparison result;
};

compared_runs single_runs(bool with_ttft = true) {
    compared_runs c;
    c.before.push_back(synthetic_run(hostile, 1.0, 0.5, 60, with_ttft));
    c.after.push_back(synthetic_run("after", 0.6, 0.5, 60, with_ttft));
    c.result = compare(c.before, c.after, c.options);
    return c;
}

// Two sweeps over concurrency: before saturates near c=6, after near c=12; after also ran c=32.
compared_runs sweep_runs() {
    compared_runs c;
    for (double conc : {1.0, 2.0, 4.0, 8.0, 16.0}) {
        c.before.push_back(synthetic_run(fmt::format("before-c{:g}", conc), 0.2 * std::max(1.0, conc / 6),
                                         1 / std::min(conc, 6.0), 45));
        c.before.back().meta.params["concurrency"] = conc;
    }
    for (double conc : {1.0, 2.0, 4.0, 8.0, 16.0, 32.0}) {
        c.after.push_back(synthetic_run(fmt::format("after-c{:g}", conc), 0.15 * std::max(1.0, conc / 12),
                                        1 / std::min(conc, 12.0), 45));
        c.after.back().meta.params["concurrency"] = conc;
    }
    c.options.compare.stats.slos = {{metric::e2e, 0.5}};
    c.result = compare(c.before, c.after, c.options);
    return c;
}

json full_view(const compared_runs& c, const std::optional<gate_outcome>& gate = std::nullopt) {
    json view = report::compare_view_model(c.result, c.options, gate, {});
    report::attach_compare_plots(view, report::compare_plot_set(c.result, c.before, c.after, c.options));
    return view;
}

std::string render_builtin(const char* name, const json& view) {
    const auto* t = find_builtin_template(name);
    REQUIRE(t != nullptr);
    const markup m = std::string(name).ends_with(".html") ? markup::html : markup::markdown;
    return render(t->text, view, m, t->name);
}

std::size_t occurrences(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
    return n;
}

} // namespace

// ---- findings ----------------------------------------------------------------------------------

TEST_CASE("significant changes come first, largest relative change first, with values, interval and p",
          "[compare_report]") {
    const auto c = single({
        latency("all", "p90", 10.0, 8.77, verdict::improved, interval{-0.18, -0.061}, 0.003),
        latency("all", "p50", 2.0, 2.1, verdict::no_change, interval{-0.01, 0.011}, 0.4),
        latency("short", "p99", 0.5, 0.7, verdict::regressed, interval{0.2, 0.6}, 0.0002),
    });
    const auto f = compare_findings(c, fast_options());
    REQUIRE(f.size() >= 2);
    CHECK(f[0] == "Short prompts' e2e p99 regressed by 40.0% (500 ms → 700 ms; 95% CI +20.0% to +60.0%; p < 0.001).");
    CHECK(f[1] == "All requests' e2e p90 improved by 12.3% (10.00 s → 8.77 s; 95% CI −18.0% to −6.1%; p = 0.003).");
}

TEST_CASE("equal relative changes are ordered by name, and loads prefix the sentences of sweeps", "[compare_report]") {
    comparison c;
    c.pairing = "load";
    c.sweep = sweep_shift{};
    c.sweep->param = "concurrency";
    c.pairs.push_back(hand_pair({latency("all", "p99", 1.0, 0.8, verdict::improved, interval{-0.3, -0.1}, 0.01),
                                 latency("all", "p50", 1.0, 0.8, verdict::improved, interval{-0.3, -0.1}, 0.01)},
                                32.0));
    const auto f = compare_findings(c, fast_options());
    REQUIRE(f.size() >= 2);
    CHECK(f[0] == "c=32: all requests' e2e p50 improved by 20.0% (1.00 s → 800 ms; 95% CI −30.0% to −10.0%; p = 0.01).");
    CHECK(f[1] == "c=32: all requests' e2e p99 improved by 20.0% (1.00 s → 800 ms; 95% CI −30.0% to −10.0%; p = 0.01).");
}

TEST_CASE("statistics of one metric that moved together make one line in the body; every one is in the appendix",
          "[compare_report]") {
    std::vector<change> changes;
    for (int i = 0; i < 13; ++i)
        changes.push_back(make_change("all", "e2e", fmt::format("p{}", 10 + i), 1.0, 0.5 + 0.01 * i, verdict::improved,
                                      interval{-0.6, -0.3}, 0.001));
    const auto c = single(changes);
    const auto f = compare_findings(c, fast_options());
    REQUIRE(f.size() == 13);
    CHECK(f[0].starts_with("All requests' e2e p10 improved by 50.0%"));
    CHECK(f[12].starts_with("All requests' e2e p22 improved by 38.0%"));
    const json view = report::compare_view_model(c, fast_options(), std::nullopt, {});
    REQUIRE(view["findings"].size() == 1);
    // The statistics by name, each with its change; the strongest (p10: 1.00 s → 500 ms) in numbers.
    CHECK(view["findings"][0]["text"] ==
          "All requests' e2e latency improved: p10 −50.0%, p11 −49.0%, p12 −48.0%, p13 −47.0%, p14 −46.0%, p15 −45.0%, p16 −44.0%, "
          "p17 −43.0%, p18 −42.0%, p19 −41.0%, p20 −40.0%, p21 −39.0%, p22 −38.0% (largest change p10: 1.00 s → 500 ms, "
          "95% CI −60.0% to −30.0%, p = 0.001).");
    CHECK(view["all_findings"].size() == 13);
    CHECK(view["has_more_findings"] == true);
    CHECK(view["stats"]["findings"].size() == 13);
}

TEST_CASE("a regression keeps its own line in the body beside larger improvements", "[compare_report]") {
    std::vector<change> changes;
    for (int i = 0; i < 12; ++i)
        changes.push_back(make_change("all", "e2e", fmt::format("p{}", 10 + i), 1.0, 0.5, verdict::improved,
                                      interval{-0.6, -0.3}, 0.001));
    changes.push_back(make_change("all", "ttft", "p50", 1.0, 1.05, verdict::regressed, interval{0.03, 0.07}, 0.01));
    const json view = report::compare_view_model(single(changes), fast_options(), std::nullopt, {});
    REQUIRE(view["findings"].size() == 2);
    CHECK(view["findings"][0]["text"].get<std::string>().starts_with("All requests' e2e latency improved: p10 −50.0%"));
    CHECK(view["findings"][1]["text"] == "All requests' TTFT regressed: p50 +5.0% (largest change p50: 1.00 s → 1.05 s, 95% CI "
                                         "+3.0% to +7.0%, p = 0.01).");
}

TEST_CASE("a statistic that moved at several load levels is one finding naming the range of levels and changes",
          "[compare_report]") {
    comparison c;
    c.pairing = "load";
    c.sweep = sweep_shift{};
    c.sweep->param = "concurrency";
    // short e2e p99 improves at c=16, 32, 64 (not at 8); the levels are neighbours from c=16 on.
    const double loads[] = {8, 16, 32, 64};
    const double after[] = {1.0, 0.69, 0.6, 0.56};
    for (int i = 0; i < 4; ++i)
        c.pairs.push_back(hand_pair({make_change("short", "e2e", "p99", 1.0, after[i], i == 0 ? verdict::no_change : verdict::improved,
                                                 i == 0 ? interval{-0.05, 0.04} : interval{after[i] - 1.1, after[i] - 0.9},
                                                 i == 0 ? 0.4 : 0.0001)},
                                    loads[i]));
    const auto f = compare_findings(c, fast_options());
    REQUIRE(!f.empty());
    // 31–44%: 1 − 0.69 and 1 − 0.56; the CIs' outer ends: 0.56 − 1.1 = −54% and 0.69 − 0.9 = −21%.
    CHECK(f[0] == "Short prompts' e2e p99 improved 31–44% at c=16…64 (significant at 3 of 4 levels; 95% CIs within −54.0% to "
                  "−21.0%; largest at c=64: 1.00 s → 560 ms; p < 0.001).");
}

TEST_CASE("levels that are not neighbours are listed, runs of three or more as ranges", "[compare_report]") {
    report::merged_change m;
    change x = latency("all", "p50", 1.0, 0.5, verdict::improved);
    for (auto [load, position] : std::vector<std::pair<double, std::size_t>>{{1, 0}, {8, 3}, {16, 4}, {32, 5}, {64, 7}})
        m.levels.push_back({load, "", position, &x});
    CHECK(report::detail::levels_text("concurrency", m) == "c=1, c=8…32, c=64");
    m.levels.erase(m.levels.begin() + 2); // 8 and 32 are no longer neighbours
    CHECK(report::detail::levels_text("concurrency", m) == "c=1, c=8, c=32, c=64");
}

TEST_CASE("one prompt-length subset improving while another regresses is named a trade-off", "[compare_report]") {
    const auto c = single({latency("short", "p90", 1.0, 0.5, verdict::improved, interval{-0.6, -0.4}, 0.0001),
                           latency("long", "p90", 1.0, 1.3, verdict::regressed, interval{0.2, 0.4}, 0.0001)});
    const json view = report::compare_view_model(c, fast_options(), std::nullopt, {});
    REQUIRE(!view["findings"].empty());
    CHECK(view["findings"][0]["kind"] == "trade_off");
    CHECK(view["findings"][0]["text"] ==
          "Trade-off on e2e latency: short prompts improved (p90 −50.0%; largest change p90: 1.00 s → 500 ms, 95% CI "
          "−60.0% to −40.0%, p < 0.001), while long prompts regressed (p90 +30.0%; largest change p90: 1.00 s → "
          "1.30 s, 95% CI +20.0% to +40.0%, p < 0.001).");
    CHECK(view["findings"].size() == 1); // both sides are told by the trade-off
    // The summary leads with the verdict in one line, then the trade-off itself.
    CHECK(view["summary"][0]["text"] == "Net: after (after-run) improves short prompts' e2e latency and worsens long "
                                        "prompts' e2e latency. Choose after-run when short prompts' e2e latency "
                                        "matter most, before-run otherwise.");
    CHECK(view["summary"][1]["text"] == view["findings"][0]["text"]);
}

TEST_CASE("the body shows at most twelve findings and the summary at most five sentences", "[compare_report]") {
    std::vector<change> changes;
    const char* metrics[] = {"e2e", "ttft", "tpot", "server_queue", "server_prefill", "server_decode", "itl", "decode"};
    for (const char* m : metrics)
        for (const char* subset : {"all", "medium"})
            changes.push_back(make_change(subset, m, "p50", 1.0, 0.7, verdict::improved, interval{-0.4, -0.2}, 0.001));
    const json view = report::compare_view_model(single(changes), fast_options(), std::nullopt, {});
    CHECK(view["findings"].size() == 12);
    CHECK(view["all_findings"].size() == 16);
    CHECK(view["findings_total"] == "16");
    CHECK(view["summary"].size() <= 5);
}

TEST_CASE("with nothing significant the first finding says so, naming the noise band", "[compare_report]") {
    auto o = fast_options();
    o.compare.verdicts.noise = 0.05;
    const auto f = compare_findings(single({latency("all", "p50", 1.0, 1.01, verdict::within_noise, interval{0.001, 0.02}, 0.01)}), o);
    REQUIRE(!f.empty());
    CHECK(f[0] == "No statistic changed significantly beyond the ±5% noise band.");
}

TEST_CASE("a tail shift the distribution test does not confirm is reported as a change in the tail only",
          "[compare_report]") {
    const auto c = single({
        latency("all", "p99", 5.0, 7.0, verdict::no_change, interval{0.12, 0.70}, 0.31),
        latency("all", "p90", 5.0, 5.5, verdict::no_change, interval{-0.01, 0.2}, 0.31), // reaches into the band
        latency("all", "p50", 2.0, 1.5, verdict::no_change, interval{-0.4, -0.1}, 0.31),
    });
    const auto f = compare_findings(c, fast_options());
    REQUIRE(f.size() == 3);
    CHECK(f[1] == "All requests' e2e p99 rose 40.0% (95% CI +12.0% to +70.0%) but the distribution as a whole did not shift "
                  "(p = 0.31): a change in the tail only; more requests would confirm it.");
    CHECK(f[2] == "All requests' e2e p50 fell 25.0% (95% CI −40.0% to −10.0%) but the distribution as a whole did not shift "
                  "(p = 0.31); more requests would confirm it.");
}

TEST_CASE("throughputs beyond the noise band are flagged as single measurements", "[compare_report]") {
    const auto c = single({make_change("", "rps", "", 4.91, 5.30, verdict::single),
                           make_change("", "output_tps", "", 300.0, 303.0, verdict::single)}); // 1%: within noise
    const auto f = compare_findings(c, fast_options());
    REQUIRE(f.size() == 2);
    CHECK(f[1] == "Throughput rose 7.9% (4.91 → 5.30 req/s), one measurement per run: repeat the runs to know "
                  "whether it is real.");
}

TEST_CASE("a sweep's throughput changes make one sentence listing the levels", "[compare_report]") {
    comparison c;
    c.pairing = "load";
    c.sweep = sweep_shift{};
    c.sweep->param = "concurrency";
    c.pairs.push_back(hand_pair({make_change("", "rps", "", 1.0, 1.25, verdict::single)}, 1.0));
    c.pairs.push_back(hand_pair({make_change("", "rps", "", 2.0, 2.01, verdict::single)}, 2.0)); // within noise
    c.pairs.push_back(hand_pair({make_change("", "rps", "", 4.0, 3.0, verdict::single)}, 4.0));
    const auto f = compare_findings(c, fast_options());
    REQUIRE(f.size() == 2);
    CHECK(f[1] == "Throughput changed beyond ±2% at 2 of 3 levels: c=1 +25.0%, c=4 −25.0%; one measurement per "
                  "run: repeat the runs to know whether it is real.");
}

TEST_CASE("statistics with too few requests are counted in one sentence naming the order-statistic rule",
          "[compare_report]") {
    // Fewest requests a side for a 95% interval of the change from both sides' order statistics
    // (fewest_values_for_change): p99 238, p90 20, p50 4, the exact binomial coverages that
    // tests/test_compare_calibration.cpp checks against Python's math.comb.
    std::vector<change> p99_only;
    for (const char* subset : {"all", "short", "medium", "long"})
        for (const char* m : {"e2e", "ttft", "tpot"})
            p99_only.push_back(make_change(subset, m, "p99", 1.0, 1.1, verdict::too_few, interval{0.0, 0.2}, 0.2, 100));
    auto f = compare_findings(single(p99_only), fast_options());
    CHECK(f.back() == "p99 needs ≥ 238 requests per side for a 95% interval from both sides' order statistics; 12 "
                      "statistics had fewer and get no verdict.");

    auto mixed = p99_only;
    mixed.push_back(make_change("short", "e2e", "p90", 1.0, 1.1, verdict::too_few, std::nullopt, 0.2, 20));
    mixed.push_back(make_change("long", "e2e", "p90", 1.0, 1.1, verdict::too_few, std::nullopt, 0.2, 20));
    mixed.push_back(make_change("long", "e2e", "mean", 1.0, 1.1, verdict::too_few, std::nullopt, 0.2, 1));
    f = compare_findings(single(mixed), fast_options());
    CHECK(f.back() == "p90 needs ≥ 20 requests per side, p99 ≥ 238 for a 95% interval from both sides' order "
                      "statistics; 14 statistics had fewer and get no verdict; 1 more had fewer than 2 values on a side.");
}

TEST_CASE("changed SLO capacity, moved knees and unpaired runs follow, in that order", "[compare_report]") {
    comparison c;
    c.pairing = "load";
    c.pairs.push_back(hand_pair({make_change("", "rps", "", 5.0, 5.0, verdict::single)}, 16.0));
    c.sweep = sweep_shift{};
    c.sweep->param = "concurrency";
    c.sweep->knees = {{"throughput", 16.0, 32.0}, {"p99", 8.0, 8.0}};
    slo_capacity before{{metric::e2e, 5.0}, 95, 8.0, false, true, true};
    slo_capacity after = before;
    after.max_load = 16.0;
    c.sweep->capacity = {{{metric::e2e, 5.0}, 95, before, after}, {{metric::ttft, 1.0}, 95, before, before}};
    c.sweep->only_after = {64.0};
    c.unpaired = {"warmup"};
    const auto f = compare_findings(c, fast_options());
    const std::vector<std::string> expected{
        "No statistic changed significantly beyond the ±2% noise band.",
        "Largest concurrency meeting e2e p95 ≤ 5.00 s: 8 → 16.",
        "Saturation (throughput knee) moved from c=16 to c=32.",
        "Not part of either side's sweep, so compared with nothing: warmup.",
        "Measured only after, so not compared: c=64.",
    };
    CHECK(f == expected);
}

// tests/data/sweep/step_ttft.csv as the after side: its TTFT p99 jumps 15× between request_rate 40 and
// 48 and Kneedle's knee, on the last level, is withheld (test_sweep.cpp derives it). The comparison
// says so as a knee finding, so no reader takes "no knee" or a moved knee for saturation.
TEST_CASE("a side whose latency curve is one jump gets a knee finding naming the jump", "[compare_report]") {
    comparison c;
    c.pairing = "load";
    c.pairs.push_back(hand_pair({make_change("", "rps", "", 5.0, 5.0, verdict::single)}, 16.0));
    c.sweep = sweep_shift{};
    c.sweep->param = "request_rate";
    std::vector<run_stats> runs;
    for (const auto& r : sweep_csv_format.read(std::string(SERVESTAT_TEST_DATA_DIR) + "/sweep/step_ttft.csv", {}))
        runs.push_back(analyze(r));
    c.sweep->after = analyze_sweep(find_sweeps(runs).front(), runs);
    const auto f = compare_findings(c, fast_options());
    const std::string jump = "After: TTFT p99 rises 15× in one step, request_rate 40 → 48 (0.22 s → 3.3 s), flat on "
                             "either side: a step, not a gradual saturation; Kneedle's answer, request_rate=64, is the "
                             "last level and is not reported as a knee.";
    CHECK(std::count(f.begin(), f.end(), jump) == 1);
}

// ---- view model --------------------------------------------------------------------------------

TEST_CASE("the view model has every section, with explicit has_ flags", "[compare_report]") {
    const auto c = single_runs();
    gate_outcome gate{"regressed", parse_gate("regressed"), gate_failures(c.result, parse_gate("regressed"))};
    const json view = full_view(c, gate);
    for (const char* key : {"title", "generator", "options", "pairing", "pairing_text", "verdict_counts", "many_pairs",
                            "summary_rows", "pairs", "has_gate", "gate", "has_sweep", "sweep", "has_findings",
                            "findings", "all_findings", "has_more_findings", "summary", "kpi", "kpi_note", "stats"})
        CHECK(view.contains(key));
    CHECK(view["title"] == "Before / after comparison");
    json document = comparison_document(c.result, c.options, gate);
    document["findings"] = view["stats"]["findings"]; // every finding, added by the view
    CHECK(view["stats"] == document);
    CHECK(view["stats"]["findings"].size() == view["all_findings"].size());
    CHECK(view["has_gate"] == true);
    CHECK(view["has_sweep"] == false);
    CHECK(view["has_findings"] == true);
    CHECK(view["options"]["noise"] == "±2%");
    CHECK(view["options"]["too_few_rule"] == "p50 needs 4, p90 needs 20, p99 needs 238"); // fewest_values_for_change

    // compare.py's table: run level first, then e2e / ttft / tpot p50 p90 p99 mean of all requests.
    std::vector<std::string> names;
    for (const auto& row : view["summary_rows"]) names.push_back(row["name"]);
    const std::vector<std::string> expected{"rps",      "output_tps", "success_rate", "e2e.p50",  "e2e.p90",
                                            "e2e.p99",  "e2e.mean",   "ttft.p50",     "ttft.p90", "ttft.p99",
                                            "ttft.mean", "tpot.p50",  "tpot.p90",     "tpot.p99", "tpot.mean"};
    CHECK(names == expected);

    const json& pair = view["pairs"][0];
    CHECK(pair["heading"] == hostile + " → after");
    CHECK(pair["before"]["requests"] == "60");
    CHECK(pair["has_plots"] == false); // one pair: its plots are the overlays under the findings
    CHECK(view["has_overlays"] == true);
    std::vector<std::string> subsets;
    for (const auto& s : pair["subsets"]) subsets.push_back(s["name"]);
    CHECK(subsets == std::vector<std::string>{"all", "short", "medium", "long"});
    CHECK(pair["subsets"][1]["n_before"] == "20");
}

TEST_CASE("table cells carry units, signed changes, the interval and a css class per verdict", "[compare_report]") {
    const auto c = single({latency("all", "p90", 10.0, 8.77, verdict::improved, interval{-0.18, -0.061}, 0.003),
                           make_change("", "success_rate", "", 0.9, 0.95, verdict::no_change, interval{-0.01, 0.1}, 0.2),
                           make_change("", "rps", "", 4.91, 5.30, verdict::single)});
    const json view = report::compare_view_model(c, fast_options(), std::nullopt, {});
    const json& rows = view["summary_rows"];
    REQUIRE(rows.size() == 3);
    CHECK(rows[0]["before"] == "4.91 req/s");
    CHECK(rows[0]["change"] == "+0.39 req/s (+7.9%)");
    CHECK(rows[0]["ci"] == "–");
    CHECK(rows[0]["css"] == "undecided");
    CHECK(rows[1]["change"] == "+5.0 pp (+5.6%)");
    CHECK(rows[1]["css"] == "neutral");
    CHECK(rows[2]["metric"] == "e2e p90");
    CHECK(rows[2]["change"] == "−1.23 s (−12.3%)");
    CHECK(rows[2]["ci"] == "[−18.0%, −6.1%]");
    CHECK(rows[2]["p"] == "0.003");
    CHECK(rows[2]["verdict"] == "improved");
    CHECK(rows[2]["css"] == "improved");
}

TEST_CASE("a sweep comparison has a level per shared load, knees, capacity and the loads of one side",
          "[compare_report]") {
    const auto c = sweep_runs();
    const json view = full_view(c);
    REQUIRE(view["has_sweep"] == true);
    const json& sweep = view["sweep"];
    CHECK(sweep["param"] == "concurrency");
    std::vector<std::string> loads;
    for (const auto& l : sweep["levels"]) loads.push_back(l["load"]);
    CHECK(loads == std::vector<std::string>{"c=1", "c=2", "c=4", "c=8", "c=16"});
    CHECK(sweep["has_only_after"] == true);
    CHECK(sweep["only_after"] == "c=32");
    CHECK(sweep["has_only_before"] == false);
    CHECK(sweep["knees"].size() == c.result.sweep->knees.size());
    CHECK(sweep["has_capacity"] == true);
    CHECK(view["pairs"][1]["heading"] == "c=2: before-c2 → after-c2");
    CHECK(view["summary_rows"][0]["pair"] == "c=1: before-c1 → after-c1");
}

// ---- rendering ---------------------------------------------------------------------------------

TEST_CASE("the built-in compare templates exist and render every section with no unknown name", "[compare_report]") {
    const auto c = single_runs();
    gate_outcome gate{"regressed", parse_gate("regressed"), gate_failures(c.result, parse_gate("regressed"))};
    // A failure listed whatever the data: the template's failure list must render too.
    gate.failures.push_back({std::nullopt, &c.result.pairs[0].comparison.changes[0]});
    const json view = full_view(c, gate);
    for (const char* name : {"compare.md", "compare.html"}) {
        const std::string out = render_builtin(name, view); // throws on a name the view lacks
        for (const char* section : {"Verdicts", "Findings", "Gate:", "FAIL", "Run level", "How to read this comparison"})
            CHECK(out.find(section) != std::string::npos);
    }
    CHECK(render_builtin("compare.md", view).find("![End-to-end latency — ") != std::string::npos);
    CHECK(render_builtin("compare.md", view).find("](plots/e2e-ecdf-all.svg)") != std::string::npos);
    const auto s = sweep_runs();
    for (const char* name : {"compare.md", "compare.html"}) {
        const std::string out = render_builtin(name, full_view(s));
        CHECK(out.find("Sweep over concurrency") != std::string::npos);
        CHECK(out.find("Measured only after, not compared: c=32.") != std::string::npos);
    }
}

TEST_CASE("a view with no gate, no sweep, no subsets and no plots renders too", "[compare_report]") {
    const auto c = single({make_change("", "rps", "", 4.91, 5.30, verdict::single)});
    const json view = report::compare_view_model(c, fast_options(), std::nullopt, {.title = "Week 3"});
    for (const char* name : {"compare.md", "compare.html"}) {
        const std::string out = render_builtin(name, view);
        CHECK(out.find("Week 3") != std::string::npos);
        CHECK(out.find("Gate") == std::string::npos);
        CHECK(out.find("Sweep over") == std::string::npos);
    }
}

TEST_CASE("labels from the input are escaped in HTML and Markdown", "[compare_report]") {
    const json view = full_view(single_runs());
    const std::string html = render_builtin("compare.html", view);
    const std::string md = render_builtin("compare.md", view);
    CHECK(html.find("<script") == std::string::npos);
    CHECK(html.find("&lt;script&gt;alert(1)&lt;/script&gt; | *x*") != std::string::npos);
    CHECK(occurrences(md, "<script") == occurrences(md, "\\<script")); // only as escaped text
    CHECK(occurrences(md, "<script") > 0);
    CHECK(md.find("\\<script\\>alert(1)\\</script\\> \\| \\*x\\* \\_y\\_ \\[z\\](http://evil)") != std::string::npos);
}

TEST_CASE("the HTML is self-contained: no scripts, links or external resources", "[compare_report]") {
    std::string html = render_builtin("compare.html", full_view(sweep_runs()));
    CHECK(html.find("<script") == std::string::npos);
    for (const char* external : {"href=", "src=", "url(", "@import"}) CHECK(html.find(external) == std::string::npos);
    // The inline SVGs' namespace is the only "http" there may be.
    const std::string ns = "xmlns=\"http://www.w3.org/2000/svg\"";
    CHECK(occurrences(html, "http") == occurrences(html, ns));
    CHECK(occurrences(html, "<svg") > 0);
}

TEST_CASE("the comparison, its view and its rendering are deterministic", "[compare_report]") {
    const auto a = sweep_runs(), b = sweep_runs();
    const json va = full_view(a), vb = full_view(b);
    CHECK(va == vb);
    for (const char* name : {"compare.md", "compare.html"}) CHECK(render_builtin(name, va) == render_builtin(name, vb));
}

// ---- plots -------------------------------------------------------------------------------------

TEST_CASE("a single pair's plots have stable names: ECDFs per subset and percentile bars", "[compare_report]") {
    const auto c = single_runs();
    std::vector<std::string> names;
    for (const auto& p : report::compare_plots(c.result, c.before, c.after, c.options)) names.push_back(p.name);
    const std::vector<std::string> expected{
        "e2e-ecdf-all.svg",  "e2e-ecdf-short.svg",  "e2e-ecdf-medium.svg",  "e2e-ecdf-long.svg",  "e2e-percentiles.svg",
        "ttft-ecdf-all.svg", "ttft-ecdf-short.svg", "ttft-ecdf-medium.svg", "ttft-ecdf-long.svg", "ttft-percentiles.svg"};
    CHECK(names == expected);
}

TEST_CASE("a sweep's plots are prefixed by load and add curves over the load", "[compare_report]") {
    const auto c = sweep_runs();
    const auto set = report::compare_plot_set(c.result, c.before, c.after, c.options);
    REQUIRE(set.pairs.size() == 5);
    CHECK(set.pairs[0].front().name == "c1-e2e-ecdf-all.svg");
    CHECK(set.pairs[4].back().name == "c16-ttft-percentiles.svg");
    std::vector<std::string> sweep;
    for (const auto& p : set.sweep) sweep.push_back(p.name);
    CHECK(sweep == std::vector<std::string>{"sweep-throughput.svg", "sweep-e2e-p99.svg", "sweep-ttft-p99.svg",
                                            "sweep-short-e2e-p99.svg", "sweep-long-e2e-p99.svg",
                                            "sweep-slo-e2e-p95.svg"});
    CHECK(set.sweep[0].svg.find("before: knee c=") != std::string::npos); // each side's saturation marked
    CHECK(set.sweep[5].svg.find("SLO e2e p95 ≤ 500 ms") != std::string::npos); // the objective drawn across
}

TEST_CASE("every plot is named safely and has a title, axis labels and a legend of both sides", "[compare_report]") {
    const auto c = sweep_runs();
    const std::regex safe("[a-z0-9-]+\\.svg");
    for (const auto& p : report::compare_plots(c.result, c.before, c.after, c.options)) {
        INFO(p.name);
        CHECK(std::regex_match(p.name, safe));
        CHECK(p.svg.find("<title>" + servestat::detail::escape_markup(p.title) + "</title>") != std::string::npos);
        const bool ok_axes = p.svg.find("(s)") != std::string::npos || p.svg.find("(req/s)") != std::string::npos;
        CHECK(ok_axes);
        CHECK(p.svg.find("before") != std::string::npos);
        CHECK(p.svg.find("after") != std::string::npos);
    }
}

TEST_CASE("a log without time to first token gets no ttft charts", "[compare_report]") {
    const auto c = single_runs(false);
    for (const auto& p : report::compare_plots(c.result, c.before, c.after, c.options))
        CHECK(p.name.find("ttft") == std::string::npos);
}

} // namespace test_compare_report
