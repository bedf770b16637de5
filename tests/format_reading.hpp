// Reading a file with one format in tests: the single run it holds, the error it raises, and what
// detection sees of it.
#pragma once

#include <catch2/catch.hpp> // REQUIRE, FAIL

#include <filesystem> // std::filesystem::path
#include <optional>   // std::optional
#include <string>     // std::string
#include <string_view> // std::string_view
#include <utility>    // std::move

#include "servestat/core/errors.hpp"    // input_error
#include "servestat/core/run.hpp"       // run, find_reported
#include "servestat/ingest/detect.hpp"  // detail::read_head
#include "servestat/ingest/reader.hpp"  // log_format, read_options

namespace servestat::test {

// The source tool's own value of that name, if the reader kept one.
inline std::optional<double> reported(const run& r, std::string_view name) {
    if (const auto* v = find_reported(r.meta, name)) return v->value;
    return std::nullopt;
}

// Whether one of the run's notes contains `part`.
inline bool has_note(const run& r, std::string_view part) {
    for (const auto& note : r.meta.notes)
        if (note.find(part) != std::string::npos) return true;
    return false;
}

inline run read_one(const log_format& format, const std::filesystem::path& file, read_options options = {}) {
    auto runs = format.read(file, options);
    REQUIRE(runs.size() == 1);
    return std::move(runs.front());
}

inline input_error read_error(const log_format& format, const std::filesystem::path& file, read_options options = {}) {
    try {
        format.read(file, options);
    } catch (const input_error& e) {
        return e;
    }
    FAIL("no input_error was thrown");
    throw; // unreachable: FAIL throws
}

// What detection sees of a file: its first 64 KiB.
inline std::string file_head(const std::filesystem::path& file) { return detail::read_head(file); }

} // namespace servestat::test
