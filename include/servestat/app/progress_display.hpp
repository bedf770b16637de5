// The progress line on standard error: a thread that samples a progress_state (core/progress.hpp)
// a few times a second and redraws one line ("\r", the text, ESC[K), only when standard error is a
// terminal and --quiet was not given, and only once the work has run SERVESTAT_PROGRESS_AFTER
// seconds (default 0.5: a short command prints nothing). The line is cleared when the work ends,
// before anything goes to standard output, and before every message that write_stderr writes, so
// warnings are never mangled. Standard output and files are never touched.
#pragma once

#include <algorithm>          // std::max, std::min
#include <chrono>             // std::chrono
#include <cmath>              // std::ceil
#include <condition_variable> // std::condition_variable
#include <cstdint>            // std::uint64_t
#include <cstdio>             // std::fwrite, std::fflush, stderr
#include <cstdlib>            // std::getenv, std::strtod
#include <deque>              // std::deque
#include <iterator>           // std::size
#include <mutex>              // std::mutex, std::lock_guard, std::unique_lock
#include <optional>           // std::optional
#include <string>             // std::string
#include <string_view>        // std::string_view
#include <thread>             // std::thread
#include <utility>            // std::pair
#include <vector>             // std::vector

#include <fmt/format.h> // fmt::format

#include <sys/ioctl.h> // ioctl, TIOCGWINSZ, winsize
#include <unistd.h>    // isatty, STDERR_FILENO

#include "servestat/core/progress.hpp" // progress_state, progress_unit
#include "servestat/core/thousands.hpp" // detail::thousands
#include "servestat/core/utf8.hpp"     // to_valid_utf8, detail::utf8_sequence_length
#include "servestat/core/visible_controls.hpp" // visible_controls, write_terminal

namespace servestat::app {
namespace detail {

using servestat::detail::thousands;

// Whether a progress line is on the terminal now; drawing and write_stderr take turns by the mutex.
struct stderr_line {
    std::mutex mutex;
    bool shown = false;
};

inline stderr_line& progress_line_state() {
    static stderr_line state;
    return state;
}

// 512 B, 12.0 KiB, 3.4 MiB, 1.20 GiB: three significant digits from KiB on.
inline std::string byte_text(double bytes) {
    constexpr const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    std::size_t u = 0;
    while (bytes >= 1024 && u + 1 < std::size(units)) {
        bytes /= 1024;
        ++u;
    }
    if (u == 0) return fmt::format("{:.0f} B", bytes);
    return fmt::format("{:.{}f} {}", bytes, bytes < 10 ? 2 : bytes < 100 ? 1 : 0, units[u]);
}

inline std::string amount_text(std::uint64_t n, progress_unit unit) {
    switch (unit) {
    case progress_unit::bytes: return byte_text(static_cast<double>(n));
    case progress_unit::resamples: return thousands(n) + (n == 1 ? " resample" : " resamples");
    case progress_unit::runs: return thousands(n) + (n == 1 ? " run" : " runs");
    }
    return thousands(n);
}

// "12.0 MiB of 40.0 MiB (30%)", or "12.0 MiB" when the total is unknown.
inline std::string done_of_total(std::uint64_t done, std::uint64_t total, progress_unit unit) {
    if (total == 0) return amount_text(done, unit);
    const double share = std::min(1.0, static_cast<double>(done) / static_cast<double>(total));
    return fmt::format("{} of {} ({:.0f}%)", unit == progress_unit::bytes ? byte_text(static_cast<double>(done)) : thousands(done),
                       amount_text(total, unit), 100 * share);
}

inline std::string rate_text(double per_second, progress_unit unit) {
    switch (unit) {
    case progress_unit::bytes: return byte_text(per_second) + "/s";
    case progress_unit::resamples: return thousands(static_cast<std::uint64_t>(per_second + 0.5)) + " resamples/s";
    case progress_unit::runs: return fmt::format("{:.{}f} runs/s", per_second, per_second < 10 ? 1 : 0);
    }
    return {};
}

// "8 s", "3 min 20 s", "1 h 5 min" (rounded up: a time left never says 0 while work is left).
inline std::string duration_text(double seconds) {
    const auto s = static_cast<std::uint64_t>(std::ceil(std::max(seconds, 0.0)));
    if (s < 60) return fmt::format("{} s", s);
    if (s < 3600) return fmt::format("{} min {} s", s / 60, s % 60);
    return fmt::format("{} h {} min", s / 3600, (s % 3600) / 60);
}

// A name fit for one terminal line: valid UTF-8, control bytes (a newline or ESC in a file name)
// shown as '?', at most `max_chars` characters with the middle left out.
inline std::string terminal_name(std::string_view name, std::size_t max_chars = 48) {
    std::string text = to_valid_utf8(name);
    for (char& c : text)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) c = '?';
    std::vector<std::size_t> starts; // of each character
    for (std::size_t i = 0; i < text.size();) {
        starts.push_back(i);
        const std::size_t n = servestat::detail::utf8_sequence_length(text, i);
        i += n == 0 ? 1 : n;
    }
    if (starts.size() <= max_chars) return text;
    const std::size_t head = (max_chars - 3) / 3, tail = max_chars - 3 - head;
    return text.substr(0, starts[head]) + "..." + text.substr(starts[starts.size() - tail]);
}

// At most `columns` characters of a line (cut between UTF-8 sequences).
inline std::string fit_columns(std::string line, std::size_t columns) {
    std::size_t chars = 0;
    for (std::size_t i = 0; i < line.size(); ++chars) {
        if (chars == columns) return line.substr(0, i);
        const std::size_t n = servestat::detail::utf8_sequence_length(line, i);
        i += n == 0 ? 1 : n;
    }
    return line;
}

inline double seconds_between(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
}

} // namespace detail

// The line for one sample of the state at `now`: the stage's share, rate and time left first (what
// an 80-column terminal must show), then the item in flight (the oldest, or the one that ended last)
// with its share and time left. `rate` is the stage's per second (the display's recent rate); none:
// not known yet. An item that is the whole stage is named without figures of its own.
//   reading 50.0 MiB of 400 MiB (12%), 35.2 MiB/s, 10 s left; logs/a.jsonl 30% of 40.0 MiB, 3 s left
inline std::string progress_line(const progress_state::sample& s, std::optional<double> rate,
                                 std::chrono::steady_clock::time_point now) {
    std::string out = "servestat: " + s.what + " " + detail::done_of_total(s.done, s.total, s.unit);
    if (rate && *rate > 0) {
        out += ", " + detail::rate_text(*rate, s.unit);
        if (s.total > s.done) out += ", " + detail::duration_text(static_cast<double>(s.total - s.done) / *rate) + " left";
    }
    const progress_state::item_sample* item = !s.items.empty() ? &s.items.front() : s.last ? &*s.last : nullptr;
    if (!item) return out;
    out += "; " + detail::terminal_name(item->name);
    if (s.items.size() > 1) out += fmt::format(" (+{} more)", s.items.size() - 1);
    if (s.unit == progress_unit::runs || item->total == 0 || (s.items.size() <= 1 && item->total == s.total)) return out;
    out += fmt::format(" {:.0f}% of {}", 100 * std::min(1.0, static_cast<double>(item->done) / static_cast<double>(item->total)),
                       detail::amount_text(item->total, s.unit));
    const double elapsed = detail::seconds_between(item->began, now);
    if (item->total > item->done && item->done > 0 && elapsed > 0)
        out += ", " + detail::duration_text(static_cast<double>(item->total - item->done) * elapsed /
                                            static_cast<double>(item->done)) + " left";
    return out;
}

// When the line may first be drawn: SERVESTAT_PROGRESS_AFTER seconds (e.g. 0 in tests), else 0.5 s.
inline std::chrono::milliseconds progress_delay() {
    if (const char* text = std::getenv("SERVESTAT_PROGRESS_AFTER")) {
        char* end = nullptr;
        const double seconds = std::strtod(text, &end);
        if (end != text && *end == '\0' && seconds >= 0 && seconds < 86400)
            return std::chrono::milliseconds(static_cast<long long>(seconds * 1000));
    }
    return std::chrono::milliseconds(500);
}

// Whether a command shows progress: standard error is a terminal and --quiet was not given.
inline bool progress_wanted(bool quiet) { return !quiet && ::isatty(STDERR_FILENO) == 1; }

// A message line for standard error (a warning, a note): the progress line is cleared first and
// drawn again at the next refresh. What every command of the application layer writes to stderr
// while work is under way goes through here.
inline void write_stderr(std::string_view text) {
    auto& line = detail::progress_line_state();
    std::lock_guard lock(line.mutex);
    if (line.shown) {
        std::fputs("\r\x1b[K", stderr);
        line.shown = false;
    }
    write_terminal(stderr, text);
    std::fflush(stderr);
}

// The display of one command's progress. Disabled (progress_wanted false), it starts no thread and
// state() is null, so the library counts nothing. Enabled, its thread waits progress_delay(), then
// redraws every `every`; stop() (or the destructor) ends it and clears the line.
class progress_display {
public:
    explicit progress_display(bool enabled, std::chrono::milliseconds every = std::chrono::milliseconds(200))
        : enabled_(enabled), every_(every), after_(progress_delay()), started_(std::chrono::steady_clock::now()) {
        if (enabled_) thread_ = std::thread([this] { run(); });
    }
    progress_display(const progress_display&) = delete;
    progress_display& operator=(const progress_display&) = delete;
    ~progress_display() { stop(); }

    // What to hand the library: the state, or null when nothing is shown.
    progress_state* state() noexcept { return enabled_ ? &state_ : nullptr; }

    // Ends the display: once the delay has passed the line is drawn a last time with the final
    // counts, then cleared. Call it before writing to standard output.
    void stop() {
        {
            std::lock_guard lock(mutex_);
            if (stopping_) return;
            stopping_ = true;
        }
        wake_.notify_all();
        if (thread_.joinable()) thread_.join();
        if (!enabled_) return;
        const auto now = std::chrono::steady_clock::now();
        if (now - started_ >= after_) draw(now, true);
        auto& line = detail::progress_line_state();
        std::lock_guard lock(line.mutex);
        if (line.shown) {
            std::fputs("\r\x1b[K", stderr);
            std::fflush(stderr);
            line.shown = false;
        }
    }

private:
    void run() {
        std::unique_lock lock(mutex_);
        if (wake_.wait_until(lock, started_ + after_, [&] { return stopping_; })) return;
        while (!stopping_) {
            lock.unlock();
            draw(std::chrono::steady_clock::now(), false);
            lock.lock();
            wake_.wait_for(lock, every_, [&] { return stopping_; });
        }
    }

    // The stage's rate over the last few seconds of samples, or since it began when the samples
    // span too little (and always for the last frame: the whole stage's rate).
    std::optional<double> rate_of(const progress_state::sample& s, std::chrono::steady_clock::time_point now, bool last) {
        if (s.stage != stage_) {
            stage_ = s.stage;
            recent_.clear();
        }
        recent_.emplace_back(now, s.done);
        while (recent_.size() > 2 && detail::seconds_between(recent_.front().first, now) > window_seconds) recent_.pop_front();
        const double span = detail::seconds_between(recent_.front().first, now);
        if (!last && span >= 1) return static_cast<double>(s.done - recent_.front().second) / span;
        const double since = detail::seconds_between(s.began, now);
        if (since <= 0 || s.done == 0) return std::nullopt;
        return static_cast<double>(s.done) / since;
    }

    void draw(std::chrono::steady_clock::time_point now, bool last) {
        const progress_state::sample s = state_.read();
        if (s.stage == 0) return; // no work counted yet
        const auto rate = rate_of(s, now, last);
        const std::string line = detail::fit_columns(progress_line(s, rate, now), columns() - 1);
        auto& shown = detail::progress_line_state();
        std::lock_guard lock(shown.mutex);
        std::string frame = "\r" + visible_controls(line) + "\x1b[K";
        std::fwrite(frame.data(), 1, frame.size(), stderr);
        std::fflush(stderr);
        shown.shown = true;
    }

    static std::size_t columns() {
        winsize size{};
        if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col >= 20) return size.ws_col;
        return 80;
    }

    static constexpr double window_seconds = 5;
    progress_state state_;
    bool enabled_;
    std::chrono::milliseconds every_, after_;
    std::chrono::steady_clock::time_point started_;
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stopping_ = false;
    std::thread thread_;
    std::uint64_t stage_ = 0; // of the samples in recent_ (the drawing thread's, then stop()'s)
    std::deque<std::pair<std::chrono::steady_clock::time_point, std::uint64_t>> recent_;
};

} // namespace servestat::app
