#!/usr/bin/python3
"""CLI tests for `servestat stats`: every number of --json checked against numpy on a random log,
exit codes and messages for bad input, determinism.

Usage: test_cli.py SERVESTAT_BINARY WORK_DIR   (run by ctest; needs Debian's python3-numpy)
"""
import json
import os
import re
import shutil
import subprocess
import sys

import numpy as np

from checks import check, run_tests

SERVESTAT, WORK = sys.argv[1], sys.argv[2]
HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "data")
SHARED_DATA = os.path.join(HERE, "..", "..", "..", "shared", "data")
EXAMPLES = os.path.join(HERE, "..", "..", "examples")
sys.path.insert(0, os.path.join(HERE, "..", "tools"))
import steady_state_reference  # noqa: E402  (numpy MSER-5 by its definition, in-flight counts by brute force)
OVERFLOW = ("max_tokens' or 'max_completion_tokens' is too large: 128. This model's maximum context "
            "length is 4096 tokens and your request has {} input tokens (128 > 4096 - {}). None")
def close(actual, expected, what, rel=1e-9):
    if expected is None or actual is None:
        check(actual is None and expected is None, f"{what}: {actual} != {expected}")
        return
    ok = actual == expected or abs(actual - expected) <= rel * max(abs(expected), 1e-300)
    check(ok, f"{what}: servestat {actual!r} numpy {expected!r}")


def servestat(*args):
    return subprocess.run([SERVESTAT, *args], capture_output=True, text=True)


def write_random_log(path, n, seed):
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        t_sched = float(rng.uniform(0, 600))
        t_sent = t_sched + float(rng.exponential(0.05)) if rng.random() < 0.7 else t_sched
        kind = rng.choice(["short", "medium", "long"], p=[0.5, 0.3, 0.2])
        prompt = int({"short": rng.integers(8, 65), "medium": rng.integers(65, 2048),
                      "long": rng.integers(2048, 4096)}[kind])
        row = {"id": str(i), "t_sched": t_sched, "t_sent": t_sent, "prompt_tokens": prompt, "max_tokens": 128}
        u = rng.random()
        if u < 0.03:
            row.update(status="error", http_status=400, t_end=t_sent + 0.002, output_tokens=0,
                       error=OVERFLOW.format(prompt, prompt))
        elif u < 0.04:
            row.update(status="error", http_status=503, t_end=t_sent + 0.01, error="Service Unavailable")
        elif u < 0.045:
            row.update(status="timeout", t_end=t_sent + 120.0)
        else:
            ttft = float(rng.lognormal(-1.5, 1.0))
            out = int(rng.integers(1, 129))
            decode = float(rng.lognormal(0.5, 0.6)) if out > 1 else 0.0
            row.update(status="ok", http_status=200, t_first=t_sent + ttft, t_end=t_sent + ttft + decode,
                       output_tokens=out)
            if rng.random() < 0.5:
                row.update(server_queue=float(rng.exponential(0.2)), server_prefill=float(rng.exponential(0.05)),
                           server_decode=decode)
            if rng.random() < 0.3 and out > 1:
                row["itl"] = [float(g) for g in rng.gamma(2.0, decode / (2.0 * (out - 1)), size=out - 1)]
        rows.append(row)
    header = {"servestat": "log", "version": 1,
              "run": {"label": "random", "model": "m", "workload": "w", "params": {"concurrency": 8}}}
    with open(path, "w") as f:
        f.write(json.dumps(header) + "\n")
        for r in rows:
            f.write(json.dumps(r) + "\n")
    return rows


def per_request_metrics(rows):
    ok = [r for r in rows if r["status"] == "ok"]

    def col(fn):
        return [(r, fn(r)) for r in ok if fn(r) is not None]

    return {
        "e2e": col(lambda r: r["t_end"] - r["t_sent"]),
        "ttft": col(lambda r: r["t_first"] - r["t_sent"] if "t_first" in r else None),
        "decode": col(lambda r: r["t_end"] - r["t_first"] if "t_first" in r else None),
        "tpot": col(lambda r: (r["t_end"] - r["t_first"]) / (r["output_tokens"] - 1)
                    if "t_first" in r and r["output_tokens"] > 1 else None),
        "client_queue": col(lambda r: r["t_sent"] - r["t_sched"]),
        "e2e_sched": col(lambda r: r["t_end"] - r["t_sched"]),
        "server_queue": col(lambda r: r.get("server_queue")),
        "server_prefill": col(lambda r: r.get("server_prefill")),
        "server_decode": col(lambda r: r.get("server_decode")),
    }


def expected_summary(values, percentiles, method, ddof):
    if not values:
        return {"n": 0, "mean": None, "std": None, "cov": None, "min": None, "max": None,
                **{key(p): None for p in percentiles}}
    a = np.array(values, dtype=np.float64)
    mean = float(np.mean(a))
    std = float(np.std(a, ddof=ddof)) if len(a) > ddof else None
    out = {"n": len(a), "mean": mean, "std": std, "cov": std / mean if std is not None and mean != 0 else None,
           "min": float(a.min()), "max": float(a.max())}
    for p in percentiles:
        out[key(p)] = float(np.percentile(a, p, method=method))
    return out


def key(p):
    return "p" + (str(int(p)) if float(p).is_integer() else repr(float(p)))


def check_against_numpy(rows, doc, percentiles, method, ddof, subsets):
    run = doc["runs"][0]
    metrics = per_request_metrics(rows)
    for name, member in subsets.items():
        got_subset = run["subsets"][name]
        n_ok = sum(1 for r in rows if r["status"] == "ok" and member(r["prompt_tokens"]))
        check(got_subset["n"] == n_ok, f"{name}.n {got_subset['n']} != {n_ok}")
        for metric, pairs in metrics.items():
            values = [v for r, v in pairs if member(r["prompt_tokens"])]
            exp = expected_summary(values, percentiles, method, ddof)
            got = got_subset["metrics"][metric]
            for k, v in exp.items():
                close(got[k], v, f"{method}/ddof{ddof} {name}.{metric}.{k}")
        gaps = [g for r in rows if r["status"] == "ok" and member(r["prompt_tokens"]) for g in r.get("itl", [])]
        exp = expected_summary(gaps, percentiles, method, ddof)
        for k, v in exp.items():
            close(got_subset["metrics"]["itl"][k], v, f"{method}/ddof{ddof} {name}.itl.{k}")


def check_run_level(rows, run):
    ok = [r for r in rows if r["status"] == "ok"]
    starts = np.array([r["t_sent"] for r in rows])
    ends = np.array([r["t_end"] for r in rows])
    duration = float(ends.max() - starts.min())
    check(run["requests"] == len(rows), "requests")
    check(run["ok"] == len(ok), "ok")
    check(run["failed"] == len(rows) - len(ok), "failed")
    close(run["duration"], duration, "duration")
    close(run["rps"], len(ok) / duration, "rps")
    out_tokens = sum(r["output_tokens"] for r in ok)
    close(run["output_tps"], out_tokens / duration, "output_tps")
    close(run["total_tps"], (out_tokens + sum(r["prompt_tokens"] for r in ok)) / duration, "total_tps")
    # Peak concurrency by brute force at every start instant (ends at the same instant do not count).
    peak = max(int(np.sum((starts <= s) & (ends > s))) for s in starts)
    check(run["peak_concurrency"] == peak, f"peak_concurrency {run['peak_concurrency']} != {peak}")
    kinds = {"context_overflow": 0, "server_error": 0, "timeout": 0}
    for r in rows:
        if r["status"] == "timeout":
            kinds["timeout"] += 1
        elif r["status"] == "error":
            kinds["context_overflow" if r["http_status"] == 400 else "server_error"] += 1
    got = {e["kind"]: e["count"] for e in run["errors"]}
    check(got == {k: v for k, v in kinds.items() if v}, f"errors {got} != {kinds}")
    good = sum(1 for r in ok if r["t_first"] - r["t_sent"] <= 0.5 and r["t_end"] - r["t_sent"] <= 10)
    check(run["goodput"]["good"] == good, f"goodput.good {run['goodput']['good']} != {good}")
    close(run["goodput_rps"], good / duration, "goodput_rps")


def test_random_log_agrees_with_numpy():
    path = os.path.join(WORK, "random.jsonl")
    rows = write_random_log(path, 3000, seed=20261122)
    default = {"all": lambda p: True, "short": lambda p: p <= 64, "medium": lambda p: 64 < p < 2048,
               "long": lambda p: p >= 2048}
    res = servestat("stats", "--json", "--slo", "ttft=0.5,e2e=10", path)
    check(res.returncode == 0, f"stats --json exit {res.returncode}: {res.stderr}")
    doc = json.loads(res.stdout)
    check_against_numpy(rows, doc, [50, 90, 95, 99], "linear", 1, default)
    check_run_level(rows, doc["runs"][0])

    custom = {"all": lambda p: True, "short": lambda p: p <= 32, "medium": lambda p: 32 < p < 1000,
              "long": lambda p: p >= 1000, "mid": lambda p: 100 <= p <= 400}
    for method in ["hazen", "inverted_cdf", "nearest", "median_unbiased"]:
        res = servestat("stats", "--json", "--method", method, "--ddof", "0", "--percentiles", "0,50,99.9,100",
                        "--short-max", "32", "--long-min", "1000", "--bucket", "mid=100:400", path)
        check(res.returncode == 0, f"stats --method {method} exit {res.returncode}: {res.stderr}")
        check_against_numpy(rows, json.loads(res.stdout), [0, 50, 99.9, 100], method, 0, custom)


def test_output_is_deterministic():
    path = os.path.join(WORK, "random.jsonl")
    a = servestat("stats", "--json", path).stdout
    b = servestat("stats", "--json", path).stdout
    check(a == b and len(a) > 0, "two --json runs differ")
    t1 = servestat("stats", path).stdout
    t2 = servestat("stats", path).stdout
    check(t1 == t2 and "subset all" in t1 and "e2e" in t1, "table output unstable or incomplete")


def test_threads_give_identical_output():
    # 50,000 requests (about 10 MB): large enough to be read in pieces (4 MiB at least each).
    path = os.path.join(WORK, "threads.jsonl")
    rows = write_random_log(path, 50_000, seed=7)
    check(os.path.getsize(path) > 8 << 20, f"{path} is too small to be split: {os.path.getsize(path)} bytes")
    outputs = {j: servestat("stats", "--json", "-j", str(j), path) for j in (1, 2, 5)}
    for j, res in outputs.items():
        check(res.returncode == 0, f"stats -j {j}: {res.stderr}")
    check(outputs[1].stdout == outputs[2].stdout == outputs[5].stdout, "stats --json differs between -j 1, 2 and 5")
    default = {"all": lambda p: True, "short": lambda p: p <= 64, "medium": lambda p: 64 < p < 2048,
               "long": lambda p: p >= 2048}
    check_against_numpy(rows, json.loads(outputs[5].stdout), [50, 90, 95, 99], "linear", 1, default)
    reports = {}
    for j in (1, 3):
        out = os.path.join(WORK, f"threads-report-j{j}")
        res = servestat("report", "-j", str(j), "-o", out, path, os.path.join(WORK, "random.jsonl"))
        check(res.returncode == 0, f"report -j {j}: {res.stderr}")
        reports[j] = {name: open(os.path.join(out, name), "rb").read() for name in ("report.md", "report.json")}
    check(reports[1] == reports[3], "report.md or report.json differs between -j 1 and -j 3")
    # 200 resamples: the subsets run side by side whatever their count (2000 took 25 s under ASan).
    res = servestat("compare", "--json", "--resamples", "200", "-j", "1", os.path.join(WORK, "random.jsonl"), path)
    res3 = servestat("compare", "--json", "--resamples", "200", "-j", "3", os.path.join(WORK, "random.jsonl"), path)
    check(res.returncode == 0 and res.stdout == res3.stdout, f"compare --json differs between -j 1 and 3: {res3.stderr}")


def servestat_stdin(path, *args):
    with open(path, "rb") as f:
        return subprocess.run([SERVESTAT, *args], stdin=f, capture_output=True)


def test_standard_input_and_memory_limit():
    path = os.path.join(WORK, "streamed.jsonl")
    # 20,000 requests: 4 MB of text, about 1.3 MB in a table (doubles: the random times are not whole
    # microseconds), so more than half of --memory-limit 1M, the least it takes.
    rows = write_random_log(path, 20_000, seed=9)
    whole = servestat("stats", "--json", path)
    check(whole.returncode == 0, f"stats: {whole.stderr}")
    piped = servestat_stdin(path, "stats", "--json", "-")
    check(piped.returncode == 0, f"stats -: {piped.stderr}")
    check(piped.stdout.decode().replace('"path": "-"', json.dumps({"path": path})[1:-1]) == whole.stdout,
          "standard input within the memory limit: not the statistics of the file")
    # Over the limit: streamed. The file takes the same path as the pipe when it is too large to keep.
    alpha = 0.01
    streamed = servestat_stdin(path, "stats", "--json", "--memory-limit", "1M", "--sketch-alpha", str(alpha), "-")
    check(streamed.returncode == 0, f"stats --memory-limit 1M -: {streamed.stderr}")
    from_file = servestat("stats", "--json", "--memory-limit", "1M", "--sketch-alpha", str(alpha), path)
    check(from_file.stdout == streamed.stdout.decode().replace('"path": "-"', json.dumps({"path": path})[1:-1]),
          "a file over the memory limit is not read as standard input is")
    run = json.loads(streamed.stdout)["runs"][0]
    check(any("sketches" in n for n in run["notes"]), f"no note on sketches: {run['notes']}")
    check(run["peak_concurrency"] is None and run["steady_state"] is None, "streamed: nothing that needs every request")
    exact = json.loads(whole.stdout)["runs"][0]  # the exact path, checked against numpy above
    for k in ("requests", "ok", "failed", "duration", "rps", "output_tps", "total_tps", "errors"):
        check(run[k] == exact[k], f"streamed {k}: {run[k]} != {exact[k]}")
    metrics = per_request_metrics(rows)
    for name, member in {"all": lambda p: True, "long": lambda p: p >= 2048}.items():
        for metric, pairs in metrics.items():
            values = [v for r, v in pairs if member(r["prompt_tokens"])]
            exp = expected_summary(values, [50, 90, 95, 99], "linear", 1)
            got = run["subsets"][name]["metrics"][metric]
            what = f"streamed {name}.{metric}"
            check(got["sketch_relative_error"] == alpha, f"{what}: sketch_relative_error {got.get('sketch_relative_error')}")
            for k in ("n", "min", "max"):
                check(got[k] == exp[k], f"{what}.{k}: {got[k]} != {exp[k]}")
            close(got["mean"], exp["mean"], f"{what}.mean", rel=1e-12)
            close(got["std"], exp["std"], f"{what}.std", rel=1e-12)
            for p in (50, 90, 95, 99):
                close(got[key(p)], exp[key(p)], f"{what}.{key(p)}", rel=alpha * (1 + 1e-9))
    expect_error(["stats", "-", "-"], 2, "standard input")
    expect_error(["stats", "--memory-limit", "12Q", path], 2, "--memory-limit")
    expect_error(["stats", "--memory-limit", "1K", path], 2, "at least 1M")
    expect_error(["stats", "--memory-limit", "99999999999999999999G", path], 2, "more than 1 EiB")  # L16: no overflow
    expect_error(["stats", "--sketch-alpha", "1.5", path], 2, "--sketch-alpha")
    res = servestat_stdin(path, "stats", "--steady-state", "-")
    check(res.returncode == 2 and b"save standard input to a file" in res.stderr, f"--steady-state -: {res.stderr!r}")
    res = servestat_stdin(os.path.join(EXAMPLES, "..", "README.md"), "stats", "-")
    check(res.returncode == 3 and b"/dev/stdin:" in res.stderr, f"not a canonical log on standard input: {res.stderr!r}")


def test_summaries_of_shards_merge_into_the_whole():
    whole = os.path.join(WORK, "shards-whole.jsonl")
    write_random_log(whole, 18_000, seed=12)  # enough for the file to be streamed under --memory-limit 1M
    with open(whole) as f:
        header, *lines = f.readlines()
    shards = []
    for k in range(4):  # every fourth request: shards interleaved in time, as a load split over clients
        shards.append(os.path.join(WORK, f"shard-{k}.jsonl"))
        with open(shards[-1], "w") as f:
            f.write(header + "".join(lines[k::4]))
    parts = []
    for k, shard in enumerate(shards):
        parts.append(os.path.join(WORK, f"shard-{k}.ssum.json"))
        if k == 3:  # one shard from standard input
            res = servestat_stdin(shard, "summarize", "-o", parts[-1], "-")
            check(res.returncode == 0, f"summarize -: {res.stderr!r}")
            continue
        res = servestat("summarize", "-o", parts[-1], shard)
        check(res.returncode == 0, f"summarize {shard}: {res.stderr}")
    merged = os.path.join(WORK, "shards-merged.ssum.json")
    res = servestat("summarize", "-o", merged, parts[2], parts[0], parts[3], parts[1])
    check(res.returncode == 0 and "summary of 18000 requests" in res.stderr, f"summarize the summaries: {res.stderr}")
    got = json.loads(servestat("stats", "--json", "--percentiles", "50,99,99.9", merged).stdout)["runs"][0]
    exp = json.loads(servestat("stats", "--json", "--percentiles", "50,99,99.9", "--memory-limit", "1M", whole).stdout)["runs"][0]
    check(got["source"]["format"] == "servestat-summary", f"source of a summary: {got['source']}")
    for k in ("requests", "ok", "failed", "duration", "rps", "output_tps", "total_tps"):
        check(got[k] == exp[k], f"merged summary {k}: {got[k]} != {exp[k]}")
    # Error counts add; each example is the first of the summary named first (shard 2's).
    check([(e["kind"], e["count"]) for e in got["errors"]] == [(e["kind"], e["count"]) for e in exp["errors"]],
          f"merged summary errors: {got['errors']} != {exp['errors']}")
    for name, subset in exp["subsets"].items():
        for metric, e in subset["metrics"].items():
            g = got["subsets"][name]["metrics"][metric]
            for k, v in e.items():
                what = f"merged summary {name}.{metric}.{k}"
                if k in ("mean", "std", "cov"):
                    close(g[k], v, what, rel=4e-15)
                else:  # counts, min, max and percentiles from the same sketch buckets: equal
                    check(g[k] == v, f"{what}: {g[k]} != {v}")
    other = os.path.join(WORK, "shard-0-short.ssum.json")
    check(servestat("summarize", "--short-max", "32", "-o", other, shards[0]).returncode == 0, "summarize --short-max")
    expect_error(["summarize", "-o", os.path.join(WORK, "never.ssum.json"), parts[0], other], 2, "different options")
    expect_error(["summarize", "--steady-state", "-o", merged, shards[0]], 2, "--steady-state")  # not an option of summarize


def expect_error(args, code, *words):
    res = servestat(*args)
    check(res.returncode == code, f"{args}: exit {res.returncode}, wanted {code}; stderr {res.stderr!r}")
    for w in words:
        check(w in res.stderr, f"{args}: stderr lacks {w!r}: {res.stderr!r}")
    return res


def test_bad_input_exit_codes_and_messages():
    bad = os.path.join(WORK, "bad.jsonl")
    with open(bad, "w") as f:
        f.write('{"servestat":"log","version":1}\n{"t_sent":0,"t_end":1,"status":"ok"}\n'
                '{"t_sent":5,"t_end":1,"status":"ok"}\n')
    expect_error(["stats", bad], 3, f"{bad}:3: field 't_end'", "before t_sent")
    res = expect_error(["stats", "--json", "--skip-bad", bad], 0, "skipped 1 bad line")
    check(json.loads(res.stdout)["runs"][0]["skipped"]["count"] == 1, "skipped count in JSON")
    expect_error(["stats", os.path.join(WORK, "missing.jsonl")], 3, "no such file")
    empty_dir = os.path.join(WORK, "empty_dir")
    os.makedirs(empty_dir, exist_ok=True)
    with open(os.path.join(empty_dir, "notes.txt"), "w") as f:
        f.write("nothing here\n")
    expect_error(["stats", empty_dir], 3, "no recognised request logs")
    expect_error(["stats", os.path.join(DATA, "notebook", "bad_missing_cell.csv")], 3, "bad_missing_cell.csv:")
    expect_error(["stats", "--method", "bogus", bad], 2, "unknown", "linear")
    expect_error(["stats", "--slo", "ttft", bad], 2, "SLO")
    expect_error(["stats", "--percentiles", "101", bad], 2, "outside 0..100")
    expect_error(["stats", "--input-format", "nope", bad], 2, "unknown input format")
    expect_error(["stats"], 2)


def test_quoted_globs_are_expanded():
    res = servestat("stats", "--json", os.path.join(WORK, "rand*.jsonl"))
    check(res.returncode == 0 and len(json.loads(res.stdout)["runs"]) == 1, f"glob: {res.stderr}")
    expect_error(["stats", os.path.join(WORK, "nothing*.jsonl")], 3, "no file matches")


def test_input_format_is_detected_from_content():
    copy = os.path.join(WORK, "notebook_table.jsonl")  # a CSV with a misleading extension
    shutil.copy(os.path.join(DATA, "notebook", "mix_90_10.csv"), copy)
    res = servestat("stats", "--json", copy)
    check(res.returncode == 0, f"detect csv: {res.stderr}")
    if res.returncode == 0:
        check(json.loads(res.stdout)["runs"][0]["source"]["format"] == "notebook-csv", "notebook format detected")


def test_map_reads_an_unknown_layout():
    csv = os.path.join(DATA, "mapped", "results.csv")
    spec = "ttft=TTFT:ms,e2e=response_time:s,t_sent=start:epoch_s,prompt_tokens=input_tokens,error=error_message"
    res = servestat("stats", "--json", csv, "--map", spec, "--ok-if", "error_code==")
    check(res.returncode == 0, f"--map: {res.stderr}")
    if res.returncode == 0:
        run = json.loads(res.stdout)["runs"][0]
        check(run["source"]["format"] == "mapped" and run["ok"] == 3 and run["failed"] == 2, f"--map counts: {run}")
        # r0..r3 by hand: e2e 1.25, 0.875, 2.5 s; numpy linear p50 of three values is the middle one.
        close(run["subsets"]["all"]["metrics"]["e2e"]["p50"], 1.25, "--map e2e p50")
    expect_error(["stats", csv, "--map", "ttft=TTFT:parsecs"], 2, "unknown unit 'parsecs'")
    expect_error(["stats", csv, "--ok-if", "error_code=="], 2, "--ok-if needs --map")
    expect_error(["stats", csv, "--map", spec, "--input-format", "servestat"], 2, "exclude each other")
    expect_error(["stats", csv, "--map", spec + ",http_status=error_code"], 3,
                 "results.csv:6: field 'error_code (http_status)'")


def test_folder_lists_each_run_once():
    """A summary merged into its request run is not listed again; another run's summary that merely
    shares a label is."""
    folder = os.path.join(WORK, "same_label")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(DATA, "vllm_bench_json", "single_detailed.json")) as f:
        detailed = json.load(f)
    aggregates_only = {k: v for k, v in detailed.items() if not isinstance(v, list)}
    for name, doc in (("a.json", detailed), ("b.json", aggregates_only)):
        with open(os.path.join(folder, name), "w") as f:
            json.dump(doc, f)
    res = servestat("stats", "--json", folder)
    check(res.returncode == 0, f"same-label folder: {res.stderr}")
    if res.returncode == 0:
        kinds = sorted(r["kind"] for r in json.loads(res.stdout)["runs"])
        check(kinds == ["requests", "summary"], f"both runs listed, got {kinds}")
    pair = os.path.join(SHARED_DATA, "llmperf-sglang-sweep-hongxuanzhang", "result_outputs")
    res = servestat("stats", "--json", pair)
    if res.returncode == 0:
        # The sweep's console logs in GPU1/, GPU2_DP2/, … are read too (folders are read with their sub-folders).
        runs = [r for r in json.loads(res.stdout)["runs"] if os.path.dirname(r["source"]["path"]) == pair]
        check(len(runs) == 5 and all(r["kind"] == "requests" for r in runs),
              f"LLMPerf pairs: 5 request runs with their summaries merged, got {[(r['label'], r['kind']) for r in runs]}")
    else:
        check(False, f"LLMPerf pairs: {res.stderr}")


def read_requests(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()][1:]


def expected_window(rows):
    """The window by steady_state_reference.py: in-flight counts by brute force, MSER-5 by definition."""
    sent = np.array([r["t_sent"] for r in rows])
    end = np.array([r["t_end"] for r in rows])
    series, sent_sorted = steady_state_reference.in_flight_series(sent, end)
    a, b = steady_state_reference.trim_both_ends(series)
    return float(sent_sorted[a]), float(sent_sorted[len(series) - 1 - b])


def test_steady_state_cuts_to_the_reported_window():
    log = os.path.join(EXAMPLES, "live", "bad", "bad-c64.jsonl")
    rows = read_requests(log)
    start, end = expected_window(rows)
    whole = servestat("stats", "--json", log)
    check(whole.returncode == 0, f"stats --json: {whole.stderr}")
    found = json.loads(whole.stdout)["runs"][0]
    ss = found["steady_state"]
    check(ss is not None and not ss["applied"], f"steady_state without --steady-state: {ss}")
    if ss is None:
        return
    close(ss["start"], start, "steady_state.start (numpy reference)")
    close(ss["end"], end, "steady_state.end (numpy reference)")
    check(found["requests"] == len(rows), "without --steady-state every request counts")

    res = servestat("stats", "--json", "--steady-state", log)
    check(res.returncode == 0, f"stats --json --steady-state: {res.stderr}")
    run = json.loads(res.stdout)["runs"][0]
    cut = run["steady_state"]
    check(cut["applied"] and cut["start"] == ss["start"] and cut["end"] == ss["end"], f"applied window {cut}")
    inside = [r for r in rows if cut["start"] <= r["t_sent"] <= cut["end"]]
    before = sum(1 for r in rows if r["t_sent"] < cut["start"])
    after = sum(1 for r in rows if r["t_sent"] > cut["end"])
    check(run["requests"] == len(inside) == cut["requests"],
          f"requests {run['requests']}, window {cut['requests']}, t_sent inside {len(inside)}")
    check((cut["excluded_start"], cut["excluded_end"]) == (before, after),
          f"excluded {cut['excluded_start']}+{cut['excluded_end']} != {before}+{after}")
    check(before > 0 and after > 0, f"a closed loop of 64 has a ramp-up and a drain: {before}+{after}")
    note = f"{before} ramp-up and {after} drain requests excluded"
    check(any(n.startswith("steady state ") and note in n for n in run["notes"]), f"note {note!r} in {run['notes']}")
    e2e = [r["t_end"] - r["t_sent"] for r in inside if r["status"] == "ok"]
    close(run["subsets"]["all"]["metrics"]["e2e"]["p50"], float(np.percentile(e2e, 50)), "e2e p50 of the window")
    close(run["duration"], max(r["t_end"] for r in inside) - min(r["t_sent"] for r in inside), "duration of the window")

    text = servestat("stats", "--steady-state", log).stdout
    check("note: steady state " in text and note in text, "stats table prints the steady-state note")
    csv = servestat("stats", "--json", "--steady-state", os.path.join(DATA, "notebook", "mix_90_10.csv"))
    if csv.returncode == 0:
        no_clock = json.loads(csv.stdout)["runs"][0]
        check(no_clock["steady_state"] is None, "no shared clock: steady_state null")
        check(any("no steady state (the log has no shared clock)" in n for n in no_clock["notes"]),
              f"no-clock note: {no_clock['notes']}")
    else:
        check(False, f"--steady-state on a notebook table: {csv.stderr}")


def test_report_and_compare_state_the_steady_state():
    log = os.path.join(EXAMPLES, "live", "bad", "bad-c64.jsonl")
    out = os.path.join(WORK, "steady_report")
    res = servestat("report", "-o", out, "--format", "md,html,json", log)
    check(res.returncode == 0, f"report: {res.stderr}")
    if res.returncode == 0:
        with open(os.path.join(out, "report.md")) as f:
            md = f.read()
        line = next((l for l in md.splitlines() if l.startswith("**Steady state:** ")), "")
        check("(MSER-5 on requests in flight)" in line and "drain requests outside it" in line
              and "cover the whole run" in line, f"report.md steady-state line: {line!r}")
        with open(os.path.join(out, "report.html")) as f:
            check("<strong>Steady state:</strong>" in f.read(), "report.html steady-state line")
    res = servestat("report", "-o", out + "_cut", "--format", "md", "--steady-state", log)
    if res.returncode == 0:
        with open(os.path.join(out + "_cut", "report.md")) as f:
            md = f.read()
        check("drain requests excluded; the statistics here cover the" in md, "report --steady-state line")
    else:
        check(False, f"report --steady-state: {res.stderr}")
    other = os.path.join(EXAMPLES, "live", "bad", "bad-c48.jsonl")
    res = servestat("compare", "--steady-state", other, log)
    check(res.returncode == 0, f"compare --steady-state: {res.stderr}")
    check("before note: steady state " in res.stdout and "after note: steady state " in res.stdout,
          f"compare table shows both sides' steady-state notes: {res.stdout[:600]!r}")
    res = servestat("compare", "--json", "--steady-state", other, log)
    if res.returncode == 0:
        pair = json.loads(res.stdout)["pairs"][0]
        rows = read_requests(log)
        start, end = expected_window(rows)
        inside = sum(1 for r in rows if start <= r["t_sent"] <= end)
        check(pair["after"]["requests"] == inside, f"compare after requests {pair['after']['requests']} != {inside}")
        check(any(n.startswith("steady state ") for n in pair["after"]["notes"]), "compare JSON notes")


def check_sketched_run(run, rows, alpha, percentiles, what):
    """A run read from sketches against numpy on its log: counts, min and max equal, means and std to
    1e-12, each percentile within alpha."""
    metrics = per_request_metrics(rows)
    for name, member in {"all": lambda p: True, "long": lambda p: p >= 2048}.items():
        for metric, pairs in metrics.items():
            values = [v for r, v in pairs if member(r["prompt_tokens"])]
            exp = expected_summary(values, percentiles, "linear", 1)
            got = run["subsets"][name]["metrics"][metric]
            where = f"{what} {name}.{metric}"
            check(got.get("sketch_relative_error") == alpha, f"{where}: sketch_relative_error {got.get('sketch_relative_error')}")
            for k in ("n", "min", "max"):
                check(got[k] == exp[k], f"{where}.{k}: {got[k]} != {exp[k]}")
            close(got["mean"], exp["mean"], f"{where}.mean", rel=1e-12)
            close(got["std"], exp["std"], f"{where}.std", rel=1e-12)
            for p in percentiles:
                close(got[key(p)], exp[key(p)], f"{where}.{key(p)}", rel=alpha * (1 + 1e-9))
    ok = sum(1 for r in rows if r["status"] == "ok")
    check(run["requests"] == len(rows) and run["ok"] == ok, f"{what}: requests {run['requests']}, ok {run['ok']}")


def read_report(out_dir):
    with open(os.path.join(out_dir, "report.json"), encoding="utf-8") as f:
        doc = json.load(f)
    with open(os.path.join(out_dir, "report.md"), encoding="utf-8") as f:
        return doc, f.read()


def test_report_of_a_summary_and_of_standard_input():
    log = os.path.join(WORK, "report-sketched.jsonl")
    rows = write_random_log(log, 20_000, seed=21)  # the least that --memory-limit 1M streams
    alpha = 0.01
    ssum = os.path.join(WORK, "report-sketched.ssum.json")
    res = servestat("summarize", "--sketch-alpha", str(alpha), "-o", ssum, log)
    check(res.returncode == 0, f"summarize: {res.stderr}")
    out = os.path.join(WORK, "report-of-summary")
    res = servestat("report", "-o", out, ssum)
    check(res.returncode == 0, f"report of a summary: {res.stderr}")
    if res.returncode != 0:
        return
    doc, md = read_report(out)
    check_sketched_run(doc["runs"][0], rows, alpha, [50, 90, 95, 99], "report of a summary")
    check(doc["runs"][0]["source"] == {"path": ssum, "format": "servestat-summary"}, f"source: {doc['runs'][0]['source']}")
    check("End-to-end latency (e2e) — percentiles sketched, each within 1%" in md, "report.md: metric table not marked sketched")
    check("- charts that need every request" in md and "are left out: this run is known by its sketches" in md,
          "report.md: no sentence on the charts left out")
    check("Percentiles of this run are read from quantile sketches" in md and "each within 1% of the exact value" in md,
          "report.md: no note under the digest on the sketched percentiles")
    check("**Steady state:** not searched:" in md, "report.md: steady state of a summary")
    plots = sorted(os.listdir(os.path.join(out, "plots")))
    check("random-e2e-ecdf.svg" in plots and "random-e2e-percentiles.svg" in plots, f"sketched plots: {plots}")
    for word in ("timeline", "-vs-", "histogram", "box"):
        check(not any(word in p for p in plots), f"a chart needing every request drawn from a summary: {plots}")
    with open(os.path.join(out, "plots", "random-e2e-ecdf.svg"), encoding="utf-8") as f:
        check("sketched, each value within 1%" in f.read(), "the sketched ECDF does not say it is sketched")
    # Standard input over the limit: streamed into sketches, the same numbers against numpy.
    out = os.path.join(WORK, "report-of-stdin")
    res = servestat_stdin(log, "report", "-o", out, "--memory-limit", "1M", "--sketch-alpha", str(alpha), "-")
    check(res.returncode == 0, f"report --memory-limit 1M -: {res.stderr!r}")
    if res.returncode == 0:
        doc, md = read_report(out)
        check_sketched_run(doc["runs"][0], rows, alpha, [50, 90, 95, 99], "report of standard input")
        check(doc["runs"][0]["source"]["path"] == "-", f"source of standard input: {doc['runs'][0]['source']}")
        check(doc["inputs"][0]["rows_read"] == len(rows), f"inputs of standard input: {doc['inputs']}")
    # Within the limit, standard input is the log: the report of the file, but for the path.
    whole, piped = os.path.join(WORK, "report-of-file"), os.path.join(WORK, "report-of-stdin-whole")
    check(servestat("report", "--format", "json", "-o", whole, log).returncode == 0, "report of the log")
    res = servestat_stdin(log, "report", "--format", "json", "-o", piped, "-")
    check(res.returncode == 0, f"report -: {res.stderr!r}")
    if res.returncode == 0:
        with open(os.path.join(whole, "report.json")) as f, open(os.path.join(piped, "report.json")) as g:
            check(g.read().replace('"path": "-"', json.dumps({"path": log})[1:-1]) == f.read(),
                  "report of standard input within the limit is not the report of the file")
    res = servestat_stdin(log, "report", "--steady-state", "-o", out, "-")
    check(res.returncode == 2 and b"--steady-state" in res.stderr, f"report --steady-state -: {res.stderr!r}")
    expect_error(["report", "--trend", "-o", out, ssum], 2, "--trend", ssum)
    expect_error(["report", "--memory-limit", "12Q", "-o", out, ssum], 2, "--memory-limit")


def change_named(pair, name):
    return next((c for c in pair["changes"] if c["name"] == name), None)


def test_compare_of_two_summaries():
    alpha = 0.01
    sides = {}
    for side, seed in (("before", 31), ("after", 32)):
        log = os.path.join(WORK, f"compare-{side}.jsonl")
        rows = write_random_log(log, 6_000, seed=seed)
        ssum = os.path.join(WORK, f"compare-{side}.ssum.json")
        res = servestat("summarize", "--sketch-alpha", str(alpha), "-o", ssum, log)
        check(res.returncode == 0, f"summarize {side}: {res.stderr}")
        whole = json.loads(servestat("stats", "--json", log).stdout)["runs"][0]  # the exact path, checked against numpy
        sides[side] = (rows, ssum, whole)
    res = servestat("compare", "--json", sides["before"][1], sides["after"][1])
    check(res.returncode == 0, f"compare of two summaries: {res.stderr}")
    if res.returncode != 0:
        return
    doc = json.loads(res.stdout)
    pair = doc["pairs"][0]
    metrics = {side: per_request_metrics(rows) for side, (rows, _, _) in sides.items()}
    for name in ("e2e.p50", "e2e.p90", "e2e.p99", "e2e.mean", "ttft.p99", "long.e2e.p99", "tpot.p50"):
        c = change_named(pair, name)
        check(c is not None, f"compare: no change {name}")
        if c is None:
            continue
        subset, metric, statistic = (["all"] + name.split("."))[-3:]
        exact = {}
        for side in ("before", "after"):
            values = [v for r, v in metrics[side][metric] if subset == "all" or r["prompt_tokens"] >= 2048]
            exact[side] = float(np.mean(values)) if statistic == "mean" else float(np.percentile(values, float(statistic[1:])))
            close(c[side], exact[side], f"compare {name} {side}", rel=1e-12 if statistic == "mean" else alpha * (1 + 1e-9))
        close(c["relative_change"], c["after"] / c["before"] - 1, f"compare {name} relative change", rel=1e-12)
        if statistic == "mean":  # means are exact: no bound
            check(c["sketch_bound"] is None, f"compare {name}: a bound on an exact mean: {c['sketch_bound']}")
        else:  # the exact relative change (numpy) lies within the stated bound of the sketched one
            off = abs(exact["after"] / exact["before"] - 1 - c["relative_change"])
            check(c["sketch_bound"] is not None and off <= c["sketch_bound"],
                  f"compare {name}: exact relative change off by {off}, bound {c['sketch_bound']}")
        check(c["verdict"] == "untested" and c["ci"] is None and c["p_value"] is None, f"compare {name}: {c}")
    rps = change_named(pair, "rps")
    check(rps is not None and rps["verdict"] == "single" and rps["before"] == sides["before"][2]["rps"]
          and rps["after"] == sides["after"][2]["rps"], f"compare rps: {rps}")
    success = change_named(pair, "success_rate")
    exp = [sum(r["status"] == "ok" for r in sides[s][0]) / len(sides[s][0]) for s in ("before", "after")]
    check(success is not None and [success["before"], success["after"]] == exp and success["verdict"] == "untested",
          f"compare success_rate: {success} (numpy {exp})")
    judged = sum(doc["verdicts"][v] for v in ("improved", "regressed", "no_change", "within_noise"))
    check(judged == 0 and doc["verdicts"]["untested"] > 0, f"verdicts of sketched sides: {doc['verdicts']}")
    res = servestat("compare", sides["before"][1], sides["after"][1])
    check("untested: needs logs" in res.stdout and "statistics are untested" in res.stdout, f"compare table: {res.stdout[-800:]}")
    expect_error(["compare", "--fail-on", "regressed", sides["before"][1], sides["after"][1]], 2, "--fail-on", "cannot be tested")
    expect_error(["compare", "--fail-on", "regressed:e2e.p99", sides["before"][1], sides["after"][1]], 2, "e2e.p99")
    # A summary against a log read whole: the log's side exact, the pair still untested.
    res = servestat("compare", "--json", sides["before"][1], os.path.join(WORK, "compare-after.jsonl"))
    check(res.returncode == 0, f"compare summary log: {res.stderr}")
    if res.returncode == 0:
        c = change_named(json.loads(res.stdout)["pairs"][0], "e2e.p99")
        exact = float(np.percentile([v for _, v in metrics["after"]["e2e"]], 99))
        close(c["after"], exact, "compare summary log: the log's e2e.p99 exact", rel=1e-12)
        check(c["verdict"] == "untested", f"compare summary log e2e.p99: {c}")
    out = os.path.join(WORK, "compare-of-summaries")
    res = servestat("compare", "-o", out, sides["before"][1], sides["after"][1])
    check(res.returncode == 0, f"compare -o of summaries: {res.stderr}")
    if res.returncode == 0:
        with open(os.path.join(out, "plots", "e2e-ecdf-all.svg"), encoding="utf-8") as f:
            check("before: random (sketched ±1%)" in f.read(), "compare ECDF of summaries not marked sketched")


def test_bad_summaries_are_named():
    log = os.path.join(WORK, "bad-summaries.jsonl")
    write_random_log(log, 2_000, seed=41)
    good, other = os.path.join(WORK, "good.ssum.json"), os.path.join(WORK, "short32.ssum.json")
    check(servestat("summarize", "-o", good, log).returncode == 0, "summarize")
    check(servestat("summarize", "--short-max", "32", "-o", other, log).returncode == 0, "summarize --short-max 32")
    out = os.path.join(WORK, "bad-summary-report")
    expect_error(["report", "-o", out, other], 2, other, "--short-max 32", "give report the summary's")
    expect_error(["compare", good, other], 2, other, "--short-max 32")
    check(servestat("report", "--short-max", "32", "-o", out, other).returncode == 0, "report with the summary's options")
    with open(good) as f:
        doc = json.load(f)
    doc["run"]["ok"] = doc["run"]["requests"] + 1
    corrupt = os.path.join(WORK, "corrupt.ssum.json")
    with open(corrupt, "w") as f:
        f.write(json.dumps(doc, separators=(",", ":")) + "\n")
    expect_error(["report", "-o", out, corrupt], 3, corrupt, "run.ok")
    expect_error(["compare", good, corrupt], 3, corrupt, "run.ok")
    with open(good) as f:
        text = f.read()
    cut = os.path.join(WORK, "cut.ssum.json")
    with open(cut, "w") as f:
        f.write(text[: len(text) // 2])
    expect_error(["report", "-o", out, cut], 3, cut)
    expect_error(["compare", cut, good], 3, cut)


def test_version_names_the_source_revision():
    """--version: the project's version (CMakeLists.txt) and the commit the tool was built from."""
    source = os.path.join(HERE, "..", "..")
    r = servestat("--version")
    check(r.returncode == 0, f"--version exit {r.returncode}: {r.stderr}")
    with open(os.path.join(source, "CMakeLists.txt")) as f:
        version = re.search(r"project\(servestat VERSION (\S+)", f.read()).group(1)
    line = r.stdout.strip()
    check(line.startswith(f"servestat {version}, source revision "), f"--version: {line!r}")
    if os.path.exists(os.path.join(source, ".git")):
        head = subprocess.run(["git", "-C", source, "log", "-1", "--format=%h (%cs)", "--abbrev=12"],
                              capture_output=True, text=True)
        if head.returncode == 0:
            check(head.stdout.strip() in line, f"--version {line!r} does not name {head.stdout.strip()!r}")


if __name__ == "__main__":
    sys.exit(run_tests(WORK, [test_version_names_the_source_revision, test_random_log_agrees_with_numpy, test_output_is_deterministic, test_threads_give_identical_output,
                              test_bad_input_exit_codes_and_messages, test_quoted_globs_are_expanded,
                              test_input_format_is_detected_from_content, test_map_reads_an_unknown_layout,
                              test_folder_lists_each_run_once, test_steady_state_cuts_to_the_reported_window,
                              test_report_and_compare_state_the_steady_state, test_standard_input_and_memory_limit,
                              test_summaries_of_shards_merge_into_the_whole,
                              test_report_of_a_summary_and_of_standard_input, test_compare_of_two_summaries,
                              test_bad_summaries_are_named]))
