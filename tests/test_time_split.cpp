// The time split by the server's own clock (docs/metrics.md#the-time-split): parts that add up to
// the client's latency, means per subset, and a server ahead of the client's clock noted, not
// subtracted.
#include "servestat/stats/time_split.hpp"

#include <catch2/catch.hpp> // TEST_CASE, CHECK, REQUIRE, Approx

#include "servestat/core/request_table.hpp"  // request_table
#include "servestat/report/report_digest.hpp" // detail::server_clock_sentence
#include "servestat/stats/run_stats.hpp"      // analyze
#include "servestat/stats/subsets.hpp"        // split_into_subsets

namespace test_time_split {

using namespace servestat;

namespace {

request_record request(double sched, double sent, double first, double end, std::optional<double> queue,
                       std::optional<double> prefill, std::int32_t prompt) {
    request_record r;
    r.t_sched = sched;
    r.t_sent = sent;
    r.t_first = first;
    r.t_end = end;
    r.server_queue = queue;
    r.server_prefill = prefill;
    r.prompt_tokens = prompt;
    r.output_tokens = 10;
    return r;
}

const subset_time_split& subset_named(const time_split& s, const std::string& name) {
    for (const auto& part : s.subsets)
        if (part.subset == name) return part;
    FAIL("no subset " << name);
    return s.subsets.front();
}

double mean_of(const subset_time_split& s, split_part p) { return s.mean[static_cast<std::size_t>(p)]; }

} // namespace

TEST_CASE("each request's time is the client's wait, the network, the server's queue and prefill, and decode") {
    request_table t;
    // short: wait 0.1, TTFT 1.0 of which the server spent 0.6 queued and 0.3 prefilling (network 0.1), decode 2.0
    t.push_back(request(0.0, 0.1, 1.1, 3.1, 0.6, 0.3, 20));
    // short: wait 0, TTFT 0.5 = 0.2 + 0.2 + network 0.1, decode 1.0
    t.push_back(request(5.0, 5.0, 5.5, 6.5, 0.2, 0.2, 30));
    // long: wait 0.3, TTFT 2.0 = 0.5 + 1.4 + network 0.1, decode 4.0
    t.push_back(request(1.0, 1.3, 3.3, 7.3, 0.5, 1.4, 3000));
    const auto subsets = split_into_subsets(t, subset_options{});
    const auto split = split_time(t, subsets);
    CHECK(split.client_wait);

    const auto& all = subset_named(split, "all");
    CHECK(all.n == 3);
    CHECK(mean_of(all, split_part::client_wait) == Approx((0.1 + 0.0 + 0.3) / 3));
    CHECK(mean_of(all, split_part::network) == Approx(0.1));
    CHECK(mean_of(all, split_part::server_queue) == Approx((0.6 + 0.2 + 0.5) / 3));
    CHECK(mean_of(all, split_part::prefill) == Approx((0.3 + 0.2 + 1.4) / 3));
    CHECK(mean_of(all, split_part::decode) == Approx((2.0 + 1.0 + 4.0) / 3));
    // The parts add up to the mean latency from t_sched: (3.1 + 1.5 + 6.3) / 3.
    CHECK(all.total() == Approx((3.1 + 1.5 + 6.3) / 3));

    const auto& brief = subset_named(split, "short");
    CHECK(brief.n == 2);
    // short: queue 0.8 of a total 3.1 + 1.5 = 4.6
    CHECK(brief.share(split_part::server_queue) == Approx(0.8 / 4.6));
    const auto& lengthy = subset_named(split, "long");
    CHECK(lengthy.n == 1);
    CHECK(lengthy.share(split_part::prefill) == Approx(1.4 / 6.3));
    for (const auto& s : split.subsets) CHECK(s.subset != "medium"); // no request there: left out
}

TEST_CASE("a server that claims more time to the first token than the client waited is noted, its network part 0") {
    request_table t;
    // TTFT 0.5 by the client, 0.3 + 0.3 = 0.6 by the server: 0.1 ahead
    t.push_back(request(0.0, 0.0, 0.5, 1.5, 0.3, 0.3, 20));
    t.push_back(request(2.0, 2.0, 2.5, 3.5, 0.1, 0.2, 20));
    const auto split = split_time(t, split_into_subsets(t, subset_options{}));
    const auto& all = subset_named(split, "all");
    CHECK(all.server_ahead == 1);
    CHECK(all.most_ahead == Approx(0.1));
    CHECK(mean_of(all, split_part::network) == Approx((0.0 + 0.2) / 2)); // never negative
    CHECK(mean_of(all, split_part::client_wait) == 0.0);
}

TEST_CASE("no split without the server's queue and prefill; requests missing either or failed are left out") {
    request_table without;
    without.push_back(request(0.0, 0.0, 0.5, 1.5, std::nullopt, std::nullopt, 20));
    CHECK(split_time(without, split_into_subsets(without, subset_options{})).subsets.empty());

    request_table some;
    some.push_back(request(0.0, 0.0, 0.5, 1.5, 0.1, 0.2, 20));
    some.push_back(request(1.0, 1.0, 1.5, 2.5, 0.1, std::nullopt, 20));
    auto failed = request(2.0, 2.0, 2.5, 3.5, 0.1, 0.2, 20);
    failed.status = request_status::error;
    some.push_back(failed);
    const auto split = split_time(some, split_into_subsets(some, subset_options{}));
    REQUIRE(!split.subsets.empty());
    CHECK(subset_named(split, "all").n == 1);
}

TEST_CASE("a server that gives its time to the first token as one number has it as one part") {
    request_table t;
    // Dynamo's ttft_ms: 0.8 s of the client's 0.9 s to the first token; decode 0.5
    auto r = request(0.0, 0.0, 0.9, 1.4, std::nullopt, std::nullopt, 20);
    r.server_ttft = 0.8;
    t.push_back(r);
    const auto split = split_time(t, split_into_subsets(t, subset_options{}));
    CHECK(split.first_token_whole);
    const auto& all = subset_named(split, "all");
    CHECK(mean_of(all, split_part::server_queue) == 0.0);
    CHECK(mean_of(all, split_part::prefill) == Approx(0.8));
    CHECK(mean_of(all, split_part::network) == Approx(0.1));
    CHECK(all.total() == Approx(1.4));
}

TEST_CASE("the summary says which prompts wait in the server's queue, once that is a quarter of their time") {
    run r;
    r.meta.label = "c32";
    // short: TTFT 0.8 = queue 0.7 + prefill 0.05 + network 0.05, decode 0.2: 70% queued
    r.requests.push_back(request(0.0, 0.0, 0.8, 1.0, 0.7, 0.05, 20));
    // long: TTFT 0.5 = queue 0.1 + prefill 0.35 + network 0.05, decode 0.5: 10% queued
    r.requests.push_back(request(0.0, 0.0, 0.5, 1.0, 0.1, 0.35, 3000));
    const std::vector<run_stats> runs{analyze(r, stats_options{})};
    CHECK(report::detail::server_clock_sentence(runs, {}) ==
          "By the server's own clock, short prompts spend 70.0% of their time in its queue (long prompts 10.0%).");

    run calm;
    calm.meta.label = "c8";
    calm.requests.push_back(request(0.0, 0.0, 0.5, 1.0, 0.2, 0.25, 20)); // 20% queued: not said
    const std::vector<run_stats> quiet{analyze(calm, stats_options{})};
    CHECK(report::detail::server_clock_sentence(quiet, {}).empty());

    // Several runs: the one whose prompts queue most, and the same prompts in the others.
    const std::vector<run_stats> both{runs.front(), quiet.front()};
    CHECK(report::detail::server_clock_sentence(both, {}) ==
          "By the server's own clock, short prompts spend 70.0% of their time in its queue in c32 (long prompts 10.0%); "
          "in c8, 20.0%.");
}

} // namespace test_time_split
