// Distributions the driver's options name in one word: a number, uniform:A:B, exponential:MEAN or
// normal:MEAN:SD (turns per session, think time, when a cancelled request is aborted).
#pragma once

#include <algorithm>   // std::max, std::min
#include <cmath>       // std::ceil, std::floor, std::isfinite
#include <cstdint>     // std::int32_t
#include <string>      // std::string, std::stod
#include <string_view> // std::string_view
#include <vector>      // std::vector

#include <fmt/format.h> // fmt::format

#include "servestat/core/errors.hpp" // usage_error
#include "servestat/core/random.hpp" // detail::xoshiro256, uniform_open_closed, standard_exponential, standard_normal

namespace servestat::load {

class distribution {
public:
    enum class kind { constant, uniform, exponential, normal };

    // Parses `text` for the option `option`; a negative value is refused, since every quantity
    // drawn is a count or a duration.
    static distribution parse(std::string_view text, std::string_view option) {
        const auto parts = split(text);
        const auto number = [&](std::size_t i) {
            const std::string s(parts[i]);
            std::size_t used = 0;
            double x = 0;
            try {
                x = std::stod(s, &used);
            } catch (const std::exception&) {
                used = 0;
            }
            if (used != s.size() || s.empty() || !std::isfinite(x) || x < 0)
                throw usage_error(fmt::format("{} {}: '{}' is not a number ≥ 0", option, text, s));
            return x;
        };
        const auto expect = [&](std::size_t n, const char* form) {
            if (parts.size() != n) throw usage_error(fmt::format("{} {}: expected {}", option, text, form));
        };
        distribution d;
        if (parts.size() == 1) {
            d.kind_ = kind::constant;
            d.a_ = number(0);
        } else if (parts[0] == "uniform") {
            expect(3, "uniform:LOW:HIGH");
            d.kind_ = kind::uniform;
            d.a_ = number(1);
            d.b_ = number(2);
            if (d.b_ < d.a_) throw usage_error(fmt::format("{} {}: HIGH is below LOW", option, text));
        } else if (parts[0] == "exponential") {
            expect(2, "exponential:MEAN");
            d.kind_ = kind::exponential;
            d.a_ = number(1);
        } else if (parts[0] == "normal") {
            expect(3, "normal:MEAN:SD");
            d.kind_ = kind::normal;
            d.a_ = number(1);
            d.b_ = number(2);
        } else {
            throw usage_error(fmt::format("{} {}: expected a number, uniform:LOW:HIGH, exponential:MEAN or "
                                          "normal:MEAN:SD",
                                          option, text));
        }
        d.text_ = std::string(text);
        return d;
    }

    static distribution constant(double x) {
        distribution d;
        d.a_ = x;
        d.text_ = fmt::format("{}", x);
        return d;
    }

    // A real number ≥ 0: a normal draw below 0 is taken as 0 (a duration cannot be negative).
    double draw(servestat::detail::xoshiro256& rng) const {
        switch (kind_) {
        case kind::constant: return a_;
        case kind::uniform: return a_ + (b_ - a_) * (1.0 - servestat::detail::uniform_open_closed(rng));
        case kind::exponential: return a_ * servestat::detail::standard_exponential(rng);
        case kind::normal: return std::max(0.0, a_ + b_ * servestat::detail::standard_normal(rng));
        }
        return a_;
    }

    // A whole number ≥ `least`: uniform:2:5 gives 2, 3, 4 or 5 equally often; the others round
    // their real draw to the nearest integer.
    std::int32_t draw_count(servestat::detail::xoshiro256& rng, std::int32_t least) const {
        double x = 0;
        if (kind_ == kind::uniform) {
            const double low = std::ceil(a_), high = std::floor(b_);
            // 1 − u is in [0, 1), so the floor never passes HIGH.
            x = low > high ? low
                           : low + std::floor((high - low + 1) * (1.0 - servestat::detail::uniform_open_closed(rng)));
        } else {
            x = std::floor(draw(rng) + 0.5);
        }
        return std::max(least, static_cast<std::int32_t>(std::min(x, 1e9)));
    }

    // The mean of draw(): what a workload's theoretical figures use.
    double mean() const {
        switch (kind_) {
        case kind::uniform: return (a_ + b_) / 2;
        default: return a_; // a normal truncated at 0 is ~a_ when a_ is several SDs above 0
        }
    }

    const std::string& text() const noexcept { return text_; }

private:
    static std::vector<std::string_view> split(std::string_view text) {
        std::vector<std::string_view> out;
        while (true) {
            const auto colon = text.find(':');
            out.push_back(text.substr(0, colon));
            if (colon == std::string_view::npos) break;
            text.remove_prefix(colon + 1);
        }
        return out;
    }

    kind kind_ = kind::constant;
    double a_ = 0, b_ = 0;
    std::string text_ = "0";
};

} // namespace servestat::load
