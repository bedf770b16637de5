#!/usr/bin/python3
"""ctest python_dask: summarize_shards.py on a 2-worker LocalCluster over 24 shards gives the numbers
of one process reading the whole log: counts, min, max exactly, means and standard deviations within
1e-15 relative, percentiles within the sketch's alpha of the exact ones (and bit for bit those of the
shards summarised in one process). Then `servestat report` renders the merged summary.

Usage: test_dask.py WORK_DIR   (PYTHONPATH holds the servestat package; SERVESTAT_CLI or
SERVESTAT_BUILT_CLI names the executable)
"""
import glob
import os
import shutil
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import servestat  # noqa: E402
import summarize_shards  # noqa: E402

SHARDS = 24
PERCENTILES = [50, 90, 99]


def make_shards(work):
    """The requests of the four bundled c16 runs under one header, as one log and dealt into shards (the
    runs' clocks overlap, so the rates mean nothing here; the statistics are what is compared)."""
    logs = sorted(glob.glob(os.path.join(here, "..", "logs", "*.jsonl")))
    header = open(logs[0]).readline().rstrip("\n")
    requests = [line.rstrip("\n") for log in logs for line in open(log).readlines()[1:]]
    whole = os.path.join(work, "whole.jsonl")
    with open(whole, "w") as f:
        f.write("\n".join([header] + requests) + "\n")
    shard_dir = os.path.join(work, "shards")
    os.makedirs(shard_dir)
    for k in range(SHARDS):
        with open(os.path.join(shard_dir, f"shard-{k:02}.jsonl"), "w") as f:
            f.write("\n".join([header] + requests[k::SHARDS]) + "\n")
    return whole, shard_dir, len(requests)


def metrics(stats):
    return {(s, m): v for s, body in stats["runs"][0]["subsets"].items() for m, v in body["metrics"].items()}


def check(condition, message):
    if not condition:
        sys.exit(f"FAIL: {message}")


def main():
    work = sys.argv[1]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    whole, shard_dir, n = make_shards(work)
    merged_path = os.path.join(work, "merged.ssum.json")
    summarize_shards.main([shard_dir, "-o", merged_path, "--workers", "2"])

    merged = servestat.Summary.from_json(open(merged_path).read())
    check(merged.requests == n, f"merged summary holds {merged.requests} requests, not {n}")
    alpha = merged.sketch_alpha
    on_dask = metrics(merged.stats(percentiles=PERCENTILES))
    one_process = metrics(servestat.summarize(sorted(glob.glob(os.path.join(shard_dir, "*")))).stats(percentiles=PERCENTILES))
    exact = metrics(servestat.read(whole).stats(percentiles=PERCENTILES))
    check(on_dask.keys() == exact.keys(), "the subsets and metrics differ")
    compared = 0
    for key, want in exact.items():
        got, alone = on_dask[key], one_process[key]
        for field in ["n", "min", "max"]:
            check(got[field] == want[field], f"{key} {field}: {got[field]} on Dask, {want[field]} exact")
        for field in ["mean", "std"]:
            if want[field] is not None:
                check(abs(got[field] - want[field]) <= 1e-15 * abs(want[field]), f"{key} {field}: {got[field]} vs {want[field]}")
        for p in PERCENTILES:
            field = f"p{p}"
            if want[field] is None:
                continue
            check(got[field] == alone[field], f"{key} {field}: Dask's {got[field]} is not one process's {alone[field]}")
            check(abs(got[field] - want[field]) <= alpha * abs(want[field]), f"{key} {field}: {got[field]} not within {alpha} of {want[field]}")
            compared += 1
    check(compared > 50, f"only {compared} percentiles compared")

    cli = os.environ.get("SERVESTAT_CLI") or os.environ.get("SERVESTAT_BUILT_CLI")
    out = os.path.join(work, "report")
    subprocess.run([cli, "report", merged_path, "-o", out], check=True, stdout=subprocess.DEVNULL)
    report = open(os.path.join(out, "report.md")).read()
    check(f": {n} requests," in report and "read from quantile sketches" in report,
          "the report does not count the merged requests or say its percentiles are sketched")
    print(f"ok: {SHARDS} shards, {n} requests, {compared} percentiles within {alpha:g} of the exact ones")


if __name__ == "__main__":
    main()
