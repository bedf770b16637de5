#!/usr/bin/python3
"""What a notebook does for the same numbers as `servestat stats`: the baseline of bench/README.md.

Reads the canonical log with pandas.read_json(lines=True) and computes, for the metrics that the
benchmark log carries, n/mean/std/min/max and p50/p90/p95/p99 per subset, plus run-level rates.
Usage: /usr/bin/python3 bench/pandas_stats.py FILE
"""
import json
import sys

import pandas as pd

df = pd.read_json(sys.argv[1], lines=True).iloc[1:]  # row 0 is the header line
ok = df[df["status"] == "ok"]
metrics = pd.DataFrame({
    "e2e": ok["t_end"] - ok["t_sent"],
    "ttft": ok["t_first"] - ok["t_sent"],
    "decode": ok["t_end"] - ok["t_first"],
    "tpot": (ok["t_end"] - ok["t_first"]) / (ok["output_tokens"] - 1).where(ok["output_tokens"] > 1),
    "client_queue": ok["t_sent"] - ok["t_sched"],
    "e2e_sched": ok["t_end"] - ok["t_sched"],
})
prompt = ok["prompt_tokens"]
subsets = {"all": prompt >= 0, "short": prompt <= 64, "medium": (prompt > 64) & (prompt < 2048),
           "long": prompt >= 2048}
duration = df["t_end"].max() - df["t_sent"].min()
print("rps", len(ok) / duration, "output_tps", ok["output_tokens"].sum() / duration)
print(df[df["status"] != "ok"]["error"].value_counts())
percentiles = {}
for name, mask in subsets.items():
    part = metrics[mask]
    summary = part.agg(["count", "mean", "std", "min", "max"])
    quantiles = part.quantile([0.5, 0.9, 0.95, 0.99])
    print(name, "\n", pd.concat([summary, quantiles]).to_string())
    percentiles[name] = {m: {f"p{round(q * 100)}": float(quantiles.loc[q, m]) for q in quantiles.index} for m in metrics}
print(json.dumps({"percentiles": percentiles}))  # last line: bench/side_by_side.py checks them
