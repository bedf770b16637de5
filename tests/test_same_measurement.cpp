// A folder's file is passed over as the same measurement as an earlier one only when it is: the
// same bytes, or the same run to every request's every field (reliability findings H2, H3, H4).
#include <filesystem> // std::filesystem
#include <fstream>    // std::ifstream, std::ofstream
#include <iterator>   // std::istreambuf_iterator
#include <string>     // std::string
#include <vector>     // std::vector


#include <catch2/catch.hpp> // TEST_CASE, CHECK, REQUIRE

#include "servestat/ingest/detect.hpp" // for_each_run, detail::same_bytes_as_earlier

#include "temp_file.hpp" // test::temp_folder

namespace test_same_measurement { // the unity build compiles several test files as one: each keeps its names

using namespace servestat;
namespace fs = std::filesystem;

namespace {

const fs::path log_file = SERVESTAT_TEST_DATA_DIR "/../../examples/logs/mix_90_10-c16.jsonl";

std::string text_of(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write(const fs::path& file, const std::string& text) { std::ofstream(file, std::ios::binary) << text; }

// `text` with every `every`-th "status":"ok" of a request line turned into an HTTP 500.
std::string with_failures(std::string text, int every) {
    const std::string ok = "\"status\":\"ok\",\"http_status\":200";
    int k = 0;
    for (std::size_t at = 0; (at = text.find(ok, at)) != std::string::npos; ++at)
        if (k++ % every == 0) text.replace(at, ok.size(), "\"status\":\"error\",\"http_status\":500");
    return text;
}

struct folder_read {
    std::vector<run> runs;
    std::vector<passed_over_file> passed_over;
};

folder_read read_folder(const fs::path& dir) {
    folder_read out;
    std::vector<directory_listing> listings;
    load_options o;
    o.listed = [&](const directory_listing& l) { listings.push_back(l); };
    const std::vector<std::string> inputs{dir.string()};
    for_each_run(inputs, o, [&](run&& r) { out.runs.push_back(std::move(r)); });
    for (auto& l : listings)
        for (auto& p : l.passed_over) out.passed_over.push_back(std::move(p));
    return out;
}

} // namespace

TEST_CASE("a log whose requests differ from an earlier one's is a run of its own, even with the same times") {
    const test::temp_folder scratch;
    const std::string monday = text_of(log_file);
    write(scratch.path / "monday.jsonl", monday);
    write(scratch.path / "tuesday.jsonl", with_failures(monday, 2)); // same t_sent and t_end, half the requests failed
    const auto read = read_folder(scratch.path);
    REQUIRE(read.runs.size() == 2);
    CHECK(read.passed_over.empty());
}

TEST_CASE("the same log saved twice is one run, passed over with the reason") {
    const test::temp_folder scratch;
    fs::copy_file(log_file, scratch.path / "a.jsonl");
    fs::copy_file(log_file, scratch.path / "b.jsonl");
    const auto read = read_folder(scratch.path);
    REQUIRE(read.runs.size() == 1);
    REQUIRE(read.passed_over.size() == 1);
    CHECK(read.passed_over[0].reason == "the same bytes as a.jsonl");
}

TEST_CASE("files of one size are told apart by their bytes, not compared whole pair by pair") {
    const test::temp_folder scratch;
    std::vector<fs::path> files;
    // 300 files of one size that differ in their last bytes, and one repeat of the 200th.
    for (int i = 0; i < 300; ++i) {
        files.push_back(scratch.path / ("f" + std::to_string(i) + ".txt"));
        write(files.back(), std::string(4000, 'x') + "\nline " + std::to_string(1000 + i) + "\n");
    }
    files.push_back(scratch.path / "again.txt");
    fs::copy_file(files[200], files.back());
    const auto repeated = detail::same_bytes_as_earlier(files, scratch.path);
    for (std::size_t i = 0; i < 300; ++i) CHECK_FALSE(repeated[i]);
    REQUIRE(repeated[300]);
    CHECK(*repeated[300] == "the same bytes as f200.txt");
}

TEST_CASE("a file that no format recognises is not read whole to look for copies of it") {
    const test::temp_folder scratch;
    fs::copy_file(log_file, scratch.path / "run.jsonl");
    // Two sparse files of 1 GiB: read whole to compare, they would cost 2 GiB of memory or a long read.
    for (const char* name : {"a.bin", "b.bin"}) {
        std::ofstream(scratch.path / name) << "not a log\n";
        fs::resize_file(scratch.path / name, std::uintmax_t{1} << 30);
    }
    const auto read = read_folder(scratch.path);
    CHECK(read.runs.size() == 1);
    REQUIRE(read.passed_over.size() == 2);
    for (const auto& p : read.passed_over) CHECK(p.reason == "no format recognises it");
}

TEST_CASE("a file of two runs, both the same as another file's, is listed once") {
    const test::temp_folder scratch;
    // One GuideLLM report of two benchmarks, saved as JSON and as YAML.
    fs::copy_file(SERVESTAT_TEST_DATA_DIR "/guidellm/benchmarks_v0.2.json", scratch.path / "gl.json");
    fs::copy_file(SERVESTAT_TEST_DATA_DIR "/guidellm/benchmarks_v0.2.yaml", scratch.path / "gl.yaml");
    const auto read = read_folder(scratch.path);
    CHECK(read.runs.size() == 2);
    REQUIRE(read.passed_over.size() == 1);
    CHECK(read.passed_over[0].path == (scratch.path / "gl.yaml").string());
    CHECK(read.passed_over[0].reason == "the same run as gl.json: same requests and values");
}

} // namespace test_same_measurement
