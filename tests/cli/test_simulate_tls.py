#!/usr/bin/python3
"""CLI tests for `servestat simulate --tls-cert FILE --tls-key FILE`: the simulated vLLM server over HTTPS.

A self-signed certificate for localhost and 127.0.0.1 is made at test time with the openssl command.
Clients that trust it get a chat stream, /v1/models and a Responses stream; a client with default
verification (no CA) fails the handshake and the server goes on serving; plain HTTP on the TLS port
is refused without harm; a client that goes away (with or without TLS close_notify) has its request
cancelled; vLLM's spellings --ssl-certfile/--ssl-keyfile work; a missing or bad certificate or key is
a usage error naming the file, before anything is served.

Usage: test_simulate_tls.py SERVESTAT_BINARY WORK_DIR   (run by ctest)
"""
import http.client
import json
import os
import re
import signal
import socket
import ssl
import subprocess
import sys
import time

from checks import check, metric_value, run_tests

SERVESTAT, WORK = sys.argv[1], sys.argv[2]
MODEL = "Qwen/Qwen2.5-3B-Instruct"
JSON = {"Content-Type": "application/json"}
CERT = KEY = None


class TlsSimulator:
    """A `servestat simulate --port 0 --tls-cert CERT --tls-key KEY ARGS` process and its port."""
    count = 0

    def __init__(self, *args, cert_flag="--tls-cert", key_flag="--tls-key"):
        TlsSimulator.count += 1
        self.log = open(os.path.join(WORK, f"tls_simulator{TlsSimulator.count}.log"), "w")
        self.proc = subprocess.Popen([SERVESTAT, "simulate", "--port", "0", cert_flag, CERT, key_flag, KEY, *args],
                                     stdout=subprocess.PIPE, stderr=self.log, text=True)
        line = self.proc.stdout.readline().strip()
        m = re.fullmatch(r"servestat simulate listening on https://127\.0\.0\.1:(\d+)", line)
        check(m is not None, f"listening line with https://: {line!r}")
        self.port = int(m.group(1)) if m else 0

    def connection(self, context=None, host="127.0.0.1"):
        if context is None:
            context = ssl.create_default_context(cafile=CERT)
        return http.client.HTTPSConnection(host, self.port, timeout=20, context=context)

    def request(self, method, path, body=None, headers=None, context=None, host="127.0.0.1"):
        conn = self.connection(context, host)
        try:
            conn.request(method, path, body=json.dumps(body) if body is not None else None,
                         headers=headers if headers is not None else dict(JSON))
            r = conn.getresponse()
            return r.status, r.headers, r.read()
        finally:
            conn.close()

    def metric(self, name):
        _, _, body = self.request("GET", "/metrics", headers={})
        return metric_value(body.decode(), name)

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            rc = self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            rc = self.proc.wait()
        self.log.close()
        return rc


server = None


def make_certificate():
    global CERT, KEY
    directory = os.path.join(WORK, "pki")
    os.makedirs(directory, exist_ok=True)
    CERT, KEY = os.path.join(directory, "cert.pem"), os.path.join(directory, "key.pem")
    res = subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                          "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
                          "-keyout", KEY, "-out", CERT], capture_output=True, text=True)
    check(res.returncode == 0, f"openssl req: {res.stderr}")


def wait_for_metric(sim, name, value, seconds=5):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if sim.metric(name) == value:
            return True
        time.sleep(0.02)
    return False


def test_verified_clients_get_every_endpoint():
    global server
    make_certificate()
    server = TlsSimulator("--time-scale", "50", "--enable-per-request-metrics")
    status, _, body = server.request("GET", "/v1/models", headers={})
    check(status == 200 and json.loads(body)["data"][0]["id"] == MODEL, f"/v1/models over TLS: {status} {body[:200]!r}")
    # By name too: the certificate's DNS name.
    status, _, _ = server.request("GET", "/health", headers={}, host="localhost")
    check(status == 200, f"/health via localhost: {status}")
    # A chat stream: role chunk, 5 tokens, usage, [DONE].
    status, headers, body = server.request("POST", "/v1/chat/completions", {
        "model": MODEL, "messages": [{"role": "user", "content": "hello there"}], "max_tokens": 5, "stream": True,
        "stream_options": {"include_usage": True}})
    events = [e[len("data: "):] for e in body.decode().split("\n\n") if e]
    check(status == 200 and headers.get("Content-Type", "").startswith("text/event-stream") and
          len(events) == 8 and events[-1] == "[DONE]", f"chat stream over TLS: {status} {events[-2:]}")
    if len(events) == 8:
        check(json.loads(events[-2])["usage"] == {"prompt_tokens": 38, "total_tokens": 43, "completion_tokens": 5},
              f"usage over TLS: {events[-2]}")
        check("metrics" in json.loads(events[-2]) and "metrics" not in json.loads(events[-3]),
              "vLLM's metrics in the usage chunk, not in the last token's")
    # A Responses stream ends with response.completed.
    status, _, body = server.request("POST", "/v1/responses", {"input": "hello there", "max_output_tokens": 4,
                                                               "stream": True})
    blocks = [b for b in body.decode().split("\n\n") if b]
    names = [b.split("\n")[0][len("event: "):] for b in blocks]
    check(status == 200 and len(names) == 12 and names[-1] == "response.completed" and b"[DONE]" not in body,
          f"Responses stream over TLS: {status} {names}")
    if names and names[-1] == "response.completed":
        completed = json.loads(blocks[-1].split("\n")[1][len("data: "):])
        check(completed["response"]["usage"]["input_tokens"] == 38 and completed["response"]["usage"]["output_tokens"] == 4,
              f"Responses usage over TLS: {completed['response']['usage']}")
    # Keep-alive: several requests on one TLS connection.
    conn = server.connection()
    for path in ["/v1/models", "/health", "/v1/models"]:
        conn.request("GET", path)
        r = conn.getresponse()
        r.read()
        check(r.status == 200 and not r.will_close, f"keep-alive {path}: {r.status}")
    conn.close()


def test_a_client_that_rejects_the_certificate_does_not_stop_the_server():
    try:
        server.request("GET", "/v1/models", headers={}, context=ssl.create_default_context())
        check(False, "default verification must refuse the self-signed certificate")
    except ssl.SSLCertVerificationError:
        pass
    except (ssl.SSLError, OSError) as e:
        check(False, f"expected a certificate verification error, got {e!r}")
    # Plain HTTP to the TLS port: the handshake fails, the connection closes.
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as s:
        s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n")
        try:
            out = s.recv(4096)
        except OSError:
            out = b""
        check(not out.startswith(b"HTTP/1.1 200"), f"plain HTTP is not served on the TLS port: {out[:60]!r}")
    # A client that connects and sends nothing, then leaves.
    socket.create_connection(("127.0.0.1", server.port), timeout=5).close()
    status, _, body = server.request("POST", "/v1/chat/completions", {
        "messages": [{"role": "user", "content": "still there?"}], "max_tokens": 3})
    check(status == 200 and json.loads(body)["usage"]["completion_tokens"] == 3, "served after the failed handshakes")


def open_stream(port, max_tokens):
    """A TLS socket with a chat stream of max_tokens running on it."""
    context = ssl.create_default_context(cafile=CERT)
    raw = socket.create_connection(("127.0.0.1", port), timeout=10)
    s = context.wrap_socket(raw, server_hostname="127.0.0.1")
    payload = json.dumps({"messages": [{"role": "user", "content": "a long answer"}], "max_tokens": max_tokens,
                          "stream": True}).encode()
    s.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
              b"Content-Length: %d\r\n\r\n" % len(payload) + payload)
    return s


def test_vanished_tls_clients_are_cancelled():
    sim = TlsSimulator("--time-scale", "1", "--max-num-seqs", "1")
    try:
        first = open_stream(sim.port, 4000)
        seen = b""
        while seen.count(b"data: ") < 3:
            seen += first.recv(65536)
        second = open_stream(sim.port, 4000)
        check(wait_for_metric(sim, "vllm:num_requests_waiting", 1), "the second request waits")
        # The queued one leaves with TLS close_notify (an alert record) before its TCP close.
        second.settimeout(0.3)
        try:
            second.unwrap()
        except (OSError, ssl.SSLError):
            pass
        second.close()
        check(wait_for_metric(sim, "vllm:num_requests_waiting", 0), "close_notify cancels the queued request")
        first.close()  # no close_notify: the TCP connection just closes
        check(wait_for_metric(sim, "vllm:num_requests_running", 0), "the vanished TLS stream is cancelled")
        status, _, body = sim.request("POST", "/v1/chat/completions", {
            "messages": [{"role": "user", "content": "anyone?"}], "max_tokens": 2})
        check(status == 200, f"serves after the hang-ups: {status} {body[:200]!r}")
    finally:
        check(sim.stop() == 0, "exit 0")


def test_vllm_flag_spellings():
    sim = TlsSimulator("--time-scale", "50", cert_flag="--ssl-certfile", key_flag="--ssl-keyfile")
    try:
        status, _, _ = sim.request("GET", "/health", headers={})
        check(status == 200, f"--ssl-certfile/--ssl-keyfile: {status}")
    finally:
        sim.stop()


def refused(*args):
    res = subprocess.run([SERVESTAT, "simulate", "--port", "0", *args], capture_output=True, text=True, timeout=10)
    return res.returncode, res.stdout, res.stderr


def test_bad_certificate_or_key_is_a_usage_error():
    bad_key = os.path.join(WORK, "pki", "bad_key.pem")
    with open(bad_key, "w") as f:
        f.write("-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----\n")
    missing = os.path.join(WORK, "pki", "missing.pem")
    other_key = os.path.join(WORK, "pki", "other_key.pem")
    subprocess.run(["openssl", "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", other_key],
                   capture_output=True)
    for args, named, what in [(["--tls-cert", CERT, "--tls-key", bad_key], bad_key, "a key file that is not a key"),
                              (["--tls-cert", CERT, "--tls-key", missing], missing, "a missing key file"),
                              (["--tls-cert", missing, "--tls-key", KEY], missing, "a missing certificate"),
                              (["--tls-cert", KEY, "--tls-key", KEY], KEY, "a certificate file that is a key"),
                              (["--tls-cert", CERT, "--tls-key", other_key], other_key, "a key of another certificate"),
                              (["--tls-cert", CERT], "--tls-key", "a certificate without a key")]:
        rc, out, err = refused(*args)
        check(rc == 2 and named in err and "listening" not in out, f"{what}: exit {rc}, stderr {err!r}")


def test_sigterm_exits_0():
    check(server.stop() == 0, "exit 0 on SIGTERM")


if __name__ == "__main__":
    sys.exit(run_tests(WORK, [test_verified_clients_get_every_endpoint,
                              test_a_client_that_rejects_the_certificate_does_not_stop_the_server,
                              test_vanished_tls_clients_are_cancelled, test_vllm_flag_spellings,
                              test_bad_certificate_or_key_is_a_usage_error, test_sigterm_exits_0]))
