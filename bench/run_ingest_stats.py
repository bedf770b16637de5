#!/usr/bin/python3
"""Times `servestat stats --json` (one thread and every thread) and `servestat report` against
bench/pandas_stats.py on the same 1,000,000-request log, in the same run, and prints the figures
bench/README.md quotes.

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
servestat_cli = os.path.join(build, "servestat")


def best_of_3(*args):
    return min(timed([servestat_cli, *args]) for _ in range(3))


threads = os.cpu_count()
one_wall, one_rss = best_of_3("stats", "--json", "-j", "1", log)
all_wall, all_rss = best_of_3("stats", "--json", log)
report_one, _ = best_of_3("report", "-j", "1", "-o", os.path.join(build, "bench-report"), log)
report_all, report_rss = best_of_3("report", "-o", os.path.join(build, "bench-report"), log)
pandas_wall, pandas_rss = timed(["/usr/bin/python3", os.path.join(here, "pandas_stats.py"), log])
for name, wall, rss in [("stats --json -j 1", one_wall, one_rss), (f"stats --json ({threads} threads)", all_wall, all_rss),
                        ("report -j 1", report_one, None), (f"report ({threads} threads)", report_all, report_rss)]:
    memory = f", peak RSS {rss:.1f} MiB ({rss * 1024 * 1024 / n:.0f} bytes/request)" if rss else ""
    print(f"servestat {name}: best of 3 {wall:.3f} s ({n / wall:,.0f} requests/s){memory}")
print(f"pandas read_json + quantiles: {pandas_wall:.3f} s, peak RSS {pandas_rss:.1f} MiB")
print(f"ratio 1 -> {threads} threads (stats): {one_wall / all_wall:.2f}x")
print(f"ratio report / stats: {report_one / one_wall:.2f}x on 1 thread, {report_all / all_wall:.2f}x on {threads}")
print(f"ratio pandas / servestat (stats, {threads} threads): {pandas_wall / all_wall:.1f}x")
