// Opening an input file, for every reader and for format detection: one place that says why a file
// cannot be read ("permission denied", "is a directory"), steps over a UTF-8 byte-order mark, so
// no reader and no sniffer ever sees one (a BOM before a canonical log used to hide its format),
// and refuses text in UTF-16 or UTF-32 by name.
#pragma once

#include <algorithm>    // std::count
#include <cctype>       // std::tolower
#include <cerrno>       // errno
#include <cstddef>      // std::size_t
#include <cstdint>      // std::uintmax_t
#include <cstdio>       // std::FILE, std::fopen, std::fread, std::fseek, std::ungetc
#include <filesystem>   // std::filesystem::path
#include <memory>       // std::unique_ptr
#include <optional>     // std::optional
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

// ---- Text in UTF-16 or UTF-32 ----------------------------------------------------------------------
//
// Windows tools write it (PowerShell 5's `>` writes UTF-16LE with a byte-order mark). servestat
// reads UTF-8, and such a file used to be refused as "binary data" (its NUL bytes) or as malformed
// JSON. It is refused by name, with the command that converts it: transcoding is not done, since
// readers seek to byte ranges of a file, split it at its '\n' bytes and read it in blocks.

struct text_encoding {
    std::string_view name;      // "UTF-16LE"
    std::string_view bom;       // its byte-order mark as written, e.g. "FF FE"; empty when none
    std::string_view from_name; // what `iconv -f` names it: with a BOM, the BOM says the byte order
};

// The encoding the first bytes of a file show when it is UTF-16 or UTF-32, else nullopt. A BOM says
// it; without one, text starts with two ASCII characters (a JSON, YAML or CSV file does), which
// these encodings write with NUL bytes around them in a fixed pattern (RFC 4627 § 3). No file a
// reader accepts holds NUL bytes, so the pattern only ever names what would be refused anyway; and
// two characters, not one, keep a '{' followed by zeros (binary data) from passing for UTF-32.
inline std::optional<text_encoding> utf16_or_utf32(std::string_view head) {
    const auto starts = [&](std::string_view bytes) { return head.substr(0, bytes.size()) == bytes; };
    using namespace std::string_view_literals;
    if (starts("\x00\x00\xFE\xFF"sv)) return text_encoding{"UTF-32BE", "00 00 FE FF", "UTF-32"};
    if (starts("\xFF\xFE\x00\x00"sv)) return text_encoding{"UTF-32LE", "FF FE 00 00", "UTF-32"};
    if (starts("\xFE\xFF"sv)) return text_encoding{"UTF-16BE", "FE FF", "UTF-16"};
    if (starts("\xFF\xFE"sv)) return text_encoding{"UTF-16LE", "FF FE", "UTF-16"};
    std::string pattern; // of the first 8 bytes: 'a' an ASCII character, '0' a NUL byte, 'x' anything else
    for (const char c : head.substr(0, 8)) pattern += c == '\0' ? '0' : static_cast<unsigned char>(c) < 0x80 ? 'a' : 'x';
    if (pattern.starts_with("000a000a")) return text_encoding{"UTF-32BE", "", "UTF-32BE"};
    if (pattern.starts_with("a000a000")) return text_encoding{"UTF-32LE", "", "UTF-32LE"};
    if (pattern.starts_with("0a0a")) return text_encoding{"UTF-16BE", "", "UTF-16BE"};
    if (pattern.starts_with("a0a0")) return text_encoding{"UTF-16LE", "", "UTF-16LE"};
    return std::nullopt;
}

// Why such a file is refused, and how to convert it.
inline std::string other_encoding_text(const text_encoding& e) {
    const std::string how = e.bom.empty() ? "no byte-order mark: NUL bytes between its characters"
                                          : "a byte-order mark " + std::string(e.bom);
    return std::string(e.name) + " text (" + how + "): servestat reads UTF-8; save it as UTF-8, e.g. `iconv -f " +
           std::string(e.from_name) + " -t UTF-8`";
}

// The file positioned after its UTF-8 BOM, if it has one, whatever its encoding; `head` gets its
// first bytes (up to 8).
inline input_file open_input_as_is(const std::filesystem::path& file, std::string* head = nullptr) {
    errno = 0;
    input_file f(std::fopen(file.string().c_str(), "rb"), &std::fclose);
    if (!f) throw unreadable_file(file, errno);
    unsigned char bytes[8] = {};
    const std::size_t n = std::fread(bytes, 1, sizeof bytes, f.get());
    if (n == 0 && std::ferror(f.get())) throw unreadable_file(file, errno); // a directory: EISDIR
    const std::string_view first(reinterpret_cast<const char*>(bytes), n);
    if (head) head->assign(first);
    const std::size_t keep_from = first.starts_with(utf8_bom) ? utf8_bom.size() : 0;
    if (std::fseek(f.get(), static_cast<long>(keep_from), SEEK_SET) != 0) // a pipe: give the bytes back to the stream
        for (std::size_t i = n; i-- > keep_from;) std::ungetc(bytes[i], f.get());
    std::clearerr(f.get());
    return f;
}

// The file positioned after its BOM, if it has one; refused when it is UTF-16 or UTF-32 text.
inline input_file open_input(const std::filesystem::path& file) {
    std::string head;
    input_file f = open_input_as_is(file, &head);
    if (const auto encoding = utf16_or_utf32(head)) throw input_error(file.string(), 0, "", other_encoding_text(*encoding));
    return f;
}

// The first `bytes` of the file after any BOM (format sniffing: never refused for its encoding,
// so that a sniffer passes such a file over and detection says what it is).
inline std::string read_input_head(const std::filesystem::path& file, std::size_t bytes) {
    const input_file f = open_input_as_is(file);
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
