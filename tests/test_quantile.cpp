// Tests for servestat/stats/quantile.hpp: agreement with numpy 1.24, selection == sorting, hand-derived values.
#include "servestat/stats/quantile.hpp"
#include "servestat/stats/radix_select.hpp" // detail::radix_select

#include <algorithm>   // std::sort, std::shuffle, std::max, std::unique
#include <array>       // std::array
#include <cmath>       // std::fabs
#include <cstdlib>     // std::getenv
#include <fstream>     // std::ifstream
#include <functional>  // std::function
#include <iostream>    // std::cout
#include <limits>      // std::numeric_limits
#include <random>      // std::mt19937_64, std::uniform_int_distribution, std::uniform_real_distribution
#include <span>        // std::span
#include <string>      // std::string
#include <utility>     // std::pair
#include <vector>      // std::vector

#include <catch2/catch.hpp>    // TEST_CASE, SECTION, REQUIRE, CHECK, FAIL, Approx
#include <nlohmann/json.hpp>   // nlohmann::json

#include "hex_doubles.hpp" // from_hex, doubles_from_hex, same_bits

namespace test_quantile { // the unity build compiles several test files as one: each keeps its names

namespace {

using servestat::quantile_method;

constexpr std::size_t method_count = 13;

using servestat::test::doubles_from_hex;
using servestat::test::from_hex;
using servestat::test::same_bits;

// 1e-9 relative; the absolute floor keeps an expected 0 (or a subnormal) from demanding bit equality.
bool within_tolerance(double got, double expected) {
    return std::fabs(got - expected) <= std::max(1e-9 * std::fabs(expected), 1e-300);
}

std::vector<double> sorted_copy(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values;
}

// FAILs (never silently passes) when the ctest fixture that writes the file did not run.
nlohmann::json load_numpy_reference() {
    const char* path = std::getenv("SERVESTAT_NUMPY_QUANTILES");
    if (path == nullptr || *path == '\0')
        FAIL("SERVESTAT_NUMPY_QUANTILES is not set: run tests/tools/numpy_quantile_reference.py OUT.json "
             "with /usr/bin/python3 (numpy 1.24) and point the variable at OUT.json");
    std::ifstream in(path);
    if (!in) FAIL("cannot open SERVESTAT_NUMPY_QUANTILES=" << path);
    return nlohmann::json::parse(in);
}

struct method_tally {
    std::size_t compared = 0;
    std::size_t bit_exact = 0;
};

void print_tally(const std::array<method_tally, method_count>& tally, std::size_t case_count,
                 std::size_t percentile_count) {
    std::cout << "numpy reference: " << case_count << " cases x " << percentile_count << " percentiles\n";
    for (quantile_method m : servestat::all_quantile_methods()) {
        const auto& t = tally[static_cast<std::size_t>(m)];
        std::cout << "  " << servestat::to_string(m) << ": " << t.bit_exact << "/" << t.compared << " bit-exact\n";
    }
}

} // namespace

TEST_CASE("percentile_sorted reproduces numpy 1.24 np.percentile for every method", "[quantile][numpy]") {
    const nlohmann::json reference = load_numpy_reference();
    const std::vector<double> ps = doubles_from_hex(reference.at("percentiles"));

    std::vector<quantile_method> methods;
    for (const auto& name : reference.at("methods")) methods.push_back(servestat::parse_quantile_method(name.get<std::string>()));
    REQUIRE(methods.size() == method_count);

    std::array<method_tally, method_count> tally{};
    for (const auto& c : reference.at("cases")) {
        const std::string name = c.at("name").get<std::string>();
        const std::vector<double> sorted = sorted_copy(doubles_from_hex(c.at("data")));
        for (quantile_method m : methods) {
            const std::vector<double> expected = doubles_from_hex(c.at("expected").at(std::string(servestat::to_string(m))));
            REQUIRE(expected.size() == ps.size());
            for (std::size_t i = 0; i < ps.size(); ++i) {
                const double got = servestat::percentile_sorted(sorted, ps[i], m);
                INFO("case " << name << " (n=" << sorted.size() << "), method " << servestat::to_string(m) << ", p="
                             << ps[i] << ": got " << got << ", numpy " << expected[i]);
                CHECK(within_tolerance(got, expected[i]));
                auto& t = tally[static_cast<std::size_t>(m)];
                ++t.compared;
                if (same_bits(got, expected[i])) ++t.bit_exact;
            }
        }
    }
    print_tally(tally, reference.at("cases").size(), ps.size());

    const auto& linear = tally[static_cast<std::size_t>(quantile_method::linear)];
    REQUIRE(linear.compared > 0);
    REQUIRE(linear.bit_exact == linear.compared);
    for (quantile_method m : methods) {
        INFO("method " << servestat::to_string(m));
        const auto& t = tally[static_cast<std::size_t>(m)];
        CHECK(t.bit_exact == t.compared);
    }
}

TEST_CASE("percentiles_select on shuffled numpy cases equals percentile_sorted", "[quantile][numpy][select]") {
    const nlohmann::json reference = load_numpy_reference();
    std::vector<double> ps = doubles_from_hex(reference.at("percentiles"));
    ps.push_back(ps.front()); // a duplicate request must not disturb the selection
    std::mt19937_64 rng(7);

    for (const auto& c : reference.at("cases")) {
        const std::vector<double> data = doubles_from_hex(c.at("data"));
        const std::vector<double> sorted = sorted_copy(data);
        for (quantile_method m : servestat::all_quantile_methods()) {
            std::vector<double> shuffled = data;
            std::shuffle(shuffled.begin(), shuffled.end(), rng);
            std::shuffle(ps.begin(), ps.end(), rng);
            const std::vector<double> selected = servestat::percentiles_select(shuffled, ps, m);
            REQUIRE(selected.size() == ps.size());
            for (std::size_t i = 0; i < ps.size(); ++i) {
                INFO("case " << c.at("name").get<std::string>() << ", method " << servestat::to_string(m)
                             << ", p=" << ps[i]);
                CHECK(selected[i] == servestat::percentile_sorted(sorted, ps[i], m));
            }
            CHECK(sorted_copy(shuffled) == sorted); // still a permutation of the data
        }
    }
}

TEST_CASE("percentiles_select equals percentile_sorted on random small samples", "[quantile][select]") {
    std::mt19937_64 rng(20240611);
    std::uniform_real_distribution<double> percent(0.0, 100.0);
    std::uniform_int_distribution<int> small_int(0, 6);
    std::uniform_int_distribution<int> count(1, 6);
    const std::array<double, 8> edges{0.0, 100.0, 50.0, 1.0, 99.0, 25.0, 75.0, 12.5};

    for (std::size_t n = 1; n <= 64; ++n) {
        for (int round = 0; round < 8; ++round) {
            std::vector<double> data(n);
            for (double& v : data) v = round % 2 == 0 ? small_int(rng) * 0.25 : percent(rng) - 50.0; // ties, then distinct
            const std::vector<double> sorted = sorted_copy(data);
            std::vector<double> ps;
            for (int k = count(rng); k > 0; --k) ps.push_back(k % 2 == 0 ? edges[rng() % edges.size()] : percent(rng));
            for (quantile_method m : servestat::all_quantile_methods()) {
                std::vector<double> work = data;
                const std::vector<double> selected = servestat::percentiles_select(work, ps, m);
                for (std::size_t i = 0; i < ps.size(); ++i) {
                    INFO("n=" << n << ", method " << servestat::to_string(m) << ", p=" << ps[i]);
                    CHECK(selected[i] == servestat::percentile_sorted(sorted, ps[i], m));
                }
            }
        }
    }
}

// Large samples take the radix-select path; percentile_sorted (checked against numpy above) is the
// reference. The shapes are the ones that stress a histogram: heavy tails, a far outlier that
// crowds everything else into one bucket, many ties, negative values and zeros of both signs.
TEST_CASE("percentiles_select equals percentile_sorted on large samples of every shape", "[quantile][select]") {
    std::mt19937_64 rng(99);
    std::lognormal_distribution<double> lognormal(-1.0, 1.5);
    std::normal_distribution<double> normal(0.0, 1.0);
    std::uniform_int_distribution<int> few(0, 9);
    const std::vector<double> ps{0, 0.1, 1, 25, 50, 90, 95, 99, 99.9, 99.99, 100};
    const std::vector<std::pair<const char*, std::function<double(std::size_t)>>> shapes{
        {"lognormal", [&](std::size_t) { return lognormal(rng); }},
        {"far outlier", [&](std::size_t i) { return i == 17 ? 1e12 : 1e9 + normal(rng); }},
        {"ties", [&](std::size_t) { return few(rng) * 0.5; }},
        {"all equal", [&](std::size_t) { return 3.25; }},
        {"signed", [&](std::size_t) { return normal(rng) * 1e-3; }},
        {"zeros", [&](std::size_t i) { return i % 3 == 0 ? -0.0 : i % 3 == 1 ? 0.0 : lognormal(rng); }},
    };
    for (std::size_t n : {std::size_t{2048}, std::size_t{5000}, std::size_t{200000}}) {
        for (const auto& [name, draw] : shapes) {
            std::vector<double> data(n);
            for (std::size_t i = 0; i < n; ++i) data[i] = draw(i);
            const std::vector<double> sorted = sorted_copy(data);
            for (quantile_method m : servestat::all_quantile_methods()) {
                std::vector<double> work = data;
                const std::vector<double> selected = servestat::percentiles_select(work, ps, m);
                for (std::size_t i = 0; i < ps.size(); ++i) {
                    INFO(name << " n=" << n << ", method " << servestat::to_string(m) << ", p=" << ps[i]);
                    CHECK(selected[i] == servestat::percentile_sorted(sorted, ps[i], m));
                }
            }
        }
    }
}

// A chart asks for ~500 evenly spaced ranks at once, many of them in one bucket of the histogram
// (all of them when a far outlier crowds the rest together): each must still be the sorted value.
TEST_CASE("radix_select finds hundreds of ranks, many to a bucket, as a sort would", "[quantile][select]") {
    std::mt19937_64 rng(17);
    std::lognormal_distribution<double> lognormal(-1.0, 1.5);
    std::normal_distribution<double> normal(0.0, 1.0);
    std::uniform_int_distribution<int> few(0, 9);
    const std::vector<std::pair<const char*, std::function<double(std::size_t)>>> shapes{
        {"lognormal", [&](std::size_t) { return lognormal(rng); }},
        {"far outlier", [&](std::size_t i) { return i == 17 ? 1e12 : 1e9 + normal(rng); }},
        {"ties", [&](std::size_t) { return few(rng) * 0.5; }},
        {"signed", [&](std::size_t) { return normal(rng) * 1e-3; }},
    };
    for (std::size_t n : {std::size_t{2048}, std::size_t{100000}}) {
        for (const auto& [name, draw] : shapes) {
            std::vector<double> data(n);
            for (std::size_t i = 0; i < n; ++i) data[i] = draw(i);
            const std::vector<double> sorted = sorted_copy(data);
            std::vector<std::size_t> ranks;
            for (std::size_t j = 0; j < 500; ++j) ranks.push_back(j * (n - 1) / 499);
            ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
            const std::vector<double> unchanged = data;
            const auto selected = servestat::detail::radix_select(data, ranks);
            INFO(name << " n=" << n);
            CHECK(data == unchanged);
            REQUIRE(selected.size() == ranks.size());
            for (std::size_t k = 0; k < ranks.size(); ++k) CHECK(selected[k] == sorted[ranks[k]]);
        }
    }
}

TEST_CASE("statistics.md 1.2 table: 1..10 and 1..100 for every method", "[quantile]") {
    // Columns in the table's order; values derived by hand from numpy's formulas (and confirmed with numpy 1.24).
    constexpr std::array<quantile_method, method_count> columns{
        quantile_method::inverted_cdf, quantile_method::averaged_inverted_cdf, quantile_method::closest_observation,
        quantile_method::interpolated_inverted_cdf, quantile_method::hazen, quantile_method::weibull,
        quantile_method::linear, quantile_method::median_unbiased, quantile_method::normal_unbiased,
        quantile_method::lower, quantile_method::higher, quantile_method::midpoint, quantile_method::nearest};
    struct row {
        int n;
        double q;
        std::array<double, method_count> expected;
    };
    const std::array<row, 6> rows{{
        {10, 0.5, {5, 5.5, 5, 5, 5.5, 5.5, 5.5, 5.5, 5.5, 5, 6, 5.5, 5}},
        {10, 0.9, {9, 9.5, 9, 9, 9.5, 9.9, 9.1, 9.0 + 19.0 / 30.0, 9.6, 9, 10, 9.5, 9}},
        {10, 0.99, {10, 10, 10, 9.9, 10, 10, 9.91, 10, 10, 9, 10, 9.5, 10}},
        {100, 0.5, {50, 50.5, 50, 50, 50.5, 50.5, 50.5, 50.5, 50.5, 50, 51, 50.5, 51}},
        {100, 0.99, {99, 99.5, 99, 99, 99.5, 99.99, 99.01, 99.0 + 199.0 / 300.0, 99.6225, 99, 100, 99.5, 99}},
        {100, 0.999, {100, 100, 100, 99.9, 100, 100, 99.901, 100, 100, 99, 100, 99.5, 100}},
    }};
    for (const row& r : rows) {
        std::vector<double> data;
        for (int i = 1; i <= r.n; ++i) data.push_back(i);
        for (std::size_t col = 0; col < method_count; ++col) {
            INFO("1.." << r.n << ", q=" << r.q << ", method " << servestat::to_string(columns[col]));
            CHECK(servestat::quantile_sorted(data, r.q, columns[col]) == Approx(r.expected[col]).epsilon(1e-12));
        }
    }
}

TEST_CASE("nearest rounds half to even like numpy's own test_nearest", "[quantile]") {
    const std::vector<double> arange10{0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    CHECK(servestat::percentile_sorted(arange10, 51, quantile_method::nearest) == 5);
    CHECK(servestat::percentile_sorted(arange10, 49, quantile_method::nearest) == 4);
    // (n-1)q = 4.5 exactly: half to even picks index 4, not 5.
    CHECK(servestat::percentile_sorted(arange10, 50, quantile_method::nearest) == 4);
    const std::vector<double> three{10, 20, 30};
    CHECK(servestat::percentile_sorted(three, 25, quantile_method::nearest) == 10); // 0.5 -> 0
    CHECK(servestat::percentile_sorted(three, 75, quantile_method::nearest) == 30); // 1.5 -> 2
}

TEST_CASE("closest_observation keeps numpy 1.24's tie rule", "[quantile]") {
    // n*q - 1.5 = 1.0 exactly; numpy 1.24 takes the previous element only when its 0-based index is even,
    // so it moves on to y[2] = 3 (R's type 3 would give 2).
    const std::vector<double> one_to_ten{1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    CHECK(servestat::quantile_sorted(one_to_ten, 0.25, quantile_method::closest_observation) == 3);
    // n*q - 1.5 = 2.0: even index, stays on y[2].
    CHECK(servestat::quantile_sorted(one_to_ten, 0.35, quantile_method::closest_observation) == 3);
}

TEST_CASE("p = 0 gives the minimum and p = 100 the maximum for every method", "[quantile]") {
    const std::vector<double> sorted{-4.5, -1, 0, 0.25, 3, 3, 8, 1e9};
    for (quantile_method m : servestat::all_quantile_methods()) {
        INFO("method " << servestat::to_string(m));
        CHECK(servestat::percentile_sorted(sorted, 0, m) == sorted.front());
        CHECK(servestat::percentile_sorted(sorted, 100, m) == sorted.back());
        CHECK(servestat::quantile_sorted(std::span<const double>(sorted).first(1), 0.37, m) == sorted.front());
    }
}

TEST_CASE("method names round-trip and unknown names are listed", "[quantile]") {
    const auto methods = servestat::all_quantile_methods();
    REQUIRE(methods.size() == method_count);
    CHECK(methods.front() == quantile_method::linear);
    CHECK(methods.back() == quantile_method::normal_unbiased);
    for (std::size_t i = 0; i < methods.size(); ++i) {
        CHECK(static_cast<std::size_t>(methods[i]) == i);
        CHECK(servestat::parse_quantile_method(servestat::to_string(methods[i])) == methods[i]);
    }
    CHECK(servestat::to_string(quantile_method::interpolated_inverted_cdf) == "interpolated_inverted_cdf");

    CHECK_THROWS_AS(servestat::parse_quantile_method("Linear"), servestat::usage_error);
    try {
        servestat::parse_quantile_method("type7");
        FAIL("parse_quantile_method accepted 'type7'");
    } catch (const servestat::usage_error& e) {
        const std::string message = e.what();
        CHECK(message.find("type7") != std::string::npos);
        for (quantile_method m : methods) {
            INFO("message: " << message);
            CHECK(message.find(std::string(servestat::to_string(m))) != std::string::npos);
        }
    }
}

TEST_CASE("bad input throws usage_error", "[quantile]") {
    const std::vector<double> empty;
    std::vector<double> empty_mutable;
    const std::vector<double> ps{50};
    CHECK_THROWS_AS(servestat::quantile_sorted(empty, 0.5), servestat::usage_error);
    CHECK_THROWS_AS(servestat::percentile_sorted(empty, 50), servestat::usage_error);
    CHECK_THROWS_AS(servestat::percentiles_select(empty_mutable, ps), servestat::usage_error);
    CHECK_THROWS_AS(servestat::percentiles_select(empty_mutable, std::span<const double>{}), servestat::usage_error);

    const std::vector<double> sorted{1, 2, 3};
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    for (double p : {-1e-9, -1.0, 100.0000001, 101.0, nan, inf, -inf}) {
        INFO("p=" << p);
        CHECK_THROWS_AS(servestat::percentile_sorted(sorted, p), servestat::usage_error);
    }
    for (double q : {-0.1, 1.0000001, nan, inf}) {
        INFO("q=" << q);
        CHECK_THROWS_AS(servestat::quantile_sorted(sorted, q), servestat::usage_error);
    }
    CHECK_THROWS_WITH(servestat::percentile_sorted(sorted, 1e3), Catch::Matchers::Contains("[0, 100]"));

    // A bad p anywhere in the list is reported before the values are reordered.
    std::vector<double> values{3, 1, 2};
    const std::vector<double> mixed{50, 150};
    CHECK_THROWS_AS(servestat::percentiles_select(values, mixed), servestat::usage_error);
    CHECK(values == std::vector<double>{3, 1, 2});
    CHECK(servestat::percentiles_select(values, std::span<const double>{}).empty());
}

} // namespace test_quantile
