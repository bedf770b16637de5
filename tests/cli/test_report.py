#!/usr/bin/python3
"""End-to-end checks of `servestat report`, done as a person would: the SVGs are valid XML, the
Markdown renders tables and image links with cmark-gfm, the HTML is self-contained and paints
something in headless Chromium, input can never inject markup, and output is deterministic.

Usage: test_report.py SERVESTAT_BINARY EXAMPLES_LOG_DIR WORK_DIR
"""
import glob
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import zlib

from checks import check, run_tests

SERVESTAT, EXAMPLES, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
def report(out, *logs, extra=()):
    res = subprocess.run([SERVESTAT, "report", "-o", out, *extra, *logs], capture_output=True, text=True)
    check(res.returncode == 0, f"report {logs}: exit {res.returncode}: {res.stderr}")
    return res


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def png_is_blank(path):
    """True when every pixel byte of the PNG is the same value (a white or empty page)."""
    data = open(path, "rb").read()
    pos, idat = 8, b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind == b"IDAT":
            idat += data[pos + 8:pos + 8 + length]
        pos += 12 + length
    raw = zlib.decompress(idat)
    return len(set(raw)) < 8  # filter bytes plus one colour


def test_report_files_and_formats():
    out = os.path.join(WORK, "demo")
    report(out, EXAMPLES, extra=("--slo", "ttft=0.5,e2e=5"))
    for name in ["report.md", "report.html", "report.json"]:
        check(os.path.isfile(os.path.join(out, name)), f"{name} written")
    svgs = sorted(glob.glob(os.path.join(out, "plots", "*.svg")))
    check(len(svgs) >= 8, f"plots written: {len(svgs)}")
    res = subprocess.run(["xmllint", "--noout", *svgs], capture_output=True, text=True)
    check(res.returncode == 0, f"xmllint: {res.stderr[:500]}")
    for svg in svgs:
        text = read(svg)
        check("<title>" in text, f"{svg} has a title")

    md = read(os.path.join(out, "report.md"))
    html_of_md = subprocess.run(["cmark-gfm", "-e", "table"], input=md, capture_output=True, text=True).stdout
    check(html_of_md.count("<table>") >= 5, "report.md renders its tables")
    check('<img src="plots/' in html_of_md, "report.md links its plots")
    for section in ["Runs compared", "Findings", "Service-level objectives", "How to read this report"]:
        check(section in md, f"report.md has {section}")

    html = read(os.path.join(out, "report.html"))
    check("<svg" in html, "report.html inlines its plots")
    check(re.search(r"<script|<link|src=\"http|href=\"http|@import", html) is None,
          "report.html loads nothing from elsewhere and runs no script")
    stats = subprocess.run([SERVESTAT, "stats", "--json", "--slo", "ttft=0.5,e2e=5", EXAMPLES],
                           capture_output=True, text=True).stdout
    report_json = json.loads(read(os.path.join(out, "report.json")))
    # The report adds where every input row went (docs/json-export.md); the rest is the stats export.
    check(isinstance(report_json.pop("inputs", None), list) and isinstance(report_json.pop("left_out", None), list),
          "report.json accounts for its inputs")
    check(report_json == json.loads(stats), "report.json is the stats export")


def test_report_paints_in_chromium():
    chromium = shutil.which("chromium")
    check(chromium is not None, "chromium is installed (make test installs it)")
    if chromium is None:
        return
    page = os.path.abspath(os.path.join(WORK, "demo", "report.html"))
    shot = os.path.join(WORK, "report.png")
    profile = os.path.join(WORK, "chromium-profile")
    subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                    "--disable-background-networking", "--disable-component-update", "--disable-sync",
                    f"--user-data-dir={profile}", f"--screenshot={shot}", "--window-size=1200,2000",
                    "file://" + page], capture_output=True, timeout=120)
    check(os.path.isfile(shot), "chromium wrote a screenshot")
    if os.path.isfile(shot):
        check(not png_is_blank(shot), "the screenshot is not blank")


def test_input_cannot_inject_markup():
    evil = "<script>alert(1)</script> | *x* _y_"
    log = os.path.join(WORK, "evil.jsonl")
    with open(log, "w") as f:
        f.write(json.dumps({"servestat": "log", "version": 1,
                            "run": {"label": evil, "model": evil, "params": {evil: evil}}}) + "\n")
        for i in range(20):
            f.write(json.dumps({"t_sent": i, "t_first": i + 0.1, "t_end": i + 1, "prompt_tokens": 10,
                                "output_tokens": 5, "status": "ok"}) + "\n")
        f.write(json.dumps({"t_sent": 1, "t_end": 1.1, "status": "error", "http_status": 500,
                            "error": evil + "\nsecond line"}) + "\n")
    out = os.path.join(WORK, "evil")
    report(out, log)
    html = read(os.path.join(out, "report.html"))
    check("<script" not in html, "no script element from input in report.html")
    check("&lt;script&gt;" in html, "the input is shown escaped in report.html")
    md = read(os.path.join(out, "report.md"))
    for block in re.findall(r"(?:^\|.*\n)+", md, flags=re.M):
        rows = block.splitlines()
        cells = [len(re.findall(r"(?<!\\)\|", row)) for row in rows]
        check(len(set(cells)) == 1, f"a Markdown table keeps its columns: {rows[0][:60]} -> {cells}")
    check("<script>" not in md, "no raw markup from input in report.md")


def test_report_is_deterministic():
    a, b = os.path.join(WORK, "det-a"), os.path.join(WORK, "det-b")
    report(a, EXAMPLES)
    report(b, EXAMPLES)
    diff = subprocess.run(["diff", "-r", a, b], capture_output=True, text=True)
    check(diff.returncode == 0, f"two renders differ: {diff.stdout[:500]}")


def test_templates_command():
    names = subprocess.run([SERVESTAT, "templates", "list"], capture_output=True, text=True).stdout.split()
    check("report.md" in names and "report.html" in names, f"templates list: {names}")
    dumped = subprocess.run([SERVESTAT, "templates", "dump", "report.md"], capture_output=True, text=True).stdout
    custom = os.path.join(WORK, "mine.md.mustache")
    with open(custom, "w") as f:
        f.write(dumped.replace("## How to read this report", "## Reading guide"))
    out = os.path.join(WORK, "custom")
    report(out, EXAMPLES, extra=("--template", custom, "--format", "md"))
    check("## Reading guide" in read(os.path.join(out, "report.md")), "--template is used")
    bad = os.path.join(WORK, "bad.md.mustache")
    with open(bad, "w") as f:
        f.write("# {{title}}\n{{no_such_field}}\n")
    res = subprocess.run([SERVESTAT, "report", "-o", os.path.join(WORK, "bad"), "--template", bad, "--format", "md",
                          EXAMPLES], capture_output=True, text=True)
    check(res.returncode == 2 and "no_such_field" in res.stderr and "2" in res.stderr,
          f"a template tag the model lacks is an error naming it: {res.returncode} {res.stderr}")


def test_sweep_section():
    """The notebook's Experiment 3 table as input: a sweep section with its table, knees and charts."""
    table = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "sweep", "bad_unfair_exp3.csv")
    out = os.path.join(WORK, "sweep")
    report(out, table, extra=("--slo", "e2e=5"))
    md = read(os.path.join(out, "report.md"))
    check("## Sweep over concurrency" in md, "sweep section heading")
    # 200 requests per level: p99 needs 1,000 (†), p50 and p90 do not.
    # The table has no TTFT or output tokens: those columns are left out, not shown empty.
    check("| concurrency | req/s | success | e2e p50 | e2e p90 | e2e p99 | e2e p99 short prompts | e2e p99 long prompts |"
          in md, "sweep table columns: those with values")
    check("| 64 | 5.82 | 100.0% | 9.91 s | 16.76 s | 21.67 s† |" in md, "sweep table row for c=64")
    check("Saturation (throughput against load): knee at c=16" in md, "saturation knee in the report")
    check("Throughput saturates at ~5.9 req/s from c=16" in md, "saturation finding")
    plots = sorted(os.path.basename(p) for p in glob.glob(os.path.join(out, "plots", "sweep-1-*.svg")))
    check(plots == ["sweep-1-p99-vs-rps.svg", "sweep-1-percentiles.svg", "sweep-1-short-long-p99.svg",
                    "sweep-1-throughput.svg"], f"sweep charts: {plots}")
    for p in plots:
        res = subprocess.run(["xmllint", "--noout", os.path.join(out, "plots", p)], capture_output=True, text=True)
        check(res.returncode == 0, f"{p} is not well-formed XML: {res.stderr}")
    html = read(os.path.join(out, "report.html"))
    check("knee c=16" in html and "<script" not in html, "sweep charts inline in the HTML, no script")


def test_step_sweep_section():
    """A step-shaped sweep (tests/data/sweep/step_ttft.csv, synthetic: TTFT p99 0.22 s up to 40 req/s,
    3.30 s from 48): the jump reaches the summary and the findings, Kneedle's knee on the last level
    is withheld, and --degradation moves the threshold knee (d = 0.5: 0.21 × 1.5 = .315 s, first
    exceeded at 48; d = 0.02: .2142 s, exceeded at 16 by 0.22 s)."""
    table = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "sweep", "step_ttft.csv")
    out = os.path.join(WORK, "step")
    report(out, table)
    md = read(os.path.join(out, "report.md"))
    summary = md.split("## Summary", 1)[-1].split("\n## ", 1)[0]
    jump = "TTFT p99 rises 15× in one step, request\\_rate 40 → 48 (0.22 s → 3.3 s)"
    check(jump in summary, f"the jump is in the summary: {summary!r}")
    check("Time to first token (p99 against load): no knee reported" in md, "no unqualified TTFT knee")
    check("Threshold knee (more than 50% above request\\_rate=8's 210 ms): request\\_rate=48, 3.30 s" in md,
          "threshold knee beside Kneedle's")
    doc = json.loads(read(os.path.join(out, "report.json")))
    knees = {k["curve"]: k for k in doc["sweeps"][0]["knees"]}
    ttft = knees["ttft"]
    check(ttft["x"] is None and ttft["withheld_x"] == 64, f"TTFT knee withheld: {ttft}")
    check(ttft["curve_shape"]["kind"] == "jump" and ttft["curve_shape"]["jump"]["from"] == 40
          and ttft["curve_shape"]["jump"]["to"] == 48, f"TTFT curve shape: {ttft['curve_shape']}")
    check(ttft["threshold"]["degradation"] == 0.5 and ttft["threshold"]["load"] == 48, f"threshold: {ttft['threshold']}")
    check(knees["throughput"]["threshold"] is None and knees["throughput"]["caveat"] is None,
          f"throughput: no threshold, no caveat: {knees['throughput']}")
    check(any(f.startswith("TTFT p99 rises 15×") for f in doc["sweeps"][0]["findings"]), "jump finding in JSON")
    out2 = os.path.join(WORK, "step-d")
    report(out2, table, extra=("--degradation", "0.02"))
    doc = json.loads(read(os.path.join(out2, "report.json")))
    ttft = {k["curve"]: k for k in doc["sweeps"][0]["knees"]}["ttft"]
    check(ttft["threshold"]["degradation"] == 0.02 and ttft["threshold"]["load"] == 16, f"--degradation 0.02: {ttft['threshold']}")
    for bad in ["-1", "nan"]:
        res = subprocess.run([SERVESTAT, "report", "-o", os.path.join(WORK, "step-bad"), "--degradation", bad, table],
                             capture_output=True, text=True)
        check(res.returncode == 2 and "--degradation" in res.stderr, f"--degradation {bad}: exit {res.returncode} {res.stderr!r}")


def test_grid_section():
    """A synthetic Experiment-4-shaped grid: heatmaps and the sweet spot under --sweet-spot."""
    table = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "sweep", "grid_exp4.csv")
    out = os.path.join(WORK, "grid")
    report(out, table, extra=("--sweet-spot", "short.e2e.p99<=2"))
    md = read(os.path.join(out, "report.md"))
    check("## Grid: max\\_num\\_seqs × concurrency" in md, "grid section heading")
    check("**Sweet spot: max\\_num\\_seqs=32 at concurrency=32" in md, "sweet spot sentence")
    plots = sorted(os.path.basename(p) for p in glob.glob(os.path.join(out, "plots", "grid-1-*.svg")))
    check(plots == ["grid-1-long-p99.svg", "grid-1-p99.svg", "grid-1-rps.svg", "grid-1-short-p99.svg"],
          f"grid heatmaps: {plots}")
    for p in plots:
        res = subprocess.run(["xmllint", "--noout", os.path.join(out, "plots", p)], capture_output=True, text=True)
        check(res.returncode == 0, f"{p} is not well-formed XML: {res.stderr}")
    check(">1.93<" in read(os.path.join(out, "plots", "grid-1-short-p99.svg")), "cell values printed in the heatmap")


if __name__ == "__main__":
    sys.exit(run_tests(WORK, [test_report_files_and_formats, test_report_paints_in_chromium,
                              test_input_cannot_inject_markup, test_report_is_deterministic, test_templates_command,
                              test_sweep_section, test_step_sweep_section, test_grid_section]))
