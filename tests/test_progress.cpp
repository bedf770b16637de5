// Progress counting (core/progress.hpp): what the readers and compare's bootstrap count adds up to
// the work there was (every byte of a file once, every resample once), whichever way it was split
// between threads; and the line the CLI's display draws from a sample (app/progress_display.hpp).
#include <catch2/catch.hpp> // Catch2 v2

#include <chrono>     // std::chrono
#include <cstdint>    // std::uint64_t
#include <filesystem> // std::filesystem
#include <cstdio>     // std::fflush
#include <fstream>    // std::ofstream, std::ifstream
#include <iterator>   // std::istreambuf_iterator
#include <string>     // std::string
#include <vector>     // std::vector

#include <fcntl.h>  // open
#include <stdlib.h> // setenv, unsetenv
#include <unistd.h> // dup, dup2, close

#include "servestat/app/progress_display.hpp"
#include "servestat/compare/comparison.hpp"
#include "servestat/core/progress.hpp"
#include "servestat/ingest/canonical_jsonl.hpp"
#include "servestat/ingest/detect.hpp"
#include "temp_file.hpp"

namespace test_progress { // the unity build compiles several test files as one: each keeps its names

using servestat::progress_scope;
using servestat::progress_state;
using servestat::progress_unit;
using servestat::test::temp_file;

namespace {

// A canonical log of `requests` lines, long enough to be read in several pieces.
std::string canonical_log(std::size_t requests, const std::string& label = "progress") {
    std::string text = R"({"servestat":"log","version":1,"run":{"label":")" + label + R"("}})" "\n";
    for (std::size_t i = 0; i < requests; ++i) {
        const double sent = 0.01 * static_cast<double>(i);
        text += R"({"id":")" + std::to_string(i) + R"(","t_sent":)" + std::to_string(sent) + R"(,"t_first":)" +
                std::to_string(sent + 0.2 + 0.001 * static_cast<double>(i % 37)) + R"(,"t_end":)" +
                std::to_string(sent + 1.0 + 0.01 * static_cast<double>(i % 53)) + R"(,"prompt_tokens":)" +
                std::to_string(10 + i % 3000) + R"(,"output_tokens":64,"status":")" + (i % 41 == 0 ? "error" : "ok") +
                "\"}\n";
    }
    return text;
}

std::uint64_t file_size(const temp_file& f) { return std::filesystem::file_size(f.path()); }

// The bytes one read of the file counts into its item.
std::uint64_t bytes_counted(const temp_file& f, std::size_t threads, std::uint64_t min_piece_bytes) {
    progress_state state;
    state.begin_stage("reading", progress_unit::bytes, file_size(f));
    servestat::read_options o;
    o.threads = threads;
    o.min_piece_bytes = min_piece_bytes;
    progress_scope counted(&state, f.str(), file_size(f));
    o.progress = counted.item();
    const auto runs = servestat::canonical_log_format.read(f.path(), o);
    REQUIRE(runs.size() == 1);
    REQUIRE(runs.front().requests.size() == 3000);
    REQUIRE(state.done() == counted.item()->done()); // what the item counts, its stage counts
    return counted.item()->done();
}

} // namespace

TEST_CASE("the canonical reader's chunks add up to the file size, read on one thread or in pieces") {
    const temp_file f(canonical_log(3000));
    REQUIRE(file_size(f) > 200'000);
    CHECK(bytes_counted(f, 1, 4 << 20) == file_size(f));
    // In pieces: the header's source read a chunk that the first piece reads again; it counts once.
    CHECK(bytes_counted(f, 4, 16 << 10) == file_size(f));
    CHECK(bytes_counted(f, 3, 50 << 10) == file_size(f));
}

TEST_CASE("a byte-order mark counts as read") {
    const temp_file f("\xEF\xBB\xBF" + canonical_log(3000));
    CHECK(bytes_counted(f, 1, 4 << 20) == file_size(f));
    CHECK(bytes_counted(f, 4, 16 << 10) == file_size(f));
}

TEST_CASE("the streamed reader counts every byte it reads, chunk by chunk") {
    const temp_file f(canonical_log(3000));
    progress_state state;
    state.begin_stage("reading", progress_unit::bytes, file_size(f));
    progress_scope counted(&state, f.str(), file_size(f));
    servestat::read_options o;
    o.progress = counted.item();
    std::size_t requests = 0;
    std::vector<std::uint64_t> seen; // the count as requests arrive: it grows a chunk at a time
    servestat::detail::stream_canonical_log(f.path(), o, [&](const servestat::request_record&) {
        if (seen.empty() || seen.back() != state.done()) seen.push_back(state.done());
        ++requests;
    });
    CHECK(requests == 3000);
    CHECK(counted.item()->done() == file_size(f));
    CHECK(seen.size() == 1); // a file under the 1 MiB chunk is one read: counted once, not per request
}

TEST_CASE("ending an item counts what its reader did not: a file read whole counts its size") {
    progress_state state;
    state.begin_stage("reading", progress_unit::bytes, 1000);
    {
        progress_scope a(&state, "a.json", 600);
        a.item()->add(100);
        CHECK(state.read().items.size() == 1);
    }
    CHECK(state.done() == 600);
    CHECK(state.read().items.empty());
    CHECK(state.read().last->name == "a.json");
    CHECK(state.read().last->done == 600);
    progress_scope null_scope(nullptr, "b.json", 400); // nothing counted, nothing kept
    CHECK(null_scope.item() == nullptr);
    state.begin_stage("bootstrap", progress_unit::resamples, 2000);
    const auto s = state.read();
    CHECK(s.stage == 2);
    CHECK(s.done == 0);
    CHECK(s.total == 2000);
    CHECK(!s.last);
}

TEST_CASE("for_each_run counts a directory's logs and passed-over files up to input_bytes") {
    const temp_file f(canonical_log(3000, "a"), "a.jsonl");
    std::ofstream(f.dir() / "b.jsonl", std::ios::binary) << canonical_log(500, "b");
    std::ofstream(f.dir() / "README.md", std::ios::binary) << "# not a log\n";
    const std::vector<std::string> inputs{f.dir().string()};
    const std::uint64_t total = servestat::input_bytes(inputs);
    CHECK(total == file_size(f) + std::filesystem::file_size(f.dir() / "b.jsonl") + 12);
    for (const std::size_t threads : {1, 2}) {
        progress_state state;
        state.begin_stage("reading", progress_unit::bytes, total);
        servestat::load_options o;
        o.read.threads = threads;
        o.progress = &state;
        std::size_t runs = 0;
        servestat::for_each_run(inputs, o, [&](servestat::run&&) { ++runs; });
        CHECK(runs == 2);
        CHECK(state.done() == total);
        CHECK(state.read().items.empty());
    }
    CHECK(servestat::input_bytes(std::vector<std::string>{"/no/such/file", "-"}) == 0);
}

TEST_CASE("compare counts every resample of every pair once, in blocks, and sets the total") {
    const temp_file before(canonical_log(800, "x")), after(canonical_log(900, "x"));
    const auto b = servestat::read_logs(std::vector<std::string>{before.str()});
    const auto a = servestat::read_logs(std::vector<std::string>{after.str()});
    for (const std::size_t threads : {1, 3}) {
        progress_state state;
        state.begin_stage("bootstrap", progress_unit::resamples);
        servestat::comparison_options o;
        o.compare.bootstrap.resamples = 250; // two full blocks and half of one
        o.compare.stats.threads = threads;
        o.compare.progress = &state;
        const auto c = servestat::compare(b, a, o);
        REQUIRE(c.pairs.size() == 1);
        CHECK(state.total() == 250);
        CHECK(state.done() == 250);
        CHECK(state.read().last->name == "x / x");
        // Counting changes nothing: the same intervals as without it.
        o.compare.progress = nullptr;
        const auto plain = servestat::compare(b, a, o);
        REQUIRE(plain.pairs.front().comparison.changes.size() == c.pairs.front().comparison.changes.size());
        for (std::size_t i = 0; i < c.pairs.front().comparison.changes.size(); ++i) {
            const auto& x = c.pairs.front().comparison.changes[i];
            const auto& y = plain.pairs.front().comparison.changes[i];
            CHECK(x.name == y.name);
            CHECK(x.delta_ci.has_value() == y.delta_ci.has_value());
            if (x.delta_ci && y.delta_ci) {
                CHECK(x.delta_ci->low == y.delta_ci->low);
                CHECK(x.delta_ci->high == y.delta_ci->high);
            }
        }
    }
}

TEST_CASE("the progress line: the stage with its rate and time left, then the item in flight") {
    using namespace std::chrono_literals;
    namespace app = servestat::app;
    const auto now = std::chrono::steady_clock::now();
    progress_state::sample s;
    s.stage = 1;
    s.what = "reading";
    s.unit = progress_unit::bytes;
    s.done = 50 << 20;
    s.total = 400 << 20;
    s.items = {{"logs/a.jsonl", 12 << 20, 40 << 20, now - 4s}, {"logs/b.jsonl", 1, 2, now}};
    // The item: 12 MiB in 4 s, 28 MiB left: 9.33 s, said as 10 s. The stage: 350 MiB at 35 MiB/s.
    CHECK(app::progress_line(s, 35.0 * (1 << 20), now) ==
          "servestat: reading 50.0 MiB of 400 MiB (12%), 35.0 MiB/s, 10 s left; "
          "logs/a.jsonl (+1 more) 30% of 40.0 MiB, 10 s left");
    s.items.clear();
    s.last = progress_state::item_sample{"logs/b.jsonl", 2048, 2048, now - 1s};
    s.done = s.total;
    CHECK(app::progress_line(s, 1.5e9, now) ==
          "servestat: reading 400 MiB of 400 MiB (100%), 1.40 GiB/s; logs/b.jsonl 100% of 2.00 KiB");
    CHECK(app::progress_line(s, std::nullopt, now) ==
          "servestat: reading 400 MiB of 400 MiB (100%); logs/b.jsonl 100% of 2.00 KiB");

    progress_state::sample boot;
    boot.stage = 2;
    boot.what = "bootstrap";
    boot.unit = progress_unit::resamples;
    boot.done = 1600;
    boot.total = 16000;
    boot.items = {{"before / after", 1600, 2000, now - 2s}};
    CHECK(app::progress_line(boot, 600, now) ==
          "servestat: bootstrap 1,600 of 16,000 resamples (10%), 600 resamples/s, 24 s left; "
          "before / after 80% of 2,000 resamples, 1 s left");

    progress_state::sample charts;
    charts.stage = 3;
    charts.what = "charts";
    charts.unit = progress_unit::runs;
    charts.done = 4;
    charts.total = 40;
    charts.items = {{"mix_50_50-c16", 0, 1, now}};
    CHECK(app::progress_line(charts, 0.8, now) ==
          "servestat: charts 4 of 40 runs (10%), 0.8 runs/s, 45 s left; mix_50_50-c16");

    progress_state::sample piped; // standard input: no total
    piped.stage = 1;
    piped.what = "reading";
    piped.done = 3 << 20;
    piped.items = {{"-", 3 << 20, 0, now - 1s}};
    CHECK(app::progress_line(piped, 3.0 * (1 << 20), now) ==
          "servestat: reading 3.00 MiB, 3.00 MiB/s; -");
    // One file that is the whole stage: named, its figures being the stage's.
    piped.total = 8 << 20;
    piped.items = {{"a.jsonl", 3 << 20, 8 << 20, now - 1s}};
    CHECK(app::progress_line(piped, 3.0 * (1 << 20), now) ==
          "servestat: reading 3.00 MiB of 8.00 MiB (38%), 3.00 MiB/s, 2 s left; a.jsonl");
}

TEST_CASE("progress text: durations, sizes, names fit for a terminal line") {
    namespace d = servestat::app::detail;
    CHECK(d::duration_text(0.2) == "1 s");
    CHECK(d::duration_text(59.2) == "1 min 0 s");
    CHECK(d::duration_text(200) == "3 min 20 s");
    CHECK(d::duration_text(3900) == "1 h 5 min");
    CHECK(d::byte_text(512) == "512 B");
    CHECK(d::byte_text(1536) == "1.50 KiB");
    CHECK(d::byte_text(1.25 * (1 << 30)) == "1.25 GiB");
    CHECK(d::terminal_name("a\nb\x1b[2J.jsonl") == "a?b?[2J.jsonl");
    const std::string long_name(60, 'x');
    CHECK(d::terminal_name(long_name + ".jsonl", 20) == "xxxxx...xxxxxx.jsonl");
    CHECK(d::fit_columns("\xC3\xA9t\xC3\xA9 long", 3) == "\xC3\xA9t\xC3\xA9");
}

TEST_CASE("the display draws the final counts once its delay has passed, clears its line, and clears it before a message") {
    const temp_file err("", "stderr.txt");
    std::fflush(stderr);
    const int saved = dup(2), file = open(err.str().c_str(), O_WRONLY | O_TRUNC);
    REQUIRE(dup2(file, 2) == 2);
    close(file);
    setenv("SERVESTAT_PROGRESS_AFTER", "0", 1);
    {
        servestat::app::progress_display display(true, std::chrono::milliseconds(1));
        REQUIRE(display.state() != nullptr);
        display.state()->begin_stage("bootstrap", progress_unit::resamples, 300);
        {
            progress_scope pair(display.state(), "x / y", 300);
            for (int block = 0; block < 3; ++block) pair.item()->add(100);
            servestat::app::write_stderr("servestat: a message\n");
        }
        display.stop();
        display.stop(); // twice is once
    }
    unsetenv("SERVESTAT_PROGRESS_AFTER");
    {
        servestat::app::progress_display off(false);
        CHECK(off.state() == nullptr);
    }
    std::fflush(stderr);
    dup2(saved, 2);
    close(saved);
    std::ifstream in(err.path(), std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    // The message starts a line of its own: nothing before it, or a cleared line.
    const auto message = text.find("servestat: a message\n");
    REQUIRE(message != std::string::npos);
    CHECK((message == 0 || text.compare(message - 4, 4, "\r\x1b[K") == 0));
    // The last frame with the final counts (the rate varies; the pair is the whole stage, so it is
    // named without figures), then the line cleared, and nothing after.
    const std::string cleared = "\x1b[K\r\x1b[K";
    REQUIRE(text.ends_with(cleared));
    const auto frame = text.rfind('\r', text.size() - cleared.size() - 1);
    REQUIRE(frame != std::string::npos);
    const std::string last = text.substr(frame + 1, text.size() - cleared.size() - frame - 1);
    CHECK(last.starts_with("servestat: bootstrap 300 of 300 resamples (100%), "));
    CHECK(last.ends_with(" resamples/s; x / y"));
    CHECK(last.size() <= 79); // a file is no terminal: taken as 80 wide
    CHECK(frame > message);
}

} // namespace test_progress
