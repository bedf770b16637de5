#!/usr/bin/python3
"""CLI tests for `--map`: every worked example of docs/formats.md's --map section run exactly as
written (its printed lines must appear, its numbers are checked against numpy on the fixture), the
--map line suggested when detection fails (pasted back, it reads the file), names the file does not
hold (exit 2, naming the near misses), and tpot / itl / server_queue read through a mapping.

Usage: test_map.py SERVESTAT_BINARY PROJECT_DIR WORK_DIR   (run by ctest; needs Debian's python3-numpy)
"""
import json
import os
import re
import shlex
import shutil
import subprocess
import sys

import numpy as np

from checks import check, run_tests

SERVESTAT, PROJECT, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
DATA = os.path.join(PROJECT, "tests", "data", "mapped")
FORMATS_MD = os.path.join(PROJECT, "docs", "formats.md")
# What each file name in the examples stands for: the fixture built from that tool's layout.
FIXTURES = {"output-004.json": "output-004.json", "results.csv": "results.csv"}


def servestat(args, cwd=None):
    return subprocess.run([SERVESTAT, *args], capture_output=True, text=True, cwd=cwd)


def close(actual, expected, what, rel=1e-9):
    ok = actual is not None and (actual == expected or abs(actual - expected) <= rel * max(abs(expected), 1e-300))
    check(ok, f"{what}: servestat {actual!r} numpy {expected!r}")


def map_section():
    text = open(FORMATS_MD).read()
    start = text.index("## Any other request log: `--map`")
    end = text.index("\n## ", start + 1)
    return text[start:end]


def code_blocks(markdown):
    return re.findall(r"^```[a-z]*\n(.*?)^```", markdown, flags=re.S | re.M)


def doc_examples():
    """(argv, expected lines) for each code block that starts with a servestat command: the lines after
    the command in its block, or else the next block when it is the printed run."""
    blocks = code_blocks(map_section())
    examples = []
    for i, block in enumerate(blocks):
        lines = block.splitlines()
        if not lines or not lines[0].startswith("servestat "):
            continue
        command = []
        while lines:
            line = lines.pop(0)
            command.append(line.rstrip("\\").strip())
            if not line.endswith("\\"):
                break
        expected = lines
        if not expected and i + 1 < len(blocks) and blocks[i + 1].startswith("run "):
            expected = blocks[i + 1].splitlines()
        examples.append((shlex.split(" ".join(command)), expected))
    return examples


def input_paths(argv):
    """The positional arguments of `servestat stats ...` (the files it reads)."""
    paths, skip = [], False
    for a in argv[2:]:
        if skip:
            skip = False
        elif a.startswith("--"):
            skip = a not in ("--json", "--skip-bad")
        else:
            paths.append(a)
    return paths


def place_fixtures(argv, folder):
    """Copies the fixture each example path stands for to that path under `folder`."""
    for path in input_paths(argv):
        name = os.path.basename(path)
        check(name in FIXTURES, f"the example reads {path}, which no fixture in tests/data/mapped stands for")
        if name in FIXTURES:
            os.makedirs(os.path.join(folder, os.path.dirname(path)), exist_ok=True)
            shutil.copy(os.path.join(DATA, FIXTURES[name]), os.path.join(folder, path))


def llm_load_test_numbers(run):
    """output-004.json against numpy, with llm-load-test's own rule for a latency (error_code and
    error_text both null) and its own summary where the two agree by definition."""
    doc = json.load(open(os.path.join(DATA, "output-004.json")))
    results = doc["results"]
    ok = [r for r in results if r["error_text"] is None and r["error_code"] is None]
    check(run["requests"] == len(results) and run["ok"] == len(ok), f"llm-load-test counts {run['requests']} {run['ok']}")
    check(run["failed"] == doc["summary"]["total_failures"] + sum(1 for r in results if r["output_tokens"] == 0),
          f"failed = the tool's total_failures + the empty stream: {run['failed']}")
    m = run["subsets"]["all"]["metrics"]
    e2e = [r["end_time"] - r["start_time"] for r in ok]
    for p in (50, 90, 99):
        close(m["e2e"][f"p{p}"], float(np.percentile(e2e, p)), f"e2e p{p}")
    close(m["e2e"]["p50"], doc["summary"]["response_time"]["median"] / 1000, "e2e p50 = the tool's response_time.median",
          rel=1e-12)
    close(m["ttft"]["p50"], float(np.percentile([r["first_token_time"] - r["start_time"] for r in ok], 50)), "ttft p50")
    tpot = [(r["end_time"] - r["first_token_time"]) / (r["output_tokens"] - 1) for r in ok if r["output_tokens"] > 1]
    close(m["tpot"]["p50"], float(np.percentile(tpot, 50)), "tpot p50")
    close(run["duration"], max(r["end_time"] for r in results) - min(r["start_time"] for r in results), "duration")


def results_csv_numbers(run):
    """results.csv by hand: r0, r1, r3 succeed with e2e 1.25, 0.875 and 2.5 s and TTFT 120.5, 98 and
    210.25 ms; r2 and r4 fail."""
    check(run["ok"] == 3 and run["failed"] == 2, f"results.csv counts {run['ok']} {run['failed']}")
    m = run["subsets"]["all"]["metrics"]
    close(m["e2e"]["p50"], 1.25, "results.csv e2e p50")
    close(m["ttft"]["p50"], float(np.percentile([0.1205, 0.098, 0.21025], 50)), "results.csv ttft p50")


NUMBERS = {"output-004.json": llm_load_test_numbers, "results.csv": results_csv_numbers}


def test_worked_examples_run_as_written():
    examples = doc_examples()
    names = sorted({os.path.basename(p) for argv, _ in examples for p in input_paths(argv)})
    check(names == sorted(FIXTURES), f"the --map section's examples read {names}")
    for n, (argv, expected) in enumerate(examples):
        check(argv[0] == "servestat", f"example {n} runs {argv[0]}")
        folder = os.path.join(WORK, f"example{n}")
        os.makedirs(folder)
        place_fixtures(argv, folder)
        res = servestat(argv[1:], cwd=folder)
        printed = res.stdout + res.stderr
        errors = any(line.startswith("servestat: ") for line in expected)
        check((res.returncode != 0) == errors, f"example {n} exit code {res.returncode}: {res.stderr[:400]}")
        for line in expected:
            if "..." in line or not line.strip():
                continue
            check(line.rstrip() in printed, f"example {n} does not print {line!r}:\n{printed}")
        if errors:
            continue
        res = servestat(argv[1:] + ["--json"], cwd=folder)
        check(res.returncode == 0, f"example {n} --json: {res.stderr}")
        if res.returncode == 0:
            for path in input_paths(argv):
                run = next(r for r in json.loads(res.stdout)["runs"] if r["label"] == os.path.splitext(
                    os.path.basename(path))[0])
                NUMBERS[os.path.basename(path)](run)


def suggested_args(stderr):
    """The --map (and --ok-if) of the suggested line."""
    for line in stderr.splitlines():
        if line.strip().startswith("--map "):
            return shlex.split(line.replace("(incomplete)", ""))
    return None


def test_suggested_map_line_reads_the_file():
    cases = {
        "output-004.json": ("a JSON object holding an array of 17 objects at 'results'; keys of its first: ack_time,",
                            17),
        "results.csv": ("a CSV table; columns: request_id, start, TTFT, response_time, input_tokens,", 5),
        "requests.jsonl": ("JSON Lines, one object per line; keys of the first line: id, outcome, timing, usage.", 3),
        "durations.json": ("a JSON array of 3 objects; keys of the first: gaps_ms, latency_ms, ok, tokens, ttft_us.",
                           3),
    }
    for name, (found, requests) in cases.items():
        path = os.path.join(WORK, name)
        shutil.copy(os.path.join(DATA, name), path)
        res = servestat(["stats", path])
        check(res.returncode == 2, f"{name}: exit {res.returncode} (a usage matter: say how to read it)")
        check(f"servestat: {path}: not a recognised request log: {found}" in res.stderr,
              f"{name}: what the file holds:\n{res.stderr}")
        check("No built-in format reads it; --map can. A guess from its names and values (check every entry):"
              in res.stderr and "(known formats: " in res.stderr, f"{name}: the suggestion:\n{res.stderr}")
        args = suggested_args(res.stderr)
        check(args is not None, f"{name}: no --map line:\n{res.stderr}")
        if args is None:
            continue
        res = servestat(["stats", "--json", path, *args])
        check(res.returncode == 0, f"{name}: the suggested {args} does not read it: {res.stderr}")
        if res.returncode == 0:
            check(json.loads(res.stdout)["runs"][0]["requests"] == requests, f"{name}: requests read")
    # The suggested line for the documented CSV is the documented one, less the --ok-if it cannot guess.
    res = servestat(["stats", os.path.join(WORK, "results.csv")])
    check("--map 't_sent=start:epoch_s,ttft=TTFT:ms,e2e=response_time:s,prompt_tokens=input_tokens,"
          "output_tokens=usage.completion_tokens,error=error_message'" in res.stderr, f"results.csv line: {res.stderr}")
    # Plain text and binary data keep the one-line message.
    text = os.path.join(WORK, "notes.txt")
    with open(text, "w") as f:
        f.write("hello\nworld\n")
    res = servestat(["stats", text])
    check(res.returncode == 3 and res.stderr.count("\n") == 1 and "not a recognised request log (known formats: "
          in res.stderr, f"text file: {res.stderr!r}")


def test_names_the_file_lacks_exit_2_with_near_misses():
    csv = os.path.join(DATA, "results.csv")
    res = servestat(["stats", csv, "--map", "e2e=Response_Time:s,t_sent=start:epoch_s"])
    check(res.returncode == 2, f"CSV case mismatch exit {res.returncode}")
    check(f"{csv}: e2e=Response_Time:s: the header has no column 'Response_Time'; did you mean 'response_time' "
          "(the same name in another letter case)?" in res.stderr, f"CSV case mismatch message: {res.stderr}")
    res = servestat(["stats", csv, "--map", "e2e=response_time,ttft=TTFB:ms", "--ok-if", "eror_code=="])
    check(res.returncode == 2 and "2 names in --map/--ok-if are not in the file:" in res.stderr
          and "ttft=TTFB:ms: the header has no column 'TTFB'; did you mean 'TTFT'?" in res.stderr
          and "--ok-if eror_code==: the header has no column 'eror_code'; did you mean 'error_code'?" in res.stderr,
          f"CSV misspellings: {res.returncode} {res.stderr}")
    doc = os.path.join(DATA, "output-004.json")
    res = servestat(["stats", doc, "--map", "records=results,t_sent=Start_Time:epoch_s,e2e=response_time:ms"])
    check(res.returncode == 2 and f"{doc}: t_sent=Start_Time:epoch_s: no request (in records=results) has the key "
          "'Start_Time'; did you mean 'start_time' (the same name in another letter case)?" in res.stderr,
          f"JSON case mismatch: {res.returncode} {res.stderr}")
    lines = os.path.join(DATA, "requests.jsonl")
    res = servestat(["stats", lines, "--map", "t_sent=timing.sent_ns:epoch_ns,t_end=timing.End_ns:epoch_ns"])
    check(res.returncode == 2 and "no request has the key 'timing.End_ns'; did you mean 'timing.end_ns' (the same "
          "name in another letter case)?" in res.stderr, f"JSONL nested case mismatch: {res.returncode} {res.stderr}")


def test_tpot_itl_and_server_queue_through_a_mapping():
    rng = np.random.default_rng(16)
    rows = []
    for i in range(40):
        out = int(rng.integers(2, 60))
        rows.append({"start": 1718031600.0 + i * 0.25, "ttft_ms": float(rng.uniform(50, 400)),
                     "tpot_ms": float(rng.uniform(8, 30)), "out": out, "queue_ms": float(rng.exponential(20)),
                     "gaps_ms": [float(g) for g in rng.uniform(5, 40, size=out - 1)]})
    path = os.path.join(WORK, "tool.jsonl")
    with open(path, "w") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    res = servestat(["stats", "--json", path, "--map",
                     "t_sent=start:epoch_s,ttft=ttft_ms:ms,tpot=tpot_ms:ms,output_tokens=out,"
                     "server_queue=queue_ms:ms,itl=gaps_ms:ms"])
    check(res.returncode == 0, f"tpot mapping: {res.stderr}")
    if res.returncode != 0:
        return
    m = json.loads(res.stdout)["runs"][0]["subsets"]["all"]["metrics"]
    tpot = [r["tpot_ms"] / 1000 for r in rows]
    e2e = [r["ttft_ms"] / 1000 + r["tpot_ms"] / 1000 * (r["out"] - 1) for r in rows]
    gaps = [g / 1000 for r in rows for g in r["gaps_ms"]]
    queue = [r["queue_ms"] / 1000 for r in rows]
    for p in (50, 90, 99):
        close(m["tpot"][f"p{p}"], float(np.percentile(tpot, p)), f"mapped tpot p{p}")
        close(m["e2e"][f"p{p}"], float(np.percentile(e2e, p)), f"e2e from tpot p{p}")
        close(m["itl"][f"p{p}"], float(np.percentile(gaps, p)), f"mapped itl p{p}")
        close(m["server_queue"][f"p{p}"], float(np.percentile(queue, p)), f"mapped server_queue p{p}")
    check(m["itl"]["n"] == len(gaps), f"itl n {m['itl']['n']} != {len(gaps)}")


if __name__ == "__main__":
    sys.exit(run_tests(WORK, [test_worked_examples_run_as_written, test_suggested_map_line_reads_the_file,
                              test_names_the_file_lacks_exit_2_with_near_misses,
                              test_tpot_itl_and_server_queue_through_a_mapping]))
