#!/usr/bin/python3
"""Nothing left is an error (issue 23): `stats`, `report` and `compare` with --skip-bad on a file whose
every request is bad exit 3 naming the file, the count skipped and the first reason, never a report
of nothing with exit 0. Skip counts say "lines" for line-based logs and "records" for JSON documents.

Usage: test_nothing_left.py SERVESTAT_BINARY WORK_DIR   (run by ctest)
"""
import json
import os
import subprocess
import sys

from checks import check, run_tests

SERVESTAT, WORK = sys.argv[1], sys.argv[2]
HEADER = {"servestat": "log", "version": 1, "run": {"label": "x", "params": {"concurrency": 1}}}


def servestat(*args):
    return subprocess.run([SERVESTAT, *args], capture_output=True, text=True)


def write_canonical(name, requests):
    path = os.path.join(WORK, name)
    with open(path, "w") as f:
        f.write(json.dumps(HEADER) + "\n")
        for r in requests:
            f.write(json.dumps(r) + "\n")
    return path


def llmperf_row(ttft, e2e):
    return {"error_code": None, "error_msg": "", "inter_token_latency_s": e2e / 20, "ttft_s": ttft,
            "end_to_end_latency_s": e2e, "request_output_throughput_token_per_s": 20 / e2e,
            "number_total_tokens": 30, "number_output_tokens": 20, "number_input_tokens": 10}


def write_llmperf(name, rows):
    path = os.path.join(WORK, name)
    with open(path, "w") as f:
        json.dump(rows, f, indent=4)  # LLMPerf's own layout: one pretty-printed array
    return path


def expect_nothing_left(args, path, unit, count, reason):
    res = servestat(*args)
    what = " ".join(args)
    check(res.returncode == 3, f"{what}: exit {res.returncode}, wanted 3; stderr {res.stderr!r}")
    wanted = f"{path}: every {unit} was bad: {count} {unit}s skipped under --skip-bad, nothing left to analyse"
    check(wanted in res.stderr, f"{what}: stderr lacks {wanted!r}: {res.stderr!r}")
    check(reason in res.stderr, f"{what}: stderr lacks the first reason {reason!r}: {res.stderr!r}")
    return res


def test_every_line_bad_is_exit_3_for_stats_report_and_compare():
    bad = write_canonical("all_bad.jsonl", [{"t_sent": 5, "t_end": 1, "status": "ok"},
                                            {"t_sent": 2, "t_end": 1, "status": "ok"},
                                            {"t_sent": 0, "status": "ok"}])
    good = write_canonical("good.jsonl", [{"t_sent": 0, "t_end": 1, "status": "ok"},
                                          {"t_sent": 0.5, "t_end": 2, "status": "ok"}])
    first = f"{bad}:2: field 't_end'"
    expect_nothing_left(["stats", "--skip-bad", bad], bad, "line", 3, first)
    expect_nothing_left(["stats", "--json", "--skip-bad", bad], bad, "line", 3, first)
    out = os.path.join(WORK, "report_all_bad")
    expect_nothing_left(["report", "--skip-bad", "-o", out, bad], bad, "line", 3, first)
    check(not os.path.exists(os.path.join(out, "report.md")), "no report of nothing is written")
    expect_nothing_left(["compare", "--skip-bad", good, bad], bad, "line", 3, first)
    expect_nothing_left(["compare", "--skip-bad", bad, good], bad, "line", 3, first)


def test_every_record_of_a_json_document_bad_is_exit_3_counting_records():
    bad = write_llmperf("all_bad_individual_responses.json", [llmperf_row(2.0, 1.0) for _ in range(4)])
    first = "ttft_s (2) is larger than end_to_end_latency_s (1)"
    expect_nothing_left(["stats", "--skip-bad", bad], bad, "record", 4, first)
    expect_nothing_left(["report", "--skip-bad", "-o", os.path.join(WORK, "report_llmperf"), bad], bad, "record", 4,
                        first)


def test_without_skip_bad_the_first_bad_request_stops_the_run():
    bad = write_llmperf("stop_individual_responses.json", [llmperf_row(2.0, 1.0)])
    res = servestat("stats", bad)
    check(res.returncode == 3 and "[0].ttft_s" in res.stderr, f"without --skip-bad: {res.returncode} {res.stderr!r}")


def test_partly_bad_files_count_lines_or_records_as_their_format_has_them():
    doc = write_llmperf("part_individual_responses.json", [llmperf_row(2.0, 1.0), llmperf_row(0.1, 1.0),
                                                           llmperf_row(0.2, 1.5)])
    res = servestat("stats", "--json", "--skip-bad", doc)
    check(res.returncode == 0, f"partly bad document: exit {res.returncode}: {res.stderr!r}")
    check(f"{doc}: skipped 1 bad record\n" in res.stderr, f"stderr counts records: {res.stderr!r}")
    if res.returncode == 0:
        skipped = json.loads(res.stdout)["runs"][0]["skipped"]
        check(skipped["count"] == 1 and skipped["unit"] == "record", f"JSON skipped: {skipped}")
    out = os.path.join(WORK, "report_part")
    res = servestat("report", "--skip-bad", "-o", out, doc)
    check(res.returncode == 0, f"report of a partly bad document: {res.stderr!r}")
    if res.returncode == 0:
        with open(os.path.join(out, "report.md"), encoding="utf-8") as f:
            md = f.read()
        check("1 bad record was skipped." in md and "log lines" not in md, "report.md counts the record")

    log = write_canonical("part.jsonl", [{"t_sent": 5, "t_end": 1, "status": "ok"},
                                         {"t_sent": 0, "t_end": 1, "status": "ok"}])
    res = servestat("stats", "--json", "--skip-bad", log)
    check(f"{log}: skipped 1 bad line\n" in res.stderr, f"stderr counts lines: {res.stderr!r}")
    if res.returncode == 0:
        check(json.loads(res.stdout)["runs"][0]["skipped"]["unit"] == "line", "JSON unit line")


def test_a_header_only_log_is_an_error_with_or_without_skip_bad():
    empty = write_canonical("header_only.jsonl", [])
    for args in (["stats", empty], ["stats", "--skip-bad", empty]):
        res = servestat(*args)
        check(res.returncode == 3 and "no requests after the header" in res.stderr, f"{args}: {res.stderr!r}")


if __name__ == "__main__":
    sys.exit(run_tests(WORK, [test_every_line_bad_is_exit_3_for_stats_report_and_compare,
                              test_every_record_of_a_json_document_bad_is_exit_3_counting_records,
                              test_without_skip_bad_the_first_bad_request_stops_the_run,
                              test_partly_bad_files_count_lines_or_records_as_their_format_has_them,
                              test_a_header_only_log_is_an_error_with_or_without_skip_bad]))
