// Run-level statistics: subsets, metrics, rates, concurrency, errors, goodput and the time breakdown.
// Expected values are derived by hand from the small tables built here.
#include <catch2/catch.hpp> // Catch2 v2

#include <algorithm> // std::sort
#include <cmath>  // std::sqrt
#include <random> // std::mt19937_64, std::uniform_real_distribution, std::uniform_int_distribution
#include <vector> // std::vector
#include <string> // std::string

#include "servestat/report/stats_json.hpp"
#include "servestat/stats/run_stats.hpp"

namespace test_run_stats { // the unity build compiles several test files as one: each keeps its names

using namespace servestat;

namespace {

request_record ok_request(double t_sent, double t_first, double t_end, int prompt, int output) {
    request_record r;
    r.t_sched = t_sent;
    r.t_sent = t_sent;
    r.t_first = t_first;
    r.t_end = t_end;
    r.prompt_tokens = prompt;
    r.output_tokens = output;
    r.status = request_status::ok;
    r.http_status = 200;
    return r;
}

request_record failed_request(double t_sent, double t_end, int http, std::string message,
                              request_status status = request_status::error) {
    request_record r;
    r.t_sent = t_sent;
    r.t_end = t_end;
    r.status = status;
    if (http) r.http_status = http;
    r.error = std::move(message);
    return r;
}

const std::string overflow_message =
    "max_tokens' or 'max_completion_tokens' is too large: 128. This model's maximum context length is 4096 "
    "tokens and your request has 4030 input tokens (128 > 4096 - 4030). None";

// Four ok requests (two short, one medium, one long) and three failures, over 10 s.
run small_run() {
    run r;
    r.meta.label = "small";
    r.requests.push_back(ok_request(0.0, 0.5, 2.0, 20, 11));   // e2e 2, ttft 0.5, decode 1.5
    r.requests.push_back(ok_request(1.0, 1.2, 2.0, 30, 5));    // e2e 1, ttft 0.2, decode 0.8
    r.requests.push_back(ok_request(2.0, 3.0, 6.0, 500, 31));  // e2e 4, ttft 1, decode 3
    r.requests.push_back(ok_request(3.0, 7.0, 10.0, 3000, 1)); // e2e 7, ttft 4, decode 3
    r.requests.push_back(failed_request(4.0, 4.1, 400, overflow_message));
    r.requests.push_back(failed_request(5.0, 5.5, 503, "Service Unavailable"));
    r.requests.push_back(failed_request(6.0, 9.0, 0, "", request_status::timeout));
    return r;
}

const summary& metric_summary_of(const run_stats& s, std::string_view subset, metric m) {
    const auto* found = find_summary(s, subset, m);
    REQUIRE(found != nullptr);
    return *found;
}

} // namespace

TEST_CASE("counts and rates: rps counts ok requests over first send to last end") {
    const auto s = analyze(small_run());
    CHECK(s.requests == 7);
    CHECK(s.ok == 4);
    CHECK(s.failed == 3);
    CHECK(*s.duration == 10.0);
    CHECK(*s.rps == Approx(0.4));
    CHECK(*s.output_tps == Approx(4.8));                     // 48 output tokens of ok requests / 10 s
    CHECK(*s.total_tps == Approx((48 + 3550) / 10.0));       // plus their 3550 prompt tokens
}

TEST_CASE("peak concurrency: a request ending when another starts does not overlap it") {
    const auto s = analyze(small_run());
    // At t=2 requests 0 and 1 end as request 2 starts (1 in flight, not 3); at 4..4.1 and 5..5.5
    // requests 2 (2..6) and 3 (3..10) overlap a failure => 3.
    CHECK(*s.peak_concurrency == 3);
}

TEST_CASE("failed requests never enter latency statistics") {
    const auto s = analyze(small_run());
    const auto& e2e = metric_summary_of(s, "all", metric::e2e);
    CHECK(e2e.n == 4);
    CHECK(*e2e.min == 1.0);
    CHECK(*e2e.max == 7.0);
    CHECK(*e2e.mean == Approx(3.5));
    // sample std of {2,1,4,7}: deviations -1.5,-2.5,0.5,3.5 -> squares sum 21 -> sqrt(21/3)
    CHECK(*e2e.std == Approx(std::sqrt(7.0)));
    CHECK(*e2e.cov == Approx(std::sqrt(7.0) / 3.5));
    // linear p50 of sorted {1,2,4,7}: index 1.5 -> 3
    CHECK(e2e.percentiles[0].p == 50);
    CHECK(*e2e.percentiles[0].value == Approx(3.0));
}

TEST_CASE("subsets split by prompt tokens: short <= 64 < medium < 2048 <= long") {
    const auto s = analyze(small_run());
    REQUIRE(s.subsets.size() == 4);
    CHECK(s.subsets[0].name == "all");
    CHECK(s.subsets[1].name == "short");
    CHECK(s.subsets[1].n == 2);
    CHECK(s.subsets[2].name == "medium");
    CHECK(s.subsets[2].n == 1);
    CHECK(s.subsets[3].name == "long");
    CHECK(s.subsets[3].n == 1);
    CHECK(*metric_summary_of(s, "short", metric::ttft).max == Approx(0.5));
    CHECK(*metric_summary_of(s, "long", metric::ttft).min == Approx(4.0));
}

TEST_CASE("user buckets are extra subsets with inclusive bounds") {
    stats_options o;
    o.subsets.buckets = {parse_bucket("tiny=0:20"), parse_bucket("big=500:")};
    const auto s = analyze(small_run(), o);
    REQUIRE(s.subsets.size() == 6);
    CHECK(s.subsets[4].name == "tiny");
    CHECK(s.subsets[4].n == 1);
    CHECK(s.subsets[5].name == "big");
    CHECK(s.subsets[5].n == 2);
}

TEST_CASE("an empty subset is present with n = 0 and empty statistics") {
    stats_options o;
    o.subsets.long_min = 5000;
    const auto s = analyze(small_run(), o);
    const auto& e2e = metric_summary_of(s, "long", metric::e2e);
    CHECK(e2e.n == 0);
    CHECK_FALSE(e2e.mean.has_value());
    CHECK_FALSE(e2e.percentiles[0].value.has_value());
    const auto j = to_json(s);
    CHECK(j["subsets"]["long"]["n"] == 0);
    CHECK(j["subsets"]["long"]["metrics"]["e2e"]["p50"].is_null());
}

TEST_CASE("tpot is decode time per output token after the first, only when there are two or more") {
    const auto s = analyze(small_run());
    const auto& tpot = metric_summary_of(s, "all", metric::tpot);
    CHECK(tpot.n == 3); // the request with one output token has none
    CHECK(*tpot.min == Approx(0.1));  // 3 s / 30 tokens
    CHECK(*tpot.max == Approx(0.2));  // 0.8 s / 4 tokens
}

TEST_CASE("client queue and e2e_sched measure from the intended send time") {
    run r;
    auto late = ok_request(1.5, 2.0, 3.0, 10, 4);
    late.t_sched = 1.0;
    r.requests.push_back(late);
    const auto s = analyze(r);
    CHECK(*metric_summary_of(s, "all", metric::client_queue).max == Approx(0.5));
    CHECK(*metric_summary_of(s, "all", metric::e2e_sched).max == Approx(2.0));
    CHECK(*metric_summary_of(s, "all", metric::e2e).max == Approx(1.5));
}

TEST_CASE("errors are classified with a count and the first message of each kind") {
    const auto s = analyze(small_run());
    REQUIRE(s.errors.size() == 3);
    CHECK(s.errors[0].kind == error_kind::context_overflow);
    CHECK(s.errors[0].count == 1);
    CHECK(s.errors[0].example == overflow_message);
    CHECK(s.errors[1].kind == error_kind::server_error);
    CHECK(s.errors[2].kind == error_kind::timeout);
    CHECK(s.errors[2].example == "timeout");
}

TEST_CASE("classification: 429 is rate limiting, 5xx server errors, transport failures their own") {
    CHECK(classify_failure(request_status::error, 429, "Too Many Requests") == error_kind::rate_limited);
    CHECK(classify_failure(request_status::error, 500, "") == error_kind::server_error);
    CHECK(classify_failure(request_status::transport, 0, "connection refused") == error_kind::transport);
    CHECK(classify_failure(request_status::error, 404, "model not found") == error_kind::other);
    CHECK(classify_failure(request_status::error, 400, "This model's maximum context length is 4096 tokens") ==
          error_kind::context_overflow);
}

TEST_CASE("goodput counts ok requests meeting every SLO") {
    stats_options o;
    o.slos = parse_slos("ttft=0.5,e2e=2.5");
    const auto s = analyze(small_run(), o);
    REQUIRE(s.goodput.has_value());
    CHECK(s.goodput->good == 2); // requests 0 (0.5 s, 2 s) and 1 (0.2 s, 1 s)
    CHECK(*s.goodput->rps == Approx(0.2));
    CHECK(*s.goodput->share == Approx(2.0 / 7.0));
    CHECK(to_json(s)["goodput_rps"] == Approx(0.2));
}

TEST_CASE("an SLO on a metric the log lacks counts those requests as unmeasurable, never good") {
    run r;
    request_record no_first = ok_request(0, 0, 1, 10, 5);
    no_first.t_first.reset();
    r.requests.push_back(no_first);
    r.requests.push_back(ok_request(0, 0.1, 1, 10, 5));
    stats_options o;
    o.slos = parse_slos("ttft=1");
    const auto s = analyze(r, o);
    CHECK(s.goodput->good == 1);
    CHECK(s.goodput->unmeasurable == 1);
}

TEST_CASE("malformed SLOs and buckets are usage errors") {
    CHECK_THROWS_AS(parse_slos("ttft"), usage_error);
    CHECK_THROWS_AS(parse_slos("ttft=-1"), usage_error);
    CHECK_THROWS_AS(parse_slos("ttft=abc"), usage_error);
    CHECK_THROWS_AS(parse_slos("latency=1"), usage_error);
    CHECK_THROWS_AS(parse_slos("itl=0.1"), usage_error);
    CHECK_THROWS_AS(parse_slos("e2e=1,e2e=2"), usage_error);
    CHECK_THROWS_AS(parse_bucket("tiny"), usage_error);
    CHECK_THROWS_AS(parse_bucket("tiny=20:10"), usage_error);
    CHECK_THROWS_AS(parse_bucket("short=0:10"), usage_error);
    stats_options o;
    o.subsets.long_min = 10;
    CHECK_THROWS_AS(analyze(small_run(), o), usage_error);
}

TEST_CASE("without a shared clock there is no duration, rate or concurrency") {
    run r = small_run();
    r.meta.shared_clock = false;
    const auto s = analyze(r);
    CHECK_FALSE(s.duration.has_value());
    CHECK_FALSE(s.rps.has_value());
    CHECK_FALSE(s.peak_concurrency.has_value());
    CHECK(metric_summary_of(s, "all", metric::e2e).n == 4);
    const auto j = to_json(s);
    CHECK(j["rps"].is_null());
    CHECK(j["duration"].is_null());
}

TEST_CASE("breakdown: waiting is client queue plus time to first token, as a share of latency") {
    run r;
    auto a = ok_request(1.0, 9.0, 10.0, 10, 5); // waits 1 (client) + 8 (ttft) of 10
    a.t_sched = 0.0;
    auto b = ok_request(0.0, 1.0, 4.0, 10, 5);  // waits 1 of 4
    r.requests.push_back(a);
    r.requests.push_back(b);
    stats_options o;
    o.summary.percentiles = {50};
    const auto s = analyze(r, o);
    CHECK(s.time_breakdown.waiting == "client_queue+ttft");
    const auto& all = s.time_breakdown.subsets.front();
    CHECK(all.n == 2);
    CHECK(*all.mean_share == Approx(10.0 / 14.0));
    REQUIRE(all.points.size() == 1);
    CHECK(all.points[0].waiting == Approx(5.0)); // p50 of {9, 1}
    CHECK(all.points[0].total == Approx(7.0));   // p50 of {10, 4}
    CHECK(all.points[0].share == Approx(5.0 / 7.0));
}

TEST_CASE("breakdown prefers the server's queue time when the log has it") {
    run r;
    auto a = ok_request(0.0, 2.0, 4.0, 10, 5);
    a.server_queue = 1.5;
    r.requests.push_back(a);
    const auto s = analyze(r);
    CHECK(s.time_breakdown.waiting == "client_queue+server_queue");
    CHECK(s.time_breakdown.subsets.front().points.front().share == Approx(1.5 / 4.0));
}

TEST_CASE("the JSON export follows the documented layout") {
    stats_options o;
    const std::vector<run_stats> runs{analyze(small_run(), o)};
    const auto doc = stats_document(runs, o);
    CHECK(doc["servestat"] == "stats");
    CHECK(doc["version"] == 1);
    CHECK(doc["options"]["method"] == "linear");
    CHECK(doc["options"]["percentiles"] == json::array({50, 90, 95, 99}));
    const auto& r = doc["runs"][0];
    CHECK(r["label"] == "small");
    CHECK(r["errors"][0]["kind"] == "context_overflow");
    const auto& e2e = r["subsets"]["all"]["metrics"]["e2e"];
    for (const char* key : {"n", "mean", "std", "cov", "min", "max", "p50", "p90", "p95", "p99"})
        CHECK(e2e.contains(key));
    CHECK(r["subsets"]["all"]["metrics"].size() == all_metrics.size());
    CHECK(e2e["p50"] == Approx(3.0));
}

TEST_CASE("send rate: requests sent per second between the first send and the last") {
    // Sends at 0, 1, …, 6 s: 6 gaps over 6 s.
    CHECK(*analyze(small_run()).send_rate == Approx(1.0));
}

TEST_CASE("every run's JSON says whether it is a measurement and lists each validity finding") {
    const auto small = to_json(analyze(small_run()));
    CHECK(small["validity"]["valid"] == true);
    bool tiny = false, errors = false;
    for (const auto& r : small["validity"]["reasons"]) {
        tiny = tiny || r["finding"] == "tiny";
        errors = errors || (r["finding"] == "errors" && r["text"].get<std::string>().starts_with("3 of 7 requests failed"));
    }
    CHECK(tiny);
    CHECK(errors);
    // A run in which nothing completed: no rates, and not valid.
    run dead;
    dead.meta.label = "dead";
    for (int i = 0; i < 3; ++i) dead.requests.push_back(failed_request(i, i + 0.1, 503, "Service Unavailable"));
    const auto j = to_json(analyze(dead));
    CHECK(j["rps"].is_null());
    CHECK(j["output_tps"].is_null());
    CHECK(j["validity"]["valid"] == false);
    REQUIRE(j["validity"]["reasons"].size() >= 1);
    CHECK(j["validity"]["reasons"][0]["finding"] == "nothing_completed");
}

TEST_CASE("percentile keys: integral percentiles have no decimals, others keep theirs") {
    CHECK(percentile_key(50) == "p50");
    CHECK(percentile_key(99.9) == "p99.9");
    CHECK(percentile_key(99.99) == "p99.99");
}

TEST_CASE("all is summarised from the subsets that split it, rows without a prompt length in all only") {
    // 6,000 requests (past the size where percentiles come from a radix select), one in ten with no
    // prompt length, one in fifty failed, and a bucket of the user's overlapping medium and long. The
    // reference is computed here from every value at once: sorted for the percentiles, one compensated
    // sum in row order for the mean and the waiting share.
    std::mt19937_64 rng(3);
    std::uniform_real_distribution<double> gap(0, 0.01), wait(0, 0.3), decode(0.01, 2);
    std::uniform_int_distribution<int> prompt(1, 4000);
    run r;
    std::vector<double> e2e, waiting, latency;
    double at = 0;
    for (int i = 0; i < 6000; ++i) {
        at += gap(rng);
        const double sent = at + gap(rng), first = sent + wait(rng), end = first + decode(rng);
        request_record q = ok_request(sent, first, end, prompt(rng), 20);
        q.t_sched = at;
        if (i % 10 == 3) q.prompt_tokens.reset();
        if (i % 50 == 7) q.status = request_status::error;
        r.requests.push_back(q);
        if (q.status != request_status::ok) continue;
        e2e.push_back(end - sent);
        waiting.push_back((sent - at) + (first - sent));
        latency.push_back(end - at);
    }
    stats_options o;
    o.subsets.buckets = {parse_bucket("big=100:")};
    const auto s = analyze(r, o);
    REQUIRE(s.subsets.size() == 5);
    const auto& all = metric_summary_of(s, "all", metric::e2e);
    CHECK(all.n == e2e.size());
    const double mean = compensated_sum_of(e2e).value() / static_cast<double>(e2e.size());
    CHECK(*all.mean == Approx(mean).epsilon(1e-15));
    std::vector<double> sorted = e2e;
    std::sort(sorted.begin(), sorted.end());
    CHECK(*all.min == sorted.front());
    CHECK(*all.max == sorted.back());
    for (const auto& p : all.percentiles) CHECK(*p.value == percentile_sorted(sorted, p.p));
    std::size_t split = 0;
    for (const char* name : {"short", "medium", "long"}) split += metric_summary_of(s, name, metric::e2e).n;
    CHECK(split == e2e.size() - 600); // the 600 without a prompt length (i = 3 mod 10 is never 7 mod 50: none failed)
    CHECK(metric_summary_of(s, "big", metric::e2e).n > metric_summary_of(s, "long", metric::e2e).n);

    const auto& b = s.time_breakdown.subsets.front();
    CHECK(b.subset == "all");
    CHECK(b.n == waiting.size());
    CHECK(*b.mean_share == Approx(compensated_sum_of(waiting).value() / compensated_sum_of(latency).value()).epsilon(1e-15));
    std::sort(waiting.begin(), waiting.end());
    std::sort(latency.begin(), latency.end());
    for (const auto& point : b.points) {
        CHECK(point.waiting == percentile_sorted(waiting, point.p));
        CHECK(point.total == percentile_sorted(latency, point.p));
    }
}

} // namespace test_run_stats
