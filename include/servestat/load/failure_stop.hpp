// Why the failure guard (failure_guard.hpp) stopped a run, as run.end.reason and the manifests keep
// it: apart from the guard, so that what reads a level back (the auto sweep, tune) does not compile
// the driver's client.
#pragma once

#include <string>      // std::string
#include <string_view> // std::string_view

#include <nlohmann/json.hpp> // nlohmann::ordered_json

namespace servestat::load {

// stop_request kinds of the guard, as run.end.reason and the sweep manifest keep them.
inline constexpr std::string_view server_gone_kind = "server_gone";
inline constexpr std::string_view error_rate_kind = "error_rate";

// Whether a run that stopped sending for `kind` stopped because its server was gone or failing
// (the command then exits 4), rather than because it had what it needed.
inline bool is_failure_stop(std::string_view kind) { return kind == server_gone_kind || kind == error_rate_kind; }

// "server_gone: 10 connection failures in a row" when a log header's run.end says the guard stopped
// the run; empty otherwise.
inline std::string failure_stop_of(const nlohmann::ordered_json& run_end) {
    if (!run_end.is_object() || !run_end.contains("reason") || !run_end["reason"].is_string()) return {};
    std::string out = run_end["reason"].get<std::string>();
    if (!is_failure_stop(out)) return {};
    if (run_end.contains("detail") && run_end["detail"].is_string()) out += ": " + run_end["detail"].get<std::string>();
    return out;
}

} // namespace servestat::load
