// Sweeps of the load driver: the points of a sweep and a server grid, the manifest that lets an
// interrupted sweep resume, and the server process restarted per configuration.
#pragma once

#include <algorithm>   // std::all_of
#include <cctype>      // std::isalnum
#include <cerrno>      // errno
#include <chrono>      // std::chrono
#include <csignal>     // ::kill, SIGTERM, SIGKILL
#include <cstdint>     // std::int32_t
#include <cstring>     // std::strerror
#include <deque>       // std::deque
#include <filesystem>  // std::filesystem
#include <fstream>     // std::ifstream, std::ofstream
#include <string>      // std::string
#include <string_view> // std::string_view
#include <thread>      // std::this_thread::sleep_for
#include <utility>     // std::pair
#include <vector>      // std::vector

#include <fcntl.h>    // ::open
#include <signal.h>   // sigset_t, sigfillset, sigemptyset
#include <spawn.h>    // ::posix_spawn and its attributes
#include <sys/wait.h> // ::waitpid
#include <unistd.h>   // ::close, environ

#include <fmt/format.h>      // fmt::format
#include <nlohmann/json.hpp> // nlohmann::ordered_json

#include "servestat/core/errors.hpp" // usage_error, input_error, error

namespace servestat::load {

// "key=v1,v2,v3": one swept or grid dimension. Values that read as JSON numbers or booleans are
// recorded as such in the logs' params ("16" becomes 16), others as strings.
struct dimension {
    std::string key;
    std::vector<nlohmann::ordered_json> values;
};

inline nlohmann::ordered_json parameter_value(std::string_view text) {
    auto j = nlohmann::ordered_json::parse(text, nullptr, false);
    if (j.is_discarded() || j.is_object() || j.is_array() || j.is_null()) return std::string(text);
    return j;
}

inline dimension parse_dimension(std::string_view text, std::string_view option) {
    const auto eq = text.find('=');
    if (eq == std::string_view::npos || eq == 0 || eq + 1 == text.size())
        throw usage_error(fmt::format("{} {}: expected key=v1,v2,...", option, text));
    dimension d{std::string(text.substr(0, eq)), {}};
    auto rest = text.substr(eq + 1);
    while (true) {
        const auto comma = rest.find(',');
        const auto item = rest.substr(0, comma);
        if (item.empty()) throw usage_error(fmt::format("{} {}: empty value", option, text));
        d.values.push_back(parameter_value(item));
        if (comma == std::string_view::npos) break;
        rest = rest.substr(comma + 1);
    }
    return d;
}

// Every combination of the dimensions' values, the first dimension varying slowest.
inline std::vector<nlohmann::ordered_json> combinations(const std::vector<dimension>& dims) {
    std::vector<nlohmann::ordered_json> out{nlohmann::ordered_json::object()};
    for (const auto& d : dims) {
        std::vector<nlohmann::ordered_json> next;
        for (const auto& partial : out)
            for (const auto& v : d.values) {
                auto c = partial;
                c[d.key] = v;
                next.push_back(std::move(c));
            }
        out = std::move(next);
    }
    return out;
}

inline std::string value_text(const nlohmann::ordered_json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

// "max_num_seqs16-chunkedfalse": a configuration as a file-name part; characters a file name should
// not carry become '_'.
inline std::string configuration_name(const nlohmann::ordered_json& config) {
    std::string out;
    for (const auto& [key, value] : config.items()) {
        if (!out.empty()) out += '-';
        out += key + value_text(value);
    }
    for (auto& c : out)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) c = '_';
    return out;
}

// The server command with {key} replaced by the configuration's values; a placeholder the grid does
// not define is a usage error (a typo would otherwise start the same server every time), naming the
// option that defines them (--grid; a tune space's dimensions come from --space).
inline std::string substitute(std::string_view command, const nlohmann::ordered_json& config,
                              std::string_view defined_by = "--grid") {
    const auto is_name = [](std::string_view key) {
        return !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
        });
    };
    std::string out;
    std::size_t i = 0;
    while (i < command.size()) {
        const auto open = command.find('{', i);
        if (open == std::string_view::npos) break;
        const auto close = command.find('}', open);
        if (close == std::string_view::npos) break;
        const auto key = command.substr(open + 1, close - open - 1);
        // ${HOME} and awk's {print $1} belong to the shell.
        if ((open > 0 && command[open - 1] == '$') || !is_name(key)) {
            out.append(command.substr(i, close + 1 - i));
            i = close + 1;
            continue;
        }
        if (!config.contains(std::string(key)))
            throw usage_error(fmt::format("--server-cmd uses {{{}}}, which no {} defines", key, defined_by));
        out.append(command.substr(i, open - i)).append(value_text(config[std::string(key)]));
        i = close + 1;
    }
    return out.append(command.substr(i));
}

// The manifest of a sweep directory: the settings that define the sweep and each point's outcome.
struct manifest_point {
    std::string label;
    std::string log; // file name within the directory
    nlohmann::ordered_json params;
    std::string status; // "done", "failed", "interrupted", "stopped" (the failure guard) or "not_run" (after a stopped level)
    std::string error;
    std::size_t requests = 0;
    std::size_t ok = 0;
};

struct manifest {
    nlohmann::ordered_json settings;
    std::vector<manifest_point> points;
    // Auto sweeps (--sweep concurrency=auto): per configuration, the levels the planner chose and why
    // its climb and refinement ended (load/auto_sweep.hpp's to_json, with "configuration"). Rebuilt
    // on --resume from the levels' logs, so it is written but not read back.
    nlohmann::ordered_json auto_sweeps = nlohmann::ordered_json::array();

    const manifest_point* find(const std::string& label) const {
        for (const auto& p : points)
            if (p.label == label) return &p;
        return nullptr;
    }
    void record(manifest_point p) {
        for (auto& existing : points)
            if (existing.label == p.label) {
                existing = std::move(p);
                return;
            }
        points.push_back(std::move(p));
    }
};

inline constexpr std::string_view manifest_file_name = "manifest.json";

inline nlohmann::ordered_json to_json(const manifest& m) {
    nlohmann::ordered_json j;
    j["servestat"] = "load-manifest";
    j["version"] = 1;
    j["settings"] = m.settings;
    if (!m.auto_sweeps.empty()) j["auto"] = m.auto_sweeps;
    j["points"] = nlohmann::ordered_json::array();
    for (const auto& p : m.points) {
        nlohmann::ordered_json e{{"label", p.label}, {"log", p.log}, {"params", p.params}, {"status", p.status},
                                 {"requests", p.requests}, {"ok", p.ok}};
        if (!p.error.empty()) e["error"] = p.error;
        j["points"].push_back(std::move(e));
    }
    return j;
}

// Written to a temporary file and renamed, so a sweep killed mid-write leaves the previous manifest.
// Written beside `file` and renamed over it: an interrupt leaves the old manifest or the new one,
// never half of one.
inline void write_manifest_file(const std::filesystem::path& file, const std::string& text) {
    auto temporary = file;
    temporary += ".tmp";
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        out << text;
        if (!out) throw error(fmt::format("{}: cannot write the manifest", temporary.string()));
    }
    std::filesystem::rename(temporary, file);
}

inline void write_manifest(const std::filesystem::path& dir, const manifest& m) {
    write_manifest_file(dir / manifest_file_name, to_json(m).dump(2) + "\n");
}

inline manifest manifest_of(const nlohmann::ordered_json& j, const std::string& name) {
    manifest m;
    m.settings = j.value("settings", nlohmann::ordered_json::object());
    if (!j.contains("points") || !j["points"].is_array()) throw input_error(name, 0, "points", "missing or not an array");
    for (const auto& e : j["points"]) {
        if (!e.is_object() || !e.contains("label") || !e["label"].is_string() || !e.contains("status") ||
            !e["status"].is_string())
            throw input_error(name, 0, "points", "each point needs a label and a status");
        manifest_point p;
        p.label = e["label"].get<std::string>();
        p.log = e.value("log", std::string());
        p.params = e.value("params", nlohmann::ordered_json::object());
        p.status = e["status"].get<std::string>();
        p.error = e.value("error", std::string());
        p.requests = e.value("requests", std::size_t{0});
        p.ok = e.value("ok", std::size_t{0});
        m.points.push_back(std::move(p));
    }
    return m;
}

inline manifest read_manifest(const std::filesystem::path& dir) {
    const auto file = dir / manifest_file_name;
    const std::string name = file.string();
    std::ifstream in(file, std::ios::binary);
    if (!in) throw input_error(name, 0, "", "no manifest to resume from (run the sweep without --resume first)");
    const auto j = nlohmann::ordered_json::parse(in, nullptr, false);
    if (!j.is_object() || !j.contains("servestat") || j["servestat"] != "load-manifest")
        throw input_error(name, 0, "servestat", "not a servestat load manifest");
    try {
        return manifest_of(j, name);
    } catch (const nlohmann::ordered_json::exception& e) { // a field of the wrong type
        throw input_error(name, 0, "points", e.what());
    }
}

// Settings whose values differ between a manifest and this invocation ("seed: 1 -> 2").
inline std::vector<std::string> changed_settings(const nlohmann::ordered_json& before, const nlohmann::ordered_json& now) {
    std::vector<std::string> out;
    for (const auto& [key, value] : now.items()) {
        const auto old = before.contains(key) ? before[key].dump() : std::string("(absent)");
        if (old != value.dump()) out.push_back(fmt::format("{}: {} -> {}", key, old, value.dump()));
    }
    for (const auto& [key, value] : before.items())
        if (!now.contains(key)) out.push_back(fmt::format("{}: {} -> (absent)", key, value.dump()));
    return out;
}

// The last `n` lines of a file (a server's log when it failed to start).
inline std::string tail_lines(const std::filesystem::path& file, std::size_t n) {
    std::ifstream in(file, std::ios::binary);
    std::deque<std::string> lines;
    for (std::string line; std::getline(in, line);) {
        lines.push_back(std::move(line));
        if (lines.size() > n) lines.pop_front();
    }
    std::string out;
    for (const auto& l : lines) out.append("  | ").append(l).append("\n");
    return out;
}

// A server started with /bin/sh -c COMMAND in a process group of its own, output to a log file;
// stopping it signals the whole group, since `vllm serve` forks engine processes.
class server_process {
public:
    server_process(const std::string& command, const std::filesystem::path& log) {
        const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0) throw error(fmt::format("{}: cannot write the server log: {}", log.string(), std::strerror(errno)));
        // posix_spawn, not fork: between fork and exec the child would still run the driver's
        // signal handlers. The child gets default handlers, no blocked signals and a group of its own.
        posix_spawn_file_actions_t files;
        posix_spawnattr_t attributes;
        posix_spawn_file_actions_init(&files);
        posix_spawn_file_actions_addopen(&files, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
        posix_spawn_file_actions_adddup2(&files, fd, STDOUT_FILENO);
        posix_spawn_file_actions_adddup2(&files, fd, STDERR_FILENO);
        posix_spawnattr_init(&attributes);
        sigset_t all, none;
        sigfillset(&all);
        sigemptyset(&none);
        posix_spawnattr_setsigdefault(&attributes, &all);
        posix_spawnattr_setsigmask(&attributes, &none);
        posix_spawnattr_setpgroup(&attributes, 0);
        posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
        const char* argv[] = {"sh", "-c", command.c_str(), nullptr};
        const int failed = ::posix_spawn(&pid_, "/bin/sh", &files, &attributes, const_cast<char* const*>(argv), environ);
        posix_spawn_file_actions_destroy(&files);
        posix_spawnattr_destroy(&attributes);
        ::close(fd);
        if (failed != 0) {
            pid_ = -1;
            throw error(fmt::format("cannot start the server: {}", std::strerror(failed)));
        }
        group_ = pid_;
    }
    server_process(const server_process&) = delete;
    server_process& operator=(const server_process&) = delete;
    ~server_process() { stop(); }

    // False once the process has exited; `exit_status()` then says how.
    bool running() {
        if (pid_ <= 0) return false;
        int status = 0;
        const auto r = ::waitpid(pid_, &status, WNOHANG);
        if (r == pid_) {
            pid_ = 0;
            status_ = status;
            return false;
        }
        return r == 0;
    }

    std::string exit_status() const {
        if (WIFEXITED(status_)) return fmt::format("exited with status {}", WEXITSTATUS(status_));
        if (WIFSIGNALED(status_)) return fmt::format("killed by signal {}", WTERMSIG(status_));
        return "ended";
    }

    // SIGTERM to the group, then SIGKILL after `grace` seconds to whatever of the group is left,
    // the shell's children included when the shell itself has ended.
    void stop(double grace = 15) {
        if (group_ <= 0) return;
        ::kill(-group_, SIGTERM);
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(grace);
        while (group_alive() && std::chrono::steady_clock::now() < deadline)
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        ::kill(-group_, SIGKILL);
        if (pid_ > 0) {
            int status = 0;
            if (::waitpid(pid_, &status, 0) == pid_) status_ = status;
            pid_ = 0;
        }
        group_ = 0;
    }

private:
    // Reaps the shell when it has ended (a zombie still answers kill), then asks whether any process
    // of the group is left.
    bool group_alive() {
        running();
        return ::kill(-group_, 0) == 0;
    }

    pid_t pid_ = -1;
    pid_t group_ = 0;
    int status_ = 0;
};

} // namespace servestat::load
