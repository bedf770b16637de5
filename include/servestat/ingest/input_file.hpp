// Opening an input file, for every reader and for format detection: one place that says why a file
// cannot be read ("permission denied", "is a directory") and steps over a UTF-8 byte-order mark, so
// no reader and no sniffer ever sees one (a BOM before a canonical log used to hide its format).
#pragma once

#include <algorithm>    // std::count
#include <cctype>       // std::tolower
#include <cerrno>       // errno
#include <cstddef>      // std::size_t
#include <cstdint>      // std::uintmax_t
#include <cstdio>       // std::FILE, std::fopen, std::fread, std::fseek, std::ungetc
#include <filesystem>   // std::filesystem::path
#include <memory>       // std::unique_ptr
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <system_error> // std::error_code, std::generic_category

#include "servestat/core/errors.hpp" // input_error

namespace servestat::detail {

inline constexpr std::string_view utf8_bom = "\xEF\xBB\xBF";

using input_file = std::unique_ptr<std::FILE, int (*)(std::FILE*)>;

// The system's reason ("permission denied"), lower-cased like the tool's own messages.
inline std::string reason_text(const std::error_code& ec) {
    std::string why = ec.message();
    if (!why.empty()) why[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(why[0])));
    return why;
}

inline input_error unreadable_file(const std::filesystem::path& file, int error_number) {
    return input_error(file.string(), 0, "", "cannot read: " + reason_text({error_number, std::generic_category()}));
}

// The file positioned after its BOM, if it has one.
inline input_file open_input(const std::filesystem::path& file) {
    errno = 0;
    input_file f(std::fopen(file.string().c_str(), "rb"), &std::fclose);
    if (!f) throw unreadable_file(file, errno);
    unsigned char head[3] = {};
    const std::size_t n = std::fread(head, 1, sizeof head, f.get());
    if (n == 0 && std::ferror(f.get())) throw unreadable_file(file, errno); // a directory: EISDIR
    if (std::string_view(reinterpret_cast<const char*>(head), n) == utf8_bom) return f;
    if (std::fseek(f.get(), 0, SEEK_SET) != 0) // a pipe: give the bytes back to the stream
        for (std::size_t i = n; i-- > 0;) std::ungetc(head[i], f.get());
    std::clearerr(f.get());
    return f;
}

// The first `bytes` of the file after any BOM (format sniffing).
inline std::string read_input_head(const std::filesystem::path& file, std::size_t bytes) {
    const input_file f = open_input(file);
    std::string head(bytes, '\0');
    head.resize(std::fread(head.data(), 1, head.size(), f.get()));
    return head;
}

// Whole-document formats hold one run's results; a file this large is not one of them.
inline constexpr std::size_t max_document_bytes = std::size_t{1} << 30;

// The whole file (after any BOM), for formats read as one document. Refused before reading
// anything more than its first block when it is over max_document_bytes, holds a NUL byte there
// (binary data: no JSON or text format has one), or — given `first_chars` — its first non-blank
// byte cannot start the document: a 3 GB file of zeros costs one small read, not 1 GiB of memory.
// A valid document is read into a buffer of exactly its size (no doubling on growth).
inline std::string read_whole_file(const std::filesystem::path& file, std::string_view first_chars = {}) {
    const input_file f = open_input(file);
    std::error_code ec;
    const std::uintmax_t size = std::filesystem::file_size(file, ec);
    if (!ec && size > max_document_bytes)
        throw input_error(file.string(), 0, "",
                          "file of " + std::to_string(size >> 20) + " MiB: whole-document formats are read into "
                          "memory, at most 1 GiB (a request log of this size is JSON Lines or CSV)");
    std::string text;
    if (!ec) text.reserve(static_cast<std::size_t>(size) + 1);
    char buffer[1 << 16];
    for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, f.get())) > 0;) {
        if (text.empty()) {
            const std::string_view block(buffer, n);
            if (const auto nul = block.find('\0'); nul != std::string_view::npos)
                throw input_error(file.string(), 1 + static_cast<std::size_t>(std::count(buffer, buffer + nul, '\n')),
                                  "", "binary data (a NUL byte at offset " + std::to_string(nul) + "), not a document");
            const auto first = block.find_first_not_of(" \t\r\n");
            if (!first_chars.empty() && first != std::string_view::npos &&
                first_chars.find(block[first]) == std::string_view::npos)
                throw input_error(file.string(), 1 + static_cast<std::size_t>(std::count(buffer, buffer + first, '\n')),
                                  "", std::string("not a JSON document: it starts with '") + block[first] +
                                          "' where '{' or '[' must be");
        }
        text.append(buffer, n);
        if (text.size() > max_document_bytes) throw input_error(file.string(), 0, "", "file larger than 1 GiB");
    }
    if (std::ferror(f.get())) throw unreadable_file(file, errno);
    return text;
}

} // namespace servestat::detail
