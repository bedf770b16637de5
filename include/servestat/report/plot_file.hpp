// A rendered plot as the report refers to it: a file under plots/ and the SVG it holds.
#pragma once

#include <string> // std::string

namespace servestat::report {

struct plot_file {
    std::string name; // file name under plots/, e.g. "mix-90-10-c16-e2e-ecdf.svg"
    std::string title;
    std::string svg;
};

} // namespace servestat::report
