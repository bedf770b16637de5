// Timestamps as ISO 8601 text, for run metadata (started_at) read from Unix times, and back, to
// order runs by date.
#pragma once

#include <chrono>      // std::chrono
#include <compare>     // operator<=>
#include <cstdint>     // std::int64_t, std::int32_t
#include <limits>      // std::numeric_limits
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

// A UTC instant of any year 0000–9999: whole seconds since 1970 and the nanoseconds past them.
// Nanoseconds since 1970 in an int64 end in 2262 and start in 1677; past those a date would wrap
// round and sort before its predecessors.
struct utc_time {
    std::int64_t seconds = 0;
    std::int32_t nanoseconds = 0; // 0 ≤ nanoseconds < 1e9

    auto operator<=>(const utc_time&) const = default;
    // Seconds from `earlier` to this (exact to about a microsecond over a century).
    double seconds_since(const utc_time& earlier) const {
        return static_cast<double>(seconds - earlier.seconds) + (nanoseconds - earlier.nanoseconds) * 1e-9;
    }
};

// "2026-01-12T00:41:17Z", "2026-01-12 00:41:17.5+02:00", "2026-01-12T00:41" or "2026-01-12" as a
// UTC instant; a time without a zone counts as UTC. Empty for anything else or an impossible date.
inline std::optional<utc_time> parse_utc_time(std::string_view text) {
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
    std::int64_t seconds = std::int64_t{sys_days{date}.time_since_epoch().count()} * 86400;
    if (at == text.size()) return utc_time{seconds, 0};
    if (!skip(text, at, 'T') && !skip(text, at, ' ')) return std::nullopt;
    const auto h = digits(text, at, 2);
    if (!h || *h > 23 || !skip(text, at, ':')) return std::nullopt;
    const auto mi = digits(text, at, 2);
    if (!mi || *mi > 59) return std::nullopt;
    int sec = 0;
    std::int32_t fraction_ns = 0;
    if (skip(text, at, ':')) {
        const auto s = digits(text, at, 2);
        if (!s || *s > 60) return std::nullopt;
        sec = *s;
        if (skip(text, at, '.') || skip(text, at, ',')) {
            std::int32_t scale = 100000000;
            const std::size_t start = at;
            for (; at < text.size() && text[at] >= '0' && text[at] <= '9'; ++at, scale /= 10)
                fraction_ns += (text[at] - '0') * scale;
            if (at == start) return std::nullopt;
        }
    }
    seconds += (*h * 60LL + *mi) * 60 + sec;
    if (at == text.size() || skip(text, at, 'Z') || skip(text, at, 'z'))
        return at == text.size() ? std::optional(utc_time{seconds, fraction_ns}) : std::nullopt;
    const bool ahead = text[at] == '+';
    if (!ahead && text[at] != '-') return std::nullopt;
    ++at;
    const auto zh = digits(text, at, 2);
    skip(text, at, ':');
    const auto zm = digits(text, at, 2);
    if (!zh || !zm || at != text.size() || *zh > 23 || *zm > 59) return std::nullopt;
    const std::int64_t offset = (*zh * 60LL + *zm) * 60;
    return utc_time{ahead ? seconds - offset : seconds + offset, fraction_ns};
}

// Unix nanoseconds of the same texts; empty also for dates outside 1678–2261, which int64
// nanoseconds cannot hold (use parse_utc_time for those).
inline std::optional<std::int64_t> parse_iso_utc(std::string_view text) {
    const auto t = parse_utc_time(text);
    constexpr std::int64_t limit = std::numeric_limits<std::int64_t>::max() / 1000000000 - 1;
    if (!t || t->seconds > limit || t->seconds < -limit) return std::nullopt;
    return t->seconds * 1000000000 + t->nanoseconds;
}

// "2300-01-01T00:00:00Z" for any year 0000–9999.
inline std::string iso_utc(const utc_time& t) {
    using namespace std::chrono;
    const sys_days day{days{t.seconds >= 0 ? t.seconds / 86400 : -((-t.seconds + 86399) / 86400)}};
    const std::int64_t in_day = t.seconds - std::int64_t{day.time_since_epoch().count()} * 86400;
    const year_month_day date{day};
    return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z", static_cast<int>(date.year()),
                       static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()), in_day / 3600,
                       in_day / 60 % 60, in_day % 60);
}

} // namespace servestat::detail
