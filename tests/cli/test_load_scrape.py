#!/usr/bin/python3
"""CLI tests for `servestat load --scrape-interval S`: the server's /metrics sampled while the run goes,
into X.metrics-timeline.jsonl beside the log X.jsonl (docs/load.md, "Watching the server"), and what
the commands that read the log make of it.

Against `servestat simulate --time-scale 20 --max-num-seqs 4 --kv-cache-tokens 12000`, a closed loop
of 24 clients on long prompts keeps 20 requests waiting on the server and fills its KV cache: the
file's times increase from 0 and lie within the run, its names include vLLM's running and waiting
gauges, waiting is above 0 at some sample and running never above --max-num-seqs. The report charts
them, preemptions and KV-cache usage on the p99 timeline's time axis, and its summary says when the
queue built up and the cache filled, with the times and counts recomputed here from the file. A run
killed with SIGKILL keeps the samples so far; a server that cannot be reached leaves gaps, counted;
a bad line names the file, the line and the field; a sweep writes a timeline per level and a report
of its folder lists none of them as a run or as a file passed over. With `--power-url` a second
simulator's /metrics stands in for NVIDIA's DCGM exporter: its samples go to X.power-timeline.jsonl
in the same format, counted in run.end.power_timeline and noted by stats; both timelines close with a
scrape at or after the last request's end; --power-url without --scrape-interval is a usage error. No
assertion depends on timing beyond a sanity bound on the clock's base.

Usage: test_load_scrape.py SERVESTAT_BINARY WORK_DIR [SHARED_DATA_DIR]   (run by ctest)
"""
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time

import test_load as base
from checks import check, run_tests

SERVESTAT, WORK = sys.argv[1], sys.argv[2]
MAX_NUM_SEQS = 4  # the simulator's limit on running requests
INTERVAL = 0.1


def path(name):
    return os.path.join(WORK, name)


def servestat(*args, timeout=90):
    return base.servestat(*args, timeout=timeout)


def read_lines(file):
    with open(file) as f:
        return [json.loads(line) for line in f if line.strip()]


def timeline_of(log):
    return log[:-len(".jsonl")] + ".metrics-timeline.jsonl"


def power_timeline_of(log):
    return log[:-len(".jsonl")] + ".power-timeline.jsonl"


def long_workload():
    w = path("long.jsonl")
    if not os.path.exists(w):
        r = servestat("workload", "--preset", "long_only", "-n", 16, "--seed", 3, "-o", w)
        check(r.returncode == 0, f"workload: {r.stderr[-400:]}")
    return w


def first_queue(samples):
    """The first sample where waiting > 0 there and at the next sample: (t, index); and the peak (value, t)."""
    waiting = [(s["t"], s["values"]["vllm:num_requests_waiting"]) for s in samples]
    start = next(((t, i) for i, (t, w) in enumerate(waiting[:-1]) if w > 0 and waiting[i + 1][1] > 0), None)
    peak = max(w for _, w in waiting)
    return start, (peak, next(t for t, w in waiting if w == peak))


def test_queue_sampled_and_reported():
    # A KV cache of 12,000 tokens holds about three of these prompts: it fills and preempts.
    sim = base.Simulator("--time-scale", "20", "--max-num-seqs", str(MAX_NUM_SEQS), "--kv-cache-tokens", "12000")
    log = path("run.jsonl")
    try:
        r = servestat("load", "--url", sim.url, "-q", "--workload", long_workload(), "--concurrency", 24, "-n", 72,
                      "--heuristic-tokens", "--scrape-interval", INTERVAL, "-o", log)
    finally:
        sim.stop()
    check(r.returncode == 0, f"load: exit {r.returncode}: {r.stderr[-600:]}")
    file = timeline_of(log)
    check(os.path.exists(file), f"{file} written beside the log")
    if not os.path.exists(file):
        return
    lines = read_lines(file)
    head, scrapes = lines[0], lines[1:]
    check(head.get("servestat") == "metrics-timeline" and head.get("version") == 1 and head.get("interval") == INTERVAL
          and head.get("url", "").endswith("/metrics"), f"header: {head}")
    samples = [s for s in scrapes if "values" in s]
    failed = [s for s in scrapes if "error" in s]
    check(len(samples) + len(failed) == len(scrapes), "each line is a sample or a failed scrape")
    end = read_lines(log)[0]["run"]["end"]
    recorded = end.get("metrics_timeline", {})
    check(recorded == {"file": "run.metrics-timeline.jsonl", "interval": INTERVAL, "scrapes": len(samples),
                       "failed": len(failed), **({"first_failure": failed[0]["error"]} if failed else {})},
          f"run.end.metrics_timeline {recorded} against the file's {len(samples)} samples, {len(failed)} failed")
    check("/metrics sampled" in r.stderr and "run.metrics-timeline.jsonl" in r.stderr,
          f"the summary line names the file: {r.stderr[-300:]}")
    times = [s["t"] for s in scrapes]
    check(all(b > a for a, b in zip(times, times[1:])), "times increase")
    # Within the run: from its t = 0 to its end (1 s over: a scrape in flight when it ended), so a
    # time on another clock (epoch seconds, milliseconds) fails.
    check(len(times) >= 3 and times[0] >= 0 and times[-1] <= end["wall_seconds"] + 1,
          f"times within the run's {end['wall_seconds']} s: {times[:2]} … {times[-1:]}")
    check(all({"vllm:num_requests_running", "vllm:num_requests_waiting"} <= s["values"].keys() for s in samples),
          f"running and waiting in every sample: {sorted(samples[0]['values']) if samples else None}")
    check(all(s["values"]["vllm:num_requests_running"] <= MAX_NUM_SEQS for s in samples),
          f"running never above --max-num-seqs {MAX_NUM_SEQS}: "
          f"{max(s['values']['vllm:num_requests_running'] for s in samples)}")
    check(any(s["values"]["vllm:num_requests_waiting"] > 0 for s in samples), "requests waited at some sample")
    check(scrapes[0].get("types", {}).get("vllm:num_requests_waiting") == "gauge", "types given on the first line")
    check(not any(k.endswith("_bucket") for s in samples for k in s["values"]), "no histogram buckets")
    check("vllm:e2e_request_latency_seconds_count" in samples[0]["values"], "a histogram's _count kept")

    # stats reads the timeline with the log: a note on the run and the record in the JSON export.
    r = servestat("stats", log, "--json")
    check(r.returncode == 0, f"stats: {r.stderr[-400:]}")
    run = json.loads(r.stdout)["runs"][0]
    st = run.get("server_timeline") or {}
    check(st.get("file") == "run.metrics-timeline.jsonl" and st.get("scrapes") == len(samples)
          and st.get("failed") == len(failed) and "vllm:num_requests_waiting" in st.get("names", []),
          f"stats --json server_timeline: {str(st)[:300]}")
    check(any(n.startswith(f"run.metrics-timeline.jsonl: the server's /metrics sampled {len(samples)} times every 0.1 s")
              for n in run["notes"]), f"notes: {run['notes']}")

    # The report: the chart on the p99 timeline's axis, the sentence in the summary and in report.json.
    out = path("report")
    r = servestat("report", log, "-o", out)
    check(r.returncode == 0, f"report: {r.stderr[-400:]}")
    (start_t, _), (peak, peak_t) = first_queue(samples)
    with open(os.path.join(out, "report.json")) as f:
        rj = json.load(f)["runs"][0]["server_timeline"]
    charted = rj.get("charted") or []
    # Running and waiting first, in that order; preemptions and the KV cache follow where the simulator has them.
    check(charted[:2] == ["vllm:num_requests_running", "vllm:num_requests_waiting"] and set(charted) <= set(rj["names"]),
          f"report.json charted: {charted}")
    summary = rj.get("summary") or ""
    expected = f"Requests began to wait on the server at t = {start_t:.1f} s"
    check(summary.startswith(expected), f"report.json summary {summary!r} starts {expected!r}")
    check(f"{peak:.0f}" in summary and "(vllm:num_requests_waiting)" in summary and "p99 e2e of completions" in summary,
          f"the peak {peak:.0f} at {peak_t} and the p99 in {summary!r}")
    # The KV cache and preemptions, recomputed from the file.
    kv = [(s["t"], s["values"]["vllm:kv_cache_usage_perc"]) for s in samples if "vllm:kv_cache_usage_perc" in s["values"]]
    check(kv and all(0 <= v <= 1 for _, v in kv), f"KV-cache usage a fraction: {kv[:5]}")
    full = next((t for t, v in kv if v >= 0.9), None)
    if full is not None:
        check(f"The KV cache passed 90% at t = {full:.1f} s" in summary, f"KV past 90% at {full} in {summary!r}")
    else:
        check("KV-cache usage stayed below 90%" in summary, f"KV below 90% in {summary!r}")
    preempted = [s["values"]["vllm:num_preemptions_total"] for s in samples]
    if preempted[-1] > preempted[0]:
        check(f"The server preempted requests {preempted[-1] - preempted[0]:.0f} times" in summary,
              f"{preempted[-1] - preempted[0]} preemptions in {summary!r}")
    with open(os.path.join(out, "report.html")) as f:
        html = f.read()
    digest = html[html.find('<ul class="summary">'):]
    digest = digest[:digest.find("</ul>")]
    check(expected in digest, "the sentence is in the report's summary")
    prefix = os.path.join(out, "plots", json.load(open(os.path.join(out, "report.json")))["runs"][0]["label"])
    queue_svg, p99_svg, kv_svg = prefix + "-server-queue.svg", prefix + "-p99-timeline.svg", prefix + "-server-kv-cache.svg"
    check(os.path.exists(queue_svg) and os.path.exists(p99_svg), f"plots: {sorted(os.listdir(os.path.join(out, 'plots')))}")
    if os.path.exists(queue_svg) and os.path.exists(p99_svg):
        with open(queue_svg) as f:
            queue = f.read()
        with open(p99_svg) as f:
            p99 = f.read()
        for name in ("running (vllm:num_requests_running)", "waiting (vllm:num_requests_waiting)",
                     "Requests on the server over the run", "time since start (s)"):
            check(name in queue, f"{name!r} in the queue chart")
        check(charted == ["vllm:num_requests_running", "vllm:num_requests_waiting", "vllm:num_preemptions_total",
                          "vllm:kv_cache_usage_perc"], f"charted: {charted}")
        check("preempted (vllm:num_preemptions_total)" in queue, "preemptions in the queue chart")
        check(os.path.exists(kv_svg), "a KV-cache chart")
        if os.path.exists(kv_svg):
            with open(kv_svg) as f:
                kv_chart = f.read()
            check("KV usage (vllm:kv_cache_usage_perc)" in kv_chart and "share (%)" in kv_chart
                  and "90% KV-cache usage" in kv_chart, "the KV chart's series, axis and 90% line")
            check(x_ticks(kv_chart) == x_ticks(p99), f"the KV chart on the same axis: {x_ticks(kv_chart)}")
        check(x_ticks(queue) == x_ticks(p99) and x_ticks(queue), f"one time axis: {x_ticks(queue)} and {x_ticks(p99)}")


def x_ticks(svg):
    """The x axis' tick labels: the texts anchored middle on one row (the title and the axis label
    stand alone on theirs; the y ticks are anchored end)."""
    rows = {}
    for y, text in re.findall(r'<text x="[\d.]+" y="([\d.]+)" text-anchor="middle"[^>]*>([^<]+)</text>', svg):
        rows.setdefault(y, []).append(text)
    return [texts for texts in rows.values() if len(texts) > 1]


def test_killed_run_keeps_its_samples():
    sim = base.Simulator("--time-scale", "5", "--max-num-seqs", str(MAX_NUM_SEQS))
    log = path("killed.jsonl")
    try:
        proc, err = base.start_load(sim.url, "--workload", long_workload(), "--concurrency", 8, "-n", 400,
                                    "--heuristic-tokens", "--scrape-interval", 0.05, "-o", log)
        file = timeline_of(log)
        for _ in range(400):  # until a few samples and a request are on disk
            if os.path.exists(file) and sum(1 for _ in open(file)) >= 4 and sum(1 for _ in open(log)) >= 2:
                break
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        err.close()
    finally:
        sim.stop()
    lines = read_lines(file)  # every line whole JSON
    check(len(lines) >= 4 and all("t" in s for s in lines[1:]), f"{len(lines)} lines kept")
    r = servestat("stats", log, "--json")
    check(r.returncode == 0, f"stats on the killed log: {r.stderr[-300:]}")
    if r.returncode == 0:
        st = json.loads(r.stdout)["runs"][0]["server_timeline"]
        check(st and st["scrapes"] + st["failed"] == len(lines) - 1, f"the samples so far read: {st}")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_unreachable_server_leaves_gaps():
    log = path("gone.jsonl")
    r = servestat("load", "--url", f"http://127.0.0.1:{free_port()}", "-q", "--model", "m", "--max-model-len", 4096,
                  "--workload", long_workload(), "--concurrency", 2, "-n", 6, "--heuristic-tokens",
                  "--scrape-interval", INTERVAL, "-o", log)
    check(os.path.exists(timeline_of(log)), f"a timeline even when nothing answered (exit {r.returncode}): {r.stderr[-300:]}")
    if not os.path.exists(timeline_of(log)):
        return
    scrapes = read_lines(timeline_of(log))[1:]
    check(scrapes and all("error" in s and "values" not in s for s in scrapes), f"failed scrapes are gaps: {scrapes[:2]}")
    end = read_lines(log)[0]["run"]["end"]["metrics_timeline"]
    check(end["scrapes"] == 0 and end["failed"] == len(scrapes) and end.get("first_failure"), f"run.end: {end}")
    check("failed" in r.stderr and "gaps" in r.stderr, f"the gaps are said at the end: {r.stderr[-300:]}")
    r = servestat("stats", log, "--json")
    check(r.returncode == 0, f"stats: {r.stderr[-300:]}")
    if r.returncode == 0:
        notes = json.loads(r.stdout)["runs"][0]["notes"]
        check(any("failed and" in n and "gap" in n for n in notes), f"the gaps in the run's notes: {notes}")


def test_bad_timeline_names_file_line_and_field():
    os.makedirs(path("bad"), exist_ok=True)
    log = path("bad/run.jsonl")
    shutil.copy(path("run.jsonl"), log)
    with open(path("bad/run.metrics-timeline.jsonl"), "w") as f:
        f.write('{"servestat":"metrics-timeline","version":1,"interval":0.1}\n')
        f.write('{"t":0.0,"values":{"vllm:num_requests_waiting":0}}\n')
        f.write('{"t":0.1,"values":{"vllm:num_requests_waiting":"three"}}\n')
    for command in ("stats", "report"):
        args = [command, log] + (["-o", path("bad/report")] if command == "report" else [])
        r = servestat(*args)
        check(r.returncode == 3 and "run.metrics-timeline.jsonl" in r.stderr and ":3" in r.stderr
              and "values.vllm:num_requests_waiting" in r.stderr,
              f"{command}: exit {r.returncode}, {r.stderr.strip()[-300:]!r} names the file, line 3 and the field")


def test_sweep_writes_one_per_level():
    sim = base.Simulator("--time-scale", "20", "--max-num-seqs", str(MAX_NUM_SEQS))
    out = path("sweep")
    try:
        r = servestat("load", "--url", sim.url, "-q", "--workload", long_workload(), "--sweep", "concurrency=2,8",
                      "-n", 16, "--heuristic-tokens", "--scrape-interval", INTERVAL, "-o", out)
    finally:
        sim.stop()
    check(r.returncode == 0, f"sweep: {r.stderr[-400:]}")
    files = sorted(os.listdir(out))
    check([f for f in files if f.endswith(".metrics-timeline.jsonl")] ==
          ["long-c2.metrics-timeline.jsonl", "long-c8.metrics-timeline.jsonl"], f"files: {files}")
    r = servestat("report", out, "-o", path("sweep-report"))
    check(r.returncode == 0, f"report of the folder: {r.stderr[-400:]}")
    with open(path("sweep-report/report.json")) as f:
        doc = json.load(f)
    check([run["label"] for run in doc["runs"]] == ["long-c2", "long-c8"] and
          all(run["server_timeline"] for run in doc["runs"]), "two runs, each with its timeline")
    check(not any("metrics-timeline" in json.dumps(x) for x in doc.get("inputs", [])) and
          "metrics-timeline" not in json.dumps(doc.get("left_out", [])), "no timeline listed as a run or passed over")


def last_end(log):
    """The latest t_end of the log's requests."""
    return max(line["t_end"] for line in read_lines(log)[1:] if line.get("t_end") is not None)


def test_power_url_sampled_beside_the_log():
    sim = base.Simulator("--time-scale", "20", "--max-num-seqs", str(MAX_NUM_SEQS))
    power = base.Simulator("--time-scale", "20")  # stands in for DCGM's exporter on a host of its own
    os.makedirs(path("power"), exist_ok=True)
    log = path("power/run.jsonl")
    power_url = power.url + "/metrics"
    try:
        r = servestat("load", "--url", sim.url, "-q", "--workload", long_workload(), "--concurrency", 4, "-n", 12,
                      "--heuristic-tokens", "--scrape-interval", INTERVAL, "--power-url", power_url, "-o", log)
    finally:
        sim.stop()
        power.stop()
    check(r.returncode == 0, f"load: exit {r.returncode}: {r.stderr[-600:]}")
    file = power_timeline_of(log)
    check(os.path.exists(file), f"{file} written beside the log: {sorted(os.listdir(path('power')))}")
    if not os.path.exists(file):
        return
    lines = read_lines(file)
    head, scrapes = lines[0], lines[1:]
    check(head.get("servestat") == "metrics-timeline" and head.get("version") == 1 and head.get("url") == power_url
          and head.get("interval") == INTERVAL, f"header: {head}")
    samples = [s for s in scrapes if "values" in s]
    failed = [s for s in scrapes if "error" in s]
    check(len(samples) >= 2 and not failed, f"{len(samples)} samples, {len(failed)} failed")
    ended = last_end(log)
    # The closing scrape, taken once every request was logged: energy needs a sample past the last end.
    check(scrapes and scrapes[-1]["t"] >= ended, f"the last power sample at {scrapes[-1]['t'] if scrapes else None} "
                                                 f"is at or after the last request's end {ended}")
    server_scrapes = read_lines(timeline_of(log))[1:]
    check(server_scrapes and server_scrapes[-1]["t"] >= ended,
          f"the /metrics timeline closes at or after the last end too: {server_scrapes[-1:]} against {ended}")
    times = [s["t"] for s in scrapes]
    check(all(b >= a for a, b in zip(times, times[1:])), f"times never decrease: {times}")
    check(all("vllm:num_requests_running" in s["values"] for s in samples), "the second simulator's names")
    end = read_lines(log)[0]["run"]["end"]
    check(end.get("power_timeline") == {"file": "run.power-timeline.jsonl", "interval": INTERVAL,
                                        "scrapes": len(samples), "failed": len(failed)},
          f"run.end.power_timeline {end.get('power_timeline')} against the file's {len(samples)} samples")
    check(end.get("metrics_timeline", {}).get("file") == "run.metrics-timeline.jsonl", "the server's own timeline too")
    check(f"power from {power_url} sampled {len(samples)} times into run.power-timeline.jsonl" in r.stderr,
          f"the summary line says where the power samples went: {r.stderr[-400:]}")

    r = servestat("stats", log, "--json")
    check(r.returncode == 0, f"stats: {r.stderr[-400:]}")
    if r.returncode == 0:
        notes = json.loads(r.stdout)["runs"][0]["notes"]
        note = f"run.power-timeline.jsonl: the power endpoint {power_url} sampled {len(samples)} times every 0.1 s"
        check(any(n.startswith(note) for n in notes), f"{note!r} in the notes: {notes}")
    # Read as a folder: one run; the power timeline is neither a run nor a file passed over.
    r = servestat("report", path("power"), "-o", path("power-report"))
    check(r.returncode == 0, f"report of the folder: {r.stderr[-400:]}")
    if r.returncode == 0:
        with open(path("power-report/report.json")) as f:
            doc = json.load(f)
        check(len(doc["runs"]) == 1 and "power-timeline" not in json.dumps(doc.get("inputs", []))
              and "power-timeline" not in json.dumps(doc.get("left_out", [])), "no power timeline listed as a run or passed over")


def test_power_url_needs_scrape_interval():
    log = path("no-interval.jsonl")
    r = servestat("load", "--url", "http://127.0.0.1:9", "--model", "m", "--max-model-len", 4096, "--workload",
                  long_workload(), "--concurrency", 1, "-n", 1, "--heuristic-tokens",
                  "--power-url", "http://127.0.0.1:9400/metrics", "-o", log)
    check(r.returncode == 2 and "--power-url" in r.stderr and "--scrape-interval" in r.stderr,
          f"exit {r.returncode}: {r.stderr.strip()[-300:]!r}")
    check(not os.path.exists(log) and not os.path.exists(power_timeline_of(log)), "nothing written")
    r = servestat("load", "--url", "http://127.0.0.1:9", "--model", "m", "--max-model-len", 4096, "--workload",
                  long_workload(), "--concurrency", 1, "-n", 1, "--heuristic-tokens", "--scrape-interval", 1,
                  "--power-url", "gpu-node:9400/metrics", "-o", log)
    check(r.returncode == 2 and "--power-url gpu-node:9400/metrics: expected http[s]://HOST[:PORT]/PATH" in r.stderr,
          f"a URL without its scheme: exit {r.returncode}: {r.stderr.strip()[-300:]!r}")


if __name__ == "__main__":
    sys.exit(run_tests(WORK, [test_queue_sampled_and_reported, test_killed_run_keeps_its_samples,
                              test_unreachable_server_leaves_gaps, test_bad_timeline_names_file_line_and_field,
                              test_sweep_writes_one_per_level, test_power_url_sampled_beside_the_log,
                              test_power_url_needs_scrape_interval]))
