// Reading one format's fixture files (tests/data/<folder>/) in tests.
#pragma once

#include <catch2/catch.hpp> // REQUIRE, FAIL

#include <cstddef>     // std::size_t
#include <filesystem>  // std::filesystem::path
#include <fstream>     // std::ifstream
#include <iterator>    // std::istreambuf_iterator
#include <string>      // std::string
#include <string_view> // std::string_view
#include <utility>     // std::move

#include "servestat/core/errors.hpp"   // input_error
#include "servestat/ingest/reader.hpp" // log_format, read_options

namespace servestat::test {

class format_fixtures {
public:
    format_fixtures(const log_format& format, std::string_view folder) : format_(format), folder_(folder) {}

    std::filesystem::path path(std::string_view name) const {
        return std::filesystem::path(SERVESTAT_TEST_DATA_DIR) / folder_ / name;
    }

    run read(std::string_view name, read_options options = {}) const {
        auto runs = format_.read(path(name), options);
        REQUIRE(runs.size() == 1);
        return std::move(runs.front());
    }

    request_record row(std::string_view name, std::size_t i) const {
        const run r = read(name);
        REQUIRE(i < r.requests.size());
        return r.requests.row(i);
    }

    input_error error(std::string_view name, read_options options = {}) const {
        try {
            format_.read(path(name), options);
        } catch (const input_error& e) {
            return e;
        }
        FAIL("no input_error was thrown");
        throw; // unreachable: FAIL throws
    }

    std::string text(std::string_view name) const {
        std::ifstream in(path(name), std::ios::binary);
        return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    }

private:
    const log_format& format_;
    std::string folder_;
};

} // namespace servestat::test
