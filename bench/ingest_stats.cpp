// Benchmark: ingest + full stats of a large canonical log, in process, split into the two phases.
//   bench_ingest_stats generate FILE N   writes an N-request log (seeded, ~200 bytes a request)
//   bench_ingest_stats stream N          writes the same log to standard output, holding only the
//                                        requests in flight (for logs larger than memory)
//   bench_ingest_stats run FILE          reads it and computes every metric, subset and percentile
#include <servestat/servestat.hpp>

#include <functional> // std::greater
#include <queue>    // std::priority_queue
#include <chrono>   // std::chrono::steady_clock
#include <cstdio>   // std::printf, std::fprintf
#include <cstdlib>  // std::strtoull
#include <fstream>  // std::ofstream
#include <random>   // std::mt19937_64, distributions
#include <string>   // std::string
#include <utility>  // std::pair
#include <vector>   // std::vector

#include <fmt/format.h>     // fmt::format_to
#include <sys/resource.h>   // getrusage

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

long peak_rss_kib() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_maxrss;
}

// A closed-loop-looking run: half short prompts, a third medium, the rest long; 2 % context overflows.
// Lines are written in completion order, as the load driver writes them.
// Lines are handed to emit in completion order as soon as no later send can end before them (a
// request ends after it is sent, and sends only move forwards), so only the requests in flight are
// held: a log of 2e8 requests streams through a pipe.
template <class Emit>
void generate_lines(std::size_t n, Emit&& emit) {
    std::mt19937_64 rng(12345);
    std::uniform_real_distribution<double> uniform(0, 1);
    std::lognormal_distribution<double> ttft(-1.2, 0.8), decode(0.8, 0.5);
    emit(R"({"servestat":"log","version":1,"run":{"label":"bench-1m","model":"Qwen/Qwen2.5-3B-Instruct",)"
         R"("workload":"mix_50_50","params":{"concurrency":64},"tool":"bench_ingest_stats"}})"
         "\n");
    using pending = std::pair<double, std::string>; // (t_end, line): ties in line order, as a sort would put them
    std::priority_queue<pending, std::vector<pending>, std::greater<>> in_flight;
    fmt::memory_buffer line;
    double clock = 0;
    for (std::size_t i = 0; i < n; ++i) {
        line.clear();
        double t_end = 0;
        clock += 0.0005 + 0.001 * uniform(rng);
        for (; !in_flight.empty() && in_flight.top().first < clock; in_flight.pop()) emit(in_flight.top().second);
        const double u = uniform(rng);
        const int prompt = u < 0.5 ? 8 + static_cast<int>(16 * uniform(rng))
                         : u < 0.83 ? 128 + static_cast<int>(128 * uniform(rng))
                                    : 2048 + static_cast<int>(2048 * uniform(rng));
        const double t_sent = clock + 0.01 * uniform(rng);
        if (uniform(rng) < 0.02) {
            fmt::format_to(std::back_inserter(line),
                           R"({{"id":"{}","t_sched":{:.6f},"t_sent":{:.6f},"t_end":{:.6f},"prompt_tokens":{},)"
                           R"("output_tokens":0,"max_tokens":128,"status":"error","http_status":400,)"
                           R"("error":"This model's maximum context length is 4096 tokens"}})",
                           i, clock, t_sent, t_end = t_sent + 0.002, prompt);
        } else {
            const double first = t_sent + ttft(rng);
            fmt::format_to(std::back_inserter(line),
                           R"({{"id":"{}","t_sched":{:.6f},"t_sent":{:.6f},"t_first":{:.6f},"t_end":{:.6f},)"
                           R"("prompt_tokens":{},"output_tokens":{},"max_tokens":128,"status":"ok","http_status":200}})",
                           i, clock, t_sent, first, t_end = first + decode(rng), prompt,
                           1 + static_cast<int>(127 * uniform(rng)));
        }
        line.push_back('\n');
        in_flight.emplace(t_end, fmt::to_string(line));
    }
    for (; !in_flight.empty(); in_flight.pop()) emit(in_flight.top().second);
}

int generate(const std::string& path, std::size_t n) {
    std::ofstream out(path, std::ios::binary);
    generate_lines(n, [&](const std::string& text) { out << text; });
    return out ? 0 : 1;
}

int stream(std::size_t n) {
    generate_lines(n, [](const std::string& text) { std::fwrite(text.data(), 1, text.size(), stdout); });
    return std::fflush(stdout) == 0 ? 0 : 1;
}

int run(const std::string& path) {
    const auto start = std::chrono::steady_clock::now();
    auto runs = servestat::read_runs(path);
    const double ingest = seconds_since(start);
    const auto stats = servestat::analyze(runs.front());
    const double total = seconds_since(start);
    const auto n = stats.requests;
    const long rss = peak_rss_kib();
    std::printf("requests %zu\ningest_s %.3f\nstats_s %.3f\ntotal_s %.3f\nrequests_per_s %.0f\n"
                "peak_rss_mib %.1f\nbytes_per_request %.1f\n",
                n, ingest, total - ingest, total, static_cast<double>(n) / total, rss / 1024.0,
                rss * 1024.0 / static_cast<double>(n));
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "generate" && argc == 4) return generate(argv[2], std::strtoull(argv[3], nullptr, 10));
    if (mode == "stream" && argc == 3) return stream(std::strtoull(argv[2], nullptr, 10));
    if (mode == "run" && argc == 3) return run(argv[2]);
    std::fprintf(stderr, "usage: bench_ingest_stats generate FILE N | stream N | run FILE\n");
    return 2;
}
