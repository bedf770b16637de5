// The libFuzzer harnesses' shared entry points. Each fuzz_<target> executable is one generated
// LLVMFuzzerTestOneInput calling one of these; all the logic lives in the few translation units of
// the servestat_fuzz_harness library, compiled once.
#pragma once

#include <cstddef>     // std::size_t
#include <cstdint>     // std::uint8_t
#include <string>      // std::string
#include <string_view> // std::string_view

namespace servestat_fuzz {

// Inputs over this many bytes are skipped (each input's work stays bounded).
inline constexpr std::size_t max_input_bytes = 64 * 1024;

// ---- common.cpp ----------------------------------------------------------------------------------
// A file holding exactly these bytes: one memfd per process, rewritten per input; "/proc/self/fd/N".
const std::string& memory_file(std::string_view bytes);
// Prints "servestat-fuzz [target] CONTRACT VIOLATION: what" and aborts (libFuzzer saves the input).
[[noreturn]] void violation(std::string_view target, std::string_view what);
bool valid_utf8(std::string_view s);

// ---- readers.cpp ----------------------------------------------------------------------------------
// The reader of one built-in format (find_format(name)), then the CLI's per-run statistics.
int read_format(std::string_view target, std::string_view format, const std::uint8_t* data, std::size_t size);
// The CLI's path on an unknown file: detect_file_format + read_runs.
int read_detected(const std::uint8_t* data, std::size_t size);
// read_mapped with a fixed mapping chosen by the content's shape (CSV, JSON array, JSON Lines, a document).
int read_mapped_file(const std::uint8_t* data, std::size_t size);

// ---- checks.cpp ----------------------------------------------------------------------------------
int csv_records(const std::uint8_t* data, std::size_t size);
int canonical_line(const std::uint8_t* data, std::size_t size);
int summary_file(const std::uint8_t* data, std::size_t size);
int prometheus_text(const std::uint8_t* data, std::size_t size);
int iso_time(const std::uint8_t* data, std::size_t size);
int file_name_params(const std::uint8_t* data, std::size_t size);
int yaml_document(const std::uint8_t* data, std::size_t size);

// ---- expressions.cpp ---------------------------------------------------------------------------
int mapping_spec(const std::uint8_t* data, std::size_t size);
int slo(const std::uint8_t* data, std::size_t size);
int sweet_spot(const std::uint8_t* data, std::size_t size);
int bucket(const std::uint8_t* data, std::size_t size);
int fail_on(const std::uint8_t* data, std::size_t size);
int user_template(const std::uint8_t* data, std::size_t size);

// ---- driver.cpp ------------------------------------------------------------------------------------
int sse_stream(const std::uint8_t* data, std::size_t size);
int response_stream(const std::uint8_t* data, std::size_t size);

} // namespace servestat_fuzz
