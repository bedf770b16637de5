// Findings: each rule fires on the situation it names, quotes its numbers, and stays quiet otherwise.
#include <catch2/catch.hpp> // Catch2 v2

#include <string> // std::string
#include <vector> // std::vector

#include "servestat/report/findings.hpp"

namespace test_findings { // the unity build compiles several test files as one: each keeps its names

using namespace servestat;
using namespace servestat::report;

namespace {

request_record ok_request(double e2e, int prompt, double ttft = 0.1, int output = 10) {
    request_record r;
    r.t_sent = 0.0;
    r.t_first = ttft;
    r.t_end = e2e;
    r.prompt_tokens = prompt;
    r.output_tokens = output;
    r.status = request_status::ok;
    return r;
}

run_stats stats_of(const std::vector<request_record>& requests) {
    run r;
    for (const auto& q : requests) r.requests.push_back(q);
    return analyze(r);
}

// 100 requests with e2e 1..100 s (short prompts): p50 = 50.5 s, p99 = 99.01 s.
std::vector<request_record> ramp(int prompt = 10) {
    std::vector<request_record> out;
    for (int i = 1; i <= 100; ++i) out.push_back(ok_request(i, prompt));
    return out;
}

} // namespace

TEST_CASE("tail_to_median quotes p99, p50 and their ratio") {
    const auto f = tail_to_median(stats_of(ramp()));
    REQUIRE(f.has_value());
    // 100 requests: the p99 rests on few samples (it needs 1,000), the median does not (20).
    CHECK(f->text == "End-to-end p99 is 2.0× the median (99.01 s† vs 50.50 s): a moderate tail.");
}

TEST_CASE("tail_to_median calls a 3x ratio a heavy tail") {
    auto requests = ramp();
    requests.back() = ok_request(1000, 10);
    requests[98] = ok_request(1000, 10); // p99 interpolates between the two 1000 s requests
    const auto f = tail_to_median(stats_of(requests));
    REQUIRE(f.has_value());
    CHECK_THAT(f->text, Catch::Contains("heavy tail"));
}

TEST_CASE("short_requests_in_tail fires when short p99 nears long p99") {
    auto requests = ramp(10);
    for (int i = 0; i < 10; ++i) requests.push_back(ok_request(100 + i, 3000));
    const auto f = short_requests_in_tail(stats_of(requests));
    REQUIRE(f.has_value());
    // short p50 50.50 s, short p99 99.01 s (1.96x), long p99 108.91 s (shown as 109 s): 90.9% of it.
    // Both p99s rest on few samples (100 and 10 requests), the short median on enough (100 ≥ 20).
    CHECK_THAT(f->text, Catch::Contains("short p99 99.01 s† is 2.0× the short median 50.50 s and 90.9% of the "
                                        "long-prompt p99 109 s†"));
}

TEST_CASE("short_requests_in_tail stays quiet when short requests are fast and tight") {
    std::vector<request_record> requests;
    for (int i = 0; i < 50; ++i) requests.push_back(ok_request(1.0 + i * 0.001, 10));
    for (int i = 0; i < 50; ++i) requests.push_back(ok_request(10.0 + i * 0.01, 3000));
    CHECK_FALSE(short_requests_in_tail(stats_of(requests)).has_value());
}

TEST_CASE("waiting_dominates quotes the median waiting share") {
    std::vector<request_record> requests;
    for (int i = 1; i <= 9; ++i) requests.push_back(ok_request(10.0, 10, 8.5)); // 85% of each is before output
    const auto f = waiting_dominates(stats_of(requests));
    REQUIRE(f.has_value());
    CHECK(f->text == "Waiting dominates latency: at the median, 8.50 s of 10.00 s (85.0%) is spent before "
                     "generation (ttft).");
    std::vector<request_record> quick{ok_request(10.0, 10, 1.0), ok_request(10.0, 10, 1.0)};
    CHECK_FALSE(waiting_dominates(stats_of(quick)).has_value());
}

TEST_CASE("latency_consistency names the CoV band of seed 004") {
    std::vector<request_record> steady{ok_request(1.0, 10), ok_request(1.02, 10), ok_request(0.98, 10)};
    const auto f = latency_consistency(stats_of(steady));
    REQUIRE(f.has_value());
    CHECK(f->text == "End-to-end latency varies with a coefficient of variation of 2.0%, under 5%: consistent, "
                     "users get a predictable experience.");
    CHECK_THAT(latency_consistency(stats_of(ramp()))->text, Catch::Contains("over 20%"));
}

TEST_CASE("context_overflows counts the failures and explains them from vLLM's message") {
    auto requests = ramp();
    request_record failed;
    failed.t_sent = 0.0;
    failed.t_end = 0.002;
    failed.status = request_status::error;
    failed.http_status = 400;
    failed.error = "max_tokens' or 'max_completion_tokens' is too large: 128. This model's maximum context length "
                   "is 4096 tokens and your request has 4030 input tokens (128 > 4096 - 4030). None";
    requests.push_back(failed);
    requests.push_back(failed);
    const auto f = context_overflows(stats_of(requests));
    REQUIRE(f.has_value());
    CHECK(f->text == "2 of 102 requests (2.0%) failed because prompt plus max_tokens exceeded the model's context. "
                     "For example a 4030-token prompt left no room for output in the 4096-token context; budget "
                     "max_tokens from the prompt length or trim prompts.");
    CHECK_FALSE(context_overflows(stats_of(ramp())).has_value());
}

TEST_CASE("per_token_cost quotes the slope and judges the fit") {
    const auto good = per_token_cost(linear_fit{0.030, 0.5, 0.95, 200});
    REQUIRE(good.has_value());
    CHECK(good->text == "Each output token adds 30.0 ms of latency (least squares over 200 requests, r² = 0.95, "
                        "slope p < 0.001): a linear model explains latency well.");
    CHECK_THAT(per_token_cost(linear_fit{0.030, 0.5, 0.6, 200})->text, Catch::Contains("explains part of the latency"));
    CHECK_FALSE(per_token_cost(linear_fit{0.030, 0.5, 0.2, 200}).has_value()); // explains too little to state
    // r² 0.95 over 3 requests: t = sqrt(0.95 / 0.05) = 4.36 on 1 degree of freedom, p = 0.14.
    CHECK_FALSE(per_token_cost(linear_fit{0.030, 0.5, 0.95, 3}).has_value());
    CHECK_FALSE(per_token_cost(std::nullopt).has_value());
}

TEST_CASE("least squares recovers an exact line and its r² of 1") {
    const std::vector<double> x{1, 2, 3, 4}, y{3, 5, 7, 9};
    const auto fit = least_squares(x, y);
    REQUIRE(fit.has_value());
    CHECK(fit->slope == Approx(2.0));
    CHECK(fit->intercept == Approx(1.0));
    CHECK(fit->r_squared == Approx(1.0));
    // x = 1,2,3; y = 1,3,2: sxx = 2, sxy = 1, syy = 2 -> slope 0.5, r² = 1/(2*2) = 0.25.
    const std::vector<double> x2{1, 2, 3}, y2{1, 3, 2};
    CHECK(least_squares(x2, y2)->r_squared == Approx(0.25));
    const std::vector<double> same{2, 2, 2};
    CHECK_FALSE(least_squares(same, y2).has_value());
}

TEST_CASE("findings come in a fixed order: failures first, then latency structure") {
    auto requests = ramp();
    const auto all = derive_findings(stats_of(requests), linear_fit{0.03, 0.5, 0.95, 100});
    std::vector<std::string> rules;
    for (const auto& f : all) rules.push_back(f.rule);
    CHECK(rules == std::vector<std::string>{"tail_to_median", "per_token_cost", "latency_consistency"});
}

} // namespace test_findings
