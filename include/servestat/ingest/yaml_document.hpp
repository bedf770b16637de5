// Reading whole-document YAML formats (a peer tool's report saved through yaml.dump) as the same
// nlohmann::json value its JSON form gives, so one reader reads both: scalars are typed as the
// YAML 1.2 core schema types them, numbers are read exactly (the double nearest the decimal text,
// as a JSON number is), anchors and aliases are resolved, and every error is an input_error naming
// the file, the line (yaml-cpp's mark) and the field.
#pragma once

#include <charconv>     // std::from_chars
#include <cmath>        // std::isinf
#include <cstddef>      // std::size_t
#include <cstdint>      // std::int64_t, std::uint64_t
#include <exception>    // std::exception
#include <filesystem>   // std::filesystem::path
#include <limits>       // std::numeric_limits
#include <optional>     // std::optional
#include <sstream>      // std::istringstream
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <system_error> // std::errc
#include <utility>      // std::move
#include <vector>       // std::vector

#include <nlohmann/json.hpp> // nlohmann::json
#include <yaml-cpp/eventhandler.h> // YAML::EventHandler, YAML::anchor_t
#include <yaml-cpp/yaml.h>         // YAML::LoadAll, YAML::Node, YAML::Parser, YAML::ParserException

#include "servestat/core/errors.hpp"          // input_error
#include "servestat/ingest/json_document.hpp" // json_place, max_json_depth, json_path
#include "servestat/ingest/json_number.hpp"   // json_number (the exact decimal parse)

namespace servestat::detail {

// What YAML's non-finite floats (.inf, -.inf, .nan) become. JSON has none, so a reader whose JSON
// form goes through python_words_to_json (Python's json.dump writes Infinity and NaN) asks for the
// same replacements here, and a report gives the same value in both forms; by default they stay
// doubles, which json_number refuses as "not a finite number".
struct yaml_non_finite {
    bool replace = false;
    nlohmann::json infinity;          // what .inf becomes
    nlohmann::json negative_infinity; // what -.inf becomes
    // .nan always becomes null when replacing (python_words_to_json's NaN)
};

// python_words_to_json(text, "\"inf\"")'s replacements, and python_words_to_json(text, "null")'s.
inline yaml_non_finite yaml_non_finite_as_inf_strings() { return {true, "inf", "-inf"}; }
inline yaml_non_finite yaml_non_finite_as_null() { return {true, nullptr, nullptr}; }

struct yaml_document {
    nlohmann::json value;
    json_place place; // the file and the line the document's content starts on
    YAML::Node root;  // kept to find the line of a field an error names
};

// ---- scalars: the YAML 1.2 core schema ----------------------------------------------------

inline bool yaml_is_digits(std::string_view s, std::string_view alphabet = "0123456789") {
    return !s.empty() && s.find_first_not_of(alphabet) == std::string_view::npos;
}

inline bool yaml_is_null_word(std::string_view s) {
    return s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL";
}

// [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)? written in JSON's grammar (no '+', a digit
// on both sides of the point), or "" when `s` is not a core-schema float.
inline std::string yaml_float_as_json(std::string_view s) {
    std::string out;
    if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
        if (s[0] == '-') out += '-';
        s.remove_prefix(1);
    }
    const auto exponent_at = s.find_first_of("eE");
    const std::string_view mantissa = s.substr(0, exponent_at);
    const auto point = mantissa.find('.');
    const std::string_view whole = mantissa.substr(0, point);
    const std::string_view fraction = point == std::string_view::npos ? std::string_view() : mantissa.substr(point + 1);
    if (whole.empty() && fraction.empty()) return {};
    if (!whole.empty() && !yaml_is_digits(whole)) return {};
    if (!fraction.empty() && !yaml_is_digits(fraction)) return {};
    // JSON has no leading zeros: "007.5" is 7.5.
    const auto first_digit = whole.find_first_not_of('0');
    out.append(whole.empty() ? std::string_view("0")
               : first_digit == std::string_view::npos ? std::string_view("0")
                                                       : whole.substr(first_digit));
    if (point != std::string_view::npos) out.append(".").append(fraction.empty() ? std::string_view("0") : fraction);
    if (exponent_at != std::string_view::npos) {
        std::string_view exponent = s.substr(exponent_at + 1);
        out += 'e';
        if (!exponent.empty() && (exponent[0] == '-' || exponent[0] == '+')) {
            out += exponent[0];
            exponent.remove_prefix(1);
        }
        if (!yaml_is_digits(exponent)) return {};
        out.append(exponent);
    }
    return out;
}

// The double nearest to a JSON-grammar number: json_number.hpp's parse, or from_chars for what it
// leaves to its caller (an exponent of more than 5 digits). nullopt when out of a double's range.
inline std::optional<double> yaml_exact_double(const std::string& json_text) {
    double x = 0;
    if (json_number(json_text, x) == json_text.size()) return x;
    const auto [end, ec] = std::from_chars(json_text.data(), json_text.data() + json_text.size(), x);
    if (ec == std::errc() && end == json_text.data() + json_text.size()) return x;
    if (ec == std::errc::result_out_of_range) {
        // Underflow to zero is what a JSON parser gives too; only overflow is out of range.
        const auto e = json_text.find_first_of("eE");
        if (e != std::string::npos && json_text.find('-', e) != std::string::npos) return json_text[0] == '-' ? -0.0 : 0.0;
    }
    return std::nullopt;
}

// An unsigned integer in `base` (decimal digits, 0o octal, 0x hex), or nullopt past uint64.
inline std::optional<std::uint64_t> yaml_unsigned(std::string_view digits, int base) {
    std::uint64_t x = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), x, base);
    if (ec != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
    return x;
}

// A plain (unquoted, untagged) scalar as the core schema resolves it. Integers take nlohmann's
// types for the same JSON text: unsigned when not negative, signed when negative, a double when
// no 64-bit integer holds them.
inline nlohmann::json yaml_plain_scalar(const std::string& s, const yaml_non_finite& non_finite,
                                        const json_place& place, const std::string& path) {
    if (yaml_is_null_word(s)) return nullptr;
    if (s == "true" || s == "True" || s == "TRUE") return true;
    if (s == "false" || s == "False" || s == "FALSE") return false;
    const std::string_view v(s);
    if (v.size() > 2 && v[0] == '0' && v[1] == 'o' && yaml_is_digits(v.substr(2), "01234567")) {
        if (const auto x = yaml_unsigned(v.substr(2), 8)) return *x;
        place.fail(path, "octal integer " + s + " is out of range");
    }
    if (v.size() > 2 && v[0] == '0' && v[1] == 'x' && yaml_is_digits(v.substr(2), "0123456789abcdefABCDEF")) {
        if (const auto x = yaml_unsigned(v.substr(2), 16)) return *x;
        place.fail(path, "hexadecimal integer " + s + " is out of range");
    }
    const bool negative = !v.empty() && v[0] == '-';
    const std::string_view unsigned_part = !v.empty() && (v[0] == '-' || v[0] == '+') ? v.substr(1) : v;
    if (yaml_is_digits(unsigned_part)) {
        if (const auto x = yaml_unsigned(unsigned_part, 10)) {
            if (!negative) return *x;
            if (*x <= std::uint64_t{1} << 63) return static_cast<std::int64_t>(0 - *x);
        }
        // Beyond 64 bits: a double, as nlohmann reads such a JSON integer.
    }
    if (v == ".inf" || v == ".Inf" || v == ".INF" || v == "+.inf" || v == "+.Inf" || v == "+.INF")
        return non_finite.replace ? non_finite.infinity : nlohmann::json(std::numeric_limits<double>::infinity());
    if (v == "-.inf" || v == "-.Inf" || v == "-.INF")
        return non_finite.replace ? non_finite.negative_infinity
                                  : nlohmann::json(-std::numeric_limits<double>::infinity());
    if (v == ".nan" || v == ".NaN" || v == ".NAN")
        return non_finite.replace ? nlohmann::json(nullptr) : nlohmann::json(std::numeric_limits<double>::quiet_NaN());
    if (const std::string json_text = yaml_float_as_json(v); !json_text.empty()) {
        if (const auto x = yaml_exact_double(json_text)) return *x;
        place.fail(path, "number " + s + " is out of the range of a double");
    }
    return s;
}

inline constexpr std::string_view yaml_core_tag = "tag:yaml.org,2002:";

// A scalar with an explicit core tag (!!str, !!int, !!float, !!bool, !!null); other tags are
// taken as strings (they name application types that the report's JSON form would not have).
inline nlohmann::json yaml_tagged_scalar(const std::string& tag, const std::string& s,
                                         const yaml_non_finite& non_finite, const json_place& place,
                                         const std::string& path) {
    const std::string_view type = std::string_view(tag).substr(yaml_core_tag.size());
    if (type == "str") return s;
    const nlohmann::json value = yaml_plain_scalar(s, non_finite, place, path);
    const bool fits = (type == "int" && value.is_number_integer()) ||
                      (type == "float" && (value.is_number() || (non_finite.replace && !value.is_string()))) ||
                      (type == "bool" && value.is_boolean()) || (type == "null" && value.is_null());
    if (!fits) place.fail(path, "\"" + s + "\" is not a valid !!" + std::string(type));
    return type == "float" && value.is_number_integer() ? nlohmann::json(yaml_exact_double(yaml_float_as_json(s)).value_or(0.0))
                                                        : value;
}

// ---- nodes → JSON ---------------------------------------------------------------------------

// A node's line (1-based) for messages; yaml-cpp's marks count from 0, and -1 when unknown.
inline std::size_t yaml_line(const YAML::Node& node) {
    const int line = node.Mark().line;
    return line < 0 ? 0 : static_cast<std::size_t>(line) + 1;
}

class yaml_converter {
public:
    yaml_converter(const json_place& place, const yaml_non_finite& non_finite, std::size_t max_values)
        : place_(place), non_finite_(non_finite), max_values_(max_values) {}

    nlohmann::json convert(const YAML::Node& node, const std::string& path, int depth) {
        if (++values_ > max_values_)
            fail_at(node, path,
                    "aliases expand the document beyond " + std::to_string(max_values_) +
                        " values (an alias nested in aliases: a \"billion laughs\" document?)");
        switch (node.Type()) {
        case YAML::NodeType::Undefined:
        case YAML::NodeType::Null: return nullptr;
        case YAML::NodeType::Scalar: return scalar(node, path);
        case YAML::NodeType::Sequence: {
            enter(node, path, depth);
            nlohmann::json out = nlohmann::json::array();
            std::size_t i = 0;
            for (const auto& item : node) out.push_back(convert(item, json_path(path, i++), depth + 1));
            return out;
        }
        case YAML::NodeType::Map: {
            enter(node, path, depth);
            nlohmann::json out = nlohmann::json::object();
            std::vector<YAML::Node> merge_values; // `<<: *base`, applied after the map's own keys
            for (const auto& item : node) {
                const std::string key = key_text(item.first, path);
                if (key == "<<" && item.first.Tag() == "?" &&
                    (item.second.IsMap() || item.second.IsSequence())) {
                    merge_values.push_back(item.second);
                    continue;
                }
                out[key] = convert(item.second, json_path(path, key), depth + 1);
            }
            for (const auto& merged : merge_values) merge(out, merged, path, depth);
            return out;
        }
        }
        return nullptr;
    }

private:
    // The YAML 1.1 merge key (PyYAML reads it): keys of the merged map(s) the map lacks.
    void merge(nlohmann::json& out, const YAML::Node& merged, const std::string& path, int depth) {
        if (merged.IsSequence()) {
            for (const auto& item : merged) {
                if (!item.IsMap()) fail_at(item, json_path(path, "<<"), "a merge key takes a mapping or a list of mappings");
                merge(out, item, path, depth);
            }
            return;
        }
        // One level deeper, as any value: a mapping that merges itself (`b: &b {<<: *b}`) ends at the
        // depth limit instead of recursing until the stack runs out (found by fuzz_yaml_document).
        const nlohmann::json value = convert(merged, json_path(path, "<<"), depth + 1);
        for (const auto& [key, v] : value.items())
            if (!out.contains(key)) out[key] = v;
    }

    void enter(const YAML::Node& node, const std::string& path, int depth) {
        if (depth >= max_json_depth)
            fail_at(node, path, "nested deeper than " + std::to_string(max_json_depth) + " levels");
    }

    // JSON keys are strings: a scalar key is its text (json.dump writes 1 and true as "1" and
    // "true"); a null key is "null", as json.dump writes None.
    std::string key_text(const YAML::Node& key, const std::string& path) {
        if (key.IsNull()) return "null";
        if (!key.IsScalar()) fail_at(key, path, "a mapping key that is not a scalar (JSON keys are strings)");
        return key.Scalar();
    }

    nlohmann::json scalar(const YAML::Node& node, const std::string& path) {
        const std::string& tag = node.Tag();
        const json_place at{place_.file, yaml_line(node)};
        if (tag == "?") return yaml_plain_scalar(node.Scalar(), non_finite_, at, path);
        if (tag.starts_with(yaml_core_tag)) return yaml_tagged_scalar(tag, node.Scalar(), non_finite_, at, path);
        return node.Scalar(); // "!": quoted or block scalar; a local tag: its text
    }

    [[noreturn]] void fail_at(const YAML::Node& node, const std::string& path, const std::string& reason) const {
        throw input_error(place_.file, yaml_line(node), path, reason);
    }

    const json_place& place_;
    const yaml_non_finite& non_finite_;
    std::size_t max_values_;
    std::size_t values_ = 0;
};

// ---- parsing --------------------------------------------------------------------------------

// How many values aliases may expand a document to: a plain document has fewer values than bytes,
// so four values a byte (and a million more for small files) only stops an alias bomb.
inline std::size_t yaml_max_values(std::size_t text_bytes) { return 4 * text_bytes + 1'000'000; }

[[noreturn]] inline void throw_yaml_parse_error(const std::string& file, const YAML::Exception& e) {
    const std::size_t line = e.mark.line < 0 ? 0 : static_cast<std::size_t>(e.mark.line) + 1;
    std::string reason = "malformed YAML";
    if (e.mark.column >= 0) reason.append(" at column ").append(std::to_string(e.mark.column + 1));
    throw input_error(file, line, "", reason.append(": ").append(e.msg));
}

// Counts the documents a YAML stream's parser yields, and where the last one starts.
class yaml_document_counter : public YAML::EventHandler {
public:
    void OnDocumentStart(const YAML::Mark& mark) override { last_ = mark; }
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark& mark, YAML::anchor_t) override { last_ = mark; }
    void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
    void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
    void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
    void OnSequenceEnd() override {}
    void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
    void OnMapEnd() override {}
    std::size_t line() const { return last_.line < 0 ? 0 : static_cast<std::size_t>(last_.line) + 1; }

private:
    YAML::Mark last_ = YAML::Mark::null_mark();
};

// More documents than any report stream holds. yaml-cpp 0.7 yields an empty document for a token
// that cannot start one (a stray `]` or `,`) without moving past it, so YAML::LoadAll never ends on
// such a stream (found by fuzzing): the documents are counted first, and a stream over the limit is
// malformed.
inline constexpr std::size_t max_yaml_documents = 1000;

inline void require_finite_yaml_stream(const std::string& file, const std::string& text) {
    std::istringstream stream(text);
    YAML::Parser parser(stream);
    yaml_document_counter counter;
    for (std::size_t documents = 0; parser.HandleNextDocument(counter);)
        if (++documents > max_yaml_documents)
            throw input_error(file, counter.line(), "",
                              "malformed YAML: more than " + std::to_string(max_yaml_documents) +
                                  " documents (a token that can start no YAML value, such as a stray ']' or ',')");
}

// The documents of a YAML stream (one per `---`), empty ones left out (a stream that ends with
// `---` has an empty last document). yaml-cpp's parser refuses nesting past its own depth limit
// (2000) before any recursion could exhaust the stack; the conversion refuses max_json_depth.
inline std::vector<yaml_document> parse_yaml_documents(const std::filesystem::path& file, std::string_view text,
                                                        const yaml_non_finite& non_finite = {}) {
    if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
    const std::string name = file.string();
    std::vector<YAML::Node> nodes;
    try {
        const std::string whole(text);
        require_finite_yaml_stream(name, whole);
        nodes = YAML::LoadAll(whole);
    } catch (const YAML::Exception& e) {
        throw_yaml_parse_error(name, e);
    } catch (const std::exception& e) { // bad_alloc aside, yaml-cpp throws only its own exceptions
        throw input_error(name, 0, "", std::string("malformed YAML: ") + e.what());
    }
    std::vector<yaml_document> documents;
    for (auto& node : nodes) {
        if (node.IsNull() || !node.IsDefined()) continue;
        const json_place place{name, yaml_line(node)};
        yaml_converter converter(place, non_finite, yaml_max_values(text.size()));
        try {
            documents.push_back({converter.convert(node, "", 0), place, node});
        } catch (const YAML::Exception& e) {
            throw_yaml_parse_error(name, e);
        }
    }
    if (documents.empty()) throw input_error(name, 0, "", "empty file (no YAML document)");
    return documents;
}

// The one document a report file holds; a second is an error naming its line.
inline yaml_document parse_yaml_document(const std::filesystem::path& file, std::string_view text,
                                         const yaml_non_finite& non_finite = {}) {
    auto documents = parse_yaml_documents(file, text, non_finite);
    if (documents.size() > 1)
        throw input_error(file.string(), documents[1].place.line, "",
                          "more than one YAML document in the file (a second starts here)");
    return std::move(documents.front());
}

// ---- errors at the field's own line ---------------------------------------------------------

// The line of the deepest node of `root` that `field` ("benchmarks[0].requests.successful[3].info")
// reaches; 0 when not even its first step exists. A key holding dots ("p99.9") is matched whole.
inline std::size_t yaml_field_line(const YAML::Node& root, std::string_view field) {
    std::vector<std::string> steps; // keys, and "[i]" for sequence items
    for (std::size_t at = 0; at < field.size();) {
        if (field[at] == '[') {
            const auto close = field.find(']', at);
            if (close == std::string_view::npos) break;
            steps.emplace_back(field.substr(at, close + 1 - at));
            at = close + 1;
        } else {
            if (field[at] == '.') ++at;
            const auto end = field.find_first_of(".[", at);
            steps.emplace_back(field.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at));
            at = end == std::string_view::npos ? field.size() : end;
        }
    }
    // Handles are moved with reset(): assigning one Node to another writes into the tree.
    YAML::Node node(root);
    std::size_t line = 0;
    for (std::size_t i = 0; i < steps.size();) {
        YAML::Node next;
        std::size_t used = 1;
        bool found = false;
        if (steps[i].starts_with('[') && node.IsSequence()) {
            std::size_t index = 0;
            const auto [end, ec] = std::from_chars(steps[i].data() + 1, steps[i].data() + steps[i].size() - 1, index);
            if (ec != std::errc() || index >= node.size()) break;
            const YAML::Node& items = node; // const: a lookup never adds an item
            next.reset(items[index]);
            found = true;
        } else if (node.IsMap()) {
            std::string key = steps[i];
            for (std::size_t j = i + 1; !found; ++j) { // "p99", then "p99.9"
                for (const auto& item : node)
                    if (item.first.IsScalar() && item.first.Scalar() == key) {
                        next.reset(item.second);
                        found = true;
                        used = j - i;
                        break;
                    }
                if (found || j >= steps.size() || steps[j].starts_with('[')) break;
                key.append(".").append(steps[j]);
            }
        }
        if (!found) break;
        node.reset(next);
        if (const std::size_t at = yaml_line(node); at > 0) line = at;
        i += used;
    }
    return line;
}

// An error a JSON reader raised at the document's first line, moved to the line of the field it
// names (the readers' json_place knows one line per document: right for JSON, where a report is
// one line or starts there, too coarse for a YAML report of thousands of lines).
inline input_error at_yaml_field_line(const input_error& e, const yaml_document& doc) {
    if (e.file() != doc.place.file || e.line() != doc.place.line || e.field().empty()) return e;
    const std::size_t line = yaml_field_line(doc.root, e.field());
    return input_error(e.file(), line > 0 ? line : e.line(), e.field(), e.reason());
}

// Runs `read` (a JSON reader of doc.value) and rethrows its input_errors at their field's line.
template <class Read>
decltype(auto) with_yaml_field_lines(const yaml_document& doc, Read&& read) {
    try {
        return read();
    } catch (const input_error& e) {
        throw at_yaml_field_line(e, doc);
    }
}

// ---- sniffing -------------------------------------------------------------------------------

// Whether a sniffed head is block YAML rather than JSON (which is YAML too, but read as JSON).
inline bool looks_like_block_yaml(std::string_view head) {
    const char first = first_json_char(head);
    return first != '{' && first != '[' && first != '\0';
}

// A top-level key of a block-YAML head, at the start of a line ("version: 0.2.1", "results:").
inline bool yaml_has_top_key(std::string_view head, std::string_view key) {
    for (std::size_t at = 0; at < head.size();) {
        const auto end = head.find('\n', at);
        const auto line = head.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at);
        if (line.starts_with(key) && line.size() > key.size() && line[key.size()] == ':') return true;
        if (end == std::string_view::npos) break;
        at = end + 1;
    }
    return false;
}

} // namespace servestat::detail
