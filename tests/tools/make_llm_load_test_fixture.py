#!/usr/bin/python3
"""Writes tests/data/mapped/output-004.json: an llm-load-test result file (concurrency 4, 5 s) as
the tool's current code writes one. Layout, field by field, from openshift-psap/llm-load-test (see
tests/data/mapped/README.md):

- results: one RequestResult.asdict() per request (src/llm_load_test/result.py), grouped by user as
  load_test.gather_results receives them (user 0's requests first, each user's in time order);
  times are time.time() epoch seconds; response_time, tt_ack, ttft, itl, tpot are milliseconds set by
  calculate_results() only when error_code and error_text are both None; itl only when
  output_tokens > 1, tpot only when output_tokens > 0;
- the streaming plugin's cases (plugins/openai_plugin.py streaming_request_http): an HTTP error or a
  refused connection (end_time and error_text, error_code the status or None); a stream that carried
  an error message after some tokens (error_code 200, error_text the error object, the tokens before
  it counted, nothing calculated); a stream with no data lines (output_tokens 0, error_code 200,
  error_text None, nothing else); output_tokens_before_timeout = tokens received by the user's
  test_end_time;
- summary: utils.write_output over the rows whose error_text is None, with tpot/ttft/itl/tt_ack over
  those whose output_tokens equals output_tokens_before_timeout, pandas statistics as the tool
  computes them.

The times are made up (numpy's default_rng(4)); the texts are shortened. Run it to regenerate the
fixture; the tests check their numbers against numpy on the file itself, not against this script.
"""
import json
import os

import numpy as np
import pandas as pd

T0 = 1718031600.25  # the main process starts its timer
DURATION = 5
CONCURRENCY = 4
HOST = "http://vllm-server:8000"
ENDPOINT = "/v1/completions"
FIELDS = ["user_id", "input_id", "input_tokens", "output_text", "output_tokens", "output_tokens_before_timeout",
          "start_time", "ack_time", "first_token_time", "end_time", "response_time", "tt_ack", "ttft", "itl",
          "tpot", "stop_reason", "error_code", "error_text"]
# (input_id, input_tokens, output_tokens) as the dataset hands them out, in order
DATASET = [(0, 282, 128), (1, 275, 128), (2, 216, 64), (3, 385, 128), (4, 1259, 128), (5, 511, 64), (6, 598, 128),
           (7, 870, 128), (8, 679, 128), (9, 953, 256), (10, 732, 64), (11, 144, 1), (12, 1024, 128),
           (13, 401, 64), (14, 333, 128), (15, 57, 64), (16, 1500, 128), (17, 620, 64), (18, 240, 128),
           (19, 808, 64), (20, 415, 128), (21, 96, 64), (22, 1180, 128), (23, 530, 64)]
# What happens to the n-th request a user sends (default: a full stream)
SPECIAL = {(2, 1): "http_500", (1, 2): "stream_error", (0, 1): "empty_stream", (3, 2): "refused"}
OUTPUT_TEXT = ["def add(a, b):\n    return a + b", "Photosynthesis converts light into chemical energy.",
               "The answer is 42.", "Bonjour le monde", "Paris is the capital of France."]


def result(user_id, input_id):
    r = dict.fromkeys(FIELDS)
    r.update(user_id=user_id, input_id=input_id)
    return r


def calculate_results(r):
    """result.py calculate_results, on the fields it reads."""
    if r["error_code"] is not None or r["error_text"] is not None:
        return
    if r["end_time"] is not None and r["start_time"] is not None:
        r["response_time"] = 1000 * (r["end_time"] - r["start_time"])
    if r["ack_time"] is not None and r["start_time"] is not None:
        r["tt_ack"] = 1000 * (r["ack_time"] - r["start_time"])
    if r["first_token_time"] is not None:
        if r["start_time"] is not None:
            r["ttft"] = 1000 * (r["first_token_time"] - r["start_time"])
        if r["end_time"] is not None and r["output_tokens"] is not None and r["output_tokens"] > 1:
            r["itl"] = (1000 * (r["end_time"] - r["first_token_time"])) / (r["output_tokens"] - 1)
    if r["response_time"] is not None and r["output_tokens"] is not None and r["output_tokens"] > 0:
        r["tpot"] = r["response_time"] / r["output_tokens"]


def simulate():
    rng = np.random.default_rng(4)
    queue = iter(DATASET)
    per_user = []
    stop_at = T0 + DURATION + 0.05  # the main process puts the stop signal after its 0.1 s polls
    for user in range(CONCURRENCY):
        test_end_time = T0 + DURATION - 0.04 + 0.001 * user  # each user process sets its own
        t = T0 + 0.0005 * user + float(rng.uniform(0, 0.004))
        rows, n = [], 0
        while t < stop_at:
            input_id, input_tokens, wanted = next(queue)
            r = result(user, input_id)
            r["start_time"] = t
            kind = SPECIAL.get((user, n), "stream")
            if kind in ("http_500", "refused"):
                r["end_time"] = t + (0.0413 if kind == "http_500" else 0.0021)
                if kind == "http_500":
                    r["error_code"] = 500
                    r["error_text"] = ("HTTPError('500 Server Error: Internal Server Error for url: "
                                       f"{HOST}{ENDPOINT}')")
                else:
                    r["error_text"] = (
                        "ConnectionError(MaxRetryError(\"HTTPConnectionPool(host='vllm-server', port=8000): Max "
                        "retries exceeded with url: /v1/completions (Caused by NewConnectionError('<urllib3."
                        "connection.HTTPConnection object at 0x7f2b5c3e1d90>: Failed to establish a new connection: "
                        "[Errno 111] Connection refused'))\"))")
            elif kind == "empty_stream":
                r["end_time"] = t + 0.0158
                r["output_tokens"] = 0
                r["error_code"] = 200
            else:
                ack = t + float(rng.uniform(0.006, 0.02))
                first = t + float(rng.uniform(0.08, 0.4))
                tokens = 17 if kind == "stream_error" else wanted
                times = first + np.concatenate([[0.0], np.cumsum(rng.uniform(0.010, 0.017, size=tokens - 1))])
                r["ack_time"] = ack
                r["first_token_time"] = float(times[0])
                r["end_time"] = float(times[-1]) + 0.0003  # the [DONE] line
                r["output_tokens"] = tokens
                r["output_tokens_before_timeout"] = int(np.sum(times <= test_end_time))
                r["output_text"] = OUTPUT_TEXT[input_id % len(OUTPUT_TEXT)]
                r["input_tokens"] = input_tokens
                if kind == "stream_error":
                    r["error_code"] = 200
                    r["error_text"] = {"message": "The engine loop has stopped.", "type": "InternalServerError",
                                       "param": None, "code": 500}
                else:
                    r["stop_reason"] = "length"
            calculate_results(r)
            rows.append(r)
            n += 1
            t = r["end_time"] + float(rng.uniform(0.0005, 0.002))  # the next query from the queue
        per_user.append(rows)
    return [r for rows in per_user for r in rows]


def get_summary(df, output_obj, key):
    """utils.get_summary."""
    output_obj["summary"][key] = {
        "min": df[key].min(), "max": df[key].max(), "median": df[key].median(), "mean": df[key].mean(),
        "percentile_80": df[key].quantile(0.80), "percentile_90": df[key].quantile(0.90),
        "percentile_95": df[key].quantile(0.95), "percentile_99": df[key].quantile(0.99)}
    return output_obj


def write_output(config, results_list):
    """utils.write_output, streaming branch."""
    output_obj = {"results": results_list, "config": config, "summary": {}}
    df = pd.DataFrame(results_list)
    error_count = len(df[~df["error_text"].isnull()])
    req_count = len(df)
    df = df[df["error_text"].isnull()]
    df_test_duration = df[df["output_tokens"] == df["output_tokens_before_timeout"]]
    output_obj = get_summary(df_test_duration, output_obj, "tpot")
    for key in ("ttft", "itl", "tt_ack"):
        output_obj = get_summary(df_test_duration, output_obj, key)
    for key in ("response_time", "output_tokens", "output_tokens_before_timeout", "input_tokens"):
        output_obj = get_summary(df, output_obj, key)
    full_duration = df["end_time"].max() - df["start_time"].min()
    s = output_obj["summary"]
    s["throughput_full_duration"] = df["output_tokens"].sum() / full_duration
    s["full_duration"] = full_duration
    s["throughput"] = df["output_tokens_before_timeout"].sum() / config["load_options"]["duration"]
    s["total_requests"] = req_count
    s["req_completed_within_test_duration"] = len(df_test_duration)
    s["total_failures"] = error_count
    s["failure_rate"] = error_count / req_count * 100
    return output_obj


def plain(value):
    """customEncoder: numpy numbers as Python numbers."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    return value


CONFIG = {
    "output": {"format": "json", "dir": "./output/", "file": "output-{concurrency:03d}.json"},
    "warmup": False,
    "storage": {"type": "local"},
    "dataset": {"file": "datasets/openorca_large_subset_011.jsonl", "max_queries": 1000, "min_input_tokens": 0,
                "max_input_tokens": 2048, "min_output_tokens": 0, "max_output_tokens": 256,
                "max_sequence_tokens": 2048},
    "load_options": {"type": "constant", "concurrency": CONCURRENCY, "duration": DURATION},
    "plugin": "openai_plugin",
    "plugin_options": {"use_tls": False, "streaming": True, "model_name": "Qwen/Qwen2.5-3B-Instruct", "host": HOST,
                       "endpoint": ENDPOINT},
    "extra_metadata": {"replicas": 1},
}

if __name__ == "__main__":
    out = plain(write_output(CONFIG, simulate()))
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "mapped", "output-004.json")
    with open(path, "w") as f:
        f.write(json.dumps(out, indent=2, allow_nan=False))
