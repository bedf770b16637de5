// Input arguments that are glob patterns the shell did not expand (quoted, or from a script), as
// every front end takes them.
#pragma once

#include <algorithm>    // std::sort
#include <filesystem>   // std::filesystem
#include <functional>   // std::function
#include <map>          // std::map
#include <string>       // std::string
#include <system_error> // std::error_code
#include <vector>       // std::vector

#include <fnmatch.h> // fnmatch

#include "servestat/core/errors.hpp"        // input_error
#include "servestat/core/natural_order.hpp" // natural_less

namespace servestat::app {

namespace detail {

inline bool has_wildcard(const std::string& part) { return part.find_first_of("*?[") != std::string::npos; }

// The entries of `dir` that the path part `pattern` matches, as glob(3) takes them: a leading dot
// only when the pattern starts with one. A symbolic link to a folder is left out where a later part
// would look inside it (`inside`): matched by a wildcard, as the folder walk does not follow such
// links, two links to `.` made `*/*/…/x.jsonl` match 2^K paths of one file (M5). Named in full
// (`latest/*.jsonl`), a link is followed: the user chose it.
inline std::vector<std::filesystem::path> matching_entries(const std::filesystem::path& dir, const std::string& pattern,
                                                           bool inside) {
    namespace fs = std::filesystem;
    std::vector<fs::path> out;
    std::error_code ec;
    for (fs::directory_iterator it(dir.empty() ? fs::path(".") : dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (::fnmatch(pattern.c_str(), name.c_str(), FNM_PERIOD) != 0) continue;
        std::error_code type_ec;
        if (inside && (!it->is_directory(type_ec) || it->is_symlink(type_ec))) continue;
        out.push_back(dir / name);
    }
    return out;
}

// The paths `pattern` matches, a path part at a time.
inline std::vector<std::filesystem::path> glob_paths(const std::string& pattern) {
    namespace fs = std::filesystem;
    const fs::path whole(pattern);
    std::vector<std::string> parts;
    for (const auto& part : whole.relative_path()) parts.push_back(part.string());
    std::vector<fs::path> found{whole.root_path()};
    for (std::size_t k = 0; k < parts.size() && !found.empty(); ++k) {
        const bool inside = k + 1 < parts.size();
        std::vector<fs::path> next;
        for (const auto& dir : found) {
            if (!has_wildcard(parts[k])) {
                std::error_code ec;
                if (const fs::path p = dir / parts[k]; inside ? fs::is_directory(p, ec) : fs::exists(fs::symlink_status(p, ec)))
                    next.push_back(p);
                continue;
            }
            const auto entries = matching_entries(dir, parts[k], inside);
            next.insert(next.end(), entries.begin(), entries.end());
        }
        found = std::move(next);
    }
    return found;
}

// Two spellings of one file ("a.jsonl", a link to it) give the same key.
inline std::string canonical_key(const std::filesystem::path& path) {
    std::error_code ec;
    const auto canonical = std::filesystem::weakly_canonical(path, ec);
    return ec ? path.lexically_normal().string() : canonical.string();
}

} // namespace detail

// An argument naming an existing path is taken as it is; one with wildcards is replaced by its
// matches in natural name order (run-c2 before run-c16), and a pattern that matches nothing is an
// input error. A file a pattern reaches twice (a link to a file beside it) is read once, and
// `note` says which was left out.
inline std::vector<std::string> expand_globs(const std::vector<std::string>& args,
                                             const std::function<void(const std::string&)>& note = {}) {
    std::vector<std::string> out;
    for (const auto& arg : args) {
        std::error_code ec;
        if (std::filesystem::exists(arg, ec) || !detail::has_wildcard(arg)) {
            out.push_back(arg);
            continue;
        }
        std::vector<std::string> found;
        for (const auto& p : detail::glob_paths(arg)) found.push_back(p.string());
        if (found.empty()) throw input_error(arg, 0, "", "no file matches this pattern");
        std::sort(found.begin(), found.end(), [](const std::string& a, const std::string& b) { return natural_less(a, b); });
        std::map<std::string, std::string> first_of; // canonical path → the match that reached it first
        for (const auto& path : found) {
            const auto [at, first] = first_of.try_emplace(detail::canonical_key(path), path);
            if (first) out.push_back(path);
            else if (note) note(path + ": passed over: the same file as " + at->second + ", read once");
        }
    }
    return out;
}

} // namespace servestat::app
