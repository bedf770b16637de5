#!/usr/bin/python3
"""Writes the bundled example logs: closed-loop runs of a toy single-GPU server, seeded, so the demo
and the tests have realistic shapes (short prompts queued behind long prefills, context overflows).

Regenerate with: /usr/bin/python3 examples/make_example_logs.py examples/logs
The output is committed; this script documents how it was made.
"""
import json
import sys

import numpy as np

MAX_MODEL_LEN = 4096


def simulate(label, workload, concurrency, n, long_share, seed, chunked):
    rng = np.random.default_rng(seed)
    header = {"servestat": "log", "version": 1,
              "run": {"label": label, "started_at": "2026-01-11T22:01:00Z",
                      "model": "Qwen/Qwen2.5-3B-Instruct", "workload": workload,
                      "params": {"concurrency": concurrency, "max_num_seqs": 8,
                                 "enable_chunked_prefill": chunked},
                      "tool": "make_example_logs.py"}}
    lines = [json.dumps(header)]
    server_free = 0.0          # when the (single, serialising) prefill engine is next free
    worker_free = [0.0] * concurrency
    rows = []
    for i in range(n):
        w = int(np.argmin(worker_free))
        t_sent = worker_free[w] + float(rng.uniform(0.0002, 0.0008))
        is_long = rng.random() < long_share
        prompt = int(rng.integers(2048, 4060)) if is_long else int(rng.integers(8, 25))
        max_tokens = 128
        if prompt + max_tokens > MAX_MODEL_LEN:
            t_end = t_sent + float(rng.uniform(0.001, 0.003))
            rows.append({"id": str(i), "t_sched": round(worker_free[w], 6), "t_sent": round(t_sent, 6),
                         "t_end": round(t_end, 6), "prompt_tokens": prompt, "output_tokens": 0,
                         "max_tokens": max_tokens, "status": "error", "http_status": 400,
                         "error": f"max_tokens' or 'max_completion_tokens' is too large: {max_tokens}. "
                                  f"This model's maximum context length is {MAX_MODEL_LEN} tokens and your "
                                  f"request has {prompt} input tokens ({max_tokens} > {MAX_MODEL_LEN} - {prompt}). None"})
            worker_free[w] = t_end
            continue
        prefill = 0.015 + prompt * (0.00012 if chunked else 0.00016)
        start = max(t_sent, server_free)
        server_free = start + prefill * (0.5 if chunked else 1.0)
        t_first = start + prefill + float(rng.exponential(0.01))
        out = int(rng.integers(16, max_tokens + 1))
        gaps = rng.gamma(4.0, 0.0075, size=out - 1)
        t_end = t_first + float(gaps.sum())
        rows.append({"id": str(i), "t_sched": round(worker_free[w], 6), "t_sent": round(t_sent, 6),
                     "t_first": round(t_first, 6), "t_end": round(t_end, 6), "prompt_tokens": prompt,
                     "output_tokens": out, "max_tokens": max_tokens, "status": "ok", "http_status": 200,
                     "server_queue": round(start - t_sent, 6), "server_prefill": round(prefill, 6),
                     "server_decode": round(t_end - t_first, 6)})
        worker_free[w] = t_end
    rows.sort(key=lambda r: r["t_end"])  # logs are written as requests complete
    lines += [json.dumps(r) for r in rows]
    return "\n".join(lines) + "\n"


def main(out_dir):
    # The notebook's workload comparison at one concurrency: short prompts only, then more and
    # more long prompts mixed in.
    runs = [("short_only-c16", "short_only", 16, 300, 0.0, 11, False),
            ("mix_90_10-c16", "mix_90_10", 16, 300, 0.1, 12, False),
            ("mix_70_30-c16", "mix_70_30", 16, 300, 0.3, 13, False),
            ("mix_50_50-c16", "mix_50_50", 16, 300, 0.5, 14, False)]
    for label, workload, c, n, long_share, seed, chunked in runs:
        with open(f"{out_dir}/{label}.jsonl", "w") as f:
            f.write(simulate(label, workload, c, n, long_share, seed, chunked))


if __name__ == "__main__":
    main(sys.argv[1])
