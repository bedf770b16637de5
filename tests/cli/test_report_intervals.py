#!/usr/bin/python3
"""Intervals in reports (issue 38): the KPI table and the sweep tables show each percentile with its
95% confidence interval, "value (low–high)" in the value's unit; a percentile its sample cannot bound
stands alone with the dagger, counted in the note under the table; the sweep charts shade each
percentile's interval. Expected ends are the order statistics at the ranks of the exact binomial rule
written with Python's math.comb, values by numpy.percentile.

Usage: test_report_intervals.py SERVESTAT_BINARY WORK_DIR   (run by ctest)
"""
import json
import os
import re
import subprocess
import sys

import numpy as np

from checks import check, order_statistic_ranks, run_tests

SERVESTAT, WORK = sys.argv[1], sys.argv[2]
DAGGER = "†"


def servestat(*args):
    res = subprocess.run([SERVESTAT, *args], capture_output=True, text=True)
    check(res.returncode == 0, f"servestat {' '.join(args)}: exit {res.returncode}: {res.stderr[:400]}")
    return res


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def unit(magnitude):
    """report/format.hpp's unit for a duration: (scale, decimals, name)."""
    for limit, u in ((0.001, (1e6, 0, "µs")), (0.01, (1e3, 2, "ms")), (0.1, (1e3, 1, "ms")), (1, (1e3, 0, "ms")),
                     (100, (1, 2, "s"))):
        if magnitude < limit:
            return u
    return (1, 0, "s")


def compact(value, low=None, high=None):
    scale, decimals, name = unit(abs(value))
    text = f"{value * scale:.{decimals}f} {name}"
    if low is None:
        return text
    return text + f" ({low * scale:.{decimals}f}–{high * scale:.{decimals}f})"


def write_log(path, label, concurrency, e2e):
    with open(path, "w") as f:
        f.write(json.dumps({"servestat": "log", "version": 1,
                            "run": {"label": label, "params": {"concurrency": concurrency}}}) + "\n")
        for i, e in enumerate(e2e):
            t = i * 0.01
            f.write(json.dumps({"id": str(i), "t_sent": t, "t_first": t + e / 4, "t_end": t + e, "prompt_tokens": 20,
                                "output_tokens": 50, "status": "ok"}) + "\n")


def levels():
    """Three levels of 120 requests, e2e spread over 0.2–0.45 s, slower at higher concurrency."""
    rng = np.random.default_rng(38)
    out = {}
    for c, base in ((1, 0.2), (2, 0.25), (4, 0.3)):
        out[c] = [round(base + float(x), 6) for x in rng.uniform(0, 0.15, 120)]
    return out


def expected(values, p):
    """The report's cell for percentile p of `values`: value with its interval, or value and dagger."""
    v = float(np.percentile(values, p))
    ranks = order_statistic_ranks(len(values), p)
    if ranks is None:
        return compact(v) + DAGGER
    s = sorted(values)
    return compact(v, s[ranks[0]], s[ranks[1]])


def test_sweep_tables_and_kpi_show_each_percentile_with_its_interval():
    logs = []
    data = levels()
    for c, e2e in data.items():
        path = os.path.join(WORK, f"sweep-c{c}.jsonl")
        write_log(path, f"sweep-c{c}", c, e2e)
        logs.append(path)
    out = os.path.join(WORK, "sweep")
    servestat("report", "-o", out, *logs)
    md, html = read(os.path.join(out, "report.md")), read(os.path.join(out, "report.html"))
    check(order_statistic_ranks(120, 99) is None and order_statistic_ranks(120, 90) is not None, "fixture: p90 bounded, p99 not")
    section = md.split("## Sweep over")[1].split("Knees")[0]
    rows = [line for line in section.splitlines() if re.match(r"\| [124] \| ", line)]
    check(len(rows) == 3, f"three sweep rows: {rows}")
    for row, (c, e2e) in zip(rows, data.items()):
        cells = [x.strip() for x in row.strip("|").split("|")]
        # concurrency, req/s, output tok/s, success, e2e p50, e2e p90, e2e p99, …
        check(cells[4:7] == [expected(e2e, 50), expected(e2e, 90), expected(e2e, 99)],
              f"c={c}: {cells[4:7]} != {[expected(e2e, p) for p in (50, 90, 99)]}")
        ttft = [e / 4 for e in e2e]
        check(cells[7] == expected(ttft, 50), f"c={c} ttft p50: {cells[7]} != {expected(ttft, 50)}")
    check("In parentheses beside a percentile: its 95% confidence interval" in md, "the sweep table's note")
    check(f"A value without one ({DAGGER}) has too few requests beyond it at its level to bound it." in md,
          "the note says why a value stands alone")
    # The KPI table: the level of highest throughput, its whole run's row.
    kpi = next((line for line in md.splitlines() if line.startswith("| sweep at c=")), "")
    level = int(re.match(r"\| sweep at c=(\d+)", kpi).group(1)) if kpi else 0
    if kpi:
        e2e = data[level]
        cells = [x.strip() for x in kpi.strip("|").split("|")]
        check(cells[8:10] == [expected(e2e, 50), expected(e2e, 99)], f"KPI e2e p50, p99: {cells[8:10]}")
    # 120 values: place 117.81 of the p99, so 2 values above it (119 − 117).
    check("p99 of 120 requests: 2 values above it" in md, "the KPI note counts the p99's sample plainly")
    # HTML: the interval in its own span, under the value; escaped, no script.
    check(re.search(r"\d+ ms <span class=\"ci\">\(\d+–\d+\)</span>", html) is not None, "html interval spans")
    check("<script" not in html, "no script")
    # The sweep's percentile chart: a band for p50 and for p90 in their colours, none for p99, said why.
    svg = read(os.path.join(out, "plots", "sweep-1-percentiles.svg"))
    bands = re.findall(r'<polygon points="([^"]+)" fill="(#[0-9A-Fa-f]{6})" fill-opacity="0.18"', svg)
    check([fill for _, fill in bands] == ["#0072B2", "#E69F00"], f"bands of p50 and p90: {[f for _, f in bands]}")
    for points, _ in bands:
        check(len(points.split()) == 6, f"3 levels: 3 upper and 3 lower points: {points}")
    check("no shading where a level has too few requests for a 95% interval" in svg, "the chart says why p99 has none")
    res = subprocess.run(["xmllint", "--noout", os.path.join(out, "plots", "sweep-1-percentiles.svg")],
                         capture_output=True, text=True)
    check(res.returncode == 0, f"well-formed SVG: {res.stderr[:300]}")


if __name__ == "__main__":
    sys.exit(run_tests(WORK, [test_sweep_tables_and_kpi_show_each_percentile_with_its_interval]))
