// The plain data the charts draw: named samples, named point series, tables of bars, labels.
#pragma once

#include <string> // std::string
#include <vector> // std::vector

namespace servestat::plot {

struct named_values {
    std::string name;
    std::vector<double> values;
};

struct named_points {
    std::string name;
    std::vector<double> x, y;
};

// values[series][category]; a missing or non-finite cell is drawn as nothing.
struct bar_table {
    std::vector<std::string> categories;
    std::vector<std::string> series;
    std::vector<std::vector<double>> values;
};

// How tick labels and tooltips show numbers: seconds as "250 ms" / "1.5 s", or plain.
enum class axis_unit { from_label, plain, seconds };

// Axis labels carry their unit, e.g. "end-to-end latency (s)"; with the default `from_label` an
// axis whose label ends in "(s)" is in seconds, any other is plain.
struct chart_labels {
    std::string title;
    std::string x_label;
    std::string y_label;
    axis_unit x_unit = axis_unit::from_label;
    axis_unit y_unit = axis_unit::from_label;
};

} // namespace servestat::plot
