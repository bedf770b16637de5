#!/usr/bin/python3
"""Experiment 3 of the seed notebook, measured over HTTP against `servestat simulate`.

bench/sim_calibrate.cpp runs the closed loop inside the engine, in simulated time. This script does
what the notebook did against vLLM: a Python thread pool of c clients, each sending non-streaming
POST /v1/chat/completions one after another on its own keep-alive connection, 200 requests of the
mix_50_50 workload per concurrency level, e2e = the wall time of the request. Wall times are
multiplied by --time-scale, so every number printed is in simulated seconds and compares with the
seed at --time-scale 1.

    /usr/bin/python3 bench/sim_http_sweep.py                      # both presets, --time-scale 5
    /usr/bin/python3 bench/sim_http_sweep.py --preset l4-qwen2.5-3b-bad --time-scale 8

The workload is the one sim_calibrate uses: mix_workload(0.5, 200, seed 1) from
include/servestat/sim/closed_loop.hpp (same splitmix64, same prompt lengths, same order), turned into
chat messages whose prompt length the server's /tokenize confirms. Only the standard library and
numpy (percentiles, numpy's default linear method).
"""

import argparse
import concurrent.futures
import http.client
import json
import os
import random
import statistics
import subprocess
import sys
import threading
import time

import numpy

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PRESETS = ["l4-qwen2.5-3b-bad", "l4-qwen2.5-3b-fair"]
LEVELS = [1, 2, 4, 8, 16, 32, 48, 64]
MAX_TOKENS = 16
SHORT_MAX, LONG_MIN = 64, 2048  # the notebook's cut-offs (prompt tokens)
MASK = (1 << 64) - 1


# ---- the workload: closed_loop.hpp's mix_workload, token for token ------------------------------

class SplitMix64:
    """splitmix64 exactly as detail::splitmix64 in closed_loop.hpp, so the prompt lengths and their
    order are those of the simulated closed loop."""

    def __init__(self, seed):
        self.state = seed & MASK

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def between(self, lo, hi):
        return lo + self.next() % (hi - lo + 1)


def mix_prompt_lengths(long_share, n, seed):
    rng = SplitMix64(seed)
    longs = int(long_share * n + 0.5)
    lengths = [rng.between(2048, 4000) if i < longs else rng.between(36, 45) for i in range(n)]
    for i in range(n, 1, -1):  # Fisher-Yates, as std::swap(items[i - 1], items[next() % i])
        j = rng.next() % i
        lengths[i - 1], lengths[j] = lengths[j], lengths[i - 1]
    return lengths


QUESTIONS = [
    "who sang take that look off your face",
    "when did the first man land on the moon",
    "what is the capital city of australia",
    "how many players are on a rugby union team",
    "who wrote the novel pride and prejudice",
    "where is the great barrier reef located",
    "what year did the berlin wall fall",
    "who played the lead role in the film gladiator",
    "how long is the river nile in kilometres",
    "when was the eiffel tower built",
    "who painted the ceiling of the sistine chapel",
    "what is the largest planet in our solar system",
]
PAD_WORDS = ["the", "old", "song", "in", "uk", "top", "ten", "list", "back", "then"]
FILLER = (
    "The report describes how the regional water board planned its work over the last ten years. "
    "It begins with the state of the old pumping stations, most of which were built before the war, "
    "and explains why the engineers decided to replace the pumps one district at a time instead of "
    "closing the whole network for a season. Each chapter lists the costs, the delays caused by "
    "weather and supply problems, and the lessons the crews learned on the next site. Later sections "
    "compare the new stations with similar projects in neighbouring countries, discuss the effect on "
    "household bills, and close with a short list of open questions for the coming budget period."
).split()


class Client:
    """One keep-alive connection to the simulator."""

    def __init__(self, host, port):
        self.conn = http.client.HTTPConnection(host, port, timeout=600)

    def post(self, path, body):
        self.conn.request("POST", path, body=json.dumps(body), headers={"Content-Type": "application/json"})
        response = self.conn.getresponse()
        data = response.read()
        if response.status != 200:
            raise RuntimeError(f"POST {path}: HTTP {response.status}: {data[:300]!r}")
        return response, json.loads(data)

    def close(self):
        self.conn.close()


def chat_tokens(client, content):
    return client.post("/tokenize", {"messages": [{"role": "user", "content": content}]})[1]["count"]


def fit(client, words, tail, target, pad):
    """Content = the first k of `words` + `tail` (+ pad words), exactly `target` prompt tokens by
    /tokenize: the largest k that stays at or below the target, then 1-token pad words."""
    def content(k, extra=()):
        return " ".join(list(words[:k]) + list(extra) + ([tail] if tail else []))
    lo, hi = 0, len(words)  # count(content(lo)) <= target is kept; counts grow with k
    if chat_tokens(client, content(0)) > target:
        raise RuntimeError(f"cannot fit {target} tokens: the fixed part is already longer")
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if chat_tokens(client, content(mid)) <= target:
            lo = mid
        else:
            hi = mid - 1
    extra = []
    count = chat_tokens(client, content(lo))
    while count < target:
        extra.append(pad[len(extra) % len(pad)])
        count = chat_tokens(client, content(lo, extra))
    if count != target:
        raise RuntimeError(f"cannot fit {target} tokens exactly (got {count})")
    return content(lo, extra)


def build_workload(client, n, seed):
    """[(prompt_tokens, messages)]: short questions and long filler documents, deterministic."""
    rng = random.Random(seed)
    items = []
    for target in mix_prompt_lengths(0.5, n, seed):
        question = rng.choice(QUESTIONS).split()
        if target <= SHORT_MAX:
            words = question + [rng.choice(PAD_WORDS) for _ in range(12)]
            text = fit(client, words, "", target, PAD_WORDS)
        else:
            start = rng.randrange(len(FILLER))
            words = [FILLER[(start + i) % len(FILLER)] for i in range(4 * target)]
            text = fit(client, words, "\n\nQuestion: " + " ".join(question), target, ["the"])
        items.append((target, [{"role": "user", "content": text}]))
    return items


# ---- the server -------------------------------------------------------------------------------

def start_server(binary, preset, time_scale):
    proc = subprocess.Popen([binary, "simulate", "--preset", preset, "--port", "0", "--time-scale", str(time_scale),
                             "--enable-per-request-metrics"],
                            stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline().strip()  # "servestat simulate listening on http://127.0.0.1:PORT"
    if "http://" not in line:
        proc.kill()
        raise RuntimeError(f"simulator did not start: {line!r}")
    host, port = line.rsplit("http://", 1)[1].rsplit(":", 1)
    return proc, host, int(port)


def stop_server(proc):
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


# ---- the closed loop ----------------------------------------------------------------------------

def run_level(host, port, workload, concurrency, total):
    """c threads, each sending its next request when its last one is answered (the pool's queue
    hands requests out in order, like the notebook's ThreadPoolExecutor). Returns wall seconds of
    the level and [(prompt_tokens, wall e2e, server e2e in client seconds)]."""
    local = threading.local()
    clients, lock = [], threading.Lock()

    def one(k):
        if not hasattr(local, "client"):
            local.client = Client(host, port)
            with lock:
                clients.append(local.client)
        prompt_tokens, messages = workload[k % len(workload)]
        body = {"messages": messages, "max_tokens": MAX_TOKENS}
        t0 = time.perf_counter()
        _, answer = local.client.post("/v1/chat/completions", body)
        e2e = time.perf_counter() - t0
        usage, metrics = answer["usage"], answer["metrics"]  # vLLM's per-request metrics, in ms
        if usage["prompt_tokens"] != prompt_tokens or usage["completion_tokens"] != MAX_TOKENS:
            raise RuntimeError(f"request {k}: usage {usage}, expected {prompt_tokens} + {MAX_TOKENS}")
        server_ms = metrics["queue_time_ms"] + metrics["time_to_first_token_ms"] + metrics["generation_time_ms"]
        return prompt_tokens, e2e, server_ms / 1000, time.perf_counter()

    start = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(max_workers=concurrency) as pool:
        results = list(pool.map(one, range(total)))
    wall = max(r[3] for r in results) - start
    for client in clients:
        client.close()
    return wall, [r[:3] for r in results]


def p(xs, q):
    return float(numpy.percentile(xs, q)) if xs else float("nan")


def summarize(wall, results, scale):
    """Simulated seconds: wall × scale."""
    e2e = [r[1] * scale for r in results]
    short = [r[1] * scale for r in results if r[0] <= SHORT_MAX]
    long_ = [r[1] * scale for r in results if r[0] >= LONG_MIN]
    server = [r[2] * scale for r in results]
    overhead_ms = [(r[1] - r[2]) * 1000 for r in results]  # wall ms: HTTP, JSON, Python, timers
    return {
        "rps": len(results) / (wall * scale), "p50": p(e2e, 50), "p90": p(e2e, 90), "p99": p(e2e, 99),
        "short_p99": p(short, 99), "long_p99": p(long_, 99), "server_p50": p(server, 50),
        "server_p99": p(server, 99), "overhead_ms_median": statistics.median(overhead_ms),
        "overhead_ms_max": max(overhead_ms),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--preset", action="append", help=f"preset to run (repeatable; default: {' and '.join(PRESETS)})")
    ap.add_argument("--time-scale", type=float, default=5.0, help="the simulator's --time-scale (default 5)")
    ap.add_argument("--requests", type=int, default=200, help="requests per concurrency level (default 200)")
    ap.add_argument("--concurrency", default=",".join(map(str, LEVELS)), help="levels, comma-separated")
    ap.add_argument("--seed", type=int, default=1, help="workload seed, as mix_workload's (default 1)")
    ap.add_argument("--servestat", default=os.path.join(REPO, "build", "servestat"), help="the servestat binary")
    args = ap.parse_args()
    levels = [int(c) for c in args.concurrency.split(",")]
    scale = args.time_scale

    workload = None
    for preset in args.preset or PRESETS:
        proc, host, port = start_server(args.servestat, preset, scale)
        try:
            if workload is None:
                t0 = time.perf_counter()
                client = Client(host, port)
                workload = build_workload(client, args.requests, args.seed)
                client.close()
                print(f"workload: {len(workload)} requests, prompt tokens "
                      f"{min(w[0] for w in workload)}-{max(w[0] for w in workload)}, "
                      f"built in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
            t_preset = time.perf_counter()
            print(f"\n{preset}, --time-scale {scale:g}, {args.requests} requests per level, "
                  f"simulated seconds (wall x {scale:g})\n")
            print("| c | rps | p50 | p90 | p99 | short p99 | long p99 | server p50 | server p99 | overhead ms (median / max, wall) |")
            print("|---|---|---|---|---|---|---|---|---|---|")
            for c in levels:
                wall, results = run_level(host, port, workload, c, args.requests)
                s = summarize(wall, results, scale)
                print(f"| {c} | {s['rps']:.2f} | {s['p50']:.3f} | {s['p90']:.3f} | {s['p99']:.3f} | "
                      f"{s['short_p99']:.3f} | {s['long_p99']:.3f} | {s['server_p50']:.3f} | "
                      f"{s['server_p99']:.3f} | {s['overhead_ms_median']:.2f} / {s['overhead_ms_max']:.1f} |",
                      flush=True)
            print(f"\n{preset}: {time.perf_counter() - t_preset:.1f} s wall", flush=True)
        finally:
            stop_server(proc)


if __name__ == "__main__":
    main()
