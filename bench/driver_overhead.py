#!/usr/bin/python3
"""What `servestat load` adds to the TTFT and ITL it measures, and its CPU per chunk, against a
minimal SSE server, beside a Python asyncio + aiohttp client doing the same work.

    /usr/bin/python3 bench/driver_overhead.py SERVESTAT BENCH_SSE_SERVER [--out DIR]   # ~8 min + waits

SERVESTAT is the binary under test (copy it first if others rebuild it meanwhile); BENCH_SSE_SERVER
is bench/sse_server.cpp built (`cmake -DSERVESTAT_BUILD_BENCH=ON`, target bench_sse_server).

For each point (streams N = 1, 64, 512, 2048 by default; 1 is the method's floor) and each client
(`servestat load`; bench/aiohttp_client.py; the same with glibc's malloc kept off mmap, see
TUNED_MALLOC), a fresh bench_sse_server (one thread, core 0) and the client (core 1; both
SCHED_FIFO 20 as root, so that other people's compilers do not preempt them; --no-rt to leave
priorities alone) run a closed loop: N streams, each sending its next request when the previous one
ends, short chat prompts, max_tokens uniform in 32..96 (mean 64, so that requests end at different
times). The server sends content chunk k of a request at t_read + jitter + k * itl on absolute
deadlines, itl = N / RATE (RATE = 12,800 content chunks/s offered at every point but the floor: 5 ms
at 64 streams, 40 ms at 512, 160 ms at 2048), jitter uniform in [0, itl) per request so that the
streams' phases spread instead of moving in lockstep (--lockstep: all chunks due on one grid, as a
batched decode step's tokens, which the server then writes in a burst).
Requests = RATE * SECONDS / 64 (the floor: 61 requests at 5 ms). Before each client run the script
waits until no compiler (cc1plus, ld) runs, at most --wait-cap seconds, and records what else used
the CPUs during the run.

Measured, over the requests after each connection's first (ids >= N: every client connects before
its clock starts, but all N first requests leave at once), and only what arrived before the last
request was sent (while all N streams were in flight):
  added TTFT = (t_first - t_sent) - (server_queue + server_prefill): exact; the server's timings
      run from the kernel's receipt of the request to the return of the send() of the first
      content chunk (bench/sse_server.cpp);
  added latency of chunk k >= 1 = (t_first + itl[0] + ... + itl[k-1] - t_sent)
      - (server_queue + server_prefill + (t_send(k) - t_send(0))), with the server's own send times
      of that request's chunks from its --chunk-log, joined by usage.prompt_tokens (which carries
      the server's stream number); exact as the TTFT is;
  ITL error = each logged gap - the server's gap between the same two chunks' send() returns;
  CPU: user + sys of the client process (os.wait4 of the child, to which neither client's children
      add: /proc/PID/stat's cutime/cstime, read at the zombie, are checked to be 0), whole process
      and over the run's window (from the server's first generation request to its last response,
      sampling /proc/PID/task/*/schedstat every 0.2 s), per 10^6 content chunks; the server's
      (os.wait4) too.
Prints a markdown table and writes the raw numbers to DIR/results.json (logs and server summaries
beside it).

Standard library and numpy.
"""

import argparse
import bisect
import json
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

import numpy

HERE = os.path.dirname(os.path.abspath(__file__))
MAX_TOKENS = (32, 96)  # uniform, mean 64: requests of different lengths, so their ends spread out
MEAN_TOKENS = 64
WORDS = ("the old song in uk top ten list back then map ship time year plan load line work tree "
         "case note city lake team game data part word").split()
# asyncio reads with sock.recv(256 KiB): glibc serves that from a fresh mmap, shrinks it with mremap
# and unmaps it at every read; these keep it on the heap (the "aiohttp-tuned" client).
TUNED_MALLOC = {"MALLOC_MMAP_THRESHOLD_": "1048576", "MALLOC_TRIM_THRESHOLD_": "67108864"}
COMPILERS = ("cc1plus", "ld", "cc1", "ld.lld", "lld", "ld.gold")


# ---- the machine ----------------------------------------------------------------------------------

def compilers_running():
    found = set()
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/comm") as f:
                name = f.read().strip()
        except OSError:
            continue
        if name in COMPILERS:
            found.add(name)
    return found


def wait_for_quiet(cap):
    """Waits until no compiler runs, polling every 10 s, at most cap seconds; returns (seconds
    waited, whether the cap was hit)."""
    start = time.monotonic()
    while compilers_running():
        if time.monotonic() - start > cap:
            return time.monotonic() - start, True
        time.sleep(10)
    return time.monotonic() - start, False


def machine_busy():
    """(busy, total) jiffies over all CPUs, from /proc/stat."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    idle = fields[3] + fields[4]
    total = sum(fields[:8])
    return total - idle, total


def task_cpu(pid):
    """CPU seconds of a live process so far, all threads (schedstat, nanoseconds)."""
    total = 0
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/schedstat") as f:
                total += int(f.read().split()[0])
    except (OSError, ValueError):
        return None
    return total / 1e9


class Sampler(threading.Thread):
    """Samples (CLOCK_MONOTONIC, client CPU s) every 0.2 s and which compilers appear, each second."""

    def __init__(self, pid):
        super().__init__(daemon=True)
        self.pid, self.samples, self.compilers, self.stop = pid, [], set(), threading.Event()

    def run(self):
        tick = 0
        while not self.stop.is_set():
            cpu = task_cpu(self.pid)
            if cpu is not None:
                self.samples.append((time.monotonic(), cpu))
            if tick % 5 == 0:
                self.compilers |= compilers_running()
            tick += 1
            self.stop.wait(0.2)

    def cpu_between(self, t0, t1):
        """Client CPU seconds between two CLOCK_MONOTONIC times (linear between samples)."""
        s = self.samples
        if len(s) < 2:
            return None
        times = [x[0] for x in s]

        def at(t):
            i = bisect.bisect_left(times, t)
            if i <= 0:
                return s[0][1]
            if i >= len(s):
                return s[-1][1]
            (ta, ca), (tb, cb) = s[i - 1], s[i]
            return ca + (cb - ca) * (t - ta) / (tb - ta)
        return at(t1) - at(t0)


# ---- processes ------------------------------------------------------------------------------------

def digest(path):
    import hashlib
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def placed(cmd, core, rt):
    out = list(cmd)
    if core is not None:
        out = ["taskset", "-c", str(core)] + out
    if rt:
        out = ["chrt", "-f", "20"] + out
    return out


def start_server(binary, itl_ms, jitter, stats_path, core, rt, threads, lockstep=False):
    err = tempfile.TemporaryFile("w+")
    cmd = [binary, "--port", "0", "--threads", str(threads), "--itl-ms", f"{itl_ms:g}", "--ttft-ms", "0",
           "--ttft-jitter-ms", f"{itl_ms * jitter:g}", "--stats", stats_path, "--seed", "1",
           "--chunk-log", stats_path.replace(".server.json", ".chunks.jsonl"), "--step-grid", "1" if lockstep else "0"]
    proc = subprocess.Popen(placed(cmd, core, rt), stdout=subprocess.PIPE, stderr=err, text=True)
    line = proc.stdout.readline().strip()
    if "http://" not in line:
        proc.kill()
        proc.wait()
        err.seek(0)
        raise SystemExit(f"bench_sse_server did not start: {line!r} {err.read()[:500]}")
    return proc, line[line.index("http://"):], cmd


def stop_server(proc):
    """SIGTERM; returns the server's CPU seconds (user, sys) from wait4."""
    proc.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            proc.returncode = os.waitstatus_to_exitcode(status)
            return usage.ru_utime, usage.ru_stime
        time.sleep(0.05)
    proc.kill()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_utime, usage.ru_stime


def run_client(cmd, core, rt, env=None):
    """Runs the client to its end. Returns wall s, (user, sys) CPU s, children's CPU s (from the
    zombie's /proc/PID/stat, expected 0) and the sampler."""
    err = tempfile.TemporaryFile("w+")
    start = time.monotonic()
    proc = subprocess.Popen(placed(cmd, core, rt), stdout=subprocess.DEVNULL, stderr=err,
                            env=dict(os.environ, **env) if env else None)
    sampler = Sampler(proc.pid)
    sampler.start()
    os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOWAIT)
    wall = time.monotonic() - start
    children = None
    try:
        with open(f"/proc/{proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        children = (int(fields[13]) + int(fields[14])) / os.sysconf("SC_CLK_TCK")  # cutime, cstime
    except (OSError, IndexError, ValueError):
        pass
    _, status, usage = os.wait4(proc.pid, 0)
    sampler.stop.set()
    sampler.join()
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        err.seek(0)
        raise SystemExit(f"failed ({proc.returncode}): {' '.join(cmd)}\n{err.read()[-2000:]}")
    return wall, (usage.ru_utime, usage.ru_stime), children, sampler


# ---- workload and logs ----------------------------------------------------------------------------

def write_workload(path, rows, seed):
    rng = random.Random(seed)
    with open(path, "w") as f:
        for _ in range(rows):
            text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 20)))
            f.write(json.dumps({"messages": [{"role": "user", "content": text}],
                                "max_tokens": rng.randint(*MAX_TOKENS), "temperature": 0.0}) + "\n")


def read_log(path):
    with open(path) as f:
        lines = [json.loads(line) for line in f if line.strip()]
    return lines[1:]


def pct(values, q):
    return float(numpy.percentile(values, q)) if len(values) else float("nan")


def read_chunk_log(path):
    """{stream number: t_send(k) - t_send(0) in seconds, k = 1 ..} from bench_sse_server --chunk-log."""
    out = {}
    with open(path) as f:
        for line in f:
            j = json.loads(line)
            out[j["n"]] = numpy.asarray(j["d"], dtype=float) / 1e9
    return out


def analyse(rows, concurrency, sends):
    """Added latencies (ms) of the requests after each connection's first (ids >= N), counting only
    what arrived before the last request was sent, while all N streams were in flight. `sends`: the
    server's chunk log; each request is joined to its stream by usage.prompt_tokens."""
    ok = [r for r in rows if r.get("status") == "ok"]
    chunks = sum(len(r.get("itl", [])) + 1 for r in ok if r.get("t_first") is not None)
    last_start = max(r["t_sent"] for r in rows)
    measured = [r for r in ok if int(r["id"]) >= concurrency and "server_prefill" in r]
    ttft, later, gaps, unmatched, backlog, n_gaps = [], [], [], 0, 0, 0
    for r in measured:
        base = r["t_sent"] + r["server_queue"] + r["server_prefill"]
        if r["t_first"] <= last_start:
            ttft.append((r["t_first"] - base) * 1e3)
        itl = numpy.asarray(r.get("itl", []), dtype=float)
        sent = sends.get(r["prompt_tokens"])
        if sent is None or len(sent) != len(itl):
            unmatched += 1
            continue
        if len(itl):
            arrival = r["t_first"] + numpy.cumsum(itl)
            keep = arrival <= last_start
            server_gaps = numpy.diff(sent, prepend=0.0)
            later.append(((arrival - base - sent) * 1e3)[keep])
            gaps.append(((itl - server_gaps) * 1e3)[keep])
            backlog += int(numpy.sum(itl[keep] < 0.1 * server_gaps[keep]))
            n_gaps += int(numpy.sum(keep))
    later = numpy.concatenate(later) if later else numpy.array([])
    gaps = numpy.concatenate(gaps) if gaps else numpy.array([])
    span = max(r["t_end"] for r in rows) - min(r["t_sent"] for r in rows)
    return {"requests": len(rows), "ok": len(ok), "failed": len(rows) - len(ok), "measured": len(ttft),
            "measured_chunks": len(ttft) + len(later), "chunks": chunks, "span": span, "last_start": last_start,
            "unmatched": unmatched, "ttft": summary(ttft), "later": summary(later), "gap": summary(gaps),
            # chunks the client read less than a tenth of the server's gap after the one before: it
            # had fallen behind and read them from a backlog
            "backlog": backlog / n_gaps if n_gaps else 0.0}


def summary(values):
    values = numpy.asarray(values, dtype=float)
    if not len(values):
        return None
    return {"n": int(len(values)), "mean": float(values.mean()), "p1": pct(values, 1), "p50": pct(values, 50),
            "p90": pct(values, 90), "p99": pct(values, 99), "p99.9": pct(values, 99.9), "max": float(values.max())}


# ---- one point ------------------------------------------------------------------------------------

def one_run(args, client, streams, itl_s, requests, workload, outdir, cores, rt):
    tag = f"{client}-c{streams}-r{args.round}"
    log = os.path.join(outdir, f"{tag}.jsonl")
    stats_path = os.path.join(outdir, f"{tag}.server.json")
    waited, cap_hit = wait_for_quiet(args.wait_cap) if args.wait_cap > 0 else (0.0, False)
    load0 = os.getloadavg()[0]
    server, url, server_cmd = start_server(args.sse_server, itl_s * 1e3, 0.0 if args.lockstep else args.jitter, stats_path,
                                           cores[0], rt, args.server_threads, args.lockstep)
    if client == "servestat":
        cmd = [args.servestat, "load", "--url", url, "--workload", workload, "--concurrency", str(streams),
               "-n", str(requests), "-o", log, "-q", "--heuristic-tokens", "--seed", "1"]
    else:
        cmd = [sys.executable, os.path.join(HERE, "aiohttp_client.py"), "--url", url, "--workload", workload,
               "--concurrency", str(streams), "-n", str(requests), "-o", log, "--seed", "1"]
    env = TUNED_MALLOC if client == "aiohttp-tuned" else None
    busy0 = machine_busy()
    try:
        wall, (cu, cs), children, sampler = run_client(cmd, cores[1], rt, env)
    finally:
        busy1 = machine_busy()
        su, ss = stop_server(server)
    with open(stats_path) as f:
        server_stats = json.load(f)
    result = analyse(read_log(log), streams, read_chunk_log(stats_path.replace(".server.json", ".chunks.jsonl")))
    window = (server_stats.get("first_generation_mono_s"), server_stats.get("last_response_mono_s"))
    window_cpu = sampler.cpu_between(*window) if None not in window else None
    ticks = os.sysconf("SC_CLK_TCK")
    all_busy = (busy1[0] - busy0[0]) / ticks
    result.update({
        "client": client, "streams": streams, "itl_ms": itl_s * 1e3, "round": args.round, "lockstep": args.lockstep,
        "command": " ".join(cmd), "env": env, "server_command": " ".join(server_cmd),
        "wall": wall, "client_cpu_user": cu, "client_cpu_sys": cs, "client_children_cpu": children,
        "client_cpu_window": window_cpu,
        "window_s": (window[1] - window[0]) if None not in window else None,
        "server_cpu_user": su, "server_cpu_sys": ss, "server": server_stats,
        "waited_for_compilers_s": waited, "wait_cap_hit": cap_hit, "compilers_during_run": sorted(sampler.compilers),
        "load_average_start": load0, "load_average_end": os.getloadavg()[0],
        "other_cpu_s": all_busy - (cu + cs) - (su + ss), "machine_cpu_s": all_busy,
    })
    return result


# ---- report ---------------------------------------------------------------------------------------

def f2(x):
    return "–" if x is None else f"{x:.2f}"


def print_table(results):
    print("| client | streams | ITL | requests (measured) | content chunks (measured) | added TTFT, ms p50 / p99 / max "
          "| added latency, later chunks, ms p50 / p99 / max | ITL error, ms p1 / p50 / p99 "
          "| client CPU s / 10^6 chunks (whole / window) | server CPU s / 10^6 chunks | wall s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in results:
        t, later, g = r["ttft"], r["later"], r["gap"]
        per = 1e6 / r["chunks"]
        whole = (r["client_cpu_user"] + r["client_cpu_sys"]) * per
        window = r["client_cpu_window"] * per if r["client_cpu_window"] else None
        server = (r["server_cpu_user"] + r["server_cpu_sys"]) * per
        name = {"servestat": "servestat load", "aiohttp": "aiohttp",
                "aiohttp-tuned": "aiohttp, malloc tuned"}[r["client"]]
        print(f"| {name} | {r['streams']} | {r['itl_ms']:g} ms | {r['requests']} ({r['measured']}) | "
              f"{r['chunks']:,} ({r['measured_chunks']:,}) | {f2(t['p50'])} / {f2(t['p99'])} / {f2(t['max'])} | "
              f"{f2(later['p50'])} / {f2(later['p99'])} / {f2(later['max'])} | "
              f"{f2(g['p1'])} / {f2(g['p50'])} / {f2(g['p99'])} | {whole:.1f} / {f2(window)} | {server:.1f} | "
              f"{r['wall']:.1f} |")
    print()
    for r in results:
        s = r["server"]
        busy = r["client_cpu_window"] / r["window_s"] if r["client_cpu_window"] and r["window_s"] else float("nan")
        print(f"- {r['client']} {r['streams']}: failed {r['failed']}, not joined to the server's log {r['unmatched']}; client busy {busy:.0%} of its core in the run's window, "
              f"chunks read from a backlog {r['backlog']:.1%}; measured chunks {r['measured_chunks']:,}; server lateness us p50 {s['lateness_us']['p50']:.0f} "
              f"p99 {s['lateness_us']['p99']:.0f} max {s['lateness_us']['max']:.0f}, gap deviation us p1..p99 "
              f"{s['gap_deviation_us'].get('p1', float('nan')):.0f}..{s['gap_deviation_us']['p99']:.0f}, queue us p50 "
              f"{s['queue_us']['p50']:.0f} p99 {s['queue_us']['p99']:.0f}, send() us p50 {s['send_call_us']['p50']:.1f}, "
              f"blocked writes {s['blocked_writes']}, no rx timestamp {s['no_rx_timestamp']}; "
              f"client children CPU {r['client_children_cpu']}; waited {r['waited_for_compilers_s']:.0f} s "
              f"(cap hit: {r['wait_cap_hit']}); compilers during run: {r['compilers_during_run'] or 'none'}; "
              f"other processes' CPU {max(0.0, r['other_cpu_s']):.1f} s of {r['machine_cpu_s']:.1f} s busy; load average "
              f"{r['load_average_start']:.2f} -> {r['load_average_end']:.2f}")
    pairs = {}
    for r in results:
        pairs.setdefault(r["streams"], {})[r["client"]] = r
    print()
    for streams, p in pairs.items():
        for other in ("aiohttp", "aiohttp-tuned"):
            if "servestat" in p and other in p:
                d, a = p["servestat"], p[other]
                cpu = lambda r: (r["client_cpu_user"] + r["client_cpu_sys"]) / r["chunks"]
                print(f"- {streams} streams, {other} / servestat: CPU per chunk {cpu(a) / cpu(d):.2f}x; added TTFT p99 "
                      f"{a['ttft']['p99'] / d['ttft']['p99']:.2f}x; later chunks p99 "
                      f"{a['later']['p99'] / d['later']['p99']:.2f}x")


def analyse_only(outdir):
    with open(os.path.join(outdir, "results.json")) as f:
        saved = json.load(f)
    results = []
    for r in saved["results"]:
        tag = os.path.join(outdir, f"{r['client']}-c{r['streams']}-r{r['round']}")
        r.update(analyse(read_log(tag + ".jsonl"), r["streams"], read_chunk_log(tag + ".chunks.jsonl")))
        results.append(r)
    print(f"# {outdir}: {saved['machine']}, {saved['kernel']}")
    print_table(results)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("servestat", help="the servestat binary under test")
    ap.add_argument("sse_server", help="bench_sse_server (bench/sse_server.cpp built)")
    ap.add_argument("--points", default="1,64,512,2048", help="streams per point (1 = the floor)")
    ap.add_argument("--clients", default="servestat,aiohttp,aiohttp-tuned")
    ap.add_argument("--rate", type=float, default=12800, help="content chunks/s offered (default 12800)")
    ap.add_argument("--seconds", type=float, default=40, help="about how long each run lasts (default 40)")
    ap.add_argument("--rounds", type=int, default=1, help="repeat every run this many times, alternating clients")
    ap.add_argument("--server-threads", type=int, default=1)
    ap.add_argument("--jitter", type=float, default=1.0,
                    help="first token's delay uniform in [0, JITTER * itl) per request (default 1: phases spread; "
                         "0: no jitter)")
    ap.add_argument("--lockstep", action="store_true",
                    help="every stream's chunks due at the same instants (the server's --step-grid): each itl "
                         "the server writes one chunk per stream in one burst, as a batched decode step does")
    ap.add_argument("--no-rt", action="store_true", help="normal priority even as root")
    ap.add_argument("--no-pin", action="store_true", help="leave both processes to the scheduler (no taskset)")
    ap.add_argument("--wait-cap", type=float, default=1200, help="seconds to wait for compilers to end (0: no wait)")
    ap.add_argument("--out", help="directory for logs and results.json (default: a new one under /tmp)")
    ap.add_argument("--analyse-only", metavar="DIR",
                    help="measure nothing: redo the analysis of the logs in DIR (an earlier --out) and print the table")
    if "--analyse-only" in sys.argv:  # the binaries are not needed then
        args = ap.parse_args(["-", "-"] + sys.argv[1:])
        analyse_only(args.analyse_only)
        return
    args = ap.parse_args()
    args.servestat = os.path.abspath(args.servestat)
    args.sse_server = os.path.abspath(args.sse_server)
    points = [int(x) for x in args.points.split(",")]
    clients = args.clients.split(",")

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = 2 * max(points) + 256
    if hard != resource.RLIM_INFINITY and hard < want:
        raise SystemExit(f"RLIMIT_NOFILE hard limit {hard} < {want}: raise it (ulimit -Hn)")
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # the children inherit it

    cpus = sorted(os.sched_getaffinity(0))
    pin = not args.no_pin and len(cpus) >= 2 and shutil.which("taskset")
    cores = cpus[:2] if pin else [None, None]
    rt = not args.no_rt and os.geteuid() == 0 and shutil.which("chrt") is not None
    outdir = args.out or tempfile.mkdtemp(prefix="driver_overhead.")
    os.makedirs(outdir, exist_ok=True)
    workload = os.path.join(outdir, "workload.jsonl")
    write_workload(workload, 256, seed=1)
    with open("/proc/cpuinfo") as f:
        model = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "?")
    print(f"# driver overhead against bench_sse_server: {len(cpus)} CPUs ({model}), {os.uname().release}; "
          f"server on core {cores[0]}, client on core {cores[1]}{', SCHED_FIFO 20' if rt else ''}; "
          f"{time.strftime('%Y-%m-%d %H:%M:%S %Z')}; out {outdir}", flush=True)
    results = []
    started = time.monotonic()
    for round_ in range(args.rounds):
        args.round = round_
        for streams in points:
            if streams == 1:
                itl_s, requests = 0.005, 61
            else:
                itl_s = streams / args.rate
                requests = max(2 * streams, int(args.rate * args.seconds / MEAN_TOKENS))
            order = clients if round_ % 2 == 0 else list(reversed(clients))
            for client in order:
                r = one_run(args, client, streams, itl_s, requests, workload, outdir, cores, rt)
                results.append(r)
                print(f"  {client} {streams} streams: {r['chunks']:,} chunks in {r['wall']:.1f} s; added TTFT p99 "
                      f"{r['ttft']['p99']:.2f} ms; later chunks p99 {r['later']['p99']:.2f} ms; CPU "
                      f"{(r['client_cpu_user'] + r['client_cpu_sys']) / r['chunks'] * 1e6:.2f} s/10^6 chunks; "
                      f"compilers during run: {r['compilers_during_run'] or 'none'}", flush=True)
                with open(os.path.join(outdir, "results.json"), "w") as f:
                    json.dump({"argv": sys.argv, "machine": model, "kernel": os.uname().release,
                               "servestat_sha256": digest(args.servestat),
                               "results": results}, f, indent=1)
    print()
    print_table(results)
    print(f"\n{time.monotonic() - started:.0f} s in all; {time.strftime('%Y-%m-%d %H:%M:%S %Z')}")


if __name__ == "__main__":
    main()
