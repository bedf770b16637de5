// Uses the installed headers: the median of three latencies must come out as 0.2 s.
#include <servestat/servestat.hpp>

#include <vector> // std::vector

int main() {
    const std::vector<double> latencies{0.3, 0.1, 0.2};
    const auto s = servestat::summarize(latencies, {.percentiles = {50}});
    return s.percentiles.at(0).value == 0.2 ? 0 : 1;
}
