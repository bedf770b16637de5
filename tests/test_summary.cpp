// Tests for servestat/stats/summary.hpp and compensated_sum.hpp: sums and means against exact
// arithmetic (Python's math.fsum and fractions), min and max bit for bit.
#include "servestat/stats/summary.hpp"

#include <algorithm>  // std::max
#include <cmath>      // std::fabs
#include <cstdlib>    // std::getenv
#include <fstream>    // std::ifstream
#include <iostream>   // std::cout
#include <string>     // std::string
#include <vector>     // std::vector

#include <catch2/catch.hpp>  // TEST_CASE, REQUIRE, CHECK, FAIL, INFO
#include <nlohmann/json.hpp> // nlohmann::json

#include "hex_doubles.hpp" // from_hex, doubles_from_hex, same_bits

#include "servestat/stats/compensated_sum.hpp" // compensated_sum

namespace test_summary { // the unity build compiles several test files as one: each keeps its names

namespace {

using servestat::test::doubles_from_hex;
using servestat::test::from_hex;
using servestat::test::same_bits;

double relative_error(double got, double exact) {
    if (got == exact) return 0;
    return std::fabs(got - exact) / std::max(std::fabs(exact), 1e-300);
}

// FAILs (never silently passes) when the ctest fixture that writes the file did not run.
nlohmann::json load_exact_reference() {
    const char* path = std::getenv("SERVESTAT_EXACT_MOMENTS");
    if (path == nullptr || *path == '\0')
        FAIL("SERVESTAT_EXACT_MOMENTS is not set: run tests/tools/exact_moments_reference.py OUT.json "
             "with /usr/bin/python3 and point the variable at OUT.json");
    std::ifstream in(path);
    if (!in) FAIL("cannot open SERVESTAT_EXACT_MOMENTS=" << path);
    return nlohmann::json::parse(in);
}

constexpr double tolerance = 1e-15; // relative: a few roundings of a double (2^-53 ≈ 1.1e-16 each)

} // namespace

TEST_CASE("A summary's mean, std, min and max agree with exact arithmetic", "[summary][exact]") {
    const nlohmann::json reference = load_exact_reference();
    REQUIRE(reference.at("cases").size() >= 10);
    double worst_mean = 0, worst_std = 0;
    for (const auto& c : reference.at("cases")) {
        const std::vector<double> data = doubles_from_hex(c.at("data"));
        const auto& expected = c.at("expected");
        INFO("case " << c.at("name").get<std::string>() << " (n=" << data.size() << ")");
        for (int ddof : {0, 1}) {
            const auto s = servestat::summarize(data, {.ddof = ddof, .percentiles = {}});
            REQUIRE(s.n == data.size());
            CHECK(same_bits(*s.min, from_hex(expected.at("min"))));
            CHECK(same_bits(*s.max, from_hex(expected.at("max"))));
            const double mean = from_hex(expected.at("mean"));
            INFO("mean " << *s.mean << " exact " << mean);
            CHECK(relative_error(*s.mean, mean) <= tolerance);
            worst_mean = std::max(worst_mean, relative_error(*s.mean, mean));
            const std::string std_key = "std_ddof" + std::to_string(ddof);
            if (!expected.contains(std_key)) {
                CHECK_FALSE(s.std.has_value());
                continue;
            }
            const double exact_std = from_hex(expected.at(std_key));
            INFO("ddof " << ddof << ": std " << *s.std << " exact " << exact_std);
            CHECK(relative_error(*s.std, exact_std) <= tolerance);
            worst_std = std::max(worst_std, relative_error(*s.std, exact_std));
        }
    }
    std::cout << "exact moments: worst relative error of the mean " << worst_mean << ", of the std " << worst_std << "\n";
}

TEST_CASE("compensated_sum agrees with math.fsum, whole and merged from pieces", "[summary][exact]") {
    const nlohmann::json reference = load_exact_reference();
    for (const auto& c : reference.at("cases")) {
        const std::vector<double> data = doubles_from_hex(c.at("data"));
        const double exact = from_hex(c.at("expected").at("sum"));
        INFO("case " << c.at("name").get<std::string>() << ": fsum " << exact);

        servestat::compensated_sum whole;
        for (double x : data) whole.add(x);
        CHECK(relative_error(whole.value(), exact) <= tolerance);

        // Seven uneven pieces summed apart and merged, as parallel chunks or shards would be.
        servestat::compensated_sum merged;
        std::size_t begin = 0;
        for (std::size_t piece = 1; begin < data.size(); ++piece) {
            const std::size_t end = std::min(data.size(), begin + piece * data.size() / 20 + 1);
            servestat::compensated_sum part;
            for (std::size_t i = begin; i < end; ++i) part.add(data[i]);
            merged.merge(part);
            begin = end;
        }
        CHECK(relative_error(merged.value(), exact) <= tolerance);
    }
}

TEST_CASE("A running sum loses what compensated_sum keeps", "[summary][exact]") {
    // 1e12 + 10,000 × 1e-5 − 1e12: each 1e-5 is below half an ulp of 1e12 (2^-13 / 2 ≈ 6.1e-5),
    // so a running sum drops every one and ends at 0; the exact sum is 0.1 (to within 1e-5's rounding).
    std::vector<double> xs{1e12};
    xs.insert(xs.end(), 10'000, 1e-5);
    xs.push_back(-1e12);
    double running = 0;
    servestat::compensated_sum compensated;
    for (double x : xs) {
        running += x;
        compensated.add(x);
    }
    CHECK(running == 0.0);
    CHECK(std::fabs(compensated.value() - 0.1) < 1e-15);
    const auto s = servestat::summarize(xs, {.percentiles = {}});
    CHECK(std::fabs(*s.mean - 0.1 / 10'002) < 1e-15 / 10'002);
}

TEST_CASE("min and max are values of the data even far from the first value") {
    // The old summary shifted every value by the first before accumulating, and (x − first) + first
    // is not always x: here it gave 0.0026106415094340127 for this minimum.
    const std::vector<double> xs{0.054, 0.0026106415094340153, 0.03125};
    const auto s = servestat::summarize(xs, {.percentiles = {}});
    CHECK(same_bits(*s.min, 0.0026106415094340153));
    CHECK(same_bits(*s.max, 0.054));
}

} // namespace test_summary
