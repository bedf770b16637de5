// The fast path for canonical request lines against the simdjson path: on the driver's own lines,
// on generated lines of every shape a field can take, and on every one-byte change of them, the two
// give the same record bit for bit, or the fast path declines and the simdjson path decides.
#include "servestat/ingest/canonical_jsonl.hpp"

#include <filesystem>  // std::filesystem::recursive_directory_iterator
#include <fstream>     // std::ifstream
#include <optional>    // std::optional
#include <random>      // std::mt19937_64, std::uniform_int_distribution
#include <string>      // std::string, std::getline
#include <utility>     // std::pair
#include <vector>      // std::vector

#include <catch2/catch.hpp> // TEST_CASE, REQUIRE, CHECK, INFO

namespace test_canonical_fast_line { // the unity build compiles several test files as one: each keeps its names

using servestat::request_record;
using servestat::detail::canonical_fast_line;
using servestat::detail::canonical_line_parser;
using servestat::detail::field_error;

namespace {

// Parses `line` both ways (with simdjson's padding after it) and checks they agree; true when the
// fast path took the line. One parser reads every line, as a reader keeps one: each line meets the
// keys the fast path remembered from the lines before it, matching or not.
bool check_agreement(const std::string& line) {
    std::string padded = line;
    padded.resize(line.size() + 64, ' ');
    const std::string_view text(padded.data(), line.size());
    static canonical_line_parser parser;
    static canonical_fast_line fast_line;
    request_record both, slow;
    const auto a = parser.parse(text, 64, both);
    const auto b = parser.parse_slowly(text, 64, slow);
    INFO("line: " << line);
    REQUIRE(a.has_value() == b.has_value());
    if (a) {
        CHECK(a->field == b->field);
        CHECK(a->message == b->message);
    } else {
        CHECK(servestat::identical(both, slow));
    }
    request_record fast;
    return fast_line.parse(text, fast);
}

// Logs the load driver wrote (with ITL arrays, errors, server timings) in examples/.
std::vector<std::string> example_request_lines() {
    std::vector<std::string> lines;
    const std::filesystem::path examples = SERVESTAT_TEST_DATA_DIR "/../../examples";
    for (const auto& entry : std::filesystem::recursive_directory_iterator(examples)) {
        if (entry.path().extension() != ".jsonl") continue;
        std::ifstream in(entry.path());
        std::string line;
        std::getline(in, line); // the header
        while (std::getline(in, line)) lines.push_back(line);
    }
    return lines;
}

// Numbers in every spelling JSON allows and some it does not.
const std::vector<std::string> numbers{
    "0", "-0", "0.0", "-0.0", "1", "37", "0.213296", "1700000000.123456", "0.000123", "1e3", "1E-3", "2.5e+2",
    "1.7976931348623157e308", "1e400", "-1e400", "4.9e-324", "2.2250738585072014e-308", "123456789012345678901234",
    "0.1234567890123456789", "0.30000044444444444444444444", "0.95000000000000000000", "9007199254740993", "9007199254740993.0", "0.30000000000000004", "1e22", "1e23",
    "2147483647", "2147483648", "4294967296", "01", "1.", ".5", "-", "+1", "1e", "1e+", "--1", "0x10", "NaN",
    "Infinity", "1e-00000000000000000003", "1e-00003", "1.0", "37.0", "1e2", "-5", "\"3\"", "null", "true", "[]", "{}"};

std::string random_line(std::mt19937_64& rng) {
    static const std::vector<std::string> keys{"t_sched", "t_sent", "t_first", "t_end", "prompt_tokens", "output_tokens",
                                               "max_tokens", "status", "http_status", "error", "itl", "server_queue",
                                               "server_prefill", "server_decode", "trimmed", "prompt_tokens_original",
                                               "itl_gaps", "server_ttft", "server_itl", "server_spec_acceptance",
                                               "server_draft_acceptance", "id", "extra", "t_sen", "statu"};
    static const std::vector<std::string> strings{"\"ok\"", "\"error\"", "\"timeout\"", "\"cancelled\"", "\"transport\"",
                                                  "\"bogus\"", "\"a\\\"b\"", "\"caf\xC3\xA9\"", "\"tab\there\"", "\"\""};
    static const std::vector<std::string> arrays{"[]", "[0.01,0.02]", "[0.01,-0.02]", "[1e400]", "[0.01,]", "[\"x\"]",
                                                 "[[1]]", "[0.01 , 0.02]", "null"};
    auto pick = [&](const std::vector<std::string>& v) {
        return v[std::uniform_int_distribution<std::size_t>(0, v.size() - 1)(rng)];
    };
    std::uniform_int_distribution<int> coin(0, 9);
    std::string line = "{";
    const int members = std::uniform_int_distribution<int>(0, 12)(rng);
    for (int m = 0; m < members; ++m) {
        if (m > 0) line += coin(rng) == 0 ? ", " : ",";
        const std::string key = pick(keys);
        line += "\"" + key + "\":";
        if (key == "status") line += coin(rng) < 8 ? "\"ok\"" : pick(strings);
        else if (key == "error" || key == "id") line += pick(strings);
        else if (key == "itl") line += pick(arrays);
        else if (key == "trimmed") line += coin(rng) < 5 ? "true" : pick(numbers);
        else line += pick(numbers);
    }
    if (coin(rng) < 7) line += std::string(members > 0 ? "," : "") + "\"status\":\"ok\"";
    line += coin(rng) == 0 ? "} " : "}";
    return line;
}

} // namespace

TEST_CASE("The fast path reads the driver's own lines, and reads them as the simdjson path does", "[canonical][fast]") {
    const auto lines = example_request_lines();
    REQUIRE(lines.size() > 5000);
    std::size_t accepted = 0;
    for (const auto& line : lines) accepted += check_agreement(line);
    CHECK(accepted == lines.size()); // none declined: the fast path is the path these lines take
}

TEST_CASE("Fast and simdjson paths agree on generated lines of every shape", "[canonical][fast]") {
    std::mt19937_64 rng(2026);
    std::size_t accepted = 0;
    constexpr std::size_t count = 20'000;
    for (std::size_t i = 0; i < count; ++i) accepted += check_agreement(random_line(rng));
    // Both paths are exercised: a good share of lines parse fast, the rest fall back.
    CHECK(accepted > count / 20);
    CHECK(accepted < count);
}

TEST_CASE("Fast and simdjson paths agree on every one-byte change of a driver line", "[canonical][fast]") {
    const std::string line =
        R"({"id":"7","t_sched":0.213296,"t_sent":0.221204,"t_first":0.455,"t_end":0.78,"prompt_tokens":37,)"
        R"("output_tokens":16,"max_tokens":16,"status":"ok","http_status":200,"itl":[0.01,0.0205],"trimmed":false,)"
        R"("error":null,"server_queue":0.001})";
    check_agreement(line);
    const std::string replacements = "0 -.eE,:\"{}[]a\\\x01\x80";
    for (std::size_t i = 0; i < line.size(); ++i) {
        std::string deleted = line;
        deleted.erase(i, 1);
        check_agreement(deleted);
        for (char c : replacements) {
            std::string changed = line;
            changed[i] = c;
            check_agreement(changed);
        }
    }
}

TEST_CASE("A key remembered from the line before is matched whole, or the line is read afresh", "[canonical][fast]") {
    // Each line after the first has, at some position, a key that the line before had there changed
    // in its last letter, lengthened, shortened, spaced, or moved; each must read as the simdjson path
    // reads it, whatever the fast path remembered.
    const std::vector<std::string> lines{
        R"({"t_sched":1,"t_sent":2,"t_end":3,"prompt_tokens":4,"status":"ok"})",
        R"({"t_sched":1,"t_sent":2,"t_end":3,"prompt_tokens":4,"status":"ok"})",
        R"({"t_schee":1,"t_sent":2,"t_end":3,"prompt_tokens":4,"status":"ok"})",
        R"({"t_sched":1,"t_sent":2,"t_end":3,"prompt_tokenss":4,"status":"ok"})",
        R"({"t_sched":1,"t_sent":2,"t_end":3,"prompt_token":4,"status":"ok"})",
        R"({"t_sched":1,"t_sent" :2,"t_end":3,"prompt_tokens":4,"status":"ok"})",
        R"({"t_sched":1,"t_sent": 2,"t_end":3,"prompt_tokens":4,"status":"ok"})",
        R"({"t_sent":2,"t_sched":1,"t_end":3,"prompt_tokens":4,"status":"ok"})",
        R"({"t_sent":2,"t_sched":1,"t_end":3,"prompt_tokens":4,"status":"ok"})",
        R"({"t_sent":2,"t_sched":1,"t_end":3,"prompt_tokens":4,"status":"ok","error":null})",
        R"({"t_sent":2,"t_sched":1,"t_end":3,"prompt_tokens":4,"status":"ok","error"})",
        R"({"t_sent":2,"t_sched":1,"t_end":3,"prompt_tokens":4,"status":"ok","err)",
        R"({"t_sent":2,"t_sched":1,"t_end":3,"prompt_tokens":4,"status":"ok","error":null})",
        R"({"t_sent":2,"t_sched":1,"t_end":3,"prompt_tokens":4,"status":"ok","error":"x","prompt_tokens_original":9})",
        R"({"t_sent":2,"t_sched":1,"t_end":3,"prompt_tokens":4,"status":"ok","error":"x","prompt_tokens_original":9})",
        R"({"t_sent":2,"t_sched":1,"t_end":3,"prompt_tokens":4,"status":"ok","error":"x","prompt_tokens_origina":9})",
        R"({"t_sent":2,"t_sched":1,"t_end":3,"prompt_tokens":4,"status":"ok","error":"x","itl":[0.5]})",
        R"({"t_sent":2,"t_sched":1,"t_end":3,"prompt_tokens":4,"status":"ok","error":"x","itl":[0.5]})",
        R"({"t_sent":2,"t_sched":1,"t_end":3,"prompt_tokens":4,"status":"ok","error":"x","it":[0.5]})",
        R"({"t_sent":2,"t_sched":1,"t_end":3,"prompt_tokens":4,"status":"ok","error":"x","itl ":[0.5]})",
        R"({"t_sent":2})"};
    std::size_t accepted = 0;
    for (const auto& line : lines) accepted += check_agreement(line);
    // Misspelt keys are unknown keys, skipped; spaces around the colon are allowed. Declined: the
    // key with no colon, the cut line, the array under an unknown key, the escape, the line with no
    // status. 21 lines, 5 declined.
    CHECK(accepted == 16);
}

TEST_CASE("Numbers of more than 19 digits read exactly on both paths (simdjson#2093)", "[canonical][fast]") {
    // Python's float() of each text: the nearest double. simdjson 3.0.1's get_double gave
    // 1.2323650232103586e-07 for the first and 0.0276628 for the second.
    const std::pair<std::string, double> cases[] = {{"0.30000044444444444444444444", 0.30000044444444446},
                                                    {"0.95000000000000000000", 0.95},
                                                    {"1700000000.1234567890123456789", 1700000000.1234567}};
    for (const auto& [text, expected] : cases) {
        for (const std::string& line : {"{\"t_sent\":" + text + ",\"t_end\":1e12,\"status\":\"ok\"}",
                                       "{\"t_sent\" : " + text + " , \"t_end\":1e12,\"status\":\"ok\",\"x\":{}}"}) {
            INFO(line);
            std::string padded = line + std::string(64, ' ');
            canonical_line_parser parser;
            request_record r;
            REQUIRE_FALSE(parser.parse(std::string_view(padded.data(), line.size()), 64, r).has_value());
            CHECK(*r.t_sent == expected);
            REQUIRE_FALSE(parser.parse_slowly(std::string_view(padded.data(), line.size()), 64, r).has_value());
            CHECK(*r.t_sent == expected);
        }
    }
}

} // namespace test_canonical_fast_line
