#!/usr/bin/python3
"""The digest on the bundled live sweep (examples/live/bad vs examples/live/fair), checked as a reader
would meet it: a summary near the top of every report, at most twelve numbered findings before
"All findings", charts that overlay both sides, runs in natural order, no repeated section title,
and a report of 16 runs that fits its budget (report.md <= 800 lines, report.html <= 900 KB).

Usage: test_digest.py SERVESTAT_BINARY EXAMPLES_DIR WORK_DIR
"""
import json
import os
import re
import subprocess
import sys

from checks import check, run_tests

SERVESTAT, EXAMPLES, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
BAD, FAIR = os.path.join(EXAMPLES, "live", "bad"), os.path.join(EXAMPLES, "live", "fair")


def servestat(*args):
    res = subprocess.run([SERVESTAT, *args], capture_output=True, text=True)
    check(res.returncode == 0, f"servestat {' '.join(args)}: exit {res.returncode}: {res.stderr[:400]}")
    return res


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def summary_near_top(md, name, sentences_at_most=5):
    lines = md.splitlines()
    check("## Summary" in lines[:25], f"{name}: '## Summary' within the first 25 lines")
    if "## Summary" not in lines:
        return
    start = lines.index("## Summary") + 1
    bullets = []
    for line in lines[start:]:
        if line.startswith("## "):
            break
        if line.startswith("- "):
            bullets.append(line)
    # Caveats on run validity (docs/sweeps.md#run-validity) are shown beside the five, never instead of them.
    caveats = [b for b in bullets if re.match(r"- (Short runs:|Every run \(\d+\) is short|\d+ runs are short|"
                                               r"More than 1% of requests failed|Ended well before|The levels were not run)", b)]
    caveats += [b for b in bullets if b not in caveats and "a few slow requests set the run's duration" in b]
    others = len(bullets) - len(caveats)
    check(1 <= others <= sentences_at_most, f"{name}: 1 to {sentences_at_most} summary sentences besides caveats, got {others}")
    check(all(re.search(r"\d", b) for b in bullets), f"{name}: every summary sentence quotes a number")


def test_compare_leads_with_summary_and_twelve_findings():
    out = os.path.join(WORK, "compare")
    servestat("compare", "--slo", "e2e=0.5", "-o", out, BAD, FAIR)
    md = read(os.path.join(out, "compare.md"))
    summary_near_top(md, "compare.md")
    body = md.split("## All findings")[0]
    numbered = re.findall(r"^\d+\. ", body, re.M)
    check(0 < len(numbered) <= 12, f"compare.md: 1 to 12 numbered findings before 'All findings', got {len(numbered)}")
    check("## All findings" in md, "compare.md: the full list under 'All findings'")
    check("Trade-off on e2e latency: short prompts improved" in md.split("## Findings")[0],
          "compare.md: the summary names the short/long trade-off on e2e latency")
    check(re.search(r"Largest concurrency meeting e2e p95 ≤ 500 ms: ≈[\d.]+ → ≈?[\d.]+", md) is not None,
          "compare.md: the SLO capacity of both sides")
    # Overlays: both sides on one axis, each legend naming its side.
    overlays = [f for f in os.listdir(os.path.join(out, "plots")) if f.startswith("sweep-")]
    both = [f for f in overlays if "bad (before)" in read(os.path.join(out, "plots", f))
            and "fair (after)" in read(os.path.join(out, "plots", f))]
    check(len(both) >= 2, f"at least two charts overlay bad and fair: {both}")
    html = read(os.path.join(out, "compare.html"))
    check("<details>" in html and "All findings" in html, "compare.html: all findings collapsed")
    doc = json.loads(read(os.path.join(out, "compare.json")))
    check(len(doc["findings"]) == int(re.search(r"The (\d+) findings in full", md).group(1)),
          "compare.json keeps every finding")


def test_sweep_report_is_a_digest_within_budget():
    out = os.path.join(WORK, "sweep")
    servestat("report", "--slo", "e2e=0.5", "-o", out, BAD, FAIR)
    md = read(os.path.join(out, "report.md"))
    summary_near_top(md, "report.md")
    lines = md.splitlines()
    check(len(lines) <= 800, f"report.md has {len(lines)} lines (budget 800)")
    size = os.path.getsize(os.path.join(out, "report.html"))
    check(size <= 900 * 1024, f"report.html is {size} bytes (budget 900 KB)")
    headings = [l for l in lines if l.startswith("## ")]
    repeated = sorted({h for h in headings if headings.count(h) > 1})
    check(not repeated, f"no '## ' heading repeats: {repeated}")
    check(any("bad" in h for h in headings if h.startswith("## Sweep over")) and
          any("fair" in h for h in headings if h.startswith("## Sweep over")), f"each sweep is named by its runs: {headings}")
    # Natural order: the per-run detail lists c1, c2, c4, ... c64 for each side.
    runs = re.findall(r"^### (bad|fair)-c(\d+)$", md, re.M)
    for side in ("bad", "fair"):
        levels = [int(c) for s, c in runs if s == side]
        check(levels == sorted(levels) and len(levels) == 8, f"{side} runs in numeric order: {levels}")
    doc = json.loads(read(os.path.join(out, "report.json")))
    labels = [r["label"] for r in doc["runs"]]
    check(labels[:3] == ["bad-c1", "bad-c2", "bad-c4"], f"report.json runs in natural order: {labels[:4]}")
    check(len(doc["runs"]) == 16 and all("subsets" in r for r in doc["runs"]), "report.json keeps every run whole")
    html = read(os.path.join(out, "report.html"))
    check(html.count('<details class="run">') == 16, "report.html: each run's detail collapsed")


def test_trend_and_single_run_reports_lead_with_summary():
    out = os.path.join(WORK, "trend")
    servestat("report", "--trend", "-o", out, os.path.join(EXAMPLES, "weekly"))
    md = read(os.path.join(out, "trend.md"))
    summary_near_top(md, "trend.md")
    check("Since the previous run" in md.split("## Runs")[0], "trend.md: what changed since the previous run")
    single = os.path.join(WORK, "single")
    servestat("report", "-o", single, os.path.join(BAD, "bad-c16.jsonl"))
    md = read(os.path.join(single, "report.md"))
    summary_near_top(md, "report.md of one run")
    check("## Run bad-c16" in md and "## Per-run detail" not in md, "one run keeps its full section in the body")


def test_templates_written_before_the_digest_still_render():
    """A user's template copied from an earlier release ignores the new sections and renders as it did."""
    earlier = os.path.join(EXAMPLES, "..", "tests", "data", "templates")
    out = os.path.join(WORK, "earlier")
    for kind, args in (("report", [BAD, FAIR]), ("report", [os.path.join(BAD, "bad-c16.jsonl")])):
        for fmt in ("md", "html"):
            servestat("report", "--template", os.path.join(earlier, f"earlier-report.{fmt}.mustache"), "-o", out, *args)
            text = read(os.path.join(out, f"report.{fmt}"))
            check("bad-c16" in text and "Summary" not in text, f"earlier report.{fmt} renders runs and no digest")
    servestat("compare", "--template", os.path.join(earlier, "earlier-compare.md.mustache"), "-o", out, BAD, FAIR)
    check("c=64: bad-c64 → fair-c64" in read(os.path.join(out, "compare.md")), "earlier compare.md renders")
    servestat("report", "--trend", "--template", os.path.join(earlier, "earlier-trend.md.mustache"), "-o", out,
              os.path.join(EXAMPLES, "weekly"))
    check("week-5" in read(os.path.join(out, "trend.md")), "earlier trend.md renders")
    dumped = subprocess.run([SERVESTAT, "templates", "dump", "report.md"], capture_output=True, text=True)
    check(dumped.returncode == 0 and "## Summary" in dumped.stdout, "templates dump report.md gives the digest template")


def test_grouped_report_leads_with_its_groups():
    logs = os.path.join(EXAMPLES, "..", "..", "shared", "data", "llmperf-leaderboard", "raw_data", "individual")
    if not os.path.isdir(logs):
        print("skipped: ../shared/data is not beside the checkout")
        return
    out = os.path.join(WORK, "groups")
    servestat("report", "--group-by", r"model=_([0-9]+b)\.json$", "-o", out, logs)
    md = read(os.path.join(out, "report.md"))
    summary_near_top(md, "grouped report.md")
    first = md.split("## Summary")[1].strip().splitlines()[0]
    check("model 7b" in first and "model 70b" in first, f"the summary leads with the groups: {first}")


def test_committed_reports_lead_with_summary():
    reports = os.path.join(EXAMPLES, "..", "reports")
    for kind in ("demo/report.md", "sweep-live/report.md", "compare-live/compare.md", "compare-exp5/compare.md",
                 "trend-weekly/trend.md"):
        summary_near_top(read(os.path.join(reports, kind)), f"reports/{kind}")


if __name__ == "__main__":
    sys.exit(run_tests(WORK, [test_compare_leads_with_summary_and_twelve_findings,
                              test_sweep_report_is_a_digest_within_budget,
                              test_trend_and_single_run_reports_lead_with_summary,
                              test_templates_written_before_the_digest_still_render,
                              test_grouped_report_leads_with_its_groups,
                              test_committed_reports_lead_with_summary]))
