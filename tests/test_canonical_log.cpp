// The canonical JSONL log: what it reads, and how every kind of bad input is reported.
#include <catch2/catch.hpp> // Catch2 v2

#include <string> // std::string

#include "servestat/ingest/canonical_jsonl.hpp"
#include "servestat/ingest/detect.hpp"
#include "temp_file.hpp"

namespace test_canonical_log { // the unity build compiles several test files as one: each keeps its names

using servestat::input_error;
using servestat::test::temp_file;

namespace {

const std::string header =
    R"({"servestat":"log","version":1,"run":{"label":"bad-c32","started_at":"2026-01-11T22:01:00Z",)"
    R"("model":"Qwen/Qwen2.5-3B-Instruct","workload":"mix_50_50","params":{"concurrency":32,)"
    R"("max_num_batched_tokens":8192},"tool":"servestat 0.1.0"}})"
    "\n";
const std::string ok_line =
    R"({"id":"0","t_sched":0.0,"t_sent":0.0004,"t_first":0.455,"t_end":0.78,"prompt_tokens":37,)"
    R"("output_tokens":16,"max_tokens":16,"status":"ok","http_status":200})"
    "\n";
const std::string error_line =
    R"({"id":"1","t_sched":0.0,"t_sent":0.0005,"t_end":0.002,"prompt_tokens":4040,"output_tokens":0,)"
    R"("max_tokens":128,"status":"error","http_status":400,"error":"max_tokens is too large: 128"})"
    "\n";

servestat::run read_one(const temp_file& f, servestat::read_options o = {}) {
    auto runs = servestat::canonical_log_format.read(f.path(), o);
    REQUIRE(runs.size() == 1);
    return std::move(runs.front());
}

// Checks that reading `content` fails naming the file, `line` and `field`, with `words` in the message.
void require_input_error(const std::string& content, std::size_t line, const std::string& field,
                         const std::string& words) {
    temp_file f(content);
    try {
        (void)servestat::canonical_log_format.read(f.path(), {});
        FAIL("no error for: " << content.substr(0, 200));
    } catch (const input_error& e) {
        INFO(e.what());
        CHECK(e.file() == f.str());
        CHECK(e.line() == line);
        CHECK(e.field() == field);
        CHECK_THAT(e.what(), Catch::Contains(words));
        CHECK_THAT(e.what(), Catch::Contains(f.str()));
    }
}

} // namespace

TEST_CASE("the header's run metadata becomes the run's metadata") {
    temp_file f(header + ok_line);
    const auto r = read_one(f);
    CHECK(r.meta.label == "bad-c32");
    CHECK(r.meta.model == "Qwen/Qwen2.5-3B-Instruct");
    CHECK(r.meta.workload == "mix_50_50");
    CHECK(r.meta.started_at == "2026-01-11T22:01:00Z");
    CHECK(r.meta.params.at("concurrency") == 32);
    CHECK(r.meta.params.at("max_num_batched_tokens") == 8192);
    CHECK(r.meta.source.format == "servestat");
    CHECK(r.meta.source.path == f.str());
}

TEST_CASE("request lines fill every column, absent fields stay absent") {
    temp_file f(header + ok_line + error_line);
    const auto r = read_one(f);
    REQUIRE(r.requests.size() == 2);
    const auto ok = r.requests.row(0);
    CHECK(*ok.t_sched == 0.0);
    CHECK(*ok.t_sent == 0.0004);
    CHECK(*ok.t_first == 0.455);
    CHECK(*ok.t_end == 0.78);
    CHECK(*ok.prompt_tokens == 37);
    CHECK(*ok.output_tokens == 16);
    CHECK(*ok.max_tokens == 16);
    CHECK(ok.status == servestat::request_status::ok);
    CHECK(*ok.http_status == 200);
    CHECK(ok.error.empty());
    CHECK_FALSE(ok.server_queue.has_value());
    const auto failed = r.requests.row(1);
    CHECK_FALSE(failed.t_first.has_value());
    CHECK(failed.status == servestat::request_status::error);
    CHECK(failed.error == "max_tokens is too large: 128");
}

TEST_CASE("optional fields: itl, server timings, trimmed and the original prompt size") {
    temp_file f(header +
                R"({"t_sent":1,"t_first":1.5,"t_end":2,"status":"ok","itl":[0.1,0.2,0.2],"server_queue":0.3,)"
                R"("server_prefill":0.1,"server_decode":0.5,"trimmed":true,"prompt_tokens_original":5000})"
                "\n" R"({"t_sent":1,"t_end":2,"status":"ok"})" "\n");
    const auto r = read_one(f);
    const auto first = r.requests.row(0);
    CHECK(first.itl == std::vector<double>{0.1, 0.2, 0.2});
    CHECK(*first.server_queue == 0.3);
    CHECK(*first.server_prefill == 0.1);
    CHECK(*first.server_decode == 0.5);
    CHECK(*first.trimmed);
    CHECK(*first.prompt_tokens_original == 5000);
    const auto second = r.requests.row(1);
    CHECK(second.itl.empty());
    CHECK_FALSE(second.server_queue.has_value());
    CHECK_FALSE(second.trimmed.has_value());
}

TEST_CASE("unknown keys and blank lines are ignored, CRLF line ends accepted") {
    temp_file f(header + "\r\n" + R"({"t_sent":0,"t_end":1,"status":"ok","future":{"a":[1,2]}})" "\r\n\n");
    const auto r = read_one(f);
    CHECK(r.requests.size() == 1);
    CHECK(*r.requests.row(0).t_end == 1.0);
}

TEST_CASE("repeated error messages are stored once") {
    temp_file f(header + error_line + error_line + error_line);
    const auto r = read_one(f);
    CHECK(r.requests.size() == 3);
    CHECK(r.requests.error_strings().size() == 2); // the empty string and the one message
    CHECK(r.requests.error_id(0) == r.requests.error_id(2));
}

TEST_CASE("a run without a label takes the file's stem") {
    temp_file f(R"({"servestat":"log","version":1})" "\n" + ok_line, "week3-c8.jsonl");
    CHECK(read_one(f).meta.label == "week3-c8");
}

TEST_CASE("a malformed JSON line names file and line") {
    require_input_error(header + ok_line + R"({"t_sent":0,"t_end":1,"status":"ok")" "\n", 3, "", "malformed JSON");
}

TEST_CASE("trailing characters after the object are malformed") {
    require_input_error(header + R"({"t_sent":0,"t_end":1,"status":"ok"} x)" "\n", 2, "", "malformed JSON");
}

TEST_CASE("a missing required field is named") {
    require_input_error(header + R"({"t_sent":0,"status":"ok"})" "\n", 2, "t_end", "missing required field");
    require_input_error(header + R"({"t_end":0,"status":"ok"})" "\n", 2, "t_sent", "missing required field");
    require_input_error(header + R"({"t_sent":0,"t_end":1})" "\n", 2, "status", "missing required field");
}

TEST_CASE("a field of the wrong type is named") {
    require_input_error(header + R"({"t_sent":"0","t_end":1,"status":"ok"})" "\n", 2, "t_sent", "expected a number");
    require_input_error(header + R"({"t_sent":0,"t_end":1,"status":"ok","prompt_tokens":3.5})" "\n", 2,
                        "prompt_tokens", "expected an integer");
    require_input_error(header + R"({"t_sent":0,"t_end":1,"status":1})" "\n", 2, "status", "expected a string");
    require_input_error(header + R"({"t_sent":0,"t_end":1,"status":"ok","itl":[0.1,"x"]})" "\n", 2, "itl",
                        "expected a number");
    require_input_error(header + R"([1,2,3])" "\n", 2, "", "must be a JSON object");
}

TEST_CASE("negative and NaN durations are rejected") {
    require_input_error(header + R"({"t_sent":2,"t_end":1,"status":"ok"})" "\n", 2, "t_end", "t_end is before t_sent");
    require_input_error(header + R"({"t_sent":0,"t_first":2,"t_end":1,"status":"ok"})" "\n", 2, "t_end",
                        "t_end is before t_first");
    require_input_error(header + R"({"t_sched":1,"t_sent":0,"t_end":1,"status":"ok"})" "\n", 2, "t_sent",
                        "before t_sched");
    require_input_error(header + R"({"t_sent":0,"t_end":1,"status":"ok","server_queue":-0.1})" "\n", 2,
                        "server_queue", "must not be negative");
    // JSON has no NaN: a log holding one is malformed, never a silent NaN duration.
    require_input_error(header + R"({"t_sent":0,"t_end":NaN,"status":"ok"})" "\n", 2, "t_end", "");
}

TEST_CASE("an unknown status is named with the valid ones") {
    require_input_error(header + R"({"t_sent":0,"t_end":1,"status":"done"})" "\n", 2, "status",
                        "unknown status 'done' (expected ok, error, timeout, transport or cancelled)");
}

TEST_CASE("an empty file and a header-only file are errors") {
    require_input_error("", 0, "", "empty file");
    require_input_error("\n  \n", 0, "", "empty file");
    require_input_error(header, 1, "", "no requests after the header");
}

TEST_CASE("a first line that is not a servestat header is an error") {
    require_input_error(ok_line, 1, "servestat", "not a servestat log header");
    require_input_error(R"({"servestat":"log","version":2})" "\n" + ok_line, 1, "version", "unsupported log version 2");
}

TEST_CASE("binary garbage is not recognised as any log") {
    std::string garbage;
    for (int i = 0; i < 4096; ++i) garbage.push_back(static_cast<char>((i * 7919) % 256));
    temp_file f(garbage);
    try {
        (void)servestat::detect_file_format(f.path());
        FAIL("binary garbage was detected as a log");
    } catch (const input_error& e) {
        CHECK(e.file() == f.str());
        CHECK_THAT(e.what(), Catch::Contains("binary data"));
    }
    // Forced through the canonical reader it is still an error, not a crash.
    CHECK_THROWS_AS(servestat::canonical_log_format.read(f.path(), {}), input_error);
}

TEST_CASE("a single line longer than 64 MiB is refused with its line number") {
    std::string huge = header + ok_line + R"({"t_sent":0,"t_end":1,"status":"ok","error":")";
    huge.append((std::size_t{64} << 20) + 10, 'x');
    huge += "\"}\n";
    require_input_error(huge, 3, "", "longer than 64 MiB");
}

TEST_CASE("with skip_bad, bad lines are counted with their reasons and the rest is read") {
    temp_file f(header + ok_line + R"({"t_sent":2,"t_end":1,"status":"ok"})" "\n" + "not json\n" + error_line);
    const auto r = read_one(f, {.skip_bad = true});
    CHECK(r.requests.size() == 2);
    CHECK(r.skipped.count == 2);
    REQUIRE(r.skipped.examples.size() == 2);
    CHECK_THAT(r.skipped.examples[0], Catch::Contains(":3: field 't_end'"));
    CHECK_THAT(r.skipped.examples[1], Catch::Contains(":4: a request line must be a JSON object"));
}

TEST_CASE("a log is detected from its content whatever its file name") {
    temp_file f(header + ok_line, "results.csv");
    CHECK(servestat::detect_file_format(f.path()).name == "servestat");
}

TEST_CASE("a directory with no logs is an error naming it") {
    temp_file f("just some notes\n", "README.md");
    try {
        const std::vector<std::string> inputs{f.dir().string()};
        (void)servestat::read_logs(inputs);
        FAIL("no error");
    } catch (const input_error& e) {
        CHECK(e.file() == f.dir().string());
        CHECK_THAT(e.what(), Catch::Contains("no recognised request logs"));
    }
}

TEST_CASE("a directory contributes its logs in name order and passes over other files") {
    temp_file notes("notes\n", "SOURCE.md");
    std::ofstream(notes.dir() / "b.jsonl") << R"({"servestat":"log","version":1,"run":{"label":"b"}})" "\n" << ok_line;
    std::ofstream(notes.dir() / "a.jsonl") << R"({"servestat":"log","version":1,"run":{"label":"a"}})" "\n" << ok_line;
    const std::vector<std::string> inputs{notes.dir().string()};
    const auto runs = servestat::read_logs(inputs);
    REQUIRE(runs.size() == 2);
    CHECK(runs[0].meta.label == "a");
    CHECK(runs[1].meta.label == "b");
}

} // namespace test_canonical_log
