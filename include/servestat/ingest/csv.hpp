// RFC 4180 CSV records streamed from a file, plus the cell parsing and row loop that CSV-based
// readers (notebook-csv, vllm-bench-csv) share.
#pragma once

#include <algorithm>        // std::max, std::min
#include <cctype>           // std::tolower, std::isdigit
#include <charconv>         // std::from_chars
#include <cmath>            // std::isfinite, std::isnan, std::floor
#include <cstddef>          // std::size_t
#include <cstdint>          // std::int32_t, std::uintmax_t
#include <cstdio>           // std::FILE, std::fopen, std::fread, std::ferror
#include <filesystem>       // std::filesystem::path
#include <initializer_list> // std::initializer_list
#include <limits>           // std::numeric_limits
#include <memory>           // std::unique_ptr
#include <optional>         // std::optional
#include <string>           // std::string
#include <string_view>      // std::string_view
#include <system_error>     // std::errc
#include <utility>          // std::move
#include <vector>           // std::vector

#include "servestat/core/errors.hpp"         // input_error
#include "servestat/core/request_status.hpp" // request_status
#include "servestat/core/run.hpp"            // skipped_lines
#include "servestat/core/text.hpp"           // equals_ignoring_case, trim_spaces
#include "servestat/ingest/input_file.hpp"   // open_input, utf8_bom
#include "servestat/ingest/line_source.hpp"  // byte_range
#include "servestat/ingest/reader.hpp"       // read_options

namespace servestat::detail {

// One CSV record: its unquoted fields and the physical line it starts on (1-based), which is what
// error messages name even when a quoted field spans several lines.
struct csv_record {
    std::vector<std::string> fields;
    std::size_t line = 0;
};

// "16 bytes" or "64 MiB": limits are usually whole MiB, but tests use tiny ones.
inline std::string describe_bytes(std::size_t n) {
    constexpr std::size_t mib = std::size_t{1} << 20;
    if (n >= mib && n % mib == 0) return std::to_string(n / mib) + " MiB";
    return std::to_string(n) + " bytes";
}

// Reads RFC 4180 records: quoted fields may hold commas, doubled quotes and CR/LF; line ends are
// CRLF, LF or a lone CR; a UTF-8 BOM is skipped; the last line may lack its line end. Beyond the
// RFC (as pandas and Python's csv do): empty lines between records are skipped, and a quote inside
// an unquoted field is kept as a literal character.
// The file is read in fixed chunks and a record may grow only to max_record_bytes, so a runaway
// line costs at most about twice that (string growth) before it is rejected, never the whole file.
class csv_reader {
public:
    static constexpr std::size_t default_chunk_bytes = std::size_t{64} << 10;
    static constexpr int end_of_input = -1;

    csv_reader(const std::filesystem::path& file, std::size_t max_record_bytes,
               std::size_t chunk_bytes = default_chunk_bytes)
        : name_(file.string()), max_record_(max_record_bytes),
          file_(open_input(file)) {
        const long at = std::ftell(file_.get()); // after a BOM, if open_input stepped over one (a pipe: -1)
        start_ = at > 0 ? static_cast<std::uintmax_t>(at) : 0;
        buffer_.resize(std::max<std::size_t>(chunk_bytes, 1));
        refill(); // open_input has skipped a BOM: a second one is text, as in memory
    }

    // The records of bytes `range` of a file, which starts where a record starts (one of several
    // pieces read side by side); lines are numbered from 1 within it. The header is another
    // reader's (use_header).
    csv_reader(const std::filesystem::path& file, std::size_t max_record_bytes, byte_range range,
               std::size_t chunk_bytes = default_chunk_bytes)
        : name_(file.string()), max_record_(max_record_bytes), file_(open_input(file)), start_(range.begin),
          left_(range.end - range.begin) {
        if (std::fseek(file_.get(), static_cast<long>(range.begin), SEEK_SET) != 0)
            throw input_error(name_, 0, "", "cannot seek to byte " + std::to_string(range.begin));
        buffer_.resize(std::max<std::size_t>(chunk_bytes, 1));
        refill();
    }

    // Parses text already in memory (content sniffing, tests); `name` stands in for the file name.
    csv_reader(std::string_view text, std::string name, std::size_t max_record_bytes)
        : name_(std::move(name)), max_record_(max_record_bytes), file_(nullptr, &std::fclose),
          window_(text) {
        skip_bom();
    }

    const std::string& name() const noexcept { return name_; }
    const std::vector<std::string>& header() const noexcept { return header_.fields; }
    std::size_t header_line() const noexcept { return header_.line; }

    // Reads the first record as the header; later records must have as many fields.
    void read_header() {
        if (!parse_record(header_)) throw input_error(name_, 0, "", "empty file");
        has_header_ = true;
    }
    // Takes the header `other` read, for a reader of a later piece of the same file.
    void use_header(const csv_reader& other) {
        header_ = other.header_;
        has_header_ = other.has_header_;
    }

    // Where the next record (or blank line) starts, in bytes from the file's first byte.
    std::uintmax_t next_record_offset() const noexcept { return start_ + read_ - (window_.size() - pos_); }

    // The next record into `out` (its buffers are reused), or false at the end of the input.
    // A record with the wrong number of fields is consumed whole before the error is thrown, so
    // the caller may skip it and go on (can_continue()); after any other error the reader is done.
    bool next(csv_record& out) {
        can_continue_ = false;
        if (!parse_record(out)) return false;
        if (has_header_ && out.fields.size() != header_.fields.size()) {
            can_continue_ = true;
            const std::size_t found = out.fields.size();
            const std::size_t expected = header_.fields.size();
            throw input_error(name_, out.line, found < expected ? field_name(found) : "",
                              "expected " + std::to_string(expected) + " columns, found " +
                                  std::to_string(found));
        }
        return true;
    }

    bool can_continue() const noexcept { return can_continue_; }

private:
    int peek() {
        if (pos_ == window_.size() && !refill()) return end_of_input;
        return static_cast<unsigned char>(window_[pos_]);
    }

    int get() {
        const int c = peek();
        if (c != end_of_input) ++pos_;
        return c;
    }

    bool refill() {
        if (!file_) return false;
        const std::size_t want = static_cast<std::size_t>(std::min<std::uintmax_t>(buffer_.size(), left_));
        const std::size_t got = want == 0 ? 0 : std::fread(buffer_.data(), 1, want, file_.get());
        if (got == 0 && std::ferror(file_.get())) throw input_error(name_, line_, "", "read error");
        window_ = std::string_view(buffer_.data(), got);
        pos_ = 0;
        left_ -= got;
        read_ += got;
        return got > 0;
    }

    void skip_bom() {
        if (window_.substr(pos_).starts_with(utf8_bom)) pos_ += utf8_bom.size();
    }

    static bool is_line_end(int c) noexcept { return c == '\n' || c == '\r'; }

    // Consumes the LF of a CRLF, so that CRLF, LF and a lone CR each count as one line.
    void finish_line_end(int c) {
        if (c == '\r' && peek() == '\n') get();
        ++line_;
    }

    void skip_blank_lines() {
        while (is_line_end(peek())) finish_line_end(get());
    }

    std::string field_name(std::size_t column) const {
        return has_header_ && column < header_.fields.size() ? header_.fields[column] : std::string();
    }

    // Every byte that belongs to a record passes here: the size limit and the text check.
    void account(int c) {
        if (c == 0 || (c < 0x20 && c != '\t' && c != '\n' && c != '\v' && c != '\f' && c != '\r' &&
                       c != 0x1b)) {
            static constexpr char hex[] = "0123456789abcdef";
            const std::string what = c == 0 ? std::string("a NUL byte")
                                            : std::string("control byte 0x") + hex[c >> 4] + hex[c & 15];
            throw input_error(name_, line_, field_name(column_), "not a text file (found " + what + ")");
        }
        if (++record_bytes_ > max_record_)
            throw input_error(name_, record_line_, field_name(column_),
                              "record is longer than " + describe_bytes(max_record_));
    }

    // Returns what ended the field: ',' or '\n' (any line end) or end_of_input.
    int read_unquoted(std::string& field) {
        for (;;) {
            const int c = get();
            if (c == end_of_input) return c;
            if (is_line_end(c)) {
                finish_line_end(c);
                return '\n';
            }
            account(c);
            if (c == ',') return c;
            field.push_back(static_cast<char>(c));
        }
    }

    int read_quoted(std::string& field) {
        account(get()); // the opening quote
        const std::size_t quote_line = line_;
        for (;;) {
            const int c = get();
            if (c == end_of_input)
                throw input_error(name_, quote_line, field_name(column_),
                                  "unterminated quoted field (the quote opened on this line is "
                                  "never closed)");
            account(c);
            if (c == '"') {
                if (peek() == '"') {
                    account(get());
                    field.push_back('"');
                    continue;
                }
                return after_closing_quote();
            }
            field.push_back(static_cast<char>(c));
            if (is_line_end(c)) {
                if (c == '\r' && peek() == '\n') {
                    account(get());
                    field.push_back('\n');
                }
                ++line_;
            }
        }
    }

    int after_closing_quote() {
        const int c = get();
        if (c == end_of_input) return c;
        if (is_line_end(c)) {
            finish_line_end(c);
            return '\n';
        }
        account(c);
        if (c == ',') return c;
        throw input_error(name_, line_, field_name(column_),
                          std::string("unexpected character '") + static_cast<char>(c) +
                              "' after a closing quote");
    }

    std::string& start_field(csv_record& out) {
        if (column_ < out.fields.size()) out.fields[column_].clear();
        else out.fields.emplace_back();
        return out.fields[column_];
    }

    bool parse_record(csv_record& out) {
        skip_blank_lines();
        if (peek() == end_of_input) return false;
        out.line = record_line_ = line_;
        record_bytes_ = 0;
        for (column_ = 0;; ++column_) {
            std::string& field = start_field(out);
            const int end = peek() == '"' ? read_quoted(field) : read_unquoted(field);
            if (end != ',') break;
        }
        out.fields.resize(column_ + 1);
        return true;
    }

    std::string name_;
    std::size_t max_record_;
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> file_;
    std::vector<char> buffer_;
    std::string_view window_; // the bytes of the current chunk (or the whole in-memory text)
    std::size_t pos_ = 0;
    std::uintmax_t start_ = 0;                                   // the file offset reading began at
    std::uintmax_t left_ = std::numeric_limits<std::uintmax_t>::max(); // bytes of the range not read yet
    std::uintmax_t read_ = 0;                                    // bytes read from the file
    std::size_t line_ = 1;        // physical line of the next byte
    std::size_t record_line_ = 0; // where the record being parsed started
    std::size_t record_bytes_ = 0;
    std::size_t column_ = 0;      // of the field being parsed
    csv_record header_;
    bool has_header_ = false;
    bool can_continue_ = false;
};

inline std::optional<std::size_t> find_column(const std::vector<std::string>& header,
                                              std::string_view name) {
    for (std::size_t i = 0; i < header.size(); ++i)
        if (header[i] == name) return i;
    return std::nullopt;
}

// The first of several accepted spellings that the header has.
inline std::optional<std::size_t> find_column(const std::vector<std::string>& header,
                                              std::initializer_list<std::string_view> names) {
    for (const std::string_view name : names)
        if (auto column = find_column(header, name)) return column;
    return std::nullopt;
}

// A cell quoted in an error message, cut short so a runaway cell does not flood the terminal.
inline std::string quote_cell(std::string_view cell) {
    constexpr std::size_t shown = 40;
    std::string quoted(1, '\'');
    quoted += cell.substr(0, shown);
    quoted += cell.size() > shown ? "...'" : "'";
    return quoted;
}

// One data row of a CSV log, with what error messages need to name a bad cell. Column arguments
// are optional because most columns are: an absent column reads like an empty cell.
class csv_row {
public:
    csv_row(const std::string& file, const csv_record& record, const std::vector<std::string>& header)
        : file_(file), record_(record), header_(header) {}

    const std::string& file() const noexcept { return file_; }
    std::size_t line() const noexcept { return record_.line; }

    std::string_view cell(std::optional<std::size_t> column) const {
        return column ? std::string_view(record_.fields[*column]) : std::string_view();
    }

    [[noreturn]] void fail(std::optional<std::size_t> column, const std::string& why) const {
        throw input_error(file_, record_.line, column ? header_[*column] : std::string(), why);
    }

    // The number in the cell, or nullopt when it is empty. "nan" and "inf" parse (callers decide).
    std::optional<double> number(std::optional<std::size_t> column) const {
        std::string_view text = trim_spaces(cell(column));
        if (text.empty()) return std::nullopt;
        if (text.front() == '+') text.remove_prefix(1);
        double value = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (ec != std::errc() || end != text.data() + text.size())
            fail(column, "not a number: " + quote_cell(cell(column)));
        return value;
    }

    // A time span that must be there: finite and >= 0 (pandas' NaN is an error here).
    double required_duration(std::optional<std::size_t> column) const {
        const auto value = number(column);
        if (!value) fail(column, "missing");
        return check_duration(column, *value);
    }

    // A time span that may be missing: empty or NaN mean absent, anything else must be valid.
    std::optional<double> optional_duration(std::optional<std::size_t> column) const {
        const auto value = number(column);
        if (!value || std::isnan(*value)) return std::nullopt;
        return check_duration(column, *value);
    }

    // A token count: a whole number >= 0. pandas writes integer columns that hold NaN as floats,
    // so "39.0" is 39; empty or NaN mean absent.
    std::optional<std::int32_t> count(std::optional<std::size_t> column) const {
        const auto value = number(column);
        if (!value || std::isnan(*value)) return std::nullopt;
        if (!std::isfinite(*value) || *value != std::floor(*value))
            fail(column, "not a whole number: " + quote_cell(cell(column)));
        if (*value < 0) fail(column, "must not be negative, got " + quote_cell(cell(column)));
        if (*value > std::numeric_limits<std::int32_t>::max())
            fail(column, "too large: " + quote_cell(cell(column)));
        return static_cast<std::int32_t>(*value);
    }

    // pandas writes booleans as True/False; hand-made files use true/false or 1/0.
    std::optional<bool> boolean(std::optional<std::size_t> column) const {
        const std::string_view text = trim_spaces(cell(column));
        if (text.empty()) return std::nullopt;
        if (equals_ignoring_case(text, "true") || text == "1") return true;
        if (equals_ignoring_case(text, "false") || text == "0") return false;
        fail(column, "expected True or False, got " + quote_cell(cell(column)));
    }

    std::optional<std::int32_t> http_status(std::optional<std::size_t> column) const {
        const auto code = count(column);
        if (code && (*code < 100 || *code > 599))
            fail(column, "not an HTTP status code: " + quote_cell(cell(column)));
        return code;
    }

private:
    double check_duration(std::optional<std::size_t> column, double value) const {
        if (!std::isfinite(value) || value < 0)
            fail(column, "must be a finite number >= 0, got " + quote_cell(cell(column)));
        return value;
    }

    const std::string& file_;
    const csv_record& record_;
    const std::vector<std::string>& header_;
};

// Runs `on_row` on every data row after the header. Under options.skip_bad a row whose parsing or
// `on_row` throws input_error is counted in `skipped` instead, as long as the reader can go on
// past it. Returns how many data rows there were, skipped ones included.
template <class OnRow>
std::size_t for_each_csv_row(csv_reader& csv, const read_options& options, skipped_lines& skipped,
                             OnRow&& on_row) {
    csv_record record;
    std::size_t rows = 0;
    for (;;) {
        try {
            if (!csv.next(record)) return rows;
        } catch (const input_error& e) {
            if (!options.skip_bad || !csv.can_continue()) throw;
            ++rows;
            skipped.add(e.what());
            continue;
        }
        ++rows;
        try {
            on_row(csv_row(csv.name(), record, csv.header()));
        } catch (const input_error& e) {
            if (!options.skip_bad) throw;
            skipped.add(e.what());
        }
    }
}

// A CSV log's header: the sniffers' view of the first record of `head` (empty if unreadable).
inline std::vector<std::string> sniff_csv_header(std::string_view head) {
    try {
        csv_reader csv(head, "<head>", head.size() + 1);
        csv.read_header();
        return csv.header();
    } catch (const input_error&) {
        return {};
    }
}

// A CSV sniffer's confidence: 0 unless the header has every required column, else `base` plus
// `bonus` for each supporting column it has.
inline int score_csv_header(std::string_view head, std::initializer_list<std::string_view> required,
                            std::initializer_list<std::string_view> supporting, int base, int bonus) {
    const std::vector<std::string> header = sniff_csv_header(head);
    for (const std::string_view name : required)
        if (!find_column(header, name)) return 0;
    int score = base;
    for (const std::string_view name : supporting)
        if (find_column(header, name)) score += bonus;
    return score;
}

} // namespace servestat::detail
