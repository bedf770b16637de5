// Reads a file line by line through one reusable buffer, so a 200 MB log never sits in memory whole,
// while every line stays followed by readable padding that SIMD parsers may over-read.
#pragma once

#include <algorithm>   // std::max, std::min
#include <cstddef>     // std::size_t
#include <cstdint>     // std::uintmax_t
#include <cstdio>      // std::FILE, std::fopen, std::fread
#include <cstring>     // std::memchr, std::memmove
#include <limits>      // std::numeric_limits
#include <filesystem>  // std::filesystem::path
#include <memory>      // std::unique_ptr
#include <optional>    // std::optional
#include <string>      // std::string
#include <string_view> // std::string_view
#include <vector>      // std::vector

#include "servestat/core/errors.hpp" // input_error
#include "servestat/core/progress.hpp" // progress_item
#include "servestat/ingest/input_file.hpp" // open_input

namespace servestat::detail {

// Bytes [begin, end) of a file, counted from its first byte (a BOM included).
struct byte_range {
    std::uintmax_t begin = 0;
    std::uintmax_t end = std::numeric_limits<std::uintmax_t>::max();
};

class line_source {
public:
    static constexpr std::size_t padding = 64; // simdjson's SIMDJSON_PADDING

    // The lines of `range` (which starts at a line's start), numbered from 1 within it.
    line_source(const std::filesystem::path& file, std::size_t max_line_bytes, byte_range range = {},
                std::size_t chunk_bytes = std::size_t{1} << 20)
        : name_(file.string()), max_line_(max_line_bytes), chunk_(chunk_bytes),
          file_(open_input(file)), left_(range.end - range.begin) {
        std::error_code ec;
        size_ = std::filesystem::file_size(file, ec);
        if (ec) size_ = 0;
        if (range.begin > 0 && std::fseek(file_.get(), static_cast<long>(range.begin), SEEK_SET) != 0)
            throw input_error(name_, 0, "", "cannot seek to byte " + std::to_string(range.begin));
        if (range.begin == 0) { // after a BOM, if open_input stepped over one (a pipe cannot tell: 0)
            const long at = std::ftell(file_.get());
            start_ = at > 0 ? static_cast<std::uintmax_t>(at) : 0;
        } else {
            start_ = range.begin;
        }
        skipped_ = range.begin == 0 ? start_ : 0;
        buffer_.resize(chunk_ + padding);
    }

    // From now on every chunk read is added to `item` (nothing when null), and what was read
    // already (a BOM stepped over included) is added at once: a whole file's sources together
    // count its size. Per chunk, not per line: one atomic add a megabyte.
    void count_into(progress_item* item) noexcept {
        counted_ = item;
        if (counted_) counted_->add(skipped_ + read_);
    }

    const std::string& name() const noexcept { return name_; }
    std::uintmax_t file_size() const noexcept { return size_; }
    std::size_t line_number() const noexcept { return line_; } // of the line last returned

    // The next line without its line end (\n or \r\n), or nullopt at the end of the file.
    std::optional<std::string_view> next() {
        for (;;) {
            if (const char* nl = find_newline()) return take_line(nl - (buffer_.data() + begin_), 1);
            if (eof_) {
                if (begin_ == end_) return std::nullopt;
                return take_line(end_ - begin_, 0);
            }
            refill();
        }
    }

    // Where the line after the last returned one starts, in bytes from the file's first byte.
    std::uintmax_t next_line_offset() const noexcept { return start_ + consumed_; }

    // Bytes that may be read past the end of the last returned line (at least `padding`).
    std::size_t readable_after_line() const noexcept { return buffer_.size() - line_end_; }

private:
    const char* find_newline() const {
        return static_cast<const char*>(std::memchr(buffer_.data() + begin_, '\n', end_ - begin_));
    }

    std::string_view take_line(std::size_t length, std::size_t terminator) {
        ++line_;
        check_length(length);
        const char* start = buffer_.data() + begin_;
        begin_ += length + terminator;
        consumed_ += length + terminator;
        if (length > 0 && start[length - 1] == '\r') --length;
        line_end_ = static_cast<std::size_t>(start - buffer_.data()) + length;
        return {start, length};
    }

    void check_length(std::size_t length) const {
        if (length > max_line_)
            throw input_error(name_, line_, "",
                              "line is longer than " + std::to_string(max_line_ >> 20) + " MiB");
    }

    void refill() {
        // Keep the partial line, move it to the front, and grow only when one line fills the buffer.
        const std::size_t partial = end_ - begin_;
        if (partial > max_line_) {
            ++line_;
            check_length(partial);
        }
        if (begin_ > 0) std::memmove(buffer_.data(), buffer_.data() + begin_, partial);
        begin_ = 0;
        end_ = partial;
        const std::size_t capacity = buffer_.size() - padding;
        if (end_ == capacity) buffer_.resize(std::max(capacity * 2, chunk_) + padding);
        const std::size_t want = static_cast<std::size_t>(
            std::min<std::uintmax_t>(buffer_.size() - padding - end_, left_));
        const std::size_t got = std::fread(buffer_.data() + end_, 1, want, file_.get());
        if (got < want || got == left_) {
            if (std::ferror(file_.get())) throw input_error(name_, 0, "", "read error");
            eof_ = true;
        }
        left_ -= got;
        end_ += got;
        read_ += got;
        if (counted_) counted_->add(got);
    }

    std::string name_;
    std::size_t max_line_;
    std::size_t chunk_;
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> file_;
    std::uintmax_t left_; // bytes of the range not read yet
    std::uintmax_t start_ = 0, consumed_ = 0;
    std::uintmax_t size_ = 0;
    std::uintmax_t skipped_ = 0, read_ = 0; // a BOM stepped over; bytes read since
    progress_item* counted_ = nullptr;
    std::vector<char> buffer_;
    std::size_t begin_ = 0, end_ = 0, line_end_ = 0, line_ = 0;
    bool eof_ = false;
};

// [begin, end) cut into about `pieces` ranges, each starting where a line starts.
inline std::vector<byte_range> split_at_lines(const std::filesystem::path& file, byte_range whole, std::size_t pieces) {
    std::vector<byte_range> out;
    const input_file f = open_input(file);
    const std::uintmax_t size = whole.end - whole.begin;
    std::uintmax_t begin = whole.begin;
    std::vector<char> block(1 << 16);
    for (std::size_t k = 1; k <= pieces && begin < whole.end; ++k) {
        std::uintmax_t end = k == pieces ? whole.end : std::max(begin, whole.begin + size * k / pieces);
        if (end < whole.end) { // move the cut past the next line end
            if (std::fseek(f.get(), static_cast<long>(end), SEEK_SET) != 0) return {whole};
            for (;;) {
                const std::size_t n = std::fread(block.data(), 1, block.size(), f.get());
                if (n == 0) {
                    end = whole.end;
                    break;
                }
                if (const void* nl = std::memchr(block.data(), '\n', n)) {
                    end += static_cast<std::uintmax_t>(static_cast<const char*>(nl) - block.data()) + 1;
                    break;
                }
                end += n;
            }
            end = std::min(end, whole.end);
        }
        out.push_back({begin, end});
        begin = end;
    }
    return out;
}

// The pieces `rest` of a file is read in side by side: one per thread, none under
// `min_piece_bytes`; empty when one reader should read it all (a small file, one thread, or a pipe,
// whose size is unknown: `rest.end` is then 0).
inline std::vector<byte_range> plan_pieces(const std::filesystem::path& file, byte_range rest, std::size_t threads,
                                           std::uintmax_t min_piece_bytes) {
    if (rest.end <= rest.begin) return {};
    const auto wanted = std::min<std::uintmax_t>(threads, (rest.end - rest.begin) / std::max<std::uintmax_t>(min_piece_bytes, 1));
    if (wanted < 2) return {};
    auto ranges = split_at_lines(file, rest, static_cast<std::size_t>(wanted));
    if (ranges.size() < 2) ranges.clear();
    return ranges;
}

} // namespace servestat::detail
