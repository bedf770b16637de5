"""What the CLI test scripts share: soft checks that record failures, running the tests in order, and
starting the simulator."""
import json
import math
import os
import re
import shutil
import sys
import subprocess

failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print("FAIL:", what)


def as_json(res, what):
    """The JSON a command printed, checking it exited 0; {} (and a failure) where it did not."""
    check(res.returncode == 0, f"{what}: exit {res.returncode}, stderr {res.stderr!r}")
    try:
        return json.loads(res.stdout)
    except ValueError:
        check(False, f"{what}: not JSON: {res.stdout[:200]!r}")
        return {}


def close(a, b, rel=1e-9):
    """a and b both given and within `rel` of b."""
    return a is not None and b is not None and abs(a - b) <= rel * max(abs(b), 1e-12)


def holds_data_sets(folder):
    """Whether `folder` looks like a data folder (shared/data: a SOURCE.md per set), not a test's work."""
    if not os.path.isdir(folder):
        return False
    return os.path.exists(os.path.join(folder, "SOURCE.md")) or any(
        os.path.exists(os.path.join(e.path, "SOURCE.md")) for e in os.scandir(folder) if e.is_dir())


def run_tests(work_dir, tests):
    """Runs each test in a fresh work_dir; the exit status is 1 when any check failed. A work_dir that
    holds data sets is refused, not emptied: the arguments were given in the wrong order (it happened)."""
    if holds_data_sets(work_dir):
        sys.exit(f"refusing to empty {work_dir}: it holds data sets (SOURCE.md), not a test's work; "
                 "check the order of the arguments (see the test's usage line)")
    shutil.rmtree(work_dir, ignore_errors=True)
    os.makedirs(work_dir)
    for fn in tests:
        print("--", fn.__name__)
        fn()
    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


def read_driver_log(log):
    """A log `servestat load` wrote: its header's run object and its request lines, each parsed."""
    with open(log) as f:
        lines = [json.loads(line) for line in f if line.strip()]
    return lines[0]["run"], lines[1:]


def start_simulator(servestat, log, *args):
    """`servestat simulate --port 0 ARGS`, stderr to the open file `log`: (process, the port it printed)."""
    proc = subprocess.Popen([servestat, "simulate", "--port", "0", *args], stdout=subprocess.PIPE, stderr=log,
                            text=True)
    line = proc.stdout.readline().strip()
    m = re.fullmatch(r"servestat simulate listening on http://127\.0\.0\.1:(\d+)", line)
    check(m is not None, f"listening line: {line!r}")
    return proc, int(m.group(1)) if m else 0


def metric_value(prometheus_text, name):
    """The value of the first sample of `name` in a /metrics text, or None."""
    for line in prometheus_text.splitlines():
        if line.startswith(name + "{") or line.startswith(name + " "):
            return float(line.rsplit(" ", 1)[1])
    return None


def order_statistic_ranks(n, percent, confidence_percent=95):
    """The distribution-free interval of percentile `percent` of n values: 0-based ranks (lower, upper) of the equal-tailed interval, or None: lower is the largest l with
    P(B <= l-1) <= alpha/2, upper the smallest u with P(B <= u-1) >= 1 - alpha/2, B ~ Binomial(n, p),
    in integers scaled by 100**n so that nothing is rounded."""
    total, cdf, lower, upper = 100 ** n, 0, None, None
    for k in range(n):
        cdf += math.comb(n, k) * percent ** k * (100 - percent) ** (n - k)
        if cdf * 200 <= (100 - confidence_percent) * total:
            lower = k + 1
        if cdf * 200 >= (100 + confidence_percent) * total:
            upper = k + 1
            break
    return None if lower is None or upper is None else (lower - 1, upper - 1)
