// `servestat load --until METRIC.STATISTIC:HALF_WIDTH%`: parsing, the relative half-width of the
// interval `servestat stats` reports, the estimate of the requests left, and the observer that stops
// a run once every target is met.
//
// The fixed sample is 0.080 + 0.001·k² for k = 1..40, in the order k = (7i mod 40) + 1. Its reference
// numbers come from Python (numpy 1.24, math.comb), never from servestat:
//     ranks = order_statistic_ranks(40, p)          # tests/cli/checks.py: binomial sums in integers
//     value = np.percentile(x, p); low, high = np.sort(x)[ranks]
//     half_width = max(high - value, value - low) / abs(value)
// p50: ranks (13, 26) (X(14)–X(27), the classic table's for n = 40), value 0.5005, [0.276, 0.809],
// half-width 0.616383616383616; p90: ranks (31, 39), value 1.3833, [1.104, 1.68], 0.21448709607460414.
// The mean: 0.6335, s = 0.4942448785774113 (ddof 1), t_{0.975, 39} = 2.022691 (published table), so
// the half-width is t·s/√40/mean = 0.24951410713628716 to the table's 7 digits.
#include <catch2/catch.hpp> // Catch2 v2

#include <cstddef> // std::size_t
#include <string>  // std::string
#include <vector>  // std::vector

#include "servestat/core/errors.hpp"
#include "servestat/load/precision_target.hpp"

namespace test_load_precision_target { // the unity build compiles several test files as one

using namespace servestat;
using namespace servestat::load;

std::vector<double> fixed_sample() {
    std::vector<double> out;
    for (int i = 0; i < 40; ++i) {
        const int k = (7 * i) % 40 + 1;
        out.push_back(0.080 + 0.001 * k * k);
    }
    return out;
}

request_result ok_request(double e2e) {
    request_result r;
    r.t_sched = 0;
    r.t_sent = 0;
    r.t_first = e2e / 2;
    r.t_end = e2e;
    r.output_tokens = 3;
    return r;
}

std::string usage_message(const std::string& spec) {
    try {
        parse_precision_target(spec);
    } catch (const usage_error& e) {
        return e.what();
    }
    return "(no error)";
}

TEST_CASE("--until specs name a metric, a statistic and a relative half-width in percent", "[precision_target]") {
    const auto t = parse_precision_target("e2e.p99:5%");
    CHECK(t.what == metric::e2e);
    CHECK_FALSE(t.mean);
    CHECK(t.percentile == 99);
    CHECK(t.relative == Approx(0.05));
    CHECK(t.statistic() == "p99");
    CHECK(t.name() == "e2e p99");

    CHECK(parse_precision_target("ttft.p99.9:2.5%").percentile == 99.9);
    CHECK(parse_precision_target("ttft.p99.9:2.5%").statistic() == "p99.9");
    CHECK(parse_precision_target("ttft.p99.9:2.5%").relative == Approx(0.025));
    CHECK(parse_precision_target("itl.median:1%").statistic() == "p50");
    CHECK(parse_precision_target("tpot.mean:3%").mean);
    CHECK(parse_precision_target("e2e_sched.p90:10%").what == metric::e2e_sched);
    CHECK(parse_precision_target("client_queue.p50:10%").what == metric::client_queue);
}

TEST_CASE("a bad --until spec is a usage error naming the wrong part and what is allowed", "[precision_target]") {
    CHECK_THAT(usage_message("e2e"), Catch::Contains("expected METRIC.STATISTIC:HALF_WIDTH%"));
    CHECK_THAT(usage_message("e2e:5%"), Catch::Contains("expected METRIC.STATISTIC:HALF_WIDTH%"));
    CHECK_THAT(usage_message("latency.p99:5%"), Catch::Contains("unknown metric 'latency'"));
    CHECK_THAT(usage_message("latency.p99:5%"), Catch::Contains("allowed: e2e, ttft, decode, tpot, itl, client_queue, e2e_sched"));
    CHECK_THAT(usage_message("e2e.p100:5%"), Catch::Contains("unknown statistic 'p100'"));
    CHECK_THAT(usage_message("e2e.p0:5%"), Catch::Contains("unknown statistic 'p0'"));
    CHECK_THAT(usage_message("e2e.p-1:5%"), Catch::Contains("unknown statistic 'p-1'"));
    CHECK_THAT(usage_message("e2e.max:5%"), Catch::Contains("allowed: pNN"));
    CHECK_THAT(usage_message("e2e.p99x:5%"), Catch::Contains("unknown statistic 'p99x'"));
    CHECK_THAT(usage_message("e2e.p99:5"), Catch::Contains("half-width '5' is not a percentage"));
    CHECK_THAT(usage_message("e2e.p99:0%"), Catch::Contains("half-width '0%'"));
    CHECK_THAT(usage_message("e2e.p99:-5%"), Catch::Contains("half-width '-5%'"));
    CHECK_THAT(usage_message("e2e.p99:abc%"), Catch::Contains("half-width 'abc%'"));
    CHECK_THAT(usage_message("e2e.p99:5%"), Catch::Contains("(no error)"));
}

TEST_CASE("--until without -n or --duration is a usage error that says why", "[precision_target]") {
    const std::vector<std::string> specs{"e2e.p99:5%", "ttft.mean:2%"};
    CHECK(parse_precision_targets(specs, true).size() == 2);
    CHECK_THROWS_WITH(parse_precision_targets(specs, false), Catch::Contains("needs -n/--requests or --duration") &&
                                                               Catch::Contains("loaded forever"));
    CHECK(parse_precision_targets(std::vector<std::string>{}, false).empty());
}

TEST_CASE("an interval exists from the documented number of values on", "[precision_target]") {
    // (1 − p)^n ≤ α/2 and p^n ≤ α/2: a median needs 6 (0.5^5 > 0.025), a p99 368 (0.99^367 > 0.025),
    // a p99.9 3,688; the p90 36 and p95 72 are docs/metrics.md's (checks.order_statistic_ranks agrees).
    CHECK(values_for_interval(parse_precision_target("e2e.p50:5%")) == 6);
    CHECK(values_for_interval(parse_precision_target("e2e.p90:5%")) == 36);
    CHECK(values_for_interval(parse_precision_target("e2e.p95:5%")) == 72);
    CHECK(values_for_interval(parse_precision_target("e2e.p99:5%")) == 368);
    CHECK(values_for_interval(parse_precision_target("e2e.p99.9:5%")) == 3688);
    CHECK(values_for_interval(parse_precision_target("e2e.p1:5%")) == 368);
    CHECK(values_for_interval(parse_precision_target("e2e.mean:5%")) == 2);
}

TEST_CASE("the relative half-width of a percentile is the larger distance to an order-statistic end over the value",
          "[precision_target]") {
    auto x = fixed_sample();
    const auto median = estimate_precision(x, parse_precision_target("e2e.p50:5%"));
    CHECK(median.n == 40);
    CHECK(*median.value == Approx(0.5005).epsilon(1e-12));
    CHECK(*median.low == Approx(0.276).epsilon(1e-12));
    CHECK(*median.high == Approx(0.809).epsilon(1e-12));
    CHECK(*median.half_width == Approx(0.616383616383616).epsilon(1e-12));
    CHECK_FALSE(median.met(parse_precision_target("e2e.p50:60%")));
    CHECK(median.met(parse_precision_target("e2e.p50:62%")));

    x = fixed_sample();
    const auto p90 = estimate_precision(x, parse_precision_target("e2e.p90:5%"));
    CHECK(*p90.value == Approx(1.3833).epsilon(1e-12));
    CHECK(*p90.low == Approx(1.104).epsilon(1e-12));
    CHECK(*p90.high == Approx(1.68).epsilon(1e-12));
    CHECK(*p90.half_width == Approx(0.21448709607460414).epsilon(1e-12));
}

TEST_CASE("the relative half-width of a mean is Student's t·s/√n over the mean", "[precision_target]") {
    auto x = fixed_sample();
    const auto mean = estimate_precision(x, parse_precision_target("e2e.mean:5%"));
    CHECK(*mean.value == Approx(0.6335).epsilon(1e-12));
    CHECK(*mean.half_width == Approx(0.24951410713628716).epsilon(1e-6));
    CHECK(*mean.high - *mean.value == Approx(*mean.value - *mean.low).epsilon(1e-12));
}

TEST_CASE("no half-width without an interval or with a value of 0", "[precision_target]") {
    std::vector<double> few{0.1, 0.2, 0.3, 0.4, 0.5};
    const auto e = estimate_precision(few, parse_precision_target("e2e.p50:5%"));
    CHECK(e.value);
    CHECK_FALSE(e.low);
    CHECK_FALSE(e.half_width);
    CHECK_FALSE(e.met(parse_precision_target("e2e.p50:100%")));
    std::vector<double> zeros(20, 0.0); // client_queue of a closed loop
    const auto z = estimate_precision(zeros, parse_precision_target("client_queue.p50:5%"));
    CHECK(*z.value == 0);
    CHECK(z.low);
    CHECK_FALSE(z.half_width);
    std::vector<double> none;
    CHECK_FALSE(estimate_precision(none, parse_precision_target("e2e.mean:5%")).value);
}

TEST_CASE("the requests left follow the half-width's 1/sqrt(n) shrinking", "[precision_target]") {
    // 812 × (0.08 / 0.05)² − 812 = 1,266.72, rounded up.
    CHECK(requests_left(812, 0.08, 0.05) == 1267);
    // Halving the half-width takes four times the requests: three times as many more.
    CHECK(requests_left(1000, 0.10, 0.05) == 3000);
    CHECK(requests_left(812, 0.05, 0.05) == 0);
    CHECK(requests_left(812, 0.04, 0.05) == 0);
}

TEST_CASE("the observer stops sending once every target is met, and run.end covers every logged request",
          "[precision_target]") {
    // Six ok requests: e2e sorted 1.000, 1.001, 1.005, 1.010, 1.015, 1.020; the median (linear) 1.0075
    // and its 95% interval X(1)–X(6) = [1.000, 1.020]: half-width max(0.0125, 0.0075) / 1.0075 = 1.2407%.
    precision_observer o({parse_precision_target("e2e.p50:5%")});
    request_result failed = ok_request(9.0);
    failed.status = request_status::error;
    CHECK_FALSE(o.observe(failed)); // counts as a request, not as a value
    const double e2e[] = {1.000, 1.010, 1.020, 1.005, 1.015};
    for (double v : e2e) CHECK_FALSE(o.observe(ok_request(v)));
    CHECK(o.progress() == "until: e2e p50 needs 6 values, has 5");
    const auto stop = o.observe(ok_request(1.001));
    REQUIRE(stop);
    CHECK(stop->kind == "precise");
    CHECK(stop->reason == "e2e p50 within ±1.24% (target ±5%) after 7 requests");
    CHECK(o.progress() == "until: e2e p50 ±1.24% (target ±5%)");
    CHECK_FALSE(o.observe(ok_request(1.5))); // in flight when sending stopped: logged, counted, no second stop

    nlohmann::ordered_json end;
    o.finished(end);
    REQUIRE(end["until"].size() == 1);
    const auto& u = end["until"][0];
    CHECK(u["target"] == "e2e.p50:5%");
    CHECK(u["metric"] == "e2e");
    CHECK(u["statistic"] == "p50");
    CHECK(u["confidence"] == 0.95);
    CHECK(u["target_half_width"] == 0.05);
    // Seven values now: 1.000 1.001 1.005 1.010 1.015 1.020 1.5; median X(4) = 1.010, interval X(1)–X(7).
    CHECK(u["n"] == 7);
    CHECK(u["requests"] == 8);
    CHECK(u["value"].get<double>() == Approx(1.010).epsilon(1e-12));
    CHECK(u["low"].get<double>() == Approx(1.000).epsilon(1e-12));
    CHECK(u["high"].get<double>() == Approx(1.5).epsilon(1e-12));
    CHECK(u["half_width"].get<double>() == Approx(0.49 / 1.010).epsilon(1e-12));
    CHECK(u["met"] == true); // reached when sending stopped; the late 1.5 s request widened the log's interval
    CHECK(u["stopped_at"]["requests"] == 7);
    CHECK(u["stopped_at"]["n"] == 6);
    CHECK(u["stopped_at"]["half_width"].get<double>() == Approx(0.0125 / 1.0075).epsilon(1e-12));
    CHECK(o.summary() == "--until e2e.p50:5%: ±48.5% over all 8 requests logged (the 1 that completed after sending "
                         "stopped moved it)");
}

// The six values of the test above met ±5% after 7 requests; with 4 requests in flight (a closed loop
// of 4) no stop is taken before 2 × 4 = 8 are logged: the first to complete are the short ones.
TEST_CASE("no stop while the requests in flight number more than half of those logged", "[precision_target]") {
    std::size_t in_flight = 4;
    precision_observer o({parse_precision_target("e2e.p50:5%")}, [&in_flight] { return in_flight; });
    const double e2e[] = {1.000, 1.010, 1.020, 1.005, 1.015, 1.001, 1.003};
    for (double v : e2e) CHECK_FALSE(o.observe(ok_request(v))); // 7 logged < 8
    const auto stop = o.observe(ok_request(1.002));
    REQUIRE(stop);
    CHECK(stop->reason.ends_with("after 8 requests"));
    SECTION("with fewer in flight the same values stop earlier") {
        in_flight = 3;
        precision_observer p({parse_precision_target("e2e.p50:5%")}, [&in_flight] { return in_flight; });
        for (int i = 0; i < 5; ++i) CHECK_FALSE(p.observe(ok_request(e2e[i])));
        CHECK(p.observe(ok_request(e2e[5]))); // 6 logged = 2 × 3
    }
}

TEST_CASE("a stop whose target still holds over the final log adds nothing to the summary", "[precision_target]") {
    precision_observer o({parse_precision_target("e2e.mean:5%")});
    CHECK_FALSE(o.observe(ok_request(1.00)));
    const auto stop = o.observe(ok_request(1.01)); // mean 1.005, t_{0.975,1}·s/√2 = 12.706·0.00707/1.414 = 6.3%: not yet
    CHECK_FALSE(stop);
    REQUIRE(o.observe(ok_request(1.005))); // s = 0.005, t_{0.975,2} = 4.303: 4.303·0.005/√3 / 1.005 = 1.24%
    CHECK_FALSE(o.observe(ok_request(1.004)));
    nlohmann::ordered_json end;
    o.finished(end);
    CHECK(end["until"][0]["met"] == true);
    CHECK(end["until"][0]["n"] == 4);
    CHECK(o.summary().empty());
}

TEST_CASE("a run that ends before its target is met records what it reached", "[precision_target]") {
    precision_observer o({parse_precision_target("e2e.p99:5%"), parse_precision_target("e2e.p50:50%")});
    for (int i = 0; i < 100; ++i) CHECK_FALSE(o.observe(ok_request(1.0 + 0.01 * (i % 10))));
    CHECK_THAT(o.progress(), Catch::StartsWith("until: e2e p99 needs 368 values, has 100, e2e p50 ±"));
    nlohmann::ordered_json end;
    o.finished(end);
    REQUIRE(end["until"].size() == 2);
    CHECK(end["until"][0]["met"] == false);
    CHECK(end["until"][0]["half_width"].is_null());
    CHECK(end["until"][0]["low"].is_null());
    CHECK(end["until"][0]["value"].is_number());
    CHECK_FALSE(end["until"][0].contains("stopped_at"));
    CHECK(end["until"][1]["met"] == true);
    CHECK(o.summary() == "--until e2e.p99:5% not reached: e2e 100 values, its interval needs 368");
}

TEST_CASE("the values are the log's: microseconds, ok requests, the metric's definition", "[precision_target]") {
    request_result r;
    r.t_sched = 0.5;
    r.t_sent = 1.0000004; // logged as 1.000000
    r.t_first = 1.2500006; // 1.250001
    r.t_end = 2.0;
    r.output_tokens = 5;
    r.itl = {0.1000004, 0.2};
    std::vector<double> v;
    append_logged_values(r, metric::e2e, v);
    append_logged_values(r, metric::ttft, v);
    append_logged_values(r, metric::tpot, v);
    append_logged_values(r, metric::client_queue, v);
    append_logged_values(r, metric::e2e_sched, v);
    append_logged_values(r, metric::itl, v);
    append_logged_values(r, metric::server_queue, v); // not reported: no value
    REQUIRE(v.size() == 7);
    CHECK(v[0] == 2.0 - 1.0);
    CHECK(v[1] == 1.250001 - 1.0);
    CHECK(v[2] == (2.0 - 1.250001) / 4);
    CHECK(v[3] == 1.0 - 0.5);
    CHECK(v[4] == 2.0 - 0.5);
    CHECK(v[5] == 0.1);
    CHECK(v[6] == 0.2);
    r.status = request_status::timeout;
    append_logged_values(r, metric::e2e, v);
    CHECK(v.size() == 7);
}

} // namespace test_load_precision_target
