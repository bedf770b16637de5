// Files of a list are read in windows side by side: many small logs share one window, so threads
// are started once for them, not once per thread's worth of files (reliability finding M3).
#include <filesystem> // std::filesystem
#include <fstream>    // std::ofstream
#include <string>     // std::string
#include <vector>     // std::vector


#include <catch2/catch.hpp> // TEST_CASE, CHECK

#include "servestat/ingest/detect.hpp" // detail::window_of, detail::file_to_read

#include "temp_file.hpp" // test::temp_folder

namespace test_read_window { // the unity build compiles several test files as one

using namespace servestat;
namespace fs = std::filesystem;

TEST_CASE("small files share a window of up to 256; large ones are read one per thread") {
    const test::temp_folder scratch;
    const fs::path& dir = scratch.path;
    std::vector<detail::file_to_read> files;
    for (int i = 0; i < 300; ++i) {
        files.push_back({dir / ("small" + std::to_string(i) + ".jsonl"), {}});
        std::ofstream(files.back().path) << std::string(1000, 'x');
    }
    CHECK(detail::window_of(files, 2) == 256);
    CHECK(detail::window_of(std::span(files).subspan(256), 2) == 44);
    CHECK(detail::window_of(files, 1) == 1); // one thread: one file at a time, as before
    // Files of 40 MiB (sparse): two fill a window's 64 MiB beyond one per thread, so a window is
    // the one file per thread.
    std::vector<detail::file_to_read> large;
    for (int i = 0; i < 4; ++i) {
        large.push_back({dir / ("large" + std::to_string(i) + ".jsonl"), {}});
        std::ofstream(large.back().path) << "x";
        fs::resize_file(large.back().path, std::uintmax_t{40} << 20);
    }
    CHECK(detail::window_of(large, 2) == 2);
}

} // namespace test_read_window
