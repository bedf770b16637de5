// What watches a run while it goes: the failure guard, the precision target, the /metrics sampler and
// the client's self-measurement each see every completed request, may ask the driver to stop sending,
// add to the live progress line, and write what they found into the log header's `run.end` once the
// run is over (log-format.md#run-end).
#pragma once

#include <optional> // std::optional
#include <string>   // std::string

#include <nlohmann/json.hpp> // nlohmann::ordered_json

#include "servestat/load/client.hpp"     // steady
#include "servestat/load/log_writer.hpp" // request_result

namespace servestat::load {

// Why the driver should send nothing more. `kind` is a word the log header and the sweep manifest keep
// ("server_gone", "error_rate", "precise"); `reason` is the sentence the user reads.
struct stop_request {
    std::string kind;
    std::string reason;
};

class run_observer {
public:
    virtual ~run_observer() = default;
    // The run's clock starts (t = 0 of every logged time).
    virtual void started(steady::time_point /*run_start*/) {}
    // A request completed (any status); a stop_request ends sending, what is in flight still completes.
    virtual std::optional<stop_request> observe(const request_result& /*r*/) { return std::nullopt; }
    // Text added to the live progress line; empty adds nothing.
    virtual std::string progress() const { return {}; }
    // The run is over (every request logged): add what this observer found to the header's run.end.
    virtual void finished(nlohmann::ordered_json& /*end*/) {}
    // Text added to the run's summary line on stderr, read after finished(); empty adds nothing.
    virtual std::string summary() const { return {}; }
};

} // namespace servestat::load
