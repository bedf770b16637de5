// The requests of one run stored column by column. Times are whole microseconds while every one of
// them is (servestat's own logs, and most drivers', write six decimals), doubles otherwise; token
// counts are 16-bit while they fit; error texts are pooled and kept only for the rows that have
// one. A request of the canonical log costs 29 bytes, where doubles, 32-bit counts and an error id
// a row took 51. Every value reads back bit for bit as the reader stored it.
#pragma once

#include <algorithm> // std::lower_bound
#include <array>     // std::array
#include <bit>     // std::bit_cast
#include <cmath>   // std::isnan, std::llround, std::fabs
#include <cstddef> // std::size_t
#include <cstdint> // std::int32_t, std::int16_t, std::uint8_t
#include <functional> // std::function
#include <limits>  // std::numeric_limits
#include <optional> // std::optional
#include <string>  // std::string, std::to_string
#include <span>    // std::span
#include <string_view> // std::string_view
#include <type_traits> // std::is_same_v
#include <vector>  // std::vector

#include "servestat/core/count_column.hpp"   // count_column
#include "servestat/core/errors.hpp"         // input_error
#include "servestat/core/parallel.hpp"       // parallel_for
#include "servestat/core/request_record.hpp" // request_record, time_fault
#include "servestat/core/string_pool.hpp"    // string_pool
#include "servestat/core/time_column.hpp"    // time_column
#include "servestat/core/utf8.hpp"           // is_valid_utf8, to_valid_utf8

namespace servestat {

// Absent values inside columns: NaN for times (readers reject NaN input, so NaN is free to mean
// "absent"), -1 for counts, 0 for the HTTP status.
inline constexpr double absent_time = std::numeric_limits<double>::quiet_NaN();
inline constexpr std::int32_t absent_count = -1;

inline bool is_present(double t) noexcept { return !std::isnan(t); }
inline bool is_present(std::int32_t count) noexcept { return count >= 0; }

class request_table {
public:
    std::size_t size() const noexcept { return status_.size(); }
    bool empty() const noexcept { return status_.empty(); }

    void reserve(std::size_t n) {
        if (in_micros_) {
            sent_us_.reserve(n); sched_us_.reserve(n); first_us_.reserve(n); end_us_.reserve(n);
        } else {
            t_sched_.reserve(n); t_sent_.reserve(n); t_first_.reserve(n); t_end_.reserve(n);
        }
        prompt_tokens_.reserve(n); output_tokens_.reserve(n); max_tokens_.reserve(n);
        status_.reserve(n); http_status_.reserve(n);
    }

    // Throws input_error (no file: the reader's entry adds it) for a time no statistic can use, or an
    // acceptance figure out of its range; readers that know the line check time_fault() and
    // acceptance_fault() first and name it.
    void push_back(const request_record& r) {
        const std::size_t row = size();
        auto fault = time_fault(r);
        if (!fault) fault = acceptance_fault(r);
        if (fault)
            throw input_error("", 0, std::string(fault->field), "request " + std::to_string(row + 1) + ": " + fault->message);
        // Grown by a quarter, not doubled: past a reader's estimate, doubling would leave up to half of
        // every column unused. Small tables double from 16 rows: a report of thousands of
        // one-request logs held 30 kB of empty columns per run.
        if (row == status_.capacity()) reserve(row < 1024 ? std::max<std::size_t>(2 * row, 16) : row + row / 4 + 1024);
        if (!(in_micros_ && push_micros(r))) push_seconds(r);
        prompt_tokens_.push_back(r.prompt_tokens.value_or(absent_count));
        output_tokens_.push_back(r.output_tokens.value_or(absent_count));
        max_tokens_.push_back(r.max_tokens.value_or(absent_count));
        status_.push_back(r.status);
        http_status_.push_back(static_cast<std::int16_t>(r.http_status.value_or(0)));
        if (!r.error.empty()) {
            error_rows_.push_back(row);
            error_ids_.push_back(errors_.intern(r.error));
        }
        push_optional(server_queue_, row, r.server_queue, absent_time);
        push_optional(server_prefill_, row, r.server_prefill, absent_time);
        push_optional(server_decode_, row, r.server_decode, absent_time);
        push_optional(server_ttft_, row, r.server_ttft, absent_time);
        push_optional(server_itl_, row, r.server_itl, absent_time);
        push_optional(server_spec_acceptance_, row, r.server_spec_acceptance, absent_time);
        push_optional(server_draft_acceptance_, row, r.server_draft_acceptance, absent_time);
        push_optional(prompt_tokens_original_, row, r.prompt_tokens_original, absent_count);
        push_optional(trimmed_, row, to_tristate(r.trimmed), std::int8_t{-1});
        push_optional(connect_time_, row, r.connect_time, absent_time);
        push_optional(tls_time_, row, r.tls_time, absent_time);
        push_optional(cached_tokens_, row, r.cached_tokens, absent_count);
        push_optional(turn_, row, r.turn, absent_count);
        push_optional(cacheable_tokens_, row, r.cacheable_tokens, absent_count);
        push_itl(row, r.itl);
    }

    // The rows of `other` after these, as if pushed one by one (optional columns backfilled, error
    // texts re-interned): how the pieces of a file read in parallel become one table. Each column of
    // `other` is released once copied, so joining takes one column more than the pieces, not a
    // second table; each call reallocates, so it is for joining a few large pieces.
    // The columns every table has are copied side by side on up to `threads` threads.
    void append(request_table&& other, std::size_t threads = 1) {
        const std::size_t rows = size(), more_rows = other.size();
        const bool micros = in_micros_ && other.in_micros_;
        if (!micros) {
            store_in_seconds();
            other.store_in_seconds();
        }
        const std::array<std::function<void()>, 9> copies{
            [&] { micros ? append_column(sent_us_, other.sent_us_) : append_column(t_sent_, other.t_sent_); },
            [&] { micros ? append_column(sched_us_, other.sched_us_) : append_column(t_sched_, other.t_sched_); },
            [&] { micros ? append_column(first_us_, other.first_us_) : append_column(t_first_, other.t_first_); },
            [&] { micros ? append_column(end_us_, other.end_us_) : append_column(t_end_, other.t_end_); },
            [&] { prompt_tokens_.append(std::move(other.prompt_tokens_)); },
            [&] { output_tokens_.append(std::move(other.output_tokens_)); },
            [&] { max_tokens_.append(std::move(other.max_tokens_)); },
            [&] { append_column(status_, other.status_); },
            [&] { append_column(http_status_, other.http_status_); },
        };
        parallel_for(copies.size(), threads, [&](std::size_t k) { copies[k](); });
        std::vector<string_pool::id> renamed(other.errors_.size(), string_pool::none);
        for (string_pool::id i = 1; i < other.errors_.size(); ++i) renamed[i] = errors_.intern(other.errors_.at(i));
        for (std::size_t k = 0; k < other.error_rows_.size(); ++k) {
            error_rows_.push_back(rows + other.error_rows_[k]);
            error_ids_.push_back(renamed[other.error_ids_[k]]);
        }
        append_optional(server_queue_, rows, other.server_queue_, more_rows, absent_time);
        append_optional(server_prefill_, rows, other.server_prefill_, more_rows, absent_time);
        append_optional(server_decode_, rows, other.server_decode_, more_rows, absent_time);
        append_optional(server_ttft_, rows, other.server_ttft_, more_rows, absent_time);
        append_optional(server_itl_, rows, other.server_itl_, more_rows, absent_time);
        append_optional(server_spec_acceptance_, rows, other.server_spec_acceptance_, more_rows, absent_time);
        append_optional(server_draft_acceptance_, rows, other.server_draft_acceptance_, more_rows, absent_time);
        append_optional(prompt_tokens_original_, rows, other.prompt_tokens_original_, more_rows, absent_count);
        append_optional(trimmed_, rows, other.trimmed_, more_rows, std::int8_t{-1});
        append_optional(connect_time_, rows, other.connect_time_, more_rows, absent_time);
        append_optional(tls_time_, rows, other.tls_time_, more_rows, absent_time);
        append_optional(cached_tokens_, rows, other.cached_tokens_, more_rows, absent_count);
        append_optional(turn_, rows, other.turn_, more_rows, absent_count);
        append_optional(cacheable_tokens_, rows, other.cacheable_tokens_, more_rows, absent_count);
        append_itl(rows, more_rows, other);
        other = request_table{};
    }

    request_record row(std::size_t i) const {
        request_record r;
        r.t_sched = as_optional(t_sched()[i]);
        r.t_sent = as_optional(t_sent()[i]);
        r.t_first = as_optional(t_first()[i]);
        r.t_end = as_optional(t_end()[i]);
        r.prompt_tokens = as_optional(prompt_tokens()[i]);
        r.output_tokens = as_optional(output_tokens()[i]);
        r.max_tokens = as_optional(max_tokens()[i]);
        r.status = status_[i];
        if (http_status_[i] != 0) r.http_status = http_status_[i];
        r.error = std::string(error(i));
        if (!server_queue_.empty()) r.server_queue = as_optional(server_queue_[i]);
        if (!server_prefill_.empty()) r.server_prefill = as_optional(server_prefill_[i]);
        if (!server_decode_.empty()) r.server_decode = as_optional(server_decode_[i]);
        if (!server_ttft_.empty()) r.server_ttft = as_optional(server_ttft_[i]);
        if (!server_itl_.empty()) r.server_itl = as_optional(server_itl_[i]);
        if (!server_spec_acceptance_.empty()) r.server_spec_acceptance = as_optional(server_spec_acceptance_[i]);
        if (!server_draft_acceptance_.empty()) r.server_draft_acceptance = as_optional(server_draft_acceptance_[i]);
        if (!prompt_tokens_original_.empty())
            r.prompt_tokens_original = as_optional(prompt_tokens_original_[i]);
        if (!trimmed_.empty() && trimmed_[i] >= 0) r.trimmed = trimmed_[i] == 1;
        if (!connect_time_.empty()) r.connect_time = as_optional(connect_time_[i]);
        if (!tls_time_.empty()) r.tls_time = as_optional(tls_time_[i]);
        if (!cached_tokens_.empty()) r.cached_tokens = as_optional(cached_tokens_[i]);
        if (!turn_.empty()) r.turn = as_optional(turn_[i]);
        if (!cacheable_tokens_.empty()) r.cacheable_tokens = as_optional(cacheable_tokens_[i]);
        const auto gaps = itl(i);
        r.itl.assign(gaps.begin(), gaps.end());
        return r;
    }

    // Columns. Optional columns are empty when no request in the run carries the field.
    time_column t_sched() const noexcept { return time_view(t_sched_, sched_us_); }
    time_column t_sent() const noexcept {
        return in_micros_ ? time_column::of_micros(sent_us_.data(), size()) : time_column::of_seconds(t_sent_.data(), size());
    }
    time_column t_first() const noexcept { return time_view(t_first_, first_us_); }
    time_column t_end() const noexcept { return time_view(t_end_, end_us_); }
    // Bytes the table holds (capacity, not size: what it costs), string texts left out.
    std::size_t memory_bytes() const noexcept {
        std::size_t total = 0;
        const auto add = [&](const auto& column) { total += column.capacity() * sizeof(column[0]); };
        add(sent_us_); add(sched_us_); add(first_us_); add(end_us_);
        add(t_sched_); add(t_sent_); add(t_first_); add(t_end_);
        add(status_); add(http_status_); add(error_rows_); add(error_ids_);
        add(server_queue_); add(server_prefill_); add(server_decode_);
        add(server_ttft_); add(server_itl_); add(server_spec_acceptance_); add(server_draft_acceptance_);
        add(prompt_tokens_original_); add(trimmed_); add(itl_values_); add(itl_offsets_);
        add(connect_time_); add(tls_time_); add(cached_tokens_); add(turn_); add(cacheable_tokens_);
        return total + prompt_tokens_.memory_bytes() + output_tokens_.memory_bytes() + max_tokens_.memory_bytes();
    }

    // Whether the times are held as whole microseconds (each read back bit for bit as parsed).
    bool times_in_micros() const noexcept { return in_micros_; }
    count_column prompt_tokens() const noexcept { return prompt_tokens_.view(); }
    count_column output_tokens() const noexcept { return output_tokens_.view(); }
    count_column max_tokens() const noexcept { return max_tokens_.view(); }
    std::span<const request_status> status() const noexcept { return status_; }
    std::span<const std::int16_t> http_status() const noexcept { return http_status_; }
    std::span<const double> server_queue() const noexcept { return server_queue_; }
    std::span<const double> server_prefill() const noexcept { return server_prefill_; }
    std::span<const double> server_decode() const noexcept { return server_decode_; }
    std::span<const double> server_ttft() const noexcept { return server_ttft_; }
    std::span<const double> server_itl() const noexcept { return server_itl_; }
    std::span<const double> server_spec_acceptance() const noexcept { return server_spec_acceptance_; }
    std::span<const double> server_draft_acceptance() const noexcept { return server_draft_acceptance_; }
    std::span<const std::int32_t> prompt_tokens_original() const noexcept { return prompt_tokens_original_; }
    std::span<const double> connect_time() const noexcept { return connect_time_; }
    std::span<const double> tls_time() const noexcept { return tls_time_; }
    std::span<const std::int32_t> cached_tokens() const noexcept { return cached_tokens_; }
    std::span<const std::int32_t> turn() const noexcept { return turn_; }
    std::span<const std::int32_t> cacheable_tokens() const noexcept { return cacheable_tokens_; }
    bool has_itl() const noexcept { return !itl_offsets_.empty(); }

    std::string_view error(std::size_t i) const { return errors_.at(error_id(i)); }
    string_pool::id error_id(std::size_t i) const {
        const auto at = std::lower_bound(error_rows_.begin(), error_rows_.end(), i);
        return at != error_rows_.end() && *at == i ? error_ids_[static_cast<std::size_t>(at - error_rows_.begin())]
                                                    : string_pool::none;
    }
    const string_pool& error_strings() const noexcept { return errors_; }

    // Error texts that are not valid UTF-8 rewritten (each bad byte becomes U+FFFD); true if any was.
    bool make_error_texts_valid() {
        std::vector<string_pool::id> renamed(errors_.size());
        bool any = false;
        for (string_pool::id i = 1; i < errors_.size(); ++i) any = any || !is_valid_utf8(errors_.at(i));
        if (!any) return false;
        string_pool valid;
        for (string_pool::id i = 1; i < errors_.size(); ++i) renamed[i] = valid.intern(to_valid_utf8(errors_.at(i)));
        for (auto& id : error_ids_) id = renamed[id];
        errors_ = std::move(valid);
        return true;
    }

    std::span<const double> itl(std::size_t i) const {
        if (itl_offsets_.empty()) return {};
        return std::span<const double>(itl_values_).subspan(
            itl_offsets_[i], itl_offsets_[i + 1] - itl_offsets_[i]);
    }
    std::span<const double> all_itl() const noexcept { return itl_values_; }

private:
    time_column time_view(const std::vector<double>& seconds, const std::vector<std::int32_t>& offsets) const noexcept {
        return in_micros_ ? time_column::of_offsets(offsets.data(), sent_us_.data(), size())
                          : time_column::of_seconds(seconds.data(), size());
    }

    // Whole microseconds that read back as exactly `t` (see seconds_of_micros), if there are.
    static std::optional<std::int64_t> as_micros(double t) noexcept {
        constexpr double limit = 9007199254740992.0; // 2^53: larger counts are not exact doubles
        const double scaled = t * detail::micros_per_second;
        if (!(std::fabs(scaled) < limit)) return std::nullopt;
        // llround, without a call into libm per time: truncate, then step to the nearer whole
        // number (scaled - m is exact below 2^53).
        std::int64_t m = static_cast<std::int64_t>(scaled);
        if (scaled - static_cast<double>(m) >= 0.5) ++m;
        else if (static_cast<double>(m) - scaled >= 0.5) --m;
        if (std::bit_cast<std::uint64_t>(detail::seconds_of_micros(m)) != std::bit_cast<std::uint64_t>(t)) return std::nullopt;
        return m;
    }
    static std::optional<std::int32_t> as_offset(const std::optional<double>& t, std::int64_t base) noexcept {
        if (!t) return detail::absent_offset;
        const auto m = as_micros(*t);
        if (!m) return std::nullopt;
        const std::int64_t offset = *m - base;
        if (offset <= detail::absent_offset || offset > std::numeric_limits<std::int32_t>::max()) return std::nullopt;
        return static_cast<std::int32_t>(offset);
    }

    // Stores the times of `r` as microseconds; false (nothing stored) if one of them is not whole.
    bool push_micros(const request_record& r) {
        std::int64_t sent = detail::absent_micros;
        if (r.t_sent) {
            const auto m = as_micros(*r.t_sent);
            if (!m) return false;
            sent = *m;
        }
        const std::int64_t base = sent == detail::absent_micros ? 0 : sent;
        const auto sched = as_offset(r.t_sched, base), first = as_offset(r.t_first, base), end = as_offset(r.t_end, base);
        if (!sched || !first || !end) return false;
        sent_us_.push_back(sent);
        sched_us_.push_back(*sched);
        first_us_.push_back(*first);
        end_us_.push_back(*end);
        return true;
    }
    void push_seconds(const request_record& r) {
        store_in_seconds();
        t_sched_.push_back(r.t_sched.value_or(absent_time));
        t_sent_.push_back(r.t_sent.value_or(absent_time));
        t_first_.push_back(r.t_first.value_or(absent_time));
        t_end_.push_back(r.t_end.value_or(absent_time));
    }
    // From the first time that is not whole microseconds on, the table holds doubles.
    void store_in_seconds() {
        if (!in_micros_) return;
        const auto decode = [&](time_column column, std::vector<double>& out) {
            out.reserve(std::max(sent_us_.capacity(), column.size()));
            out.assign(column.begin(), column.end());
        };
        decode(t_sched(), t_sched_);
        decode(t_first(), t_first_);
        decode(t_end(), t_end_);
        decode(t_sent(), t_sent_);
        in_micros_ = false;
        sent_us_ = {}; sched_us_ = {}; first_us_ = {}; end_us_ = {};
    }
    static std::int8_t to_tristate(std::optional<bool> b) noexcept {
        return b ? static_cast<std::int8_t>(*b) : std::int8_t{-1};
    }
    static std::optional<double> as_optional(double t) noexcept {
        return is_present(t) ? std::optional<double>(t) : std::nullopt;
    }
    static std::optional<std::int32_t> as_optional(std::int32_t c) noexcept {
        return is_present(c) ? std::optional<std::int32_t>(c) : std::nullopt;
    }

    // An optional column springs into existence (backfilled with `absent`) at its first value, so
    // runs that never report e.g. server timings pay nothing for them.
    template <class T, class V>
    static void push_optional(std::vector<T>& column, std::size_t row, const V& value, T absent) {
        const bool has = [&] {
            if constexpr (std::is_same_v<V, std::int8_t>) return value >= 0;
            else return value.has_value();
        }();
        if (column.empty() && !has) return;
        if (column.empty()) column.assign(row, absent);
        if constexpr (std::is_same_v<V, std::int8_t>) column.push_back(value);
        else column.push_back(has ? static_cast<T>(*value) : absent);
    }

    template <class T>
    static void append_column(std::vector<T>& column, std::vector<T>& more) {
        column.reserve(column.size() + more.size());
        column.insert(column.end(), more.begin(), more.end());
        more = {};
    }

    // `rows` rows here, `more_rows` there; either side may not have the column yet.
    template <class T>
    static void append_optional(std::vector<T>& column, std::size_t rows, const std::vector<T>& more,
                                std::size_t more_rows, T absent) {
        if (column.empty() && more.empty()) return;
        if (column.empty()) column.assign(rows, absent);
        if (more.empty()) column.insert(column.end(), more_rows, absent);
        else column.insert(column.end(), more.begin(), more.end());
    }

    void append_itl(std::size_t rows, std::size_t more_rows, const request_table& other) {
        if (other.itl_offsets_.empty() && itl_offsets_.empty()) return;
        if (itl_offsets_.empty()) itl_offsets_.assign(rows + 1, 0);
        const std::size_t base = itl_values_.size();
        itl_values_.insert(itl_values_.end(), other.itl_values_.begin(), other.itl_values_.end());
        if (other.itl_offsets_.empty()) itl_offsets_.insert(itl_offsets_.end(), more_rows, base);
        else
            for (std::size_t i = 1; i < other.itl_offsets_.size(); ++i) itl_offsets_.push_back(base + other.itl_offsets_[i]);
    }

    void push_itl(std::size_t row, const std::vector<double>& gaps) {
        if (itl_offsets_.empty() && gaps.empty()) return;
        if (itl_offsets_.empty()) itl_offsets_.assign(row + 1, 0);
        itl_values_.insert(itl_values_.end(), gaps.begin(), gaps.end());
        itl_offsets_.push_back(itl_values_.size());
    }

    bool in_micros_ = true;
    std::vector<std::int64_t> sent_us_;                    // while in_micros_
    std::vector<std::int32_t> sched_us_, first_us_, end_us_; // after t_sent (after 0 without one)
    std::vector<double> t_sched_, t_sent_, t_first_, t_end_; // once not

    detail::count_store prompt_tokens_, output_tokens_, max_tokens_;
    std::vector<request_status> status_;
    std::vector<std::int16_t> http_status_;
    std::vector<std::size_t> error_rows_; // the rows with an error text, ascending ...
    std::vector<string_pool::id> error_ids_; // ... and the text of each
    string_pool errors_;
    std::vector<double> server_queue_, server_prefill_, server_decode_, server_ttft_, server_itl_;
    // Not times, but doubles with NaN for absent as the times have: readers refuse NaN in them too.
    std::vector<double> server_spec_acceptance_, server_draft_acceptance_;
    std::vector<std::int32_t> prompt_tokens_original_;
    std::vector<std::int8_t> trimmed_;
    std::vector<double> connect_time_, tls_time_;
    std::vector<std::int32_t> cached_tokens_, turn_, cacheable_tokens_;
    std::vector<double> itl_values_;
    std::vector<std::size_t> itl_offsets_; // size() + 1 entries once any request has gaps
};

} // namespace servestat
