// Cost per token (docs/metrics.md#cost-per-token): USD per 1M output, total and good output tokens
// from the price and the run's token rates, batch-means intervals within a run (window rates
// written out by hand below, t quantiles from a table), Student's t between runs, and the usage
// errors of --cost-per-hour and --gpus.
#include "servestat/stats/cost.hpp"

#include <cmath>    // std::isnan, std::nan
#include <limits>   // std::numeric_limits
#include <optional> // std::optional
#include <string>   // std::string
#include <vector>   // std::vector

#include <catch2/catch.hpp> // TEST_CASE, CHECK, REQUIRE, Approx

#include "servestat/app/analysis_args.hpp"     // analysis_args, to_stats_options, price_of
#include "servestat/core/errors.hpp"           // usage_error
#include "servestat/core/request_table.hpp"    // request_table
#include "servestat/report/cost_view.hpp"      // format_usd, cost_line, sweep_cost_sentence
#include "servestat/report/render.hpp"         // detail::render_bridge::escape_markdown
#include "servestat/report/stats_json.hpp"     // to_json(run_stats)
#include "servestat/stats/run_accumulator.hpp" // run_accumulator
#include "servestat/stats/run_stats.hpp"       // analyze, stats_options

namespace test_cost {

using namespace servestat;

namespace {

// Student's t, two-sided 95%, from a table.
constexpr double t_975_df4 = 2.776445, t_975_df9 = 2.262157, t_975_df2 = 4.302653;

request_record request(double sent, double end, std::int32_t output, std::int32_t prompt = 10) {
    request_record r;
    r.t_sched = sent;
    r.t_sent = sent;
    r.t_first = sent + 0.1;
    r.t_end = end;
    r.prompt_tokens = prompt;
    r.output_tokens = output;
    return r;
}

run run_of(request_table t) {
    run r;
    r.meta.label = "cost";
    r.requests = std::move(t);
    return r;
}

stats_options priced(double per_hour, std::optional<int> gpus = std::nullopt, const char* slos = "") {
    stats_options o;
    o.price = deployment_price{per_hour, gpus};
    o.slos = parse_slos(slos);
    return o;
}

// 100 requests of 50 output and 10 prompt tokens over exactly 100 s: request i is sent at i s; the
// even ones take 0.5 s, the odd ones 1 s, so the last ends at 100 s.
request_table hundred_seconds() {
    request_table t;
    for (int i = 0; i < 100; ++i) t.push_back(request(i, i + (i % 2 ? 1.0 : 0.5), 50));
    return t;
}

// Five windows of 10 s over [0, 50] whose output token rates are 10, 12, 8, 11 and 9 tok/s: five
// requests end in each, carrying 2 × the rate in tokens each (10 s × rate / 5 requests).
request_table five_windows() {
    const int rates[] = {10, 12, 8, 11, 9};
    request_table t;
    for (int k = 0; k < 5; ++k)
        for (int j = 0; j < 5; ++j) {
            const double sent = 10 * k + 2 * j;
            t.push_back(request(sent, k == 4 && j == 4 ? 50.0 : sent + 1, 2 * rates[k]));
        }
    return t;
}

app::analysis_args cost_args(std::optional<double> per_hour, std::optional<int> gpus) {
    app::analysis_args a;
    a.cost_per_hour = per_hour;
    a.gpus = gpus;
    return a;
}

} // namespace

TEST_CASE("cost per 1M tokens is the price per second times 1e6 over the token rate") {
    // $3.60 per GPU-hour × 2 GPUs = $7.20/h = $0.002/s. Output: 100 × 50 tokens / 100 s = 50 tok/s,
    // so $0.002 × 1e6 / 50 = $40 per 1M. Total: 100 × 60 / 100 s = 60 tok/s, $33.33. Good (e2e ≤
    // 0.75 s: the 50 even requests): 2,500 tokens / 100 s = 25 tok/s, $80.
    const run_stats s = analyze(run_of(hundred_seconds()), priced(3.60, 2, "e2e=0.75"));
    REQUIRE(s.duration == Approx(100));
    REQUIRE(s.cost);
    const run_cost& c = *s.cost;
    CHECK(c.price.deployment_per_hour() == Approx(7.20));
    CHECK(c.price.per_second() == Approx(0.002));
    REQUIRE(c.per_1m_output.value);
    CHECK(*c.per_1m_output.value == Approx(40.0).epsilon(1e-12));
    REQUIRE(c.per_1m_total.value);
    CHECK(*c.per_1m_total.value == Approx(2000.0 / 60).epsilon(1e-12));
    REQUIRE(c.per_1m_good_output);
    REQUIRE(c.per_1m_good_output->value);
    CHECK(*c.per_1m_good_output->value == Approx(80.0).epsilon(1e-12));
    // The cost and the run's own output rate are one computation: their product is the price per 1M seconds.
    CHECK(std::abs(*c.per_1m_output.value * *s.output_tps - 2000.0) <= 1e-12 * 2000.0);
    CHECK(std::abs(*c.per_1m_total.value * *s.total_tps - 2000.0) <= 1e-12 * 2000.0);
    // 100 requests: 20 windows of 5 s; the 50 good ones: 10 windows of 10 s.
    CHECK(c.per_1m_output.windows == std::optional<std::size_t>(20));
    CHECK(c.per_1m_output.window_seconds == Approx(5));
    CHECK(c.per_1m_good_output->windows == std::optional<std::size_t>(10));
    REQUIRE(c.per_1m_output.ci);
    CHECK(c.per_1m_output.ci->low <= 40.0);
    CHECK(c.per_1m_output.ci->high >= 40.0);
}

TEST_CASE("without a price there is no cost, and without SLOs no cost per good token") {
    CHECK_FALSE(analyze(run_of(hundred_seconds())).cost);
    const run_stats s = analyze(run_of(hundred_seconds()), priced(3.60));
    REQUIRE(s.cost);
    CHECK_FALSE(s.cost->per_1m_good_output);
    CHECK(*s.cost->per_1m_output.value == Approx(1000.0 / 50)); // $0.001/s at 50 tok/s
    const json j = to_json(s);
    CHECK(j["cost"]["per_1m_good_output"].is_null());
    CHECK(j["cost"]["gpus"].is_null());
    CHECK(j["cost"]["deployment_per_hour"] == Approx(3.60));
    CHECK(to_json(analyze(run_of(hundred_seconds())))["cost"].is_null());
}

TEST_CASE("batch means: the t-interval of five window rates, mapped through price over rate") {
    // Window rates 10, 12, 8, 11, 9 tok/s: mean 10, sample std √(10/4) = 1.5811, so the rate lies in
    // 10 ± 2.776445 × 1.5811 / √5 = [8.03676, 11.96324]. At $3.60/h ($0.001/s) the cost is 1000 / rate:
    // $100, in [1000 / 11.96324, 1000 / 8.03676] = [83.5894, 124.4283]. Lag-1: Σ(d_i d_i+1) / Σd² with
    // deviations 0, 2, −2, 1, −1: (0 − 4 − 2 − 1) / 10 = −0.7, so no merging.
    const run_stats s = analyze(run_of(five_windows()), priced(3.60));
    REQUIRE(s.cost);
    const cost_figure& f = s.cost->per_1m_output;
    REQUIRE(f.value);
    CHECK(*f.value == Approx(100.0));
    CHECK(f.windows == std::optional<std::size_t>(5));
    CHECK(f.window_seconds == Approx(10));
    CHECK(*f.lag1 == Approx(-0.7));
    const double half = t_975_df4 * std::sqrt(10.0 / 4) / std::sqrt(5.0);
    REQUIRE(f.ci);
    CHECK(f.ci->low == Approx(1000 / (10 + half)).epsilon(1e-6));
    CHECK(f.ci->high == Approx(1000 / (10 - half)).epsilon(1e-6));
    CHECK(f.ci->low == Approx(83.5894).epsilon(1e-5));
    CHECK(f.ci->high == Approx(124.4283).epsilon(1e-5));
    CHECK(f.method == "batch means over 5 windows of 10 s; lag-1 autocorrelation -0.70");
    CHECK(f.why.empty());
}

TEST_CASE("batch means: window rates taken by hand") {
    const std::vector<timed_tokens> ends{{0.5, 10}, {4.0, 20}, {5.0, 7}, {9.9, 3}, {10.0, 40}};
    // Two windows of 5 s over [0, 10]: 30 tokens and 10 (the run's last end counts in the last window).
    const auto rates = window_rates(ends, 0, 10, 2);
    REQUIRE(rates.size() == 2);
    CHECK(rates[0] == Approx(6));
    CHECK(rates[1] == Approx(10));
    CHECK(lag1_autocorrelation(std::vector<double>{1, 2, 3, 4, 5}) == Approx(0.4)); // (2 + 0 + 0 + 2) / 10
    CHECK(lag1_autocorrelation(std::vector<double>{3, 3, 3}) == 0.0);
}

TEST_CASE("batch means: correlated windows are merged in pairs until their lag-1 autocorrelation is small") {
    // 20 windows of 5 s over [0, 100], rates in blocks of four: 10 ×4, 14 ×4, 10 ×4, 14 ×4, 10 ×4
    // tok/s (five requests per window, each carrying the rate in tokens). Mean 11.6, deviations −1.6
    // and 2.4: lag-1 = (23.04 + 34.56 − 15.36) / 76.8 = 0.55 > 0.2, so pairs merge. Ten windows of
    // 10 s: 10, 10, 14, 14, 10, 10, 14, 14, 10, 10: lag-1 = 3.84 / 38.4 = 0.1, kept. Their mean 11.6
    // and std √(38.4 / 9) = 2.06559 give 11.6 ± 2.262157 × 2.06559 / √10 = [10.12237, 13.07763]; at
    // $0.001/s the cost is 1000 / 11.6 = $86.2069 in [76.4664, 98.7911].
    request_table t;
    for (int k = 0; k < 20; ++k) {
        const int rate = (k / 4) % 2 ? 14 : 10;
        for (int j = 0; j < 5; ++j) {
            const double sent = 5 * k + j;
            t.push_back(request(sent, k == 19 && j == 4 ? 100.0 : sent + 0.5, rate));
        }
    }
    const run_stats s = analyze(run_of(std::move(t)), priced(3.60));
    const cost_figure& f = s.cost->per_1m_output;
    CHECK(f.windows == std::optional<std::size_t>(10));
    CHECK(f.window_seconds == Approx(10));
    CHECK(*f.lag1 == Approx(0.1));
    CHECK(*f.value == Approx(1000 / 11.6));
    const double half = t_975_df9 * std::sqrt(38.4 / 9) / std::sqrt(10.0);
    REQUIRE(f.ci);
    CHECK(f.ci->low == Approx(1000 / (11.6 + half)).epsilon(1e-6));
    CHECK(f.ci->high == Approx(1000 / (11.6 - half)).epsilon(1e-6));
    CHECK(f.ci->low == Approx(76.4664).epsilon(1e-5));
    CHECK(f.ci->high == Approx(98.7911).epsilon(1e-5));
}

TEST_CASE("batch means: a trend that stays correlated at five windows keeps its interval, with a warning") {
    // Rates rising by window: 25 requests, five windows whose rates are 1..5 tok/s ×2 tokens each;
    // lag-1 of 1, 2, 3, 4, 5 is 0.4 and five windows cannot be halved.
    request_table t;
    for (int k = 0; k < 5; ++k)
        for (int j = 0; j < 5; ++j) {
            const double sent = 10 * k + 2 * j;
            t.push_back(request(sent, k == 4 && j == 4 ? 50.0 : sent + 1, 2 * (k + 1)));
        }
    const cost_figure f = analyze(run_of(std::move(t)), priced(3.60)).cost->per_1m_output;
    CHECK(f.windows == std::optional<std::size_t>(5));
    CHECK(*f.lag1 == Approx(0.4));
    CHECK(f.ci);
    CHECK(f.method.find("still above 0.2 at 5 windows") != std::string::npos);
}

TEST_CASE("too few requests for five windows of five: a value, but no interval, with the reason") {
    request_table t;
    for (int i = 0; i < 24; ++i) t.push_back(request(i, i + 1.0, 50));
    const run_stats s = analyze(run_of(std::move(t)), priced(3.60));
    const cost_figure& f = s.cost->per_1m_output;
    // 24 × 50 tokens over 24 s = 50 tok/s: $20 per 1M at $0.001/s.
    CHECK(*f.value == Approx(20));
    CHECK_FALSE(f.ci);
    CHECK_FALSE(f.windows);
    CHECK(f.why == "24 successful requests with output tokens ended: batch means needs 25 (5 per window, 5 windows "
                   "at the least)");
    const json j = to_json(s)["cost"]["per_1m_output"];
    CHECK(j["ci"].is_null());
    CHECK(j["why"] == f.why);
}

TEST_CASE("no request meets every SLO: no cost per good token, with the reason, never infinity") {
    const run_stats s = analyze(run_of(hundred_seconds()), priced(3.60, std::nullopt, "e2e=0.1"));
    REQUIRE(s.cost->per_1m_good_output);
    const cost_figure& g = *s.cost->per_1m_good_output;
    CHECK_FALSE(g.value);
    CHECK_FALSE(g.ci);
    CHECK(g.why == "no request met every SLO");
    const json j = to_json(s)["cost"]["per_1m_good_output"];
    CHECK(j["value"].is_null());
    CHECK(j["why"] == "no request met every SLO");
}

TEST_CASE("good means what goodput means: a request lacking an SLO's metric is not good") {
    request_table t = hundred_seconds();
    request_record no_first = request(100, 100.5, 1000);
    no_first.t_first.reset(); // a ttft SLO cannot be shown met
    t.push_back(no_first);
    const run_stats s = analyze(run_of(std::move(t)), priced(3.60, std::nullopt, "ttft=1"));
    // 100 good requests of 50 tokens over 100.5 s; the 1,000 tokens of the untimed first token do not count.
    REQUIRE(s.goodput);
    CHECK(s.goodput->good == 100);
    CHECK(*s.cost->per_1m_good_output->value == Approx(1000.0 / (5000.0 / 100.5)));
}

TEST_CASE("a run without a shared clock has values but no windows") {
    run r = run_of(five_windows());
    r.meta.shared_clock = false;
    r.meta.reported.push_back({"duration", 50, "s"});
    const run_stats s = analyze(r, priced(3.60));
    REQUIRE(s.duration_from == duration_source::reported);
    CHECK(*s.cost->per_1m_output.value == Approx(100.0));
    CHECK_FALSE(s.cost->per_1m_output.ci);
    CHECK(s.cost->per_1m_output.why == "no shared clock: the requests cannot be placed in time windows");
}

TEST_CASE("a run in which nothing completed has no cost") {
    request_table t = five_windows();
    request_table failed;
    for (std::size_t i = 0; i < t.size(); ++i) {
        request_record r = t.row(i);
        r.status = request_status::error;
        failed.push_back(r);
    }
    const run_stats s = analyze(run_of(std::move(failed)), priced(3.60));
    CHECK_FALSE(s.cost->per_1m_output.value);
    CHECK(s.cost->per_1m_output.why == "nothing completed");
}

TEST_CASE("a run known by its totals: values from its sums, no interval") {
    const stats_options o = priced(3.60, std::nullopt, "e2e=0.75");
    run_accumulator acc(o);
    acc.add(hundred_seconds());
    REQUIRE(acc.good_output_tokens());
    CHECK(*acc.good_output_tokens() == 2500);
    const run_stats s = acc.result({}, {});
    const run_rates rates{s.duration, true, false, s.output_tps, s.total_tps};
    const run_cost c = cost_of_totals(rates, acc.good_output_tokens(), s.goodput->good, true, *o.price, 0.95);
    CHECK(*c.per_1m_output.value == Approx(20)); // 50 tok/s at $0.001/s
    CHECK(*c.per_1m_good_output->value == Approx(40)); // 25 tok/s
    CHECK_FALSE(c.per_1m_output.ci);
    CHECK(c.per_1m_output.why.find("known by its totals") == 0);
}

TEST_CASE("between runs: the mean of the runs' costs with Student's t over them") {
    // 40, 44, 42: mean 42, std 2, so 42 ± 4.302653 × 2 / √3 = [37.0317, 46.9683].
    cost_figure a, b, c;
    a.value = 40;
    b.value = 44;
    c.value = 42;
    const std::vector<const cost_figure*> runs{&a, &b, &c};
    const cost_figure f = figure_between_runs(runs, 0.95);
    CHECK(*f.value == Approx(42));
    REQUIRE(f.ci);
    CHECK(f.ci->low == Approx(42 - t_975_df2 * 2 / std::sqrt(3.0)));
    CHECK(f.ci->high == Approx(46.9683).epsilon(1e-5));
    CHECK(f.method == "between 3 runs");
    CHECK(f.runs == std::optional<std::size_t>(3));

    cost_figure none;
    none.why = "no request met every SLO";
    const std::vector<const cost_figure*> with_none{&a, &none, &c};
    const cost_figure g = figure_between_runs(with_none, 0.95);
    CHECK_FALSE(g.value);
    CHECK(g.why == "1 of the 3 runs has none (no request met every SLO)");
}

TEST_CASE("a sweep level run more than once takes its cost between its runs") {
    run_cost one{{3.60, std::nullopt}, 0.95, {}, {}, std::nullopt}, two = one;
    one.per_1m_output.value = 40;
    two.per_1m_output.value = 44;
    one.per_1m_total.value = two.per_1m_total.value = 30;
    const std::vector<const run_cost*> runs{&one, &two};
    const auto c = cost_between_runs(runs);
    REQUIRE(c);
    CHECK(*c->per_1m_output.value == Approx(42));
    CHECK(c->per_1m_output.method == "between 2 runs");
    // Equal costs: an interval of no width.
    CHECK(c->per_1m_total.ci == std::optional<interval>(interval{30, 30}));
    CHECK_FALSE(c->per_1m_good_output);
    const std::vector<const run_cost*> missing{&one, nullptr};
    CHECK_FALSE(cost_between_runs(missing));
}

TEST_CASE("--cost-per-hour and --gpus: the price, and the usage errors naming the option") {
    CHECK_FALSE(app::price_of(cost_args(std::nullopt, std::nullopt)));
    const auto p = app::price_of(cost_args(3.60, 2));
    REQUIRE(p);
    CHECK(p->deployment_per_hour() == Approx(7.20));
    CHECK(app::to_stats_options(cost_args(3.60, std::nullopt)).price->deployment_per_hour() == Approx(3.60));
    const auto fails_naming = [](const app::analysis_args& a, const std::string& option) {
        try {
            app::to_stats_options(a);
        } catch (const usage_error& e) {
            return std::string(e.what()).starts_with(option);
        }
        return false;
    };
    CHECK(fails_naming(cost_args(std::nullopt, 2), "--gpus"));
    CHECK(fails_naming(cost_args(0.0, std::nullopt), "--cost-per-hour"));
    CHECK(fails_naming(cost_args(-1.0, std::nullopt), "--cost-per-hour"));
    CHECK(fails_naming(cost_args(std::numeric_limits<double>::infinity(), std::nullopt), "--cost-per-hour"));
    CHECK(fails_naming(cost_args(std::nan(""), std::nullopt), "--cost-per-hour"));
    CHECK(fails_naming(cost_args(3.60, 0), "--gpus"));
    CHECK(fails_naming(cost_args(3.60, -2), "--gpus"));
}

TEST_CASE("dollars: two decimals from ten cents, three significant digits below, the interval in the value's") {
    CHECK(report::format_usd(40) == "$40.00");
    CHECK(report::format_usd(0.42) == "$0.42");
    CHECK(report::format_usd(0.0421) == "$0.0421");
    CHECK(report::format_usd_interval(0.0421, {0.0398, 0.0456}) == "(0.0398–0.0456)");
    CHECK(report::price_text({3.60, 2}) == "$7.20/h (2 GPUs × $3.60/h)");
    CHECK(report::price_text({3.60, std::nullopt}) == "$3.60/h");
    // GitHub reads "$20.00 … −$10.00" in a table row as one formula: Markdown values escape it.
    CHECK(servestat::detail::render_bridge::escape_markdown("$20.00") == "\\$20.00");
}

TEST_CASE("the stats line names which figures each interval's method holds for when they differ") {
    run_cost c{{3.60, 2}, 0.95, {}, {}, cost_figure{}};
    c.per_1m_output = {40.0, interval{38, 42}, "batch means over 20 windows of 5 s; lag-1 autocorrelation 0.05", "", 20, 5.0, 0.05, {}};
    c.per_1m_total = {33.0, interval{31, 35}, c.per_1m_output.method, "", 20, 5.0, 0.05, {}};
    c.per_1m_good_output->why = "no request met every SLO";
    CHECK(report::cost_line(c) == "  cost at $7.20/h (2 GPUs × $3.60/h): $40.00 per 1M output tokens (38.00–42.00), $33.00 per "
                                  "1M tokens (31.00–35.00), per 1M good output tokens none (no request met every SLO); 95% CI "
                                  "by batch means over 20 windows of 5 s; lag-1 autocorrelation 0.05\n");
    c.per_1m_good_output = cost_figure{80.0, std::nullopt, "batch means over time windows", "18 requests that met every SLO ended",
                                       {}, {}, {}, {}};
    c.per_1m_total.method = "batch means over 10 windows of 10 s; lag-1 autocorrelation 0.10";
    CHECK(report::cost_line(c) == "  cost at $7.20/h (2 GPUs × $3.60/h): $40.00 per 1M output tokens (38.00–42.00), $33.00 per "
                                  "1M tokens (31.00–35.00), $80.00 per 1M good output tokens; 95% CI by batch means over 20 "
                                  "windows of 5 s; lag-1 autocorrelation 0.05 (output), batch means over 10 windows of 10 s; "
                                  "lag-1 autocorrelation 0.10 (total); no interval for good output: 18 requests that met every "
                                  "SLO ended\n");
}

} // namespace test_cost
