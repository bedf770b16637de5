// Where a report is written: plot file names stay within NAME_MAX whatever the run's label
// (reliability finding M1), and an output folder that cannot be made, or a file that cannot be
// written, says so in the user's words (L4).
#include <cstddef>    // std::size_t
#include <filesystem> // std::filesystem
#include <fstream>    // std::ofstream
#include <string>     // std::string
#include <vector>     // std::vector


#include <catch2/catch.hpp> // TEST_CASE, CHECK, REQUIRE

#include "servestat/app/output_folder.hpp" // create_output_folder
#include "servestat/app/report_files.hpp"  // write_report, detail::write_text_file
#include "servestat/report/plots.hpp"      // plot_prefixes, detail::slug

#include "temp_file.hpp" // test::temp_folder

namespace test_output_paths { // the unity build compiles several test files as one: each keeps its names

using namespace servestat;
namespace fs = std::filesystem;

namespace {

std::vector<run_stats> runs_labelled(const std::vector<std::string>& labels) {
    std::vector<run_stats> out(labels.size());
    for (std::size_t i = 0; i < labels.size(); ++i) out[i].meta.label = labels[i];
    return out;
}

bool is_hex(const std::string& text) { return text.find_first_not_of("0123456789abcdef") == std::string::npos; }

std::string message_of_creating(const fs::path& dir) {
    try {
        app::create_output_folder(dir);
    } catch (const error& e) {
        return e.what();
    }
    return "";
}

} // namespace

TEST_CASE("a label of 240 characters gives a plot prefix of 100: its first 91 characters, a dash and a hash") {
    const auto prefixes = report::plot_prefixes(runs_labelled({std::string(240, 'L')}));
    REQUIRE(prefixes.size() == 1);
    const std::string& p = prefixes[0];
    REQUIRE(p.size() == 100);
    CHECK(p.substr(0, 91) == std::string(91, 'l'));
    CHECK(p[91] == '-');
    CHECK(is_hex(p.substr(92)));
}

TEST_CASE("long labels that differ only past the cut get prefixes of their own, the same each time") {
    const std::string shared(200, 'a');
    const auto first = report::plot_prefixes(runs_labelled({shared + "-c16", shared + "-c32"}));
    const auto again = report::plot_prefixes(runs_labelled({shared + "-c16", shared + "-c32"}));
    CHECK(first[0] != first[1]);
    CHECK(first == again);
}

TEST_CASE("a short label keeps its slug as before") {
    CHECK(report::plot_prefixes(runs_labelled({"Mix 90/10 c16"}))[0] == "mix-90-10-c16");
}

TEST_CASE("a report on a run labelled with 240 characters writes its plots") {
    const test::temp_folder scratch;
    const std::string prefix = report::plot_prefixes(runs_labelled({std::string(240, 'L')}))[0];
    const std::vector<report::plot_file> plots{{prefix + "-e2e-histogram.svg", "End-to-end latency", "<svg/>"}};
    app::write_report({(scratch.path / "rep").string(), {"json"}, ""}, "report", json{{"stats", json::object()}}, plots);
    CHECK(fs::is_regular_file(scratch.path / "rep" / "plots" / (prefix + "-e2e-histogram.svg")));
    CHECK(fs::is_regular_file(scratch.path / "rep" / "report.json"));
}

TEST_CASE("a file that cannot be written says why") {
    const test::temp_folder scratch;
    const fs::path too_long = scratch.path / (std::string(300, 'x') + ".svg");
    try {
        app::detail::write_text_file(too_long, "<svg/>");
        FAIL("a 304-byte file name was written");
    } catch (const input_error& e) {
        CHECK(e.reason() == "cannot write file: file name too long");
    }
}

TEST_CASE("-o onto a file, or below one, names the option and the reason") {
    const test::temp_folder scratch;
    const fs::path file = scratch.path / "taken";
    std::ofstream(file) << "x";
    CHECK(message_of_creating(file) == "-o " + file.string() + ": cannot create the folder: a file is there, not a folder");
    CHECK(message_of_creating(file / "rep") ==
          "-o " + (file / "rep").string() + ": cannot create the folder: a part of the path is a file, not a folder");
}

TEST_CASE("-o onto a folder that is there already is no error") {
    const test::temp_folder scratch;
    CHECK(message_of_creating(scratch.path) == "");
    CHECK(message_of_creating(scratch.path / "a" / "b") == "");
    CHECK(fs::is_directory(scratch.path / "a" / "b"));
}

} // namespace test_output_paths
