#!/usr/bin/env python3
"""Writes tests/data/mlcommons_endpoints/run/{events.jsonl,performance/result_summary.json}: a small
mlcommons/endpoints run (concurrency 2, a warm-up phase, 8 performance samples, one failed) in the
exact layout of mlcommons/endpoints@ea332753 — EventRecord lines as msgspec.json encodes them
(core/record.py, async_utils/services/event_logger/file_writer.py; PromptData, TextModelOutput and
ErrorData array-like with their tag first, core/types.py) and the Report as metrics/report.py writes it,
its statistics computed as the aggregator computes them (metrics_table.py triggers; registry.py:
np.percentile(method="lower") over DEFAULT_PERCENTILES, percentile keys str(float)). Token counts
stand in for the model's tokenizer: ISL is len(token_ids) (the SGLang path, exact), OSL counts words
of the output text (the fixture's tokenizer). Deterministic; never run through servestat."""
import json
import math
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "data", "mlcommons_endpoints", "run")
PERCENTILES = (99.9, 99.0, 97.0, 95.0, 90.0, 80.0, 75.0, 50.0, 25.0, 10.0, 5.0, 1.0)

events = []


def ev(event_type, ts, uuid="", data=None, conversation_id="", turn=None, **extra):
    rec = {"event_type": event_type, "timestamp_ns": ts, "sample_uuid": uuid, "conversation_id": conversation_id,
           "turn": turn, "data": data}
    rec.update(extra)
    events.append(rec)


T0 = 81_234_567_890_123  # time.monotonic_ns() at session start
ms = 1_000_000

ev("session.started", T0)
# Warm-up: issued and streamed, never completed (session.py publishes no COMPLETE in WARMUP).
for k in range(2):
    u = f"warm{k:028x}"
    ev("sample.issued", T0 + 1 * ms + k * 100_000, u, ["PromptData", None, [1, 2, 3]])
    ev("sample.recv_first", T0 + 9 * ms + k * 100_000, u)
    ev("sample.recv_non_first", T0 + 12 * ms + k * 100_000, u)
start_tracking = T0 + 50 * ms
ev("session.start_performance_tracking", start_tracking)

# (uuid, issue offset ms, prompt tokens, chunks [(offset ms, text)], complete offset ms, finish, error)
samples = [
    ("a", 51.000, 12, [(71.250, "The"), (75.500, " quick brown"), (79.125, " fox")], 79.400, "stop", None),
    ("b", 51.200, 7, [(66.000, "Hello"), (70.750, " world"), (74.000, " again"), (77.500, " and")], 77.900, "length", None),
    ("c", 79.500, 20, [(101.000, "One"), (104.500, " two three")], 104.800, "stop", None),
    ("d", 78.000, 9, [(95.300, "Yes")], 95.500, "stop", None),
    ("e", 95.600, 15, [], 130.000, None, ["ErrorData", "error", "HTTP 503: Service Unavailable"]),
    ("f", 104.900, 11, [(121.700, "A"), (125.200, " b"), (128.900, " c"), (132.600, " d")], 132.900, "length", None),
    ("g", 130.100, 5, [(151.000, "Alpha beta"), (154.000, " gamma")], 154.250, "stop", None),
    ("h", 133.000, 30, [(160.000, "Done"), (166.000, " here")], 166.300, "stop", None),
]


def at(x):
    return T0 + int(round(x * ms))


timeline = []
for u, issue, isl, chunks, done, finish, error in samples:
    uid = (u * 32)[:32]
    timeline.append((at(issue), 0, ("sample.issued", uid, ["PromptData", None, list(range(100, 100 + isl))])))
    for i, (t, _) in enumerate(chunks):
        timeline.append((at(t), 1, ("sample.recv_first" if i == 0 else "sample.recv_non_first", uid, None)))
    if error:
        timeline.append((at(done) - 1, 2, ("error.generic", uid, error)))
    out = ["TextModelOutput", [c for _, c in chunks]] if chunks else None
    timeline.append((at(done), 3, ("sample.complete", uid, out, finish)))
timeline.sort(key=lambda x: (x[0], x[1]))
for ts, _, item in timeline:
    if item[0] == "sample.complete":
        extra = {"finish_reason": item[3]} if item[3] else {}
        extra["worker_id"] = 0
        ev(item[0], ts, item[1], item[2], **extra)
    else:
        ev(item[0], ts, item[1], item[2])
last_complete = max(at(s[4]) for s in samples)
ev("session.stop_performance_tracking", last_complete + 200_000)
ev("session.ended", last_complete + 5 * ms)

os.makedirs(os.path.join(OUT, "performance"), exist_ok=True)
with open(os.path.join(OUT, "events.jsonl"), "w") as f:
    for e in events:
        f.write(json.dumps(e, separators=(",", ":")) + "\n")

# ---- the aggregator's series ----
ttft, latency, tpot, isl_v, osl_v = [], [], [], [], []
for u, issue, isl, chunks, done, finish, error in samples:
    latency.append(at(done) - at(issue))
    isl_v.append(isl)
    if chunks:
        ttft.append(at(chunks[0][0]) - at(issue))
        words = "".join(c for _, c in chunks).split()
        osl_v.append(len(words))
        after = "".join(c for _, c in chunks[1:]).split()
        if after:
            tpot.append((at(done) - at(chunks[0][0])) / len(after))


def rollup(values, es=False):
    arr = np.array(values)
    n = len(values)
    total = sum(values)
    if all(isinstance(v, int) for v in values):
        sum_sq = sum(v * v for v in values)
        std = math.sqrt(max(0, n * sum_sq - total * total)) / math.sqrt(n * (n - 1))
    else:
        sum_sq = sum(v * v for v in values)
        std = math.sqrt(max(0.0, (sum_sq - total * total / n) / (n - 1)))
    perc = np.percentile(np.sort(arr), PERCENTILES, method="lower")
    pd = {str(p): float(v) for p, v in zip(PERCENTILES, perc)}
    lo, hi = float(min(values)), float(max(values))
    out = {"total": total, "min": min(values), "max": max(values), "median": pd["50.0"], "avg": total / n,
           "std_dev": std, "percentiles": pd}
    if es:
        out["early_stopping_percentiles"] = {str(p): None for p in PERCENTILES}
    out["histogram"] = {"buckets": [[lo, (lo + hi) / 2], [(lo + hi) / 2, hi]],
                        "counts": [int(sum(v < (lo + hi) / 2 for v in values)), int(sum(v >= (lo + hi) / 2 for v in values))]}
    return out


duration = last_complete - start_tracking
n_completed = len(samples)
finish = {"stop": 0, "length": 0, "tool_calls": 0, "content_filter": 0, "function_call": 0, "other": 0}
for s in samples:
    if s[5]:
        finish[s[5]] += 1
report = {
    "version": "0.6.1",
    "git_sha": "ea332753",
    "test_started_at": 0,
    "n_samples_issued": len(samples),
    "n_samples_completed": n_completed,
    "n_samples_failed": sum(1 for s in samples if s[6]),
    "duration_ns": duration,
    "state": "complete",
    "complete": True,
    "ttft": rollup(ttft, es=True),
    "tpot": rollup(tpot, es=True),
    "latency": rollup(latency, es=True),
    "output_sequence_lengths": rollup(osl_v),
    "input_sequence_lengths": rollup(isl_v),
    "legacy_loadgen_window_duration_ns": None,
    "qps": n_completed / (duration / 1e9),
    "tps": sum(osl_v) / (duration / 1e9),
    "finish_reason_counts": finish,
    "run_config": {"load_pattern": {"type": "concurrency", "target_qps": None, "target_concurrency": 2,
                                    "use_legacy_loadgen_qps_metrics": True},
                   "warmup": {"enabled": True, "num_samples": 2},
                   "scheduler_random_seed": 42, "dataloader_random_seed": 42},
}
with open(os.path.join(OUT, "performance", "result_summary.json"), "w") as f:
    f.write(json.dumps(report, indent=2) + "\n")
