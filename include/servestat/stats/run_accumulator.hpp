// Statistics of a run gathered piece by piece, in memory that does not grow with the number of
// requests: what `stats` computes when a log will not fit (--memory-limit), and what summaries of
// shards hold. Counts, sums, min and max are exact; means are compensated sums over exact counts;
// spreads merge by Chan's formula; percentiles come from a sketch, each within its relative error,
// and so do the ends of their intervals (widened by it); the means' intervals are exact.
// Accumulators of the same options merge, in any order and grouping.
#pragma once

#include <algorithm> // std::min, std::max
#include <array>     // std::array
#include <cmath>     // std::sqrt
#include <cstddef>   // std::size_t
#include <cstdint>   // std::uint64_t
#include <optional>  // std::optional
#include <span>      // std::span
#include <string>    // std::string
#include <string_view> // std::string_view
#include <vector>    // std::vector

#include <fmt/format.h> // fmt::format

#include "servestat/core/run.hpp"               // run_metadata, skipped_lines
#include "servestat/stats/compensated_sum.hpp"   // compensated_sum, compensated_sum_of
#include "servestat/stats/error_kinds.hpp"       // error_count, count_errors, all_error_kinds
#include "servestat/stats/metrics.hpp"           // all_metrics, collect_metric
#include "servestat/stats/percentile_interval.hpp" // percentile_interval
#include "servestat/stats/quantile_sketch.hpp"   // quantile_sketch
#include "servestat/stats/run_stats.hpp"         // run_stats, stats_options
#include "servestat/stats/student_t.hpp"         // mean_t_interval
#include "servestat/stats/subsets.hpp"           // split_into_subsets

namespace servestat {

namespace detail {
struct summary_file_access; // report/summary_file.hpp writes accumulators out and reads them back
}

// One metric's values, piece by piece.
class metric_accumulator {
public:
    explicit metric_accumulator(double alpha = default_sketch_alpha) : sketch_(alpha) {}

    // Adds the values of one piece: its mean and sum of squared deviations by two passes, then
    // Chan, Golub and LeVeque's update, which loses nothing to cancellation as sums of squares do.
    void add(std::span<const double> values) {
        if (values.empty()) return;
        metric_accumulator piece(sketch_.alpha());
        piece.n_ = values.size();
        piece.sum_ = compensated_sum_of(values);
        const double mean = piece.sum_.value() / static_cast<double>(piece.n_);
        piece.squares_ = compensated_sum_of(values, [&](double x) { return (x - mean) * (x - mean); }).value();
        for (double x : values) piece.sketch_.add(x);
        merge(piece);
    }

    void merge(const metric_accumulator& other) {
        if (other.n_ == 0) return;
        if (n_ == 0) {
            *this = other;
            return;
        }
        const double na = static_cast<double>(n_), nb = static_cast<double>(other.n_);
        const double delta = other.mean() - mean();
        squares_ = squares_ + other.squares_ + delta * delta * (na * nb / (na + nb));
        n_ += other.n_;
        sum_.merge(other.sum_);
        sketch_.merge(other.sketch_);
    }

    std::uint64_t count() const noexcept { return n_; }
    double mean() const { return sum_.value() / static_cast<double>(n_); }
    const quantile_sketch& sketch() const noexcept { return sketch_; }

    // The summary an exact pass would give, its percentiles read from the sketch. A percentile's
    // interval is the sketch's values at the ranks of the exact interval's ends (percentile_interval),
    // each widened by the sketch's relative error (quantile_sketch::bounds_at_rank): the interval then
    // holds the exact order statistics, so its coverage stays at least the confidence, and it is
    // wider than the exact one by at most that relative error at each end. The mean's t-interval
    // comes from the exact count, sum and sum of squares, as in an exact pass.
    summary result(const summary_options& o) const {
        validate(o);
        summary out;
        out.n = static_cast<std::size_t>(n_);
        if (n_ > 0) out.sketch_alpha = sketch_.alpha();
        for (double p : o.percentiles) {
            if (n_ == 0) {
                out.percentiles.push_back({p, std::nullopt});
                continue;
            }
            std::optional<interval> ci;
            if (const auto ends = percentile_interval(out.n, p, o.confidence))
                ci = interval{sketch_.bounds_at_rank(ends->lower).low, sketch_.bounds_at_rank(ends->upper).high};
            out.percentiles.push_back({p, sketch_.percentile(p, o.method), ci});
        }
        if (n_ == 0) return out;
        out.min = sketch_.min();
        out.max = sketch_.max();
        out.mean = mean();
        const auto spread = [&](std::uint64_t ddof) { return std::sqrt(std::max(0.0, squares_) / static_cast<double>(n_ - ddof)); };
        if (n_ > static_cast<std::uint64_t>(o.ddof)) {
            out.std = spread(static_cast<std::uint64_t>(o.ddof));
            if (*out.mean != 0) out.cov = *out.std / *out.mean;
        }
        if (n_ >= 2) out.mean_ci = mean_t_interval(*out.mean, spread(1), out.n, o.confidence);
        return out;
    }

private:
    friend struct detail::summary_file_access;
    std::uint64_t n_ = 0;
    compensated_sum sum_;
    double squares_ = 0; // sum of squared deviations from the mean
    quantile_sketch sketch_;
};

// A run's requests, piece by piece: everything `analyze` reports except what needs every request
// at once (the steady-state window, peak concurrency, the waiting breakdown), which is left empty
// with the reason.
class run_accumulator {
public:
    run_accumulator(const stats_options& o, double alpha = default_sketch_alpha) : options_(o) {
        validate(o.summary);
        const auto names = subset_names(o.subsets);
        for (const auto& name : names) {
            subset_part part{name, 0, {}};
            for (std::size_t m = 0; m < all_metrics.size(); ++m) part.metrics.emplace_back(alpha);
            subsets_.push_back(std::move(part));
        }
        prompt_tokens_ = output_tokens_ = metric_accumulator(alpha);
        for (std::size_t k = 0; k < errors_.size(); ++k) errors_[k].kind = all_error_kinds[k];
    }

    // Adds every request of `piece` (the requests of one stretch of the log).
    void add(const request_table& piece) {
        requests_ += piece.size();
        const auto status = piece.status();
        for (std::size_t i = 0; i < piece.size(); ++i) ok_ += status[i] == request_status::ok;
        const auto parts = split_into_subsets(piece, options_.subsets);
        for (std::size_t s = 0; s < parts.size(); ++s) {
            parts[s].rows.visit([&](const auto& rows) {
                for (auto i : rows) subsets_[s].ok += status[i] == request_status::ok;
            });
            for (std::size_t m = 0; m < all_metrics.size(); ++m) {
                scratch_.clear();
                collect_metric(piece, all_metrics[m], parts[s].rows, scratch_);
                subsets_[s].metrics[m].add(scratch_);
            }
        }
        add_counts(piece, piece.prompt_tokens(), prompt_tokens_);
        add_counts(piece, piece.output_tokens(), output_tokens_);
        add_ok_values(piece, piece.server_spec_acceptance(), spec_acceptance_);
        add_ok_values(piece, piece.server_draft_acceptance(), draft_acceptance_);
        add_span(piece);
        for (const auto& e : count_errors(piece)) {
            auto& slot = errors_[static_cast<std::size_t>(e.kind)];
            if (slot.count == 0) slot.example = e.example;
            slot.count += e.count;
        }
        if (!options_.slos.empty()) {
            const auto g = count_good(piece, options_.slos);
            good_ += g.good;
            unmeasurable_ += g.unmeasurable;
            add_good_output(piece);
        }
    }

    // `other` comes after this in the log: error examples stay the first ones.
    void merge(const run_accumulator& other) {
        requests_ += other.requests_;
        ok_ += other.ok_;
        for (std::size_t s = 0; s < subsets_.size(); ++s) {
            subsets_[s].ok += other.subsets_[s].ok;
            for (std::size_t m = 0; m < all_metrics.size(); ++m) subsets_[s].metrics[m].merge(other.subsets_[s].metrics[m]);
        }
        prompt_tokens_.merge(other.prompt_tokens_);
        output_tokens_.merge(other.output_tokens_);
        spec_acceptance_.merge(other.spec_acceptance_);
        draft_acceptance_.merge(other.draft_acceptance_);
        if (other.first_sent_) first_sent_ = first_sent_ ? std::min(*first_sent_, *other.first_sent_) : *other.first_sent_;
        if (other.last_end_) last_end_ = last_end_ ? std::max(*last_end_, *other.last_end_) : *other.last_end_;
        if (other.sent_ > 0) {
            first_send_ = sent_ > 0 ? std::min(first_send_, other.first_send_) : other.first_send_;
            last_send_ = sent_ > 0 ? std::max(last_send_, other.last_send_) : other.last_send_;
            sent_ += other.sent_;
        }
        output_sum_ += other.output_sum_;
        total_sum_ += other.total_sum_;
        any_output_ = any_output_ || other.any_output_;
        all_total_ = all_total_ && other.all_total_;
        for (std::size_t k = 0; k < errors_.size(); ++k) {
            if (errors_[k].count == 0) errors_[k].example = other.errors_[k].example;
            errors_[k].count += other.errors_[k].count;
        }
        good_ += other.good_;
        unmeasurable_ += other.unmeasurable_;
        good_output_sum_ += other.good_output_sum_;
        good_output_known_ = good_output_known_ && other.good_output_known_;
    }

    std::uint64_t requests() const noexcept { return requests_; }
    // The output tokens of the requests that met every SLO (the cost per good token's); none without
    // SLOs, or from a summary file written before it held the count.
    std::optional<double> good_output_tokens() const {
        if (options_.slos.empty() || !good_output_known_) return std::nullopt;
        return static_cast<double>(good_output_sum_);
    }
    double sketch_alpha() const noexcept { return prompt_tokens_.sketch().alpha(); }

    run_stats result(const run_metadata& meta, const skipped_lines& skipped) const {
        run_stats out;
        out.meta = meta;
        out.skipped = skipped;
        out.requests = static_cast<std::size_t>(requests_);
        out.ok = static_cast<std::size_t>(ok_);
        out.failed = out.requests - out.ok;
        for (std::size_t s = 0; s < subsets_.size(); ++s) {
            subset_stats stats{subsets_[s].name, static_cast<std::size_t>(subsets_[s].ok), {}};
            for (std::size_t m = 0; m < all_metrics.size(); ++m)
                stats.metrics.push_back({all_metrics[m], subsets_[s].metrics[m].result(options_.summary)});
            out.subsets.push_back(std::move(stats));
        }
        out.prompt_tokens = prompt_tokens_.result(options_.summary);
        out.output_tokens = output_tokens_.result(options_.summary);
        out.server_spec_acceptance = spec_acceptance_.mean();
        out.server_draft_acceptance = draft_acceptance_.mean();
        for (const auto& e : errors_)
            if (e.count > 0) out.errors.push_back(e);
        out.steady_state = {std::nullopt, "known by its summary, not its requests (a summary file, or a log streamed past "
                                          "the memory limit): the window search needs every request at once"};
        if (meta.shared_clock && first_sent_ && last_end_ && *last_end_ > *first_sent_) {
            out.duration = *last_end_ - *first_sent_;
            out.duration_from = duration_source::requests;
            out.rps = static_cast<double>(out.ok) / *out.duration;
            if (any_output_) out.output_tps = static_cast<double>(output_sum_) / *out.duration;
            if (any_output_ && all_total_) out.total_tps = static_cast<double>(total_sum_) / *out.duration;
        }
        if (meta.shared_clock) out.send_rate = detail::send_rate_of(static_cast<std::size_t>(sent_), first_send_, last_send_);
        if (!options_.slos.empty()) {
            goodput_stats g{options_.slos, static_cast<std::size_t>(good_), static_cast<std::size_t>(unmeasurable_), std::nullopt, std::nullopt};
            if (out.duration) g.rps = static_cast<double>(good_) / *out.duration;
            if (requests_ > 0) g.share = static_cast<double>(good_) / static_cast<double>(requests_);
            out.goodput = g;
        }
        return out;
    }

    const stats_options& options() const noexcept { return options_; }

    // One metric of one subset as accumulated (its sketch draws what a chart can draw without the
    // requests); null for a subset the options do not have.
    const metric_accumulator* find_metric(std::string_view subset, metric m) const {
        for (const auto& part : subsets_)
            if (part.name == subset)
                for (std::size_t k = 0; k < all_metrics.size(); ++k)
                    if (all_metrics[k] == m) return &part.metrics[k];
        return nullptr;
    }

    // Statistics are read with these summary options (percentiles, method, ddof) rather than the
    // accumulator's own: a summary file answers any percentile.
    run_stats result(const run_metadata& meta, const skipped_lines& skipped, const summary_options& o) const {
        run_accumulator reading = *this;
        reading.options_.summary = o;
        return reading.result(meta, skipped);
    }

private:
    friend struct detail::summary_file_access;
    struct subset_part {
        std::string name;
        std::uint64_t ok = 0;
        std::vector<metric_accumulator> metrics; // in all_metrics order
    };

    static std::vector<std::string> subset_names(const subset_options& o) {
        request_table none;
        std::vector<std::string> names;
        for (const auto& s : split_into_subsets(none, o)) names.push_back(s.name);
        return names;
    }

    void add_counts(const request_table& piece, count_column counts, metric_accumulator& into) {
        scratch_.clear();
        const auto status = piece.status();
        for (std::size_t i = 0; i < piece.size(); ++i)
            if (is_present(counts[i]) && status[i] == request_status::ok) scratch_.push_back(counts[i]);
        into.add(scratch_);
    }

    void add_good_output(const request_table& piece) {
        const auto out_tokens = piece.output_tokens();
        for (std::size_t i = 0; i < piece.size(); ++i)
            if (is_present(out_tokens[i]) && meets_slos(piece, i, options_.slos))
                good_output_sum_ += static_cast<std::uint64_t>(out_tokens[i]);
    }

    // The run's span and token totals, as analyze takes them.
    void add_span(const request_table& piece) {
        const auto sent = piece.t_sent(), ended = piece.t_end();
        const auto status = piece.status();
        const auto out_tokens = piece.output_tokens(), in_tokens = piece.prompt_tokens();
        for (std::size_t i = 0; i < piece.size(); ++i) {
            const double s = sent[i], e = ended[i];
            if (is_present(s)) {
                first_send_ = sent_ > 0 ? std::min(first_send_, s) : s;
                last_send_ = sent_ > 0 ? std::max(last_send_, s) : s;
                ++sent_;
            }
            if (is_present(s) && is_present(e)) {
                first_sent_ = first_sent_ ? std::min(*first_sent_, s) : s;
                last_end_ = last_end_ ? std::max(*last_end_, e) : e;
            }
            if (status[i] != request_status::ok) continue;
            if (is_present(out_tokens[i])) {
                output_sum_ += static_cast<std::uint64_t>(out_tokens[i]);
                any_output_ = true;
            }
            if (is_present(out_tokens[i]) && is_present(in_tokens[i]))
                total_sum_ += static_cast<std::uint64_t>(out_tokens[i]) + static_cast<std::uint64_t>(in_tokens[i]);
            else all_total_ = false;
        }
    }

    stats_options options_;
    std::uint64_t requests_ = 0, ok_ = 0;
    std::vector<subset_part> subsets_;
    metric_accumulator prompt_tokens_, output_tokens_;
    mean_accumulator spec_acceptance_, draft_acceptance_; // the server's, over ok requests
    std::optional<double> first_sent_, last_end_;
    std::uint64_t sent_ = 0; // requests with a send time, first_send_ to last_send_
    double first_send_ = 0, last_send_ = 0;
    std::uint64_t output_sum_ = 0, total_sum_ = 0; // integers: exact, and summed in any order alike
    bool any_output_ = false, all_total_ = true;
    std::array<error_count, all_error_kinds.size()> errors_{};
    std::uint64_t good_ = 0, unmeasurable_ = 0;
    std::uint64_t good_output_sum_ = 0; // output tokens of the requests that met every SLO
    bool good_output_known_ = true;     // false for a summary file written before it held the sum
    std::vector<double> scratch_;
};

} // namespace servestat
