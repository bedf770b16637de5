// The user's corrections of the experiment's reading: --factor NAME=REGEX pulls a factor out of the
// runs' paths, --role NAME=ROLE sets a factor's role. Parsed here so that every front end (the CLI,
// the Python module) refuses a bad one with the same message.
#pragma once

#include <regex>       // std::regex
#include <string>      // std::string
#include <string_view> // std::string_view
#include <vector>      // std::vector

#include "servestat/core/errors.hpp"             // usage_error
#include "servestat/core/user_regex.hpp"         // compile_user_regex
#include "servestat/experiment/factor_table.hpp" // user_factor
#include "servestat/experiment/roles.hpp"        // user_role, parse_factor_role

namespace servestat {

namespace detail {

inline std::pair<std::string, std::string> split_setting(std::string_view spec, const char* flag, const char* form) {
    const auto eq = spec.find('=');
    if (eq == std::string_view::npos || eq == 0 || eq + 1 == spec.size())
        throw usage_error(std::string(flag) + " '" + std::string(spec) + "': expected " + form);
    return {std::string(spec.substr(0, eq)), std::string(spec.substr(eq + 1))};
}

} // namespace detail

// "shape=(short|medium|long)": the factor `shape`, the first capture group's text (else the match).
inline user_factor parse_user_factor(std::string_view spec) {
    auto [name, pattern] = detail::split_setting(spec, "--factor", "NAME=REGEX, e.g. shape=-(short|long)-");
    compile_user_regex("--factor " + name, pattern, std::regex::ECMAScript | std::regex::icase);
    return {std::move(name), std::move(pattern)};
}

// "run_number=replicate", "folder2=config", "name=ignore".
inline user_role parse_user_role(std::string_view spec) {
    auto [name, role] = detail::split_setting(spec, "--role", "NAME=ROLE, ROLE one of load, config, replicate, length, provenance, ignore");
    return {std::move(name), parse_factor_role(role)};
}

} // namespace servestat
