// Golden SVG files of the plot tests: compared byte for byte, rewritten on request
// (see tests/golden/plot/README.md).
#pragma once

#include <catch2/catch.hpp> // Catch2 v2

#include <cstdlib>  // std::getenv
#include <fstream>  // std::ifstream, std::ofstream
#include <iterator> // std::istreambuf_iterator
#include <string>   // std::string

namespace servestat::test {

inline std::string golden_path(const std::string& name) { return std::string(SERVESTAT_TEST_GOLDEN_DIR) + "/plot/" + name; }

// SERVESTAT_UPDATE_GOLDEN=1 rewrites the file instead.
inline void check_golden(const std::string& name, const std::string& svg) {
    const std::string path = golden_path(name);
    if (const char* update = std::getenv("SERVESTAT_UPDATE_GOLDEN"); update && std::string(update) == "1") {
        std::ofstream(path, std::ios::binary) << svg;
        WARN("rewrote " << path);
        return;
    }
    std::ifstream in(path, std::ios::binary);
    INFO("golden file " << path << " (SERVESTAT_UPDATE_GOLDEN=1 regenerates it)");
    REQUIRE(in);
    const std::string expected{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    CHECK(svg == expected);
}

} // namespace servestat::test
