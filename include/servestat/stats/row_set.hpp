// The rows of a request table that a subset holds: listed one by one, or every row, which is only a
// count (listing each of 10^8 rows of `all` would take 4 bytes a request for nothing).
#pragma once

#include <cstddef> // std::size_t
#include <cstdint> // std::uint32_t
#include <span>    // std::span
#include <utility> // std::move
#include <vector>  // std::vector

namespace servestat {

class row_set {
public:
    row_set() = default;
    row_set(std::vector<std::uint32_t> rows) : listed_(std::move(rows)) {} // NOLINT: a list is a row set
    static row_set every(std::size_t rows) {
        row_set out;
        out.every_ = true;
        out.count_ = rows;
        return out;
    }

    std::size_t size() const noexcept { return every_ ? count_ : listed_.size(); }
    bool empty() const noexcept { return size() == 0; }
    void reserve(std::size_t n) { listed_.reserve(n); }
    void push_back(std::uint32_t row) { listed_.push_back(row); } // to a listed set

    // 0, 1, ... n-1 as a range of rows (not std::views::iota: clang 14 rejects it with libstdc++ 12).
    class every_row {
    public:
        class iterator {
        public:
            explicit iterator(std::uint32_t row) : row_(row) {}
            std::uint32_t operator*() const noexcept { return row_; }
            iterator& operator++() noexcept { ++row_; return *this; }
            bool operator==(const iterator&) const = default;

        private:
            std::uint32_t row_;
        };
        explicit every_row(std::size_t n) : n_(static_cast<std::uint32_t>(n)) {}
        iterator begin() const noexcept { return iterator(0); }
        iterator end() const noexcept { return iterator(n_); }
        std::size_t size() const noexcept { return n_; }

    private:
        std::uint32_t n_;
    };

    // f(rows), rows being a span of the listed rows or every_row: loops over a subset compile once
    // per kind, with no test per row of which kind it is.
    template <class F>
    decltype(auto) visit(F&& f) const {
        if (every_) return f(every_row(count_));
        return f(std::span<const std::uint32_t>(listed_));
    }

private:
    std::vector<std::uint32_t> listed_;
    std::size_t count_ = 0;
    bool every_ = false;
};

} // namespace servestat
