#!/usr/bin/python3
"""What a report's summary says about a sweep and about runs whose numbers are not the server's
(issue 37, items 5-7): every sweep named with its range, peak, where growth stops and its tails at
the top level; a straggler, an early end, a tiny run, levels out of order and a >1% error rate each
told in a plain sentence naming the run, stragglers and tiny levels kept out of knees and SLO
capacity; and jumps judged against the load step (7x over c=1 -> 10 is none, over c=1 -> 2 is one).

The logs are canonical JSONL written here (docs/log-format.md): closed-loop rounds of `c` requests,
request i sent at (i // c) * d and ending d later, so that a level's span is ceil(n / c) * d and its
throughput n / span. Expected numbers are derived in each test's docstring; the shared real sets are
checked at the end when they are beside the checkout.

Usage: test_run_validity.py SERVESTAT_BINARY SHARED_DATA_DIR WORK_DIR
"""
import json
import math
import os
import re
import subprocess
import sys

import numpy as np

from checks import check, run_tests

SERVESTAT, SHARED, WORK = sys.argv[1], sys.argv[2], sys.argv[3]


def servestat(*args, expect=0):
    res = subprocess.run([SERVESTAT, *args], capture_output=True, text=True)
    check(res.returncode == expect, f"servestat {' '.join(args)}: exit {res.returncode}: {res.stderr[:400]}")
    return res


def write_log(folder, label, params, n, c, d, started_at=None, slow=None, failed=()):
    """A closed loop of `c` clients, `n` requests of e2e `d` s (TTFT d / 10); `slow` = (index, e2e)
    makes one request a straggler sent at 0; `failed` holds (index, http_status, error text)."""
    os.makedirs(folder, exist_ok=True)
    run = {"label": label, "model": "m", "workload": "chat", "params": params}
    if started_at:
        run["started_at"] = started_at
    lines = [json.dumps({"servestat": "log", "version": 1, "run": run})]
    errors = {i: (status, text) for i, status, text in failed}
    for i in range(n):
        sent = (i // c) * d
        e2e = d
        if slow and i == slow[0]:
            sent, e2e = 0.0, slow[1]
        rec = {"id": str(i), "t_sent": round(sent, 6), "t_end": round(sent + e2e, 6), "prompt_tokens": 100,
               "output_tokens": 50}
        if i in errors:
            rec.update(status="error", http_status=errors[i][0], error=errors[i][1], t_end=round(sent + 0.01, 6),
                       output_tokens=0)
        else:
            rec.update(status="ok", t_first=round(sent + e2e / 10, 6))
        lines.append(json.dumps(rec))
    with open(os.path.join(folder, label + ".jsonl"), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


def report(name, *inputs_and_flags):
    out = os.path.join(WORK, name + "-report")
    servestat("report", "-o", out, "--format", "md,json", *inputs_and_flags)
    with open(os.path.join(out, "report.json"), encoding="utf-8") as f:
        doc = json.load(f)
    with open(os.path.join(out, "report.md"), encoding="utf-8") as f:
        md = f.read()
    return doc, md


def summary_of(md):
    """The summary's bullets, Markdown escapes removed."""
    part = md.split("## Summary", 1)[1].split("\n|", 1)[0]
    return [line[2:].replace("\\", "") for line in part.splitlines() if line.startswith("- ")]


def test_straggler_is_told_and_kept_out():
    """c=2, 4, 8: 100 requests of 1 s each, spans ceil(100/c) s = 50, 25, 13 s, so 2, 4 and 100/13 =
    7.69 req/s. c=10: 99 such requests and one of 300 s sent at 0: span 300 s, 100/300 = 0.333 req/s,
    below half of 7.69 while the median stays 1 s: a straggler. Its p99 (numpy, linear) is
    1 + 0.01 * 299 = 3.99 s ("4 s" to two digits). Kept out of the SLO capacity: e2e p95 <= 2 s holds
    at every level the walk sees, up to c=8 (with c=10, whose p95 is 1 s, it would reach c=10), and
    the p99 curve has no threshold knee (c=10's 3.99 s would have exceeded 1.5 x 1 s)."""
    folder = os.path.join(WORK, "straggler")
    for c in (2, 4, 8):
        write_log(folder, f"strag-c{c}", {"concurrency": c}, 100, c, 1.0)
    write_log(folder, "strag-c10", {"concurrency": 10}, 100, 10, 1.0, slow=(0, 300.0))
    e2e = np.array([300.0] + [1.0] * 99)
    p99 = np.percentile(e2e, 99)
    check(abs(p99 - 3.99) < 1e-9 and np.median(e2e) == 1.0, f"fixture: p99 {p99}")
    doc, md = report("straggler", "--slo", "e2e=2", folder)
    sentence = ("c=10 (strag-c10): 0.333 req/s against 7.69 req/s at c=8, while its median e2e held (1 s against 1 s) "
                "and its p99 e2e is 4 s: a few slow requests set the run's duration, so its throughput is not the "
                "server's; it is kept out of the knees and the SLO capacity.")
    summary = summary_of(md)
    check(sentence in summary, f"the straggler sentence in the summary: {summary}")
    sweep = doc["sweeps"][0]
    check(sweep["findings"][0] == sentence, f"and first among the sweep's findings: {sweep['findings'][:1]}")
    cap = sweep["slo_capacity"][0]
    check(cap["max_load"] == 8, f"SLO capacity without the straggler: {cap}")
    # Its p99 (3.99 s) would have been the threshold knee (more than 1.5 x c=2's 1 s); kept out, there is none.
    p99_knee = {k["curve"]: k for k in sweep["knees"]}["p99"]
    check(p99_knee["threshold"] is None or p99_knee["threshold"].get("load") is None,
          f"no threshold knee at the straggler: {p99_knee['threshold']}")
    check(all(k["x"] != 10 for k in sweep["knees"]), "no knee at the straggler")


def test_early_end_is_told():
    """benchmark_duration 120 s, 100 requests at c=2 of 1 s: span 50 s, below 0.8 * 120 = 96 s."""
    folder = os.path.join(WORK, "early")
    write_log(folder, "early-c2", {"concurrency": 2, "benchmark_duration": 120}, 100, 2, 1.0)
    _, md = report("early", folder)
    want = ("Ended well before its configured length: early-c2 after 50 s of the configured 120 s (benchmark_duration); "
            "its numbers cover only the part that ran.")
    check(want in summary_of(md), f"early end told: {summary_of(md)}")
    # num_prompts 150 and 100 requests sent: 100 < 0.9 * 150.
    folder = os.path.join(WORK, "early-count")
    write_log(folder, "count-c2", {"concurrency": 2, "num_prompts": 150}, 100, 2, 1.0)
    _, md = report("early-count", folder)
    want = ("Ended well before its configured length: count-c2 after 100 of the configured 150 requests (num_prompts); "
            "its numbers cover only the part that ran.")
    check(want in summary_of(md), f"early end by count told: {summary_of(md)}")


def test_tiny_run_is_told():
    """100 requests at c=32 of 0.5 s: ceil(100/32) = 4 rounds, 2.00 s: at most 100 requests, and under
    10 s. (100 >= 2 * 32, so the run is not 'short for its concurrency' as well.)"""
    folder = os.path.join(WORK, "tiny")
    write_log(folder, "tiny-c32", {"concurrency": 32}, 100, 32, 0.5)
    _, md = report("tiny", folder)
    want = ("Short runs: tiny-c32 (100 requests in 2.00 s); tails from so few requests, and rates from a few seconds of "
            "ramp-up and drain, may not repeat.")
    check(want in summary_of(md), f"tiny run told: {summary_of(md)}")


def test_level_that_never_held_its_load_is_kept_out():
    """c=1, 2, 4 with 200 requests of 1 s; c=64 with 100 (fewer than 2 * 64): it never held its load
    and is kept out of the knees; three sound levels remain."""
    folder = os.path.join(WORK, "unsteady")
    for c in (1, 2, 4):
        write_log(folder, f"uns-c{c}", {"concurrency": c}, 200, c, 1.0)
    write_log(folder, "uns-c64", {"concurrency": 64}, 100, 64, 1.0)
    doc, md = report("unsteady", folder)
    want = ("c=64 completed fewer than 2 × its concurrency in requests and never held its load, so it is kept out of "
            "the knees and the SLO capacity.")
    check(want in doc["sweeps"][0]["findings"], f"kept out, says the sweep: {doc['sweeps'][0]['findings']}")
    check(want in summary_of(md), f"and the summary: {summary_of(md)}")


def test_levels_out_of_order_are_told():
    """c=1, 2, 4, 8 started at 00:00, 02:00, 01:00, 03:00: c=4 ran before c=2."""
    folder = os.path.join(WORK, "order")
    for c, at in ((1, "00"), (2, "02"), (4, "01"), (8, "03")):
        write_log(folder, f"order-c{c}", {"concurrency": c}, 100, c, 1.0, started_at=f"2026-01-01T{at}:00:00Z")
    doc, md = report("order", folder)
    want = ("The levels were not run in order of concurrency: c=4 started before lower levels (start order c=1, 4, 2, "
            "8), a sign of an interrupted or re-run sweep; levels run apart in time may have met the server in "
            "different states.")
    check(want in summary_of(md), f"order told: {summary_of(md)}")
    check(want in doc["sweeps"][0]["findings"], "and among the sweep's findings")


def test_error_rate_above_one_percent_is_told():
    """3 of 100 requests failed (3.0%), one a context overflow (vLLM's 400 text); 1 of 100 (1%) is not told."""
    folder = os.path.join(WORK, "errors")
    overflow = ("This model's maximum context length is 4096 tokens. However, you requested 4200 tokens (4000 in the "
                "messages, 200 in the completion).")
    write_log(folder, "err-c2", {"concurrency": 2}, 100, 2, 1.0,
              failed=[(10, 500, "Internal Server Error"), (20, 500, "Internal Server Error"), (30, 400, overflow)])
    write_log(folder, "fine-c2", {"concurrency": 2, "deployment": "b"}, 100, 2, 1.0, failed=[(10, 500, "Internal Server Error")])
    _, md = report("errors", folder)
    want = ("More than 1% of requests failed in one run: err-c2 (3 of 100: 3.0%, 1 of them a context overflow); its "
            "latencies and throughput count the successful requests only.")
    check(want in summary_of(md), f"errors told: {summary_of(md)}")
    check(not any("fine-c2 (1 of" in s for s in summary_of(md)), "1% exactly is not above 1%")


def step_sweep(name, levels, rps):
    """Closed-loop levels with 200 requests each, e2e d = c / rps so that each level's throughput is
    n / (ceil(n / c) * d) = rps when c divides 200."""
    folder = os.path.join(WORK, name)
    for c, r in zip(levels, rps):
        write_log(folder, f"{name}-c{c}", {"concurrency": c}, 200, c, c / r)
    return folder


def test_jumps_respect_the_load_step():
    """Throughput 1, 7, 8, 8.2 req/s. Over c = 1, 10, 20, 40 the 7x step comes with a tenfold load
    step: ln 7 = 1.95 < 2 ln 10 = 4.61, no jump, and no 'in one step' sentence. Over c = 1, 2, 4, 8
    the same 7x is a jump: 1.95 >= 2 ln 2 = 1.39, and the summary says 'Throughput rises 7.0x in one
    step, c=1 -> 2'."""
    doc, md = report("wide", step_sweep("wide", (1, 10, 20, 40), (1, 7, 8, 8.2)))
    knees = {k["curve"]: k for k in doc["sweeps"][0]["knees"]}
    check(knees["throughput"]["curve_shape"]["kind"] != "jump", f"1 -> 10: no jump: {knees['throughput']['curve_shape']}")
    check("in one step" not in md, "1 -> 10: no jump sentence")
    first = summary_of(md)[0]
    check(first.startswith("wide (concurrency 1, 10, 20 and 40): throughput peaks at 8.20 req/s at c=40"),
          f"1 -> 10: the sweep named, with its range and peak: {first}")
    doc, md = report("narrow", step_sweep("narrow", (1, 2, 4, 8), (1, 7, 8, 8.2)))
    knees = {k["curve"]: k for k in doc["sweeps"][0]["knees"]}
    check(knees["throughput"]["curve_shape"]["kind"] == "jump", f"1 -> 2: a jump: {knees['throughput']['curve_shape']}")
    check(any(s.startswith("Throughput rises 7.0× in one step, c=1 → 2") for s in summary_of(md)),
          f"1 -> 2: the jump in the summary: {summary_of(md)}")


def test_a_sweep_without_a_knee_still_says_where_growth_stands():
    """Throughput 1, 2, 3.9, 7.6 at c = 1, 2, 4, 8 (200 requests, e2e c / rps): nothing levels off;
    the first level within 10% of the peak 7.6 is c=8, the top one, so 'still rising at the top level
    (+95% over c=4)' (7.6 / 3.9 = 1.949). At c=8 e2e p99 is 8 / 7.6 = 1.05 s, TTFT p99 105 ms, each
    marked † (200 requests)."""
    _, md = report("rising", step_sweep("rising", (1, 2, 4, 8), (1, 2, 3.9, 7.6)))
    first = summary_of(md)[0]
    check("still rising at the top level (+95% over c=4), so growth does not stop within the range" in first,
          f"growth does not stop: {first}")
    # 200 requests: a p99 rests on few samples (fewer than 10 beyond it), marked as in the tables.
    check(first.endswith("at c=8 e2e p99 is 1.05 s† and TTFT p99 105 ms†."), f"tails at the top level: {first}")


def shared(*parts):
    path = os.path.join(SHARED, *parts)
    return path if os.path.isdir(path) else None


def test_aiperf_inferencex_sweep():
    """The real AIPerf sweep (SOURCE.md): C=16/32/40/48 ended after 1234.945, 933.974, 401.753 and
    1308.758 s of the configured 1800 s; the levels were not run in concurrency order; C=1 (66
    requests) and C=40 (96 requests) are short runs."""
    folder = shared("aiperf-inferencex-sweep-b200")
    if folder is None:
        print("skipped: ../shared/data is not beside the checkout")
        return
    res = subprocess.run([SERVESTAT, "report", "-o", os.path.join(WORK, "aiperf"), "--format", "md,json", folder],
                         capture_output=True, text=True)
    if res.returncode != 0:
        print(f"skipped: the AIPerf set is not read yet ({res.stderr.strip()[:200]})")
        return
    with open(os.path.join(WORK, "aiperf", "report.md"), encoding="utf-8") as f:
        summary = summary_of(f.read())
    early = next((s for s in summary if s.startswith("Ended well before")), "")
    for c, span in ((16, 1234.945), (32, 933.974), (40, 401.753), (48, 1308.758)):
        check(re.search(rf"c={c}\b[^,;]* after {span:.0f} s", early) is not None, f"C={c} ended after {span:.0f} s: {early}")
    check("of the configured 1800 s (benchmark_duration)" in early, f"against 1800 s: {early}")
    check(not re.search(r"c=(1|2|4|8|56|64)\b[^,;]* after", early), f"the levels that ran their time are not named: {early}")
    check(any(s.startswith("The levels were not run in order of concurrency") for s in summary), f"order: {summary}")
    tiny = next((s for s in summary if s.startswith("Short runs")), "")
    check("66 requests in 1725 s" in tiny and "96 requests in 402 s" in tiny, f"C=1 and C=40 short: {tiny}")


def test_sglang_result_lines_are_tiny():
    """The real SGLang lines: 100 requests each, in 4.356595 s (C=8) and 1.961009 s (C=32)."""
    folder = shared("sglang-bench-serving-tonyli15")
    if folder is None:
        print("skipped: ../shared/data is not beside the checkout")
        return
    res = subprocess.run([SERVESTAT, "report", "-o", os.path.join(WORK, "sglang"), "--format", "md", folder],
                         capture_output=True, text=True)
    if res.returncode != 0:
        print(f"skipped: the SGLang set is not read yet ({res.stderr.strip()[:200]})")
        return
    with open(os.path.join(WORK, "sglang", "report.md"), encoding="utf-8") as f:
        summary = summary_of(f.read())
    # Every run of the report is short: told in one range.
    check("Every run (2) is short (100 requests in 1.96 s to 4.36 s)" in " ".join(summary), f"both runs tiny: {summary}")


if __name__ == "__main__":
    sys.exit(run_tests(WORK, [test_straggler_is_told_and_kept_out,
                              test_early_end_is_told,
                              test_tiny_run_is_told,
                              test_level_that_never_held_its_load_is_kept_out,
                              test_levels_out_of_order_are_told,
                              test_error_rate_above_one_percent_is_told,
                              test_jumps_respect_the_load_step,
                              test_a_sweep_without_a_knee_still_says_where_growth_stands,
                              test_aiperf_inferencex_sweep,
                              test_sglang_result_lines_are_tiny]))
