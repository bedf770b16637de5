#!/usr/bin/python3
"""Writes five weekly load tests of one deployment as canonical servestat logs, for
`servestat report --trend`: the same workload (mix_50_50, Qwen/Qwen2.5-3B-Instruct, 16 concurrent
streaming clients, 400 requests) run every Monday at 21:00 UTC from 2026-10-19 to 2026-11-16.

The story (factors relative to weeks 1-3, which share one distribution and differ only in seed):
  week 1-3  stable baseline
  week 4    a config change: time to first token x1.30, decode x1.14 (e2e about +15%)
  week 5    reverted and prefix caching enabled: back at week-1 level, time to first token x0.93

Each request: a short (8-64 tokens) or long (2048-4000 tokens) prompt, 50/50; 16-128 output tokens
(max_tokens 128); TTFT lognormal (long prompts' prefill is slower); decode = output tokens x a
lognormal time per token; e2e = TTFT + decode. A closed loop of 16 workers: a worker sends its next
request 0.2-0.8 ms after its previous one ended (t_sched = when it became free). A few requests per
week fail with HTTP 500 after a few ms.

File names are the run dates, except week 2's log, which was re-run and saved as
rerun-2026-10-26.jsonl, so it sorts last by name: a trend must order runs by started_at. Week 2's
started_at also carries a +02:00 offset (23:00+02:00 = 21:00Z), as the engineer's laptop wrote it.

Regenerate (deterministic, numpy only): /usr/bin/python3 examples/weekly/make_logs.py [OUTPUT_DIR]
(default OUTPUT_DIR: this script's folder).
"""
import json
import pathlib
import sys

import numpy as np

N_REQUESTS, CONCURRENCY, MAX_TOKENS = 400, 16, 128

# Baseline medians (s) and log-spreads; each week scales them by its factors.
TTFT_SHORT, TTFT_LONG, TTFT_SIGMA = 0.24, 0.62, 0.45
TPOT, TPOT_SIGMA = 0.024, 0.12

WEEKS = [
    {"label": "week-1", "file": "2026-10-19.jsonl", "started_at": "2026-10-19T21:00:00Z",
     "seed": 1019, "ttft": 1.00, "decode": 1.00, "failures": 1},
    {"label": "week-2", "file": "rerun-2026-10-26.jsonl", "started_at": "2026-10-26T23:00:00+02:00",
     "seed": 1026, "ttft": 1.00, "decode": 1.00, "failures": 0},
    {"label": "week-3", "file": "2026-11-02.jsonl", "started_at": "2026-11-02T21:00:00Z",
     "seed": 1102, "ttft": 1.00, "decode": 1.00, "failures": 2},
    {"label": "week-4", "file": "2026-11-09.jsonl", "started_at": "2026-11-09T21:00:00Z",
     "seed": 1109, "ttft": 1.30, "decode": 1.14, "failures": 3},
    {"label": "week-5", "file": "2026-11-16.jsonl", "started_at": "2026-11-16T21:00:00Z",
     "seed": 1116, "ttft": 0.93, "decode": 1.00, "failures": 1},
]


def header(week):
    params = {"concurrency": CONCURRENCY, "total_requests": N_REQUESTS, "max_tokens": MAX_TOKENS, "stream": True}
    return {"servestat": "log", "version": 1,
            "run": {"label": week["label"], "started_at": week["started_at"],
                    "model": "Qwen/Qwen2.5-3B-Instruct", "workload": "mix_50_50",
                    "params": params, "tool": "examples/weekly/make_logs.py"}}


def simulate(week):
    rng = np.random.default_rng(week["seed"])
    is_long = rng.permutation(np.arange(N_REQUESTS) < N_REQUESTS // 2)
    failed = set(rng.choice(N_REQUESTS, size=week["failures"], replace=False).tolist())
    worker_free = np.zeros(CONCURRENCY)
    rows = []
    for i in range(N_REQUESTS):
        w = int(np.argmin(worker_free))
        t_sched = float(worker_free[w])
        t_sent = t_sched + float(rng.uniform(0.0002, 0.0008))
        prompt = int(rng.integers(2048, 4001)) if is_long[i] else int(rng.integers(8, 65))
        row = {"id": str(i), "t_sched": round(t_sched, 6), "t_sent": round(t_sent, 6)}
        if i in failed:
            t_end = t_sent + float(rng.uniform(0.002, 0.02))
            row.update({"t_end": round(t_end, 6), "prompt_tokens": prompt, "output_tokens": 0,
                        "max_tokens": MAX_TOKENS, "status": "error", "http_status": 500,
                        "error": "Internal Server Error"})
        else:
            median = (TTFT_LONG if is_long[i] else TTFT_SHORT) * week["ttft"]
            ttft = float(rng.lognormal(np.log(median), TTFT_SIGMA))
            out = int(rng.integers(16, MAX_TOKENS + 1))
            tpot = float(rng.lognormal(np.log(TPOT * week["decode"]), TPOT_SIGMA))
            t_first = t_sent + ttft
            t_end = t_first + out * tpot
            row.update({"t_first": round(t_first, 6), "t_end": round(t_end, 6), "prompt_tokens": prompt,
                        "output_tokens": out, "max_tokens": MAX_TOKENS, "status": "ok", "http_status": 200})
        worker_free[w] = row["t_end"]
        rows.append(row)
    rows.sort(key=lambda r: (r["t_end"], int(r["id"])))  # logs are written as requests complete
    return "\n".join(json.dumps(x) for x in [header(week)] + rows) + "\n"


def main():
    out_dir = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else pathlib.Path(__file__).parent
    out_dir.mkdir(parents=True, exist_ok=True)
    for week in WEEKS:
        text = simulate(week)
        (out_dir / week["file"]).write_text(text)
        reqs = [json.loads(line) for line in text.splitlines()[1:]]
        e2e = np.array([r["t_end"] - r["t_sent"] for r in reqs if r["status"] == "ok"])
        ttft = np.array([r["t_first"] - r["t_sent"] for r in reqs if r["status"] == "ok"])
        print(f"wrote {out_dir / week['file']}: {week['label']}, e2e p50 {np.quantile(e2e, 0.5):.3f} s "
              f"p99 {np.quantile(e2e, 0.99):.3f} s, ttft p50 {np.quantile(ttft, 0.5):.3f} s, "
              f"{week['failures']} failed")


if __name__ == "__main__":
    main()
