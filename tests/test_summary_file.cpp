// Summary files: a run's accumulated statistics written out and read back unchanged, merging in any
// order and grouping into what one pass over the whole log gives, and naming the field of a bad file.
#include "servestat/report/summary_file.hpp"

#include <algorithm> // std::shuffle
#include <cmath>     // std::fabs, std::llround
#include <cstddef>   // std::size_t
#include <random>    // std::mt19937_64
#include <string>    // std::string
#include <vector>    // std::vector

#include <catch2/catch.hpp> // TEST_CASE, SECTION, REQUIRE, CHECK, INFO

#include "temp_file.hpp" // servestat::test::temp_file

namespace test_summary_file { // the unity build compiles several test files as one: each keeps its names

using namespace servestat;
using servestat::test::temp_file;

namespace {

// Shard k of a run: requests k, k + shards, k + 2 shards, ... of one seeded stream.
request_table shard_requests(std::size_t k, std::size_t shards, std::size_t n) {
    std::mt19937_64 rng(77);
    std::lognormal_distribution<double> ttft(-2.0, 0.9), decode(0.4, 0.7);
    std::uniform_int_distribution<int> prompt(1, 5000), die(0, 29);
    request_table t;
    for (std::size_t i = 0; i < n; ++i) {
        request_record q;
        q.t_sent = std::llround(i * 1000.0 + 7) / 1e6;
        q.t_first = *q.t_sent + std::llround(ttft(rng) * 1e6) / 1e6;
        q.t_end = *q.t_first + std::llround(decode(rng) * 1e6) / 1e6;
        q.prompt_tokens = prompt(rng);
        q.output_tokens = 1 + die(rng) * 10;
        if (die(rng) == 0) {
            q.status = request_status::error;
            q.http_status = 429;
            q.error = "rate limited";
        }
        if (i % shards == k) t.push_back(q);
    }
    return t;
}

run_summary summary_of(const request_table& t, const stats_options& o) {
    run_summary s{{}, {}, run_accumulator(o)};
    s.meta.label = "sharded";
    s.stats.add(t);
    return s;
}

run_summary written_and_read(const run_summary& s) {
    const temp_file file(summary_file_text(s));
    return read_summary_file(file.path());
}

void check_same(const run_stats& a, const run_stats& b) {
    CHECK(a.requests == b.requests);
    CHECK(a.ok == b.ok);
    CHECK(a.duration == b.duration);
    CHECK(a.output_tps == b.output_tps);
    CHECK(a.errors.size() == b.errors.size());
    REQUIRE(a.subsets.size() == b.subsets.size());
    for (std::size_t s = 0; s < a.subsets.size(); ++s) {
        CHECK(a.subsets[s].n == b.subsets[s].n);
        for (std::size_t m = 0; m < a.subsets[s].metrics.size(); ++m) {
            const summary& x = a.subsets[s].metrics[m].stats;
            const summary& y = b.subsets[s].metrics[m].stats;
            INFO(a.subsets[s].name << " " << to_string(a.subsets[s].metrics[m].of));
            REQUIRE(x.n == y.n);
            if (x.n == 0) continue;
            CHECK(x.min == y.min);
            CHECK(x.max == y.max);
            CHECK(x.percentiles == y.percentiles); // bucket counts add exactly
            CHECK(std::fabs(*x.mean - *y.mean) <= 1e-15 * std::fabs(*y.mean));
            CHECK(std::fabs(*x.std - *y.std) <= 1e-15 * 4 * *y.std);
        }
    }
}

} // namespace

TEST_CASE("A summary reads back as it was written", "[summary-file]") {
    stats_options o;
    o.subsets.buckets.push_back(parse_bucket("tiny=0:16"));
    o.slos = parse_slos("ttft=0.5,e2e=5");
    auto s = summary_of(shard_requests(0, 1, 20'000), o);
    s.meta.model = "m";
    s.meta.params = {{"concurrency", 8}};
    s.meta.notes = {"a note"};
    const auto back = written_and_read(s);
    CHECK(summary_file_text(back) == summary_file_text(s)); // every number and every field, to the bit
    const auto a = back.stats.result(back.meta, back.skipped), b = s.stats.result(s.meta, s.skipped);
    CHECK(a.goodput->good == b.goodput->good);
    check_same(a, b);
}

TEST_CASE("Summaries of 20 shards merge in any order and grouping into the summary of the whole", "[summary-file]") {
    const stats_options o;
    constexpr std::size_t shards = 20, requests = 100'000;
    std::vector<run_summary> parts;
    for (std::size_t k = 0; k < shards; ++k) parts.push_back(written_and_read(summary_of(shard_requests(k, shards, requests), o)));
    const run_summary whole = summary_of(shard_requests(0, 1, requests), o);
    const auto expected = whole.stats.result(whole.meta, whole.skipped);
    std::mt19937_64 rng(8);
    for (int trial = 0; trial < 6; ++trial) {
        auto order = parts;
        std::shuffle(order.begin(), order.end(), rng);
        while (order.size() > 1) { // merge a random pair (written out and read back) until one is left
            std::uniform_int_distribution<std::size_t> pick(0, order.size() - 2);
            const std::size_t k = pick(rng);
            merge(order[k], order[k + 1]);
            order[k] = written_and_read(order[k]);
            order.erase(order.begin() + static_cast<std::ptrdiff_t>(k) + 1);
        }
        INFO("trial " << trial);
        check_same(order.front().stats.result(order.front().meta, order.front().skipped), expected);
    }
}

TEST_CASE("Summaries made with other options do not merge", "[summary-file]") {
    stats_options other;
    other.subsets.short_max = 32;
    auto a = summary_of(shard_requests(0, 2, 1000), stats_options{});
    const auto b = summary_of(shard_requests(1, 2, 1000), other);
    REQUIRE_THROWS_AS(merge(a, b), usage_error);
}

TEST_CASE("A bad summary file is an error naming the field", "[summary-file]") {
    const std::string good = summary_file_text(summary_of(shard_requests(0, 1, 500), stats_options{}));
    const auto error_of = [](const std::string& text) -> std::string {
        const temp_file file(text);
        try {
            read_summary_file(file.path());
        } catch (const input_error& e) {
            return e.what();
        }
        return "no error";
    };
    const auto replaced = [&](const std::string& from, const std::string& to) {
        std::string text = good;
        const auto at = text.find(from);
        REQUIRE(at != std::string::npos);
        return text.replace(at, from.size(), to);
    };
    CHECK_THAT(error_of(replaced("\"version\":1", "\"version\":2")), Catch::Contains("unsupported summary version 2"));
    CHECK_THAT(error_of(replaced("\"servestat\":\"summary\"", "\"servestat\":\"log\"")), Catch::Contains("not a servestat summary"));
    CHECK_THAT(error_of(replaced("\"sketch_alpha\":0.005", "\"sketch_alpha\":2")), Catch::Contains("options.sketch_alpha"));
    CHECK_THAT(error_of(replaced("\"requests\":500", "\"requests\":-1")), Catch::Contains("run.requests"));
    CHECK_THAT(error_of(replaced("\"ok\":", "\"okay\":")), Catch::Contains("field 'run.ok': missing"));
    const std::string counts = error_of(replaced("\"zeros\":0", "\"zeros\":1"));
    CHECK_THAT(counts, Catch::Contains("run.output_tokens.sketch") && Catch::Contains("values where n is"));
    CHECK_THAT(error_of(good.substr(0, good.size() / 2)), Catch::Contains(":"));
}

} // namespace test_summary_file
