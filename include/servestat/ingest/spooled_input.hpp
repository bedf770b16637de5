// An input that can be read only once — a pipe given by name (`<(zcat log.jsonl.gz)`, a FIFO) —
// copied once into a private temporary file, so that format detection and the reader each read it
// from its first byte. Read in place, the bytes the detection took would be gone for the reader: a
// valid log failed as "malformed JSON at column 1", or with --skip-bad lost its first 64 KiB of
// records without a word (reliability finding H1).
#pragma once

#include <cerrno>       // errno
#include <cstdio>       // std::FILE, std::fopen, std::fread, std::fwrite
#include <cstdlib>      // mkdtemp
#include <filesystem>   // std::filesystem
#include <functional>   // std::function
#include <string>       // std::string
#include <system_error> // std::error_code

#include <fcntl.h>  // open, fcntl, O_NONBLOCK
#include <poll.h>   // poll, pollfd
#include <unistd.h> // close

#include "servestat/core/errors.hpp"       // input_error
#include "servestat/ingest/input_file.hpp" // detail::reason_text, detail::unreadable_file

namespace servestat::detail {

// A pipe holding more than this is not copied: save it to a file (a pipe that never ends, such as
// `<(yes)`, must not fill the disk).
inline constexpr std::uintmax_t max_spooled_bytes = std::uintmax_t{4} << 30;

// Whether `status` is a file that gives its bytes once (a pipe, a socket), as opposed to a regular
// file or a folder. Devices are refused before: /dev/zero never ends.
inline bool read_once(const std::filesystem::file_status& status) {
    using std::filesystem::file_type;
    return status.type() == file_type::fifo || status.type() == file_type::socket;
}

// The copy of one such input, under the input's own file name (so a reader that names a run by its
// file names it as before), removed with its folder when this goes.
class spooled_input {
public:
    // `warn` is told once when a named pipe has had no writer for a second, so that a run that waits
    // on a FIFO nobody writes says what it waits for instead of hanging without a word (L3).
    explicit spooled_input(const std::filesystem::path& input,
                           const std::function<void(const std::string&)>& warn = [](const std::string&) {})
        : original_(input) {
        namespace fs = std::filesystem;
        std::error_code ec;
        std::string folder = (fs::temp_directory_path(ec) / "servestat-pipe-XXXXXX").string();
        if (ec || ::mkdtemp(folder.data()) == nullptr)
            throw input_error(input.string(), 0, "", "a pipe, and no temporary folder to copy it into: " +
                                                         reason_text({errno, std::generic_category()}));
        folder_ = folder;
        copy_ = folder_ / (input.filename().empty() ? fs::path("input") : input.filename());
        copy_bytes(warn);
    }
    spooled_input(const spooled_input&) = delete;
    spooled_input& operator=(const spooled_input&) = delete;
    ~spooled_input() {
        std::error_code ec;
        std::filesystem::remove_all(folder_, ec);
    }

    const std::filesystem::path& copy() const noexcept { return copy_; }
    const std::filesystem::path& original() const noexcept { return original_; }

private:
    void copy_bytes(const std::function<void(const std::string&)>& warn) {
        const input_file in = open_raw(original_, warn);
        const input_file out(std::fopen(copy_.string().c_str(), "wb"), &std::fclose);
        if (!out) throw input_error(original_.string(), 0, "", "a pipe, and its copy cannot be written: " +
                                                                   reason_text({errno, std::generic_category()}));
        char buffer[1 << 16];
        std::uintmax_t total = 0;
        for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, in.get())) > 0;) {
            total += n;
            if (total > max_spooled_bytes)
                throw input_error(original_.string(), 0, "", "a pipe of more than 4 GiB: save it to a file and name the file");
            if (std::fwrite(buffer, 1, n, out.get()) != n)
                throw input_error(original_.string(), 0, "", "a pipe, and its copy cannot be written: " +
                                                                 reason_text({errno, std::generic_category()}));
        }
        if (std::ferror(in.get())) throw unreadable_file(original_, errno);
    }

    // Opened without waiting (a plain open of a FIFO blocks until a writer comes), then waited on
    // with poll: a second without a writer is said once, and the wait goes on, as `cat fifo` waits.
    static input_file open_raw(const std::filesystem::path& file, const std::function<void(const std::string&)>& warn) {
        const int fd = ::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0) throw unreadable_file(file, errno);
        if (!wait_for_bytes(fd, 1000)) {
            warn(file.string() + ": a named pipe with no writer yet; waiting for one (Ctrl-C stops)");
            wait_for_bytes(fd, -1);
        }
        // Blocking again: a read then waits for the writer's next bytes rather than failing with EAGAIN.
        ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
        input_file f(::fdopen(fd, "rb"), &std::fclose);
        if (!f) {
            const int why = errno;
            ::close(fd);
            throw unreadable_file(file, why);
        }
        return f;
    }

    // Whether `fd` has bytes, or its writer has come and gone, within `timeout_ms` (-1: no limit).
    static bool wait_for_bytes(int fd, int timeout_ms) {
        pollfd p{fd, POLLIN, 0};
        for (;;) {
            const int n = ::poll(&p, 1, timeout_ms);
            if (n >= 0) return n > 0;
            if (errno != EINTR) return true; // the read that follows says why
        }
    }

    std::filesystem::path original_, folder_, copy_;
};

} // namespace servestat::detail
