// What `servestat compare` prints without --json: compare.py's table, one block per pair and one
// line per statistic, then the findings, from the comparison's view model.
#pragma once

#include <algorithm> // std::max, std::count_if
#include <cstddef>   // std::size_t
#include <string>    // std::string

#include <fmt/format.h> // fmt::format

#include "servestat/report/stats_json.hpp" // json

namespace servestat::app {

inline std::string compare_table_text(const json& view) {
    std::string out;
    std::size_t index = 0; // view["pairs"] and view["stats"]["pairs"] are both in comparison order
    for (const auto& pair : view["pairs"]) {
        out += fmt::format("{}\n", pair["heading"].get<std::string>());
        for (const char* side : {"before", "after"}) // e.g. the window --steady-state cut each run to
            for (const auto& note : view["stats"]["pairs"][index][side]["notes"])
                out += fmt::format("  {} note: {}\n", side, note.get<std::string>());
        ++index;
        // The change column is as wide as its widest entry (a sketched one carries its bound).
        std::size_t change_width = 22;
        const auto widen = [&](const json& rows) {
            for (const auto& row : rows) {
                const auto& text = row["change"].get_ref<const std::string&>();
                change_width = std::max<std::size_t>(change_width, std::count_if(text.begin(), text.end(), [](char c) {
                                                         return (static_cast<unsigned char>(c) & 0xC0) != 0x80; // code points
                                                     }));
            }
        };
        widen(pair["run_rows"]);
        for (const auto& subset : pair["subsets"]) widen(subset["rows"]);
        out += fmt::format("  {:<24} {:>12} {:>12} {:>{}} {:>20} {:>9}  {}\n", "statistic", "before", "after", "change",
                           change_width, "95% CI", "p", "verdict");
        const auto add_row = [&](const json& row) {
            out += fmt::format("  {:<24} {:>12} {:>12} {:>{}} {:>20} {:>9}  {}\n", row["name"].get<std::string>(),
                               row["before"].get<std::string>(), row["after"].get<std::string>(),
                               row["change"].get<std::string>(), change_width, row["ci"].get<std::string>(),
                               row["p"].get<std::string>(), row["verdict"].get<std::string>());
        };
        for (const auto& row : pair["run_rows"]) add_row(row);
        for (const auto& subset : pair["subsets"])
            for (const auto& row : subset["rows"]) add_row(row);
        out += "\n";
    }
    for (const auto& f : view["findings"]) out += fmt::format("- {}\n", f["text"].get<std::string>());
    return out;
}

} // namespace servestat::app
