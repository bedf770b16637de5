// The requests of a large CSV file read in pieces side by side. A CSV file cannot be cut at any line
// end: a quoted field may span lines. A line end is outside quotes when an even number of quote
// characters precede it (a quoted field holds its quotes doubled), so the pieces' quotes are
// counted first, side by side, and a cut that falls inside quotes moves on to the next line end
// outside them. Parity is exact for RFC 4180 files; a stray quote in an unquoted field (which the
// reader keeps as text) upsets it, so the cuts are also checked: the first piece starts after the
// header, where a record starts, and a piece read without an error ended outside quotes, so the
// next piece's start was a record's start too. Any piece with an error (an unterminated quote at
// its end, a bad row, a skipped row) sends the whole file to one thread, which then gives the
// error or the skipped rows with the line numbers of a plain read. Either way the table is the one
// a single thread builds, row for row.
#pragma once

#include <algorithm>  // std::count, std::min
#include <atomic>     // std::atomic
#include <cstdint>    // std::uintmax_t
#include <cstdio>     // std::fread, std::fseek
#include <cstddef>    // std::size_t
#include <filesystem> // std::filesystem::path
#include <string>      // std::to_string
#include <string_view> // std::string_view
#include <vector>     // std::vector

#include "servestat/core/errors.hpp"         // input_error
#include "servestat/core/parallel.hpp"       // parallel_for, resolve_threads
#include "servestat/core/request_record.hpp" // request_record
#include "servestat/core/request_table.hpp"  // request_table
#include "servestat/core/run.hpp"            // skipped_lines
#include "servestat/ingest/csv.hpp"          // csv_reader, csv_row, for_each_csv_row
#include "servestat/ingest/input_file.hpp"   // open_input, input_file
#include "servestat/ingest/line_source.hpp"  // plan_pieces, byte_range
#include "servestat/ingest/reader.hpp"       // read_options

namespace servestat::detail {

// Reads bytes [begin, end) of a file in blocks, handing each to use(block, offset); use returns false to stop.
template <class Use>
void scan_bytes(const std::filesystem::path& file, byte_range range, Use&& use) {
    const input_file f = open_input(file);
    if (std::fseek(f.get(), static_cast<long>(range.begin), SEEK_SET) != 0)
        throw input_error(file.string(), 0, "", "cannot seek to byte " + std::to_string(range.begin));
    std::vector<char> block(std::size_t{1} << 16);
    for (std::uintmax_t at = range.begin; at < range.end;) {
        const auto want = static_cast<std::size_t>(std::min<std::uintmax_t>(block.size(), range.end - at));
        const std::size_t got = std::fread(block.data(), 1, want, f.get());
        if (got == 0) return;
        if (!use(std::string_view(block.data(), got), at)) return;
        at += got;
    }
}

inline std::uintmax_t count_quotes(const std::filesystem::path& file, byte_range range) {
    std::uintmax_t quotes = 0;
    scan_bytes(file, range, [&](std::string_view block, std::uintmax_t) {
        quotes += static_cast<std::uintmax_t>(std::count(block.begin(), block.end(), '"'));
        return true;
    });
    return quotes;
}

// From `at`, inside quotes, the start of the first line that begins outside them; `limit` if none
// does before it.
inline std::uintmax_t next_line_outside_quotes(const std::filesystem::path& file, std::uintmax_t at, std::uintmax_t limit) {
    bool inside = true;
    std::uintmax_t found = limit;
    scan_bytes(file, {at, limit}, [&](std::string_view block, std::uintmax_t offset) {
        for (std::size_t i = 0; i < block.size(); ++i) {
            if (block[i] == '"') inside = !inside;
            else if (block[i] == '\n' && !inside) {
                found = offset + i + 1;
                return false;
            }
        }
        return true;
    });
    return found;
}

// `ranges` (consecutive, the first starting outside quotes) with each cut that falls inside quotes
// moved to the next line start outside them; a cut moved to or past the next one is dropped.
inline std::vector<byte_range> cut_outside_quotes(const std::filesystem::path& file, const std::vector<byte_range>& ranges,
                                                  std::size_t threads) {
    std::vector<std::uintmax_t> quotes(ranges.size());
    parallel_for(ranges.size(), threads, [&](std::size_t k) { quotes[k] = count_quotes(file, ranges[k]); });
    std::vector<byte_range> out{ranges.front()};
    std::uintmax_t before = quotes.front(); // quotes before the cut at the end of out.back()
    for (std::size_t k = 1; k < ranges.size(); ++k) {
        std::uintmax_t cut = ranges[k].begin;
        if (before % 2 == 1) cut = next_line_outside_quotes(file, cut, ranges[k].end);
        before += quotes[k];
        if (cut >= ranges[k].end) {
            out.back().end = ranges[k].end; // the whole range was inside one field: joined to the piece before
            continue;
        }
        out.back().end = cut;
        out.push_back({cut, ranges[k].end});
    }
    return out;
}

// The pieces to read the records after the header `csv` has read, side by side: one range of bytes
// each, every cut at a line end outside quotes. One piece (or none) when the file is too small to
// cut or read on one thread.
inline std::vector<byte_range> csv_piece_ranges(const csv_reader& csv, const std::filesystem::path& file,
                                                const read_options& options) {
    const std::uintmax_t size = [&] {
        std::error_code ec;
        const auto n = std::filesystem::is_regular_file(file, ec) ? std::filesystem::file_size(file, ec) : 0;
        return ec ? std::uintmax_t{0} : n;
    }();
    const std::size_t threads = resolve_threads(options.threads);
    auto ranges = plan_pieces(file, {csv.next_record_offset(), size}, threads, options.min_piece_bytes);
    return ranges.empty() ? ranges : cut_outside_quotes(file, ranges, threads);
}

// Reads every piece of `ranges` on its own thread: read_piece(k, reader, clean) reads piece k's
// records from `reader` (a csv_reader over the piece, with the header of `csv`) while `clean` holds,
// throwing input_error at a bad one. True when every piece read without an error; false otherwise,
// when what the pieces read is to be dropped and the file read on one thread.
template <class ReadPiece>
bool read_csv_pieces(const csv_reader& csv, const std::filesystem::path& file, const read_options& options,
                     const std::vector<byte_range>& ranges, ReadPiece&& read_piece) {
    std::atomic<bool> clean = true;
    parallel_for(ranges.size(), ranges.size(), [&](std::size_t k) {
        try {
            csv_reader reader(file, options.max_line_bytes, ranges[k]);
            reader.use_header(csv);
            read_piece(k, reader, clean);
        } catch (const input_error&) {
            clean = false;
        }
    });
    return clean;
}

struct csv_requests_read {
    std::size_t records = 0; // skipped ones included
    std::size_t pieces = 1;  // how many readers the rows came from
};

// The records after the header `csv` has read, each made into a request by fill(row, record) and
// appended to `out`. `csv` must be a reader of `file` that has read only the header.
template <class Fill>
csv_requests_read read_csv_requests(csv_reader& csv, const std::filesystem::path& file, const read_options& options,
                                    request_table& out, skipped_lines& skipped, Fill&& fill) {
    if (const auto ranges = csv_piece_ranges(csv, file, options); ranges.size() > 1) {
        struct piece {
            request_table requests;
            std::size_t records = 0;
        };
        std::vector<piece> pieces(ranges.size());
        const auto read_piece = [&](std::size_t k, csv_reader& reader, const std::atomic<bool>& clean) {
            csv_record record;
            request_record request;
            while (clean && reader.next(record)) {
                request.clear();
                fill(csv_row(reader.name(), record, reader.header()), request);
                pieces[k].requests.push_back(request);
                ++pieces[k].records;
            }
        };
        if (read_csv_pieces(csv, file, options, ranges, read_piece)) {
            std::size_t records = 0;
            for (auto& p : pieces) {
                records += p.records;
                if (out.empty()) out = std::move(p.requests);
                else out.append(std::move(p.requests));
            }
            return {records, pieces.size()};
        }
    }
    request_record request;
    const std::size_t records = for_each_csv_row(csv, options, skipped, [&](const csv_row& row) {
        request.clear();
        fill(row, request);
        out.push_back(request);
    });
    return {records, 1};
}

} // namespace servestat::detail
