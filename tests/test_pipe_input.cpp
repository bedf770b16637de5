// A log given as a pipe (`<(zcat log.jsonl.gz)`, a FIFO) is read whole, as the same log from a file
// is: format detection and the reader each read it from its first byte (reliability finding H1).
// A folder read passes pipes and devices over with a note, and never waits on one (L1).
#include <filesystem> // std::filesystem
#include <fstream>    // std::ifstream, std::ofstream
#include <iterator>   // std::istreambuf_iterator
#include <string>     // std::string
#include <chrono>     // std::chrono::minutes
#include <condition_variable> // std::condition_variable
#include <mutex>      // std::mutex, std::unique_lock
#include <thread>     // std::thread
#include <vector>     // std::vector

#include <sys/stat.h> // mkfifo

#include <catch2/catch.hpp> // TEST_CASE, CHECK, REQUIRE

#include "servestat/ingest/detect.hpp" // for_each_run, load_options

#include "temp_file.hpp" // test::temp_folder

namespace test_pipe_input { // the unity build compiles several test files as one: each keeps its names

using namespace servestat;
namespace fs = std::filesystem;

namespace {

const fs::path log_file = SERVESTAT_TEST_DATA_DIR "/../../examples/logs/mix_90_10-c16.jsonl"; // 280 kB, over the 64 KiB sniff

std::vector<run> runs_of(const std::string& input, load_options o = {}) {
    std::vector<run> out;
    const std::vector<std::string> inputs{input};
    for_each_run(inputs, o, [&](run&& r) { out.push_back(std::move(r)); });
    return out;
}

// Writes the log into the FIFO `path` from another thread, as a shell's `cat log > fifo &` would.
std::thread feed(const fs::path& fifo) {
    return std::thread([fifo] {
        std::ifstream in(log_file, std::ios::binary);
        std::ofstream out(fifo, std::ios::binary);
        out << in.rdbuf();
    });
}

} // namespace

TEST_CASE("a log read from a named pipe has every request the file has, under the pipe's name") {
    const test::temp_folder scratch;
    const fs::path fifo = scratch.path / "c16.jsonl";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    const auto from_file = runs_of(log_file.string());
    REQUIRE(from_file.size() == 1);
    std::thread writer = feed(fifo);
    const auto from_pipe = runs_of(fifo.string());
    writer.join();
    REQUIRE(from_pipe.size() == 1);
    CHECK(from_pipe[0].requests.size() == from_file[0].requests.size());
    CHECK(from_pipe[0].meta.source.path == fifo.string());
    CHECK(from_pipe[0].meta.label == from_file[0].meta.label);
}

TEST_CASE("an error in a piped log names the pipe, not its copy") {
    const test::temp_folder scratch;
    const fs::path fifo = scratch.path / "broken.jsonl";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    std::thread writer([fifo] {
        std::ifstream in(log_file, std::ios::binary);
        std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        text.insert(text.find('\n', text.find('\n') + 1) + 1, "{not json\n"); // the third line
        std::ofstream(fifo, std::ios::binary) << text;
    });
    try {
        runs_of(fifo.string());
        FAIL("the broken line was not refused");
    } catch (const input_error& e) {
        CHECK(e.file() == fifo.string());
        CHECK(e.line() == 3);
    }
    writer.join();
}

TEST_CASE("a device named as an input is refused as one; a folder passes pipes over with a note") {
    CHECK_THROWS_WITH(runs_of("/dev/zero"), Catch::Contains("a device, not a file"));
    const test::temp_folder scratch;
    fs::copy_file(log_file, scratch.path / "c16.jsonl");
    REQUIRE(::mkfifo((scratch.path / "waiting.jsonl").c_str(), 0600) == 0);
    std::vector<std::string> warnings;
    load_options o;
    o.warn = [&](const std::string& w) { warnings.push_back(w); };
    CHECK(runs_of(scratch.path.string(), o).size() == 1); // no writer: a read would block forever
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0] == (scratch.path / "waiting.jsonl").string() + ": passed over: a named pipe (FIFO), not a file");
}

TEST_CASE("a named pipe without a writer is waited on, and the wait is said once") {
    const test::temp_folder scratch;
    const fs::path fifo = scratch.path / "late.jsonl";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    std::mutex m;
    std::condition_variable told;
    std::vector<std::string> warnings;
    load_options o;
    o.warn = [&](const std::string& w) {
        const std::lock_guard lock(m);
        warnings.push_back(w);
        told.notify_one();
    };
    // The writer comes only once the wait was said (or after a minute, to end a failing run), so the
    // log can be read whole only if the reader waited without blocking the warning.
    std::thread writer([&] {
        {
            std::unique_lock lock(m);
            told.wait_for(lock, std::chrono::minutes(1), [&] { return !warnings.empty(); });
        }
        feed(fifo).join();
    });
    const auto runs = runs_of(fifo.string(), o);
    writer.join();
    REQUIRE(runs.size() == 1);
    CHECK(runs[0].requests.size() == runs_of(log_file.string())[0].requests.size());
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0] == fifo.string() + ": a named pipe with no writer yet; waiting for one (Ctrl-C stops)");
}

} // namespace test_pipe_input
