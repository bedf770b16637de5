// The folder an -o option names (a report, a comparison, a sweep's logs), made with its parents.
#pragma once

#include <filesystem>   // std::filesystem
#include <string>       // std::string
#include <system_error> // std::error_code, std::errc

#include "servestat/core/errors.hpp"       // error
#include "servestat/ingest/input_file.hpp" // detail::reason_text

namespace servestat::app {

namespace detail {

// Why `dir` could not be made, in the user's words: std::filesystem says "Not a directory" both for
// a file at `dir` and for a file where a parent folder should be.
inline std::string why_no_folder(const std::filesystem::path& dir, const std::error_code& ec) {
    std::error_code status_ec;
    if (std::filesystem::exists(dir, status_ec) && !std::filesystem::is_directory(dir, status_ec))
        return "a file is there, not a folder";
    if (ec == std::errc::not_a_directory || ec == std::errc::file_exists) return "a part of the path is a file, not a folder";
    return servestat::detail::reason_text(ec);
}

} // namespace detail

// Makes `dir` and its parents. A folder that cannot be made names the option and the reason
// ("-o ro/rep: cannot create the folder: permission denied"), not std::filesystem's text
// ("filesystem error: cannot create directories: Permission denied [ro/rep]"), reliability L4.
inline void create_output_folder(const std::filesystem::path& dir, const std::string& option = "-o") {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec || !std::filesystem::is_directory(dir, ec))
        throw error(option + " " + dir.string() + ": cannot create the folder: " + detail::why_no_folder(dir, ec));
}

} // namespace servestat::app
