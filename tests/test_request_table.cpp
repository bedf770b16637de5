// The request table stores times as microseconds, counts in 16 bits and error texts only where a
// request has one, while that loses nothing: every value reads back bit for bit as it was stored,
// whichever way the table holds it, after appending pieces held either way.
#include "servestat/core/request_table.hpp"

#include <cmath>   // std::llround
#include <cstddef> // std::size_t
#include <random>  // std::mt19937_64, std::uniform_int_distribution
#include <vector>  // std::vector

#include <catch2/catch.hpp> // TEST_CASE, SECTION, REQUIRE, CHECK, INFO

namespace test_request_table { // the unity build compiles several test files as one: each keeps its names

using servestat::request_record;
using servestat::request_status;
using servestat::request_table;

namespace {

// Requests as a driver writing six decimals logs them, with now and then an absent field, an
// error or a request without a send time (its other times then count from 0).
std::vector<request_record> logged_requests(std::size_t n, unsigned seed) {
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int> micros(0, 3'000'000), die(0, 9), tokens(0, 4000);
    std::vector<request_record> out;
    double clock = 1'000.0; // a run already 1000 s old: t_sent is not small
    for (std::size_t i = 0; i < n; ++i) {
        clock += micros(rng) / 1e6 / 1000;
        request_record r;
        const auto at = [&](double base, int offset) { return (std::llround(base * 1e6) + offset) / 1e6; };
        if (die(rng) != 0) r.t_sent = at(clock, 0);
        r.t_sched = at(clock, -micros(rng) / 100);
        if (die(rng) != 1) r.t_first = at(clock, micros(rng) / 10);
        r.t_end = at(clock, micros(rng));
        r.prompt_tokens = tokens(rng);
        if (die(rng) != 2) r.output_tokens = tokens(rng);
        r.max_tokens = 128;
        if (die(rng) == 3) {
            r.status = request_status::error;
            r.error = die(rng) < 5 ? "overloaded" : "timeout";
        }
        r.http_status = r.status == request_status::ok ? 200 : 503;
        out.push_back(r);
    }
    return out;
}

request_table table_of(const std::vector<request_record>& records) {
    request_table t;
    for (const auto& r : records) t.push_back(r);
    return t;
}

void require_rows(const request_table& t, const std::vector<request_record>& records) {
    REQUIRE(t.size() == records.size());
    for (std::size_t i = 0; i < records.size(); ++i) {
        INFO("row " << i);
        REQUIRE(servestat::identical(t.row(i), records[i]));
    }
}

} // namespace

TEST_CASE("Times written with six decimals are held as microseconds and read back bit for bit", "[table]") {
    const auto records = logged_requests(5000, 1);
    const auto t = table_of(records);
    CHECK(t.times_in_micros());
    require_rows(t, records);
    // The column views agree with the rows, and an absent time reads as NaN.
    CHECK(t.t_sent()[0] == *records[0].t_sent);
    std::size_t absent = 0;
    for (double sent : t.t_sent()) absent += !servestat::is_present(sent);
    CHECK(absent > 300);
}

TEST_CASE("A time that is not whole microseconds turns the table to doubles, losing nothing", "[table]") {
    auto records = logged_requests(2000, 2);
    records[1500].t_sent = 1000.25;
    SECTION("a seventh decimal") { records[1500].t_first = 1000.2500001; }
    SECTION("minus zero, which microseconds cannot tell from zero") { records[1500].t_sched = -0.0; }
    SECTION("a time too large for 53 bits of microseconds") { records[1500].t_end = 1e11 + 0.5e-6; }
    SECTION("a time too far from its send for 32 bits of microseconds") { records[1500].t_end = 3200.25; }
    const auto t = table_of(records);
    CHECK_FALSE(t.times_in_micros());
    require_rows(t, records);
}

TEST_CASE("A token count over 16 bits widens the column, losing nothing", "[table]") {
    auto records = logged_requests(1000, 3);
    records[10].prompt_tokens = 65534;   // the largest that fits
    records[700].prompt_tokens = 65535;  // the narrow column's mark for absent: widens
    records[800].output_tokens = 200000;
    const auto t = table_of(records);
    require_rows(t, records);
    CHECK(t.prompt_tokens()[10] == 65534);
    CHECK(t.prompt_tokens()[700] == 65535);
    CHECK(t.output_tokens()[800] == 200000);
}

TEST_CASE("Error texts are kept for the rows that have one", "[table]") {
    const auto records = logged_requests(3000, 4);
    const auto t = table_of(records);
    for (std::size_t i = 0; i < records.size(); ++i) {
        INFO("row " << i);
        REQUIRE(t.error(i) == records[i].error);
    }
    CHECK(t.error_strings().size() == 3); // "", "overloaded", "timeout"
}

TEST_CASE("Appending pieces held either way gives the table of all their rows", "[table]") {
    const auto first = logged_requests(1500, 5);
    auto second = logged_requests(1200, 6), third = logged_requests(900, 7);
    second[600].t_end = 2000.3333333333; // this piece holds doubles
    third[100].output_tokens = 70000;                        // this one 32-bit counts
    third[200].server_queue = 0.25;                          // and a column the others lack
    third[300].error = "a third text";

    for (const auto& order : {std::vector<int>{0, 1, 2}, std::vector<int>{0, 2}, std::vector<int>{2, 0}}) {
        const std::vector<const std::vector<request_record>*> pieces{&first, &second, &third};
        request_table joined = table_of(*pieces[static_cast<std::size_t>(order[0])]);
        auto expected = *pieces[static_cast<std::size_t>(order[0])];
        for (std::size_t k = 1; k < order.size(); ++k) {
            const auto& piece = *pieces[static_cast<std::size_t>(order[k])];
            joined.append(table_of(piece));
            expected.insert(expected.end(), piece.begin(), piece.end());
        }
        INFO("pieces " << order[0] << " then " << order[1]);
        require_rows(joined, expected);
        CHECK(joined.server_queue().size() == expected.size()); // backfilled on both sides of the row that has it
    }
}

} // namespace test_request_table
