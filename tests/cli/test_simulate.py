#!/usr/bin/python3
"""CLI tests for `servestat simulate`: the simulated vLLM server over real loopback HTTP.

Every endpoint's shape, streaming event order, usage against /tokenize, vLLM's context-overflow
error, vLLM's per-request metrics (--enable-per-request-metrics: the `metrics` object member by member
against vLLM's docs/features/per_request_metrics.md, in each place vLLM puts it, and
--enable-force-include-usage), the HTTP error cases (and the server still serving after
them), keep-alive, 500 concurrent streams, clients that vanish (the engine's gauges go back to 0),
queueing under the bad preset, the Responses API (/v1/responses: events, usage, previous_response_id),
prefix caching (--enable-prefix-caching: cached tokens in usage and /metrics, shorter prefills), the
modelled GPU power (--gpu-power: DCGM's names on /metrics, the energy counter against the model), and
SIGTERM. HTTPS is tested in test_simulate_tls.py.

Expected token counts follow the documented heuristic (docs/simulator.md): a word of up to 4 ASCII
letters is one token, so "word " * N is N tokens; a token-id prompt is as many tokens as ids.

Usage: test_simulate.py SERVESTAT_BINARY WORK_DIR   (run by ctest)
"""
import asyncio
import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time

from checks import check, metric_value, run_tests, start_simulator

SERVESTAT, WORK = sys.argv[1], sys.argv[2]
MODEL = "Qwen/Qwen2.5-3B-Instruct"
JSON = {"Content-Type": "application/json"}
# vLLM's per-request metrics, in the order of its documentation.
METRICS_KEYS = ["time_to_first_token_ms", "generation_time_ms", "queue_time_ms", "mean_itl_ms", "tokens_per_second"]


class Simulator:
    """A `servestat simulate --port 0` process and the port it printed."""
    count = 0

    def __init__(self, *args):
        Simulator.count += 1
        self.log = open(os.path.join(WORK, f"simulator{Simulator.count}.log"), "w")
        self.proc, self.port = start_simulator(SERVESTAT, self.log, *args)

    def connection(self):
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=20)

    def request(self, method, path, body=None, headers=None):
        """(status, headers, body bytes) on a fresh connection."""
        conn = self.connection()
        try:
            if isinstance(body, (dict, list)):
                body = json.dumps(body)
            conn.request(method, path, body=body, headers=headers if headers is not None else dict(JSON))
            r = conn.getresponse()
            return r.status, r.headers, r.read()
        finally:
            conn.close()

    def post(self, path, body):
        return self.request("POST", path, body)

    def metric(self, name):
        _, _, body = self.request("GET", "/metrics", headers={})
        return metric_value(body.decode(), name)

    def stop(self):
        """Sends SIGTERM; (exit code, seconds to exit)."""
        start = time.monotonic()
        self.proc.send_signal(signal.SIGTERM)
        try:
            rc = self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            rc = self.proc.wait()
        self.log.close()
        return rc, time.monotonic() - start


server = None  # the shared one, --time-scale 50


def events_of(body):
    """The data of each SSE event, in order."""
    text = body.decode() if isinstance(body, bytes) else body
    check(text.endswith("\n\n"), f"stream ends with a blank line: {text[-40:]!r}")
    events = []
    for block in text.split("\n\n"):
        if block:
            check(block.startswith("data: "), f"SSE event starts with 'data: ': {block[:60]!r}")
            events.append(block[len("data: "):])
    return events


def named_events(body):
    """(event name, data) of each event of a Responses stream ("event: NAME\ndata: JSON\n\n")."""
    text = body.decode() if isinstance(body, bytes) else body
    check(text.endswith("\n\n"), f"stream ends with a blank line: {text[-40:]!r}")
    events = []
    for block in text.split("\n\n"):
        if block:
            lines = block.split("\n")
            check(len(lines) == 2 and lines[0].startswith("event: ") and lines[1].startswith("data: "),
                  f"a named SSE event: {block[:80]!r}")
            if len(lines) == 2:
                events.append((lines[0][len("event: "):], lines[1][len("data: "):]))
    return events


RESPONSES_EVENTS = ["response.created", "response.in_progress", "response.output_item.added",
                    "response.content_part.added"]
RESPONSES_END = ["response.output_text.done", "response.content_part.done", "response.output_item.done",
                 "response.completed"]


def metrics_of(obj, where):
    """The `metrics` object of a body, chunk or response object, checked for vLLM's five members."""
    metrics = obj.get("metrics")
    check(isinstance(metrics, dict) and list(metrics) == METRICS_KEYS,
          f"{where}: metrics with vLLM's five members in order: {metrics}")
    return metrics if isinstance(metrics, dict) else {}


def server_e2e(metrics):
    """Queue + prefill + decode in seconds, from a metrics object."""
    return (metrics.get("queue_time_ms", 0) + metrics.get("time_to_first_token_ms", 0) +
            metrics.get("generation_time_ms", 0)) / 1000


def tokenize(body):
    status, _, out = server.post("/tokenize", body)
    check(status == 200, f"/tokenize {body}: status {status}")
    return json.loads(out)["count"]


def chat(content, max_tokens, stream, include_usage=False):
    body = {"model": MODEL, "messages": [{"role": "user", "content": content}], "max_tokens": max_tokens,
            "stream": stream}
    if include_usage:
        body["stream_options"] = {"include_usage": True}
    return body


def error_of(status, body, expected_status, what):
    check(status == expected_status, f"{what}: status {status}, expected {expected_status}: {body[:200]!r}")
    try:
        err = json.loads(body)["error"]
    except (ValueError, KeyError, TypeError):
        check(False, f"{what}: not vLLM's error JSON: {body[:200]!r}")
        return {}
    check(set(err) == {"message", "type", "param", "code"} and err["code"] == expected_status and
          err["param"] is None and isinstance(err["message"], str) and err["message"],
          f"{what}: error shape {err}")
    return err


# ---- the endpoints -------------------------------------------------------------------------------

def test_listening_line_and_models():
    global server
    server = Simulator("--time-scale", "50", "--enable-per-request-metrics")
    status, headers, body = server.request("GET", "/v1/models", headers={})
    check(status == 200 and headers.get("Content-Type") == "application/json", f"/v1/models: {status} {headers}")
    models = json.loads(body)
    check(models.get("object") == "list" and len(models.get("data", [])) == 1, f"/v1/models: {models}")
    card = models["data"][0]
    check(card.get("id") == MODEL and card.get("object") == "model" and card.get("owned_by") == "servestat" and
          card.get("max_model_len") == 4096 and isinstance(card.get("created"), int), f"model card: {card}")


def test_health():
    status, _, body = server.request("GET", "/health", headers={})
    check(status == 200 and body == b"", f"/health: {status} {body!r}")


def test_tokenize_counts_by_the_documented_heuristic():
    check(tokenize({"prompt": "word " * 100}) == 100, "'word ' * 100 is 100 tokens")
    check(tokenize({"prompt": "hello there"}) == 4, "'hello there': two 5-letter words, 2 tokens each")
    status, _, body = server.post("/tokenize", {"model": MODEL, "prompt": "word word word"})
    out = json.loads(body)
    check(status == 200 and out.get("count") == 3 and out.get("max_model_len") == 4096 and
          len(out.get("tokens", [])) == 3 and all(isinstance(t, int) for t in out["tokens"]), f"/tokenize: {out}")
    messages = tokenize({"messages": [{"role": "user", "content": "hello there"}]})
    with_system = tokenize({"messages": [{"role": "system", "content": "be brief"},
                                         {"role": "user", "content": "hello there"}]})
    # The chat template adds tokens around each message and the default system prompt when none is given.
    check(messages > 4 and with_system > 4, f"chat prompts count their template: {messages}, {with_system}")


def test_metrics_names_and_format():
    status, headers, body = server.request("GET", "/metrics", headers={})
    text = body.decode()
    check(status == 200 and headers.get("Content-Type", "").startswith("text/plain; version=0.0.4"),
          f"/metrics: {status} {headers.get('Content-Type')}")
    for name in ["vllm:num_requests_running", "vllm:num_requests_waiting"]:
        sample = re.search(rf'^{name}{{model_name="{re.escape(MODEL)}"}} \d', text, re.M)
        check(f"# TYPE {name} gauge" in text and sample is not None, f"gauge {name}")
    for name in ["vllm:prompt_tokens_total", "vllm:generation_tokens_total"]:
        check(f"# TYPE {name} counter" in text, f"counter {name}")
    for name in ["vllm:time_to_first_token_seconds", "vllm:e2e_request_latency_seconds",
                 "vllm:request_queue_time_seconds", "vllm:request_prefill_time_seconds",
                 "vllm:request_decode_time_seconds"]:
        check(f"# TYPE {name} histogram" in text, f"histogram {name}")
        check(re.search(rf'^{name}_bucket{{model_name="[^"]+",le="\+Inf"}} ', text, re.M) is not None,
              f"{name} has a +Inf bucket")
        check(re.search(rf"^{name}_sum{{", text, re.M) and re.search(rf"^{name}_count{{", text, re.M),
              f"{name} has _sum and _count")


# ---- streaming and whole responses ----------------------------------------------------------------

def test_streamed_chat_event_order_and_usage():
    content = "Name three colours of the rainbow."
    status, headers, body = server.post("/v1/chat/completions", chat(content, 12, True, include_usage=True))
    check(status == 200 and headers.get("Content-Type", "").startswith("text/event-stream"),
          f"stream: {status} {headers}")
    events = events_of(body)
    check(len(events) == 1 + 12 + 1 + 1, f"role + 12 tokens + usage + [DONE]: {len(events)} events")
    if len(events) != 15:
        return
    chunks = [json.loads(e) for e in events[:-1]]
    check(events[-1] == "[DONE]", f"last event: {events[-1]!r}")
    check(chunks[0]["choices"][0]["delta"] == {"role": "assistant", "content": ""}, f"role chunk: {chunks[0]}")
    tokens = chunks[1:13]
    ids = {c["id"] for c in chunks}
    check(len(ids) == 1 and ids.pop().startswith("chatcmpl-"), "one chatcmpl- id across the stream")
    check(all(c["object"] == "chat.completion.chunk" and c["model"] == MODEL for c in chunks), "chunk object/model")
    check(all(set(c["choices"][0]["delta"]) == {"content"} and c["choices"][0]["delta"]["content"] for c in tokens),
          "content chunks carry only non-empty content")
    check(all(c["choices"][0]["finish_reason"] is None for c in tokens[:-1]) and
          tokens[-1]["choices"][0]["finish_reason"] == "length", "finish_reason only on the last token, 'length'")
    check(not any("metrics" in c for c in chunks[:13]), "no metrics in the role and content chunks")
    usage_chunk = chunks[13]
    metrics = metrics_of(usage_chunk, "the usage chunk")
    check(metrics.get("time_to_first_token_ms", 0) > 0 and metrics.get("generation_time_ms", 0) > 0 and
          metrics.get("queue_time_ms", -1) >= 0, f"the usage chunk's metrics: {metrics}")
    prompt_tokens = tokenize({"messages": [{"role": "user", "content": content}]})
    check(usage_chunk["choices"] == [] and usage_chunk["usage"] == {
        "prompt_tokens": prompt_tokens, "total_tokens": prompt_tokens + 12, "completion_tokens": 12},
        f"usage chunk {usage_chunk} (prompt {prompt_tokens} by /tokenize)")
    text = "".join(c["choices"][0]["delta"]["content"] for c in tokens)
    check(tokenize({"prompt": text}) == 12, f"12 output tokens count as 12: {text!r}")


def test_streamed_completion_uses_text_and_no_usage_unless_asked():
    status, _, body = server.post("/v1/completions",
                                  {"model": MODEL, "prompt": "word " * 10, "max_tokens": 5, "stream": True})
    events = events_of(body)
    check(status == 200 and len(events) == 6 and events[-1] == "[DONE]", f"5 chunks + [DONE]: {events}")
    chunks = [json.loads(e) for e in events[:-1]]
    check(all(c["object"] == "text_completion" and c["choices"][0]["text"] for c in chunks), f"text chunks: {chunks}")
    check(chunks[-1]["choices"][0]["finish_reason"] == "length" and not any("metrics" in c for c in chunks),
          f"final chunk, and no metrics without the usage chunk: {chunks[-1]}")


def test_whole_response_usage_and_metrics():
    content = "hello there"
    status, headers, body = server.post("/v1/chat/completions", chat(content, 7, False))
    out = json.loads(body)
    prompt_tokens = tokenize({"messages": [{"role": "user", "content": content}]})
    check(status == 200 and out.get("object") == "chat.completion", f"whole chat: {status} {out}")
    check(out["usage"] == {"prompt_tokens": prompt_tokens, "total_tokens": prompt_tokens + 7, "completion_tokens": 7},
          f"usage {out['usage']}")
    choice = out["choices"][0]
    check(choice["message"]["role"] == "assistant" and choice["finish_reason"] == "length", f"choice {choice}")
    check(tokenize({"prompt": choice["message"]["content"]}) == 7, "the content is 7 tokens")
    metrics = metrics_of(out, "whole chat body")
    check(metrics.get("queue_time_ms", -1) >= 0 and metrics.get("time_to_first_token_ms", 0) > 0 and
          metrics.get("generation_time_ms", 0) > 0, f"metrics {metrics}")
    check(not any(name.lower().startswith("x-servestat") for name in headers), f"no private headers: {headers}")
    # A completion without max_tokens gets vLLM's default of 16.
    status, _, body = server.post("/v1/completions", {"model": MODEL, "prompt": "word"})
    out = json.loads(body)
    check(status == 200 and out["usage"]["completion_tokens"] == 16 and out["usage"]["prompt_tokens"] == 1,
          f"completion default max_tokens: {out.get('usage')}")


def test_keep_alive_serves_many_requests_on_one_connection():
    conn = server.connection()
    sockets = set()
    for method, path, body in [("GET", "/v1/models", None), ("POST", "/v1/chat/completions", chat("hi", 3, False)),
                               ("POST", "/v1/chat/completions", chat("hi", 3, True)), ("GET", "/health", None),
                               ("POST", "/v1/completions", {"prompt": "x", "max_tokens": 2})]:
        conn.request(method, path, body=json.dumps(body) if body else None, headers=dict(JSON))
        r = conn.getresponse()
        r.read()
        check(r.status == 200 and not r.will_close, f"{method} {path}: {r.status}, will_close {r.will_close}")
        sockets.add(id(conn.sock))
    check(len(sockets) == 1, "one connection for all requests")
    conn.close()


def test_context_overflow_is_vllms_400():
    # "word " * 4030 is 4030 tokens; 4030 + 128 > 4096: the notebook's Experiment 1 failure.
    prompt = "word " * 4030
    check(tokenize({"prompt": prompt}) == 4030, "the prompt is 4030 tokens")
    status, _, body = server.post("/v1/completions", {"model": MODEL, "prompt": prompt, "max_tokens": 128})
    err = error_of(status, body, 400, "overflow")
    check(err.get("type") == "BadRequestError" and err.get("message") ==
          "'max_tokens' or 'max_completion_tokens' is too large: 128. This model's maximum context length is 4096 "
          "tokens and your request has 4030 input tokens (128 > 4096 - 4030).", f"overflow message: {err}")
    status, _, body = server.post("/v1/completions", {"model": MODEL, "prompt": [7] * 4100, "max_tokens": 1})
    err = error_of(status, body, 400, "prompt over the context")
    check(err.get("message") == "This model's maximum context length is 4096 tokens. However, your request has 4100 "
          "input tokens. Please reduce the length of the input messages.", f"prompt-only overflow: {err}")
    # One token left: it fits.
    status, _, body = server.post("/v1/completions", {"model": MODEL, "prompt": [7] * 4095, "max_tokens": 1})
    check(status == 200, f"4095 + 1 fits: {status} {body[:200]!r}")


# ---- the Responses API ---------------------------------------------------------------------------

def test_responses_stream_events_and_usage():
    # "Name three colours of the rainbow." is 10 tokens (Name 1, three 2, colours 2, of 1, the 1,
    # rainbow 2, "." 1); as one user message: 3 + (5 + 10) + the default system message (5 + 21) = 44.
    content = "Name three colours of the rainbow."
    status, headers, body = server.post("/v1/responses", {"model": MODEL, "input": content,
                                                          "max_output_tokens": 12, "stream": True})
    check(status == 200 and headers.get("Content-Type", "").startswith("text/event-stream"),
          f"responses stream: {status} {headers}")
    check(b"[DONE]" not in body, "a Responses stream has no [DONE]")
    events = named_events(body)
    names = [name for name, _ in events]
    check(names == RESPONSES_EVENTS + ["response.output_text.delta"] * 12 + RESPONSES_END, f"event order: {names}")
    if len(events) != 20:
        return
    data = [json.loads(d) for _, d in events]
    check(all(d["type"] == name and d["sequence_number"] == i for i, (d, name) in enumerate(zip(data, names))),
          "each event's type is its name, sequence numbers 0, 1, 2, ...")
    created = data[0]["response"]
    check(created["status"] == "in_progress" and created["output"] == [] and created["usage"] is None and
          created["id"].startswith("resp_") and created["object"] == "response" and created["model"] == MODEL,
          f"response.created: {created}")
    item_id = data[2]["item"]["id"]
    deltas = data[4:16]
    check(item_id.startswith("msg_") and all(d["item_id"] == item_id and d["output_index"] == 0 and
                                             d["content_index"] == 0 for d in deltas), "deltas name the item")
    text = "".join(d["delta"] for d in deltas)
    check(tokenize({"prompt": text}) == 12, f"12 deltas of one token each: {text!r}")
    check(data[16]["text"] == text and data[17]["part"]["text"] == text and
          data[18]["item"]["content"][0]["text"] == text and data[18]["item"]["status"] == "completed",
          "the done events carry the whole text")
    completed = data[19]
    response = completed["response"]
    check(response["id"] == created["id"] and response["status"] == "completed" and
          response["output"][0]["content"][0]["text"] == text and response["output"][0]["role"] == "assistant",
          f"response.completed: {response}")
    check(response["usage"] == {"input_tokens": 44, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 12,
                                "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 56},
          f"usage {response['usage']}")
    metrics = metrics_of(response, "response.completed's response")
    check(metrics.get("time_to_first_token_ms", 0) > 0 and metrics.get("generation_time_ms", 0) > 0,
          f"metrics in response.completed's response: {metrics}")
    check("metrics" not in completed and not any("metrics" in d or "metrics" in d.get("response", {})
                                                  for d in data[:19]),
          "no metrics at response.completed's top level, nor in any earlier event")
    # The same prompt through the chat endpoint counts the same.
    _, _, out = server.post("/v1/chat/completions", chat(content, 12, False))
    check(json.loads(out)["usage"]["prompt_tokens"] == 44, "chat counts the same prompt as 44 tokens")
    check(tokenize({"messages": [{"role": "user", "content": content}]}) == 44, "/tokenize agrees")


def test_responses_whole_previous_response_id_and_errors():
    # "hello there" (hello 2, there 2): 3 + (5 + 4) + 26 = 38 input tokens.
    status, headers, body = server.post("/v1/responses", {"model": MODEL, "input": "hello there",
                                                          "max_output_tokens": 7})
    first = json.loads(body)
    check(status == 200 and first.get("object") == "response" and first.get("status") == "completed",
          f"whole response: {status} {body[:300]!r}")
    check(first["usage"] == {"input_tokens": 38, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 7,
                             "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 45},
          f"usage {first['usage']}")
    metrics_of(first, "whole response")
    reply = first["output"][0]["content"][0]["text"]
    check(tokenize({"prompt": reply}) == 7, f"the reply is 7 tokens: {reply!r}")
    # The next turn renders [user "hello there", assistant reply, user "and then"]: the first input,
    # the reply as an assistant message (5 + 7) and the new message (5 + 2): 38 + 12 + 7 = 57.
    status, _, body = server.post("/v1/responses", {"input": "and then", "previous_response_id": first["id"],
                                                    "max_output_tokens": 3})
    second = json.loads(body)
    check(status == 200 and second["usage"]["input_tokens"] == 57 and second["previous_response_id"] == first["id"],
          f"previous_response_id continues the conversation: {status} {second.get('usage')}")
    # ... and a third turn continues the second's whole conversation: 57 + (5 + 3) + (5 + 1) = 71.
    status, _, body = server.post("/v1/responses", {"input": "ok", "previous_response_id": second["id"],
                                                    "max_output_tokens": 1})
    check(status == 200 and json.loads(body)["usage"]["input_tokens"] == 71, f"third turn: {body[:300]!r}")
    # instructions are a system message, which replaces Qwen's default: 3 + (5 + 4) + (5 + 1) = 18.
    status, _, body = server.post("/v1/responses", {"input": "Hi", "instructions": "Be brief.",
                                                    "max_output_tokens": 2})
    out = json.loads(body)
    check(status == 200 and out["usage"]["input_tokens"] == 18 and out["instructions"] == "Be brief.",
          f"instructions: {body[:300]!r}")
    # Message lists with input_text parts count as chat messages do.
    status, _, body = server.post("/v1/responses", {"input": [{"role": "user", "content": [
        {"type": "input_text", "text": "hello there"}]}], "max_output_tokens": 1})
    check(status == 200 and json.loads(body)["usage"]["input_tokens"] == 38, f"input_text parts: {body[:300]!r}")
    # Unknown and unstored responses: vLLM's 404.
    status, _, body = server.post("/v1/responses", {"input": "x", "previous_response_id": "resp_nope"})
    err = error_of(status, body, 404, "unknown previous_response_id")
    check(err.get("type") == "invalid_request_error" and err.get("message") == "Response with id 'resp_nope' not found.",
          f"unknown previous_response_id: {err}")
    status, _, body = server.post("/v1/responses", {"input": "x", "store": False, "max_output_tokens": 1})
    unstored = json.loads(body)["id"]
    status, _, body = server.post("/v1/responses", {"input": "y", "previous_response_id": unstored})
    error_of(status, body, 404, "store: false keeps nothing")
    # max_output_tokens beyond the context is capped, as vLLM does: 3 + (5 + 4000) + 26 = 4034 leaves 62.
    status, _, body = server.post("/v1/responses", {"input": "word " * 4000, "max_output_tokens": 500})
    out = json.loads(body)
    check(status == 200 and out["usage"]["output_tokens"] == 62 and out["max_output_tokens"] == 62,
          f"capped max_output_tokens: {status} {out.get('usage')}")
    # A prompt that fills the context: 3 + (5 + 4100) + 26 = 4134.
    status, _, body = server.post("/v1/responses", {"input": "word " * 4100})
    err = error_of(status, body, 400, "responses prompt over the context")
    check(err.get("message") == "This model's maximum context length is 4096 tokens. However, your request has 4134 "
          "input tokens. Please reduce the length of the input messages.", f"overflow message: {err}")
    for body, expected, what in [({"model": MODEL}, 400, "no input"), ({"input": []}, 400, "empty input"),
                                 ({"input": "x", "model": "gpt-4"}, 404, "unknown model"),
                                 ({"input": "x", "tools": [{"type": "function", "name": "f"}]}, 400, "tools")]:
        status, _, out = server.post("/v1/responses", body)
        error_of(status, out, expected, f"responses: {what}")
    status, headers, out = server.request("GET", "/v1/responses", headers={})
    error_of(status, out, 405, "GET /v1/responses")
    check(headers.get("Allow") == "POST", f"Allow: {headers.get('Allow')}")


# ---- vLLM's per-request metrics -------------------------------------------------------------------

def close_to(value, expected, tolerance):
    return isinstance(value, (int, float)) and abs(value - expected) <= tolerance


def stream_chunks(body):
    """The JSON chunks of a chat or completions stream, after checking that it ends with [DONE]."""
    events = events_of(body)
    check(events and events[-1] == "[DONE]", f"the stream ends with [DONE]: {events[-2:]}")
    return [json.loads(e) for e in events if e != "[DONE]"]


def test_per_request_metrics_follow_vllms_doc():
    """vLLM's docs/features/per_request_metrics.md member by member: names, ms, nulls and placement,
    against the cost model worked out by hand and the scheduler's own account (its /metrics)."""
    sim = Simulator("--time-scale", "50", "--enable-per-request-metrics")
    try:
        # "hello there" as one user message is 38 prompt tokens; alone on the engine its prefill is one
        # step of 0.004 + 0.0001 * 38 = 0.0078 s and each of 6 more tokens a decode step of
        # 0.004 + 0.0004 = 0.0044 s (0.0264 s), simulated seconds / 50 on the client's clock:
        # TTFT from scheduling 0.156 ms, generation 0.528 ms, no queue, mean ITL 0.528 / 6 = 0.088 ms,
        # 7 tokens / 0.684 ms = 10233.918 tokens/s.
        status, _, out = sim.post("/v1/chat/completions", chat("hello there", 7, False))
        check(status == 200, f"whole chat: {status} {out[:200]!r}")
        answer = json.loads(out)
        whole = metrics_of(answer, "whole chat body")
        check(list(answer)[-2:] == ["usage", "metrics"], f"metrics at the top level after usage: {list(answer)}")
        for key, expected, tolerance in [("time_to_first_token_ms", 0.156, 1e-9), ("generation_time_ms", 0.528, 1e-9),
                                         ("queue_time_ms", 0.0, 0), ("mean_itl_ms", 0.088, 1e-9),
                                         ("tokens_per_second", 10233.918, 0.0015)]:
            check(close_to(whole.get(key), expected, tolerance), f"{key}: {whole.get(key)}, worked out {expected}")
        check(all(isinstance(v, float) for v in whole.values()), f"numbers written as floats: {out[-200:]!r}")
        # The scheduler's account of the same (only) request: its histograms' sums, in seconds. vLLM's
        # TTFT histogram counts from arrival, the metrics object from scheduling: the queue is apart.
        _, _, text = sim.request("GET", "/metrics", headers={})
        text = text.decode()
        for key, name in [("queue_time_ms", "vllm:request_queue_time_seconds_sum"),
                          ("time_to_first_token_ms", "vllm:request_prefill_time_seconds_sum"),
                          ("generation_time_ms", "vllm:request_decode_time_seconds_sum")]:
            seconds = metric_value(text, name)
            check(seconds is not None and close_to(whole.get(key, -1) / 1000, seconds, 0.5e-6),
                  f"{key} {whole.get(key)} ms is {name} {seconds} s")
        ttft = metric_value(text, "vllm:time_to_first_token_seconds_sum")
        check(ttft is not None and close_to((whole.get("queue_time_ms", 0) + whole.get("time_to_first_token_ms", 0)) / 1000,
                                            ttft, 1e-6), f"queue + TTFT from scheduling = vLLM's TTFT {ttft} s")

        # One output token: no gap to average, mean_itl_ms null (not 0); 1 token / 0.156 ms.
        status, _, out = sim.post("/v1/chat/completions", chat("hello there", 1, False))
        one = metrics_of(json.loads(out), "one-token chat")
        check(one.get("mean_itl_ms", "absent") is None and one.get("generation_time_ms") == 0.0 and
              close_to(one.get("time_to_first_token_ms"), 0.156, 1e-9) and
              close_to(one.get("tokens_per_second"), 6410.256, 0.0015), f"max_tokens 1: {one}")

        # A stream with include_usage: the metrics in the final usage chunk only; the same request's
        # numbers as the whole body's.
        status, _, out = sim.post("/v1/chat/completions", chat("hello there", 7, True, include_usage=True))
        chunks = stream_chunks(out)
        check(len(chunks) == 1 + 7 + 1 and chunks[-1]["choices"] == [] and "usage" in chunks[-1],
              f"role + 7 tokens + usage: {len(chunks)} chunks")
        check(not any("metrics" in c for c in chunks[:-1]), "no metrics in the role and content chunks")
        streamed = metrics_of(chunks[-1], "the usage chunk")
        check(all(close_to(streamed.get(k), v, 1e-6) for k, v in whole.items() if v is not None),
              f"the stream's metrics {streamed} are the whole body's {whole}")
        # Without include_usage there is no usage chunk and so no metrics (vLLM has nowhere else to put them).
        status, _, out = sim.post("/v1/chat/completions", chat("hello there", 7, True))
        chunks = stream_chunks(out)
        check(len(chunks) == 1 + 7 and not any("metrics" in c or "usage" in c for c in chunks),
              f"no usage chunk, no metrics: {chunks[-1]}")

        # Completions: the same object, at the top level of the body and in the usage chunk.
        body = {"model": MODEL, "prompt": "word " * 10, "max_tokens": 5}
        status, _, out = sim.post("/v1/completions", body)
        completion = json.loads(out)
        metrics = metrics_of(completion, "whole completion")
        check(list(completion)[-2:] == ["usage", "metrics"] and
              close_to(metrics.get("mean_itl_ms"), metrics.get("generation_time_ms", 0) / 4, 0.001),
              f"completion metrics, mean ITL = generation / 4 gaps: {metrics}")
        status, _, out = sim.post("/v1/completions", {**body, "stream": True, "stream_options": {"include_usage": True}})
        chunks = stream_chunks(out)
        check(len(chunks) == 6 and not any("metrics" in c for c in chunks[:-1]), "completion chunks carry none")
        metrics_of(chunks[-1], "the completion stream's usage chunk")

        # The Responses API: inside response.completed's response when streamed, nowhere else; at the
        # top level of the response object when not.
        status, _, out = sim.post("/v1/responses", {"input": "hello there", "max_output_tokens": 7, "stream": True})
        data = [json.loads(d) for _, d in named_events(out)]
        check(data and data[-1]["type"] == "response.completed", "the stream ends with response.completed")
        if data:
            streamed = metrics_of(data[-1].get("response", {}), "response.completed's response")
            check(close_to(streamed.get("time_to_first_token_ms"), 0.156, 1e-9) and
                  close_to(streamed.get("generation_time_ms"), 0.528, 1e-9),
                  f"the Responses stream's metrics are the same request's: {streamed}")
            check("metrics" not in data[-1] and
                  not any("metrics" in d or "metrics" in d.get("response", {}) for d in data[:-1]),
                  "no metrics at the event's top level, nor in response.created, in_progress or the others")
        status, _, out = sim.post("/v1/responses", {"input": "hello there", "max_output_tokens": 1})
        response = json.loads(out)
        metrics = metrics_of(response, "whole response")
        check(list(response)[-1] == "metrics" and metrics.get("mean_itl_ms", "absent") is None,
              f"whole response: metrics last, mean ITL null for one token: {list(response)[-3:]} {metrics}")
    finally:
        rc, _ = sim.stop()
        check(rc == 0, f"exit {rc}")


def test_no_metrics_unless_asked_and_forced_usage():
    # --enable-force-include-usage alone: every stream ends with the usage chunk, nothing has metrics
    # (vLLM without --enable-per-request-metrics), and no private timings are left anywhere.
    sim = Simulator("--time-scale", "50", "--enable-force-include-usage")
    try:
        status, headers, out = sim.post("/v1/chat/completions", chat("hello there", 3, False))
        check(status == 200 and "metrics" not in json.loads(out) and b"servestat_timings" not in out and
              not any(name.lower().startswith("x-servestat") for name in headers),
              f"whole chat without the flag: {out[-200:]!r} {dict(headers)}")
        status, _, out = sim.post("/v1/chat/completions", chat("hello there", 3, True))
        chunks = stream_chunks(out)
        check(len(chunks) == 1 + 3 + 1 and chunks[-1].get("usage", {}).get("completion_tokens") == 3,
              f"the usage chunk without stream_options: {chunks[-1]}")
        check(not any("metrics" in c for c in chunks) and b"servestat_timings" not in out, "no metrics in the stream")
        status, _, out = sim.post("/v1/completions", {"prompt": "word word", "max_tokens": 2, "stream": True})
        chunks = stream_chunks(out)
        check(len(chunks) == 3 and "usage" in chunks[-1] and "metrics" not in chunks[-1], f"completion: {chunks[-1]}")
        for stream in (False, True):
            status, _, out = sim.post("/v1/responses", {"input": "hi", "max_output_tokens": 2, "stream": stream})
            check(status == 200 and b'"metrics"' not in out and b"servestat_timings" not in out,
                  f"Responses (stream {stream}) without the flag: {out[-200:]!r}")
    finally:
        sim.stop()
    sim = Simulator("--time-scale", "50", "--enable-force-include-usage", "--enable-per-request-metrics")
    try:
        status, _, out = sim.post("/v1/chat/completions", chat("hello there", 3, True))
        chunks = stream_chunks(out)
        check(len(chunks) == 1 + 3 + 1 and not any("metrics" in c for c in chunks[:-1]), f"{len(chunks)} chunks")
        metrics_of(chunks[-1], "the forced usage chunk")
    finally:
        sim.stop()


def test_prefix_caching_over_http():
    sim = Simulator("--time-scale", "50", "--enable-prefix-caching", "--enable-per-request-metrics")
    try:
        def responses(body):
            status, _, out = sim.post("/v1/responses", body)
            check(status == 200, f"responses {body}: {status} {out[:200]!r}")
            return json.loads(out)

        # Turn 1 (38 input tokens, nothing cached yet) ends with 38 + 7 + 2 (<|im_end|>, newline) = 47
        # tokens in the cache: 2 full blocks of 16. Turn 2 (57 tokens) finds both: 32 cached.
        first = responses({"input": "hello there", "max_output_tokens": 7})
        check(first["usage"]["input_tokens_details"] == {"cached_tokens": 0}, f"turn 1: {first['usage']}")
        second = responses({"input": "and then", "previous_response_id": first["id"], "max_output_tokens": 3})
        check(second["usage"]["input_tokens"] == 57 and second["usage"]["input_tokens_details"] == {"cached_tokens": 32},
              f"turn 2 hits turn 1's blocks: {second['usage']}")
        # A chat prompt of 100 words: 3 + (5 + 100) + 26 = 134 tokens. Its first block (16 tokens of
        # Qwen's default system message) is every default chat prompt's, so even the first one hits
        # 16; the same prompt again finds its 8 full blocks, (134 - 1) // 16 = 8: 128 cached.
        content = "word " * 100
        results = []
        for _ in range(2):
            status, headers, out = sim.post("/v1/chat/completions", chat(content, 4, False))
            check(status == 200, f"chat: {status} {out[:200]!r}")
            answer = json.loads(out)
            results.append((answer["usage"], metrics_of(answer, "chat").get("time_to_first_token_ms", 0) / 1000))
        (usage1, prefill1), (usage2, prefill2) = results
        check(usage1 == {"prompt_tokens": 134, "total_tokens": 138, "completion_tokens": 4,
                         "prompt_tokens_details": {"cached_tokens": 16}}, f"chat 1: {usage1}")
        check(usage2["prompt_tokens_details"] == {"cached_tokens": 128}, f"chat 2: {usage2}")
        # Prefill = one step: 0.004 + 0.0001 per uncached token, simulated seconds / 50.
        check(abs(prefill1 - (0.004 + 0.0001 * 118) / 50) < 2e-6, f"chat 1 prefill {prefill1}")
        check(abs(prefill2 - (0.004 + 0.0001 * 6) / 50) < 2e-6, f"chat 2 prefill {prefill2}")
        # vLLM's counters, in tokens: queries 38 + 57 + 134 + 134, hits 0 + 32 + 16 + 128.
        check(sim.metric("vllm:prefix_cache_queries_total") == 363.0, "vllm:prefix_cache_queries_total")
        check(sim.metric("vllm:prefix_cache_hits_total") == 176.0, "vllm:prefix_cache_hits_total")
    finally:
        rc, _ = sim.stop()
        check(rc == 0, f"exit {rc}")
    # Off (the shared server): no prompt_tokens_details, no prefix-cache metrics.
    check(server.metric("vllm:prefix_cache_queries_total") is None, "no prefix-cache counters with caching off")


# ---- robustness ----------------------------------------------------------------------------------

def raw_exchange(port, data, read_timeout=5):
    """Sends raw bytes, returns everything read until the server closes or goes quiet."""
    with socket.create_connection(("127.0.0.1", port), timeout=read_timeout) as s:
        s.sendall(data)
        out = b""
        try:
            while True:
                part = s.recv(65536)
                if not part:
                    break
                out += part
        except socket.timeout:
            pass
    return out


def test_bad_requests_get_4xx_and_the_server_keeps_serving():
    cases = [
        ("POST", "/v1/chat/completions", '{"messages": [', JSON, 400, "malformed JSON"),
        ("POST", "/v1/chat/completions", "[1, 2]", JSON, 400, "not an object"),
        ("POST", "/v1/chat/completions", json.dumps(chat("hi", 2, False)), {"Content-Type": "text/plain"}, 415,
         "wrong content type"),
        ("POST", "/v1/chat/completions", json.dumps(chat("hi", 2, False)), {}, 415, "no content type"),
        ("POST", "/v1/chat/completions", json.dumps({"model": MODEL, "max_tokens": 2}), JSON, 400, "no messages"),
        ("POST", "/v1/chat/completions", json.dumps({"messages": "hi"}), JSON, 400, "messages not a list"),
        ("POST", "/v1/chat/completions", json.dumps(chat("hi", 0, False)), JSON, 400, "max_tokens 0"),
        ("POST", "/v1/chat/completions", json.dumps(chat("hi", "many", False)), JSON, 400, "max_tokens a string"),
        ("POST", "/v1/completions", json.dumps({"model": MODEL, "max_tokens": 2}), JSON, 400, "no prompt"),
        ("POST", "/v1/completions", json.dumps({"prompt": ""}), JSON, 400, "empty prompt"),
        ("POST", "/tokenize", json.dumps({"model": MODEL}), JSON, 400, "tokenize without prompt"),
        ("POST", "/v1/chat/completions", json.dumps({**chat("hi", 2, False), "model": "gpt-4"}), JSON, 404,
         "unknown model"),
        ("GET", "/v2/everything", None, {}, 404, "unknown path"),
        ("GET", "/v1/chat/completions", None, {}, 405, "GET on a POST route"),
        ("POST", "/v1/models", "{}", JSON, 405, "POST on a GET route"),
        ("POST", "/v1/chat/completions", "{" + " " * (1 << 20) + "}", JSON, 413, "body over --max-body-bytes"),
    ]
    for method, path, body, headers, expected, what in cases:
        try:
            status, got_headers, out = server.request(method, path, body, headers)
        except (OSError, http.client.HTTPException) as e:
            check(False, f"{what}: {e!r}")
            continue
        err = error_of(status, out, expected, what)
        if expected == 405:
            check(got_headers.get("Allow") in ("GET", "POST"), f"{what}: Allow header {got_headers.get('Allow')}")
        if what == "unknown model":
            check(err.get("message") == "The model `gpt-4` does not exist.", f"unknown model message: {err}")
    # Not HTTP at all: a 400 and a closed connection.
    out = raw_exchange(server.port, b"HELLO THERE\r\n\r\n")
    check(out.startswith(b"HTTP/1.1 400"), f"garbage request: {out[:80]!r}")
    # A chunked body over the limit is cut off while it is read.
    big = b"{" + b" " * (1 << 20) + b"}"
    request = (b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
               b"Transfer-Encoding: chunked\r\n\r\n" + b"%x\r\n" % len(big) + big + b"\r\n0\r\n\r\n")
    out = raw_exchange(server.port, request)
    check(out.startswith(b"HTTP/1.1 413"), f"chunked body over the limit: {out[:80]!r}")
    # Expect: 100-continue is answered before the body is sent.
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as s:
        body = json.dumps(chat("hi", 2, False)).encode()
        s.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                  b"Expect: 100-continue\r\nContent-Length: %d\r\n\r\n" % len(body))
        interim = s.recv(4096)
        check(interim.startswith(b"HTTP/1.1 100 Continue\r\n\r\n"), f"100 Continue: {interim!r}")
        s.sendall(body)
        final = interim[len(b"HTTP/1.1 100 Continue\r\n\r\n"):] + s.recv(65536)
        check(final.startswith(b"HTTP/1.1 200"), f"after 100 Continue: {final[:80]!r}")
    status, _, out = server.post("/v1/chat/completions", chat("still there?", 3, False))
    check(status == 200 and json.loads(out)["usage"]["completion_tokens"] == 3, "a normal request after the bad ones")


def dechunk(raw):
    """(status line, body) of a raw HTTP/1.1 response with a chunked body."""
    head, _, rest = raw.partition(b"\r\n\r\n")
    body = b""
    while rest:
        size_line, _, rest = rest.partition(b"\r\n")
        size = int(size_line, 16)
        if size == 0:
            break
        body += rest[:size]
        rest = rest[size + 2:]
    return head.split(b"\r\n", 1)[0], body


def test_500_concurrent_streams_all_complete():
    n, max_tokens = 500, 8
    payload = json.dumps(chat("How many streams?", max_tokens, True, include_usage=True)).encode()
    request = (b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
               b"Connection: close\r\nContent-Length: %d\r\n\r\n" % len(payload)) + payload

    async def one():
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        writer.write(request)
        await writer.drain()
        raw = await reader.read()  # to EOF: the server closes after the stream (Connection: close)
        writer.close()
        status, body = dechunk(raw)
        events = body.decode().split("\n\n")[:-1]
        contents = [e for e in events if e.startswith("data: {") and '"delta":{"content":' in e]
        return status == b"HTTP/1.1 200 OK" and len(contents) == max_tokens and events[-1] == "data: [DONE]"

    async def all_of_them():
        return await asyncio.wait_for(asyncio.gather(*(one() for _ in range(n)), return_exceptions=True), 60)

    results = asyncio.run(all_of_them())
    good = sum(1 for r in results if r is True)
    errors = [r for r in results if isinstance(r, BaseException)][:3]
    check(good == n, f"{good} of {n} streams complete with {max_tokens} content chunks; errors {errors}")
    check(server.metric("vllm:num_requests_running") == 0 and server.metric("vllm:num_requests_waiting") == 0,
          "nothing left in the engine")


def wait_for_metric(sim, name, value, seconds=5):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if sim.metric(name) == value:
            return True
        time.sleep(0.02)
    return False


def start_stream(port, max_tokens, path="/v1/chat/completions"):
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    if path == "/v1/responses":
        body = {"input": "a long answer please", "max_output_tokens": max_tokens, "stream": True}
    else:
        body = chat("a long answer please", max_tokens, True)
    payload = json.dumps(body).encode()
    s.sendall(b"POST " + path.encode() + b" HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
              b"Content-Length: %d\r\n\r\n" % len(payload) + payload)
    return s


def test_vanished_clients_are_cancelled_and_the_server_goes_on():
    # Real time and one sequence at a time: a 4000-token answer takes ~18 s, so the first client is
    # mid-stream and the second one still queued when they hang up.
    sim = Simulator("--time-scale", "1", "--max-num-seqs", "1")
    try:
        first = start_stream(sim.port, 4000)
        seen = b""
        while seen.count(b"data: ") < 4:
            seen += first.recv(65536)
        second = start_stream(sim.port, 4000)
        check(wait_for_metric(sim, "vllm:num_requests_waiting", 1), "the second request waits")
        check(sim.metric("vllm:num_requests_running") == 1, "the first request runs")
        second.close()  # queued, no byte of it sent yet: the server notices from the socket alone
        check(wait_for_metric(sim, "vllm:num_requests_waiting", 0), "the vanished queued request leaves the queue")
        first.close()
        check(wait_for_metric(sim, "vllm:num_requests_running", 0), "the vanished stream is cancelled")
        status, _, body = sim.post("/v1/chat/completions", chat("anyone?", 3, False))
        check(status == 200 and json.loads(body)["usage"]["completion_tokens"] == 3, "serves after the hang-ups")
        # A Responses stream whose client goes away is cancelled too.
        responses = start_stream(sim.port, 4000, path="/v1/responses")
        seen = b""
        while seen.count(b"response.output_text.delta") < 3:
            seen += responses.recv(65536)
        check(sim.metric("vllm:num_requests_running") == 1, "the Responses stream runs")
        responses.close()
        check(wait_for_metric(sim, "vllm:num_requests_running", 0), "the vanished Responses stream is cancelled")
        # A client that stops reading delays only itself.
        slow = start_stream(sim.port, 50)
        status, _, _ = sim.post("/v1/chat/completions", chat("me too", 2, False))
        check(status == 200, "a request beside a client that does not read")
        slow.close()
    finally:
        rc, _ = sim.stop()
        check(rc == 0, f"exit {rc}")


def e2e_by_metrics(sim, body):
    status, _, out = sim.post("/v1/completions", body)
    check(status == 200, f"timed request: {status} {out[:200]!r}")
    return server_e2e(metrics_of(json.loads(out), "timed request")) if status == 200 else 0.0


def test_bad_preset_queues_at_higher_concurrency():
    # 3000-token prompts under --long-prefill-token-threshold 1024 and 8192 batched tokens: alone a
    # prompt prefills in 3 short steps; eight at once share every step, which gets 8x as long.
    sim = Simulator("--preset", "l4-qwen2.5-3b-bad", "--time-scale", "50", "--enable-per-request-metrics")
    try:
        body = {"model": MODEL, "prompt": "word " * 3000, "max_tokens": 16}
        alone = [e2e_by_metrics(sim, body) for _ in range(4)]
        together = [0.0] * 8
        barrier = threading.Barrier(8)

        def client(i):
            barrier.wait()
            together[i] = e2e_by_metrics(sim, body)

        threads = [threading.Thread(target=client, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        mean1, mean8 = sum(alone) / len(alone), sum(together) / len(together)
        check(mean8 > 1.5 * mean1, f"server e2e at c=8 ({mean8:.4f} s) well above c=1 ({mean1:.4f} s)")
    finally:
        sim.stop()


def test_kv_cache_capacity_preempts_and_metrics_show_it():
    # 64 usable blocks of 16 (--kv-cache-tokens 1040: 65, one the null block); 8 requests of 100 prompt
    # tokens and 150 output tokens need up to 16 blocks each, 128 in all: the latest admitted are
    # preempted, recompute, and every request still completes with all its tokens. Each request lasts
    # ~0.2 s of wall time (time scale 5), so the 8 overlap however the threads are scheduled.
    sim = Simulator("--kv-cache-tokens", "1040", "--max-model-len", "256", "--time-scale", "5")
    try:
        body = {"model": MODEL, "prompt": "word " * 100, "max_tokens": 150}
        results = [None] * 8
        barrier = threading.Barrier(8)

        def client(i):
            barrier.wait()
            results[i] = sim.post("/v1/completions", body)

        threads = [threading.Thread(target=client, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for status, _, out in results:
            check(status == 200 and json.loads(out)["usage"]["completion_tokens"] == 150,
                  f"a request under KV pressure completes: {status} {out[:200]!r}")
        _, _, text = sim.request("GET", "/metrics", headers={})
        text = text.decode()
        check("# TYPE vllm:kv_cache_usage_perc gauge" in text and "# TYPE vllm:num_preemptions_total counter" in text,
              "KV-cache gauge and preemption counter with their TYPE lines")
        check(metric_value(text, "vllm:num_preemptions_total") > 0,
              f"preemptions counted: {metric_value(text, 'vllm:num_preemptions_total')}")
        check(metric_value(text, "vllm:kv_cache_usage_perc") == 0, "the cache is empty once all finished")
    finally:
        sim.stop()
    # Unlimited (the shared server, no preset): no usage to report, no preemption.
    check(server.metric("vllm:kv_cache_usage_perc") is None and server.metric("vllm:num_preemptions_total") == 0,
          "unlimited capacity: no kv_cache_usage_perc, num_preemptions_total 0")
    res = subprocess.run([SERVESTAT, "simulate", "--kv-cache-tokens", "4096"], capture_output=True, text=True)
    check(res.returncode == 2 and "kv_cache_tokens" in res.stderr,
          f"a KV cache smaller than max_model_len + the null block is refused: {res.returncode} {res.stderr!r}")


# ---- modelled GPU power (--gpu-power) -------------------------------------------------------------

DCGM_SAMPLE = re.compile(r'^(DCGM_FI_DEV_[A-Z_]+)\{gpu="(\d+)",UUID="(GPU-[0-9a-f-]+)",pci_bus_id="([0-9A-F:.]+)",'
                         r'device="nvidia(\d+)",modelName="([^"]+)",Hostname="([^"]+)"\} (\S+)$', re.M)


def dcgm_scrape(sim):
    """(the /metrics text, {name: {gpu: value}} of its DCGM samples, the client's clock when it came)."""
    _, _, body = sim.request("GET", "/metrics", headers={})
    at = time.monotonic()
    text = body.decode()
    samples = {}
    for m in DCGM_SAMPLE.finditer(text):
        name, gpu, uuid, bus, device, model, host, value = m.groups()
        check(device == gpu and model == "servestat simulated GPU" and host == "servestat-simulate",
              f"the exporter's labels, made up plainly: {m.group(0)}")
        samples.setdefault(name, {})[int(gpu)] = value
    return text, samples, at


def energy_mj(samples):
    """The energy counter summed over the GPUs, millijoules; each GPU's value must be whole mJ."""
    values = samples.get("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", {})
    check(all(re.fullmatch(r"\d+", v) for v in values.values()), f"whole millijoules: {values}")
    return sum(int(v) for v in values.values() if v.isdigit())


def test_modelled_gpu_power_on_metrics():
    """--gpu-power 60:300 --gpus 2 at time scale 1: DCGM's names and labels, the idle draw over an idle
    interval, and a lone request's energy, its busy time being its server-side e2e (docs/simulator.md)."""
    _, _, body = server.request("GET", "/metrics", headers={})
    check(b"DCGM_" not in body, "without --gpu-power /metrics has no DCGM names")
    sim = Simulator("--gpu-power", "60:300", "--gpus", "2", "--enable-per-request-metrics")
    try:
        text, samples, t1 = dcgm_scrape(sim)
        for name, kind, help_text in [("DCGM_FI_DEV_POWER_USAGE", "gauge", "Power draw (in W)."),
                                      ("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "counter",
                                       "Total energy consumption since boot (in mJ).")]:
            check(f"# HELP {name} {help_text}\n# TYPE {name} {kind}\n" in text, f"HELP and TYPE of {name}")
            check(sorted(samples.get(name, {})) == [0, 1], f"one {name} sample per GPU: {samples.get(name)}")
        uuids = set(re.findall(r'UUID="([^"]+)"', text))
        check(len(uuids) == 2, f"each GPU its own UUID: {uuids}")
        check(samples.get("DCGM_FI_DEV_POWER_USAGE") == {0: "60.000000", 1: "60.000000"},
              f"idle: the idle draw, written as the exporter writes it: {samples.get('DCGM_FI_DEV_POWER_USAGE')}")
        check(text.startswith("# HELP vllm:num_requests_running"), "vLLM's metrics come first, as before")
        # An idle interval: 2 GPUs x 60 W, on the client's clock.
        e1 = energy_mj(samples)
        time.sleep(0.5)
        _, samples, t2 = dcgm_scrape(sim)
        e2 = energy_mj(samples)
        expected = 2 * 60 * (t2 - t1) * 1000
        check(abs((e2 - e1) - expected) <= 0.02 * expected + 2 * 60 * 20,
              f"idle: {e2 - e1} mJ over {t2 - t1:.3f} s, expected {expected:.0f} (120 W)")
        # A lone request keeps the engine busy from its arrival to its last token: queue + TTFT + decode.
        status, _, out = sim.post("/v1/chat/completions", chat("hello there", 100, False))
        busy = server_e2e(metrics_of(json.loads(out), "whole chat body"))
        _, samples, t3 = dcgm_scrape(sim)
        e3 = energy_mj(samples)
        power = [float(v) for v in samples.get("DCGM_FI_DEV_POWER_USAGE", {}).values()]
        check(status == 200 and 0.3 < busy < 2, f"the request's busy time: {busy:.3f} s")
        expected = 2 * (60 * (t3 - t2) + 240 * busy) * 1000
        check(abs((e3 - e2) - expected) <= 0.02 * expected + 2 * 60 * 20,
              f"busy: {e3 - e2} mJ over {t3 - t2:.3f} s with {busy:.3f} s busy, expected {expected:.0f}")
        check(len(power) == 2 and power[0] == power[1] and 60 < power[0] <= 300,
              f"the gauge, a mean over the last second, between idle and busy after the request: {power}")
        check(e1 <= e2 <= e3, f"the counter never goes down: {e1}, {e2}, {e3}")
    finally:
        sim.stop()
    for args, why in [(["--gpus", "2"], "--gpus needs --gpu-power"),
                      (["--gpu-power", "300:60"], "busy below idle"),
                      (["--gpu-power", "60"], "no colon"),
                      (["--gpu-power", "60:300", "--gpus", "0"], "no GPU")]:
        res = subprocess.run([SERVESTAT, "simulate", "--port", "0", *args], capture_output=True, text=True, timeout=10)
        check(res.returncode == 2 and ("gpu" in res.stderr.lower()), f"{why}: exit {res.returncode} {res.stderr!r}")


def test_options_presets_and_overrides():
    res = subprocess.run([SERVESTAT, "simulate", "--list-presets"], capture_output=True, text=True)
    check(res.returncode == 0 and "l4-qwen2.5-3b-bad" in res.stdout and "l4-qwen2.5-3b-fair" in res.stdout,
          f"--list-presets: {res.returncode} {res.stdout!r}")
    res = subprocess.run([SERVESTAT, "simulate", "--preset", "nope"], capture_output=True, text=True)
    check(res.returncode == 2 and "unknown preset 'nope'" in res.stderr, f"unknown preset: {res.stderr!r}")
    res = subprocess.run([SERVESTAT, "simulate", "--no-enable-chunked-prefill", "--max-num-batched-tokens", "2048"],
                         capture_output=True, text=True)
    check(res.returncode == 2 and "max_num_batched_tokens" in res.stderr, f"refused config: {res.stderr!r}")
    # A flag given with a preset wins over the preset.
    sim = Simulator("--preset", "l4-qwen2.5-3b-fair", "--max-model-len", "2048", "--model", "tiny")
    try:
        status, _, body = sim.request("GET", "/v1/models", headers={})
        card = json.loads(body)["data"][0]
        check(card["id"] == "tiny" and card["max_model_len"] == 2048, f"overridden preset: {card}")
    finally:
        sim.stop()


def test_sigterm_ends_streams_and_exits_0_quickly():
    s = start_stream(server.port, 4000)  # ~0.4 s at --time-scale 50
    s.recv(4096)
    rc, seconds = server.stop()
    check(rc == 0, f"exit {rc} on SIGTERM")
    check(seconds < 1.0, f"exits within a second of SIGTERM: {seconds:.2f} s")
    s.close()


if __name__ == "__main__":
    sys.exit(run_tests(WORK, [test_listening_line_and_models, test_health,
                              test_tokenize_counts_by_the_documented_heuristic,
                              test_metrics_names_and_format, test_streamed_chat_event_order_and_usage,
                              test_streamed_completion_uses_text_and_no_usage_unless_asked,
                              test_whole_response_usage_and_metrics,
                              test_keep_alive_serves_many_requests_on_one_connection,
                              test_context_overflow_is_vllms_400,
                              test_responses_stream_events_and_usage,
                              test_responses_whole_previous_response_id_and_errors,
                              test_per_request_metrics_follow_vllms_doc,
                              test_no_metrics_unless_asked_and_forced_usage,
                              test_prefix_caching_over_http,
                              test_bad_requests_get_4xx_and_the_server_keeps_serving,
                              test_500_concurrent_streams_all_complete,
                              test_vanished_clients_are_cancelled_and_the_server_goes_on,
                              test_bad_preset_queues_at_higher_concurrency,
                              test_kv_cache_capacity_preempts_and_metrics_show_it,
                              test_modelled_gpu_power_on_metrics, test_options_presets_and_overrides,
                              test_sigterm_ends_streams_and_exits_0_quickly]))
