// Timestamps as ISO 8601 text, for run metadata (started_at) read from Unix times.
#pragma once

#include <chrono>  // std::chrono
#include <cstdint> // std::int64_t
#include <string>  // std::string

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

} // namespace servestat::detail
