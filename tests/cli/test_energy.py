#!/usr/bin/python3
"""CLI tests for energy per token (issue 50 part 6): the GPUs' energy from the DCGM series on a run's
/metrics timelines (or --power-metric) → J per output token, output tokens per J and J per good output
token, with their intervals, in stats (JSON and text), the report's KPI table, compare and the trend.

The logs and timelines are written here, so every figure is known by construction: 25 requests end in
five windows of 1 s (5 per window, 8, 12, 10, 10 and 10 output tokens each: 40, 60, 50, 50, 50 per
window), and a failed request spans the run, [0, 5] s. A DCGM energy counter rising at 150 W gives
750 J over the run, 3 J per output token; the batch-means interval of the ratio is worked out below by
the rule of docs/metrics.md#energy-per-token, t quantiles from the published table.

Usage: test_energy.py SERVESTAT_BINARY WORK_DIR   (run by ctest)
"""
import json
import math
import os
import subprocess
import sys

from checks import as_json, check, close, run_tests, start_simulator

SERVESTAT, WORK = sys.argv[1], sys.argv[2]
T_975_DF4 = 2.776445
WINDOW_TOKENS = [40, 60, 50, 50, 50]


def servestat(*args):
    return subprocess.run([SERVESTAT, *map(str, args)], capture_output=True, text=True, timeout=300)


def write_run(folder, label, watts, series="DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", timeline="metrics", params=None):
    """The five-window log X.jsonl and X.<timeline>-timeline.jsonl with `series` at `watts`, sampled each second."""
    os.makedirs(folder, exist_ok=True)
    log = os.path.join(folder, label + ".jsonl")
    lines = [json.dumps({"servestat": "log", "version": 1, "run": {"label": label, "params": params or {}}})]
    n = 0
    for w, per_request in enumerate([8, 12, 10, 10, 10]):
        for j in range(5):
            end = w + 0.1 + 0.2 * j
            lines.append(json.dumps({"id": str(n), "t_sched": float(w), "t_sent": float(w), "t_first": w + 0.05,
                                     "t_end": end, "prompt_tokens": 10, "output_tokens": per_request, "status": "ok"}))
            n += 1
    lines.append(json.dumps({"id": "failed", "t_sched": 0.0, "t_sent": 0.0, "t_end": 5.0, "status": "error",
                             "error": "HTTP 500"}))
    with open(log, "w") as f:
        f.write("\n".join(lines) + "\n")
    counter = series == "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"
    samples = [json.dumps({"servestat": "metrics-timeline", "version": 1, "url": "http://gpu:9400/metrics",
                           "interval": 1.0, "timeout": 2.0})]
    for t in range(6):
        value = 5e6 + 1000 * watts * t if counter else float(watts)
        line = {"t": float(t), "took": 0.001, "values": {series: value}}
        if t == 0:
            line["types"] = {series: "counter" if counter else "gauge"}
        samples.append(json.dumps(line))
    with open(os.path.join(folder, f"{label}.{timeline}-timeline.jsonl"), "w") as f:
        f.write("\n".join(samples) + "\n")
    return log


def expected_interval(watts):
    """J per output token and its 95% interval: window energies `watts` J each against WINDOW_TOKENS."""
    ratio = 5 * watts / sum(WINDOW_TOKENS)
    residuals = [watts - ratio * n for n in WINDOW_TOKENS]
    s = math.sqrt(sum(d * d for d in residuals) / 4)
    half = T_975_DF4 * s / (math.sqrt(5) * (sum(WINDOW_TOKENS) / 5))
    return ratio, ratio - half, ratio + half


def test_counter_on_the_metrics_timeline():
    log = write_run(os.path.join(WORK, "counter"), "run-a", 150)
    stats = as_json(servestat("stats", "--json", log), "stats --json")
    energy = stats["runs"][0]["energy"]
    check(energy is not None, f"an energy from the counter: {energy}")
    if not energy:
        return
    value, low, high = expected_interval(150)  # 3 J per token, (2.473, 3.527)
    check(close(energy["joules"], 750), f"150 W over 5 s = 750 J: {energy['joules']}")
    check(close(energy["mean_watts"], 150), f"mean power 150 W: {energy['mean_watts']}")
    figure = energy["j_per_output_token"]
    check(close(figure["value"], value), f"J per output token {value}: {figure['value']}")
    # t from a 7-digit table: the ends agree to 1e-6.
    check(close(figure["ci"][0], low, 1e-6) and close(figure["ci"][1], high, 1e-6), f"interval ({low}, {high}): {figure['ci']}")
    check(figure["windows"] == 5, f"five windows of 1 s: {figure}")
    inverse = energy["output_tokens_per_j"]
    check(close(inverse["value"], 1 / value) and close(inverse["ci"][0], 1 / high, 1e-6) and close(inverse["ci"][1], 1 / low, 1e-6),
          f"tokens per J, the inverse with its ends swapped: {inverse}")
    check(energy["source"].startswith("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION (mJ counter) on run-a.metrics-timeline.jsonl"),
          f"the source names the series and file: {energy['source']}")
    check(energy["j_per_good_output_token"] is None, "no SLOs, no good-token figure")

    text = servestat("stats", log)
    check(f"energy: 3.00 J per output token ({low:.2f}–{high:.2f})" in text.stdout,
          f"the stats line gives the figure and its interval: {text.stdout!r}")


def test_good_tokens_and_the_kpi_table():
    log = write_run(os.path.join(WORK, "good"), "run-a", 150)
    # e2e of request j in a window is 0.1 + 0.2 j s: e2e <= 0.4 keeps two per window, 100 output tokens.
    stats = as_json(servestat("stats", "--json", "--slo", "e2e=0.4", log), "stats --slo")
    good = stats["runs"][0]["energy"]["j_per_good_output_token"]
    check(close(good["value"], 7.5), f"750 J / 100 good output tokens = 7.5 J: {good}")
    check(good["ci"] is None and "10 requests that met every SLO ended" in (good["why"] or ""),
          f"ten good requests are too few for windows, and it says so: {good}")

    out = os.path.join(WORK, "good", "report")
    res = servestat("report", log, "--slo", "e2e=0.4", "-o", out)
    check(res.returncode == 0, f"report: {res.stderr}")
    with open(os.path.join(out, "report.md")) as f:
        md = f.read()
    check("run-a: 26 requests" in md and "; 3.00 J (2.47–3.53) per output token at 150 W." in md,
          "the summary's run sentence ends with the energy per token and the mean power")
    check("J / out tok" in md and "J / good out tok" in md, "the KPI table has the energy columns")
    check("3.00 J (2.47–3.53)" in md, "the KPI cell shows the figure with its interval")
    check("7.50 J" in md, "and the good-token figure")
    check("150 W on average, from DCGM\\_FI\\_DEV\\_TOTAL\\_ENERGY\\_CONSUMPTION" in md,
          "the note names the source and mean power (markdown escapes the underscores)")
    with open(os.path.join(out, "report.html")) as f:
        html = f.read()
    check("<th>J / out tok</th>" in html, "the html KPI table too")


def test_power_metric_and_the_power_timeline():
    folder = os.path.join(WORK, "named")
    log = write_run(folder, "run-a", 100, series="nvidia_smi_power_draw_watts", timeline="power")
    plain = as_json(servestat("stats", "--json", log), "stats without --power-metric")
    check(plain["runs"][0]["energy"] is None, "a series servestat does not know is not guessed at")
    named = as_json(servestat("stats", "--json", "--power-metric", "nvidia_smi_power_draw_watts", log), "--power-metric")
    energy = named["runs"][0]["energy"]
    check(energy and close(energy["j_per_output_token"]["value"], 2), f"100 W over 5 s / 250 tokens = 2 J: {energy}")
    check(energy and "run-a.power-timeline.jsonl" in energy["source"], f"read from the power timeline: {energy}")
    missing = as_json(servestat("stats", "--json", "--power-metric", "no_such_gauge", log), "--power-metric missing")
    m = missing["runs"][0]["energy"]
    check(m and m["joules"] is None and m["why"] == "--power-metric no_such_gauge: no scrape of the run's timelines has it",
          f"a name no scrape has gives no energy, and why: {m}")


def test_compare_before_and_after():
    folder = os.path.join(WORK, "compare")
    before = write_run(os.path.join(folder, "before"), "before", 150)
    after = write_run(os.path.join(folder, "after"), "after", 100)
    res = servestat("compare", before, after, "--json")
    doc = as_json(res, "compare --json")
    energy = doc["pairs"][0]["energy"] if doc.get("pairs") else None
    check(energy is not None, f"compare.json's pair has an energy object: {energy}")
    if not energy:
        return
    change = energy["changes"][0]
    # Before 3 J (2.47–3.53), after 2 J (1.65–2.35): the intervals do not overlap.
    _, _, after_high = expected_interval(100)
    _, before_low, _ = expected_interval(150)
    check(after_high < before_low, "the worked intervals do not overlap")
    check(change["name"] == "per_output_token" and close(change["before"], 3) and close(change["after"], 2)
          and change["verdict"] == "improved", f"3 → 2 J per token, improved: {change}")
    out = os.path.join(folder, "report")
    res = servestat("compare", before, after, "-o", out)
    check(res.returncode == 0, f"compare report: {res.stderr}")
    with open(os.path.join(out, "compare.md")) as f:
        md = f.read()
    check("J / output token" in md and "−1.00 J (−33.3%)" in md, "the run-level row before → after")
    summary = md.split("## Summary", 1)[-1].split("\n|", 1)[0]
    check("- Energy per output token: 3.00 J (2.47–3.53) → 2.00 J (1.65–2.35), −33.3%, improved: the intervals do not "
          "overlap." in summary, f"the summary tells the energy change, which no latency statistic shows: {summary!r}")
    check("- No latency, throughput or success statistic changed significantly" in summary,
          f"and does not say that no statistic changed: {summary!r}")


def test_sweep_sentence_and_chart():
    folder = os.path.join(WORK, "sweep")
    for c, watts in [(1, 100), (2, 150), (4, 300)]:
        write_run(folder, f"c{c}", watts, params={"concurrency": c})
    out = os.path.join(folder, "report")
    res = servestat("report", folder, "-o", out)
    check(res.returncode == 0, f"report of the sweep: {res.stderr[-400:]}")
    with open(os.path.join(out, "report.md")) as f:
        md = f.read()
    # 100, 150 and 300 W over the same 250 tokens in 5 s: 2, 3 and 6 J per token.
    check("Energy per output token is lowest at c=1: 2.00 J (1.65–2.35); at c=4 it is 6.00 J (4.95–7.05)." in md,
          "the sweep says where the energy per token is lowest, and what it is at the top load")
    plots = os.listdir(os.path.join(out, "plots"))
    check(any(p.endswith("-energy-per-token.svg") for p in plots), f"the chart of energy against load: {plots}")


def timeline_value(file, name, at):
    """The counter `name` on the timeline `file` at time `at`: linear between samples, and beyond the first
    or last at the slope of the nearest pair (docs/metrics.md#energy-per-token)."""
    with open(file) as f:
        points = [(s["t"], s["values"][name]) for s in map(json.loads, list(f)[1:]) if name in s.get("values", {})]
    if len(points) < 2:
        return None
    pairs = list(zip(points, points[1:]))
    (t0, v0), (t1, v1) = next(((a, b) for a, b in pairs if a[0] <= at <= b[0]), pairs[0] if at < points[0][0] else pairs[-1])
    return v0 + (v1 - v0) * (at - t0) / (t1 - t0)


def test_against_the_simulator():
    """`servestat load --scrape-interval` against `servestat simulate --gpu-power`: DCGM's counter on the
    server's /metrics timeline gives every run an energy with its interval, equal to the counter's rise
    over the run's span divided by the log's output tokens."""
    folder = os.path.join(WORK, "live")
    os.makedirs(folder, exist_ok=True)
    workload, log = os.path.join(folder, "w.jsonl"), os.path.join(folder, "run.jsonl")
    res = servestat("workload", "--preset", "mix_70_30", "-n", 60, "--seed", 5, "-o", workload)
    check(res.returncode == 0, f"workload: {res.stderr[-300:]}")
    with open(os.path.join(folder, "simulator.log"), "w") as sim_log:
        proc, port = start_simulator(SERVESTAT, sim_log, "--time-scale", "20", "--gpu-power", "60:300", "--gpus", "2")
        try:
            res = servestat("load", "--url", f"http://127.0.0.1:{port}", "-q", "--workload", workload, "--concurrency", "8",
                            "-n", "60", "--heuristic-tokens", "--scrape-interval", "0.05", "-o", log)
        finally:
            proc.kill()
            proc.wait()
    check(res.returncode == 0, f"load: exit {res.returncode}: {res.stderr[-600:]}")
    stats = as_json(servestat("stats", "--json", "--slo", "e2e=10", log), "stats --json")
    energy = stats["runs"][0]["energy"] if stats.get("runs") else None
    check(energy and energy["joules"] is not None, f"an energy from the simulator's counter: {energy}")
    if not energy or energy["joules"] is None:
        return
    check(energy["source"] == "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION (mJ counter, summed over 2 GPUs) on "
                              "run.metrics-timeline.jsonl", f"the counter of both GPUs, not the gauge: {energy['source']}")
    with open(log) as f:
        lines = [json.loads(line) for line in f if line.strip()][1:]
    first = min(r["t_sent"] for r in lines)
    last = max(r["t_end"] for r in lines)
    output = sum(r["output_tokens"] for r in lines if r["status"] == "ok")
    timeline = os.path.join(folder, "run.metrics-timeline.jsonl")
    start, end = (timeline_value(timeline, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", t) for t in (first, last))
    check(start is not None and end is not None, f"the timeline's samples span the run {first}–{last}")
    if start is None or end is None:
        return
    joules = (end - start) / 1000
    check(close(energy["joules"], joules, 1e-6), f"the counter's rise over the run, {joules} J: {energy['joules']}")
    check(close(energy["j_per_output_token"]["value"], joules / output, 1e-6),
          f"{joules} J / {output} output tokens: {energy['j_per_output_token']}")
    # Two GPUs of 60 to 300 W each: the mean lies between 120 and 600 W.
    check(120 <= energy["mean_watts"] <= 600, f"mean power within the model's bounds: {energy['mean_watts']}")
    figure = energy["j_per_output_token"]
    check(figure["ci"] is not None and figure["ci"][0] <= figure["value"] <= figure["ci"][1],
          f"an interval around the value by batch means: {figure}")
    good = energy["j_per_good_output_token"]
    check(good is not None and good["value"] is not None and good["value"] >= figure["value"],
          f"J per good output token, at least J per output token: {good}")


if __name__ == "__main__":
    sys.exit(run_tests(WORK, [test_counter_on_the_metrics_timeline, test_good_tokens_and_the_kpi_table,
                              test_power_metric_and_the_power_timeline, test_compare_before_and_after,
                              test_sweep_sentence_and_chart, test_against_the_simulator]))
