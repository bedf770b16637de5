// Nothing left is an error (issue 23): a file whose every request --skip-bad rejected, or a
// steady-state window that holds no request, is an input error naming the file, the count skipped
// and the first reason, never a run of zero requests. Skip counts say "records" for JSON documents
// and "lines" for line-based logs.
#include <catch2/catch.hpp> // Catch2 v2

#include <string> // std::string

#include "servestat/core/errors.hpp"        // input_error
#include "servestat/ingest/detect.hpp"      // read_runs, load_options
#include "servestat/report/stats_json.hpp"  // to_json
#include "servestat/stats/run_stats.hpp"    // analyze
#include "servestat/stats/steady_state.hpp" // cut_to_steady_state, steady_state
#include "temp_file.hpp"

namespace test_nothing_left { // the unity build compiles several test files as one: each keeps its names

using namespace servestat;
using servestat::test::temp_file;

namespace {

constexpr const char* header = R"({"servestat":"log","version":1,"run":{"label":"all-bad"}})";

load_options skipping() {
    load_options o;
    o.read.skip_bad = true;
    return o;
}

input_error error_of(const temp_file& f, const load_options& o) {
    try {
        read_runs(f.path(), o);
    } catch (const input_error& e) {
        return e;
    }
    FAIL("no input_error was thrown");
    throw; // unreachable: FAIL throws
}

// An LLMPerf per-request array whose every element has a TTFT after its end.
std::string llmperf_ttft_after_end(int n) {
    std::string text = "[\n";
    for (int i = 0; i < n; ++i)
        text += std::string(i ? ",\n" : "") +
                R"({"error_code": null, "error_msg": "", "ttft_s": 2.0, "end_to_end_latency_s": 1.0, "inter_token_latency_s": 0.01, )"
                R"("request_output_throughput_token_per_s": 50.0, "number_input_tokens": 10, )"
                R"("number_output_tokens": 20, "number_total_tokens": 30})";
    return text + "\n]\n";
}

} // namespace

TEST_CASE("a canonical log whose every request line is bad is an error under --skip-bad, counting lines",
          "[nothing_left]") {
    const temp_file f(std::string(header) + "\n" + R"({"t_sent":5,"t_end":1,"status":"ok"})" + "\n" +
                      R"({"t_sent":2,"t_end":1,"status":"ok"})" + "\n");
    const input_error e = error_of(f, skipping());
    CHECK(e.file() == f.str());
    CHECK(e.line() == 0);
    CHECK_THAT(e.reason(), Catch::StartsWith("every line was bad: 2 lines skipped under --skip-bad, nothing left to "
                                             "analyse (the first: " + f.str() + ":2: field 't_end'"));
}

TEST_CASE("one good line is enough: the bad ones are counted and the run is read", "[nothing_left]") {
    const temp_file f(std::string(header) + "\n" + R"({"t_sent":5,"t_end":1,"status":"ok"})" + "\n" +
                      R"({"t_sent":0,"t_end":1,"status":"ok"})" + "\n");
    const auto runs = read_runs(f.path(), skipping());
    REQUIRE(runs.size() == 1);
    CHECK(runs.front().requests.size() == 1);
    CHECK(runs.front().skipped.count == 1);
    CHECK(runs.front().skipped.noun(1) == "line");
    CHECK(to_json(analyze(runs.front()))["skipped"]["unit"] == "line");
}

TEST_CASE("a header-only log stays its own error, with or without --skip-bad", "[nothing_left]") {
    const temp_file f(std::string(header) + "\n");
    CHECK(error_of(f, skipping()).reason() == "no requests after the header");
    CHECK(error_of(f, {}).reason() == "no requests after the header");
}

TEST_CASE("an LLMPerf document whose every request is bad is an error counting records", "[nothing_left]") {
    const temp_file f(llmperf_ttft_after_end(3), "run_individual_responses.json");
    const input_error e = error_of(f, skipping());
    CHECK_THAT(e.reason(), Catch::StartsWith("every record was bad: 3 records skipped under --skip-bad, nothing left "
                                             "to analyse (the first: "));
    CHECK_THAT(e.reason(), Catch::Contains("ttft_s (2) is larger than end_to_end_latency_s (1)"));
}

TEST_CASE("a JSON document's skipped requests are records in the export", "[nothing_left]") {
    std::string text = llmperf_ttft_after_end(1);
    text.insert(text.rfind(']'), R"(, {"error_code": null, "error_msg": "", "ttft_s": 0.1, "end_to_end_latency_s": 1.0, )"
                                 R"("inter_token_latency_s": 0.05, "request_output_throughput_token_per_s": 20.0, )"
                                 R"("number_input_tokens": 10, "number_output_tokens": 20, "number_total_tokens": 30})"
                                 "\n");
    const temp_file f(text, "run_individual_responses.json");
    const auto runs = read_runs(f.path(), skipping());
    REQUIRE(runs.size() == 1);
    CHECK(runs.front().requests.size() == 1);
    CHECK(runs.front().skipped.count == 1);
    CHECK(runs.front().skipped.noun(2) == "records");
    CHECK(to_json(analyze(runs.front()))["skipped"]["unit"] == "record");
}

TEST_CASE("a steady-state window holding no request is an error, not a run of nothing", "[nothing_left]") {
    run r;
    r.meta.source.path = "sent-early.jsonl";
    for (int i = 0; i < 3; ++i) {
        request_record q;
        q.t_sched = q.t_sent = i;
        q.t_end = i + 1;
        q.status = request_status::ok;
        r.requests.push_back(q);
    }
    steady_state w;
    w.start = 100;
    w.end = 200;
    w.excluded_start = 3;
    try {
        cut_to_steady_state(r, w);
        FAIL("no input_error was thrown");
    } catch (const input_error& e) {
        CHECK(e.file() == "sent-early.jsonl");
        CHECK_THAT(e.reason(), Catch::Contains("holds no request: --steady-state would leave nothing to analyse"));
    }
}

} // namespace test_nothing_left
