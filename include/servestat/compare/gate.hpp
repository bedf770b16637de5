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
#include "servestat/stats/percentile_change_interval.hpp" // fewest_values_for_change

#include <fmt/format.h> // fmt::format

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
    if (spec.size() == keyword.size()) return rule;
    std::string_view rest = spec.substr(keyword.size() + 1);
    for (bool more = true; more;) { // "e2e.p99," holds an empty name after its comma
        const auto comma = rest.find(',');
        const auto name = rest.substr(0, comma);
        if (name.empty()) throw usage_error("--fail-on '" + std::string(spec) + "': empty statistic name");
        rule.names.emplace_back(name);
        more = comma != std::string_view::npos;
        if (more) rest = rest.substr(comma + 1);
    }
    return rule;
}

struct gate_failure {
    std::optional<double> load; // the sweep level, when the sides are sweeps
    const change* failed;
    bool untested = false; // a named statistic the data could not test: the gate cannot pass on it
    std::string reason;    // "regressed", or why it could not be tested
};

// Why a gate failed on `f`, for stderr and the reports: "regressed", or what kept the test from
// being made ("every request failed after", "too few requests: p99 needs 238 a side, had 50 and 50").
inline std::string gate_failure_reason(const change& x, bool untested, double confidence) {
    if (!untested) return "regressed";
    if (!x.after || x.n_after == 0) return "could not be tested: no value after (no request completed)";
    if (!x.before || x.n_before == 0) return "could not be tested: no value before (no request completed)";
    std::string need;
    if (x.statistic.size() > 1 && x.statistic[0] == 'p')
        if (const auto n = fewest_values_for_change(std::stod(x.statistic.substr(1)), confidence))
            need = fmt::format(": {} needs {} a side", x.statistic, *n);
    return fmt::format("could not be tested: too few requests{}, had {} and {}", need, x.n_before, x.n_after);
}

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

// The statistics that fail the gate: every regressed one the rule covers, and every one the rule
// names that could not be tested (too few requests, or none completed on a side), since a gate on a
// statistic must not pass on nothing.
inline std::vector<gate_failure> gate_failures(const comparison& c, const gate_rule& rule, double confidence = 0.95) {
    std::vector<gate_failure> out;
    for (const auto& pair : c.pairs)
        for (const auto& x : pair.comparison.changes) {
            const bool named = std::find(rule.names.begin(), rule.names.end(), x.name) != rule.names.end();
            const bool untested = x.result == verdict::too_few && named;
            if ((x.result == verdict::regressed && (rule.names.empty() || named)) || untested)
                out.push_back({pair.load, &x, untested, gate_failure_reason(x, untested, confidence)});
        }
    return out;
}

} // namespace servestat
