// A pattern the user gives is refused before it can crash or hang servestat: std::regex compiles by
// recursion and matches by backtracking without bound (reliability findings H12, M11).
#include <regex>  // std::regex_search
#include <string> // std::string

#include <catch2/catch.hpp> // TEST_CASE, CHECK, CHECK_THROWS_WITH

#include "servestat/core/user_regex.hpp" // compile_user_regex

namespace test_user_regex { // the unity build compiles several test files as one

using namespace servestat;

TEST_CASE("patterns that name parts of paths compile and match") {
    for (const std::string p : {R"(_([0-9]+b)\.json$)", "-(short|medium|long)-", R"(^results/(spark|ubuntu))", "(.*)_c(\\d+)",
                                "[a-z]+-[0-9]{2,}", "(?:tp|dp)([0-9]+)", R"((\d+)x(\d+))", "(a|b)*c", "(ab)+"}) {
        INFO(p);
        CHECK_NOTHROW(compile_user_regex("--group-by m", p));
    }
    CHECK(std::regex_search(std::string("run_13b.json"), compile_user_regex("--group-by size", R"(_([0-9]+b)\.json$)")));
}

TEST_CASE("groups nested beyond 32 levels are refused, not compiled by a recursion that overflows the stack") {
    const std::string deep = std::string(30000, '(') + "x" + std::string(30000, ')');
    CHECK_THROWS_WITH(compile_user_regex("--group-by m", deep), Catch::Contains("longer than 1000 characters"));
    const std::string nested = std::string(40, '(') + "x" + std::string(40, ')');
    CHECK_THROWS_WITH(compile_user_regex("--group-by m", nested), Catch::Contains("groups nested more than 32 deep"));
}

TEST_CASE("a repetition of a repetition is refused: (a+)+ backtracks exponentially") {
    for (const std::string p : {"(a+)+$", "(a*)*b", R"((\d+)*x)", "([a-z]+)+$", "((ab)+c)+", "(a{2,})+", "(x+y)+"}) {
        INFO(p);
        CHECK_THROWS_WITH(compile_user_regex("--factor m", p), Catch::Contains("exponential time"));
    }
}

TEST_CASE("a repeated group of alternatives is refused where they may match the same text") {
    for (const std::string p : {"(a|aa)+c", "(?:ab|a)*$", "(.|x)+", "([0-9]|1)+"}) {
        INFO(p);
        CHECK_THROWS_WITH(compile_user_regex("--group-by m", p), Catch::Contains("alternatives that may match the same text"));
    }
    for (const std::string p : {"(tp|dp)+", "(?:short|long)*-", "(a|b)?c", "(a|aa)c"}) { // distinct words, or not repeated
        INFO(p);
        CHECK_NOTHROW(compile_user_regex("--group-by m", p));
    }
}

TEST_CASE("an invalid pattern names the flag and the pattern") {
    CHECK_THROWS_WITH(compile_user_regex("--group-by size", "_([0-9]+b"), Catch::Contains("--group-by size=_([0-9]+b: invalid regular expression"));
}

} // namespace test_user_regex
