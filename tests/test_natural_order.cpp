// natural_less: names with numbers in them sort as people count (c1 < c2 < c16 < c32).
#include <catch2/catch.hpp> // Catch2 v2

#include <algorithm> // std::sort, std::is_sorted
#include <string>    // std::string
#include <vector>    // std::vector

#include "servestat/core/natural_order.hpp"

namespace test_natural_order { // the unity build compiles several test files as one: each keeps its names

using servestat::natural_less;

TEST_CASE("natural_less orders digit runs as numbers", "[natural_order]") {
    CHECK(natural_less("c1", "c2"));
    CHECK(natural_less("c2", "c16"));
    CHECK(natural_less("c16", "c32"));
    CHECK_FALSE(natural_less("c32", "c16"));
    CHECK(natural_less("run 9", "run 10"));
    CHECK(natural_less("bad-c8", "bad-c48"));
    // numbers longer than any integer type still compare by value
    CHECK(natural_less("x99999999999999999999999", "x100000000000000000000000"));
}

TEST_CASE("natural_less compares text byte by byte and prefixes first", "[natural_order]") {
    CHECK(natural_less("bad-c64", "fair-c1"));
    CHECK(natural_less("c", "c1"));
    CHECK(natural_less("c1", "c1a"));
    CHECK(natural_less("Z", "a")); // bytes: upper case first
    CHECK_FALSE(natural_less("", ""));
    CHECK(natural_less("", "a"));
}

TEST_CASE("natural_less is a strict weak order: irreflexive, names equal as numbers told apart", "[natural_order]") {
    for (const char* s : {"c1", "c01", "", "007", "a1b2"}) CHECK_FALSE(natural_less(s, s));
    // equal as numbers, different bytes: exactly one of the two is less
    CHECK(natural_less("c01", "c1") != natural_less("c1", "c01"));
    CHECK(natural_less("x1y02", "x1y2") != natural_less("x1y2", "x1y02"));
}

TEST_CASE("sorting a sweep's run names with natural_less lists levels in the order they were run", "[natural_order]") {
    std::vector<std::string> names{"bad-c16", "bad-c1", "bad-c64", "bad-c2", "bad-c32", "bad-c4", "bad-c48", "bad-c8"};
    std::sort(names.begin(), names.end(), [](const std::string& a, const std::string& b) { return natural_less(a, b); });
    CHECK(names == std::vector<std::string>{"bad-c1", "bad-c2", "bad-c4", "bad-c8", "bad-c16", "bad-c32", "bad-c48",
                                            "bad-c64"});
}

TEST_CASE("natural_less is transitive over a mixed set", "[natural_order]") {
    const std::vector<std::string> names{"a", "a0", "a00", "a1", "a01", "a1b", "a2", "a10", "a-1", "a_1", "b", "1", "01",
                                         "10", "9", "", "a1.5", "a1.10"};
    for (const auto& a : names)
        for (const auto& b : names)
            for (const auto& c : names)
                if (natural_less(a, b) && natural_less(b, c)) CHECK(natural_less(a, c));
    auto sorted = names;
    std::sort(sorted.begin(), sorted.end(), [](const std::string& a, const std::string& b) { return natural_less(a, b); });
    CHECK(std::is_sorted(sorted.begin(), sorted.end(),
                         [](const std::string& a, const std::string& b) { return natural_less(a, b); }));
}

} // namespace test_natural_order
