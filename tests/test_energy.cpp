// Energy per token (docs/metrics.md#energy-per-token): the energy over a run from DCGM's counter or
// a power gauge on the run's /metrics timelines, or from a result file's total; J per output token,
// tokens per J and J per good output token; the batch-means interval of the ratio (window energies
// and tokens written out by hand below, t quantiles from a table) and Student's t between runs.
#include "servestat/stats/energy.hpp"

#include <cmath>    // std::sqrt
#include <memory>   // std::make_shared
#include <string>   // std::string
#include <vector>   // std::vector

#include <catch2/catch.hpp> // TEST_CASE, SECTION, CHECK, REQUIRE, Approx

#include "servestat/core/request_table.hpp"    // request_table, request_record
#include "servestat/ingest/metrics_timeline.hpp" // server_timeline
#include "servestat/report/energy_view.hpp"    // format_joules, energy_text, energy_line
#include "servestat/stats/run_stats.hpp"       // analyze, stats_options

namespace test_energy {

using namespace servestat;

namespace {

constexpr double t_975_df4 = 2.776445, t_975_df2 = 4.302653;

request_record request(double sent, double end, std::int32_t output) {
    request_record r;
    r.t_sched = sent;
    r.t_sent = sent;
    r.t_first = sent + 0.05;
    r.t_end = end;
    r.prompt_tokens = 10;
    r.output_tokens = output;
    return r;
}

request_record failed(double sent, double end) {
    request_record r = request(sent, end, 0);
    r.status = request_status::error;
    r.output_tokens.reset();
    return r;
}

// One series sampled at `t`.
std::shared_ptr<server_timeline> timeline(const std::string& name, const char* type, std::vector<double> t,
                                          std::vector<double> values, double interval = 1) {
    auto tl = std::make_shared<server_timeline>();
    tl->file = "run.power-timeline.jsonl";
    tl->interval = interval;
    tl->t = std::move(t);
    tl->names = {name};
    tl->values = {std::move(values)};
    tl->types[name] = type;
    return tl;
}

std::vector<double> seconds(int from, int to) {
    std::vector<double> out;
    for (int i = from; i <= to; ++i) out.push_back(i);
    return out;
}

// Five windows of 1 s over [0, 5]: five requests end in each, 8 tokens each in the first window, 12
// in the second and 10 in the rest (window tokens 40, 60, 50, 50, 50); a failed request spans the
// whole run, so its span is [0, 5].
run five_windows() {
    run r;
    r.meta.label = "energy";
    for (int w = 0; w < 5; ++w)
        for (int j = 0; j < 5; ++j) r.requests.push_back(request(w, w + 0.1 + 0.2 * j, w == 0 ? 8 : w == 1 ? 12 : 10));
    r.requests.push_back(failed(0, 5));
    return r;
}

} // namespace

TEST_CASE("energy per token: a constant gauge gives the power times the span over the tokens") {
    run r = five_windows();
    r.meta.power_timeline = timeline("DCGM_FI_DEV_POWER_USAGE", "gauge", seconds(0, 5), std::vector<double>(6, 100.0));
    const run_stats s = analyze(r);
    REQUIRE(s.energy);
    // 100 W over 5 s = 500 J for 250 output tokens.
    CHECK(s.energy->joules == Approx(500));
    CHECK(s.energy->mean_watts == Approx(100));
    CHECK(*s.energy->per_output_token.value == Approx(2));
    CHECK(*s.energy->output_tokens_per_joule.value == Approx(0.5));
    CHECK(s.energy->source.find("DCGM_FI_DEV_POWER_USAGE (W gauge") == 0);
    CHECK_FALSE(s.energy->per_good_output_token); // no SLOs

    SECTION("the interval is the ratio's, from the windows' residuals") {
        // Windows of 1 s, energies 100 J each: residuals 100 − 2 × (40, 60, 50, 50, 50) = (20, −20, 0, 0, 0);
        // lag-1 = (20 × −20) / 800 = −0.5, so no merging; s = √(800 / 4), n̄ = 50.
        const energy_figure& f = s.energy->per_output_token;
        REQUIRE(f.windows == 5u);
        CHECK(*f.window_seconds == Approx(1));
        CHECK(*f.lag1 == Approx(-0.5));
        const double half = t_975_df4 * std::sqrt(800.0 / 4) / (std::sqrt(5.0) * 50);
        REQUIRE(f.ci);
        CHECK(f.ci->low == Approx(2 - half).epsilon(1e-6));
        CHECK(f.ci->high == Approx(2 + half).epsilon(1e-6));
        REQUIRE(s.energy->output_tokens_per_joule.ci);
        CHECK(s.energy->output_tokens_per_joule.ci->low == Approx(1 / (2 + half)).epsilon(1e-6));
        CHECK(s.energy->output_tokens_per_joule.ci->high == Approx(1 / (2 - half)).epsilon(1e-6));
        CHECK(f.method == "batch means over 5 windows of 1 s; lag-1 autocorrelation -0.50");
    }
}

TEST_CASE("energy per token: DCGM's counter in mJ is preferred to the gauge and read as joules") {
    run r = five_windows();
    // 150 W from a counter that started at 1e6 mJ; a gauge saying 999 W is ignored.
    std::vector<double> mj;
    for (int i = 0; i <= 5; ++i) mj.push_back(1e6 + 150000.0 * i);
    auto tl = timeline("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "counter", seconds(0, 5), mj);
    tl->names = {"DCGM_FI_DEV_POWER_USAGE", "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"};
    tl->values = {std::vector<double>(6, 999.0), mj};
    r.meta.server_timeline = tl;
    const run_stats s = analyze(r);
    REQUIRE(s.energy);
    CHECK(*s.energy->joules == Approx(750));
    CHECK(*s.energy->per_output_token.value == Approx(3));
    CHECK(s.energy->source == "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION (mJ counter) on run.power-timeline.jsonl");

    SECTION("a series of several GPUs says how many it summed") {
        tl->label_sets["DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"] = std::vector<double>(6, 2.0);
        CHECK(analyze(r).energy->source ==
              "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION (mJ counter, summed over 2 GPUs) on run.power-timeline.jsonl");
    }

    SECTION("a counter that goes back is a reset: no energy, and why") {
        auto reset = timeline("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "counter", seconds(0, 5),
                              {1e6, 1.15e6, 1.3e6, 5000, 155000, 305000});
        r.meta.server_timeline = reset;
        const run_stats t = analyze(r);
        REQUIRE(t.energy);
        CHECK_FALSE(t.energy->joules);
        CHECK(t.energy->why == "the energy counter went back at t = 3.00 s (a reset)");
    }
}

TEST_CASE("energy per token: the trapezoid rule between samples, the power held past the last") {
    run r = five_windows();
    // Samples at 0, 2 and 4.5 s (a 2 s interval): 100 W, 300 W, 200 W. Energy over [0, 5]:
    // (100 + 300) / 2 × 2 + (300 + 200) / 2 × 2.5 + 200 × 0.5 = 400 + 625 + 100 = 1125 J.
    r.meta.power_timeline = timeline("DCGM_FI_DEV_POWER_USAGE", "gauge", {0, 2, 4.5}, {100, 300, 200}, 2);
    const run_stats s = analyze(r);
    REQUIRE(s.energy);
    CHECK(*s.energy->joules == Approx(1125));
    CHECK(*s.energy->per_output_token.value == Approx(1125.0 / 250));
    REQUIRE(s.energy->notes.size() == 1);
    CHECK(s.energy->notes[0] == "the power at the nearer sample is held over the run's 0.5 s after the last");
    // 5 s hold two scrape intervals of 2 s: too few for five windows each one interval wide.
    CHECK_FALSE(s.energy->per_output_token.ci);
    CHECK(s.energy->per_output_token.why.find("hold 2 scrape intervals of 2 s") != std::string::npos);

    SECTION("samples that stop more than an interval before the run ends give no energy") {
        r.meta.power_timeline = timeline("DCGM_FI_DEV_POWER_USAGE", "gauge", {0, 1, 2, 3}, {100, 100, 100, 100}, 1);
        const run_stats t = analyze(r);
        REQUIRE(t.energy);
        CHECK_FALSE(t.energy->joules);
        CHECK(t.energy->why.find("cover t = 0.00–3.00 s, the run 0.00–5.00 s") != std::string::npos);
    }
}

TEST_CASE("energy per token: --power-metric names the gauge, and says why where it cannot be used") {
    run r = five_windows();
    auto tl = timeline("nvidia_smi_power_draw_watts", "gauge", seconds(0, 5), std::vector<double>(6, 50.0));
    r.meta.power_timeline = tl;
    stats_options o;
    CHECK_FALSE(analyze(r, o).energy); // not a name servestat knows, and not asked for
    o.power_metric = "nvidia_smi_power_draw_watts";
    const run_stats s = analyze(r, o);
    REQUIRE(s.energy);
    CHECK(*s.energy->per_output_token.value == Approx(1));

    o.power_metric = "no_such_gauge";
    const run_stats missing = analyze(r, o);
    REQUIRE(missing.energy);
    CHECK_FALSE(missing.energy->joules);
    CHECK(missing.energy->why == "--power-metric no_such_gauge: no scrape of the run's timelines has it");

    tl->types["nvidia_smi_power_draw_watts"] = "counter";
    o.power_metric = "nvidia_smi_power_draw_watts";
    CHECK(analyze(r, o).energy->why == "--power-metric nvidia_smi_power_draw_watts: a counter, not a gauge in W");
}

TEST_CASE("energy per good token: the good requests' output tokens only") {
    run r = five_windows();
    r.meta.power_timeline = timeline("DCGM_FI_DEV_POWER_USAGE", "gauge", seconds(0, 5), std::vector<double>(6, 100.0));
    // e2e of request j in a window is 0.1 + 0.2 j: an SLO of 0.4 s keeps j = 0 and 1 (10 requests):
    // 2 × 8 + 2 × 12 + 6 × 10 = 100 good tokens, so 500 J / 100 = 5 J per good token.
    stats_options o;
    o.slos = parse_slos("e2e=0.4");
    const run_stats s = analyze(r, o);
    REQUIRE(s.energy);
    REQUIRE(s.energy->per_good_output_token);
    CHECK(*s.energy->per_good_output_token->value == Approx(5));
    // Two good requests per window: 10 in all, too few for five windows of five.
    CHECK(s.energy->per_good_output_token->why.find("10 requests that met every SLO ended") == 0);

    o.slos = parse_slos("e2e=0.01");
    const run_stats none = analyze(r, o);
    CHECK(none.energy->per_good_output_token->why == "no request met every SLO");
}

TEST_CASE("energy per token: a result file's total energy, with no interval inside the run") {
    run r;
    r.meta.label = "inferencex";
    r.meta.kind = run_kind::summary;
    r.meta.reported.push_back({"duration", 10, "s"});
    r.meta.reported.push_back({"output_tps", 50, "tok/s"});
    r.meta.reported.push_back({"inferencex.total_gpu_energy_j", 1000, "J"});
    const run_stats s = analyze(r);
    REQUIRE(s.energy);
    CHECK(s.energy->source == "inferencex.total_gpu_energy_j (the result file's total)");
    // 50 tok/s over 10 s: 500 output tokens for 1000 J.
    CHECK(*s.energy->per_output_token.value == Approx(2));
    CHECK(*s.energy->mean_watts == Approx(100));
    CHECK_FALSE(s.energy->per_output_token.ci);
    CHECK(s.energy->per_output_token.why == "the result file gives one total, not the power over time: no windows");
}

TEST_CASE("energy between runs: Student's t over the runs' figures") {
    const auto figure = [](double v) {
        run_energy e;
        e.joules = 1000 * v;
        e.per_output_token.value = v;
        e.output_tokens_per_joule.value = 1 / v;
        e.mean_watts = 100 * v;
        return e;
    };
    const run_energy a = figure(2), b = figure(3), c = figure(4);
    const run_energy* runs[] = {&a, &b, &c};
    const auto e = energy_between_runs(runs);
    REQUIRE(e);
    // Mean 3, standard deviation 1 over 3 runs.
    CHECK(*e->per_output_token.value == Approx(3));
    REQUIRE(e->per_output_token.ci);
    CHECK(e->per_output_token.ci->low == Approx(3 - t_975_df2 / std::sqrt(3.0)).epsilon(1e-6));
    CHECK(e->per_output_token.ci->high == Approx(3 + t_975_df2 / std::sqrt(3.0)).epsilon(1e-6));
    CHECK(e->per_output_token.method == "between 3 runs");
    CHECK(*e->mean_watts == Approx(300));
    CHECK(*e->joules == Approx(3000)); // the runs' mean: what the views read as "there is an energy"

    run_energy uncovered;
    uncovered.why = "the energy counter went back at t = 3.00 s (a reset)";
    const run_energy* with_uncovered[] = {&a, &uncovered};
    const auto none = energy_between_runs(with_uncovered);
    REQUIRE(none);
    CHECK_FALSE(none->joules);
    CHECK(none->why == "1 of the 2 runs has no energy (the energy counter went back at t = 3.00 s (a reset))");

    const run_energy* with_missing[] = {&a, nullptr};
    CHECK_FALSE(energy_between_runs(with_missing));
}

TEST_CASE("energy is shown to three significant digits, the interval to the value's decimals") {
    CHECK(report::format_joules(0.41234) == "0.412 J");
    CHECK(report::format_joules(12.34) == "12.3 J");
    CHECK(report::format_joules(1234.4) == "1234 J");
    energy_figure f;
    f.value = 2;
    f.ci = interval{1.6488, 2.3512};
    CHECK(report::energy_text(f) == "2.00 J (1.65–2.35)");
    run_energy e;
    e.joules = 500;
    e.mean_watts = 100;
    e.source = "DCGM_FI_DEV_POWER_USAGE (W gauge, trapezoid rule) on run.power-timeline.jsonl";
    e.per_output_token = f;
    e.per_output_token.method = "batch means over 5 windows of 1 s; lag-1 autocorrelation -0.50";
    e.output_tokens_per_joule.value = 0.5;
    e.output_tokens_per_joule.ci = interval{1 / 2.3512, 1 / 1.6488};
    CHECK(report::energy_line(e) ==
          "  energy: 2.00 J per output token (1.65–2.35), 0.5 output tokens per J (0.425–0.607); 95% CI by batch means "
          "over 5 windows of 1 s; lag-1 autocorrelation -0.50; 100 W on average, from DCGM_FI_DEV_POWER_USAGE (W gauge, "
          "trapezoid rule) on run.power-timeline.jsonl\n");
}

TEST_CASE("a sweep's energy sentence: the lowest level, and levels within 2% without intervals told as even") {
    sweep_analysis a;
    a.curve.param = "concurrency";
    const auto level = [](double load, double joules, std::optional<interval> ci) {
        sweep_row row;
        row.load = load;
        run_energy e;
        e.joules = 1;
        e.per_output_token.value = joules;
        e.per_output_token.ci = ci;
        if (!ci) e.per_output_token.why = "the result file gives one total, not the power over time: no windows";
        row.energy = e;
        return row;
    };
    a.rows = {level(1, 0.551, std::nullopt), level(4, 0.263, std::nullopt), level(8, 0.2635, std::nullopt)};
    CHECK(report::sweep_energy_sentence(a) ==
          "Energy per output token is about the same at c=4 and c=8: 0.263 J and 0.264 J (within 2%; no intervals: the "
          "result file gives one total, not the power over time: no windows).");
    a.rows.back() = level(8, 0.30, std::nullopt);
    CHECK(report::sweep_energy_sentence(a) == "Energy per output token is lowest at c=4: 0.263 J; at c=8 it is 0.300 J.");
    a.rows = {level(1, 2, interval{1.65, 2.35}), level(4, 2.02, interval{1.7, 2.3})};
    CHECK(report::sweep_energy_sentence(a) == "Energy per output token is lowest at c=1: 2.00 J (1.65–2.35); at c=4 it is 2.02 J (1.70–2.30).");
}

TEST_CASE("energy per token: without power samples or a reported energy there is none") {
    run r = five_windows();
    CHECK_FALSE(analyze(r).energy);
}

} // namespace test_energy
