// Tests for servestat/ingest/prometheus_text.hpp: the Prometheus text exposition parser, the
// difference of two scrapes, histogram_quantile, and the server-side values the canonical log reader
// adds when `servestat load --scrape-metrics` left the scrapes beside the log (tests/data/scrape/).
// Expected quantiles are worked out by hand from Prometheus' algorithm (promql/quantile.go,
// bucketQuantile); the arithmetic is in the comments.
#include "servestat/ingest/prometheus_text.hpp"

#include <cmath>       // std::isinf
#include <filesystem>  // std::filesystem::path
#include <fstream>     // std::ofstream, std::ifstream
#include <iterator>    // std::istreambuf_iterator
#include <limits>      // std::numeric_limits
#include <optional>    // std::optional
#include <string>      // std::string
#include <string_view> // std::string_view
#include <utility>     // std::pair
#include <vector>      // std::vector

#include <fmt/format.h> // fmt::format

#include "servestat/ingest/detect.hpp" // read_logs, detect_format
#include "servestat/sim/metrics.hpp"   // sim::server_metrics (the simulator's /metrics)
#include "servestat/stats/metrics.hpp" // all_metrics, to_string(metric)
#include "temp_file.hpp"

#include <catch2/catch.hpp> // TEST_CASE, CHECK, REQUIRE, Approx

namespace test_prometheus_text { // the unity build compiles several test files as one: each keeps its names

namespace {

namespace fs = std::filesystem;
using servestat::histogram_quantile;
using servestat::input_error;
using servestat::parse_prometheus_text;
using servestat::prometheus_bucket;
using servestat::prometheus_scrape;
using servestat::scrape_difference;
using servestat::test::temp_file;

constexpr double inf = std::numeric_limits<double>::infinity();

fs::path fixture(std::string_view name) { return fs::path(SERVESTAT_TEST_DATA_DIR) / "scrape" / name; }

std::vector<servestat::run> read(const fs::path& log) {
    const std::vector<std::string> inputs{log.string()};
    return servestat::read_logs(inputs);
}

std::optional<double> reported(const servestat::run& r, std::string_view name) {
    if (const auto* v = servestat::find_reported(r.meta, name)) return v->value;
    return std::nullopt;
}

void write(const fs::path& file, std::string_view text) { std::ofstream(file, std::ios::binary) << text; }

// The line and field of the input_error that parsing `text` throws.
std::pair<std::size_t, std::string> parse_error(std::string_view text) {
    try {
        parse_prometheus_text(text, "bad.prom");
    } catch (const input_error& e) {
        CHECK(e.file() == "bad.prom");
        return {e.line(), e.field()};
    }
    FAIL("no input_error for: " << text);
    return {};
}

constexpr std::string_view log_header = R"({"servestat":"log","version":1,"run":{"label":"t"}})"
                                        "\n"
                                        R"({"t_sent":0,"t_first":0.1,"t_end":0.5,"status":"ok"})"
                                        "\n";

} // namespace

// ---- parsing -------------------------------------------------------------------------------------

TEST_CASE("a sample line's labels are unescaped: \\\" \\\\ \\n, and braces or commas inside quotes") {
    const servestat::detail::prometheus_line_parser parser("f.prom", 1);
    const auto s = parser.sample(R"(m:x_total{a="x\"y", b = "back\\slash",c="new\nline",d="{},=",} 1.5 -1700)");
    CHECK(s.name == "m:x_total");
    REQUIRE(s.labels.size() == 4);
    CHECK(*s.label("a") == "x\"y");
    CHECK(*s.label("b") == "back\\slash");
    CHECK(*s.label("c") == "new\nline");
    CHECK(*s.label("d") == "{},=");
    CHECK(s.label("e") == nullptr);
    CHECK(s.value == 1.5);
    CHECK(parser.sample("up 1").labels.empty());
    CHECK(parser.sample("up{} 2").value == 2);
    CHECK(parser.sample("\tup{a=\"b\"}3").value == 3);
}

TEST_CASE("values: decimals, exponents, +Inf, -Inf and NaN") {
    const servestat::detail::prometheus_line_parser parser("f.prom", 1);
    CHECK(parser.sample("m +Inf").value == inf);
    CHECK(parser.sample("m Inf").value == inf);
    CHECK(parser.sample("m -Inf").value == -inf);
    CHECK(std::isnan(parser.sample("m NaN").value));
    CHECK(parser.sample("m 1.5e3").value == 1500);
    CHECK(parser.sample("m -0.25").value == -0.25);
    CHECK(parser.sample("m +7").value == 7);
}

TEST_CASE("a scrape: comments, HELP and TYPE, blank and CRLF lines, series summed over label sets") {
    const std::string text =
        "# a free comment, even # HELP inside it\n"
        "# HELP req_total Requests \\\\ served,\\n by reason.\n"
        "# TYPE req_total counter\r\n"
        "req_total{model=\"a\",reason=\"stop\"} 2\r\n"
        "req_total{model=\"a\",reason=\"length\"} 3 1700000000000\n"
        "req_total{model=\"b\",reason=\"stop\"} 4\n"
        "\n"
        "   \t\n"
        "# TYPE lat histogram\n"
        "lat_bucket{model=\"a\",le=\"1\"} 1\n"
        "lat_bucket{model=\"a\",le=\"+Inf\"} 2\n"
        "lat_bucket{model=\"b\",le=\"1.0\"} 3\n"
        "lat_bucket{model=\"b\",le=\"+Inf\"} 5\n"
        "lat_sum{model=\"a\"} 2.5\n"
        "lat_sum{model=\"b\"} 4\n"
        "lat_count{model=\"a\"} 2\n"
        "lat_count{model=\"b\"} 5\n"
        "# TYPE rpc summary\n"
        "rpc{quantile=\"0.5\"} 0.25\n"
        "rpc{quantile=\"0.9\"} 0.75\n"
        "rpc_sum 10\n"
        "rpc_count 20\n"
        "temp 21.5";
    const prometheus_scrape s = parse_prometheus_text(text, "x.prom");
    CHECK(s.value("req_total") == 9); // 2 + 3 + 4 over (model, reason)
    CHECK(s.types.at("req_total") == servestat::prometheus_type::counter);
    CHECK(s.types.at("lat") == servestat::prometheus_type::histogram);
    CHECK(s.type_of("lat_sum") == servestat::prometheus_type::histogram);
    CHECK(s.type_of("temp") == servestat::prometheus_type::untyped);
    CHECK(s.value("temp") == 21.5); // the last line needs no line end
    CHECK_FALSE(s.value("rpc").has_value()); // quantile samples are not summed
    CHECK(s.value("rpc_count") == 20);
    const auto lat = s.histogram("lat");
    REQUIRE(lat);
    // le "1" and "1.0" are the same bound: 1 + 3; +Inf: 2 + 5
    REQUIRE(lat->buckets.size() == 2);
    CHECK(lat->buckets[0].le == 1);
    CHECK(lat->buckets[0].count == 4);
    CHECK(lat->buckets[1].le == inf);
    CHECK(lat->buckets[1].count == 7);
    CHECK(lat->sum == 6.5);
    CHECK(lat->count == 7);
    CHECK_FALSE(s.histogram("req").has_value());
}

TEST_CASE("the fixture scrape reads, its escaped model name summed with the other") {
    const auto s = servestat::read_prometheus_file(fixture("run.metrics-before.prom"));
    CHECK(s.file == fixture("run.metrics-before.prom").string());
    CHECK(s.value("vllm:prompt_tokens_total") == 150);
    CHECK(s.value("vllm:request_success_total") == 4); // stop 2 + length 2
    const auto e2e = s.histogram("vllm:e2e_request_latency_seconds");
    REQUIRE(e2e);
    REQUIRE(e2e->buckets.size() == 4);
    CHECK(e2e->buckets[0].count == 1);
    CHECK(e2e->buckets[1].count == 3);
    CHECK(e2e->buckets[2].count == 4);
    CHECK(e2e->buckets[3].count == 4);
    CHECK(e2e->sum == 3.25);
    CHECK(e2e->count == 4);
}

TEST_CASE("the simulator's /metrics parses into the histograms it recorded") {
    servestat::sim::server_metrics metrics;
    for (const double queue : {0.1, 0.2, 0.4}) metrics.record_finished({queue, 0.05, 1.0});
    const auto s = parse_prometheus_text(metrics.render("Org/model \"x\"", 0, 1), "sim.prom");
    const auto queue = s.histogram("vllm:request_queue_time_seconds");
    REQUIRE(queue);
    CHECK(queue->count == 3);
    CHECK(queue->sum == Approx(0.7));
    CHECK(queue->buckets.front().le == 0.3); // vLLM's request latency buckets start at 0.3 s
    CHECK(queue->buckets.front().count == 2);
    CHECK(queue->buckets.back().le == inf);
    // rank 0.5 × 3 = 1.5 lies in the lowest bucket (count 2, bounds 0..0.3): 0.3 × 1.5 / 2 = 0.225
    CHECK(histogram_quantile(0.5, *queue) == Approx(0.225));
    CHECK(s.value("vllm:num_requests_waiting") == 1);
}

// ---- errors ----------------------------------------------------------------------------------------

TEST_CASE("a malformed line is an input_error naming the file, the line and the field") {
    using E = std::pair<std::size_t, std::string>;
    CHECK(parse_error("ok 1\n9metric 1\n") == E{2, "name"});
    CHECK(parse_error("# TYPE m\nm 1") == E{1, "TYPE"});
    CHECK(parse_error("# TYPE m histo\n") == E{1, "TYPE"});
    CHECK(parse_error("# TYPE m counter extra\n") == E{1, "TYPE"});
    CHECK(parse_error("# HELP\n") == E{1, "HELP"});
    CHECK(parse_error("\n\nm\n") == E{3, "value"});
    CHECK(parse_error("m 12abc\n") == E{1, "value"});
    CHECK(parse_error("m{a=\"x\" 3\n") == E{1, "labels"});
    CHECK(parse_error("m{=\"x\"} 3\n") == E{1, "labels"});
    CHECK(parse_error("m{a \"x\"} 3\n") == E{1, "a"});
    CHECK(parse_error("m{a=x} 3\n") == E{1, "a"});
    CHECK(parse_error("m{a=\"x\\q\"} 3\n") == E{1, "a"});   // \q is no escape
    CHECK(parse_error("m{a=\"x} 3\n") == E{1, "a"});        // unterminated
    CHECK(parse_error("m 1 2.5\n") == E{1, "timestamp"});   // timestamps are integers
    CHECK(parse_error("m 1 2 3\n") == E{1, "timestamp"});
    CHECK(parse_error("h_bucket{le=\"abc\"} 1\n") == E{1, "le"});
    CHECK(parse_error("h_bucket{le=\"NaN\"} 1\n") == E{1, "le"});
    CHECK(parse_error("h_bucket{le=\"1\"} -1\n") == E{1, "value"});
}

TEST_CASE("buckets without _sum and _count, and a missing file, are input errors") {
    const auto s = parse_prometheus_text("h_bucket{le=\"1\"} 1\nh_bucket{le=\"+Inf\"} 1\n", "h.prom");
    try {
        (void)s.histogram("h");
        FAIL("no input_error");
    } catch (const input_error& e) {
        CHECK(e.file() == "h.prom");
        CHECK(e.field() == "h");
    }
    CHECK_THROWS_AS(servestat::read_prometheus_file(fixture("absent.prom")), input_error);
}

// ---- histogram_quantile ---------------------------------------------------------------------------

TEST_CASE("histogram_quantile interpolates within the bucket that holds rank q × count") {
    // Cumulative counts: le 0.5 → 3, le 1 → 6, le 2.5 → 10, +Inf → 11 (11 observations).
    const std::vector<prometheus_bucket> b{{0.5, 3}, {1, 6}, {2.5, 10}, {inf, 11}};
    // q 0.5: rank 5.5; first bucket with count ≥ 5.5 is le 1 (6); it holds 6 − 3 = 3 observations
    // from 0.5 to 1, the rank within it is 5.5 − 3 = 2.5: 0.5 + (1 − 0.5) × 2.5 / 3 = 0.91666…
    CHECK(*histogram_quantile(0.5, b) == Approx(0.5 + 0.5 * 2.5 / 3));
    CHECK(*histogram_quantile(0.5, b) == Approx(0.9166666666666666));
    // q 0.9: rank 9.9 → le 2.5 (10), 10 − 6 = 4 observations from 1 to 2.5, rank 9.9 − 6 = 3.9:
    // 1 + 1.5 × 3.9 / 4 = 2.4625
    CHECK(*histogram_quantile(0.9, b) == Approx(2.4625));
    // q 0.2: rank 2.2 → the lowest bucket (3), lower bound 0: 0.5 × 2.2 / 3 = 0.36666…
    CHECK(*histogram_quantile(0.2, b) == Approx(0.3666666666666667));
    // q 0.99: rank 10.89 exceeds every finite bucket (10): the highest finite bound, 2.5
    CHECK(*histogram_quantile(0.99, b) == 2.5);
    CHECK(*histogram_quantile(1.0, b) == 2.5); // rank 11, same
    // q 0: rank 0 → the lowest bucket: 0 + 0.5 × 0 / 3 = 0
    CHECK(*histogram_quantile(0.0, b) == 0);
    // out of range as in PromQL
    CHECK(*histogram_quantile(-0.1, b) == -inf);
    CHECK(*histogram_quantile(1.5, b) == inf);
    CHECK_FALSE(histogram_quantile(std::numeric_limits<double>::quiet_NaN(), b).has_value());
}

TEST_CASE("histogram_quantile sorts, merges equal bounds and forces counts to be monotonic") {
    // Unsorted, le 1 and 0.5 and +Inf each twice (two label sets): merged 0.5 → 1, 1 → 4, +Inf → 8.
    const std::vector<prometheus_bucket> split{{1, 2}, {inf, 3}, {0.5, 1}, {1, 2}, {inf, 5}, {0.5, 0}};
    // q 0.5: rank 4 → le 1 (4 ≥ 4), 4 − 1 = 3 observations from 0.5 to 1, rank 4 − 1 = 3: 0.5 + 0.5 × 3/3 = 1
    CHECK(*histogram_quantile(0.5, split) == Approx(1.0));
    // q 0.25: rank 2 → le 1, rank 2 − 1 = 1: 0.5 + 0.5 × 1/3 = 0.6666…
    CHECK(*histogram_quantile(0.25, split) == Approx(0.6666666666666666));

    // A count that goes down (1 after 2) is raised to the running maximum: 0.5 → 2, 1 → 2, 2 → 4, +Inf → 4.
    const std::vector<prometheus_bucket> dented{{0.5, 2}, {1, 1}, {2, 4}, {inf, 4}};
    // q 0.75: rank 3 → le 2 (4), 4 − 2 = 2 observations from 1 to 2, rank 3 − 2 = 1: 1 + 1 × 1/2 = 1.5
    // (without the correction: 4 − 1 = 3 observations, rank 2, 1 + 2/3 = 1.667)
    CHECK(*histogram_quantile(0.75, dented) == Approx(1.5));
    // q 0.5: rank 2 → le 0.5 (2 ≥ 2): 0.5 × 2/2 = 0.5
    CHECK(*histogram_quantile(0.5, dented) == Approx(0.5));
}

TEST_CASE("histogram_quantile: a lowest bound ≤ 0 is returned as is; no answer where PromQL gives NaN") {
    // Lowest bucket le 0 (2 of 4): rank 0.25 × 4 = 1 falls in it and its bound, 0, is the answer.
    const std::vector<prometheus_bucket> at_zero{{0, 2}, {1, 4}, {inf, 4}};
    CHECK(*histogram_quantile(0.25, at_zero) == 0);
    // q 0.75: rank 3 → le 1, 2 observations from 0 to 1, rank 1: 0 + 1 × 1/2 = 0.5
    CHECK(*histogram_quantile(0.75, at_zero) == Approx(0.5));
    // A negative lowest bound: le -1 holds rank 0.5 × 4 = 2 → -1.
    CHECK(*histogram_quantile(0.5, std::vector<prometheus_bucket>{{-1, 2}, {1, 4}, {inf, 4}}) == -1);

    CHECK_FALSE(histogram_quantile(0.5, std::vector<prometheus_bucket>{{0.5, 0}, {inf, 0}})); // no observations
    CHECK_FALSE(histogram_quantile(0.5, std::vector<prometheus_bucket>{{0.5, 1}, {1, 2}}));   // no +Inf bucket
    CHECK_FALSE(histogram_quantile(0.5, std::vector<prometheus_bucket>{{inf, 3}}));           // one bucket
    CHECK_FALSE(histogram_quantile(0.5, std::vector<prometheus_bucket>{}));
    // q 0 over an empty lowest bucket: rank 0 lands in it, 0 × 0/0 is NaN in PromQL
    CHECK_FALSE(histogram_quantile(0.0, std::vector<prometheus_bucket>{{0.5, 0}, {1, 2}, {inf, 2}}));
}

// ---- difference of two scrapes ---------------------------------------------------------------------

TEST_CASE("the difference of the fixture's scrapes: counters and histograms, gauges left out") {
    const auto before = servestat::read_prometheus_file(fixture("run.metrics-before.prom"));
    const auto after = servestat::read_prometheus_file(fixture("run.metrics-after.prom"));
    const auto d = scrape_difference(before, after);
    CHECK_FALSE(d.restarted); // the running gauge went from 5 to 0: gauges do not count
    CHECK_FALSE(d.values.value("vllm:num_requests_running").has_value());
    CHECK_FALSE(d.values.value("vllm:e2e_request_latency_seconds_created").has_value());
    CHECK(d.values.value("vllm:prompt_tokens_total") == 400);     // (400 + 150) − (100 + 50)
    CHECK(d.values.value("vllm:generation_tokens_total") == 50);  // (40 + 25) − (10 + 5)
    CHECK(d.values.value("vllm:request_success_total") == 11);    // (9 + 6) − (2 + 2)
    const auto e2e = d.values.histogram("vllm:e2e_request_latency_seconds");
    REQUIRE(e2e);
    REQUIRE(e2e->buckets.size() == 4); // after (4, 9, 14, 15) − before (1, 3, 4, 4)
    CHECK(e2e->buckets[0].count == 3);
    CHECK(e2e->buckets[1].count == 6);
    CHECK(e2e->buckets[2].count == 10);
    CHECK(e2e->buckets[3].count == 11);
    CHECK(e2e->sum == 20); // 23.25 − 3.25
    CHECK(e2e->count == 11);
    const auto prefill = d.values.histogram("vllm:request_prefill_time_seconds");
    REQUIRE(prefill);
    CHECK(prefill->count == 0);
}

TEST_CASE("a counter that went down means the server restarted: the after scrape alone") {
    const auto before = parse_prometheus_text("# TYPE c_total counter\nc_total 50\n# TYPE g gauge\ng 9\n", "b.prom");
    const auto after = parse_prometheus_text("# TYPE c_total counter\nc_total 20\n# TYPE g gauge\ng 1\n", "a.prom");
    const auto d = scrape_difference(before, after);
    CHECK(d.restarted);
    CHECK(d.values.value("c_total") == 20);
    CHECK(d.values.file == "a.prom");

    auto histogram_text = [](int low, int all) {
        return fmt::format("h_bucket{{le=\"1\"}} {}\nh_bucket{{le=\"+Inf\"}} {}\nh_sum 1\nh_count {}\n", low, all, all);
    };
    // A bucket that went down is a restart too, even with no TYPE lines.
    const auto d2 = scrape_difference(parse_prometheus_text(histogram_text(5, 6), "b"),
                                      parse_prometheus_text(histogram_text(2, 9), "a"));
    CHECK(d2.restarted);
    CHECK(d2.values.histogram("h")->buckets[0].count == 2);

    // A new process start time is a restart even when every count grew.
    const auto d3 = scrape_difference(
        parse_prometheus_text("process_start_time_seconds 100\n# TYPE c_total counter\nc_total 5\n", "b"),
        parse_prometheus_text("process_start_time_seconds 200\n# TYPE c_total counter\nc_total 7\n", "a"));
    CHECK(d3.restarted);
    CHECK(d3.values.value("c_total") == 7);

    // Series that appear only after count from 0.
    const auto d4 = scrape_difference(parse_prometheus_text("", "b"), parse_prometheus_text(histogram_text(2, 3), "a"));
    CHECK_FALSE(d4.restarted);
    CHECK(d4.values.histogram("h")->count == 3);
}

// ---- the canonical log reader ----------------------------------------------------------------------

TEST_CASE("a log with scrapes beside it carries vLLM's server-side values and one note about them") {
    const auto runs = read(fixture("run.jsonl"));
    REQUIRE(runs.size() == 1);
    const auto& r = runs[0];
    CHECK(r.requests.size() == 3);

    std::vector<std::string> names;
    for (const auto& v : r.meta.reported) names.push_back(v.name);
    CHECK(names == std::vector<std::string>{
                       "vllm.request_queue_time.count", "vllm.request_queue_time.mean", "vllm.request_queue_time.p50",
                       "vllm.request_queue_time.p90", "vllm.request_queue_time.p99", "vllm.request_prefill_time.count",
                       "vllm.e2e_request_latency.count", "vllm.e2e_request_latency.mean",
                       "vllm.e2e_request_latency.p50", "vllm.e2e_request_latency.p90",
                       "vllm.e2e_request_latency.p99", "vllm.prompt_tokens", "vllm.generation_tokens"});

    // queue: buckets 0.5 → 4, 1 → 5, +Inf → 5 (after 6, 7, 7 − before 2, 2, 2); sum 1.4 − 0.2 = 1.2
    CHECK(reported(r, "vllm.request_queue_time.count") == 5);
    CHECK(*reported(r, "vllm.request_queue_time.mean") == Approx(0.24)); // 1.2 / 5
    // p50: rank 2.5 in the lowest bucket (4): 0.5 × 2.5 / 4 = 0.3125
    CHECK(*reported(r, "vllm.request_queue_time.p50") == Approx(0.3125));
    // p90: rank 4.5 → le 1 (5), 1 observation from 0.5 to 1, rank 0.5: 0.5 + 0.5 × 0.5 = 0.75
    CHECK(*reported(r, "vllm.request_queue_time.p90") == Approx(0.75));
    // p99: rank 4.95 → le 1, rank 0.95: 0.5 + 0.5 × 0.95 = 0.975
    CHECK(*reported(r, "vllm.request_queue_time.p99") == Approx(0.975));
    // prefill did not change: a count of 0 and no estimates
    CHECK(reported(r, "vllm.request_prefill_time.count") == 0);
    CHECK_FALSE(reported(r, "vllm.request_prefill_time.mean").has_value());
    // e2e: the difference checked above, 20 / 11 and the quantiles of the histogram_quantile test
    CHECK(reported(r, "vllm.e2e_request_latency.count") == 11);
    CHECK(*reported(r, "vllm.e2e_request_latency.mean") == Approx(20.0 / 11.0));
    CHECK(*reported(r, "vllm.e2e_request_latency.p50") == Approx(0.9166666666666666));
    CHECK(*reported(r, "vllm.e2e_request_latency.p90") == Approx(2.4625));
    CHECK(*reported(r, "vllm.e2e_request_latency.p99") == 2.5);
    CHECK(reported(r, "vllm.prompt_tokens") == 400);
    CHECK(reported(r, "vllm.generation_tokens") == 50);
    for (const auto& v : r.meta.reported) {
        INFO(v.name);
        CHECK(v.unit == (v.name.ends_with(".count") ? "requests" : v.name.ends_with("_tokens") ? "tokens" : "s"));
    }

    REQUIRE(r.meta.notes.size() == 1);
    const std::string& note = r.meta.notes[0];
    CHECK(note.find("run.metrics-before.prom") != std::string::npos);
    CHECK(note.find("run.metrics-after.prom") != std::string::npos);
    CHECK(note.find("histogram_quantile") != std::string::npos);
    CHECK(note.find("not exact percentiles") != std::string::npos);
    CHECK(note.find("restarted") == std::string::npos);
    CHECK(r.meta.source.merged ==
          std::vector<std::string>{fixture("run.metrics-before.prom").string(), fixture("run.metrics-after.prom").string()});
}

TEST_CASE("the server-side values cannot be taken for servestat's own or for the run's duration") {
    const auto runs = read(fixture("run.jsonl"));
    for (const auto& v : runs[0].meta.reported) {
        INFO(v.name);
        CHECK(v.name.starts_with("vllm."));
        const std::string first = v.name.substr(0, v.name.find('.'));
        for (const auto m : servestat::all_metrics) CHECK(first != servestat::to_string(m));
    }
    for (const std::string_view own : {"duration", "requests", "ok", "rps", "e2e.p50", "ttft.mean", "prompt_tokens.p50"})
        CHECK(servestat::find_reported(runs[0].meta, own) == nullptr);
}

TEST_CASE("a log without both scrapes beside it gets no server-side values") {
    const auto plain = read(fixture("plain.jsonl"));
    REQUIRE(plain.size() == 1);
    CHECK(plain[0].meta.reported.empty());
    CHECK(plain[0].meta.notes.empty());
    CHECK(plain[0].meta.source.merged.empty());

    const temp_file only_before(log_header, "run.jsonl");
    write(only_before.dir() / "run.metrics-before.prom", "# TYPE c_total counter\nc_total 1\n");
    const auto runs = read(only_before.path());
    CHECK(runs[0].meta.reported.empty());
    CHECK(runs[0].meta.notes.empty());
}

TEST_CASE("scrapes beside a log: a malformed one fails the read, a restart and a non-vLLM server are noted") {
    const temp_file bad(log_header, "run.jsonl");
    write(bad.dir() / "run.metrics-before.prom", "# TYPE c_total counter\nc_total 1\n");
    write(bad.dir() / "run.metrics-after.prom", "# TYPE c_total counter\nc_total{a=\"1\" 2\n");
    try {
        read(bad.path());
        FAIL("no input_error");
    } catch (const input_error& e) {
        CHECK(e.file() == (bad.dir() / "run.metrics-after.prom").string());
        CHECK(e.line() == 2);
        CHECK(e.field() == "labels");
    }

    const temp_file restart(log_header, "run.jsonl");
    write(restart.dir() / "run.metrics-before.prom", "# TYPE vllm:prompt_tokens_total counter\nvllm:prompt_tokens_total 900\n");
    write(restart.dir() / "run.metrics-after.prom", "# TYPE vllm:prompt_tokens_total counter\nvllm:prompt_tokens_total 300\n");
    const auto restarted = read(restart.path());
    CHECK(reported(restarted[0], "vllm.prompt_tokens") == 300);
    REQUIRE(restarted[0].meta.notes.size() == 1);
    CHECK(restarted[0].meta.notes[0].find("restarted") != std::string::npos);

    const temp_file other(log_header, "run.jsonl");
    write(other.dir() / "run.metrics-before.prom", "# TYPE sglang:tokens_total counter\nsglang:tokens_total 1\n");
    write(other.dir() / "run.metrics-after.prom", "# TYPE sglang:tokens_total counter\nsglang:tokens_total 5\n");
    const auto none = read(other.path());
    CHECK(none[0].meta.reported.empty());
    REQUIRE(none[0].meta.notes.size() == 1);
    CHECK(none[0].meta.notes[0].find("none of vLLM's") != std::string::npos);
}

TEST_CASE("no log format claims a scrape file, so a folder read passes over it") {
    for (const char* name : {"run.metrics-before.prom", "run.metrics-after.prom"}) {
        std::ifstream in(fixture(name), std::ios::binary);
        const std::string head((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        INFO(name);
        CHECK(servestat::detect_format(head) == nullptr);
    }
    const auto runs = read(fs::path(SERVESTAT_TEST_DATA_DIR) / "scrape");
    REQUIRE(runs.size() == 2); // plain.jsonl and run.jsonl
    CHECK(runs[0].meta.reported.empty());
    CHECK(runs[1].meta.reported.size() == 13);
}

} // namespace test_prometheus_text
