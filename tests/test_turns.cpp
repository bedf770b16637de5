// Tests for what servestat's own driver adds to a log and how it is summarised: the request fields
// connect_time, tls_time, cached_tokens, turn and cacheable_tokens written by load/log_writer.hpp and
// read by the canonical reader (both of its paths); the turn-by-turn table (stats/turns.hpp); and the
// connections and deliberate cancellations (stats/driver_log.hpp). Expected values are worked out by
// hand in the comments.
#include "servestat/load/log_writer.hpp"
#include "servestat/report/driver_view.hpp"
#include "servestat/stats/driver_log.hpp"
#include "servestat/stats/turns.hpp"

#include <string> // std::string

#include <catch2/catch.hpp> // TEST_CASE, SECTION, REQUIRE, CHECK

#include "servestat/ingest/canonical_jsonl.hpp" // canonical_log_format
#include "temp_file.hpp"                        // test::temp_file

namespace test_turns { // the unity build compiles several test files as one: each keeps its names

namespace {

using servestat::request_status;
using servestat::load::request_result;
using servestat::test::temp_file;

const std::string header = R"({"servestat":"log","version":1,"run":{"label":"sessions"}})"
                           "\n";

servestat::run read_log(const std::string& text) {
    temp_file f(text);
    auto runs = servestat::canonical_log_format.read(f.path(), {});
    REQUIRE(runs.size() == 1);
    return std::move(runs.front());
}

request_result turn(std::int32_t k, double sent, double first, double end, std::int32_t prompt, std::int32_t cached,
                    std::int32_t cacheable) {
    request_result r;
    r.id = std::to_string(k);
    r.t_sched = sent;
    r.t_sent = sent;
    r.t_first = first;
    r.t_end = end;
    r.prompt_tokens = prompt;
    r.output_tokens = 10;
    r.status = request_status::ok;
    r.session = "s";
    r.turn = k;
    r.cached_tokens = cached;
    r.cacheable_tokens = cacheable;
    return r;
}

} // namespace

TEST_CASE("the driver's new fields go through the log and back, on both reading paths", "[turns]") {
    request_result r = turn(2, 1.0, 1.25, 2.0, 300, 288, 290);
    r.connect_time = 0.000250;
    r.tls_time = 0.003;
    const std::string line = servestat::load::log_line(r);
    CHECK(line.find(R"("connect_time":0.000250,"tls_time":0.003000,"cached_tokens":288,"session":"s","turn":2,)"
                    R"("cacheable_tokens":290})") != std::string::npos);
    // The fast path reads servestat's own lines; spaces after the colons send a line down simdjson's.
    std::string spaced = line;
    for (std::size_t at = 0; (at = spaced.find("\":", at)) != std::string::npos; at += 3) spaced.insert(at + 2, " ");
    for (const auto& text : {line, spaced}) {
        const auto run = read_log(header + text);
        const auto row = run.requests.row(0);
        CHECK(row.connect_time == 0.00025);
        CHECK(row.tls_time == 0.003);
        CHECK(row.cached_tokens == 288);
        CHECK(row.turn == 2);
        CHECK(row.cacheable_tokens == 290);
    }
    SECTION("a negative connect time or a turn 0 is refused by name") {
        CHECK_THROWS_WITH(read_log(header + R"({"t_sent":0,"t_end":1,"status":"ok","connect_time":-0.1})" "\n"),
                          Catch::Contains("connect_time") && Catch::Contains("must not be negative"));
        CHECK_THROWS_WITH(read_log(header + R"({"t_sent":0,"t_end":1,"status":"ok","turn":0})" "\n"),
                          Catch::Contains("turn") && Catch::Contains("turns count from 1"));
    }
}

TEST_CASE("turns: latency and prompt size by turn, the cache's share against its bound", "[turns]") {
    std::string log = header;
    // Two sessions of two turns and one of three; the last one's turn 3 failed.
    //   turn 1: prompts 100, 120; TTFT 0.30, 0.50; cached 0, 96 (the second session hit the shared
    //           system prompt); bound 0, 100.
    //   turn 2: prompts 300, 320; TTFT 0.10, 0.20; cached 288, 304; bound 290, 310.
    //   turn 3: prompt 500, TTFT 0.15, cached 480, bound 490; and one timeout (kept out).
    log += servestat::load::log_line(turn(1, 0.0, 0.30, 1.0, 100, 0, 0));
    log += servestat::load::log_line(turn(1, 0.1, 0.60, 1.1, 120, 96, 100));
    log += servestat::load::log_line(turn(2, 2.0, 2.10, 3.0, 300, 288, 290));
    log += servestat::load::log_line(turn(2, 2.1, 2.30, 3.1, 320, 304, 310));
    log += servestat::load::log_line(turn(3, 4.0, 4.15, 5.0, 500, 480, 490));
    auto failed = turn(3, 4.5, 0, 0, 0, 0, 0);
    failed.t_first.reset();
    failed.t_end = 9.0;
    failed.status = request_status::timeout;
    failed.cached_tokens.reset();
    log += servestat::load::log_line(failed);
    const auto run = read_log(log);
    const auto s = servestat::turns_of(run.requests);
    REQUIRE(s);
    REQUIRE(s->turns.size() == 3);
    const auto& t1 = s->turns[0];
    CHECK(t1.turn == 1);
    CHECK(t1.requests == 2);
    CHECK(t1.ok == 2);
    CHECK(*t1.prompt_tokens_p50 == 110);       // (100 + 120) / 2
    CHECK(*t1.ttft_p50 == Approx(0.40));       // (0.30 + 0.50) / 2
    CHECK(*t1.ttft_p90 == Approx(0.48));       // 0.30 + 0.9 × 0.20
    CHECK(*t1.e2e_p50 == Approx(1.0));         // 1.0 both
    CHECK(t1.cached_tokens == 96);
    CHECK(t1.cacheable_tokens == 100);
    CHECK(t1.prompt_tokens == 220);
    const auto& t3 = s->turns[2];
    CHECK(t3.requests == 2);
    CHECK(t3.ok == 1);
    CHECK(*t3.ttft_p50 == Approx(0.15));
    CHECK(t3.prompt_tokens == 500); // the timeout is not in the sums
    // Overall: prompts 220 + 620 + 500 = 1340; cached 96 + 592 + 480 = 1168; bound 100 + 600 + 490 = 1190.
    CHECK(s->prompt_tokens == 1340);
    CHECK(*s->cache_hit_rate() == Approx(1168.0 / 1340));
    CHECK(*s->cache_bound() == Approx(1190.0 / 1340));
    const auto rows = servestat::report::turn_rows(*s);
    CHECK(rows[1]["cached"] == "95.5%");   // 592 / 620
    CHECK(rows[1]["bound"] == "96.8%");    // 600 / 620
    CHECK(rows[0]["ttft_p90"] == "480 ms");
    const auto text = servestat::report::turns_text(*s);
    CHECK(text == "the server served 87.2% of the 1,340 prompt tokens of successful turns from its cache; the "
                  "workload allowed at most 88.8% (the shared system prompt, and each turn's earlier conversation). "
                  "TTFT p50 is 400 ms at turn 1 and 150 ms at turn 3, while the prompt p50 grew from 110 to 500 tokens.");
    CHECK_FALSE(servestat::turns_of(read_log(header + R"({"t_sent":0,"t_end":1,"status":"ok"})" "\n").requests));
}

TEST_CASE("driver activity: connections opened with their connect and TLS times; deliberate cancellations", "[turns]") {
    std::string log = header;
    // 4 requests, 2 opened connections (connect 1 ms and 3 ms, TLS 10 ms and 20 ms); one cancelled by
    // the driver after 7 tokens, one cancelled by a stop (not counted as deliberate).
    log += R"({"t_sent":0,"t_end":1,"status":"ok","connect_time":0.001,"tls_time":0.010})" "\n";
    log += R"({"t_sent":0,"t_end":1,"status":"ok","connect_time":0.003,"tls_time":0.020})" "\n";
    log += R"x({"t_sent":1,"t_first":1.1,"t_end":1.5,"output_tokens":7,"status":"cancelled","error":"cancelled by the driver 0.500 s after sending (--cancel-rate)"})x" "\n";
    log += R"({"t_sent":1,"t_end":1.5,"output_tokens":0,"status":"cancelled","error":"cancelled: the run was stopped"})" "\n";
    const auto d = servestat::driver_activity_of(read_log(log).requests);
    REQUIRE(d);
    CHECK(d->requests == 4);
    CHECK(d->connections == 2);
    CHECK(*d->connect.p50 == Approx(0.002));
    CHECK(*d->connect.max == 0.003);
    CHECK(*d->tls.p50 == Approx(0.015));
    CHECK(*d->tls.max == 0.020);
    CHECK(d->cancelled == 1);
    CHECK(d->cancelled_tokens == 7);
    CHECK(servestat::report::connections_text(*d) ==
          "2 connections opened for 4 requests (keep-alive carried the other 2); TCP connect p50 2.00 ms, max 3.00 ms; "
          "TLS handshake p50 15.0 ms, max 20.0 ms. Opening a connection is timed apart: it is in neither TTFT nor e2e. "
          "A request the driver cancels closes its connection, so the next one opens another.");
    CHECK(d->ok == 2);
    CHECK(servestat::report::cancelled_summary_text(*d) ==
          "the driver cancelled 1 of 4 requests on purpose (--cancel-rate), which lowers the success rate by design; "
          "of the other 3, 2 succeeded.");
    CHECK(servestat::report::cancelled_text(*d) ==
          "the driver aborted 1 request mid-stream (--cancel-rate); they are counted under Errors as cancelled and "
          "kept out of every latency. 1 of them had received 7 output tokens.");
    CHECK_FALSE(servestat::driver_activity_of(read_log(header + R"({"t_sent":0,"t_end":1,"status":"ok"})" "\n").requests));
}

} // namespace test_turns
