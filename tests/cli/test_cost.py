#!/usr/bin/python3
"""CLI tests for cost per token (issue 50 part 5): --cost-per-hour and --gpus on stats, report (and
--trend) and compare; USD per 1M output, total and good output tokens with their intervals in the JSON,
the stats line, the KPI table, sweeps, compare and the trend.

The logs are written here, so every figure is known by construction. Cost per 1M tokens is
price per second × 1e6 / (tokens / duration), the duration being the first send to the last end: at
$3.60/h on 2 GPUs ($0.002/s), 100 requests of 50 output tokens over 100 s (50 tok/s) cost $40 per 1M
output tokens. Batch-means intervals are taken from window rates written out below by the rule of
docs/metrics.md#cost-per-token; t quantiles from the published table.

Usage: test_cost.py SERVESTAT_BINARY WORK_DIR   (run by ctest)
"""
import json
import math
import os
import re
import statistics
import subprocess
import sys

from checks import as_json, check, close, run_tests

SERVESTAT, WORK = sys.argv[1], sys.argv[2]
T_975 = {2: 4.302653, 4: 2.776445, 9: 2.262157, 19: 2.093024}


def servestat(*args):
    return subprocess.run([SERVESTAT, *args], capture_output=True, text=True)


def write_log(path, label, requests, params=None, started_at="2026-01-12T00:00:00Z"):
    """requests: (t_sent, t_end, output_tokens) each, 10 prompt tokens, ok."""
    header = {"servestat": "log", "version": 1,
              "run": {"label": label, "started_at": started_at, "params": params or {}}}
    lines = [json.dumps(header)]
    for i, (sent, end, output) in enumerate(requests):
        lines.append(json.dumps({"id": str(i), "t_sched": sent, "t_sent": sent, "t_first": sent + 0.05, "t_end": end,
                                 "prompt_tokens": 10, "output_tokens": output, "status": "ok"}))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


def hundred_seconds(scale=1.0, streams=1):
    """Closed loop: each stream sends request i at i·scale s, ending 1·scale s later; 50 output tokens."""
    return [(scale * i, scale * (i + 1), 50) for _ in range(streams) for i in range(100)]


def batch_interval(ends, start, span, k, t, price_per_s):
    """The cost interval from k equal windows (a request's tokens in the window of its end; the last end
    in the last window), Student's t over the window rates, mapped through price / rate."""
    width = span / k
    tokens = [0.0] * k
    for end, n in ends:
        tokens[min(k - 1, max(0, int(math.floor((end - start) / width))))] += n
    rates = [x / width for x in tokens]
    m, s = statistics.mean(rates), statistics.stdev(rates)
    half = t * s / math.sqrt(k)
    return [price_per_s * 1e6 / (m + half), price_per_s * 1e6 / (m - half)]


def test_three_figures_in_the_json():
    log = write_log(os.path.join(WORK, "run", "run.jsonl"), "run",
                    [(i, i + (1.0 if i % 2 else 0.5), 50) for i in range(100)])
    # $3.60 × 2 GPUs = $7.20/h = $0.002/s. Output 5,000 tokens / 100 s = 50 tok/s: $40. Total 6,000 / 100 s:
    # $33.33. Good (e2e ≤ 0.75 s: the 50 even requests): 2,500 / 100 s = 25 tok/s: $80.
    doc = as_json(servestat("stats", "--json", "--cost-per-hour", "3.60", "--gpus", "2", "--slo", "e2e=0.75", log),
                  "stats --json with a price")
    run = (doc.get("runs") or [{}])[0]
    cost = run.get("cost") or {}
    check(cost.get("price_per_hour") == 3.6 and cost.get("gpus") == 2 and close(cost.get("deployment_per_hour"), 7.2),
          f"the price: {cost}")
    out, total, good = cost.get("per_1m_output", {}), cost.get("per_1m_total", {}), cost.get("per_1m_good_output") or {}
    check(close(out.get("value"), 40.0, 1e-12), f"$40 per 1M output tokens: {out}")
    check(close(total.get("value"), 2000 / 60, 1e-12), f"$33.33 per 1M tokens: {total}")
    check(close(good.get("value"), 80.0, 1e-12), f"$80 per 1M good output tokens: {good}")
    check(close(out.get("value", 0) * run.get("output_tps", 0), 2000.0, 1e-12), "cost × output_tps = $0.002 × 1e6")
    # 100 requests: 20 windows of 5 s. Ends at i + 0.5 (even i) and i + 1 (odd i).
    ends = [(i + (1.0 if i % 2 else 0.5), 50) for i in range(100)]
    expected = batch_interval(ends, 0, 100, 20, T_975[19], 0.002)
    check(out.get("windows") == 20 and close(out.get("window_seconds"), 5.0), f"20 windows of 5 s: {out}")
    ci = out.get("ci") or [None, None]
    check(close(ci[0], expected[0], 1e-6) and close(ci[1], expected[1], 1e-6), f"interval {expected}: {ci}")
    check(out.get("method", "").startswith("batch means over 20 windows of 5 s; lag-1 autocorrelation "), out.get("method"))
    check(out.get("why") is None, "an interval needs no reason")
    # The good requests: 50, so 10 windows of 10 s.
    check(good.get("windows") == 10, f"good tokens in 10 windows: {good.get('windows')}")


def test_no_price_no_cost():
    log = write_log(os.path.join(WORK, "plain", "plain.jsonl"), "plain", hundred_seconds())
    doc = as_json(servestat("stats", "--json", log), "stats --json without a price")
    check((doc.get("runs") or [{}])[0].get("cost", "absent") is None, "cost is null without --cost-per-hour")
    text = servestat("stats", log).stdout
    check("cost at" not in text, "no cost line without a price")
    out = os.path.join(WORK, "plain-report")
    res = servestat("report", "-o", out, log)
    check(res.returncode == 0, f"report: {res.stderr}")
    with open(os.path.join(out, "report.md")) as f:
        check("$ / 1M" not in f.read(), "no cost column without a price")


def test_too_few_requests_and_no_good_token():
    log = write_log(os.path.join(WORK, "few", "few.jsonl"), "few", [(i, i + 1.0, 50) for i in range(24)])
    doc = as_json(servestat("stats", "--json", "--cost-per-hour", "3.6", "--slo", "e2e=0.5", log), "stats of 24 requests")
    cost = (doc.get("runs") or [{}])[0].get("cost") or {}
    out = cost.get("per_1m_output", {})
    check(close(out.get("value"), 20.0), f"24 × 50 tokens over 24 s at $0.001/s: $20: {out}")
    check(out.get("ci") is None and out.get("windows") is None, f"no interval: {out}")
    check(out.get("why") == "24 successful requests with output tokens ended: batch means needs 25 (5 per window, "
                            "5 windows at the least)", f"the reason: {out.get('why')}")
    good = cost.get("per_1m_good_output") or {}
    check(good.get("value") is None and good.get("why") == "no request met every SLO", f"no good token: {good}")
    text = servestat("stats", "--cost-per-hour", "3.6", "--slo", "e2e=0.5", log).stdout
    check("per 1M good output tokens none (no request met every SLO)" in text, "the stats line says why")


def test_stats_line():
    log = write_log(os.path.join(WORK, "line", "line.jsonl"), "line", hundred_seconds())
    text = servestat("stats", "--cost-per-hour", "3.60", "--gpus", "2", log).stdout
    check("  cost at $7.20/h (2 GPUs × $3.60/h): $40.00 per 1M output tokens (" in text, f"the cost line:\n{text}")
    check("95% CI by batch means over 20 windows of 5 s" in text, "the method on the line")


def test_usage_errors():
    log = write_log(os.path.join(WORK, "usage", "usage.jsonl"), "usage", hundred_seconds())
    for args, option in [(["--gpus", "2"], "--gpus"), (["--cost-per-hour", "0"], "--cost-per-hour"),
                         (["--cost-per-hour=-1"], "--cost-per-hour"), (["--cost-per-hour", "inf"], "--cost-per-hour"),
                         (["--cost-per-hour", "nan"], "--cost-per-hour"),
                         (["--cost-per-hour", "3.6", "--gpus", "0"], "--gpus"),
                         (["--cost-per-hour", "3.6", "--gpus=-1"], "--gpus")]:
        for command in (["stats"], ["report", "-o", os.path.join(WORK, "usage-report")], ["compare", log]):
            res = servestat(*command, *args, log)
            check(res.returncode == 2, f"{command[0]} {args}: exit {res.returncode}, stderr {res.stderr!r}")
            check(option in res.stderr, f"{command[0]} {args}: the error names {option}: {res.stderr!r}")
    res = servestat("summarize", "--cost-per-hour", "3.6", "-o", os.path.join(WORK, "s.ssum.json"), log)
    check(res.returncode == 2, "summarize takes no price")


def test_report_kpi_columns():
    log = write_log(os.path.join(WORK, "kpi", "kpi.jsonl"), "kpi", hundred_seconds())
    out = os.path.join(WORK, "kpi-report")
    res = servestat("report", "--cost-per-hour", "3.60", "--gpus", "2", "--slo", "e2e=1.5", "-o", out, log)
    check(res.returncode == 0, f"report: {res.stderr}")
    with open(os.path.join(out, "report.md")) as f:
        md = f.read()
    check("| $ / 1M out | $ / 1M good out |" in md, "the KPI table's cost columns")
    # Every request is good (e2e 1 s ≤ 1.5 s): both figures are $40.
    # Markdown values escape "$" (GitHub reads "$40.00 … $40.00" as a formula); the headers are the template's.
    check(re.search(r"\| \\\$40\.00 \([0-9.]+–[0-9.]+\) \| \\\$40\.00 \([0-9.]+–[0-9.]+\) \|", md) is not None,
          "the KPI row's costs with their intervals")
    check(r"\$ / 1M out: USD per 1M output tokens at \$7.20/h (2 GPUs × \$3.60/h)" in md, "the note names the price")
    with open(os.path.join(out, "report.html")) as f:
        check("<th>$ / 1M good out</th>" in f.read(), "the HTML KPI table's column")
    with open(os.path.join(out, "report.json")) as f:
        doc = json.load(f)
    check(close(doc["runs"][0]["cost"]["per_1m_output"]["value"], 40.0), "report.json has the run's cost")


def sweep_folder():
    """c=1: one stream, 100 s, every request good. c=2: two streams, 100 s, all good. c=4: one stream of
    e2e 1 s and three of e2e 2 s (50 requests each), 100 s; only the first stream meets e2e ≤ 1.5 s."""
    folder = os.path.join(WORK, "sweep")
    write_log(os.path.join(folder, "sw-c1.jsonl"), "sw-c1", hundred_seconds(), {"concurrency": 1})
    write_log(os.path.join(folder, "sw-c2.jsonl"), "sw-c2", hundred_seconds(streams=2), {"concurrency": 2})
    slow = [(2.0 * i, 2.0 * (i + 1), 50) for _ in range(3) for i in range(50)]
    write_log(os.path.join(folder, "sw-c4.jsonl"), "sw-c4", hundred_seconds() + slow, {"concurrency": 4})
    return folder


def test_sweep_column_sentence_and_chart():
    folder = sweep_folder()
    # At $0.001/s: good tokens 50, 100 and 50 tok/s, so $20, $10, $20 per 1M good output tokens; c=4's output
    # rate is 12,500 / 100 s = 125 tok/s ($8), but 40% of its tokens are good against 100% at c=2.
    doc = as_json(servestat("stats", "--json", "--cost-per-hour", "3.6", "--slo", "e2e=1.5", folder), "stats of the sweep")
    points = (doc.get("sweeps") or [{}])[0].get("points", [])
    goods = [((p.get("cost") or {}).get("per_1m_good_output") or {}).get("value") for p in points]
    check(len(goods) == 3 and all(close(g, e) for g, e in zip(goods, [20.0, 10.0, 20.0])), f"per level: {goods}")
    c4 = (points[2].get("cost") or {}).get("per_1m_output", {}) if len(points) == 3 else {}
    check(close(c4.get("value"), 8.0), f"c=4 per output token: {c4}")
    out = os.path.join(WORK, "sweep-report")
    res = servestat("report", "--cost-per-hour", "3.6", "--slo", "e2e=1.5", "-o", out, folder)
    check(res.returncode == 0, f"report of the sweep: {res.stderr}")
    with open(os.path.join(out, "report.md")) as f:
        md = f.read()
    check("| $ / 1M good out |" in md, "the sweep table's cost column")
    sentence = re.search(r"Cost per 1M good output tokens is lowest at c=2: \\\$10\.00 \(([0-9.]+)–([0-9.]+)\); at c=4 "
                         r"it is \\\$20\.00 \([0-9.]+–[0-9.]+\) as fewer requests meet the SLO\.", md)
    check(sentence is not None, "the sweep's cost sentence")
    if sentence:
        check(float(sentence.group(1)) < 10 < float(sentence.group(2)), "its interval holds the value")
    plots = os.listdir(os.path.join(out, "plots"))
    check(any(p.endswith("-cost-per-good-token.svg") for p in plots), f"the chart: {plots}")
    text = servestat("stats", "--cost-per-hour", "3.6", "--slo", "e2e=1.5", folder).stdout
    check("$/1M good out" in text and "Cost per 1M good output tokens is lowest at c=2" in text, "stats' sweep table")
    plain = os.path.join(WORK, "sweep-plain")
    servestat("report", "--slo", "e2e=1.5", "-o", plain, folder)
    with open(os.path.join(plain, "report.md")) as f:
        check("Cost per" not in f.read(), "no cost sentence without a price")
    check(not any("cost" in p for p in os.listdir(os.path.join(plain, "plots"))), "no cost chart without a price")


def test_between_runs():
    # Three runs of one configuration, 100 requests of 50 tokens over 100, 110 and 90 s: 50, 45.45 and
    # 55.56 tok/s, so $20, $22 and $18 per 1M at $0.001/s: mean 20, std 2, interval 20 ± 4.302653 × 2 / √3.
    folder = os.path.join(WORK, "replicates")
    for rep, scale in enumerate((1.0, 1.1, 0.9), start=1):
        write_log(os.path.join(folder, f"rep{rep}.jsonl"), f"rep{rep}", hundred_seconds(scale), {"max_tokens": 50},
                  started_at=f"2026-01-1{rep}T00:00:00Z")
    doc = as_json(servestat("stats", "--json", "--cost-per-hour", "3.6", folder), "stats of replicates")
    groups = doc.get("replicates") or [{}]
    cost = (groups[0].get("cost") or {}).get("per_1m_output", {})
    half = T_975[2] * 2 / math.sqrt(3)
    ci = cost.get("ci") or [None, None]
    check(close(cost.get("value"), 20.0, 1e-9), f"mean of the runs' costs: {cost}")
    check(close(ci[0], 20 - half, 1e-6) and close(ci[1], 20 + half, 1e-6), f"Student's t over runs: {ci}")
    check(cost.get("method") == "between 3 runs" and cost.get("runs") == 3, f"the method: {cost}")
    # The trend over the same three runs: a column of the runs table.
    out = os.path.join(WORK, "trend")
    res = servestat("report", "--trend", "--cost-per-hour", "3.6", "-o", out, folder)
    check(res.returncode == 0, f"report --trend: {res.stderr}")
    with open(os.path.join(out, "trend.md")) as f:
        md = f.read()
    check("| ttft p99 | $ / 1M out |" in md, "the trend's runs table has the cost column")
    check(re.search(r"\| \\\$22\.00 \([0-9.]+–[0-9.]+\) \|", md) is not None, "rep2's cost in the trend")
    with open(os.path.join(out, "trend.json")) as f:
        trend = json.load(f)
    check(close(trend["runs"][0]["cost"]["per_1m_output"]["value"], 20.0), "trend.json carries each run's cost")
    # Compare with three runs a side: each side's cost is between its runs. After runs twice as fast:
    # $10, $11, $9, so 10 ± 4.302653 × 1 / √3, apart from before's 20 ± 4.302653 × 2 / √3: improved.
    faster = os.path.join(WORK, "replicates-after")
    for rep, scale in enumerate((0.5, 0.55, 0.45), start=1):
        write_log(os.path.join(faster, f"rep{rep}.jsonl"), f"rep{rep}", hundred_seconds(scale), {"max_tokens": 50},
                  started_at=f"2026-01-2{rep}T00:00:00Z")
    doc = as_json(servestat("compare", "--json", "--cost-per-hour", "3.6", folder, faster), "compare of replicates")
    pair = (doc.get("pairs") or [{}])[0]
    cost = pair.get("cost") or {}
    before = (cost.get("before") or {}).get("per_1m_output", {})
    after = (cost.get("after") or {}).get("per_1m_output", {})
    check(doc.get("pairing") == "replicates", f"paired as replicates: {doc.get('pairing')}")
    check(before.get("method") == "between 3 runs" and close(before.get("value"), 20.0), f"before between runs: {before}")
    after_ci = after.get("ci") or [None, None]
    check(close(after.get("value"), 10.0) and close(after_ci[0], 10 - T_975[2] / math.sqrt(3), 1e-6),
          f"after between runs: {after}")
    verdict = next((c["verdict"] for c in cost.get("changes", []) if c["name"] == "per_1m_output"), None)
    check(verdict == "improved", f"intervals apart: {verdict}")


def test_compare():
    before = write_log(os.path.join(WORK, "cmp", "before.jsonl"), "before", hundred_seconds())
    after = write_log(os.path.join(WORK, "cmp", "after.jsonl"), "after", hundred_seconds(0.5))
    # Before 50 tok/s ($20 per 1M at $0.001/s), after 100 tok/s ($10): the intervals lie apart.
    doc = as_json(servestat("compare", "--json", "--cost-per-hour", "3.6", before, after), "compare --json with a price")
    pair = (doc.get("pairs") or [{}])[0]
    changes = (pair.get("cost") or {}).get("changes", [])
    out = next((c for c in changes if c["name"] == "per_1m_output"), {})
    check(close(out.get("before"), 20.0) and close(out.get("after"), 10.0), f"before and after: {out}")
    check(close(out.get("change"), -10.0) and close(out.get("relative_change"), -0.5), f"the change: {out}")
    check(out.get("verdict") == "improved", f"apart intervals: improved: {out}")
    check(out.get("before_ci") is not None and out.get("after_ci") is not None, "both intervals")
    check(all(c["name"] != "per_1m_output" for c in pair.get("changes", [])), "not among the gated statistics")
    table = servestat("compare", "--cost-per-hour", "3.6", before, after).stdout
    row = re.search(r"\$ / 1M output tokens +\$20\.00 \([0-9.]+–[0-9.]+\) +\$10\.00 \([0-9.]+–[0-9.]+\) +−\$10\.00 "
                    r"\(−50\.0%\) +– +– +improved", table)
    check(row is not None, f"the table's cost row:\n{table}")
    same = as_json(servestat("compare", "--json", "--cost-per-hour", "3.6", before, before), "compare with itself")
    verdicts = [c["verdict"] for c in ((same.get("pairs") or [{}])[0].get("cost") or {}).get("changes", [])]
    check(verdicts == ["not_shown_to_differ", "not_shown_to_differ"], f"overlapping intervals: {verdicts}")
    plain = as_json(servestat("compare", "--json", before, after), "compare without a price")
    check((plain.get("pairs") or [{}])[0].get("cost", "absent") is None, "no cost without a price")
    out_dir = os.path.join(WORK, "cmp-report")
    res = servestat("compare", "--cost-per-hour", "3.6", "-o", out_dir, before, after)
    check(res.returncode == 0, f"compare -o: {res.stderr}")
    with open(os.path.join(out_dir, "compare.md")) as f:
        md = f.read()
    check("| $ / 1M out |" in md, "compare's KPI table has the cost column")
    check("not shown to differ" in md or "improved" in md, "the cost verdict in the report")


if __name__ == "__main__":
    sys.exit(run_tests(WORK, [test_three_figures_in_the_json, test_no_price_no_cost, test_too_few_requests_and_no_good_token,
                              test_stats_line, test_usage_errors, test_report_kpi_columns,
                              test_sweep_column_sentence_and_chart, test_between_runs, test_compare]))
