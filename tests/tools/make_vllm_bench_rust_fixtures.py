#!/usr/bin/python3
"""Writes the Rust vllm-bench result fixtures of tests/data/vllm_bench_json/ (rust_*.json).

vllm-project/vllm-bench is a Rust rewrite of `vllm bench serve` whose README says its JSON output
matches the Python schema. No real file is stored here; these follow its source (src/output/json.rs
build_result_json and collect_failed_requests, src/metrics/calculator.rs calculate_metrics,
src/metrics/steady_state.rs, src/benchmark.rs run_benchmark, src/backends/openai_chat.rs):

- the result is a serde_json Map without the preserve_order feature (Cargo.lock: serde_json depends
  on no indexmap), so every object's keys are written in sorted order, compactly
  (serde_json::to_string);
- date is chrono::Utc "%Y-%m-%dT%H:%M:%SZ"; label and tokenizer_id null when not given;
  max_model_len null; request_rate a number or "inf"; request_goodput null without --goodput;
  input_throughput, rtfx 0.0 and steady_state (null, or the plateau window's metrics when
  --max-concurrency is set and the rate is inf) are always written; failed_requests lists every
  failed request ({index, error, prompt_len, start_time, latency, ttft, output_tokens, itl});
- per-request arrays only with --save-detailed: input_lens (the dataset's prompt lengths),
  output_lens (the usage chunk's completion_tokens; 0 for failures), ttfts, itls, generated_texts,
  errors, latencies, start_times (seconds since the benchmark's start, taken after the
  concurrency semaphore, just before sending). There are no queue_times;
- chat backend timing: ttft at the first message with non-empty choices; each later such message
  adds an itl gap; latency runs to the last message read before [DONE] (the usage chunk included);
  a failed request (HTTP error) keeps latency 0.0, ttft 0.0, itl [] and the error
  "HTTP 429 Too Many Requests: <body>";
- summary keys: mean/median/std (population)/p<P> of ttft, tpot ((latency - ttft) /
  (output_len - 1) for output_len > 1), itl (pooled) and e2el over successful requests, times 1000;
  request_throughput = completed / duration, input/output/total token throughputs likewise;
  max_output_tokens_per_s and max_concurrent_requests from one-second buckets from the first
  successful start.

Files:
- rust_detailed.json: `vllm-bench --backend openai-chat --save-result --save-detailed
  --max-concurrency 4 --num-prompts 40 --percentile-metrics ttft,tpot,itl,e2el
  --metric-percentiles 50,90,99` (request rate inf): 40 requests, 2 rejected with HTTP 429, long
  generated texts that push model_id past the first 64 KiB, and a steady_state block.
- rust_append_sweep.json: three runs appended with --append-result (no --save-detailed) at
  --max-concurrency 1, 4 and 16: summary runs only, one per line.

Usage: /usr/bin/python3 tests/tools/make_vllm_bench_rust_fixtures.py [OUTPUT_DIR]
Deterministic: rewrites the files byte for byte.
"""

import json
import math
import pathlib
import sys

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
DEFAULT_OUT = HERE.parent / "data" / "vllm_bench_json"
MODEL = "Qwen/Qwen3-8B"


def simulate(rng, n, concurrency, failures, prompt=512, out_len=96):
    """Closed-loop requests: `concurrency` slots, each taking the next request when free."""
    slots = [0.002 * k for k in range(concurrency)]
    outputs = []
    for i in range(n):
        k = int(np.argmin(slots))
        start = slots[k] + 0.0001
        prompt_len = prompt + int(rng.integers(-16, 17))
        if i in failures:
            latency_end = start + 0.003
            outputs.append({"success": False, "start_time": start, "latency": 0.0, "ttft": 0.0, "itl": [],
                            "output_tokens": 0, "prompt_len": prompt_len, "generated_text": "",
                            "error": 'HTTP 429 Too Many Requests: {"error":{"message":"rate limited","code":429}}'})
            slots[k] = latency_end
            continue
        ttft = 0.035 + 0.006 * concurrency * (1 + 0.2 * rng.random())
        gaps = list(0.011 * (1 + 0.05 * concurrency) * (0.8 + 0.4 * rng.random(out_len - 1)))
        usage_gap = 0.0004 + 0.0002 * rng.random()  # the usage chunk after the last token
        latency = ttft + sum(gaps) + usage_gap
        text = " ".join(["token"] * out_len) + " " + "x" * 2200
        outputs.append({"success": True, "start_time": start, "latency": latency, "ttft": ttft,
                        "itl": [float(g) for g in gaps], "output_tokens": out_len, "prompt_len": prompt_len,
                        "generated_text": text, "error": ""})
        slots[k] = start + latency
    duration = max(o["start_time"] + o["latency"] for o in outputs) + 0.01
    return outputs, duration


def stats(values, percentiles):
    if not values:
        return 0.0, 0.0, 0.0, [(p, 0.0) for p in percentiles]
    v = np.asarray(values, dtype=float)
    return (float(v.mean()) * 1000, float(np.median(v)) * 1000, float(v.std()) * 1000,
            [(p, float(np.percentile(v, p)) * 1000) for p in percentiles])


def peaks(outputs):
    ok = [o for o in outputs if o["success"]]
    t0 = min(o["start_time"] for o in ok)
    t1 = max(o["start_time"] + o["latency"] for o in ok)
    buckets = math.ceil(t1 - t0) + 1
    tokens = [0.0] * buckets
    running = [0] * buckets
    for o in ok:
        t = o["start_time"] + o["ttft"]
        times = [t]
        for g in o["itl"]:
            t += g
            times.append(t)
        for t in times:
            b = int(t - t0)
            if b < buckets:
                tokens[b] += 1
        first, last = int(o["start_time"] - t0), int(o["start_time"] + o["latency"] - t0)
        for b in range(first, min(last, buckets - 1) + 1):
            running[b] += 1
    return max(tokens), max(running)


def steady_state(outputs, target, threshold=0.95, min_window=None, duration=None):
    ok = [o for o in outputs if o["success"]]
    threshold_abs = max(1, math.ceil(threshold * target))
    starts = sorted(o["start_time"] for o in ok)
    ends = sorted(o["start_time"] + o["latency"] for o in ok)
    i = j = conc = peak = 0
    up = down = None
    while i < len(starts) or j < len(ends):
        end_next = j < len(ends) and (i >= len(starts) or ends[j] <= starts[i])
        if end_next:
            t = ends[j]
            j += 1
            before = conc
            conc = max(0, conc - 1)
            if before >= threshold_abs > conc:
                down = t
        else:
            t = starts[i]
            i += 1
            before = conc
            conc += 1
            peak = max(peak, conc)
            if before < threshold_abs <= conc and up is None:
                up = t
    if up is None:
        return None
    down = down if down is not None else ends[-1]
    t0 = starts[0]
    window_len = down - up
    started = sum(1 for o in ok if up <= o["start_time"] < down)
    completed = sum(1 for o in ok if up <= o["start_time"] + o["latency"] < down)
    min_window = max(10.0, 0.1 * duration) if min_window is None else min_window
    warning = None
    if window_len < min_window:
        warning = "steady-state window is %.1fs (%.1f%% of run); may not be representative" % (
            window_len, 100.0 * window_len / max(duration, 1e-9))
    ttfts, tpots, in_tok, out_tok = [], [], 0, 0
    for o in ok:
        if up <= o["start_time"] < down:
            in_tok += o["prompt_len"]
            ttfts.append(o["ttft"])
            if o["output_tokens"] > 1:
                tpots.append((o["latency"] - o["ttft"]) / (o["output_tokens"] - 1))
        t = o["start_time"] + o["ttft"]
        out_tok += up <= t < down
        for g in o["itl"]:
            t += g
            out_tok += up <= t < down
            if t >= down:
                break
    span = max(window_len, 1e-9)

    def median(v):
        v = sorted(v)
        n = len(v)
        return (v[n // 2 - 1] + v[n // 2]) / 2 if n % 2 == 0 else v[n // 2]

    def linear(v, p):
        return float(np.percentile(np.asarray(v), p))

    return {
        "window": {"start_s": up - t0, "end_s": down - t0, "duration_s": (down - t0) - (up - t0),
                   "target_concurrency": target, "threshold": threshold, "threshold_abs": threshold_abs,
                   "observed_peak": peak, "requests_started_in_window": started,
                   "requests_completed_in_window": completed, "requests_total": len(ok), "warning": warning},
        "request_throughput": completed / span, "input_throughput": in_tok / span,
        "output_throughput": out_tok / span, "total_token_throughput": in_tok / span + out_tok / span,
        "mean_ttft_ms": sum(ttfts) / len(ttfts) * 1000, "median_ttft_ms": median(ttfts) * 1000,
        "percentiles_ttft_ms": [[p, linear(ttfts, p) * 1000] for p in (50.0, 90.0, 99.0)],
        "mean_tpot_ms": sum(tpots) / len(tpots) * 1000, "median_tpot_ms": median(tpots) * 1000,
        "p90_tpot_ms": linear(tpots, 90) * 1000, "p99_tpot_ms": linear(tpots, 99) * 1000,
    }


def result(outputs, duration, concurrency, percentiles, detailed, date, state=True):
    ok = [o for o in outputs if o["success"]]
    output_lens = [o["output_tokens"] if o["success"] else 0 for o in outputs]
    total_input = sum(o["prompt_len"] for o in ok)
    total_output = sum(output_lens)
    ttfts = [o["ttft"] for o in ok]
    tpots = [(o["latency"] - o["ttft"]) / (o["output_tokens"] - 1) for o in ok if o["output_tokens"] > 1]
    itls = [g for o in ok for g in o["itl"]]
    e2els = [o["latency"] for o in ok]
    max_tps, max_conc = peaks(outputs)
    r = {"date": date, "endpoint_type": "openai-chat", "backend": "openai-chat", "label": None, "model_id": MODEL,
         "tokenizer_id": None, "num_prompts": len(outputs), "max_model_len": None, "request_rate": "inf",
         "burstiness": 1.0, "max_concurrency": concurrency, "duration": duration, "completed": len(ok),
         "failed": len(outputs) - len(ok), "total_input_tokens": total_input, "total_output_tokens": total_output,
         "request_throughput": len(ok) / duration, "request_goodput": None,
         "input_throughput": total_input / duration, "output_throughput": total_output / duration,
         "total_token_throughput": (total_input + total_output) / duration,
         "max_output_tokens_per_s": max_tps, "max_concurrent_requests": max_conc, "rtfx": 0.0}
    failed = [{"index": i, "error": o["error"], "prompt_len": o["prompt_len"], "start_time": o["start_time"],
               "latency": o["latency"], "ttft": o["ttft"], "output_tokens": o["output_tokens"], "itl": o["itl"]}
              for i, o in enumerate(outputs) if not o["success"]]
    if failed:
        r["failed_requests"] = failed
    if detailed:
        r.update({"input_lens": [o["prompt_len"] for o in outputs], "output_lens": output_lens,
                  "ttfts": [o["ttft"] for o in outputs], "itls": [o["itl"] for o in outputs],
                  "generated_texts": [o["generated_text"] for o in outputs],
                  "errors": [o["error"] for o in outputs], "latencies": [o["latency"] for o in outputs],
                  "start_times": [o["start_time"] for o in outputs]})
    for name, values in (("ttft", ttfts), ("tpot", tpots), ("itl", itls), ("e2el", e2els)):
        mean, median, std, ps = stats(values, percentiles)
        r[f"mean_{name}_ms"], r[f"median_{name}_ms"], r[f"std_{name}_ms"] = mean, median, std
        for p, v in ps:
            r["p%s_%s_ms" % (int(p) if p == int(p) else p, name)] = v
    r["steady_state"] = steady_state(outputs, concurrency, duration=duration) if state else None
    return r


def dump(obj):
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


def main():
    out_dir = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_OUT
    out_dir.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(2025_06_01)
    outputs, duration = simulate(rng, 40, 4, failures={7, 23})
    detailed = result(outputs, duration, 4, [50.0, 90.0, 99.0], True, "2025-06-01T12:00:00Z")
    (out_dir / "rust_detailed.json").write_text(dump(detailed))

    lines = []
    for k, c in enumerate((1, 4, 16)):
        outs, dur = simulate(rng, 24, c, failures=set())
        lines.append(dump(result(outs, dur, c, [99.0], False, "2025-06-01T13:%02d:00Z" % (10 * k), state=False)))
    (out_dir / "rust_append_sweep.json").write_text("\n".join(lines))


if __name__ == "__main__":
    main()
