// The readers: one built-in format forced (--input-format), auto-detection (the CLI on an unknown
// file), and --map with fixed mappings. Every reader reads a real file: the input bytes in a memfd.
#include <exception>   // std::exception
#include <optional>    // std::optional
#include <string>      // std::string
#include <string_view> // std::string_view
#include <vector>      // std::vector

#include <servestat/core/request_record.hpp> // identical
#include <servestat/ingest/detect.hpp> // find_format, detect_format, read_runs, load_options

#include "internal.hpp"

namespace servestat_fuzz {
namespace {

struct outcome {
    bool ok = false;
    std::vector<servestat::run> runs;
    std::string error; // what an input_error said
};

// The error contract of a reader: it returns runs, or throws input_error naming the file it was
// given. usage_error is allowed only where `usage_names_file` (--map's missing names), and then its
// message must name the file.
template <class Read>
outcome guarded_read(std::string_view target, const std::string& path, bool usage_names_file, Read&& read) {
    try {
        return {true, read()};
    } catch (const servestat::input_error& e) {
        if (e.file() != path)
            violation(target, "input_error names the file '" + e.file() + "', not '" + path + "': " + e.what());
        return {false, {}, e.what()};
    } catch (const servestat::usage_error& e) {
        if (!usage_names_file) violation(target, std::string("usage_error from a reader: ") + e.what());
        if (std::string_view(e.what()).find(path) == std::string_view::npos)
            violation(target, std::string("usage_error without the file name: ") + e.what());
        return {};
    } catch (...) {
        escaped(target);
    }
}

// Readers that split a file into pieces read side by side (the canonical log, CSV logs) must give
// what one thread gives: the same rows bit for bit, or the same first error. Pieces of 64 bytes put
// cuts everywhere a small input can have them.
template <class Read>
void same_in_pieces(std::string_view target, const std::string& path, const outcome& serial, servestat::load_options o,
                    bool usage_names_file, Read&& read) {
    o.read.threads = 3;
    o.read.min_piece_bytes = 64;
    const outcome pieces = guarded_read(target, path, usage_names_file, [&] { return read(path, o); });
    if (pieces.ok != serial.ok) violation(target, "reading in pieces changed whether the file reads: " + pieces.error + serial.error);
    if (pieces.error != serial.error) violation(target, "reading in pieces changed the error: " + pieces.error + " / " + serial.error);
    if (!pieces.ok) return;
    if (pieces.runs.size() != serial.runs.size()) violation(target, "reading in pieces changed the number of runs");
    for (std::size_t r = 0; r < serial.runs.size(); ++r) {
        const auto &a = serial.runs[r].requests, &b = pieces.runs[r].requests;
        if (a.size() != b.size()) violation(target, "reading in pieces changed a run's request count");
        for (std::size_t i = 0; i < a.size(); ++i)
            if (!servestat::identical(a.row(i), b.row(i))) violation(target, "reading in pieces changed request " + std::to_string(i));
    }
}

// Strict (the default options), then --skip-bad with a small line limit. What reads strictly must
// read the same way with --skip-bad, skipping nothing, when no line can reach the limit.
template <class Read>
void read_both_ways(std::string_view target, std::string_view bytes, servestat::load_options o, bool usage_names_file,
                    Read&& read) {
    const std::string& path = memory_file(bytes);
    const outcome strict = guarded_read(target, path, usage_names_file, [&] { return read(path, o); });
    if (strict.ok) check_runs(target, strict.runs);
    same_in_pieces(target, path, strict, o, usage_names_file, read);
    constexpr std::size_t small_limit = 4096;
    o.read.skip_bad = true;
    o.read.max_line_bytes = small_limit;
    const outcome lenient = guarded_read(target, path, usage_names_file, [&] { return read(path, o); });
    if (lenient.ok) check_runs(target, lenient.runs);
    if (!strict.ok || bytes.size() >= small_limit) return;
    if (!lenient.ok) violation(target, "reads without --skip-bad but fails with it");
    if (lenient.runs.size() != strict.runs.size()) violation(target, "--skip-bad changed the number of runs");
    for (std::size_t i = 0; i < strict.runs.size(); ++i) {
        if (lenient.runs[i].requests.size() != strict.runs[i].requests.size())
            violation(target, "--skip-bad changed a run's request count");
        if (lenient.runs[i].skipped.count != 0) violation(target, "--skip-bad skipped lines of a file that reads strictly");
    }
}

// Sniffers see any bytes and must never throw.
const servestat::log_format* sniff_all(std::string_view target, std::string_view head) {
    try {
        for (const auto* f : servestat::builtin_formats) (void)f->sniff(head);
        return servestat::detect_format(head);
    } catch (...) {
        escaped(target);
    }
}

} // namespace

int read_format(std::string_view target, std::string_view format, const std::uint8_t* data, std::size_t size) {
    if (size > max_input_bytes) return 0;
    const std::string_view bytes = as_text(data, size);
    const servestat::log_format& f = servestat::find_format(format);
    try {
        (void)f.sniff(bytes);
    } catch (...) {
        escaped(target);
    }
    servestat::load_options o;
    o.input_format = std::string(format);
    read_both_ways(target, bytes, o, false,
                   [](const std::string& path, const servestat::load_options& lo) { return servestat::read_runs(path, lo); });
    return 0;
}

int read_detected(const std::uint8_t* data, std::size_t size) {
    constexpr std::string_view target = "detect";
    if (size > max_input_bytes) return 0;
    const std::string_view bytes = as_text(data, size);
    const servestat::log_format* sniffed = sniff_all(target, bytes);
    const std::string& path = memory_file(bytes);
    // detect_file_format sees the same head, so it must pick the same format or explain why none.
    const outcome detected = guarded_read(target, path, false, [&] {
        const servestat::log_format& f = servestat::detect_file_format(path);
        if (&f != sniffed) violation(target, "detect_file_format and detect_format disagree");
        return std::vector<servestat::run>{};
    });
    if (!detected.ok && sniffed != nullptr) violation(target, "detect_file_format failed where detect_format found a format");
    read_both_ways(target, bytes, {}, false,
                   [](const std::string& path, const servestat::load_options& lo) { return servestat::read_runs(path, lo); });
    return 0;
}

namespace {

struct fixed_mapping {
    std::string_view map, ok_if;
};

// The mappings of tests/data/mapped (tests/test_ingest_mapped.cpp, docs/formats.md).
constexpr fixed_mapping csv_mapping{
    "ttft=TTFT:ms,e2e=response_time:s,t_sent=start:epoch_s,prompt_tokens=input_tokens,"
    "output_tokens=usage.completion_tokens,error=error_message",
    "error_code=="};
constexpr fixed_mapping jsonl_mapping{
    "t_sent=timing.sent_ns:epoch_ns,t_first=timing.first_ns:epoch_ns,t_end=timing.end_ns:epoch_ns,"
    "prompt_tokens=usage.prompt_tokens,output_tokens=usage.completion_tokens,status=outcome.status,"
    "http_status=outcome.http,error=outcome.message",
    ""};
constexpr fixed_mapping array_mapping{
    "e2e=latency_ms:ms,ttft=ttft_us:us,itl=gaps_ms:ms,prompt_tokens=tokens.in,output_tokens=tokens.out,error=error",
    "ok==true"};
constexpr fixed_mapping document_mapping{
    "records=results,t_sent=start_time:epoch_s,t_first=first_token_time:epoch_s,t_end=end_time:epoch_s,"
    "prompt_tokens=input_tokens,output_tokens=output_tokens,http_status=error_code,error=error_text",
    "error_text== && error_code=="};

const fixed_mapping& mapping_for(std::string_view bytes) {
    const auto first = bytes.find_first_not_of(" \t\r\n\xEF\xBB\xBF");
    if (first == std::string_view::npos) return csv_mapping;
    if (bytes[first] == '[') return array_mapping;
    if (bytes[first] == '{') return bytes.find("\"results\"") != std::string_view::npos ? document_mapping : jsonl_mapping;
    return csv_mapping;
}

} // namespace

int read_mapped_file(const std::uint8_t* data, std::size_t size) {
    constexpr std::string_view target = "mapped";
    if (size > max_input_bytes) return 0;
    const std::string_view bytes = as_text(data, size);
    const fixed_mapping& m = mapping_for(bytes);
    servestat::load_options o;
    o.mapping = servestat::parse_mapping(m.map, m.ok_if);
    read_both_ways(target, bytes, o, true,
                   [](const std::string& path, const servestat::load_options& lo) { return servestat::read_runs(path, lo); });
    return 0;
}

} // namespace servestat_fuzz
