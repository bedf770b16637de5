// A file under the system temp directory that the test writes and that is removed afterwards.
#pragma once

#include <atomic>     // std::atomic
#include <filesystem> // std::filesystem
#include <fstream>    // std::ofstream
#include <string>     // std::string
#include <string_view> // std::string_view
#include <unistd.h>   // getpid

namespace servestat::test {

class temp_file {
public:
    explicit temp_file(std::string_view content, std::string_view name = "log.jsonl") {
        static std::atomic<int> counter{0};
        dir_ = std::filesystem::temp_directory_path() /
               ("servestat-test-" + std::to_string(getpid()) + "-" + std::to_string(counter++));
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
