// What each input is, decided once from one read of its head and passed on: standard input, a
// summary file (`servestat summarize`), a canonical log read request by request, or a log read
// whole with the others (its format detected by the reader). stats, report and compare stream a
// canonical log only when its requests would not fit in --memory-limit (classify_input); summarize
// streams every canonical log (classify_shard).
#pragma once

#include <algorithm>    // std::count
#include <cstddef>      // std::size_t
#include <cstdint>      // std::uintmax_t
#include <filesystem>   // std::filesystem::is_regular_file, std::filesystem::file_size
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <system_error> // std::error_code

#include "servestat/ingest/canonical_jsonl.hpp" // detail::sniff_canonical_log
#include "servestat/ingest/input_file.hpp"      // detail::read_input_head
#include "servestat/report/summary_file.hpp"    // sniff_summary_file

namespace servestat::app {

enum class input_kind {
    log,            // read whole, side by side with the other logs
    standard_input, // "-": servestat's canonical log, request by request
    summary,        // a summary file: its statistics, no requests
    streamed_log,   // servestat's canonical log, request by request
};

struct classified_input {
    std::string path;
    input_kind kind = input_kind::log;
    // Read within the memory limit (or as a shard, alone) rather than whole with the other logs.
    bool bounded() const { return kind != input_kind::log; }
};

namespace detail {

inline constexpr std::size_t summary_head_bytes = 512;        // a summary names itself in its first 200 characters
inline constexpr std::size_t size_head_bytes = 1 << 16;       // the lines whose length predicts a log's requests
inline constexpr std::size_t shard_head_bytes = 1 << 12;      // a canonical log names itself on its first line
inline constexpr std::uintmax_t smallest_streamed = 1 << 20; // smaller logs are always kept whole

inline bool is_summary_head(std::string_view head) { return sniff_summary_file(head.substr(0, summary_head_bytes)) > 0; }

// A canonical log whose requests, at the size of its first lines (`head`), would not fit in half the
// limit (the other half is for the analysis): read request by request instead of whole.
inline bool too_large_to_keep(std::string_view head, std::uintmax_t size, std::size_t limit) {
    if (servestat::detail::sniff_canonical_log(head) == 0) return false;
    const auto lines = static_cast<std::size_t>(std::count(head.begin(), head.end(), '\n'));
    if (lines < 2) return false;
    constexpr double table_bytes_per_request = 32; // request_table of a canonical log (29) and slack
    const double requests = static_cast<double>(size) * static_cast<double>(lines) / static_cast<double>(head.size());
    return 2 * requests * table_bytes_per_request > static_cast<double>(limit);
}

} // namespace detail

// An input of stats, report or compare, with the memory limit in bytes (0: none). A file of at
// least 1 MiB has its first 64 KiB read (summary, or canonical log and how large), a smaller one its
// first 512 bytes (summary or not); directories and patterns are logs.
inline classified_input classify_input(const std::string& input, std::size_t limit) {
    if (input == "-") return {input, input_kind::standard_input};
    std::error_code ec;
    if (!std::filesystem::is_regular_file(input, ec)) return {input, input_kind::log};
    const std::uintmax_t size = std::filesystem::file_size(input, ec);
    const bool may_stream = limit != 0 && !ec && size >= detail::smallest_streamed;
    const std::string head =
        servestat::detail::read_input_head(input, may_stream ? detail::size_head_bytes : detail::summary_head_bytes);
    if (detail::is_summary_head(head)) return {input, input_kind::summary};
    if (may_stream && detail::too_large_to_keep(head, size, limit)) return {input, input_kind::streamed_log};
    return {input, input_kind::log};
}

// A shard of summarize: a summary, a canonical log (streamed whatever its size) or another log, from
// its first 4 KiB.
inline classified_input classify_shard(const std::string& input) {
    if (input == "-") return {input, input_kind::standard_input};
    std::error_code ec;
    if (!std::filesystem::is_regular_file(input, ec)) return {input, input_kind::log};
    const std::string head = servestat::detail::read_input_head(input, detail::shard_head_bytes);
    if (detail::is_summary_head(head)) return {input, input_kind::summary};
    if (servestat::detail::sniff_canonical_log(head) > 0) return {input, input_kind::streamed_log};
    return {input, input_kind::log};
}

} // namespace servestat::app
