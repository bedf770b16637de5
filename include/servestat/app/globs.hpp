// Input arguments that are glob patterns the shell did not expand (quoted, or from a script), as
// every front end takes them.
#pragma once

#include <algorithm>    // std::sort
#include <filesystem>   // std::filesystem::exists
#include <string>       // std::string
#include <system_error> // std::error_code
#include <vector>       // std::vector

#include <glob.h> // glob, globfree

#include "servestat/core/errors.hpp"        // input_error
#include "servestat/core/natural_order.hpp" // natural_less

namespace servestat::app {

// An argument naming an existing path is taken as it is; one with wildcards is replaced by its
// matches in natural name order (run-c2 before run-c16), and a pattern that matches nothing is an input error.
inline std::vector<std::string> expand_globs(const std::vector<std::string>& args) {
    std::vector<std::string> out;
    for (const auto& arg : args) {
        std::error_code ec;
        if (std::filesystem::exists(arg, ec) || arg.find_first_of("*?[") == std::string::npos) {
            out.push_back(arg);
            continue;
        }
        glob_t matches{};
        const int rc = ::glob(arg.c_str(), 0, nullptr, &matches);
        std::vector<std::string> found;
        if (rc == 0)
            for (std::size_t i = 0; i < matches.gl_pathc; ++i) found.emplace_back(matches.gl_pathv[i]);
        globfree(&matches);
        std::sort(found.begin(), found.end(), [](const std::string& a, const std::string& b) { return natural_less(a, b); });
        out.insert(out.end(), found.begin(), found.end());
        if (rc != 0) throw input_error(arg, 0, "", "no file matches this pattern");
    }
    return out;
}

} // namespace servestat::app
