#!/usr/bin/python3
"""Sweeps from real result files, with every input row accounted for: configurations kept apart,
repeated levels used as replicates, a rate sweep ending at `inf`, runs named by what sets them
apart, and report.json's `inputs` / `left_out` saying where each row went.

Usage: test_sweep_inputs.py SERVESTAT_BINARY TEST_DATA_DIR EXAMPLES_DIR WORK_DIR
"""
import json
import os
import subprocess
import sys

from checks import check, run_tests

SERVESTAT, DATA, EXAMPLES, WORK = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]


def servestat(*args, expect=0):
    res = subprocess.run([SERVESTAT, *args], capture_output=True, text=True)
    check(res.returncode == expect, f"servestat {' '.join(args)}: exit {res.returncode}, wanted {expect}: {res.stderr[:400]}")
    return res


def report(name, *inputs_and_flags):
    out = os.path.join(WORK, name)
    servestat("report", "-o", out, "--format", "md,json", *inputs_and_flags)
    with open(os.path.join(out, "report.json"), encoding="utf-8") as f:
        doc = json.load(f)
    with open(os.path.join(out, "report.md"), encoding="utf-8") as f:
        md = f.read()
    return doc, md, out


def test_configurations_in_one_table_are_separate_sweeps_with_replicates():
    doc, md, _ = report("configs", os.path.join(DATA, "sweep", "configs_replicates.csv"))
    groups = [s["group"] for s in doc["sweeps"]]
    check(groups == ["tp1", "tp2", "tp2-chunked"], f"one sweep per label: {groups}")
    tp2 = doc["sweeps"][1]["points"]
    check([p["replicates"] for p in tp2] == [1, 1, 2, 1], f"tp2's c=4 has two runs: {[p['replicates'] for p in tp2]}")
    # The file's rows: tp2 c=4 rps 3.00 and 3.40 -> median 3.20, range [3.00, 3.40].
    check(abs(tp2[2]["rps"] - 3.20) < 1e-12 and tp2[2]["range"]["rps"] == [3.0, 3.4], f"tp2 c=4: {tp2[2]}")
    inputs = doc["inputs"]
    check(len(inputs) == 1 and inputs[0]["rows_read"] == 17 and inputs[0]["rows_used"] == 17,
          f"17 rows read and used: {inputs}")
    left = doc["left_out"]
    check([l["label"] for l in left] == ["tp4 concurrency=1", "tp4 concurrency=2"] and
          all("tp4 has 2 levels of concurrency" in l["reason"] for l in left), f"tp4 left out with why: {left}")
    check("Not shown on a sweep or grid: tp4 concurrency=1, tp4 concurrency=2" in md, "report.md names tp4's rows")
    check("Measured more than once: c=4 (2 runs)" in md and "show the median of those runs" in md,
          "report.md says how the replicates were used")


def test_a_row_repeated_exactly_is_an_error_naming_both_lines():
    res = servestat("report", "-o", os.path.join(WORK, "repeated"), os.path.join(DATA, "sweep", "bad_repeated_row.csv"),
                    expect=3)
    check("bad_repeated_row.csv:5" in res.stderr and "line 5 repeats line 3 exactly" in res.stderr,
          f"names the file and both lines: {res.stderr.strip()}")


def test_appended_vllm_results_sweep_each_deployment_up_to_inf():
    doc, md, out = report("vllm", os.path.join(DATA, "vllm_bench_json", "appended_deployments_inf.json"))
    labels = [r["label"] for r in doc["runs"]]
    check(len(set(labels)) == 9 and not any("#" in l for l in labels), f"nine distinct names: {labels}")
    check("kvcache · rate ∞" in labels, f"named by deployment and rate: {labels}")
    sweeps = doc["sweeps"]
    check([s["group"] for s in sweeps] == ["deployment=no-features", "deployment=base", "deployment=kvcache"],
          f"one sweep per deployment: {[s['group'] for s in sweeps]}")
    check(all([p["load"] for p in s["points"]] == [10, 30, "inf"] for s in sweeps),
          f"levels 10, 30, inf: {[[p['load'] for p in s['points']] for s in sweeps]}")
    check(all(s["param"] == "request_rate" and s["covarying"] == ["num_prompts"] for s in sweeps),
          "swept over request_rate, num_prompts following it")
    check(doc.get("grids", []) == [], "no num_prompts × request_rate grid")
    check(doc["left_out"] == [] and doc["inputs"][0]["rows_read"] == 9, f"no run left out: {doc['left_out']}")
    summary = md.split("## Summary")[1].split("\n\n")[1]
    first = summary.splitlines()[0]
    check("TTFT p99 is 9.95 s on no-features vs 3.16 s on base vs 1.25 s on kvcache" in first and
          "request\\_rate=∞ (max)" in first, f"the summary leads with TTFT p99 at inf: {first}")
    # 213.7 / 209.8 = 1.019 at rate 10, 484.5 / 476.2 = 1.017 at rate 30: within 2%.
    check("within 2% of each other at request\\_rate 10 and 30" in first, f"and says they agree below: {first}")
    check(os.path.exists(os.path.join(out, "plots", "sweeps-ttft-p99.svg")), "one chart of every sweep's TTFT p99")
    with open(os.path.join(out, "plots", "sweeps-ttft-p99.svg"), encoding="utf-8") as f:
        check("∞ (max)" in f.read(), "the unbounded rate is labelled on the axis")


def test_skipped_and_cut_rows_are_accounted_for():
    log = os.path.join(WORK, "some-bad.jsonl")
    with open(os.path.join(EXAMPLES, "live", "bad", "bad-c64.jsonl"), encoding="utf-8") as f:
        lines = f.read().splitlines()
    lines[5] = '{"id": "x", "t_sent": "soon"}'
    lines[9] = "not json"
    with open(log, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    doc, md, _ = report("skipped", "--skip-bad", "--steady-state", log)
    entry = doc["inputs"][0]
    excluded = sum(e["rows"] for e in entry["excluded"])
    check(entry["rows_read"] == len(lines) - 1, f"every request line read: {entry['rows_read']} of {len(lines) - 1}")
    check(entry["rows_used"] + excluded == entry["rows_read"], f"used + excluded = read: {entry}")
    reasons = " ".join(e["reason"] for e in entry["excluded"])
    check("bad lines skipped (--skip-bad)" in reasons and "steady-state" in reasons, f"both reasons: {reasons}")
    check("rows left out of the statistics: bad lines skipped" in md, "report.md says so under the summary")


if __name__ == "__main__":
    sys.exit(run_tests(WORK, [test_configurations_in_one_table_are_separate_sweeps_with_replicates,
                              test_a_row_repeated_exactly_is_an_error_naming_both_lines,
                              test_appended_vllm_results_sweep_each_deployment_up_to_inf,
                              test_skipped_and_cut_rows_are_accounted_for]))
