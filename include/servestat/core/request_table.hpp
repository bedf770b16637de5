// The requests of one run stored column by column, so statistics scan contiguous doubles and a
// million-request log costs about 50 bytes a request.
#pragma once

#include <cmath>   // std::isnan
#include <cstddef> // std::size_t
#include <cstdint> // std::int32_t, std::int16_t, std::uint8_t
#include <limits>  // std::numeric_limits
#include <optional> // std::optional
#include <string>  // std::string, std::to_string
#include <span>    // std::span
#include <string_view> // std::string_view
#include <type_traits> // std::is_same_v
#include <vector>  // std::vector

#include "servestat/core/errors.hpp"         // input_error
#include "servestat/core/request_record.hpp" // request_record, time_fault
#include "servestat/core/string_pool.hpp"    // string_pool
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
        t_sched_.reserve(n); t_sent_.reserve(n); t_first_.reserve(n); t_end_.reserve(n);
        prompt_tokens_.reserve(n); output_tokens_.reserve(n); max_tokens_.reserve(n);
        status_.reserve(n); http_status_.reserve(n); error_.reserve(n);
    }

    // Throws input_error (no file: the reader's entry adds it) for a time no statistic can use;
    // readers that know the line check time_fault() first and name it.
    void push_back(const request_record& r) {
        const std::size_t row = size();
        if (auto fault = time_fault(r))
            throw input_error("", 0, std::string(fault->field), "request " + std::to_string(row + 1) + ": " + fault->message);
        t_sched_.push_back(r.t_sched.value_or(absent_time));
        t_sent_.push_back(r.t_sent.value_or(absent_time));
        t_first_.push_back(r.t_first.value_or(absent_time));
        t_end_.push_back(r.t_end.value_or(absent_time));
        prompt_tokens_.push_back(r.prompt_tokens.value_or(absent_count));
        output_tokens_.push_back(r.output_tokens.value_or(absent_count));
        max_tokens_.push_back(r.max_tokens.value_or(absent_count));
        status_.push_back(r.status);
        http_status_.push_back(static_cast<std::int16_t>(r.http_status.value_or(0)));
        error_.push_back(errors_.intern(r.error));
        push_optional(server_queue_, row, r.server_queue, absent_time);
        push_optional(server_prefill_, row, r.server_prefill, absent_time);
        push_optional(server_decode_, row, r.server_decode, absent_time);
        push_optional(prompt_tokens_original_, row, r.prompt_tokens_original, absent_count);
        push_optional(trimmed_, row, to_tristate(r.trimmed), std::int8_t{-1});
        push_itl(row, r.itl);
    }

    // The rows of `other` after these, as if pushed one by one (optional columns backfilled, error
    // texts re-interned): how the pieces of a file read in parallel become one table.
    void append(const request_table& other) {
        const std::size_t rows = size();
        append_column(t_sched_, other.t_sched_);
        append_column(t_sent_, other.t_sent_);
        append_column(t_first_, other.t_first_);
        append_column(t_end_, other.t_end_);
        append_column(prompt_tokens_, other.prompt_tokens_);
        append_column(output_tokens_, other.output_tokens_);
        append_column(max_tokens_, other.max_tokens_);
        append_column(status_, other.status_);
        append_column(http_status_, other.http_status_);
        std::vector<string_pool::id> renamed(other.errors_.size(), string_pool::none);
        for (string_pool::id i = 1; i < other.errors_.size(); ++i) renamed[i] = errors_.intern(other.errors_.at(i));
        error_.reserve(error_.size() + other.error_.size());
        for (auto id : other.error_) error_.push_back(renamed[id]);
        append_optional(server_queue_, rows, other.server_queue_, other.size(), absent_time);
        append_optional(server_prefill_, rows, other.server_prefill_, other.size(), absent_time);
        append_optional(server_decode_, rows, other.server_decode_, other.size(), absent_time);
        append_optional(prompt_tokens_original_, rows, other.prompt_tokens_original_, other.size(), absent_count);
        append_optional(trimmed_, rows, other.trimmed_, other.size(), std::int8_t{-1});
        if (other.itl_offsets_.empty() && itl_offsets_.empty()) return;
        if (itl_offsets_.empty()) itl_offsets_.assign(rows + 1, 0);
        const std::size_t base = itl_values_.size();
        itl_values_.insert(itl_values_.end(), other.itl_values_.begin(), other.itl_values_.end());
        if (other.itl_offsets_.empty()) itl_offsets_.insert(itl_offsets_.end(), other.size(), base);
        else
            for (std::size_t i = 1; i < other.itl_offsets_.size(); ++i) itl_offsets_.push_back(base + other.itl_offsets_[i]);
    }

    request_record row(std::size_t i) const {
        request_record r;
        r.t_sched = as_optional(t_sched_[i]);
        r.t_sent = as_optional(t_sent_[i]);
        r.t_first = as_optional(t_first_[i]);
        r.t_end = as_optional(t_end_[i]);
        r.prompt_tokens = as_optional(prompt_tokens_[i]);
        r.output_tokens = as_optional(output_tokens_[i]);
        r.max_tokens = as_optional(max_tokens_[i]);
        r.status = status_[i];
        if (http_status_[i] != 0) r.http_status = http_status_[i];
        r.error = std::string(error(i));
        if (!server_queue_.empty()) r.server_queue = as_optional(server_queue_[i]);
        if (!server_prefill_.empty()) r.server_prefill = as_optional(server_prefill_[i]);
        if (!server_decode_.empty()) r.server_decode = as_optional(server_decode_[i]);
        if (!prompt_tokens_original_.empty())
            r.prompt_tokens_original = as_optional(prompt_tokens_original_[i]);
        if (!trimmed_.empty() && trimmed_[i] >= 0) r.trimmed = trimmed_[i] == 1;
        const auto gaps = itl(i);
        r.itl.assign(gaps.begin(), gaps.end());
        return r;
    }

    // Columns. Optional columns are empty when no request in the run carries the field.
    std::span<const double> t_sched() const noexcept { return t_sched_; }
    std::span<const double> t_sent() const noexcept { return t_sent_; }
    std::span<const double> t_first() const noexcept { return t_first_; }
    std::span<const double> t_end() const noexcept { return t_end_; }
    std::span<const std::int32_t> prompt_tokens() const noexcept { return prompt_tokens_; }
    std::span<const std::int32_t> output_tokens() const noexcept { return output_tokens_; }
    std::span<const std::int32_t> max_tokens() const noexcept { return max_tokens_; }
    std::span<const request_status> status() const noexcept { return status_; }
    std::span<const std::int16_t> http_status() const noexcept { return http_status_; }
    std::span<const double> server_queue() const noexcept { return server_queue_; }
    std::span<const double> server_prefill() const noexcept { return server_prefill_; }
    std::span<const double> server_decode() const noexcept { return server_decode_; }
    std::span<const std::int32_t> prompt_tokens_original() const noexcept { return prompt_tokens_original_; }
    bool has_itl() const noexcept { return !itl_offsets_.empty(); }

    std::string_view error(std::size_t i) const { return errors_.at(error_[i]); }
    string_pool::id error_id(std::size_t i) const { return error_[i]; }
    const string_pool& error_strings() const noexcept { return errors_; }

    // Error texts that are not valid UTF-8 rewritten (each bad byte becomes U+FFFD); true if any was.
    bool make_error_texts_valid() {
        std::vector<string_pool::id> renamed(errors_.size());
        bool any = false;
        for (string_pool::id i = 1; i < errors_.size(); ++i) any = any || !is_valid_utf8(errors_.at(i));
        if (!any) return false;
        string_pool valid;
        for (string_pool::id i = 1; i < errors_.size(); ++i) renamed[i] = valid.intern(to_valid_utf8(errors_.at(i)));
        for (auto& id : error_) id = renamed[id];
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
    static void append_column(std::vector<T>& column, const std::vector<T>& more) {
        column.insert(column.end(), more.begin(), more.end());
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

    void push_itl(std::size_t row, const std::vector<double>& gaps) {
        if (itl_offsets_.empty() && gaps.empty()) return;
        if (itl_offsets_.empty()) itl_offsets_.assign(row + 1, 0);
        itl_values_.insert(itl_values_.end(), gaps.begin(), gaps.end());
        itl_offsets_.push_back(itl_values_.size());
    }

    std::vector<double> t_sched_, t_sent_, t_first_, t_end_;
    std::vector<std::int32_t> prompt_tokens_, output_tokens_, max_tokens_;
    std::vector<request_status> status_;
    std::vector<std::int16_t> http_status_;
    std::vector<string_pool::id> error_;
    string_pool errors_;
    std::vector<double> server_queue_, server_prefill_, server_decode_;
    std::vector<std::int32_t> prompt_tokens_original_;
    std::vector<std::int8_t> trimmed_;
    std::vector<double> itl_values_;
    std::vector<std::size_t> itl_offsets_; // size() + 1 entries once any request has gaps
};

} // namespace servestat
