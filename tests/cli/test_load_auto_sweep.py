#!/usr/bin/python3
"""CLI tests of `servestat load --sweep concurrency=auto` against `servestat simulate` (docs/load.md,
"Finding the knee"), and of the two-segment knee in the sweep's statistics (docs/knee.md).

The expectation rests on the bundled fixed sweep, not on the auto sweep's output: examples/live/bad
(the bad preset at --time-scale 20, mix_50_50, --max-tokens 16, concurrency 1, 2, 4, 8, 16, 32, 48,
64; examples/live_demo.sh) has its throughput knee at c=16, checked here with `servestat stats`.
The auto sweep against the same simulator and workload must put the knee within one of those levels
of 16 (between 8 and 32), more finely than the fixed sweep can (high ≤ 1.25² × low, where the fixed
levels are a factor of 2 apart), in no more than its 8 levels: 7 as a rule, but c=32 gains about 9%
over c=16 on this simulator, close enough to the 10% that stops the climb for a slow c=16 (two tests
beside it under ASan) to take the climb on to 64 and the sweep to 8 levels.

Every decision of the planner is re-derived here from the levels' logs alone: throughput = ok
requests / (last t_end − first t_sent), the error rate, e2e p95 over ok requests by numpy (linear);
then the climb (doubling until a doubling gains < 10%), the knee's target (the top throughput / 1.1)
and bracket, the capacity's bracket, and the bisection (round(√(low·high)) until high ≤ 1.25² ×
low). The two-segment knee of the sweep is recomputed with numpy lstsq over the candidate breaks.

- The auto sweep: levels, labels, manifest (settings.auto, auto[0]), knee bracket, Kneedle's knee.
- --resume with one level's log removed runs that level only and reaches the same brackets.
- The same logs resumed with --slo e2e=X (X between c=4's and c=8's p95): the climb stops on the
  SLO and the capacity is refined, running only the levels the logs lack.
- Usage errors (exit 2).

Usage: test_load_auto_sweep.py SERVESTAT_BINARY WORK_DIR [SHARED_DATA]   (run by ctest)
"""
import json
import math
import os
import re
import shutil
import sys

import numpy as np

import test_load as base
from checks import check, read_driver_log as read_log, run_tests

SERVESTAT, WORK = sys.argv[1], sys.argv[2]
SHARED = sys.argv[3] if len(sys.argv) > 3 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared", "data")
HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES_BAD = os.path.join(HERE, "..", "..", "examples", "live", "bad")
FIXED_LEVELS = [1, 2, 4, 8, 16, 32, 48, 64]
GAIN, RESOLUTION, MAX_ERROR = 0.10, 0.25, 0.05
PER_LEVEL = 150  # requests per level: small, so the test stays short under ASan


def path(name):
    return os.path.join(WORK, name)


def level_of_log(log):
    """(throughput, error rate, e2e p95 of ok requests) as the planner must see them."""
    _, rows = read_log(log)
    ok = [r for r in rows if r["status"] == "ok"]
    span = max(r["t_end"] for r in rows) - min(r["t_sent"] for r in rows)
    e2e = [r["t_end"] - r["t_sent"] for r in ok]
    return (len(ok) / span, 1 - len(ok) / len(rows), float(np.percentile(e2e, 95)) if e2e else None)


def replan(measured, slo=None):
    """The planner re-derived: measured(load) -> (throughput, error rate, p95). Returns the levels in
    the order run, the climb's reason, the knee bracket (low, high) or None, the capacity's or None."""
    levels, results = [], {}

    def run(load):
        levels.append(load)
        results[load] = measured(load)
        return results[load]

    def errors_rose(load):
        below = [results[l][1] for l in results if l < load]
        return bool(below) and results[load][1] > min(below) + MAX_ERROR

    def passes(load):
        p95 = results[load][2]
        return not errors_rose(load) and (slo is None or (p95 is not None and p95 <= slo))

    load, reason, knee, capacity = 1, None, None, None
    run(1)
    while True:
        t, _, _ = results[load]
        if not passes(load):
            reason = "errors" if errors_rose(load) else "slo"
            below = [l for l in levels if l < load]
            capacity = [max(below) if below else None, load]
        if len(levels) > 1:
            prev = levels[-2]
            gain = (t / results[prev][0]) ** (1 / math.log2(load / prev)) - 1
            if gain < GAIN:
                reason = reason or "gain"
                target = max(r[0] for r in results.values()) / (1 + GAIN)
                ladder = sorted(results)
                first = next(i for i, l in enumerate(ladder) if results[l][0] >= target)
                knee = [ladder[first - 1] if first > 0 else None, ladder[first]]
        if reason:
            break
        load *= 2
        run(load)

    def mid(b):
        if b is None or b[0] is None or b[1] <= b[0] * (1 + RESOLUTION) ** 2:
            return None
        m = round(math.sqrt(b[0] * b[1]))
        return m if b[0] < m < b[1] else None

    while True:
        km, cm = mid(knee), mid(capacity)
        if km is None and cm is None:
            break
        knee_first = km is not None and (cm is None or knee[1] / knee[0] >= capacity[1] / capacity[0])
        m = km if knee_first else cm
        run(m)
        if knee and knee[0] is not None and knee[0] < m < knee[1]:
            knee[1 if results[m][0] >= target else 0] = m
        if capacity and capacity[0] is not None and capacity[0] < m < capacity[1]:
            capacity[0 if passes(m) else 1] = m
    return levels, reason, knee, capacity


def two_segment_break(x, y):
    """numpy's continuous two-segment least-squares fit: (break, fitted y there), over the inner
    points and the crossings of lines fitted apart inside each gap; x ascending."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    n = len(x)

    def fit(c):
        a = np.column_stack([np.ones_like(x), x, np.maximum(0, x - c)])
        beta = np.linalg.lstsq(a, y, rcond=None)[0]
        r = y - a @ beta
        return float(r @ r), beta[0] + beta[1] * c

    candidates = list(x[1:n - 1])
    for j in range(1, n - 2):
        left, right = np.polyfit(x[:j + 1], y[:j + 1], 1), np.polyfit(x[j + 1:], y[j + 1:], 1)
        if left[0] != right[0]:
            c = (right[1] - left[1]) / (left[0] - right[0])
            if x[j] < c < x[j + 1]:
                candidates.append(c)
    best = min(candidates, key=lambda c: fit(c)[0])
    return best, fit(best)[1]


def sweep_of(directory, what):
    return base.only_one_of(directory, "sweeps", what, {"points": [], "knees": []})


def knee_of(sweep, curve):
    return next((k for k in sweep["knees"] if k["curve"] == curve), {})


def manifest_of(directory):
    with open(os.path.join(directory, "manifest.json")) as f:
        return json.load(f)


def logs_in(directory):
    out = {}
    for name in os.listdir(directory):
        m = re.fullmatch(r"mix_50_50-c(\d+)\.jsonl", name)
        if m:
            out[int(m.group(1))] = os.path.join(directory, name)
    return out


def auto_load(url, workload, out, *args):
    return base.load(url, "--workload", workload, "--sweep", "concurrency=auto", "-n", PER_LEVEL, "--max-tokens", 16,
                     "--seed", 1, "--heuristic-tokens", "-o", out, *args, timeout=240)


def check_against_logs(directory, what, slo=None, copied=False):
    """The manifest's auto entry against the planner re-derived from the logs (`copied`: the directory
    also holds logs of another sweep, which the planner need not use)."""
    logs = logs_in(directory)
    measured = {load: level_of_log(log) for load, log in logs.items()}
    levels, reason, knee, capacity = replan(lambda load: measured[load], slo)
    entry = (manifest_of(directory).get("auto") or [{}])[0]
    check([l["load"] for l in entry.get("levels", [])] == levels, f"{what}: levels {entry.get('levels')} vs {levels}")
    check(set(levels) <= set(logs) and (copied or len(logs) == len(levels)), f"{what}: logs {sorted(logs)} vs {levels}")
    check(entry.get("climb", {}).get("reason") == reason, f"{what}: climb {entry.get('climb')} vs {reason}")
    got_knee = entry.get("knee")
    check((got_knee is None and knee is None) or (got_knee is not None and [got_knee["low"], got_knee["high"]] == knee),
          f"{what}: knee {got_knee} vs {knee}")
    got_cap = entry.get("capacity")
    check((got_cap is None and capacity is None) or
          (got_cap is not None and [got_cap["low"], got_cap["high"]] == capacity), f"{what}: capacity {got_cap} vs {capacity}")
    for level in entry.get("levels", []):
        t, err, p95 = measured.get(level["load"], (None, None, None))
        check(t is not None and math.isclose(level["throughput"], t, rel_tol=1e-9) and
              math.isclose(level["error_rate"], err, abs_tol=1e-12), f"{what}: level {level} vs {t}, {err}")
        if slo is not None:
            check(math.isclose(level["slos"]["e2e.p95"], p95, rel_tol=1e-9), f"{what}: p95 {level} vs {p95}")
    return levels, knee, capacity, measured


def test_bundled_fixed_sweep_knee():
    # What the auto sweep must find: the knee of the fixed sweep the live demo ran.
    sweep = sweep_of(EXAMPLES_BAD, "examples/live/bad")
    check([p["load"] for p in sweep["points"]] == FIXED_LEVELS, f"bundled levels {[p['load'] for p in sweep['points']]}")
    check(knee_of(sweep, "throughput").get("x") == 16, f"bundled knee {knee_of(sweep, 'throughput').get('x')}")


def test_auto_sweep_finds_the_knee():
    workload = path("mix_50_50.jsonl")
    r = base.servestat("workload", "--preset", "mix_50_50", "-n", 600, "--seed", 1, "-o", workload)
    check(r.returncode == 0, f"workload: {r.stderr[-300:]}")
    sim = base.Simulator("--preset", "l4-qwen2.5-3b-bad", "--time-scale", "20", "--seed", "1")
    try:
        out = path("auto")
        r = auto_load(sim.url, workload, out)
        check(r.returncode == 0, f"auto sweep exit {r.returncode}: {r.stderr[-800:]}")
        check(re.search(r"c=1: [\d.]+ req/s; climbing to c=2\n", r.stderr) is not None, f"stderr: {r.stderr[-800:]}")
        check(re.search(r"\(< 10%\): the knee \(the lowest load within 10% of the [\d.]+ req/s reached\) lies between",
                        r.stderr) is not None, f"stderr names the knee's bracket: {r.stderr[-800:]}")
        levels, knee, _, measured = check_against_logs(out, "auto sweep")
        check(len(levels) <= len(FIXED_LEVELS), f"{len(levels)} levels, more than the fixed sweep's 8: {levels}")
        check(knee is not None and knee[0] is not None and 8 <= knee[0] < knee[1] <= 32,
              f"the knee bracket {knee} lies within one fixed level of 16")
        check(knee is not None and knee[0] is not None and knee[1] <= (1 + RESOLUTION) ** 2 * knee[0],
              f"the knee bracket {knee} is finer than the fixed levels' factor of 2")
        manifest = manifest_of(out)
        settings = manifest["settings"].get("auto", {})
        check(settings.get("gain") == GAIN and settings.get("resolution") == RESOLUTION and settings.get("max") == 1024 and
              settings.get("max_levels") == 16 and settings.get("start") == 1, f"settings.auto {settings}")
        entry = manifest["auto"][0]
        check(entry.get("configuration") == {} and entry.get("parameter") == "concurrency" and
              entry.get("refinement", {}).get("reason") == "resolved", f"auto entry {entry}")
        check(math.isclose(entry["knee"]["top_throughput"], max(m[0] for m in measured.values()), rel_tol=1e-9),
              f"top throughput {entry['knee']}")
        check(all(p["status"] == "done" and p["label"] == f"mix_50_50-c{p['params']['concurrency']}"
                  for p in manifest["points"]), f"points {manifest['points']}")
        for load in levels:  # each level a normal sweep point
            run, rows = read_log(os.path.join(out, f"mix_50_50-c{load}.jsonl"))
            check(run["params"]["concurrency"] == load and len(rows) == PER_LEVEL, f"c={load}: {run['params']}, {len(rows)}")

        # The sweep's knees: Kneedle on the levels run, and the two-segment fit against numpy.
        sweep = sweep_of(out, "auto sweep")
        loads = [p["load"] for p in sweep["points"]]
        check(loads == sorted(levels), f"sweep points {loads}")
        throughput = knee_of(sweep, "throughput")
        check(throughput.get("x") is not None and 8 <= throughput["x"] <= 32, f"Kneedle's knee {throughput.get('x')}")
        rps = [measured[l][0] for l in loads]
        check(all(math.isclose(p["rps"], t, rel_tol=1e-9) for p, t in zip(sweep["points"], rps)), "rps from the logs")
        brk, y = two_segment_break(np.log2(loads), rps)
        fit = throughput.get("two_segment") or {}
        check(fit.get("axis") == "log2" and math.isclose(fit.get("load", 0), 2 ** brk, rel_tol=1e-9) and
              math.isclose(fit.get("y", 0), y, rel_tol=1e-9), f"two-segment {fit} vs numpy {2 ** brk}, {y}")
        check(8 <= fit.get("load", 0) <= 32, f"two-segment break {fit.get('load')}")

        rep = path("report")
        r = base.servestat("report", "-o", rep, out)
        check(r.returncode == 0, f"report: {r.stderr[-300:]}")
        with open(os.path.join(rep, "report.md")) as f:
            md = f.read()
        check("Saturation (throughput against load): knee at c=" in md and "Two-segment fit (two straight lines meeting, "
              "least squares against log₂ concurrency): break at c≈" in md, "the report names both knees")

        # --resume: one level's log gone; only it runs again, the rest is read back.
        again = path("resumed")
        shutil.copytree(out, again)
        last = levels[-1]
        os.remove(os.path.join(again, f"mix_50_50-c{last}.jsonl"))
        r = auto_load(sim.url, workload, again, "--resume")
        check(r.returncode == 0, f"resume exit {r.returncode}: {r.stderr[-600:]}")
        check(r.stderr.count("is done (manifest); its log is read back") == len(levels) - 1, f"resume: {r.stderr[-800:]}")
        check(len(re.findall(r"^servestat load: mix_50_50-c\d+: \d+ requests", r.stderr, re.M)) == 1,
              f"resume ran one level: {r.stderr[-800:]}")
        check_against_logs(again, "resumed")

        # The same logs with an SLO between c=4's and c=8's e2e p95: the climb stops at 8 on the SLO;
        # the capacity's bracket [4, 8] needs round(√32) = 6, which the logs lack.
        slo_dir = path("slo")
        shutil.copytree(out, slo_dir)
        slo = math.sqrt(measured[4][2] * measured[8][2])
        r = auto_load(sim.url, workload, slo_dir, "--resume", "--slo", f"e2e={slo:.6f}")
        check(r.returncode == 0, f"slo exit {r.returncode}: {r.stderr[-600:]}")
        check("the manifest was written with other settings" in r.stderr, "settings change warned")
        slo_levels, _, capacity, _ = check_against_logs(slo_dir, "slo", float(f"{slo:.6f}"), copied=True)
        entry = manifest_of(slo_dir)["auto"][0]
        check(entry["climb"]["reason"] == "slo" and slo_levels[:4] == [1, 2, 4, 8] and slo_levels[4] == 6,
              f"slo climb {entry['climb']}, levels {slo_levels}")
        check(capacity is not None and capacity[0] in (4, 6) and capacity[1] in (6, 8), f"capacity {capacity}")
        check(re.search(r"c=8: [\d.]+ req/s, \+\d+% over c=4 \(e2e p95 [\d.]+ s > [\d.]+ s\): the capacity lies "
                        r"between c=4 and 8; refining at c=6", r.stderr) is not None, f"stderr: {r.stderr[-800:]}")
    finally:
        sim.stop()


def test_two_segment_on_published_sweeps():
    """The two-segment knee of published sweeps (AIPerf's InferenceX sweep on a B200, the LLMPerf SGLang
    sweeps) equals numpy's fit of their throughput against log2 concurrency."""
    if not os.path.isdir(SHARED):
        check(False, f"shared data missing: {SHARED}")
        return
    fits = 0
    for folder in ["aiperf-inferencex-sweep-b200", os.path.join("llmperf-sglang-sweep-hongxuanzhang", "result_outputs")]:
        r = base.servestat("stats", "--json", os.path.join(SHARED, folder))
        check(r.returncode == 0, f"stats {folder}: {r.stderr[-300:]}")
        for sweep in json.loads(r.stdout)["sweeps"]:
            points = sorted((p["load"], p["rps"]) for p in sweep["points"] if p.get("rps") is not None)
            fit = knee_of(sweep, "throughput").get("two_segment")
            if len(points) < 4 or fit is None:
                continue
            loads, rps = zip(*points)
            brk, y = two_segment_break(np.log2(loads), rps)
            check(fit["axis"] == "log2" and math.isclose(fit["load"], 2 ** brk, rel_tol=1e-9) and
                  math.isclose(fit["y"], y, rel_tol=1e-9), f"{folder}: two-segment {fit} vs numpy {2 ** brk}, {y}")
            fits += 1
    check(fits >= 2, f"published sweeps with a two-segment fit: {fits}")


def test_usage_errors():
    for args, text in [(["--concurrency", 2, "-n", 5, "--auto-gain", 0.2], "steer an auto sweep"),
                       (["--sweep", "concurrency=1,2", "-n", 5, "--slo", "e2e=1"], "steer an auto sweep"),
                       (["--sweep", "concurrency=auto", "-n", 5, "--auto-start", 1.5], "--auto-start 1.5"),
                       (["--sweep", "rate=auto", "-n", 5, "--auto-max", 0.5], "--auto-max 0.5"),
                       (["--sweep", "concurrency=auto", "-n", 5, "--slo", "bogus=1"], "bogus")]:
        r = base.load("http://127.0.0.1:9", "--model", "m", "--max-model-len", 4096, "--workload",
                      base.write_workload("usage.jsonl", [(5, 8)]), "-o", path("usage"), *args)
        check(r.returncode == 2 and text in r.stderr, f"{args}: exit {r.returncode}, {r.stderr[-300:]}")


if __name__ == "__main__":
    sys.exit(run_tests(WORK, [test_bundled_fixed_sweep_knee, test_auto_sweep_finds_the_knee,
                              test_two_segment_on_published_sweeps, test_usage_errors]))
