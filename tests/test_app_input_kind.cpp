// What an input of stats, report, compare or summarize is, from one read of its head: standard
// input, a summary, a canonical log streamed (over half the memory limit by its first lines' length;
// any size for summarize) or a log read whole.
#include "servestat/app/input_kind.hpp"

#include <cstddef>    // std::size_t
#include <filesystem> // std::filesystem::temp_directory_path
#include <string>     // std::string

#include <catch2/catch.hpp> // TEST_CASE, SECTION, CHECK

#include "temp_file.hpp" // servestat::test::temp_file

namespace test_app_input_kind { // the unity build compiles several test files as one: each keeps its names

using namespace servestat;
using namespace servestat::app;
using servestat::test::temp_file;

namespace {

constexpr std::size_t mib = std::size_t{1} << 20;

const std::string canonical_header =
    R"({"servestat":"log","version":1,"run":{"label":"r","params":{"concurrency":4}}})"
    "\n";

// A canonical log of at least `bytes`, each request line 64 bytes (with its newline).
std::string canonical_log(std::size_t bytes) {
    std::string text = canonical_header;
    const std::string line = R"({"id":"1","t_sent":0.100000,"t_end":0.600000,"status":"ok"}    )" "\n";
    REQUIRE(line.size() == 64);
    while (text.size() < bytes) text += line;
    return text;
}

} // namespace

TEST_CASE("standard input is read request by request; a directory or a pattern is a log like any other") {
    CHECK(classify_input("-", 0).kind == input_kind::standard_input);
    CHECK(classify_input("-", 0).bounded());
    CHECK(classify_shard("-").kind == input_kind::standard_input);
    const temp_file file(canonical_log(1000));
    CHECK(classify_input(file.dir().string(), mib).kind == input_kind::log);
    CHECK_FALSE(classify_input(file.dir().string(), mib).bounded());
    CHECK(classify_input(file.dir().string() + "/*.jsonl", mib).kind == input_kind::log);
    CHECK(classify_shard(file.dir().string()).kind == input_kind::log);
}

TEST_CASE("a summary file is a summary, small or large, whatever the limit") {
    const std::string head = R"({"servestat":"summary","version":1,"options":{},"run":{}})";
    const temp_file small(head + "\n");
    CHECK(classify_input(small.str(), 0).kind == input_kind::summary);
    CHECK(classify_input(small.str(), mib).kind == input_kind::summary);
    CHECK(classify_shard(small.str()).kind == input_kind::summary);
    const temp_file large(head + std::string(2 * mib, ' ') + "\n"); // its head is read at 64 KiB
    CHECK(classify_input(large.str(), mib).kind == input_kind::summary);
    CHECK(classify_input(large.str(), 0).kind == input_kind::summary);
}

TEST_CASE("a canonical log is streamed when its requests would take more than half the limit") {
    // 2 MiB of 64-byte lines: about 32,768 requests, at 32 bytes each 1 MiB of table; twice that
    // (the analysis' half) is over a 1 MiB limit and under a 4 MiB one.
    const temp_file log(canonical_log(2 * mib));
    CHECK(classify_input(log.str(), mib).kind == input_kind::streamed_log);
    CHECK(classify_input(log.str(), mib).bounded());
    CHECK(classify_input(log.str(), 4 * mib).kind == input_kind::log);
    SECTION("no limit keeps it whole") { CHECK(classify_input(log.str(), 0).kind == input_kind::log); }
    SECTION("a log under 1 MiB is kept whole whatever the limit") {
        const temp_file small(canonical_log(mib - 100));
        CHECK(classify_input(small.str(), 1).kind == input_kind::log);
    }
    SECTION("a large file of another format is read whole (its reader decides)") {
        const temp_file csv(std::string("ttft,e2e\n") + std::string(2 * mib, '1') + "\n", "log.csv");
        CHECK(classify_input(csv.str(), mib).kind == input_kind::log);
    }
}

TEST_CASE("summarize streams every canonical log and reads the others whole") {
    const temp_file small(canonical_log(1000));
    CHECK(classify_shard(small.str()).kind == input_kind::streamed_log);
    const temp_file csv("ttft,e2e\n0.1,0.5\n", "log.csv");
    CHECK(classify_shard(csv.str()).kind == input_kind::log);
}

} // namespace test_app_input_kind
