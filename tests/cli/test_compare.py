#!/usr/bin/python3
"""CLI tests for `servestat compare` and `servestat report --trend`: the verdict table, JSON, reports,
the --fail-on gate and its exit codes, sweeps, determinism.

Expected latencies of the notebook's experiment 5 are the notebook's own numbers
(examples/notebook-exp5/README.md). The gate cases use logs written here whose change is unmistakable
(every latency 30% longer), so the verdict does not hinge on the bootstrap's draws.

Usage: test_compare.py SERVESTAT_BINARY EXAMPLES_DIR WORK_DIR   (run by ctest)
"""
import json
import math
import os
import re
import subprocess
import sys

from checks import check, run_tests

SERVESTAT, EXAMPLES, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
BAD = os.path.join(EXAMPLES, "notebook-exp5", "bad_unfair-c32.jsonl")
FAIR = os.path.join(EXAMPLES, "notebook-exp5", "fair_768-c32.jsonl")


def servestat(*args):
    return subprocess.run([SERVESTAT, *args], capture_output=True, text=True)


def as_json(res, what):
    check(res.returncode == 0, f"{what}: exit {res.returncode}, stderr {res.stderr!r}")
    try:
        return json.loads(res.stdout)
    except ValueError:
        check(False, f"{what}: not JSON: {res.stdout[:200]!r}")
        return {"pairs": [{"changes": []}], "options": {}}


def change(doc, name, pair=0):
    for c in doc["pairs"][pair]["changes"]:
        if c["name"] == name:
            return c
    check(False, f"no change named {name}")
    return {}


def close(a, b, rel=1e-9):
    return a is not None and abs(a - b) <= rel * abs(b)


def write_log(path, label, latencies, params=None, started_at="2026-01-12T00:00:00Z"):
    """A closed-loop canonical log: one worker, requests back to back."""
    header = {"servestat": "log", "version": 1,
              "run": {"label": label, "started_at": started_at, "params": params or {}}}
    lines, t = [json.dumps(header)], 0.0
    for i, e2e in enumerate(latencies):
        lines.append(json.dumps({"id": str(i), "t_sched": t, "t_sent": t, "t_first": t + e2e / 5, "t_end": t + e2e,
                                 "prompt_tokens": 20 if i % 2 else 3000, "output_tokens": 16, "status": "ok"}))
        t += e2e
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


def spread(n, median, seed):
    """Deterministic right-skewed latencies without a random generator: a lognormal-like quantile grid."""
    out = []
    for i in range(n):
        u = ((i * 7919 + seed * 104729) % n + 0.5) / n
        out.append(median * math.exp(0.5 * math.sqrt(2) * erfinv(2 * u - 1)))
    return out


def erfinv(y):
    # Newton on erf: plenty for test data.
    x = 0.0
    for _ in range(60):
        x -= (math.erf(x) - y) / (2 / math.sqrt(math.pi) * math.exp(-x * x))
    return x


def test_notebook_experiment5_table():
    res = servestat("compare", BAD, FAIR)
    check(res.returncode == 0, f"exit {res.returncode}: {res.stderr}")
    rows = {line.split()[0]: line for line in res.stdout.splitlines() if line.startswith("  ")}
    p50 = rows.get("e2e.p50", "")
    check("5.53 s" in p50 and "6.04 s" in p50, f"e2e.p50 row shows the notebook's 5.53 s -> 6.04 s: {p50!r}")
    p90 = rows.get("e2e.p90", "")
    check("10.46 s" in p90 and "9.18 s" in p90, f"e2e.p90 row shows 10.46 s -> 9.18 s: {p90!r}")
    check("too few requests" in rows.get("e2e.p99", ""), "p99 of 200 requests gets no verdict")
    check("BAD_unfair" in res.stdout and "FAIR_768" in res.stdout, "the table names both runs")


def test_notebook_experiment5_json():
    doc = as_json(servestat("compare", "--json", BAD, FAIR), "compare --json")
    check(doc.get("servestat") == "compare" and doc.get("version") == 1, "a compare document, version 1")
    check(doc["options"].get("noise") == 0.02 and doc["options"].get("resamples") == 2000, "default options recorded")
    p50 = change(doc, "e2e.p50")
    check(close(p50.get("before"), 5.534205468999517) and close(p50.get("after"), 6.04282219300012),
          f"e2e.p50 equals the notebook's: {p50}")
    p90 = change(doc, "e2e.p90")
    check(close(p90.get("before"), 10.461404818999926) and close(p90.get("after"), 9.18175588419981),
          f"e2e.p90 equals the notebook's: {p90}")
    check(change(doc, "e2e.p99").get("verdict") == "too_few", "p99: too_few")
    check(change(doc, "rps").get("verdict") == "single" and change(doc, "rps").get("ci") is None,
          "rps is one measurement per run")
    ci = p50.get("relative_ci") or {}
    check(ci.get("low", 1) < p50.get("relative_change", 0) < ci.get("high", -1), "the CI contains the estimate")


def test_output_is_deterministic():
    first = servestat("compare", "--json", BAD, FAIR).stdout
    check(first == servestat("compare", "--json", BAD, FAIR).stdout, "same input, same JSON")
    other = servestat("compare", "--json", "--seed", "7", BAD, FAIR).stdout
    check(first != other, "another seed gives other intervals")
    for d in ("a", "b"):
        res = servestat("compare", BAD, FAIR, "-o", os.path.join(WORK, d))
        check(res.returncode == 0, f"compare -o: {res.stderr}")
    for name in ("compare.md", "compare.html", "compare.json"):
        with open(os.path.join(WORK, "a", name), "rb") as a, open(os.path.join(WORK, "b", name), "rb") as b:
            check(a.read() == b.read(), f"{name} is byte-identical across runs")


def test_report_files():
    out = os.path.join(WORK, "report")
    res = servestat("compare", BAD, FAIR, "-o", out)
    check(res.returncode == 0, f"exit {res.returncode}: {res.stderr}")
    with open(os.path.join(out, "compare.html")) as f:
        html = f.read()
    check(re.search(r"<script|<link|src=\"http|href=\"http|@import", html) is None,
          "compare.html loads nothing from elsewhere and runs no script")
    check("<svg" in html, "plots are inlined")
    with open(os.path.join(out, "compare.md")) as f:
        md = f.read()
    for link in re.findall(r"\]\((plots/[^)]+)\)", md):
        check(os.path.exists(os.path.join(out, link)), f"{link} exists")
    with open(os.path.join(out, "compare.json")) as f:
        check(json.load(f) == json.loads(servestat("compare", "--json", BAD, FAIR).stdout),
              "compare.json equals --json")


def test_gate():
    before = write_log(os.path.join(WORK, "gate", "before.jsonl"), "before", spread(400, 1.0, 1))
    after = write_log(os.path.join(WORK, "gate", "after.jsonl"), "after", [1.3 * x for x in spread(400, 1.0, 2)])
    res = servestat("compare", before, after, "--fail-on", "regressed")
    check(res.returncode == 1, f"--fail-on regressed: exit 1, got {res.returncode}")
    check("e2e.p50" in res.stderr, f"stderr names what regressed: {res.stderr!r}")
    res = servestat("compare", before, after, "--fail-on", "regressed:e2e.p90,success_rate")
    failed = res.stderr.rsplit("regressed: ", 1)[-1]
    check(res.returncode == 1 and "e2e.p90" in failed and "success_rate" not in failed,
          f"only the named statistics: {res.returncode} {res.stderr!r}")
    res = servestat("compare", after, before, "--fail-on", "regressed:e2e.p50")
    check(res.returncode == 0, f"an improvement passes the gate: exit {res.returncode}")
    res = servestat("compare", "--json", before, after, "--fail-on", "regressed:e2e.p50")
    check(res.returncode == 1, f"--json keeps the gate's exit code: {res.returncode}")
    doc = json.loads(res.stdout) if res.stdout.startswith("{") else {}
    check(doc.get("gate", {}).get("passed") is False and doc["gate"]["failed"][0]["name"] == "e2e.p50",
          f"the JSON carries the gate: {doc.get('gate')}")
    check(servestat("compare", before, after, "--fail-on", "regressed:e2e.p42").returncode == 2, "unknown name: 2")
    check(servestat("compare", before, after, "--fail-on", "regressed:rps").returncode == 2,
          "a single measurement cannot be gated: 2")
    check(servestat("compare", before, after, "--fail-on", "worse").returncode == 2, "bad rule: 2")
    check(servestat("compare", before, after, "--fail-on", "").returncode == 2, "an empty rule (an unset variable): 2")
    # A named statistic the data cannot test fails the gate: 50 requests a side, where p99 needs 238.
    few_before = write_log(os.path.join(WORK, "gate", "few-before.jsonl"), "few-before", spread(50, 1.0, 3))
    few_after = write_log(os.path.join(WORK, "gate", "few-after.jsonl"), "few-after", [10 * x for x in spread(50, 1.0, 4)])
    res = servestat("compare", few_before, few_after, "--fail-on", "regressed:e2e.p99")
    check(res.returncode == 1 and "e2e.p99 (could not be tested: too few requests: p99 needs 238 a side, had 50 and 50)"
          in res.stderr, f"an untested statistic fails a gate that names it: {res.returncode} {res.stderr!r}")


def test_options_and_errors():
    doc = as_json(servestat("compare", "--json", "--noise", "5%", BAD, FAIR), "--noise 5%")
    check(doc["options"].get("noise") == 0.05, "--noise 5% is 0.05")
    check(servestat("compare", "--noise", "5", BAD, FAIR).returncode == 2, "--noise 5 is ambiguous: 2")
    check(servestat("compare", "--metrics", "itl", BAD, FAIR).returncode == 2, "itl cannot be compared: 2")
    check(servestat("compare", BAD, os.path.join(WORK, "missing.jsonl")).returncode == 3, "missing file: 3")
    doc = as_json(servestat("compare", "--json", "--percentiles", "50,75", BAD, FAIR), "--percentiles")
    check(any(c["name"] == "e2e.p75" for c in doc["pairs"][0]["changes"]), "--percentiles 50,75 then the logs")


def test_sweeps_pair_by_load():
    for side, factor in (("bad", 1.0), ("fair", 0.8)):
        for i, c in enumerate((1, 2, 4, 8, 16)):
            write_log(os.path.join(WORK, side, f"c{c}.jsonl"), f"{side}-c{c}",
                      [factor * (0.5 + 0.2 * c) * x for x in spread(300, 1.0, i)], {"concurrency": c})
    os.remove(os.path.join(WORK, "fair", "c16.jsonl"))
    doc = as_json(servestat("compare", "--json", os.path.join(WORK, "bad"), os.path.join(WORK, "fair")), "sweeps")
    check(doc.get("pairing") == "load", f"paired by load: {doc.get('pairing')}")
    check([p["load"] for p in doc["pairs"]] == [1, 2, 4, 8], f"levels: {[p['load'] for p in doc['pairs']]}")
    check(doc.get("sweep", {}).get("param") == "concurrency" and doc["sweep"]["only_before"] == [16],
          "sweep: param and the level measured once")
    check(all(change(doc, "e2e.p50", k)["verdict"] == "improved" for k in range(4)), "20% faster at every level")
    res = servestat("compare", os.path.join(WORK, "bad"), os.path.join(WORK, "fair"), "-o", os.path.join(WORK, "sweep"))
    check(res.returncode == 0, f"sweep report: {res.stderr}")


def test_trend_report():
    weekly = os.path.join(EXAMPLES, "weekly")
    out = os.path.join(WORK, "trend")
    res = servestat("report", "--trend", weekly, "-o", out)
    check(res.returncode == 0, f"report --trend: exit {res.returncode}: {res.stderr}")
    for name in ("trend.md", "trend.html", "trend.json"):
        check(os.path.exists(os.path.join(out, name)), f"{name} written")
    with open(os.path.join(out, "trend.json")) as f:
        doc = json.load(f)
    labels = [r["label"] for r in doc.get("runs", [])]
    # week-2's file sorts last by name (rerun-2026-10-26.jsonl) and its date has a +02:00 offset.
    check(labels == ["week-1", "week-2", "week-3", "week-4", "week-5"], f"ordered by start date: {labels}")
    week4 = doc["runs"][3]["vs_previous"]["changes"] if len(doc.get("runs", [])) > 3 else []
    check(any(c["name"] == "e2e.p50" and c["verdict"] == "regressed" for c in week4), "week 4 regressed")
    check(servestat("report", "--trend", BAD, "-o", os.path.join(WORK, "t1")).returncode == 2,
          "a trend of one run is a usage error")


def split_log(path, label, started_at, queue, prefill, decode, network=0.05):
    """60 short requests back to back whose server reported queue and prefill (issue 50): TTFT is
    network + queue + prefill, e2e that plus decode."""
    header = {"servestat": "log", "version": 1, "run": {"label": label, "started_at": started_at}}
    lines, t = [json.dumps(header)], 0.0
    for i in range(60):
        ttft = network + queue + prefill
        lines.append(json.dumps({"id": str(i), "t_sched": t, "t_sent": t, "t_first": t + ttft, "t_end": t + ttft + decode,
                                 "prompt_tokens": 20, "output_tokens": 16, "status": "ok",
                                 "server_queue": queue, "server_prefill": prefill}))
        t += ttft + decode
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


def test_the_split_by_the_servers_clock_before_and_after():
    # Before: 0.05 + 0.7 + 0.05 to the first token, then 0.2: 70% of 1.0 s in the server's queue.
    # After: 0.05 + 0.1 + 0.05, then 0.2: 25% of 0.4 s.
    before = split_log(os.path.join(WORK, "split-before.jsonl"), "before", "2026-01-05T00:00:00Z", 0.7, 0.05, 0.2)
    after = split_log(os.path.join(WORK, "split-after.jsonl"), "after", "2026-01-12T00:00:00Z", 0.1, 0.05, 0.2)
    out = os.path.join(WORK, "split-compare")
    res = servestat("compare", before, after, "-o", out)
    check(res.returncode == 0, f"compare: {res.stderr}")
    with open(os.path.join(out, "compare.md")) as f:
        text = f.read()
    check("Where a request's time goes, by the server's clock" in text, "compare.md has the split")
    check("700 ms (70.0%) → 100 ms (25.0%)" in text, "the server's queue before → after, with shares")
    res = servestat("report", "--trend", before, after, "-o", os.path.join(WORK, "split-trend"))
    check(res.returncode == 0, f"trend: {res.stderr}")
    with open(os.path.join(WORK, "split-trend", "trend.md")) as f:
        text = f.read()
    check("| before | short | 60 |" in text and "700 ms (70.0%)" in text and "100 ms (25.0%)" in text,
          "the trend has each run's split")
    res = servestat("report", before, "-o", os.path.join(WORK, "split-report"))
    with open(os.path.join(WORK, "split-report", "report.md")) as f:
        text = f.read()
    check("By the server's own clock, short prompts spend 70.0% of their time in its queue." in text,
          "the summary says where the time goes")


sys.exit(run_tests(WORK, [test_notebook_experiment5_table, test_notebook_experiment5_json, test_output_is_deterministic,
                          test_report_files, test_gate, test_options_and_errors, test_sweeps_pair_by_load,
                          test_trend_report, test_the_split_by_the_servers_clock_before_and_after]))
