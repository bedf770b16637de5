// Embedding servestat: the summary of a vector of latencies, then the stats of a whole log.
#include <servestat/servestat.hpp>

#include <cstdio>  // std::printf
#include <string>  // std::string
#include <vector>  // std::vector

int main(int argc, char** argv) {
    const std::vector<double> latencies{0.42, 0.38, 1.95, 0.51, 0.47};
    const auto s = servestat::summarize(latencies, {.percentiles = {50, 99}});
    std::printf("latencies: n=%zu mean=%.3f s p99=%.3f s\n", s.n, *s.mean, *s.percentiles[1].value);

    if (argc < 2) return 0;
    const std::vector<std::string> logs(argv + 1, argv + argc);
    servestat::stats_options options;
    options.slos = servestat::parse_slos("ttft=0.5,e2e=10");
    for (const auto& run : servestat::read_logs(logs)) {
        const auto stats = servestat::analyze(run, options);
        const auto* e2e = servestat::find_summary(stats, "all", servestat::metric::e2e);
        std::printf("%s: %zu ok, e2e p99 %.3f s, goodput %zu\n", stats.meta.label.c_str(), stats.ok,
                    *e2e->percentiles.back().value, stats.goodput->good);
    }
}
