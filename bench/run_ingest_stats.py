#!/usr/bin/python3
"""Times `servestat stats --json` against bench/pandas_stats.py on the same 1,000,000-request log,
in the same run, and prints the figures bench/README.md quotes.

Usage: /usr/bin/python3 bench/run_ingest_stats.py BUILD_DIR [N]
"""
import os
import subprocess
import sys
import time

build = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000
here = os.path.dirname(os.path.abspath(__file__))
log = os.path.join(build, f"bench-{n}.jsonl")
if not os.path.exists(log):
    subprocess.run([os.path.join(build, "bench", "bench_ingest_stats"), "generate", log, str(n)], check=True)


def timed(cmd):
    """Wall seconds and peak RSS (MiB) of one child process."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if status != 0:
        sys.exit(f"failed: {cmd}")
    return wall, usage.ru_maxrss / 1024


print(f"log: {log} ({os.path.getsize(log) / 1e6:.0f} MB, {n} requests)")
print(subprocess.run([os.path.join(build, "bench", "bench_ingest_stats"), "run", log], capture_output=True,
                     text=True, check=True).stdout)
servestat = [timed([os.path.join(build, "servestat"), "stats", "--json", log]) for _ in range(3)]
best_wall, rss = min(servestat)
pandas_wall, pandas_rss = timed(["/usr/bin/python3", os.path.join(here, "pandas_stats.py"), log])
print(f"servestat stats --json: best of 3 {best_wall:.3f} s ({n / best_wall:,.0f} requests/s), "
      f"peak RSS {rss:.1f} MiB ({rss * 1024 * 1024 / n:.0f} bytes/request)")
print(f"pandas read_json + quantiles: {pandas_wall:.3f} s, peak RSS {pandas_rss:.1f} MiB")
print(f"ratio (pandas / servestat wall time): {pandas_wall / best_wall:.1f}x")
