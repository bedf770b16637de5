#!/usr/bin/python3
"""Honest tails with failures (issue 38): beside each latency percentile, the same percentile counting
the failed, timed-out and cancelled requests as +inf (AIPerf's adj_p99). Checked on two real logs with
failures: LLMPerf's leaderboard run against Bedrock 70b (49 of 150 requests failed) and AIPerf's example
run (11 of 100 cancelled). Expected values are numpy's percentile of the successes' values read from
the files here with one +inf per failure, wherever numpy's value is a number; `stats --json` writes
"inf" where it is infinite, and the report writes "∞ (x% failed)".

Usage: test_failed_tails.py SERVESTAT_BINARY SHARED_DATA_DIR WORK_DIR   (run by ctest)
"""
import json
import math
import os
import subprocess
import sys
import warnings

import numpy as np

from checks import check, run_tests

SERVESTAT, SHARED, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
BEDROCK = os.path.join(SHARED, "llmperf-leaderboard", "raw_data", "individual", "bedrock_70b.json")
AIPERF = os.path.join(SHARED, "aiperf-example", "run1", "profile_export.jsonl")
PS = [50, 90, 95, 99]


def servestat(*args):
    res = subprocess.run([SERVESTAT, *args], capture_output=True, text=True)
    check(res.returncode == 0, f"servestat {' '.join(args)}: exit {res.returncode}: {res.stderr[:400]}")
    return res.stdout


def with_failed(values, failed):
    """numpy with one +inf per failure; numpy's NaN (inf - inf) here is an unbounded percentile."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = np.percentile(np.array(values + [math.inf] * failed), PS)
    return ["inf" if not math.isfinite(v) else float(v) for v in out]


def bedrock_values():
    with open(BEDROCK, encoding="utf-8") as f:
        records = json.load(f)
    ok = [r for r in records if r["error_code"] is None]
    return ([r["end_to_end_latency_s"] for r in ok], [r["ttft_s"] for r in ok], len(records) - len(ok))


def check_json(metrics, name, values, failed):
    got = metrics[name].get("with_failed")
    check(got is not None, f"{name} carries with_failed")
    if got is None:
        return
    check(got["failed"] == failed, f"{name}: {got['failed']} failed counted, want {failed}")
    check(got["share"] == failed / (len(values) + failed), f"{name}: share {got['share']}")
    for p, want in zip(PS, with_failed(values, failed)):
        check(got[f"p{p}"] == want, f"{name} p{p} with failed: {got[f'p{p}']}, numpy {want}")
    # The successes-only percentiles stay as they were.
    for p, want in zip(PS, np.percentile(values, PS)):
        check(metrics[name][f"p{p}"] == float(want), f"{name} p{p}: {metrics[name][f'p{p}']}, numpy {want}")


def test_stats_json_equals_numpy_on_llmperf_bedrock():
    e2e, ttft, failed = bedrock_values()
    check(failed == 49 and len(e2e) == 101, f"the file: {len(e2e)} ok, {failed} failed")
    doc = json.loads(servestat("stats", "--json", BEDROCK))
    metrics = doc["runs"][0]["subsets"]["all"]["metrics"]
    check_json(metrics, "e2e", e2e, failed)
    check_json(metrics, "ttft", ttft, failed)
    # Per-token and phase metrics do not count failures; nor does a metric the log does not have.
    for name in ("tpot", "decode", "itl", "e2e_sched", "client_queue"):
        check("with_failed" not in metrics[name], f"{name} has no with_failed")


def test_stats_json_equals_numpy_on_aiperf_cancellations():
    e2e, ttft, failed = [], [], 0
    with open(AIPERF, encoding="utf-8") as f:
        for line in f:
            r = json.loads(line)
            if r.get("error"):
                failed += 1
                continue
            e2e.append(r["metrics"]["request_latency"]["value"] / 1000)  # ms in the file
            ttft.append(r["metrics"]["ttft"]["value"] / 1000)
    doc = json.loads(servestat("stats", "--json", AIPERF))
    got = doc["runs"][0]["subsets"]["all"]["metrics"]
    for name, values in (("e2e", e2e), ("ttft", ttft)):
        want = with_failed(values, failed)
        check(got[name]["with_failed"]["failed"] == 11, f"{name}: 11 cancelled counted")
        check(math.isclose(got[name]["with_failed"]["p50"], want[0], rel_tol=1e-12),
              f"{name} p50 with failed {got[name]['with_failed']['p50']}, numpy {want[0]}")
        check(got[name]["with_failed"]["p99"] == "inf", f"{name} p99 with 11% failed is unbounded")


def test_report_writes_infinity_with_the_failed_share_and_judges_slos_by_it():
    out = os.path.join(WORK, "bedrock")
    # p95 of the 101 successes is 7.83 s, under 8 s; with 49 failures counted it is unbounded.
    servestat("report", "--slo", "e2e=8", "-o", out, BEDROCK)
    with open(os.path.join(out, "report.md"), encoding="utf-8") as f:
        md = f.read()
    check("∞ (32.7% failed)" in md, "the KPI table writes the unbounded p99 with the failed share")
    e2e, _, failed = bedrock_values()
    p50 = with_failed(e2e, failed)[0]
    check(f"{p50:.2f} s (32.7% failed)" in md, f"a finite one as a number: {p50:.2f} s")
    check("FAIL: e2e p95 ∞ (32.7% failed) > 8.00 s" in md.replace("\\>", ">"),
          "the SLO verdict judges the percentile counting failures, and says so")
    check("AIPerf's adj\\_p99" in md, "the note under the KPI table says what the figure is")


def test_stats_text_shows_a_row_with_failed():
    text = servestat("stats", BEDROCK)
    check("49 failed (32.7%) as ∞" in text, "the text table's row under e2e and ttft")


if __name__ == "__main__":
    sys.exit(run_tests(WORK, [test_stats_json_equals_numpy_on_llmperf_bedrock,
                              test_stats_json_equals_numpy_on_aiperf_cancellations,
                              test_report_writes_infinity_with_the_failed_share_and_judges_slos_by_it,
                              test_stats_text_shows_a_row_with_failed]))
