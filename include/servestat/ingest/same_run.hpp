// When a console log's run and a JSON result's run are one measurement (vLLM and SGLang print the
// result block and save the same numbers with --save-result / --output-file), and the holding of
// console runs that lets a directory read pass such a copy over instead of counting the run twice.
#pragma once

#include <algorithm>   // std::any_of
#include <cmath>       // std::abs
#include <cstddef>     // std::size_t
#include <filesystem>  // std::filesystem::path
#include <optional>    // std::optional
#include <string>      // std::string
#include <string_view> // std::string_view
#include <utility>     // std::move
#include <vector>      // std::vector

#include <nlohmann/json.hpp> // nlohmann::json

#include "servestat/core/run.hpp"                     // run, run_metadata, reported_value, find_reported
#include "servestat/ingest/bench_serving_console.hpp" // bench_console_name
#include "servestat/ingest/sglang_bench_serving.hpp"  // sglang_bench_serving_name
#include "servestat/ingest/vllm_bench_json.hpp"       // vllm_bench_json_name

namespace servestat::detail {

inline bool is_console_run(const run_metadata& m) { return m.source.format == bench_console_name; }

inline bool is_result_json_run(const run_metadata& m) {
    return m.source.format == vllm_bench_json_name || m.source.format == sglang_bench_serving_name;
}

// The console prints every number with two decimals in its own unit ("{:<10.2f}"; latency
// statistics in ms, reported here in s), counts whole: rounding moved it by half a hundredth at most.
inline bool same_printed_value(const reported_value& console, const reported_value& json) {
    if (console.unit != json.unit) return false;
    const double scale = console.unit == "s" && console.name != "duration" ? 1e3 : 1.0;
    const double printed = console.value * scale, exact = json.value * scale;
    return std::abs(printed - exact) <= 0.005 + 1e-9 * std::abs(exact); // + the ms → s conversion's last bits
}

inline bool same_setting(const nlohmann::json& a, const nlohmann::json& b) {
    if (a.is_number() && b.is_number()) return a.get<double>() == b.get<double>();
    return a == b;
}

// One measurement: the same tool, model and every setting both give equal, and every value both
// report equal once the JSON's is rounded as the console prints it; at least two values in common
// (a block of nothing but counts is not evidence).
inline bool is_same_run(const run_metadata& console, const run_metadata& json) {
    if (!is_console_run(console) || !is_result_json_run(json) || console.tool != json.tool) return false;
    if (!console.model.empty() && !json.model.empty() && console.model != json.model) return false;
    for (const auto& [key, value] : console.params.items())
        if (const auto it = json.params.find(key); it != json.params.end() && !same_setting(value, *it)) return false;
    std::size_t common = 0;
    for (const auto& v : console.reported) {
        const auto* other = find_reported(json, v.name);
        if (!other) continue;
        if (!same_printed_value(v, *other)) return false;
        ++common;
    }
    return common >= 2;
}

// Console runs met in a directory wait until every other run is read (their JSON may come later in
// path order: benchmark_serving.txt before vllm-infqps-*.json), then each is released as a run of
// its own or as the copy of the JSON run it repeats.
class console_copies {
public:
    // Takes a console run to hold back (true); any other run is left to the caller.
    bool hold(run& r) {
        if (releasing_ || !is_console_run(r.meta)) return false;
        held_.push_back(std::move(r));
        return true;
    }

    // A run the directory read used: a JSON result is kept to compare the held runs with.
    void saw(const run& r) {
        if (is_result_json_run(r.meta)) results_.push_back(r.meta);
    }

    // `each(run&&, reason)`: the reason is set when the run is a copy ("the same run as x.json: same
    // settings and values", the path relative to `dir`), and the run is then to be passed over.
    template <class Each>
    void release(const std::filesystem::path& dir, Each&& each) {
        releasing_ = true;
        for (auto& r : held_) {
            std::optional<std::string> reason;
            if (const auto* json = copied_result(r.meta)) {
                const auto rel = std::filesystem::path(json->source.path).lexically_relative(dir).generic_string();
                reason = "the same run as " + rel + ": same settings and values";
            }
            each(std::move(r), reason);
        }
        held_.clear();
    }

private:
    // The JSON result a console run repeats: the one saved under the same name beside it first. A
    // run that measured nothing (every value 0: the server was gone) is told from other dead runs by
    // its name alone, so only that one will do.
    const run_metadata* copied_result(const run_metadata& console) const {
        const auto base = std::filesystem::path(console.source.path).replace_extension();
        for (const auto& json : results_)
            if (std::filesystem::path(json.source.path).replace_extension() == base && is_same_run(console, json)) return &json;
        const bool measured = std::any_of(console.reported.begin(), console.reported.end(), [](const auto& v) { return v.value != 0; });
        if (!measured) return nullptr;
        for (const auto& json : results_)
            if (is_same_run(console, json)) return &json;
        return nullptr;
    }

    std::vector<run> held_;
    std::vector<run_metadata> results_;
    bool releasing_ = false;
};

} // namespace servestat::detail
