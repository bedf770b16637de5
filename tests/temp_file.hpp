// Files and folders under the system temp directory that a test writes and that are removed afterwards.
#pragma once

#include <atomic>     // std::atomic
#include <filesystem> // std::filesystem
#include <fstream>    // std::ofstream
#include <string>     // std::string
#include <string_view> // std::string_view
#include <unistd.h>   // getpid

namespace servestat::test {

// A new folder's path under the system temp directory, one of its own for each caller.
inline std::filesystem::path unique_temp_path() {
    static std::atomic<int> counter{0};
    return std::filesystem::temp_directory_path() / ("servestat-test-" + std::to_string(getpid()) + "-" + std::to_string(counter++));
}

// An empty folder the test fills, removed with what it holds afterwards.
struct temp_folder {
    const std::filesystem::path path = unique_temp_path();
    temp_folder() { std::filesystem::create_directories(path); }
    ~temp_folder() {
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
    }
    temp_folder(const temp_folder&) = delete;
    temp_folder& operator=(const temp_folder&) = delete;
};

class temp_file {
public:
    explicit temp_file(std::string_view content, std::string_view name = "log.jsonl") {
        dir_ = unique_temp_path();
        std::filesystem::create_directories(dir_);
        path_ = dir_ / std::string(name);
        std::ofstream(path_, std::ios::binary) << content;
    }
    ~temp_file() {
        std::error_code ec;
        std::filesystem::remove_all(dir_, ec);
    }
    temp_file(const temp_file&) = delete;
    temp_file& operator=(const temp_file&) = delete;

    const std::filesystem::path& path() const noexcept { return path_; }
    std::string str() const { return path_.string(); }
    const std::filesystem::path& dir() const noexcept { return dir_; }

private:
    std::filesystem::path dir_, path_;
};

} // namespace servestat::test
