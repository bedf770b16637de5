#!/usr/bin/python3
"""CLI tests for run-to-run noise (issue 38 item 3): a sweep level or a configuration measured three
times reports the spread between its runs (stats --json, the report's sweep note), and compare with
three runs a side compares them with the run as the unit (Welch's t-interval) and says when a
request-level verdict lies within the noise the runs show.

The logs are written here (closed loop, one worker, requests back to back), so every per-run value
is known by construction: a run of base latency b has 200 requests of b + 0.001·(i − 99.5) s, so its
e2e p50 (numpy linear) is b and its throughput 200 / (200·b) = 1/b req/s. Expected spreads come from
Python's statistics module; t quantiles from the published table (t_{0.975,2} = 4.302653,
t_{0.975,4} = 2.776445).

Usage: test_run_noise.py SERVESTAT_BINARY WORK_DIR   (run by ctest)
"""
import json
import math
import os
import statistics
import subprocess
import sys

from checks import as_json, check, run_tests

SERVESTAT, WORK = sys.argv[1], sys.argv[2]
T_2, T_4 = 4.302653, 2.776445


def servestat(*args):
    return subprocess.run([SERVESTAT, *args], capture_output=True, text=True)


def close(a, b, rel=1e-6):
    return a is not None and abs(a - b) <= rel * max(abs(b), 1e-12)


def write_run(path, label, base, params):
    """200 requests back to back, e2e b + 0.001·(i − 99.5) s in a shuffled but fixed order."""
    header = {"servestat": "log", "version": 1,
              "run": {"label": label, "started_at": "2026-01-12T00:00:00Z", "params": params}}
    lines, t = [json.dumps(header)], 0.0
    for k in range(200):
        i = (k * 37) % 200  # 37 is prime to 200: every i once
        e2e = base + 0.001 * (i - 99.5)
        lines.append(json.dumps({"id": str(k), "t_sched": t, "t_sent": t, "t_first": t + e2e / 5, "t_end": t + e2e,
                                 "prompt_tokens": 100, "output_tokens": 16, "status": "ok"}))
        t += e2e
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def test_sweep_level_measured_three_times():
    folder = os.path.join(WORK, "sweep")
    write_run(os.path.join(folder, "c1.jsonl"), "c1", 0.5, {"concurrency": 1})
    for rep, base in enumerate((0.9, 1.0, 1.1), start=1):
        write_run(os.path.join(folder, f"c2-rep{rep}.jsonl"), f"c2-rep{rep}", base, {"concurrency": 2})
    write_run(os.path.join(folder, "c4.jsonl"), "c4", 2.0, {"concurrency": 4})
    doc = as_json(servestat("stats", "--json", folder), "stats --json of the sweep")
    sweeps = doc.get("sweeps", [])
    check(len(sweeps) == 1, f"one sweep: {len(sweeps)}")
    if not sweeps:
        return
    level = [p for p in sweeps[0]["points"] if p["load"] == 2]
    check(len(level) == 1 and level[0]["replicates"] == 3, "c=2 has three replicates")
    if not level:
        return
    between = level[0].get("between_runs", {})
    rps = [1 / 0.9, 1 / 1.0, 1 / 1.1]
    m, s = statistics.mean(rps), statistics.stdev(rps)
    got = between.get("rps", {})
    check(got.get("runs") == 3, f"rps over 3 runs: {got}")
    check(close(got.get("mean"), m) and close(got.get("std"), s), f"rps mean {m} std {s}: {got}")
    check(close(got.get("cv"), s / m), f"rps cv {s / m}: {got.get('cv')}")
    check(close(got.get("t_critical"), T_2, 1e-6), f"t(2) {T_2}: {got.get('t_critical')}")
    half = T_2 * s / math.sqrt(3)
    ci = got.get("ci") or [None, None]
    check(close(ci[0], m - half, 1e-6) and close(ci[1], m + half, 1e-6), f"rps interval {m - half}..{m + half}: {ci}")
    p50 = between.get("e2e.p50", {})
    check(close(p50.get("mean"), 1.0) and close(p50.get("std"), 0.1), f"e2e p50 1.0 ± 0.1 over runs: {p50}")
    single = [p for p in sweeps[0]["points"] if p["load"] == 1][0]
    check("between_runs" not in single, "a level run once has no spread between runs")
    out = os.path.join(WORK, "sweep-report")
    res = servestat("report", folder, "-o", out)
    check(res.returncode == 0, f"report: {res.stderr}")
    with open(os.path.join(out, "report.md")) as f:
        md = f.read()
    want = f"c=2 measured 3 times: throughput {m:.4g} ± {s:.2g} req/s (CV {100 * s / m:.1f}%)"
    check(want in md, f"report names the spread: {want!r}")


def test_configuration_measured_three_times_outside_a_sweep():
    folder = os.path.join(WORK, "config")
    for rep, base in enumerate((0.9, 1.0, 1.1), start=1):
        write_run(os.path.join(folder, "profile_runs", f"run_000{rep}", "run.jsonl"), f"run_000{rep}", base,
                  {"concurrency": 8})
    doc = as_json(servestat("stats", "--json", folder), "stats --json of three replicate runs")
    groups = doc.get("replicates", [])
    check(len(groups) == 1 and len(groups[0].get("runs", [])) == 3, f"one group of three runs: {groups}")
    if groups:
        p50 = groups[0].get("between_runs", {}).get("e2e.p50", {})
        check(close(p50.get("mean"), 1.0) and close(p50.get("std"), 0.1), f"e2e p50 1.0 ± 0.1: {p50}")


def test_compare_with_runs_as_the_unit():
    # Per-run e2e p50: before 1.0, 1.2, 1.4 s; after 0.9, 1.1, 1.3 s. Pooled, 600 requests a side
    # shifted by 0.1 s: the request-level test calls it improved. Over runs: −0.1 s, s = 0.2 a side,
    # Welch ν = (2·0.04/3)² / (2·(0.04/3)²/2) = 4, interval −0.1 ± t(4)·√(2·0.04/3), which holds 0.
    for side, bases in (("before", (1.0, 1.2, 1.4)), ("after", (0.9, 1.1, 1.3))):
        for rep, base in enumerate(bases, start=1):
            write_run(os.path.join(WORK, side, "profile_runs", f"run_000{rep}", "run.jsonl"), f"run_000{rep}", base,
                      {"concurrency": 1})
    before, after = os.path.join(WORK, "before"), os.path.join(WORK, "after")
    doc = as_json(servestat("compare", "--json", before, after), "compare --json of 3 runs a side")
    check(doc.get("pairing") == "replicates", f"paired as replicates: {doc.get('pairing')}")
    pairs = doc.get("pairs", [])
    check(len(pairs) == 1, f"one pair: {len(pairs)}")
    if not pairs:
        return
    request = [c for c in pairs[0]["changes"] if c["name"] == "e2e.p50"]
    check(request and request[0]["verdict"] == "improved", f"request level: improved: {request}")
    runs = pairs[0].get("runs_as_unit") or {}
    check(runs.get("runs_before") == 3 and runs.get("runs_after") == 3 and runs.get("method") == "welch",
          f"three runs a side, Welch: {runs.get('runs_before')}, {runs.get('runs_after')}")
    by_name = {c["name"]: c for c in runs.get("changes", [])}
    p50 = by_name.get("e2e.p50", {})
    half = T_4 * math.sqrt(2 * 0.04 / 3)
    check(close(p50.get("change"), -0.1), f"change −0.1 s: {p50.get('change')}")
    check(close(p50.get("df"), 4, 1e-9), f"Welch df 4: {p50.get('df')}")
    ci = p50.get("ci") or {}
    check(close(ci.get("low"), -0.1 - half) and close(ci.get("high"), -0.1 + half), f"interval ±{half}: {ci}")
    check(close((p50.get("relative_ci") or {}).get("low"), (-0.1 - half) / 1.2), "relative interval over the before mean")
    check(p50.get("verdict") == "no_change" and p50.get("request_verdict") == "improved" and p50.get("within_run_noise"),
          f"within run-to-run noise: {p50}")
    rps = by_name.get("rps", {})
    b, a = [1 / x for x in (1.0, 1.2, 1.4)], [1 / x for x in (0.9, 1.1, 1.3)]
    check(close(rps.get("change"), statistics.mean(a) - statistics.mean(b)), f"rps change: {rps.get('change')}")
    check(close(rps.get("before", {}).get("std"), statistics.stdev(b)), "rps std before")
    out = os.path.join(WORK, "compare-report")
    res = servestat("compare", before, after, "-o", out)
    check(res.returncode == 0, f"compare report: {res.stderr}")
    with open(os.path.join(out, "compare.md")) as f:
        md = f.read()
    check("#### Between runs" in md, "the report's table over runs")
    check("Within run-to-run noise: e2e p50 improved" in md, "the summary says the change is within run-to-run noise")


def test_two_runs_a_side_pool_without_runs_as_the_unit():
    for side, bases in (("b2", (1.0, 1.2)), ("a2", (0.9, 1.1))):
        for rep, base in enumerate(bases, start=1):
            write_run(os.path.join(WORK, side, f"rep{rep}.jsonl"), f"rep{rep}", base, {"concurrency": 1})
    doc = as_json(servestat("compare", "--json", os.path.join(WORK, "b2"), os.path.join(WORK, "a2")), "2 runs a side")
    check(doc.get("pairing") == "replicates", f"pooled as replicates: {doc.get('pairing')}")
    check(doc.get("pairs") and doc["pairs"][0].get("runs_as_unit") is None, "two runs a side: no comparison over runs")


sys.exit(run_tests(WORK, [test_sweep_level_measured_three_times,
                          test_configuration_measured_three_times_outside_a_sweep,
                          test_compare_with_runs_as_the_unit,
                          test_two_runs_a_side_pool_without_runs_as_the_unit]))
