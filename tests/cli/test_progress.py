#!/usr/bin/python3
"""Progress on standard error (issue 40): under a pseudo-terminal `stats`, `summarize`, `report` and
`compare` draw a progress line (the stage, a file or pair or run, done of the total, a rate) and clear it
when done, and a message written meanwhile starts on a line of its own; with standard error piped, and
with --quiet under the terminal, no progress at all; standard output and every output file are byte for
byte the same in the three. SERVESTAT_PROGRESS_AFTER=0 lets the line show at once (the default waits
0.5 s, so short commands print nothing), and the display draws a last frame with the final counts before
it clears the line, so what is checked does not depend on timing.

Usage: test_progress.py SERVESTAT_BINARY WORK_DIR   (run by ctest)
"""
import fcntl
import json
import os
import pty
import re
import struct
import subprocess
import sys
import termios

from checks import check, run_tests

SERVESTAT, WORK = sys.argv[1], sys.argv[2]
CLEAR = b"\r\x1b[K"
PROGRESS = re.compile(rb"servestat: (reading|bootstrap|analysing|charts) [\d.,]+ ")  # a stage's count


def write_log(path, label, requests, seed):
    """A canonical log of `requests` requests (prompt lengths over every subset, a few failures)."""
    with open(path, "w") as f:
        f.write(json.dumps({"servestat": "log", "version": 1,
                            "run": {"label": label, "params": {"concurrency": 16}}}) + "\n")
        for i in range(requests):
            sent = 0.01 * i
            ok = (i + seed) % 41 != 0
            f.write(json.dumps({"id": str(i), "t_sent": round(sent, 6),
                                "t_first": round(sent + 0.2 + 0.001 * ((i * seed) % 37), 6),
                                "t_end": round(sent + 1.0 + 0.01 * ((i + seed) % 53), 6),
                                "prompt_tokens": 10 + (i * 7) % 3000, "output_tokens": 64,
                                "status": "ok" if ok else "error", **({} if ok else {"error": "overloaded"})}) + "\n")
    return path


def byte_text(n):
    """What the display writes for a number of bytes (app/progress_display.hpp's byte_text)."""
    units, x, u = ["B", "KiB", "MiB", "GiB", "TiB"], float(n), 0
    while x >= 1024 and u + 1 < len(units):
        x, u = x / 1024, u + 1
    if u == 0:
        return f"{x:.0f} B"
    return f"{x:.{2 if x < 10 else 1 if x < 100 else 0}f} {units[u]}"


def env():
    return dict(os.environ, SERVESTAT_PROGRESS_AFTER="0")


def under_pty(args, stdout_path, columns=400, cwd=None):
    """Runs servestat with standard error on a pseudo-terminal `columns` wide, standard output to a
    file: (exit status, everything written to the terminal)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    with open(stdout_path, "wb") as out:
        proc = subprocess.Popen([SERVESTAT, *args], stdin=subprocess.DEVNULL, stdout=out, stderr=slave, env=env(),
                                cwd=cwd)
    os.close(slave)
    chunks = []
    while True:  # read while it runs: a full terminal buffer would stop the child
        try:
            data = os.read(master, 1 << 16)
        except OSError:  # EIO: every end of the terminal is closed
            break
        if not data:
            break
        chunks.append(data)
    proc.wait()
    os.close(master)
    return proc.returncode, b"".join(chunks)


def piped(args, stdout_path, cwd=None):
    with open(stdout_path, "wb") as out:
        res = subprocess.run([SERVESTAT, *args], stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.PIPE,
                             env=env(), cwd=cwd)
    return res.returncode, res.stderr


def frames(err):
    """The progress lines drawn: each is written as \\r TEXT ESC[K."""
    return [m.group(1).decode() for m in re.finditer(rb"\r([^\r\n\x1b]+)\x1b\[K", err)]


def tree(folder):
    """Every file under `folder`: relative path -> bytes."""
    out = {}
    for root, _, files in os.walk(folder):
        for name in files:
            path = os.path.join(root, name)
            with open(path, "rb") as f:
                out[os.path.relpath(path, folder)] = f.read()
    return out


def three_ways(name, args):
    """Runs `args` under the terminal, piped, and under the terminal with --quiet, each in a folder of
    its own (output paths in `args` are relative to it); checks the exit status, that standard output
    and every file written are the same bytes in the three, and that only the first shows progress.
    Returns what the terminal run wrote to standard error."""
    results = {}
    for how in ("tty", "pipe", "quiet"):
        cwd = os.path.join(WORK, f"{name}-{how}")
        os.makedirs(cwd)
        stdout_path = os.path.join(WORK, f"{name}-{how}.stdout")
        rc, err = (piped if how == "pipe" else under_pty)(args + (["--quiet"] if how == "quiet" else []), stdout_path,
                                                          cwd=cwd)
        check(rc == 0, f"{name} ({how}): exit {rc}; stderr {err[-2000:]!r}")
        with open(stdout_path, "rb") as f:
            results[how] = (f.read(), tree(cwd), err)
    tty_out, tty_files, tty_err = results["tty"]
    check(b"\x1b[K" in tty_err and frames(tty_err), f"{name}: no progress under the terminal: {tty_err[-2000:]!r}")
    check(CLEAR in tty_err, f"{name}: the progress line is never cleared: {tty_err[-500:]!r}")
    for how in ("pipe", "quiet"):
        out, files, err = results[how]
        check(b"\x1b" not in err and not PROGRESS.search(err),  # (a terminal writes "\n" as "\r\n")
              f"{name} ({how}): progress on stderr: {err[-2000:]!r}")
        check(out == tty_out, f"{name} ({how}): standard output differs from the terminal run's")
        check(files == tty_files, f"{name} ({how}): files written differ: "
                                  f"{sorted(k for k in set(files) | set(tty_files) if files.get(k) != tty_files.get(k))}")
    return tty_err


def test_stats_reading_shows_file_total_and_rate():
    logs = os.path.join(WORK, "logs")
    os.makedirs(logs)
    a = write_log(os.path.join(logs, "progress_a.jsonl"), "a", 6000, 3)
    b = write_log(os.path.join(logs, "progress_b.jsonl"), "b", 4000, 5)
    total = byte_text(os.path.getsize(a) + os.path.getsize(b))
    err = three_ways("stats", ["stats", "-j", "2", a, b])
    shown = frames(err)
    check(all(re.match(r"servestat: reading[ :]", f) for f in shown), f"stats: frames {shown[:3]}")
    # The last frame has the final counts: the total the two files add up to, a rate, and one of the
    # files with its size.
    last = shown[-1] if shown else ""
    m = re.fullmatch(r"servestat: reading (\S+ \S+) of (\S+ \S+) \(100%\), [\d.]+ (B|KiB|MiB|GiB)/s; "
                     r"\S*progress_([ab])\.jsonl 100% of (\S+ \S+)", last)
    check(m is not None, f"stats: last frame {last!r}")
    if m:
        check(m.group(1) == total and m.group(2) == total, f"stats: {m.group(1)} of {m.group(2)}, wanted {total}")
        size = byte_text(os.path.getsize(a if m.group(4) == "a" else b))
        check(m.group(5) == size, f"stats: the file's total {m.group(5)}, wanted {size}")
    check(err.endswith(CLEAR), f"stats: stderr does not end with the line cleared: {err[-200:]!r}")
    # The --json text too (another code path to standard output).
    three_ways("stats_json", ["stats", "--json", "-j", "1", a])


def test_a_message_during_progress_starts_a_line_of_its_own():
    logs = os.path.join(WORK, "logs")
    with open(os.path.join(logs, "README.md"), "w") as f:
        f.write("# not a log\n")
    err = three_ways("stats_dir", ["stats", "-j", "2", logs])
    note = f"servestat: {logs}: read 2 logs; passed over 1 file:".encode()
    at = err.find(note)
    check(at >= 0, f"stats on a directory: the passed-over note is missing: {err[-2000:]!r}")
    if at >= 0:
        before = err[:at]
        check(before == b"" or before.endswith(CLEAR) or before.endswith(b"\n"),
              f"stats on a directory: the note follows a progress line: {err[max(0, at - 200):at + 80]!r}")
    sizes = sum(os.path.getsize(os.path.join(logs, n)) for n in os.listdir(logs))
    shown = frames(err)
    last = shown[-1] if shown else ""
    check(last.startswith(f"servestat: reading {byte_text(sizes)} of {byte_text(sizes)} (100%)"),
          f"stats on a directory: the README's bytes count too, the total is reached: {last!r}")


def test_a_narrow_terminal_gets_lines_that_fit():
    a = os.path.join(WORK, "logs", "progress_a.jsonl")
    rc, err = under_pty(["stats", "-j", "1", a], os.path.join(WORK, "narrow.stdout"), columns=50)
    check(rc == 0, f"narrow: exit {rc}")
    shown = frames(err)
    check(shown and all(len(f) <= 49 for f in shown), f"narrow: frames wider than 49 characters: {shown[-2:]}")


def test_summarize_streams_with_progress():
    a = os.path.join(WORK, "logs", "progress_a.jsonl")
    err = three_ways("summarize", ["summarize", a, "-o", "out.ssum.json"])
    check(os.path.getsize(os.path.join(WORK, "summarize-tty", "out.ssum.json")) > 0, "summarize: no summary written")
    last_line = err.rfind(b"summary of 6000 requests")
    check(last_line > 0, f"summarize: the closing line is missing: {err[-300:]!r}")
    shown = frames(err)
    check(shown and shown[-1].startswith("servestat: reading ") and "progress_a.jsonl" in shown[-1],
          f"summarize: frames {shown[-2:]}")
    if last_line > 0:
        line_start = err.rfind(b"servestat: ", 0, last_line)
        check(err[:line_start].endswith(CLEAR), f"summarize: the closing line follows a progress line: {err[-300:]!r}")


def test_compare_shows_the_bootstrap():
    before = write_log(os.path.join(WORK, "before.jsonl"), "before", 3000, 7)
    after = write_log(os.path.join(WORK, "after.jsonl"), "after", 3000, 11)
    err = three_ways("compare", ["compare", before, after, "--resamples", "1000", "-j", "2", "-o", "out"])
    shown = frames(err)
    last = shown[-1] if shown else ""
    check(re.fullmatch(r"servestat: bootstrap 1,000 of 1,000 resamples \(100%\), [\d,]+ resamples/s; before / after",
                       last) is not None,
          f"compare: last frame {last!r}")
    three_ways("compare_json", ["compare", before, after, "--resamples", "200", "--json"])


def test_report_of_many_runs_counts_runs():
    runs = os.path.join(WORK, "runs")
    os.makedirs(runs)
    for k in range(6):
        write_log(os.path.join(runs, f"run-c{2 ** k}.jsonl"), f"run-c{2 ** k}", 400, k + 1)
    err = three_ways("report", ["report", runs, "-j", "2", "-o", "out"])
    shown = frames(err)
    last = shown[-1] if shown else ""
    check(re.fullmatch(r"servestat: charts 6 of 6 runs \(100%\), [\d.]+ runs/s; run-c\d+", last) is not None,
          f"report: last frame {last!r}")


if __name__ == "__main__":
    sys.exit(run_tests(WORK, [test_stats_reading_shows_file_total_and_rate,
                              test_a_message_during_progress_starts_a_line_of_its_own,
                              test_a_narrow_terminal_gets_lines_that_fit, test_summarize_streams_with_progress,
                              test_compare_shows_the_bootstrap, test_report_of_many_runs_counts_runs]))
