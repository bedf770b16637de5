// The report of a tune search (tune.md, tune.html and their charts), rendered from tune.json alone:
// the answer first (what to deploy, how much it gains over the starting settings, how sure, what long
// prompts pay for it), then the objective over the space, the leaders' curves, every configuration
// measured and why it is not the answer, and the search's decisions. The search itself is
// load/tune_search.hpp (docs/tune.md); this header only reads its JSON and writes prose and charts.
#pragma once

#include <algorithm>        // std::stable_sort, std::find_if, std::count_if, std::all_of, std::any_of, std::min_element, std::max_element, std::max, std::min
#include <cmath>            // std::isfinite, std::abs, std::llround
#include <cstddef>          // std::size_t
#include <cstdint>          // std::int64_t, std::uint64_t
#include <initializer_list> // std::initializer_list
#include <limits>           // std::numeric_limits
#include <optional>         // std::optional, std::nullopt
#include <string>           // std::string
#include <string_view>      // std::string_view
#include <utility>          // std::move, std::pair
#include <vector>           // std::vector

#include <fmt/format.h>      // fmt::format
#include <nlohmann/json.hpp> // nlohmann::ordered_json

#include "servestat/core/errors.hpp"              // input_error, usage_error
#include "servestat/core/visible_controls.hpp"    // visible_controls
#include "servestat/plot/data.hpp"                // named_points, chart_labels, axis_unit
#include "servestat/plot/heatmap.hpp"             // heatmap_chart, heat_table, heatmap_options
#include "servestat/plot/line.hpp"                // line_chart, line_options, band, reference_line, marked_point
#include "servestat/plot/scatter.hpp"             // detail::significant
#include "servestat/report/builtin_templates.hpp" // find_builtin_template
#include "servestat/report/format.hpp"            // format_seconds, format_ratio, missing_value
#include "servestat/report/plot_file.hpp"         // plot_file
#include "servestat/report/render.hpp"            // render, markup
#include "servestat/report/stats_json.hpp"        // json

namespace servestat::report {

// What render_tune_report writes: tune.md, tune.html (self-contained: the charts inline) and the
// charts as files. Each svg's first member is its path relative to tune.md, "plots/NAME.svg", as
// tune.md links it: the caller writes it under the report's folder, creating plots/.
struct tune_report_files {
    std::string markdown, html;
    std::vector<std::pair<std::string, std::string>> svgs; // path relative to tune.md, svg text
};

namespace detail::tune_report {

using tune_json = nlohmann::ordered_json;

// ---- reading tune.json: every field checked, each error naming its path ------------------------

[[noreturn]] inline void malformed(const std::string& path, const std::string& what) {
    throw input_error("tune.json", 0, "", path + ": " + what);
}

// A value of tune.json and where it is, for messages: "configurations[3].value".
struct field {
    const tune_json& value;
    std::string path;
};

inline field member(const field& object, const std::string& key) {
    if (!object.value.is_object()) malformed(object.path, "expected an object");
    const auto it = object.value.find(key);
    const std::string path = object.path.empty() ? key : object.path + "." + key;
    if (it == object.value.end()) malformed(path, "missing");
    return {*it, path};
}

// A member that may be absent or null (documented as such in the schema).
inline std::optional<field> optional_member(const field& object, const std::string& key) {
    if (!object.value.is_object()) malformed(object.path, "expected an object");
    const auto it = object.value.find(key);
    if (it == object.value.end() || it->is_null()) return std::nullopt;
    return field{*it, object.path.empty() ? key : object.path + "." + key};
}

inline std::vector<field> elements(const field& f) {
    if (!f.value.is_array()) malformed(f.path, "expected an array");
    std::vector<field> out;
    for (std::size_t i = 0; i < f.value.size(); ++i) out.push_back({f.value[i], fmt::format("{}[{}]", f.path, i)});
    return out;
}

inline std::string text(const field& f) {
    if (!f.value.is_string()) malformed(f.path, "expected a string");
    return f.value.get<std::string>();
}

inline std::string one_of(const field& f, std::initializer_list<std::string_view> allowed) {
    const std::string t = text(f);
    std::string names;
    for (const auto a : allowed) {
        if (t == a) return t;
        names.append(names.empty() ? "" : ", ").append("\"").append(a).append("\"");
    }
    malformed(f.path, fmt::format("expected one of {}, not \"{}\"", names, visible_controls(t)));
}

inline double number(const field& f) {
    if (!f.value.is_number() || !std::isfinite(f.value.get<double>())) malformed(f.path, "expected a number");
    return f.value.get<double>();
}

inline std::optional<double> number_or_null(const field& f) {
    if (f.value.is_null()) return std::nullopt;
    if (!f.value.is_number() || !std::isfinite(f.value.get<double>())) malformed(f.path, "expected a number or null");
    return f.value.get<double>();
}

inline std::size_t count(const field& f) {
    const bool whole = f.value.is_number_unsigned() ||
                       (f.value.is_number_integer() && f.value.get<std::int64_t>() >= 0);
    if (!whole) malformed(f.path, "expected a whole number, 0 or more");
    return f.value.get<std::size_t>();
}

inline bool boolean(const field& f) {
    if (!f.value.is_boolean()) malformed(f.path, "expected true or false");
    return f.value.get<bool>();
}

struct interval {
    double low = 0, high = 0;
};

inline bool is_interval(const tune_json& v) {
    return v.is_array() && v.size() == 2 && v[0].is_number() && v[1].is_number() && std::isfinite(v[0].get<double>()) &&
           std::isfinite(v[1].get<double>());
}

inline interval required_interval(const field& f) {
    if (!is_interval(f.value)) malformed(f.path, "expected [low, high] (two numbers)");
    return {f.value[0].get<double>(), f.value[1].get<double>()};
}

inline std::optional<interval> interval_or_null(const field& f) {
    if (f.value.is_null()) return std::nullopt;
    if (!is_interval(f.value)) malformed(f.path, "expected [low, high] (two numbers) or null");
    return interval{f.value[0].get<double>(), f.value[1].get<double>()};
}

// A configuration, {"max_num_seqs": 64, ...}: its settings in the search's order.
inline tune_json configuration_object(const field& f) {
    if (!f.value.is_object()) malformed(f.path, "expected an object of setting: value");
    for (const auto& [key, value] : f.value.items())
        if (!value.is_string() && !value.is_number() && !value.is_boolean())
            malformed(f.path + "." + key, "expected a number, a word or true/false");
    return f.value;
}

// ---- the document as plain structs --------------------------------------------------------------

struct objective_spec {
    std::string name, label, unit, description;
    bool lower_is_better = false;
    bool is_capacity() const { return name == "capacity"; }
};

struct slo_spec {
    std::string subset, metric, text;
    double percentile = 0, max_seconds = 0;
};

struct dimension {
    std::string name;
    std::vector<std::string> values; // as written in tables and chart axes
    std::vector<std::optional<double>> numbers; // each value's number, if it is one
};

struct named_configuration {
    std::string name;
    tune_json configuration;
};

struct slo_value {
    std::optional<double> value;
    std::optional<interval> ci;
};

struct level {
    double load = 0;
    std::string status;
    std::optional<double> output_tps;
    std::vector<slo_value> slos; // parallel to the document's slos
};

struct measurement {
    std::string step, infeasible, server_log;
    std::optional<std::string> server_log_tail;
    std::optional<double> value;
    std::vector<level> levels;
};

struct configuration {
    std::string name, status, reason;
    tune_json settings;
    std::vector<std::size_t> point;
    bool start = false;
    std::size_t runs = 0, position = 0; // position: its place in tune.json, the last tie-break
    std::optional<double> value;
    std::optional<interval> ci;
    std::optional<double> at_least; // capacity: every load up to this met the SLOs in every run
    std::vector<measurement> measurements;
};

struct start_comparison {
    double value = 0;
    interval ci;
    std::optional<double> ratio;
    bool distinguishable = false;
};

struct runner_up {
    std::string name;
    std::optional<tune_json> settings; // the schema has it; a document without it is looked up by name
    double value = 0;
    interval ci;
    bool distinguishable = false;
    std::optional<double> at_least; // capacity: it too met the SLOs at every load tried, up to this
};

struct recommendation {
    std::string name;
    tune_json settings;
    double value = 0;
    interval ci;
    std::size_t runs = 0;
    std::optional<start_comparison> start;
    std::optional<runner_up> second;
    // Capacity only: every load up to the highest tried met the SLOs in every run, so the value is a
    // floor, not an estimate; the highest load tried.
    std::optional<double> at_least;
};

struct latency_pair {
    std::optional<double> n, ttft_p95, e2e_p95;
};

struct prompt_cost_row {
    std::string name, role;
    std::optional<latency_pair> short_prompts, long_prompts;
};

struct prompt_costs {
    std::string note;
    std::vector<prompt_cost_row> rows;
    // The recommendation at the highest load it met the SLOs at: what prompts pay where it would run.
    std::optional<double> capacity_load;
    std::optional<latency_pair> capacity_short, capacity_long;
};

struct decision {
    double order = 0;
    std::string name, step, reason;
};

struct tune_document {
    std::string title, workload, end, conclusion;
    objective_spec objective;
    std::vector<slo_spec> slos;
    double confidence = 0.95;
    std::vector<dimension> space;
    std::size_t grid_size = 0;
    std::optional<named_configuration> start;
    std::optional<double> budget_seconds;
    double used_seconds = 0;
    std::size_t runs = 0, measured = 0;
    std::optional<recommendation> best;
    std::vector<configuration> configurations;
    std::optional<prompt_costs> costs;
    std::vector<decision> decisions;
};

inline objective_spec read_objective(const field& f) {
    return {text(member(f, "name")), text(member(f, "label")), text(member(f, "unit")), text(member(f, "description")),
            one_of(member(f, "direction"), {"higher_is_better", "lower_is_better"}) == "lower_is_better"};
}

inline slo_spec read_slo(const field& f) {
    return {one_of(member(f, "subset"), {"all", "short", "long"}), text(member(f, "metric")), text(member(f, "text")),
            number(member(f, "percentile")), number(member(f, "max_seconds"))};
}

// A setting's value as tables and prose write it: 1024, 0.9, on.
inline std::string value_text(const tune_json& v) {
    if (v.is_string()) return v.get<std::string>();
    if (v.is_number_integer()) return std::to_string(v.get<std::int64_t>());
    if (v.is_number_unsigned()) return std::to_string(v.get<std::uint64_t>());
    if (v.is_number_float()) return fmt::format("{}", v.get<double>());
    return v.dump();
}

inline dimension read_dimension(const field& f) {
    dimension d{text(member(f, "name")), {}, {}};
    for (const auto& v : elements(member(f, "values"))) {
        if (!v.value.is_string() && !v.value.is_number()) malformed(v.path, "expected a number or a word");
        d.values.push_back(value_text(v.value));
        d.numbers.push_back(v.value.is_number() ? std::optional<double>(v.value.get<double>()) : std::nullopt);
    }
    if (d.values.empty()) malformed(f.path + ".values", "expected at least one value");
    return d;
}

inline level read_level(const field& f, std::size_t slo_count) {
    level l{number(member(f, "load")), one_of(member(f, "status"), {"done", "failed", "interrupted"}),
            number_or_null(member(f, "output_tps")), {}};
    for (const auto& s : elements(member(f, "slos")))
        l.slos.push_back({number_or_null(member(s, "value")), interval_or_null(member(s, "ci"))});
    if (l.slos.size() != slo_count)
        malformed(f.path + ".slos", fmt::format("expected one entry per SLO ({}), not {}", slo_count, l.slos.size()));
    return l;
}

inline measurement read_measurement(const field& f, std::size_t slo_count) {
    measurement m{one_of(member(f, "step"), {"start", "spread", "refine", "remeasure"}), text(member(f, "infeasible")),
                  text(member(f, "server_log")), std::nullopt, number_or_null(member(f, "value")), {}};
    if (const auto tail = optional_member(f, "server_log_tail")) m.server_log_tail = text(*tail);
    interval_or_null(member(f, "ci"));
    for (const auto& l : elements(member(f, "levels"))) m.levels.push_back(read_level(l, slo_count));
    return m;
}

inline configuration read_configuration(const field& f, const std::vector<dimension>& space, std::size_t slo_count,
                                        std::size_t position) {
    configuration c;
    c.name = text(member(f, "name"));
    c.settings = configuration_object(member(f, "configuration"));
    const auto point = member(f, "point");
    for (const auto& index : elements(point)) c.point.push_back(count(index));
    if (c.point.size() != space.size())
        malformed(point.path, fmt::format("expected one index per dimension of the space ({})", space.size()));
    for (std::size_t d = 0; d < space.size(); ++d)
        if (c.point[d] >= space[d].values.size())
            malformed(fmt::format("{}[{}]", point.path, d),
                      fmt::format("index {} is past {}'s {} values", c.point[d], space[d].name, space[d].values.size()));
    c.start = boolean(member(f, "start"));
    c.status = one_of(member(f, "status"), {"best", "kept", "dropped", "infeasible"});
    c.reason = text(member(f, "reason"));
    c.runs = count(member(f, "runs"));
    c.value = number_or_null(member(f, "value"));
    c.ci = interval_or_null(member(f, "ci"));
    if (const auto floor = optional_member(f, "at_least")) c.at_least = number(*floor);
    c.position = position;
    for (const auto& m : elements(member(f, "measurements"))) c.measurements.push_back(read_measurement(m, slo_count));
    return c;
}

inline std::optional<start_comparison> read_start_comparison(const field& f) {
    const auto start = optional_member(f, "start");
    if (!start) return std::nullopt;
    return start_comparison{number(member(*start, "value")), required_interval(member(*start, "ci")),
                            number_or_null(member(*start, "ratio")), boolean(member(*start, "distinguishable"))};
}

inline std::optional<runner_up> read_runner_up(const field& f) {
    const auto second = optional_member(f, "runner_up");
    if (!second) return std::nullopt;
    runner_up r{text(member(*second, "name")), std::nullopt, number(member(*second, "value")),
                required_interval(member(*second, "ci")), boolean(member(*second, "distinguishable"))};
    if (const auto settings = optional_member(*second, "configuration")) r.settings = configuration_object(*settings);
    if (const auto floor = optional_member(*second, "at_least")) r.at_least = number(*floor);
    return r;
}

inline std::optional<recommendation> read_recommendation(const field& root) {
    const auto f = optional_member(root, "recommendation");
    if (!f) return std::nullopt;
    return recommendation{text(member(*f, "name")),
                          configuration_object(member(*f, "configuration")),
                          number(member(*f, "value")),
                          required_interval(member(*f, "ci")),
                          count(member(*f, "runs")),
                          read_start_comparison(*f),
                          read_runner_up(*f),
                          [&]() -> std::optional<double> {
                              const auto a = optional_member(*f, "at_least");
                              return a ? std::optional<double>(number(*a)) : std::nullopt;
                          }()};
}

inline std::optional<latency_pair> read_latency_pair(const field& row, const std::string& key) {
    const auto f = optional_member(row, key);
    if (!f) return std::nullopt;
    return latency_pair{number_or_null(member(*f, "n")), number_or_null(member(*f, "ttft_p95")),
                        number_or_null(member(*f, "e2e_p95"))};
}

inline std::optional<prompt_costs> read_prompt_costs(const field& root) {
    const auto f = optional_member(root, "prompt_costs");
    if (!f) return std::nullopt;
    prompt_costs p{text(member(*f, "note")), {}};
    for (const auto& row : elements(member(*f, "rows")))
        p.rows.push_back({text(member(row, "name")), one_of(member(row, "role"), {"recommended", "runner-up", "start"}),
                          read_latency_pair(row, "short"), read_latency_pair(row, "long")});
    if (const auto top = optional_member(*f, "at_capacity")) {
        p.capacity_load = number(member(*top, "load"));
        p.capacity_short = read_latency_pair(*top, "short");
        p.capacity_long = read_latency_pair(*top, "long");
    }
    return p;
}

inline tune_document read_document(const tune_json& j) {
    const field root{j, ""};
    if (!j.is_object()) malformed("tune.json", "expected a JSON object");
    if (number(member(root, "servestat_tune")) != 1) malformed("servestat_tune", "expected version 1");
    tune_document d;
    d.title = text(member(root, "title"));
    d.workload = text(member(root, "workload"));
    d.objective = read_objective(member(root, "objective"));
    for (const auto& s : elements(member(root, "slos"))) d.slos.push_back(read_slo(s));
    d.confidence = number(member(root, "confidence"));
    for (const auto& dim : elements(member(root, "space"))) d.space.push_back(read_dimension(dim));
    if (d.space.empty()) malformed("space", "expected at least one dimension");
    d.grid_size = count(member(root, "grid_size"));
    if (const auto start = optional_member(root, "start"))
        d.start = named_configuration{text(member(*start, "name")), configuration_object(member(*start, "configuration"))};
    const auto budget = member(root, "budget");
    d.budget_seconds = number_or_null(member(budget, "seconds"));
    d.used_seconds = number(member(budget, "used_seconds"));
    d.runs = count(member(budget, "runs"));
    d.measured = count(member(budget, "configurations"));
    d.end = one_of(member(root, "end"), {"settled", "budget", "nothing_feasible", "searching"});
    d.conclusion = text(member(root, "conclusion"));
    d.best = read_recommendation(root);
    const auto configurations = elements(member(root, "configurations"));
    for (std::size_t i = 0; i < configurations.size(); ++i)
        d.configurations.push_back(read_configuration(configurations[i], d.space, d.slos.size(), i));
    d.costs = read_prompt_costs(root);
    for (const auto& f : elements(member(root, "decisions")))
        d.decisions.push_back({number(member(f, "order")), text(member(f, "name")), text(member(f, "step")),
                               text(member(f, "reason"))});
    return d;
}

// ---- words and numbers ---------------------------------------------------------------------------

// Three significant digits, no exponent: 38, 12.5, 0.0123, 4310.
inline std::string number_text(double v) { return plot::detail::significant(v); }

inline std::string interval_text(const interval& ci) { return number_text(ci.low) + "–" + number_text(ci.high); }

inline std::string value_with_interval(const std::optional<double>& v, const std::optional<interval>& ci) {
    if (!v) return missing_value;
    return ci ? fmt::format("{} ({})", number_text(*v), interval_text(*ci)) : number_text(*v);
}

// "max_num_batched_tokens=1024, max_num_seqs=64": how prose names a configuration.
inline std::string settings_text(const tune_json& settings) {
    std::string out;
    for (const auto& [key, value] : settings.items()) out.append(out.empty() ? "" : ", ").append(key + "=" + value_text(value));
    return out;
}

// "1024, 64": a configuration in a chart legend, the dimensions named once in the chart's note.
inline std::string settings_values(const tune_json& settings) {
    std::string out;
    for (const auto& [key, value] : settings.items()) out.append(out.empty() ? "" : ", ").append(value_text(value));
    return out;
}

inline const configuration* find_configuration(const tune_document& d, const std::string& name) {
    for (const auto& c : d.configurations)
        if (c.name == name) return &c;
    return nullptr;
}

// A configuration named in tune.json by its hyphenated name, written as its settings where known.
inline std::string name_as_settings(const tune_document& d, const std::string& name) {
    if (const auto* c = find_configuration(d, name)) return settings_text(c->settings);
    if (d.best && d.best->name == name) return settings_text(d.best->settings);
    if (d.start && d.start->name == name) return settings_text(d.start->configuration);
    return name;
}

inline std::string confidence_text(double confidence) { return fmt::format("{}%", number_text(100 * confidence)); }

// 45 s, 12 min, 1 h 12 min, 2 h.
inline std::string duration_text(double seconds) {
    if (seconds < 59.5) return fmt::format("{} s", std::llround(seconds));
    const long long minutes = std::llround(seconds / 60);
    if (minutes < 60) return fmt::format("{} min", minutes);
    return minutes % 60 == 0 ? fmt::format("{} h", minutes / 60) : fmt::format("{} h {} min", minutes / 60, minutes % 60);
}

inline std::string plural(std::size_t n, std::string_view one, std::string_view many) {
    return fmt::format("{} {}", n, n == 1 ? one : many);
}

inline std::string capitalised(std::string s) {
    if (!s.empty() && s[0] >= 'a' && s[0] <= 'z') s[0] = static_cast<char>(s[0] - 'a' + 'A');
    return s;
}

inline std::string with_full_stop(std::string s) {
    if (!s.empty() && s.back() != '.') s += '.';
    return s;
}

inline bool provisional(const tune_document& d) { return d.end == "budget" || d.end == "searching"; }

// ---- the recommendation paragraphs: runs of plain and bold text ---------------------------------

struct paragraph {
    std::vector<std::pair<std::string, bool>> parts; // text, bold

    paragraph& plain(std::string t) { return parts.emplace_back(std::move(t), false), *this; }
    paragraph& bold(std::string t) { return parts.emplace_back(std::move(t), true), *this; }
    std::string text() const {
        std::string out;
        for (const auto& [t, b] : parts) out += t;
        return out;
    }
    json to_json() const {
        json list = json::array();
        for (const auto& [t, b] : parts) list.push_back({{"text", t}, {"bold", b}});
        return {{"parts", std::move(list)}, {"text", text()}};
    }
};

inline std::string slo_word(const tune_document& d) { return d.slos.size() == 1 ? "the SLO" : "every SLO"; }

// In plain words, not the planner's sentence (whose configuration names are file-name parts): how
// far the search got and what is still open. The planner's sentence is under "How the search went".
inline paragraph provisional_note(const tune_document& d) {
    paragraph p;
    p.bold(d.end == "budget" ? "Provisional: the budget ran out before the search settled."
                             : "Provisional: the search was interrupted before it ended (--resume goes on).");
    const auto kept = static_cast<std::size_t>(std::count_if(d.configurations.begin(), d.configurations.end(),
                                                             [](const auto& c) { return c.status == "kept"; }));
    std::string open = fmt::format(" {} of {} measured", d.measured, plural(d.grid_size, "configuration was", "configurations were"));
    if (d.best && kept > 0)
        open += fmt::format(", and the best is not yet told apart from {}", plural(kept, "other", "others"));
    return p.plain(open + ".");
}

// "the server exited with status 1 before it was ready (3 configurations); out of memory (1 configuration)"
inline std::string infeasible_reasons(const tune_document& d) {
    std::vector<std::pair<std::string, std::size_t>> reasons;
    for (const auto& c : d.configurations) {
        if (c.status != "infeasible") continue;
        std::string why = c.reason;
        if (why.starts_with("infeasible: ")) why.erase(0, 12);
        const auto known = std::find_if(reasons.begin(), reasons.end(), [&](const auto& r) { return r.first == why; });
        if (known == reasons.end()) reasons.emplace_back(why, 1);
        else ++known->second;
    }
    std::string out;
    for (const auto& [why, n] : reasons)
        out.append(out.empty() ? "" : "; ").append(fmt::format("{} ({})", why, plural(n, "configuration", "configurations")));
    return out;
}

inline paragraph nothing_met(const tune_document& d) {
    paragraph p;
    p.bold(provisional(d) ? "No configuration has met the SLO yet." : "No configuration met the SLO.");
    const std::size_t measured = d.configurations.size();
    const std::string reasons = infeasible_reasons(d);
    if (!reasons.empty())
        p.plain(fmt::format(" {} measured {}: {}.", measured == 1 ? "The one configuration" : fmt::format("All {} configurations", measured),
                            measured == 1 ? "was infeasible" : "were infeasible", reasons));
    if (d.end == "nothing_feasible")
        p.plain(" The search walks only from a feasible configuration, so the space needs changing, not the search: "
                "the server logs below say why each one failed. The planner's conclusion: " +
                with_full_stop(d.conclusion));
    return p;
}

// "It serves 38 concurrent streams within the SLO (95% CI 34–41)" or "Its throughput is 812 tokens/s (95% CI …)".
inline void value_clause(paragraph& p, const tune_document& d, const recommendation& r) {
    const std::string value = number_text(r.value) + (d.objective.unit.empty() ? "" : " " + d.objective.unit);
    const std::string ci = fmt::format(" ({} CI {})", confidence_text(d.confidence), interval_text(r.ci));
    if (d.objective.is_capacity() && r.at_least)
        p.plain("It serves ")
            .bold("at least " + number_text(*r.at_least) + (d.objective.unit.empty() ? "" : " " + d.objective.unit))
            .plain(" within " + slo_word(d) + ": every load up to the highest tried (--load-max " +
                   number_text(*r.at_least) + ") met it" +
                   (r.runs == 1 ? std::string() : " in each of its " + std::to_string(r.runs) + " runs") +
                   ", so this is a floor (a higher --load-max measures how far it goes)");
    else if (d.objective.is_capacity()) p.plain("It serves ").bold(value).plain(" within " + slo_word(d) + ci);
    else p.plain("Its " + d.objective.label + " is ").bold(value).plain(ci);
}

inline bool start_is_recommended(const tune_document& d) { return d.start && d.best && d.start->name == d.best->name; }

// ", 3.0× the starting settings (…: 12.5, CI 11–14; the intervals do not overlap)."
inline std::string gain_clause(const tune_document& d, const start_comparison& s) {
    const std::string where = fmt::format("{}: {}, CI {}", settings_text(d.start->configuration), number_text(s.value),
                                          interval_text(s.ci));
    std::string how_much;
    if (!s.ratio) how_much = "against the starting settings'";
    else if (!d.objective.lower_is_better) how_much = format_ratio(*s.ratio) + " the starting settings";
    else if (*s.ratio <= 1) how_much = fmt::format("{:.0f}% below the starting settings", 100 * (1 - *s.ratio));
    else how_much = fmt::format("{:.0f}% above the starting settings", 100 * (*s.ratio - 1));
    if (!s.ratio) return fmt::format(", against the starting settings' {} ({}, CI {}{})", number_text(s.value),
                                     settings_text(d.start->configuration), interval_text(s.ci),
                                     s.distinguishable ? "; the intervals do not overlap" : "");
    if (s.distinguishable) return fmt::format(", {} ({}; the intervals do not overlap)", how_much, where);
    return fmt::format(", {} ({}), but the intervals overlap, so the gain is not distinguishable from no gain", how_much, where);
}

inline std::string start_sentence(const tune_document& d, const recommendation& r) {
    if (!d.start) return {};
    if (start_is_recommended(d)) return " The starting settings are already the best.";
    if (!r.start) {
        const auto* start = find_configuration(d, d.start->name);
        if (start && start->status == "infeasible")
            return fmt::format(" The starting settings ({}) could not be measured: {}.", settings_text(d.start->configuration),
                               start->reason);
    }
    return {};
}

inline std::string runner_up_sentence(const tune_document& d, const runner_up& second) {
    const std::string settings = second.settings ? settings_text(*second.settings) : name_as_settings(d, second.name);
    if (second.at_least && d.best && d.best->at_least) {
        const auto floors = static_cast<std::size_t>(std::count_if(
            d.configurations.begin(), d.configurations.end(), [](const configuration& c) { return c.at_least.has_value(); }));
        const std::string others = floors > 2 ? fmt::format(", as did {}", plural(floors - 2, "other", "others")) : "";
        return fmt::format(" The runner-up, {}, also met it at every load up to {}{}: none of them is told apart until "
                           "a higher --load-max finds where each stops (of a tie, the first in the space's order "
                           "leads).",
                           settings, number_text(*second.at_least), others);
    }
    const std::string which = fmt::format("The runner-up, {} ({}, CI {}),", settings, number_text(second.value),
                                          interval_text(second.ci));
    return second.distinguishable
               ? " " + which + " is told apart from it, as is every other configuration measured."
               : " " + which + " is not distinguishable from it: either serves as well as can be measured.";
}

inline paragraph recommendation_paragraph(const tune_document& d, const recommendation& r) {
    paragraph p;
    p.bold(fmt::format("{} {}.", provisional(d) ? "Best so far:" : "Deploy", settings_text(r.settings))).plain(" ");
    value_clause(p, d, r);
    const bool compared = d.start && r.start && !start_is_recommended(d);
    std::string gain = compared ? gain_clause(d, *r.start) : std::string();
    if (r.at_least && gain.starts_with(", ") && r.start && r.start->ratio) gain.insert(2, "at least ");
    p.plain(gain + ".");
    if (const auto s = start_sentence(d, r); !s.empty()) p.plain(s);
    if (r.second) p.plain(runner_up_sentence(d, *r.second));
    return p;
}

inline std::vector<paragraph> answer_paragraphs(const tune_document& d) {
    std::vector<paragraph> out;
    if (provisional(d)) out.push_back(provisional_note(d));
    out.push_back(d.best ? recommendation_paragraph(d, *d.best) : nothing_met(d));
    return out;
}

inline std::string slo_line(const tune_document& d) {
    std::string slos;
    for (const auto& s : d.slos) slos.append(slos.empty() ? "" : "; ").append(s.text);
    const std::string direction = d.objective.lower_is_better ? "lower is better" : "higher is better";
    return fmt::format("Workload {}. {} {}. Objective: {}, {} ({}).", d.workload, d.slos.size() == 1 ? "SLO:" : "SLOs:",
                       slos.empty() ? "none" : slos, d.objective.label, d.objective.description, direction);
}

inline std::string search_line(const tune_document& d) {
    const std::string extent = fmt::format("measuring {} of {}", d.measured, plural(d.grid_size, "configuration", "configurations"));
    const std::string cost = d.budget_seconds ? fmt::format("{}, {} of the {} budget", plural(d.runs, "run", "runs"),
                                                            duration_text(d.used_seconds), duration_text(*d.budget_seconds))
                                              : fmt::format("{}, {}", plural(d.runs, "run", "runs"), duration_text(d.used_seconds));
    if (d.end == "settled") return fmt::format("Settled after {} ({}).", extent, cost);
    if (d.end == "budget") return fmt::format("Stopped by the budget after {} ({}), before the search settled.", extent, cost);
    if (d.end == "searching") return fmt::format("Interrupted after {} ({}), before the search ended.", extent, cost);
    return fmt::format("Stopped after {} ({}): none was feasible.", extent, cost);
}

// ---- what short and long prompts pay ---------------------------------------------------------------

inline std::string seconds_cell(const std::optional<latency_pair>& p, std::optional<double> latency_pair::*member) {
    return p ? format_seconds((*p).*member) : std::string(missing_value);
}

inline std::string n_cell(const std::optional<latency_pair>& p) {
    return p && p->n ? fmt::format("{:.0f}", *p->n) : std::string(missing_value);
}

inline const prompt_cost_row* cost_row(const prompt_costs& c, std::string_view role) {
    for (const auto& r : c.rows)
        if (r.role == role) return &r;
    return nullptr;
}

// "Long prompts' TTFT p95 rises from 900 ms to 1.90 s (+111%) with the recommendation, against the
// starting settings": the larger relative change of the two long-prompt latencies.
inline std::string long_prompt_sentence(const prompt_costs& c) {
    const auto* rec = cost_row(c, "recommended");
    const auto* start = cost_row(c, "start");
    if (!rec || !start || !rec->long_prompts || !start->long_prompts) return {};
    struct candidate {
        const char* name;
        std::optional<double> before, after;
    };
    const candidate candidates[] = {{"TTFT p95", start->long_prompts->ttft_p95, rec->long_prompts->ttft_p95},
                                    {"end-to-end p95", start->long_prompts->e2e_p95, rec->long_prompts->e2e_p95}};
    const candidate* biggest = nullptr;
    double biggest_change = 0;
    for (const auto& k : candidates) {
        if (!k.before || !k.after || *k.before <= 0) continue;
        const double change = *k.after / *k.before - 1;
        if (!biggest || std::abs(change) > std::abs(biggest_change)) biggest = &k, biggest_change = change;
    }
    if (!biggest) return {};
    const char* verb = biggest_change > 0 ? "rises" : biggest_change < 0 ? "falls" : "stays";
    return fmt::format("Long prompts' {} {} from {} with the starting settings to {} with the recommendation ({:+.0f}%).",
                       biggest->name, verb, format_seconds(*biggest->before), format_seconds(*biggest->after),
                       100 * biggest_change);
}

// "At c=64, the highest load it met the SLO at, the recommendation gives short prompts a TTFT p95 of
// 7.5 ms and long prompts 70 ms (end-to-end 120 ms)": where it would run, not only where the start can.
inline std::string capacity_sentence(const prompt_costs& c) {
    if (!c.capacity_load || !c.capacity_long) return {};
    const auto& l = *c.capacity_long;
    std::string shorts;
    if (c.capacity_short && c.capacity_short->ttft_p95)
        shorts = fmt::format("short prompts a TTFT p95 of {} and ", format_seconds(c.capacity_short->ttft_p95));
    return fmt::format("At c={}, the highest load it met the SLOs at, the recommendation gives {}long prompts a TTFT "
                       "p95 of {} (end-to-end p95 {}).",
                       number_text(*c.capacity_load), shorts, format_seconds(l.ttft_p95), format_seconds(l.e2e_p95));
}

inline json prompt_costs_view(const tune_document& d) {
    if (!d.costs || d.costs->rows.empty()) return nullptr;
    json rows = json::array();
    for (const auto& r : d.costs->rows)
        rows.push_back({{"role", r.role},
                        {"configuration", name_as_settings(d, r.name)},
                        {"short_n", n_cell(r.short_prompts)},
                        {"short_ttft", seconds_cell(r.short_prompts, &latency_pair::ttft_p95)},
                        {"short_e2e", seconds_cell(r.short_prompts, &latency_pair::e2e_p95)},
                        {"long_n", n_cell(r.long_prompts)},
                        {"long_ttft", seconds_cell(r.long_prompts, &latency_pair::ttft_p95)},
                        {"long_e2e", seconds_cell(r.long_prompts, &latency_pair::e2e_p95)}});
    std::string sentence = long_prompt_sentence(*d.costs);
    if (const auto top = capacity_sentence(*d.costs); !top.empty()) sentence += (sentence.empty() ? "" : " ") + top;
    return {{"note", capitalised(with_full_stop(d.costs->note))},
            {"has_sentence", !sentence.empty()},
            {"sentence", sentence},
            {"rows", std::move(rows)}};
}

// ---- the objective over the space ----------------------------------------------------------------

// The two dimensions a table and heatmap show, and the values the others are held at.
struct space_slice {
    std::size_t row_dim = 0, column_dim = 0;
    bool two_d = false;
    std::vector<std::size_t> fixed_at; // index per dimension; used for the dimensions past the first two
    std::string caption;               // what is held fixed, when something is
};

inline space_slice slice_of(const tune_document& d) {
    space_slice s;
    s.two_d = d.space.size() >= 2;
    s.column_dim = s.two_d ? 1 : 0;
    s.fixed_at.assign(d.space.size(), 0);
    if (d.space.size() <= 2) return s;
    // The recommendation's values, else the start's, else the first configuration measured's.
    const configuration* anchor = d.best ? find_configuration(d, d.best->name) : nullptr;
    if (!anchor && d.start) anchor = find_configuration(d, d.start->name);
    if (!anchor && !d.configurations.empty()) anchor = &d.configurations.front();
    if (anchor) s.fixed_at = anchor->point;
    std::string held;
    for (std::size_t k = 2; k < d.space.size(); ++k)
        held.append(held.empty() ? "" : ", ").append(d.space[k].name + "=" + d.space[k].values[s.fixed_at[k]]);
    s.caption = fmt::format("Only the configurations with {} are shown ({} values){}.", held,
                            d.best ? "the recommendation's" : "one configuration's",
                            ": the space has more dimensions than a table can show");
    return s;
}

inline bool in_slice(const space_slice& s, const configuration& c) {
    for (std::size_t k = 2; k < c.point.size(); ++k)
        if (c.point[k] != s.fixed_at[k]) return false;
    return true;
}

inline const configuration* configuration_at(const tune_document& d, const space_slice& s, std::size_t row,
                                             std::size_t column) {
    for (const auto& c : d.configurations)
        if (in_slice(s, c) && c.point[s.row_dim] == row && (!s.two_d || c.point[s.column_dim] == column)) return &c;
    return nullptr;
}

inline bool has_value(const configuration& c) { return c.status != "infeasible" && c.value.has_value(); }

inline std::string space_title(const tune_document& d, const space_slice& s) {
    const std::string what = d.objective.label + (d.objective.unit.empty() ? "" : " (" + d.objective.unit + ")");
    return s.two_d ? fmt::format("{} by {} × {}", capitalised(what), d.space[s.row_dim].name, d.space[s.column_dim].name)
                   : fmt::format("{} by {}", capitalised(what), d.space[0].name);
}

inline std::string space_heatmap(const tune_document& d, const space_slice& s) {
    const auto& rows = d.space[s.row_dim];
    const auto& columns = d.space[s.column_dim];
    // The unit goes into the heading, which wraps, not after each number of the legend, which is cut.
    plot::heat_table t{rows.values, columns.values, {}, "",
                       d.objective.label + (d.objective.unit.empty() ? "" : " (" + d.objective.unit + ")")};
    plot::heatmap_options o;
    o.lower_is_better = d.objective.lower_is_better;
    o.highlight_label = "recommended";
    for (std::size_t r = 0; r < rows.values.size(); ++r) {
        auto& line = t.values.emplace_back();
        for (std::size_t k = 0; k < columns.values.size(); ++k) {
            const auto* c = configuration_at(d, s, r, k);
            line.push_back(c && has_value(*c) ? c->value : std::nullopt);
            if (c && c->status == "infeasible") o.crossed.push_back({r, k});
            if (c && d.best && c->name == d.best->name) o.highlighted.push_back({r, k});
        }
    }
    const std::string title = space_title(d, s);
    return plot::heatmap_chart(t, {title, columns.name, rows.name}, o);
}

// One dimension: the objective against its values, the interval shaded, untried values absent.
inline std::string space_line(const tune_document& d) {
    const auto& dim = d.space[0];
    const bool numeric = std::all_of(dim.numbers.begin(), dim.numbers.end(), [](const auto& n) { return n.has_value(); });
    plot::named_points series{d.objective.label, {}, {}};
    plot::band shade{0, {}, {}, {}, fmt::format("shaded: {} CI", confidence_text(d.confidence)), {}};
    plot::line_options o;
    std::string infeasible;
    for (std::size_t i = 0; i < dim.values.size(); ++i) {
        const double x = numeric ? *dim.numbers[i] : static_cast<double>(i + 1);
        if (!numeric) o.x_names.push_back({x, dim.values[i]});
        const auto* c = configuration_at(d, {}, i, 0);
        if (c && c->status == "infeasible") infeasible.append(infeasible.empty() ? "" : ", ").append(dim.values[i]);
        if (!c || !has_value(*c)) continue;
        series.x.push_back(x);
        series.y.push_back(*c->value);
        shade.x.push_back(x);
        shade.low.push_back(c->ci ? c->ci->low : *c->value);
        shade.high.push_back(c->ci ? c->ci->high : *c->value);
        if (d.best && c->name == d.best->name) o.marks.push_back({x, *c->value, "recommended"});
    }
    o.bands.push_back(std::move(shade));
    o.log_x = numeric && !series.x.empty() && *std::min_element(series.x.begin(), series.x.end()) > 0 &&
              *std::max_element(series.x.begin(), series.x.end()) >= 4 * *std::min_element(series.x.begin(), series.x.end());
    if (!infeasible.empty()) o.caption = "infeasible (no point): " + infeasible;
    const std::string y_label = d.objective.label + (d.objective.unit.empty() ? "" : " (" + d.objective.unit + ")");
    const std::vector<plot::named_points> all{std::move(series)};
    return plot::line_chart(all, {space_title(d, {}), dim.name, y_label, plot::axis_unit::from_label, plot::axis_unit::plain}, o);
}

// "32.5 (30.1–34.9)", or "≥ 32" for a capacity that met the SLOs at every load tried: a floor has no
// interval to claim.
inline std::string configuration_value(const configuration& c) {
    return c.at_least ? "≥ " + number_text(*c.at_least) : value_with_interval(c.value, c.ci);
}

inline json cell_view(const tune_document& d, const configuration* c) {
    const bool recommended = c && d.best && c->name == d.best->name;
    std::string t;
    if (c && c->status == "infeasible") t = "✗ infeasible";
    else if (c) t = configuration_value(*c);
    return {{"text", t}, {"bold", recommended}, {"blank", t.empty()}};
}

// The heatmap's numbers as a table: first dimension down, second across, both ascending as given;
// an untried configuration's cell is empty.
inline json space_table(const tune_document& d, const space_slice& s) {
    const auto& rows = d.space[s.row_dim];
    json header = json::array({{{"text", s.two_d ? rows.name + " \\ " + d.space[s.column_dim].name : rows.name}}});
    if (s.two_d)
        for (const auto& v : d.space[s.column_dim].values) header.push_back({{"text", v}});
    else
        header.push_back({{"text", d.objective.label + " (CI)"}});
    json body = json::array();
    const std::size_t columns = s.two_d ? d.space[s.column_dim].values.size() : 1;
    for (std::size_t r = 0; r < rows.values.size(); ++r) {
        json cells = json::array();
        for (std::size_t k = 0; k < columns; ++k) cells.push_back(cell_view(d, configuration_at(d, s, r, k)));
        body.push_back({{"name", rows.values[r]}, {"cells", std::move(cells)}});
    }
    return {{"header", std::move(header)}, {"rows", std::move(body)}};
}

// ---- the leaders' curves -----------------------------------------------------------------------------

struct leader {
    std::string role;
    const configuration* c;
};

// The recommendation, the runner-up and the start, each once, in that order.
inline std::vector<leader> leaders(const tune_document& d) {
    std::vector<leader> out;
    const auto add = [&](const std::string& role, const std::string& name) {
        const auto* c = find_configuration(d, name);
        if (!c) return;
        for (auto& l : out)
            if (l.c == c) return void(l.role += " = " + role);
        out.push_back({role, c});
    };
    if (d.best) add("recommended", d.best->name);
    if (d.best && d.best->second) add("runner-up", d.best->second->name);
    if (d.start) add("start", d.start->name);
    return out;
}

inline bool measured(const measurement& m) { return m.infeasible.empty() && !m.levels.empty(); }

struct curve {
    std::string name;
    const configuration* c;
    const measurement* m;
    std::size_t runs; // the configuration's successful measurements, of which the curve shows the first
};

// One series per leader, from its first successful measurement: "recommended (1024, 64)". Further
// runs of a leader would take colours of their own and read as other configurations.
inline std::vector<curve> curves(const std::vector<leader>& ls) {
    std::vector<curve> out;
    for (const auto& l : ls) {
        const auto ok = std::count_if(l.c->measurements.begin(), l.c->measurements.end(), measured);
        const auto first = std::find_if(l.c->measurements.begin(), l.c->measurements.end(), measured);
        if (first != l.c->measurements.end())
            out.push_back({fmt::format("{} ({})", l.role, settings_values(l.c->settings)), l.c, &*first,
                           static_cast<std::size_t>(ok)});
    }
    return out;
}

inline std::vector<const level*> by_load(const measurement& m) {
    std::vector<const level*> out;
    for (const auto& l : m.levels) out.push_back(&l);
    std::stable_sort(out.begin(), out.end(), [](const level* a, const level* b) { return a->load < b->load; });
    return out;
}

inline std::string metric_name(const std::string& metric) {
    if (metric == "ttft") return "TTFT";
    if (metric == "tpot") return "TPOT";
    if (metric == "itl") return "ITL";
    return metric;
}

inline std::string subset_owner(const std::string& subset) {
    return subset == "all" ? "all requests'" : subset + " prompts'";
}

inline bool log_loads(const std::vector<plot::named_points>& series) {
    double lo = 0, hi = 0;
    bool any = false;
    for (const auto& s : series)
        for (double x : s.x) lo = any ? std::min(lo, x) : x, hi = any ? std::max(hi, x) : x, any = true;
    return any && lo > 0 && hi >= 4 * lo;
}

inline std::string legend_note(const tune_document& d) {
    std::string names;
    for (const auto& dim : d.space) names.append(names.empty() ? "" : ", ").append(dim.name);
    return "configurations as (" + names + ")";
}

inline constexpr const char* load_label = "concurrency (streams)";

inline plot_file slo_chart(const tune_document& d, const std::vector<curve>& cs, std::size_t k) {
    const auto& slo = d.slos[k];
    std::vector<plot::named_points> series;
    plot::line_options o;
    for (std::size_t i = 0; i < cs.size(); ++i) {
        plot::named_points s{cs[i].name, {}, {}};
        plot::band b{i, {}, {}, {}, fmt::format("shaded: {} CI", confidence_text(d.confidence)), {}};
        for (const auto* l : by_load(*cs[i].m)) {
            const auto& v = l->slos[k];
            if (!v.value) continue;
            s.x.push_back(l->load);
            s.y.push_back(*v.value);
            b.x.push_back(l->load);
            b.low.push_back(v.ci ? v.ci->low : std::numeric_limits<double>::quiet_NaN());
            b.high.push_back(v.ci ? v.ci->high : std::numeric_limits<double>::quiet_NaN());
        }
        series.push_back(std::move(s));
        o.bands.push_back(std::move(b));
    }
    o.references.push_back({slo.max_seconds, slo.text});
    o.log_x = log_loads(series);
    o.caption = legend_note(d);
    const std::string what = fmt::format("{} {} p{}", subset_owner(slo.subset), metric_name(slo.metric), number_text(slo.percentile));
    const std::string title = capitalised(what) + " against load: recommended, runner-up and start";
    return {fmt::format("tune-slo-{}.svg", k + 1), title, plot::line_chart(series, {title, load_label, what + " (s)"}, o)};
}

inline plot_file throughput_chart(const tune_document& d, const std::vector<curve>& cs) {
    std::vector<plot::named_points> series;
    for (const auto& c : cs) {
        plot::named_points s{c.name, {}, {}};
        for (const auto* l : by_load(*c.m))
            if (l->output_tps) s.x.push_back(l->load), s.y.push_back(*l->output_tps);
        series.push_back(std::move(s));
    }
    plot::line_options o;
    o.log_x = log_loads(series);
    o.caption = legend_note(d);
    const std::string title = "Output throughput against load: recommended, runner-up and start";
    return {"tune-output-tps.svg", title,
            plot::line_chart(series, {title, load_label, "output throughput (tokens/s)"}, o)};
}

// "Recommended: max_num_batched_tokens=1024, max_num_seqs=64 (the first of 2 runs); …".
inline std::string leaders_caption(const std::vector<leader>& ls, const std::vector<curve>& cs) {
    std::string out;
    for (const auto& l : ls) {
        std::string runs;
        for (const auto& c : cs)
            if (c.c == l.c && c.runs > 1)
                runs = fmt::format(" (the first of its {} runs)", c.runs);
        out.append(out.empty() ? "" : "; ").append(l.role + ": " + settings_text(l.c->settings) + runs);
    }
    return out.empty() ? out : capitalised(out) + ".";
}

// ---- every configuration measured --------------------------------------------------------------------

inline int status_rank(const std::string& status) {
    if (status == "best") return 0;
    if (status == "kept") return 1;
    if (status == "dropped") return 2;
    return 3;
}

// Best first, then kept, dropped, infeasible; within a status the better value first, then tune.json's order.
inline std::vector<const configuration*> ranked(const tune_document& d) {
    std::vector<const configuration*> out;
    for (const auto& c : d.configurations) out.push_back(&c);
    const bool lower = d.objective.lower_is_better;
    std::stable_sort(out.begin(), out.end(), [lower](const configuration* a, const configuration* b) {
        if (status_rank(a->status) != status_rank(b->status)) return status_rank(a->status) < status_rank(b->status);
        if (a->value.has_value() != b->value.has_value()) return a->value.has_value();
        if (a->value && *a->value != *b->value) return lower ? *a->value < *b->value : *a->value > *b->value;
        return false;
    });
    return out;
}

inline constexpr std::size_t most_log_lines = 50;

// The last most_log_lines lines, controls made visible.
inline std::string log_tail(const std::string& tail) {
    std::size_t at = tail.size(), lines = 0;
    while (at > 0 && lines < most_log_lines) {
        const auto newline = tail.rfind('\n', at - 1);
        if (newline == std::string::npos) {
            at = 0;
            break;
        }
        if (newline + 1 < tail.size()) ++lines;
        at = lines < most_log_lines ? newline : newline + 1;
    }
    std::string kept = tail.substr(at);
    while (!kept.empty() && kept.front() == '\n') kept.erase(0, 1);
    while (!kept.empty() && kept.back() == '\n') kept.pop_back();
    return visible_controls(kept);
}

// A Markdown fence longer than any run of backticks in the text, so no log line can close it.
inline std::string fence_for(const std::string& text) {
    std::size_t longest = 0, run = 0;
    for (char ch : text) {
        run = ch == '`' ? run + 1 : 0;
        longest = std::max(longest, run);
    }
    return std::string(std::max<std::size_t>(3, longest + 1), '`');
}

// The failed measurements' server log tails, each with the configuration it belongs to.
inline json logs_view(const configuration& c) {
    json out = json::array();
    for (const auto& m : c.measurements) {
        if (m.infeasible.empty() || !m.server_log_tail) continue;
        const std::string tail = log_tail(*m.server_log_tail);
        out.push_back({{"configuration", settings_text(c.settings)},
                       {"file", m.server_log},
                       {"why", m.infeasible},
                       {"tail", tail},
                       {"fence", fence_for(tail)}});
    }
    return out;
}

inline json infeasible_logs_view(const tune_document& d) {
    json out = json::array();
    for (const auto* c : ranked(d))
        for (auto& log : logs_view(*c)) out.push_back(std::move(log));
    return out;
}

inline json configurations_view(const tune_document& d) {
    json out = json::array();
    for (const auto* c : ranked(d)) {
        json logs = logs_view(*c);
        out.push_back({{"configuration", settings_text(c->settings)},
                       {"start", c->start},
                       {"status", c->status},
                       {"runs", std::to_string(c->runs)},
                       {"value", configuration_value(*c)},
                       {"reason", c->reason},
                       {"has_logs", !logs.empty()},
                       {"logs", std::move(logs)}});
    }
    return out;
}

inline json decisions_view(const tune_document& d) {
    std::vector<const decision*> order;
    for (const auto& x : d.decisions) order.push_back(&x);
    std::stable_sort(order.begin(), order.end(), [](const decision* a, const decision* b) { return a->order < b->order; });
    json out = json::array();
    for (const auto* x : order)
        out.push_back({{"order", number_text(x->order)},
                       {"configuration", name_as_settings(d, x->name)},
                       {"step", x->step},
                       {"reason", x->reason}});
    return out;
}

// ---- how to read this -----------------------------------------------------------------------------------

inline json method_notes(const tune_document& d) {
    const std::string ci = confidence_text(d.confidence);
    json notes = json::array();
    notes.push_back({{"heading", "The objective"},
                     {"text", fmt::format("{}, {} ({}).", d.objective.label, d.objective.description,
                                          d.objective.lower_is_better ? "lower is better" : "higher is better")}});
    if (d.objective.is_capacity())
        notes.push_back({{"heading", "Its interval"},
                         {"text", fmt::format("a measurement's {} CI of capacity is where the SLO percentile's confidence "
                                              "band crosses the threshold, from the load at which the band's upper end "
                                              "crosses it to the load at which its lower end does.", ci)}});
    else
        notes.push_back({{"heading", "Its interval"},
                         {"text", fmt::format("each measurement gives the {} with its {} CI.", d.objective.label, ci)}});
    notes.push_back({{"heading", "Runs combined"},
                     {"text", "a configuration measured more than once is one estimate: the mean of its runs, with an "
                              "interval no narrower than the runs' own error or their disagreement (Student's t from "
                              "three runs). A configuration that failed once is infeasible, whatever its other runs gave."}});
    notes.push_back({{"heading", "Statuses"},
                     {"text", "best: the best estimate; kept: its interval overlaps the best's, so it may still be the "
                              "best; dropped: its interval lies wholly on the worse side of the best's; infeasible: it "
                              "could not be measured (the server crashed, ran out of memory or was not ready in time)."}});
    notes.push_back({{"heading", "Not distinguishable"},
                     {"text", "two configurations whose intervals overlap (touching counts) are not told apart: more "
                              "runs might part them, or they serve equally well."}});
    notes.push_back({{"heading", "The search"},
                     {"text", "a spread over the space, a walk from the best to better neighbours, then more runs of "
                              "the leaders until their intervals part or the budget is spent; docs/tune.md in "
                              "servestat's sources describes each step."}});
    return notes;
}

// ---- the view -------------------------------------------------------------------------------------------

inline json paragraphs_view(const std::vector<paragraph>& ps) {
    json out = json::array();
    for (const auto& p : ps) out.push_back(p.to_json());
    return out;
}

inline json plot_entry(const plot_file& p, const std::string& caption) {
    return {{"title", p.title}, {"file", "plots/" + p.name}, {"svg", p.svg}, {"caption", caption}};
}

struct tune_view {
    json view;
    std::vector<plot_file> plots;
};

inline tune_view build_view(const tune_document& d) {
    tune_view out;
    json& v = out.view;
    const auto answer = answer_paragraphs(d);
    v["title"] = d.title;
    v["answer"] = paragraphs_view(answer);
    v["recommendation_text"] = answer.back().text();
    v["slo_line"] = slo_line(d);
    v["search_line"] = search_line(d);

    const json costs = prompt_costs_view(d);
    v["has_prompt_costs"] = !costs.is_null();
    v["prompt_costs"] = costs;

    const space_slice slice = slice_of(d);
    const bool any_value = std::any_of(d.configurations.begin(), d.configurations.end(), has_value);
    json space_plots = json::array();
    if (any_value) {
        const std::string title = space_title(d, slice);
        plot_file p{"tune-objective.svg", title, slice.two_d ? space_heatmap(d, slice) : space_line(d)};
        space_plots.push_back(plot_entry(p, slice.caption));
        out.plots.push_back(std::move(p));
    }
    v["has_space_plot"] = !space_plots.empty();
    v["space_plots"] = std::move(space_plots);
    v["space_table"] = space_table(d, slice);
    v["space_note"] = slice.caption;
    v["has_space_note"] = !slice.caption.empty();
    v["objective_label"] = d.objective.label;

    const auto ls = leaders(d);
    const auto cs = curves(ls);
    json curve_plots = json::array();
    if (!cs.empty()) {
        const std::string caption = leaders_caption(ls, cs);
        for (std::size_t k = 0; k < d.slos.size(); ++k) out.plots.push_back(slo_chart(d, cs, k));
        out.plots.push_back(throughput_chart(d, cs));
        for (std::size_t i = out.plots.size() - d.slos.size() - 1; i < out.plots.size(); ++i)
            curve_plots.push_back(plot_entry(out.plots[i], caption));
    }
    v["has_curves"] = !curve_plots.empty();
    v["curve_plots"] = std::move(curve_plots);
    v["leaders_caption"] = leaders_caption(ls, cs);

    v["configurations"] = configurations_view(d);
    const json logs = infeasible_logs_view(d);
    v["has_infeasible_logs"] = !logs.empty();
    v["infeasible_logs"] = logs;
    v["measured_count"] = std::to_string(d.configurations.size());
    const json decisions = decisions_view(d);
    v["has_decisions"] = !decisions.empty();
    v["decision_count"] = std::to_string(decisions.size());
    v["decisions"] = decisions;
    v["notes"] = method_notes(d);
    v["confidence"] = confidence_text(d.confidence);
    return out;
}

inline std::string render_template(const char* name, const json& view) {
    const auto* t = find_builtin_template(name);
    if (t == nullptr) throw usage_error(fmt::format("the built-in template {} is missing", name));
    return render(t->text, view, std::string_view(name).ends_with(".html") ? markup::html : markup::markdown, name);
}

} // namespace detail::tune_report

// The view model tune.md and tune.html render (a custom template may use any of it). Throws
// input_error naming the field ("tune.json: configurations[3].value: expected a number or null")
// when tune.json does not follow its schema (version 1).
inline json tune_report_view(const nlohmann::ordered_json& tune) {
    return detail::tune_report::build_view(detail::tune_report::read_document(tune)).view;
}

// tune.md, tune.html and the charts, from tune.json alone; the same JSON gives the same bytes.
inline tune_report_files render_tune_report(const nlohmann::ordered_json& tune) {
    namespace parts = detail::tune_report;
    const auto built = parts::build_view(parts::read_document(tune));
    tune_report_files out;
    out.markdown = parts::render_template("tune.md", built.view);
    out.html = parts::render_template("tune.html", built.view);
    for (const auto& p : built.plots) out.svgs.emplace_back("plots/" + p.name, p.svg);
    return out;
}

} // namespace servestat::report
