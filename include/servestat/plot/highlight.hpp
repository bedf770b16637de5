// Which series of a chart get a palette colour. While they fit the eight colours every series has its
// own; with more (16 concurrency levels, a month of nightly runs) a ninth colour would repeat one,
// so a few series are coloured and the rest drawn thin and light grey underneath, with one legend
// entry naming how many they are. The caller names the series to colour, or the chart picks the
// first, the last and evenly spaced ones between.
#pragma once

#include <algorithm> // std::sort, std::unique, std::min
#include <cmath>     // std::lround
#include <cstddef>   // std::size_t
#include <optional>  // std::optional, std::nullopt
#include <span>      // std::span
#include <string>    // std::string
#include <vector>    // std::vector

#include <fmt/format.h> // fmt::format

#include "servestat/plot/svg.hpp" // palette_size, series_colour, other_colour

namespace servestat::plot {

// How many series a chart colours on its own choice when they outnumber the palette: few enough to
// tell apart at a glance.
inline constexpr std::size_t most_picked_series = 6;

// The series a chart with `count` series colours when the caller names none: all of them when they
// fit the palette, else the first, the last and evenly spaced ones between, most_picked_series in all
// (rounded to the nearest index, so the picks are the same on every machine).
inline std::vector<std::size_t> picked_series(std::size_t count) {
    std::vector<std::size_t> out;
    if (count <= palette_size) {
        for (std::size_t i = 0; i < count; ++i) out.push_back(i);
        return out;
    }
    const std::size_t k = most_picked_series;
    for (std::size_t j = 0; j < k; ++j)
        out.push_back(static_cast<std::size_t>(
            std::lround(static_cast<double>(j) * static_cast<double>(count - 1) / static_cast<double>(k - 1))));
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

// Each series' palette index, or nullopt for grey. `requested` names the series to colour (indices
// past `count` ignored, at most palette_size of them, the lowest kept); empty lets the chart pick.
// Colours go to the coloured series in their order, so the first coloured series is always blue.
inline std::vector<std::optional<std::size_t>> palette_slots(std::size_t count, std::span<const std::size_t> requested) {
    std::vector<std::size_t> chosen;
    for (std::size_t i : requested)
        if (i < count) chosen.push_back(i);
    std::sort(chosen.begin(), chosen.end());
    chosen.erase(std::unique(chosen.begin(), chosen.end()), chosen.end());
    if (chosen.size() > palette_size) chosen.resize(palette_size);
    if (chosen.empty()) chosen = picked_series(count);
    std::vector<std::optional<std::size_t>> out(count);
    for (std::size_t rank = 0; rank < chosen.size(); ++rank) out[chosen[rank]] = rank;
    return out;
}

namespace detail {

// A chart's series as drawn: coloured or grey.
struct series_look {
    std::optional<std::size_t> slot; // palette index; none: grey
    bool coloured() const noexcept { return slot.has_value(); }
    std::string colour() const { return slot ? series_colour(*slot) : other_colour; }
};

inline std::vector<series_look> series_looks(std::size_t count, std::span<const std::size_t> requested) {
    std::vector<series_look> out;
    for (const auto& slot : palette_slots(count, requested)) out.push_back({slot});
    return out;
}

inline std::size_t grey_count(const std::vector<series_look>& looks) {
    return static_cast<std::size_t>(std::count_if(looks.begin(), looks.end(), [](const series_look& l) { return !l.coloured(); }));
}

// The legend's one entry for all grey series: "10 other series (grey)", or with the caller's noun
// ("10 other levels (grey)").
inline std::string others_legend_name(std::size_t grey, const std::string& others_name) {
    return fmt::format("{} {} (grey)", grey, others_name.empty() ? std::string("other series") : others_name);
}

} // namespace detail

} // namespace servestat::plot
