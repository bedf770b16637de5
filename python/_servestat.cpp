// servestat for Python: the extension module behind `import servestat` (python/servestat/__init__.py
// is its face). It calls the application layer the command-line tool calls (include/servestat/app/),
// so a number and a JSON document come out as `servestat stats --json` gives them, byte for byte. The
// GIL is released while logs are read and statistics computed. Nothing here comes from tools/.
#include <algorithm>  // std::any_of
#include <cmath>      // std::isnan, std::floor
#include <memory>     // std::shared_ptr
#include <optional>   // std::optional
#include <string>     // std::string
#include <vector>     // std::vector

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <servestat/app/analysis_args.hpp>  // analysis_args, to_stats_options
#include <servestat/app/bounded_inputs.hpp> // sketched_stats, summary_note, check_summary_options
#include <servestat/app/combined_parts.hpp> // parts_among, with_parts_combined
#include <servestat/app/compare.hpp>        // compare_args, to_comparison_options, write_compare_report
#include <servestat/app/input_runs.hpp>     // for_each_input_run, name_inputs_apart
#include <servestat/app/knee.hpp>           // knee_args, knee_input, to_kneedle_options, knee_json
#include <servestat/app/report.hpp>         // report_args, report_inputs, report_stats_options, write_runs_report
#include <servestat/app/report_files.hpp>   // report_files, check_report_files
#include <servestat/app/stats.hpp>          // stats_json_text
#include <servestat/app/summarize.hpp>      // summarize_args, summarize_shard
#include <servestat/core/request_record.hpp> // request_record, time_fault
#include <servestat/core/request_status.hpp> // parse_request_status
#include <servestat/report/compare_view.hpp> // compare_view_model
#include <servestat/report/summary_file.hpp> // run_summary, merge, parse_summary_text, summary_file_text

namespace py = pybind11;

namespace servestat::python {

// A run read or built in Python: immutable once made, shared by the Python objects that hold it.
struct py_run {
    std::shared_ptr<const run> value;
};

struct py_summary {
    std::shared_ptr<const run_summary> value;
};

// The options of stats(), report(), compare() and summarize(), as the CLI's flags would set them.
struct analysis_kwargs {
    std::vector<double> percentiles;
    std::string method;
    int ddof;
    std::int32_t short_max, long_min;
    std::vector<std::string> buckets;
    std::string slo, sweep_by;
    std::size_t threads;
    double confidence; // of each percentile's and mean's interval
    std::vector<std::string> factors, roles; // NAME=REGEX, NAME=ROLE: the CLI's --factor and --role
    std::optional<double> cost_per_hour;    // --cost-per-hour
    std::optional<int> gpus;                // --gpus
    std::string power_metric;               // --power-metric

    void apply(app::analysis_args& a) const {
        if (!percentiles.empty()) a.percentiles = percentiles;
        a.confidence = confidence;
        a.method = method;
        a.ddof = ddof;
        a.short_max = short_max;
        a.long_min = long_min;
        a.buckets = buckets;
        a.slo = slo;
        a.sweep_by = sweep_by;
        a.threads = threads;
        a.factors = factors;
        a.roles = roles;
        a.cost_per_hour = cost_per_hour;
        a.gpus = gpus;
        a.power_metric = power_metric;
    }
};

// What the directories read held besides their runs (files passed over, and why): stats() and
// report() show them as the CLI does.
struct py_listings {
    std::shared_ptr<const std::vector<directory_listing>> value = std::make_shared<std::vector<directory_listing>>();
};

std::pair<std::vector<py_run>, py_listings> read_runs(const std::vector<std::string>& paths, const std::string& input_format,
                                                      const std::string& map, const std::string& ok_if, bool skip_bad,
                                                      std::size_t threads) {
    app::analysis_args a;
    a.logs = paths;
    a.input_format = input_format;
    a.map = map;
    a.ok_if = ok_if;
    a.skip_bad = skip_bad;
    a.threads = threads;
    std::vector<run> runs;
    auto listings = std::make_shared<std::vector<directory_listing>>();
    py::gil_scoped_release unlocked;
    app::for_each_input_run(a, [&](run&& r) { runs.push_back(std::move(r)); }, listings.get());
    app::name_inputs_apart(runs); // as the CLI names them
    std::vector<py_run> out;
    for (auto& r : runs) out.push_back({std::make_shared<const run>(std::move(r))});
    return {std::move(out), py_listings{std::move(listings)}};
}

// --- from_arrays ---

using double_array = py::array_t<double, py::array::c_style | py::array::forcecast>;

// A column of from_arrays: its name (for errors) and values, or none.
struct column {
    const char* name;
    std::optional<double_array> values;
    double at(std::size_t i) const { return values->data()[i]; }
};

[[noreturn]] void array_error(const char* field, std::size_t row, const std::string& message) {
    throw input_error("from_arrays", 0, field, "row " + std::to_string(row) + " (counted from 0): " + message);
}

std::optional<double> duration_at(const column& c, std::size_t i) {
    if (!c.values) return std::nullopt;
    const double v = c.at(i);
    if (std::isnan(v)) return std::nullopt;
    if (!(v >= 0)) array_error(c.name, i, fmt::format("{} s is not a duration (negative)", v));
    return v;
}

std::optional<std::int32_t> count_at(const column& c, std::size_t i) {
    if (!c.values) return std::nullopt;
    const double v = c.at(i);
    if (std::isnan(v)) return std::nullopt;
    if (!(v >= 0 && v <= std::numeric_limits<std::int32_t>::max() && v == std::floor(v)))
        array_error(c.name, i, fmt::format("{} is not a token count (a whole number from 0 to 2^31-1)", v));
    return static_cast<std::int32_t>(v);
}

py_run from_arrays(std::optional<double_array> ttft, std::optional<double_array> e2e, std::optional<double_array> t_sent,
                   std::optional<double_array> prompt_tokens, std::optional<double_array> output_tokens,
                   std::optional<std::vector<std::string>> status, std::optional<std::vector<std::string>> error,
                   const std::string& label) {
    const std::vector<column> columns{{"ttft", std::move(ttft)}, {"e2e", std::move(e2e)}, {"t_sent", std::move(t_sent)},
                                      {"prompt_tokens", std::move(prompt_tokens)}, {"output_tokens", std::move(output_tokens)}};
    const column &c_ttft = columns[0], &c_e2e = columns[1], &c_sent = columns[2], &c_prompt = columns[3], &c_output = columns[4];
    if (!c_e2e.values) throw usage_error("from_arrays needs e2e (each request's latency, seconds)");
    for (const auto& c : columns)
        if (c.values && c.values->ndim() != 1)
            throw usage_error(fmt::format("from_arrays: {} has {} dimensions: give one value per request", c.name, c.values->ndim()));
    const std::size_t n = static_cast<std::size_t>(c_e2e.values->size());
    if (n == 0) throw usage_error("from_arrays: e2e is empty: no requests");
    for (const auto& c : columns)
        if (c.values && static_cast<std::size_t>(c.values->size()) != n)
            throw usage_error(fmt::format("from_arrays: {} has {} values and e2e {}: every array must be as long as e2e",
                                          c.name, c.values->size(), n));
    for (const auto& [name, texts] : {std::pair{"status", &status}, std::pair{"error", &error}})
        if (*texts && (*texts)->size() != n)
            throw usage_error(fmt::format("from_arrays: {} has {} values and e2e {}: every array must be as long as e2e",
                                          name, (*texts)->size(), n));
    run out;
    out.meta.label = label;
    out.meta.tool = "python";
    out.meta.source = {"<arrays>", "arrays"};
    out.meta.shared_clock = c_sent.values.has_value();
    py::gil_scoped_release unlocked;
    // As the --map reader does: 0 is the earliest send, so epoch times keep their microseconds.
    double origin = 0;
    if (c_sent.values) {
        bool any = false;
        for (std::size_t i = 0; i < n; ++i)
            if (const double t = c_sent.at(i); !std::isnan(t) && (!any || t < origin)) origin = t, any = true;
    }
    out.meta.notes.push_back(c_sent.values ? "built from arrays; 0 is the earliest t_sent"
                                           : "built from arrays without t_sent: every request starts at 0, so duration, "
                                             "rps and token rates cannot be derived");
    out.requests.reserve(n);
    request_record r;
    for (std::size_t i = 0; i < n; ++i) {
        r.clear();
        if (status) {
            const auto s = parse_request_status((*status)[i]);
            if (!s) array_error("status", i, "'" + (*status)[i] + "' is not a status (ok, error, timeout, transport, cancelled)");
            r.status = *s;
        }
        if (error && !(*error)[i].empty()) {
            r.error = (*error)[i];
            if (!status) r.status = request_status::error;
        }
        double sent = 0;
        if (c_sent.values) {
            sent = c_sent.at(i);
            if (std::isnan(sent)) array_error("t_sent", i, "missing (give every request a send time, or none)");
            sent -= origin;
        }
        r.t_sent = sent;
        const auto latency = duration_at(c_e2e, i), first = duration_at(c_ttft, i);
        if (first && latency && *first > *latency)
            array_error("ttft", i, fmt::format("{} s is larger than e2e ({} s)", *first, *latency));
        if (r.status == request_status::ok && !latency) array_error("e2e", i, "missing for a successful request");
        if (first) r.t_first = sent + *first;
        if (latency) r.t_end = sent + *latency;
        r.prompt_tokens = count_at(c_prompt, i);
        r.output_tokens = count_at(c_output, i);
        if (const auto fault = time_fault(r)) array_error(std::string(fault->field).c_str(), i, fault->message);
        out.requests.push_back(r);
    }
    return {std::make_shared<const run>(std::move(out))};
}

// --- statistics ---

// One item of a Python list of Run and Summary objects: a run kept whole, or one known by its summary.
struct input_item {
    std::shared_ptr<const run> whole;
    std::shared_ptr<const run_summary> summary;
};

// Read with the GIL held; the items are then used without it.
std::vector<input_item> items_of(const py::list& list) {
    std::vector<input_item> out;
    for (const auto& item : list) {
        if (py::isinstance<py_run>(item)) out.push_back({item.cast<py_run>().value, nullptr});
        else out.push_back({nullptr, item.cast<py_summary>().value});
    }
    return out;
}

// A summary as the CLI reads a .ssum.json: its metadata as a run without requests, and what its
// sketched statistics say about themselves.
run metadata_of(const run_summary& s) { return {s.meta, {}, s.skipped}; }
std::string note_of(const run_summary& s) {
    return app::summary_note(static_cast<std::size_t>(s.stats.requests()), s.stats.sketch_alpha());
}

std::string stats_json(const py::list& list, const analysis_kwargs& kw, const py_listings& listings) {
    app::analysis_args a;
    kw.apply(a);
    const stats_options o = app::to_stats_options(a);
    const auto items = items_of(list);
    py::gil_scoped_release unlocked;
    std::vector<run_stats> results;
    for (const auto& item : items)
        results.push_back(item.whole ? analyze(*item.whole, o)
                                     : app::sketched_stats(item.summary->stats, metadata_of(*item.summary), note_of(*item.summary), o));
    auto groups = app::parts_among(a, results); // parallel clients' parts: one run, as the CLI reads them
    std::erase_if(groups, [&](const auto& g) {
        return std::any_of(g.begin(), g.end(), [&](std::size_t i) { return !items[i].whole; });
    });
    if (!groups.empty()) {
        results = app::with_parts_combined(std::move(results), groups, o, [&](std::size_t i) { return *items[i].whole; });
        app::name_inputs_apart(results);
    }
    return app::stats_json_text(a, results, o, *listings.value);
}

void write_report(const py::list& items, const std::string& out_dir, const std::vector<std::string>& formats,
            const std::string& title, const analysis_kwargs& kw, const py_listings& listings) {
    app::report_args a;
    kw.apply(a);
    a.out_dir = out_dir;
    a.formats = formats;
    a.title = title;
    const stats_options o = app::report_stats_options(a);
    const auto list = items_of(items);
    py::gil_scoped_release unlocked;
    app::report_inputs in;
    in.listings = *listings.value;
    for (const auto& item : list) {
        if (item.whole) {
            in.add(run(*item.whole)); // the report command takes its runs by value
            continue;
        }
        const run_summary& s = *item.summary;
        app::check_summary_options(s.meta.source.path, s.stats.options(), o, "report");
        in.add(metadata_of(s), std::nullopt, s.stats, note_of(s));
    }
    app::write_runs_report(a, o, in);
}

std::vector<run> runs_of(const std::vector<py_run>& side) {
    std::vector<run> out;
    for (const auto& r : side) out.push_back(*r.value);
    return out;
}

struct compare_kwargs {
    std::string noise;
    double alpha, confidence;
    std::size_t resamples;
    std::uint64_t seed;
    std::vector<std::string> metrics;
    std::string out_dir;
    std::vector<std::string> formats;
    std::string title;
};

std::string compare_json(const std::vector<py_run>& before_runs, const std::vector<py_run>& after_runs,
                         const analysis_kwargs& kw, const compare_kwargs& ck) {
    app::compare_args a;
    kw.apply(a);
    a.noise = ck.noise;
    a.alpha = ck.alpha;
    a.confidence = ck.confidence;
    a.resamples = ck.resamples;
    a.seed = ck.seed;
    a.metrics = ck.metrics;
    a.out_dir = ck.out_dir;
    a.formats = ck.formats;
    a.title = ck.title;
    const app::report_files files{a.out_dir, a.formats, a.template_file};
    app::check_report_files(files);
    const comparison_options o = app::to_comparison_options(a);
    py::gil_scoped_release unlocked;
    const auto before = runs_of(before_runs), after = runs_of(after_runs);
    const comparison c = compare(before, after, o);
    json view = report::compare_view_model(c, o, std::nullopt, {.title = a.title});
    if (!a.out_dir.empty()) {
        const std::vector<const run_accumulator*> none{nullptr}; // each side's runs are whole
        app::write_compare_report(files, view, c, before, after, o, none, none);
    }
    return view["stats"].dump(2) + "\n";
}

std::string knee_json(std::vector<double> x, std::vector<double> y, const app::knee_args& a) {
    if (x.size() != y.size())
        throw usage_error(fmt::format("knee: x has {} values and y {}: they must be as long", x.size(), y.size()));
    const kneedle_options o = app::to_kneedle_options(a);
    const app::knee_input in{"x", "y", std::move(x), std::move(y), 0};
    const knee_result k = find_knee(in.x, in.y, o);
    return app::knee_json(a, in, k).dump(2) + "\n";
}

// --- summaries ---

py_summary summarize_inputs(const py::list& items, double sketch_alpha, const analysis_kwargs& kw, const std::string& input_format,
                     const std::string& map, const std::string& ok_if, bool skip_bad) {
    app::summarize_args a;
    kw.apply(a);
    a.sketch_alpha = sketch_alpha;
    a.input_format = input_format;
    a.map = map;
    a.ok_if = ok_if;
    a.skip_bad = skip_bad;
    if (!(a.sketch_alpha > 0 && a.sketch_alpha < 1)) throw usage_error("sketch_alpha must lie between 0 and 1");
    const stats_options o = app::to_stats_options(a);
    std::vector<std::optional<std::string>> paths;
    std::vector<std::shared_ptr<const run>> runs;
    for (const auto& item : items) {
        if (py::isinstance<py_run>(item)) {
            paths.push_back(std::nullopt);
            runs.push_back(item.cast<py_run>().value);
        } else {
            paths.push_back(item.cast<std::string>());
            runs.push_back(nullptr);
        }
    }
    if (paths.empty()) throw usage_error("summarize needs at least one log, run or summary");
    py::gil_scoped_release unlocked;
    std::optional<run_summary> merged;
    for (std::size_t i = 0; i < paths.size(); ++i) {
        run_summary shard{{}, {}, run_accumulator(o, a.sketch_alpha)};
        if (paths[i]) shard = app::summarize_shard(*paths[i], a, o);
        else {
            shard.stats.add(runs[i]->requests);
            shard.meta = runs[i]->meta;
            shard.skipped = runs[i]->skipped;
        }
        if (!merged) merged = std::move(shard);
        else servestat::merge(*merged, shard);
    }
    return {std::make_shared<const run_summary>(std::move(*merged))};
}

py_summary merged(const py_summary& a, const py_summary& b) {
    auto out = std::make_shared<run_summary>(*a.value);
    servestat::merge(*out, *b.value);
    return {std::move(out)};
}

py_summary summary_from_json(const std::string& text, const std::string& name) {
    py::gil_scoped_release unlocked;
    return {std::make_shared<const run_summary>(parse_summary_text(text, name))};
}

} // namespace servestat::python

PYBIND11_MODULE(_servestat, m) {
    using namespace servestat;
    using namespace servestat::python;
    m.doc() = "servestat's C++ core; use the servestat package, not this module";

    static py::exception<input_error> input_exception(m, "InputError", PyExc_ValueError);
    static py::exception<usage_error> usage_exception(m, "UsageError", PyExc_ValueError);
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const input_error& e) {
            py::object error = py::reinterpret_borrow<py::object>(input_exception.ptr())(e.what());
            error.attr("file") = e.file();
            error.attr("line") = e.line();
            error.attr("field") = e.field();
            PyErr_SetObject(input_exception.ptr(), error.ptr());
        } catch (const usage_error& e) {
            usage_exception(e.what());
        }
    });

    py::class_<analysis_kwargs>(m, "AnalysisOptions")
        .def(py::init<std::vector<double>, std::string, int, std::int32_t, std::int32_t, std::vector<std::string>,
                      std::string, std::string, std::size_t, double, std::vector<std::string>, std::vector<std::string>,
                      std::optional<double>, std::optional<int>, std::string>(),
             py::arg("percentiles"), py::arg("method"), py::arg("ddof"), py::arg("short_max"), py::arg("long_min"),
             py::arg("buckets"), py::arg("slo"), py::arg("sweep_by"), py::arg("threads"), py::arg("confidence"),
             py::arg("factors"), py::arg("roles"), py::arg("cost_per_hour"), py::arg("gpus"), py::arg("power_metric"));
    py::class_<compare_kwargs>(m, "CompareOptions")
        .def(py::init<std::string, double, double, std::size_t, std::uint64_t, std::vector<std::string>, std::string,
                      std::vector<std::string>, std::string>(),
             py::arg("noise"), py::arg("alpha"), py::arg("confidence"), py::arg("resamples"), py::arg("seed"),
             py::arg("metrics"), py::arg("out_dir"), py::arg("formats"), py::arg("title"));
    m.attr("default_seed") = bootstrap_options{}.seed;
    m.attr("default_sketch_alpha") = default_sketch_alpha;

    py::class_<py_listings>(m, "Listings").def(py::init<>());

    py::class_<py_run>(m, "Run")
        .def_property_readonly("label", [](const py_run& r) { return r.value->meta.label; })
        .def_property_readonly("path", [](const py_run& r) { return r.value->meta.source.path; })
        .def_property_readonly("format", [](const py_run& r) { return r.value->meta.source.format; })
        .def_property_readonly("requests", [](const py_run& r) { return r.value->requests.size(); })
        .def_property_readonly("skipped", [](const py_run& r) { return r.value->skipped.count; })
        .def_property_readonly("notes", [](const py_run& r) { return r.value->meta.notes; });

    py::class_<py_summary>(m, "Summary")
        .def_property_readonly("label", [](const py_summary& s) { return s.value->meta.label; })
        .def_property_readonly("requests", [](const py_summary& s) { return static_cast<std::size_t>(s.value->stats.requests()); })
        .def_property_readonly("sketch_alpha", [](const py_summary& s) { return s.value->stats.sketch_alpha(); })
        .def("to_json", [](const py_summary& s) { return summary_file_text(*s.value); })
        .def("merged", &merged);

    m.def("read", &servestat::python::read_runs);
    m.def("from_arrays", &servestat::python::from_arrays);
    m.def("stats_json", &servestat::python::stats_json, py::arg("runs"), py::arg("options"), py::arg("listings") = py_listings{});
    m.def("report", &write_report, py::arg("runs"), py::arg("out_dir"), py::arg("formats"), py::arg("title"), py::arg("options"),
          py::arg("listings") = py_listings{});
    m.def("compare_json", &compare_json);
    m.def("knee_json", [](std::vector<double> x, std::vector<double> y, std::string curve, std::string direction, double S,
                          bool online, bool all_knees, std::string interp, int degree) {
        app::knee_args a;
        a.curve = std::move(curve);
        a.direction = std::move(direction);
        a.S = S;
        a.online = online;
        a.all_knees = all_knees;
        a.interp = std::move(interp);
        a.degree = degree;
        return knee_json(std::move(x), std::move(y), a);
    });
    m.def("summarize", &summarize_inputs);
    m.def("summary_from_json", &summary_from_json);
}
