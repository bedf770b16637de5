#!/usr/bin/python3
"""CLI tests for `servestat load` and `servestat workload` against `servestat simulate` on loopback.

Closed and open loop (counts, ids, t_sched spacing, seeds, gamma arrivals, coordinated omission
under --max-concurrency), --no-stream, --duration, the notebook's Experiment 1 / 1.1 (HTTP 400
overflows with --no-budget, none with the context budget), the server killed mid-run, a slow server
(timeouts), malformed SSE from a hand-written server, the driver killed with SIGKILL, sweeps
(manifest, SIGINT, --resume, --grid with --server-cmd, a server that does not start), warm-up,
--extra, --param, --scrape-metrics, bad URLs, trace replay and `servestat workload`'s mixes.

Every log is read twice: as raw JSONL against the canonical format (../shared/DESIGN.md, "Canonical
log format") and through `servestat stats --json`. Each test starts its own simulator with
--time-scale so that the whole file runs in well under a minute; no assertion depends on timing
beyond relations with wide margins.

Token counts follow the simulator's documented heuristic (docs/simulator.md): "word " * N is N
tokens, and a chat of one user message adds Qwen2.5's template and default system prompt, 34 tokens
(3 + 5 + 26; checked against /tokenize below).

Usage: test_load.py SERVESTAT_BINARY WORK_DIR [SHARED_DATA_DIR]   (run by ctest)
"""
import http.client
import json
import math
import os
import re
import signal
import socket
import socketserver
import subprocess
import sys
import threading
import time

from checks import check, metric_value, run_tests, start_simulator

SERVESTAT, WORK = sys.argv[1], sys.argv[2]
HERE = os.path.dirname(os.path.abspath(__file__))
SHARED_DATA = sys.argv[3] if len(sys.argv) > 3 else os.path.join(HERE, "..", "..", "..", "shared", "data")
MODEL = "Qwen/Qwen2.5-3B-Instruct"
CHAT_TEMPLATE_TOKENS = 34  # one user message: 3 (assistant prompt) + 5 (its frame) + 26 (default system prompt)
STATUSES = {"ok", "error", "timeout", "transport", "cancelled"}
REQUEST_KEYS = {"id", "t_sched", "t_sent", "t_first", "t_end", "prompt_tokens", "output_tokens", "max_tokens",
                "status", "http_status", "error", "itl", "server_queue", "server_prefill", "server_decode",
                "server_ttft", "server_itl", "server_spec_acceptance", "server_draft_acceptance", "trimmed", "prompt_tokens_original", "connect_time", "tls_time", "cached_tokens", "session", "turn",
                "cacheable_tokens"}
REQUIRED_KEYS = {"id", "t_sched", "t_sent", "t_end", "prompt_tokens", "output_tokens", "max_tokens", "status"}
OVERFLOW = ("'max_tokens' or 'max_completion_tokens' is too large: 128. This model's maximum context length is 4096 "
            "tokens and your request has {0} input tokens (128 > 4096 - {0}).")
PROMPT_OVERFLOW = ("This model's maximum context length is 4096 tokens. However, your request has {0} input tokens. "
                   "Please reduce the length of the input messages.")


def path(name):
    return os.path.join(WORK, name)


class Simulator:
    """A `servestat simulate --port 0` process and the port it printed."""
    count = 0

    def __init__(self, *args):
        Simulator.count += 1
        self.log = open(path(f"simulator{Simulator.count}.log"), "w")
        self.proc, self.port = start_simulator(SERVESTAT, self.log, *args)
        self.url = f"http://127.0.0.1:{self.port}"

    def request(self, method, target, body=None):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=20)
        try:
            conn.request(method, target, body=json.dumps(body) if body is not None else None,
                         headers={"Content-Type": "application/json"})
            r = conn.getresponse()
            return r.status, r.read()
        finally:
            conn.close()

    def tokenize_chat(self, content):
        status, body = self.request("POST", "/tokenize", {"messages": [{"role": "user", "content": content}]})
        check(status == 200, f"/tokenize: {status}")
        return json.loads(body)["count"]

    def metric(self, name):
        _, body = self.request("GET", "/metrics")
        return metric_value(body.decode(), name)

    def kill(self):
        self.proc.kill()
        self.proc.wait()
        self.log.close()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


class Result:
    """What a finished command left: exit code (None when it had to be killed), stdout, stderr."""

    def __init__(self, returncode, stdout, stderr):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


def servestat(*args, timeout=60):
    try:
        r = subprocess.run([SERVESTAT, *map(str, args)], capture_output=True, text=True, timeout=timeout)
        return Result(r.returncode, r.stdout, r.stderr)
    except subprocess.TimeoutExpired as e:
        check(False, f"servestat {' '.join(map(str, args))[:200]} still running after {timeout} s")
        return Result(None, e.stdout or "", e.stderr or "")


def load(url, *args, timeout=60):
    return servestat("load", "--url", url, "-q", *args, timeout=timeout)


def load_ok(url, *args, timeout=60):
    r = load(url, *args, timeout=timeout)
    check(r.returncode == 0, f"load {' '.join(map(str, args))[:160]}: exit {r.returncode}: {r.stderr[-600:]}")
    return r


def start_load(url, *args):
    """The driver in the background (to signal it mid-run); stderr goes to a file."""
    err = open(path(f"load-{time.monotonic_ns()}.err"), "w+")
    proc = subprocess.Popen([SERVESTAT, "load", "--url", url, "-q", *map(str, args)], stdout=subprocess.DEVNULL,
                            stderr=err, text=True)
    return proc, err


def finish(proc, err, timeout=30):
    try:
        rc = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        check(False, f"the driver still runs after {timeout} s")
        proc.kill()
        rc = proc.wait()
    err.seek(0)
    text = err.read()
    err.close()
    return rc, text


def request_lines(log):
    try:
        with open(log, "rb") as f:
            return f.read().count(b"\n") - 1
    except OSError:
        return -1


def wait_until(condition, seconds=20):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.01)
    return False


def write_workload(name, rows):
    """rows: (words, max_tokens): a chat request whose user message is "word " * words."""
    file = path(name)
    with open(file, "w") as f:
        for words, max_tokens in rows:
            f.write(json.dumps({"messages": [{"role": "user", "content": "word " * words}], "max_tokens": max_tokens,
                                "temperature": 0.0}) + "\n")
    return file


def is_seconds(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) and x >= 0


def read_log(log, what, stream=True):
    """(header, requests) of a log read as plain JSONL, each line checked against the canonical format."""
    try:
        with open(log, "rb") as f:
            data = f.read()
    except OSError as e:
        check(False, f"{what}: {e}")
        return {}, []
    check(data.endswith(b"\n"), f"{what}: the log ends with a newline: {data[-80:]!r}")
    lines = data.decode().split("\n")
    if lines[-1] == "":
        lines.pop()
    try:
        header = json.loads(lines[0])
    except (ValueError, IndexError):
        check(False, f"{what}: the header is not JSON: {lines[:1]!r}")
        return {}, []
    run = header.get("run", {})
    check(header.get("servestat") == "log" and header.get("version") == 1 and isinstance(run, dict) and
          isinstance(run.get("label"), str) and run["label"] and isinstance(run.get("params"), dict) and
          run.get("model") and isinstance(run.get("workload"), str) and
          re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z", run.get("started_at", "")) is not None,
          f"{what}: header {lines[0][:300]}")
    rows = []
    for n, line in enumerate(lines[1:], start=2):
        try:
            r = json.loads(line)
        except ValueError:
            check(False, f"{what}: line {n} is not JSON: {line[:120]!r}")
            continue
        rows.append(r)
        where = f"{what}: line {n} {line[:240]}"
        if not (isinstance(r, dict) and REQUIRED_KEYS <= set(r) and set(r) <= REQUEST_KEYS):
            check(False, f"{where}: keys {sorted(r) if isinstance(r, dict) else r}")
            continue
        check(isinstance(r["id"], str) and r["status"] in STATUSES, f"{where}: id or status")
        check(all(is_seconds(r[k]) for k in ("t_sched", "t_sent", "t_end") + (("t_first",) if "t_first" in r else ())),
              f"{where}: times are seconds")
        check(all(isinstance(r[k], int) and r[k] >= 0 for k in ("prompt_tokens", "output_tokens", "max_tokens")),
              f"{where}: token counts")
        check(r["t_sched"] <= r["t_sent"] <= r["t_end"], f"{where}: t_sched <= t_sent <= t_end")
        if "t_first" in r:
            check(r["t_sent"] <= r["t_first"] <= r["t_end"], f"{where}: t_sent <= t_first <= t_end")
        if "itl" in r:
            check(isinstance(r["itl"], list) and all(is_seconds(g) for g in r["itl"]), f"{where}: itl")
        if "trimmed" in r:
            check(r["trimmed"] is True and isinstance(r.get("prompt_tokens_original"), int), f"{where}: trimmed")
        if r["status"] == "ok":
            check(r.get("http_status") == 200 and "error" not in r, f"{where}: ok is HTTP 200 without an error")
            if stream:
                check("t_first" in r or r["output_tokens"] == 0, f"{where}: a streamed ok request has t_first")
        else:
            check(isinstance(r.get("error"), str) and len(r["error"]) > 3, f"{where}: a failure says why")
        if r["status"] == "error":
            check(isinstance(r.get("http_status"), int), f"{where}: an HTTP error has its status")
    return header, rows


def only_one_of(path, key, what, empty):
    """`servestat stats --json PATH`'s one element of `key` ("runs", "sweeps"); `empty` when it
    fails or there are more (the check says which)."""
    r = servestat("stats", "--json", path)
    check(r.returncode == 0, f"{what}: servestat stats exit {r.returncode}: {r.stderr[-400:]}")
    try:
        found = json.loads(r.stdout)[key]
        check(len(found) == 1, f"{what}: stats has one of {key}, got {len(found)}")
        return found[0]
    except (ValueError, KeyError, IndexError):
        check(False, f"{what}: stats --json: {r.stdout[:200]!r}")
        return empty


def stats_of(log, what):
    """`servestat stats --json` of one log: its run object."""
    return only_one_of(log, "runs", what, {})


def check_stats_agree(log, rows, what):
    run = stats_of(log, what)
    ok = sum(r["status"] == "ok" for r in rows)
    check(run.get("requests") == len(rows) and run.get("ok") == ok and run.get("failed") == len(rows) - ok,
          f"{what}: stats requests/ok/failed {run.get('requests')}/{run.get('ok')}/{run.get('failed')}, "
          f"log {len(rows)}/{ok}")
    return run


def by_id(rows):
    return sorted(rows, key=lambda r: int(r["id"]))


# ---- closed and open loop ------------------------------------------------------------------------

def test_closed_loop():
    sim = Simulator("--time-scale", "50", "--enable-per-request-metrics")
    try:
        # Prompt lengths and max_tokens unique per row: max_tokens tells which row a request sent.
        rows = [(5 + 7 * i, 10 + i) for i in range(10)]
        workload = write_workload("closed.jsonl", rows)
        expected_prompt = {}
        for words, max_tokens in rows:
            tokens = sim.tokenize_chat("word " * words)
            check(tokens == words + CHAT_TEMPLATE_TOKENS, f"/tokenize of {words} words: {tokens}")
            expected_prompt[max_tokens] = tokens
        log = path("closed.log.jsonl")
        r = load_ok(sim.url, "--workload", workload, "--concurrency", 4, "-n", 40, "--seed", 3, "-o", log)
        check("40 requests, 40 ok, 0 failed" in r.stderr and log in r.stderr, f"summary line: {r.stderr!r}")
        header, reqs = read_log(log, "closed loop")
        check(len(reqs) == 40, f"40 request lines, got {len(reqs)}")
        check(sorted(int(q["id"]) for q in reqs) == list(range(40)), "ids 0..39, each once")
        run = header.get("run", {})
        params = run.get("params", {})
        check(run.get("label") == "closed-c4" and run.get("workload") == "closed" and run.get("model") == MODEL,
              f"run {run.get('label')} {run.get('workload')} {run.get('model')}")
        check(params.get("concurrency") == 4 and params.get("requests") == 40 and params.get("seed") == 3 and
              params.get("budget") is True and params.get("stream") is True and params.get("max_model_len") == 4096 and
              params.get("token_counts") == "server /tokenize", f"header params {params}")
        check(run.get("server", {}).get("max_model_len") == 4096 and run.get("server", {}).get("id") == MODEL,
              f"server card {run.get('server')}")
        for q in reqs:
            where = f"closed loop request {q['id']}"
            check(q["status"] == "ok" and q["http_status"] == 200, f"{where}: {q['status']}")
            check(q["max_tokens"] in expected_prompt and q["prompt_tokens"] == expected_prompt.get(q["max_tokens"]),
                  f"{where}: prompt_tokens {q['prompt_tokens']} is /tokenize's for the row with max_tokens "
                  f"{q['max_tokens']} ({expected_prompt.get(q['max_tokens'])})")
            check(q["output_tokens"] == q["max_tokens"], f"{where}: output {q['output_tokens']} of {q['max_tokens']}")
            check(len(q.get("itl", [])) == q["output_tokens"] - 1, f"{where}: {len(q.get('itl', []))} itl gaps")
            check(all(k in q for k in ("t_first", "server_queue", "server_prefill", "server_decode")),
                  f"{where}: t_first and server timings")
        stats = check_stats_agree(log, reqs, "closed loop")
        check(stats.get("peak_concurrency") == 4, f"peak concurrency {stats.get('peak_concurrency')}")
        check(stats.get("params", {}).get("concurrency") == 4, "stats sees the header params")
        # The seed fixes which row each request sends.
        again = path("closed-again.jsonl")
        load_ok(sim.url, "--workload", workload, "--concurrency", 4, "-n", 40, "--seed", 3, "-o", again)
        other = path("closed-other.jsonl")
        load_ok(sim.url, "--workload", workload, "--concurrency", 4, "-n", 40, "--seed", 4, "-o", other)
        order = [q["max_tokens"] for q in by_id(reqs)]
        check([q["max_tokens"] for q in by_id(read_log(again, "closed again")[1])] == order,
              "the same seed sends the same rows in the same order")
        check([q["max_tokens"] for q in by_id(read_log(other, "closed other seed")[1])] != order,
              "another seed sends another order")
        check(len(set(order)) >= 8, f"draws cover the workload: {sorted(set(order))}")
    finally:
        sim.stop()


def test_no_stream():
    sim = Simulator("--time-scale", "50", "--enable-per-request-metrics")
    try:
        workload = write_workload("nostream.jsonl", [(10, 8), (20, 12)])
        log = path("nostream.log.jsonl")
        load_ok(sim.url, "--workload", workload, "--concurrency", 2, "-n", 6, "--no-stream", "-o", log)
        header, reqs = read_log(log, "--no-stream", stream=False)
        check(header.get("run", {}).get("params", {}).get("stream") is False, "stream false in the header")
        check(len(reqs) == 6 and all(q["status"] == "ok" for q in reqs),
              f"--no-stream: {[(q['status'], q.get('error')) for q in reqs]}")
        for q in reqs:
            check(q["prompt_tokens"] == {8: 44, 12: 54}.get(q["max_tokens"]) and q["output_tokens"] == q["max_tokens"]
                  and "t_first" not in q and "itl" not in q and "server_decode" in q,
                  f"--no-stream request: usage from the body, no TTFT, server timings: {q}")
        check_stats_agree(log, reqs, "--no-stream")
    finally:
        sim.stop()


def test_server_timings_from_vllms_metrics():
    """The simulator speaks vLLM's per-request metrics (--enable-per-request-metrics); the driver logs
    them as server_queue, server_prefill and server_decode in seconds, for completions as for chat:
    streamed (it asks for the usage chunk, where vLLM puts them) and whole. Without the flag the
    server reports nothing and the log has nothing of it."""
    workload = path("prompts.jsonl")
    with open(workload, "w") as f:
        for max_tokens in (4, 6):
            f.write(json.dumps({"prompt": "word " * 10, "max_tokens": max_tokens, "temperature": 0.0}) + "\n")
    sim = Simulator("--time-scale", "50", "--enable-per-request-metrics")
    plain = Simulator("--time-scale", "50")
    try:
        for stream in (True, False):
            log = path(f"prompts-stream-{stream}.jsonl")
            load_ok(sim.url, "--workload", workload, "--concurrency", 1, "-n", 4, "--seed", 1, "-o", log,
                    *([] if stream else ["--no-stream"]))
            _, reqs = read_log(log, f"completions, stream {stream}", stream=stream)
            check(len(reqs) == 4 and all(q["status"] == "ok" for q in reqs), f"stream {stream}: {reqs[:1]}")
            for q in reqs:
                # One client, so each request is alone on the engine: no queue, a prefill of one step of
                # 0.004 + 0.0001 * 10 s, max_tokens - 1 decode steps of 0.004 + 0.0004 s; / 50.
                decode = (q["max_tokens"] - 1) * 0.0044 / 50
                check(q.get("server_queue") == 0 and abs(q.get("server_prefill", -1) - 0.0001) <= 1e-6 and
                      abs(q.get("server_decode", -1) - decode) <= 1e-6,
                      f"stream {stream}: server timings of a lone request, decode {decode:.6f}: {q}")
                # vLLM's mean_itl_ms: decode over its max_tokens - 1 gaps, 0.0044 / 50 s each.
                check(abs(q.get("server_itl", -1) - 0.0044 / 50) <= 1e-6, f"stream {stream}: server_itl: {q}")
            # The time split by the server's clock (issue 50): its parts add up to the client's latency
            # (a whole body has no first-token time to split at).
            if not stream:
                continue
            out = path(f"split-report-{stream}")
            res = subprocess.run([SERVESTAT, "report", log, "-o", out, "--format", "json"], capture_output=True, text=True)
            check(res.returncode == 0, f"report: {res.stderr}")
            with open(os.path.join(out, "report.json")) as f:
                run = json.load(f)["runs"][0]
            split = (run.get("time_split") or {}).get("subsets", {}).get("all", {})
            e2e = run["subsets"]["all"]["metrics"]["e2e_sched"]["mean"]
            check(split.get("n") == 4 and abs(split.get("total", 0) - e2e) <= 1e-9 * e2e and split["server_ahead"] == 0,
                  f"stream {stream}: the split adds up to the mean e2e {e2e}: {split}")
        log = path("prompts-plain.jsonl")
        load_ok(plain.url, "--workload", workload, "--concurrency", 1, "-n", 2, "-o", log)
        _, reqs = read_log(log, "completions without per-request metrics")
        check(len(reqs) == 2 and not any(k.startswith("server_") for q in reqs for k in q),
              f"no server timings when the server reports none: {reqs}")
    finally:
        sim.stop()
        plain.stop()


def gaps(ts):
    return [b - a for a, b in zip(ts, ts[1:])]


def test_open_loop():
    sim = Simulator("--time-scale", "50")
    try:
        workload = write_workload("open.jsonl", [(10, 8), (30, 12)])
        log = path("poisson.jsonl")
        r = load_ok(sim.url, "--workload", workload, "--rate", 50, "-n", 60, "-o", log)
        if r.returncode != 0:  # reported above; the label given, the rest can still be checked
            load_ok(sim.url, "--workload", workload, "--rate", 50, "-n", 60, "-o", log, "--label", "open-r50")
        header, reqs = read_log(log, "poisson")
        check(len(reqs) == 60 and all(q["status"] == "ok" for q in reqs), f"poisson: {len(reqs)} requests, all ok")
        params = header.get("run", {}).get("params", {})
        check(params.get("arrivals") == "poisson" and "concurrency" not in params and header["run"]["label"] ==
              "open-r50", f"poisson header {header.get('run', {}).get('label')} {params}")
        ts = [q["t_sched"] for q in by_id(reqs)]
        g = gaps([0.0] + ts)
        mean = sum(g) / max(len(g), 1)
        cv = math.sqrt(sum((x - mean) ** 2 for x in g) / max(len(g) - 1, 1)) / mean if mean > 0 else 0
        # Exponential gaps of mean 0.02 s: 60 of them have a mean within 30% and a CV near 1 (seeded,
        # so the same numbers every run; the bounds only say "Poisson, not constant, rate 50").
        check(ts[0] > 0 and all(x >= 0 for x in g) and 0.014 < mean < 0.026 and 0.6 < cv < 1.4,
              f"poisson schedule: first {ts[0]}, mean gap {mean}, cv {cv}")
        check_stats_agree(log, reqs, "poisson")

        log = path("constant.jsonl")
        load_ok(sim.url, "--workload", workload, "--rate", 50, "--constant", "-n", 60, "-o", log, "--label", "constant")
        header, reqs = read_log(log, "constant")
        ts = [q["t_sched"] for q in by_id(reqs)]
        check(len(ts) == 60 and all(abs(t - i * 0.02) <= 1e-6 for i, t in enumerate(ts)),
              f"constant spacing: t_sched = i / 50: {ts[:5]}...")
        check(header.get("run", {}).get("params", {}).get("arrivals") == "constant", "constant in the header")

        # Seeds: a fast rate so these runs take a fraction of a second.
        def schedule(seed, name):
            f = path(name)
            load_ok(sim.url, "--workload", workload, "--rate", 500, "-n", 30, "--seed", seed, "-o", f, "--label", name)
            return [q["t_sched"] for q in by_id(read_log(f, name)[1])]

        a, b, c = schedule(7, "seed7a.jsonl"), schedule(7, "seed7b.jsonl"), schedule(8, "seed8.jsonl")
        check(len(a) == 30 and a == b, "the same seed gives the same t_sched sequence")
        check(a != c, "another seed gives another schedule")

        # Gamma arrivals of shape 0.25: the same mean rate, gaps with a CV near 1/sqrt(0.25) = 2.
        log = path("gamma.jsonl")
        load_ok(sim.url, "--workload", workload, "--rate", 500, "--burstiness", 0.25, "-n", 80, "-o", log, "--label",
                "gamma")
        header, reqs = read_log(log, "gamma")
        g = gaps([0.0] + [q["t_sched"] for q in by_id(reqs)])
        mean = sum(g) / max(len(g), 1)
        cv = math.sqrt(sum((x - mean) ** 2 for x in g) / max(len(g) - 1, 1)) / mean if mean > 0 else 0
        params = header.get("run", {}).get("params", {})
        check(len(reqs) == 80 and 0.001 < mean < 0.004 and cv > 1.4,
              f"gamma 0.25 schedule: mean gap {mean}, cv {cv}")
        check(params.get("arrivals") == "gamma" and params.get("burstiness") == 0.25, f"gamma header {params}")

        # Coordinated omission: one request at a time, due every 1 ms, each taking ~12 ms: the lateness
        # (client_queue = t_sent - t_sched) accumulates instead of vanishing.
        log = path("omission.jsonl")
        load_ok(sim.url, "--workload", workload, "--rate", 1000, "--constant", "--max-concurrency", 1, "-n", 20,
                "--max-tokens", 128, "-o", log, "--label", "omission")
        header, reqs = read_log(log, "max-concurrency 1")
        reqs = by_id(reqs)
        queue = [q["t_sent"] - q["t_sched"] for q in reqs]
        check(len(reqs) == 20 and all(abs(q["t_sched"] - i / 1000) <= 1e-6 for i, q in enumerate(reqs)),
              "t_sched stays on the schedule")
        check(queue[0] < 0.01 and queue[-1] > queue[0] + 0.1,
              f"client_queue grows: first {queue[0]:.4f} s, last {queue[-1]:.4f} s")
        spans = sorted((q["t_sent"], q["t_end"]) for q in reqs)
        check(all(b[0] >= a[1] for a, b in zip(spans, spans[1:])), "never two requests in flight")
        check(header.get("run", {}).get("params", {}).get("max_concurrency") == 1, "max_concurrency in the header")
        stats = check_stats_agree(log, reqs, "max-concurrency 1")
        check(stats.get("peak_concurrency") == 1, f"peak concurrency {stats.get('peak_concurrency')}")
        cq = stats.get("subsets", {}).get("all", {}).get("metrics", {}).get("client_queue", {})
        check(isinstance(cq.get("max"), (int, float)) and cq["max"] > 0.1, f"stats client_queue {cq}")
    finally:
        sim.stop()


def test_duration():
    sim = Simulator("--time-scale", "50")
    try:
        workload = write_workload("dur.jsonl", [(10, 32)])
        log = path("duration-closed.jsonl")
        start = time.monotonic()
        load_ok(sim.url, "--workload", workload, "--concurrency", 2, "--duration", 0.5, "-o", log)
        wall = time.monotonic() - start
        header, reqs = read_log(log, "closed --duration")
        check(len(reqs) > 4 and all(q["status"] == "ok" for q in reqs), f"closed --duration: {len(reqs)} requests")
        check(max(q["t_sched"] for q in reqs) < 0.5 + 0.05, "no request starts after the duration")
        check(wall < 10, f"the run ends soon after the duration ({wall:.1f} s)")
        check(header.get("run", {}).get("params", {}).get("duration") == 0.5, "duration in the header")
        check_stats_agree(log, reqs, "closed --duration")
        # Open loop: constant spacing over D seconds holds exactly ceil(R D) requests.
        log = path("duration-open.jsonl")
        load_ok(sim.url, "--workload", workload, "--rate", 100, "--constant", "--duration", 0.3, "-o", log,
                "--label", "duration-open")
        _, reqs = read_log(log, "open --duration")
        ts = sorted(q["t_sched"] for q in reqs)
        check(len(ts) == 30 and all(abs(t - i / 100) <= 1e-6 for i, t in enumerate(ts)),
              f"open --duration 0.3 at 100/s: {len(ts)} requests at i/100")
    finally:
        sim.stop()


# ---- the notebook's Experiment 1 and 1.1 -------------------------------------------------------------

def test_context_overflow_and_budget():
    sim = Simulator("--time-scale", "50")
    try:
        # Chat prompts of 54, 3984 and 4074 tokens; max_tokens 128 overflows the 4096 window for the
        # last two (Experiment 1); the budget lowers max_tokens to 96 for the first of them and has to
        # trim the second (6 tokens left is under --min-output-tokens 32) (Experiment 1.1).
        words = [20, 3950, 4040]
        workload = write_workload("overflow.jsonl", [(w, 128) for w in words])
        tokens = [sim.tokenize_chat("word " * w) for w in words]
        check(tokens == [54, 3984, 4074], f"prompt tokens {tokens}")
        log = path("nobudget.jsonl")
        r = load_ok(sim.url, "--workload", workload, "--concurrency", 3, "-n", 15, "--no-budget", "-o", log)
        header, reqs = read_log(log, "--no-budget")
        check(len(reqs) == 15, f"--no-budget: {len(reqs)} requests")
        check({q["prompt_tokens"] for q in reqs} == set(tokens), "every row was sent")
        failed = 0
        for q in reqs:
            where = f"--no-budget request {q['id']} ({q['prompt_tokens']} prompt tokens)"
            check(q["max_tokens"] == 128 and "trimmed" not in q, f"{where}: max_tokens as the workload says")
            if q["prompt_tokens"] + 128 > 4096:
                failed += 1
                check(q["status"] == "error" and q.get("http_status") == 400 and
                      q.get("error") == OVERFLOW.format(q["prompt_tokens"]) and q["output_tokens"] == 0,
                      f"{where}: vLLM's 400: {q.get('status')} {q.get('http_status')} {q.get('error')!r}")
            else:
                check(q["status"] == "ok" and q["output_tokens"] == 128, f"{where}: ok")
        check(failed > 0, "some requests overflow")
        check(header.get("run", {}).get("params", {}).get("budget") is False, "budget false in the header")
        run = check_stats_agree(log, reqs, "--no-budget")
        check(run.get("failed") == failed, f"stats counts {run.get('failed')} failures, the log {failed}")

        log = path("budget.jsonl")
        r = load_ok(sim.url, "--workload", workload, "--concurrency", 3, "-n", 15, "-o", log)
        check("1 of 3 workload rows trimmed" in r.stderr, f"trim notice: {r.stderr!r}")
        header, reqs = read_log(log, "budget")
        params = header.get("run", {}).get("params", {})
        check(params.get("budget") is True and params.get("budget_margin") == 16 and
              params.get("max_model_len") == 4096, f"budget params {params}")
        check(len(reqs) == 15 and all(q["status"] == "ok" for q in reqs), "budgeting: no failure")
        originals = set()
        for q in reqs:
            where = f"budgeted request {q['id']} {q}"
            original = q.get("prompt_tokens_original", q["prompt_tokens"])
            originals.add(original)
            check(q["prompt_tokens"] + q["max_tokens"] <= 4096 - 16 and q["output_tokens"] == q["max_tokens"],
                  f"{where}: fits the window with the margin")
            if original == 54:
                check(q["max_tokens"] == 128 and "trimmed" not in q, f"{where}: untouched")
            elif original == 3984:
                check(q["max_tokens"] == 96 and "trimmed" not in q and q["prompt_tokens"] == 3984,
                      f"{where}: max_tokens lowered to 4096 - 16 - 3984")
            else:
                check(q.get("trimmed") is True and original == 4074 and q["prompt_tokens"] < 4074 and
                      32 <= q["max_tokens"] < 128, f"{where}: trimmed")
        check(originals == set(tokens), f"every row was sent: {originals}")
        check_stats_agree(log, reqs, "budget")

        # The notebook's own route: a mix_70_30 workload, long prompts up to 4096 text tokens, of which
        # 5 of the 200 rows overflow with max_tokens 128 (seed 999, the default).
        mix = path("mix_70_30.jsonl")
        w = servestat("workload", "--preset", "mix_70_30", "-n", 200, "-o", mix)
        check(w.returncode == 0, f"workload mix_70_30: {w.stderr}")
        for flag, name in (("--no-budget", "mix-nobudget.jsonl"), ("--quiet", "mix-budget.jsonl")):
            log = path(name)
            load_ok(sim.url, "--workload", mix, "--concurrency", 8, "-n", 200, flag, "-o", log)
            _, reqs = read_log(log, name)
            bad = [q for q in reqs if q["status"] != "ok"]
            over = [q for q in reqs if q["prompt_tokens"] + 128 > 4096]
            if flag == "--no-budget":
                check(len(bad) > 0 and [q["id"] for q in bad] == [q["id"] for q in over] and
                      all(q.get("http_status") == 400 and q.get("error") in (
                          OVERFLOW.format(q["prompt_tokens"]), PROMPT_OVERFLOW.format(q["prompt_tokens"]))
                          for q in bad), f"mix_70_30 --no-budget: {len(bad)} failures, {len(over)} overflows, "
                                         f"all vLLM's 400: {[(q['prompt_tokens'], q.get('error')) for q in bad][:3]}")
            else:
                fits = all(q["prompt_tokens"] + q["max_tokens"] <= 4096 - 16 for q in reqs)
                check(len(reqs) == 200 and not bad and fits and any(q["max_tokens"] < 128 for q in reqs),
                      f"mix_70_30 budgeted: {len(bad)} failures, all fit: {fits}")
    finally:
        sim.stop()


# ---- failures: the server killed, a slow server, malformed responses ---------------------------

def test_server_killed_mid_run():
    # Real time: each request takes ~0.15 s, the run ~1.5 s unless the server dies.
    sim = Simulator("--time-scale", "1")
    workload = write_workload("killed.jsonl", [(10, 32)])
    log = path("server-killed.jsonl")
    proc, err = start_load(sim.url, "--workload", workload, "--concurrency", 4, "-n", 40, "-o", log)
    check(wait_until(lambda: request_lines(log) >= 8), "some requests complete")
    sim.kill()
    rc, stderr = finish(proc, err)
    # The failure guard stops sending after 10 connection failures in a row (test_load_stop.py has more).
    check(rc == 4 and "connection failures in a row" in stderr,
          f"the driver exits 4 once the server is gone: {rc} {stderr[-400:]!r}")
    header, reqs = read_log(log, "server killed")
    check(header.get("run", {}).get("end", {}).get("requests_sent") == len(reqs) and len(reqs) < 40 and
          sorted(int(q["id"]) for q in reqs) == list(range(len(reqs))),
          f"no request sent is lost, the rest not sent: {len(reqs)} of 40")
    statuses = [q["status"] for q in reqs]
    check(set(statuses) == {"ok", "transport"} and statuses.count("ok") >= 8,
          f"completed ones ok, the rest transport: {sorted(set(statuses))} {statuses.count('ok')} ok")
    check(all(q["error"].startswith("transport") for q in reqs if q["status"] == "transport"),
          "transport errors say so")
    check_stats_agree(log, reqs, "server killed")


def test_slow_server_times_out():
    # 20x slower than real time: 32 tokens take ~3 s, the timeout is 0.5 s.
    sim = Simulator("--time-scale", "0.05")
    try:
        workload = write_workload("slow.jsonl", [(10, 32)])
        log = path("slow.jsonl")
        start = time.monotonic()
        r = load_ok(sim.url, "--workload", workload, "--concurrency", 2, "-n", 4, "--timeout", 0.5, "-o", log)
        check(time.monotonic() - start < 15, "the run completes")
        header, reqs = read_log(log, "slow server")
        check(len(reqs) == 4 and all(q["status"] == "timeout" for q in reqs),
              f"all four time out: {[q['status'] for q in reqs]}")
        check(all(0.45 <= q["t_end"] - q["t_sent"] < 3 and "0.5" in q["error"] and "t_first" not in q for q in reqs),
              f"ended at the timeout: {[(q['t_end'] - q['t_sent'], q['error']) for q in reqs]}")
        check(header.get("run", {}).get("params", {}).get("timeout") == 0.5, "timeout in the header")
        check_stats_agree(log, reqs, "slow server")
        check("0 ok, 4 failed" in r.stderr, f"summary: {r.stderr!r}")
    finally:
        sim.stop()


def chunk(data):
    return b"%x\r\n" % len(data) + data + b"\r\n"


def event(obj, nl="\n"):
    text = obj if isinstance(obj, str) else json.dumps(obj)
    return f"data: {text}{nl}{nl}".encode()


def delta(content=None, role=None):
    d = {}
    if role:
        d["role"] = role
    if content is not None:
        d["content"] = content
    return {"id": "chatcmpl-x", "object": "chat.completion.chunk", "model": "fake",
            "choices": [{"index": 0, "delta": d, "finish_reason": None}]}


USAGE = {"id": "chatcmpl-x", "object": "chat.completion.chunk", "choices": [],
         "usage": {"prompt_tokens": 11, "completion_tokens": 3, "total_tokens": 14}}
STREAM_HEAD = (b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n"
               b"Cache-Control: no-cache\r\n\r\n")


class FakeServer:
    """An OpenAI-compatible server that misbehaves as `mode` says; records what it was sent."""

    def __init__(self):
        self.mode = "good"
        self.requests = []  # (method, path, headers, body) of every request
        fake = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self):
                self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                try:
                    fake.serve(self.request)
                except OSError:
                    pass  # the driver hung up on a response it gave up on

        class Server(socketserver.ThreadingTCPServer):
            daemon_threads = True
            allow_reuse_address = True

        self.server = Server(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()

    def serve(self, sock):
        buf = b""
        while True:
            while b"\r\n\r\n" not in buf:
                part = sock.recv(65536)
                if not part:
                    return
                buf += part
            head, _, buf = buf.partition(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            method, target, _ = lines[0].split(" ", 2)
            headers = {k.strip().lower(): v.strip() for k, v in (l.split(":", 1) for l in lines[1:] if ":" in l)}
            length = int(headers.get("content-length", "0"))
            while len(buf) < length:
                part = sock.recv(65536)
                if not part:
                    return
                buf += part
            body, buf = buf[:length], buf[length:]
            self.requests.append((method, target, headers, body))
            if not self.respond(sock, method, target, body):
                sock.shutdown(socket.SHUT_RDWR)
                return

    @staticmethod
    def whole(sock, status, obj, content_type="application/json"):
        body = json.dumps(obj).encode()
        sock.sendall(b"HTTP/1.1 %d X\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n" %
                     (status, content_type.encode(), len(body)) + body)
        return True

    def respond(self, sock, method, target, body):
        if method == "GET" and target == "/v1/models":
            return self.whole(sock, 200, {"object": "list", "data": [{"id": "fake", "object": "model",
                                                                      "max_model_len": 4096}]})
        if method == "POST" and target == "/tokenize":
            request = json.loads(body)
            text = request.get("prompt") or " ".join(m["content"] for m in request.get("messages", []))
            return self.whole(sock, 200, {"count": len(text.split()) + 5, "max_model_len": 4096})
        if method != "POST" or target != "/v1/chat/completions":
            return self.whole(sock, 404, {"error": {"message": "no such route", "code": 404}})
        m = self.mode
        if m == "http500":
            return self.whole(sock, 500, {"error": {"message": "boom inside the engine", "type": "InternalServerError",
                                                    "param": None, "code": 500}})
        if m == "json_content_type":
            return self.whole(sock, 200, {"id": "x", "object": "chat.completion", "choices": [
                {"index": 0, "message": {"role": "assistant", "content": "hi"}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 11, "completion_tokens": 1, "total_tokens": 12}})
        nl = "\r" if m == "good_cr" else "\r\n" if m == "good_split" else "\n"
        first = event(delta("", role="assistant"), nl)
        contents = [event(delta(" one"), nl),
                    # One event in two data lines: SSE joins them with a newline, still one JSON object.
                    f'data: {{"id":"chatcmpl-x","choices":[{{"index":0,{nl}data: "delta":{{"content":" two"}}}}]}}'
                    f'{nl}{nl}'.encode(),
                    event(delta(" three"), nl)]
        tail = {
            "good": [event(USAGE), event("[DONE]")],
            "good_cr": [event(USAGE, nl), event("[DONE]", nl)],
            "good_split": [f": keep-alive comment{nl}".encode(), event(USAGE, nl), event("[DONE]", nl)],
            "bad_json": [b'data: {"choices": [{"delta": {"content": "x"}\n\n', event("[DONE]")],
            "no_done": [event(USAGE)],
            "cut_event": [event(USAGE), b'data: {"choices": [{"index": 0, "del'],
            "cut_connection": [b'data: {"choices": [{"index": 0, "del'],
            "error_event": [event({"error": {"message": "engine died mid-stream", "type": "InternalServerError",
                                             "code": 500}}), event("[DONE]")],
        }[m]
        sock.sendall(STREAM_HEAD)
        if m == "good_split":
            # The role-only chunk, a pause, then the rest cut into 7-byte HTTP chunks sent in 11-byte
            # TCP writes, so lines, events and the chunked framing are all split.
            sock.sendall(chunk(f": hello{nl}".encode()) + chunk(first))
            time.sleep(0.2)
            rest = b"".join(contents + tail)
            framed = b"".join(chunk(rest[i:i + 7]) for i in range(0, len(rest), 7)) + b"0\r\n\r\n"
            for i in range(0, len(framed), 11):
                sock.sendall(framed[i:i + 11])
                time.sleep(0.001)
            return True
        sock.sendall(b"".join(chunk(e) for e in [first] + contents + tail))
        if m == "cut_connection":
            return False  # closed without the last chunk: a connection lost mid-response
        sock.sendall(b"0\r\n\r\n")
        return True


def test_malformed_sse():
    fake = FakeServer()
    try:
        workload = write_workload("fake.jsonl", [(3, 16)])

        def run(mode, *extra):
            fake.mode = mode
            fake.requests.clear()
            log = path(f"fake-{mode}.jsonl")
            r = load(fake.url, "--workload", workload, "--concurrency", 1, "-n", 2, "-o", log, *extra, timeout=30)
            check(r.returncode == 0, f"{mode}: exit {r.returncode} {r.stderr[-400:]!r}")
            _, reqs = read_log(log, mode)
            check(len(reqs) == 2, f"{mode}: two requests logged")
            check_stats_agree(log, reqs, mode)
            return reqs

        for mode in ("good", "good_cr", "good_split"):
            reqs = run(mode, "--api-key", "sk-test", "--extra", '{"ignore_eos":true,"top_k":5}')
            for q in reqs:
                check(q["status"] == "ok" and q["prompt_tokens"] == 11 and q["output_tokens"] == 3 and
                      len(q.get("itl", [])) == 2 and "t_first" in q, f"{mode}: parsed to ok with usage: {q}")
                if mode == "good_split":
                    check(q["t_first"] - q["t_sent"] >= 0.2,
                          f"{mode}: a role-only chunk does not set t_first: ttft {q['t_first'] - q['t_sent']:.3f}")
        sent = [r for r in fake.requests if r[1] == "/v1/chat/completions"]
        check(len(sent) == 2, f"two chat requests reached the server: {len(sent)}")
        for _, _, headers, body in sent:
            b = json.loads(body)
            check(headers.get("authorization") == "Bearer sk-test", f"API key header: {headers.get('authorization')}")
            check(b.get("ignore_eos") is True and b.get("top_k") == 5 and b.get("stream") is True and
                  b.get("stream_options") == {"include_usage": True} and b.get("max_tokens") == 16 and
                  b.get("model") == "fake" and b.get("messages") == [{"role": "user", "content": "word " * 3}],
                  f"request body: {b}")

        expected = {
            "bad_json": ("error", "JSON"),
            "no_done": ("error", "[DONE]"),
            "cut_event": ("error", "inside an event"),
            "cut_connection": ("transport", "transport"),
            "json_content_type": ("error", "stream"),
            "http500": ("error", "boom inside the engine"),
            "error_event": ("error", "engine died mid-stream"),
        }
        for mode, (status, words) in expected.items():
            for q in run(mode):
                check(q["status"] == status and words in q.get("error", ""),
                      f"{mode}: status {q['status']} (expected {status}), error {q.get('error')!r} mentions {words!r}")
                if mode == "http500":
                    check(q.get("http_status") == 500, f"http500: http_status {q.get('http_status')}")
                elif mode == "cut_connection":
                    check(q.get("http_status") == 200, f"cut_connection: the 200 that arrived: {q.get('http_status')}")
    finally:
        fake.close()


def test_driver_killed():
    sim = Simulator("--time-scale", "1")
    try:
        workload = write_workload("kill9.jsonl", [(10, 32), (50, 24)])
        log = path("kill9.jsonl")
        proc, err = start_load(sim.url, "--workload", workload, "--concurrency", 8, "-n", 1000, "-o", log)
        check(wait_until(lambda: request_lines(log) >= 10), "requests complete before the kill")
        proc.kill()
        finish(proc, err)
        with open(log, "rb") as f:
            data = f.read()
        check(data.endswith(b"\n"), f"only complete lines: {data[-100:]!r}")
        _, reqs = read_log(log, "driver killed")
        check(10 <= len(reqs) < 1000 and all(q["status"] == "ok" for q in reqs), f"{len(reqs)} complete requests")
        check(len({q["id"] for q in reqs}) == len(reqs), "ids unique")
        check_stats_agree(log, reqs, "driver killed")
    finally:
        sim.stop()


# ---- sweeps --------------------------------------------------------------------------------------

def read_manifest(directory):
    try:
        with open(os.path.join(directory, "manifest.json")) as f:
            m = json.load(f)
    except (OSError, ValueError) as e:
        check(False, f"{directory}/manifest.json: {e}")
        return {}
    check(m.get("servestat") == "load-manifest" and m.get("version") == 1 and isinstance(m.get("points"), list),
          f"manifest shape: {str(m)[:200]}")
    return {p["label"]: p for p in m.get("points", [])}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_sweep_and_resume():
    sim = Simulator("--time-scale", "50")
    try:
        workload = write_workload("sw.jsonl", [(10, 16), (40, 24)])
        out = path("sweep")
        r = load_ok(sim.url, "--workload", workload, "--sweep", "concurrency=1,2,4", "-n", 12, "-o", out)
        points = read_manifest(out)
        check(sorted(points) == ["sw-c1", "sw-c2", "sw-c4"] and
              all(p["status"] == "done" and p["requests"] == 12 and p["ok"] == 12 for p in points.values()),
              f"manifest points {points}")
        check("3 points, 0 failed" in r.stderr, f"sweep summary {r.stderr!r}")
        for c in (1, 2, 4):
            header, reqs = read_log(os.path.join(out, f"sw-c{c}.jsonl"), f"sweep c{c}")
            run = header.get("run", {})
            check(run.get("label") == f"sw-c{c}" and run.get("params", {}).get("concurrency") == c and len(reqs) == 12,
                  f"sweep point c{c}: {run.get('label')} {run.get('params')} {len(reqs)} requests")
            stats = check_stats_agree(os.path.join(out, f"sw-c{c}.jsonl"), reqs, f"sweep c{c}")
            check(stats.get("peak_concurrency") == c, f"c{c}: peak concurrency {stats.get('peak_concurrency')}")
    finally:
        sim.stop()

    # Interrupted during its second point: SIGINT ends it with 130 and the manifest says so.
    sim = Simulator("--time-scale", "1")  # ~0.2 s a request: the c1 point takes ~1 s
    try:
        workload = write_workload("irq.jsonl", [(10, 48)])
        out = path("interrupted")
        args = ["--workload", workload, "--sweep", "concurrency=4,1,2", "-n", 4, "-o", out]
        proc, err = start_load(sim.url, *args)
        second = os.path.join(out, "irq-c1.jsonl")
        check(wait_until(lambda: request_lines(second) >= 1), "the second point runs")
        proc.send_signal(signal.SIGINT)
        rc, stderr = finish(proc, err)
        check(rc == 130, f"SIGINT: exit {rc}: {stderr[-300:]!r}")
        points = read_manifest(out)
        check(points.get("irq-c4", {}).get("status") == "done" and points.get("irq-c1", {}).get("status") ==
              "interrupted" and "irq-c2" not in points, f"manifest after SIGINT: {points}")
        _, reqs = read_log(second, "interrupted point")
        statuses = [q["status"] for q in reqs]
        # One client: the request in flight at SIGINT is cut off and logged as cancelled.
        check(0 < len(reqs) < 4 and set(statuses) <= {"ok", "cancelled"} and statuses.count("cancelled") <= 1 and
              statuses.count("ok") >= 1, f"interrupted point: {statuses}")

        r = load_ok(sim.url, *args, "--resume")
        check("irq-c4 is done (manifest); skipped" in r.stderr and r.stderr.count("skipped") == 1,
              f"resume skips only the done point: {r.stderr!r}")
        check("warning" not in r.stderr, f"same settings, no warning: {r.stderr!r}")
        points = read_manifest(out)
        check(sorted(points) == ["irq-c1", "irq-c2", "irq-c4"] and all(p["status"] == "done" for p in points.values()),
              f"manifest after --resume: {points}")
        for label in ("irq-c1", "irq-c2"):
            _, reqs = read_log(os.path.join(out, label + ".jsonl"), label)
            check(len(reqs) == 4 and all(q["status"] == "ok" for q in reqs), f"{label} rerun in full")

        r = load_ok(sim.url, *args, "--resume", "--seed", 7)
        check("warning" in r.stderr and "seed" in r.stderr and "resuming anyway" in r.stderr,
              f"changed settings warn: {r.stderr!r}")
        check(r.stderr.count("skipped") == 3, f"all three done: {r.stderr!r}")
    finally:
        sim.stop()


def test_grid_with_server_cmd():
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    workload = write_workload("grid.jsonl", [(10, 16)])
    out = path("grid")
    command = (f"'{SERVESTAT}' simulate --port {port} --max-num-seqs {{max_num_seqs}} --time-scale 20 "
               "--enable-per-request-metrics")
    r = load(url, "--workload", workload, "--grid", "max_num_seqs=2,4", "--server-cmd", command, "--concurrency", 4,
             "-n", 8, "--server-timeout", 20, "-o", out, timeout=60)
    check(r.returncode == 0, f"grid: exit {r.returncode} {r.stderr[-600:]!r}")
    check(r.stderr.count("starting the server") == 2, f"one server per configuration: {r.stderr!r}")
    points = read_manifest(out)
    check(sorted(points) == ["grid-max_num_seqs2-c4", "grid-max_num_seqs4-c4"] and
          all(p["status"] == "done" for p in points.values()), f"grid manifest {points}")
    for seqs in (2, 4):
        label = f"grid-max_num_seqs{seqs}-c4"
        header, reqs = read_log(os.path.join(out, label + ".jsonl"), label)
        params = header.get("run", {}).get("params", {})
        check(header.get("run", {}).get("label") == label and params.get("max_num_seqs") == seqs and
              params.get("concurrency") == 4 and len(reqs) == 8 and all(q["status"] == "ok" for q in reqs),
              f"{label}: {params}, {len(reqs)} requests")
        stats = check_stats_agree(os.path.join(out, label + ".jsonl"), reqs, label)
        # The server runs at most max_num_seqs sequences: more clients than that wait in its queue.
        check(stats.get("params", {}).get("max_num_seqs") == seqs, "stats sees max_num_seqs")
        if seqs == 2:
            check(any(q.get("server_queue", 0) > 0 for q in reqs), "with 2 sequences and 4 clients some queue")
        try:
            with open(os.path.join(out, f"server-max_num_seqs{seqs}.log")) as f:
                text = f.read()
            check(f"listening on http://127.0.0.1:{port}" in text, f"server log: {text[:200]!r}")
        except OSError as e:
            check(False, f"server log for max_num_seqs={seqs}: {e}")
    with socket.socket() as s:
        check(s.connect_ex(("127.0.0.1", port)) != 0, "the last server was stopped")

    # A server command that dies at once: each point recorded failed, the log's tail shown, exit 0.
    out = path("grid-failed")
    r = load(f"http://127.0.0.1:{free_port()}", "--workload", workload, "--grid", "max_num_seqs=2,4",
             "--server-cmd", 'sh -c "echo boom; exit 3"', "--concurrency", 2, "-n", 4, "--server-timeout", 20,
             "-o", out, timeout=60)
    check(r.returncode == 0, f"failed server: exit {r.returncode} {r.stderr[-400:]!r}")
    check("| boom" in r.stderr and "exited with status 3" in r.stderr, f"the server's tail on stderr: {r.stderr!r}")
    points = read_manifest(out)
    check(len(points) == 2 and all(p["status"] == "failed" and "3" in p.get("error", "") for p in points.values()),
          f"failed points: {points}")


# ---- options -------------------------------------------------------------------------------------

def test_warmup_extra_and_bad_urls():
    sim = Simulator("--time-scale", "50")
    try:
        workload = write_workload("opts.jsonl", [(10, 8)])
        log = path("warmup.jsonl")
        load_ok(sim.url, "--workload", workload, "--concurrency", 2, "--warmup", 5, "-n", 10, "-o", log)
        header, reqs = read_log(log, "warmup")
        check(len(reqs) == 10 and sorted(int(q["id"]) for q in reqs) == list(range(10)),
              f"warm-up requests are not logged: {len(reqs)}")
        check(header.get("run", {}).get("params", {}).get("warmup") == 5, "warmup in the header")
        served = sim.metric("vllm:request_success_total")
        check(served == 15, f"the server served 5 + 10 requests: {served}")

        log = path("extra.jsonl")
        load_ok(sim.url, "--workload", workload, "--concurrency", 1, "-n", 2, "--extra", '{"ignore_eos":true}',
                "-o", log)
        check(len(read_log(log, "--extra")[1]) == 2, "--extra run")

        # Not a terminal: no progress line, only the summary. --param and --scrape-metrics.
        log = path("scrape.jsonl")
        r = servestat("load", "--url", sim.url, "--workload", workload, "--concurrency", 2, "-n", 4, "--scrape-metrics",
                      "--param", "max_num_batched_tokens=8192", "--param", "note=hello world", "-o", log)
        check(r.returncode == 0 and "\r" not in r.stderr and "\033" not in r.stderr and
              re.search(r"opts-c2: 4 requests, 4 ok, 0 failed in [\d.]+ s", r.stderr) is not None,
              f"stderr without a TTY: {r.stderr!r}")
        params = read_log(log, "--param")[0].get("run", {}).get("params", {})
        check(params.get("max_num_batched_tokens") == 8192 and params.get("note") == "hello world",
              f"--param in the header: {params}")
        success = []
        for when in ("before", "after"):
            try:
                with open(path(f"scrape.metrics-{when}.prom")) as f:
                    m = re.search(r"^vllm:request_success_total\{[^}]*\} (\S+)$", f.read(), re.M)
                success.append(float(m.group(1)) if m else None)
            except OSError as e:
                check(False, f"--scrape-metrics {when}: {e}")
        check(success == [17.0, 21.0], f"/metrics before and after the run: {success}")
        for bad in ("notjson", "[1, 2]"):
            r = load(sim.url, "--workload", workload, "--concurrency", 1, "-n", 1, "--extra", bad, "-o",
                     path("x.jsonl"))
            check(r.returncode == 2 and "--extra" in r.stderr, f"--extra {bad}: {r.returncode} {r.stderr!r}")
        r = load(sim.url.replace("http://", "https://"), "--workload", workload, "--concurrency", 1, "-n", 1, "-o",
                 path("x.jsonl"))
        check(r.returncode == 3 and "does not speak TLS" in r.stderr and "http://" in r.stderr,
              f"https:// to a plain-HTTP server: {r.returncode} {r.stderr!r}")
        closed = free_port()
        r = load(f"http://127.0.0.1:{closed}", "--workload", workload, "--concurrency", 1, "-n", 1, "-o",
                 path("x.jsonl"))
        check(r.returncode == 3 and f"127.0.0.1:{closed}" in r.stderr and "refused" in r.stderr.lower(),
              f"closed port: {r.returncode} {r.stderr!r}")
        check(not os.path.exists(path("x.jsonl")), "no log when nothing ran")
        r = load(sim.url, "--workload", workload, "-n", 1, "-o", path("x.jsonl"))
        check(r.returncode == 2, f"no pattern: {r.returncode} {r.stderr!r}")
    finally:
        sim.stop()


def azure_arrivals(file, n):
    """(seconds after the first arrival, context tokens, generated tokens) of the first n rows."""
    out = []
    with open(file) as f:
        next(f)
        for line in f:
            stamp, context, generated = line.strip().split(",")
            day, clock = stamp.split(" ")
            h, m, s = clock.split(":")
            whole, _, frac = s.partition(".")
            ticks = ((int(h) * 60 + int(m)) * 60 + int(whole)) * 10 ** 7 + int((frac + "0000000")[:7])
            out.append((day, ticks, int(context), int(generated)))
            if len(out) == n:
                break
    check(len({day for day, *_ in out}) == 1, "the first arrivals fall on one day")
    return [((t - out[0][1]) / 1e7, c, g) for _, t, c, g in out]



def test_trace_replay():
    trace = os.path.join(SHARED_DATA, "azure-llm-inference-2023", "AzureLLMInferenceTrace_conv.csv")
    if not os.path.exists(trace):
        check(False, f"shared data missing: {trace}")
        return
    sim = Simulator("--time-scale", "50")
    try:
        expected = azure_arrivals(trace, 20)
        log = path("trace.jsonl")
        # Only the 20 arrivals replayed need prompts: a second is plenty (not the whole 19 366-row trace).
        load_ok(sim.url, "--trace", trace, "-n", 20, "--time-scale", 50, "-o", log, timeout=20)
        header, reqs = read_log(log, "trace replay")
        reqs = by_id(reqs)
        check(len(reqs) == 20 and all(q["status"] == "ok" for q in reqs), f"trace: {len(reqs)} requests, all ok")
        run = header.get("run", {})
        params = run.get("params", {})
        check(params.get("arrivals") == "trace" and params.get("time_scale") == 50 and
              run.get("workload") == "AzureLLMInferenceTrace_conv", f"trace header {run.get('workload')} {params}")
        for q, (t, context, generated) in zip(reqs, expected):
            where = f"trace request {q['id']}"
            check(abs(q["t_sched"] - t / 50) <= 1e-6, f"{where}: t_sched {q['t_sched']} vs {t / 50}")
            # The trace's token counts become the prompt (chat template included) and max_tokens.
            check(q["prompt_tokens"] == context and q["max_tokens"] == generated and
                  q["output_tokens"] == generated, f"{where}: tokens {q['prompt_tokens']}/{q['max_tokens']} vs "
                                                   f"{context}/{generated}")
        check_stats_agree(log, reqs, "trace replay")
    finally:
        sim.stop()


# ---- servestat workload --------------------------------------------------------------------------

def heuristic_tokens(text):
    """docs/simulator.md's count_tokens: a run of ASCII letters, digits and non-ASCII bytes is one token
    per started 4 bytes; any other non-whitespace byte is one; whitespace is none."""
    tokens, run = 0, 0
    for b in text.encode():
        if b >= 0x80 or chr(b).isalnum():
            run += 1
            continue
        tokens += (run + 3) // 4
        run = 0
        if not chr(b).isspace():
            tokens += 1
    return tokens + (run + 3) // 4


def test_workload_command():
    check(heuristic_tokens("Hello, world!") == 6 and heuristic_tokens("café") == 2 and heuristic_tokens("3.14") == 3,
          "the heuristic re-implemented as documented")
    a, b, c = path("wa.jsonl"), path("wb.jsonl"), path("wc.jsonl")
    r = servestat("workload", "--preset", "mix_70_20_10", "-n", 400, "--seed", 5, "-o", a)
    check(r.returncode == 0 and "token counts: heuristic" in r.stderr, f"workload: {r.returncode} {r.stderr!r}")
    servestat("workload", "--preset", "mix_70_20_10", "-n", 400, "--seed", 5, "-o", b)
    servestat("workload", "--preset", "mix_70_20_10", "-n", 400, "--seed", 6, "-o", c)
    with open(a, "rb") as f1, open(b, "rb") as f2, open(c, "rb") as f3:
        da, db, dc = f1.read(), f2.read(), f3.read()
    check(da == db and len(da) > 0, "the same seed writes the same bytes")
    check(da != dc, "another seed writes another workload")
    buckets = {"short": 0, "medium": 0, "long": 0, "none": 0}
    rows = [json.loads(line) for line in da.decode().splitlines()]
    for row in rows:
        check(set(row) == {"messages", "max_tokens", "temperature"} and row["max_tokens"] == 128 and
              row["temperature"] == 0 and len(row["messages"]) == 1 and row["messages"][0]["role"] == "user",
              f"the notebook's row format: {str(row)[:120]}")
        n = heuristic_tokens(row["messages"][0]["content"])
        buckets["short" if 8 <= n <= 24 else "medium" if 128 <= n <= 256 else "long" if 2048 <= n <= 4096
                else "none"] += 1
    check(len(rows) == 400 and buckets == {"short": 280, "medium": 80, "long": 40, "none": 0},
          f"mix_70_20_10 of 400: {buckets}")
    sim = Simulator("--time-scale", "50")
    try:
        d = path("wd.jsonl")
        r = servestat("workload", "--preset", "mix_70_20_10", "-n", 400, "--seed", 5, "--url", sim.url, "-o", d)
        check(r.returncode == 0 and "token counts: server /tokenize" in r.stderr, f"--url: {r.stderr!r}")
        with open(d, "rb") as f:
            # The simulator's /tokenize is the heuristic: the same workload either way.
            check(f.read() == da, "counted by /tokenize, the simulator's workload equals the heuristic's")
    finally:
        sim.stop()
    r = servestat("workload", "--preset", "short_only", "-n", 10, "--url", f"http://127.0.0.1:{free_port()}",
                  "-o", path("we.jsonl"))
    check(r.returncode == 0 and "warning" in r.stderr and "heuristic" in r.stderr,
          f"unreachable --url falls back to the heuristic: {r.returncode} {r.stderr!r}")
    r = servestat("workload", "--preset", "nope", "-o", path("wf.jsonl"))
    check(r.returncode == 2 and "nope" in r.stderr, f"unknown preset: {r.returncode} {r.stderr!r}")


if __name__ == "__main__":
    sys.exit(run_tests(WORK, [test_closed_loop, test_no_stream, test_server_timings_from_vllms_metrics,
                              test_open_loop, test_duration,
                              test_context_overflow_and_budget, test_server_killed_mid_run,
                              test_slow_server_times_out, test_malformed_sse, test_driver_killed,
                              test_sweep_and_resume, test_grid_with_server_cmd, test_warmup_extra_and_bad_urls,
                              test_trace_replay, test_workload_command]))
