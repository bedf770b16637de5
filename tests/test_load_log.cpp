// Tests for the load driver's log and response reading: servestat/load/log_writer.hpp (the canonical
// JSONL line, the header, the append-only writer) and servestat/load/response.hpp (stream chunks and
// whole bodies of OpenAI-compatible servers; every vendor's server timings: test_load_server_timings.cpp). A written log is read
// back through the project's own canonical JSONL reader, so writer and reader must agree on every
// field; chunk texts copy the shapes vLLM and `servestat simulate` send (docs/simulator.md).
#include "servestat/load/log_writer.hpp"
#include "servestat/load/response.hpp"

#include <cstdint>     // std::int32_t
#include <filesystem>  // std::filesystem
#include <fstream>     // std::ifstream
#include <iterator>    // std::istreambuf_iterator
#include <optional>    // std::optional
#include <string>      // std::string
#include <string_view> // std::string_view
#include <vector>      // std::vector

#include <catch2/catch.hpp>  // TEST_CASE, SECTION, REQUIRE, CHECK, CHECK_THROWS_AS
#include <nlohmann/json.hpp> // nlohmann::json, nlohmann::ordered_json

#include "servestat/ingest/canonical_jsonl.hpp" // canonical_log_format
#include "temp_file.hpp"                        // test::temp_file

namespace test_load_log { // the unity build compiles several test files as one: each keeps its names

namespace {

using servestat::request_record;
using servestat::request_status;
using servestat::load::header_line;
using servestat::load::log_line;
using servestat::load::log_writer;
using servestat::load::request_result;
using servestat::load::response_error;
using servestat::load::response_info;
using servestat::load::response_reader;
using servestat::test::temp_file;

const nlohmann::ordered_json run_info = {
    {"label", "bad-c32"},
    {"started_at", "2026-01-11T22:01:00Z"},
    {"model", "Qwen/Qwen2.5-3B-Instruct"},
    {"workload", "mix_50_50"},
    {"tool", "servestat load"},
    {"params", {{"concurrency", 32}, {"seed", 7}, {"stream", true}}},
    {"server", {{"max_model_len", 4096}}}, // extra run fields are the reader's to ignore
};

std::string read_text(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The records of a log file, read by the canonical reader (strict: any bad line fails the test).
servestat::run read_log(const std::filesystem::path& file) {
    auto runs = servestat::canonical_log_format.read(file, {});
    REQUIRE(runs.size() == 1);
    return std::move(runs.front());
}

// One request line behind a header, read back.
request_record round_trip(const request_result& r) {
    const std::string line = log_line(r);
    INFO(line);
    temp_file f(header_line(run_info) + line);
    auto run = read_log(f.path());
    REQUIRE(run.requests.size() == 1);
    return run.requests.row(0);
}

request_result streamed_ok() {
    request_result r;
    r.id = "17";
    r.t_sched = 1.25;
    r.t_sent = 1.2504567891; // written with 6 decimals: 1.250457
    r.t_first = 1.7;
    r.t_end = 12345.6789012;
    r.prompt_tokens = 37;
    r.output_tokens = 16;
    r.max_tokens = 128;
    r.http_status = 200;
    r.itl = {0.01, 0.0234567, 0.5};
    return r;
}

} // namespace

// ---------------------------------------------------------------------------------------------
// log_line

TEST_CASE("a request line reads back through the canonical reader with the same values") {
    auto r = streamed_ok();
    r.server_queue = 0.0123;
    r.server_prefill = 0.2;
    r.server_decode = 0.3;
    const auto rec = round_trip(r);
    REQUIRE(rec.t_sched);
    CHECK(*rec.t_sched == Approx(1.25).margin(1e-6));
    REQUIRE(rec.t_sent);
    CHECK(*rec.t_sent == Approx(1.2504567891).margin(1e-6));
    REQUIRE(rec.t_first);
    CHECK(*rec.t_first == Approx(1.7).margin(1e-6));
    REQUIRE(rec.t_end);
    CHECK(*rec.t_end == Approx(12345.6789012).margin(1e-6));
    CHECK(rec.prompt_tokens == 37);
    CHECK(rec.output_tokens == 16);
    CHECK(rec.max_tokens == 128);
    CHECK(rec.status == request_status::ok);
    CHECK(rec.http_status == 200);
    CHECK(rec.error.empty());
    REQUIRE(rec.itl.size() == 3);
    CHECK(rec.itl[0] == Approx(0.01).margin(1e-6));
    CHECK(rec.itl[1] == Approx(0.0234567).margin(1e-6));
    CHECK(rec.itl[2] == Approx(0.5).margin(1e-6));
    REQUIRE(rec.server_queue);
    CHECK(*rec.server_queue == Approx(0.0123).margin(1e-6));
    REQUIRE(rec.server_prefill);
    CHECK(*rec.server_prefill == Approx(0.2).margin(1e-6));
    REQUIRE(rec.server_decode);
    CHECK(*rec.server_decode == Approx(0.3).margin(1e-6));
    // Not trimmed and never trimmed: both fields stay out of the line.
    CHECK_FALSE(rec.trimmed);
    CHECK_FALSE(rec.prompt_tokens_original);
}

TEST_CASE("a request line is one valid JSON object ending in a single newline") {
    auto r = streamed_ok();
    r.error = "line one\nline two";
    const auto line = log_line(r);
    REQUIRE(!line.empty());
    CHECK(line.back() == '\n');
    CHECK(line.find('\n') == line.size() - 1);
    const auto j = nlohmann::json::parse(line.substr(0, line.size() - 1));
    CHECK(j.is_object());
    CHECK(j["id"] == "17");
    CHECK(j["status"] == "ok");
}

TEST_CASE("unset optional fields are absent from the line") {
    request_result r;
    r.id = "0";
    r.t_sched = 0;
    r.t_sent = 0.5;
    r.t_end = 0.75;
    r.status = request_status::transport;
    r.error = "connection refused";
    const auto line = log_line(r);
    const auto j = nlohmann::json::parse(line);
    CHECK_FALSE(j.contains("t_first"));
    CHECK_FALSE(j.contains("http_status")); // 0: no response arrived
    CHECK_FALSE(j.contains("itl"));
    CHECK_FALSE(j.contains("trimmed"));
    CHECK_FALSE(j.contains("prompt_tokens_original"));
    CHECK_FALSE(j.contains("server_queue"));
    CHECK_FALSE(j.contains("server_prefill"));
    CHECK_FALSE(j.contains("server_decode"));

    const auto rec = round_trip(r);
    CHECK_FALSE(rec.t_first);
    CHECK_FALSE(rec.http_status);
    CHECK(rec.itl.empty());
    CHECK_FALSE(rec.server_queue);
    CHECK_FALSE(rec.server_prefill);
    CHECK_FALSE(rec.server_decode);
    CHECK(rec.status == request_status::transport);
    CHECK(rec.error == "connection refused");
    // Counts are always written, zero included.
    CHECK(rec.prompt_tokens == 0);
    CHECK(rec.output_tokens == 0);
    CHECK(rec.max_tokens == 0);
}

TEST_CASE("a trimmed prompt records trimmed and the original prompt size") {
    auto r = streamed_ok();
    r.trimmed = true;
    r.prompt_tokens = 4000;
    r.prompt_tokens_original = 5123;
    const auto rec = round_trip(r);
    CHECK(rec.trimmed == true);
    CHECK(rec.prompt_tokens == 4000);
    CHECK(rec.prompt_tokens_original == 5123);
}

TEST_CASE("every request status reads back as itself") {
    for (const auto status : {request_status::ok, request_status::error, request_status::timeout,
                              request_status::transport, request_status::cancelled}) {
        auto r = streamed_ok();
        r.status = status;
        INFO(servestat::to_string(status));
        CHECK(round_trip(r).status == status);
    }
}

TEST_CASE("error texts are escaped so the line stays valid JSON") {
    request_result r;
    r.id = "5";
    r.t_sent = 0.001;
    r.t_end = 0.002;
    r.prompt_tokens = 4040;
    r.max_tokens = 128;
    r.status = request_status::error;
    r.http_status = 400;

    SECTION("quotes, backslashes, line ends, tabs and control characters") {
        r.error = "{\"error\":\"bad\"}\\n\nsecond line\r\n\tthird \x01 end";
        const auto rec = round_trip(r);
        CHECK(rec.error == r.error);
        CHECK(rec.http_status == 400);
        CHECK(rec.status == request_status::error);
    }
    SECTION("unicode is kept") {
        r.error = "na\xC3\xAFve \xE2\x80\x93 \xE6\x97\xA5\xE6\x9C\xAC \xF0\x9F\x98\x80"; // naïve – 日本 😀
        CHECK(round_trip(r).error == r.error);
    }
    SECTION("an invalid UTF-8 byte becomes U+FFFD instead of breaking the line") {
        r.error = "bad \xFF byte";
        const auto line = log_line(r);
        CHECK(nlohmann::json::accept(line));
        CHECK(round_trip(r).error == "bad \xEF\xBF\xBD byte");
    }
}

TEST_CASE("an itl the driver cut says how many gaps the stream had, and the reader says the pool lacks them") {
    auto r = streamed_ok();
    r.itl_dropped = 7; // past the driver's cap: counted, not kept
    const std::string line = log_line(r);
    CHECK(line.find(R"(,"itl_gaps":10)") != std::string::npos); // 3 kept + 7 dropped
    temp_file f(header_line(run_info) + line + log_line(streamed_ok()));
    const auto run = read_log(f.path());
    CHECK(run.requests.row(0).itl.size() == 3);
    REQUIRE(run.meta.notes.size() == 1);
    CHECK(run.meta.notes[0] == "itl: 1 request had more chunk gaps than the driver keeps; the log holds only the first "
                               "of them (itl_gaps says how many there were), so the pooled itl leaves out their later gaps");
    SECTION("a log with no cut list has no such note") {
        temp_file whole(header_line(run_info) + log_line(streamed_ok()));
        CHECK(read_log(whole.path()).meta.notes.empty());
    }
}

TEST_CASE("the longest line the driver writes is one its reader takes") {
    // The most gaps the driver keeps, each as long as a --timeout of 31 years writes it, and an error
    // of control characters (each escaped to six bytes) that would pass 64 MiB whole.
    auto r = streamed_ok();
    r.itl.assign(servestat::load::default_max_itl_gaps, 999999999.999999);
    r.itl_dropped = 1;
    r.error = std::string(12 << 20, '\x01');
    const std::string line = log_line(r);
    CHECK(line.size() < (std::size_t{64} << 20));
    temp_file f(header_line(run_info) + line);
    const auto run = read_log(f.path());
    CHECK(run.requests.row(0).itl.size() == r.itl.size());
    CHECK(run.requests.row(0).error.ends_with(fmt::format("... ({} bytes in all)", 12 << 20)));
}

TEST_CASE("the id is a JSON string whatever it contains") {
    auto r = streamed_ok();
    r.id = "req \"7\"\n";
    const auto j = nlohmann::json::parse(log_line(r));
    CHECK(j["id"] == "req \"7\"\n");
}

// ---------------------------------------------------------------------------------------------
// header_line and log_writer

TEST_CASE("a header and request lines written with log_writer read back as one run") {
    temp_file dir("", "unused");
    const auto file = dir.dir() / "run.jsonl";
    std::vector<std::string> lines;
    {
        log_writer w(file);
        CHECK(w.path() == file);
        lines.push_back(header_line(run_info));
        w.write(lines.back());
        for (int i = 0; i < 3; ++i) {
            auto r = streamed_ok();
            r.id = std::to_string(i);
            r.output_tokens = 10 + i;
            lines.push_back(log_line(r));
            w.write(lines.back());
        }
        // Each write is in the file at once: no user-space buffer for a kill -9 to lose.
        std::string expected;
        for (const auto& l : lines) expected += l;
        CHECK(read_text(file) == expected);
    }
    const auto run = read_log(file);
    CHECK(run.meta.label == "bad-c32");
    CHECK(run.meta.model == "Qwen/Qwen2.5-3B-Instruct");
    CHECK(run.meta.workload == "mix_50_50");
    CHECK(run.meta.started_at == "2026-01-11T22:01:00Z");
    CHECK(run.meta.tool == "servestat load");
    CHECK(run.meta.params == nlohmann::json{{"concurrency", 32}, {"seed", 7}, {"stream", true}});
    REQUIRE(run.requests.size() == 3);
    CHECK(run.requests.row(0).output_tokens == 10);
    CHECK(run.requests.row(1).output_tokens == 11);
    CHECK(run.requests.row(2).output_tokens == 12);
}

TEST_CASE("the header line is the canonical header with the run object as given") {
    const auto line = header_line(run_info);
    REQUIRE(!line.empty());
    CHECK(line.back() == '\n');
    CHECK(line.find('\n') == line.size() - 1);
    const auto j = nlohmann::ordered_json::parse(line);
    CHECK(j["servestat"] == "log");
    CHECK(j["version"] == 1);
    CHECK(j["run"] == run_info);
    CHECK(servestat::canonical_log_format.sniff(line) > 0);
}

TEST_CASE("log_writer truncates an existing file when it opens it") {
    temp_file f("old content that must go\nsecond old line\n");
    const auto line = log_line(streamed_ok());
    {
        log_writer w(f.path());
        w.write(line);
    }
    CHECK(read_text(f.path()) == line);
}

TEST_CASE("log_writer writes a long line whole") {
    temp_file dir("", "unused");
    const auto file = dir.dir() / "long.jsonl";
    auto r = streamed_ok();
    r.status = request_status::error;
    r.error = std::string(300000, 'x'); // more than a pipe or page buffer
    const auto line = log_line(r);
    {
        log_writer w(file);
        w.write(header_line(run_info));
        w.write(line);
    }
    const auto run = read_log(file);
    REQUIRE(run.requests.size() == 1);
    CHECK(run.requests.row(0).error.size() == 300000);
}

TEST_CASE("rewrite_header replaces line 1 and keeps every request line, byte for byte") {
    temp_file dir("", "unused");
    const auto file = dir.dir() / "run.jsonl";
    std::string requests;
    log_writer w(file);
    w.write(header_line(run_info));
    for (int i = 0; i < 3; ++i) {
        auto r = streamed_ok();
        r.id = std::to_string(i);
        r.error = std::string(static_cast<std::size_t>(i) * 700000, 'e'); // lines across the 1 MiB copy buffer
        if (i > 0) r.status = request_status::error;
        requests += log_line(r);
        w.write(log_line(r));
    }
    auto ended = run_info;
    ended["end"] = {{"reason", "precise"}, {"requests_sent", 3}};
    w.rewrite_header(header_line(ended));
    CHECK(read_text(file) == header_line(ended) + requests);
    CHECK(!std::filesystem::exists(std::filesystem::path(file).concat(".tmp")));
    SECTION("later lines are appended to the new file") {
        w.write(log_line(streamed_ok()));
        CHECK(read_text(file) == header_line(ended) + requests + log_line(streamed_ok()));
    }
    SECTION("the reader keeps run.end as the run's run_end") {
        const auto run = read_log(file);
        CHECK(run.meta.run_end == nlohmann::json{{"reason", "precise"}, {"requests_sent", 3}});
        CHECK(run.requests.size() == 3);
    }
}

TEST_CASE("a log without run.end has a null run_end; a run.end that is not an object is refused") {
    temp_file plain(header_line(run_info) + log_line(streamed_ok()));
    CHECK(read_log(plain.path()).meta.run_end.is_null());
    auto bad = run_info;
    bad["end"] = "completed";
    temp_file f(header_line(bad) + log_line(streamed_ok()));
    CHECK_THROWS_WITH(servestat::canonical_log_format.read(f.path(), {}),
                      Catch::Contains("log.jsonl:1:") && Catch::Contains("run.end") && Catch::Contains("must be an object"));
}

TEST_CASE("log_writer names the path when the file cannot be created") {
    temp_file dir("", "unused");
    const auto file = dir.dir() / "no-such-directory" / "run.jsonl";
    try {
        log_writer w(file);
        FAIL("no error for " << file.string());
    } catch (const servestat::error& e) {
        CHECK_THAT(e.what(), Catch::Contains(file.string()));
    }
}

// ---------------------------------------------------------------------------------------------
// response_reader

namespace {

// Chunks as `servestat simulate --enable-per-request-metrics` and vLLM stream them (docs/simulator.md,
// "Streaming"): the server's metrics come in the usage chunk after the last token.
const std::string role_chunk =
    R"({"id":"chatcmpl-64684c4f0fd784b41956ecd1a275ec95","object":"chat.completion.chunk","created":1767225600,)"
    R"("model":"Qwen/Qwen2.5-3B-Instruct","choices":[{"index":0,"delta":{"role":"assistant","content":""},)"
    R"("logprobs":null,"finish_reason":null}]})";
const std::string content_chunk =
    R"({"id":"chatcmpl-64684c4f0fd784b41956ecd1a275ec95","object":"chat.completion.chunk","created":1767225600,)"
    R"("model":"Qwen/Qwen2.5-3B-Instruct","choices":[{"index":0,"delta":{"content":" be"},"logprobs":null,)"
    R"("finish_reason":null,"stop_reason":null}]})";
const std::string finish_chunk =
    R"({"id":"chatcmpl-64684c4f0fd784b41956ecd1a275ec95","object":"chat.completion.chunk","created":1767225600,)"
    R"("model":"Qwen/Qwen2.5-3B-Instruct","choices":[{"index":0,"delta":{"content":" at"},"logprobs":null,)"
    R"("finish_reason":"length","stop_reason":null}]})";
const std::string usage_chunk =
    R"({"id":"chatcmpl-64684c4f0fd784b41956ecd1a275ec95","object":"chat.completion.chunk","created":1767225600,)"
    R"("model":"Qwen/Qwen2.5-3B-Instruct","choices":[],)"
    R"("usage":{"prompt_tokens":36,"total_tokens":39,"completion_tokens":3},)"
    R"("metrics":{"time_to_first_token_ms":7.6,"generation_time_ms":8.8,"queue_time_ms":0.0,"mean_itl_ms":4.4,)"
    R"("tokens_per_second":182.927}})";

void check_nothing_but_content(const response_info& info, bool content) {
    CHECK(info.has_content == content);
    CHECK_FALSE(info.prompt_tokens);
    CHECK_FALSE(info.completion_tokens);
    CHECK_FALSE(info.timings);
    CHECK_FALSE(info.error);
}

} // namespace

TEST_CASE("chat stream chunks: the role-only chunk carries no content") {
    response_reader reader;
    SECTION("role-only first chunk") { check_nothing_but_content(reader.read(role_chunk), false); }
    SECTION("content chunk") { check_nothing_but_content(reader.read(content_chunk), true); }
    SECTION("finish chunk") { check_nothing_but_content(reader.read(finish_chunk), true); }
    SECTION("usage chunk with empty choices and the server's metrics") {
        const auto info = reader.read(usage_chunk);
        CHECK_FALSE(info.has_content);
        CHECK(info.prompt_tokens == 36);
        CHECK(info.completion_tokens == 3);
        REQUIRE(info.timings);
        CHECK(info.timings->queue == 0.0);
        CHECK(info.timings->prefill.value_or(-1) == Approx(0.0076));
        CHECK(info.timings->decode.value_or(-1) == Approx(0.0088));
        CHECK(info.timings->itl.value_or(-1) == Approx(0.0044));
        CHECK_FALSE(info.error);
    }
    SECTION("an empty content delta with a finish reason") {
        check_nothing_but_content(
            reader.read(R"({"choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}]})"), false);
        check_nothing_but_content(
            reader.read(R"({"choices":[{"index":0,"delta":{"content":null},"finish_reason":"stop"}]})"), false);
    }
    SECTION("usage: null on every chunk (continuous usage off)") {
        check_nothing_but_content(
            reader.read(R"({"choices":[{"index":0,"delta":{"content":"x"}}],"usage":null})"), true);
    }
}

TEST_CASE("completions stream chunks carry their content in text") {
    response_reader reader;
    check_nothing_but_content(
        reader.read(R"({"id":"cmpl-1","object":"text_completion","created":1767225600,"model":"m",)"
                    R"("choices":[{"index":0,"text":" word","logprobs":null,"finish_reason":null,"stop_reason":null}]})"),
        true);
    check_nothing_but_content(
        reader.read(R"({"id":"cmpl-1","object":"text_completion","created":1767225600,"model":"m",)"
                    R"("choices":[{"index":0,"text":"","logprobs":null,"finish_reason":"length"}]})"),
        false);
}

TEST_CASE("a whole chat body gives content, usage and timings") {
    response_reader reader;
    const auto info = reader.read(
        R"({"id":"chatcmpl-5e41ab087439611eb18a02f46d8d86c3","object":"chat.completion","created":1767225600,)"
        R"("model":"Qwen/Qwen2.5-3B-Instruct","choices":[{"index":0,"message":{"role":"assistant",)"
        R"("content":" text more to but"},"logprobs":null,"finish_reason":"length","stop_reason":null}],)"
        R"("usage":{"prompt_tokens":36,"total_tokens":40,"completion_tokens":4},)"
        R"("metrics":{"time_to_first_token_ms":200.0,"generation_time_ms":300.0,"queue_time_ms":12.3,)"
        R"("mean_itl_ms":100.0,"tokens_per_second":8.0}})");
    CHECK(info.has_content);
    CHECK(info.prompt_tokens == 36);
    CHECK(info.completion_tokens == 4);
    REQUIRE(info.timings);
    CHECK(info.timings->queue.value_or(-1) == Approx(0.0123));
    CHECK(info.timings->prefill.value_or(-1) == Approx(0.2));
    CHECK(info.timings->decode.value_or(-1) == Approx(0.3));
    CHECK_FALSE(info.error);
}

TEST_CASE("reasoning content and tool calls count as content") {
    response_reader reader;
    SECTION("delta.reasoning_content with content null") {
        check_nothing_but_content(
            reader.read(R"({"choices":[{"index":0,"delta":{"reasoning_content":"Let me think","content":null}}]})"),
            true);
    }
    SECTION("delta.tool_calls") {
        check_nothing_but_content(
            reader.read(R"({"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"chatcmpl-tool-1",)"
                        R"("type":"function","function":{"name":"get_weather","arguments":""}}]}}]})"),
            true);
    }
    SECTION("message.tool_calls of a whole body") {
        check_nothing_but_content(
            reader.read(R"({"choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":)"
                        R"([{"id":"t1","type":"function","function":{"name":"f","arguments":"{}"}}]}}]})"),
            true);
    }
    SECTION("an empty tool_calls list is not content") {
        check_nothing_but_content(
            reader.read(R"({"choices":[{"index":0,"delta":{"role":"assistant","content":"","tool_calls":[]}}]})"),
            false);
    }
}

TEST_CASE("error objects instead of a completion") {
    response_reader reader;
    SECTION("vLLM's error object") {
        const auto info = reader.read(
            R"({"error":{"message":"'max_tokens' or 'max_completion_tokens' is too large: 128.","type":"BadRequestError",)"
            R"("param":null,"code":400}})");
        REQUIRE(info.error);
        CHECK(*info.error == "'max_tokens' or 'max_completion_tokens' is too large: 128.");
        CHECK_FALSE(info.has_content);
    }
    SECTION("an error given as a string") {
        const auto info = reader.read(R"({"error":"engine died"})");
        REQUIRE(info.error);
        CHECK(*info.error == "engine died");
    }
    SECTION("an error object without a message is kept whole") {
        const auto info = reader.read(R"({"error":{"code":500}})");
        REQUIRE(info.error);
        CHECK(*info.error == R"({"code":500})");
    }
    SECTION("error: null is no error") {
        const auto info = reader.read(R"({"error":null,"choices":[{"index":0,"text":"x"}]})");
        CHECK_FALSE(info.error);
        CHECK(info.has_content);
    }
}

TEST_CASE("text that is not a JSON object is a response_error") {
    response_reader reader;
    CHECK_THROWS_AS(reader.read(R"({"choices":[{"index":0,"delta":{"content":"x"})"), response_error);
    CHECK_THROWS_AS(reader.read("not json"), response_error);
    CHECK_THROWS_AS(reader.read(""), response_error);
    CHECK_THROWS_AS(reader.read("[DONE]"), response_error);
    CHECK_THROWS_AS(reader.read(R"([{"choices":[]}])"), response_error);
    CHECK_THROWS_AS(reader.read(R"("a string")"), response_error);
    CHECK_THROWS_AS(reader.read("42"), response_error);
    // The reader is still usable after a failure.
    check_nothing_but_content(reader.read(content_chunk), true);
}

TEST_CASE("token counts that are negative, absent or not integers are unknown") {
    response_reader reader;
    SECTION("negative") {
        const auto info = reader.read(R"({"choices":[],"usage":{"prompt_tokens":-1,"completion_tokens":-5}})");
        CHECK_FALSE(info.prompt_tokens);
        CHECK_FALSE(info.completion_tokens);
    }
    SECTION("absent") {
        const auto info = reader.read(R"({"choices":[],"usage":{"total_tokens":39}})");
        CHECK_FALSE(info.prompt_tokens);
        CHECK_FALSE(info.completion_tokens);
    }
    SECTION("one present, one absent") {
        const auto info = reader.read(R"({"choices":[],"usage":{"completion_tokens":0}})");
        CHECK_FALSE(info.prompt_tokens);
        CHECK(info.completion_tokens == 0);
    }
    SECTION("not integers") {
        const auto info = reader.read(R"({"choices":[],"usage":{"prompt_tokens":"36","completion_tokens":null}})");
        CHECK_FALSE(info.prompt_tokens);
        CHECK_FALSE(info.completion_tokens);
    }
    SECTION("usage that is not an object") {
        const auto info = reader.read(R"({"choices":[],"usage":[36,3]})");
        CHECK_FALSE(info.prompt_tokens);
        CHECK_FALSE(info.completion_tokens);
    }
    SECTION("a count beyond 32 bits is not wrapped into a negative or wrong number") {
        const auto info = reader.read(R"({"choices":[],"usage":{"prompt_tokens":4294967333,"completion_tokens":3}})");
        // 4294967333 = 2^32 + 37: a plain int32 cast would give 37.
        CHECK_FALSE(info.prompt_tokens);
        CHECK(info.completion_tokens == 3);
    }
}

TEST_CASE("server timings: a partial set is kept as far as it goes, nothing is no timings") {
    response_reader reader;
    const auto partial = reader.read(R"({"choices":[],"metrics":{"queue_time_ms":100,"time_to_first_token_ms":null}})");
    REQUIRE(partial.timings);
    CHECK(partial.timings->queue == 0.1);
    CHECK_FALSE(partial.timings->prefill);
    CHECK_FALSE(partial.timings->decode);
    CHECK_FALSE(reader.read(R"({"choices":[],"metrics":null})").timings); // vLLM's metrics of an n > 1 request
    CHECK_FALSE(reader.read(R"({"choices":[],"metrics":{}})").timings);
    CHECK_FALSE(reader.read(R"({"choices":[],"metrics":{"queue_time_ms":"12"}})").timings);
    // The simulator's former private form is no server's: it is not read.
    CHECK_FALSE(reader.read(R"({"choices":[],"servestat_timings":{"queue":0,"prefill":1,"decode":2}})").timings);
}

TEST_CASE("one reader reads many documents of different sizes") {
    response_reader reader;
    // A long completion body, then small chunks, then a longer one: the parser's buffers grow and
    // are reused, and nothing of one document leaks into the next.
    const std::string long_text(200000, 'a');
    const std::string big = R"({"choices":[{"index":0,"message":{"role":"assistant","content":")" + long_text +
                            R"("}}],"usage":{"prompt_tokens":1000,"completion_tokens":50000}})";
    const std::string bigger = R"({"choices":[{"index":0,"text":")" + long_text + long_text +
                               R"("}],"usage":{"prompt_tokens":7,"completion_tokens":100000}})";
    for (int round = 0; round < 3; ++round) {
        INFO("round " << round);
        const auto a = reader.read(big);
        CHECK(a.has_content);
        CHECK(a.prompt_tokens == 1000);
        CHECK(a.completion_tokens == 50000);
        CHECK_FALSE(a.timings);

        check_nothing_but_content(reader.read(role_chunk), false);
        const auto e = reader.read(R"({"error":{"message":"boom"}})");
        REQUIRE(e.error);
        CHECK(*e.error == "boom");
        check_nothing_but_content(reader.read(content_chunk), true);

        const auto f = reader.read(finish_chunk);
        CHECK(f.has_content);
        CHECK_FALSE(f.timings);

        const auto u = reader.read(usage_chunk);
        CHECK(u.prompt_tokens == 36);
        CHECK(u.completion_tokens == 3);
        REQUIRE(u.timings);
        CHECK(u.timings->decode.value_or(-1) == Approx(0.0088));

        const auto b = reader.read(bigger);
        CHECK(b.has_content);
        CHECK(b.prompt_tokens == 7);
        CHECK(b.completion_tokens == 100000);
        CHECK_FALSE(b.error);
    }
    // Many small documents in a row, as a stream gives them.
    int with_content = 0;
    for (int i = 0; i < 5000; ++i) {
        const auto text = std::to_string(i);
        const auto info = reader.read(R"({"choices":[{"index":0,"delta":{"content":")" +
                                      (i % 2 == 0 ? text : std::string()) + R"("}}]})");
        with_content += info.has_content ? 1 : 0;
    }
    CHECK(with_content == 2500);
}

} // namespace test_load_log
