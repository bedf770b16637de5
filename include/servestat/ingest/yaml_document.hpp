// Reading whole-document YAML formats (a peer tool's report saved through yaml.dump) as the same
// nlohmann::json value its JSON form gives, so one reader reads both: scalars are typed as the
// YAML 1.2 core schema types them, numbers are read exactly (the double nearest the decimal text,
// as a JSON number is), anchors and aliases are resolved, and every error is an input_error naming
// the file, the line (yaml-cpp's mark) and the field.
#pragma once

#include <charconv>     // std::from_chars
#include <cmath>        // std::isfinite
#include <cstddef>      // std::size_t
#include <cstdint>      // std::int64_t, std::uint64_t
#include <exception>    // std::exception
#include <filesystem>   // std::filesystem::path
#include <limits>       // std::numeric_limits
#include <new>          // std::bad_alloc
#include <optional>     // std::optional
#include <sstream>      // std::istringstream
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <system_error> // std::errc
#include <utility>      // std::move
#include <vector>       // std::vector

#include <nlohmann/json.hpp> // nlohmann::json
#include <yaml-cpp/depthguard.h>   // YAML::DeepRecursion
#include <yaml-cpp/eventhandler.h> // YAML::EventHandler, YAML::anchor_t
#include <yaml-cpp/yaml.h>         // YAML::LoadAll, YAML::Node, YAML::Parser, YAML::ParserException

#include "servestat/core/errors.hpp"          // input_error
#include "servestat/ingest/json_document.hpp" // json_place, max_json_depth, json_path, nonfinite_walk
#include "servestat/ingest/json_number.hpp"   // json_number (the exact decimal parse)

namespace servestat::detail {

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
inline nlohmann::json yaml_plain_scalar(const std::string& s, const json_place& place, const std::string& path) {
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
        return std::numeric_limits<double>::infinity();
    if (v == "-.inf" || v == "-.Inf" || v == "-.INF")
        return -std::numeric_limits<double>::infinity();
    if (v == ".nan" || v == ".NaN" || v == ".NAN")
        return std::numeric_limits<double>::quiet_NaN();
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
                                         const json_place& place, const std::string& path) {
    const std::string_view type = std::string_view(tag).substr(yaml_core_tag.size());
    if (type == "str") return s;
    const nlohmann::json value = yaml_plain_scalar(s, place, path);
    const bool fits = (type == "int" && value.is_number_integer()) ||
                      (type == "float" && value.is_number()) ||
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

// What a converted document may take, in bytes, however far aliases copy it: a value counts 16 (an
// nlohmann::json), a string or key 32 more and its length (a std::string). A document without
// aliases comes to at most about 34 bytes a byte of YAML ("[:,:,…]", each `:` a mapping of null to
// null); 64 a byte and 64 MiB more leave such text alone and stop a large value aliased thousands of
// times, or aliases nested in aliases (a "billion laughs"), long before memory runs out.
inline std::size_t yaml_max_output_bytes(std::size_t text_bytes) { return 64 * text_bytes + (std::size_t{64} << 20); }

class yaml_converter {
public:
    // One converter, so one budget, for all the documents of a stream.
    yaml_converter(std::string file, std::size_t max_bytes) : file_(std::move(file)), max_bytes_(max_bytes) {}

    // A document as parse_json_documents reads its JSON twin, where Python writes NaN and Infinity:
    // .nan becomes null, ±.inf stays infinite, and each is named in the place's notes, so that a
    // reader that drops an unbounded optional time says so (as it does for the JSON).
    yaml_document document(const YAML::Node& node) {
        json_place place{file_, yaml_line(node)};
        non_finite_values_ = 0;
        nlohmann::json value = convert(node, "", 0);
        if (non_finite_values_ > 0) {
            std::vector<nonfinite_field> found;
            nonfinite_walk{found, non_finite_values_}.visit(value);
            place.nonfinite = nonfinite_info_of(found);
        }
        return {std::move(value), std::move(place), node};
    }

private:
    nlohmann::json convert(const YAML::Node& node, const std::string& path, int depth) {
        spend(node, path, sizeof(nlohmann::json));
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
                spend(item.first, path, string_bytes(key));
                out[key] = convert(item.second, json_path(path, key), depth + 1);
            }
            for (const auto& merged : merge_values) merge(out, merged, path, depth);
            return out;
        }
        }
        return nullptr;
    }

    static std::size_t string_bytes(const std::string& s) { return 32 + s.size(); }

    void spend(const YAML::Node& node, const std::string& path, std::size_t bytes) {
        used_bytes_ += bytes;
        if (used_bytes_ > max_bytes_)
            fail_at(node, path,
                    "aliases expand the document to more than " + std::to_string(max_bytes_) +
                        " bytes (a large value aliased many times, or aliases nested in aliases: a \"billion "
                        "laughs\" document?)");
    }

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
        nlohmann::json value = typed_scalar(node, path);
        if (value.is_string()) spend(node, path, string_bytes(value.get_ref<const std::string&>()));
        if (value.is_number_float() && !std::isfinite(value.get<double>())) ++non_finite_values_;
        return value;
    }

    nlohmann::json typed_scalar(const YAML::Node& node, const std::string& path) const {
        const std::string& tag = node.Tag();
        const json_place at{file_, yaml_line(node)};
        if (tag == "?") return yaml_plain_scalar(node.Scalar(), at, path);
        if (tag.starts_with(yaml_core_tag)) return yaml_tagged_scalar(tag, node.Scalar(), at, path);
        return node.Scalar(); // "!": quoted or block scalar; a local tag: its text
    }

    [[noreturn]] void fail_at(const YAML::Node& node, const std::string& path, const std::string& reason) const {
        throw input_error(file_, yaml_line(node), path, reason);
    }

    std::string file_;
    std::size_t max_bytes_;
    std::size_t used_bytes_ = 0;
    std::size_t non_finite_values_ = 0; // in the document being converted
};

// ---- parsing --------------------------------------------------------------------------------

// YAML reports are read at most this large. Converting YAML (yaml-cpp's node tree, then the JSON
// value) takes 15 to 75 times the file's size in memory, where JSON takes 3 to 8: a 51 MB GuideLLM
// report of 18,000 requests with their prompts took 746 MB. Twice and a half that report's size
// leaves room for real reports and keeps the worst (small keys) to about 10 GB.
inline constexpr std::size_t max_yaml_bytes = std::size_t{128} << 20;

inline void require_readable_yaml_size(const std::string& file, std::size_t bytes) {
    if (bytes <= max_yaml_bytes) return;
    const std::size_t mib = (bytes + (std::size_t{1} << 20) - 1) >> 20; // rounded up: never "128 MiB, over 128"
    throw input_error(file, 0, "",
                      "YAML file of " + std::to_string(mib) + " MiB: YAML is read at most " +
                          std::to_string(max_yaml_bytes >> 20) +
                          " MiB (converting it takes 15 to 75 times its size in memory); write the report as "
                          "JSON instead (GuideLLM: --outputs json), which is read up to 1 GiB");
}

// YAML 1.2 takes a lone CR as a line break, as old Mac files end their lines; yaml-cpp 0.7 takes
// only LF and CRLF. A line break inside a scalar folds or is kept as LF either way.
inline std::string yaml_with_line_feeds(std::string_view text) {
    std::string out(text);
    for (auto cr = out.find('\r'); cr != std::string::npos; cr = out.find('\r', cr + 1))
        if (cr + 1 == out.size() || out[cr + 1] != '\n') out[cr] = '\n';
    return out;
}

// Counts the documents a YAML stream's parser yields, and where the last one starts.
class yaml_document_counter : public YAML::EventHandler {
public:
    void OnDocumentStart(const YAML::Mark& mark) override {
        stuck_ = started_ && mark.pos == start_.pos;
        started_ = true;
        start_ = mark;
    }
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
    void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
    void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
    void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
    void OnSequenceEnd() override {}
    void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
    void OnMapEnd() override {}
    std::size_t line() const { return start_.line < 0 ? 0 : static_cast<std::size_t>(start_.line) + 1; }
    int column() const { return start_.column + 1; }
    // Whether this document starts where the one before it did: the parser yields it without moving on.
    bool stuck() const { return stuck_; }

private:
    YAML::Mark start_ = YAML::Mark::null_mark();
    bool started_ = false;
    bool stuck_ = false;
};

// More documents than any report stream holds: a backstop, as counting stops a parser that yields
// documents forever.
inline constexpr std::size_t max_yaml_documents = 1000;

// yaml-cpp 0.7 yields an empty document for a token that cannot start one (a stray `]` or `,`)
// without moving past it, so YAML::LoadAll never ends on such a stream (found by fuzzing): the
// documents are counted first, and a document that starts where the one before it did is malformed.
inline void require_finite_yaml_stream(const std::string& file, const std::string& text) {
    std::istringstream stream(text);
    YAML::Parser parser(stream);
    yaml_document_counter counter;
    for (std::size_t documents = 0; parser.HandleNextDocument(counter);) {
        if (counter.stuck())
            throw input_error(file, counter.line(), "",
                              "malformed YAML at column " + std::to_string(counter.column()) +
                                  ": a token that can start no YAML value (a stray ']' or ',')");
        if (++documents > max_yaml_documents)
            throw input_error(file, counter.line(), "",
                              "more than " + std::to_string(max_yaml_documents) +
                                  " YAML documents (a report file holds one)");
    }
}

[[noreturn]] inline void throw_yaml_parse_error(const std::string& file, const YAML::Exception& e) {
    const std::size_t line = e.mark.line < 0 ? 0 : static_cast<std::size_t>(e.mark.line) + 1;
    std::string reason = "malformed YAML";
    if (e.mark.column >= 0) reason.append(" at column ").append(std::to_string(e.mark.column + 1));
    throw input_error(file, line, "", reason.append(": ").append(e.msg));
}

// Runs `read` (parsing or converting YAML) with its failures as input_errors naming the file.
template <class Read>
decltype(auto) with_yaml_errors(const std::string& file, std::size_t text_bytes, Read&& read) {
    try {
        return read();
    } catch (const input_error&) {
        throw;
    } catch (const YAML::DeepRecursion& e) {
        // yaml-cpp stops at 500 levels of its own recursion (300 levels of nesting pass it, so past
        // max_json_depth) and says only "bad file".
        const std::size_t line = e.mark.line < 0 ? 0 : static_cast<std::size_t>(e.mark.line) + 1;
        throw input_error(file, line, "", "nested deeper than " + std::to_string(max_json_depth) + " levels");
    } catch (const YAML::Exception& e) {
        throw_yaml_parse_error(file, e);
    } catch (const std::bad_alloc&) {
        throw input_error(file, 0, "",
                          "out of memory reading " + std::to_string(text_bytes >> 20) +
                              " MiB of YAML (converting YAML takes 15 to 75 times its size); write the report as "
                              "JSON instead (GuideLLM: --outputs json)");
    } catch (const std::exception& e) { // yaml-cpp throws only its own exceptions, bad_alloc aside
        throw input_error(file, 0, "", std::string("malformed YAML: ") + e.what());
    }
}

// The nodes of a YAML stream's documents (one per `---`), empty ones left out (a stream that ends
// with `---` has an empty last document).
inline std::vector<YAML::Node> load_yaml_nodes(const std::string& file, std::string_view text) {
    const std::string whole = yaml_with_line_feeds(text);
    require_finite_yaml_stream(file, whole);
    std::vector<YAML::Node> nodes = YAML::LoadAll(whole);
    std::erase_if(nodes, [](const YAML::Node& node) { return node.IsNull() || !node.IsDefined(); });
    if (nodes.empty()) throw input_error(file, 0, "", "empty file (no YAML document)");
    return nodes;
}

inline std::string_view without_utf8_bom(std::string_view text) {
    if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
    return text;
}

// The documents of a YAML stream, empty ones left out. yaml-cpp's parser refuses nesting past its
// own depth limit before any recursion could exhaust the stack; the conversion refuses
// max_json_depth. The documents share one budget (yaml_max_output_bytes of the whole text).
inline std::vector<yaml_document> parse_yaml_documents(const std::filesystem::path& file, std::string_view text) {
    text = without_utf8_bom(text);
    const std::string name = file.string();
    require_readable_yaml_size(name, text.size());
    return with_yaml_errors(name, text.size(), [&] {
        yaml_converter converter(name, yaml_max_output_bytes(text.size()));
        std::vector<yaml_document> documents;
        for (const auto& node : load_yaml_nodes(name, text)) documents.push_back(converter.document(node));
        return documents;
    });
}

// The one document a report file holds; a second is an error naming its line, found before
// anything is converted.
inline yaml_document parse_yaml_document(const std::filesystem::path& file, std::string_view text) {
    text = without_utf8_bom(text);
    const std::string name = file.string();
    require_readable_yaml_size(name, text.size());
    return with_yaml_errors(name, text.size(), [&] {
        const auto nodes = load_yaml_nodes(name, text);
        if (nodes.size() > 1)
            throw input_error(name, yaml_line(nodes[1]), "", "more than one YAML document in the file (a second starts here)");
        yaml_converter converter(name, yaml_max_output_bytes(text.size()));
        return converter.document(nodes.front());
    });
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
