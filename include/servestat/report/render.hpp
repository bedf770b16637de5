// Renders a Mustache template (kainjow) with a JSON view model, strictly: a tag that names nothing is an error.
#pragma once

#include <cstddef>     // std::size_t
#include <cstdint>     // std::int64_t, std::uint64_t
#include <functional>  // std::less
#include <map>         // std::map
#include <string>      // std::string
#include <string_view> // std::string_view
#include <utility>     // std::move
#include <vector>      // std::vector

#include <fmt/format.h>         // fmt::format
#include <kainjow/mustache.hpp> // kainjow::mustache::mustache, data, object, list, context

#include "servestat/core/errors.hpp"       // usage_error
#include "servestat/core/text.hpp"         // detail::escape_markup
#include "servestat/core/visible_controls.hpp" // visible_controls
#include "servestat/report/stats_json.hpp" // json

namespace servestat {

// How `{{x}}` values are escaped: HTML entities, or Markdown backslashes so values never break a table.
enum class markup { html, markdown };

// Nested so its helper names cannot collide with other headers' servestat::detail helpers.
namespace detail::render_bridge {

namespace mustache = kainjow::mustache;

// ---- JSON view model -> kainjow data ----------------------------------------------------------

inline mustache::data to_mustache_data(const json& j);

// Every object item learns where it stands in its list, so templates can place separators. Values
// are moved into place: kainjow's constructors copy, and a copy per level of nesting made a report of
// thousands of runs hold its view several times over.
inline mustache::data to_mustache_list(const json& array) {
    mustache::list items;
    items.reserve(array.size());
    for (std::size_t i = 0; i < array.size(); ++i) {
        mustache::data item = to_mustache_data(array[i]);
        if (item.is_object()) {
            const auto& keys = array[i];
            if (!keys.contains("first")) item.set("first", mustache::data(i == 0));
            if (!keys.contains("last")) item.set("last", mustache::data(i + 1 == array.size()));
            if (!keys.contains("index")) item.set("index", mustache::data(std::to_string(i + 1)));
        }
        items.push_back(std::move(item));
    }
    mustache::data list(mustache::data::type::list);
    const_cast<mustache::list&>(list.list_value()).swap(items); // kainjow has no list move; `list` is ours
    return list;
}

inline mustache::data to_mustache_object(const json& object) {
    mustache::data members(mustache::data::type::object);
    for (const auto& [key, value] : object.items()) members[key] = to_mustache_data(value);
    return members;
}

inline mustache::data to_mustache_data(const json& j) {
    switch (j.type()) {
    // Null is false so `{{^x}}` works; kainjow renders a boolean `{{x}}` as nothing.
    case json::value_t::null: return mustache::data(false);
    case json::value_t::boolean: return mustache::data(j.get<bool>());
    case json::value_t::string: return mustache::data(j.get_ref<const std::string&>());
    case json::value_t::number_integer: return mustache::data(std::to_string(j.get<std::int64_t>()));
    case json::value_t::number_unsigned: return mustache::data(std::to_string(j.get<std::uint64_t>()));
    // fmt's "{}" is the shortest text that reads back as the same double: stable across platforms.
    case json::value_t::number_float: return mustache::data(fmt::format("{}", j.get<double>()));
    case json::value_t::array: return to_mustache_list(j);
    case json::value_t::object: return to_mustache_object(j);
    default: throw usage_error("the view model holds a value Mustache cannot show (binary data)");
    }
}

// ---- escaping ---------------------------------------------------------------------------------

inline std::string escape_html(const std::string& s) { return servestat::detail::escape_markup(s); }

// Values come from input (labels, error texts): they must not end a table cell or start emphasis,
// links, code, HTML or math (GitHub reads "$20.00 … −$10.00" as one formula), and a newline would end
// the table row. Other controls are shown as escapes.
inline std::string escape_markdown(const std::string& s) {
    constexpr std::string_view special = "\\|*_<>`[]$";
    std::string out;
    out.reserve(s.size() + s.size() / 8);
    for (std::size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        if (c == '\r' || c == '\n') {
            if (c == '\r' && i + 1 < s.size() && s[i + 1] == '\n') ++i;
            out += ' ';
            continue;
        }
        if (special.find(c) != std::string_view::npos) out += '\\';
        out += c;
    }
    return visible_controls(out);
}

// ---- template structure, mirroring kainjow's parser so positions can be reported ----------------

enum class tag_kind { variable, raw_variable, section, inverted_section, section_end, partial, comment, set_delimiter };

struct template_tag {
    tag_kind kind = tag_kind::variable;
    std::string name;
    std::size_t offset = 0;            // of the opening delimiter, for messages
    std::vector<template_tag> children; // sections only
};

// Where messages point: the template's name and its text, to turn offsets into line and column.
struct template_source {
    std::string_view text;
    std::string_view name;
};

struct text_position {
    std::size_t line = 1;
    std::size_t column = 1;
};

// Columns count characters, not bytes, as editors do (UTF-8 continuation bytes do not advance).
inline text_position position_of(std::string_view text, std::size_t offset) {
    text_position p;
    for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
        const auto byte = static_cast<unsigned char>(text[i]);
        if (byte == '\n') {
            ++p.line;
            p.column = 1;
        } else if ((byte & 0xC0) != 0x80) {
            ++p.column;
        }
    }
    return p;
}

[[noreturn]] inline void template_error(const template_source& src, std::size_t offset, std::string_view what) {
    const auto p = position_of(src.text, offset);
    throw usage_error(fmt::format("template {}, line {}, column {}: {}", src.name, p.line, p.column, what));
}

inline std::string_view trim_tag_space(std::string_view s) {
    constexpr std::string_view spaces = " \t\r\n\f\v";
    const auto first = s.find_first_not_of(spaces);
    if (first == std::string_view::npos) return {};
    return s.substr(first, s.find_last_not_of(spaces) - first + 1);
}

struct delimiters {
    std::string open = "{{";
    std::string close = "}}";
    bool is_default() const { return open == "{{" && close == "}}"; }
};

// `{{=<% %>=}}`: the same rules as kainjow (no whitespace or '=' inside a delimiter).
inline bool parse_delimiters(std::string_view contents, delimiters& d) {
    if (contents.size() < 5 || contents.back() != '=') return false;
    const auto inner = trim_tag_space(contents.substr(1, contents.size() - 2));
    const auto space = inner.find(' ');
    if (space == std::string_view::npos) return false;
    const auto open = inner.substr(0, space);
    const auto close = inner.substr(inner.find_first_not_of(' ', space));
    for (const auto part : {open, close})
        if (part.find_first_of("= \t\r\n\f\v") != std::string_view::npos) return false;
    d.open = std::string(open);
    d.close = std::string(close);
    return true;
}

inline template_tag classify_tag(std::string_view contents, bool triple) {
    template_tag tag;
    if (triple || contents.empty()) {
        tag.kind = triple ? tag_kind::raw_variable : tag_kind::variable;
        tag.name = std::string(contents);
        return tag;
    }
    switch (contents.front()) {
    case '#': tag.kind = tag_kind::section; break;
    case '^': tag.kind = tag_kind::inverted_section; break;
    case '/': tag.kind = tag_kind::section_end; break;
    case '>': tag.kind = tag_kind::partial; break;
    case '&': tag.kind = tag_kind::raw_variable; break;
    case '!': tag.kind = tag_kind::comment; break;
    default: tag.name = std::string(contents); return tag;
    }
    tag.name = std::string(trim_tag_space(contents.substr(1)));
    return tag;
}

inline std::string describe_open_section(const template_source& src, const template_tag& section) {
    const auto p = position_of(src.text, section.offset);
    return fmt::format("section '{}' (opened at line {}, column {})", section.name, p.line, p.column);
}

// Rendering recurses once per nested section (here and in kainjow): a hostile template nesting
// 100,000 sections would overflow the stack. No report template comes near this depth.
inline constexpr std::size_t max_section_depth = 64;

// Sections over lists nested in each other multiply: {{#runs}} 30 deep over two runs would render
// 2^30 times. Past this many section renders the template is refused before anything is rendered.
inline constexpr std::size_t max_section_renders = 10'000'000;

// Splits the template into tags nested by section; rejects what kainjow would reject or silently ignore.
inline std::vector<template_tag> parse_template(const template_source& src) {
    const std::string_view text = src.text;
    std::vector<template_tag> root;
    // Pointers into parents stay valid: a parent's children only grow after its open child closes.
    std::vector<std::vector<template_tag>*> open_lists{&root};
    std::vector<const template_tag*> open_sections;
    delimiters d;
    std::size_t pos = 0;
    while ((pos = text.find(d.open, pos)) != std::string_view::npos) {
        const std::size_t start = pos;
        const bool triple = d.is_default() && start + 2 < text.size() && text[start + 2] == '{';
        const std::size_t contents_at = start + d.open.size() + (triple ? 1 : 0);
        const std::string_view close = triple ? std::string_view("}}}") : std::string_view(d.close);
        const std::size_t end = text.find(close, contents_at);
        if (end == std::string_view::npos) template_error(src, start, fmt::format("tag is never closed with '{}'", close));
        const auto contents = trim_tag_space(text.substr(contents_at, end - contents_at));
        pos = end + close.size();

        if (!contents.empty() && contents.front() == '=') {
            if (!parse_delimiters(contents, d)) template_error(src, start, "malformed set-delimiter tag");
            continue;
        }
        template_tag tag = classify_tag(contents, triple);
        tag.offset = start;
        switch (tag.kind) {
        case tag_kind::comment: continue;
        case tag_kind::partial:
            template_error(src, start, fmt::format("partials ({{{{>{}}}}}) are not supported", tag.name));
        case tag_kind::section_end:
            if (open_sections.empty())
                template_error(src, start, fmt::format("{{{{/{}}}}} closes a section that is not open", tag.name));
            if (open_sections.back()->name != tag.name)
                template_error(src, start, fmt::format("{{{{/{}}}}} does not close the open {}", tag.name,
                                                       describe_open_section(src, *open_sections.back())));
            open_sections.pop_back();
            open_lists.pop_back();
            continue;
        default: break;
        }
        if (tag.name.empty()) template_error(src, start, "tag without a name");
        const bool opens = tag.kind == tag_kind::section || tag.kind == tag_kind::inverted_section;
        open_lists.back()->push_back(std::move(tag));
        if (opens) {
            if (open_sections.size() == max_section_depth)
                template_error(src, start, fmt::format("sections nested more than {} deep", max_section_depth));
            open_sections.push_back(&open_lists.back()->back());
            open_lists.push_back(&open_lists.back()->back().children);
        }
    }
    if (!open_sections.empty())
        template_error(src, open_sections.back()->offset,
                       fmt::format("section '{}' is never closed", open_sections.back()->name));
    return root;
}

// ---- the part of the view a template can reach --------------------------------------------------

// Mustache looks a name up outward through the open sections, so any tag's name may resolve at the
// top of the view: each name is a path from there (`stats.options.short_max`), and a key no path
// names can never be shown. Only the reachable part is converted: the report's view holds all of
// report.json under "stats" for templates that want it, and the built-in ones read two options.
struct view_paths {
    bool whole = false;
    std::map<std::string, view_paths, std::less<>> next;
};

inline void add_paths(view_paths& root, const std::vector<template_tag>& tags) {
    for (const auto& tag : tags) {
        if (tag.name != ".") {
            view_paths* at = &root;
            std::string_view rest = tag.name;
            for (auto dot = rest.find('.'); dot != std::string_view::npos; dot = rest.find('.')) {
                at = &at->next[std::string(rest.substr(0, dot))];
                rest.remove_prefix(dot + 1);
            }
            at->next[std::string(rest)].whole = true;
        }
        add_paths(root, tag.children);
    }
}

inline mustache::data to_reachable_data(const json& j, const view_paths& paths) {
    if (paths.whole || !j.is_object()) return to_mustache_data(j);
    mustache::data members(mustache::data::type::object);
    for (const auto& [key, next] : paths.next)
        if (const auto it = j.find(key); it != j.end()) members[key] = to_reachable_data(*it, next);
    return members;
}

// ---- strictness: walk the template as kainjow will render it, with kainjow's own lookup ----------

using mustache_context = mustache::context<std::string>;

inline const mustache::data& lookup(const template_source& src, const mustache_context& ctx, const template_tag& tag) {
    const mustache::data* value = ctx.get(tag.name);
    if (value == nullptr) template_error(src, tag.offset, fmt::format("the view model has no '{}'", tag.name));
    return *value;
}

inline bool renders_section(const mustache::data& value) { return !value.is_false() && !value.is_empty_list(); }

// The walk's state: the template and how many section renders are left of max_section_renders.
struct template_walk {
    const template_source& src;
    std::size_t renders_left = max_section_renders;

    void count_render(const template_tag& tag) {
        if (renders_left-- == 0)
            template_error(src, tag.offset, fmt::format("the template would render sections more than {} times "
                                                        "(sections over lists nested in each other multiply)",
                                                        max_section_renders));
    }
};

inline void check_names(template_walk& walk, const std::vector<template_tag>& tags, mustache_context& ctx);

inline void check_section(template_walk& walk, const template_tag& tag, mustache_context& ctx) {
    const mustache::data& value = lookup(walk.src, ctx, tag);
    if (tag.kind == tag_kind::inverted_section) {
        if (!renders_section(value)) check_names(walk, tag.children, ctx);
        return;
    }
    if (!renders_section(value)) return;
    const auto with = [&](const mustache::data& item) {
        walk.count_render(tag);
        ctx.push(&item);
        check_names(walk, tag.children, ctx); // on a throw the context is discarded, so no pop needed
        ctx.pop();
    };
    if (value.is_list()) {
        for (const auto& item : value.list_value()) with(item);
    } else {
        with(value);
    }
}

inline void check_names(template_walk& walk, const std::vector<template_tag>& tags, mustache_context& ctx) {
    for (const auto& tag : tags) {
        if (tag.kind == tag_kind::section || tag.kind == tag_kind::inverted_section)
            check_section(walk, tag, ctx);
        else
            lookup(walk.src, ctx, tag);
    }
}

} // namespace detail::render_bridge

// Renders `text` (called `template_name` in messages) with `view`. Throws usage_error, with the line
// and column of the tag, for a tag naming nothing in the view, an unclosed or mismatched section, or
// a malformed tag. HTML escapes `{{x}}` values as entities, Markdown with backslashes; `{{{x}}}` and
// `{{&x}}` are raw in both.
inline std::string render(std::string_view text, const json& view, markup m, std::string_view template_name) {
    namespace bridge = detail::render_bridge;
    const bridge::template_source src{text, template_name};
    if (!view.is_object()) throw usage_error(fmt::format("template {}: the view model must be a JSON object", template_name));
    const auto tags = bridge::parse_template(src);
    bridge::view_paths reachable;
    bridge::add_paths(reachable, tags);
    const bridge::mustache::data data = bridge::to_reachable_data(view, reachable);
    {
        bridge::mustache_context ctx(&data);
        bridge::template_walk walk{src};
        bridge::check_names(walk, tags, ctx);
    }
    bridge::mustache::mustache tmpl{std::string(text)};
    // Our parser accepts only what kainjow accepts, so these are a safety net, not the usual path.
    if (!tmpl.is_valid()) throw usage_error(fmt::format("template {}: {}", template_name, tmpl.error_message()));
    tmpl.set_custom_escape(m == markup::html ? bridge::escape_html : bridge::escape_markdown);
    std::string out = tmpl.render(data);
    if (!tmpl.is_valid()) throw usage_error(fmt::format("template {}: {}", template_name, tmpl.error_message()));
    return out;
}

} // namespace servestat
