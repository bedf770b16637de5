// The report's "How these runs were read" section (templates: how_read.lines): the experiment
// stage's reading as a few lines, right after the summary, so a reader sees how the runs were
// grouped before any number that rests on it.
#pragma once

#include <span> // std::span

#include <nlohmann/json.hpp> // nlohmann::ordered_json

#include "servestat/experiment/design_view.hpp" // design_lines, passed_over_input
#include "servestat/experiment/design.hpp"      // experiment_design

namespace servestat::report {

inline nlohmann::ordered_json design_view(const experiment_design& d, std::span<const passed_over_input> passed_over) {
    nlohmann::ordered_json lines = nlohmann::ordered_json::array();
    for (const auto& l : design_lines(d, passed_over)) lines.push_back({{"heading", l.heading}, {"text", l.text}});
    return {{"lines", std::move(lines)}};
}

} // namespace servestat::report
