// Plot scales: 1-2-5 ticks covering the data, log decades, tick labels in seconds, when to go log.
#include <catch2/catch.hpp> // Catch2 v2

#include <vector> // std::vector

#include "servestat/plot/scale.hpp"

namespace test_plot_scale { // the unity build compiles several test files as one: each keeps its names

using namespace servestat::plot;

TEST_CASE("linear ticks of [0, 9.3] are 0, 2, 4, 6, 8, 10", "[plot]") {
    CHECK(linear_ticks(0, 9.3) == std::vector<double>{0, 2, 4, 6, 8, 10});
}

TEST_CASE("linear ticks of [0, 1] step by 0.2 and print without float noise", "[plot]") {
    CHECK(linear_ticks(0, 1) == std::vector<double>{0, 0.2, 0.4, 0.6, 0.8, 1});
    const scale s(0, 1, 0, 100, false);
    std::vector<std::string> labels;
    for (const auto& t : s.ticks()) labels.push_back(t.label);
    CHECK(labels == std::vector<std::string>{"0", "0.2", "0.4", "0.6", "0.8", "1"});
}

TEST_CASE("linear ticks widen to cover a domain away from zero", "[plot]") {
    // span 0.074, a fifth is 0.0148, the next 1-2-5 step 0.02
    CHECK(linear_ticks(0.013, 0.087) == std::vector<double>{0, 0.02, 0.04, 0.06, 0.08, 0.1});
    CHECK(linear_ticks(-3, 7) == std::vector<double>{-4, -2, 0, 2, 4, 6, 8});
}

TEST_CASE("linear ticks number between 4 and 8 and cover the domain", "[plot]") {
    for (double hi : {0.7, 1.0, 2.5, 3.3, 5.01, 9.3, 10.0, 17.0, 42.0, 99.0, 101.0, 1234.0}) {
        const auto t = linear_ticks(0, hi);
        CHECK(t.size() >= 4);
        CHECK(t.size() <= 8);
        CHECK(t.front() <= 0);
        CHECK(t.back() >= hi);
    }
}

TEST_CASE("log ticks over three decades are the powers of ten", "[plot]") {
    CHECK(log_ticks(0.01, 10) == std::vector<double>{0.01, 0.1, 1, 10});
    CHECK(log_ticks(0.003, 4) == std::vector<double>{0.001, 0.01, 0.1, 1, 10});
}

TEST_CASE("log ticks under two decades add 2 and 5", "[plot]") {
    CHECK(log_ticks(0.1, 5) == std::vector<double>{0.1, 0.2, 0.5, 1, 2, 5, 10});
}

TEST_CASE("a log scale maps decades to equal pixel distances", "[plot]") {
    const scale s(0.01, 10, 0, 300, true);
    CHECK(s.is_log());
    CHECK(s(0.01) == Approx(0));
    CHECK(s(0.1) == Approx(100));
    CHECK(s(1) == Approx(200));
    CHECK(s(10) == Approx(300));
}

TEST_CASE("format_seconds picks ms below a second and s above", "[plot]") {
    CHECK(format_seconds(0.25) == "250 ms");
    CHECK(format_seconds(1.5) == "1.5 s");
    CHECK(format_seconds(2) == "2 s");
    CHECK(format_seconds(0.0125) == "12.5 ms");
    CHECK(format_seconds(0.00008) == "80 µs");
    CHECK(format_seconds(0) == "0 s");
    CHECK(format_seconds(-0.0) == "0 s");
    CHECK(format_seconds(1234.5) == "1234.5 s");
}

TEST_CASE("seconds axes label their ticks with units", "[plot]") {
    const scale s(0, 2, 0, 100, false, axis_unit::seconds);
    std::vector<std::string> labels;
    for (const auto& t : s.ticks()) labels.push_back(t.label);
    CHECK(labels == std::vector<std::string>{"0 s", "500 ms", "1 s", "1.5 s", "2 s"});
}

TEST_CASE("an axis label ending in (s) means seconds", "[plot]") {
    CHECK(resolve_unit(axis_unit::from_label, "end-to-end latency (s)") == axis_unit::seconds);
    CHECK(resolve_unit(axis_unit::from_label, "output tokens") == axis_unit::plain);
    CHECK(resolve_unit(axis_unit::plain, "time (s)") == axis_unit::plain);
}

TEST_CASE("spans_decades needs positive data spanning a factor of 100", "[plot]") {
    CHECK(spans_decades(0.01, 1));
    CHECK(spans_decades(0.005, 3));
    CHECK_FALSE(spans_decades(0.02, 1));
    CHECK_FALSE(spans_decades(0, 100));
    CHECK_FALSE(spans_decades(-1, 100));
}

} // namespace test_plot_scale
