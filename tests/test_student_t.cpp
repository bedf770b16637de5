// Student's t quantiles and the t-interval of a mean. Expected critical values are the published
// table's (t_{0.975, 1} = 12.706205, t_{0.975, 2} = 4.302653, t_{0.975, 4} = 2.776445,
// t_{0.95, 2} = 2.919986, t_{0.995, 9} = 3.249836); those at fractional degrees of freedom, which
// tables do not list, come from integrating the t density numerically (Simpson's rule, 200,000
// steps, in Python's math) and solving P(T > t) = 0.025 by bisection.
#include <catch2/catch.hpp> // Catch2 v2

#include <cmath> // std::sqrt

#include "servestat/stats/student_t.hpp"

namespace test_student_t { // the unity build compiles several test files as one

using servestat::mean_t_interval;
using servestat::student_t_critical;

TEST_CASE("two-sided t critical values equal the published table", "[student_t]") {
    CHECK(*student_t_critical(1, 0.95) == Approx(12.706205).margin(5e-7));
    CHECK(*student_t_critical(2, 0.95) == Approx(4.302653).margin(5e-7));
    CHECK(*student_t_critical(4, 0.95) == Approx(2.776445).margin(5e-7));
    CHECK(*student_t_critical(2, 0.90) == Approx(2.919986).margin(5e-7));
    CHECK(*student_t_critical(9, 0.99) == Approx(3.249836).margin(5e-7));
}

TEST_CASE("fractional degrees of freedom (Welch's) are quantiles of the t density", "[student_t]") {
    CHECK(*student_t_critical(5.5, 0.95) == Approx(2.5018586175892805).epsilon(1e-9));
    CHECK(*student_t_critical(3.2, 0.95) == Approx(3.072828929712955).epsilon(1e-9));
}

TEST_CASE("no critical value without degrees of freedom or with a confidence outside (0, 1)", "[student_t]") {
    CHECK_FALSE(student_t_critical(0, 0.95));
    CHECK_FALSE(student_t_critical(-1, 0.95));
    CHECK_FALSE(student_t_critical(3, 1.0));
    CHECK_FALSE(student_t_critical(3, 0.0));
}

TEST_CASE("a mean's t-interval is mean ± t·s/√n, none below two values", "[student_t]") {
    // Three runs at 96, 97, 98 req/s: mean 97, s = 1, half-width 4.302653 / √3 = 2.484138.
    const auto i = mean_t_interval(97, 1, 3, 0.95);
    REQUIRE(i);
    CHECK(i->low == Approx(97 - 4.302653 / std::sqrt(3.0)).epsilon(1e-7));
    CHECK(i->high == Approx(97 + 2.484138).epsilon(1e-7));
    CHECK_FALSE(mean_t_interval(97, 0, 1, 0.95));
}

} // namespace test_student_t
