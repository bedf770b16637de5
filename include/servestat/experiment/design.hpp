// The experiment stage: from the runs of a result set to its design — every factor with its role
// and reason, the configurations, the load axis and its levels, the replicates of each point, the
// run lengths and what was ignored. Sweeps, grids, replicate groups and the "How these runs were
// read" section all take it from here (docs/sweeps.md#how-runs-are-read), and the user corrects it
// with --factor and --role.
#pragma once

#include <algorithm>   // std::sort, std::find, std::any_of, std::max, std::count_if
#include <cctype>      // std::isdigit, std::tolower
#include <cmath>       // std::abs, std::isinf, std::round
#include <cstddef>     // std::size_t
#include <limits>      // std::numeric_limits
#include <map>         // std::map
#include <optional>    // std::optional
#include <set>         // std::set
#include <span>        // std::span
#include <string>      // std::string
#include <string_view> // std::string_view
#include <utility>     // std::move, std::pair
#include <vector>      // std::vector

#include <fmt/format.h>      // fmt::format
#include <fmt/ranges.h>      // fmt::join
#include <nlohmann/json.hpp> // nlohmann::json

#include "servestat/core/errors.hpp"             // usage_error
#include "servestat/core/natural_order.hpp"      // natural_less
#include "servestat/core/run.hpp"                // run_metadata, find_reported
#include "servestat/core/run_names.hpp"          // detail::param_in_name, detail::short_model_name
#include "servestat/experiment/factor_table.hpp" // build_factor_table, factor, user_factor
#include "servestat/experiment/measured_load.hpp" // read_rate_in_names, workload_of, confirms_input_length
#include "servestat/experiment/roles.hpp"        // factor_role, role_by_name, user_role
#include "servestat/stats/run_stats.hpp"         // run_stats
#include "servestat/stats/run_validity.hpp"      // run_failed_entirely

namespace servestat {

struct design_options {
    std::string load;                       // --sweep-by: the factor on the x axis; empty = chosen
    std::vector<user_factor> factors;       // --factor NAME=REGEX
    std::vector<user_role> roles;           // --role NAME=ROLE
    // Replicates must have measured the same workload: mean input and output tokens each within
    // this share of the larger (or within 2 tokens).
    double workload_tolerance = 0.10;
};

struct design_factor {
    factor column;
    role_reading reading;
    bool constant = false; // the same in every run
    std::string same_as;   // for an ignored factor: the factor that already says what it says
};

struct configuration {
    std::string name; // what sets it apart ("baseline · short"); empty when the set has one
    std::vector<std::size_t> runs;
    // The name's pieces, one per factor that names the configurations, in the same order for every
    // configuration ("" where it has no value): what lets two configurations be compared on one factor.
    std::vector<std::string> pieces;
};

// One configuration at one level of the x axis, with every run measured there (replicates).
struct design_point {
    std::size_t configuration = 0;
    nlohmann::json level; // null when the set has no x axis
    std::vector<std::size_t> runs;
};

// A run read from the parts of one measurement (parallel clients' files), and the parts' names.
struct combined_run {
    std::size_t run = 0;
    std::string label;
    std::vector<std::string> parts;
};

struct experiment_design {
    std::vector<design_factor> factors;
    std::string load;              // the x axis; empty: none
    std::string load_as;           // what the load is where its name does not say ("concurrency" of a column "bs")
    bool load_is_setting = false;  // no load varies: the x axis is a setting or a workload size
    std::vector<std::string> lengths; // factors that set a run's length (never a configuration)
    std::vector<configuration> configurations;
    std::vector<std::size_t> configuration_of; // per run
    std::vector<design_point> points;          // configuration order, then ascending level
    std::vector<std::string> notes;            // what the stage decided that no factor row says
    std::vector<std::string> user_settings;    // --factor and --role as given
    std::vector<std::size_t> failed;           // runs in which nothing completed: no measurement
    std::vector<combined_run> combined;        // runs combined from parts of one measurement (parts.hpp)
    std::size_t runs = 0;
    std::size_t traces = 0; // of the runs, workload traces: arrivals and sizes to replay, nothing measured

    const design_factor* find(std::string_view name) const {
        for (const auto& f : factors)
            if (f.column.name == name) return &f;
        return nullptr;
    }
    std::size_t replicated_points() const {
        std::size_t n = 0;
        for (const auto& p : points) n += p.runs.size() > 1;
        return n;
    }
};

namespace detail {

// A level as the sweep code reads it: a number, or an unbounded rate.
inline std::optional<double> level_number(const nlohmann::json& v) {
    if (v.is_number()) return v.get<double>();
    if (v.is_string())
        for (const char* spelling : {"inf", "Infinity", "infinity", "+inf"})
            if (v.get_ref<const std::string&>() == spelling) return std::numeric_limits<double>::infinity();
    return std::nullopt;
}

inline bool numeric_factor(const factor& f) {
    bool any = false;
    for (const auto& v : f.values) {
        if (v.is_null()) continue;
        if (!level_number(v)) return false;
        any = true;
    }
    return any;
}

// Whether every value of `of` is determined by the value of `by` (one value of `of` for each value of `by`).
inline bool determines(const factor& by, const factor& of) {
    std::map<std::string, std::string> seen;
    for (std::size_t i = 0; i < by.values.size(); ++i) {
        const auto [at, first] = seen.try_emplace(by.values[i].dump(), of.values[i].dump());
        if (!first && at->second != of.values[i].dump()) return false;
    }
    return true;
}

inline bool same_partition(const factor& a, const factor& b) { return determines(a, b) && determines(b, a); }

inline std::size_t numeric_levels(const factor& f) {
    std::set<double> seen;
    for (const auto& v : f.values)
        if (const auto n = level_number(v)) seen.insert(*n);
    return seen.size();
}

// Consecutive whole numbers from 0 or 1: what counts repeated runs.
inline bool counts_repeats(const factor& f) {
    std::set<long long> seen;
    for (const auto& v : f.values) {
        if (v.is_null()) continue;
        if (!v.is_number_integer()) return false;
        seen.insert(v.get<long long>());
    }
    if (seen.empty()) return false;
    const long long first = *seen.begin();
    return (first == 0 || first == 1) && *seen.rbegin() - first + 1 == static_cast<long long>(seen.size());
}

inline void apply_user_roles(experiment_design& d, const design_options& o) {
    for (const auto& u : o.roles) {
        bool found = false;
        for (auto& f : d.factors)
            if (f.column.name == u.factor) {
                f.reading = {u.role, "set with --role", true};
                found = true;
            }
        if (!found) {
            std::string known;
            for (const auto& f : d.factors)
                if (!f.constant) known.append(known.empty() ? "" : ", ").append(f.column.name);
            throw usage_error("--role " + u.factor + "=" + to_string(u.role) + ": no factor '" + u.factor +
                              "' in these runs (factors that differ: " + (known.empty() ? "none" : known) + ")");
        }
        d.user_settings.push_back("--role " + u.factor + "=" + to_string(u.role));
    }
}

inline design_factor* factor_named(experiment_design& d, std::string_view name) {
    for (auto& f : d.factors)
        if (f.column.name == name) return &f;
    return nullptr;
}

// Whether a number written in `text` equals `level` ("qwen-16" holds 16; "h100" holds 100, not 1).
inline bool writes_number(const std::string& text, double level) {
    if (std::isinf(level)) { // an unbounded rate is written "inf" ("qps_inf")
        const std::string lower = lower_case(text);
        return lower == "inf" || lower == "infqps" || (lower.ends_with("inf") && lower.size() <= 7); // qpsinf, rateinf
    }
    for (std::size_t at = 0; at < text.size();) {
        if (!std::isdigit(static_cast<unsigned char>(text[at]))) {
            ++at;
            continue;
        }
        std::size_t end = at;
        while (end < text.size() && (std::isdigit(static_cast<unsigned char>(text[end])) || text[end] == '.')) ++end;
        if (const auto n = parse_name_number(std::string_view(text).substr(at, end - at)); n && n->is_number() && n->get<double>() == level)
            return true;
        at = end;
    }
    return false;
}

// Whether a path's word writes the run's level in it ("qwen-16" of a run at concurrency 16).
inline bool restates_the_level(const factor& load, const factor& word) {
    if (word.source != factor_source::path_word && word.source != factor_source::path_tag) return false;
    bool any = false;
    for (std::size_t i = 0; i < load.values.size(); ++i) {
        const auto& v = word.values[i];
        const auto level = level_number(load.values[i]);
        if (v.is_null() || !level) continue;
        if (!writes_number(v.is_string() ? v.get<std::string>() : v.dump(), *level)) return false;
        any = true;
    }
    return any;
}

// Whether a number of the names counts the steps of a sweep in the order of its load (inference-perf's
// stage_0, stage_1, … at rising rates): within each configuration that the other config factors
// tell apart, a higher number is always a higher level.
inline bool indexes_the_level(const experiment_design& d, const factor& load, const design_factor& word) {
    if ((word.column.source != factor_source::path_word && word.column.source != factor_source::path_tag) || !numeric_factor(word.column))
        return false;
    std::map<std::string, std::vector<std::pair<double, double>>> steps; // configuration → (number, level)
    for (std::size_t i = 0; i < d.runs; ++i) {
        const auto n = level_number(word.column.values[i]), level = level_number(load.values[i]);
        if (!n || !level) return false;
        std::string key;
        for (const auto& f : d.factors)
            if (&f != &word && !f.constant && f.reading.role == factor_role::config && f.column.name != load.name)
                key.append(f.column.values[i].dump()).append("\n");
        steps[key].emplace_back(*n, *level);
    }
    bool stepped = false;
    for (auto& [key, s] : steps) {
        std::sort(s.begin(), s.end());
        for (std::size_t k = 1; k < s.size(); ++k)
            if (!(s[k].first > s[k - 1].first && s[k].second > s[k - 1].second)) return false;
        stepped = stepped || s.size() > 1;
    }
    return stepped;
}

inline bool says_the_level(const experiment_design& d, const factor& load, const design_factor& f) {
    return restates_the_level(load, f.column) || indexes_the_level(d, load, f);
}

// Whether some configuration was measured at two or more levels of `load`: only then is it swept.
// A load set once for each configuration (MLPerf's tuned target_qps of each system; two workloads
// each run at its own concurrency) draws no curve. A name word that writes the level is the level,
// not a configuration.
inline bool swept_within_a_configuration(const experiment_design& d, const design_factor& load) {
    std::vector<const design_factor*> configs;
    for (const auto& f : d.factors)
        if (&f != &load && !f.constant && f.reading.role == factor_role::config && !says_the_level(d, load.column, f))
            configs.push_back(&f);
    std::map<std::string, std::set<std::string>> levels;
    for (std::size_t i = 0; i < d.runs; ++i) {
        if (!level_number(load.column.values[i])) continue;
        std::string key;
        for (const auto* f : configs) key.append(f->column.values[i].dump()).append("\n");
        if (auto& seen = levels[key]; seen.insert(load.column.values[i].dump()).second && seen.size() > 1) return true;
    }
    return false;
}

// The x axis: --sweep-by, else the varying load factor most runs have (the earlier name on a tie);
// the other varying loads are the same load said twice (ignored) or set curves apart (config).
inline void choose_load(experiment_design& d, const design_options& o) {
    if (!o.load.empty()) {
        if (auto* f = factor_named(d, o.load)) {
            f->reading = {factor_role::load, "set with --sweep-by", true};
            d.load = o.load;
        }
        return;
    }
    const design_factor* best = nullptr;
    std::size_t best_count = 0, best_rank = 0;
    for (const auto& f : d.factors) {
        if (f.constant || f.reading.role != factor_role::load || !numeric_factor(f.column) || numeric_levels(f.column) < 2) continue;
        if (!f.reading.user_set && !swept_within_a_configuration(d, f)) continue;
        std::size_t count = 0;
        for (const auto& v : f.column.values) count += level_number(v).has_value();
        const auto rank = static_cast<std::size_t>(
            std::find(load_factor_names.begin(), load_factor_names.end(), f.column.name) - load_factor_names.begin());
        if (f.reading.user_set) count += d.runs + 1; // the user's choice first
        if (count > best_count || (count == best_count && rank < best_rank))
            best = &f, best_count = count, best_rank = rank;
    }
    if (best) d.load = best->column.name;
    for (auto& f : d.factors)
        if (best && &f != best && !f.constant && !f.reading.user_set && f.reading.role == factor_role::config &&
            says_the_level(d, best->column, f))
            f.reading = {factor_role::ignored, "writes or counts the level of " + d.load + " in the names", false}, f.same_as = d.load;
    for (auto& f : d.factors) {
        if (f.constant || f.reading.role != factor_role::load || f.column.name == d.load || f.reading.user_set) continue;
        if (best && same_partition(f.column, best->column)) f.reading = {factor_role::ignored, "the same load as " + d.load, false}, f.same_as = d.load;
        else if (best) f.reading = {factor_role::config, "a second load parameter: it sets curves apart", false};
        else if (numeric_levels(f.column) >= 2)
            f.reading = {factor_role::config, "a load set once for each configuration, never swept within one: no curve", false};
        else f.reading = {factor_role::config, "a load parameter with fewer than two levels: it sets runs apart", false};
    }
}

// Where no load varies, a setting that the runs' measurements confirm as their concurrency (Little's
// law: throughput × mean latency) is the load, whatever its name.
inline void concurrency_by_measurement(experiment_design& d, std::span<const run_stats> runs) {
    if (!d.load.empty()) return;
    for (auto& f : d.factors) {
        if (f.constant || f.reading.user_set || f.reading.role != factor_role::config || !numeric_factor(f.column) ||
            numeric_levels(f.column) < 2 || (f.column.source != factor_source::file && f.column.source != factor_source::path_tag))
            continue;
        if (!swept_within_a_configuration(d, f)) continue;
        const auto check = confirms_concurrency(runs, f.column.values);
        if (!check.confirmed) continue;
        f.reading = {factor_role::load, fmt::format("the runs' throughput × mean latency (Little's law) is within {:.0f}% of it "
                                                    "in {} of {} runs: the concurrency they kept",
                                                    100 * detail::in_flight_tolerance, check.agreeing, check.measured), false};
        d.load = f.column.name;
        d.load_as = "concurrency";
        return;
    }
}

// Where no load varies, the setting or workload size that does is the x axis.
inline void choose_setting_axis(experiment_design& d) {
    if (!d.load.empty()) return;
    static constexpr std::array<std::string_view, 11> preferred{
        "max_num_seqs", "max_num_batched_tokens", "input_len", "random_input_len", "isl", "input_tokens",
        "output_len", "random_output_len", "osl", "batch_size", "mean_input_tokens"};
    design_factor* axis = nullptr;
    for (const auto name : preferred)
        if (auto* f = factor_named(d, name);
            f && !f->constant && f->reading.role == factor_role::config && numeric_factor(f->column) && numeric_levels(f->column) >= 3) {
            axis = f;
            break;
        }
    if (!axis) {
        std::vector<design_factor*> numeric;
        for (auto& f : d.factors)
            if (!f.constant && f.reading.role == factor_role::config && numeric_factor(f.column) && numeric_levels(f.column) >= 3 &&
                (f.column.source == factor_source::file || f.column.source == factor_source::path_tag) &&
                !is_load_factor_name(f.column.name)) // a load set once per configuration stays a setting of each
                numeric.push_back(&f);
        if (numeric.size() == 1) axis = numeric.front();
    }
    if (!axis || !swept_within_a_configuration(d, *axis)) return;
    axis->reading = {factor_role::load, "no load parameter varies and " + axis->column.name +
                                            " does: it is the curves' x axis, not a load", false};
    d.load = axis->column.name;
    d.load_is_setting = true;
}

// Path words and tags that add nothing: the same partition as the load, or determined by a factor
// the file gives ("GPU2" of a folder whose runs carry deployment=GPU2_TP2).
inline void ignore_redundant_names(experiment_design& d) {
    for (auto& f : d.factors) {
        if (f.constant || f.reading.user_set || f.reading.role == factor_role::load) continue;
        if (f.column.source != factor_source::path_word && f.column.source != factor_source::path_tag) continue;
        if (f.reading.role != factor_role::config) continue;
        for (const auto& other : d.factors) {
            if (&other == &f || other.constant) continue;
            const bool kept = other.reading.role == factor_role::config || other.reading.role == factor_role::load;
            if (!kept) continue;
            const bool by_load = other.reading.role == factor_role::load && same_partition(other.column, f.column);
            const bool by_setting = other.reading.role == factor_role::config &&
                                    (other.column.source == factor_source::file || other.column.source == factor_source::run_metadata ||
                                     (&other < &f && other.column.source != factor_source::measured)) &&
                                    determines(other.column, f.column);
            if (by_load || by_setting) {
                f.reading = {factor_role::ignored, "says no more than " + other.column.name, false};
                f.same_as = other.column.name;
                break;
            }
        }
    }
}

// A setting one format records and another does not (LLMPerf's JSON keeps mean_output_tokens, its
// console log does not): where every run that records it has one value and the runs without it are
// all of the formats that never record it, they are not known to differ, so it sets no runs apart.
inline void unrecorded_is_no_difference(experiment_design& d, std::span<const run_metadata> metas) {
    for (auto& f : d.factors) {
        if (f.constant || f.reading.user_set || f.reading.role != factor_role::config || f.column.source != factor_source::file)
            continue;
        std::set<std::string> values;
        std::map<std::string, std::pair<std::size_t, std::size_t>> of_format; // format → runs, runs recording it
        for (std::size_t i = 0; i < d.runs; ++i) {
            const bool recorded = !f.column.values[i].is_null();
            if (recorded) values.insert(f.column.values[i].dump());
            auto& [runs, recording] = of_format[metas[i].source.format];
            ++runs;
            recording += recorded;
        }
        if (values.size() != 1) continue;
        std::vector<std::string> recording_formats;
        bool aligned = true;
        for (const auto& [format, counts] : of_format) {
            aligned = aligned && (counts.second == 0 || counts.second == counts.first);
            if (counts.second > 0) recording_formats.push_back(format);
        }
        if (!aligned) continue;
        f.reading = {factor_role::ignored,
                     fmt::format("recorded only in {} files, as {} in each; the others do not say, so it sets no runs apart",
                                 fmt::join(recording_formats, " and "), *values.begin()),
                     false};
    }
}

// A trailing number counts repeats only when it runs 0, 1, … or 1, 2, …; written with leading zeros
// ("amds_05") it numbers a slot or a sequence, which run and not what was run; else it is a setting.
inline void check_trailing_numbers(experiment_design& d) {
    for (auto& f : d.factors)
        if (!f.reading.user_set && f.column.hint == word_hint::trailing_number && f.reading.role == factor_role::replicate &&
            !counts_repeats(f.column))
            f.reading = f.column.zero_padded
                            ? role_reading{factor_role::provenance, "a zero-padded number ending the names (05): a slot or sequence number", false}
                            : role_reading{factor_role::config, "a number ending the file names that does not count repeats (not 0, 1, … or 1, 2, …)", false};
}

inline bool no_word(const nlohmann::json& v) { return v.is_null() || (v.is_string() && v.get_ref<const std::string&>().empty()); }

// A word in the place where the other runs have their replicate index (MLPerf's performance/ranging
// beside performance/run_1): each run has one or the other, so the word names another measurement
// of the same point, not a configuration.
inline void words_in_the_replicate_place(experiment_design& d) {
    for (auto& f : d.factors) {
        if (f.constant || f.reading.user_set || f.reading.role != factor_role::config || f.column.source != factor_source::path_word) continue;
        for (const auto& index : d.factors) {
            if (index.constant || index.reading.role != factor_role::replicate || index.column.where != f.column.where) continue;
            bool one_or_other = true;
            for (std::size_t i = 0; i < d.runs && one_or_other; ++i)
                one_or_other = no_word(f.column.values[i]) != no_word(index.column.values[i]);
            if (!one_or_other) continue;
            f.reading = {factor_role::replicate, "a word where the other runs have their replicate index (" + index.column.name +
                                                     "): another measurement of the same point", false};
            break;
        }
    }
}

// The words of a path word's value, lower case ("mi355x-sglang-agentic-hicache-high").
inline std::set<std::string> words_of(const nlohmann::json& v) {
    std::set<std::string> out;
    if (!v.is_string()) return out;
    std::string word;
    for (const char c : v.get<std::string>() + "-") {
        if (c == '-' || c == '_' || c == ' ' || c == '.') {
            if (!word.empty()) out.insert(lower_case(word));
            word.clear();
        } else word += c;
    }
    return out;
}

// Whether the values of a path word differ only by a word that names a range (high, low, …).
inline bool differs_by_a_range_word(const factor& f) {
    static const std::set<std::string> range_words{"high", "low", "hi", "lo", "upper", "lower"};
    std::set<std::string> all, common;
    bool first = true;
    for (const auto& v : f.values) {
        if (v.is_null()) continue;
        const auto w = words_of(v);
        if (w.empty()) return false;
        all.insert(w.begin(), w.end());
        if (first) common = w, first = false;
        else std::erase_if(common, [&](const std::string& x) { return !w.contains(x); });
    }
    bool any = false;
    for (const auto& w : all)
        if (!common.contains(w)) {
            if (!range_words.contains(w)) return false;
            any = true;
        }
    return any;
}

inline std::string key_of(const experiment_design& d, std::size_t run, std::initializer_list<factor_role> roles) {
    std::string key;
    for (const auto& f : d.factors) {
        if (f.constant) continue;
        if (std::find(roles.begin(), roles.end(), f.reading.role) == roles.end()) continue;
        key.append(f.column.name).append("=").append(f.column.values[run].dump()).append("\n");
    }
    return key;
}

// A date or id that tells apart runs alike in every setting, level and replicate index separates
// sessions that measured the same levels again: their runs are replicates of each other (when their
// measured workloads agree: split_by_measured_workload). Otherwise it is provenance.
inline void sessions_from_provenance(experiment_design& d) {
    for (auto& f : d.factors) {
        if (f.constant || f.reading.user_set || f.reading.role != factor_role::provenance) continue;
        std::map<std::string, std::set<std::string>> seen;
        bool again = false;
        for (std::size_t i = 0; i < d.runs; ++i) {
            auto& values = seen[key_of(d, i, {factor_role::config, factor_role::load, factor_role::replicate})];
            values.insert(f.column.values[i].dump());
            again = again || values.size() > 1;
        }
        if (again) f.reading = {factor_role::replicate, "the same levels measured again in another session", false};
    }
}

// A sweep measured in parts (InferenceX's "…-hicache" at concurrency 1 to 48 and "…-hicache_high" at
// 56 to 120): where a path word's values differ only by a word naming a range and, within every
// configuration the other factors tell apart, each value covers levels of its own, all above or all
// below the other's, the parts are sessions of one sweep.
inline void sweeps_in_parts(experiment_design& d) {
    const design_factor* load = factor_named(d, d.load);
    if (!load) return;
    for (auto& f : d.factors) {
        if (f.constant || f.reading.user_set || f.reading.role != factor_role::config || f.column.source != factor_source::path_word ||
            !differs_by_a_range_word(f.column))
            continue;
        std::map<std::string, std::map<std::string, std::pair<double, double>>> ranges; // configuration → value → levels
        bool numeric = true;
        for (std::size_t i = 0; i < d.runs && numeric; ++i) {
            const auto level = level_number(load->column.values[i]);
            numeric = level.has_value();
            if (!numeric) break;
            std::string key;
            for (const auto& g : d.factors)
                if (&g != &f && !g.constant && g.reading.role == factor_role::config) key.append(g.column.values[i].dump()).append("\n");
            auto [at, added] = ranges[key].try_emplace(f.column.values[i].dump(), *level, *level);
            at->second = {std::min(at->second.first, *level), std::max(at->second.second, *level)};
        }
        bool apart = numeric, joined = false;
        for (const auto& [key, by_value] : ranges) {
            std::vector<std::pair<double, double>> spans;
            for (const auto& [v, span] : by_value) spans.push_back(span);
            std::sort(spans.begin(), spans.end());
            for (std::size_t k = 1; k < spans.size(); ++k) apart = apart && spans[k].first > spans[k - 1].second;
            joined = joined || spans.size() > 1;
        }
        if (apart && joined)
            f.reading = {factor_role::replicate, "its names differ by a word naming a range and each covers levels of its own: "
                                                 "one sweep measured in parts", false};
    }
}

// A run length that differs between runs of one configuration at one level (50 prompts and 100
// prompts at c=8): such runs are not replicates of each other, so the length sets them apart.
inline void lengths_within_a_point(experiment_design& d) {
    for (auto& f : d.factors) {
        if (f.constant || f.reading.user_set || f.reading.role != factor_role::length) continue;
        std::map<std::string, std::set<std::string>> seen;
        bool differ = false;
        for (std::size_t i = 0; i < d.runs; ++i) {
            auto& values = seen[key_of(d, i, {factor_role::config, factor_role::load, factor_role::replicate})];
            values.insert(f.column.values[i].dump());
            differ = differ || values.size() > 1;
        }
        if (differ) f.reading = {factor_role::config, "runs of one configuration at one level differ in it: not replicates", false};
    }
}

// The number of each run's tag ("CTX2048" → 2048), or nothing where some run's value is no tag.
inline std::optional<std::vector<nlohmann::json>> tag_numbers(const factor& f) {
    std::vector<nlohmann::json> out;
    for (const auto& v : f.values) {
        if (v.is_null()) {
            out.push_back(v);
            continue;
        }
        std::string letters, number;
        if (!v.is_string() || !split_tag(lower_case(v.get<std::string>()), letters, number) || !is_decimal(number))
            return std::nullopt;
        out.push_back(word_value(number));
    }
    return out;
}

// Where no load and no named setting varies, a tag in the names whose numbers the runs' measured
// mean input tokens confirm (vLLM bench runs named CTX1024 … CTX15000) is their input length: the x
// axis, as input_len.
inline void input_length_by_measurement(experiment_design& d, std::span<const run_stats> runs) {
    if (!d.load.empty()) return;
    for (auto& f : d.factors) {
        if (f.constant || f.reading.user_set || f.reading.role != factor_role::config || f.column.source != factor_source::path_word)
            continue;
        auto numbers = tag_numbers(f.column);
        if (!numbers) continue;
        const auto check = confirms_input_length(runs, *numbers);
        if (!check.confirmed) continue;
        auto words = std::move(f.column.values);
        f.column.values = std::move(*numbers);
        if (numeric_levels(f.column) < 3 || !swept_within_a_configuration(d, f)) {
            f.column.values = std::move(words);
            continue;
        }
        f.reading = {factor_role::load, fmt::format("no load varies, and the runs' measured mean input tokens are within {:.0f}% "
                                                    "of its number in {} of {} runs: their input length, the curves' x axis",
                                                    100 * input_length_tolerance, check.agreeing, check.measured), false};
        d.load = f.column.name;
        d.load_as = "input_len";
        d.load_is_setting = true;
        return;
    }
}

inline bool near(const std::optional<double>& a, const std::optional<double>& b, double tolerance) {
    if (!a || !b) return true; // nothing measured says they differ
    return std::abs(*a - *b) <= std::max(2.0, tolerance * std::max(std::abs(*a), std::abs(*b)));
}

inline bool same_workload(const measured_workload& a, const measured_workload& b, double tolerance) {
    return near(a.input, b.input, tolerance) && near(a.output, b.output, tolerance);
}

inline std::string workload_name(const measured_workload& w) {
    std::string out;
    if (w.input) out += fmt::format("in≈{:.0f}", *w.input);
    if (w.output) out += fmt::format("{}out≈{:.0f}", out.empty() ? "" : " · ", *w.output);
    return out;
}

// Replicates need the same measured workload: where runs alike in every setting at one level
// measured different workloads, their configuration's runs are told apart by the sizes measured.
inline void split_by_measured_workload(experiment_design& d, std::span<const run_stats> runs, double tolerance) {
    std::map<std::string, std::vector<std::size_t>> by_config;
    std::map<std::string, std::map<std::string, std::vector<std::size_t>>> at_level;
    for (std::size_t i = 0; i < d.runs; ++i) {
        const std::string config = key_of(d, i, {factor_role::config});
        by_config[config].push_back(i);
        at_level[config][key_of(d, i, {factor_role::load})].push_back(i);
    }
    factor measured{"measured_workload", factor_source::measured, "the requests' mean input and output tokens",
                    std::vector<nlohmann::json>(d.runs), word_hint::none};
    std::vector<measured_workload> w;
    for (const auto& r : runs) w.push_back(workload_of(r));
    for (const auto& [config, members] : by_config) {
        bool differ = false;
        for (const auto& [level, alike] : at_level[config])
            for (std::size_t a = 0; a < alike.size() && !differ; ++a)
                for (std::size_t b = a + 1; b < alike.size() && !differ; ++b)
                    differ = !same_workload(w[alike[a]], w[alike[b]], tolerance);
        if (!differ) continue;
        std::vector<std::size_t> order = members;
        std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
            return std::pair(w[a].input.value_or(0), w[a].output.value_or(0)) < std::pair(w[b].input.value_or(0), w[b].output.value_or(0));
        });
        std::vector<std::size_t> leads; // the first run of each cluster of alike workloads
        for (const std::size_t i : order) {
            const auto lead = std::find_if(leads.begin(), leads.end(), [&](std::size_t l) { return same_workload(w[l], w[i], tolerance); });
            const std::size_t named_by = lead == leads.end() ? i : *lead;
            if (lead == leads.end()) leads.push_back(i);
            measured.values[i] = workload_name(w[named_by]);
        }
    }
    if (!measured.varies()) return;
    d.notes.push_back(fmt::format("Runs alike in every setting measured different workloads at one level (mean input or "
                                  "output tokens more than {:.0f}% apart): they are told apart by the sizes measured, "
                                  "not taken as replicates.", 100 * tolerance));
    d.factors.push_back({std::move(measured), {factor_role::config, "runs alike in every setting measured different workloads", false}, false, {}});
}

// A piece of a configuration's name: a path word as written ("baseline", "GPU1/" for a folder), a
// file's setting as name=value, the model by its short name.
inline std::string name_piece(const design_factor& f, const nlohmann::json& v) {
    if (v.is_null()) return {};
    const std::string text = v.is_string() ? v.get<std::string>() : v.dump();
    switch (f.column.source) {
    case factor_source::path_word:
        return text + (f.column.name.starts_with("folder") ? "/" : "");
    case factor_source::measured: return text;
    case factor_source::run_metadata:
        return f.column.name == "model" ? short_model_name(text) : f.column.name + "=" + text;
    default: return f.column.name == "label" ? text : param_in_name(f.column.name, v);
    }
}

inline std::size_t distinct_count(const factor& f) {
    std::set<std::string> seen;
    for (const auto& v : f.values) seen.insert(v.dump());
    return seen.size();
}

// The scales of size words, each in its order: a factor whose words all lie on one is ordered by it.
inline const std::vector<std::vector<std::string_view>>& size_scales() {
    static const std::vector<std::vector<std::string_view>> scales = {
        {"short", "medium", "long"}, {"small", "medium", "large"}, {"low", "medium", "high"},
        {"xs", "s", "m", "l", "xl", "xxl"}, {"tiny", "small", "base", "large", "huge"}};
    return scales;
}

inline std::string lower_case_text(const nlohmann::json& v) {
    std::string out = v.is_string() ? v.get<std::string>() : v.dump();
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// Each run's place in the order of one factor's values: numbers by value, size words by size where
// every word is on one scale ("short" before "medium" before "long"), other words in the order they
// first appear (an author's order: no-features, base, kvcache) unless every one holds a number
// (7b before 34b), runs without the factor last.
inline std::vector<double> value_ranks(const factor& f) {
    const std::size_t n = f.values.size();
    std::vector<double> rank(n, std::numeric_limits<double>::infinity());
    bool numbers = true;
    for (const auto& v : f.values) numbers = numbers && (v.is_null() || level_number(v));
    if (numbers) {
        for (std::size_t i = 0; i < n; ++i)
            if (const auto x = level_number(f.values[i])) rank[i] = *x;
        return rank;
    }
    for (const auto& scale : size_scales()) {
        bool on_scale = true;
        for (const auto& v : f.values)
            on_scale = on_scale && (v.is_null() || std::find(scale.begin(), scale.end(), lower_case_text(v)) != scale.end());
        if (!on_scale) continue;
        for (std::size_t i = 0; i < n; ++i)
            if (!f.values[i].is_null())
                rank[i] = static_cast<double>(std::find(scale.begin(), scale.end(), lower_case_text(f.values[i])) - scale.begin());
        return rank;
    }
    // Words that all hold a number (7b, 34b, 70b; gpu1, gpu2) are ordered by it, as people read them.
    bool numbered = true;
    for (const auto& v : f.values)
        numbered = numbered && (v.is_null() || lower_case_text(v).find_first_of("0123456789") != std::string::npos);
    std::map<std::string, double> first_seen;
    for (std::size_t i = 0; i < n; ++i)
        if (!f.values[i].is_null())
            rank[i] = first_seen.try_emplace(f.values[i].dump(), static_cast<double>(first_seen.size())).first->second;
    if (!numbered) return rank;
    std::vector<std::string> words;
    for (const auto& [word, r] : first_seen) words.push_back(word);
    std::sort(words.begin(), words.end(), [](const std::string& a, const std::string& b) { return natural_less(a, b); });
    for (std::size_t i = 0; i < n; ++i)
        if (!f.values[i].is_null())
            rank[i] = static_cast<double>(std::find(words.begin(), words.end(), f.values[i].dump()) - words.begin());
    return rank;
}

// Configurations in the order of their factors' values, the first factor first, so that tables and
// legends list "gpu · short, gpu · medium, gpu · long" whatever order the files came in.
inline void order_configurations(experiment_design& d, const std::vector<const design_factor*>& by) {
    std::vector<std::vector<double>> ranks;
    for (const auto* f : by) ranks.push_back(value_ranks(f->column));
    std::vector<std::size_t> order(d.configurations.size());
    for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        const std::size_t x = d.configurations[a].runs.front(), y = d.configurations[b].runs.front();
        for (const auto& rank : ranks)
            if (rank[x] != rank[y]) return rank[x] < rank[y];
        return false;
    });
    std::vector<configuration> sorted;
    for (std::size_t k = 0; k < order.size(); ++k) {
        sorted.push_back(std::move(d.configurations[order[k]]));
        for (const std::size_t i : sorted.back().runs) d.configuration_of[i] = k;
    }
    d.configurations = std::move(sorted);
}

// Configurations by their config factors, each named by the fewest of them that tell all apart.
inline void group_configurations(experiment_design& d) {
    std::vector<const design_factor*> shown;
    for (const auto& f : d.factors)
        if (!f.constant && f.reading.role == factor_role::config) shown.push_back(&f);
    std::map<std::string, std::size_t> index;
    d.configuration_of.assign(d.runs, 0);
    for (std::size_t i = 0; i < d.runs; ++i) {
        const auto [at, added] = index.try_emplace(key_of(d, i, {factor_role::config}), d.configurations.size());
        if (added) d.configurations.push_back({});
        d.configurations[at->second].runs.push_back(i);
        d.configuration_of[i] = at->second;
    }
    order_configurations(d, shown);
    const auto distinct = [&](const std::vector<const design_factor*>& fs) {
        std::set<std::string> names;
        for (const auto& c : d.configurations) {
            std::string key;
            for (const auto* f : fs) key.append(f->column.values[c.runs.front()].dump()).append("\n");
            names.insert(key);
        }
        return names.size();
    };
    const std::size_t needed = distinct(shown);
    const auto every_named = [&](const std::vector<const design_factor*>& fs) {
        for (const auto& c : d.configurations) {
            bool named = false;
            for (const auto* f : fs) named = named || !f->column.values[c.runs.front()].is_null();
            if (!named) return false;
        }
        return true;
    };
    // Numbers go first, then the factors with the fewest values: the name keeps words where words
    // tell the configurations apart ("8xMI300X_2xEPYC-TURIN · Server", not "samples_per_query=1"),
    // and what tells the most apart.
    std::vector<const design_factor*> by_values = shown;
    std::stable_sort(by_values.begin(), by_values.end(), [](const design_factor* a, const design_factor* b) {
        return std::pair(!numeric_factor(a->column), distinct_count(a->column)) < std::pair(!numeric_factor(b->column), distinct_count(b->column));
    });
    for (const auto* candidate : by_values) {
        auto fewer = shown;
        std::erase(fewer, candidate);
        if (!fewer.empty() && distinct(fewer) == needed && (d.configurations.size() < 2 || every_named(fewer))) shown = std::move(fewer);
    }
    for (auto& c : d.configurations)
        for (const auto* f : shown) {
            const auto piece = name_piece(*f, f->column.values[c.runs.front()]);
            c.pieces.push_back(piece);
            if (!piece.empty()) c.name.append(c.name.empty() ? "" : " · ").append(piece);
        }
}

inline void collect_points(experiment_design& d) {
    const factor* load = nullptr;
    for (const auto& f : d.factors)
        if (f.column.name == d.load) load = &f.column;
    std::map<std::pair<std::size_t, std::string>, std::size_t> index;
    for (std::size_t i = 0; i < d.runs; ++i) {
        const nlohmann::json level = load ? load->values[i] : nlohmann::json();
        const auto [at, added] = index.try_emplace({d.configuration_of[i], level.dump()}, d.points.size());
        if (added) d.points.push_back({d.configuration_of[i], level, {}});
        d.points[at->second].runs.push_back(i);
    }
    std::stable_sort(d.points.begin(), d.points.end(), [](const design_point& a, const design_point& b) {
        if (a.configuration != b.configuration) return a.configuration < b.configuration;
        const auto x = level_number(a.level), y = level_number(b.level);
        if (x && y) return *x < *y;
        return x.has_value() && !y;
    });
}

} // namespace detail

// The design of `runs` (in input order): the factor table, roles, configurations and points.
inline experiment_design read_design(std::span<const run_stats> runs, const design_options& o = {}) {
    experiment_design d;
    d.runs = runs.size();
    d.traces = static_cast<std::size_t>(std::count_if(runs.begin(), runs.end(), [](const run_stats& r) { return r.meta.kind == run_kind::arrivals; }));
    std::vector<run_metadata> read_as;
    for (const auto& r : runs) {
        read_as.push_back(r.meta);
        // A run made in memory (Python's from_arrays, a library's caller) is named by its label.
        if (auto& m = read_as.back(); m.source.name_parts.empty() && !m.label.empty()) m.source.name_parts = {m.label};
    }
    const rate_in_names rate = read_rate_in_names(runs, read_as, !o.factors.empty());
    std::vector<const run_metadata*> metas;
    for (const auto& m : read_as) metas.push_back(&m);
    for (auto& f : build_factor_table(metas, o.factors).factors) {
        design_factor df{std::move(f), {}, false, {}};
        df.reading = role_by_name(df.column);
        if (std::find(rate.replaced.begin(), rate.replaced.end(), df.column.name) != rate.replaced.end())
            df.reading = {factor_role::ignored, "its number in the names is the request rate, as the runs' send rate shows", false},
            df.same_as = "request_rate";
        df.constant = !df.column.varies();
        d.factors.push_back(std::move(df));
    }
    if (rate.confirmed) d.notes.push_back(rate.note);
    for (const auto& u : o.factors) d.user_settings.push_back("--factor " + u.name + "=" + u.pattern);
    detail::apply_user_roles(d, o);
    detail::unrecorded_is_no_difference(d, read_as);
    detail::check_trailing_numbers(d);
    detail::words_in_the_replicate_place(d);
    detail::choose_load(d, o);
    detail::concurrency_by_measurement(d, runs);
    detail::choose_setting_axis(d);
    detail::input_length_by_measurement(d, runs);
    detail::ignore_redundant_names(d);
    detail::sweeps_in_parts(d);
    detail::sessions_from_provenance(d);
    detail::lengths_within_a_point(d);
    detail::split_by_measured_workload(d, runs, o.workload_tolerance);
    for (const auto& f : d.factors)
        if (f.reading.role == factor_role::length && !f.constant) d.lengths.push_back(f.column.name);
    detail::group_configurations(d);
    detail::collect_points(d);
    for (std::size_t i = 0; i < runs.size(); ++i)
        if (run_failed_entirely(runs[i])) d.failed.push_back(i);
    for (std::size_t i = 0; i < runs.size(); ++i)
        if (!runs[i].meta.source.parts.empty()) d.combined.push_back({i, runs[i].meta.label, runs[i].meta.source.parts});
    return d;
}

// The runs as the sweep and grid search groups them: each run's parameters are its configuration
// and its level — the replicate index, provenance and what was ignored left out; the path's words,
// the measured workload and the user's factors that set configurations apart put in (path words as
// text, so an unknown number never becomes an axis; shown by value alone, `design_word_param`).
inline std::vector<run_stats> runs_as_designed(std::span<const run_stats> runs, const experiment_design& d) {
    std::vector<run_stats> out(runs.begin(), runs.end());
    for (const auto& f : d.factors) {
        const std::string& name = f.column.name;
        for (std::size_t i = 0; i < out.size(); ++i) {
            auto& params = out[i].meta.params;
            const auto& v = f.column.values[i];
            const bool in_params = runs[i].meta.params.contains(name);
            const auto role = f.reading.role;
            if (role == factor_role::replicate || role == factor_role::provenance || role == factor_role::ignored) {
                if (in_params) params.erase(name);
                continue;
            }
            if (in_params || f.constant || f.column.source == factor_source::run_metadata || v.is_null()) continue;
            if (role == factor_role::load || f.column.source == factor_source::user || f.column.source == factor_source::path_tag)
                params[name] = v;
            else
                params[std::string(design_word_param) + name] = detail::name_piece(f, v);
        }
    }
    return out;
}

} // namespace servestat
