#!/usr/bin/python3
"""Writes tests/data/guidellm/benchmarks_v0.2.json: a `guidellm benchmark --output-path
benchmarks.json` report in GuideLLM 0.2's layout.

No real 0.2 file is stored here; the layout follows GuideLLM 0.2's public source (vllm-project/
guidellm, formerly neuralmagic/guidellm, the v0.2.x code: src/guidellm/benchmark/benchmark.py,
benchmark/output.py, benchmark/aggregator.py, objects/statistics.py, scheduler/result.py,
scheduler/worker.py, backend/openai.py):

- the report is {"benchmarks": [...]} and nothing else (GenerativeBenchmarksReport.save_json:
  json.dumps(model_dump()), one line);
- a benchmark: type_ "generative_benchmark", id_, run_id, args {profile, strategy_index,
  strategy, max_number, max_duration, warmup_number, warmup_duration, cooldown_number,
  cooldown_duration}, run_stats {start_time, end_time, requests_made, *_avg}, worker {type_
  "generative_requests_worker", backend_type, backend_target, backend_model, backend_info},
  request_loader {type_, data, data_args, processor, processor_args}, extras, metrics, start_time,
  end_time, request_totals, request_samples, requests {successful, errored, incomplete, total},
  and the computed duration;
- a request (GenerativeTextResponseStats / GenerativeTextErrorStats): type_, request_id,
  request_type, scheduler_info {requested, completed, errored, canceled, targeted_start_time,
  queued_time, dequeued_time, scheduled_time, worker_start, request_start, request_end,
  worker_end, process_id}, prompt, output, prompt_tokens, output_tokens, start_time, end_time,
  first_token_time, last_token_time (error records add error; their first/last may be null),
  then the computed request_latency, time_to_first_token_ms, time_per_output_token_ms,
  inter_token_latency_ms, tokens_per_second, output_tokens_per_second;
- times (backend/openai.py, scheduler/worker.py): start_time = time.time() just before the HTTP
  request, first_token_time / last_token_time = arrival of the first / last streamed line with
  content, end_time = arrival of the last line read ([DONE]); scheduler_info.request_start and
  request_end are copies of start_time and end_time; targeted_start_time is the strategy's planned
  start (the arrival for constant/poisson, "now" for synchronous);
- metrics (GenerativeBenchmark.from_stats, StatusDistributionSummary): per status successful,
  errored, incomplete and total, a DistributionSummary {mean, median, mode, variance, std_dev,
  min, max, count, total_sum, percentiles {p001, p01, p05, p10, p25, p75, p90, p95, p99, p999},
  cumulative_distribution_function: null} -- this 0.2 variant has no p50 in percentiles (its median
  is the same lookup). Values are sorted into a weighted PDF; a quantile is the first value whose
  cumulative probability reaches it (np.argmax(cdf >= p)); mean and variance are
  probability-weighted. time_per_output_token_ms is weighted by output tokens and
  inter_token_latency_ms by output tokens - 1; requests_per_second and request_concurrency come
  from the request (start, end) pairs, the token rates from the iterations spread between first
  token and end.

The simulated run: a sweep-profile's first two strategies against one model, synchronous and
constant@2.00, each with 6 successful, 2 errored (an HTTP 429 and a timeout before any token) and
1 incomplete request (cut off after some tokens).

Usage: /usr/bin/python3 tests/tools/make_guidellm_v02_fixture.py [OUTPUT_FILE]
Deterministic: rewrites the file byte for byte.
"""

import json
import math
import pathlib
import sys
from collections import defaultdict

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
DEFAULT_OUT = HERE.parent / "data" / "guidellm" / "benchmarks_v0.2.json"
PERCENTILES = [("p001", 0.001), ("p01", 0.01), ("p05", 0.05), ("p10", 0.1), ("p25", 0.25), ("p75", 0.75),
               ("p90", 0.9), ("p95", 0.95), ("p99", 0.99), ("p999", 0.999)]


def distribution(pairs):
    """DistributionSummary.from_distribution_function of (value, weight) pairs."""
    if not pairs:
        zeros = {name: 0 for name, _ in PERCENTILES}
        return {"mean": 0.0, "median": 0, "mode": 0, "variance": 0.0, "std_dev": 0.0, "min": 0, "max": 0,
                "count": 0, "total_sum": 0.0, "percentiles": zeros, "cumulative_distribution_function": None}
    values = np.array([v for v, _ in pairs], dtype=float)
    weights = np.array([w for _, w in pairs], dtype=float)
    probabilities = weights / np.sum(weights)
    pdf = np.column_stack((values, probabilities))
    pdf = pdf[np.argsort(pdf[:, 0])]
    values, probabilities = pdf[:, 0], pdf[:, 1]
    cdf = np.column_stack((values, np.cumsum(probabilities)))
    mean = np.sum(values * probabilities).item()
    variance = np.sum((values - mean) ** 2 * probabilities).item()
    return {"mean": mean, "median": cdf[np.argmax(cdf[:, 1] >= 0.5), 0].item(),
            "mode": values[np.argmax(probabilities)].item(), "variance": variance, "std_dev": math.sqrt(variance),
            "min": values[0].item(), "max": values[-1].item(), "count": len(values),
            "total_sum": np.sum(values).item(),
            "percentiles": {name: cdf[np.argmax(cdf[:, 1] >= p), 0].item() for name, p in PERCENTILES},
            "cumulative_distribution_function": None}


def rate_or_concurrency(spans, kind, epsilon=1e-6):
    """DistributionSummary.from_request_times."""
    if kind == "concurrency":
        deltas = defaultdict(int)
        for start, end in spans:
            deltas[start] += 1
            deltas[end] -= 1
        events, active = [], 0
        for t, d in sorted(deltas.items()):
            active += d
            events.append((t, active))
    else:
        start = min(s for s, _ in spans) if spans else 0
        events = [(start, 1)] + [(end, 1) for _, end in spans]
    merged = []
    for t, v in sorted(events):
        if merged and abs(merged[-1][0] - t) <= epsilon:
            merged[-1] = (merged[-1][0], merged[-1][1] + v)
        else:
            merged.append((t, v))
    weights = defaultdict(float)
    for i in range(len(merged) - 1):
        (t0, v), (t1, _) = merged[i], merged[i + 1]
        if kind == "concurrency":
            weights[v] += t1 - t0
        else:
            weights[v / (t1 - t0)] += t1 - t0
    return distribution(sorted(weights.items()))


def iterable_rate(spans, firsts, counts, first_counts=None, epsilon=1e-6):
    """DistributionSummary.from_iterable_request_times."""
    first_counts = first_counts or [1] * len(spans)
    events = defaultdict(int)
    events[min(s for s, _ in spans)] = 0
    events[max(e for _, e in spans)] = 0
    for (_, end), first, first_count, total in zip(spans, firsts, first_counts, counts):
        events[first] += first_count
        if total > 1:
            step = (end - first) / (total - 1)
            for k in range(1, total):
                events[first + k * step] += 1
    merged = []
    for t, c in sorted(events.items()):
        if merged and abs(merged[-1][0] - t) <= epsilon:
            merged[-1] = (merged[-1][0], merged[-1][1] + c)
        else:
            merged.append((t, c))
    weights = defaultdict(float)
    for i in range(len(merged) - 1):
        (t0, c), (t1, _) = merged[i], merged[i + 1]
        weights[c / (t1 - t0)] += t1 - t0
    return distribution(sorted(weights.items()))


def by_status(records, value, weight=None, keep=lambda r: True):
    groups = {"successful": [], "errored": [], "incomplete": [], "total": []}
    for r in records:
        if not keep(r):
            continue
        pair = (value(r), weight(r) if weight else 1.0)
        groups[r["_status"]].append(pair)
        groups["total"].append(pair)
    return {k: distribution(v) for k, v in groups.items()}


def times_by_status(records, kind):
    out = {}
    for status in ("successful", "errored", "incomplete", "total"):
        spans = [(r["start_time"], r["end_time"]) for r in records if status in ("total", r["_status"])]
        out[status] = rate_or_concurrency(spans, kind)
    return out


def iter_by_status(records, prompt_too):
    out = {}
    for status in ("successful", "errored", "incomplete", "total"):
        rs = [r for r in records if status in ("total", r["_status"]) and r["output_tokens"] > 0]
        if not rs:
            out[status] = distribution([])
            continue
        out[status] = iterable_rate([(r["start_time"], r["end_time"]) for r in rs],
                                    [r["first_token_time"] or r["start_time"] for r in rs],
                                    [r["output_tokens"] for r in rs],
                                    [r["prompt_tokens"] + 1 for r in rs] if prompt_too else None)
    return out


def computed(r):
    """The @computed_field values of a request record."""
    out_tokens, first, last = r["output_tokens"], r["first_token_time"], r["last_token_time"]
    latency = r["end_time"] - r["start_time"]
    ttft = None if first is None else 1000 * (first - r["start_time"])
    has_tokens = first is not None and last is not None
    tpot = 1000 * (last - first) / out_tokens if has_tokens and out_tokens else (None if r["_status"] != "successful" else 0.0)
    itl = 1000 * (last - first) / (out_tokens - 1) if has_tokens and out_tokens > 1 else (None if not has_tokens else 0.0)
    return {"request_latency": latency, "time_to_first_token_ms": ttft, "time_per_output_token_ms": tpot,
            "inter_token_latency_ms": itl,
            "tokens_per_second": (r["prompt_tokens"] + out_tokens) / latency if latency else 0.0,
            "output_tokens_per_second": None if itl is None else (out_tokens / latency if latency else 0.0)}


def simulate(rng, strategy, t0, worker_id):
    records, t = [], t0
    plan = ["ok"] * 3 + ["http429"] + ["ok"] * 2 + ["timeout"] + ["ok"] + ["cut"]
    for i, kind in enumerate(plan):
        if strategy == "constant":
            targeted = t0 + i * 0.5
            start = targeted + 0.0004 + 0.0002 * rng.random()
        else:
            targeted = t
            start = t + 0.0003 + 0.0002 * rng.random()
        prompt = int(rng.integers(250, 262))
        rec = {"prompt_tokens": prompt, "start_time": start}
        if kind == "http429":
            rec.update(_status="errored", output_tokens=0, first_token_time=None, last_token_time=None,
                       end_time=start + 0.004, output="",
                       error="Client error '429 Too Many Requests' for url 'http://localhost:8000/v1/completions'")
        elif kind == "timeout":
            rec.update(_status="errored", output_tokens=0, first_token_time=None, last_token_time=None,
                       end_time=start + 5.0, output=None,
                       error="TimeoutError: The request timed out before completing.")
        else:
            out = 128 if kind == "ok" else int(rng.integers(20, 40))
            first = start + 0.040 + 0.01 * rng.random() + (0.03 if strategy == "constant" else 0.0)
            last = first + (out - 1) * (0.0155 + 0.001 * rng.random())
            end = last + 0.0008 + 0.0004 * rng.random()
            rec.update(output_tokens=out, first_token_time=first, last_token_time=last, end_time=end,
                       output="lorem " * out)
            if kind == "ok":
                rec.update(_status="successful")
            else:  # cancelled when the run stopped, after some tokens
                rec.update(_status="incomplete", error="TimeoutError: The request timed out before completing.")
        t = rec["end_time"] + 0.0002
        rec["_targeted"] = targeted
        rec["_worker"] = worker_id
        records.append(rec)
    return records


def request_json(r, i, run_index):
    status = r["_status"]
    info = {"requested": True, "completed": status == "successful", "errored": status != "successful",
            "canceled": status == "incomplete", "targeted_start_time": r["_targeted"],
            "queued_time": r["_targeted"] - 0.0015, "dequeued_time": r["_targeted"] - 0.0009,
            "scheduled_time": r["_targeted"] - 0.0005, "worker_start": r["start_time"] - 0.0002,
            "request_start": r["start_time"], "request_end": r["end_time"], "worker_end": r["end_time"] + 0.0001,
            "process_id": r["_worker"]}
    out = {"type_": "generative_text_response" if status == "successful" else "generative_text_error",
           "request_id": f"{run_index:02d}{i:06d}-0000-4000-8000-00000000000{run_index}",
           "request_type": "text_completions", "scheduler_info": info,
           "prompt": "the quick brown fox " * 40, "output": r["output"],
           "prompt_tokens": r["prompt_tokens"], "output_tokens": r["output_tokens"],
           "start_time": r["start_time"], "end_time": r["end_time"],
           "first_token_time": r["first_token_time"], "last_token_time": r["last_token_time"]}
    if status != "successful":
        out["error"] = r["error"]
    out.update(computed(r))
    return out


def benchmark(records, strategy, index, run_id, profile):
    ok = lambda r: True
    with_out = lambda r: r["output_tokens"] > 0
    metrics = {
        "requests_per_second": times_by_status(records, "rate"),
        "request_concurrency": times_by_status(records, "concurrency"),
        "request_latency": by_status(records, lambda r: r["end_time"] - r["start_time"]),
        "prompt_token_count": by_status(records, lambda r: r["prompt_tokens"], keep=ok),
        "output_token_count": by_status(records, lambda r: r["output_tokens"], keep=with_out),
        "time_to_first_token_ms": by_status(records, lambda r: computed(r)["time_to_first_token_ms"] or 0,
                                            keep=with_out),
        "time_per_output_token_ms": by_status(records, lambda r: computed(r)["time_per_output_token_ms"] or 0,
                                              weight=lambda r: r["output_tokens"], keep=with_out),
        "inter_token_latency_ms": by_status(records, lambda r: computed(r)["inter_token_latency_ms"] or 0,
                                            weight=lambda r: r["output_tokens"] - 1,
                                            keep=lambda r: r["output_tokens"] > 1),
        "output_tokens_per_second": iter_by_status(records, False),
        "tokens_per_second": iter_by_status(records, True),
    }
    groups = {s: [r for r in records if r["_status"] == s] for s in ("successful", "errored", "incomplete")}
    listed = groups["successful"] + groups["incomplete"] + groups["errored"]
    start = min(r["start_time"] for r in listed)
    end = max(r["end_time"] for r in listed)
    counts = {"successful": len(groups["successful"]), "errored": len(groups["errored"]),
              "incomplete": len(groups["incomplete"]), "total": len(records)}
    strat = {"type_": "synchronous"} if strategy == "synchronous" else {
        "type_": "constant", "max_concurrency": None, "rate": 2.0, "initial_burst": True}
    return {
        "type_": "generative_benchmark",
        "id_": f"4f1c9d2e-7b3a-4c55-9e21-8d7c6b5a4f3{index}",
        "run_id": run_id,
        "args": {"profile": profile, "strategy_index": index, "strategy": strat, "max_number": 9,
                 "max_duration": 30.0, "warmup_number": None, "warmup_duration": None, "cooldown_number": None,
                 "cooldown_duration": None},
        "run_stats": {"start_time": start - 0.02, "end_time": end + 0.05,
                      "requests_made": counts, "queued_time_avg": 0.0006, "scheduled_time_delay_avg": 0.0004,
                      "scheduled_time_sleep_avg": 0.0, "worker_start_delay_avg": 0.0003,
                      "worker_time_avg": sum(r["end_time"] - r["start_time"] for r in records) / len(records),
                      "worker_start_time_targeted_delay_avg": 0.0005, "request_start_time_delay_avg": 0.0002,
                      "request_start_time_targeted_delay_avg": 0.0005, "request_time_delay_avg": 0.0003,
                      "request_time_avg": sum(r["end_time"] - r["start_time"] for r in records) / len(records)},
        "worker": {"type_": "generative_requests_worker", "backend_type": "openai_http",
                   "backend_target": "http://localhost:8000", "backend_model": "meta-llama/Llama-3.1-8B-Instruct",
                   "backend_info": {"max_output_tokens": 16384, "timeout": 300, "http2": True,
                                    "authorization": False, "organization": None, "project": None,
                                    "text_completions_path": "/v1/completions",
                                    "chat_completions_path": "/v1/chat/completions"}},
        "request_loader": {"type_": "generative_request_loader", "data": "prompt_tokens=256,output_tokens=128",
                           "data_args": None, "processor": "meta-llama/Llama-3.1-8B-Instruct",
                           "processor_args": None},
        "extras": {},
        "metrics": metrics,
        "start_time": start,
        "end_time": end,
        "request_totals": counts,
        "request_samples": None,
        "requests": {"successful": [request_json(r, i, index) for i, r in enumerate(groups["successful"])],
                     "errored": [request_json(r, i, index) for i, r in enumerate(groups["errored"])],
                     "incomplete": [request_json(r, i, index) for i, r in enumerate(groups["incomplete"])],
                     "total": None},
        "duration": end - start,
    }


def main():
    out = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_OUT
    out.parent.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(2025_05_01)
    run_id = "0b6e1f4a-2c3d-4e5f-8a9b-1c2d3e4f5a6b"
    profile = {"type_": "sweep", "completed_strategies": 2, "measured_rates": [1.6], "measured_concurrencies": [1.0],
               "max_concurrency": None, "strategy_type": "constant", "initial_burst": True, "sweep_size": 10}
    sync = simulate(rng, "synchronous", 1746086400.125, 1)
    const = simulate(rng, "constant", sync[-1]["end_time"] + 1.5, 2)
    report = {"benchmarks": [benchmark(sync, "synchronous", 0, run_id, profile),
                             benchmark(const, "constant", 1, run_id, profile)]}
    with open(out, "w") as f:
        f.write(json.dumps(report))


if __name__ == "__main__":
    main()
