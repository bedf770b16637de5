// The load driver's output: the canonical JSONL log, written as requests complete.
#pragma once

#include <cerrno>      // errno
#include <cmath>       // std::isfinite
#include <cstddef>     // std::size_t
#include <cstdint>     // std::int32_t
#include <cstring>     // std::strerror
#include <filesystem>  // std::filesystem::path
#include <optional>    // std::optional
#include <string>      // std::string
#include <string_view> // std::string_view
#include <vector>      // std::vector

#include <fcntl.h>  // ::open, O_* flags
#include <unistd.h> // ::write, ::read, ::close

#include <fmt/format.h>       // fmt::format_to
#include <nlohmann/json.hpp>  // nlohmann::ordered_json

#include "servestat/core/errors.hpp"         // error
#include "servestat/core/request_status.hpp" // request_status, to_string

namespace servestat::load {

// The chunk gaps a request keeps in `itl`; later ones are only counted (itl_dropped). A million
// (a reply of a million chunks) write 9 to 20 MB of `itl`, well inside the reader's 64 MiB line, and
// hold 8 MB while the request is in flight.
inline constexpr std::size_t default_max_itl_gaps = 1'000'000;

// One request as the driver measured it; times are seconds since the run started.
struct request_result {
    std::string id;
    double t_sched = 0;
    double t_sent = 0;
    std::optional<double> t_first; // the first chunk that carried content
    double t_end = 0;
    std::int32_t prompt_tokens = 0;
    std::int32_t output_tokens = 0;
    std::int32_t max_tokens = 0;
    std::optional<std::int32_t> prompt_tokens_original; // set when budgeting trimmed the prompt
    bool trimmed = false;
    request_status status = request_status::ok;
    int http_status = 0; // 0: no response arrived
    std::string error;
    std::vector<double> itl; // gaps between content chunks after the first, up to the driver's cap
    std::int64_t itl_dropped = 0; // gaps past the cap: counted, not kept
    std::optional<double> server_queue, server_prefill, server_decode;
    std::optional<double> server_ttft, server_itl; // the server's own ttft as one number, its mean itl
    // Speculative decoding as the server reported it: mean acceptance length (≥ 1), acceptance rate (0 to 1).
    std::optional<double> server_spec_acceptance, server_draft_acceptance;
    std::optional<double> connect_time, tls_time;   // on the request that opened its connection
    std::optional<std::int32_t> cached_tokens;       // the server's prompt tokens served from its prefix cache
    std::string session;                             // a multi-turn session's id, empty otherwise
    std::optional<std::int32_t> turn;                // 1 = the session's first request
    std::optional<std::int32_t> cacheable_tokens;    // the most of the prompt a prefix cache could hold
    // Not logged: what a session's next turn is built from.
    std::string reply;       // the reply's text (when asked for)
    std::string response_id; // the Responses API's id of the reply
    // Not logged: the request failed on the driver's own limit (out of file descriptors), so the
    // failure guard does not hold it against the server.
    bool client_limit = false;
};

namespace detail {

// An error text is logged up to this many bytes: a server's message can be as long as a body (64 MiB)
// and escaping can grow it sixfold, and the line must stay inside the reader's 64 MiB.
inline constexpr std::size_t max_logged_error_bytes = std::size_t{1} << 20;

inline std::string logged_error(const std::string& error) {
    if (error.size() <= max_logged_error_bytes) return error;
    return fmt::format("{}... ({} bytes in all)", std::string_view(error).substr(0, max_logged_error_bytes), error.size());
}

inline void append_seconds(std::string& out, std::string_view key, double seconds) {
    fmt::format_to(std::back_inserter(out), R"(,"{}":{:.6f})", key, seconds);
}

inline void append_optional_seconds(std::string& out, std::string_view key, const std::optional<double>& s) {
    if (s && std::isfinite(*s)) append_seconds(out, key, *s);
}

// A number that is not a time (an acceptance length or rate), with the six decimals times have: the
// log has no other style for fractions, and a server's mean over a request's steps needs no more.
inline void append_optional_number(std::string& out, std::string_view key, const std::optional<double>& x) {
    append_optional_seconds(out, key, x);
}

} // namespace detail

// The request's canonical log line, newline included. Microseconds are the resolution: the clock's
// jitter on a loaded machine is larger.
inline std::string log_line(const request_result& r) {
    std::string out = R"({"id":)";
    out.append(nlohmann::json(r.id).dump());
    detail::append_seconds(out, "t_sched", r.t_sched);
    detail::append_seconds(out, "t_sent", r.t_sent);
    detail::append_optional_seconds(out, "t_first", r.t_first);
    detail::append_seconds(out, "t_end", r.t_end);
    fmt::format_to(std::back_inserter(out), R"(,"prompt_tokens":{},"output_tokens":{},"max_tokens":{})",
                   r.prompt_tokens, r.output_tokens, r.max_tokens);
    if (r.trimmed) out.append(R"(,"trimmed":true)");
    if (r.prompt_tokens_original)
        fmt::format_to(std::back_inserter(out), R"(,"prompt_tokens_original":{})", *r.prompt_tokens_original);
    out.append(R"(,"status":")").append(to_string(r.status)).append("\"");
    if (r.http_status != 0) fmt::format_to(std::back_inserter(out), R"(,"http_status":{})", r.http_status);
    if (!r.error.empty())
        out.append(R"(,"error":)").append(nlohmann::json(detail::logged_error(r.error)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    if (!r.itl.empty()) {
        out.append(R"(,"itl":[)");
        for (std::size_t i = 0; i < r.itl.size(); ++i)
            fmt::format_to(std::back_inserter(out), "{}{:.6f}", i == 0 ? "" : ",", r.itl[i]);
        out.append("]");
    }
    // The gaps the stream had when itl holds only the first of them (the driver's cap).
    if (r.itl_dropped > 0)
        fmt::format_to(std::back_inserter(out), R"(,"itl_gaps":{})", static_cast<std::int64_t>(r.itl.size()) + r.itl_dropped);
    detail::append_optional_seconds(out, "server_queue", r.server_queue);
    detail::append_optional_seconds(out, "server_prefill", r.server_prefill);
    detail::append_optional_seconds(out, "server_decode", r.server_decode);
    detail::append_optional_seconds(out, "server_ttft", r.server_ttft);
    detail::append_optional_seconds(out, "server_itl", r.server_itl);
    detail::append_optional_number(out, "server_spec_acceptance", r.server_spec_acceptance);
    detail::append_optional_number(out, "server_draft_acceptance", r.server_draft_acceptance);
    detail::append_optional_seconds(out, "connect_time", r.connect_time);
    detail::append_optional_seconds(out, "tls_time", r.tls_time);
    if (r.cached_tokens) fmt::format_to(std::back_inserter(out), R"(,"cached_tokens":{})", *r.cached_tokens);
    if (!r.session.empty())
        out.append(R"(,"session":)").append(nlohmann::json(r.session).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    if (r.turn) fmt::format_to(std::back_inserter(out), R"(,"turn":{})", *r.turn);
    if (r.cacheable_tokens) fmt::format_to(std::back_inserter(out), R"(,"cacheable_tokens":{})", *r.cacheable_tokens);
    return out.append("}\n");
}

// The header line: {"servestat":"log","version":1,"run":{...}}.
inline std::string header_line(const nlohmann::ordered_json& run) {
    nlohmann::ordered_json header;
    header["servestat"] = "log";
    header["version"] = 1;
    header["run"] = run;
    return header.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace).append("\n");
}

// Appends whole lines with one write(2) each, so a process killed at any instant (kill -9 included)
// leaves every line it finished in the kernel and at most the line being written incomplete; and no
// user-space buffer that a crash would lose.
class log_writer {
public:
    explicit log_writer(std::filesystem::path file) : file_(std::move(file)) {
        fd_ = ::open(file_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
        if (fd_ < 0) throw error(fmt::format("{}: cannot write the log: {}", file_.string(), std::strerror(errno)));
    }
    log_writer(const log_writer&) = delete;
    log_writer& operator=(const log_writer&) = delete;
    ~log_writer() {
        if (fd_ >= 0) ::close(fd_);
    }

    void write(std::string_view line) { write_all(fd_, file_, line); }

    const std::filesystem::path& path() const { return file_; }

    // Replaces line 1 (the header) once the run is over, so that it can say how the run ended
    // (`run.end`). The rest is copied to a file beside the log, which then replaces the log in one
    // rename(2): a process killed at any instant leaves the old log or the new one, both whole.
    void rewrite_header(std::string_view header) {
        const auto tmp = std::filesystem::path(file_).concat(".tmp");
        const int in = ::open(file_.c_str(), O_RDONLY | O_CLOEXEC);
        if (in < 0) throw error(fmt::format("{}: cannot read the log back: {}", file_.string(), std::strerror(errno)));
        const int out = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (out < 0) {
            ::close(in);
            throw error(fmt::format("{}: cannot write: {}", tmp.string(), std::strerror(errno)));
        }
        try {
            write_all(out, tmp, header);
            std::vector<char> buffer(1 << 20);
            bool in_header = true; // the old header's bytes up to its newline are skipped
            for (;;) {
                const auto n = ::read(in, buffer.data(), buffer.size());
                if (n < 0 && errno == EINTR) continue;
                if (n < 0) throw error(fmt::format("{}: reading the log back failed: {}", file_.string(), std::strerror(errno)));
                if (n == 0) break;
                std::string_view chunk(buffer.data(), static_cast<std::size_t>(n));
                if (in_header) {
                    const auto newline = chunk.find('\n');
                    if (newline == std::string_view::npos) continue;
                    chunk.remove_prefix(newline + 1);
                    in_header = false;
                }
                write_all(out, tmp, chunk);
            }
        } catch (...) {
            ::close(in);
            ::close(out);
            std::filesystem::remove(tmp);
            throw;
        }
        ::close(in);
        ::close(out);
        std::filesystem::rename(tmp, file_);
        // Later lines go to the new file.
        ::close(fd_);
        fd_ = ::open(file_.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
        if (fd_ < 0) throw error(fmt::format("{}: cannot write the log: {}", file_.string(), std::strerror(errno)));
    }

private:
    static void write_all(int fd, const std::filesystem::path& file, std::string_view bytes) {
        while (!bytes.empty()) {
            const auto n = ::write(fd, bytes.data(), bytes.size());
            if (n < 0) {
                if (errno == EINTR) continue;
                throw error(fmt::format("{}: writing failed: {}", file.string(), std::strerror(errno)));
            }
            bytes.remove_prefix(static_cast<std::size_t>(n));
        }
    }

    std::filesystem::path file_;
    int fd_ = -1;
};

} // namespace servestat::load
