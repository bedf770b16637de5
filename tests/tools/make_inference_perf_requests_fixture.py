#!/usr/bin/python3
"""Writes tests/data/inference_perf/per_request/: inference-perf's per_request_lifecycle_metrics.json of
two small load stages together with the stage and whole-run lifecycle reports computed from the same
requests, as one inference-perf run leaves them in its report folder.

Generated, not real (no public run folder holds the per-request file). The requests are simulated and
the reports computed by make_inference_perf_fixtures.py (simulate_stage, report: inference-perf's
summarize_requests); the per-request records are written as kubernetes-sigs/inference-perf@7de5ef2
inference_perf/reportgen/base.py writes them: {start_time, end_time, request, response, info, error},
info = InferenceInfo.model_dump() (request_metrics.text.input_tokens, response_metrics {output_tokens,
server_usage, response_chunks, chunk_times, output_token_times}, extra_info, lora_adapter, labels,
input_tokens), error = {error_type, error_msg} or null; json.dumps(indent=2).
Usage: /usr/bin/python3 tests/tools/make_inference_perf_requests_fixture.py (deterministic)."""
import json

import numpy as np

import make_inference_perf_fixtures as base

STAGES = [
    {"rate": 2.0, "delay": 0.0004, "ttft": 0.08, "gap": 0.012, "failures": [("HTTP Error 503", "Service Unavailable")]},
    {"rate": 3.0, "delay": 0.0006, "ttft": 0.11, "gap": 0.015, "failures": []},
]
SECONDS = 3


def record(r):
    body = json.dumps({"model": "Qwen/Qwen3-0.6B", "prompt": "x " * r["prompt"], "max_tokens": 64, "stream": True})
    ok = r["error"] is None
    response_metrics = {"output_tokens": r["tokens"] if ok else 0, "server_usage": None, "response_chunks": [],
                        "chunk_times": sorted(set(r["token_times"])) if ok else [],
                        "output_token_times": r["token_times"] if ok else []}
    info = {"request_metrics": {"text": {"input_tokens": r["prompt"]}, "image": None, "video": None, "audio": None},
            "response_metrics": response_metrics, "extra_info": {}, "lora_adapter": None, "labels": {},
            "input_tokens": r["prompt"]}
    return {"start_time": r["start"], "end_time": r["end"], "request": body, "response": "" if ok else None,
            "info": info, "error": None if ok else {"error_type": r["error"][0], "error_msg": r["error"][1]}}


def main():
    base.STAGE_SECONDS = SECONDS
    rng = np.random.default_rng(20261201)
    stages, t = [], 500.0
    for stage in STAGES:
        stages.append(base.simulate_stage(rng, stage, t))
        t += SECONDS + 1.0
    out = base.DATA / "inference_perf" / "per_request"
    for i, (stage, requests) in enumerate(zip(STAGES, stages)):
        base.write(out / f"stage_{i}_lifecycle_metrics.json", base.report(requests, stage["rate"]))
    everything = [r for s in stages for r in s]
    base.write(out / "summary_lifecycle_metrics.json", base.report(everything))
    base.write(out / "per_request_lifecycle_metrics.json", [record(r) for r in everything])


if __name__ == "__main__":
    main()
