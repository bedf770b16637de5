// The reader interface: a log format is a name, a content sniffer and a read function, so adding a
// format is one header that defines one `log_format`.
#pragma once

#include <cstddef>     // std::size_t
#include <cstdint>     // std::uintmax_t
#include <filesystem>  // std::filesystem::path
#include <string_view> // std::string_view
#include <vector>      // std::vector

#include "servestat/core/progress.hpp" // progress_item
#include "servestat/core/run.hpp" // run

namespace servestat {

struct read_options {
    bool skip_bad = false; // skip (and count) bad request lines instead of failing
    std::size_t max_line_bytes = std::size_t{64} << 20;
    std::size_t threads = 0; // readers that split a file read its pieces on this many threads; 0 = all cores
    std::uintmax_t min_piece_bytes = std::uintmax_t{4} << 20; // ... into pieces no smaller than this
    // The file's bytes as they are read, for a progress display (core/progress.hpp); null: not
    // counted. The canonical log counts each chunk read; readers that do not count are counted whole
    // when read_files_in_order ends the file's item.
    progress_item* progress = nullptr;
};

struct log_format {
    std::string_view name;        // what --input-format accepts and run_source::format records
    std::string_view description; // one line for `--help` and error messages
    // Confidence that a file starting with `head` is in this format: 0 = no, higher = surer.
    int (*sniff)(std::string_view head);
    // One file may hold several runs (e.g. appended benchmark results).
    std::vector<run> (*read)(const std::filesystem::path& file, const read_options& options);
};

} // namespace servestat
