// The statistics of one canonical log, read back as `servestat stats` reads it: how an auto sweep
// judges the level it has just run. Declared here for load.cpp and defined in main.cpp, which
// compiles the readers and analyze() for stats and report anyway, so that the driver's translation
// unit does not compile them a second time.
#pragma once

#include <filesystem> // std::filesystem::path

#include <servestat/stats/run_stats.hpp> // run_stats, stats_options

namespace servestat::cli {

run_stats analyze_log(const std::filesystem::path& log, const stats_options& options);

} // namespace servestat::cli
