// The CI gate of `servestat compare --fail-on`: which compared statistics, when they regressed
// beyond noise, fail the build.
#pragma once

#include <algorithm>   // std::find
#include <optional>    // std::optional
#include <string>      // std::string
#include <string_view> // std::string_view
#include <vector>      // std::vector

#include "servestat/compare/comparison.hpp" // comparison, change
#include "servestat/core/errors.hpp"        // usage_error

namespace servestat {

struct gate_rule {
    std::vector<std::string> names; // "e2e.p99", "short.ttft.p90", "success_rate"; empty = every statistic
};

// "regressed" (any statistic) or "regressed:e2e.p99,ttft.p90".
inline gate_rule parse_gate(std::string_view spec) {
    constexpr std::string_view keyword = "regressed";
    if (spec.substr(0, keyword.size()) != keyword || (spec.size() > keyword.size() && spec[keyword.size()] != ':'))
        throw usage_error("--fail-on '" + std::string(spec) + "': expected regressed or regressed:e2e.p99,ttft.p90");
    if (spec == std::string_view("regressed:")) throw usage_error("--fail-on 'regressed:': name the statistics after the colon");
    gate_rule rule;
    std::string_view rest = spec.size() > keyword.size() ? spec.substr(keyword.size() + 1) : std::string_view{};
    while (!rest.empty()) {
        const auto comma = rest.find(',');
        const auto name = rest.substr(0, comma);
        if (name.empty()) throw usage_error("--fail-on '" + std::string(spec) + "': empty statistic name");
        rule.names.emplace_back(name);
        rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    }
    return rule;
}

struct gate_failure {
    std::optional<double> load; // the sweep level, when the sides are sweeps
    const change* failed;
};

// A named statistic must have been compared, and be one that can regress: a rate measured once per
// run has no interval, and a statistic of a summary or streamed log no test; either would let a gate
// pass on nothing.
inline void validate(const gate_rule& rule, const comparison& c) {
    if (rule.names.empty())
        for (const auto& pair : c.pairs)
            for (const auto& x : pair.comparison.changes)
                if (x.result == verdict::untested)
                    throw usage_error("--fail-on: a side is a summary or a streamed log, whose statistics cannot be "
                                      "tested (no requests to resample); gate on the logs themselves");
    for (const auto& name : rule.names) {
        const change* found = nullptr;
        for (const auto& pair : c.pairs)
            if (const change* x = find_change(pair.comparison, name)) found = x;
        if (found == nullptr)
            throw usage_error("--fail-on: '" + name + "' was not compared (names look like e2e.p99, short.ttft.p90, " +
                              "success_rate; `servestat compare` lists them)");
        if (found->result == verdict::single)
            throw usage_error("--fail-on: '" + name + "' is one measurement per run; it has no interval to gate on");
        if (found->result == verdict::untested)
            throw usage_error("--fail-on: '" + name + "' is read from a summary or a streamed log and cannot be tested "
                              "(no requests to resample); gate on the logs themselves");
    }
}

inline std::vector<gate_failure> gate_failures(const comparison& c, const gate_rule& rule) {
    std::vector<gate_failure> out;
    for (const auto& pair : c.pairs)
        for (const auto& x : pair.comparison.changes) {
            if (x.result != verdict::regressed) continue;
            if (rule.names.empty() || std::find(rule.names.begin(), rule.names.end(), x.name) != rule.names.end())
                out.push_back({pair.load, &x});
        }
    return out;
}

} // namespace servestat
