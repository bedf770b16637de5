// One load-test run: its metadata and its requests.
#pragma once

#include <cstddef> // std::size_t
#include <string>  // std::string
#include <vector>  // std::vector

#include <nlohmann/json.hpp> // nlohmann::json

#include "servestat/core/request_table.hpp" // request_table

namespace servestat {

struct run_source {
    std::string path;
    std::string format; // reader name, e.g. "servestat", "notebook-csv"
};

struct run_metadata {
    std::string label;
    std::string started_at; // ISO 8601 as the log gave it; empty when unknown
    std::string model;
    std::string workload;
    std::string tool;
    nlohmann::json params = nlohmann::json::object(); // sorted keys: output order is stable
    run_source source;
    // False when the source has per-request durations but no shared clock (e.g. the notebook's
    // latency_s table): then duration, rates and concurrency cannot be derived and stay null.
    bool shared_clock = true;
};

// Lines a reader skipped under --skip-bad, with the first few reasons kept for the user.
struct skipped_lines {
    std::size_t count = 0;
    std::vector<std::string> examples;
    static constexpr std::size_t max_examples = 5;

    void add(std::string message) {
        ++count;
        if (examples.size() < max_examples) examples.push_back(std::move(message));
    }
};

struct run {
    run_metadata meta;
    request_table requests;
    skipped_lines skipped;
};

} // namespace servestat
