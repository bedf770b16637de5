#!/usr/bin/python3
"""Writes the inference-perf and llm-d Benchmark Report fixtures of tests/data/inference_perf/ and
tests/data/llmd_report/.

No real report was available, so these are made from the tools' public code:

- inference-perf (kubernetes-sigs/inference-perf, inference_perf/reportgen/base.py at
  010d12fb, `summarize_requests` and `summarize`; the older layout at the revision that still
  wrote `schedule_accuracy`). Requests are simulated with a seeded numpy generator as the client
  records them (perf_counter readings: scheduled_time, start_time, the arrival time of every output
  token, where all tokens of one chunk share the chunk's time, end_time after the stream was read);
  every statistic is computed here as base.py computes it: np.mean/min/max and np.percentile
  (linear) at the default percentiles [0.1, 1, 5, 10, 25, 50, 75, 90, 95, 99, 99.9], keyed "median"
  for 50 and f"p{p:g}" otherwise; TTFT = first token - start, TPOT = (last token - first token) /
  (output tokens - 1), NTPOT = (end - start) / output tokens, ITL = the pooled gaps between
  consecutive token times; throughput over max(end) - min(start) of all the stage's requests;
  achieved_rate = requests / (last start - first start).
- llm-d Benchmark Report v0.2 / v0.2.1 (llm-d/llm-d-benchmark,
  llmdbenchmark/analysis/benchmark_report/schema_v0_2.py, schema_v0_2_1.py and
  native_to_br0_2.py `import_inference_perf` / `import_vllm_benchmark`), written as
  BenchmarkReport.export_json does: json.dump(model_dump(mode="json", exclude_none=True), indent=2).

Usage: /usr/bin/python3 tests/tools/make_inference_perf_fixtures.py
The output is deterministic: running it again rewrites the committed files byte for byte.
"""

import json
import pathlib

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
DATA = HERE.parent / "data"
PERCENTILES = [0.1, 1, 5, 10, 25, 50, 75, 90, 95, 99, 99.9]

# Stage request rates and how a saturating server answers them: the median TTFT and the mean gap
# between chunks grow with the load; the last stage starts to fail.
STAGES = [
    {"rate": 1.0, "ttft": 0.060, "gap": 0.020, "delay": 0.0004, "failures": []},
    {"rate": 2.0, "ttft": 0.065, "gap": 0.021, "delay": 0.0005, "failures": []},
    {"rate": 4.0, "ttft": 0.080, "gap": 0.024, "delay": 0.0008, "failures": []},
    {"rate": 6.0, "ttft": 0.180, "gap": 0.030, "delay": 0.0015, "failures": []},
    {"rate": 8.0, "ttft": 0.900, "gap": 0.036, "delay": 0.0040,
     "failures": [("HTTP Error 503", "Service Unavailable"), ("HTTP Error 503", "Service Unavailable"),
                  ("TimeoutError", "request timed out")]},
]
STAGE_SECONDS = 15


def summarize(items, percentiles=PERCENTILES):
    if len(items) == 0:
        return None
    out = {"mean": float(np.mean(items)), "min": float(np.min(items)), "max": float(np.max(items))}
    for p in percentiles:
        out["median" if p == 50 else f"p{p:g}"] = float(np.percentile(items, p))
    return out


def summarize_old(items):
    """The first layout: a fixed set of statistics."""
    if len(items) == 0:
        return None
    return {"mean": float(np.mean(items)), "min": float(np.min(items)), "p10": float(np.percentile(items, 10)),
            "p50": float(np.percentile(items, 50)), "p90": float(np.percentile(items, 90)),
            "max": float(np.max(items))}


def simulate_stage(rng, stage, t0):
    """One stage's requests as inference-perf's client records them."""
    n = int(stage["rate"] * STAGE_SECONDS)
    failing = set(rng.choice(n, size=len(stage["failures"]), replace=False).tolist())
    failure_kinds = iter(stage["failures"])
    requests = []
    for i in range(n):
        scheduled = t0 + i / stage["rate"]
        start = scheduled + float(rng.exponential(stage["delay"]))
        prompt = int(rng.integers(100, 300))
        if i in failing:
            error_type, message = next(failure_kinds)
            requests.append({"scheduled": scheduled, "start": start, "end": start + float(rng.uniform(0.5, 3.0)),
                             "prompt": prompt, "error": (error_type, message)})
            continue
        tokens = int(rng.integers(20, 60))
        first = start + float(rng.lognormal(np.log(stage["ttft"]), 0.35))
        token_times = [first]
        while len(token_times) < tokens:
            chunk_time = token_times[-1] + float(rng.gamma(4.0, stage["gap"] / 4.0))
            # Some chunks carry two tokens: both get the chunk's arrival time.
            for _ in range(2 if rng.random() < 0.15 else 1):
                if len(token_times) < tokens:
                    token_times.append(chunk_time)
        end = token_times[-1] + float(rng.uniform(0.001, 0.004))  # [DONE], the usage chunk, token counting
        requests.append({"scheduled": scheduled, "start": start, "end": end, "prompt": prompt,
                         "token_times": token_times, "tokens": tokens, "size": 2 * prompt + 180, "error": None})
    return requests


def label_of(error_type, message):
    if error_type.startswith("HTTP Error "):
        code = error_type.split()[-1]
        return f"{code} - {message}"
    return "Timeout" if "timed out" in message else error_type.lower()


def report(requests, stage_rate=None):
    """summarize_requests of inference-perf's current base.py."""
    ok = [r for r in requests if r["error"] is None]
    failed = [r for r in requests if r["error"] is not None]
    total_time = max(r["end"] for r in requests) - min(r["start"] for r in requests)
    starts = [r["start"] for r in requests]
    load = {"count": len(requests), "schedule_delay": summarize([r["start"] - r["scheduled"] for r in requests])}
    if stage_rate is not None:
        send_duration = max(starts) - min(starts)
        load.update({"send_duration": send_duration, "requested_rate": stage_rate,
                     "achieved_rate": len(requests) / send_duration if send_duration > 0 else 0.0})
    latency = [r["end"] - r["start"] for r in ok]
    ttft = [r["token_times"][0] - r["start"] for r in ok]
    tpot = [(r["token_times"][-1] - r["token_times"][0]) / (r["tokens"] - 1) for r in ok]
    ntpot = [(r["end"] - r["start"]) / r["tokens"] for r in ok]
    itl = [b - a for r in ok for a, b in zip(r["token_times"], r["token_times"][1:])]
    prompts = [float(r["prompt"]) for r in ok]
    outputs = [float(r["tokens"]) for r in ok]
    labels = {}
    for r in failed:
        label = label_of(*r["error"])
        entry = labels.setdefault(label, {"count": 0, "messages": []})
        entry["count"] += 1
        if not any(m["message"] == r["error"][1] for m in entry["messages"]):
            entry["messages"].append({"message": r["error"][1]})
    zeros = [0.0] * len(ok)
    return {
        "benchmark_time_seconds": total_time,
        "load_summary": load,
        "successes": {
            "count": len(ok),
            "latency": {"request_latency": summarize(latency), "normalized_time_per_output_token": summarize(ntpot),
                        "time_per_output_token": summarize(tpot), "time_to_first_token": summarize(ttft),
                        "inter_token_latency": summarize(itl)},
            "throughput": {"input_tokens_per_sec": sum(prompts) / total_time,
                           "output_tokens_per_sec": sum(outputs) / total_time,
                           "total_tokens_per_sec": (sum(prompts) + sum(outputs)) / total_time,
                           "requests_per_sec": len(ok) / total_time,
                           "images_per_sec": 0.0, "videos_per_sec": 0.0, "audios_per_sec": 0.0},
            "request_size_bytes": summarize([float(r["size"]) for r in ok]),
            "image": {"count": summarize(zeros), "pixels": None, "bytes": None, "aspect_ratio": None},
            "video": {"count": summarize(zeros), "frames": None, "pixels": None, "bytes": None, "aspect_ratio": None},
            "audio": {"count": summarize(zeros), "seconds": None, "bytes": None},
            "prompt_tokens": {"total": sum(prompts), "cached": 0.0, "uncached": sum(prompts), **summarize(prompts)},
            "output_len": summarize(outputs),
            "output_tokens": {"total": sum(outputs), **summarize(outputs)},
            "token_count_mismatches": 0,
            "client_fallback_requests": {"prompt": 0, "output": 0},
        },
        "failures": {
            "count": len(failed),
            "request_latency": summarize([r["end"] - r["start"] for r in failed]),
            "prompt_tokens": {"total": sum(float(r["prompt"]) for r in failed), "cached": 0.0,
                              "uncached": sum(float(r["prompt"]) for r in failed),
                              **(summarize([float(r["prompt"]) for r in failed]) or {})},
            "by_label": labels,
        },
    }


def old_report(requests, stage_rate):
    """summarize_requests of the first layout (schedule_accuracy; p10, p50 and p90 only)."""
    ok = [r for r in requests if r["error"] is None]
    failed = [r for r in requests if r["error"] is not None]
    total_time = max(r["end"] for r in requests) - min(r["start"] for r in requests)
    starts = [r["start"] for r in requests]
    send_duration = max(starts) - min(starts)
    prompts = [float(r["prompt"]) for r in ok]
    outputs = [float(r["tokens"]) for r in ok]
    return {
        "load_summary": {"count": len(requests),
                         "schedule_accuracy": summarize_old([r["start"] - r["scheduled"] for r in requests]),
                         "send_duration": send_duration, "requested_rate": stage_rate,
                         "achieved_rate": len(requests) / send_duration},
        "successes": {
            "count": len(ok),
            "latency": {
                "request_latency": summarize_old([r["end"] - r["start"] for r in ok]),
                "normalized_time_per_output_token": summarize_old([(r["end"] - r["start"]) / r["tokens"] for r in ok]),
                "time_per_output_token": summarize_old(
                    [(r["token_times"][-1] - r["token_times"][0]) / (len(r["token_times"]) - 1) for r in ok]),
                "time_to_first_token": summarize_old([r["token_times"][0] - r["start"] for r in ok]),
                "inter_token_latency": summarize_old(
                    [b - a for r in ok for a, b in zip(r["token_times"], r["token_times"][1:])]),
            },
            "throughput": {"input_tokens_per_sec": sum(prompts) / total_time,
                           "output_tokens_per_sec": sum(outputs) / total_time,
                           "total_tokens_per_sec": (sum(prompts) + sum(outputs)) / total_time,
                           "requests_per_sec": len(ok) / total_time},
            "prompt_len": summarize_old(prompts),
            "output_len": summarize_old(outputs),
        },
        "failures": {"count": len(failed), "request_latency": summarize_old([r["end"] - r["start"] for r in failed]),
                     "prompt_len": summarize_old([float(r["prompt"]) for r in failed])},
    }


def to_br_statistics(dist, units):
    """native_to_br0_2's mapping of one inference-perf distribution: median -> p50, p0.1 -> p0p1."""
    if dist is None:
        return None
    keys = {"mean": "mean", "min": "min", "p0.1": "p0p1", "p1": "p1", "p5": "p5", "p10": "p10", "p25": "p25",
            "median": "p50", "p75": "p75", "p90": "p90", "p95": "p95", "p99": "p99", "p99.9": "p99p9", "max": "max"}
    out = {"units": units}
    for theirs, ours in keys.items():
        if dist.get(theirs) is not None:
            out[ours] = dist[theirs]
    return out


def br_from_stage(stage_report, stage_index, rate):
    """import_inference_perf (native_to_br0_2.py) of one stage report, dumped as export_json does."""
    s = stage_report["successes"]
    lat = s["latency"]
    return {
        "version": "0.2",
        "run": {"uid": f"inference-perf-stage-{stage_index}-5e1f0c2a", "eid": "7b0c6a52-9d4e-5c1e-8f3a-2d6b1e0f4c77",
                "time": {"start": f"2025-11-05T18:0{stage_index}:00Z", "end": f"2025-11-05T18:0{stage_index}:15Z",
                         "duration": f"PT{STAGE_SECONDS}S"}},
        "scenario": {
            "stack": [{"metadata": {"schema_version": "0.0.1", "label": "vllm-svc-0",
                                    "cfg_id": "cc73fc6b51a1d3b8128f312d70476d7c"},
                       "standardized": {"kind": "inference_engine", "tool": "llm-d",
                                        "tool_version": "ghcr.io/llm-d/llm-d-cuda:0.3.1", "role": "replica",
                                        "replicas": 1, "model": {"name": "Qwen/Qwen3-0.6B"},
                                        "accelerator": {"model": "NVIDIA-H100-80GB-HBM3", "count": 1,
                                                        "parallelism": {"tp": 1}}},
                       "native": {}}],
            "load": {"metadata": {"schema_version": "0.0.1", "cfg_id": "a4e18f265cc33786a42b8a3f7ac2edcb"},
                     "standardized": {"tool": "inference-perf", "tool_version": "0.3.0", "parallelism": 1,
                                      "source": "random", "stage": stage_index,
                                      "input_seq_len": {"distribution": "gaussian",
                                                        "value": s["prompt_tokens"]["mean"]},
                                      "rate_qps": rate},
                     "native": {"config": {"load": {"type": "constant"}}}},
        },
        "results": {"request_performance": {"aggregate": {
            "requests": {"total": stage_report["load_summary"]["count"], "failures": stage_report["failures"]["count"],
                         "input_length": to_br_statistics(s["prompt_tokens"], "count"),
                         "output_length": to_br_statistics(s["output_len"], "count")},
            "latency": {"time_to_first_token": to_br_statistics(lat["time_to_first_token"], "s"),
                        "normalized_time_per_output_token": to_br_statistics(lat["normalized_time_per_output_token"],
                                                                             "s/token"),
                        "time_per_output_token": to_br_statistics(lat["time_per_output_token"], "s/token"),
                        "inter_token_latency": to_br_statistics(lat["inter_token_latency"], "s/token"),
                        "request_latency": to_br_statistics(lat["request_latency"], "s")},
            "throughput": {"output_token_rate": {"units": "tokens/s", "mean": s["throughput"]["output_tokens_per_sec"]},
                           "total_token_rate": {"units": "tokens/s", "mean": s["throughput"]["total_tokens_per_sec"]},
                           "request_rate": {"units": "queries/s", "mean": s["throughput"]["requests_per_sec"]}},
        }}},
    }


def vllm_br():
    """import_vllm_benchmark of a `vllm bench serve --max-concurrency 16` result, as v0.2.1 (ms units)."""
    return {
        "version": "0.2.1",
        "run": {"uid": "3f2a9c1e0b7d4e5f8a6b2c1d0e9f8a7b", "eid": "0c9e2f4a-1b3d-5e6f-8a7b-9c0d1e2f3a4b",
                "time": {"end": "2025-11-06T09:12:44Z"}},
        "scenario": {
            "stack": [{"metadata": {"schema_version": "0.0.1", "label": "vllm-svc-0",
                                    "cfg_id": "0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a"},
                       "standardized": {"kind": "inference_engine", "tool": "vllm",
                                        "tool_version": "docker.io/vllm/vllm-openai:v0.11.0", "role": "replica",
                                        "replicas": 2, "model": {"name": "meta-llama/Llama-3.1-8B-Instruct"},
                                        "accelerator": {"model": "NVIDIA-H100-80GB-HBM3", "count": 1,
                                                        "parallelism": {"tp": 1}}},
                       "native": {}}],
            "load": {"metadata": {"schema_version": "0.0.1", "cfg_id": "5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d"},
                     "standardized": {"tool": "vllm-benchmark", "tool_version": "0.11.0", "parallelism": 1,
                                      "source": "random", "stage": 0,
                                      "input_seq_len": {"distribution": "fixed", "value": 1024},
                                      "output_seq_len": {"distribution": "fixed", "value": 256},
                                      "concurrency": 16},
                     "native": {"args": {"dataset-name": "random", "max-concurrency": "16", "num-prompts": "400"}}},
        },
        "results": {"request_performance": {"aggregate": {
            "requests": {"total": 400, "failures": 2,
                         "input_length": {"units": "count", "mean": 1024.0},
                         "output_length": {"units": "count", "mean": 255.42}},
            "latency": {
                "time_to_first_token": {"units": "ms", "mean": 142.61, "stddev": 38.25, "p50": 131.4,
                                        "p90": 190.07, "p99": 288.9},
                "time_per_output_token": {"units": "ms/token", "mean": 11.82, "stddev": 1.04, "p50": 11.71,
                                          "p90": 13.02, "p99": 14.6},
                "inter_token_latency": {"units": "ms/token", "mean": 11.79, "stddev": 3.51, "p50": 11.2,
                                        "p90": 14.9, "p99": 25.31},
                "request_latency": {"units": "ms", "mean": 3153.2, "stddev": 301.7, "p50": 3120.5,
                                    "p90": 3510.0, "p99": 3902.75}},
            "throughput": {"output_token_rate": {"units": "tokens/s", "mean": 1285.33},
                           "total_token_rate": {"units": "tokens/s", "mean": 6425.9},
                           "request_rate": {"units": "queries/s", "mean": 5.0247},
                           "image_rate": {"units": "images/s", "mean": 0.0}},
        }}},
    }


def write(path, document):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=2) + "\n")


def main():
    rng = np.random.default_rng(20251105)
    stages, t = [], 1000.0  # perf_counter seconds
    for stage in STAGES:
        stages.append(simulate_stage(rng, stage, t))
        t += STAGE_SECONDS + 1.0  # the load config's interval between stages
    sweep = DATA / "inference_perf" / "sweep"
    for i, (stage, requests) in enumerate(zip(STAGES, stages)):
        write(sweep / f"stage_{i}_lifecycle_metrics.json", report(requests, stage["rate"]))
    write(sweep / "summary_lifecycle_metrics.json", report([r for s in stages for r in s]))
    write(DATA / "inference_perf" / "old" / "stage_2_lifecycle_metrics.json", old_report(stages[2], STAGES[2]["rate"]))
    for i in range(4):
        write(DATA / "llmd_report" / f"br_inference_perf_stage_{i}.json",
              br_from_stage(report(stages[i], STAGES[i]["rate"]), i, STAGES[i]["rate"]))
    write(DATA / "llmd_report" / "br_vllm_benchmark_c16.json", vllm_br())


if __name__ == "__main__":
    main()
