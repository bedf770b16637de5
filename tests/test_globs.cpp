// Glob patterns the shell did not expand: matched a path part at a time, links to folders not
// followed under a wildcard (as the folder walk), and a file reached twice read once (M5).
#include <filesystem> // std::filesystem
#include <fstream>    // std::ofstream
#include <string>     // std::string
#include <vector>     // std::vector


#include <catch2/catch.hpp> // TEST_CASE, CHECK, REQUIRE

#include "servestat/app/globs.hpp" // expand_globs

#include "temp_file.hpp" // test::temp_folder

namespace test_globs { // the unity build compiles several test files as one: each keeps its names

using namespace servestat;
namespace fs = std::filesystem;
using strings = std::vector<std::string>;

namespace {

void touch(const std::string& file) { std::ofstream(file) << "x\n"; }

// A path below the folder, as the strings globs take and give.
std::string operator/(const test::temp_folder& folder, const std::string& below) { return (folder.path / below).string(); }

} // namespace

TEST_CASE("a wildcard does not go through links to folders: two links to '.' give no 2^K paths") {
    const test::temp_folder g;
    touch(g / "x.jsonl");
    fs::create_directory_symlink(".", g / "s1");
    fs::create_directory_symlink(".", g / "s2");
    CHECK(app::expand_globs({g / "*.jsonl"}) == strings{g / "x.jsonl"});
    // Followed, */*/x.jsonl matched s1/s1, s1/s2, s2/s1 and s2/s2: four runs of one file.
    CHECK_THROWS_WITH(app::expand_globs({g / "*/*/x.jsonl"}), Catch::Matchers::EndsWith("no file matches this pattern"));
}

TEST_CASE("a run reached by a folder link ('latest') is matched once, under its own name") {
    const test::temp_folder g;
    fs::create_directory(g / "run-2026-12-01");
    touch(g / "run-2026-12-01/a.jsonl");
    fs::create_directory_symlink("run-2026-12-01", g / "latest");
    CHECK(app::expand_globs({g / "*/*.jsonl"}) == strings{g / "run-2026-12-01/a.jsonl"});
    // Named in full, the link is the user's choice, and followed.
    CHECK(app::expand_globs({g / "latest/*.jsonl"}) == strings{g / "latest/a.jsonl"});
}

TEST_CASE("a file a pattern matches twice (a link to it beside it) is read once, with a note") {
    const test::temp_folder g;
    touch(g / "a.jsonl");
    fs::create_symlink("a.jsonl", g / "b.jsonl");
    strings notes;
    const auto found = app::expand_globs({g / "*.jsonl"}, [&](const std::string& n) { notes.push_back(n); });
    CHECK(found == strings{g / "a.jsonl"});
    CHECK(notes == strings{g / "b.jsonl" + ": passed over: the same file as " + g / "a.jsonl" + ", read once"});
}

TEST_CASE("matches come in natural order; hidden files only for a pattern starting with a dot") {
    const test::temp_folder g;
    for (const char* name : {"run-c16.jsonl", "run-c2.jsonl", ".hidden.jsonl"}) touch(g / name);
    fs::create_directory(g / "sub");
    touch(g / "sub/run-c4.jsonl");
    CHECK(app::expand_globs({g / "*.jsonl"}) == strings{g / "run-c2.jsonl", g / "run-c16.jsonl"});
    CHECK(app::expand_globs({g / ".*.jsonl"}) == strings{g / ".hidden.jsonl"});
    CHECK(app::expand_globs({g / "s?b/run-c[0-9].jsonl"}) == strings{g / "sub/run-c4.jsonl"});
}

TEST_CASE("the same file named twice by the user is kept twice: compare A A compares a run with itself") {
    const test::temp_folder g;
    touch(g / "a.jsonl");
    CHECK(app::expand_globs({g / "a.jsonl", g / "a.jsonl"}) == strings{g / "a.jsonl", g / "a.jsonl"});
}

} // namespace test_globs
