#!/usr/bin/python3
"""Writes the LLMPerf summary fixtures of tests/data/llmperf/.

LLMPerf (ray-project/llmperf, token_benchmark_ray.py at f1d6bed and src/llmperf/utils.py) builds one
summary per run: `get_token_throughput_latencies` returns its settings (model, mean/stddev
input/output tokens, num_concurrent_requests, additional_sampling_params) with a nested `results`
dict from `metrics_summary` -- for each of inter_token_latency_s, ttft_s, end_to_end_latency_s,
request_output_throughput_token_per_s, number_input_tokens and number_output_tokens a dict
{quantiles: {p25, p50, p75, p90, p95, p99}, mean, min, max, stddev} over the requests whose
error_code is null (pandas Series.quantile = numpy's linear method; .std() with ddof 1), then
num_requests_started, error_rate, number_errors, error_code_frequency (str() of a dict),
mean_output_throughput_token_per_s (output tokens / wall time), num_completed_requests and
num_completed_requests_per_min. `LLMPerfResults.to_dict` puts version "2023-08-31" and name
first, appends the user metadata and timestamp, and flattens the whole dict with "_"
(`flatten_dict`, so an empty additional_sampling_params disappears); json.dump(..., indent=4,
default=str) writes numpy integers (token-count min and max) as strings.

Made from that layout (no real multi-run file is stored here), for a simulated concurrency sweep:

- sweep_results.json: what a sweep script around LLMPerf saves (the shape of
  ray-project/llmperf's scripts/benchmark.py, which loads each run's *_summary.json into a dict
  keyed by concurrency): {"1": <flattened summary>, "4": ..., "8": ..., "16": ...}.
- sweep_list_results.json: the same four runs as a JSON list of the summaries LLMPerf's own
  get_token_throughput_latencies returns, unflattened (results.ttft_s.quantiles.p50 ...), dumped
  with default=str.
- nested_summary.json: one unflattened summary (the concurrency 8 run).

Usage: /usr/bin/python3 tests/tools/make_llmperf_summary_fixtures.py [OUTPUT_DIR]
(default: tests/data/llmperf next to this script). Deterministic: it rewrites the files byte for byte.
"""

import json
import pathlib
import sys

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
DEFAULT_OUT = HERE.parent / "data" / "llmperf"

MODEL = "meta-llama/Llama-2-7b-chat-hf"
LEVELS = [1, 4, 8, 16]
REQUESTS = 24
METRICS = ["inter_token_latency_s", "ttft_s", "end_to_end_latency_s",
           "request_output_throughput_token_per_s", "number_input_tokens", "number_output_tokens"]
QUANTILES = [("p25", 25), ("p50", 50), ("p75", 75), ("p90", 90), ("p95", 95), ("p99", 99)]


def simulate(rng, concurrency):
    """Requests of one closed-loop run: latency grows with the number in flight."""
    rows = []
    for i in range(REQUESTS):
        prompt = int(rng.integers(540, 561))
        if concurrency == 16 and i in (5, 17):
            # rate limited: LLMPerf writes zeros and the HTTP status
            rows.append({"error_code": 429, "error_msg": "Too Many Requests", "number_input_tokens": prompt})
            continue
        out = int(rng.integers(140, 156))
        ttft = 0.05 + 0.012 * concurrency * (1 + 0.3 * rng.random())
        step = 0.018 * (1 + 0.035 * concurrency) * (1 + 0.1 * rng.random())
        e2e = ttft + step * (out - 1)
        rows.append({"error_code": None, "error_msg": "", "number_input_tokens": prompt,
                     "number_output_tokens": out, "ttft_s": ttft, "end_to_end_latency_s": e2e,
                     # LLMPerf's own definition: (ttft + all chunk gaps) / output tokens
                     "inter_token_latency_s": e2e / out,
                     "request_output_throughput_token_per_s": out / e2e})
    return rows


def metric_summary(values):
    v = np.asarray(values, dtype=float)
    quantiles = {name: float(np.percentile(v, q)) for name, q in QUANTILES}
    is_count = all(float(x).is_integer() for x in values)
    low, high = (np.int64(min(values)), np.int64(max(values))) if is_count else (float(v.min()), float(v.max()))
    return {"quantiles": quantiles, "mean": float(v.mean()), "min": low, "max": high,
            "stddev": float(v.std(ddof=1))}


def results_of(rows, wall_time):
    ok = [r for r in rows if r["error_code"] is None]
    out = {}
    for m in METRICS:
        out[m] = metric_summary([r[m] for r in ok])
    errors = [r["error_code"] for r in rows if r["error_code"] is not None]
    out["num_requests_started"] = len(rows)
    out["error_rate"] = len(errors) / len(rows)
    out["number_errors"] = len(errors)
    freq = {}
    for e in errors:
        freq[float(e)] = freq.get(float(e), 0) + 1  # pandas value_counts of a float column
    out["error_code_frequency"] = str(freq)
    out["mean_output_throughput_token_per_s"] = sum(r["number_output_tokens"] for r in ok) / wall_time
    out["num_completed_requests"] = len(ok)
    out["num_completed_requests_per_min"] = len(ok) / wall_time * 60
    return out


def flatten(d, parent=""):
    items = []
    for k, v in d.items():
        key = f"{parent}_{k}" if parent else k
        if isinstance(v, dict):
            items.extend(flatten(v, key).items())
        else:
            items.append((key, v))
    return dict(items)


def to_text(value):
    """json.dump's default=str for the numpy integers LLMPerf's statistics hold."""
    return str(value)


def main():
    out_dir = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_OUT
    out_dir.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(20231227)
    keyed, listed = {}, []
    timestamp = 1703638574
    for c in LEVELS:
        rows = simulate(rng, c)
        ok = [r for r in rows if r["error_code"] is None]
        # closed loop: c requests in flight, so the wall time is about total latency / c
        wall_time = sum(r["end_to_end_latency_s"] for r in ok) / c + 0.25
        summary = {"model": MODEL, "mean_input_tokens": 550, "stddev_input_tokens": 10,
                   "mean_output_tokens": 150, "stddev_output_tokens": 5, "num_concurrent_requests": c,
                   "additional_sampling_params": {}, "results": results_of(rows, wall_time)}
        listed.append(summary)
        name = "meta-llama-Llama-2-7b-chat-hf_550_150_summary"
        saved = flatten({"version": "2023-08-31", "name": name, **summary, "timestamp": timestamp})
        keyed[c] = json.loads(json.dumps(saved, default=to_text))  # what the script loads back
        timestamp += 600

    with open(out_dir / "sweep_results.json", "w") as f:
        json.dump(keyed, f, indent=4)
    with open(out_dir / "sweep_list_results.json", "w") as f:
        json.dump(listed, f, indent=2, default=to_text)
    with open(out_dir / "nested_summary.json", "w") as f:
        json.dump(listed[2], f, indent=4, default=to_text)


if __name__ == "__main__":
    main()
