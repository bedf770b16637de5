#!/usr/bin/python3
"""CLI tests for `servestat knee`: Kneedle on CSV columns, text and --json output, exit codes.

Expected knees are derived by hand in tests/test_kneedle.cpp and docs/knee.md (Experiment 3, the
staircase) or are the assertions of kneed's own test suite (figure 2, the bumpy curve).

Usage: test_knee.py SERVESTAT_BINARY WORK_DIR   (run by ctest)
"""
import json
import math
import os
import subprocess
import sys

from checks import check, run_tests

SERVESTAT, WORK = sys.argv[1], sys.argv[2]

CONCURRENCY = [1, 2, 4, 8, 16, 32, 48, 64]
RPS = ["1.310728", "2.350512", "3.588961", "4.897939", "5.902047", "5.912537", "6.029853", "5.817353"]
P99 = ["1.302439", "1.788700", "2.692315", "3.694609", "6.204649", "9.536481", "13.755477", "21.667766"]


def servestat(*args):
    return subprocess.run([SERVESTAT, "knee", *args], capture_output=True, text=True)


def write(name, text):
    path = os.path.join(WORK, name)
    with open(path, "w") as f:
        f.write(text)
    return path


def exp3_csv(name="exp3.csv", order=None):
    rows = [f"{c},{r},{p}" for c, r, p in zip(CONCURRENCY, RPS, P99)]
    if order:
        rows = [rows[i] for i in order]
    return write(name, "concurrency,rps,p99_s\n" + "\n".join(rows) + "\n")


def first_line(res):
    return res.stdout.splitlines()[0] if res.stdout else ""


def as_json(res, what):
    check(res.returncode == 0, f"{what}: exit {res.returncode}, stderr {res.stderr!r}")
    try:
        return json.loads(res.stdout)
    except ValueError:
        check(False, f"{what}: not JSON: {res.stdout!r}")
        return {}


def test_experiment3_throughput_knee_in_text():
    path = exp3_csv()
    res = servestat(path, "--curve", "concave", "--direction", "increasing")
    check(res.returncode == 0, f"exit {res.returncode}: {res.stderr}")
    check(first_line(res) == "knee x=16 y=5.902047 (concave, increasing; S=1, interp1d)", f"got {first_line(res)!r}")
    # Default columns are the first two; the shape is detected (find_shape: concave increasing).
    res = servestat(path)
    check(first_line(res) == "knee x=16 y=5.902047 (detected concave, increasing; S=1, interp1d)",
          f"detected: got {first_line(res)!r}")


def test_experiment3_p99_elbow_in_json():
    doc = as_json(servestat(exp3_csv(), "--x", "concurrency", "--y", "p99_s", "--curve", "convex",
                            "--direction", "increasing", "--json"), "p99 json")
    if not doc:
        return
    for key in ["knee", "knee_y", "norm_knee", "norm_knee_y", "all_knees", "curve", "direction", "S", "interp", "online"]:
        check(key in doc, f"JSON has {key}")
    check(doc.get("knee") == 16, f"p99 elbow at 16 (mirrored index), got {doc.get('knee')}")
    check(doc.get("knee_y") == 6.204649, f"knee_y 6.204649, got {doc.get('knee_y')}")
    # norm_knee is kneed's unmirrored normalised x: xn[3] = 7/63.
    check(math.isclose(doc.get("norm_knee", 0), 7 / 63, rel_tol=1e-12), f"norm_knee 7/63, got {doc.get('norm_knee')}")
    check(math.isclose(doc.get("norm_knee_y", 0), 1 - 4.902210 / 20.365327, rel_tol=1e-9),
          f"norm_knee_y, got {doc.get('norm_knee_y')}")
    check(doc.get("all_knees") == [16], f"all_knees [16], got {doc.get('all_knees')}")
    check(doc.get("curve") == "convex" and doc.get("direction") == "increasing", "shape as given")
    check(doc.get("S") == 1 and doc.get("interp") == "interp1d" and doc.get("online") is False, "settings echoed")
    check(doc.get("x") == "concurrency" and doc.get("y") == "p99_s" and doc.get("points") == 8, "columns and points")


def test_unsorted_rows_give_the_same_knee():
    path = exp3_csv("shuffled.csv", order=[5, 0, 7, 3, 4, 1, 6, 2])
    doc = as_json(servestat(path, "--curve", "concave", "--direction", "increasing", "--json"), "shuffled")
    check(doc.get("knee") == 16 and doc.get("knee_y") == 5.902047, f"shuffled rows: {doc}")


# The staircase of tests/test_kneedle.cpp: knees at x = 1 (offline) and x = 4 (online, last).
def test_online_lists_every_knee():
    path = write("stairs.csv", "x,y\n" + "".join(f"{x},{y}\n" for x, y in zip(range(9), [0, 8, 8, 8, 14, 14, 14, 15, 16])))
    res = servestat(path, "--curve", "concave", "--direction", "increasing")
    check(first_line(res) == "knee x=1 y=8 (concave, increasing; S=1, interp1d)", f"offline: {first_line(res)!r}")
    res = servestat(path, "--curve", "concave", "--direction", "increasing", "--online")
    lines = res.stdout.splitlines()
    check(lines[:2] == ["knee x=4 y=14 (concave, increasing; S=1, interp1d, online)", "all knees: x=1, 4"],
          f"online: {lines[:2]!r}")
    doc = as_json(servestat(path, "--curve", "concave", "--direction", "increasing", "--online", "--json"), "online json")
    check(doc.get("knee") == 4 and doc.get("all_knees") == [1, 4] and doc.get("online") is True, f"online json: {doc}")


# --all-knees: kneed's all_knees, all_knees_y, all_norm_knees and all_norm_knees_y, scanning online.
# The staircase (y/16 at xn = i/8): knees 1 and 4 with y 8 and 14, normalised x 1/8 and 1/2, normalised
# y 8/16 and 14/16. Experiment 3's p99 (convex increasing, derived in docs/knee.md): one knee, x 16,
# while all_norm_knees keeps kneed's unmirrored 7/63.
def test_all_knees():
    path = write("stairs.csv", "x,y\n" + "".join(f"{x},{y}\n" for x, y in zip(range(9), [0, 8, 8, 8, 14, 14, 14, 15, 16])))
    res = servestat(path, "--curve", "concave", "--direction", "increasing", "--all-knees")
    check(res.returncode == 0, f"--all-knees: exit {res.returncode}, {res.stderr!r}")
    lines = res.stdout.splitlines()
    check(lines[:5] == ["knee x=4 y=14 (concave, increasing; S=1, interp1d, online)", "all knees: x=1, 4",
                        "  all_knees_y: 8, 14", "  all_norm_knees: 0.125, 0.5", "  all_norm_knees_y: 0.5, 0.875"],
          f"--all-knees text: {lines[:5]!r}")
    doc = as_json(servestat(path, "--curve", "concave", "--direction", "increasing", "--all-knees", "--json"), "all json")
    check(doc.get("all_knees") == [1, 4] and doc.get("all_knees_y") == [8, 14], f"all_knees: {doc}")
    check(doc.get("all_norm_knees") == [0.125, 0.5] and doc.get("all_norm_knees_y") == [0.5, 0.875], f"norm: {doc}")
    check(doc.get("online") is True and doc.get("knee") == 4, f"--all-knees scans online: {doc}")
    doc = as_json(servestat(exp3_csv(), "--x", "concurrency", "--y", "p99_s", "--curve", "convex", "--direction",
                            "increasing", "--all-knees", "--json"), "p99 all json")
    check(doc.get("all_knees") == [16] and doc.get("all_knees_y") == [6.204649], f"p99 all_knees: {doc}")
    norm = doc.get("all_norm_knees") or [0]
    check(len(norm) == 1 and math.isclose(norm[0], 7 / 63, rel_tol=1e-12), f"p99 all_norm_knees 7/63: {norm}")
    # Offline, without the flag, the lists hold the one knee found (kneed fills them offline too).
    doc = as_json(servestat(path, "--curve", "concave", "--direction", "increasing", "--json"), "offline json")
    check(doc.get("all_knees") == [1] and doc.get("all_norm_knees") == [0.125], f"offline lists: {doc}")


def test_S_and_no_knee():
    path = exp3_csv()
    # Experiment 3's throughput difference curve peaks at .7348 (index 4) and ends at -.0450: with
    # S = 6 the threshold is .7348 - 6/7 = -.1224, never crossed.
    res = servestat(path, "--curve", "concave", "--direction", "increasing", "--S", "6")
    check(first_line(res) == "no knee (concave, increasing; S=6, interp1d)", f"S=6: {first_line(res)!r}")
    doc = as_json(servestat(path, "--curve", "concave", "--direction", "increasing", "--S", "6", "--json"), "S=6 json")
    check(doc.get("knee", 0) is None and doc.get("knee_y", 0) is None and doc.get("all_knees") == [], f"nulls: {doc}")
    line = write("line.csv", "x,y\n" + "".join(f"{x},{2 * x + 1}\n" for x in range(10)))
    res = servestat(line, "--curve", "concave", "--direction", "increasing")
    check(res.returncode == 0 and first_line(res).startswith("no knee ("), f"straight line: {first_line(res)!r}")


# kneed's test_figure2 (knee 0.22 within 5 %, with interp1d and polynomial) and
# test_convex_decreasing_bumpy (28 with the degree-7 polynomial).
def test_polynomial_mode():
    xs = [i * (1 / 9) for i in range(9)] + [1.0]
    path = write("figure2.csv", "x,y\n" + "".join(f"{x!r},{-1 / (x + 0.1) + 5!r}\n" for x in xs))
    for interp in ["interp1d", "polynomial"]:
        doc = as_json(servestat(path, "--curve", "concave", "--direction", "increasing", "--interp", interp, "--json"),
                      f"figure2 {interp}")
        check(doc.get("knee") is not None and math.isclose(doc["knee"], 0.22, rel_tol=0.05), f"figure2 {interp}: {doc.get('knee')}")
    bumpy = [7305.0, 6979.0, 6666.6, 6463.2, 6326.5, 6048.8, 6032.8, 5762.0, 5742.8, 5398.2, 5256.8, 5227.0, 5001.7,
             4942.0, 4854.2, 4734.6, 4558.7, 4491.1, 4411.6, 4333.0, 4234.6, 4139.1, 4056.8, 4022.5, 3868.0, 3808.3,
             3745.3, 3692.3, 3645.6, 3618.3, 3574.3, 3504.3, 3452.4, 3401.2, 3382.4, 3340.7, 3301.1, 3247.6, 3190.3,
             3180.0, 3154.2, 3089.5, 3045.6, 2989.0, 2993.6, 2941.3, 2875.6, 2866.3, 2834.1, 2785.1, 2759.7, 2763.2,
             2720.1, 2660.1, 2690.2, 2635.7, 2632.9, 2574.6, 2556.0, 2545.7, 2513.4, 2491.6, 2496.0, 2466.5, 2442.7,
             2420.5, 2381.5, 2388.1, 2340.6, 2335.0, 2318.9, 2319.0, 2308.2, 2262.2, 2235.8, 2259.3, 2221.0, 2202.7,
             2184.3, 2170.1, 2160.0, 2127.7, 2134.7, 2102.0, 2101.4, 2066.4, 2074.3, 2063.7, 2048.1, 2031.9]
    path = write("bumpy.csv", "x,y\n" + "".join(f"{x},{y}\n" for x, y in enumerate(bumpy)))
    res = servestat(path, "--curve", "convex", "--direction", "decreasing", "--interp", "polynomial")
    check(first_line(res) == "knee x=28 y=3645.6 (convex, decreasing; S=1, polynomial degree 7)", f"bumpy: {first_line(res)!r}")
    res = servestat(path, "--curve", "convex", "--direction", "decreasing")
    check(first_line(res).startswith("knee x=26 "), f"bumpy interp1d: {first_line(res)!r}")


def test_missing_cells_are_left_out_and_counted():
    path = write("gaps.csv", "concurrency,rps,long_p99_s\n" +
                 "".join(f"{c},{r},{'' if c < 32 else '1.0'}\n" for c, r in zip(CONCURRENCY, RPS)) + "128,nan,2.0\n")
    doc = as_json(servestat(path, "--curve", "concave", "--direction", "increasing", "--json"), "gaps")
    check(doc.get("knee") == 16 and doc.get("skipped_rows") == 1 and doc.get("points") == 8, f"NaN row left out: {doc}")
    # Four points left: x = 32 48 64 128, y = 1 1 1 2. xn = 0 1/6 1/3 1; yn = 0 0 0 1, reflected and
    # flipped: 0 1 1 1; d = 0 .8333 .6667 0, maximum at 1, threshold .8333 - 1/3 = .5, d[3] = 0 below
    # it: flipped index 1, mirrored to x[4 - 1 - 1] = 64.
    res = servestat(path, "--y", "long_p99_s", "--curve", "convex", "--direction", "increasing")
    check(res.returncode == 0 and first_line(res) == "knee x=64 y=1 (convex, increasing; S=1, interp1d)",
          f"4 points: {first_line(res)!r}")
    check("5 row(s) without a value in concurrency or long_p99_s left out" in res.stdout, f"skipped rows reported: {res.stdout!r}")


def test_bad_input_exit_codes_and_messages():
    good = exp3_csv()
    cases = [
        # (args, exit code, text that stderr must contain)
        ([good, "--y", "p50"], 3, "field 'p50': no such column"),
        ([write("text.csv", "concurrency,rps\n1,1.5\n2,fast\n4,3\n")], 3, "text.csv:3: field 'rps': not a number: 'fast'"),
        ([write("inf.csv", "concurrency,rps\n1,1.5\n2,inf\n4,3\n")], 3, "inf.csv:3: field 'rps': not a finite number"),
        ([write("short.csv", "concurrency,rps\n1,1.5\n2\n4,3\n")], 3, "short.csv:3"),
        ([write("one.csv", "rps\n1\n2\n")], 3, "needs two columns"),
        ([os.path.join(WORK, "absent.csv")], 3, "cannot read: no such file or directory"),
        ([good, "--curve", "concav"], 2, "--curve"),
        ([good, "--interp", "spline"], 2, "--interp"),
        ([good, "--S", "-1"], 2, "S must be a finite number >= 0"),
        ([good, "--interp", "polynomial", "--degree", "-2"], 2, "degree must be >= 0"),
        ([], 2, "file"),
    ]
    for args, code, text in cases:
        res = servestat(*args)
        check(res.returncode == code, f"{args}: exit {res.returncode}, expected {code} ({res.stderr.strip()!r})")
        check(text in res.stderr, f"{args}: stderr {res.stderr.strip()!r} lacks {text!r}")
        check(res.stdout == "" or code == 2, f"{args}: no result printed on error, got {res.stdout!r}")


if __name__ == "__main__":
    sys.exit(run_tests(WORK, [test_experiment3_throughput_knee_in_text, test_experiment3_p99_elbow_in_json,
                              test_unsorted_rows_give_the_same_knee, test_online_lists_every_knee, test_all_knees,
                              test_S_and_no_knee,
                              test_polynomial_mode, test_missing_cells_are_left_out_and_counted,
                              test_bad_input_exit_codes_and_messages]))
