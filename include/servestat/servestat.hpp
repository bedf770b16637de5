// Umbrella header: the whole library except the load driver and the simulator (which pull in Beast).
#pragma once

#include "servestat/core/errors.hpp"         // error, input_error, usage_error
#include "servestat/core/natural_order.hpp"  // natural_less
#include "servestat/core/request_record.hpp" // request_record
#include "servestat/core/request_table.hpp"  // request_table
#include "servestat/core/run.hpp"            // run, run_metadata
#include "servestat/core/units.hpp"          // time_unit, to_seconds
#include "servestat/ingest/detect.hpp"       // read_logs, detect_format, builtin_formats
#include "servestat/report/stats_json.hpp"   // stats_document, to_json
#include "servestat/report/summary_file.hpp" // run_summary, read_summary_file, merge
#include "servestat/stats/bounded_analysis.hpp" // analyze_bounded: logs larger than memory
#include "servestat/stats/run_stats.hpp"     // analyze, run_stats
#include "servestat/stats/summary.hpp"       // summarize, summary
#include "servestat/sweep/kneedle.hpp"        // find_knee
#include "servestat/sweep/sweep_analysis.hpp" // find_sweeps, analyze_sweep
