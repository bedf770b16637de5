// InferenceX's nested agentic aggregate (AgentX v1.0 on, July 2026: utils/agentic/aggregation/
// process_agentic_result.py) read as reported values: request_accounting, request_metrics {qps,
// latency, tokens, throughput, cache, stability}, server_metrics, and the power fields that
// utils/aggregate_power.py patches in beside them. The flat agentic layout before it is read by
// inferencex_result.hpp itself; this header only knows the nested blocks.
#pragma once

#include <array>       // std::array
#include <cmath>       // std::isfinite
#include <string>      // std::string
#include <string_view> // std::string_view
#include <vector>      // std::vector

#include <nlohmann/json.hpp> // nlohmann::json

#include "servestat/core/run.hpp"             // run_metadata, reported_value
#include "servestat/ingest/json_document.hpp" // json_member, json_number, json_path, json_place

namespace servestat {
namespace detail {

// The blocks of the nested layout: a record holding request_metrics is one.
inline bool inferencex_nested(const nlohmann::json& object) {
    const auto* m = json_member(object, "request_metrics");
    return m && m->is_object();
}

inline bool inferencex_nested_block(std::string_view key) {
    return key == "request_accounting" || key == "request_metrics" || key == "server_metrics";
}

struct inferencex_named_path {
    std::string_view path; // dotted, from the record
    std::string_view reported;
    std::string_view unit;
};

// Single numbers with a name servestat or the flat layout already gives them, so runs of both
// layouts compare. duration_seconds is max end − min start over the successful records.
inline constexpr std::array<inferencex_named_path, 16> inferencex_nested_names{{
    {"request_metrics.throughput.duration_seconds", "duration", "s"},
    {"request_metrics.throughput.output.tokens_per_second", "output_tps", "tok/s"},
    {"request_metrics.throughput.total.tokens_per_second", "total_tps", "tok/s"},
    {"request_metrics.throughput.input.tokens_per_second", "inferencex.input_tput_tps", "tok/s"},
    {"request_metrics.throughput.per_gpu.total_tput_tps", "inferencex.tput_per_gpu", "tok/s"},
    {"request_metrics.throughput.per_gpu.output_tput_tps", "inferencex.output_tput_per_gpu", "tok/s"},
    {"request_metrics.throughput.per_gpu.input_tput_tps", "inferencex.input_tput_per_gpu", "tok/s"},
    {"request_metrics.cache.theoretical_cache_hit_rate", "inferencex.theoretical_cache_hit_rate", "ratio"},
    {"request_metrics.qps.window_seconds", "inferencex.qps.window_seconds", "s"},
    {"request_metrics.qps.samples", "inferencex.qps.windows", "windows"},
    {"server_metrics.cache.gpu_cache_hit_rate", "inferencex.server_gpu_cache_hit_rate", "ratio"},
    {"server_metrics.cache.cpu_cache_hit_rate", "inferencex.server_cpu_cache_hit_rate", "ratio"},
    {"server_metrics.kv_cache.cpu_usage_pct", "inferencex.cpu_kv_cache_usage_pct", "ratio"},
    {"server_metrics.tokens.prompt_total", "inferencex.total_prompt_tokens", "tokens"},
    {"server_metrics.tokens.generation_total", "inferencex.total_generation_tokens", "tokens"},
    {"server_metrics.tokens.requests_completed", "inferencex.total_requests_completed", "requests"},
}};

// Blocks of statistics ({mean, p50, p75, p90, p95, std}) and the name each is reported under.
// intvty (and every *intvty family) is 1 / the matching latency statistic except its std: p90
// intvty is 1 / p90 itl, the slow tail, so it is named apart from the flat layout's percentiles
// of per-request interactivity.
struct inferencex_stat_block {
    std::string_view path;
    std::string_view name;
    std::string_view unit;
};
inline constexpr std::array<inferencex_stat_block, 9> inferencex_nested_stats{{
    {"request_metrics.latency.ttft", "ttft", "s"},
    {"request_metrics.latency.e2el", "e2e", "s"},
    // AIPerf's per-request inter_token_latency, (e2e - ttft) / (output - 1): servestat's tpot.
    {"request_metrics.latency.tpot", "tpot", "s"},
    {"request_metrics.latency.itl", "inferencex.itl", "s"},
    {"request_metrics.latency.intvty", "inferencex.intvty_from_itl", "tok/s"},
    {"request_metrics.tokens.input", "prompt_tokens", "tokens"},
    {"request_metrics.tokens.output_actual", "output_tokens", "tokens"},
    {"request_metrics.tokens.output_expected", "inferencex.output_tokens_expected", "tokens"},
    {"request_metrics.qps", "inferencex.qps", "req/s"},
}};

// Top-level numbers utils/aggregate_power.py writes (schema 2: whole-deployment energy over the
// benchmark window), and the other top-level numbers of the nested layout, with their units.
inline std::string inferencex_top_level_unit(std::string_view key) {
    if (key.ends_with("_w")) return "W";
    if (key.ends_with("_j")) return "J";
    if (key == "joules_per_successful_query") return "J/request";
    if (key.starts_with("joules_per_") && key.ends_with("_token")) return "J/token";
    if (key == "kv_cache_pool_tokens") return "tokens";
    if (key == "allocated_cpu_dram_gb") return "GB";
    return "";
}

// The member at a dotted path, or nullptr.
inline const nlohmann::json* inferencex_at(const nlohmann::json& object, std::string_view path) {
    const nlohmann::json* v = &object;
    while (v && v->is_object()) {
        const auto dot = path.find('.');
        v = json_member(*v, path.substr(0, dot));
        if (dot == std::string_view::npos) return v;
        path.remove_prefix(dot + 1);
    }
    return nullptr;
}

// A number to report, or nothing for null and the non-finite words; anything else is an error.
inline bool inferencex_nested_number(const nlohmann::json* v, const json_place& place, const std::string& path, double& x) {
    if (!v || v->is_null() || (v->is_number_float() && !std::isfinite(v->get<double>()))) return false;
    x = json_number(*v, place, path);
    return true;
}

inline bool inferencex_stat_name(std::string_view stat) {
    if (stat == "mean" || stat == "std") return true;
    return stat.size() > 1 && stat[0] == 'p' && stat.substr(1).find_first_not_of("0123456789.") == std::string_view::npos;
}

// The stat keys of a block in report order: mean, percentiles rising (p50 < p75 < ... as written,
// two digits), std.
inline std::vector<std::string> inferencex_block_stats(const nlohmann::json& block) {
    std::vector<std::string> out;
    if (json_member(block, "mean")) out.push_back("mean");
    for (const auto& [key, v] : block.items())
        if (key != "mean" && key != "std" && inferencex_stat_name(key)) out.push_back(key);
    if (json_member(block, "std")) out.push_back("std");
    return out;
}

// Every number below `v` not already reported, under prefix.<path> (arrays, strings and flags are
// descriptions, not values). Units: seconds where the key says so, else what `unit_of` gives.
template <class UnitOf>
void inferencex_flatten(const nlohmann::json& v, const std::string& path, const std::string& name, const json_place& place,
                        const std::vector<std::string>& taken, UnitOf&& unit_of, run_metadata& meta) {
    if (v.is_object()) {
        for (const auto& [key, inner] : v.items())
            inferencex_flatten(inner, json_path(path, key), name + "." + key, place, taken, unit_of, meta);
        return;
    }
    if (!v.is_number() || v.is_boolean()) return;
    for (const auto& t : taken)
        if (path == t || path.starts_with(t + ".")) return;
    double x = 0;
    if (inferencex_nested_number(&v, place, path, x))
        meta.reported.push_back({name, x, path.ends_with("_seconds") ? std::string("s") : unit_of(path)});
}

// The stability diagnostics' unit: observed ranges of ttft and e2el are seconds, of intvty tok/s.
inline std::string inferencex_stability_unit(const std::string& path) {
    if (path.find("observed_ranges.intvty") != std::string::npos) return "tok/s";
    if (path.find("observed_ranges.") != std::string::npos) return "s";
    return "";
}

// The nested blocks of `object` (at `at` in the file) into meta.reported, and what they mean into
// meta.notes.
inline void read_inferencex_nested(const nlohmann::json& object, const json_place& place, const std::string& at,
                                   run_metadata& meta) {
    std::vector<std::string> taken; // paths reported by name
    for (const auto& n : inferencex_nested_names) {
        const std::string path = json_path(at, n.path);
        double x = 0;
        taken.push_back(std::string(n.path));
        if (!inferencex_nested_number(inferencex_at(object, n.path), place, path, x)) continue;
        meta.reported.push_back({std::string(n.reported), x, std::string(n.unit)});
        if (n.reported != "duration") continue;
        // The harness gives no request rate (its qps is a windowed count): ok / duration is servestat's rps.
        double ok = 0;
        if (inferencex_nested_number(json_member(object, "num_requests_successful"), place, json_path(at, "num_requests_successful"), ok) &&
            x > 0)
            meta.reported.push_back({"rps", ok / x, "req/s"});
    }
    for (const auto& b : inferencex_nested_stats) {
        const auto* block = inferencex_at(object, b.path);
        if (!block || !block->is_object()) continue;
        for (const auto& stat : inferencex_block_stats(*block)) {
            const std::string path = json_path(at, std::string(b.path) + "." + stat);
            taken.push_back(std::string(b.path) + "." + stat);
            double x = 0;
            if (!inferencex_nested_number(json_member(*block, stat), place, path, x)) continue;
            // The std of intvty is over per-request 1/itl: a statistic of interactivity itself.
            const std::string name = b.name == "inferencex.intvty_from_itl" && stat == "std" ? "inferencex.intvty" : std::string(b.name);
            meta.reported.push_back({name + "." + stat, x, std::string(b.unit)});
        }
    }
    // The other latency families (e2e_norm_intvty, full_response_itl, ...), by their own names.
    if (const auto* latency = inferencex_at(object, "request_metrics.latency"); latency && latency->is_object())
        for (const auto& [family, block] : latency->items()) {
            const std::string unit = family.ends_with("intvty") ? "tok/s" : "s"; // clang 14 captures no structured binding
            inferencex_flatten(block, "request_metrics.latency." + family, "inferencex." + family, place, taken,
                               [&unit](const std::string&) { return unit; }, meta);
        }
    const auto none = [](const std::string&) { return std::string(); };
    if (const auto* s = inferencex_at(object, "request_metrics.stability"))
        inferencex_flatten(*s, "request_metrics.stability", "inferencex.stability", place, taken,
                           [](const std::string& p) { return inferencex_stability_unit(p); }, meta);
    taken.push_back("request_metrics.stability");
    taken.push_back("request_metrics.latency");
    if (const auto* a = json_member(object, "request_accounting"))
        inferencex_flatten(*a, "request_accounting", "inferencex.request_accounting", place, taken,
                           [](const std::string&) { return std::string("requests"); }, meta);
    for (const char* block : {"request_metrics", "server_metrics"})
        if (const auto* v = json_member(object, block))
            inferencex_flatten(*v, block, std::string("inferencex.") + block, place, taken, none, meta);

    meta.notes.push_back("InferenceX's nested agentic aggregate (AgentX v1.0 on): num_requests_total counts every "
                         "record AIPerf wrote (warm-up and failed ones too) and num_requests_successful the profiled "
                         "successes; request_accounting says how many were dropped and why "
                         "(inferencex.request_accounting.*; an error during warm-up counts in both drops)");
    meta.notes.push_back("the harness rounds every number to 5 decimals (round_floats) before writing: the "
                         "statistics are as written, not as computed");
    meta.notes.push_back("intvty (mean, p50 ... p95) is 1 / the itl statistic of the same name, so p90 intvty is the "
                         "slow tail (1 / p90 itl), not the 90th percentile of per-request interactivity: reported as "
                         "inferencex.intvty_from_itl.*; its std is over per-request 1/itl (inferencex.intvty.std)");
    if (inferencex_at(object, "request_metrics.stability"))
        meta.notes.push_back("request_metrics.stability holds the harness's diagnostics (window ranges of p75/p90, "
                             "the Kish effective count of root trajectories, cumulative convergence): descriptions, not "
                             "intervals, reported as inferencex.stability.*");
}

// What the power fields say (utils/aggregate_power.py): energy over the whole deployment and the
// benchmark window, and whether the telemetry passed its checks.
inline void add_inferencex_power_notes(const nlohmann::json& object, run_metadata& meta) {
    const auto* valid = json_member(object, "power_valid");
    if (!valid) return;
    if (valid->is_number() && valid->get<double>() == 0) {
        meta.notes.push_back("power_valid 0: the harness found the GPU power telemetry invalid and wrote no energy "
                             "figures (its power_validation.json beside the run says why)");
        return;
    }
    meta.notes.push_back("power and energy (inferencex.avg_power_w per GPU, inferencex.avg_total_gpu_power_w, "
                         "inferencex.total_gpu_energy_j, inferencex.joules_per_*) are the harness's: board power of "
                         "every GPU integrated over the benchmark window, energy divided by the successful requests' "
                         "counts; servestat computes none of them");
}

} // namespace detail
} // namespace servestat
