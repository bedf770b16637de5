// A folder read goes on past a file it cannot read: one deleted since the folder was listed (L5), or
// one whose path is longer than PATH_MAX (M2), is passed over with a note naming it and the reason,
// and the rest is read. A message about a very long path keeps its reason (M2).
#include <filesystem> // std::filesystem
#include <string>     // std::string
#include <vector>     // std::vector

#include <climits>   // PATH_MAX
#include <fcntl.h>   // openat, O_DIRECTORY
#include <sys/stat.h> // mkdirat
#include <unistd.h>  // close, write

#include <catch2/catch.hpp> // TEST_CASE, CHECK, REQUIRE

#include "servestat/ingest/detect.hpp" // for_each_run, detail::head_of_listed, detail::same_bytes_as_earlier

#include "temp_file.hpp" // test::temp_folder

namespace test_folder_changes { // the unity build compiles several test files as one: each keeps its names

using namespace servestat;
namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using Catch::Matchers::EndsWith;

namespace {

const fs::path log_file = SERVESTAT_TEST_DATA_DIR "/../../examples/logs/mix_90_10-c16.jsonl";

struct folder_read {
    std::vector<run> runs;
    std::vector<passed_over_file> passed_over;
};

folder_read read_folder(const fs::path& dir) {
    folder_read out;
    load_options o;
    o.listed = [&](const directory_listing& l) { out.passed_over = l.passed_over; };
    const std::vector<std::string> inputs{dir.string()};
    for_each_run(inputs, o, [&](run&& r) { out.runs.push_back(std::move(r)); });
    return out;
}

// `levels` folders of `name` one in another under `top`, made a level at a time (mkdirat), so the
// path may pass PATH_MAX, which no single call takes; a one-request log in the deepest. Its path.
std::string deep_log(const fs::path& top, const std::string& name, int levels) {
    int fd = ::open(top.c_str(), O_RDONLY | O_DIRECTORY);
    std::string path = top.string();
    for (int k = 0; k < levels; ++k) {
        ::mkdirat(fd, name.c_str(), 0700);
        const int inner = ::openat(fd, name.c_str(), O_RDONLY | O_DIRECTORY);
        ::close(fd);
        fd = inner;
        path += "/" + name;
    }
    const std::string log = R"({"servestat":"log","version":1,"run":{"label":"deep"}})"
                            "\n"
                            R"({"t_sent":0,"t_end":1,"status":"ok"})"
                            "\n";
    const int file = ::openat(fd, "deep.jsonl", O_WRONLY | O_CREAT, 0600);
    CHECK(::write(file, log.data(), log.size()) == static_cast<ssize_t>(log.size()));
    ::close(file);
    ::close(fd);
    return path + "/deep.jsonl";
}

} // namespace

TEST_CASE("a folder's file deleted after the folder was listed cannot be read, and says why") {
    const test::temp_folder scratch;
    const auto head = detail::head_of_listed(scratch.path / "gone.jsonl");
    REQUIRE(head.unreadable);
    CHECK(*head.unreadable == "cannot read: no such file or directory");
}

TEST_CASE("a file gone before its bytes are compared is no copy and no error") {
    const test::temp_folder scratch;
    fs::copy_file(log_file, scratch.path / "a.jsonl");
    fs::copy_file(log_file, scratch.path / "b.jsonl");
    const std::vector<fs::path> files{scratch.path / "a.jsonl", scratch.path / "b.jsonl"};
    fs::remove(files[0]); // after its size was taken is what a race gives; before, the same answer
    const auto repeated = detail::same_bytes_as_earlier(files, scratch.path);
    CHECK_FALSE(repeated[0]);
    CHECK_FALSE(repeated[1]);
}

TEST_CASE("a log whose path passes PATH_MAX is passed over with the reason, and the folder's other log is read") {
    const test::temp_folder scratch;
    fs::copy_file(log_file, scratch.path / "top.jsonl");
    const std::string deep = deep_log(scratch.path, std::string(100, 'd'), PATH_MAX / 100 + 1); // 41 × 101 bytes
    REQUIRE(deep.size() > PATH_MAX);
    const auto read = read_folder(scratch.path);
    REQUIRE(read.runs.size() == 1);
    CHECK(read.runs[0].meta.source.path == (scratch.path / "top.jsonl").string());
    REQUIRE(read.passed_over.size() == 1);
    CHECK(read.passed_over[0].path == deep);
    CHECK(read.passed_over[0].reason == "cannot read: file name too long");
}

TEST_CASE("a message about a path of 5,000 characters keeps the reason whole and shortens the path in its middle") {
    const std::string path = "/deeper/" + std::string(5000, 'd') + "/x.jsonl";
    const input_error e(path, 0, "", "cannot read: file name too long");
    const std::string what = e.what();
    CHECK_THAT(what, EndsWith(": cannot read: file name too long"));
    CHECK_THAT(what, Contains("/deeper/ddd") && Contains("ddd/x.jsonl") && Contains("\xE2\x80\xA6 (5,016 characters) \xE2\x80\xA6"));
    CHECK(what.size() < error::max_message_chars);
    CHECK(e.file() == path); // the whole path stays for callers that name the file again
}

TEST_CASE("a long text shortened in its middle keeps as many characters as asked, half each side") {
    CHECK(shortened_in_middle("short", 300) == "short");
    CHECK(shortened_in_middle("abcdefghij", 4) == "ab\xE2\x80\xA6 (10 characters) \xE2\x80\xA6ij");
    CHECK(shortened_in_middle("abcdefghij", 5) == "abc\xE2\x80\xA6 (10 characters) \xE2\x80\xA6ij");
    CHECK(shortened_in_middle("\xC3\xA9\xC3\xA9\xC3\xA9", 2) == "\xC3\xA9\xE2\x80\xA6 (3 characters) \xE2\x80\xA6\xC3\xA9");
}

TEST_CASE("a message of 10,000 characters keeps its end, where the reason is") {
    const error e(std::string(10000, 'L') + ": the reason");
    CHECK_THAT(e.what(), EndsWith("LLL: the reason"));
}

} // namespace test_folder_changes
