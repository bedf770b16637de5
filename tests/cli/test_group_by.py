#!/usr/bin/python3
"""`servestat report --group-by KEY [--window S]`: the cross-run view grouped by model or
configuration, checked end to end: the groups in report.json, the section and its charts in
report.md/html, time bins, "(none)", deterministic bytes, and exit 2 for every misuse.

Usage: test_group_by.py SERVESTAT_BINARY PROJECT_DIR WORK_DIR
"""
import glob
import json
import os
import subprocess
import sys

from checks import check, run_tests

SERVESTAT, PROJECT, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
LLMPERF = os.path.join(PROJECT, "..", "shared", "data", "llmperf-leaderboard", "raw_data", "individual")
LIVE_BAD = os.path.join(PROJECT, "examples", "live", "bad")
SIZE = r"model=_([0-9]+b)\.json$"
GROUP_PLOTS = ["groups-p95-violin.svg", "groups-p99-violin.svg", "groups-tokens-violin.svg", "groups-tradeoff.svg"]


def servestat(*args):
    return subprocess.run([SERVESTAT, *args], capture_output=True, text=True)


def report(out, *args):
    res = servestat("report", "-o", out, *args)
    check(res.returncode == 0, f"report {args}: exit {res.returncode}: {res.stderr}")
    return res


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def have_llmperf():
    if os.path.isdir(LLMPERF):
        return True
    print("skipped: no", LLMPERF)
    return False


def test_three_model_sizes():
    """The llmperf leaderboard by model size: 7b, 13b, 70b in natural order, every run one member."""
    if not have_llmperf():
        return
    out = os.path.join(WORK, "sizes")
    report(out, "--group-by", SIZE, LLMPERF)
    groups = json.loads(read(os.path.join(out, "report.json")))["groups"]
    check([g["name"] for g in groups] == ["7b", "13b", "70b"], f"groups: {[g['name'] for g in groups]}")
    files = sorted(os.listdir(LLMPERF))
    expected = {size: sorted(f for f in files if f.endswith(f"_{size}.json")) for size in ("7b", "13b", "70b")}
    for g in groups:
        members = sorted(os.path.basename(m["source"]) for m in g["members"])
        check(members == expected[g["name"]], f"{g['name']} members: {members}")
        check(g["key"] == "model", "key name")
        for m in g["members"]:
            check("window" not in m, "no window without --window")
            check(m["output_tps"] is None, "llmperf has no shared clock: no output tok/s")
            check(m["p99"] >= m["p95"] > 0, f"{m['label']}: p99 >= p95 > 0")
        for measure in ("p95", "p99", "tokens_per_s_median", "output_tps"):
            s = g["summaries"][measure]
            check(list(s) == ["n", "min", "p25", "median", "p75", "max", "mean"], f"summary keys {list(s)}")
    # Cross-check one member against the file itself: p95 of end_to_end_latency_s over the successful
    # requests, numpy's linear method, and the median of number_output_tokens / end_to_end_latency_s.
    import numpy as np
    rows = json.loads(read(os.path.join(LLMPERF, "anyscale_70b.json")))
    ok = [r for r in rows if r.get("error_code") is None]
    e2e = np.array([r["end_to_end_latency_s"] for r in ok])
    tps = np.array([r["number_output_tokens"] / r["end_to_end_latency_s"] for r in ok])
    member = next(m for g in groups for m in g["members"] if m["source"].endswith("anyscale_70b.json"))
    check(abs(member["p95"] - np.percentile(e2e, 95)) < 1e-9, f"p95 {member['p95']} vs numpy {np.percentile(e2e, 95)}")
    check(abs(member["tokens_per_s_median"] - np.median(tps)) < 1e-9 * np.median(tps),
          f"tokens/s {member['tokens_per_s_median']} vs numpy {np.median(tps)}")

    md = read(os.path.join(out, "report.md"))
    check("## Runs grouped by model" in md, "group section in report.md")
    check(md.index("## Runs compared") < md.index("## Runs grouped by model"), "after the runs comparison")
    for p in GROUP_PLOTS:
        check(f"(plots/{p})" in md, f"report.md links {p}")
        res = subprocess.run(["xmllint", "--noout", os.path.join(out, "plots", p)], capture_output=True, text=True)
        check(res.returncode == 0, f"{p} is well-formed XML: {res.stderr}")
    html = read(os.path.join(out, "report.html"))
    check("<h2>Runs grouped by model</h2>" in html, "group section in report.html")
    check(html.count("<polygon") >= 9, "three violins in each of three charts inlined in the HTML")
    violin = read(os.path.join(out, "plots", "groups-p95-violin.svg"))
    check(violin.index(">7b<") < violin.index(">13b<") < violin.index(">70b<"), "natural order on the x axis")


def test_window_bins_by_send_time():
    """Runs with a shared clock cut into time bins; every member carries its window."""
    out = os.path.join(WORK, "window")
    report(out, "--group-by", "concurrency", "--window", "0.5", LIVE_BAD)
    groups = json.loads(read(os.path.join(out, "report.json")))["groups"]
    check([g["name"] for g in groups] == ["1", "2", "4", "8", "16", "32", "48", "64"],
          f"concurrency groups: {[g['name'] for g in groups]}")
    members = [m for g in groups for m in g["members"]]
    check(len(members) > len(groups), f"more members than runs: {len(members)}")
    for m in members:
        check(m["window"]["end"] - m["window"]["start"] == 0.5, f"window {m['window']}")
        check(m["output_tps"] is not None and m["output_tps"] > 0, "shared clock: output tok/s per bin")
        check(m["requests"] >= 5, "sparse bins are left out")
    # The bins of one run hold its requests by send time, counted from its first send.
    rows = [json.loads(line) for line in open(os.path.join(LIVE_BAD, "bad-c1.jsonl"))][1:]
    first = min(r["t_sent"] for r in rows)
    in_first_bin = [r for r in rows if r["t_sent"] - first < 0.5 and r["status"] == "ok"]
    c1 = next(g for g in groups if g["name"] == "1")["members"][0]
    check(c1["window"]["start"] == 0 and c1["requests"] == len(in_first_bin),
          f"first bin of bad-c1: {c1['requests']} vs {len(in_first_bin)}")
    md = read(os.path.join(out, "report.md"))
    check("each run cut into 500 ms windows by send time" in md, "the description says how members were made")


def test_window_without_clock_is_noted():
    if not have_llmperf():
        return
    out = os.path.join(WORK, "noclock")
    report(out, "--group-by", SIZE, "--window", "10", LLMPERF)
    md = read(os.path.join(out, "report.md"))
    check("have no shared clock, so --window cannot cut them into time bins" in md, "no-clock note")


def test_missing_key_forms_none_group():
    if not have_llmperf():
        return
    out = os.path.join(WORK, "none")
    report(out, "--group-by", r"size=_(7b)\.json$", LLMPERF)
    groups = json.loads(read(os.path.join(out, "report.json")))["groups"]
    check([g["name"] for g in groups] == ["7b", "(none)"], f"groups: {[g['name'] for g in groups]}")
    check(len(groups[1]["members"]) == 14, f"(none) holds the other 14 runs: {len(groups[1]['members'])}")
    md = read(os.path.join(out, "report.md"))
    check("14 run(s) have no size in their file name: grouped as (none)" in md, "note on (none)")


def test_output_is_byte_stable():
    a, b = os.path.join(WORK, "stable-a"), os.path.join(WORK, "stable-b")
    for out in (a, b):
        report(out, "--group-by", "concurrency", "--window", "0.5", LIVE_BAD)
    for name in ["report.md", "report.html", "report.json"] + [os.path.join("plots", p) for p in GROUP_PLOTS]:
        check(read(os.path.join(a, name)) == read(os.path.join(b, name)), f"{name} is the same bytes twice")


def test_misuse_exits_2():
    cases = [
        (["--group-by", r"size=_(q[0-9]+)\.json$"], [r"_(q[0-9]+)\.json$", "bad-c1.jsonl"]),
        (["--group-by", r"size=_([0-9]+b\.json$"], ["invalid regular expression"]),
        (["--group-by", "modle"], ["no run has"]),
        (["--group-by", "model", "--window", "0"], ["--window"]),
        (["--group-by", "model", "--window", "-3"], ["--window"]),
        (["--window", "10"], ["--group-by"]),
        (["--group-by", "model", "--trend"], ["--trend"]),
    ]
    for args, words in cases:
        res = servestat("report", "-o", os.path.join(WORK, "misuse"), *args, LIVE_BAD)
        check(res.returncode == 2, f"{args}: exit {res.returncode} (stderr {res.stderr.strip()!r})")
        for w in words:
            check(w in res.stderr, f"{args}: stderr names {w!r}: {res.stderr.strip()!r}")


def test_no_group_by_no_section():
    out = os.path.join(WORK, "plain")
    report(out, LIVE_BAD)
    check("Runs grouped by" not in read(os.path.join(out, "report.md")), "no group section without --group-by")
    check("groups" not in json.loads(read(os.path.join(out, "report.json"))), "report.json unchanged")
    check(not glob.glob(os.path.join(out, "plots", "groups-*")), "no group plots")


if __name__ == "__main__":
    sys.exit(run_tests(WORK, [test_three_model_sizes, test_window_bins_by_send_time, test_window_without_clock_is_noted,
                              test_missing_key_forms_none_group, test_output_is_byte_stable, test_misuse_exits_2,
                              test_no_group_by_no_section]))
