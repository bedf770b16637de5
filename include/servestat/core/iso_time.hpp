// Timestamps as ISO 8601 text, for run metadata (started_at) read from Unix times, and back, to
// order runs by date.
#pragma once

#include <chrono>      // std::chrono
#include <cstdint>     // std::int64_t
#include <optional>    // std::optional
#include <string>      // std::string
#include <string_view> // std::string_view

#include <fmt/format.h> // fmt::format

namespace servestat::detail {

// Unix times from here on do not fit in int64 nanoseconds (year 2262); a source claiming one is wrong.
inline constexpr double max_unix_seconds = 9.2e9;

// "2023-12-27T00:56:14Z" for 1703638574e9 ns; with `digits` > 0 the fraction of a second to that
// many digits ("…:39.154Z" with 3), truncated, trailing zeros dropped.
inline std::string iso_utc(std::int64_t unix_ns, int digits = 0) {
    using namespace std::chrono;
    const sys_time<nanoseconds> t{nanoseconds{unix_ns}};
    const sys_days day = floor<days>(t);
    const year_month_day date{day};
    const hh_mm_ss time{floor<nanoseconds>(t - day)};
    std::string out = fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}", static_cast<int>(date.year()),
                                  static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()),
                                  time.hours().count(), time.minutes().count(), time.seconds().count());
    if (digits > 0) {
        std::int64_t scale = 1;
        for (int i = digits; i < 9; ++i) scale *= 10;
        std::string fraction = fmt::format("{:0{}}", time.subseconds().count() / scale, digits);
        while (!fraction.empty() && fraction.back() == '0') fraction.pop_back();
        if (!fraction.empty()) out.append(".").append(fraction);
    }
    return out.append("Z");
}

namespace iso_parsing {

// Exactly `width` digits at `at`, advancing past them.
inline std::optional<int> digits(std::string_view text, std::size_t& at, std::size_t width) {
    if (text.size() < at + width) return std::nullopt;
    int value = 0;
    for (std::size_t i = at; i < at + width; ++i) {
        if (text[i] < '0' || text[i] > '9') return std::nullopt;
        value = value * 10 + (text[i] - '0');
    }
    at += width;
    return value;
}

inline bool skip(std::string_view text, std::size_t& at, char c) {
    if (at < text.size() && text[at] == c) return ++at, true;
    return false;
}

} // namespace iso_parsing

// Unix nanoseconds of "2026-01-12T00:41:17Z", "2026-01-12 00:41:17.5+02:00", "2026-01-12T00:41" or
// "2026-01-12"; a time without a zone counts as UTC. Empty for anything else or an impossible date.
inline std::optional<std::int64_t> parse_iso_utc(std::string_view text) {
    using namespace std::chrono;
    using iso_parsing::digits, iso_parsing::skip;
    std::size_t at = 0;
    const auto y = digits(text, at, 4);
    if (!y || !skip(text, at, '-')) return std::nullopt;
    const auto mo = digits(text, at, 2);
    if (!mo || !skip(text, at, '-')) return std::nullopt;
    const auto d = digits(text, at, 2);
    if (!d) return std::nullopt;
    const year_month_day date{year{*y}, month{static_cast<unsigned>(*mo)}, day{static_cast<unsigned>(*d)}};
    if (!date.ok()) return std::nullopt;
    std::int64_t ns = duration_cast<nanoseconds>(sys_days{date}.time_since_epoch()).count();
    if (at == text.size()) return ns;
    if (!skip(text, at, 'T') && !skip(text, at, ' ')) return std::nullopt;
    const auto h = digits(text, at, 2);
    if (!h || *h > 23 || !skip(text, at, ':')) return std::nullopt;
    const auto mi = digits(text, at, 2);
    if (!mi || *mi > 59) return std::nullopt;
    int sec = 0;
    std::int64_t fraction_ns = 0;
    if (skip(text, at, ':')) {
        const auto s = digits(text, at, 2);
        if (!s || *s > 60) return std::nullopt;
        sec = *s;
        if (skip(text, at, '.') || skip(text, at, ',')) {
            std::int64_t scale = 100000000;
            const std::size_t start = at;
            for (; at < text.size() && text[at] >= '0' && text[at] <= '9'; ++at, scale /= 10)
                fraction_ns += (text[at] - '0') * scale;
            if (at == start) return std::nullopt;
        }
    }
    ns += ((*h * 60LL + *mi) * 60 + sec) * 1000000000LL + fraction_ns;
    if (at == text.size() || skip(text, at, 'Z') || skip(text, at, 'z')) return at == text.size() ? std::optional(ns) : std::nullopt;
    const bool ahead = text[at] == '+';
    if (!ahead && text[at] != '-') return std::nullopt;
    ++at;
    const auto zh = digits(text, at, 2);
    skip(text, at, ':');
    const auto zm = digits(text, at, 2);
    if (!zh || !zm || at != text.size() || *zh > 23 || *zm > 59) return std::nullopt;
    const std::int64_t offset = (*zh * 60LL + *zm) * 60 * 1000000000LL;
    return ahead ? ns - offset : ns + offset;
}

} // namespace servestat::detail
