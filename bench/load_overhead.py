#!/usr/bin/python3
"""What `servestat load` adds to the latencies it measures, and how many SSE chunks one core reads.

    /usr/bin/python3 bench/load_overhead.py build/servestat                # about 1 minute
    /usr/bin/python3 bench/load_overhead.py build/servestat --perf-split   # + each leg timed (root, perf)

Everything runs against `servestat simulate` on 127.0.0.1 (ephemeral port), the simulator pinned to
the first core and the client to the second (taskset), so the two do not take turns on one core.
As root both run SCHED_FIFO (chrt -f 20), so that compilers and tests of others sharing the machine
do not preempt them; --no-rt leaves the priority alone.

(a) Added latency. A closed loop of 512 clients against a simulator that runs all 512 at once
    (max_num_seqs 1024) with 40 ms steps and no other cost, so every stream gets a token per step;
    max_tokens 8-64 per request so that the clients do not move in lockstep. For each ok request,
    overhead = (t_end - t_sent) - (server queue + prefill + decode): the driver's clock against the
    simulator's own account of the request (simulated seconds / time scale = wall seconds); TTFT
    side: (t_first - t_sent) - (queue + prefill). Each connection's first request is reported apart
    (the closed loop connects its clients before the run starts, so no t_sent holds a TCP connect;
    this row shows it). The same with 1 client (5 ms steps) gives the
    floor of the method, when neither process has anything else to do.

    The difference is not all the driver's. It holds the request's way in (the driver writes,
    loopback, the simulator's event loop reads and parses it, which stamps the arrival) and the
    chunk's way out (the simulator's step timer, its serial writes of the step's 512 chunks in the
    order the sequences run, loopback, the driver's event loop reading and parsing). --perf-split
    times two legs per connection with kernel tracepoints (perf record -a -e
    syscalls:sys_{enter,exit}_{sendmsg,recvmsg}, sys_enter_close; fds paired through /proc/net/tcp,
    bytes counted so that reads that split or join writes still match): driver sendmsg -> the
    simulator has read the request, and simulator sendmsg -> the driver has read the chunk. The
    second leg is the driver's reading latency (plus loopback); the tracing slows both processes.

(b) Chunks per second on one core, twice, each time both clients one after the other against the
    same simulator: the driver and the alternative, a Python asyncio client on raw sockets
    (asyncio.Protocol, HTTP/1.1 keep-alive, chunked transfer coding, SSE, json.loads per event, one
    clock reading per read, a JSONL log line per request: a lean streaming client on the standard
    library alone), 512 streams, max_tokens 256 so that nearly every chunk carries content.
    1. Same offered load: 20 ms steps, 25,600 chunks/s, which both clients keep up with, so each
       reads every chunk on its own; client CPU (rusage) per chunk is then comparable: the ratio of
       chunks per CPU-second is the figure to quote.
    2. Saturation: 1 ns steps, the simulator as fast as it goes (it is then the bottleneck, at
       ~100% of its core). A client that falls behind gets many chunks per read, which is cheaper
       per chunk but stamps them all with one time: "chunks that shared a read" (ITL gaps of 0)
       says how much of that happened.

Standard library and numpy (percentiles: numpy's default linear method).
"""

import argparse
import asyncio
import bisect
import collections
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

import numpy

STEP_SECONDS = 0.040  # (a): a decode step of a 512-sequence batch on a large GPU is tens of ms
WORDS = ("the old song in uk top ten list back then map ship time year plan load line work tree "
         "case note city lake team game data part word").split()


# ---- processes --------------------------------------------------------------------------------

def pinned(cmd, core, rt):
    """cmd on one core (taskset), SCHED_FIFO 20 when rt (chrt); both exec, so the pid is cmd's."""
    out = list(cmd)
    if core is not None:
        out = ["taskset", "-c", str(core)] + out
    if rt:
        out = ["chrt", "-f", "20"] + out
    return out


def start_simulator(binary, flags, core, rt):
    err = tempfile.TemporaryFile("w+")
    # vLLM's per-request metrics: the simulator's own account of each request, which the driver logs
    # as server_queue / server_prefill / server_decode.
    proc = subprocess.Popen(pinned([binary, "simulate", "--port", "0", "--enable-per-request-metrics", *flags], core, rt),
                            stdout=subprocess.PIPE, stderr=err, text=True)
    line = proc.stdout.readline().strip()  # "servestat simulate listening on http://127.0.0.1:PORT"
    if "http://" not in line:
        proc.kill()
        proc.wait()
        err.seek(0)
        raise SystemExit(f"the simulator did not start: {line!r} {err.read()[:500]}")
    return proc, line[line.index("http://"):]


def stop(proc):
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def cpu_seconds(pid):
    """CPU time of a running process so far (schedstat: nanoseconds on a CPU, all threads)."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/schedstat") as f:
            total += int(f.read().split()[0])
    return total / 1e9


def run_client(cmd, core, rt, on_start=None):
    """Runs a client to its end; returns (wall seconds, CPU seconds user+sys) from its rusage."""
    err = tempfile.TemporaryFile("w+")  # the driver's summary line; shown when it fails
    start = time.perf_counter()
    proc = subprocess.Popen(pinned(cmd, core, rt), stdout=subprocess.DEVNULL, stderr=err)
    if on_start:
        on_start(proc)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        err.seek(0)
        raise SystemExit(f"failed ({proc.returncode}): {' '.join(cmd)}\n{err.read()[-2000:]}")
    return wall, usage.ru_utime + usage.ru_stime


# ---- workloads and logs -------------------------------------------------------------------------

def write_workload(path, rows, max_tokens, seed):
    """Short chat prompts; max_tokens drawn from the (lo, hi) range, inclusive."""
    rng = random.Random(seed)
    with open(path, "w") as f:
        for _ in range(rows):
            text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 20)))
            f.write(json.dumps({"messages": [{"role": "user", "content": text}],
                                "max_tokens": rng.randint(*max_tokens), "temperature": 0.0}) + "\n")


def read_log(path):
    with open(path) as f:
        lines = [json.loads(line) for line in f if line.strip()]
    return [r for r in lines[1:] if r.get("status") == "ok"]


def pct(values, q):
    return float(numpy.percentile(values, q)) if len(values) else float("nan")


def span(rows):
    return max(r["t_end"] for r in rows) - min(r["t_sent"] for r in rows)


def content_chunks(rows):
    return sum(len(r.get("itl", [])) + 1 for r in rows if r.get("t_first") is not None)


def shared_reads(rows):
    """Share of content chunks after the first that arrived in the same read as the one before
    (both clients take one clock reading per read, so the gap is 0): coalescing cheapens a chunk."""
    gaps = [g for r in rows for g in r.get("itl", [])]
    return sum(1 for g in gaps if g == 0) / len(gaps) if gaps else 0.0


def streams_at_start(rows, measured):
    """Median of the number of requests in flight when each measured request was sent."""
    sent = sorted(r["t_sent"] for r in rows)
    ended = sorted(r["t_end"] for r in rows)
    return pct([bisect.bisect_right(sent, r["t_sent"]) - bisect.bisect_right(ended, r["t_sent"])
                for r in measured], 50)


# ---- (a) added latency --------------------------------------------------------------------------

def overheads(rows):
    """ms: (e2e side, ttft side) per request."""
    e2e, ttft = [], []
    for r in rows:
        queue, prefill, decode = r["server_queue"], r["server_prefill"], r["server_decode"]
        e2e.append(((r["t_end"] - r["t_sent"]) - (queue + prefill + decode)) * 1000)
        if r.get("t_first") is not None:
            ttft.append(((r["t_first"] - r["t_sent"]) - (queue + prefill)) * 1000)
    return e2e, ttft


def snapshot_sockets(sim_pid, driver_pid, want, timeout=20):
    """Pairs the simulator's socket fds with the driver's (by port), once the driver holds `want`
    connections: ({sim fd: driver fd}, CLOCK_MONOTONIC time of the snapshot)."""
    def sockets(pid):
        out = {}
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                link = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if link.startswith("socket:["):
                out[int(link[8:-1])] = int(fd)
        return out

    deadline = time.monotonic() + timeout
    while True:
        drv = sockets(driver_pid)
        if len(drv) >= want or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    time.sleep(0.5)  # the last connects complete
    drv = sockets(driver_pid)
    sim = sockets(sim_pid)
    taken = time.clock_gettime(time.CLOCK_MONOTONIC)
    ports = {}
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as f:
            for line in f.readlines()[1:]:
                p = line.split()
                ports[int(p[9])] = (int(p[1].rsplit(":", 1)[1], 16), int(p[2].rsplit(":", 1)[1], 16))
    driver_by_port = {ports[i][0]: fd for i, fd in drv.items() if i in ports}
    pairs = {fd: driver_by_port[ports[i][1]] for i, fd in sim.items() if i in ports and ports[i][1] in driver_by_port}
    return pairs, taken


def read_perf(perf_data, pids, snapshot):
    """{(pid, 'sendmsg'|'recvmsg', fd): [(enter, exit, bytes)]} of the calls that moved bytes, on
    the connection each fd held at the snapshot (close() calls delimit the connections)."""
    text = subprocess.run(["perf", "script", "-i", perf_data, "-F", "pid,tid,time,event,trace"],
                          capture_output=True, text=True, check=True).stdout
    pending, calls, done = {}, collections.defaultdict(list), set()
    for line in text.splitlines():
        p = line.split()
        if len(p) < 4 or "/" not in p[0]:
            continue
        pid, tid = map(int, p[0].split("/"))
        if pid not in pids:
            continue
        t, event = float(p[1].rstrip(":")), p[2].rstrip(":")
        if event.endswith("_close"):
            fd = int(line.split("fd: ")[1].split(",")[0], 16)
            for kind in ("sendmsg", "recvmsg"):
                key = (pid, kind, fd)
                if t < snapshot:
                    calls.pop(key, None)  # an earlier connection on this fd
                elif key in calls:
                    done.add(key)
            continue
        kind = "sendmsg" if event.endswith("sendmsg") else "recvmsg"
        if "_enter_" in event:
            pending[tid] = (kind, int(line.split("fd: ")[1].split(",")[0], 16), t)
        elif tid in pending:
            kind, fd, t_enter = pending.pop(tid)
            ret = int(p[-1], 16)
            if ret < 1 << 63 and ret > 0 and (pid, kind, fd) not in done:
                calls[(pid, kind, fd)].append((t_enter, t, ret))
    return calls


def legs(sends, reads):
    """Seconds from each send's entry to the exit of the read that took its last byte (the bytes
    are counted, so reads that split or join sends are matched); None when the counts differ."""
    total, ends = 0, []
    for _, _, n in reads:
        total += n
        ends.append(total)
    if sum(n for _, _, n in sends) != total:
        return None
    out, sent = [], 0
    for t_enter, _, n in sends:
        sent += n
        k = bisect.bisect_left(ends, sent)
        out.append(reads[k][1] - t_enter)
    return out


def split_report(calls, pairs, sim_pid, driver_pid, step):
    """Per connection: the request's way in, every write's way out, and the last write before each
    next request (the final chunk with usage and [DONE]) apart; and, over all connections, the
    simulator's bursts (the writes of one step: gaps under step / 4) and where in its burst each
    final chunk left."""
    way_in, way_out, final_out, final_at, writes, skipped = [], [], [], [], [], 0
    for sim_fd, drv_fd in pairs.items():
        requests = calls[(driver_pid, "sendmsg", drv_fd)]
        sim_sends = calls[(sim_pid, "sendmsg", sim_fd)]
        a = legs(requests, calls[(sim_pid, "recvmsg", sim_fd)])
        b = legs(sim_sends, calls[(driver_pid, "recvmsg", drv_fd)])
        if a is None or b is None:
            skipped += 1  # a connection opened or closed while the tracer ran
            continue
        way_in += a
        way_out += b
        writes += [t for t, _, _ in sim_sends]
        starts = [t for t, _, _ in requests][1:] + [float("inf")]
        k = 0
        for i, (t, _, _) in enumerate(sim_sends):
            nxt = sim_sends[i + 1][0] if i + 1 < len(sim_sends) else float("inf")
            while starts[k] < t:
                k += 1
            if nxt > starts[k] or i + 1 == len(sim_sends):  # the last write before the next request
                final_out.append(b[i])
                final_at.append(t)
    writes.sort()
    burst_starts, burst_spans, first = [], [], 0
    for i in range(1, len(writes) + 1):
        if i == len(writes) or writes[i] - writes[i - 1] > step / 4:
            burst_starts.append(writes[first])
            burst_spans.append(writes[i - 1] - writes[first])
            first = i
    position = [t - burst_starts[bisect.bisect_right(burst_starts, t) - 1] for t in final_at]
    return {"in": way_in, "out": way_out, "final_out": final_out, "final_position": position,
            "bursts": burst_spans, "skipped": skipped}


def part_a(binary, tmp, rt, cores, concurrency, requests, step, perf_split=False):
    workload = os.path.join(tmp, "a.jsonl")
    write_workload(workload, 256, (8, 64), seed=1)
    flags = ["--time-scale", "1", "--max-num-seqs", "1024", "--max-num-batched-tokens", "65536",
             "--step-overhead", repr(step), "--per-prefill-token", "0", "--per-decode-seq", "0",
             "--per-context-token", "0"]
    sim, url = start_simulator(binary, flags, cores[0], rt)
    log = os.path.join(tmp, "a-log.jsonl")
    cmd = [binary, "load", "--url", url, "--workload", workload, "--concurrency", str(concurrency),
           "-n", str(requests), "-o", log, "-q", "--heuristic-tokens", "--seed", "1"]
    perf, pairs, perf_data = None, {}, os.path.join(tmp, "perf.data")
    snapshot = []
    if perf_split:
        events = [x for e in ("sendmsg", "recvmsg") for x in
                  ("-e", f"syscalls:sys_enter_{e}", "-e", f"syscalls:sys_exit_{e}")]
        events += ["-e", "syscalls:sys_enter_close"]
        perf = subprocess.Popen(["perf", "record", "-q", "-a", "-m", "8192", "-k", "mono", *events,
                                 "-o", perf_data], stderr=subprocess.DEVNULL)
        time.sleep(1.0)

    def on_start(proc):
        if perf:
            found, taken = snapshot_sockets(sim.pid, proc.pid, concurrency)
            pairs.update(found)
            snapshot.append(taken)
            on_start.pid = proc.pid

    try:
        sim_cpu0 = cpu_seconds(sim.pid)
        wall, driver_cpu = run_client(cmd, cores[1], rt, on_start)
        sim_cpu = cpu_seconds(sim.pid) - sim_cpu0
    finally:
        stop(sim)
        if perf:
            perf.send_signal(signal.SIGINT)
            perf.wait()
    rows = read_log(log)
    first = [r for r in rows if int(r["id"]) < concurrency]  # each connection's first request
    steady = [r for r in rows if int(r["id"]) >= concurrency]
    e2e, ttft = overheads(steady)
    e2e_first, _ = overheads(first)
    in_flight = streams_at_start(rows, steady)
    result = {"concurrency": concurrency, "step": step, "e2e": e2e, "ttft": ttft, "e2e_first": e2e_first,
              "requests": len(rows), "wall": wall, "span": span(rows), "in_flight": in_flight,
              "driver_cpu": driver_cpu, "sim_cpu": sim_cpu, "chunks": content_chunks(rows)}
    if perf:
        calls = read_perf(perf_data, {sim.pid, on_start.pid}, snapshot[0])
        result["split"] = split_report(calls, pairs, sim.pid, on_start.pid, step)
    return result


# ---- (b) chunks per second ----------------------------------------------------------------------

def part_b(binary, tmp, args, rt, cores, step):
    """Both clients, one after the other, against one simulator with `step`-second steps."""
    workload = os.path.join(tmp, "b.jsonl")
    write_workload(workload, 64, (256, 256), seed=2)
    flags = ["--time-scale", "1", "--max-num-seqs", "1024", "--max-num-batched-tokens", "65536",
             "--step-overhead", repr(step), "--per-prefill-token", "0", "--per-decode-seq", "0",
             "--per-context-token", "0"]
    sim, url = start_simulator(binary, flags, cores[0], rt)
    out = {}
    try:
        driver_log, python_log = os.path.join(tmp, "b-servestat.jsonl"), os.path.join(tmp, "b-python.jsonl")
        for name, log, cmd in (
            ("servestat load", driver_log,
             [binary, "load", "--url", url, "--workload", workload, "--concurrency", str(args.concurrency),
              "-n", str(args.b_requests), "-o", driver_log, "-q", "--heuristic-tokens"]),
            ("python asyncio baseline", python_log,
             [sys.executable, os.path.abspath(__file__), "--baseline-client", url, workload,
              str(args.concurrency), str(args.b_requests), python_log]),
        ):
            sim_cpu0 = cpu_seconds(sim.pid)
            wall, cpu = run_client(cmd, cores[1], rt)
            rows = read_log(log)
            out[name] = {"wall": wall, "cpu": cpu, "span": span(rows), "requests": len(rows),
                         "chunks": content_chunks(rows), "shared": shared_reads(rows),
                         "sim_cpu": cpu_seconds(sim.pid) - sim_cpu0}
    finally:
        stop(sim)
    return out


# ---- the baseline client (a child process) ------------------------------------------------------

class BaselineConnection(asyncio.Protocol):
    """One keep-alive connection: sends a request, parses the chunked SSE answer as it arrives."""

    def __init__(self, client):
        self.client = client
        self.transport = None
        self.buf = b""

    def connection_made(self, transport):
        self.transport = transport
        transport.get_extra_info("socket").setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.next_request()

    def next_request(self):
        index = self.client.take()
        if index is None:
            self.transport.close()
            return
        self.index = index
        self.head_done, self.chunk_left, self.sse, self.done = False, None, b"", False
        self.t_first, self.last, self.itl, self.usage, self.timings = None, 0.0, [], None, None
        self.t_sent = time.perf_counter() - self.client.start
        self.transport.write(self.client.requests[index % len(self.client.requests)])

    def data_received(self, data):
        now = time.perf_counter() - self.client.start  # one clock reading per read, as the driver
        buf = self.buf + data
        pos = 0
        if not self.head_done:
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                self.buf = buf
                return
            if not buf.startswith(b"HTTP/1.1 200"):
                raise RuntimeError(buf[:200])
            self.head_done, pos = True, end + 4
        while True:  # chunked transfer coding; chunk_left: None = at a size line, -1 = at the end
            if self.chunk_left is None:
                eol = buf.find(b"\r\n", pos)
                if eol < 0:
                    break
                size = int(buf[pos:eol].split(b";")[0], 16)
                pos = eol + 2
                self.chunk_left = size if size else -1
            if self.chunk_left == -1:
                if len(buf) - pos < 2:  # the CRLF that ends the body
                    break
                self.buf = b""
                self.finish(now)
                return
            take = min(self.chunk_left, len(buf) - pos)
            self.sse += buf[pos:pos + take]
            pos += take
            self.chunk_left -= take
            if self.chunk_left or len(buf) - pos < 2:  # chunk data, then its CRLF
                break
            pos += 2
            self.chunk_left = None
            self.events(now)
        self.buf = buf[pos:]

    def events(self, now):
        while True:
            end = self.sse.find(b"\n\n")
            if end < 0:
                return
            event, self.sse = self.sse[:end], self.sse[end + 2:]
            for line in event.split(b"\n"):
                if not line.startswith(b"data:"):
                    continue
                data = line[5:].strip()
                if data == b"[DONE]":
                    self.done = True
                    continue
                obj = json.loads(data)
                for choice in obj.get("choices", ()):
                    if choice.get("delta", {}).get("content") or choice.get("text"):
                        if self.t_first is None:
                            self.t_first = now
                        else:
                            self.itl.append(now - self.last)
                        self.last = now
                if obj.get("usage"):
                    self.usage = obj["usage"]
                if obj.get("metrics"):  # vLLM's per-request metrics, in the usage chunk
                    self.timings = obj["metrics"]

    def finish(self, now):
        record = {"id": str(self.index), "t_sent": round(self.t_sent, 6), "t_end": round(now, 6),
                  "status": "ok" if self.done and self.t_first is not None else "error"}
        if self.t_first is not None:
            record["t_first"] = round(self.t_first, 6)
            record["itl"] = [round(x, 6) for x in self.itl]
        if self.usage:
            record["prompt_tokens"] = self.usage["prompt_tokens"]
            record["output_tokens"] = self.usage["completion_tokens"]
        self.client.log.write(json.dumps(record) + "\n")
        self.client.log.flush()
        self.next_request()

    def connection_lost(self, exc):
        self.client.closed(exc)


class BaselineClient:
    def __init__(self, url, workload, n, log):
        host_port = url.split("://", 1)[1].rstrip("/")
        self.host, port = host_port.rsplit(":", 1)
        self.port = int(port)
        self.requests = []
        with open(workload) as f:
            for line in f:
                row = json.loads(line)
                body = json.dumps({"model": "Qwen/Qwen2.5-3B-Instruct", "messages": row["messages"],
                                   "max_tokens": row["max_tokens"], "temperature": row["temperature"],
                                   "stream": True, "stream_options": {"include_usage": True}}).encode()
                self.requests.append(
                    b"POST /v1/chat/completions HTTP/1.1\r\nHost: " + self.host.encode() +
                    b"\r\nContent-Type: application/json\r\nAccept: text/event-stream\r\n"
                    b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body)
        self.n, self.next, self.open, self.log = n, 0, 0, log
        self.start = time.perf_counter()

    def take(self):
        if self.next >= self.n:
            return None
        self.next += 1
        return self.next - 1

    def closed(self, exc):
        self.open -= 1
        if exc is not None:
            self.error = exc
        if self.open == 0:
            self.finished.set_result(None)

    async def run(self, concurrency):
        loop = asyncio.get_running_loop()
        self.finished, self.error = loop.create_future(), None
        self.open = concurrency
        for _ in range(concurrency):
            await loop.create_connection(lambda: BaselineConnection(self), self.host, self.port)
        await self.finished
        if self.error:
            raise self.error


def baseline_main(url, workload, concurrency, n, log_path):
    with open(log_path, "w") as log:
        log.write(json.dumps({"servestat": "log", "version": 1, "run": {"tool": "load_overhead.py baseline"}}) + "\n")
        asyncio.run(BaselineClient(url, workload, n, log).run(concurrency))


# ---- report ---------------------------------------------------------------------------------------

def ms(values, q):
    return f"{pct(values, q):.2f}"


def print_a(results, rt):
    print(f"\n## (a) added latency: closed loop, max_tokens 8-64, steps of fixed length"
          f"{', SCHED_FIFO' if rt else ''}\n")
    print("| streams | step | overhead, ms | n | mean | p50 | p90 | p99 | max |")
    print("|---|---|---|---|---|---|---|---|---|")
    for a in results:
        for label, values in (("e2e: (t_end - t_sent) - (queue + prefill + decode)", a["e2e"]),
                              ("TTFT: (t_first - t_sent) - (queue + prefill)", a["ttft"]),
                              ("e2e, first request of a connection", a["e2e_first"])):
            print(f"| {a['in_flight']:.0f} | {a['step'] * 1000:.0f} ms | {label} | {len(values)} | "
                  f"{sum(values) / len(values):.2f} | {ms(values, 50)} | {ms(values, 90)} | {ms(values, 99)} | "
                  f"{max(values):.2f} |")
    print("\nstreams: requests in flight when each measured request was sent (median)")
    for a in results:
        print(f"{a['concurrency']} clients, {a['requests']} requests: run {a['span']:.1f} s, "
              f"{a['chunks'] / a['span']:,.0f} content chunks/s; CPU busy: simulator {a['sim_cpu'] / a['span']:.0%} "
              f"of its core, driver {a['driver_cpu'] / a['span']:.0%} of its core "
              f"({a['driver_cpu'] / a['chunks'] * 1e6:.1f} us CPU per chunk)")
    a = results[-1]
    if "split" in a:
        split = a["split"]
        print(f"\nperf split of the {a['concurrency']}-stream run (kernel syscall tracepoints; "
              f"{split['skipped']} connections skipped):\n")
        print("| leg, ms | n | mean | p50 | p90 | p99 | max |")
        print("|---|---|---|---|---|---|---|")
        for label, values in (
                ("request in: driver sendmsg -> simulator has read it", split["in"]),
                ("simulator burst: first to last write of one step", split["bursts"]),
                ("final chunk's place in its burst: first write of the step -> its write", split["final_position"]),
                ("final chunk out: simulator sendmsg -> driver has read it", split["final_out"]),
                ("every write out (heads, chunks): simulator sendmsg -> driver has read it", split["out"])):
            v = [x * 1000 for x in values]
            print(f"| {label} | {len(v)} | {sum(v) / len(v):.2f} | {ms(v, 50)} | {ms(v, 90)} | {ms(v, 99)} | "
                  f"{max(v):.2f} |")
        def mean(values):
            return sum(values) / len(values) * 1000

        rest = (sum(a["e2e"]) / len(a["e2e"]) - mean(split["in"]) - mean(split["final_position"])
                - mean(split["final_out"]))
        print(f"\nmean e2e overhead minus the means of request in, place in burst and final chunk out: "
              f"{rest:.2f} ms (by elimination the simulator's: its step timer, and its event loop between "
              "reading a request and stamping the arrival)")


def print_b(b, concurrency, rt, step):
    paced = step >= 1e-3
    title = (f"same offered load: {step * 1000:.0f} ms steps, {concurrency / step:,.0f} chunks/s offered" if paced
             else "saturation: the simulator as fast as it goes (1 ns steps)")
    print(f"\n## (b) {title}; {concurrency} streams, max_tokens 256, client pinned to one core"
          f"{', SCHED_FIFO' if rt else ''}\n")
    print("| client | requests | content chunks | wall s | requests/s | chunks/s (wall) | client CPU s "
          "| chunks per client CPU-second | chunks that shared a read | simulator CPU, % of its core |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, r in b.items():
        print(f"| {name} | {r['requests']} | {r['chunks']} | {r['span']:.2f} | {r['requests'] / r['span']:,.0f} | "
              f"{r['chunks'] / r['span']:,.0f} | {r['cpu']:.2f} | {r['chunks'] / r['cpu']:,.0f} | "
              f"{r['shared']:.0%} | {r['sim_cpu'] / r['span']:.0%} |")
    d, p = b["servestat load"], b["python asyncio baseline"]
    print(f"\nratio servestat load / python baseline: {(d['chunks'] / d['cpu']) / (p['chunks'] / p['cpu']):.2f}x "
          f"chunks per CPU-second, {(d['chunks'] / d['span']) / (p['chunks'] / p['span']):.2f}x chunks per wall second")


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--baseline-client":
        url, workload, concurrency, n, log = sys.argv[2:7]
        baseline_main(url, workload, int(concurrency), int(n), log)
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("servestat", help="the servestat binary")
    ap.add_argument("--concurrency", type=int, default=512, help="streams (default 512)")
    ap.add_argument("-n", "--requests", type=int, default=8192, help="(a): requests (default 8192, about 25 s)")
    ap.add_argument("--b-requests", type=int, default=1024, help="(b): requests of 256 tokens (default 1024)")
    ap.add_argument("--b-step", type=float, default=0.020,
                    help="(b): step of the same-offered-load run, seconds (default 0.020; 0: skip it)")
    ap.add_argument("--no-rt", action="store_true", help="normal priority even as root")
    ap.add_argument("--perf-split", action="store_true", help="(a): time each leg with perf tracepoints (root)")
    ap.add_argument("--only", choices=["a", "b"], help="run one part")
    args = ap.parse_args()
    binary = os.path.abspath(args.servestat)
    cpus = sorted(os.sched_getaffinity(0))
    cores = cpus[:2] if len(cpus) >= 2 and shutil.which("taskset") else [None, None]
    rt = not args.no_rt and os.geteuid() == 0 and shutil.which("chrt") is not None
    if args.perf_split and (os.geteuid() != 0 or not shutil.which("perf")):
        raise SystemExit("--perf-split needs root and perf")
    with open("/proc/cpuinfo") as f:
        model = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "?")
    print(f"# servestat load overhead: {len(cpus)} CPUs ({model}), load average "
          f"{os.getloadavg()[0]:.2f} at start; simulator on core {cores[0]}, client on core {cores[1]}")
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="load_overhead.") as tmp:
        if args.only != "b":
            floor = part_a(binary, tmp, rt, cores, 1, 41, 0.005)  # one stream: the method's floor
            print_a([floor, part_a(binary, tmp, rt, cores, args.concurrency, args.requests, STEP_SECONDS,
                                   args.perf_split)], rt)
        if args.only != "a":
            for step in (args.b_step, 1e-9) if args.b_step else (1e-9,):
                print_b(part_b(binary, tmp, args, rt, cores, step), args.concurrency, rt, step)
    print(f"\n{time.perf_counter() - started:.0f} s in all; load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
