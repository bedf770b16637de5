#!/usr/bin/python3
"""Writes the vLLM serving-benchmark result fixtures of tests/data/vllm_bench_json/.

No real `vllm bench serve --save-result` file was available, so these are made from the documented
field list (vllm/benchmarks/serve.py at vllm-project/vllm@009e6d4a: calculate_metrics, benchmark,
main_async; the legacy benchmarks/benchmark_serving.py at @0049e29c). Requests are simulated with a
seeded numpy generator; everything vLLM derives from them is computed here exactly as vLLM does:

- per request, times are perf_counter-like floats: st (send), then the arrival time of every chunk;
  ttft = first chunk - st, each itl entry = chunk - previous chunk, latency = last chunk - st, all
  as float subtractions of those absolute readings (endpoint_request_func);
- queue_times = st - the request's arrival (the wait on the --max-concurrency semaphore);
- a failed request keeps its start_time and has ttft 0.0, itl [], latency 0.0, output_len 0 and the
  error text (aiohttp's reason phrase, possibly empty, or an exception traceback);
- the summary keys come from calculate_metrics: np.mean, np.median, np.std (ddof 0) and
  np.percentile (method linear) of the successful requests' ttfts, tpots ((latency - ttft) /
  (output_len - 1) for output_len > 1), pooled itls and latencies, times 1000; client_queue_time
  and e2el_including_client_queue as process_one_metric computes them;
- json.dump(result_json, f) with Python's default separators, one object per line, and
  --append-result's "\\n" between objects.

Usage: /usr/bin/python3 tests/tools/make_vllm_bench_json_fixtures.py [OUTPUT_DIR]
(default: tests/data/vllm_bench_json next to this script). The output is deterministic: running it
again rewrites the committed files byte for byte.
"""

import json
import math
import pathlib
import sys

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
DEFAULT_OUT = HERE.parent / "data" / "vllm_bench_json"


def simulate(seed, n, request_rate, burstiness, max_concurrency, failures):
    """Requests as vLLM's request functions would have recorded them.

    failures: {index: (error_text, seconds_until_the_failure)}.
    """
    rng = np.random.default_rng(seed)
    # get_request: gamma inter-arrival times, cumulated, rescaled so the last lands at n / rate.
    if request_rate == float("inf"):
        delays = [0.0] * n
    else:
        theta = 1.0 / (request_rate * burstiness)
        delays = list(np.cumsum(rng.gamma(shape=burstiness, scale=theta, size=n)))
        factor = (n / request_rate) / delays[-1]
        delays = [float(d * factor) for d in delays]
    benchmark_start = 81234.56789 + seed  # a perf_counter reading
    arrivals = [benchmark_start + 0.0005 + d + 1e-5 * i for i, d in enumerate(delays)]

    slots = [benchmark_start] * (max_concurrency or n)  # when each semaphore slot frees
    requests = []
    for i in range(n):
        slot = min(range(len(slots)), key=lambda k: slots[k])
        st = max(arrivals[i], slots[slot]) + float(rng.uniform(2e-5, 8e-5))
        prompt_len = int(rng.integers(40, 1800))
        r = {"arrival": arrivals[i], "st": st, "prompt_len": prompt_len}
        if i in failures:
            text, took = failures[i]
            r.update(success=False, error=text, ttft=0.0, itl=[], latency=0.0, output_len=0, end=st + took)
        else:
            chunks = int(rng.integers(2, 40))
            times = [st + float(rng.uniform(0.05, 0.6))]
            for _ in range(chunks - 1):
                times.append(times[-1] + float(rng.gamma(4.0, 0.006)))
            extra = int(rng.integers(0, 3))  # some chunks carry two tokens: usage counts tokens
            r.update(success=True, error="", ttft=times[0] - st,
                     itl=[times[k] - times[k - 1] for k in range(1, len(times))],
                     latency=times[-1] - st, output_len=chunks + extra, end=times[-1])
        slots[slot] = r["end"]
        requests.append(r)
    end = max(r["end"] for r in requests) + 0.0021
    return benchmark_start, end, requests


def calculate_metrics(requests, dur_s, selected_percentiles, goodput):
    """vllm/benchmarks/serve.py calculate_metrics, for the fields the result file keeps."""
    ok = [r for r in requests if r["success"]]
    ttfts = [r["ttft"] for r in ok]
    e2els = [r["latency"] for r in ok]
    itls = [g for r in ok for g in r["itl"]]
    tpots, all_tpots = [], []
    for r in ok:
        tpot = 0.0
        if r["output_len"] > 1:
            tpot = (r["latency"] - r["ttft"]) / (r["output_len"] - 1)
            tpots.append(tpot)
        all_tpots.append(tpot)
    good = 0
    if goodput:
        for ttft in ttfts:
            good += goodput["ttft"] / 1000 >= ttft
    total_input = sum(r["prompt_len"] for r in ok)
    total_output = sum(r["output_len"] for r in requests)

    # Peak output tokens per second (1-s buckets) and the exact peak of concurrent requests.
    max_tokens_per_s, peak = 0.0, 0
    if ok:
        first = min(r["st"] for r in ok)
        last = max(r["st"] + r["latency"] for r in ok)
        buckets = np.zeros(int(np.ceil(last - first)) + 1)
        for r in ok:
            t = r["st"] + r["ttft"]
            token_times = [t]
            for gap in r["itl"]:
                t += gap
                token_times.append(t)
            for tt in token_times:
                b = int(tt - first)
                if 0 <= b < len(buckets):
                    buckets[b] += 1
        events = sorted([(r["st"], 1) for r in ok] + [(r["st"] + r["latency"], -1) for r in ok])
        current = 0
        for _, delta in events:
            current += delta
            peak = max(peak, current)
        max_tokens_per_s = float(np.max(buckets))

    def stats(values):
        return {
            "mean": np.mean(values or 0) * 1000,
            "median": np.median(values or 0) * 1000,
            "std": np.std(values or 0) * 1000,
            "percentiles": [(p, np.percentile(values or 0, p) * 1000) for p in selected_percentiles],
        }

    return {
        "completed": len(ok),
        "failed": len(requests) - len(ok),
        "total_input": total_input,
        "total_output": total_output,
        "request_throughput": len(ok) / dur_s,
        "request_goodput": good / dur_s,
        "output_throughput": total_output / dur_s,
        "total_token_throughput": (total_input + total_output) / dur_s,
        "max_output_tokens_per_s": max_tokens_per_s,
        "max_concurrent_requests": peak,
        "ttft": stats(ttfts),
        "tpot": stats(tpots),
        "itl": stats(itls),
        "e2el": stats(e2els),
    }


def add_metric(result, name, s):
    """process_one_metric: mean, median, std and the selected percentiles, in that order."""
    result[f"mean_{name}_ms"] = float(s["mean"])
    result[f"median_{name}_ms"] = float(s["median"])
    result[f"std_{name}_ms"] = float(s["std"])
    for p, value in s["percentiles"]:
        p_word = str(int(p)) if int(p) == p else str(p)
        result[f"p{p_word}_{name}_ms"] = float(value)


def serve_result(*, seed, n, date, label, model_id, backend, metadata, request_rate, burstiness,
                 max_concurrency, failures, percentile_metrics, percentiles, save_detailed=True):
    """One `vllm bench serve --save-result` object (main_async's result_json)."""
    start, end, requests = simulate(seed, n, request_rate, burstiness, max_concurrency, failures)
    dur_s = end - start
    m = calculate_metrics(requests, dur_s, percentiles, None)
    result = {"date": date, "endpoint_type": backend, "backend": backend, "label": label,
              "model_id": model_id, "tokenizer_id": model_id, "num_prompts": n}
    result.update(metadata)
    result["request_rate"] = request_rate if request_rate < float("inf") else "inf"
    result["burstiness"] = burstiness
    result["max_concurrency"] = max_concurrency
    result.update({
        "duration": dur_s,
        "completed": m["completed"],
        "failed": m["failed"],
        "total_input_tokens": m["total_input"],
        "total_output_tokens": m["total_output"],
        "request_throughput": m["request_throughput"],
        "request_goodput": None,
        "output_throughput": m["output_throughput"],
        "total_token_throughput": m["total_token_throughput"],
        "input_lens": [r["prompt_len"] for r in requests],
        "output_lens": [r["output_len"] for r in requests],
        "ttfts": [r["ttft"] for r in requests],
        "itls": [r["itl"] for r in requests],
        "latencies": [r["latency"] for r in requests],
        "start_times": [r["st"] for r in requests],
        "queue_times": [r["st"] - r["arrival"] for r in requests],
        "generated_texts": ["" if not r["success"] else "x" * r["output_len"] for r in requests],
        "errors": [r["error"] for r in requests],
        "max_output_tokens_per_s": m["max_output_tokens_per_s"],
        "max_concurrent_requests": m["max_concurrent_requests"],
        "rtfx": 0.0,
    })
    for name in ("ttft", "tpot", "itl", "e2el"):
        if name in percentile_metrics:
            add_metric(result, name, m[name])
    ok = [r for r in requests if r["success"]]
    if max_concurrency is not None:
        queue = [r["st"] - r["arrival"] for r in ok]
        add_metric(result, "client_queue_time", {
            "mean": np.mean(queue or 0) * 1000, "median": np.median(queue or 0) * 1000,
            "std": np.std(queue or 0) * 1000,
            "percentiles": [(p, np.percentile(queue or 0, p) * 1000) for p in percentiles]})
        if not math.isinf(request_rate):
            total = [r["latency"] + (r["st"] - r["arrival"]) for r in ok]
            add_metric(result, "e2el_including_client_queue", {
                "mean": np.mean(total or 0) * 1000, "median": np.median(total or 0) * 1000,
                "std": np.std(total or 0) * 1000,
                "percentiles": [(p, np.percentile(total or 0, p) * 1000) for p in percentiles]})
    if not save_detailed:
        for field in ("input_lens", "output_lens", "start_times", "ttfts", "itls", "generated_texts", "errors"):
            del result[field]
    return result


def legacy_result(*, seed, n, date, model_id, request_rate, goodput):
    """benchmarks/benchmark_serving.py@0049e29c: no failed/latencies/start_times/queue_times, the
    detailed arrays always present, and the key "request_goodput:" with its stray colon."""
    start, end, requests = simulate(seed, n, request_rate, 1.0, None, {3: ("Bad Request", 0.01)})
    dur_s = end - start
    m = calculate_metrics(requests, dur_s, [99.0], goodput)
    result = {"date": date, "backend": "vllm", "model_id": model_id, "tokenizer_id": model_id,
              "num_prompts": n, "request_rate": request_rate, "burstiness": 1.0, "max_concurrency": None,
              "duration": dur_s, "completed": m["completed"],
              "total_input_tokens": m["total_input"], "total_output_tokens": m["total_output"],
              "request_throughput": m["request_throughput"],
              "request_goodput:": m["request_goodput"] if goodput else None,
              "output_throughput": m["output_throughput"],
              "total_token_throughput": m["total_token_throughput"],
              "input_lens": [r["prompt_len"] for r in requests],
              "output_lens": [r["output_len"] for r in requests],
              "ttfts": [r["ttft"] for r in requests],
              "itls": [r["itl"] for r in requests],
              "generated_texts": ["" if not r["success"] else "y" * r["output_len"] for r in requests],
              "errors": [r["error"] for r in requests]}
    for name in ("ttft", "tpot", "itl"):
        add_metric(result, name, m[name])
    return result


def main():
    out = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_OUT
    out.mkdir(parents=True, exist_ok=True)
    traceback = ("Traceback (most recent call last):\n  File \"endpoint_request_func.py\", line 262, in "
                 "async_request_openai_chat_completions\n    async with session.post(url=api_url, json=payload, "
                 "headers=headers) as response:\naiohttp.client_exceptions.ServerDisconnectedError: "
                 "Server disconnected\n")

    single = serve_result(
        seed=1, n=16, date="20250301-101500", label="bench-c4", model_id="Qwen/Qwen2.5-7B-Instruct",
        backend="openai-chat", metadata={"tp": "2", "gpu": "H100"}, request_rate=8.0, burstiness=1.0,
        max_concurrency=4, failures={5: ("Bad Request", 0.004), 9: ("", 0.003), 12: (traceback, 0.02)},
        percentile_metrics="ttft,tpot,itl,e2el", percentiles=[50.0, 90.0, 99.0, 99.9])
    with open(out / "single_detailed.json", "w", encoding="utf-8") as f:
        json.dump(single, f)

    # --append-result: each run appends "\n" (when the file is not empty) and its object.
    with open(out / "append_three.json", "w", encoding="utf-8") as f:
        for k, rate in enumerate([2.0, 8.0, float("inf")]):
            if k:
                f.write("\n")
            json.dump(serve_result(
                seed=10 + k, n=10, date=f"20250302-09{k}000", label="sweep", model_id="meta-llama/Llama-3.1-8B",
                backend="vllm", metadata={}, request_rate=rate, burstiness=1.0, max_concurrency=None,
                failures={}, percentile_metrics="ttft,tpot,itl", percentiles=[99.0]), f)

    no_detail = serve_result(
        seed=20, n=12, date="20250303-120000", label=None, model_id="Qwen/Qwen2.5-7B-Instruct",
        backend="openai", metadata={}, request_rate=4.0, burstiness=0.5, max_concurrency=2,
        failures={7: ("Too Many Requests", 0.002)}, percentile_metrics="ttft,tpot,itl,e2el",
        percentiles=[50.0, 90.0, 99.0], save_detailed=False)
    with open(out / "summary_no_detail.json", "w", encoding="utf-8") as f:
        json.dump(no_detail, f)

    legacy = legacy_result(seed=30, n=8, date="20240915-080000", model_id="facebook/opt-125m",
                           request_rate=4.0, goodput={"ttft": 500.0})
    with open(out / "legacy_goodput.json", "w", encoding="utf-8") as f:
        json.dump(legacy, f)


if __name__ == "__main__":
    main()
