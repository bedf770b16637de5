#!/usr/bin/python3
"""Per-run intervals (issue 38): every percentile in `stats --json` carries [low, high], two order
statistics whose ranks come from the binomial distribution, and every mean Student's t-interval.
Expected ends are numpy-sorted values at ranks computed here with Python's math.comb (exact integer
arithmetic); t quantiles from the published table. A log streamed past --memory-limit gives
intervals that hold the exact ones and are at most the sketch's relative error wider.

Usage: test_intervals.py SERVESTAT_BINARY WORK_DIR   (run by ctest)
"""
import json
import math
import os
import subprocess
import sys

import numpy as np

from checks import check, order_statistic_ranks, run_tests

SERVESTAT, WORK = sys.argv[1], sys.argv[2]
PERCENTILES = (50, 90, 95, 99)


def write_log(path, n, short, seed):
    """n successful requests, the first `short` of them short prompts (<= 64 tokens): (e2e of all, e2e of short)."""
    rng = np.random.default_rng(seed)
    header = {"servestat": "log", "version": 1, "run": {"label": "intervals", "params": {"concurrency": 8}}}
    e2e = []
    with open(path, "w") as f:
        f.write(json.dumps(header) + "\n")
        for i in range(n):
            t_sent = float(rng.uniform(0, 600))
            t_end = t_sent + float(rng.lognormal(0.0, 0.7))
            prompt = int(rng.integers(8, 65)) if i < short else int(rng.integers(65, 2048))
            f.write(json.dumps({"t_sent": t_sent, "t_end": t_end, "status": "ok", "prompt_tokens": prompt,
                                "output_tokens": 16}) + "\n")
            e2e.append(t_end - t_sent)  # as servestat computes it: one IEEE subtraction
    e2e = np.array(e2e)
    return e2e, e2e[:short]


def servestat(*args):
    return subprocess.run([SERVESTAT, *args], capture_output=True, text=True)


def stats_json(*args):
    res = servestat("stats", "--json", *args)
    check(res.returncode == 0, f"stats --json {' '.join(args)}: exit {res.returncode}: {res.stderr[:300]}")
    return json.loads(res.stdout) if res.returncode == 0 else None


def check_percentile_intervals(got, values, what, confidence_percent=95):
    ordered = np.sort(values)
    for p in PERCENTILES:
        r = order_statistic_ranks(len(values), p, confidence_percent)
        expected = None if r is None else [float(ordered[r[0]]), float(ordered[r[1]])]
        check(got[f"p{p}_ci"] == expected, f"{what}.p{p}_ci: {got[f'p{p}_ci']} != {expected} (ranks {r})")


def test_exact_intervals_are_order_statistics():
    path = os.path.join(WORK, "exact.jsonl")
    e2e, short = write_log(path, 3000, 121, seed=38)
    doc = stats_json(path)
    if doc is None:
        return
    check(doc["options"]["confidence"] == 0.95, f"options.confidence: {doc['options'].get('confidence')}")
    run = doc["runs"][0]
    check_percentile_intervals(run["subsets"]["all"]["metrics"]["e2e"], e2e, "all.e2e")
    got = run["subsets"]["short"]["metrics"]["e2e"]
    check_percentile_intervals(got, short, "short.e2e")
    check(got["p99_ci"] is None, "121 values cannot bound a p99 (368 needed)")
    # t_{0.975, 120} = 1.979930 (published table): mean ± t · s / sqrt(n).
    half = 1.979930 * short.std(ddof=1) / math.sqrt(len(short))
    for k, expected in enumerate((short.mean() - half, short.mean() + half)):
        check(abs(got["mean_ci"][k] - expected) <= 1e-6 * abs(expected), f"short.e2e.mean_ci[{k}]: {got['mean_ci'][k]} != {expected}")
    # 3000 values: t_{0.975, 2999} lies between z = 1.959964 and t_{0.975, 1000} = 1.962339.
    everything = run["subsets"]["all"]["metrics"]["e2e"]
    t = (everything["mean_ci"][1] - everything["mean"]) / (e2e.std(ddof=1) / math.sqrt(len(e2e)))
    check(1.959964 < t < 1.962339, f"all.e2e.mean_ci: implied t {t}")
    check(abs(everything["mean"] - everything["mean_ci"][0] - (everything["mean_ci"][1] - everything["mean"])) < 1e-12,
          "the mean's interval is symmetric")
    # A subset with no values: nulls.
    empty = run["subsets"]["long"]["metrics"]["e2e"]
    check(empty["n"] == 0 and empty["mean_ci"] is None and empty["p50_ci"] is None,
          f"an empty subset has null intervals: {empty}")


def test_confidence_option():
    path = os.path.join(WORK, "exact.jsonl")
    e2e, short = write_log(path, 3000, 121, seed=38)
    doc = stats_json("--confidence", "0.9", path)
    if doc is None:
        return
    check(doc["options"]["confidence"] == 0.9, "options.confidence 0.9")
    run = doc["runs"][0]
    check_percentile_intervals(run["subsets"]["short"]["metrics"]["e2e"], short, "short.e2e at 90%", 90)
    check_percentile_intervals(run["subsets"]["all"]["metrics"]["e2e"], e2e, "all.e2e at 90%", 90)
    # t_{0.95, 120} = 1.657651 (published table).
    got = run["subsets"]["short"]["metrics"]["e2e"]["mean_ci"]
    half = 1.657651 * short.std(ddof=1) / math.sqrt(len(short))
    check(abs(got[1] - (short.mean() + half)) <= 1e-6 * (short.mean() + half), f"short mean_ci at 90%: {got}")
    for bad in ("1", "0.5", "1.5", "0"):
        res = servestat("stats", "--confidence", bad, path)
        check(res.returncode == 2 and "--confidence" in res.stderr, f"--confidence {bad}: exit {res.returncode}, {res.stderr[:200]}")
    text = servestat("stats", path)
    check(text.returncode == 0 and "95% CI: mean " in text.stdout, "the text output shows the intervals")
    check("  p99 -" in text.stdout, "the text output marks a p99 that 121 values cannot bound")


def test_streamed_intervals_hold_the_exact_ones():
    path = os.path.join(WORK, "streamed.jsonl")
    write_log(path, 20_000, 500, seed=7)  # about 2.4 MB: past --memory-limit 1M
    alpha = 0.01
    exact = stats_json(path)
    streamed = stats_json("--memory-limit", "1M", "--sketch-alpha", str(alpha), path)
    if exact is None or streamed is None:
        return
    for subset in ("all", "short", "medium"):
        e = exact["runs"][0]["subsets"][subset]["metrics"]["e2e"]
        s = streamed["runs"][0]["subsets"][subset]["metrics"]["e2e"]
        what = f"streamed {subset}.e2e"
        check(s.get("sketch_relative_error") == alpha, f"{what}: not streamed")
        for p in PERCENTILES:
            k = f"p{p}_ci"
            if e[k] is None:
                check(s[k] is None, f"{what}.{k}: {s[k]} where the exact pass has none")
                continue
            low, high = s[k]
            check(low <= e[k][0] and high >= e[k][1], f"{what}.{k}: {s[k]} does not hold the exact {e[k]}")
            check(low >= e[k][0] * (1 - alpha) / (1 + alpha) * (1 - 1e-9) and high <= e[k][1] * (1 + alpha) / (1 - alpha) * (1 + 1e-9),
                  f"{what}.{k}: {s[k]} wider than the sketch's error around {e[k]}")
        for i in (0, 1):
            check(abs(s["mean_ci"][i] - e["mean_ci"][i]) <= 1e-12 * abs(e["mean_ci"][i]),
                  f"{what}.mean_ci: {s['mean_ci']} != {e['mean_ci']}")


if __name__ == "__main__":
    sys.exit(run_tests(WORK, [test_exact_intervals_are_order_statistics, test_confidence_option,
                              test_streamed_intervals_hold_the_exact_ones]))
