#!/usr/bin/python3
"""servestat beside pandas, DuckDB and polars on the same canonical log, in one run: each computes
the same per-request metrics, moments and p50/p90/p95/p99 per prompt-length subset (bench/
pandas_stats.py, bench/node/duckdb_stats.mjs, bench/node/polars_stats.mjs). Times servestat and
DuckDB and polars on one thread and on every thread (best of 3), pandas once; checks that every
peer's percentiles agree with servestat's to 1e-9 relative; prints wall time, requests/s, peak RSS
and servestat's speed-up over each. DuckDB and polars come from npm (`make bench-peers` installs
them into bench/node); nothing here is needed to build or test servestat.

Usage: /usr/bin/python3 bench/side_by_side.py BUILD_DIR [N]   (N = 4,000,000 by default)
"""
import json
import os
import subprocess
import sys
import time

build = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 4_000_000
here = os.path.dirname(os.path.abspath(__file__))
node_dir = os.path.join(here, "node")
log = os.path.join(build, f"bench-{n}.jsonl")
if not os.path.exists(log):
    subprocess.run([os.path.join(build, "bench", "bench_ingest_stats"), "generate", log, str(n)], check=True)
threads = os.cpu_count()


def timed(cmd, env=None):
    """Wall seconds, peak RSS (MiB) and stdout of one child process."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, env={**os.environ, **(env or {})})
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if status != 0:
        sys.exit(f"failed: {cmd}")
    return wall, usage.ru_maxrss / 1024, out


def best_of(times, cmd, env=None):
    runs = [timed(cmd, env) for _ in range(times)]
    return min(runs, key=lambda r: r[0])


def servestat_percentiles(doc):
    run = doc["runs"][0]
    return {s: {m: {k: v for k, v in stats.items() if k in ("p50", "p90", "p95", "p99")}
                for m, stats in subset["metrics"].items()} for s, subset in run["subsets"].items()}


def disagreements(reference, other):
    bad = []
    for s, metrics in other.items():
        for m, ps in metrics.items():
            for p, v in ps.items():
                want = reference[s][m][p]
                if v is None or abs(v - want) > 1e-9 * abs(want):
                    bad.append(f"{s}.{m}.{p}: {v} vs servestat {want}")
    return bad


servestat_cli = os.path.join(build, "servestat")
rows = []  # (tool, threads, wall, rss)
wall, rss, out = best_of(3, [servestat_cli, "stats", "--json", "-j", "1", log])
rows.append(("servestat stats", 1, wall, rss))
reference = servestat_percentiles(json.loads(out))
wall, rss, out = best_of(3, [servestat_cli, "stats", "--json", log])
rows.append(("servestat stats", threads, wall, rss))
checks = {}
for t in (1, threads):
    wall, rss, out = best_of(3, ["node", os.path.join(node_dir, "duckdb_stats.mjs"), log, str(t)])
    rows.append(("DuckDB", t, wall, rss))
    checks[f"DuckDB ({t} threads)"] = json.loads(out)["percentiles"]
    wall, rss, out = best_of(3, ["node", os.path.join(node_dir, "polars_stats.mjs"), log], {"POLARS_MAX_THREADS": str(t)})
    rows.append(("polars", t, wall, rss))
    checks[f"polars ({t} threads)"] = json.loads(out)["percentiles"]
wall, rss, out = timed(["/usr/bin/python3", os.path.join(here, "pandas_stats.py"), log])
rows.append(("pandas", 1, wall, rss))
checks["pandas"] = json.loads(out.decode().strip().splitlines()[-1])["percentiles"]

print(f"log: {log} ({os.path.getsize(log) / 1e6:.0f} MB, {n:,} requests), {threads} hardware threads")
best_servestat = min(r[2] for r in rows if r[0].startswith("servestat"))
print(f"{'tool':<18}{'threads':>8}{'wall s':>9}{'req/s':>12}{'peak RSS':>11}{'B/req':>7}{'servestat is':>14}")
for tool, t, wall, rss in rows:
    print(f"{tool:<18}{t:>8}{wall:>9.2f}{n / wall:>12,.0f}{rss:>8.0f} MiB{rss * 1048576 / n:>7.0f}{wall / best_servestat:>13.1f}x")
for tool in ("DuckDB", "polars"):
    best = min(r[2] for r in rows if r[0] == tool)
    print(f"servestat (best) vs {tool} at its best thread count: {best / best_servestat:.2f}x faster")
one = next(r[2] for r in rows if r[0].startswith("servestat") and r[1] == 1)
print(f"servestat 1 -> {threads} threads: {one / best_servestat:.2f}x")
failed = False
for name, percentiles in checks.items():
    bad = disagreements(reference, percentiles)
    print(f"percentiles of {name}: " + ("agree with servestat's to 1e-9" if not bad else f"{len(bad)} disagree, e.g. {bad[:3]}"))
    failed = failed or bool(bad)
sys.exit(1 if failed else 0)
