// Tests for servestat/ingest/csv.hpp: RFC 4180 records, line numbers, limits, and the cell parsers
// that the CSV-based readers share.
#include "servestat/ingest/csv.hpp"
#include "servestat/ingest/failure_text.hpp"

#include <cstddef>     // std::size_t
#include <filesystem>  // std::filesystem::path, std::filesystem::remove
#include <fstream>     // std::ofstream
#include <random>      // std::random_device
#include <string>      // std::string
#include <string_view> // std::string_view
#include <vector>      // std::vector

#include <catch2/catch.hpp> // TEST_CASE, REQUIRE, CHECK, CHECK_THROWS_AS

namespace test_csv { // the unity build compiles several test files as one: each keeps its names

namespace {

using servestat::input_error;
using servestat::request_status;
using servestat::detail::csv_reader;
using servestat::detail::csv_record;
using servestat::detail::csv_row;

using rows = std::vector<std::vector<std::string>>;

constexpr std::size_t no_limit = std::size_t{64} << 20;

// A file with the given bytes, removed again when the test ends. The random name keeps test
// cases that ctest runs in parallel apart.
struct temp_file {
    std::filesystem::path path;

    explicit temp_file(std::string_view bytes)
        : path(std::filesystem::temp_directory_path() /
               ("servestat-test-csv-" + std::to_string(std::random_device{}()) + ".csv")) {
        std::ofstream out(path, std::ios::binary);
        out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    }
    ~temp_file() {
        std::error_code ignored;
        std::filesystem::remove(path, ignored);
    }
    temp_file(const temp_file&) = delete;
    temp_file& operator=(const temp_file&) = delete;
};

rows read_all(csv_reader& csv) {
    rows out;
    csv_record record;
    while (csv.next(record)) out.push_back(record.fields);
    return out;
}

rows parse(std::string_view text) {
    csv_reader csv(text, "mem.csv", no_limit);
    return read_all(csv);
}

std::vector<std::size_t> record_lines(std::string_view text) {
    csv_reader csv(text, "mem.csv", no_limit);
    std::vector<std::size_t> lines;
    csv_record record;
    while (csv.next(record)) lines.push_back(record.line);
    return lines;
}

// The error that reading every record of `text` (first record = header) throws.
input_error error_reading(std::string_view text, std::size_t max_bytes = no_limit) {
    csv_reader csv(text, "mem.csv", max_bytes);
    try {
        csv.read_header();
        read_all(csv);
    } catch (const input_error& e) {
        return e;
    }
    FAIL("no input_error was thrown");
    throw; // unreachable: FAIL throws
}

// A one-row table with the header "n", for the cell parsers.
struct one_cell {
    std::string file = "cells.csv";
    std::vector<std::string> header{"n"};
    csv_record record;
    explicit one_cell(std::string cell) : record{{std::move(cell)}, 7} {}
    csv_row row() const { return csv_row(file, record, header); }
};

// Reading the one cell with `read` must fail naming cells.csv, line 7, column n and `reason`.
void require_cell_error(const std::string& text, auto read, const std::string& reason) {
    const one_cell cell(text);
    try {
        read(cell.row());
    } catch (const input_error& e) {
        CHECK(e.file() == "cells.csv");
        CHECK(e.line() == 7);
        CHECK(e.field() == "n");
        CHECK(e.reason() == reason);
        return;
    }
    FAIL("no input_error was thrown for " << text);
}

} // namespace

TEST_CASE("a plain record splits at commas") {
    CHECK(parse("a,b,c\n") == rows{{"a", "b", "c"}});
}

TEST_CASE("empty fields are kept, including a trailing one") {
    CHECK(parse(",x,\n") == rows{{"", "x", ""}});
}

TEST_CASE("a quoted field may contain a comma") {
    CHECK(parse("1,\"a, b\",2\n") == rows{{"1", "a, b", "2"}});
}

TEST_CASE("a doubled quote inside a quoted field is one quote") {
    CHECK(parse("\"say \"\"hi\"\"\",\"\"\"\"\n") == rows{{"say \"hi\"", "\""}});
}

TEST_CASE("a quoted field may contain a newline") {
    CHECK(parse("\"two\nlines\",x\n") == rows{{"two\nlines", "x"}});
}

TEST_CASE("a quoted field keeps an embedded CRLF as it is") {
    CHECK(parse("\"two\r\nlines\",x\r\n") == rows{{"two\r\nlines", "x"}});
}

TEST_CASE("an empty quoted field is an empty string") {
    CHECK(parse("\"\",a\n") == rows{{"", "a"}});
}

TEST_CASE("a quote inside an unquoted field is kept as a character") {
    CHECK(parse("5\" disk,x\n") == rows{{"5\" disk", "x"}});
}

TEST_CASE("CRLF and LF line ends read alike") {
    CHECK(parse("a,b\r\nc,d\r\n") == parse("a,b\nc,d\n"));
}

TEST_CASE("a lone CR ends a line") {
    CHECK(parse("a,b\rc,d\r") == rows{{"a", "b"}, {"c", "d"}});
}

TEST_CASE("the last record may lack a line end") {
    CHECK(parse("a,b\nc,d") == rows{{"a", "b"}, {"c", "d"}});
}

TEST_CASE("a quoted last field may end the input without a line end") {
    CHECK(parse("a,\"b\"") == rows{{"a", "b"}});
}

TEST_CASE("a UTF-8 byte order mark before the first record is skipped") {
    CHECK(parse("\xEF\xBB\xBFlatency_s,ok\n") == rows{{"latency_s", "ok"}});
}

TEST_CASE("blank lines between records are skipped") {
    CHECK(parse("a\n\n\r\nb\n\n") == rows{{"a"}, {"b"}});
}

TEST_CASE("each record reports the physical line it starts on") {
    // Line 1: a; lines 2-3: a quoted field with a newline; line 4 blank; line 5: c (CRLF ends).
    CHECK(record_lines("a\r\n\"b\r\nb\"\r\n\r\nc\r\n") == std::vector<std::size_t>{1, 2, 5});
}

TEST_CASE("the header is the first record and later records are checked against it") {
    csv_reader csv(std::string_view("x,y\n1,2\n"), "mem.csv", no_limit);
    csv.read_header();
    CHECK(csv.header() == std::vector<std::string>{"x", "y"});
    CHECK(csv.header_line() == 1);
    CHECK(read_all(csv) == rows{{"1", "2"}});
}

TEST_CASE("a file reads the same whatever the chunk size") {
    const std::string text =
        "\xEF\xBB\xBF" "id,text\r\n1,\"a \"\"quoted\"\", multi\r\nline field\"\r\n2,plain\n3,\"\"\r\n";
    const rows expected{{"id", "text"}, {"1", "a \"quoted\", multi\r\nline field"}, {"2", "plain"}, {"3", ""}};
    const temp_file file(text);
    for (std::size_t chunk = 1; chunk <= 9; ++chunk) {
        csv_reader csv(file.path, no_limit, chunk);
        INFO("chunk size " << chunk);
        CHECK(read_all(csv) == expected);
    }
}

TEST_CASE("a record's line number survives chunk boundaries") {
    const temp_file file("a\r\n\"b\r\nb\"\r\n\r\nc\r\n");
    csv_reader csv(file.path, no_limit, 2);
    std::vector<std::size_t> lines;
    csv_record record;
    while (csv.next(record)) lines.push_back(record.line);
    CHECK(lines == std::vector<std::size_t>{1, 2, 5});
}

TEST_CASE("an empty input is an empty file") {
    const input_error e = error_reading("");
    CHECK(e.file() == "mem.csv");
    CHECK(e.line() == 0);
    CHECK(e.field() == "");
    CHECK(e.reason() == "empty file");
}

TEST_CASE("a file that does not exist cannot be opened") {
    const std::filesystem::path missing = std::filesystem::temp_directory_path() / "servestat-no-such-file.csv";
    try {
        csv_reader csv(missing, no_limit);
        FAIL("no input_error was thrown");
    } catch (const input_error& e) {
        CHECK(e.file() == missing.string());
        CHECK(e.line() == 0);
        CHECK(e.field() == "");
        CHECK(e.reason() == "cannot read: no such file or directory");
    }
}

TEST_CASE("an unterminated quoted field names the line where the quote opened") {
    const input_error e = error_reading("id,text\n1,ok\n2,\"opened here\nand never\nclosed\n");
    CHECK(e.file() == "mem.csv");
    CHECK(e.line() == 3);
    CHECK(e.field() == "text");
    CHECK_THAT(e.reason(), Catch::Contains("unterminated quoted field"));
}

TEST_CASE("an unterminated quote in a record that started lines earlier names the quote's line") {
    // The record starts on line 2; field a spans lines 2-3; field b's quote opens on line 3.
    const input_error e = error_reading("id,a,b\n1,\"x\ny\",\"never\nclosed\n");
    CHECK(e.file() == "mem.csv");
    CHECK(e.line() == 3);
    CHECK(e.field() == "b");
    CHECK_THAT(e.reason(), Catch::Contains("unterminated quoted field"));
}

TEST_CASE("text after a closing quote is an error") {
    const input_error e = error_reading("id,text\n1,\"quoted\"tail\n");
    CHECK(e.file() == "mem.csv");
    CHECK(e.line() == 2);
    CHECK(e.field() == "text");
    CHECK(e.reason() == "unexpected character 't' after a closing quote");
}

TEST_CASE("a row with a missing column names file and line") {
    const input_error e = error_reading("a,b,c\n1,2,3\n4,5\n");
    CHECK(e.file() == "mem.csv");
    CHECK(e.line() == 3);
    CHECK(e.field() == "c");
    CHECK(e.reason() == "expected 3 columns, found 2");
}

TEST_CASE("a row with an extra column names file and line but no field") {
    const input_error e = error_reading("a,b\n1,2,3\n");
    CHECK(e.file() == "mem.csv");
    CHECK(e.line() == 2);
    CHECK(e.field() == "");
    CHECK(e.reason() == "expected 2 columns, found 3");
}

TEST_CASE("after a row with the wrong column count the reader can go on") {
    csv_reader csv(std::string_view("a,b\n1\n2,3\n"), "mem.csv", no_limit);
    csv.read_header();
    csv_record record;
    CHECK_THROWS_AS(csv.next(record), input_error);
    REQUIRE(csv.can_continue());
    REQUIRE(csv.next(record));
    CHECK(record.fields == std::vector<std::string>{"2", "3"});
    CHECK(record.line == 3);
}

TEST_CASE("a record longer than the limit is an error naming where it starts") {
    // The second record is "1,\"" + 20 x's + "\"" = 25 bytes: over a 16-byte limit.
    const input_error e = error_reading("id,text\n1,\"xxxxxxxxxxxxxxxxxxxx\"\n", 16);
    CHECK(e.file() == "mem.csv");
    CHECK(e.line() == 2);
    CHECK(e.field() == "text");
    CHECK(e.reason() == "record is longer than 16 bytes");
}

TEST_CASE("a record exactly at the limit is accepted") {
    csv_reader csv(std::string_view("abcd,efgh\n"), "mem.csv", 9);
    CHECK(read_all(csv) == rows{{"abcd", "efgh"}});
}

TEST_CASE("a huge line in a file is rejected once it passes the limit") {
    // 4 MiB on one line against a 64 KiB limit: the reader must stop at the limit.
    const temp_file file(std::string("id,blob\n1,").append(std::size_t{4} << 20, 'x').append("\n"));
    csv_reader csv(file.path, std::size_t{64} << 10, 4096);
    csv.read_header();
    csv_record record;
    try {
        csv.next(record);
        FAIL("no input_error was thrown");
    } catch (const input_error& e) {
        CHECK(e.file() == file.path.string());
        CHECK(e.line() == 2);
        CHECK(e.field() == "blob");
        CHECK(e.reason() == "record is longer than 65536 bytes");
    }
}

TEST_CASE("the size limit reads as MiB when it is whole MiB") {
    const temp_file file(std::string("x").append(std::size_t{1} << 20, 'y'));
    csv_reader csv(file.path, std::size_t{1} << 20);
    try {
        csv.read_header();
        FAIL("no input_error was thrown");
    } catch (const input_error& e) {
        CHECK(e.file() == file.path.string());
        CHECK(e.line() == 1);
        CHECK(e.field() == "");
        CHECK(e.reason() == "record is longer than 1 MiB");
    }
}

TEST_CASE("a NUL byte means the input is not a text file") {
    const input_error e = error_reading(std::string_view("a,b\n1,2\n3,\0\n", 12));
    CHECK(e.file() == "mem.csv");
    CHECK(e.line() == 3);
    CHECK(e.field() == "b");
    CHECK(e.reason() == "not a text file (found a NUL byte)");
}

TEST_CASE("a gzip file is not a text file") {
    const temp_file file(std::string_view("\x1f\x8b\x08\x00\x00\x00\x00\x00", 8));
    csv_reader csv(file.path, no_limit);
    try {
        csv.read_header();
        FAIL("no input_error was thrown");
    } catch (const input_error& e) {
        CHECK(e.file() == file.path.string());
        CHECK(e.line() == 1);
        CHECK(e.field() == "");
        CHECK(e.reason() == "not a text file (found control byte 0x1f)");
    }
}

TEST_CASE("tabs and ANSI escapes are text") {
    CHECK(parse("a\tb,\x1b[31mred\x1b[0m\n") == rows{{"a\tb", "\x1b[31mred\x1b[0m"}});
}

TEST_CASE("a count written as a float by pandas reads as a whole number") {
    CHECK(one_cell("39.0").row().count(0) == 39);
}

TEST_CASE("an empty count cell is absent") {
    CHECK_FALSE(one_cell("").row().count(0).has_value());
}

TEST_CASE("a fractional count is an error") {
    require_cell_error("39.5", [](const csv_row& row) { (void)row.count(0); },
                       "not a whole number: '39.5'");
}

TEST_CASE("a negative count is an error") {
    require_cell_error("-1", [](const csv_row& row) { (void)row.count(0); },
                       "must not be negative, got '-1'");
}

TEST_CASE("a cell that is not a number is an error") {
    require_cell_error("12ms", [](const csv_row& row) { (void)row.number(0); },
                       "not a number: '12ms'");
}

TEST_CASE("numbers may carry a plus sign, an exponent and surrounding spaces") {
    CHECK(one_cell("+1.5").row().number(0) == 1.5);
    CHECK(one_cell("2.5e-3").row().number(0) == 0.0025);
    CHECK(one_cell(" 7 ").row().number(0) == 7.0);
}

TEST_CASE("a missing column reads as an empty cell") {
    CHECK_FALSE(one_cell("1").row().number(std::nullopt).has_value());
}

TEST_CASE("booleans read as True/False, true/false or 1/0") {
    CHECK(one_cell("True").row().boolean(0) == true);
    CHECK(one_cell("False").row().boolean(0) == false);
    CHECK(one_cell("true").row().boolean(0) == true);
    CHECK(one_cell("0").row().boolean(0) == false);
    CHECK(one_cell("1").row().boolean(0) == true);
}

TEST_CASE("any other boolean is an error") {
    require_cell_error("yes", [](const csv_row& row) { (void)row.boolean(0); },
                       "expected True or False, got 'yes'");
}

TEST_CASE("an infinite duration is an error") {
    require_cell_error("inf", [](const csv_row& row) { (void)row.required_duration(0); },
                       "must be a finite number >= 0, got 'inf'");
}

TEST_CASE("an optional duration may be NaN, which means absent") {
    CHECK_FALSE(one_cell("NaN").row().optional_duration(0).has_value());
}

TEST_CASE("an HTTP status outside 100-599 is an error") {
    require_cell_error("2000.0", [](const csv_row& row) { (void)row.http_status(0); },
                       "not an HTTP status code: '2000.0'");
}

TEST_CASE("a leading HTTP NNN in an error text is its HTTP status") {
    using servestat::detail::leading_http_status;
    CHECK(leading_http_status("HTTP 400: {\"error\": ...}") == 400);
    CHECK(leading_http_status("HTTP 503") == 503);
    CHECK_FALSE(leading_http_status("HTTP 4000: nope").has_value());
    CHECK_FALSE(leading_http_status("got HTTP 400").has_value());
}

TEST_CASE("an error without an HTTP status is told apart by its wording") {
    using servestat::detail::classify_failure_text;
    CHECK(classify_failure_text("Read timed out. (read timeout=120)", std::nullopt).status == request_status::timeout);
    CHECK(classify_failure_text("ReadTimeout('')", std::nullopt).status == request_status::timeout);
    CHECK(classify_failure_text("[Errno 111] Connection refused", std::nullopt).status == request_status::transport);
    CHECK(classify_failure_text("ConnectionError: boom", std::nullopt).status == request_status::transport);
    CHECK(classify_failure_text("Connection reset by peer", std::nullopt).status == request_status::transport);
    CHECK(classify_failure_text("No room for output tokens", std::nullopt).status == request_status::error);
}

TEST_CASE("an HTTP status makes a failure an error even when its text says timeout") {
    const auto failure = servestat::detail::classify_failure_text("HTTP 504: upstream timed out", std::nullopt);
    CHECK(failure.status == request_status::error);
    CHECK(failure.http_status == 504);
}

TEST_CASE("sniffing reads the header even when the head is cut mid-row") {
    CHECK(servestat::detail::sniff_csv_header("a,\"b,c\",d\r\n1,2,3,4\n5,") ==
          std::vector<std::string>{"a", "b,c", "d"});
}

TEST_CASE("sniffing a binary head finds no header") {
    CHECK(servestat::detail::sniff_csv_header(std::string_view("\x1f\x8b\x08\0", 4)).empty());
}

} // namespace test_csv
