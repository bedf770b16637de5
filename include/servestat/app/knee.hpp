// `servestat knee` as both front ends make it: Kneedle (kneed 0.8.x semantics) on two columns of a
// CSV file (or, from Python, two arrays), with its options, and the result as text or JSON.
#pragma once

#include <cmath>    // std::isnan, std::isfinite
#include <cstddef>  // std::size_t
#include <optional> // std::optional
#include <string>   // std::string
#include <vector>   // std::vector

#include <fmt/format.h>      // fmt::format
#include <nlohmann/json.hpp> // nlohmann::ordered_json

#include "servestat/core/errors.hpp"    // input_error
#include "servestat/ingest/csv.hpp"     // detail::csv_reader, detail::csv_row, detail::find_column, detail::quote_cell
#include "servestat/sweep/kneedle.hpp"  // find_knee, kneedle_options, knee_result, parse_knee_curve, validate

namespace servestat::app {

struct knee_args {
    std::string file;
    std::string x_column, y_column; // empty: the first and the second column
    std::string curve, direction;   // empty: detected like kneed's find_shape
    double S = 1.0;
    bool online = false;
    bool all_knees = false; // every knee with its y and normalised coordinates; scans online
    std::string interp = "interp1d";
    int degree = 7;
    bool json = false;
};

// The two columns of the CSV that form the curve.
struct knee_input {
    std::string x_name, y_name;
    std::vector<double> x, y;
    std::size_t skipped = 0; // rows with an empty or NaN cell in either column
};

namespace detail {

inline std::size_t knee_column(const servestat::detail::csv_reader& csv, const std::string& name, std::size_t fallback) {
    const auto& header = csv.header();
    if (!name.empty()) {
        if (auto column = servestat::detail::find_column(header, name)) return *column;
        std::string columns;
        for (const auto& h : header) columns.append(columns.empty() ? "" : ", ").append(h);
        throw input_error(csv.name(), csv.header_line(), name, "no such column; the header has: " + columns);
    }
    if (header.size() < 2)
        throw input_error(csv.name(), csv.header_line(), "",
                          "needs two columns (x and y), the header has " + std::to_string(header.size()));
    return fallback;
}

// Empty and NaN cells (pandas' missing values) leave the row out; infinities are errors.
inline std::optional<double> knee_cell(const servestat::detail::csv_row& row, std::size_t column) {
    const auto value = row.number(column);
    if (!value || std::isnan(*value)) return std::nullopt;
    if (!std::isfinite(*value)) row.fail(column, "not a finite number: " + servestat::detail::quote_cell(row.cell(column)));
    return value;
}

inline std::string knee_number(const std::optional<double>& v) { return v ? fmt::format("{}", *v) : "-"; }

// "1, 4": shortest round-trip form, as the knee line prints numbers.
inline std::string number_list(const std::vector<double>& values) {
    std::string out;
    for (double v : values) out += fmt::format("{}{}", out.empty() ? "" : ", ", v);
    return out;
}

} // namespace detail

inline knee_input read_knee_csv(const std::string& file, const std::string& x_column, const std::string& y_column) {
    servestat::detail::csv_reader csv(file, std::size_t{64} << 20);
    csv.read_header();
    const std::size_t xc = detail::knee_column(csv, x_column, 0);
    const std::size_t yc = detail::knee_column(csv, y_column, 1);
    knee_input in{csv.header()[xc], csv.header()[yc], {}, {}, 0};
    servestat::detail::csv_record record;
    while (csv.next(record)) {
        const servestat::detail::csv_row row(csv.name(), record, csv.header());
        const auto x = detail::knee_cell(row, xc);
        const auto y = detail::knee_cell(row, yc);
        if (!x || !y) {
            ++in.skipped;
            continue;
        }
        in.x.push_back(*x);
        in.y.push_back(*y);
    }
    return in;
}

inline kneedle_options to_kneedle_options(const knee_args& a) {
    kneedle_options o;
    if (!a.curve.empty()) o.curve = parse_knee_curve(a.curve);
    if (!a.direction.empty()) o.direction = parse_knee_direction(a.direction);
    o.S = a.S;
    o.online = a.online || a.all_knees; // kneed collects more than the first knee only online
    o.interp = parse_knee_interp(a.interp);
    o.polynomial_degree = a.degree;
    validate(o); // before reading the file: a bad flag is a usage error whatever the file holds
    return o;
}

inline nlohmann::ordered_json knee_json(const knee_args& a, const knee_input& in, const knee_result& k) {
    using json = nlohmann::ordered_json;
    const auto or_null = [](const std::optional<double>& v) { return v ? json(*v) : json(nullptr); };
    json out;
    out["knee"] = or_null(k.knee);
    out["knee_y"] = or_null(k.knee_y);
    out["norm_knee"] = or_null(k.norm_knee);
    out["norm_knee_y"] = or_null(k.norm_knee_y);
    out["all_knees"] = k.all_knees;
    out["all_knees_y"] = k.all_knees_y;
    out["all_norm_knees"] = k.all_norm_knees;
    out["all_norm_knees_y"] = k.all_norm_knees_y;
    out["curve"] = to_string(k.curve);
    out["direction"] = to_string(k.direction);
    out["S"] = a.S;
    out["interp"] = a.interp;
    out["online"] = a.online || a.all_knees;
    out["degree"] = a.interp == "polynomial" ? json(a.degree) : json(nullptr);
    out["shape_detected"] = a.curve.empty() || a.direction.empty();
    out["x"] = in.x_name;
    out["y"] = in.y_name;
    out["rows"] = in.x.size();
    out["points"] = k.points;
    out["skipped_rows"] = in.skipped;
    return out;
}

inline std::string format_knee(const knee_args& a, const knee_input& in, const knee_result& k) {
    std::string settings = a.curve.empty() || a.direction.empty() ? "detected " : "";
    settings += fmt::format("{}, {}", to_string(k.curve), to_string(k.direction));
    settings += fmt::format("; S={}, {}", a.S, a.interp);
    if (a.interp == "polynomial") settings += fmt::format(" degree {}", a.degree);
    if (a.online || a.all_knees) settings += ", online";
    std::string out = k.knee ? fmt::format("knee x={} y={} ({})\n", *k.knee, detail::knee_number(k.knee_y), settings)
                             : fmt::format("no knee ({})\n", settings);
    if ((a.online || a.all_knees) && !k.all_knees.empty()) out += "all knees: x=" + detail::number_list(k.all_knees) + "\n";
    if (a.all_knees && !k.all_knees.empty()) {
        out += "  all_knees_y: " + detail::number_list(k.all_knees_y) + "\n";
        out += "  all_norm_knees: " + detail::number_list(k.all_norm_knees) + "\n";
        out += "  all_norm_knees_y: " + detail::number_list(k.all_norm_knees_y) + "\n";
    }
    out += fmt::format("  curve: {} vs {}, {} points", in.y_name, in.x_name, k.points);
    if (k.points != in.x.size()) out += fmt::format(" ({} rows; repeated x averaged)", in.x.size());
    out += "\n";
    if (in.skipped > 0) out += fmt::format("  note: {} row(s) without a value in {} or {} left out\n", in.skipped, in.x_name, in.y_name);
    if (k.points < 3) out += "  note: Kneedle needs at least 3 distinct x values\n";
    if (a.curve.empty() || a.direction.empty())
        out += "  note: the shape was guessed like kneed's find_shape; give --curve and --direction to be sure\n";
    return out;
}

} // namespace servestat::app
