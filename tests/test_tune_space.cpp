// Tests for servestat/load/tune_space.hpp: `--space` parsing and its errors, the grid a space spans,
// configuration names (as --grid names them), neighbours, and the server command of a configuration.
// Expected values are worked out by hand from the header's documented rules.
#include "servestat/load/tune_space.hpp"

#include <cstddef>     // std::size_t
#include <string>      // std::string
#include <string_view> // std::string_view
#include <vector>      // std::vector

#include <catch2/catch.hpp>  // TEST_CASE, SECTION, REQUIRE, CHECK, CHECK_THROWS_AS
#include <nlohmann/json.hpp> // nlohmann::ordered_json

namespace test_tune_space { // the unity build compiles several test files as one: each keeps its names

namespace {

using json = nlohmann::ordered_json;
using servestat::usage_error;
using servestat::load::check_server_command;
using servestat::load::combinations;
using servestat::load::grid_points;
using servestat::load::grid_size;
using servestat::load::in_space;
using servestat::load::neighbours_of;
using servestat::load::parse_space;
using servestat::load::parse_space_dimension;
using servestat::load::server_command;
using servestat::load::tune_point;
using servestat::load::tune_space;

std::vector<json> values_of(std::string_view text) { return parse_space_dimension(text).values; }

// Checks that parsing `text` fails with a usage_error naming --space, the text and `why`.
void require_space_error(std::string_view text, std::string_view why) {
    INFO("text: " << text);
    try {
        (void)parse_space_dimension(text);
        FAIL("no error");
    } catch (const usage_error& e) {
        CHECK_THAT(e.what(), Catch::Contains("--space"));
        CHECK_THAT(e.what(), Catch::Contains(std::string(text)));
        CHECK_THAT(e.what(), Catch::Contains(std::string(why)));
    }
}

// The space of the issue's example: 5 × 6 × 2 = 60 configurations.
tune_space issue_space() {
    return parse_space({"max_num_seqs=16..256", "max_num_batched_tokens=512..16384", "enable_chunked_prefill=on,off"});
}

} // namespace

TEST_CASE("tune space: a range of powers of two is every doubling from its low end to its high end") {
    CHECK(values_of("max_num_seqs=16..256") == std::vector<json>{16, 32, 64, 128, 256});
    CHECK(values_of("max_num_batched_tokens=512..16384") == std::vector<json>{512, 1024, 2048, 4096, 8192, 16384});
    CHECK(values_of("x=1..4") == std::vector<json>{1, 2, 4});
}

TEST_CASE("tune space: a range's ends are kept when they are not powers of two") {
    // 100, then the powers of two strictly between 100 and 1000 (128, 256, 512), then 1000.
    CHECK(values_of("x=100..1000") == std::vector<json>{100, 128, 256, 512, 1000});
    CHECK(values_of("x=3..5") == std::vector<json>{3, 4, 5});
    CHECK(values_of("x=5..7") == std::vector<json>{5, 7}); // no power of two between
    CHECK(values_of("x=8..8") == std::vector<json>{8});
}

TEST_CASE("tune space: range values are JSON numbers, as the logs' params record them") {
    const auto v = values_of("max_num_seqs=16..64");
    REQUIRE(v.size() == 3);
    CHECK(v[0].is_number_integer());
    CHECK(v[2].get<int>() == 64);
}

TEST_CASE("tune space: a list of numbers is sorted so that neighbouring values are the nearest") {
    CHECK(values_of("max_num_batched_tokens=2048,512,768,1024") == std::vector<json>{512, 768, 1024, 2048});
    CHECK(values_of("gpu_memory_utilization=0.9,0.85") == std::vector<json>{0.85, 0.9});
}

TEST_CASE("tune space: a list of words keeps the order given") {
    CHECK(values_of("enable_chunked_prefill=on,off") == std::vector<json>{"on", "off"});
    CHECK(values_of("kv_cache_dtype=fp8,auto") == std::vector<json>{"fp8", "auto"});
    CHECK(values_of("x=one") == std::vector<json>{"one"});
}

TEST_CASE("tune space: malformed specs are usage errors naming --space, the text and what is wrong") {
    require_space_error("max_num_seqs", "expected NAME=LO..HI or NAME=a,b,c");
    require_space_error("max_num_seqs=", "expected NAME=LO..HI or NAME=a,b,c");
    require_space_error("=1..4", "the name ''");
    require_space_error("max num=1..4", "the name 'max num'");
    require_space_error("x=4..1", "low end 4 lies above its high end 1");
    require_space_error("x=0..4", "range end '0'");
    require_space_error("x=-1..4", "range end '-1'");
    require_space_error("x=1.5..4", "range end '1.5'");
    require_space_error("x=a..b", "range end 'a'");
    require_space_error("x=1..", "range end ''");
    require_space_error("x=..8", "range end ''");
    require_space_error("x=1..99999999999999999999999", "range end '99999999999999999999999'");
    require_space_error("x=1..2199023255553", "range end '2199023255553'"); // 2^41 + 1: past 2^40
    require_space_error("x=1,,2", "empty value");
    require_space_error("x=1,2,", "empty value");
    require_space_error("x=16,32,16", "the value '16' is listed twice");
    require_space_error("x=1..4,8", "'1..4': a range is a SPEC of its own");
}

TEST_CASE("tune space: a name given twice is a usage error") {
    try {
        (void)parse_space({"max_num_seqs=16..64", "max_num_seqs=8,16"});
        FAIL("no error");
    } catch (const usage_error& e) {
        CHECK_THAT(e.what(), Catch::Contains("--space max_num_seqs=8,16"));
        CHECK_THAT(e.what(), Catch::Contains("has a --space already"));
    }
    CHECK_THROWS_AS(parse_space({}), usage_error);
}

TEST_CASE("tune space: the grid is the product of the dimensions' value counts") {
    const auto space = issue_space();
    CHECK(grid_size(space) == 60);
    CHECK(grid_points(space).size() == 60);
    CHECK(grid_size(parse_space({"x=7..7"})) == 1);
}

TEST_CASE("tune space: the grid's order and names are --grid's") {
    const auto space = issue_space();
    const auto points = grid_points(space);
    const auto configs = combinations(space.dimensions);
    REQUIRE(points.size() == configs.size());
    for (std::size_t i = 0; i < points.size(); ++i) {
        CHECK(servestat::load::configuration_of(space, points[i]) == configs[i]);
        CHECK(servestat::load::configuration_name(space, points[i]) == servestat::load::configuration_name(configs[i]));
    }
    // The first dimension varies slowest: point 0 is (0, 0, 0), point 1 (0, 0, 1), point 2 (0, 1, 0).
    CHECK(points[1] == tune_point{0, 0, 1});
    CHECK(points[2] == tune_point{0, 1, 0});
    CHECK(servestat::load::configuration_name(space, {2, 1, 0}) ==
          "max_num_seqs64-max_num_batched_tokens1024-enable_chunked_prefillon");
}

TEST_CASE("tune space: a configuration outside the space is refused") {
    const auto space = issue_space();
    CHECK(in_space(space, {4, 5, 1}));
    CHECK_FALSE(in_space(space, {5, 0, 0}));
    CHECK_FALSE(in_space(space, {0, 0}));
    CHECK_THROWS_AS(servestat::load::configuration_name(space, {0, 6, 0}), usage_error);
}

TEST_CASE("tune space: neighbours are one value away along one dimension, lower before higher") {
    const auto space = parse_space({"a=1..16", "b=1..64"}); // 5 × 7 values
    CHECK(neighbours_of(space, {2, 3}) == std::vector<tune_point>{{1, 3}, {3, 3}, {2, 2}, {2, 4}});
    CHECK(neighbours_of(space, {0, 0}) == std::vector<tune_point>{{1, 0}, {0, 1}});
    CHECK(neighbours_of(space, {4, 6}) == std::vector<tune_point>{{3, 6}, {4, 5}});
    CHECK(neighbours_of(parse_space({"x=8..8"}), {0}).empty());
}

TEST_CASE("tune space: the server command gets each configuration's values") {
    const auto space = issue_space();
    const std::string command =
        "vllm serve M --max-num-seqs {max_num_seqs} --max-num-batched-tokens {max_num_batched_tokens} "
        "--chunked={enable_chunked_prefill} --log ${HOME}/x";
    CHECK_NOTHROW(check_server_command(space, command));
    CHECK(server_command(space, command, {2, 1, 1}) ==
          "vllm serve M --max-num-seqs 64 --max-num-batched-tokens 1024 --chunked=off --log ${HOME}/x");
}

TEST_CASE("tune space: a dimension the server command does not use is a usage error") {
    const auto space = parse_space({"max_num_seqs=16..64", "max_num_batched_tokens=512..2048"});
    try {
        check_server_command(space, "vllm serve M --max-num-seqs {max_num_seqs} --x ${max_num_batched_tokens}");
        FAIL("no error");
    } catch (const usage_error& e) {
        CHECK_THAT(e.what(), Catch::Contains("--space max_num_batched_tokens"));
        CHECK_THAT(e.what(), Catch::Contains("{max_num_batched_tokens}"));
    }
}

TEST_CASE("tune space: a placeholder no --space defines is a usage error naming --space") {
    const auto space = parse_space({"max_num_seqs=16..64"});
    try {
        check_server_command(space, "vllm serve M --max-num-seqs {max_num_seqs} --max-model-len {max_model_len}");
        FAIL("no error");
    } catch (const usage_error& e) {
        CHECK_THAT(e.what(), Catch::Contains("{max_model_len}, which no --space defines"));
    }
}

} // namespace test_tune_space
