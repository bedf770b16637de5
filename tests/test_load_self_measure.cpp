// Is the client the bottleneck? The load driver's measurement of itself (load/self_measure.hpp: how
// late it started requests, how late a 10 ms probe timer on its event loop fired, the CPU its thread
// used) as written into run.end.client, and the run-validity sentence read back from it
// (stats/client_limits.hpp) at, below and above its limits: p99 lag or loop delay above 10 ms, 90% of
// one core or more. Percentiles are numpy's (np.percentile, linear), computed in the comments.
#include <catch2/catch.hpp> // Catch2 v2

#include <algorithm> // std::find
#include <chrono>    // std::chrono
#include <string>    // std::string
#include <vector>    // std::vector

#include <boost/asio/io_context.hpp>   // boost::asio::io_context
#include <boost/asio/steady_timer.hpp> // boost::asio::steady_timer

#include "servestat/load/self_measure.hpp"
#include "servestat/report/report_digest.hpp" // report_summary, summary_view
#include "servestat/stats/client_limits.hpp"
#include "servestat/stats/run_validity.hpp"

namespace test_load_self_measure { // the unity build compiles several test files as one: each keeps its names

using namespace servestat;

namespace {

// run.end as the driver writes it, with `client` as given.
nlohmann::json run_end_with(nlohmann::json client) {
    return {{"reason", "completed"}, {"requests_sent", 400}, {"wall_seconds", 20.5}, {"client", std::move(client)}};
}

nlohmann::json delay(double p50, double p99, double max, int n) {
    return {{"p50", p50}, {"p99", p99}, {"max", max}, {"n", n}};
}

// A closed loop of 400 requests at concurrency 8 over 20 s, measured by servestat's driver.
run_stats driver_run(const std::string& label, nlohmann::json run_end) {
    run_stats r;
    r.meta.label = label;
    r.meta.params = {{"concurrency", 8}, {"requests", 400}};
    r.meta.kind = run_kind::requests;
    r.meta.source.format = "canonical";
    r.meta.run_end = std::move(run_end);
    r.requests = 400;
    r.ok = 400;
    r.duration = 20.5;
    return r;
}

std::vector<std::string> summary_texts(std::span<const run_stats> runs) {
    const auto json = report::summary_view(report::report_summary(runs, {}, {}, {}, 95));
    std::vector<std::string> out;
    for (const auto& s : json) out.push_back(s["text"].get<std::string>());
    return out;
}

bool has(const std::vector<std::string>& list, const std::string& text) {
    return std::find(list.begin(), list.end(), text) != list.end();
}

bool mentions_client(const std::vector<std::string>& list) {
    return std::any_of(list.begin(), list.end(), [](const std::string& s) { return s.find("The client may") != std::string::npos; });
}

} // namespace

// ---- the summaries --------------------------------------------------------------------------------

// np.percentile([0.004, 0.0001, 0.03, 0.002, 0.0125, 0.0007, 0.011, 0.0002, 0.009, 0.05, 0.0031,
// 0.0008], [50, 99]) = [0.00355, 0.0478]: the median between 0.0031 and 0.004, p99 at rank 10.89
// between 0.03 and 0.05.
TEST_CASE("a delay's summary: numpy's linear p50 and p99, the largest and the count", "[self_measure]") {
    std::vector<double> v{0.004, 0.0001, 0.03, 0.002, 0.0125, 0.0007, 0.011, 0.0002, 0.009, 0.05, 0.0031, 0.0008};
    const auto s = load::summarise_delays(v);
    REQUIRE(s);
    CHECK(s->p50 == Approx(0.00355).epsilon(1e-12));
    CHECK(s->p99 == Approx(0.0478).epsilon(1e-12));
    CHECK(s->max == 0.05);
    CHECK(s->n == 12);
    std::vector<double> none;
    CHECK_FALSE(load::summarise_delays(none));
}

// Lag 0.0000123456 and 0.0000234567 s, and a clock read a hair early that counts as 0:
// np.percentile([0, 1.23456e-05, 2.34567e-05], [50, 99]) = [1.23456e-05, 2.3234478e-05], written to
// the microsecond (1.2e-05, 2.3e-05). An observer that never saw the run's start (no probe, no CPU
// reading) writes only what it was told; one told nothing writes no client at all.
TEST_CASE("run.end.client from what the driver told the observer", "[self_measure]") {
    load::self_measure m;
    nlohmann::ordered_json end = nlohmann::ordered_json::object();
    m.finished(end);
    CHECK_FALSE(end.contains("client"));

    m.late(load::run_probe::lateness::schedule, 0.0000123456);
    m.late(load::run_probe::lateness::schedule, 0.0000234567);
    m.late(load::run_probe::lateness::schedule, -0.000001);
    m.finished(end);
    REQUIRE(end.contains("client"));
    const auto& lag = end["client"]["schedule_lag"];
    CHECK(lag["n"] == 3);
    CHECK(lag["max"].get<double>() == 2.3e-05);
    CHECK(lag["p50"].get<double>() == 1.2e-05);
    CHECK(lag["p99"].get<double>() == 2.3e-05);
    CHECK_FALSE(end["client"].contains("turnaround"));
    CHECK_FALSE(end["client"].contains("loop_delay"));
    CHECK_FALSE(end["client"].contains("cpu_share"));
    CHECK(m.summary().empty()); // below every limit: nothing on the summary line
}

// The probe on a real io_context: a 10 ms timer fires before a 50 ms one by the order of their
// expiries, so the run that ends at 50 ms has at least one loop-delay sample whatever the machine's
// load; the CPU share of one thread over the run lies in [0, 1] (a small slack for clock granularity).
TEST_CASE("the loop probe and the CPU reading over a run on an io_context", "[self_measure]") {
    boost::asio::io_context io;
    load::self_measure m;
    load::run_probe& probe = m;
    probe.begin(io, load::steady::now());
    boost::asio::steady_timer run(io);
    run.expires_after(std::chrono::milliseconds(50));
    run.async_wait([&](const boost::system::error_code&) { probe.end(); });
    io.run(); // returns: end() cancelled the probe
    probe.end(); // a second end changes nothing
    nlohmann::ordered_json end = nlohmann::ordered_json::object();
    m.finished(end);
    const auto& c = end["client"];
    REQUIRE(c.contains("loop_delay"));
    CHECK(c["loop_delay"]["n"].get<int>() >= 1);
    CHECK(c["loop_delay"]["interval"].get<double>() == 0.01);
    CHECK(c["loop_delay"]["p50"].get<double>() >= 0);
    CHECK(c["cpu_seconds"].get<double>() >= 0);
    CHECK(c["cpu_share"].get<double>() >= 0);
    CHECK(c["cpu_share"].get<double>() <= 1.05);
    CHECK(c["max_rss_bytes"].get<long long>() > 0);
}

// ---- the validity check: at, below and above the limits -------------------------------------------

TEST_CASE("the client's limits: p99 lag and loop delay above 10 ms, 90% of one core or more", "[self_measure][validity]") {
    // Exactly at 10 ms is not above it; 90% is at the CPU limit and counts.
    CHECK_FALSE(check_client(run_end_with({{"schedule_lag", delay(0.0001, 0.010, 0.02, 400)}})));
    CHECK_FALSE(check_client(run_end_with({{"turnaround", delay(0.0001, 0.010, 0.02, 392)}})));
    CHECK_FALSE(check_client(run_end_with({{"loop_delay", delay(0.0001, 0.010, 0.03, 2000)}})));
    CHECK_FALSE(check_client(run_end_with({{"cpu_share", 0.8999}})));
    const auto lag = check_client(run_end_with({{"schedule_lag", delay(0.0001, 0.0101, 0.02, 400)}}));
    REQUIRE(lag);
    CHECK(lag->schedule_lag->p99 == 0.0101);
    CHECK(check_client(run_end_with({{"turnaround", delay(0.0001, 0.0101, 0.02, 392)}}))->turnaround);
    CHECK(check_client(run_end_with({{"loop_delay", delay(0.0001, 0.0101, 0.03, 2000)}}))->loop_delay);
    CHECK(check_client(run_end_with({{"cpu_share", 0.9}}))->cpu_share == 0.9);
    // Limits of one's own.
    CHECK(check_client(run_end_with({{"schedule_lag", delay(0.0001, 0.004, 0.02, 400)}}), client_limits{.lag_p99 = 0.003}));
    // No run.end, no client in it, or a client whose fields are not numbers: nothing is said.
    CHECK_FALSE(check_client(nlohmann::json()));
    CHECK_FALSE(check_client(nlohmann::json{{"reason", "completed"}}));
    CHECK_FALSE(check_client(run_end_with({{"schedule_lag", {{"p99", "slow"}}}, {"cpu_share", "most"}})));
    CHECK_FALSE(check_client(run_end_with("busy")));
}

// The brief's example: p99 23 ms late, max 140 ms, 97% of one core.
TEST_CASE("the sentence names what slipped, by how much, and what it means", "[self_measure][validity]") {
    const auto both = check_client(run_end_with({{"schedule_lag", delay(0.0004, 0.023, 0.14, 400)},
                                                 {"loop_delay", delay(0.0001, 0.002, 0.03, 2000)},
                                                 {"cpu_share", 0.97}}));
    REQUIRE(both);
    CHECK(client_limit_sentence(*both) ==
          "The client may have limited this run: its send schedule slipped (p99 23.0 ms late, max 140 ms) and it used "
          "97% of one core; it sent requests later than planned and its latencies may include its own delay.");
    const auto sends = check_client(run_end_with({{"schedule_lag", delay(0.3, 1.25, 2.5, 400)}}));
    CHECK(client_limit_sentence(*sends, "r=200") ==
          "The client may have limited r=200: its send schedule slipped (p99 1.25 s late, max 2.50 s); it sent requests "
          "later than planned, so the server saw less load than configured.");
    const auto loop = check_client(run_end_with({{"turnaround", delay(0.0001, 0.0125, 0.04, 392)},
                                                 {"loop_delay", delay(0.0001, 0.0152, 0.09, 2000)}}));
    CHECK(client_limit_reasons(*loop) ==
          "it was slow to send again after a response (p99 12.5 ms from a response's end to the next request, max "
          "40.0 ms) and its event loop ran late (p99 15.2 ms, max 90.0 ms)");
    const auto cpu = check_client(run_end_with({{"cpu_share", 0.93}}));
    CHECK(client_limit_sentence(*cpu) ==
          "The client may have limited this run: it used 93% of one core; its latencies may include its own delay.");
}

// ---- where it is told ----------------------------------------------------------------------------

TEST_CASE("the report's summary tells a run the client may have limited, as a caveat", "[self_measure][validity]") {
    const std::vector<run_stats> one{driver_run("mix-r200", run_end_with({{"schedule_lag", delay(0.0004, 0.023, 0.14, 400)},
                                                                          {"cpu_share", 0.97}}))};
    CHECK(check_run_validity(one.front()).client);
    CHECK(has(summary_texts(one),
              "The client may have limited this run: its send schedule slipped (p99 23.0 ms late, max 140 ms) and it used "
              "97% of one core; it sent requests later than planned and its latencies may include its own delay."));

    // Below the limits, or without run.end.client (another tool's log): nothing.
    const std::vector<run_stats> calm{driver_run("mix-c8", run_end_with({{"turnaround", delay(0.00002, 0.0004, 0.0005, 392)},
                                                                         {"loop_delay", delay(0.00004, 0.0004, 0.009, 119)},
                                                                         {"cpu_share", 0.12}}))};
    CHECK_FALSE(check_run_validity(calm.front()).client);
    CHECK_FALSE(mentions_client(summary_texts(calm)));
    const std::vector<run_stats> other{driver_run("vllm-bench", nlohmann::json())};
    CHECK_FALSE(mentions_client(summary_texts(other)));

    // Among several runs each is named by its label; more than two share one sentence.
    std::vector<run_stats> runs{driver_run("a", run_end_with({{"cpu_share", 0.95}})), calm.front()};
    CHECK(has(summary_texts(runs),
              "The client may have limited a: it used 95% of one core; its latencies may include its own delay."));
    runs = {driver_run("a", run_end_with({{"cpu_share", 0.95}})),
            driver_run("b", run_end_with({{"schedule_lag", delay(0.001, 0.02, 0.05, 400)}})),
            driver_run("c", run_end_with({{"loop_delay", delay(0.001, 0.02, 0.05, 400)}}))};
    CHECK(has(summary_texts(runs),
              "The client may have limited 3 runs (a, b and c): in each its send schedule slipped, its event loop ran late "
              "or it used 90% or more of one core (run.end.client in their logs); requests went out later than planned "
              "and the latencies may include the client's own delay."));
}

// The summary line on stderr: the observer judges what it wrote as the report will read it.
TEST_CASE("the summary line's warning when a limit is crossed", "[self_measure]") {
    load::self_measure m;
    for (int i = 0; i < 99; ++i) m.late(load::run_probe::lateness::schedule, 0.0001);
    m.late(load::run_probe::lateness::schedule, 0.5);
    m.late(load::run_probe::lateness::schedule, 0.5);
    nlohmann::ordered_json end = nlohmann::ordered_json::object();
    m.finished(end);
    // np.percentile([0.0001] * 99 + [0.5, 0.5], 99) = 0.5: rank 99 of 0…100 is the first 0.5.
    CHECK(end["client"]["schedule_lag"]["p99"].get<double>() == 0.5);
    CHECK(m.summary() == "warning: the client may have limited this run: its send schedule slipped (p99 500 ms late, "
                         "max 500 ms)");
}

} // namespace test_load_self_measure
