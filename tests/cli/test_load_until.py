#!/usr/bin/python3
"""CLI tests of `servestat load --until METRIC.STATISTIC:HALF_WIDTH%` against `servestat simulate`
(docs/load.md, "Run until precise").

Every interval is recomputed here from the log alone: the metric of the ok requests (Python floats
parse the log's times exactly as the canonical reader does), the percentile by numpy (linear), the
ends by the order-statistic ranks of checks.order_statistic_ranks (binomial sums in integers), and
the relative half-width max(high - value, value - low) / |value|. Then against run.end.until and
`servestat stats --json` of the same log.

- A closed loop stops once e2e p50 is within ±5%, well before its -n: the interval over the
  requests logged when sending stopped meets the target and the one a request earlier did not (the
  target is checked after every request below 1,000 values); run.end.until holds the interval of the
  whole log, equal to the one computed here and to stats'.
- Targets a small -n cannot reach: met false, exit 0, the summary says what was reached and what is
  missing (values an interval needs; the requests left by n·(h/target)² − n).
- A sweep and an open loop, each level stopping on its own, with two targets (a percentile and a
  mean) that must both be met.
- Bad specs and --until without a bound are usage errors (exit 2) naming what is wrong.

Usage: test_load_until.py SERVESTAT_BINARY WORK_DIR [SHARED_DATA]   (run by ctest)
"""
import json
import math
import os
import re
import sys

import numpy as np

import test_load as base
from checks import check, order_statistic_ranks, read_driver_log as read_log, run_tests

SERVESTAT, WORK = sys.argv[1], sys.argv[2]


def path(name):
    return os.path.join(WORK, name)


def metric_values(rows, metric):
    out = []
    for r in rows:
        if r["status"] != "ok":
            continue
        if metric == "e2e":
            out.append(r["t_end"] - r["t_sent"])
        elif metric == "ttft":
            out.append(r["t_first"] - r["t_sent"])
        else:
            raise ValueError(metric)
    return out


def percentile_interval(values, percent):
    """(value, low, high, relative half-width) of the percentile; the ends None without an interval."""
    x = np.sort(np.array(values, dtype=float))
    value = float(np.percentile(x, percent))
    ranks = order_statistic_ranks(len(x), percent)
    if ranks is None:
        return value, None, None, None
    low, high = float(x[ranks[0]]), float(x[ranks[1]])
    return value, low, high, max(high - value, value - low) / abs(value)


def workload():
    # Outputs of 16 to 64 tokens: e2e spreads over about a factor of three, so a ±5% median needs a
    # few hundred requests.
    return base.write_workload("until.jsonl", [(10 + 5 * i, 16 + 4 * i) for i in range(13)])


def load(url, *args, timeout=120):
    return base.servestat("load", "--url", url, "-q", "--heuristic-tokens", *args, timeout=timeout)


def test_stops_when_precise():
    sim = base.Simulator("--time-scale", "20")
    try:
        log = path("p50.jsonl")
        r = load(sim.url, "--workload", workload(), "--concurrency", 8, "-n", 3000, "--until", "e2e.p50:5%", "-o", log)
        check(r.returncode == 0, f"exit {r.returncode}: {r.stderr[-600:]}")
        run, rows = read_log(log)
        end = run.get("end", {})
        check(run.get("params", {}).get("until") == ["e2e.p50:5%"], f"params.until {run.get('params')}")
        check(end.get("reason") == "precise", f"run.end.reason {end.get('reason')}")
        m = re.fullmatch(r"e2e p50 within ±([\d.]+)% \(target ±5%\) after (\d+) requests", end.get("detail", ""))
        check(m is not None, f"run.end.detail {end.get('detail')!r}")
        check("stopped sending: e2e p50 within ±" in r.stderr, f"summary {r.stderr!r}")
        check(100 < len(rows) < 1500, f"stopped well before -n 3000: {len(rows)} requests logged")
        check(all(q["status"] == "ok" for q in rows), "every request ok")
        until = end.get("until", [{}])
        check(len(until) == 1, f"run.end.until {until}")
        u = until[0]

        # When sending stopped: the first K logged requests meet the target, the first K - 1 did not.
        at = u.get("stopped_at", {})
        k = at.get("requests", 0)
        check(m is not None and k == int(m.group(2)), f"stopped_at.requests {k} and the detail agree")
        before = metric_values(rows[:k], "e2e")
        _, _, _, h = percentile_interval(before, 50)
        check(at.get("n") == len(before), f"stopped_at.n {at.get('n')}, {len(before)} values")
        check(h is not None and h <= 0.05 and math.isclose(at.get("half_width", -1), h, rel_tol=1e-12),
              f"half-width when sending stopped: run.end {at.get('half_width')}, recomputed {h}")
        check(m is not None and abs(float(m.group(1)) / 100 - h) < 0.00005, f"the detail's ±{m and m.group(1)}% is {h}")
        # At the check before, it was not met. The driver checks at every value below 1,000, then at
        # every 1% more (load/precision_target.hpp). Which request it saw last need not be the last
        # logged (two completing together may be logged in the other order), so the values it had
        # are the first `prev` logged, or the first prev + 1 but one of the last few.
        points, last = [], 0
        for n in range(1, k):
            if n < 1000 or n >= last * 1.01:
                points.append(n)
                last = n
        prev = points[-1] if points else 0
        if prev >= 6 and all(q["status"] == "ok" for q in rows[:k]):
            sets = [rows[:prev]] + [rows[:i] + rows[i + 1:prev + 1] for i in range(max(prev - 3, 0), prev)]
            earlier = [percentile_interval(metric_values(rows_, "e2e"), 50)[3] for rows_ in sets]
            check(any(h1 is not None and h1 > 0.05 for h1 in earlier),
                  f"at the check before ({prev} values) the half-width was {earlier}: met already")
        # At most the 7 other clients' requests completed after sending stopped.
        check(k <= len(rows) <= k + 7, f"{len(rows) - k} requests logged after the stop")

        # run.end: the whole log, equal to the interval recomputed here and to stats'.
        value, low, high, h = percentile_interval(metric_values(rows, "e2e"), 50)
        check(u.get("target") == "e2e.p50:5%" and u.get("metric") == "e2e" and u.get("statistic") == "p50" and
              u.get("confidence") == 0.95 and u.get("target_half_width") == 0.05, f"run.end.until {u}")
        check(u.get("value") == value and u.get("low") == low and u.get("high") == high,
              f"run.end {u.get('value')} [{u.get('low')}, {u.get('high')}], recomputed {value} [{low}, {high}]")
        check(math.isclose(u.get("half_width", -1), h, rel_tol=1e-12), f"half-width {u.get('half_width')} vs {h}")
        check(u.get("n") == len(rows) and u.get("requests") == len(rows) and u.get("met") is True,
              f"n {u.get('n')} requests {u.get('requests')} met {u.get('met')}")
        if h > 0.05:  # the requests in flight moved it past the target: the summary says so
            check("that completed after sending stopped moved it" in r.stderr, f"summary {r.stderr!r}")
        stats = base.stats_of(log, "until p50")
        e2e = stats.get("subsets", {}).get("all", {}).get("metrics", {}).get("e2e", {})
        check(e2e.get("p50") == value and e2e.get("p50_ci") == [low, high],
              f"stats p50 {e2e.get('p50')} {e2e.get('p50_ci')}, run.end {value} [{low}, {high}]")
    finally:
        sim.stop()


def test_not_reached_within_the_bound():
    sim = base.Simulator("--time-scale", "20")
    try:
        log = path("short.jsonl")
        r = load(sim.url, "--workload", workload(), "--concurrency", 4, "-n", 60, "--until", "e2e.p99:5%",
                 "--until", "e2e.p50:1%", "-o", log)
        check(r.returncode == 0, f"a target not reached is no error: exit {r.returncode}: {r.stderr[-600:]}")
        run, rows = read_log(log)
        end = run.get("end", {})
        check(len(rows) == 60 and end.get("reason") == "completed", f"{len(rows)} requests, {end.get('reason')}")
        check(run.get("params", {}).get("until") == ["e2e.p99:5%", "e2e.p50:1%"], f"params {run.get('params')}")
        p99, p50 = (end.get("until") or [{}, {}])[:2]
        values = metric_values(rows, "e2e")
        v99 = float(np.percentile(np.array(values), 99))
        check(p99.get("met") is False and p99.get("value") == v99 and p99.get("low") is None and
              p99.get("half_width") is None and p99.get("n") == 60 and "stopped_at" not in p99, f"p99 {p99}")
        check("--until e2e.p99:5% not reached: e2e 60 values, its interval needs 368" in r.stderr,
              f"summary {r.stderr!r}")
        value, low, high, h = percentile_interval(values, 50)
        check(p50.get("met") is False and p50.get("value") == value and p50.get("low") == low and
              p50.get("high") == high and math.isclose(p50.get("half_width", -1), h, rel_tol=1e-12), f"p50 {p50}")
        left = math.ceil(60 * (h / 0.01) ** 2 - 60)
        m = re.search(r"--until e2e\.p50:1% not reached: ±([\d.]+)% over 60 requests, about (\d+) more needed",
                      r.stderr)
        check(m is not None and abs(int(m.group(2)) - left) <= 1 and abs(float(m.group(1)) - 100 * h) < 0.05,
              f"summary {r.stderr!r}: ±{100 * h:.3g}%, {left} more")
    finally:
        sim.stop()


def test_sweep_and_open_loop():
    sim = base.Simulator("--time-scale", "20")
    try:
        out = path("sweep")
        targets = ["--until", "e2e.p50:10%,ttft.mean:10%"]
        r = load(sim.url, "--workload", workload(), "--sweep", "concurrency=2,6", "-n", 2000, *targets, "-o", out)
        check(r.returncode == 0, f"sweep exit {r.returncode}: {r.stderr[-600:]}")
        with open(os.path.join(out, "manifest.json")) as f:
            points = {p["label"]: p for p in json.load(f)["points"]}
        for c in (2, 6):
            label = f"until-c{c}"
            check(points.get(label, {}).get("status") == "done", f"{label}: {points.get(label)}")
            log = os.path.join(out, label + ".jsonl")
            run, rows = read_log(log)
            end = run.get("end", {})
            check(end.get("reason") == "precise" and len(rows) < 2000, f"{label}: {end.get('reason')}, {len(rows)}")
            check(run.get("params", {}).get("until") == ["e2e.p50:10%", "ttft.mean:10%"], f"{label} params")
            p50, mean = (end.get("until") or [{}, {}])[:2]
            value, low, high, _ = percentile_interval(metric_values(rows, "e2e"), 50)
            check(p50.get("met") is True and p50.get("value") == value and [p50.get("low"), p50.get("high")] ==
                  [low, high], f"{label} p50 {p50}")
            # Both were met when sending stopped.
            check(p50.get("stopped_at", {}).get("half_width", 1) <= 0.10 and
                  mean.get("stopped_at", {}).get("half_width", 1) <= 0.10, f"{label} stopped_at {p50} {mean}")
            ttft = np.array(metric_values(rows, "ttft"))
            stats = base.stats_of(log, label).get("subsets", {}).get("all", {}).get("metrics", {}).get("ttft", {})
            check(mean.get("statistic") == "mean" and mean.get("metric") == "ttft" and
                  math.isclose(mean.get("value", -1), float(ttft.mean()), rel_tol=1e-12) and
                  math.isclose(mean.get("low", -1), stats.get("mean_ci", [0, 0])[0], rel_tol=1e-12) and
                  math.isclose(mean.get("high", -1), stats.get("mean_ci", [0, 0])[1], rel_tol=1e-12),
                  f"{label} mean {mean}, numpy {ttft.mean()}, stats {stats.get('mean_ci')}")

        log = path("open.jsonl")
        r = load(sim.url, "--workload", workload(), "--rate", 100, "-n", 2000, "--until", "e2e.p50:10%", "-o", log)
        check(r.returncode == 0, f"open loop exit {r.returncode}: {r.stderr[-600:]}")
        run, rows = read_log(log)
        check(run.get("end", {}).get("reason") == "precise" and len(rows) < 2000,
              f"open loop: {run.get('end', {}).get('reason')}, {len(rows)} requests")
    finally:
        sim.stop()


def test_usage_errors():
    closed = "http://127.0.0.1:9"  # nothing listens: a usage error must come before any request
    for spec, words in [("e2e.p100:5%", "unknown statistic 'p100'"), ("latency.p99:5%", "unknown metric 'latency'"),
                        ("e2e.p99:5", "half-width '5' is not a percentage"), ("e2e", "expected METRIC.STATISTIC")]:
        r = load(closed, "--workload", workload(), "--concurrency", 2, "-n", 10, "--until", spec, "-o", path("bad.jsonl"))
        check(r.returncode == 2 and words in r.stderr and f"--until '{spec}'" in r.stderr,
              f"--until {spec}: exit {r.returncode}: {r.stderr!r}")
    r = load(closed, "--workload", workload(), "--rate", 5, "--until", "e2e.p99:5%", "-o", path("bad.jsonl"))
    check(r.returncode == 2 and "--until needs -n/--requests or --duration" in r.stderr and "forever" in r.stderr,
          f"no bound: exit {r.returncode}: {r.stderr!r}")
    check(not os.path.exists(path("bad.jsonl")), "no log written")


if __name__ == "__main__":
    sys.exit(run_tests(WORK, [test_usage_errors, test_not_reached_within_the_bound, test_stops_when_precise,
                              test_sweep_and_open_loop]))
