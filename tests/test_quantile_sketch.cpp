// A log larger than memory is summarised with sketches: each percentile within the stated relative
// error of the exact one, and sketches (and whole run accumulators) of shards merging exactly, in any
// order and grouping, into what one pass over the log gives.
#include "servestat/stats/bounded_analysis.hpp"
#include "servestat/stats/quantile_sketch.hpp"
#include "servestat/stats/run_accumulator.hpp"

#include <algorithm> // std::shuffle
#include <cmath>     // std::fabs, std::llround
#include <cstddef>   // std::size_t
#include <random>    // std::mt19937_64, std::lognormal_distribution
#include <vector>    // std::vector

#include <catch2/catch.hpp> // TEST_CASE, SECTION, REQUIRE, CHECK, INFO

namespace test_quantile_sketch { // the unity build compiles several test files as one: each keeps its names

using namespace servestat;

namespace {

const std::vector<double> percentiles{0, 0.1, 1, 5, 10, 25, 50, 75, 90, 95, 99, 99.9, 99.99, 100};

// Within alpha of the exact value, allowing the last bits of the bucket arithmetic.
bool within(double sketched, double exact, double alpha) {
    return std::fabs(sketched - exact) <= alpha * std::fabs(exact) * (1 + 1e-12);
}

std::vector<double> latencies(std::size_t n, unsigned seed) {
    std::mt19937_64 rng(seed);
    std::lognormal_distribution<double> ttft(-1.5, 1.2);
    std::vector<double> out(n);
    for (auto& x : out) x = ttft(rng);
    return out;
}

} // namespace

TEST_CASE("Sketched percentiles of 10^6 values lie within alpha of the exact ones", "[sketch]") {
    const auto values = latencies(1'000'000, 11);
    for (double alpha : {0.005, 0.01, 0.05}) {
        quantile_sketch sketch(alpha);
        for (double x : values) sketch.add(x);
        auto copy = values;
        const auto exact = percentiles_select(copy, percentiles);
        for (std::size_t k = 0; k < percentiles.size(); ++k) {
            INFO("alpha " << alpha << " p" << percentiles[k] << ": exact " << exact[k]);
            CHECK(within(sketch.percentile(percentiles[k]), exact[k], alpha));
        }
        CHECK(sketch.percentile(0) == exact.front()); // min and max are kept exactly
        CHECK(sketch.percentile(100) == exact.back());
    }
}

TEST_CASE("Sketches hold negative values and zeros, and every quantile method", "[sketch]") {
    std::mt19937_64 rng(5);
    std::normal_distribution<double> lag(0.0, 0.01); // a client queue: the send a little before or after its schedule
    std::vector<double> values(200'000);
    for (auto& x : values) x = lag(rng);
    for (std::size_t i = 0; i < values.size(); i += 97) values[i] = 0.0;
    quantile_sketch sketch(0.01);
    for (double x : values) sketch.add(x);
    for (auto method : {quantile_method::linear, quantile_method::lower, quantile_method::higher, quantile_method::nearest,
                        quantile_method::hazen, quantile_method::inverted_cdf}) {
        for (double p : {0.5, 10.0, 25.0, 75.0, 90.0, 99.5}) {
            auto copy = values;
            const double exact = percentiles_select(copy, std::vector<double>{p}, method).front();
            INFO("method " << static_cast<int>(method) << " p" << p << ": exact " << exact);
            CHECK(within(sketch.percentile(p, method), exact, 0.01));
        }
    }
}

TEST_CASE("Sketches merge exactly, in any order and grouping", "[sketch]") {
    const auto values = latencies(300'000, 12);
    quantile_sketch whole;
    for (double x : values) whole.add(x);
    std::vector<quantile_sketch> shards(20);
    for (std::size_t i = 0; i < values.size(); ++i) shards[(i * 7919) % shards.size()].add(values[i]);
    std::mt19937_64 rng(3);
    for (int trial = 0; trial < 10; ++trial) {
        auto order = shards;
        std::shuffle(order.begin(), order.end(), rng);
        // Pairwise in a tree for even trials, left to right for odd ones.
        while (order.size() > 1) {
            std::vector<quantile_sketch> next;
            if (trial % 2 == 0) {
                for (std::size_t k = 0; k + 1 < order.size(); k += 2) {
                    next.push_back(order[k]);
                    next.back().merge(order[k + 1]);
                }
                if (order.size() % 2 == 1) next.push_back(order.back());
            } else {
                next.push_back(order[0]);
                next.back().merge(order[1]);
                next.insert(next.end(), order.begin() + 2, order.end());
            }
            order = std::move(next);
        }
        CHECK(order.front() == whole); // counts, min, max: bit for bit
        for (double p : percentiles) CHECK(order.front().percentile(p) == whole.percentile(p));
    }
    REQUIRE_THROWS_AS(whole.merge(quantile_sketch(0.01)), usage_error);
    REQUIRE_THROWS_AS(quantile_sketch(0.0), usage_error);
    REQUIRE_THROWS_AS(quantile_sketch(1.0), usage_error);
}

namespace {

// A run of n requests with six-decimal times, failures and prompts of every subset.
run generated_run(std::size_t n, unsigned seed) {
    std::mt19937_64 rng(seed);
    std::lognormal_distribution<double> ttft(-2.0, 0.8), decode(0.5, 0.6);
    std::uniform_int_distribution<int> prompt(1, 4000), output(1, 300), die(0, 49);
    run r;
    r.meta.label = "generated";
    r.meta.shared_clock = true;
    double clock = 0;
    const auto micros = [](double t) { return static_cast<double>(std::llround(t * 1e6)) / 1e6; };
    for (std::size_t i = 0; i < n; ++i) {
        clock += 0.001;
        request_record q;
        q.t_sent = micros(clock);
        q.t_first = micros(clock + ttft(rng));
        q.t_end = micros(*q.t_first + decode(rng));
        q.prompt_tokens = prompt(rng);
        q.output_tokens = output(rng);
        if (die(rng) == 0) {
            q.status = request_status::error;
            q.http_status = 503;
            q.error = "overloaded";
        }
        r.requests.push_back(q);
    }
    return r;
}

void check_close_to_exact(const run_stats& sketched, const run_stats& exact, double alpha) {
    CHECK(sketched.requests == exact.requests);
    CHECK(sketched.ok == exact.ok);
    CHECK(sketched.duration == exact.duration);
    CHECK(sketched.output_tps == exact.output_tps);
    REQUIRE(sketched.errors.size() == exact.errors.size());
    CHECK(sketched.errors[0].count == exact.errors[0].count);
    REQUIRE(sketched.subsets.size() == exact.subsets.size());
    for (std::size_t s = 0; s < exact.subsets.size(); ++s) {
        CHECK(sketched.subsets[s].n == exact.subsets[s].n);
        for (std::size_t m = 0; m < exact.subsets[s].metrics.size(); ++m) {
            const summary& a = sketched.subsets[s].metrics[m].stats;
            const summary& b = exact.subsets[s].metrics[m].stats;
            INFO(exact.subsets[s].name << " " << to_string(exact.subsets[s].metrics[m].of));
            REQUIRE(a.n == b.n);
            if (b.n == 0) continue;
            CHECK(a.min == b.min);
            CHECK(a.max == b.max);
            CHECK(std::fabs(*a.mean - *b.mean) <= 1e-15 * std::fabs(*b.mean));
            CHECK(std::fabs(*a.std - *b.std) <= 1e-13 * *b.std);
            CHECK(a.sketch_alpha == alpha);
            for (std::size_t k = 0; k < b.percentiles.size(); ++k) CHECK(within(*a.percentiles[k].value, *b.percentiles[k].value, alpha));
        }
    }
}

} // namespace

TEST_CASE("A log over the memory limit is summarised within alpha of the exact statistics", "[sketch][bounded]") {
    const run r = generated_run(1'000'000, 21);
    stats_options o;
    o.summary.percentiles = {50, 90, 99, 99.9};
    const run_stats exact = analyze(r, o);
    const auto stream = [&](auto&& use) {
        for (std::size_t i = 0; i < r.requests.size(); ++i) use(r.requests.row(i));
        run meta;
        meta.meta = r.meta;
        return meta;
    };
    SECTION("over the limit: sketched") {
        bounded_options b;
        b.memory_limit = 8 << 20; // the first ~130,000 requests fit, the rest are streamed
        const run_stats sketched = analyze_bounded(stream, o, b);
        check_close_to_exact(sketched, exact, b.sketch_alpha);
        CHECK_FALSE(sketched.steady_state.window);
        CHECK_FALSE(sketched.peak_concurrency);
    }
    SECTION("within the limit: exact, as analyze") {
        bounded_options b;
        b.memory_limit = std::size_t{1} << 30;
        const run_stats kept = analyze_bounded(stream, o, b);
        CHECK(kept.subsets[0].metrics[0].stats.percentiles == exact.subsets[0].metrics[0].stats.percentiles);
        CHECK_FALSE(kept.subsets[0].metrics[0].stats.sketch_alpha);
        CHECK(kept.peak_concurrency == exact.peak_concurrency);
    }
}

TEST_CASE("Accumulators of shards merge into what one pass gives", "[sketch][bounded]") {
    const run r = generated_run(200'000, 22);
    const stats_options o;
    run_accumulator whole(o);
    whole.add(r.requests);
    // 20 shards of consecutive requests, merged in log order two ways: a tree and left to right.
    std::vector<run_accumulator> shards;
    for (std::size_t k = 0; k < 20; ++k) {
        request_table piece;
        for (std::size_t i = k * 10'000; i < (k + 1) * 10'000; ++i) piece.push_back(r.requests.row(i));
        shards.emplace_back(o).add(piece);
    }
    run_accumulator left = shards[0];
    for (std::size_t k = 1; k < shards.size(); ++k) left.merge(shards[k]);
    std::vector<run_accumulator> level = shards;
    while (level.size() > 1) {
        std::vector<run_accumulator> next;
        for (std::size_t k = 0; k < level.size(); k += 2) {
            next.push_back(level[k]);
            if (k + 1 < level.size()) next.back().merge(level[k + 1]);
        }
        level = std::move(next);
    }
    for (const run_accumulator* merged : {&left, &level.front()}) {
        const auto a = merged->result(r.meta, {}), b = whole.result(r.meta, {});
        CHECK(a.requests == b.requests);
        CHECK(a.errors.front().count == b.errors.front().count);
        CHECK(a.errors.front().example == b.errors.front().example);
        for (std::size_t s = 0; s < b.subsets.size(); ++s)
            for (std::size_t m = 0; m < b.subsets[s].metrics.size(); ++m) {
                const summary& x = a.subsets[s].metrics[m].stats;
                const summary& y = b.subsets[s].metrics[m].stats;
                REQUIRE(x.n == y.n);
                if (y.n == 0) continue;
                CHECK(x.percentiles == y.percentiles); // sketch buckets add exactly
                CHECK(x.min == y.min);
                CHECK(x.max == y.max);
                CHECK(std::fabs(*x.mean - *y.mean) <= 1e-15 * std::fabs(*y.mean));
                CHECK(std::fabs(*x.std - *y.std) <= 1e-15 * 16 * *y.std);
            }
    }
}

} // namespace test_quantile_sketch
