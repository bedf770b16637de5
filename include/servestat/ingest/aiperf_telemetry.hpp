// AIPerf's GPU telemetry and energy figures, for the readers of its run aggregates
// (aiperf_summary.hpp: profile_export_aiperf.json and .csv).
//
// What real files hold (tests/corpus/aiperf-paretoruns-gb10-datasets, AIPerf 0.12.0 with
// --gpu-telemetry pynvml; tests/corpus/aiperf-wellflat-single, an earlier AIPerf with a DCGM
// exporter):
// - AIPerf 0.12 adds run-level energy metrics as ordinary top-level metric blocks, named with the
//   GPU platform (nvidia_total_gpu_energy in J, nvidia_average_gpu_power in W,
//   nvidia_output_tokens_per_joule, nvidia_energy_per_output_token in mJ/token, ...). The summary
//   reader reports them like any other metric, as aiperf.<tag> in AIPerf's unit. Their CSV rows
//   ("Total GPU Energy (J)", ...) carry no platform; this header maps them back to the JSON's tags,
//   taking the platform from the CSV's own telemetry table, so both files report the same names.
// - telemetry_data (JSON) and the CSV's telemetry table hold per-GPU statistics of every GPU the
//   collector saw (not only those serving the model). They are not read as values; a note says what
//   they hold. The energy counter's meaning changed: 0.12 writes <platform>_energy_consumption as one
//   value, the counter's rise over the profiling window (MJ; the GPUs' sum is AIPerf's
//   <platform>_total_gpu_energy); the earlier generation writes energy_consumption as statistics of
//   the counter's readings, energy since the GPU booted, which are no energy of the run.
#pragma once

#include <cmath>       // std::abs
#include <cstddef>     // std::size_t
#include <map>         // std::map
#include <optional>    // std::optional
#include <set>         // std::set
#include <string>      // std::string
#include <string_view> // std::string_view
#include <vector>      // std::vector

#include <fmt/format.h>      // fmt::format
#include <nlohmann/json.hpp> // nlohmann::json

#include "servestat/core/run.hpp"  // reported_value
#include "servestat/core/text.hpp" // shortest_number

namespace servestat {
namespace detail {

// AIPerf's CSV display names of its run-level energy metrics and their JSON tags without the
// platform prefix (profile_export_aiperf.csv and .json of one AIPerf 0.12.0 run: "Total GPU Energy
// (J)" is nvidia_total_gpu_energy). Only "Output Tokens per Second per Watt" is not its snake_case.
struct aiperf_energy_header {
    std::string_view header;
    std::string_view tag;
};

inline constexpr aiperf_energy_header aiperf_energy_headers[] = {
    {"Average GPU Power", "average_gpu_power"},
    {"Energy Delay Product", "energy_delay_product"},
    {"Energy per Output Token", "energy_per_output_token"},
    {"Energy per Request", "energy_per_request"},
    {"Energy per Total Token", "energy_per_total_token"},
    {"Energy per User", "energy_per_user"},
    {"Goodput per Watt", "goodput_per_watt"},
    {"Output Tokens per Joule", "output_tokens_per_joule"},
    {"Output Tokens per Second per Watt", "output_tps_per_watt"},
    {"Performance per Watt", "performance_per_watt"},
    {"Total GPU Energy", "total_gpu_energy"},
    {"Total GPU Power", "total_gpu_power"},
};

inline std::optional<std::string_view> aiperf_energy_tag(std::string_view header) {
    for (const auto& e : aiperf_energy_headers)
        if (e.header == header) return e.tag;
    return std::nullopt;
}

inline bool is_aiperf_energy_tag(std::string_view tag) {
    for (const auto& e : aiperf_energy_headers)
        if (e.tag == tag) return true;
    return false;
}

// The CSV's energy values, reported under their platform-less tags while the rows were read, renamed
// to <platform>_<tag> once the telemetry table has named exactly one platform (the JSON's names). With
// no platform, or several, they keep the platform-less tags and a note says why.
inline void name_aiperf_csv_energy(std::vector<reported_value>& reported, const std::set<std::string>& tags,
                                   const std::set<std::string>& platforms, std::vector<std::string>& notes) {
    if (tags.empty()) return;
    if (platforms.size() != 1) {
        notes.push_back(fmt::format("The energy rows keep AIPerf's names without a platform (aiperf.total_gpu_energy, "
                                    "...): the CSV's telemetry table names {} platforms, the JSON's tags need one.",
                                    platforms.size()));
        return;
    }
    const std::string& platform = *platforms.begin();
    for (auto& v : reported)
        for (const auto& tag : tags) {
            const std::string plain = "aiperf." + tag;
            if (v.name == plain || v.name.starts_with(plain + ".")) {
                v.name = "aiperf." + platform + "_" + v.name.substr(7);
                break;
            }
        }
}

// ---- telemetry_data (profile_export_aiperf.json) ----

inline const nlohmann::json* aiperf_telemetry_object(const nlohmann::json& object, std::string_view key) {
    const auto it = object.find(key);
    return it != object.end() && it->is_object() ? &*it : nullptr;
}

inline std::optional<double> aiperf_telemetry_number(const nlohmann::json& object, std::string_view key) {
    const auto it = object.find(key);
    if (it == object.end() || !it->is_number()) return std::nullopt;
    return it->get<double>();
}

// A note on what telemetry_data holds, or nothing when it lists no GPU. Nothing in it is read as a
// value: its statistics are per GPU, over every GPU the collector saw.
inline std::optional<std::string> describe_aiperf_telemetry(const nlohmann::json& doc, const nlohmann::json& telemetry) {
    const auto* endpoints = aiperf_telemetry_object(telemetry, "endpoints");
    if (!endpoints || endpoints->empty()) return std::nullopt;
    std::size_t gpus = 0;
    std::map<std::string, std::size_t> names;
    std::set<std::string> platforms;
    std::size_t readings = 0; // GPUs whose energy_consumption is statistics of the counter's readings
    std::size_t rises = 0;    // GPUs whose <platform>_energy_consumption is one value, the counter's rise
    double rise_j = 0;
    std::string rise_tag;
    for (const auto& [endpoint, entry] : endpoints->items()) {
        const auto* gpu_map = entry.is_object() ? aiperf_telemetry_object(entry, "gpus") : nullptr;
        if (!gpu_map) continue;
        for (const auto& [key, gpu] : gpu_map->items()) {
            if (!gpu.is_object()) continue;
            ++gpus;
            const auto name = gpu.find("gpu_name");
            ++names[name != gpu.end() && name->is_string() ? name->get<std::string>() : std::string("unnamed GPU")];
            const auto platform = gpu.find("platform");
            if (platform != gpu.end() && platform->is_string()) platforms.insert(platform->get<std::string>());
            const auto* metrics = aiperf_telemetry_object(gpu, "metrics");
            if (!metrics) continue;
            for (const auto& [tag, block] : metrics->items()) {
                if (!block.is_object() || !(tag == "energy_consumption" || tag.ends_with("_energy_consumption")))
                    continue;
                const bool distribution = block.contains("min") || block.contains("max") || block.contains("p50");
                const auto unit = block.find("unit");
                const auto avg = aiperf_telemetry_number(block, "avg");
                if (distribution) {
                    ++readings;
                } else if (avg && unit != block.end() && unit->is_string() && unit->get<std::string>() == "MJ") {
                    ++rises;
                    rise_j += *avg * 1e6;
                    rise_tag = tag;
                }
            }
        }
    }
    if (gpus == 0) return std::nullopt;
    std::string which;
    for (const auto& [name, n] : names) which.append(which.empty() ? "" : ", ").append(fmt::format("{} × {}", n, name));
    std::string note = fmt::format("telemetry_data (GPU telemetry) of {} GPU{} ({}) from {} endpoint{} is not read: its "
                                   "statistics are per GPU, over every GPU the collector saw, not only those serving "
                                   "the model.",
                                   gpus, gpus == 1 ? "" : "s", which, endpoints->size(), endpoints->size() == 1 ? "" : "s");
    if (readings > 0)
        note += " Its energy_consumption is each GPU's energy counter since boot (MJ) summarised over the samples: "
                "no energy used by the run.";
    if (rises > 0 && platforms.size() == 1) {
        const std::string total_tag = *platforms.begin() + "_total_gpu_energy";
        const auto* total = aiperf_telemetry_object(doc, total_tag);
        // Assigned apart rather than by ?: which g++ 12 reads as maybe uninitialized (-Wmaybe-uninitialized).
        std::optional<double> total_j;
        if (total) total_j = aiperf_telemetry_number(*total, "avg");
        note += fmt::format(" Its {} is the rise of each GPU's energy counter over the telemetry window (summary.start_time to end_time: {} J over the {} GPU{})",
                            rise_tag, shortest_number(rise_j), rises, rises == 1 ? "" : "s");
        if (total_j && std::abs(*total_j - rise_j) <= 1e-9 * std::abs(*total_j) + 1e-9)
            note += fmt::format("; AIPerf's {} (aiperf.{}, J) is that sum.", total_tag, total_tag);
        else if (total_j)
            note += fmt::format("; AIPerf's {} (aiperf.{}) is {} J.", total_tag, total_tag, shortest_number(*total_j));
        else
            note += ".";
    }
    return note;
}

} // namespace detail
} // namespace servestat
