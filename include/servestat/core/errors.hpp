// Exception types: every input problem names the file, line and field it came from.
#pragma once

#include <cstddef>   // std::size_t
#include <stdexcept> // std::runtime_error
#include <string>    // std::string
#include <utility>   // std::move

#include "servestat/core/utf8.hpp" // to_valid_utf8, shortened_in_middle

namespace servestat {

// Base of everything the library throws on purpose. Library code never prints or exits; the CLI
// turns these into messages and exit codes.
class error : public std::runtime_error {
public:
    // Messages quote file names and input bytes and end up in JSON and HTML: valid UTF-8 only, and
    // a hostile 50 MB line quoted in one is shortened in its middle, so that its end, which says
    // why, is kept (M2).
    static constexpr std::size_t max_message_chars = 4000;
    explicit error(const std::string& message)
        : std::runtime_error(shortened_in_middle(to_valid_utf8(message), max_message_chars)) {}
};

// Bad input data. file/line/field are empty or 0 when they do not apply (line 0 = whole file).
class input_error : public error {
public:
    // Each part is shortened on its own, so that a 5,000-character path or field name leaves the
    // reason whole, and the message as a whole stays under max_message_chars.
    static constexpr std::size_t max_file_chars = 800, max_field_chars = 400, max_reason_chars = 2600;
    input_error(std::string file, std::size_t line, std::string field, const std::string& message)
        : error(describe(shortened_in_middle(file, max_file_chars), line, shortened_in_middle(field, max_field_chars),
                         shortened_in_middle(message, max_reason_chars))),
          file_(to_valid_utf8(file)), line_(line), field_(to_valid_utf8(field)),
          reason_(shortened_in_middle(to_valid_utf8(message), max_reason_chars)) {}

    const std::string& file() const noexcept { return file_; }
    std::size_t line() const noexcept { return line_; }
    const std::string& field() const noexcept { return field_; }
    // The message without the location prefix, for counting skipped lines by cause.
    const std::string& reason() const noexcept { return reason_; }

private:
    static std::string describe(const std::string& file, std::size_t line, const std::string& field,
                                const std::string& message) {
        // Appends rather than operator+ chains: g++ 12 -O2 flags those with a false -Wrestrict.
        std::string out = file.empty() ? std::string("<input>") : file;
        if (line > 0) out.append(":").append(std::to_string(line));
        out.append(": ");
        if (!field.empty()) out.append("field '").append(field).append("': ");
        return out.append(message);
    }

    std::string file_;
    std::size_t line_;
    std::string field_;
    std::string reason_;
};

// A readable file that no format recognises: the user must say how to read it (--map or
// --input-format), so the CLI treats it as a usage error (exit 2) while it keeps the file's name.
class unrecognised_input_error : public input_error {
public:
    using input_error::input_error;
};

// A file a format recognises that holds no run servestat reads (AIPerf's v2 report): named alone it
// is an error; met in a folder it is passed over with this reason, beside the runs read.
class not_a_run_error : public input_error {
public:
    using input_error::input_error;
};

// Misuse of the API or the CLI: an unknown quantile method, a malformed --slo, and the like.
class usage_error : public error {
public:
    explicit usage_error(const std::string& message) : error(message) {}
};

} // namespace servestat
