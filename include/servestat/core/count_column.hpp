// Token counts of a request table: 16 bits a request while every count fits (prompts and outputs
// under 65,535 tokens, which is nearly every log), 32 bits from the first one that does not.
#pragma once

#include <cstddef> // std::size_t
#include <cstdint> // std::int32_t, std::uint16_t
#include <vector>  // std::vector

namespace servestat {

// A read-only view: count i, or -1 where the request has none.
class count_column {
public:
    count_column(const std::uint16_t* narrow, const std::int32_t* wide, std::size_t size) noexcept
        : narrow_(narrow), wide_(wide), size_(size) {}

    static constexpr std::uint16_t absent_narrow = 0xFFFF;

    std::size_t size() const noexcept { return size_; }
    bool empty() const noexcept { return size_ == 0; }
    [[gnu::always_inline]] std::int32_t operator[](std::size_t i) const noexcept {
        if (wide_) return wide_[i];
        return narrow_[i] == absent_narrow ? -1 : static_cast<std::int32_t>(narrow_[i]);
    }

    class iterator;
    iterator begin() const noexcept;
    iterator end() const noexcept;

private:
    const std::uint16_t* narrow_;
    const std::int32_t* wide_;
    std::size_t size_;
};

class count_column::iterator {
public:
    using value_type = std::int32_t;
    using difference_type = std::ptrdiff_t;
    iterator() = default;
    iterator(const count_column& column, std::size_t i) : column_(column), i_(i) {}
    std::int32_t operator*() const noexcept { return column_[i_]; }
    iterator& operator++() noexcept { ++i_; return *this; }
    iterator operator++(int) noexcept { auto before = *this; ++i_; return before; }
    friend bool operator==(const iterator& a, const iterator& b) noexcept { return a.i_ == b.i_; }

private:
    count_column column_{nullptr, nullptr, 0}; // a copy: an iterator outlives the column it came from
    std::size_t i_ = 0;
};

inline count_column::iterator count_column::begin() const noexcept { return {*this, 0}; }
inline count_column::iterator count_column::end() const noexcept { return {*this, size_}; }

namespace detail {

// The storage behind a count_column.
class count_store {
public:
    void reserve(std::size_t n) { wide_mode_ ? wide_.reserve(n) : narrow_.reserve(n); }
    void push_back(std::int32_t count) {
        if (!wide_mode_ && !fits(count)) widen();
        if (wide_mode_) wide_.push_back(count);
        else narrow_.push_back(count < 0 ? count_column::absent_narrow : static_cast<std::uint16_t>(count));
    }
    // Appends `more` and releases its memory.
    void append(count_store&& more) {
        if (wide_mode_ || more.wide_mode_) {
            widen();
            more.widen();
            move_to_end(wide_, more.wide_);
        } else {
            move_to_end(narrow_, more.narrow_);
        }
    }
    std::size_t memory_bytes() const noexcept {
        return narrow_.capacity() * sizeof(std::uint16_t) + wide_.capacity() * sizeof(std::int32_t);
    }
    count_column view() const noexcept {
        return wide_mode_ ? count_column(nullptr, wide_.data(), wide_.size())
                          : count_column(narrow_.data(), nullptr, narrow_.size());
    }

private:
    // -1 (absent) and 0..65534 fit; any other negative number is kept as it is, in 32 bits.
    static bool fits(std::int32_t count) noexcept { return count >= -1 && count < count_column::absent_narrow; }
    void widen() {
        if (wide_mode_) return;
        const auto narrow = view();
        wide_.reserve(narrow_.capacity());
        for (std::size_t i = 0; i < narrow.size(); ++i) wide_.push_back(narrow[i]);
        narrow_ = {};
        wide_mode_ = true;
    }
    template <class T>
    static void move_to_end(std::vector<T>& into, std::vector<T>& more) {
        into.reserve(into.size() + more.size());
        into.insert(into.end(), more.begin(), more.end());
        more = {};
    }

    std::vector<std::uint16_t> narrow_;
    std::vector<std::int32_t> wide_;
    bool wide_mode_ = false;
};

} // namespace detail

} // namespace servestat
