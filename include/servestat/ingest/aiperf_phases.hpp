// AIPerf's named phases (AIPerf ≥ 0.12, docs/tutorials/multi-phase-workflows.md): an artifact
// directory keeps its root exports (profile_export.jsonl, profile_export_aiperf.{json,csv}: the
// profiling phases together, warm-up left out) and adds phase_manifest.json with one aggregate per
// phase under phases/<phase_name>/profile_export_aiperf.{json,csv}. Each phase has a kind, warmup or
// profiling; a phase named warmup or profiling has that kind unless the manifest says otherwise.
//
// What this means for runs: with one profiling phase its folder is a copy of the root aggregate, so
// the root's run lists it in run.meta.source.merged (one run, not two); a warm-up phase's aggregate
// is never measured data, so the root lists it too, and it lists itself, so that a folder read
// leaves it out even without the root (named on its own it is still shown, with a note). With
// several profiling phases each phase's aggregate is a run of its own, a window of the root's.
#pragma once

#include <algorithm>    // std::count_if, std::find
#include <cstddef>      // std::size_t
#include <filesystem>   // std::filesystem
#include <optional>     // std::optional
#include <string>       // std::string
#include <system_error> // std::error_code
#include <vector>       // std::vector

#include <nlohmann/json.hpp> // nlohmann::json

#include "servestat/ingest/input_file.hpp" // read_whole_file

namespace servestat {
namespace detail {

struct aiperf_phase {
    std::string name;
    std::string kind; // "warmup", "profiling", or empty when neither the manifest nor the name says
    std::vector<std::filesystem::path> files; // its aggregates that exist
};

inline std::string aiperf_canonical_kind(const std::string& name) {
    return name == "warmup" || name == "profiling" ? name : std::string();
}

// The phase's aggregates: those the manifest names, else phases/<name>/profile_export_aiperf.*.
inline void add_aiperf_phase_files(const std::filesystem::path& root, const nlohmann::json* entry, aiperf_phase& phase) {
    namespace fs = std::filesystem;
    std::vector<fs::path> candidates;
    if (entry)
        for (const char* key : {"metrics_json", "metrics_csv"})
            if (const auto it = entry->find(key); it != entry->end() && it->is_string()) {
                const fs::path p(it->get<std::string>());
                candidates.push_back(p.is_absolute() ? p : root / p);
            }
    for (const char* name : {"profile_export_aiperf.json", "profile_export_aiperf.csv"})
        candidates.push_back(root / "phases" / phase.name / name);
    for (const auto& c : candidates) {
        std::error_code ec;
        if (!fs::is_regular_file(c, ec)) continue;
        const auto same = [&](const fs::path& p) { return p.lexically_normal() == c.lexically_normal(); };
        if (std::find_if(phase.files.begin(), phase.files.end(), same) == phase.files.end()) phase.files.push_back(c);
    }
}

// The phases of the AIPerf artifact directory `root`: from phase_manifest.json when it can be read
// (it only tells which files are copies, so a broken one falls back to the phases/ folders), else
// from the phases/ folders by their names. Empty for a run without named phases.
inline std::vector<aiperf_phase> aiperf_phases(const std::filesystem::path& root) {
    namespace fs = std::filesystem;
    std::vector<aiperf_phase> phases;
    std::error_code ec;
    const fs::path manifest = root / "phase_manifest.json";
    if (fs::is_regular_file(manifest, ec)) {
        nlohmann::json doc;
        try {
            doc = nlohmann::json::parse(read_whole_file(manifest), nullptr, false);
        } catch (const std::exception&) {
            doc = nlohmann::json(nullptr);
        }
        const nlohmann::json* entries = doc.is_array() ? &doc : nullptr;
        if (doc.is_object())
            if (const auto it = doc.find("phases"); it != doc.end() && it->is_array()) entries = &*it;
        if (entries)
            for (const auto& entry : *entries) {
                if (!entry.is_object()) continue;
                aiperf_phase phase;
                for (const char* key : {"phase_name", "name"})
                    if (const auto it = entry.find(key); phase.name.empty() && it != entry.end() && it->is_string())
                        phase.name = it->get<std::string>();
                if (phase.name.empty()) continue;
                phase.kind = aiperf_canonical_kind(phase.name);
                for (const char* key : {"phase_kind", "kind"})
                    if (const auto it = entry.find(key); it != entry.end() && it->is_string()) phase.kind = it->get<std::string>();
                add_aiperf_phase_files(root, &entry, phase);
                phases.push_back(std::move(phase));
            }
        if (!phases.empty()) return phases;
    }
    const fs::path dir = root / "phases";
    if (!fs::is_directory(dir, ec)) return phases;
    for (fs::directory_iterator it(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
        std::error_code type_ec;
        if (!it->is_directory(type_ec)) continue;
        aiperf_phase phase;
        phase.name = it->path().filename().string();
        phase.kind = aiperf_canonical_kind(phase.name);
        add_aiperf_phase_files(root, nullptr, phase);
        phases.push_back(std::move(phase));
    }
    std::sort(phases.begin(), phases.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    return phases;
}

// What the named phases mean for one of AIPerf's files: the files its run covers (merged), the
// parameter naming its phase, and notes.
struct aiperf_phase_context {
    std::vector<std::string> merged;
    std::optional<std::string> phase; // the phase a phases/<name>/ aggregate belongs to
    std::vector<std::string> notes;
};

// For a root export (profile_export.jsonl or profile_export_aiperf.*) in `root`.
inline aiperf_phase_context aiperf_root_phase_context(const std::filesystem::path& root) {
    aiperf_phase_context out;
    const auto phases = aiperf_phases(root);
    if (phases.empty()) return out;
    const auto profiling = std::count_if(phases.begin(), phases.end(), [](const auto& p) { return p.kind == "profiling"; });
    const bool unknown = std::any_of(phases.begin(), phases.end(), [](const auto& p) { return p.kind.empty(); });
    std::string names, warmups;
    for (const auto& p : phases) {
        names.append(names.empty() ? "" : ", ").append(p.name).append(" (").append(p.kind.empty() ? "kind unknown" : p.kind).append(")");
        const bool copy = p.kind == "profiling" && profiling == 1 && !unknown;
        if (p.kind == "warmup" || copy)
            for (const auto& f : p.files) out.merged.push_back(f.string());
        if (p.kind == "warmup") warmups.append(warmups.empty() ? "" : ", ").append(p.name);
    }
    std::string note = "AIPerf's named phases: " + names + ". The root export covers the profiling phases";
    if (profiling == 1 && !unknown) note += "; phases/" + std::find_if(phases.begin(), phases.end(), [](const auto& p) {
                                                            return p.kind == "profiling";
                                                        })->name + "/ is its copy, not a second run";
    else note += "; each profiling phase's own aggregate is a run of its own (a window of this one)";
    if (!warmups.empty()) note += "; warm-up (" + warmups + ") is never counted";
    out.notes.push_back(note + ".");
    return out;
}

// For any of AIPerf's aggregate files: a root export, or phases/<name>/profile_export_aiperf.*.
inline aiperf_phase_context aiperf_file_phase_context(const std::filesystem::path& file) {
    const auto dir = file.parent_path();
    if (dir.parent_path().filename() != "phases") return aiperf_root_phase_context(dir);
    aiperf_phase_context out;
    const std::string name = dir.filename().string();
    const auto root = dir.parent_path().parent_path();
    std::string kind = aiperf_canonical_kind(name);
    for (const auto& p : aiperf_phases(root))
        if (p.name == name) kind = p.kind;
    out.phase = name;
    if (kind == "warmup") {
        // Listed as merged into itself: a folder read leaves warm-up out; named alone it is shown.
        out.merged.push_back(file.string());
        out.notes.push_back("The aggregate of AIPerf's warm-up phase " + name +
                            ": never measured data (AIPerf leaves warm-up out of its results; a folder read "
                            "leaves this file out).");
    } else {
        out.notes.push_back("The aggregate of AIPerf's " + (kind.empty() ? std::string("named") : kind) + " phase " +
                            name + " alone (phases/" + name + "/); the root export covers the profiling phases together.");
    }
    return out;
}

} // namespace detail
} // namespace servestat
