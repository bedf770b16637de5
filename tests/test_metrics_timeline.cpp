// Tests for servestat/ingest/metrics_timeline.hpp (the /metrics timeline `servestat load
// --scrape-interval` writes beside its log: lines written, read back by column, strict errors) and
// servestat/report/server_watch.hpp (the series a report charts and the sentence that sets the
// server's queue and KV cache against the p99 timeline). Expected values are worked out by hand in
// the comments.
#include "servestat/ingest/metrics_timeline.hpp"

#include <cmath>       // std::isnan
#include <filesystem>  // std::filesystem::path
#include <fstream>     // std::ofstream
#include <map>         // std::map
#include <string>      // std::string
#include <string_view> // std::string_view
#include <utility>     // std::pair
#include <vector>      // std::vector

#include "servestat/ingest/detect.hpp"       // read_logs
#include "servestat/report/server_watch.hpp" // watch_server, server_charts
#include "temp_file.hpp"

#include <catch2/catch.hpp> // TEST_CASE, CHECK, REQUIRE, Approx

namespace test_metrics_timeline { // the unity build compiles several test files as one: each keeps its names

namespace {

namespace fs = std::filesystem;
using servestat::input_error;
using servestat::parse_metrics_timeline;
using servestat::server_timeline;
using servestat::test::temp_file;

constexpr std::string_view header = R"({"servestat":"metrics-timeline","version":1,"url":"http://h:1/metrics","interval":0.5,"timeout":2})";

std::string lines(std::initializer_list<std::string_view> body) {
    std::string out(header);
    out += "\n";
    for (auto l : body) out.append(l).append("\n");
    return out;
}

// The line and field of the input_error that reading `text` throws.
std::pair<std::size_t, std::string> read_error(const std::string& text) {
    try {
        parse_metrics_timeline(text, "x.metrics-timeline.jsonl");
    } catch (const input_error& e) {
        CHECK(e.file() == "x.metrics-timeline.jsonl");
        return {e.line(), e.field()};
    }
    FAIL("no input_error for: " << text);
    return {};
}

void write(const fs::path& file, std::string_view text) { std::ofstream(file, std::ios::binary) << text; }

// A timeline of the given waiting / running / KV values, a scrape every 0.5 s from t = 0.
server_timeline timeline_of(const std::vector<double>& running, const std::vector<double>& waiting,
                            const std::vector<double>& kv = {}) {
    server_timeline s;
    s.interval = 0.5;
    s.names = {"vllm:num_requests_running", "vllm:num_requests_waiting"};
    s.values = {running, waiting};
    if (!kv.empty()) {
        s.names.insert(s.names.begin(), "vllm:kv_cache_usage_perc"); // sorted: 'k' < 'n'
        s.values.insert(s.values.begin(), kv);
    }
    for (std::size_t i = 0; i < running.size(); ++i) s.t.push_back(0.5 * static_cast<double>(i));
    return s;
}

} // namespace

TEST_CASE("a timeline's lines are read by column: values by name, a name missing from a scrape is NaN there") {
    const auto s = parse_metrics_timeline(
        lines({R"({"t":0.01,"took":0.002,"values":{"a":1,"b":2},"types":{"a":"gauge","b":"counter"}})",
               R"({"t":0.51,"took":0.003,"error":"connection refused"})",
               "",
               R"({"t":1.02,"took":0.002,"values":{"a":3,"c":null},"types":{"c":"gauge"}})",
               R"({"t":1.49,"values":{"a":4,"b":5,"c":0.25},"sets":{"c":2}})"}),
        "x.metrics-timeline.jsonl");
    CHECK(s.url == "http://h:1/metrics");
    CHECK(s.interval == 0.5);
    CHECK(s.t == std::vector<double>{0.01, 1.02, 1.49});
    REQUIRE(s.names == std::vector<std::string>{"a", "b", "c"});
    CHECK(*s.find("a") == std::vector<double>{1, 3, 4});
    const auto& b = *s.find("b");
    CHECK(b[0] == 2);
    CHECK(std::isnan(b[1])); // not in the third line's scrape
    CHECK(b[2] == 5);
    CHECK(std::isnan((*s.find("c"))[0]));
    CHECK(std::isnan((*s.find("c"))[1])); // null: a NaN gauge
    CHECK(s.find("d") == nullptr);
    CHECK(s.types.at("b") == "counter");
    CHECK(s.types.at("c") == "gauge");
    // The failed scrape is a gap: counted, its time and first error kept.
    CHECK(s.failed_at == std::vector<double>{0.51});
    CHECK(s.first_failure == "connection refused");
    // c summed two label sets at 1.49: 0.25 / 2 per set.
    const auto mean = s.mean_over_label_sets("c");
    REQUIRE(mean);
    CHECK((*mean)[2] == 0.125);
    CHECK(*s.mean_over_label_sets("a") == std::vector<double>{1, 3, 4});
}

TEST_CASE("the writer's lines read back: every counter and gauge summed over label sets, _sum and _count, no buckets") {
    const auto scrape = servestat::parse_prometheus_text(
        "# TYPE vllm:num_requests_running gauge\n"
        "vllm:num_requests_running{engine=\"0\"} 3\n"
        "vllm:num_requests_running{engine=\"1\"} 4\n"
        "# TYPE vllm:kv_cache_usage_perc gauge\n"
        "vllm:kv_cache_usage_perc{engine=\"0\"} 0.5\n"
        "vllm:kv_cache_usage_perc{engine=\"1\"} 0.75\n"
        "# TYPE vllm:num_preemptions_total counter\n"
        "vllm:num_preemptions_total 2\n"
        "vllm:num_preemptions_created 1.7e9\n"
        "# TYPE lat histogram\n"
        "lat_bucket{le=\"1\"} 1\nlat_bucket{le=\"+Inf\"} 2\nlat_sum 3.5\nlat_count 2\n"
        "g NaN\n",
        "scrape");
    std::map<std::string, std::string, std::less<>> types;
    std::string text(servestat::detail::metrics_timeline_header("http://h:1", 0.5, 2));
    text += servestat::detail::metrics_timeline_sample_line(0.25, 0.001, scrape, types);
    text += servestat::detail::metrics_timeline_failure_line(0.75, 2.0, "timeout");
    text += servestat::detail::metrics_timeline_sample_line(1.25, 0.001, scrape, types);
    // The second successful line gives no types: each name's type is written once.
    CHECK(text.substr(text.rfind("{\"t\":1.25")).find("types") == std::string::npos);
    const auto s = parse_metrics_timeline(text, "x");
    CHECK(s.names == std::vector<std::string>{"g", "lat_count", "lat_sum", "vllm:kv_cache_usage_perc",
                                              "vllm:num_preemptions_total", "vllm:num_requests_running"});
    CHECK(*s.find("vllm:num_requests_running") == std::vector<double>{7, 7}); // 3 + 4
    CHECK(*s.find("lat_count") == std::vector<double>{2, 2});
    CHECK(std::isnan((*s.find("g"))[0])); // NaN is written as null
    CHECK(s.types.at("vllm:num_preemptions_total") == "counter");
    CHECK(s.types.at("lat_sum") == "histogram");
    // KV usage of two engines: (0.5 + 0.75) / 2.
    CHECK((*s.mean_over_label_sets("vllm:kv_cache_usage_perc"))[0] == 0.625);
    CHECK(s.label_sets.contains("vllm:num_requests_running")); // 2 sets; a count is read as the sum
    CHECK(!s.label_sets.contains("vllm:num_preemptions_total"));
    CHECK(s.failed_at == std::vector<double>{0.75});
    CHECK(s.first_failure == "timeout");
    // The header must not sniff as a servestat log or summary when its folder is read.
    CHECK(text.substr(0, text.find('\n')).find("\"log\"") == std::string::npos);
    CHECK(text.substr(0, text.find('\n')).find("\"summary\"") == std::string::npos);
}

TEST_CASE("a bad timeline is an input_error naming its line and field") {
    CHECK(read_error("{\"servestat\":\"log\",\"version\":1}\n") == std::pair<std::size_t, std::string>{1, "servestat"});
    CHECK(read_error("{\"servestat\":\"metrics-timeline\",\"version\":2}\n") == std::pair<std::size_t, std::string>{1, "version"});
    CHECK(read_error("{\"servestat\":\"metrics-timeline\",\"version\":1,\"interval\":0}\n") ==
          std::pair<std::size_t, std::string>{1, "interval"});
    CHECK(read_error(lines({R"({"values":{}})"})) == std::pair<std::size_t, std::string>{2, "t"});
    CHECK(read_error(lines({R"({"t":-1,"values":{}})"})) == std::pair<std::size_t, std::string>{2, "t"});
    CHECK(read_error(lines({R"({"t":2,"values":{}})", R"({"t":1,"values":{}})"})) ==
          std::pair<std::size_t, std::string>{3, "t"});
    CHECK(read_error(lines({R"({"t":1,"values":{}})", R"({"t":2,"values":{"a":"x"}})"})) ==
          std::pair<std::size_t, std::string>{3, "values.a"});
    CHECK(read_error(lines({R"({"t":1})"})) == std::pair<std::size_t, std::string>{2, "values"});
    CHECK(read_error(lines({R"({"t":1,"error":"x","values":{}})"})) == std::pair<std::size_t, std::string>{2, "values"});
    CHECK(read_error(lines({R"({"t":1,"took":-0.1,"values":{}})"})) == std::pair<std::size_t, std::string>{2, "took"});
    CHECK(read_error(lines({R"({"t":1,"values":{},"types":{"a":"meter"}})"})) ==
          std::pair<std::size_t, std::string>{2, "types.a"});
    CHECK(read_error(lines({R"({"t":1,"values":{},"sets":{"a":0}})"})) == std::pair<std::size_t, std::string>{2, "sets.a"});
    CHECK(read_error(lines({"", R"({"t":1,"values":{}} x)"})).first == 3);
    CHECK(read_error(lines({R"([1,2])"})).first == 2);
    CHECK_THROWS_AS(parse_metrics_timeline("", "x"), input_error);
}

TEST_CASE("a log picks its timeline up from beside it; a bad one fails the read naming it") {
    constexpr std::string_view log = R"({"servestat":"log","version":1,"run":{"label":"t"}})"
                                     "\n"
                                     R"({"t_sent":0,"t_first":0.1,"t_end":0.5,"status":"ok"})"
                                     "\n";
    const temp_file plain(log, "run.jsonl");
    CHECK(servestat::read_logs(std::vector<std::string>{plain.str()})[0].meta.server_timeline == nullptr);

    const temp_file with(log, "run.jsonl");
    write(with.dir() / "run.metrics-timeline.jsonl",
          lines({R"({"t":0.1,"values":{"vllm:num_requests_waiting":0}})", R"({"t":0.6,"error":"HTTP 503"})"}));
    const auto runs = servestat::read_logs(std::vector<std::string>{with.str()});
    REQUIRE(runs[0].meta.server_timeline != nullptr);
    CHECK(runs[0].meta.server_timeline->t == std::vector<double>{0.1});
    CHECK(runs[0].meta.source.merged == std::vector<std::string>{(with.dir() / "run.metrics-timeline.jsonl").string()});
    REQUIRE(runs[0].meta.notes.size() == 1);
    CHECK(runs[0].meta.notes[0] ==
          "run.metrics-timeline.jsonl: the server's /metrics sampled 1 time every 0.5 s from t = 0.10 s to 0.10 s "
          "(1 series by name, each summed over its label sets); 1 scrape failed and is a gap (first: HTTP 503)");
    // Read as a folder, the timeline is no run of its own and no file passed over.
    std::vector<std::string> passed_over;
    servestat::load_options o;
    o.listed = [&](const servestat::directory_listing& l) {
        for (const auto& f : l.passed_over) passed_over.push_back(f.path);
    };
    CHECK(servestat::read_logs(std::vector<std::string>{with.dir().string()}, o).size() == 1);
    CHECK(passed_over.empty());

    const temp_file bad(log, "run.jsonl");
    write(bad.dir() / "run.metrics-timeline.jsonl", lines({R"({"t":0.1,"values":{"a":1}})", R"({"t":0.6,"values":[]})"}));
    try {
        servestat::read_logs(std::vector<std::string>{bad.str()});
        FAIL("no input_error");
    } catch (const input_error& e) {
        CHECK(e.file() == (bad.dir() / "run.metrics-timeline.jsonl").string());
        CHECK(e.line() == 3);
        CHECK(e.field() == "values");
    }
}

TEST_CASE("a log picks its power timeline up from beside it: its own slot, a note naming the URL, no file passed over") {
    constexpr std::string_view log = R"({"servestat":"log","version":1,"run":{"label":"t"}})"
                                     "\n"
                                     R"({"t_sent":0,"t_first":0.1,"t_end":0.5,"status":"ok"})"
                                     "\n";
    constexpr std::string_view power_header =
        R"({"servestat":"metrics-timeline","version":1,"url":"http://gpu-node:9400/metrics","interval":0.5,"timeout":2})";
    CHECK(servestat::detail::power_timeline_file("d/run.jsonl") == fs::path("d/run.power-timeline.jsonl"));

    const temp_file with(log, "run.jsonl");
    // The closing scrape may share its time with the last periodic one: times never decrease, ties pass.
    write(with.dir() / "run.power-timeline.jsonl",
          std::string(power_header) + "\n" + R"({"t":0.0,"values":{"DCGM_FI_DEV_POWER_USAGE":500}})" "\n" +
              R"({"t":0.5,"values":{"DCGM_FI_DEV_POWER_USAGE":510},"sets":{"DCGM_FI_DEV_POWER_USAGE":2}})" "\n" +
              R"({"t":0.5,"values":{"DCGM_FI_DEV_POWER_USAGE":505}})" "\n");
    const auto runs = servestat::read_logs(std::vector<std::string>{with.str()});
    const auto& meta = runs[0].meta;
    CHECK(meta.server_timeline == nullptr); // the server's /metrics were not sampled
    REQUIRE(meta.power_timeline != nullptr);
    CHECK(meta.power_timeline->url == "http://gpu-node:9400/metrics");
    CHECK(meta.power_timeline->t == std::vector<double>{0.0, 0.5, 0.5});
    CHECK(*meta.power_timeline->find("DCGM_FI_DEV_POWER_USAGE") == std::vector<double>{500, 510, 505});
    CHECK(meta.source.merged == std::vector<std::string>{(with.dir() / "run.power-timeline.jsonl").string()});
    REQUIRE(meta.notes.size() == 1);
    CHECK(meta.notes[0] == "run.power-timeline.jsonl: the power endpoint http://gpu-node:9400/metrics sampled 3 times "
                           "every 0.5 s from t = 0.00 s to 0.50 s (1 series by name, each summed over its label sets)");

    // Beside a metrics timeline: each in its slot, the server's note first. Read as a folder, neither
    // file is a run of its own or a file passed over.
    write(with.dir() / "run.metrics-timeline.jsonl", lines({R"({"t":0.1,"values":{"vllm:num_requests_waiting":0}})"}));
    std::vector<std::string> passed_over;
    servestat::load_options o;
    o.listed = [&](const servestat::directory_listing& l) {
        for (const auto& f : l.passed_over) passed_over.push_back(f.path);
    };
    const auto folder = servestat::read_logs(std::vector<std::string>{with.dir().string()}, o);
    REQUIRE(folder.size() == 1);
    CHECK(passed_over.empty());
    REQUIRE(folder[0].meta.server_timeline != nullptr);
    REQUIRE(folder[0].meta.power_timeline != nullptr);
    CHECK(folder[0].meta.server_timeline->t == std::vector<double>{0.1});
    CHECK(folder[0].meta.power_timeline->t.size() == 3);
    REQUIRE(folder[0].meta.notes.size() == 2);
    CHECK(folder[0].meta.notes[0].starts_with("run.metrics-timeline.jsonl: the server's /metrics sampled 1 time"));
    CHECK(folder[0].meta.notes[1].starts_with("run.power-timeline.jsonl: the power endpoint http://gpu-node:9400/metrics"));

    // As strict as the metrics timeline: the file, line and field of what is wrong.
    const temp_file bad(log, "run.jsonl");
    write(bad.dir() / "run.power-timeline.jsonl",
          std::string(power_header) + "\n" + R"({"t":1,"values":{}})" "\n" + R"({"t":0.5,"values":{}})" "\n");
    try {
        servestat::read_logs(std::vector<std::string>{bad.str()});
        FAIL("no input_error");
    } catch (const input_error& e) {
        CHECK(e.file() == (bad.dir() / "run.power-timeline.jsonl").string());
        CHECK(e.line() == 3);
        CHECK(e.field() == "t");
    }
}

// ---- the report's reading ----------------------------------------------------------------------

TEST_CASE("the queue sentence: when waiting first lasted two scrapes, its peak, and the p99 at both times") {
    // Scrapes at 0, 0.5 … 4: one request waits alone at 0.5 (no queue), then from 1.5 on (the first
    // scrape with waiting > 0 at the next as well), peaking at 41 at t = 3.0.
    const auto s = timeline_of({4, 8, 8, 8, 8, 8, 8, 8, 8}, {0, 1, 0, 3, 10, 30, 41, 41, 20});
    // The p99 timeline: bins of 1 s, middles 0.5 … 4.5. At 1.5: 0.8 s; at 3.0 the nearest middle is
    // 2.5 (3.0 − 2.5 = 0.5 < 3.5 − 3.0 only ties; the first nearest wins): 3.1 s.
    const servestat::plot::named_points p99{"p99", {0.5, 1.5, 2.5, 3.5, 4.5}, {0.7, 0.8, 3.1, 3.3, 2.0}};
    const auto w = servestat::report::watch_server(s, 0.0, p99, 1.0);
    CHECK(w.notable);
    CHECK(w.sentence == "Requests began to wait on the server at t = 1.5 s; the queue peaked at 41 at t = 3.0 s "
                        "(vllm:num_requests_waiting), while the p99 e2e of completions rose from 800 ms to 3.10 s.");
    // The same on an axis that starts at 0.5 s (the first request's send): every time 0.5 s earlier,
    // the scrape at 0 left out.
    const auto shifted = servestat::report::watch_server(s, 0.5, p99, 1.0);
    CHECK(shifted.waiting->x.front() == 0.0);
    CHECK(shifted.sentence.starts_with("Requests began to wait on the server at t = 1.0 s; the queue peaked at 41 at t = 2.5 s"));
    // Bins of 4 s: the start and the peak share the bin at 2.0, whose one p99 is said once.
    const servestat::plot::named_points coarse{"p99", {2.0}, {0.9}};
    CHECK(servestat::report::watch_server(s, 0.0, coarse, 4.0).sentence ==
          "Requests began to wait on the server at t = 1.5 s; the queue peaked at 41 at t = 3.0 s "
          "(vllm:num_requests_waiting); the p99 e2e of completions was 900 ms then.");
}

TEST_CASE("no queue: one short sentence, and nothing for the summary") {
    const auto s = timeline_of({2, 3, 3, 2}, {0, 1, 0, 0});
    const auto w = servestat::report::watch_server(s, 0.0, {}, 1.0);
    CHECK(!w.notable);
    CHECK(w.sentence == "No request waited on the server for more than one scrape (vllm:num_requests_waiting, 4 scrapes).");
}

TEST_CASE("the KV cache passing 90%, below it beside a queue, and preemptions counted from the first scrape") {
    const servestat::plot::named_points p99{"p99", {0.5, 1.5}, {1.0, 2.5}};
    // KV passes 0.9 at the scrape at 1.0 (0.92), peaks at 0.97 at 1.5; no waiting at all.
    const auto full = timeline_of({8, 8, 8, 8}, {0, 0, 0, 0}, {0.5, 0.8, 0.92, 0.97});
    const auto w = servestat::report::watch_server(full, 0.0, p99, 1.0);
    CHECK(w.notable);
    CHECK(w.sentence == "The KV cache passed 90% at t = 1.0 s (p99 e2e then 1.00 s) and peaked at 97% "
                        "(vllm:kv_cache_usage_perc).");
    // A queue with the cache well below the mark: the cache is said too (the queue is the scheduler's).
    const auto queued = timeline_of({8, 8, 8, 8}, {0, 5, 5, 0}, {0.1, 0.3, 0.4, 0.2});
    const auto q = servestat::report::watch_server(queued, 0.0, p99, 1.0);
    // Waiting from 0.5 s, 5 at once at its peak there; the p99 bin nearest 0.5 s is the first (1.00 s).
    CHECK(q.sentence == "Requests began to wait on the server at t = 0.5 s, 5 at once (vllm:num_requests_waiting); the "
                        "p99 e2e of completions was 1.00 s then. KV-cache usage stayed below 90% (peak 40% at t = 1.0 s).");
    // Preemptions: the server's counter stood at 100 before the run; 3 more by t = 1.0 s, 12 in all.
    auto preempting = timeline_of({8, 8, 8, 8}, {0, 0, 0, 0});
    preempting.names.insert(preempting.names.begin(), "vllm:num_preemptions_total");
    preempting.values.insert(preempting.values.begin(), std::vector<double>{100, 100, 103, 112});
    const auto p = servestat::report::watch_server(preempting, 0.0, p99, 1.0);
    CHECK(p.notable);
    CHECK(p.preempted->y == std::vector<double>{0, 0, 3, 12});
    CHECK(p.sentence == "The server preempted requests 12 times (vllm:num_preemptions_total), the first by t = 1.0 s.");
}

TEST_CASE("the prefix cache's hit rate per scrape interval from vLLM V1's token counters") {
    server_timeline s;
    s.t = {0, 1, 2, 3};
    s.names = {"vllm:prefix_cache_hits_total", "vllm:prefix_cache_queries_total"};
    // Δhits / Δqueries: (50−0)/(100−0) = 0.5 at 1; nothing looked up at 2 (no point); (350−50)/(500−100) = 0.75 at 3.
    s.values = {{0, 50, 50, 350}, {0, 100, 100, 500}};
    const auto w = servestat::report::watch_server(s, 0.0, {}, 1.0);
    REQUIRE(w.prefix_hits);
    CHECK(w.prefix_hits->x == std::vector<double>{1, 3});
    CHECK(w.prefix_hits->y == std::vector<double>{0.5, 0.75});
    CHECK(w.sentence.empty()); // no queue gauge: nothing to say
}

TEST_CASE("the server charts: counts on one, shares in percent on the other, named by metric") {
    auto s = timeline_of({4, 8, 8}, {0, 3, 5}, {0.2, 0.6, 0.95});
    nlohmann::json params = {{"max_num_seqs", 8}};
    servestat::plot::timeline_options span;
    span.x_span = {0.0, 10.0};
    const auto charts = servestat::report::server_charts(s, 0.0, params, "run-1", span);
    REQUIRE(charts.size() == 2);
    CHECK(charts[0].kind == "server-queue");
    CHECK(charts[0].svg.find("running (vllm:num_requests_running)") != std::string::npos);
    CHECK(charts[0].svg.find("waiting (vllm:num_requests_waiting)") != std::string::npos);
    CHECK(charts[0].svg.find("max_num_seqs = 8") != std::string::npos);
    CHECK(charts[1].kind == "server-kv-cache");
    CHECK(charts[1].svg.find("KV usage (vllm:kv_cache_usage_perc)") != std::string::npos);
    CHECK(charts[1].svg.find("share (%)") != std::string::npos);
    CHECK(charts[1].svg.find("90% KV-cache usage") != std::string::npos);
}

} // namespace test_metrics_timeline
