// Names close to one that was asked for and is not there: a --map source that the file spells in
// another letter case (`TTFT` for `ttft`), with a typo (`reponse_time`), or with a unit suffix
// (`latency_ms` for `latency`), so the error can say which name was probably meant.
#pragma once

#include <algorithm>   // std::min, std::stable_sort
#include <cctype>      // std::tolower
#include <cstddef>     // std::size_t
#include <string>      // std::string
#include <string_view> // std::string_view
#include <vector>      // std::vector

#include "servestat/core/text.hpp" // equals_ignoring_case

namespace servestat {

struct near_name {
    std::string name;
    bool case_only = false; // the same name in another letter case
};

namespace detail {

// Lower case without the separators people vary (`firstTokenTime`, `first_token_time`, `first-token-time`).
inline std::string folded_name(std::string_view name) {
    std::string out;
    for (const char c : name)
        if (c != '_' && c != '-' && c != ' ' && c != '.') out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    return out;
}

// Optimal string alignment distance: insertions, deletions, substitutions and swaps of two
// neighbouring letters each cost 1 (`reponse` → `response` is 1, `ttfb` → `ttft` is 1).
inline std::size_t edit_distance(std::string_view a, std::string_view b) {
    const std::size_t n = a.size(), m = b.size();
    std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1));
    for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
    for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
    for (std::size_t i = 1; i <= n; ++i)
        for (std::size_t j = 1; j <= m; ++j) {
            const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
    return d[n][m];
}

// How many edits still make a name "close": one for short names, where two would make `ttft`
// close to `tpot`, up to three for long ones.
inline std::size_t allowed_edits(std::size_t length) { return length <= 4 ? 1 : length <= 9 ? 2 : 3; }

} // namespace detail

// The names among `candidates` that `wanted` probably meant, best first, at most `limit`: the same
// name in another letter case, then names equal once case and separators are ignored (when there
// are such, only those), then those a few edits away, then those that contain it or that it
// contains (`latency` and `latency_ms`).
inline std::vector<near_name> near_names(std::string_view wanted, const std::vector<std::string>& candidates,
                                         std::size_t limit = 5) {
    struct ranked {
        near_name found;
        std::size_t rank;
    };
    const std::string folded = detail::folded_name(wanted);
    std::vector<ranked> hits;
    for (const std::string& c : candidates) {
        if (c == wanted) continue;
        const std::string c_folded = detail::folded_name(c);
        std::size_t rank = 0;
        if (detail::equals_ignoring_case(c, wanted)) {
            rank = 0;
        } else if (c_folded == folded) {
            rank = 1;
        } else if (const std::size_t edits = detail::edit_distance(c_folded, folded);
                   edits <= detail::allowed_edits(folded.size())) {
            rank = 1 + edits;
        } else if (std::min(folded.size(), c_folded.size()) >= 3 &&
                   (c_folded.find(folded) != std::string::npos || folded.find(c_folded) != std::string::npos)) {
            rank = 10;
        } else {
            continue;
        }
        hits.push_back({{c, rank == 0}, rank});
    }
    std::stable_sort(hits.begin(), hits.end(), [](const ranked& a, const ranked& b) { return a.rank < b.rank; });
    // The same name in another case or spelling is all but certain: the rest would only distract.
    const bool certain = !hits.empty() && hits.front().rank <= 1;
    std::vector<near_name> out;
    for (std::size_t i = 0; i < hits.size() && i < limit && (!certain || hits[i].rank <= 1); ++i)
        out.push_back(std::move(hits[i].found));
    return out;
}

// `'TTFT' (the same name in another letter case)` or `'ttft_ms', 'ttft_s'`; empty when none.
inline std::string describe_near_names(const std::vector<near_name>& names) {
    std::string out;
    for (const near_name& n : names) {
        out.append(out.empty() ? "" : ", ").append("'").append(n.name).append("'");
        if (n.case_only) out.append(" (the same name in another letter case)");
    }
    return out;
}

} // namespace servestat
