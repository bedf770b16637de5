#!/usr/bin/python3
"""Small samples stated (issue 23): a 10-request LLMPerf run's report marks its percentiles with a
dagger and a footnote, states no per-token fit its own r² calls noise, and its JSON names the
percentiles resting on few samples (fewer than 10 / (1 - q) values: p99 below 1,000, p90 below 100,
p50 below 20); a large run carries no dagger where it has enough requests; a run at concurrency 40
that completed 9 requests is said not to be in steady state. Expected numbers by numpy.

Usage: test_small_samples.py SERVESTAT_BINARY WORK_DIR   (run by ctest)
"""
import json
import os
import subprocess
import sys

import numpy as np

from checks import check, run_tests

SERVESTAT, WORK = sys.argv[1], sys.argv[2]
HERE = os.path.dirname(os.path.abspath(__file__))
SMALL = os.path.join(HERE, "..", "data", "llmperf_small")
TEN = os.path.join(SMALL, "small_550_150_individual_responses.json")
NINE_AT_40 = os.path.join(SMALL, "c40_550_150_individual_responses.json")
DAGGER = "†"


def servestat(*args):
    res = subprocess.run([SERVESTAT, *args], capture_output=True, text=True)
    check(res.returncode == 0, f"servestat {' '.join(args)}: exit {res.returncode}: {res.stderr[:400]}")
    return res


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def seconds(s):
    """servestat's format_seconds for values between 1 and 100 s."""
    return f"{s:.2f} s"


def needs(p):
    """The fewest values percentile p needs: 10 / (1 - q) at or above the median, 10 / q below it."""
    tail = min(p, 100 - p) / 100
    return 0 if tail == 0 else round(10 / tail)


def test_ten_requests_mark_every_percentile_and_state_no_noise_fit():
    rows = json.load(open(TEN))
    e2e = np.array([r["end_to_end_latency_s"] for r in rows])
    tokens = np.array([r["number_output_tokens"] for r in rows], dtype=float)
    slope, _ = np.polyfit(tokens, e2e, 1)
    r2 = np.corrcoef(tokens, e2e)[0, 1] ** 2
    check(slope > 0 and r2 < 0.5, f"fixture: a positive slope that explains little (slope {slope}, r² {r2})")
    p50, p99 = np.percentile(e2e, 50), np.percentile(e2e, 99)
    out = os.path.join(WORK, "ten")
    servestat("report", "-o", out, TEN)
    md, html = read(os.path.join(out, "report.md")), read(os.path.join(out, "report.html"))
    summary = md.split("## Summary")[1].split("\n|")[0]
    check(f"e2e p50 {seconds(p50)}{DAGGER}, p99 {seconds(p99)}{DAGGER}" in summary,
          f"summary marks the p50 and p99 of 10 requests: {summary!r}")
    kpi = next(line for line in md.splitlines() if line.startswith("| small\\_550\\_150 | all |"))
    check(f"| {seconds(p99)}{DAGGER} |" in kpi, f"KPI row marks e2e p99: {kpi}")
    check(f"{DAGGER} rests on few samples: fewer than 10 requests lie beyond that percentile" in md, "footnote in md")
    check(f"{DAGGER} rests on few samples" in html and f"{seconds(p99)}{DAGGER}" in html, "dagger and footnote in html")
    for text, name in ((md, "report.md"), (html, "report.html")):
        check("least squares" not in text and "Each output token adds" not in text,
              f"{name}: no per-token finding with r² = {r2:.2f}")
    metrics = json.loads(read(os.path.join(out, "report.json")))["runs"][0]["subsets"]["all"]["metrics"]
    check(metrics["e2e"]["few_samples"] == ["p50", "p90", "p95", "p99"], f"report.json e2e: {metrics['e2e']}")


def test_stats_json_flags_follow_the_rule_for_every_metric():
    path = os.path.join(WORK, "many.jsonl")
    rng = np.random.default_rng(23)
    with open(path, "w") as f:
        f.write(json.dumps({"servestat": "log", "version": 1, "run": {"label": "many"}}) + "\n")
        for i in range(1500):  # 1,500 requests, a fifth of them long prompts: 300 or so
            prompt = 3000 if rng.random() < 0.2 else 20
            ttft = float(rng.lognormal(-2, 0.5))
            f.write(json.dumps({"id": str(i), "t_sent": i * 0.01, "t_first": i * 0.01 + ttft,
                                "t_end": i * 0.01 + ttft + 1.0, "prompt_tokens": prompt, "output_tokens": 50,
                                "status": "ok"}) + "\n")
    res = servestat("stats", "--json", "--percentiles", "10,50,90,99,99.9", path)
    run = json.loads(res.stdout)["runs"][0]
    for subset, s in run["subsets"].items():
        for metric, m in s["metrics"].items():
            wanted = [f"p{p:g}" for p in (10, 50, 90, 99, 99.9) if m["n"] > 0 and m["n"] < needs(p)]
            check(m["few_samples"] == wanted, f"{subset}.{metric} n={m['n']}: {m['few_samples']} != {wanted}")
    long_n = run["subsets"]["long"]["n"]
    check(100 <= long_n < 1000, f"long prompts number {long_n}")
    # The report: the whole run's p50 and p99 carry no dagger; the long prompts' p99 does.
    out = os.path.join(WORK, "many_report")
    servestat("report", "-o", out, path)
    md = read(os.path.join(out, "report.md"))
    rows = [line for line in md.splitlines() if line.startswith("| many |") or line.startswith("|  | long")]
    check(len(rows) == 2, f"KPI rows: {rows}")
    if len(rows) == 2:
        check(DAGGER not in rows[0], f"1,500 requests: no dagger on p50 or p99: {rows[0]}")
        cells = rows[1].split("|")
        check(cells[-2].strip().endswith(DAGGER) and not cells[-3].strip().endswith(DAGGER),
              f"long prompts: e2e p99 marked, e2e p50 not: {rows[1]}")


def test_nine_requests_at_concurrency_40_are_not_steady_state():
    out = os.path.join(WORK, "c40")
    servestat("report", "-o", out, NINE_AT_40)
    md = read(os.path.join(out, "report.md"))  # Markdown escapes the underscores of labels
    first = md.split("## Summary")[1].strip().splitlines()[0]
    check(first == "- c40\\_550\\_150 completed 9 requests at concurrency 40, fewer than 2 × 40 = 80: the run did not "
                   "reach steady state, so its latencies describe the ramp-up and drain, not a sustained load of 40.",
          f"the summary leads with it: {first}")
    both = os.path.join(WORK, "both")
    servestat("report", "-o", both, TEN, NINE_AT_40)
    md = read(os.path.join(both, "report.md"))
    check("c40\\_550\\_150 completed 9 requests at concurrency 40" in md, "named among several runs")
    check("small\\_550\\_150 completed" not in md, "10 requests at concurrency 5 (2 × 5) is enough")


if __name__ == "__main__":
    sys.exit(run_tests(WORK, [test_ten_requests_mark_every_percentile_and_state_no_noise_fit,
                              test_stats_json_flags_follow_the_rule_for_every_metric,
                              test_nine_requests_at_concurrency_40_are_not_steady_state]))
