"""Every file in ../shared/data is read with its format detected from content, by `servestat stats`
and `servestat report`. Usage: test_shared_data.py SERVESTAT SHARED_DATA_DIR WORK_DIR"""
import json
import os
import re
import subprocess
import sys

from checks import check, run_tests

SERVESTAT, DATA, WORK = sys.argv[1], sys.argv[2], sys.argv[3]

# Path pattern (relative to the data folder) → the format content detection must choose.
EXPECTED = [
    (r"aiperf-example/run1/profile_export\.jsonl$", "aiperf"),
    (r"aiperf-example/run1/profile_export_aiperf\.json$", "aiperf-summary"),
    (r"aiperf-example/run1/profile_export_aiperf\.csv$", "aiperf-summary-csv"),
    (r"aiperf-inferencex-sweep-b200/.*/aiperf_artifacts/profile_export\.jsonl$", "aiperf"),
    (r"aiperf-inferencex-sweep-b200/.*/aiperf_artifacts/profile_export_aiperf\.json$", "aiperf-summary"),
    (r"aiperf-inferencex-sweep-b200/.*/aiperf_artifacts/profile_export_aiperf\.csv$", "aiperf-summary-csv"),
    (r"azure-llm-inference-2023/.*\.csv$", "azure-trace"),
    (r"genai-bench-glm46/D100_100_.*_num_concurrency_\d+_time_\d+s\.json$", "genai-bench"),
    (r"guidellm-yaml-jhurlocker/.*/benchmark-results\.yaml$", "guidellm"),
    (r"sglang-bench-serving-tonyli15/agg_.*\.jsonl$", "sglang-bench-serving"),
    (r"burstgpt-replay-vllm-liao4s/detail_log/.*\.json$", "burstgpt-detail"),
    (r"burstgpt-replay-vllm-liao4s/vllm_log/.*\.csv$", "vllm-server-stats"),
    (r"guidellm-danielkorat/.*_benchmarks\.json$", "guidellm"),
    (r"llmperf-leaderboard/raw_data/individual/.*\.json$", "llmperf"),
    (r"llmperf-leaderboard/raw_data/summary/.*\.json$", "llmperf-summary"),
    (r"llmperf-sglang-sweep-hongxuanzhang/.*_individual_responses\.json$", "llmperf"),
    (r"llmperf-sglang-sweep-hongxuanzhang/.*_summary\.json$", "llmperf-summary"),
    (r"llmperf-sglang-sweep-hongxuanzhang/.*/requests_\d+_tokens_\d+\.txt$", "llmperf-console"),
    (r"mooncake-fast25/.*\.jsonl$", "mooncake-trace"),
]
NOT_LOGS = re.compile(r"(SOURCE\.md|README)$")
# A tool's settings beside its runs: no run alone (exit 3 saying what it is), read with its folder.
NOT_RUNS = re.compile(r"genai-bench-glm46/experiment_metadata\.json$")


def servestat(*args):
    return subprocess.run([SERVESTAT, *args], capture_output=True, text=True)


def data_files():
    for root, _, files in sorted(os.walk(DATA)):
        for name in sorted(files):
            yield os.path.relpath(os.path.join(root, name), DATA)


def expected_format(rel):
    for pattern, name in EXPECTED:
        if re.search(pattern, rel):
            return name
    return None


def test_every_data_file_is_detected_and_summarised():
    for rel in data_files():
        path = os.path.join(DATA, rel)
        if NOT_LOGS.search(rel):
            r = servestat("stats", path)
            check(r.returncode == 3 and "known formats:" in r.stderr,
                  f"{rel}: not a log, expected exit 3 listing the formats tried, got {r.returncode} {r.stderr!r}")
            continue
        if NOT_RUNS.search(rel):
            r = servestat("stats", path)
            check(r.returncode == 3 and "not a run" in r.stderr, f"{rel}: settings alone, expected exit 3: {r.stderr!r}")
            continue
        want = expected_format(rel)
        check(want is not None, f"{rel}: no expectation in this test")
        r = servestat("stats", "--json", path)
        if r.returncode != 0:
            check(False, f"{rel}: exit {r.returncode}: {r.stderr.strip()}")
            continue
        runs = json.loads(r.stdout)["runs"]
        check(len(runs) >= 1, f"{rel}: no runs")
        formats = {run["source"]["format"] for run in runs}
        check(formats == {want}, f"{rel}: detected {formats}, expected {want}")
        for run in runs:
            if run["kind"] == "requests":
                check(run["requests"] > 0, f"{rel}: a request log without requests")
            elif run["kind"] == "summary":
                check(len(run["reported"]) > 0, f"{rel}: a summary without reported values")
            else:
                check(run["arrivals"]["count"] > 0, f"{rel}: a trace without arrivals")
        text = servestat("stats", path)
        check(text.returncode == 0 and text.stdout.startswith("How these runs were read\n") and "\nrun " in text.stdout,
              f"{rel}: text table failed")


def leaf_directories():
    for root, dirs, files in sorted(os.walk(DATA)):
        if any(not NOT_LOGS.search(f) for f in files):
            yield root


def test_every_data_directory_gets_a_report():
    for i, directory in enumerate(leaf_directories()):
        out = os.path.join(WORK, f"report-{i}")
        r = servestat("report", "-o", out, directory)
        rel = os.path.relpath(directory, DATA)
        check(r.returncode == 0, f"report {rel}: exit {r.returncode}: {r.stderr.strip()}")
        if r.returncode != 0:
            continue
        for name in ("report.md", "report.html", "report.json"):
            check(os.path.getsize(os.path.join(out, name)) > 0, f"report {rel}: {name} empty")
        html = open(os.path.join(out, "report.html"), encoding="utf-8").read()
        check("<script" not in html, f"report {rel}: script in HTML")


def test_directories_pass_over_non_logs():
    # aiperf-example holds SOURCE.md and the run in run1/: the folder is read with its sub-folder,
    # and what was passed over is named in one note.
    r = servestat("stats", "--json", os.path.join(DATA, "aiperf-example"))
    check(r.returncode == 0 and len(json.loads(r.stdout)["runs"]) == 1,
          f"the run in aiperf-example/run1 is found from its parent: {r.returncode} {r.stderr!r}")
    check("passed over 1 file" in r.stderr and "SOURCE.md (no format recognises it)" in r.stderr,
          f"SOURCE.md named as passed over: {r.stderr!r}")
    r = servestat("stats", "--json", os.path.join(DATA, "llmperf-leaderboard", "raw_data", "summary"))
    check(r.returncode == 0 and len(json.loads(r.stdout)["runs"]) == 19, "19 LLMPerf summaries in one folder")


sys.exit(run_tests(WORK, [test_every_data_file_is_detected_and_summarised,
                          test_every_data_directory_gets_a_report,
                          test_directories_pass_over_non_logs]))
