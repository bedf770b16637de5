#!/usr/bin/python3
"""Hostile input (issues 17 and 22): every row of docs/reliability.md's table, run as a new user would.
Each input either gives the right answer or exits with a message naming the file (and line and field
where there is one): never a crash, a hang, a NaN, a wrong order, an unbounded allocation or a report
as large as one error text. Runs under ASan/UBSan in `make test` too.

Usage: test_hostile_input.py SERVESTAT_BINARY WORK_DIR TEST_DATA_DIR   (run by ctest)
"""
import json
import os
import shutil
import subprocess
import sys

from checks import check, run_tests

SERVESTAT, WORK, DATA = sys.argv[1], sys.argv[2], sys.argv[3]
REPLACEMENT = "\ufffd"


def servestat(*args, timeout=120, user=None):
    command = [SERVESTAT, *args]
    if user:  # root reads every file: drop to `nobody` to meet a permission error
        command = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", *command]
    res = subprocess.run(command, capture_output=True, timeout=timeout)
    # Every byte the tool writes must be UTF-8: decoding strictly is part of each check.
    try:
        res.stdout, res.stderr = res.stdout.decode("utf-8"), res.stderr.decode("utf-8")
    except UnicodeDecodeError as e:
        check(False, f"{' '.join(args)}: output is not UTF-8: {e}")
        res.stdout, res.stderr = res.stdout.decode("utf-8", "replace"), res.stderr.decode("utf-8", "replace")
    return res


def path(name):
    return os.path.join(WORK, name)


def write_log(name, requests, run=None, raw_lines=()):
    header = {"servestat": "log", "version": 1,
              "run": run if run is not None else {"label": "x", "started_at": "2026-01-01T00:00:00Z"}}
    with open(path(name), "w", encoding="utf-8") as f:
        f.write(json.dumps(header) + "\n")
        for r in requests:
            f.write(json.dumps(r) + "\n")
        for line in raw_lines:
            f.write(line + "\n")
    return path(name)


def ok_request(i, **fields):
    r = {"id": str(i), "t_sent": i * 0.1, "t_first": i * 0.1 + 0.05, "t_end": i * 0.1 + 0.5,
         "prompt_tokens": 10, "output_tokens": 20, "status": "ok"}
    r.update(fields)
    return r


def expect_error(args, code, *needles):
    res = servestat(*args)
    what = " ".join(a if len(a) < 80 else a[:80] + "..." for a in args)
    check(res.returncode == code, f"{what}: exit {res.returncode}, wanted {code}; stderr {res.stderr[:400]!r}")
    for needle in needles:
        check(needle in res.stderr, f"{what}: stderr lacks {needle!r}: {res.stderr[:400]!r}")
    return res


def report_files(out):
    """The report's text files, each checked to be UTF-8."""
    texts = {}
    for name in ("report.md", "report.html", "report.json"):
        with open(os.path.join(out, name), "rb") as f:
            data = f.read()
        try:
            texts[name] = data.decode("utf-8")
        except UnicodeDecodeError as e:
            check(False, f"{out}/{name} is not UTF-8: {e}")
            texts[name] = data.decode("utf-8", "replace")
    json.loads(texts["report.json"])
    return texts


def peak_rss_mib(args):
    """Exit status and peak resident memory of one run of the tool, in a fresh child so the peak is its own."""
    probe = ("import resource,subprocess,sys;"
             "rc=subprocess.run(sys.argv[1:],capture_output=True).returncode;"
             "print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)")
    out = subprocess.run([sys.executable, "-c", probe, SERVESTAT, *args], capture_output=True, text=True).stdout.split()
    return int(out[0]), int(out[1])


# ---- issue 22: the eleven defects -----------------------------------------------------------------

def test_durations_that_overflow_are_refused_naming_line_and_field():
    log = write_log("overflow.jsonl", [ok_request(0, t_sent=-1.7e308, t_first=0, t_end=1.7e308), ok_request(1)])
    expect_error(["stats", log], 3, f"{log}:2: field 't_sent'", "not a time servestat can use")
    expect_error(["stats", "--json", log], 3, f"{log}:2: field 't_sent'")
    out = path("overflow_report")
    expect_error(["report", "-o", out, log], 3, f"{log}:2: field 't_sent'")
    check(not os.path.exists(os.path.join(out, "report.md")), "no report is written")
    # Through --map as well: the span between two finite times is what overflows.
    with open(path("overflow.csv"), "w") as f:
        f.write("start,end\n0,1\n-1.7e308,1.7e308\n")
    expect_error(["stats", "--map", "t_sent=start:s,t_end=end:s", path("overflow.csv")], 3,
                 f"{path('overflow.csv')}:3: field 'end (t_end)'")


def test_token_sums_do_not_overflow_32_bits():
    log = write_log("tokens.jsonl", [ok_request(0, t_sent=0, t_first=0.1, t_end=1.0, prompt_tokens=2_000_000_000,
                                                output_tokens=2_000_000_000)])
    res = servestat("stats", "--json", log)
    check(res.returncode == 0, f"exit {res.returncode}: {res.stderr!r}")
    if res.returncode == 0:
        r = json.loads(res.stdout)["runs"][0]
        # One request over one second: (2e9 + 2e9) tokens / 1 s, by hand.
        check(r["total_tps"] == 4e9, f"total tok/s {r['total_tps']}, wanted 4e9")
        check(r["output_tps"] == 2e9, f"output tok/s {r['output_tps']}, wanted 2e9")


def test_dates_after_2262_keep_their_order_in_a_trend():
    logs = []
    for year in (2300, 2026, 1500):
        logs.append(write_log(f"y{year}.jsonl", [ok_request(0), ok_request(1)],
                              run={"label": f"y{year}", "started_at": f"{year}-01-01T00:00:00Z"}))
    out = path("trend")
    res = servestat("report", "--trend", "-o", out, *logs)
    check(res.returncode == 0, f"trend: exit {res.returncode}: {res.stderr!r}")
    if res.returncode == 0:
        with open(os.path.join(out, "trend.json"), encoding="utf-8") as f:
            runs = json.load(f)["runs"]
        check([r["label"] for r in runs] == ["y1500", "y2026", "y2300"], f"order {[r['label'] for r in runs]}")
        check(runs[-1]["started_utc"] == "2300-01-01T00:00:00Z", f"started_utc {runs[-1]['started_utc']}")
        check(runs[0]["started_utc"] == "1500-01-01T00:00:00Z", f"started_utc {runs[0]['started_utc']}")


def test_invalid_utf8_in_a_file_name_a_cell_or_a_quoted_line_becomes_u_fffd():
    bad_name = os.path.join(os.fsencode(WORK), b"bad\xff.jsonl")
    with open(write_log("utf8_source.jsonl", [ok_request(i) for i in range(3)],
                        run={"started_at": "2026-01-01T00:00:00Z"}), "rb") as f:
        content = f.read()
    with open(bad_name, "wb") as f:
        f.write(content)
    name_arg = os.fsdecode(bad_name)
    res = servestat("stats", "--json", name_arg)
    check(res.returncode == 0, f"stats --json of bad\\xff.jsonl: exit {res.returncode}: {res.stderr!r}")
    if res.returncode == 0:
        r = json.loads(res.stdout)["runs"][0]
        check(r["label"] == "bad" + REPLACEMENT, f"label {r['label']!r}")
        check(any("not valid UTF-8" in n for n in r["notes"]), f"a note says so: {r['notes']}")
    out = path("utf8_report")
    res = servestat("report", "-o", out, name_arg)
    check(res.returncode == 0, f"report: exit {res.returncode}: {res.stderr!r}")
    if res.returncode == 0:
        check("bad" + REPLACEMENT in report_files(out)["report.md"], "report.md names bad\ufffd")

    with open(path("cell.csv"), "wb") as f:
        f.write(b"ttft,e2e,error\n0.1,0.5,\n0.2,0.6,boom \xff here\n")
    res = servestat("stats", "--json", "--map", "ttft=ttft:s,e2e=e2e:s,error=error", path("cell.csv"))
    check(res.returncode == 0, f"--map with a 0xFF cell: exit {res.returncode}: {res.stderr!r}")
    if res.returncode == 0:
        errors = json.loads(res.stdout)["runs"][0]["errors"]
        check(errors and errors[0]["example"] == "boom " + REPLACEMENT + " here", f"errors {errors}")

    # A skipped line's message may quote the bad value: it is UTF-8 on stderr and in report.json.
    log = write_log("quoted.jsonl", [ok_request(0), ok_request(1)])
    with open(log, "ab") as f:
        f.write(b'{"id":"2","t_sent":0,"t_end":1,"status":"\xff\xfe"}\n')
    out = path("quoted_report")
    res = servestat("report", "--skip-bad", "-o", out, log)
    check(res.returncode == 0 and f"{log}: skipped 1 bad line" in res.stderr,
          f"report --skip-bad of a 0xFF status: exit {res.returncode}: {res.stderr!r}")
    if res.returncode == 0:
        report_files(out)


def test_many_json_documents_are_read_in_linear_time_and_the_first_bad_one_ends_the_read():
    with open(path("many.json"), "w") as f:
        f.write("{}" * 240_000)
    expect_error(["stats", "--map", "records=r,ttft=a,e2e=b", path("many.json")], 3,
                 f"{path('many.json')}:1: field 'r'", "empty object")


def test_a_byte_order_mark_is_skipped_by_detection_and_every_reader():
    plain = write_log("plain.jsonl", [ok_request(i) for i in range(4)])
    with open(plain, "rb") as f:
        content = f.read()
    with open(path("bom.jsonl"), "wb") as f:
        f.write(b"\xef\xbb\xbf" + content)
    a, b = servestat("stats", "--json", plain), servestat("stats", "--json", path("bom.jsonl"))
    check(b.returncode == 0, f"BOM log: exit {b.returncode}: {b.stderr!r}")
    if a.returncode == 0 and b.returncode == 0:
        ra, rb = json.loads(a.stdout)["runs"][0], json.loads(b.stdout)["runs"][0]
        check(ra["subsets"] == rb["subsets"], "the same statistics with and without a BOM")
    # A whole-document format and a CSV format behind a BOM read as without it.
    for fixture in ("vllm_bench_json/single_detailed.json", "notebook/budget_mix_70_30.csv"):
        with open(os.path.join(DATA, fixture), "rb") as f:
            content = f.read()
        copy = path("bom-" + os.path.basename(fixture))
        with open(copy, "wb") as f:
            f.write(b"\xef\xbb\xbf" + content)
        a, b = servestat("stats", "--json", os.path.join(DATA, fixture)), servestat("stats", "--json", copy)
        check(a.returncode == 0 and b.returncode == 0, f"BOM {fixture}: {a.stderr!r} {b.stderr!r}")
        if a.returncode == 0 and b.returncode == 0:
            check(json.loads(a.stdout)["runs"][0]["subsets"] == json.loads(b.stdout)["runs"][0]["subsets"],
                  f"BOM {fixture}: the same statistics")


def test_a_symlink_loop_in_a_directory_is_a_warning_and_the_rest_is_read():
    d = path("loops")
    os.makedirs(os.path.join(d, "sub"))
    shutil.copy(write_log("loop_good.jsonl", [ok_request(0)]), os.path.join(d, "good.jsonl"))
    os.symlink("b", os.path.join(d, "a"))
    os.symlink("a", os.path.join(d, "b"))
    os.symlink("../sub", os.path.join(d, "sub", "loop"))
    os.symlink("missing", os.path.join(d, "dangling"))
    res = servestat("stats", d)
    check(res.returncode == 0 and "good.jsonl" in res.stdout, f"exit {res.returncode}: {res.stderr!r}")
    for name in ("a", "b", "dangling"):
        check(f"warning: {os.path.join(d, name)}: passed over" in res.stderr, f"warns about {name}: {res.stderr!r}")
    expect_error(["stats", os.path.join(d, "a")], 3, os.path.join(d, "a"), "too many levels of symbolic links")


def test_an_unreadable_file_or_directory_says_permission_denied():
    d = path("locked")
    os.makedirs(os.path.join(d, "inner"))
    os.chmod(WORK, 0o755)
    shutil.copy(write_log("locked_good.jsonl", [ok_request(0)]), os.path.join(d, "good.jsonl"))
    as_nobody = os.geteuid() == 0
    if as_nobody and not shutil.which("setpriv"):
        print("skipped: running as root without setpriv")
        return
    for p in (os.path.dirname(WORK), WORK, d):
        os.chmod(p, os.stat(p).st_mode | 0o755)
    os.chmod(os.path.join(d, "good.jsonl"), 0o644)
    os.chmod(os.path.join(d, "inner"), 0)
    res = servestat("stats", os.path.join(d, "inner"), user=as_nobody)
    check(res.returncode == 3 and f"{os.path.join(d, 'inner')}: cannot read directory: permission denied" in res.stderr,
          f"locked directory: {res.returncode} {res.stderr!r}")
    res = servestat("stats", d, user=as_nobody)  # the locked folder inside is named and passed over
    check(res.returncode == 0 and "good.jsonl" in res.stdout, f"folder beside a locked one: {res.stderr!r}")
    check(f"{os.path.join(d, 'inner')}: passed over: permission denied" in res.stderr,
          f"the locked folder inside is named: {res.stderr!r}")
    shutil.copy(os.path.join(d, "good.jsonl"), os.path.join(d, "locked.jsonl"))
    os.chmod(os.path.join(d, "locked.jsonl"), 0)
    res = servestat("stats", d, user=as_nobody)  # a folder never stops on one file: passed over with the reason
    check(res.returncode == 0 and "locked.jsonl (cannot read: permission denied)" in res.stderr,
          f"locked file: {res.returncode} {res.stderr!r}")
    res = servestat("stats", "--strict", d, user=as_nobody)
    check(res.returncode == 3 and f"{os.path.join(d, 'locked.jsonl')}: cannot read: permission denied" in res.stderr,
          f"locked file under --strict: {res.returncode} {res.stderr!r}")
    os.chmod(os.path.join(d, "inner"), 0o755)


def test_whole_document_formats_refuse_a_huge_sparse_file_without_reading_it():
    sparse = path("sparse.json")
    with open(sparse, "wb") as f:
        f.truncate(3 << 30)  # 3 GiB of NUL bytes that take no disk
    for fmt in ("vllm-bench-json", "guidellm", "genai-perf"):
        rc, mib = peak_rss_mib(["stats", "--input-format", fmt, sparse])
        check(rc == 3, f"{fmt}: exit {rc}")
        check(mib < 400, f"{fmt}: peak memory {mib} MiB to refuse a 3 GiB file")
    expect_error(["stats", "--input-format", "vllm-bench-json", sparse], 3, f"{sparse}: file of 3072 MiB")
    expect_error(["stats", sparse], 3, f"{sparse}: binary data")
    os.remove(sparse)
    with open(path("zeros.json"), "wb") as f:
        f.write(b"\0" * 100_000)
    expect_error(["stats", "--input-format", "guidellm", path("zeros.json")], 3, "binary data (a NUL byte at offset 0)")
    with open(path("text.json"), "w") as f:
        f.write("x" * 100_000)
    expect_error(["stats", "--input-format", "vllm-bench-json", path("text.json")], 3,
                 "not a JSON document: it starts with 'x'")


def test_one_huge_error_text_is_shortened_in_reports_and_kept_once_in_the_json():
    text = "Internal error: " + "x" * 5_000_000
    log = write_log("huge_error.jsonl", [ok_request(i) for i in range(20)] +
                    [{"id": "e", "t_sent": 1, "t_end": 1.2, "status": "error", "http_status": 500, "error": text}])
    out = path("huge_error_report")
    res = servestat("report", "-o", out, log)
    check(res.returncode == 0, f"exit {res.returncode}: {res.stderr!r}")
    if res.returncode == 0:
        files = report_files(out)
        for name in ("report.md", "report.html"):
            check(len(files[name]) < 200_000, f"{name} is {len(files[name])} characters")
            check("(5,000,016 characters)" in files[name], f"{name} says how long the text was")
        check(files["report.json"].count(text) == 1, "report.json holds the whole text exactly once")
    res = servestat("stats", log)
    check(len(res.stdout) < 20_000 and "(5,000,016 characters)" in res.stdout, f"stats prints {len(res.stdout)} chars")


def test_no_bundled_or_test_input_prints_nan_or_infinity():
    """Every number in `stats --json` (what `stats` and reports print) is finite or null, for every
    file the tests and the examples hold (bad ones exit 2 or 3 with a message instead)."""
    def refuse(word):
        raise ValueError(word)

    files = sorted(os.path.join(root, f) for folder in (DATA, os.path.join(DATA, "..", "..", "examples", "logs"))
                   for root, _, names in os.walk(folder) for f in names if not f.endswith(".md"))
    checked = 0
    for f in files:
        res = servestat("stats", "--json", f)
        if res.returncode != 0:
            check(res.returncode in (2, 3) and res.stderr.startswith("servestat: "), f"{f}: exit {res.returncode}")
            continue
        try:
            json.loads(res.stdout, parse_constant=refuse)
            checked += 1
        except ValueError as e:
            check(False, f"{f}: stats --json holds {e}")
    check(checked >= 40, f"only {checked} files were read")


# ---- issue 17: the rest of the hostile-input table ------------------------------------------------

def test_empty_and_nul_files_are_refused():
    open(path("empty.jsonl"), "w").close()
    expect_error(["stats", path("empty.jsonl")], 3, f"{path('empty.jsonl')}: empty file")
    with open(path("nul.jsonl"), "wb") as f:
        f.write(b"\0" * 4096)
    expect_error(["stats", path("nul.jsonl")], 3, f"{path('nul.jsonl')}: binary data")
    log = write_log("nul_inside.jsonl", [ok_request(0)], raw_lines=['{"id":"1","t_sent":0,"t_end":1,\0"status":"ok"}'])
    expect_error(["stats", log], 3, f"{log}:3")


def test_one_50_mb_line_is_read_and_its_text_shortened():
    log = write_log("long_line.jsonl", [ok_request(0), {"id": "1", "t_sent": 0, "t_end": 1, "status": "error",
                                                        "error": "y" * 50_000_000}])
    res = servestat("stats", log)
    check(res.returncode == 0 and "(50,000,000 characters)" in res.stdout and len(res.stdout) < 20_000,
          f"50 MB line: exit {res.returncode}, {len(res.stdout)} chars: {res.stderr[:300]!r}")
    with open(path("over_limit.jsonl"), "w") as f:  # past the 64 MiB line limit: refused, not buffered whole
        f.write('{"servestat":"log","version":1,"run":{}}\n{"error":"' + "z" * (65 << 20) + '"}\n')
    expect_error(["stats", path("over_limit.jsonl")], 3, f"{path('over_limit.jsonl')}:2")
    os.remove(path("over_limit.jsonl"))


def test_json_nested_100000_deep_is_refused():
    deep = "[" * 100_000 + "]" * 100_000
    log = write_log("deep.jsonl", [ok_request(0)], raw_lines=[deep])
    expect_error(["stats", log], 3, f"{log}:3")
    with open(path("deep.json"), "w") as f:
        f.write(deep)
    for fmt in ("vllm-bench-json", "guidellm", "llmperf", "aiperf-summary"):
        expect_error(["stats", "--input-format", fmt, path("deep.json")], 3, "nested deeper than 256 levels")
    expect_error(["stats", "--map", "records=a,ttft=b,e2e=c", path("deep.json")], 3, "nested deeper than 256 levels")


def test_crlf_line_ends_give_the_same_statistics():
    plain = write_log("lf.jsonl", [ok_request(i) for i in range(5)])
    with open(plain, "rb") as f:
        content = f.read()
    with open(path("crlf.jsonl"), "wb") as f:
        f.write(content.replace(b"\n", b"\r\n"))
    a, b = servestat("stats", "--json", plain), servestat("stats", "--json", path("crlf.jsonl"))
    check(b.returncode == 0, f"CRLF: exit {b.returncode}: {b.stderr!r}")
    if a.returncode == 0 and b.returncode == 0:
        ra, rb = json.loads(a.stdout)["runs"][0], json.loads(b.stdout)["runs"][0]
        check(ra["subsets"] == rb["subsets"], "same statistics with CRLF")
    with open(path("crlf.csv"), "wb") as f:
        f.write(b"ttft,e2e\r\n0.1,0.5\r\n0.2,0.7\r\n")
    res = servestat("stats", "--json", "--map", "ttft=ttft:s,e2e=e2e:s", path("crlf.csv"))
    check(res.returncode == 0, f"CRLF CSV: {res.stderr!r}")


def test_numbers_no_statistic_can_use_are_refused_naming_the_field():
    cases = [('"t_end":1e400', "t_end"), ('"t_end":NaN', None), ('"t_end":Infinity', None),
             ('"t_end":-1', "t_end"), ('"t_end":0.5,"itl":[-0.1]', "itl"), ('"t_end":1e13', "t_end"),
             ('"t_end":0.5,"server_queue":-2', "server_queue")]
    for i, (fields, field) in enumerate(cases):
        log = write_log(f"number{i}.jsonl", [ok_request(0)],
                        raw_lines=['{"id":"1","t_sent":0,' + fields + ',"status":"ok"}'])
        expect_error(["stats", log], 3, f"{log}:3" + (f": field '{field}'" if field else ""))


def test_end_before_start_is_refused():
    log = write_log("backwards.jsonl", [ok_request(0, t_sent=5, t_first=5.1, t_end=1)])
    expect_error(["stats", log], 3, f"{log}:2: field 't_end'", "before t_sent")


def test_markup_in_every_string_stays_text_in_html_and_markdown():
    markup = '<script>alert(1)</script><img src=x onerror=alert(2)>|*_[a](b)'
    log = write_log("markup.jsonl", [ok_request(i) for i in range(3)] +
                    [{"id": "e", "t_sent": 0, "t_end": 1, "status": "error", "error": markup}],
                    run={"label": markup, "model": markup, "workload": markup, "params": {"concurrency": 4, "note": markup},
                         "started_at": "2026-01-01T00:00:00Z"})
    out = path("markup_report")
    res = servestat("report", "-o", out, log)
    check(res.returncode == 0, f"exit {res.returncode}: {res.stderr!r}")
    if res.returncode == 0:
        files = report_files(out)
        check("<script>" not in files["report.html"] and "<img" not in files["report.html"],
              "no input markup is live in report.html")
        check("&lt;script&gt;" in files["report.html"], "the label is shown escaped")
        check("<script>" not in files["report.md"].replace("\\<script\\>", ""), "report.md escapes markup")
        for svg in os.listdir(os.path.join(out, "plots")):
            with open(os.path.join(out, "plots", svg), encoding="utf-8") as f:
                check("<script>" not in f.read(), f"plots/{svg} escapes markup")


def test_a_report_of_more_runs_than_it_gives_sections_keeps_them_in_its_tables_only():
    """Finding M4 (issue 49): a section and charts per run made 8,000 one-request logs hold 3.4 GB and
    write 8,000 charts. Up to 64 runs each gets its section; past that the tables, the comparison
    charts and report.json keep every run, and the report says where the sections went."""
    for count in (64, 65):
        folder = path(f"many-{count}")
        os.makedirs(folder, exist_ok=True)
        for i in range(count):
            header = {"servestat": "log", "version": 1, "run": {"label": f"r{i:03d}", "started_at": "2026-01-01T00:00:00Z"}}
            with open(os.path.join(folder, f"r{i:03d}.jsonl"), "w") as f:
                f.write(json.dumps(header) + "\n" + json.dumps(ok_request(0, t_end=0.5 + i / 1000)) + "\n")
        out = path(f"many-{count}-report")
        res = servestat("report", "-j", "1", folder, "-o", out)
        check(res.returncode == 0, f"{count} runs: exit {res.returncode}: {res.stderr[:300]}")
        texts = report_files(out)
        sections = texts["report.md"].count("\n### r")
        run_charts = [n for n in os.listdir(os.path.join(out, "plots")) if not n.startswith("compare-")]
        stats = json.loads(texts["report.json"])
        check(len(stats["runs"]) == count, f"{count} runs: report.json has {len(stats['runs'])}")
        check(texts["report.md"].count("\n| r") >= count, f"{count} runs: the runs table lacks some")
        if count == 64:
            check(sections == 64 and len(run_charts) > 0, f"64 runs: {sections} sections, {len(run_charts)} run charts")
        else:
            check(sections == 0 and run_charts == [], f"65 runs: {sections} sections, charts {run_charts[:3]}")
            for name in ("report.md", "report.html"):
                check("65 runs are too many to read" in texts[name], f"{name} does not say what it left out")


def test_a_template_that_nests_or_multiplies_without_bound_is_refused():
    log = write_log("template.jsonl", [ok_request(i) for i in range(3)])
    for name, text, needle in [
            ("deep", "{{#runs}}" * 100_000 + "{{/runs}}" * 100_000, "sections nested more than 64 deep"),
            ("wide", "{{#runs}}" * 40 + "x" + "{{/runs}}" * 40, None),
            ("partial", "{{>report}}", "partials ({{>report}}) are not supported")]:
        folder = path(f"template_{name}")
        os.makedirs(folder)
        with open(os.path.join(folder, "report.md.mustache"), "w") as f:
            f.write(text)
        res = servestat("report", "-o", path(f"template_out_{name}"), "--template",
                        os.path.join(folder, "report.md.mustache"), log, timeout=60)
        check(res.returncode in (0, 2), f"template {name}: exit {res.returncode}: {res.stderr[:300]!r}")
        if needle:
            check(res.returncode == 2 and needle in res.stderr, f"template {name}: {res.stderr[:300]!r}")


if __name__ == "__main__":
    sys.exit(run_tests(WORK, [
        test_durations_that_overflow_are_refused_naming_line_and_field,
        test_token_sums_do_not_overflow_32_bits,
        test_dates_after_2262_keep_their_order_in_a_trend,
        test_invalid_utf8_in_a_file_name_a_cell_or_a_quoted_line_becomes_u_fffd,
        test_many_json_documents_are_read_in_linear_time_and_the_first_bad_one_ends_the_read,
        test_a_byte_order_mark_is_skipped_by_detection_and_every_reader,
        test_a_symlink_loop_in_a_directory_is_a_warning_and_the_rest_is_read,
        test_an_unreadable_file_or_directory_says_permission_denied,
        test_whole_document_formats_refuse_a_huge_sparse_file_without_reading_it,
        test_one_huge_error_text_is_shortened_in_reports_and_kept_once_in_the_json,
        test_no_bundled_or_test_input_prints_nan_or_infinity,
        test_empty_and_nul_files_are_refused,
        test_one_50_mb_line_is_read_and_its_text_shortened,
        test_json_nested_100000_deep_is_refused,
        test_crlf_line_ends_give_the_same_statistics,
        test_numbers_no_statistic_can_use_are_refused_naming_the_field,
        test_end_before_start_is_refused,
        test_markup_in_every_string_stays_text_in_html_and_markdown,
        test_a_template_that_nests_or_multiplies_without_bound_is_refused,
        test_a_report_of_more_runs_than_it_gives_sections_keeps_them_in_its_tables_only,
    ]))
