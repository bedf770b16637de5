#!/usr/bin/env python3
# Writes the hand-made GenAI-Perf fixtures of this folder (see README.md): perf_analyzer's
# profile_export.json layout (src/profile_data_exporter.cc), OpenAI chat-completion chunks as vLLM
# streams them. Run it from anywhere: python3 tests/data/genai_perf/make_fixtures.py
import json, os
out = os.path.dirname(os.path.abspath(__file__))
T = 1700000000000000000
MS = 1000000
MODEL = "Qwen/Qwen2.5-3B-Instruct"
sep = (",", ":")

def chunk(cid, delta, finish=None):
    return "data: " + json.dumps({"id": cid, "object": "chat.completion.chunk", "created": 1700000000, "model": MODEL,
        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]}, separators=sep) + "\n\n"
def usage(cid, p, c):
    return "data: " + json.dumps({"id": cid, "object": "chat.completion.chunk", "created": 1700000000, "model": MODEL,
        "choices": [], "usage": {"prompt_tokens": p, "total_tokens": p + c, "completion_tokens": c}}, separators=sep) + "\n\n"
DONE = "data: [DONE]\n\n"
def payload(text, max_tokens, stream=True, include_usage=True):
    p = {"messages": [{"role": "user", "content": text}], "model": MODEL, "stream": stream, "max_tokens": max_tokens}
    if stream and include_usage: p["stream_options"] = {"include_usage": True}
    return json.dumps(p, separators=sep)
def request(ts, text, max_tokens, responses, stream=True, include_usage=True):
    return {"timestamp": ts, "request_inputs": {"payload": payload(text, max_tokens, stream, include_usage)},
            "response_timestamps": [t for t, _ in responses], "response_outputs": [{"response": r} for _, r in responses]}
ROLE = {"role": "assistant", "content": ""}

A = request(T, "Say hello.", 16, [
    (T + 100*MS, chunk("a", ROLE)),
    (T + 250*MS, chunk("a", {"content": "Hello"})),
    (T + 300*MS, chunk("a", {"content": " world"})),
    (T + 360*MS, chunk("a", {"content": "!"}, "stop")),
    (T + 361*MS, usage("a", 12, 3)),
    (T + 362*MS, DONE)])
B = request(T + 400*MS, "Greet me.", 16, [
    (T + 500*MS, chunk("b", ROLE) + chunk("b", {"content": "Hi"})),
    (T + 540*MS, chunk("b", {"content": " there"}, "stop")),
    (T + 541*MS, usage("b", 8, 2)),
    (T + 541*MS + 500000, DONE)])
T2 = T + 1000*MS
C = request(T2, "Spell ABC.", 32, [
    (T2 + 150*MS, chunk("c", ROLE)),
    (T2 + 200*MS, chunk("c", {"content": "A"})),
    (T2 + 250*MS, chunk("c", {"content": "B"})),
    (T2 + 310*MS, chunk("c", {"content": "C"}, "stop")),
    (T2 + 311*MS, usage("c", 20, 3)),
    (T2 + 312*MS, DONE)])
split = chunk("d", {"content": "y"}, "stop")
cut = split.index('"con') + 4
D = request(T2 + 10*MS, "Two letters.", 32, [
    (T2 + 160*MS, chunk("d", ROLE)),
    (T2 + 300*MS, chunk("d", {"content": "x"})),
    (T2 + 350*MS, split[:cut]),
    (T2 + 360*MS, split[cut:]),
    (T2 + 370*MS, usage("d", 5, 2)),
    (T2 + 371*MS, DONE)])
overflow = {"object": "error", "message": "This model's maximum context length is 4096 tokens. However, you requested 4196 tokens (4164 in the messages, 32 in the completion). Please reduce the length of the messages or completion.", "type": "BadRequestError", "param": None, "code": 400}
E = request(T2 + 20*MS, "A very long prompt ...", 32, [(T2 + 30*MS, json.dumps(overflow, separators=sep))])
F = request(T2 + 30*MS, "Nobody answers.", 32, [])
G = request(T2 + 40*MS, "Overloaded.", 32, [
    (T2 + 200*MS, chunk("g", ROLE)),
    (T2 + 250*MS, "data: " + json.dumps({"error": {"message": "Service Unavailable: server overloaded", "type": "ServiceUnavailableError", "code": 503}}, separators=sep) + "\n\n")])
H = request(T2 + 50*MS, "No usage please.", 32, [
    (T2 + 400*MS, chunk("h", {"role": "assistant", "content": "Q"})),
    (T2 + 450*MS, chunk("h", {"content": "R"}, "stop")),
    (T2 + 451*MS, DONE)], include_usage=False)

doc = {"experiments": [
    {"experiment": {"mode": "concurrency", "value": 1}, "requests": [A, B], "window_boundaries": [T, T + 600*MS]},
    {"experiment": {"mode": "concurrency", "value": 4}, "requests": [C, D, E, F, G, H], "window_boundaries": [T2, T2 + 500*MS]}],
    "version": "2.59.0", "service_kind": "openai", "endpoint": "v1/chat/completions"}
open(os.path.join(out, "chat_streaming.json"), "w").write(json.dumps(doc, indent=2) + "\n")

def whole(cid, text, p, c):
    return json.dumps({"id": cid, "object": "chat.completion", "created": 1700000000, "model": MODEL,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "logprobs": None, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": p, "total_tokens": p + c, "completion_tokens": c}}, separators=sep)
N1 = request(T, "Capital of France?", 64, [(T + 800*MS, whole("n1", "Paris is the capital of France.", 15, 8))], stream=False)
N2 = request(T + 400*MS, "Describe Paris.", 64, [(T + 1500*MS, whole("n2", "Paris is a city on the Seine ...", 20, 30))], stream=False)
doc = {"experiments": [{"experiment": {"mode": "request_rate", "value": 2.5}, "requests": [N1, N2], "window_boundaries": [T, T + 2000*MS]}],
       "version": "2.59.0", "service_kind": "openai", "endpoint": "v1/chat/completions"}
open(os.path.join(out, "non_streaming.json"), "w").write(json.dumps(doc, separators=sep))

def single(req, **kw):
    d = {"experiments": [{"experiment": {"mode": "concurrency", "value": 1}, "requests": [req], "window_boundaries": []}],
         "version": "2.59.0", "service_kind": "openai", "endpoint": "v1/chat/completions"}
    d.update(kw)
    return json.dumps(d, indent=2) + "\n"
bad = json.loads(json.dumps(A)); bad["response_timestamps"][0] = T - 1000
open(os.path.join(out, "bad_response_before_request.json"), "w").write(single(bad))
bad = json.loads(json.dumps(A)); bad["timestamp"] = str(T)
open(os.path.join(out, "bad_timestamp_string.json"), "w").write(single(bad))
bad = json.loads(json.dumps(A)); bad["response_outputs"] = bad["response_outputs"][:5]
open(os.path.join(out, "bad_unequal_responses.json"), "w").write(single(bad))
open(os.path.join(out, "bad_empty_experiments.json"), "w").write(json.dumps(
    {"experiments": [], "version": "2.59.0", "service_kind": "openai", "endpoint": "v1/chat/completions"}, indent=2) + "\n")
