// The option expressions (--map/--ok-if, --slo, --sweet-spot, --bucket, --fail-on) and user Mustache
// templates: each parses, or throws usage_error; what parses is used the way the CLI uses it.
#include <cmath>       // std::isfinite
#include <string>      // std::string
#include <string_view> // std::string_view
#include <vector>      // std::vector

#include <fmt/format.h> // fmt::format

#include <servestat/compare/gate.hpp>         // parse_gate
#include <servestat/ingest/mapping_spec.hpp>  // parse_mapping
#include <servestat/report/render.hpp>        // render
#include <servestat/stats/goodput.hpp>        // parse_slos, count_good
#include <servestat/stats/subsets.hpp>        // parse_bucket, split_into_subsets
#include <servestat/sweep/grid.hpp>           // parse_constraints

#include "internal.hpp"

namespace servestat_fuzz {
namespace {

// Runs `f`; usage_error is the expected failure, anything else escaping is a violation.
template <class F>
void usage_contract(std::string_view target, F&& f) {
    try {
        f();
    } catch (const servestat::usage_error&) {
    } catch (...) {
        escaped(target);
    }
}

// A small table to apply parsed expressions to.
const servestat::request_table& sample_table() {
    static const servestat::request_table table = [] {
        servestat::request_table t;
        for (int i = 0; i < 8; ++i) {
            servestat::request_record r;
            r.t_sched = r.t_sent = 0.1 * i;
            r.t_first = 0.1 * i + 0.05 * (i + 1);
            r.t_end = 0.1 * i + 0.3 * (i + 1);
            r.prompt_tokens = 16 << i;
            r.output_tokens = i * 3;
            r.status = i == 5 ? servestat::request_status::error : servestat::request_status::ok;
            if (i == 5) r.error = "server error";
            t.push_back(r);
        }
        return t;
    }();
    return table;
}

} // namespace

// Line 1 is --map, the rest --ok-if. What parses maps every entry to a key path, and its entries
// joined again parse to the same targets.
int mapping_spec(const std::uint8_t* data, std::size_t size) {
    constexpr std::string_view target = "mapping_spec";
    if (size > 4096) return 0;
    const std::string_view text = as_text(data, size);
    const auto nl = text.find('\n');
    const std::string_view map = text.substr(0, nl), ok_if = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    usage_contract(target, [&] {
        const servestat::mapping_spec spec = servestat::parse_mapping(map, ok_if);
        if (spec.fields.empty()) violation(target, "a mapping without fields parsed");
        std::string again = spec.records_source.empty() ? "" : "records=" + spec.records_source;
        for (const auto& f : spec.fields) {
            // A quoted empty key ("") is a legal JSON key, so only a path of no keys at all is wrong.
            if (f.path.empty()) violation(target, "a field mapped to an empty key path");
            again += (again.empty() ? "" : ",") + f.entry;
        }
        for (const auto& r : spec.ok_if)
            if (r.path.empty()) violation(target, "an --ok-if rule without a key path");
        servestat::mapping_spec reparsed;
        try {
            reparsed = servestat::parse_mapping(again, ok_if);
        } catch (const servestat::usage_error& e) {
            violation(target, "the entries joined again ('" + again + "') do not parse: " + e.what());
        }
        if (reparsed.fields.size() != spec.fields.size()) violation(target, "the entries joined again differ");
        for (std::size_t i = 0; i < spec.fields.size(); ++i)
            if (reparsed.fields[i].target != spec.fields[i].target || reparsed.fields[i].path != spec.fields[i].path ||
                reparsed.fields[i].unit != spec.fields[i].unit || reparsed.fields[i].epoch != spec.fields[i].epoch)
                violation(target, "entry '" + spec.fields[i].entry + "' reads differently when parsed again");
    });
    return 0;
}

// --slo: positive finite limits, each metric once; printed back they parse to the same.
int slo(const std::uint8_t* data, std::size_t size) {
    constexpr std::string_view target = "slo";
    if (size > 4096) return 0;
    usage_contract(target, [&] {
        const auto slos = servestat::parse_slos(as_text(data, size));
        std::string again;
        for (const auto& s : slos) {
            if (!std::isfinite(s.max_seconds) || s.max_seconds <= 0) violation(target, "a limit that is not positive");
            again += fmt::format("{}{}={}", again.empty() ? "" : ",", servestat::to_string(s.on), s.max_seconds);
        }
        const auto reparsed = servestat::parse_slos(again);
        if (reparsed.size() != slos.size()) violation(target, "printed back, the SLOs differ: " + again);
        for (std::size_t i = 0; i < slos.size(); ++i)
            if (reparsed[i].on != slos[i].on || reparsed[i].max_seconds != slos[i].max_seconds)
                violation(target, "printed back, the SLOs differ: " + again);
        const auto g = servestat::count_good(sample_table(), slos);
        if (g.good + g.unmeasurable > sample_table().size()) violation(target, "more good requests than requests");
    });
    return 0;
}

// --sweet-spot: names the grid knows, finite limits; printed back the same names and directions.
int sweet_spot(const std::uint8_t* data, std::size_t size) {
    constexpr std::string_view target = "sweet_spot";
    if (size > 4096) return 0;
    usage_contract(target, [&] {
        const auto constraints = servestat::parse_constraints(as_text(data, size));
        std::string again;
        for (const auto& c : constraints) {
            if (!std::isfinite(c.max)) violation(target, "a limit that is not finite");
            again += (again.empty() ? "" : ",") + servestat::to_string(c);
        }
        std::vector<servestat::grid_constraint> reparsed;
        try {
            reparsed = servestat::parse_constraints(again);
        } catch (const servestat::usage_error& e) {
            violation(target, "printed back ('" + again + "'), the constraints do not parse: " + e.what());
        }
        if (reparsed.size() != constraints.size()) violation(target, "printed back, the constraints differ");
        for (std::size_t i = 0; i < constraints.size(); ++i)
            if (reparsed[i].value != constraints[i].value || reparsed[i].at_least != constraints[i].at_least)
                violation(target, "printed back, the constraints differ: " + again);
    });
    return 0;
}

// --bucket: lo <= hi, a name that is no built-in subset; splitting a table by it keeps rows in range.
int bucket(const std::uint8_t* data, std::size_t size) {
    constexpr std::string_view target = "bucket";
    if (size > 4096) return 0;
    usage_contract(target, [&] {
        const servestat::bucket b = servestat::parse_bucket(as_text(data, size));
        if (b.lo < 0 || b.lo > b.hi) violation(target, "bounds out of order");
        if (b.name.empty()) violation(target, "a bucket without a name");
        servestat::subset_options o;
        o.buckets.push_back(b);
        for (const auto& s : servestat::split_into_subsets(sample_table(), o))
            s.rows.visit([&](const auto& rows) {
                for (auto row : rows)
                    if (row >= sample_table().size()) violation(target, "a subset row out of range");
            });
    });
    return 0;
}

// --fail-on: "regressed" or "regressed:" and non-empty names.
int fail_on(const std::uint8_t* data, std::size_t size) {
    constexpr std::string_view target = "fail_on";
    if (size > 4096) return 0;
    usage_contract(target, [&] {
        const servestat::gate_rule rule = servestat::parse_gate(as_text(data, size));
        for (const auto& name : rule.names)
            if (name.empty()) violation(target, "an empty statistic name");
    });
    return 0;
}

namespace {

// A view model in the shape of the report's: nested objects, lists of runs, markup in strings.
const servestat::json& sample_view() {
    static const servestat::json view = servestat::json::parse(R"json({
      "title": "Report <b>&amp; \"quotes\" | pipes * stars",
      "generated": "2026-01-12T00:41:17Z", "version": "0.1.0", "flag": true, "off": false, "none": null,
      "empty": [], "count": 3, "big": 18446744073709551615, "ratio": 0.125, "neg": -7,
      "runs": [
        {"label": "bad-c32 <script>", "model": "Qwen/Qwen2.5-3B", "requests": 100, "ok": 97,
         "stats": {"e2e": {"p50": 0.5, "p99": 2.25, "mean": 0.75}, "ttft": {"p50": 0.01}},
         "errors": [{"kind": "context_overflow", "count": 3, "example": "max_tokens is too large\r\nline two"}],
         "plots": [{"title": "ECDF", "file": "plots/e2e.svg", "svg": "<svg></svg>"}], "notes": []},
        {"label": "fair-c32", "model": "m", "requests": 0, "ok": 0, "stats": {}, "errors": [], "plots": [],
         "notes": ["a note with `code` and [link](x)"]}
      ],
      "findings": [{"text": "p99 rose", "severity": "high", "first": true}],
      "nested": {"a": {"b": {"c": {"d": "deep"}}}}
    })json");
    return view;
}

} // namespace

// A user template (--template NAME.html.mustache or NAME.md.mustache) rendered with a fixed view:
// it renders, or fails with a usage_error naming the template; the rendering stays bounded.
int user_template(const std::uint8_t* data, std::size_t size) {
    constexpr std::string_view target = "template";
    if (size > 16384) return 0;
    const std::string_view text = as_text(data, size);
    for (const auto m : {servestat::markup::html, servestat::markup::markdown}) {
        const std::string_view name = m == servestat::markup::html ? "user.html.mustache" : "user.md.mustache";
        try {
            const std::string out = servestat::render(text, sample_view(), m, name);
            (void)out;
        } catch (const servestat::usage_error& e) {
            if (std::string_view(e.what()).find(name) == std::string_view::npos)
                violation(target, std::string("usage_error without the template's name: ") + e.what());
        } catch (...) {
            escaped(target);
        }
    }
    return 0;
}

} // namespace servestat_fuzz
