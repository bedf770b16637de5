// Trends across weekly runs (compare/trend.hpp, report/trend_view.hpp) on examples/weekly: ordering
// by start date, the story's verdicts, the JSON, the rendered reports and the plots.
#include <catch2/catch.hpp> // Catch2 v2

#include <algorithm> // std::any_of, std::count_if
#include <stdexcept> // std::runtime_error
#include <string>    // std::string
#include <vector>    // std::vector

#include "servestat/ingest/detect.hpp"
#include "servestat/report/builtin_templates.hpp"
#include "servestat/report/render.hpp"
#include "servestat/report/trend_view.hpp"

namespace test_trend { // the unity build compiles several test files as one: each keeps its names

using namespace servestat;

namespace {

const std::string weekly_dir = SERVESTAT_TEST_DATA_DIR "/../../examples/weekly/";

// In file-name order, as a shell glob gives them: week 2's re-run sorts last.
const std::vector<std::string> weekly_files{"2026-10-19.jsonl", "2026-11-02.jsonl", "2026-11-09.jsonl",
                                            "2026-11-16.jsonl", "rerun-2026-10-26.jsonl"};

const std::vector<run>& weekly_runs() {
    static const std::vector<run> runs = [] {
        std::vector<std::string> paths;
        for (const auto& f : weekly_files) paths.push_back(weekly_dir + f);
        return read_logs(paths);
    }();
    return runs;
}

const run& week(int n) {
    for (const auto& r : weekly_runs())
        if (r.meta.label == "week-" + std::to_string(n)) return r;
    throw std::runtime_error("no week-" + std::to_string(n) + " among the weekly logs");
}

compare_options fast_trend_options() {
    compare_options o = default_trend_options();
    o.bootstrap.resamples = 500;
    return o;
}

std::vector<std::string> labels_of(const trend& t, std::span<const run> runs) {
    std::vector<std::string> out;
    for (const auto& s : t.steps) out.push_back(runs[s.run].meta.label);
    return out;
}

const change& change_of(const std::optional<run_comparison>& rc, std::string_view name) {
    REQUIRE(rc.has_value());
    const change* c = find_change(*rc, name);
    REQUIRE(c != nullptr);
    return *c;
}

bool has_note(const trend& t, std::string_view words) {
    return std::any_of(t.notes.begin(), t.notes.end(),
                       [&](const std::string& n) { return n.find(words) != std::string::npos; });
}

std::string render_builtin(const char* name, const json& view) {
    const auto* tmpl = find_builtin_template(name);
    REQUIRE(tmpl != nullptr);
    return render(tmpl->text, view, std::string_view(name).ends_with(".html") ? markup::html : markup::markdown, name);
}

json full_view(const trend& t, std::span<const run> runs, const compare_options& o,
               std::string title = "Weekly trend") {
    const auto plots = report::trend_plots(t, runs);
    return report::trend_view_model(t, runs, o, std::move(title), plots);
}

// The runs with every first-token time removed, as a non-streaming test would log them.
std::vector<run> without_ttft(const std::vector<run>& runs) {
    std::vector<run> out;
    for (const auto& r : runs) {
        run copy;
        copy.meta = r.meta;
        for (std::size_t i = 0; i < r.requests.size(); ++i) {
            request_record row = r.requests.row(i);
            row.t_first.reset();
            copy.requests.push_back(row);
        }
        out.push_back(std::move(copy));
    }
    return out;
}

} // namespace

TEST_CASE("a trend orders the weekly logs by start date, not by file name") {
    const auto& runs = weekly_runs();
    REQUIRE(runs.size() == 5);
    CHECK(runs.back().meta.label == "week-2"); // read last, as its file name sorts last
    const trend t = follow_trend(runs, fast_trend_options());
    CHECK(labels_of(t, runs) == std::vector<std::string>{"week-1", "week-2", "week-3", "week-4", "week-5"});
    // week 2 wrote "2026-10-26T23:00:00+02:00": 21:00 UTC like the others
    REQUIRE(t.steps[1].started.has_value());
    CHECK(*t.steps[1].started == *detail::parse_utc_time("2026-10-26T21:00:00Z"));
    CHECK(t.notes.empty());
    CHECK_FALSE(t.steps[0].vs_previous.has_value());
    CHECK_FALSE(t.steps[0].vs_first.has_value());
}

TEST_CASE("the weekly story: stable, a regression in week 4, recovered in week 5") {
    const auto& runs = weekly_runs();
    const trend t = follow_trend(runs); // the CLI's defaults: 2000 resamples
    REQUIRE(t.steps.size() == 5);
    for (std::size_t k : {1, 2}) {
        const verdict v = change_of(t.steps[k].vs_previous, "e2e.p50").result;
        CHECK(v != verdict::improved);
        CHECK(v != verdict::regressed);
    }
    CHECK(change_of(t.steps[3].vs_previous, "e2e.p50").result == verdict::regressed);
    CHECK(change_of(t.steps[3].vs_previous, "ttft.p50").result == verdict::regressed);
    CHECK(change_of(t.steps[4].vs_previous, "e2e.p50").result == verdict::improved);
    // Week 5 is back at week 1's level.
    const verdict back = change_of(t.steps[4].vs_first, "e2e.p50").result;
    CHECK(back != verdict::improved);
    CHECK(back != verdict::regressed);
}

TEST_CASE("trend.json carries each run's numbers and its changes against the previous and the first run") {
    const auto& runs = weekly_runs();
    const compare_options o = fast_trend_options();
    const json doc = report::trend_document(follow_trend(runs, o), runs, o);
    CHECK(doc["servestat"] == "trend");
    CHECK(doc["version"] == 1);
    CHECK(doc["options"]["resamples"] == 500);
    CHECK(doc["options"]["metrics"] == json::array({"e2e", "ttft"}));
    CHECK(doc["notes"].empty());
    const json& list = doc["runs"];
    REQUIRE(list.size() == 5);
    // numpy (linear) over t_end - t_sent of the ok requests, read from the files with json.loads:
    // week-1 2.158939, week-2 2.2599494999999994, week-4 2.615526; week-4 has 397 of 400 ok.
    CHECK(list[0]["e2e"]["p50"].get<double>() == Approx(2.158939).epsilon(1e-12));
    CHECK(list[1]["e2e"]["p50"].get<double>() == Approx(2.2599494999999994).epsilon(1e-12));
    CHECK(list[3]["e2e"]["p50"].get<double>() == Approx(2.615526).epsilon(1e-12));
    CHECK(list[3]["ttft"]["p50"].get<double>() == Approx(0.4860219999999984).epsilon(1e-12));
    CHECK(list[3]["requests"] == 400);
    CHECK(list[3]["ok"] == 397);
    CHECK(list[1]["started_at"] == "2026-10-26T23:00:00+02:00");
    CHECK(list[1]["started_utc"] == "2026-10-26T21:00:00Z");
    CHECK(list[1]["source"]["format"] == "servestat");
    CHECK(list[1]["source"]["path"].get<std::string>().ends_with("rerun-2026-10-26.jsonl"));
    CHECK(list[0]["vs_previous"].is_null());
    CHECK(list[0]["vs_first"].is_null());
    const json* e2e_p50 = nullptr;
    for (const auto& c : list[3]["vs_previous"]["changes"]) {
        CHECK((c["subset"].is_null() || c["subset"] == "all"));
        if (c["name"] == "e2e.p50") e2e_p50 = &c;
    }
    REQUIRE(e2e_p50 != nullptr);
    // numpy: 2.615526 / 2.3040319999999985 - 1 (week-4 over week-3)
    CHECK((*e2e_p50)["relative_change"].get<double>() == Approx(0.1351951709004049).epsilon(1e-9));
    CHECK((*e2e_p50)["verdict"] == "regressed");
    CHECK(list[4]["vs_first"]["changes"].size() == list[4]["vs_previous"]["changes"].size());
}

TEST_CASE("runs without a start date keep the order given, with a note") {
    std::vector<run> runs{week(4), week(1), week(3)};
    runs[1].meta.started_at.clear();
    const compare_options o = fast_trend_options();
    const trend t = follow_trend(runs, o);
    CHECK(labels_of(t, runs) == std::vector<std::string>{"week-4", "week-1", "week-3"});
    CHECK(has_note(t, "no start date"));
    const auto plots = report::trend_plots(t, runs);
    REQUIRE_FALSE(plots.empty());
    CHECK(plots.front().svg.find("run (in the order given)") != std::string::npos);
    const json view = report::trend_view_model(t, runs, o, "Undated");
    CHECK(view["dated"] == false);
    CHECK(view["rows"][1]["date"] == "–");
    CHECK(view["has_notes"] == true);
    const std::string md = render_builtin("trend.md", view);
    CHECK(md.find("3 runs, oldest first (in the order given: some runs have no start date)") != std::string::npos);
    CHECK(md.find("## Notes") != std::string::npos);
    CHECK(md.find("- Run 2 (week-1): all requests' e2e p50 improved by") != std::string::npos); // undated: named by place
    CHECK(render_builtin("trend.html", view).find("<h2>Notes</h2>") != std::string::npos);
}

TEST_CASE("runs of different workloads or models give a note") {
    std::vector<run> runs{week(1), week(3)};
    runs[1].meta.workload = "mix_90_10";
    const trend t = follow_trend(runs, fast_trend_options());
    CHECK(has_note(t, "differ in workload"));
    CHECK_FALSE(has_note(t, "differ in model"));
}

TEST_CASE("a trend needs at least two runs with per-request logs") {
    const std::vector<run> one{week(1)};
    CHECK_THROWS_AS(follow_trend(one, fast_trend_options()), usage_error);
    std::vector<run> hollow{week(1), run{}};
    hollow[1].meta.label = "empty";
    CHECK_THROWS_AS(follow_trend(hollow, fast_trend_options()), usage_error);
}

TEST_CASE("the trend view marks significant changes only and says what happened") {
    const auto& runs = weekly_runs();
    const compare_options o = fast_trend_options();
    const json view = full_view(follow_trend(runs, o), runs, o);
    const json& rows = view["rows"];
    REQUIRE(rows.size() == 5);
    CHECK(rows[0]["date"] == "2026-10-19 21:00 UTC");
    CHECK(rows[1]["date"] == "2026-10-26 21:00 UTC");
    CHECK(rows[0]["e2e_p50"]["vs_previous"].is_null());
    CHECK(rows[3]["e2e_p50"]["vs_previous"]["change"] == "+13.5%");
    CHECK(rows[3]["e2e_p50"]["vs_previous"]["marker"] == "▲");
    CHECK(rows[3]["e2e_p50"]["vs_previous"]["class"] == "regressed");
    CHECK(rows[4]["e2e_p50"]["vs_previous"]["marker"] == "▼");
    CHECK(rows[1]["e2e_p50"]["vs_previous"]["marker"] == "");
    CHECK(rows[2]["e2e_p50"]["vs_previous"]["marker"] == "");
    // numpy: week-5 over week-1 is -2.23%: no marker, typographic minus
    CHECK(rows[4]["e2e_p50"]["vs_first"]["text"] == "−2.2%");
    // throughput is one measurement per run: never marked, even when it moves by 10%
    for (const auto& r : rows)
        if (!r["rps"]["vs_previous"].is_null()) CHECK(r["rps"]["vs_previous"]["marker"] == "");
    std::vector<std::string> findings;
    for (const auto& f : view["findings"]) findings.push_back(f["text"].get<std::string>());
    REQUIRE_FALSE(findings.empty());
    // numpy: week-4 over week-3 e2e p50 is +13.52%
    CHECK(findings[0].starts_with(
        "2026-11-09 (week-4): all requests' e2e p50 regressed by 13.5% against the previous run (95% CI +"));
    CHECK(findings[0].find("p < 0.001)") != std::string::npos);
    auto count = [&](std::string_view words) {
        return std::count_if(findings.begin(), findings.end(),
                             [&](const std::string& f) { return f.find(words) != std::string::npos; });
    };
    CHECK(count("2026-11-16 (week-5): all requests' e2e p50 improved by") == 1);
    CHECK(count("(week-2)") == 0);
    CHECK(count("(week-3)") == 0);
    CHECK(findings.back().starts_with("Against the first run (week-1), all requests' ttft p50 in the latest run"));
    CHECK(view["stats"] == report::trend_document(follow_trend(runs, o), runs, o));
}

TEST_CASE("with no significant step the findings say so") {
    const std::vector<run> runs{week(1), week(2)}; // the same distribution
    const compare_options o = fast_trend_options();
    const json view = report::trend_view_model(follow_trend(runs, o), runs, o, "Two stable weeks");
    REQUIRE_FALSE(view["findings"].empty());
    CHECK(view["findings"][0]["text"] == "No significant change between consecutive runs.");
}

TEST_CASE("a latest run in which every request failed leads the summary, not 'no latency changed'") {
    run failed;
    failed.meta = week(2).meta;
    for (std::size_t i = 0; i < week(2).requests.size(); ++i) {
        request_record r;
        r.t_sent = week(2).requests.t_sent()[i];
        r.t_end = *r.t_sent + 0.01;
        r.status = request_status::error;
        r.http_status = 503;
        failed.requests.push_back(r);
    }
    const std::vector<run> runs{week(1), failed};
    const compare_options o = fast_trend_options();
    const json view = report::trend_view_model(follow_trend(runs, o), runs, o, "A dead server");
    REQUIRE_FALSE(view["summary"].empty());
    CHECK(view["summary"][0]["text"] == fmt::format("The latest run (week-2, 2026-10-26) completed none of its {} requests: "
                                                    "every latency is missing, not unchanged.", week(2).requests.size()));
    for (const auto& s : view["summary"]) CHECK(s["text"].get<std::string>().find("no latency changed") == std::string::npos);
}

TEST_CASE("the built-in trend templates render the view, and twice the same") {
    const auto& runs = weekly_runs();
    const compare_options o = fast_trend_options();
    const json view = full_view(follow_trend(runs, o), runs, o);
    const std::string md = render_builtin("trend.md", view), html = render_builtin("trend.html", view);
    CHECK(md.find("# Weekly trend") != std::string::npos);
    CHECK(md.find("| 2026-11-09 21:00 UTC | week-4 |") != std::string::npos);
    CHECK(md.find("(+13.5% ▲)") != std::string::npos);
    CHECK(md.find("![End-to-end latency over time (p50, p99)](plots/trend-e2e.svg)") != std::string::npos);
    CHECK(md.find("## Against the first run (week-1)") != std::string::npos);
    CHECK(html.find("<svg") != std::string::npos);
    CHECK(html.find("<script") == std::string::npos);
    CHECK(html.find("src=") == std::string::npos); // self-contained: nothing fetched
    CHECK(html.find("<link") == std::string::npos);
    CHECK(html.find("class=\"change regressed\">+13.5% ▲</span>") != std::string::npos);
    const json again = full_view(follow_trend(runs, o), runs, o);
    CHECK(render_builtin("trend.md", again) == md);
    CHECK(render_builtin("trend.html", again) == html);
}

TEST_CASE("labels from the logs are escaped in every format") {
    std::vector<run> runs{week(1), week(3)};
    runs[1].meta.label = "<script>alert(1)</script>|x";
    const compare_options o = fast_trend_options();
    const json view = full_view(follow_trend(runs, o), runs, o, "Hostile <b>label</b>");
    const std::string md = render_builtin("trend.md", view), html = render_builtin("trend.html", view);
    CHECK(html.find("<script") == std::string::npos);
    CHECK(html.find("&lt;script&gt;alert(1)&lt;/script&gt;|x") != std::string::npos);
    CHECK(html.find("<b>label") == std::string::npos);
    CHECK(md.find("\\<script\\>alert(1)\\</script\\>\\|x") != std::string::npos);
    // every row of the first table still has its 10 cell borders
    const auto row_at = md.find("| 2026-11-02 21:00 UTC |");
    REQUIRE(row_at != std::string::npos);
    const std::string row = md.substr(row_at, md.find('\n', row_at) - row_at);
    std::size_t borders = 0;
    for (std::size_t i = 0; i < row.size(); ++i) borders += row[i] == '|' && (i == 0 || row[i - 1] != '\\');
    CHECK(borders == 10);
}

TEST_CASE("trend plots: latency and throughput over days, titled, labelled and with the regression marked") {
    const auto& runs = weekly_runs();
    const trend t = follow_trend(runs, fast_trend_options());
    const auto plots = report::trend_plots(t, runs);
    REQUIRE(plots.size() == 3);
    CHECK(plots[0].name == "trend-e2e.svg");
    CHECK(plots[1].name == "trend-ttft.svg");
    CHECK(plots[2].name == "trend-rps.svg");
    for (const auto& p : plots) {
        CHECK_FALSE(p.title.empty());
        CHECK(p.svg.find("<title>" + p.title + "</title>") != std::string::npos);
        CHECK(p.svg.find("days since 2026-10-19") != std::string::npos);
    }
    CHECK(plots[0].svg.find("end-to-end latency (s)") != std::string::npos);
    CHECK(plots[0].svg.find("e2e p99") != std::string::npos);
    CHECK(plots[0].svg.find("regressed (week-4)") != std::string::npos);
    CHECK(plots[1].svg.find("time to first token (s)") != std::string::npos);
    CHECK(plots[2].svg.find("throughput (req/s)") != std::string::npos);
    CHECK(plots[2].svg.find("regressed") == std::string::npos); // one measurement: no verdict to mark

    const auto plain = without_ttft(runs);
    const auto no_ttft = report::trend_plots(follow_trend(plain, fast_trend_options()), plain);
    REQUIRE(no_ttft.size() == 2);
    CHECK(no_ttft[0].name == "trend-e2e.svg");
    CHECK(no_ttft[1].name == "trend-rps.svg");
}

} // namespace test_trend
