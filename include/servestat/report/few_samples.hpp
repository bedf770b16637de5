// The dagger that marks a percentile resting on few samples wherever a report shows one, in tables
// and in sentences, and the footnote that says what it means (the rule: stats/sample_size.hpp).
#pragma once

#include <algorithm> // std::sort, std::unique
#include <cstddef> // std::size_t
#include <optional> // std::optional
#include <string>  // std::string
#include <string_view> // std::string_view
#include <vector>  // std::vector

#include <fmt/format.h> // fmt::format

#include "servestat/core/thousands.hpp"  // detail::thousands
#include "servestat/report/format.hpp"   // format_seconds
#include "servestat/stats/sample_size.hpp" // rests_on_few_samples, samples_for_percentile
#include "servestat/stats/summary.hpp"   // summary, find_percentile, percentile_key

namespace servestat::report {

inline constexpr const char* few_samples_mark = "†";

// "†" when the percentile p of `s` is a number resting on few samples, else "".
inline std::string few_samples_mark_of(const summary* s, double p) {
    if (s == nullptr || !find_percentile(*s, p)) return {};
    return rests_on_few_samples(p, s->n) ? few_samples_mark : "";
}

// The percentile as a sentence quotes it: "2.55 s†" when it rests on few samples.
inline std::string marked_seconds(const summary* s, double p) {
    return format_seconds(s ? find_percentile(*s, p) : std::nullopt) + few_samples_mark_of(s, p);
}

namespace detail {

using servestat::detail::thousands; // the footnote's counts read as numbers of requests

} // namespace detail

// "† rests on few samples: fewer than 10 requests lie beyond that percentile, so the few most extreme
// set it and another run may well give another value (10 lie above a p99 from 1,000 requests on,
// above a p90 from 100, a p50 from 20)." The counts listed are those of `percentiles` (p0 and p100,
// the min and max, need none). Said as counts of requests beyond, because "p99 needs 1,000" was read
// as 1,000 values beyond the p99.
inline std::string few_samples_note(std::vector<double> percentiles) {
    std::sort(percentiles.begin(), percentiles.end());
    percentiles.erase(std::unique(percentiles.begin(), percentiles.end()), percentiles.end());
    std::string from;
    for (double p : percentiles) {
        const std::size_t n = samples_for_percentile(p);
        if (n == 0) continue;
        const char* side = p >= 50 ? "above" : "below";
        from.append(from.empty() ? fmt::format("{:g} lie {} a {} only from {} requests on", values_beyond_percentile, side,
                                               percentile_key(p), detail::thousands(n))
                                 : fmt::format(", {} a {} from {}", side, percentile_key(p), detail::thousands(n)));
    }
    return fmt::format("{} rests on few samples: fewer than {:g} requests lie beyond that percentile, so the few most "
                       "extreme set it and another run may well give another value{}.",
                       few_samples_mark, values_beyond_percentile, from.empty() ? "" : " (" + from + ")");
}

// Whether any text in a view (a table's rows, a list of sentences) carries the dagger: then the
// footnote goes with it. Any nlohmann JSON type.
template <class Json>
bool shows_few_samples(const Json& view) {
    if (view.is_string()) return view.template get_ref<const std::string&>().find(few_samples_mark) != std::string::npos;
    if (view.is_structured())
        for (const auto& item : view)
            if (shows_few_samples(item)) return true;
    return false;
}

} // namespace servestat::report
