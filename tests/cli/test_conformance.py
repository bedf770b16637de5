#!/usr/bin/python3
"""Conformance: the official `openai` package (npm, run with Node), a client servestat did not write,
reads streamed and plain chat completions, a streamed completion and a two-turn Responses API
conversation (the second turn streamed, continuing the first by previous_response_id) from
`servestat simulate`.

What the client sees is checked against the simulator's own /tokenize count and the requested
max_tokens: one content chunk per output token after a role-only chunk, usage that adds up.

Usage: test_conformance.py SERVESTAT_BINARY CONFORMANCE_DIR   (run by ctest; CONFORMANCE_DIR holds
openai_client.mjs and node_modules from `npm ci`, which `make test` runs)
"""
import json
import os
import signal
import subprocess
import sys
import urllib.request

from checks import check, failures

SERVESTAT, CONFORMANCE = sys.argv[1], sys.argv[2]
MODEL = "Qwen/Qwen2.5-3B-Instruct"


def start_simulator():
    proc = subprocess.Popen([SERVESTAT, "simulate", "--port", "0", "--time-scale", "50", "--model", MODEL],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline().strip()
    check(line.startswith("servestat simulate listening on http://127.0.0.1:"), f"listening line: {line!r}")
    return proc, line.rsplit(" ", 1)[-1]


def tokenize(base, messages):
    req = urllib.request.Request(base + "/tokenize", data=json.dumps({"model": MODEL, "messages": messages}).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.load(r)["count"]


def main():
    if not os.path.exists(os.path.join(CONFORMANCE, "node_modules", "openai", "package.json")):
        print(f"FAIL: the openai package is not installed: run npm ci --prefix {CONFORMANCE} (make test does)")
        return 1
    proc, base = start_simulator()
    try:
        res = subprocess.run(["node", os.path.join(CONFORMANCE, "openai_client.mjs"), base, MODEL],
                             capture_output=True, text=True, timeout=60)
        check(res.returncode == 0, f"node client: exit {res.returncode}: {res.stderr}")
        seen = json.loads(res.stdout) if res.returncode == 0 else {}
        prompt_tokens = tokenize(base, [{"role": "user", "content": "Name three colours of the rainbow."}])
        check(seen.get("models") == [MODEL], f"models.list: {seen.get('models')}")
        s = seen.get("streamed", {})
        check(s.get("roleChunks") == 1, f"one role-only chunk: {s.get('roleChunks')}")
        check(s.get("contentChunks") == 12 and len(s.get("content", "")) > 0, f"12 content chunks: {s}")
        check(s.get("finishReason") == "length", f"finish_reason length: {s.get('finishReason')}")
        u = s.get("usage") or {}
        check(u.get("prompt_tokens") == prompt_tokens and u.get("completion_tokens") == 12 and
              u.get("total_tokens") == prompt_tokens + 12, f"streamed usage {u} (prompt {prompt_tokens} by /tokenize)")
        p = seen.get("plain", {})
        pu = p.get("usage") or {}
        check(pu.get("completion_tokens") == 7 and pu.get("prompt_tokens") == prompt_tokens and p.get("content"),
              f"plain completion: {p}")
        c = seen.get("completion", {})
        check(c.get("chunks") == 5 and c.get("text"), f"streamed completion: {c}")
        r = seen.get("responses", {})
        fu, nu = r.get("firstUsage") or {}, r.get("nextUsage") or {}
        check(fu.get("input_tokens") == prompt_tokens and fu.get("output_tokens") == 6 and r.get("firstText"),
              f"responses, turn 1: {r}")
        # Turn 2 renders turn 1's messages, its reply as an assistant message (5 + 6 tokens) and
        # "and then?" (5 + 3: and, then, ?).
        check(nu.get("input_tokens") == prompt_tokens + 11 + 8 and nu.get("output_tokens") == 4 and
              r.get("deltas") == 4 and r.get("nextText") and r.get("deltaText") == r.get("nextText") and
              r.get("nextStatus") == "completed" and
              r.get("nextPrevious") == r.get("firstId"), f"responses, turn 2 (streamed): {r}")
    finally:
        proc.send_signal(signal.SIGTERM)
        check(proc.wait(timeout=10) == 0, "the simulator exits 0 on SIGTERM")
    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


sys.exit(main())
