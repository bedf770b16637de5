// Tests for servestat/ingest/mlcommons_endpoints.hpp and mlcommons_endpoints_summary.hpp:
// mlcommons/endpoints' events.jsonl (one requests run) and result_summary.json (its reported values).
// Expected numbers are the fixture files' own: the per-request times recomputed with Python from the
// raw events (tests/data/mlcommons_endpoints/README.md), the reported ones read off the summary.
#include "servestat/ingest/mlcommons_endpoints.hpp"

#include <string>      // std::string
#include <string_view> // std::string_view
#include <vector>      // std::vector

#include "servestat/ingest/detect.hpp" // detect_file_format, read_logs, builtin_formats

#include "format_reading.hpp" // read_one, read_error, reported, has_note
#include "temp_file.hpp"      // temp_file

#include <catch2/catch.hpp> // TEST_CASE, CHECK, REQUIRE, Approx

namespace test_ingest_mlcommons_endpoints { // the unity build compiles several test files as one

namespace {

using servestat::test::has_note;
using servestat::test::reported;
using servestat::test::temp_file;

std::string data(std::string_view name) {
    return std::string(SERVESTAT_TEST_DATA_DIR) + "/mlcommons_endpoints/" + std::string(name);
}

const std::string events = data("run/events.jsonl");
const std::string summary = data("run/performance/result_summary.json");
const std::string submission = data("submission_r16/result_summary.json");

servestat::run read_events() { return servestat::test::read_one(servestat::mlcommons_endpoints_format, events); }

std::string issued(std::string_view uuid, long long ts) {
    return R"({"event_type":"sample.issued","timestamp_ns":)" + std::to_string(ts) + R"(,"sample_uuid":")" +
           std::string(uuid) + R"(","conversation_id":"","turn":null,"data":["PromptData","hi"]})" + "\n";
}

} // namespace

TEST_CASE("mlcommons/endpoints files are detected from their content", "[mlcommons-endpoints]") {
    CHECK(servestat::detect_file_format(events).name == "mlcommons-endpoints");
    CHECK(servestat::detect_file_format(summary).name == "mlcommons-endpoints-summary");
    CHECK(servestat::detect_file_format(submission).name == "mlcommons-endpoints-summary");
    const temp_file old(R"({"approx_datetime_str":"2026-01-01T00:00:00","event_type":"test_started","sample_uuid":"","timestamp_ns":5,"value":null})"
                        "\n");
    CHECK(servestat::detect_file_format(old.path()).name == "mlcommons-endpoints");
}

TEST_CASE("no other format claims an mlcommons/endpoints file", "[mlcommons-endpoints]") {
    for (const auto& file : {events, summary, submission}) {
        const std::string head = servestat::test::file_head(file);
        for (const auto* f : servestat::builtin_formats)
            if (f->name != "mlcommons-endpoints" && f->name != "mlcommons-endpoints-summary")
                CHECK(f->sniff(head) == 0);
    }
}

TEST_CASE("the events give one request per tracked sample; warm-up samples are left out", "[mlcommons-endpoints]") {
    const auto r = read_events();
    CHECK(r.meta.kind == servestat::run_kind::requests);
    CHECK(r.meta.label == "run");
    REQUIRE(r.requests.size() == 8);
    CHECK(has_note(r, "2 sample(s) issued outside a performance-tracking window"));
}

TEST_CASE("request times are the ISSUED, first chunk and COMPLETE events, since the earliest send", "[mlcommons-endpoints]") {
    const auto r = read_events();
    const auto a = r.requests.row(0), b = r.requests.row(1), d = r.requests.row(2);
    CHECK(*a.t_sent == 0.0);
    CHECK(*a.t_first == Approx(0.02025).margin(1e-12));
    CHECK(*a.t_end == Approx(0.0284).margin(1e-12));
    CHECK(*b.t_sent == Approx(0.0002).margin(1e-12));
    CHECK(*b.t_first == Approx(0.015).margin(1e-12));
    CHECK(*b.t_end == Approx(0.0269).margin(1e-12));
    CHECK(*d.t_sent == Approx(0.027).margin(1e-12)); // issued before c: file order of the issues
    CHECK(*d.t_end == Approx(0.0445).margin(1e-12));
    REQUIRE(b.itl.size() == 3);
    CHECK(b.itl[0] == Approx(0.00475).margin(1e-12));
    CHECK(b.itl[1] == Approx(0.00325).margin(1e-12));
    CHECK(b.itl[2] == Approx(0.0035).margin(1e-12));
    CHECK(d.itl.empty());
}

TEST_CASE("prompt tokens are the token ids sent; output tokens are absent", "[mlcommons-endpoints]") {
    const auto r = read_events();
    CHECK(r.requests.row(0).prompt_tokens == 12);
    CHECK(r.requests.row(7).prompt_tokens == 30);
    CHECK(!r.requests.row(0).output_tokens);
    CHECK(has_note(r, "output_tokens is absent"));
}

TEST_CASE("a failed sample keeps its error and HTTP status", "[mlcommons-endpoints]") {
    const auto e = read_events().requests.row(4);
    CHECK(e.status == servestat::request_status::error);
    CHECK(e.error == "error: HTTP 503: Service Unavailable"); // worker.py: ErrorData("error", "HTTP {status}: {body}")
    CHECK(e.http_status == 503);
    CHECK(!e.t_first);
    CHECK(*e.t_end == Approx(0.079).margin(1e-12));
}

TEST_CASE("result_summary.json beside the events gives the reported values and parameters", "[mlcommons-endpoints]") {
    const auto r = read_events();
    REQUIRE(r.meta.source.merged.size() == 1);
    CHECK(r.meta.source.merged[0] == summary);
    CHECK(r.meta.tool == "mlcommons-endpoints 0.6.1");
    CHECK(r.meta.params["concurrency"] == 2);
    CHECK(r.meta.params["load_pattern"] == "concurrency");
    CHECK(reported(r, "requests") == 8);
    CHECK(reported(r, "ok") == 7);
    CHECK(reported(r, "failed") == 1);
    CHECK(*reported(r, "mlcommons_endpoints.duration") == Approx(0.1163));
    CHECK(*reported(r, "mlcommons_endpoints.qps") == Approx(68.78761822871883));
    CHECK(*reported(r, "mlcommons_endpoints.tps") == Approx(180.56749785038693));
    CHECK(*reported(r, "ttft.mean") == Approx(0.01979285714285714));
    CHECK(*reported(r, "ttft.p50") == Approx(0.02025));
    CHECK(*reported(r, "e2e.p99.9") == Approx(0.0333));
    CHECK(*reported(r, "mlcommons_endpoints.tpot.mean") == Approx(0.003644444444444444));
    CHECK(*reported(r, "prompt_tokens.mean") == Approx(13.625));
    CHECK(reported(r, "mlcommons_endpoints.output_sequence_lengths.total") == 21);
    CHECK(reported(r, "mlcommons_endpoints.finish_reason.length") == 2);
    CHECK(!reported(r, "mlcommons_endpoints.ttft.early_stopping_p99")); // null: too few samples
    CHECK(has_note(r, "include its 1 failed sample(s)"));
}

TEST_CASE("a folder of an mlcommons/endpoints run is one run: the summary is not listed again", "[mlcommons-endpoints]") {
    const std::vector<std::string> inputs{data("run")};
    const auto runs = servestat::read_logs(inputs);
    REQUIRE(runs.size() == 1);
    CHECK(runs[0].meta.source.format == "mlcommons-endpoints");
    CHECK(runs[0].requests.size() == 8);
}

TEST_CASE("a real submission's reduced result_summary.json is one summary run", "[mlcommons-endpoints]") {
    const auto r = servestat::test::read_one(servestat::mlcommons_endpoints_summary_format, submission);
    CHECK(r.meta.kind == servestat::run_kind::summary);
    CHECK(r.meta.label == "submission_r16"); // the folder naming the run
    CHECK(reported(r, "requests") == 6396);
    CHECK(reported(r, "ok") == 6396);
    CHECK(*reported(r, "mlcommons_endpoints.duration") == Approx(11856.610466381));
    CHECK(*reported(r, "ttft.p50") == Approx(0.0937288135));
    CHECK(*reported(r, "ttft.p95") == Approx(0.14581838425));
    CHECK(*reported(r, "mlcommons_endpoints.tpot.p99") == Approx(0.0065));
    CHECK(*reported(r, "mlcommons_endpoints.system_tps") == Approx(1888.2008));
    CHECK(reported(r, "mlcommons_endpoints.output_sequence_lengths.total") == 22387661);
}

TEST_CASE("bad mlcommons/endpoints input names the file, line and field", "[mlcommons-endpoints]") {
    SECTION("a timestamp that is no whole number") {
        const temp_file f(issued("a", 5) + R"({"event_type":"sample.complete","timestamp_ns":"x","sample_uuid":"a"})" "\n");
        const auto e = servestat::test::read_error(servestat::mlcommons_endpoints_format, f.path());
        CHECK(e.line() == 2);
        CHECK(e.field() == "timestamp_ns");
        CHECK(e.file() == f.path().string());
    }
    SECTION("a sample issued twice") {
        const temp_file f(issued("a", 5) + issued("a", 6));
        const auto e = servestat::test::read_error(servestat::mlcommons_endpoints_format, f.path());
        CHECK(e.line() == 2);
        CHECK(e.field() == "sample_uuid");
    }
    SECTION("a completion before the issue") {
        const temp_file f(issued("a", 50) + R"({"event_type":"sample.complete","timestamp_ns":10,"sample_uuid":"a"})" "\n");
        CHECK(servestat::test::read_error(servestat::mlcommons_endpoints_format, f.path()).field() == "timestamp_ns");
    }
    SECTION("a chunk before the sample's previous chunk (its gap would be negative; found by fuzz_mlcommons_endpoints)") {
        const temp_file f(issued("a", 5) + R"({"event_type":"sample.recv_first","timestamp_ns":40,"sample_uuid":"a"})" "\n" +
                          R"({"event_type":"sample.recv_non_first","timestamp_ns":30,"sample_uuid":"a"})" "\n");
        const auto e = servestat::test::read_error(servestat::mlcommons_endpoints_format, f.path());
        CHECK(e.line() == 3);
        CHECK(e.field() == "timestamp_ns");
    }
    SECTION("skip_bad skips the bad line") {
        const temp_file f(issued("a", 5) + "{not json\n" + issued("b", 7));
        servestat::read_options o;
        o.skip_bad = true;
        const auto r = servestat::test::read_one(servestat::mlcommons_endpoints_format, f.path(), o);
        CHECK(r.requests.size() == 2);
        CHECK(r.skipped.count == 1);
        CHECK(r.requests.row(0).status == servestat::request_status::cancelled); // never completed
    }
    SECTION("a summary without its sample counts") {
        const temp_file f(R"({"n_samples_issued": 3, "n_samples_completed": -1})", "result_summary.json");
        const auto e = servestat::test::read_error(servestat::mlcommons_endpoints_summary_format, f.path());
        CHECK(e.field() == "n_samples_completed");
    }
}

TEST_CASE("the older event names are read, every sample counting without tracking events", "[mlcommons-endpoints]") {
    const temp_file f(
        R"({"approx_datetime_str":"x","event_type":"test_started","sample_uuid":"","timestamp_ns":1000,"value":null})" "\n"
        R"({"approx_datetime_str":"x","event_type":"loadgen_issue_called","sample_uuid":"u1","timestamp_ns":2000,"value":null})" "\n"
        R"({"approx_datetime_str":"x","event_type":"first_chunk_received","sample_uuid":"u1","timestamp_ns":5000,"value":null})" "\n"
        R"({"approx_datetime_str":"x","event_type":"complete","sample_uuid":"u1","timestamp_ns":9000,"value":null})" "\n");
    const auto r = servestat::test::read_one(servestat::mlcommons_endpoints_format, f.path());
    REQUIRE(r.requests.size() == 1);
    CHECK(*r.requests.row(0).t_first == Approx(3e-6));
    CHECK(*r.requests.row(0).t_end == Approx(7e-6));
    CHECK(has_note(r, "no start_performance_tracking"));
}

} // namespace test_ingest_mlcommons_endpoints
