#!/usr/bin/python3
"""A closed-loop streaming client in Python asyncio + aiohttp: the alternative that
bench/driver_overhead.py measures beside `servestat load`.

    /usr/bin/python3 bench/aiohttp_client.py --url http://127.0.0.1:PORT --workload W.jsonl \
        --concurrency N -n M -o log.jsonl [--seed S]

Does the work of `servestat load --concurrency N -n M --workload W -o log.jsonl`: asks /v1/models
for the model, opens N keep-alive connections before the clock starts (N concurrent GET /v1/models,
which leave N idle connections in aiohttp's pool, as the driver connects its clients before its
run), then N workers each send their next request when the previous one has ended. Request i sends
a workload row drawn with replacement (random.Random(seed)), as a chat (`messages`) or completion
(`prompt`) request with "stream": true and stream_options.include_usage, the body serialised once
per row before the run (the driver prepares its bodies before its run too).

Per request it reads the SSE stream line by line (`async for line in resp.content`, aiohttp's
StreamReader; its C HTTP parser undoes the chunked coding), json.loads every `data:` line, and
times, on time.perf_counter (CLOCK_MONOTONIC) from the run's start, as the driver's log does:
t_sent just before the request is handed to aiohttp; t_first when the first line whose chunk
carries content (delta.content, delta.reasoning_content, delta.tool_calls or text; vLLM's role-only
chunk does not count) has been read; itl, the gaps between content chunks after the first; t_end
after the body's end; server_queue/prefill/decode from vLLM's per-request `metrics` object of any
chunk (queue_time_ms, time_to_first_token_ms, generation_time_ms; in practice the usage chunk).
One clock reading per line, taken as the line is handed over (before its JSON is parsed). Writes
the driver's log format (JSONL: a header line, then one line per request in completion order, the
same fields and 6 decimals), through a buffered file.

Standard library and Debian's python3-aiohttp (3.8) only.
"""

import argparse
import asyncio
import json
import random
import sys
import time

import aiohttp


def content_of(chunk):
    for choice in chunk.get("choices") or ():
        if not isinstance(choice, dict):
            continue
        if choice.get("text"):
            return True
        delta = choice.get("delta") or choice.get("message")
        if isinstance(delta, dict) and (delta.get("content") or delta.get("reasoning_content")
                                        or delta.get("tool_calls")):
            return True
    return False


class Run:
    def __init__(self, args):
        self.args = args
        self.base = args.url.rstrip("/")
        if self.base.endswith("/v1"):
            self.base = self.base[:-3]
        self.rows = []
        with open(args.workload) as f:
            for line in f:
                if line.strip():
                    self.rows.append(json.loads(line))
        self.rng = random.Random(args.seed)
        self.next = 0
        self.log = None
        self.counts = {}

    def prepare(self, model):
        """(path, body bytes, max_tokens) per workload row."""
        self.prepared = []
        for row in self.rows:
            body = {"model": model}
            if "messages" in row:
                body["messages"] = row["messages"]
                path = "/v1/chat/completions"
            else:
                body["prompt"] = row["prompt"]
                path = "/v1/completions"
            body["max_tokens"] = row.get("max_tokens", 16)
            body["temperature"] = row.get("temperature", 0.0)
            for key, value in row.items():
                if key not in ("messages", "prompt", "max_tokens", "temperature"):
                    body[key] = value
            body["stream"] = True
            body["stream_options"] = {"include_usage": True}
            self.prepared.append((self.base + path, json.dumps(body).encode(), body["max_tokens"]))

    async def one(self, session, index):
        url, body, max_tokens = self.prepared[self.rng.randrange(len(self.prepared))]
        clock, start = time.perf_counter, self.start
        rec = {"id": str(index)}
        t_first = None
        last = 0.0
        itl = []
        timings = usage = error = None
        done = False
        status = "ok"
        http_status = 0
        t_sent = clock() - start
        try:
            async with session.post(url, data=body, headers=self.headers) as resp:
                http_status = resp.status
                if resp.status != 200 or not resp.content_type.startswith("text/event-stream"):
                    text = await resp.text()
                    status, error = "error", text[:500]
                else:
                    async for line in resp.content:
                        if not line.startswith(b"data:"):
                            continue
                        now = clock() - start
                        data = line[5:].strip()
                        if data == b"[DONE]":
                            done = True
                            continue
                        if done:
                            continue
                        chunk = json.loads(data)
                        if "error" in chunk and chunk["error"] is not None:
                            status, error = "error", str(chunk["error"])[:500]
                            continue
                        if content_of(chunk):
                            if t_first is None:
                                t_first = now
                            else:
                                itl.append(now - last)
                            last = now
                        if chunk.get("usage"):
                            usage = chunk["usage"]
                        if chunk.get("metrics"):
                            timings = chunk["metrics"]
                    if status == "ok" and not done:
                        status, error = "error", "malformed response: the event stream ended without data: [DONE]"
        except asyncio.TimeoutError:
            status, error = "timeout", f"no complete response within {self.args.timeout} s"
        except (aiohttp.ClientError, OSError) as e:
            status, error = "transport", f"transport: {e}"
        except ValueError as e:  # json.loads
            status, error = "error", f"malformed response: {e}"
        t_end = clock() - start
        if status != "ok":
            t_first, itl = None, []
        output = usage.get("completion_tokens", 0) if usage else (len(itl) + 1 if t_first is not None else 0)
        rec["t_sched"] = round(t_sent, 6)
        rec["t_sent"] = round(t_sent, 6)
        if t_first is not None:
            rec["t_first"] = round(t_first, 6)
        rec["t_end"] = round(t_end, 6)
        rec["prompt_tokens"] = usage.get("prompt_tokens", 0) if usage else 0
        rec["output_tokens"] = output
        rec["max_tokens"] = max_tokens
        rec["status"] = status
        if http_status:
            rec["http_status"] = http_status
        if error:
            rec["error"] = error
        if itl:
            rec["itl"] = [round(x, 6) for x in itl]
        if timings and status == "ok":  # vLLM's ms, as the driver logs them: seconds, null left out
            for key, ms in (("server_queue", "queue_time_ms"), ("server_prefill", "time_to_first_token_ms"),
                            ("server_decode", "generation_time_ms")):
                if isinstance(timings.get(ms), (int, float)) and timings[ms] >= 0:
                    rec[key] = round(timings[ms] / 1000, 6)
        self.log.write(json.dumps(rec, separators=(",", ":")) + "\n")
        self.counts[status] = self.counts.get(status, 0) + 1

    async def worker(self, session):
        while self.next < self.args.requests:
            index = self.next
            self.next += 1
            await self.one(session, index)

    async def main(self):
        n = self.args.concurrency
        connector = aiohttp.TCPConnector(limit=0, limit_per_host=0, keepalive_timeout=3600)
        timeout = aiohttp.ClientTimeout(total=self.args.timeout)
        self.headers = {"Content-Type": "application/json", "Accept": "text/event-stream",
                        "User-Agent": "aiohttp_client.py"}
        async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:
            async with session.get(self.base + "/v1/models") as resp:
                models = await resp.json()
            model = models["data"][0]["id"]
            self.prepare(model)

            async def warm():
                async with session.get(self.base + "/v1/models") as r:
                    await r.read()
            await asyncio.gather(*(warm() for _ in range(n)))  # N connections, then idle in the pool

            with open(self.args.output, "w") as log:
                self.log = log
                header = {"servestat": "log", "version": 1,
                          "run": {"label": f"aiohttp-c{n}", "tool": f"aiohttp_client.py (aiohttp {aiohttp.__version__}, "
                                  f"Python {sys.version.split()[0]})", "model": model, "url": self.args.url,
                                  "params": {"concurrency": n, "requests": self.args.requests,
                                             "seed": self.args.seed, "stream": True}}}
                log.write(json.dumps(header) + "\n")
                self.start = time.perf_counter()
                await asyncio.gather(*(self.worker(session) for _ in range(n)))
                wall = time.perf_counter() - self.start
        ok = self.counts.get("ok", 0)
        print(f"aiohttp_client.py: {self.args.requests} requests, {ok} ok, "
              f"{self.args.requests - ok} failed in {wall:.1f} s; log {self.args.output}", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--url", required=True)
    ap.add_argument("--workload", required=True)
    ap.add_argument("--concurrency", type=int, required=True)
    ap.add_argument("-n", "--requests", type=int, required=True)
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=600)
    args = ap.parse_args()
    asyncio.run(Run(args).main())


if __name__ == "__main__":
    main()
