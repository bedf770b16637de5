// Tests for servestat/ingest/arrival_trace.hpp: hand-made traces in tests/data/arrival_trace/ and the
// Azure and Mooncake traces of the shared data folder, checked against pandas and numpy.
#include "servestat/ingest/arrival_trace.hpp"

#include <algorithm>   // std::any_of
#include <cstddef>     // std::size_t
#include <filesystem>  // std::filesystem
#include <string>      // std::string
#include <string_view> // std::string_view
#include <vector>      // std::vector

#include "format_fixtures.hpp"
#include "format_reading.hpp"
#include "temp_file.hpp"

#include <catch2/catch.hpp> // TEST_CASE, REQUIRE, CHECK, Approx

#include "servestat/ingest/burstgpt_detail.hpp" // burstgpt_detail_format (a file that is no trace)
#include "servestat/stats/run_stats.hpp"        // analyze, find_percentile, find_summary

namespace test_ingest_arrival_trace { // the unity build compiles several test files as one: each keeps its names

namespace {

using servestat::test::file_head;
using servestat::test::read_error;
using servestat::test::read_one;

namespace fs = std::filesystem;
using servestat::azure_trace_format;
using servestat::input_error;
using servestat::metric;
using servestat::mooncake_trace_format;
using servestat::read_arrivals;
using servestat::read_options;
using servestat::request_status;
using servestat::run_kind;
using servestat::test::temp_file;

constexpr std::string_view midnight = "trace_midnight.csv";
constexpr std::string_view small = "small_trace.jsonl";

const servestat::test::format_fixtures azure_fixtures{azure_trace_format, "arrival_trace"};
const servestat::test::format_fixtures mooncake_fixtures{mooncake_trace_format, "arrival_trace"};

const fs::path shared(SERVESTAT_SHARED_DATA_DIR);
const fs::path azure_code = shared / "azure-llm-inference-2023" / "AzureLLMInferenceTrace_code.csv";
const fs::path azure_conv = shared / "azure-llm-inference-2023" / "AzureLLMInferenceTrace_conv.csv";
const fs::path mooncake_conversation = shared / "mooncake-fast25" / "conversation_trace.jsonl";
const fs::path mooncake_synthetic = shared / "mooncake-fast25" / "synthetic_trace.jsonl";

bool has_note_containing(const servestat::run& run, std::string_view text) {
    return std::any_of(run.meta.notes.begin(), run.meta.notes.end(),
                       [&](const std::string& note) { return note.find(text) != std::string::npos; });
}

const std::string azure_header = "TIMESTAMP,ContextTokens,GeneratedTokens\n";

} // namespace

// ---------------------------------------------------------------- calendar

TEST_CASE("days_from_civil counts days from 1970-01-01 like Python's datetime.date") {
    using servestat::detail::days_from_civil;
    // (date(y, m, d) - date(1970, 1, 1)).days
    static_assert(days_from_civil(1970, 1, 1) == 0);
    CHECK(days_from_civil(2000, 3, 1) == 11017);
    CHECK(days_from_civil(2023, 11, 16) == 19677);
    CHECK(days_from_civil(1969, 12, 31) == -1);
    CHECK(days_from_civil(1600, 2, 29) == -135081);
}

TEST_CASE("leap days follow the Gregorian rules") {
    using servestat::detail::days_from_civil;
    CHECK(days_from_civil(2024, 3, 1) - days_from_civil(2024, 2, 28) == 2);
    CHECK(days_from_civil(2023, 3, 1) - days_from_civil(2023, 2, 28) == 1);
    CHECK(days_from_civil(2100, 3, 1) - days_from_civil(2100, 2, 28) == 1);
    CHECK(days_from_civil(2000, 3, 1) - days_from_civil(2000, 2, 28) == 2);
}

TEST_CASE("an Azure timestamp is a count of 100 ns ticks") {
    using servestat::detail::parse_azure_timestamp;
    CHECK(parse_azure_timestamp("1970-01-01 00:00:00.0000001") == 1);
    CHECK(parse_azure_timestamp("1970-01-02 00:00:00") == 86400LL * 10'000'000);
    CHECK(parse_azure_timestamp("1970-01-01 00:00:01.5") == 15'000'000);
}

TEST_CASE("malformed Azure timestamps are refused") {
    using servestat::detail::parse_azure_timestamp;
    for (const std::string_view bad :
         {"2023-11-16T18:17:03.9799600", "2023-11-16 18:17:03.97996001", "2023-11-16 18:17:03.", "2023-02-29 00:00:00",
          "2023-11-31 00:00:00", "2023-13-01 00:00:00", "2023-11-16 24:00:00", "2023-11-16 18:60:00",
          "2023-11-16 18:17", "2023-11-16 18:17:03Z", "23-11-16 18:17:03", ""}) {
        CAPTURE(bad);
        CHECK_FALSE(parse_azure_timestamp(bad).has_value());
    }
}

// ---------------------------------------------------------------- azure-trace, hand-made file

TEST_CASE("the trace formats are named azure-trace and mooncake-trace") {
    CHECK(azure_trace_format.name == "azure-trace");
    CHECK(mooncake_trace_format.name == "mooncake-trace");
}

TEST_CASE("Azure arrivals cross midnight, a new year and a leap day exactly") {
    // pandas: (pd.to_datetime(d.TIMESTAMP) - pd.to_datetime(d.TIMESTAMP[0])).dt.total_seconds()
    const auto run = azure_fixtures.read(midnight);
    const std::vector<double> expected{0.0, 2e-07, 5095800.5000001, 5182200.5000001, 5184000.0000001};
    const auto t = run.requests.t_sched();
    REQUIRE(t.size() == expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        CAPTURE(i);
        CHECK(t[i] == expected[i]);
    }
}

TEST_CASE("an Azure arrival has t_sched and token counts, and nothing measured") {
    const auto r = azure_fixtures.row(midnight, 2);
    CHECK(r.t_sched.has_value());
    CHECK_FALSE(r.t_sent.has_value());
    CHECK_FALSE(r.t_first.has_value());
    CHECK_FALSE(r.t_end.has_value());
    CHECK(r.prompt_tokens == 300);
    CHECK(r.output_tokens == 30);
    CHECK(r.status == request_status::ok);
}

TEST_CASE("an Azure trace is an arrivals run that starts at its first timestamp") {
    const auto run = azure_fixtures.read(midnight);
    CHECK(run.meta.kind == run_kind::arrivals);
    CHECK(run.meta.label == "trace_midnight");
    CHECK(run.meta.source.format == "azure-trace");
    CHECK(run.meta.started_at == "2023-12-31T23:59:59.9999999");
    CHECK(has_note_containing(run, "workload trace for replay"));
    CHECK(has_note_containing(run, "servestat load --trace"));
    CHECK(has_note_containing(run, "no latencies"));
}

// ---------------------------------------------------------------- azure-trace, the shared files

TEST_CASE("the Azure traces hold 8,819 and 19,366 arrivals") {
    CHECK(read_one(azure_trace_format, azure_code).requests.size() == 8819);
    CHECK(read_one(azure_trace_format, azure_conv).requests.size() == 19366);
}

TEST_CASE("Azure arrival times match pandas to_datetime") {
    // pandas 1.5.3: t = (pd.to_datetime(d.TIMESTAMP) - pd.to_datetime(d.TIMESTAMP.iloc[0])).dt.total_seconds();
    // t.iloc[-1] (the span) and t.iloc[4000]. Both are the same exact 100 ns count divided once, so equal.
    const auto code = read_one(azure_trace_format, azure_code);
    CHECK(code.requests.t_sched().front() == 0.0);
    CHECK(code.requests.t_sched().back() == Approx(3435.948056).margin(1e-9));
    CHECK(code.requests.t_sched()[4000] == Approx(1365.361031).margin(1e-9));
    CHECK(code.requests.prompt_tokens()[4000] == 3651);
    CHECK(code.requests.output_tokens()[4000] == 14);
    const auto conv = read_one(azure_trace_format, azure_conv);
    CHECK(conv.requests.t_sched().back() == Approx(3501.721937).margin(1e-9));
    CHECK(conv.requests.t_sched()[4000] == Approx(815.558291).margin(1e-9));
}

TEST_CASE("Azure token medians match SOURCE.md") {
    const auto code = servestat::analyze(read_one(azure_trace_format, azure_code));
    CHECK(servestat::find_percentile(code.prompt_tokens, 50.0) == 1469.0);
    CHECK(servestat::find_percentile(code.output_tokens, 50.0) == 13.0);
    CHECK(code.prompt_tokens.min == 3.0);
    CHECK(code.prompt_tokens.max == 7437.0);
    const auto conv = servestat::analyze(read_one(azure_trace_format, azure_conv));
    CHECK(servestat::find_percentile(conv.prompt_tokens, 50.0) == 1020.0);
    CHECK(servestat::find_percentile(conv.output_tokens, 50.0) == 129.0);
    CHECK(conv.output_tokens.max == 1000.0);
}

TEST_CASE("an Azure trace's workload is its file stem's last word and it starts at the first timestamp") {
    const auto code = read_one(azure_trace_format, azure_code);
    CHECK(code.meta.workload == "code");
    CHECK(code.meta.started_at == "2023-11-16T18:17:03.9799600");
    CHECK(read_one(azure_trace_format, azure_conv).meta.workload == "conv");
}

TEST_CASE("an Azure trace has no latencies to summarise") {
    const auto stats = servestat::analyze(read_one(azure_trace_format, azure_code));
    CHECK(servestat::find_summary(stats, "all", metric::ttft)->n == 0);
    CHECK(servestat::find_summary(stats, "all", metric::e2e)->n == 0);
    REQUIRE(stats.arrivals.has_value());
    CHECK(stats.arrivals->count == 8819);
    CHECK(stats.arrivals->span.value() == Approx(3435.948056).margin(1e-9));
}

// ---------------------------------------------------------------- azure-trace, bad input

TEST_CASE("a malformed Azure timestamp names file, line and column") {
    const temp_file file(azure_header + "2023-11-16 18:17:03.9799600,4808,10\n2023-11-16 18:17:04,3180,8\n"
                                        "2023-11-16 25:17:04.0319600,3180,8",
                         "trace.csv");
    const input_error e = read_error(azure_trace_format, file.path());
    CHECK(e.file() == file.str());
    CHECK(e.line() == 4);
    CHECK(e.field() == "TIMESTAMP");
    CHECK(e.reason().find("malformed timestamp") != std::string::npos);
}

TEST_CASE("an Azure trace without GeneratedTokens names the column") {
    const temp_file file("TIMESTAMP,ContextTokens\n2023-11-16 18:17:03.9799600,4808", "trace.csv");
    const input_error e = read_error(azure_trace_format, file.path());
    CHECK(e.line() == 1);
    CHECK(e.field() == "GeneratedTokens");
    CHECK(e.reason() == "missing required column");
}

TEST_CASE("an Azure token count of the wrong type names line and column") {
    const temp_file file(azure_header + "2023-11-16 18:17:03.9799600,4808,10\n2023-11-16 18:17:04.0319600,lots,8",
                         "trace.csv");
    const input_error e = read_error(azure_trace_format, file.path());
    CHECK(e.line() == 3);
    CHECK(e.field() == "ContextTokens");
}

TEST_CASE("Azure arrivals that go backwards are an error") {
    const temp_file file(azure_header + "2023-11-16 18:17:03.9799600,4808,10\n2023-11-16 18:17:03.9799599,3180,8",
                         "trace.csv");
    const input_error e = read_error(azure_trace_format, file.path());
    CHECK(e.line() == 3);
    CHECK(e.field() == "TIMESTAMP");
    CHECK(e.reason().find("backwards") != std::string::npos);
}

TEST_CASE("an Azure trace with only a header is an error") {
    const temp_file file(azure_header, "trace.csv");
    CHECK(read_error(azure_trace_format, file.path()).reason() == "no arrivals after the header");
}

TEST_CASE("a reader under --skip-bad skips a bad Azure row and keeps the first good one as time 0") {
    const temp_file file(azure_header + "yesterday,1,1\n2023-11-16 18:17:03.5,4808,10\n2023-11-16 18:17:04,3180,8",
                         "trace.csv");
    const auto run = read_one(azure_trace_format, file.path(), {.skip_bad = true});
    CHECK(run.skipped.count == 1);
    REQUIRE(run.requests.size() == 2);
    CHECK(run.requests.t_sched()[1] == 0.5);
}

// ---------------------------------------------------------------- mooncake-trace

TEST_CASE("a Mooncake line becomes one arrival, timestamps in milliseconds, blank lines ignored") {
    const auto run = mooncake_fixtures.read(small);
    const auto t = run.requests.t_sched();
    REQUIRE(t.size() == 4);
    CHECK(t[0] == 0.0);
    CHECK(t[1] == 0.0);
    CHECK(t[2] == 1.5);
    CHECK(t[3] == 3.001);
    const auto r = run.requests.row(3);
    CHECK(r.prompt_tokens == 1024);
    CHECK(r.output_tokens == 64);
    CHECK_FALSE(r.t_sent.has_value());
    CHECK_FALSE(r.t_end.has_value());
}

TEST_CASE("a Mooncake trace is an arrivals run that says hash_ids are not used") {
    const auto run = mooncake_fixtures.read(small);
    CHECK(run.meta.kind == run_kind::arrivals);
    CHECK(run.meta.source.format == "mooncake-trace");
    CHECK(run.meta.workload == "small");
    CHECK(run.meta.started_at.empty());
    CHECK(has_note_containing(run, "hash_ids"));
    CHECK(has_note_containing(run, "workload trace for replay"));
}

TEST_CASE("the Mooncake traces hold 12,031 and 3,993 arrivals") {
    CHECK(read_one(mooncake_trace_format, mooncake_conversation).requests.size() == 12031);
    CHECK(read_one(mooncake_trace_format, mooncake_synthetic).requests.size() == 3993);
}

TEST_CASE("Mooncake arrival times and token statistics match numpy") {
    // json.loads each line; t = (ts - ts[0]) / 1000; np.median and .mean() of the lengths.
    const auto conversation = read_one(mooncake_trace_format, mooncake_conversation);
    CHECK(conversation.requests.t_sched().back() == 3536.999);
    CHECK(conversation.requests.t_sched()[3000] == 987.0);
    CHECK(conversation.requests.prompt_tokens()[3000] == 12985);
    CHECK(conversation.requests.output_tokens()[3000] == 536);
    const auto c = servestat::analyze(conversation);
    CHECK(servestat::find_percentile(c.prompt_tokens, 50.0) == 6909.0);
    CHECK(servestat::find_percentile(c.output_tokens, 50.0) == 350.0);
    CHECK(c.prompt_tokens.mean.value() == Approx(12035.061341534369).epsilon(1e-12));
    CHECK(c.output_tokens.mean.value() == Approx(342.6189011719724).epsilon(1e-12));

    const auto synthetic = read_one(mooncake_trace_format, mooncake_synthetic);
    CHECK(synthetic.requests.t_sched().back() == 1022.025);
    CHECK(synthetic.requests.t_sched()[3000] == 782.145);
    const auto s = servestat::analyze(synthetic);
    CHECK(servestat::find_percentile(s.prompt_tokens, 50.0) == 11587.0);
    CHECK(servestat::find_percentile(s.output_tokens, 50.0) == 69.0);
    CHECK(s.prompt_tokens.mean.value() == Approx(15325.476584022039).epsilon(1e-12));
    CHECK(s.output_tokens.mean.value() == Approx(149.11895817680943).epsilon(1e-12));
}

TEST_CASE("a truncated Mooncake trace names its last line") {
    const temp_file file(mooncake_fixtures.text(small) + R"({"timestamp": 4000, "input_len)", "trace.jsonl");
    const input_error e = read_error(mooncake_trace_format, file.path());
    CHECK(e.file() == file.str());
    CHECK(e.line() == 6);
    CHECK(e.reason().find("malformed JSON") != std::string::npos);
}

TEST_CASE("a Mooncake length of the wrong type names line and field") {
    const temp_file file(mooncake_fixtures.text(small) + R"({"timestamp": 4000, "input_length": "100", "output_length": 5})",
                         "trace.jsonl");
    const input_error e = read_error(mooncake_trace_format, file.path());
    CHECK(e.line() == 6);
    CHECK(e.field() == "input_length");
    CHECK(e.reason() == "expected a number, got string");
}

TEST_CASE("a Mooncake line without output_length is an error") {
    const temp_file file(R"({"timestamp": 0, "input_length": 100})", "trace.jsonl");
    const input_error e = read_error(mooncake_trace_format, file.path());
    CHECK(e.line() == 1);
    CHECK(e.field() == "output_length");
}

TEST_CASE("a negative Mooncake timestamp is an error") {
    const temp_file file(R"({"timestamp": -5, "input_length": 100, "output_length": 5})", "trace.jsonl");
    CHECK(read_error(mooncake_trace_format, file.path()).field() == "timestamp");
}

TEST_CASE("Mooncake arrivals that go backwards name line and field") {
    const temp_file file(mooncake_fixtures.text(small) + R"({"timestamp": 3000, "input_length": 1, "output_length": 1})",
                         "trace.jsonl");
    const input_error e = read_error(mooncake_trace_format, file.path());
    CHECK(e.line() == 6);
    CHECK(e.field() == "timestamp");
    CHECK(e.reason().find("backwards") != std::string::npos);
}

TEST_CASE("a reader under --skip-bad skips and counts a bad Mooncake line") {
    const temp_file file(mooncake_fixtures.text(small) + "not json\n" +
                             R"({"timestamp": 5000, "input_length": 1, "output_length": 1})",
                         "trace.jsonl");
    const auto run = read_one(mooncake_trace_format, file.path(), {.skip_bad = true});
    CHECK(run.skipped.count == 1);
    CHECK(run.requests.size() == 5);
    CHECK(run.requests.t_sched().back() == 5.0);
}

TEST_CASE("an empty Mooncake trace is an error") {
    const temp_file file("\n\n", "trace.jsonl");
    CHECK(read_error(mooncake_trace_format, file.path()).reason() == "no arrivals in the file");
}

// ---------------------------------------------------------------- read_arrivals

TEST_CASE("read_arrivals gives the load driver the same arrivals as the readers") {
    for (const auto& [format, file] : {std::pair{&azure_trace_format, azure_code},
                                       std::pair{&mooncake_trace_format, mooncake_synthetic}}) {
        CAPTURE(file.string());
        const auto arrivals = read_arrivals(file);
        const auto run = read_one(*format, file);
        REQUIRE(arrivals.size() == run.requests.size());
        bool same = true;
        for (std::size_t i = 0; i < arrivals.size(); ++i)
            same = same && arrivals[i].t == run.requests.t_sched()[i] &&
                   arrivals[i].prompt_tokens == run.requests.prompt_tokens()[i] &&
                   arrivals[i].output_tokens == run.requests.output_tokens()[i];
        CHECK(same);
    }
}

TEST_CASE("read_arrivals tells the formats apart by content, not by name") {
    const temp_file azure(azure_fixtures.text(midnight), "trace.txt");
    const auto a = read_arrivals(azure.path());
    REQUIRE(a.size() == 5);
    CHECK(a[1].t == 2e-07);
    CHECK(a[4].output_tokens == 50);
    const temp_file mooncake(mooncake_fixtures.text(small), "trace.txt");
    const auto m = read_arrivals(mooncake.path());
    REQUIRE(m.size() == 4);
    CHECK(m[3].t == 3.001);
    CHECK(m[0].prompt_tokens == 6758);
}

TEST_CASE("read_arrivals refuses a file that is no trace") {
    const fs::path detail = shared / "burstgpt-replay-vllm-liao4s" / "detail_log" / "detail_log_scale100_prompt500.json";
    try {
        read_arrivals(detail);
        FAIL("no input_error was thrown");
    } catch (const input_error& e) {
        CHECK(e.file() == detail.string());
        CHECK(e.reason().find("not an arrival trace") != std::string::npos);
    }
}

TEST_CASE("read_arrivals reports bad input as the readers do") {
    const temp_file file(azure_header + "2023-11-16 18:17:03.9799600,4808,-10", "trace.csv");
    try {
        read_arrivals(file.path());
        FAIL("no input_error was thrown");
    } catch (const input_error& e) {
        CHECK(e.line() == 2);
        CHECK(e.field() == "GeneratedTokens");
    }
}

// ---------------------------------------------------------------- sniffing

TEST_CASE("the trace sniffers pick exactly their files in the shared data") {
    for (const auto& entry : fs::recursive_directory_iterator(shared)) {
        if (!entry.is_regular_file()) continue;
        const std::string head = file_head(entry.path());
        const std::string folder = entry.path().parent_path().filename().string();
        const std::string extension = entry.path().extension().string();
        CAPTURE(entry.path().string());
        if (folder == "azure-llm-inference-2023" && extension == ".csv") CHECK(azure_trace_format.sniff(head) == 100);
        else CHECK(azure_trace_format.sniff(head) == 0);
        if (folder == "mooncake-fast25" && extension == ".jsonl") CHECK(mooncake_trace_format.sniff(head) == 100);
        else CHECK(mooncake_trace_format.sniff(head) == 0);
    }
}

TEST_CASE("the trace sniffers return 0 on every other test file and example log") {
    const fs::path data(SERVESTAT_TEST_DATA_DIR);
    for (const fs::path& dir : {data, data / ".." / ".." / "examples" / "logs"}) {
        for (const auto& entry : fs::recursive_directory_iterator(dir)) {
            if (!entry.is_regular_file()) continue;
            const std::string head = file_head(entry.path());
            const std::string name = entry.path().filename().string();
            CAPTURE(entry.path().string());
            CHECK((azure_trace_format.sniff(head) > 0) == (name == midnight));
            CHECK((mooncake_trace_format.sniff(head) > 0) == (name == small));
        }
    }
    CHECK(azure_trace_format.sniff(azure_fixtures.text(midnight)) == 100);
    CHECK(mooncake_trace_format.sniff(mooncake_fixtures.text(small)) == 100);
}

} // namespace test_ingest_arrival_trace
