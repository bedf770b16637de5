// One request as a plain struct: what readers fill in and what request_table::row() gives back.
#pragma once

#include <cstdint>  // std::int32_t
#include <optional> // std::optional
#include <string>   // std::string
#include <vector>   // std::vector

#include "servestat/core/request_status.hpp" // request_status

namespace servestat {

// Times are seconds on the run's clock (0 = run start). Absent values are empty optionals.
// Readers reuse one record per line (clear() keeps the buffers), so filling it does not allocate.
struct request_record {
    std::optional<double> t_sched; // when the load driver intended to send it
    std::optional<double> t_sent;
    std::optional<double> t_first; // first chunk carrying content
    std::optional<double> t_end;
    std::optional<std::int32_t> prompt_tokens;
    std::optional<std::int32_t> output_tokens;
    std::optional<std::int32_t> max_tokens;
    std::optional<std::int32_t> prompt_tokens_original; // before the driver trimmed the prompt
    std::optional<bool> trimmed;
    request_status status = request_status::ok;
    std::optional<std::int32_t> http_status;
    std::string error; // empty when there is none
    std::vector<double> itl; // chunk gaps, seconds
    std::optional<double> server_queue;
    std::optional<double> server_prefill;
    std::optional<double> server_decode;

    void clear() {
        std::string keep_error = std::move(error);
        std::vector<double> keep_itl = std::move(itl);
        *this = request_record{};
        keep_error.clear();
        keep_itl.clear();
        error = std::move(keep_error);
        itl = std::move(keep_itl);
    }
};

} // namespace servestat
