// Reading a canonical log or a CSV log in pieces on several threads gives what reading it on one
// gives: the same rows bit for bit, the same skipped lines with the same line numbers, the same
// first error.
#include "servestat/ingest/canonical_jsonl.hpp"
#include "servestat/ingest/csv_pieces.hpp"   // read_csv_requests
#include "servestat/ingest/detect.hpp"       // for_each_run, load_options
#include "servestat/ingest/mapped.hpp"       // read_mapped, read_mapped_csv_pieces
#include "servestat/ingest/notebook_csv.hpp" // read_notebook_csv, read_notebook_row

#include <algorithm>  // std::count
#include <cstddef>    // std::size_t
#include <filesystem> // std::filesystem::path
#include <random>     // std::mt19937_64, std::uniform_int_distribution
#include <span>       // std::span
#include <string>     // std::string
#include <vector>     // std::vector

#include <catch2/catch.hpp> // TEST_CASE, REQUIRE, CHECK, INFO
#include <fmt/format.h>      // fmt::format

#include "temp_file.hpp" // servestat::test::temp_file

namespace test_parallel_read { // the unity build compiles several test files as one: each keeps its names

using servestat::read_options;
using servestat::run;

namespace {

struct log_shape {
    std::size_t requests = 3000;
    std::size_t bad_every = 0; // a malformed line every this many (0: none)
    bool trailing_newline = true;
};

// Lines of every kind a piece boundary may fall on: blank lines, CRLF ends, errors, ITL arrays,
// columns that appear only late in the file (server timings), Python-style spacing.
std::string make_log(const log_shape& shape) {
    std::mt19937_64 rng(99);
    std::uniform_int_distribution<int> die(0, 19);
    std::string text = R"({"servestat":"log","version":1,"run":{"label":"pieces"}})" "\n";
    double clock = 0;
    for (std::size_t i = 0; i < shape.requests; ++i) {
        clock += 0.001 * (1 + die(rng));
        const int kind = die(rng);
        std::string line = "{\"id\":\"" + std::to_string(i) + "\",\"t_sent\":" + std::to_string(clock);
        if (shape.bad_every > 0 && i % shape.bad_every == shape.bad_every / 2) line += ",\"t_end\":oops";
        else if (kind == 0) line += ",\"t_end\":" + std::to_string(clock + 0.002) + ",\"status\":\"error\",\"error\":\"overflow " + std::to_string(i % 3) + "\"";
        else {
            line += ",\"t_first\":" + std::to_string(clock + 0.05) + ",\"t_end\":" + std::to_string(clock + 0.5) +
                    ",\"prompt_tokens\":" + std::to_string(10 + die(rng)) + ",\"output_tokens\":20,\"status\":\"ok\"";
            if (kind == 1) line += ",\"itl\":[0.01,0.02]";
            if (i > shape.requests * 9 / 10) line += ",\"server_queue\":0.001";
        }
        line += kind == 2 ? ", \"trimmed\": true}" : "}";
        text += line + (kind == 3 ? "\r\n" : "\n");
        if (kind == 4) text += "\n";
    }
    if (!shape.trailing_newline) text.pop_back();
    return text;
}

using servestat::test::temp_file;

run read_with(const std::filesystem::path& path, std::size_t threads, bool skip_bad) {
    read_options o;
    o.threads = threads;
    o.min_piece_bytes = 1024; // small pieces: many boundaries in a small file
    o.skip_bad = skip_bad;
    auto runs = servestat::detail::read_canonical_log(path, o);
    REQUIRE(runs.size() == 1);
    return std::move(runs.front());
}

void require_same(const run& a, const run& b) {
    REQUIRE(a.requests.size() == b.requests.size());
    for (std::size_t i = 0; i < a.requests.size(); ++i) {
        INFO("row " << i);
        REQUIRE(servestat::identical(a.requests.row(i), b.requests.row(i)));
    }
    CHECK(a.requests.server_queue().size() == b.requests.server_queue().size());
    CHECK(a.requests.error_strings().size() == b.requests.error_strings().size());
    CHECK(a.skipped.count == b.skipped.count);
    CHECK(a.skipped.examples == b.skipped.examples);
}

std::string error_of(const std::filesystem::path& path, std::size_t threads) {
    try {
        read_with(path, threads, false);
    } catch (const servestat::input_error& e) {
        return e.what();
    }
    return "no error";
}

} // namespace

TEST_CASE("A log read in pieces on many threads equals the log read on one", "[parallel][canonical]") {
    for (bool trailing : {true, false}) {
        const temp_file file(make_log({.trailing_newline = trailing}));
        const auto& path = file.path();
        const run serial = read_with(path, 1, false);
        REQUIRE(serial.requests.size() == 3000);
        for (std::size_t threads : {2, 3, 7, 64}) {
            INFO(threads << " threads, trailing newline " << trailing);
            require_same(serial, read_with(path, threads, false));
        }
    }
}

TEST_CASE("Skipped lines keep their numbers and order when read in pieces", "[parallel][canonical]") {
    const temp_file file(make_log({.bad_every = 97}));
    const auto& path = file.path();
    const run serial = read_with(path, 1, true);
    REQUIRE(serial.skipped.count == 31);
    REQUIRE(serial.skipped.examples.size() == 5);
    for (std::size_t threads : {2, 5, 16}) {
        INFO(threads << " threads");
        require_same(serial, read_with(path, threads, true));
    }
}

TEST_CASE("The first bad line of the file is the error, whichever piece finishes first", "[parallel][canonical]") {
    const std::string text = make_log({.bad_every = 997});
    const temp_file file(text);
    const auto& path = file.path();
    const std::string serial = error_of(path, 1);
    // The first "oops" (request 498) is on the line after as many line ends as precede it.
    const auto first_bad_line = 1 + std::count(text.begin(), text.begin() + static_cast<long>(text.find("oops")), '\n');
    CHECK(serial.find(":" + std::to_string(first_bad_line) + ":") != std::string::npos);
    for (std::size_t threads : {2, 4, 9}) CHECK(error_of(path, threads) == serial);
}

TEST_CASE("A line over the length limit is reported at its line in any piece", "[parallel][canonical]") {
    std::string text = make_log({});
    const auto cut = text.find('\n', text.size() * 3 / 4);
    text.insert(cut + 1, "{\"error\":\"" + std::string(3000, 'x') + "\"}\n");
    const temp_file file(text);
    const auto& path = file.path();
    read_options o;
    o.max_line_bytes = 2048;
    o.min_piece_bytes = 1024;
    std::string errors[2];
    for (std::size_t threads : {1, 4}) {
        o.threads = threads;
        try {
            servestat::detail::read_canonical_log(path, o);
        } catch (const servestat::input_error& e) {
            errors[threads == 4] = e.what();
        }
    }
    CHECK_FALSE(errors[0].empty());
    CHECK(errors[0] == errors[1]);
}

TEST_CASE("Files read side by side come out in the order given, an error in its turn", "[parallel][files]") {
    // examples/logs: four logs in a directory, read as a directory and as named files.
    const std::string dir = SERVESTAT_TEST_DATA_DIR "/../../examples/logs";
    const std::vector<std::string> inputs{dir};
    const auto labels = [&](std::size_t threads, std::span<const std::string> what) {
        servestat::load_options o;
        o.read.threads = threads;
        std::vector<std::string> out;
        servestat::for_each_run(what, o, [&](run&& r) {
            out.push_back(r.meta.label + ":" + std::to_string(r.requests.size()) + ":" +
                          std::to_string(r.requests.t_end().empty() ? 0.0 : r.requests.t_end().back()));
        });
        return out;
    };
    const auto serial = labels(1, inputs);
    REQUIRE(serial.size() == 4);
    CHECK(labels(3, inputs) == serial);
    CHECK(labels(8, inputs) == serial);

    // Named files, the third missing: the two before it are consumed, then its error is raised.
    const std::vector<std::string> named{dir + "/mix_50_50-c16.jsonl", dir + "/mix_70_30-c16.jsonl", dir + "/nowhere.jsonl",
                                         dir + "/short_only-c16.jsonl"};
    for (std::size_t threads : {1, 4}) {
        servestat::load_options o;
        o.read.threads = threads;
        std::vector<std::string> consumed;
        std::string error;
        try {
            servestat::for_each_run(named, o, [&](run&& r) { consumed.push_back(r.meta.label); });
        } catch (const servestat::input_error& e) {
            error = e.what();
        }
        INFO(threads << " threads");
        CHECK(consumed == std::vector<std::string>{"mix_50_50-c16", "mix_70_30-c16"});
        CHECK(error.find("nowhere.jsonl") != std::string::npos);
    }
}

namespace {

// The notebook's per-request CSV (pandas to_csv) with what makes CSV hard to cut: error texts quoted
// over several lines (some with CRLF inside), doubled quotes and commas in them, CRLF record ends,
// blank lines. `long_field_at` puts one quoted field of `long_lines` lines there.
std::string make_notebook_csv(std::size_t rows, std::size_t long_field_at = 0, std::size_t long_lines = 0) {
    std::mt19937_64 rng(7);
    std::uniform_int_distribution<int> die(0, 9);
    std::string text = ",latency_s,ok,error,status_code,prompt_tokens,completion_tokens\n";
    for (std::size_t i = 0; i < rows; ++i) {
        const int kind = die(rng);
        std::string row = std::to_string(i) + ",";
        if (long_lines > 0 && i == long_field_at) {
            row += ",False,\"HTTP 500: {\"\"trace\"\":";
            for (std::size_t k = 0; k < long_lines; ++k) row += "\n  at frame " + std::to_string(k) + ", line 1";
            row += "}\",,,";
        } else if (kind == 0) {
            row += ",False,\"HTTP 400: {\"\"error\"\": \"\"too long,\r\nsee docs\"\"}\nretry later\",,,";
        } else {
            row += std::to_string(0.5 + 0.001 * static_cast<double>(i % 977)) + ",True,," + (kind == 1 ? "200.0" : "200") + "," +
                   std::to_string(10 + die(rng)) + "," + std::to_string(20 + die(rng));
        }
        text += row + (kind == 2 ? "\r\n" : "\n");
        if (kind == 3) text += "\n";
    }
    return text;
}

run read_notebook_with(const std::filesystem::path& path, std::size_t threads, bool skip_bad = false) {
    read_options o;
    o.threads = threads;
    o.min_piece_bytes = 1024;
    o.skip_bad = skip_bad;
    auto runs = servestat::detail::read_notebook_csv(path, o);
    REQUIRE(runs.size() == 1);
    return std::move(runs.front());
}

// How many pieces the rows of a notebook CSV came from on `threads` threads.
std::size_t pieces_read(const std::filesystem::path& path, std::size_t threads) {
    read_options o;
    o.threads = threads;
    o.min_piece_bytes = 1024;
    servestat::detail::csv_reader csv(path, o.max_line_bytes);
    csv.read_header();
    const auto columns = servestat::detail::find_notebook_columns(csv);
    servestat::request_table table;
    servestat::skipped_lines skipped;
    return servestat::detail::read_csv_requests(csv, path, o, table, skipped,
                                                [&](const servestat::detail::csv_row& row, servestat::request_record& r) {
                                                    servestat::detail::read_notebook_row(row, columns, r);
                                                })
        .pieces;
}

std::string notebook_error_of(const std::filesystem::path& path, std::size_t threads) {
    try {
        read_notebook_with(path, threads);
    } catch (const servestat::input_error& e) {
        return e.what();
    }
    return "no error";
}

} // namespace

TEST_CASE("A CSV log read in pieces equals the log read on one thread, quoted line ends and all", "[parallel][csv]") {
    const temp_file file(make_notebook_csv(4000));
    const run serial = read_notebook_with(file.path(), 1);
    REQUIRE(serial.requests.size() == 4000);
    const auto failed = std::find_if(serial.requests.status().begin(), serial.requests.status().end(),
                                     [](auto s) { return s != servestat::request_status::ok; });
    REQUIRE(failed != serial.requests.status().end());
    CHECK(serial.requests.row(static_cast<std::size_t>(failed - serial.requests.status().begin())).error ==
          "HTTP 400: {\"error\": \"too long,\r\nsee docs\"}\nretry later"); // quoted line ends kept as written
    for (std::size_t threads : {2, 3, 7, 64}) {
        INFO(threads << " threads");
        CHECK(pieces_read(file.path(), threads) == std::min<std::size_t>(threads, std::filesystem::file_size(file.path()) / 1024));
        require_same(serial, read_notebook_with(file.path(), threads));
    }
}

TEST_CASE("A cut inside a quoted field moves to the field's end", "[parallel][csv]") {
    // A quoted field of 3000 lines (about half the file) in the middle: cuts at line ends inside it
    // are no record's start. Of 8 pieces' cuts, those in the field move past it, onto the next cut.
    const temp_file file(make_notebook_csv(2000, 1000, 3000));
    const run serial = read_notebook_with(file.path(), 1);
    REQUIRE(serial.requests.size() == 2000);
    const std::size_t pieces = pieces_read(file.path(), 8);
    CHECK(pieces > 1);
    CHECK(pieces < 8);
    require_same(serial, read_notebook_with(file.path(), 8));
}

TEST_CASE("A stray quote in an unquoted CSV field still reads as on one thread", "[parallel][csv]") {
    // The reader keeps the quote as text (as pandas does), which makes every later quote count odd:
    // cuts are then moved by a wrong parity, and the check of each piece's end must catch it.
    std::string text = make_notebook_csv(3000);
    const auto at = text.find("\n300,") + 1; // where row 300 starts
    text.insert(at, "9998,,False,he said \"hi,,,\n");
    const temp_file file(text);
    const run serial = read_notebook_with(file.path(), 1);
    REQUIRE(serial.requests.size() == 3001);
    for (std::size_t threads : {2, 3, 8}) {
        INFO(threads << " threads");
        require_same(serial, read_notebook_with(file.path(), threads));
    }
}

TEST_CASE("A bad CSV row gives the error and skipped lines of a read on one thread", "[parallel][csv]") {
    std::string text = make_notebook_csv(3000);
    const auto at = text.find("\n2000,") + 1; // where row 2000 starts
    text.insert(at, "9999,0.5,maybe,,200,1,1\n");
    const temp_file file(text);
    const std::string serial = notebook_error_of(file.path(), 1);
    const auto bad_line = 1 + std::count(text.begin(), text.begin() + static_cast<long>(at), '\n');
    CHECK(serial.find(":" + std::to_string(bad_line) + ":") != std::string::npos);
    for (std::size_t threads : {2, 5}) CHECK(notebook_error_of(file.path(), threads) == serial);
    const run skipping = read_notebook_with(file.path(), 1, true);
    REQUIRE(skipping.skipped.count == 1);
    require_same(skipping, read_notebook_with(file.path(), 5, true));
}

namespace {

// A CSV log read through --map: epoch start times in ms, durations in ms, an HTTP status, quoted error
// texts spanning lines. `untimed_first`: the first rows have no start time (failed before sending),
// so the clock's 0 is set by a later row.
std::string make_mapped_csv(std::size_t rows, std::size_t untimed_first = 0) {
    std::mt19937_64 rng(5);
    std::uniform_int_distribution<int> die(0, 9);
    std::string text = "start_ms,ttft_ms,latency_ms,code,err,prompt\n";
    double start = 1764115200123.0;
    for (std::size_t i = 0; i < rows; ++i) {
        start += 3 + die(rng);
        const int kind = die(rng);
        if (i < untimed_first) text += ",,,503,\"connect: refused,\nretrying\",12\n";
        else if (kind == 0) text += fmt::format("{:.0f},,,500,\"HTTP 500: {{\"\"error\"\": \"\"x\"\"}}\r\nbye\",{}\n", start, 20 + i % 7);
        else text += fmt::format("{:.0f},{:.1f},{:.1f},200,,{}\n", start, 40.0 + die(rng), 900.5 + 7 * die(rng), 10 + i % 300);
    }
    return text;
}

const servestat::mapping_spec& mapped_csv_spec() {
    static const auto spec = servestat::parse_mapping(
        "t_sent=start_ms:epoch_ms,ttft=ttft_ms:ms,e2e=latency_ms:ms,http_status=code,error=err,prompt_tokens=prompt");
    return spec;
}

run read_mapped_with(const std::filesystem::path& path, std::size_t threads, bool skip_bad = false) {
    read_options o;
    o.threads = threads;
    o.min_piece_bytes = 1024;
    o.skip_bad = skip_bad;
    auto runs = servestat::read_mapped(path, mapped_csv_spec(), o);
    REQUIRE(runs.size() == 1);
    return std::move(runs.front());
}

// The rows of a mapped CSV read in pieces on `threads` threads: 0 when it was read on one.
std::size_t mapped_rows_in_pieces(const std::filesystem::path& path, std::size_t threads) {
    read_options o;
    o.threads = threads;
    o.min_piece_bytes = 1024;
    servestat::detail::csv_reader csv(path, o.max_line_bytes);
    csv.read_header();
    const auto& spec = mapped_csv_spec();
    const auto columns = servestat::detail::header_columns(path, csv.header(), spec);
    const std::vector<std::size_t> fields(columns.begin(), columns.begin() + static_cast<long>(spec.fields.size())), rules;
    servestat::detail::mapped_run_builder builder(spec, path);
    return servestat::detail::read_mapped_csv_pieces(csv, path, o, builder,
        [&](servestat::detail::mapped_run_builder& to, const servestat::detail::csv_row& row) {
            to.add(servestat::detail::csv_access{row, fields, rules}, {row.file(), row.line(), "", ""});
        });
}

std::string mapped_error_of(const std::filesystem::path& path, std::size_t threads) {
    try {
        read_mapped_with(path, threads);
    } catch (const servestat::input_error& e) {
        return e.what();
    }
    return "no error";
}

} // namespace

TEST_CASE("A CSV log read through --map in pieces equals the log read on one thread", "[parallel][csv][map]") {
    const temp_file file(make_mapped_csv(4000));
    const run serial = read_mapped_with(file.path(), 1);
    REQUIRE(serial.requests.size() == 4000);
    CHECK(serial.meta.started_at.starts_with("2025-11-26T00:00:00.1")); // 1764115200 s is that midnight; the first start 126-135 ms after
    for (std::size_t threads : {2, 3, 7, 64}) {
        INFO(threads << " threads");
        CHECK(mapped_rows_in_pieces(file.path(), threads) == 4000);
        const run parallel = read_mapped_with(file.path(), threads);
        require_same(serial, parallel);
        CHECK(parallel.meta.notes == serial.meta.notes);
        CHECK(parallel.meta.started_at == serial.meta.started_at);
    }
}

TEST_CASE("The clock of a --map CSV read in pieces is set where one reader sets it", "[parallel][csv][map]") {
    // 50 rows without a start time first: the clock's 0 comes from row 51, as on one thread, so every
    // piece's provisional times (and the shift to the earliest start) are the single reader's.
    const temp_file file(make_mapped_csv(3000, 50));
    const run serial = read_mapped_with(file.path(), 1);
    for (std::size_t threads : {2, 5}) {
        INFO(threads << " threads");
        CHECK(mapped_rows_in_pieces(file.path(), threads) == 3000);
        require_same(serial, read_mapped_with(file.path(), threads));
    }
}

TEST_CASE("A bad --map CSV row gives the error and skipped lines of a read on one thread", "[parallel][csv][map]") {
    std::string text = make_mapped_csv(3000);
    const auto at = text.find('\n', text.size() * 2 / 3) + 1; // a row start two thirds in
    text.insert(at, "1764115299999,soon,900,200,,12\n");
    const temp_file file(text);
    const std::string serial = mapped_error_of(file.path(), 1);
    INFO(serial);
    CHECK(serial.find("ttft_ms") != std::string::npos);
    CHECK(mapped_rows_in_pieces(file.path(), 4) == 0); // a piece failed: the file goes to one thread
    for (std::size_t threads : {2, 4}) CHECK(mapped_error_of(file.path(), threads) == serial);
    const run skipping = read_mapped_with(file.path(), 1, true);
    REQUIRE(skipping.skipped.count == 1);
    require_same(skipping, read_mapped_with(file.path(), 4, true));
}

namespace {

// The same requests as JSON Lines: null where the CSV has an empty cell, blank lines between some.
std::string make_mapped_jsonl(std::size_t rows, std::size_t untimed_first = 0) {
    std::mt19937_64 rng(5);
    std::uniform_int_distribution<int> die(0, 9);
    std::string text;
    double start = 1764115200123.0;
    for (std::size_t i = 0; i < rows; ++i) {
        start += 3 + die(rng);
        const int kind = die(rng);
        if (i < untimed_first) text += R"({"start_ms":null,"code":503,"err":"connect: refused","prompt":12})" "\n";
        else if (kind == 0) text += fmt::format(R"({{"start_ms":{:.0f},"code":500,"err":"HTTP 500\nbye","prompt":{}}})" "\n", start, 20 + i % 7);
        else text += fmt::format(R"({{"start_ms": {:.0f}, "ttft_ms": {:.1f}, "latency_ms": {:.1f}, "code": 200, "prompt": {}}})" "\n",
                                 start, 40.0 + die(rng), 900.5 + 7 * die(rng), 10 + i % 300);
        if (kind == 1) text += "\n";
    }
    return text;
}

run read_mapped_jsonl_with(const std::filesystem::path& path, std::size_t threads, const char* map = nullptr) {
    read_options o;
    o.threads = threads;
    o.min_piece_bytes = 1024;
    const auto spec = map ? servestat::parse_mapping(map) : mapped_csv_spec();
    auto runs = servestat::read_mapped(path, spec, o);
    REQUIRE(runs.size() == 1);
    return std::move(runs.front());
}

std::size_t mapped_jsonl_rows_in_pieces(const std::filesystem::path& path, std::size_t threads) {
    read_options o;
    o.threads = threads;
    o.min_piece_bytes = 1024;
    servestat::detail::mapped_run_builder builder(mapped_csv_spec(), path);
    return servestat::detail::read_mapped_jsonl_pieces(path, mapped_csv_spec(), o, builder);
}

} // namespace

TEST_CASE("JSON Lines read through --map in pieces equal the lines read on one thread", "[parallel][map]") {
    const temp_file file(make_mapped_jsonl(4000, 30));
    const run serial = read_mapped_jsonl_with(file.path(), 1);
    REQUIRE(serial.requests.size() == 4000);
    for (std::size_t threads : {2, 3, 7, 64}) {
        INFO(threads << " threads");
        CHECK(mapped_jsonl_rows_in_pieces(file.path(), threads) == 4000);
        const run parallel = read_mapped_jsonl_with(file.path(), threads);
        require_same(serial, parallel);
        CHECK(parallel.meta.notes == serial.meta.notes);
        CHECK(parallel.meta.started_at == serial.meta.started_at);
    }
}

TEST_CASE("A misspelt --map name in JSON Lines read in pieces gives the one-thread error", "[parallel][map]") {
    const temp_file file(make_mapped_jsonl(3000));
    const char* map = "t_sent=start_ms:epoch_ms,ttft=ttft_ms:ms,e2e=latency_ms:ms,http_status=status_code";
    const auto error_of = [&](std::size_t threads) {
        try {
            read_mapped_jsonl_with(file.path(), threads, map);
        } catch (const servestat::error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    const std::string serial = error_of(1);
    CHECK(serial.find("no request has the key 'status_code'") != std::string::npos);
    for (std::size_t threads : {2, 4}) CHECK(error_of(threads) == serial);
}

} // namespace test_parallel_read
