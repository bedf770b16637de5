// The failure guard: stops a run whose server is gone or failing, instead of firing the rest of the
// run at a dead port (docs/load.md#when-the-driver-stops-early).
#pragma once

#include <cstddef>     // std::size_t
#include <optional>    // std::optional
#include <string>      // std::string
#include <string_view> // std::string_view
#include <vector>      // std::vector

#include <fmt/format.h>      // fmt::format
#include <nlohmann/json.hpp> // nlohmann::ordered_json

#include "servestat/load/failure_stop.hpp" // server_gone_kind, error_rate_kind, is_failure_stop
#include "servestat/load/run_observer.hpp" // run_observer, stop_request

namespace servestat::load {

struct failure_guard_options {
    // Connection failures in a row (status transport) that end the run; 0 = never. 10 by default:
    // a live server under load refuses or resets a connection now and then, and any answer (even an
    // HTTP error) breaks the run of failures, while a dead server fails every request at once, so
    // ten in a row only happen when nothing is listening — and are still ten of a run, not hundreds.
    std::size_t max_connection_failures = 10;
    // Stop when more than this share of the last `error_window` requests failed; unset = never.
    // Judged only once the window is full, so a run's first errors alone never stop it.
    std::optional<double> max_error_rate;
    std::size_t error_window = 50;
    std::string url; // named in the sentence
};

namespace detail {

// The last error of a request in a few words: a transport failure's cause without the "transport: "
// every one of them starts with, an HTTP error's status and message.
inline std::string short_error(const request_result& r) {
    std::string text = r.error;
    if (text.starts_with("transport: ")) text.erase(0, 11);
    if (r.status == request_status::error && r.http_status != 0 && r.http_status != 200)
        text = fmt::format("HTTP {}: {}", r.http_status, text);
    if (text.size() > 160) text = text.substr(0, 157) + "...";
    return text.empty() ? std::string(to_string(r.status)) : text;
}

// "52%", "52.5%": one decimal, none when it is 0.
inline std::string percent(double share) {
    auto text = fmt::format("{:.1f}", share * 100);
    if (text.ends_with(".0")) text.resize(text.size() - 2);
    return text + "%";
}

} // namespace detail

// Trips (a) after `max_connection_failures` transport failures in a row, in the order requests
// complete, and (b) when the share of errors among the last `error_window` requests exceeds
// `max_error_rate`. A request is an error when its status is not ok; cancelled requests (--cancel-rate
// chose them, or the run was being stopped) are the user's doing, and a request that failed on the
// driver's own limit (out of file descriptors) the client's: they count for neither trigger and leave
// both as they were. Any other answer (ok, an HTTP error, a timeout) ends a run of connection
// failures: the server was there to answer. The guard trips once; after that it only reports.
class failure_guard : public run_observer {
public:
    explicit failure_guard(failure_guard_options options) : options_(std::move(options)) {
        if (options_.error_window == 0) options_.error_window = 1;
    }

    std::optional<stop_request> observe(const request_result& r) override {
        if (!tripped_.empty() || r.status == request_status::cancelled || r.client_limit) return std::nullopt;
        last_error_ = r.status == request_status::ok ? last_error_ : detail::short_error(r);
        in_a_row_ = r.status == request_status::transport ? in_a_row_ + 1 : 0;
        push(r.status != request_status::ok);
        if (options_.max_connection_failures > 0 && in_a_row_ >= options_.max_connection_failures) {
            tripped_ = server_gone_kind;
            return stop_request{std::string(server_gone_kind),
                                fmt::format("{} connection failure{} in a row (last: {}); the server at {} looks gone",
                                            in_a_row_, in_a_row_ == 1 ? "" : "s", last_error_, options_.url)};
        }
        if (options_.max_error_rate && window_full() && error_share() > *options_.max_error_rate) {
            tripped_ = error_rate_kind;
            return stop_request{std::string(error_rate_kind),
                                fmt::format("{} of the last {} requests failed ({} > --max-error-rate {}; last: {})",
                                            errors_, options_.error_window, detail::percent(error_share()),
                                            *options_.max_error_rate, last_error_)};
        }
        return std::nullopt;
    }

    std::string progress() const override {
        std::string out;
        if (in_a_row_ > 0) out = fmt::format("{} connection failure{} in a row", in_a_row_, in_a_row_ == 1 ? "" : "s");
        if (options_.max_error_rate && window_full())
            out += fmt::format("{}errors {}/{}", out.empty() ? "" : "; ", errors_, options_.error_window);
        return out;
    }

    // Only a guard that tripped adds to run.end: what it counted when it did.
    void finished(nlohmann::ordered_json& end) override {
        if (tripped_.empty()) return;
        nlohmann::ordered_json g;
        if (tripped_ == server_gone_kind) {
            g["consecutive_connection_failures"] = in_a_row_;
            g["max_connection_failures"] = options_.max_connection_failures;
        } else {
            g["errors"] = errors_;
            g["window"] = options_.error_window;
            g["error_rate"] = error_share();
            g["max_error_rate"] = *options_.max_error_rate;
        }
        g["last_error"] = last_error_;
        end["guard"] = std::move(g);
    }

    std::size_t connection_failures_in_a_row() const { return in_a_row_; }
    // Errors among the last error_window requests (all of them while the window is filling).
    std::size_t window_errors() const { return errors_; }
    std::string_view tripped() const { return tripped_; }

private:
    bool window_full() const { return seen_ >= options_.error_window; }
    double error_share() const { return static_cast<double>(errors_) / static_cast<double>(options_.error_window); }

    // The window as a ring of the last error_window outcomes and the count of errors in it.
    void push(bool error) {
        if (window_.size() < options_.error_window) {
            window_.push_back(error);
        } else {
            const std::size_t at = seen_ % options_.error_window;
            errors_ -= window_[at] ? 1 : 0;
            window_[at] = error;
        }
        errors_ += error ? 1 : 0;
        ++seen_;
    }

    failure_guard_options options_;
    std::size_t in_a_row_ = 0;
    std::vector<bool> window_;
    std::size_t seen_ = 0; // requests pushed into the window, ever
    std::size_t errors_ = 0;
    std::string last_error_;
    std::string_view tripped_; // empty, or the kind it tripped with
};

} // namespace servestat::load
