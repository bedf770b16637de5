#!/usr/bin/env python3
"""CLI tests of `servestat tune` (docs/tune.md) against `servestat simulate`.

The notebook's Experiment 5, reproduced: the bad preset's settings (max_num_batched_tokens 8192, one
partial prefill: short prompts wait behind long prefills) are the start, and the space holds the
setting that protects short prompts (max_num_partial_prefills, with one long). Tune must find a
configuration that meets the short prompts' TTFT SLO at a load the bad settings miss it at, with an
interval; every configuration tune did not measure is then measured here, one `servestat tune` each
(a space of one configuration), and none may be told apart as better than tune's answer: tune's
answer is the grid's best or indistinguishable from it, with fewer configurations measured. One
configuration runs out of memory (a wrapper exits as vLLM does), and the search goes on around it.
The search is interrupted with SIGINT once three measurements are done; --resume measures only what
is missing. The simulator runs 50 times faster than the wall clock, so every time in the SLO and the
logs is the simulated time / 50: 20 ms is 1 s of the L4's. Loads stop at 32 streams, where the
partial-prefill configurations' short TTFT p95 (about 7 ms) lies far below the SLO and the bad
settings' (about 27 ms) above it. A busy machine adds its scheduling delays to every wall-clock
latency, good configurations' too: beside two busy processes on two cores the answer's short TTFT
p95 passed 20 ms at 11 streams. So this test runs alone (label `alone`, tests/CMakeLists.txt).

Usage: test_tune.py SERVESTAT WORK_DIR
"""
import json
import os
import signal
import socket
import subprocess
import sys
import time

from checks import check, run_tests

SERVESTAT = os.path.abspath(sys.argv[1])
WORK = os.path.abspath(sys.argv[2])

SPACE = ["max_num_partial_prefills=1,2,3,4", "max_num_batched_tokens=512,2048,8192"]
START = ["max_num_partial_prefills=1", "max_num_batched_tokens=8192"]
OUT_OF_MEMORY = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"


def path(*parts):
    return os.path.join(WORK, *parts)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def servestat(*args, timeout=120):
    return subprocess.run([SERVESTAT, *map(str, args)], capture_output=True, text=True, timeout=timeout)


def server_cmd(port):
    # One configuration's server dies before it is ready, as vLLM does when its profile run does not
    # fit: the spread's first corner, so that it is tried however slowly the machine runs.
    return (f"if [ {{max_num_partial_prefills}} = 2 ] && [ {{max_num_batched_tokens}} = 512 ]; then "
            f"echo '{OUT_OF_MEMORY}' >&2; exit 1; fi; "
            f"exec {SERVESTAT} simulate --port {port} --preset l4-qwen2.5-3b-bad --time-scale 50 --seed 1 "
            f"--max-num-partial-prefills {{max_num_partial_prefills}} --max-long-partial-prefills 1 "
            f"--max-num-batched-tokens {{max_num_batched_tokens}}")


def tune_args(workload, port, out, space=SPACE, start=START, budget="25s"):
    args = ["tune", "--url", f"http://127.0.0.1:{port}", "--workload", workload, "-n", 160, "--max-tokens", 16, "-q",
            "--server-cmd", server_cmd(port), "--slo", "short:ttft=0.02", "--load-start", 4, "--load-max", 32,
            "--resolution", 0.25,
            "--budget", budget, "--server-timeout", 20, "-o", out]
    for s in space:
        args += ["--space", s]
    for s in start:
        args += ["--start", s]
    return [str(a) for a in args]


def read_json(file):
    with open(file) as f:
        return json.load(f)


def finished(manifest):
    return [m for m in manifest["measurements"] if m["status"] in ("done", "infeasible")]


def workload():
    file = path("mix_50_50.jsonl")
    r = servestat("workload", "--preset", "mix_50_50", "-n", 300, "--seed", 1, "-o", file)
    check(r.returncode == 0, f"workload: {r.stderr[-300:]}")
    return file


def interrupt_after(args, measurements, seconds=60):
    """Runs tune until the manifest holds `measurements` finished ones, then SIGINT: (exit, stderr)."""
    manifest = os.path.join(args[args.index("-o") + 1], "tune-manifest.json")
    err = open(path("interrupted.err"), "w+")
    proc = subprocess.Popen([SERVESTAT, *args], stdout=subprocess.DEVNULL, stderr=err, text=True)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            if len(finished(read_json(manifest))) >= measurements:
                break
        except (OSError, ValueError):
            pass
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    rc = proc.wait(timeout=60)
    err.seek(0)
    return rc, err.read()


def level_meets(configuration, load):
    for m in configuration["measurements"]:
        for level in m["levels"]:
            if level["load"] == load and level["status"] == "done":
                return level["meets"]
    return None


def test_experiment_5():
    w = workload()
    port = free_port()
    out = path("tune")
    args = tune_args(w, port, out)

    # Interrupted after three measurements: exit 130, a whole manifest, the one in progress marked.
    rc, err = interrupt_after(args, 3)
    check(rc == 130, f"interrupted tune: exit {rc}: {err[-800:]}")
    manifest = read_json(os.path.join(out, "tune-manifest.json"))
    done_before = finished(manifest)
    check(len(done_before) >= 3, f"finished before the interrupt: {len(done_before)}")
    check(manifest["measurements"][0]["step"] == "start", "the start is measured first")
    check(all(m["status"] in ("done", "infeasible", "interrupted") for m in manifest["measurements"]),
          f"statuses: {[m['status'] for m in manifest['measurements']]}")
    logs_before = {level["log"]: os.stat(os.path.join(out, level["log"])).st_mtime_ns
                   for m in done_before for level in m["levels"]}

    # --resume: only what is missing is measured.
    r = servestat(*args, "--resume")
    check(r.returncode == 0, f"resumed tune: exit {r.returncode}: {r.stderr[-1500:]}")
    manifest = read_json(os.path.join(out, "tune-manifest.json"))
    check(manifest["measurements"][:len(done_before)] == done_before,
          "the measurements finished before the interrupt are kept as they were")
    for log, mtime in logs_before.items():
        check(os.stat(os.path.join(out, log)).st_mtime_ns == mtime, f"{log} was measured again")
    keys = [(m["name"], m["index"]) for m in manifest["measurements"]]
    check(len(keys) == len(set(keys)), f"a measurement recorded twice: {keys}")
    check(manifest["used_seconds"] <= 25 + 5, f"the budget is a hard limit: {manifest['used_seconds']} s of 25")

    t = read_json(os.path.join(out, "tune.json"))
    configurations = {c["name"]: c for c in t["configurations"]}
    check(t["end"] in ("settled", "budget"), f"end: {t['end']}")
    check(len(configurations) < 12, f"tune measured {len(configurations)} of the grid's 12 configurations")

    # The configuration that ran out of memory: infeasible, with its log's last lines, never run again.
    oom = configurations.get("max_num_partial_prefills2-max_num_batched_tokens512")
    check(oom is not None, "the out-of-memory corner (a spread point) was tried")
    if oom:
        check(oom["status"] == "infeasible", f"out of memory: {oom['status']}")
        check(oom["runs"] == 1, "an infeasible configuration is not run again")
        check(OUT_OF_MEMORY in oom["measurements"][0].get("server_log_tail", ""), "the server log's last lines")
        check("exited with status 1 before it was ready" in oom["reason"], f"reason: {oom['reason']}")

    # Experiment 5: the answer meets the short prompts' SLO where the bad settings miss it.
    rec = t["recommendation"]
    check(rec is not None, "a recommendation")
    if not rec:
        return
    start = configurations["max_num_partial_prefills1-max_num_batched_tokens8192"]
    check(rec["name"] != start["name"], "the bad settings are not the answer")
    check(rec["ci"][0] <= rec["value"] <= rec["ci"][1] and rec["ci"][1] > rec["ci"][0] - 1e-9,
          f"the recommendation carries an interval: {rec['ci']}")
    missed = sorted(level["load"] for m in start["measurements"] for level in m["levels"]
                    if level["status"] == "done" and not level["meets"])
    check(missed, "the bad settings miss the short-prompt SLO at some load")
    if missed:
        met = level_meets(configurations[rec["name"]], missed[0])
        check(met is True or rec["ci"][0] > missed[0],
              f"the recommendation meets the SLO at c={missed[0]}, where the bad settings miss it")
    # Whether the gain is told apart depends on the machine: under ASan beside other tests the
    # accelerated simulator's latencies spread, and a p95 of 80 short prompts has a wide interval.
    # The estimate must be higher; the statistics are unit-tested (test_tune_objective.cpp).
    check(rec["start"] and rec["value"] > rec["start"]["value"], f"gain over the start: {rec['start']}")

    # A CI gate: exit 1 exactly when the settings in use are told apart as worse than the answer.
    # Resumed with the budget spent or the search settled, nothing more is measured.
    runs_before = len(read_json(os.path.join(out, "tune-manifest.json"))["measurements"])
    r = servestat(*args, "--resume", "--fail-on", "start-beaten")
    after = read_json(os.path.join(out, "tune.json"))
    beaten = any(c["start"] and c["status"] == "dropped" for c in after["configurations"])
    check(r.returncode == (1 if beaten else 0), f"--fail-on start-beaten (start dropped: {beaten}): exit "
                                                f"{r.returncode}: {r.stderr[-400:]}")
    check(len(read_json(os.path.join(out, "tune-manifest.json"))["measurements"]) <= runs_before + 1,
          "a finished search resumed measures at most what its budget has left")

    # The rest of the grid, measured here: none is told apart as better than the answer.
    names = {}
    for p in ("1", "2", "3", "4"):
        for b in ("512", "2048", "8192"):
            names[f"max_num_partial_prefills{p}-max_num_batched_tokens{b}"] = (p, b)
    for name, (p, b) in names.items():
        if name in configurations:
            continue
        one = path(f"grid-{name}")
        r = servestat(*tune_args(w, port, one, space=[f"max_num_partial_prefills={p}", f"max_num_batched_tokens={b}"],
                                 start=[], budget="20s"))
        check(r.returncode == 0, f"grid {name}: exit {r.returncode}: {r.stderr[-600:]}")
        g = read_json(os.path.join(one, "tune.json"))
        if g["recommendation"]:
            check(g["recommendation"]["ci"][0] <= rec["ci"][1],
                  f"{name}: {g['recommendation']['value']} {g['recommendation']['ci']} is told apart as better "
                  f"than tune's answer {rec['name']} {rec['value']} {rec['ci']}")

    # The report leads with the answer.
    with open(os.path.join(out, "tune.md")) as f:
        head = f.read(4000)
    check("## Recommendation" in head and "max\\_num\\_partial\\_prefills=" in head, "tune.md leads with the answer")
    for svg in ("plots/tune-objective.svg", "plots/tune-slo-1.svg", "plots/tune-output-tps.svg"):
        check(os.path.exists(os.path.join(out, svg)), f"{svg} written")


def test_usage_errors():
    w = path("w.jsonl")
    with open(w, "w") as f:
        f.write(json.dumps({"messages": [{"role": "user", "content": "hi"}], "max_tokens": 4}) + "\n")
    base = ["tune", "--url", "http://127.0.0.1:9", "--workload", w, "-n", "10", "--space", "max_num_seqs=16..64"]
    usual = ["--slo", "ttft=1", "--budget", "1m"]
    cases = [
        (["--server-cmd", "vllm serve m", "-o", path("u1"), *usual], "{max_num_seqs}"),
        (["--server-cmd", "x {max_num_seqs}", "--start", "max_num_seqs=48", "-o", path("u2"), *usual],
         "not among the --space values"),
        (["--server-cmd", "x {max_num_seqs}", "--budget", "soon", "--slo", "ttft=1", "-o", path("u3")],
         "expected a time such as 2h"),
        (["--server-cmd", "x {max_num_seqs}", "--slo", "medium:ttft=1", "--budget", "1m", "-o", path("u4")],
         "not all, short or long"),
        (["--server-cmd", "x {max_num_seqs}", "--objective", "cost-per-good-token", "-o", path("u5"), *usual],
         "--cost-per-hour"),
        (["--server-cmd", "x {max_num_seqs}", "--resume", "-o", path("u6"), *usual], "does not exist"),
    ]
    for extra, expected in cases:
        r = servestat(*base, *extra, timeout=30)
        check(r.returncode == 2, f"{extra}: exit {r.returncode}: {r.stderr[-300:]}")
        check(expected in r.stderr, f"{extra}: '{expected}' not in: {r.stderr[-300:]}")

    # A folder that holds a tune is resumed, never overwritten; and only with the settings it began with.
    os.makedirs(path("held"), exist_ok=True)
    with open(path("held", "tune-manifest.json"), "w") as f:
        json.dump({"servestat_tune_manifest": 1, "settings": {}, "measurements": []}, f)
    r = servestat(*base, *usual, "--server-cmd", "x {max_num_seqs}", "-o", path("held"), timeout=30)
    check(r.returncode == 2 and "give --resume" in r.stderr, f"held folder: {r.returncode}: {r.stderr[-300:]}")
    r = servestat(*base, *usual, "--server-cmd", "x {max_num_seqs}", "-o", path("held"), "--resume", timeout=30)
    check(r.returncode == 2 and "goes on only with the settings it began with" in r.stderr,
          f"changed settings: {r.returncode}: {r.stderr[-300:]}")


if __name__ == "__main__":
    sys.exit(run_tests(WORK, [test_usage_errors, test_experiment_5]))
