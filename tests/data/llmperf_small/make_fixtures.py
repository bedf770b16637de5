#!/usr/bin/python3
"""Writes the two LLMPerf runs of this folder: per-request files in LLMPerf's
`<prefix>_individual_responses.json` layout and the summaries LLMPerf computes from them
(`<prefix>_summary.json`), seeded so the files are the same on every run of this script.

Usage: make_fixtures.py   (writes beside itself; needs numpy and pandas)
"""
import json
import os

import numpy as np
import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))
METRICS = ["inter_token_latency_s", "ttft_s", "end_to_end_latency_s", "request_output_throughput_token_per_s",
           "number_input_tokens", "number_output_tokens"]


def requests(n, seed):
    """n successful requests whose latency barely depends on their output length: e2e is a
    per-request decode speed times the tokens plus a queueing delay that swamps it."""
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(n):
        prompt = int(rng.integers(500, 600))
        out = int(rng.integers(120, 180))
        ttft = float(rng.uniform(0.2, 1.2))
        e2e = ttft + out * 0.004 + float(rng.exponential(1.0))
        rows.append({"error_code": None, "error_msg": "", "inter_token_latency_s": e2e / out, "ttft_s": ttft,
                     "end_to_end_latency_s": e2e, "request_output_throughput_token_per_s": out / e2e,
                     "number_total_tokens": prompt + out, "number_output_tokens": out, "number_input_tokens": prompt})
    return rows


def summary(name, rows, concurrency, wall_s, timestamp):
    """token_benchmark_ray.py's summary: pandas quantiles (linear), mean, min, max, std (ddof 1) over
    the requests without an error_code; numpy integers dumped as strings (json default=str)."""
    out = {"version": "2023-08-31", "name": name, "model": "meta-llama/Llama-2-7b-chat-hf",
           "mean_input_tokens": 550, "stddev_input_tokens": 0, "mean_output_tokens": 150, "stddev_output_tokens": 0,
           "num_concurrent_requests": concurrency}
    ok = pd.DataFrame([r for r in rows if r["error_code"] is None])
    for m in METRICS:
        s = ok[m].dropna()
        for q, value in s.quantile([0.25, 0.5, 0.75, 0.9, 0.95, 0.99]).items():
            out[f"results_{m}_quantiles_p{int(q * 100)}"] = float(value)
        out[f"results_{m}_mean"] = float(s.mean())
        integer = m.startswith("number_")
        out[f"results_{m}_min"] = str(int(s.min())) if integer else float(s.min())
        out[f"results_{m}_max"] = str(int(s.max())) if integer else float(s.max())
        out[f"results_{m}_stddev"] = float(s.std())
    out.update({"results_num_requests_started": len(rows), "results_error_rate": 0.0, "results_number_errors": 0,
                "results_error_code_frequency": "{}",
                "results_mean_output_throughput_token_per_s": float(ok["number_output_tokens"].sum() / wall_s),
                "results_num_completed_requests": len(ok),
                "results_num_completed_requests_per_min": len(ok) / wall_s * 60, "timestamp": timestamp})
    return out


def write(prefix, rows, concurrency, wall_s, timestamp):
    with open(os.path.join(HERE, prefix + "_individual_responses.json"), "w") as f:
        json.dump(rows, f, indent=4)
        f.write("\n")
    with open(os.path.join(HERE, prefix + "_summary.json"), "w") as f:
        json.dump(summary(prefix + "_summary", rows, concurrency, wall_s, timestamp), f, indent=4)
        f.write("\n")


if __name__ == "__main__":
    write("small_550_150", requests(10, seed=9), concurrency=5, wall_s=4.5, timestamp=1727235996)
    write("c40_550_150", requests(9, seed=40), concurrency=40, wall_s=2.1, timestamp=1727236096)
