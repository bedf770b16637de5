// The embedded built-in templates are exactly templates/*.mustache: names, order and bytes.
#include <catch2/catch.hpp> // Catch2 v2

#include <algorithm>    // std::is_sorted, std::mismatch, std::count
#include <cstddef>      // std::size_t
#include <filesystem>   // std::filesystem
#include <fstream>      // std::ifstream
#include <iterator>     // std::istreambuf_iterator
#include <set>          // std::set
#include <string>       // std::string
#include <string_view>  // std::string_view

#include "servestat/report/builtin_templates.hpp"

namespace test_builtin_templates { // the unity build compiles several test files as one: each keeps its names

using namespace servestat;

namespace {

namespace fs = std::filesystem;

constexpr const char* regenerate =
    "include/servestat/report/builtin_templates.hpp is out of date with templates/; regenerate it from the "
    "repository root with: cmake -DTEMPLATES_DIR=templates -DOUTPUT=include/servestat/report/builtin_templates.hpp "
    "-P cmake/embed_templates.cmake";

std::set<std::string> template_file_names() {
    std::set<std::string> names;
    for (const auto& entry : fs::directory_iterator(SERVESTAT_TEMPLATES_DIR)) {
        const auto& path = entry.path();
        if (entry.is_regular_file() && path.extension() == ".mustache") names.insert(path.stem().string());
    }
    return names;
}

std::string file_bytes(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// 0 when equal, else the 1-based line where the texts first differ: a readable failure for long texts.
std::size_t first_different_line(std::string_view a, std::string_view b) {
    const auto [ia, ib] = std::mismatch(a.begin(), a.end(), b.begin(), b.end());
    if (ia == a.end() && ib == b.end()) return 0;
    return 1 + static_cast<std::size_t>(std::count(a.begin(), ia, '\n'));
}

} // namespace

TEST_CASE("built-in template names are exactly the templates/*.mustache file names", "[render]") {
    std::set<std::string> embedded;
    for (const auto& t : builtin_templates) embedded.insert(std::string(t.name));
    INFO(regenerate);
    CHECK(embedded == template_file_names());
}

TEST_CASE("every built-in template's text equals its file byte for byte", "[render]") {
    for (const auto& name : template_file_names()) {
        INFO(name << ": " << regenerate);
        const auto* t = find_builtin_template(name);
        REQUIRE(t != nullptr);
        CHECK(first_different_line(t->text, file_bytes(fs::path(SERVESTAT_TEMPLATES_DIR) / (name + ".mustache"))) == 0);
    }
}

TEST_CASE("built-in templates are sorted by name", "[render]") {
    INFO(regenerate);
    CHECK(std::is_sorted(builtin_templates.begin(), builtin_templates.end(),
                         [](const auto& a, const auto& b) { return a.name < b.name; }));
}

TEST_CASE("looking up a template that is not built in gives nullptr", "[render]") {
    CHECK(find_builtin_template("no-such-template") == nullptr);
}

} // namespace test_builtin_templates
