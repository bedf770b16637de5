#!/usr/bin/python3
"""CLI tests of the load driver against today's endpoints and workloads (docs/load.md).

- HTTPS against `servestat simulate --tls-cert` with a certificate the openssl command makes: verified
  with --cacert, refused without it (a clear error, no log), accepted with --insecure; connect and
  TLS handshake times logged apart; a certificate for another name, a closed port: every request sent
  is logged as a transport error, and the failure guard stops the run after 10 in a row (exit 4); the
  API key (--api-key-env) and --header values appear in no output.
- The Responses API (--endpoint responses) against the simulator, and a hand-written HTTPS server
  whose Responses stream ends without response.completed or is cut mid-stream.
- Multi-turn sessions with a shared system prompt against the simulator's prefix cache: turns in
  order, cached tokens within the workload's bound, later turns' TTFT lower, and the report's
  turn-by-turn table and cache shares equal to the figures worked out here from the log.
- --cancel-rate/--cancel-after: the chosen requests are aborted mid-stream, logged with the tokens
  they received, the same ones for a seed, and the simulator sees them go.

Usage: test_load_features.py SERVESTAT_BINARY WORK_DIR [SHARED_DATA]   (run by ctest)
"""
import http.client
import json
import os
import re
import ssl
import statistics
import subprocess
import sys

import test_load as base
from checks import check, metric_value, run_tests

SERVESTAT, WORK = sys.argv[1], sys.argv[2]
CERTS = {}


def path(name):
    return os.path.join(WORK, name)


def make_certificate(name, subject, alt_names):
    cert, key = path(f"{name}.pem"), path(f"{name}.key")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", subject,
                    "-addext", f"subjectAltName={alt_names}", "-keyout", key, "-out", cert],
                   check=True, capture_output=True)
    CERTS[name] = (cert, key)


class Simulator(base.Simulator):
    """`servestat simulate --port 0 ARGS` over HTTP, or HTTPS with the certificate `tls`."""

    def __init__(self, *args, tls=None):
        base.Simulator.count += 1
        self.log = open(path(f"simulator{base.Simulator.count}.log"), "w")
        extra = ["--tls-cert", CERTS[tls][0], "--tls-key", CERTS[tls][1]] if tls else []
        self.proc = subprocess.Popen([SERVESTAT, "simulate", "--port", "0", *extra, *map(str, args)],
                                     stdout=subprocess.PIPE, stderr=self.log, text=True)
        line = self.proc.stdout.readline().strip()
        m = re.fullmatch(r"servestat simulate listening on (https?)://127\.0\.0\.1:(\d+)", line)
        check(m is not None and (m.group(1) == "https") == bool(tls), f"listening line: {line!r}")
        self.port = int(m.group(2)) if m else 0
        self.url = f"{'https' if tls else 'http'}://127.0.0.1:{self.port}"
        self.tls = tls

    def metric(self, name):
        if not self.tls:
            return super().metric(name)
        conn = http.client.HTTPSConnection("127.0.0.1", self.port, timeout=20,
                                           context=ssl.create_default_context(cafile=CERTS[self.tls][0]))
        try:
            conn.request("GET", "/metrics")
            return metric_value(conn.getresponse().read().decode(), name)
        finally:
            conn.close()


def load(url, *args, env=None, timeout=60):
    try:
        r = subprocess.run([SERVESTAT, "load", "--url", url, "-q", *map(str, args)], capture_output=True, text=True,
                           timeout=timeout, env=env)
        return base.Result(r.returncode, r.stdout, r.stderr)
    except subprocess.TimeoutExpired as e:
        check(False, f"load {' '.join(map(str, args))[:200]} still running after {timeout} s")
        return base.Result(None, e.stdout or "", e.stderr or "")


def load_ok(url, *args, **kw):
    r = load(url, *args, **kw)
    check(r.returncode == 0, f"load {' '.join(map(str, args))[:200]}: exit {r.returncode}: {r.stderr[-600:]}")
    return r


def read_log(log, what):
    return base.read_log(log, what)


def report_md(log, name):
    """`servestat report LOG`'s Markdown."""
    out = path(name)
    r = base.servestat("report", log, "-o", out)
    check(r.returncode == 0, f"report {log}: {r.stderr[-300:]}")
    with open(os.path.join(out, "report.md")) as f:
        return f.read()


def test_https():
    make_certificate("localhost", "/CN=localhost", "DNS:localhost,IP:127.0.0.1")
    make_certificate("other", "/CN=other.example", "DNS:other.example")
    workload = base.write_workload("tls.jsonl", [(10, 16), (30, 8)])
    sim = Simulator("--time-scale", "50", tls="localhost")
    try:
        secret, header_secret = "sk-never-logged-7f3a", "hdr-never-logged-91c2"
        env = dict(os.environ, SERVESTAT_TEST_KEY=secret)
        log = path("https.jsonl")
        r = load_ok(sim.url, "--workload", workload, "--concurrency", 3, "-n", 12, "--cacert", CERTS["localhost"][0],
                    "--api-key-env", "SERVESTAT_TEST_KEY", "--header", f"X-Team-Token: {header_secret}",
                    "--scrape-metrics", "-o", log, env=env)
        header, reqs = read_log(log, "https")
        check(len(reqs) == 12 and all(q["status"] == "ok" for q in reqs), f"https run: {[q['status'] for q in reqs]}")
        opened = [q for q in reqs if "connect_time" in q]
        check(len(opened) == 3 and all("tls_time" in q and 0 < q["tls_time"] < 5 and 0 <= q["connect_time"] < 5
                                       for q in opened),
              f"3 clients opened 3 connections, each with its connect and handshake time: {opened[:3]}")
        check("3 connections opened" in r.stderr, f"the summary says how many: {r.stderr!r}")
        params = header["run"]["params"]
        check(params.get("tls_verify") == "localhost.pem" and params.get("headers") == ["X-Team-Token"],
              f"the header names the CA file and the header, not its value: {params}")
        md = report_md(log, "https-report")
        check("**Connections:** 3 connections opened for 12 requests (keep-alive carried the other 9)" in md and
              "TLS handshake p50" in md, "the report says how many connections and what the handshakes took")
        outputs = [r.stdout, r.stderr]
        for root, _, files in os.walk(WORK):
            for name in files:
                if "https" in os.path.join(root, name):
                    with open(os.path.join(root, name), "rb") as f:
                        outputs.append(f.read().decode(errors="replace"))
        check(len(outputs) > 6 and not any(secret in o or header_secret in o for o in outputs),
              "neither the API key nor the header's value is in any output file")

        r = load(sim.url, "--workload", workload, "--concurrency", 1, "-n", 2, "-o", path("noca.jsonl"))
        check(r.returncode == 3 and "self-signed certificate" in r.stderr and "--cacert" in r.stderr and
              "--insecure" in r.stderr, f"without the CA: a clear error: {r.returncode} {r.stderr!r}")
        check(not os.path.exists(path("noca.jsonl")), "no log when the server was never reached")
        log = path("insecure.jsonl")
        load_ok(sim.url, "--workload", workload, "--concurrency", 2, "-n", 4, "--insecure", "-o", log)
        header, reqs = read_log(log, "insecure")
        check(len(reqs) == 4 and all(q["status"] == "ok" for q in reqs) and
              header["run"]["params"].get("tls_verify") == "off", "--insecure: ok, and the header says so")
        r = load(sim.url.replace("https", "http"), "--workload", workload, "--concurrency", 1, "-n", 1,
                 "--insecure", "-o", path("x.jsonl"))
        check(r.returncode == 2 and "https://" in r.stderr, f"--insecure on http://: {r.returncode} {r.stderr!r}")
    finally:
        sim.stop()

    # A certificate for another name, with its CA trusted: refused before the run, or (with --model
    # and --max-model-len, nothing asked of the server first) each request logs why, until the failure
    # guard stops the run after 10 connection failures in a row (exit 4); with 2 clients, the 10th
    # failure may leave one more in flight.
    sim = Simulator("--time-scale", "50", tls="other")
    try:
        r = load(sim.url, "--workload", workload, "--concurrency", 1, "-n", 2, "--cacert", CERTS["other"][0],
                 "-o", path("mismatch0.jsonl"))
        check(r.returncode == 3 and "mismatch" in r.stderr, f"name mismatch: {r.returncode} {r.stderr!r}")
        log = path("mismatch.jsonl")
        r = load(sim.url, "--workload", workload, "--concurrency", 2, "-n", 30, "--cacert", CERTS["other"][0],
                 "--model", base.MODEL, "--max-model-len", 4096, "--heuristic-tokens", "-o", log)
        header, reqs = read_log(log, "mismatch")
        check(r.returncode == 4 and 10 <= len(reqs) <= 11 and
              header.get("run", {}).get("end", {}).get("requests_sent") == len(reqs) and
              all(q["status"] == "transport" and "IP address mismatch" in q["error"] for q in reqs),
              f"each request sent a transport error, then stopped: exit {r.returncode}, "
              f"{[q.get('error') for q in reqs]}")
        check("running with --model" in r.stderr and "stops after 10 in a row" in r.stderr and
              "10 connection failures in a row (last: " in r.stderr and "IP address mismatch" in r.stderr,
              f"the driver says why it ran and why it stopped: {r.stderr!r}")
    finally:
        sim.stop()
    log = path("closed.jsonl")
    r = load(f"https://127.0.0.1:{base.free_port()}", "--workload", workload, "--concurrency", 2, "-n", 30,
             "--model", base.MODEL, "--no-budget", "--heuristic-tokens", "-o", log)
    header, reqs = read_log(log, "closed port")
    check(r.returncode == 4 and 10 <= len(reqs) <= 11 and
          header.get("run", {}).get("end", {}).get("reason") == "server_gone" and
          all(q["status"] == "transport" and "refused" in q["error"].lower() for q in reqs),
          f"an unreachable HTTPS host: exit {r.returncode}, {[q.get('error') for q in reqs]}")
    # --max-connection-failures 0: no guard; every request is sent and logged as before.
    log = path("closed-unguarded.jsonl")
    load_ok(f"https://127.0.0.1:{base.free_port()}", "--workload", workload, "--concurrency", 2, "-n", 30,
            "--model", base.MODEL, "--no-budget", "--heuristic-tokens", "--max-connection-failures", 0, "-o", log)
    header, reqs = read_log(log, "closed port, unguarded")
    check(len(reqs) == 30 and header.get("run", {}).get("end", {}).get("reason") == "completed" and
          all(q["status"] == "transport" for q in reqs), f"without the guard: {len(reqs)} requests")


def responses_event(kind, data):
    return f"event: {kind}\ndata: {json.dumps(dict(data, type=kind))}\n\n".encode()


class TlsFakeServer(base.FakeServer):
    """base.FakeServer behind TLS, with Responses API streams that end badly."""

    def __init__(self):
        super().__init__()
        self.context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.context.load_cert_chain(*CERTS["localhost"])
        self.url = self.url.replace("http://", "https://")

    def serve(self, sock):
        try:
            tls = self.context.wrap_socket(sock, server_side=True)
        except (ssl.SSLError, OSError):
            return
        super().serve(tls)

    def respond(self, sock, method, target, body):
        if target != "/v1/responses":
            return super().respond(sock, method, target, body)
        created = responses_event("response.created", {"response": {"id": "resp_1", "status": "in_progress"}})
        deltas = b"".join(responses_event("response.output_text.delta", {"delta": w}) for w in (" one", " two"))
        completed = responses_event("response.completed", {"response": {
            "id": "resp_1", "status": "completed", "usage": {"input_tokens": 9, "output_tokens": 2}}})
        sock.sendall(base.STREAM_HEAD)
        tail = {"good": completed, "no_completed": b"", "cut_connection": b'event: response.output_text.delta\ndata: {"ty'}
        sock.sendall(base.chunk(created + deltas + tail[self.mode]))
        if self.mode == "cut_connection":
            return False
        sock.sendall(b"0\r\n\r\n")
        return True


def test_responses_api():
    workload = base.write_workload("resp.jsonl", [(10, 16), (30, 8), (20, 12)])
    sim = Simulator("--time-scale", "50", "--enable-per-request-metrics")
    try:
        chat, responses = path("chat.jsonl"), path("responses.jsonl")
        load_ok(sim.url, "--workload", workload, "--concurrency", 2, "-n", 9, "--seed", 4, "-o", chat)
        load_ok(sim.url, "--workload", workload, "--concurrency", 2, "-n", 9, "--seed", 4, "--endpoint", "responses",
                "-o", responses)
        header, reqs = read_log(responses, "responses")
        _, chat_reqs = read_log(chat, "chat")
        check(header["run"]["params"].get("endpoint") == "responses", "the header names the API")
        check(len(reqs) == 9 and all(q["status"] == "ok" and "t_first" in q and
                                     len(q.get("itl", [])) == q["output_tokens"] - 1 for q in reqs),
              f"Responses streams: TTFT at the first delta, a gap per later delta: {reqs[:2]}")
        key = lambda q: int(q["id"])
        check([(q["prompt_tokens"], q["output_tokens"]) for q in sorted(reqs, key=key)] ==
              [(q["prompt_tokens"], q["output_tokens"]) for q in sorted(chat_reqs, key=key)],
              "the same rows cost the same tokens through either API")
        # vLLM's metrics inside response.completed's response, logged as for chat.
        timed = ("server_queue", "server_prefill", "server_decode")
        check(all(k in q for q in reqs + chat_reqs for k in timed), f"server timings through either API: {reqs[:1]}")
        base.check_stats_agree(responses, reqs, "responses")
        whole = path("responses-whole.jsonl")
        load_ok(sim.url, "--workload", workload, "--concurrency", 2, "-n", 3, "--endpoint", "responses", "--no-stream",
                "-o", whole)
        _, reqs = base.read_log(whole, "whole responses", stream=False)
        check(len(reqs) == 3 and all(q["status"] == "ok" and all(k in q for k in timed) for q in reqs),
              f"a whole Responses body's top-level metrics: {reqs[:1]}")
    finally:
        sim.stop()

    fake = TlsFakeServer()
    try:
        for mode, status, words in (("good", "ok", None), ("no_completed", "error", "without response.completed"),
                                    ("cut_connection", "transport", "transport")):
            fake.mode = mode
            log = path(f"fake-responses-{mode}.jsonl")
            load_ok(fake.url, "--workload", workload, "--concurrency", 1, "-n", 2, "--endpoint", "responses",
                    "--cacert", CERTS["localhost"][0], "-o", log)
            _, reqs = read_log(log, mode)
            check(len(reqs) == 2 and all(q["status"] == status and (words is None or words in q.get("error", ""))
                                         for q in reqs),
                  f"{mode} over HTTPS: {[(q['status'], q.get('error')) for q in reqs]}")
            if mode == "good":
                check(all(q["output_tokens"] == 2 and q["prompt_tokens"] == 9 for q in reqs), f"usage: {reqs}")
        sent = [json.loads(b) for _, t, _, b in fake.requests if t == "/v1/responses"]
        check(sent and all(b.get("stream") is True and "input" in b and b.get("max_output_tokens") in (16, 8, 12) and
                           "stream_options" not in b for b in sent), f"Responses request bodies: {sent[:1]}")
    finally:
        fake.close()


def session_run(sim, workload, log, *extra):
    return load_ok(sim.url, "--workload", workload, "--sessions-in-flight", 3, "--seed", 2, "-o", log, *extra)


def turn_figures(reqs):
    """Per turn: (TTFT p50 over ok requests, Σ cached, Σ cacheable, Σ prompt)."""
    out = {}
    for k in sorted({q["turn"] for q in reqs}):
        ok = [q for q in reqs if q["turn"] == k and q["status"] == "ok"]
        out[k] = (statistics.median(q["t_first"] - q["t_sent"] for q in ok),
                  sum(q.get("cached_tokens", 0) for q in ok), sum(q.get("cacheable_tokens", 0) for q in ok),
                  sum(q["prompt_tokens"] for q in ok))
    return out


def test_sessions():
    workload = path("sessions.jsonl")
    r = base.servestat("workload", "--sessions", 9, "--turns", 3, "--shared-prefix-tokens", 480, "--context-tokens",
                       1500, "--turn-tokens", "uniform:20:40", "--think-time", "0.05", "--max-tokens", 12,
                       "--seed", 8, "-o", workload)
    check(r.returncode == 0 and "9 sessions, 27 turns" in r.stderr, f"workload --sessions: {r.stderr!r}")
    cached_sim = Simulator("--time-scale", "4", "--enable-prefix-caching")
    plain_sim = Simulator("--time-scale", "4")
    try:
        log, plain = path("sessions-cached.jsonl"), path("sessions-plain.jsonl")
        session_run(cached_sim, workload, log)
        session_run(plain_sim, workload, plain)
        header, reqs = read_log(log, "sessions")
        _, plain_reqs = read_log(plain, "sessions without a cache")
        params = header["run"]["params"]
        check(params.get("sessions") == 9 and params.get("turns_total") == 27 and params.get("sessions_in_flight") == 3,
              f"the header: {params}")
        check(len(reqs) == 27 and all(q["status"] == "ok" for q in reqs), f"27 turns, all ok: {len(reqs)}")
        with open(workload) as f:
            scripts = {s["session"]: s for s in map(json.loads, f)}
        new_tokens = {(sid, k + 1): base.heuristic_tokens((s["context"] + "\n\n" if k == 0 else "") + t["user"])
                      for sid, s in scripts.items() for k, t in enumerate(s["turns"])}
        by_session = {}
        for q in reqs:
            by_session.setdefault(q["session"], []).append(q)
        check(len(by_session) == 9, "every session ran")
        for s, turns in by_session.items():
            turns.sort(key=lambda q: q["turn"])
            check([q["turn"] for q in turns] == [1, 2, 3], f"{s}: turns 1, 2, 3")
            for a, b in zip(turns, turns[1:]):
                check(b["t_sent"] >= a["t_end"] + 0.05 - 1e-3 and b["t_sched"] >= a["t_end"] - 1e-3,
                      f"{s}: turn {b['turn']} after turn {a['turn']}'s reply and the think time")
                check(b["prompt_tokens"] > a["prompt_tokens"] + a["output_tokens"],
                      f"{s}: turn {b['turn']} carries the conversation")
                check(b["cacheable_tokens"] == b["prompt_tokens"] - new_tokens[(s, b["turn"])] >=
                      a["prompt_tokens"] + a["output_tokens"],
                      f"{s}: the bound of a later turn is all but its new text, so at least the previous prompt and reply")
        check(all(0 <= q["cached_tokens"] <= q["cacheable_tokens"] <= q["prompt_tokens"] for q in reqs),
              f"cached within the bound: {[(q['cached_tokens'], q['cacheable_tokens']) for q in reqs]}")
        first_turns = sorted((q for q in reqs if q["turn"] == 1), key=lambda q: q["t_sent"])
        check(first_turns[0]["cacheable_tokens"] == 0 and
              all(q["cacheable_tokens"] == q["prompt_tokens"] - new_tokens[(q["session"], 1)] >= 480
                  for q in first_turns[1:]),
              f"a first turn may hit only the shared prompt, once sent: {[q['cacheable_tokens'] for q in first_turns]}")
        check(sum(q["cached_tokens"] > 0 for q in first_turns) >= 5,
              "first turns after the first hit the shared system prompt")
        check(all("cached_tokens" in q for q in plain_reqs) and all(q["cached_tokens"] == 0 for q in plain_reqs) or
              all("cached_tokens" not in q for q in plain_reqs), "without caching nothing is cached")
        cached, uncached = turn_figures(reqs), turn_figures(plain_reqs)
        check(cached[3][0] < 0.7 * cached[1][0], f"with the cache, turn 3's TTFT p50 {cached[3][0]:.4f} s is below "
                                                 f"turn 1's {cached[1][0]:.4f} s")
        check(cached[3][0] < 0.7 * uncached[3][0], f"turn 3's TTFT p50 {cached[3][0]:.4f} s with the cache, "
                                                   f"{uncached[3][0]:.4f} s without")

        md = report_md(log, "sessions-report")
        prompt = sum(v[3] for v in cached.values())
        hit = sum(v[1] for v in cached.values()) / prompt
        bound = sum(v[2] for v in cached.values()) / prompt
        expected = (f"**Prefix cache:** the server served {100 * hit:.1f}% of the {prompt:,} prompt tokens of "
                    f"successful turns from its cache; the workload allowed at most {100 * bound:.1f}%")
        check(expected in md, f"the report's cache shares, worked out from the log: {expected!r}")
        rows = re.findall(r"^\| (\d) \| (\d+) \| (\d+) \| \d+ \| ([\d.]+)% \| ([\d.]+)% \|", md, re.M)
        check([(k, n, ok) for k, n, ok, _, _ in rows] == [("1", "9", "9"), ("2", "9", "9"), ("3", "9", "9")],
              f"the turn table: {rows}")
        for k, _, _, c, b in rows:
            _, cached_k, bound_k, prompt_k = cached[int(k)]
            check(c == f"{100 * cached_k / prompt_k:.1f}" and b == f"{100 * bound_k / prompt_k:.1f}",
                  f"turn {k}: cached {c}% bound {b}% against the log's {cached_k}/{bound_k} of {prompt_k}")

        log = path("sessions-responses.jsonl")
        session_run(cached_sim, workload, log, "--endpoint", "responses", "-n", 4)
        _, reqs = read_log(log, "sessions over the Responses API")
        check(len(reqs) == 12 and all(q["status"] == "ok" for q in reqs), f"4 sessions of 3 turns: {len(reqs)}")
        later = [q for q in reqs if q["turn"] > 1]
        check(all(q["cached_tokens"] > 0.5 * q["prompt_tokens"] for q in later),
              f"previous_response_id: the server's stored conversation is the cached prefix: "
              f"{[(q['cached_tokens'], q['prompt_tokens']) for q in later]}")
    finally:
        cached_sim.stop()
        plain_sim.stop()


def test_cancel():
    workload = base.write_workload("cancel.jsonl", [(20, 200)])
    sim = Simulator("--time-scale", "2")
    try:
        runs = []
        for n in range(2):
            log = path(f"cancel{n}.jsonl")
            before = sim.metric("vllm:request_success_total") or 0
            r = load_ok(sim.url, "--workload", workload, "--concurrency", 4, "-n", 16, "--seed", 5,
                        "--cancel-rate", 0.5, "--cancel-after", "uniform:0.05:0.1", "-o", log)
            served = (sim.metric("vllm:request_success_total") or 0) - before
            header, reqs = read_log(log, "cancel")
            cancelled = [q for q in reqs if q["status"] == "cancelled"]
            runs.append(sorted(int(q["id"]) for q in cancelled))
            check(0 < len(cancelled) < 16 and len(reqs) == 16, f"some cancelled: {len(cancelled)} of {len(reqs)}")
            check(all(0.05 - 1e-3 <= q["t_end"] - q["t_sent"] < 0.5 and "--cancel-rate" in q["error"] and
                      0 < q["output_tokens"] < 200 and len(q.get("itl", [])) == q["output_tokens"] - 1
                      for q in cancelled),
                  f"aborted mid-stream with the tokens received: {[(q['t_end'] - q['t_sent'], q['output_tokens']) for q in cancelled]}")
            ok = [q for q in reqs if q["status"] == "ok"]
            check(len(ok) + len(cancelled) == 16 and all(q["output_tokens"] == 200 for q in ok), "the rest completed")
            check(served == len(ok), f"the simulator completed only the others: {served} vs {len(ok)}")
            check(f"; {len(cancelled)} cancelled" in r.stderr, f"the summary counts them: {r.stderr!r}")
            base.check_stats_agree(log, reqs, "cancel")
            check(header["run"]["params"].get("cancel_rate") == 0.5, "the header records the rate")
        check(runs[0] == runs[1], f"a seed cancels the same requests: {runs}")
        md = report_md(path("cancel0.jsonl"), "cancel-report")
        check(f"**Cancelled on purpose:** the driver aborted {len(runs[0])} requests mid-stream"
              in md, "the report counts the cancelled requests")
        r = load(sim.url, "--workload", workload, "--concurrency", 1, "-n", 1, "--cancel-rate", 0.5, "-o", path("c.jsonl"))
        check(r.returncode == 2 and "--cancel-after" in r.stderr, f"a rate without a delay: {r.stderr!r}")
    finally:
        sim.stop()


if __name__ == "__main__":
    sys.exit(run_tests(WORK, [test_https, test_responses_api, test_sessions, test_cancel]))
