// LMBench's per-request CSV (LMCache multi-round QA) as llm-d-benchmark committed it: the seven
// real result sets in tests/corpus/lmbench-llm-d-*, each described by its SOURCE.md. Values are
// checked against the files' own cells and against numpy on the same columns.
#include "servestat/ingest/lmbench_csv.hpp"

#include <cmath>      // std::abs
#include <filesystem> // std::filesystem
#include <string>     // std::string
#include <vector>     // std::vector

#include "servestat/ingest/detect.hpp"      // builtin_formats, detect_format
#include "servestat/stats/run_stats.hpp"    // analyze, find_summary, find_percentile
#include "servestat/stats/run_validity.hpp" // run_failed_entirely

#include "format_reading.hpp" // test::read_one, test::read_error, test::file_head, test::has_note, test::reported
#include "temp_file.hpp"      // test::temp_file
#include <catch2/catch.hpp>   // TEST_CASE, REQUIRE, CHECK, Approx

namespace test_ingest_lmbench_csv { // the unity build compiles several test files as one: each keeps its names

using namespace servestat;
using servestat::test::file_head;
using servestat::test::has_note;
using servestat::test::read_error;
using servestat::test::read_one;
using servestat::test::reported;

namespace {

const std::filesystem::path corpus = SERVESTAT_CORPUS_DIR;
const std::filesystem::path exp2 = corpus / "lmbench-llm-d-exp2-70b/exp-2/llm-d-70b-2replicas";
const std::filesystem::path sharegpt = exp2 / "LMBench_sharegpt_output_6.5.csv"; // 6 columns
const std::filesystem::path short_input = exp2 / "LMBench_short_input_qps2.csv"; // 8 columns, rows not in time order
const std::filesystem::path header_only =
    corpus / "lmbench-llm-d-k8s-70b-sessions/lmbenchmark-llama-3-1-70B/vllm/LMBench_long_input_output_0.1.csv";
const std::filesystem::path second_turns = corpus /
    "lmbench-llm-d-8b-2replicas-workloads/lmbenchmark/llama8B-all-2replicas/vllm/LMBench_long_input_output_3.75.csv";

std::vector<std::filesystem::path> csv_files_under(const std::filesystem::path& dir) {
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir))
        if (entry.is_regular_file() && entry.path().extension() == ".csv") files.push_back(entry.path());
    return files;
}

std::vector<std::filesystem::path> lmbench_corpus_files() {
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(corpus))
        if (entry.is_directory() && entry.path().filename().string().starts_with("lmbench-"))
            for (auto& f : csv_files_under(entry.path())) files.push_back(std::move(f));
    return files;
}

const std::string header8 = "prompt_tokens,generation_tokens,ttft,generation_time,user_id,question_id,launch_time,finish_time\n";

} // namespace

TEST_CASE("every LMBench CSV of the corpus is detected as lmbench-csv, and no other format claims it") {
    const auto files = lmbench_corpus_files();
    CHECK(files.size() == 433); // the seven SOURCE.md counts: 80 + 44 + 84 + 30 + 76 + 107 + 12
    for (const auto& file : files) {
        INFO(file);
        const std::string head = file_head(file);
        const log_format* found = detect_format(head);
        REQUIRE(found);
        CHECK(found->name == "lmbench-csv");
        for (const auto* other : builtin_formats)
            if (other != &lmbench_csv_format) CHECK(other->sniff(head) == 0);
    }
}

TEST_CASE("lmbench-csv claims none of the other formats' CSV files") {
    for (const auto& file : csv_files_under(SERVESTAT_TEST_DATA_DIR)) {
        INFO(file);
        CHECK(lmbench_csv_format.sniff(file_head(file)) == 0);
    }
}

TEST_CASE("a ShareGPT run: its rows as the file gives them, on the clock of the earliest launch") {
    const run r = read_one(lmbench_csv_format, sharegpt);
    CHECK(r.meta.kind == run_kind::requests);
    CHECK(r.meta.tool == "lmbench");
    CHECK(r.meta.label == "LMBench_sharegpt_output_6.5");
    CHECK(r.meta.source.format == "lmbench-csv");
    CHECK(r.meta.shared_clock);
    CHECK(has_note(r, "error rate is unknown"));
    REQUIRE(r.requests.size() == 69);
    // Line 2: 689,275,0.3435330390930176,21.865622997283936,1746570004.7787838,1746570026.98794 (the
    // earliest launch). Line 3: 543,332,0.5085258483886719,26.02241849899292,1746570004.933095,1746570031.46404.
    const request_record first = r.requests.row(0);
    CHECK(first.t_sent == 0.0);
    CHECK(*first.t_first == Approx(0.3435330390930176).margin(1e-9));
    CHECK(*first.t_end == Approx(1746570026.98794 - 1746570004.7787838).margin(1e-9));
    CHECK(first.prompt_tokens == 689);
    CHECK(first.output_tokens == 275);
    CHECK(first.status == request_status::ok);
    CHECK_FALSE(first.turn); // this variant has no question_id
    const request_record second = r.requests.row(1);
    CHECK(*second.t_sent == Approx(1746570004.933095 - 1746570004.7787838).margin(1e-9));
    CHECK(*second.t_first - *second.t_sent == Approx(0.5085258483886719).margin(1e-9));
    CHECK(*second.t_end == Approx(1746570031.46404 - 1746570004.7787838).margin(1e-9));
    CHECK(second.prompt_tokens == 543);
    CHECK(second.output_tokens == 332);
}

TEST_CASE("servestat's statistics of the ShareGPT run equal numpy's on the same columns") {
    // /usr/bin/python3 + numpy 1.x on the file's columns: ttft = t, e2e = finish_time − launch_time;
    // t.mean(), t.std(ddof=1), np.percentile(t, [50, 90, 99]) (linear); duration = max(finish) − min(launch).
    const run r = read_one(lmbench_csv_format, sharegpt);
    const run_stats s = analyze(r);
    CHECK(s.requests == 69);
    CHECK(s.ok == 69);
    CHECK(s.failed == 0);
    const summary* ttft = find_summary(s, "all", metric::ttft);
    REQUIRE(ttft);
    CHECK(ttft->n == 69);
    CHECK(*ttft->mean == Approx(3.233365663583728).epsilon(1e-9));
    CHECK(*ttft->std == Approx(4.8227200871827796).epsilon(1e-9));
    CHECK(*find_percentile(s, "all", metric::ttft, 50) == Approx(0.59105420112609863).epsilon(1e-9));
    CHECK(*find_percentile(s, "all", metric::ttft, 90) == Approx(12.455867576599122).epsilon(1e-9));
    CHECK(*find_percentile(s, "all", metric::ttft, 99) == Approx(14.07127979278563).epsilon(1e-9));
    const summary* e2e = find_summary(s, "all", metric::e2e);
    REQUIRE(e2e);
    CHECK(*e2e->mean == Approx(16.32310103679049).epsilon(1e-9));
    CHECK(*find_percentile(s, "all", metric::e2e, 50) == Approx(17.870335817337036).epsilon(1e-9));
    CHECK(*find_percentile(s, "all", metric::e2e, 99) == Approx(27.2038486289978).epsilon(1e-9));
    REQUIRE(s.duration);
    CHECK(*s.duration == Approx(36.819159984588623).epsilon(1e-9));
    CHECK(*s.prompt_tokens.mean == Approx(749.43478260869563).epsilon(1e-12));
    CHECK(*s.output_tokens.mean * 69 == Approx(11480).epsilon(1e-12)); // sum of generation_tokens
}

TEST_CASE("a short-input run: rows grouped by user, so its 0 is the earliest launch (line 201), not line 2") {
    const run r = read_one(lmbench_csv_format, short_input);
    REQUIRE(r.requests.size() == 210);
    // Line 201: 76.0,20.0,0.08130669593811035,0.9146549701690674,1522,1,1746595708.4631827,1746595709.4591453.
    const request_record earliest = r.requests.row(199);
    CHECK(earliest.t_sent == 0.0);
    CHECK(*earliest.t_first == Approx(0.08130669593811035).margin(1e-9));
    CHECK(*earliest.t_end == Approx(1746595709.4591453 - 1746595708.4631827).margin(1e-9));
    CHECK(earliest.prompt_tokens == 76); // written "76.0"
    CHECK(earliest.output_tokens == 20);
    CHECK(earliest.turn == 1); // question_id
    // Line 2: ...,1203,1,1746595718.0061457,1746595719.065984.
    const request_record first_row = r.requests.row(0);
    CHECK(*first_row.t_sent == Approx(1746595718.0061457 - 1746595708.4631827).margin(1e-9));
    CHECK(*first_row.t_end == Approx(1746595719.065984 - 1746595708.4631827).margin(1e-9));
    // numpy as above: ttft mean 0.092935054642813542, p99 0.13534214735031125; e2e mean
    // 1.0217930736995879; duration 100.57654356956482.
    const run_stats s = analyze(r);
    CHECK(*find_summary(s, "all", metric::ttft)->mean == Approx(0.092935054642813542).epsilon(1e-9));
    CHECK(*find_percentile(s, "all", metric::ttft, 99) == Approx(0.13534214735031125).epsilon(1e-9));
    CHECK(*find_summary(s, "all", metric::e2e)->mean == Approx(1.0217930736995879).epsilon(1e-9));
    CHECK(*s.duration == Approx(100.57654356956482).epsilon(1e-9));
}

TEST_CASE("question_id is the request's turn in its user's conversation") {
    const run r = read_one(lmbench_csv_format, second_turns);
    // Line 3: 21202.0,100.0,0.1484215259552002,3.645516872406006,283,2,1746084162.0765328,1746084165.870472.
    const request_record row = r.requests.row(1);
    CHECK(row.turn == 2);
    CHECK(row.prompt_tokens == 21202);
    CHECK(*row.t_end - *row.t_sent == Approx(1746084165.870472 - 1746084162.0765328).margin(1e-9));
}

TEST_CASE("a header-only file is a run of zero requests that a folder read shows as failed") {
    const run r = read_one(lmbench_csv_format, header_only);
    CHECK(r.meta.kind == run_kind::requests);
    CHECK(r.requests.size() == 0);
    CHECK(reported(r, "ok") == 0);
    CHECK(has_note(r, "header only"));
    const run_stats s = analyze(r);
    CHECK(s.requests == 0);
    CHECK(run_failed_entirely(s));
    // ... while a run with requests is not.
    CHECK_FALSE(run_failed_entirely(analyze(read_one(lmbench_csv_format, sharegpt))));
}

TEST_CASE("header-only files of equal bytes are each a failed run of their own, never copies") {
    // LMBench's long-input runs that completed nothing: the same header line at every rate.
    const servestat::test::temp_file dir("", "unused");
    const auto set = dir.dir() / "set";
    std::filesystem::create_directories(set);
    for (const char* rate : {"0.1", "0.3", "0.5"})
        std::filesystem::copy_file(header_only, set / (std::string("LMBench_long_input_output_") + rate + ".csv"));
    std::vector<directory_listing> listings;
    load_options o;
    o.listed = [&](const directory_listing& l) { listings.push_back(l); };
    const auto runs = read_logs(std::vector<std::string>{set.string()}, o);
    CHECK(runs.size() == 3);
    REQUIRE(listings.size() == 1);
    CHECK(listings[0].passed_over.empty());
}

TEST_CASE("a row with ttft 0 (LMBench saw no content chunk) has no first token") {
    const test::temp_file f(header8 + "100,0,0,0,1,1,1000.5,1001.0\n100,5,0.25,0.5,2,1,1000.0,1000.75\n", "LMBench_x.csv");
    const run r = read_one(lmbench_csv_format, f.path());
    REQUIRE(r.requests.size() == 2);
    CHECK_FALSE(r.requests.row(0).t_first);
    CHECK(r.requests.row(0).t_sent == 0.5);
    CHECK(r.requests.row(0).t_end == 1.0);
    CHECK(r.requests.row(1).t_first == 0.25);
}

TEST_CASE("bad LMBench rows are input errors naming the file, line and field") {
    const auto check_error = [](const std::string& content, std::size_t line, const std::string& field,
                                const std::string& part) {
        INFO(content);
        const test::temp_file f(content, "LMBench_bad.csv");
        const input_error e = read_error(lmbench_csv_format, f.path());
        CHECK(e.file() == f.str());
        CHECK(e.line() == line);
        CHECK(e.field() == field);
        CHECK(e.reason().find(part) != std::string::npos);
    };
    const std::string good = "76.0,20.0,0.1,0.9,1,1,1000.0,1001.0\n";
    check_error("prompt_tokens,generation_tokens,ttft,generation_time,launch_time\n1,1,0.1,0.2,1000\n", 1,
                "finish_time", "missing required column");
    check_error(header8 + good + "76.0,20.0,fast,0.9,1,1,1000.0,1001.0\n", 3, "ttft", "not a number");
    check_error(header8 + good + "76.0,20.0,0.1,0.9,1,1,1000.0,999.0\n", 3, "finish_time", "before launch_time");
    check_error(header8 + good + "76.0,20.0,2.5,0.9,1,1,1000.0,1001.0\n", 3, "ttft", "longer than");
    check_error(header8 + good + "76.5,20.0,0.1,0.9,1,1,1000.0,1001.0\n", 3, "prompt_tokens", "not a whole number");
    check_error(header8 + good + "76.0,20.0,0.1,0.9,1,1,,1001.0\n", 3, "launch_time", "missing");
    check_error(header8 + good + "76.0,20.0,-0.1,0.9,1,1,1000.0,1001.0\n", 3, "ttft", ">= 0");
    check_error(header8 + good + "76.0,20.0,0.1,0.9,1,0,1000.0,1001.0\n", 3, "question_id", "1 or more");
    check_error(header8 + good + "76.0,20.0,nan,0.9,1,1,1000.0,1001.0\n", 3, "ttft", "finite");
}

TEST_CASE("under --skip-bad a bad LMBench row is skipped and counted") {
    const test::temp_file f(header8 + "76.0,20.0,0.1,0.9,1,1,1000.0,1001.0\n76.0,20.0,x,0.9,1,1,1000.0,1001.0\n",
                            "LMBench_bad.csv");
    read_options options;
    options.skip_bad = true;
    const run r = read_one(lmbench_csv_format, f.path(), options);
    CHECK(r.requests.size() == 1);
    CHECK(r.skipped.count == 1);
}

} // namespace test_ingest_lmbench_csv
