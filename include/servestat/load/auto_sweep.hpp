// The auto sweep (`servestat load --sweep concurrency=auto`, `rate=auto`): which load level to run
// next, decided from the levels run so far. Pure logic: it is told each level's results and answers
// with the next level, so it is tested on synthetic curves without a server. docs/load.md#finding-the-knee.
//
// Phase 1, the climb: a geometric ladder (start, 2·start, 4·start, …) until a doubling gains less
// throughput than `gain`, an SLO fails, the error rate rises, a level completes nothing, the failure
// guard stops a level, or the cap is reached. The climb's highest throughput is then the plateau to
// within `gain`, and the knee is the lowest load whose throughput comes within `gain` of it: on a
// hard kink (an open loop's throughput = rate up to capacity, flat beyond) that is the kink, where
// "the first doubling that gained too little" would lie one step past it. Phase 2, the refinement:
// bisection (geometric midpoints; integers for concurrency) inside the brackets the climb found: the
// knee's (the last level below that throughput and the first at it) and the capacity's (the last
// level meeting the SLOs and the error limit, and the first missing them), until each is known to
// ±`resolution`, its ends are adjacent integers, or `max_levels` levels have run.
#pragma once

#include <algorithm> // std::min, std::max
#include <cmath>     // std::sqrt, std::log2, std::pow, std::round, std::isfinite, std::floor, std::log10
#include <cstddef>   // std::size_t
#include <optional>  // std::optional
#include <string>    // std::string
#include <utility>   // std::move
#include <vector>    // std::vector

#include <fmt/format.h>      // fmt::format
#include <nlohmann/json.hpp> // nlohmann::ordered_json

#include "servestat/core/errors.hpp"        // usage_error
#include "servestat/load/failure_stop.hpp" // is_failure_stop, failure_stop_of
#include "servestat/stats/goodput.hpp"      // slo
#include "servestat/stats/run_stats.hpp"    // run_stats, find_percentile

namespace servestat::load {

enum class auto_parameter { concurrency, rate };

inline constexpr double default_auto_gain = 0.10;
inline constexpr double default_auto_resolution = 0.25;
inline constexpr double default_auto_max_error = 0.05;
inline constexpr std::size_t default_auto_levels = 16;
inline constexpr double default_auto_span = 1024; // the cap, as a multiple of the start

struct auto_sweep_settings {
    auto_parameter parameter = auto_parameter::concurrency;
    double start = 1;          // the first level
    std::optional<double> max; // the highest level; unset: 1024 × start
    // The climb stops once a doubling of the load gains less than this share of throughput.
    double gain = default_auto_gain;
    // Refinement ends when a bracket [low, high] is known to ±this share: both ends within a factor
    // 1 + resolution of its geometric middle, i.e. high ≤ (1 + resolution)² × low.
    double resolution = default_auto_resolution;
    // A level fails when its error rate exceeds the lowest error rate of the levels below it by more
    // than this (a share of requests: 0.05 = 5 percentage points).
    double max_error = default_auto_max_error;
    std::size_t max_levels = default_auto_levels; // levels in all, climb and refinement
    std::vector<slo> slos;      // a level meets them when each metric's percentile over ok requests does
    double slo_percentile = 95; // as `servestat report` judges a sweep's SLO capacity

    double highest() const { return max.value_or(default_auto_span * start); }
};

// usage_error for settings the sweep cannot run with, naming the option.
inline void validate(const auto_sweep_settings& s) {
    const bool concurrency = s.parameter == auto_parameter::concurrency;
    const auto whole = [](double v) { return v == std::floor(v); };
    if (!std::isfinite(s.start) || s.start <= 0 || (concurrency && (!whole(s.start) || s.start < 1)))
        throw usage_error(fmt::format("--auto-start {:g}: must be a positive {}", s.start, concurrency ? "integer" : "number"));
    const double top = s.highest();
    if (!std::isfinite(top) || top < s.start || (concurrency && !whole(top)))
        throw usage_error(fmt::format("--auto-max {:g}: must be a{} at least --auto-start ({:g})", top,
                                      concurrency ? "n integer" : " number", s.start));
    if (!std::isfinite(s.gain) || s.gain <= 0)
        throw usage_error(fmt::format("--auto-gain {:g}: must be a positive share (0.1 = 10% per doubling)", s.gain));
    if (!std::isfinite(s.resolution) || s.resolution <= 0)
        throw usage_error(fmt::format("--auto-resolution {:g}: must be a positive share (0.25 = ±25%)", s.resolution));
    if (!std::isfinite(s.max_error) || s.max_error < 0 || s.max_error >= 1)
        throw usage_error(fmt::format("--auto-max-error {:g}: must lie in [0, 1)", s.max_error));
    if (s.max_levels < 2) throw usage_error(fmt::format("--auto-levels {}: at least 2", s.max_levels));
    if (!(s.slo_percentile > 0 && s.slo_percentile < 100))
        throw usage_error(fmt::format("the SLO percentile {:g} must lie between 0 and 100", s.slo_percentile));
}

// One SLO at one level: the percentile of the metric over the level's ok requests, when it has one.
struct slo_check {
    slo objective;
    std::optional<double> value;
    bool met() const { return value && *value <= objective.max_seconds; }
};

// What the planner needs of a level, read from its log.
struct level_result {
    double load = 0;
    std::size_t requests = 0, ok = 0;
    double throughput = 0; // ok requests per second of the run (0 when none completed)
    std::vector<slo_check> slos;
    std::string ended_early; // the failure guard stopped the level: why; empty otherwise

    double error_rate() const {
        return requests == 0 ? 1.0 : 1.0 - static_cast<double>(ok) / static_cast<double>(requests);
    }
};

// A level's result from its run's statistics (the log read back with the library): throughput is
// run_stats::rps (ok requests / the run's span, as `servestat stats` reports it); each SLO's value is
// its percentile over the ok requests of the whole run; a run the failure guard stopped (run.end's
// reason server_gone or error_rate) ended early.
inline level_result level_result_of(const run_stats& r, double load, const auto_sweep_settings& s) {
    level_result out;
    out.load = load;
    out.requests = r.requests;
    out.ok = r.ok;
    out.throughput = r.rps.value_or(0);
    for (const auto& objective : s.slos)
        out.slos.push_back({objective, find_percentile(r, "all", objective.on, s.slo_percentile)});
    out.ended_early = failure_stop_of(r.meta.run_end);
    return out;
}

// Why the climb ended.
enum class climb_end {
    climbing,          // not yet
    gain,              // a doubling gained less than --auto-gain
    slo,               // an SLO failed
    errors,            // the error rate rose more than --auto-max-error above the levels below
    nothing_completed, // the first level completed no request
    failure,           // the failure guard stopped a level (the sweep ends there)
    cap,               // --auto-max reached with throughput still growing
    levels,            // --auto-levels spent during the climb
};

// Why the refinement ended.
enum class refinement_end {
    refining,   // not yet
    resolved,   // every bracket known to ±resolution (or its ends adjacent integers)
    nothing,    // the climb left nothing to refine
    levels,     // --auto-levels spent
    failure,    // the failure guard stopped a refinement level
};

inline const char* to_string(climb_end e) noexcept {
    switch (e) {
    case climb_end::climbing: return "climbing";
    case climb_end::gain: return "gain";
    case climb_end::slo: return "slo";
    case climb_end::errors: return "errors";
    case climb_end::nothing_completed: return "nothing_completed";
    case climb_end::failure: return "failure";
    case climb_end::cap: return "cap";
    case climb_end::levels: return "levels";
    }
    return "?";
}

inline const char* to_string(refinement_end e) noexcept {
    switch (e) {
    case refinement_end::refining: return "refining";
    case refinement_end::resolved: return "resolved";
    case refinement_end::nothing: return "nothing_to_refine";
    case refinement_end::levels: return "levels";
    case refinement_end::failure: return "failure";
    }
    return "?";
}

// Two measured levels with the answer between them. Knee: `low`'s throughput is below the knee's
// target (the climb's highest throughput / (1 + gain)), `high`'s reaches it; `low` is empty when
// the first level already did. Capacity: `low` met the SLOs and the error limit, `high` did not;
// `low` is empty when even the first level missed them.
struct auto_bracket {
    std::optional<double> low;
    double high = 0;
};

class auto_sweep {
public:
    explicit auto_sweep(auto_sweep_settings s) : s_(std::move(s)) {
        validate(s_);
        next_ = s_.start;
    }

    const auto_sweep_settings& settings() const { return s_; }

    // The level to run next; empty once the sweep is over.
    std::optional<double> next() const { return next_; }
    bool done() const { return !next_; }

    // The results of the level next() proposed. Returns what it means, one sentence for stderr
    // ("c=32: 105.7 req/s, +8% over c=16 (< 10%): the knee lies between c=8 and 16; refining at c=11").
    std::string add(const level_result& r) {
        if (!next_) throw usage_error("auto sweep: a level was added after the sweep ended");
        if (r.load != *next_)
            throw usage_error(fmt::format("auto sweep: expected the results of {}, got {}", level(*next_), level(r.load)));
        levels_.push_back(r);
        next_.reset();
        return climb_ == climb_end::climbing ? climb_step() : refine_step();
    }

    climb_end climb() const { return climb_; }
    refinement_end refinement() const { return refinement_; }
    const std::string& climb_text() const { return climb_text_; }
    const std::string& refinement_text() const { return refinement_text_; }
    const std::optional<auto_bracket>& knee() const { return knee_; }
    // The throughput the knee reaches: the climb's highest / (1 + gain); set with the knee's bracket.
    std::optional<double> knee_target() const { return knee_target_; }
    const std::optional<auto_bracket>& capacity() const { return capacity_; }
    const std::vector<level_result>& levels() const { return levels_; }

    // Where the brackets stand: "the knee lies between c=11 and 16 (±21% around 13.3); the capacity
    // lies between …"; empty when the climb bracketed nothing.
    std::string conclusion() const {
        std::string out;
        const auto known = [&](const char* what, const auto_bracket& b) {
            const bool adjacent = s_.parameter == auto_parameter::concurrency && b.high - *b.low <= 1;
            return fmt::format("{} lies between {} ({})", what, bracket_text(b),
                               adjacent ? std::string("adjacent levels")
                                        : fmt::format("±{:.0f}% around {:.3g}", 100 * (std::sqrt(b.high / *b.low) - 1),
                                                      std::sqrt(b.high * *b.low)));
        };
        if (knee_ && knee_->low) out = known("the knee", *knee_);
        else if (knee_) out = "the knee lies at or below " + level(knee_->high) + ", the first level";
        if (capacity_ && capacity_->low) out += (out.empty() ? "" : "; ") + known("the capacity", *capacity_);
        else if (capacity_) out += (out.empty() ? "" : "; ") + ("even " + level(capacity_->high) + ", the first level, fails");
        return out;
    }

    // "c=16", "rate=2.5".
    std::string level(double load) const {
        return fmt::format("{}{:g}", s_.parameter == auto_parameter::concurrency ? "c=" : "rate=", load);
    }

    // Throughput gain per doubling of the load from level `from` to level `to` (both measured):
    // (T_to / T_from)^(1 / log2(to / from)) − 1. −1 when `to` completed nothing; +inf when `from` did not.
    double gain_per_doubling(double from, double to) const {
        const double a = result_at(from).throughput, b = result_at(to).throughput;
        if (b <= 0) return -1;
        if (a <= 0) return HUGE_VAL;
        return std::pow(b / a, 1 / std::log2(to / from)) - 1;
    }

    // What the manifest records: the settings, the levels in the order run, how the climb and the
    // refinement ended and why, and the brackets.
    nlohmann::ordered_json to_json() const {
        nlohmann::ordered_json j;
        j["parameter"] = s_.parameter == auto_parameter::concurrency ? "concurrency" : "rate";
        j["settings"] = settings_json(s_);
        auto run = nlohmann::ordered_json::array();
        for (const auto& l : levels_) {
            nlohmann::ordered_json e{{"load", l.load},
                                     {"throughput", l.throughput},
                                     {"requests", l.requests},
                                     {"ok", l.ok},
                                     {"error_rate", l.error_rate()}};
            if (!l.slos.empty()) {
                auto slos = nlohmann::ordered_json::object();
                for (const auto& c : l.slos)
                    slos[fmt::format("{}.p{:g}", to_string(c.objective.on), s_.slo_percentile)] =
                        c.value ? nlohmann::ordered_json(*c.value) : nlohmann::ordered_json();
                e["slos"] = std::move(slos);
                e["slos_met"] = slos_met(l);
            }
            if (!l.ended_early.empty()) e["ended_early"] = l.ended_early;
            run.push_back(std::move(e));
        }
        j["levels"] = std::move(run);
        j["climb"] = {{"reason", to_string(climb_)}, {"text", climb_text_}};
        j["refinement"] = {{"reason", to_string(refinement_)}, {"text", refinement_text_}};
        const auto bracket = [](const std::optional<auto_bracket>& b) {
            if (!b) return nlohmann::ordered_json();
            return nlohmann::ordered_json{{"low", b->low ? nlohmann::ordered_json(*b->low) : nlohmann::ordered_json()},
                                          {"high", b->high}};
        };
        j["knee"] = bracket(knee_);
        if (knee_) {
            j["knee"]["target_throughput"] = *knee_target_;
            j["knee"]["top_throughput"] = *knee_target_ * (1 + s_.gain);
        }
        j["capacity"] = bracket(capacity_);
        if (capacity_) j["capacity"]["reason"] = capacity_reason_;
        return j;
    }

    static nlohmann::ordered_json settings_json(const auto_sweep_settings& s) {
        auto slos = nlohmann::ordered_json::array();
        for (const auto& o : s.slos) slos.push_back(fmt::format("{}={:g}", to_string(o.on), o.max_seconds));
        return {{"start", s.start},       {"max", s.highest()},           {"gain", s.gain},
                {"resolution", s.resolution}, {"max_error", s.max_error}, {"max_levels", s.max_levels},
                {"slo", std::move(slos)},  {"slo_percentile", s.slo_percentile}};
    }

private:
    const level_result& result_at(double load) const {
        for (const auto& l : levels_)
            if (l.load == load) return l;
        throw usage_error(fmt::format("auto sweep: {} was not measured", level(load)));
    }

    static bool slos_met(const level_result& r) {
        for (const auto& c : r.slos)
            if (!c.met()) return false;
        return true;
    }

    // The lowest error rate among the levels measured below `load` (none below: the level's own).
    double baseline_error(double load) const {
        std::optional<double> lowest;
        for (const auto& l : levels_)
            if (l.load < load) lowest = std::min(lowest.value_or(1.0), l.error_rate());
        return lowest.value_or(0.0);
    }

    bool errors_rose(const level_result& r) const {
        bool below = false;
        for (const auto& l : levels_) below = below || l.load < r.load;
        return below && r.error_rate() > baseline_error(r.load) + s_.max_error;
    }

    // Meets the SLOs and the error limit.
    bool passes(const level_result& r) const { return slos_met(r) && !errors_rose(r); }

    // "e2e p95 1.31 s > 1 s", the first SLO a level missed ("e2e p95 unknown": no ok request).
    std::string slo_miss(const level_result& r) const {
        for (const auto& c : r.slos)
            if (!c.met())
                return c.value ? fmt::format("{} p{:g} {:.3g} s > {:g} s", to_string(c.objective.on), s_.slo_percentile,
                                             *c.value, c.objective.max_seconds)
                               : fmt::format("{} p{:g} unknown (no request completed)", to_string(c.objective.on),
                                             s_.slo_percentile);
        return {};
    }

    std::string error_rise(const level_result& r) const {
        return fmt::format("{:.1f}% of requests failed, against {:.1f}% at best below (--auto-max-error {:g})",
                           100 * r.error_rate(), 100 * baseline_error(r.load), s_.max_error);
    }

    static std::string percent(double share) {
        return std::abs(share) < 0.01 ? fmt::format("{:+.1f}%", 100 * share) : fmt::format("{:+.0f}%", 100 * share);
    }

    // "+27% over c=4", "+5% per doubling over c=16".
    std::string gain_text(double from, double to) const {
        const double g = gain_per_doubling(from, to);
        if (!std::isfinite(g)) return fmt::format("up from nothing at {}", level(from));
        return fmt::format("{}{} over {}", percent(g), to == 2 * from ? "" : " per doubling", level(from));
    }

    // "c=32: 105.7 req/s, ".
    std::string level_head(const level_result& r) const {
        return fmt::format("{}: {:.4g} req/s{}", level(r.load), r.throughput,
                           r.ok < r.requests ? fmt::format(" ({} of {} failed)", r.requests - r.ok, r.requests) : "");
    }

    std::string bracket_text(const auto_bracket& b) const {
        return b.low ? fmt::format("{} and {:g}", level(*b.low), b.high) : fmt::format("below {}", level(b.high));
    }

    // The ladder's next rung: double, up to the cap.
    std::string climb_step() {
        const level_result& r = levels_.back();
        const std::size_t k = levels_.size() - 1;
        std::string head = level_head(r);
        if (!r.ended_early.empty()) {
            climb_ = climb_end::failure;
            climb_text_ = fmt::format("the failure guard stopped {} ({}): the sweep ends there", level(r.load), r.ended_early);
            refinement_ = refinement_end::failure;
            refinement_text_ = "nothing refined after a failure stop";
            return head + "; " + climb_text_;
        }
        if (k == 0 && r.ok == 0) {
            climb_ = climb_end::nothing_completed;
            climb_text_ = fmt::format("no request completed at {}, the first level: nothing to climb from", level(r.load));
            refinement_ = refinement_end::nothing;
            refinement_text_ = "nothing to refine";
            return head + "; " + climb_text_;
        }
        std::vector<std::string> why;
        if (errors_rose(r)) {
            climb_ = climb_end::errors;
            why.push_back(error_rise(r));
        } else if (!slos_met(r)) {
            climb_ = climb_end::slo;
            why.push_back(slo_miss(r));
        }
        if (climb_ != climb_end::climbing) {
            capacity_ = auto_bracket{k == 0 ? std::nullopt : std::optional<double>(levels_[k - 1].load), r.load};
            capacity_reason_ = climb_ == climb_end::errors ? "errors" : "slo";
        }
        if (k > 0) {
            const double below = levels_[k - 1].load;
            const double g = gain_per_doubling(below, r.load);
            head += ", " + gain_text(below, r.load);
            if (g < s_.gain) {
                if (climb_ == climb_end::climbing) climb_ = climb_end::gain;
                place_knee();
                why.insert(why.begin(), fmt::format("< {:g}%", 100 * s_.gain));
            }
        }
        if (climb_ == climb_end::climbing) {
            if (r.load >= s_.highest()) {
                climb_ = climb_end::cap;
                climb_text_ = fmt::format("reached --auto-max {:g} with throughput still growing: the knee lies above",
                                          s_.highest());
            } else if (levels_.size() >= s_.max_levels) {
                climb_ = climb_end::levels;
                climb_text_ = fmt::format("--auto-levels {} spent while throughput still grew", s_.max_levels);
            } else {
                next_ = std::min(2 * r.load, s_.highest());
                return head + "; climbing to " + level(*next_);
            }
            return head + "; " + climb_text_ + plan_refinement();
        }
        std::string found;
        if (knee_)
            found = fmt::format("the knee (the lowest load within {:g}% of the {:.4g} req/s reached) lies {}", 100 * s_.gain,
                                *knee_target_ * (1 + s_.gain),
                                knee_->low ? "between " + bracket_text(*knee_) : "at or below " + level(knee_->high));
        if (capacity_)
            found += (found.empty() ? "" : "; ") +
                     (capacity_->low ? "the capacity lies between " + bracket_text(*capacity_)
                                     : "even " + level(capacity_->high) + ", the first level, fails");
        std::string reasons;
        for (const auto& w : why) reasons += (reasons.empty() ? "" : "; ") + w;
        climb_text_ = fmt::format("{} ({}): {}", level(r.load), reasons, found);
        return head + " (" + reasons + "): " + found + plan_refinement();
    }

    // Whether a bracket still needs a level: its ends more than (1 + resolution)² apart, and for
    // concurrency a whole number strictly between them.
    std::optional<double> midpoint(const std::optional<auto_bracket>& b) const {
        if (!b || !b->low) return std::nullopt;
        const double lo = *b->low, hi = b->high;
        if (hi <= lo * (1 + s_.resolution) * (1 + s_.resolution)) return std::nullopt;
        const double mid = std::sqrt(lo * hi);
        if (s_.parameter == auto_parameter::concurrency) {
            const double m = std::round(mid);
            return m > lo && m < hi ? std::optional<double>(m) : std::nullopt;
        }
        // Three significant digits: a rate of 22.6, not 22.627416997969522.
        const double scale = std::pow(10.0, 2 - std::floor(std::log10(mid)));
        const double m = std::round(mid * scale) / scale;
        return m > lo && m < hi ? std::optional<double>(m) : std::nullopt;
    }

    static double width(const auto_bracket& b) { return b.high / *b.low; }

    // The knee's bracket once the climb has levelled off: the ladder's last level below the target
    // (its highest throughput / (1 + gain)) and the first level at it.
    void place_knee() {
        double top = 0;
        for (const auto& l : levels_) top = std::max(top, l.throughput);
        knee_target_ = top / (1 + s_.gain);
        for (std::size_t i = 0; i < levels_.size(); ++i)
            if (levels_[i].throughput >= *knee_target_) {
                knee_ = auto_bracket{i == 0 ? std::nullopt : std::optional<double>(levels_[i - 1].load), levels_[i].load};
                return;
            }
    }

    // Proposes the next refinement level, or ends the sweep; the text tells which.
    std::string plan_refinement() {
        const auto knee_mid = midpoint(knee_), capacity_mid = midpoint(capacity_);
        if (!knee_mid && !capacity_mid) {
            refinement_ = (knee_ && knee_->low) || (capacity_ && capacity_->low) ? refinement_end::resolved
                                                                                 : refinement_end::nothing;
            if (refinement_ == refinement_end::nothing) {
                refinement_text_ = "nothing to refine";
                return "; nothing to refine";
            }
            refinement_text_ = fmt::format("done (--auto-resolution {:g}): {}", s_.resolution, conclusion());
            return fmt::format("; done (--auto-resolution {:g})", s_.resolution);
        }
        if (levels_.size() >= s_.max_levels) {
            refinement_ = refinement_end::levels;
            refinement_text_ = fmt::format("--auto-levels {} spent: {}", s_.max_levels, conclusion());
            return fmt::format("; --auto-levels {} spent", s_.max_levels);
        }
        // The wider bracket first; the knee's on a tie.
        const bool knee_first = knee_mid && (!capacity_mid || width(*knee_) >= width(*capacity_));
        next_ = knee_first ? *knee_mid : *capacity_mid;
        return "; refining at " + level(*next_);
    }

    // A refinement level: it moves the ends of the brackets it lies in.
    std::string refine_step() {
        const level_result& r = levels_.back();
        std::string head = level_head(r);
        if (!r.ended_early.empty()) {
            refinement_ = refinement_end::failure;
            refinement_text_ = fmt::format("the failure guard stopped {} ({}): the sweep ends there", level(r.load), r.ended_early);
            return head + "; " + refinement_text_;
        }
        std::vector<std::string> found;
        if (knee_ && knee_->low && r.load > *knee_->low && r.load < knee_->high) {
            const bool reached = r.throughput >= *knee_target_;
            (reached ? knee_->high : *knee_->low) = r.load;
            found.push_back(fmt::format("{} the knee's {:.4g} req/s: the knee lies between {}",
                                        reached ? "reaches" : "below", *knee_target_, bracket_text(*knee_)));
        }
        if (capacity_ && capacity_->low && r.load > *capacity_->low && r.load < capacity_->high) {
            if (passes(r)) {
                capacity_->low = r.load;
                found.push_back(fmt::format("meets {}: the capacity lies between {}",
                                            s_.slos.empty() ? "the error limit" : "the SLOs", bracket_text(*capacity_)));
            } else {
                capacity_->high = r.load;
                found.push_back(fmt::format("fails ({}): the capacity lies between {}",
                                            errors_rose(r) ? error_rise(r) : slo_miss(r), bracket_text(*capacity_)));
            }
        }
        std::string out = head;
        for (const auto& f : found) out += (out == head ? ", " : "; ") + f;
        return out + plan_refinement();
    }

    auto_sweep_settings s_;
    std::vector<level_result> levels_;
    std::optional<double> next_;
    climb_end climb_ = climb_end::climbing;
    refinement_end refinement_ = refinement_end::refining;
    std::string climb_text_, refinement_text_;
    std::optional<auto_bracket> knee_, capacity_;
    std::optional<double> knee_target_;
    std::string capacity_reason_;
};

} // namespace servestat::load
