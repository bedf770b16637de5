#!/usr/bin/python3
"""CLI tests of the failure guard: `servestat load` stops when the server is gone or failing
(docs/load.md, "When the driver stops early").

- The simulator killed mid-run: the driver stops sending after 10 connection failures in a row, lets
  what is in flight end, exits 4 naming the reason; the log holds every request sent (ids 0..n-1
  once each, run.end.requests_sent = its request lines), and the point where the guard tripped is
  found again from the log alone.
- --max-error-rate against `servestat simulate --fail-rate`: trips at the first request whose window
  of the last W exceeds the rate, as recomputed from the log; the simulator's failures are HTTP 500
  with an OpenAI-style error body, the same requests for a seed; --fail-after fails nothing before.
- A sweep whose server dies at a level: that level `stopped`, the later ones `not_run`, exit 4;
  --resume runs them. With --server-cmd, a configuration whose server fails every request ends and
  the next configuration runs; the command exits 4 at the end.

Nothing here is timed: the simulator is killed once the log shows progress, and every assertion is
on what was logged.

Usage: test_load_stop.py SERVESTAT_BINARY WORK_DIR [SHARED_DATA]   (run by ctest)
"""
import json
import os
import sys

import test_load as base
from checks import check, run_tests

SERVESTAT, WORK = sys.argv[1], sys.argv[2]
EXIT_STOPPED = 4
SIM_ERROR = "Simulated engine failure (servestat simulate --fail-rate {})"


def path(name):
    return os.path.join(WORK, name)


def ids_complete(reqs, what):
    ids = sorted(int(q["id"]) for q in reqs)
    check(ids == list(range(len(reqs))), f"{what}: ids 0..{len(reqs) - 1} each once: {ids[:5]}...{ids[-5:]}")


def first_connection_trip(reqs, n):
    """Index (in log order, which is completion order) of the request that made n transport failures in a
    row, cancelled requests aside; None when none did."""
    in_a_row = 0
    for i, q in enumerate(reqs):
        if q["status"] == "cancelled":
            continue
        in_a_row = in_a_row + 1 if q["status"] == "transport" else 0
        if in_a_row == n:
            return i
    return None


def first_rate_trip(reqs, rate, window):
    """(index, errors in the window) of the first request after which more than `rate` of the last
    `window` requests (cancelled ones left out) failed, judged once `window` had completed."""
    outcomes = []
    for i, q in enumerate(reqs):
        if q["status"] == "cancelled":
            continue
        outcomes.append(q["status"] != "ok")
        if len(outcomes) >= window:
            errors = sum(outcomes[-window:])
            if errors / window > rate:
                return i, errors
    return None, None


def test_server_killed():
    sim = base.Simulator("--time-scale", "20")
    workload = base.write_workload("killed.jsonl", [(10, 64)])
    log = path("killed.jsonl")
    proc, err = base.start_load(sim.url, "--workload", workload, "--concurrency", 16, "-n", 2000,
                                "--heuristic-tokens", "-o", log)
    check(base.wait_until(lambda: base.request_lines(log) >= 50), "requests complete before the kill")
    sim.kill()
    rc, stderr = base.finish(proc, err)
    check(rc == EXIT_STOPPED, f"the driver exits {EXIT_STOPPED} once the server is gone: {rc} {stderr[-600:]!r}")
    check("stopped early: 10 connection failures in a row" in stderr and f"the server at {sim.url} looks gone" in
          stderr and "every request sent" in stderr, f"stderr names the reason: {stderr[-600:]!r}")
    header, reqs = base.read_log(log, "server killed")
    end = header.get("run", {}).get("end", {})
    check(end.get("reason") == "server_gone" and end.get("detail", "").startswith("10 connection failures in a row"),
          f"run.end says why: {end}")
    check(end.get("requests_sent") == len(reqs), f"every request sent is in the log: {end.get('requests_sent')} "
                                                 f"sent, {len(reqs)} logged")
    ids_complete(reqs, "server killed")
    check(50 <= len(reqs) < 1000, f"far fewer than 2000 sent: {len(reqs)}")
    check(end.get("guard", {}).get("consecutive_connection_failures") == 10 and
          end.get("guard", {}).get("max_connection_failures") == 10, f"run.end.guard: {end.get('guard')}")
    statuses = [q["status"] for q in reqs]
    check(set(statuses) == {"ok", "transport"}, f"ok before the kill, transport after: {sorted(set(statuses))}")
    # The guard tripped on the 10th failure in a row; after it only the requests then in flight (at most
    # 15 of the 16 clients') completed.
    k = first_connection_trip(reqs, 10)
    check(k is not None and len(reqs) - 1 - k <= 15,
          f"the trip point from the log: request {k} of {len(reqs)}, then {len(reqs) - 1 - (k or 0)} in flight")
    base.check_stats_agree(log, reqs, "server killed")


def test_max_error_rate():
    sim = base.Simulator("--time-scale", "20", "--fail-rate", "0.5", "--seed", "3")
    try:
        workload = base.write_workload("failing.jsonl", [(10, 16)])
        log = path("error-rate.jsonl")
        r = base.load(sim.url, "--workload", workload, "--concurrency", 4, "-n", 400, "--heuristic-tokens",
                      "--max-error-rate", 0.3, "--error-window", 20, "-o", log)
        check(r.returncode == EXIT_STOPPED, f"--max-error-rate: exit {r.returncode} {r.stderr[-600:]!r}")
        header, reqs = base.read_log(log, "error rate")
        end = header.get("run", {}).get("end", {})
        k, errors = first_rate_trip(reqs, 0.3, 20)
        check(k is not None and len(reqs) - 1 - k <= 3,
              f"tripped at request {k} of {len(reqs)} (at most 3 more were in flight)")
        detail = f"{errors} of the last 20 requests failed ({errors * 5}% > --max-error-rate 0.3; last: HTTP 500: " \
                 f"{SIM_ERROR.format(0.5)})"
        check(end.get("reason") == "error_rate" and end.get("detail") == detail,
              f"run.end: {end.get('reason')} {end.get('detail')!r}, from the log {detail!r}")
        check(end.get("guard", {}).get("errors") == errors and end.get("guard", {}).get("window") == 20 and
              end.get("guard", {}).get("max_error_rate") == 0.3, f"run.end.guard: {end.get('guard')}")
        check(detail in r.stderr, f"stderr names the rate: {r.stderr[-600:]!r}")
        check(end.get("requests_sent") == len(reqs), "every request sent is in the log")
        ids_complete(reqs, "error rate")
        failed = [q for q in reqs if q["status"] != "ok"]
        check(failed and all(q["status"] == "error" and q.get("http_status") == 500 and
                             q.get("error") == SIM_ERROR.format(0.5) for q in failed),
              f"the simulator's failures: HTTP 500 with its message: {failed[:2]}")
        base.check_stats_agree(log, reqs, "error rate")
    finally:
        sim.stop()

    # Without --max-error-rate the failures are data: the run completes. One client, so the n-th request
    # is the simulator's n-th arrival and a seed fails the same ones.
    runs = []
    for seed in (3, 3, 4):
        sim = base.Simulator("--time-scale", "20", "--fail-rate", "0.5", "--seed", str(seed))
        try:
            log = path(f"seeded-{len(runs)}.jsonl")
            base.load_ok(sim.url, "--workload", workload, "--concurrency", 1, "-n", 60, "--heuristic-tokens",
                         "-o", log)
            header, reqs = base.read_log(log, f"seed {seed}")
            check(header.get("run", {}).get("end", {}).get("reason") == "completed" and len(reqs) == 60,
                  f"seed {seed}: all 60 sent: {header.get('run', {}).get('end')}")
            runs.append("".join("x" if q["status"] != "ok" else "." for q in base.by_id(reqs)))
        finally:
            sim.stop()
    check(runs[0] == runs[1] and runs[0] != runs[2], f"the same failures for a seed, others for another: {runs}")
    check(all(18 <= r.count("x") <= 42 for r in runs), f"about half fail: {[r.count('x') for r in runs]}")

    # --fail-after: nothing fails before (the first request defines 0), everything after (--fail-rate 1).
    sim = base.Simulator("--time-scale", "20", "--fail-rate", "1", "--fail-after", "5")
    try:
        log = path("fail-after.jsonl")
        r = base.load(sim.url, "--workload", workload, "--concurrency", 1, "-n", 2000, "--heuristic-tokens",
                      "--max-error-rate", 0.5, "--error-window", 10, "-o", log)
        check(r.returncode == EXIT_STOPPED, f"--fail-after: exit {r.returncode} {r.stderr[-400:]!r}")
        _, reqs = base.read_log(log, "fail after")
        statuses = "".join("x" if q["status"] != "ok" else "." for q in base.by_id(reqs))
        oks = statuses.count(".")
        # One client: nothing in flight when it trips, so it ends on the first window of 10 with more
        # than 5 errors.
        check(oks >= 1 and statuses == "." * oks + "x" * max(6, 10 - oks),
              f"ok until the failures start, then exactly the errors that trip the guard: {statuses}")
    finally:
        sim.stop()


def test_sweep_stops():
    sim = base.Simulator("--time-scale", "10")
    workload = base.write_workload("stop.jsonl", [(10, 32)])
    out = path("sweep")
    args = ["--workload", workload, "--sweep", "concurrency=8,2,16", "-n", 300, "--heuristic-tokens", "-o", out]
    proc, err = base.start_load(sim.url, *args)
    second = os.path.join(out, "stop-c2.jsonl")
    check(base.wait_until(lambda: base.request_lines(second) >= 5), "the second level runs")
    sim.kill()
    rc, stderr = base.finish(proc, err)
    check(rc == EXIT_STOPPED, f"sweep: exit {rc} {stderr[-600:]!r}")
    check("sweep stopped at stop-c2: 10 connection failures in a row" in stderr and "1 later level not run" in stderr,
          f"stderr says where and why: {stderr[-600:]!r}")
    points = base.read_manifest(out)
    c8, c2, c16 = (points.get(f"stop-c{c}", {}) for c in (8, 2, 16))
    header, reqs = base.read_log(second, "stopped level")
    check(c8.get("status") == "done" and c8.get("requests") == 300, f"the first level done: {c8}")
    check(c2.get("status") == "stopped" and c2.get("error", "").startswith("10 connection failures in a row") and
          c2.get("requests") == len(reqs) and c2.get("ok") == sum(q["status"] == "ok" for q in reqs),
          f"the level the server died in: {c2}, {len(reqs)} logged")
    check(c16.get("status") == "not_run" and "stop-c2" in c16.get("error", ""), f"the later level: {c16}")
    check(header.get("run", {}).get("end", {}).get("reason") == "server_gone", "the level's log says why")
    ids_complete(reqs, "stopped level")
    check(not os.path.exists(os.path.join(out, "stop-c16.jsonl")), "no log for a level not run")

    # --resume against a server that is back: the stopped and the not-run levels run, the done one not.
    sim = base.Simulator("--time-scale", "20")
    try:
        r = base.load(sim.url, *args, "--resume")
        check(r.returncode == 0 and "stop-c8 is done (manifest); skipped" in r.stderr and
              r.stderr.count("skipped") == 1, f"--resume: exit {r.returncode} {r.stderr[-600:]!r}")
        points = base.read_manifest(out)
        check(all(points.get(f"stop-c{c}", {}).get("status") == "done" for c in (8, 2, 16)),
              f"manifest after --resume: {points}")
    finally:
        sim.stop()

    # --server-cmd: a configuration whose server fails every request is stopped at its first level; the
    # next configuration starts its own server and runs.
    port = base.free_port()
    out = path("grid")
    command = f"'{SERVESTAT}' simulate --port {port} --time-scale 20 --fail-rate {{fail_rate}}"
    r = base.load(f"http://127.0.0.1:{port}", "--workload", workload, "--grid", "fail_rate=1,0",
                  "--server-cmd", command, "--sweep", "concurrency=2,4", "-n", 30, "--heuristic-tokens",
                  "--max-error-rate", 0.5, "--error-window", 10, "--server-timeout", 20, "-o", out, timeout=90)
    check(r.returncode == EXIT_STOPPED, f"grid: exit {r.returncode} {r.stderr[-600:]!r}")
    check(r.stderr.count("starting the server") == 2 and "going on with the next configuration" in r.stderr and
          "1 stopped early" in r.stderr, f"grid stderr: {r.stderr[-800:]!r}")
    points = base.read_manifest(out)
    statuses = {label: p.get("status") for label, p in points.items()}
    check(statuses == {"stop-fail_rate1-c2": "stopped", "stop-fail_rate1-c4": "not_run",
                       "stop-fail_rate0-c2": "done", "stop-fail_rate0-c4": "done"}, f"grid manifest: {statuses}")
    _, reqs = base.read_log(os.path.join(out, "stop-fail_rate1-c2.jsonl"), "failing configuration")
    check(len(reqs) < 30 and all(q["status"] == "error" for q in reqs), f"stopped early: {len(reqs)} requests")


if __name__ == "__main__":
    sys.exit(run_tests(WORK, [test_server_killed, test_max_error_rate, test_sweep_stops]))
