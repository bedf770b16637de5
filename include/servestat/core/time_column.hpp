// A read-only view of one time column of a request table, whichever way the table stores it: as
// doubles, or as whole microseconds (how servestat's own logs and most drivers write times), which
// take 8 bytes for t_sent and 4 for each other time of a request instead of 8 each.
#pragma once

#include <bit>      // std::bit_cast
#include <compare>  // operator<=>
#include <cstddef>  // std::size_t, std::ptrdiff_t
#include <cstdint>  // std::int32_t, std::int64_t
#include <iterator> // std::random_access_iterator_tag
#include <limits>   // std::numeric_limits

namespace servestat {

namespace detail {

inline constexpr std::int64_t absent_micros = std::numeric_limits<std::int64_t>::min();
inline constexpr std::int32_t absent_offset = std::numeric_limits<std::int32_t>::min();
inline constexpr double micros_per_second = 1e6;

// m / 1e6 is one correctly rounded division of two exact doubles (|m| < 2^53), so it is the double
// that parsing the decimal text of m microseconds gives: a time stored this way reads back bit for
// bit. request_table checks that for every value before storing it so.
inline double seconds_of_micros(std::int64_t m) noexcept { return static_cast<double>(m) / micros_per_second; }

} // namespace detail

class time_column {
public:
    // Times stored as doubles (NaN: absent).
    static time_column of_seconds(const double* values, std::size_t size) noexcept {
        return time_column(values, nullptr, nullptr, size);
    }
    // Times stored as microseconds (absent_micros: absent).
    static time_column of_micros(const std::int64_t* micros, std::size_t size) noexcept {
        return time_column(nullptr, micros, nullptr, size);
    }
    // Times stored as microseconds after each row's `base` (0 where the base is absent).
    static time_column of_offsets(const std::int32_t* offsets, const std::int64_t* base, std::size_t size) noexcept {
        return time_column(nullptr, base, offsets, size);
    }

    std::size_t size() const noexcept { return size_; }
    bool empty() const noexcept { return size_ == 0; }

    [[gnu::always_inline]] double operator[](std::size_t i) const noexcept {
        if (seconds_) return seconds_[i];
        const auto m = micros(i);
        return m == detail::absent_micros ? absent() : detail::seconds_of_micros(m);
    }

    // A number that orders and equals times as the times do (NaN when absent), cheaper than the
    // time: microseconds are not divided into seconds. m / 1e6 is strictly increasing in m below
    // 2^53, so sorting or comparing keys of one table is sorting or comparing its times.
    [[gnu::always_inline]] double order_key(std::size_t i) const noexcept {
        if (seconds_) return seconds_[i];
        const auto m = micros(i);
        return m == detail::absent_micros ? absent() : static_cast<double>(m);
    }
    // An integer that orders and equals present times as the times do, for loops whose compares
    // are on a chain of dependent steps: no conversion to double. Microseconds as they are; a double
    // by its bits, negative ones flipped (and -0 made +0, which it equals). Not for absent times.
    [[gnu::always_inline]] std::int64_t order_bits(std::size_t i) const noexcept {
        if (!seconds_) return micros(i);
        const auto bits = std::bit_cast<std::int64_t>(seconds_[i] + 0.0);
        return bits >= 0 ? bits : bits ^ std::numeric_limits<std::int64_t>::max();
    }
    double front() const noexcept { return (*this)[0]; }
    double back() const noexcept { return (*this)[size_ - 1]; }

    class iterator;
    iterator begin() const noexcept;
    iterator end() const noexcept;

private:
    [[gnu::always_inline]] std::int64_t micros(std::size_t i) const noexcept {
        const std::int64_t base = micros_[i];
        if (!offsets_) return base;
        const std::int32_t offset = offsets_[i];
        if (offset == detail::absent_offset) return detail::absent_micros;
        return (base == detail::absent_micros ? 0 : base) + offset;
    }

    time_column(const double* seconds, const std::int64_t* micros, const std::int32_t* offsets, std::size_t size) noexcept
        : seconds_(seconds), micros_(micros), offsets_(offsets), size_(size) {}
    static double absent() noexcept { return std::numeric_limits<double>::quiet_NaN(); }

    const double* seconds_;
    const std::int64_t* micros_;
    const std::int32_t* offsets_;
    std::size_t size_;
};

class time_column::iterator {
public:
    using iterator_category = std::random_access_iterator_tag;
    using value_type = double;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = double;

    iterator() = default;
    iterator(const time_column& column, std::size_t i) : column_(column), i_(i) {}
    double operator*() const noexcept { return column_[i_]; }
    double operator[](difference_type k) const noexcept { return column_[i_ + static_cast<std::size_t>(k)]; }
    iterator& operator++() noexcept { ++i_; return *this; }
    iterator operator++(int) noexcept { auto before = *this; ++i_; return before; }
    iterator& operator--() noexcept { --i_; return *this; }
    iterator operator--(int) noexcept { auto before = *this; --i_; return before; }
    iterator& operator+=(difference_type k) noexcept { i_ += static_cast<std::size_t>(k); return *this; }
    iterator& operator-=(difference_type k) noexcept { i_ -= static_cast<std::size_t>(k); return *this; }
    friend iterator operator+(iterator it, difference_type k) noexcept { return it += k; }
    friend iterator operator+(difference_type k, iterator it) noexcept { return it += k; }
    friend iterator operator-(iterator it, difference_type k) noexcept { return it -= k; }
    friend difference_type operator-(const iterator& a, const iterator& b) noexcept {
        return static_cast<difference_type>(a.i_) - static_cast<difference_type>(b.i_);
    }
    friend bool operator==(const iterator& a, const iterator& b) noexcept { return a.i_ == b.i_; }
    friend auto operator<=>(const iterator& a, const iterator& b) noexcept { return a.i_ <=> b.i_; }

private:
    time_column column_ = time_column::of_seconds(nullptr, 0); // a copy: an iterator outlives the column it came from
    std::size_t i_ = 0;
};

inline time_column::iterator time_column::begin() const noexcept { return {*this, 0}; }
inline time_column::iterator time_column::end() const noexcept { return {*this, size_}; }

} // namespace servestat
