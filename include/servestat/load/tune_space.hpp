// The search space of a server tune (issue 51): `--space NAME=SPEC` dimensions, the configurations
// they span (one value per dimension), their names and the server command of each. A dimension is
// the same `dimension` a `--grid` is (load/sweep_plan.hpp), so a tune's configurations are named and
// substituted into `--server-cmd` exactly as a grid's are. docs/tune.md.
//
// SPEC is a list `a,b,c` (numbers or words) or an integer range `LO..HI`, which stands for LO, the
// powers of two strictly between, and HI: 16..256 is 16, 32, 64, 128, 256 and 100..1000 is 100, 128,
// 256, 512, 1000. Why doublings: vLLM's batch settings are usually tried in powers of two (the
// notebook's max_num_seqs 16, 32, 64, …); a step of √2 (512, 724, 1024, …) would double the
// configurations per dimension and quadruple a 2-D grid, and two neighbours half an octave apart
// mostly differ by less than one run varies from the next, so the search would spend its budget
// telling apart settings that do not matter. A finer ladder is a list: 512,768,1024,2048,….
#pragma once

#include <algorithm>    // std::all_of, std::sort, std::find
#include <cctype>       // std::isalnum, std::isdigit
#include <charconv>     // std::from_chars
#include <cstddef>      // std::size_t
#include <cstdint>      // std::uint64_t
#include <string>       // std::string
#include <string_view>  // std::string_view
#include <system_error> // std::errc
#include <utility>      // std::move
#include <vector>       // std::vector

#include <fmt/format.h>      // fmt::format
#include <nlohmann/json.hpp> // nlohmann::ordered_json

#include "servestat/core/errors.hpp"     // usage_error
#include "servestat/load/sweep_plan.hpp" // dimension, parameter_value, configuration_name, substitute

namespace servestat::load {

// The dimensions in the order given; a configuration varies the first slowest, as --grid's do.
struct tune_space {
    std::vector<dimension> dimensions;
};

// One configuration as the index of its value along each dimension: neighbours are one index apart,
// and the grid's order is the vectors' lexicographic order.
using tune_point = std::vector<std::size_t>;

// The largest end a range may have: far beyond any server setting, and 2^40 keeps every power of two
// exact in a double and in JSON.
inline constexpr std::uint64_t largest_range_end = std::uint64_t{1} << 40;

namespace detail {

[[noreturn]] inline void space_error(std::string_view text, std::string_view why) {
    throw usage_error(fmt::format("--space {}: {}", text, why));
}

// Names become `{name}` placeholders and parts of file names, so they keep to substitute's characters.
inline bool is_space_name(std::string_view name) {
    return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
    });
}

// A positive whole number of digits only ("+4", "4.0" and "0x10" are not range ends).
inline std::uint64_t range_end(std::string_view part, std::string_view text) {
    const bool digits = !part.empty() && std::all_of(part.begin(), part.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c)) != 0;
    });
    std::uint64_t value = 0;
    if (digits) {
        const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), value);
        if (ec != std::errc() || end != part.data() + part.size()) value = largest_range_end + 1;
    }
    if (!digits || value == 0 || value > largest_range_end)
        space_error(text, fmt::format("range end '{}' is not a whole number from 1 to {}", part, largest_range_end));
    return value;
}

// LO, the powers of two strictly between LO and HI, and HI.
inline std::vector<nlohmann::ordered_json> range_values(std::string_view spec, std::string_view text) {
    const auto dots = spec.find("..");
    const auto low = range_end(spec.substr(0, dots), text), high = range_end(spec.substr(dots + 2), text);
    if (low > high) space_error(text, fmt::format("the range's low end {} lies above its high end {}", low, high));
    std::vector<nlohmann::ordered_json> out{low};
    for (std::uint64_t p = 1; p < high; p *= 2)
        if (p > low) out.emplace_back(p);
    if (high != low) out.emplace_back(high);
    return out;
}

// Numbers are sorted, so that a dimension's neighbouring values are its nearest; words keep the
// order given (on,off has no order of its own).
inline std::vector<nlohmann::ordered_json> list_values(std::string_view spec, std::string_view text) {
    std::vector<nlohmann::ordered_json> out;
    while (true) {
        const auto comma = spec.find(',');
        const auto item = spec.substr(0, comma);
        if (item.empty()) space_error(text, "empty value");
        if (item.find("..") != std::string_view::npos)
            space_error(text, fmt::format("'{}': a range is a SPEC of its own, not an item of a list", item));
        auto value = parameter_value(item);
        if (std::find(out.begin(), out.end(), value) != out.end())
            space_error(text, fmt::format("the value '{}' is listed twice", item));
        out.push_back(std::move(value));
        if (comma == std::string_view::npos) break;
        spec = spec.substr(comma + 1);
    }
    if (std::all_of(out.begin(), out.end(), [](const auto& v) { return v.is_number(); }))
        std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.template get<double>() < b.template get<double>(); });
    return out;
}

} // namespace detail

// One `--space NAME=SPEC`.
inline dimension parse_space_dimension(std::string_view text) {
    const auto eq = text.find('=');
    if (eq == std::string_view::npos || eq + 1 == text.size())
        detail::space_error(text, "expected NAME=LO..HI or NAME=a,b,c");
    const auto name = text.substr(0, eq), spec = text.substr(eq + 1);
    if (!detail::is_space_name(name))
        detail::space_error(text, fmt::format("the name '{}' may hold only letters, digits, '_', '-' and '.'", name));
    const bool range = spec.find("..") != std::string_view::npos && spec.find(',') == std::string_view::npos;
    return {std::string(name), range ? detail::range_values(spec, text) : detail::list_values(spec, text)};
}

// Every `--space` of a command line, in order; a name given twice is a usage error.
inline tune_space parse_space(const std::vector<std::string>& texts) {
    if (texts.empty()) throw usage_error("--space: give at least one NAME=LO..HI or NAME=a,b,c");
    tune_space out;
    for (const auto& text : texts) {
        auto d = parse_space_dimension(text);
        for (const auto& known : out.dimensions)
            if (known.key == d.key) detail::space_error(text, fmt::format("'{}' has a --space already", d.key));
        out.dimensions.push_back(std::move(d));
    }
    return out;
}

// The configurations of the full grid: the product of the dimensions' value counts.
inline std::size_t grid_size(const tune_space& space) {
    std::size_t n = 1;
    for (const auto& d : space.dimensions) n *= d.values.size();
    return n;
}

// Every configuration of the grid in the grid's order (the first dimension varying slowest), the
// order of load/sweep_plan.hpp's `combinations`.
inline std::vector<tune_point> grid_points(const tune_space& space) {
    std::vector<tune_point> out{tune_point{}};
    for (const auto& d : space.dimensions) {
        std::vector<tune_point> next;
        for (const auto& partial : out)
            for (std::size_t i = 0; i < d.values.size(); ++i) {
                auto p = partial;
                p.push_back(i);
                next.push_back(std::move(p));
            }
        out = std::move(next);
    }
    return out;
}

// Whether a point names one value of every dimension.
inline bool in_space(const tune_space& space, const tune_point& at) {
    if (at.size() != space.dimensions.size()) return false;
    for (std::size_t k = 0; k < at.size(); ++k)
        if (at[k] >= space.dimensions[k].values.size()) return false;
    return true;
}

// {"max_num_seqs": 64, "max_num_batched_tokens": 1024}: the configuration as the logs' params hold it.
inline nlohmann::ordered_json configuration_of(const tune_space& space, const tune_point& at) {
    if (!in_space(space, at)) throw usage_error("tune: a configuration outside the --space");
    auto out = nlohmann::ordered_json::object();
    for (std::size_t k = 0; k < at.size(); ++k) out[space.dimensions[k].key] = space.dimensions[k].values[at[k]];
    return out;
}

// "max_num_seqs64-max_num_batched_tokens1024", as --grid names the same configuration.
inline std::string configuration_name(const tune_space& space, const tune_point& at) {
    return configuration_name(configuration_of(space, at));
}

// The configurations one value away along one dimension: each dimension's lower value, then its
// higher, the first dimension first. Fixed order, so a search that asks for them is deterministic.
inline std::vector<tune_point> neighbours_of(const tune_space& space, const tune_point& at) {
    std::vector<tune_point> out;
    for (std::size_t k = 0; k < at.size(); ++k) {
        if (at[k] > 0) {
            out.push_back(at);
            --out.back()[k];
        }
        if (at[k] + 1 < space.dimensions[k].values.size()) {
            out.push_back(at);
            ++out.back()[k];
        }
    }
    return out;
}

// A usage error unless the command has a `{name}` for every dimension (a dimension the command does
// not use would measure one server under several names) and defines no other placeholder.
inline void check_server_command(const tune_space& space, std::string_view command) {
    for (const auto& d : space.dimensions) {
        const std::string placeholder = "{" + d.key + "}";
        bool used = false;
        for (auto at = command.find(placeholder); at != std::string_view::npos && !used; at = command.find(placeholder, at + 1))
            used = at == 0 || command[at - 1] != '$'; // ${name} is the shell's
        if (!used)
            throw usage_error(fmt::format("--space {}: --server-cmd has no {} to put its values in", d.key, placeholder));
    }
    (void)substitute(command, configuration_of(space, tune_point(space.dimensions.size(), 0)), "--space");
}

// The server command of one configuration.
inline std::string server_command(const tune_space& space, std::string_view command, const tune_point& at) {
    return substitute(command, configuration_of(space, at), "--space");
}

} // namespace servestat::load
