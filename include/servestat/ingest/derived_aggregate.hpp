// A file its authors derived from the runs beside it (docs/sweeps.md#files-that-are-not-runs): the
// sums and means of per-client part files kept next to the parts. It measured nothing of its own,
// and read as a run it would count every request twice. A directory read passes it over, saying why.
//
// The evidence is the arithmetic, never a name: its request count is exactly the sum of the counts
// of two or more runs in its folder and below (and its successful count the sum of theirs), and at
// least one of its values is their sum, or a mean of theirs (plain, or weighted by their successful
// requests) that none of them has alone, within the rounding a tool prints. Counts alone could meet
// by chance (100 + 200 prompts beside a run of 300); a count and a value together do not.
#pragma once

#include <cmath>      // std::abs, std::max
#include <cstddef>    // std::size_t
#include <filesystem> // std::filesystem::path
#include <map>        // std::map
#include <optional>   // std::optional
#include <span>       // std::span
#include <string>     // std::string
#include <vector>     // std::vector

#include <fmt/format.h> // fmt::format

#include "servestat/core/request_status.hpp" // request_status
#include "servestat/core/run.hpp"            // run, run_kind, find_reported

namespace servestat {

// What a directory read keeps of each run to find the one derived from the others.
struct run_tally {
    std::string path;
    std::size_t line = 0; // the row of a file with several runs
    std::optional<double> requests, ok;
    std::map<std::string, double> values; // the tool's rates, means and percentiles
};

// Two values agree within what a tool's printed rounding leaves (0.5%).
inline constexpr double derived_tolerance = 0.005;

inline run_tally tally_of(const run& r) {
    run_tally t{r.meta.source.path, r.meta.source.line, {}, {}, {}};
    if (r.meta.kind == run_kind::requests) {
        t.requests = static_cast<double>(r.requests.size());
        double ok = 0, tokens = 0, with_tokens = 0;
        const auto status = r.requests.status();
        const auto output = r.requests.output_tokens();
        for (std::size_t i = 0; i < r.requests.size(); ++i) {
            if (status[i] != request_status::ok) continue;
            ++ok;
            if (i < output.size() && output[i] >= 0) tokens += output[i], ++with_tokens;
        }
        t.ok = ok;
        if (with_tokens > 0) t.values["output_tokens.mean"] = tokens / with_tokens;
        return t;
    }
    for (const auto& v : r.meta.reported) {
        if (v.name == "requests") t.requests = v.value;
        else if (v.name == "ok") t.ok = v.value;
        else if (v.name != "failed" && v.name != "duration") t.values.try_emplace(v.name, v.value);
    }
    if (!t.requests && t.ok)
        if (const auto* failed = find_reported(r.meta, "failed")) t.requests = *t.ok + failed->value;
    return t;
}

namespace detail {

inline bool within_rounding(double a, double b, double tolerance = derived_tolerance) {
    return std::abs(a - b) <= tolerance * std::max(std::abs(a), std::abs(b)) + 1e-12;
}

// Whether `file` lies in `folder` or below it.
inline bool lies_under(const std::filesystem::path& file, const std::filesystem::path& folder) {
    const auto rel = file.parent_path().lexically_relative(folder);
    return !rel.empty() && *rel.begin() != "..";
}

// "its rps is their sum", "its e2e.p99 their mean": how one value follows from the others'.
// A mean tells only where the values it averages differ: a run as long as three others together at
// the same load has their rate and latencies too, so it is derived only when it matches none of
// them alone.
inline std::optional<std::string> how_derived(const std::string& name, double value, std::span<const run_tally* const> others) {
    double sum = 0, weighted = 0, weight = 0;
    bool positive = true, like_one = false;
    for (const auto* o : others) {
        const auto at = o->values.find(name);
        if (at == o->values.end()) return std::nullopt;
        sum += at->second;
        positive = positive && at->second > 0;
        like_one = like_one || within_rounding(value, at->second);
        if (o->ok) weighted += at->second * *o->ok, weight += *o->ok;
    }
    if (positive && within_rounding(value, sum)) return "its " + name + " is their sum";
    if (like_one) return std::nullopt;
    if (within_rounding(value, sum / static_cast<double>(others.size()))) return "its " + name + " is their mean";
    if (weight > 0 && within_rounding(value, weighted / weight)) return "its " + name + " is their mean over their requests";
    return std::nullopt;
}

} // namespace detail

// Why `d` is derived from the other runs in its folder and below (`used`), or nothing when it is not.
inline std::optional<std::string> derived_from_siblings(const run_tally& d, std::span<const run_tally> used) {
    if (!d.requests || *d.requests <= 0) return std::nullopt;
    const std::filesystem::path folder = std::filesystem::path(d.path).parent_path();
    std::vector<const run_tally*> others;
    for (const auto& t : used)
        if (t.path != d.path && detail::lies_under(t.path, folder)) others.push_back(&t);
    if (others.size() < 2) return std::nullopt;
    double requests = 0, ok = 0;
    bool ok_known = d.ok.has_value();
    for (const auto* o : others) {
        if (!o->requests) return std::nullopt;
        requests += *o->requests;
        if (o->ok) ok += *o->ok;
        else ok_known = false;
    }
    if (requests != *d.requests || (ok_known && ok != *d.ok)) return std::nullopt;
    std::vector<std::string> how;
    for (const auto& [name, value] : d.values)
        if (const auto h = detail::how_derived(name, value, others); h && how.size() < 2) how.push_back(*h);
    if (how.empty()) return std::nullopt;
    const auto name_of = [&](const run_tally* t) { return std::filesystem::path(t->path).lexically_relative(folder).generic_string(); };
    const std::string named = others.size() == 2 ? name_of(others[0]) + " and " + name_of(others[1])
                                                 : fmt::format("{}, {} and {} more", name_of(others[0]), name_of(others[1]), others.size() - 2);
    return fmt::format("derived from the {} runs beside it ({}): its {:.0f} requests are theirs summed, {}; no measurement of its own",
                       others.size(), named, *d.requests, how.size() == 1 ? how[0] : how[0] + " and " + how[1].substr(4));
}

} // namespace servestat
