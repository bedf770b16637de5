// Interned strings: error messages repeat thousands of times in a failing run, so each distinct
// text is stored once and requests refer to it by a small id.
#pragma once

#include <cstdint>       // std::uint32_t
#include <deque>         // std::deque
#include <string>        // std::string
#include <string_view>   // std::string_view
#include <unordered_map> // std::unordered_map

namespace servestat {

class string_pool {
public:
    using id = std::uint32_t;
    static constexpr id none = 0; // the empty string

    string_pool() { strings_.emplace_back(); }

    id intern(std::string_view s) {
        if (s.empty()) return none;
        if (auto it = index_.find(s); it != index_.end()) return it->second;
        // A deque never moves its elements, so the views used as map keys stay valid.
        const std::string& stored = strings_.emplace_back(s);
        const auto new_id = static_cast<id>(strings_.size() - 1);
        index_.emplace(std::string_view(stored), new_id);
        return new_id;
    }

    std::string_view at(id i) const { return strings_.at(i); }
    std::size_t size() const noexcept { return strings_.size(); }

    string_pool(const string_pool& other) { *this = other; }
    string_pool& operator=(const string_pool& other) {
        if (this == &other) return *this;
        strings_.clear();
        index_.clear();
        strings_.emplace_back();
        for (std::size_t i = 1; i < other.strings_.size(); ++i) intern(other.strings_[i]);
        return *this;
    }
    string_pool(string_pool&&) noexcept = default;
    string_pool& operator=(string_pool&&) noexcept = default;

private:
    std::deque<std::string> strings_;
    std::unordered_map<std::string_view, id> index_;
};

} // namespace servestat
