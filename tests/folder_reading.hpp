// A directory read as the CLI reads one: its runs, and the files it passed over with their reasons.
#pragma once

#include <filesystem> // std::filesystem::path
#include <utility>    // std::move
#include <vector>     // std::vector

#include "servestat/ingest/detect.hpp" // detail::read_directory, load_options, directory_listing, passed_over_file

namespace servestat::test {

struct folder_read {
    std::vector<run> runs;
    std::vector<passed_over_file> passed;
};

inline folder_read read_folder(const std::filesystem::path& dir) {
    folder_read out;
    load_options o;
    o.listed = [&](const directory_listing& l) { out.passed = l.passed_over; };
    detail::read_directory(dir, o, [&](run&& r) { out.runs.push_back(std::move(r)); });
    return out;
}

} // namespace servestat::test
