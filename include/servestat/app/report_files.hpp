// Where and how a report is written, shared by report, report --trend and compare in every front
// end: KIND.md and KIND.html rendered from the view model with a built-in or the user's template,
// KIND.json from its "stats", and the plots.
#pragma once

#include <cerrno>     // errno
#include <cstdio>     // std::FILE, std::fopen, std::fwrite, std::fclose
#include <filesystem> // std::filesystem
#include <fstream>    // std::ifstream, std::ofstream
#include <iomanip>    // std::setw
#include <sstream>    // std::ostringstream
#include <string>     // std::string
#include <utility>    // std::pair
#include <vector>     // std::vector

#include "servestat/app/output_folder.hpp"        // create_output_folder
#include "servestat/core/errors.hpp"              // input_error, usage_error
#include "servestat/report/builtin_templates.hpp" // find_builtin_template
#include "servestat/report/plot_file.hpp"         // plot_file
#include "servestat/report/render.hpp"            // render, markup
#include "servestat/report/stats_json.hpp"        // json

namespace servestat::app {

struct report_files {
    std::string out_dir;
    std::vector<std::string> formats;
    std::string template_file;
};

inline void check_report_files(const report_files& f) {
    for (const auto& format : f.formats)
        if (format != "md" && format != "html" && format != "json")
            throw usage_error("unknown report format '" + format + "' (md, html, json)");
    if (!f.template_file.empty() && f.template_file.find(".md.mustache") == std::string::npos &&
        f.template_file.find(".html.mustache") == std::string::npos)
        throw usage_error("--template: name the file NAME.md.mustache or NAME.html.mustache to say its format");
}

namespace detail {

inline std::string read_text_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw input_error(path, 0, "", "cannot open file");
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// A write that fails says why ("file name too long", "no space left on device"), from errno.
[[noreturn]] inline void cannot_write(const std::filesystem::path& path) {
    const int why = errno;
    throw input_error(path.string(), 0, "", "cannot write file" +
                                                 (why != 0 ? ": " + servestat::detail::reason_text({why, std::generic_category()}) : std::string()));
}

inline void write_text_file(const std::filesystem::path& path, const std::string& text) {
    errno = 0;
    std::FILE* out = std::fopen(path.string().c_str(), "wb");
    bool written = out != nullptr && std::fwrite(text.data(), 1, text.size(), out) == text.size();
    if (out != nullptr && std::fclose(out) != 0) written = false;
    if (!written) cannot_write(path);
}

// As dump(2), written while it is serialised: report.json of thousands of runs is tens of MB, which
// need not be held as text beside the document.
inline void write_json_file(const std::filesystem::path& path, const json& document) {
    errno = 0;
    std::ofstream out(path, std::ios::binary);
    if (out) out << std::setw(2) << document << '\n';
    if (out) out.close();
    if (!out) cannot_write(path);
}

// The template of a report kind ("report", "compare", "trend") for a format: the user's when its name
// says it is for that format, else built in.
inline std::pair<std::string, std::string> template_for(const std::string& kind, const std::string& format,
                                                        const std::string& user_file) {
    const std::string suffix = "." + format + ".mustache";
    if (!user_file.empty() && user_file.size() > suffix.size() &&
        user_file.compare(user_file.size() - suffix.size(), suffix.size(), suffix) == 0)
        return {user_file, read_text_file(user_file)};
    const auto* builtin = find_builtin_template(kind + "." + format);
    if (builtin == nullptr) throw usage_error("no built-in template " + kind + "." + format);
    return {std::string(builtin->name), std::string(builtin->text)};
}

} // namespace detail

// The plot list of a view (Markdown links the file, HTML inlines the SVG).
inline json plot_entries(const std::vector<report::plot_file>& plots) {
    json list = json::array();
    for (const auto& p : plots) list.push_back({{"title", p.title}, {"file", "plots/" + p.name}, {"svg", p.svg}});
    return list;
}

// Writes KIND.md / KIND.html from the view and KIND.json from its "stats", plus the plots.
inline void write_report(const report_files& f, const std::string& kind, const json& view,
                         const std::vector<report::plot_file>& plots) {
    namespace fs = std::filesystem;
    const fs::path dir(f.out_dir);
    create_output_folder(dir);
    if (!plots.empty()) create_output_folder(dir / "plots");
    for (const auto& p : plots) detail::write_text_file(dir / "plots" / p.name, p.svg);
    for (const auto& format : f.formats) {
        if (format == "json") {
            detail::write_json_file(dir / (kind + ".json"), view["stats"]);
            continue;
        }
        const auto [name, text] = detail::template_for(kind, format, f.template_file);
        detail::write_text_file(dir / (kind + "." + format),
                                render(text, view, format == "html" ? markup::html : markup::markdown, name));
    }
}

} // namespace servestat::app
